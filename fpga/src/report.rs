//! Reports: parse yosys `stat -json` (cell counts by type) and nextpnr `--report` JSON
//! (utilisation per BEL type, achieved Fmax per clock, critical path) into a [`Report`] (one
//! board flow) or a [`BlockRow`] (one block module: its size alone, and its Fmax inside the
//! registered-IO wrapper of [`crate::wrap`]), write them as JSON and Markdown, and rewrite the
//! README's generated tables, each between its own marker pair ([`BEGIN`]/[`END`] for the
//! boards, [`FRAME_BEGIN`]/[`FRAME_END`] for the board tops with a screen,
//! [`BLOCKS_BEGIN`]/[`BLOCKS_END`] for the blocks), prose around them untouched.
//!
//! ```text
//!  stat.json ──► cells{type: n} ─┐
//!  nextpnr-report.json ──────────┴─► Report ─► report.json / report.md ─► board table ─┐
//!  <block>.stat.json + <block>.nextpnr-report.json ─► BlockRow ─► blocks.json ─► block table
//!                                                                    update_readme ◄─┘
//! ```

use crate::{Board, Family, FlowError};
use serde::{Deserialize, Serialize};
use serde_json::Value;
use std::collections::BTreeMap;
use std::path::Path;

/// README markers around the generated board table.
pub const BEGIN: &str = "<!-- fpga-table:begin -->";
/// See [`BEGIN`].
pub const END: &str = "<!-- fpga-table:end -->";
/// Markers around the generated table of the board tops with a screen (`synth --board B
/// --frame`: one row per board, every clock domain's Fmax against its PLL frequency).
pub const FRAME_BEGIN: &str = "<!-- fpga-frame-table:begin -->";
/// See [`FRAME_BEGIN`].
pub const FRAME_END: &str = "<!-- fpga-frame-table:end -->";
/// README markers around the generated per-block table (`synth --blocks`), apart from the
/// board table's so that each is rewritten alone and prose between them stays.
pub const BLOCKS_BEGIN: &str = "<!-- fpga-blocks:begin -->";
/// See [`BLOCKS_BEGIN`].
pub const BLOCKS_END: &str = "<!-- fpga-blocks:end -->";

/// Cell counts by type from yosys `stat -json` (the design total, or the single module).
pub fn parse_yosys_stat(text: &str, file: &str) -> Result<BTreeMap<String, u64>, FlowError> {
    let v: Value = serde_json::from_str(text).map_err(|e| FlowError::at(file, format!("line {}: {e}", e.line())))?;
    let m = match v.get("design") {
        Some(d) if d.get("num_cells_by_type").is_some() => d,
        _ => {
            let mods = v
                .get("modules")
                .and_then(Value::as_object)
                .ok_or_else(|| FlowError::at(file, "field `modules`: missing or not an object"))?;
            if mods.len() != 1 {
                return Err(FlowError::at(
                    file,
                    format!("field `modules`: expected one (flattened) module, found {}", mods.len()),
                ));
            }
            mods.values().next().unwrap()
        }
    };
    let by = m
        .get("num_cells_by_type")
        .and_then(Value::as_object)
        .ok_or_else(|| FlowError::at(file, "field `num_cells_by_type`: missing or not an object"))?;
    let mut cells = BTreeMap::new();
    for (k, n) in by {
        let n = n
            .as_u64()
            .ok_or_else(|| FlowError::at(file, format!("field `num_cells_by_type.{k}`: not a count")))?;
        cells.insert(k.trim_start_matches('\\').to_string(), n);
    }
    Ok(cells)
}

/// Used / available of one BEL type.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Serialize, Deserialize)]
pub struct Util {
    pub used: u64,
    pub available: u64,
}

/// Achieved Fmax of one clock.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
pub struct ClockFmax {
    pub clock: String,
    pub achieved_mhz: f64,
    pub constraint_mhz: f64,
}

impl ClockFmax {
    /// The clock's net name without nextpnr's global-net prefix (`$glbnet$gpu_clock` →
    /// `gpu_clock`).
    pub fn name(&self) -> &str {
        self.clock.trim_start_matches("$glbnet$")
    }
}

/// What nextpnr's `--report` JSON says.
#[derive(Debug, Clone, PartialEq, Default, Serialize, Deserialize)]
pub struct PnrReport {
    pub util: BTreeMap<String, Util>,
    pub clocks: Vec<ClockFmax>,
}

/// Parse nextpnr's `--report` JSON (`utilization.{bel}.{used,available}`,
/// `fmax.{clock}.{achieved,constraint}`).
pub fn parse_nextpnr_report(text: &str, file: &str) -> Result<PnrReport, FlowError> {
    let v: Value = serde_json::from_str(text).map_err(|e| FlowError::at(file, format!("line {}: {e}", e.line())))?;
    let u = v
        .get("utilization")
        .and_then(Value::as_object)
        .ok_or_else(|| FlowError::at(file, "field `utilization`: missing or not an object"))?;
    let num = |x: &Value, path: String| -> Result<f64, FlowError> {
        x.as_f64()
            .ok_or_else(|| FlowError::at(file, format!("field `{path}`: missing or not a number")))
    };
    let mut r = PnrReport::default();
    for (bel, x) in u {
        let used = num(&x["used"], format!("utilization.{bel}.used"))? as u64;
        let available = num(&x["available"], format!("utilization.{bel}.available"))? as u64;
        r.util.insert(bel.clone(), Util { used, available });
    }
    let f = v
        .get("fmax")
        .and_then(Value::as_object)
        .ok_or_else(|| FlowError::at(file, "field `fmax`: missing or not an object"))?;
    for (clk, x) in f {
        r.clocks.push(ClockFmax {
            clock: clk.clone(),
            achieved_mhz: num(&x["achieved"], format!("fmax.{clk}.achieved"))?,
            constraint_mhz: num(&x["constraint"], format!("fmax.{clk}.constraint"))?,
        });
    }
    Ok(r)
}

/// Utilisation from nextpnr's log ("Device utilisation" lines `<BEL>: used/ available`), for
/// runs that failed before writing `--report` (e.g. the design does not fit).
pub fn parse_nextpnr_log_util(log: &str) -> PnrReport {
    let mut r = PnrReport::default();
    for l in log.lines() {
        let t = l.trim_start_matches("Info:").trim();
        if let Some((bel, rest)) = t.split_once(':') {
            if let Some((u, a)) = rest.split_once('/') {
                let a = a.split_whitespace().next().unwrap_or("");
                if let (Ok(used), Ok(available)) = (u.trim().parse(), a.parse()) {
                    if !bel.contains(' ') {
                        r.util.insert(bel.to_string(), Util { used, available });
                    }
                }
            }
        }
    }
    r
}

/// router2's progress in a nextpnr log: (iteration, total overuse) of each
/// `iter=N wires=W overused=U overuse=O` line, in order.
pub fn parse_router2_overuse(log: &str) -> Vec<(u64, u64)> {
    let mut v = Vec::new();
    for l in log.lines() {
        let field = |k: &str| {
            l.split_whitespace()
                .find_map(|w| w.strip_prefix(k))
                .and_then(|x| x.parse::<u64>().ok())
        };
        if let (Some(i), Some(o)) = (field("iter="), field("overuse=")) {
            v.push((i, o));
        }
    }
    v
}

/// Iterations without a new lowest overuse after which router2 counts as diverged once the
/// overuse is back at [`ROUTER2_DIVERGED_FACTOR`] times that lowest value and
/// [`ROUTER2_DIVERGED_MARGIN`] above it (see [`router2_divergence`]).
pub const ROUTER2_DIVERGED_AFTER: u64 = 30;
/// See [`ROUTER2_DIVERGED_AFTER`].
pub const ROUTER2_DIVERGED_FACTOR: u64 = 2;
/// See [`ROUTER2_DIVERGED_AFTER`]: a plateau of a few wires (3, 2, 3, …) is not a divergence.
pub const ROUTER2_DIVERGED_MARGIN: u64 = 100;
/// Iterations without a new lowest overuse after which router2 counts as stalled, whatever
/// the overuse.
pub const ROUTER2_STALLED_AFTER: u64 = 80;

/// Whether the router2 run of this (possibly unfinished) nextpnr log has stopped converging,
/// and why: its lowest overuse was reached [`ROUTER2_DIVERGED_AFTER`] or more iterations ago
/// and the overuse is now at least [`ROUTER2_DIVERGED_FACTOR`] times it and
/// [`ROUTER2_DIVERGED_MARGIN`] above it, or no new lowest came
/// for [`ROUTER2_STALLED_AFTER`] iterations. router2 (nextpnr 0.11) has no iteration limit of
/// its own: such a run would go on for hours. A converging run falls to 0 with short
/// plateaus (the ULX3S `full` core at seed 2: 3 for 7 iterations, then 2, 1, 0).
pub fn router2_divergence(log: &str) -> Option<String> {
    let it = parse_router2_overuse(log);
    let &(last_iter, last) = it.last()?;
    let &(best_iter, best) = it.iter().min_by_key(|&&(i, o)| (o, i))?;
    if best == 0 {
        return None;
    }
    let since = last_iter.saturating_sub(best_iter);
    if since >= ROUTER2_DIVERGED_AFTER
        && last >= ROUTER2_DIVERGED_FACTOR * best
        && last >= best + ROUTER2_DIVERGED_MARGIN
    {
        Some(format!(
            "router2 diverged: overuse {best} at iteration {best_iter}, {last} at iteration {last_iter}"
        ))
    } else if since >= ROUTER2_STALLED_AFTER {
        Some(format!(
            "router2 stalled: overuse {best} at iteration {best_iter}, none lower by iteration {last_iter} ({last})"
        ))
    } else {
        None
    }
}

/// Fmax of the clock with the highest constraint, from each "Max frequency for clock" line of a
/// nextpnr log, in order: the first is the placer's estimate (printed before routing), the last
/// of a finished run the routed figure. Empty if the run stopped before placement ended.
pub fn parse_nextpnr_log_fmax(log: &str) -> Vec<f64> {
    let mut v = Vec::new();
    for l in log.lines() {
        let Some(i) = l.find("Max frequency for clock") else {
            continue;
        };
        let rest = &l[i..];
        // `...': 39.57 MHz (FAIL at 100.00 MHz)`
        if let Some(mhz) = rest
            .split("': ")
            .nth(1)
            .and_then(|t| t.split_whitespace().next())
            .and_then(|n| n.parse::<f64>().ok())
        {
            v.push(mhz);
        }
    }
    v
}

/// Cell classes counted in the tables.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Default, Serialize, Deserialize)]
pub struct Counts {
    pub luts: u64,
    pub ffs: u64,
    pub carries: u64,
    pub bram: u64,
    pub dsp: u64,
    /// Everything else (I/O, PLL, global buffers, distributed RAM).
    pub other: u64,
}

impl Counts {
    /// Classify yosys cell types of `family`.
    pub fn from_cells(family: Family, cells: &BTreeMap<String, u64>) -> Counts {
        let mut c = Counts::default();
        for (t, &n) in cells {
            let t = t.as_str();
            let slot = match family {
                Family::Ice40 => match t {
                    "SB_LUT4" => &mut c.luts,
                    "SB_CARRY" => &mut c.carries,
                    _ if t.starts_with("SB_DFF") => &mut c.ffs,
                    _ if t.starts_with("SB_RAM") => &mut c.bram,
                    "SB_MAC16" => &mut c.dsp,
                    _ => &mut c.other,
                },
                Family::Ecp5 => match t {
                    "LUT4" => &mut c.luts,
                    "CCU2C" => &mut c.carries,
                    "TRELLIS_FF" => &mut c.ffs,
                    "DP16KD" | "PDPW16KD" => &mut c.bram,
                    "MULT18X18D" | "ALU54B" => &mut c.dsp,
                    _ => &mut c.other,
                },
            };
            *slot += n;
        }
        c
    }
}

/// Seconds and command line of one flow step.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
pub struct StepTime {
    pub step: String,
    pub command: String,
    pub secs: f64,
}

/// The report of one board flow (`target/fpga/<board>/report.json`).
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
pub struct Report {
    pub board: String,
    pub title: String,
    pub device: String,
    pub package: String,
    pub preset: String,
    pub top: String,
    /// yosys cell counts.
    pub counts: Counts,
    /// Logic cells placed (`ICESTORM_LC` / `TRELLIS_COMB`, or 2 per `TRELLIS_SLICE`).
    pub lc: Option<Util>,
    pub bram: Option<Util>,
    pub dsp: Option<Util>,
    /// Achieved Fmax of the core clock (the clock with the highest constraint).
    pub fmax_mhz: Option<f64>,
    pub target_mhz: f64,
    /// Fmax goal of the board (`Board::goal_mhz`).
    #[serde(default)]
    pub goal_mhz: f64,
    pub max_lc_frac: f64,
    pub clocks: Vec<ClockFmax>,
    pub util: BTreeMap<String, Util>,
    pub cells: BTreeMap<String, u64>,
    pub steps: Vec<StepTime>,
    pub bitstream: Option<String>,
    /// Why place and route failed (e.g. the design does not fit).
    pub failure: Option<String>,
    /// The nextpnr seed of the place and route this report is of (absent in older reports).
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub seed: Option<u64>,
    /// Seeds tried first whose router2 run was stopped because it stopped converging
    /// ([`router2_divergence`]), as `seed N: reason`.
    #[serde(default, skip_serializing_if = "Vec::is_empty")]
    pub unconverged: Vec<String>,
}

impl Report {
    /// Assemble a report from the parsed tool outputs.
    #[allow(clippy::too_many_arguments)]
    pub fn from_parts(
        board: &Board,
        top: &str,
        preset: Option<&str>,
        cells: &BTreeMap<String, u64>,
        pnr: Option<&PnrReport>,
        steps: Vec<StepTime>,
        bitstream: Option<String>,
        failure: Option<String>,
    ) -> Report {
        let empty = PnrReport::default();
        let p = pnr.unwrap_or(&empty);
        let get = |k: &str| p.util.get(k).copied();
        let lc = lc_util(board.family, p);
        let (bram, dsp) = match board.family {
            Family::Ice40 => (get("ICESTORM_RAM"), get("ICESTORM_DSP")),
            Family::Ecp5 => (get("DP16KD"), get("MULT18X18D")),
        };
        let core = p
            .clocks
            .iter()
            .max_by(|a, b| a.constraint_mhz.total_cmp(&b.constraint_mhz));
        Report {
            board: board.name.into(),
            title: board.title.into(),
            device: board.device.into(),
            package: board.package.into(),
            preset: preset.unwrap_or(board.preset).into(),
            top: top.into(),
            counts: Counts::from_cells(board.family, cells),
            lc,
            bram,
            dsp,
            fmax_mhz: core.map(|c| c.achieved_mhz),
            target_mhz: board.target_mhz(),
            goal_mhz: board.goal_mhz,
            max_lc_frac: board.max_lc_frac,
            clocks: p.clocks.clone(),
            util: p.util.clone(),
            cells: cells.clone(),
            steps,
            bitstream,
            failure,
            seed: None,
            unconverged: Vec::new(),
        }
    }

    /// Goal verdicts, e.g. `fits, meets 48 MHz` / `too big: 6123 of 5280 LCs`.
    pub fn verdict(&self) -> String {
        let mut v = Vec::new();
        if let Some(f) = &self.failure {
            v.push(format!("place and route failed: {f}"));
        }
        if !self.unconverged.is_empty() {
            let at = match (&self.failure, self.seed) {
                (None, Some(s)) => format!("routed at seed {s}"),
                _ => "not routed".into(),
            };
            v.push(format!("{at} ({})", self.unconverged.join("; ")));
        }
        if let Some(lc) = self.lc {
            let frac = lc.used as f64 / lc.available.max(1) as f64;
            if frac > self.max_lc_frac {
                v.push(format!(
                    "over the LC budget: {:.0} % > {:.0} %",
                    frac * 100.0,
                    self.max_lc_frac * 100.0
                ));
            }
        }
        if self.clocks.len() > 1 {
            // A PLL's several clocks: each against its own constraint.
            let missed: Vec<String> = self
                .clocks
                .iter()
                .filter(|c| c.achieved_mhz < c.constraint_mhz)
                .map(|c| format!("{} misses {:.1} MHz", c.name(), c.constraint_mhz))
                .collect();
            if missed.is_empty() {
                v.push(format!("meets all {} clocks", self.clocks.len()));
            } else {
                v.extend(missed);
            }
            return v.join("; ");
        }
        match self.fmax_mhz {
            Some(f) if f >= self.target_mhz => v.push(format!("meets its {} MHz clock", self.target_mhz)),
            Some(_) => v.push(format!("misses its {} MHz clock", self.target_mhz)),
            None => {}
        }
        match self.fmax_mhz {
            Some(f) if self.goal_mhz > self.target_mhz && f < self.goal_mhz => {
                v.push(format!("below the {} MHz goal", self.goal_mhz))
            }
            _ => {}
        }
        if v.is_empty() {
            "no timing result".into()
        } else {
            v.join("; ")
        }
    }

    /// One-paragraph summary for the console.
    pub fn summary(&self) -> String {
        let lc = self
            .lc
            .map(|u| format!("{}/{} LCs ({:.0} %)", u.used, u.available, pct(u)))
            .unwrap_or_else(|| "LCs n/a".into());
        // A PLL's several clocks: each one's Fmax over its own constraint.
        let fmax = if self.clocks.len() > 1 {
            self.clocks
                .iter()
                .map(|c| format!("{} {:.1} of {} MHz", c.name(), c.achieved_mhz, c.constraint_mhz))
                .collect::<Vec<_>>()
                .join(", ")
        } else {
            format!(
                "{} (target {} MHz)",
                self.fmax_mhz
                    .map(|f| format!("{f:.1} MHz"))
                    .unwrap_or_else(|| "n/a".into()),
                self.target_mhz
            )
        };
        format!(
            "  {} [{}]: {}, {} LUT4, {} FF, {} carry, {} BRAM, {} DSP, Fmax {}: {}",
            self.board,
            self.preset,
            lc,
            self.counts.luts,
            self.counts.ffs,
            self.counts.carries,
            self.counts.bram,
            self.counts.dsp,
            fmax,
            self.verdict()
        )
    }

    /// Write `report.json` and `report.md` into `dir`.
    pub fn write(&self, dir: &Path, root: &Path) -> Result<(), FlowError> {
        let j = dir.join("report.json");
        let text = serde_json::to_string_pretty(self).map_err(|e| FlowError::at(j.display(), e))?;
        std::fs::write(&j, text + "\n").map_err(|e| FlowError::at(j.display(), e))?;
        let mut md = format!("# {} — {} ({})\n\n", self.board, self.title, self.top);
        // A top with a PLL's several clocks gets the frame table's row (every clock's Fmax).
        md += &if self.clocks.len() > 1 {
            frame_table_markdown(std::slice::from_ref(self))
        } else {
            table_markdown(std::slice::from_ref(self))
        };
        md += "\n\n| BEL | used | available |\n|---|---:|---:|\n";
        for (k, u) in &self.util {
            md += &format!("| {k} | {} | {} |\n", u.used, u.available);
        }
        md += "\n| clock | achieved MHz | constraint MHz |\n|---|---:|---:|\n";
        for c in &self.clocks {
            md += &format!("| {} | {:.2} | {:.2} |\n", c.clock, c.achieved_mhz, c.constraint_mhz);
        }
        md += "\n| step | seconds | command (from the repository root) |\n|---|---:|---|\n";
        for s in &self.steps {
            md += &format!("| {} | {:.1} | `{}` |\n", s.step, s.secs, s.command.replace('|', "\\|"));
        }
        let m = dir.join("report.md");
        std::fs::write(&m, md).map_err(|e| FlowError::at(m.display(), e))?;
        let _ = root;
        Ok(())
    }
}

fn pct(u: Util) -> f64 {
    100.0 * u.used as f64 / u.available.max(1) as f64
}

fn util_cell(u: Option<Util>) -> String {
    u.map(|u| format!("{}/{} ({:.0} %)", u.used, u.available, pct(u)))
        .unwrap_or_else(|| "—".into())
}

/// The cells both board tables open with: board, preset, LCs, LUT4, FF, carry, BRAM, DSP.
fn size_cells(r: &Report) -> String {
    format!(
        "{} | {} | {} | {} | {} | {} | {} | {}",
        r.board,
        r.preset,
        util_cell(r.lc),
        r.counts.luts,
        r.counts.ffs,
        r.counts.carries,
        r.bram.map(|u| u.used).unwrap_or(r.counts.bram),
        r.dsp.map(|u| u.used).unwrap_or(r.counts.dsp)
    )
}

/// The board table (one row per report).
pub fn table_markdown(reports: &[Report]) -> String {
    let mut s = String::from(
        "| board | preset | LCs used/avail | LUT4 | FF | carry | BRAM | DSP | Fmax MHz | clock MHz | goal MHz | verdict |\n\
         |---|---|---:|---:|---:|---:|---:|---:|---:|---:|---:|---|\n",
    );
    for r in reports {
        s += &format!(
            "| {} | {} | {} | {} | {} |\n",
            size_cells(r),
            r.fmax_mhz.map(|f| format!("{f:.1}")).unwrap_or_else(|| "—".into()),
            r.target_mhz,
            if r.goal_mhz > 0.0 {
                format!("{}", r.goal_mhz)
            } else {
                "—".into()
            },
            r.verdict().replace('|', "\\|")
        );
    }
    s.pop();
    s
}

/// The table of the board tops with a screen (one row per report of `synth --board B
/// --frame`): the board's table columns, but every clock domain's achieved Fmax over its PLL
/// frequency (nextpnr's global-net prefix dropped from the clock names) instead of one Fmax.
pub fn frame_table_markdown(reports: &[Report]) -> String {
    let mut s = String::from(
        "| board | preset | LCs used/avail | LUT4 | FF | carry | BRAM | DSP | Fmax / clock MHz, per domain | verdict |\n\
         |---|---|---:|---:|---:|---:|---:|---:|---|---|\n",
    );
    for r in reports {
        let clocks: Vec<String> = r
            .clocks
            .iter()
            .map(|c| format!("{} {:.1} / {}", c.name(), c.achieved_mhz, c.constraint_mhz))
            .collect();
        s += &format!(
            "| {} | {} | {} |\n",
            size_cells(r),
            if clocks.is_empty() {
                "—".into()
            } else {
                clocks.join(", ")
            },
            r.verdict().replace('|', "\\|")
        );
    }
    s.pop();
    s
}

/// The reg → reg path that limits a clock, from nextpnr's `--report` JSON.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
pub struct CritPath {
    /// Cell the path starts at (the launching flip-flop's).
    pub from: String,
    /// Cell the path ends at (setup).
    pub to: String,
    /// Total delay, ns.
    pub ns: f64,
    /// Of which routing, ns.
    pub routing_ns: f64,
}

impl CritPath {
    /// `from -> to, <ns> ns (<routing> routing)`, with the cell names cut to the signal they
    /// are named after ([`short_cell`]).
    pub fn summary(&self) -> String {
        format!(
            "{} -> {}, {:.1} ns ({:.1} routing)",
            short_cell(&self.from),
            short_cell(&self.to),
            self.ns,
            self.routing_ns
        )
    }
}

/// A placed cell's name cut to the signal it is named after: nextpnr names packed cells by the
/// chain of cells they absorbed (`u.rem_y.q_SB_DFF_Q_5_D_SB_LUT4_O_LC` → `u.rem_y.q`).
pub fn short_cell(name: &str) -> &str {
    const CUTS: [&str; 6] = ["_SB_", "_TRELLIS", "_LUT4", "_CCU2C", "_DFF", "$"];
    let end = CUTS.iter().filter_map(|c| name.find(c)).min().unwrap_or(name.len());
    if end == 0 {
        name
    } else {
        &name[..end]
    }
}

/// The critical path of `clock` (a key of the report's `fmax`) in nextpnr's `--report` JSON
/// (`critical_paths[].{from,to,path[].{type,delay,from.cell,to.cell}}`): the entry from and to
/// `posedge <clock>`; `None` when the report has none (a design without such a path).
pub fn parse_critical_path(text: &str, file: &str, clock: &str) -> Result<Option<CritPath>, FlowError> {
    let v: Value = serde_json::from_str(text).map_err(|e| FlowError::at(file, format!("line {}: {e}", e.line())))?;
    let paths = v
        .get("critical_paths")
        .and_then(Value::as_array)
        .ok_or_else(|| FlowError::at(file, "field `critical_paths`: missing or not an array"))?;
    let edge = format!("posedge {clock}");
    let Some(cp) = paths
        .iter()
        .find(|p| p["from"].as_str() == Some(edge.as_str()) && p["to"].as_str() == Some(edge.as_str()))
    else {
        return Ok(None);
    };
    let segs = cp["path"]
        .as_array()
        .filter(|a| !a.is_empty())
        .ok_or_else(|| FlowError::at(file, "field `critical_paths[].path`: missing or empty"))?;
    let (mut ns, mut routing_ns) = (0.0, 0.0);
    for (i, s) in segs.iter().enumerate() {
        let d = s["delay"].as_f64().ok_or_else(|| {
            FlowError::at(
                file,
                format!("field `critical_paths[].path[{i}].delay`: missing or not a number"),
            )
        })?;
        ns += d;
        if s["type"].as_str() == Some("routing") {
            routing_ns += d;
        }
    }
    let cell = |s: &Value, end: &str| -> Result<String, FlowError> {
        s[end]["cell"]
            .as_str()
            .map(str::to_string)
            .ok_or_else(|| FlowError::at(file, format!("field `critical_paths[].path[].{end}.cell`: missing")))
    };
    // nextpnr labels the clock-to-out segment from the first cell the path enters to the
    // launching flip-flop's output, so the start is that segment's `to`.
    let start = if segs[0]["type"].as_str() == Some("clk-to-q") {
        "to"
    } else {
        "from"
    };
    Ok(Some(CritPath {
        from: cell(&segs[0], start)?,
        to: cell(&segs[segs.len() - 1], "to")?,
        ns,
        routing_ns,
    }))
}

/// Synthesis size of one block module and, unless `--no-pnr`, the Fmax nextpnr reaches for it
/// inside the registered-IO wrapper ([`crate::wrap`]).
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
pub struct BlockRow {
    pub device: String,
    pub preset: String,
    pub block: String,
    pub module: String,
    /// Cells of the block synthesized alone (ports kept, no wrapper).
    pub counts: Counts,
    /// Synthesis seconds.
    pub secs: f64,
    /// Achieved Fmax (MHz) of the wrapper's clock: the block's reg → reg paths, with its inputs
    /// from and its outputs into flip-flops. `None` without place and route, or if it failed.
    #[serde(default)]
    pub fmax_mhz: Option<f64>,
    /// The `--freq` nextpnr was given: the board's Fmax goal (`Board::goal_mhz`).
    #[serde(default)]
    pub target_mhz: f64,
    /// Logic cells nextpnr placed, wrapper included (`ICESTORM_LC` / `TRELLIS_COMB`).
    #[serde(default)]
    pub pnr_lc: Option<Util>,
    /// Cells of the wrapped block (block + wrapper registers) as placed and routed.
    #[serde(default)]
    pub wrapped: Option<Counts>,
    /// Input / output bits the wrapper registers.
    #[serde(default)]
    pub io_bits: Option<(u32, u32)>,
    /// The path that sets [`BlockRow::fmax_mhz`].
    #[serde(default)]
    pub critical: Option<CritPath>,
    /// Wrapper synthesis + place and route seconds.
    #[serde(default)]
    pub pnr_secs: f64,
    /// Why place and route gave no Fmax (e.g. the wrapped block does not fit the device).
    #[serde(default)]
    pub pnr_failure: Option<String>,
    /// Set when place and route was stopped at the time limit (seconds).
    #[serde(default)]
    pub pnr_timeout_secs: Option<f64>,
    /// The placer's Fmax estimate (nextpnr's log, before routing): a hint for a block whose
    /// routing did not finish, never shown as its Fmax.
    #[serde(default)]
    pub placed_fmax_mhz: Option<f64>,
}

impl BlockRow {
    /// A row from yosys cell counts (no place and route yet).
    pub fn new(
        board: &Board,
        preset: &str,
        block: &str,
        module: &str,
        cells: &BTreeMap<String, u64>,
        secs: f64,
    ) -> Self {
        BlockRow {
            device: board.device.into(),
            preset: preset.into(),
            block: block.into(),
            module: module.into(),
            counts: Counts::from_cells(board.family, cells),
            secs,
            fmax_mhz: None,
            target_mhz: board.goal_mhz,
            pnr_lc: None,
            wrapped: None,
            io_bits: None,
            critical: None,
            pnr_secs: 0.0,
            pnr_failure: None,
            pnr_timeout_secs: None,
            placed_fmax_mhz: None,
        }
    }

    /// Record what nextpnr reported for the wrapped block: the Fmax of its clock (the one with
    /// the highest constraint; the wrapper has one) and the logic cells placed.
    pub fn set_pnr(&mut self, family: Family, pnr: &PnrReport) {
        let clk = pnr
            .clocks
            .iter()
            .max_by(|a, b| a.constraint_mhz.total_cmp(&b.constraint_mhz));
        self.fmax_mhz = clk.map(|c| c.achieved_mhz);
        self.pnr_lc = lc_util(family, pnr);
    }

    /// The table's Fmax cell: MHz, or why there is none.
    pub fn fmax_cell(&self) -> String {
        match (self.fmax_mhz, &self.pnr_failure) {
            (Some(f), _) => format!("{f:.1}"),
            (None, Some(_)) => match (self.pnr_lc, self.pnr_timeout_secs) {
                (Some(u), _) if u.used > u.available => format!("— (no fit: {} of {} LCs)", u.used, u.available),
                (_, Some(t)) => match self.placed_fmax_mhz {
                    Some(p) => format!("— (routing not done in {:.0} min; placed: {p:.1})", t / 60.0),
                    None => format!("— (P&R not done in {:.0} min)", t / 60.0),
                },
                _ => match self.placed_fmax_mhz {
                    Some(p) => format!("— (P&R failed; placed: {p:.1})"),
                    None => "— (P&R failed)".into(),
                },
            },
            (None, None) => "—".into(),
        }
    }
}

/// Logic cells of a place-and-route report (`ICESTORM_LC`, or `TRELLIS_COMB` / 2 per
/// `TRELLIS_SLICE`).
pub fn lc_util(family: Family, p: &PnrReport) -> Option<Util> {
    let get = |k: &str| p.util.get(k).copied();
    match family {
        Family::Ice40 => get("ICESTORM_LC"),
        Family::Ecp5 => get("TRELLIS_COMB").or_else(|| {
            get("TRELLIS_SLICE").map(|u| Util {
                used: 2 * u.used,
                available: 2 * u.available,
            })
        }),
    }
}

/// The per-block table: sizes of each block alone, Fmax in the registered-IO wrapper against
/// the board's goal.
pub fn blocks_markdown(rows: &[BlockRow]) -> String {
    let mut s = String::from(
        "| device | preset | block | LUT4 | FF | carry | BRAM | DSP | Fmax MHz | target MHz |\n\
         |---|---|---|---:|---:|---:|---:|---:|---:|---:|\n",
    );
    for r in rows {
        s += &format!(
            "| {} | {} | {} | {} | {} | {} | {} | {} | {} | {} |\n",
            r.device,
            r.preset,
            r.block,
            r.counts.luts,
            r.counts.ffs,
            r.counts.carries,
            r.counts.bram,
            r.counts.dsp,
            r.fmax_cell(),
            if r.target_mhz > 0.0 {
                format!("{}", r.target_mhz)
            } else {
                "—".into()
            }
        );
    }
    s.pop();
    s
}

/// Replace the text between [`BEGIN`] and [`END`] in `readme` (named `file` in errors) by
/// `table` (the board table); the markers stay, and so does everything outside them.
pub fn replace_section(readme: &str, table: &str, file: &str) -> Result<String, FlowError> {
    replace_between(readme, BEGIN, END, table, file)
}

/// Replace the text between the markers `begin` and `end` (each exactly once in `readme`, named
/// `file` in errors) by `table`; the markers and everything outside them stay.
pub fn replace_between(readme: &str, begin: &str, end: &str, table: &str, file: &str) -> Result<String, FlowError> {
    let b = readme
        .find(begin)
        .ok_or_else(|| FlowError::at(file, format!("marker `{begin}` not found")))?;
    let e = readme
        .find(end)
        .ok_or_else(|| FlowError::at(file, format!("marker `{end}` not found")))?;
    let line = |at: usize| readme[..at].lines().count() + 1;
    if e < b {
        return Err(FlowError::at(
            format!("{file}:{}", line(e)),
            format!("`{end}` before `{begin}`"),
        ));
    }
    for (m, at) in [(begin, b), (end, e)] {
        if let Some(again) = readme[at + m.len()..].find(m) {
            return Err(FlowError::at(
                format!("{file}:{}", line(at + m.len() + again)),
                format!("marker `{m}` appears twice"),
            ));
        }
    }
    let table = table.trim_end();
    let nl = if table.is_empty() { "" } else { "\n" };
    Ok(format!("{}{begin}\n{table}{nl}{}", &readme[..b], &readme[e..]))
}

/// README heading under which the per-block table goes when its markers are missing.
pub const FPGA_HEADING: &str = "## FPGA";

/// Rewrite the generated tables of the README: the board table between [`BEGIN`] / [`END`]
/// (when `boards` is given), the table of the board tops with a screen between
/// [`FRAME_BEGIN`] / [`FRAME_END`] (when `frames` is given), the per-block table between [`BLOCKS_BEGIN`] / [`BLOCKS_END`]
/// (when `blocks` is given; a missing marker pair is added at the end of the README's
/// [`FPGA_HEADING`] section). Nothing outside the markers changes; a table that is not given
/// keeps its old text. The block markers must not sit inside the board markers (the board
/// table would overwrite them).
pub fn update_readme(
    readme: &str,
    boards: Option<&str>,
    frames: Option<&str>,
    blocks: Option<&str>,
    file: &str,
) -> Result<String, FlowError> {
    let mut text = readme.to_string();
    if let Some(t) = boards {
        text = replace_section(&text, t, file)?;
    }
    if let Some(t) = frames {
        text = replace_between(&text, FRAME_BEGIN, FRAME_END, t, file)?;
    }
    if let Some(t) = blocks {
        if !text.contains(BLOCKS_BEGIN) && !text.contains(BLOCKS_END) {
            let h = text
                .lines()
                .scan(0usize, |at, l| {
                    let here = *at;
                    *at += l.len() + 1;
                    Some((here, l))
                })
                .find(|(_, l)| l.trim_end() == FPGA_HEADING)
                .map(|(at, _)| at)
                .ok_or_else(|| {
                    FlowError::at(
                        file,
                        format!("no `{FPGA_HEADING}` section to put the `{BLOCKS_BEGIN}` markers in"),
                    )
                })?;
            let body = h + FPGA_HEADING.len();
            let next = text[body..].find("\n## ").map_or(text.len(), |i| body + i + 1);
            let before = text[..next].trim_end();
            text = format!("{before}\n\n{BLOCKS_BEGIN}\n{BLOCKS_END}\n\n{}", &text[next..]);
        }
        text = replace_between(&text, BLOCKS_BEGIN, BLOCKS_END, t, file)?;
    }
    if let (Some(b), Some(e), Some(bb)) = (text.find(BEGIN), text.find(END), text.find(BLOCKS_BEGIN)) {
        if b < bb && bb < e {
            let line = text[..bb].lines().count() + 1;
            return Err(FlowError::at(
                format!("{file}:{line}"),
                format!("`{BLOCKS_BEGIN}` inside the board table's markers; move it after `{END}`"),
            ));
        }
    }
    Ok(text)
}

/// Load `target/fpga/<board>/report.json` of every board that has one, in board-table order.
pub fn load_reports(root: &Path) -> Result<Vec<Report>, FlowError> {
    let mut v = Vec::new();
    for b in crate::BOARDS.iter() {
        // The board's own top, then the same board with every other preset (`--preset`).
        let mut dirs = vec![b.name.to_string()];
        dirs.extend(
            tilerast_golden::PRESETS
                .iter()
                .filter(|p| **p != b.preset)
                .map(|p| format!("{}-{p}", b.name)),
        );
        for d in dirs {
            let p = root.join("target/fpga").join(d).join("report.json");
            if p.is_file() {
                let t = std::fs::read_to_string(&p).map_err(|e| FlowError::at(p.display(), e))?;
                v.push(
                    serde_json::from_str(&t)
                        .map_err(|e| FlowError::at(p.display(), format!("line {}: {e}", e.line())))?,
                );
            }
        }
    }
    Ok(v)
}

/// Load `target/fpga/<board>-frame/report.json` of every board with a frame row that has one
/// (`synth --board B --frame`), in board-table order.
pub fn load_frame_reports(root: &Path) -> Result<Vec<Report>, FlowError> {
    let mut v = Vec::new();
    for b in crate::BOARDS.iter().filter(|b| b.frame.is_some()) {
        let p = root
            .join("target/fpga")
            .join(format!("{}-frame", b.name))
            .join("report.json");
        if p.is_file() {
            let t = std::fs::read_to_string(&p).map_err(|e| FlowError::at(p.display(), e))?;
            v.push(
                serde_json::from_str(&t).map_err(|e| FlowError::at(p.display(), format!("line {}: {e}", e.line())))?,
            );
        }
    }
    Ok(v)
}

/// Load every `target/fpga/blocks-*/blocks.json`.
pub fn load_blocks(root: &Path) -> Result<Vec<BlockRow>, FlowError> {
    let mut v = Vec::new();
    let dir = root.join("target/fpga");
    let mut dirs: Vec<_> = match std::fs::read_dir(&dir) {
        Ok(r) => r.filter_map(|e| e.ok()).map(|e| e.path()).collect(),
        Err(_) => return Ok(v),
    };
    dirs.sort();
    for d in dirs {
        let p = d.join("blocks.json");
        if d.file_name()
            .is_some_and(|n| n.to_string_lossy().starts_with("blocks-"))
            && p.is_file()
        {
            let t = std::fs::read_to_string(&p).map_err(|e| FlowError::at(p.display(), e))?;
            let rows: Vec<BlockRow> =
                serde_json::from_str(&t).map_err(|e| FlowError::at(p.display(), format!("line {}: {e}", e.line())))?;
            v.extend(rows);
        }
    }
    Ok(v)
}
