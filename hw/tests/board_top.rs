//! The board top's logic (`hw/src/board_top.rs`: the frame top at the ULX3S's preset, the
//! double buffer, the GPU port's crossings, the display path) against its cycle model
//! `BoardTopCycle`, in rust-hdl, every port on every step of the first 2 500 memory clocks: the
//! host's first beats going in at the GPU clock, the double buffer's clear of the back buffer queueing
//! in the request crossing while the SDRAM powers up, the video output's first lines. rust-hdl
//! runs this top at a few hundred steps a second; the whole frame, its swap and its picture are
//! proven in Verilator (`cosim/tests/board_top.rs`).
//!
//! The block has two further clocks: [`Gated`] drives `gpu_clock` and `pixel_clock` with the
//! harness's step clock through clock gates whose enables (the step's bits, latched while the
//! step clock is low) say whether that clock has its rising edge in the step.

mod common;

use rust_hdl::prelude::*;
use tilerast_golden::bin_setup::frame_beats;
use tilerast_golden::board::board;
use tilerast_golden::board_top::BoardTopCycle;
use tilerast_golden::scene::Scene;
use tilerast_hw::board_top::BoardTop;
use tilerast_verif::board_top::bench;
use tilerast_verif::lockstep::Lockstep;

crate::gated!(Gated(BoardTop) {
    step: clock,
    gated: [gpu_clock / gpu_edge / gpu_enable, pixel_clock / pixel_edge / pixel_enable]
});

#[test]
fn the_board_top_equals_its_model_from_power_up() {
    common::big_stack(run);
}

fn run() {
    let b = board("ulx3s").unwrap();
    let f = b.frame.unwrap();
    let mut frame = Scene::builtin_default().to_frame(f.preset).unwrap();
    frame.prims.truncate(4);
    let beats = frame_beats(&frame.prims, frame.background).unwrap();
    let (bench, act) = bench(&f, beats.clone());
    let dut = Gated::new(BoardTop::try_new(b).unwrap());
    let (ls, outcome) = common::lockstep(dut, Lockstep::new(BoardTopCycle::new(b).unwrap(), bench), 2_500, None);
    println!("{}", ls.bench.summary());
    if let Err(m) = outcome {
        panic!("{m}");
    }
    let a = act.lock().unwrap().clone();
    let m = &ls.model;
    let (written, _) = m.requests.pointers();
    println!("{a:?}; request crossing written {written}, fill {}", m.requests.fill());
    assert!(a.beats_taken >= 2, "the frame top takes the host's primitives: {a:?}");
    assert!(m.requests.fill() > 8, "the clear waits in the crossing for the SDRAM");
}
