//! # The board top's cycle model (issue 35)
//!
//! `tilerast_top_ulx3s_frame` puts the frame top on a board with an SDRAM and a screen. This
//! module composes the blocks' cycle models the way the board top wires them, in their clock
//! domains, so that what the blocks promise one by one (the scan-out's credits, the arbiter's
//! priority, the SDRAM controller's throughput, the crossings, the double buffer's swap, the
//! video output's timing) is checked together: the frame top renders a scene into the SDRAM,
//! the buffers swap at vertical blank, and the TMDS lanes carry golden's picture, while the
//! scan-out never misses a pixel clock. It is the reference the RTL board top will be held to.
//! Everything right of the GPU port's crossing is one block, [`crate::display_path`]
//! (the RTL's `display_path`); [`DisplayPath`] is that block with the SDRAM chip and a DVI
//! receiver around it, [`BoardTop`] adds the GPU half.
//!
//! ```text
//!  GPU clock (gpu_hz)                    │ memory clock (sdram_hz)                            │ pixel clock
//!  scene ─PrimIn─► frame ─mem_req─► double_buffer ═req═╪═► mem_arbiter ─► sdram_controller ─► chip │
//!    end tokens ─ends─┘  ◄─mem_resp══════════════rsp═══╪══ (gpu)  ▲ scan_rd │ scan_rsp            │
//!                    done ─┘  front ════════════sync═══╪═► base ─► scan_out ◄┘ ─► line ══════════╪═► video_out ─► DVI
//!                             shown ◄═══════════sync═══╪══ shown (latched at start)   buffer     │      │ vblank
//!                                                      │   start ◄═ rising edge ◄════sync════════╪══════┘
//! ```
//!
//! **Clocks.** One tick is a memory-clock edge; the GPU clock's edge comes every
//! `sdram_hz / gpu_hz` ticks and the pixel clock's every `sdram_hz / pixel_hz` (the ULX3S: 2
//! and 4), at the tick's end, all from one PLL. Where edges coincide, every crossing samples
//! the value before them.
//!
//! **Crossings** (═ above) are the board top's clock-crossing FIFOs ([`Crossing`]: a gray-coded
//! pointer pair, each pointer through [`SYNC_FLOPS`] flops of the other clock) and level
//! synchronisers ([`Synchroniser`], the same flops; both in [`crate::crossing`]): the GPU port's requests and answers, the line buffer,
//! `front` (which buffer to show), `shown` (the buffer the scan-out latched at its start) and
//! `vblank`, whose rising edge starts the scan-out.

use crate::board::FrameBoard;
pub use crate::crossing::{Crossing, Synchroniser, SYNC_FLOPS};
use crate::cycle::{BlockModel, Offer, UBits};
use crate::display_path::{DisplayPathCycle, DisplayPathIn};
use crate::double_buffer::{BoardMap, DoubleBufferCycle};
use crate::frame::FrameCycle;
use crate::frame::FrameTopIn;
use crate::sdram_chip::SdramChip;
use crate::sdram_controller::map_addr;
use crate::streams::{FrameEnd, MemReq, MemResp, PrimIn};
use crate::video::{DviReceiver, LinkWord};
use std::collections::VecDeque;

/// Words of each of the GPU port's crossing FIFOs (requests, answers).
pub const GPU_PORT_WORDS: u32 = 16;

/// What a run saw, for tests that assert activity.
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq)]
pub struct DisplayStats {
    pub ticks: u64,
    pub pixel_clocks: u64,
    /// Requests of the GPU's port performed, and answers it got.
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

/// The arbiter's GPU client, as the display path sees it at a memory-clock edge.
pub trait GpuPort {
    /// The request offered (valid, request).
    fn offer(&self) -> (bool, MemReq);
    /// An answer would be taken.
    fn answer_ready(&self) -> bool;
    /// The edge: whether the request went, and the answer taken, if one was.
    fn edge(&mut self, taken: bool, answer: Option<u32>);
}

/// A queue of requests, always offered; answers dropped.
impl GpuPort for VecDeque<MemReq> {
    fn offer(&self) -> (bool, MemReq) {
        (!self.is_empty(), self.front().copied().unwrap_or_default())
    }
    fn answer_ready(&self) -> bool {
        true
    }
    fn edge(&mut self, taken: bool, _: Option<u32>) {
        if taken {
            self.pop_front();
        }
    }
}

/// The board top's memory and display half, tick by tick: the block
/// [`DisplayPathCycle`] (everything right of the GPU port's crossing) with its environment,
/// the SDRAM chip behind its pins and a DVI receiver behind its TMDS characters.
pub struct DisplayPath {
    pub board: FrameBoard,
    ratio: u64,
    /// The framebuffer the scan-out latches at its next start (byte address in the SDRAM).
    pub base: u32,
    pub block: DisplayPathCycle,
    pub chip: SdramChip,
    pub receiver: DviReceiver,
    /// A walk started at the last edge (the scan-out latched `base`).
    pub started: bool,
    /// The GPU's port of [`DisplayPath::tick`]: requests waiting, oldest first.
    pub gpu: VecDeque<MemReq>,
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
        Ok(DisplayPath {
            board,
            ratio: u64::from(board.sdram_hz / board.pixel_hz),
            base,
            block: DisplayPathCycle::for_board(&board)?,
            chip: SdramChip::new(board.sdram, f64::from(board.sdram_hz)),
            receiver: DviReceiver::new(board.video),
            started: false,
            gpu: VecDeque::new(),
            capture: None,
            violation: None,
            stats: DisplayStats::default(),
        })
    }

    /// The planted fault of the starvation test: the arbiter serves the GPU's port first.
    pub fn plant_gpu_first(&mut self) {
        self.block.plant_gpu_first();
    }

    pub fn stats(&self) -> DisplayStats {
        DisplayStats {
            peak_line_words: self.block.line.peak() as usize,
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

    /// One memory-clock edge (and the pixel clock's, every `ratio` ticks), the GPU's port the
    /// queue [`DisplayPath::gpu`] (requests always offered, answers always taken).
    pub fn tick(&mut self) {
        let mut queue = std::mem::take(&mut self.gpu);
        self.tick_with(&mut queue);
        self.gpu = queue;
    }

    /// One memory-clock edge with `gpu_port` as the arbiter's GPU client.
    pub fn tick_with(&mut self, gpu_port: &mut dyn GpuPort) {
        let t = self.stats.ticks;
        self.stats.ticks += 1;
        let (valid, req) = gpu_port.offer();
        let i = DisplayPathIn {
            flush: false,
            inp: Offer::new(valid, req),
            out_ready: gpu_port.answer_ready(),
            tmds_ready: true,
            pixel_clock: (t + 1).is_multiple_of(self.ratio),
            base: UBits::new(u64::from(self.base)),
            dq_in: UBits::new(u64::from(self.chip.dq().unwrap_or(0))),
        };
        let o = self.block.outputs(&i);
        let start = self.block.start();
        let readable = self.block.line.readable();
        let (x, y) = self.block.video_out.position();
        let pins = self.block.sdram.pins();
        self.block.clock(&i);
        // The chip sees the controller's pins from before the edge.
        if self.violation.is_none() {
            if let Err(v) = self.chip.clock(&pins) {
                self.violation = Some(format!("sdram chip: {v}"));
            }
        }
        let gpu_taken = valid && o.inp_ready;
        let answer = (o.out.valid && i.out_ready).then_some(o.out.payload.rdata);
        self.stats.gpu_requests += u64::from(gpu_taken);
        self.stats.gpu_answers += u64::from(answer.is_some());
        gpu_port.edge(gpu_taken, answer);
        self.started = start;
        self.stats.starts += u64::from(start);
        if i.pixel_clock {
            self.stats.pixel_clocks += 1;
            if o.tmds.valid {
                let w = o.tmds.payload;
                let w = [w.blue, w.green, w.red];
                if self.violation.is_none() {
                    if let Err(e) = self.receiver.receive(w) {
                        self.violation = Some(e);
                    }
                }
                if let Some(c) = &mut self.capture {
                    c.push(w);
                }
            }
            if self.stats.starts > 0 && !readable && self.board.video.timing(x, y).de {
                self.stats.underruns += 1;
                self.stats.first_underrun.get_or_insert(self.stats.pixel_clocks);
            }
        }
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

/// The GPU port's memory-clock side: the request FIFO's read side, the answer FIFO's write
/// side.
struct PortCrossings<'a> {
    requests: &'a mut Crossing<MemReq>,
    answers: &'a mut Crossing<MemResp>,
    /// The GPU side's pointers before this tick's edges: the request FIFO's write pointer, the
    /// answer FIFO's read pointer.
    requests_written: u32,
    answers_read: u32,
}

impl GpuPort for PortCrossings<'_> {
    fn offer(&self) -> (bool, MemReq) {
        self.requests.out()
    }
    fn answer_ready(&self) -> bool {
        self.answers.room()
    }
    fn edge(&mut self, taken: bool, answer: Option<u32>) {
        self.requests.read_edge(taken, self.requests_written, false);
        self.answers
            .write_edge(answer.map(|rdata| MemResp { rdata }), self.answers_read, false);
    }
}

/// A frame the board finished: its id and the GPU cycle of its `done`.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct BoardFrame {
    pub frame_id: u8,
    pub gpu_cycle: u64,
}

/// The whole board top, tick by tick: the GPU half (the frame top fed a scene's primitives,
/// the double buffer, the GPU port's crossings) beside [`DisplayPath`].
pub struct BoardTop {
    pub display: DisplayPath,
    pub map: BoardMap,
    gpu_ratio: u64,
    pub frame: FrameCycle,
    pub double_buffer: DoubleBufferCycle,
    requests: Crossing<MemReq>,
    answers: Crossing<MemResp>,
    /// `front` at the memory clock; `shown` (a memory-clock register) at the GPU clock.
    front_at_memory: Synchroniser<bool>,
    shown: bool,
    shown_at_gpu: Synchroniser<bool>,
    /// The primitives and end tokens still to send, the frames done.
    beats: VecDeque<PrimIn>,
    pub frames: Vec<BoardFrame>,
    pub gpu_cycles: u64,
    /// Stops a frame top that has stopped moving (its quiet bound plus the longest the double
    /// buffer holds it: a clear and two video frames), and the line it stopped with.
    watchdog: crate::frame::Watchdog,
    pub stuck: Option<String>,
    /// Frames in the scene's beats (end tokens): the watchdog watches until they are done.
    frames_in: usize,
}

impl BoardTop {
    /// The board top of `board`'s frame row, rendering `beats` (the frames' primitives, each
    /// frame closed by its end token: [`crate::bin_setup::frame_beats`]).
    pub fn new(board: &crate::board::Board, beats: Vec<PrimIn>) -> Result<BoardTop, String> {
        let f = board
            .frame
            .ok_or_else(|| format!("board {}: no frame row (no SDRAM and screen)", board.name))?;
        if !f.sdram_hz.is_multiple_of(f.gpu_hz) {
            return Err(format!(
                "board {}: the SDRAM clock ({} Hz) is not a whole multiple of the GPU clock ({} Hz)",
                board.name, f.sdram_hz, f.gpu_hz
            ));
        }
        let cfg = crate::Config::preset(f.preset).map_err(|e| format!("board {}: {e}", board.name))?;
        let map = BoardMap::for_board(board)?;
        Ok(BoardTop {
            display: DisplayPath::new(f, map.buffers[0])?,
            map,
            gpu_ratio: u64::from(f.sdram_hz / f.gpu_hz),
            frame: FrameCycle::try_new(&cfg)?,
            watchdog: crate::frame::Watchdog::new(
                &cfg,
                u64::from(map.fb_bytes / 4) + 2 * f.video.frame_clocks() * u64::from(f.gpu_hz / f.pixel_hz),
            ),
            stuck: None,
            frames_in: beats.iter().filter(|b| b.end).count(),
            double_buffer: DoubleBufferCycle::new(map),
            requests: Crossing::new(GPU_PORT_WORDS),
            answers: Crossing::new(GPU_PORT_WORDS),
            front_at_memory: Synchroniser::new(),
            shown: false,
            shown_at_gpu: Synchroniser::new(),
            beats: beats.into(),
            frames: Vec::new(),
            gpu_cycles: 0,
        })
    }

    /// The buffer on the screen (the scan-out's last start latched it).
    pub fn shown(&self) -> bool {
        self.shown
    }

    /// One memory-clock edge (the GPU's every `sdram_hz / gpu_hz` ticks, the pixel clock's
    /// every `sdram_hz / pixel_hz`).
    pub fn tick(&mut self) {
        let t = self.display.stats.ticks;
        // What the crossings sample: every value before this tick's edges.
        let (requests_written, requests_read) = self.requests.pointers();
        let (answers_written, answers_read) = self.answers.pointers();
        let (front, shown) = (self.double_buffer.front(), self.shown);
        // The memory clock: the scan-out shows `front` as the memory clock sees it.
        let front_seen = self.front_at_memory.out();
        self.display.base = self.map.buffers[usize::from(front_seen)];
        let mut port = PortCrossings {
            requests: &mut self.requests,
            answers: &mut self.answers,
            requests_written,
            answers_read,
        };
        self.display.tick_with(&mut port);
        if self.display.started {
            self.shown = front_seen;
        }
        self.front_at_memory.clock(front);
        if (t + 1).is_multiple_of(self.gpu_ratio) {
            self.gpu_edge(shown, requests_read, answers_written);
        }
    }

    fn gpu_edge(&mut self, shown: bool, requests_read: u32, answers_written: u32) {
        self.gpu_cycles += 1;
        if self.stuck.is_none() && self.frames.len() < self.frames_in {
            if let Err(e) = self.watchdog.check(self.gpu_cycles, &self.frame) {
                self.stuck
                    .get_or_insert(format!("board: frame top at GPU cycle {}: {e}", self.gpu_cycles));
            }
        }
        let (frame, db) = (&mut self.frame, &mut self.double_buffer);
        // The host's next beat: an end token goes in only with room for its background.
        let offered = self.beats.front().copied();
        let inp = offered.unwrap_or_default();
        let in_valid = offered.is_some() && (!inp.end || db.ends_ready());
        let ends_valid = offered.is_some() && inp.end && frame.in_ready();
        let (req_valid, req) = frame.mem_req();
        let out_ready = self.requests.room();
        let mem_req_ready = db.inp_ready(out_ready);
        let (out_valid, out) = db.out();
        let (answer_valid, answer) = self.answers.out();
        let answer_taken = answer_valid && frame.mem_resp_ready();
        let (done, frame_id) = frame.done();
        let shown_seen = self.shown_at_gpu.out();
        if in_valid && frame.in_ready() {
            self.beats.pop_front();
        }
        if done {
            self.frames.push(BoardFrame {
                frame_id,
                gpu_cycle: self.gpu_cycles,
            });
        }
        frame.clock(&FrameTopIn {
            flush: false,
            inp: Offer::new(in_valid, inp),
            mem_resp: Offer::new(answer_valid, answer),
            mem_req_ready,
        });
        db.clock(
            req_valid,
            &req,
            out_ready,
            ends_valid,
            &FrameEnd { colour: inp.colour },
            done,
            shown_seen,
            false,
        );
        self.requests
            .write_edge((out_valid && out_ready).then_some(out), requests_read, false);
        self.answers.read_edge(answer_taken, answers_written, false);
        self.shown_at_gpu.clock(shown);
    }
}

impl BoardTop {
    /// Ticks until `frames` frames are done, swapped in and shown, then two more video frames;
    /// the last decoded one (the last frame's picture). `Err`, one line, at the first SDRAM
    /// datasheet violation or DVI error, or after `max_ticks`.
    /// Once the frames are done, their swap and display take at most a few video frames;
    /// `max_ticks` bounds the whole run, the frame top's watchdog a frame top that stopped.
    pub fn run(&mut self, frames: usize, max_ticks: u64) -> Result<crate::video::VideoFrame, String> {
        let mut shown_at = None;
        let mut done_at = None;
        let after_done = 6 * self.display.board.video.frame_clocks() * self.display.ratio;
        loop {
            if let Some(v) = self.display.violation.as_ref().or(self.stuck.as_ref()) {
                return Err(v.clone());
            }
            let ticks = self.display.stats.ticks;
            if done_at.is_none() && self.frames.len() >= frames {
                done_at = Some(ticks);
            }
            if ticks >= max_ticks || done_at.is_some_and(|d| ticks - d > after_done) {
                return Err(format!(
                    "board: after {ticks} memory clocks, {} of {frames} frames done, {} swapped in, the scan-out showing buffer {} of front {}",
                    self.frames.len(),
                    self.double_buffer.stats().swaps,
                    u8::from(self.shown),
                    u8::from(self.double_buffer.front())
                ));
            }
            let decoded = self.display.receiver.frames.len();
            match shown_at {
                None if self.double_buffer.stats().swaps >= frames as u64
                    && self.shown == self.double_buffer.front() =>
                {
                    shown_at = Some(decoded)
                }
                Some(n) if decoded >= n + 2 => return Ok(self.display.receiver.frames[decoded - 1].clone()),
                _ => {}
            }
            self.tick();
        }
    }
}
