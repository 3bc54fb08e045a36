//! `tilerast synth`: the FPGA flows of `tilerast-fpga` from the command line.
//!
//! ```text
//!  synth --board B            yosys → nextpnr → icepack/ecppack, report  (target/fpga/<board>/)
//!  synth --board B --config F [--set k=v]   the same around any supported config's core
//!  synth --board ulx3s --frame   the board top with a screen (GPU, SDRAM, DVI), every clock vs its PLL frequency (target/fpga/<board>-frame/)
//!                             (core + top written to target/fpga/<board>-<name>/)
//!  synth --blocks [--board B] [--preset P] [--no-pnr] [--pnr-timeout S] [--only B1,B2]   each block alone
//!                             (sizes), then placed and routed in a generated registered-IO
//!                             wrapper for its Fmax (target/fpga/blocks-<preset>-<device>/)
//!  synth --postsim [--board B] [--preset P] [--quick]   gate-level netlist vs golden cycle model
//!  synth --postsim --frame [--board ulx3s] [--preset P] [--prims N] [--frames K] [--quick]
//!                             the whole frame top's netlist (ECP5) vs FrameCycle + cosim memory
//!  synth --table [--update-readme]           tables of every report under target/fpga/
//!                             (docs/measurements.md gets each between its own markers)
//! ```
//!
//! Every tool step prints the command line that reproduces it; errors are one line (exit 1).

use crate::error::{CliError, Res};
use clap::Args;
use std::io::Write;
use std::path::PathBuf;
use tilerast_fpga::{flow, postsim, report, FlowError};

/// The document whose generated tables `--table --update-readme` rewrites (relative to the
/// repository root; `fpga/tests/flow.rs` checks its markers).
const MEASUREMENTS: &str = "docs/measurements.md";

/// Options of `tilerast synth`.
#[derive(Args, Debug)]
pub struct SynthArgs {
    /// Board: icebreaker, hx8k or ulx3s (runs the whole flow; with --blocks or --postsim: whose
    /// synthesis to use, nothing else).
    #[arg(long)]
    pub board: Option<String>,
    /// Synthesize each block module of the preset (raster core blocks, the whole core, the
    /// pixel-side blocks) separately and tabulate the sizes; then place and route each in a
    /// generated registered-IO wrapper at the board's Fmax goal and tabulate its Fmax.
    #[arg(long)]
    pub blocks: bool,
    /// With --blocks: sizes only (synthesis), no place and route, no Fmax.
    #[arg(long, requires = "blocks")]
    pub no_pnr: bool,
    /// With --blocks: stop one block's place and route after this many seconds and record it
    /// as not done (0: no limit).
    #[arg(long, value_name = "SECS", requires = "blocks", default_value_t = flow::BLOCK_PNR_LIMIT_SECS)]
    pub pnr_timeout: u64,
    /// With --blocks: measure only these blocks (comma-separated row names, e.g.
    /// `setup,blender`); the other rows of the last run's blocks.json stay.
    #[arg(long, value_name = "BLOCKS", requires = "blocks", value_delimiter = ',')]
    pub only: Vec<String>,
    /// Post-synthesis simulation of the preset's raster core against the golden cycle model,
    /// synthesized as --board's flow does it (default icebreaker, preset: the board's, or ice40).
    #[arg(long)]
    pub postsim: bool,
    /// Print the table of every report under target/fpga/ (and write target/fpga/table.md).
    #[arg(long)]
    pub table: bool,
    /// With --table: rewrite the generated tables of docs/measurements.md (the measurements
    /// moved there from README.md; the flag kept its name), the boards' between the fpga-table
    /// markers, the board tops with a screen (`--frame`) between the fpga-frame-table markers
    /// and the blocks' between the fpga-blocks markers (added to its FPGA section if missing);
    /// a table with no reports under target/fpga/ keeps its old text.
    #[arg(long, requires = "table")]
    pub update_readme: bool,
    /// Preset for --blocks / --postsim (default: the board's, or ice40); with --board, the
    /// board's top is generated around this preset's core under target/fpga/<board>-<preset>/.
    #[arg(long)]
    pub preset: Option<String>,
    /// With --board: the board's top around the core of this config (a JSON object as
    /// `tilerast rtl --config` takes), under target/fpga/<board>-<name>/.
    #[arg(long, value_name = "FILE", requires = "board")]
    pub config: Option<PathBuf>,
    /// With --board: override one config field (repeatable), as `tilerast rtl --set`; the base
    /// is --preset, --config or the board's preset.
    #[arg(long = "set", value_name = "FIELD=VALUE", requires = "board")]
    pub set: Vec<String>,
    /// With --postsim: shortened runs (a quick check, not the regression).
    #[arg(long)]
    pub quick: bool,
    /// With --board ulx3s: the board top with a screen (rtl-out/tilerast_top_<board>_frame.v:
    /// the GPU, the SDRAM, the DVI output) through the board's flow, every clock domain against
    /// its PLL frequency, into target/fpga/<board>-frame/. With --postsim: the whole frame top
    /// (rtl-out/tilerast_frame_<preset>.v) instead of the raster core, synthesized by the ULX3S
    /// flow (synth_ecp5; the only board its RAMs fit), against FrameCycle with the cosim memory
    /// behind its port; preset default ice40_1x.
    #[arg(long)]
    pub frame: bool,
    /// With --postsim --frame: primitives per random frame (default 8; --quick 1, as the test).
    #[arg(long, value_name = "N")]
    pub prims: Option<u64>,
    /// With --postsim --frame: random frames run back to back (default 2; --quick 1).
    #[arg(long, value_name = "K")]
    pub frames: Option<usize>,
    /// Development override: Verilog sources instead of rtl-out/tilerast_top_<board>.v.
    #[arg(long, value_name = "FILE")]
    pub verilog: Vec<PathBuf>,
    /// Development override: top module.
    #[arg(long)]
    pub top: Option<String>,
    /// Development override: constraints file.
    #[arg(long, value_name = "FILE")]
    pub constraints: Option<PathBuf>,
    /// nextpnr seed.
    #[arg(long)]
    pub seed: Option<u64>,
    /// Skip synthesis if its outputs in target/fpga/<board>/ are newer than the sources.
    #[arg(long)]
    pub reuse_synth: bool,
    /// Exit 0 when the only failure is that the design needs more logic cells than the device
    /// has (the report is written either way). Any other failure still exits 1. CI uses it:
    /// the flow must run, the fit is a goal recorded in the report.
    #[arg(long)]
    pub allow_no_fit: bool,
}

fn fe(e: FlowError) -> CliError {
    CliError(e.0)
}

/// Run `tilerast synth`.
pub fn run(a: &SynthArgs, out: &mut dyn Write) -> Res<()> {
    let root = tilerast_fpga::repo_root();
    let board = a.board.as_deref().map(tilerast_fpga::board).transpose().map_err(fe)?;
    if (a.prims.is_some() || a.frames.is_some()) && !a.frame {
        return Err(CliError("--prims / --frames: only with --postsim --frame".into()));
    }
    if a.frame && !a.postsim {
        // The board top with a screen: its own file list, pins and output directory.
        let Some(b) = board else {
            return Err(CliError(
                "--frame: give --board (a board with a frame row: ulx3s), or --postsim for the frame top's post-synthesis simulation".into(),
            ));
        };
        if a.preset.is_some() || a.config.is_some() || !a.set.is_empty() || !a.verilog.is_empty() {
            return Err(CliError(
                "--frame: the board top is built at its frame row's preset; --preset, --config, --set and --verilog do not apply".into(),
            ));
        }
        let mut opts = flow::frame_variant(b, &root).map_err(fe)?;
        opts.seed = a.seed;
        opts.reuse_synth = a.reuse_synth;
        if let Some(t) = &a.top {
            opts.top = Some(t.clone());
        }
        if let Some(c) = &a.constraints {
            opts.constraints = Some(c.clone());
        }
        flow::run_board(b, &root, &opts, out).map_err(fe)?;
        return Ok(());
    }
    if a.frame {
        if let Some(b) = board.filter(|b| b.name != "ulx3s") {
            return Err(CliError(format!(
                "--frame: --board {}: the frame top is synthesized with the ULX3S flow only (give --board ulx3s or no --board)",
                b.name
            )));
        }
        if a.prims == Some(0) || a.frames == Some(0) {
            return Err(CliError("--prims / --frames: must be >= 1".into()));
        }
    }
    let mut did = false;
    if a.blocks {
        let b = board.unwrap_or(&tilerast_fpga::BOARDS[0]);
        let preset = a.preset.clone().unwrap_or_else(|| b.preset.to_string());
        let o = flow::BlockOpts {
            pnr: !a.no_pnr,
            seed: a.seed,
            pnr_limit: Some(std::time::Duration::from_secs(a.pnr_timeout)).filter(|_| a.pnr_timeout > 0),
            only: a.only.clone(),
        };
        flow::synth_blocks(b, &preset, &root, &o, out).map_err(fe)?;
        did = true;
    } else if let Some(b) = board.filter(|_| !a.postsim) {
        let mut opts = flow::FlowOpts {
            verilog: a.verilog.clone(),
            top: a.top.clone(),
            constraints: a.constraints.clone(),
            out_dir: None,
            seed: a.seed,
            preset: a.preset.clone(),
            reuse_synth: a.reuse_synth,
            every_clock: false,
        };
        let custom = if a.config.is_some() || !a.set.is_empty() {
            if !a.verilog.is_empty() {
                return Err(CliError("--config / --set: not with --verilog".into()));
            }
            let cfg = crate::rtl::resolve(a.preset.as_deref(), b.preset, a.config.as_deref(), &a.set, None)?;
            Some(cfg).filter(|c| tilerast_golden::Config::preset(&c.name).ok().as_ref() != Some(c))
        } else {
            None
        };
        if let Some(cfg) = &custom {
            // Any supported config's core on this board: core and top under target/fpga/<board>-<name>/.
            let v = flow::config_variant(b, cfg, &crate::rtl::command_line(), &root).map_err(fe)?;
            opts.verilog = v.verilog;
            opts.out_dir = v.out_dir;
            opts.preset = v.preset;
        } else if let Some(p) = a.preset.as_deref().filter(|p| *p != b.preset && a.verilog.is_empty()) {
            // Another preset's core on this board: a generated top under target/fpga/<board>-<preset>/.
            let v = flow::preset_variant(b, p, &root).map_err(fe)?;
            opts.verilog = v.verilog;
            opts.out_dir = v.out_dir;
        }
        let out_dir = opts
            .out_dir
            .clone()
            .unwrap_or_else(|| root.join("target/fpga").join(b.name));
        match flow::run_board(b, &root, &opts, out) {
            Ok(_) => {}
            Err(e) if a.allow_no_fit => {
                let p = out_dir.join("report.json");
                let r: Option<report::Report> = std::fs::read_to_string(&p)
                    .ok()
                    .and_then(|t| serde_json::from_str(&t).ok());
                match r.as_ref().and_then(|r| r.lc.map(|u| (u, r.failure.is_some()))) {
                    Some((u, true)) if u.used > u.available => {
                        let _ = writeln!(
                            out,
                            "synth {}: DOES NOT FIT: {} of {} logic cells ({:.0} %); report in {} (--allow-no-fit: exit 0)",
                            b.name,
                            u.used,
                            u.available,
                            100.0 * u.used as f64 / u.available as f64,
                            p.display()
                        );
                    }
                    _ => return Err(fe(e)),
                }
            }
            Err(e) => return Err(fe(e)),
        }
        did = true;
    }
    if a.postsim && a.frame {
        let b = tilerast_fpga::board("ulx3s").map_err(fe)?;
        let preset = a.preset.clone().unwrap_or_else(|| "ice40_1x".into());
        let prims = a.prims.unwrap_or(if a.quick { 1 } else { 8 });
        let frames = a.frames.unwrap_or(if a.quick { 1 } else { 2 });
        let s = postsim::run_frame(&root, &preset, b, prims, frames, out).map_err(fe)?;
        let _ = writeln!(out, "{}", s.line(&preset, b.device));
        did = true;
    } else if a.postsim {
        let b = board.unwrap_or(&tilerast_fpga::BOARDS[0]);
        let preset = a
            .preset
            .clone()
            .unwrap_or_else(|| board.map_or("ice40", |b| b.preset).into());
        let s = postsim::run_core(&root, &preset, b, if a.quick { 0.25 } else { 1.0 }, out).map_err(fe)?;
        let cycles: u64 = s.runs.iter().map(|r| r.1.cycles).sum();
        let quads: u64 = s.runs.iter().map(|r| r.1.quads).sum();
        let _ = writeln!(
            out,
            "postsim {preset} ({} synthesis): PASS, {} runs, {cycles} cycles, {quads} quads equal to the golden model on every \
             output word every cycle (synthesis {:.0} s, simulation {:.0} s)",
            b.device,
            s.runs.len(),
            s.synth_secs,
            s.sim_secs
        );
        did = true;
    }
    if a.table {
        let reports = report::load_reports(&root).map_err(fe)?;
        let frame_reports = report::load_frame_reports(&root).map_err(fe)?;
        let blocks = report::load_blocks(&root).map_err(fe)?;
        if reports.is_empty() && frame_reports.is_empty() && blocks.is_empty() {
            return Err(CliError(
                "target/fpga: no reports yet (run `tilerast synth --board <board>` first)".into(),
            ));
        }
        let boards = Some(report::table_markdown(&reports)).filter(|_| !reports.is_empty());
        let frames = Some(report::frame_table_markdown(&frame_reports)).filter(|_| !frame_reports.is_empty());
        let blocks = Some(report::blocks_markdown(&blocks)).filter(|_| !blocks.is_empty());
        let t = [boards.as_deref(), frames.as_deref(), blocks.as_deref()]
            .into_iter()
            .flatten()
            .collect::<Vec<_>>()
            .join("\n\n");
        let p = root.join("target/fpga/table.md");
        std::fs::write(&p, format!("{t}\n")).map_err(|e| CliError::at(p.display(), "write", e))?;
        let _ = writeln!(out, "{t}");
        if a.update_readme {
            let rp = root.join(MEASUREMENTS);
            let text = std::fs::read_to_string(&rp).map_err(|e| CliError::at(rp.display(), "read", e))?;
            let new = report::update_readme(
                &text,
                boards.as_deref(),
                frames.as_deref(),
                blocks.as_deref(),
                MEASUREMENTS,
            )
            .map_err(fe)?;
            std::fs::write(&rp, new).map_err(|e| CliError::at(rp.display(), "write", e))?;
            let what: Vec<&str> = [
                (boards.is_some(), "board table"),
                (frames.is_some(), "board-top-with-a-screen table"),
                (blocks.is_some(), "block table"),
            ]
            .into_iter()
            .filter_map(|(y, w)| y.then_some(w))
            .collect();
            let _ = writeln!(out, "updated {MEASUREMENTS} ({})", what.join(", "));
        }
        did = true;
    }
    if !did {
        return Err(CliError(
            "synth: nothing to do (give --board B, --blocks, --postsim or --table)".into(),
        ));
    }
    Ok(())
}
