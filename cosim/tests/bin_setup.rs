//! Verilator co-simulation of bin_setup alone (`rtl-out/tilerast_bin_setup_{default,ice40}.v`)
//! against its cycle model `BinSetupCycle`, every port on every cycle, through the one
//! lock-step harness (`tilerast_verif::lockstep`, Verilator back end `cosim_lockstep`; the
//! bench is `tilerast_cosim::bin_setup::bench`). Stimulus: frames of `stim::bin_setup_frame`
//! primitives back to back (junk payloads while `in_valid` is low), input gaps, per-output back-pressure with stalls of
//! 1 000 to 3 000 cycles, flushes mid-frame, 60 000 cycles per run; every finished frame's
//! boxes must be golden's (`binner::prim_bbox`) and its writes `prim_table::table`'s bytes.
//! Plus: the planted bug of `cosim/build/mutation.rs` (x1 clamp one too big) is caught at the
//! cycle and port predicted by the model with the same bug (`BinSetupCycle::plant_bug`).

use tilerast_cosim::bin_setup::{bench, outcome, Drive, Outcome};
use tilerast_cosim::blocks::cosim_lockstep;
use tilerast_golden::bin_setup::BinSetupCycle;
use tilerast_golden::prim::PrimitiveFx;
use tilerast_golden::Config;
use tilerast_verif::lockstep::{first_difference, Lockstep, Mismatch};
use tilerast_verif::stim::bin_setup_frame;
use tilerast_verif::Pattern;

/// RTL `preset` against the model through the lock-step harness (every port, every cycle);
/// every finished frame must be golden's.
fn run(preset: &str, cfg: &Config, frames: &[Vec<PrimitiveFx>], d: &Drive) -> Result<Outcome, Box<Mismatch>> {
    let mut ls = Lockstep::new(BinSetupCycle::new(cfg), bench(cfg, frames, d));
    cosim_lockstep(preset, &mut ls, d.cycles, None)?;
    println!("{}", ls.bench.summary());
    Ok(outcome(&ls).unwrap_or_else(|e| panic!("{preset}: {e}")))
}

fn long_run(preset: &str, seed: u64) {
    let cfg = Config::preset(preset).unwrap();
    let frames: Vec<Vec<PrimitiveFx>> = (0..4).map(|f| bin_setup_frame(&cfg, seed * 100 + f, 150)).collect();
    let cycles = 60_000;
    let d = Drive {
        seed,
        cycles,
        valid: Pattern::gaps(30),
        out_ready: Pattern::RandomStalls {
            pct: 80,
            permille: 1,
            min: 1_000,
            max: 3_000,
        },
        wr_ready: Pattern::Stalls {
            pct: 85,
            every: 9_000,
            len: 1_500,
        },
        flush_at: vec![4_321, 31_234],
    };
    let o = run(preset, &cfg, &frames, &d).unwrap_or_else(|m| panic!("{m}"));
    println!("{preset}: {o:?}");
    assert!(o.frames >= 4, "{o:?}");
    assert!(o.boxes > 300 && o.zero_area > 0, "{o:?}");
    assert!(o.longest_out_stall >= 1_000 && o.longest_wr_stall >= 1_000, "{o:?}");
    assert!(o.busy_flushes >= 2, "flushes mid-frame: {o:?}");
}

#[test]
fn rtl_matches_cycle_model_default() {
    long_run("default", 1);
}

#[test]
fn rtl_matches_cycle_model_ice40() {
    long_run("ice40", 2);
}

/// The planted bug (`default_mut`: the x1 clamp constant is W instead of W − 1): the RTL
/// differs from the model first at the cycle and on the port where the model with the same
/// bug first differs: `out__x1`, in the first cycle a box clipped at the right edge is in the
/// output register.
#[test]
fn planted_bug_is_caught_where_predicted() {
    let cfg = Config::preset("default").unwrap();
    let frames: Vec<Vec<PrimitiveFx>> = (0..2).map(|f| bin_setup_frame(&cfg, 900 + f, 200)).collect();
    let d = Drive {
        seed: 77,
        cycles: 8_000,
        valid: Pattern::gaps(20),
        out_ready: Pattern::Random { pct: 85 },
        wr_ready: Pattern::Random { pct: 85 },
        flush_at: vec![],
    };
    let mut buggy = BinSetupCycle::new(&cfg);
    buggy.plant_bug();
    let mut clean = Lockstep::new(BinSetupCycle::new(&cfg), bench(&cfg, &frames, &d));
    let mut mutant = Lockstep::new(buggy, bench(&cfg, &frames, &d));
    let (at, port) = first_difference(&mut clean, &mut mutant, d.cycles)
        .unwrap()
        .expect("the mutant model differs somewhere");
    run("default", &cfg, &frames, &d).unwrap_or_else(|m| panic!("clean: {m}"));
    let m = run("default_mut", &cfg, &frames, &d).expect_err("the planted bug is caught");
    println!("planted bug: predicted cycle {at} on {port}, caught: {m}");
    assert_eq!(
        (m.cycle, m.port.as_str()),
        (at, port.as_str()),
        "caught at the predicted cycle and port"
    );
    assert_eq!(port, "out__x1");
}
