//! Verilator co-simulation of the display path (`rtl-out/tilerast_display_path_ulx3s.v`: the
//! arbiter, the SDRAM controller, the scan-out, the line buffer and the video output as the
//! board top wires them) against its cycle model `DisplayPathCycle`, every port on every step
//! (harness: `tilerast_cosim::blocks`; the wrapper drives `pixel_clock` with the step clock
//! gated by its bit, every fourth step: 100 and 25 MHz), on the shared bench
//! (`tilerast_verif::display_path`) at the board's own size: the SDRAM chip behind the pins
//! holding a picture in the first framebuffer, 640 × 480 at 60 Hz:
//!
//! - two video frames' time: the first whole frame, the first walk's, decodes to the picture
//!   pixel for pixel, while the GPU port's reads and writes go beside the scan-out and the chip sees no
//!   datasheet rule broken;
//! - the planted fault of `cosim/build/mutation.rs` (the GPU port before the scan-out) caught
//!   at the step and port predicted from the model with the same fault.

use tilerast_cosim::blocks::cosim_lockstep;
use tilerast_golden::board::board;
use tilerast_golden::display_path::DisplayPathCycle;
use tilerast_golden::double_buffer::BoardMap;
use tilerast_golden::scan_out::ScanOutParams;
use tilerast_golden::streams::ports;
use tilerast_verif::display_path::{bench, decode, expected_frame, DisplayStim};
use tilerast_verif::lockstep::{first_difference, Lockstep, SdramChipAgent, Sink};

fn stim() -> DisplayStim {
    let b = board("ulx3s").unwrap();
    let f = b.frame.unwrap();
    DisplayStim {
        seed: 0xd5,
        board: f,
        scan: ScanOutParams::for_board(&f).unwrap(),
        base: BoardMap::for_board(b).unwrap().buffers[0],
        gpu_base: 0x0100_0000,
        gpu_requests: 400_000,
        gpu_pct: 40,
        ratio: u64::from(f.sdram_hz / f.pixel_hz),
    }
}

fn model(s: &DisplayStim) -> DisplayPathCycle {
    DisplayPathCycle::new(&s.board, s.scan)
}

#[test]
fn the_picture_decodes_from_the_rtl_and_equals_the_model_ulx3s() {
    let s = stim();
    let steps = 2 * s.board.video.frame_clocks() * s.ratio + 20_000;
    let (b, act) = bench(&s);
    let mut ls = Lockstep::new(model(&s), b);
    cosim_lockstep("ulx3s", &mut ls, steps, None).unwrap_or_else(|m| panic!("{m}"));
    println!("{}", ls.bench.summary());
    let chip = ls.bench.get::<SdramChipAgent>("sdram");
    assert!(chip.violation.is_none(), "{:?}", chip.violation);
    let words = &ls.bench.get::<Sink<ports::DviWord>>("tmds").received;
    let frames = decode(&s.board, words).unwrap_or_else(|e| panic!("{e}"));
    let a = act.lock().unwrap().clone();
    println!("{a:?}; {} frames decoded", frames.len());
    // The receiver locks at the first vertical sync, where the first walk starts: the first
    // whole frame it decodes is that walk's.
    assert_eq!(frames.len(), 1, "one whole video frame after the first vertical sync");
    assert!(
        frames[0].rgb == expected_frame(&s),
        "the first walk's frame is the picture"
    );
    assert!(
        a.starts == 2 && a.gpu_taken > 100_000 && a.gpu_answers > 30_000,
        "{a:?}"
    );
    assert!(a.gpu_stalls > 1_000 && a.nonzero_answers > 1_000, "{a:?}");
}

#[test]
fn the_planted_gpu_first_fault_is_caught_at_the_predicted_step() {
    let s = stim();
    let steps = s.board.video.frame_clocks() * s.ratio + 20_000;
    let mut bad_model = model(&s);
    bad_model.plant_gpu_first();
    let mut good = Lockstep::new(model(&s), bench(&s).0);
    let mut bad = Lockstep::new(bad_model, bench(&s).0);
    let (pc, pp) = first_difference(&mut good, &mut bad, steps)
        .unwrap()
        .expect("the GPU port first shows on the ports");
    let mut ls = Lockstep::new(model(&s), bench(&s).0);
    let m = cosim_lockstep("ulx3s_mut", &mut ls, steps, None).expect_err("the mutant is caught");
    println!("predicted: step {pc}, {pp}; caught: {}", m.ports_line());
    assert_eq!((m.cycle, m.port.as_str()), (pc, pp.as_str()));
}
