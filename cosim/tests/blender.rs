//! Verilator co-simulation of the blender block alone (`rtl-out/tilerast_blender_default.v`,
//! the pipeline's options for `default`: PerSample, gating, no in-flight match; and
//! `tilerast_blender_full.v`, the same with the in-flight match, as `full` builds it) against
//! its cycle model `BlenderCycle`, every port on every cycle (harness:
//! `tilerast_cosim::blocks`). Stimulus:
//! `stim::blend_frags` (small key alphabet: merges in the pool and in flight, all four
//! operations), input gaps with junk payloads, random ready with long stalls, two flushes;
//! 60 000 cycles. Plus: the planted bug of `cosim/build/mutation.rs` (no rounding term in
//! `⌊v/255⌉`) is caught at the cycle and slot predicted from the model, and a model broken at
//! one cycle is caught there, on that port. And the variants the pipeline does not build
//! (`tilerast_hw::BLOCK_VARIANTS`): PerComponent merging (`default_comp`) and an input buffer
//! of B = 4 (`default_buf`), each against the cycle model with its options, every port on
//! every cycle, with the merges that only they make asserted.

use std::cell::RefCell;
use std::collections::HashMap;
use std::rc::Rc;
use tilerast_cosim::blocks::{cosim_block, BlockRun};
use tilerast_golden::blender::{
    pack_rgba, pipeline_blend, unpack_rgba, BlendOpts, BlendStats, BlenderCycle, BlenderPorts,
};
use tilerast_golden::cycle::{CycleModel, ExtraOut};
use tilerast_golden::streams::{BlendBeat, BlendFrag};
use tilerast_golden::{Config, Rgba};
use tilerast_hw::blender::{BUF_OPTS, COMP_OPTS};

mod common;
use common::{clean, expect_caught, stim, Perturb, Recorder};
use tilerast_verif::stim::{blend_frags, blend_frags_buffered};

#[test]
fn rtl_matches_cycle_model_default() {
    let cfg = Config::preset("default").unwrap();
    let opts = pipeline_blend(&cfg);
    let (r, st) = variant(&cfg, "default", &opts, &blend_frags(0xb1e, 20_000), 0xb1e_defa, 60_000);
    let o = &r.outputs;
    let slots: usize = o.iter().map(|b| b.lane_valid.count_ones() as usize).sum();
    println!("  {} beats out, {slots} positions", o.len());
    assert!(o.iter().any(|b| b.lane_valid == 15), "no full batch");
    assert!(o.iter().any(|b| b.lane_valid != 15), "no partial batch");
    assert!(slots > 10_000, "only {slots} positions out");
    assert!(st.merged_samples > 1_000, "{st:?}");
    assert!(!opts.match_in_flight && st.merged_in_flight == 0, "{st:?}");
}

/// `full`'s blender: the pipeline's options with the in-flight match.
#[test]
fn rtl_matches_cycle_model_full_in_flight() {
    let cfg = Config::preset("full").unwrap();
    let opts = pipeline_blend(&cfg);
    assert!(
        opts.match_in_flight,
        "full no longer builds the in-flight match: {opts:?}"
    );
    let (r, st) = variant(&cfg, "full", &opts, &blend_frags(0xf1, 15_000), 0xf1, 40_000);
    assert!(r.outputs.len() > 5_000, "only {} beats out", r.outputs.len());
    assert!(st.merged_samples > 1_000 && st.merged_in_flight > 1_000, "{st:?}");
}

/// The mutant's arithmetic: `⌊v/255⌉` without the rounding term.
fn mutant_blend(src: Rgba, dst: Rgba, state: u8) -> Rgba {
    let d = |v: u32| ((v + (v >> 8)) >> 8) as u8;
    [0, 1, 2, 3].map(|c| {
        let (s, t, sa) = (src[c] as u32, dst[c] as u32, src[3] as u32);
        match state & 3 {
            0 if c < 3 => d(s * sa + t * (255 - sa)),
            0 => d(sa * 255 + t * (255 - sa)),
            1 => s as u8,
            2 => (s + t).min(255) as u8,
            _ => d(s * t),
        }
    })
}

/// Where the mutant first differs: run the model alone over the same stimulus (the
/// handshake lines and junk are the harness's; outputs are valid only after the inputs that
/// make them, so the model's output ports with the mutant arithmetic per position suffice).
fn predict(frags: &[BlendFrag], s: &tilerast_cosim::blocks::BlockStim) -> (u64, String, u64) {
    let cfg = Config::preset("default").unwrap();
    let rec = Recorder::new(BlenderCycle::new(&cfg, &pipeline_blend(&cfg)));
    let log = rec.log.clone();
    cosim_block::<BlenderPorts, _>("default", rec, frags, s)
        .unwrap_or_else(|m| panic!("the clean block differs:\n{m}"));
    let by_pos: HashMap<u32, (Rgba, Rgba, u8)> = frags
        .iter()
        .flat_map(|f| (0..4).map(move |l| (f.pos[l], (unpack_rgba(f.src[l]), unpack_rgba(f.dst[l]), f.state[l]))))
        .collect();
    for (cycle, (valid, b)) in log.borrow().iter().enumerate() {
        if !valid {
            continue;
        }
        for j in 0..4 {
            if b.lane_valid >> j & 1 == 1 {
                let (a, d, st) = by_pos[&b.pos[j]];
                let m = pack_rgba(mutant_blend(a, d, st)) as u64;
                if m != b.colour[j] as u64 {
                    return (cycle as u64, format!("out__colour_{j}"), m ^ b.colour[j] as u64);
                }
            }
        }
    }
    panic!("the mutant never differs on this stimulus");
}

#[test]
fn the_planted_bug_is_caught_at_the_predicted_cycle_and_slot() {
    let cfg = Config::preset("default").unwrap();
    let s = stim(0x5eed, 4_000);
    let frags = blend_frags(0x5eed, 2_000);
    let (at, port, flip) = predict(&frags, &s);
    println!("predicted: cycle {at}, {port}, bits {flip:#x}");
    let r = cosim_block::<BlenderPorts, _>(
        "default_mut",
        BlenderCycle::new(&cfg, &pipeline_blend(&cfg)),
        &frags,
        &s,
    );
    expect_caught(r, at, &port, flip);
}

#[test]
fn a_broken_model_is_caught_at_its_cycle_and_port() {
    let cfg = Config::preset("default").unwrap();
    let s = stim(17, 6_000);
    let m = Perturb::new(BlenderCycle::new(&cfg, &pipeline_blend(&cfg)), 4_321, |b| {
        b.pos[1] ^= 0x100
    });
    let r = cosim_block::<BlenderPorts, _>("default", m, &blend_frags(17, 3_000), &s);
    expect_caught(r, 4_321, "out__pos_1", 0x100);
}

/// The cycle model with its counters summed over the run (a flush resets them): (before the
/// last flush, since it).
struct Tap {
    m: BlenderCycle,
    st: Rc<RefCell<(BlendStats, BlendStats)>>,
}

impl ExtraOut for Tap {
    fn extra_out(&self) -> Vec<(&'static str, u64)> {
        self.m.extra_out()
    }
}

impl CycleModel for Tap {
    type In = BlendFrag;
    type Out = BlendBeat;
    fn out(&self) -> (bool, BlendBeat) {
        self.m.out()
    }
    fn in_ready(&self, out_ready: bool) -> bool {
        self.m.in_ready(out_ready)
    }
    fn clock(&mut self, in_valid: bool, inp: &BlendFrag, out_ready: bool, flush: bool) {
        let mut st = self.st.borrow_mut();
        if flush {
            let last = self.m.stats();
            st.0.add(&last);
        }
        self.m.clock(in_valid, inp, out_ready, flush);
        st.1 = self.m.stats();
    }
}

/// Block `name` (a preset's, or a variant of `default`'s, built with `opts`) against the cycle
/// model for `cfg` with `opts`, `cycles` long; the run and the model's counters over it.
fn variant(
    cfg: &Config,
    name: &str,
    opts: &BlendOpts,
    frags: &[BlendFrag],
    seed: u64,
    cycles: u64,
) -> (BlockRun<BlendBeat>, BlendStats) {
    let s = stim(seed, cycles);
    let st = Rc::new(RefCell::new((BlendStats::default(), BlendStats::default())));
    let tap = Tap {
        m: BlenderCycle::new(cfg, opts),
        st: st.clone(),
    };
    let r = clean(
        &format!("{name}/blender"),
        cosim_block::<BlenderPorts, _>(name, tap, frags, &s),
        &s,
    );
    let mut total = st.borrow().0;
    total.add(&st.borrow().1);
    println!("  {opts:?}: {total:?}");
    (r, total)
}

#[test]
fn per_component_variant_matches_cycle_model() {
    let cfg = Config::preset("default").unwrap();
    let (r, st) = variant(
        &cfg,
        "default_comp",
        &COMP_OPTS,
        &blend_frags(0xc0c0, 15_000),
        0xc0c0,
        40_000,
    );
    assert!(r.outputs.len() > 5_000, "only {} beats out", r.outputs.len());
    assert!(st.merged_components > 300, "{st:?}");
    assert!(st.merged_samples > 1_000 && st.merged_in_flight > 1_000, "{st:?}");
    assert!(st.component_ops < 4 * st.blend_ops, "{st:?}");
    assert_eq!(st.merged_buffer, 0, "{st:?}");
}

#[test]
fn input_buffer_variant_matches_cycle_model() {
    let cfg = Config::preset("default").unwrap();
    let (r, st) = variant(
        &cfg,
        "default_buf",
        &BUF_OPTS,
        &blend_frags_buffered(0xbf4, 15_000),
        0xbf4,
        40_000,
    );
    assert!(r.outputs.len() > 5_000, "only {} beats out", r.outputs.len());
    assert!(st.merged_buffer > 500, "{st:?}");
    assert!(st.merged_samples > 1_000 && st.merged_in_flight > 1_000, "{st:?}");
    assert_eq!(st.merged_components, 0, "{st:?}");
}
