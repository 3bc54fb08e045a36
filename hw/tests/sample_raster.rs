//! rust-hdl simulation of `SampleRaster` against its cycle model `SampleRasterCycle`: the same
//! stimulus drives both and every output port (valid and payload) and `in_ready` must agree on
//! every cycle. Stimulus: jobs golden setup + sub-tile coverage produce for random triangles,
//! mixed with synthetic jobs whose E values sit anywhere in the 48-bit range and right at the
//! RTL's clamp thresholds ±2^(M+4) (the narrowing must stay exact), coefficients up to the
//! guard-band bounds, random `trivial` / `none` / `last`; random input gaps, random `out_ready`
//! with long stalls, one `flush` pulse. Plus Verilog emission per preset, linted with
//! `verilator --lint-only -Wall` (skipped with a note if verilator is absent).

mod common;

use common::Run;
use tilerast_golden::config::{Config, ONE};
use tilerast_golden::prim::TriangleFx;
use tilerast_golden::raster::tiles_of;
use tilerast_golden::sample_raster::{SampleRasterCycle, SampleRasterGeom};
use tilerast_golden::setup::setup_triangle;
use tilerast_golden::streams::{Cand, Job};
use tilerast_golden::subtile_coverage::{classify_tile, CoverageStats};
use tilerast_golden::tile_parser::parse_tile;
use tilerast_hw::sample_raster::SampleRaster;

use tilerast_verif::{Flush, Handshake, Pattern, Rng};

/// Jobs of a random triangle in one of its tiles (golden setup + sub-tile coverage).
fn triangle_jobs(cfg: &Config, r: &mut Rng, prim: u32) -> Vec<Job> {
    let (lo, hi) = cfg.guard_limits_fx();
    let (vw, vh) = (cfg.viewport[0] as i64 * ONE as i64, cfg.viewport[1] as i64 * ONE as i64);
    let v = if r.below(3) == 0 {
        [0; 3].map(|_| {
            [
                r.range(lo[0] as i64, hi[0] as i64) as i32,
                r.range(lo[1] as i64, hi[1] as i64) as i32,
            ]
        })
    } else {
        let c = [r.range(0, vw), r.range(0, vh)];
        let rad = r.range(ONE as i64, 40 * ONE as i64);
        [0; 3].map(|_| {
            [
                (c[0] + r.range(-rad, rad)).clamp(lo[0] as i64, hi[0] as i64) as i32,
                (c[1] + r.range(-rad, rad)).clamp(lo[1] as i64, hi[1] as i64) as i32,
            ]
        })
    };
    let Ok(tri) = setup_triangle(
        cfg,
        &TriangleFx {
            v,
            colour: [0; 4],
            depth: 0,
        },
    ) else {
        return Vec::new();
    };
    let tiles: Vec<[u32; 2]> = tiles_of(cfg, &tri.bbox).collect();
    let tile = tiles[r.below(tiles.len() as u64) as usize];
    let pt = parse_tile(cfg, tile).unwrap();
    let mut cov = Vec::new();
    classify_tile(cfg, &tri, &pt, &mut CoverageStats::default(), &mut cov);
    let base = Cand {
        prim,
        tile_x: tile[0],
        tile_y: tile[1],
        a: tri.edges.map(|e| e.a as i32),
        b: tri.edges.map(|e| e.b as i32),
        vis_w: pt.rect.width(),
        vis_h: pt.rect.height(),
        ..Default::default()
    };
    if cov.is_empty() {
        return vec![Job {
            cand: Cand {
                last: true,
                none: true,
                ..base
            },
            trivial: false,
        }];
    }
    let n = cov.len();
    // At most 6 sub-tiles of the command (keeps the simulation short), still ending in `last`.
    let skip = n.saturating_sub(6);
    cov.iter()
        .enumerate()
        .skip(skip)
        .map(|(i, cs)| {
            let (x, y) = (cs.sub.rect.x0 as i64 * ONE as i64, cs.sub.rect.y0 as i64 * ONE as i64);
            Job {
                cand: Cand {
                    col: cs.sub.col,
                    row: cs.sub.row,
                    e: tri.edges.map(|e| e.eval(x, y)),
                    last: i + 1 == n,
                    ..base
                },
                trivial: cs.trivial,
            }
        })
        .collect()
}

/// A synthetic job: coefficients up to the guard-band bounds, E anywhere, at, or next to the
/// clamp thresholds, random flags and viewport clipping.
fn synthetic_job(cfg: &Config, g: &SampleRasterGeom, r: &mut Rng, prim: u32) -> Job {
    let m4 = 1i64 << (g.m + 4);
    let coef = |r: &mut Rng, max: i64| match r.below(4) {
        0 => max,
        1 => -max,
        _ => r.range(-max, max),
    };
    let a = [0; 3].map(|_| coef(r, g.coef_max[0]));
    let b = [0; 3].map(|_| coef(r, g.coef_max[1]));
    let (w, h) = (cfg.subtile[0] as i64 * ONE as i64, cfg.subtile[1] as i64 * ONE as i64);
    let mut e = [0i64; 3];
    for (k, v) in e.iter_mut().enumerate() {
        *v = match r.below(8) {
            // The edge crosses the sub-tile (through a random point, sometimes a sample).
            0..=2 => {
                let (x, y) = if r.below(2) == 0 {
                    let o = tilerast_golden::samples::offsets(cfg.msaa);
                    let (sx, sy) = o[r.below(o.len() as u64) as usize];
                    (
                        r.below(cfg.subtile[0] as u64) as i64 * ONE as i64 + sx as i64 * 16,
                        r.below(cfg.subtile[1] as u64) as i64 * ONE as i64 + sy as i64 * 16,
                    )
                } else {
                    (r.range(0, w), r.range(0, h))
                };
                -(a[k] * x + b[k] * y) + r.range(-2, 2)
            }
            // Inside (large positive) or anywhere.
            3 => r.range(m4 / 2, 1 << 46),
            4 => r.range(-(1 << 46), 1 << 46),
            // At the clamp thresholds ±2^(M+4).
            5 => m4 + r.range(-20, 20),
            6 => -m4 + r.range(-20, 20),
            // In the band 2^(M+3) ≤ |E| < 2^(M+4) next to the thresholds.
            _ => {
                let v = r.range(m4 / 2, m4 - 1);
                if r.below(2) == 0 {
                    v
                } else {
                    -v
                }
            }
        };
    }
    let (a, b) = (a.map(|v| v as i32), b.map(|v| v as i32));
    let [nx, ny] = cfg.tiles();
    let none = r.below(12) == 0;
    Job {
        cand: Cand {
            prim,
            tile_x: r.below(nx as u64) as u32,
            tile_y: r.below(ny as u64) as u32,
            col: r.below((cfg.tile[0] / cfg.subtile[0]) as u64) as u32,
            row: r.below((cfg.tile[1] / cfg.subtile[1]) as u64) as u32,
            e,
            a,
            b,
            vis_w: if r.below(3) == 0 {
                1 + r.below(cfg.tile[0] as u64) as u32
            } else {
                cfg.tile[0]
            },
            vis_h: if r.below(3) == 0 {
                1 + r.below(cfg.tile[1] as u64) as u32
            } else {
                cfg.tile[1]
            },
            last: none || r.below(3) == 0,
            none,
        },
        trivial: r.below(5) == 0,
    }
}

/// 400+ jobs: half from random triangles, half synthetic.
fn stimulus_jobs(cfg: &Config, seed: u64) -> Vec<Job> {
    let geom = SampleRasterGeom::new(cfg).unwrap();
    let mut r = Rng::new(seed);
    let mut jobs = Vec::new();
    let mut prim = 0;
    while jobs.len() < 400 {
        prim += 1;
        if r.below(2) == 0 {
            jobs.extend(triangle_jobs(cfg, &mut r, prim));
        } else {
            jobs.push(synthetic_job(cfg, &geom, &mut r, prim));
        }
    }
    jobs
}

/// Co-simulate `cycles` cycles (the jobs offered over and over; 20 % input gaps, 80 % ready
/// with stalls of 10-49 cycles, one flush); panics at a difference. Returns (beats transferred,
/// valid lanes transferred).
fn cosim(preset: &str, cycles: u64, seed: u64, flush_at: u64) -> (u64, u64) {
    let cfg = Config::preset(preset).unwrap();
    let jobs = stimulus_jobs(&cfg, seed);
    let ready = Pattern::RandomStalls {
        pct: 80,
        permille: 20,
        min: 10,
        max: 49,
    };
    let hs = Handshake::new(Pattern::gaps(20), ready).with_flush(Flush::At(flush_at));
    let r = Run::new(hs, seed, cycles).go(
        SampleRaster::new(&cfg),
        SampleRasterCycle::new(&cfg),
        jobs.into_iter().cycle(),
    );
    let lanes: u64 = r.outputs().map(|b| b.lane_valid.count_ones() as u64).sum();
    println!("{preset}: {} ({lanes} quads)", r.summary());
    r.assert_clean(preset);
    (r.transferred, lanes)
}

#[test]
fn cosim_ice40() {
    let (beats, lanes) = cosim("ice40", 2000, 101, 900);
    assert!(beats > 300 && lanes > 300, "only {beats} beats / {lanes} quads");
}

#[test]
fn cosim_default() {
    let (beats, lanes) = cosim("default", 1200, 202, 500);
    assert!(beats > 150 && lanes > 200, "only {beats} beats / {lanes} quads");
}

#[test]
fn cosim_full() {
    let (beats, lanes) = cosim("full", 300, 303, 150);
    assert!(beats > 30 && lanes > 60, "only {beats} beats / {lanes} quads");
}

#[test]
fn verilog_lints_clean() {
    // Every preset's Verilog of this block: ranged constants, and `verilator --lint-only -Wall`
    // clean with the project's one waiver file (hw/lint/waivers.vlt).
    for p in tilerast_golden::PRESETS {
        let cfg = tilerast_golden::Config::preset(p).unwrap();
        let top = format!("sample_raster_{p}");
        let v = tilerast_hw::sample_raster::verilog(&cfg, &top);
        assert!(tilerast_hw::emit::rangeless_signed_localparams(&v).is_empty(), "{top}");
        if let Err(msg) = tilerast_hw::emit::lint(&v, &top) {
            panic!("{top}: lint:\n{msg}");
        }
    }
}
