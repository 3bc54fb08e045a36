//! Verilator co-simulation of the SDRAM controller (`rtl-out/tilerast_sdram_controller_ulx3s.v`,
//! the ULX3S frame row's part, clock and CAS latency) against its cycle model
//! `SdramControllerCycle`, every port on every cycle (harness: `tilerast_cosim::blocks`), with
//! the SDRAM chip model behind the pins checking every command against the datasheet
//! (`tilerast_verif::sdram::bench`): the full 100 µs power-up wait, then requests over every
//! bank and several rows under back-pressure and flushes, long enough for hundreds of AUTO
//! REFRESH. Plus: the planted bug of `cosim/build/mutation.rs` (READ/WRITE one clock short of
//! tRCD) is caught at the cycle and port predicted from the model with the same bug.

use tilerast_cosim::blocks::cosim_lockstep;
use tilerast_golden::board::board;
use tilerast_golden::sdram_controller::SdramControllerCycle;
use tilerast_verif::lockstep::{first_difference, Flushes, Lockstep, SdramChipAgent};
use tilerast_verif::sdram;

fn model(bug: bool) -> SdramControllerCycle {
    let f = board("ulx3s").unwrap().frame.unwrap();
    let mut m = SdramControllerCycle::new(f.sdram, f64::from(f.sdram_hz), f.cas_latency);
    if bug {
        m.plant_bug();
    }
    m
}

fn bench(
    seed: u64,
    cycles: u64,
) -> (
    tilerast_verif::lockstep::Bench,
    std::sync::Arc<std::sync::Mutex<sdram::Activity>>,
) {
    let f = board("ulx3s").unwrap().frame.unwrap();
    sdram::bench(f.sdram, f64::from(f.sdram_hz), seed, cycles, 12_000)
}

#[test]
fn rtl_matches_cycle_model_ulx3s() {
    let cycles = 200_000;
    let (b, act) = bench(0x5d_4a, cycles);
    let mut ls = Lockstep::new(model(false), b);
    cosim_lockstep("ulx3s", &mut ls, cycles, None).unwrap_or_else(|m| panic!("{m}"));
    println!("{}", ls.bench.summary());
    let chip = ls.bench.get::<SdramChipAgent>("sdram");
    assert!(chip.violation.is_none(), "{:?}", chip.violation);
    let (s, c, a) = (ls.model.stats(), chip.chip.stats(), act.lock().unwrap().clone());
    println!("{s:?}\n{c:?}\n{a:?}");
    assert!(s.reads > 10_000 && s.writes > 10_000, "{s:?}");
    assert!(s.row_hits > s.activates && s.activates > 1_000, "{s:?}");
    // 190 000 cycles after the power-up at one AUTO REFRESH per 749.
    assert!(c.refreshes > 240, "{c:?}");
    assert!(
        a.reads_answered > 10_000 && a.nonzero_answers > 1_000 && a.full_stalls > 10_000,
        "{a:?}"
    );
    let flushes = ls.bench.get::<Flushes>("flush");
    assert!(flushes.count > 100 && flushes.busy > 50, "{} flushes", flushes.count);
    assert_eq!((c.reads, c.writes, c.activates), (s.reads, s.writes, s.activates));
}

#[test]
fn the_planted_bug_is_caught_at_the_predicted_cycle_and_port() {
    let (seed, cycles) = (0x5eed, 30_000);
    let mut good = Lockstep::new(model(false), bench(seed, cycles).0);
    let mut bad = Lockstep::new(model(true), bench(seed, cycles).0);
    let (pc, pp) = first_difference(&mut good, &mut bad, cycles)
        .unwrap()
        .expect("the bug shows on the pins");
    let v = bad
        .bench
        .get::<SdramChipAgent>("sdram")
        .violation
        .clone()
        .expect("the chip stops it");
    println!("predicted: cycle {pc}, {pp}; chip: {v}");
    assert_eq!((v.rule, v.cycle), ("tRCD", pc));
    let mut ls = Lockstep::new(model(false), bench(seed, cycles).0);
    let m = cosim_lockstep("ulx3s_mut", &mut ls, cycles, None).expect_err("the mutant is caught");
    println!("caught: {}", m.ports_line());
    assert_eq!((m.cycle, m.port.as_str()), (pc, pp.as_str()));
}
