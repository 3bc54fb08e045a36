//! rust-hdl simulation of the tile parser block against its cycle model
//! (`tilerast_golden::tile_parser::TileParserCycle`): the same random stimulus (random input
//! gaps, random `out_ready` with long stalls, a few `flush` pulses) drives both, and every
//! output port (`in_ready`, `out_valid` and every payload field) is compared on every cycle.
//! Plus Verilog emission per preset, linted with `verilator --lint-only -Wall`.

mod common;

use common::Run;
use tilerast_golden::config::Config;
use tilerast_golden::tile_parser::TileParserCycle;
use tilerast_hw::tile_parser::TileParser;

use tilerast_verif::stim::edges;
use tilerast_verif::{Flush, Handshake, Pattern, Rng};

/// Run the block and the model side by side for `cycles` cycles; panics at a difference with
/// the cycle number and both values. 25 % input gaps, 80 % ready with stalls of 5-30 cycles, a
/// flush every ~300 cycles.
fn cosim(preset: &str, seed: u64, cycles: u64) {
    let cfg = Config::preset(preset).unwrap();
    let inputs = edges(&cfg, &mut Rng::new(seed), 1000);
    let ready = Pattern::RandomStalls {
        pct: 80,
        permille: 25,
        min: 5,
        max: 30,
    };
    let hs = Handshake::new(Pattern::gaps(25), ready).with_flush(Flush::Random { permille: 3 });
    let r = Run::new(hs, seed, cycles).go(TileParser::new(&cfg), TileParserCycle::new(&cfg), inputs);
    println!("{preset}: {}", r.summary());
    r.assert_clean(preset);
    assert!(
        r.transferred > cycles / 4 && r.accepted > 20,
        "{preset}: too little traffic: {}",
        r.summary()
    );
}

#[test]
fn rtl_matches_cycle_model_ice40() {
    cosim("ice40", 0x1ce40, 3000);
}

#[test]
fn rtl_matches_cycle_model_default() {
    cosim("default", 0xdefa17, 2000);
}

#[test]
fn rtl_matches_cycle_model_full() {
    cosim("full", 0xf011, 1500);
}

#[test]
fn verilog_lints_clean() {
    // Every preset's Verilog of this block: ranged constants, and `verilator --lint-only -Wall`
    // clean with the project's one waiver file (hw/lint/waivers.vlt).
    for p in tilerast_golden::PRESETS {
        let cfg = tilerast_golden::Config::preset(p).unwrap();
        let top = format!("tile_parser_{p}");
        let v = tilerast_hw::tile_parser::verilog(&cfg, &top);
        assert!(tilerast_hw::emit::rangeless_signed_localparams(&v).is_empty(), "{top}");
        if let Err(msg) = tilerast_hw::emit::lint(&v, &top) {
            panic!("{top}: lint:\n{msg}");
        }
    }
}
