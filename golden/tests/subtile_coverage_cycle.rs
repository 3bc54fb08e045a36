//! The sub-tile coverage cycle model (`SubtileCoverageCycle`), alone and chained behind the tile
//! parser's (`TileParserCycle → SubtileCoverageCycle`), against golden
//! `subtile_coverage::classify_tile`: for random triangles and tiles on every preset, two odd
//! configurations (viewport-clipped sub-tiles, non-square tiles), every MSAA rate and every
//! `CoverageTest` mode, under random input gaps and random `out_ready` with long stalls, the
//! jobs are exactly golden's covered sub-tiles (col, row, trivial) in walk order, with E equal to
//! golden's edge evaluation at each sub-tile origin, and exactly one `last` per command (a
//! `none + last` job when the command's last visited sub-tile is rejected or it visits none).
//! Plus flush in the middle and a worked case with its cycle-by-cycle timing derived by hand.

use proptest::prelude::*;
use tilerast_golden::config::{Config, CoverageTest};
use tilerast_golden::cycle::{drive, CycleModel};
use tilerast_golden::prim::TriangleFx;
use tilerast_golden::setup::{setup_triangle, TriSetup};
use tilerast_golden::streams::{Cand, Edges, Job};
use tilerast_golden::subtile_coverage::{classify_tile, CoverageStats, CoveredSubtile, SubtileCoverageCycle};
use tilerast_golden::tile_parser::{parse_tile, tile_rect, TileParserCycle};
use tilerast_verif::stim::{edges_by_hand as edges_for, tri_edges as commands, tri_from_words as gen_tri};

mod common;
use common::{cand_base, configs, flush_case, gap_pattern, ready_pattern};

// ───────────────────────────── helpers ─────────────────────────────

const MODES: [CoverageTest; 3] = [CoverageTest::Edge, CoverageTest::Samples, CoverageTest::BboxOnly];

/// Presets plus two odd configurations ([`configs`]), × MSAA rate × coverage mode (index `ci`
/// picks one).
fn config(ci: usize) -> Config {
    let mut c = configs()[ci % 5].clone();
    let (ms, mode) = ((ci / 5) % 6, (ci / 30) % 3);
    // ms 0 keeps the preset's own rate; 1..5 → 1, 2, 4, 8, 16.
    if ms > 0 {
        c.msaa = 1 << (ms - 1);
        c.colours_per_pixel = c.colours_per_pixel.min(c.msaa);
        c.colour_block_bytes = c.colour_block_bytes.max(16 * c.colours_per_pixel);
    }
    c.coverage_test = MODES[mode];
    c.validate().unwrap();
    c
}

/// Golden's covered sub-tiles of `tri` in the command's tile (none if the bbox misses it:
/// `classify_tile` is only defined for tiles the bbox meets).
fn golden_covered(cfg: &Config, tri: &TriSetup, e: &Edges) -> Vec<CoveredSubtile> {
    let mut out = Vec::new();
    if !e.empty {
        let pt = parse_tile(cfg, [e.tile_x, e.tile_y]).unwrap();
        classify_tile(cfg, tri, &pt, &mut CoverageStats::default(), &mut out);
    }
    out
}

/// The jobs golden implies for one command: every covered sub-tile in walk order (E at its
/// origin, trivial flag), the last one with `last`; if the command's last visited sub-tile is
/// not covered (or nothing is visited), one more `none + last` job carrying that candidate.
fn expected_jobs(cfg: &Config, tri: &TriSetup, e: &Edges) -> Vec<Job> {
    let covered = golden_covered(cfg, tri, e);
    let rect = tile_rect(cfg, [e.tile_x, e.tile_y]).unwrap();
    let [sw, sh] = cfg.subtile;
    let base = cand_base(e);
    let at = |col: u32, row: u32| {
        let (ox, oy) = ((rect.x0 + col * sw) as i64 * 256, (rect.y0 + row * sh) as i64 * 256);
        tri.edges.map(|ed| ed.eval(ox, oy))
    };
    let mut jobs: Vec<Job> = covered
        .iter()
        .map(|cs| Job {
            cand: Cand {
                col: cs.sub.col,
                row: cs.sub.row,
                e: at(cs.sub.col, cs.sub.row),
                ..base
            },
            trivial: cs.trivial,
        })
        .collect();
    // The last visited sub-tile: (c1, r1) of the bbox.
    let (c1, r1) = (e.bx1 / sw, e.by1 / sh);
    if e.empty {
        jobs.push(Job {
            cand: Cand {
                col: e.bx0 / sw,
                row: e.by0 / sh,
                e: e.e,
                last: true,
                none: true,
                ..base
            },
            trivial: false,
        });
    } else if covered.last().map(|cs| (cs.sub.col, cs.sub.row)) == Some((c1, r1)) {
        jobs.last_mut().unwrap().cand.last = true;
    } else {
        jobs.push(Job {
            cand: Cand {
                col: c1,
                row: r1,
                e: at(c1, r1),
                last: true,
                none: true,
                ..base
            },
            trivial: false,
        });
    }
    jobs
}

/// One cycle of the chain's ports, for traces.
#[derive(Clone, Debug, PartialEq)]
struct ChainSample {
    in_ready: bool,
    mid_valid: bool,
    mid_ready: bool,
    out_valid: bool,
    out_ready: bool,
    out: Job,
}

/// Drive `TileParserCycle → SubtileCoverageCycle` with `cmds` (gaps at the parser's input,
/// `ready` at the coverage stage's output) until `n_jobs` jobs transferred or `max` cycles.
/// Returns the transferred candidates (parser → coverage), the jobs, and the per-cycle trace.
#[allow(clippy::type_complexity)]
fn chain(
    cfg: &Config,
    cmds: &[Edges],
    mut gap: impl FnMut(u64) -> bool,
    mut ready: impl FnMut(u64) -> bool,
    n_jobs: usize,
    max: u64,
) -> (Vec<Cand>, Vec<Job>, Vec<ChainSample>) {
    let mut tp = TileParserCycle::new(cfg);
    let mut sc = SubtileCoverageCycle::new(cfg);
    let (mut mids, mut jobs, mut trace) = (Vec::new(), Vec::new(), Vec::new());
    let mut next = 0;
    for cyc in 0..max {
        if jobs.len() >= n_jobs && next >= cmds.len() {
            break;
        }
        let in_valid = next < cmds.len() && !gap(cyc);
        let inp = cmds.get(next).copied().unwrap_or_default();
        let out_ready = ready(cyc);
        let (ov, oj) = sc.out();
        let mid_ready = sc.in_ready(out_ready);
        let (mv, mc) = tp.out();
        let in_ready = tp.in_ready(mid_ready);
        trace.push(ChainSample {
            in_ready,
            mid_valid: mv,
            mid_ready,
            out_valid: ov,
            out_ready,
            out: oj,
        });
        if ov && out_ready {
            jobs.push(oj);
        }
        if mv && mid_ready {
            mids.push(mc);
        }
        if in_valid && in_ready {
            next += 1;
        }
        sc.clock(mv, &mc, out_ready, false);
        tp.clock(in_valid, &inp, mid_ready, false);
    }
    (mids, jobs, trace)
}

// ───────────────────────────── properties ─────────────────────────────

proptest! {
    #![proptest_config(ProptestConfig::with_cases(1024))]

    /// Parser → coverage chain vs golden classification, random gaps and ready.
    #[test]
    fn chain_matches_golden_classification(ci in 0usize..90, r in prop::array::uniform8(0u32..u32::MAX), pick in 0u32..10_000,
                                           seed in any::<u64>(), p_ready in 20u64..=100, p_gap in 0u64..70) {
        let cfg = config(ci);
        let Ok(tri) = setup_triangle(&cfg, &gen_tri(&cfg, &r)) else { return Ok(()); };
        let cmds = commands(&cfg, &tri, r[1] & 0xff_ffff, pick);
        let want: Vec<Job> = cmds.iter().flat_map(|e| expected_jobs(&cfg, &tri, e)).collect();
        let (_, got, trace) = chain(&cfg, &cmds, gap_pattern(seed, p_gap), ready_pattern(seed, p_ready), want.len(), 200_000);
        prop_assert_eq!(&got, &want);
        prop_assert_eq!(got.iter().filter(|j| j.cand.last).count(), cmds.len());
        // Non-none jobs are exactly golden's covered sub-tiles (col, row, trivial), in walk order.
        let golden: Vec<(u32, u32, u32, bool)> = cmds
            .iter()
            .enumerate()
            .flat_map(|(i, e)| golden_covered(&cfg, &tri, e).into_iter().map(move |cs| (i as u32, cs.sub.col, cs.sub.row, cs.trivial)))
            .collect();
        let mut cmd = 0u32;
        let mut ours = Vec::new();
        for j in &got {
            if !j.cand.none {
                ours.push((cmd, j.cand.col, j.cand.row, j.trivial));
            }
            cmd += j.cand.last as u32;
        }
        prop_assert_eq!(ours, golden);
        // A held job is shown again unchanged.
        for w in trace.windows(2) {
            if w[0].out_valid && !w[0].out_ready {
                prop_assert!(w[1].out_valid);
                prop_assert_eq!(w[1].out, w[0].out);
            }
        }
    }

    /// The coverage stage alone, fed golden's walk with random gaps and ready.
    #[test]
    fn coverage_alone_matches_golden(ci in 0usize..90, r in prop::array::uniform8(0u32..u32::MAX), pick in 0u32..10_000,
                                     seed in any::<u64>(), p_ready in 20u64..=100, p_gap in 0u64..70) {
        let cfg = config(ci);
        let Ok(tri) = setup_triangle(&cfg, &gen_tri(&cfg, &r)) else { return Ok(()); };
        let cmds = commands(&cfg, &tri, 3, pick);
        let mut tp = TileParserCycle::new(&cfg);
        let (cands, _) = drive(&mut tp, &cmds, |_| false, |_| true, |o: &[Cand]| o.iter().filter(|c| c.last).count() == cmds.len(), 100_000);
        let want: Vec<Job> = cmds.iter().flat_map(|e| expected_jobs(&cfg, &tri, e)).collect();
        let mut sc = SubtileCoverageCycle::new(&cfg);
        let n = want.len();
        let (got, _) = drive(&mut sc, &cands, gap_pattern(seed, p_gap), ready_pattern(seed, p_ready), |o: &[Job]| o.len() >= n, 100_000);
        prop_assert_eq!(got, want);
    }
}

// ───────────────────────────── worked cases ─────────────────────────────

/// Hand-derived case. ice40 (4x MSAA, SW = SH = 4), tile (0,0), triangle (0,0) (8,0) (0,8) px.
/// bbox pixels x 0..8, y 0..8 → sub-tiles c 0..2 × r 0..2, 9 candidates. The hypotenuse
/// (8,0)→(0,8) has dy > 0: exclusive, so a sub-tile whose lowest-left area corner has
/// x + y = 8 is rejected (E = 0 − 1). Covered: (0,0) (x+y ≤ 7.75 at its hull: trivial), (1,0)
/// and (0,1) (partial). Walk and fate: (0,0) T, (1,0) P, (2,0) ✗, (0,1) P, (1,1) ✗, (2,1) ✗,
/// (0,2) ✗, (1,2) ✗, (2,2) ✗ + last → `none + last` job.
///
/// Timing, no gaps, ready always high: command accepted at edge 0; the parser shows candidate
/// i in cycle i+1 (i = 0..8); the coverage stage takes it at that edge, so its job (if kept) is
/// visible in cycle i+2: jobs in cycles 2, 3, 5 and the `none` job in cycle 10. (The walker
/// without look-ahead, K = 1; [`worked_case_timing_lookahead`] is the same case at K = 4.)
#[test]
fn worked_case_timing() {
    let mut cfg = Config::preset("ice40").unwrap();
    cfg.subtiles_per_cycle = 1;
    let tri = setup_triangle(
        &cfg,
        &TriangleFx {
            v: [[0, 0], [2048, 0], [0, 2048]],
            colour: [0; 4],
            depth: 0,
        },
    )
    .unwrap();
    let cmd = edges_for(&cfg, &tri, 1, [0, 0]);
    assert_eq!((cmd.bx0, cmd.bx1, cmd.by0, cmd.by1), (0, 8, 0, 8));
    let (mids, jobs, trace) = chain(&cfg, &[cmd], |_| false, |_| true, 4, 12);
    assert_eq!(mids.len(), 9);
    let v: Vec<bool> = trace.iter().map(|s| s.out_valid).collect();
    assert_eq!(
        v,
        [false, false, true, true, false, true, false, false, false, false, true]
    );
    let j: Vec<(u32, u32, bool, bool, bool)> = jobs
        .iter()
        .map(|j| (j.cand.col, j.cand.row, j.trivial, j.cand.none, j.cand.last))
        .collect();
    assert_eq!(
        j,
        [
            (0, 0, true, false, false),
            (1, 0, false, false, false),
            (0, 1, false, false, false),
            (2, 2, false, true, true)
        ]
    );
    assert_eq!(jobs, expected_jobs(&cfg, &tri, &cmd));
    // The parser never waits on the coverage stage here: in_ready of the chain drops only while
    // the command is being walked (cycles 1..=8) and rises with the last candidate (cycle 9).
    let ir: Vec<bool> = trace.iter().map(|s| s.in_ready).collect();
    assert_eq!(
        ir,
        [true, false, false, false, false, false, false, false, false, true, true]
    );
}

/// [`worked_case_timing`]'s case with the look-ahead at K = 4 (the `ice40` preset has none). From (1,0)
/// lane 1 rejects (2,0) and lane 2's column 3 lies right of c1 = 2: the step goes to (0,1).
/// From (0,1) lanes 1 and 2 reject (1,1) and (2,1), lane 3's column is right of c1: (0,2). From
/// (0,2) lane 1 rejects (1,2) and lane 2 holds the command's last sub-tile (2,2): it lands
/// there. So 5 candidates, (0,0) (1,0) (0,1) (0,2) (2,2)+last, in cycles 1..=5; the coverage
/// stage drops (0,2) (its cycle-5 slot is empty) and makes (2,2) a `none + last` job in cycle
/// 6. in_ready rises with the last candidate (cycle 5): 4 cycles earlier than at K = 1.
#[test]
fn worked_case_timing_lookahead() {
    let mut cfg = Config::preset("ice40").unwrap();
    cfg.subtiles_per_cycle = 4;
    let tri = setup_triangle(
        &cfg,
        &TriangleFx {
            v: [[0, 0], [2048, 0], [0, 2048]],
            colour: [0; 4],
            depth: 0,
        },
    )
    .unwrap();
    let cmd = edges_for(&cfg, &tri, 1, [0, 0]);
    let (mids, jobs, trace) = chain(&cfg, &[cmd], |_| false, |_| true, 4, 8);
    let m: Vec<(u32, u32, bool)> = mids.iter().map(|c| (c.col, c.row, c.last)).collect();
    assert_eq!(
        m,
        [(0, 0, false), (1, 0, false), (0, 1, false), (0, 2, false), (2, 2, true)]
    );
    let v: Vec<bool> = trace.iter().map(|s| s.out_valid).collect();
    assert_eq!(v, [false, false, true, true, true, false, true]);
    assert_eq!(jobs, expected_jobs(&cfg, &tri, &cmd));
    let ir: Vec<bool> = trace.iter().map(|s| s.in_ready).collect();
    assert_eq!(ir, [true, false, false, false, false, true, true]);
}

/// Flush in the middle returns the coverage model to its `new` state.
#[test]
fn flush_mid_stream_returns_to_idle() {
    let cfg = Config::preset("default").unwrap();
    let (tri, cmd) = flush_case(&cfg);
    let mut tp = TileParserCycle::new(&cfg);
    let (cands, _) = drive(
        &mut tp,
        &[cmd],
        |_| false,
        |_| true,
        |o: &[Cand]| o.last().is_some_and(|c| c.last),
        1000,
    );
    let mut sc = SubtileCoverageCycle::new(&cfg);
    sc.clock(true, &cands[0], false, false);
    assert!(sc.out().0);
    sc.clock(true, &cands[1], false, true);
    assert_eq!(sc, SubtileCoverageCycle::new(&cfg));
    assert!(!sc.out().0);
    let want = expected_jobs(&cfg, &tri, &cmd);
    let (got, _) = drive(
        &mut sc,
        &cands,
        |_| false,
        |_| true,
        |o: &[Job]| o.len() == want.len(),
        1000,
    );
    assert_eq!(got, want);
}

/// Viewport-clipped sub-tiles are exercised (the odd configurations have them).
#[test]
fn clipped_subtiles_occur() {
    let cfg = config(3);
    assert_eq!(cfg.viewport, [100, 75]);
    let sc = SubtileCoverageCycle::new(&cfg);
    // Tile (3,2) is 4 x 11 px: column 0 is 4 px wide, row 1 is 3 px high.
    let c = Cand {
        col: 0,
        row: 1,
        vis_w: 4,
        vis_h: 11,
        ..Default::default()
    };
    let (area, hull) = sc.corner_offsets(&c);
    assert_eq!(area, [4 * 256, 3 * 256]);
    assert_eq!(hull, [32, 32, 3 * 256 + 224, 2 * 256 + 224]);
}
