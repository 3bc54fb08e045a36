//! Cores verilated on demand: the co-simulation of any config the RTL supports, not only the
//! presets compiled into this crate (`build.rs`).
//!
//! ```text
//!  Config ─► tilerast_hw::rtl_file ─► core.v ─┐   (refused by tilerast_hw::supported: one line)
//!            flat::parse_ports/flatten ─► wrapper.v (ports checked against CORE_INPUTS/OUTPUTS)
//!            verilator --cc ─► obj/ ─► c++ -shared dyn_model.cpp + runtime objects ─► model.so
//!  cache: <target>/rtl-models/<name>-<hash>/  (hash of the Verilog body, the C++ sources, the
//!         Verilator version and the trace feature: a second run with the same config loads it)
//!  load ─► registry: model name `<name>-<hash8>` ─► Rtl::new(name) like a compiled-in preset
//! ```
//!
//! The shared object exports a C ABI (`csrc/dyn_model.cpp`) around the same simulation loop as
//! the compiled-in models (`csrc/sim.h`), so a loaded model runs exactly like a preset's. Every
//! tool step is reported through the caller's `log` with the command that reproduces it.

use crate::{PortDesc, CORE_INPUTS, CORE_OUTPUTS};
use libloading::{Library, Symbol};
use std::collections::BTreeMap;
use std::ffi::{c_char, c_void, CStr, CString};
use std::path::{Path, PathBuf};
use std::process::Command;
use std::sync::{Arc, Mutex, OnceLock};
use tilerast_golden::Config;

/// The C++ sources compiled into every on-demand model (embedded: the binary may run far from
/// the source tree).
const SOURCES: &[(&str, &str)] = &[
    ("sim.h", include_str!("../csrc/sim.h")),
    ("words.h", include_str!("../csrc/words.h")),
    ("dyn_model.cpp", include_str!("../csrc/dyn_model.cpp")),
];

/// Verilator runtime files every model links (compiled once per Verilator version and kept).
const RUNTIME: &[&str] = &["verilated.cpp", "verilated_threads.cpp"];
/// With the `trace` feature, also the VCD writer.
const RUNTIME_TRACE: &[&str] = &["verilated_vcd_c.cpp"];

/// Top module of the generated port wrapper, and the Verilator class prefix.
const WRAP: &str = "core_dyn";
const PREFIX: &str = "Vdyn";

/// A loaded model library and the config it implements.
struct Entry {
    lib: Arc<Library>,
    config: Config,
}

fn registry() -> &'static Mutex<BTreeMap<String, Entry>> {
    static R: OnceLock<Mutex<BTreeMap<String, Entry>>> = OnceLock::new();
    R.get_or_init(|| Mutex::new(BTreeMap::new()))
}

/// The config of a model loaded by [`model_for`], by its name.
pub fn loaded_config(model: &str) -> Option<Config> {
    registry().lock().unwrap().get(model).map(|e| e.config.clone())
}

/// FNV-1a, 64 bits: a stable content hash for the cache key (std's hasher may change between
/// Rust releases).
fn fnv(parts: &[&[u8]]) -> u64 {
    let mut h: u64 = 0xcbf2_9ce4_8422_2325;
    for p in parts {
        for &b in p.iter().chain(&[0xffu8]) {
            h ^= b as u64;
            h = h.wrapping_mul(0x0000_0100_0000_01b3);
        }
    }
    h
}

/// Where models are cached: `$TILERAST_MODEL_CACHE`, else `rtl-models/` in the cargo target
/// directory this binary runs from (`target/<profile>/…`), else `target/rtl-models`.
pub fn cache_root() -> PathBuf {
    if let Some(d) = std::env::var_os("TILERAST_MODEL_CACHE") {
        return PathBuf::from(d);
    }
    std::env::current_exe()
        .ok()
        .and_then(|e| {
            e.ancestors()
                .find(|a| a.file_name().is_some_and(|n| n == "target"))
                .map(Path::to_path_buf)
        })
        .unwrap_or_else(|| PathBuf::from("target"))
        .join("rtl-models")
}

/// Run a tool, logging its command line; one line with its first error line on failure.
fn tool(cmd: &mut Command, what: &str, log: &mut dyn FnMut(&str)) -> Result<(), String> {
    log(&format!("+ {}", show(cmd)));
    let out = cmd.output().map_err(|e| {
        format!(
            "{what}: cannot run `{}`: {e} (install it: apt-get install -y verilator g++)",
            cmd.get_program().to_string_lossy()
        )
    })?;
    if !out.status.success() {
        let err = String::from_utf8_lossy(&out.stderr);
        let first = err
            .lines()
            .find(|l| l.contains("rror"))
            .or(err.lines().next())
            .unwrap_or("(no message)");
        return Err(format!("{what} failed ({}): {first}", out.status));
    }
    Ok(())
}

fn show(cmd: &Command) -> String {
    std::iter::once(cmd.get_program())
        .chain(cmd.get_args())
        .map(|a| {
            let a = a.to_string_lossy();
            if a.contains(|c: char| c.is_whitespace() || c == '"' || c == '\'') {
                format!("'{}'", a.replace('\'', "'\\''"))
            } else {
                a.into_owned()
            }
        })
        .collect::<Vec<_>>()
        .join(" ")
}

fn verilator_root() -> Result<(PathBuf, String), String> {
    let out = |args: &[&str]| {
        Command::new("verilator")
            .args(args)
            .output()
            .ok()
            .filter(|o| o.status.success())
            .map(|o| String::from_utf8_lossy(&o.stdout).trim().to_string())
            .ok_or_else(|| "verilator not found; install it with: apt-get install -y verilator".to_string())
    };
    Ok((
        PathBuf::from(out(&["--getenv", "VERILATOR_ROOT"])?),
        out(&["--version"])?,
    ))
}

fn cxx() -> String {
    std::env::var("CXX").unwrap_or_else(|_| "c++".into())
}

fn trace() -> bool {
    cfg!(feature = "trace")
}

/// Compiler flags shared by the runtime objects and the model.
fn cflags(cmd: &mut Command, inc: &Path) {
    let t = if trace() { "1" } else { "0" };
    cmd.args(["-std=c++17", "-faligned-new", "-O2", "-fPIC", "-w"])
        .args(["-fvisibility=hidden", "-fvisibility-inlines-hidden"])
        .arg(format!("-I{}", inc.display()))
        .arg(format!("-I{}", inc.join("vltstd").display()))
        .args(["-DVM_COVERAGE=0", "-DVM_SC=0", "-DVM_TRACE_FST=0"])
        .arg(format!("-DVM_TRACE={t}"))
        .arg(format!("-DVM_TRACE_VCD={t}"));
}

/// Build `dir` through a temporary sibling and an atomic rename, so concurrent runs (CI shards)
/// and interrupted builds never leave a half-built cache entry.
fn build_atomically(dir: &Path, f: impl FnOnce(&Path) -> Result<(), String>) -> Result<(), String> {
    if dir.exists() {
        return Ok(());
    }
    let tmp = dir.with_extension(format!("tmp{}", std::process::id()));
    let _ = std::fs::remove_dir_all(&tmp);
    std::fs::create_dir_all(&tmp).map_err(|e| format!("{}: {e}", tmp.display()))?;
    let r = f(&tmp);
    if r.is_err() {
        let _ = std::fs::remove_dir_all(&tmp);
        return r;
    }
    if std::fs::rename(&tmp, dir).is_err() {
        // Another process finished the same entry first: keep its copy.
        let _ = std::fs::remove_dir_all(&tmp);
        if !dir.exists() {
            return Err(format!("{}: could not create the cache entry", dir.display()));
        }
    }
    Ok(())
}

/// The Verilator runtime as position-independent objects, built once per Verilator version.
fn runtime(root: &Path, version: &str, log: &mut dyn FnMut(&str)) -> Result<Vec<PathBuf>, String> {
    let inc = root.join("include");
    let files: Vec<&str> = RUNTIME
        .iter()
        .chain(if trace() { RUNTIME_TRACE } else { &[] })
        .copied()
        .collect();
    let key = fnv(&[version.as_bytes(), &[trace() as u8]]);
    let dir = cache_root().join(format!("runtime-{key:016x}"));
    build_atomically(&dir, |tmp| {
        for f in &files {
            let mut c = Command::new(cxx());
            cflags(&mut c, &inc);
            c.arg("-c")
                .arg(inc.join(f))
                .arg("-o")
                .arg(tmp.join(f).with_extension("o"));
            tool(&mut c, &format!("compiling the Verilator runtime ({f})"), log)?;
        }
        Ok(())
    })?;
    Ok(files.iter().map(|f| dir.join(f).with_extension("o")).collect())
}

/// A port table as [`crate::flat::flatten`]'s Rust rows, to compare layouts.
fn render(side: &[PortDesc]) -> String {
    side.iter()
        .map(|p| crate::flat::port_row(p.name, p.width, p.offset, p.signed))
        .collect()
}

/// What [`model_for`] did.
#[derive(Clone, Debug)]
pub struct Built {
    /// The model name to pass to [`crate::Rtl::new`] and the regression.
    pub model: String,
    /// The cache entry (Verilog, wrapper, Verilator output, `model.so`); `None` for a preset.
    pub dir: Option<PathBuf>,
    /// Whether it was built now (false: found in the cache, or a compiled-in preset).
    pub fresh: bool,
}

/// The RTL model of `cfg`: the compiled-in model when `cfg` is a preset, else its core emitted,
/// verilated and compiled on demand (or found in the cache), loaded and registered. `command`
/// goes into the Verilog header. Tool steps are reported through `log`; errors are one line
/// (an unsupported config names the field, as `tilerast rtl` does).
pub fn model_for(cfg: &Config, command: &str, log: &mut dyn FnMut(&str)) -> Result<Built, String> {
    if Config::preset(&cfg.name).ok().as_ref() == Some(cfg) {
        return Ok(Built {
            model: cfg.name.clone(),
            dir: None,
            fresh: false,
        });
    }
    let verilog = tilerast_hw::rtl_file(cfg, command)?;
    model_from_verilog(cfg, &verilog, log)
}

/// As [`model_for`] with the core's Verilog given (`tilerast_<cfg.name>` and its blocks, as
/// [`tilerast_hw::rtl_file`] writes it): the mutation test feeds a deliberately broken copy.
pub fn model_from_verilog(cfg: &Config, verilog: &str, log: &mut dyn FnMut(&str)) -> Result<Built, String> {
    let top = tilerast_hw::top_name(&cfg.name);
    let vname = tilerast_hw::rtl_file_name(&cfg.name);
    let ports = crate::flat::parse_ports(verilog, Path::new(&vname), &top)?;
    let flat = crate::flat::flatten(WRAP, &top, &ports);
    if flat.rs_inputs != render(CORE_INPUTS) || flat.rs_outputs != render(CORE_OUTPUTS) {
        return Err(format!(
            "config {}: the emitted core's ports differ from the layout this tool was built with \
             (cosim/build.rs); rebuild tilerast",
            cfg.name
        ));
    }
    let (root, version) = verilator_root()?;
    // The header's first line names the command; the rest is the design.
    let body = verilog.split_once('\n').map_or(verilog, |(_, b)| b);
    let srcs: Vec<&[u8]> = SOURCES.iter().map(|(_, s)| s.as_bytes()).collect();
    let tr = [trace() as u8];
    let mut parts: Vec<&[u8]> = vec![body.as_bytes(), flat.verilog.as_bytes(), version.as_bytes(), &tr];
    parts.extend(srcs);
    let key = fnv(&parts);
    let name = format!("{}-{:08x}", cfg.name, key >> 32);
    let dir = cache_root().join(format!("{}-{key:016x}", cfg.name));
    let so = dir.join("model.so");
    let fresh = !so.exists();
    if fresh {
        let objs = runtime(&root, &version, log)?;
        build_atomically(&dir, |tmp| build(tmp, &root, verilog, &vname, &flat, &objs, log))?;
    } else {
        log(&format!("model {name}: cached in {}", dir.display()));
    }
    load(&name, &so, cfg)?;
    Ok(Built {
        model: name,
        dir: Some(dir),
        fresh,
    })
}

fn build(
    dir: &Path,
    root: &Path,
    verilog: &str,
    vname: &str,
    flat: &crate::flat::Flat,
    objs: &[PathBuf],
    log: &mut dyn FnMut(&str),
) -> Result<(), String> {
    let w = |p: &Path, s: &str| std::fs::write(p, s).map_err(|e| format!("{}: {e}", p.display()));
    let core = dir.join(vname);
    w(&core, verilog)?;
    let wrap = dir.join(format!("{WRAP}.v"));
    w(&wrap, &flat.verilog)?;
    for (f, text) in SOURCES {
        w(&dir.join(f), text)?;
    }
    let obj = dir.join("obj");
    let mut v = Command::new("verilator");
    v.args(crate::flat::VERILATOR_FLAGS)
        .args(["--top-module", WRAP, "--prefix", PREFIX, "-Mdir"])
        .arg(&obj)
        .arg(&wrap)
        .arg(&core);
    if trace() {
        v.arg("--trace");
    }
    tool(&mut v, "verilator", log)?;
    let mut cpps: Vec<PathBuf> = std::fs::read_dir(&obj)
        .map_err(|e| format!("{}: {e}", obj.display()))?
        .filter_map(|e| e.ok().map(|e| e.path()))
        .filter(|p| p.extension().is_some_and(|e| e == "cpp"))
        .collect();
    cpps.sort();
    let unity: String = cpps.iter().map(|f| format!("#include \"{}\"\n", f.display())).collect();
    let all = obj.join(format!("{PREFIX}__ALL.cpp"));
    w(&all, &unity)?;
    let mut c = Command::new(cxx());
    cflags(&mut c, &root.join("include"));
    c.arg(format!("-I{}", obj.display()))
        .arg(format!("-I{}", dir.display()))
        .arg(format!("-DTILERAST_DYN_HEADER=\"{PREFIX}.h\""))
        .arg(format!("-DTILERAST_DYN_CLASS={PREFIX}"))
        .arg(format!("-DTILERAST_IN_W={}", flat.in_bits.div_ceil(32)))
        .arg(format!("-DTILERAST_OUT_W={}", flat.out_bits.div_ceil(32)))
        .args(["-shared", "-Wl,-Bsymbolic", "-o"])
        .arg(dir.join("model.so"))
        .arg(dir.join("dyn_model.cpp"))
        .arg(&all)
        .args(objs)
        .args(["-lpthread", "-latomic"]);
    tool(&mut c, "compiling the verilated model", log)
}

fn load(name: &str, so: &Path, cfg: &Config) -> Result<(), String> {
    let mut reg = registry().lock().unwrap();
    if reg.contains_key(name) {
        return Ok(());
    }
    // SAFETY: the library is one this module built; its initialisers are Verilator's and ours.
    let lib = unsafe { Library::new(so) }.map_err(|e| format!("{}: cannot load: {e}", so.display()))?;
    let (mut iw, mut ow) = (0u32, 0u32);
    unsafe {
        let layout: Symbol<unsafe extern "C" fn(*mut u32, *mut u32)> = lib
            .get(b"tilerast_dyn_layout")
            .map_err(|e| format!("{}: {e}", so.display()))?;
        layout(&mut iw, &mut ow);
    }
    if (iw as usize, ow as usize) != (crate::IN_W, crate::OUT_W) {
        return Err(format!(
            "{}: {iw}/{ow} words per cycle, this tool expects {}/{}",
            so.display(),
            crate::IN_W,
            crate::OUT_W
        ));
    }
    reg.insert(
        name.to_string(),
        Entry {
            lib: Arc::new(lib),
            config: cfg.clone(),
        },
    );
    Ok(())
}

type ErrBuf = [u8; 512];

fn err_text(buf: &ErrBuf) -> String {
    CStr::from_bytes_until_nul(buf)
        .map(|c| c.to_string_lossy().into_owned())
        .unwrap_or_else(|_| "(unreadable error)".into())
}

/// One instance of a loaded model.
pub struct DynModel {
    lib: Arc<Library>,
    sim: *mut c_void,
}

// The instance is used by one thread at a time (`Rtl` is `Send`, not `Sync`).
unsafe impl Send for DynModel {}

impl DynModel {
    /// A new instance of the registered model `name`, or `None` if no such model is loaded.
    pub fn open(name: &str) -> Option<Result<DynModel, String>> {
        let lib = registry().lock().unwrap().get(name).map(|e| e.lib.clone())?;
        let mut err: ErrBuf = [0; 512];
        let sim = unsafe {
            let new: Symbol<unsafe extern "C" fn(*mut c_char, usize) -> *mut c_void> =
                match lib.get(b"tilerast_dyn_new") {
                    Ok(f) => f,
                    Err(e) => return Some(Err(format!("model {name}: {e}"))),
                };
            new(err.as_mut_ptr() as *mut c_char, err.len())
        };
        if sim.is_null() {
            return Some(Err(format!("model {name}: {}", err_text(&err))));
        }
        Some(Ok(DynModel { lib, sim }))
    }

    fn sym<T>(&self, name: &[u8]) -> Symbol<'_, T> {
        // SAFETY: every symbol is defined by dyn_model.cpp with the type given at the call.
        unsafe { self.lib.get(name) }.expect("dyn_model.cpp defines every entry point")
    }

    /// As [`crate::Rtl::run`].
    pub fn run(&mut self, cycles: u32, inp: &[u32], out: &mut [u32]) -> Result<(), String> {
        assert!(inp.len() >= cycles as usize * crate::IN_W && out.len() >= cycles as usize * crate::OUT_W);
        let mut err: ErrBuf = [0; 512];
        let f = self.sym::<unsafe extern "C" fn(*mut c_void, u32, *const u32, *mut u32, *mut c_char, usize) -> i32>(
            b"tilerast_dyn_run",
        );
        match unsafe {
            f(
                self.sim,
                cycles,
                inp.as_ptr(),
                out.as_mut_ptr(),
                err.as_mut_ptr() as *mut c_char,
                err.len(),
            )
        } {
            0 => Ok(()),
            _ => Err(err_text(&err)),
        }
    }

    /// As [`crate::Rtl::open_trace`].
    pub fn open_trace(&mut self, path: &str, from_cycle: u64) -> Result<(), String> {
        let p = CString::new(path).map_err(|_| format!("{path}: NUL in path"))?;
        let mut err: ErrBuf = [0; 512];
        let f = self.sym::<unsafe extern "C" fn(*mut c_void, *const c_char, u64, *mut c_char, usize) -> i32>(
            b"tilerast_dyn_open_trace",
        );
        match unsafe {
            f(
                self.sim,
                p.as_ptr(),
                from_cycle,
                err.as_mut_ptr() as *mut c_char,
                err.len(),
            )
        } {
            0 => Ok(()),
            _ => Err(err_text(&err)),
        }
    }

    /// As [`crate::Rtl::replay_timed`]: (nanoseconds, first differing cycle or `u64::MAX`).
    pub fn replay_timed(&mut self, inp: &[u32], want: &[u32], out: &mut [u32]) -> Result<(u64, u64), String> {
        let cycles = (inp.len() / crate::IN_W) as u64;
        if !inp.len().is_multiple_of(crate::IN_W)
            || want.len() < cycles as usize * crate::OUT_W
            || out.len() < cycles as usize * crate::OUT_W
        {
            return Err("replay_timed: buffer sizes do not match".into());
        }
        let (mut nanos, mut bad) = (0u64, 0u64);
        let mut err: ErrBuf = [0; 512];
        type Replay = unsafe extern "C" fn(
            *mut c_void,
            u64,
            *const u32,
            *const u32,
            *mut u32,
            *mut u64,
            *mut u64,
            *mut c_char,
            usize,
        ) -> i32;
        let f = self.sym::<Replay>(b"tilerast_dyn_replay");
        let r = unsafe {
            f(
                self.sim,
                cycles,
                inp.as_ptr(),
                want.as_ptr(),
                out.as_mut_ptr(),
                &mut nanos,
                &mut bad,
                err.as_mut_ptr() as *mut c_char,
                err.len(),
            )
        };
        match r {
            0 => Ok((nanos, bad)),
            _ => Err(err_text(&err)),
        }
    }
}

impl Drop for DynModel {
    fn drop(&mut self) {
        let f = self.sym::<unsafe extern "C" fn(*mut c_void)>(b"tilerast_dyn_free");
        unsafe { f(self.sim) };
    }
}
