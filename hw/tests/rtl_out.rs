//! rtl-out/ is generated, committed, lint-clean and safe for synthesis:
//! - it holds exactly the files of `tilerast_hw::rtl_out::generate()` (what `gen-rtl` writes),
//!   each equal to what `gen-rtl` produces now: regeneration is a no-op, and nothing is missing
//!   or left over;
//! - it is the same logic as rust-hdl's own output: every top, flattened module by module
//!   (`tilerast_hw::package::flattened`), equals the raw text's, though each module is now
//!   defined once, registers come from `tilerast_lib.v` and modules that differ only in
//!   constants share one with parameters;
//! - no module is defined in two files, and the whole directory stays under its size budget;
//! - every file's header names the command that regenerates it; the board tops have the flows'
//!   ports, the board memories name their memory;
//! - no signed localparam or parameter without a range (yosys would compare it as unsigned);
//! - `verilator --lint-only -Wall -F <top>.f` passes for every top with the waivers in
//!   `hw/lint/waivers.vlt` (run on each top that no other top's hierarchy holds: the others
//!   are linted inside it).

use std::path::PathBuf;
use std::process::Command;
use std::sync::atomic::{AtomicUsize, Ordering};
use std::sync::Mutex;
use tilerast_golden::PRESETS;
use tilerast_hw::emit::rangeless_signed_localparams;
use tilerast_hw::fpga_top::{self, BOARDS};
use tilerast_hw::package::{Flattener, LIB_FILE};

fn root() -> PathBuf {
    PathBuf::from(env!("CARGO_MANIFEST_DIR")).join("..")
}

const REGEN: &str = "run `cargo run -p tilerast-hw --bin gen-rtl` and commit rtl-out/";

/// The most lines `rtl-out/`'s Verilog may have (issue 33: 1 028 923 before packaging).
const LINE_BUDGET: usize = 150_000;

/// The committed text of `rtl-out/<file>`.
fn committed(file: &str) -> String {
    let path = root().join("rtl-out").join(file);
    std::fs::read_to_string(&path).unwrap_or_else(|e| panic!("{}: {e}; {REGEN}", path.display()))
}

/// The names of the files in rtl-out/, sorted.
fn listing() -> Vec<String> {
    let mut names: Vec<String> = std::fs::read_dir(root().join("rtl-out"))
        .unwrap()
        .map(|e| e.unwrap().file_name().to_string_lossy().into_owned())
        .collect();
    names.sort();
    names
}

/// The Verilog files of rtl-out/ with their text.
fn verilog_files() -> Vec<(String, String)> {
    listing()
        .into_iter()
        .filter(|n| n.ends_with(".v"))
        .map(|n| {
            let t = committed(&n);
            (n, t)
        })
        .collect()
}

#[test]
fn rtl_out_is_exactly_what_gen_rtl_writes_and_the_same_logic_as_rust_hdl_wrote() {
    let (raw, files) = tilerast_hw::rtl_out::generate_with_raw().unwrap();
    let mut want: Vec<String> = files.iter().map(|f| f.name.clone()).collect();
    want.sort();
    let have = listing();
    let missing: Vec<&String> = want.iter().filter(|n| !have.contains(n)).collect();
    let extra: Vec<&String> = have.iter().filter(|n| !want.contains(n)).collect();
    assert!(
        missing.is_empty() && extra.is_empty(),
        "rtl-out/: missing {missing:?}, not written by gen-rtl {extra:?}; {REGEN}"
    );
    // The package is the same logic as rust-hdl's output, top by top (two threads: the raw
    // frame tops are large).
    let raw_texts: Vec<&str> = raw.iter().map(|f| f.text.as_str()).collect();
    let ours: Vec<&str> = files
        .iter()
        .filter(|f| f.name.ends_with(".v"))
        .map(|f| f.text.as_str())
        .collect();
    let next = AtomicUsize::new(0);
    let differ = Mutex::new(Vec::new());
    std::thread::scope(|s| {
        for _ in 0..2 {
            s.spawn(|| {
                let (mut before, mut after) = (Flattener::new(&raw_texts), Flattener::new(&ours));
                while let Some(f) = raw.get(next.fetch_add(1, Ordering::Relaxed)) {
                    let b = before.of(&f.top).unwrap_or_else(|e| panic!("raw {}: {e}", f.name));
                    let a = after.of(&f.top).unwrap_or_else(|e| panic!("packaged {}: {e}", f.name));
                    assert!(b.lines().count() > 10, "{}: flattened to nothing", f.top);
                    if a != b {
                        differ.lock().unwrap().push(f.top.clone());
                    }
                }
            });
        }
    });
    let differ = differ.into_inner().unwrap();
    assert!(
        differ.is_empty(),
        "packaged tops that are not rust-hdl's logic: {differ:?}"
    );
    assert!(raw.len() > 60, "tops compared: {}", raw.len());
    // The package is smaller than the raw output by the copies it dropped.
    let lines = |t: &[&str]| t.iter().map(|x| x.lines().count()).sum::<usize>();
    let (r, p) = (lines(&raw_texts), lines(&ours));
    assert!(
        p <= LINE_BUDGET,
        "rtl-out/ has {p} lines of Verilog, over the budget of {LINE_BUDGET}"
    );
    assert!(p * 4 < r, "packaged {p} lines against {r} raw");
    // And the committed directory is that package.
    let stale: Vec<&String> = files
        .iter()
        .filter(|f| f.text != committed(&f.name))
        .map(|f| &f.name)
        .collect();
    assert!(stale.is_empty(), "stale in rtl-out/: {stale:?}; {REGEN}");
    assert!(files.len() > 100, "files checked: {}", files.len());
}

#[test]
fn headers_name_the_regenerating_command() {
    for p in PRESETS {
        let have = committed(&tilerast_hw::rtl_file_name(p));
        assert!(have.starts_with(&format!("// generated by `{}`", tilerast_hw::preset_command(p))));
        for b in tilerast_hw::BLOCK_FILES {
            let have = committed(&b.file_name(p));
            assert!(
                have.starts_with(&format!("// generated by `{}`", tilerast_hw::preset_command(p))),
                "{}",
                b.file_name(p)
            );
        }
    }
    // BLOCK_FILES is made from the stage list (each name's module's `FILE`); each row's
    // signature, declared in golden next to the block's cycle model, names the same stage.
    let stages: Vec<&str> = tilerast_hw::BLOCK_FILES.iter().map(|b| b.sig.stage).collect();
    assert_eq!(
        stages,
        tilerast_golden::stages::PIXEL_SIDE_STAGES,
        "each row's signature is its stage's"
    );
    let names: Vec<&str> = tilerast_hw::BLOCK_VARIANTS.iter().map(|v| v.name).collect();
    assert_eq!(names, ["default_comp", "default_buf"]);
    for v in tilerast_hw::BLOCK_VARIANTS {
        let have = committed(&v.file_name());
        assert!(have.starts_with(&format!("// generated by `{}`", tilerast_hw::VARIANT_COMMAND)));
        assert!(have.contains(&format!("module {}(", v.top_name())));
    }
}

#[test]
fn fpga_tops_have_the_flows_ports() {
    for b in BOARDS {
        let have = committed(&fpga_top::rtl_file_name(b.name));
        // The contract with the board flows: exactly these top-level ports.
        let top = fpga_top::top_name(b.name);
        let head = have.split(&format!("module {top}(")).nth(1).expect("top module");
        assert!(
            head.starts_with("clk,uart_rx,uart_tx,led);"),
            "{}: ports {}",
            b.name,
            &head[..60]
        );
    }
}

#[test]
fn board_memories_name_their_memory() {
    let stages: Vec<&str> = std::iter::once(tilerast_hw::board_memory::STAGE)
        .chain(tilerast_hw::FRAME_BOARD_BLOCKS.iter().map(|b| b.stage()))
        .collect();
    assert_eq!(
        stages,
        tilerast_golden::stages::BOARD_STAGES,
        "one block per board stage"
    );
    // The frame-row blocks: one each per board with a frame row, none for another; each
    // header names what the file is made from (the SDRAM part, the video mode).
    for b in BOARDS {
        for block in tilerast_hw::FRAME_BOARD_BLOCKS {
            let name = block.file_name(b.name);
            match &b.frame {
                Some(f) => {
                    let from = (block.made_from)(f);
                    assert!(committed(&name).contains(from), "{name}: header names {from}");
                }
                None => assert!(
                    !root().join("rtl-out").join(&name).exists(),
                    "{name}: a board without a frame row"
                ),
            }
        }
    }
    for b in BOARDS {
        let have = committed(&tilerast_hw::board_memory::rtl_file_name(b.name));
        assert!(
            have.contains(&b.memory.describe()),
            "{}: header names the memory",
            b.name
        );
    }
}

#[test]
fn no_rangeless_signed_localparam_in_rtl_out() {
    let files = verilog_files();
    assert!(files.len() > 50, "Verilog files: {}", files.len());
    for (name, text) in files {
        let bad = rangeless_signed_localparams(&text);
        assert!(bad.is_empty(), "{name}: range-less signed localparam(s): {bad:?}");
    }
}

/// Inside `$signed(...)`/`$unsigned(...)` a Verilog expression is self-determined: a 16×16
/// product there keeps only 16 bits, while rust-hdl's simulator keeps 32. (This once broke
/// setup's partial products; the Verilator co-simulation found it.) Products must be assigned
/// to a full-width signal first.
#[test]
fn no_product_inside_a_sign_cast() {
    for (name, text) in verilog_files() {
        let bad: Vec<&str> = text
            .lines()
            .filter(|l| {
                ["$signed(", "$unsigned("].iter().any(|c| {
                    l.split(c)
                        .skip(1)
                        .any(|rest| rest.split(')').next().is_some_and(|inner| inner.contains('*')))
                })
            })
            .collect();
        assert!(bad.is_empty(), "{name}: product inside a sign cast: {bad:?}");
    }
}

#[test]
fn rtl_out_lints_clean() {
    if Command::new("verilator").arg("--version").output().is_err() {
        panic!("verilator is not installed: apt-get install -y verilator");
    }
    // Every top, with the files of its list (`-F`: names relative to the list's directory).
    let tops: Vec<String> = listing()
        .into_iter()
        .filter_map(|n| n.strip_suffix(".f").map(str::to_string))
        .collect();
    assert!(tops.len() > 60, "tops: {}", tops.len());
    for want in PRESETS
        .iter()
        .map(|p| tilerast_hw::top_name(p))
        .chain(BOARDS.iter().map(|b| fpga_top::top_name(b.name)))
        .chain(BOARDS.iter().map(|b| tilerast_hw::board_memory::top_name(b.name)))
        .chain(tilerast_hw::BLOCK_VARIANTS.iter().map(|v| v.top_name()))
    {
        assert!(tops.contains(&want), "no file list for {want}");
    }
    // One Verilator run per top that no other top's hierarchy holds (`-Wall` lints every
    // module under its top): every top is linted, most inside a larger one.
    let dir = root().join("rtl-out");
    let named: Vec<(String, String)> = tops.iter().map(|t| (t.clone(), t.clone())).collect();
    let runs = tilerast_hw::package::lint_runs(&dir, &named).unwrap_or_else(|e| panic!("{e}"));
    let covered: std::collections::BTreeSet<usize> = runs
        .iter()
        .flat_map(|(k, under)| std::iter::once(*k).chain(under.iter().copied()))
        .collect();
    assert_eq!(covered.len(), tops.len(), "every top linted");
    assert!(
        runs.len() < tops.len() / 2,
        "{} lint runs for {} tops",
        runs.len(),
        tops.len()
    );
    let tops: Vec<String> = runs.iter().map(|(k, _)| tops[*k].clone()).collect();
    let next = AtomicUsize::new(0);
    let bad = Mutex::new(Vec::new());
    std::thread::scope(|s| {
        for _ in 0..2 {
            s.spawn(|| {
                while let Some(top) = tops.get(next.fetch_add(1, Ordering::Relaxed)) {
                    let dir = root().join("rtl-out");
                    let out = Command::new("verilator")
                        .args(["--lint-only", "-Wall", "--top-module", top])
                        .arg(root().join("hw/lint/waivers.vlt"))
                        .arg("-F")
                        .arg(dir.join(format!("{top}.f")))
                        .output()
                        .expect("run verilator");
                    let msg = String::from_utf8_lossy(&out.stderr).into_owned();
                    if !out.status.success() || msg.contains("%Warning") {
                        bad.lock().unwrap().push(format!("{top}:\n{msg}"));
                    }
                }
            });
        }
    });
    let bad = bad.into_inner().unwrap();
    assert!(bad.is_empty(), "{}", bad.join("\n"));
}

/// Generated Verilog without copies: every module is defined in exactly one file of rtl-out/,
/// every one-flop register is the library's, and each board top instantiates its preset's core
/// module under the stage's name.
#[test]
fn no_module_is_defined_twice() {
    let mut seen = std::collections::HashMap::new();
    for e in std::fs::read_dir(root().join("rtl-out")).unwrap() {
        let path = e.unwrap().path();
        if path.extension().is_some_and(|x| x == "v") {
            let text = std::fs::read_to_string(&path).unwrap();
            for (m, _) in tilerast_hw::emit::modules(&text) {
                if let Some(other) = seen.insert(m.clone(), path.clone()) {
                    panic!("module {m} is defined in {} and {}", other.display(), path.display());
                }
            }
        }
    }
    assert!(seen.len() > 100, "modules found: {}", seen.len());
    let registers = seen.iter().filter(|(_, f)| f.ends_with(LIB_FILE)).count();
    assert!(registers >= 20, "registers in {LIB_FILE}: {registers}");
    for (m, f) in &seen {
        assert_eq!(
            m.starts_with("tilerast_dff_"),
            f.ends_with(LIB_FILE),
            "module {m} in {}",
            f.display()
        );
    }
    for b in BOARDS {
        let text = std::fs::read_to_string(root().join("rtl-out").join(fpga_top::rtl_file_name(b.name))).unwrap();
        let inst = format!("    {} raster_core(\n", tilerast_hw::top_name(b.preset));
        assert_eq!(text.matches(&inst).count(), 1, "{}: {inst:?}", b.name);
    }
}

/// The RAM arrays (`reg [W-1:0] mem [0:D-1]`) a top declares, instance by instance down its
/// hierarchy: (width, words) → copies. Arrays of at most 2 words (the one-bit placeholders
/// shading_sort builds for the banks above S) are left out.
fn ram_arrays(top: &str) -> std::collections::BTreeMap<(u32, u64), u32> {
    use std::collections::BTreeMap;
    let mut rams: BTreeMap<String, Vec<(u32, u64)>> = BTreeMap::new();
    let mut lines_of: BTreeMap<String, Vec<String>> = BTreeMap::new();
    for file in committed(&format!("{top}.f")).lines() {
        let mut module = String::new();
        for line in committed(file).lines() {
            let t = line.trim();
            if let Some(rest) = t.strip_prefix("module ") {
                module = rest.split(['(', ' ', '#']).next().unwrap().to_string();
                rams.entry(module.clone()).or_default();
                continue;
            }
            if let Some(i) = t.find("reg [") {
                let decl = &t[i + 5..];
                if let (Some((hi, rest)), true) = (decl.split_once(":0] "), decl.contains(" [0:")) {
                    let words = rest
                        .split(" [0:")
                        .nth(1)
                        .and_then(|d| d.trim_end_matches("];").parse::<u64>().ok());
                    if let (Ok(hi), Some(last)) = (hi.parse::<u32>(), words) {
                        rams.entry(module.clone()).or_default().push((hi + 1, last + 1));
                        continue;
                    }
                }
            }
            lines_of.entry(module.clone()).or_default().push(t.to_string());
        }
    }
    // Instances: a line `<module> [#(..)] <name>(` naming a module defined in the list.
    let children = |m: &str| -> Vec<String> {
        lines_of
            .get(m)
            .map(|ls| {
                ls.iter()
                    .filter(|l| l.ends_with('('))
                    .filter_map(|l| l.split_whitespace().next())
                    .filter(|w| rams.contains_key(*w))
                    .map(str::to_string)
                    .collect()
            })
            .unwrap_or_default()
    };
    fn walk(
        m: &str,
        rams: &BTreeMap<String, Vec<(u32, u64)>>,
        children: &dyn Fn(&str) -> Vec<String>,
        out: &mut BTreeMap<(u32, u64), u32>,
    ) {
        for &(w, d) in &rams[m] {
            if d > 2 {
                *out.entry((w, d)).or_default() += 1;
            }
        }
        for c in children(m) {
            walk(&c, rams, children, out);
        }
    }
    let mut out = BTreeMap::new();
    assert!(rams.contains_key(top), "{top}: no module {top} in its file list");
    walk(top, &rams, &children, &mut out);
    out
}

/// Every preset's frame top declares exactly the RAM arrays golden counts
/// (`tilerast_golden::frame::ram::frame_rams`), and they fit its budget (`check_frame_ram`):
/// the figure `supported` refuses a config by is the emitted Verilog's.
#[test]
fn frame_ram_is_goldens_count() {
    use tilerast_golden::frame::ram::{check_frame_ram, frame_ram_bits, frame_rams};
    for p in PRESETS {
        let cfg = tilerast_golden::Config::preset(p).unwrap();
        let top = format!("tilerast_frame_{p}");
        let got = ram_arrays(&top);
        let mut want = std::collections::BTreeMap::new();
        for r in frame_rams(&cfg) {
            *want.entry((r.width, r.words)).or_insert(0u32) += r.count;
        }
        assert_eq!(
            got, want,
            "{top}: (width, words) -> copies, Verilog (left) and golden (right)"
        );
        let bits: u64 = got.iter().map(|(&(w, d), &n)| w as u64 * d * n as u64).sum();
        assert_eq!(bits, frame_ram_bits(&cfg), "{top}");
        assert!(bits > 100_000, "{top}: {bits} bits: the RAMs were found");
        check_frame_ram(&cfg).unwrap_or_else(|e| panic!("{top}: {e}"));
        println!("{top}: {bits} bits of RAM in {} arrays", got.values().sum::<u32>());
    }
}
