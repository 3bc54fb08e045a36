//! Flow runner and report tests: the iCEBreaker flow on a small design (blinky) through to a
//! bitstream and report; report parsing on a captured real nextpnr report and yosys stat (the
//! expected numbers are the ones nextpnr/yosys printed in their logs, see tests/data/);
//! error paths (unknown board, missing files, broken Verilog, malformed reports) give one line
//! naming the file / step / field.

use std::path::PathBuf;
use tilerast_fpga::flow::{config_variant, preset_variant, run_board, shell_quote, FlowOpts};
use tilerast_fpga::report::{self, parse_nextpnr_report, parse_yosys_stat, Counts};
use tilerast_fpga::{board, repo_root, Family, BOARDS};

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

/// One board table (golden's) drives the flow: every board's pins file and both Verilog sources
/// exist, nextpnr's `--freq` is the clock the top's PLL really makes, and no goal is below it.
#[test]
fn every_board_has_pins_verilog_and_a_reachable_clock() {
    let root = repo_root();
    for b in BOARDS.iter() {
        assert!(root.join(b.constraints).is_file(), "{}: {}", b.name, b.constraints);
        for f in tilerast_fpga::sources(b) {
            assert!(root.join(&f).is_file(), "{}: {f}", b.name);
        }
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
    // The variant top is read with the core it instantiates, rtl-out/tilerast_ice40.v.
    assert_eq!(o.verilog.len(), 2);
    assert_eq!(o.verilog[0], root.join("rtl-out/tilerast_ice40.v"));
    let text = std::fs::read_to_string(&o.verilog[1]).unwrap();
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
    let srcs = tilerast_fpga::sources(b);
    assert_eq!(srcs[0], "rtl-out/tilerast_ice40_1x.v");
    let shipped = std::fs::read_to_string(root.join(&srcs[1])).unwrap();
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
