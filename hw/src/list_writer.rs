//! # The list-writing core (hw form of [`tilerast_golden::list_writer::ListWriterCycle`])
//!
//! Shared by the binner (records of one word) and the pixel-info writer (records of W = 3..5
//! words): per-list state in a block RAM ([`StateRam`]: `{head, tail, count, off}`, registered
//! read), the current list's state `cur`, the step registers and the bump allocator. The
//! parent block sequences it exactly as the golden core is sequenced by its cycle model:
//! `re`/`raddr` (the model's `read`), `latch` (`latch`), `step` with `fin` = 0 (one
//! `append_step`) or `fin` = 1 (one `close_step`), `clear` (`clear`), `rbump` (`reset_bump`).
//! The step's write (`wr_addr`, `wr_data`) and `done` are combinational from the core's
//! registers, `fin` and the record word `word` (word `kw` of the record, muxed by the parent):
//! the parent loads them into its output register. Timing: no latency of its own; the
//! parent's contract (`BinnerCycle`, `PixelInfoWriteCycle`) is the timing.
//!
//! ```text
//!   raddr/re ─► StateRam ─► rd ─latch─► cur, empty = ¬nz, full (flags stored with the word)
//!   step, fin=0: [link: tail.next = nidx] word 0 at (alloc ? naddr + 4 : tail + off), word k
//!                at wa (wa = word address + 4 per word) ... last word: write back
//!   step, fin=1: [tail.next = NIL] head @ 8·list, count @ 8·list + 4: write back empty
//!   bump: nidx, naddr (+1, +B per block taken; rbump: the first block after the table)
//! ```
//!
//! Parameters are runtime constants (`Constant`s, no const generics: those would leak into
//! the Verilog): W, the block size, `OFF_FULL`, the first block after the table. The word
//! register `wa` replaces the golden core's `base + 4k` (same addresses, one add per cycle).
//! Nothing is computed from the RAM's output in the latch cycle: the two tests the append
//! needs (`empty` = count = 0, `full` = off = OFF_FULL) are stored as flag bits beside the
//! word, computed when the word is written (`nz` = 1 on an append's write-back, `full` by a
//! compare of the register `cur.off` with `OFF_FULL − 4·W`), and the first word's address
//! is added from `cur` in the step that writes it. So the RAM → register path is wiring: on
//! ECP5 the 32-bit `count = 0` test on the RAM's output was the binner's and the pixel-info
//! writer's critical path (10.5 / 10.9 ns, 95.7 / 92.1 MHz). The word is 114 bits (one more
//! SB_RAM40_4K on iCE40, the same four DP16KD on ECP5).

use crate::fpga_top::wrapper_block;
use crate::streams::{BinWriteOut, BinWriteReg};
use crate::util::k;
use rust_hdl::prelude::*;
use tilerast_golden::list_writer::{ListState, ListWriterCycle};

/// What the rust-hdl model of the RAM's read register holds after an edge without a read.
pub const RAM_JUNK: ListState = ListState {
    head: 0xdead_beef,
    tail: 0xbad0_c0de,
    count: 0x5a5a_a5a5,
    off: 0xa5a5,
};

/// The list writer's state RAM: one write port, one read port with a registered read (`rd_*` = the
/// word read at the last edge with `re`; undefined on every other cycle). Address in the low
/// `abits` bits of `waddr` / `raddr`.
pub struct StateRam {
    pub clock: Signal<In, Clock>,
    /// Write `wd_*` at `waddr` at this edge.
    pub we: Signal<In, Bit>,
    pub waddr: Signal<In, Bits<12>>,
    pub wd_head: Signal<In, Bits<32>>,
    pub wd_tail: Signal<In, Bits<32>>,
    pub wd_count: Signal<In, Bits<32>>,
    pub wd_off: Signal<In, Bits<16>>,
    /// The word's two flags, stored beside it: `nz` = count ≠ 0, `full` = off = OFF_FULL
    /// (computed by the writer from registers, so that the latch cycle needs no compare on
    /// the RAM's output).
    pub wd_nz: Signal<In, Bit>,
    pub wd_full: Signal<In, Bit>,
    /// Read `raddr` at this edge (on `rd_*` in the next cycle).
    pub re: Signal<In, Bit>,
    pub raddr: Signal<In, Bits<12>>,
    pub rd_head: Signal<Out, Bits<32>>,
    pub rd_tail: Signal<Out, Bits<32>>,
    pub rd_count: Signal<Out, Bits<32>>,
    pub rd_off: Signal<Out, Bits<16>>,
    pub rd_nz: Signal<Out, Bit>,
    pub rd_full: Signal<Out, Bit>,
    abits: usize,
    mem: Vec<(ListState, bool, bool)>,
    q: (ListState, bool, bool),
}

impl StateRam {
    /// A RAM of 2^`abits` words, every word 0.
    pub fn new(abits: usize) -> Self {
        assert!((1..=12).contains(&abits));
        StateRam {
            clock: Default::default(),
            we: Default::default(),
            waddr: Default::default(),
            wd_head: Default::default(),
            wd_tail: Default::default(),
            wd_count: Default::default(),
            wd_off: Default::default(),
            wd_nz: Default::default(),
            wd_full: Default::default(),
            re: Default::default(),
            raddr: Default::default(),
            rd_head: Default::default(),
            rd_tail: Default::default(),
            rd_count: Default::default(),
            rd_off: Default::default(),
            rd_nz: Default::default(),
            rd_full: Default::default(),
            abits,
            mem: vec![(ListState::default(), false, false); 1 << abits],
            q: (ListState::default(), false, false),
        }
    }
}

wrapper_block!(StateRam; clock, we, waddr, wd_head, wd_tail, wd_count, wd_off, wd_nz, wd_full, re, raddr, rd_head, rd_tail, rd_count, rd_off, rd_nz, rd_full);

impl Logic for StateRam {
    fn update(&mut self) {
        if self.clock.pos_edge() {
            let m = (1usize << self.abits) - 1;
            let q = if self.re.val() {
                self.mem[self.raddr.val().index() & m]
            } else {
                (RAM_JUNK, true, true)
            };
            if self.we.val() {
                self.mem[self.waddr.val().index() & m] = (
                    ListState {
                        head: self.wd_head.val().to_u64() as u32,
                        tail: self.wd_tail.val().to_u64() as u32,
                        count: self.wd_count.val().to_u64() as u32,
                        off: self.wd_off.val().to_u64() as u32,
                    },
                    self.wd_nz.val(),
                    self.wd_full.val(),
                );
            }
            self.q = q;
        }
        self.rd_head.next = (self.q.0.head as u64).into();
        self.rd_tail.next = (self.q.0.tail as u64).into();
        self.rd_count.next = (self.q.0.count as u64).into();
        self.rd_off.next = (self.q.0.off as u64 & 0xffff).into();
        self.rd_nz.next = self.q.1;
        self.rd_full.next = self.q.2;
    }

    fn connect(&mut self) {
        self.rd_head.connect();
        self.rd_tail.connect();
        self.rd_count.connect();
        self.rd_off.connect();
        self.rd_nz.connect();
        self.rd_full.connect();
    }

    fn hdl(&self) -> Verilog {
        let depth = 1usize << self.abits;
        let a1 = self.abits - 1;
        let code = format!(
            "    // {depth} words x 114 bits: {{full, nz, off[15:0], count, tail, head}}; one write port,\n\
             \x20   // one read port with a read register. `no_rw_check`: a list is never read at the edge\n\
             \x20   // that writes it.\n\
             \x20   (* no_rw_check *) reg [113:0] mem [0:{d1}];\n\
             \x20   reg [113:0] q;\n\
             \x20   always @(posedge clock) begin\n\
             \x20       if (we) mem[waddr[{a1}:0]] <= {{wd_full, wd_nz, wd_off, wd_count, wd_tail, wd_head}};\n\
             \x20       if (re) q <= mem[raddr[{a1}:0]];\n\
             \x20   end\n\
             \x20   assign rd_head = q[31:0];\n\
             \x20   assign rd_tail = q[63:32];\n\
             \x20   assign rd_count = q[95:64];\n\
             \x20   assign rd_off = q[111:96];\n\
             \x20   assign rd_nz = q[112];\n\
             \x20   assign rd_full = q[113];\n\
             `ifndef SYNTHESIS\n\
             \x20   // Simulation: zeros at time 0 (FPGA configuration clears block RAM).\n\
             \x20   integer i;\n\
             \x20   initial for (i = 0; i < {depth}; i = i + 1) mem[i] = 114'd0;\n\
             `endif\n",
            d1 = depth - 1
        );
        Verilog::Wrapper(Wrapper {
            code,
            cores: String::new(),
        })
    }
}

/// The list-writing core (see the module header). Build with [`ListWriter::new`].
#[derive(LogicBlock)]
pub struct ListWriter {
    pub clock: Signal<In, Clock>,
    /// Synchronous reset of the core's registers (the RAM keeps its words).
    pub flush: Signal<In, Bit>,
    /// Read list `raddr` at this edge (on the RAM's read register next cycle).
    pub re: Signal<In, Bit>,
    pub raddr: Signal<In, Bits<12>>,
    /// `cur` ← the word read at the last edge (with its `empty` and `full` tests registered).
    pub latch: Signal<In, Bit>,
    /// Take one step at this edge (append if `fin` = 0, close if `fin` = 1).
    pub step: Signal<In, Bit>,
    /// Close mode (the finish pass): the step outputs are the close's.
    pub fin: Signal<In, Bit>,
    /// The list the step writes back (and whose table entry a close writes).
    pub list: Signal<In, Bits<12>>,
    /// Write an empty state to `list` at this edge (the sweep).
    pub clear: Signal<In, Bit>,
    /// Bump allocator to the first block after the table at this edge.
    pub rbump: Signal<In, Bit>,
    /// Word `kw` of the record being appended.
    pub word: Signal<In, Bits<32>>,
    /// Index of the record word the next append step writes.
    pub kw: Signal<Out, Bits<3>>,
    /// This step's write.
    pub wr_addr: Signal<Out, Bits<32>>,
    pub wr_data: Signal<Out, Bits<32>>,
    /// This step ends the append / close.
    pub done: Signal<Out, Bit>,
    /// `cur` is an empty list.
    pub empty: Signal<Out, Bit>,

    /// The state RAM.
    pub ram: StateRam,

    c_zero32: Constant<Bits<32>>,
    c_one32: Constant<Bits<32>>,
    c_four32: Constant<Bits<32>>,
    c_nil: Constant<Bits<32>>,
    c_chunk: Constant<Bits<32>>,
    c_first_idx: Constant<Bits<32>>,
    c_first_addr: Constant<Bits<32>>,
    c_off_first: Constant<Bits<16>>,
    /// `OFF_FULL − 4·W`: an append to a list at this offset fills its chunk.
    c_off_prefull: Constant<Bits<16>>,
    /// A new chunk's first record fills it (one record per chunk).
    c_first_full: Constant<Bit>,
    c_rec: Constant<Bits<16>>,
    c_wlast: Constant<Bits<3>>,
    c_one3: Constant<Bits<3>>,
    c_ph: Vec<Constant<Bits<3>>>,
    c_three: Constant<Bits<32>>,

    full: Signal<Local, Bit>,
    alloc: Signal<Local, Bit>,
    link: Signal<Local, Bit>,
    tbl: Signal<Local, Bits<32>>,
    lastw: Signal<Local, Bit>,
    /// The first record word's address: `cur`'s tail + offset, or the new block's first word.
    rec_addr: Signal<Local, Bits<32>>,
    /// This step's record-word address: `rec_addr` for word 0, else `wa`.
    wnow: Signal<Local, Bits<32>>,

    cur_head: DFF<Bits<32>>,
    cur_tail: DFF<Bits<32>>,
    cur_count: DFF<Bits<32>>,
    cur_off: DFF<Bits<16>>,
    /// `cur`'s count is 0 / its tail block is full, registered with `cur` (off the write path).
    empty_r: DFF<Bit>,
    full_r: DFF<Bit>,
    /// Link written (append) / close step (0: next, 1: head, 2: count).
    lk: DFF<Bit>,
    ph: DFF<Bits<3>>,
    wa: DFF<Bits<32>>,
    nidx: DFF<Bits<32>>,
    naddr: DFF<Bits<32>>,
}

impl ListWriter {
    /// The core of `lw`'s geometry (lists, block size, W) with a state RAM of 2^`abits` words.
    pub fn new(lw: &ListWriterCycle, chunk_bytes: u32, words: u32, abits: usize) -> Self {
        let first = lw.first_chunk() as u64;
        ListWriter {
            clock: Default::default(),
            flush: Default::default(),
            re: Default::default(),
            raddr: Default::default(),
            latch: Default::default(),
            step: Default::default(),
            fin: Default::default(),
            list: Default::default(),
            clear: Default::default(),
            rbump: Default::default(),
            word: Default::default(),
            kw: Default::default(),
            wr_addr: Default::default(),
            wr_data: Default::default(),
            done: Default::default(),
            empty: Default::default(),
            ram: StateRam::new(abits),
            c_zero32: k(0),
            c_one32: k(1),
            c_four32: k(4),
            c_nil: k(0xffff_ffff),
            c_chunk: k(chunk_bytes as u64),
            c_first_idx: k(first),
            c_first_addr: k(first * chunk_bytes as u64),
            c_off_first: k(4 + 4 * words as u64),
            c_off_prefull: k((lw.off_full() - 4 * words) as u64),
            c_first_full: Constant::new(4 + 4 * words == lw.off_full()),
            c_rec: k(4 * words as u64),
            c_wlast: k(words as u64 - 1),
            c_one3: k(1),
            c_ph: (0..3).map(k).collect(),
            c_three: k(3),
            full: Default::default(),
            alloc: Default::default(),
            link: Default::default(),
            tbl: Default::default(),
            lastw: Default::default(),
            rec_addr: Default::default(),
            wnow: Default::default(),
            cur_head: Default::default(),
            cur_tail: Default::default(),
            cur_count: Default::default(),
            cur_off: Default::default(),
            empty_r: Default::default(),
            full_r: Default::default(),
            lk: Default::default(),
            ph: Default::default(),
            wa: Default::default(),
            nidx: Default::default(),
            naddr: Default::default(),
        }
    }
}

impl Logic for ListWriter {
    #[hdl_gen]
    fn update(&mut self) {
        self.cur_head.clock.next = self.clock.val();
        self.cur_head.d.next = self.cur_head.q.val();
        self.cur_tail.clock.next = self.clock.val();
        self.cur_tail.d.next = self.cur_tail.q.val();
        self.cur_count.clock.next = self.clock.val();
        self.cur_count.d.next = self.cur_count.q.val();
        self.cur_off.clock.next = self.clock.val();
        self.cur_off.d.next = self.cur_off.q.val();
        self.empty_r.clock.next = self.clock.val();
        self.empty_r.d.next = self.empty_r.q.val();
        self.full_r.clock.next = self.clock.val();
        self.full_r.d.next = self.full_r.q.val();
        self.lk.clock.next = self.clock.val();
        self.lk.d.next = self.lk.q.val();
        self.ph.clock.next = self.clock.val();
        self.ph.d.next = self.ph.q.val();
        self.wa.clock.next = self.clock.val();
        self.wa.d.next = self.wa.q.val();
        self.nidx.clock.next = self.clock.val();
        self.nidx.d.next = self.nidx.q.val();
        self.naddr.clock.next = self.clock.val();
        self.naddr.d.next = self.naddr.q.val();
        self.ram.clock.next = self.clock.val();

        // ---- combinational ----
        self.empty.next = self.empty_r.q.val();
        self.full.next = self.full_r.q.val();
        self.alloc.next = self.empty.val() | self.full.val();
        self.link.next = !self.empty.val() & self.full.val();
        self.tbl.next = bit_cast::<32, 12>(self.list.val()) << self.c_three.val();
        self.lastw.next = self.ph.q.val() == self.c_wlast.val();
        self.kw.next = self.ph.q.val();
        self.rec_addr.next = self.cur_tail.q.val() + bit_cast::<32, 16>(self.cur_off.q.val());
        if self.alloc.val() {
            self.rec_addr.next = self.naddr.q.val() + self.c_four32.val();
        }
        self.wnow.next = self.wa.q.val();
        if self.ph.q.val() == self.c_ph[0].val() {
            self.wnow.next = self.rec_addr.val();
        }

        // ---- state RAM ports ----
        self.ram.re.next = self.re.val() & !self.flush.val();
        self.ram.raddr.next = self.raddr.val();
        self.ram.waddr.next = self.list.val();
        self.ram.we.next = self.clear.val() & !self.flush.val();
        self.ram.wd_head.next = self.c_zero32.val();
        self.ram.wd_tail.next = self.c_zero32.val();
        self.ram.wd_count.next = self.c_zero32.val();
        self.ram.wd_off.next = 0.into();
        self.ram.wd_nz.next = false;
        self.ram.wd_full.next = false;

        if self.latch.val() {
            self.cur_head.d.next = self.ram.rd_head.val();
            self.cur_tail.d.next = self.ram.rd_tail.val();
            self.cur_count.d.next = self.ram.rd_count.val();
            self.cur_off.d.next = self.ram.rd_off.val();
            self.empty_r.d.next = !self.ram.rd_nz.val();
            self.full_r.d.next = self.ram.rd_full.val();
        }
        if self.rbump.val() {
            self.nidx.d.next = self.c_first_idx.val();
            self.naddr.d.next = self.c_first_addr.val();
        }

        // ---- the step's write ----
        if self.fin.val() {
            if (self.ph.q.val() == self.c_ph[0].val()) & !self.empty.val() {
                // Tail block's next = NIL.
                self.wr_addr.next = self.cur_tail.q.val();
                self.wr_data.next = self.c_nil.val();
                self.done.next = false;
            } else if self.ph.q.val() != self.c_ph[2].val() {
                self.wr_addr.next = self.tbl.val();
                self.wr_data.next = self.cur_head.q.val();
                if self.empty.val() {
                    self.wr_data.next = self.c_nil.val();
                }
                self.done.next = false;
            } else {
                self.wr_addr.next = self.tbl.val() | self.c_four32.val();
                self.wr_data.next = self.cur_count.q.val();
                self.done.next = true;
            }
        } else if self.link.val() & !self.lk.q.val() {
            // The full tail block's next pointer: the new block's index.
            self.wr_addr.next = self.cur_tail.q.val();
            self.wr_data.next = self.nidx.q.val();
            self.done.next = false;
        } else {
            self.wr_addr.next = self.wnow.val();
            self.wr_data.next = self.word.val();
            self.done.next = self.lastw.val();
        }

        if self.step.val() {
            if self.fin.val() {
                if (self.ph.q.val() == self.c_ph[0].val()) & !self.empty.val() {
                    self.ph.d.next = self.c_ph[1].val();
                } else if self.ph.q.val() != self.c_ph[2].val() {
                    self.ph.d.next = self.c_ph[2].val();
                } else {
                    self.ph.d.next = self.c_ph[0].val();
                    self.ram.we.next = true;
                }
            } else if self.link.val() & !self.lk.q.val() {
                self.lk.d.next = true;
            } else {
                self.wa.d.next = self.wnow.val() + self.c_four32.val();
                self.ph.d.next = self.ph.q.val() + self.c_one3.val();
                if self.lastw.val() {
                    // The list's new state goes back to the RAM.
                    self.ph.d.next = self.c_ph[0].val();
                    self.lk.d.next = false;
                    self.ram.we.next = true;
                    self.ram.wd_head.next = self.cur_head.q.val();
                    self.ram.wd_tail.next = self.cur_tail.q.val();
                    self.ram.wd_count.next = self.cur_count.q.val() + self.c_one32.val();
                    self.ram.wd_off.next = self.cur_off.q.val() + self.c_rec.val();
                    self.ram.wd_nz.next = true;
                    self.ram.wd_full.next = self.cur_off.q.val() == self.c_off_prefull.val();
                    if self.alloc.val() {
                        self.ram.wd_tail.next = self.naddr.q.val();
                        self.ram.wd_off.next = self.c_off_first.val();
                        self.ram.wd_full.next = self.c_first_full.val();
                        self.nidx.d.next = self.nidx.q.val() + self.c_one32.val();
                        self.naddr.d.next = self.naddr.q.val() + self.c_chunk.val();
                        if self.empty.val() {
                            self.ram.wd_head.next = self.nidx.q.val();
                        }
                    }
                }
            }
        }

        if self.flush.val() {
            self.ram.we.next = false;
            self.cur_head.d.next = 0.into();
            self.cur_tail.d.next = 0.into();
            self.cur_count.d.next = 0.into();
            self.cur_off.d.next = 0.into();
            self.empty_r.d.next = true;
            self.full_r.d.next = false;
            self.lk.d.next = false;
            self.ph.d.next = 0.into();
            self.wa.d.next = 0.into();
            self.nidx.d.next = 0.into();
            self.naddr.d.next = 0.into();
        }
    }
}

/// The list emitter: the hw form of [`tilerast_golden::list_writer::ListEmitterCycle`], whose
/// rustdoc is its timing contract. It holds the list-writing core [`ListWriter`], the sequencer
/// `st` (the golden [`tilerast_golden::list_writer::ListSt`] encoding), the sweep and finish
/// pass's list counter `sweep_list` and the memory-request output register (`out_valid`, one
/// `BinWrite`): everything the binner and the pixel-info writer share. The owner block drives
/// `start` / `finish` (looked at in Idle), the append's `list` and record `word` (word `kw`),
/// and where to go when an append ends (`after_read`, `after_own`, else Idle); it does its own
/// work while `own` is high (one cycle, then Read) and moves its walk on at `appended`.
///
/// ```text
///   start ─► [Idle] ─► Own ─► Read ─► Latch ─► Emit ──(appended)──► Read / Own / Idle
///   finish ─► FRead ─► FLatch ─► FEmit ─► FRead (next list) … Idle (last list, `last`)
///   Init: clear RAM[sweep_list], one list per cycle, then Idle
///   Emit / FEmit, adv = ¬out_valid ∨ out_ready: ListWriter step ─► out_reg (BinWrite) ─► out
/// ```
///
/// Handshake: `idle` is a register decode (the owner's `in_ready`); `adv` loads the output
/// register in Emit / FEmit and clears `out_valid` elsewhere. No latency of its own beyond the
/// contract's: the RAM read address is `list` in Read and `sweep_list` in FRead.
#[derive(LogicBlock)]
pub struct ListEmitter {
    pub clock: Signal<In, Clock>,
    /// Synchronous reset: every register zero (`st` = Init: the sweep follows).
    pub flush: Signal<In, Bit>,
    pub out_ready: Signal<In, Bit>,
    /// In Idle: start the owner's work (→ Own).
    pub start: Signal<In, Bit>,
    /// In Idle: the frame end (→ the finish pass); wins over `start`.
    pub finish: Signal<In, Bit>,
    /// The append's list (read in Read, written back at the end of Emit).
    pub list: Signal<In, Bits<12>>,
    /// Word `kw` of the record being appended.
    pub word: Signal<In, Bits<32>>,
    /// When the append ends at this edge: → Read (`after_read`), → Own (`after_own`), else Idle.
    pub after_read: Signal<In, Bit>,
    pub after_own: Signal<In, Bit>,
    /// Index of the record word the next append step writes.
    pub kw: Signal<Out, Bits<3>>,
    /// `st` = Idle (the owner's `in_ready`) / `st` = Own (the owner's cycle).
    pub idle: Signal<Out, Bit>,
    pub own: Signal<Out, Bit>,
    /// An append ends at this edge.
    pub appended: Signal<Out, Bit>,
    pub out_valid: Signal<Out, Bit>,
    pub out: BinWriteOut,

    /// The list-writing core (state RAM, `cur`, steps, bump allocator).
    pub lw: ListWriter,

    c_init: Constant<Bits<4>>,
    c_idle: Constant<Bits<4>>,
    c_own: Constant<Bits<4>>,
    c_read: Constant<Bits<4>>,
    c_latch: Constant<Bits<4>>,
    c_emit: Constant<Bits<4>>,
    c_fread: Constant<Bits<4>>,
    c_flatch: Constant<Bits<4>>,
    c_femit: Constant<Bits<4>>,
    c_last_list: Constant<Bits<12>>,
    c_one12: Constant<Bits<12>>,
    c_be: Constant<Bits<4>>,

    adv: Signal<Local, Bit>,
    /// `sweep_list` is the last list.
    last_list: Signal<Local, Bit>,

    /// The sequencer ([`tilerast_golden::list_writer::ListSt`]'s encoding).
    st: DFF<Bits<4>>,
    /// The list the sweep and the finish pass are on (0 whenever `st` = Idle).
    sweep_list: DFF<Bits<12>>,
    /// The output register's valid.
    ov: DFF<Bit>,
    /// The output register (the memory request), loaded at the write path's advance.
    out_reg: BinWriteReg,
}

impl ListEmitter {
    /// The emitter around the core of `lw`'s geometry (lists, block size, W), state RAM of
    /// 2^`abits` words.
    pub fn new(lw: &ListWriterCycle, chunk_bytes: u32, words: u32, abits: usize) -> Self {
        ListEmitter {
            clock: Default::default(),
            flush: Default::default(),
            out_ready: Default::default(),
            start: Default::default(),
            finish: Default::default(),
            list: Default::default(),
            word: Default::default(),
            after_read: Default::default(),
            after_own: Default::default(),
            kw: Default::default(),
            idle: Default::default(),
            own: Default::default(),
            appended: Default::default(),
            out_valid: Default::default(),
            out: Default::default(),
            lw: ListWriter::new(lw, chunk_bytes, words, abits),
            c_init: k(0),
            c_idle: k(1),
            c_own: k(2),
            c_read: k(3),
            c_latch: k(4),
            c_emit: k(5),
            c_fread: k(6),
            c_flatch: k(7),
            c_femit: k(8),
            c_last_list: k(lw.lists() as u64 - 1),
            c_one12: k(1),
            c_be: k(0xf),
            adv: Default::default(),
            last_list: Default::default(),
            st: Default::default(),
            sweep_list: Default::default(),
            ov: Default::default(),
            out_reg: Default::default(),
        }
    }
}

impl Logic for ListEmitter {
    #[hdl_gen]
    fn update(&mut self) {
        // Every register holds unless assigned below.
        dff_setup!(self, clock, st, sweep_list, ov);
        self.lw.clock.next = self.clock.val();

        // ---- combinational ----
        self.adv.next = !self.ov.q.val() | self.out_ready.val();
        self.last_list.next = self.sweep_list.q.val() == self.c_last_list.val();
        self.idle.next = self.st.q.val() == self.c_idle.val();
        self.own.next = self.st.q.val() == self.c_own.val();
        self.kw.next = self.lw.kw.val();
        self.appended.next = (self.st.q.val() == self.c_emit.val()) & self.adv.val() & self.lw.done.val();

        // ---- list-writing core ----
        self.lw.flush.next = self.flush.val();
        self.lw.re.next = (self.st.q.val() == self.c_read.val()) | (self.st.q.val() == self.c_fread.val());
        self.lw.raddr.next = self.list.val();
        if self.st.q.val() == self.c_fread.val() {
            self.lw.raddr.next = self.sweep_list.q.val();
        }
        self.lw.list.next = self.list.val();
        if (self.st.q.val() == self.c_init.val()) | (self.st.q.val() == self.c_femit.val()) {
            self.lw.list.next = self.sweep_list.q.val();
        }
        self.lw.latch.next = (self.st.q.val() == self.c_latch.val()) | (self.st.q.val() == self.c_flatch.val());
        self.lw.fin.next = self.st.q.val() == self.c_femit.val();
        self.lw.step.next = ((self.st.q.val() == self.c_emit.val()) | (self.st.q.val() == self.c_femit.val()))
            & self.adv.val()
            & !self.flush.val();
        self.lw.clear.next = self.st.q.val() == self.c_init.val();
        self.lw.rbump.next = false;
        self.lw.word.next = self.word.val();

        // ---- output register (BinWriteReg: loaded at an emit advance, cleared by flush); the
        // list writer's word, `last` only on the frame end's final word ----
        self.out_reg.clock.next = self.clock.val();
        self.out_reg.load.next = false;
        self.out_reg.clear.next = self.flush.val();
        self.out_reg.d.addr.next = self.lw.wr_addr.val();
        self.out_reg.d.wdata.next = self.lw.wr_data.val();
        self.out_reg.d.write.next = true;
        self.out_reg.d.be.next = self.c_be.val();
        self.out_reg.d.last.next = false;
        // Cleared valid on an advance outside the emit states.
        if self.adv.val() {
            self.ov.d.next = false;
        }

        // ---- sequencer ----
        if self.st.q.val() == self.c_init.val() {
            if self.last_list.val() {
                self.lw.rbump.next = true;
                self.sweep_list.d.next = 0.into();
                self.st.d.next = self.c_idle.val();
            } else {
                self.sweep_list.d.next = self.sweep_list.q.val() + self.c_one12.val();
            }
        }
        if self.st.q.val() == self.c_idle.val() {
            if self.finish.val() {
                self.st.d.next = self.c_fread.val();
            } else if self.start.val() {
                self.st.d.next = self.c_own.val();
            }
        }
        if self.st.q.val() == self.c_own.val() {
            self.st.d.next = self.c_read.val();
        }
        if self.st.q.val() == self.c_read.val() {
            self.st.d.next = self.c_latch.val();
        }
        if self.st.q.val() == self.c_fread.val() {
            self.st.d.next = self.c_flatch.val();
        }
        if self.st.q.val() == self.c_latch.val() {
            self.st.d.next = self.c_emit.val();
        }
        if self.st.q.val() == self.c_flatch.val() {
            self.st.d.next = self.c_femit.val();
        }
        if ((self.st.q.val() == self.c_emit.val()) | (self.st.q.val() == self.c_femit.val())) & self.adv.val() {
            self.ov.d.next = true;
            self.out_reg.load.next = true;
        }
        if self.appended.val() {
            self.st.d.next = self.c_idle.val();
            if self.after_read.val() {
                self.st.d.next = self.c_read.val();
            }
            if self.after_own.val() {
                self.st.d.next = self.c_own.val();
            }
        }
        if (self.st.q.val() == self.c_femit.val()) & self.adv.val() & self.lw.done.val() {
            self.out_reg.d.last.next = self.last_list.val();
            if self.last_list.val() {
                self.lw.rbump.next = true;
                self.sweep_list.d.next = 0.into();
                self.st.d.next = self.c_idle.val();
            } else {
                self.sweep_list.d.next = self.sweep_list.q.val() + self.c_one12.val();
                self.st.d.next = self.c_fread.val();
            }
        }

        if self.flush.val() {
            self.lw.clear.next = false;
            self.lw.rbump.next = false;
            self.st.d.next = 0.into();
            self.sweep_list.d.next = 0.into();
            self.ov.d.next = false;
        }

        self.out_valid.next = self.ov.q.val();
        BinWriteOut::link(&mut self.out, &mut self.out_reg.q);
    }
}
