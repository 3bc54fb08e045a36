//! The setup cycle model (`setup::SetupCycle`, mirror of `hw/src/setup.rs`) against the golden
//! transaction model: for random triangle commands on every preset (and the largest
//! configuration), with random input gaps and random / long-stalled `out_ready`, the `Edges`
//! beats it transfers equal `setup::edges_for` (golden `setup_triangle` translated to the
//! tile), in order. Also: `edges_for` equals the tile-relative formula the RTL evaluates,
//! flush in the middle returns to idle, and a worked case with its exact timing.

use proptest::prelude::*;
use tilerast_golden::config::{CullMode, MAX_GUARD_BAND, MAX_VIEWPORT};
use tilerast_golden::cycle::{drive, CycleModel};
use tilerast_golden::setup::{edges_for, setup_triangle, SetupCycle};
use tilerast_golden::streams::{Cmd, Edges};
use tilerast_golden::{Config, TriangleFx, PRESETS};
use tilerast_verif::Rng;

/// The three presets, and the largest configuration (max viewport and guard band, 256-pixel
/// tiles with 2-pixel sub-tiles, odd viewport so the last tile column/row is partial).
fn configs() -> Vec<Config> {
    let mut v: Vec<Config> = PRESETS.iter().map(|p| Config::preset(p).unwrap()).collect();
    let mut big = Config::preset("full").unwrap();
    big.viewport = [MAX_VIEWPORT, MAX_VIEWPORT - 3];
    big.guard_band = MAX_GUARD_BAND;
    big.tile = [256, 128];
    big.subtile = [2, 8];
    big.validate().unwrap();
    v.push(big);
    v
}

/// One triangle command of class `kind` from raw random words (see the match arms).
fn gen_cmd(cfg: &Config, kind: u32, r: &[u32; 12], prim: u32) -> Cmd {
    let (lo, hi) = cfg.guard_limits_fx();
    let span = |a: usize| (hi[a] - lo[a]) as u32 + 1;
    let any = |a: usize, w: u32| lo[a] + (w % span(a)) as i32;
    let [nx, ny] = cfg.tiles();
    let tile = [r[10] % nx, r[11] % ny];
    let tw = [cfg.tile[0] as i32 * 256, cfg.tile[1] as i32 * 256];
    // Around the tile: within one tile of it on each side (bbox often partly off-tile).
    let near = |a: usize, w: u32| {
        let o = tile[a] as i32 * tw[a];
        (o - tw[a] + (w % (3 * tw[a] as u32)) as i32).clamp(lo[a], hi[a])
    };
    let mut v = match kind {
        // Anywhere in the guard band (huge triangles).
        0 => [
            [any(0, r[0]), any(1, r[1])],
            [any(0, r[2]), any(1, r[3])],
            [any(0, r[4]), any(1, r[5])],
        ],
        // Near the tile.
        1 | 2 => [
            [near(0, r[0]), near(1, r[1])],
            [near(0, r[2]), near(1, r[3])],
            [near(0, r[4]), near(1, r[5])],
        ],
        // Sliver: two vertices a few 1/256 px apart, the third anywhere.
        3 => {
            let p = [near(0, r[0]), near(1, r[1])];
            let q = [
                (p[0] + (r[2] % 9) as i32 - 4).clamp(lo[0], hi[0]),
                (p[1] + (r[3] % 9) as i32 - 4).clamp(lo[1], hi[1]),
            ];
            [p, q, [any(0, r[4]), any(1, r[5])]]
        }
        // Degenerate: collinear or coincident.
        4 => {
            let p = [near(0, r[0]), near(1, r[1])];
            let d = [(r[2] % 2049) as i32 - 1024, (r[3] % 2049) as i32 - 1024];
            let k = (r[4] % 5) as i32 - 2;
            let c = |i: usize, m: i32| (p[i] + m * d[i]).clamp(lo[i], hi[i]);
            if r[5].is_multiple_of(4) {
                [p, p, [c(0, 1), c(1, 1)]]
            } else {
                [p, [c(0, 1), c(1, 1)], [c(0, k), c(1, k)]]
            }
        }
        // Extremes: every coordinate at a guard-band limit or anywhere.
        5 => {
            let e = |a: usize, w: u32| match w % 3 {
                0 => lo[a],
                1 => hi[a],
                _ => any(a, w / 3),
            };
            [
                [e(0, r[0]), e(1, r[1])],
                [e(0, r[2]), e(1, r[3])],
                [e(0, r[4]), e(1, r[5])],
            ]
        }
        // Tiny: inside one pixel or a few pixels of the tile.
        _ => {
            let p = [near(0, r[0]), near(1, r[1])];
            let s = 1 + r[6] % 1024;
            let o = |w: u32| (w % s) as i32;
            [
                p,
                [(p[0] + o(r[2])).min(hi[0]), (p[1] + o(r[3])).min(hi[1])],
                [(p[0] + o(r[4])).min(hi[0]), (p[1] + o(r[5])).min(hi[1])],
            ]
        }
    };
    if r[7] % 2 == 1 {
        v.swap(1, 2);
    }
    Cmd {
        kind: 0,
        prim,
        tile_x: tile[0],
        tile_y: tile[1],
        v,
        size: 0,
        aa: false,
    }
}

fn with_cull(cfg: &Config, cull: u8) -> Config {
    let mut c = cfg.clone();
    c.cull = match cull % 3 {
        1 => CullMode::Cw,
        2 => CullMode::Ccw,
        _ => CullMode::None,
    };
    c
}

/// Drive the cycle model with `cmds`; gaps and readiness from the patterns (cycled), with
/// `out_ready` also held low for `stall_len` cycles from `stall_at`. Returns the outputs.
fn run(cfg: &Config, cmds: &[Cmd], gaps: &[bool], ready: &[bool], stall_at: u64, stall_len: u64) -> Vec<Edges> {
    // Each pattern has at least one cycle offering / accepting.
    let gaps: Vec<bool> = gaps.iter().copied().chain([false]).collect();
    let ready: Vec<bool> = ready.iter().copied().chain([true]).collect();
    let mut m = SetupCycle::new(cfg);
    let max = 40 * cmds.len() as u64 + stall_len + 100;
    let (outs, trace) = drive(
        &mut m,
        cmds,
        |c| gaps[c as usize % gaps.len()],
        |c| ready[c as usize % ready.len()] && !(stall_at..stall_at + stall_len).contains(&c),
        |o| o.len() == cmds.len(),
        max,
    );
    // Outputs hold while stalled: a valid beat never changes or drops before its transfer.
    for w in trace.windows(2) {
        if w[0].out_valid && !w[0].out_ready {
            assert!(
                w[1].out_valid && w[1].output == w[0].output,
                "output changed while stalled"
            );
        }
    }
    assert!(m.idle(), "model not idle after the run");
    outs
}

proptest! {
    #![proptest_config(ProptestConfig::with_cases(300))]

    /// Random command streams on every configuration and cull mode, random gaps and ready.
    #[test]
    fn cycle_model_matches_golden_setup(
        ci in 0usize..4,
        cull in 0u8..3,
        tris in prop::collection::vec((0u32..7, prop::array::uniform12(any::<u32>())), 1..12),
        gaps in prop::collection::vec(prop::bool::weighted(0.3), 1..16),
        ready in prop::collection::vec(prop::bool::weighted(0.7), 1..16),
        stall_at in 0u64..60,
        stall_len in prop_oneof![Just(0u64), 1u64..8, 30u64..90],
    ) {
        let cfg = with_cull(&configs()[ci], cull);
        let cmds: Vec<Cmd> = tris.iter().enumerate().map(|(i, (k, r))| gen_cmd(&cfg, *k, r, i as u32 * 7919 % (1 << 24))).collect();
        let want: Vec<Edges> = cmds.iter().map(|c| edges_for(&cfg, c)).collect();
        let got = run(&cfg, &cmds, &gaps, &ready, stall_at, stall_len);
        prop_assert_eq!(got, want);
    }

    /// `edges_for` is the formula the RTL evaluates, in tile-relative coordinates: with
    /// X_k = v_k − O, P = (c0·SW·256, r0·SH·256), e_k = a_k·(P_x − X_i) + b_k·(P_y − Y_i) − bias_k
    /// (i = start vertex of edge k of the counter-clockwise triangle), and it equals golden's
    /// biased edge evaluated at the absolute point O + P.
    #[test]
    fn edges_for_is_the_tile_relative_formula(ci in 0usize..4, cull in 0u8..3, k in 0u32..7, r in prop::array::uniform12(any::<u32>())) {
        let cfg = with_cull(&configs()[ci], cull);
        let cmd = gen_cmd(&cfg, k, &r, 1);
        let e = edges_for(&cfg, &cmd);
        let tri = TriangleFx { v: cmd.v, colour: [0; 4], depth: 0 };
        match setup_triangle(&cfg, &tri) {
            Err(_) => prop_assert!(e.empty),
            Ok(ts) => {
                if e.empty {
                    return Ok(());
                }
                let o = [(cmd.tile_x * cfg.tile[0] * 256) as i64, (cmd.tile_y * cfg.tile[1] * 256) as i64];
                let v = if ts.was_cw { [cmd.v[0], cmd.v[2], cmd.v[1]] } else { cmd.v };
                let x = v.map(|p| [p[0] as i64 - o[0], p[1] as i64 - o[1]]);
                for xk in &x {
                    prop_assert!(xk[0].abs() < 1 << 23 && xk[1].abs() < 1 << 23, "tile-relative vertex fits Signed<24>");
                }
                let p = [(e.bx0 / cfg.subtile[0] * cfg.subtile[0] * 256) as i64, (e.by0 / cfg.subtile[1] * cfg.subtile[1] * 256) as i64];
                for k in 0..3 {
                    let (i, j) = (k, (k + 1) % 3);
                    let a = x[i][1] - x[j][1];
                    let b = x[j][0] - x[i][0];
                    let inclusive = a > 0 || (a == 0 && b > 0);
                    let bias = if inclusive { 0 } else { 1 };
                    prop_assert_eq!(e.a[k] as i64, a);
                    prop_assert_eq!(e.b[k] as i64, b);
                    let ek = a * (p[0] - x[i][0]) + b * (p[1] - x[i][1]) - bias;
                    prop_assert_eq!(e.e[k], ek);
                    prop_assert_eq!(e.e[k], ts.edges[k].eval(o[0] + p[0], o[1] + p[1]));
                    prop_assert!(e.e[k].abs() < 1 << 47, "e fits Signed<48>");
                }
                prop_assert!(e.bx0 <= e.bx1 && e.bx1 < e.vis_w && e.by0 <= e.by1 && e.by1 < e.vis_h);
            }
        }
    }

    /// Flush at a random cycle: the model returns to its `new` state (same ports, same
    /// behaviour afterwards), whatever was in flight.
    #[test]
    fn flush_returns_to_idle(
        ci in 0usize..4,
        tris in prop::collection::vec((0u32..7, prop::array::uniform12(any::<u32>())), 1..5),
        flush_at in 0u64..40,
        ready in prop::collection::vec(any::<bool>(), 1..8),
    ) {
        let cfg = configs()[ci].clone();
        let cmds: Vec<Cmd> = tris.iter().enumerate().map(|(i, (k, r))| gen_cmd(&cfg, *k, r, i as u32)).collect();
        let mut m = SetupCycle::new(&cfg);
        let mut next = 0;
        for c in 0..flush_at {
            let rdy = ready[c as usize % ready.len()];
            let iv = next < cmds.len();
            let inp = cmds.get(next).copied().unwrap_or_default();
            if iv && m.in_ready(rdy) {
                next += 1;
            }
            m.clock(iv, &inp, rdy, false);
        }
        m.clock(true, &cmds[0], true, true);
        let fresh = SetupCycle::new(&cfg);
        prop_assert_eq!(m.out(), fresh.out());
        prop_assert!(m.idle());
        for rdy in [false, true] {
            prop_assert_eq!(m.in_ready(rdy), fresh.in_ready(rdy));
        }
        // And it works normally afterwards.
        let (outs, _) = drive(&mut m, &cmds, |_| false, |_| true, |o| o.len() == cmds.len(), 40 * cmds.len() as u64);
        let want: Vec<Edges> = cmds.iter().map(|c| edges_for(&cfg, c)).collect();
        prop_assert_eq!(outs, want);
    }
}

/// Worked case, ice40 preset, timing derived by hand from the FSM (hw/src/setup.rs header):
///
/// Three commands A, B, C offered back to back (in_valid high whenever one is left);
/// out_ready is low in cycles 9..=20 and high otherwise.
/// * cycle 0: IDLE, in_ready = 1 → A accepted.
/// * cycles 1..=7: MUL steps 0..=6 for A, in_ready = 0.
/// * cycle 8: FIN for A; the output register is empty → it loads A; in_ready = 1 → B accepted.
/// * cycle 9: out_valid = 1 (A), out_ready = 0 → A waits. B: MUL 0 (cycles 9..=15).
/// * cycle 16: FIN for B, but the output holds A and out_ready = 0 → B waits in FIN, in_ready = 0.
/// * cycles 16..=20: same.
/// * cycle 21: out_ready = 1: A transfers; the same edge loads B and accepts C (in_ready = 1).
/// * cycle 22: B transfers. C: MUL steps in cycles 22..=28, FIN at 29 (loads C).
/// * cycle 30: C transfers.
#[test]
fn worked_case_timing() {
    let cfg = Config::preset("ice40").unwrap();
    // A: CCW triangle in tile (1, 1) = pixels 16..31; B: the same clockwise; C: zero area.
    let a = Cmd {
        prim: 1,
        tile_x: 1,
        tile_y: 1,
        v: [[17 * 256, 17 * 256], [29 * 256 + 128, 18 * 256], [20 * 256, 30 * 256]],
        ..Cmd::default()
    };
    let b = Cmd {
        prim: 2,
        v: [a.v[0], a.v[2], a.v[1]],
        ..a
    };
    let c = Cmd {
        prim: 3,
        v: [a.v[0], a.v[0], a.v[1]],
        ..a
    };
    let cmds = [a, b, c];
    let mut m = SetupCycle::new(&cfg);
    let (outs, trace) = drive(
        &mut m,
        &cmds,
        |_| false,
        |c| !(9..=20).contains(&c),
        |o| o.len() == 3,
        100,
    );
    let accepts: Vec<usize> = trace
        .iter()
        .enumerate()
        .filter(|(_, s)| s.in_valid && s.in_ready)
        .map(|(i, _)| i)
        .collect();
    assert_eq!(accepts, [0, 8, 21]);
    let transfers: Vec<usize> = trace
        .iter()
        .enumerate()
        .filter(|(_, s)| s.out_valid && s.out_ready)
        .map(|(i, _)| i)
        .collect();
    assert_eq!(transfers, [21, 22, 30]);
    let valid: Vec<usize> = trace
        .iter()
        .enumerate()
        .filter(|(_, s)| s.out_valid)
        .map(|(i, _)| i)
        .collect();
    assert_eq!(valid, [9, 10, 11, 12, 13, 14, 15, 16, 17, 18, 19, 20, 21, 22, 30]);
    let ready: Vec<usize> = trace
        .iter()
        .enumerate()
        .filter(|(_, s)| s.in_ready)
        .map(|(i, _)| i)
        .collect();
    assert_eq!(ready[..3], [0, 8, 21]);
    assert_eq!(outs[0], edges_for(&cfg, &a));
    assert_eq!(outs[1], edges_for(&cfg, &b));
    assert!(
        outs[2].empty
            && outs[2]
                == Edges {
                    prim: 3,
                    tile_x: 1,
                    tile_y: 1,
                    empty: true,
                    ..Edges::default()
                }
    );
    // A's values by hand: bbox pixels x 17..29, y 17..30 → tile-relative 1..13 × 1..14; the
    // first visited sub-tile (4×4) is (0, 0), so P = O = (16·256, 16·256).
    let e = outs[0];
    assert!(!e.empty);
    assert_eq!((e.bx0, e.by0, e.bx1, e.by1, e.vis_w, e.vis_h), (1, 1, 13, 14, 16, 16));
    // Edge 0: v0 → v1: a = 17·256 − 18·256 = −256, b = 29.5·256 − 17·256 = 3200.
    assert_eq!((e.a[0], e.b[0]), (-256, 3200));
    // At P: E0 = a·(16·256 − 17·256) + b·(16·256 − 17·256) = 256·256 − 3200·256 = −753664;
    // dy = 256 > 0 → exclusive, bias 1.
    assert_eq!(e.e[0], -753664 - 1);
    // B is A reordered back: identical edges.
    assert_eq!(outs[1], Edges { prim: 2, ..e });
}

/// The largest configuration's extreme triangles (guard-band corners and slivers): outputs
/// equal golden and fit the stream widths.
#[test]
fn extremes_fit_the_widths() {
    let cfg = configs()[3].clone();
    let (lo, hi) = cfg.guard_limits_fx();
    let tris = [
        [[lo[0], lo[1]], [hi[0], lo[1]], [lo[0], hi[1]]],
        [[hi[0], hi[1]], [lo[0], hi[1]], [hi[0], lo[1]]],
        [[lo[0], lo[1]], [hi[0], hi[1] - 512], [hi[0], hi[1]]],
        [[lo[0], hi[1]], [hi[0], lo[1]], [hi[0] - 512, lo[1]]],
        [[lo[0], lo[1]], [hi[0], hi[1]], [hi[0], hi[1] - 1]],
    ];
    let [nx, ny] = cfg.tiles();
    let mut cmds = Vec::new();
    for (i, v) in tris.iter().enumerate() {
        for t in [[0, 0], [nx - 1, ny - 1], [nx - 1, 0], [0, ny - 1], [nx / 2, ny / 2]] {
            for v in [*v, [v[0], v[2], v[1]]] {
                cmds.push(Cmd {
                    prim: i as u32,
                    tile_x: t[0],
                    tile_y: t[1],
                    v,
                    ..Cmd::default()
                });
            }
        }
    }
    let want: Vec<Edges> = cmds.iter().map(|c| edges_for(&cfg, c)).collect();
    assert!(want.iter().filter(|e| !e.empty).count() > 20);
    for e in &want {
        for k in 0..3 {
            assert!(e.a[k].abs() < 1 << 23 && e.b[k].abs() < 1 << 23);
            assert!(e.e[k].abs() < 1 << 47);
        }
    }
    let got = run(&cfg, &cmds, &[false], &[true, true, false], 0, 0);
    assert_eq!(got, want);
}

/// The generator reaches every case: counter-clockwise and clockwise non-empty, zero area,
/// culled, bbox off the tile, bbox partly off the tile, first sub-tile not (0, 0).
#[test]
fn generator_covers_every_case() {
    let mut seen = [0u32; 7];
    let mut rng = Rng::new(0x1234_5678_9abc_def0);
    let mut rnd = || rng.next_u32();
    for ci in 0..4 {
        for cull in 0..3 {
            let cfg = with_cull(&configs()[ci], cull);
            for kind in 0..7 {
                for _ in 0..200 {
                    let r: [u32; 12] = std::array::from_fn(|_| rnd());
                    let cmd = gen_cmd(&cfg, kind, &r, 0);
                    let e = edges_for(&cfg, &cmd);
                    let tri = TriangleFx {
                        v: cmd.v,
                        colour: [0; 4],
                        depth: 0,
                    };
                    match setup_triangle(&cfg, &tri) {
                        Err(tilerast_golden::setup::SetupReject::ZeroArea) => seen[0] += 1,
                        Err(tilerast_golden::setup::SetupReject::Culled) => seen[1] += 1,
                        Err(_) => {}
                        Ok(ts) if e.empty => {
                            let _ = ts;
                            seen[2] += 1
                        }
                        Ok(ts) => {
                            seen[if ts.was_cw { 3 } else { 4 }] += 1;
                            if e.bx0 > 0 && e.by0 > 0 && e.bx1 + 1 < e.vis_w {
                                seen[5] += 1;
                            }
                            if e.bx0 >= cfg.subtile[0] || e.by0 >= cfg.subtile[1] {
                                seen[6] += 1;
                            }
                        }
                    }
                }
            }
        }
    }
    assert!(seen.iter().all(|&n| n > 20), "{seen:?}");
}
