//! The SDRAM controller (`hw/src/sdram_controller.rs`) against its cycle model
//! `SdramControllerCycle`, in rust-hdl, every port on every cycle, through the one lock-step
//! harness (`tilerast_verif::lockstep`, rust-hdl back end in `tests/common`), with the SDRAM
//! chip model (`golden::sdram_chip`) behind the pins checking every command against the
//! datasheet:
//!
//! - requests in runs of consecutive words and scattered words over every bank and several
//!   rows (row hits, row misses, bank conflicts), reads and writes with random byte enables,
//!   addresses beyond the part, input gaps, `out_ready` stalls and one long stall, random
//!   flushes; long enough for several AUTO REFRESH; activity counted and asserted;
//! - a planted bug (READ/WRITE one clock short of tRCD) caught at the cycle the cycle model
//!   predicts (`lockstep::first_difference` against the model with the same bug), on the pins.

mod common;

use tilerast_golden::sdram_chip::{SdramPart, MT48LC16M16A2};
use tilerast_golden::sdram_controller::{map_addr, SdramControllerCycle};
use tilerast_hw::sdram_controller::SdramController;
use tilerast_verif::lockstep::{self, Flushes, Lockstep, SdramChipAgent};
use tilerast_verif::sdram;

const HZ: f64 = 100e6;
const CL: u32 = 2;

/// The board's part with a 1 µs power-up wait (100 clocks), so that a short run gets past it.
fn part() -> SdramPart {
    MT48LC16M16A2.with_init_ns(1000.0)
}

/// The bench (shared with the Verilator and gate-level tests): [`tilerast_verif::sdram::bench`].
fn bench(seed: u64, cycles: u64) -> (lockstep::Bench, std::sync::Arc<std::sync::Mutex<sdram::Activity>>) {
    sdram::bench(part(), HZ, seed, cycles, 300)
}

fn model(bug: bool) -> SdramControllerCycle {
    let mut m = SdramControllerCycle::new(part(), HZ, CL);
    if bug {
        m.plant_bug();
    }
    m
}

const CYCLES: u64 = 6000;

#[test]
fn the_sdram_controller_equals_its_cycle_model_and_the_chip_takes_every_command() {
    let seed = 21;
    let (b, act) = bench(seed, CYCLES);
    let dut = SdramController::new(part(), HZ, CL);
    let (ls, outcome) = common::lockstep(dut, Lockstep::new(model(false), b), CYCLES, None);
    println!("{}", ls.bench.summary());
    if let Err(m) = outcome {
        panic!("{m}");
    }
    let chip = ls.bench.get::<SdramChipAgent>("sdram");
    assert!(chip.violation.is_none(), "{:?}", chip.violation);
    let s = ls.model.stats();
    let c = chip.chip.stats();
    let a = act.lock().unwrap();
    let flushes = ls.bench.get::<Flushes>("flush");
    println!("{s:?}\n{c:?}\n{a:?}, {} flushes", flushes.count);
    // Activity of every kind.
    assert!(s.reads > 300 && s.writes > 300, "{s:?}");
    assert!(
        s.row_hits > s.activates && s.activates > 50 && s.precharges > 50,
        "{s:?}"
    );
    assert!(c.refreshes >= 2 + 5, "{c:?}");
    assert!(s.refused > 5 && a.error_cycles > 100, "{s:?} {a:?}");
    assert!(a.reads_answered > 300 && a.nonzero_answers > 50, "{a:?}");
    assert!(a.full_stalls > 1000, "{a:?}");
    assert!(
        flushes.count >= 3 && flushes.busy >= 1,
        "{} flushes, {} busy",
        flushes.count,
        flushes.busy
    );
    // The chip carried out what the model decided.
    assert_eq!((c.reads, c.writes, c.activates), (s.reads, s.writes, s.activates));
    // Every address of the stimulus maps as the model says (the part's geometry).
    assert_eq!(map_addr(&part(), 4 * 256), Some((1, 0, 0)));
}

#[test]
fn a_controller_one_clock_short_of_trcd_is_caught_where_predicted() {
    let seed = 21;
    let mut good = Lockstep::new(model(false), bench(seed, CYCLES).0);
    let mut bad = Lockstep::new(model(true), bench(seed, CYCLES).0);
    let (pc, pp) = lockstep::first_difference(&mut good, &mut bad, CYCLES)
        .unwrap()
        .expect("the bug is visible on the pins");
    // The chip behind the buggy model stops there too: the rule is tRCD.
    let v = bad
        .bench
        .get::<SdramChipAgent>("sdram")
        .violation
        .clone()
        .expect("the chip stops it");
    assert_eq!(v.rule, "tRCD", "{v}");
    let dut = SdramController::new(part(), HZ, CL).mutant_short_rcd();
    let (_, outcome) = common::lockstep(dut, Lockstep::new(model(false), bench(seed, CYCLES).0), CYCLES, None);
    let m = outcome.expect_err("the mutant is caught");
    println!("predicted cycle {pc} ({pp}); caught: {}; chip: {v}", m.ports_line());
    assert_eq!(m.cycle, pc, "caught at {}, predicted {pc}", m.cycle);
    assert_eq!(m.port, pp);
    // The chip takes the early READ/WRITE at the edge ending the cycle it is on the pins.
    assert_eq!(v.cycle, pc);
}
