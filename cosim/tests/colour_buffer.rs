//! Verilator co-simulation of the colour buffer block alone
//! (`rtl-out/tilerast_colour_buffer_{default,ice40}.v`) against its cycle model
//! `ColourBufferCycle`, every port on every cycle (harness: `tilerast_cosim::blocks`).
//! Stimulus: whole second tiles of random pixels (`stim::colour_buffer_input`: random
//! `slot_valid` with junk above C, random colours, every other tile an edge tile; after each
//! flush a whole tile again), input gaps with junk payloads, random ready with stalls of 1 000 to
//! 4 000 cycles, nine flushes (between tiles and mid-tile); 80 000 cycles. Plus: the planted bug
//! of `cosim/build/mutation.rs` (the drain also reads in its load cycle) is caught at the cycle
//! and port predicted from the model, and a model broken at one cycle is caught there.

use tilerast_cosim::blocks::{cosim_block, BlockStim};
use tilerast_golden::colour_buffer::{ColourBufferCycle, ColourBufferPorts};
use tilerast_golden::streams::PixSlots;
use tilerast_golden::Config;
use tilerast_verif::stim::colour_buffer_input;

mod common;
use common::{clean, expect_caught, Perturb, Recorder};

/// `cycles` cycles, stalls of thousands of cycles, nine flushes.
fn stim(seed: u64, cycles: u64) -> BlockStim {
    BlockStim {
        seed,
        cycles,
        stall_permille: 1,
        stall_len: (1_000, 4_000),
        flush_at: (1..=9).map(|i| i * cycles / 10 + 131 * i).collect(),
        ..BlockStim::default()
    }
}

/// The inputs for `s` (the lines exactly as `cosim_block` drives them) and the flushes, (cycle,
/// between tiles).
fn inputs(cfg: &Config, s: &BlockStim) -> (Vec<PixSlots>, Vec<(u64, bool)>) {
    let mut lines = s.handshake().lines(s.seed);
    let flush_at = s.flush_at.clone();
    let mut cycle = 0u64;
    colour_buffer_input(cfg, s.seed, s.cycles, move || {
        let c = lines.step();
        let f = flush_at.contains(&cycle);
        cycle += 1;
        (c.valid, c.ready, f)
    })
}

fn run(preset: &str, seed: u64) {
    let cfg = Config::preset(preset).unwrap();
    let s = stim(seed, 80_000);
    let (px, flushes) = inputs(&cfg, &s);
    println!("{preset}: flushes (cycle, between tiles): {flushes:?}");
    assert!(
        flushes.iter().any(|f| f.1) && flushes.iter().any(|f| !f.1),
        "{preset}: want a flush between tiles and one mid-tile"
    );
    let rec = Recorder::new(ColourBufferCycle::new(&cfg));
    let r = clean(
        &format!("{preset}/colour_buffer"),
        cosim_block::<ColourBufferPorts, _>(preset, rec, &px, &s),
        &s,
    );
    assert!(r.accepted < px.len() as u64, "the inputs wrapped around");
    let o = &r.outputs;
    let c = cfg.colours_per_pixel;
    let filled = o.iter().filter(|p| p.slot_valid & 1 == 1 && p.colour[0] != 0).count();
    println!("  {} pixels out, {filled} with slot 0 filled", o.len());
    assert!(o.len() > 8_000, "only {} pixels", o.len());
    assert!(filled > 3_000);
    assert!(o
        .iter()
        .all(|p| p.slot_valid >> c == 0 && p.colour[c as usize..].iter().all(|&x| x == 0)));
    assert!(r.longest_stall >= 1_000);
}

#[test]
fn rtl_matches_cycle_model_default() {
    run("default", 0xcb_defa);
}

#[test]
fn rtl_matches_cycle_model_ice40() {
    run("ice40", 0xcb_1ce4);
}

#[test]
fn the_planted_bug_is_caught_at_the_predicted_cycle_and_port() {
    let cfg = Config::preset("default").unwrap();
    let s = BlockStim {
        flush_at: vec![9_000],
        ..stim(0x5eed, 12_000)
    };
    let (px, _) = inputs(&cfg, &s);
    // Prediction: the mutant reads in the first load cycle L of the first tile as well, so its
    // junk word is on `out` from cycle L + 2, one cycle before the model's first pixel (L + 3);
    // the FIFO is empty then, so `out_valid` differs first (rtl 1, model 0).
    let rec = Recorder::new(ColourBufferCycle::new(&cfg));
    let log = rec.log.clone();
    cosim_block::<ColourBufferPorts, _>("default", rec, &px, &s)
        .unwrap_or_else(|m| panic!("the clean block differs:\n{m}"));
    let first = log.borrow().iter().position(|(v, _)| *v).expect("an output") as u64;
    let at = first - 1;
    println!("predicted: cycle {at}, out_valid, bits 0x1");
    let r = cosim_block::<ColourBufferPorts, _>("default_mut", ColourBufferCycle::new(&cfg), &px, &s);
    expect_caught(r, at, "out_valid", 0x1);
}

#[test]
fn a_broken_model_is_caught_at_its_cycle_and_port() {
    let cfg = Config::preset("ice40").unwrap();
    let s = stim(29, 8_000);
    let (px, _) = inputs(&cfg, &s);
    let m = Perturb::new(ColourBufferCycle::new(&cfg), 3_456, |p| p.colour[0] ^= 0x100);
    let r = cosim_block::<ColourBufferPorts, _>("ice40", m, &px, &s);
    expect_caught(r, 3_456, "out__colour_0", 0x100);
}
