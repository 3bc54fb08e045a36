//! Layer 3 of the three layers of truth: the convention every per-block cycle model follows.
//!
//! Each RTL block in `hw/src/<stage>.rs` has a cycle model in `golden/src/<stage>.rs` that
//! implements [`CycleModel`]. The model mirrors the block's registers, so that for the same
//! inputs and the same ready pattern it predicts the block's output ports on every cycle:
//!
//! ```text
//!            in_valid, in payload ─►┌──────────┐─► out_valid, out payload   (registered: `out()`)
//!   in_ready = f(regs, out_ready) ◄─│  block   │◄─ out_ready
//!                         flush ───►└──────────┘
//! ```
//!
//! * Streams use valid/ready: a transfer happens at a rising edge where both are high.
//! * `out()` (valid **and payload**) is a function of the registers only. The payload is
//!   predicted on every cycle, valid or not: the RTL's payload registers are deterministic
//!   (they start at zero and change on defined events), and co-simulation compares them.
//! * `in_ready(out_ready)` may depend combinationally on the downstream ready (no other
//!   combinational input → output path exists).
//! * `clock(...)` applies one rising edge. `flush` is a synchronous reset: with `flush` high at an
//!   edge, the block returns to its idle state with nothing stale left, whatever else is driven.
//!   The state after a flush equals the state after `new`.
//!
//! Each model's rustdoc has a **Timing contract** section: handshake, latency, throughput or
//! initiation interval, back-pressure and flush, exact. It is the one place a block's timing is
//! written: the block's header in `hw/src/<stage>.rs` links to it instead of repeating it, and
//! `hw/tests/<stage>.rs` / `cosim/tests/<stage>.rs` hold the RTL to it on every port and cycle.
//! Cycle numbering in the contracts: a transfer "at edge c" happens when valid and ready are both
//! high in cycle c, at the rising edge that ends it; registered results of that edge are
//! visible from cycle c + 1.

/// A cycle-accurate model of one valid/ready block with one input and one output stream.
pub trait CycleModel {
    type In: Clone + Default + PartialEq + std::fmt::Debug;
    type Out: Clone + Default + PartialEq + std::fmt::Debug;

    /// Registered outputs visible during the current cycle: (out_valid, out payload).
    fn out(&self) -> (bool, Self::Out);

    /// Ready towards upstream during the current cycle, given downstream's ready.
    fn in_ready(&self, out_ready: bool) -> bool;

    /// One rising clock edge with the given inputs.
    fn clock(&mut self, in_valid: bool, inp: &Self::In, out_ready: bool, flush: bool);
}

/// What one cycle looked like at a block's ports (for traces and comparisons).
#[derive(Clone, Debug, PartialEq)]
pub struct PortSample<I, O> {
    pub in_valid: bool,
    pub in_ready: bool,
    pub input: I,
    pub out_valid: bool,
    pub out_ready: bool,
    pub output: O,
}

/// Drive a model with a stimulus: `inputs` are offered in order (with `gap(cycle)` true the
/// producer holds valid low that cycle), `ready(cycle)` is the downstream ready. Runs until all
/// inputs are accepted and `done(outputs)` says so, or `max_cycles`. Returns the transferred
/// outputs and the per-cycle port samples.
#[allow(clippy::type_complexity)]
pub fn drive<M: CycleModel>(
    m: &mut M,
    inputs: &[M::In],
    mut gap: impl FnMut(u64) -> bool,
    mut ready: impl FnMut(u64) -> bool,
    mut done: impl FnMut(&[M::Out]) -> bool,
    max_cycles: u64,
) -> (Vec<M::Out>, Vec<PortSample<M::In, M::Out>>) {
    let mut outs = Vec::new();
    let mut trace = Vec::new();
    let mut next = 0usize;
    for cyc in 0..max_cycles {
        let in_valid = next < inputs.len() && !gap(cyc);
        let input = if next < inputs.len() {
            inputs[next].clone()
        } else {
            M::In::default()
        };
        let out_ready = ready(cyc);
        let (out_valid, output) = m.out();
        let in_ready = m.in_ready(out_ready);
        trace.push(PortSample {
            in_valid,
            in_ready,
            input: input.clone(),
            out_valid,
            out_ready,
            output: output.clone(),
        });
        if out_valid && out_ready {
            outs.push(output);
        }
        if in_valid && in_ready {
            next += 1;
        }
        m.clock(in_valid, &input, out_ready, false);
        if next >= inputs.len() && done(&outs) {
            break;
        }
    }
    (outs, trace)
}
