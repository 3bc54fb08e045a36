//! Verilator co-simulation of the `sample_raster` block alone (`tilerast_<preset>__sample` in
//! `rtl-out/`) against its cycle model `SampleRasterCycle`, every port on every cycle (harness:
//! `tilerast_cosim::blocks`). Stimulus (the generators of `hw/tests/sample_raster.rs`): jobs
//! golden setup + sub-tile coverage produce for random triangles, and synthetic jobs whose E
//! values sit anywhere in the 48-bit range and right at the RTL's clamp thresholds ±2^(M+4),
//! coefficients up to the guard-band bounds, random `trivial` / `none` / `last`, viewport
//! clipping; input gaps with junk payloads, random ready with long stalls, two flushes; 40 000
//! cycles per preset. Plus: a model broken at one cycle is caught there, on that port.

use tilerast_cosim::blocks::{cosim_block, SampleRaster};
use tilerast_golden::config::{Config, ONE};
use tilerast_golden::prim::TriangleFx;
use tilerast_golden::raster::tiles_of;
use tilerast_golden::sample_raster::{SampleRasterCycle, SampleRasterGeom};
use tilerast_golden::setup::setup_triangle;
use tilerast_golden::streams::{Cand, Job};
use tilerast_golden::subtile_coverage::{classify_tile, CoverageStats};
use tilerast_golden::tile_parser::parse_tile;

mod common;
use common::{clean, expect_caught, stim, Perturb, Rng};

/// Jobs of a random triangle in one of its tiles (golden setup + sub-tile coverage), at most 6.
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
        let cand = Cand {
            last: true,
            none: true,
            ..base
        };
        return vec![Job { cand, trivial: false }];
    }
    let n = cov.len();
    cov.iter()
        .enumerate()
        .skip(n.saturating_sub(6))
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
            3 => r.range(m4 / 2, 1 << 46),
            4 => r.range(-(1 << 46), 1 << 46),
            5 => m4 + r.range(-20, 20),
            6 => -m4 + r.range(-20, 20),
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
            a: a.map(|v| v as i32),
            b: b.map(|v| v as i32),
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

/// `n`+ jobs: half from random triangles, half synthetic.
fn jobs(cfg: &Config, seed: u64, n: usize) -> Vec<Job> {
    let geom = SampleRasterGeom::new(cfg).unwrap();
    let mut r = Rng::new(seed);
    let mut jobs = Vec::new();
    let mut prim = 0;
    while jobs.len() < n {
        prim += 1;
        if r.below(2) == 0 {
            jobs.extend(triangle_jobs(cfg, &mut r, prim));
        } else {
            jobs.push(synthetic_job(cfg, &geom, &mut r, prim));
        }
    }
    jobs
}

fn run(preset: &str, seed: u64) {
    let cfg = Config::preset(preset).unwrap();
    let s = stim(seed, 40_000);
    let r = clean(
        &format!("{preset}/sample_raster"),
        cosim_block::<SampleRaster, _>(preset, SampleRasterCycle::new(&cfg), &jobs(&cfg, seed, 3000), &s),
        &s,
    );
    let o = &r.outputs;
    let full = (1u8 << cfg.quads_per_clock) - 1;
    let quads: u32 = o.iter().map(|b| b.lane_valid.count_ones()).sum();
    let all = u64::MAX >> (64 - 4 * cfg.msaa);
    let all_samples = o.iter().flat_map(|b| b.mask).filter(|&m| m == all).count();
    println!("  {} beats, {quads} quads, {all_samples} fully covered", o.len());
    assert!(o.iter().any(|b| b.lane_valid == full), "no full beat");
    assert!(
        cfg.quads_per_clock == 1 || o.iter().any(|b| b.lane_valid != full && b.lane_valid != 0),
        "no partial beat"
    );
    assert!(o.iter().any(|b| b.last && b.lane_valid == 0), "no empty last beat");
    assert!(
        all_samples > 0
            && o.iter()
                .flat_map(|b| b.mask)
                .any(|m| m != 0 && m.count_ones() < 4 * cfg.msaa)
    );
}

#[test]
fn rtl_matches_cycle_model_ice40() {
    run("ice40", 0x5a_1ce4);
}

#[test]
fn rtl_matches_cycle_model_default() {
    run("default", 0x5a_defa);
}

#[test]
fn rtl_matches_cycle_model_full() {
    run("full", 0x5a_f011);
}

#[test]
fn a_broken_model_is_caught_at_its_cycle_and_port() {
    let cfg = Config::preset("default").unwrap();
    let s = stim(11, 8_000);
    let m = Perturb::new(SampleRasterCycle::new(&cfg), 4_444, |b| b.mask[1] ^= 0x10);
    let r = cosim_block::<SampleRaster, _>("default", m, &jobs(&cfg, 11, 500), &s);
    expect_caught(r, 4_444, "out__mask_1", 0x10);
}
