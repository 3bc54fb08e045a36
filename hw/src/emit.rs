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

/// A block's Verilog, top module `name`: `connect_all`, [`generate_verilog_named`], then
/// [`fix_verilog`]. Every block's `verilog(cfg, name)` is this applied to the block built for
/// `cfg`.
pub fn block_verilog<U: Block>(mut block: U, name: &str) -> String {
    block.connect_all();
    fix_verilog(&generate_verilog_named(&block, name))
}

/// `impl Logic` for a block whose logic is `#[hdl_gen] fn kernel` and whose Verilog goes through
/// [`resolve_indices`] (vectors addressed by loop-variable expressions).
macro_rules! indexed_kernel_logic {
    ($block:ident) => {
        impl Logic for $block {
            fn update(&mut self) {
                self.kernel();
            }

            fn connect(&mut self) {
                $block::connect(self);
            }

            fn hdl(&self) -> Verilog {
                $crate::emit::resolve_indices($block::hdl(self))
            }
        }
    };
}
pub(crate) use indexed_kernel_logic;

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

/// A block's `#[hdl_gen]` code with every loop unrolled and every index of every signal name
/// evaluated, for a block that addresses a vector port of a vector of sub-blocks
/// (`self.lanes[l].gg[i]`). rust-hdl 0.46's Verilog generator evaluates only the *first*
/// `[..]` of a name (it would print `lanes$0$gg[i]`). This pass does what the generator does
/// (loops unrolled in order; an index is an integer expression of the enclosing loop
/// variables; a bare loop variable becomes its value) for every index: the first becomes
/// `[value]`, which the generator then turns into `$value` as always, the others `$value`. So
/// the generator prints exactly the text it prints for one-index names (the unit test
/// `resolution_is_identity_on_one_index_blocks` checks every other block), and rust-hdl's logic-loop check still sees indexed names as before (it skips them).
/// Use it in the block's own `Logic::hdl` (see `sample_raster.rs`); other kinds of `Verilog`
/// pass through unchanged.
///
/// # Panics
/// On an index that is not an integer expression (`+ - * / %`, parentheses) of loop variables.
pub fn resolve_indices(v: Verilog) -> Verilog {
    match v {
        Verilog::Combinatorial(b) => Verilog::Combinatorial(unroll_block(&b, &mut Vec::new())),
        other => other,
    }
}

type LoopVars = Vec<(String, i64)>;

fn unroll_block(b: &[ast::VerilogStatement], vars: &mut LoopVars) -> ast::VerilogBlock {
    let mut out = Vec::with_capacity(b.len());
    for st in b {
        unroll_statement(st, vars, &mut out);
    }
    out
}

fn unroll_statement(st: &ast::VerilogStatement, vars: &mut LoopVars, out: &mut ast::VerilogBlock) {
    use ast::VerilogStatement as S;
    match st {
        S::Loop(l) => {
            for i in l.from.as_usize()..l.to.as_usize() {
                vars.push((l.index.clone(), i as i64));
                for inner in &l.block {
                    unroll_statement(inner, vars, out);
                }
                vars.pop();
            }
        }
        S::Assignment(t, v) => out.push(S::Assignment(resolve_expr(t, vars), resolve_expr(v, vars))),
        S::SliceAssignment {
            base,
            width,
            offset,
            replacement,
        } => out.push(S::SliceAssignment {
            base: resolve_expr(base, vars),
            width: *width,
            offset: resolve_expr(offset, vars),
            replacement: resolve_expr(replacement, vars),
        }),
        S::If(c) => out.push(S::If(resolve_conditional(c, vars))),
        S::Match(m) => out.push(S::Match(ast::VerilogMatch {
            test: resolve_expr(&m.test, vars),
            cases: m
                .cases
                .iter()
                .map(|c| ast::VerilogCase {
                    condition: c.condition.clone(),
                    block: unroll_block(&c.block, vars),
                })
                .collect(),
        })),
        S::Comment(c) => out.push(S::Comment(c.clone())),
        S::Link(ls) => out.push(S::Link(ls.iter().map(|l| resolve_link(l, vars)).collect())),
        S::Macro(b) => out.push(S::Macro(unroll_block(b, vars))),
    }
}

fn resolve_conditional(c: &ast::VerilogConditional, vars: &mut LoopVars) -> ast::VerilogConditional {
    use ast::VerilogBlockOrConditional as E;
    ast::VerilogConditional {
        test: resolve_expr(&c.test, vars),
        then: unroll_block(&c.then, vars),
        otherwise: match &c.otherwise {
            E::Block(b) => E::Block(unroll_block(b, vars)),
            E::Conditional(s) => {
                let mut v = Vec::new();
                unroll_statement(s, vars, &mut v);
                assert!(v.len() == 1, "else-if must stay one statement");
                E::Conditional(Box::new(v.remove(0)))
            }
            E::None => E::None,
        },
    }
}

fn resolve_link(l: &ast::VerilogLink, vars: &LoopVars) -> ast::VerilogLink {
    use ast::VerilogLink as L;
    let d = |d: &ast::VerilogLinkDetails| ast::VerilogLinkDetails {
        my_name: resolve_name(&d.my_name, vars),
        owner_name: resolve_name(&d.owner_name, vars),
        other_name: resolve_name(&d.other_name, vars),
    };
    match l {
        L::Forward(x) => L::Forward(d(x)),
        L::Backward(x) => L::Backward(d(x)),
        L::Bidirectional(x) => L::Bidirectional(d(x)),
    }
}

fn resolve_expr(e: &ast::VerilogExpression, vars: &LoopVars) -> ast::VerilogExpression {
    use ast::VerilogExpression as X;
    let r = |x: &X| Box::new(resolve_expr(x, vars));
    match e {
        X::Signal(n) => X::Signal(resolve_name(n, vars)),
        X::Literal(l) => X::Literal(l.clone()),
        X::Cast(a, w) => X::Cast(r(a), *w),
        X::Signed(a) => X::Signed(r(a)),
        X::Unsigned(a) => X::Unsigned(r(a)),
        X::Paren(a) => X::Paren(r(a)),
        X::Binary(a, op, b) => X::Binary(r(a), op.clone(), r(b)),
        X::Unary(op, a) => X::Unary(op.clone(), r(a)),
        X::Index(a, b) => X::Index(r(a), r(b)),
        X::Slice(a, w, b) => X::Slice(r(a), *w, r(b)),
        X::IndexReplace(a, b, c) => X::IndexReplace(r(a), r(b), r(c)),
    }
}

/// `name` with its first `[expr]` replaced by `[value]` and every further one by `$value`; a
/// name that is a loop variable becomes its value.
fn resolve_name(name: &str, vars: &LoopVars) -> String {
    if let Some((_, v)) = vars.iter().rev().find(|(k, _)| k == name) {
        return v.to_string();
    }
    let mut out = String::with_capacity(name.len());
    let mut rest = name;
    let mut first = true;
    while let Some(open) = rest.find('[') {
        let close = open
            + rest[open..]
                .find(']')
                .unwrap_or_else(|| panic!("unbalanced `[` in `{name}`"));
        let v = eval_index(&rest[open + 1..close], vars, name);
        out.push_str(&rest[..open]);
        if first {
            out.push_str(&format!("[{v}]"));
        } else {
            out.push_str(&format!("${v}"));
        }
        first = false;
        rest = &rest[close + 1..];
    }
    out.push_str(rest);
    out
}

/// Value of an index expression: integers, loop variables, `+ - * / %`, parentheses.
fn eval_index(expr: &str, vars: &LoopVars, name: &str) -> i64 {
    struct P<'a> {
        s: &'a [u8],
        i: usize,
        vars: &'a LoopVars,
    }
    impl P<'_> {
        fn peek(&mut self) -> Option<u8> {
            while self.s.get(self.i).is_some_and(u8::is_ascii_whitespace) {
                self.i += 1;
            }
            self.s.get(self.i).copied()
        }
        fn sum(&mut self) -> Option<i64> {
            let mut v = self.product()?;
            while let Some(c @ (b'+' | b'-')) = self.peek() {
                self.i += 1;
                let w = self.product()?;
                v = if c == b'+' { v + w } else { v - w };
            }
            Some(v)
        }
        fn product(&mut self) -> Option<i64> {
            let mut v = self.atom()?;
            while let Some(c @ (b'*' | b'/' | b'%')) = self.peek() {
                self.i += 1;
                let w = self.atom()?;
                v = match c {
                    b'*' => v * w,
                    b'/' => v.checked_div(w)?,
                    _ => v.checked_rem(w)?,
                };
            }
            Some(v)
        }
        fn atom(&mut self) -> Option<i64> {
            match self.peek()? {
                b'(' => {
                    self.i += 1;
                    let v = self.sum()?;
                    (self.peek()? == b')').then(|| self.i += 1)?;
                    Some(v)
                }
                c if c.is_ascii_digit() => {
                    let start = self.i;
                    while self.s.get(self.i).is_some_and(u8::is_ascii_digit) {
                        self.i += 1;
                    }
                    std::str::from_utf8(&self.s[start..self.i]).ok()?.parse().ok()
                }
                c if c.is_ascii_alphabetic() || c == b'_' => {
                    let start = self.i;
                    while self
                        .s
                        .get(self.i)
                        .is_some_and(|c| c.is_ascii_alphanumeric() || *c == b'_')
                    {
                        self.i += 1;
                    }
                    let id = std::str::from_utf8(&self.s[start..self.i]).ok()?;
                    self.vars.iter().rev().find(|(k, _)| k == id).map(|(_, v)| *v)
                }
                _ => None,
            }
        }
    }
    let mut p = P {
        s: expr.as_bytes(),
        i: 0,
        vars,
    };
    match p.sum() {
        Some(v) if p.peek().is_none() => v,
        _ => panic!("`{name}`: cannot evaluate index `{expr}` (loop variables {vars:?})"),
    }
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

/// Lines of `v` that declare a signed localparam or parameter without a range (must be none in
/// rtl-out: `hw/src/package.rs` turns localparams into parameters with their ranges).
pub fn rangeless_signed_localparams(v: &str) -> Vec<String> {
    v.lines()
        .map(str::trim)
        .filter(|l| {
            (l.starts_with("localparam") || l.starts_with("parameter")) && l.contains("signed") && !l.contains('[')
        })
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

    /// On blocks without nested indices the pass changes nothing the generator prints.
    #[test]
    fn resolution_is_identity_on_one_index_blocks() {
        use rust_hdl::core::verilog_gen::verilog_combinatorial;
        fn text(v: &Verilog) -> String {
            match v {
                Verilog::Combinatorial(b) => verilog_combinatorial(b),
                _ => panic!("not combinatorial"),
            }
        }
        fn same(name: &str, b: &dyn Logic) {
            let raw = text(&b.hdl());
            assert!(raw.lines().count() > 50, "{name}");
            assert!(
                raw == text(&resolve_indices(b.hdl())),
                "{name}: resolution changed the text"
            );
        }
        for p in tilerast_golden::PRESETS {
            let cfg = tilerast_golden::Config::preset(p).unwrap();
            same("setup", &crate::setup::Setup::new(&cfg));
            same("tile_parser", &crate::tile_parser::TileParser::new(&cfg));
            same("subtile_coverage", &crate::subtile_coverage::SubtileCoverage::new(&cfg));
            same("point_raster", &crate::point_raster::PointRaster::new(&cfg));
            same("quad_packer", &crate::quad_packer::QuadPacker::new(&cfg));
            same("raster_core", &crate::raster_core::RasterCore::new(&cfg));
        }
    }

    /// Two levels of vector in one name (`self.subs[l].x[i]`), which rust-hdl alone prints as
    /// `subs$0$x[i]`: resolved to `subs__0__x__1` etc.
    mod nested {
        use super::super::*;
        use crate::util::vec_of;

        #[derive(LogicBlock, Default)]
        pub struct Sub {
            pub x: Vec<Signal<In, Bits<8>>>,
            pub y: Signal<Out, Bits<8>>,
        }

        impl Logic for Sub {
            #[hdl_gen]
            fn update(&mut self) {
                self.y.next = self.x[0].val() + self.x[1].val();
            }
        }

        #[derive(LogicBlock)]
        pub struct Top {
            pub a: Vec<Signal<In, Bits<8>>>,
            pub o: Vec<Signal<Out, Bits<8>>>,
            pub f: Vec<Signal<Out, Bit>>,
            subs: Vec<Sub>,
            _n: usize,
        }

        impl Top {
            #[hdl_gen]
            fn kernel(&mut self) {
                for l in 0..self._n {
                    for i in 0..2 {
                        self.subs[l].x[(i + 1) % 2].next = self.a[l * 2 + i].val();
                    }
                    if self.a[l].val().get_bit(0) {
                        self.o[l].next = self.subs[l].y.val();
                    } else if self.a[l + 1].val().get_bit(1) {
                        self.o[l].next = 1.into();
                    } else {
                        self.o[l].next = 0.into();
                    }
                    self.f[l].next = self.a[l].val().get_bit(l);
                }
            }
        }

        impl Logic for Top {
            fn update(&mut self) {
                self.kernel();
            }
            fn connect(&mut self) {
                Top::connect(self);
            }
            fn hdl(&self) -> Verilog {
                resolve_indices(Top::hdl(self))
            }
        }

        #[test]
        fn nested_vector_ports_resolve() {
            let mut t = Top {
                a: vec_of(4),
                o: vec_of(2),
                f: vec_of(2),
                subs: (0..2)
                    .map(|_| Sub {
                        x: vec_of(2),
                        y: Default::default(),
                    })
                    .collect(),
                _n: 2,
            };
            t.connect_all();
            let v = fix_verilog(&generate_verilog_named(&t, "top"));
            let body = &modules(&v)[0].1;
            for want in [
                "subs__0__x__1 = a__0;",
                "subs__0__x__0 = a__1;",
                "subs__1__x__1 = a__2;",
                "subs__1__x__0 = a__3;",
                "if (a__1[32'h0]) begin\n            o__1 = subs__1__y;",
                "else if (a__2[32'h1]) begin",
                "f__1 = a__1[1];",
            ] {
                assert!(body.contains(want), "missing `{want}` in\n{body}");
            }
            assert!(!body.contains("x["), "{body}");
            // In simulation the same wiring: o_l = x0 + x1 of lane l = a[2l] + a[2l+1] if a[l] odd.
            let (a, b) = (7u64, 5u64);
            t.a[0].next = a.into();
            t.a[1].next = b.into();
            t.a[2].next = 0.into();
            t.a[3].next = 0.into();
            for _ in 0..4 {
                t.update_all();
            }
            assert_eq!(t.o[0].val(), Bits::<8>::from(a + b));
        }

        #[test]
        #[should_panic(expected = "cannot evaluate index")]
        fn unknown_index_variable_panics() {
            resolve_name("x[q]", &vec![("l".to_string(), 0)]);
        }
    }
}
