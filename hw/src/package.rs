//! The Verilog as a package: every module defined once in a directory of generated files.
//!
//! rust-hdl writes one module per block *instance*, under the instance's path
//! (`tilerast_frame_default__raster_core__setup__o_a2`), so a design that instantiates a block
//! twice, or a top that contains another top, carries private copies of the same logic: the
//! frame tops embed the back end, the back end the blender, every register is a one-flop
//! module of its own. [`package`] takes the files one generation run writes (each
//! self-contained, as rust-hdl made it) and rewrites them so that each module is defined once:
//!
//! ```text
//!  raw files (in order)          package()                         written
//!  ┌───────────────┐   parse modules; canonical form of each =     tilerast_lib.v     one-flop registers, one per
//!  │ tilerast_a.v  │   its text with its own name blanked and       (tilerast_dff_<w>,  width and signedness
//!  │ tilerast_b.v  │──► each child instance named by the child's ─► tilerast_dff_s<w>)
//!  │ …             │   canonical class (bottom up); the first       tilerast_a.v       the modules a.v owns
//!  └───────────────┘   module of a class, in file order, owns it    tilerast_a.f       the files a's top needs
//! ```
//!
//! - **Registers.** A module that is exactly rust-hdl's `DFF` (`d`, `q`, `clock`, `initial q =
//!   0`, `q <= d` at the clock edge) becomes an instance of `tilerast_dff_<w>` (or
//!   `tilerast_dff_s<w>` when its ports are signed) in [`LIB_FILE`].
//! - **Everything else** is merged by structure: two modules are one class when their texts
//!   are equal once their own names are blanked and their children are named by class. The
//!   first module of a class in file order keeps its name and its file; every other instance
//!   of the class names that module. Callers order the files leaves first (cores, then each
//!   block, then the back end, the frame, the boards), so the frame instantiates
//!   `tilerast_shading_sort_default` from that block's own file.
//! - **Modules that differ only in constants** (the values of ranged `localparam`s; every
//!   other line, widths included, equal and the same children) are one module: the first of
//!   them declares the constants that differ as `parameter`s with their ranges (yosys compares a
//!   range-less signed constant as unsigned), and every other is an instance of it with
//!   `#(.name(value), …)`. One level only: a parent whose children differ in their overrides
//!   stays a module of its own.
//! - **A top that equals an earlier module**, up to constants (the per-preset pixel processors
//!   are one logic), stays in its file as a thin wrapper with the same ports around it
//!   (instance `same`), so every file's top module keeps its name.
//! - **File lists.** Each file `<stem>.v` gets `<stem>.f`: the files its top needs, one name
//!   per line, dependencies first, relative to the list's directory (`verilator -F`, or read in
//!   that order by yosys and Icarus; [`read_file_list`]).
//! - **Instances** whose connections fit on one line of at most [`ONE_LINE`] characters are
//!   written on one line.
//!
//! Nothing else changes: no module text but instance lines and `localparam` → `parameter`, and
//! the merge is exact (equal text but for the overridden values), so the packaged files are the
//! same logic as the raw ones: `hw/tests/rtl_out.rs` flattens both, top by top, with every
//! parameter's value written in ([`Flattener`]), and compares; the co-simulations, regressions
//! and post-synthesis runs read the packaged files.

use std::collections::{BTreeMap, HashMap};
use std::path::{Path, PathBuf};

/// The shared library file of one-flop registers.
pub const LIB_FILE: &str = "tilerast_lib.v";

/// Longest instance written on one line.
pub const ONE_LINE: usize = 120;

/// One generated file: its name in the directory and its text.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct GenFile {
    pub name: String,
    pub text: String,
}

impl GenFile {
    pub fn new(name: impl Into<String>, text: impl Into<String>) -> Self {
        GenFile {
            name: name.into(),
            text: text.into(),
        }
    }
}

/// A raw Verilog file for [`package`]: its name, its text as rust-hdl wrote it (a header of
/// `//` lines, then modules), and its top module.
#[derive(Clone, Debug)]
pub struct RawFile {
    pub name: String,
    pub top: String,
    pub text: String,
}

/// The file list's name for Verilog file `name` (`tilerast_x.v` → `tilerast_x.f`).
pub fn list_name(name: &str) -> String {
    format!("{}.f", name.strip_suffix(".v").unwrap_or(name))
}

/// The files of `<dir>/<stem>.f`, as paths under `dir`, in order (dependencies first). A
/// missing list, or a listed file that is missing, is one line naming it.
pub fn read_file_list(dir: &Path, stem: &str) -> Result<Vec<PathBuf>, String> {
    let list = dir.join(format!("{stem}.f"));
    let text = std::fs::read_to_string(&list).map_err(|e| {
        format!(
            "{}: {e} (regenerate with `cargo run -p tilerast-hw --bin gen-rtl` or `tilerast rtl`)",
            list.display()
        )
    })?;
    let mut out = Vec::new();
    for (n, line) in text.lines().enumerate() {
        let line = line.trim();
        if line.is_empty() || line.starts_with("//") || line.starts_with('#') {
            continue;
        }
        let p = dir.join(line);
        if !p.is_file() {
            return Err(format!("{} line {}: {} is missing", list.display(), n + 1, p.display()));
        }
        out.push(p);
    }
    Ok(out)
}

/// The modules under `top` (itself included) among `files` (e.g. the files of its list): every
/// module its text instantiates (`    <module> <inst>(` or `    <module> #(…) <inst>(`), and
/// theirs, down to the leaves. `Err`: a file that cannot be read, or `top` defined in none.
pub fn hierarchy(files: &[PathBuf], top: &str) -> Result<std::collections::BTreeSet<String>, String> {
    let mut defs: HashMap<String, String> = HashMap::new();
    for f in files {
        let text = std::fs::read_to_string(f).map_err(|e| format!("{}: {e}", f.display()))?;
        defs.extend(crate::emit::modules(&text));
    }
    if !defs.contains_key(top) {
        return Err(format!("module `{top}` is defined in none of its list's files"));
    }
    let mut seen = std::collections::BTreeSet::from([top.to_string()]);
    let mut todo = vec![top.to_string()];
    while let Some(m) = todo.pop() {
        for l in defs[&m].lines() {
            let Some((child, _)) = l.strip_prefix("    ").and_then(|r| r.split_once(' ')) else {
                continue;
            };
            if defs.contains_key(child) && seen.insert(child.to_string()) {
                todo.push(child.to_string());
            }
        }
    }
    Ok(seen)
}

/// The Verilator lint runs that cover the tops `tops` (each `(file stem, top module)`, its list
/// `<stem>.f` in `dir`): `-Wall` lints every module under the top it is given, so a top that
/// another top's [`hierarchy`] holds is linted inside that one. Returns the tops that no other
/// holds (indices into `tops`), each with the indices of the tops under it.
pub fn lint_runs(dir: &Path, tops: &[(String, String)]) -> Result<Vec<(usize, Vec<usize>)>, String> {
    let under: Vec<std::collections::BTreeSet<String>> = tops
        .iter()
        .map(|(stem, top)| hierarchy(&read_file_list(dir, stem)?, top).map_err(|e| format!("{stem}.f: {e}")))
        .collect::<Result<_, _>>()?;
    let held = |i: usize, j: usize| i != j && under[j].contains(&tops[i].1);
    Ok((0..tops.len())
        .filter(|&k| !(0..tops.len()).any(|j| held(k, j)))
        .map(|k| (k, (0..tops.len()).filter(|&i| held(i, k)).collect()))
        .collect())
}

/// The text of module `module` among `files` (e.g. the files of a list), or one line saying
/// where it was looked for.
pub fn module_text(files: &[PathBuf], module: &str) -> Result<String, String> {
    for f in files {
        let text = std::fs::read_to_string(f).map_err(|e| format!("{}: {e}", f.display()))?;
        if let Some((_, t)) = crate::emit::modules(&text).into_iter().find(|(n, _)| n == module) {
            return Ok(t);
        }
    }
    Err(format!(
        "module `{module}` is defined in none of {}",
        files
            .iter()
            .map(|f| f.display().to_string())
            .collect::<Vec<_>>()
            .join(", ")
    ))
}

/// The module that `parent`'s text instantiates as `inst` (`    <module> <inst>(` or
/// `    <module> #(<overrides>) <inst>(`), and the overrides as written (`#(.c(4'h1), …)`, or
/// empty).
pub fn instance_module(parent: &str, inst: &str) -> Option<(String, String)> {
    parent.lines().find_map(|l| {
        let (module, rest) = l.strip_prefix("    ")?.split_once(' ')?;
        let (params, rest) = match rest.strip_prefix("#(") {
            Some(r) => {
                let (p, rest) = r.split_once(") ")?;
                (format!("#({p})"), rest)
            }
            None => (String::new(), rest),
        };
        rest.strip_prefix(inst)?.strip_prefix('(')?;
        (!module.is_empty() && module.chars().all(|c| c.is_alphanumeric() || c == '_'))
            .then(|| (module.to_string(), params))
    })
}

/// rust-hdl's one-flop register module `name`, `w` bits, signed ports or not.
fn dff_text(name: &str, w: usize, signed: bool) -> String {
    let range = match (w, signed) {
        (1, false) => " ".to_string(),
        (_, false) => format!(" [{}:0] ", w - 1),
        (_, true) => format!("signed [{}:0] ", w - 1),
    };
    format!(
        "module {name}(d,q,clock);\n\n    // Module arguments\n    input wire {range}d;\n    output reg {range}q;\n    \
         input wire  clock;\n\n    // Update code (custom)\n    initial begin\n       q = {w}'h0;\n    end\n\n    \
         always @(posedge clock) begin\n       q <= d;\n    end\n\nendmodule // {name}\n"
    )
}

/// The library module of module `text` (named `name`) if it is a one-flop register: its
/// library name and text.
fn dff_class(name: &str, text: &str) -> Option<(String, String)> {
    let out = text.lines().find_map(|l| l.trim().strip_prefix("output reg "))?;
    let signed = out.starts_with("signed ");
    let w = match out.split_once('[') {
        Some((_, r)) => r.split_once(':')?.0.parse::<usize>().ok()? + 1,
        None => 1,
    };
    let lib = format!("tilerast_dff_{}{w}", if signed { "s" } else { "" });
    (dff_text(name, w, signed) == text).then(|| (dff_text(&lib, w, signed), lib))
}

/// A `localparam` line's name and value (`    localparam [signed] [h:0] NAME = VALUE;`).
fn localparam(line: &str) -> Option<(String, String)> {
    let r = line.trim_start().strip_prefix("localparam ")?;
    let (decl, value) = r.split_once(" = ")?;
    let name = decl.rsplit(' ').next()?;
    decl.contains('[')
        .then(|| (name.to_string(), value.trim_end_matches(';').to_string()))
}

/// `text` with every ranged localparam's value blanked: modules equal under this differ only
/// in constants.
fn shape(text: &str) -> String {
    text.lines()
        .map(|l| match localparam(l) {
            Some((n, _)) => format!("{}@", l.split(" = ").next().unwrap_or(&n)),
            None => l.to_string(),
        })
        .collect::<Vec<_>>()
        .join("\n")
}

/// The ranged localparams of `text`, in order: (name, value).
fn localparams(text: &str) -> Vec<(String, String)> {
    text.lines().filter_map(localparam).collect()
}

/// Where a module stands: file index and module index within that file.
type At = (usize, usize);

struct Parsed {
    header: String,
    modules: Vec<(String, String)>,
}

/// Rewrite `files` so that every module is defined once (see the module doc). Returns
/// [`LIB_FILE`] (when any register was found), then each file in order followed by its list
/// `<stem>.f`. `Err` names a module defined twice in the input, a child that no file
/// defines, or a file whose top is missing.
pub fn package(files: &[RawFile]) -> Result<Vec<GenFile>, String> {
    let parsed: Vec<Parsed> = files
        .iter()
        .map(|f| {
            let first = f.text.find("\nmodule ").map(|i| i + 1).unwrap_or(f.text.len());
            Parsed {
                header: f.text[..first].to_string(),
                modules: crate::emit::modules(&f.text),
            }
        })
        .collect();
    let mut index: HashMap<&str, At> = HashMap::new();
    for (fi, p) in parsed.iter().enumerate() {
        for (mi, (name, _)) in p.modules.iter().enumerate() {
            if let Some((other, _)) = index.insert(name.as_str(), (fi, mi)) {
                return Err(format!(
                    "module {name} is defined in {} and {}",
                    files[other].name, files[fi].name
                ));
            }
        }
        if !p.modules.iter().any(|(n, _)| *n == files[fi].top) {
            return Err(format!("{}: top module {} not found", files[fi].name, files[fi].top));
        }
    }

    // Canonical classes, bottom up: class id per module, keyed by the canonical text.
    enum Class {
        Dff(String),
        Logic(usize),
    }
    let mut classes: HashMap<String, usize> = HashMap::new();
    let mut class_of: HashMap<At, usize> = HashMap::new();
    let mut lib_of: HashMap<At, String> = HashMap::new();
    let mut lib_texts: HashMap<String, String> = HashMap::new();
    #[allow(clippy::too_many_arguments)]
    fn classify(
        at: At,
        parsed: &[Parsed],
        index: &HashMap<&str, At>,
        classes: &mut HashMap<String, usize>,
        class_of: &mut HashMap<At, usize>,
        lib_of: &mut HashMap<At, String>,
        lib_texts: &mut HashMap<String, String>,
    ) -> Class {
        if let Some(l) = lib_of.get(&at) {
            return Class::Dff(l.clone());
        }
        if let Some(c) = class_of.get(&at) {
            return Class::Logic(*c);
        }
        let (name, text) = &parsed[at.0].modules[at.1];
        if let Some((lt, l)) = dff_class(name, text) {
            lib_of.insert(at, l.clone());
            lib_texts.insert(l.clone(), lt);
            return Class::Dff(l);
        }
        let lines: Vec<&str> = text.lines().collect();
        let insts = any_instances(&lines, &|c| index.contains_key(c));
        let mut canon: Vec<String> = lines.iter().map(|l| l.to_string()).collect();
        canon[0] = canon[0].replacen(&format!("module {name}("), "module @(", 1);
        if let Some(last) = canon.last_mut() {
            *last = last.replace(&format!("endmodule // {name}"), "endmodule // @");
        }
        for i in &insts {
            let child = classify(
                index[i.child.as_str()],
                parsed,
                index,
                classes,
                class_of,
                lib_of,
                lib_texts,
            );
            let id = match child {
                Class::Dff(l) => l,
                Class::Logic(c) => format!("@{c}"),
            };
            canon[i.first] = format!("    {id} {}(", i.name);
        }
        let key = canon.join("\n");
        let n = classes.len();
        let c = *classes.entry(key).or_insert(n);
        class_of.insert(at, c);
        Class::Logic(c)
    }
    for (fi, p) in parsed.iter().enumerate() {
        for mi in 0..p.modules.len() {
            classify(
                (fi, mi),
                &parsed,
                &index,
                &mut classes,
                &mut class_of,
                &mut lib_of,
                &mut lib_texts,
            );
        }
    }
    // The owner of each class: its first module in file order.
    let mut owner: HashMap<usize, At> = HashMap::new();
    let mut by_order: Vec<usize> = Vec::new();
    for (fi, p) in parsed.iter().enumerate() {
        for mi in 0..p.modules.len() {
            if let Some(c) = class_of.get(&(fi, mi)) {
                if !owner.contains_key(c) {
                    owner.insert(*c, (fi, mi));
                    by_order.push(*c);
                }
            }
        }
    }
    // Classes equal but for the values of their localparams: the first (the leader) declares
    // those that differ as `parameter`s; every other member is the leader with overrides.
    let mut class_text: Vec<&str> = vec![""; classes.len()];
    for (k, c) in &classes {
        class_text[*c] = k.as_str();
    }
    let mut leader: HashMap<usize, (usize, Vec<(String, String)>)> = HashMap::new();
    let mut params_of: HashMap<usize, Vec<String>> = HashMap::new();
    {
        let mut shapes: HashMap<String, Vec<usize>> = HashMap::new();
        for &c in &by_order {
            shapes.entry(shape(class_text[c])).or_default().push(c);
        }
        for &c in &by_order {
            let group = &shapes[&shape(class_text[c])];
            if group.len() < 2 || group[0] != c {
                continue;
            }
            let values: Vec<Vec<(String, String)>> = group.iter().map(|g| localparams(class_text[*g])).collect();
            let names: Vec<String> = values[0]
                .iter()
                .enumerate()
                .filter(|(k, _)| values.iter().any(|v| v[*k].1 != values[0][*k].1))
                .map(|(_, (n, _))| n.clone())
                .collect();
            for (g, v) in group.iter().zip(&values).skip(1) {
                let over: Vec<(String, String)> = v
                    .iter()
                    .zip(&values[0])
                    .filter(|(x, l)| x.1 != l.1)
                    .map(|(x, _)| x.clone())
                    .collect();
                leader.insert(*g, (c, over));
            }
            params_of.insert(c, names);
        }
    }
    // What an instance of the module at `at` is: its module name after packaging, the
    // parameter overrides, and the module's position (None: the library).
    let resolve = |at: At| -> (String, Vec<(String, String)>, Option<At>) {
        if let Some(l) = lib_of.get(&at) {
            return (l.clone(), Vec::new(), None);
        }
        let c = class_of[&at];
        let (c, over) = match leader.get(&c) {
            Some((l, o)) => (*l, o.clone()),
            None => (c, Vec::new()),
        };
        let o = owner[&c];
        (parsed[o.0].modules[o.1].0.clone(), over, Some(o))
    };

    let mut lib: BTreeMap<String, String> = BTreeMap::new();
    let mut texts: Vec<String> = Vec::new();
    // Per file: the files (indices; usize::MAX = the library) its own modules instantiate from.
    let mut uses: Vec<Vec<usize>> = Vec::new();
    for (fi, p) in parsed.iter().enumerate() {
        let mut body = p.header.clone();
        let mut from: Vec<usize> = Vec::new();
        for (mi, (name, text)) in p.modules.iter().enumerate() {
            let at = (fi, mi);
            let is_top = *name == files[fi].top;
            let c = class_of.get(&at).copied();
            let owned = c.is_some_and(|c| owner[&c] == at && !leader.contains_key(&c));
            if !owned && !is_top {
                continue;
            }
            let lines: Vec<&str> = text.lines().collect();
            if !owned {
                // The top equals an earlier module (up to constants): a wrapper with the same
                // ports around it.
                let (o, over, o_at) = resolve(at);
                let o_at = o_at.expect("a top is no register");
                from.push(o_at.0);
                body.push_str(&wrapper(name, &lines, &o, &over, &files[o_at.0].name)?);
                body.push_str("\n\n");
                continue;
            }
            let params = c.and_then(|c| params_of.get(&c));
            let insts = any_instances(&lines, &|c| index.contains_key(c));
            let mut out = String::with_capacity(text.len());
            let mut put = |l: &str| {
                match (params, localparam(l)) {
                    (Some(ps), Some((n, _))) if ps.contains(&n) => {
                        out.push_str(&l.replacen("localparam ", "parameter ", 1))
                    }
                    _ => out.push_str(l),
                }
                out.push('\n');
            };
            let mut i = 0;
            for inst in &insts {
                for l in &lines[i..inst.first] {
                    put(l);
                }
                let (child, over, child_at) = resolve(index[inst.child.as_str()]);
                match child_at {
                    None => {
                        lib.insert(child.clone(), lib_texts[&child].clone());
                        from.push(usize::MAX);
                    }
                    Some(o) if o.0 != fi => from.push(o.0),
                    Some(_) => {}
                }
                let head = if over.is_empty() {
                    child
                } else {
                    let o: Vec<String> = over.iter().map(|(n, v)| format!(".{n}({v})")).collect();
                    format!("{child} #({})", o.join(", "))
                };
                let one = format!("    {head} {}({});", inst.name, inst.conns.join(", "));
                if one.len() <= ONE_LINE {
                    put(&one);
                } else {
                    put(&format!("    {head} {}(", inst.name));
                    for l in &lines[inst.first + 1..=inst.last] {
                        put(l);
                    }
                }
                i = inst.last + 1;
            }
            for l in &lines[i..] {
                put(l);
            }
            body.push_str(&out);
            body.push_str("\n\n");
        }
        while body.ends_with("\n\n") {
            body.pop();
        }
        texts.push(body);
        from.sort_unstable();
        from.dedup();
        uses.push(from);
    }

    // File lists: every file a file needs, transitively, in file order (owners always come
    // earlier, so file order is a dependency order), the library first.
    let mut out = Vec::new();
    if !lib.is_empty() {
        out.push(GenFile::new(LIB_FILE, lib_text(&lib)));
    }
    for (fi, text) in texts.into_iter().enumerate() {
        let mut need = vec![false; files.len()];
        let mut lib_needed = false;
        let mut stack = vec![fi];
        while let Some(f) = stack.pop() {
            for &u in &uses[f] {
                if u == usize::MAX {
                    lib_needed = true;
                } else if !need[u] && u != fi {
                    need[u] = true;
                    stack.push(u);
                }
            }
        }
        let mut list = String::new();
        if lib_needed {
            list.push_str(LIB_FILE);
            list.push('\n');
        }
        for (u, n) in need.iter().enumerate() {
            if *n {
                list.push_str(&files[u].name);
                list.push('\n');
            }
        }
        list.push_str(&files[fi].name);
        list.push('\n');
        out.push(GenFile::new(files[fi].name.clone(), text));
        out.push(GenFile::new(list_name(&files[fi].name), list));
    }
    Ok(out)
}

/// The library file holding `modules` (name → text), in name order.
fn lib_text(modules: &BTreeMap<String, String>) -> String {
    let mut t = String::from(
        "// generated by `cargo run -p tilerast-hw --bin gen-rtl` (or `tilerast rtl`) — do not edit\n\
         // The one-flop registers every other file of this directory instantiates (rust-hdl's DFF:\n\
         // `initial q = 0`, `q <= d` at the rising clock edge), one module per width:\n\
         // tilerast_dff_<w> (unsigned ports), tilerast_dff_s<w> (signed ports).\n//\n",
    );
    for text in modules.values() {
        t.push('\n');
        t.push_str(text);
    }
    t
}

/// The library holding the modules of both library texts `old` and `new` (a module's name
/// says its width and signedness, so a name in both has one text): `tilerast rtl` adds a
/// config's registers to a directory that holds another config's.
pub fn merge_lib(old: &str, new: &str) -> String {
    let mut m: BTreeMap<String, String> = crate::emit::modules(old).into_iter().collect();
    m.extend(crate::emit::modules(new));
    lib_text(&m)
}

/// A module `name` with the ports of module `target` (whose text is `target_text`) around an
/// instance of `target` with the overrides `params` (`#(.c(4'h1), …)` as an instance line
/// writes them, or empty): a block of a packaged core under a name of its own, for a flow that
/// synthesizes one block at a time.
pub fn instance_wrapper(name: &str, target_text: &str, target: &str, params: &str) -> Result<String, String> {
    let params = params.trim();
    let mut over: Vec<(String, String)> = Vec::new();
    if !params.is_empty() {
        let bad = || format!("{name}: cannot read the overrides `{params}`");
        let inner = params
            .strip_prefix("#(")
            .and_then(|p| p.strip_suffix(')'))
            .ok_or_else(bad)?;
        for x in split_top(inner) {
            let (n, v) = x.strip_prefix('.').and_then(|x| x.split_once('(')).ok_or_else(bad)?;
            over.push((n.to_string(), v.strip_suffix(')').ok_or_else(bad)?.to_string()));
        }
    }
    let renamed = target_text.replacen(&format!("module {target}("), &format!("module {name}("), 1);
    let lines: Vec<&str> = renamed.lines().collect();
    wrapper(name, &lines, target, &over, "its file list")
}

/// Module `name` with the ports of `lines` (a module's text) around an instance of `owner`
/// (defined in `owner_file`): the same logic under the file's own top name.
fn wrapper(
    name: &str,
    lines: &[&str],
    owner: &str,
    over: &[(String, String)],
    owner_file: &str,
) -> Result<String, String> {
    let head = lines[0];
    let ports: Vec<&str> = head
        .strip_prefix(&format!("module {name}("))
        .and_then(|r| r.strip_suffix(");"))
        .ok_or_else(|| format!("module {name}: unexpected first line `{head}`"))?
        .split(',')
        .collect();
    let decls: Vec<String> = lines
        .iter()
        .filter(|l| l.starts_with("    input ") || l.starts_with("    output "))
        .map(|l| l.replacen("    output reg ", "    output wire ", 1))
        .collect();
    let mut t = format!(
        "// {name} is {owner} ({owner_file}){}.\n{head}\n\n    // Module arguments\n",
        if over.is_empty() {
            " under another name"
        } else {
            " with other constants"
        }
    );
    for d in decls {
        t.push_str(&d);
        t.push('\n');
    }
    if over.is_empty() {
        t.push_str(&format!("\n    {owner} same(\n"));
    } else {
        t.push_str(&format!("\n    {owner} #(\n"));
        for (i, (n, v)) in over.iter().enumerate() {
            let sep = if i + 1 < over.len() { "," } else { "" };
            t.push_str(&format!("        .{n}({v}){sep}\n"));
        }
        t.push_str("    ) same(\n");
    }
    for (i, p) in ports.iter().enumerate() {
        let sep = if i + 1 < ports.len() { "," } else { "" };
        t.push_str(&format!("        .{p}({p}){sep}\n"));
    }
    t.push_str(&format!("    );\n\nendmodule // {name}\n"));
    Ok(t)
}

/// An instance statement in any layout this crate writes: rust-hdl's (one connection a line),
/// one line, with or without `#(...)` overrides.
struct AnyInst {
    first: usize,
    last: usize,
    child: String,
    params: Vec<(String, String)>,
    name: String,
    conns: Vec<String>,
}

/// Split `s` at commas outside parentheses, each part trimmed.
fn split_top(s: &str) -> Vec<String> {
    let (mut depth, mut cur, mut out) = (0i32, String::new(), Vec::new());
    for ch in s.chars() {
        match ch {
            '(' => depth += 1,
            ')' => depth -= 1,
            ',' if depth == 0 => {
                out.push(cur.trim().to_string());
                cur.clear();
                continue;
            }
            _ => {}
        }
        cur.push(ch);
    }
    if !cur.trim().is_empty() {
        out.push(cur.trim().to_string());
    }
    out
}

/// The instances in `lines` of modules `known` names.
fn any_instances(lines: &[&str], known: &dyn Fn(&str) -> bool) -> Vec<AnyInst> {
    let mut out = Vec::new();
    let mut i = 0;
    while i < lines.len() {
        let child = lines[i]
            .strip_prefix("    ")
            .and_then(|r| r.split_once(' '))
            .map(|(c, _)| c)
            .filter(|c| !c.starts_with(' ') && known(c));
        let Some(child) = child else {
            i += 1;
            continue;
        };
        let mut stmt = String::new();
        let mut j = i;
        loop {
            stmt.push_str(lines[j].trim());
            if stmt.ends_with(");") || j + 1 >= lines.len() {
                break;
            }
            j += 1;
        }
        let rest = stmt[child.len()..].trim_start();
        let (params, rest) = match rest.strip_prefix("#(") {
            Some(r) => {
                let mut depth = 1;
                let end = r
                    .char_indices()
                    .find(|(_, c)| {
                        match c {
                            '(' => depth += 1,
                            ')' => depth -= 1,
                            _ => {}
                        }
                        depth == 0
                    })
                    .map_or(r.len(), |(k, _)| k);
                let ps = split_top(&r[..end])
                    .into_iter()
                    .filter_map(|p| {
                        let p = p.strip_prefix('.')?;
                        let (n, v) = p.split_once('(')?;
                        Some((n.to_string(), v.strip_suffix(')')?.to_string()))
                    })
                    .collect();
                (ps, r[(end + 1).min(r.len())..].trim_start())
            }
            None => (Vec::new(), rest),
        };
        let (name, conns) = rest.split_once('(').unwrap_or((rest, ""));
        out.push(AnyInst {
            first: i,
            last: j,
            child: child.to_string(),
            params,
            name: name.trim().to_string(),
            conns: split_top(conns.strip_suffix(");").unwrap_or(conns)),
        });
        i = j + 1;
    }
    out
}

/// The module `top` with its whole hierarchy, each child replaced by its own flattened text
/// with its parameters' values written in as `localparam`s, a wrapper (an instance named
/// `same`) by what it wraps: a canonical form in which two designs are equal exactly when they
/// have the same logic module by module, whatever their modules are called, which files hold
/// them and whether a constant is a parameter. `files` are texts (raw or packaged); every
/// module is looked up by name among them.
pub fn flattened(files: &[&str], top: &str) -> Result<String, String> {
    Flattener::new(files).of(top)
}

/// [`flattened`] for many tops of one set of files: the files are indexed once and every
/// module's flattened text is kept.
pub struct Flattener {
    index: HashMap<String, String>,
    memo: HashMap<(String, Vec<(String, String)>), String>,
}

impl Flattener {
    /// Index the modules of `files`.
    pub fn new(files: &[&str]) -> Self {
        let mut index: HashMap<String, String> = HashMap::new();
        for f in files {
            for (n, t) in crate::emit::modules(f) {
                index.insert(n, t);
            }
        }
        Flattener {
            index,
            memo: HashMap::new(),
        }
    }

    /// The flattened text of module `top` (see [`flattened`]).
    pub fn of(&mut self, top: &str) -> Result<String, String> {
        go(top, &[], &self.index, &mut self.memo)
    }
}

type Memo = HashMap<(String, Vec<(String, String)>), String>;

fn go(
    name: &str,
    over: &[(String, String)],
    index: &HashMap<String, String>,
    memo: &mut Memo,
) -> Result<String, String> {
    let key = (name.to_string(), over.to_vec());
    if let Some(t) = memo.get(&key) {
        return Ok(t.clone());
    }
    let text = index.get(name).ok_or_else(|| format!("module {name} is not defined"))?;
    let lines: Vec<&str> = text.lines().collect();
    let insts = any_instances(&lines, &|c| index.contains_key(c));
    if let [only] = insts.as_slice() {
        if only.name == "same" {
            let t = go(&only.child, &only.params, index, memo)?;
            memo.insert(key, t.clone());
            return Ok(t);
        }
    }
    let mut out: Vec<String> = Vec::new();
    let mut i = 0;
    let fix = |l: &str| -> String {
        let Some(r) = l.trim_start().strip_prefix("parameter ") else {
            return l.to_string();
        };
        let Some((decl, default)) = r.split_once(" = ") else {
            return l.to_string();
        };
        let n = decl.rsplit(' ').next().unwrap_or("");
        let v = over
            .iter()
            .find(|(k, _)| k == n)
            .map_or(default.trim_end_matches(';'), |(_, v)| v);
        format!("    localparam {decl} = {v};")
    };
    for inst in &insts {
        out.extend(lines[i..inst.first].iter().map(|l| fix(l)));
        let inner = go(&inst.child, &inst.params, index, memo)?;
        out.push(format!("    {{{inner}}} {}({});", inst.name, inst.conns.join(", ")));
        i = inst.last + 1;
    }
    out.extend(lines[i..].iter().map(|l| fix(l)));
    let mut s = out.join("\n");
    s = s.replacen(&format!("module {name}("), "module @(", 1);
    s = s.replace(&format!("endmodule // {name}"), "endmodule // @");
    memo.insert(key, s.clone());
    Ok(s)
}

#[cfg(test)]
mod tests {
    use super::*;

    fn dff(name: &str, w: usize) -> String {
        dff_text(name, w, false)
    }

    #[test]
    fn registers_go_to_the_library_and_copies_merge() {
        // a: top with two registers and a child `c`; b: a top whose child equals a's `c`.
        let a = format!(
            "// a\nmodule a(x);\n    a__r r(\n        .d(x),\n        .q(y),\n        .clock(k)\n    );\n    a__c c(\n        .p(x)\n    );\nendmodule // a\n\n\n{}\n\nmodule a__c(p);\n    a__c__s s(\n        .d(p),\n        .q(z),\n        .clock(k)\n    );\nendmodule // a__c\n\n\n{}",
            dff("a__r", 8),
            dff("a__c__s", 1)
        );
        let b = format!(
            "// b\nmodule b(x);\n    b__u u(\n        .p(x)\n    );\nendmodule // b\n\n\nmodule b__u(p);\n    b__u__s s(\n        .d(p),\n        .q(z),\n        .clock(k)\n    );\nendmodule // b__u\n\n\n{}",
            dff("b__u__s", 1)
        );
        let files = [
            RawFile {
                name: "a.v".into(),
                top: "a".into(),
                text: a.clone(),
            },
            RawFile {
                name: "b.v".into(),
                top: "b".into(),
                text: b.clone(),
            },
        ];
        let out = package(&files).unwrap();
        let names: Vec<&str> = out.iter().map(|f| f.name.as_str()).collect();
        assert_eq!(names, [LIB_FILE, "a.v", "a.f", "b.v", "b.f"]);
        let lib = &out[0].text;
        assert!(lib.contains("module tilerast_dff_8(d,q,clock);") && lib.contains("module tilerast_dff_1("));
        assert!(
            out[1].text.contains("    tilerast_dff_8 r(.d(x), .q(y), .clock(k));"),
            "{}",
            out[1].text
        );
        assert!(out[3].text.contains("    a__c u(.p(x));"), "{}", out[3].text);
        assert!(!out[3].text.contains("module b__u"), "b's copy of c is gone");
        assert_eq!(out[4].text, format!("{LIB_FILE}\na.v\nb.v\n"));
        assert_eq!(out[2].text, format!("{LIB_FILE}\na.v\n"));
        // The same logic, module by module.
        let raw = flattened(&[&a, &b], "b").unwrap();
        let texts: Vec<&str> = out
            .iter()
            .filter(|f| f.name.ends_with(".v"))
            .map(|f| f.text.as_str())
            .collect();
        // Register modules have other names after packaging, but equal bodies.
        assert_eq!(raw, flattened(&texts, "b").unwrap());
        // A changed copy is not merged.
        let b2 = b.replace(".p(x)\n    );\nendmodule // b\n", ".p(!x)\n    );\nendmodule // b\n");
        let b3 = b2.replace("    b__u__s s(\n        .d(p)", "    b__u__s s(\n        .d(~p)");
        let files = [
            RawFile {
                name: "a.v".into(),
                top: "a".into(),
                text: a,
            },
            RawFile {
                name: "b.v".into(),
                top: "b".into(),
                text: b3,
            },
        ];
        let out = package(&files).unwrap();
        assert!(out[3].text.contains("module b__u(p);"), "{}", out[3].text);
    }

    #[test]
    fn a_top_equal_to_an_earlier_one_is_a_wrapper() {
        let t = |n: &str| {
            format!("// {n}\nmodule {n}(x,y);\n\n    // Module arguments\n    input wire  [3:0] x;\n    output reg  [3:0] y;\n\n    always @(*) y = x;\nendmodule // {n}\n")
        };
        let files = [
            RawFile {
                name: "p.v".into(),
                top: "p".into(),
                text: t("p"),
            },
            RawFile {
                name: "q.v".into(),
                top: "q".into(),
                text: t("q"),
            },
        ];
        let out = package(&files).unwrap();
        let q = &out[2].text;
        assert!(
            q.contains("module q(x,y);") && q.contains("    output wire  [3:0] y;"),
            "{q}"
        );
        assert!(q.contains("    p same(\n        .x(x),\n        .y(y)\n    );"), "{q}");
        assert_eq!(out[3].text, "p.v\nq.v\n");
        assert!(out.iter().all(|f| f.name != LIB_FILE));
    }

    #[test]
    fn modules_that_differ_in_constants_share_one_with_parameters() {
        // Two tops each with a child `k` that differs only in a constant; the second top is
        // the first with other constants too.
        let t = |n: &str, v: &str| {
            format!(
                "// {n}\nmodule {n}(x,y);\n\n    // Module arguments\n    input wire  [3:0] x;\n    output reg  [3:0] y;\n    localparam [3:0] c_same = 4'h1;\n    localparam [3:0] c_top = 4'h{v};\n    {n}__k k(\n        .a(x)\n    );\n\n    always @(*) y = x + c_top;\nendmodule // {n}\n\n\nmodule {n}__k(a);\n    localparam signed [7:0] c_k = 8'h{v}{v};\n    localparam [3:0] c_same = 4'h2;\nendmodule // {n}__k\n"
            )
        };
        let (p, q) = (t("p", "3"), t("q", "5"));
        let files = [
            RawFile {
                name: "p.v".into(),
                top: "p".into(),
                text: p.clone(),
            },
            RawFile {
                name: "q.v".into(),
                top: "q".into(),
                text: q.clone(),
            },
        ];
        let out = package(&files).unwrap();
        let (pv, qv) = (&out[0].text, &out[2].text);
        assert!(pv.contains("    parameter signed [7:0] c_k = 8'h33;"), "{pv}");
        assert!(pv.contains("    localparam [3:0] c_same = 4'h2;"), "{pv}");
        // The tops differ in a child's overrides, so each keeps its own module.
        assert!(pv.contains("    localparam [3:0] c_top = 4'h3;"), "{pv}");
        assert!(!qv.contains("module q__k"), "{qv}");
        assert!(qv.contains("    p__k #(.c_k(8'h55)) k(.a(x));"), "{qv}");
        assert_eq!(out[3].text, "p.v\nq.v\n");
        let texts = [pv.as_str(), qv.as_str()];
        assert_eq!(flattened(&[&p], "p").unwrap(), flattened(&texts, "p").unwrap());
        assert_eq!(flattened(&[&q], "q").unwrap(), flattened(&texts, "q").unwrap());
        assert_ne!(flattened(&[&p], "p").unwrap(), flattened(&[&q], "q").unwrap());
    }

    #[test]
    fn a_module_defined_twice_is_refused() {
        let f = |n: &str| RawFile {
            name: n.into(),
            top: "m".into(),
            text: "module m(a);\nendmodule // m\n".into(),
        };
        let e = package(&[f("x.v"), f("y.v")]).unwrap_err();
        assert_eq!(e, "module m is defined in x.v and y.v");
    }

    #[test]
    fn instance_module_finds_the_child() {
        let found = |t: &str| instance_module(t, "setup").map(|(m, p)| format!("{m} {p}"));
        assert_eq!(
            found("module t(a);\n    tilerast_x__setup setup(\n").as_deref(),
            Some("tilerast_x__setup ")
        );
        assert_eq!(found("    m setup(.a(b));\n").as_deref(), Some("m "));
        assert_eq!(
            found("    m #(.c(4'h1), .d(2'b10)) setup(.a(b));\n").as_deref(),
            Some("m #(.c(4'h1), .d(2'b10))")
        );
        assert_eq!(found("    m setup2(.a(b));\n"), None);
        // A wrapper takes the overrides, and refuses what it cannot read.
        let t = "module m(a);\n\n    // Module arguments\n    input wire  a;\n    parameter [3:0] c = 4'h0;\nendmodule // m\n";
        let w = instance_wrapper("w", t, "m", "#(.c(4'h1))").unwrap();
        assert!(
            w.contains("    m #(\n        .c(4'h1)\n    ) same(\n        .a(a)\n    );"),
            "{w}"
        );
        assert!(instance_wrapper("w", t, "m", "#(c=1)").is_err());
    }
}
