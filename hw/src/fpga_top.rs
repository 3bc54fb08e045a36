//! fpga_top: the FPGA top for a board: PLL, UART, frame parser, command buffer in block RAM,
//! raster_core, quad counter + CRC, responder and status LEDs. Emitted per board by `gen-rtl`
//! to `rtl-out/tilerast_top_<board>.v` (top module `tilerast_top_<board>`). The protocol is
//! documented in `hw/README.md` ("FPGA top and UART protocol"); its pure host-side code is
//! `tilerast_golden::protocol`.
//!
//! ```text
//!  clk ─► Pll ─► clock (all logic)
//!                ┌────────┐ byte ┌────────┐ 27-byte record ┌─────────┐ cmd  ┌─────────────┐ beats
//!  uart_rx ────► │ UartRx │─────►│ parser │───────────────►│ CmdRam  │─────►│ raster_core │──┬──► QuadCheck
//!                └────────┘      │ (A5 op │  exec: PING,   │ (BRAM,  │ full │             │  │  (count, CRC,
//!                                │ len …  │  LOAD, CLEAR,  │ 216 bit)│ rate └─────────────┘  │   pos sum)
//!                                │ chk)   │  RUN           └─────────┘           stream mode │
//!                ┌────────┐      └───┬────┘                                                  ▼
//!  uart_tx ◄──── │ UartTx │◄──── responder (DESC, ACK, ERROR, RESULT, QUAD frames) ◄──────────┘
//!                └────────┘
//!  led[0] heartbeat, led[1] frame being received, led[2] running, led[3] last command failed
//! ```
//!
//! **Ports.** `clk` (board oscillator), `uart_rx` (from the host), `uart_tx` (to the host),
//! `led[3:0]` (active high). The PLL (`SB_PLL40_PAD` on iCEBreaker, `SB_PLL40_CORE` on the
//! HX8K board, `EHXPLLL` on ULX3S) sits behind `` `ifdef SYNTHESIS `` (yosys defines it);
//! Verilator and Icarus see a pass-through clock, so one simulated cycle is one core cycle.
//!
//! **Run timing.** RUN flushes the core for one cycle (PRIME), then offers command 0 and keeps
//! `cmd_valid` high until every loaded command was accepted: the buffer is read one entry ahead
//! (`raddr = rp + accept`) so back-to-back accepts need no bubble. The cycle counter counts
//! from the first cycle `cmd_valid` is high to the cycle the last command's `last` beat moves,
//! inclusive; in count mode `out_ready` is always high, so it equals the cycle model's count
//! (`protocol::expect_run`). In stream mode the UART back-pressures the core (one QUAD frame
//! per quad), so the count then includes the stalls.
//!
//! **Area.** Beyond the core: the control registers, counters and UART, the CRC XOR network
//! (32 × (32 + Q·4·S) inputs at most, only Q·4·S data bits wide), the response word
//! multiplexer (frames are laid out in 32-bit words) and the command buffer in block RAM,
//! written 16 bits at a time as bytes arrive (no record-wide shift register).
//!
//! **Narrowed command fields.** The core gets the buffer index as its primitive id (log2 of
//! the capacity bits; QUAD frames map it back through a second, 24-bit read port of the
//! buffer), tiles beyond the grid saturated to 2^k − 1, sizes saturated at 2^k − 1 ≥ max point
//! size · 256, and vertices sign-extended from `setup::mul_operand_bits` (the host's front end
//! keeps them inside the guard band). All exact for what the host sends; the constant high
//! bits let yosys drop them from every register of the core. Measured sizes and Fmax of the
//! tops: only the generated table in the README's "FPGA" section (`tilerast synth --table`).

use crate::raster_core::RasterCore;
use crate::tile_parser::Sext24;
use crate::uart::{UartRx, UartTx};
use rust_hdl::prelude::*;
use std::fmt::Write as _;
use tilerast_golden::protocol::{self, Crc32};
use tilerast_golden::Config;

/// PLL primitive of a board.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum PllKind {
    /// iCE40 `SB_PLL40_PAD` (input from the PLL's dedicated pad).
    Ice40Pad,
    /// iCE40 `SB_PLL40_CORE` (input from the fabric / a global buffer).
    Ice40Core,
    /// ECP5 `EHXPLLL`.
    Ecp5,
}

/// One row of the board table.
#[derive(Clone, Copy, Debug)]
pub struct Board {
    /// Board name (`rtl-out/tilerast_top_<name>.v`).
    pub name: &'static str,
    /// Config preset of the raster core.
    pub preset: &'static str,
    /// Oscillator frequency on `clk`, Hz.
    pub osc_hz: u32,
    /// PLL output target, Hz (the achieved value is [`Board::clock_hz`]).
    pub pll_hz: u32,
    /// UART baud rate.
    pub baud: u32,
    /// Command buffer entries (a power of two).
    pub capacity: u32,
    pub pll: PllKind,
}

/// PLL output target of the iCEBreaker (iCE40 UP5K), Hz. The goal is 48 MHz; the ice40_1x core
/// with the UART top stays below it on the UP5K (its critical path is the core's combinational
/// ready chain through every block to setup; measured Fmax: the README's "FPGA" table), so the
/// board runs at 18 MHz (12 MHz · 48 / 32, exact; UART divisor 18).
pub const ICEBREAKER_PLL_HZ: u32 = 18_000_000;
/// PLL output target of the iCE40-HX8K breakout board, Hz. The goal is 75 MHz; on the HX8K
/// both the ice40_1x core and the 4x ice40 core (`--preset ice40`) stay below it (measured
/// Fmax: the README's "FPGA" table), so the board runs at 42 MHz, which both meet with room for
/// nextpnr's seed-to-seed spread.
pub const HX8K_PLL_HZ: u32 = 42_000_000;
/// PLL output target of the ULX3S (ECP5-85F), Hz. The goal is 100 MHz; the routed `full` core
/// stays below it on the 85F (measured Fmax: the README's "FPGA" table), so the board runs
/// at 25 MHz until its blocks are pipelined.
pub const ULX3S_PLL_HZ: u32 = 25_000_000;

/// The board table (order = board index in the PING descriptor, `protocol::BOARDS`).
pub const BOARDS: &[Board] = &[
    Board {
        name: "icebreaker",
        preset: "ice40_1x",
        osc_hz: 12_000_000,
        pll_hz: ICEBREAKER_PLL_HZ,
        baud: protocol::DEFAULT_BAUD,
        capacity: 256,
        pll: PllKind::Ice40Pad,
    },
    Board {
        name: "hx8k",
        preset: "ice40_1x",
        osc_hz: 12_000_000,
        pll_hz: HX8K_PLL_HZ,
        baud: protocol::DEFAULT_BAUD,
        capacity: 256,
        pll: PllKind::Ice40Core,
    },
    Board {
        name: "ulx3s",
        preset: "full",
        osc_hz: 25_000_000,
        pll_hz: ULX3S_PLL_HZ,
        baud: protocol::DEFAULT_BAUD,
        capacity: 1024,
        pll: PllKind::Ecp5,
    },
];

/// Look a board up by name.
pub fn board(name: &str) -> Result<&'static Board, String> {
    BOARDS.iter().find(|b| b.name == name).ok_or_else(|| {
        format!(
            "unknown board `{name}` (known: {})",
            BOARDS.iter().map(|b| b.name).collect::<Vec<_>>().join(", ")
        )
    })
}

/// iCE40 PLL settings (SIMPLE feedback): fout = fin · (DIVF+1) / ((DIVR+1) · 2^DIVQ).
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct Ice40Pll {
    pub divr: u32,
    pub divf: u32,
    pub divq: u32,
    pub filter_range: u32,
    pub hz: u64,
}

/// The iCE40 PLL setting closest to `target` (PFD 10–133 MHz, VCO 533–1066 MHz), like icepll.
pub fn ice40_pll(fin: u32, target: u32) -> Ice40Pll {
    let mut best: Option<Ice40Pll> = None;
    for divr in 0..16u32 {
        let pfd = fin as f64 / (divr + 1) as f64;
        if !(10e6..=133e6).contains(&pfd) {
            continue;
        }
        for divf in 0..128u32 {
            let vco = pfd * (divf + 1) as f64;
            if !(533e6..=1066e6).contains(&vco) {
                continue;
            }
            for divq in 1..7u32 {
                let f = vco / (1u32 << divq) as f64;
                let hz = f.round() as u64;
                if best.is_none_or(|b| (hz as i64 - target as i64).abs() < (b.hz as i64 - target as i64).abs()) {
                    let filter_range = match pfd {
                        p if p < 17e6 => 1,
                        p if p < 26e6 => 2,
                        p if p < 44e6 => 3,
                        p if p < 66e6 => 4,
                        p if p < 101e6 => 5,
                        _ => 6,
                    };
                    best = Some(Ice40Pll {
                        divr,
                        divf,
                        divq,
                        filter_range,
                        hz,
                    });
                }
            }
        }
    }
    best.expect("some iCE40 PLL setting exists")
}

/// ECP5 EHXPLLL settings (CLKOP feedback): fout = fin · CLKFB_DIV / CLKI_DIV, VCO = fout · CLKOP_DIV.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct Ecp5Pll {
    pub clki_div: u32,
    pub clkfb_div: u32,
    pub clkop_div: u32,
    pub hz: u64,
}

/// The ECP5 PLL setting closest to `target` (PFD 3.125–400 MHz, VCO 400–800 MHz), like ecppll.
pub fn ecp5_pll(fin: u32, target: u32) -> Ecp5Pll {
    let mut best: Option<Ecp5Pll> = None;
    for clki_div in 1..=128u32 {
        let pfd = fin as f64 / clki_div as f64;
        if !(3.125e6..=400e6).contains(&pfd) {
            continue;
        }
        for clkfb_div in 1..=80u32 {
            let f = pfd * clkfb_div as f64;
            for clkop_div in 1..=128u32 {
                let vco = f * clkop_div as f64;
                if !(400e6..=800e6).contains(&vco) {
                    continue;
                }
                let hz = f.round() as u64;
                if best.is_none_or(|b| (hz as i64 - target as i64).abs() < (b.hz as i64 - target as i64).abs()) {
                    best = Some(Ecp5Pll {
                        clki_div,
                        clkfb_div,
                        clkop_div,
                        hz,
                    });
                }
            }
        }
    }
    best.expect("some ECP5 PLL setting exists")
}

impl Board {
    /// Core clock the PLL achieves, Hz.
    pub fn clock_hz(&self) -> u64 {
        match self.pll {
            PllKind::Ice40Pad | PllKind::Ice40Core => ice40_pll(self.osc_hz, self.pll_hz).hz,
            PllKind::Ecp5 => ecp5_pll(self.osc_hz, self.pll_hz).hz,
        }
    }
    /// Clock cycles per UART bit.
    pub fn uart_div(&self) -> u32 {
        ((self.clock_hz() + self.baud as u64 / 2) / self.baud as u64) as u32
    }
    /// Index in [`BOARDS`].
    pub fn index(&self) -> usize {
        BOARDS.iter().position(|b| b.name == self.name).unwrap()
    }
    /// The raster core's config.
    pub fn config(&self) -> Config {
        Config::preset(self.preset).expect("board preset exists")
    }
}

/// `Block` for the wrapper blocks below, which carry non-signal configuration fields
/// (`#[derive(LogicBlock)]` wants every field to be a block): lists the signal fields.
macro_rules! wrapper_block {
    ($t:ty; $($f:ident),*) => {
        impl Block for $t {
            fn connect_all(&mut self) {
                self.connect();
                $(self.$f.connect_all();)*
            }
            fn update_all(&mut self) {
                self.update();
                $(self.$f.update_all();)*
            }
            fn has_changed(&self) -> bool {
                false $(|| self.$f.has_changed())*
            }
            fn accept(&self, name: &str, probe: &mut dyn Probe) {
                probe.visit_start_scope(name, self);
                $(self.$f.accept(stringify!($f), probe);)*
                probe.visit_end_scope(name, self);
            }
        }
    };
}

// ---------------------------------------------------------------------------------------------
// PLL (vendor black box behind `ifdef SYNTHESIS`, pass-through otherwise).

/// The board's PLL: `clock_in` (oscillator) → `clock_out` (core clock), `locked`.
pub struct Pll {
    /// Oscillator.
    pub clock_in: Signal<In, Clock>,
    /// Core clock.
    pub clock_out: Signal<Out, Clock>,
    /// PLL locked (always 1 in simulation).
    pub locked: Signal<Out, Bit>,
    board: Board,
}

impl Pll {
    /// The PLL of `board`.
    pub fn new(board: &Board) -> Self {
        Pll {
            clock_in: Default::default(),
            clock_out: Default::default(),
            locked: Default::default(),
            board: *board,
        }
    }
}

wrapper_block!(Pll; clock_in, clock_out, locked);

impl Logic for Pll {
    fn update(&mut self) {
        self.clock_out.next = self.clock_in.val();
        self.locked.next = true;
    }
    fn connect(&mut self) {
        self.clock_out.connect();
        self.locked.connect();
    }
    fn hdl(&self) -> Verilog {
        let b = &self.board;
        let inst = match b.pll {
            PllKind::Ice40Pad | PllKind::Ice40Core => {
                let p = ice40_pll(b.osc_hz, b.pll_hz);
                let (cell, pin) = if b.pll == PllKind::Ice40Pad {
                    ("SB_PLL40_PAD", "PACKAGEPIN")
                } else {
                    ("SB_PLL40_CORE", "REFERENCECLK")
                };
                format!(
                    "    // {} Hz -> {} Hz (target {})\n    {cell} #(.FEEDBACK_PATH(\"SIMPLE\"), .DIVR(4'd{}), .DIVF(7'd{}), .DIVQ(3'd{}), .FILTER_RANGE(3'd{}))\n        pll_i (.{pin}(clock_in), .PLLOUTGLOBAL(clock_out), .LOCK(locked), .RESETB(1'b1), .BYPASS(1'b0));\n",
                    b.osc_hz, p.hz, b.pll_hz, p.divr, p.divf, p.divq, p.filter_range
                )
            }
            PllKind::Ecp5 => {
                let p = ecp5_pll(b.osc_hz, b.pll_hz);
                format!(
                    "    // {} Hz -> {} Hz (target {})\n    wire clkop;\n    (* FREQUENCY_PIN_CLKI=\"{}\" *) (* FREQUENCY_PIN_CLKOP=\"{}\" *)\n    (* ICP_CURRENT=\"12\" *) (* LPF_RESISTOR=\"8\" *) (* MFG_ENABLE_FILTEROPAMP=\"1\" *) (* MFG_GMCREF_SEL=\"2\" *)\n    EHXPLLL #(.PLLRST_ENA(\"DISABLED\"), .INTFB_WAKE(\"DISABLED\"), .STDBY_ENABLE(\"DISABLED\"), .DPHASE_SOURCE(\"DISABLED\"),\n        .OUTDIVIDER_MUXA(\"DIVA\"), .CLKI_DIV({}), .CLKOP_ENABLE(\"ENABLED\"), .CLKOP_DIV({}), .CLKOP_CPHASE({}),\n        .CLKOP_FPHASE(0), .FEEDBK_PATH(\"CLKOP\"), .CLKFB_DIV({}))\n        pll_i (.RST(1'b0), .STDBY(1'b0), .CLKI(clock_in), .CLKOP(clkop), .CLKFB(clkop), .PHASESEL0(1'b0),\n        .PHASESEL1(1'b0), .PHASEDIR(1'b1), .PHASESTEP(1'b1), .PHASELOADREG(1'b1), .PLLWAKESYNC(1'b0),\n        .ENCLKOP(1'b0), .LOCK(locked));\n    assign clock_out = clkop;\n",
                    b.osc_hz,
                    p.hz,
                    b.pll_hz,
                    b.osc_hz / 1_000_000,
                    p.hz / 1_000_000,
                    p.clki_div,
                    p.clkop_div,
                    (p.clkop_div - 1) / 2,
                    p.clkfb_div
                )
            }
        };
        Verilog::Wrapper(Wrapper {
            code: format!(
                "`ifdef SYNTHESIS\n{inst}`else\n    // Simulation: the oscillator is the core clock.\n    assign clock_out = clock_in;\n    assign locked = 1'b1;\n`endif\n"
            ),
            cores: String::new(),
        })
    }
}

// ---------------------------------------------------------------------------------------------
// Command buffer: simple dual-port RAM, one 216-bit record per entry, registered read.

/// Width of a stored command record (27 bytes).
pub const REC_BITS: usize = protocol::CMD_BYTES * 8;

/// 16-bit write lanes of a record (the last one holds only byte 26).
pub const REC_LANES: usize = protocol::CMD_BYTES.div_ceil(2);

/// Command buffer: one record per entry, written 16 bits at a time (`we`, `wlane`, `waddr`,
/// `wdata`: lane k = record bytes 2k, 2k+1), read whole (`raddr` → `rdata` one cycle later).
/// `capacity` entries; address bits above log2(capacity) are ignored. One memory per lane, so
/// each maps to block RAM (iCE40: 256 × 16 per EBR) and the parser needs no record-wide
/// shift register. `no_rw_check`: the top never reads an entry in the cycle it writes it
/// (writes happen only while no run is going on), so yosys need not emulate read-during-write
/// ordering in logic (without it, yosys 0.23 added ~440 flip-flops of bypass logic on iCE40).
pub struct CmdRam {
    /// Clock.
    pub clock: Signal<In, Clock>,
    /// Write enable.
    pub we: Signal<In, Bit>,
    /// Lane written (0..REC_LANES).
    pub wlane: Signal<In, Bits<4>>,
    /// Write address.
    pub waddr: Signal<In, Bits<10>>,
    /// Write data: byte 2k in bits 7..0, byte 2k+1 in bits 15..8.
    pub wdata: Signal<In, Bits<16>>,
    /// Read address.
    pub raddr: Signal<In, Bits<10>>,
    /// Record at last cycle's `raddr` (byte k in bits 8k+7..8k).
    pub rdata: Signal<Out, Bits<REC_BITS>>,
    /// Second read port, for the primitive id only (record bytes 1..=3).
    pub praddr: Signal<In, Bits<10>>,
    /// Primitive id of the record at last cycle's `praddr`.
    pub prdata: Signal<Out, Bits<24>>,
    capacity: usize,
    mem: Vec<Bits<REC_BITS>>,
    rd: Bits<REC_BITS>,
    prd: Bits<24>,
}

impl CmdRam {
    /// A buffer of `capacity` records (power of two, 2..=1024).
    pub fn new(capacity: usize) -> Self {
        assert!(capacity.is_power_of_two() && (2..=1024).contains(&capacity));
        CmdRam {
            clock: Default::default(),
            we: Default::default(),
            wlane: Default::default(),
            waddr: Default::default(),
            wdata: Default::default(),
            raddr: Default::default(),
            rdata: Default::default(),
            praddr: Default::default(),
            prdata: Default::default(),
            capacity,
            mem: vec![Bits::default(); capacity],
            rd: Bits::default(),
            prd: Bits::default(),
        }
    }
}

wrapper_block!(CmdRam; clock, we, wlane, waddr, wdata, raddr, rdata, praddr, prdata);

impl Logic for CmdRam {
    fn update(&mut self) {
        if self.clock.pos_edge() {
            let m = self.capacity - 1;
            self.rd = self.mem[self.raddr.val().index() & m];
            self.prd = self.mem[self.praddr.val().index() & m].get_bits::<24>(8);
            let lane = self.wlane.val().index();
            if self.we.val() && lane < REC_LANES {
                let e = &mut self.mem[self.waddr.val().index() & m];
                let d = self.wdata.val();
                e.set_bits::<8>(16 * lane, d.get_bits::<8>(0));
                if 16 * lane + 16 <= REC_BITS {
                    e.set_bits::<8>(16 * lane + 8, d.get_bits::<8>(8));
                }
            }
        }
        self.rdata.next = self.rd;
        self.prdata.next = self.prd;
    }
    fn connect(&mut self) {
        self.rdata.connect();
        self.prdata.connect();
    }
    fn hdl(&self) -> Verilog {
        let a = self.capacity.trailing_zeros() as usize;
        let mut v = format!(
            "    // {} records of {REC_BITS} bits in {REC_LANES} lane memories (simple dual port, registered read).\n",
            self.capacity
        );
        let mut cat = Vec::new();
        for k in 0..REC_LANES {
            let w = (REC_BITS - 16 * k).min(16);
            let _ = writeln!(
                v,
                "    (* no_rw_check *) reg [{w1}:0] m{k} [0:{c1}];\n    reg [{w1}:0] r{k};\n    always @(posedge clock) begin\n        if (we && wlane == 4'd{k}) m{k}[waddr[{a1}:0]] <= wdata[{w1}:0];\n        r{k} <= m{k}[raddr[{a1}:0]];\n    end",
                w1 = w - 1,
                c1 = self.capacity - 1,
                a1 = a - 1
            );
            cat.push(format!("r{k}"));
        }
        cat.reverse();
        let _ = writeln!(v, "    assign rdata = {{{}}};", cat.join(", "));
        // The primitive-id port: copies of record bytes 1 (lane 0) and 2..=3 (lane 1).
        let _ = writeln!(
            v,
            "    (* no_rw_check *) reg [7:0] p0 [0:{c1}];\n    (* no_rw_check *) reg [15:0] p1 [0:{c1}];\n    reg [7:0] q0;\n    reg [15:0] q1;\n    always @(posedge clock) begin\n        if (we && wlane == 4'd0) p0[waddr[{a1}:0]] <= wdata[15:8];\n        if (we && wlane == 4'd1) p1[waddr[{a1}:0]] <= wdata;\n        q0 <= p0[praddr[{a1}:0]];\n        q1 <= p1[praddr[{a1}:0]];\n    end\n    assign prdata = {{q1, q0}};",
            c1 = self.capacity - 1,
            a1 = a - 1
        );
        if a < 10 {
            let _ = writeln!(
                v,
                "    wire unused_ok = &{{1'b0, waddr[9:{a}], raddr[9:{a}], praddr[9:{a}], 1'b0}};"
            );
        }
        Verilog::Wrapper(Wrapper {
            code: v,
            cores: String::new(),
        })
    }
}

// ---------------------------------------------------------------------------------------------
// Quad counter, CRC-32 of the masks and position sum over the transferred beats.

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

/// Raw CRC-32 register after feeding `n` bits of `data` (bit 0 first) into state `s`.
fn crc_step(s: u32, data: &[bool]) -> u32 {
    let mut c = Crc32(s);
    for &b in data {
        c.bits(b as u64, 1);
    }
    c.0
}

/// Verilog of the next CRC register after `k` lanes of `m` mask bits: one XOR per output bit.
fn crc_network(k: usize, m: usize) -> Vec<String> {
    let n = k * m;
    (0..32)
        .map(|i| {
            let mut terms = Vec::new();
            for j in 0..32 {
                if crc_step(1 << j, &vec![false; n]) >> i & 1 == 1 {
                    terms.push(format!("st[{j}]"));
                }
            }
            for d in 0..n {
                let mut v = vec![false; n];
                v[d] = true;
                if crc_step(0, &v) >> i & 1 == 1 {
                    terms.push(format!("mask_{}[{}]", d / m, d % m));
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

// ---------------------------------------------------------------------------------------------
// The top.

/// Build a constant from little-endian bytes.
fn bytes_const<const N: usize>(bytes: &[u8]) -> Bits<N> {
    let mut b = Bits::<N>::default();
    for (i, &v) in bytes.iter().enumerate() {
        b.set_bits::<8>(8 * i, (v as u64).into());
    }
    b
}

/// The FPGA top of one board (see the file header for the block diagram and timing).
#[derive(LogicBlock)]
pub struct FpgaTop {
    /// Board oscillator.
    pub clk: Signal<In, Clock>,
    /// Serial line from the host.
    pub uart_rx: Signal<In, Bit>,
    /// Serial line to the host.
    pub uart_tx: Signal<Out, Bit>,
    /// Status LEDs (active high): 0 heartbeat, 1 receiving a frame, 2 running, 3 error.
    pub led: Signal<Out, Bits<4>>,
    pll: Pll,
    urx: UartRx,
    utx: UartTx,
    ram: CmdRam,
    raster_core: RasterCore,
    check: QuadCheck,
    clock: Signal<Local, Clock>,
    // Frame parser.
    ps: DFF<Bits<3>>,
    op: DFF<Bits<8>>,
    len: DFF<Bits<16>>,
    sum: DFF<Bits<8>>,
    len0: DFF<Bit>,
    len1: DFF<Bit>,
    rb: DFF<Bits<5>>,
    wp: DFF<Bits<11>>,
    ovf: DFF<Bit>,
    lo: DFF<Bits<8>>,
    mode: DFF<Bits<8>>,
    uerr: DFF<Bit>,
    tmo: DFF<Bits<21>>,
    tflag: DFF<Bit>,
    count: DFF<Bits<11>>,
    // Run.
    rs: DFF<Bits<2>>,
    stream: DFF<Bit>,
    rp: DFF<Bits<11>>,
    lasts: DFF<Bits<11>>,
    cyc: DFF<Bits<32>>,
    ln: DFF<Bits<2>>,
    sent: DFF<Bit>,
    /// Stream mode: the core's `out_ready`, registered (high for one cycle after the beat's
    /// last QUAD frame was queued), so that no combinational path runs from the responder
    /// into the core's ready chain.
    pop: DFF<Bit>,
    // Responder.
    tk: DFF<Bits<3>>,
    ti: DFF<Bits<5>>,
    tsum: DFF<Bits<8>>,
    ecode: DFF<Bits<8>>,
    eop: DFF<Bits<8>>,
    hb: DFF<Bits<26>>,
    errled: DFF<Bit>,
    // Combinational.
    b: Signal<Local, Bits<8>>,
    bv: Signal<Local, Bit>,
    in_frame: Signal<Local, Bit>,
    lenfull: Signal<Local, Bits<16>>,
    wlane: Signal<Local, Bits<5>>,
    cmd_valid: Signal<Local, Bit>,
    accept: Signal<Local, Bit>,
    rnext: Signal<Local, Bits<11>>,
    lasts1: Signal<Local, Bits<11>>,
    lv_sh: Signal<Local, Bits<4>>,
    lane_ok: Signal<Local, Bit>,
    out_rdy: Signal<Local, Bit>,
    xfer: Signal<Local, Bit>,
    running: Signal<Local, Bit>,
    sel_qx: Signal<Local, Bits<12>>,
    sel_qy: Signal<Local, Bits<12>>,
    sel_mask: Signal<Local, Bits<64>>,
    wi: Signal<Local, Bits<5>>,
    word: Signal<Local, Bits<32>>,
    word_sh: Signal<Local, Bits<32>>,
    bshift: Signal<Local, Bits<8>>,
    tbyte: Signal<Local, Bits<8>>,
    tlast: Signal<Local, Bits<5>>,
    // Constants.
    h_desc: Constant<Bits<32>>,
    h_ack: Constant<Bits<32>>,
    h_err: Constant<Bits<32>>,
    h_res: Constant<Bits<32>>,
    h_quad: Constant<Bits<32>>,
    d_w1: Constant<Bits<32>>,
    d_w2: Constant<Bits<32>>,
    d_w3: Constant<Bits<32>>,
    c_w1: Constant<Bits<5>>,
    c_w2: Constant<Bits<5>>,
    c_w3: Constant<Bits<5>>,
    c_w4: Constant<Bits<5>>,
    t_desc: Constant<Bits<5>>,
    t_short: Constant<Bits<5>>,
    t_res: Constant<Bits<5>>,
    t_quad: Constant<Bits<5>>,
    p_sync: Constant<Bits<3>>,
    p_op: Constant<Bits<3>>,
    p_len0: Constant<Bits<3>>,
    p_len1: Constant<Bits<3>>,
    p_pay: Constant<Bits<3>>,
    p_chk: Constant<Bits<3>>,
    p_exec: Constant<Bits<3>>,
    r_idle: Constant<Bits<2>>,
    r_prime: Constant<Bits<2>>,
    r_run: Constant<Bits<2>>,
    r_done: Constant<Bits<2>>,
    k_none: Constant<Bits<3>>,
    k_desc: Constant<Bits<3>>,
    k_ack: Constant<Bits<3>>,
    k_err: Constant<Bits<3>>,
    k_res: Constant<Bits<3>>,
    k_quad: Constant<Bits<3>>,
    o_ping: Constant<Bits<8>>,
    o_load: Constant<Bits<8>>,
    o_clear: Constant<Bits<8>>,
    o_run: Constant<Bits<8>>,
    e_checksum: Constant<Bits<8>>,
    e_opcode: Constant<Bits<8>>,
    e_length: Constant<Bits<8>>,
    e_capacity: Constant<Bits<8>>,
    e_uart: Constant<Bits<8>>,
    e_timeout: Constant<Bits<8>>,
    e_mode: Constant<Bits<8>>,
    c_sync: Constant<Bits<8>>,
    c_rec_last: Constant<Bits<5>>,
    c_cap: Constant<Bits<11>>,
    /// Tile saturation per axis: 2^k − 1 ≥ the number of tiles (an index beyond the grid).
    c_tsat_x: Constant<Bits<8>>,
    c_tsat_y: Constant<Bits<8>>,
    /// Size saturation: 2^k − 1 ≥ max point size · 256.
    c_ssat: Constant<Bits<24>>,
    tx: Signal<Local, Bits<8>>,
    ty: Signal<Local, Bits<8>>,
    vraw: [Signal<Local, Bits<24>>; 6],
    /// The six vertex coordinates, sign-extended from bit `setup::mul_operand_bits` − 1.
    sx_v: [Sext24; 6],
    sz: Signal<Local, Bits<24>>,
    /// capacity − 1: the bits of a buffer index.
    c_idx: Constant<Bits<24>>,
    c_qm1: Constant<Bits<2>>,
    c_l1: Constant<Bits<2>>,
    c_l2: Constant<Bits<2>>,
    c_l3: Constant<Bits<2>>,
    c_one16: Constant<Bits<16>>,
    c_one8: Constant<Bits<8>>,
    c_zero8: Constant<Bits<8>>,
    c_zero4: Constant<Bits<4>>,
}

impl FpgaTop {
    /// The top for `board`.
    pub fn new(board: &Board) -> Self {
        let cfg = board.config();
        let q = cfg.quads_per_clock as usize;
        let preset = tilerast_golden::PRESETS
            .iter()
            .position(|p| *p == board.preset)
            .unwrap() as u8;
        let div = board.uart_div();
        let vbits = crate::setup::mul_operand_bits(&cfg);
        // Smallest 2^k − 1 ≥ v.
        let sat = |v: u64| (v + 1).next_power_of_two() - 1;
        let cap = board.capacity as u16;
        let desc = [
            protocol::SYNC_BOARD,
            protocol::T_DESC,
            protocol::DESC_BYTES as u8,
            0,
            b'T',
            b'R',
            protocol::VERSION,
            board.index() as u8,
            preset,
            cfg.msaa as u8,
            q as u8,
            cap as u8,
            (cap >> 8) as u8,
            0,
            0,
            ((board.clock_hz() + 500_000) / 1_000_000) as u8,
        ];
        let hdr = |t: u8, n: usize| [protocol::SYNC_BOARD, t, n as u8, 0];
        let k3 = |v: u64| Constant::new(Bits::<3>::from(v));
        let k2 = |v: u64| Constant::new(Bits::<2>::from(v));
        let k8 = |v: u8| Constant::new(Bits::<8>::from(v as u64));
        let k5 = |v: usize| Constant::new(Bits::<5>::from(v as u64));
        FpgaTop {
            clk: Default::default(),
            uart_rx: Default::default(),
            uart_tx: Default::default(),
            led: Default::default(),
            pll: Pll::new(board),
            urx: UartRx::new(div),
            utx: UartTx::new(div),
            ram: CmdRam::new(board.capacity as usize),
            raster_core: RasterCore::new(&cfg),
            check: QuadCheck::new(q, 4 * cfg.msaa as usize),
            clock: Default::default(),
            ps: Default::default(),
            op: Default::default(),
            len: Default::default(),
            sum: Default::default(),
            len0: Default::default(),
            len1: Default::default(),
            rb: Default::default(),
            wp: Default::default(),
            ovf: Default::default(),
            lo: Default::default(),
            mode: Default::default(),
            uerr: Default::default(),
            tmo: Default::default(),
            tflag: Default::default(),
            count: Default::default(),
            rs: Default::default(),
            stream: Default::default(),
            rp: Default::default(),
            lasts: Default::default(),
            cyc: Default::default(),
            ln: Default::default(),
            sent: Default::default(),
            pop: Default::default(),
            tk: Default::default(),
            ti: Default::default(),
            tsum: Default::default(),
            ecode: Default::default(),
            eop: Default::default(),
            hb: Default::default(),
            errled: Default::default(),
            b: Default::default(),
            bv: Default::default(),
            in_frame: Default::default(),
            lenfull: Default::default(),
            wlane: Default::default(),
            cmd_valid: Default::default(),
            accept: Default::default(),
            rnext: Default::default(),
            lasts1: Default::default(),
            lv_sh: Default::default(),
            lane_ok: Default::default(),
            out_rdy: Default::default(),
            xfer: Default::default(),
            running: Default::default(),
            sel_qx: Default::default(),
            sel_qy: Default::default(),
            sel_mask: Default::default(),
            wi: Default::default(),
            word: Default::default(),
            word_sh: Default::default(),
            bshift: Default::default(),
            tbyte: Default::default(),
            tlast: Default::default(),
            h_desc: Constant::new(bytes_const(&hdr(protocol::T_DESC, protocol::DESC_BYTES))),
            h_ack: Constant::new(bytes_const(&hdr(protocol::T_ACK, 2))),
            h_err: Constant::new(bytes_const(&hdr(protocol::T_ERROR, 2))),
            h_res: Constant::new(bytes_const(&hdr(protocol::T_RESULT, protocol::RESULT_BYTES))),
            h_quad: Constant::new(bytes_const(&hdr(protocol::T_QUAD, protocol::quad_bytes(cfg.msaa)))),
            d_w1: Constant::new(bytes_const(&desc[4..8])),
            d_w2: Constant::new(bytes_const(&desc[8..12])),
            d_w3: Constant::new(bytes_const(&desc[12..16])),
            c_w1: k5(1),
            c_w2: k5(2),
            c_w3: k5(3),
            c_w4: k5(4),
            t_desc: k5(4 + protocol::DESC_BYTES),
            t_short: k5(4 + 2),
            t_res: k5(4 + protocol::RESULT_BYTES),
            t_quad: k5(4 + protocol::quad_bytes(cfg.msaa)),
            p_sync: k3(0),
            p_op: k3(1),
            p_len0: k3(2),
            p_len1: k3(3),
            p_pay: k3(4),
            p_chk: k3(5),
            p_exec: k3(6),
            r_idle: k2(0),
            r_prime: k2(1),
            r_run: k2(2),
            r_done: k2(3),
            k_none: k3(0),
            k_desc: k3(1),
            k_ack: k3(2),
            k_err: k3(3),
            k_res: k3(4),
            k_quad: k3(5),
            o_ping: k8(protocol::OP_PING),
            o_load: k8(protocol::OP_LOAD),
            o_clear: k8(protocol::OP_CLEAR),
            o_run: k8(protocol::OP_RUN),
            e_checksum: k8(protocol::E_CHECKSUM),
            e_opcode: k8(protocol::E_OPCODE),
            e_length: k8(protocol::E_LENGTH),
            e_capacity: k8(protocol::E_CAPACITY),
            e_uart: k8(protocol::E_UART),
            e_timeout: k8(protocol::E_TIMEOUT),
            e_mode: k8(protocol::E_MODE),
            c_sync: k8(protocol::SYNC_HOST),
            c_rec_last: k5(protocol::CMD_BYTES - 1),
            c_cap: Constant::new((board.capacity as u64).into()),
            c_tsat_x: Constant::new(sat(cfg.tiles()[0] as u64).into()),
            c_tsat_y: Constant::new(sat(cfg.tiles()[1] as u64).into()),
            c_ssat: Constant::new(sat(cfg.max_point_size as u64 * 256).into()),
            tx: Default::default(),
            ty: Default::default(),
            vraw: Default::default(),
            sx_v: std::array::from_fn(|_| Sext24::new(vbits)),
            sz: Default::default(),
            c_idx: Constant::new((board.capacity as u64 - 1).into()),
            c_qm1: k2(q as u64 - 1),
            c_l1: k2(1),
            c_l2: k2(2),
            c_l3: k2(3),
            c_one16: Constant::new(1u64.into()),
            c_one8: k8(1),
            c_zero8: k8(0),
            c_zero4: Constant::new(0u64.into()),
        }
    }
}

// Nested ifs mirror the frame layout (kind, then word); collapsing them changes the Verilog.
#[allow(clippy::collapsible_if)]
impl Logic for FpgaTop {
    #[hdl_gen]
    fn update(&mut self) {
        self.pll.clock_in.next = self.clk.val();
        self.clock.next = self.pll.clock_out.val();
        dff_setup!(
            self, clock, ps, op, len, sum, len0, len1, rb, wp, ovf, lo, mode, uerr, tmo, tflag, count, rs, stream, rp,
            lasts, cyc, ln, sent, pop, tk, ti, tsum, ecode, eop, hb, errled
        );
        clock!(self, clock, urx, utx, ram, raster_core, check);
        self.urx.rx.next = self.uart_rx.val();
        self.uart_tx.next = self.utx.tx.val();
        self.hb.d.next = self.hb.q.val() + 1u64;
        self.running.next = self.rs.q.val() != self.r_idle.val();

        // ---- Command feed: the buffer is read one entry ahead (raddr = rp + accept).
        self.cmd_valid.next = (self.rs.q.val() == self.r_run.val()) & (self.rp.q.val() != self.count.q.val());
        self.accept.next = self.cmd_valid.val() & self.raster_core.cmd_ready.val();
        self.rnext.next = self.rp.q.val();
        if self.accept.val() {
            self.rnext.next = self.rp.q.val() + 1u64;
        }
        self.rp.d.next = self.rnext.val();
        self.ram.raddr.next = self.rnext.val().get_bits::<10>(0);
        self.ram.praddr.next = self.raster_core.out_prim.val().get_bits::<10>(0);
        self.raster_core.cmd_valid.next = self.cmd_valid.val();
        self.raster_core.cmd_kind.next = self.ram.rdata.val().get_bit(0);
        self.raster_core.cmd_aa.next = self.ram.rdata.val().get_bit(1);
        // The core sees the buffer index as the primitive id (only log2(capacity) bits, so
        // yosys drops the constant upper bits of every prim register in the core); QUAD frames
        // map it back through the buffer's second read port.
        self.raster_core.cmd_prim.next = bit_cast::<24, 11>(self.rp.q.val()) & self.c_idx.val();
        // Fields narrowed to what the preset can use, exactly (constant high bits let yosys
        // drop them in every register of the core): a tile beyond the grid is saturated to
        // `c_tsat` (still beyond it, so the command stays empty); vertices are sign-extended
        // from the multiplier operand width (the host's front end keeps them inside the guard
        // band, `Config::guard_limits_fx`); a size beyond `c_ssat` (≥ max point size · 256,
        // where the point rasterizer clamps) is saturated to it. Every `c_*sat` is 2^k − 1, so
        // "beyond" is an OR of the high bits (a LUT tree, not a carry chain behind the RAM).
        self.tx.next = self.ram.rdata.val().get_bits::<8>(32);
        if (self.tx.val() & !self.c_tsat_x.val()).any() {
            self.tx.next = self.c_tsat_x.val();
        }
        self.ty.next = self.ram.rdata.val().get_bits::<8>(40);
        if (self.ty.val() & !self.c_tsat_y.val()).any() {
            self.ty.next = self.c_tsat_y.val();
        }
        self.raster_core.cmd_tile_x.next = self.tx.val();
        self.raster_core.cmd_tile_y.next = self.ty.val();
        for k in 0..6 {
            self.vraw[k].next = self.ram.rdata.val().get_bits::<24>(48 + 24 * k);
            self.sx_v[k].x.next = signed_cast(self.vraw[k].val());
        }
        self.raster_core.cmd_v0x.next = self.sx_v[0].y.val();
        self.raster_core.cmd_v0y.next = self.sx_v[1].y.val();
        self.raster_core.cmd_v1x.next = self.sx_v[2].y.val();
        self.raster_core.cmd_v1y.next = self.sx_v[3].y.val();
        self.raster_core.cmd_v2x.next = self.sx_v[4].y.val();
        self.raster_core.cmd_v2y.next = self.sx_v[5].y.val();
        self.sz.next = self.ram.rdata.val().get_bits::<24>(192);
        if (self.sz.val() & !self.c_ssat.val()).any() {
            self.sz.next = self.c_ssat.val();
        }
        self.raster_core.cmd_size.next = self.sz.val();

        // ---- Output side: count mode always ready; stream mode one QUAD frame per valid lane,
        // then `pop` (registered: the cycle after) takes the beat; the core holds a valid beat
        // until it is taken, and the lane walk waits while `pop` is high.
        self.lv_sh.next = self.raster_core.out_lane_valid.val() >> self.ln.q.val();
        self.lane_ok.next = self.lv_sh.val().get_bit(0);
        self.pop.d.next = false;
        if (self.rs.q.val() == self.r_run.val())
            & self.stream.q.val()
            & self.raster_core.out_valid.val()
            & !self.pop.q.val()
            & (self.tk.q.val() == self.k_none.val())
        {
            if self.lane_ok.val() & !self.sent.q.val() {
                self.tk.d.next = self.k_quad.val();
                self.sent.d.next = true;
            } else {
                self.sent.d.next = false;
                if self.ln.q.val() == self.c_qm1.val() {
                    self.pop.d.next = true;
                    self.ln.d.next = 0u64.into();
                } else {
                    self.ln.d.next = self.ln.q.val() + 1u64;
                }
            }
        }
        self.out_rdy.next = (self.rs.q.val() == self.r_run.val()) & !self.stream.q.val();
        if self.stream.q.val() {
            self.out_rdy.next = self.pop.q.val();
        }
        self.raster_core.out_ready.next = self.out_rdy.val();
        self.xfer.next = self.raster_core.out_valid.val() & self.out_rdy.val();
        self.raster_core.flush.next = (self.rs.q.val() == self.r_prime.val()) | !self.pll.locked.val();
        self.check.clear.next = self.rs.q.val() == self.r_prime.val();
        self.check.en.next = self.xfer.val();
        self.check.lane_valid.next = self.raster_core.out_lane_valid.val();
        self.check.mask_0.next = self.raster_core.out_mask_0.val();
        self.check.mask_1.next = self.raster_core.out_mask_1.val();
        self.check.mask_2.next = self.raster_core.out_mask_2.val();
        self.check.mask_3.next = self.raster_core.out_mask_3.val();
        self.check.qx_0.next = self.raster_core.out_qx_0.val();
        self.check.qx_1.next = self.raster_core.out_qx_1.val();
        self.check.qx_2.next = self.raster_core.out_qx_2.val();
        self.check.qx_3.next = self.raster_core.out_qx_3.val();
        self.check.qy_0.next = self.raster_core.out_qy_0.val();
        self.check.qy_1.next = self.raster_core.out_qy_1.val();
        self.check.qy_2.next = self.raster_core.out_qy_2.val();
        self.check.qy_3.next = self.raster_core.out_qy_3.val();

        // ---- Run state.
        self.lasts1.next = self.lasts.q.val() + 1u64;
        if self.rs.q.val() == self.r_prime.val() {
            self.rs.d.next = self.r_run.val();
            if !self.count.q.val().any() {
                self.rs.d.next = self.r_done.val();
            }
        }
        if self.rs.q.val() == self.r_run.val() {
            self.cyc.d.next = self.cyc.q.val() + 1u64;
            if self.xfer.val() & self.raster_core.out_last.val() {
                self.lasts.d.next = self.lasts1.val();
                if self.lasts1.val() == self.count.q.val() {
                    self.rs.d.next = self.r_done.val();
                }
            }
        }
        if (self.rs.q.val() == self.r_done.val()) & (self.tk.q.val() == self.k_none.val()) {
            self.tk.d.next = self.k_res.val();
            self.rs.d.next = self.r_idle.val();
        }

        // ---- Responder: byte `ti` of the frame of kind `tk`; the last byte is the checksum.
        self.sel_qx.next = self.raster_core.out_qx_0.val();
        self.sel_qy.next = self.raster_core.out_qy_0.val();
        self.sel_mask.next = self.raster_core.out_mask_0.val();
        if self.ln.q.val() == self.c_l1.val() {
            self.sel_qx.next = self.raster_core.out_qx_1.val();
            self.sel_qy.next = self.raster_core.out_qy_1.val();
            self.sel_mask.next = self.raster_core.out_mask_1.val();
        }
        if self.ln.q.val() == self.c_l2.val() {
            self.sel_qx.next = self.raster_core.out_qx_2.val();
            self.sel_qy.next = self.raster_core.out_qy_2.val();
            self.sel_mask.next = self.raster_core.out_mask_2.val();
        }
        if self.ln.q.val() == self.c_l3.val() {
            self.sel_qx.next = self.raster_core.out_qx_3.val();
            self.sel_qy.next = self.raster_core.out_qy_3.val();
            self.sel_mask.next = self.raster_core.out_mask_3.val();
        }
        // Frames are laid out in 32-bit words (word 0 = header); word wi = ti / 4, byte ti % 4.
        self.wi.next = self.ti.q.val() >> 2u64;
        self.word.next = self.h_ack.val();
        self.tlast.next = self.t_short.val();
        if self.tk.q.val() == self.k_desc.val() {
            self.tlast.next = self.t_desc.val();
            self.word.next = self.h_desc.val();
            if self.wi.val() == self.c_w1.val() {
                self.word.next = self.d_w1.val();
            }
            if self.wi.val() == self.c_w2.val() {
                self.word.next = self.d_w2.val();
            }
            if self.wi.val() == self.c_w3.val() {
                self.word.next = self.d_w3.val() | (bit_cast::<32, 11>(self.count.q.val()) << 8u64);
            }
        }
        if self.tk.q.val() == self.k_ack.val() {
            if self.wi.val() == self.c_w1.val() {
                self.word.next = bit_cast::<32, 11>(self.count.q.val());
            }
        }
        if self.tk.q.val() == self.k_err.val() {
            self.word.next = self.h_err.val();
            if self.wi.val() == self.c_w1.val() {
                self.word.next = bit_cast::<32, 8>(self.ecode.q.val()) | (bit_cast::<32, 8>(self.eop.q.val()) << 8u64);
            }
        }
        if self.tk.q.val() == self.k_res.val() {
            self.tlast.next = self.t_res.val();
            self.word.next = self.h_res.val();
            if self.wi.val() == self.c_w1.val() {
                self.word.next = bit_cast::<32, 24>(self.check.quads.val());
            }
            if self.wi.val() == self.c_w2.val() {
                self.word.next = self.check.crc.val();
            }
            if self.wi.val() == self.c_w3.val() {
                self.word.next = self.cyc.q.val();
            }
            if self.wi.val() == self.c_w4.val() {
                self.word.next = bit_cast::<32, 24>(self.check.pos_sum.val());
            }
            if self.wi.val() > self.c_w4.val() {
                self.word.next = bit_cast::<32, 11>(self.count.q.val());
            }
        }
        if self.tk.q.val() == self.k_quad.val() {
            self.tlast.next = self.t_quad.val();
            self.word.next = self.h_quad.val();
            if self.wi.val() == self.c_w1.val() {
                self.word.next = bit_cast::<32, 24>(self.ram.prdata.val());
            }
            if self.wi.val() == self.c_w2.val() {
                self.word.next =
                    bit_cast::<32, 12>(self.sel_qx.val()) | (bit_cast::<32, 12>(self.sel_qy.val()) << 16u64);
            }
            if self.wi.val() == self.c_w3.val() {
                self.word.next = self.sel_mask.val().get_bits::<32>(0);
            }
            if self.wi.val() == self.c_w4.val() {
                self.word.next = self.sel_mask.val().get_bits::<32>(32);
            }
        }
        self.bshift.next = bit_cast::<8, 2>(self.ti.q.val().get_bits::<2>(0)) << 3u64;
        self.word_sh.next = self.word.val() >> self.bshift.val();
        self.tbyte.next = self.word_sh.val().get_bits::<8>(0);
        if self.ti.q.val() == self.tlast.val() {
            self.tbyte.next = self.c_zero8.val() - self.tsum.q.val();
        }
        self.utx.data.next = self.tbyte.val();
        self.utx.in_valid.next = self.tk.q.val() != self.k_none.val();
        if (self.tk.q.val() != self.k_none.val()) & self.utx.in_ready.val() {
            self.ti.d.next = self.ti.q.val() + 1u64;
            if self.ti.q.val().any() {
                self.tsum.d.next = self.tsum.q.val() + self.tbyte.val();
            }
            if self.ti.q.val() == self.tlast.val() {
                self.tk.d.next = self.k_none.val();
                self.ti.d.next = 0u64.into();
                self.tsum.d.next = 0u64.into();
            }
        }

        // ---- Frame parser (bytes are dropped while a run or a response to a frame is pending).
        self.b.next = self.urx.data.val();
        self.bv.next = self.urx.valid.val()
            & self.pll.locked.val()
            & (self.rs.q.val() == self.r_idle.val())
            & (self.ps.q.val() != self.p_exec.val());
        self.in_frame.next = (self.ps.q.val() != self.p_sync.val()) & (self.ps.q.val() != self.p_exec.val());
        // Record byte rb: even bytes wait in `lo`, odd bytes write lane rb/2 = {b, lo}; the
        // last byte (26, even) writes lane 13 alone. Nothing is written past the capacity.
        self.wlane.next = self.rb.q.val() >> 1u64;
        self.lenfull.next = self.len.q.val() | (bit_cast::<16, 8>(self.b.val()) << 8u64);
        self.ram.wdata.next = (bit_cast::<16, 8>(self.b.val()) << 8u64) | bit_cast::<16, 8>(self.lo.q.val());
        if self.rb.q.val() == self.c_rec_last.val() {
            self.ram.wdata.next = bit_cast::<16, 8>(self.b.val());
        }
        self.ram.wlane.next = self.wlane.val().get_bits::<4>(0);
        self.ram.waddr.next = self.wp.q.val().get_bits::<10>(0);
        self.ram.we.next = false;
        if self.bv.val() {
            if self.ps.q.val() == self.p_sync.val() {
                if self.b.val() == self.c_sync.val() {
                    self.ps.d.next = self.p_op.val();
                    self.sum.d.next = 0u64.into();
                    self.uerr.d.next = false;
                    self.tflag.d.next = false;
                }
            } else if self.ps.q.val() == self.p_op.val() {
                self.op.d.next = self.b.val();
                self.sum.d.next = self.b.val();
                self.ps.d.next = self.p_len0.val();
            } else if self.ps.q.val() == self.p_len0.val() {
                self.len.d.next = bit_cast::<16, 8>(self.b.val());
                self.sum.d.next = self.sum.q.val() + self.b.val();
                self.ps.d.next = self.p_len1.val();
            } else if self.ps.q.val() == self.p_len1.val() {
                self.len.d.next = self.lenfull.val();
                self.sum.d.next = self.sum.q.val() + self.b.val();
                self.len0.d.next = !self.lenfull.val().any();
                self.len1.d.next = self.lenfull.val() == self.c_one16.val();
                self.rb.d.next = 0u64.into();
                self.wp.d.next = self.count.q.val();
                self.ovf.d.next = false;
                self.ps.d.next = self.p_pay.val();
                if !self.lenfull.val().any() {
                    self.ps.d.next = self.p_chk.val();
                }
            } else if self.ps.q.val() == self.p_pay.val() {
                self.sum.d.next = self.sum.q.val() + self.b.val();
                self.len.d.next = self.len.q.val() - 1u64;
                self.lo.d.next = self.b.val();
                self.mode.d.next = self.b.val();
                if self.op.q.val() == self.o_load.val() {
                    self.rb.d.next = self.rb.q.val() + 1u64;
                    self.ram.we.next = (self.rb.q.val().get_bit(0) | (self.rb.q.val() == self.c_rec_last.val()))
                        & (self.wp.q.val() != self.c_cap.val());
                    if self.rb.q.val() == self.c_rec_last.val() {
                        self.rb.d.next = 0u64.into();
                        if self.wp.q.val() == self.c_cap.val() {
                            self.ovf.d.next = true;
                        } else {
                            self.wp.d.next = self.wp.q.val() + 1u64;
                        }
                    }
                }
                if self.len.q.val() == self.c_one16.val() {
                    self.ps.d.next = self.p_chk.val();
                }
            } else {
                self.sum.d.next = self.sum.q.val() + self.b.val();
                self.ps.d.next = self.p_exec.val();
            }
        }
        // A UART framing error inside a frame abandons it at once (answered with E_UART).
        if self.urx.frame_err.val() & self.in_frame.val() {
            self.uerr.d.next = true;
            self.ps.d.next = self.p_exec.val();
        }
        // Inter-byte timeout inside a frame.
        self.tmo.d.next = 0u64.into();
        if self.in_frame.val() & !self.bv.val() {
            self.tmo.d.next = self.tmo.q.val() + 1u64;
            if self.tmo.q.val().get_bit(20) {
                self.tmo.d.next = 0u64.into();
                self.tflag.d.next = true;
                self.ps.d.next = self.p_exec.val();
            }
        }

        // ---- Execute a complete frame (once the responder is free and no run is going on).
        if (self.ps.q.val() == self.p_exec.val())
            & (self.tk.q.val() == self.k_none.val())
            & (self.rs.q.val() == self.r_idle.val())
        {
            self.ps.d.next = self.p_sync.val();
            self.eop.d.next = self.op.q.val();
            self.tk.d.next = self.k_err.val();
            self.errled.d.next = true;
            self.ecode.d.next = self.e_opcode.val();
            if self.tflag.q.val() {
                self.ecode.d.next = self.e_timeout.val();
            } else if self.uerr.q.val() {
                self.ecode.d.next = self.e_uart.val();
            } else if self.sum.q.val().any() {
                self.ecode.d.next = self.e_checksum.val();
            } else if self.op.q.val() == self.o_ping.val() {
                self.ecode.d.next = self.e_length.val();
                if self.len0.q.val() {
                    self.tk.d.next = self.k_desc.val();
                    self.errled.d.next = false;
                }
            } else if self.op.q.val() == self.o_clear.val() {
                self.ecode.d.next = self.e_length.val();
                if self.len0.q.val() {
                    self.count.d.next = 0u64.into();
                    self.tk.d.next = self.k_ack.val();
                    self.errled.d.next = false;
                }
            } else if self.op.q.val() == self.o_load.val() {
                if self.rb.q.val().any() {
                    self.ecode.d.next = self.e_length.val();
                } else if self.ovf.q.val() {
                    self.ecode.d.next = self.e_capacity.val();
                } else {
                    self.count.d.next = self.wp.q.val();
                    self.tk.d.next = self.k_ack.val();
                    self.errled.d.next = false;
                }
            } else if self.op.q.val() == self.o_run.val() {
                if !self.len1.q.val() {
                    self.ecode.d.next = self.e_length.val();
                } else if self.mode.q.val() > self.c_one8.val() {
                    self.ecode.d.next = self.e_mode.val();
                } else {
                    self.rs.d.next = self.r_prime.val();
                    self.stream.d.next = self.mode.q.val().get_bit(0);
                    self.rp.d.next = 0u64.into();
                    self.lasts.d.next = 0u64.into();
                    self.cyc.d.next = 0u64.into();
                    self.ln.d.next = 0u64.into();
                    self.sent.d.next = false;
                    self.tk.d.next = self.k_none.val();
                    self.errled.d.next = false;
                }
            }
        }

        // ---- LEDs.
        self.led.next = self
            .c_zero4
            .val()
            .replace_bit(0, self.hb.q.val().get_bit(25))
            .replace_bit(1, self.in_frame.val())
            .replace_bit(2, self.running.val())
            .replace_bit(3, self.errled.q.val());
    }
}

/// Top module name of a board's FPGA top.
pub fn top_name(board: &str) -> String {
    format!("tilerast_top_{board}")
}

/// File name of a board's FPGA top in `rtl-out/`.
pub fn rtl_file_name(board: &str) -> String {
    format!("tilerast_top_{board}.v")
}

/// The Verilog files, relative to `rtl-out/`, that together define a board's top: its raster
/// core's preset file (module `tilerast_<preset>`), then the top itself, which instantiates
/// that core by name instead of carrying a copy. Every tool reads both.
pub fn rtl_sources(board: &Board) -> [String; 2] {
    [crate::rtl_file_name(board.preset), rtl_file_name(board.name)]
}

/// The full text of `rtl-out/tilerast_top_<board>.v`: the top's own modules; its `raster_core`
/// instance is the module `tilerast_<preset>` of `rtl-out/tilerast_<preset>.v`
/// ([`rtl_sources`]). Generation checks that the core the top was built with equals that
/// module, submodule for submodule, before leaving its copy out.
pub fn rtl_file(board: &Board) -> String {
    let mut top = FpgaTop::new(board);
    top.connect_all();
    let name = top_name(board.name);
    let full = crate::emit::fix_verilog(&crate::emit::generate_verilog_named(&top, &name));
    let cfg = board.config();
    let core = crate::top_name(board.preset);
    let core_text = crate::raster_core::verilog(&cfg, &core);
    let body = crate::emit::use_external(&full, &name, "raster_core", &core, &core_text)
        .unwrap_or_else(|e| panic!("FPGA top {}: {e}", board.name));
    format!(
        "// generated by `cargo run -p tilerast-hw --bin gen-rtl` — do not edit\n\
         // FPGA top for board {}: preset {} ({}x MSAA, Q = {}), PLL {} Hz -> {} Hz (target {}), UART {} baud\n\
         // (divisor {}), {} command records; protocol: hw/README.md \"FPGA top and UART protocol\"\n\
         // top module: {}; its raster_core instance is module {} from {} (read both files)\n{}",
        board.name,
        board.preset,
        cfg.msaa,
        cfg.quads_per_clock,
        board.osc_hz,
        board.clock_hz(),
        board.pll_hz,
        board.baud,
        board.uart_div(),
        board.capacity,
        name,
        core,
        crate::rtl_file_name(board.preset),
        body
    )
}
