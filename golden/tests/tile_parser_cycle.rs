//! The tile parser's cycle model (`TileParserCycle`) against the golden transaction model: for
//! random triangles and tiles on every preset (and two odd configurations), under random input
//! gaps and random `out_ready` (with long stalls), the transferred candidates are exactly the
//! sub-tiles golden `subtile_coverage` walks after row / column rejection, in walk order, with
//! E equal to golden's edge evaluation at each sub-tile origin and exactly one `last` per
//! command. Plus: no bubble between commands, flush in the middle, and a worked case with its
//! cycle-by-cycle timing derived by hand.

use proptest::prelude::*;
use tilerast_golden::config::Config;
use tilerast_golden::cycle::{drive, CycleModel};
use tilerast_golden::prim::TriangleFx;
use tilerast_golden::setup::{setup_triangle, TriSetup};
use tilerast_golden::streams::{Cand, Cmd, Edges};
use tilerast_golden::subtile_coverage::offset_bits;
use tilerast_golden::subtile_coverage::{classify_tile_traced, CoverageStats, SubtileFate};
use tilerast_golden::tile_parser::{edge_widths, parse_tile, TileParserCycle};
use tilerast_verif::stim::{tri_edges as commands, tri_from_words as gen_tri};

mod common;
use common::{cand_base, configs, flush_case, gap_pattern, ready_pattern};

// ───────────────────────────── helpers ─────────────────────────────

/// What golden says the parser must produce for `tri` in `tile` without look-ahead (K = 1):
/// the sub-tiles that survive row and column rejection, in walk order, each with E at its
/// origin; the last one carries `last`; none at all gives one `none + last` candidate. Each
/// candidate comes with golden's verdict "rejected by the edge / sample test" (the only
/// sub-tiles the look-ahead of K > 1 may skip).
fn expected_fates(cfg: &Config, tri: &TriSetup, e: &Edges) -> Vec<(Cand, bool)> {
    let pt = parse_tile(cfg, [e.tile_x, e.tile_y]).unwrap();
    let mut walked = Vec::new();
    // (golden `classify_tile` is only defined for tiles the bbox meets: the pipeline never
    // calls it for others, and its empty-run loops assume that.)
    let meets = pt.rect.overlaps(tri.bbox.x0, tri.bbox.y0, tri.bbox.x1, tri.bbox.y1);
    assert_eq!(meets, !e.empty);
    if meets {
        classify_tile_traced(cfg, tri, &pt, &mut CoverageStats::default(), &mut Vec::new(), |s, f| {
            if !matches!(f, SubtileFate::RejectedRow | SubtileFate::RejectedColumn) {
                walked.push((*s, f == SubtileFate::RejectedTest));
            }
        });
    }
    let base = cand_base(e);
    if walked.is_empty() {
        assert!(e.empty, "golden walks nothing but setup said non-empty: {e:?}");
        return vec![(
            Cand {
                col: e.bx0 / cfg.subtile[0],
                row: e.by0 / cfg.subtile[1],
                e: e.e,
                last: true,
                none: true,
                ..base
            },
            false,
        )];
    }
    let n = walked.len();
    walked
        .iter()
        .enumerate()
        .map(|(i, (s, rejected))| {
            let (ox, oy) = (s.rect.x0 as i64 * 256, s.rect.y0 as i64 * 256);
            let c = Cand {
                col: s.col,
                row: s.row,
                e: tri.edges.map(|ed| ed.eval(ox, oy)),
                last: i + 1 == n,
                ..base
            };
            (c, *rejected)
        })
        .collect()
}

/// `got` is golden's walk `want` with some sub-tiles left out, each of them rejected by the edge
/// / sample test and none of them a command's last (the look-ahead's skips); with K = 1, or
/// with `BboxOnly`, nothing may be left out. Returns the number skipped.
fn check_skips(cfg: &Config, want: &[(Cand, bool)], got: &[Cand]) -> Result<usize, String> {
    let mut g = got.iter().peekable();
    let mut skipped = 0;
    for (w, rejected) in want {
        if g.peek() == Some(&w) {
            g.next();
        } else if *rejected && !w.last {
            skipped += 1;
        } else {
            return Err(format!("{w:?} (rejected: {rejected}) missing; next got {:?}", g.peek()));
        }
    }
    if let Some(x) = g.next() {
        return Err(format!("extra candidate {x:?}"));
    }
    let may_skip = cfg.subtiles_per_cycle > 1 && cfg.coverage_test != tilerast_golden::config::CoverageTest::BboxOnly;
    if skipped > 0 && !may_skip {
        return Err(format!("{skipped} skipped with K = {}", cfg.subtiles_per_cycle));
    }
    Ok(skipped)
}

// ───────────────────────────── properties ─────────────────────────────

proptest! {
    #![proptest_config(ProptestConfig::with_cases(512))]

    /// Random triangles × tiles × configurations, random gaps and ready: the candidate stream
    /// is golden's walk, E included.
    #[test]
    fn candidates_match_golden_walk(ci in 0usize..5, r in prop::array::uniform8(0u32..u32::MAX), pick in 0u32..10_000,
                                    seed in any::<u64>(), p_ready in 20u64..=100, p_gap in 0u64..70) {
        let cfg = configs()[ci].clone();
        let t = gen_tri(&cfg, &r);
        let Ok(tri) = setup_triangle(&cfg, &t) else { return Ok(()); };
        let cmds = commands(&cfg, &tri, r[0] & 0xff_ffff, pick);
        let want: Vec<(Cand, bool)> = cmds.iter().flat_map(|e| expected_fates(&cfg, &tri, e)).collect();
        let mut m = TileParserCycle::new(&cfg);
        let lasts = cmds.len();
        let (got, trace) = drive(&mut m, &cmds, gap_pattern(seed, p_gap), ready_pattern(seed, p_ready),
                                 |o: &[Cand]| o.iter().filter(|c| c.last).count() >= lasts, 100_000);
        if let Err(msg) = check_skips(&cfg, &want, &got) {
            prop_assert!(false, "{}", msg);
        }
        // Without look-ahead, exactly golden's walk.
        let mut k1 = cfg.clone();
        k1.subtiles_per_cycle = 1;
        let mut m1 = TileParserCycle::new(&k1);
        let (got1, _) = drive(&mut m1, &cmds, gap_pattern(seed, p_gap), ready_pattern(seed, p_ready),
                              |o: &[Cand]| o.iter().filter(|c| c.last).count() >= lasts, 100_000);
        let want1: Vec<Cand> = want.iter().map(|(c, _)| *c).collect();
        prop_assert_eq!(&got1, &want1);
        prop_assert_eq!(got.iter().filter(|c| c.last).count(), cmds.len());
        // Outputs are held while stalled: a valid candidate not taken is shown again unchanged.
        for w in trace.windows(2) {
            if w[0].out_valid && !w[0].out_ready {
                prop_assert!(w[1].out_valid);
                prop_assert_eq!(w[1].output, w[0].output);
            }
        }
    }

    /// This test's `Edges` (golden setup translated by hand) agree with the setup stage's own
    /// transaction-level helper `setup::edges_for` (the setup → tile parser contract).
    #[test]
    fn edges_agree_with_setup_edges_for(ci in 0usize..5, r in prop::array::uniform8(0u32..u32::MAX), pick in 0u32..10_000) {
        let cfg = configs()[ci].clone();
        let t = gen_tri(&cfg, &r);
        let Ok(tri) = setup_triangle(&cfg, &t) else { return Ok(()); };
        for e in commands(&cfg, &tri, 11, pick) {
            let cmd = Cmd { kind: 0, prim: 11, tile_x: e.tile_x, tile_y: e.tile_y, v: t.v, size: 0, aa: false };
            let s = tilerast_golden::setup::edges_for(&cfg, &cmd);
            prop_assert_eq!(s.empty, e.empty);
            if !e.empty {
                prop_assert_eq!(s, e);
            }
        }
    }

    /// With ready always high and no gaps, n candidates cost exactly n cycles, commands back to
    /// back without a bubble: `out_valid` is high from cycle 1 to cycle Σn; with K = 1, n is
    /// the number of visited sub-tiles (`cycles_for`), with look-ahead at most that.
    #[test]
    fn one_candidate_per_cycle_no_bubble(ci in 0usize..5, r in prop::array::uniform8(0u32..u32::MAX), pick in 0u32..10_000,
                                         k in 1u32..=4) {
        let mut cfg = configs()[ci].clone();
        cfg.subtiles_per_cycle = k;
        let Ok(tri) = setup_triangle(&cfg, &gen_tri(&cfg, &r)) else { return Ok(()); };
        let cmds = commands(&cfg, &tri, 7, pick);
        let total: u64 = cmds.iter().map(|e| TileParserCycle::cycles_for(&cfg, e)).sum();
        let lasts = cmds.len();
        let mut m = TileParserCycle::new(&cfg);
        let (got, trace) = drive(&mut m, &cmds, |_| false, |_| true,
                                 |o: &[Cand]| o.iter().filter(|c| c.last).count() >= lasts, 100_000);
        if k == 1 {
            prop_assert_eq!(got.len() as u64, total);
        } else {
            prop_assert!(got.len() as u64 <= total);
        }
        prop_assert_eq!(trace.len(), got.len() + 1);
        prop_assert!(!trace[0].out_valid);
        prop_assert!(trace[1..].iter().all(|s| s.out_valid));
    }
}

/// The look-ahead really skips: random triangles on every configuration with K = 4 (golden
/// setup's commands, ready always high) leave out some of golden's test-rejected sub-tiles,
/// and only those.
#[test]
fn lookahead_skips_only_rejected_subtiles() {
    let mut rng = tilerast_verif::Rng::new(0x5c1b);
    for mut cfg in configs() {
        cfg.subtiles_per_cycle = 4;
        let mut skipped = 0;
        for i in 0..300u32 {
            let r = [0; 8].map(|_| rng.below(1 << 32) as u32);
            let Ok(tri) = setup_triangle(&cfg, &gen_tri(&cfg, &r)) else {
                continue;
            };
            let cmds = commands(&cfg, &tri, i, r[1] % 10_000);
            let want: Vec<(Cand, bool)> = cmds.iter().flat_map(|e| expected_fates(&cfg, &tri, e)).collect();
            let mut m = TileParserCycle::new(&cfg);
            let (got, _) = drive(
                &mut m,
                &cmds,
                |_| false,
                |_| true,
                |o: &[Cand]| o.iter().filter(|c| c.last).count() >= cmds.len(),
                100_000,
            );
            skipped += check_skips(&cfg, &want, &got).unwrap();
        }
        println!("{}: {skipped} test-rejected sub-tiles skipped", cfg.name);
        assert!(skipped > 0, "{}: nothing skipped", cfg.name);
    }
}

// ───────────────────────────── worked cases ─────────────────────────────

/// Hand-derived timing. ice40 (SW = SH = 4). Command A: bbox x 1..6, y 5..5 → c0 = 0, c1 = 1,
/// r0 = r1 = 1: sub-tiles (0,1), (1,1). Command B: empty. Both offered from cycle 0, no gaps;
/// out_ready low in cycle 2 only.
///
/// | cycle | out (valid col,row last none) | out_ready | in_ready = !v │ (rdy & last) | edge    |
/// |-------|-------------------------------|-----------|------------------------------|---------|
/// | 0     | idle                          | 1         | 1                            | accept A|
/// | 1     | A (0,1) last 0                | 1         | 0                            | step    |
/// | 2     | A (1,1) last 1                | 0         | 0                            | hold    |
/// | 3     | A (1,1) last 1                | 1         | 1                            | accept B|
/// | 4     | B none last                   | 1         | 1 (nothing offered)          | → idle  |
/// | 5     | idle                          | 1         | 1                            |         |
#[test]
fn worked_timing_case() {
    let cfg = Config::preset("ice40").unwrap();
    let a = Edges {
        prim: 5,
        a: [256, -512, 256],
        b: [0, 256, -256],
        e: [1000, 2000, 3000],
        bx0: 1,
        bx1: 6,
        by0: 5,
        by1: 5,
        vis_w: 16,
        vis_h: 16,
        ..Default::default()
    };
    let b = Edges {
        prim: 6,
        empty: true,
        vis_w: 16,
        vis_h: 16,
        ..Default::default()
    };
    let mut m = TileParserCycle::new(&cfg);
    let (got, tr) = drive(&mut m, &[a, b], |_| false, |c| c != 2, |_| false, 6);
    let row: Vec<(bool, u32, u32, bool, bool, bool)> = tr
        .iter()
        .map(|s| {
            (
                s.out_valid,
                s.output.col,
                s.output.row,
                s.output.last,
                s.output.none,
                s.in_ready,
            )
        })
        .collect();
    assert_eq!(
        row,
        vec![
            (false, 0, 0, false, false, true),
            (true, 0, 1, false, false, false),
            (true, 1, 1, true, false, false),
            (true, 1, 1, true, false, true),
            (true, 0, 0, true, true, true),
            (false, 0, 0, true, true, true),
        ]
    );
    // E stepped by a·SW·256 = a << 10 from (0,1) to (1,1).
    assert_eq!(got[0].e, [1000, 2000, 3000]);
    assert_eq!(got[1].e, [1000 + (256 << 10), 2000 - (512 << 10), 3000 + (256 << 10)]);
    assert_eq!(got.len(), 3);
    // Row step: a 1-column, 2-row box: E_row += b·SH·256 = b << 10.
    let c = Edges {
        bx0: 0,
        bx1: 3,
        by0: 0,
        by1: 7,
        ..a
    };
    let mut m = TileParserCycle::new(&cfg);
    let (got, _) = drive(&mut m, &[c], |_| false, |_| true, |o| o.len() == 2, 10);
    assert_eq!(
        got.iter().map(|c| (c.col, c.row, c.last)).collect::<Vec<_>>(),
        vec![(0, 0, false), (0, 1, true)]
    );
    assert_eq!(got[1].e, [1000, 2000 + (256 << 10), 3000 - (256 << 10)]);
}

/// Flush in the middle of a command returns the model to its `new` state; the next command
/// then runs exactly as from reset.
#[test]
fn flush_mid_command_returns_to_idle() {
    let cfg = Config::preset("default").unwrap();
    let (tri, cmd) = flush_case(&cfg);
    assert!(TileParserCycle::cycles_for(&cfg, &cmd) > 4);
    let mut m = TileParserCycle::new(&cfg);
    m.clock(true, &cmd, true, false);
    m.clock(false, &Edges::default(), true, false);
    m.clock(false, &Edges::default(), false, false);
    assert!(m.out().0);
    // Flush wins over everything else driven in that cycle.
    m.clock(true, &cmd, true, true);
    assert_eq!(m, TileParserCycle::new(&cfg));
    assert!(!m.out().0 && m.in_ready(false));
    let want = expected_fates(&cfg, &tri, &cmd);
    let (got, _) = drive(&mut m, &[cmd], |_| false, |_| true, |o| o.iter().any(|c| c.last), 1000);
    check_skips(&cfg, &want, &got).unwrap();
}

/// The internal widths of the edge datapath (`edge_widths`, `offset_bits`) hold at the guard-band
/// extremes: every triangle with vertices at the guard band's corners, the viewport's corners or
/// one unit inside them has |a|, |b| < 2^(cb−1), |E| < 2^(eb−1) anywhere in the viewport (a
/// linear function's extremes over a rectangle are at its corners), and corner offsets of a
/// whole sub-tile < 2^(offset_bits−1).
#[test]
fn widths_hold_at_guard_band_extremes() {
    for cfg in configs() {
        let (cb, eb) = edge_widths(&cfg);
        let ob = offset_bits(&cfg);
        let (lo, hi) = cfg.guard_limits_fx();
        let (w, h) = (cfg.viewport[0] as i32 * 256, cfg.viewport[1] as i32 * 256);
        let mut pts = Vec::new();
        for (x0, x1) in [(lo[0], hi[0]), (0, w), (lo[0] + 1, hi[0] - 1)] {
            for (y0, y1) in [(lo[1], hi[1]), (0, h), (lo[1] + 1, hi[1] - 1)] {
                pts.extend([[x0, y0], [x1, y0], [x0, y1], [x1, y1]]);
            }
        }
        let (mut amax, mut emax, mut omax) = (0i64, 0i64, 0i64);
        for &p in &pts {
            for &q in &pts {
                for &r in &pts {
                    let Ok(t) = setup_triangle(
                        &cfg,
                        &TriangleFx {
                            v: [p, q, r],
                            colour: [0; 4],
                            depth: 0,
                        },
                    ) else {
                        continue;
                    };
                    for e in &t.edges {
                        amax = amax.max(e.a.abs()).max(e.b.abs());
                        for (x, y) in [(0, 0), (w, 0), (0, h), (w, h)] {
                            emax = emax.max(e.eval(x as i64, y as i64).abs());
                        }
                        let (sw, sh) = (cfg.subtile[0] as i64 * 256, cfg.subtile[1] as i64 * 256);
                        omax = omax.max(e.a.abs() * sw + e.b.abs() * sh);
                    }
                }
            }
        }
        assert!(amax < 1 << (cb - 1), "{}: |a| {amax} vs {cb} bits", cfg.name);
        assert!(emax < 1 << (eb - 1), "{}: |E| {emax} vs {eb} bits", cfg.name);
        assert!(omax < 1 << (ob - 1), "{}: offsets {omax} vs {ob} bits", cfg.name);
        // The bounds are not loose by more than a bit.
        assert!(
            amax >= 1 << (cb - 3) && emax >= 1 << (eb - 3),
            "{}: {amax} {emax} {cb} {eb}",
            cfg.name
        );
    }
    let w = |p: &str| edge_widths(&Config::preset(p).unwrap());
    assert_eq!((w("ice40"), w("default"), w("full")), ((17, 34), (20, 38), (21, 42)));
}
