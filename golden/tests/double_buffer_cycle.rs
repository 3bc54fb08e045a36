//! double_buffer's cycle model against the references, on the shared bench
//! (`tilerast_verif::double_buffer`: the frame top's side played from a script, a screen that
//! latches the front buffer at each vertical blank):
//! - every buffer the screen shows is the next frame's picture (its background everywhere,
//!   then its framebuffer writes: `frame::frame_memory`'s framebuffer), every frame is shown
//!   once, in order, and no write ever lands in the buffer on the screen;
//! - the other regions reach their windows of the board map, the framebuffer requests wait
//!   for their buffer, dones pile up behind the vertical blank and end tokens are held back;
//! - a request outside every window sets `error` and goes to the memory's limit;
//! - the planted bug (the back buffer used without waiting for the vertical blank) tears the
//!   picture on the screen.

use tilerast_golden::double_buffer::{BoardMap, DoubleBufferCycle, END_DEPTH};
use tilerast_golden::frame::{PIXEL_INFO, PRIMS};
use tilerast_verif::double_buffer::{assert_every_frame_shown, bench, DoubleBufferStim, Screen};
use tilerast_verif::lockstep::Lockstep;

fn map() -> BoardMap {
    BoardMap::new(64 << 10, 256).unwrap()
}

fn stim() -> DoubleBufferStim {
    DoubleBufferStim {
        seed: 3,
        frames: 16,
        first_vblank: 40,
        period: 300,
        valid_pct: 70,
        ready_pct: 70,
        outside: false,
        front_max: 12,
        drawn_of_8: 4,
        flush_ppm: 0,
    }
}

fn run(model: DoubleBufferCycle, s: &DoubleBufferStim, cycles: u64) -> Lockstep<DoubleBufferCycle> {
    let mut ls = Lockstep::new(model, bench(&map(), s));
    for _ in 0..cycles {
        ls.step().unwrap();
    }
    println!("{}\n{:?}", ls.bench.summary(), ls.model.stats());
    ls
}

#[test]
fn every_frame_is_shown_whole_in_order_and_never_torn() {
    let ls = run(DoubleBufferCycle::new(map()), &stim(), 6_000);
    assert_every_frame_shown(&ls.bench, 16);
    let screen = ls.bench.get::<Screen>("screen");
    let st = ls.model.stats();
    assert_eq!((st.swaps, st.clears), (16, 16));
    assert_eq!(st.clear_writes, 16 * 64);
    assert!(st.framebuffer > 200 && st.requests > st.framebuffer + 100, "{st:?}");
    assert!(st.held > 500, "framebuffer requests wait for their buffer: {st:?}");
    assert!(st.peak_pending >= 2, "dones wait for the vertical blank: {st:?}");
    assert!(st.ends_refused > 0, "the backgrounds FIFO fills ({END_DEPTH})");
    assert!(!ls.model.error());
    // The other regions' writes landed in their windows of the map (frame 0 writes set 0).
    let m = map();
    let in_window = |a: u32| m.windows.iter().flatten().any(|&(b, n)| a >= b && a - b < n);
    assert!(screen.memory.words().any(|(a, _)| in_window(a)));
    assert!(screen
        .memory
        .words()
        .all(|(a, _)| in_window(a) || a < m.buffers[1] + m.fb_bytes));
}

#[test]
fn a_request_outside_every_window_sets_error_and_goes_to_the_limit() {
    let m = map();
    let mut db = DoubleBufferCycle::new(m);
    let q = |addr| tilerast_golden::streams::MemReq {
        addr,
        write: true,
        wdata: 1,
        be: 0xf,
    };
    let end = Default::default();
    db.clock(true, &q(PRIMS + 4), true, false, &end, false, false, false);
    assert_eq!(db.out(), (true, q(m.windows[0][0].0 + 4)));
    assert!(!db.error());
    db.clock(
        true,
        &q(PIXEL_INFO + m.windows[0][2].1),
        true,
        false,
        &end,
        false,
        false,
        false,
    );
    assert_eq!(db.out(), (true, q(m.limit)));
    assert!(db.error());
    let mut s = stim();
    s.outside = true;
    let ls = run(DoubleBufferCycle::new(m), &s, 6_000);
    assert!(ls.model.error());
    assert!(ls.bench.get::<Screen>("screen").wrong.is_empty());
}

#[test]
fn the_planted_bug_tears_the_picture() {
    let mut bad = DoubleBufferCycle::new(map());
    bad.plant_no_vblank_wait_bug();
    let ls = run(bad, &stim(), 6_000);
    let screen = ls.bench.get::<Screen>("screen");
    assert!(screen.torn > 0 && !screen.wrong.is_empty(), "{}", screen.torn);
}
