//! # sdram_controller (issue 35: the memory port's slave on a board's SDRAM)
//!
//! A memory-port slave on an SDR SDRAM: takes the GPU's requests (`MemReq`: byte address of a
//! 32-bit word, `write`, `wdata`, byte enables `be`), turns each into one burst of two 16-bit
//! words on the SDRAM's pins, and answers reads in order (`MemResp`). Rows stay open until
//! another row of the bank or a refresh needs the bank, so a stream of consecutive words runs
//! at one word per two clocks. One per board with a screen, from the board table's frame row
//! ([`tilerast_golden::board::FrameBoard`]: the part's geometry and datasheet timings, the
//! clock, the CAS latency); emitted by `gen-rtl` to `rtl-out/tilerast_sdram_controller_<board>.v`.
//! Cycle model: [`tilerast_golden::sdram_controller::SdramControllerCycle`]; its rustdoc is the
//! timing contract, stated once (priorities, every wait, the read capture edges, flush).
//!
//! **Ports.** `clock`, `flush` (synchronous: the held request, the answers and the reads in
//! flight dropped, `error` cleared; the SDRAM side goes on); in: `in_valid`/`in_ready` with
//! `inp` ([`crate::streams::MemReqIn`]); out: `out_valid`/`out_ready` with `out`
//! ([`crate::streams::MemRespOut`], 0 when not valid); the SDRAM's pins, every one a register:
//! `cs_n`, `ras_n`, `cas_n`, `we_n`, `ba[1:0]`, `sdram_addr[12:0]`, `dqm[1:0]` (DQMH:DQML),
//! `dq_out[15:0]` with `dq_oe` (the board top's tristate buffer), `dq_in[15:0]` (the chip's
//! data, sampled at the edge); `error` (sticky: a request beyond the part was taken).
//!
//! **Handshake, latency, throughput.** `in_ready` = no request held (a register). A request
//! taken at edge a is decided on from edge a + 1; a READ decided at edge e has its halves on
//! `dq_in` at edges e + CL + 1 and e + CL + 2 and its answer on `out` after that; one word per
//! two clocks on an open row.
//!
//! **How.** The request register's address is split into column pair, bank and row by
//! constant shifts and masks (the part's geometry). Per bank: an open flag, the open row and
//! three wait counters (to READ/WRITE, to PRECHARGE, to ACTIVE); global waits for tRRD, tRFC
//! and read-to-write. A wait is set to gap − 1 by the command that starts it (merged by max)
//! and counts down to 0. The refresh timer's threshold test (`refresh_due`) is a register
//! computed from the timer's next value, so the chain starts at flops and 4-bit compares. One priority chain picks the next cycle's command: power-up
//! sequence, a WRITE's second word, refresh (PRECHARGE ALL, then AUTO REFRESH), the held
//! request (READ/WRITE on its open row, PRECHARGE of another row, ACTIVE of a closed bank).
//! READs set two shift registers whose bit 0 says "capture `dq_in` now" (low half, then high
//! half into a 4-word answer FIFO, `ring_fifo!`); `answers_owed` (FIFO words + reads in
//! flight) keeps a READ from being issued without room for its answer. The command bits are
//! held active-high so that the power-up state of every register is a NOP on the pins.
//!
//! ```text
//!   inp ─► request (addr, write, wdata, be) ─► decode: column = addr[pair] << 1,
//!   in_ready = !held                            bank = addr >> bank_shift, row = addr >> row_shift
//!                                                   │
//!   per bank: open, open_row, rcd/precharge/activate waits ──► priority chain ──► pin registers
//!   global: rrd, rfc, read-to-write waits, refresh timer, step ─┘                  ─► SDRAM
//!   dq_in ─► low half (capture_low[0]) ─► {dq_in, low} (capture_high[0]) ─► answer FIFO ─► out
//! ```
//!
//! Why not rust-hdl's `SDRAMBurstController`: see [`tilerast_golden::sdram_controller`]'s
//! header (no DQM, no flow control on its data, a row closed after every burst).

use crate::emit;
use crate::fifo::ring_fifo;
use crate::util::k;
use rust_hdl::prelude::*;
use std::fmt::Write as _;
use tilerast_golden::board::{Board, FrameBoard};
// Named by the signature (`ins { dq_in: UBits<16> }`), which the stream macro expands here.
use tilerast_golden::cycle::UBits;
use tilerast_golden::sdram_chip::{SdramMode, SdramPart};
use tilerast_golden::sdram_controller::{BURST, REFRESH_MARGIN, RESPONSE_DEPTH};

/// The stage name (`tilerast_golden::stages::BOARD_STAGES`): `rtl-out/tilerast_sdram_controller_<board>.v`.
pub const STAGE: &str = "sdram_controller";

ring_fifo! {
    /// The answers: read words waiting for `out_ready`, oldest at the head.
    pub struct AnswerFifo { width 32, depth 4, pointer 2, count 3 }
}

const _: () = assert!(RESPONSE_DEPTH == 4 && BURST == 2);

tilerast_golden::sdram_controller_streams! { crate::streams::stream_block;
    /// The SDRAM controller. Build with [`SdramController::new`] (see the module header).
    pub struct SdramController {
        /// Power-up steps, as `InitStep` orders them: 0 (power-up wait) .. 5 (Ready).
        c_step: Vec<Constant<Bits<3>>>,
        c_bank: Vec<Constant<Bits<2>>>,
        c_zero4: Constant<Bits<4>>,
        c_one4: Constant<Bits<4>>,
        /// gap − 1 of each wait (tRP, tRFC, tRAS, tRC, tRCD, tRRD), tWR, CL + 1.
        c_rp1: Constant<Bits<4>>,
        c_rfc1: Constant<Bits<4>>,
        c_ras1: Constant<Bits<4>>,
        c_rc1: Constant<Bits<4>>,
        c_rcd1: Constant<Bits<4>>,
        c_rrd1: Constant<Bits<4>>,
        c_wr: Constant<Bits<4>>,
        c_cl1: Constant<Bits<4>>,
        /// The largest rcd wait a READ/WRITE may go at: 0 (1 with the planted bug).
        c_rcd_go: Constant<Bits<4>>,
        c_init: Constant<Bits<16>>,
        c_rp1_16: Constant<Bits<16>>,
        c_rfc1_16: Constant<Bits<16>>,
        c_mrd1_16: Constant<Bits<16>>,
        c_zero16: Constant<Bits<16>>,
        c_one16: Constant<Bits<16>>,
        /// The refresh threshold tREFI − margin, less one (`refresh_due` after a step).
        c_refresh_at_less_one: Constant<Bits<16>>,
        c_mode: Constant<Bits<13>>,
        c_a10: Constant<Bits<13>>,
        c_zero13: Constant<Bits<13>>,
        c_zero2: Constant<Bits<2>>,
        c_zero3: Constant<Bits<3>>,
        c_one3: Constant<Bits<3>>,
        c_four3: Constant<Bits<3>>,
        c_zero8: Constant<Bits<8>>,
        c_one8: Constant<Bits<8>>,
        c_low_bit: Constant<Bits<8>>,
        c_high_bit: Constant<Bits<8>>,
        c_zero32: Constant<Bits<32>>,
        c_one32: Constant<Bits<32>>,
        c_two32: Constant<Bits<32>>,
        c_three32: Constant<Bits<32>>,
        c_sixteen32: Constant<Bits<32>>,
        c_pair_mask: Constant<Bits<32>>,
        c_bank_shift: Constant<Bits<32>>,
        c_row_shift: Constant<Bits<32>>,
        /// The row word's bits above the part's rows (rows is a power of two): a row word
        /// with any of them set is beyond the part (an OR, not a compare, on the input path).
        c_rows_over: Constant<Bits<32>>,

        /// The held request is decided on (held and no flush).
        held: Signal<Local, Bit>,
        pop: Signal<Local, Bit>,
        cap_low: Signal<Local, Bit>,
        cap_high: Signal<Local, Bit>,
        /// The request's address split: shifted words, then bank, row, column, out of range.
        bank_word: Signal<Local, Bits<32>>,
        row_word: Signal<Local, Bits<32>>,
        column_word: Signal<Local, Bits<32>>,
        req_bank: Signal<Local, Bits<2>>,
        req_row: Signal<Local, Bits<13>>,
        req_column: Signal<Local, Bits<13>>,
        /// The incoming request's row word and row (for the decisions registered as it is
        /// taken: out of range, and which banks have its row open).
        in_row_word: Signal<Local, Bits<32>>,
        in_row: Signal<Local, Bits<13>>,
        /// Bank b is the request's.
        bank_sel: Vec<Signal<Local, Bit>>,
        /// The request's bank: open, open on its row, and its waits done.
        sel_open: Signal<Local, Bit>,
        sel_row_match: Signal<Local, Bit>,
        sel_rcd_ok: Signal<Local, Bit>,
        sel_precharge_ok: Signal<Local, Bit>,
        sel_activate_ok: Signal<Local, Bit>,
        any_open: Signal<Local, Bit>,
        all_open_precharge_ok: Signal<Local, Bit>,
        all_activate_ok: Signal<Local, Bit>,
        /// Each wait counted down by one (what it holds next unless a command sets it).
        rcd_dec: Vec<Signal<Local, Bits<4>>>,
        precharge_dec: Vec<Signal<Local, Bits<4>>>,
        activate_dec: Vec<Signal<Local, Bits<4>>>,
        rrd_dec: Signal<Local, Bits<4>>,
        rfc_dec: Signal<Local, Bits<4>>,
        read_to_write_dec: Signal<Local, Bits<4>>,
        /// The refresh timer at or past tREFI − margin − 1 (`refresh_due`'s next value when the
        /// timer steps).
        due_step: Signal<Local, Bit>,
        consumed: Signal<Local, Bit>,
        issue_read: Signal<Local, Bit>,
        issue_refresh: Signal<Local, Bit>,
        push_zero: Signal<Local, Bit>,
        ready_next: Signal<Local, Bit>,
        /// The refresh timer plus one.
        timer_inc: Signal<Local, Bits<16>>,

        /// Power-up step and its wait (counting up to `init` in step 0, down otherwise).
        step: DFF<Bits<3>>,
        init_wait: DFF<Bits<16>>,
        /// The pins' registers; the command bits active high (`cmd_ras` = ¬`ras_n`).
        pin_cs_n: DFF<Bit>,
        cmd_ras: DFF<Bit>,
        cmd_cas: DFF<Bit>,
        cmd_we: DFF<Bit>,
        pin_ba: DFF<Bits<2>>,
        pin_addr: DFF<Bits<13>>,
        pin_dqm: DFF<Bits<2>>,
        pin_dq_out: DFF<Bits<16>>,
        pin_dq_oe: DFF<Bit>,
        /// Per bank: a row is open, which one, and the waits.
        open: Vec<DFF<Bit>>,
        open_row: Vec<DFF<Bits<13>>>,
        rcd_wait: Vec<DFF<Bits<4>>>,
        precharge_wait: Vec<DFF<Bits<4>>>,
        activate_wait: Vec<DFF<Bits<4>>>,
        rrd_wait: DFF<Bits<4>>,
        rfc_wait: DFF<Bits<4>>,
        read_to_write_wait: DFF<Bits<4>>,
        /// Edges since Ready or since the last AUTO REFRESH decision.
        refresh_timer: DFF<Bits<16>>,
        /// `refresh_timer` ≥ tREFI − margin, kept as a register beside the timer (computed
        /// from the timer's next value) so that no 16-bit compare starts the priority chain.
        refresh_due: DFF<Bit>,
        /// The request register.
        req_valid: DFF<Bit>,
        req_addr: DFF<Bits<32>>,
        req_write: DFF<Bit>,
        req_wdata: DFF<Bits<32>>,
        req_be: DFF<Bits<4>>,
        /// Decided as the request is taken, so that no compare of its address lies between
        /// the request register and the command: the address is beyond the part or not a
        /// word's, and per bank, the bank's open row is the request's row. The only command
        /// that changes an open row while a request is held is that request's ACTIVE, which
        /// sets its bank's `row_match`; none is decided at the edge a request is taken.
        req_bad: DFF<Bit>,
        row_match: Vec<DFF<Bit>>,
        /// A WRITE's second word, to go on the pins next.
        write_high: DFF<Bit>,
        write_high_data: DFF<Bits<16>>,
        write_high_dqm: DFF<Bits<2>>,
        /// Bit 0: capture `dq_in` at this edge (low half, high half); shifted right each edge.
        capture_low: DFF<Bits<8>>,
        capture_high: DFF<Bits<8>>,
        low_half: DFF<Bits<16>>,
        reads_in_flight: DFF<Bits<3>>,
        /// Answer FIFO words + reads in flight.
        answers_owed: DFF<Bits<3>>,
        answers: AnswerFifo,
        err: DFF<Bit>,
    }
}

impl SdramController {
    /// The controller for `part` at `clock_hz` with CAS latency `cas_latency` (the board's
    /// frame row gives all three; tests pass a part with a shortened power-up wait).
    pub fn new(part: SdramPart, clock_hz: f64, cas_latency: u32) -> SdramController {
        let t = part.timings.at(clock_hz);
        for (name, v) in [
            ("rp", t.rp),
            ("rfc", t.rfc),
            ("ras", t.ras),
            ("rc", t.rc),
            ("rcd", t.rcd),
            ("rrd", t.rrd),
            ("wr", t.wr),
        ] {
            assert!(
                (1..=15).contains(&v),
                "{}: t{name} = {v} clocks does not fit the 4-bit wait",
                part.name
            );
        }
        assert!(
            t.init < 1 << 16 && t.refi < 1 << 16 && t.refi > REFRESH_MARGIN + 1,
            "{}: init/refi",
            part.name
        );
        assert!(
            part.banks == 4 && part.rows.is_power_of_two() && part.rows <= 8192 && (512..=1024).contains(&part.columns),
            "{}: geometry",
            part.name
        );
        assert!((2..=3).contains(&cas_latency));
        let pair_bits = part.columns.trailing_zeros() - 1;
        let mode = SdramMode {
            burst: BURST,
            cas_latency,
            single_writes: false,
        };
        let k4 = |v: u64| k::<4>(v);
        SdramController {
            clock: Default::default(),
            flush: Default::default(),
            in_valid: Default::default(),
            in_ready: Default::default(),
            inp: Default::default(),
            out_valid: Default::default(),
            out_ready: Default::default(),
            out: Default::default(),
            dq_in: Default::default(),
            cs_n: Default::default(),
            ras_n: Default::default(),
            cas_n: Default::default(),
            we_n: Default::default(),
            ba: Default::default(),
            sdram_addr: Default::default(),
            dqm: Default::default(),
            dq_out: Default::default(),
            dq_oe: Default::default(),
            error: Default::default(),
            c_step: (0..6).map(k).collect(),
            c_bank: (0..4).map(k).collect(),
            c_zero4: k4(0),
            c_one4: k4(1),
            c_rp1: k4(t.rp - 1),
            c_rfc1: k4(t.rfc - 1),
            c_ras1: k4(t.ras - 1),
            c_rc1: k4(t.rc - 1),
            c_rcd1: k4(t.rcd - 1),
            c_rrd1: k4(t.rrd - 1),
            c_wr: k4(t.wr),
            c_cl1: k4(u64::from(cas_latency) + 1),
            c_rcd_go: k4(0),
            c_init: k(t.init),
            c_rp1_16: k(t.rp - 1),
            c_rfc1_16: k(t.rfc - 1),
            c_mrd1_16: k(t.mrd.saturating_sub(1)),
            c_zero16: k(0),
            c_one16: k(1),
            c_refresh_at_less_one: k(t.refi - REFRESH_MARGIN - 1),
            c_mode: k(u64::from(mode.bits())),
            c_a10: k(1 << 10),
            c_zero13: k(0),
            c_zero2: k(0),
            c_zero3: k(0),
            c_one3: k(1),
            c_four3: k(4),
            c_zero8: k(0),
            c_one8: k(1),
            c_low_bit: k(1 << cas_latency),
            c_high_bit: k(1 << (cas_latency + 1)),
            c_zero32: k(0),
            c_one32: k(1),
            c_two32: k(2),
            c_three32: k(3),
            c_sixteen32: k(16),
            c_pair_mask: k((1 << pair_bits) - 1),
            c_bank_shift: k(u64::from(2 + pair_bits)),
            c_row_shift: k(u64::from(2 + pair_bits + 2)),
            c_rows_over: k(!(u64::from(part.rows) - 1) & 0xffff_ffff),
            held: Default::default(),
            pop: Default::default(),
            cap_low: Default::default(),
            cap_high: Default::default(),
            bank_word: Default::default(),
            row_word: Default::default(),
            column_word: Default::default(),
            req_bank: Default::default(),
            req_row: Default::default(),
            req_column: Default::default(),
            in_row_word: Default::default(),
            in_row: Default::default(),
            bank_sel: (0..4).map(|_| Default::default()).collect(),
            sel_open: Default::default(),
            sel_row_match: Default::default(),
            sel_rcd_ok: Default::default(),
            sel_precharge_ok: Default::default(),
            sel_activate_ok: Default::default(),
            any_open: Default::default(),
            all_open_precharge_ok: Default::default(),
            all_activate_ok: Default::default(),
            rcd_dec: (0..4).map(|_| Default::default()).collect(),
            precharge_dec: (0..4).map(|_| Default::default()).collect(),
            activate_dec: (0..4).map(|_| Default::default()).collect(),
            rrd_dec: Default::default(),
            rfc_dec: Default::default(),
            read_to_write_dec: Default::default(),
            due_step: Default::default(),
            consumed: Default::default(),
            issue_read: Default::default(),
            issue_refresh: Default::default(),
            push_zero: Default::default(),
            ready_next: Default::default(),
            timer_inc: Default::default(),
            step: Default::default(),
            init_wait: Default::default(),
            pin_cs_n: Default::default(),
            cmd_ras: Default::default(),
            cmd_cas: Default::default(),
            cmd_we: Default::default(),
            pin_ba: Default::default(),
            pin_addr: Default::default(),
            pin_dqm: Default::default(),
            pin_dq_out: Default::default(),
            pin_dq_oe: Default::default(),
            open: (0..4).map(|_| Default::default()).collect(),
            open_row: (0..4).map(|_| Default::default()).collect(),
            rcd_wait: (0..4).map(|_| Default::default()).collect(),
            precharge_wait: (0..4).map(|_| Default::default()).collect(),
            activate_wait: (0..4).map(|_| Default::default()).collect(),
            rrd_wait: Default::default(),
            rfc_wait: Default::default(),
            read_to_write_wait: Default::default(),
            refresh_timer: Default::default(),
            refresh_due: Default::default(),
            req_valid: Default::default(),
            req_addr: Default::default(),
            req_write: Default::default(),
            req_wdata: Default::default(),
            req_be: Default::default(),
            req_bad: Default::default(),
            row_match: (0..4).map(|_| Default::default()).collect(),
            write_high: Default::default(),
            write_high_data: Default::default(),
            write_high_dqm: Default::default(),
            capture_low: Default::default(),
            capture_high: Default::default(),
            low_half: Default::default(),
            reads_in_flight: Default::default(),
            answers_owed: Default::default(),
            answers: Default::default(),
            err: Default::default(),
        }
    }

    /// The controller of a board's frame row.
    pub fn for_frame_board(f: &FrameBoard) -> SdramController {
        Self::new(f.sdram, f64::from(f.sdram_hz), f.cas_latency)
    }

    /// A planted bug for the tests (rust-hdl simulation only): READ and WRITE one clock short
    /// of tRCD, as `SdramControllerCycle::plant_bug` predicts.
    #[doc(hidden)]
    pub fn mutant_short_rcd(mut self) -> SdramController {
        self.c_rcd_go = k(1);
        self
    }
}

impl SdramController {
    #[hdl_gen]
    fn kernel(&mut self) {
        // ---- every register holds by default ----
        self.answers.clock.next = self.clock.val();
        self.step.clock.next = self.clock.val();
        self.step.d.next = self.step.q.val();
        self.init_wait.clock.next = self.clock.val();
        self.init_wait.d.next = self.init_wait.q.val();
        self.pin_cs_n.clock.next = self.clock.val();
        self.pin_cs_n.d.next = false;
        self.cmd_ras.clock.next = self.clock.val();
        self.cmd_ras.d.next = false;
        self.cmd_cas.clock.next = self.clock.val();
        self.cmd_cas.d.next = false;
        self.cmd_we.clock.next = self.clock.val();
        self.cmd_we.d.next = false;
        self.pin_ba.clock.next = self.clock.val();
        self.pin_ba.d.next = self.c_zero2.val();
        self.pin_addr.clock.next = self.clock.val();
        self.pin_addr.d.next = self.c_zero13.val();
        self.pin_dqm.clock.next = self.clock.val();
        self.pin_dqm.d.next = self.c_zero2.val();
        self.pin_dq_out.clock.next = self.clock.val();
        self.pin_dq_out.d.next = self.c_zero16.val();
        self.pin_dq_oe.clock.next = self.clock.val();
        self.pin_dq_oe.d.next = false;
        self.rrd_wait.clock.next = self.clock.val();
        self.rfc_wait.clock.next = self.clock.val();
        self.read_to_write_wait.clock.next = self.clock.val();
        self.refresh_timer.clock.next = self.clock.val();
        self.refresh_due.clock.next = self.clock.val();
        self.req_valid.clock.next = self.clock.val();
        self.req_valid.d.next = self.req_valid.q.val();
        self.req_addr.clock.next = self.clock.val();
        self.req_addr.d.next = self.req_addr.q.val();
        self.req_write.clock.next = self.clock.val();
        self.req_write.d.next = self.req_write.q.val();
        self.req_wdata.clock.next = self.clock.val();
        self.req_wdata.d.next = self.req_wdata.q.val();
        self.req_be.clock.next = self.clock.val();
        self.req_be.d.next = self.req_be.q.val();
        self.req_bad.clock.next = self.clock.val();
        self.req_bad.d.next = self.req_bad.q.val();
        self.write_high.clock.next = self.clock.val();
        self.write_high.d.next = self.write_high.q.val();
        self.write_high_data.clock.next = self.clock.val();
        self.write_high_data.d.next = self.write_high_data.q.val();
        self.write_high_dqm.clock.next = self.clock.val();
        self.write_high_dqm.d.next = self.write_high_dqm.q.val();
        self.capture_low.clock.next = self.clock.val();
        self.capture_high.clock.next = self.clock.val();
        self.low_half.clock.next = self.clock.val();
        self.low_half.d.next = self.low_half.q.val();
        self.reads_in_flight.clock.next = self.clock.val();
        self.answers_owed.clock.next = self.clock.val();
        self.err.clock.next = self.clock.val();
        self.err.d.next = self.err.q.val();

        // ---- the answer side: pop, captures ----
        self.pop.next = self.out_ready.val() & !self.answers.empty.val();
        self.answers.pop.next = self.pop.val();
        self.answers.flush.next = self.flush.val();
        self.cap_low.next = self.capture_low.q.val().get_bit(0);
        self.cap_high.next = self.capture_high.q.val().get_bit(0);
        self.capture_low.d.next = self.capture_low.q.val() >> self.c_one8.val();
        self.capture_high.d.next = self.capture_high.q.val() >> self.c_one8.val();
        if self.cap_low.val() {
            self.low_half.d.next = self.dq_in.val();
        }
        self.answers.push_data.next = (bit_cast::<32, 16>(self.dq_in.val()) << self.c_sixteen32.val())
            | bit_cast::<32, 16>(self.low_half.q.val());

        // ---- the request's address ----
        self.bank_word.next = self.req_addr.q.val() >> self.c_bank_shift.val();
        self.row_word.next = self.req_addr.q.val() >> self.c_row_shift.val();
        self.column_word.next =
            ((self.req_addr.q.val() >> self.c_two32.val()) & self.c_pair_mask.val()) << self.c_one32.val();
        self.req_bank.next = self.bank_word.val().get_bits::<2>(0);
        self.req_row.next = self.row_word.val().get_bits::<13>(0);
        self.req_column.next = self.column_word.val().get_bits::<13>(0);
        self.in_row_word.next = self.inp.addr.val() >> self.c_row_shift.val();
        self.in_row.next = self.in_row_word.val().get_bits::<13>(0);

        // ---- the waits, counted down; the banks' state ----
        self.rrd_dec.next = self.rrd_wait.q.val();
        if self.rrd_wait.q.val() != self.c_zero4.val() {
            self.rrd_dec.next = self.rrd_wait.q.val() - self.c_one4.val();
        }
        self.rfc_dec.next = self.rfc_wait.q.val();
        if self.rfc_wait.q.val() != self.c_zero4.val() {
            self.rfc_dec.next = self.rfc_wait.q.val() - self.c_one4.val();
        }
        self.read_to_write_dec.next = self.read_to_write_wait.q.val();
        if self.read_to_write_wait.q.val() != self.c_zero4.val() {
            self.read_to_write_dec.next = self.read_to_write_wait.q.val() - self.c_one4.val();
        }
        self.rrd_wait.d.next = self.rrd_dec.val();
        self.rfc_wait.d.next = self.rfc_dec.val();
        self.read_to_write_wait.d.next = self.read_to_write_dec.val();
        self.any_open.next = false;
        self.all_open_precharge_ok.next = true;
        self.all_activate_ok.next = true;
        self.sel_open.next = false;
        self.sel_row_match.next = false;
        self.sel_rcd_ok.next = false;
        self.sel_precharge_ok.next = false;
        self.sel_activate_ok.next = false;
        for b in 0..4 {
            self.open[b].clock.next = self.clock.val();
            self.open[b].d.next = self.open[b].q.val();
            self.open_row[b].clock.next = self.clock.val();
            self.open_row[b].d.next = self.open_row[b].q.val();
            self.row_match[b].clock.next = self.clock.val();
            self.row_match[b].d.next = self.row_match[b].q.val();
            self.rcd_wait[b].clock.next = self.clock.val();
            self.precharge_wait[b].clock.next = self.clock.val();
            self.activate_wait[b].clock.next = self.clock.val();
            self.rcd_dec[b].next = self.rcd_wait[b].q.val();
            if self.rcd_wait[b].q.val() != self.c_zero4.val() {
                self.rcd_dec[b].next = self.rcd_wait[b].q.val() - self.c_one4.val();
            }
            self.precharge_dec[b].next = self.precharge_wait[b].q.val();
            if self.precharge_wait[b].q.val() != self.c_zero4.val() {
                self.precharge_dec[b].next = self.precharge_wait[b].q.val() - self.c_one4.val();
            }
            self.activate_dec[b].next = self.activate_wait[b].q.val();
            if self.activate_wait[b].q.val() != self.c_zero4.val() {
                self.activate_dec[b].next = self.activate_wait[b].q.val() - self.c_one4.val();
            }
            self.rcd_wait[b].d.next = self.rcd_dec[b].val();
            self.precharge_wait[b].d.next = self.precharge_dec[b].val();
            self.activate_wait[b].d.next = self.activate_dec[b].val();
            self.bank_sel[b].next = self.req_bank.val() == self.c_bank[b].val();
            if self.open[b].q.val() {
                self.any_open.next = true;
                if self.precharge_wait[b].q.val() != self.c_zero4.val() {
                    self.all_open_precharge_ok.next = false;
                }
            }
            if self.activate_wait[b].q.val() != self.c_zero4.val() {
                self.all_activate_ok.next = false;
            }
            if self.bank_sel[b].val() {
                self.sel_open.next = self.open[b].q.val();
                self.sel_row_match.next = self.row_match[b].q.val();
                self.sel_rcd_ok.next = self.rcd_wait[b].q.val() <= self.c_rcd_go.val();
                self.sel_precharge_ok.next = self.precharge_wait[b].q.val() == self.c_zero4.val();
                self.sel_activate_ok.next = self.activate_wait[b].q.val() == self.c_zero4.val();
            }
        }

        // ---- one decision per edge (the cycle model's priority chain) ----
        self.held.next = self.req_valid.q.val() & !self.flush.val();
        self.consumed.next = false;
        self.issue_read.next = false;
        self.issue_refresh.next = false;
        self.push_zero.next = false;
        if self.step.q.val() != self.c_step[5].val() {
            // 1. Power-up: count up to `init` in step 0, down in the others.
            if self.step.q.val() == self.c_step[0].val() {
                if self.init_wait.q.val() != self.c_init.val() {
                    self.init_wait.d.next = self.init_wait.q.val() + self.c_one16.val();
                } else {
                    // PRECHARGE ALL.
                    self.cmd_ras.d.next = true;
                    self.cmd_we.d.next = true;
                    self.pin_addr.d.next = self.c_a10.val();
                    self.step.d.next = self.c_step[1].val();
                    self.init_wait.d.next = self.c_rp1_16.val();
                }
            } else if self.init_wait.q.val() != self.c_zero16.val() {
                self.init_wait.d.next = self.init_wait.q.val() - self.c_one16.val();
            } else if self.step.q.val() == self.c_step[1].val() {
                // AUTO REFRESH.
                self.cmd_ras.d.next = true;
                self.cmd_cas.d.next = true;
                self.step.d.next = self.c_step[2].val();
                self.init_wait.d.next = self.c_rfc1_16.val();
            } else if self.step.q.val() == self.c_step[2].val() {
                self.cmd_ras.d.next = true;
                self.cmd_cas.d.next = true;
                self.step.d.next = self.c_step[3].val();
                self.init_wait.d.next = self.c_rfc1_16.val();
            } else if self.step.q.val() == self.c_step[3].val() {
                // LOAD MODE REGISTER.
                self.cmd_ras.d.next = true;
                self.cmd_cas.d.next = true;
                self.cmd_we.d.next = true;
                self.pin_addr.d.next = self.c_mode.val();
                self.step.d.next = self.c_step[4].val();
                self.init_wait.d.next = self.c_mrd1_16.val();
            } else {
                self.step.d.next = self.c_step[5].val();
                self.init_wait.d.next = self.c_zero16.val();
            }
        } else if self.write_high.q.val() {
            // 2. A WRITE's second word.
            self.pin_dq_out.d.next = self.write_high_data.q.val();
            self.pin_dqm.d.next = self.write_high_dqm.q.val();
            self.pin_dq_oe.d.next = true;
            self.write_high.d.next = false;
        } else if self.rfc_wait.q.val() != self.c_zero4.val() {
            // tRFC: nothing goes.
        } else if self.refresh_due.q.val() {
            // 3. Refresh: PRECHARGE ALL, then AUTO REFRESH.
            if self.any_open.val() {
                if self.all_open_precharge_ok.val() {
                    self.cmd_ras.d.next = true;
                    self.cmd_we.d.next = true;
                    self.pin_addr.d.next = self.c_a10.val();
                    for b in 0..4 {
                        self.open[b].d.next = false;
                        if self.c_rp1.val() > self.activate_dec[b].val() {
                            self.activate_wait[b].d.next = self.c_rp1.val();
                        }
                    }
                }
            } else if self.all_activate_ok.val() {
                self.cmd_ras.d.next = true;
                self.cmd_cas.d.next = true;
                self.issue_refresh.next = true;
                if self.c_rfc1.val() > self.rfc_dec.val() {
                    self.rfc_wait.d.next = self.c_rfc1.val();
                }
            }
        } else if self.held.val() {
            // 4. The held request.
            if self.req_bad.q.val() {
                if self.req_write.q.val() {
                    self.consumed.next = true;
                    self.err.d.next = true;
                } else if (self.reads_in_flight.q.val() == self.c_zero3.val())
                    & (self.answers_owed.q.val() < self.c_four3.val())
                {
                    self.push_zero.next = true;
                    self.consumed.next = true;
                    self.err.d.next = true;
                }
            } else if self.sel_open.val() & self.sel_row_match.val() {
                if self.sel_rcd_ok.val() {
                    if self.req_write.q.val() {
                        if self.read_to_write_wait.q.val() == self.c_zero4.val() {
                            // WRITE, the low half now, the high half next cycle.
                            self.cmd_cas.d.next = true;
                            self.cmd_we.d.next = true;
                            self.pin_ba.d.next = self.req_bank.val();
                            self.pin_addr.d.next = self.req_column.val();
                            self.pin_dq_out.d.next = self.req_wdata.q.val().get_bits::<16>(0);
                            self.pin_dqm.d.next = !self.req_be.q.val().get_bits::<2>(0);
                            self.pin_dq_oe.d.next = true;
                            self.write_high.d.next = true;
                            self.write_high_data.d.next = self.req_wdata.q.val().get_bits::<16>(16);
                            self.write_high_dqm.d.next = !self.req_be.q.val().get_bits::<2>(2);
                            for b in 0..4 {
                                if self.bank_sel[b].val() & (self.c_wr.val() > self.precharge_dec[b].val()) {
                                    self.precharge_wait[b].d.next = self.c_wr.val();
                                }
                            }
                            self.consumed.next = true;
                        }
                    } else if self.answers_owed.q.val() < self.c_four3.val() {
                        // READ: capture its halves CL + 1 and CL + 2 edges on.
                        self.cmd_cas.d.next = true;
                        self.pin_ba.d.next = self.req_bank.val();
                        self.pin_addr.d.next = self.req_column.val();
                        self.capture_low.d.next =
                            (self.capture_low.q.val() >> self.c_one8.val()) | self.c_low_bit.val();
                        self.capture_high.d.next =
                            (self.capture_high.q.val() >> self.c_one8.val()) | self.c_high_bit.val();
                        for b in 0..4 {
                            if self.bank_sel[b].val() & (self.c_one4.val() > self.precharge_dec[b].val()) {
                                self.precharge_wait[b].d.next = self.c_one4.val();
                            }
                        }
                        if self.c_cl1.val() > self.read_to_write_dec.val() {
                            self.read_to_write_wait.d.next = self.c_cl1.val();
                        }
                        self.issue_read.next = true;
                        self.consumed.next = true;
                    }
                }
            } else if self.sel_open.val() {
                if self.sel_precharge_ok.val() {
                    // PRECHARGE of the bank's other row.
                    self.cmd_ras.d.next = true;
                    self.cmd_we.d.next = true;
                    self.pin_ba.d.next = self.req_bank.val();
                    for b in 0..4 {
                        if self.bank_sel[b].val() {
                            self.open[b].d.next = false;
                            if self.c_rp1.val() > self.activate_dec[b].val() {
                                self.activate_wait[b].d.next = self.c_rp1.val();
                            }
                        }
                    }
                }
            } else if self.sel_activate_ok.val() & (self.rrd_wait.q.val() == self.c_zero4.val()) {
                // ACTIVE of the request's row.
                self.cmd_ras.d.next = true;
                self.pin_ba.d.next = self.req_bank.val();
                self.pin_addr.d.next = self.req_row.val();
                for b in 0..4 {
                    if self.bank_sel[b].val() {
                        self.open[b].d.next = true;
                        self.open_row[b].d.next = self.req_row.val();
                        self.row_match[b].d.next = true;
                        if self.c_rcd1.val() > self.rcd_dec[b].val() {
                            self.rcd_wait[b].d.next = self.c_rcd1.val();
                        }
                        if self.c_ras1.val() > self.precharge_dec[b].val() {
                            self.precharge_wait[b].d.next = self.c_ras1.val();
                        }
                        if self.c_rc1.val() > self.activate_dec[b].val() {
                            self.activate_wait[b].d.next = self.c_rc1.val();
                        }
                    }
                }
                if self.c_rrd1.val() > self.rrd_dec.val() {
                    self.rrd_wait.d.next = self.c_rrd1.val();
                }
            }
        }

        // ---- the refresh timer: edges from Ready, restarting at the AUTO REFRESH ----
        self.ready_next.next = (self.step.q.val() == self.c_step[5].val())
            | ((self.step.q.val() == self.c_step[4].val()) & (self.init_wait.q.val() == self.c_zero16.val()));
        // The adder works on the register beside the decision; the refresh only selects.
        self.timer_inc.next = self.refresh_timer.q.val() + self.c_one16.val();
        self.refresh_timer.d.next = self.refresh_timer.q.val();
        if self.ready_next.val() {
            self.refresh_timer.d.next = self.timer_inc.val();
        }
        if self.issue_refresh.val() {
            self.refresh_timer.d.next = self.c_zero16.val();
            if self.ready_next.val() {
                self.refresh_timer.d.next = self.c_one16.val();
            }
        }
        // refresh_due = (refresh_timer >= at), a step ahead: the timer's next value is 0 or 1
        // after a refresh (below at > 1, which the constructor asserts), timer + 1 when it steps
        // (>= at exactly when timer >= at - 1), itself otherwise.
        self.due_step.next = self.refresh_timer.q.val() >= self.c_refresh_at_less_one.val();
        self.refresh_due.d.next = self.refresh_due.q.val();
        if self.ready_next.val() {
            self.refresh_due.d.next = self.due_step.val();
        }
        if self.issue_refresh.val() {
            self.refresh_due.d.next = false;
        }

        // ---- answers owed, reads in flight, the request register, flush ----
        self.answers.push.next = self.cap_high.val() | self.push_zero.val();
        if self.push_zero.val() {
            self.answers.push_data.next = self.c_zero32.val();
        }
        self.reads_in_flight.d.next = self.reads_in_flight.q.val();
        if self.issue_read.val() & !self.cap_high.val() {
            self.reads_in_flight.d.next = self.reads_in_flight.q.val() + self.c_one3.val();
        }
        if !self.issue_read.val() & self.cap_high.val() {
            self.reads_in_flight.d.next = self.reads_in_flight.q.val() - self.c_one3.val();
        }
        self.answers_owed.d.next = self.answers_owed.q.val();
        if (self.issue_read.val() | self.push_zero.val()) & !self.pop.val() {
            self.answers_owed.d.next = self.answers_owed.q.val() + self.c_one3.val();
        }
        if !(self.issue_read.val() | self.push_zero.val()) & self.pop.val() {
            self.answers_owed.d.next = self.answers_owed.q.val() - self.c_one3.val();
        }
        if self.flush.val() {
            self.req_valid.d.next = false;
            self.reads_in_flight.d.next = self.c_zero3.val();
            self.answers_owed.d.next = self.c_zero3.val();
            self.capture_low.d.next = self.c_zero8.val();
            self.capture_high.d.next = self.c_zero8.val();
            self.err.d.next = false;
        } else if self.consumed.val() {
            self.req_valid.d.next = false;
        } else if !self.req_valid.q.val() & self.in_valid.val() {
            self.req_valid.d.next = true;
            self.req_addr.d.next = self.inp.addr.val();
            self.req_write.d.next = self.inp.write.val();
            self.req_wdata.d.next = self.inp.wdata.val();
            self.req_be.d.next = self.inp.be.val();
            self.req_bad.d.next = ((self.in_row_word.val() & self.c_rows_over.val()) != self.c_zero32.val())
                | ((self.inp.addr.val() & self.c_three32.val()) != self.c_zero32.val());
            for b in 0..4 {
                self.row_match[b].d.next = self.open_row[b].q.val() == self.in_row.val();
            }
        }

        // ---- outputs: registers ----
        self.in_ready.next = !self.req_valid.q.val();
        self.out_valid.next = !self.answers.empty.val();
        self.out.rdata.next = self.c_zero32.val();
        if !self.answers.empty.val() {
            self.out.rdata.next = self.answers.head_data.val();
        }
        self.cs_n.next = self.pin_cs_n.q.val();
        self.ras_n.next = !self.cmd_ras.q.val();
        self.cas_n.next = !self.cmd_cas.q.val();
        self.we_n.next = !self.cmd_we.q.val();
        self.ba.next = self.pin_ba.q.val();
        self.sdram_addr.next = self.pin_addr.q.val();
        self.dqm.next = self.pin_dqm.q.val();
        self.dq_out.next = self.pin_dq_out.q.val();
        self.dq_oe.next = self.pin_dq_oe.q.val();
        self.error.next = self.err.q.val();
    }
}

emit::indexed_kernel_logic!(SdramController);

/// Top module name of `board`'s SDRAM controller.
pub fn top_name(board: &str) -> String {
    format!("tilerast_{STAGE}_{board}")
}

/// File name of `board`'s SDRAM controller in `rtl-out/`.
pub fn rtl_file_name(board: &str) -> String {
    format!("{}.v", top_name(board))
}

/// The lint command for a written file (run in its directory).
pub fn lint_command(board: &str) -> String {
    crate::lint_top_command(&top_name(board))
}

/// The block's Verilog for a frame row with top module `name`.
pub fn verilog(f: &FrameBoard, name: &str) -> String {
    emit::block_verilog(SdramController::for_frame_board(f), name)
}

/// The SDRAM controller's row of [`crate::FRAME_BOARD_BLOCKS`].
pub const BOARD_FILE: crate::FrameBoardBlock = crate::FrameBoardBlock {
    role: "SDRAM controller: the memory port's slave on the board's SDR SDRAM",
    sig: <tilerast_golden::sdram_controller::SdramControllerPorts as tilerast_golden::cycle::BlockSignature>::SIGNATURE,
    rtl_file,
    made_from: |f| f.sdram.name,
};

/// The full text of `rtl-out/tilerast_sdram_controller_<board>.v`: a header (the command, the
/// part, the clocks, the contract, the lint command, the ports), then the block. `None` for a
/// board without a frame row.
pub fn rtl_file(board: &Board) -> Option<String> {
    let f = board.frame.as_ref()?;
    let top = top_name(board.name);
    let t = f.sdram.timings.at(f64::from(f.sdram_hz));
    let mut ports = String::new();
    for (name, dir, width) in [
        ("inp__addr", "in", 32),
        ("inp__write", "in", 1),
        ("inp__wdata", "in", 32),
        ("inp__be", "in", 4),
        ("out__rdata", "out", 32),
        ("cs_n ras_n cas_n we_n", "out", 1),
        ("ba", "out", 2),
        ("sdram_addr", "out", 13),
        ("dqm", "out", 2),
        ("dq_out", "out", 16),
        ("dq_oe", "out", 1),
        ("dq_in", "in", 16),
        ("error", "out", 1),
    ] {
        let _ = writeln!(ports, "//     {name:<24} {dir:<4} [{}:0]", width - 1);
    }
    Some(format!(
        "// generated by `cargo run -p tilerast-hw --bin gen-rtl` — do not edit\n\
         // {STAGE} for board {} ({}): {}, {} MB, {} banks x {} rows x {} columns x 16 bits,\n\
         // at {} MHz, CAS latency {}; clocks: tRCD {} tRP {} tRAS {} tRC {} tRRD {} tWR {} tRFC {},\n\
         // AUTO REFRESH every {} clocks (tREFI {} less {REFRESH_MARGIN}), power-up wait {} clocks\n\
         // timing contract: tilerast_golden::sdram_controller::SdramControllerCycle; top module: {top}\n\
         // lint-clean with: {}\n\
         // Ports: clock, flush (synchronous), in_valid/in_ready + inp, out_valid/out_ready + out, the\n\
         // SDRAM's pins (registers), error (out):\n\
         {ports}//\n{}",
        board.name,
        board.title,
        f.sdram.name,
        f.sdram.bytes() >> 20,
        f.sdram.banks,
        f.sdram.rows,
        f.sdram.columns,
        f.sdram_hz / 1_000_000,
        f.cas_latency,
        t.rcd,
        t.rp,
        t.ras,
        t.rc,
        t.rrd,
        t.wr,
        t.rfc,
        t.refi - REFRESH_MARGIN,
        t.refi,
        t.init,
        lint_command(board.name),
        verilog(f, &top)
    ))
}
