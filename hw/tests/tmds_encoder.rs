//! rust-hdl simulation of `TmdsEncoder` against its cycle model `TmdsEncoderCycle`: a
//! video-like channel (`stim::tmds_video`: runs, ramps and random bytes between control
//! periods with junk data), random input gaps, random back-pressure with long stalls, one
//! `flush` pulse mid-stream; `in_ready` and every output port must agree on every cycle.
//! Activity is asserted (characters out, both data and control characters, back-pressure
//! seen), and every character leaving decodes to a byte or control period that was taken.

mod common;

use common::Run;
use tilerast_golden::config::Config;
use tilerast_golden::tmds_encoder::{decode, Decoded, TmdsEncoderCycle};
use tilerast_hw::tmds_encoder::TmdsEncoder;
use tilerast_verif::stim::tmds_video;
use tilerast_verif::{Flush, Handshake, Pattern};

#[test]
fn cosim_against_the_cycle_model() {
    let cfg = Config::preset("default").unwrap();
    let ready = Pattern::RandomStalls {
        pct: 80,
        permille: 15,
        min: 10,
        max: 40,
    };
    let hs = Handshake::new(Pattern::gaps(20), ready).with_flush(Flush::At(400));
    let report = Run::new(hs, 11, 1200).go(TmdsEncoder::new(&cfg), TmdsEncoderCycle::new(), tmds_video(11, 1500));
    println!("{}", report.summary());
    report.assert_clean("tmds_encoder");
    assert_eq!(report.flushes, 1);
    assert!(report.longest_stall >= 10, "no long stall");
    assert!(report.transferred > 500, "only {} characters out", report.transferred);
    let outs: Vec<Decoded> = report.outputs().map(|c| decode(c.word)).collect();
    for c in 0..4 {
        assert!(
            outs.contains(&Decoded::Control(c)),
            "a control period with (c1, c0) = {c}"
        );
    }
    let bytes: Vec<u8> = outs
        .iter()
        .filter_map(|d| match d {
            Decoded::Data(b) => Some(*b),
            Decoded::Control(_) => None,
        })
        .collect();
    assert!(bytes.len() > 300, "only {} data characters", bytes.len());
    let taken: Vec<u8> = report.inputs().filter(|i| i.de).map(|i| i.data).collect();
    assert!(
        bytes.iter().all(|b| taken.contains(b)),
        "a character decodes to a byte never taken"
    );
}

#[test]
fn verilog_lints_clean() {
    let cfg = Config::preset("default").unwrap();
    let top = "tmds_encoder_default";
    let v = tilerast_hw::tmds_encoder::verilog(&cfg, top);
    assert!(tilerast_hw::emit::rangeless_signed_localparams(&v).is_empty(), "{top}");
    if let Err(msg) = tilerast_hw::emit::lint(&v, top) {
        panic!("{top}: lint:\n{msg}");
    }
}
