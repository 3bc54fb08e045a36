//! Verilates `rtl-out/tilerast_<preset>.v` for every preset (plus one deliberately broken copy
//! of the ice40 core for the mutation test) and compiles the models, the Verilator runtime and
//! the cxx shim (`csrc/`) into one static library.
//!
//! Each core is verilated behind a generated wrapper that flattens its ports (parsed from the
//! Verilog, which rust-hdl derives from the stream declarations) into `in_bits` / `out_bits`,
//! like the per-block models (`build/blocks.rs`). The per-cycle word layout is therefore
//! generated, not written down: `$OUT_DIR/core_ports.rs` (the port table, included by
//! `src/lib.rs`) and `$OUT_DIR/core_layout.h` (the word counts, included by `csrc/glue.cpp`).

use std::path::{Path, PathBuf};
use std::process::Command;

#[path = "build/blocks.rs"]
mod blocks;
#[path = "build/flat.rs"]
mod flat;
#[path = "build/mutation.rs"]
mod mutation;
#[path = "build/top.rs"]
mod top;

/// Presets simulated; `ice40_mut` is built from a mutated copy of the ice40 Verilog.
const PRESETS: &[&str] = &["ice40", "default", "full", "ice40_1x"];

fn die(msg: &str) -> ! {
    eprintln!("{msg}");
    std::process::exit(1);
}

fn rtl_dir() -> PathBuf {
    if let Some(d) = std::env::var_os("TILERAST_RTL_DIR") {
        return PathBuf::from(d);
    }
    PathBuf::from(std::env::var("CARGO_MANIFEST_DIR").unwrap()).join("../rtl-out")
}

/// The files of the top `<stem>` from its list `rtl/<stem>.f`, dependencies first (each a
/// rerun trigger); one line and exit 1 when the list or a file is missing.
pub fn sources(rtl: &Path, stem: &str) -> Vec<PathBuf> {
    let list = rtl.join(format!("{stem}.f"));
    println!("cargo:rerun-if-changed={}", list.display());
    let files = flat::file_list(rtl, stem).unwrap_or_else(|e| die(&e));
    for f in &files {
        println!("cargo:rerun-if-changed={}", f.display());
        if !f.is_file() {
            die(&format!(
                "error: {} (in {}) missing (run `cargo run -p tilerast-hw --bin gen-rtl`)",
                f.display(),
                list.display()
            ));
        }
    }
    files
}

/// Verilate `vfiles` (top module `top`, class prefix `prefix`) into `mdir`, with `--trace` if
/// asked; returns the generated `.cpp` files, sorted. One line and exit 1 on failure.
pub fn verilate(vfiles: &[&Path], top: &str, prefix: &str, mdir: &Path, trace: bool) -> Vec<PathBuf> {
    let _ = std::fs::remove_dir_all(mdir);
    if check_only() {
        std::fs::create_dir_all(mdir).unwrap();
        return Vec::new();
    }
    let mut v = Command::new("verilator");
    v.args(flat::VERILATOR_FLAGS)
        .args(["--top-module", top, "--prefix", prefix, "-Mdir"])
        .arg(mdir)
        .args(vfiles);
    if trace {
        v.arg("--trace");
    }
    let out = v
        .output()
        .unwrap_or_else(|_| die("error: verilator not found; install it with: apt-get install -y verilator"));
    if !out.status.success() {
        die(&format!(
            "error: verilator failed on {} (top {top}):\n{}",
            vfiles.last().unwrap().display(),
            String::from_utf8_lossy(&out.stderr)
        ));
    }
    let mut fs: Vec<PathBuf> = std::fs::read_dir(mdir)
        .unwrap()
        .map(|e| e.unwrap().path())
        .filter(|p| p.extension().is_some_and(|e| e == "cpp"))
        .collect();
    fs.sort();
    fs
}

/// Whether this run only type-checks: `cargo clippy` builds with `RUSTC_WORKSPACE_WRAPPER` =
/// clippy-driver and links nothing, so the models are neither verilated nor compiled (the
/// port tables, which the Rust code includes, are still generated from the Verilog). Saves a
/// whole verilate + C++ build per `cargo clippy` profile; the variable is a rerun trigger.
pub fn check_only() -> bool {
    std::env::var("RUSTC_WORKSPACE_WRAPPER").is_ok_and(|w| w.contains("clippy"))
}

/// `b.compile(lib)`, unless [`check_only`].
pub fn compile(b: &mut cc::Build, lib: &str) {
    if !check_only() {
        b.compile(lib);
    }
}

/// One translation unit including every `.cpp` of a model (what Verilator's own non-parallel
/// build does with `V*__ALL.cpp`): compiling many small files costs mostly header parsing.
pub fn unity(mdir: &Path, prefix: &str, files: &[PathBuf]) -> PathBuf {
    let unity = mdir.join(format!("{prefix}__ALL.cpp"));
    let body: String = files
        .iter()
        .map(|f| format!("#include \"{}\"\n", f.display()))
        .collect();
    std::fs::write(&unity, body).unwrap();
    unity
}

/// The C++ settings every library of verilated models is compiled with (`inc` is Verilator's
/// include directory, `opt` the optimisation level).
pub fn model_build<'a>(b: &'a mut cc::Build, inc: &Path, trace: bool, opt: u32) -> &'a mut cc::Build {
    b.include(inc)
        .include(inc.join("vltstd"))
        .include("csrc")
        .std("c++17")
        .flag("-faligned-new")
        .flag_if_supported("-fcf-protection=none")
        .flag("-Wno-unused-parameter")
        .flag("-Wno-unused-variable")
        .flag("-Wno-sign-compare")
        .flag("-Wno-unused-but-set-variable")
        .flag("-Wno-bool-operation")
        .flag("-Wno-uninitialized")
        .flag("-Wno-shadow")
        .opt_level(opt)
        .define("VM_COVERAGE", "0")
        .define("VM_SC", "0")
        .define("VM_TRACE", if trace { "1" } else { "0" })
        .define("VM_TRACE_VCD", if trace { "1" } else { "0" })
        .define("VM_TRACE_FST", "0");
    b
}

fn main() {
    let out = PathBuf::from(std::env::var("OUT_DIR").unwrap());
    let trace = std::env::var_os("CARGO_FEATURE_TRACE").is_some();
    let rtl = rtl_dir();

    let root = match Command::new("verilator").args(["--getenv", "VERILATOR_ROOT"]).output() {
        Ok(o) if o.status.success() => PathBuf::from(String::from_utf8_lossy(&o.stdout).trim()),
        _ => die("error: verilator not found; install it with: apt-get install -y verilator"),
    };
    let inc = root.join("include");

    // (prefix, the top's files from its list `tilerast_<preset>.f`, top); the top's own file last.
    let mut models: Vec<(String, Vec<PathBuf>, String)> = Vec::new();
    for p in PRESETS {
        let files = sources(&rtl, &format!("tilerast_{p}"));
        models.push((format!("Vtilerast_{p}"), files, format!("tilerast_{p}")));
    }
    // Mutation copy: the ice40 core's sample_raster module, in whichever file of its list holds it.
    let ice40 = sources(&rtl, "tilerast_ice40");
    let top_file = ice40.last().unwrap();
    let top_src = std::fs::read_to_string(top_file).unwrap();
    let (module, _params) = flat::instance_module(&top_src, "tilerast_ice40", "sample_raster").unwrap_or_else(|| {
        die(&format!(
            "error: {}: tilerast_ice40 has no `sample_raster` instance",
            top_file.display()
        ))
    });
    let head = format!("module {module}(");
    let holder = ice40
        .iter()
        .find(|f| std::fs::read_to_string(f).is_ok_and(|t| t.contains(&head)))
        .unwrap_or_else(|| {
            die(&format!(
                "error: module {module} is in none of tilerast_ice40.f's files"
            ))
        })
        .clone();
    let src = std::fs::read_to_string(&holder).unwrap();
    let mut_file = out.join("tilerast_ice40_mut.v");
    let mutated = mutation::apply(&src, &module, &holder.display().to_string()).unwrap_or_else(|e| die(&e));
    std::fs::write(&mut_file, mutated).unwrap();
    let mut_files = ice40
        .iter()
        .map(|f| if *f == holder { mut_file.clone() } else { f.clone() })
        .collect();
    models.push(("Vtilerast_ice40_mut".into(), mut_files, "tilerast_ice40".into()));

    let mut files: Vec<PathBuf> = Vec::new();
    let mut b = cxx_build::bridge("src/lib.rs");
    let mut layout: Option<(u32, u32, String, String)> = None;
    for (prefix, vfiles, top) in &models {
        let vfile = vfiles.last().unwrap();
        let src = std::fs::read_to_string(vfile).unwrap();
        let ports = flat::parse_ports(&src, vfile, top).unwrap_or_else(|e| die(&e));
        let wrap = format!("core_{}", prefix.trim_start_matches("Vtilerast_"));
        let flat = flat::flatten(&wrap, top, &ports);
        let this = (flat.in_bits, flat.out_bits, flat.rs_inputs, flat.rs_outputs);
        match &layout {
            None => layout = Some(this),
            Some(l) if *l == this => {}
            Some(_) => die(&format!(
                "error: {}: the core's ports differ from the other presets' (every preset has the same ports)",
                vfile.display()
            )),
        }
        let wfile = out.join(format!("{wrap}.v"));
        std::fs::write(&wfile, flat.verilog).unwrap();
        let mdir = out.join(format!("obj_{prefix}"));
        let mut all: Vec<&Path> = vec![&wfile];
        all.extend(vfiles.iter().map(PathBuf::as_path));
        files.extend(verilate(&all, &wrap, prefix, &mdir, trace));
        b.include(&mdir);
    }
    let (ni, no, rs_in, rs_out) = layout.expect("at least one model");
    std::fs::write(
        out.join("core_ports.rs"),
        format!(
            "// Generated by cosim/build.rs from the core's Verilog ports: the per-cycle word layout.\n\
             /// Bits of `in_bits` (every input but `clock`, in declaration order).\n\
             pub const CORE_IN_BITS: u32 = {ni};\n\
             /// Bits of `out_bits` (every output, in declaration order).\n\
             pub const CORE_OUT_BITS: u32 = {no};\n\
             /// The inputs' places in `in_bits`.\n\
             pub static CORE_INPUTS: &[PortDesc] = &[\n{rs_in}];\n\
             /// The outputs' places in `out_bits`.\n\
             pub static CORE_OUTPUTS: &[PortDesc] = &[\n{rs_out}];\n"
        ),
    )
    .unwrap();
    std::fs::write(
        out.join("core_layout.h"),
        format!(
            "// Generated by cosim/build.rs: u32 words per cycle of the flattened core ports.\n\
             #pragma once\nstatic const unsigned IN_W = {}, OUT_W = {};\n",
            ni.div_ceil(32),
            no.div_ceil(32)
        ),
    )
    .unwrap();
    files.push(inc.join("verilated.cpp"));
    files.push(inc.join("verilated_threads.cpp"));
    if trace {
        files.push(inc.join("verilated_vcd_c.cpp"));
    }

    b.file("csrc/glue.cpp").include(&out).files(&files);
    // The models are the hot loop: keep them optimized in debug builds too.
    model_build(&mut b, &inc, trace, 2);
    blocks::build(&out, &rtl, &inc, trace); // per-block models; must link before the runtime below
    top::build(&out, &rtl, &inc, trace); // FPGA tops (cosim/src/top.rs); likewise before the runtime
    compile(&mut b, "tilerast_cosim_models");
    println!("cargo:rustc-link-lib=pthread");
    println!("cargo:rustc-link-lib=atomic");
    println!("cargo:rerun-if-changed=src/lib.rs");
    println!("cargo:rerun-if-changed=csrc/glue.cpp");
    println!("cargo:rerun-if-changed=csrc/glue.h");
    println!("cargo:rerun-if-changed=csrc/words.h");
    println!("cargo:rerun-if-changed=csrc/sim.h");
    println!("cargo:rerun-if-changed=build/flat.rs");
    println!("cargo:rerun-if-changed=build/mutation.rs");
    println!("cargo:rerun-if-env-changed=TILERAST_RTL_DIR");
    println!("cargo:rerun-if-env-changed=RUSTC_WORKSPACE_WRAPPER");
}
