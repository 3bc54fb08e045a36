//! `tilerast explore`: sweep config parameters over one scene and tabulate every stage's
//! statistics ([`FrameStats::rows`]), as a table on stdout, a CSV and a plot.
//!
//! Combinations are the cartesian product of the option lists, iterated with `--tile`
//! outermost, then `--subtile`, `--msaa`, `--colours`, `--coverage-test` innermost (that is
//! also the order of table and CSV rows). An option not given contributes the scene config's
//! own value. `--sweep FIELD=V1,V2,…` (repeatable) sweeps any other field of the config, inside
//! those five, in command-line order (`--sweep msaa=…` is `--msaa …`); each gets a column of
//! its own. `--cycles` adds the frame top's cycle figures ([`CycleFigures`]: frame cycles per
//! phase, the raster core alone, bytes through the memory port, frames per second at each
//! board's clock), from the cycle model the RTL equals every cycle; a combination the frame
//! top is not built for gets empty cells and a `note:` naming the field.
//!
//! Invalid values: a value that is invalid on its own (checked against the scene's config with
//! only that option changed, when the failing field is the option's own field, e.g.
//! `--tile 3`) is an error naming the option and the value. A combination that is invalid only
//! because of the interplay of options (e.g. `--tile 8 --subtile 16`) is skipped with a
//! `note:` line on stderr; if every combination is skipped, that is an error.
//!
//! Parallel: the combinations run on every core (a rayon pool, `RAYON_NUM_THREADS` or the
//! core count; see [`sweep`]); rows are gathered in sweep order, so the output is byte for byte
//! a 1-thread run's.
//!
//! ```text
//!   lists ─► validate values ─► product ─► per combination: render_stream ─► stats.rows()
//!                                 (rayon pool, any order; progress bar)            │
//!                    table (stdout) ◄── CSV ◄── plot ◄── rows in sweep order ◄─────┘
//! ```

use crate::error::{CliError, Res};
use crate::plot::{Group, Plot, Series, MAX_SERIES};
use crate::progress::Progress;
use crate::render::fmt_num;
use std::io::Write;
use std::path::PathBuf;
use tilerast_golden::frame::{CycleFigures, FrameCycle};
use tilerast_golden::pipeline::FrameStats;
use tilerast_golden::{Config, CoverageTest, Frame};

/// The swept parameters' lists, as given on the command line (comma-separated).
#[derive(Clone, Debug, Default)]
pub struct SweepArgs {
    pub tile: Option<String>,
    pub subtile: Option<String>,
    pub msaa: Option<String>,
    pub colours: Option<String>,
    pub coverage_test: Option<String>,
    /// `--sweep FIELD=V1,V2,…`, in command-line order: any other field of the config.
    pub fields: Vec<String>,
}

/// One combination's parameter values.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct Combo {
    pub tile: [u32; 2],
    pub subtile: [u32; 2],
    pub msaa: u32,
    pub colours: u32,
    pub coverage_test: CoverageTest,
    /// The `--sweep` fields' values: (config field, value as the config's JSON has it).
    pub extra: Vec<(String, serde_json::Value)>,
}

impl Combo {
    fn apply(&self, base: &Config) -> Res<Config> {
        let mut c = base.clone();
        c.tile = self.tile;
        c.subtile = self.subtile;
        c.msaa = self.msaa;
        c.colours_per_pixel = self.colours;
        c.coverage_test = self.coverage_test;
        for (field, v) in &self.extra {
            c = with_field(&c, field, v)
                .map_err(|e| CliError::at("--sweep", format!("{field}={}", json_label(v)), e))?;
        }
        Ok(c)
    }
    fn describe(&self) -> String {
        let mut d = format!(
            "tile={} subtile={} msaa={} colours={} coverage_test={}",
            size_str(self.tile),
            size_str(self.subtile),
            self.msaa,
            self.colours,
            ct_name(self.coverage_test)
        );
        for (f, v) in &self.extra {
            d += &format!(" {f}={}", json_label(v));
        }
        d
    }
}

/// The config fields with an option of their own (`--sweep` of one of them is that option).
const OWN_OPTIONS: [(&str, &str); 5] = [
    ("tile", "--tile"),
    ("subtile", "--subtile"),
    ("msaa", "--msaa"),
    ("colours_per_pixel", "--colours"),
    ("coverage_test", "--coverage-test"),
];

/// `base` with config field `field` set to `v` (through the config's JSON form, so every field
/// the config file format has can be swept); `Err` is serde's reason.
fn with_field(base: &Config, field: &str, v: &serde_json::Value) -> Result<Config, String> {
    let mut j = serde_json::to_value(base).map_err(|e| e.to_string())?;
    j[field] = v.clone();
    serde_json::from_value(j).map_err(|e| e.to_string())
}

/// A swept value as the table shows it: sizes as `N` or `WxH`, strings bare.
fn json_label(v: &serde_json::Value) -> String {
    match v {
        serde_json::Value::String(s) => s.clone(),
        serde_json::Value::Array(a) if a.len() == 2 && a.iter().all(|x| x.is_u64()) => {
            size_str([a[0].as_u64().unwrap_or(0) as u32, a[1].as_u64().unwrap_or(0) as u32])
        }
        v => v.to_string(),
    }
}

/// One `--sweep FIELD=V1,V2,…`: the field and its values, each parsed as the field's kind in
/// `base` (a size `N` or `WxH`, a whole number, `true`/`false`, or a name) and checked alone.
fn field_list(base: &Config, spec: &str) -> Res<(String, Vec<serde_json::Value>)> {
    let Some((field, list)) = spec.split_once('=') else {
        return Err(CliError::at(
            "--sweep",
            spec,
            "expected FIELD=V1,V2,… (e.g. quads_per_clock=1,2,4 or second_tile=32x16,64x32)",
        ));
    };
    let field = field.trim();
    let j = serde_json::to_value(base).map_err(|e| CliError::at("--sweep", spec, e))?;
    let obj = j
        .as_object()
        .ok_or_else(|| CliError::at("--sweep", spec, "the config is not an object"))?;
    let Some(kind) = obj.get(field).filter(|_| field != "name") else {
        let known: Vec<&str> = obj.keys().map(String::as_str).filter(|k| *k != "name").collect();
        return Err(CliError::at(
            "--sweep",
            field,
            format!("unknown config field (known: {})", known.join(", ")),
        ));
    };
    let mut out = Vec::new();
    for v in split("--sweep", list)? {
        let at = format!("{field}={v}");
        let value = match kind {
            serde_json::Value::Array(_) => {
                let [w, h] = parse_size("--sweep", &v)
                    .map_err(|_| CliError::at("--sweep", &at, "expected a size in pixels, N or WxH"))?;
                serde_json::json!([w, h])
            }
            serde_json::Value::Number(_) => serde_json::json!(v.parse::<u32>().map_err(|_| CliError::at(
                "--sweep",
                &at,
                "expected a whole number"
            ))?),
            serde_json::Value::Bool(_) => serde_json::json!(v.parse::<bool>().map_err(|_| CliError::at(
                "--sweep",
                &at,
                "expected true or false"
            ))?),
            serde_json::Value::String(_) => serde_json::json!(v),
            _ => return Err(CliError::at("--sweep", field, "this field cannot be swept")),
        };
        let cfg = with_field(base, field, &value).map_err(|e| CliError::at("--sweep", &at, e))?;
        check_alone("--sweep", &at, field, cfg)?;
        out.push(value);
    }
    Ok((field.to_string(), out))
}

fn size_str(s: [u32; 2]) -> String {
    if s[0] == s[1] {
        s[0].to_string()
    } else {
        format!("{}x{}", s[0], s[1])
    }
}

/// Name of a coverage test as written in configs.
pub fn ct_name(c: CoverageTest) -> &'static str {
    match c {
        CoverageTest::Edge => "edge",
        CoverageTest::Samples => "samples",
        CoverageTest::BboxOnly => "bbox_only",
    }
}

fn split(opt: &str, s: &str) -> Res<Vec<String>> {
    let v: Vec<String> = s.split(',').map(|p| p.trim().to_string()).collect();
    if v.iter().any(String::is_empty) {
        return Err(CliError::at(
            opt,
            s,
            "expected a comma-separated list without empty items",
        ));
    }
    Ok(v)
}

/// `N` (square) or `WxH`.
pub fn parse_size(opt: &str, s: &str) -> Res<[u32; 2]> {
    let bad = || CliError::at(opt, s, "expected a size in pixels, N or WxH (e.g. 32 or 64x32)");
    let parts: Vec<&str> = s.split(['x', 'X']).collect();
    let num = |p: &str| p.trim().parse::<u32>().map_err(|_| bad());
    match parts.as_slice() {
        [n] => {
            let n = num(n)?;
            Ok([n, n])
        }
        [w, h] => Ok([num(w)?, num(h)?]),
        _ => Err(bad()),
    }
}

fn parse_u32(opt: &str, s: &str) -> Res<u32> {
    s.parse::<u32>()
        .map_err(|_| CliError::at(opt, s, "expected a whole number"))
}

fn parse_ct(opt: &str, s: &str) -> Res<CoverageTest> {
    match s {
        "edge" => Ok(CoverageTest::Edge),
        "samples" => Ok(CoverageTest::Samples),
        "bbox_only" => Ok(CoverageTest::BboxOnly),
        _ => Err(CliError::at(opt, s, "expected one of edge, samples, bbox_only")),
    }
}

/// Check one option value alone against `base`: an error when the option's own field fails.
fn check_alone(opt: &str, value: &str, field: &str, cfg: Config) -> Res<()> {
    match cfg.validate() {
        Err(e) if e.field == field => Err(CliError::at(opt, value, format!("config.{}: {}", e.field, e.msg))),
        _ => Ok(()),
    }
}

/// Parse and check every list; return the combinations in sweep order, plus which parameters
/// vary (by column name).
pub fn combinations(base: &Config, a: &SweepArgs) -> Res<(Vec<Combo>, Vec<String>)> {
    // `--sweep` of a field with an option of its own is that option; the rest are extra lists.
    let mut a = a.clone();
    let mut extras: Vec<(String, Vec<serde_json::Value>)> = Vec::new();
    for spec in &a.fields {
        let field = spec.split_once('=').map_or(spec.as_str(), |f| f.0.trim());
        if let Some((_, opt)) = OWN_OPTIONS.iter().find(|o| o.0 == field) {
            let list = spec.split_once('=').map_or("", |f| f.1).to_string();
            let slot = match *opt {
                "--tile" => &mut a.tile,
                "--subtile" => &mut a.subtile,
                "--msaa" => &mut a.msaa,
                "--colours" => &mut a.colours,
                _ => &mut a.coverage_test,
            };
            if slot.is_some() {
                return Err(CliError::at(
                    "--sweep",
                    spec,
                    format!("{field} is swept twice (also by {opt} or another --sweep)"),
                ));
            }
            *slot = Some(list);
            continue;
        }
        let (f, values) = field_list(base, spec)?;
        if extras.iter().any(|e| e.0 == f) {
            return Err(CliError::at("--sweep", spec, format!("{f} is swept twice")));
        }
        extras.push((f, values));
    }
    let a = &a;
    fn list<T: Clone>(
        opt: &str,
        given: &Option<String>,
        default: T,
        parse: impl Fn(&str, &str) -> Res<T>,
        check: impl Fn(&str, &T) -> Res<()>,
    ) -> Res<Vec<T>> {
        match given {
            None => Ok(vec![default]),
            Some(s) => split(opt, s)?
                .iter()
                .map(|v| {
                    let t = parse(opt, v)?;
                    check(v, &t)?;
                    Ok(t)
                })
                .collect(),
        }
    }
    let tiles = list("--tile", &a.tile, base.tile, parse_size, |v, t| {
        check_alone(
            "--tile",
            v,
            "tile",
            Config {
                tile: *t,
                ..base.clone()
            },
        )
    })?;
    let subtiles = list("--subtile", &a.subtile, base.subtile, parse_size, |v, t| {
        check_alone(
            "--subtile",
            v,
            "subtile",
            Config {
                subtile: *t,
                tile: [256, 256],
                ..base.clone()
            },
        )
    })?;
    let msaas = list("--msaa", &a.msaa, base.msaa, parse_u32, |v, t| {
        check_alone(
            "--msaa",
            v,
            "msaa",
            Config {
                msaa: *t,
                ..base.clone()
            },
        )
    })?;
    let colours = list("--colours", &a.colours, base.colours_per_pixel, parse_u32, |v, t| {
        check_alone(
            "--colours",
            v,
            "colours_per_pixel",
            Config {
                colours_per_pixel: *t,
                ..base.clone()
            },
        )
    })?;
    let cts = list(
        "--coverage-test",
        &a.coverage_test,
        base.coverage_test,
        parse_ct,
        |_, _| Ok(()),
    )?;
    let mut varying = Vec::new();
    for (name, n) in [
        ("tile", tiles.len()),
        ("subtile", subtiles.len()),
        ("msaa", msaas.len()),
        ("colours", colours.len()),
        ("coverage_test", cts.len()),
    ]
    .into_iter()
    .chain(extras.iter().map(|e| (e.0.as_str(), e.1.len())))
    {
        if n > 1 {
            varying.push(name.to_string());
        }
    }
    // The extra fields' product, first field outermost.
    let mut extra_combos: Vec<Vec<(String, serde_json::Value)>> = vec![vec![]];
    for (f, values) in &extras {
        extra_combos = extra_combos
            .iter()
            .flat_map(|pre| {
                values.iter().map(move |v| {
                    let mut c = pre.clone();
                    c.push((f.clone(), v.clone()));
                    c
                })
            })
            .collect();
    }
    let mut out = Vec::new();
    for &tile in &tiles {
        for &subtile in &subtiles {
            for &msaa in &msaas {
                for &c in &colours {
                    for &ct in &cts {
                        for extra in &extra_combos {
                            out.push(Combo {
                                tile,
                                subtile,
                                msaa,
                                colours: c,
                                coverage_test: ct,
                                extra: extra.clone(),
                            });
                        }
                    }
                }
            }
        }
    }
    Ok((out, varying))
}

/// One result row.
pub struct Row {
    pub combo: Combo,
    pub stats: Vec<(&'static str, f64)>,
}

/// Parameter columns of the table and CSV.
pub const PARAM_COLUMNS: [&str; 7] = [
    "tile_w",
    "tile_h",
    "subtile_w",
    "subtile_h",
    "msaa",
    "colours_per_pixel",
    "coverage_test",
];

fn param_values(c: &Combo) -> Vec<String> {
    let mut v = vec![
        c.tile[0].to_string(),
        c.tile[1].to_string(),
        c.subtile[0].to_string(),
        c.subtile[1].to_string(),
        c.msaa.to_string(),
        c.colours.to_string(),
        ct_name(c.coverage_test).to_string(),
    ];
    v.extend(c.extra.iter().map(|(_, x)| json_label(x)));
    v
}

/// The parameter columns of `rows`: [`PARAM_COLUMNS`], then the `--sweep` fields.
fn param_columns(rows: &[Row]) -> Vec<String> {
    let mut h: Vec<String> = PARAM_COLUMNS.iter().map(|s| s.to_string()).collect();
    if let Some(r) = rows.first() {
        h.extend(r.combo.extra.iter().map(|(f, _)| f.clone()));
    }
    h
}

/// The terminal table's figures when `--figures` is not given: a handful across the stages
/// (the CSV keeps every figure).
pub const TABLE_FIGURES: [&str; 5] = [
    "prim_list_bytes",
    "subtiles_walked",
    "quads",
    "covered_samples",
    "storage_blocks",
];

/// Aligned text table: the parameters, then the figures named in `figures` (in that order).
pub fn table(rows: &[Row], figures: &[&str]) -> String {
    if rows.is_empty() {
        return String::new();
    }
    let mut header = param_columns(rows);
    header.extend(figures.iter().map(|n| n.to_string()));
    let cells: Vec<Vec<String>> = rows
        .iter()
        .map(|r| {
            let mut v: Vec<String> = param_values(&r.combo);
            v.extend(figures.iter().map(|f| {
                r.stats
                    .iter()
                    .find(|(n, _)| n == f)
                    .filter(|(_, x)| !x.is_nan())
                    .map_or_else(|| "-".to_string(), |(_, x)| fmt_num(*x))
            }));
            v
        })
        .collect();
    let widths: Vec<usize> = (0..header.len())
        .map(|i| {
            cells
                .iter()
                .map(|r| r[i].len())
                .chain([header[i].len()])
                .max()
                .unwrap_or(0)
        })
        .collect();
    let line = |v: &[String]| {
        let s: Vec<String> = v.iter().zip(&widths).map(|(c, w)| format!("{c:>w$}")).collect();
        s.join("  ").trim_end().to_string() + "\n"
    };
    let mut out = line(&header);
    for c in &cells {
        out += &line(c);
    }
    out
}

/// CSV text: a header, then one line per row.
pub fn csv(rows: &[Row]) -> String {
    let Some(first) = rows.first() else {
        return String::new();
    };
    let mut header = param_columns(rows);
    header.extend(first.stats.iter().map(|(n, _)| n.to_string()));
    let mut out = header.join(",") + "\n";
    for r in rows {
        let mut v: Vec<String> = param_values(&r.combo);
        // A figure the combination has no value for (NaN: e.g. `--cycles` where the frame top
        // is not built) is an empty cell.
        v.extend(
            r.stats
                .iter()
                .map(|(_, x)| if x.is_nan() { String::new() } else { format!("{x}") }),
        );
        out += &(v.join(",") + "\n");
    }
    out
}

/// The x parameter of the plot: the first varying parameter (or `tile`).
fn x_param(varying: &[String]) -> &str {
    varying.first().map_or("tile", String::as_str)
}

fn param_label(c: &Combo, p: &str) -> String {
    match p {
        "tile" => size_str(c.tile),
        "subtile" => size_str(c.subtile),
        "msaa" => c.msaa.to_string(),
        "colours" => c.colours.to_string(),
        "coverage_test" => ct_name(c.coverage_test).to_string(),
        p => c
            .extra
            .iter()
            .find(|e| e.0 == p)
            .map_or_else(String::new, |e| json_label(&e.1)),
    }
}

/// Default figures: a primitive-list / binning bytes figure and a quads figure when the stats
/// have them, else the first two rows.
pub fn default_figures(names: &[&'static str]) -> Vec<&'static str> {
    let mut out = Vec::new();
    let pick = |pred: &dyn Fn(&str) -> bool| names.iter().copied().find(|n| pred(n));
    if let Some(n) = pick(&|n| n.contains("bytes") && (n.contains("list") || n.contains("bin")))
        .or_else(|| pick(&|n| n.contains("bytes")))
    {
        out.push(n);
    }
    if let Some(n) = pick(&|n| n.contains("quads") && !out.contains(&n)) {
        out.push(n);
    }
    for n in names {
        if out.len() >= 2 {
            break;
        }
        if !out.contains(n) {
            out.push(n);
        }
    }
    out
}

/// A parameter's name in plot labels (short: legends and captions stay narrow).
fn short_name(p: &str) -> &str {
    match p {
        "coverage_test" => "coverage",
        p => p,
    }
}

/// `name=value` pairs of `params` for `c`, space-separated (e.g. `msaa=4 colours=2`).
fn values_label(c: &Combo, params: &[&str]) -> String {
    let v: Vec<String> = params
        .iter()
        .map(|p| format!("{}={}", short_name(p), param_label(c, p)))
        .collect();
    v.join(" ")
}

/// Which of the non-x parameters (`counts[i]` values each) are drawn as series in a panel;
/// the others make groups (rows of panels). The subset with the most combinations up to
/// [`MAX_SERIES`]; ties go to fewer parameters, then to inner (later) ones. When every
/// parameter alone has more than [`MAX_SERIES`] values, the innermost one (its series are then
/// split over several groups).
pub fn series_params(counts: &[usize]) -> Vec<usize> {
    let mut best: Option<(usize, std::cmp::Reverse<u32>, usize)> = None;
    for mask in 0usize..(1 << counts.len()) {
        let prod: usize = (0..counts.len())
            .filter(|i| mask & (1 << i) != 0)
            .map(|i| counts[i])
            .product();
        let key = (prod, std::cmp::Reverse(mask.count_ones()), mask);
        if prod <= MAX_SERIES && best.is_none_or(|b| key > b) {
            best = Some(key);
        }
    }
    let mask = best.map_or(0, |b| b.2);
    if mask == 0 && !counts.is_empty() {
        return vec![counts.len() - 1];
    }
    (0..counts.len()).filter(|i| mask & (1 << i) != 0).collect()
}

/// Build the plot of `figures` vs the first varying parameter: one series per combination of
/// the series parameters ([`series_params`]), one group (row of panels, one per figure) per
/// combination of the remaining ones, in sweep order. A group with more than [`MAX_SERIES`]
/// series (only when one parameter alone has more values) is split into parts `(1/2)`, ….
pub fn build_plot<S: AsRef<str>>(rows: &[Row], varying: &[S], figures: &[&'static str], scene: &str) -> Plot {
    let varying: Vec<String> = varying.iter().map(|v| v.as_ref().to_string()).collect();
    let xp = x_param(&varying);
    let mut ticks: Vec<String> = Vec::new();
    for r in rows {
        let l = param_label(&r.combo, xp);
        if !ticks.contains(&l) {
            ticks.push(l);
        }
    }
    let others: Vec<&str> = varying.iter().map(String::as_str).filter(|p| *p != xp).collect();
    let counts: Vec<usize> = others
        .iter()
        .map(|p| {
            let mut seen: Vec<String> = Vec::new();
            for r in rows {
                let v = param_label(&r.combo, p);
                if !seen.contains(&v) {
                    seen.push(v);
                }
            }
            seen.len()
        })
        .collect();
    let sp = series_params(&counts);
    let s_params: Vec<&str> = sp.iter().map(|&i| others[i]).collect();
    let g_params: Vec<&str> = (0..others.len())
        .filter(|i| !sp.contains(i))
        .map(|i| others[i])
        .collect();
    let mut groups: Vec<Group> = Vec::new();
    for r in rows {
        let gl = values_label(&r.combo, &g_params);
        let sl = values_label(&r.combo, &s_params);
        let gi = match groups.iter().position(|g| g.label == gl) {
            Some(i) => i,
            None => {
                groups.push(Group {
                    label: gl,
                    series: Vec::new(),
                });
                groups.len() - 1
            }
        };
        let series = &mut groups[gi].series;
        let si = match series.iter().position(|s| s.label == sl) {
            Some(i) => i,
            None => {
                series.push(Series {
                    label: sl,
                    points: vec![Vec::new(); figures.len()],
                });
                series.len() - 1
            }
        };
        let x = ticks
            .iter()
            .position(|t| *t == param_label(&r.combo, xp))
            .expect("tick");
        for (fi, f) in figures.iter().enumerate() {
            let y = r.stats.iter().find(|(n, _)| n == f).map(|s| s.1).unwrap_or(f64::NAN);
            series[si].points[fi].push((x, y));
        }
    }
    let groups = groups
        .into_iter()
        .flat_map(|g| {
            let n = g.series.len();
            if n <= MAX_SERIES {
                return vec![g];
            }
            let parts = n.div_ceil(MAX_SERIES);
            let size = n.div_ceil(parts);
            g.series
                .chunks(size)
                .enumerate()
                .map(|(i, c)| Group {
                    label: format!("{} ({}/{parts})", g.label, i + 1).trim_start().to_string(),
                    series: c.to_vec(),
                })
                .collect()
        })
        .collect();
    let x_label = match xp {
        "tile" => "tile size (px)",
        "subtile" => "first sub-tile size (px)",
        "msaa" => "MSAA samples per pixel",
        "colours" => "colours per pixel",
        "coverage_test" => "coverage test",
        p => p,
    };
    Plot {
        title: format!("tilerast explore: {scene}"),
        x_label: x_label.into(),
        x_ticks: ticks,
        figures: figures.iter().map(|f| f.to_string()).collect(),
        groups,
    }
}

/// Everything `explore` needs besides the frame.
pub struct ExploreOpts {
    pub sweep: SweepArgs,
    pub csv: Option<PathBuf>,
    pub plot: Option<PathBuf>,
    pub figures: Option<String>,
    pub raster_only: bool,
    /// Also the frame top's cycle figures ([`CycleFigures`]) where the frame top is built.
    pub cycles: bool,
    /// No progress bar (`--quiet`).
    pub quiet: bool,
}

fn stats_of(frame: &Frame, file: &str, raster_only: bool) -> Res<FrameStats> {
    let e = |e: tilerast_golden::pipeline::PipelineError| CliError::at(file, "pipeline", e);
    // Streamed, nothing collected: memory is bounded by the tiles in flight, not the quads.
    let none = |_: tilerast_golden::pipeline::Event<'_>| Ok::<(), tilerast_golden::pipeline::PipelineError>(());
    Ok(if raster_only {
        tilerast_golden::pipeline::raster_stream(frame, false, none)
            .map_err(e)?
            .stats
    } else {
        tilerast_golden::pipeline::render_stream(frame, false, none)
            .map_err(e)?
            .stats
    })
}

/// With `--cycles`: the frame top's cycle figures of `frame`, or every one NaN (an empty
/// cell) where the frame top is not built for its config (the reason goes to the notes
/// through [`cycle_notes`]); without, none.
fn cycle_rows(frame: &Frame, file: &str, cycles: bool) -> Res<Vec<(&'static str, f64)>> {
    if !cycles {
        return Ok(vec![]);
    }
    if FrameCycle::supported(&frame.cfg).is_err() {
        // The on-chip RAM is known without the top (it is often why the top is refused).
        let ram = tilerast_golden::frame::ram::frame_ram_bits(&frame.cfg) as f64;
        return Ok(CycleFigures::names()
            .iter()
            .map(|n| (*n, if *n == "ram_bits" { ram } else { f64::NAN }))
            .collect());
    }
    let (c, _) = CycleFigures::measure(frame).map_err(|e| CliError::at(file, "frame cycle model", e))?;
    Ok(c.rows())
}

/// Every valid combination's statistics, in sweep order. The combinations are spread over the
/// threads of the rayon pool the call runs in (the global one: `RAYON_NUM_THREADS` or the core
/// count), work stealing: a combination is one task and its own pipeline run spreads its tiles
/// over the same pool. Rows are collected by index (rayon's indexed `collect`), never in the
/// order they finish, and each combination's figures do not depend on the thread count
/// (`golden/tests/parallel.rs`), so the table, CSV and plot are byte for byte those of a
/// 1-thread run (`explore_on_many_threads_is_byte_for_byte_the_serial_run` in
/// `cli/tests/cli.rs`). An error is the first failing combination's in sweep order, as in a
/// serial run: once one fails, the combinations after it are not started.
fn sweep(frame: &Frame, file: &str, valid: Vec<(Combo, Config)>, o: &ExploreOpts, pb: &Progress) -> Res<Vec<Row>> {
    use rayon::prelude::*;
    use std::sync::atomic::{AtomicUsize, Ordering};
    let first_failed = AtomicUsize::new(usize::MAX);
    let results: Vec<Option<Res<Row>>> = valid
        .into_par_iter()
        .enumerate()
        .map(|(i, (c, cfg))| {
            if i > first_failed.load(Ordering::Relaxed) {
                return None;
            }
            pb.set_message(c.describe());
            let f = Frame {
                cfg,
                background: frame.background,
                prims: frame.prims.clone(),
            };
            let r = match stats_of(&f, file, o.raster_only)
                .and_then(|st| cycle_rows(&f, file, o.cycles).map(|cy| (st, cy)))
            {
                Ok((st, cy)) => {
                    let mut stats = st.rows();
                    stats.extend(cy);
                    Ok(Row { stats, combo: c })
                }
                Err(e) => {
                    first_failed.fetch_min(i, Ordering::Relaxed);
                    Err(CliError(format!("{} ({})", e.0, c.describe())))
                }
            };
            pb.inc(1);
            Some(r)
        })
        .collect();
    // Every combination before the first failure ran (only later ones are skipped).
    results.into_iter().map_while(|r| r).collect()
}

/// Run `explore`; the table goes to `out`, notes to `err`.
pub fn run(frame: &Frame, file: &str, o: &ExploreOpts, out: &mut dyn Write, err: &mut dyn Write) -> Res<()> {
    if let Some(p) = &o.plot {
        let ext = p.extension().and_then(|e| e.to_str()).map(str::to_ascii_lowercase);
        if !matches!(ext.as_deref(), Some("svg") | Some("png")) {
            return Err(CliError::at(
                p.display(),
                "--plot",
                "the plot must be a .svg or .png file",
            ));
        }
    }
    // Figure names are fixed by FrameStats::rows() (and CycleFigures with --cycles): check
    // them before any work.
    let mut names: Vec<&'static str> = FrameStats::default().rows().iter().map(|s| s.0).collect();
    if o.cycles {
        names.extend(CycleFigures::names());
    }
    let figs = match &o.figures {
        None => default_figures(&names),
        Some(s) => split("--figures", s)?
            .iter()
            .map(|f| {
                names.iter().copied().find(|n| n == f).ok_or_else(|| {
                    CliError::at("--figures", f, format!("unknown figure (known: {})", names.join(", ")))
                })
            })
            .collect::<Res<Vec<_>>>()?,
    };
    let (combos, varying) = combinations(&frame.cfg, &o.sweep)?;
    let mut valid = Vec::new();
    let mut skipped = Vec::new();
    for c in combos {
        let cfg = c.apply(&frame.cfg)?;
        match cfg.validate() {
            Ok(()) => {
                if o.cycles {
                    if let Err(e) = FrameCycle::supported(&cfg) {
                        let _ = writeln!(err, "note: no cycle figures for {}: {e}", c.describe());
                    }
                }
                valid.push((c, cfg))
            }
            Err(e) => skipped.push(format!("{}: config.{}: {}", c.describe(), e.field, e.msg)),
        }
    }
    if valid.is_empty() {
        return Err(CliError::at(
            file,
            "explore",
            format!("every combination is invalid (first: {})", skipped[0]),
        ));
    }
    for why in &skipped {
        let _ = writeln!(err, "note: skipping {why}");
    }
    let pb = Progress::new(valid.len() as u64, "combinations", format!("explore {file}"), o.quiet);
    let rows = sweep(frame, file, valid, o, &pb);
    pb.finish();
    let rows = rows?;

    let table_figs: Vec<&str> = if o.figures.is_some() {
        figs.clone()
    } else if o.cycles {
        // The hardware's figures: cycles, bytes through the port, frames per second.
        let mut f = vec!["quads", "frame_cycles", "raster_core_cycles", "port_bytes"];
        f.extend(CycleFigures::names().iter().filter(|n| n.starts_with("fps_")));
        f
    } else {
        TABLE_FIGURES.to_vec()
    };
    out.write_all(table(&rows, &table_figs).as_bytes())
        .map_err(|e| CliError::at("<stdout>", "write", e))?;
    if let Some(p) = &o.csv {
        std::fs::write(p, csv(&rows)).map_err(|e| crate::error::io_err(p, "write", e))?;
    }
    if let Some(p) = &o.plot {
        crate::plot::write(p, &build_plot(&rows, &varying, &figs, file))?;
    }
    Ok(())
}

#[cfg(test)]
mod tests {
    use super::*;

    fn base() -> Config {
        Config::preset("default").unwrap()
    }

    #[test]
    fn sizes_parse() {
        assert_eq!(parse_size("--tile", "32").unwrap(), [32, 32]);
        assert_eq!(parse_size("--tile", "64x32").unwrap(), [64, 32]);
        let e = parse_size("--tile", "abc").unwrap_err();
        assert!(e.0.starts_with("--tile: abc: expected a size"), "{e}");
        assert!(parse_size("--tile", "1x2x3").is_err());
    }

    #[test]
    fn product_order_and_varying() {
        let a = SweepArgs {
            tile: Some("16,32".into()),
            msaa: Some("1,4,16".into()),
            ..Default::default()
        };
        let (c, v) = combinations(&base(), &a).unwrap();
        assert_eq!(c.len(), 6);
        assert_eq!(v, vec!["tile", "msaa"]);
        assert_eq!((c[0].tile, c[0].msaa), ([16, 16], 1));
        assert_eq!((c[2].tile, c[2].msaa), ([16, 16], 16));
        assert_eq!((c[3].tile, c[3].msaa), ([32, 32], 1));
        assert_eq!(c[5].subtile, base().subtile);
    }

    #[test]
    fn bad_values_are_errors_interplay_is_not() {
        let e = combinations(
            &base(),
            &SweepArgs {
                tile: Some("16,3".into()),
                ..Default::default()
            },
        )
        .unwrap_err();
        assert!(e.0.starts_with("--tile: 3: config.tile:"), "{e}");
        let e = combinations(
            &base(),
            &SweepArgs {
                msaa: Some("4,3".into()),
                ..Default::default()
            },
        )
        .unwrap_err();
        assert!(e.0.starts_with("--msaa: 3: config.msaa:"), "{e}");
        let e = combinations(
            &base(),
            &SweepArgs {
                coverage_test: Some("edges".into()),
                ..Default::default()
            },
        )
        .unwrap_err();
        assert!(e.0.starts_with("--coverage-test: edges:"), "{e}");
        let e = combinations(
            &base(),
            &SweepArgs {
                msaa: Some("4,,8".into()),
                ..Default::default()
            },
        )
        .unwrap_err();
        assert!(e.0.starts_with("--msaa: 4,,8:"), "{e}");
        // tile 4 with the preset's 8x8 sub-tile is invalid only in combination: not an error here.
        let (c, _) = combinations(
            &base(),
            &SweepArgs {
                tile: Some("4,32".into()),
                ..Default::default()
            },
        )
        .unwrap();
        assert!(c[0].apply(&base()).unwrap().validate().is_err());
        assert!(c[1].apply(&base()).unwrap().validate().is_ok());
    }

    fn rows() -> Vec<Row> {
        let a = SweepArgs {
            tile: Some("16,32".into()),
            msaa: Some("1,4".into()),
            ..Default::default()
        };
        let (c, _) = combinations(&base(), &a).unwrap();
        c.into_iter()
            .enumerate()
            .map(|(i, combo)| Row {
                stats: vec![("bin_list_bytes", i as f64 * 10.0), ("quads", 0.5 + i as f64)],
                combo,
            })
            .collect()
    }

    #[test]
    fn csv_and_table_shape() {
        let r = rows();
        let text = csv(&r);
        let lines: Vec<&str> = text.lines().collect();
        assert_eq!(lines.len(), 5);
        assert_eq!(
            lines[0],
            "tile_w,tile_h,subtile_w,subtile_h,msaa,colours_per_pixel,coverage_test,bin_list_bytes,quads"
        );
        assert_eq!(lines[4], "32,32,8,8,4,1,edge,30,3.5");
        let t = table(&r, &["bin_list_bytes", "quads"]);
        assert_eq!(t.lines().count(), 5);
        let f: Vec<&str> = t.lines().nth(2).unwrap().split_whitespace().collect();
        assert_eq!(f, ["16", "16", "8", "8", "4", "1", "edge", "10", "1.5"]);
    }

    #[test]
    fn table_figures_are_real_figures() {
        let names: Vec<&str> = FrameStats::default().rows().iter().map(|s| s.0).collect();
        for f in TABLE_FIGURES {
            assert!(names.contains(&f), "{f} is not a FrameStats figure");
        }
    }

    #[test]
    fn plot_series_per_other_parameter() {
        let r = rows();
        let figs = default_figures(&["cycles", "bin_list_bytes", "quads"]);
        assert_eq!(figs, vec!["bin_list_bytes", "quads"]);
        let p = build_plot(&r, &["tile", "msaa"], &figs, "s");
        assert_eq!(p.x_ticks, vec!["16", "32"]);
        assert_eq!(p.figures, vec!["bin_list_bytes", "quads"]);
        assert_eq!(p.groups.len(), 1);
        let s = &p.groups[0].series;
        assert_eq!(s.len(), 2);
        assert_eq!(s[0].label, "msaa=1");
        // rows: (16,1)=0 (16,4)=10 (32,1)=20 (32,4)=30
        assert_eq!(s[0].points[0], vec![(0, 0.0), (1, 20.0)]);
        assert_eq!(s[1].points[0], vec![(0, 10.0), (1, 30.0)]);
        assert_eq!(s[1].points[1], vec![(0, 1.5), (1, 3.5)]);
        assert_eq!(default_figures(&["a", "b", "c"]), vec!["a", "b"]);
    }

    #[test]
    fn series_are_the_largest_combination_up_to_eight() {
        // msaa 4 × colours 3 × coverage 2: msaa × coverage = 8 series, colours makes groups.
        assert_eq!(series_params(&[4, 3, 2]), vec![0, 2]);
        // 5 × 5 × 3: one parameter of 5 (the inner one) beats 3; 15 and 25 are too many.
        assert_eq!(series_params(&[5, 5, 3]), vec![1]);
        // 2 × 2 × 2 = 8: all three.
        assert_eq!(series_params(&[2, 2, 2]), vec![0, 1, 2]);
        // 4 × 2 = 8 beats 4.
        assert_eq!(series_params(&[4, 2, 2, 4]), vec![2, 3]);
        // Ties (4 = 4): the inner one.
        assert_eq!(series_params(&[4, 3, 3, 4]), vec![3]);
        // Nothing fits: the innermost, split later.
        assert_eq!(series_params(&[9, 12]), vec![1]);
        assert_eq!(series_params(&[]), Vec::<usize>::new());
    }

    #[test]
    fn a_parameter_with_more_than_eight_values_is_split_into_parts() {
        // x = msaa (2 values), subtile with 10 values: 2 groups of 5 series.
        let subtiles = ["2", "4", "8", "2x4", "4x2", "2x8", "8x2", "4x8", "8x4", "8x16"];
        let a = SweepArgs {
            subtile: Some(subtiles.join(",")),
            msaa: Some("1,4".into()),
            ..Default::default()
        };
        let (c, v) = combinations(&base(), &a).unwrap();
        assert_eq!(v, vec!["subtile", "msaa"]);
        let r: Vec<Row> = c
            .into_iter()
            .enumerate()
            .map(|(i, combo)| Row {
                stats: vec![("quads", i as f64)],
                combo,
            })
            .collect();
        // x is subtile here (the first varying); swap roles by sweeping x = msaa instead.
        let p = build_plot(&r, &["msaa", "subtile"], &["quads"], "s");
        assert_eq!(p.x_ticks, vec!["1", "4"]);
        assert_eq!(p.groups.len(), 2);
        assert_eq!(p.groups[0].label, "(1/2)");
        assert_eq!(p.groups[1].label, "(2/2)");
        let labels: Vec<&str> = p
            .groups
            .iter()
            .flat_map(|g| g.series.iter().map(|s| s.label.as_str()))
            .collect();
        let want: Vec<String> = subtiles.iter().map(|s| format!("subtile={s}")).collect();
        assert_eq!(labels, want);
        for g in &p.groups {
            assert!(g.series.len() <= MAX_SERIES && g.series.len() == 5);
            for s in &g.series {
                assert_eq!(s.points[0].len(), 2);
            }
        }
    }
}
