//! Verilator co-simulation of the `subtile_coverage` block alone (`tilerast_<preset>__coverage`
//! in `rtl-out/`) against its cycle model `SubtileCoverageCycle`, every port on every cycle
//! (harness: `tilerast_cosim::blocks`). Stimulus: the tile parser's walk (its cycle model) of
//! random triangles, with a sixth random-field candidates; input gaps with junk payloads, random
//! ready with long stalls, two flushes; 40 000 cycles per preset. Checks that trivially
//! accepted, partly covered and rejected (dropped) sub-tiles all occur. Plus: a model broken at
//! one cycle is caught there, on that port.

use tilerast_cosim::blocks::cosim_block;
use tilerast_golden::subtile_coverage::{SubtileCoverageCycle, SubtileCoveragePorts};
use tilerast_golden::Config;

mod common;
use common::{clean, expect_caught, stim, Perturb};
use tilerast_verif::stim::candidates;

fn run(preset: &str, seed: u64) {
    let cfg = Config::preset(preset).unwrap();
    let s = stim(seed, 40_000);
    let inputs = candidates(&cfg, seed, 6000);
    let r = clean(
        &format!("{preset}/subtile_coverage"),
        cosim_block::<SubtileCoveragePorts, _>(preset, SubtileCoverageCycle::new(&cfg), &inputs, &s),
        &s,
    );
    let o = &r.outputs;
    let trivial = o.iter().filter(|j| j.trivial).count();
    let partial = o.iter().filter(|j| !j.trivial && !j.cand.none).count();
    let none = o.iter().filter(|j| j.cand.none).count();
    let dropped = r.accepted as usize - o.len();
    println!("  {trivial} trivial, {partial} partial, {none} none, {dropped} rejected");
    assert!(
        trivial > 0 && partial > 0 && none > 0,
        "{trivial} trivial, {partial} partial, {none} none"
    );
    assert!(dropped > 10, "only {dropped} candidates rejected (or lost to a flush)");
}

per_preset!(run, 0xc0);

#[test]
fn a_broken_model_is_caught_at_its_cycle_and_port() {
    let cfg = Config::preset("ice40").unwrap();
    let s = stim(10, 8_000);
    let m = Perturb::new(SubtileCoverageCycle::new(&cfg), 3_333, |j| j.trivial = !j.trivial);
    let r = cosim_block::<SubtileCoveragePorts, _>("ice40", m, &candidates(&cfg, 10, 2000), &s);
    expect_caught(r, 3_333, "out__trivial", 1);
}
