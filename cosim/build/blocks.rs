//! Per-block Verilator models for `cosim/src/blocks.rs` (included from `cosim/build.rs`).
//!
//! Each raster-core block is the core `tilerast_<preset>`'s instance named after its stage
//! (`RASTER_CORE_STAGES` of `golden/src/stages.rs`, included by path): a module of the core's
//! file list `rtl-out/tilerast_<preset>.f`, maybe another preset's with parameter overrides
//! (`hw/src/package.rs`). Each pixel-side block is the top of its own list
//! `rtl-out/tilerast_<stage>_<preset>.f`. For every (preset, stage) this file
//!
//! 1. parses the module's port list (name, width, signedness) from the Verilog text,
//! 2. writes a wrapper `blk_<preset>_<stage>` that flattens every port except `clock` into two
//!    bit vectors, inputs and outputs, each in declaration order:
//!
//!    ```text
//!              in_bits[NI-1:0] ──► flush | in_valid | inp__* | out_ready   (offsets in the table)
//!    clock ──►┌──────────────────────────────┐
//!             │ <module> #(<overrides>) u    │
//!             └──────────────────────────────┘──► out_bits[NO-1:0]: in_ready | out_valid | out__*
//!    ```
//! 3. verilates it with the list's files (prefix `Vblk_<preset>_<stage>`, no trace),
//! 4. writes `$OUT_DIR/blocks_gen.inc` (included by `csrc/blocks.cpp`: the model headers and a
//!    factory `make_block("<preset>/<stage>")` instantiating the generic `BlockSim<T>`) and
//!    `$OUT_DIR/block_ports.rs` (included by `src/blocks.rs`: the port table, name / width /
//!    bit offset / signedness of every port, so Rust encodes and decodes by port name).
//!
//! The models, `csrc/blocks.cpp` and the `src/blocks.rs` cxx bridge go into their own static
//! library `tilerast_cosim_blocks`, one translation unit per model (`V*__ALL.cpp`, as Verilator's
//! own non-parallel build does), at `-O1`: compiling is what costs (on the full preset's
//! sample_raster block -O1 compiled 1.4× faster than -O2), and the Rust cycle model, not the
//! verilated block, dominates a run. It uses the Verilator runtime
//! compiled into `tilerast_cosim_models`, so it must be linked first: call [`build`] before
//! the main library's `compile`.

use super::flat::{flatten_clocked, has_clock, parse_ports};
use std::fmt::Write as _;
use std::path::{Path, PathBuf};

/// Presets whose blocks are verilated.
const BLOCK_PRESETS: &[&str] = &["ice40", "default", "full"];

/// Presets whose pixel-side blocks (`rtl-out/tilerast_<stage>_<preset>.v`, module
/// `tilerast_<stage>_<preset>`, one per stage of `PIXEL_SIDE_STAGES`) are verilated: most
/// blocks are the same on every preset (the blender at P = 4, L = 2, D = 4; the output merger
/// has no parameters), so one is enough; [`PIXEL_SIDE_EXTRA`] lists the others. dst_fetch and
/// pixel_back_end have further streams (the memory port); the wrapper flattens whatever ports
/// the module declares, so they are verilated the same way and driven by port name.
const PIXEL_SIDE_PRESETS: &[&str] = &["default"];

/// Pixel-side blocks verilated on a further preset besides `default`'s: (preset, stage). The
/// colour buffer's layout (tile classes, piece size, C) depends on the preset, and so do the
/// binner's tile grid and list count and the pixel-info writer's and reader's lists (second
/// tiles, record size, records per block), and the blender's in-flight match
/// (`blend_match_in_flight`).
const PIXEL_SIDE_EXTRA: &[(&str, &str)] = &[
    ("ice40", "colour_buffer"),
    ("ice40", "binner"),
    ("ice40", "pixel_info_write"),
    ("ice40", "pixel_info_read"),
    ("ice40", "tile_sequencer"),
    ("ice40", "shading_sort"),
    ("ice40", "bin_setup"),
    ("full", "blender"),
];

/// Presets whose whole pixel back end is verilated besides `default`'s (its pixel processor
/// and dst read depend on S, C and the viewport width): every other preset, for the
/// whole-back-end differential and `tilerast regress --back-end` on every preset.
const BACK_END_PRESETS: &[&str] = &["ice40", "full", "ice40_1x"];

/// Presets whose whole frame top (`rtl-out/tilerast_frame_<preset>.v`: every block of the frame
/// behind one memory port) is verilated besides `default`'s: every other preset, for the
/// whole-frame differential of `tests/frame.rs` (`src/frame.rs`) on every preset.
const FRAME_PRESETS: &[&str] = &["ice40", "full", "ice40_1x"];

/// Block variants (`tilerast_hw::BLOCK_VARIANTS`: options the pipeline does not build),
/// `rtl-out/tilerast_<stage>_<name>.v` with module `tilerast_<stage>_<name>`, verilated as
/// `<name>/<stage>`: (name, stage). Keep in sync with hw (the block table test in
/// `src/blocks.rs` checks that every one of hw's variants is built).
const BLOCK_VARIANTS: &[(&str, &str)] = &[("default_comp", "blender"), ("default_buf", "blender")];

/// Per-board blocks (`rtl-out/tilerast_<stage>_<board>.v`, of `BOARD_STAGES`), verilated as
/// `<board>/<stage>`: (board, stage). The board memory is tested in Icarus
/// (`hw/tests/board_memory.rs`); the blocks of every board with a frame row
/// (`tilerast_hw::FRAME_BOARD_BLOCKS`: the SDRAM controller, the memory arbiter, the double
/// buffer, the scan-out, the line buffer, the video output, the display path, the board top, the frame host) are here (`src/blocks.rs`'s block table test checks the list against the board table).
const BOARD_BLOCKS: &[(&str, &str)] = &[
    ("ulx3s", "sdram_controller"),
    ("ulx3s", "mem_arbiter"),
    ("ulx3s", "double_buffer"),
    ("ulx3s", "scan_out"),
    ("ulx3s", "line_buffer"),
    ("ulx3s", "video_out"),
    ("ulx3s", "display_path"),
    ("ulx3s", "board_top"),
    ("ulx3s", "frame_host"),
];

#[path = "../../golden/src/stages.rs"]
#[allow(dead_code)] // BOARD_STAGES: the list above names the per-board blocks verilated
mod stages;
use stages::{PIXEL_SIDE_STAGES, RASTER_CORE_STAGES};

fn fail(msg: &str) -> ! {
    eprintln!("{msg}");
    std::process::exit(1);
}

/// Verilate every (preset, stage) block, generate the wrappers, the C++ factory and the Rust
/// port table, and compile them with `csrc/blocks.cpp` and the `src/blocks.rs` bridge into the
/// static library `tilerast_cosim_blocks`. `inc` is Verilator's include directory.
pub fn build(out: &Path, rtl: &Path, inc: &Path, trace: bool) {
    let dir = out.join("blocks");
    std::fs::create_dir_all(&dir).unwrap();
    let mut gen_inc = String::from("// Generated by cosim/build/blocks.rs: block models and their factory.\n");
    let mut factory =
        String::from("namespace tilerast_blocks {\nstatic BlockSimBase* make_block(const std::string& name) {\n");
    let mut table = String::from("// Generated by cosim/build/blocks.rs: the port table of every verilated block.\n");
    table.push_str("/// Every verilated block: ports in `in_bits` / `out_bits` order.\npub static BLOCK_TABLE: &[BlockDesc] = &[\n");
    let mut files: Vec<PathBuf> = Vec::new();
    let mut b = cxx_build::bridge("src/blocks.rs");
    // (preset, stage, the files of the block's list, dependencies first, module, its
    // parameter overrides).
    let mut jobs: Vec<(&str, &str, Vec<PathBuf>, String, String)> = Vec::new();
    for p in BLOCK_PRESETS {
        let core = format!("tilerast_{p}");
        let files = super::sources(rtl, &core);
        let text = std::fs::read_to_string(files.last().unwrap()).unwrap();
        for stage in RASTER_CORE_STAGES {
            // The stage's module: the core's instance of it (after packaging it may be another
            // preset's module, with parameters).
            let (module, params) = super::flat::instance_module(&text, &core, stage)
                .unwrap_or_else(|| fail(&format!("error: {core} has no `{stage}` instance")));
            jobs.push((*p, stage, files.clone(), module, params));
        }
    }
    #[allow(clippy::type_complexity)]
    let block = |jobs: &mut Vec<(&str, &str, Vec<PathBuf>, String, String)>, p, stage, name: &str| {
        let top = format!("tilerast_{stage}_{name}");
        jobs.push((p, stage, super::sources(rtl, &top), top, String::new()));
    };
    for p in PIXEL_SIDE_PRESETS {
        for stage in PIXEL_SIDE_STAGES {
            block(&mut jobs, *p, stage, p);
        }
    }
    for (p, stage) in PIXEL_SIDE_EXTRA {
        block(&mut jobs, *p, *stage, p);
    }
    for p in BACK_END_PRESETS {
        block(&mut jobs, *p, "pixel_back_end", p);
    }
    for p in FRAME_PRESETS {
        block(&mut jobs, *p, "frame", p);
    }
    for (name, stage) in BLOCK_VARIANTS {
        block(&mut jobs, *name, *stage, name);
    }
    for (board, stage) in BOARD_BLOCKS {
        block(&mut jobs, *board, *stage, board);
    }
    // The planted bugs of the pixel-side blocks (build/mutation.rs), as `default_mut/<stage>`:
    // the anchor is replaced in the one file of the block's list that holds it.
    let mutants = super::mutation::BLOCK_MUTANTS
        .iter()
        .map(|m| ("default", m))
        .chain(super::mutation::BOARD_MUTANTS.iter().map(|(b, m)| (*b, m)));
    for (on, m) in mutants {
        let top = format!("tilerast_{}_{on}", m.stage);
        let files = super::sources(rtl, &top);
        let texts: Vec<String> = files.iter().map(|f| std::fs::read_to_string(f).unwrap()).collect();
        let holders: Vec<usize> = (0..files.len()).filter(|i| texts[*i].contains(m.from)).collect();
        let &[k] = holders.as_slice() else {
            fail(&format!(
                "error: {} mutation anchor {:?} found in {} files of {top}.f, not one \
                 (regenerated RTL moved it: update cosim/build/mutation.rs and cosim/tests/{}.rs)",
                m.stage,
                m.from,
                holders.len(),
                m.stage
            ));
        };
        let mutated =
            super::mutation::apply_block(&texts[k], m, &files[k].display().to_string()).unwrap_or_else(|e| fail(&e));
        let mfile = dir.join(format!(
            "{}_mut_{}",
            m.stage,
            files[k].file_name().unwrap().to_string_lossy()
        ));
        std::fs::write(&mfile, mutated).unwrap();
        let mut mfiles = files.clone();
        mfiles[k] = mfile;
        let name: &'static str = Box::leak(format!("{on}_mut").into_boxed_str());
        jobs.push((name, m.stage, mfiles, top, String::new()));
    }
    // The mutants' models are compiled without optimisation (their own library, below): each
    // runs only until its planted bug shows (a few thousand to a million and a half steps), and
    // -O0 compiles a model about six times faster than -O1 (the board top's: 2.8 s vs 17 s).
    let mut mutant_files: Vec<PathBuf> = Vec::new();
    for (p, stage, vfiles, module, params) in jobs {
        {
            let src: String = vfiles.iter().map(|f| std::fs::read_to_string(f).unwrap()).collect();
            let vfile = vfiles.last().unwrap();
            let ports = parse_ports(&src, vfile, &module).unwrap_or_else(|e| fail(&e));
            let top = format!("blk_{p}_{stage}");
            let clock = has_clock(&src, &module);
            let flat = flatten_clocked(&top, format!("{module} {params}").trim_end(), &ports, clock);
            let (ni, no, rs_in, rs_out) = (flat.in_bits, flat.out_bits, flat.rs_inputs, flat.rs_outputs);
            let wrapper = dir.join(format!("{top}.v"));
            std::fs::write(&wrapper, flat.verilog).unwrap();
            let mdir = dir.join(format!("obj_{top}"));
            let prefix = format!("V{top}");
            let mut all: Vec<&Path> = vec![&wrapper];
            all.extend(vfiles.iter().map(PathBuf::as_path));
            let cpp = super::verilate(&all, &top, &prefix, &mdir, false);
            let unity = super::unity(&mdir, &prefix, &cpp);
            if p.ends_with("_mut") {
                mutant_files.push(unity);
            } else {
                files.push(unity);
            }
            b.include(&mdir);
            writeln!(gen_inc, "#include \"V{top}.h\"").unwrap();
            writeln!(
                factory,
                "    if (name == \"{p}/{stage}\") return new BlockSim<V{top}>({}, {});",
                ni.div_ceil(32),
                no.div_ceil(32)
            )
            .unwrap();
            write!(
                table,
                "    BlockDesc {{\n        preset: {p:?},\n        stage: {stage:?},\n        module: {module:?},\n        params: {params:?},\n        \
                 in_bits: {ni},\n        out_bits: {no},\n        inputs: &[\n{rs_in}        ],\n        \
                 outputs: &[\n{rs_out}        ],\n        clock: {clock},\n    }},\n"
            )
            .unwrap();
        }
    }
    factory.push_str("    return nullptr;\n}\n}  // namespace tilerast_blocks\n");
    gen_inc.push_str(&factory);
    table.push_str("];\n");
    std::fs::write(dir.join("blocks_gen.inc"), gen_inc).unwrap();
    std::fs::write(out.join("block_ports.rs"), table).unwrap();

    b.file("csrc/blocks.cpp").files(&files).include(&dir);
    super::model_build(&mut b, inc, trace, 1);
    super::compile(&mut b, "tilerast_cosim_blocks");
    // After the library that refers to them (the factory in blocks.cpp), before the runtime.
    let mut m = cc::Build::new();
    m.cpp(true).files(&mutant_files);
    super::model_build(&mut m, inc, trace, 0);
    super::compile(&mut m, "tilerast_cosim_block_mutants");
    println!("cargo:rerun-if-changed=build/blocks.rs");
    println!("cargo:rerun-if-changed=../golden/src/stages.rs");
    println!("cargo:rerun-if-changed=src/blocks.rs");
    println!("cargo:rerun-if-changed=csrc/blocks.cpp");
    println!("cargo:rerun-if-changed=csrc/blocks.h");
}
