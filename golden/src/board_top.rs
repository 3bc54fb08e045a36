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
//!
//! **Display CRC.** The video output's `frame_crc` (the CRC of the last whole video frame,
//! [`crate::protocol::display_crc`]) comes into the GPU clock as a toggle and a bus: the
//! toggle through [`SYNC_FLOPS`] GPU-clock flops, then `crc_toggle` (the synchroniser's output
//! one GPU edge ago); at a GPU edge where they differ, `frame_crc` loads the video output's
//! value, which has not changed since the toggle flipped (it changes once per video frame).

use crate::board::FrameBoard;
pub use crate::crossing::{Crossing, Synchroniser, SYNC_FLOPS};
use crate::cycle::{BlockModel, Offer, UBits};
use crate::display_path::{DisplayPathCycle, DisplayPathIn};
use crate::double_buffer::{BoardMap, DoubleBufferCycle};
use crate::frame::FrameCycle;
use crate::frame::FrameTopIn;
use crate::sdram_chip::SdramChip;
use crate::sdram_controller::map_addr;
use crate::streams::DviWord;
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

/// What the board around a display path does at each memory-clock edge: the SDRAM chip on its
/// pins, a DVI receiver on its TMDS characters, the counts of [`DisplayStats`].
pub struct DisplayEnv {
    pub board: FrameBoard,
    ratio: u64,
    pub chip: SdramChip,
    pub receiver: DviReceiver,
    /// Every pixel clock's characters, with `capture` on.
    pub capture: Option<Vec<LinkWord>>,
    /// The first datasheet rule the SDRAM chip saw broken, the first DVI error.
    pub violation: Option<String>,
    stats: DisplayStats,
}

/// The display path's state before an edge that the environment's counts need.
struct BeforeEdge {
    pixel_clock: bool,
    start: bool,
    readable: bool,
    position: (u32, u32),
    pins: crate::sdram_chip::SdramPins,
}

impl DisplayEnv {
    /// The environment of `board`'s frame row.
    pub fn new(board: FrameBoard) -> Result<DisplayEnv, String> {
        if !board.sdram_hz.is_multiple_of(board.pixel_hz) {
            return Err(format!(
                "board: the SDRAM clock ({} Hz) is not a whole multiple of the pixel clock ({} Hz)",
                board.sdram_hz, board.pixel_hz
            ));
        }
        Ok(DisplayEnv {
            board,
            ratio: u64::from(board.sdram_hz / board.pixel_hz),
            chip: SdramChip::new(board.sdram, f64::from(board.sdram_hz)),
            receiver: DviReceiver::new(board.video),
            capture: None,
            violation: None,
            stats: DisplayStats::default(),
        })
    }

    /// The counts so far (`block`: the display path, for its line buffer's peak).
    pub fn stats(&self, block: &DisplayPathCycle) -> DisplayStats {
        DisplayStats {
            peak_line_words: block.line.peak() as usize,
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

    /// This tick's pixel-clock bit (the pixel clock's edge at the end of every `ratio`-th tick)
    /// and what the chip drives on dq.
    fn pins_in(&self) -> (bool, UBits<16>) {
        (
            (self.stats.ticks + 1).is_multiple_of(self.ratio),
            UBits::new(u64::from(self.chip.dq().unwrap_or(0))),
        )
    }

    fn before(d: &DisplayPathCycle, pixel_clock: bool) -> BeforeEdge {
        BeforeEdge {
            pixel_clock,
            start: d.start(),
            readable: d.line.readable(),
            position: d.video_out.position(),
            pins: d.sdram.pins(),
        }
    }

    /// After the edge: the chip takes the pins from before it, the receiver the characters,
    /// and the counts.
    fn after(&mut self, e: &BeforeEdge, tmds: Offer<DviWord>, gpu_taken: bool, answered: bool) {
        self.stats.ticks += 1;
        if self.violation.is_none() {
            if let Err(v) = self.chip.clock(&e.pins) {
                self.violation = Some(format!("sdram chip: {v}"));
            }
        }
        self.stats.gpu_requests += u64::from(gpu_taken);
        self.stats.gpu_answers += u64::from(answered);
        self.stats.starts += u64::from(e.start);
        if e.pixel_clock {
            self.stats.pixel_clocks += 1;
            if tmds.valid {
                let w = [tmds.payload.blue, tmds.payload.green, tmds.payload.red];
                if self.violation.is_none() {
                    if let Err(err) = self.receiver.receive(w) {
                        self.violation = Some(err);
                    }
                }
                if let Some(c) = &mut self.capture {
                    c.push(w);
                }
            }
            let (x, y) = e.position;
            if self.stats.starts > 0 && !e.readable && self.board.video.timing(x, y).de {
                self.stats.underruns += 1;
                self.stats.first_underrun.get_or_insert(self.stats.pixel_clocks);
            }
        }
    }
}

/// The board top's memory and display half on its own, tick by tick: the block
/// [`DisplayPathCycle`] (everything right of the GPU port's crossing) in its environment
/// ([`DisplayEnv`]: the SDRAM chip behind its pins, a DVI receiver behind its characters), its
/// GPU port a queue of requests.
pub struct DisplayPath {
    pub block: DisplayPathCycle,
    pub env: DisplayEnv,
    /// The framebuffer the scan-out latches at its next start (byte address in the SDRAM).
    pub base: u32,
    /// The GPU's port: requests waiting, oldest first (always offered, answers always taken).
    pub gpu: VecDeque<MemReq>,
}

impl DisplayPath {
    /// The display half of `board`'s frame row, showing the framebuffer at `base`.
    pub fn new(board: FrameBoard, base: u32) -> Result<DisplayPath, String> {
        Ok(DisplayPath {
            block: DisplayPathCycle::for_board(&board)?,
            env: DisplayEnv::new(board)?,
            base,
            gpu: VecDeque::new(),
        })
    }

    /// The planted fault of the starvation test: the arbiter serves the GPU's port first.
    pub fn plant_gpu_first(&mut self) {
        self.block.plant_gpu_first();
    }

    pub fn stats(&self) -> DisplayStats {
        self.env.stats(&self.block)
    }

    /// One memory-clock edge (and the pixel clock's, every `ratio` ticks).
    pub fn tick(&mut self) {
        let (pixel_clock, dq_in) = self.env.pins_in();
        let front = self.gpu.front().copied();
        let i = DisplayPathIn {
            flush: false,
            inp: Offer::new(front.is_some(), front.unwrap_or_default()),
            out_ready: true,
            tmds_ready: true,
            pixel_clock,
            base: UBits::new(u64::from(self.base)),
            dq_in,
        };
        let o = self.block.outputs(&i);
        let e = DisplayEnv::before(&self.block, pixel_clock);
        self.block.clock(&i);
        let taken = i.inp.valid && o.inp_ready;
        if taken {
            self.gpu.pop_front();
        }
        self.env.after(&e, o.tmds, taken, o.out.valid);
    }

    /// Ticks until `frames` whole video frames have been decoded (or a violation, or
    /// `max_ticks`).
    pub fn run_frames(&mut self, frames: usize, max_ticks: u64) -> Result<(), String> {
        while self.env.receiver.frames.len() < frames {
            if let Some(v) = &self.env.violation {
                return Err(v.clone());
            }
            if self.env.stats.ticks >= max_ticks {
                return Err(format!(
                    "display: {} frames decoded in {max_ticks} memory clocks, {frames} wanted",
                    self.env.receiver.frames.len()
                ));
            }
            self.tick();
        }
        Ok(())
    }
}

/// A frame the board finished: its id and the GPU cycle of its `done`.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct BoardFrame {
    pub frame_id: u8,
    pub gpu_cycle: u64,
}

crate::block_signature! {
    /// board_top's ports: the host's beats in at the GPU clock (`inp`: a frame's primitives,
    /// then its end token, whose colour is the frame's background), the TMDS characters out at
    /// the pixel clock, the SDRAM's pins; `gpu_clock` and `pixel_clock` 1 in the steps with
    /// that clock's rising edge (the step is the memory clock's); `done_valid` / `done_frame`
    /// (the frame top's, at the GPU clock), `front` (the buffer to show, GPU clock), `shown`
    /// (the buffer the scan-out latched, memory clock), `underrun`, `error` (the SDRAM
    /// controller's), `map_error` (the double buffer's: a request outside every window).
    pub BoardTop "board_top" {
        takes { inp: PrimIn }
        sends { tmds: DviWord }
        ins { gpu_clock: bool, pixel_clock: bool, dq_in: UBits<16> }
        outs {
            cs_n: bool,
            ras_n: bool,
            cas_n: bool,
            we_n: bool,
            ba: UBits<2>,
            sdram_addr: UBits<13>,
            dqm: UBits<2>,
            dq_out: UBits<16>,
            dq_oe: bool,
            done_valid: bool,
            done_frame: u8,
            front: bool,
            shown: bool,
            underrun: bool,
            error: bool,
            map_error: bool,
            frame_crc: UBits<32>,
            crc_toggle: bool,
        }
    }
}

/// The board top's cycle model (see the module header): the GPU half (the frame top, the
/// double buffer, the GPU port's crossings' GPU sides, `shown` through two GPU-clock flops)
/// and the memory half (the crossings' memory sides, `front` through two memory-clock flops,
/// [`DisplayPathCycle`], `shown`). `flush` is not used: the board top runs from its power-up
/// state (the FPGA's configuration).
///
/// `shown` is a memory-clock register loaded at the edge after a walk's start (the display
/// path's `started`) with the buffer the walk latched (`front` as the memory clock saw it one
/// edge before: `front_at_start`).
#[derive(Clone, Debug)]
pub struct BoardTopCycle {
    pub map: BoardMap,
    pub frame: FrameCycle,
    pub double_buffer: DoubleBufferCycle,
    pub requests: Crossing<MemReq>,
    pub answers: Crossing<MemResp>,
    pub display: DisplayPathCycle,
    /// `front` at the memory clock, and its value one memory edge ago.
    front_at_memory: Synchroniser<bool>,
    front_at_start: bool,
    shown: bool,
    /// `shown` at the GPU clock.
    shown_at_gpu: Synchroniser<bool>,
    /// The display CRC's toggle at the GPU clock, its value one GPU edge ago, and the CRC it
    /// brought (see the module header).
    crc_toggle_at_gpu: Synchroniser<bool>,
    crc_toggle: bool,
    frame_crc: u32,
}

impl BoardTopCycle {
    /// The board top of `board`'s frame row.
    pub fn new(board: &crate::board::Board) -> Result<BoardTopCycle, String> {
        let f = board
            .frame
            .ok_or_else(|| format!("board {}: no frame row (no SDRAM and screen)", board.name))?;
        let cfg = crate::Config::preset(f.preset).map_err(|e| format!("board {}: {e}", board.name))?;
        let map = BoardMap::for_board(board)?;
        Ok(BoardTopCycle {
            map,
            frame: FrameCycle::try_new(&cfg)?,
            double_buffer: DoubleBufferCycle::new(map),
            requests: Crossing::new(GPU_PORT_WORDS),
            answers: Crossing::new(GPU_PORT_WORDS),
            display: DisplayPathCycle::for_board(&f)?,
            front_at_memory: Synchroniser::new(),
            front_at_start: false,
            shown: false,
            shown_at_gpu: Synchroniser::new(),
            crc_toggle_at_gpu: Synchroniser::new(),
            crc_toggle: false,
            frame_crc: 0,
        })
    }

    /// The buffer on the screen (the scan-out's last start latched it).
    pub fn shown(&self) -> bool {
        self.shown
    }

    /// The display CRC at the GPU clock and its toggle (see the module header).
    pub fn frame_crc(&self) -> (u32, bool) {
        (self.frame_crc, self.crc_toggle)
    }

    /// The host's beat is taken (the frame top's `in_ready`; an end token also needs room
    /// for its background in the double buffer).
    fn host(&self, i: &BoardTopIn) -> (bool, bool) {
        let in_valid = i.inp.valid && (!i.inp.payload.end || self.double_buffer.ends_ready());
        let ends_valid = i.inp.valid && i.inp.payload.end && self.frame.in_ready();
        (in_valid, ends_valid)
    }

    /// The display path's inputs in this step.
    fn display_in(&self, i: &BoardTopIn) -> DisplayPathIn {
        let (valid, req) = self.requests.out();
        DisplayPathIn {
            flush: false,
            inp: Offer::new(valid, req),
            out_ready: self.answers.room(),
            tmds_ready: i.tmds_ready,
            pixel_clock: i.pixel_clock,
            base: UBits::new(u64::from(self.map.buffers[usize::from(self.front_at_memory.out())])),
            dq_in: i.dq_in,
        }
    }
}

impl BlockModel for BoardTopCycle {
    type Sig = BoardTopPorts;

    fn outputs(&self, i: &BoardTopIn) -> BoardTopOut {
        let (in_valid, _) = self.host(i);
        let d = self.display.outputs(&self.display_in(i));
        let (done_valid, done_frame) = self.frame.done();
        BoardTopOut {
            inp_ready: in_valid && self.frame.in_ready(),
            tmds: d.tmds,
            cs_n: d.cs_n,
            ras_n: d.ras_n,
            cas_n: d.cas_n,
            we_n: d.we_n,
            ba: d.ba,
            sdram_addr: d.sdram_addr,
            dqm: d.dqm,
            dq_out: d.dq_out,
            dq_oe: d.dq_oe,
            done_valid,
            done_frame,
            front: self.double_buffer.front(),
            shown: self.shown,
            underrun: d.underrun,
            error: d.error,
            map_error: self.double_buffer.error(),
            frame_crc: UBits::new(u64::from(self.frame_crc)),
            crc_toggle: self.crc_toggle,
        }
    }

    fn clock(&mut self, i: &BoardTopIn) {
        // What the crossings sample: every value before this step's edges.
        let (requests_written, requests_read) = self.requests.pointers();
        let (answers_written, answers_read) = self.answers.pointers();
        let (front, shown) = (self.double_buffer.front(), self.shown);
        let (display_crc, display_crc_toggle) = self.display.video_out.frame_crc();
        // The memory clock's edge.
        let di = self.display_in(i);
        let d = self.display.outputs(&di);
        self.display.clock(&di);
        self.requests
            .read_edge(di.inp.valid && d.inp_ready, requests_written, false);
        self.answers.write_edge(
            (d.out.valid && di.out_ready).then_some(d.out.payload),
            answers_read,
            false,
        );
        if d.started {
            self.shown = self.front_at_start;
        }
        self.front_at_start = self.front_at_memory.out();
        self.front_at_memory.clock(front);
        // The GPU clock's edge, coinciding.
        if i.gpu_clock {
            let (in_valid, ends_valid) = self.host(i);
            let (frame, db) = (&mut self.frame, &mut self.double_buffer);
            let (req_valid, req) = frame.mem_req();
            let out_ready = self.requests.room();
            let mem_req_ready = db.inp_ready(out_ready);
            let (out_valid, out) = db.out();
            let (answer_valid, answer) = self.answers.out();
            let answer_taken = answer_valid && frame.mem_resp_ready();
            let (done, _) = frame.done();
            let shown_seen = self.shown_at_gpu.out();
            frame.clock(&FrameTopIn {
                flush: false,
                inp: Offer::new(in_valid, i.inp.payload),
                mem_resp: Offer::new(answer_valid, answer),
                mem_req_ready,
            });
            db.clock(
                req_valid,
                &req,
                out_ready,
                ends_valid,
                &FrameEnd {
                    colour: i.inp.payload.colour,
                },
                done,
                shown_seen,
                false,
            );
            self.requests
                .write_edge((out_valid && out_ready).then_some(out), requests_read, false);
            self.answers.read_edge(answer_taken, answers_written, false);
            self.shown_at_gpu.clock(shown);
            if self.crc_toggle_at_gpu.out() != self.crc_toggle {
                self.frame_crc = display_crc;
            }
            self.crc_toggle = self.crc_toggle_at_gpu.out();
            self.crc_toggle_at_gpu.clock(display_crc_toggle);
        }
    }
}

/// The whole board top, tick by tick: [`BoardTopCycle`] in its environment ([`DisplayEnv`]:
/// the SDRAM chip, a DVI receiver) with a host sending a scene's beats.
pub struct BoardTop {
    pub block: BoardTopCycle,
    pub env: DisplayEnv,
    gpu_ratio: u64,
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
        let block = BoardTopCycle::new(board)?;
        let f = board.frame.expect("a frame row: BoardTopCycle::new checked it");
        if !f.sdram_hz.is_multiple_of(f.gpu_hz) {
            return Err(format!(
                "board {}: the SDRAM clock ({} Hz) is not a whole multiple of the GPU clock ({} Hz)",
                board.name, f.sdram_hz, f.gpu_hz
            ));
        }
        let cfg = crate::Config::preset(f.preset).map_err(|e| format!("board {}: {e}", board.name))?;
        Ok(BoardTop {
            watchdog: crate::frame::Watchdog::new(
                &cfg,
                u64::from(block.map.fb_bytes / 4) + 2 * f.video.frame_clocks() * u64::from(f.gpu_hz / f.pixel_hz),
            ),
            block,
            env: DisplayEnv::new(f)?,
            gpu_ratio: u64::from(f.sdram_hz / f.gpu_hz),
            stuck: None,
            frames_in: beats.iter().filter(|b| b.end).count(),
            beats: beats.into(),
            frames: Vec::new(),
            gpu_cycles: 0,
        })
    }

    /// The buffer on the screen (the scan-out's last start latched it).
    pub fn shown(&self) -> bool {
        self.block.shown()
    }

    pub fn stats(&self) -> DisplayStats {
        self.env.stats(&self.block.display)
    }

    /// The memory's counters now (see [`MemoryUse`]).
    pub fn memory_use(&self) -> MemoryUse {
        let sdram = self.block.display.sdram.stats();
        MemoryUse {
            ticks: self.env.stats.ticks,
            reads: sdram.reads,
            writes: sdram.writes,
            activates: sdram.activates,
            scan_out_reads: self.block.display.scan_out.stats().reads,
            clear_writes: self.block.double_buffer.stats().clear_writes,
        }
    }

    /// One memory-clock edge (the GPU's every `sdram_hz / gpu_hz` ticks, the pixel clock's
    /// every `sdram_hz / pixel_hz`), the scene's next beat offered.
    pub fn tick(&mut self) {
        let beat = self.beats.front().copied();
        if self.tick_with(beat).taken {
            self.beats.pop_front();
        }
    }

    /// One memory-clock edge with `beat` offered by a host of its own (hold it between GPU
    /// edges, as a GPU-clock register would): what the GPU clock's edge, if this tick has one,
    /// saw of the board top.
    pub fn tick_with(&mut self, beat: Option<PrimIn>) -> BoardTick {
        let (pixel_clock, dq_in) = self.env.pins_in();
        let gpu_clock = (self.env.stats.ticks + 1).is_multiple_of(self.gpu_ratio);
        let i = BoardTopIn {
            flush: false,
            inp: Offer::new(beat.is_some(), beat.unwrap_or_default()),
            tmds_ready: true,
            gpu_clock,
            pixel_clock,
            dq_in,
        };
        let o = self.block.outputs(&i);
        let di = self.block.display_in(&i);
        let d = self.block.display.outputs(&di);
        let e = DisplayEnv::before(&self.block.display, pixel_clock);
        if gpu_clock {
            self.gpu_cycles += 1;
            if self.stuck.is_none() && self.frames.len() < self.frames_in {
                if let Err(err) = self.watchdog.check(self.gpu_cycles, &self.block.frame) {
                    self.stuck
                        .get_or_insert(format!("board: frame top at GPU cycle {}: {err}", self.gpu_cycles));
                }
            }
            if o.done_valid {
                self.frames.push(BoardFrame {
                    frame_id: o.done_frame,
                    gpu_cycle: self.gpu_cycles,
                });
            }
        }
        self.block.clock(&i);
        self.env
            .after(&e, o.tmds, di.inp.valid && d.inp_ready, d.out.valid && di.out_ready);
        BoardTick {
            gpu_clock,
            taken: gpu_clock && i.inp.valid && o.inp_ready,
            out: o,
        }
    }
}

/// The memory's counters at one memory clock of a [`BoardTop`] run ([`BoardTop::memory_use`]);
/// [`MemoryUse::since`] gives what a span of the run cost.
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq)]
pub struct MemoryUse {
    /// Memory clocks.
    pub ticks: u64,
    /// 32-bit reads and writes the SDRAM controller performed, and the rows it opened.
    pub reads: u64,
    pub writes: u64,
    pub activates: u64,
    /// Reads of the scan-out (the rest of the reads are the GPU's).
    pub scan_out_reads: u64,
    /// Writes of the double buffer's clear of the back buffer (the rest of the writes are the
    /// frame top's).
    pub clear_writes: u64,
}

impl MemoryUse {
    /// The counts of the span from `earlier` to `self`.
    pub fn since(&self, earlier: &MemoryUse) -> MemoryUse {
        MemoryUse {
            ticks: self.ticks - earlier.ticks,
            reads: self.reads - earlier.reads,
            writes: self.writes - earlier.writes,
            activates: self.activates - earlier.activates,
            scan_out_reads: self.scan_out_reads - earlier.scan_out_reads,
            clear_writes: self.clear_writes - earlier.clear_writes,
        }
    }

    /// The share of memory clocks in which the SDRAM's data bus moves a word: every 32-bit
    /// access is a burst of [`crate::sdram_controller::BURST`] 16-bit words, one per clock.
    pub fn data_bus_share(&self) -> f64 {
        ((self.reads + self.writes) * u64::from(crate::sdram_controller::BURST)) as f64 / self.ticks.max(1) as f64
    }
}

impl std::fmt::Display for MemoryUse {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        write!(
            f,
            "{} memory clocks, SDRAM data bus busy {:.1} % ({} reads, {} of them the scan-out's; {} writes, {} of them the back buffer's clear), {} rows opened",
            self.ticks,
            100.0 * self.data_bus_share(),
            self.reads,
            self.scan_out_reads,
            self.writes,
            self.clear_writes,
            self.activates
        )
    }
}

/// What one tick of [`BoardTop::tick_with`] saw: whether it had a GPU clock edge, whether the
/// offered beat was taken there, and the board top's outputs before the edges.
#[derive(Clone, Debug)]
pub struct BoardTick {
    pub gpu_clock: bool,
    pub taken: bool,
    pub out: BoardTopOut,
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
        let after_done = 6 * self.env.board.video.frame_clocks() * self.env.ratio;
        loop {
            if let Some(v) = self.env.violation.as_ref().or(self.stuck.as_ref()) {
                return Err(v.clone());
            }
            let ticks = self.env.stats.ticks;
            if done_at.is_none() && self.frames.len() >= frames {
                done_at = Some(ticks);
            }
            if ticks >= max_ticks || done_at.is_some_and(|d| ticks - d > after_done) {
                return Err(format!(
                    "board: after {ticks} memory clocks, {} of {frames} frames done, {} swapped in, the scan-out showing buffer {} of front {}",
                    self.frames.len(),
                    self.block.double_buffer.stats().swaps,
                    u8::from(self.block.shown),
                    u8::from(self.block.double_buffer.front())
                ));
            }
            let decoded = self.env.receiver.frames.len();
            match shown_at {
                None if self.block.double_buffer.stats().swaps >= frames as u64
                    && self.block.shown == self.block.double_buffer.front() =>
                {
                    shown_at = Some(decoded)
                }
                Some(n) if decoded >= n + 2 => return Ok(self.env.receiver.frames[decoded - 1].clone()),
                _ => {}
            }
            self.tick();
        }
    }
}
