//! Verilator co-simulation of the line buffer (`rtl-out/tilerast_line_buffer_ulx3s.v`: 512
//! pixels from the memory clock into the pixel clock) against its cycle model
//! `LineBufferCycle`, every port on every step (harness: `tilerast_cosim::blocks`; the wrapper
//! drives `write_clock` and `read_clock` with the step clock gated by their bits, so the edges
//! of one step coincide), on the shared bench (`tilerast_verif::line_buffer`):
//! - the board's clocks (write every step, read every fourth: 100 and 25 MHz), the other way
//!   round, coprime periods with a phase, and edges at random: every pixel comes out once, in
//!   order, the FIFO fills and runs dry;
//! - under flushes held over both clocks' edges, equal on every port, with activity;
//! - the planted bug of `cosim/build/mutation.rs` (the read side without its synchroniser) is
//!   caught at the step and port predicted from the model with the same bug.

use tilerast_cosim::blocks::cosim_lockstep;
use tilerast_golden::line_buffer::LineBufferCycle;
use tilerast_golden::streams::ports;
use tilerast_verif::line_buffer::{bench, check_order, predicted_unsynchronised_bug, Clocks, LineBufferStim};
use tilerast_verif::lockstep::{Flushes, Lockstep, Sink};

fn stim(clocks: Clocks, pixels: usize, flush_ppm: u64) -> LineBufferStim {
    LineBufferStim {
        seed: 0x1b,
        pixels,
        clocks,
        valid_pct: 85,
        ready_pct: 80,
        flush_ppm,
        flush_len: 12,
    }
}

#[test]
fn every_pixel_comes_out_once_in_order_ulx3s() {
    for clocks in [
        Clocks::Periodic {
            write: 1,
            read: 4,
            phase: 0,
        },
        Clocks::Periodic {
            write: 4,
            read: 1,
            phase: 0,
        },
        Clocks::Periodic {
            write: 3,
            read: 5,
            phase: 2,
        },
        Clocks::Random {
            write_pct: 55,
            read_pct: 50,
        },
    ] {
        let s = stim(clocks, 50_000, 0);
        let mut ls = Lockstep::new(LineBufferCycle::default(), bench(&s));
        cosim_lockstep("ulx3s", &mut ls, 400_000, None).unwrap_or_else(|e| panic!("{clocks:?}: {e}"));
        println!("{clocks:?}: {}", ls.bench.summary());
        let got = &ls.bench.get::<Sink<ports::VideoPixel>>("out").received;
        let n = check_order(got, false, s.pixels).unwrap_or_else(|e| panic!("{clocks:?}: {e}"));
        let m = &ls.model;
        let (full, empty) = (m.full_edges, m.empty_edges);
        println!(
            "{n} out, {full} write edges full, {empty} read edges empty, peak {}",
            m.fifo.peak()
        );
        // Every relation runs the FIFO dry; all but the read clock four times faster fill it.
        let reads_faster = matches!(clocks, Clocks::Periodic { write: 4, read: 1, .. });
        assert!(
            n > 20_000 && empty > 0 && (full > 0 || reads_faster),
            "{clocks:?}: {n} out, {full} full, {empty} empty"
        );
    }
}

#[test]
fn rtl_matches_cycle_model_ulx3s_under_flushes() {
    let s = stim(
        Clocks::Random {
            write_pct: 60,
            read_pct: 50,
        },
        50_000,
        500,
    );
    let mut ls = Lockstep::new(LineBufferCycle::default(), bench(&s));
    cosim_lockstep("ulx3s", &mut ls, 300_000, None).unwrap_or_else(|e| panic!("{e}"));
    println!("{}", ls.bench.summary());
    let f = ls.bench.get::<Flushes>("flush");
    let got = &ls.bench.get::<Sink<ports::VideoPixel>>("out").received;
    let n = check_order(got, true, s.pixels).unwrap_or_else(|e| panic!("{e}"));
    assert!(
        f.busy >= 20 && n > 10_000,
        "{n} out, {} flush steps ({} busy)",
        f.count,
        f.busy
    );
}

#[test]
fn the_planted_unsynchronised_bug_is_caught_at_the_predicted_step_ulx3s() {
    let s = stim(
        Clocks::Periodic {
            write: 4,
            read: 1,
            phase: 0,
        },
        5_000,
        0,
    );
    let steps = 20_000;
    let (pc, pp) = predicted_unsynchronised_bug(&s, steps);
    let mut ls = Lockstep::new(LineBufferCycle::default(), bench(&s));
    let m = cosim_lockstep("ulx3s_mut", &mut ls, steps, None).expect_err("the mutant is caught");
    println!("predicted: step {pc}, {pp}; caught: {}", m.ports_line());
    assert_eq!((m.cycle, m.port.as_str()), (pc, pp.as_str()));
}
