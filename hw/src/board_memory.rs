//! # board_memory (issue 15: the memory port's slave on the board's own RAM)
//!
//! A memory-port slave on on-chip RAM: takes the pixel side's requests (`MemReq`: byte address
//! of a 32-bit word, `write`, `wdata`, byte enables `be`) and answers reads in order
//! (`MemResp`), like the memory the co-simulation puts behind the port. One per board, from
//! the board table's `memory` column ([`tilerast_golden::board::Board::memory`]): the
//! iCEBreaker's 128 KiB of SPRAM (4 × `SB_SPRAM256KA`), 8 KiB of block RAM on the HX8K
//! (16 `SB_RAM40_4K`), 256 KiB on the ULX3S (128 `DP16KD`); emitted by `gen-rtl` to
//! `rtl-out/tilerast_board_memory_<board>.v`. Cycle model:
//! [`tilerast_golden::board_memory::BoardMemoryCycle`] (= `MemoryCycle` with
//! `MemTiming::default()` plus the capacity and `error`); its rustdoc is the timing contract,
//! stated once.
//!
//! **Ports.** `clock`, `flush` (synchronous reset: held reads dropped, `error` cleared; the RAM
//! keeps its contents); in: `in_valid`/`in_ready` with `inp` ([`crate::streams::MemReqIn`]);
//! out: `out_valid`/`out_ready` with `out` ([`crate::streams::MemRespOut`], `rdata`, 0 when
//! not valid); `error` (sticky until a flush: an out-of-range request was taken and not
//! performed — an address is never wrapped; a refused read is answered with 0 in its place).
//!
//! **Handshake, latency, throughput.** `in_ready` = fewer than two reads held (a register:
//! nothing combinational from `out_ready`). A request moves at an edge with `in_valid` and
//! `in_ready`; the RAM reads or writes at that edge; a read's word is on `out` from the next
//! cycle (latency 1, the RAM's own read register). With `out_ready` high, one request per
//! cycle, any mix of reads and writes.
//!
//! **How.** The RAM's read register holds a read's word for exactly the one cycle after the
//! read (`fresh`); if `out_ready` does not take it then, it moves into a two-entry skid FIFO
//! (`skid`, a `shift_fifo!`: entries `s0`, `s1`, count `k`), which the RAM's register is never needed for again (so nothing
//! depends on what the RAM's output does on other cycles: SPRAM drives `x` after a write).
//! The held reads are the skid entries, oldest first, then the fresh one: `out` is `s0` if
//! `k > 0`, else the RAM's register if `fresh` (0 if that read was refused), else 0 — a
//! multiplexer of registers under registered selects. Range check: `addr & !(4·words − 4)`
//! must be 0 (one constant mask: misaligned or beyond the capacity is an error).
//!
//! ```text
//!            in_ready = !full                  ┌───────────── BoardRam ─────────────┐
//!  inp ──► bad = addr & BAD_MASK != 0 ─┬─ we ─►│ Bram: inferred, byte enables       │
//!   (MemReq)                           └─ re ─►│ Spram: 4 x SB_SPRAM256KA (2 banks  │
//!                                              │ x 2 halves, MASKWREN from be)      │
//!                                              └──────────── q (registered) ────────┘
//!                                                     │ fresh (the cycle after a read)
//!                                                     ▼
//!             skid FIFO s0, s1 (count k) ◄── moved in when not taken at once
//!                  │                         │
//!  out.rdata ◄── k > 0 ? s0 : fresh ? q : 0 ─┘        out_valid, full, error: registers
//! ```
//!
//! **Simulation of the RAM.** [`BoardRam`] is a wrapper: its Verilog is written here (inferred
//! RAM; for SPRAM the four primitives behind `` `ifdef SYNTHESIS ``, an equivalent behavioural
//! array for Verilator and Icarus), its rust-hdl model is a plain array whose read register
//! holds junk on every edge that is not a read, so that the tests catch any use of it beyond
//! the one cycle. Everything else is `#[hdl_gen]`.

use crate::fifo::shift_fifo;
use crate::fpga_top::wrapper_block;
use crate::util::k;
use rust_hdl::prelude::*;
use std::fmt::Write as _;
use tilerast_golden::board::Board;
use tilerast_golden::board_memory::MemoryKind;

/// The stage name (`tilerast_golden::stages::BOARD_STAGES`): `rtl-out/tilerast_board_memory_<board>.v`.
pub const STAGE: &str = "board_memory";

/// What the rust-hdl model of the RAM's read register holds after an edge without a read.
pub const RAM_JUNK: u32 = 0xdead_beef;

/// The RAM: one port, byte enables, registered read (`rdata` = the word read at the last
/// edge with `re`; on every other cycle undefined). `we` and `re` are never high together.
pub struct BoardRam {
    /// Clock.
    pub clock: Signal<In, Clock>,
    /// Byte address (bits 2 and up to the capacity are used).
    pub addr: Signal<In, Bits<32>>,
    /// Write the enabled bytes of `wdata` at this edge.
    pub we: Signal<In, Bit>,
    /// Read the word at this edge (on `rdata` in the next cycle).
    pub re: Signal<In, Bit>,
    /// Byte enables (bit k: byte k, bits 8k+7..8k).
    pub be: Signal<In, Bits<4>>,
    /// Write data.
    pub wdata: Signal<In, Bits<32>>,
    /// The word of the last edge's read.
    pub rdata: Signal<Out, Bits<32>>,
    kind: MemoryKind,
    mem: Vec<u32>,
    q: u32,
    ignore_be: bool,
}

impl BoardRam {
    /// A RAM of `kind`, every word 0.
    pub fn new(kind: MemoryKind) -> Self {
        kind.check();
        BoardRam {
            clock: Default::default(),
            addr: Default::default(),
            we: Default::default(),
            re: Default::default(),
            be: Default::default(),
            wdata: Default::default(),
            rdata: Default::default(),
            kind,
            mem: vec![0; kind.words() as usize],
            q: 0,
            ignore_be: false,
        }
    }

    /// The word at word index `i` now (rust-hdl simulation only).
    pub fn peek(&self, i: usize) -> u32 {
        self.mem[i]
    }
}

wrapper_block!(BoardRam; clock, addr, we, re, be, wdata, rdata);

impl Logic for BoardRam {
    fn update(&mut self) {
        if self.clock.pos_edge() {
            let (we, re) = (self.we.val(), self.re.val());
            assert!(!(we && re), "board RAM: read and write at one edge");
            let i = (self.addr.val().index() >> 2) & (self.kind.words() as usize - 1);
            if we {
                let be = if self.ignore_be { 0xf } else { self.be.val().index() };
                let m = (0..4)
                    .filter(|k| be >> k & 1 == 1)
                    .fold(0u32, |m, k| m | 0xff << (8 * k));
                let d = self.wdata.val().to_u64() as u32;
                self.mem[i] = (self.mem[i] & !m) | (d & m);
            }
            self.q = if re { self.mem[i] } else { RAM_JUNK };
        }
        self.rdata.next = (self.q as u64).into();
    }

    fn connect(&mut self) {
        self.rdata.connect();
    }

    fn hdl(&self) -> Verilog {
        let words = self.kind.words();
        let a = self.kind.word_bits() as usize;
        // The behavioural array: the inferred RAM (block RAM) and the simulators' SPRAM.
        let mut array = format!(
            "    // {words} words x 32 bits, one port, byte enables, registered read.\n\
             \x20   (* no_rw_check *) reg [31:0] mem [0:{w1}];\n\
             \x20   reg [31:0] q;\n\
             \x20   wire [{a1}:0] a = addr[{a2}:2];\n\
             \x20   always @(posedge clock) begin\n\
             \x20       if (we) begin\n",
            w1 = words - 1,
            a1 = a - 1,
            a2 = a + 1
        );
        for b in 0..4 {
            let _ = writeln!(
                array,
                "            if (be[{b}]) mem[a][{}:{}] <= wdata[{}:{}];",
                8 * b + 7,
                8 * b,
                8 * b + 7,
                8 * b
            );
        }
        let _ = write!(
            array,
            "        end\n\
             \x20       if (re) q <= mem[a];\n\
             \x20   end\n\
             \x20   assign rdata = q;\n"
        );
        // `no_rw_check`: `we` and `re` are never high together, so no read-during-write
        // ordering needs emulating. Simulators start from zeros, like configured block RAM.
        let init = format!(
            "`ifndef SYNTHESIS\n\
             \x20   // Simulation: zeros at time 0 (FPGA configuration clears block RAM).\n\
             \x20   integer i;\n\
             \x20   initial for (i = 0; i < {words}; i = i + 1) mem[i] = 32'd0;\n\
             `endif\n"
        );
        let code = match self.kind {
            MemoryKind::Bram { .. } => format!("{array}{init}"),
            MemoryKind::Spram => {
                let mut inst = String::from(
                    "    // 4 x SB_SPRAM256KA (16 Ki x 16 bits each): bank = word address bit 14; in a\n\
                     \x20   // bank, the low and high 16 bits side by side; byte k enables nibbles 2k, 2k+1\n\
                     \x20   // of its half (MASKWREN). DATAOUT is used only in the cycle after a read.\n\
                     \x20   wire [13:0] a = addr[15:2];\n\
                     \x20   wire bank = addr[16];\n\
                     \x20   reg rbank;\n\
                     \x20   wire [15:0] q0l, q0h, q1l, q1h;\n\
                     \x20   always @(posedge clock) if (re) rbank <= bank;\n",
                );
                for (bank, sel) in [(0, "~bank"), (1, "bank")] {
                    for (half, lo) in [("l", 0), ("h", 16)] {
                        let (b0, b1) = (lo / 8, lo / 8 + 1);
                        let _ = writeln!(
                            inst,
                            "    SB_SPRAM256KA spram_{bank}{half} (.ADDRESS(a), .DATAIN(wdata[{}:{lo}]), \
                             .MASKWREN({{be[{b1}], be[{b1}], be[{b0}], be[{b0}]}}), .WREN(we),\n\
                             \x20       .CHIPSELECT((we | re) & {sel}), .CLOCK(clock), .STANDBY(1'b0), \
                             .SLEEP(1'b0), .POWEROFF(1'b1), .DATAOUT(q{bank}{half}));",
                            lo + 15
                        );
                    }
                }
                inst.push_str("    assign rdata = rbank ? {q1h, q1l} : {q0h, q0l};\n");
                format!(
                    "`ifdef SYNTHESIS\n{inst}`else\n    // Simulation: the same memory as one behavioural array (contents: zeros, not\n    // the chip's undefined power-up state).\n{array}\
                     \x20   integer i;\n\
                     \x20   initial for (i = 0; i < {words}; i = i + 1) mem[i] = 32'd0;\n\
                     `endif\n"
                )
            }
        };
        Verilog::Wrapper(Wrapper {
            code,
            cores: String::new(),
        })
    }
}

shift_fifo! {
    /// The skid FIFO: the read words that `out_ready` did not take in the cycle after their
    /// read, oldest at the head (`s0`).
    pub struct SkidFifo { depth 2, last 1, count 2, fields { word: Bits<32> } }
}

tilerast_golden::board_memory_streams! { crate::streams::stream_block;
    /// The board memory. Build with [`BoardMemory::new`] (see the module header).
    /// `error` (sticky): since the last flush an out-of-range request was taken (and not
    /// performed).
    pub struct BoardMemory {
        /// The RAM.
        pub ram: BoardRam,
        c_bad: Constant<Bits<32>>,
        c_zero32: Constant<Bits<32>>,
        c_k0: Constant<Bits<2>>,
        c_k1: Constant<Bits<2>>,
        c_k2: Constant<Bits<2>>,

        bad: Signal<Local, Bit>,
        take: Signal<Local, Bit>,
        rd: Signal<Local, Bit>,
        pop: Signal<Local, Bit>,
        sh: Signal<Local, Bit>,
        keep_f: Signal<Local, Bit>,
        fdata: Signal<Local, Bits<32>>,
        kn: Signal<Local, Bits<2>>,

        /// The skid FIFO (0..=2 entries, `k` = its count, `s0` its head).
        skid: SkidFifo,
        /// The newest held read's word is on the RAM's read register (the cycle after it).
        fresh: DFF<Bit>,
        /// That read was refused (out of range): its word is 0.
        fbad: DFF<Bit>,
        /// Any read held (`out_valid`).
        ov: DFF<Bit>,
        /// Two reads held (`in_ready` low).
        full: DFF<Bit>,
        err: DFF<Bit>,
    }
}

impl BoardMemory {
    /// The board memory of `kind`, every word 0.
    pub fn new(kind: MemoryKind) -> BoardMemory {
        kind.check();
        let bad_mask = !((kind.bytes() as u64).wrapping_sub(4)) & 0xffff_ffff;
        BoardMemory {
            clock: Default::default(),
            flush: Default::default(),
            in_valid: Default::default(),
            in_ready: Default::default(),
            inp: Default::default(),
            out_valid: Default::default(),
            out_ready: Default::default(),
            out: Default::default(),
            error: Default::default(),
            ram: BoardRam::new(kind),
            c_bad: k(bad_mask),
            c_zero32: k(0),
            c_k0: k(0),
            c_k1: k(1),
            c_k2: k(2),
            bad: Default::default(),
            take: Default::default(),
            rd: Default::default(),
            pop: Default::default(),
            sh: Default::default(),
            keep_f: Default::default(),
            fdata: Default::default(),
            kn: Default::default(),
            skid: Default::default(),
            fresh: Default::default(),
            fbad: Default::default(),
            ov: Default::default(),
            full: Default::default(),
            err: Default::default(),
        }
    }

    /// The memory of `board` (the board table's `memory` column).
    pub fn for_board(board: &Board) -> BoardMemory {
        Self::new(board.memory)
    }

    /// A planted bug for the tests (rust-hdl simulation only; the Verilog is unchanged): the
    /// RAM writes all four bytes whatever `be` says.
    #[doc(hidden)]
    pub fn mutant_ignore_byte_enables(mut self) -> BoardMemory {
        self.ram.ignore_be = true;
        self
    }
}

impl Logic for BoardMemory {
    #[hdl_gen]
    fn update(&mut self) {
        self.ram.clock.next = self.clock.val();
        self.skid.clock.next = self.clock.val();
        self.fresh.clock.next = self.clock.val();
        self.fresh.d.next = self.fresh.q.val();
        self.fbad.clock.next = self.clock.val();
        self.fbad.d.next = self.fbad.q.val();
        self.ov.clock.next = self.clock.val();
        self.ov.d.next = self.ov.q.val();
        self.full.clock.next = self.clock.val();
        self.full.d.next = self.full.q.val();
        self.err.clock.next = self.clock.val();
        self.err.d.next = self.err.q.val();

        // Request side: taken when fewer than two reads are held; out of range → not performed.
        self.in_ready.next = !self.full.q.val();
        self.bad.next = (self.inp.addr.val() & self.c_bad.val()) != self.c_zero32.val();
        self.take.next = self.in_valid.val() & !self.full.q.val() & !self.flush.val();
        self.rd.next = self.take.val() & !self.inp.write.val();
        self.ram.addr.next = self.inp.addr.val();
        self.ram.wdata.next = self.inp.wdata.val();
        self.ram.be.next = self.inp.be.val();
        self.ram.we.next = self.take.val() & self.inp.write.val() & !self.bad.val();
        self.ram.re.next = self.rd.val() & !self.bad.val();

        // The fresh read's word: the RAM's read register, or 0 for a refused read.
        self.fdata.next = self.ram.rdata.val();
        if self.fbad.q.val() {
            self.fdata.next = self.c_zero32.val();
        }

        // Held reads: skid s0 (k ≥ 1), s1 (k = 2), then the fresh one. `pop` takes the oldest;
        // a fresh word not taken moves to the end of the skid FIFO; a new read becomes fresh.
        self.pop.next = self.ov.q.val() & self.out_ready.val();
        self.sh.next = self.pop.val() & (self.skid.count.val() != self.c_k0.val());
        self.keep_f.next = self.fresh.q.val() & !(self.pop.val() & (self.skid.count.val() == self.c_k0.val()));
        self.skid.flush.next = self.flush.val();
        self.skid.pop.next = self.sh.val();
        self.skid.push.next = self.keep_f.val();
        self.skid.push_word.next = self.fdata.val();
        self.kn.next = self.skid.count.val();
        if self.sh.val() & !self.keep_f.val() {
            self.kn.next = self.skid.count.val() - self.c_k1.val();
        }
        if !self.sh.val() & self.keep_f.val() {
            self.kn.next = self.skid.count.val() + self.c_k1.val();
        }
        self.fresh.d.next = self.rd.val();
        self.fbad.d.next = self.rd.val() & self.bad.val();
        self.ov.d.next = (self.kn.val() != self.c_k0.val()) | self.rd.val();
        self.full.d.next = (self.kn.val() == self.c_k2.val()) | ((self.kn.val() == self.c_k1.val()) & self.rd.val());
        if self.take.val() & self.bad.val() {
            self.err.d.next = true;
        }

        if self.flush.val() {
            self.fresh.d.next = false;
            self.fbad.d.next = false;
            self.ov.d.next = false;
            self.full.d.next = false;
            self.err.d.next = false;
        }

        // Outputs: registers (s0, the RAM's read register, 0) under registered selects.
        self.out_valid.next = self.ov.q.val();
        self.out.rdata.next = self.c_zero32.val();
        if self.fresh.q.val() {
            self.out.rdata.next = self.fdata.val();
        }
        if self.skid.count.val() != self.c_k0.val() {
            self.out.rdata.next = self.skid.head_word.val();
        }
        self.error.next = self.err.q.val();
    }
}

/// Top module name of `board`'s memory.
pub fn top_name(board: &str) -> String {
    format!("tilerast_{STAGE}_{board}")
}

/// File name of `board`'s memory in `rtl-out/`.
pub fn rtl_file_name(board: &str) -> String {
    format!("{}.v", top_name(board))
}

/// The lint command for a written file (run in its directory).
pub fn lint_command(board: &str) -> String {
    crate::lint_top_command(&top_name(board))
}

/// The block's Verilog for `kind` with top module `name`.
pub fn verilog(kind: MemoryKind, name: &str) -> String {
    crate::emit::block_verilog(BoardMemory::new(kind), name)
}

/// The full text of `rtl-out/tilerast_board_memory_<board>.v`: a header (the command, the
/// memory, the contract, the lint command, the ports), then the block.
pub fn rtl_file(board: &Board) -> String {
    use tilerast_golden::streams::{ports, Stream};
    let top = top_name(board.name);
    let mut ports_doc = String::new();
    for (iface, dir, fields) in [
        ("inp", "in", ports::MemReq::FIELDS),
        ("out", "out", ports::MemResp::FIELDS),
    ] {
        for f in fields {
            let _ = writeln!(
                ports_doc,
                "//     {:<24} {dir:<4} [{}:0]",
                format!("{iface}__{}", f.name),
                f.width - 1
            );
        }
    }
    let prim = match board.memory {
        MemoryKind::Spram => "SB_SPRAM256KA instances behind `ifdef SYNTHESIS, a behavioural array otherwise",
        MemoryKind::Bram { .. } => "inferred RAM (yosys: SB_RAM40_4K on iCE40, DP16KD on ECP5)",
    };
    format!(
        "// generated by `cargo run -p tilerast-hw --bin gen-rtl` — do not edit\n\
         // {STAGE} for board {} ({}): {}; {prim}\n\
         // timing contract: tilerast_golden::board_memory::BoardMemoryCycle (MemoryCycle, latency 1,\n\
         // two reads held, one request per cycle); addresses at or above {:#x} or not a multiple\n\
         // of 4: taken, not performed, `error` set until flush; top module: {top}\n\
         // lint-clean with: {}\n\
         // Ports: clock, flush (synchronous reset), in_valid/in_ready + inp, out_valid/out_ready + out,\n\
         // error (out):\n\
         {ports_doc}//\n{}",
        board.name,
        board.title,
        board.memory.describe(),
        board.memory.bytes(),
        lint_command(board.name),
        verilog(board.memory, &top)
    )
}
