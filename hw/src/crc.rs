//! CRC-32 as parallel XOR networks, generated from the polynomial ([`Crc32`], zlib's): the
//! one generator behind the raster-core top's quad-mask CRC (`fpga_top::QuadCheck`) and the
//! video output's display CRC ([`DisplayCrc`]).
//!
//! [`crc_network`] gives, for a register `state` and data bits fed bit 0 first, each bit of
//! the next register as an XOR of state and data bits: CRC-32 is linear over GF(2), so next
//! bit i depends on state bit j iff feeding zeros into the state with only bit j set sets it,
//! and on data bit d iff feeding the data with only bit d set into state 0 sets it.

use crate::fpga_top::wrapper_block;
use rust_hdl::prelude::*;
use std::fmt::Write as _;
use tilerast_golden::crc::Crc32;

/// Raw CRC-32 register after feeding `data` (bit 0 first) into state `s`.
pub fn crc_step(s: u32, data: &[bool]) -> u32 {
    let mut c = Crc32(s);
    for &b in data {
        c.bits(u64::from(b), 1);
    }
    c.0
}

/// Verilog of the next raw CRC register after feeding the bits named `data` (in order) into
/// the 32-bit register named `state`: one XOR expression per bit, bit 0 first.
pub fn crc_network(state: &str, data: &[String]) -> Vec<String> {
    let n = data.len();
    (0..32)
        .map(|i| {
            let mut terms = Vec::new();
            for j in 0..32 {
                if crc_step(1 << j, &vec![false; n]) >> i & 1 == 1 {
                    terms.push(format!("{state}[{j}]"));
                }
            }
            for (d, name) in data.iter().enumerate() {
                let mut v = vec![false; n];
                v[d] = true;
                if crc_step(0, &v) >> i & 1 == 1 {
                    terms.push(name.clone());
                }
            }
            if terms.is_empty() {
                "1'b0".to_string()
            } else {
                terms.join(" ^ ")
            }
        })
        .collect()
}

/// The video output's display CRC (the contract is `VideoOutCycle`'s "Display CRC"): at a
/// `clock` edge with `en` (a pixel clock of active video is sent) the running register takes
/// the bytes `red`, `green`, `blue` (24 bits, one XOR network); with `last` too (the frame's
/// last active pixel) the value with that pixel, complemented, loads `frame_crc`, `crc_toggle`
/// flips and the register restarts at all ones. `flush` (first): running register all ones,
/// `frame_crc` 0, `crc_toggle` 0.
///
/// ```text
///  red, green, blue ─► 24-bit XOR network ─► next ─┬─(en ∧ ¬last)─► running
///  running ─────────────────────────────────────────┘ (en ∧ last) ─► ~next ─► frame_crc, crc_toggle ^= 1
/// ```
pub struct DisplayCrc {
    pub clock: Signal<In, Clock>,
    pub flush: Signal<In, Bit>,
    pub en: Signal<In, Bit>,
    pub last: Signal<In, Bit>,
    pub red: Signal<In, Bits<8>>,
    pub green: Signal<In, Bits<8>>,
    pub blue: Signal<In, Bits<8>>,
    pub frame_crc: Signal<Out, Bits<32>>,
    pub crc_toggle: Signal<Out, Bit>,
    /// Simulation state: the running register, the held CRC, the toggle.
    state: (u32, u32, bool),
}

impl Default for DisplayCrc {
    fn default() -> Self {
        DisplayCrc {
            clock: Default::default(),
            flush: Default::default(),
            en: Default::default(),
            last: Default::default(),
            red: Default::default(),
            green: Default::default(),
            blue: Default::default(),
            frame_crc: Default::default(),
            crc_toggle: Default::default(),
            state: (0xffff_ffff, 0, false),
        }
    }
}

wrapper_block!(DisplayCrc; clock, flush, en, last, red, green, blue, frame_crc, crc_toggle);

/// The bytes fed per pixel clock, in order: red, green, blue, each bit 0 first.
fn pixel_bits() -> Vec<String> {
    ["red", "green", "blue"]
        .iter()
        .flat_map(|c| (0..8).map(move |b| format!("{c}[{b}]")))
        .collect()
}

impl Logic for DisplayCrc {
    fn update(&mut self) {
        if self.clock.pos_edge() {
            if self.flush.val() {
                self.state = (0xffff_ffff, 0, false);
            } else if self.en.val() {
                let mut c = Crc32(self.state.0);
                for v in [self.red.val(), self.green.val(), self.blue.val()] {
                    c.bits(v.index() as u64, 8);
                }
                if self.last.val() {
                    self.state = (0xffff_ffff, c.value(), !self.state.2);
                } else {
                    self.state.0 = c.0;
                }
            }
        }
        self.frame_crc.next = u64::from(self.state.1).into();
        self.crc_toggle.next = self.state.2;
    }
    fn connect(&mut self) {
        self.frame_crc.connect();
        self.crc_toggle.connect();
    }
    fn hdl(&self) -> Verilog {
        let mut v = String::new();
        let _ = writeln!(
            v,
            "    // CRC-32 (zlib's) of the pixel's bytes red, green, blue, bit 0 first.\n    reg [31:0] running;\n    reg [31:0] held;\n    reg toggle;\n    wire [31:0] next;"
        );
        for (i, e) in crc_network("running", &pixel_bits()).iter().enumerate() {
            let _ = writeln!(v, "    assign next[{i}] = {e};");
        }
        let _ = writeln!(
            v,
            "    initial begin\n        running = 32'hffffffff;\n        held = 32'h0;\n        toggle = 1'b0;\n    end\n    \
             always @(posedge clock) begin\n        if (flush) begin\n            running <= 32'hffffffff;\n            held <= 32'h0;\n            toggle <= 1'b0;\n        \
             end else if (en) begin\n            if (last) begin\n                running <= 32'hffffffff;\n                held <= ~next;\n                toggle <= ~toggle;\n            \
             end else begin\n                running <= next;\n            end\n        end\n    end\n    \
             assign frame_crc = held;\n    assign crc_toggle = toggle;"
        );
        Verilog::Wrapper(Wrapper {
            code: v,
            cores: String::new(),
        })
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    /// The network, evaluated bit by bit on random states and data, is the bit-serial CRC.
    #[test]
    fn the_network_is_the_serial_crc() {
        let names = pixel_bits();
        let net = crc_network("s", &names);
        let mut r = tilerast_golden::rng::Rng::new(0xc4c);
        for _ in 0..200 {
            let s = r.next_u32();
            let d: Vec<bool> = (0..24).map(|_| r.chance(50)).collect();
            let bit = |name: &str| -> bool {
                if let Some(j) = name.strip_prefix("s[") {
                    return s >> j.trim_end_matches(']').parse::<u32>().unwrap() & 1 == 1;
                }
                d[names.iter().position(|n| n == name).unwrap()]
            };
            let got = net.iter().enumerate().fold(0u32, |acc, (i, e)| {
                let b = e.split(" ^ ").fold(false, |x, t| x ^ (t != "1'b0" && bit(t)));
                acc | u32::from(b) << i
            });
            assert_eq!(got, crc_step(s, &d));
        }
    }
}
