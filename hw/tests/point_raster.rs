//! Point rasterizer block (seed 003) in the rust-hdl simulator against its cycle model
//! `PointRasterCycle`: the same random stimulus (random point commands, input gaps, output
//! stalls, one flush) drives both, and every output port (`in_ready`, `out_valid` and the whole
//! beat payload) must agree on every cycle. Plus Verilog emission per preset, linted by
//! Verilator with `-Wall`.

mod common;

use common::Run;
use tilerast_golden::point_raster::PointRasterCycle;
use tilerast_golden::Config;
use tilerast_hw::point_raster::PointRaster;

use tilerast_verif::stim::point_cmds;
use tilerast_verif::{Flush, Handshake, Pattern, Rng};

/// Drive block and model with the same stimulus for `cycles` cycles; panics at a difference
/// with the cycle and both sides. Input and output regimes change every 64 cycles (each on
/// its own): free, random, long stall / starved, mostly free; one flush. Returns the number of
/// beats and commands transferred.
fn cosim(preset: &str, seed: u64, cycles: u64) -> (u64, u64) {
    let cfg = Config::preset(preset).unwrap();
    let cmds = point_cmds(&cfg, seed, 400);
    let flush_at = 200 + Rng::stream(seed, 1).below(cycles / 2);
    let regimes = Pattern::Regimes { period: 64 };
    let hs = Handshake::new(regimes, regimes).with_flush(Flush::At(flush_at));
    let r = Run::new(hs, seed, cycles).go(PointRaster::new(&cfg), PointRasterCycle::new(&cfg), cmds);
    println!("{preset}: {}", r.summary());
    r.assert_clean(preset);
    (r.transferred, r.accepted)
}

#[test]
fn block_equals_cycle_model_ice40() {
    let (beats, cmds) = cosim("ice40", 0x1ce4_0003, 3000);
    assert!(
        beats > 100 && cmds > 30,
        "stimulus too thin: {beats} beats, {cmds} commands"
    );
}

#[test]
fn block_equals_cycle_model_default() {
    let (beats, cmds) = cosim("default", 0xdefa_0003, 2500);
    assert!(
        beats > 100 && cmds > 30,
        "stimulus too thin: {beats} beats, {cmds} commands"
    );
}

#[test]
fn block_equals_cycle_model_full() {
    let (beats, cmds) = cosim("full", 0xf011_0003, 1500);
    assert!(
        beats > 100 && cmds > 10,
        "stimulus too thin: {beats} beats, {cmds} commands"
    );
}

#[test]
fn verilog_lints_clean() {
    // Every preset's Verilog of this block: ranged constants, and `verilator --lint-only -Wall`
    // clean with the project's one waiver file (hw/lint/waivers.vlt).
    for p in tilerast_golden::PRESETS {
        let cfg = tilerast_golden::Config::preset(p).unwrap();
        let top = format!("point_raster_{p}");
        let v = tilerast_hw::point_raster::verilog(&cfg, &top);
        assert!(tilerast_hw::emit::rangeless_signed_localparams(&v).is_empty(), "{top}");
        if let Err(msg) = tilerast_hw::emit::lint(&v, &top) {
            panic!("{top}: lint:\n{msg}");
        }
    }
}
