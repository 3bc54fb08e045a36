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
    drop_unused_enum_params(&s)
}

/// rust-hdl writes the encodings of every `LogicState` enum in scope (`localparam State__Idle = 0;`
/// under `// Enums`) into each module that holds a register of that type, including modules
/// that never compare against them. Drop such a line when its name appears nowhere else in its
/// module (Verilator's UNUSEDPARAM); every other line is kept as it is.
fn drop_unused_enum_params(v: &str) -> String {
    let lines: Vec<&str> = v.lines().collect();
    let mut keep = vec![true; lines.len()];
    let mut start = 0;
    for (i, l) in lines.iter().enumerate() {
        if l.starts_with("module ") {
            start = i;
        }
        if !l.starts_with("endmodule") {
            continue;
        }
        let body = &lines[start..=i];
        for (j, m) in body.iter().enumerate() {
            let t = m.trim_start();
            let Some(rest) = t.strip_prefix("localparam ") else {
                continue;
            };
            let Some((name, val)) = rest.split_once(" = ") else {
                continue;
            };
            if name.contains("__") && !val.contains('\'') && !name.contains(' ') {
                let used = body.iter().enumerate().any(|(n, x)| {
                    n != j
                        && x.match_indices(name).any(|(p, _)| {
                            let after = x[p + name.len()..].chars().next();
                            !after.is_some_and(|c| c.is_alphanumeric() || c == '_')
                        })
                });
                keep[start + j] = used;
            }
        }
    }
    // A `// Enums` header left with nothing under it goes too, with its blank line.
    for i in 0..lines.len() {
        if lines[i].trim() != "// Enums" {
            continue;
        }
        let end = (i + 1..lines.len())
            .find(|&n| !lines[n].trim_start().starts_with("localparam "))
            .unwrap_or(lines.len());
        if (i + 1..end).all(|n| !keep[n]) {
            keep[i] = false;
            if end < lines.len() && lines[end].trim().is_empty() {
                keep[end] = false;
            }
        }
    }
    let mut out = String::with_capacity(v.len());
    for (l, k) in lines.iter().zip(keep) {
        if k {
            out.push_str(l);
            out.push('\n');
        }
    }
    out
}

/// The modules of generated Verilog `v`, in order: (name, text from `module` to `endmodule`).
pub fn modules(v: &str) -> Vec<(String, String)> {
    let mut out = Vec::new();
    let mut cur: Option<(String, String)> = None;
    for line in v.lines() {
        if let Some(rest) = line.strip_prefix("module ") {
            let name: String = rest.chars().take_while(|c| c.is_alphanumeric() || *c == '_').collect();
            cur = Some((name, String::new()));
        }
        if let Some((_, text)) = cur.as_mut() {
            text.push_str(line);
            text.push('\n');
        }
        if line.starts_with("endmodule") {
            out.extend(cur.take());
        }
    }
    out
}

/// Make the child instance `inst` of the generated module `top` an instance of the module
/// `ext`, defined in another file, instead of a private copy: every module `{top}__{inst}` and
/// `{top}__{inst}__*` is dropped from `top_text` and the instantiation names `ext`. `ext_text`
/// is the Verilog that defines `ext`; each dropped module must equal its counterpart there
/// (same text once the prefix is renamed), so the result means exactly what the copy meant.
/// The instance keeps the name `inst`.
pub fn use_external(top_text: &str, top: &str, inst: &str, ext: &str, ext_text: &str) -> Result<String, String> {
    let prefix = format!("{top}__{inst}");
    let theirs: std::collections::HashMap<String, String> = modules(ext_text).into_iter().collect();
    let mut dropped = 0;
    for (name, text) in modules(top_text) {
        if name != prefix && !name.starts_with(&format!("{prefix}__")) {
            continue;
        }
        let renamed = format!("{ext}{}", &name[prefix.len()..]);
        let want = text.replace(&prefix, ext);
        match theirs.get(&renamed) {
            Some(t) if *t == want => dropped += 1,
            Some(_) => {
                return Err(format!(
                    "module {name} differs from {renamed} in the file that defines {ext}"
                ))
            }
            None => return Err(format!("module {renamed} (for {name}) is not defined with {ext}")),
        }
    }
    if dropped == 0 {
        return Err(format!("{top} has no instance `{inst}` to replace by {ext}"));
    }
    let inst_line = format!("    {prefix} {inst}(\n");
    if top_text.matches(&inst_line).count() != 1 {
        return Err(format!(
            "{top}: instantiation `{prefix} {inst}(` not found exactly once"
        ));
    }
    let mut out = String::with_capacity(top_text.len());
    let mut skip = false;
    for line in top_text.lines() {
        if let Some(rest) = line.strip_prefix("module ") {
            skip = rest.starts_with(&format!("{prefix}(")) || rest.starts_with(&format!("{prefix}__"));
        }
        if !skip {
            if line == inst_line.trim_end_matches('\n') {
                out.push_str(&format!("    {ext} {inst}(\n"));
            } else {
                out.push_str(line);
                out.push('\n');
            }
        }
        if line.starts_with("endmodule") {
            skip = false;
        }
    }
    Ok(out)
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

    const CORE: &str = "module core(a,b);\n    core__leaf leaf(\n    );\nendmodule // core\n\nmodule core__leaf(a);\nendmodule // core__leaf\n";

    #[test]
    fn external_instance_replaces_an_identical_copy() {
        let top = "module top(x);\n    top__c c(\n    );\n    top__u u(\n    );\nendmodule // top\n\nmodule top__c(a,b);\n    top__c__leaf leaf(\n    );\nendmodule // top__c\n\nmodule top__c__leaf(a);\nendmodule // top__c__leaf\n\nmodule top__u(y);\nendmodule // top__u\n";
        let out = use_external(top, "top", "c", "core", CORE).unwrap();
        let names: Vec<String> = modules(&out).into_iter().map(|m| m.0).collect();
        assert_eq!(names, ["top", "top__u"]);
        assert!(out.contains("    core c(\n"), "{out}");
        assert!(!out.contains("top__c"), "{out}");
        // A copy that differs from the external definition is refused, naming the module.
        let bad = top.replace("module top__c__leaf(a);", "module top__c__leaf(a2);");
        let e = use_external(&bad, "top", "c", "core", CORE).unwrap_err();
        assert!(e.contains("top__c__leaf"), "{e}");
        assert!(use_external(top, "top", "nope", "core", CORE).is_err());
    }

    #[test]
    fn enum_encodings_stay_only_where_they_are_used() {
        let raw = "module a(q);\n    // Enums\n    localparam S$Idle = 0;\n    localparam S$Run = 1;\n\n    x = q == S$Run;\nendmodule // a\n\nmodule a$q(d,q);\n    // Enums\n    localparam S$Idle = 0;\n    localparam S$Run = 1;\n\n    q <= d;\nendmodule // a$q\n";
        let f = fix_verilog(raw);
        let (a, aq) = f.split_once("module a__q").unwrap();
        assert!(a.contains("localparam S__Run = 1;") && a.contains("// Enums"), "{f}");
        assert!(!a.contains("S__Idle"), "{f}");
        assert!(!aq.contains("localparam") && !aq.contains("// Enums"), "{f}");
    }
}
