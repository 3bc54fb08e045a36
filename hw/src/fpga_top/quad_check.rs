//! Quad counter, CRC-32 of the masks and position sum over the beats the core hands out.

use rust_hdl::prelude::*;
use std::fmt::Write as _;
use tilerast_golden::protocol::Crc32;

/// Observes the core's output: on `en` (a beat moves) adds its valid lanes (a prefix of the Q
/// lanes) to the quad count, the CRC-32 of the masks (4·S bits per quad, bit 0 first, see
/// `protocol::Crc32`) and the position sum Σ(qx + 4096·qy) mod 2^24. `clear` restarts all
/// three. The CRC is one parallel XOR network per number of valid lanes (generated from the
/// polynomial, only 4·S·k data bits wide), selected by the highest valid lane.
pub struct QuadCheck {
    /// Clock.
    pub clock: Signal<In, Clock>,
    /// Restart (highest priority).
    pub clear: Signal<In, Bit>,
    /// A beat moves this cycle.
    pub en: Signal<In, Bit>,
    /// Lane valid bits of the beat.
    pub lane_valid: Signal<In, Bits<4>>,
    /// Lane 0 mask.
    pub mask_0: Signal<In, Bits<64>>,
    /// Lane 1 mask.
    pub mask_1: Signal<In, Bits<64>>,
    /// Lane 2 mask.
    pub mask_2: Signal<In, Bits<64>>,
    /// Lane 3 mask.
    pub mask_3: Signal<In, Bits<64>>,
    /// Lane 0 quad x.
    pub qx_0: Signal<In, Bits<12>>,
    /// Lane 1 quad x.
    pub qx_1: Signal<In, Bits<12>>,
    /// Lane 2 quad x.
    pub qx_2: Signal<In, Bits<12>>,
    /// Lane 3 quad x.
    pub qx_3: Signal<In, Bits<12>>,
    /// Lane 0 quad y.
    pub qy_0: Signal<In, Bits<12>>,
    /// Lane 1 quad y.
    pub qy_1: Signal<In, Bits<12>>,
    /// Lane 2 quad y.
    pub qy_2: Signal<In, Bits<12>>,
    /// Lane 3 quad y.
    pub qy_3: Signal<In, Bits<12>>,
    /// Quads counted.
    pub quads: Signal<Out, Bits<24>>,
    /// CRC-32 so far (final complement applied).
    pub crc: Signal<Out, Bits<32>>,
    /// Position sum.
    pub pos_sum: Signal<Out, Bits<24>>,
    q: usize,
    mask_bits: usize,
    st: (u32, u32, u32),
}

impl QuadCheck {
    /// For `q` lanes of `mask_bits` (= 4·S) bits.
    pub fn new(q: usize, mask_bits: usize) -> Self {
        assert!((1..=4).contains(&q) && (4..=64).contains(&mask_bits));
        QuadCheck {
            clock: Default::default(),
            clear: Default::default(),
            en: Default::default(),
            lane_valid: Default::default(),
            mask_0: Default::default(),
            mask_1: Default::default(),
            mask_2: Default::default(),
            mask_3: Default::default(),
            qx_0: Default::default(),
            qx_1: Default::default(),
            qx_2: Default::default(),
            qx_3: Default::default(),
            qy_0: Default::default(),
            qy_1: Default::default(),
            qy_2: Default::default(),
            qy_3: Default::default(),
            quads: Default::default(),
            crc: Default::default(),
            pos_sum: Default::default(),
            q,
            mask_bits,
            st: (0, 0, 0),
        }
    }
}

/// Verilog of the next CRC register after `k` lanes of `m` mask bits (the shared generator,
/// [`crate::crc::crc_network`], over the lanes' mask bits in stream order).
fn crc_network(k: usize, m: usize) -> Vec<String> {
    let data: Vec<String> = (0..k * m).map(|d| format!("mask_{}[{}]", d / m, d % m)).collect();
    crate::crc::crc_network("st", &data)
}

wrapper_block!(QuadCheck; clock, clear, en, lane_valid, mask_0, mask_1, mask_2, mask_3, qx_0, qx_1, qx_2, qx_3,
    qy_0, qy_1, qy_2, qy_3, quads, crc, pos_sum);

impl Logic for QuadCheck {
    fn update(&mut self) {
        if self.clock.pos_edge() {
            if self.clear.val() {
                self.st = (0, 0xffff_ffff, 0);
            } else if self.en.val() {
                let lv = self.lane_valid.val().index();
                let masks = [
                    self.mask_0.val(),
                    self.mask_1.val(),
                    self.mask_2.val(),
                    self.mask_3.val(),
                ];
                let qx = [self.qx_0.val(), self.qx_1.val(), self.qx_2.val(), self.qx_3.val()];
                let qy = [self.qy_0.val(), self.qy_1.val(), self.qy_2.val(), self.qy_3.val()];
                for l in 0..self.q {
                    if lv >> l & 1 == 1 {
                        let mut c = Crc32(self.st.1);
                        c.bits(masks[l].index() as u64, self.mask_bits as u32);
                        self.st.1 = c.0;
                        self.st.0 = (self.st.0 + 1) & 0xff_ffff;
                        self.st.2 = (self.st.2 + qx[l].index() as u32 + 4096 * qy[l].index() as u32) & 0xff_ffff;
                    }
                }
            }
        }
        self.quads.next = (self.st.0 as u64).into();
        self.crc.next = (!self.st.1 as u64).into();
        self.pos_sum.next = (self.st.2 as u64).into();
    }
    fn connect(&mut self) {
        self.quads.connect();
        self.crc.connect();
        self.pos_sum.connect();
    }
    fn hdl(&self) -> Verilog {
        let (q, m) = (self.q, self.mask_bits);
        let mut v = String::new();
        let _ = writeln!(
            v,
            "    // {q} lane(s) x {m} mask bits; valid lanes are a prefix of the beat."
        );
        let _ = writeln!(v, "    reg [31:0] st;\n    reg [23:0] nq;\n    reg [23:0] ps;");
        for k in 1..=q {
            let _ = writeln!(v, "    wire [31:0] c{k};");
            for (i, e) in crc_network(k, m).iter().enumerate() {
                let _ = writeln!(v, "    assign c{k}[{i}] = {e};");
            }
        }
        // Position terms and the lane count.
        for l in 0..q {
            let _ = writeln!(
                v,
                "    wire [23:0] p{l} = lane_valid[{l}] ? {{qy_{l}, 12'h000}} + {{12'h000, qx_{l}}} : 24'h0;"
            );
        }
        let psum = (0..q).map(|l| format!("p{l}")).collect::<Vec<_>>().join(" + ");
        let cnt = (0..q)
            .map(|l| format!("{{23'h0, lane_valid[{l}]}}"))
            .collect::<Vec<_>>()
            .join(" + ");
        let _ = writeln!(v, "    always @(posedge clock) begin");
        let _ = writeln!(v, "        if (clear) begin\n            st <= 32'hffffffff;\n            nq <= 24'h0;\n            ps <= 24'h0;\n        end else if (en) begin");
        let mut first = true;
        for k in (1..=q).rev() {
            let kw = if first { "if" } else { "else if" };
            first = false;
            let _ = writeln!(v, "            {kw} (lane_valid[{}]) st <= c{k};", k - 1);
        }
        let _ = writeln!(
            v,
            "            nq <= nq + {cnt};\n            ps <= ps + {psum};\n        end\n    end"
        );
        let _ = writeln!(
            v,
            "    assign crc = ~st;\n    assign quads = nq;\n    assign pos_sum = ps;"
        );
        // Inputs the preset does not use.
        let mut unused = Vec::new();
        if q < 4 {
            unused.push(format!("lane_valid[3:{q}]"));
        }
        for l in 0..4 {
            if l >= q {
                unused.push(format!("mask_{l}, qx_{l}, qy_{l}"));
            } else if m < 64 {
                unused.push(format!("mask_{l}[63:{m}]"));
            }
        }
        if !unused.is_empty() {
            let _ = writeln!(v, "    wire unused_ok = &{{1'b0, {}, 1'b0}};", unused.join(", "));
        }
        Verilog::Wrapper(Wrapper {
            code: v,
            cores: String::new(),
        })
    }
}
