//! Verilator co-simulation of the TMDS encoder block alone
//! (`rtl-out/tilerast_tmds_encoder_default.v`) against its cycle model `TmdsEncoderCycle`,
//! every port on every cycle (harness: `tilerast_cosim::blocks`). Stimulus:
//! `stim::tmds_video` (runs, ramps and random bytes between control periods with junk data),
//! input gaps with junk payloads, random back-pressure with long stalls, two flushes; 60 000
//! cycles. Every character out decodes (the receiver's rule) to a byte or control period
//! taken. Plus: the planted bug of `cosim/build/mutation.rs` (the control character's bit 0
//! set) is caught at the cycle and port predicted from the model, and a model broken at one
//! cycle is caught there, on that port.

use tilerast_cosim::blocks::cosim_block;
use tilerast_golden::tmds_encoder::{decode, Decoded, TmdsEncoderCycle, TmdsEncoderPorts, CONTROL_CHARS};

mod common;
use common::{clean, expect_caught, stim, Perturb, Recorder};
use tilerast_verif::stim::tmds_video;

#[test]
fn rtl_matches_cycle_model_default() {
    let s = stim(0x7d_5e, 60_000);
    let inputs = tmds_video(0x7d, 40_000);
    let r = clean(
        "default/tmds_encoder",
        cosim_block::<TmdsEncoderPorts, _>("default", TmdsEncoderCycle::new(), &inputs, &s),
        &s,
    );
    println!("  {} characters out", r.outputs.len());
    assert!(r.outputs.len() > 12_000, "only {} characters", r.outputs.len());
    let decoded: Vec<Decoded> = r.outputs.iter().map(|c| decode(c.word)).collect();
    let data = decoded.iter().filter(|d| matches!(d, Decoded::Data(_))).count();
    let control = decoded.iter().filter(|d| matches!(d, Decoded::Control(_))).count();
    for c in 0..4 {
        assert!(decoded.contains(&Decoded::Control(c)), "(c1, c0) = {c} sent");
    }
    println!("  {data} data characters, {control} control characters");
    assert!(data > 9_000 && control > 500, "{data} data, {control} control");
    assert_eq!(data + control, decoded.len(), "every character decodes");
}

#[test]
fn the_planted_bug_is_caught_at_the_predicted_cycle_and_port() {
    let s = stim(0x5eed, 4_000);
    let inputs = tmds_video(0x5eed, 3_000);
    // Prediction: the character differs in bit 0 from the first cycle the model's output
    // register holds a control character (none of the data characters is one).
    let rec = Recorder::new(TmdsEncoderCycle::new());
    let log = rec.log.clone();
    cosim_block::<TmdsEncoderPorts, _>("default", rec, &inputs, &s)
        .unwrap_or_else(|m| panic!("the clean block differs:\n{m}"));
    let at = log
        .borrow()
        .iter()
        .position(|(_, c)| c.word == CONTROL_CHARS[0])
        .expect("a control character") as u64;
    println!("predicted: cycle {at}, out__word, bit 0");
    let r = cosim_block::<TmdsEncoderPorts, _>("default_mut", TmdsEncoderCycle::new(), &inputs, &s);
    expect_caught(r, at, "out__word", 0x1);
}

#[test]
fn a_broken_model_is_caught_at_its_cycle_and_port() {
    let s = stim(23, 6_000);
    let m = Perturb::new(TmdsEncoderCycle::new(), 2_345, |c| c.word ^= 0x200);
    let r = cosim_block::<TmdsEncoderPorts, _>("default", m, &tmds_video(23, 4_000), &s);
    expect_caught(r, 2_345, "out__word", 0x200);
}
