//! Seed 004 blender: merged runs equal the unmerged run and the direct per-sample blend
//! (proptest); hand-worked cycle/counter cases from the seed's figures.

use proptest::prelude::*;
use std::collections::{BTreeMap, HashSet};
use tilerast_golden::blender::{
    self, blend, component_key, div255, run, run_timed, try_run, BlendOpts, BlendSample, BlendStats, MergeMode,
};
use tilerast_golden::{Config, Rgba};

fn cfg(pool: u32, lanes: u32, latency: u32) -> Config {
    let mut c = Config::preset("default").unwrap();
    c.blend_pool = pool;
    c.blend_lanes = lanes;
    c.blend_latency = latency;
    c.validate().unwrap();
    c
}

fn opts(merge: MergeMode, input_buffer: usize, match_in_flight: bool, gate: bool) -> BlendOpts {
    BlendOpts {
        merge,
        input_buffer,
        match_in_flight,
        gate_idle_lanes: gate,
    }
}

fn smp(pos: u32, src: Rgba, dst: Rgba, state: u8) -> BlendSample {
    BlendSample { pos, src, dst, state }
}

/// Emission cycles and input indices, in output order.
fn timing(c: &Config, o: &BlendOpts, input: &[BlendSample]) -> Vec<(u64, usize)> {
    run_timed(c, o, input).0.iter().map(|o| (o.cycle, o.index)).collect()
}

/// Run `input`, check that the counters equal `want` and that the outputs leave in `order`
/// (emission cycle, input index); returns the outputs.
#[track_caller]
fn run_expect(
    c: &Config,
    o: &BlendOpts,
    input: &[BlendSample],
    want: BlendStats,
    order: &[(u64, usize)],
) -> Vec<(u32, Rgba)> {
    let (out, st) = run(c, o, input);
    assert_eq!(st, want);
    assert_eq!(timing(c, o, input), order);
    out
}

#[test]
fn div255_is_round_to_nearest() {
    // Independent definition: round(v / 255) = ⌊(2v + 255) / 510⌋ (no ties: 255 is odd).
    for v in 0..=255 * 255u32 {
        assert_eq!(div255(v) as u32, (2 * v + 255) / 510, "v = {v}");
    }
}

#[test]
fn blend_operations_by_hand() {
    // src-over: src (200, 100, 0, 128), dst (0, 50, 255, 255):
    //   R = (200·128 + 0·127)/255 = 25600/255 = 100.39 → 100
    //   G = (100·128 + 50·127)/255 = 19150/255 = 75.10 → 75
    //   B = (0 + 255·127)/255 = 127
    //   A = (128·255 + 255·127)/255 = 255
    assert_eq!(blend([200, 100, 0, 128], [0, 50, 255, 255], 0), [100, 75, 127, 255]);
    // Opaque source replaces, transparent source keeps the destination.
    assert_eq!(blend([1, 2, 3, 255], [9, 9, 9, 9], 0), [1, 2, 3, 255]);
    assert_eq!(blend([1, 2, 3, 0], [9, 8, 7, 6], 0), [9, 8, 7, 6]);
    // Replace, additive (saturating), multiply (100·200/255 = 78.4 → 78; 255·255/255 = 255).
    assert_eq!(blend([1, 2, 3, 4], [9, 9, 9, 9], 1), [1, 2, 3, 4]);
    assert_eq!(blend([200, 10, 0, 255], [100, 10, 0, 1], 2), [255, 20, 0, 255]);
    assert_eq!(blend([100, 255, 0, 255], [200, 255, 9, 128], 3), [78, 255, 0, 128]);
    // Bits 7..2 of the state do not change the operation.
    assert_eq!(blend([200, 100, 0, 128], [0, 50, 255, 255], 4), [100, 75, 127, 255]);
}

const A: Rgba = [10, 20, 30, 128];
const D: Rgba = [1, 2, 3, 4];

#[test]
fn four_identical_samples_one_blend_op() {
    // P = 4, L = 2, D = 4. Cycle 0: all four arrive; sample 0 takes lane 0, samples 1..3
    // equal it and ride as sideband. Emitted in cycle 0 + 4 = 4; cycles = 5.
    // Busy cycles: 1 (cycle 0), lanes used 1 of 2 → 1 idle lane-cycle.
    let c = cfg(4, 2, 4);
    let input: Vec<_> = (0..4).map(|i| smp(100 + i, A, D, 0)).collect();
    let want_colour = blend(A, D, 0);
    for gate in [false, true] {
        let o = opts(MergeMode::PerSample, 0, false, gate);
        let want = BlendStats {
            cycles: 5,
            busy_cycles: 1,
            blend_ops: 1,
            component_ops: 4,
            merged_components: 0,
            merged_samples: 3,
            merged_in_flight: 0,
            merged_buffer: 0,
            idle_lane_cycles: 1,
            gated_lane_cycles: if gate { 1 } else { 0 },
            samples: 4,
        };
        let out = run_expect(&c, &o, &input, want, &[(4, 0), (4, 1), (4, 2), (4, 3)]);
        assert_eq!(out, (100..104).map(|p| (p, want_colour)).collect::<Vec<_>>());
    }
    // PerComponent merges them too (all four component keys equal).
    let (_, st) = run(&c, &opts(MergeMode::PerComponent, 0, false, false), &input);
    assert_eq!((st.blend_ops, st.merged_samples, st.cycles), (1, 3, 5));
    // Off: two cycles of two ops each, emitted in cycles 4 and 5 → 6 cycles.
    let o = opts(MergeMode::Off, 0, true, true);
    let want = BlendStats {
        cycles: 6,
        busy_cycles: 2,
        blend_ops: 4,
        component_ops: 16,
        idle_lane_cycles: 0,
        samples: 4,
        ..BlendStats::default()
    };
    run_expect(&c, &o, &input, want, &[(4, 0), (4, 1), (5, 2), (5, 3)]);
}

#[test]
fn four_distinct_samples_two_cycles_of_two_ops() {
    // No two equal: cycle 0 issues samples 0, 1; cycle 1 issues 2, 3 (the pool refills from
    // nothing: the stream is exhausted). Emitted at 4 and 5; 6 cycles; no lane idle.
    let c = cfg(4, 2, 4);
    let input: Vec<_> = (0..4u8).map(|i| smp(i as u32, [i, 0, 0, 255], D, 0)).collect();
    for merge in [MergeMode::Off, MergeMode::PerSample, MergeMode::PerComponent] {
        let o = opts(merge, 0, true, false);
        let (out, st) = run(&c, &o, &input);
        assert_eq!(out.len(), 4);
        for (p, col) in &out {
            assert_eq!(*col, blend(input[*p as usize].src, D, 0));
        }
        assert_eq!(
            (st.cycles, st.busy_cycles, st.blend_ops, st.idle_lane_cycles),
            (6, 2, 4, 0)
        );
        assert_eq!((st.merged_samples, st.merged_in_flight, st.component_ops), (0, 0, 16));
        // PerComponent: sample i's G, B (and alpha) keys equal sample 0's, but only lanes
        // issued in the same cycle can supply them: cycle 0 sample 1 gets G, B, A from sample
        // 0 (3); cycle 1 sample 3 gets them from sample 2 (3) → 6 merged components.
        let mc = if merge == MergeMode::PerComponent { 6 } else { 0 };
        assert_eq!(st.merged_components, mc);
        assert_eq!(timing(&c, &o, &input), vec![(4, 0), (4, 1), (5, 2), (5, 3)]);
    }
}

#[test]
fn per_component_merge_on_samples_differing_in_one_channel() {
    // X: src (10,20,30,128) dst (1,2,3,4). Z: same but dst alpha 5. Component keys
    // (src[c], dst[c], src[3], state): R, G, B equal X's; A differs. P = 4, L = 2, D = 4.
    // Cycle 0: X → lane 0 (4 components); Z → lane 1 with R, G, B copied from lane 0:
    // merged_components 3; gated → 1 component op, else 4.
    let c = cfg(4, 2, 4);
    let x = smp(0, A, D, 0);
    let z = smp(1, A, [1, 2, 3, 5], 0);
    for gate in [false, true] {
        let (out, st) = run(&c, &opts(MergeMode::PerComponent, 0, false, gate), &[x, z]);
        assert_eq!(out, vec![(0, blend(A, D, 0)), (1, blend(A, [1, 2, 3, 5], 0))]);
        let want = BlendStats {
            cycles: 5,
            busy_cycles: 1,
            blend_ops: 2,
            component_ops: if gate { 5 } else { 8 },
            merged_components: 3,
            idle_lane_cycles: 0,
            samples: 2,
            ..BlendStats::default()
        };
        assert_eq!(st, want);
    }
    // PerSample sees two different samples: nothing merges.
    let (_, st) = run(&c, &opts(MergeMode::PerSample, 0, false, true), &[x, z]);
    assert_eq!((st.blend_ops, st.merged_components, st.component_ops), (2, 0, 8));

    // Seed fig. 9: different RGB, equal alpha inputs. X and Y = src (40,50,60,128) dst
    // (5,6,7,4): alpha key (128, 4, 128, 0) equal → Y's alpha copied. Then X2 = X (fully
    // merged, no lane) and Z (R, G, B match X, but both lanes are taken → waits).
    // Cycle 0: X lane 0, Y lane 1 (1 merged comp), X2 merged, Z stays.
    // Cycle 1: Z alone → lane 0 (no op issued earlier this cycle: 0 merged), 1 idle lane.
    // Emission: X, Y, X2 at 4; Z at 5 → cycles 6.
    // component_ops gated: 4 + 3 + 4 = 11.
    let y = smp(1, [40, 50, 60, 128], [5, 6, 7, 4], 0);
    let x2 = smp(2, A, D, 0);
    let z = smp(3, A, [1, 2, 3, 5], 0);
    let input = [x, y, x2, z];
    let o = opts(MergeMode::PerComponent, 0, false, true);
    let want = BlendStats {
        cycles: 6,
        busy_cycles: 2,
        blend_ops: 3,
        component_ops: 11,
        merged_components: 1,
        merged_samples: 1,
        merged_in_flight: 0,
        merged_buffer: 0,
        idle_lane_cycles: 1,
        gated_lane_cycles: 1,
        samples: 4,
    };
    let out = run_expect(&c, &o, &input, want, &[(4, 0), (4, 1), (4, 2), (5, 3)]);
    let direct: Vec<(u32, Rgba)> = input.iter().map(|s| (s.pos, blend(s.src, s.dst, s.state))).collect();
    assert_eq!(out, direct);
}

#[test]
fn in_flight_match() {
    // P = 2, L = 2, D = 4; stream a, b, c, d, a2 (= a), b2 (= b); two arrive per cycle.
    // Cycle 0: a, b issue (exit 4). Cycle 1: c, d issue (exit 5).
    // Cycle 2: a2, b2 equal a, b still in the pipeline → merge in flight, emitted at 4.
    // Stats: busy 3, ops 4, merged_in_flight 2, idle lanes 2 (cycle 2), cycles 6.
    let c = cfg(2, 2, 4);
    let col = |i: u8| [i, 0, 0, 200];
    let input = [
        smp(0, col(0), D, 0),
        smp(1, col(1), D, 0),
        smp(2, col(2), D, 0),
        smp(3, col(3), D, 0),
        smp(4, col(0), D, 0),
        smp(5, col(1), D, 0),
    ];
    let o = opts(MergeMode::PerSample, 0, true, false);
    let want = BlendStats {
        cycles: 6,
        busy_cycles: 3,
        blend_ops: 4,
        component_ops: 16,
        merged_in_flight: 2,
        idle_lane_cycles: 2,
        samples: 6,
        ..BlendStats::default()
    };
    // Order: cycle 4 holds inputs 0, 1, 4, 5; cycle 5 holds 2, 3.
    let out = run_expect(&c, &o, &input, want, &[(4, 0), (4, 1), (4, 4), (4, 5), (5, 2), (5, 3)]);
    let pos: Vec<u32> = out.iter().map(|p| p.0).collect();
    assert_eq!(pos, vec![0, 1, 4, 5, 2, 3]);
    assert_eq!(out[2].1, blend(col(0), D, 0));

    // Without the in-flight comparator: a2, b2 take lanes in cycle 2 (exit 6) → 7 cycles.
    let (_, st) = run(&c, &opts(MergeMode::PerSample, 0, false, false), &input);
    assert_eq!(
        (st.blend_ops, st.merged_in_flight, st.cycles, st.idle_lane_cycles),
        (6, 0, 7, 0)
    );
    // PerComponent uses the same whole-sample in-flight match.
    let (_, st) = run(&c, &opts(MergeMode::PerComponent, 0, true, false), &input);
    assert_eq!((st.blend_ops, st.merged_in_flight, st.cycles), (4, 2, 6));
    // Off ignores match_in_flight.
    let (_, st) = run(&c, &opts(MergeMode::Off, 0, true, false), &input);
    assert_eq!((st.blend_ops, st.merged_in_flight, st.cycles), (6, 0, 7));

    // Pipeline boundary: D = 2. a, b exit at 2 and are still in the last stage in cycle 2,
    // so a2, b2 merge and leave with them in cycle 2; c, d exit at 3 → 4 cycles.
    let c2 = cfg(2, 2, 2);
    assert_eq!(
        timing(&c2, &o, &input),
        vec![(2, 0), (2, 1), (2, 4), (2, 5), (3, 2), (3, 3)]
    );
    // D = 1: a, b left in cycle 1; in cycle 2 nothing is in flight → a2, b2 take lanes.
    let c1 = cfg(2, 2, 1);
    let (_, st) = run(&c1, &o, &input);
    assert_eq!((st.blend_ops, st.merged_in_flight, st.cycles), (6, 0, 4));
}

#[test]
fn input_buffer_merges_across_fragments() {
    // P = 2, L = 1, D = 4; stream a, b, c, b2 (= b).
    // B = 0: cycle 0 [a, b] → a; cycle 1 [b, c] → b; cycle 2 [c, b2] → c, b2 ≠ c waits;
    //        cycle 3 [b2] → b2 (in-flight matching off). 4 ops, last exit 3 + 4 = 7 → 8 cycles.
    // B = 2: cycle 0 [a, b] → a; cycle 1 c, b2 arrive: [b, c | b2] → b issues, c waits
    //        (lane taken), b2 in the buffer equals b → merged. Cycle 2 [c] → c.
    //        3 ops, last exit 6 → 7 cycles; b2 leaves with b in cycle 5, ahead of c.
    let c = cfg(2, 1, 4);
    let v = |i: u8| [i, i, i, 255];
    let input = [
        smp(0, v(0), D, 0),
        smp(1, v(1), D, 0),
        smp(2, v(2), D, 0),
        smp(3, v(1), D, 0),
    ];
    let o0 = opts(MergeMode::PerSample, 0, false, false);
    let want0 = BlendStats {
        cycles: 8,
        busy_cycles: 4,
        blend_ops: 4,
        component_ops: 16,
        samples: 4,
        ..BlendStats::default()
    };
    run_expect(&c, &o0, &input, want0, &[(4, 0), (5, 1), (6, 2), (7, 3)]);
    let o2 = opts(MergeMode::PerSample, 2, false, true);
    let want2 = BlendStats {
        cycles: 7,
        busy_cycles: 3,
        blend_ops: 3,
        component_ops: 12,
        merged_samples: 1,
        // b2 was at window position 2 ≥ P: the buffer's merge.
        merged_buffer: 1,
        samples: 4,
        ..BlendStats::default()
    };
    let out = run_expect(&c, &o2, &input, want2, &[(4, 0), (5, 1), (5, 3), (6, 2)]);
    assert_eq!(out[2], (3, blend(v(1), D, 0)));
}

#[test]
fn input_buffer_entries_never_take_a_lane() {
    // P = 3, L = 2, B = 2, D = 4; stream a, b, x, x, x, f.
    // Cycle 0: a, b, x arrive (≤ P per cycle) → a, b issue; x stays.
    // Cycle 1: x, x, f arrive → [x, x, x | f]: x issues, the other two merge; lane 1 stays
    //          idle because f is in the input buffer, which only merges.
    // Cycle 2: [f] → f issues (exit 6) → 7 cycles; idle lanes 1 (cycle 1) + 1 (cycle 2).
    let c = cfg(3, 2, 4);
    let v = |i: u8| [i, 7, 7, 255];
    let input: Vec<_> = [0u8, 1, 2, 2, 2, 3]
        .iter()
        .enumerate()
        .map(|(k, &i)| smp(k as u32, v(i), D, 0))
        .collect();
    let o = opts(MergeMode::PerSample, 2, false, false);
    let want = BlendStats {
        cycles: 7,
        busy_cycles: 3,
        blend_ops: 4,
        component_ops: 16,
        merged_samples: 2,
        idle_lane_cycles: 2,
        samples: 6,
        ..BlendStats::default()
    };
    run_expect(&c, &o, &input, want, &[(4, 0), (4, 1), (5, 2), (5, 3), (5, 4), (6, 5)]);
}

#[test]
fn input_buffer_entries_merge_in_flight() {
    // P = 2, L = 1, D = 4, in-flight match; stream a, b, c, a2 (= a).
    // B = 2: cycle 0 [a, b] → a issues (exit 4). Cycle 1: c, a2 arrive → [b, c | a2]: b
    //        issues, c waits, a2 (buffer) matches a in flight and leaves with it in cycle 4.
    // B = 0: a2 reaches the pool in cycle 2 ([c, a2]): an in-flight merge, not the buffer's.
    let c = cfg(2, 1, 4);
    let v = |i: u8| [i, 3, 3, 255];
    let input = [
        smp(0, v(0), D, 0),
        smp(1, v(1), D, 0),
        smp(2, v(2), D, 0),
        smp(3, v(0), D, 0),
    ];
    let (_, st) = run(&c, &opts(MergeMode::PerSample, 2, true, false), &input);
    assert_eq!((st.blend_ops, st.merged_in_flight, st.merged_buffer), (3, 1, 1));
    assert_eq!(
        timing(&c, &opts(MergeMode::PerSample, 2, true, false), &input),
        vec![(4, 0), (4, 3), (5, 1), (6, 2)]
    );
    let (_, st) = run(&c, &opts(MergeMode::PerSample, 0, true, false), &input);
    assert_eq!((st.blend_ops, st.merged_in_flight, st.merged_buffer), (3, 1, 0));
}

#[test]
fn arrival_is_at_most_p_per_cycle() {
    // P = 2, L = 1, B = 2, D = 4; stream a, b, a2 (= a), c.
    // Cycle 0: only a, b arrive → a issues (exit 4). Cycle 1: a2, c arrive → [b, a2 | c]:
    // b issues (exit 5), a2 ≠ b waits, c waits. Cycle 2: a2 issues (exit 6). Cycle 3: c
    // (exit 7) → 4 ops, 8 cycles.
    let c = cfg(2, 1, 4);
    let v = |i: u8| [i, 9, 9, 255];
    let input = [
        smp(0, v(0), D, 0),
        smp(1, v(1), D, 0),
        smp(2, v(0), D, 0),
        smp(3, v(2), D, 0),
    ];
    let o = opts(MergeMode::PerSample, 2, false, false);
    let (_, st) = run(&c, &o, &input);
    assert_eq!(
        (st.blend_ops, st.busy_cycles, st.cycles, st.merged_samples),
        (4, 4, 8, 0)
    );
    // With the in-flight comparator, a2 matches a (issued in cycle 0, in the pipeline until
    // cycle 4) in cycle 1 and leaves with it in cycle 4; c issues in cycle 2 (exit 6).
    let o = opts(MergeMode::PerSample, 2, true, false);
    let (_, st) = run(&c, &o, &input);
    assert_eq!(
        (st.blend_ops, st.busy_cycles, st.cycles, st.merged_in_flight),
        (3, 3, 7, 1)
    );
    assert_eq!(timing(&c, &o, &input), vec![(4, 0), (4, 2), (5, 1), (6, 3)]);
}

#[test]
fn empty_input_and_bad_parameters() {
    let c = cfg(4, 2, 4);
    let (out, st) = run(&c, &BlendOpts::default(), &[]);
    assert!(out.is_empty());
    assert_eq!(st, BlendStats::default());
    // Invalid parameters: try_run names the field; run clamps and still terminates.
    let mut bad = c.clone();
    bad.blend_lanes = 0;
    bad.blend_latency = 0;
    assert_eq!(
        try_run(&bad, &BlendOpts::default(), &[]).unwrap_err().field,
        "blend_lanes"
    );
    let e = try_run(&c, &opts(MergeMode::Off, 5000, false, false), &[]).unwrap_err();
    assert_eq!(e.field, "input_buffer");
    let input: Vec<_> = (0..5).map(|i| smp(i, A, D, 0)).collect();
    let (out, st) = run(&bad, &opts(MergeMode::Off, usize::MAX, false, false), &input);
    assert_eq!(out.len(), 5);
    // Clamped to L = 1, P = 4, D = 1: 5 issue cycles, last exit 4 + 1 → 6 cycles.
    assert_eq!((st.busy_cycles, st.cycles), (5, 6));
}

#[test]
fn stats_add_sums_every_field() {
    let a = BlendStats {
        cycles: 1,
        busy_cycles: 2,
        blend_ops: 3,
        component_ops: 4,
        merged_components: 5,
        merged_samples: 6,
        merged_in_flight: 7,
        merged_buffer: 11,
        idle_lane_cycles: 8,
        gated_lane_cycles: 9,
        samples: 10,
    };
    let mut b = a;
    b.add(&a);
    assert_eq!(
        b,
        BlendStats {
            cycles: 2,
            busy_cycles: 4,
            blend_ops: 6,
            component_ops: 8,
            merged_components: 10,
            merged_samples: 12,
            merged_in_flight: 14,
            merged_buffer: 22,
            idle_lane_cycles: 16,
            gated_lane_cycles: 18,
            samples: 20,
        }
    );
}

// ---------------------------------------------------------------------------------------
// Property tests.

/// Streams with many repeats: a palette of 1..8 template samples (channels and states from
/// small alphabets), each sample a template, sometimes with one field changed (a src or dst
/// channel, or the state) so that near-equal samples (equal but for one component, or for
/// the state) are frequent. Positions are unique (a shuffle of 0..n, scaled) so outputs can be
/// compared as a map.
fn stream() -> impl Strategy<Value = Vec<BlendSample>> {
    let ch = || prop::sample::select(vec![0u8, 1, 128, 254, 255]);
    let state = || prop::sample::select(vec![0u8, 1, 2, 3, 4]);
    let template = (prop::array::uniform4(ch()), prop::array::uniform4(ch()), state());
    let palette = prop::collection::vec(template, 1..8);
    // Change: 0..4 src channel, 4..8 dst channel, 8 state, 9.. none (more likely).
    let sample = (0usize..8, 0usize..14, ch(), state());
    (palette, prop::collection::vec(sample, 0..60)).prop_flat_map(|(pal, picks)| {
        let n = picks.len();
        let v: Vec<(Rgba, Rgba, u8)> = picks
            .into_iter()
            .map(|(t, change, val, st)| {
                let (mut src, mut dst, mut state) = pal[t % pal.len()];
                match change {
                    0..=3 => src[change] = val,
                    4..=7 => dst[change - 4] = val,
                    8 => state = st,
                    _ => {}
                }
                (src, dst, state)
            })
            .collect();
        (Just(v), Just((0..n as u32).collect::<Vec<u32>>()).prop_shuffle()).prop_map(|(v, perm)| {
            v.into_iter()
                .zip(perm)
                .map(|((src, dst, state), p)| smp(p * 3 + 1, src, dst, state))
                .collect()
        })
    })
}

fn params() -> impl Strategy<Value = (Config, BlendOpts)> {
    let mode = prop::sample::select(vec![MergeMode::Off, MergeMode::PerSample, MergeMode::PerComponent]);
    (
        1u32..=4,
        0u32..=4,
        1u32..=6,
        mode,
        0usize..=6,
        any::<bool>(),
        any::<bool>(),
    )
        .prop_map(|(l, extra, d, m, b, f, g)| (cfg(l + extra, l, d), opts(m, b, f, g)))
}

fn as_map(out: &[(u32, Rgba)]) -> BTreeMap<u32, Rgba> {
    out.iter().copied().collect()
}

proptest! {
    #![proptest_config(ProptestConfig { cases: 256, ..ProptestConfig::default() })]

    #[test]
    fn merged_equals_unmerged_and_direct(input in stream(), (c, o) in params()) {
        let direct: BTreeMap<u32, Rgba> = input.iter().map(|s| (s.pos, blend(s.src, s.dst, s.state))).collect();
        let (out, st) = run(&c, &o, &input);
        let (off, st_off) = run(&c, &opts(MergeMode::Off, o.input_buffer, false, false), &input);
        prop_assert_eq!(out.len(), input.len());
        prop_assert_eq!(&as_map(&out), &direct);
        prop_assert_eq!(&as_map(&off), &direct);
        // Unmerged order is input order.
        prop_assert_eq!(off.iter().map(|p| p.0).collect::<Vec<_>>(), input.iter().map(|s| s.pos).collect::<Vec<_>>());
        prop_assert!(st.cycles <= st_off.cycles);

        // Off by hand: ⌈n/L⌉ issue cycles, + D.
        let (n, l, d) = (input.len() as u64, c.blend_lanes as u64, c.blend_latency as u64);
        let busy = n.div_ceil(l);
        prop_assert_eq!(st_off.busy_cycles, busy);
        prop_assert_eq!(st_off.cycles, if n == 0 { 0 } else { busy + d });
        prop_assert_eq!((st_off.blend_ops, st_off.merged_samples, st_off.merged_in_flight), (n, 0, 0));

        // Counter identities.
        prop_assert_eq!(st.samples, n);
        prop_assert_eq!(st.blend_ops + st.merged_samples + st.merged_in_flight, n);
        prop_assert_eq!(st.idle_lane_cycles, st.busy_cycles * l - st.blend_ops);
        prop_assert_eq!(st.gated_lane_cycles, if o.gate_idle_lanes { st.idle_lane_cycles } else { 0 });
        let gated = if o.gate_idle_lanes { st.merged_components } else { 0 };
        prop_assert_eq!(st.component_ops, 4 * st.blend_ops - gated);
        if o.merge != MergeMode::PerComponent {
            prop_assert_eq!(st.merged_components, 0);
        }
        if o.merge == MergeMode::Off || !o.match_in_flight {
            prop_assert_eq!(st.merged_in_flight, 0);
        }
        prop_assert!(st.merged_buffer <= st.merged_samples + st.merged_in_flight);
        if o.merge == MergeMode::Off || o.input_buffer == 0 {
            prop_assert_eq!(st.merged_buffer, 0);
        }
        prop_assert_eq!(st_off.merged_buffer, 0);

        // Timing: sorted by (cycle, index); nothing before the latency; cycles = last + 1.
        let (timed, _) = run_timed(&c, &o, &input);
        for w in timed.windows(2) {
            prop_assert!((w[0].cycle, w[0].index) < (w[1].cycle, w[1].index));
        }
        prop_assert!(timed.iter().all(|t| t.cycle >= d && t.pos == input[t.index].pos));
        prop_assert_eq!(st.cycles, timed.last().map_or(0, |t| t.cycle + 1));
    }

    /// A pool holding the whole stream with enough lanes: everything issues in cycle 0, so
    /// the lane count is the number of distinct samples (PerSample), or of samples not fully
    /// covered by earlier issued samples' component keys (PerComponent) — counted here with
    /// plain sets, independently of the lane walk.
    #[test]
    fn whole_stream_pool_counts_distinct(input in stream(), per_comp in any::<bool>(), gate in any::<bool>()) {
        let c = cfg(64, 64, 3);
        let mode = if per_comp { MergeMode::PerComponent } else { MergeMode::PerSample };
        let (out, st) = run(&c, &opts(mode, 0, true, gate), &input);
        let mut ops = 0u64;
        let mut merged_comps = 0u64;
        if per_comp {
            let mut seen: [HashSet<[u8; 4]>; 4] = Default::default();
            for s in &input {
                let hit = (0..4).filter(|&k| seen[k].contains(&component_key(s, k))).count() as u64;
                if hit < 4 {
                    ops += 1;
                    merged_comps += hit;
                    for (k, set) in seen.iter_mut().enumerate() {
                        set.insert(component_key(s, k));
                    }
                }
            }
        } else {
            ops = input.iter().map(|s| (s.src, s.dst, s.state)).collect::<HashSet<_>>().len() as u64;
        }
        prop_assert_eq!(st.blend_ops, ops);
        prop_assert_eq!(st.merged_components, merged_comps);
        prop_assert_eq!(st.merged_samples, input.len() as u64 - ops);
        prop_assert_eq!(st.merged_in_flight, 0);
        prop_assert_eq!(st.cycles, if input.is_empty() { 0 } else { 1 + 3 });
        // Every output in cycle 3, in input order.
        prop_assert_eq!(out.iter().map(|p| p.0).collect::<Vec<_>>(), input.iter().map(|s| s.pos).collect::<Vec<_>>());
    }
}

#[test]
fn blend_component_key_determines_the_channel() {
    // Exhaustive over a small alphabet: equal component keys ⇒ equal channel results (the
    // comparator's soundness for PerComponent merging).
    let vals = [0u8, 1, 2, 127, 128, 200, 254, 255];
    for state in 0..4u8 {
        for &s in &vals {
            for &d in &vals {
                for &sa in &vals {
                    for &other in &vals {
                        for c in 0..3 {
                            let mut src = [other; 4];
                            let mut dst = [other.wrapping_add(3); 4];
                            src[c] = s;
                            dst[c] = d;
                            src[3] = sa;
                            let a = blender::blend_component(src, dst, state, c);
                            let b = blender::blend_component([s, s, s, sa], [d, d, d, 0], state, c);
                            assert_eq!(a, b);
                        }
                    }
                }
            }
        }
    }
}
