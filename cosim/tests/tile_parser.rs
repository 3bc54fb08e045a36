//! Verilator co-simulation of the `tile_parser` block alone (`tilerast_<preset>__tile_parser`
//! in `rtl-out/`) against its cycle model `TileParserCycle`, every port on every cycle (harness:
//! `tilerast_cosim::blocks`). Stimulus: golden setup beats of random triangles in every tile
//! their bbox touches, empty beats, random-field beats; input gaps with junk payloads, random
//! ready with long stalls, two flushes; 40 000 cycles per preset. Plus: a model broken at one
//! cycle is caught there, on that port.

use tilerast_cosim::blocks::cosim_block;
use tilerast_golden::streams::Edges;
use tilerast_golden::tile_parser::{TileParserCycle, TileParserPorts};
use tilerast_golden::Config;

mod common;
use common::{clean, expect_caught, stim, Perturb};
use tilerast_verif::stim::edges;
use tilerast_verif::Rng;

fn inputs(cfg: &Config, seed: u64) -> Vec<Edges> {
    edges(cfg, &mut Rng::new(seed), 3000)
}

fn run(preset: &str, seed: u64) {
    let cfg = Config::preset(preset).unwrap();
    let s = stim(seed, 40_000);
    let r = clean(
        &format!("{preset}/tile_parser"),
        cosim_block::<TileParserPorts, _>(preset, TileParserCycle::new(&cfg), &inputs(&cfg, seed), &s),
        &s,
    );
    let o = &r.outputs;
    let (lasts, nones) = (o.iter().filter(|c| c.last).count(), o.iter().filter(|c| c.none).count());
    assert!(nones > 0 && lasts > nones, "{lasts} last, {nones} none of {}", o.len());
    assert!(lasts < o.len(), "every candidate is a last one: no multi-sub-tile walk");
    assert!(
        o.iter().any(|c| c.col > 0) && o.iter().any(|c| c.row > 0),
        "walk stays in sub-tile (0, 0)"
    );
}

per_preset!(run, 0x7b);

#[test]
fn a_broken_model_is_caught_at_its_cycle_and_port() {
    let cfg = Config::preset("full").unwrap();
    let s = stim(9, 8_000);
    let m = Perturb::new(TileParserCycle::new(&cfg), 6_001, |c| c.row ^= 0x80);
    let r = cosim_block::<TileParserPorts, _>("full", m, &inputs(&cfg, 9), &s);
    expect_caught(r, 6_001, "out__row", 0x80);
}
