//! The line buffer (`hw/src/line_buffer.rs`, the crossing FIFO of `hw/src/crossing.rs`)
//! against its cycle model `LineBufferCycle`, in rust-hdl, every port on every step, through the
//! one lock-step harness (`tilerast_verif::lockstep`, rust-hdl back end in `tests/common`), on
//! the shared bench (`tilerast_verif::line_buffer`):
//!
//! - write clock four times the read clock (the board: memory 100, pixel 25 MHz), the read
//!   clock four times the write clock, and both at random: every pixel comes out once, in order;
//! - under flushes held over both clocks' edges, still equal;
//! - the planted bug (`c_unsynchronised`: the read side without its synchroniser) caught at the
//!   step and port the cycle model with the same bug predicts.
//!
//! The block has two clocks and no step clock: [`Gated`] runs it from the harness's step clock,
//! each of its clocks the step clock through a clock gate whose enable (the step's
//! `write_clock` / `read_clock` bit, latched while the step clock is low) says whether that
//! clock has its rising edge in the step. Edges in one step coincide, as from one PLL.

mod common;

use rust_hdl::prelude::*;
use tilerast_golden::line_buffer::LineBufferCycle;
use tilerast_golden::streams::ports;
use tilerast_hw::line_buffer::LineBuffer;
use tilerast_verif::line_buffer::{bench, check_order, predicted_unsynchronised_bug, Clocks, LineBufferStim};
use tilerast_verif::lockstep::{Flushes, Lockstep, Sink};

crate::gated!(Gated(LineBuffer) {
    step: ,
    gated: [write_clock / write_edge / write_enable, read_clock / read_edge / read_enable]
});

fn stim(clocks: Clocks, flush_ppm: u64) -> LineBufferStim {
    LineBufferStim {
        seed: 11,
        pixels: 1_500,
        clocks,
        valid_pct: 85,
        ready_pct: 80,
        flush_ppm,
        flush_len: 12,
    }
}

#[test]
fn every_pixel_comes_out_in_order_and_the_rtl_equals_the_model() {
    for (clocks, steps) in [
        (
            Clocks::Periodic {
                write: 1,
                read: 4,
                phase: 0,
            },
            6_000,
        ),
        (
            Clocks::Periodic {
                write: 4,
                read: 1,
                phase: 0,
            },
            4_000,
        ),
        (
            Clocks::Random {
                write_pct: 60,
                read_pct: 45,
            },
            6_000,
        ),
    ] {
        let s = stim(clocks, 0);
        let (ls, outcome) = common::lockstep(
            Gated::new(LineBuffer::default()),
            Lockstep::new(LineBufferCycle::default(), bench(&s)),
            steps,
            None,
        );
        println!("{clocks:?}: {}", ls.bench.summary());
        if let Err(m) = outcome {
            panic!("{clocks:?}: {m}");
        }
        let got = &ls.bench.get::<Sink<ports::VideoPixel>>("out").received;
        let n = check_order(got, false, s.pixels).unwrap_or_else(|e| panic!("{clocks:?}: {e}"));
        let m = &ls.model;
        assert!(
            n > 300 && m.empty_edges > 0,
            "{clocks:?}: {n} out, {} empty edges",
            m.empty_edges
        );
        if let Clocks::Periodic { write: 1, .. } = clocks {
            assert!(m.full_edges > 0, "{clocks:?}: the FIFO fills");
        }
    }
}

#[test]
fn under_flushes_the_line_buffer_equals_its_model() {
    let s = stim(
        Clocks::Random {
            write_pct: 60,
            read_pct: 50,
        },
        3_000,
    );
    let (ls, outcome) = common::lockstep(
        Gated::new(LineBuffer::default()),
        Lockstep::new(LineBufferCycle::default(), bench(&s)),
        3_000,
        None,
    );
    println!("{}", ls.bench.summary());
    if let Err(m) = outcome {
        panic!("{m}");
    }
    let f = ls.bench.get::<Flushes>("flush");
    let got = &ls.bench.get::<Sink<ports::VideoPixel>>("out").received;
    let n = check_order(got, true, s.pixels).unwrap_or_else(|e| panic!("{e}"));
    assert!(
        f.busy >= 3 && n > 200,
        "{n} out, {} flush steps ({} busy)",
        f.count,
        f.busy
    );
}

#[test]
fn the_planted_unsynchronised_bug_is_caught_at_the_predicted_step() {
    let s = stim(
        Clocks::Periodic {
            write: 4,
            read: 1,
            phase: 0,
        },
        0,
    );
    let steps = 2_000;
    let (pc, pp) = predicted_unsynchronised_bug(&s, steps);
    let (_, outcome) = common::lockstep(
        Gated::new(LineBuffer::new(true)),
        Lockstep::new(LineBufferCycle::default(), bench(&s)),
        steps,
        None,
    );
    let m = outcome.expect_err("the mutant is caught");
    println!("predicted: step {pc}, {pp}; caught: {}", m.ports_line());
    assert_eq!((m.cycle, m.port.as_str()), (pc, pp.as_str()));
}
