//! Shared by the per-block co-simulation tests (`cosim/tests/<stage>.rs`; their stimulus comes
//! from `tilerast_verif::stim`, shared with the rust-hdl tests): the
//! checks every block run must pass (the stimulus really exercised gaps, stalls, junk payloads
//! and flushes), and [`Perturb`], a cycle model with one output field broken at one cycle, to
//! show that the harness catches a difference at exactly that cycle and port.

#![allow(dead_code)] // not every test file uses every helper

use tilerast_cosim::blocks::{BlockRun, BlockStim, CosimFail};
use tilerast_golden::cycle::{CycleModel, ExtraOut};

/// The stimulus of every block test: `cycles` cycles, two flushes (at 1/4 and 2/3), gaps, junk
/// payloads while idle, 75 % ready and long stalls.
pub fn stim(seed: u64, cycles: u64) -> BlockStim {
    BlockStim {
        seed,
        cycles,
        flush_at: vec![cycles / 4 + 1, 2 * cycles / 3],
        ..BlockStim::default()
    }
}

/// Unwrap a clean run (the mismatch is printed in full otherwise) and check that the stimulus
/// did what it promises: inputs accepted and outputs transferred, the producer waited on the
/// block and the block on its consumer, a long stall, junk payloads, and a flush that hit a busy
/// block.
pub fn clean<O>(name: &str, r: Result<BlockRun<O>, CosimFail>, stim: &BlockStim) -> BlockRun<O> {
    let run = r.unwrap_or_else(|m| panic!("RTL and cycle model differ:\n{m}"));
    println!(
        "{name}: {} cycles, {} accepted, {} out, waits up/down {}/{}, longest stall {}, {} junk, \
         {}/{} busy flushes, {:.2} Mcycles/s ({:.0} % in Verilator)",
        run.cycles,
        run.accepted,
        run.outputs.len(),
        run.upstream_waits,
        run.downstream_waits,
        run.longest_stall,
        run.junk_cycles,
        run.busy_flushes,
        run.flushes,
        run.cycles_per_sec / 1e6,
        100.0 * run.rtl_secs / run.secs.max(1e-9),
    );
    assert_eq!(run.cycles, stim.cycles, "{name}: cycles run");
    assert!(
        run.accepted as f64 > run.cycles as f64 / 100.0,
        "{name}: only {} accepted",
        run.accepted
    );
    assert!(!run.outputs.is_empty(), "{name}: nothing transferred");
    assert!(run.upstream_waits > 0, "{name}: the block never held the producer");
    assert!(run.downstream_waits > 0, "{name}: the consumer never held the block");
    assert!(run.longest_stall >= stim.stall_len.0, "{name}: no long stall");
    assert!(run.junk_cycles > 0, "{name}: no junk payload while idle");
    assert_eq!(run.flushes, stim.flush_at.len() as u64, "{name}: flushes");
    assert!(run.busy_flushes > 0, "{name}: no flush hit a busy block");
    run
}

/// A cycle model whose output payload is changed by `f` at cycle `at` (and only there).
pub struct Perturb<M: CycleModel> {
    pub inner: M,
    pub at: u64,
    pub f: fn(&mut M::Out),
    cycle: u64,
}

impl<M: CycleModel> Perturb<M> {
    pub fn new(inner: M, at: u64, f: fn(&mut M::Out)) -> Self {
        Perturb { inner, at, f, cycle: 0 }
    }
}

impl<M: CycleModel + ExtraOut> ExtraOut for Perturb<M> {
    fn extra_out(&self) -> Vec<(&'static str, u64)> {
        self.inner.extra_out()
    }
}

impl<M: CycleModel> CycleModel for Perturb<M> {
    type In = M::In;
    type Out = M::Out;
    fn out(&self) -> (bool, M::Out) {
        let (v, mut o) = self.inner.out();
        if self.cycle == self.at {
            (self.f)(&mut o);
        }
        (v, o)
    }
    fn in_ready(&self, out_ready: bool) -> bool {
        self.inner.in_ready(out_ready)
    }
    fn clock(&mut self, in_valid: bool, inp: &M::In, out_ready: bool, flush: bool) {
        self.inner.clock(in_valid, inp, out_ready, flush);
        self.cycle += 1;
    }
}

/// The run with a perturbed model must fail at exactly `at` on `port`, with RTL and model
/// values differing in exactly the bits `flip` (the perturbation XORs them).
pub fn expect_caught<O>(r: Result<BlockRun<O>, CosimFail>, at: u64, port: &str, flip: u64) {
    let m = match r {
        Ok(_) => panic!("a model broken at cycle {at} ({port}) went unnoticed"),
        Err(CosimFail::Mismatch(m, _)) => m,
        Err(CosimFail::Bench(e)) => panic!("not a mismatch: {e}"),
    };
    println!("caught as expected:\n{m}");
    assert_eq!((m.cycle, m.port.as_str()), (at, port), "{m}");
    assert_eq!(m.rtl ^ m.model, flip, "{m}");
    // The report names the port and shows every input of that cycle.
    let text = m.to_string();
    assert!(text.contains(&format!("at cycle {at}, port {port}:")), "{text}");
    assert!(text.contains("in_valid=") && text.contains("out_ready="), "{text}");
}

/// The block's three per-preset tests, `rtl_matches_cycle_model_{ice40,default,full}`, each
/// calling `run(preset, seed)` with the seed `tag << 16 | 0x1ce4` / `0xdefa` / `0xf011`
/// (`per_preset!(run, 0x7b)` gives `run("ice40", 0x7b_1ce4)`, and so on).
#[macro_export]
macro_rules! per_preset {
    ($run:ident, $tag:literal) => {
        #[test]
        fn rtl_matches_cycle_model_ice40() {
            $run("ice40", ($tag << 16) | 0x1ce4);
        }

        #[test]
        fn rtl_matches_cycle_model_default() {
            $run("default", ($tag << 16) | 0xdefa);
        }

        #[test]
        fn rtl_matches_cycle_model_full() {
            $run("full", ($tag << 16) | 0xf011);
        }
    };
}

/// The output ports of a model, cycle by cycle, shared with the test.
pub type PortLog<O> = std::rc::Rc<std::cell::RefCell<Vec<(bool, O)>>>;

/// A model that logs its output ports before every edge (index = cycle), for predicting where
/// a planted RTL bug first shows.
pub struct Recorder<M: CycleModel> {
    pub inner: M,
    pub log: PortLog<M::Out>,
}

#[allow(dead_code)]
impl<M: CycleModel> Recorder<M> {
    pub fn new(inner: M) -> Self {
        Recorder {
            inner,
            log: Default::default(),
        }
    }
}

impl<M: CycleModel + ExtraOut> ExtraOut for Recorder<M> {
    fn extra_out(&self) -> Vec<(&'static str, u64)> {
        self.inner.extra_out()
    }
}

impl<M: CycleModel> CycleModel for Recorder<M> {
    type In = M::In;
    type Out = M::Out;
    fn out(&self) -> (bool, M::Out) {
        self.inner.out()
    }
    fn in_ready(&self, out_ready: bool) -> bool {
        self.inner.in_ready(out_ready)
    }
    fn clock(&mut self, in_valid: bool, inp: &M::In, out_ready: bool, flush: bool) {
        self.log.borrow_mut().push(self.inner.out());
        self.inner.clock(in_valid, inp, out_ready, flush);
    }
}
