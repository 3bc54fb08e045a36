//! rust-hdl simulation of `OutputMerger` against its cycle model `OutputMergerCycle`: random
//! blender beats (`stim::blend_beats`: partial and empty slot masks, junk in invalid slots),
//! random input gaps, random memory back-pressure with long stalls, one `flush` pulse
//! mid-stream; `in_ready` and every output port must agree on every cycle. Activity is
//! asserted (writes issued, back-pressure seen, partial and empty beats taken), and the writes
//! after the flush are the transaction model's for the beats accepted after it.

mod common;

use common::Run;
use tilerast_golden::config::Config;
use tilerast_golden::output_merger::{slot_addr, OutputMergerCycle};
use tilerast_golden::streams::MemReq;
use tilerast_hw::output_merger::OutputMerger;
use tilerast_verif::stim::blend_beats;
use tilerast_verif::{Flush, Handshake, Pattern};

#[test]
fn cosim_against_the_cycle_model() {
    let cfg = Config::preset("ice40").unwrap();
    let slots = cfg.viewport[0] * cfg.viewport[1] * cfg.colours_per_pixel;
    let ready = Pattern::RandomStalls {
        pct: 70,
        permille: 15,
        min: 10,
        max: 40,
    };
    let hs = Handshake::new(Pattern::gaps(20), ready).with_flush(Flush::At(400));
    let beats = blend_beats(7, 1500, slots);
    let report = Run::new(hs, 7, 1200).go(OutputMerger::new(&cfg), OutputMergerCycle::new(), beats);
    println!("{}", report.summary());
    report.assert_clean("output_merger");
    assert_eq!(report.flushes, 1);
    assert!(report.longest_stall >= 10, "no long stall");
    assert!(report.transferred > 400, "only {} writes out", report.transferred);
    let inputs: Vec<_> = report.inputs().collect();
    assert!(inputs.iter().any(|b| b.lane_valid == 0), "an empty beat was taken");
    assert!(
        inputs.iter().any(|b| b.lane_valid != 0 && b.lane_valid != 15),
        "a partial beat was taken"
    );
    // Every write is a whole word at a slot's address.
    for s in &report.trace {
        if s.out_valid {
            let q: &MemReq = &s.output;
            assert!(
                q.write && q.be == 0xf && q.addr.is_multiple_of(4) && q.addr < slot_addr(slots),
                "{q:?}"
            );
        }
    }
}

#[test]
fn verilog_lints_clean() {
    for p in tilerast_golden::PRESETS {
        let cfg = Config::preset(p).unwrap();
        let top = format!("output_merger_{p}");
        let v = tilerast_hw::output_merger::verilog(&cfg, &top);
        assert!(tilerast_hw::emit::rangeless_signed_localparams(&v).is_empty(), "{top}");
        if let Err(msg) = tilerast_hw::emit::lint(&v, &top) {
            panic!("{top}: lint:\n{msg}");
        }
    }
}
