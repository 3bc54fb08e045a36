//! The display path (`hw/src/display_path.rs`: arbiter, SDRAM controller, scan-out, line
//! buffer, video output) against its cycle model `DisplayPathCycle`, in rust-hdl, every port on
//! every step, through the one lock-step harness, on the shared bench
//! (`tilerast_verif::display_path`), at a small size rust-hdl runs in seconds: the ULX3S's
//! SDRAM part at 10 MHz (its 100 µs power-up is 1 000 clocks), the 8 × 3 test mode at a quarter
//! of it, an 8 × 3 picture:
//!
//! - the picture comes out on the TMDS characters, decoded frame after frame, while the GPU
//!   port's reads and writes go beside it, and the SDRAM chip sees no datasheet rule broken;
//!   the first walk, started before the SDRAM is ready, underruns, and the next walk's start
//!   drops what it left in the line buffer;
//! - the planted fault (`c_gpu_first`: the GPU port before the scan-out) caught at the step and
//!   port the model with the same fault predicts.
//!
//! The block has a second clock: [`Gated`] drives `pixel_clock` with the harness's step clock
//! through a clock gate whose enable (the step's `pixel_clock` bit, latched while the step
//! clock is low) says whether the pixel clock has its rising edge in the step.

mod common;

use rust_hdl::prelude::*;
use tilerast_golden::board::board;
use tilerast_golden::display_path::DisplayPathCycle;
use tilerast_golden::scan_out::ScanOutParams;
use tilerast_golden::streams::ports;
use tilerast_golden::video_out::TEST_MODE;
use tilerast_hw::display_path::DisplayPath;
use tilerast_verif::display_path::{bench, decode, expected_frame, DisplayStim};
use tilerast_verif::lockstep::{first_difference, Lockstep, SdramChipAgent, Sink};

crate::gated!(Gated(DisplayPath) {
    step: clock,
    gated: [pixel_clock / pixel_edge / pixel_enable]
});

/// The small run (see the file header).
fn stim() -> DisplayStim {
    let mut f = board("ulx3s").unwrap().frame.unwrap();
    f.sdram_hz = 10_000_000;
    f.pixel_hz = 2_500_000;
    f.video = TEST_MODE;
    DisplayStim {
        seed: 7,
        board: f,
        scan: ScanOutParams::new(8, 3, 1, 16).unwrap(),
        base: 0x0010_0000,
        gpu_base: 0x0040_0000,
        gpu_requests: 600,
        gpu_pct: 30,
        ratio: 4,
    }
}

fn model(s: &DisplayStim) -> DisplayPathCycle {
    DisplayPathCycle::new(&s.board, s.scan)
}

#[test]
fn the_picture_comes_out_and_the_rtl_equals_the_model() {
    let s = stim();
    let steps = 6_000;
    let (b, act) = bench(&s);
    let (ls, outcome) = common::lockstep(
        Gated::new(DisplayPath::new(&s.board, &s.scan)),
        Lockstep::new(model(&s), b),
        steps,
        None,
    );
    println!("{}", ls.bench.summary());
    if let Err(m) = outcome {
        panic!("{m}");
    }
    let chip = ls.bench.get::<SdramChipAgent>("sdram");
    assert!(chip.violation.is_none(), "{:?}", chip.violation);
    let words = &ls.bench.get::<Sink<ports::DviWord>>("tmds").received;
    let frames = decode(&s.board, words).unwrap_or_else(|e| panic!("{e}"));
    let want = expected_frame(&s);
    let a = act.lock().unwrap().clone();
    println!("{a:?}; {} frames decoded", frames.len());
    // The first walk starts at the first vertical blank, before the SDRAM has finished its
    // power-up: the line buffer runs dry in its frame (the video output holds its last pixel
    // for a clock, a word stays unread), and the next walk's start drops what it left. From
    // then on every frame is the picture, pixel for pixel.
    let shown: Vec<bool> = frames.iter().map(|f| f.rgb == want).collect();
    let first = shown.iter().position(|&x| x).expect("the picture shown");
    assert!(shown[first..].iter().all(|&x| x), "a later frame differs: {shown:?}");
    assert!(frames.len() - first >= 10, "{shown:?}");
    assert!(
        !shown[..first].is_empty() && a.underrun_steps > 0,
        "the first walk underran (the drop had something to do): {shown:?}"
    );
    assert!(a.gpu_taken > 300 && a.gpu_answers > 100, "{a:?}");
    assert!(a.gpu_stalls > 0 && a.starts as usize >= frames.len(), "{a:?}");
}

#[test]
fn the_planted_gpu_first_fault_is_caught_at_the_predicted_step() {
    let s = stim();
    let steps = 3_000;
    let mut bad_model = model(&s);
    bad_model.plant_gpu_first();
    let mut good = Lockstep::new(model(&s), bench(&s).0);
    let mut bad = Lockstep::new(bad_model, bench(&s).0);
    let (pc, pp) = first_difference(&mut good, &mut bad, steps)
        .unwrap()
        .expect("the GPU port first shows on the ports");
    let (_, outcome) = common::lockstep(
        Gated::new(DisplayPath::new(&s.board, &s.scan).mutant_gpu_first()),
        Lockstep::new(model(&s), bench(&s).0),
        steps,
        None,
    );
    let m = outcome.expect_err("the mutant is caught");
    println!("predicted: step {pc}, {pp}; caught: {}", m.ports_line());
    assert_eq!((m.cycle, m.port.as_str()), (pc, pp.as_str()));
}
