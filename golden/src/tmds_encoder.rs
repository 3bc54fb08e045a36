//! TMDS encoder (no seed: the DVI output of a board top that shows the framebuffer on a screen).
//!
//! One DVI channel turns each pixel clock's byte into a 10-bit TMDS character, as the DVI 1.0
//! specification's encoder flowchart (§3.2.2) does:
//!
//! ```text
//!   data ─► N1(data) ─► q_m: XOR or XNOR chain (fewer transitions), q_m[8] = which ──┐
//!                                                                                     ▼
//!   de ──────────────────────────────────────► balance against the running disparity `cnt`
//!                                               (invert q_m[7:0] or not, q_out[9] = whether)
//!   ¬de: control period, the character of (c1, c0) = ctrl, cnt ← 0 ─────────────► q_out[9:0]
//! ```
//!
//! Bit 0 of a character is sent first. [`TmdsEncoder`] is the transaction model (one character
//! per pixel clock, the running disparity its only state); [`decode`] is the receiver's side of
//! the same specification, which the tests use to check the encoder against the reference: every
//! data character decodes to its byte, control characters are the specification's four, and the
//! running disparity stays bounded. [`TmdsEncoderCycle`] is the RTL block's cycle model.

use crate::cycle::CycleModel;
use crate::streams::{TmdsChar, TmdsIn};

/// The control-period characters of (c1, c0) = 0, 1, 2, 3 (DVI 1.0 §3.2.2), bit 0 sent first.
pub const CONTROL_CHARS: [u16; 4] = [0b11_0101_0100, 0b00_1010_1011, 0b01_0101_0100, 0b10_1010_1011];

/// What a received character means ([`decode`]).
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum Decoded {
    /// A data character: the byte.
    Data(u8),
    /// A control character: (c1, c0) as a number 0..4.
    Control(u8),
}

/// The receiver's decoding of a 10-bit character: a control character if it is one of
/// [`CONTROL_CHARS`], else data (bit 9 undoes the inversion, bit 8 says XOR or XNOR).
pub fn decode(word: u16) -> Decoded {
    let word = word & 0x3ff;
    if let Some(c) = CONTROL_CHARS.iter().position(|&w| w == word) {
        return Decoded::Control(c as u8);
    }
    let mut q = (word & 0xff) as u8;
    if word >> 9 & 1 == 1 {
        q = !q;
    }
    let xor = word >> 8 & 1 == 1;
    let mut d = q & 1;
    for i in 1..8 {
        let b = (q >> i ^ q >> (i - 1)) & 1;
        d |= if xor { b } else { b ^ 1 } << i;
    }
    Decoded::Data(d)
}

/// The transition-minimised 9-bit word of `data` (q_m, bit 8 = 1 for the XOR chain).
pub fn minimise_transitions(data: u8) -> u16 {
    let ones = data.count_ones();
    let xnor = ones > 4 || (ones == 4 && data & 1 == 0);
    let mut q = u16::from(data & 1);
    for i in 1..8 {
        let b = u16::from((data >> i) & 1) ^ (q >> (i - 1) & 1);
        q |= if xnor { b ^ 1 } else { b } << i;
    }
    if !xnor {
        q |= 1 << 8;
    }
    q
}

/// One DVI channel's encoder: the running disparity (ones minus zeros sent since the last
/// control period) is its state.
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq)]
pub struct TmdsEncoder {
    /// Running disparity, `cnt` of the specification.
    pub disparity: i32,
}

impl TmdsEncoder {
    pub fn new() -> Self {
        Self::default()
    }

    /// The character for one pixel clock: `inp.data` balanced against the running disparity in
    /// active video (`inp.de`), else the control character of (c1, c0) = `inp.ctrl` (its low
    /// two bits), which clears the disparity.
    pub fn encode(&mut self, inp: &TmdsIn) -> u16 {
        if !inp.de {
            self.disparity = 0;
            return CONTROL_CHARS[usize::from(inp.ctrl & 3)];
        }
        let qm = minimise_transitions(inp.data);
        let low = qm & 0xff;
        let xor = qm >> 8 & 1 == 1;
        let n1 = low.count_ones() as i32;
        let n0 = 8 - n1;
        if self.disparity == 0 || n1 == n0 {
            // Balance nothing: send q_m[7:0] as the XOR/XNOR choice prefers.
            let word = (u16::from(!xor) << 9) | (qm & 0x100) | if xor { low } else { !low & 0xff };
            self.disparity += if xor { n1 - n0 } else { n0 - n1 };
            word
        } else if (self.disparity > 0 && n1 > n0) || (self.disparity < 0 && n0 > n1) {
            // Invert to pull the disparity back towards 0.
            self.disparity += 2 * i32::from(xor) + n0 - n1;
            (1 << 9) | (qm & 0x100) | (!low & 0xff)
        } else {
            self.disparity += -2 * i32::from(!xor) + n1 - n0;
            (qm & 0x100) | low
        }
    }
}

/// The TMDS encoder block, cycle by cycle: one [`TmdsIn`] in, its character out one cycle
/// later.
///
/// # Timing contract
///
/// The one statement of the `tmds_encoder` block's timing; the RTL is held to it on every port
/// and cycle (`hw/tests/tmds_encoder.rs`, `cosim/tests/tmds_encoder.rs`).
///
/// * **Registers.** `out_valid`, the character `out.word` (10 bits) and the running disparity
///   (5 bits, two's complement: it stays within −8..8, `golden/tests/tmds_encoder_cycle.rs`).
/// * **Advance.** `adv` = ¬out_valid ∨ out_ready; `in_ready` = `adv` (the only combinational
///   input → output path). In an `adv` cycle `out_valid` ← `in_valid`, and an input taken has
///   its character ([`TmdsEncoder::encode`]) loaded into `out.word` and the disparity updated.
///   Without `adv`, or without an input, the character and the disparity keep their values.
/// * **Latency and throughput.** Latency 1, one character per cycle (a pixel clock's
///   character leaves the cycle after its byte came in).
/// * **Payload when not valid.** The last character's (0 after `new` or a flush).
/// * **Flush.** Every register returns to the state of [`TmdsEncoderCycle::new`] (disparity 0).
/// * **Idle.** `idle` = ¬`out_valid`.
#[derive(Clone, Debug, Default)]
pub struct TmdsEncoderCycle {
    encoder: TmdsEncoder,
    out_valid: bool,
    out: TmdsChar,
}

impl TmdsEncoderCycle {
    pub fn new() -> Self {
        Self::default()
    }

    /// The running disparity held (the specification's `cnt`).
    pub fn disparity(&self) -> i32 {
        self.encoder.disparity
    }

    /// Nothing on the output (registers only).
    pub fn idle(&self) -> bool {
        !self.out_valid
    }

    /// Inverts bit `bit` of the 5-bit two's-complement disparity register (a mutant's model).
    pub fn invert_disparity_bit(&mut self, bit: u32) {
        let r = (self.encoder.disparity & 0x1f) ^ (1 << bit);
        self.encoder.disparity = if r & 0x10 != 0 { r - 32 } else { r };
    }
}

impl CycleModel for TmdsEncoderCycle {
    type In = TmdsIn;
    type Out = TmdsChar;

    fn out(&self) -> (bool, TmdsChar) {
        (self.out_valid, self.out)
    }

    fn in_ready(&self, out_ready: bool) -> bool {
        !self.out_valid || out_ready
    }

    fn clock(&mut self, in_valid: bool, inp: &TmdsIn, out_ready: bool, flush: bool) {
        if flush {
            *self = Self::new();
            return;
        }
        if self.in_ready(out_ready) {
            self.out_valid = in_valid;
            if in_valid {
                self.out.word = self.encoder.encode(inp);
            }
        }
    }
}

crate::cycle_model_signature! {
    /// tmds_encoder's ports: a DVI channel's byte, data enable and control bits in, its TMDS
    /// character out.
    pub TmdsEncoder "tmds_encoder" for TmdsEncoderCycle: TmdsIn -> TmdsChar, idle
}
