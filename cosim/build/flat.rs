//! A module's ports parsed from its Verilog text and flattened into two bit vectors, shared by
//! the build script (the compiled-in models: `build.rs`, `build/blocks.rs`) and the library
//! (models verilated on demand, `src/ondemand.rs`), so both lay out the per-cycle words the
//! same way. Pure Rust, no build-only dependency.

use std::path::Path;

/// The Verilator options every co-simulated model is verilated with (before `--top-module`),
/// compiled-in or on demand.
pub const VERILATOR_FLAGS: &[&str] = &[
    "--cc",
    "-O3",
    "--x-assign",
    "fast",
    "--x-initial",
    "fast",
    "-Wno-fatal",
    "-Wno-lint",
    "-Wno-style",
];

/// One row of a Rust port table (`PortDesc { .. },`), as [`Flat`] lists them.
pub fn port_row(name: &str, width: u32, offset: u32, signed: bool) -> String {
    format!("        PortDesc {{ name: {name:?}, width: {width}, offset: {offset}, signed: {signed} }},\n")
}

/// One port of a block module.
pub struct VPort {
    pub name: String,
    pub width: u32,
    pub signed: bool,
    pub input: bool,
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

#[allow(dead_code)] // the build script's (the library's models all have `clock`)
/// Whether `module <name>(...)` in `src` has a port called `clock` (a block of two clocks of
/// its own, such as the line buffer, has none).
pub fn has_clock(src: &str, module: &str) -> bool {
    let head = format!("module {module}(");
    src.lines()
        .find_map(|l| l.strip_prefix(&head))
        .is_some_and(|rest| rest.split([',', ')', ';']).any(|p| p.trim() == "clock"))
}

/// Whether input `port` is a clock of the block's own other than `clock` (`write_clock`,
/// `read_clock`, ...): the wrapper drives it with `clock` gated by its bit of `in_bits`, 1 in the
/// steps where that clock has its rising edge (in_bits change while `clock` is low, so the gate
/// never glitches), and the edges of one step coincide.
pub fn is_gated_clock(input: bool, width: u32, name: &str) -> bool {
    input && width == 1 && name.ends_with("_clock")
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
    flatten_clocked(top, module, ports, true)
}

/// [`flatten`], for a module with (`clock`) or without a port called `clock`; every input
/// [`is_gated_clock`] is driven by `clock` gated by its bit.
pub fn flatten_clocked(top: &str, module: &str, ports: &[VPort], clock: bool) -> Flat {
    let (mut ni, mut no) = (0u32, 0u32);
    let mut conns = if clock {
        vec!["        .clock(clock)".to_string()]
    } else {
        Vec::new()
    };
    let mut rs_in = String::new();
    let mut rs_out = String::new();
    for port in ports {
        let (bus, off, rs) = if port.input {
            (&"in_bits", &mut ni, &mut rs_in)
        } else {
            (&"out_bits", &mut no, &mut rs_out)
        };
        if is_gated_clock(port.input, port.width, &port.name) {
            conns.push(format!("        .{}(clock & {bus}[{}])", port.name, *off));
        } else {
            conns.push(format!(
                "        .{}({bus}[{}:{}])",
                port.name,
                *off + port.width - 1,
                *off
            ));
        }
        rs.push_str(&port_row(&port.name, port.width, *off, port.signed));
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

#[allow(dead_code)] // the build script's (the library verilates generated text, not rtl-out/)
/// The files of the list `<dir>/<stem>.f` that `gen-rtl` and `tilerast rtl` write beside each
/// top (one file name per line, dependencies first), as paths under `dir`; or a one-line error.
pub fn file_list(dir: &Path, stem: &str) -> Result<Vec<std::path::PathBuf>, String> {
    let list = dir.join(format!("{stem}.f"));
    let text = std::fs::read_to_string(&list).map_err(|e| {
        format!(
            "error: {}: {e} (run `cargo run -p tilerast-hw --bin gen-rtl`)",
            list.display()
        )
    })?;
    Ok(text
        .lines()
        .filter(|l| !l.trim().is_empty())
        .map(|l| dir.join(l.trim()))
        .collect())
}

#[allow(dead_code)] // the build script's
/// The module that module `parent` (whose text is in `src`) instantiates as `inst`, and the
/// instance's parameter overrides as written (`#(.c(4'h1), …)`, or empty).
pub fn instance_module(src: &str, parent: &str, inst: &str) -> Option<(String, String)> {
    let head = format!("module {parent}(");
    let body = &src[src.find(&head)?..];
    let body = &body[..body.find("\nendmodule").unwrap_or(body.len())];
    body.lines().find_map(|l| {
        let (module, rest) = l.strip_prefix("    ")?.split_once(' ')?;
        let (params, rest) = match rest.strip_prefix("#(") {
            Some(r) => {
                let (p, rest) = r.split_once(") ")?;
                (format!("#({p})"), rest)
            }
            None => (String::new(), rest),
        };
        rest.strip_prefix(inst)?.strip_prefix('(')?;
        Some((module.to_string(), params))
    })
}
