//! Verilator co-simulation of the `point_raster` block alone (`tilerast_<preset>__point` in
//! `rtl-out/`) against its cycle model `PointRasterCycle`, every port on every cycle (harness:
//! `tilerast_cosim::blocks`). Stimulus (the generator of `hw/tests/point_raster.rs`): point
//! commands of every size up to past `max_point_size`, fractions at the rounding edges, at tile
//! and viewport edges, missing their tile, at the extremes of the ports, AA on and off; input
//! gaps with junk payloads, random ready with long stalls, two flushes; 40 000 cycles per
//! preset. Plus: a model broken at one cycle is caught there, on that port.

use tilerast_cosim::blocks::{cosim_block, PointRaster};
use tilerast_golden::point_raster::PointRasterCycle;
use tilerast_golden::streams::Cmd;
use tilerast_golden::Config;

mod common;
use common::{clean, expect_caught, stim, Perturb, Rng};

fn commands(c: &Config, seed: u64, n: usize) -> Vec<Cmd> {
    let mut rng = Rng::new(seed);
    let (tw, th) = (c.tile[0] as i64, c.tile[1] as i64);
    let [ntx, nty] = c.tiles();
    let fracs = [0i64, 128, 127, 129, 1, 255];
    (0..n)
        .map(|i| {
            let tx = rng.below(ntx as u64 + 1) as u32;
            let ty = rng.below(nty as u64 + 1) as u32;
            let mut coord = |t: u32, ts: i64| -> i64 {
                let px = match rng.below(4) {
                    0 => t as i64 * ts + rng.range(-2, 2),
                    1 => (t as i64 + 1) * ts + rng.range(-2, 1),
                    _ => t as i64 * ts + rng.range(0, ts - 1),
                };
                let f = if rng.chance(50) {
                    fracs[rng.below(6) as usize]
                } else {
                    rng.range(0, 255)
                };
                px * 256 + f
            };
            let (mut x, mut y) = (coord(tx, tw), coord(ty, th));
            if rng.below(40) == 0 {
                x = if rng.chance(50) { -(1 << 23) } else { (1 << 23) - 1 };
            }
            if rng.below(40) == 0 {
                y = if rng.chance(50) { -(1 << 23) + 7 } else { (1 << 23) - 9 };
            }
            let whole = match rng.below(24) {
                0 => rng.below(c.max_point_size as u64 + 2),
                1 => c.max_point_size as u64 + rng.below(3),
                2..=5 => rng.below(c.max_point_size.min(40) as u64),
                _ => rng.below(7),
            };
            let size = match rng.below(30) {
                0 => (1 << 24) - 1,
                _ => whole * 256 + [0, 128, 127, 129, rng.below(256)][rng.below(5) as usize],
            };
            let (tile_x, tile_y) = match rng.below(8) {
                0 => (rng.below(256) as u32, ty),
                1 => ((tx + 1).min(255), ty),
                _ => (tx, ty),
            };
            // v1 / v2 / kind have no port on point_raster: random values must not matter.
            Cmd {
                kind: 1,
                prim: rng.below(1 << 24) as u32 ^ i as u32,
                tile_x,
                tile_y,
                v: [
                    [x as i32, y as i32],
                    [rng.signed(24) as i32, 0],
                    [0, rng.signed(24) as i32],
                ],
                size: size as u32,
                aa: rng.chance(50),
            }
        })
        .collect()
}

fn run(preset: &str, seed: u64) {
    let cfg = Config::preset(preset).unwrap();
    let s = stim(seed, 40_000);
    let cmds = commands(&cfg, seed, 3000);
    let r = clean(
        &format!("{preset}/point_raster"),
        cosim_block::<PointRaster, _>(preset, PointRasterCycle::new(&cfg), &cmds, &s),
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

#[test]
fn rtl_matches_cycle_model_ice40() {
    run("ice40", 0x90_1ce4);
}

#[test]
fn rtl_matches_cycle_model_default() {
    run("default", 0x90_defa);
}

#[test]
fn rtl_matches_cycle_model_full() {
    run("full", 0x90_f011);
}

#[test]
fn a_broken_model_is_caught_at_its_cycle_and_port() {
    let cfg = Config::preset("ice40").unwrap();
    let s = stim(12, 8_000);
    let m = Perturb::new(PointRasterCycle::new(&cfg), 2_222, |b| b.qy[3] ^= 0x800);
    let r = cosim_block::<PointRaster, _>("ice40", m, &commands(&cfg, 12, 500), &s);
    expect_caught(r, 2_222, "out__qy_3", 0x800);
}
