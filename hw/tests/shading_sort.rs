//! rust-hdl simulation of `ShadingSort` against its cycle model `ShadingSortCycle` through the
//! one lock-step harness (`tilerast_verif::lockstep`, rust-hdl back end in `tests/common`): a
//! source of records on `inp` (`stim::ShadeTiles`, which checks the pixels out), a sink on `out`, golden's
//! `MemoryCycle` behind the read port (`rd` → `rsp`, the primitive table's colour words), every
//! output port (`idle` too) compared on every cycle. Stimulus: records of random second tiles
//! (and `none` tokens) with gaps and junk payloads while not valid, random `out_ready` with a
//! long stall, a random memory grant with a long stall, a flush mid-tile; the pixels out must be
//! golden's (`shade_tile` formatted by `tile_pixels`). Small second tiles and digits keep a tile
//! at a few hundred cycles.

mod common;

use tilerast_golden::config::Config;
use tilerast_golden::memory_port::{MemTiming, MemoryCycle, SparseMemory};
use tilerast_golden::pixel_info::{PixelInfo, DEPTH_MAX};
use tilerast_golden::pixel_info_read::{mask_bits, tile_beats};
use tilerast_golden::prim_table::COLOUR_WORD;
use tilerast_golden::shading_sort::{shade_tile, tile_pixels, ShadingSortCycle};
use tilerast_golden::streams::ports;
use tilerast_golden::{DepthFunc, Rgba};
use tilerast_hw::shading_sort::ShadingSort;
use tilerast_verif::lockstep::{self, Bench, Ctl, Flushes, Lockstep, Memory, Sink};
use tilerast_verif::stim::{ShadeTile, ShadeTiles};
use tilerast_verif::{Pattern, Rng};

/// What a run did.
#[derive(Debug, Default)]
struct Report {
    wrong: Option<String>,
    tiles_out: u64,
    reads: u64,
    rd_stall: u64,
    out_stall: u64,
    flushes: u64,
    passes: u64,
}

fn colour_of(prim: u32) -> Rgba {
    let h = Rng::mix(0x5ade, prim as u64);
    [h as u8, (h >> 8) as u8, (h >> 16) as u8, 0x80 | (h >> 24) as u8]
}

/// `count` random second tiles (every fourth empty): (beats, golden pixels), and the memory.
fn tiles(cfg: &Config, seed: u64, count: usize) -> (Vec<ShadeTile>, SparseMemory) {
    let mut r = Rng::new(seed);
    let [sw, sh] = cfg.second_tile;
    let nx = cfg.viewport[0].div_ceil(sw);
    let ny = cfg.viewport[1].div_ceil(sh);
    let used = mask_bits(cfg.msaa);
    let mut out = Vec::new();
    let mut raw = Vec::new();
    let mut maxp = 0;
    for i in 0..count {
        let t = (r.below((nx * ny) as u64)) as u32;
        let st = [t % nx, t / nx];
        if i % 4 == 3 {
            raw.push((st, vec![]));
            continue;
        }
        let base = r.below(1 << 20) as u32;
        // Tiles of one primitive (no sort pass), of a few (one pass) and spanning 2^12 ids
        // (3 passes of 4 bits).
        let spread = [3, 1 << 12, 1][i % 4];
        let n = 2 + r.below(10) as usize;
        let recs: Vec<PixelInfo> = (0..n)
            .map(|_| {
                let prim = base + r.below(spread) as u32;
                maxp = maxp.max(prim);
                PixelInfo {
                    mask: if r.chance(30) {
                        used
                    } else {
                        (r.next_u64() & used).max(1)
                    },
                    depth: if r.chance(30) {
                        *r.pick(&[0, 500, DEPTH_MAX])
                    } else {
                        r.below(1 << 24) as u32
                    },
                    prim,
                    frame: 1,
                    qx: r.below((sw / 2) as u64) as u8,
                    qy: r.below((sh / 2) as u64) as u8,
                }
            })
            .collect();
        raw.push((st, recs));
    }
    let mut mem = SparseMemory::new();
    let colours: Vec<Rgba> = (0..=maxp).map(colour_of).collect();
    // Pixels whose visible samples hold two or more primitives: several shading points in one
    // pixel, the readout's and the walk's per-primitive sample masks at work.
    let (mut mixed, mut no_pass) = (0, 0);
    for (st, recs) in &raw {
        let beats = tile_beats(*st, recs, 1);
        let px = if recs.is_empty() {
            vec![]
        } else {
            let (ts, stats) = shade_tile(cfg, *st, recs, &colours).unwrap();
            no_pass += (stats.sort_passes == 0 && stats.visible_samples > 0) as u32;
            for px in ts.samples.chunks(cfg.msaa as usize) {
                let mut prims: Vec<u32> = px.iter().flatten().map(|e| e.0).collect();
                prims.dedup();
                mixed += (prims.len() > 1) as u32;
            }
            for rec in recs {
                mem.write(
                    32 * rec.prim + 4 * COLOUR_WORD,
                    u32::from_le_bytes(colours[rec.prim as usize]),
                    0xf,
                );
            }
            tile_pixels(cfg, &ts)
        };
        out.push((beats, px));
    }
    assert!(cfg.msaa == 1 || mixed > 0, "no pixel with two primitives");
    assert!(no_pass > 0, "no drawn tile of one primitive");
    (out, mem)
}

/// The controls of one run: record offered, out_ready, memory grant; flush cycles.
struct Lines {
    valid: Ctl,
    ready: Ctl,
    grant: Ctl,
    flush_at: Vec<u64>,
}

fn run(cfg: &Config, tiles: Vec<ShadeTile>, timing: MemTiming, mem: SparseMemory, cycles: u64, l: Lines) -> Report {
    let bench = Bench::new()
        .with("flush", Flushes::at(l.flush_at))
        .with(
            "inp",
            ShadeTiles::new(tiles, l.valid, Rng::new(77), mask_bits(cfg.msaa)),
        )
        .with("out", Sink::<ports::PixSamples>::new("out", l.ready))
        .with("mem", Memory::new("rd", "rsp", MemoryCycle::new(timing, mem), l.grant));
    let ls = Lockstep::new(ShadingSortCycle::new(cfg), bench);
    let (ls, outcome) = common::lockstep(ShadingSort::new(cfg), ls, cycles, None);
    println!("{}", ls.bench.summary());
    if let Err(m) = outcome {
        panic!("{m}\n  model phase after that edge {:?}", ls.model.phase());
    }
    let t = ls.bench.get::<ShadeTiles>("inp");
    let sink = ls.bench.get::<Sink<ports::PixSamples>>("out");
    let mem = ls.bench.get::<Memory>("mem");
    let r = Report {
        wrong: t.wrong.clone(),
        tiles_out: t.tiles_out,
        reads: mem.requests,
        rd_stall: mem.waits,
        out_stall: sink.waits,
        flushes: ls.bench.get::<Flushes>("flush").count,
        passes: ls.model.stats().sort_passes,
    };
    println!("{r:?}");
    assert_eq!(r.wrong, None, "pixels differ from golden's");
    r
}

/// Small second tiles and 4-bit digits: 8×8 at 1x (ice40_1x) and 8×4 at 4x (ice40, Less),
/// whose viewport cuts the right-most tiles.
fn small(preset: &str) -> Config {
    let mut cfg = Config::preset(preset).unwrap();
    cfg.second_tile = if cfg.msaa == 1 { [8, 8] } else { [8, 4] };
    cfg.sort_digit_bits = 4;
    if cfg.msaa > 1 {
        cfg.viewport = [44, 16];
        cfg.depth_func = DepthFunc::Less;
    }
    cfg.validate().unwrap();
    cfg
}

#[test]
fn cosim_against_the_cycle_model() {
    for (i, preset) in ["ice40_1x", "ice40"].into_iter().enumerate() {
        let cfg = small(preset);
        let seed = 60 + i as u64;
        let (t, mem) = tiles(&cfg, seed, 10);
        let ready = Pattern::RandomStalls {
            pct: 80,
            permille: 3,
            min: 5,
            max: 20,
        };
        let lines = Lines {
            valid: lockstep::line(Pattern::gaps(40).line(Rng::stream(seed, 0))),
            ready: lockstep::line_stalled(ready.line(Rng::stream(seed, 1)), 900..1000), // a long output stall
            grant: lockstep::line_stalled(Pattern::Random { pct: 70 }.line(Rng::stream(seed, 2)), 1500..1560),
            flush_at: vec![2200],
        };
        println!("{preset} {}x{}", cfg.second_tile[0], cfg.second_tile[1]);
        let r = run(&cfg, t, MemTiming { latency: 2, depth: 2 }, mem, 4000, lines);
        assert_eq!(r.flushes, 1);
        assert!(r.tiles_out >= 3 && r.reads > 3 && r.passes > 1, "{r:?}");
        assert!(r.rd_stall > 0 && r.out_stall > 50, "{r:?}");
    }
}

#[test]
fn verilog_lints_clean() {
    for p in tilerast_golden::PRESETS {
        let cfg = Config::preset(p).unwrap();
        let top = format!("shading_sort_{p}");
        if tilerast_hw::shading_sort::supported(&cfg).is_err() {
            continue;
        }
        let v = tilerast_hw::shading_sort::verilog(&cfg, &top);
        assert!(tilerast_hw::emit::rangeless_signed_localparams(&v).is_empty(), "{top}");
        if let Err(msg) = tilerast_hw::emit::lint(&v, &top) {
            panic!("{top}: lint:\n{msg}");
        }
    }
}

#[test]
fn refuses_bad_configs_by_name() {
    let mut cfg = Config::preset("ice40").unwrap();
    cfg.sort_digit_bits = 13;
    let e = tilerast_hw::shading_sort::supported(&cfg).unwrap_err();
    assert!(e.starts_with("config.sort_digit_bits:") && !e.contains('\n'), "{e}");
}
