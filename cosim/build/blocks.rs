//! Per-block Verilator models for `cosim/src/blocks.rs` (included from `cosim/build.rs`).
//!
//! Each pipeline block sits in `rtl-out/tilerast_<preset>.v` as a submodule with clean port
//! names, `tilerast_<preset>__<stage>` for every stage of `golden/src/stages.rs`
//! (`RASTER_CORE_STAGES`, included by path). For every (preset, stage) this file
//!
//! 1. parses the submodule's port list (name, width, signedness) from the Verilog text,
//! 2. writes a wrapper `blk_<preset>_<stage>` that flattens every port except `clock` into two
//!    bit vectors, inputs and outputs, each in declaration order:
//!
//!    ```text
//!              in_bits[NI-1:0] ──► flush | in_valid | inp__* | out_ready   (offsets in the table)
//!    clock ──►┌──────────────────────────────┐
//!             │ tilerast_<preset>__<block> u │
//!             └──────────────────────────────┘──► out_bits[NO-1:0]: in_ready | out_valid | out__*
//!    ```
//! 3. verilates it (prefix `Vblk_<preset>_<stage>`, no trace),
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

use std::fmt::Write as _;
use std::path::{Path, PathBuf};

/// Presets whose blocks are verilated.
const BLOCK_PRESETS: &[&str] = &["ice40", "default", "full"];

#[path = "../../golden/src/stages.rs"]
mod stages;
use stages::RASTER_CORE_STAGES;

/// One port of a block module.
pub struct VPort {
    name: String,
    width: u32,
    signed: bool,
    input: bool,
}

fn fail(msg: &str) -> ! {
    eprintln!("{msg}");
    std::process::exit(1);
}

/// The ports of `module <name>(...)` in declaration order (`clock` excluded), or a one-line
/// error naming the file, line and module.
pub fn parse_ports(src: &str, file: &Path, module: &str) -> Result<Vec<VPort>, String> {
    let head = format!("module {module}(");
    let mut lines = src.lines().enumerate();
    let Some((mline, _)) = lines.by_ref().find(|(_, l)| l.starts_with(&head)) else {
        return Err(format!("error: {}: module `{module}` not found", file.display()));
    };
    let mut ports = Vec::new();
    let mut started = false;
    for (i, l) in lines {
        let t = l.trim();
        let dir = if t.starts_with("input ") {
            true
        } else if t.starts_with("output ") {
            false
        } else if started || t.starts_with("endmodule") {
            break;
        } else {
            continue;
        };
        started = true;
        let bad = || {
            format!(
                "error: {}:{}: cannot parse port declaration of `{module}`: `{t}`",
                file.display(),
                i + 1
            )
        };
        let body = t.strip_suffix(';').ok_or_else(bad)?;
        let mut toks: Vec<&str> = body.split_whitespace().collect();
        // input|output wire|reg [signed] [[H:0]] name
        toks.remove(0);
        if matches!(toks.first(), Some(&"wire") | Some(&"reg")) {
            toks.remove(0);
        }
        let signed = toks.first() == Some(&"signed");
        if signed {
            toks.remove(0);
        }
        let width = match toks.as_slice() {
            [_] => 1,
            [r, _] => {
                let r = r
                    .strip_prefix('[')
                    .and_then(|r| r.strip_suffix(":0]"))
                    .ok_or_else(bad)?;
                r.parse::<u32>().map_err(|_| bad())? + 1
            }
            _ => return Err(bad()),
        };
        let name = toks.last().unwrap().to_string();
        if !name.chars().all(|c| c.is_ascii_alphanumeric() || c == '_') || width > 64 {
            return Err(bad());
        }
        if name != "clock" {
            ports.push(VPort {
                name,
                width,
                signed,
                input: dir,
            });
        }
    }
    if ports.is_empty() {
        return Err(format!(
            "error: {}:{}: module `{module}` has no ports",
            file.display(),
            mline + 1
        ));
    }
    Ok(ports)
}

/// A module with its ports (except `clock`) flattened into two bit vectors: the Verilog wrapper
/// and the Rust port table (`PortDesc` rows) of each side.
pub struct Flat {
    /// `module <top>(input clock, input [..] in_bits, output [..] out_bits)` around `<module>`.
    pub verilog: String,
    pub in_bits: u32,
    pub out_bits: u32,
    /// `PortDesc { .. },` rows of the inputs, in declaration order.
    pub rs_inputs: String,
    /// Likewise for the outputs.
    pub rs_outputs: String,
}

/// Flatten `module`'s `ports` (from [`parse_ports`]) into `in_bits` / `out_bits`, each port at
/// its offset in declaration order, behind a wrapper module called `top`.
pub fn flatten(top: &str, module: &str, ports: &[VPort]) -> Flat {
    let (mut ni, mut no) = (0u32, 0u32);
    let mut conns = vec!["        .clock(clock)".to_string()];
    let mut rs_in = String::new();
    let mut rs_out = String::new();
    for port in ports {
        let (bus, off, rs) = if port.input {
            (&"in_bits", &mut ni, &mut rs_in)
        } else {
            (&"out_bits", &mut no, &mut rs_out)
        };
        conns.push(format!(
            "        .{}({bus}[{}:{}])",
            port.name,
            *off + port.width - 1,
            *off
        ));
        writeln!(
            rs,
            "        PortDesc {{ name: {:?}, width: {}, offset: {}, signed: {} }},",
            port.name, port.width, *off, port.signed
        )
        .unwrap();
        *off += port.width;
    }
    let verilog = format!(
        "// Generated by cosim/build/blocks.rs: `{module}` with its ports flattened.\n\
         module {top}(input clock, input [{}:0] in_bits, output [{}:0] out_bits);\n    \
         {module} u (\n{}\n    );\nendmodule\n",
        ni - 1,
        no - 1,
        conns.join(",\n")
    );
    Flat {
        verilog,
        in_bits: ni,
        out_bits: no,
        rs_inputs: rs_in,
        rs_outputs: rs_out,
    }
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
    for p in BLOCK_PRESETS {
        let vfile = rtl.join(format!("tilerast_{p}.v"));
        let src = std::fs::read_to_string(&vfile).unwrap_or_else(|e| {
            fail(&format!(
                "error: {}: {e} (run `cargo run -p tilerast-hw --bin gen-rtl`)",
                vfile.display()
            ))
        });
        for stage in RASTER_CORE_STAGES {
            let module = format!("tilerast_{p}__{stage}");
            let ports = parse_ports(&src, &vfile, &module).unwrap_or_else(|e| fail(&e));
            let top = format!("blk_{p}_{stage}");
            let flat = flatten(&top, &module, &ports);
            let (ni, no, rs_in, rs_out) = (flat.in_bits, flat.out_bits, flat.rs_inputs, flat.rs_outputs);
            let wrapper = dir.join(format!("{top}.v"));
            std::fs::write(&wrapper, flat.verilog).unwrap();
            let mdir = dir.join(format!("obj_{top}"));
            let prefix = format!("V{top}");
            let cpp = super::verilate(&[&wrapper, &vfile], &top, &prefix, &mdir, false);
            files.push(super::unity(&mdir, &prefix, &cpp));
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
                "    BlockDesc {{\n        preset: {p:?},\n        stage: {stage:?},\n        module: {module:?},\n        \
                 in_bits: {ni},\n        out_bits: {no},\n        inputs: &[\n{rs_in}        ],\n        \
                 outputs: &[\n{rs_out}        ],\n    }},\n"
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
    b.compile("tilerast_cosim_blocks");
    println!("cargo:rerun-if-changed=build/blocks.rs");
    println!("cargo:rerun-if-changed=../golden/src/stages.rs");
    println!("cargo:rerun-if-changed=src/blocks.rs");
    println!("cargo:rerun-if-changed=csrc/blocks.cpp");
    println!("cargo:rerun-if-changed=csrc/blocks.h");
}
