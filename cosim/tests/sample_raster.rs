//! Verilator co-simulation of the `sample_raster` block alone (`tilerast_<preset>__sample` in
//! `rtl-out/`) against its cycle model `SampleRasterCycle`, every port on every cycle (harness:
//! `tilerast_cosim::blocks`). Stimulus (the generators of `hw/tests/sample_raster.rs`): jobs
//! golden setup + sub-tile coverage produce for random triangles, and synthetic jobs whose E
//! values sit anywhere in the 48-bit range and right at the RTL's clamp thresholds ±2^(M+4),
//! coefficients up to the guard-band bounds, random `trivial` / `none` / `last`, viewport
//! clipping; input gaps with junk payloads, random ready with long stalls, two flushes; 40 000
//! cycles per preset. Plus: a model broken at one cycle is caught there, on that port.

use tilerast_cosim::blocks::cosim_block;
use tilerast_golden::config::Config;
use tilerast_golden::sample_raster::{SampleRasterCycle, SampleRasterPorts};

mod common;
use common::{clean, expect_caught, stim, Perturb};
use tilerast_verif::stim::jobs;

fn run(preset: &str, seed: u64) {
    let cfg = Config::preset(preset).unwrap();
    let s = stim(seed, 40_000);
    let r = clean(
        &format!("{preset}/sample_raster"),
        cosim_block::<SampleRasterPorts, _>(preset, SampleRasterCycle::new(&cfg), &jobs(&cfg, seed, 3000), &s),
        &s,
    );
    let o = &r.outputs;
    let full = (1u8 << cfg.quads_per_clock) - 1;
    let quads: u32 = o.iter().map(|b| b.lane_valid.count_ones()).sum();
    let all = u64::MAX >> (64 - 4 * cfg.msaa);
    let all_samples = o.iter().flat_map(|b| b.mask).filter(|&m| m == all).count();
    println!("  {} beats, {quads} quads, {all_samples} fully covered", o.len());
    assert!(o.iter().any(|b| b.lane_valid == full), "no full beat");
    assert!(
        cfg.quads_per_clock == 1 || o.iter().any(|b| b.lane_valid != full && b.lane_valid != 0),
        "no partial beat"
    );
    assert!(o.iter().any(|b| b.last && b.lane_valid == 0), "no empty last beat");
    assert!(
        all_samples > 0
            && o.iter()
                .flat_map(|b| b.mask)
                .any(|m| m != 0 && m.count_ones() < 4 * cfg.msaa)
    );
}

per_preset!(run, 0x5a);

#[test]
fn a_broken_model_is_caught_at_its_cycle_and_port() {
    let cfg = Config::preset("default").unwrap();
    let s = stim(11, 8_000);
    let m = Perturb::new(SampleRasterCycle::new(&cfg), 4_444, |b| b.mask[1] ^= 0x10);
    let r = cosim_block::<SampleRasterPorts, _>("default", m, &jobs(&cfg, 11, 500), &s);
    expect_caught(r, 4_444, "out__mask_1", 0x10);
}
