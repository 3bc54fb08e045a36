//! The double buffer (`hw/src/double_buffer.rs`) against its cycle model `DoubleBufferCycle`,
//! in rust-hdl, every port on every cycle, through the one lock-step harness
//! (`tilerast_verif::lockstep`, rust-hdl back end in `tests/common`), on the shared bench
//! (`tilerast_verif::double_buffer`: the frame top's side played from a script, a screen that
//! latches the front buffer at each vertical blank), on a small map (64 KiB, a 256-byte
//! framebuffer) so that clears take 64 cycles:
//!
//! - 16 frames: every buffer the screen shows is the next frame's picture, no write lands in
//!   the buffer on the screen, dones wait for the vertical blank and end tokens are held back;
//! - with random flushes and a request outside every window (`error`), still equal;
//! - the planted bug (the back buffer used without waiting for the vertical blank) caught at the
//!   cycle the cycle model predicts.

mod common;

use tilerast_golden::double_buffer::{BoardMap, DoubleBufferCycle};
use tilerast_hw::double_buffer::DoubleBuffer;
use tilerast_verif::double_buffer::{assert_every_frame_shown, bench, predicted_no_vblank_wait_bug, DoubleBufferStim};
use tilerast_verif::lockstep::{Flushes, Lockstep};

fn map() -> BoardMap {
    BoardMap::new(64 << 10, 256).unwrap()
}

fn stim(flush_ppm: u64, outside: bool) -> DoubleBufferStim {
    DoubleBufferStim {
        seed: 11,
        frames: 16,
        first_vblank: 40,
        period: 300,
        valid_pct: 70,
        ready_pct: 70,
        outside,
        front_max: 12,
        drawn_of_8: 4,
        flush_ppm,
    }
}

#[test]
fn every_frame_is_shown_whole_and_the_rtl_equals_the_model() {
    let (ls, outcome) = common::lockstep(
        DoubleBuffer::new(&map()),
        Lockstep::new(DoubleBufferCycle::new(map()), bench(&map(), &stim(0, false))),
        6_000,
        None,
    );
    println!("{}\n{:?}", ls.bench.summary(), ls.model.stats());
    if let Err(m) = outcome {
        panic!("{m}");
    }
    assert_every_frame_shown(&ls.bench, 16);
    let st = ls.model.stats();
    assert!(
        st.framebuffer > 150 && st.held > 500 && st.peak_pending >= 3 && st.ends_refused > 0,
        "{st:?}"
    );
}

#[test]
fn under_flushes_and_a_request_outside_the_map_the_rtl_equals_the_model() {
    let (ls, outcome) = common::lockstep(
        DoubleBuffer::new(&map()),
        Lockstep::new(DoubleBufferCycle::new(map()), bench(&map(), &stim(400, true))),
        6_000,
        None,
    );
    println!("{}\n{:?}", ls.bench.summary(), ls.model.stats());
    if let Err(m) = outcome {
        panic!("{m}");
    }
    let flushes = ls.bench.get::<Flushes>("flush");
    assert!(flushes.count >= 3, "{} flushes", flushes.count);
    let st = ls.model.stats();
    assert!(st.swaps >= 4 && st.clears >= 4 && st.framebuffer > 50, "{st:?}");
}

#[test]
fn the_planted_no_vblank_wait_bug_is_caught_at_the_predicted_cycle() {
    let cycles = 6_000;
    let (pc, pp) = predicted_no_vblank_wait_bug(&map(), &stim(0, false), cycles);
    let (_, outcome) = common::lockstep(
        DoubleBuffer::new(&map()).mutant_no_vblank_wait(),
        Lockstep::new(DoubleBufferCycle::new(map()), bench(&map(), &stim(0, false))),
        cycles,
        None,
    );
    let m = outcome.expect_err("the mutant is caught");
    println!("predicted: cycle {pc}, {pp}; caught: {}", m.ports_line());
    assert_eq!((m.cycle, m.port.as_str()), (pc, pp.as_str()));
}
