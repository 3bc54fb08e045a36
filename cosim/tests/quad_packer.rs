//! Verilator co-simulation of the `quad_packer` block alone (`tilerast_<preset>__packer` in
//! `rtl-out/`) against its cycle model `QuadPackerCycle`, every port on every cycle (harness:
//! `tilerast_cosim::blocks`). Stimulus: random beats with any lane pattern, coordinates and
//! masks (also lanes beyond the preset's Q), `last` on a quarter of them; input gaps with junk
//! payloads, random ready with long stalls, two flushes; 40 000 cycles per preset. Plus: a model
//! broken at one cycle is caught there, on that port.

use tilerast_cosim::blocks::cosim_block;
use tilerast_golden::quad_packer::{QuadPackerCycle, QuadPackerPorts};
use tilerast_golden::Config;

mod common;
use common::{clean, expect_caught, stim, Perturb};
use tilerast_verif::stim::beats;

fn run(preset: &str, seed: u64) {
    let cfg = Config::preset(preset).unwrap();
    let s = stim(seed, 40_000);
    let r = clean(
        &format!("{preset}/quad_packer"),
        cosim_block::<QuadPackerPorts, _>(preset, QuadPackerCycle::new(&cfg), &beats(seed, 5000), &s),
        &s,
    );
    let o = &r.outputs;
    let full = (1u8 << cfg.quads_per_clock) - 1;
    println!(
        "  {} beats out, {} full",
        o.len(),
        o.iter().filter(|b| b.lane_valid == full).count()
    );
    assert!(o.iter().any(|b| b.lane_valid == full), "no full beat");
    assert!(o.iter().any(|b| b.last && b.lane_valid != full), "no partial last beat");
    assert!(
        o.iter().any(|b| b.block.iter().any(|&k| k != 0)),
        "storage block always 0"
    );
}

per_preset!(run, 0x9c);

#[test]
fn a_broken_model_is_caught_at_its_cycle_and_port() {
    let cfg = Config::preset("full").unwrap();
    let s = stim(13, 8_000);
    let m = Perturb::new(QuadPackerCycle::new(&cfg), 7_777, |b| b.block[2] ^= 0x40);
    let r = cosim_block::<QuadPackerPorts, _>("full", m, &beats(13, 1000), &s);
    expect_caught(r, 7_777, "out__block_2", 0x40);
}
