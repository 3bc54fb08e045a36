//! Cycle model of the point rasterizer block (`PointRasterCycle`, seed 003) against the golden
//! transaction model `raster_point_tile`: random point commands on every preset under random
//! input gaps and output back-pressure (incl. long stalls), flush, and hand-derived worked
//! cases with exact cycle timing.

use proptest::prelude::*;
use tilerast_golden::cycle::{drive, CycleModel, PortSample};
use tilerast_golden::point_raster::{cmd_quads, point_of_cmd, point_setup, PointRasterCycle};
use tilerast_golden::streams::{Beat, Cmd, LANES};
use tilerast_golden::{Config, Quad};
use tilerast_verif::{Pattern, Rng};

const PX: i32 = 256;

fn preset(i: usize) -> Config {
    Config::preset(tilerast_golden::PRESETS[i]).unwrap()
}

fn point(prim: u32, x: i32, y: i32, size: u32, aa: bool, tile: [u32; 2]) -> Cmd {
    Cmd {
        kind: 1,
        prim,
        tile_x: tile[0],
        tile_y: tile[1],
        v: [[x, y], [0, 0], [0, 0]],
        size,
        aa,
    }
}

/// A valid/ready pattern per cycle: mode 0 always on, 1 random, 2 random with long off bursts
/// (stalls of 21–80 cycles).
fn pattern(mode: u8, seed: u64, p_on: u64) -> impl FnMut(u64) -> bool {
    let pct = p_on as u32;
    let p = match mode {
        0 => Pattern::Always,
        1 => Pattern::Random { pct },
        _ => Pattern::RandomStalls {
            pct,
            permille: 40,
            min: 21,
            max: 80,
        },
    };
    let mut line = p.line(Rng::new(seed));
    move |_| line.step()
}

/// Drive the model, return the transferred beats and the port trace.
fn run(
    c: &Config,
    cmds: &[Cmd],
    gap: impl FnMut(u64) -> bool,
    ready: impl FnMut(u64) -> bool,
) -> (Vec<Beat>, Vec<PortSample<Cmd, Beat>>) {
    let mut m = PointRasterCycle::new(c);
    let n = cmds.len();
    let (beats, trace) = drive(
        &mut m,
        cmds,
        gap,
        ready,
        |o: &[Beat]| o.iter().filter(|b| b.last).count() >= n,
        200_000,
    );
    (beats, trace)
}

/// Every property of the transferred stream, per command.
fn check_stream(c: &Config, cmds: &[Cmd], beats: &[Beat]) -> Result<(), TestCaseError> {
    let q = c.quads_per_clock as usize;
    let lasts = beats.iter().filter(|b| b.last).count();
    prop_assert_eq!(lasts, cmds.len(), "exactly one last per command");
    prop_assert!(beats.last().map_or(cmds.is_empty(), |b| b.last));
    let mut i = 0;
    for cmd in cmds {
        let mut got: Vec<Quad> = Vec::new();
        loop {
            let b = &beats[i];
            i += 1;
            prop_assert_eq!(b.prim, cmd.prim);
            prop_assert_eq!(b.kind, 1, "a point's beats are kind 1");
            prop_assert_eq!(b.block, [0; LANES]);
            for l in 0..LANES {
                prop_assert_eq!(
                    b.lane_valid >> l & 1 == 1,
                    b.mask[l] != 0,
                    "lane valid iff mask ≠ 0: {:?}",
                    b
                );
                if l >= q {
                    prop_assert!(
                        b.qx[l] == 0 && b.qy[l] == 0 && b.mask[l] == 0,
                        "unused lane {} not zero",
                        l
                    );
                }
                prop_assert!(b.mask[l].checked_shr(4 * c.msaa).unwrap_or(0) == 0);
            }
            if !b.last {
                prop_assert!(b.lane_valid != 0, "non-last beat without a valid lane");
            }
            got.extend(b.quads());
            if b.last {
                break;
            }
        }
        let want = cmd_quads(c, cmd);
        prop_assert_eq!(&got, &want, "quads differ for {:?}", cmd);
    }
    Ok(())
}

/// Scan steps the block takes for an AA-off command: ⌈w/Q⌉·h quads of the clipped range, or 1.
fn steps_aa_off(c: &Config, cmd: &Cmd) -> u64 {
    let su = point_setup(c, &point_of_cmd(cmd));
    let (tw, th) = (c.tile[0] as i64, c.tile[1] as i64);
    let (x0, y0) = (cmd.tile_x as i64 * tw, cmd.tile_y as i64 * th);
    let r = [
        su.range[0].max(x0),
        su.range[1].max(y0),
        su.range[2].min(x0 + tw - 1).min(c.viewport[0] as i64 - 1),
        su.range[3].min(y0 + th - 1).min(c.viewport[1] as i64 - 1),
    ];
    if r[0] > r[2] || r[1] > r[3] {
        return 1;
    }
    let w = (r[2] >> 1) - (r[0] >> 1) + 1;
    let h = (r[3] >> 1) - (r[1] >> 1) + 1;
    (((w + c.quads_per_clock as i64 - 1) / c.quads_per_clock as i64) * h) as u64
}

// ---------------------------------------------------------------- random commands

/// A coordinate (1/256 px) near pixel centres / corners, near tile edges, beyond the viewport,
/// or at the extremes of the 24-bit port.
fn coord(limit: i32, tile: i32, margin: i32) -> impl Strategy<Value = i32> {
    let frac = prop_oneof![Just(0), Just(128), Just(127), Just(129), Just(1), Just(255), 0..256i32];
    let whole = prop_oneof![
        4 => -margin..limit + margin,
        2 => (0..limit / tile + 1, -1..=1i32).prop_map(move |(k, d)| k * tile + d),
        1 => prop_oneof![Just(-margin), Just(limit + margin - 1), Just(-1), Just(limit)],
    ];
    prop_oneof![
        12 => (whole, frac).prop_map(|(p, f)| p * PX + f),
        1 => prop_oneof![Just(-(1 << 23)), Just((1 << 23) - 1), Just(-(1 << 23) + 200), Just((1 << 23) - 300)],
    ]
}

/// A size (1/256 px): small whole sizes, every parity, .5 boundaries, up to beyond the maximum.
fn size(max: u32) -> impl Strategy<Value = u32> {
    let frac = prop_oneof![Just(0u32), Just(128), Just(127), Just(129), Just(255), 0..256u32];
    let whole = prop_oneof![0..=9u32, 0..=max + 1, Just(max), Just(max - 1)];
    prop_oneof![
        12 => (whole, frac).prop_map(|(n, f)| n * 256 + f),
        1 => prop_oneof![Just(0u32), Just(1), Just((1 << 24) - 1), Just(max * 256 + 128), Just(max * 256 - 129)],
    ]
}

fn cmd_strategy(c: Config) -> impl Strategy<Value = Cmd> {
    let (w, h) = (c.viewport[0] as i32, c.viewport[1] as i32);
    let m = c.max_point_size as i32 / 2 + 3;
    let (tw, th) = (c.tile[0], c.tile[1]);
    let [ntx, nty] = c.tiles();
    (
        coord(w, tw as i32, m),
        coord(h, th as i32, m),
        size(c.max_point_size),
        any::<bool>(),
        0u32..1 << 24,
        0u8..8,
        (-1i32..=1, -1i32..=1),
        (0..ntx + 2, 0..nty + 2),
    )
        .prop_map(move |(x, y, s, aa, prim, how, (dx, dy), (rx, ry))| {
            // Tile: the one holding the point (most often), a neighbour, any, or far away.
            let home = |p: i32, t: u32, n: u32| ((p.max(0) / PX) as u32 / t).min(n - 1);
            let (hx, hy) = (home(x, tw, ntx), home(y, th, nty));
            let tile = match how {
                0..=3 => [hx, hy],
                4 | 5 => [
                    (hx as i32 + dx).clamp(0, 255) as u32,
                    (hy as i32 + dy).clamp(0, 255) as u32,
                ],
                6 => [rx, ry],
                _ => [255, ry],
            };
            point(prim, x, y, s, aa, tile)
        })
}

/// (mode, seed, percent on) of a valid or ready pattern.
type LineArgs = (u8, u64, u64);

fn case() -> impl Strategy<Value = (usize, Vec<Cmd>, LineArgs, LineArgs)> {
    (0usize..3).prop_flat_map(|p| {
        let c = preset(p);
        (
            Just(p),
            prop::collection::vec(cmd_strategy(c), 1..6),
            (0u8..3, any::<u64>(), 30u64..100),
            (0u8..3, any::<u64>(), 20u64..100),
        )
    })
}

proptest! {
    #![proptest_config(ProptestConfig { cases: 384, ..ProptestConfig::default() })]

    /// The transferred beats carry exactly golden's quads, in order, one `last` per command,
    /// whatever the input gaps and output stalls.
    #[test]
    fn beats_equal_golden((p, cmds, (gm, gs, gp), (rm, rs, rp)) in case()) {
        let c = preset(p);
        let mut gap = pattern(gm, gs, gp);
        let (beats, trace) = run(&c, &cmds, move |t| !gap(t), pattern(rm, rs, rp));
        check_stream(&c, &cmds, &beats)?;
        // The output holds its beat while stalled (valid/ready rule).
        for w in trace.windows(2) {
            if w[0].out_valid && !w[0].out_ready {
                prop_assert!(w[1].out_valid && w[1].output == w[0].output, "beat changed while stalled");
            }
        }
    }

    /// With no gaps and no stalls the timing is exactly: command i's final beat transfers in
    /// cycle 3 + Σ_{j≤i} k_j + 2·i (k = scan steps; AA off so k is known from golden's range).
    #[test]
    fn back_to_back_timing((p, cmds, _, _) in case()) {
        let c = preset(p);
        let cmds: Vec<Cmd> = cmds.into_iter().map(|mut x| { x.aa = false; x }).collect();
        let (beats, trace) = run(&c, &cmds, |_| false, |_| true);
        check_stream(&c, &cmds, &beats)?;
        let last_cycles: Vec<u64> = trace
            .iter()
            .enumerate()
            .filter(|(_, s)| s.out_valid && s.out_ready && s.output.last)
            .map(|(t, _)| t as u64)
            .collect();
        let mut sum = 0;
        for (i, cmd) in cmds.iter().enumerate() {
            sum += steps_aa_off(&c, cmd);
            prop_assert_eq!(last_cycles[i], 3 + sum + 2 * i as u64, "command {} {:?}", i, cmd);
        }
        // Every scan step of an AA-off command emits a beat: beats = Σ k.
        prop_assert_eq!(beats.len() as u64, sum);
    }

    /// Flush in the middle of anything returns the model to its `new` state; afterwards it
    /// works normally.
    #[test]
    fn flush_returns_to_idle((p, cmds, (gm, gs, gp), (rm, rs, rp)) in case(), at in 0u64..60) {
        let c = preset(p);
        let mut m = PointRasterCycle::new(&c);
        let mut gap = pattern(gm, gs, gp);
        let mut ready = pattern(rm, rs, rp);
        let mut next = 0;
        for t in 0..at {
            let v = next < cmds.len() && gap(t);
            let r = ready(t);
            if v && m.in_ready(r) {
                next += 1;
            }
            m.clock(v, &cmds[next.min(cmds.len() - 1)], r, false);
        }
        m.clock(true, &cmds[0], true, true);
        prop_assert_eq!(&m, &PointRasterCycle::new(&c));
        prop_assert!(m.is_idle() && m.in_ready(false) && !m.out().0);
        let (beats, _) = {
            let n = cmds.len();
            drive(&mut m, &cmds, |_| false, |_| true, |o: &[Beat]| o.iter().filter(|b| b.last).count() >= n, 100_000)
        };
        check_stream(&c, &cmds, &beats)?;
    }
}

// ---------------------------------------------------------------- worked cases

/// Cycle numbers at which beats transfer.
fn transfer_cycles(trace: &[PortSample<Cmd, Beat>]) -> Vec<usize> {
    trace
        .iter()
        .enumerate()
        .filter(|(_, s)| s.out_valid && s.out_ready)
        .map(|(t, _)| t)
        .collect()
}

/// ice40 (S = 4, Q = 1, tile 16): a size-8 point at (7.0, 7.0) px, AA off.
///
/// Setup by hand: N = 8 (even), fragment coordinate ⌊7 + ½⌋ = 7, range 7 − 4 = 3 ..= 10 on
/// both axes (8 pixels). In 1/16 px: A0 = 48, A1 = 175; quads Q0 = 1, Q1 = 5; P0 = 3 odd,
/// P1 = 10 even. So 5 × 5 quads: the first column lights only its right pixels, the last
/// only its left ones, likewise bottom/top rows: corners 1 pixel, edges 2, interior 4:
/// 4·1 + 12·2 + 9·4 = 64 fragments.
///
/// Timing (always ready, no gap): cycle 0 accept (in_valid ∧ in_ready); 1 SX (x axis);
/// 2 SY (y axis, scan registers loaded); 3..=27 the 25 scan steps (one quad each);
/// beats on the output in cycles 4..=28, quad (1,1) first, (5,5) last with `last`.
#[test]
fn worked_size8_ice40() {
    let c = preset(0);
    let cmd = point(9, 7 * PX, 7 * PX, 8 * 256, false, [0, 0]);
    let (beats, trace) = run(&c, &[cmd], |_| false, |_| true);
    assert!(trace[0].in_ready);
    assert!(!trace[1].in_ready && !trace[2].in_ready && !trace[3].in_ready);
    assert_eq!(transfer_cycles(&trace), (4..=28).collect::<Vec<_>>());
    assert_eq!(beats.len(), 25);
    let f = 0xf;
    let px = |i: u32| (f as u64) << (4 * i);
    let (b0, b1, b2, b3) = (px(0), px(1), px(2), px(3));
    let expect = |qx: u32, qy: u32| -> u64 {
        let xs: u64 = if qx == 1 {
            0b10
        } else if qx == 5 {
            0b01
        } else {
            0b11
        };
        let ys: u64 = if qy == 1 {
            0b10
        } else if qy == 5 {
            0b01
        } else {
            0b11
        };
        let mut m = 0;
        for (i, b) in [b0, b1, b2, b3].iter().enumerate() {
            if xs >> (i & 1) & 1 == 1 && ys >> (i >> 1) & 1 == 1 {
                m |= b;
            }
        }
        m
    };
    let mut frags = 0;
    for (k, b) in beats.iter().enumerate() {
        let (qx, qy) = (1 + k as u32 % 5, 1 + k as u32 / 5);
        assert_eq!(
            (b.qx[0], b.qy[0], b.mask[0], b.lane_valid),
            (qx, qy, expect(qx, qy), 1),
            "beat {k}"
        );
        assert_eq!(b.last, k == 24);
        frags += (0..4).filter(|i| b.mask[0] >> (4 * i) & 0xf != 0).count();
    }
    assert_eq!(frags, 64);
    // The corner and edge cases spelled out: (1,1) top-right only, (2,1) top pair,
    // (1,2) right pair, (5,5) bottom-left only.
    assert_eq!(beats[0].mask[0], 0xf000);
    assert_eq!(beats[1].mask[0], 0xff00);
    assert_eq!(beats[5].mask[0], 0xf0f0);
    assert_eq!(beats[24].mask[0], 0x000f);
    assert_eq!(
        beats.iter().map(|b| b.quads().next().unwrap()).collect::<Vec<_>>(),
        cmd_quads(&c, &cmd)
    );

    // The same with the output stalled in cycles 6..=9: beat 2 (visible from cycle 6) waits
    // until cycle 10, the scan stops with it, and everything after moves by 4 cycles.
    let (beats2, trace2) = run(&c, &[cmd], |_| false, |t| !(6..=9).contains(&t));
    assert_eq!(beats2, beats);
    let mut want: Vec<usize> = vec![4, 5];
    want.extend(10..=32);
    assert_eq!(transfer_cycles(&trace2), want);
    for s in &trace2[6..=9] {
        assert!(s.out_valid && s.output == beats[2]);
    }
}

/// default (S = 4, Q = 2, tile 32): the same point. A row of 5 quads takes 3 steps (lanes
/// {1,2}, {3,4}, {5,-}), 5 rows → 15 steps in cycles 3..=17, beats in 4..=18; every third beat
/// has only lane 0 valid. A second command for a tile the point misses is accepted in cycle
/// 17 (the first command's final step), SX 18, SY 19, its single step 20, and its bare
/// `last` beat (no lane valid) is on the output in cycle 21.
#[test]
fn worked_size8_default_two_lanes_and_a_miss() {
    let c = preset(1);
    let a = point(3, 7 * PX, 7 * PX, 8 * 256, false, [0, 0]);
    let miss = point(4, 7 * PX, 7 * PX, 8 * 256, false, [1, 0]);
    let (beats, trace) = run(&c, &[a, miss], |_| false, |_| true);
    assert_eq!(transfer_cycles(&trace), (4..=18).chain([21]).collect::<Vec<_>>());
    assert!(trace[17].in_ready && trace[17].in_valid);
    // SX and SY never accept; the single (final) step in cycle 20 would.
    assert!(!trace[18].in_ready && !trace[19].in_ready && trace[20].in_ready);
    assert_eq!(beats.len(), 16);
    for (k, b) in beats[..15].iter().enumerate() {
        let third = k % 3 == 2;
        assert_eq!(b.lane_valid, if third { 0b01 } else { 0b11 }, "beat {k}");
        assert_eq!(b.qx[0], 1 + 2 * (k as u32 % 3));
        assert_eq!(b.qy[0], 1 + k as u32 / 3);
        assert_eq!(b.last, k == 14);
    }
    let m = &beats[15];
    assert_eq!((m.prim, m.lane_valid, m.last), (4, 0, true));
    check_stream(&c, &[a, miss], &beats).unwrap();
}

/// Size 1 (N = 1, odd) at (5.9, 2.2) px on ice40: the point's own pixel (5, 2) → quad (2, 1),
/// pixel 1 only (bottom-right): mask 0x00f0. One step: beat in cycle 4.
#[test]
fn worked_size1_and_half_boundaries() {
    let c = preset(0);
    let cmd = point(1, 5 * PX + 230, 2 * PX + 51, 256, false, [0, 0]);
    let (beats, trace) = run(&c, &[cmd], |_| false, |_| true);
    assert_eq!(transfer_cycles(&trace), vec![4]);
    assert_eq!(
        (beats[0].qx[0], beats[0].qy[0], beats[0].mask[0], beats[0].last),
        (2, 1, 0x00f0, true)
    );
    // Size 1.5 rounds half up to 2 (even): centre ⌊5.9 + ½⌋ = 6, ⌊2.2 + ½⌋ = 2 → pixels 5..=6 ×
    // 1..=2: quads (2,0) px 3, (3,0) px 2, (2,1) px 1, (3,1) px 0.
    let cmd = point(1, 5 * PX + 230, 2 * PX + 51, 256 + 128, false, [0, 0]);
    let (beats, _) = run(&c, &[cmd], |_| false, |_| true);
    let q: Vec<(u32, u32, u64)> = beats.iter().map(|b| (b.qx[0], b.qy[0], b.mask[0])).collect();
    assert_eq!(q, vec![(2, 0, 0xf000), (3, 0, 0x0f00), (2, 1, 0x00f0), (3, 1, 0x000f)]);
    // 1.5 − 1/256 rounds to 1.
    let cmd = point(1, 5 * PX + 230, 2 * PX + 51, 256 + 127, false, [0, 0]);
    let (beats, _) = run(&c, &[cmd], |_| false, |_| true);
    assert_eq!(beats.len(), 1);
}

/// AA on, ice40 (S = 4; sample offsets x: 6, 14, 2, 10 and y: 2, 6, 10, 14 in 1/16 px): a
/// 1-px point at (4.5, 4.5) covers exactly pixel (4, 4) → quad (2, 2) pixel 0, all 4 samples.
/// A 0.5-px point there covers [4.25, 4.75)², i.e. offsets in [4, 12) on both axes: x keeps
/// samples 0 and 3 (6, 10), y keeps samples 1 and 2 (6, 10) → no sample in both: the scan
/// visits the quad, it is empty, and the command emits only its bare `last` beat.
#[test]
fn worked_aa() {
    let c = preset(0);
    let cmd = point(1, 4 * PX + 128, 4 * PX + 128, 256, true, [0, 0]);
    let (beats, _) = run(&c, &[cmd], |_| false, |_| true);
    assert_eq!(beats.len(), 1);
    assert_eq!(
        (beats[0].qx[0], beats[0].qy[0], beats[0].mask[0], beats[0].last),
        (2, 2, 0x000f, true)
    );
    let cmd = point(1, 4 * PX + 128, 4 * PX + 128, 128, true, [0, 0]);
    let (beats, _) = run(&c, &[cmd], |_| false, |_| true);
    assert_eq!(beats.len(), 1);
    assert_eq!((beats[0].lane_valid, beats[0].last), (0, true));
    assert!(cmd_quads(&c, &cmd).is_empty());
}
