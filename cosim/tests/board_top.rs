//! Verilator co-simulation of the board top's logic (`rtl-out/tilerast_board_top_ulx3s.v`: the
//! frame top at the ULX3S's preset and the double buffer at the GPU clock, the GPU port's
//! crossings, the display path at the memory and pixel clocks) against its cycle model
//! `BoardTopCycle`, every port on every memory-clock step (harness: `tilerast_cosim::blocks`;
//! the wrapper drives `gpu_clock` and `pixel_clock` with the step clock gated by their bits:
//! 50 and 25 MHz beside the memory's 100), on the shared bench (`tilerast_verif::board_top`):
//! the host sends four primitives of the default scene and the frame's end token; the frame top
//! renders them through the double buffer into the SDRAM chip model, the buffers swap at
//! vertical blank, and the last video frame decoded from the RTL's TMDS characters is golden's
//! render, pixel for pixel, as the golden board top's run shows it, and the display CRC the
//! RTL brought into the GPU clock is that picture's; and the planted bug of
//! `cosim/build/mutation.rs` (the request crossing without its synchroniser) is caught at the
//! step and port predicted from the model with the same bug.

use tilerast_cosim::blocks::cosim_lockstep;
use tilerast_golden::bin_setup::frame_beats;
use tilerast_golden::board::board;
use tilerast_golden::board_top::{BoardTop, BoardTopCycle};
use tilerast_golden::frame::frame_memory;
use tilerast_golden::scene::Scene;
use tilerast_golden::streams::ports;
use tilerast_verif::board_top::bench;
use tilerast_verif::display_path::decode;
use tilerast_verif::lockstep::{first_difference, Lockstep, SdramChipAgent, Sink};

#[test]
fn the_board_top_shows_golden_s_render_ulx3s() {
    let b = board("ulx3s").unwrap();
    let f = b.frame.unwrap();
    let mut frame = Scene::builtin_default().to_frame(f.preset).unwrap();
    frame.prims.truncate(4);
    let want = frame_memory(&frame, 0).unwrap().image;
    let beats = frame_beats(&frame.prims, frame.background).unwrap();
    // Golden's board top: the steps until the frame is swapped in, shown, and two more video
    // frames decoded, and the picture it decoded.
    let mut g = BoardTop::new(b, beats.clone()).unwrap();
    let golden = g.run(1, 20_000_000).unwrap_or_else(|e| panic!("{e}"));
    let steps = g.stats().ticks;
    println!("golden: {} frames done, {steps} memory clocks", g.frames.len());
    let (bench, act) = bench(&f, beats.clone());
    let mut ls = Lockstep::new(BoardTopCycle::new(b).unwrap(), bench);
    cosim_lockstep("ulx3s", &mut ls, steps, None).unwrap_or_else(|m| panic!("{m}"));
    println!("{}", ls.bench.summary());
    let chip = ls.bench.get::<SdramChipAgent>("sdram");
    assert!(chip.violation.is_none(), "{:?}", chip.violation);
    let words = &ls.bench.get::<Sink<ports::DviWord>>("tmds").received;
    let frames = decode(&f, words).unwrap_or_else(|e| panic!("{e}"));
    let a = act.lock().unwrap().clone();
    println!("{a:?}; {} frames decoded", frames.len());
    let last = frames.last().expect("video frames decoded");
    assert!(last.rgb == golden.rgb, "the RTL's last frame is golden's board top's");
    let wrong = (0..last.rgb.len())
        .filter(|&i| last.rgb[i] != [want.rgba[4 * i], want.rgba[4 * i + 1], want.rgba[4 * i + 2]])
        .count();
    assert_eq!(wrong, 0, "pixels unlike golden's render");
    let distinct: std::collections::BTreeSet<[u8; 3]> = last.rgb.iter().copied().collect();
    assert!(distinct.len() > 3, "a picture, not a blank screen");
    // The display CRC at the GPU clock (the RTL's equalled the model's on every step) is the
    // CRC of the picture the RTL's lanes decoded to.
    let crc = tilerast_golden::protocol::display_crc(last.rgb.iter().copied());
    assert_eq!(ls.model.frame_crc().0, crc, "the display CRC at the GPU clock");
    assert_eq!(a.done.len(), 1, "one frame done: {a:?}");
    assert_eq!(a.beats_taken, beats.len() as u64, "every beat taken");
    assert!(a.shown_changes >= 1 && a.map_error_steps == 0, "{a:?}");
}

/// The planted bug of `cosim/build/mutation.rs` (the request crossing's read side without its
/// synchroniser) is caught at the step and port the model with the same bug predicts.
#[test]
fn the_unsynchronised_request_crossing_is_caught_at_the_predicted_step() {
    let b = board("ulx3s").unwrap();
    let f = b.frame.unwrap();
    let mut frame = Scene::builtin_default().to_frame(f.preset).unwrap();
    frame.prims.truncate(4);
    let beats = frame_beats(&frame.prims, frame.background).unwrap();
    let steps = 60_000;
    let mut bad_model = BoardTopCycle::new(b).unwrap();
    bad_model.requests.plant_unsynchronised_bug();
    let mut good = Lockstep::new(BoardTopCycle::new(b).unwrap(), bench(&f, beats.clone()).0);
    let mut bad = Lockstep::new(bad_model, bench(&f, beats.clone()).0);
    let (pc, pp) = first_difference(&mut good, &mut bad, steps)
        .unwrap()
        .expect("the unsynchronised crossing shows on the ports");
    let mut ls = Lockstep::new(BoardTopCycle::new(b).unwrap(), bench(&f, beats).0);
    let m = cosim_lockstep("ulx3s_mut", &mut ls, steps, None).expect_err("the mutant is caught");
    println!("predicted: step {pc}, {pp}; caught: {}", m.ports_line());
    assert_eq!((m.cycle, m.port.as_str()), (pc, pp.as_str()));
}
