//! Verilator co-simulation of the output merger block alone
//! (`rtl-out/tilerast_output_merger_default.v`) against its cycle model `OutputMergerCycle`,
//! every port on every cycle (harness: `tilerast_cosim::blocks`). Stimulus:
//! `stim::blend_beats` (full, partial and empty slot masks, junk in invalid slots), input gaps
//! with junk payloads, random memory back-pressure with long stalls, two flushes; 60 000 cycles.
//! The writes that leave are replayed on a memory cleared to the background and compared with
//! golden's framebuffer bytes. Plus: the planted bug of `cosim/build/mutation.rs` (byte enables
//! 0x7: the alpha byte is never written) is caught at the cycle and port predicted from the
//! model, and a model broken at one cycle is caught there, on that port.

use tilerast_cosim::blocks::cosim_block;
use tilerast_golden::output_merger::{OutputMerger as Framebuffer, OutputMergerCycle, OutputMergerPorts};
use tilerast_golden::Config;

mod common;
use common::{clean, expect_caught, stim, Perturb, Recorder};
use tilerast_verif::stim::blend_beats;

const BG: [u8; 4] = [1, 2, 3, 255];

#[test]
fn rtl_matches_cycle_model_default() {
    let cfg = Config::preset("default").unwrap();
    let slots = cfg.viewport[0] * cfg.viewport[1] * cfg.colours_per_pixel;
    let s = stim(0x0e_4e, 60_000);
    let beats = blend_beats(0x0e, 30_000, slots);
    let r = clean(
        "default/output_merger",
        cosim_block::<OutputMergerPorts, _>("default", OutputMergerCycle::new(), &beats, &s),
        &s,
    );
    println!("  {} writes out", r.outputs.len());
    assert!(r.outputs.len() > 15_000, "only {} writes", r.outputs.len());
    assert!(r
        .outputs
        .iter()
        .all(|q| q.write && q.be == 0xf && q.addr.is_multiple_of(4)));
    // The writes land where golden's framebuffer keeps the same results: replayed on a
    // memory cleared to the background, they give a framebuffer whose every write is one of
    // golden's slots (the harness's flushes drop beats, so compare per written word).
    let fb = Framebuffer::new(&cfg, BG);
    let mut mem = fb.memory();
    let mut golden = Framebuffer::new(&cfg, BG);
    for q in &r.outputs {
        mem.write(q.addr, q.wdata, q.be);
        golden.write(q.addr / 4, q.wdata.to_le_bytes());
    }
    assert_eq!(mem.first_difference(&golden.memory()), None);
}

#[test]
fn the_planted_bug_is_caught_at_the_predicted_cycle_and_port() {
    let cfg = Config::preset("default").unwrap();
    let slots = cfg.viewport[0] * cfg.viewport[1] * cfg.colours_per_pixel;
    let s = stim(0x5eed, 4_000);
    let beats = blend_beats(0x5eed, 2_000, slots);
    // Prediction: the byte enables differ (bit 3) from the first cycle the model's output
    // register holds a write (its `be` is 0 before: reset value).
    let rec = Recorder::new(OutputMergerCycle::new());
    let log = rec.log.clone();
    cosim_block::<OutputMergerPorts, _>("default", rec, &beats, &s)
        .unwrap_or_else(|m| panic!("the clean block differs:\n{m}"));
    let at = log.borrow().iter().position(|(_, q)| q.be != 0).expect("a write") as u64;
    println!("predicted: cycle {at}, out__be, bits 0x8");
    let r = cosim_block::<OutputMergerPorts, _>("default_mut", OutputMergerCycle::new(), &beats, &s);
    expect_caught(r, at, "out__be", 0x8);
}

#[test]
fn a_broken_model_is_caught_at_its_cycle_and_port() {
    let cfg = Config::preset("default").unwrap();
    let slots = cfg.viewport[0] * cfg.viewport[1] * cfg.colours_per_pixel;
    let s = stim(19, 6_000);
    let m = Perturb::new(OutputMergerCycle::new(), 3_210, |q| q.addr ^= 0x40);
    let r = cosim_block::<OutputMergerPorts, _>("default", m, &blend_beats(19, 3_000, slots), &s);
    expect_caught(r, 3_210, "out__addr", 0x40);
}
