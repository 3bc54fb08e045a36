//! Flow runner and report tests: the iCEBreaker flow on a small design (blinky) through to a
//! bitstream and report; report parsing on a captured real nextpnr report and yosys stat (the
//! expected numbers are the ones nextpnr/yosys printed in their logs, see tests/data/);
//! error paths (unknown board, missing files, broken Verilog, malformed reports) give one line
//! naming the file / step / field; the per-block registered-IO wrapper (generated from a small
//! known module and from real blocks: ports, widths, pins, elaborated by Icarus, kept by yosys),
//! Fmax into a block row, and the three generated tables of `docs/measurements.md` between their
//! own markers.
//! No place and route of a block here (CI time): `tilerast synth --blocks` does that.

use std::path::PathBuf;
use tilerast_fpga::flow::{
    config_variant, frame_variant, preset_variant, run_board, shell_quote, FlowOpts, Outcome, Step, Watch,
};
use tilerast_fpga::report::{self, parse_nextpnr_report, parse_yosys_stat, Counts};
use tilerast_fpga::{board, repo_root, wrap, Family, BOARDS};

fn data(name: &str) -> String {
    std::fs::read_to_string(repo_root().join("fpga/tests/data").join(name)).unwrap()
}

fn opts(verilog: &str, top: &str, out: &str) -> FlowOpts {
    FlowOpts {
        verilog: vec![PathBuf::from(verilog)],
        top: Some(top.into()),
        out_dir: Some(repo_root().join("target/fpga/tests").join(out)),
        ..Default::default()
    }
}

fn one_line(e: &str) {
    assert!(!e.contains('\n'), "error must be one line: {e:?}");
}

#[test]
fn unknown_board_is_a_one_line_error() {
    let e = board("icestick").unwrap_err().0;
    one_line(&e);
    assert!(e.contains("icestick") && e.contains("icebreaker, hx8k, ulx3s"), "{e}");
    for b in BOARDS.iter() {
        assert_eq!(board(b.name).unwrap().name, b.name);
        assert!(repo_root().join(b.constraints).is_file(), "{} missing", b.constraints);
    }
}

/// The board top with a screen: its pins file places exactly its ports, bit by bit (the
/// Verilog's port declarations, ranges expanded), each once; a board without a frame row is
/// refused with one line naming the boards that have one.
#[test]
fn frame_constraints_place_every_bit_of_the_frame_top_s_ports_once() {
    let b = board("ulx3s").unwrap();
    let o = frame_variant(b, &repo_root()).unwrap();
    assert!(o.every_clock);
    let top = o.top.clone().unwrap();
    assert_eq!(top, "tilerast_top_ulx3s_frame");
    let v = std::fs::read_to_string(repo_root().join("rtl-out").join(format!("{top}.v"))).unwrap();
    let body = &v[v.find(&format!("module {top}(")).unwrap()..];
    let mut want: Vec<String> = Vec::new();
    for l in body.lines().take_while(|l| !l.contains("// ---- Clocks")) {
        let t: Vec<&str> = l.trim().trim_end_matches(';').split_whitespace().collect();
        let (range, name) = match t.as_slice() {
            [dir, "wire", r, n] if ["input", "output", "inout"].contains(dir) => (Some(*r), *n),
            [dir, "wire", n] if ["input", "output", "inout"].contains(dir) => (None, *n),
            _ => continue,
        };
        match range {
            None => want.push(name.to_string()),
            Some(r) => {
                let (hi, lo) = r.trim_matches(['[', ']']).split_once(':').unwrap();
                let (hi, lo): (u32, u32) = (hi.parse().unwrap(), lo.parse().unwrap());
                want.extend((lo..=hi).map(|i| format!("{name}[{i}]")));
            }
        }
    }
    assert!(want.len() > 50, "{want:?}");
    let text = std::fs::read_to_string(repo_root().join(o.constraints.unwrap())).unwrap();
    let mut got: Vec<String> = text
        .lines()
        .filter_map(|l| match l.split_whitespace().collect::<Vec<_>>().as_slice() {
            ["LOCATE", "COMP", n, "SITE", _] => Some(n.trim_matches('"').to_string()),
            _ => None,
        })
        .collect();
    let sites: std::collections::BTreeSet<&str> = text.lines().filter_map(|l| l.split("SITE \"").nth(1)).collect();
    assert_eq!(sites.len(), got.len(), "every pin on its own site");
    got.sort();
    want.sort();
    assert_eq!(got, want);
    assert!(text.contains("FREQUENCY PORT \"clk_25mhz\" 25 MHZ;"));
    let e = frame_variant(board("icebreaker").unwrap(), &repo_root()).unwrap_err().0;
    one_line(&e);
    assert!(e.contains("icebreaker") && e.contains("boards with one: ulx3s"), "{e}");
}

#[test]
fn constraints_map_exactly_the_four_top_ports() {
    for b in BOARDS.iter() {
        let text = std::fs::read_to_string(repo_root().join(b.constraints)).unwrap();
        let mut names: Vec<String> = text
            .lines()
            .filter(|l| !l.trim_start().starts_with('#'))
            .filter_map(|l| {
                let t: Vec<&str> = l.split_whitespace().collect();
                match t.as_slice() {
                    ["set_io", "-nowarn", n, _pin] => Some(n.to_string()),
                    ["LOCATE", "COMP", n, "SITE", _] => Some(n.trim_matches('"').to_string()),
                    _ => None,
                }
            })
            .collect();
        names.sort();
        assert_eq!(
            names,
            ["clk", "led[0]", "led[1]", "led[2]", "led[3]", "uart_rx", "uart_tx"],
            "{}",
            b.constraints
        );
    }
}

#[test]
fn icebreaker_flow_on_blinky_gives_bitstream_and_report() {
    let b = board("icebreaker").unwrap();
    let mut log = Vec::new();
    let r = run_board(
        b,
        &repo_root(),
        &opts("fpga/tests/data/blinky.v", "blinky", "blinky"),
        &mut log,
    )
    .unwrap_or_else(|e| panic!("{e}"));
    let log = String::from_utf8(log).unwrap();
    // Every step printed its reproducing command line.
    for tool in ["+ yosys ", "+ nextpnr-ice40 --up5k --package sg48 ", "+ icepack "] {
        assert!(log.contains(tool), "{tool} not printed:\n{log}");
    }
    let dir = repo_root().join("target/fpga/tests/blinky");
    let bin = std::fs::metadata(dir.join("blinky.bin")).unwrap();
    assert!(bin.len() > 100_000, "UP5K bitstream is ~104 kB, got {}", bin.len());
    for f in [
        "1-yosys.log",
        "2-nextpnr.log",
        "3-icepack.log",
        "report.json",
        "report.md",
    ] {
        assert!(dir.join(f).is_file(), "{f} missing");
    }
    // 24-bit counter + uart register: 25 FFs, a 22-long carry chain (bits 1..22 carry into 23).
    assert_eq!(r.counts.ffs, 25);
    assert_eq!(r.counts.carries, 22);
    let lc = r.lc.expect("LC utilisation");
    assert_eq!(lc.available, 5280);
    assert!(lc.used >= 25 && lc.used < 60, "{lc:?}");
    assert!(r.fmax_mhz.unwrap() > 30.0, "{:?}", r.fmax_mhz);
    assert_eq!(r.steps.len(), 3);
    // The JSON report round-trips and the table names the board.
    let back: report::Report =
        serde_json::from_str(&std::fs::read_to_string(dir.join("report.json")).unwrap()).unwrap();
    assert_eq!(back, r);
    let t = report::table_markdown(&[r]);
    assert!(
        t.lines().nth(2).unwrap().starts_with("| icebreaker | ice40_1x | "),
        "{t}"
    );
}

/// The board top with a screen: one row with every clock domain's Fmax over its PLL
/// frequency and a verdict per missed clock (the figures of a by-hand route of 2026-12-04).
#[test]
fn frame_table_gives_every_clock_domain() {
    let clock = |name: &str, achieved_mhz: f64, constraint_mhz: f64| report::ClockFmax {
        clock: format!("$glbnet${name}"),
        achieved_mhz,
        constraint_mhz,
    };
    let pnr = report::PnrReport {
        util: Default::default(),
        clocks: vec![
            clock("bit_clock", 221.98, 125.0),
            clock("gpu_clock", 38.24, 50.0),
            clock("memory_clock", 58.88, 100.0),
            clock("pixel_clock", 50.45, 25.0),
        ],
    };
    let b = board("ulx3s").unwrap();
    let r = report::Report::from_parts(
        b,
        "tilerast_top_ulx3s_frame",
        Some("default"),
        &Default::default(),
        Some(&pnr),
        vec![],
        None,
        None,
    );
    let t = report::frame_table_markdown(&[r]);
    let row = t.lines().nth(2).unwrap();
    assert!(row.starts_with("| ulx3s | default | "), "{t}");
    for c in [
        "bit_clock 222.0 / 125, gpu_clock 38.2 / 50, memory_clock 58.9 / 100, pixel_clock 50.5 / 25",
        "| gpu_clock misses 50.0 MHz; memory_clock misses 100.0 MHz |",
    ] {
        assert!(row.contains(c), "{c} not in {row}");
    }
}

#[test]
fn broken_verilog_names_the_step_and_its_log() {
    let b = board("icebreaker").unwrap();
    let e = run_board(
        b,
        &repo_root(),
        &opts("fpga/tests/data/broken.v", "broken", "broken"),
        &mut Vec::new(),
    )
    .unwrap_err()
    .0;
    one_line(&e);
    assert!(e.starts_with("step 1-yosys failed"), "{e}");
    assert!(e.contains("1-yosys.log") && e.contains("broken.v"), "{e}");
}

#[test]
fn missing_inputs_name_the_file() {
    let b = board("hx8k").unwrap();
    let e = run_board(
        b,
        &repo_root(),
        &opts("fpga/tests/data/nope.v", "x", "nope"),
        &mut Vec::new(),
    )
    .unwrap_err()
    .0;
    one_line(&e);
    assert!(e.starts_with("fpga/tests/data/nope.v: no such file"), "{e}");
    let mut o = opts("fpga/tests/data/blinky.v", "blinky", "nope");
    o.constraints = Some("constraints/nope.pcf".into());
    let e = run_board(b, &repo_root(), &o, &mut Vec::new()).unwrap_err().0;
    assert!(e.starts_with("constraints/nope.pcf: constraints file missing"), "{e}");
}

/// `tests/data/coverage_up5k.report.json` and `.stat.json`: the subtile_coverage block of the
/// ice40 core in a throwaway LFSR wrapper on the UP5K; the numbers below are copied from
/// `coverage_up5k.log` (nextpnr's "Device utilisation" and final "Max frequency" lines, yosys's
/// stat table), not from the parser.
#[test]
fn parses_a_captured_real_report() {
    let r = parse_nextpnr_report(&data("coverage_up5k.report.json"), "coverage_up5k.report.json").unwrap();
    let lc = r.util["ICESTORM_LC"];
    assert_eq!((lc.used, lc.available), (COV_LC_USED, 5280));
    assert_eq!(r.util["ICESTORM_DSP"].used, COV_DSP_USED);
    assert_eq!(r.clocks.len(), 1);
    assert!((r.clocks[0].achieved_mhz - COV_FMAX).abs() < 0.01, "{:?}", r.clocks);
    let cells = parse_yosys_stat(&data("coverage_up5k.stat.json"), "coverage_up5k.stat.json").unwrap();
    let c = Counts::from_cells(Family::Ice40, &cells);
    assert_eq!((c.luts, c.carries, c.dsp), (COV_LUTS, COV_CARRIES, COV_DSP_USED));
}

// From tests/data/coverage_up5k.log.
const COV_LC_USED: u64 = 1611;
const COV_DSP_USED: u64 = 0;
const COV_FMAX: f64 = 28.85;
const COV_LUTS: u64 = 735;
const COV_CARRIES: u64 = 396;

#[test]
fn malformed_reports_name_file_line_and_field() {
    let e = parse_nextpnr_report("{\n \"utilization\": {\n", "r.json")
        .unwrap_err()
        .0;
    one_line(&e);
    assert!(e.starts_with("r.json: line 3:"), "{e}");
    let e = parse_nextpnr_report(r#"{"utilization": {"ICESTORM_LC": {"used": 3}}, "fmax": {}}"#, "r.json")
        .unwrap_err()
        .0;
    assert_eq!(
        e,
        "r.json: field `utilization.ICESTORM_LC.available`: missing or not a number"
    );
    let e = parse_nextpnr_report(r#"{"utilization": {}}"#, "r.json").unwrap_err().0;
    assert_eq!(e, "r.json: field `fmax`: missing or not an object");
    let e = parse_yosys_stat(r#"{"modules": {"\\a": {}, "\\b": {}}}"#, "s.json")
        .unwrap_err()
        .0;
    assert_eq!(e, "s.json: field `modules`: expected one (flattened) module, found 2");
}

#[test]
fn readme_section_is_replaced_between_markers_only() {
    let readme = format!("# x\nbefore\n{}\nold table\n{}\nafter\n", report::BEGIN, report::END);
    let new = report::replace_section(&readme, "| new |\n", "README.md").unwrap();
    assert_eq!(
        new,
        format!("# x\nbefore\n{}\n| new |\n{}\nafter\n", report::BEGIN, report::END)
    );
    let e = report::replace_section("# x\n", "t", "README.md").unwrap_err().0;
    assert_eq!(e, format!("README.md: marker `{}` not found", report::BEGIN));
    let swapped = format!("a\n{}\nb\n{}\n", report::END, report::BEGIN);
    let e = report::replace_section(&swapped, "t", "README.md").unwrap_err().0;
    assert!(e.starts_with("README.md:2: "), "{e}");
}

#[test]
fn shell_quoting_reproduces_arguments() {
    assert_eq!(shell_quote("target/fpga/a.json"), "target/fpga/a.json");
    assert_eq!(shell_quote("read_verilog a.v; synth"), "'read_verilog a.v; synth'");
    assert_eq!(shell_quote("it's"), "'it'\\''s'");
}

/// One board table (golden's) drives the flow: every board's pins file and the Verilog files of
/// its top's list exist (its core's among them), nextpnr's `--freq` is the clock the top's PLL really makes, and no goal is below it.
#[test]
fn every_board_has_pins_verilog_and_a_reachable_clock() {
    let root = repo_root();
    for b in BOARDS.iter() {
        assert!(root.join(b.constraints).is_file(), "{}: {}", b.name, b.constraints);
        let files = tilerast_fpga::rtl_sources(&root, &tilerast_fpga::top(b)).unwrap_or_else(|e| panic!("{e}"));
        let core = root.join("rtl-out").join(tilerast_hw::rtl_file_name(b.preset));
        assert!(files.contains(&core), "{}: {files:?}", b.name);
        assert!(files.iter().all(|f| f.is_file()), "{}: {files:?}", b.name);
        let clock_mhz = b.clock_hz() as f64 / 1e6;
        assert!(
            (b.target_mhz() - clock_mhz).abs() < 0.006,
            "{}: {} vs {clock_mhz}",
            b.name,
            b.target_mhz()
        );
        assert!(b.goal_mhz >= b.target_mhz(), "{}", b.name);
        assert!(tilerast_golden::PRESETS.contains(&b.preset), "{}", b.name);
    }
}

/// `--board B --preset P`: B's top around P's core, generated under target/fpga/B-P/ only.
#[test]
fn preset_variant_generates_the_board_top_for_another_core() {
    let root = repo_root().canonicalize().unwrap();
    let b = board("icebreaker").unwrap();
    let o = preset_variant(b, "ice40", &root).unwrap_or_else(|e| panic!("{e}"));
    assert_eq!(
        o.out_dir.as_deref(),
        Some(root.join("target/fpga/icebreaker-ice40").as_path())
    );
    assert_eq!(o.preset.as_deref(), Some("ice40"));
    // The variant top is read with the files of the core it instantiates (its list
    // rtl-out/tilerast_ice40.f, the core's own file last), then itself.
    let core = tilerast_fpga::rtl_sources(&root, "tilerast_ice40").unwrap();
    assert_eq!(o.verilog[..o.verilog.len() - 1], core[..]);
    assert_eq!(core.last().unwrap(), &root.join("rtl-out/tilerast_ice40.v"));
    let text = std::fs::read_to_string(o.verilog.last().unwrap()).unwrap();
    assert!(
        text.lines()
            .nth(1)
            .unwrap()
            .contains("board icebreaker: preset ice40 (4x MSAA, Q = 1)"),
        "{}",
        &text[..300]
    );
    assert!(text.contains("module tilerast_top_icebreaker("), "top module name");
    assert!(
        text.contains("    tilerast_ice40 raster_core(\n"),
        "instantiates the ice40 core"
    );
    assert!(
        !text.lines().any(|l| l.starts_with("module tilerast_ice40")),
        "no copy of the core"
    );
    // The shipped top (ice40_1x, 1x MSAA) differs from it.
    let srcs = tilerast_fpga::rtl_sources(&root, "tilerast_top_icebreaker").unwrap();
    assert!(srcs.contains(&root.join("rtl-out/tilerast_ice40_1x.v")), "{srcs:?}");
    assert_eq!(srcs.last().unwrap(), &root.join("rtl-out/tilerast_top_icebreaker.v"));
    let shipped = std::fs::read_to_string(srcs.last().unwrap()).unwrap();
    assert!(
        shipped.lines().nth(1).unwrap().contains("preset ice40_1x (1x MSAA"),
        "{}",
        &shipped[..300]
    );
    let e = preset_variant(b, "ice50", &root).unwrap_err().0;
    one_line(&e);
    assert!(
        e.starts_with("--preset: unknown preset `ice50` (known: ice40, default, full, ice40_1x)"),
        "{e}"
    );
}

/// `--board B --config F`: B's top around the core of a config that is no preset, both written
/// under target/fpga/B-<name>/; yosys elaborates the pair (hierarchy -check); an unsupported
/// config is refused with one line naming the field.
#[test]
fn config_variant_writes_core_and_top_for_any_supported_config() {
    let root = repo_root().canonicalize().unwrap();
    let b = board("hx8k").unwrap();
    let text = std::fs::read_to_string(root.join("configs/msaa2_cw.json")).unwrap();
    let mut cfg = tilerast_golden::Scene::config_from_json(&text, "msaa2_cw.json", &[]).unwrap();
    cfg.name = "fv_msaa2".into();
    let o = config_variant(b, &cfg, "fpga/tests/flow.rs", &root).unwrap_or_else(|e| panic!("{e}"));
    let dir = root.join("target/fpga/hx8k-fv_msaa2");
    assert_eq!(o.out_dir.as_deref(), Some(dir.as_path()));
    assert_eq!(
        o.verilog,
        vec![dir.join("tilerast_fv_msaa2.v"), dir.join("tilerast_top_hx8k.v")]
    );
    let core = std::fs::read_to_string(&o.verilog[0]).unwrap();
    assert!(core.starts_with("// generated by `fpga/tests/flow.rs`"));
    assert!(core.contains("\"msaa\":2") && core.contains("module tilerast_fv_msaa2("));
    let top = std::fs::read_to_string(&o.verilog[1]).unwrap();
    assert!(
        top.lines().nth(1).unwrap().contains("preset fv_msaa2 (2x MSAA, Q = 2)"),
        "{}",
        &top[..300]
    );
    assert!(
        top.contains("    tilerast_fv_msaa2 raster_core(\n"),
        "instantiates the custom core"
    );
    let hier = std::process::Command::new("yosys")
        .arg("-q")
        .arg("-p")
        .arg(format!(
            "read_verilog -lib +/ice40/cells_sim.v; read_verilog {} {}; hierarchy -check -top tilerast_top_hx8k",
            o.verilog[0].display(),
            o.verilog[1].display()
        ))
        .output()
        .unwrap();
    assert!(hier.status.success(), "{}", String::from_utf8_lossy(&hier.stderr));

    let mut wide = tilerast_golden::Config::preset("ice40").unwrap();
    wide.quads_per_clock = 4;
    wide.name = "wide".into();
    let e = config_variant(b, &wide, "x", &root).unwrap_err().0;
    one_line(&e);
    assert!(e.starts_with("config.quads_per_clock:"), "{e}");
}

/// A small module in the emitted Verilog's style (rust-hdl: port list in the header, one
/// declaration per line): 8 input bits, 8 output bits, 5 registers of its own.
const TINY: &str = "\
module tiny(clock,a,b,s,y,z);

    // Module arguments
    input wire  clock;
    input wire  [3:0] a;
    input wire signed [2:0] b;
    input wire  s;
    output reg  [4:0] y;
    output wire  [2:0] z;

    always @(posedge clock) y <= s ? a + b : a - b;
    assign z = a[2:0] ^ b;
endmodule // tiny
";

fn scratch(name: &str) -> PathBuf {
    let d = repo_root().join("target/fpga/tests").join(name);
    std::fs::create_dir_all(&d).unwrap();
    d
}

/// The wrapper of a known module: three pins whatever the module, each port on its own slice of
/// the input shift chain or the output register, and (checked by synthesis, not by reading the
/// text) every one of those flip-flops kept: 8 in, the module's 5, 8 out, 2 + 1 XOR stages.
#[test]
fn wrapper_registers_every_port_of_a_small_module() {
    let (ports, clock) = wrap::module_ports(TINY, "tiny.v", "tiny").unwrap();
    assert!(clock);
    let names: Vec<(&str, u32, bool)> = ports.iter().map(|p| (p.name.as_str(), p.width, p.input)).collect();
    assert_eq!(
        names,
        [
            ("a", 4, true),
            ("b", 3, true),
            ("s", 1, true),
            ("y", 5, false),
            ("z", 3, false)
        ]
    );
    let w = wrap::wrapper_verilog("tiny", &ports, clock).unwrap();
    assert_eq!((w.in_bits, w.out_bits, w.xor_stages, w.xor_regs), (8, 8, 2, 3));
    let header: Vec<&str> = w.verilog.lines().filter(|l| l.starts_with("module ")).collect();
    assert_eq!(
        header,
        [format!("module {}(input clk, input din, output dout);", wrap::WRAP_TOP)]
    );
    for c in [
        ".clock(clk)",
        ".a(in_r[3:0])",
        ".b(in_r[6:4])",
        ".s(in_r[7:7])",
        ".y(out_w[4:0])",
        ".z(out_w[7:5])",
    ] {
        assert!(w.verilog.contains(c), "{c} missing:\n{}", w.verilog);
    }
    let dir = scratch("wrap-tiny");
    std::fs::write(dir.join("tiny.v"), TINY).unwrap();
    std::fs::write(dir.join("wrap.v"), &w.verilog).unwrap();
    // Icarus elaborates it and shifting 8 bits in puts them on the ports, first bit in at the top.
    let tb = format!(
        "module tb; reg clk = 0; reg din = 0; wire dout; integer i; reg [7:0] pat = 8'b1011_0110;\n\
         {} w(.clk(clk), .din(din), .dout(dout));\n\
         initial begin for (i = 7; i >= 0; i = i - 1) begin din = pat[i]; #1 clk = 1; #1 clk = 0; end\n\
         $display(\"a=%b b=%b s=%b\", w.u.a, w.u.b, w.u.s); $finish; end endmodule\n",
        wrap::WRAP_TOP
    );
    std::fs::write(dir.join("tb.v"), tb).unwrap();
    let vvp = dir.join("tb.vvp");
    let c = std::process::Command::new("iverilog")
        .arg("-o")
        .arg(&vvp)
        .args([dir.join("tb.v"), dir.join("wrap.v"), dir.join("tiny.v")])
        .output()
        .expect("iverilog");
    assert!(c.status.success(), "{}", String::from_utf8_lossy(&c.stderr));
    let r = std::process::Command::new("vvp").arg(&vvp).output().expect("vvp");
    let so = String::from_utf8_lossy(&r.stdout);
    // in_r = 1011_0110 (bit 7 first in): a = in_r[3:0], b = in_r[6:4], s = in_r[7].
    assert!(so.contains("a=0110 b=011 s=1"), "{so}");
    // yosys keeps every flip-flop: nothing of the block's IO is optimised away.
    let stat = dir.join("stat.json");
    let y = std::process::Command::new("yosys")
        .arg("-q")
        .arg("-p")
        .arg(format!(
            "read_verilog {} {}; synth -top {}; tee -q -o {} stat -json",
            dir.join("tiny.v").display(),
            dir.join("wrap.v").display(),
            wrap::WRAP_TOP,
            stat.display()
        ))
        .output()
        .unwrap();
    assert!(y.status.success(), "{}", String::from_utf8_lossy(&y.stderr));
    let cells = parse_yosys_stat(&std::fs::read_to_string(&stat).unwrap(), "stat.json").unwrap();
    let ffs: u64 = cells.iter().filter(|(t, _)| t.contains("DFF")).map(|(_, n)| n).sum();
    assert_eq!(ffs, (w.in_bits + 5 + w.out_bits + w.xor_regs) as u64, "{cells:?}");
}

/// The wrapper of every raster-core block of the ice40 preset registers exactly the ports the
/// co-simulation's port table has (same parser, checked against the compiled-in table), and
/// Icarus elaborates one of them with the real RTL.
#[test]
fn wrapper_of_real_blocks_matches_the_cosim_port_table() {
    let root = repo_root();
    // The core's files (its list): a block's module may be another preset's (packaging).
    let files = tilerast_fpga::rtl_sources(&root, "tilerast_ice40").unwrap();
    let text: String = files.iter().map(|f| std::fs::read_to_string(f).unwrap()).collect();
    for stage in tilerast_golden::stages::RASTER_CORE_STAGES {
        let d = tilerast_cosim::blocks::block_desc("ice40", stage).expect(stage);
        let module = d.module.to_string();
        let (ports, clock) = wrap::module_ports(&text, "rtl-out/tilerast_ice40.f", &module).unwrap();
        let w = wrap::wrapper_verilog(&module, &ports, clock).unwrap();
        assert!(clock, "{module}");
        assert_eq!((w.in_bits, w.out_bits), (d.in_bits, d.out_bits), "{module}");
        // Four bits per registered XOR stage down to one.
        let s = w.xor_stages;
        assert!(
            4u32.pow(s - 1) < w.out_bits && w.out_bits <= 4u32.pow(s),
            "{module}: {s}"
        );
    }
    let qp = tilerast_cosim::blocks::block_desc("ice40", "quad_packer")
        .unwrap()
        .module;
    let (ports, clock) = wrap::module_ports(&text, "x", qp).unwrap();
    let w = wrap::wrapper_verilog(qp, &ports, clock).unwrap();
    let dir = scratch("wrap-quad_packer");
    std::fs::write(dir.join("wrap.v"), &w.verilog).unwrap();
    let c = std::process::Command::new("iverilog")
        .args(["-o", "/dev/null", "-s", wrap::WRAP_TOP])
        .arg(dir.join("wrap.v"))
        .args(&files)
        .output()
        .expect("iverilog");
    assert!(c.status.success(), "{}", String::from_utf8_lossy(&c.stderr));
    // A module that is not there, or without outputs: one line naming it.
    let e = match wrap::module_ports(&text, "rtl-out/tilerast_ice40.f", "tilerast_ice40__nope") {
        Err(e) => e.0,
        Ok(_) => panic!("found a module that does not exist"),
    };
    one_line(&e);
    assert_eq!(e, "rtl-out/tilerast_ice40.f: module `tilerast_ice40__nope` not found");
    let only_in: Vec<_> = ports.into_iter().filter(|p| p.input).collect();
    let e = wrap::wrapper_verilog("m", &only_in, true).unwrap_err().0;
    assert_eq!(e, "m: no output ports, nothing to time");
}

/// The wrapper's pins are the board's clock and UART pins, renamed; no other port, no frequency
/// (nextpnr's `--freq` is the constraint).
#[test]
fn wrapper_constraints_take_three_pins_from_the_board_file() {
    for b in BOARDS.iter() {
        let text = std::fs::read_to_string(repo_root().join(b.constraints)).unwrap();
        let c = wrap::wrapper_constraints(b, &text, b.constraints).unwrap_or_else(|e| panic!("{e}"));
        let lines: Vec<&str> = c.lines().filter(|l| !l.starts_with('#')).collect();
        match b.family {
            Family::Ice40 => {
                let pins: Vec<&str> = lines.iter().map(|l| l.split_whitespace().nth(2).unwrap()).collect();
                assert_eq!(pins, ["clk", "din", "dout"], "{}: {c}", b.name);
                // The pins are the board's: clk's pin is the one on the board's clk line.
                let clk_pin = text
                    .lines()
                    .find(|l| l.starts_with("set_io") && l.split_whitespace().nth(2) == Some("clk"))
                    .unwrap()
                    .split_whitespace()
                    .nth(3)
                    .unwrap();
                assert_eq!(lines[0], format!("set_io -nowarn clk {clk_pin}"));
            }
            Family::Ecp5 => {
                assert_eq!(lines.len(), 6, "{c}");
                for p in ["clk", "din", "dout"] {
                    assert!(
                        lines
                            .iter()
                            .any(|l| l.starts_with(&format!("LOCATE COMP \"{p}\" SITE "))),
                        "{c}"
                    );
                }
                assert!(c.contains("LOCATE COMP \"clk\" SITE \"G2\";"), "{c}");
            }
        }
        assert!(
            !c.contains("uart") && !c.contains("led") && !c.to_lowercase().contains("freq"),
            "{c}"
        );
    }
    let b = board("hx8k").unwrap();
    let e = wrap::wrapper_constraints(b, "set_io clk J3\nset_io uart_tx B12\n", "x.pcf")
        .unwrap_err()
        .0;
    assert_eq!(e, "x.pcf: no pin for port `uart_rx` (the block wrapper needs it)");
}

/// A block row gets its Fmax, placed LCs and critical path from nextpnr's report (the captured
/// UP5K report above; numbers from its log), and the table shows them against the goal.
#[test]
fn block_row_takes_fmax_from_the_nextpnr_report() {
    let b = board("icebreaker").unwrap();
    let text = data("coverage_up5k.report.json");
    let p = parse_nextpnr_report(&text, "r.json").unwrap();
    let cells = parse_yosys_stat(&data("coverage_up5k.stat.json"), "s.json").unwrap();
    let mut row = report::BlockRow::new(b, "ice40", "subtile_coverage", "tilerast_ice40__coverage", &cells, 1.0);
    assert_eq!(row.fmax_mhz, None);
    assert_eq!(row.target_mhz, b.goal_mhz);
    row.set_pnr(Family::Ice40, &p);
    assert!((row.fmax_mhz.unwrap() - COV_FMAX).abs() < 0.01, "{:?}", row.fmax_mhz);
    assert_eq!(row.pnr_lc.unwrap().used, COV_LC_USED);
    let cp = report::parse_critical_path(&text, "r.json", &p.clocks[0].clock)
        .unwrap()
        .expect("a reg -> reg path");
    // One clock: the critical path is the period at Fmax.
    assert!((cp.ns - 1000.0 / COV_FMAX).abs() < 0.05, "{cp:?}");
    assert!(cp.routing_ns > 0.0 && cp.routing_ns < cp.ns, "{cp:?}");
    assert_eq!(
        (cp.from.as_str(), cp.to.as_str()),
        // The launching flip-flop (the clock-to-out segment's output), not the first LUT.
        ("u.et0.tx_min_SB_DFF_Q_DFFLC", "u.et0.e_min_SB_LUT4_I1_LC")
    );
    assert_eq!(report::parse_critical_path(&text, "r.json", "other_clk").unwrap(), None);
    assert!(
        cp.summary().starts_with("u.et0.tx_min -> u.et0.e_min, 34.7 ns ("),
        "{}",
        cp.summary()
    );
    assert_eq!(report::short_cell("u.rem_y.q_SB_DFF_Q_5_D_SB_LUT4_O_LC"), "u.rem_y.q");
    assert_eq!(report::short_cell("u.x$CARRY"), "u.x");
    assert_eq!(report::short_cell("plain"), "plain");
    let t = report::blocks_markdown(std::slice::from_ref(&row));
    assert_eq!(
        t.lines().nth(2).unwrap(),
        format!("| up5k | ice40 | subtile_coverage | {COV_LUTS} | 739 | {COV_CARRIES} | 0 | 0 | 28.9 | 48 |")
    );
    // Round trip; rows written before Fmax was measured still load.
    let back: report::BlockRow = serde_json::from_str(&serde_json::to_string(&row).unwrap()).unwrap();
    assert_eq!(back, row);
    let old = r#"{"device":"hx8k","preset":"ice40","block":"setup","module":"m","secs":1.0,
        "counts":{"luts":1,"ffs":2,"carries":3,"bram":0,"dsp":0,"other":0}}"#;
    let old: report::BlockRow = serde_json::from_str(old).unwrap();
    assert_eq!((old.fmax_mhz, old.fmax_cell()), (None, "—".to_string()));
    // A block that did not fit shows why instead of a number.
    let mut nofit = row.clone();
    nofit.fmax_mhz = None;
    nofit.pnr_lc = Some(report::Util {
        used: 9000,
        available: 7680,
    });
    nofit.pnr_failure = Some("step x failed".into());
    assert_eq!(nofit.fmax_cell(), "— (no fit: 9000 of 7680 LCs)");
    let e = report::parse_critical_path("{}", "r.json", "c").unwrap_err().0;
    assert_eq!(e, "r.json: field `critical_paths`: missing or not an array");
}

/// `synth --table --update-readme`: each generated table between its own markers; the prose
/// before, between and after them, and the table that is not given, stay byte for byte.
#[test]
fn readme_update_keeps_prose_and_the_other_table() {
    use report::{BEGIN, BLOCKS_BEGIN, BLOCKS_END, END};
    let readme = format!(
        "# x\n\n## FPGA\n\nintro prose\n{BEGIN}\n| old boards |\n{END}\n\nprose between, **kept**\n\n\
         {BLOCKS_BEGIN}\n| old blocks |\n{BLOCKS_END}\nprose after\n\n## Benchmarks\n\nbench\n"
    );
    let new = report::update_readme(&readme, None, None, Some("| new blocks |\n"), "README.md").unwrap();
    assert_eq!(new, readme.replace("| old blocks |", "| new blocks |"));
    let new = report::update_readme(&readme, Some("| new boards |"), None, None, "README.md").unwrap();
    assert_eq!(new, readme.replace("| old boards |", "| new boards |"));
    let both = report::update_readme(&readme, Some("| b1 |"), None, Some("| b2 |"), "README.md").unwrap();
    assert_eq!(
        both,
        readme
            .replace("| old boards |", "| b1 |")
            .replace("| old blocks |", "| b2 |")
    );
    assert_eq!(
        report::update_readme(&readme, None, None, None, "README.md").unwrap(),
        readme
    );
    // No block markers yet: they go at the end of the FPGA section, before the next heading.
    let no_blocks = format!("# x\n\n## FPGA\n\nintro\n{BEGIN}\n| t |\n{END}\n\nmore prose\n\n## Benchmarks\n\nbench\n");
    let new = report::update_readme(&no_blocks, None, None, Some("| blk |"), "README.md").unwrap();
    assert_eq!(
        new,
        format!(
            "# x\n\n## FPGA\n\nintro\n{BEGIN}\n| t |\n{END}\n\nmore prose\n\n{BLOCKS_BEGIN}\n| blk |\n{BLOCKS_END}\n\n## Benchmarks\n\nbench\n"
        )
    );
    // ... and the next update replaces only the table.
    let again = report::update_readme(&new, None, None, Some("| blk2 |"), "README.md").unwrap();
    assert_eq!(again, new.replace("| blk |", "| blk2 |"));
    let e = report::update_readme("# x\n", None, None, Some("t"), "README.md")
        .unwrap_err()
        .0;
    one_line(&e);
    assert!(e.starts_with("README.md: no `## FPGA` section"), "{e}");
    // Block markers inside the board table's would be wiped by the next board update.
    let nested = format!("## FPGA\n{BEGIN}\n{BLOCKS_BEGIN}\n{BLOCKS_END}\n{END}\n");
    let e = report::update_readme(&nested, None, None, Some("t"), "README.md")
        .unwrap_err()
        .0;
    assert!(
        e.starts_with("README.md:3: ") && e.contains("inside the board table's markers"),
        "{e}"
    );
    let twice = format!("## FPGA\n{BLOCKS_BEGIN}\n{BLOCKS_END}\n{BLOCKS_BEGIN}\n");
    let e = report::update_readme(&twice, None, None, Some("t"), "README.md")
        .unwrap_err()
        .0;
    assert_eq!(e, format!("README.md:4: marker `{BLOCKS_BEGIN}` appears twice"));
}

/// The repository's measurements document (`docs/measurements.md`, which `synth --table
/// --update-readme` rewrites) has its three marker pairs in the FPGA section, in order (boards,
/// board tops with a screen, blocks; none inside another), and prose outside them.
#[test]
fn measurements_doc_has_its_marker_pairs_in_the_fpga_section() {
    use report::{BEGIN, BLOCKS_BEGIN, BLOCKS_END, END, FRAME_BEGIN, FRAME_END};
    const DOC: &str = "docs/measurements.md";
    let text = std::fs::read_to_string(repo_root().join(DOC)).unwrap();
    let at = |m: &str| text.find(m).unwrap_or_else(|| panic!("{DOC}: {m} missing"));
    let fpga = at("\n## FPGA\n");
    let next = fpga + 1 + text[fpga + 1..].find("\n## ").unwrap();
    let (b, e, bb, be) = (at(BEGIN), at(END), at(BLOCKS_BEGIN), at(BLOCKS_END));
    let (fb, fe) = (at(FRAME_BEGIN), at(FRAME_END));
    assert!(
        fpga < b && b < e && e < fb && fb < fe && fe < bb && bb < be && be < next,
        "{b} {e} {fb} {fe} {bb} {be}"
    );
    // Between each pair: a generated table only (header, rule, rows).
    for (x, y, m) in [(b, e, BEGIN), (fb, fe, FRAME_BEGIN), (bb, be, BLOCKS_BEGIN)] {
        for l in text[x + m.len()..y].lines().filter(|l| !l.is_empty()) {
            assert!(l.starts_with('|'), "{DOC}: prose inside {m}: {l}");
        }
    }
    // The update is a fixed point on the document's own tables.
    let boards = text[b + BEGIN.len()..e].trim().to_string();
    let blocks = text[bb + BLOCKS_BEGIN.len()..be].trim().to_string();
    let frames = text[fb + FRAME_BEGIN.len()..fe].trim().to_string();
    let again = report::update_readme(&text, Some(&boards), Some(&frames), Some(&blocks), DOC).unwrap();
    assert!(again == text, "{DOC}: updating with its own tables changed it");
}

/// A step over its time limit is stopped (not waited for) and says so in one line; a block row
/// stopped that way shows it instead of an Fmax.
#[test]
fn step_time_limit_stops_the_tool() {
    let dir = scratch("limit");
    let step = tilerast_fpga::flow::Step {
        name: "sleepy".into(),
        program: "sh".into(),
        args: vec!["-c".into(), "echo routing; sleep 30".into()],
        log: dir.join("sleepy.log"),
    };
    let t = std::time::Instant::now();
    let e = step
        .run_limited(&dir, &mut Vec::new(), Some(std::time::Duration::from_secs(1)))
        .unwrap_err()
        .0;
    assert!(t.elapsed().as_secs_f64() < 10.0, "{:?}", t.elapsed());
    one_line(&e);
    assert!(
        e.starts_with("step sleepy stopped after 1 s (time limit), see ") && e.ends_with("sleepy.log: routing"),
        "{e}"
    );
    // Within the limit it is an ordinary step.
    let quick = tilerast_fpga::flow::Step {
        args: vec!["-c".into(), "true".into()],
        ..step
    };
    quick
        .run_limited(&dir, &mut Vec::new(), Some(std::time::Duration::from_secs(20)))
        .unwrap();
    let b = board("ulx3s").unwrap();
    let mut row = report::BlockRow::new(b, "default", "blender", "m", &Default::default(), 1.0);
    row.pnr_failure = Some(e);
    row.pnr_timeout_secs = Some(600.0);
    assert_eq!(row.fmax_cell(), "— (P&R not done in 10 min)");
    // Stopped while routing: the placer's estimate (the first "Max frequency" line) is shown
    // as such. The lines are nextpnr-ecp5's, from the blender's log.
    let log = "Info: Running simulated annealing placer for refinement.\n\
               Info: Max frequency for clock '$glbnet$clk$TRELLIS_IO_IN': 39.57 MHz (FAIL at 100.00 MHz)\n\
               Info:     iter=63 wires=170808 overused=1418 overuse=1422 archfail=NA\n";
    assert_eq!(report::parse_nextpnr_log_fmax(log), [39.57]);
    row.placed_fmax_mhz = report::parse_nextpnr_log_fmax(log).first().copied();
    assert_eq!(row.fmax_cell(), "— (routing not done in 10 min; placed: 39.6)");
    row.pnr_timeout_secs = None;
    assert_eq!(row.fmax_cell(), "— (P&R failed; placed: 39.6)");
    // A finished run: estimate first, routed last (from tests/data/coverage_up5k.log).
    assert_eq!(
        report::parse_nextpnr_log_fmax(&data("coverage_up5k.log")),
        [30.88, COV_FMAX]
    );
    assert_eq!(row.target_mhz, 100.0);
}

/// `--only`: the named block is measured again (sizes only here, `--no-pnr`), the other rows of
/// the last run's blocks.json stay, in pipeline order. Runs in a scratch root (rtl-out/ and
/// constraints/ linked) so that no real measurement is touched.
#[test]
fn blocks_only_replaces_just_the_named_rows() {
    let root = scratch("only-root");
    for d in ["rtl-out", "constraints"] {
        let link = root.join(d);
        if !link.exists() {
            std::os::unix::fs::symlink(repo_root().join(d).canonicalize().unwrap(), &link).unwrap();
        }
    }
    let b = board("hx8k").unwrap();
    let dir = root.join("target/fpga/blocks-ice40-hx8k");
    std::fs::create_dir_all(&dir).unwrap();
    let fake = |block: &str, secs: f64| {
        let mut r = report::BlockRow::new(b, "ice40", block, "m", &Default::default(), secs);
        r.fmax_mhz = Some(1.0);
        r
    };
    // Last run's file: quad_packer before setup (order is restored), both fake.
    let last = vec![fake("quad_packer", 111.0), fake("setup", 222.0)];
    std::fs::write(dir.join("blocks.json"), serde_json::to_string(&last).unwrap()).unwrap();
    let opts = tilerast_fpga::flow::BlockOpts {
        pnr: false,
        only: vec!["quad_packer".into()],
        ..Default::default()
    };
    let rows =
        tilerast_fpga::flow::synth_blocks(b, "ice40", &root, &opts, &mut Vec::new()).unwrap_or_else(|e| panic!("{e}"));
    assert_eq!(rows.len(), 1);
    assert_eq!(rows[0].block, "quad_packer");
    let now: Vec<report::BlockRow> =
        serde_json::from_str(&std::fs::read_to_string(dir.join("blocks.json")).unwrap()).unwrap();
    let names: Vec<&str> = now.iter().map(|r| r.block.as_str()).collect();
    assert_eq!(names, ["setup", "quad_packer"]);
    assert_eq!(now[0], last[1], "setup's row kept as it was");
    assert_ne!(now[1].secs, 111.0);
    assert!(now[1].counts.luts > 0 && now[1].fmax_mhz.is_none(), "{:?}", now[1]);
    let e = tilerast_fpga::flow::synth_blocks(
        b,
        "ice40",
        &root,
        &tilerast_fpga::flow::BlockOpts {
            only: vec!["nope".into()],
            ..opts
        },
        &mut Vec::new(),
    )
    .unwrap_err()
    .0;
    one_line(&e);
    assert!(
        e.starts_with("--only: no block `nope` in preset ice40 (blocks: setup, "),
        "{e}"
    );
}

/// A core's block that packaging made another preset's module (ice40_1x's quad_packer is
/// ice40's with another constant) is synthesized through a wrapper under the block's own name
/// that passes the core's overrides: the block measured is the one the core builds.
#[test]
fn blocks_of_a_packaged_core_carry_their_overrides() {
    let root = scratch("override-root");
    for d in ["rtl-out", "constraints"] {
        let link = root.join(d);
        if !link.exists() {
            std::os::unix::fs::symlink(repo_root().join(d).canonicalize().unwrap(), &link).unwrap();
        }
    }
    let core = std::fs::read_to_string(root.join("rtl-out/tilerast_ice40_1x.v")).unwrap();
    let parent = tilerast_hw::emit::modules(&core)
        .into_iter()
        .find(|(n, _)| n == "tilerast_ice40_1x")
        .unwrap()
        .1;
    let (module, params) = tilerast_hw::package::instance_module(&parent, "quad_packer").unwrap();
    assert_ne!(module, "tilerast_ice40_1x__quad_packer", "the premise: a shared module");
    assert!(params.starts_with("#(."), "{params}");
    let opts = tilerast_fpga::flow::BlockOpts {
        pnr: false,
        only: vec!["quad_packer".into()],
        ..Default::default()
    };
    let b = board("hx8k").unwrap();
    let rows = tilerast_fpga::flow::synth_blocks(b, "ice40_1x", &root, &opts, &mut Vec::new())
        .unwrap_or_else(|e| panic!("{e}"));
    assert_eq!(rows[0].module, "tilerast_ice40_1x__quad_packer");
    assert!(rows[0].counts.luts > 0, "{:?}", rows[0]);
    let wrapper =
        std::fs::read_to_string(root.join("target/fpga/blocks-ice40_1x-hx8k/tilerast_ice40_1x__quad_packer.v"))
            .unwrap();
    let inner = params.trim_start_matches("#(").trim_end_matches(')');
    for o in inner.split(", ") {
        assert!(wrapper.contains(&format!("        {o}")), "{o} missing from\n{wrapper}");
    }
    assert!(wrapper.contains(&format!("    {module} #(\n")), "{wrapper}");
}

/// router2's iteration lines, as nextpnr 0.11 prints them.
fn router2_lines(overuse: &[(u64, u64)]) -> String {
    overuse
        .iter()
        .map(|(i, o)| format!("Info:     iter={i} wires=600000 overused={o} overuse={o} archfail=NA\n"))
        .collect()
}

/// The first iteration (counting every prefix of the log, line by line) at which the watch
/// stops the run, and its reason.
fn first_stop(log: &str) -> Option<(usize, String)> {
    let lines: Vec<&str> = log.lines().collect();
    (1..=lines.len()).find_map(|n| {
        report::router2_divergence(&lines[..n].join("\n")).map(|why| {
            let it = report::parse_router2_overuse(&lines[..n].join("\n"));
            (it.len(), why)
        })
    })
}

#[test]
fn router2_watch_never_stops_a_converging_run() {
    // The ULX3S `full` core at seed 2 (2026-11-26), captured: 39 iterations, 67 533 → 0 with
    // a plateau at 3 (iterations 29–34) and 2 (35–37).
    let log = data("router2_converged.log");
    let it = report::parse_router2_overuse(&log);
    assert_eq!(it.len(), 39);
    assert_eq!(it[0], (1, 67533));
    assert_eq!(it[28], (29, 3));
    assert_eq!(*it.last().unwrap(), (39, 0));
    assert_eq!(first_stop(&log), None);
    // A plateau of a few wires that bounces (1, 2, 3, 2, …) for 79 iterations is neither a
    // divergence (not 100 wires above its lowest) nor, yet, a stall.
    let mut v: Vec<(u64, u64)> = (1..=38).map(|i| (i, 40 - i)).collect();
    v.extend((39..=117).map(|i| (i, 2 + i % 2)));
    assert_eq!(v[37], (38, 2));
    assert_eq!(first_stop(&router2_lines(&v)), None);
}

#[test]
fn router2_watch_stops_a_diverging_or_stalled_run_at_the_predicted_iteration() {
    // The ULX3S `full` core at seed 3 (2026-11-26), captured until it was stopped by hand at
    // iteration 91: lowest 59 at iteration 48, then 857 at 78 (≥ 2 × 59, ≥ 59 + 100, 30
    // iterations on: the first stop), 2 786 at 91.
    let log = data("router2_diverged.log");
    let it = report::parse_router2_overuse(&log);
    assert_eq!(
        (it.len(), it[47], it[77], *it.last().unwrap()),
        (91, (48, 59), (78, 857), (91, 2786))
    );
    assert_eq!(
        first_stop(&log),
        Some((
            78,
            "router2 diverged: overuse 59 at iteration 48, 857 at iteration 78".to_string()
        ))
    );
    // Shaped on the `full` core's seed-1 run of 2026-11-26: lowest 176 at iteration 42, then
    // rising (here by 50 per iteration). Diverged when 30 iterations have passed since the
    // lowest (iteration 72) and the overuse is ≥ 2 × 176 and ≥ 176 + 100: at 72, 1 676.
    let mut v: Vec<(u64, u64)> = (1..=42).map(|i| (i, 176 + (42 - i) * 500)).collect();
    v.extend((43..=90).map(|i| (i, 176 + (i - 42) * 50)));
    assert_eq!(
        first_stop(&router2_lines(&v)),
        Some((
            72,
            "router2 diverged: overuse 176 at iteration 42, 1676 at iteration 72".to_string()
        ))
    );
    // Stuck around 19 000 (router2's alternative weights on the same core): lowest 18 500 at
    // iteration 10, never twice that; stalled 80 iterations later.
    let v: Vec<(u64, u64)> = (1..=120)
        .map(|i| (i, if i == 10 { 18500 } else { 19000 + (i % 3) * 200 }))
        .collect();
    assert_eq!(
        first_stop(&router2_lines(&v)),
        Some((
            90,
            "router2 stalled: overuse 18500 at iteration 10, none lower by iteration 90 (19000)".to_string()
        ))
    );
    // Only router2's lines count: the static placer's `iter=N steplen=…` lines are not.
    assert!(report::parse_router2_overuse("Info: iter=43 steplen=0.388292 a=23.283461 penalty=[0.00]").is_empty());
}

#[test]
fn watched_step_is_killed_when_the_watch_says_so() {
    let dir = repo_root().join("target/fpga/tests/watch");
    std::fs::create_dir_all(&dir).unwrap();
    let step = |script: &str| Step {
        name: "2-nextpnr".into(),
        program: "sh".into(),
        args: vec!["-c".into(), script.into()],
        log: dir.join("2-nextpnr.log"),
    };
    let watch: &Watch = &report::router2_divergence;
    // Rising from 1 100 at iteration 1 to 5 000 at 40, then a sleep the watch must cut short
    // (if it did not, the step would end Done after 30 s).
    let diverging = "for i in $(seq 1 40); do echo \"Info:     iter=$i wires=1 overused=1 overuse=$((1000 + i * 100)) archfail=NA\"; done; sleep 30";
    let mut out = Vec::new();
    let r = step(diverging)
        .run_watched(&repo_root(), &mut out, None, Some(watch))
        .unwrap();
    match r {
        Outcome::Stopped(why) => assert!(
            why.ends_with(": router2 diverged: overuse 1100 at iteration 1, 5000 at iteration 40"),
            "{why}"
        ),
        other => panic!("not stopped: {other:?}"),
    }
    // A converging run ends normally.
    let converging =
        "for i in $(seq 1 40); do echo \"Info:     iter=$i wires=1 overused=1 overuse=$((40 - i)) archfail=NA\"; done";
    let r = step(converging)
        .run_watched(&repo_root(), &mut out, None, Some(watch))
        .unwrap();
    assert!(matches!(r, Outcome::Done(_)), "{r:?}");
}
