//! Verilator co-simulation of the double buffer (`rtl-out/tilerast_double_buffer_ulx3s.v`: the
//! ULX3S map, two 640×480 framebuffers at 0 and 2 MiB, the frame's regions in two 14 MiB sets)
//! against its cycle model `DoubleBufferCycle`, every port on every cycle (harness:
//! `tilerast_cosim::blocks`), on the shared bench (`tilerast_verif::double_buffer`: the frame
//! top's side played from a script, a screen that latches the front buffer at each vertical
//! blank and checks each picture it shows):
//! - 6 frames with whole clears (307 200 words each): every buffer the screen shows is the next
//!   frame's picture and no write lands in the buffer on the screen;
//! - with random flushes and a request outside every window, equal on every port;
//! - the planted bug of `cosim/build/mutation.rs` (the back buffer used without waiting for the
//!   vertical blank) is caught at the cycle and port predicted from the model with the same bug.

use tilerast_cosim::blocks::cosim_lockstep;
use tilerast_golden::board::board;
use tilerast_golden::double_buffer::{BoardMap, DoubleBufferCycle};
use tilerast_verif::double_buffer::{assert_every_frame_shown, bench, predicted_no_vblank_wait_bug, DoubleBufferStim};
use tilerast_verif::lockstep::{Flushes, Lockstep};

fn map() -> BoardMap {
    BoardMap::for_board(board("ulx3s").unwrap()).unwrap()
}

fn stim(frames: usize, flush_ppm: u64, outside: bool) -> DoubleBufferStim {
    DoubleBufferStim {
        seed: 0xdb,
        frames,
        first_vblank: 1_000,
        period: 420_000,
        valid_pct: 70,
        ready_pct: 90,
        outside,
        front_max: 12,
        drawn_of_8: 4,
        flush_ppm,
    }
}

#[test]
fn every_frame_is_shown_whole_ulx3s() {
    let mut ls = Lockstep::new(DoubleBufferCycle::new(map()), bench(&map(), &stim(6, 0, false)));
    cosim_lockstep("ulx3s", &mut ls, 3_200_000, None).unwrap_or_else(|e| panic!("{e}"));
    println!("{}\n{:?}", ls.bench.summary(), ls.model.stats());
    assert_every_frame_shown(&ls.bench, 6);
    let st = ls.model.stats();
    assert_eq!((st.clears, st.clear_writes), (6, 6 * 640 * 480));
    assert!(st.framebuffer > 50 && st.held > 10_000, "{st:?}");
}

#[test]
fn rtl_matches_cycle_model_ulx3s_under_flushes() {
    let mut s = stim(6, 2, true);
    s.period = 50_000;
    let error_cycles = std::sync::Arc::new(std::sync::atomic::AtomicU64::new(0));
    let seen = error_cycles.clone();
    let mut ls = Lockstep::new(DoubleBufferCycle::new(map()), bench(&map(), &s)).watching(move |_, m| {
        seen.fetch_add(u64::from(m.error()), std::sync::atomic::Ordering::Relaxed);
    });
    cosim_lockstep("ulx3s", &mut ls, 2_000_000, None).unwrap_or_else(|e| panic!("{e}"));
    let errors = error_cycles.load(std::sync::atomic::Ordering::Relaxed);
    assert!(
        errors > 1_000,
        "the request outside every window raised `error` ({errors} cycles)"
    );
    println!("{}\n{:?}", ls.bench.summary(), ls.model.stats());
    let flushes = ls.bench.get::<Flushes>("flush");
    assert!(flushes.count >= 2, "{} flushes", flushes.count);
    let st = ls.model.stats();
    assert!(
        st.swaps >= 2 && st.clear_writes > 600_000 && st.requests > 100,
        "{st:?}"
    );
}

#[test]
fn the_planted_bug_is_caught_at_the_predicted_cycle_and_port() {
    // The bug shows after the first swap, once the first clear (307 200 words) is done.
    let cycles = 1_000_000;
    let (pc, pp) = predicted_no_vblank_wait_bug(&map(), &stim(3, 0, false), cycles);
    let mut ls = Lockstep::new(DoubleBufferCycle::new(map()), bench(&map(), &stim(3, 0, false)));
    let m = cosim_lockstep("ulx3s_mut", &mut ls, cycles, None).expect_err("the mutant is caught");
    println!("predicted: cycle {pc}, {pp}; caught: {}", m.ports_line());
    assert_eq!((m.cycle, m.port.as_str()), (pc, pp.as_str()));
}
