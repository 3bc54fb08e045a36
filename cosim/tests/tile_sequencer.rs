//! Verilator co-simulation of the tile sequencer alone
//! (`rtl-out/tilerast_tile_sequencer_{default,ice40}.v`) against its cycle model
//! `TileSequencerCycle`, every port on every cycle, with two golden `MemoryCycle`s behind its
//! read ports: the binner's lists and the primitive table of a random frame
//! (`stim::seq_images`; latency, depth and grant back-pressure varied per run), through the one
//! lock-step harness (`tilerast_verif::lockstep`, Verilator back end `cosim_lockstep`; the
//! bench is `tilerast_cosim::tile_sequencer::bench`).
//! Stimulus: start tokens with gaps (junk frame ids),
//! random `out_ready` with stalls of 1 000 to 3 000 cycles, grant patterns with long memory
//! stalls on each port, flushes mid-frame, frames back to back, 60 000 cycles per run; the
//! beats out must be golden's commands (`pipeline::commands`) with depths and the end token.
//! Plus: the planted bug of `cosim/build/mutation.rs` (the attribute word read at offset 24,
//! the colour word) is caught at the cycle and port predicted by a model built with
//! `with_attr_off(24)`.

use tilerast_cosim::blocks::{cosim_lockstep, BlockRtl};
use tilerast_cosim::tile_sequencer::{bench, lockstep, outcome, Drive, Outcome};
use tilerast_golden::memory_port::MemTiming;
use tilerast_golden::scene::Frame;
use tilerast_golden::tile_sequencer::TileSequencerCycle;
use tilerast_golden::Config;
use tilerast_verif::lockstep::{first_difference, Lockstep, Mismatch};
use tilerast_verif::stim::{seq_frame, seq_images};
use tilerast_verif::Pattern;

const STAGE: &str = "tile_sequencer";

/// RTL `preset` against the model for `frame.cfg` through the lock-step harness (every port,
/// every cycle); then the commands out must be golden's.
fn run(preset: &str, frame: &Frame, d: &Drive) -> Result<Outcome, Box<Mismatch>> {
    let (mut ls, busy) = lockstep(frame, d);
    cosim_lockstep(preset, &mut ls, d.cycles, None)?;
    println!("{}", ls.bench.summary());
    Ok(outcome(&ls, &busy, frame).unwrap_or_else(|e| panic!("{preset}: {e}")))
}

fn long_run(preset: &str, seed: u64, timings: &[(MemTiming, MemTiming)]) {
    let cfg = Config::preset(preset).unwrap();
    let frame = seq_frame(&cfg, seed, 30, 40);
    let bins = seq_images(&frame).2;
    assert!(bins.stats().max_list_len > 30, "a list of ≥ 3 chunks");
    for (i, &(lt, pt)) in timings.iter().enumerate() {
        let s = seed * 10 + i as u64;
        let cycles = 60_000;
        let d = Drive {
            seed: s,
            cycles,
            ltiming: lt,
            ptiming: pt,
            valid: Pattern::gaps(40),
            ready: Pattern::RandomStalls {
                pct: 85,
                permille: 1,
                min: 1_000,
                max: 3_000,
            },
            lgrant: [
                Pattern::Random { pct: 70 },
                Pattern::Stalls {
                    pct: 90,
                    every: 7_000,
                    len: 1_200,
                },
                Pattern::Runs { pct: 85 },
            ][i % 3],
            pgrant: [
                Pattern::Runs { pct: 85 },
                Pattern::Random { pct: 80 },
                Pattern::Stalls {
                    pct: 95,
                    every: 9_000,
                    len: 1_100,
                },
            ][i % 3],
            flush_at: vec![3_003 + 1_000 * i as u64, 21_456, 40_000 + 777 * i as u64],
        };
        let o = run(preset, &frame, &d).unwrap_or_else(|m| {
            panic!(
                "{preset} L{}/{} D{}/{}: {m}",
                lt.latency, pt.latency, lt.depth, pt.depth
            )
        });
        println!(
            "{preset} L{}/{} D{}/{}: {o:?}",
            lt.latency, pt.latency, lt.depth, pt.depth
        );
        assert!(o.frames >= 2, "several frames: {o:?}");
        assert!(o.longest_stall >= 1_000, "{o:?}");
        assert!(o.busy_flushes >= 2, "flushes mid-frame: {o:?}");
        assert!(o.cmds > 0 && o.points > 0 && o.grant_stalls > 100, "{o:?}");
        assert!(o.lreads > 1_000 && o.preads > 1_000, "{o:?}");
    }
}

#[test]
fn rtl_matches_cycle_model_default() {
    long_run(
        "default",
        1,
        &[
            (MemTiming { latency: 1, depth: 2 }, MemTiming { latency: 2, depth: 3 }),
            (MemTiming { latency: 3, depth: 4 }, MemTiming { latency: 1, depth: 1 }),
            (MemTiming { latency: 4, depth: 2 }, MemTiming { latency: 4, depth: 5 }),
        ],
    );
}

#[test]
fn rtl_matches_cycle_model_ice40() {
    long_run(
        "ice40",
        2,
        &[
            (MemTiming { latency: 2, depth: 3 }, MemTiming { latency: 1, depth: 2 }),
            (MemTiming { latency: 1, depth: 1 }, MemTiming { latency: 3, depth: 2 }),
            (MemTiming { latency: 4, depth: 5 }, MemTiming { latency: 2, depth: 3 }),
        ],
    );
}

/// The planted bug (`default_mut`: the attribute word's offset constant is 24, so every
/// command's first table read is the colour word): the RTL differs from the model first at the
/// cycle and on the port where a model built with `with_attr_off(24)` first differs (predicted
/// here by stepping that model on the same inputs): `prd__addr`, the first cycle the first
/// command's first table read is on the port.
#[test]
fn planted_bug_is_caught_where_predicted() {
    let cfg = Config::preset("default").unwrap();
    let frame = seq_frame(&cfg, 5, 30, 20);
    let d = Drive {
        seed: 77,
        cycles: 20_000,
        ltiming: MemTiming { latency: 2, depth: 3 },
        ptiming: MemTiming { latency: 2, depth: 3 },
        valid: Pattern::gaps(20),
        ready: Pattern::Random { pct: 85 },
        lgrant: Pattern::Random { pct: 85 },
        pgrant: Pattern::Random { pct: 85 },
        flush_at: vec![],
    };
    let mut clean = Lockstep::new(TileSequencerCycle::new(&cfg), bench(&frame, &d));
    let mut mutant = Lockstep::new(TileSequencerCycle::new(&cfg).with_attr_off(24), bench(&frame, &d));
    let (at, port) = first_difference(&mut clean, &mut mutant, d.cycles)
        .unwrap()
        .expect("the mutant model differs somewhere");
    run("default", &frame, &d).unwrap_or_else(|m| panic!("clean: {m}"));
    let m = run("default_mut", &frame, &d).expect_err("the planted bug is caught");
    println!("planted bug: predicted cycle {at} on {port}, caught: {m}");
    assert_eq!(
        (m.cycle, m.port.as_str()),
        (at, port.as_str()),
        "caught at the predicted cycle and port"
    );
    assert_eq!(port, "prd__addr");
}

/// Both presets and the mutant are built with the two read ports.
#[test]
fn both_presets_are_built_with_both_read_ports() {
    for p in ["default", "ice40", "default_mut"] {
        let r = BlockRtl::new(p, STAGE).unwrap_or_else(|e| panic!("{e}"));
        let names: Vec<&str> = r.desc.outputs.iter().map(|o| o.name).collect();
        assert!(
            names.contains(&"lrd__addr") && names.contains(&"prd__addr") && names.contains(&"out__depth"),
            "{p}: {names:?}"
        );
    }
}
