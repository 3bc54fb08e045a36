//! # double_buffer (no seed: the board top's map of the GPU's memory port)
//!
//! Between the frame top's memory port and the board arbiter's GPU client: each request's frame
//! address placed in the board's memory (the framebuffer in the back buffer, the other regions
//! in their set's windows, anything else at the memory's limit with the sticky `error`), the
//! back buffer cleared to the frame's background before the frame's framebuffer requests go,
//! and the swap of the two buffers once the frame is done and cleared. Cycle model:
//! [`tilerast_golden::double_buffer::DoubleBufferCycle`] (same registers); its rustdoc is the
//! block's timing contract, stated once.
//!
//! **Ports.** `clock`, `flush` (synchronous: front 0, nothing cleared, pending or held); in:
//! `in_valid`/`in_ready` with `inp` (the frame's requests, [`crate::streams::MemReqIn`]),
//! `ends_valid`/`ends_ready` with `ends` (a frame's background, [`crate::streams::FrameEndIn`]);
//! out: `out_valid`/`out_ready` with `out` (the board's requests, [`crate::streams::MemReqOut`]);
//! `done` (the frame top's done pulse), `shown` (the buffer the scan-out latched,
//! synchronised); `front` (the buffer to show), `error`.
//!
//! **Handshake.** `in_ready = !slot_full | (out_ready & passes)`; `out` is the slot's request
//! or the clear's write, chosen from registers; `ends_ready` = the backgrounds FIFO not full.
//! Latency 1 (inp → out), one request per cycle; a clear writes one word per cycle.
//!
//! ```text
//!  inp ─► map: addr < PRIMS ─► framebuffer offset (< fb_bytes)       ─► slot ─┬─ passes ─► out
//!              else set = addr[31], region ─► addr + (base − start) (< end)   │ (fb: open ∧ ahead 0;
//!              else ─► limit, error                                           │  base of the back buffer)
//!  ends ─► backgrounds FIFO (4) ─► head ─► clear write at back base + clear_offset ┘ (when not passes)
//!  done ─► pending ─► swap (cleared, no fb request of this frame in the slot) ─► front ^= 1, pop
//!  shown = front ─► clear starts; cleared ─► open
//! ```

use crate::emit;
use crate::fifo::ring_fifo;
use crate::util::k;
use rust_hdl::prelude::*;
use tilerast_golden::board::Board;
use tilerast_golden::double_buffer::{BoardMap, END_DEPTH};
use tilerast_golden::frame::{BINS, PIXEL_INFO, PRIMS, SET_STRIDE};

/// The stage name (module `tilerast_double_buffer_<board>`).
pub const STAGE: &str = "double_buffer";

const _: () = assert!(END_DEPTH == 4, "the backgrounds FIFO and the 3-bit counts below");

ring_fifo! {
    /// The backgrounds of the frames whose end the frame top took and that have not swapped in.
    pub struct BackgroundFifo { width 32, depth 4, pointer 2, count 3 }
}

tilerast_golden::double_buffer_streams! { crate::streams::stream_block;
    /// The double buffer. Build with [`DoubleBuffer::new`] (see the module header).
    pub struct DoubleBuffer {
        c_prims: Constant<Bits<32>>,
        c_bins: Constant<Bits<32>>,
        c_pixel_info: Constant<Bits<32>>,
        c_set_stride: Constant<Bits<32>>,
        c_low31: Constant<Bits<32>>,
        c_fb_bytes: Constant<Bits<32>>,
        c_last_offset: Constant<Bits<32>>,
        c_buffer0: Constant<Bits<32>>,
        c_buffer1: Constant<Bits<32>>,
        /// Per set, per region (prims, bins, pixel info): the window's base less the region's
        /// start (mod 2^32: the mapped address is the region address plus it, one adder per
        /// window, all six beside the compares that choose) and
        /// the region's end (its start plus the window's bytes: inside the window is below it,
        /// a compare with a constant, beside the adder instead of after a subtraction).
        c_delta00: Constant<Bits<32>>,
        c_delta01: Constant<Bits<32>>,
        c_delta02: Constant<Bits<32>>,
        c_delta10: Constant<Bits<32>>,
        c_delta11: Constant<Bits<32>>,
        c_delta12: Constant<Bits<32>>,
        c_end00: Constant<Bits<32>>,
        c_end01: Constant<Bits<32>>,
        c_end02: Constant<Bits<32>>,
        c_end10: Constant<Bits<32>>,
        c_end11: Constant<Bits<32>>,
        c_end12: Constant<Bits<32>>,
        c_limit: Constant<Bits<32>>,
        c_word_bytes: Constant<Bits<32>>,
        c_all_bytes: Constant<Bits<4>>,
        c_zero3: Constant<Bits<3>>,
        c_one3: Constant<Bits<3>>,
        /// 1 in the planted bug: `shown` counts as the front buffer always.
        c_no_vblank_wait: Constant<Bit>,

        /// The map of `inp.addr`: a framebuffer address; its address without the set bit, its
        /// set; the region's window delta (base − start) and whether the address is below the
        /// region's end; inside a window (`in_window`, not `inside`: a SystemVerilog keyword);
        /// where it goes.
        in_framebuffer: Signal<Local, Bit>,
        region_addr: Signal<Local, Bits<32>>,
        in_set1: Signal<Local, Bit>,
        /// The address mapped into each of the six windows (set, region), computed beside the
        /// compares that pick one: no adder after a compare.
        mapped00: Signal<Local, Bits<32>>,
        mapped01: Signal<Local, Bits<32>>,
        mapped02: Signal<Local, Bits<32>>,
        mapped10: Signal<Local, Bits<32>>,
        mapped11: Signal<Local, Bits<32>>,
        mapped12: Signal<Local, Bits<32>>,
        window_mapped: Signal<Local, Bits<32>>,
        below_end: Signal<Local, Bit>,
        in_window: Signal<Local, Bit>,
        mapped: Signal<Local, Bits<32>>,
        /// The back buffer's base.
        back_base: Signal<Local, Bits<32>>,
        /// The slot's request goes out now / is a framebuffer request of the frame being drawn.
        passes: Signal<Local, Bit>,
        drawing: Signal<Local, Bit>,
        shows_front: Signal<Local, Bit>,
        take: Signal<Local, Bit>,
        clear_write: Signal<Local, Bit>,
        swap: Signal<Local, Bit>,
        /// `pending` after this edge.
        pending_next: Signal<Local, Bits<3>>,

        /// The buffer to show; the back buffer holds the frame's background; the clear walk.
        front_reg: DFF<Bit>,
        cleared: DFF<Bit>,
        clearing: DFF<Bit>,
        clear_offset: DFF<Bits<32>>,
        /// Dones not yet swapped; framebuffer requests may go.
        pending: DFF<Bits<3>>,
        open: DFF<Bit>,
        error_reg: DFF<Bit>,
        /// The request slot: the frame's request, mapped (a framebuffer offset when
        /// `slot_framebuffer`), and the swaps before its frame is the one being drawn.
        slot_full: DFF<Bit>,
        slot_framebuffer: DFF<Bit>,
        slot_ahead: DFF<Bits<3>>,
        slot_addr: DFF<Bits<32>>,
        slot_write: DFF<Bit>,
        slot_wdata: DFF<Bits<32>>,
        slot_be: DFF<Bits<4>>,
        backgrounds: BackgroundFifo,
    }
}

impl DoubleBuffer {
    /// The block for `map`.
    pub fn new(map: &BoardMap) -> DoubleBuffer {
        // Region r of set s starts at the frame address `starts[r]`; its window holds
        // [start, start + bytes) at `base`. Region addresses are below 2^31 (the set bit is
        // masked off), so an end beyond 2^32 − 1 is clamped without changing a compare.
        let starts = [PRIMS, BINS, PIXEL_INFO];
        let w = |set: usize, r: usize| {
            let (base, bytes) = map.windows[set][r];
            let end = (u64::from(starts[r]) + u64::from(bytes)).min(u64::from(u32::MAX));
            (k(u64::from(base.wrapping_sub(starts[r]))), k(end))
        };
        let ((c_delta00, c_end00), (c_delta01, c_end01), (c_delta02, c_end02)) = (w(0, 0), w(0, 1), w(0, 2));
        let ((c_delta10, c_end10), (c_delta11, c_end11), (c_delta12, c_end12)) = (w(1, 0), w(1, 1), w(1, 2));
        DoubleBuffer {
            clock: Default::default(),
            flush: Default::default(),
            in_valid: Default::default(),
            in_ready: Default::default(),
            inp: Default::default(),
            ends_valid: Default::default(),
            ends_ready: Default::default(),
            ends: Default::default(),
            out_valid: Default::default(),
            out_ready: Default::default(),
            out: Default::default(),
            done: Default::default(),
            shown: Default::default(),
            front: Default::default(),
            error: Default::default(),
            c_prims: k(u64::from(PRIMS)),
            c_bins: k(u64::from(BINS)),
            c_pixel_info: k(u64::from(PIXEL_INFO)),
            c_set_stride: k(u64::from(SET_STRIDE)),
            c_low31: k(u64::from(!SET_STRIDE)),
            c_fb_bytes: k(u64::from(map.fb_bytes)),
            c_last_offset: k(u64::from(map.fb_bytes - 4)),
            c_buffer0: k(u64::from(map.buffers[0])),
            c_buffer1: k(u64::from(map.buffers[1])),
            c_delta00,
            c_delta01,
            c_delta02,
            c_delta10,
            c_delta11,
            c_delta12,
            c_end00,
            c_end01,
            c_end02,
            c_end10,
            c_end11,
            c_end12,
            c_limit: k(u64::from(map.limit)),
            c_word_bytes: k(4),
            c_all_bytes: k(0xf),
            c_zero3: k(0),
            c_one3: k(1),
            c_no_vblank_wait: Constant::new(false),
            in_framebuffer: Default::default(),
            region_addr: Default::default(),
            in_set1: Default::default(),
            mapped00: Default::default(),
            mapped01: Default::default(),
            mapped02: Default::default(),
            mapped10: Default::default(),
            mapped11: Default::default(),
            mapped12: Default::default(),
            window_mapped: Default::default(),
            below_end: Default::default(),
            in_window: Default::default(),
            mapped: Default::default(),
            back_base: Default::default(),
            passes: Default::default(),
            drawing: Default::default(),
            shows_front: Default::default(),
            take: Default::default(),
            clear_write: Default::default(),
            swap: Default::default(),
            pending_next: Default::default(),
            front_reg: Default::default(),
            cleared: Default::default(),
            clearing: Default::default(),
            clear_offset: Default::default(),
            pending: Default::default(),
            open: Default::default(),
            error_reg: Default::default(),
            slot_full: Default::default(),
            slot_framebuffer: Default::default(),
            slot_ahead: Default::default(),
            slot_addr: Default::default(),
            slot_write: Default::default(),
            slot_wdata: Default::default(),
            slot_be: Default::default(),
            backgrounds: Default::default(),
        }
    }

    /// The planted bug of the tests (`DoubleBufferCycle::plant_no_vblank_wait_bug`): `shown`
    /// counts as the front buffer always, so the clear and the frame's writes go into the
    /// buffer on the screen.
    pub fn mutant_no_vblank_wait(mut self) -> DoubleBuffer {
        self.c_no_vblank_wait = Constant::new(true);
        self
    }

    #[hdl_gen]
    fn kernel(&mut self) {
        dff_setup!(
            self,
            clock,
            front_reg,
            cleared,
            clearing,
            clear_offset,
            pending,
            open,
            error_reg,
            slot_full,
            slot_framebuffer,
            slot_ahead,
            slot_addr,
            slot_write,
            slot_wdata,
            slot_be
        );

        // The map of the offered request.
        self.in_framebuffer.next = self.inp.addr.val() < self.c_prims.val();
        self.in_set1.next = self.inp.addr.val() >= self.c_set_stride.val();
        self.region_addr.next = self.inp.addr.val() & self.c_low31.val();
        self.mapped00.next = self.region_addr.val() + self.c_delta00.val();
        self.mapped01.next = self.region_addr.val() + self.c_delta01.val();
        self.mapped02.next = self.region_addr.val() + self.c_delta02.val();
        self.mapped10.next = self.region_addr.val() + self.c_delta10.val();
        self.mapped11.next = self.region_addr.val() + self.c_delta11.val();
        self.mapped12.next = self.region_addr.val() + self.c_delta12.val();
        self.window_mapped.next = self.mapped02.val();
        self.below_end.next = self.region_addr.val() < self.c_end02.val();
        if self.in_set1.val() {
            self.window_mapped.next = self.mapped12.val();
            self.below_end.next = self.region_addr.val() < self.c_end12.val();
        }
        if self.region_addr.val() < self.c_pixel_info.val() {
            self.window_mapped.next = self.mapped01.val();
            self.below_end.next = self.region_addr.val() < self.c_end01.val();
            if self.in_set1.val() {
                self.window_mapped.next = self.mapped11.val();
                self.below_end.next = self.region_addr.val() < self.c_end11.val();
            }
        }
        if self.region_addr.val() < self.c_bins.val() {
            self.window_mapped.next = self.mapped00.val();
            self.below_end.next = self.region_addr.val() < self.c_end00.val();
            if self.in_set1.val() {
                self.window_mapped.next = self.mapped10.val();
                self.below_end.next = self.region_addr.val() < self.c_end10.val();
            }
        }
        // Below the region's end and at or above its start (the chain above picks the region
        // whose start is at or below the address, but for addresses below PRIMS).
        self.in_window.next = (self.region_addr.val() >= self.c_prims.val()) & self.below_end.val();
        self.mapped.next = self.window_mapped.val();
        if self.in_framebuffer.val() {
            self.in_window.next = self.inp.addr.val() < self.c_fb_bytes.val();
            self.mapped.next = self.inp.addr.val();
        }
        if !self.in_window.val() {
            self.mapped.next = self.c_limit.val();
        }

        // The outputs, from the registers.
        self.back_base.next = self.c_buffer1.val();
        if self.front_reg.q.val() {
            self.back_base.next = self.c_buffer0.val();
        }
        self.drawing.next =
            self.slot_full.q.val() & self.slot_framebuffer.q.val() & (self.slot_ahead.q.val() == self.c_zero3.val());
        self.passes.next = self.slot_full.q.val()
            & (!self.slot_framebuffer.q.val() | (self.open.q.val() & (self.slot_ahead.q.val() == self.c_zero3.val())));
        self.out_valid.next = self.passes.val() | self.clearing.q.val();
        self.out.addr.next = self.back_base.val() + self.clear_offset.q.val();
        self.out.write.next = true;
        self.out.wdata.next = self.backgrounds.head_data.val();
        self.out.be.next = self.c_all_bytes.val();
        if self.passes.val() {
            self.out.addr.next = self.slot_addr.q.val();
            if self.slot_framebuffer.q.val() {
                self.out.addr.next = self.back_base.val() + self.slot_addr.q.val();
            }
            self.out.write.next = self.slot_write.q.val();
            self.out.wdata.next = self.slot_wdata.q.val();
            self.out.be.next = self.slot_be.q.val();
        }
        self.in_ready.next = !self.slot_full.q.val() | (self.out_ready.val() & self.passes.val());
        self.ends_ready.next = !self.backgrounds.full.val();
        self.front.next = self.front_reg.q.val();
        self.error.next = self.error_reg.q.val();

        // The edge.
        self.shows_front.next = (self.shown.val() == self.front_reg.q.val()) | self.c_no_vblank_wait.val();
        self.take.next = self.in_valid.val() & self.in_ready.val();
        self.clear_write.next = self.out_ready.val() & self.clearing.q.val() & !self.passes.val();
        self.swap.next = self.cleared.q.val()
            & ((self.pending.q.val() != self.c_zero3.val()) | self.done.val())
            & !self.drawing.val();
        self.pending_next.next = self.pending.q.val();
        if self.done.val() & !self.swap.val() {
            self.pending_next.next = self.pending.q.val() + self.c_one3.val();
        }
        if !self.done.val() & self.swap.val() {
            self.pending_next.next = self.pending.q.val() - self.c_one3.val();
        }
        self.pending.d.next = self.pending_next.val();
        self.open.d.next = !self.swap.val() & self.cleared.q.val() & self.shows_front.val();

        if self.swap.val() & (self.slot_ahead.q.val() != self.c_zero3.val()) {
            self.slot_ahead.d.next = self.slot_ahead.q.val() - self.c_one3.val();
        }
        if self.passes.val() & self.out_ready.val() {
            self.slot_full.d.next = false;
        }
        if self.take.val() {
            self.slot_full.d.next = true;
            self.slot_framebuffer.d.next = self.in_framebuffer.val() & self.in_window.val();
            self.slot_ahead.d.next = self.pending_next.val();
            self.slot_addr.d.next = self.mapped.val();
            self.slot_write.d.next = self.inp.write.val();
            self.slot_wdata.d.next = self.inp.wdata.val();
            self.slot_be.d.next = self.inp.be.val();
            if !self.in_window.val() {
                self.error_reg.d.next = true;
            }
        }

        if self.clear_write.val() {
            self.clear_offset.d.next = self.clear_offset.q.val() + self.c_word_bytes.val();
            if self.clear_offset.q.val() == self.c_last_offset.val() {
                self.clearing.d.next = false;
                self.cleared.d.next = true;
                self.clear_offset.d.next = 0.into();
            }
        }
        if !self.cleared.q.val() & !self.clearing.q.val() & self.shows_front.val() & !self.backgrounds.empty.val() {
            self.clearing.d.next = true;
            self.clear_offset.d.next = 0.into();
        }
        if self.swap.val() {
            self.front_reg.d.next = !self.front_reg.q.val();
            self.cleared.d.next = false;
        }

        self.backgrounds.clock.next = self.clock.val();
        self.backgrounds.flush.next = self.flush.val();
        self.backgrounds.push.next = self.ends_valid.val() & !self.backgrounds.full.val() & !self.flush.val();
        self.backgrounds.push_data.next = self.ends.colour.val();
        self.backgrounds.pop.next = self.swap.val() & !self.flush.val();

        if self.flush.val() {
            self.front_reg.d.next = false;
            self.cleared.d.next = false;
            self.clearing.d.next = false;
            self.clear_offset.d.next = 0.into();
            self.pending.d.next = 0.into();
            self.open.d.next = false;
            self.error_reg.d.next = false;
            self.slot_full.d.next = false;
            self.slot_framebuffer.d.next = false;
            self.slot_ahead.d.next = 0.into();
        }
    }
}

emit::indexed_kernel_logic!(DoubleBuffer);

/// The block's Verilog for `map` with top module `name`.
pub fn verilog(map: &BoardMap, name: &str) -> String {
    emit::block_verilog(DoubleBuffer::new(map), name)
}

/// The double buffer's row of [`crate::FRAME_BOARD_BLOCKS`].
pub const BOARD_FILE: crate::FrameBoardBlock = crate::FrameBoardBlock {
    role: "the GPU's port on the board: frame regions mapped into the SDRAM, two framebuffers cleared and swapped",
    sig: <tilerast_golden::double_buffer::DoubleBufferPorts as tilerast_golden::cycle::BlockSignature>::SIGNATURE,
    rtl_file,
    made_from: |f| f.preset,
};

/// The full text of `rtl-out/tilerast_double_buffer_<board>.v`: a header (the command, the
/// map, the contract, the lint command), then the block. `None` for a board without a frame
/// row.
pub fn rtl_file(board: &Board) -> Option<String> {
    let f = board.frame.as_ref()?;
    let map = BoardMap::for_board(board).unwrap_or_else(|e| panic!("{e}"));
    let top = format!("tilerast_{STAGE}_{}", board.name);
    let windows: Vec<String> = map
        .windows
        .iter()
        .enumerate()
        .map(|(set, w)| {
            format!(
                "set {set}: prims {:#x}+{:#x}, bins {:#x}+{:#x}, pixel info {:#x}+{:#x}",
                w[0].0, w[0].1, w[1].0, w[1].1, w[2].0, w[2].1
            )
        })
        .collect();
    Some(format!(
        "// generated by `cargo run -p tilerast-hw --bin gen-rtl` — do not edit\n\
         // {STAGE} for board {} ({}): preset {}'s {}-byte framebuffers at {:#x} and {:#x}; {};\n\
         // {}; anything else to {:#x} (error)\n\
         // timing contract: tilerast_golden::double_buffer::DoubleBufferCycle; top module: {top}\n\
         // lint-clean with: {}\n\
         // Ports: clock, flush (synchronous), in_valid/in_ready + inp (addr, write, wdata, be: the frame's\n\
         // requests), ends_valid/ends_ready + ends (colour: a frame's background), out_valid/out_ready + out\n\
         // (the board's requests), done, shown (in), front, error (out)\n//\n{}",
        board.name,
        board.title,
        f.preset,
        map.fb_bytes,
        map.buffers[0],
        map.buffers[1],
        windows[0],
        windows[1],
        map.limit,
        crate::lint_top_command(&top),
        verilog(&map, &top)
    ))
}
