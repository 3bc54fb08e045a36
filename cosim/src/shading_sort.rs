//! shading_sort's bench for the one lock-step harness (`tilerast_verif::lockstep`): the drive
//! of `cosim/tests/shading_sort.rs` (Verilator, `blocks::cosim_lockstep`) and of the gate-level
//! test (`fpga/tests/postsim.rs`, `blocks::lockstep_vectors`). Random second tiles' records
//! (`stim::ShadeTiles` on `inp`, with gaps and junk while not valid; it checks the pixels out
//! against golden's `shade_tile`), a sink on `out`, golden's memory behind the read port (the
//! primitive table's colour words), flushes.

use std::sync::{Arc, Mutex};
use tilerast_golden::memory_port::{MemTiming, MemoryCycle, SparseMemory};
use tilerast_golden::pixel_info::{PixelInfo, DEPTH_MAX};
use tilerast_golden::pixel_info_read::{mask_bits, tile_beats};
use tilerast_golden::prim_table::COLOUR_WORD;
use tilerast_golden::shading_sort::{shade_tile, tile_pixels, ShadingSortCycle};
use tilerast_golden::streams::ports;
use tilerast_golden::{Config, Rgba};
use tilerast_verif::lockstep::{line, Bench, Flushes, Lockstep, Memory, Sink};
use tilerast_verif::stim::{ShadeTile, ShadeTiles};
use tilerast_verif::{Pattern, Rng};

/// The colour of primitive `prim` in the generated tables.
pub fn colour_of(prim: u32) -> Rgba {
    let h = Rng::mix(0xc05, prim as u64);
    [h as u8, (h >> 8) as u8, (h >> 16) as u8, 0x80 | (h >> 24) as u8]
}

/// `count` random second tiles of `cfg` (every fifth empty; few primitives close together,
/// primitives spread over 2^20 ids, or one covering primitive plus a few), the memory (the
/// primitive table's colour words) and golden's sort passes over them.
pub fn tiles(cfg: &Config, seed: u64, count: usize) -> (Vec<ShadeTile>, SparseMemory, u64) {
    let mut r = Rng::new(seed);
    let [sw, sh] = cfg.second_tile;
    let nx = cfg.viewport[0].div_ceil(sw);
    let ny = cfg.viewport[1].div_ceil(sh);
    let used = mask_bits(cfg.msaa);
    let mut raw = Vec::new();
    let mut maxp = 0;
    for i in 0..count {
        let t = r.below((nx * ny) as u64) as u32;
        let st = [t % nx, t / nx];
        if i % 5 == 4 {
            raw.push((st, vec![]));
            continue;
        }
        let base = r.below(1 << 19) as u32;
        let mut recs = Vec::new();
        if i % 3 == 2 {
            for qy in 0..sh / 2 {
                for qx in 0..sw / 2 {
                    recs.push(PixelInfo {
                        mask: used,
                        depth: 1 << 22,
                        prim: base,
                        frame: 2,
                        qx: qx as u8,
                        qy: qy as u8,
                    });
                }
            }
        }
        for _ in 0..1 + r.below(40) {
            let prim = match i % 3 {
                0 => base + r.below(4) as u32,
                1 => base + r.below(1 << 20) as u32,
                _ => base + 1 + r.below(5) as u32,
            };
            recs.push(PixelInfo {
                mask: if r.chance(30) {
                    used
                } else {
                    (r.next_u64() & used).max(1)
                },
                depth: if r.chance(30) {
                    *r.pick(&[0, 1000, 1 << 22, DEPTH_MAX])
                } else {
                    r.below(1 << 24) as u32
                },
                prim,
                frame: 2,
                qx: r.below((sw / 2) as u64) as u8,
                qy: r.below((sh / 2) as u64) as u8,
            });
        }
        for rec in &recs {
            maxp = maxp.max(rec.prim);
        }
        raw.push((st, recs));
    }
    let colours: Vec<Rgba> = (0..=maxp).map(colour_of).collect();
    let mut mem = SparseMemory::new();
    let mut passes = 0;
    let mut out = Vec::new();
    for (st, recs) in &raw {
        let beats = tile_beats(*st, recs, 2);
        if recs.is_empty() {
            out.push((beats, vec![]));
            continue;
        }
        let (ts, ss) = shade_tile(cfg, *st, recs, &colours).unwrap();
        passes += ss.sort_passes;
        for rec in recs {
            mem.write(
                32 * rec.prim + 4 * COLOUR_WORD,
                u32::from_le_bytes(colours[rec.prim as usize]),
                0xf,
            );
        }
        out.push((beats, tile_pixels(cfg, &ts)));
    }
    (out, mem, passes)
}

/// The handshake lines, the memory's timing and the flushes of a run.
#[derive(Clone, Debug)]
pub struct Drive {
    pub seed: u64,
    pub cycles: u64,
    pub timing: MemTiming,
    pub valid: Pattern,
    pub ready: Pattern,
    pub grant: Pattern,
    pub flush_at: Vec<u64>,
}

/// What a run did.
#[derive(Debug, Default)]
pub struct Outcome {
    pub tiles_out: u64,
    pub beats: u64,
    pub reads: u64,
    pub longest_stall: u64,
    pub grant_stalls: u64,
    /// Flushes that found the block busy (the model not idle).
    pub busy_flushes: u64,
    /// The model's sort passes since the last flush.
    pub passes: u64,
}

/// The bench of one drive over `tiles` (repeated): `stim::ShadeTiles` on `inp` / `out` (it
/// checks the pixels against golden's), the sink's ready, golden's memory behind the read port.
pub fn bench(cfg: &Config, tiles: &[ShadeTile], mem: &SparseMemory, d: &Drive) -> Bench {
    let valid = line(d.valid.line(Rng::stream(d.seed, 0)));
    Bench::new()
        .with("flush", Flushes::at(d.flush_at.clone()))
        .with(
            "inp",
            ShadeTiles::new(tiles.to_vec(), valid, Rng::stream(d.seed, 3), mask_bits(cfg.msaa)),
        )
        .with(
            "out",
            Sink::<ports::PixSamples>::new("out", line(d.ready.line(Rng::stream(d.seed, 1)))),
        )
        .with(
            "mem",
            Memory::new(
                "rd",
                "rsp",
                MemoryCycle::new(d.timing, mem.clone()),
                line(d.grant.line(Rng::stream(d.seed, 2))),
            ),
        )
}

/// Busy flushes counted while a run steps.
pub type BusyFlushes = Arc<Mutex<u64>>;

/// The model for `cfg` on [`bench`], counting the flushes that find it busy.
pub fn lockstep(
    cfg: &Config,
    tiles: &[ShadeTile],
    mem: &SparseMemory,
    d: &Drive,
) -> (Lockstep<ShadingSortCycle>, BusyFlushes) {
    let busy = Arc::new(Mutex::new(0u64));
    let b = busy.clone();
    let flush_at = d.flush_at.clone();
    let ls = Lockstep::new(ShadingSortCycle::new(cfg), bench(cfg, tiles, mem, d)).watching(move |c, m| {
        *b.lock().unwrap() += (flush_at.contains(&c) && !m.is_idle()) as u64;
    });
    (ls, busy)
}

/// What the run of `ls` did; `Err` if a tile's pixels were not golden's.
pub fn outcome(ls: &Lockstep<ShadingSortCycle>, busy: &BusyFlushes) -> Result<Outcome, String> {
    let t = ls.bench.get::<ShadeTiles>("inp");
    if let Some(w) = &t.wrong {
        return Err(format!("pixels differ from golden's: {w}"));
    }
    let sink = ls.bench.get::<Sink<ports::PixSamples>>("out");
    let mem = ls.bench.get::<Memory>("mem");
    Ok(Outcome {
        tiles_out: t.tiles_out,
        beats: t.beats,
        reads: mem.requests,
        longest_stall: sink.longest_wait,
        grant_stalls: mem.waits,
        busy_flushes: *busy.lock().unwrap(),
        passes: ls.model.stats().sort_passes,
    })
}
