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
//! Modules: [`flow`] (steps, tools, the per-board flow, per-block synthesis and place and
//! route), [`wrap`] (the generated registered-IO wrapper that gives each block module its own
//! Fmax), [`report`] (parsing nextpnr/yosys JSON, the Markdown tables, the README sections),
//! [`postsim`] (gate-level simulation of the synthesized core against the golden cycle model).
//!
//! Errors are [`FlowError`]: one line naming the file / step / field, never a panic.

pub mod flow;
pub mod postsim;
pub mod report;
pub mod wrap;

use std::fmt;
use std::path::{Path, PathBuf};

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

/// The board table is golden's (one table for the tops, the flows and the host); the flow adds
/// only how to find a board's Verilog.
pub use tilerast_golden::board::{Board, Family, BOARDS};

/// Top module name of `board` (`tilerast_top_<board>`).
pub fn top(board: &Board) -> String {
    tilerast_hw::fpga_top::top_name(board.name)
}

/// The files of top `stem` under `root/rtl-out/`, from its list `<stem>.f` (dependencies
/// first, the top's own file last): what yosys, Verilator and Icarus read for that top.
pub fn rtl_sources(root: &Path, stem: &str) -> Result<Vec<PathBuf>, FlowError> {
    tilerast_hw::package::read_file_list(&root.join("rtl-out"), stem).map_err(FlowError)
}

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
