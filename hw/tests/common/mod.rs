//! The one rust-hdl test harness of `hw/tests/`: it drives a block and its golden cycle model
//! (`tilerast_golden::cycle::CycleModel`) with the same stimulus and compares every output port
//! on every cycle.
//!
//! * [`HarnessBlock`] — what the harness needs of a block: its clock, its handshake
//!   (`in_valid`/`in_ready` or the core's `cmd_valid`/`cmd_ready`, `out_valid`/`out_ready`,
//!   `flush`), and its payload ports `drive`n / `sample`d as golden payloads. Every block of the
//!   pipeline with one stream in and one out implements it (`tilerast_hw::streams::OneStream`,
//!   made from the block's golden signature; the raster core's by hand).
//! * [`Run`] — one run: a [`Handshake`] (valid gaps, ready pattern, flush) with its seed and the
//!   number of cycles; [`Run::go`] takes the block, the model and the inputs, offered in order
//!   (any iterator: a list, or a generator that makes them on the fly, endless or not).
//! * [`Report`] — what happened: the first mismatches (cycle, the ports that differ with both
//!   values, both sides in full), inputs accepted, outputs transferred, flushes, the longest
//!   output stall, and the trace of every cycle for test-specific checks.
//!
//! Per cycle (cycle 0 at simulation time 0, rising edges at 5, 15, …): the harness steps the
//! handshake lines, offers the next input (`in_valid` = an input is left and the valid line is
//! high; the payload is driven even in a gap), drives `out_ready` and `flush`, waits for the
//! clock's low phase (everything settled) and compares `in_ready`, `out_valid` and the whole
//! payload with `model.in_ready(out_ready)` and `model.out()`. Then the edge: the model is
//! clocked with the same inputs and the block's rising edge follows. An input counts as
//! accepted, and an output as transferred, when valid and ready are high and `flush` is low (a
//! flush voids the edge's transfers; a voided input is offered again). Acceptance follows the
//! model's `in_ready`. After `max_mismatches` differing cycles the run stops.
//!
//! Blocks with more streams than one in and one out (a memory port, several read ports) use
//! the general lock-step harness, `tilerast_verif::lockstep`, through its rust-hdl back end
//! here, [`lockstep`]: the block's ports come from `stream_block!` (`tilerast_hw::streams::PortIo`),
//! the model's from its `block_signature!`.
//!
//! The harness's own tests (a model with one flipped bit is reported at exactly that cycle and
//! port) are `hw/tests/harness.rs`.

#![allow(dead_code)]

use rust_hdl::prelude::*;
use std::fmt;
use std::sync::{Arc, Mutex};
use tilerast_golden::cycle::CycleModel;
use tilerast_golden::streams::{port_name, Stream};
use tilerast_hw::streams::OneStream;
use tilerast_verif::Handshake;

pub use tilerast_golden::cycle::ExtraOut;

/// The golden payload of a block's input stream.
pub type InOf<B> = <<B as HarnessBlock>::In as Stream>::Payload;
/// The golden payload of a block's output stream.
pub type OutOf<B> = <<B as HarnessBlock>::Out as Stream>::Payload;

/// A value handed between the test and rust-hdl's testbench thread.
type Slot<T> = Arc<Mutex<Option<T>>>;

/// A rust-hdl block with one valid/ready input stream and one valid/ready output stream, as the
/// harness drives it: every block whose golden signature has those two streams only
/// (`tilerast_hw::streams::OneStream`, made by `stream_block!` from the signature), and the
/// raster core.
pub trait HarnessBlock: Block + Send + 'static {
    /// The input stream (`tilerast_golden::streams::ports::X`).
    type In: Stream<Payload: Send + 'static>;
    /// The output stream.
    type Out: Stream<Payload: Send + 'static>;
    /// Name of the input's ready port (`in_ready`, the core's `cmd_ready`).
    const IN_READY: &'static str;
    /// The clock's level.
    fn clock_high(&self) -> bool;
    /// Toggle the clock.
    fn toggle_clock(&mut self);
    /// Drive every input port for the coming edge.
    fn drive(&mut self, in_valid: bool, inp: &InOf<Self>, out_ready: bool, flush: bool);
    /// The input's ready now.
    fn in_ready(&self) -> bool;
    /// `out_valid` now.
    fn out_valid(&self) -> bool;
    /// The output payload now.
    fn sample(&self) -> OutOf<Self>;
    /// Further output ports now, `(port, value)` in port order ([`ExtraOut`]).
    fn extra_out(&self) -> Vec<(&'static str, u64)>;
}

impl<B> HarnessBlock for B
where
    B: OneStream + Block + Send + 'static,
    <B::In as Stream>::Payload: Send + 'static,
    <B::Out as Stream>::Payload: Send + 'static,
{
    type In = B::In;
    type Out = B::Out;
    const IN_READY: &'static str = B::IN_READY;
    fn clock_high(&self) -> bool {
        OneStream::clock_high(self)
    }
    fn toggle_clock(&mut self) {
        OneStream::toggle_clock(self)
    }
    fn drive(&mut self, in_valid: bool, inp: &InOf<Self>, out_ready: bool, flush: bool) {
        self.drive_main(in_valid, inp, out_ready, flush)
    }
    fn in_ready(&self) -> bool {
        self.in_ready_now()
    }
    fn out_valid(&self) -> bool {
        self.out_valid_now()
    }
    fn sample(&self) -> OutOf<Self> {
        self.sample_out()
    }
    fn extra_out(&self) -> Vec<(&'static str, u64)> {
        self.extra_outs_now()
    }
}

/// What one cycle looked like at the ports (the model's side; on a cycle without mismatch
/// both sides agree), plus the stimulus.
#[derive(Clone, Debug, PartialEq)]
pub struct Sample<I, O> {
    pub in_valid: bool,
    pub in_ready: bool,
    pub input: I,
    pub out_valid: bool,
    pub out_ready: bool,
    pub output: O,
    pub flush: bool,
}

impl<I, O> Sample<I, O> {
    /// The input was taken at this cycle's edge (valid, ready, no flush).
    pub fn accepted(&self) -> bool {
        self.in_valid && self.in_ready && !self.flush
    }
    /// The output was transferred at this cycle's edge (valid, ready, no flush).
    pub fn transferred(&self) -> bool {
        self.out_valid && self.out_ready && !self.flush
    }
}

/// One port that differs, with its value on both sides (port bits; signed ports two's
/// complement in the port's width).
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct PortDiff {
    /// `in_ready` (`cmd_ready`), `out_valid`, or `out__<field>` (the Verilog port name).
    pub port: String,
    pub rtl: u64,
    pub model: u64,
}

/// A cycle in which the block and the model differ.
#[derive(Clone, Debug)]
pub struct Mismatch {
    pub cycle: u64,
    /// Every differing port, in port order (`in_ready`, `out_valid`, the payload's fields).
    pub ports: Vec<PortDiff>,
    /// Both sides in full: `in_ready`, `out_valid` and the payload.
    pub rtl: String,
    pub model: String,
}

impl fmt::Display for Mismatch {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        write!(f, "cycle {}:", self.cycle)?;
        for d in &self.ports {
            write!(f, " {} rtl {:#x} model {:#x};", d.port, d.rtl, d.model)?;
        }
        write!(f, "\n  rtl   {}\n  model {}", self.rtl, self.model)
    }
}

/// What a [`Run`] saw.
#[derive(Clone, Debug)]
pub struct Report<I, O> {
    /// The block's type, for messages.
    pub block: &'static str,
    /// Cycles compared (fewer than asked if the run stopped at `max_mismatches`).
    pub cycles: u64,
    /// The first differing cycles, in order.
    pub mismatches: Vec<Mismatch>,
    /// Inputs accepted (valid, ready, no flush).
    pub accepted: u64,
    /// Outputs transferred (valid, ready, no flush).
    pub transferred: u64,
    /// Cycles with `flush` high.
    pub flushes: u64,
    /// The longest run of consecutive cycles with `out_valid` high and `out_ready` low.
    pub longest_stall: u64,
    /// Every compared cycle.
    pub trace: Vec<Sample<I, O>>,
}

impl<I, O> Report<I, O> {
    /// The transferred outputs, in order.
    pub fn outputs(&self) -> impl Iterator<Item = &O> + '_ {
        self.trace.iter().filter(|s| s.transferred()).map(|s| &s.output)
    }

    /// The accepted inputs, in order.
    pub fn inputs(&self) -> impl Iterator<Item = &I> + '_ {
        self.trace.iter().filter(|s| s.accepted()).map(|s| &s.input)
    }

    /// `Err` with every recorded mismatch (both sides in full) unless there is none.
    pub fn check(&self, what: &str) -> Result<(), String> {
        if self.mismatches.is_empty() {
            return Ok(());
        }
        let list: Vec<String> = self.mismatches.iter().map(|m| m.to_string()).collect();
        Err(format!(
            "{what}: {} and its cycle model differ ({}):\n{}",
            self.block,
            self.summary(),
            list.join("\n")
        ))
    }

    /// Panics with [`Report::check`]'s message unless no cycle differs.
    pub fn assert_clean(&self, what: &str) {
        if let Err(msg) = self.check(what) {
            panic!("{msg}");
        }
    }

    /// One line: cycles, transfers, flushes, longest stall.
    pub fn summary(&self) -> String {
        format!(
            "{} cycles: {} inputs accepted, {} outputs transferred, {} flushes, longest output stall {} cycles",
            self.cycles, self.accepted, self.transferred, self.flushes, self.longest_stall
        )
    }
}

/// One run of a block against its model: the handshake with its seed, the number of cycles,
/// and after how many differing cycles to stop.
#[derive(Clone, Copy, Debug)]
pub struct Run {
    pub handshake: Handshake,
    pub seed: u64,
    pub cycles: u64,
    pub max_mismatches: usize,
}

impl Run {
    /// `cycles` cycles of `handshake` drawn from `seed`, stopping after 5 differing cycles.
    pub fn new(handshake: Handshake, seed: u64, cycles: u64) -> Run {
        Run {
            handshake,
            seed,
            cycles,
            max_mismatches: 5,
        }
    }

    /// Drive `block` and `model` side by side with `inputs` (offered in order) and compare
    /// every port on every cycle. Panics if the simulation itself fails (not on a mismatch:
    /// see [`Report::assert_clean`]).
    pub fn go<B, M, It>(&self, block: B, model: M, inputs: It) -> Report<InOf<B>, OutOf<B>>
    where
        B: HarnessBlock,
        M: CycleModel<In = InOf<B>, Out = OutOf<B>> + ExtraOut + Send + 'static,
        It: IntoIterator<Item = InOf<B>>,
        It::IntoIter: Send + 'static,
    {
        let run = *self;
        let mut block = Box::new(block);
        block.connect_all();
        let state = Arc::new(Mutex::new(Some((model, inputs.into_iter()))));
        let result: Slot<Report<InOf<B>, OutOf<B>>> = Arc::new(Mutex::new(None));
        let res = result.clone();
        let mut sim = Simulation::new();
        sim.add_clock(5, |x: &mut Box<B>| x.toggle_clock());
        sim.add_testbench(move |mut sim: Sim<B>| {
            let (mut model, mut inputs) = state
                .lock()
                .unwrap_or_else(|e| e.into_inner())
                .take()
                .expect("the testbench runs once");
            let mut r = Report {
                block: std::any::type_name::<B>(),
                cycles: 0,
                mismatches: Vec::new(),
                accepted: 0,
                transferred: 0,
                flushes: 0,
                longest_stall: 0,
                trace: Vec::with_capacity(run.cycles as usize),
            };
            let mut lines = run.handshake.lines(run.seed);
            let mut cur = inputs.next();
            let mut stall = 0u64;
            let mut x = sim.init()?;
            for cycle in 0..run.cycles {
                let c = lines.step();
                let in_valid = cur.is_some() && c.valid;
                let input = cur.clone().unwrap_or_default();
                x.drive(in_valid, &input, c.ready, c.flush);
                x = sim.watch(|x| !x.clock_high(), x)?;
                let rtl = (x.in_ready(), x.out_valid(), x.sample());
                let want = (model.in_ready(c.ready), model.out());
                let want = (want.0, want.1 .0, want.1 .1);
                let (rx, mx) = (x.extra_out(), model.extra_out());
                if rtl != want || rx != mx {
                    r.mismatches.push(mismatch::<B>(cycle, &rtl, &want, &rx, &mx));
                }
                let s = Sample {
                    in_valid,
                    in_ready: want.0,
                    input,
                    out_valid: want.1,
                    out_ready: c.ready,
                    output: want.2,
                    flush: c.flush,
                };
                r.cycles = cycle + 1;
                r.flushes += c.flush as u64;
                r.transferred += s.transferred() as u64;
                stall = if s.out_valid && !s.out_ready { stall + 1 } else { 0 };
                r.longest_stall = r.longest_stall.max(stall);
                if s.accepted() {
                    r.accepted += 1;
                    cur = inputs.next();
                }
                model.clock(s.in_valid, &s.input, s.out_ready, s.flush);
                r.trace.push(s);
                if r.mismatches.len() >= run.max_mismatches {
                    break;
                }
                x = sim.watch(|x| x.clock_high(), x)?;
            }
            *res.lock().unwrap_or_else(|e| e.into_inner()) = Some(r);
            sim.done(x)
        });
        let ran = sim.run(block, 10 * (self.cycles + 10));
        let report = result.lock().unwrap_or_else(|e| e.into_inner()).take();
        match (ran, report) {
            (Ok(()), Some(r)) => r,
            (ran, _) => panic!(
                "{}: the rust-hdl simulation failed: {ran:?}",
                std::any::type_name::<B>()
            ),
        }
    }
}

/// The differing ports of one cycle, both sides.
fn mismatch<B: HarnessBlock>(
    cycle: u64,
    rtl: &(bool, bool, OutOf<B>),
    model: &(bool, bool, OutOf<B>),
    rx: &[(&'static str, u64)],
    mx: &[(&'static str, u64)],
) -> Mismatch {
    let mut ports = Vec::new();
    let bit = |port: &str, r: bool, m: bool| PortDiff {
        port: port.to_string(),
        rtl: r as u64,
        model: m as u64,
    };
    if rtl.0 != model.0 {
        ports.push(bit(B::IN_READY, rtl.0, model.0));
    }
    if rtl.1 != model.1 {
        ports.push(bit("out_valid", rtl.1, model.1));
    }
    // Fields are told apart by value (a model value too wide for its port differs too), and
    // shown as port bits.
    let (rv, mv) = (B::Out::values(&rtl.2), B::Out::values(&model.2));
    let (rb, mb) = (B::Out::to_bits(&rtl.2), B::Out::to_bits(&model.2));
    for (i, f) in B::Out::FIELDS.iter().enumerate() {
        if rv[i] != mv[i] {
            ports.push(PortDiff {
                port: port_name("out", f.name),
                rtl: rb[i],
                model: mb[i],
            });
        }
    }
    if rtl.2 != model.2 && rv == mv {
        // A difference in a payload field the stream has no port for (the model's bug).
        ports.push(PortDiff {
            port: "out (a field without a port)".to_string(),
            rtl: 0,
            model: 0,
        });
    }
    // Further ports by name: a port one side has and the other lacks is a difference too.
    let names: Vec<&str> = rx.iter().chain(mx).map(|p| p.0).collect();
    for (i, n) in names.iter().enumerate() {
        if names[..i].contains(n) {
            continue;
        }
        let (r, m) = (
            rx.iter().find(|p| p.0 == *n).map(|p| p.1),
            mx.iter().find(|p| p.0 == *n).map(|p| p.1),
        );
        if r != m {
            ports.push(PortDiff {
                port: match (r, m) {
                    (Some(_), None) => format!("{n} (not predicted by the model)"),
                    (None, Some(_)) => format!("{n} (not a port of the block)"),
                    _ => n.to_string(),
                },
                rtl: r.unwrap_or(0),
                model: m.unwrap_or(0),
            });
        }
    }
    let side = |s: &(bool, bool, OutOf<B>), x: &[(&'static str, u64)]| {
        format!("{}={} out_valid={} {x:?} {:?}", B::IN_READY, s.0, s.1, s.2)
    };
    Mismatch {
        cycle,
        ports,
        rtl: side(rtl, rx),
        model: side(model, mx),
    }
}

/// The rust-hdl back end of `tilerast_verif::lockstep`: `block` in rust-hdl's simulator and
/// `ls`'s model, driven by `ls`'s bench for `cycles` cycles, every output port compared on
/// every cycle (`lockstep::compare`). `flip` (a test of the harness itself): at
/// `(cycle, port)` the block's output is read with its low bit flipped. Returns the lock-step
/// (model and bench, for the test's activity checks) and the first difference, if any.
pub fn lockstep<B, M>(
    block: B,
    ls: tilerast_verif::lockstep::Lockstep<M>,
    cycles: u64,
    flip: Option<(u64, &'static str)>,
) -> (
    tilerast_verif::lockstep::Lockstep<M>,
    Result<(), Box<tilerast_verif::lockstep::Mismatch>>,
)
where
    B: Block + tilerast_hw::streams::PortIo + Send + 'static,
    M: tilerast_golden::cycle::PortModel + Send + 'static,
{
    let mut block = Box::new(block);
    block.connect_all();
    let name = ls.signature().stage;
    type Out<M> = (
        tilerast_verif::lockstep::Lockstep<M>,
        Result<(), Box<tilerast_verif::lockstep::Mismatch>>,
    );
    let state = Arc::new(Mutex::new(Some(ls)));
    let result: Slot<Out<M>> = Arc::new(Mutex::new(None));
    let res = result.clone();
    let mut sim = Simulation::new();
    sim.add_clock(5, |x: &mut Box<B>| x.toggle_clock());
    sim.add_testbench(move |mut sim: Sim<B>| {
        let mut ls = state
            .lock()
            .unwrap_or_else(|e| e.into_inner())
            .take()
            .expect("the testbench runs once");
        let mut outcome = Ok(());
        let mut x = sim.init()?;
        for _ in 0..cycles {
            let c = ls.cycle;
            let (inputs, want) = match ls.step() {
                Ok(v) => v,
                Err(e) => panic!("{name}: {e}"),
            };
            x.set_inputs(&inputs);
            x = sim.watch(|x| !x.clock_high(), x)?;
            let mut got = x.outputs();
            if let Some((fc, port)) = flip {
                if fc == c {
                    let v = got.get(port).unwrap_or_else(|| panic!("no port {port}"));
                    got.set(port, v ^ 1);
                }
            }
            if c == 0 {
                let names: Vec<String> = ls.signature().output_ports();
                let have: Vec<&str> = got.iter().map(|(n, _)| n).collect();
                assert!(
                    names.len() == have.len() && names.iter().all(|n| have.contains(&n.as_str())),
                    "{name}: the block's outputs {have:?} are not its signature's {names:?}"
                );
            }
            if let Err(m) = tilerast_verif::lockstep::compare(name, c, &inputs, &want, &got) {
                outcome = Err(m);
                break;
            }
            x = sim.watch(|x| x.clock_high(), x)?;
        }
        *res.lock().unwrap_or_else(|e| e.into_inner()) = Some((ls, outcome));
        sim.done(x)
    });
    let ran = sim.run(block, 10 * (cycles + 10));
    let out = result.lock().unwrap_or_else(|e| e.into_inner()).take();
    match (ran, out) {
        (Ok(()), Some(r)) => r,
        (ran, _) => panic!("{name}: the rust-hdl simulation failed: {ran:?}"),
    }
}

/// Run `f` on a thread with the frame top's stack (`tilerast_hw::frame::STACK_BYTES`: its
/// structures and update code need more than a test thread's 2 MiB).
pub fn big_stack<T: Send + 'static>(f: impl FnOnce() -> T + Send + 'static) -> T {
    std::thread::Builder::new()
        .stack_size(tilerast_hw::frame::STACK_BYTES)
        .spawn(f)
        .unwrap()
        .join()
        .unwrap_or_else(|e| std::panic::resume_unwind(e))
}

/// A block with clocks of its own, run from the harness's step clock: `gated!(Name(Block) {
/// step: clock, gated: [pixel_clock / pixel_edge / pixel_enable, …] })` makes the wrapper
/// `Name` whose `step` input (if any) is the step clock and each gated clock is the step clock
/// through a clock gate whose enable (the step's bit of that clock's name, latched while the step
/// clock is low) says whether the clock has its rising edge in the step; edges in one step
/// coincide, as from one PLL (the Verilator wrapper's gated clocks, `cosim/build/flat.rs`). The
/// block provides `set_data_inputs`, `connect_data_inputs`, `outputs` and `extra_outs`.
#[macro_export]
macro_rules! gated {
    ($name:ident($dut:ty) { step: $($step:ident)?, gated: [$($clk:ident / $edge:ident / $en:ident),* $(,)?] }) => {
        #[derive(LogicBlock)]
        struct $name {
            clock: Signal<In, Clock>,
            $($edge: Signal<In, Bit>,
            $en: Signal<Local, Bit>,)*
            dut: $dut,
        }

        impl $name {
            fn new(dut: $dut) -> $name {
                $name {
                    clock: Default::default(),
                    $($edge: Default::default(),
                    $en: Default::default(),)*
                    dut,
                }
            }
        }

        impl Logic for $name {
            fn update(&mut self) {
                let high = self.clock.val().clk;
                if !high {
                    $(self.$en.next = self.$edge.val();)*
                }
                $(self.dut.$step.next = self.clock.val();)?
                $(self.dut.$clk.next = Clock {
                    clk: high && self.$en.val(),
                };)*
            }
            fn connect(&mut self) {
                $(self.$en.connect();
                self.dut.$clk.connect();)*
                $(self.dut.$step.connect();)?
                // The data inputs are the harness's (set_inputs), as a top's ports would be.
                self.dut.connect_data_inputs();
            }
        }

        impl tilerast_hw::streams::PortIo for $name {
            fn clock_high(&self) -> bool {
                self.clock.val().clk
            }
            fn toggle_clock(&mut self) {
                self.clock.next = !self.clock.val();
            }
            fn set_inputs(&mut self, p: &tilerast_golden::cycle::Ports) {
                $(self.$edge.next = p.bit(stringify!($clk));)*
                self.dut.set_data_inputs(p);
            }
            fn outputs(&self) -> tilerast_golden::cycle::Ports {
                self.dut.outputs()
            }
            fn extra_outs(&self) -> Vec<(&'static str, u64)> {
                self.dut.extra_outs()
            }
        }
    };
}
