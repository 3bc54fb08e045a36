//! rust-hdl simulation of `Blender` against its cycle model `BlenderCycle`: the same random
//! fragments (`stim::blend_frags`: small key alphabet, so merges are frequent), random input
//! gaps, random `out_ready` with long stalls, one `flush` pulse mid-stream; `in_ready` and
//! every output port must agree on every cycle. Activity is asserted on the model's counters
//! replayed over the same stimulus (per-sample merges, in-flight matches, gated lanes, all
//! four operations), so that quiet traffic cannot pass. Plus Verilog lint per option set.

mod common;

use common::{Report, Run};
use tilerast_golden::blender::{BlendOpts, BlendStats, BlenderCycle, MergeMode};
use tilerast_golden::config::Config;
use tilerast_golden::cycle::CycleModel;
use tilerast_golden::streams::{BlendBeat, BlendFrag};
use tilerast_hw::blender::{supported, Blender};
use tilerast_verif::stim::blend_frags;
use tilerast_verif::{Flush, Handshake, Pattern};

fn opts(merge: MergeMode, mif: bool, gate: bool) -> BlendOpts {
    BlendOpts {
        merge,
        input_buffer: 0,
        match_in_flight: mif,
        gate_idle_lanes: gate,
    }
}

/// The model's counters over the run's stimulus (replayed cycle by cycle from the report).
fn replay(cfg: &Config, o: &BlendOpts, r: &Report<BlendFrag, BlendBeat>) -> BlendStats {
    let mut m = BlenderCycle::new(cfg, o);
    for s in &r.trace {
        m.clock(s.in_valid, &s.input, s.out_ready, s.flush);
    }
    m.stats()
}

fn cosim(o: BlendOpts, cycles: u64, seed: u64, flush_at: u64) -> (Report<BlendFrag, BlendBeat>, BlendStats) {
    let cfg = Config::preset("default").unwrap();
    let ready = Pattern::RandomStalls {
        pct: 75,
        permille: 15,
        min: 10,
        max: 40,
    };
    let hs = Handshake::new(Pattern::gaps(25), ready).with_flush(Flush::At(flush_at));
    let frags = blend_frags(seed, cycles as usize);
    let report = Run::new(hs, seed, cycles).go(Blender::new(&cfg, &o), BlenderCycle::new(&cfg, &o), frags);
    println!("{o:?}: {}", report.summary());
    report.assert_clean(&format!("{o:?}"));
    let st = replay(&cfg, &o, &report);
    println!("{st:?}");
    assert!(report.longest_stall >= 10, "no long stall");
    assert_eq!(report.flushes, 1);
    (report, st)
}

/// Every operation among the accepted samples.
fn ops_used(r: &Report<BlendFrag, BlendBeat>) -> [bool; 4] {
    let mut u = [false; 4];
    for f in r.inputs() {
        for l in 0..4 {
            if f.lane_valid >> l & 1 == 1 {
                u[(f.state[l] & 3) as usize] = true;
            }
        }
    }
    u
}

#[test]
fn cosim_per_sample_in_flight_gated() {
    let (r, st) = cosim(opts(MergeMode::PerSample, true, true), 1200, 41, 500);
    assert!(r.transferred > 200, "only {} beats out", r.transferred);
    assert!(st.merged_samples > 50, "{st:?}");
    assert!(st.merged_in_flight > 20, "{st:?}");
    assert!(st.gated_lane_cycles > 20, "{st:?}");
    assert!(st.blend_ops > 100, "{st:?}");
    assert_eq!(ops_used(&r), [true; 4]);
}

#[test]
fn cosim_per_sample_no_in_flight_ungated() {
    let (r, st) = cosim(opts(MergeMode::PerSample, false, false), 700, 42, 300);
    assert!(r.transferred > 100);
    assert!(st.merged_samples > 30 && st.merged_in_flight == 0, "{st:?}");
    assert!(st.idle_lane_cycles > 10 && st.gated_lane_cycles == 0, "{st:?}");
}

#[test]
fn cosim_no_merge() {
    let (r, st) = cosim(opts(MergeMode::Off, true, true), 600, 43, 200);
    assert!(r.transferred > 100);
    assert_eq!((st.merged_samples, st.merged_in_flight), (0, 0));
    assert_eq!(ops_used(&r), [true; 4]);
}

#[test]
fn cosim_per_component_in_flight_gated() {
    let (r, st) = cosim(opts(MergeMode::PerComponent, true, true), 1000, 44, 450);
    assert!(r.transferred > 150, "only {} beats out", r.transferred);
    assert!(st.merged_components > 8, "{st:?}");
    assert!(st.merged_samples > 30 && st.merged_in_flight > 10, "{st:?}");
    assert!(st.component_ops < 4 * st.blend_ops, "{st:?}");
    assert_eq!(ops_used(&r), [true; 4]);
}

#[test]
fn cosim_per_component_ungated() {
    let (r, st) = cosim(opts(MergeMode::PerComponent, false, false), 600, 45, 250);
    assert!(r.transferred > 100);
    assert!(st.merged_components > 8 && st.merged_in_flight == 0, "{st:?}");
    assert_eq!(st.component_ops, 4 * st.blend_ops, "{st:?}");
}

#[test]
fn refuses_unsupported_parameters() {
    let mut c = Config::preset("default").unwrap();
    let o = opts(MergeMode::PerSample, true, true);
    assert!(supported(&c, &o).is_ok());
    c.blend_lanes = 3;
    assert!(supported(&c, &o).unwrap_err().contains("L = 2"));
    let c = Config::preset("default").unwrap();
    let b = BlendOpts {
        input_buffer: 2,
        ..opts(MergeMode::PerComponent, true, true)
    };
    let e = supported(&c, &b).unwrap_err();
    assert!(e.contains("input_buffer"), "{e}");
}

#[test]
fn verilog_lints_clean() {
    for p in tilerast_golden::PRESETS {
        let cfg = Config::preset(p).unwrap();
        for (i, o) in [
            opts(MergeMode::PerSample, true, true),
            opts(MergeMode::Off, false, false),
            opts(MergeMode::PerComponent, true, true),
        ]
        .iter()
        .enumerate()
        {
            let top = format!("blender_{p}_{i}");
            let v = tilerast_hw::blender::verilog(&cfg, o, &top);
            assert!(tilerast_hw::emit::rangeless_signed_localparams(&v).is_empty(), "{top}");
            if let Err(msg) = tilerast_hw::emit::lint(&v, &top) {
                panic!("{top}: lint:\n{msg}");
            }
        }
    }
}
