//! `tilerast regress`: random co-simulation of the RTL against the golden models
//! (`tilerast_cosim::regress`), seeded, chunked and shardable, with a progress bar and a
//! summary; or (`--scene F`) one scene file with its `.stim.json` sidecar, e.g. a saved
//! failing case.
//!
//! ```text
//!   --preset/--seed/--count/--chunk/--shard ─► regress::run ─► per chunk: cosim + checks ─► bar
//!   --scene F (+ F.stim.json)               ─► regress::check_frame ─────────────────────┐
//!                                                                                        ▼
//!                      summary line (primitives, quads, cycles, mismatches, cycles/s, wall)
//! ```
//!
//! Exit codes: 0 clean, 1 a mismatch or failed check (the shrunk case is saved under `--out`),
//! 2 bad arguments or an unreadable scene (one line on stderr).

use crate::error::{CliError, Res};
use crate::progress::Progress;
use std::path::PathBuf;
use std::time::Duration;
use tilerast_cosim::regress::{self, RunCfg, CLASSES};
use tilerast_cosim::{Stimulus, MODELS};
use tilerast_golden::{Config, PRESETS};

/// Arguments of `tilerast regress`.
#[derive(clap::Args, Debug)]
pub struct RegressArgs {
    /// Preset: ice40, default or full (default ice40; with --scene, the scene's own).
    #[arg(long)]
    pub preset: Option<String>,
    /// Random primitives in the whole (unsharded) run.
    #[arg(long, default_value_t = 100_000)]
    pub count: u64,
    /// Seed; the same seed gives the same primitives and stimulus.
    #[arg(long, default_value_t = 1)]
    pub seed: u64,
    /// Run this scene file (with its `<name>.stim.json` stimulus if present) instead.
    #[arg(long, value_name = "FILE")]
    pub scene: Option<PathBuf>,
    /// Run only shard K of N (1-based): chunks i with i % N == K - 1.
    #[arg(long, value_name = "K/N")]
    pub shard: Option<String>,
    /// Primitives per chunk (each chunk is one frame with its own stimulus).
    #[arg(long, default_value_t = 1000)]
    pub chunk: u64,
    /// Keep going after a failure (every failing chunk is shrunk and saved).
    #[arg(long)]
    pub keep_going: bool,
    /// Directory for failing cases (scene + .stim.json, unshrunk copy, waveform).
    #[arg(long, value_name = "DIR", default_value = "target/regress")]
    pub out: PathBuf,
    /// Time cap for shrinking one failing chunk, seconds.
    #[arg(long, default_value_t = 60.0)]
    pub shrink_secs: f64,
    /// Co-simulate this config instead of a preset: a JSON object as `tilerast rtl --config`
    /// takes (`{"preset": "default", "msaa": 8, …}`). Its core is emitted, verilated and compiled
    /// on first use and cached under target/rtl-models/ by content hash.
    #[arg(long, value_name = "FILE", conflicts_with = "scene")]
    pub config: Option<PathBuf>,
    /// Override one config field (repeatable), as `tilerast rtl --set`: `msaa=8`, `cull=cw`,
    /// `tile=[32,16]`; with --preset or --config as the base (default ice40).
    #[arg(long = "set", value_name = "FIELD=VALUE", conflicts_with = "scene")]
    pub set: Vec<String>,
    /// Also write the run's summary as JSON (counts, failures with their saved scenes) for
    /// `--merge`: what each job of a sharded CI run uploads. The raster core's and the whole
    /// frame's regressions (`--frame`) write it.
    #[arg(long, value_name = "FILE", conflicts_with = "back_end")]
    pub summary_json: Option<PathBuf>,
    /// Merge the `--summary-json` files of a sharded run instead of running: a Markdown table
    /// per regression and preset (and seed), checking that every shard 1..N is there exactly once. Exit 1 on a
    /// mismatch or a missing shard.
    #[arg(long, value_name = "SUMMARY", num_args = 1.., conflicts_with_all = ["scene", "config", "set", "shard"])]
    pub merge: Vec<PathBuf>,
    /// Regress the pixel back end (`rtl-out/tilerast_pixel_back_end_<preset>.v`) instead of the
    /// raster core: per chunk, golden's scatter stream of a random frame through the RTL with a
    /// random memory behind its port (latency, depth, back-pressure, a long stall), every port
    /// on every cycle against the cycle model, then the memory against golden's framebuffer and
    /// its image against `render_frame`'s. A failing chunk is shrunk and saved (scene,
    /// `.drive.json`, side-by-side `.vcd`); `--scene F --back-end` reruns one.
    #[arg(long, conflicts_with_all = ["config", "set", "merge"])]
    pub back_end: bool,
    /// Regress the whole frame top (`rtl-out/tilerast_frame_<preset>.v`: primitives in,
    /// framebuffer out) instead of the raster core: per chunk, a random frame through the RTL
    /// with a random memory behind its port (latency, depth, back-pressure, a long stall, input
    /// gaps), every port on every cycle against `FrameCycle`, then the whole memory at Done
    /// against golden's `frame_memory` byte for byte, the image against `render_frame`'s and
    /// every client's bytes against golden's statistics. A failing chunk is shrunk and saved
    /// (scene, `.drive.json`, side-by-side `.vcd`); `--scene F --frame` reruns one.
    #[arg(long, conflicts_with_all = ["config", "set", "merge", "back_end", "model"])]
    pub frame: bool,
    /// No progress bar on stderr (one is drawn only on a terminal, for a run past 2 s).
    #[arg(long)]
    pub quiet: bool,
    /// RTL model (a preset, or `ice40_mut`: ice40 with a planted bug, for tests).
    #[arg(long, hide = true)]
    pub model: Option<String>,
}

/// A bad argument: one line on stderr, exit code 2.
fn usage(msg: String) -> ! {
    eprintln!("error: {}", CliError(msg).one_line());
    std::process::exit(2);
}

fn parse_shard(s: &str) -> Result<(u64, u64), String> {
    let bad = || format!("--shard: `{s}`: expected K/N with 1 <= K <= N");
    let (k, n) = s.split_once('/').ok_or_else(bad)?;
    let (k, n): (u64, u64) = (
        k.trim().parse().map_err(|_| bad())?,
        n.trim().parse().map_err(|_| bad())?,
    );
    if k == 0 || n == 0 || k > n {
        return Err(bad());
    }
    Ok((k, n))
}

fn check_model(model: &str, preset: &str) -> Result<(), String> {
    match regress::model_preset(model) {
        Some(p) if p == preset => Ok(()),
        Some(p) => Err(format!("--model: `{model}` implements preset {p}, not {preset}")),
        None => Err(format!(
            "--model: unknown model `{model}` (known: {})",
            MODELS.join(", ")
        )),
    }
}

fn summary_line(preset: &str, model: &str, st: &regress::RunStats, shard: (u64, u64), seed: u64) -> String {
    let secs = st.secs.max(1e-9);
    format!(
        "summary: preset {preset} model {model} seed {seed} shard {}/{} chunks {} primitives {} commands {} \
         quads {} samples {} cycles {} flushes {} mismatches {} cycles/s {:.0} prims/s {:.0} wall {:.2}s \
         (rtl {:.2}s, golden+reference {:.2}s)",
        shard.0,
        shard.1,
        st.chunks,
        st.prims,
        st.commands,
        st.quads,
        st.samples,
        st.cycles,
        st.flushes,
        st.failures.len(),
        st.cycles as f64 / secs,
        st.prims as f64 / secs,
        st.secs,
        st.rtl_secs,
        st.check_secs
    )
}

/// Run `tilerast regress`.
pub fn run(a: &RegressArgs) -> Res<()> {
    if let Some(p) = &a.preset {
        if !PRESETS.contains(&p.as_str()) {
            usage(format!(
                "--preset: unknown preset `{p}` (known: {})",
                PRESETS.join(", ")
            ));
        }
    }
    if !a.merge.is_empty() {
        return merge(&a.merge, &mut std::io::stdout());
    }
    if a.back_end {
        return run_back_end(a);
    }
    if a.frame {
        return run_frame(a);
    }
    if let Some(scene) = &a.scene {
        return run_scene(a, scene);
    }
    let (preset, model) = if a.config.is_some() || !a.set.is_empty() {
        if a.model.is_some() {
            usage("--model: not with --config / --set (the model is built from the config)".into());
        }
        let cfg = crate::rtl::resolve(a.preset.as_deref(), "ice40", a.config.as_deref(), &a.set, None)
            .unwrap_or_else(|e| usage(e.0));
        (cfg.name.clone(), on_demand(&cfg)?)
    } else {
        let preset = a.preset.clone().unwrap_or_else(|| "ice40".into());
        let model = a.model.clone().unwrap_or_else(|| preset.clone());
        check_model(&model, &preset).unwrap_or_else(|e| usage(e));
        (preset, model)
    };
    let shard = chunked_args(a);
    let cfg = RunCfg {
        model: model.clone(),
        count: a.count,
        seed: a.seed,
        chunk: a.chunk,
        shard,
        out_dir: a.out.clone(),
        shrink_budget: Duration::from_secs_f64(a.shrink_secs),
        keep_going: a.keep_going,
    };
    let total: u64 = regress::shard_chunks(&cfg).map(|c| c.2).sum();
    let bar = Progress::new(total, "prims", format!("regress {model}"), a.quiet);
    let mut cycles = 0u64;
    let st = regress::run(&cfg, |c| {
        cycles += c.cycles;
        bar.inc(c.prims);
        bar.set_message(format!("{:.1} M cycles", cycles as f64 / 1e6));
    });
    bar.finish();
    for f in &st.failures {
        print!("FAIL {f}");
    }
    let classes: Vec<String> = CLASSES
        .iter()
        .zip(st.classes)
        .map(|((c, _), n)| format!("{} {n}", c.name()))
        .collect();
    println!("classes: {}", classes.join(", "));
    println!("{}", summary_line(&preset, &model, &st, shard, a.seed));
    let failures = st
        .failures
        .iter()
        .map(|f| (f.chunk, f.failure.headline(), f.scene.clone()))
        .collect::<Vec<_>>();
    write_summary(
        a,
        Summary {
            mode: "raster",
            preset: &preset,
            model: &model,
            shard,
            counts: serde_json::json!({
                "chunks": st.chunks,
                "primitives": st.prims,
                "commands": st.commands,
                "quads": st.quads,
                "samples": st.samples,
                "cycles": st.cycles,
                "flushes": st.flushes,
            }),
            failures: &failures,
            secs: st.secs,
        },
    )?;
    match st.failures.first() {
        None => Ok(()),
        Some(f) => Err(CliError(format!(
            "{} failing chunk(s); first: chunk {}: {}; scene {}",
            st.failures.len(),
            f.chunk,
            f.failure.headline(),
            f.scene
                .as_ref()
                .map(|p| p.display().to_string())
                .unwrap_or_else(|| "not saved".into())
        ))),
    }
}

/// The model of a config that is not a preset: verilated on demand (or loaded from the cache),
/// each tool step printed with the command that reproduces it. An unsupported config is a bad
/// argument (exit 2, one line naming the field); a failing tool is exit 1.
fn on_demand(cfg: &Config) -> Res<String> {
    if let Err(e) = tilerast_hw::supported(cfg) {
        usage(e);
    }
    let t = std::time::Instant::now();
    let built = tilerast_cosim::ondemand::model_for(cfg, &crate::rtl::command_line(), &mut |l| println!("{l}"))
        .map_err(CliError)?;
    if let Some(dir) = &built.dir {
        println!(
            "model {}: {} in {:.1}s ({})",
            built.model,
            if built.fresh { "built" } else { "loaded" },
            t.elapsed().as_secs_f64(),
            dir.display()
        );
    }
    Ok(built.model)
}

fn run_scene(a: &RegressArgs, scene: &std::path::Path) -> Res<()> {
    let (frame, stim) = regress::load_case(scene).unwrap_or_else(|e| usage(e));
    let file = scene.display();
    let preset = frame.cfg.name.clone();
    let is_preset = Config::preset(&preset).ok().as_ref() == Some(&frame.cfg);
    if let Some(p) = &a.preset {
        if *p != preset || !is_preset {
            usage(format!(
                "--preset: `{p}` but {file} has its own config ({preset} with overrides)"
            ));
        }
    }
    let model = if is_preset {
        let model = a.model.clone().unwrap_or_else(|| preset.clone());
        check_model(&model, &preset).unwrap_or_else(|e| usage(e));
        model
    } else {
        if a.model.is_some() {
            usage(format!(
                "--model: {file} has its own config; its model is built from it"
            ));
        }
        on_demand(&frame.cfg)?
    };
    let has_stim = stim.is_some();
    let stim = stim.unwrap_or_else(Stimulus::default);
    let t = std::time::Instant::now();
    let r = regress::check_frame(&model, &frame, &stim);
    let mut st = regress::RunStats::default();
    let res = match r {
        Ok(c) => {
            st.add(&c);
            Ok(())
        }
        Err(f) => {
            println!("FAIL {file}: {f}");
            if let Some((i, p)) = regress::failing_prim(&frame, &f) {
                println!("  primitive {i}: {p:?}");
            }
            let msg = format!("{file}: {}", f.headline());
            st.failures.push(regress::FailReport {
                chunk: 0,
                prim: regress::failing_prim(&frame, &f),
                original: f.clone(),
                failure: f,
                prims: frame.prims.len(),
                shrunk_prims: frame.prims.len(),
                scene: None,
                original_scene: None,
                wave: Err("not dumped for --scene".into()),
                save_error: None,
            });
            Err(CliError(msg))
        }
    };
    st.prims = frame.prims.len() as u64;
    st.secs = t.elapsed().as_secs_f64();
    println!(
        "scene {file} ({}stimulus {})",
        if has_stim { "" } else { "default " },
        regress::stim_to_json(&stim)
    );
    println!("{}", summary_line(&preset, &model, &st, (1, 1), stim.seed));
    res
}

/// Format tag of a `--summary-json` file.
const SUMMARY_TAG: &str = "tilerast_regress_summary";

/// What a chunked run writes with `--summary-json`: its regression (`mode`), the run's arguments,
/// its counts (`chunks`, `primitives`, `quads`, `cycles`, and per mode `samples` or `bytes`),
/// failures and time. `--merge` reads it back ([`ShardSummary`]).
struct Summary<'a> {
    mode: &'a str,
    preset: &'a str,
    model: &'a str,
    shard: (u64, u64),
    counts: serde_json::Value,
    /// (chunk, failure, saved scene).
    failures: &'a [(u64, String, Option<PathBuf>)],
    secs: f64,
}

fn write_summary(a: &RegressArgs, s: Summary) -> Res<()> {
    let Some(p) = &a.summary_json else {
        return Ok(());
    };
    let failures: Vec<serde_json::Value> = s
        .failures
        .iter()
        .map(|(chunk, failure, scene)| {
            serde_json::json!({
                "chunk": chunk,
                "failure": failure,
                "scene": scene.as_ref().map(|p| p.display().to_string()),
            })
        })
        .collect();
    let mut v = serde_json::json!({
        SUMMARY_TAG: 1,
        "mode": s.mode,
        "preset": s.preset,
        "model": s.model,
        "seed": a.seed,
        "count": a.count,
        "chunk": a.chunk,
        "shard": [s.shard.0, s.shard.1],
        "mismatches": s.failures.len(),
        "failures": failures,
        "wall_secs": s.secs,
    });
    if let (Some(o), Some(c)) = (v.as_object_mut(), s.counts.as_object()) {
        o.extend(c.clone());
    }
    let text = serde_json::to_string_pretty(&v).expect("json") + "\n";
    if let Some(d) = p.parent().filter(|d| !d.as_os_str().is_empty()) {
        std::fs::create_dir_all(d).map_err(|e| crate::error::io_err(d, "create", e))?;
    }
    std::fs::write(p, text).map_err(|e| crate::error::io_err(p, "write", e))
}

/// One shard's summary, read back.
#[derive(serde::Deserialize)]
struct ShardSummary {
    /// `raster` (summaries written before modes existed have none) or `frame`.
    #[serde(default = "raster_mode")]
    mode: String,
    preset: String,
    model: String,
    seed: u64,
    count: u64,
    chunk: u64,
    shard: (u64, u64),
    chunks: u64,
    primitives: u64,
    quads: u64,
    /// Samples the raster core covered (raster), bytes through the frame's memory port (frame).
    #[serde(default)]
    samples: Option<u64>,
    #[serde(default)]
    bytes: Option<u64>,
    cycles: u64,
    mismatches: u64,
    failures: Vec<ShardFailure>,
    wall_secs: f64,
}

fn raster_mode() -> String {
    "raster".into()
}

#[derive(serde::Deserialize)]
struct ShardFailure {
    chunk: u64,
    failure: String,
    scene: Option<String>,
}

fn read_summary(p: &std::path::Path) -> Result<ShardSummary, String> {
    let f = p.display();
    let text = std::fs::read_to_string(p).map_err(|e| format!("{f}: {e}"))?;
    let v: serde_json::Value = serde_json::from_str(&text).map_err(|e| format!("{f}: {e}"))?;
    if v.get(SUMMARY_TAG) != Some(&serde_json::json!(1)) {
        return Err(format!(
            "{f}: not a `tilerast regress --summary-json` file (no \"{SUMMARY_TAG}\": 1)"
        ));
    }
    let s: ShardSummary = serde_json::from_value(v).map_err(|e| format!("{f}: {e}"))?;
    if !["raster", "frame"].contains(&s.mode.as_str()) {
        return Err(format!("{f}: mode: `{}` is not raster or frame", s.mode));
    }
    if s.shard.0 == 0 || s.shard.0 > s.shard.1 {
        return Err(format!(
            "{f}: shard: {}/{} is not K/N with 1 <= K <= N",
            s.shard.0, s.shard.1
        ));
    }
    Ok(s)
}

/// `--merge`: the shards of each (mode, preset, model, seed, count, chunk, N) summed into one row of a
/// Markdown table, with every shard 1..N required exactly once; failures listed under it.
pub fn merge(files: &[PathBuf], out: &mut dyn std::io::Write) -> Res<()> {
    use std::collections::BTreeMap;
    type Key = (String, String, String, u64, u64, u64, u64);
    let mut groups: BTreeMap<Key, Vec<ShardSummary>> = BTreeMap::new();
    for p in files {
        let s = read_summary(p).unwrap_or_else(|e| usage(e));
        let key = (
            s.mode.clone(),
            s.preset.clone(),
            s.model.clone(),
            s.seed,
            s.count,
            s.chunk,
            s.shard.1,
        );
        groups.entry(key).or_default().push(s);
    }
    let mut problems: Vec<String> = Vec::new();
    let mut text = String::from(
        "| regression | preset | model | seed | shards | primitives | quads | samples | memory bytes | cycles | mismatches | CPU time |\n\
         |---|---|---|---|---|---:|---:|---:|---:|---:|---:|---:|\n",
    );
    let mut fails = String::new();
    for ((mode, preset, model, seed, count, chunk, n), shards) in &groups {
        let mut seen = vec![0u32; *n as usize];
        for s in shards {
            seen[s.shard.0 as usize - 1] += 1;
        }
        let missing: Vec<String> = (1..=*n)
            .filter(|k| seen[*k as usize - 1] == 0)
            .map(|k| k.to_string())
            .collect();
        let twice: Vec<String> = (1..=*n)
            .filter(|k| seen[*k as usize - 1] > 1)
            .map(|k| k.to_string())
            .collect();
        if !missing.is_empty() {
            problems.push(format!(
                "{mode} {preset} seed {seed}: shard(s) {} of {n} missing",
                missing.join(", ")
            ));
        }
        if !twice.is_empty() {
            problems.push(format!(
                "{mode} {preset} seed {seed}: shard(s) {} of {n} given twice",
                twice.join(", ")
            ));
        }
        let sum = |f: fn(&ShardSummary) -> u64| shards.iter().map(f).sum::<u64>();
        let prims = sum(|s| s.primitives);
        let mismatches = sum(|s| s.mismatches);
        let chunks = sum(|s| s.chunks);
        // A clean, complete run covers every chunk and primitive of the unsharded run.
        if missing.is_empty()
            && twice.is_empty()
            && mismatches == 0
            && (prims != *count || chunks != count.div_ceil(*chunk))
        {
            problems.push(format!(
                "{mode} {preset} seed {seed}: {prims} primitives in {chunks} chunks, expected {count}"
            ));
        }
        if mismatches > 0 {
            problems.push(format!("{mode} {preset} seed {seed}: {mismatches} mismatch(es)"));
        }
        let secs: f64 = shards.iter().map(|s| s.wall_secs).sum();
        // A count the mode does not have (or a shard lacks) shows as a dash.
        let opt = |f: fn(&ShardSummary) -> Option<u64>| {
            shards
                .iter()
                .map(f)
                .sum::<Option<u64>>()
                .map_or("—".to_string(), |v| v.to_string())
        };
        text += &format!(
            "| {mode} | {preset} | {model} | {seed} | {}/{n} | {prims} | {} | {} | {} | {} | {mismatches} | {:.1} min |\n",
            shards.len(),
            sum(|s| s.quads),
            opt(|s| s.samples),
            opt(|s| s.bytes),
            sum(|s| s.cycles),
            secs / 60.0
        );
        for s in shards {
            for f in &s.failures {
                fails += &format!(
                    "- {mode} {preset} shard {}/{n} chunk {}: {} (scene {})\n",
                    s.shard.0,
                    f.chunk,
                    f.failure,
                    f.scene.as_deref().unwrap_or("not saved")
                );
            }
        }
    }
    if !fails.is_empty() {
        text += &format!("\nFailures (each shard uploads its shrunk scenes):\n\n{fails}");
    }
    text += &if problems.is_empty() {
        "\nverdict: PASS (every shard present, 0 mismatches)\n".to_string()
    } else {
        format!("\nverdict: FAIL: {}\n", problems.join("; "))
    };
    out.write_all(text.as_bytes())
        .map_err(|e| crate::error::io_err(std::path::Path::new("<stdout>"), "write", e))?;
    match problems.first() {
        None => Ok(()),
        Some(_) => Err(CliError(format!("regress --merge: {}", problems.join("; ")))),
    }
}

/// `--back-end`: the pixel back end's regression (or one saved case with `--scene`).
fn run_back_end(a: &RegressArgs) -> Res<()> {
    use tilerast_cosim::back_end;
    if let Some(scene) = &a.scene {
        let file = scene.display().to_string();
        let frame = tilerast_golden::scene::Scene::load(scene)
            .and_then(|s| s.to_frame(&file))
            .unwrap_or_else(|e| usage(e.to_string()));
        let stem = scene
            .file_stem()
            .map(|s| s.to_string_lossy().into_owned())
            .unwrap_or_default();
        let dp = scene.with_file_name(format!("{stem}.drive.json"));
        let d = match std::fs::read_to_string(&dp) {
            Ok(t) => {
                let v: serde_json::Value = serde_json::from_str(&t)
                    .unwrap_or_else(|e| usage(format!("{}: line {}: {e}", dp.display(), e.line())));
                back_end::drive_from_json(&v, &dp.display().to_string()).unwrap_or_else(|e| usage(e))
            }
            Err(_) => back_end::frame_drive(a.seed),
        };
        let preset = frame.cfg.name.clone();
        if Config::preset(&preset).ok().as_ref() != Some(&frame.cfg) {
            usage(format!(
                "{file}: config: the back end is verilated for the presets only ({})",
                PRESETS.join(", ")
            ));
        }
        let rtl = a.model.clone().unwrap_or_else(|| preset.clone());
        return match back_end::check_frame(&rtl, &frame, &d) {
            Ok((o, pixels)) => {
                println!(
                    "back end {preset}: {file}: {pixels} pixels, {} writes, {} cycles: every port, the memory and the image equal golden",
                    o.writes, o.cycles
                );
                Ok(())
            }
            Err(e) => Err(CliError(format!("back end {preset}: {file}: {e}"))),
        };
    }
    let preset = a.preset.clone().unwrap_or_else(|| "ice40".into());
    let shard = chunked_args(a);
    let rtl = a.model.clone().unwrap_or_else(|| preset.clone());
    if tilerast_cosim::blocks::block_desc(&rtl, back_end::STAGE).is_none() {
        usage(format!("--preset / --model: the back end is not verilated as `{rtl}`"));
    }
    if rtl == "default_mut" && preset != "default" {
        usage(format!("--model: `{rtl}` implements preset default, not {preset}"));
    }
    let rc = back_end::RegressCfg {
        preset: preset.clone(),
        rtl,
        seed: a.seed,
        count: a.count,
        chunk: a.chunk,
        shard,
        out_dir: a.out.clone(),
        shrink_budget: Duration::from_secs_f64(a.shrink_secs),
        keep_going: a.keep_going,
    };
    let bar = Progress::new(
        a.count.div_ceil(shard.1),
        "prims",
        format!("regress --back-end {preset}"),
        a.quiet,
    );
    let t0 = std::time::Instant::now();
    let mut cycles = 0u64;
    let st = back_end::regress(&rc, |p, c| {
        cycles += c;
        bar.inc(p);
        bar.set_message(format!("{:.1} M cycles", cycles as f64 / 1e6));
    })
    .map_err(CliError)?;
    bar.finish();
    print_failures(&st.failures);
    let secs = t0.elapsed().as_secs_f64();
    println!(
        "summary: back end preset {preset} seed {} shard {}/{} chunks {} primitives {} pixels {} writes {} cycles {} \
         mismatches {} ({:.2} M cycles/s, {secs:.1} s)",
        a.seed,
        shard.0,
        shard.1,
        st.chunks,
        st.prims,
        st.pixels,
        st.writes,
        st.cycles,
        st.failures.len(),
        st.cycles as f64 / secs.max(1e-9) / 1e6
    );
    if st.chunks > 0 && st.writes == 0 {
        return Err(CliError(format!(
            "back end {preset}: no chunk wrote anything (all-zero traffic)"
        )));
    }
    first_failure(&st.failures)
}

fn run_frame(a: &RegressArgs) -> Res<()> {
    use tilerast_cosim::frame;
    if let Some(scene) = &a.scene {
        let file = scene.display().to_string();
        let frame_ = tilerast_golden::scene::Scene::load(scene)
            .and_then(|s| s.to_frame(&file))
            .unwrap_or_else(|e| usage(e.to_string()));
        let stem = scene
            .file_stem()
            .map(|s| s.to_string_lossy().into_owned())
            .unwrap_or_default();
        let dp = scene.with_file_name(format!("{stem}.drive.json"));
        let d = match std::fs::read_to_string(&dp) {
            Ok(t) => {
                let v: serde_json::Value = serde_json::from_str(&t)
                    .unwrap_or_else(|e| usage(format!("{}: line {}: {e}", dp.display(), e.line())));
                frame::drive_from_json(&v, &dp.display().to_string()).unwrap_or_else(|e| usage(e))
            }
            Err(_) => frame::chunk_drive(a.seed),
        };
        let preset = frame_.cfg.name.clone();
        if Config::preset(&preset).ok().as_ref() != Some(&frame_.cfg) {
            usage(format!(
                "{file}: config: the frame top is verilated for the presets only ({})",
                PRESETS.join(", ")
            ));
        }
        return match frame::check_in_flight(&preset, &frame_, &d) {
            Ok(o) => {
                println!(
                    "frame {preset}: {file}: {} primitives, then its partner in flight beside it, {} cycles: every port, the memory at each Done, the images and every client's bytes equal golden",
                    frame_.prims.len(),
                    o.cycles
                );
                Ok(())
            }
            Err(e) => Err(CliError(format!("frame {preset}: {file}: {e}"))),
        };
    }
    let preset = a.preset.clone().unwrap_or_else(|| "ice40".into());
    let shard = chunked_args(a);
    if tilerast_cosim::blocks::block_desc(&preset, frame::STAGE).is_none() {
        usage(format!("--preset: the frame top is not verilated as `{preset}`"));
    }
    let rc = frame::RegressCfg {
        preset: preset.clone(),
        seed: a.seed,
        count: a.count,
        chunk: a.chunk,
        shard,
        out_dir: a.out.clone(),
        shrink_budget: Duration::from_secs_f64(a.shrink_secs),
        keep_going: a.keep_going,
    };
    let bar = Progress::new(
        a.count.div_ceil(shard.1),
        "prims",
        format!("regress --frame {preset}"),
        a.quiet,
    );
    let t0 = std::time::Instant::now();
    let mut cycles = 0u64;
    let st = frame::regress(&rc, |p, c| {
        cycles += c;
        bar.inc(p);
        bar.set_message(format!("{:.1} M cycles", cycles as f64 / 1e6));
    })
    .map_err(CliError)?;
    bar.finish();
    print_failures(&st.failures);
    let secs = t0.elapsed().as_secs_f64();
    println!(
        "summary: frame preset {preset} seed {} shard {}/{} chunks {} primitives {} quads {} bytes {} cycles {} \
         overlapped {} mismatches {} ({:.2} M cycles/s, {secs:.1} s)",
        a.seed,
        shard.0,
        shard.1,
        st.chunks,
        st.prims,
        st.quads,
        st.bytes,
        st.cycles,
        st.overlapped,
        st.failures.len(),
        st.cycles as f64 / secs.max(1e-9) / 1e6
    );
    write_summary(
        a,
        Summary {
            mode: "frame",
            preset: &preset,
            model: &preset,
            shard,
            counts: serde_json::json!({
                "chunks": st.chunks,
                "primitives": st.prims,
                "quads": st.quads,
                "bytes": st.bytes,
                "cycles": st.cycles,
            }),
            failures: &st.failures,
            secs,
        },
    )?;
    if st.chunks > 0 && st.quads == 0 {
        return Err(CliError(format!(
            "frame {preset}: no chunk drew a quad (all-zero traffic)"
        )));
    }
    first_failure(&st.failures)
}

/// The chunked runs' shared arguments, checked: the shard (default 1/1), `--chunk` ≥ 1 and a
/// finite `--shrink-secs` ≥ 0; a bad one exits with its one-line usage error.
fn chunked_args(a: &RegressArgs) -> (u64, u64) {
    let shard = a
        .shard
        .as_deref()
        .map(parse_shard)
        .transpose()
        .unwrap_or_else(|e| usage(e))
        .unwrap_or((1, 1));
    if a.chunk == 0 {
        usage("--chunk: must be at least 1".into());
    }
    if !(a.shrink_secs >= 0.0 && a.shrink_secs.is_finite()) {
        usage(format!("--shrink-secs: `{}` is not a number of seconds", a.shrink_secs));
    }
    shard
}

/// One `FAIL chunk` line per failing chunk (chunk, failure, saved scene).
fn print_failures(failures: &[(u64, String, Option<PathBuf>)]) {
    for (i, f, saved) in failures {
        println!(
            "FAIL chunk {i}: {f}; saved {}",
            saved
                .as_ref()
                .map(|p| p.display().to_string())
                .unwrap_or_else(|| "nothing".into())
        );
    }
}

/// The run's result: `Ok` without failures, else the count and the first one.
fn first_failure(failures: &[(u64, String, Option<PathBuf>)]) -> Res<()> {
    match failures.first() {
        None => Ok(()),
        Some((i, f, _)) => Err(CliError(format!(
            "{} failing chunk(s); first: chunk {i}: {f}",
            failures.len()
        ))),
    }
}
