//! The blender's port-level cycle model (`BlenderCycle`, layer 3) against its transaction model
//! (`blender::run`, layer 2): the same (pos, colour) set for every stimulus and back-pressure,
//! the counters' conservation, and, where the contract says the windows are the same (P = L,
//! a full fragment every cycle, no back-pressure), every counter and every output's cycle.

use proptest::prelude::*;
use std::collections::BTreeMap;
use tilerast_golden::blender::{
    blend, pack_rgba, run, run_timed, BlendOpts, BlendSample, BlenderCycle, BlenderGeom, MergeMode,
};
use tilerast_golden::cycle::drive;
use tilerast_golden::streams::BlendFrag;
use tilerast_golden::Config;

fn cfg(pool: u32, lanes: u32, latency: u32) -> Config {
    let mut c = Config::preset("default").unwrap();
    c.blend_pool = pool;
    c.blend_lanes = lanes;
    c.blend_latency = latency;
    c.validate().unwrap();
    c
}

/// Samples from a small alphabet of keys (so that merges happen), pos = index.
fn samples(keys: &[(u8, u8)]) -> Vec<BlendSample> {
    keys.iter()
        .enumerate()
        .map(|(i, &(k, st))| BlendSample {
            pos: i as u32,
            src: [k.wrapping_mul(37), k & 3, 200, if k & 4 == 0 { 128 } else { 255 }],
            dst: [10, k >> 2, 77, 255],
            state: st & 3,
        })
        .collect()
}

/// Fragments of the samples in order: `sizes[i]` (1..=P) samples each, in lanes from 0.
fn fragments(s: &[BlendSample], p: usize, sizes: &[usize]) -> Vec<BlendFrag> {
    let mut out = Vec::new();
    let mut i = 0;
    let mut n = 0;
    while i < s.len() {
        let k = sizes.get(n).copied().unwrap_or(p).clamp(1, p).min(s.len() - i);
        n += 1;
        let mut f = BlendFrag::default();
        for (l, smp) in s[i..i + k].iter().enumerate() {
            f.lane_valid |= 1 << l;
            f.pos[l] = smp.pos;
            f.src[l] = pack_rgba(smp.src);
            f.dst[l] = pack_rgba(smp.dst);
            f.state[l] = smp.state;
        }
        out.push(f);
        i += k;
    }
    out
}

fn opts(merge: u8, mif: bool, gate: bool) -> BlendOpts {
    BlendOpts {
        merge: [MergeMode::Off, MergeMode::PerSample, MergeMode::PerComponent][merge as usize % 3],
        input_buffer: 0,
        match_in_flight: mif,
        gate_idle_lanes: gate,
    }
}

/// [`opts`] with an input buffer of `b` entries.
fn opts_b(merge: u8, mif: bool, gate: bool, b: usize) -> BlendOpts {
    BlendOpts {
        input_buffer: b,
        ..opts(merge, mif, gate)
    }
}

/// Run the cycle model; returns (cycle, pos, colour) of every output transfer and the model.
fn run_cycle(
    c: &Config,
    o: &BlendOpts,
    frags: &[BlendFrag],
    n: usize,
    gap: impl Fn(u64) -> bool,
    ready: impl Fn(u64) -> bool,
) -> (Vec<(u64, u32, u32)>, BlenderCycle) {
    let mut m = BlenderCycle::new(c, o);
    let want = n;
    let (_, trace) = drive(
        &mut m,
        frags,
        gap,
        ready,
        |outs| outs.iter().map(|b| b.lane_valid.count_ones() as usize).sum::<usize>() >= want,
        100_000,
    );
    let mut outs = Vec::new();
    for (cyc, t) in trace.iter().enumerate() {
        if t.out_valid && t.out_ready {
            for l in 0..4 {
                if t.output.lane_valid >> l & 1 == 1 {
                    outs.push((cyc as u64, t.output.pos[l], t.output.colour[l]));
                }
            }
        }
    }
    (outs, m)
}

proptest! {
    #![proptest_config(ProptestConfig::with_cases(300))]

    /// Any parameters (input buffer B ≤ P included), fragment sizes, gaps and back-pressure:
    /// every sample leaves exactly once with its blend, as in the transaction model with the
    /// same options; the counters add up.
    #[test]
    fn same_outputs_as_transaction_model(
        keys in prop::collection::vec((0u8..12, 0u8..4), 1..60),
        p in 1usize..=4, l_sel in 0usize..4, d in 4u32..7, b_sel in 0usize..7,
        merge in 0u8..3, mif: bool, gate: bool,
        sizes in prop::collection::vec(1usize..=4, 0..60),
        gaps in prop::collection::vec(any::<bool>(), 64),
        readys in prop::collection::vec(any::<bool>(), 64),
    ) {
        let l = 1 + l_sel % p;
        let c = cfg(p as u32, l as u32, d);
        let o = opts_b(merge, mif, gate, b_sel % (2 * (p - l) + 1));
        let s = samples(&keys);
        let frags = fragments(&s, p, &sizes);
        let (outs, m) = run_cycle(&c, &o, &frags, s.len(),
            |t| gaps[t as usize % 64], |t| readys[t as usize % 64] || t % 7 == 0);
        let mut got: Vec<(u32, u32)> = outs.iter().map(|&(_, pos, col)| (pos, col)).collect();
        got.sort();
        let (gold, gst) = run(&c, &o, &s);
        let mut want: Vec<(u32, u32)> = gold.iter().map(|&(pos, col)| (pos, pack_rgba(col))).collect();
        want.sort();
        prop_assert_eq!(&got, &want);
        for &(pos, col) in &got {
            let smp = s[pos as usize];
            prop_assert_eq!(col, pack_rgba(blend(smp.src, smp.dst, smp.state)));
        }
        let st = m.stats();
        prop_assert_eq!(st.samples, s.len() as u64);
        prop_assert_eq!(st.blend_ops + st.merged_samples + st.merged_in_flight, st.samples);
        prop_assert_eq!(gst.blend_ops + gst.merged_samples + gst.merged_in_flight, gst.samples);
        prop_assert!(st.component_ops <= 4 * st.blend_ops);
        prop_assert!(st.merged_buffer <= st.merged_samples + st.merged_in_flight);
        if o.input_buffer == 0 {
            prop_assert_eq!(st.merged_buffer, 0);
        }
        if o.merge == MergeMode::Off {
            prop_assert_eq!((st.blend_ops, st.merged_samples, st.merged_in_flight), (gst.blend_ops, 0, 0));
            prop_assert_eq!(st.merged_buffer, 0);
            prop_assert_eq!((st.merged_components, st.component_ops), (0, 4 * st.blend_ops));
        }
    }

    /// P = L, a full fragment every cycle, no back-pressure: the windows are the transaction
    /// model's, so every counter but `cycles` is equal; outputs leave one cycle later, an
    /// in-flight merge D + 1 cycles after its arrival.
    #[test]
    fn same_counters_and_cycles_when_windows_agree(
        keys in prop::collection::vec((0u8..10, 0u8..4), 1..80),
        p in 1usize..=4, d in 4u32..7, merge in 0u8..3, mif: bool, gate: bool, b in 0usize..5,
    ) {
        let c = cfg(p as u32, p as u32, d);
        let o = opts(merge, mif, gate);
        let s = samples(&keys);
        let frags = fragments(&s, p, &[]);
        let (outs, m) = run_cycle(&c, &o, &frags, s.len(), |_| false, |_| true);
        let (gold, gst) = run_timed(&c, &o, &s);
        prop_assert_eq!(run_timed(&c, &opts_b(merge, mif, gate, b), &s), (gold.clone(), gst));
        let mut st = m.stats();
        st.cycles = gst.cycles;
        prop_assert_eq!(st, gst);
        let arrival = |i: usize| (i / p) as u64;
        let hw: BTreeMap<u32, u64> = outs.iter().map(|&(cyc, pos, _)| (pos, cyc)).collect();
        // Which samples merged in flight: those whose golden cycle is not arrival + D.
        for g in &gold {
            let want = if g.cycle == arrival(g.index) + d as u64 {
                g.cycle + 1
            } else {
                arrival(g.index) + d as u64 + 1
            };
            prop_assert_eq!(hw[&g.pos], want, "sample {}", g.index);
        }
    }
}

#[test]
fn geometry_refuses_what_the_block_cannot_build() {
    let o = opts(1, true, true);
    assert!(BlenderGeom::new(&cfg(4, 2, 4), &o).is_ok());
    assert!(BlenderGeom::new(&cfg(5, 2, 4), &o).unwrap_err().contains("blend_pool"));
    assert!(BlenderGeom::new(&cfg(4, 2, 3), &o)
        .unwrap_err()
        .contains("blend_latency"));
    for b in 0..=4 {
        assert!(BlenderGeom::new(&cfg(4, 2, 4), &BlendOpts { input_buffer: b, ..o }).is_ok());
    }
    let e = BlenderGeom::new(&cfg(4, 2, 4), &BlendOpts { input_buffer: 5, ..o }).unwrap_err();
    assert!(e.contains("input_buffer") && e.contains("B ≤ 4"), "{e}");
    let e = BlenderGeom::new(&cfg(2, 2, 4), &BlendOpts { input_buffer: 1, ..o }).unwrap_err();
    assert!(e.contains("P − L = 0") && e.contains("B ≤ 0"), "{e}");
    // Buffer slots fill the waiting columns from the last: B = 3 at P = 4, L = 2 gives column
    // 3 two buffer slots, column 2 one, columns 0 and 1 none.
    let g = BlenderGeom::new(&cfg(4, 2, 4), &BlendOpts { input_buffer: 3, ..o }).unwrap();
    assert_eq!((0..4).map(|j| g.depth(j)).collect::<Vec<_>>(), vec![1, 1, 2, 3]);
    let g = BlenderGeom::new(&cfg(3, 1, 4), &BlendOpts { input_buffer: 3, ..o }).unwrap();
    assert_eq!((0..4).map(|j| g.depth(j)).collect::<Vec<_>>(), vec![1, 2, 3, 0]);
}

/// The input buffer by hand (P = 4, L = 2, D = 4, PerSample, no in-flight match): fragment 0
/// = a b c d, fragment 1 = e f e f. B = 2 (one buffer slot in columns 2 and 3): cycle 0 takes
/// fragment 0; cycle 1 issues a, b while c, d wait, and every column has room (columns 0, 1
/// certainly drain, 2 and 3 have an empty buffer slot), so fragment 1 is taken: e, f into pool
/// slots 0, 1, the second e, f into the buffer slots of columns 2, 3. Cycle 2: e, f issue, c,
/// d wait, and the buffered e, f merge onto them through the batch slots 2, 3 that c, d leave
/// free; columns 2, 3 are full: not ready. Cycle 3: c, d issue. B = 4 (two buffer slots in
/// columns 2 and 3): still ready in cycle 2. B = 0: fragment 1 waits until c, d issue.
#[test]
fn hand_worked_input_buffer() {
    let c = cfg(4, 2, 4);
    let s = samples(&[(1, 0), (2, 1), (3, 2), (4, 3), (5, 0), (6, 1), (5, 0), (6, 1)]);
    let frags = fragments(&s, 4, &[]);
    let run = |b: usize| {
        let mut m = BlenderCycle::new(&c, &opts_b(1, false, true, b));
        let (_, trace) = drive(&mut m, &frags, |_| false, |_| true, |_| false, 10);
        let ready: Vec<bool> = trace.iter().map(|t| t.in_ready).collect();
        let out: Vec<(usize, u8, [u32; 4])> = trace
            .iter()
            .enumerate()
            .filter(|(_, t)| t.out_valid)
            .map(|(c, t)| (c, t.output.lane_valid, t.output.pos))
            .collect();
        (ready, out, m.stats())
    };
    let (ready, out, st) = run(2);
    assert_eq!(&ready[..4], &[true, true, false, true]);
    assert_eq!(
        out,
        vec![
            (5, 0b0011, [0, 1, 0, 0]),
            (6, 0b1111, [4, 5, 6, 7]),
            (7, 0b1100, [0, 0, 2, 3])
        ]
    );
    assert_eq!(
        (st.blend_ops, st.merged_samples, st.merged_buffer, st.busy_cycles),
        (6, 2, 2, 3)
    );
    let (ready4, out4, st4) = run(4);
    assert_eq!(&ready4[..4], &[true, true, true, true]);
    assert_eq!((out4, st4), (out, st));
    let (ready, out, st) = run(0);
    assert_eq!(&ready[..4], &[true, false, true, false]);
    let lv: Vec<(usize, u8)> = out.iter().map(|o| (o.0, o.1)).collect();
    assert_eq!(lv, vec![(5, 0b0011), (6, 0b1100), (7, 0b1111)]);
    assert_eq!(
        (st.blend_ops, st.merged_samples, st.merged_buffer, st.busy_cycles),
        (6, 2, 0, 3)
    );
}

/// A hand-worked case on the default parameters (P = 4, L = 2, D = 4), PerSample with
/// in-flight match: fragment 0 = a a b c, fragment 1 = a d d d.
#[test]
fn hand_worked_default() {
    let c = cfg(4, 2, 4);
    let o = opts(1, true, true);
    let s = samples(&[(1, 0), (1, 0), (2, 1), (3, 2), (1, 0), (4, 3), (4, 3), (4, 3)]);
    let frags = fragments(&s, 4, &[]);
    let mut m = BlenderCycle::new(&c, &o);
    let (_, trace) = drive(&mut m, &frags, |_| false, |_| true, |_| false, 14);
    let ready: Vec<bool> = trace.iter().map(|t| t.in_ready).collect();
    // Cycle 0 takes fragment 0. Cycle 1 compares a a b c: a issues (lane 0), a merges, b issues
    // (lane 1), c stays; 3 > L entries, so not ready. Cycle 2: c issues, pool drains: ready,
    // fragment 1 taken. Cycle 3 (4 entries, not ready): a merges in flight (issued in cycle 1), d issues, d d merge.
    assert_eq!(&ready[..4], &[true, false, true, false]);
    let out: Vec<(usize, u8)> = trace
        .iter()
        .enumerate()
        .filter(|(_, t)| t.out_valid)
        .map(|(c, t)| (c, t.output.lane_valid))
        .collect();
    assert_eq!(out, vec![(5, 0b0111), (6, 0b1000), (7, 0b1111)]);
    let st = m.stats();
    assert_eq!(
        (
            st.blend_ops,
            st.merged_samples,
            st.merged_in_flight,
            st.busy_cycles,
            st.idle_lane_cycles
        ),
        (4, 3, 1, 3, 2)
    );
}
