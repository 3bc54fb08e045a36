//! What `rtl-out/` holds, declared once: every file's name and how its text is made. `gen-rtl`
//! writes exactly [`generate`]'s files; `hw/tests/rtl_out.rs` checks that the directory holds
//! exactly these names (nothing missing, nothing extra) and that each file equals its text
//! now, so a regeneration on a committed tree is a no-op without running `gen-rtl` in CI.
//!
//! rust-hdl's raw output for each top ([`raw_files`]) goes through [`crate::package`], which
//! defines every module once: a shared register library, each block's modules in the block's
//! own file, and a file list `<stem>.f` per top.
//!
//! | file | made by |
//! |---|---|
//! | `tilerast_lib.v` | [`crate::package`]: the one-flop registers |
//! | `tilerast_<preset>.v` | [`crate::rtl_file`]: the raster core and its blocks |
//! | `tilerast_<stage>_<preset>.v` | [`crate::BLOCK_FILES`]: each pixel-side block and the frame top |
//! | `tilerast_<stage>_<variant>.v` | [`crate::BLOCK_VARIANTS`] |
//! | `tilerast_top_<board>.v` | [`crate::fpga_top::rtl_file`] |
//! | `tilerast_board_memory_<board>.v` | [`crate::board_memory::rtl_file`] |
//! | `tilerast_<stage>_<board>.v` (boards with a frame row: the SDRAM controller, the video output) | [`crate::FRAME_BOARD_BLOCKS`] |
//! | `tilerast_uart_<board>.v` (boards with a frame row) | [`crate::uart::frame_uart_rtl_file`] |
//! | `<stem>.f` | [`crate::package`]: the files each top needs, dependencies first |
//! | `tilerast_waivers.vlt` | [`crate::LINT_WAIVERS`] |
//! | `README.md` | [`readme`]: which file to take for which use |

use crate::package::{package, GenFile, RawFile, LIB_FILE};
use tilerast_golden::{Config, PRESETS};

/// How one raw file's text is made (some take minutes together: the frame tops).
pub type MakeText = Box<dyn Fn() -> Result<String, String> + Send + Sync>;

/// One raw (unpackaged) Verilog file of `rtl-out/`.
pub struct RawSpec {
    /// File name inside `rtl-out/`.
    pub name: String,
    /// Its top module.
    pub top: String,
    /// What it is, for the README's table.
    pub role: String,
    /// Its text as rust-hdl writes it (self-contained but for the board tops' cores).
    pub text: MakeText,
}

fn spec(
    name: String,
    top: String,
    role: String,
    text: impl Fn() -> Result<String, String> + Send + Sync + 'static,
) -> RawSpec {
    RawSpec {
        name,
        top,
        role,
        text: Box::new(text),
    }
}

/// The raw files of `configs` in packaging order: leaves first (each raster core, then each
/// pixel-side block stage by stage, the back end and the frame last), so that a block's
/// modules are owned by the block's own file. `variants` and `boards` add gen-rtl's extras.
pub fn raw_files_for(configs: &[Config], command: &dyn Fn(&str) -> String, extras: bool) -> Vec<RawSpec> {
    let mut out = Vec::new();
    for cfg in configs {
        let c = cfg.clone();
        let cmd = command(&cfg.name);
        out.push(spec(
            crate::rtl_file_name(&cfg.name),
            crate::top_name(&cfg.name),
            format!("raster core, config {}", cfg.name),
            move || crate::rtl_file(&c, &cmd).map_err(|e| format!("config {}: {e}", c.name)),
        ));
    }
    for b in crate::BLOCK_FILES {
        for cfg in configs {
            if (b.params)(cfg).is_err() {
                continue;
            }
            let c = cfg.clone();
            let cmd = command(&cfg.name);
            out.push(spec(
                b.file_name(&cfg.name),
                b.top_name(&cfg.name),
                format!("{}, config {}", b.stage(), cfg.name),
                move || b.rtl_file(&c, &cmd).map_err(|e| format!("config {}: {e}", c.name)),
            ));
        }
    }
    if extras {
        for v in crate::BLOCK_VARIANTS {
            out.push(spec(
                v.file_name(),
                v.top_name(),
                format!("{} variant {} (co-simulation only)", v.file.stage(), v.name),
                move || v.rtl_file(),
            ));
        }
        for b in crate::fpga_top::BOARDS {
            out.push(spec(
                crate::fpga_top::rtl_file_name(b.name),
                crate::fpga_top::top_name(b.name),
                format!("FPGA top for {} (core {})", b.name, b.preset),
                move || Ok(crate::fpga_top::rtl_file(b)),
            ));
            out.push(spec(
                crate::board_memory::rtl_file_name(b.name),
                crate::board_memory::top_name(b.name),
                format!("memory-port slave on {}'s RAM", b.name),
                move || Ok(crate::board_memory::rtl_file(b)),
            ));
            if b.frame.is_some() {
                for block in crate::FRAME_BOARD_BLOCKS {
                    out.push(spec(
                        block.file_name(b.name),
                        block.top_name(b.name),
                        format!("{} ({})", block.role, b.name),
                        move || (block.rtl_file)(b).ok_or_else(|| format!("{}: no frame row", b.name)),
                    ));
                }
                out.push(spec(
                    format!("{}.v", crate::uart::frame_uart_top_name(b.name)),
                    crate::uart::frame_uart_top_name(b.name),
                    format!("the frame top's UART for {} (8N1 at the GPU clock)", b.name),
                    move || crate::uart::frame_uart_rtl_file(b).ok_or_else(|| format!("{}: no frame row", b.name)),
                ));
                out.push(spec(
                    crate::fpga_top::frame_top::rtl_file_name(b.name),
                    crate::fpga_top::frame_top::top_name(b.name),
                    format!(
                        "FPGA top with a screen for {}: the PLL, the TMDS serialisers, the SDRAM pins, the UART and the frame host",
                        b.name
                    ),
                    move || crate::fpga_top::frame_top::rtl_file(b).unwrap_or_else(|| Err(format!("{}: no frame row", b.name))),
                ));
            }
        }
    }
    out
}

/// Every raw file of `rtl-out/`, in packaging order: `default` first (its blocks own the
/// modules the other presets share, and the co-simulations and mutants are built on it), then
/// the other presets in [`PRESETS`] order. A preset that fails to load is an error.
pub fn raw_files() -> Result<Vec<RawSpec>, String> {
    let configs = std::iter::once(&"default")
        .chain(PRESETS.iter().filter(|p| **p != "default"))
        .map(|p| Config::preset(p).map_err(|e| format!("preset {p}: {e}")))
        .collect::<Result<Vec<_>, _>>()?;
    Ok(raw_files_for(&configs, &|p| crate::preset_command(p), true))
}

/// The raw texts of `specs`, made on `threads` threads (the frame tops take longest).
pub fn make_raw(specs: &[RawSpec], threads: usize) -> Result<Vec<RawFile>, String> {
    use std::sync::atomic::{AtomicUsize, Ordering};
    use std::sync::Mutex;
    let next = AtomicUsize::new(0);
    let done: Mutex<Vec<Option<Result<String, String>>>> = Mutex::new((0..specs.len()).map(|_| None).collect());
    std::thread::scope(|s| {
        for _ in 0..threads.max(1) {
            s.spawn(|| loop {
                let i = next.fetch_add(1, Ordering::Relaxed);
                let Some(f) = specs.get(i) else { break };
                let t = (f.text)();
                done.lock().unwrap()[i] = Some(t);
            });
        }
    });
    specs
        .iter()
        .zip(done.into_inner().unwrap())
        .map(|(s, t)| {
            let text = t.expect("made").map_err(|e| format!("{}: {e}", s.name))?;
            Ok(RawFile {
                name: s.name.clone(),
                top: s.top.clone(),
                text,
            })
        })
        .collect()
}

/// Every file of `rtl-out/` with its text, in the order `gen-rtl` writes them: the packaged
/// Verilog and its file lists, the lint waivers and the README.
pub fn generate() -> Result<Vec<GenFile>, String> {
    Ok(generate_with_raw()?.1)
}

/// [`generate`], and the raw files it packaged (for the test that the package is the same
/// logic as what rust-hdl wrote).
pub fn generate_with_raw() -> Result<(Vec<RawFile>, Vec<GenFile>), String> {
    let specs = raw_files()?;
    let raw = make_raw(&specs, 2)?;
    let mut out = package(&raw)?;
    out.push(GenFile::new(crate::LINT_WAIVERS_FILE, crate::LINT_WAIVERS));
    out.push(GenFile::new("README.md", readme(&specs, &out)));
    Ok((raw, out))
}

/// `rtl-out/README.md`: what the directory holds, which file to take for which use, and every
/// top with its file list, from the files themselves.
pub fn readme(specs: &[RawSpec], files: &[GenFile]) -> String {
    let lines = |name: &str| {
        files
            .iter()
            .find(|f| f.name == name)
            .map_or(0, |f| f.text.lines().count())
    };
    let total: usize = files
        .iter()
        .filter(|f| f.name.ends_with(".v"))
        .map(|f| f.text.lines().count())
        .sum();
    let mut t = String::from(
        "<!-- generated by `cargo run -p tilerast-hw --bin gen-rtl` (hw/src/rtl_out.rs) — do not edit -->\n\
         # rtl-out: the tilerast Verilog\n\n\
         Generated from the rust-hdl blocks in `hw/src/` and checked in CI (`hw/tests/rtl_out.rs`:\n\
         regenerating is a no-op, every top lints clean with `verilator -Wall`). Every module is\n\
         defined once in this directory (`hw/src/package.rs`): the one-flop registers in\n\
         `tilerast_lib.v`, each block's modules in the block's own file, and a top that contains\n\
         another block instantiates it from that block's file.\n\n\
         ## Which file\n\n\
         Take a top's **file list** `<top>.f`, not its `.v` alone: it names every file the top needs,\n\
         dependencies first, relative to this directory.\n\n\
         | use | top |\n|---|---|\n\
         | the whole GPU: primitives in, framebuffer out, one memory port | `tilerast_frame_<preset>` |\n\
         | the raster core: commands in, quads out | `tilerast_<preset>` |\n\
         | the pixel back end: pixels in, framebuffer writes out | `tilerast_pixel_back_end_<preset>` |\n\
         | one pipeline block | `tilerast_<stage>_<preset>` |\n\
         | a board (UART, PLL, raster core) | `tilerast_top_<board>` |\n\n\
         Presets (`golden/src/config.rs`): `ice40`, `default`, `full`, `ice40_1x`; the config each file\n\
         was built with is in its header. Any other config: `tilerast rtl --config FILE -o DIR` writes\n\
         the same structure.\n\n\
         ## How to read a top\n\n\
         ```sh\n\
         cd rtl-out\n\
         verilator --lint-only -Wall --top-module tilerast_frame_default tilerast_waivers.vlt -F tilerast_frame_default.f\n\
         yosys -p \"read_verilog $(tr '\\n' ' ' < tilerast_frame_default.f); synth_ecp5 -top tilerast_frame_default\"\n\
         iverilog -s tilerast_frame_default -c tilerast_frame_default.f -o frame.vvp\n\
         ```\n\n\
         Instantiate a top by its module name; its ports and their streams are listed in its\n\
         file's header (valid/ready streams, one `clock`, `flush` a synchronous reset).\n\n",
    );
    t.push_str(&block_table());
    t.push_str("\n## Every top\n\n");
    t.push_str(&format!(
        "{} Verilog files, {total} lines.\n\n| top module | what | files in its list | lines of its own file |\n|---|---|---:|---:|\n",
        files.iter().filter(|f| f.name.ends_with(".v")).count()
    ));
    for s in specs {
        let list = crate::package::list_name(&s.name);
        let n = files
            .iter()
            .find(|f| f.name == list)
            .map_or(0, |f| f.text.lines().count());
        t.push_str(&format!("| `{}` | {} | {n} | {} |\n", s.top, s.role, lines(&s.name)));
    }
    t.push_str(&format!(
        "\n`{LIB_FILE}` holds the registers ({} lines); `tilerast_waivers.vlt` the Verilator lint waivers, each with its reason.\n",
        lines(LIB_FILE)
    ));
    t
}

/// The README's table of the blocks of their own, made from [`crate::BLOCK_FILES`] (itself
/// made from the stage list, `tilerast_golden::pixel_side_stages!`): per block its stage, its
/// rust-hdl source, its role, and the cycle model whose rustdoc is its timing contract.
pub fn block_table() -> String {
    let mut t = format!(
        "## The blocks\n\n\
         The raster core (`tilerast_<preset>`: {}) and {} blocks of their own, in frame-pipeline\n\
         order (`tilerast_golden::pixel_side_stages!`), each written as `tilerast_<stage>_<preset>.v`:\n\n\
         | block | rust-hdl source | role | timing contract |\n|---|---|---|---|\n",
        tilerast_golden::stages::RASTER_CORE_STAGES.join(", "),
        crate::BLOCK_FILES.len()
    );
    for b in crate::BLOCK_FILES {
        let stage = b.stage();
        let contract = b.contract.replace("tilerast_golden::", "");
        let module = contract.split("::").next().unwrap_or(stage).to_string();
        t.push_str(&format!(
            "| `{stage}` | [`hw/src/{stage}.rs`](../hw/src/{stage}.rs) | {} | [`{contract}`](../golden/src/{module}.rs) |\n",
            b.role
        ));
    }
    t
}

/// Write the core and every block that supports `cfg` into `dir`, packaged as `rtl-out/` is
/// (`tilerast rtl`): `tilerast_lib.v` (merged with the library already in `dir`, whose
/// modules are named by width, so several configs share one directory), each file with its
/// list, and the lint waivers. Returns the written Verilog files' (name, top) and the blocks
/// skipped with the reason. Refuses unsupported configs before writing anything.
#[allow(clippy::type_complexity)]
pub fn write_config(
    cfg: &Config,
    command: &str,
    dir: &std::path::Path,
) -> Result<(Vec<(String, String)>, Vec<(String, String)>), String> {
    crate::supported(cfg)?;
    let cmd = command.to_string();
    let specs = raw_files_for(std::slice::from_ref(cfg), &move |_| cmd.clone(), false);
    let skipped: Vec<(String, String)> = crate::BLOCK_FILES
        .iter()
        .filter_map(|b| {
            (b.params)(cfg)
                .err()
                .map(|why| (b.file_name(&cfg.name), format!("{}: {why}", b.stage())))
        })
        .collect();
    let raw = make_raw(&specs, 2)?;
    let mut out = package(&raw)?;
    std::fs::create_dir_all(dir).map_err(|e| format!("{}: {e}", dir.display()))?;
    if let Some(lib) = out.iter_mut().find(|f| f.name == LIB_FILE) {
        if let Ok(old) = std::fs::read_to_string(dir.join(LIB_FILE)) {
            lib.text = crate::package::merge_lib(&old, &lib.text);
        }
    }
    out.push(GenFile::new(crate::LINT_WAIVERS_FILE, crate::LINT_WAIVERS));
    for f in &out {
        let p = dir.join(&f.name);
        std::fs::write(&p, &f.text).map_err(|e| format!("{}: {e}", p.display()))?;
    }
    Ok((specs.iter().map(|s| (s.name.clone(), s.top.clone())).collect(), skipped))
}
