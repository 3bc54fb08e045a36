//! # scan_out (no seed: the board top's framebuffer reader, issue 35)
//!
//! The memory-clock side of the scan-out: it reads the displayed framebuffer through a memory
//! port (the board arbiter's first client), in the order the screen shows it, and sends one
//! pixel per word read into the line buffer, the clock-crossing FIFO whose other side feeds
//! [`crate::video_out`] at the pixel clock. It keeps the FIFO from overflowing with credits:
//! a read goes out only while the FIFO's fill, the reads in flight and the words it holds leave
//! room for its answer, so it takes every answer at once (an answer that waits would hold up
//! the arbiter's other clients, whose answers queue behind it).
//!
//! ```text
//!              start (the frame's vertical blank, synchronised) ─► base latched, walk reset
//!   ┌──────────────── scan_out ──────────────────────────────────────────────────────┐
//!   │ walk: screen line l, column c ─► framebuffer row H − 1 − l/s, column c/s         │
//!   │       addr = base + 4·(row·W + column)  (row H − 1 first: the window is y-up)    ├─► rd (MemReq reads)
//!   │ credits: fill + in flight + held < FIFO_WORDS ─► a read may go out                │
//!   │ inp (MemResp) ─► R = bits 7..0, G = 15..8, B = 23..16 ─► output register ─────────┼─► out (VideoPixel)
//!   └──────────────────────────────────────────────────────────────────────────────────┘
//!   fill (the FIFO's write-side count) ─► credits
//! ```
//!
//! The framebuffer is [`crate::output_merger`]'s: slot `pos` at byte `4·pos`, one colour per
//! pixel (a frame row's preset must have `colours_per_pixel` 1: the screen shows the slot, and
//! golden's image is the mean of the slots). A preset viewport smaller than the video mode is
//! shown scaled by whole pixels (`s` = h_active / W = v_active / H): each screen pixel is its
//! framebuffer word, read again (the port's bandwidth per screen pixel is the same at every
//! scale, and video_out needs no scaler).

use crate::board::FrameBoard;
use crate::config::Config;
use crate::cycle::{BlockModel, Offer, UBits};
use crate::streams::{MemReq, MemResp, VideoPixel};

/// Words the line buffer holds (the clock-crossing FIFO between scan_out and video_out: one
/// ECP5 DP16KD, 512 × 36, at 24 bits a word): the board's credit limit.
pub const FIFO_WORDS: u32 = 512;
/// Bits of the FIFO's write-side fill count (0 ..= [`FIFO_WORDS`]).
pub const FILL_BITS: usize = 10;

/// What the walk covers: the framebuffer's size, the scale and the credit limit.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct ScanOutParams {
    /// The framebuffer (the preset's viewport), pixels.
    pub width: u32,
    pub height: u32,
    /// Screen pixels per framebuffer pixel, each way.
    pub scale: u32,
    /// The FIFO's depth: a read goes out while `fill` + reads in flight + words held are below it.
    pub credits: u32,
}

impl ScanOutParams {
    /// A frame row's: its preset's viewport on its video mode, [`FIFO_WORDS`] credits. The
    /// error names the field that does not fit.
    pub fn for_board(f: &FrameBoard) -> Result<ScanOutParams, String> {
        let cfg = Config::preset(f.preset).map_err(|e| e.to_string())?;
        if cfg.colours_per_pixel != 1 {
            return Err(format!(
                "frame row: preset `{}` stores {} colours per pixel; the scan-out shows one (colours_per_pixel must be 1)",
                f.preset, cfg.colours_per_pixel
            ));
        }
        let [w, h] = cfg.viewport;
        let m = &f.video;
        if !m.h_active.is_multiple_of(w) || !m.v_active.is_multiple_of(h) || m.h_active / w != m.v_active / h {
            return Err(format!(
                "frame row: viewport {w}x{h} (preset `{}`) is not {}x{} scaled by one whole number",
                f.preset, m.h_active, m.v_active
            ));
        }
        Self::new(w, h, m.h_active / w, FIFO_WORDS)
    }

    /// Checked: every count fits the RTL's 12-bit counters, the framebuffer its 32-bit
    /// addresses, the credits [`FILL_BITS`].
    pub fn new(width: u32, height: u32, scale: u32, credits: u32) -> Result<ScanOutParams, String> {
        let fits = |v: u32| (1..=4096).contains(&v);
        if !fits(width) || !fits(height) || !fits(scale) || !fits(width * scale) || !fits(height * scale) {
            return Err(format!(
                "scan_out: {width}x{height} at scale {scale}: every size and screen size must be 1..=4096"
            ));
        }
        if !(1..1 << FILL_BITS).contains(&credits) {
            return Err(format!("scan_out: credits {credits} must be 1..{}", 1 << FILL_BITS));
        }
        Ok(ScanOutParams {
            width,
            height,
            scale,
            credits,
        })
    }

    /// Bytes of one framebuffer row.
    pub fn row_bytes(&self) -> u32 {
        4 * self.width
    }

    /// Byte offset of the top screen line's row (framebuffer row H − 1).
    pub fn top_row_offset(&self) -> u32 {
        (self.height - 1) * self.row_bytes()
    }

    /// Screen pixels (reads) per frame.
    pub fn pixels(&self) -> u64 {
        u64::from(self.width * self.scale) * u64::from(self.height * self.scale)
    }

    /// The byte address of screen pixel (column `c`, line `l`) for a framebuffer at `base`:
    /// the reference the walk equals.
    pub fn address(&self, base: u32, c: u32, l: u32) -> u32 {
        let row = self.height - 1 - l / self.scale;
        base.wrapping_add(4 * (row * self.width + c / self.scale))
    }
}

/// A memory word as a pixel: R, G, B from bytes 0, 1, 2 (alpha is not shown).
pub fn pixel_of(word: u32) -> VideoPixel {
    VideoPixel {
        red: word as u8,
        green: (word >> 8) as u8,
        blue: (word >> 16) as u8,
    }
}

/// Counters of the reader, for tests that assert activity (a flush keeps them).
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq)]
pub struct ScanOutStats {
    /// Reads taken by the port.
    pub reads: u64,
    /// Answers taken (pixels into the output register).
    pub answers: u64,
    /// Walks started (`start` edges).
    pub frames: u64,
    /// Cycles in which a read could go out but the credits held it back.
    pub credit_waits: u64,
}

/// The RTL block's cycle model.
///
/// **Timing contract** (the RTL's ports, cycle by cycle):
/// * **State.** `busy` (a walk in progress), the latched `base`, the walk's counters (column
///   repeat, framebuffer column, line repeat, framebuffer row counting down from H − 1), the
///   address of the walk's row and of its next read; the request register (`rd_valid`, its
///   address); `in_flight` (reads taken, not yet answered); the output register (`out_valid`,
///   the pixel). All 0 after `new` or a flush.
/// * **Credits.** `room` is a register: at each edge it takes `fill` + `in_flight` +
///   `rd_valid` + `out_valid` + (a load at this edge) < `credits`, from the values before the
///   edge (0 after `new` or a flush). So a load at edge t sees that sum at edge t − 1, plus
///   the load then. Every read out or waiting, and the word held, still has a FIFO place: from
///   t − 1 to t the sum grows only by that load (a pixel into the FIFO moves its credit from
///   the output register to `fill`; a pop only lowers `fill`), and `fill` may lag its reads.
///   The register keeps the room test off the path from the arbiter's ready into the walk.
/// * **Requests.** `rd_valid`/`rd` are the request register (reads: `write` 0, `wdata` 0, `be`
///   0; while not valid, `addr` is the last read's, 0 after a flush). At an edge without `start`: if `busy` ∧ (¬`rd_valid` ∨ `rd_ready`) ∧ `room`, the
///   register loads the walk's next address and the walk steps (the last screen pixel ends
///   `busy`); else a taken request empties it.
/// * **Start.** An edge with `start` latches `base`, sets `busy` and resets the walk to screen
///   pixel (0, 0): row H − 1's address `base` + 4·(H − 1)·W. It loads no request (a taken one
///   empties the register; reads in flight are still answered and sent).
/// * **Answers.** `inp_ready` (`in_ready`) = ¬`out_valid` ∨ `out_ready`; an answer taken loads
///   the output register with [`pixel_of`] its word, latency 1. `in_flight` counts +1 per read
///   taken, −1 per answer taken, both at the same edge.
/// * **busy** is the register. **Flush**: every register to its `new` value.
#[derive(Clone, Debug)]
pub struct ScanOutCycle {
    params: ScanOutParams,
    busy: bool,
    base: u32,
    column_repeat: u32,
    column: u32,
    line_repeat: u32,
    /// The framebuffer row of the walk (H − 1 at the top screen line).
    row: u32,
    row_addr: u32,
    next_addr: u32,
    /// The request register: a read offered, its address (the last read's while none is).
    request_valid: bool,
    request_addr: u32,
    in_flight: u32,
    held: Option<VideoPixel>,
    /// The credits left room for one more read after the last edge's load.
    room: bool,
    stats: ScanOutStats,
    /// A planted bug for the mutant's prediction: the walk's row steps up instead of down.
    row_step_bug: bool,
}

impl ScanOutCycle {
    pub fn new(params: ScanOutParams) -> Self {
        Self {
            params,
            busy: false,
            base: 0,
            column_repeat: 0,
            column: 0,
            line_repeat: 0,
            row: 0,
            row_addr: 0,
            next_addr: 0,
            request_valid: false,
            request_addr: 0,
            in_flight: 0,
            held: None,
            room: false,
            stats: ScanOutStats::default(),
            row_step_bug: false,
        }
    }

    pub fn params(&self) -> &ScanOutParams {
        &self.params
    }

    pub fn busy(&self) -> bool {
        self.busy
    }

    pub fn stats(&self) -> ScanOutStats {
        self.stats
    }

    /// Reads taken and not yet answered.
    pub fn in_flight(&self) -> u32 {
        self.in_flight
    }

    /// The mutant's model (`cosim`'s `scan_out` mutant): at a row change the next row's
    /// address is the row's plus a row instead of minus one.
    pub fn plant_row_step_bug(&mut self) {
        self.row_step_bug = true;
    }

    /// The request register.
    pub fn rd(&self) -> (bool, MemReq) {
        (
            self.request_valid,
            MemReq {
                addr: self.request_addr,
                ..MemReq::default()
            },
        )
    }

    /// The output register.
    pub fn out(&self) -> (bool, VideoPixel) {
        (self.held.is_some(), self.held.unwrap_or_default())
    }

    pub fn in_ready(&self, out_ready: bool) -> bool {
        self.held.is_none() || out_ready
    }

    /// The room register: the credits leave room for one more read at this edge.
    pub fn room(&self) -> bool {
        self.room
    }

    /// The room register's next value: the credits, `fill` counted, leave room for one more
    /// read after `loads` loads.
    fn room_after(&self, fill: u32, loads: bool) -> bool {
        fill + self.in_flight + u32::from(self.request_valid) + u32::from(self.held.is_some()) + u32::from(loads)
            < self.params.credits
    }

    /// One rising edge.
    #[allow(clippy::too_many_arguments)]
    pub fn clock(
        &mut self,
        in_valid: bool,
        inp: &MemResp,
        out_ready: bool,
        rd_ready: bool,
        start: bool,
        base: u32,
        fill: u32,
        flush: bool,
    ) {
        if flush {
            *self = Self {
                row_step_bug: self.row_step_bug,
                stats: self.stats,
                ..Self::new(self.params)
            };
            return;
        }
        let p = self.params;
        let in_ready = self.in_ready(out_ready);
        let answer = in_valid && in_ready;
        let rd_taken = self.request_valid && rd_ready;
        let free = !self.request_valid || rd_ready;
        let load = !start && self.busy && free && self.room;
        if !start && self.busy && free && !load {
            self.stats.credit_waits += 1;
        }
        self.room = self.room_after(fill, load);
        self.stats.reads += u64::from(rd_taken);
        self.stats.answers += u64::from(answer);
        self.in_flight = self.in_flight + u32::from(rd_taken) - u32::from(answer);
        if in_ready {
            self.held = answer.then(|| pixel_of(inp.rdata));
        }
        if load {
            self.request_valid = true;
            self.request_addr = self.next_addr;
            self.step();
        } else if rd_taken {
            self.request_valid = false;
        }
        if start {
            self.stats.frames += 1;
            self.busy = true;
            self.base = base;
            self.column_repeat = 0;
            self.column = 0;
            self.line_repeat = 0;
            self.row = p.height - 1;
            self.row_addr = base.wrapping_add(p.top_row_offset());
            self.next_addr = self.row_addr;
        }
    }

    /// The walk's step after a read of `next_addr` went into the request register.
    fn step(&mut self) {
        let p = self.params;
        if self.column_repeat + 1 < p.scale {
            self.column_repeat += 1;
            return;
        }
        self.column_repeat = 0;
        if self.column + 1 < p.width {
            self.column += 1;
            self.next_addr = self.next_addr.wrapping_add(4);
            return;
        }
        self.column = 0;
        if self.line_repeat + 1 < p.scale {
            self.line_repeat += 1;
            self.next_addr = self.row_addr;
            return;
        }
        self.line_repeat = 0;
        if self.row == 0 {
            self.busy = false;
            return;
        }
        self.row -= 1;
        self.row_addr = if self.row_step_bug {
            self.row_addr.wrapping_add(p.row_bytes())
        } else {
            self.row_addr.wrapping_sub(p.row_bytes())
        };
        self.next_addr = self.row_addr;
    }
}

crate::block_signature! {
    /// scan_out's ports: the memory's answers in, the pixels out (into the line buffer), the
    /// reads out (`rd`, to the arbiter); `start` (a walk from the top of the frame at `base`),
    /// `fill` (the line buffer's write-side count), `busy`.
    pub ScanOut "scan_out" {
        takes { inp: MemResp }
        sends { out: VideoPixel, rd: MemReq }
        ins { start: bool, base: UBits<32>, fill: UBits<FILL_BITS> }
        outs { busy: bool }
    }
}

impl BlockModel for ScanOutCycle {
    type Sig = ScanOutPorts;
    fn outputs(&self, i: &ScanOutIn) -> ScanOutOut {
        let (v, px) = self.out();
        let (rv, rq) = self.rd();
        ScanOutOut {
            inp_ready: self.in_ready(i.out_ready),
            out: Offer::new(v, px),
            rd: Offer::new(rv, rq),
            busy: self.busy,
        }
    }
    fn clock(&mut self, i: &ScanOutIn) {
        ScanOutCycle::clock(
            self,
            i.inp.valid,
            &i.inp.payload,
            i.out_ready,
            i.rd_ready,
            i.start,
            i.base.0 as u32,
            i.fill.0 as u32,
            i.flush,
        )
    }
}
