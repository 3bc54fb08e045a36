//! Blender with sample-pool equality merge (seed 004), as a cycle model.
//!
//! Seed 004 (Arm, CN110276711B), claims 1–7, 9 and 19: a processing stage (here the blender)
//! takes samples from a *pool* larger than what its lanes can process per cycle; a comparator
//! finds pool samples whose result will be equal (equal data and equal control state, per
//! whole sample or per RGBA component), only the first of each group is processed, the
//! others' positions travel as sideband, and the output replicates the result to every
//! position. Pool samples may also match samples already in flight (claim 6), the pool may be
//! extended by an input buffer holding samples of several fragments (claims 7, 9), and
//! lanes left idle may be clock-gated (claim 19).
//!
//! ```text
//!  input stream ──(≤ P / cycle)──► window = [ pool: P entries | input buffer: B entries ]
//!                                      │ comparator (whole window vs this cycle's lane
//!                                      │ leaders, and vs the D pipeline stages)
//!                                      ▼
//!             ┌── lane 0 ─► [stage 1] … [stage D] ──┐   leader blended once
//!  issue ≤ L ─┤   …                                 ├─► replicate result to the leader's
//!             └── lane L−1 ► [stage 1] … [stage D] ─┘   and every sideband position
//!                 sideband: positions merged onto each lane op ─────────┘
//! ```
//!
//! **Blend.** [`blend`]: straight-alpha RGBA8, operation from `state & 3` (bits 7..2 are
//! reserved: ignored by the arithmetic, but compared as part of the control state):
//! 0 src-over `rgb = ⌊(s·sa + d·(255 − sa))/255⌉, a = ⌊(sa·255 + da·(255 − sa))/255⌉`,
//! 1 replace (`src`), 2 additive (`min(255, s + d)` per channel), 3 multiply (`⌊s·d/255⌉`).
//! `⌊v/255⌉` is exact round-to-nearest ([`div255`]; no ties exist since 255 is odd). Channel c
//! of the result depends only on `(src[c], dst[c], src[3], state)`: that is the per-component
//! comparison key ([`component_key`]).
//!
//! **One cycle** (cycle numbers from 0; parameters P = `blend_pool`, L = `blend_lanes`,
//! D = `blend_latency`, B = `input_buffer`):
//! 1. *Arrival*: up to P samples of the input stream enter the window (capacity P + B), in
//!    order. The window is oldest-first; its first P entries are the pool.
//! 2. *Compare and issue*, window entries oldest-first. An entry
//!    - merges **in flight** if `match_in_flight`, merging is on, and its whole key
//!      (src, dst, state) equals that of an op in the pipeline (issued in the last D cycles,
//!      including the op leaving this cycle); it is emitted with that op;
//!    - else merges **in the pool** if its whole key (PerSample) or each of its four
//!      component keys (PerComponent) equals that of an op issued earlier this cycle; it is
//!      emitted with this cycle's ops;
//!    - else, if it is in the pool and a lane is free, it is **issued** to the next lane
//!      (lane order = window order). In PerComponent mode, components whose key equals a
//!      component of an op issued earlier this cycle are *merged components*: with
//!      `gate_idle_lanes` that component unit is gated and the value copied;
//!    - else it stays (input-buffer entries never take a lane: they only merge).
//!
//!    With `MergeMode::Off` nothing merges: the first min(L, pool) entries issue in order.
//! 3. *Retire*: the ops issued D cycles ago leave the pipeline; their results are written to
//!    the leader's and every merged sample's position.
//!
//! In-flight matching compares whole samples in both merge modes: component results of
//! different ops leave the pipeline in different cycles, so a partial in-flight match would
//! need a holding register per component; a whole-sample match ties the output to one op.
//! `dst` is taken as given: the model does not forward one sample's result to a later sample
//! with the same `pos` (read-after-write ordering is the caller's business).
//!
//! An op issued in cycle c is emitted in cycle c + D. A stream of n ≥ 1 samples without merge
//! takes ⌈n / L⌉ issue cycles and ⌈n / L⌉ + D cycles in all.
//!
//! **Output order (contract).** Outputs are `(pos, colour)` sorted by emission cycle, and
//! within one cycle by the samples' input order ([`run_timed`] also gives the cycle and the
//! input index). Merging may therefore move a later sample ahead of earlier ones.

use crate::config::{Config, ConfigError};
use crate::counters::counters;
use crate::prim::Rgba;
use std::collections::VecDeque;

/// One sample entering the blender.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash)]
pub struct BlendSample {
    /// Destination position id (e.g. `output_merger` slot `(y·W + x)·C + j`).
    pub pos: u32,
    /// Source colour, straight alpha.
    pub src: Rgba,
    /// Destination colour read from the colour buffer.
    pub dst: Rgba,
    /// Blend control state id; the operation is `state & 3` (see [`blend`]).
    pub state: u8,
}

/// What the comparator considers equal.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Default)]
pub enum MergeMode {
    /// No comparison: every sample takes a lane (the conventional blender, seed fig. 4).
    #[default]
    Off,
    /// Whole samples: equal src, dst and state (seed figs. 5–8).
    PerSample,
    /// Each RGBA component separately (seed fig. 9); a sample whose four components all
    /// match needs no lane.
    PerComponent,
}

/// Options of the blender stage.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Default)]
pub struct BlendOpts {
    pub merge: MergeMode,
    /// Input-buffer entries B extending the comparison window beyond the pool.
    pub input_buffer: usize,
    /// Also compare with the ops in the D pipeline stages (seed fig. 6, claim 6).
    pub match_in_flight: bool,
    /// Clock-gate idle lanes and merged component units (seed fig. 9, claim 19).
    pub gate_idle_lanes: bool,
}

counters! {
    /// Counters of one run.
    #[derive(Clone, Copy, Debug, Default, PartialEq, Eq)]
    pub struct BlendStats {
        /// Cycles from the first arrival to the last emission, inclusive (0 for no input).
        pub cycles: u64,
        /// Cycles in which the window held at least one sample (compare/issue active).
        pub busy_cycles: u64,
        /// Lane uses (ops issued).
        pub blend_ops: u64,
        /// Component-unit activations: 4 per op, minus the merged components when gated.
        pub component_ops: u64,
        /// PerComponent: components of issued ops supplied by an earlier lane this cycle.
        pub merged_components: u64,
        /// Samples that merged onto an op issued in the same cycle (no lane).
        pub merged_samples: u64,
        /// Samples that merged onto an op already in the pipeline (no lane).
        pub merged_in_flight: u64,
        /// Σ over busy cycles of the lanes not issued to.
        pub idle_lane_cycles: u64,
        /// Idle lane-cycles that were clock-gated (`gate_idle_lanes`).
        pub gated_lane_cycles: u64,
        /// Samples in (= outputs out = blend_ops + merged_samples + merged_in_flight).
        pub samples: u64,
    }
}

/// One output with its timing.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct BlendOut {
    /// Cycle in which the result is written.
    pub cycle: u64,
    /// Index of the sample in the input stream.
    pub index: usize,
    pub pos: u32,
    pub colour: Rgba,
}

/// `v / 255` rounded to nearest, exact for `v ≤ 255·255` (the hardware form: two adds and
/// shifts).
#[inline]
pub fn div255(v: u32) -> u8 {
    let t = v + 128;
    ((t + (t >> 8)) >> 8) as u8
}

/// Channel `c` (0..4 = R, G, B, A) of [`blend`]. Depends only on [`component_key`].
#[inline]
pub fn blend_component(src: Rgba, dst: Rgba, state: u8, c: usize) -> u8 {
    let (s, d, sa) = (src[c] as u32, dst[c] as u32, src[3] as u32);
    match state & 3 {
        0 if c < 3 => div255(s * sa + d * (255 - sa)),
        0 => div255(sa * 255 + d * (255 - sa)),
        1 => s as u8,
        2 => (s + d).min(255) as u8,
        _ => div255(s * d),
    }
}

/// Blend `src` over `dst` with the operation of `state` (module header).
pub fn blend(src: Rgba, dst: Rgba, state: u8) -> Rgba {
    [0, 1, 2, 3].map(|c| blend_component(src, dst, state, c))
}

/// Whole-sample comparison key: src, dst, state.
#[inline]
pub fn sample_key(s: &BlendSample) -> [u8; 9] {
    let (a, b) = (s.src, s.dst);
    [a[0], a[1], a[2], a[3], b[0], b[1], b[2], b[3], s.state]
}

/// Per-component comparison key of channel `c`: `(src[c], dst[c], src[3], state)`.
#[inline]
pub fn component_key(s: &BlendSample, c: usize) -> [u8; 4] {
    [s.src[c], s.dst[c], s.src[3], s.state]
}

/// An op in a lane.
struct Op {
    key: [u8; 9],
    ckeys: [[u8; 4]; 4],
    result: Rgba,
    exit: u64,
}

/// Check the blender parameters: `cfg`'s blend fields (via [`Config::validate`]) and the
/// input buffer (at most 4096 entries).
pub fn validate(cfg: &Config, opts: &BlendOpts) -> Result<(), ConfigError> {
    cfg.validate()?;
    if opts.input_buffer > 4096 {
        return Err(ConfigError {
            field: "input_buffer",
            msg: format!("{} exceeds 4096", opts.input_buffer),
        });
    }
    Ok(())
}

/// [`run`] after [`validate`].
pub fn try_run(
    cfg: &Config,
    opts: &BlendOpts,
    input: &[BlendSample],
) -> Result<(Vec<(u32, Rgba)>, BlendStats), ConfigError> {
    validate(cfg, opts)?;
    Ok(run(cfg, opts, input))
}

/// Run the blender over a stream; outputs `(pos, colour)` in the contract order (module
/// header). Out-of-range blend parameters are clamped (L ≥ 1, P ≥ L, D ≥ 1), so this never
/// panics or hangs; use [`try_run`] to have them rejected instead.
pub fn run(cfg: &Config, opts: &BlendOpts, input: &[BlendSample]) -> (Vec<(u32, Rgba)>, BlendStats) {
    let (outs, st) = run_timed(cfg, opts, input);
    (outs.into_iter().map(|o| (o.pos, o.colour)).collect(), st)
}

/// [`run`] with the emission cycle and input index of every output.
pub fn run_timed(cfg: &Config, opts: &BlendOpts, input: &[BlendSample]) -> (Vec<BlendOut>, BlendStats) {
    let lanes = cfg.blend_lanes.max(1) as usize;
    let pool = (cfg.blend_pool as usize).max(lanes);
    let latency = cfg.blend_latency.max(1) as u64;
    let cap = pool.saturating_add(opts.input_buffer);
    let n = input.len();
    let mut st = BlendStats {
        samples: n as u64,
        ..BlendStats::default()
    };
    // Per input sample: (emission cycle, colour), filled when it is resolved.
    let mut done: Vec<(u64, Rgba)> = vec![(0, [0; 4]); n];
    let mut window: VecDeque<usize> = VecDeque::new();
    let mut keep: VecDeque<usize> = VecDeque::new();
    let mut in_flight: VecDeque<Op> = VecDeque::new();
    let mut issued: Vec<Op> = Vec::with_capacity(lanes);
    let mut next = 0usize;
    let mut cycle = 0u64;
    let merging = opts.merge != MergeMode::Off;
    while next < n || !window.is_empty() || !in_flight.is_empty() {
        // 1. Arrival.
        let k = pool.min(cap - window.len()).min(n - next);
        window.extend(next..next + k);
        next += k;

        // 2. Compare and issue.
        if !window.is_empty() {
            st.busy_cycles += 1;
            let pool_len = pool.min(window.len());
            issued.clear();
            keep.clear();
            for (w, &i) in window.iter().enumerate() {
                let smp = &input[i];
                let key = sample_key(smp);
                let exit = cycle + latency;
                if merging && opts.match_in_flight {
                    if let Some(op) = in_flight.iter().find(|op| op.key == key) {
                        done[i] = (op.exit, op.result);
                        st.merged_in_flight += 1;
                        continue;
                    }
                }
                let ckeys = [0, 1, 2, 3].map(|c| component_key(smp, c));
                // Sources among this cycle's ops: per component (PerComponent) or whole.
                let mut src: [Option<usize>; 4] = [None; 4];
                match opts.merge {
                    MergeMode::Off => {}
                    MergeMode::PerSample => {
                        if let Some(j) = issued.iter().position(|op| op.key == key) {
                            src = [Some(j); 4];
                        }
                    }
                    MergeMode::PerComponent => {
                        for c in 0..4 {
                            src[c] = issued.iter().position(|op| op.ckeys[c] == ckeys[c]);
                        }
                    }
                }
                if src.iter().all(|s| s.is_some()) {
                    done[i] = (exit, [0, 1, 2, 3].map(|c| issued[src[c].unwrap_or(0)].result[c]));
                    st.merged_samples += 1;
                } else if w < pool_len && issued.len() < lanes {
                    let mut result = [0u8; 4];
                    let mut merged = 0u64;
                    for c in 0..4 {
                        result[c] = match src[c] {
                            Some(j) => {
                                merged += 1;
                                issued[j].result[c]
                            }
                            None => blend_component(smp.src, smp.dst, smp.state, c),
                        };
                    }
                    st.blend_ops += 1;
                    st.merged_components += merged;
                    st.component_ops += 4 - if opts.gate_idle_lanes { merged } else { 0 };
                    done[i] = (exit, result);
                    issued.push(Op {
                        key,
                        ckeys,
                        result,
                        exit,
                    });
                } else {
                    keep.push_back(i);
                }
            }
            let idle = (lanes - issued.len()) as u64;
            st.idle_lane_cycles += idle;
            if opts.gate_idle_lanes {
                st.gated_lane_cycles += idle;
            }
            std::mem::swap(&mut window, &mut keep);
            in_flight.extend(issued.drain(..));
        }

        // 3. Retire the ops issued D cycles ago.
        while in_flight.front().is_some_and(|op| op.exit <= cycle) {
            in_flight.pop_front();
        }
        cycle += 1;
    }
    let mut outs: Vec<BlendOut> = done
        .iter()
        .enumerate()
        .map(|(i, &(c, colour))| BlendOut {
            cycle: c,
            index: i,
            pos: input[i].pos,
            colour,
        })
        .collect();
    outs.sort_by_key(|o| (o.cycle, o.index));
    st.cycles = outs.last().map_or(0, |o| o.cycle + 1);
    (outs, st)
}
