//! The display path's lock-step bench, shared by its rust-hdl test (`hw/tests/display_path.rs`)
//! and its Verilator test (`cosim/tests/display_path.rs`): the SDRAM chip behind the pins
//! (checking every command against the datasheet) holding a picture at `base`, the pixel clock
//! every `ratio` steps, the GPU port's requests (reads and writes away from the picture) under
//! back-pressure, and every pixel clock's TMDS characters taken, to be decoded afterwards
//! ([`decode`]) and compared with the picture ([`expected_frame`]).

use crate::lockstep::{Bench, Flushes, Level, Observer, SdramChipAgent, Sink, Source};
use crate::{Pattern, Rng};
use std::sync::{Arc, Mutex};
use tilerast_golden::board::FrameBoard;
use tilerast_golden::scan_out::{pixel_of, ScanOutParams};
use tilerast_golden::sdram_chip::SdramChip;
use tilerast_golden::sdram_controller::map_addr;
use tilerast_golden::streams::{ports, DviWord, MemReq};
use tilerast_golden::video::{DviReceiver, VideoFrame};

/// A run of the display path.
#[derive(Clone, Copy, Debug)]
pub struct DisplayStim {
    pub seed: u64,
    pub board: FrameBoard,
    pub scan: ScanOutParams,
    /// The framebuffer shown (byte address).
    pub base: u32,
    /// Where the GPU port's requests go (a window of 4 rows per bank from here, away from the
    /// picture), how many, and how often one is offered (percent, in runs).
    pub gpu_base: u32,
    pub gpu_requests: usize,
    pub gpu_pct: u32,
    /// Steps per pixel clock (its edge in the last step of each group, as the board top's).
    pub ratio: u64,
}

/// The picture's word at framebuffer pixel (x, y): every byte lane varies.
pub fn picture_word(x: u32, y: u32) -> u32 {
    (x.wrapping_mul(37) ^ y.wrapping_mul(101)).wrapping_mul(0x0101_0101) ^ (x << 16) ^ (y << 3) ^ 0x00a5_5a00
}

/// The chip with the picture at `s.base` (row 0 at the framebuffer's bottom, as the frame top
/// writes it: the scan-out reads it top row first).
pub fn chip(s: &DisplayStim) -> SdramChip {
    let mut chip = SdramChip::new(s.board.sdram, f64::from(s.board.sdram_hz));
    for y in 0..s.scan.height {
        for x in 0..s.scan.width {
            let addr = s.base + 4 * (y * s.scan.width + x);
            let (bank, row, column) = map_addr(&s.board.sdram, addr).expect("the picture fits the part");
            let w = picture_word(x, y);
            chip.set_word(bank, row, column, w as u16);
            chip.set_word(bank, row, column + 1, (w >> 16) as u16);
        }
    }
    chip
}

/// The visible frame the picture makes: screen pixel (c, l) is the word at
/// `ScanOutParams::address`.
pub fn expected_frame(s: &DisplayStim) -> Vec<[u8; 3]> {
    let m = &s.board.video;
    let mut v = Vec::new();
    for l in 0..m.v_active {
        for c in 0..m.h_active {
            let a = (s.scan.address(s.base, c, l) - s.base) / 4;
            let p = pixel_of(picture_word(a % s.scan.width, a / s.scan.width));
            v.push([p.red, p.green, p.blue]);
        }
    }
    v
}

/// The GPU port's requests: [`crate::sdram::requests`] moved to `gpu_base`.
pub fn gpu_requests(s: &DisplayStim) -> Vec<MemReq> {
    crate::sdram::requests(s.seed, s.gpu_requests, s.board.sdram.columns / 2)
        .into_iter()
        .map(|r| MemReq {
            addr: r.addr.wrapping_add(s.gpu_base),
            ..r
        })
        .collect()
}

/// What the bench saw.
#[derive(Clone, Debug, Default)]
pub struct DisplayActivity {
    pub gpu_taken: u64,
    pub gpu_answers: u64,
    pub nonzero_answers: u64,
    /// Steps the GPU port offered and was refused.
    pub gpu_stalls: u64,
    pub starts: u64,
    pub tmds_words: u64,
    pub underrun_steps: u64,
}

/// The bench under `s`: agents `pixel_clock`, `base`, `flush` (never), `inp`, `out`, `tmds`
/// (always ready, at the pixel clock), `sdram`, `activity`.
pub fn bench(s: &DisplayStim) -> (Bench, Arc<Mutex<DisplayActivity>>) {
    let mut valid = Pattern::Runs { pct: s.gpu_pct }.line(Rng::stream(s.seed, 0));
    let mut ready = Pattern::RandomStalls {
        pct: 85,
        permille: 4,
        min: 5,
        max: 80,
    }
    .line(Rng::stream(s.seed, 1));
    let (ratio, base) = (s.ratio, u64::from(s.base));
    let act = Arc::new(Mutex::new(DisplayActivity::default()));
    let a = act.clone();
    let observer = Observer::new(move |_, i, o| {
        let mut a = a.lock().unwrap();
        a.gpu_taken += (i.bit("in_valid") && o.bit("in_ready")) as u64;
        a.gpu_stalls += (i.bit("in_valid") && !o.bit("in_ready")) as u64;
        if o.bit("out_valid") && i.bit("out_ready") {
            a.gpu_answers += 1;
            a.nonzero_answers += (o.get("out__rdata") != Some(0)) as u64;
        }
        a.starts += o.bit("started") as u64;
        a.tmds_words += (i.bit("pixel_clock") && o.bit("tmds_valid")) as u64;
        a.underrun_steps += o.bit("underrun") as u64;
    });
    let b = Bench::new()
        .with(
            "pixel_clock",
            Level::new("pixel_clock", move |c| u64::from((c + 1) % ratio == 0)),
        )
        .with("base", Level::new("base", move |_| base))
        .with("flush", Flushes::when(Box::new(|_| false)))
        .with(
            "inp",
            Source::<ports::MemReq>::new("inp", gpu_requests(s), Box::new(move |_| valid.step())),
        )
        .with(
            "out",
            Sink::<ports::MemResp>::new("out", Box::new(move |_| ready.step())),
        )
        .with(
            "tmds",
            Sink::<ports::DviWord>::new("tmds", Box::new(|_| true)).on_clock("pixel_clock"),
        )
        .with("sdram", SdramChipAgent::new(chip(s)))
        .with("activity", observer);
    (b, act)
}

/// The video frames the characters received make (every pixel clock's, from the first).
pub fn decode(board: &FrameBoard, words: &[DviWord]) -> Result<Vec<VideoFrame>, String> {
    let mut rx = DviReceiver::new(board.video);
    for w in words {
        rx.receive([w.blue, w.green, w.red])?;
    }
    Ok(rx.frames)
}
