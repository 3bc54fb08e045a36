//! Point rasterizer block (seed 003) in the rust-hdl simulator against its cycle model
//! `PointRasterCycle`: the same random stimulus (random point commands, input gaps, output
//! stalls, one flush) drives both, and every output port (`in_ready`, `out_valid` and the whole
//! beat payload) must agree on every cycle. Plus Verilog emission per preset, linted by
//! Verilator with `-Wall`.

mod common;

use common::Run;
use tilerast_golden::point_raster::PointRasterCycle;
use tilerast_golden::streams::Cmd;
use tilerast_golden::Config;
use tilerast_hw::point_raster::PointRaster;

use tilerast_verif::{Flush, Handshake, Pattern, Rng};

/// Random point commands: mostly small points near their tile, some large, some at tile and
/// viewport edges, some missing their tile, a few at the extremes of the ports.
fn commands(c: &Config, rng: &mut Rng, n: usize) -> Vec<Cmd> {
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
                let f = if rng.below(2) == 0 {
                    fracs[rng.below(6) as usize]
                } else {
                    rng.range(0, 255)
                };
                px * 256 + f
            };
            let (mut x, mut y) = (coord(tx, tw), coord(ty, th));
            if rng.below(40) == 0 {
                x = if rng.below(2) == 0 { -(1 << 23) } else { (1 << 23) - 1 };
            }
            if rng.below(40) == 0 {
                y = if rng.below(2) == 0 {
                    -(1 << 23) + 7
                } else {
                    (1 << 23) - 9
                };
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
            Cmd {
                kind: 1,
                prim: rng.below(1 << 24) as u32 ^ i as u32,
                tile_x,
                tile_y,
                v: [[x as i32, y as i32], [0, 0], [0, 0]],
                size: size as u32,
                aa: rng.below(2) == 0,
            }
        })
        .collect()
}

/// Drive block and model with the same stimulus for `cycles` cycles; panics at a difference
/// with the cycle and both sides. Input and output regimes change every 64 cycles (each on
/// its own): free, random, long stall / starved, mostly free; one flush. Returns the number of
/// beats and commands transferred.
fn cosim(preset: &str, seed: u64, cycles: u64) -> (u64, u64) {
    let cfg = Config::preset(preset).unwrap();
    let mut rng = Rng::new(seed);
    let cmds = commands(&cfg, &mut rng, 400);
    let flush_at = 200 + rng.below(cycles / 2);
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
