//! Verilator co-simulation of the `setup` block alone (`tilerast_<preset>__setup` in
//! `rtl-out/`) against its cycle model `SetupCycle`, every port on every cycle (harness:
//! `tilerast_cosim::blocks`). Stimulus: random triangle commands (near their tile, anywhere in
//! the guard band, slivers, degenerate, at the guard-band limits, half clockwise), input gaps
//! with junk payloads, random ready with long stalls, two flushes; 40 000 cycles per preset.
//! Plus: a model broken at one cycle is caught there, on that port; a predicted value too wide
//! for its port is reported as such.

use tilerast_cosim::blocks::{cosim_block, CosimFail};
use tilerast_golden::setup::{SetupCycle, SetupPorts};
use tilerast_golden::Config;

mod common;
use common::{clean, expect_caught, stim, Perturb};
use tilerast_verif::stim::setup_cmds as commands;

fn run(preset: &str, seed: u64) {
    let cfg = Config::preset(preset).unwrap();
    let cmds = commands(&cfg, seed, 4000);
    let s = stim(seed, 40_000);
    let r = clean(
        &format!("{preset}/setup"),
        cosim_block::<SetupPorts, _>(preset, SetupCycle::new(&cfg), &cmds, &s),
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

per_preset!(run, 0x5e7);

#[test]
fn a_broken_model_is_caught_at_its_cycle_and_port() {
    let cfg = Config::preset("ice40").unwrap();
    let cmds = commands(&cfg, 7, 500);
    let s = stim(7, 8_000);
    let m = Perturb::new(SetupCycle::new(&cfg), 5_123, |e| e.e[1] ^= 1 << 40);
    expect_caught(
        cosim_block::<SetupPorts, _>("ice40", m, &cmds, &s),
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
    let err = cosim_block::<SetupPorts, _>("ice40", m, &cmds, &s).expect_err("reported");
    // Reported as a value too wide (not as a difference with the RTL), at its cycle and port.
    let CosimFail::Bench(e) = err else {
        panic!("not reported as too wide: {err}")
    };
    assert!(
        e.contains("cycle 1000:") && e.contains("does not fit port out__vis_w"),
        "{e}"
    );
}
