//! Verilates `rtl-out/tilerast_<preset>.v` for every preset (plus one deliberately broken copy
//! of the ice40 core for the mutation test) and compiles the models, the Verilator runtime and
//! the cxx shim (`csrc/`) into one static library.

use std::path::{Path, PathBuf};
use std::process::Command;

/// Presets simulated; `ice40_mut` is built from a mutated copy of the ice40 Verilog.
const PRESETS: &[&str] = &["ice40", "default", "full"];

/// The mutation: lane 0's mask bit 0 is forced to zero at the top-level output.
pub const MUT_FROM: &str = "        out_mask_0 = packer__out_mask_0;";
pub const MUT_TO: &str = "        out_mask_0 = packer__out_mask_0 & ~64'h1; // MUTATION (cosim test)";

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

fn verilate(vfile: &Path, top: &str, prefix: &str, mdir: &Path, trace: bool) {
    let _ = std::fs::remove_dir_all(mdir);
    let mut v = Command::new("verilator");
    v.args(["--cc", "-O3", "--x-assign", "fast", "--x-initial", "fast", "-Wno-fatal"])
        .args(["--top-module", top, "--prefix", prefix, "-Mdir"])
        .arg(mdir)
        .arg(vfile);
    if trace {
        v.arg("--trace");
    }
    let out = v
        .output()
        .unwrap_or_else(|_| die("error: verilator not found; install it with: apt-get install -y verilator"));
    if !out.status.success() {
        die(&format!(
            "error: verilator failed on {}:\n{}",
            vfile.display(),
            String::from_utf8_lossy(&out.stderr)
        ));
    }
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

    let mut models: Vec<(String, PathBuf, String)> = Vec::new(); // (prefix, vfile, top)
    for p in PRESETS {
        let vfile = rtl.join(format!("tilerast_{p}.v"));
        println!("cargo:rerun-if-changed={}", vfile.display());
        if !vfile.exists() {
            die(&format!(
                "error: {} missing (run `cargo run -p tilerast-hw --bin gen-rtl`)",
                vfile.display()
            ));
        }
        models.push((format!("Vtilerast_{p}"), vfile, format!("tilerast_{p}")));
    }
    // Mutation copy.
    let src = std::fs::read_to_string(rtl.join("tilerast_ice40.v")).unwrap();
    assert_eq!(
        src.matches(MUT_FROM).count(),
        1,
        "mutation anchor not found exactly once"
    );
    let mut_file = out.join("tilerast_ice40_mut.v");
    std::fs::write(&mut_file, src.replacen(MUT_FROM, MUT_TO, 1)).unwrap();
    models.push(("Vtilerast_ice40_mut".into(), mut_file, "tilerast_ice40".into()));

    let mut files: Vec<PathBuf> = Vec::new();
    let mut b = cxx_build::bridge("src/lib.rs");
    for (prefix, vfile, top) in &models {
        let mdir = out.join(format!("obj_{prefix}"));
        verilate(vfile, top, prefix, &mdir, trace);
        let mut fs: Vec<PathBuf> = std::fs::read_dir(&mdir)
            .unwrap()
            .map(|e| e.unwrap().path())
            .filter(|p| p.extension().is_some_and(|e| e == "cpp"))
            .collect();
        fs.sort();
        files.extend(fs);
        b.include(&mdir);
    }
    files.push(inc.join("verilated.cpp"));
    files.push(inc.join("verilated_threads.cpp"));
    if trace {
        files.push(inc.join("verilated_vcd_c.cpp"));
    }

    b.file("csrc/glue.cpp")
        .files(&files)
        .include(&inc)
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
        .opt_level(2) // the models are the hot loop, keep them optimized in debug builds too
        .define("VM_COVERAGE", "0")
        .define("VM_SC", "0")
        .define("VM_TRACE", if trace { "1" } else { "0" })
        .define("VM_TRACE_VCD", if trace { "1" } else { "0" })
        .define("VM_TRACE_FST", "0");
    b.compile("tilerast_cosim_models");
    println!("cargo:rustc-link-lib=pthread");
    println!("cargo:rustc-link-lib=atomic");
    println!("cargo:rerun-if-changed=src/lib.rs");
    println!("cargo:rerun-if-changed=csrc/glue.cpp");
    println!("cargo:rerun-if-changed=csrc/glue.h");
    println!("cargo:rerun-if-env-changed=TILERAST_RTL_DIR");
}
