//! rust-hdl simulation of the sub-tile coverage block against its cycle model
//! (`tilerast_golden::subtile_coverage::SubtileCoverageCycle`): the same random stimulus (random
//! input gaps, random `out_ready` with long stalls, a few `flush` pulses) drives both, and every
//! output port (`in_ready`, `out_valid` and every payload field) is compared on every cycle.
//! Candidates are the tile parser's walk of random triangles (via its cycle model) mixed with
//! random-field candidates; presets `ice40`, `default`, `full`, plus a viewport that clips
//! sub-tiles and the `Samples` / `BboxOnly` coverage modes. Plus Verilog emission per preset,
//! linted with `verilator --lint-only -Wall`.

mod common;

use common::Run;
use tilerast_golden::config::{Config, CoverageTest};
use tilerast_golden::subtile_coverage::SubtileCoverageCycle;
use tilerast_hw::subtile_coverage::SubtileCoverage;

use tilerast_verif::stim::candidates;
use tilerast_verif::{Flush, Handshake, Pattern};

/// Run the block and the model side by side for `cycles` cycles; panics at a difference with
/// the cycle number and both values. 20 % input gaps, 80 % ready with stalls of 5-30 cycles, a
/// flush every ~300 cycles.
fn cosim(cfg: Config, seed: u64, cycles: u64) {
    let inputs = candidates(&cfg, seed, cycles as usize);
    let ready = Pattern::RandomStalls {
        pct: 80,
        permille: 25,
        min: 5,
        max: 30,
    };
    let hs = Handshake::new(Pattern::gaps(20), ready).with_flush(Flush::Random { permille: 3 });
    let r = Run::new(hs, seed, cycles).go(SubtileCoverage::new(&cfg), SubtileCoverageCycle::new(&cfg), inputs);
    let trivial = r.outputs().filter(|j| j.trivial).count();
    let none = r.outputs().filter(|j| j.cand.none).count();
    println!("{}: {} ({trivial} trivial, {none} none)", cfg.name, r.summary());
    r.assert_clean(&cfg.name);
    assert!(
        r.transferred > cycles / 8 && r.accepted > cycles / 4,
        "{}: too little traffic: {}",
        cfg.name,
        r.summary()
    );
}

#[test]
fn rtl_matches_cycle_model_ice40() {
    cosim(Config::preset("ice40").unwrap(), 0x1ce40, 3000);
}

#[test]
fn rtl_matches_cycle_model_default() {
    cosim(Config::preset("default").unwrap(), 0xdefa17, 2000);
}

#[test]
fn rtl_matches_cycle_model_full() {
    cosim(Config::preset("full").unwrap(), 0xf011, 2000);
}

/// A viewport that is not a multiple of the sub-tile (clipped sub-tiles), in all three modes.
#[test]
fn rtl_matches_cycle_model_clipped_viewport_all_modes() {
    for (i, mode) in [CoverageTest::Edge, CoverageTest::Samples, CoverageTest::BboxOnly]
        .into_iter()
        .enumerate()
    {
        let mut cfg = Config::preset("default").unwrap();
        cfg.viewport = [100, 75];
        cfg.msaa = [8, 1, 16][i];
        cfg.coverage_test = mode;
        cfg.validate().unwrap();
        cosim(cfg, 0xc11e + i as u64, 1000);
    }
}

#[test]
fn verilog_lints_clean() {
    // Every preset's Verilog of this block: ranged constants, and `verilator --lint-only -Wall`
    // clean with the project's one waiver file (hw/lint/waivers.vlt).
    for p in tilerast_golden::PRESETS {
        let cfg = tilerast_golden::Config::preset(p).unwrap();
        let top = format!("subtile_coverage_{p}");
        let v = tilerast_hw::subtile_coverage::verilog(&cfg, &top);
        assert!(tilerast_hw::emit::rangeless_signed_localparams(&v).is_empty(), "{top}");
        if let Err(msg) = tilerast_hw::emit::lint(&v, &top) {
            panic!("{top}: lint:\n{msg}");
        }
    }
}
