//! # line_buffer: the scan-out's pixels into the pixel clock (issue 35)
//!
//! **Role.** The board top's line buffer between the scan-out (memory clock) and the video
//! output (pixel clock): one [`Crossing`] of `tilerast_golden::scan_out::FIFO_WORDS` pixels
//! (512 × 24 bits, one DP16KD-sized RAM). Its cycle model is
//! `tilerast_golden::line_buffer::LineBufferCycle`, the timing contract
//! `tilerast_golden::crossing`'s.
//!
//! **Ports** (the golden signature `LineBuffer`): `write_clock`, `read_clock`, `flush` (each side
//! at its own edges), `drop` (at a write edge: the pixels held abandoned, [`Crossing`]'s `drop`); `in_valid`/`in_ready` + `inp` (red, green, blue) at the write clock,
//! `in_ready` the write side's room; `out_valid`/`out_ready` + `out` at the read clock,
//! `out_valid` the read side's `readable`, `out` zero while not valid; `fill` (10 bits: the
//! words held as the write side counts them, the scan-out's credits).
//!
//! **Latency and throughput.** A pixel is on `out` after the second read edge that follows its
//! write edge; one pixel in per write edge and one out per read edge.
//!
//! ```text
//!   write_clock                      │ read_clock
//!   inp ─pack─► Crossing<24, 9, 10> ═╪═► unpack ─► out
//!   in_ready ◄─ room, fill ◄─ fill   │   out_valid ◄─ readable, pop ◄─ out_ready
//! ```

use crate::crossing::Crossing;
use crate::emit;
use crate::streams::{VideoPixelIn, VideoPixelOut};
use rust_hdl::prelude::*;
use tilerast_golden::board::Board;
use tilerast_golden::cycle::Ports;
use tilerast_golden::scan_out::{FIFO_WORDS, FILL_BITS};

/// The stage name (module `tilerast_line_buffer_<board>`).
pub const STAGE: &str = tilerast_golden::line_buffer::STAGE;

// The crossing below is 2^9 words with 10-bit pointers: the scan-out's FIFO and credits.
const _: () = assert!(FIFO_WORDS == 1 << 9 && FILL_BITS == 10, "the line buffer is 512 pixels");

/// The line buffer block (see the module header).
#[derive(LogicBlock)]
pub struct LineBuffer {
    pub write_clock: Signal<In, Clock>,
    pub read_clock: Signal<In, Clock>,
    pub flush: Signal<In, Bit>,
    pub drop: Signal<In, Bit>,
    pub in_valid: Signal<In, Bit>,
    pub in_ready: Signal<Out, Bit>,
    pub inp: VideoPixelIn,
    pub out_valid: Signal<Out, Bit>,
    pub out_ready: Signal<In, Bit>,
    pub out: VideoPixelOut,
    pub fill: Signal<Out, Bits<10>>,
    fifo: Crossing<24, 9, 10>,
}

impl Default for LineBuffer {
    fn default() -> Self {
        LineBuffer::new(false)
    }
}

impl LineBuffer {
    /// The block; `unsynchronised` plants the crossing's bug (`c_unsynchronised`).
    pub fn new(unsynchronised: bool) -> LineBuffer {
        LineBuffer {
            write_clock: Default::default(),
            read_clock: Default::default(),
            flush: Default::default(),
            drop: Default::default(),
            in_valid: Default::default(),
            in_ready: Default::default(),
            inp: Default::default(),
            out_valid: Default::default(),
            out_ready: Default::default(),
            out: Default::default(),
            fill: Default::default(),
            fifo: Crossing::new(unsynchronised),
        }
    }

    /// Every input port but the clocks from `p` (a lock-step step's inputs).
    pub fn set_data_inputs(&mut self, p: &Ports) {
        self.flush.next = p.bit("flush");
        self.drop.next = p.bit("drop");
        self.in_valid.next = p.bit("in_valid");
        self.inp.drive_ports("inp", p);
        self.out_ready.next = p.bit("out_ready");
    }

    /// Marks the inputs [`LineBuffer::set_data_inputs`] drives as driven from outside (a test
    /// wrapper's `Logic::connect`).
    pub fn connect_data_inputs(&mut self) {
        self.flush.connect();
        self.drop.connect();
        self.in_valid.connect();
        self.inp.red.connect();
        self.inp.green.connect();
        self.inp.blue.connect();
        self.out_ready.connect();
    }

    /// The further output (`fill`).
    pub fn extra_outs(&self) -> Vec<(&'static str, u64)> {
        vec![("fill", self.fill.val().index() as u64)]
    }

    /// Every output port's value now.
    pub fn outputs(&self) -> Ports {
        let mut p = Ports::default();
        p.set("in_ready", self.in_ready.val() as u64);
        p.set("out_valid", self.out_valid.val() as u64);
        self.out.put_ports("out", &mut p);
        p.set("fill", self.fill.val().index() as u64);
        p
    }
}

impl Logic for LineBuffer {
    #[hdl_gen]
    fn update(&mut self) {
        self.fifo.write_clock.next = self.write_clock.val();
        self.fifo.read_clock.next = self.read_clock.val();
        self.fifo.flush.next = self.flush.val();
        self.fifo.drop.next = self.drop.val();
        self.fifo.push.next = self.in_valid.val();
        self.fifo.push_data.next = (bit_cast::<24, 8>(self.inp.red.val()) << 16)
            | (bit_cast::<24, 8>(self.inp.green.val()) << 8)
            | bit_cast::<24, 8>(self.inp.blue.val());
        self.in_ready.next = self.fifo.room.val();
        self.fill.next = self.fifo.fill.val();
        self.fifo.pop.next = self.out_ready.val();
        self.out_valid.next = self.fifo.readable.val();
        self.out.red.next = self.fifo.head_data.val().get_bits::<8>(16);
        self.out.green.next = self.fifo.head_data.val().get_bits::<8>(8);
        self.out.blue.next = self.fifo.head_data.val().get_bits::<8>(0);
    }
}

/// The block's Verilog with top module `name`.
pub fn verilog(name: &str) -> String {
    emit::block_verilog(LineBuffer::default(), name)
}

/// The line buffer's row of [`crate::FRAME_BOARD_BLOCKS`].
pub const BOARD_FILE: crate::FrameBoardBlock = crate::FrameBoardBlock {
    role: "the scan-out's pixels into the pixel clock: a 512-pixel asynchronous FIFO (gray pointers, two-flop synchronisers)",
    sig: <tilerast_golden::line_buffer::LineBufferPorts as tilerast_golden::cycle::BlockSignature>::SIGNATURE,
    rtl_file,
    made_from: |f| f.video.name,
};

/// The full text of `rtl-out/tilerast_line_buffer_<board>.v`: a header (the command, the
/// contract, the lint command, the ports), then the block. `None` for a board without a frame
/// row.
pub fn rtl_file(board: &Board) -> Option<String> {
    let f = board.frame.as_ref()?;
    let top = format!("tilerast_{STAGE}_{}", board.name);
    Some(format!(
        "// generated by `cargo run -p tilerast-hw --bin gen-rtl` — do not edit\n\
         // {STAGE} for board {} ({}): {FIFO_WORDS} pixels from the memory clock ({} MHz) into the pixel clock\n\
         // ({} MHz) of {}\n\
         // timing contract: tilerast_golden::crossing::Crossing (tilerast_golden::line_buffer::LineBufferCycle); top module: {top}\n\
         // lint-clean with: {}\n\
         // Ports: write_clock, read_clock, flush (each side at its own edges), drop (write side), in_valid/in_ready\n\
         // + inp (red, green, blue) at write_clock, out_valid/out_ready + out at read_clock, fill (out, write side)\n//\n{}",
        board.name,
        board.title,
        f.sdram_hz / 1_000_000,
        f.pixel_hz / 1_000_000,
        f.video.name,
        crate::lint_top_command(&top),
        verilog(&top)
    ))
}
