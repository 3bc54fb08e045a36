//! Verilator co-simulation of the scan-out (`rtl-out/tilerast_scan_out_ulx3s.v`: the ULX3S
//! frame row's 640×480 framebuffer at scale 1, 512 credits) against its cycle model
//! `ScanOutCycle`, every port on every cycle (harness: `tilerast_cosim::blocks`), on the shared
//! bench (`tilerast_verif::scan_out`: the two framebuffers of the double buffer behind the
//! port, a line buffer whose `fill` lags like the clock-crossing FIFO's write side):
//! - two whole frames drained at the pixel clock's rate (a word per 4 memory clocks), one from
//!   each buffer: the line buffer's words equal each buffer's screen, it never overflows and
//!   the credits bind;
//! - under a slow grant, `out_ready` stalls, starts mid-walk and random flushes, equal on
//!   every port;
//! - the planted bug of `cosim/build/mutation.rs` (the row step negated) is caught at the
//!   cycle and port predicted from the model with the same bug.

use tilerast_cosim::blocks::cosim_lockstep;
use tilerast_golden::board::board;
use tilerast_golden::scan_out::{ScanOutCycle, ScanOutParams};
use tilerast_verif::lockstep::{Flushes, Lockstep};
use tilerast_verif::scan_out::{bench, predicted_row_step_bug, screen, LineBuffer, ScanOutStim};

fn params() -> ScanOutParams {
    ScanOutParams::for_board(&board("ulx3s").unwrap().frame.unwrap()).unwrap()
}

/// Frames back to back at the pixel clock's rate: a start every frame's worth of drains.
fn steady(p: &ScanOutParams) -> ScanOutStim {
    ScanOutStim {
        seed: 0x5ca7,
        first_start: 3,
        period: 4 * p.pixels() + 2_000,
        grant_pct: 70,
        drain_every: 4,
        stalls: false,
        flush_ppm: 0,
    }
}

#[test]
fn two_frames_from_the_two_buffers_equal_their_screens() {
    let p = params();
    let s = steady(&p);
    let cycles = 2 * s.period + 3;
    let mut ls = Lockstep::new(ScanOutCycle::new(p), bench(&p, &s));
    cosim_lockstep("ulx3s", &mut ls, cycles, None).unwrap_or_else(|e| panic!("{e}"));
    println!("{}", ls.bench.summary());
    let line = ls.bench.get::<LineBuffer>("line");
    assert!(!line.overflow, "the credits held the line buffer");
    assert_eq!(line.drained.len() as u64, 2 * p.pixels());
    assert!(
        line.drained[..p.pixels() as usize] == screen(&p, 0),
        "frame 0: buffer A's screen"
    );
    assert!(
        line.drained[p.pixels() as usize..] == screen(&p, 1),
        "frame 1: buffer B's screen"
    );
    let st = ls.model.stats();
    assert_eq!((st.frames, st.reads), (2, 2 * p.pixels()));
    assert!(st.credit_waits > p.pixels(), "{st:?}");
    assert!(line.peak > 400, "the buffer fills: {}", line.peak);
}

#[test]
fn rtl_matches_cycle_model_ulx3s_under_stalls_starts_and_flushes() {
    let p = params();
    let s = ScanOutStim {
        seed: 0xf1a5,
        first_start: 10,
        period: 150_000,
        grant_pct: 40,
        drain_every: 3,
        stalls: true,
        flush_ppm: 8,
    };
    let cycles = 1_000_000;
    let mut ls = Lockstep::new(ScanOutCycle::new(p), bench(&p, &s));
    cosim_lockstep("ulx3s", &mut ls, cycles, None).unwrap_or_else(|e| panic!("{e}"));
    println!("{}", ls.bench.summary());
    let st = ls.model.stats();
    println!("{st:?}");
    assert!(st.frames >= 6 && st.reads > 200_000 && st.answers > 200_000, "{st:?}");
    assert!(st.credit_waits > 10_000, "{st:?}");
    let flushes = ls.bench.get::<Flushes>("flush");
    assert!(flushes.count >= 3 && flushes.busy >= 2, "{} flushes", flushes.count);
    assert!(!ls.bench.get::<LineBuffer>("line").overflow);
}

#[test]
fn the_planted_bug_is_caught_at_the_predicted_cycle_and_port() {
    let p = params();
    let s = steady(&p);
    let cycles = 10_000;
    let (pc, pp) = predicted_row_step_bug(&p, &s, cycles);
    assert_eq!(pp, "rd__addr");
    let mut ls = Lockstep::new(ScanOutCycle::new(p), bench(&p, &s));
    let m = cosim_lockstep("ulx3s_mut", &mut ls, cycles, None).expect_err("the mutant is caught");
    println!("predicted: cycle {pc}, {pp}; caught: {}", m.ports_line());
    assert_eq!((m.cycle, m.port.as_str()), (pc, pp.as_str()));
}
