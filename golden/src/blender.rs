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

/// Blender options used by the pipeline (`crate::pipeline`), the pixel back end and the frame
/// top for `cfg`, as the RTL builds them: whole-sample compare, gating, and the in-flight
/// match if the config asks for it (`Config::blend_match_in_flight`).
pub fn pipeline_blend(cfg: &Config) -> BlendOpts {
    BlendOpts {
        merge: MergeMode::PerSample,
        input_buffer: 0,
        match_in_flight: cfg.blend_match_in_flight,
        gate_idle_lanes: true,
    }
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
        /// Of `merged_samples + merged_in_flight`, the merges of input-buffer entries (window
        /// positions ≥ P; in the block, a buffer slot): what the buffer adds (0 when B = 0).
        pub merged_buffer: u64,
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

/// [`run`] with the emission cycle and input index of every output: the whole stream pushed
/// into a [`StreamBlender`], outputs sorted into the contract order.
pub fn run_timed(cfg: &Config, opts: &BlendOpts, input: &[BlendSample]) -> (Vec<BlendOut>, BlendStats) {
    let mut b = StreamBlender::new(cfg, opts);
    let mut outs: Vec<BlendOut> = Vec::with_capacity(input.len());
    for s in input {
        b.push(*s, |o| outs.push(o));
    }
    let st = b.finish(|o| outs.push(o));
    outs.sort_by_key(|o| (o.cycle, o.index));
    (outs, st)
}

/// The blender cycle model fed sample by sample (the pipeline streams the frame's blend
/// samples through it second tile by second tile). A cycle runs as soon as P samples wait
/// (or, at [`StreamBlender::finish`], whatever is left), so the cycles, outputs and
/// [`BlendStats`] are exactly those of [`run_timed`] over the concatenated stream; what is held
/// is the window (≤ P + B), the D pipeline stages and at most P waiting samples.
///
/// Outputs are handed to the callback when they are resolved, with their emission cycle and
/// input index; sort by `(cycle, index)` for the contract order. Resolution order differs from
/// emission order only when a sample merges onto an op already in flight.
pub struct StreamBlender {
    opts: BlendOpts,
    lanes: usize,
    pool: usize,
    latency: u64,
    cap: usize,
    st: BlendStats,
    /// Samples pushed but not yet arrived, with their input index.
    pending: VecDeque<(usize, BlendSample)>,
    window: VecDeque<(usize, BlendSample)>,
    keep: VecDeque<(usize, BlendSample)>,
    in_flight: VecDeque<Op>,
    issued: Vec<Op>,
    pushed: usize,
    cycle: u64,
    /// Largest emission cycle seen + 1.
    end: u64,
}

impl StreamBlender {
    /// An empty blender. Out-of-range parameters are clamped as in [`run`].
    pub fn new(cfg: &Config, opts: &BlendOpts) -> Self {
        let lanes = cfg.blend_lanes.max(1) as usize;
        let pool = (cfg.blend_pool as usize).max(lanes);
        StreamBlender {
            opts: *opts,
            lanes,
            pool,
            latency: cfg.blend_latency.max(1) as u64,
            cap: pool.saturating_add(opts.input_buffer),
            st: BlendStats::default(),
            pending: VecDeque::new(),
            window: VecDeque::new(),
            keep: VecDeque::new(),
            in_flight: VecDeque::new(),
            issued: Vec::with_capacity(lanes),
            pushed: 0,
            cycle: 0,
            end: 0,
        }
    }

    /// Feed the next sample of the stream; runs every cycle whose arrivals are now known.
    pub fn push(&mut self, s: BlendSample, mut out: impl FnMut(BlendOut)) {
        self.pending.push_back((self.pushed, s));
        self.pushed += 1;
        self.st.samples += 1;
        // A cycle's arrival takes min(P, room) ≤ P samples: with P waiting it is the same as
        // with the whole rest of the stream known.
        while self.pending.len() >= self.pool {
            self.cycle_once(&mut out);
        }
    }

    /// End of the stream: run the remaining cycles; returns the run's statistics.
    pub fn finish(mut self, mut out: impl FnMut(BlendOut)) -> BlendStats {
        while !self.pending.is_empty() || !self.window.is_empty() || !self.in_flight.is_empty() {
            self.cycle_once(&mut out);
        }
        self.st.cycles = self.end;
        self.st
    }

    /// Samples held right now (waiting, in the window, or merged onto ops in flight is not
    /// counted: those are already resolved).
    pub fn held(&self) -> usize {
        self.pending.len() + self.window.len()
    }

    fn resolve(&mut self, out: &mut impl FnMut(BlendOut), i: usize, pos: u32, cycle: u64, colour: Rgba) {
        self.end = self.end.max(cycle + 1);
        out(BlendOut {
            cycle,
            index: i,
            pos,
            colour,
        });
    }

    /// One cycle (module header): arrival, compare and issue, retire.
    fn cycle_once(&mut self, out: &mut impl FnMut(BlendOut)) {
        let (lanes, pool, cycle) = (self.lanes, self.pool, self.cycle);
        let merging = self.opts.merge != MergeMode::Off;
        // 1. Arrival.
        let k = pool.min(self.cap - self.window.len()).min(self.pending.len());
        let arrived = self.pending.drain(..k);
        self.window.extend(arrived);

        // 2. Compare and issue.
        if !self.window.is_empty() {
            self.st.busy_cycles += 1;
            let pool_len = pool.min(self.window.len());
            self.issued.clear();
            self.keep.clear();
            let window = std::mem::take(&mut self.window);
            for (w, &(i, smp)) in window.iter().enumerate() {
                let key = sample_key(&smp);
                let exit = cycle + self.latency;
                if merging && self.opts.match_in_flight {
                    if let Some(op) = self.in_flight.iter().find(|op| op.key == key) {
                        let (e, r) = (op.exit, op.result);
                        self.st.merged_in_flight += 1;
                        self.st.merged_buffer += (w >= pool) as u64;
                        self.resolve(out, i, smp.pos, e, r);
                        continue;
                    }
                }
                let ckeys = [0, 1, 2, 3].map(|c| component_key(&smp, c));
                // Sources among this cycle's ops: per component (PerComponent) or whole.
                let mut src: [Option<usize>; 4] = [None; 4];
                match self.opts.merge {
                    MergeMode::Off => {}
                    MergeMode::PerSample => {
                        if let Some(j) = self.issued.iter().position(|op| op.key == key) {
                            src = [Some(j); 4];
                        }
                    }
                    MergeMode::PerComponent => {
                        for c in 0..4 {
                            src[c] = self.issued.iter().position(|op| op.ckeys[c] == ckeys[c]);
                        }
                    }
                }
                if src.iter().all(|s| s.is_some()) {
                    let r = [0, 1, 2, 3].map(|c| self.issued[src[c].unwrap_or(0)].result[c]);
                    self.st.merged_samples += 1;
                    self.st.merged_buffer += (w >= pool) as u64;
                    self.resolve(out, i, smp.pos, exit, r);
                } else if w < pool_len && self.issued.len() < lanes {
                    let mut result = [0u8; 4];
                    let mut merged = 0u64;
                    for c in 0..4 {
                        result[c] = match src[c] {
                            Some(j) => {
                                merged += 1;
                                self.issued[j].result[c]
                            }
                            None => blend_component(smp.src, smp.dst, smp.state, c),
                        };
                    }
                    self.st.blend_ops += 1;
                    self.st.merged_components += merged;
                    self.st.component_ops += 4 - if self.opts.gate_idle_lanes { merged } else { 0 };
                    self.resolve(out, i, smp.pos, exit, result);
                    self.issued.push(Op {
                        key,
                        ckeys,
                        result,
                        exit,
                    });
                } else {
                    self.keep.push_back((i, smp));
                }
            }
            let idle = (lanes - self.issued.len()) as u64;
            self.st.idle_lane_cycles += idle;
            if self.opts.gate_idle_lanes {
                self.st.gated_lane_cycles += idle;
            }
            self.window = std::mem::take(&mut self.keep);
            self.keep = window;
            self.in_flight.extend(self.issued.drain(..));
        }

        // 3. Retire the ops issued D cycles ago.
        while self.in_flight.front().is_some_and(|op| op.exit <= cycle) {
            self.in_flight.pop_front();
        }
        self.cycle += 1;
    }
}

// ---------------------------------------------------------------------------------------------
// Port-level cycle model (the RTL block `hw/src/blender.rs`).

pub use hw_model::*;

mod hw_model {
    //! The blender as hardware builds it: a fragment stream in, a batch stream out, every
    //! register of `hw/src/blender.rs` mirrored. The timing contract is the rustdoc of
    //! [`BlenderCycle`]; its difference from the transaction model ([`run`], kept as the
    //! pipeline's model and the truth layer above it) is stated there.
    //!
    //! ```text
    //!  frag ─► column j: pool[j] ◄─ buf[j] (j < B: moves up when pool[j] leaves)
    //!  (≤P)     │   compare: P×P pool keys, B×P buffer-vs-pool keys, (P+B)×L×D in-flight keys
    //!           │   (one level of comparators), then the scan: pool slots in order (chain of
    //!           │   gates and a lane count), then the buffer slots (merge only)
    //!           │          ├─► issue mux ─► lane l: [ops] ─► [products] ─► [sum+128] ─► [result]
    //!           │          │    (enable = issued: idle lanes gated)        div255 ─┐
    //!           │          └─► sideband slot j (pool j, or buf j when pool j stays):
    //!           │              pos, source (lane, distance) ──────────────────────┴─► out slot j
    //!           └─ entries left over stay in their column (in_ready when every column has room)
    //! ```

    use super::*;
    use crate::cycle::CycleModel;
    use crate::streams::{BlendBeat, BlendFrag, LANES};

    /// Pipeline stages of the blend arithmetic before the output register: operands, products,
    /// sum + 128; `div255`'s last add sits in front of the output register.
    pub const ARITH_STAGES: usize = 3;

    /// RGBA8 packed little endian (R in bits 7..0).
    pub fn pack_rgba(c: Rgba) -> u32 {
        u32::from_le_bytes(c)
    }

    /// Inverse of [`pack_rgba`].
    pub fn unpack_rgba(v: u32) -> Rgba {
        v.to_le_bytes()
    }

    /// Parameters of the port-level blender.
    #[derive(Clone, Copy, Debug, PartialEq, Eq)]
    pub struct BlenderGeom {
        /// Pool entries P (= fragment lanes used).
        pub pool: usize,
        /// Blend lanes L.
        pub lanes: usize,
        /// Stages D from issue to the output register.
        pub latency: usize,
        pub opts: BlendOpts,
    }

    impl BlenderGeom {
        /// The parameters of `cfg`/`opts`, or one line naming what the port-level model cannot
        /// build: P ≤ 4 (one fragment fills the pool), D ≥ 4 (three arithmetic stages and the
        /// output register), B ≤ 2·(P − L) (at most two buffer slots behind each pool slot that
        /// can wait for a lane: see [`BlenderCycle`]).
        pub fn new(cfg: &Config, opts: &BlendOpts) -> Result<BlenderGeom, String> {
            validate(cfg, opts).map_err(|e| e.to_string())?;
            if cfg.blend_pool as usize > LANES {
                return Err(format!(
                    "config.blend_pool: {} entries; the blender block loads its pool from one fragment of {LANES} lanes (P ≤ {LANES})",
                    cfg.blend_pool
                ));
            }
            if (cfg.blend_latency as usize) < ARITH_STAGES + 1 {
                return Err(format!(
                    "config.blend_latency: {}; the blender block needs D ≥ {} ({ARITH_STAGES} arithmetic stages and the output register)",
                    cfg.blend_latency,
                    ARITH_STAGES + 1
                ));
            }
            let waiting = (cfg.blend_pool as usize).saturating_sub(cfg.blend_lanes as usize);
            if opts.input_buffer > 2 * waiting {
                return Err(format!(
                    "blend input_buffer: {} entries; the blender block has at most two buffer slots behind each of the P − L = {waiting} pool slots that can wait for a lane (B ≤ {})",
                    opts.input_buffer,
                    2 * waiting
                ));
            }
            Ok(BlenderGeom {
                pool: cfg.blend_pool as usize,
                lanes: cfg.blend_lanes as usize,
                latency: cfg.blend_latency as usize,
                opts: *opts,
            })
        }

        /// Input-buffer entries B.
        pub fn buffer(&self) -> usize {
            self.opts.input_buffer
        }

        /// Entries column j holds at most: its pool slot and its buffer slots. Buffer slot b
        /// sits in column P − 1 − (b mod (P − L)): the columns from L up are the ones whose
        /// pool entry can wait for a lane (the first L valid entries always leave), filled from
        /// the last, one buffer slot each before any gets a second.
        pub fn depth(&self, j: usize) -> usize {
            let waiting = self.pool.saturating_sub(self.lanes);
            let slots = (0..self.buffer())
                .filter(|b| self.pool - 1 - b % waiting.max(1) == j)
                .count();
            (j < self.pool) as usize + slots
        }
    }

    /// One pipeline stage: the keys of the ops in its lanes (lane `l` = the `l`-th issued of its
    /// batch) and the batch's positions with their results.
    #[derive(Clone, Debug, Default, PartialEq, Eq)]
    struct Stage {
        ops: Vec<Option<[u8; 9]>>,
        slots: [Option<(u32, Rgba)>; LANES],
    }

    /// Cycle model of `hw/src/blender.rs` (In = [`BlendFrag`], Out = [`BlendBeat`]).
    ///
    /// # Timing contract
    ///
    /// The one statement of the blender block's timing; the RTL is held to it on every port and
    /// cycle (`hw/tests/blender.rs`, `cosim/tests/blender.rs`). P = `blend_pool` ≤ 4,
    /// L = `blend_lanes`, D = `blend_latency` ≥ 4, merge mode, in-flight match, gating and the
    /// input buffer B ≤ 2·(P − L) from [`BlendOpts`].
    ///
    /// * **Registers.** *Column* j (j < P): pool slot j and behind it the column's buffer slots
    ///   ([`BlenderGeom::depth`]: buffer slot b in column P − 1 − (b mod (P − L)), so only the
    ///   columns whose pool entry can wait for a lane have any; the first L valid pool entries
    ///   always leave), each valid + sample, kept packed from the pool slot down (a buffer slot
    ///   holds an entry only while the ones in front of it do). D stages, each holding one
    ///   *batch*: per lane the issued op's key, per slot j (valid, pos, colour). Stage D is the
    ///   output register: `out_valid` = some slot valid, `lane_valid`/`pos_j`/`colour_j` its
    ///   slots (empty slots read 0).
    /// * **Advance.** `adv` = ¬out_valid ∨ out_ready. Nothing moves in a cycle without `adv`
    ///   (the whole pipeline stalls); with `adv` every stage moves one down and the compare
    ///   result enters stage 1.
    /// * **Handshake.** `in_ready` = `adv` ∧ every column has room, decided from valid bits
    ///   only (not from the comparators): column j has room if its pool slot is empty, or
    ///   certain to leave at this edge (fewer than L valid pool entries before it), or one of
    ///   its buffer slots is empty. With B = 0 this is "valid pool entries ≤ L". An accepted
    ///   fragment's lanes ≥ P are ignored; lane j goes to column j, behind the entries that
    ///   stay there at this edge (to the pool slot if none does).
    /// * **Compare and issue** (in each `adv` cycle, on the registers): pool slots in order
    ///   0..P, exactly the scan of the transaction model's step 2 with the window = the pool:
    ///   in-flight merge (whole key equal to an op in stages 1..D, including the op in the output
    ///   register, when `match_in_flight` and merging), else merge onto this cycle's issued ops
    ///   (whole key, or every component key in PerComponent), else issue to the next lane if one
    ///   is free, else stay in its slot. Then the buffer entries, which never take a lane: the
    ///   first entry of column j's buffer (front to back) that merges in flight or onto this
    ///   cycle's issued ops (the same two tests) leaves, if the column's pool entry stays (slot
    ///   j of the batch is free); the others stay. Every entry that leaves goes to slot j of
    ///   stage 1 with its result ⌊blend⌉ ([`blend`]: a merged sample's result is its source
    ///   op's, equal by construction); the issued ops' keys go to stage 1's lanes. The entries
    ///   behind one that leaves move up one place. A non-empty pool always loses its first
    ///   entry, so a batch is never empty.
    /// * **Order.** Pool slots compete for lanes in slot order, not in age: the next fragment's
    ///   first lanes may issue before an older entry waiting in a later slot. The wait is
    ///   bounded: a column whose pool entry may stay and whose buffer is full stops arrivals.
    /// * **Latency.** A fragment accepted at edge t is compared in the first `adv` cycle ≥ t + 1;
    ///   the batch compared at an `adv` edge c is on the output D − 1 `adv` edges later (from
    ///   cycle c + D without stalls). Entries that stay are compared again next `adv` cycle.
    /// * **Throughput.** One batch per cycle; with B = 0 a fragment every cycle while each pool
    ///   leaves at once (≤ L entries, or merges), otherwise ⌈heads / L⌉ compare cycles per
    ///   fragment; a buffer takes the next fragment while the pool still waits for lanes.
    /// * **Flush.** Every register returns to the state of [`BlenderCycle::new`].
    /// * **Idle.** `idle` = every column's pool and buffer valid bits low ∧ every stage's slot
    ///   and lane (op) valid bits low, stage D (the output register) included
    ///   ([`BlenderCycle::idle`]).
    ///
    /// **Against the transaction model** ([`run`]): the compare/issue rule is the same and so is
    /// the in-flight window (ops of the last D batches), but (1) arrivals: the transaction model
    /// tops its window up by min(P, room) samples every cycle, from a stream that is always
    /// there; the block takes a whole fragment, only when every column is certain to have room,
    /// because its `in_ready` must not wait for the comparators; (2) an in-flight-merged sample
    /// leaves with its own batch (D cycles after its compare), not with the op it matched: the
    /// output beat has P slots, and the transaction model's rule would need up to D·P + L
    /// positions in one cycle. Its result is copied from the op's lane as the op passes the
    /// arithmetic's last stage; (3) the window: the transaction model's is one queue of P + B
    /// samples in arrival order whose oldest P are the pool; the block's is P short columns, and
    /// a buffer entry leaves only through its column's batch slot. A queue would
    /// need a (P + B)-way compaction multiplexer driven by a count of the entries leaving, a
    /// second adder chain behind the scan in one cycle (the design rule is one), and up to
    /// P + B positions per beat. With P = L and a full fragment every cycle
    /// (`tests/blender_cycle.rs`) the windows are the same (every pool drains, no buffer entry
    /// is ever held), so every counter is equal and every output leaves one cycle later than
    /// in the transaction model (the pool register), in-flight merges D + 1 cycles after their
    /// arrival; otherwise the outputs are the same set and only the merge counters differ.
    #[derive(Clone, Debug, PartialEq)]
    pub struct BlenderCycle {
        g: BlenderGeom,
        /// Column j: the pool entry first, then the buffer entries (≤ `depth[j]` in all).
        cols: [Vec<BlendSample>; LANES],
        depth: [usize; LANES],
        /// Stage 1 first; the last is the output register.
        stages: VecDeque<Stage>,
        stats: BlendStats,
        first: Option<u64>,
        cycle: u64,
    }

    /// Which entry of each column leaves in one compare (0 = the pool entry).
    type Leave = [Option<usize>; LANES];

    impl BlenderCycle {
        /// Idle block.
        ///
        /// # Panics
        /// If [`BlenderGeom::new`] refuses the parameters.
        pub fn new(cfg: &Config, opts: &BlendOpts) -> BlenderCycle {
            BlenderCycle::with_geom(BlenderGeom::new(cfg, opts).unwrap_or_else(|e| panic!("{e}")))
        }

        /// Idle block for `g`.
        pub fn with_geom(g: BlenderGeom) -> BlenderCycle {
            let stage = Stage {
                ops: vec![None; g.lanes],
                slots: [None; LANES],
            };
            BlenderCycle {
                g,
                cols: Default::default(),
                depth: std::array::from_fn(|j| g.depth(j)),
                stages: (0..g.latency).map(|_| stage.clone()).collect(),
                stats: BlendStats::default(),
                first: None,
                cycle: 0,
            }
        }

        /// The parameters.
        pub fn geom(&self) -> &BlenderGeom {
            &self.g
        }

        /// Counters so far ([`BlendStats`]; `cycles` = from the first accepted fragment's edge to
        /// the last output transfer, inclusive).
        pub fn stats(&self) -> BlendStats {
            self.stats
        }

        /// Entries held in the pool and in the input buffer.
        pub fn held(&self) -> (usize, usize) {
            let n: usize = self.cols.iter().map(Vec::len).sum();
            let pool = self.cols.iter().filter(|c| !c.is_empty()).count();
            (pool, n - pool)
        }

        /// Nothing held: no pool or buffer entry, no batch in any stage (registers only).
        pub fn idle(&self) -> bool {
            self.cols.iter().all(Vec::is_empty)
                && self
                    .stages
                    .iter()
                    .all(|s| s.slots.iter().all(Option::is_none) && s.ops.iter().all(Option::is_none))
        }

        /// Every column certain to have room after this edge (contract, Handshake).
        fn room(&self) -> bool {
            let mut before = 0;
            (0..LANES).all(|j| {
                let n = self.cols[j].len();
                let certain = n > 0 && before < self.g.lanes;
                before += (n > 0) as usize;
                n == 0 || n - (certain as usize) < self.depth[j]
            })
        }

        fn out_valid(&self) -> bool {
            self.stages.back().is_some_and(|s| s.slots.iter().any(Option::is_some))
        }

        /// The compare and issue of one `adv` cycle: the new stage 1, and which slots leave.
        fn compare(&mut self) -> (Stage, Leave) {
            let g = self.g;
            let merging = g.opts.merge != MergeMode::Off;
            let mut stage = Stage {
                ops: vec![None; g.lanes],
                slots: [None; LANES],
            };
            let mut leave: Leave = [None; LANES];
            let mut issued: Vec<([u8; 9], [[u8; 4]; 4])> = Vec::with_capacity(g.lanes);
            let stages = &self.stages;
            let in_flight = |key: &[u8; 9]| {
                merging && g.opts.match_in_flight && stages.iter().any(|s| s.ops.iter().flatten().any(|k| k == key))
            };
            // Whether every component has a source among this cycle's issued ops (the merge).
            let sources = |issued: &[([u8; 9], [[u8; 4]; 4])], key: &[u8; 9], ckeys: &[[u8; 4]; 4]| {
                let mut src = [false; 4];
                match g.opts.merge {
                    MergeMode::Off => {}
                    MergeMode::PerSample => src = [issued.iter().any(|o| o.0 == *key); 4],
                    MergeMode::PerComponent => {
                        for (c, s) in src.iter_mut().enumerate() {
                            *s = issued.iter().any(|o| o.1[c] == ckeys[c]);
                        }
                    }
                }
                src
            };
            let st = &mut self.stats;
            for (j, col) in self.cols.iter().enumerate() {
                let Some(&smp) = col.first() else { continue };
                let key = sample_key(&smp);
                let res = blend(smp.src, smp.dst, smp.state);
                if in_flight(&key) {
                    st.merged_in_flight += 1;
                    leave[j] = Some(0);
                    stage.slots[j] = Some((smp.pos, res));
                    continue;
                }
                let ckeys = [0, 1, 2, 3].map(|c| component_key(&smp, c));
                let src = sources(&issued, &key, &ckeys);
                if src.iter().all(|&s| s) {
                    st.merged_samples += 1;
                } else if issued.len() < g.lanes {
                    let merged = src.iter().filter(|&&s| s).count() as u64;
                    st.blend_ops += 1;
                    st.merged_components += merged;
                    st.component_ops += 4 - if g.opts.gate_idle_lanes { merged } else { 0 };
                    stage.ops[issued.len()] = Some(key);
                    issued.push((key, ckeys));
                } else {
                    continue;
                }
                leave[j] = Some(0);
                stage.slots[j] = Some((smp.pos, res));
            }
            // The input buffer: merges only, the first of a column through the batch slot that
            // its pool entry leaves free.
            for (j, col) in self.cols.iter().enumerate() {
                if leave[j].is_some() {
                    continue;
                }
                for (k, smp) in col.iter().enumerate().skip(1) {
                    let key = sample_key(smp);
                    if in_flight(&key) {
                        st.merged_in_flight += 1;
                    } else if sources(&issued, &key, &[0, 1, 2, 3].map(|c| component_key(smp, c)))
                        .iter()
                        .all(|&s| s)
                    {
                        st.merged_samples += 1;
                    } else {
                        continue;
                    }
                    st.merged_buffer += 1;
                    leave[j] = Some(k);
                    stage.slots[j] = Some((smp.pos, blend(smp.src, smp.dst, smp.state)));
                    break;
                }
            }
            if leave.contains(&Some(0)) {
                st.busy_cycles += 1;
                let idle = (g.lanes - issued.len()) as u64;
                st.idle_lane_cycles += idle;
                if g.opts.gate_idle_lanes {
                    st.gated_lane_cycles += idle;
                }
            }
            (stage, leave)
        }
    }

    impl CycleModel for BlenderCycle {
        type In = BlendFrag;
        type Out = BlendBeat;

        fn out(&self) -> (bool, BlendBeat) {
            let mut b = BlendBeat::default();
            if let Some(s) = self.stages.back() {
                for (j, slot) in s.slots.iter().enumerate() {
                    if let Some((pos, c)) = slot {
                        b.lane_valid |= 1 << j;
                        b.pos[j] = *pos;
                        b.colour[j] = pack_rgba(*c);
                    }
                }
            }
            (b.lane_valid != 0, b)
        }

        fn in_ready(&self, out_ready: bool) -> bool {
            (!self.out_valid() || out_ready) && self.room()
        }

        fn clock(&mut self, in_valid: bool, inp: &BlendFrag, out_ready: bool, flush: bool) {
            if flush {
                *self = BlenderCycle::with_geom(self.g);
                return;
            }
            let ov = self.out_valid();
            if ov && out_ready {
                if let Some(f) = self.first {
                    self.stats.cycles = self.cycle + 1 - f;
                }
            }
            if !ov || out_ready {
                let accept = in_valid && self.room();
                let (stage, leave) = self.compare();
                self.stages.pop_back();
                self.stages.push_front(stage);
                for (col, l) in self.cols.iter_mut().zip(leave) {
                    if let Some(k) = l {
                        col.remove(k);
                    }
                }
                if accept {
                    self.first.get_or_insert(self.cycle);
                    for j in 0..self.g.pool {
                        if inp.lane_valid >> j & 1 == 1 {
                            self.stats.samples += 1;
                            let s = BlendSample {
                                pos: inp.pos[j],
                                src: unpack_rgba(inp.src[j]),
                                dst: unpack_rgba(inp.dst[j]),
                                state: inp.state[j],
                            };
                            debug_assert!(self.cols[j].len() < self.depth[j]);
                            self.cols[j].push(s);
                        }
                    }
                }
            }
            self.cycle += 1;
        }
    }
}

crate::cycle_model_signature! {
    /// blender's ports: fragments in, blended batches out.
    pub Blender "blender" for BlenderCycle: BlendFrag -> BlendBeat, idle
}
