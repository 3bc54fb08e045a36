//! Verilator co-simulation of the `point_raster` block alone (`tilerast_<preset>__point` in
//! `rtl-out/`) against its cycle model `PointRasterCycle`, every port on every cycle (harness:
//! `tilerast_cosim::blocks`). Stimulus (the generator of `hw/tests/point_raster.rs`): point
//! commands of every size up to past `max_point_size`, fractions at the rounding edges, at tile
//! and viewport edges, missing their tile, at the extremes of the ports, AA on and off; input
//! gaps with junk payloads, random ready with long stalls, two flushes; 40 000 cycles per
//! preset. Plus: a model broken at one cycle is caught there, on that port.

use tilerast_cosim::blocks::cosim_block;
use tilerast_golden::point_raster::{PointRasterCycle, PointRasterPorts};
use tilerast_golden::Config;

mod common;
use common::{clean, expect_caught, stim, Perturb};
use tilerast_verif::stim::point_cmds as commands;

fn run(preset: &str, seed: u64) {
    let cfg = Config::preset(preset).unwrap();
    let s = stim(seed, 40_000);
    let cmds = commands(&cfg, seed, 3000);
    let r = clean(
        &format!("{preset}/point_raster"),
        cosim_block::<PointRasterPorts, _>(preset, PointRasterCycle::new(&cfg), &cmds, &s),
        &s,
    );
    let o = &r.outputs;
    let lasts = o.iter().filter(|b| b.last).count();
    let quads: u32 = o.iter().map(|b| b.lane_valid.count_ones()).sum();
    println!("  {} beats, {lasts} last, {quads} quads", o.len());
    assert!(quads > 100 && o.iter().flat_map(|b| b.mask).any(|m| m != 0));
    assert!(lasts > 0 && lasts < o.len(), "no multi-beat point");
    assert!(o.iter().any(|b| b.last && b.lane_valid == 0), "no point without quads");
    // AA on covers single samples of a pixel, AA off whole pixels: both kinds of mask occur.
    let s = cfg.msaa;
    let pix = u64::MAX >> (64 - s);
    let partial_pixel = |m: u64| (0..4).any(|i| (m >> (i * s) & pix) != 0 && (m >> (i * s) & pix) != pix);
    assert!(
        o.iter().flat_map(|b| b.mask).any(partial_pixel) || s == 1,
        "no AA sample mask"
    );
}

per_preset!(run, 0x90);

#[test]
fn a_broken_model_is_caught_at_its_cycle_and_port() {
    let cfg = Config::preset("ice40").unwrap();
    let s = stim(12, 8_000);
    let m = Perturb::new(PointRasterCycle::new(&cfg), 2_222, |b| b.qy[3] ^= 0x800);
    let r = cosim_block::<PointRasterPorts, _>("ice40", m, &commands(&cfg, 12, 500), &s);
    expect_caught(r, 2_222, "out__qy_3", 0x800);
}
