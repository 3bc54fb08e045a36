//! rust-hdl simulation of `BinSetup` against its cycle model `BinSetupCycle` through the one
//! lock-step harness (`tilerast_verif::lockstep`, rust-hdl back end in `tests/common`): a
//! source of primitives on `inp` (`stim::BinSetupFrames`, which checks every finished frame), sinks on `out` (boxes) and
//! `wr` (table writes; no responses, so no memory port behind it), every output port compared,
//! payloads valid or not, on every cycle. Stimulus: frames of `stim::bin_setup_frame`
//! primitives (triangles of every kind incl. zero-area, near-degenerate and 24-bit extremes,
//! points AA off / on) each closed by a frame-end token, junk payloads while `in_valid` is low,
//! random input gaps, random back-pressure with stalls on each output, a flush mid-frame.
//! Transaction level: each frame finished must give golden's boxes (`binner::prim_bbox`) and
//! `prim_table::table`'s bytes. Configs: `ice40` (cull none) and `ice40` with cull cw, ~3000
//! cycles each.

mod common;

use tilerast_golden::bin_setup::BinSetupCycle;
use tilerast_golden::config::{Config, CullMode};
use tilerast_golden::prim::PrimitiveFx;
use tilerast_golden::streams::ports;
use tilerast_hw::bin_setup::{supported, BinSetup};
use tilerast_verif::lockstep::{self, Bench, Flushes, Lockstep, Sink};
use tilerast_verif::stim::{bin_setup_frame, BinSetupFrames};
use tilerast_verif::{Pattern, Rng};

/// What a run did.
#[derive(Clone, Debug, Default)]
struct Report {
    /// The first finished frame that differs from golden's.
    wrong: Option<String>,
    frames: u64,
    boxes: u64,
    writes: u64,
    flushes: u64,
    out_stall: u64,
    wr_stall: u64,
    longest_stall: u64,
}

fn run(cfg: &Config, frames: Vec<Vec<PrimitiveFx>>, seed: u64, cycles: u64, flush_at: u64) -> Report {
    let out_ready = Pattern::RandomStalls {
        pct: 80,
        permille: 8,
        min: 10,
        max: 60,
    };
    let wr_ready = Pattern::RandomStalls {
        pct: 85,
        permille: 5,
        min: 10,
        max: 80,
    };
    let valid = lockstep::line(Pattern::gaps(25).line(Rng::stream(seed, 0)));
    let bench = Bench::new()
        .with("flush", Flushes::at(vec![flush_at]))
        .with("inp", BinSetupFrames::new(cfg, frames, valid, Rng::stream(seed, 3)))
        .with(
            "out",
            Sink::<ports::BinBox>::new("out", lockstep::line(out_ready.line(Rng::stream(seed, 1)))),
        )
        .with(
            "wr",
            Sink::<ports::MemReq>::new("wr", lockstep::line(wr_ready.line(Rng::stream(seed, 2)))),
        );
    let ls = Lockstep::new(BinSetupCycle::new(cfg), bench);
    let (ls, outcome) = common::lockstep(BinSetup::new(cfg), ls, cycles, None);
    println!("{}", ls.bench.summary());
    if let Err(m) = outcome {
        panic!("{m}");
    }
    let (out, wr) = (
        ls.bench.get::<Sink<ports::BinBox>>("out"),
        ls.bench.get::<Sink<ports::MemReq>>("wr"),
    );
    let f = ls.bench.get::<BinSetupFrames>("inp");
    Report {
        wrong: f.wrong.clone(),
        frames: f.finished,
        boxes: f.boxes_out,
        writes: f.writes_out,
        flushes: ls.bench.get::<Flushes>("flush").count,
        out_stall: out.waits,
        wr_stall: wr.waits,
        longest_stall: out.longest_wait.max(wr.longest_wait),
    }
}

#[test]
fn cosim_against_the_cycle_model() {
    for (i, cull) in [CullMode::None, CullMode::Cw].into_iter().enumerate() {
        let mut cfg = Config::preset("ice40").unwrap();
        cfg.cull = cull;
        supported(&cfg).unwrap();
        let frames: Vec<Vec<PrimitiveFx>> = (0..6)
            .map(|f| bin_setup_frame(&cfg, 70 + 10 * i as u64 + f, 40))
            .collect();
        let r = run(&cfg, frames, 5 + i as u64, 3_000, 900);
        println!("{cull:?}: {r:?}");
        assert_eq!(r.wrong, None, "finished frames differ from golden's");
        assert_eq!(r.flushes, 1);
        assert!(r.frames >= 3, "only {} frames finished", r.frames);
        assert!(r.boxes > 30 && r.writes > 600, "{r:?}");
        assert!(r.out_stall > 0 && r.wr_stall > 0 && r.longest_stall >= 10, "{r:?}");
    }
}

#[test]
fn verilog_lints_clean_and_refusals_name_the_field() {
    for p in tilerast_golden::PRESETS {
        let cfg = Config::preset(p).unwrap();
        let top = format!("bin_setup_{p}");
        let v = tilerast_hw::bin_setup::verilog(&cfg, &top);
        assert!(tilerast_hw::emit::rangeless_signed_localparams(&v).is_empty(), "{top}");
        if let Err(msg) = tilerast_hw::emit::lint(&v, &top) {
            panic!("{top}: lint:\n{msg}");
        }
    }
    let mut cfg = Config::preset("default").unwrap();
    cfg.viewport = [8192, 64];
    let e = supported(&cfg).unwrap_err();
    assert!(e.starts_with("config.viewport") && !e.contains('\n'), "{e}");
}
