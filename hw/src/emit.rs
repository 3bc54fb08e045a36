//! Verilog emission helpers around rust-hdl's generator.
//!
//! rust-hdl's `generate_verilog` always names the top module `top` and writes signed constants
//! without a range (`localparam signed x = 24'hffff9c;`). Yosys 0.23 compares against such a
//! constant as *unsigned*, while Verilator, Icarus and rust-hdl's simulator compare as signed:
//! simulation passes and the synthesized netlist is wrong. [`fix_verilog`] therefore gives every
//! constant an explicit range, and `tests/emit.rs` fails if a range-less signed localparam ever
//! reaches `rtl-out/`. It also replaces the `$` that rust-hdl puts in internal names (Verilator
//! mangles them to `__024`) by `__`.

use rust_hdl::prelude::*;

/// Like rust-hdl's `generate_verilog`, but the top module is called `name` (submodules become
/// `name$child`), so several generated blocks can share one Verilator or yosys build.
pub fn generate_verilog_named<U: Block>(uut: &U, name: &str) -> String {
    check_all(uut).expect("rust-hdl design check");
    let mut defines = ModuleDefines::default();
    uut.accept(name, &mut defines);
    defines.defines()
}

/// Post-process rust-hdl output: give every `localparam` an explicit range taken from its
/// literal's width, and replace `$` inside identifiers by `__` (system tasks such as `$signed`
/// are kept: they never follow an identifier character).
pub fn fix_verilog(raw: &str) -> String {
    let mut out = String::with_capacity(raw.len() + 256);
    for line in raw.lines() {
        let t = line.trim_start();
        let indent = &line[..line.len() - t.len()];
        let mut l = line.trim_end().to_string();
        if let Some(rest) = t.strip_prefix("localparam ") {
            let rest = rest.trim_start();
            let (signed, rest) = match rest.strip_prefix("signed ") {
                Some(r) => ("signed ", r.trim_start()),
                None => ("", rest),
            };
            if let Some((name, val)) = rest.split_once(" = ") {
                if let Some((w, _)) = val.split_once('\'') {
                    if let Ok(w) = w.trim().parse::<usize>() {
                        if !name.contains('[') {
                            l = format!("{indent}localparam {signed}[{}:0] {name} = {}", w - 1, val.trim_end());
                        }
                    }
                }
            }
        }
        out.push_str(&l);
        out.push('\n');
    }
    let b = out.as_bytes();
    let mut s = String::with_capacity(out.len() + 64);
    for (i, c) in out.char_indices() {
        if c == '$' && i > 0 && (b[i - 1].is_ascii_alphanumeric() || b[i - 1] == b'_') {
            s.push_str("__");
        } else {
            s.push(c);
        }
    }
    s
}

/// The project's one Verilator lint-waiver file (`hw/lint/waivers.vlt`), each waiver with its
/// reason.
pub fn waiver_file() -> std::path::PathBuf {
    std::path::PathBuf::from(env!("CARGO_MANIFEST_DIR")).join("lint/waivers.vlt")
}

/// Lint Verilog `text` whose top module is `top` with `verilator --lint-only -Wall` and the
/// waiver file. `Err` carries every message (or says how to install Verilator).
pub fn lint(text: &str, top: &str) -> Result<(), String> {
    let dir = std::env::temp_dir().join(format!("tilerast-lint-{}-{top}", std::process::id()));
    std::fs::create_dir_all(&dir).map_err(|e| format!("{}: {e}", dir.display()))?;
    let file = dir.join(format!("{top}.v"));
    std::fs::write(&file, text).map_err(|e| format!("{}: {e}", file.display()))?;
    let out = std::process::Command::new("verilator")
        .args(["--lint-only", "-Wall", "--top-module", top])
        .arg(waiver_file())
        .arg(&file)
        .output()
        .map_err(|e| format!("verilator: {e}; install it with: apt-get install -y verilator"))?;
    let _ = std::fs::remove_dir_all(&dir);
    let msg = String::from_utf8_lossy(&out.stderr).into_owned();
    if out.status.success() && !msg.contains("%Warning") && !msg.contains("%Error") {
        Ok(())
    } else {
        Err(msg)
    }
}

/// Lines of `v` that declare a signed localparam without a range (must be none in rtl-out).
pub fn rangeless_signed_localparams(v: &str) -> Vec<String> {
    v.lines()
        .map(str::trim)
        .filter(|l| l.starts_with("localparam") && l.contains("signed") && !l.contains('['))
        .map(str::to_string)
        .collect()
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn constants_get_a_range_and_dollars_go() {
        let raw = "    localparam signed thresh = 24'hffff9c;\n    localparam  k = 32'h5;\n    reg a$b;\n    x = $signed(y);\n";
        let f = fix_verilog(raw);
        assert!(f.contains("localparam signed [23:0] thresh = 24'hffff9c;"), "{f}");
        assert!(f.contains("localparam [31:0] k = 32'h5;"), "{f}");
        assert!(f.contains("reg a__b;"));
        assert!(f.contains("$signed(y)"));
        assert!(rangeless_signed_localparams(&f).is_empty());
        assert_eq!(rangeless_signed_localparams(raw).len(), 1);
    }
}
