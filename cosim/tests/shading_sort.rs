//! Verilator co-simulation of the sort-based shading block alone
//! (`rtl-out/tilerast_shading_sort_{default,ice40}.v`) against its cycle model
//! `ShadingSortCycle`, every port on every cycle, with a golden `MemoryCycle` behind the read
//! port holding the primitive table's colour words (latency, depth and `grant` back-pressure
//! varied per run), through the one lock-step harness (`tilerast_verif::lockstep`, Verilator
//! back end `cosim_lockstep`; `stim::ShadeTiles` drives `inp` and checks `out`). Stimulus: random second tiles' records (one-pass and multi-pass
//! sorts, ties, `none` tokens) with gaps and junk payloads while not valid, random
//! `out_ready` with stalls of 1 000 to 3 000 cycles, grant patterns, flushes mid-tile, tiles
//! back to back; the pixels out must be golden's (`shade_tile` formatted by `tile_pixels`).
//! Plus: the planted bug of `cosim/build/mutation.rs` (the histogram epoch does not toggle)
//! is caught at the cycle and port predicted by the model with the same bug.

use std::sync::{Arc, Mutex};
use tilerast_cosim::blocks::cosim_lockstep;
use tilerast_golden::memory_port::{MemTiming, MemoryCycle, SparseMemory};
use tilerast_golden::pixel_info::{PixelInfo, DEPTH_MAX};
use tilerast_golden::pixel_info_read::{mask_bits, tile_beats};
use tilerast_golden::prim_table::COLOUR_WORD;
use tilerast_golden::shading_sort::{shade_tile, tile_pixels, ShadingSortCycle};
use tilerast_golden::streams::ports;
use tilerast_golden::{Config, Rgba};
use tilerast_verif::lockstep::{first_difference, line, Bench, Flushes, Lockstep, Memory, Mismatch, Sink};
use tilerast_verif::stim::{ShadeTile, ShadeTiles};
use tilerast_verif::{Pattern, Rng};

fn colour_of(prim: u32) -> Rgba {
    let h = Rng::mix(0xc05, prim as u64);
    [h as u8, (h >> 8) as u8, (h >> 16) as u8, 0x80 | (h >> 24) as u8]
}

/// `count` random second tiles of `cfg` (every fifth empty; few primitives close together,
/// primitives spread over 2^20 ids, or one covering primitive plus a few), and the memory.
fn tiles(cfg: &Config, seed: u64, count: usize) -> (Vec<ShadeTile>, SparseMemory, u64) {
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

struct Drive {
    seed: u64,
    cycles: u64,
    timing: MemTiming,
    valid: Pattern,
    ready: Pattern,
    grant: Pattern,
    flush_at: Vec<u64>,
}

#[derive(Debug, Default)]
struct Outcome {
    tiles_out: u64,
    beats: u64,
    reads: u64,
    longest_stall: u64,
    grant_stalls: u64,
    busy_flushes: u64,
    passes: u64,
}

/// The bench of one drive over `tiles` (repeated): `stim::ShadeTiles` on `inp` / `out` (it
/// checks the pixels against golden's), the sink's ready, golden's memory behind the read port.
fn bench(cfg: &Config, tiles: &[ShadeTile], mem: &SparseMemory, d: &Drive) -> Bench {
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

/// RTL `preset` against the model for `cfg` over `tiles` (repeated) through the lock-step
/// harness, every port, every cycle; the pixels out must be golden's.
fn run(
    preset: &str,
    cfg: &Config,
    tiles: &[ShadeTile],
    mem: &SparseMemory,
    d: &Drive,
) -> Result<Outcome, Box<Mismatch>> {
    let busy = Arc::new(Mutex::new(0u64));
    let b = busy.clone();
    let flush_at = d.flush_at.clone();
    let mut ls = Lockstep::new(ShadingSortCycle::new(cfg), bench(cfg, tiles, mem, d)).watching(move |c, m| {
        *b.lock().unwrap() += (flush_at.contains(&c) && !m.is_idle()) as u64;
    });
    cosim_lockstep(preset, &mut ls, d.cycles, None)?;
    println!("{}", ls.bench.summary());
    let busy = *busy.lock().unwrap();
    let t = ls.bench.get::<ShadeTiles>("inp");
    assert_eq!(t.wrong, None, "pixels differ from golden's");
    let sink = ls.bench.get::<Sink<ports::PixSamples>>("out");
    let mem = ls.bench.get::<Memory>("mem");
    Ok(Outcome {
        tiles_out: t.tiles_out,
        beats: t.beats,
        reads: mem.requests,
        longest_stall: sink.longest_wait,
        grant_stalls: mem.waits,
        busy_flushes: busy,
        passes: ls.model.stats().sort_passes,
    })
}

fn long_run(preset: &str, seed: u64, timings: &[MemTiming]) {
    let cfg = Config::preset(preset).unwrap();
    let (t, mem, passes) = tiles(&cfg, seed, 15);
    assert!(passes > t.len() as u64, "multi-pass tiles: {passes}");
    for (i, &timing) in timings.iter().enumerate() {
        let s = seed * 10 + i as u64;
        let cycles = 250_000;
        let d = Drive {
            seed: s,
            cycles,
            timing,
            valid: Pattern::gaps(40),
            ready: Pattern::RandomStalls {
                pct: 80,
                permille: 1,
                min: 1_000,
                max: 3_000,
            },
            grant: [
                Pattern::Random { pct: 70 },
                Pattern::Stalls {
                    pct: 90,
                    every: 7_000,
                    len: 1_200,
                },
            ][i % 2],
            flush_at: vec![30_003 + 1_000 * i as u64, 151_000 + 777 * i as u64],
        };
        let o = run(preset, &cfg, &t, &mem, &d)
            .unwrap_or_else(|m| panic!("{preset} L{} D{}: {m}", timing.latency, timing.depth));
        println!("{preset} L{} D{}: {o:?}", timing.latency, timing.depth);
        assert!(o.tiles_out >= 5, "several tiles: {o:?}");
        assert!(o.longest_stall >= 1_000, "{o:?}");
        assert!(o.busy_flushes >= 1, "a flush mid-tile: {o:?}");
        // `passes`: the model's counter, since the last flush.
        assert!(
            o.reads > 10 && o.grant_stalls > 0 && o.passes >= 2 && o.beats > 100,
            "{o:?}"
        );
    }
}

#[test]
fn rtl_matches_cycle_model_default() {
    long_run(
        "default",
        1,
        &[MemTiming { latency: 1, depth: 2 }, MemTiming { latency: 4, depth: 2 }],
    );
}

#[test]
fn rtl_matches_cycle_model_ice40() {
    long_run(
        "ice40",
        2,
        &[MemTiming { latency: 2, depth: 3 }, MemTiming { latency: 3, depth: 1 }],
    );
}

/// The planted bug (`default_mut`: the histogram epoch does not toggle at a pass's end): the
/// RTL differs from the model first at the cycle and on the port where the model with the
/// same planted bug first differs (predicted by stepping it on the same inputs).
#[test]
fn planted_bug_is_caught_where_predicted() {
    let cfg = Config::preset("default").unwrap();
    let (t, mem, _) = tiles(&cfg, 5, 6);
    let d = Drive {
        seed: 77,
        cycles: 80_000,
        timing: MemTiming { latency: 2, depth: 3 },
        valid: Pattern::gaps(20),
        ready: Pattern::Random { pct: 85 },
        grant: Pattern::Random { pct: 85 },
        flush_at: vec![],
    };
    let mut buggy = ShadingSortCycle::new(&cfg);
    buggy.plant_bug();
    let mut clean = Lockstep::new(ShadingSortCycle::new(&cfg), bench(&cfg, &t, &mem, &d));
    let mut mutant = Lockstep::new(buggy, bench(&cfg, &t, &mem, &d));
    let (at, port) = first_difference(&mut clean, &mut mutant, d.cycles)
        .unwrap()
        .expect("the mutant model differs somewhere");
    run("default", &cfg, &t, &mem, &d).unwrap_or_else(|m| panic!("clean: {m}"));
    let m = run("default_mut", &cfg, &t, &mem, &d).expect_err("the planted bug is caught");
    println!("planted bug: predicted cycle {at} on {port}, caught: {m}");
    assert_eq!(
        (m.cycle, m.port.as_str()),
        (at, port.as_str()),
        "caught at the predicted cycle and port"
    );
}
