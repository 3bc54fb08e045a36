//! # The board top's cycle model (issue 35): its memory and display half
//!
//! `tilerast_top_ulx3s_frame` puts the frame top on a board with an SDRAM and a screen. This
//! module composes the board blocks' cycle models the way the board top wires them, in their
//! clock domains, so that what the blocks promise one by one (the scan-out's credits, the
//! arbiter's priority, the SDRAM controller's throughput, the line buffer's crossing, the
//! video output's timing) is checked together: a framebuffer in the SDRAM comes out of the
//! TMDS lanes as the picture, frame after frame, without an underrun, while the GPU's port
//! takes what the scan-out leaves. The GPU half (the frame top, the double buffer and the
//! GPU port's crossing) is the next step; here the GPU's port is a queue of requests.
//!
//! ```text
//!  memory clock (sdram_hz)                                     │ pixel clock (pixel_hz)
//!  gpu requests ─► mem_arbiter ─► sdram_controller ─► chip     │
//!                  ▲ scan_rd  │ scan_rsp                       │
//!  vblank ─sync─► scan_out ◄──┘  ──► line buffer (FIFO_WORDS) ─┼─► video_out ─► DviWord ─► DviReceiver
//!   (rising: start)  ▲ fill ◄── read count ─sync──────────────┼──┘   (a pixel per active clock)
//! ```
//!
//! **Clocks.** One tick is a memory-clock edge; the pixel clock's edge comes every `ratio` =
//! `sdram_hz / pixel_hz` ticks (the ULX3S: 4), at the tick's end (both from one PLL).
//!
//! **The line buffer** is the clock-crossing FIFO the board top builds (a gray-coded pointer
//! pair, each crossing through two flops): the write side's `fill` is the words written minus
//! the read count as the memory clock saw it two edges ago; the read side sees a word once the
//! write count has passed two pixel-clock flops. `vblank` crosses the same way; its rising edge
//! is the scan-out's `start`.

use crate::board::FrameBoard;
use crate::cycle::CycleModel;
use crate::mem_arbiter::MemArbiterCycle;
use crate::scan_out::{ScanOutCycle, ScanOutParams};
use crate::sdram_chip::SdramChip;
use crate::sdram_controller::{map_addr, SdramControllerCycle};
use crate::streams::{MemReq, VideoPixel};
use crate::video::{DviReceiver, LinkWord};
use crate::video_out::VideoOutCycle;
use std::collections::VecDeque;

/// Flops of each synchroniser (pointer or level) between the clock domains.
pub const SYNC_FLOPS: usize = 2;

/// A level through [`SYNC_FLOPS`] flops of the destination clock.
#[derive(Clone, Debug)]
struct Synchroniser<T: Copy + Default> {
    flops: VecDeque<T>,
}

impl<T: Copy + Default> Synchroniser<T> {
    fn new() -> Self {
        Synchroniser {
            flops: VecDeque::from(vec![T::default(); SYNC_FLOPS]),
        }
    }
    /// The value the destination sees (the last flop).
    fn out(&self) -> T {
        self.flops[0]
    }
    /// A destination edge sampling `v`.
    fn clock(&mut self, v: T) {
        self.flops.pop_front();
        self.flops.push_back(v);
    }
}

/// The line buffer: words written at memory edges, read at pixel edges, each side seeing the
/// other's count through a synchroniser.
#[derive(Clone, Debug)]
struct LineBuffer {
    words: VecDeque<VideoPixel>,
    written: u64,
    read: u64,
    /// The read count at the memory clock, the write count at the pixel clock.
    read_at_write: Synchroniser<u64>,
    written_at_read: Synchroniser<u64>,
    peak: usize,
}

impl LineBuffer {
    fn fill(&self) -> u32 {
        (self.written - self.read_at_write.out()) as u32
    }
    fn readable(&self) -> bool {
        self.written_at_read.out() > self.read
    }
}

/// What a run saw, for tests that assert activity.
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq)]
pub struct DisplayStats {
    pub ticks: u64,
    pub pixel_clocks: u64,
    /// Reads and writes of the GPU's port performed, and answers it got.
    pub gpu_requests: u64,
    pub gpu_answers: u64,
    /// Most words the line buffer held.
    pub peak_line_words: usize,
    /// Scan-out walks started (rising edges of the synchronised vblank).
    pub starts: u64,
    /// Active pixel clocks with no word in the line buffer, after the first walk started (the
    /// video output sends black there and sets its sticky `underrun`), and the first one's
    /// pixel clock.
    pub underruns: u64,
    pub first_underrun: Option<u64>,
}

/// The board top's memory and display half, tick by tick (see the module header).
pub struct DisplayPath {
    pub board: FrameBoard,
    ratio: u64,
    /// The framebuffer shown (its byte address in the SDRAM).
    pub base: u32,
    pub sdram: SdramControllerCycle,
    pub chip: SdramChip,
    pub arbiter: MemArbiterCycle,
    pub scan_out: ScanOutCycle,
    pub video_out: VideoOutCycle,
    pub receiver: DviReceiver,
    line: LineBuffer,
    vblank: Synchroniser<bool>,
    vblank_seen: bool,
    /// The GPU's port: requests waiting, oldest first.
    pub gpu: VecDeque<MemReq>,
    /// The planted fault of the starvation test: the GPU's port before the scan-out.
    gpu_first: bool,
    /// Every pixel clock's characters, with `capture` on.
    pub capture: Option<Vec<LinkWord>>,
    /// The first datasheet rule the SDRAM chip saw broken, the first DVI error.
    pub violation: Option<String>,
    stats: DisplayStats,
}

impl DisplayPath {
    /// The display half of `board`'s frame row, showing the framebuffer at `base`.
    pub fn new(board: FrameBoard, base: u32) -> Result<DisplayPath, String> {
        if !board.sdram_hz.is_multiple_of(board.pixel_hz) {
            return Err(format!(
                "board: the SDRAM clock ({} Hz) is not a whole multiple of the pixel clock ({} Hz)",
                board.sdram_hz, board.pixel_hz
            ));
        }
        let hz = f64::from(board.sdram_hz);
        Ok(DisplayPath {
            board,
            ratio: u64::from(board.sdram_hz / board.pixel_hz),
            base,
            sdram: SdramControllerCycle::new(board.sdram, hz, board.cas_latency),
            chip: SdramChip::new(board.sdram, hz),
            arbiter: MemArbiterCycle::new(2),
            scan_out: ScanOutCycle::new(ScanOutParams::for_board(&board)?),
            video_out: VideoOutCycle::new(board.video),
            receiver: DviReceiver::new(board.video),
            line: LineBuffer {
                words: VecDeque::new(),
                written: 0,
                read: 0,
                read_at_write: Synchroniser::new(),
                written_at_read: Synchroniser::new(),
                peak: 0,
            },
            vblank: Synchroniser::new(),
            vblank_seen: false,
            gpu: VecDeque::new(),
            gpu_first: false,
            capture: None,
            violation: None,
            stats: DisplayStats::default(),
        })
    }

    /// The planted fault of the starvation test: the arbiter serves the GPU's port first.
    pub fn plant_gpu_first(&mut self) {
        self.gpu_first = true;
    }

    pub fn stats(&self) -> DisplayStats {
        DisplayStats {
            peak_line_words: self.line.peak,
            ..self.stats
        }
    }

    /// Write 32-bit `word` at byte address `addr` straight into the chip (what a finished
    /// frame leaves there).
    pub fn preload(&mut self, addr: u32, word: u32) -> Result<(), String> {
        let (bank, row, column) =
            map_addr(&self.board.sdram, addr).ok_or_else(|| format!("preload: address {addr:#x} beyond the SDRAM"))?;
        self.chip.set_word(bank, row, column, word as u16);
        self.chip.set_word(bank, row, column + 1, (word >> 16) as u16);
        Ok(())
    }

    /// One memory-clock edge (and the pixel clock's, every `ratio` ticks).
    pub fn tick(&mut self) {
        let t = self.stats.ticks;
        self.stats.ticks += 1;
        // The memory clock's combinational settle: the scan-out's read and the GPU's request
        // into the arbiter (client 0 the scan-out, or the GPU with the planted fault).
        let (scan_valid, scan_req) = self.scan_out.rd();
        let gpu = (!self.gpu.is_empty(), self.gpu.front().copied().unwrap_or_default());
        let scan = (scan_valid, scan_req);
        let req = if self.gpu_first { [gpu, scan] } else { [scan, gpu] };
        let (gpu_index, scan_index) = if self.gpu_first { (0, 1) } else { (1, 0) };
        let mut rsp_ready = [true; 2];
        rsp_ready[scan_index] = self.scan_out.in_ready(true);
        let d = self.arbiter.decide(&req, &rsp_ready);
        let out_ready = self.sdram.in_ready();
        let (answer_valid, answer) = self.sdram.out();
        let taken = d.out_valid && out_ready;
        let answer_to_scan = answer_valid && d.rsp_valid[scan_index];
        let answer_to_gpu = answer_valid && d.rsp_valid[gpu_index] && d.inp_ready;
        // The edge.
        // The chip and the controller at one edge: each sees the other's pins before it.
        let (dq, pins) = (self.chip.dq().unwrap_or(0), self.sdram.pins());
        self.sdram.clock(d.out_valid, &d.out, d.inp_ready, dq, false);
        if self.violation.is_none() {
            if let Err(v) = self.chip.clock(&pins) {
                self.violation = Some(format!("sdram chip: {v}"));
            }
        }
        self.arbiter.clock(&req, out_ready, answer_valid, &rsp_ready, false);
        if taken && d.winner == gpu_index {
            self.gpu.pop_front();
            self.stats.gpu_requests += 1;
        }
        self.stats.gpu_answers += u64::from(answer_to_gpu);
        let (pixel_valid, pixel) = self.scan_out.out();
        if pixel_valid {
            self.line.words.push_back(pixel);
            self.line.written += 1;
            self.line.peak = self.line.peak.max(self.line.words.len());
        }
        let start = self.vblank.out() && !self.vblank_seen;
        self.stats.starts += u64::from(start);
        self.vblank_seen = self.vblank.out();
        let (rd_ready, fill) = (d.out_valid && out_ready && d.winner == scan_index, self.line.fill());
        self.scan_out
            .clock(answer_to_scan, &answer, true, rd_ready, start, self.base, fill, false);
        self.vblank.clock(self.video_out.vblank());
        self.line.read_at_write.clock(self.line.read);
        if (t + 1).is_multiple_of(self.ratio) {
            self.pixel_edge();
        }
    }

    fn pixel_edge(&mut self) {
        self.stats.pixel_clocks += 1;
        let (valid, word) = self.video_out.out();
        if valid {
            let w = [word.blue, word.green, word.red];
            if self.violation.is_none() {
                if let Err(e) = self.receiver.receive(w) {
                    self.violation = Some(e);
                }
            }
            if let Some(c) = &mut self.capture {
                c.push(w);
            }
        }
        let readable = self.line.readable();
        let (x, y) = self.video_out.position();
        if self.stats.starts > 0 && !readable && self.board.video.timing(x, y).de {
            self.stats.underruns += 1;
            self.stats.first_underrun.get_or_insert(self.stats.pixel_clocks);
        }
        let pixel = self.line.words.front().copied().unwrap_or_default();
        if readable && self.video_out.in_ready(true) {
            self.line.words.pop_front();
            self.line.read += 1;
        }
        self.video_out.clock(readable, &pixel, true, false);
        self.line.written_at_read.clock(self.line.written);
    }

    /// Ticks until `frames` whole video frames have been decoded (or a violation, or
    /// `max_ticks`).
    pub fn run_frames(&mut self, frames: usize, max_ticks: u64) -> Result<(), String> {
        while self.receiver.frames.len() < frames {
            if let Some(v) = &self.violation {
                return Err(v.clone());
            }
            if self.stats.ticks >= max_ticks {
                return Err(format!(
                    "display: {} frames decoded in {max_ticks} memory clocks, {frames} wanted",
                    self.receiver.frames.len()
                ));
            }
            self.tick();
        }
        Ok(())
    }
}
