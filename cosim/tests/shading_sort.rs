//! Verilator co-simulation of the sort-based shading block alone
//! (`rtl-out/tilerast_shading_sort_{default,ice40}.v`) against its cycle model
//! `ShadingSortCycle`, every port on every cycle, with a golden `MemoryCycle` behind the read
//! port holding the primitive table's colour words (latency, depth and `grant` back-pressure
//! varied per run), through the one lock-step harness (`tilerast_verif::lockstep`, Verilator
//! back end `cosim_lockstep`; `stim::ShadeTiles` drives `inp` and checks `out`). Stimulus: random second tiles' records (one-pass and multi-pass
//! sorts, ties, `none` tokens) with gaps and junk payloads while not valid, random
//! `out_ready` with stalls of 1 000 to 3 000 cycles, grant patterns, flushes mid-tile, tiles
//! back to back; the pixels out must be golden's (`shade_tile` formatted by `tile_pixels`).
//! Plus: the planted bug of `cosim/build/mutation.rs` (the histogram epoch does not toggle)
//! is caught at the cycle and port predicted by the model with the same bug.

use tilerast_cosim::blocks::cosim_lockstep;
use tilerast_cosim::shading_sort::{bench, lockstep, outcome, tiles, Drive, Outcome};
use tilerast_golden::memory_port::{MemTiming, SparseMemory};
use tilerast_golden::shading_sort::ShadingSortCycle;
use tilerast_golden::Config;
use tilerast_verif::lockstep::{first_difference, Lockstep, Mismatch};
use tilerast_verif::stim::ShadeTile;
use tilerast_verif::Pattern;

/// RTL `preset` against the model for `cfg` over `tiles` (repeated) through the lock-step
/// harness, every port, every cycle; the pixels out must be golden's.
fn run(
    preset: &str,
    cfg: &Config,
    tiles: &[ShadeTile],
    mem: &SparseMemory,
    d: &Drive,
) -> Result<Outcome, Box<Mismatch>> {
    let (mut ls, busy) = lockstep(cfg, tiles, mem, d);
    cosim_lockstep(preset, &mut ls, d.cycles, None)?;
    println!("{}", ls.bench.summary());
    Ok(outcome(&ls, &busy).unwrap_or_else(|e| panic!("{e}")))
}

fn long_run(preset: &str, seed: u64, timings: &[MemTiming]) {
    let cfg = Config::preset(preset).unwrap();
    let (t, mem, passes) = tiles(&cfg, seed, 15);
    assert!(passes > t.len() as u64, "multi-pass tiles: {passes}");
    for (i, &timing) in timings.iter().enumerate() {
        let s = seed * 10 + i as u64;
        let cycles = 250_000;
        let d = Drive {
            seed: s,
            cycles,
            timing,
            valid: Pattern::gaps(40),
            ready: Pattern::RandomStalls {
                pct: 80,
                permille: 1,
                min: 1_000,
                max: 3_000,
            },
            grant: [
                Pattern::Random { pct: 70 },
                Pattern::Stalls {
                    pct: 90,
                    every: 7_000,
                    len: 1_200,
                },
            ][i % 2],
            flush_at: vec![30_003 + 1_000 * i as u64, 151_000 + 777 * i as u64],
        };
        let o = run(preset, &cfg, &t, &mem, &d)
            .unwrap_or_else(|m| panic!("{preset} L{} D{}: {m}", timing.latency, timing.depth));
        println!("{preset} L{} D{}: {o:?}", timing.latency, timing.depth);
        assert!(o.tiles_out >= 5, "several tiles: {o:?}");
        assert!(o.longest_stall >= 1_000, "{o:?}");
        assert!(o.busy_flushes >= 1, "a flush mid-tile: {o:?}");
        // `passes`: the model's counter, since the last flush.
        assert!(
            o.reads > 10 && o.grant_stalls > 0 && o.passes >= 2 && o.beats > 100,
            "{o:?}"
        );
    }
}

#[test]
fn rtl_matches_cycle_model_default() {
    long_run(
        "default",
        1,
        &[MemTiming { latency: 1, depth: 2 }, MemTiming { latency: 4, depth: 2 }],
    );
}

#[test]
fn rtl_matches_cycle_model_ice40() {
    long_run(
        "ice40",
        2,
        &[MemTiming { latency: 2, depth: 3 }, MemTiming { latency: 3, depth: 1 }],
    );
}

/// The planted bug (`default_mut`: the histogram epoch does not toggle at a pass's end): the
/// RTL differs from the model first at the cycle and on the port where the model with the
/// same planted bug first differs (predicted by stepping it on the same inputs).
#[test]
fn planted_bug_is_caught_where_predicted() {
    let cfg = Config::preset("default").unwrap();
    let (t, mem, _) = tiles(&cfg, 5, 6);
    let d = Drive {
        seed: 77,
        cycles: 80_000,
        timing: MemTiming { latency: 2, depth: 3 },
        valid: Pattern::gaps(20),
        ready: Pattern::Random { pct: 85 },
        grant: Pattern::Random { pct: 85 },
        flush_at: vec![],
    };
    let mut buggy = ShadingSortCycle::new(&cfg);
    buggy.plant_bug();
    let mut clean = Lockstep::new(ShadingSortCycle::new(&cfg), bench(&cfg, &t, &mem, &d));
    let mut mutant = Lockstep::new(buggy, bench(&cfg, &t, &mem, &d));
    let (at, port) = first_difference(&mut clean, &mut mutant, d.cycles)
        .unwrap()
        .expect("the mutant model differs somewhere");
    run("default", &cfg, &t, &mem, &d).unwrap_or_else(|m| panic!("clean: {m}"));
    let m = run("default_mut", &cfg, &t, &mem, &d).expect_err("the planted bug is caught");
    println!("planted bug: predicted cycle {at} on {port}, caught: {m}");
    assert_eq!(
        (m.cycle, m.port.as_str()),
        (at, port.as_str()),
        "caught at the predicted cycle and port"
    );
}
