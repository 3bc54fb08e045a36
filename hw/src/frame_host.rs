//! # frame_host (no seed: the frame top's UART host, issue 35)
//!
//! The board side of the frame top's UART frames at the GPU clock: the parser with the raster
//! top's checks, LOAD BEATS into a scene buffer in block RAM (committed only by a good frame),
//! RUN FRAME feeding the beats to the board top back to back, the frame's cycle count, the
//! swap and the first whole video frame that shows it, and the answers (DESC, ACK, ERROR,
//! FRAME RESULT with the display CRC). Cycle model:
//! [`tilerast_golden::frame_host::FrameHostCycle`] (same registers); its rustdoc is the block's
//! timing contract, stated once, and the frames are `tilerast_golden::protocol`'s.
//!
//! **Ports** ([`tilerast_golden::frame_host::FrameHostPorts`]). `clock`, `flush` (synchronous:
//! the power-up state); in: `in_valid`/`in_ready` with `inp` (the UART receiver's bytes, which
//! do not wait: `in_ready` low loses the byte), `rx_error` (a low stop bit); out:
//! `out_valid`/`out_ready` with `out` (the scene's [`crate::streams::PrimInOut`] beats),
//! `tx_valid`/`tx_ready` with `tx` (the answers' bytes); the board top's levels `done_valid`,
//! `done_frame`, `front`, `shown`, `frame_crc`, `crc_toggle`, `flags`; `running`.
//!
//! **Latency and throughput.** One byte per edge in; an answer is loaded whole into the reply
//! register at the edge that executes a frame and leaves one byte per `tx_ready`; a RUN FRAME
//! offers its first beat at the edge after the first one, after the frame's checksum byte, with
//! `crc_toggle` changed (a video frame's end), and one beat per edge after. The beat offered is
//! a register (`beat`); the scene buffer is read one beat ahead of it (`raddr = next + 1 +
//! taken`), so the buffer's output reaches only that register, not the board's handshake.
//!
//! ```text
//!  inp ─► parser: sync, op, len, payload, checksum ──► exec ──► answer (kind, code) ─► reply (17 bytes) ─► tx
//!          │ LOAD BEATS bytes: two per 16-bit lane                ▲ loaded, cycles, crc, ...   shift 8 per byte,
//!          ▼                                                      │                          checksum last
//!     RecordRam<227> (capacity beats; write at loaded + written) ─┼─► rdata ─► beat ─► out (gated by out_valid)
//!                                    raddr = next + 1 + taken ◄── run: Align ─► Feed ─► Done ─► Swap ─► Crc ─► RESULT
//!                                  done_valid, front, shown, crc_toggle, frame_crc, flags ──┘
//! ```
//!
//! **Area.** The scene buffer (capacity × 227 bits in 15 lane memories), a 136-bit reply
//! register with its four-way load multiplexer, the beat's AND gate (227 bits: a read of the
//! buffer while a LOAD writes it is not defined, so the payload is zero while not offered, as
//! the model's), counters.

use crate::fpga_top::RecordRam;
use crate::util::k;
use rust_hdl::prelude::*;
use tilerast_golden::cycle::UBits;
use tilerast_golden::frame_host::FrameHostCycle;
use tilerast_golden::protocol;
use tilerast_golden::streams::{ports, Stream};

/// The stage name (module `tilerast_frame_host_<board>`).
pub const STAGE: &str = tilerast_golden::frame_host::STAGE;

/// A beat's bits: the `PrimIn` stream's fields, end in bit 0 (the LOAD BEATS record).
pub const BEAT_BITS: usize = 227;

/// The reply register: the longest answer but its checksum (FRAME RESULT: 4 + 13 bytes).
const REPLY_BITS: usize = 136;
const _: () = assert!(REPLY_BITS == 8 * (4 + protocol::FRAME_RESULT_BYTES));

/// The parser's states, as the model's.
#[derive(Copy, Clone, Debug, PartialEq, Eq, LogicState)]
pub enum HostParse {
    Sync,
    Op,
    Len0,
    Len1,
    Payload,
    Checksum,
}

/// The run's states, as the model's.
#[derive(Copy, Clone, Debug, PartialEq, Eq, LogicState)]
pub enum HostRun {
    Idle,
    Align,
    Feed,
    Done,
    Swap,
    Crc,
}

/// The answer queued at this edge.
#[derive(Copy, Clone, Debug, PartialEq, Eq, LogicState)]
pub enum HostAnswer {
    Nothing,
    Desc,
    Ack,
    Error,
    Result,
}

tilerast_golden::frame_host_streams! { crate::streams::stream_block;
    /// The frame host. Build with [`FrameHost::new`] (see the module header).
    pub struct FrameHost {
        scene: RecordRam<BEAT_BITS>,

        /// The parser: state, the frame's opcode, length (low byte, zero), payload bytes left,
        /// running sum; the LOAD's byte within its record, the even byte waiting for its lane,
        /// records written (at `loaded + written`), a record past the capacity, the last
        /// record's end bit; edges of silence inside the frame.
        parse: DFF<HostParse>,
        op: DFF<Bits<8>>,
        len_low: DFF<Bits<8>>,
        len_zero: DFF<Bit>,
        remaining: DFF<Bits<16>>,
        sum: DFF<Bits<8>>,
        record_byte: DFF<Bits<5>>,
        even_byte: DFF<Bits<8>>,
        written: DFF<Bits<16>>,
        overflow: DFF<Bit>,
        pending_end: DFF<Bit>,
        quiet: DFF<Bits<21>>,
        /// The scene: beats loaded, the last one's end bit.
        loaded: DFF<Bits<16>>,
        last_end: DFF<Bit>,
        /// The run: state, the beat offered, cycles, and what the FRAME RESULT waits on.
        run: DFF<HostRun>,
        next_beat: DFF<Bits<16>>,
        /// The beat offered (beat `next_beat` while feeding): a register, so that the scene
        /// buffer's read port is one beat further ahead and its output reaches no handshake.
        /// It follows the buffer's word 0 while the run is not under way, holds it through
        /// Align, and takes the next beat at each beat taken.
        beat: DFF<Bits<BEAT_BITS>>,
        cycles: DFF<Bits<32>>,
        result_frame: DFF<Bits<8>>,
        front_at_done: DFF<Bit>,
        /// `crc_toggle` at RUN FRAME's execution (Align), then at the swap shown (Crc).
        toggle_mark: DFF<Bit>,
        /// The responder: the answer's bytes but the checksum (first in bits 7..0), bytes left
        /// with the checksum, the sum of the bytes sent (from −sync).
        reply: DFF<Bits<REPLY_BITS>>,
        reply_left: DFF<Bits<5>>,
        reply_sum: DFF<Bits<8>>,

        /// The parser takes a byte at this edge / one came / the sum with it.
        takes: Signal<Local, Bit>,
        byte_in: Signal<Local, Bit>,
        sum_next: Signal<Local, Bits<8>>,
        /// The LOAD's write address, and room there.
        write_addr: Signal<Local, Bits<16>>,
        room: Signal<Local, Bit>,
        is_load: Signal<Local, Bit>,
        no_payload_op: Signal<Local, Bit>,
        /// The frame's error at its checksum byte (0: none).
        check_code: Signal<Local, Bits<8>>,
        /// The answer queued at this edge, an ERROR's code, an ACK's count.
        answer: Signal<Local, HostAnswer>,
        answer_code: Signal<Local, Bits<8>>,
        ack_count: Signal<Local, Bits<16>>,
        answer_word: Signal<Local, Bits<REPLY_BITS>>,
        /// The run after this edge's feed (for the done in the same edge).
        feed_done: Signal<Local, Bit>,
        taken: Signal<Local, Bit>,
        next_plus: Signal<Local, Bits<16>>,
        /// `next_beat` + 1 and + 2, from the register, beside the handshake.
        next_one: Signal<Local, Bits<16>>,
        next_two: Signal<Local, Bits<16>>,
        beat_word: Signal<Local, Bits<BEAT_BITS>>,
        tx_sent: Signal<Local, Bit>,
        /// A low stop bit inside a frame abandons it (before the byte, if one came).
        uart_fail: Signal<Local, Bit>,
        answer_len: Signal<Local, Bits<5>>,
        shown_byte: Signal<Local, Bits<8>>,

        c_sync_host: Constant<Bits<8>>,
        c_sync_neg: Constant<Bits<8>>,
        c_op_ping: Constant<Bits<8>>,
        c_op_clear: Constant<Bits<8>>,
        c_op_load: Constant<Bits<8>>,
        c_op_run: Constant<Bits<8>>,
        c_e_checksum: Constant<Bits<8>>,
        c_e_opcode: Constant<Bits<8>>,
        c_e_length: Constant<Bits<8>>,
        c_e_capacity: Constant<Bits<8>>,
        c_e_uart: Constant<Bits<8>>,
        c_e_timeout: Constant<Bits<8>>,
        c_e_scene: Constant<Bits<8>>,
        /// The record's last byte index; the capacity; the timeout − 1.
        c_record_last: Constant<Bits<5>>,
        c_capacity: Constant<Bits<16>>,
        c_quiet_last: Constant<Bits<21>>,
        c_cycles_max: Constant<Bits<32>>,
        c_one16: Constant<Bits<16>>,
        c_two16: Constant<Bits<16>>,
        c_one5: Constant<Bits<5>>,
        c_zero8: Constant<Bits<8>>,
        /// The answers' constant bytes (header, and the descriptor's fields but `loaded`) and
        /// lengths with the checksum.
        c_desc_word: Constant<Bits<REPLY_BITS>>,
        c_ack_word: Constant<Bits<REPLY_BITS>>,
        c_error_word: Constant<Bits<REPLY_BITS>>,
        c_result_word: Constant<Bits<REPLY_BITS>>,
        c_desc_len: Constant<Bits<5>>,
        c_short_len: Constant<Bits<5>>,
        c_result_len: Constant<Bits<5>>,
        /// 1 in the planted bug: RUN FRAME does not check for a whole frame.
        c_no_scene_check: Constant<Bit>,
    }
}

/// `bytes` little-endian in the low bits of a reply word.
fn reply_const(bytes: &[u8]) -> Constant<Bits<REPLY_BITS>> {
    let mut b = Bits::<REPLY_BITS>::default();
    for (i, &v) in bytes.iter().enumerate() {
        b.set_bits::<8>(8 * i, (v as u64).into());
    }
    Constant::new(b)
}

/// An answer's bytes but the checksum, `payload` after its 4-byte header.
fn answer_bytes(typ: u8, payload: &[u8]) -> Vec<u8> {
    let mut f = protocol::frame(protocol::SYNC_BOARD, typ, payload);
    f.pop();
    f
}

impl FrameHost {
    /// The block of `model` (its descriptor, capacity and timeout).
    pub fn new(model: &FrameHostCycle) -> FrameHost {
        let cap = model.capacity();
        assert!(cap.is_power_of_two() && (2..=1024).contains(&cap), "capacity {cap}");
        assert!((1..=1 << 20).contains(&model.timeout()));
        let k8 = |v: u8| k::<8>(u64::from(v));
        let len5 = |bytes: usize| k::<5>(bytes as u64 + 1);
        let desc = answer_bytes(protocol::T_DESC, &model.desc_payload(0));
        let ack = answer_bytes(protocol::T_ACK, &[0, 0]);
        let error = answer_bytes(protocol::T_ERROR, &[0, 0]);
        let result = answer_bytes(protocol::T_FRAME_RESULT, &[0; protocol::FRAME_RESULT_BYTES]);
        FrameHost {
            clock: Default::default(),
            flush: Default::default(),
            in_valid: Default::default(),
            in_ready: Default::default(),
            inp: Default::default(),
            out_valid: Default::default(),
            out_ready: Default::default(),
            out: Default::default(),
            tx_valid: Default::default(),
            tx_ready: Default::default(),
            tx: Default::default(),
            rx_error: Default::default(),
            done_valid: Default::default(),
            done_frame: Default::default(),
            front: Default::default(),
            shown: Default::default(),
            frame_crc: Default::default(),
            crc_toggle: Default::default(),
            flags: Default::default(),
            running: Default::default(),
            scene: RecordRam::without_id_port(cap),
            parse: Default::default(),
            op: Default::default(),
            len_low: Default::default(),
            len_zero: Default::default(),
            remaining: Default::default(),
            sum: Default::default(),
            record_byte: Default::default(),
            even_byte: Default::default(),
            written: Default::default(),
            overflow: Default::default(),
            pending_end: Default::default(),
            quiet: Default::default(),
            loaded: Default::default(),
            last_end: Default::default(),
            run: Default::default(),
            next_beat: Default::default(),
            beat: Default::default(),
            cycles: Default::default(),
            result_frame: Default::default(),
            front_at_done: Default::default(),
            toggle_mark: Default::default(),
            reply: Default::default(),
            reply_left: Default::default(),
            reply_sum: Default::default(),
            takes: Default::default(),
            byte_in: Default::default(),
            sum_next: Default::default(),
            write_addr: Default::default(),
            room: Default::default(),
            is_load: Default::default(),
            no_payload_op: Default::default(),
            check_code: Default::default(),
            answer: Default::default(),
            answer_code: Default::default(),
            ack_count: Default::default(),
            answer_word: Default::default(),
            feed_done: Default::default(),
            taken: Default::default(),
            next_plus: Default::default(),
            next_one: Default::default(),
            next_two: Default::default(),
            beat_word: Default::default(),
            tx_sent: Default::default(),
            uart_fail: Default::default(),
            answer_len: Default::default(),
            shown_byte: Default::default(),
            c_sync_host: k8(protocol::SYNC_HOST),
            c_sync_neg: k8(0u8.wrapping_sub(protocol::SYNC_BOARD)),
            c_op_ping: k8(protocol::OP_PING),
            c_op_clear: k8(protocol::OP_CLEAR),
            c_op_load: k8(protocol::OP_LOAD_BEATS),
            c_op_run: k8(protocol::OP_RUN_FRAME),
            c_e_checksum: k8(protocol::E_CHECKSUM),
            c_e_opcode: k8(protocol::E_OPCODE),
            c_e_length: k8(protocol::E_LENGTH),
            c_e_capacity: k8(protocol::E_CAPACITY),
            c_e_uart: k8(protocol::E_UART),
            c_e_timeout: k8(protocol::E_TIMEOUT),
            c_e_scene: k8(protocol::E_SCENE),
            c_record_last: k::<5>(protocol::beat_bytes() as u64 - 1),
            c_capacity: k::<16>(cap as u64),
            c_quiet_last: k::<21>(model.timeout() - 1),
            c_cycles_max: k::<32>(u64::from(u32::MAX)),
            c_one16: k::<16>(1),
            c_two16: k::<16>(2),
            c_one5: k::<5>(1),
            c_zero8: k::<8>(0),
            c_desc_len: len5(desc.len()),
            c_short_len: len5(ack.len()),
            c_result_len: len5(result.len()),
            c_desc_word: reply_const(&desc),
            c_ack_word: reply_const(&ack),
            c_error_word: reply_const(&error),
            c_result_word: reply_const(&result),
            c_no_scene_check: Constant::new(false),
        }
    }

    /// The planted bug of the tests: RUN FRAME starts feeding whatever is loaded, without the
    /// check for a whole frame (ERROR 8).
    pub fn mutant_no_scene_check(mut self) -> FrameHost {
        self.c_no_scene_check = Constant::new(true);
        self
    }

    #[hdl_gen]
    fn kernel(&mut self) {
        dff_setup!(
            self,
            clock,
            parse,
            op,
            len_low,
            len_zero,
            remaining,
            sum,
            record_byte,
            even_byte,
            written,
            overflow,
            pending_end,
            quiet,
            loaded,
            last_end,
            run,
            next_beat,
            beat,
            cycles,
            result_frame,
            front_at_done,
            toggle_mark,
            reply,
            reply_left,
            reply_sum
        );
        clock!(self, clock, scene);

        // ---- Outputs, from registers.
        self.takes.next = (self.run.q.val() == HostRun::Idle) & !self.reply_left.q.val().any();
        self.in_ready.next = self.takes.val();
        self.running.next = self.run.q.val() != HostRun::Idle;
        self.tx_valid.next = self.reply_left.q.val().any();
        self.tx.byte.next = self.reply.q.val().get_bits::<8>(0);
        if self.reply_left.q.val() == self.c_one5.val() {
            self.tx.byte.next = self.c_zero8.val() - self.reply_sum.q.val();
        }
        self.out_valid.next = self.run.q.val() == HostRun::Feed;
        self.beat_word.next = 0u64.into();
        if self.run.q.val() == HostRun::Feed {
            self.beat_word.next = self.beat.q.val();
        }
        self.out.kind.next = self.beat_word.val().get_bit(226);
        self.out.v0x.next = signed_cast(self.beat_word.val().get_bits::<24>(202));
        self.out.v0y.next = signed_cast(self.beat_word.val().get_bits::<24>(178));
        self.out.v1x.next = signed_cast(self.beat_word.val().get_bits::<24>(154));
        self.out.v1y.next = signed_cast(self.beat_word.val().get_bits::<24>(130));
        self.out.v2x.next = signed_cast(self.beat_word.val().get_bits::<24>(106));
        self.out.v2y.next = signed_cast(self.beat_word.val().get_bits::<24>(82));
        self.out.size.next = self.beat_word.val().get_bits::<24>(58);
        self.out.aa.next = self.beat_word.val().get_bit(57);
        self.out.colour.next = self.beat_word.val().get_bits::<32>(25);
        self.out.depth.next = self.beat_word.val().get_bits::<24>(1);
        self.out.end.next = self.beat_word.val().get_bit(0);

        // ---- The responder: one byte per tx_ready, the checksum last.
        self.tx_sent.next = self.tx_valid.val() & self.tx_ready.val();
        if self.tx_sent.val() {
            self.reply.d.next = self.reply.q.val() >> 8u64;
            self.reply_left.d.next = self.reply_left.q.val() - self.c_one5.val();
            self.reply_sum.d.next = self.reply_sum.q.val() + self.reply.q.val().get_bits::<8>(0);
        }

        // ---- The run.
        self.answer.next = HostAnswer::Nothing;
        self.answer_code.next = self.c_zero8.val();
        self.ack_count.next = self.loaded.q.val();
        self.taken.next = (self.run.q.val() == HostRun::Feed) & self.out_ready.val();
        self.next_one.next = self.next_beat.q.val() + self.c_one16.val();
        self.next_two.next = self.next_beat.q.val() + self.c_two16.val();
        self.next_plus.next = self.next_beat.q.val();
        if self.taken.val() {
            self.next_plus.next = self.next_one.val();
        }
        self.feed_done.next = self.taken.val() & (self.next_one.val() == self.loaded.q.val());
        // The feed starts at the edge after the display CRC's toggle changes (a video frame's end).
        if (self.run.q.val() == HostRun::Align) & (self.crc_toggle.val() != self.toggle_mark.q.val()) {
            self.run.d.next = HostRun::Feed;
            self.next_beat.d.next = 0u64.into();
            self.cycles.d.next = 0u64.into();
        }
        // The beat register: word 0 until the run (read at address 0 outside Align and Feed),
        // held through Align (which reads beat 1), then each beat taken loads the one after
        // it, which the buffer read a beat ahead (address next + 1 + taken while feeding).
        self.scene.raddr.next = 0u64.into();
        if self.run.q.val() == HostRun::Align {
            self.scene.raddr.next = self.c_one16.val().get_bits::<10>(0);
        }
        if self.run.q.val() == HostRun::Feed {
            self.scene.raddr.next = self.next_one.val().get_bits::<10>(0);
            if self.taken.val() {
                self.scene.raddr.next = self.next_two.val().get_bits::<10>(0);
            }
        }
        if (self.run.q.val() != HostRun::Align) & (self.run.q.val() != HostRun::Feed) {
            self.beat.d.next = self.scene.rdata.val();
        }
        if self.taken.val() {
            self.beat.d.next = self.scene.rdata.val();
        }
        if (self.run.q.val() == HostRun::Feed) | (self.run.q.val() == HostRun::Done) {
            if self.cycles.q.val() != self.c_cycles_max.val() {
                self.cycles.d.next = self.cycles.q.val() + 1u64;
            }
            self.next_beat.d.next = self.next_plus.val();
            if self.feed_done.val() {
                self.run.d.next = HostRun::Done;
            }
            if ((self.run.q.val() == HostRun::Done) | self.feed_done.val()) & self.done_valid.val() {
                self.result_frame.d.next = self.done_frame.val();
                self.front_at_done.d.next = self.front.val();
                self.run.d.next = HostRun::Swap;
            }
        }
        if (self.run.q.val() == HostRun::Swap)
            & (self.front.val() != self.front_at_done.q.val())
            & (self.shown.val() == self.front.val())
        {
            self.toggle_mark.d.next = self.crc_toggle.val();
            self.run.d.next = HostRun::Crc;
        }
        if (self.run.q.val() == HostRun::Crc) & (self.crc_toggle.val() != self.toggle_mark.q.val()) {
            self.answer.next = HostAnswer::Result;
            self.run.d.next = HostRun::Idle;
        }

        // ---- The parser.
        self.uart_fail.next = self.takes.val() & (self.parse.q.val() != HostParse::Sync) & self.rx_error.val();
        self.byte_in.next = self.takes.val() & self.in_valid.val() & !self.uart_fail.val();
        self.sum_next.next = self.sum.q.val() + self.inp.byte.val();
        self.is_load.next = self.op.q.val() == self.c_op_load.val();
        self.no_payload_op.next = (self.op.q.val() == self.c_op_ping.val())
            | (self.op.q.val() == self.c_op_clear.val())
            | (self.op.q.val() == self.c_op_run.val());
        self.write_addr.next = self.loaded.q.val() + self.written.q.val();
        self.room.next = self.write_addr.val() < self.c_capacity.val();
        self.scene.we.next = false;
        self.scene.praddr.next = 0u64.into();
        self.scene.wlane.next = self.record_byte.q.val().get_bits::<4>(1);
        self.scene.waddr.next = self.write_addr.val().get_bits::<10>(0);
        self.scene.wdata.next =
            (bit_cast::<16, 8>(self.inp.byte.val()) << 8u64) | bit_cast::<16, 8>(self.even_byte.q.val());
        if self.record_byte.q.val() == self.c_record_last.val() {
            self.scene.wdata.next = bit_cast::<16, 8>(self.inp.byte.val());
        }
        // The frame's error at its checksum byte, first found wins.
        self.check_code.next = self.c_e_opcode.val();
        if self.no_payload_op.val() {
            self.check_code.next = self.c_zero8.val();
            if !self.len_zero.q.val() {
                self.check_code.next = self.c_e_length.val();
            }
        }
        if self.is_load.val() {
            self.check_code.next = self.c_zero8.val();
            if self.overflow.q.val() {
                self.check_code.next = self.c_e_capacity.val();
            }
            if self.record_byte.q.val().any() {
                self.check_code.next = self.c_e_length.val();
            }
        }
        if self.sum_next.val().any() {
            self.check_code.next = self.c_e_checksum.val();
        }
        if self.takes.val() & (self.parse.q.val() != HostParse::Sync) & !self.in_valid.val() & !self.rx_error.val() {
            self.quiet.d.next = self.quiet.q.val() + 1u64;
            if self.quiet.q.val() == self.c_quiet_last.val() {
                self.answer.next = HostAnswer::Error;
                self.answer_code.next = self.c_e_timeout.val();
                self.parse.d.next = HostParse::Sync;
            }
        }
        if self.byte_in.val() {
            self.quiet.d.next = 0u64.into();
            self.sum.d.next = self.sum_next.val();
            if (self.parse.q.val() == HostParse::Sync) & (self.inp.byte.val() == self.c_sync_host.val()) {
                self.parse.d.next = HostParse::Op;
                self.sum.d.next = 0u64.into();
            }
            if self.parse.q.val() == HostParse::Op {
                self.op.d.next = self.inp.byte.val();
                self.parse.d.next = HostParse::Len0;
            }
            if self.parse.q.val() == HostParse::Len0 {
                self.len_low.d.next = self.inp.byte.val();
                self.parse.d.next = HostParse::Len1;
            }
            if self.parse.q.val() == HostParse::Len1 {
                self.remaining.d.next =
                    (bit_cast::<16, 8>(self.inp.byte.val()) << 8u64) | bit_cast::<16, 8>(self.len_low.q.val());
                self.len_zero.d.next = !self.inp.byte.val().any() & !self.len_low.q.val().any();
                self.record_byte.d.next = 0u64.into();
                self.written.d.next = 0u64.into();
                self.overflow.d.next = false;
                self.parse.d.next = HostParse::Payload;
                if !self.inp.byte.val().any() & !self.len_low.q.val().any() {
                    self.parse.d.next = HostParse::Checksum;
                }
            }
            if self.parse.q.val() == HostParse::Payload {
                self.remaining.d.next = self.remaining.q.val() - self.c_one16.val();
                if self.remaining.q.val() == self.c_one16.val() {
                    self.parse.d.next = HostParse::Checksum;
                }
                if self.is_load.val() {
                    self.even_byte.d.next = self.inp.byte.val();
                    self.scene.we.next = self.room.val()
                        & (self.record_byte.q.val().get_bit(0)
                            | (self.record_byte.q.val() == self.c_record_last.val()));
                    if !self.room.val() {
                        self.overflow.d.next = true;
                    }
                    if !self.record_byte.q.val().any() {
                        self.pending_end.d.next = self.inp.byte.val().get_bit(0);
                    }
                    self.record_byte.d.next = self.record_byte.q.val() + self.c_one5.val();
                    if self.record_byte.q.val() == self.c_record_last.val() {
                        self.record_byte.d.next = 0u64.into();
                        self.written.d.next = self.written.q.val() + self.c_one16.val();
                    }
                }
            }
            if self.parse.q.val() == HostParse::Checksum {
                self.parse.d.next = HostParse::Sync;
                if self.check_code.val().any() {
                    self.answer.next = HostAnswer::Error;
                    self.answer_code.next = self.check_code.val();
                } else {
                    if self.op.q.val() == self.c_op_ping.val() {
                        self.answer.next = HostAnswer::Desc;
                    }
                    if self.op.q.val() == self.c_op_clear.val() {
                        self.loaded.d.next = 0u64.into();
                        self.ack_count.next = 0u64.into();
                        self.answer.next = HostAnswer::Ack;
                    }
                    if self.is_load.val() {
                        self.ack_count.next = self.write_addr.val();
                        self.loaded.d.next = self.write_addr.val();
                        if self.written.q.val().any() {
                            self.last_end.d.next = self.pending_end.q.val();
                        }
                        self.answer.next = HostAnswer::Ack;
                    }
                    if self.op.q.val() == self.c_op_run.val() {
                        if (!self.loaded.q.val().any() | !self.last_end.q.val()) & !self.c_no_scene_check.val() {
                            self.answer.next = HostAnswer::Error;
                            self.answer_code.next = self.c_e_scene.val();
                        } else {
                            self.run.d.next = HostRun::Align;
                            self.toggle_mark.d.next = self.crc_toggle.val();
                        }
                    }
                }
            }
        }
        if self.uart_fail.val() {
            self.answer.next = HostAnswer::Error;
            self.answer_code.next = self.c_e_uart.val();
            self.parse.d.next = HostParse::Sync;
        }

        // ---- The answer, loaded whole.
        self.shown_byte.next = 0u64.into();
        if self.shown.val() {
            self.shown_byte.next = 1u64.into();
        }
        self.answer_word.next = self.c_desc_word.val() | (bit_cast::<REPLY_BITS, 16>(self.loaded.q.val()) << 104u64);
        self.answer_len.next = self.c_desc_len.val();
        if self.answer.val() == HostAnswer::Ack {
            self.answer_word.next = self.c_ack_word.val() | (bit_cast::<REPLY_BITS, 16>(self.ack_count.val()) << 32u64);
            self.answer_len.next = self.c_short_len.val();
        }
        if self.answer.val() == HostAnswer::Error {
            self.answer_word.next = self.c_error_word.val()
                | (bit_cast::<REPLY_BITS, 8>(self.answer_code.val()) << 32u64)
                | (bit_cast::<REPLY_BITS, 8>(self.op.q.val()) << 40u64);
            self.answer_len.next = self.c_short_len.val();
        }
        if self.answer.val() == HostAnswer::Result {
            self.answer_word.next = self.c_result_word.val()
                | (bit_cast::<REPLY_BITS, 32>(self.cycles.q.val()) << 32u64)
                | (bit_cast::<REPLY_BITS, 32>(self.frame_crc.val()) << 64u64)
                | (bit_cast::<REPLY_BITS, 16>(self.loaded.q.val()) << 96u64)
                | (bit_cast::<REPLY_BITS, 8>(self.result_frame.q.val()) << 112u64)
                | (bit_cast::<REPLY_BITS, 8>(self.shown_byte.val()) << 120u64)
                | (bit_cast::<REPLY_BITS, 3>(self.flags.val()) << 128u64);
            self.answer_len.next = self.c_result_len.val();
        }
        // Only with nothing being sent (the parser waits for the reply; a run sends none).
        if self.answer.val() != HostAnswer::Nothing {
            self.reply.d.next = self.answer_word.val();
            self.reply_left.d.next = self.answer_len.val();
            self.reply_sum.d.next = self.c_sync_neg.val();
        }

        // ---- Flush: the power-up state.
        if self.flush.val() {
            self.parse.d.next = HostParse::Sync;
            self.op.d.next = 0u64.into();
            self.len_low.d.next = 0u64.into();
            self.len_zero.d.next = false;
            self.remaining.d.next = 0u64.into();
            self.sum.d.next = 0u64.into();
            self.record_byte.d.next = 0u64.into();
            self.even_byte.d.next = 0u64.into();
            self.written.d.next = 0u64.into();
            self.overflow.d.next = false;
            self.pending_end.d.next = false;
            self.quiet.d.next = 0u64.into();
            self.loaded.d.next = 0u64.into();
            self.last_end.d.next = false;
            self.run.d.next = HostRun::Idle;
            self.next_beat.d.next = 0u64.into();
            self.cycles.d.next = 0u64.into();
            self.result_frame.d.next = 0u64.into();
            self.front_at_done.d.next = false;
            self.toggle_mark.d.next = false;
            self.reply.d.next = 0u64.into();
            self.reply_left.d.next = 0u64.into();
            self.reply_sum.d.next = 0u64.into();
            self.scene.we.next = false;
        }
    }
}

crate::emit::indexed_kernel_logic!(FrameHost);

/// The beat's field offsets above are the `PrimIn` stream's declaration (first field on top,
/// `end` in bit 0): checked once here, so the slices in `kernel` cannot drift from it.
#[allow(dead_code)]
fn field_offsets() -> Vec<(&'static str, u32, u32)> {
    let fields = <ports::PrimIn as Stream>::FIELDS;
    let mut lo: u32 = fields.iter().map(|f| f.width).sum();
    fields
        .iter()
        .map(|f| {
            lo -= f.width;
            (f.name, lo, f.width)
        })
        .collect()
}

/// The offsets `kernel` slices at, for the test that they are [`field_offsets`].
pub const KERNEL_OFFSETS: [(&str, u32, u32); 12] = [
    ("kind", 226, 1),
    ("v0x", 202, 24),
    ("v0y", 178, 24),
    ("v1x", 154, 24),
    ("v1y", 130, 24),
    ("v2x", 106, 24),
    ("v2y", 82, 24),
    ("size", 58, 24),
    ("aa", 57, 1),
    ("colour", 25, 32),
    ("depth", 1, 24),
    ("end", 0, 1),
];

/// Top module name of `board`'s frame host in `rtl-out/`.
pub fn top_name(board: &str) -> String {
    format!("tilerast_{STAGE}_{board}")
}

/// The block's Verilog for `model` with top module `name`.
pub fn verilog(model: &FrameHostCycle, name: &str) -> String {
    crate::emit::block_verilog(FrameHost::new(model), name)
}

/// The frame host's row of [`crate::FRAME_BOARD_BLOCKS`].
pub const BOARD_FILE: crate::FrameBoardBlock = crate::FrameBoardBlock {
    role: "the UART host of the frame top: scene upload into block RAM, RUN FRAME, FRAME RESULT with cycles and display CRC",
    sig: <tilerast_golden::frame_host::FrameHostPorts as tilerast_golden::cycle::BlockSignature>::SIGNATURE,
    rtl_file,
    made_from: |f| f.preset,
};

/// The full text of `rtl-out/tilerast_frame_host_<board>.v`: a header (the command, the
/// buffer, the contract, the lint command), then the block. `None` for a board without a
/// frame row.
pub fn rtl_file(board: &tilerast_golden::board::Board) -> Option<String> {
    let f = board.frame.as_ref()?;
    let model = FrameHostCycle::for_board(board).unwrap_or_else(|e| panic!("{e}"));
    let top = top_name(board.name);
    Some(format!(
        "// generated by `cargo run -p tilerast-hw --bin gen-rtl` — do not edit\n\
         // {STAGE} for board {} ({}), preset {}: a scene buffer of {} beats of {BEAT_BITS} bits, frame timeout {} GPU clocks\n\
         // timing contract: tilerast_golden::frame_host::FrameHostCycle; frames: tilerast_golden::protocol; top module: {top}\n\
         // lint-clean with: {}\n\
         // Ports: clock, flush (synchronous), in_valid/in_ready + inp (byte: the UART receiver's), rx_error,\n\
         // out_valid/out_ready + out (the PrimIn beat), tx_valid/tx_ready + tx (byte: to the UART transmitter),\n\
         // done_valid, done_frame, front, shown, frame_crc, crc_toggle, flags (in), running (out)\n//\n{}",
        board.name,
        board.title,
        f.preset,
        model.capacity(),
        model.timeout(),
        crate::lint_top_command(&top),
        verilog(&model, &top)
    ))
}

#[cfg(test)]
mod tests {
    #[test]
    fn the_kernel_slices_the_beat_as_the_stream_declares_it() {
        assert_eq!(super::BEAT_BITS as u32, tilerast_golden::protocol::beat_bits());
        let want: Vec<_> = super::KERNEL_OFFSETS.to_vec();
        assert_eq!(super::field_offsets(), want);
    }
}
