//! Verilator co-simulation of the `setup` block alone (`tilerast_<preset>__setup` in
//! `rtl-out/`) against its cycle model `SetupCycle`, every port on every cycle (harness:
//! `tilerast_cosim::blocks`). Stimulus: random triangle commands (near their tile, anywhere in
//! the guard band, slivers, degenerate, at the guard-band limits, half clockwise), input gaps
//! with junk payloads, random ready with long stalls, two flushes; 40 000 cycles per preset.
//! Plus: a model broken at one cycle is caught there, on that port; a predicted value too wide
//! for its port is reported as such.

use tilerast_cosim::blocks::{cosim_block, Setup};
use tilerast_golden::setup::SetupCycle;
use tilerast_golden::streams::Cmd;
use tilerast_golden::Config;

mod common;
use common::{clean, expect_caught, stim, Perturb, Rng};

/// A random triangle command (the generator of `hw/tests/setup.rs`).
fn gen_cmd(cfg: &Config, rng: &mut Rng, prim: u32) -> Cmd {
    let (lo, hi) = cfg.guard_limits_fx();
    let [nx, ny] = cfg.tiles();
    let tile = [rng.below(nx as u64) as u32, rng.below(ny as u64) as u32];
    let tw = [cfg.tile[0] as i64 * 256, cfg.tile[1] as i64 * 256];
    let near = |rng: &mut Rng, a: usize| {
        let o = tile[a] as i64 * tw[a] - tw[a] + rng.below(3 * tw[a] as u64) as i64;
        o.clamp(lo[a] as i64, hi[a] as i64) as i32
    };
    let any = |rng: &mut Rng, a: usize| lo[a] + rng.below((hi[a] - lo[a]) as u64 + 1) as i32;
    let mut v = [[0i32; 2]; 3];
    match rng.below(5) {
        0 => v = [0, 1, 2].map(|_| [any(rng, 0), any(rng, 1)]),
        1 => {
            v[0] = [near(rng, 0), near(rng, 1)];
            v[1] = [
                (v[0][0] + rng.below(9) as i32 - 4).clamp(lo[0], hi[0]),
                (v[0][1] + rng.below(9) as i32 - 4).clamp(lo[1], hi[1]),
            ];
            v[2] = [any(rng, 0), any(rng, 1)];
        }
        2 => {
            v[0] = [near(rng, 0), near(rng, 1)];
            let d = [rng.below(1025) as i32 - 512, rng.below(1025) as i32 - 512];
            let k = rng.below(4) as i32 - 1;
            v[1] = [
                (v[0][0] + d[0]).clamp(lo[0], hi[0]),
                (v[0][1] + d[1]).clamp(lo[1], hi[1]),
            ];
            v[2] = [
                (v[0][0] + k * d[0]).clamp(lo[0], hi[0]),
                (v[0][1] + k * d[1]).clamp(lo[1], hi[1]),
            ];
        }
        3 => {
            for p in v.iter_mut() {
                for (a, c) in p.iter_mut().enumerate() {
                    *c = match rng.below(3) {
                        0 => lo[a],
                        1 => hi[a],
                        _ => any(rng, a),
                    };
                }
            }
        }
        _ => v = [0, 1, 2].map(|_| [near(rng, 0), near(rng, 1)]),
    }
    if rng.chance(50) {
        v.swap(1, 2);
    }
    // kind / size / aa have no port on setup: random values must not matter.
    Cmd {
        kind: 0,
        prim,
        tile_x: tile[0],
        tile_y: tile[1],
        v,
        size: rng.below(1 << 24) as u32,
        aa: rng.chance(50),
    }
}

fn commands(cfg: &Config, seed: u64, n: usize) -> Vec<Cmd> {
    let mut rng = Rng::new(seed);
    (0..n)
        .map(|i| gen_cmd(cfg, &mut rng, (i as u32 * 104_729) & 0xff_ffff))
        .collect()
}

fn run(preset: &str, seed: u64) {
    let cfg = Config::preset(preset).unwrap();
    let cmds = commands(&cfg, seed, 4000);
    let s = stim(seed, 40_000);
    let r = clean(
        &format!("{preset}/setup"),
        cosim_block::<Setup, _>(preset, SetupCycle::new(&cfg), &cmds, &s),
        &s,
    );
    let empty = r.outputs.iter().filter(|e| e.empty).count();
    assert!(
        empty > 0 && empty < r.outputs.len(),
        "{empty} of {} beats empty",
        r.outputs.len()
    );
    assert!(r.outputs.iter().any(|e| e.e.iter().any(|&v| v < 0)) && r.outputs.iter().any(|e| e.bx1 > e.bx0));
}

#[test]
fn rtl_matches_cycle_model_ice40() {
    run("ice40", 0x5e7_1ce4);
}

#[test]
fn rtl_matches_cycle_model_default() {
    run("default", 0x5e7_defa);
}

#[test]
fn rtl_matches_cycle_model_full() {
    run("full", 0x5e7_f011);
}

#[test]
fn a_broken_model_is_caught_at_its_cycle_and_port() {
    let cfg = Config::preset("ice40").unwrap();
    let cmds = commands(&cfg, 7, 500);
    let s = stim(7, 8_000);
    let m = Perturb::new(SetupCycle::new(&cfg), 5_123, |e| e.e[1] ^= 1 << 40);
    expect_caught(
        cosim_block::<Setup, _>("ice40", m, &cmds, &s),
        5_123,
        "out__e1",
        1 << 40,
    );
}

#[test]
fn a_predicted_value_wider_than_its_port_is_reported() {
    let cfg = Config::preset("ice40").unwrap();
    let cmds = commands(&cfg, 8, 100);
    let s = stim(8, 3_000);
    let m = Perturb::new(SetupCycle::new(&cfg), 1_000, |e| e.vis_w = 1 << 9);
    let err = cosim_block::<Setup, _>("ice40", m, &cmds, &s).expect_err("reported");
    assert!(
        err.model_overflow && err.cycle == 1_000 && err.port == "out__vis_w",
        "{err}"
    );
    assert!(err.to_string().contains("does not fit port out__vis_w"), "{err}");
}
