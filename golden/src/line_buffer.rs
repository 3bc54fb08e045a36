//! # line_buffer: the scan-out's pixels into the pixel clock (issue 35)
//!
//! The board top's line buffer: the [`Crossing`] FIFO of [`FIFO_WORDS`] pixels between the
//! scan-out (memory clock, the write side) and the video output (pixel clock, the read side),
//! and the block that proves the board top's clock crossings on their own, in rust-hdl,
//! Verilator and the ECP5 netlist. Its timing contract is [`crate::crossing`]'s.
//!
//! **Ports** ([`LineBufferPorts`]): `inp` (the scan-out's pixels; `inp_ready` is the write
//! side's room, a transfer at a write-clock edge with both high), `out` (the head pixel;
//! `out_valid` is the read side's `readable`, a transfer at a read-clock edge with `out_ready`),
//! `fill` (the write side's count, the scan-out's credits), `flush` (each side at its own
//! edges), `drop` (at a write edge: the words held are abandoned, the write pointer set to the
//! read pointer the write side sees, [`Crossing::drop_edge`]; the board top drops at each
//! scan-out start, so a frame the video output fell behind in leaves nothing for the next;
//! the read side must not pop until the dropped pointer has crossed). `write_clock` and `read_clock` are the two clocks: in a cycle model and in the
//! harnesses one step is one edge of a base clock, and a clock input is 1 in the steps where
//! that clock has its rising edge (the Verilator wrapper drives the pin with the base clock
//! gated by it), so any two clocks of one PLL, with or without coinciding edges, are a pattern
//! of those bits.
//!
//! ```text
//!   write_clock                          │ read_clock
//!   inp ─► RAM[write_ptr] ───────────────┼─► read register ─► out (valid = readable)
//!   fill ◄─ write_ptr − sync(read_ptr) ◄═╪═ read_ptr ; sync(write_ptr) ═► readable
//! ```

use crate::crossing::Crossing;
use crate::cycle::{BlockModel, Offer, UBits};
use crate::scan_out::{FIFO_WORDS, FILL_BITS};
use crate::streams::VideoPixel;

/// The stage name (module `tilerast_line_buffer_<board>`).
pub const STAGE: &str = "line_buffer";

/// The line buffer's cycle model: one [`Crossing`] of [`FIFO_WORDS`] pixels.
#[derive(Clone, Debug)]
pub struct LineBufferCycle {
    pub fifo: Crossing<VideoPixel>,
    /// Pixels pushed and popped (activity).
    pub pushed: u64,
    pub popped: u64,
    /// Write edges with the FIFO full (no room), read edges with it empty.
    pub full_edges: u64,
    pub empty_edges: u64,
    /// Write edges that dropped the words held (`drop`).
    pub drops: u64,
}

impl Default for LineBufferCycle {
    fn default() -> Self {
        LineBufferCycle::new(FIFO_WORDS)
    }
}

impl LineBufferCycle {
    /// `depth` pixels (a power of two; the board top's is [`FIFO_WORDS`]).
    pub fn new(depth: u32) -> LineBufferCycle {
        LineBufferCycle {
            fifo: Crossing::new(depth),
            pushed: 0,
            popped: 0,
            full_edges: 0,
            empty_edges: 0,
            drops: 0,
        }
    }
}

crate::block_signature! {
    /// line_buffer's ports: the scan-out's pixels in at the write clock, the video output's out
    /// at the read clock, the write side's `fill`; `write_clock` / `read_clock` 1 in the steps
    /// with that clock's rising edge (see the module header).
    pub LineBuffer "line_buffer" {
        takes { inp: VideoPixel }
        sends { out: VideoPixel }
        ins { write_clock: bool, read_clock: bool, drop: bool }
        outs { fill: UBits<FILL_BITS> }
    }
}

impl crate::cycle::OneStream for LineBufferPorts {
    type InS = crate::streams::ports::VideoPixel;
    type OutS = crate::streams::ports::VideoPixel;
}

impl BlockModel for LineBufferCycle {
    type Sig = LineBufferPorts;
    fn outputs(&self, _: &LineBufferIn) -> LineBufferOut {
        let (v, px) = self.fifo.out();
        LineBufferOut {
            inp_ready: self.fifo.room(),
            out: Offer::new(v, px),
            fill: UBits::new(u64::from(self.fifo.fill())),
        }
    }
    fn clock(&mut self, i: &LineBufferIn) {
        let (written, read) = self.fifo.pointers();
        if i.read_clock {
            let pop = self.fifo.readable() && i.out_ready && !i.flush;
            self.popped += u64::from(pop);
            self.empty_edges += u64::from(!self.fifo.readable() && !i.flush);
            // The read side first: the RAM's read register samples it before this step's write.
            self.fifo.read_edge(pop, written, i.flush);
        }
        if i.write_clock {
            let push = i.inp.valid && self.fifo.room() && !i.flush && !i.drop;
            self.pushed += u64::from(push);
            self.full_edges += u64::from(!self.fifo.room() && !i.flush);
            if i.drop && !i.flush {
                self.drops += 1;
                self.fifo.drop_edge(read);
            } else {
                self.fifo.write_edge(push.then_some(i.inp.payload), read, i.flush);
            }
        }
    }
}
