//! Verilator co-simulation of the pixel processor block alone
//! (`rtl-out/tilerast_pixel_processor_default.v`: 4x MSAA, one colour per pixel) against its
//! cycle model `PixelProcessorCycle`, every port on every cycle (harness:
//! `tilerast_cosim::blocks`). Stimulus: `stim::pix_samples` (no, all, random, one and all but
//! one covered samples; colours near the rounding ties), input gaps with junk payloads, random
//! ready with long stalls, two flushes; 60 000 cycles. Plus: the planted bug of
//! `cosim/build/mutation.rs` (colour slot 0 never filled) is caught at the cycle and port
//! predicted from the model, and a model broken at one cycle is caught there, on that port.

use tilerast_cosim::blocks::cosim_block;
use tilerast_golden::pixel_processor::{PixelProcessorCycle, PixelProcessorPorts};
use tilerast_golden::Config;

mod common;
use common::{clean, expect_caught, stim, Perturb, Recorder};
use tilerast_verif::stim::pix_samples;

#[test]
fn rtl_matches_cycle_model_default() {
    let cfg = Config::preset("default").unwrap();
    let s = stim(0x9e_de, 60_000);
    let px = pix_samples(cfg.msaa, 0x9e, 40_000);
    let r = clean(
        "default/pixel_processor",
        cosim_block::<PixelProcessorPorts, _>("default", PixelProcessorCycle::new(&cfg), &px, &s),
        &s,
    );
    let o = &r.outputs;
    // Alpha = source alpha × k/g: a value that is not a multiple of 255/4 rounded comes from
    // partial coverage; count filled, partial-coverage and empty pixels.
    let filled = o.iter().filter(|p| p.slot_valid & 1 == 1).count();
    let partial = o
        .iter()
        .filter(|p| p.slot_valid & 1 == 1 && p.colour[0] >> 24 != 0xff && p.colour[0] >> 24 != 0)
        .count();
    let empty = o.iter().filter(|p| p.slot_valid == 0).count();
    let all_covered = px.iter().filter(|p| p.mask & 0xf == 0xf).count();
    println!(
        "  {} pixels out: {filled} filled ({partial} with alpha strictly between 0 and 255), {empty} empty",
        o.len()
    );
    assert!(o.len() > 15_000, "only {} pixels", o.len());
    assert!(
        filled > 5000 && partial > 1000 && empty > 1000,
        "{filled} / {partial} / {empty}"
    );
    assert!(all_covered > 1000, "fully covered pixels offered: {all_covered}");
}

#[test]
fn the_planted_bug_is_caught_at_the_predicted_cycle_and_port() {
    let cfg = Config::preset("default").unwrap();
    let s = stim(0x5eed, 4_000);
    let px = pix_samples(cfg.msaa, 0x5eed, 2_000);
    // Prediction: slot 0's valid bit differs from the first cycle the model's output register
    // holds a pixel with slot 0 filled (the mutant never sets it).
    let rec = Recorder::new(PixelProcessorCycle::new(&cfg));
    let log = rec.log.clone();
    cosim_block::<PixelProcessorPorts, _>("default", rec, &px, &s)
        .unwrap_or_else(|m| panic!("the clean block differs:\n{m}"));
    let at = log
        .borrow()
        .iter()
        .position(|(_, p)| p.slot_valid & 1 == 1)
        .expect("a filled slot") as u64;
    println!("predicted: cycle {at}, out__slot_valid, bits 0x1");
    let r = cosim_block::<PixelProcessorPorts, _>("default_mut", PixelProcessorCycle::new(&cfg), &px, &s);
    expect_caught(r, at, "out__slot_valid", 0x1);
}

#[test]
fn a_broken_model_is_caught_at_its_cycle_and_port() {
    let cfg = Config::preset("default").unwrap();
    let s = stim(23, 6_000);
    let m = Perturb::new(PixelProcessorCycle::new(&cfg), 2_345, |p| p.y ^= 0x4);
    let r = cosim_block::<PixelProcessorPorts, _>("default", m, &pix_samples(cfg.msaa, 23, 3_000), &s);
    expect_caught(r, 2_345, "out__y", 0x4);
}
