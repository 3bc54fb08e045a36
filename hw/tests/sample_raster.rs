//! rust-hdl simulation of `SampleRaster` against its cycle model `SampleRasterCycle`: the same
//! stimulus drives both and every output port (valid and payload) and `in_ready` must agree on
//! every cycle. Stimulus: jobs golden setup + sub-tile coverage produce for random triangles,
//! mixed with synthetic jobs whose E values sit anywhere in the 48-bit range and right at the
//! RTL's clamp thresholds ±2^(M+4) (the narrowing must stay exact), coefficients up to the
//! guard-band bounds, random `trivial` / `none` / `last`; random input gaps, random `out_ready`
//! with long stalls, one `flush` pulse. Plus Verilog emission per preset, linted with
//! `verilator --lint-only -Wall` (skipped with a note if verilator is absent).

mod common;

use common::Run;
use tilerast_golden::config::Config;
use tilerast_golden::sample_raster::SampleRasterCycle;
use tilerast_hw::sample_raster::SampleRaster;

use tilerast_verif::stim::jobs;
use tilerast_verif::{Flush, Handshake, Pattern};

/// Co-simulate `cycles` cycles (400+ jobs from `stim::jobs`, offered over and over; 20 % input gaps, 80 % ready
/// with stalls of 10-49 cycles, one flush); panics at a difference. Returns (beats transferred,
/// valid lanes transferred).
fn cosim(preset: &str, cycles: u64, seed: u64, flush_at: u64) -> (u64, u64) {
    let cfg = Config::preset(preset).unwrap();
    let jobs = jobs(&cfg, seed, 400);
    let ready = Pattern::RandomStalls {
        pct: 80,
        permille: 20,
        min: 10,
        max: 49,
    };
    let hs = Handshake::new(Pattern::gaps(20), ready).with_flush(Flush::At(flush_at));
    let r = Run::new(hs, seed, cycles).go(
        SampleRaster::new(&cfg),
        SampleRasterCycle::new(&cfg),
        jobs.into_iter().cycle(),
    );
    let lanes: u64 = r.outputs().map(|b| b.lane_valid.count_ones() as u64).sum();
    println!("{preset}: {} ({lanes} quads)", r.summary());
    r.assert_clean(preset);
    (r.transferred, lanes)
}

#[test]
fn cosim_ice40() {
    let (beats, lanes) = cosim("ice40", 2000, 101, 900);
    assert!(beats > 300 && lanes > 300, "only {beats} beats / {lanes} quads");
}

#[test]
fn cosim_default() {
    let (beats, lanes) = cosim("default", 1200, 202, 500);
    assert!(beats > 150 && lanes > 200, "only {beats} beats / {lanes} quads");
}

#[test]
fn cosim_full() {
    let (beats, lanes) = cosim("full", 300, 303, 150);
    assert!(beats > 30 && lanes > 60, "only {beats} beats / {lanes} quads");
}

// Lint and ranged constants: every preset's core in `rtl-out/` holds this block, proven to be
// its logic and checked (`-Wall` lint, no range-less signed localparam) by `hw/tests/rtl_out.rs`.
