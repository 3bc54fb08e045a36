//! The board memory arbiter (`hw/src/mem_arbiter.rs`) against its cycle model
//! `MemArbiterCycle`, in rust-hdl, every port on every cycle, through the one lock-step harness
//! (`tilerast_verif::lockstep`, rust-hdl back end in `tests/common`), on the shared bench
//! (`tilerast_verif::mem_arbiter`: golden's memory behind the port, the scan-out's reads and
//! the GPU's reads and writes in two address windows):
//!
//! - without flushes, every request a client was told went is performed once, and each
//!   client's answers equal the words its reads find when the memory's
//!   order is replayed on a plain memory; the tag FIFO fills (answer stalls), both clients
//!   move, the scan-out wins every tie;
//! - with random flushes, still equal, with activity;
//! - a planted bug (the tag FIFO full one entry early) caught at the cycle the cycle model
//!   predicts.

mod common;

use tilerast_golden::mem_arbiter::{MemArbiterCycle, TAG_DEPTH};
use tilerast_golden::streams::{ports, MemResp};
use tilerast_hw::mem_arbiter::MemArbiter;
use tilerast_verif::lockstep::{Flushes, Lockstep, Memory, Sink, Source};
use tilerast_verif::mem_arbiter::{bench, predicted_full_early_bug, replay, MemArbiterStim};

fn stim(flush_ppm: u64) -> MemArbiterStim {
    MemArbiterStim {
        seed: 7,
        requests: 600,
        valid_pct: 75,
        ready_pct: 60,
        flush_ppm,
    }
}

fn words(ls: &Lockstep<MemArbiterCycle>, sink: &str) -> Vec<u32> {
    let s = ls.bench.get::<Sink<ports::MemResp>>(sink);
    s.received.iter().map(|r: &MemResp| r.rdata).collect()
}

#[test]
fn each_client_gets_its_own_answers_and_the_rtl_equals_the_model() {
    let cycles = 2_500;
    let mut ls = Lockstep::new(MemArbiterCycle::new(2), bench(&stim(0)));
    let full = std::sync::Arc::new(std::sync::atomic::AtomicU64::new(0));
    let seen = full.clone();
    ls.watch = Some(Box::new(move |_, m: &MemArbiterCycle| {
        assert!(m.tags().len() <= TAG_DEPTH);
        if m.tags().len() == TAG_DEPTH {
            seen.fetch_add(1, std::sync::atomic::Ordering::Relaxed);
        }
    }));
    let (ls, outcome) = common::lockstep(MemArbiter::default(), ls, cycles, None);
    println!("{}", ls.bench.summary());
    if let Err(m) = outcome {
        panic!("{m}");
    }
    let log = ls.bench.get::<Memory>("memory").log.clone().unwrap();
    // Every request a client was told went did go: none lost, none sent twice.
    let taken = |n: &str| ls.bench.get::<Source<ports::MemReq>>(n).accepted;
    assert_eq!(log.len() as u64, taken("scan_rd") + taken("gpu_req"));
    assert_eq!(log.len(), 2 * stim(0).requests, "every request performed");
    let want = replay(&log);
    assert_eq!(words(&ls, "scan_rsp"), want[0], "the scan-out's answers");
    assert_eq!(words(&ls, "gpu_rsp"), want[1], "the GPU's answers");
    let t = ls.model.traffic();
    println!("{t:?}");
    assert!(t[0].reads > 400 && t[1].reads > 150 && t[1].writes > 100, "{t:?}");
    assert!(
        want[1].iter().filter(|&&w| w != 0).count() > 30,
        "the GPU reads what it wrote"
    );
    assert!(t[1].lost > 100, "the scan-out first: {t:?}");
    assert!(
        full.load(std::sync::atomic::Ordering::Relaxed) > 50,
        "the tag FIFO fills"
    );
}

#[test]
fn under_flushes_the_arbiter_equals_its_model() {
    let (ls, outcome) = common::lockstep(
        MemArbiter::default(),
        Lockstep::new(MemArbiterCycle::new(2), bench(&stim(3_000))),
        2_500,
        None,
    );
    println!("{}", ls.bench.summary());
    if let Err(m) = outcome {
        panic!("{m}");
    }
    let flushes = ls.bench.get::<Flushes>("flush");
    assert!(flushes.count >= 3 && flushes.busy >= 2, "{} flushes", flushes.count);
    let t = ls.model.traffic();
    assert!(t[0].answers > 200 && t[1].answers > 100, "{t:?}");
}

#[test]
fn the_planted_full_early_bug_is_caught_at_the_predicted_cycle() {
    let cycles = 2_500;
    let (pc, pp) = predicted_full_early_bug(&stim(0), cycles);
    let (_, outcome) = common::lockstep(
        MemArbiter::default().mutant_full_early(),
        Lockstep::new(MemArbiterCycle::new(2), bench(&stim(0))),
        cycles,
        None,
    );
    let m = outcome.expect_err("the mutant is caught");
    println!("predicted: cycle {pc}, {pp}; caught: {}", m.ports_line());
    assert_eq!((m.cycle, m.port.as_str()), (pc, pp.as_str()));
}
