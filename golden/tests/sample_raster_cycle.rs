//! Cycle model of the sample rasterizer (`SampleRasterCycle`) against the golden transaction
//! model: for random triangles on every preset, the jobs golden setup + sub-tile coverage give
//! for a (triangle, tile) go through the cycle model under random input gaps and random
//! `out_ready` (with long stalls); the valid lanes of the transferred beats, in order, must be
//! exactly golden `raster_triangle_tile`'s quads, with exactly one `last` per command. Plus a
//! worked case with its cycle-by-cycle timing derived by hand, the no-stall timing formula, and
//! flush.

use proptest::prelude::*;
use tilerast_golden::config::{Config, ONE, PRESETS};
use tilerast_golden::cycle::{drive, CycleModel};
use tilerast_golden::prim::{Quad, TriangleFx};
use tilerast_golden::raster::{raster_triangle_tile, tiles_of, RasterStats};
use tilerast_golden::sample_raster::SampleRasterCycle;
use tilerast_golden::setup::{setup_triangle, TriSetup};
use tilerast_golden::streams::{Beat, Cand, Job};
use tilerast_verif::stim::jobs_for;
use tilerast_verif::{Handshake, Pattern, Rng};

/// Random triangle inside the guard band: huge, medium or small.
fn gen_tri(cfg: &Config, kind: u32, r: &[u32; 8]) -> [[i32; 2]; 3] {
    let (lo, hi) = cfg.guard_limits_fx();
    let pick = |v: u32, a: i32, b: i32| a + (v % ((b - a + 1) as u32)) as i32;
    let (vw, vh) = (cfg.viewport[0] as i32 * ONE, cfg.viewport[1] as i32 * ONE);
    match kind % 3 {
        0 => [0, 1, 2].map(|i| [pick(r[2 * i], lo[0], hi[0]), pick(r[2 * i + 1], lo[1], hi[1])]),
        k => {
            let rad = if k == 1 { 48 * ONE } else { 6 * ONE };
            let c = [pick(r[6], -ONE * 8, vw + ONE * 8), pick(r[7], -ONE * 8, vh + ONE * 8)];
            [0, 1, 2].map(|i| {
                [
                    (c[0] + pick(r[2 * i], -rad, rad)).clamp(lo[0], hi[0]),
                    (c[1] + pick(r[2 * i + 1], -rad, rad)).clamp(lo[1], hi[1]),
                ]
            })
        }
    }
}

/// Commands for one triangle: up to 4 of the tiles its bounding box meets (spread over the box).
fn commands(cfg: &Config, v: [[i32; 2]; 3], pick: u32) -> Option<(TriSetup, Vec<[u32; 2]>)> {
    let t = TriangleFx {
        v,
        colour: [0; 4],
        depth: 0,
    };
    let tri = setup_triangle(cfg, &t).ok()?;
    let tiles: Vec<[u32; 2]> = tiles_of(cfg, &tri.bbox).collect();
    let n = tiles.len();
    let chosen: Vec<[u32; 2]> = if n <= 4 {
        tiles
    } else {
        let mut idx: Vec<usize> = (0..4).map(|i| (pick as usize).wrapping_mul(i * 7 + 1) % n).collect();
        idx.sort_unstable();
        idx.dedup();
        idx.into_iter().map(|i| tiles[i]).collect()
    };
    Some((tri, chosen))
}

/// Drive `jobs` with random gaps / ready (runs of random length, sometimes long stalls);
/// return the transferred beats.
fn run(cfg: &Config, jobs: &[Job], seed: u64) -> Vec<Beat> {
    let mut m = SampleRasterCycle::new(cfg);
    let mut lines = Handshake::new(Pattern::Runs { pct: 70 }, Pattern::Runs { pct: 65 }).lines(seed);
    let commands = jobs.iter().filter(|j| j.cand.last).count();
    let (outs, trace) = drive(
        &mut m,
        jobs,
        |_| !lines.valid.step(),
        |_| lines.ready.step(),
        |o| o.iter().filter(|b| b.last).count() == commands,
        jobs.len() as u64 * 400 + 1000,
    );
    // The ports obey the handshake rules: a valid output holds until taken.
    for w in trace.windows(2) {
        if w[0].out_valid && !w[0].out_ready {
            assert!(
                w[1].out_valid && w[1].output == w[0].output,
                "output changed under stall"
            );
        }
    }
    assert!(!m.busy(), "block still busy at the end");
    outs
}

fn check_commands(cfg: &Config, tri: &TriSetup, prim: u32, tiles: &[[u32; 2]], seed: u64) {
    let mut jobs = Vec::new();
    let mut want: Vec<Vec<Quad>> = Vec::new();
    for &t in tiles {
        jobs.extend(jobs_for(cfg, tri, prim, t));
        want.push(raster_triangle_tile(cfg, tri, prim, t, &mut RasterStats::default()));
    }
    let outs = run(cfg, &jobs, seed);
    // Split at `last`: one group per command, nothing after the final one.
    let mut groups: Vec<Vec<Quad>> = vec![Vec::new()];
    for b in &outs {
        assert!(b.lane_valid != 0 || b.last, "empty beat without last emitted: {b:?}");
        assert_eq!(b.lane_valid >> cfg.quads_per_clock, 0, "lane beyond Q");
        for l in 0..4 {
            assert_eq!(
                b.lane_valid >> l & 1 == 1,
                b.mask[l] != 0,
                "lane {l} valid iff mask non-zero"
            );
        }
        groups.last_mut().unwrap().extend(b.quads());
        if b.last {
            groups.push(Vec::new());
        }
    }
    assert!(groups.pop().unwrap().is_empty(), "quads after the last command");
    assert_eq!(groups.len(), want.len(), "one last per command");
    for (i, (g, w)) in groups.iter().zip(&want).enumerate() {
        assert_eq!(g, w, "command {i} (tile {:?}) on {}", tiles[i], cfg.name);
    }
}

proptest! {
    #![proptest_config(ProptestConfig { cases: 300, ..ProptestConfig::default() })]

    #[test]
    fn quads_equal_golden(p in 0usize..3, kind in 0u32..3, r in proptest::array::uniform8(any::<u32>()),
                          pick in any::<u32>(), seed in any::<u64>()) {
        let cfg = Config::preset(PRESETS[p]).unwrap();
        let v = gen_tri(&cfg, kind, &r);
        if let Some((tri, tiles)) = commands(&cfg, v, pick) {
            check_commands(&cfg, &tri, 7, &tiles, seed);
        }
    }
}

/// Several triangles back to back through one block instance (commands follow each other).
#[test]
fn streams_of_commands() {
    for name in PRESETS {
        let cfg = Config::preset(name).unwrap();
        let mut rng = Rng::new(0x1234_5678 ^ name.len() as u64);
        let mut jobs = Vec::new();
        let mut want: Vec<Quad> = Vec::new();
        let mut n = 0;
        for prim in 0..12 {
            let r = [0; 8].map(|_| rng.next_u32());
            let Some((tri, tiles)) = commands(&cfg, gen_tri(&cfg, prim % 3, &r), rng.next_u32()) else {
                continue;
            };
            for t in tiles {
                jobs.extend(jobs_for(&cfg, &tri, prim, t));
                want.extend(raster_triangle_tile(&cfg, &tri, prim, t, &mut RasterStats::default()));
                n += 1;
            }
        }
        let outs = run(&cfg, &jobs, 99);
        assert_eq!(outs.iter().filter(|b| b.last).count(), n);
        let got: Vec<Quad> = outs.iter().flat_map(|b| b.quads().collect::<Vec<_>>()).collect();
        assert_eq!(got, want, "{name}");
    }
}

/// Without stalls: a job occupies exactly NB cycles (a `none` job 1), back to back, and beat j
/// of the i-th job is in the output register in cycle 2 + (cycles before job i) + j.
#[test]
fn no_stall_timing_formula() {
    for name in PRESETS {
        let cfg = Config::preset(name).unwrap();
        let nb = SampleRasterCycle::new(&cfg).geom().beats as u64;
        // Trivial jobs (every beat emitted) of two commands, the second ending with a none token.
        let full = |col: u32, last: bool, none: bool| Job {
            cand: Cand {
                col,
                vis_w: cfg.tile[0],
                vis_h: cfg.tile[1],
                last,
                none,
                ..Default::default()
            },
            trivial: true,
        };
        let jobs = vec![full(0, false, false), full(1, true, false), full(0, true, true)];
        let mut m = SampleRasterCycle::new(&cfg);
        let (outs, trace) = drive(
            &mut m,
            &jobs,
            |_| false,
            |_| true,
            |o| o.iter().filter(|b| b.last).count() == 2,
            100,
        );
        assert_eq!(outs.len() as u64, 2 * nb + 1);
        // Accepts at cycles 0, NB, 2·NB.
        let accepts: Vec<u64> = (0..trace.len() as u64)
            .filter(|&c| trace[c as usize].in_valid && trace[c as usize].in_ready)
            .collect();
        assert_eq!(accepts, vec![0, nb, 2 * nb]);
        let valid: Vec<u64> = (0..trace.len() as u64)
            .filter(|&c| trace[c as usize].out_valid)
            .collect();
        assert_eq!(valid, (2..2 + 2 * nb + 1).collect::<Vec<_>>(), "{name}");
    }
}

/// Worked case (ice40: S = 4, Q = 1, 4x4 sub-tiles → NB = 4 beats per job, quads (0,0) (1,0)
/// (0,1) (1,1) of the sub-tile), derived by hand:
///
/// Job A: tile (0,0), sub-tile (0,0), trivial → four full quads (mask 0xFFFF).
/// Job B: sub-tile (1,0) (quads x 2..3), `last`; edge 0 is E = −513 + 1·y (a = 0, b = 1), edges
/// 1 and 2 are E ≡ 0: a sample is covered iff its y ≥ 513/256 px, i.e. in pixel rows 2 and 3
/// (the 4x samples sit at y = 2/16 .. 14/16: row 1 reaches 1 + 14/16 = 480/256 < 513/256).
/// So B's beats 0 and 1 (quad row 0) are empty and dropped; beats 2, 3 are full.
///
/// ```text
/// cycle | in_valid in_ready | computing (bcnt) | out_valid out          | note
///   0   |    1 (A)   1      | —                | 0                      | idle: accept A
///   1   |    1 (B)   0      | A0               | 0                      |
///   2   |    1 (B)   0      | A1               | 1 A0 (0,0)             |
///   3   |    1 (B)   0      | A2               | 1 A1 (1,0)             |
///   4   |    1 (B)   1      | A3 (final)       | 1 A2 (0,1)             | accept B, no bubble
///   5   |    0       0      | B0 (empty)       | 1 A3 (1,1)             |
///   6   |    0       0      | B1 (empty)       | 0                      | B0 dropped
///   7   |    0       0      | B2               | 0                      | B1 dropped
///   8   |    0       1      | B3 (final)       | 1 B2 (2,1)             |
///   9   |    0       1      | —                | 1 B3 (3,1) last        |
///  10   |    0       1      | —                | 0                      | idle
/// ```
#[test]
fn worked_case_ice40() {
    let cfg = Config::preset("ice40").unwrap();
    let a = Job {
        cand: Cand {
            vis_w: 16,
            vis_h: 16,
            prim: 5,
            ..Default::default()
        },
        trivial: true,
    };
    let b = Job {
        cand: Cand {
            col: 1,
            e: [-513, 0, 0],
            b: [1, 0, 0],
            last: true,
            ..a.cand
        },
        trivial: false,
    };
    let mut m = SampleRasterCycle::new(&cfg);
    let (outs, tr) = drive(&mut m, &[a, b], |_| false, |_| true, |_| false, 11);
    let col = |f: &dyn Fn(usize) -> bool| (0..11).map(f).collect::<Vec<bool>>();
    let bits = |s: &str| s.chars().map(|c| c == '1').collect::<Vec<bool>>();
    assert_eq!(col(&|c| tr[c].in_valid), bits("11111000000"));
    assert_eq!(col(&|c| tr[c].in_ready), bits("10001000111"));
    assert_eq!(col(&|c| tr[c].out_valid), bits("00111100110"));
    let q: Vec<(u32, u32, u64, bool)> = outs.iter().map(|b| (b.qx[0], b.qy[0], b.mask[0], b.last)).collect();
    assert_eq!(
        q,
        vec![
            (0, 0, 0xFFFF, false),
            (1, 0, 0xFFFF, false),
            (0, 1, 0xFFFF, false),
            (1, 1, 0xFFFF, false),
            (2, 1, 0xFFFF, false),
            (3, 1, 0xFFFF, true),
        ]
    );
    assert!(outs.iter().all(|b| b.prim == 5 && b.lane_valid == 1));
}

/// Flush in the middle of a job: back to the `new` state, then the next command runs normally.
#[test]
fn flush_returns_to_idle() {
    for name in PRESETS {
        let cfg = Config::preset(name).unwrap();
        let v = [[3 * ONE, 2 * ONE], [60 * ONE, 9 * ONE], [20 * ONE, 50 * ONE]];
        let (tri, tiles) = commands(&cfg, v, 0).unwrap();
        let jobs = jobs_for(&cfg, &tri, 1, tiles[0]);
        let mut m = SampleRasterCycle::new(&cfg);
        m.clock(true, &jobs[0], true, false);
        m.clock(false, &Job::default(), false, false);
        m.clock(false, &Job::default(), false, false);
        assert!(m.busy());
        m.clock(true, &jobs[0], true, true);
        assert_eq!(m, SampleRasterCycle::new(&cfg), "{name}");
        assert!(!m.out().0 && m.in_ready(false));
        let outs = run(&cfg, &jobs, 5);
        let got: Vec<Quad> = outs.iter().flat_map(|b| b.quads().collect::<Vec<_>>()).collect();
        assert_eq!(
            got,
            raster_triangle_tile(&cfg, &tri, 1, tiles[0], &mut RasterStats::default())
        );
    }
}

/// Coefficients at the guard-band bounds and E anywhere in its 48-bit range stay exact in the
/// model (i64) — and the bounds themselves are what the RTL narrowing relies on.
#[test]
fn geometry_bounds() {
    for name in PRESETS {
        let cfg = Config::preset(name).unwrap();
        let g = SampleRasterCycle::new(&cfg).geom().clone();
        assert!(g.coef_max[0] < 1 << 23 && g.coef_max[1] < 1 << 23);
        assert!(g.w_u() <= 44, "{name}: E/16 width {}", g.w_u());
        assert_eq!(g.beats, cfg.subtile[0] / 2 / cfg.quads_per_clock * cfg.subtile[1] / 2);
    }
    let g = SampleRasterCycle::new(&Config::preset("ice40").unwrap()).geom().clone();
    assert_eq!((g.coef_bits, g.m, g.w_u(), g.w_g()), (17, 23, 25, 21));
}
