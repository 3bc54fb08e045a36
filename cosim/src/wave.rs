//! Side-by-side waveforms of a co-simulation mismatch: a VCD of the cycles around the first
//! difference with the RTL's and the golden cycle model's output ports next to each other, and
//! a GTKWave save file (`gtkwave <name>.gtkw`) that opens it with the differing ports first.
//!
//! Nothing is traced during the normal run (so this costs nothing when no mismatch happens):
//! the stimulus is deterministic, so [`record_window`] re-runs it (model a batch ahead, Verilator
//! replaying, exactly as [`crate::cosim_model`]) and keeps the input words, the RTL's output
//! words and the model's output words of the cycles `[from, to)`. Verilator's own full trace
//! of every internal signal (feature `trace`, [`crate::vcd_around`]) is a separate, optional
//! dump.
//!
//! ```text
//!  tb ── clock, cycle, cmd_index          time = 10·cycle: inputs applied, outputs sampled
//!   ├─ in      flush cmd_valid cmd__* out_ready                 10·cycle + 5: rising edge
//!   ├─ rtl     cmd_ready out_valid out__* …   (Verilator)
//!   ├─ golden  cmd_ready out_valid out__* …   (RasterCoreCycle), same names
//!   └─ diff    any, one bit per output port: rtl ≠ golden that cycle
//! ```

use crate::{ports, Driver, Mismatch, Rtl, Stimulus, Summary, BATCH, IN_W, OUT_W};
use std::fmt;
use std::io::Write;
use std::path::{Path, PathBuf};
use tilerast_golden::streams::Cmd;
use tilerast_golden::Config;
use vcd::{ReferenceIndex, TimescaleUnit, Value, VarType};

/// Cycles dumped after the mismatch cycle.
pub const AFTER: u64 = 4;

/// Input ports of the core with their widths, in the order of [`in_ports`] (the generated
/// port table, [`crate::CORE_INPUTS`]).
pub fn in_port_names() -> Vec<(&'static str, u32)> {
    crate::CORE_INPUTS.iter().map(|p| (p.name, p.width)).collect()
}

/// Width in bits of an output port named by [`crate::ports`] (same for every preset).
pub fn out_width(port: &str) -> u32 {
    crate::port_width(port)
}

/// Values of the input ports (in [`in_port_names`] order) of one cycle's input words.
pub fn in_ports(w: &[u32]) -> Vec<u64> {
    crate::in_ports(w).into_iter().map(|p| p.1).collect()
}

/// One cycle's input words back as `(cmd_valid, cmd, out_ready, flush)` (inverse of
/// [`crate::encode_in`]).
pub fn decode_in(w: &[u32]) -> (bool, Cmd, bool, bool) {
    crate::decode_in(w)
}

/// The recorded words of the cycles `[from, from + cycles())`.
#[derive(Clone, Debug, Default)]
pub struct Window {
    pub from: u64,
    /// [`IN_W`] words per cycle.
    pub inputs: Vec<u32>,
    /// [`OUT_W`] words per cycle from Verilator.
    pub rtl: Vec<u32>,
    /// [`OUT_W`] words per cycle predicted by the cycle model.
    pub model: Vec<u32>,
    /// Index of the command offered each cycle.
    pub offered: Vec<usize>,
}

impl Window {
    /// Number of cycles recorded.
    pub fn cycles(&self) -> u64 {
        (self.inputs.len() / IN_W) as u64
    }
    /// First cycle in the window where any output word differs.
    pub fn first_diff(&self) -> Option<u64> {
        let i = (0..self.rtl.len()).find(|&i| self.rtl[i] != self.model[i])?;
        Some(self.from + (i / OUT_W) as u64)
    }
    fn words(v: &[u32], k: usize, w: usize) -> &[u32] {
        &v[k * w..(k + 1) * w]
    }
}

/// Re-run the deterministic co-simulation of `cmds` under `stim` on RTL `model` and keep the
/// words of the cycles `[from, to)` (fewer if the run finishes first).
pub fn record_window(
    model: &str,
    cfg: &Config,
    cmds: &[Cmd],
    stim: &Stimulus,
    from: u64,
    to: u64,
) -> Result<Window, String> {
    let mut rtl = Rtl::new(model)?;
    let mut s = stim.clone();
    s.max_cycles = s.max_cycles.min(to);
    let mut d = Driver::new(cfg, cmds, &s);
    let mut inp = vec![0u32; BATCH * IN_W];
    let mut want = vec![0u32; BATCH * OUT_W];
    let mut got = vec![0u32; BATCH * OUT_W];
    let mut offered = vec![0usize; BATCH];
    let mut w = Window {
        from,
        ..Window::default()
    };
    loop {
        let start = d.cycle;
        let k = d.batch(&mut inp, &mut want, &mut offered);
        if k == 0 {
            break;
        }
        rtl.run(&inp[..k * IN_W], &mut got[..k * OUT_W]);
        let lo = from.saturating_sub(start).min(k as u64) as usize;
        let hi = to.saturating_sub(start).min(k as u64) as usize;
        if lo < hi {
            w.inputs.extend_from_slice(&inp[lo * IN_W..hi * IN_W]);
            w.rtl.extend_from_slice(&got[lo * OUT_W..hi * OUT_W]);
            w.model.extend_from_slice(&want[lo * OUT_W..hi * OUT_W]);
            w.offered.extend_from_slice(&offered[lo..hi]);
        }
    }
    if w.cycles() == 0 {
        return Err(format!("the run has no cycles in [{from}, {to})"));
    }
    Ok(w)
}

fn bits(v: u64, width: u32) -> Vec<Value> {
    (0..width)
        .rev()
        .map(|i| if v >> i & 1 == 1 { Value::V1 } else { Value::V0 })
        .collect()
}

/// A signal's name as GTKWave shows it (`tb.rtl.out__mask_0[63:0]`).
pub fn gtkw_name(scope: &str, name: &str, width: u32) -> String {
    let base = if scope.is_empty() {
        format!("tb.{name}")
    } else {
        format!("tb.{scope}.{name}")
    };
    if width > 1 {
        format!("{base}[{}:0]", width - 1)
    } else {
        base
    }
}

/// Time of a cycle in the VCD (timescale 1 ns, one cycle = 10 ns, rising edge at +5).
pub fn time_of(cycle: u64) -> u64 {
    cycle * 10
}

/// Streaming VCD writer that only emits values that changed.
struct Dumper<W: Write> {
    v: vcd::Writer<W>,
    /// (id, width, last value written).
    sigs: Vec<(vcd::IdCode, u32, Option<u64>)>,
}

impl<W: Write> Dumper<W> {
    fn add(&mut self, name: &str, width: u32) -> std::io::Result<usize> {
        let idx = (width > 1).then_some(ReferenceIndex::Range(width - 1, 0));
        let id = self.v.add_var(VarType::Wire, width, name, idx)?;
        self.sigs.push((id, width, None));
        Ok(self.sigs.len() - 1)
    }
    fn set(&mut self, sig: usize, val: u64) -> std::io::Result<()> {
        let (id, width, last) = &mut self.sigs[sig];
        if *last == Some(val) {
            return Ok(());
        }
        *last = Some(val);
        if *width == 1 {
            self.v
                .change_scalar(*id, if val & 1 == 1 { Value::V1 } else { Value::V0 })
        } else {
            self.v.change_vector(*id, &bits(val, *width))
        }
    }
}

/// Write the window as a VCD (scopes `tb`, `tb.in`, `tb.rtl`, `tb.golden`, `tb.diff`).
pub fn write_vcd(path: &Path, w: &Window) -> Result<(), String> {
    let err = |e: std::io::Error| format!("{}: {e}", path.display());
    let mut buf: Vec<u8> = Vec::new();
    let mut d = Dumper {
        v: vcd::Writer::new(&mut buf),
        sigs: Vec::new(),
    };
    let out_names: Vec<String> = ports(&[0; OUT_W]).into_iter().map(|p| p.0).collect();
    let n_out = out_names.len();
    (|| -> std::io::Result<()> {
        d.v.comment("tilerast co-simulation window: RTL (Verilator) vs golden cycle model")?;
        d.v.timescale(1, TimescaleUnit::NS)?;
        d.v.add_module("tb")?;
        let clock = d.add("clock", 1)?;
        let cycle = d.add("cycle", 32)?;
        let cmd_index = d.add("cmd_index", 32)?;
        d.v.add_module("in")?;
        let in0 = d.sigs.len();
        for (n, wd) in in_port_names() {
            d.add(n, wd)?;
        }
        d.v.upscope()?;
        let rtl0 = d.sigs.len();
        for scope in ["rtl", "golden"] {
            d.v.add_module(scope)?;
            for n in &out_names {
                d.add(n, out_width(n))?;
            }
            d.v.upscope()?;
        }
        let (gold0, diff0) = (rtl0 + n_out, rtl0 + 2 * n_out);
        d.v.add_module("diff")?;
        for n in &out_names {
            d.add(n, 1)?;
        }
        let any = d.add("any", 1)?;
        d.v.upscope()?;
        d.v.upscope()?;
        d.v.enddefinitions()?;

        for k in 0..w.cycles() as usize {
            let c = w.from + k as u64;
            d.v.timestamp(time_of(c))?;
            d.set(clock, 0)?;
            d.set(cycle, c & 0xffff_ffff)?;
            d.set(cmd_index, w.offered[k] as u64)?;
            for (j, val) in in_ports(Window::words(&w.inputs, k, IN_W)).into_iter().enumerate() {
                d.set(in0 + j, val)?;
            }
            let pr = ports(Window::words(&w.rtl, k, OUT_W));
            let pm = ports(Window::words(&w.model, k, OUT_W));
            let mut any_diff = 0;
            for j in 0..n_out {
                let diff = (pr[j].1 != pm[j].1) as u64;
                any_diff |= diff;
                d.set(rtl0 + j, pr[j].1)?;
                d.set(gold0 + j, pm[j].1)?;
                d.set(diff0 + j, diff)?;
            }
            d.set(any, any_diff)?;
            d.v.timestamp(time_of(c) + 5)?;
            d.set(clock, 1)?;
        }
        d.v.timestamp(time_of(w.from + w.cycles()))?;
        d.set(clock, 0)?;
        Ok(())
    })()
    .map_err(err)?;
    drop(d);
    std::fs::write(path, &buf).map_err(err)
}

/// Output ports (names of [`crate::ports`]) that differ in at least one cycle of the window,
/// the earliest-differing first (ties in port order).
pub fn differing_ports(w: &Window) -> Vec<String> {
    let mut names: Vec<(String, Option<usize>)> = ports(&[0; OUT_W]).into_iter().map(|p| (p.0, None)).collect();
    for k in 0..w.cycles() as usize {
        let pr = ports(Window::words(&w.rtl, k, OUT_W));
        let pm = ports(Window::words(&w.model, k, OUT_W));
        for (j, n) in names.iter_mut().enumerate() {
            if n.1.is_none() && pr[j].1 != pm[j].1 {
                n.1 = Some(k);
            }
        }
    }
    names.sort_by_key(|n| n.1);
    names.into_iter().filter(|n| n.1.is_some()).map(|n| n.0).collect()
}

/// GTKWave trace flags (`@hex` lines of a save file).
const TR_HIGHLIGHT: u32 = 0x1;
const TR_HEX: u32 = 0x2;
const TR_DEC: u32 = 0x4;
const TR_BIN: u32 = 0x8;
const TR_RJUSTIFY: u32 = 0x20;
const TR_BLANK: u32 = 0x200;
const TR_SIGNED: u32 = 0x400;
const TR_GRP_BEGIN: u32 = 0x80_0000;
const TR_GRP_END: u32 = 0x100_0000;
/// GTKWave colour index of `[color]` (1 = red, 3 = yellow, 4 = green).
const RED: u32 = 1;
const GREEN: u32 = 4;

struct Gtkw(String);
impl Gtkw {
    fn line(&mut self, s: &str) {
        self.0.push_str(s);
        self.0.push('\n');
    }
    fn group(&mut self, name: &str, body: impl FnOnce(&mut Gtkw)) {
        self.line(&format!("@{:x}", TR_GRP_BEGIN | TR_BLANK));
        self.line(&format!("-{name}"));
        body(self);
        self.line(&format!("@{:x}", TR_GRP_END | TR_BLANK));
        self.line(&format!("-{name}"));
    }
    fn sig(&mut self, scope: &str, name: &str, width: u32, extra: u32, color: Option<u32>) {
        let fmt = match name {
            _ if width == 1 => TR_BIN,
            n if n.starts_with("cmd__v") => TR_DEC | TR_SIGNED,
            n if n.starts_with("out__q") || n.starts_with("out__block") || n.ends_with("prim") => TR_DEC,
            _ => TR_HEX,
        };
        self.line(&format!("@{:x}", fmt | TR_RJUSTIFY | extra));
        if let Some(c) = color {
            self.line(&format!("[color] {c}"));
        }
        self.line(&gtkw_name(scope, name, width));
    }
}

/// Write a GTKWave save file for `vcd` (written by [`write_vcd`] from `w`): the view starts at
/// the window, the primary marker sits on `marker_cycle`; first the `diff` group (`any` and the
/// ports that differ, highlighted red), then each differing port as an rtl / golden / diff triple,
/// then every other output port as an rtl / golden pair, then the inputs.
pub fn write_gtkw(path: &Path, vcd: &Path, w: &Window, marker_cycle: u64, title: &str) -> Result<(), String> {
    let abs = |p: &Path| std::path::absolute(p).unwrap_or_else(|_| p.to_path_buf());
    let diffs = differing_ports(w);
    let out_names: Vec<String> = ports(&[0; OUT_W]).into_iter().map(|p| p.0).collect();
    let span = (w.cycles().max(1) * 10) as f64;
    let zoom = (1400.0 / span).log2(); // GTKWave: 2^-zoom time units per pixel
    let mut g = Gtkw(String::new());
    g.line(&format!("[*] {}", title.replace('\n', " ")));
    g.line(&format!("[dumpfile] \"{}\"", abs(vcd).display()));
    g.line(&format!("[savefile] \"{}\"", abs(path).display()));
    g.line(&format!("[timestart] {}", time_of(w.from)));
    g.line("[size] 1600 1000");
    g.line("[pos] -1 -1");
    g.line(&format!("*{zoom:.6} {}{}", time_of(marker_cycle), " -1".repeat(26)));
    g.line("[treeopen] tb.");
    g.line("[sst_width] 220");
    g.line("[signals_width] 300");
    g.line("[sst_expanded] 1");
    g.line("[sst_vpaned_height] 300");
    g.sig("", "clock", 1, 0, None);
    g.line(&format!("@{:x}", TR_DEC | TR_RJUSTIFY));
    g.line("tb.cycle[31:0]");
    g.line("tb.cmd_index[31:0]");
    g.group("diff (rtl != golden)", |g| {
        g.sig("diff", "any", 1, TR_HIGHLIGHT, Some(RED));
        for n in &diffs {
            g.sig("diff", n, 1, TR_HIGHLIGHT, Some(RED));
        }
    });
    for n in &diffs {
        g.group(&format!("{n}: rtl | golden"), |g| {
            g.sig("rtl", n, out_width(n), TR_HIGHLIGHT, Some(RED));
            g.sig("golden", n, out_width(n), 0, Some(GREEN));
            g.sig("diff", n, 1, 0, Some(RED));
        });
    }
    g.group("outputs: rtl | golden", |g| {
        for n in out_names.iter().filter(|n| !diffs.contains(n)) {
            g.sig("rtl", n, out_width(n), 0, None);
            g.sig("golden", n, out_width(n), 0, None);
        }
    });
    g.group("inputs", |g| {
        for (n, wd) in in_port_names() {
            g.sig("in", n, wd, 0, None);
        }
    });
    g.line("[pattern_trace] 1");
    g.line("[pattern_trace] 0");
    std::fs::write(path, g.0).map_err(|e| format!("{}: {e}", path.display()))
}

/// Re-run the failing co-simulation and write `<dir>/<name>.vcd` (cycles
/// `[m.cycle - window, m.cycle + AFTER]`) and `<dir>/<name>.gtkw` (marker at `m.cycle`).
/// The re-run must reproduce `m` (same first cycle, port and values), else an error. For a
/// `<timeout>` the window ends at the last cycle run. Returns the two paths.
#[allow(clippy::too_many_arguments)]
pub fn dump_mismatch(
    model: &str,
    cfg: &Config,
    cmds: &[Cmd],
    stim: &Stimulus,
    m: &Mismatch,
    window: u64,
    dir: &Path,
    name: &str,
) -> Result<(PathBuf, PathBuf), String> {
    let timeout = m.port == "<timeout>";
    let from = m.cycle.saturating_sub(window);
    let to = if timeout { m.cycle } else { m.cycle + AFTER + 1 };
    let w = record_window(model, cfg, cmds, stim, from, to)?;
    if !timeout {
        let first = w.first_diff();
        if first != Some(m.cycle) {
            return Err(format!(
                "re-run diverged: first difference at {first:?}, the run reported cycle {}",
                m.cycle
            ));
        }
        let k = (m.cycle - from) as usize;
        let pr = ports(Window::words(&w.rtl, k, OUT_W));
        let pm = ports(Window::words(&w.model, k, OUT_W));
        let j = pr
            .iter()
            .position(|p| p.0 == m.port)
            .ok_or(format!("unknown port {}", m.port))?;
        if (pr[j].1, pm[j].1) != (m.rtl, m.model) {
            return Err(format!(
                "re-run diverged: {} is rtl {:#x} model {:#x}, the run reported {:#x} {:#x}",
                m.port, pr[j].1, pm[j].1, m.rtl, m.model
            ));
        }
    }
    std::fs::create_dir_all(dir).map_err(|e| format!("{}: {e}", dir.display()))?;
    let vcd = dir.join(format!("{name}.vcd"));
    let gtkw = dir.join(format!("{name}.gtkw"));
    write_vcd(&vcd, &w)?;
    let title = format!(
        "tilerast {model}: cycle {} port {} rtl {:#x} golden {:#x}",
        m.cycle, m.port, m.rtl, m.model
    );
    write_gtkw(&gtkw, &vcd, &w, m.cycle.min(w.from + w.cycles() - 1), &title)?;
    Ok((vcd, gtkw))
}

/// A failed co-simulation with its waveform dump.
#[derive(Debug)]
pub struct Failure {
    pub mismatch: Mismatch,
    /// `(vcd, gtkw)` paths, or why they could not be written.
    pub dump: Result<(PathBuf, PathBuf), String>,
}

impl fmt::Display for Failure {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        writeln!(f, "{}", self.mismatch)?;
        match &self.dump {
            Ok((vcd, gtkw)) => write!(
                f,
                "waveform: {} (open with `gtkwave {}`)",
                vcd.display(),
                gtkw.display()
            ),
            Err(e) => write!(f, "no waveform: {e}"),
        }
    }
}

/// [`crate::cosim_model`], and on a mismatch [`dump_mismatch`] into `dir` as `name.{vcd,gtkw}`.
pub fn cosim_dump(
    model: &str,
    cfg: &Config,
    cmds: &[Cmd],
    stim: &Stimulus,
    window: u64,
    dir: &Path,
    name: &str,
) -> Result<Summary, Box<Failure>> {
    crate::cosim_model(model, cfg, cmds, stim, None).map_err(|m| {
        let dump = dump_mismatch(model, cfg, cmds, stim, &m, window, dir, name);
        Box::new(Failure { mismatch: m, dump })
    })
}
