//! golden's modules form layers: no module reaches, directly or through others, back into a
//! module that uses it (issue 33). The graph is read from the source: a node per top-level
//! module (`src/<m>.rs` together with `src/<m>/**`), an edge per `crate::<m>` path in code
//! (`use crate::m::…`, `crate::{m::…, …}`, `crate::m::f(…)`, `$crate::…` in macros). A path
//! through the crate root (`crate::Config`, `crate::for_each_stream!`) is an edge to the module
//! the root re-exports it from (`pub use` in `lib.rs`) or that defines the exported macro. Lines
//! starting with `//` (comments, rustdoc and its links) are not read: a link is no import.
//! `super::` stays inside a module here (no file climbs past its module with `super::super`),
//! so only `crate::` paths cross between modules.

use std::collections::{BTreeMap, BTreeSet, VecDeque};
use std::fs;
use std::path::{Path, PathBuf};

/// Where an edge was seen: file and line.
type Site = String;

/// golden's module graph: per module, the modules it names and where it first names each.
struct Graph {
    edges: BTreeMap<String, BTreeMap<String, Site>>,
}

fn rs_files(dir: &Path, out: &mut Vec<PathBuf>) {
    for e in fs::read_dir(dir).unwrap() {
        let p = e.unwrap().path();
        if p.is_dir() {
            rs_files(&p, out);
        } else if p.extension().is_some_and(|x| x == "rs") {
            out.push(p);
        }
    }
}

/// The file with every comment line blanked (line numbers kept).
fn code_lines(text: &str) -> String {
    text.lines()
        .map(|l| if l.trim_start().starts_with("//") { "" } else { l })
        .collect::<Vec<_>>()
        .join("\n")
}

fn is_ident(c: char) -> bool {
    c.is_ascii_alphanumeric() || c == '_'
}

/// The first identifier of `s` (after spaces).
fn ident(s: &str) -> &str {
    let s = s.trim_start();
    &s[..s.find(|c: char| !is_ident(c)).unwrap_or(s.len())]
}

/// The first segment of every path a `crate::` at byte `at` of `code` names: one, or one per
/// item of a `crate::{…}` group (nested groups and groups over several lines included).
fn first_segments(code: &str, at: usize) -> Vec<&str> {
    let rest = &code[at + "crate::".len()..];
    let Some(group) = rest.strip_prefix('{') else {
        return vec![ident(rest)];
    };
    let (mut depth, mut item_start, mut out) = (0usize, 0usize, Vec::new());
    for (i, c) in group.char_indices() {
        match c {
            '{' => depth += 1,
            '}' if depth == 0 => {
                out.push(ident(&group[item_start..i]));
                break;
            }
            '}' => depth -= 1,
            ',' if depth == 0 => {
                out.push(ident(&group[item_start..i]));
                item_start = i + 1;
            }
            _ => {}
        }
    }
    out.retain(|s| !s.is_empty());
    out
}

/// The root names `lib.rs` re-exports (`pub use m::{A, B}` / `pub use m::A`), by module.
fn root_reexports(lib: &str, aliases: &mut BTreeMap<String, String>) {
    for line in code_lines(lib).lines() {
        let Some(path) = line.trim().strip_prefix("pub use ") else {
            continue;
        };
        let path = path.trim_end_matches(';');
        let (module, items) = path.split_once("::").expect("pub use m::…");
        let items = items.trim_start_matches('{').trim_end_matches('}');
        for item in items.split(',') {
            let name = item.split(" as ").last().unwrap().trim();
            aliases.insert(name.to_string(), module.to_string());
        }
    }
}

/// The `#[macro_export]` macros of `code` (they live at the crate root), as defined in `module`.
fn exported_macros(code: &str, module: &str, aliases: &mut BTreeMap<String, String>) {
    let mut exported = false;
    for line in code.lines().map(str::trim) {
        if line == "#[macro_export]" {
            exported = true;
        } else if let Some(def) = line.strip_prefix("macro_rules!").filter(|_| exported) {
            aliases.insert(ident(def).to_string(), module.to_string());
            exported = false;
        } else if !line.is_empty() && !line.starts_with("#[") {
            exported = false;
        }
    }
}

fn graph() -> Graph {
    let root = Path::new(env!("CARGO_MANIFEST_DIR"));
    let src = root.join("src");
    let mut files = Vec::new();
    rs_files(&src, &mut files);
    files.sort();
    // Module of each file: the first component under src/ (`frame/cycle.rs` is `frame`).
    let mut modules: BTreeMap<String, Vec<(String, String)>> = BTreeMap::new();
    let mut lib = String::new();
    for f in &files {
        let rel = f.strip_prefix(&src).unwrap();
        let first = rel.components().next().unwrap().as_os_str().to_str().unwrap();
        let text = fs::read_to_string(f).unwrap();
        if rel == Path::new("lib.rs") {
            lib = text;
            continue;
        }
        let module = first.trim_end_matches(".rs").to_string();
        let name = format!("golden/{}", f.strip_prefix(root).unwrap().display());
        modules.entry(module).or_default().push((name, code_lines(&text)));
    }
    let mut aliases = BTreeMap::new();
    root_reexports(&lib, &mut aliases);
    for (m, module_files) in &modules {
        for (_, code) in module_files {
            exported_macros(code, m, &mut aliases);
        }
    }
    let mut edges: BTreeMap<String, BTreeMap<String, Site>> = BTreeMap::new();
    for (m, module_files) in &modules {
        let out = edges.entry(m.clone()).or_default();
        for (name, code) in module_files {
            assert!(
                !code.contains("super::super"),
                "{name}: `super::super` climbs out of its module; name the module with `crate::`"
            );
            for (at, _) in code.match_indices("crate::") {
                if code[..at].ends_with(is_ident) {
                    continue; // e.g. `tilerast_crate::`, not this crate
                }
                let line = code[..at].matches('\n').count() + 1;
                for seg in first_segments(code, at) {
                    let target = if modules.contains_key(seg) {
                        seg.to_string()
                    } else if let Some(m) = aliases.get(seg) {
                        m.clone()
                    } else {
                        panic!(
                            "{name}:{line}: `crate::{seg}` is neither a module nor a root re-export or exported macro"
                        );
                    };
                    if target != *m {
                        out.entry(target).or_insert_with(|| format!("{name}:{line}"));
                    }
                }
            }
        }
    }
    Graph { edges }
}

/// Strongly connected components of more than one module (Tarjan), each sorted.
fn cycles(g: &Graph) -> Vec<Vec<String>> {
    struct Walk<'g> {
        g: &'g Graph,
        index: BTreeMap<&'g str, usize>,
        low: BTreeMap<&'g str, usize>,
        stack: Vec<&'g str>,
        on_stack: BTreeSet<&'g str>,
        out: Vec<Vec<String>>,
    }
    fn visit<'g>(w: &mut Walk<'g>, v: &'g str) {
        let i = w.index.len();
        w.index.insert(v, i);
        w.low.insert(v, i);
        w.stack.push(v);
        w.on_stack.insert(v);
        for t in w.g.edges[v].keys() {
            let t = t.as_str();
            if !w.index.contains_key(t) {
                visit(w, t);
                let l = w.low[t].min(w.low[v]);
                w.low.insert(v, l);
            } else if w.on_stack.contains(t) {
                let l = w.index[t].min(w.low[v]);
                w.low.insert(v, l);
            }
        }
        if w.low[v] == w.index[v] {
            let mut scc = Vec::new();
            loop {
                let t = w.stack.pop().unwrap();
                w.on_stack.remove(t);
                scc.push(t.to_string());
                if t == v {
                    break;
                }
            }
            if scc.len() > 1 {
                scc.sort();
                w.out.push(scc);
            }
        }
    }
    let mut w = Walk {
        g,
        index: BTreeMap::new(),
        low: BTreeMap::new(),
        stack: Vec::new(),
        on_stack: BTreeSet::new(),
        out: Vec::new(),
    };
    for v in g.edges.keys() {
        if !w.index.contains_key(v.as_str()) {
            visit(&mut w, v);
        }
    }
    w.out
}

/// One shortest cycle through the first module of `scc`, edge by edge with where it is seen.
fn one_cycle(g: &Graph, scc: &[String]) -> String {
    let start = &scc[0];
    let mut from: BTreeMap<&str, &str> = BTreeMap::new();
    let mut queue = VecDeque::from([start.as_str()]);
    'search: while let Some(v) = queue.pop_front() {
        for t in g.edges[v].keys().filter(|t| scc.contains(t)) {
            if t == start {
                from.insert(start, v);
                break 'search;
            }
            if !from.contains_key(t.as_str()) {
                from.insert(t, v);
                queue.push_back(t);
            }
        }
    }
    let mut path = vec![start.as_str()];
    let mut v = from[start.as_str()];
    while v != start {
        path.push(v);
        v = from[v];
    }
    path.push(start);
    path.reverse();
    path.windows(2)
        .map(|e| format!("  {} -> {}   ({})", e[0], e[1], g.edges[e[0]][e[1]]))
        .collect::<Vec<_>>()
        .join("\n")
}

#[test]
fn modules_have_no_import_cycle() {
    let g = graph();
    assert!(g.edges.len() > 30, "read only {} modules", g.edges.len());
    let found = cycles(&g);
    let report: Vec<String> = found
        .iter()
        .map(|scc| {
            format!(
                "{} modules in a cycle: {}\n{}",
                scc.len(),
                scc.join(", "),
                one_cycle(&g, scc)
            )
        })
        .collect();
    assert!(
        found.is_empty(),
        "golden's modules import in a circle:\n{}",
        report.join("\n")
    );
}

/// The stream and stage declarations sit at the bottom: what they reach, directly or not, is
/// at most the config and the primitive types (`prim`, with the sample positions it uses), so
/// a small crate could hold them all.
#[test]
fn stream_and_stage_declarations_reach_only_config_and_primitives() {
    let g = graph();
    let allowed = ["streams", "stages", "config", "prim", "samples"];
    for decl in ["streams", "stages"] {
        let mut seen = BTreeSet::from([decl]);
        let mut todo = vec![decl];
        while let Some(v) = todo.pop() {
            for (t, site) in &g.edges[v] {
                assert!(allowed.contains(&t.as_str()), "{decl} reaches {t}: {v} -> {t} ({site})");
                if seen.insert(t) {
                    todo.push(t);
                }
            }
        }
    }
}
