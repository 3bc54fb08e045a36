//! # scan_out (no seed: the board top's framebuffer reader)
//!
//! The memory-clock side of the scan-out: it walks the displayed framebuffer in screen order
//! (framebuffer row H − 1 first, each word read `scale` times along a line and each row for
//! `scale` lines), sends one read per screen pixel to the board arbiter, and sends each answer
//! as a pixel into the line buffer (the clock-crossing FIFO in front of
//! [`crate::video_out::VideoOut`]). Credits keep the FIFO from overflowing, so every answer is
//! taken at once. Cycle model: [`tilerast_golden::scan_out::ScanOutCycle`] (same registers);
//! its rustdoc is the block's timing contract, stated once.
//!
//! **Ports.** `clock`, `flush` (synchronous reset: idle, registers empty); in:
//! `in_valid`/`in_ready` with `inp` (the memory's answers, [`crate::streams::MemRespIn`]);
//! out: `out_valid`/`out_ready` with `out` (a pixel, [`crate::streams::VideoPixelOut`]); `rd`:
//! `rd_valid`/`rd_ready` with the reads ([`crate::streams::MemReqOut`]); `start` (the walk
//! from the top, `base` latched), `base` (byte address of the displayed framebuffer), `fill`
//! (the line buffer's write-side count); `busy`.
//!
//! **Handshake.** `in_ready = !out_valid | out_ready` (latency 1 to `out`). The request
//! register loads when `busy`, it is empty or taken, and the `room` register is set; one read
//! per cycle at most. `room` takes `fill + in_flight + rd_valid + out_valid + load < credits`
//! at each edge (the model's contract). The sum is not formed: a register holds the credits
//! it leaves but `fill` (`headroom_x`), so each room test is one compare with `fill`, and
//! `load` selects between two of them. The three counted registers' sum changes by `load` −
//! (the pixel taken downstream), so `headroom_x` steps by −1, 0 or +1: a multiplexer of two
//! precomputed neighbours after `load`, no adder behind the arbiter's ready.
//!
//! ```text
//!  start ─► base_reg, row_addr = base + 4·(H−1)·W, next_addr = row_addr, counters 0, busy
//!  load ─► rd_addr ← next_addr; column repeat ─► column (next_addr + 4) ─► line repeat
//!          (next_addr = row_addr) ─► row (row_addr − 4·W) ─► last pixel: busy 0
//!  fill + in_flight + rd_valid + out_valid + load < credits ─► room (a register) ─► load allowed
//!  inp ─► out register (R, G, B = bytes 0, 1, 2)
//! ```
//!
//! Parameters: the framebuffer's size, the scale and the credits
//! ([`tilerast_golden::scan_out::ScanOutParams`], from the board table's frame row).

use crate::emit;
use crate::util::k;
use rust_hdl::prelude::*;
use tilerast_golden::board::Board;
use tilerast_golden::cycle::UBits;
use tilerast_golden::scan_out::{ScanOutParams, FILL_BITS};

/// The stage name (module `tilerast_scan_out_<board>`).
pub const STAGE: &str = "scan_out";

const _: () = assert!(FILL_BITS == 10, "the credit arithmetic below is 11 bits wide");

tilerast_golden::scan_out_streams! { crate::streams::stream_block;
    /// The framebuffer's reader. Build with [`ScanOut::new`] (see the module header).
    pub struct ScanOut {
        /// W − 1, H − 1, scale − 1 (12 bits).
        c_column_last: Constant<Bits<12>>,
        c_row_last: Constant<Bits<12>>,
        c_repeat_last: Constant<Bits<12>>,
        /// Bytes of a framebuffer row, and row H − 1's offset.
        c_row_bytes: Constant<Bits<32>>,
        c_top_row_offset: Constant<Bits<32>>,
        c_word_bytes: Constant<Bits<32>>,
        c_credits: Constant<Bits<11>>,
        c_zero12: Constant<Bits<12>>,
        c_one12: Constant<Bits<12>>,
        c_one10: Constant<Bits<10>>,
        c_one11: Constant<Bits<11>>,
        c_zero4: Constant<Bits<4>>,

        /// The answer offered is taken at this edge; the request register's read is taken.
        answer: Signal<Local, Bit>,
        rd_taken: Signal<Local, Bit>,
        /// The output register's pixel is taken at this edge: a credit comes back.
        credit_back: Signal<Local, Bit>,
        /// The credits left, one fewer and one more (from `headroom_x`, beside the room
        /// test), for the update's multiplexer.
        headroom: Signal<Local, Bits<11>>,
        headroom_less: Signal<Local, Bits<11>>,
        headroom_more: Signal<Local, Bits<11>>,
        /// A read may go into the request register at this edge.
        load: Signal<Local, Bit>,

        /// A walk is in progress.
        busy_reg: DFF<Bit>,
        /// The walk's counters: column repeat, framebuffer column, line repeat, framebuffer
        /// row (counting down from H − 1).
        column_repeat: DFF<Bits<12>>,
        column: DFF<Bits<12>>,
        line_repeat: DFF<Bits<12>>,
        row: DFF<Bits<12>>,
        /// Byte address of the walk's framebuffer row, and of its next read.
        row_addr: DFF<Bits<32>>,
        next_addr: DFF<Bits<32>>,
        /// The request register.
        rd_valid_reg: DFF<Bit>,
        rd_addr: DFF<Bits<32>>,
        /// Reads taken by the port and not yet answered.
        in_flight: DFF<Bits<10>>,
        /// The credits left, `credits − in_flight − rd_valid − out_valid`, kept up to date so
        /// that the room test is one compare with `fill` (the model's sum of four, computed
        /// from these registers' next values a cycle ahead). Stored XOR `credits`, so that its
        /// power-up and flush value, zero, is the empty block's: all credits left.
        headroom_x: DFF<Bits<11>>,
        /// The credits leave room for one more read at this edge (the model's `room`
        /// register: set from `fill` < the credits left after this edge's load).
        room: DFF<Bit>,
        /// The output register: a pixel held.
        out_valid_reg: DFF<Bit>,
        out_red: DFF<Bits<8>>,
        out_green: DFF<Bits<8>>,
        out_blue: DFF<Bits<8>>,
    }
}

impl ScanOut {
    /// The block for `p`.
    pub fn new(p: &ScanOutParams) -> ScanOut {
        ScanOut {
            clock: Default::default(),
            flush: Default::default(),
            in_valid: Default::default(),
            in_ready: Default::default(),
            inp: Default::default(),
            out_valid: Default::default(),
            out_ready: Default::default(),
            out: Default::default(),
            rd_valid: Default::default(),
            rd_ready: Default::default(),
            rd: Default::default(),
            start: Default::default(),
            base: Default::default(),
            fill: Default::default(),
            busy: Default::default(),
            c_column_last: k(u64::from(p.width - 1)),
            c_row_last: k(u64::from(p.height - 1)),
            c_repeat_last: k(u64::from(p.scale - 1)),
            c_row_bytes: k(u64::from(p.row_bytes())),
            c_top_row_offset: k(u64::from(p.top_row_offset())),
            c_word_bytes: k(4),
            c_credits: k(u64::from(p.credits)),
            c_zero12: k(0),
            c_one12: k(1),
            c_one10: k(1),
            c_one11: k(1),
            c_zero4: k(0),
            answer: Default::default(),
            rd_taken: Default::default(),
            credit_back: Default::default(),
            headroom: Default::default(),
            headroom_less: Default::default(),
            headroom_more: Default::default(),
            load: Default::default(),
            busy_reg: Default::default(),
            column_repeat: Default::default(),
            column: Default::default(),
            line_repeat: Default::default(),
            row: Default::default(),
            row_addr: Default::default(),
            next_addr: Default::default(),
            rd_valid_reg: Default::default(),
            rd_addr: Default::default(),
            in_flight: Default::default(),
            headroom_x: Default::default(),
            room: Default::default(),
            out_valid_reg: Default::default(),
            out_red: Default::default(),
            out_green: Default::default(),
            out_blue: Default::default(),
        }
    }

    #[hdl_gen]
    fn kernel(&mut self) {
        dff_setup!(
            self,
            clock,
            busy_reg,
            column_repeat,
            column,
            line_repeat,
            row,
            row_addr,
            next_addr,
            rd_valid_reg,
            rd_addr,
            in_flight,
            headroom_x,
            room,
            out_valid_reg,
            out_red,
            out_green,
            out_blue
        );

        // Handshakes and credits.
        self.in_ready.next = !self.out_valid_reg.q.val() | self.out_ready.val();
        self.answer.next = self.in_valid.val() & (!self.out_valid_reg.q.val() | self.out_ready.val());
        self.rd_taken.next = self.rd_valid_reg.q.val() & self.rd_ready.val();
        // Room for the next edge: fill + in_flight + rd_valid + out_valid + load < credits, as
        // fill < headroom − load (both compares beside the load, a multiplexer after it).
        self.headroom.next = self.headroom_x.q.val() ^ self.c_credits.val();
        self.headroom_less.next = self.headroom.val() - self.c_one11.val();
        self.headroom_more.next = self.headroom.val() + self.c_one11.val();
        self.load.next = !self.start.val()
            & self.busy_reg.q.val()
            & (!self.rd_valid_reg.q.val() | self.rd_ready.val())
            & self.room.q.val();
        self.room.d.next = bit_cast::<11, 10>(self.fill.val()) < self.headroom.val();
        if self.load.val() {
            self.room.d.next = bit_cast::<11, 10>(self.fill.val()) < self.headroom_less.val();
        }

        // Reads in flight: +1 per read taken, −1 per answer taken.
        if self.rd_taken.val() & !self.answer.val() {
            self.in_flight.d.next = self.in_flight.q.val() + self.c_one10.val();
        }
        if !self.rd_taken.val() & self.answer.val() {
            self.in_flight.d.next = self.in_flight.q.val() - self.c_one10.val();
        }
        // The credits in use, in_flight + rd_valid + out_valid, change by `load` − `credit_back`:
        // a read taken moves a credit from the request register to in_flight, an answer taken
        // from in_flight to the output register, and a load takes a credit (the request
        // register is empty or taken when it loads); only the pixel leaving returns one.
        self.credit_back.next = self.out_valid_reg.q.val() & self.out_ready.val();
        if self.load.val() & !self.credit_back.val() {
            self.headroom_x.d.next = self.headroom_less.val() ^ self.c_credits.val();
        }
        if !self.load.val() & self.credit_back.val() {
            self.headroom_x.d.next = self.headroom_more.val() ^ self.c_credits.val();
        }

        // The output register takes an answer whenever it may.
        if !self.out_valid_reg.q.val() | self.out_ready.val() {
            self.out_valid_reg.d.next = self.in_valid.val();
            self.out_red.d.next = 0.into();
            self.out_green.d.next = 0.into();
            self.out_blue.d.next = 0.into();
            if self.in_valid.val() {
                self.out_red.d.next = self.inp.rdata.val().get_bits::<8>(0);
                self.out_green.d.next = self.inp.rdata.val().get_bits::<8>(8);
                self.out_blue.d.next = self.inp.rdata.val().get_bits::<8>(16);
            }
        }

        // The request register and the walk.
        if self.load.val() {
            self.rd_valid_reg.d.next = true;
            self.rd_addr.d.next = self.next_addr.q.val();
            if self.column_repeat.q.val() != self.c_repeat_last.val() {
                self.column_repeat.d.next = self.column_repeat.q.val() + self.c_one12.val();
            } else {
                self.column_repeat.d.next = self.c_zero12.val();
                if self.column.q.val() != self.c_column_last.val() {
                    self.column.d.next = self.column.q.val() + self.c_one12.val();
                    self.next_addr.d.next = self.next_addr.q.val() + self.c_word_bytes.val();
                } else {
                    self.column.d.next = self.c_zero12.val();
                    if self.line_repeat.q.val() != self.c_repeat_last.val() {
                        self.line_repeat.d.next = self.line_repeat.q.val() + self.c_one12.val();
                        self.next_addr.d.next = self.row_addr.q.val();
                    } else {
                        self.line_repeat.d.next = self.c_zero12.val();
                        if self.row.q.val() == self.c_zero12.val() {
                            self.busy_reg.d.next = false;
                        } else {
                            self.row.d.next = self.row.q.val() - self.c_one12.val();
                            self.row_addr.d.next = self.row_addr.q.val() - self.c_row_bytes.val();
                            self.next_addr.d.next = self.row_addr.q.val() - self.c_row_bytes.val();
                        }
                    }
                }
            }
        } else if self.rd_taken.val() {
            self.rd_valid_reg.d.next = false;
        }

        // A start begins the walk at the top of the frame at `base`.
        if self.start.val() {
            self.busy_reg.d.next = true;
            self.column_repeat.d.next = self.c_zero12.val();
            self.column.d.next = self.c_zero12.val();
            self.line_repeat.d.next = self.c_zero12.val();
            self.row.d.next = self.c_row_last.val();
            self.row_addr.d.next = self.base.val() + self.c_top_row_offset.val();
            self.next_addr.d.next = self.base.val() + self.c_top_row_offset.val();
        }

        if self.flush.val() {
            self.busy_reg.d.next = false;
            self.column_repeat.d.next = self.c_zero12.val();
            self.column.d.next = self.c_zero12.val();
            self.line_repeat.d.next = self.c_zero12.val();
            self.row.d.next = self.c_zero12.val();
            self.row_addr.d.next = 0.into();
            self.next_addr.d.next = 0.into();
            self.rd_valid_reg.d.next = false;
            self.rd_addr.d.next = 0.into();
            self.in_flight.d.next = 0.into();
            self.headroom_x.d.next = 0.into();
            self.room.d.next = false;
            self.out_valid_reg.d.next = false;
            self.out_red.d.next = 0.into();
            self.out_green.d.next = 0.into();
            self.out_blue.d.next = 0.into();
        }

        self.out_valid.next = self.out_valid_reg.q.val();
        self.out.red.next = self.out_red.q.val();
        self.out.green.next = self.out_green.q.val();
        self.out.blue.next = self.out_blue.q.val();
        self.rd_valid.next = self.rd_valid_reg.q.val();
        self.rd.addr.next = self.rd_addr.q.val();
        self.rd.write.next = false;
        self.rd.wdata.next = 0.into();
        self.rd.be.next = self.c_zero4.val();
        self.busy.next = self.busy_reg.q.val();
    }
}

impl ScanOut {
    /// The planted bug of the tests (`ScanOutCycle::plant_row_step_bug`): the row step's
    /// constant negated, so the walk's row address steps up a row instead of down.
    pub fn mutant_row_step_up(mut self, p: &ScanOutParams) -> ScanOut {
        self.c_row_bytes = k(u64::from(p.row_bytes().wrapping_neg()));
        self
    }
}

emit::indexed_kernel_logic!(ScanOut);

/// The block's Verilog for `p` with top module `name`.
pub fn verilog(p: &ScanOutParams, name: &str) -> String {
    emit::block_verilog(ScanOut::new(p), name)
}

/// The scan-out's row of [`crate::FRAME_BOARD_BLOCKS`].
pub const BOARD_FILE: crate::FrameBoardBlock = crate::FrameBoardBlock {
    role: "framebuffer reader: screen-order reads through the arbiter into the line buffer, credit flow control",
    sig: <tilerast_golden::scan_out::ScanOutPorts as tilerast_golden::cycle::BlockSignature>::SIGNATURE,
    rtl_file,
    made_from: |f| f.preset,
};

/// The full text of `rtl-out/tilerast_scan_out_<board>.v`: a header (the command, the walk,
/// the contract, the lint command), then the block. `None` for a board without a frame row.
pub fn rtl_file(board: &Board) -> Option<String> {
    let f = board.frame.as_ref()?;
    let p = ScanOutParams::for_board(f).unwrap_or_else(|e| panic!("board {}: {e}", board.name));
    let top = format!("tilerast_{STAGE}_{}", board.name);
    Some(format!(
        "// generated by `cargo run -p tilerast-hw --bin gen-rtl` — do not edit\n\
         // {STAGE} for board {} ({}): preset {}'s {} x {} framebuffer on {} at scale {}, {} credits\n\
         // (the line buffer's words)\n\
         // timing contract: tilerast_golden::scan_out::ScanOutCycle; top module: {top}\n\
         // lint-clean with: {}\n\
         // Ports: clock, flush (synchronous), in_valid/in_ready + inp (rdata: the memory's answers),\n\
         // out_valid/out_ready + out (red, green, blue: 8 bits), rd_valid/rd_ready + rd (addr, write,\n\
         // wdata, be: reads), start, base (32 bits), fill ({FILL_BITS} bits) (in), busy (out)\n//\n{}",
        board.name,
        board.title,
        f.preset,
        p.width,
        p.height,
        f.video.name,
        p.scale,
        p.credits,
        crate::lint_top_command(&top),
        verilog(&p, &top)
    ))
}
