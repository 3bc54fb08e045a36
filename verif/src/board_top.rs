//! The board top's lock-step bench (`cosim/tests/board_top.rs`): the host sending a scene's
//! beats at the GPU clock, the SDRAM chip behind the pins, the GPU clock every `sdram_hz /
//! gpu_hz` steps and the pixel clock every `sdram_hz / pixel_hz` (each edge in the last step of
//! its group, as `tilerast_golden::board_top::BoardTop` ticks), every pixel clock's TMDS
//! characters taken, to be decoded afterwards ([`crate::display_path::decode`]).

use crate::lockstep::{Bench, Flushes, Level, Observer, SdramChipAgent, Sink, Source};
use std::sync::{Arc, Mutex};
use tilerast_golden::board::FrameBoard;
use tilerast_golden::sdram_chip::SdramChip;
use tilerast_golden::streams::{ports, PrimIn};

/// What the bench saw: the frame top's done pulses (at GPU edges: frame id, step), the steps
/// with `shown` changing, the host's beats taken.
#[derive(Clone, Debug, Default)]
pub struct BoardActivity {
    pub done: Vec<(u64, u64)>,
    pub shown_changes: u64,
    pub beats_taken: u64,
    pub map_error_steps: u64,
}

/// The bench: agents `gpu_clock`, `pixel_clock`, `flush` (never), `inp` (`beats`, always
/// offered, at the GPU clock), `tmds` (always ready, at the pixel clock), `sdram`, `activity`.
pub fn bench(f: &FrameBoard, beats: Vec<PrimIn>) -> (Bench, Arc<Mutex<BoardActivity>>) {
    bench_from(f, beats, 0)
}

/// [`bench`] with the beats offered from memory clock `first` on (the frame host's RUN FRAME:
/// `tilerast_golden::frame_host::FrameHostBench::first_offer_tick`), back to back until the
/// last is taken: the board top's inputs of a run through the UART.
pub fn bench_from(f: &FrameBoard, beats: Vec<PrimIn>, first: u64) -> (Bench, Arc<Mutex<BoardActivity>>) {
    let gpu = u64::from(f.sdram_hz / f.gpu_hz);
    let pixel = u64::from(f.sdram_hz / f.pixel_hz);
    let act = Arc::new(Mutex::new(BoardActivity::default()));
    let a = act.clone();
    let mut last_shown = None;
    let observer = Observer::new(move |c, i, o| {
        let mut a = a.lock().unwrap();
        if i.bit("gpu_clock") {
            if o.bit("done_valid") {
                a.done.push((o.get("done_frame").unwrap_or(0), c));
            }
            a.beats_taken += (i.bit("in_valid") && o.bit("in_ready")) as u64;
        }
        let shown = o.bit("shown");
        a.shown_changes += (last_shown.is_some_and(|l| l != shown)) as u64;
        last_shown = Some(shown);
        a.map_error_steps += o.bit("map_error") as u64;
    });
    let b = Bench::new()
        .with(
            "gpu_clock",
            Level::new("gpu_clock", move |c| u64::from((c + 1) % gpu == 0)),
        )
        .with(
            "pixel_clock",
            Level::new("pixel_clock", move |c| u64::from((c + 1) % pixel == 0)),
        )
        .with("flush", Flushes::when(Box::new(|_| false)))
        .with(
            "inp",
            Source::<ports::PrimIn>::new("inp", beats, Box::new(move |c| c >= first)).on_clock("gpu_clock"),
        )
        .with(
            "tmds",
            Sink::<ports::DviWord>::new("tmds", Box::new(|_| true)).on_clock("pixel_clock"),
        )
        .with(
            "sdram",
            SdramChipAgent::new(SdramChip::new(f.sdram, f64::from(f.sdram_hz))),
        )
        .with("activity", observer);
    (b, act)
}
