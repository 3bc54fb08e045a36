//! Verilator co-simulation of the board memory arbiter (`rtl-out/tilerast_mem_arbiter_ulx3s.v`:
//! the scan-out first, then the GPU's port, 8 read tags) against its cycle model
//! `MemArbiterCycle`, every port on every cycle (harness: `tilerast_cosim::blocks`), on the
//! shared bench (`tilerast_verif::mem_arbiter`: golden's memory behind the port, the two
//! clients in two address windows, answer stalls that fill the tag FIFO):
//! - without flushes, 200 000 requests: every request a client was told went is performed
//!   once, and each client's answers equal its reads on a replay of the memory's order;
//! - with random flushes, equal on every port, with activity;
//! - the planted bug of `cosim/build/mutation.rs` (the tag FIFO full one entry early) is caught
//!   at the cycle and port predicted from the model with the same bug.

use tilerast_cosim::blocks::cosim_lockstep;
use tilerast_golden::mem_arbiter::MemArbiterCycle;
use tilerast_golden::streams::ports;
use tilerast_verif::lockstep::{Flushes, Lockstep, Memory, Sink, Source};
use tilerast_verif::mem_arbiter::{bench, predicted_full_early_bug, replay, MemArbiterStim};

fn stim(requests: usize, flush_ppm: u64) -> MemArbiterStim {
    MemArbiterStim {
        seed: 0xa4b,
        requests,
        valid_pct: 75,
        ready_pct: 60,
        flush_ppm,
    }
}

#[test]
fn each_client_gets_its_own_answers_ulx3s() {
    let s = stim(100_000, 0);
    let cycles = 400_000;
    let mut ls = Lockstep::new(MemArbiterCycle::new(2), bench(&s));
    cosim_lockstep("ulx3s", &mut ls, cycles, None).unwrap_or_else(|e| panic!("{e}"));
    println!("{}", ls.bench.summary());
    let log = ls.bench.get::<Memory>("memory").log.clone().unwrap();
    assert_eq!(log.len(), 2 * s.requests, "every request performed");
    let taken = |n: &str| ls.bench.get::<Source<ports::MemReq>>(n).accepted;
    assert_eq!(log.len() as u64, taken("scan_rd") + taken("gpu_req"));
    let want = replay(&log);
    for (k, sink) in ["scan_rsp", "gpu_rsp"].into_iter().enumerate() {
        let got: Vec<u32> = ls
            .bench
            .get::<Sink<ports::MemResp>>(sink)
            .received
            .iter()
            .map(|r| r.rdata)
            .collect();
        assert!(got == want[k], "{sink}: the client's own answers, in order");
    }
    let t = ls.model.traffic();
    println!("{t:?}");
    assert!(t[1].writes > 30_000 && t[1].lost > 10_000, "{t:?}");
}

#[test]
fn rtl_matches_cycle_model_ulx3s_under_flushes() {
    let mut ls = Lockstep::new(MemArbiterCycle::new(2), bench(&stim(100_000, 200)));
    cosim_lockstep("ulx3s", &mut ls, 300_000, None).unwrap_or_else(|e| panic!("{e}"));
    println!("{}", ls.bench.summary());
    let flushes = ls.bench.get::<Flushes>("flush");
    assert!(flushes.count >= 20 && flushes.busy >= 10, "{} flushes", flushes.count);
    let t = ls.model.traffic();
    assert!(t[0].answers > 50_000 && t[1].answers > 20_000, "{t:?}");
}

#[test]
fn the_planted_bug_is_caught_at_the_predicted_cycle_and_port() {
    let cycles = 5_000;
    let (pc, pp) = predicted_full_early_bug(&stim(2_000, 0), cycles);
    let mut ls = Lockstep::new(MemArbiterCycle::new(2), bench(&stim(2_000, 0)));
    let m = cosim_lockstep("ulx3s_mut", &mut ls, cycles, None).expect_err("the mutant is caught");
    println!("predicted: cycle {pc}, {pp}; caught: {}", m.ports_line());
    assert_eq!((m.cycle, m.port.as_str()), (pc, pp.as_str()));
}
