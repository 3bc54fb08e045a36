//! # tmds_encoder (no seed: the video output's DVI channel)
//!
//! One DVI channel's TMDS encoder (DVI 1.0 §3.2.2): each pixel clock's byte becomes a 10-bit
//! character with few transitions and a bounded running disparity; a control period sends
//! the character of its two control bits (c1, c0) and clears the disparity. A board top that shows the
//! framebuffer puts one per channel (blue, green, red) between its scan-out and its
//! serialisers. Cycle model: [`tilerast_golden::tmds_encoder::TmdsEncoderCycle`] (same
//! registers); its rustdoc is the block's timing contract, stated once.
//!
//! **Ports.** `clock`, `flush` (synchronous reset: every register zero); in:
//! `in_valid`/`in_ready` with `inp` ([`crate::streams::TmdsInIn`]: `data`, `de`, `ctrl`); out:
//! `out_valid`/`out_ready` with `out` ([`crate::streams::TmdsCharOut`]: `word`, bit 0 sent
//! first); `idle`.
//!
//! **Handshake.** `adv = !out_valid | out_ready` = `in_ready` (the only combinational input →
//! output path); at an `adv` edge `out_valid` takes `in_valid` and a byte taken loads its
//! character. A scan-out holds `out_ready` high: one character per cycle, latency 1.
//!
//! **Depth.** The byte's ones are counted (an adder tree of 8 bits), the XOR/XNOR chain is a
//! prefix XOR (`d ^ d<<1 ^ … ^ d<<7`) with 0xaa for XNOR, q_m's ones are counted again, and a
//! 5-bit add updates the disparity: about 12 LUT levels, for a 25 MHz pixel clock.
//!
//! ```text
//!  data ─► ones(data) ─► xnor ─► q_m = prefix_xor(data) ^ (xnor ? 0xaa : 0) ─► ones(q_m) ─┐
//!  disparity (5 bits) ◄── + delta ◄── case: zero/balanced │ pull back │ keep ◄────────────┤
//!  de ? {invert, ¬xnor, q_m ^ (invert ? 0xff : 0)} : control[ctrl] ─► word register ─► out
//! ```
//!
//! Parameters: none; every config builds it.

use crate::emit;
use crate::streams::{TmdsCharOut, TmdsCharReg};
use crate::util::k;
use rust_hdl::prelude::*;
use tilerast_golden::config::Config;
use tilerast_golden::tmds_encoder::CONTROL_CHARS;

tilerast_golden::tmds_encoder_streams! { crate::streams::stream_block;
    /// One DVI channel's TMDS encoder. Build with [`TmdsEncoder::new`].
    pub struct TmdsEncoder {
        c_four: Constant<Bits<4>>,
        c_one5: Constant<Bits<5>>,
        c_two5: Constant<Bits<5>>,
        c_eight5: Constant<Bits<5>>,
        c_zero5: Constant<Bits<5>>,
        c_xnor_bits: Constant<Bits<8>>,
        c_all8: Constant<Bits<8>>,
        c_zero8: Constant<Bits<8>>,
        c_bit8: Constant<Bits<10>>,
        c_bit9: Constant<Bits<10>>,
        c_zero10: Constant<Bits<10>>,
        c_ctrl0: Constant<Bits<10>>,
        c_ctrl1: Constant<Bits<10>>,
        c_ctrl2: Constant<Bits<10>>,
        c_ctrl3: Constant<Bits<10>>,
        c_ctrl_one: Constant<Bits<2>>,
        c_ctrl_two: Constant<Bits<2>>,
        c_ctrl_three: Constant<Bits<2>>,
        c_shift: Vec<Constant<Bits<8>>>,

        adv: Signal<Local, Bit>,
        /// Ones in the byte.
        data_ones: Signal<Local, Bits<4>>,
        /// The XNOR chain is taken (more than 4 ones, or 4 with bit 0 clear).
        use_xnor: Signal<Local, Bit>,
        /// The byte's prefix XOR: bit i = data[0] ^ … ^ data[i].
        prefix_xor: Signal<Local, Bits<8>>,
        /// q_m[7:0].
        qm: Signal<Local, Bits<8>>,
        /// Ones in q_m[7:0].
        qm_ones: Signal<Local, Bits<4>>,
        /// ones − zeros of q_m[7:0] (n1 − n0) and its negation, 5-bit two's complement.
        more_ones: Signal<Local, Bits<5>>,
        more_zeros: Signal<Local, Bits<5>>,
        disparity_zero: Signal<Local, Bit>,
        disparity_positive: Signal<Local, Bit>,
        disparity_negative: Signal<Local, Bit>,
        /// q_m's ones equal its zeros.
        balanced: Signal<Local, Bit>,
        /// Neither the disparity nor q_m is balanced: the character pulls the disparity back.
        pull_back: Signal<Local, Bit>,
        /// q_m[7:0] is sent inverted (= the character's bit 9).
        invert: Signal<Local, Bit>,
        /// What the disparity changes by when the byte is taken.
        delta: Signal<Local, Bits<5>>,
        /// The control period's character (of `inp.ctrl`).
        control_char: Signal<Local, Bits<10>>,
        /// The data character's bits 8 and 9, and its low byte.
        char_bit8: Signal<Local, Bits<10>>,
        char_bit9: Signal<Local, Bits<10>>,
        char_low: Signal<Local, Bits<8>>,

        /// The output character is valid.
        out_valid_reg: DFF<Bit>,
        /// Running disparity (the specification's `cnt`), two's complement.
        disparity: DFF<Bits<5>>,
        /// The output register (the character), loaded when a byte is taken.
        out_reg: TmdsCharReg,
    }
}

impl TmdsEncoder {
    /// The block (no parameters: `cfg` is taken for the uniform block interface).
    pub fn new(_cfg: &Config) -> TmdsEncoder {
        TmdsEncoder::channel()
    }

    /// The block, as a board top's video output instantiates it (no config).
    pub fn channel() -> TmdsEncoder {
        TmdsEncoder {
            clock: Default::default(),
            flush: Default::default(),
            in_valid: Default::default(),
            in_ready: Default::default(),
            idle: Default::default(),
            inp: Default::default(),
            out_valid: Default::default(),
            out_ready: Default::default(),
            out: Default::default(),
            c_four: k(4),
            c_one5: k(1),
            c_two5: k(2),
            c_eight5: k(8),
            c_zero5: k(0),
            c_xnor_bits: k(0xaa),
            c_all8: k(0xff),
            c_zero8: k(0),
            c_bit8: k(1 << 8),
            c_bit9: k(1 << 9),
            c_zero10: k(0),
            c_ctrl0: k(u64::from(CONTROL_CHARS[0])),
            c_ctrl1: k(u64::from(CONTROL_CHARS[1])),
            c_ctrl2: k(u64::from(CONTROL_CHARS[2])),
            c_ctrl3: k(u64::from(CONTROL_CHARS[3])),
            c_ctrl_one: k(1),
            c_ctrl_two: k(2),
            c_ctrl_three: k(3),
            c_shift: (0..8).map(k).collect(),
            adv: Default::default(),
            data_ones: Default::default(),
            use_xnor: Default::default(),
            prefix_xor: Default::default(),
            qm: Default::default(),
            qm_ones: Default::default(),
            more_ones: Default::default(),
            more_zeros: Default::default(),
            disparity_zero: Default::default(),
            disparity_positive: Default::default(),
            disparity_negative: Default::default(),
            balanced: Default::default(),
            pull_back: Default::default(),
            invert: Default::default(),
            delta: Default::default(),
            control_char: Default::default(),
            char_bit8: Default::default(),
            char_bit9: Default::default(),
            char_low: Default::default(),
            out_valid_reg: Default::default(),
            disparity: Default::default(),
            out_reg: Default::default(),
        }
    }

    #[hdl_gen]
    fn kernel(&mut self) {
        self.out_valid_reg.clock.next = self.clock.val();
        self.out_valid_reg.d.next = self.out_valid_reg.q.val();
        self.disparity.clock.next = self.clock.val();
        self.disparity.d.next = self.disparity.q.val();

        // Handshake.
        self.adv.next = !self.out_valid_reg.q.val() | self.out_ready.val();
        self.in_ready.next = self.adv.val();

        // q_m: the XOR or XNOR chain, whichever has fewer transitions.
        self.data_ones.next = bit_cast::<4, 1>(self.inp.data.val().get_bits::<1>(0))
            + bit_cast::<4, 1>(self.inp.data.val().get_bits::<1>(1))
            + bit_cast::<4, 1>(self.inp.data.val().get_bits::<1>(2))
            + bit_cast::<4, 1>(self.inp.data.val().get_bits::<1>(3))
            + bit_cast::<4, 1>(self.inp.data.val().get_bits::<1>(4))
            + bit_cast::<4, 1>(self.inp.data.val().get_bits::<1>(5))
            + bit_cast::<4, 1>(self.inp.data.val().get_bits::<1>(6))
            + bit_cast::<4, 1>(self.inp.data.val().get_bits::<1>(7));
        self.use_xnor.next = (self.data_ones.val() > self.c_four.val())
            | ((self.data_ones.val() == self.c_four.val()) & !self.inp.data.val().get_bit(0));
        self.prefix_xor.next = (self.inp.data.val() << self.c_shift[0].val())
            ^ (self.inp.data.val() << self.c_shift[1].val())
            ^ (self.inp.data.val() << self.c_shift[2].val())
            ^ (self.inp.data.val() << self.c_shift[3].val())
            ^ (self.inp.data.val() << self.c_shift[4].val())
            ^ (self.inp.data.val() << self.c_shift[5].val())
            ^ (self.inp.data.val() << self.c_shift[6].val())
            ^ (self.inp.data.val() << self.c_shift[7].val());
        self.qm.next = self.prefix_xor.val();
        if self.use_xnor.val() {
            self.qm.next = self.prefix_xor.val() ^ self.c_xnor_bits.val();
        }
        self.qm_ones.next = bit_cast::<4, 1>(self.qm.val().get_bits::<1>(0))
            + bit_cast::<4, 1>(self.qm.val().get_bits::<1>(1))
            + bit_cast::<4, 1>(self.qm.val().get_bits::<1>(2))
            + bit_cast::<4, 1>(self.qm.val().get_bits::<1>(3))
            + bit_cast::<4, 1>(self.qm.val().get_bits::<1>(4))
            + bit_cast::<4, 1>(self.qm.val().get_bits::<1>(5))
            + bit_cast::<4, 1>(self.qm.val().get_bits::<1>(6))
            + bit_cast::<4, 1>(self.qm.val().get_bits::<1>(7));
        self.more_ones.next = (bit_cast::<5, 4>(self.qm_ones.val()) << self.c_one5.val()) - self.c_eight5.val();
        self.more_zeros.next = self.c_eight5.val() - (bit_cast::<5, 4>(self.qm_ones.val()) << self.c_one5.val());

        // Balance against the running disparity.
        self.disparity_zero.next = self.disparity.q.val() == self.c_zero5.val();
        self.disparity_negative.next = self.disparity.q.val().get_bit(4);
        self.disparity_positive.next = !self.disparity_zero.val() & !self.disparity_negative.val();
        self.balanced.next = self.qm_ones.val() == self.c_four.val();
        self.pull_back.next = (self.disparity_positive.val() & (self.qm_ones.val() > self.c_four.val()))
            | (self.disparity_negative.val() & (self.qm_ones.val() < self.c_four.val()));
        if self.disparity_zero.val() | self.balanced.val() {
            // q_m[8] = ¬xnor: XOR sends q_m as it is and adds n1 − n0, XNOR inverts it.
            self.invert.next = self.use_xnor.val();
            if self.use_xnor.val() {
                self.delta.next = self.more_zeros.val();
            } else {
                self.delta.next = self.more_ones.val();
            }
        } else if self.pull_back.val() {
            self.invert.next = true;
            if self.use_xnor.val() {
                self.delta.next = self.more_zeros.val();
            } else {
                self.delta.next = self.more_zeros.val() + self.c_two5.val();
            }
        } else {
            self.invert.next = false;
            if self.use_xnor.val() {
                self.delta.next = self.more_ones.val() - self.c_two5.val();
            } else {
                self.delta.next = self.more_ones.val();
            }
        }
        if self.use_xnor.val() {
            self.char_bit8.next = self.c_zero10.val();
        } else {
            self.char_bit8.next = self.c_bit8.val();
        }
        if self.invert.val() {
            self.char_bit9.next = self.c_bit9.val();
            self.char_low.next = self.qm.val() ^ self.c_all8.val();
        } else {
            self.char_bit9.next = self.c_zero10.val();
            self.char_low.next = self.qm.val() ^ self.c_zero8.val();
        }

        // A control period's character: the one of (c1, c0) = ctrl.
        self.control_char.next = self.c_ctrl0.val();
        if self.inp.ctrl.val() == self.c_ctrl_one.val() {
            self.control_char.next = self.c_ctrl1.val();
        }
        if self.inp.ctrl.val() == self.c_ctrl_two.val() {
            self.control_char.next = self.c_ctrl2.val();
        }
        if self.inp.ctrl.val() == self.c_ctrl_three.val() {
            self.control_char.next = self.c_ctrl3.val();
        }

        // The output register (TmdsCharReg): the character, loaded when a byte is taken,
        // cleared by flush; a control period sends its control character and clears the
        // disparity.
        self.out_reg.clock.next = self.clock.val();
        self.out_reg.load.next = false;
        self.out_reg.clear.next = self.flush.val();
        self.out_reg.d.word.next = bit_cast::<10, 8>(self.char_low.val()) | self.char_bit8.val() | self.char_bit9.val();
        if !self.inp.de.val() {
            self.out_reg.d.word.next = self.control_char.val();
        }
        if self.adv.val() {
            self.out_valid_reg.d.next = self.in_valid.val();
            if self.in_valid.val() {
                self.out_reg.load.next = true;
                if self.inp.de.val() {
                    self.disparity.d.next = self.disparity.q.val() + self.delta.val();
                } else {
                    self.disparity.d.next = self.c_zero5.val();
                }
            }
        }

        if self.flush.val() {
            self.out_valid_reg.d.next = false;
            self.disparity.d.next = self.c_zero5.val();
        }

        self.out_valid.next = self.out_valid_reg.q.val();
        self.idle.next = !self.out_valid_reg.q.val();
        TmdsCharOut::link(&mut self.out, &mut self.out_reg.q);
    }
}

emit::indexed_kernel_logic!(TmdsEncoder);

/// The block's Verilog with top module `name`.
pub fn verilog(cfg: &Config, name: &str) -> String {
    emit::block_verilog(TmdsEncoder::new(cfg), name)
}

/// The TMDS encoder's row of [`crate::BLOCK_FILES`].
pub const FILE: crate::BlockFile = crate::BlockFile {
    role: "DVI 1.0 TMDS encoder, one channel of the video output",
    contract: "tilerast_golden::tmds_encoder::TmdsEncoderCycle",
    sig: <tilerast_golden::tmds_encoder::TmdsEncoderPorts as tilerast_golden::cycle::BlockSignature>::SIGNATURE,
    params: |_| Ok("no parameters: 8-bit data, 2 control bits".into()),
    verilog,
};
