//! rust-hdl simulation of `Blender` against its cycle model `BlenderCycle`: the same random
//! fragments (`stim::blend_frags`: small key alphabet, so merges are frequent), random input
//! gaps, random `out_ready` with long stalls, one `flush` pulse mid-stream; `in_ready` and
//! every output port must agree on every cycle. Activity is asserted on the model's counters
//! replayed over the same stimulus (per-sample merges, in-flight matches, gated lanes, all
//! four operations, merges of input-buffer entries), so that quiet traffic cannot pass. The
//! input buffer (B = 4 PerSample, B = 2 PerComponent) runs the same way, and a planted bug
//! (one buffer place missing) is caught at the cycle and port predicted from the cycle models.
//! Plus Verilog lint per option set.

mod common;

use common::{Report, Run};
use tilerast_golden::blender::{BlendOpts, BlendStats, BlenderCycle, MergeMode};
use tilerast_golden::config::Config;
use tilerast_golden::cycle::CycleModel;
use tilerast_golden::streams::{BlendBeat, BlendFrag};
use tilerast_hw::blender::{supported, Blender};
use tilerast_verif::stim::{blend_frags, blend_frags_buffered};
use tilerast_verif::{Flush, Handshake, Pattern};

fn opts(merge: MergeMode, mif: bool, gate: bool) -> BlendOpts {
    BlendOpts {
        merge,
        input_buffer: 0,
        match_in_flight: mif,
        gate_idle_lanes: gate,
    }
}

/// [`opts`] with an input buffer of `b` entries.
fn opts_b(merge: MergeMode, mif: bool, gate: bool, b: usize) -> BlendOpts {
    BlendOpts {
        input_buffer: b,
        ..opts(merge, mif, gate)
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

/// The run's handshake: random input gaps, random ready with long stalls, one flush.
fn handshake(flush_at: u64) -> Handshake {
    let ready = Pattern::RandomStalls {
        pct: 75,
        permille: 15,
        min: 10,
        max: 40,
    };
    Handshake::new(Pattern::gaps(25), ready).with_flush(Flush::At(flush_at))
}

fn cosim(o: BlendOpts, cycles: u64, seed: u64, flush_at: u64) -> (Report<BlendFrag, BlendBeat>, BlendStats) {
    let cfg = Config::preset("default").unwrap();
    // With a buffer, fragments that make it fill and merge (`stim::blend_frags_buffered`).
    let frags = if o.input_buffer > 0 {
        blend_frags_buffered(seed, cycles as usize)
    } else {
        blend_frags(seed, cycles as usize)
    };
    let report =
        Run::new(handshake(flush_at), seed, cycles).go(Blender::new(&cfg, &o), BlenderCycle::new(&cfg, &o), frags);
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
fn cosim_buffer4_per_sample_in_flight_gated() {
    let (r, st) = cosim(opts_b(MergeMode::PerSample, true, true, 4), 1000, 46, 400);
    assert!(r.transferred > 150, "only {} beats out", r.transferred);
    // The buffer's own merges, both kinds among them (in the pool and in flight).
    assert!(st.merged_buffer > 20, "{st:?}");
    assert!(st.merged_samples > 40 && st.merged_in_flight > 20, "{st:?}");
    // Beats whose slot count exceeds the pool entries that could fill them without the
    // buffer: every slot is fed, so a full batch after a stalled pool shows up.
    assert!(r.outputs().any(|b| b.lane_valid == 15), "no full batch");
    assert_eq!(ops_used(&r), [true; 4]);
}

#[test]
fn cosim_buffer2_per_component_in_flight_gated() {
    let (r, st) = cosim(opts_b(MergeMode::PerComponent, true, true, 2), 800, 47, 350);
    assert!(r.transferred > 120, "only {} beats out", r.transferred);
    assert!(st.merged_buffer > 10, "{st:?}");
    assert!(st.merged_components > 8 && st.merged_in_flight > 10, "{st:?}");
    assert!(st.component_ops < 4 * st.blend_ops, "{st:?}");
}

/// The planted bug: column 2's second buffer place missing (golden's buffer slot 3: its one
/// constant `c_bv__2` stuck at 0; the B = 3 block is exactly that, checked on the Verilog
/// text), run against the B = 4 model. Where it
/// must first differ is predicted by the cycle models alone: the B = 3 and B = 4 models
/// replayed over the run's stimulus (which depends only on the B = 4 model's `in_ready`, so it
/// is the same stimulus up to the first difference).
#[test]
fn buffer_mutant_is_caught_at_the_predicted_cycle_and_port() {
    let cfg = Config::preset("default").unwrap();
    let good = opts_b(MergeMode::PerSample, true, true, 4);
    let bad = opts_b(MergeMode::PerSample, true, true, 3);
    let (vg, vb) = (
        tilerast_hw::blender::verilog(&cfg, &good, "b"),
        tilerast_hw::blender::verilog(&cfg, &bad, "b"),
    );
    let diff: Vec<(&str, &str)> = vg.lines().zip(vb.lines()).filter(|(a, b)| a != b).collect();
    assert_eq!(vg.lines().count(), vb.lines().count());
    assert_eq!(
        diff,
        vec![(
            "    localparam [0:0] c_bv__2 = 1'b1;",
            "    localparam [0:0] c_bv__2 = 1'b0;"
        )]
    );
    let (seed, cycles) = (48, 600);
    let mut run = Run::new(handshake(10_000), seed, cycles);
    run.max_mismatches = 1;
    let r = run.go(
        Blender::new(&cfg, &bad),
        BlenderCycle::new(&cfg, &good),
        blend_frags_buffered(seed, 600),
    );
    let caught = r
        .mismatches
        .first()
        .unwrap_or_else(|| panic!("the mutant was not caught"));
    // Prediction: the first cycle at which the two models' ports differ.
    let (mut mg, mut mb) = (BlenderCycle::new(&cfg, &good), BlenderCycle::new(&cfg, &bad));
    let mut predicted = None;
    for (cycle, s) in r.trace.iter().enumerate() {
        let (rg, rb) = (mg.in_ready(s.out_ready), mb.in_ready(s.out_ready));
        let (og, ob) = (mg.out(), mb.out());
        if rg != rb || og != ob {
            let port = if rg != rb {
                "in_ready"
            } else if og.0 != ob.0 {
                "out_valid"
            } else {
                "out__"
            };
            predicted = Some((cycle as u64, port));
            break;
        }
        mg.clock(s.in_valid, &s.input, s.out_ready, s.flush);
        mb.clock(s.in_valid, &s.input, s.out_ready, s.flush);
    }
    let (at, port) = predicted.expect("the models never differ on this stimulus");
    println!("predicted: cycle {at}, {port}; caught: {caught}");
    assert_eq!(caught.cycle, at);
    assert!(caught.ports[0].port.starts_with(port), "{caught}");
}

/// What the buffer buys, measured on the cycle model (no rust-hdl): the same 4000 fragments,
/// no gaps, no back-pressure, B = 0, 2, 4; `blend_frags` and `blend_frags_buffered`.
#[test]
fn buffer_throughput_on_the_model() {
    let cfg = Config::preset("default").unwrap();
    for (name, frags) in [
        ("blend_frags", blend_frags(49, 4000)),
        ("blend_frags_buffered", blend_frags_buffered(49, 4000)),
    ] {
        println!("{name}:");
        throughput(&cfg, &frags);
    }
}

fn throughput(cfg: &Config, frags: &[BlendFrag]) {
    let mut res = Vec::new();
    for b in [0, 2, 4] {
        let o = opts_b(MergeMode::PerSample, true, true, b);
        let mut m = BlenderCycle::new(cfg, &o);
        let want: usize = frags.iter().map(|f| f.lane_valid.count_ones() as usize).sum();
        let (_, trace) = tilerast_golden::cycle::drive(
            &mut m,
            frags,
            |_| false,
            |_| true,
            |outs| outs.iter().map(|b| b.lane_valid.count_ones() as usize).sum::<usize>() >= want,
            1_000_000,
        );
        let st = m.stats();
        println!(
            "  B = {b}: {} cycles, {} blend ops, {} merged ({} from the buffer), {} in flight, {} idle lane-cycles",
            trace.len(),
            st.blend_ops,
            st.merged_samples,
            st.merged_buffer,
            st.merged_in_flight,
            st.idle_lane_cycles
        );
        res.push((trace.len(), st));
    }
    assert_eq!(res[0].1.merged_buffer, 0);
    assert!(res[1].1.merged_buffer > 0 && res[2].1.merged_buffer > res[1].1.merged_buffer);
    assert!(res[2].0 < res[0].0, "B = 4 is not faster than B = 0");
}

#[test]
fn refuses_unsupported_parameters() {
    let mut c = Config::preset("default").unwrap();
    let o = opts(MergeMode::PerSample, true, true);
    assert!(supported(&c, &o).is_ok());
    c.blend_lanes = 3;
    assert!(supported(&c, &o).unwrap_err().contains("L = 2"));
    let c = Config::preset("default").unwrap();
    for b in 0..=4 {
        assert!(supported(&c, &opts_b(MergeMode::PerComponent, true, true, b)).is_ok());
    }
    let e = supported(&c, &opts_b(MergeMode::PerComponent, true, true, 5)).unwrap_err();
    assert!(e.contains("input_buffer") && e.contains("B ≤ 4"), "{e}");
}

/// The option sets `rtl-out/` does not hold, lint-clean with ranged constants; each at one
/// preset, the smallest and the largest position width (PW 15 at `ice40`, 23 at `full`: the
/// only thing a preset changes in this block). The pipeline's options at every preset and
/// `default_comp` / `default_buf` are in `rtl-out/`, linted by `hw/tests/rtl_out.rs`.
#[test]
fn verilog_lints_clean() {
    for (p, o) in [
        ("ice40", opts(MergeMode::Off, false, false)),
        ("full", opts(MergeMode::PerComponent, true, true)),
        ("ice40", opts_b(MergeMode::PerSample, true, true, 4)),
        ("full", opts_b(MergeMode::PerComponent, false, false, 2)),
    ] {
        let cfg = Config::preset(p).unwrap();
        let top = format!("blender_{p}_{:?}_{}", o.merge, o.input_buffer).to_lowercase();
        let v = tilerast_hw::blender::verilog(&cfg, &o, &top);
        assert!(tilerast_hw::emit::rangeless_signed_localparams(&v).is_empty(), "{top}");
        if let Err(msg) = tilerast_hw::emit::lint(&v, &top) {
            panic!("{top}: lint:\n{msg}");
        }
    }
}
