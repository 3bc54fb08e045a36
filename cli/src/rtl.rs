//! `tilerast rtl`: the raster core's Verilog for any config the RTL supports, and the pixel-side
//! blocks built so far.
//!
//! ```text
//!  --preset P | --config FILE ─► overrides --set field=value … ─► Config (validated, names the field)
//!      ─► tilerast_hw::supported (one line naming the field and the supported range)
//!      ─► DIR/tilerast_<name>.v (header: this exact command, config, ports and streams)
//!         DIR/tilerast_waivers.vlt
//!         DIR/tilerast_<stage>_<name>.v per pixel-side block (tilerast_hw::BLOCK_FILES) whose
//!             parameters the config is inside of; else a `skipped …` line with the reason
//!      ─► verilator --lint-only -Wall on each top no other top's hierarchy holds (the frame
//!          top lints the core and every block it holds; must be clean; --no-lint skips)
//! ```
//!
//! `gen-rtl` (the `rtl-out/` files) is this command applied to each preset:
//! `tilerast rtl --preset ice40 -o rtl-out` writes `rtl-out/tilerast_ice40.v` and
//! `rtl-out/tilerast_<stage>_ice40.v` byte for byte.

use crate::error::{io_err, CliError, Res};
use clap::Args;
use std::io::Write;
use std::path::{Path, PathBuf};
use tilerast_golden::{Config, Scene};

/// Options of `tilerast rtl`.
#[derive(Args, Debug)]
pub struct RtlArgs {
    /// Start from this preset (ice40, default, full, ice40_1x); a --config file's "preset"
    /// key does the same. Default: default.
    #[arg(long, conflicts_with = "config")]
    pub preset: Option<String>,
    /// A JSON config: `{"preset": "default", "msaa": 8, "quads_per_clock": 2, …}` (the object a
    /// scene's "config" holds; any field of the config, see golden/src/config.rs).
    #[arg(long, value_name = "FILE")]
    pub config: Option<PathBuf>,
    /// Override one field (repeatable), applied after --preset / --config: the value is JSON
    /// (`msaa=8`, `tile=[32,16]`, `cull="cw"`) or a bare word taken as a string (`cull=cw`).
    #[arg(long = "set", value_name = "FIELD=VALUE")]
    pub set: Vec<String>,
    /// Name of the core: the top module is tilerast_<NAME> (default: the preset's name, or
    /// the config file's stem). Letters, digits and `_`.
    #[arg(long)]
    pub name: Option<String>,
    /// Output directory (created if missing).
    #[arg(short, long, value_name = "DIR")]
    pub out: PathBuf,
    /// Do not run the Verilator lint check on the written file.
    #[arg(long)]
    pub no_lint: bool,
}

/// `field=value` → (field, JSON value); a value that is not JSON is a string.
fn parse_set(s: &str) -> Res<(String, serde_json::Value)> {
    let (k, v) = s
        .split_once('=')
        .ok_or_else(|| CliError::at("--set", s, "expected FIELD=VALUE, e.g. msaa=8"))?;
    let k = k.trim();
    if k.is_empty() {
        return Err(CliError::at("--set", s, "the field name is empty"));
    }
    let v = v.trim();
    let value = serde_json::from_str(v).unwrap_or_else(|_| serde_json::Value::String(v.to_string()));
    Ok((k.to_string(), value))
}

/// The config the arguments describe (validated by the golden model; errors name the field).
pub fn config(a: &RtlArgs) -> Res<Config> {
    resolve(
        a.preset.as_deref(),
        "default",
        a.config.as_deref(),
        &a.set,
        a.name.as_deref(),
    )
}

/// A config from `--preset` (else `default_preset`) or a `--config` file, then the `--set`
/// overrides, named `name` (else the preset's name or the file's stem): what `tilerast rtl`,
/// `regress` and `synth` accept. Errors are one line naming the flag or the field.
pub fn resolve(
    preset: Option<&str>,
    default_preset: &str,
    config: Option<&Path>,
    set: &[String],
    name: Option<&str>,
) -> Res<Config> {
    let mut sets = Vec::new();
    for s in set {
        sets.push(parse_set(s)?);
    }
    if sets.iter().any(|(k, _)| k == "preset") {
        return Err(CliError::at(
            "--set",
            "preset",
            "use --preset or the config file's \"preset\"",
        ));
    }
    let (text, file, stem) = match config {
        Some(p) => {
            let bytes = tilerast_golden::scene::read_input(p)?;
            let text = String::from_utf8(bytes).map_err(|_| CliError::at(p.display(), "read", "not UTF-8 text"))?;
            let stem = p.file_stem().map(|s| s.to_string_lossy().into_owned());
            (text, p.display().to_string(), stem)
        }
        None => {
            let preset = preset.unwrap_or(default_preset);
            (
                serde_json::json!({ "preset": preset }).to_string(),
                "--preset".to_string(),
                Some(preset.to_string()),
            )
        }
    };
    let mut cfg = Scene::config_from_json(&text, &file, &sets)?;
    // A preset changed by --set is no longer that preset: its default name says so, so that its
    // core (tilerast_<name>), FPGA directory and regression files never pass for the preset's.
    let stem = match (config, stem) {
        (None, Some(p))
            if Config::preset(&p).ok().as_ref()
                != Some(&Config {
                    name: p.clone(),
                    ..cfg.clone()
                }) =>
        {
            Some(format!("{p}_custom"))
        }
        (_, s) => s,
    };
    let name = name.map(str::to_string).or(stem).unwrap_or_else(|| "custom".into());
    if name.is_empty() || !name.chars().all(|c| c.is_ascii_alphanumeric() || c == '_') || name.contains("__") {
        return Err(CliError::at(
            "--name",
            &name,
            "must be letters, digits and single `_` (it names the Verilog module tilerast_<name>)",
        ));
    }
    cfg.name = name;
    Ok(cfg)
}

/// The exact command line, for the file header (arguments quoted for a POSIX shell where
/// needed, as the FPGA flows print their steps).
pub fn command_line() -> String {
    std::iter::once("tilerast".to_string())
        .chain(std::env::args().skip(1).map(|a| tilerast_fpga::flow::shell_quote(&a)))
        .collect::<Vec<_>>()
        .join(" ")
}

/// Lint one written file with Verilator in `dir` (`cmd`: its lint command); `Err` with the first
/// warning line.
fn lint(dir: &Path, file: &str, cmd: String) -> Res<String> {
    let mut parts = cmd.split_whitespace();
    let prog = parts.next().expect("command");
    let out = std::process::Command::new(prog)
        .args(parts)
        .current_dir(dir)
        .output()
        .map_err(|e| {
            CliError::at(
                "verilator",
                "run",
                format!("{e} (install Verilator, or pass --no-lint)"),
            )
        })?;
    if !out.status.success() {
        let text = String::from_utf8_lossy(&out.stderr);
        let first = text.lines().find(|l| l.starts_with('%')).unwrap_or("(no message)");
        return Err(CliError::at(
            dir.join(file).display(),
            "lint",
            format!("not lint-clean ({cmd}): {first}"),
        ));
    }
    Ok(cmd)
}

/// Run `tilerast rtl`.
pub fn run(a: &RtlArgs, w: &mut dyn Write) -> Res<()> {
    let cfg = config(a)?;
    let (written, skipped) = tilerast_hw::rtl_out::write_config(&cfg, &command_line(), &a.out).map_err(|e| {
        if e.starts_with("config.") {
            CliError(e)
        } else {
            CliError::at(a.out.display(), "write", e)
        }
    })?;
    let say = |w: &mut dyn Write, s: String| writeln!(w, "{s}").map_err(|e| io_err(Path::new("<stdout>"), "write", e));
    // The core and each pixel-side block this config builds, packaged as rtl-out/ is: every
    // module once, the registers in tilerast_lib.v, a file list per top. A block this config's
    // parameters are outside of is skipped with the reason.
    let mut lints = Vec::new();
    for (file, top) in &written {
        say(
            w,
            format!(
                "wrote {} (top module {top}, file list {})",
                a.out.join(file).display(),
                tilerast_hw::package::list_name(file)
            ),
        )?;
        lints.push((file.clone(), top.clone()));
    }
    say(
        w,
        format!(
            "wrote {} and {}",
            a.out.join(tilerast_hw::package::LIB_FILE).display(),
            a.out.join(tilerast_hw::LINT_WAIVERS_FILE).display()
        ),
    )?;
    for (file, why) in skipped {
        say(w, format!("skipped {file}: {why}"))?;
    }
    if a.no_lint {
        say(w, "lint: skipped (--no-lint)".into())?;
    } else {
        for (file, cmd, covers) in lint_tops(&a.out, lints)? {
            let cmd = lint(&a.out, &file, cmd)?;
            if covers.is_empty() {
                say(w, format!("lint: clean ({cmd})"))?;
            } else {
                say(
                    w,
                    format!("lint: clean ({cmd}; its hierarchy holds {})", covers.join(", ")),
                )?;
            }
        }
    }
    Ok(())
}

/// The lint runs of the written tops (`(file, top module)`): one per top that no other top's
/// hierarchy holds (`tilerast_hw::package::lint_runs`: the frame top lints the core and every
/// block it holds). Returns `(file, lint command, files covered)`.
fn lint_tops(dir: &Path, tops: Vec<(String, String)>) -> Res<Vec<(String, String, Vec<String>)>> {
    let named: Vec<(String, String)> = tops
        .iter()
        .map(|(file, top)| (file.strip_suffix(".v").unwrap_or(file).to_string(), top.clone()))
        .collect();
    let runs = tilerast_hw::package::lint_runs(dir, &named).map_err(|e| CliError::at(dir.display(), "lint", e))?;
    Ok(runs
        .into_iter()
        .map(|(k, under)| {
            let (file, top) = &tops[k];
            let covers = under.iter().map(|&i| tops[i].0.clone()).collect();
            (file.clone(), tilerast_hw::lint_top_command(top), covers)
        })
        .collect())
}

#[cfg(test)]
mod tests {
    use super::*;

    fn args(preset: Option<&str>, set: &[&str]) -> RtlArgs {
        RtlArgs {
            preset: preset.map(str::to_string),
            config: None,
            set: set.iter().map(|s| s.to_string()).collect(),
            name: None,
            out: PathBuf::from("unused"),
            no_lint: true,
        }
    }

    #[test]
    fn set_overrides_fields_and_names_bad_ones() {
        let c = config(&args(
            Some("ice40"),
            &["msaa=8", "cull=cw", "tile=[32,16]", "subtile=[8,4]"],
        ))
        .unwrap();
        assert_eq!((c.msaa, c.tile, c.subtile), (8, [32, 16], [8, 4]));
        assert_eq!(c.cull, tilerast_golden::config::CullMode::Cw);
        assert_eq!(c.name, "ice40_custom", "a changed preset is named apart from it");
        assert_eq!(config(&args(Some("ice40"), &[])).unwrap().name, "ice40");
        assert_eq!(
            config(&args(Some("full"), &["msaa=16"])).unwrap().name,
            "full",
            "no change"
        );
        let e = config(&args(None, &["msaa=3"])).unwrap_err().0;
        assert!(e.contains("config.msaa") && e.contains("1, 2, 4, 8"), "{e}");
        let e = config(&args(None, &["nope=1"])).unwrap_err().0;
        assert!(e.contains("config.nope") && e.contains("unknown"), "{e}");
        let e = config(&args(None, &["msaa"])).unwrap_err().0;
        assert!(e.starts_with("--set: msaa:"), "{e}");
        let e = config(&args(Some("huge"), &[])).unwrap_err().0;
        assert!(e.contains("config.preset") && e.contains("huge"), "{e}");
    }
}
