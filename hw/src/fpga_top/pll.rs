//! The board's PLL: the vendor primitive behind `` `ifdef SYNTHESIS `` (yosys defines it),
//! a pass-through clock for Verilator and Icarus, so one simulated cycle is one core cycle.
//! Its settings come from the board table's solvers ([`tilerast_golden::board`]).

use rust_hdl::prelude::*;
use tilerast_golden::board::{ecp5_pll, ice40_pll, Board, PllKind};

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
