//! The scan-out (`hw/src/scan_out.rs`) against its cycle model `ScanOutCycle`, in rust-hdl,
//! every port on every cycle, through the one lock-step harness (`tilerast_verif::lockstep`,
//! rust-hdl back end in `tests/common`), on the shared bench (`tilerast_verif::scan_out`: two
//! framebuffers behind the port, a line buffer whose `fill` lags like a clock-crossing FIFO's):
//!
//! - steady: a small framebuffer at scale 2, two frames from the two buffers in turn, the line
//!   buffer's words equal each buffer's screen (the double buffer's two pictures), credits
//!   binding and no overflow;
//! - under a slow grant, `out_ready` stalls and random flushes, still equal, with activity;
//! - a planted bug (the row step's sign) caught at the cycle the cycle model predicts.

mod common;

use tilerast_golden::scan_out::{ScanOutCycle, ScanOutParams};
use tilerast_hw::scan_out::ScanOut;
use tilerast_verif::lockstep::{Flushes, Lockstep};
use tilerast_verif::scan_out::{bench, predicted_row_step_bug, screen, LineBuffer, ScanOutStim};

fn params() -> ScanOutParams {
    ScanOutParams::new(6, 3, 2, 12).unwrap()
}

fn steady() -> ScanOutStim {
    ScanOutStim {
        seed: 3,
        first_start: 2,
        period: 400,
        grant_pct: 80,
        drain_every: 2,
        stalls: false,
        flush_ppm: 0,
    }
}

#[test]
fn two_frames_from_the_two_buffers_equal_their_screens() {
    let p = params();
    let s = steady();
    let cycles = 2 * s.period + 2;
    let (ls, outcome) = common::lockstep(
        ScanOut::new(&p),
        Lockstep::new(ScanOutCycle::new(p), bench(&p, &s)),
        cycles,
        None,
    );
    println!("{}", ls.bench.summary());
    if let Err(m) = outcome {
        panic!("{m}");
    }
    let line = ls.bench.get::<LineBuffer>("line");
    assert!(!line.overflow);
    let want: Vec<_> = screen(&p, 0).into_iter().chain(screen(&p, 1)).collect();
    assert_eq!(line.drained, want, "frame 0 from buffer A, frame 1 from buffer B");
    let st = ls.model.stats();
    assert_eq!((st.frames, st.reads), (2, 2 * p.pixels()));
    assert!(st.credit_waits > 50, "{st:?}");
    // The credits let the buffer fill, with the reads in flight and the lagging fill's share.
    assert!(line.peak >= p.credits as usize / 2, "peak {}", line.peak);
}

#[test]
fn under_stalls_and_flushes_the_scan_out_equals_its_model() {
    let p = params();
    let s = ScanOutStim {
        seed: 11,
        first_start: 5,
        period: 300,
        grant_pct: 45,
        drain_every: 3,
        stalls: true,
        flush_ppm: 2000,
    };
    let cycles = 3000;
    let (ls, outcome) = common::lockstep(
        ScanOut::new(&p),
        Lockstep::new(ScanOutCycle::new(p), bench(&p, &s)),
        cycles,
        None,
    );
    println!("{}", ls.bench.summary());
    if let Err(m) = outcome {
        panic!("{m}");
    }
    let st = ls.model.stats();
    let flushes = ls.bench.get::<Flushes>("flush");
    println!("{st:?}");
    assert!(st.frames >= 8 && st.reads > 400 && st.answers > 400, "{st:?}");
    assert!(st.credit_waits > 100, "{st:?}");
    assert!(flushes.count >= 2 && flushes.busy >= 1, "{} flushes", flushes.count);
    assert!(!ls.bench.get::<LineBuffer>("line").overflow);
}

#[test]
fn the_planted_row_step_bug_is_caught_at_the_predicted_cycle() {
    let p = params();
    let s = steady();
    let cycles = 200;
    let (pc, pp) = predicted_row_step_bug(&p, &s, cycles);
    assert_eq!(pp, "rd__addr");
    let (_, outcome) = common::lockstep(
        ScanOut::new(&p).mutant_row_step_up(&p),
        Lockstep::new(ScanOutCycle::new(p), bench(&p, &s)),
        cycles,
        None,
    );
    let m = outcome.expect_err("the mutant is caught");
    println!("predicted: cycle {pc}, {pp}; caught: {}", m.ports_line());
    assert_eq!((m.cycle, m.port.as_str()), (pc, pp.as_str()));
}
