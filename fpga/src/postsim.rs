//! Post-synthesis simulation: the raster core as yosys synthesizes it for the board (the same
//! `synth_*` command as the flow, [`crate::flow::synth_command`]), written back as a gate-level
//! Verilog netlist (`write_verilog -noattr`), simulated with yosys's technology cell models by
//! Icarus Verilog or Verilator (whichever [`Simulator::for_netlist`] expects to finish first),
//! and compared with the golden cycle model on EVERY output word on EVERY cycle.
//!
//! ```text
//!  scenes / random frame ─► commands ─► cosim::Driver (RasterCoreCycle) ─► in.hex + exp.hex
//!  rtl-out/tilerast_<p>.f ─► yosys synth_ice40 | synth_ecp5; write_verilog -noattr ─► netlist.v
//!  fpga/tb/postsim_tb.v + core_adapter.v (generated) + netlist.v + <share>/ice40/cells_sim.v
//!           (ECP5: <share>/ecp5/cells_sim.v + fpga/tb/ecp5_mult18x18d.v + ecp5_dp16kd.v)
//!      ─► iverilog | verilator --binary ─► +in=… +exp=… +cycles=N
//!      ─► `PASS cycles=N quads=Q` or the first `MISMATCH …`
//! ```
//!
//! The pixel back end ([`run_back_end`]) goes the same way with an adapter generated from its
//! port table (`BlockDesc::adapter_verilog`) and vectors from `tilerast_cosim::back_end`
//! (`PixelBackEndCycle` with the cosim memory model behind the memory port, every cycle).
//!
//! Why: simulation of the RTL and the synthesized design can disagree (e.g. yosys 0.23 reads a
//! range-less signed localparam as unsigned; `fpga/tb/lp_bug.v` and `tests/postsim.rs` show
//! that RTL simulation passes while this flow fails on exactly that).

use crate::flow::{shell_quote, synth_command, Step};
use crate::{Family, FlowError};
use std::fmt::Write as _;
use std::io::Write;
use std::path::{Path, PathBuf};
use tilerast_cosim::{Driver, Ready, Stimulus, BATCH, IN_W, OUT_W};
use tilerast_golden::pipeline::commands;
use tilerast_golden::scene::{Frame, Scene};
use tilerast_golden::streams::Cmd;
use tilerast_golden::{Config, PointFx, PrimitiveFx, TriangleFx};

/// Per-cycle input and expected output words of one run.
#[derive(Debug, Clone, Default)]
pub struct Vectors {
    /// [`IN_W`] words per cycle.
    pub inp: Vec<u32>,
    /// [`OUT_W`] words per cycle.
    pub exp: Vec<u32>,
}

impl Vectors {
    /// Cycles in the run.
    pub fn cycles(&self) -> usize {
        self.inp.len() / IN_W
    }
    /// Quads transferred (lane_valid bits of beats with out_valid and out_ready), counted the
    /// way the testbench counts them.
    pub fn quads(&self) -> u64 {
        (0..self.cycles())
            .filter_map(|k| {
                let (_, _, out_ready, _) = tilerast_cosim::decode_in(&self.inp[k * IN_W..(k + 1) * IN_W]);
                let (_, out_valid, b) = tilerast_cosim::decode_out(&self.exp[k * OUT_W..(k + 1) * OUT_W]);
                (out_ready && out_valid).then_some(b.lane_valid.count_ones() as u64)
            })
            .sum()
    }
}

/// Writes `dir/core_adapter.v`, the testbench's adapter for core module `top`, generated from
/// the co-simulation's port table (never written by hand), and returns it with the defines the
/// testbench needs for it (`TR_CORE`, and where to find out_ready, out_valid and lane_valid to
/// count quads).
pub fn core_adapter(dir: &Path, top: &str) -> Result<(PathBuf, Vec<String>), FlowError> {
    let adapter = dir.join("core_adapter.v");
    std::fs::write(&adapter, tilerast_cosim::core_adapter_verilog())
        .map_err(|e| FlowError::at(adapter.display(), e))?;
    let (ready, valid, lanes) = tilerast_cosim::quad_count_bits();
    let defs = vec![
        format!("-DTR_CORE={top}"),
        "-DCORE_LAYOUT".into(),
        format!("-DOUT_READY_BIT={ready}"),
        format!("-DOUT_VALID_BIT={valid}"),
        format!("-DLANE_VALID_LSB={lanes}"),
    ];
    Ok((adapter, defs))
}

/// Run the golden cycle model over `cmds` with `stim` and record every cycle.
pub fn vectors(cfg: &Config, cmds: &[Cmd], stim: &Stimulus) -> Result<Vectors, FlowError> {
    let mut d = Driver::new(cfg, cmds, stim);
    let mut v = Vectors::default();
    let mut inp = vec![0u32; BATCH * IN_W];
    let mut want = vec![0u32; BATCH * OUT_W];
    let mut offered = vec![0usize; BATCH];
    loop {
        let k = d.batch(&mut inp, &mut want, &mut offered);
        if k == 0 {
            break;
        }
        v.inp.extend_from_slice(&inp[..k * IN_W]);
        v.exp.extend_from_slice(&want[..k * OUT_W]);
    }
    if !d.finished() {
        return Err(FlowError(format!(
            "postsim: the model did not finish within {} cycles",
            stim.max_cycles
        )));
    }
    Ok(v)
}

/// Write `words` as `$readmemh` lines of `per` 32-bit words each, highest word first.
pub fn write_hex(path: &Path, words: &[u32], per: usize) -> Result<(), FlowError> {
    let mut s = String::with_capacity(words.len() * 9);
    for c in words.chunks(per) {
        for w in c.iter().rev() {
            let _ = write!(s, "{w:08x}");
        }
        s.push('\n');
    }
    std::fs::write(path, s).map_err(|e| FlowError::at(path.display(), e))
}

/// yosys's data directory (`<prefix>/share/yosys`, next to the `yosys` binary on `PATH`).
pub fn yosys_share() -> Result<PathBuf, FlowError> {
    let path = std::env::var_os("PATH").unwrap_or_default();
    for d in std::env::split_paths(&path) {
        if d.join("yosys").is_file() {
            let s = d.join("../share/yosys");
            if s.join("ice40/cells_sim.v").is_file() {
                return Ok(s.canonicalize().unwrap_or(s));
            }
        }
    }
    Err(FlowError(
        "yosys share dir: ice40/cells_sim.v not found next to yosys on PATH; install it with: apt-get install -y yosys"
            .into(),
    ))
}

/// One scenario: a named command stream and its stimulus.
#[derive(Debug, Clone)]
pub struct Scenario {
    pub name: String,
    pub cmds: Vec<Cmd>,
    pub stim: Stimulus,
}

fn load_scene(root: &Path, name: &str, cfg: &Config) -> Result<Frame, FlowError> {
    let p = root.join(format!("scenes/{name}.json"));
    let f = Scene::load(&p)
        .and_then(|s| s.to_frame(&p.display().to_string()))
        .map_err(|e| FlowError::at(p.display(), e.msg))?;
    // A scene of the preset, or of the preset it derives from by its MSAA rate alone
    // (ice40 → ice40_1x): the same primitives are valid for both.
    let mut f = f;
    let mut as_cfg = f.cfg.clone();
    as_cfg.name.clone_from(&cfg.name);
    as_cfg.msaa = cfg.msaa;
    if &as_cfg != cfg {
        return Err(FlowError::at(p.display(), "config differs from the preset under test"));
    }
    f.cfg = as_cfg;
    Ok(f)
}

/// A deterministic random frame of `n` primitives (triangles of every size, points with and
/// without AA) inside the guard band of `cfg`.
pub fn random_frame(cfg: &Config, n: usize, seed: u64) -> Frame {
    let mut rng = tilerast_verif::Rng::new(seed);
    let mut r = move |lo: i32, hi: i32| lo + rng.below((hi - lo) as u64) as i32;
    let (w, h) = (cfg.viewport[0] as i32 * 256, cfg.viewport[1] as i32 * 256);
    let g = cfg.guard_band as i32 * 256;
    let prims = (0..n)
        .map(|_| {
            let (x, y) = (r(-g, w + g), r(-g, h + g));
            if r(0, 4) < 3 {
                let k = [1, 1, 8, 40][r(0, 4) as usize];
                let mut v = || {
                    [
                        (x + r(-4000, 4000) * k).clamp(-g, w + g),
                        (y + r(-4000, 4000) * k).clamp(-g, h + g),
                    ]
                };
                let (v1, v2) = (v(), v());
                PrimitiveFx::Triangle(TriangleFx {
                    v: [[x, y], v1, v2],
                    colour: [1; 4],
                    depth: 0,
                })
            } else {
                PrimitiveFx::Point(PointFx {
                    pos: [x, y],
                    size: r(0, cfg.max_point_size as i32 * 256 + 256),
                    aa: r(0, 2) == 1,
                    colour: [1; 4],
                    depth: 0,
                })
            }
        })
        .collect();
    Frame {
        cfg: cfg.clone(),
        background: [0; 4],
        prims,
    }
}

/// The regression subset of `preset`: the shipped scenes of that preset (gaps, changing
/// back-pressure regimes, a flush in the middle after which the stream restarts) and a random
/// frame (random ready with long stalls). `scale` < 1 shortens the runs (for quick checks).
pub fn scenarios(root: &Path, preset: &str, scale: f64) -> Result<Vec<Scenario>, FlowError> {
    let cfg = Config::preset(preset).map_err(|e| FlowError::at("--preset", e.msg))?;
    let mut v = Vec::new();
    let take = |c: Vec<Cmd>| -> Vec<Cmd> {
        let n = ((c.len() as f64 * scale).ceil() as usize).clamp(1, c.len());
        c[..n].to_vec()
    };
    let scene_cmds = |name: &str| -> Result<Vec<Cmd>, FlowError> {
        let f = load_scene(root, name, &cfg)?;
        commands(&f).map_err(|e| FlowError::at(format!("scenes/{name}.json"), format!("{e:?}")))
    };
    let shipped: Vec<&str> = match preset {
        "ice40" | "ice40_1x" => vec!["points", "mesh"],
        "default" => vec!["default", "large_triangles"],
        "full" => vec!["slivers"],
        _ => vec![],
    };
    for name in shipped {
        let cmds = take(scene_cmds(name)?);
        // Flush a third of the way through the model's own run length.
        let base = Stimulus {
            seed: 7,
            gap_pct: 20,
            ready: Ready::Regimes { period: 128 },
            flush_at: None,
            max_cycles: 5_000_000,
        };
        let len = vectors(&cfg, &cmds, &base)?.cycles() as u64;
        v.push(Scenario {
            name: format!("scene {name} (gaps 20 %, ready regimes, flush at cycle {})", len / 3),
            cmds,
            stim: Stimulus {
                flush_at: Some(len / 3),
                ..base
            },
        });
    }
    // A frame whose few primitives all miss the viewport or are culled gives no command (the
    // `default` preset's 6-primitive `--quick` frame at seed 0x5eed did), and a run of no
    // cycles proves nothing: the next seed is taken until the frame has commands.
    let n = ((24.0 * scale).ceil() as usize).max(2);
    let mut found = None;
    const SEEDS: u64 = 64;
    for seed in 0x5eed..0x5eed + SEEDS {
        let f = random_frame(&cfg, n, seed);
        let cmds = commands(&f).map_err(|e| FlowError::at("random frame", format!("{e:?}")))?;
        if !cmds.is_empty() {
            found = Some((f, cmds));
            break;
        }
    }
    let (f, cmds) = found.ok_or_else(|| {
        FlowError::at(
            "random frame",
            format!("{n} primitives give no command at {SEEDS} seeds from 0x5eed ({preset})"),
        )
    })?;
    v.push(Scenario {
        name: format!(
            "random frame ({} prims, gaps 35 %, ready 70 % with stalls)",
            f.prims.len()
        ),
        cmds,
        stim: Stimulus {
            seed: 11,
            gap_pct: 35,
            ready: Ready::Stalls {
                pct: 70,
                every: 700,
                len: 90,
            },
            flush_at: None,
            max_cycles: 5_000_000,
        },
    });
    Ok(v)
}

/// Outcome of one simulated run.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct SimResult {
    pub cycles: u64,
    /// What the run transferred: quads (the core: the testbench counts them) or memory writes
    /// (the back end: counted from the vectors, [`back_end_writes`]).
    pub quads: u64,
}

/// The simulator a testbench is compiled for. Both run `fpga/tb/postsim_tb.v` unchanged and
/// print the same `PASS` / `MISMATCH` lines.
///
/// - **Icarus** (`iverilog` + `vvp`, four-state) starts at once but runs a gate-level netlist
///   slowly: 1 to 10 s per netlist MB per 1 000 cycles (about 2 for most of this project's
///   netlists; the ECP5 back end, 5.3 MB, at 80 cycles/s).
/// - **Verilator** (`verilator --binary --timing`, two-state: flip-flops start at 0, as the
///   iCE40 and ECP5 ones do after configuration) builds in about 15 s plus 6 (iCE40) to 14
///   (ECP5) s per netlist MB (g++ at -O1) on an idle machine, then runs the same netlists at
///   10^4 cycles/s and more. In CI both cores are busy (tests and the second lane), and the
///   build is about 2.6 times slower: the frame top's 16.8 MB took 11 min there, against
///   4.2 min by hand on the idle machine.
///
/// [`Simulator::for_netlist`] takes the one expected to finish first in CI: Verilator once
/// 2 s × MB × kcycles exceeds 15 s + 40 s × MB. So the frame top's one frame (6 000 cycles)
/// stays on Icarus and the ECP5 back end (34 000) goes to Verilator. The figures were measured on this
/// project's netlists on the 2-core CI machine; only the run time depends on the choice, never
/// the verdict.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Simulator {
    Icarus,
    Verilator,
}

impl Simulator {
    /// The faster simulator for `cycles` cycles of a netlist of `bytes` bytes (see the type).
    pub fn for_netlist(bytes: u64, cycles: usize) -> Simulator {
        let mb = bytes as f64 / 1e6;
        let icarus_secs = 2.0 * mb * cycles as f64 / 1e3;
        let verilator_secs = 15.0 + 40.0 * mb;
        if icarus_secs > verilator_secs {
            Simulator::Verilator
        } else {
            Simulator::Icarus
        }
    }

    /// The choice for the netlist file `net` (its size) and `cycles`.
    pub fn for_netlist_file(net: &Path, cycles: usize) -> Result<Simulator, FlowError> {
        let bytes = std::fs::metadata(net)
            .map_err(|e| FlowError::at(net.display(), e))?
            .len();
        Ok(Simulator::for_netlist(bytes, cycles))
    }

    pub fn name(self) -> &'static str {
        match self {
            Simulator::Icarus => "icarus",
            Simulator::Verilator => "verilator",
        }
    }
}

/// A compiled testbench for one design: a `vvp` image (Icarus) or an executable (Verilator).
#[derive(Debug, Clone)]
pub struct Bench {
    pub exe: PathBuf,
    pub sim: Simulator,
    pub in_bits: usize,
    pub out_bits: usize,
}

/// Compile `fpga/tb/postsim_tb.v` with the design `files` (plus `defines`: `-D…`, `-I…`) for
/// runs of up to `max_cycles` cycles, with `sim`.
#[allow(clippy::too_many_arguments)]
pub fn compile(
    root: &Path,
    dir: &Path,
    name: &str,
    files: &[PathBuf],
    defines: &[String],
    in_bits: usize,
    out_bits: usize,
    max_cycles: usize,
    sim: Simulator,
    out: &mut dyn Write,
) -> Result<Bench, FlowError> {
    let sizes = [
        format!("-DCYCLES={max_cycles}"),
        format!("-DIN_BITS={in_bits}"),
        format!("-DOUT_BITS={out_bits}"),
    ];
    let (program, mut args, exe, install) = match sim {
        Simulator::Icarus => {
            let vvp = dir.join(format!("{name}.vvp"));
            let args = vec![
                "-g2012".to_string(),
                "-o".into(),
                vvp.display().to_string(),
                "-s".into(),
                "postsim_tb".into(),
            ];
            ("iverilog", args, vvp, "iverilog")
        }
        Simulator::Verilator => {
            let mdir = dir.join(format!("{name}.verilator"));
            let args = vec![
                "--binary".to_string(),
                "--timing".into(),
                "-Wno-fatal".into(),
                "-Wno-lint".into(),
                "-Wno-style".into(),
                "--top-module".into(),
                "postsim_tb".into(),
                "-Mdir".into(),
                mdir.display().to_string(),
                "-j".into(),
                "2".into(),
                "-CFLAGS".into(),
                "-O1".into(),
            ];
            ("verilator", args, mdir.join("Vpostsim_tb"), "verilator")
        }
    };
    args.extend(sizes);
    args.extend(defines.iter().cloned());
    args.push(root.join("fpga/tb/postsim_tb.v").display().to_string());
    args.extend(files.iter().map(|f| f.display().to_string()));
    Step {
        name: format!("{program}-{name}"),
        program: program.into(),
        args,
        log: dir.join(format!("{program}-{name}.log")),
    }
    .run(root, out)
    .map_err(|e| {
        if e.0.contains("cannot run") {
            FlowError(format!(
                "{program}: not found; install it with: apt-get install -y {install}"
            ))
        } else {
            e
        }
    })?;
    Ok(Bench {
        exe,
        sim,
        in_bits,
        out_bits,
    })
}

/// [`compile`] the netlist `net` (with `files`, its adapter and cell models among them) as
/// `netlist` for runs of `runs` cycles each, with the simulator expected to finish them first
/// ([`Simulator::for_netlist`]); `bits` = (input, output) bits per cycle.
#[allow(clippy::too_many_arguments)]
pub fn compile_netlist(
    root: &Path,
    dir: &Path,
    net: &Path,
    files: &[PathBuf],
    defines: &[String],
    bits: (usize, usize),
    runs: &[usize],
    out: &mut dyn Write,
) -> Result<Bench, FlowError> {
    let total: usize = runs.iter().sum();
    let max = runs.iter().copied().max().unwrap_or(1);
    let sim = Simulator::for_netlist_file(net, total)?;
    let _ = writeln!(out, "  simulator: {} ({total} cycles in all)", sim.name());
    compile(root, dir, "netlist", files, defines, bits.0, bits.1, max, sim, out)
}

/// Run a compiled bench on the vectors (`words_in`/`words_out` 32-bit words per cycle).
/// `Err` carries the testbench's first mismatch lines.
pub fn simulate(
    root: &Path,
    bench: &Bench,
    dir: &Path,
    tag: &str,
    inp: &[u32],
    exp: &[u32],
    out: &mut dyn Write,
) -> Result<SimResult, FlowError> {
    let (wi, wo) = (bench.in_bits / 32, bench.out_bits / 32);
    let cycles = inp.len() / wi;
    let fin = dir.join(format!("{tag}.in.hex"));
    let fexp = dir.join(format!("{tag}.exp.hex"));
    write_hex(&fin, inp, wi)?;
    write_hex(&fexp, exp, wo)?;
    let log = dir.join(format!("{tag}.sim.log"));
    let plus = [
        format!("+in={}", fin.display()),
        format!("+exp={}", fexp.display()),
        format!("+cycles={cycles}"),
    ];
    let (program, mut args) = match bench.sim {
        Simulator::Icarus => (
            "vvp".to_string(),
            vec!["-n".to_string(), bench.exe.display().to_string()],
        ),
        Simulator::Verilator => (bench.exe.display().to_string(), vec![]),
    };
    args.extend(plus);
    let step = Step {
        name: format!("{}-{tag}", bench.sim.name()),
        program,
        args,
        log: log.clone(),
    };
    let secs = step.run(root, out)?;
    let text = std::fs::read_to_string(&log).map_err(|e| FlowError::at(log.display(), e))?;
    if let Some(l) = text.lines().find(|l| l.starts_with("PASS")) {
        let _ = writeln!(out, "  {tag}: {l} ({:.0} cycles/s)", cycles as f64 / secs.max(1e-9));
        let field = |k: &str| -> Option<u64> {
            l.split_whitespace()
                .find_map(|t| t.strip_prefix(k))
                .and_then(|v| v.parse().ok())
        };
        match (field("cycles="), field("quads=")) {
            (Some(c), Some(q)) => Ok(SimResult { cycles: c, quads: q }),
            _ => Err(FlowError::at(log.display(), format!("malformed PASS line `{l}`"))),
        }
    } else {
        let mism: Vec<&str> = text
            .lines()
            .filter(|l| l.starts_with("MISMATCH") || l.starts_with("FAIL"))
            .collect();
        let m = if mism.is_empty() {
            format!("no PASS line (see {})", log.display())
        } else {
            mism.join("; ")
        };
        Err(FlowError(format!("postsim {tag}: {m}")))
    }
}

/// Synthesize `files` with top `top` for `family`/`device` and write the netlist
/// (`write_verilog -noattr`) to `dir/<top>_syn.v`.
pub fn synth_netlist(
    root: &Path,
    dir: &Path,
    family: Family,
    device: &str,
    files: &[PathBuf],
    top: &str,
    out: &mut dyn Write,
) -> Result<PathBuf, FlowError> {
    let net = dir.join(format!("{top}_syn.v"));
    let names: Vec<String> = files.iter().map(|f| shell_quote(&f.display().to_string())).collect();
    let script = format!(
        "read_verilog {}; {}; write_verilog -noattr {}",
        names.join(" "),
        synth_command(family, device, top),
        net.display()
    );
    Step {
        name: format!("yosys-{top}"),
        program: "yosys".into(),
        args: vec!["-q".into(), "-p".into(), script],
        log: dir.join(format!("yosys-{top}.log")),
    }
    .run(root, out)?;
    Ok(net)
}

/// Simulator `-D` defines for yosys's iCE40 cell models (no port default values).
pub fn ice40_cell_defines() -> Vec<String> {
    vec!["-DNO_ICE40_DEFAULT_ASSIGNMENTS".into()]
}

/// The simulator defines and the cell-model files for a netlist of `family` (`share`: yosys's
/// data directory), for a simulation in `dir`. yosys ships no MULT18X18D model; ours covers the
/// combinational use synth_ecp5 makes. Its ECP5 `cells_sim.v` declares DP16KD as a blackbox
/// with floating outputs: the simulation gets a copy without that declaration (`dir`) and our
/// block RAM model, `fpga/tb/ecp5_dp16kd.v`.
fn cell_models(
    family: Family,
    share: &Path,
    root: &Path,
    dir: &Path,
) -> Result<(Vec<String>, Vec<PathBuf>), FlowError> {
    Ok(match family {
        Family::Ice40 => (ice40_cell_defines(), vec![share.join("ice40/cells_sim.v")]),
        Family::Ecp5 => {
            let src = share.join("ecp5/cells_sim.v");
            let text = std::fs::read_to_string(&src).map_err(|e| FlowError::at(src.display(), e))?;
            let copy = dir.join("ecp5_cells_sim_without_dp16kd.v");
            std::fs::write(&copy, without_module(&text, "DP16KD")).map_err(|e| FlowError::at(copy.display(), e))?;
            (
                vec![format!("-I{}", share.join("ecp5").display())],
                vec![
                    copy,
                    root.join("fpga/tb/ecp5_mult18x18d.v"),
                    root.join("fpga/tb/ecp5_dp16kd.v"),
                ],
            )
        }
    })
}

/// `text` without the declaration of module `name` (from its attribute line or `module name`
/// to the next `endmodule`), unchanged if it has none.
fn without_module(text: &str, name: &str) -> String {
    let head = format!("module {name}(");
    let head_sp = format!("module {name} (");
    let Some(at) = text.find(&head).or_else(|| text.find(&head_sp)) else {
        return text.to_string();
    };
    // Start at the line before if it holds only an attribute, e.g. `(* blackbox *)`.
    let line_start = text[..at].rfind('\n').map_or(0, |i| i + 1);
    let prev_start = text[..line_start.saturating_sub(1)].rfind('\n').map_or(0, |i| i + 1);
    let start = if text[prev_start..line_start].trim_start().starts_with("(*") {
        prev_start
    } else {
        line_start
    };
    let end = text[at..]
        .find("endmodule")
        .map_or(text.len(), |i| at + i + "endmodule".len());
    format!(
        "{}// module {name}: see fpga/tb/ecp5_dp16kd.v{}",
        &text[..start],
        &text[end..]
    )
}

/// Summary of a post-synthesis regression.
#[derive(Debug, Clone, Default)]
pub struct PostsimSummary {
    pub runs: Vec<(String, SimResult)>,
    /// The synthesized netlist that was simulated (`<dir>/<top>_syn.v`).
    pub netlist: PathBuf,
    pub synth_secs: f64,
    pub sim_secs: f64,
}

/// The whole post-synthesis regression of the `preset` core with the synthesis of `board`'s
/// flow (the UP5K's SB_MAC16 script, the HX8K's plain `synth_ice40`, or the ULX3S's
/// `synth_ecp5` with its MULT18X18Ds, simulated by `fpga/tb/ecp5_mult18x18d.v`):
/// synthesize, compile once, run every scenario; every run must PASS with the quad count the
/// model predicts (> 0). Output directory `target/fpga/postsim-<preset>-<device>/`.
pub fn run_core(
    root: &Path,
    preset: &str,
    board: &crate::Board,
    scale: f64,
    out: &mut dyn Write,
) -> Result<PostsimSummary, FlowError> {
    let root = &root.canonicalize().map_err(|e| FlowError::at(root.display(), e))?;
    let dir = root.join(format!("target/fpga/postsim-{preset}-{}", board.device));
    std::fs::create_dir_all(&dir).map_err(|e| FlowError::at(dir.display(), e))?;
    let share = yosys_share()?;
    let top = format!("tilerast_{preset}");
    let rtl = crate::rtl_sources(root, &top)?;
    let cfg = Config::preset(preset).map_err(|e| FlowError::at("--preset", e.msg))?;
    let scen = scenarios(root, preset, scale)?;
    let mut vecs = Vec::new();
    for s in &scen {
        vecs.push(vectors(&cfg, &s.cmds, &s.stim)?);
    }
    let t = std::time::Instant::now();
    let net = synth_netlist(root, &dir, board.family, board.device, &rtl, &top, out)?;
    let synth_secs = t.elapsed().as_secs_f64();
    let (mut defs, cells) = cell_models(board.family, &share, root, &dir)?;
    let (adapter, core_defs) = core_adapter(&dir, &top)?;
    defs.extend(core_defs);
    let mut files = vec![adapter, net.clone()];
    files.extend(cells);
    let runs: Vec<usize> = vecs.iter().map(Vectors::cycles).collect();
    let bench = compile_netlist(root, &dir, &net, &files, &defs, (IN_W * 32, OUT_W * 32), &runs, out)?;
    let t = std::time::Instant::now();
    let mut sum = PostsimSummary {
        netlist: net,
        synth_secs,
        ..Default::default()
    };
    for (i, (s, v)) in scen.iter().zip(&vecs).enumerate() {
        let _ = writeln!(
            out,
            "  run {i}: {} — {} commands, {} cycles",
            s.name,
            s.cmds.len(),
            v.cycles()
        );
        let r = simulate(root, &bench, &dir, &format!("run{i}"), &v.inp, &v.exp, out)
            .map_err(|e| FlowError(format!("{} [{}]", e.0, s.name)))?;
        if r.cycles != v.cycles() as u64 || r.quads != v.quads() || r.quads == 0 {
            return Err(FlowError(format!(
                "postsim run{i}: testbench saw {} cycles / {} quads, the model {} / {} (must be equal and > 0)",
                r.cycles,
                r.quads,
                v.cycles(),
                v.quads()
            )));
        }
        sum.runs.push((s.name.clone(), r));
    }
    sum.sim_secs = t.elapsed().as_secs_f64();
    Ok(sum)
}

/// One run of the back end's post-synthesis simulation.
#[derive(Debug, Clone)]
pub struct BackEndCase {
    pub name: String,
    pub frame: Frame,
    pub drive: tilerast_cosim::back_end::Drive,
    /// Check the frame's end (memory = golden's framebuffer, image = `render_frame`'s); off
    /// for runs cut short or flushed midway.
    pub whole_frame: bool,
}

/// The back end's post-synthesis cases for `preset`: a random frame of `prims` primitives
/// run to its end (gaps, memory back-pressure, a memory stall, read latency 2), its memory
/// checked against golden's framebuffer; the same frame with a flush in the middle of its
/// traffic and a different memory (latency 1, one read held), cut after the flush has been
/// followed by more work.
pub fn back_end_cases(preset: &str, prims: u64) -> Result<Vec<BackEndCase>, FlowError> {
    use tilerast_cosim::back_end::{chunk_case, frame_drive};
    use tilerast_golden::memory_port::MemTiming;
    let cfg = Config::preset(preset).map_err(|e| FlowError::at("--preset", e.msg))?;
    // The first chunk of the regression's seed 1 that draws something.
    let (frame, _) = (0..64)
        .map(|i| chunk_case(&cfg, 1, i, prims))
        .find(|(f, _)| {
            tilerast_golden::pipeline::back_end_input(f)
                .ok()
                .and_then(|o| o.back_end)
                .is_some_and(|r| r.input.len() >= 8)
        })
        .ok_or_else(|| {
            FlowError(format!(
                "postsim: no random {preset} frame of {prims} primitives draws 8 pixels"
            ))
        })?;
    let drive = tilerast_cosim::back_end::Drive {
        gap_pm: 150,
        busy_pm: 250,
        stall: (300, 700),
        timing: MemTiming { latency: 2, depth: 3 },
        ..frame_drive(0xb0e)
    };
    let whole = BackEndCase {
        name: format!(
            "random frame, {} primitives (gaps 15 %, memory busy 25 %, stall 300..700, latency 2, 3 reads held)",
            frame.prims.len()
        ),
        frame: frame.clone(),
        drive: drive.clone(),
        whole_frame: true,
    };
    let (_, _, o) = tilerast_cosim::back_end::frame_vectors(preset, &frame, &drive)
        .map_err(|e| FlowError(format!("postsim: {e}")))?;
    let first = o.first_write.unwrap_or(o.cycles / 2);
    let flush = first + 3;
    let flushed = BackEndCase {
        name: format!(
            "the same frame, flushed at cycle {flush} (3 cycles after the first write), memory latency 1, 1 read held"
        ),
        frame,
        drive: tilerast_cosim::back_end::Drive {
            flush_at: vec![flush],
            timing: MemTiming { latency: 1, depth: 1 },
            cycles: (flush + 600).min(o.cycles + 200),
            ..drive
        },
        whole_frame: false,
    };
    Ok(vec![whole, flushed])
}

/// Memory writes the vectors show: cycles with `mem_req_valid`, `mem_req__write` (expected)
/// and `mem_req_ready` (driven).
pub fn back_end_writes(desc: &tilerast_cosim::blocks::BlockDesc, inp: &[u32], exp: &[u32]) -> u64 {
    use tilerast_cosim::blocks::get_bits;
    let port = |ports: &[tilerast_cosim::blocks::PortDesc], n: &str| {
        *ports
            .iter()
            .find(|p| p.name == n)
            .unwrap_or_else(|| panic!("{}: no port {n}", desc.module))
    };
    let (rdy, val, wr) = (
        port(desc.inputs, "mem_req_ready"),
        port(desc.outputs, "mem_req_valid"),
        port(desc.outputs, "mem_req__write"),
    );
    let (iw, ow) = (desc.in_words(), desc.out_words());
    (0..inp.len() / iw)
        .filter(|&k| {
            let (i, e) = (&inp[k * iw..(k + 1) * iw], &exp[k * ow..(k + 1) * ow]);
            get_bits(i, rdy.offset, 1) == 1 && get_bits(e, val.offset, 1) == 1 && get_bits(e, wr.offset, 1) == 1
        })
        .count() as u64
}

/// The post-synthesis simulation of the pixel back end (`rtl-out/tilerast_pixel_back_end_<preset>.f`:
/// pixel processor → colour buffer → dst read → blender → output merger behind one memory port) with the
/// synthesis of `board`'s flow: synthesize, compile the testbench with an adapter generated
/// from the port table, run [`back_end_cases`]; every output port of the netlist equals
/// `PixelBackEndCycle` (with the cosim memory model behind the port) on every cycle, and the
/// whole-frame run writes golden's framebuffer (checked on the model side: the netlist
/// repeats every write). Each run must write memory (> 0 writes). The runs go through
/// [`run_block`] (output directory `target/fpga/postsim-pixel_back_end-<preset>-<device>/`).
pub fn run_back_end(
    root: &Path,
    preset: &str,
    board: &crate::Board,
    prims: u64,
    out: &mut dyn Write,
) -> Result<PostsimSummary, FlowError> {
    use tilerast_cosim::back_end::{frame_vectors, vectors, STAGE};
    let desc = tilerast_cosim::blocks::block_desc(preset, STAGE).ok_or_else(|| {
        FlowError(format!(
            "--preset: no port table for {preset}/{STAGE} (built: see cosim BACK_END_PRESETS)"
        ))
    })?;
    let mut runs = Vec::new();
    for c in back_end_cases(preset, prims)? {
        let (inp, exp, _) = if c.whole_frame {
            frame_vectors(preset, &c.frame, &c.drive)
        } else {
            let o =
                tilerast_golden::pipeline::back_end_input(&c.frame).map_err(|e| FlowError(format!("postsim: {e}")))?;
            let rec = o
                .back_end
                .ok_or_else(|| FlowError("postsim: back_end_input recorded nothing".into()))?;
            vectors(
                preset,
                &c.frame.cfg,
                &rec.input,
                tilerast_golden::pixel_back_end::framebuffer(&c.frame.cfg, rec.background),
                u32::from_le_bytes(rec.background),
                o.stats.blend.samples,
                &c.drive,
            )
        }
        .map_err(|e| FlowError(format!("postsim {}: {e}", c.name)))?;
        let writes = back_end_writes(desc, &inp, &exp);
        if writes == 0 {
            return Err(FlowError(format!(
                "postsim {}: the model writes no memory (must be > 0)",
                c.name
            )));
        }
        runs.push(BlockVectors {
            name: format!("{} ({writes} memory writes)", c.name),
            inp,
            exp,
            transfers: writes,
        });
    }
    run_block(root, preset, STAGE, board, &runs, out)
}

/// The whole-frame post-synthesis case of `preset`: `frames` random frames of `prims`
/// primitives each from the whole-frame regression's seed 1 (`tilerast regress --frame`:
/// `cosim::frame::chunk_case`, every primitive class, a random background), run back to back
/// under the regression drive of the first (read latency, responses held, random memory
/// back-pressure, input gaps, possibly a long stall, as the regression draws them). Of the
/// first [`FRAME_CANDIDATES`] chunks, those whose frame writes at least 8 framebuffer words and
/// whose drive has memory back-pressure (busy > 0) qualify; the `frames` shortest of them (the
/// model's cycles alone) are taken, in chunk order: gate-level simulation of the whole top
/// runs at tens of cycles per second.
pub fn frame_case(
    preset: &str,
    prims: u64,
    frames: usize,
) -> Result<(Vec<Frame>, tilerast_cosim::frame::Drive), FlowError> {
    let cfg = Config::preset(preset).map_err(|e| FlowError::at("--preset", e.msg))?;
    if prims == 0 || frames == 0 {
        return Err(FlowError("postsim frame: primitives and frames must be >= 1".into()));
    }
    let mut ok: Vec<(u64, u64, Frame, tilerast_cosim::frame::Drive)> = Vec::new();
    for i in 0..FRAME_CANDIDATES {
        let (f, d) = tilerast_cosim::frame::chunk_case(&cfg, 1, i, prims);
        if d.busy_pm == 0 {
            continue;
        }
        let (_, _, o) = tilerast_cosim::frame::vectors(preset, &[&f], &d)
            .map_err(|e| FlowError(format!("postsim frame: chunk {i}: model: {e}")))?;
        if o.frames
            .iter()
            .map(|x| x.stats.clients[tilerast_golden::frame::client::BACK_END].writes)
            .sum::<u64>()
            < 8
        {
            continue;
        }
        ok.push((o.cycles, i, f, d));
    }
    if ok.len() < frames {
        return Err(FlowError(format!(
            "postsim frame: {} of the first {FRAME_CANDIDATES} random {preset} frames of {prims} primitives write 8 framebuffer words under back-pressure, {frames} wanted",
            ok.len()
        )));
    }
    ok.sort_by_key(|c| (c.0, c.1));
    ok.truncate(frames);
    ok.sort_by_key(|c| c.1);
    let drive = tilerast_cosim::frame::Drive {
        max_cycles: 5_000_000,
        ..ok[0].3.clone()
    };
    Ok((ok.into_iter().map(|c| c.2).collect(), drive))
}

/// How many regression chunks [`frame_case`] considers.
pub const FRAME_CANDIDATES: u64 = 16;

/// Cycles in which output `port` (one bit) is high in the expected words `exp` laid out by
/// `desc`.
pub fn count_high(desc: &tilerast_cosim::blocks::BlockDesc, exp: &[u32], port: &str) -> Result<u64, FlowError> {
    let p = desc
        .outputs
        .iter()
        .find(|p| p.name == port)
        .ok_or_else(|| FlowError(format!("{}: no output port {port}", desc.module)))?;
    let ow = desc.out_words();
    Ok(exp
        .chunks(ow)
        .filter(|e| tilerast_cosim::blocks::get_bits(e, p.offset, 1) == 1)
        .count() as u64)
}

/// What the frame top's post-synthesis run did, from the vectors the netlist equalled on every
/// output port and cycle.
#[derive(Debug, Clone)]
pub struct FrameSummary {
    pub summary: PostsimSummary,
    pub frames: usize,
    pub prims: usize,
    pub cycles: u64,
    /// Cycles with `done_valid` high (one per frame).
    pub done_pulses: u64,
    /// Memory writes taken by the port (every client), and the framebuffer writes among them.
    pub mem_writes: u64,
    pub fb_writes: u64,
    /// Quads the raster core handed the pixel-info writer.
    pub quads: u64,
    /// Seconds to compute the vectors (the golden side).
    pub model_secs: f64,
}

impl FrameSummary {
    /// One line: what ran and equalled `FrameCycle` on every output port every cycle, and the
    /// time each side took (what `tilerast synth --postsim --frame` and the test print).
    pub fn line(&self, preset: &str, device: &str) -> String {
        format!(
            "postsim frame {preset} ({device} synthesis): PASS, {} frame(s) back to back, {} primitives in all, {} cycles, \
             {} Done, {} memory writes ({} to the framebuffer), {} quads, equal to FrameCycle on every output port \
             every cycle (model {:.1} s, synthesis {:.0} s, simulation {:.0} s, {:.0} cycles/s)",
            self.frames,
            self.prims,
            self.cycles,
            self.done_pulses,
            self.mem_writes,
            self.fb_writes,
            self.quads,
            self.model_secs,
            self.summary.synth_secs,
            self.summary.sim_secs,
            self.cycles as f64 / self.summary.sim_secs.max(1e-9)
        )
    }
}

/// The post-synthesis simulation of the whole frame top (`rtl-out/tilerast_frame_<preset>.f`:
/// bin_setup → binner → tile_sequencer → raster core → pixel_info_write, pixel_info_read →
/// shading_sort → pixel back end, one memory port) with the synthesis of `board`'s flow,
/// gate by gate against `FrameCycle` with the cosim memory model behind the port
/// ([`frame_case`]: `frames` random frames of the whole-frame regression, `prims` primitives
/// each, back to back), every output port on every cycle. Before the netlist runs, the model
/// side is held to golden: the memory at the first Done is `frame_memory`'s byte for byte and
/// its image `render_frame`'s, later frames' too (`check_later`), every client's bytes are
/// golden's. The run must reach every frame's Done and write memory. Through [`run_block`]
/// (output directory `target/fpga/postsim-frame-<preset>-<device>/`).
pub fn run_frame(
    root: &Path,
    preset: &str,
    board: &crate::Board,
    prims: u64,
    frames: usize,
    out: &mut dyn Write,
) -> Result<FrameSummary, FlowError> {
    use tilerast_cosim::frame::{check_later, check_single, check_traffic, vectors, STAGE};
    let desc = tilerast_cosim::blocks::block_desc(preset, STAGE)
        .ok_or_else(|| FlowError(format!("--preset: no port table for {preset}/{STAGE} (not verilated)")))?;
    let t = std::time::Instant::now();
    let (fr, drive) = frame_case(preset, prims, frames)?;
    let refs: Vec<&Frame> = fr.iter().collect();
    let (inp, exp, o) = vectors(preset, &refs, &drive).map_err(|e| FlowError(format!("postsim frame: model: {e}")))?;
    if o.frames.len() != fr.len() {
        return Err(FlowError(format!(
            "postsim frame: the model reached {} of {} Done pulses",
            o.frames.len(),
            fr.len()
        )));
    }
    for (k, (f, d)) in fr.iter().zip(&o.frames).enumerate() {
        let fid = k as u8;
        if k == 0 {
            check_single(f, fid, &d.memory)
        } else {
            check_later(f, fid, d)
        }
        .and_then(|()| check_traffic(f, d))
        .map_err(|e| FlowError(format!("postsim frame: the model's frame {k} is not golden's: {e}")))?;
    }
    let model_secs = t.elapsed().as_secs_f64();
    let mem_writes = back_end_writes(desc, &inp, &exp);
    let done_pulses = count_high(desc, &exp, "done_valid")?;
    let cycles = o.cycles;
    if done_pulses != fr.len() as u64 || mem_writes == 0 {
        return Err(FlowError(format!(
            "postsim frame: the vectors show {done_pulses} Done pulses for {} frames and {mem_writes} memory writes (must be > 0)",
            fr.len()
        )));
    }
    let fb_writes: u64 = o
        .frames
        .iter()
        .map(|d| d.stats.clients[tilerast_golden::frame::client::BACK_END].writes)
        .sum();
    let quads: u64 = o.frames.iter().map(|d| d.stats.pi_write.quads).sum();
    let prim_count: usize = fr.iter().map(|f| f.prims.len()).sum();
    let drive_text = format!(
        "latency {}, {} held, busy {} ‰, gaps {} ‰, stalls {:?}",
        drive.timing.latency, drive.timing.depth, drive.busy_pm, drive.gap_pm, drive.stalls
    );
    let runs = [BlockVectors {
        name: format!(
            "{} random frame(s) of {prims} primitives back to back ({drive_text}): {done_pulses} Done, {mem_writes} memory writes, {fb_writes} framebuffer writes, {quads} quads",
            fr.len()
        ),
        inp,
        exp,
        transfers: mem_writes,
    }];
    let summary = run_block(root, preset, STAGE, board, &runs, out)?;
    Ok(FrameSummary {
        summary,
        frames: fr.len(),
        prims: prim_count,
        cycles,
        done_pulses,
        mem_writes,
        fb_writes,
        quads,
        model_secs,
    })
}

/// One run of a block's gate-level regression: its name and its port words per cycle
/// (`tilerast_cosim::blocks::block_vectors`), with the transfers the model counted.
pub struct BlockVectors {
    pub name: String,
    pub inp: Vec<u32>,
    pub exp: Vec<u32>,
    /// Outputs transferred in the run (reported as the run's `quads`).
    pub transfers: u64,
}

/// The post-synthesis regression of block `rtl-out/tilerast_<stage>_<preset>` (its file list) with the
/// synthesis of `board`'s flow, gate by gate (under the faster [`Simulator`] for the run) against its cycle model's port words,
/// every output word on every cycle, through an adapter generated from the block's port table
/// (as [`run_back_end`]). Output directory `target/fpga/postsim-<stage>-<preset>-<device>/`.
pub fn run_block(
    root: &Path,
    preset: &str,
    stage: &str,
    board: &crate::Board,
    runs: &[BlockVectors],
    out: &mut dyn Write,
) -> Result<PostsimSummary, FlowError> {
    let root = &root.canonicalize().map_err(|e| FlowError::at(root.display(), e))?;
    let rtl = crate::rtl_sources(root, &format!("tilerast_{stage}_{preset}"))?;
    let desc = tilerast_cosim::blocks::block_desc(preset, stage)
        .ok_or_else(|| FlowError(format!("--preset: no port table for {preset}/{stage} (not verilated)")))?;
    run_block_sources(root, &format!("{stage}-{preset}"), &rtl, desc, board, runs, out)
}

/// [`run_block`] on the Verilog `rtl` (dependencies first, the block's own file last: the
/// module `desc.module` with `desc`'s ports, e.g. a block generated at other parameters than
/// `rtl-out/`'s), in `target/fpga/postsim-<name>-<device>/`.
pub fn run_block_sources(
    root: &Path,
    name: &str,
    rtl: &[PathBuf],
    desc: &tilerast_cosim::blocks::BlockDesc,
    board: &crate::Board,
    runs: &[BlockVectors],
    out: &mut dyn Write,
) -> Result<PostsimSummary, FlowError> {
    let root = &root.canonicalize().map_err(|e| FlowError::at(root.display(), e))?;
    let dir = root.join(format!("target/fpga/postsim-{name}-{}", board.device));
    std::fs::create_dir_all(&dir).map_err(|e| FlowError::at(dir.display(), e))?;
    let share = yosys_share()?;
    let stage = desc.stage;
    let top = desc.module;
    let t = std::time::Instant::now();
    let net = synth_netlist(root, &dir, board.family, board.device, rtl, top, out)?;
    let synth_secs = t.elapsed().as_secs_f64();
    let (defs, cells) = cell_models(board.family, &share, root, &dir)?;
    let adapter = dir.join(format!("{stage}_adapter.v"));
    std::fs::write(&adapter, desc.adapter_verilog(top)).map_err(|e| FlowError::at(adapter.display(), e))?;
    let mut files = vec![adapter, net.clone()];
    files.extend(cells);
    let cycles: Vec<usize> = runs.iter().map(|r| r.inp.len() / desc.in_words()).collect();
    let bits = (desc.in_words() * 32, desc.out_words() * 32);
    let bench = compile_netlist(root, &dir, &net, &files, &defs, bits, &cycles, out)?;
    let t = std::time::Instant::now();
    let mut sum = PostsimSummary {
        netlist: net,
        synth_secs,
        ..Default::default()
    };
    for (k, r) in runs.iter().enumerate() {
        let cycles = r.inp.len() / desc.in_words();
        let _ = writeln!(
            out,
            "  run {k}: {} — {cycles} cycles, {} transfers",
            r.name, r.transfers
        );
        let res = simulate(root, &bench, &dir, &format!("run{k}"), &r.inp, &r.exp, out)
            .map_err(|e| FlowError(format!("{} [{}]", e.0, r.name)))?;
        if res.cycles != cycles as u64 {
            return Err(FlowError(format!(
                "postsim run{k}: testbench saw {} cycles, the model {cycles}",
                res.cycles
            )));
        }
        sum.runs.push((
            r.name.clone(),
            SimResult {
                cycles: res.cycles,
                quads: r.transfers,
            },
        ));
    }
    sum.sim_secs = t.elapsed().as_secs_f64();
    Ok(sum)
}

#[cfg(test)]
mod tests {
    use super::without_module;

    #[test]
    fn without_module_drops_the_declaration_and_its_attribute_only() {
        let t = "module A(input x);\nendmodule\n\n(* blackbox *)\nmodule DP16KD(\n  input a\n);\n  parameter P = 1;\nendmodule\n\nmodule B;\nendmodule\n";
        let got = without_module(t, "DP16KD");
        assert!(!got.contains("DP16KD(") && !got.contains("blackbox"), "{got}");
        assert!(
            got.contains("module A(input x);\nendmodule") && got.contains("module B;\nendmodule"),
            "{got}"
        );
        assert_eq!(without_module(t, "C"), t);
    }
}
