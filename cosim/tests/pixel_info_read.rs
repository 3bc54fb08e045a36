//! Verilator co-simulation of the pixel-info reader alone
//! (`rtl-out/tilerast_pixel_info_read_{default,ice40}.v`) against its cycle model
//! `PixelInfoReadCycle`, every port on every cycle, with a golden `MemoryCycle` behind the read
//! port holding a finished `PixelInfoStore`'s bytes (latency, depth and `grant` back-pressure
//! varied per run), through the one lock-step harness (`tilerast_verif::lockstep`, Verilator
//! back end `cosim_lockstep`: a source of start tokens, a sink of records, the memory agent,
//! the flushes; ports by name from the model's `block_signature!`). Stimulus: start tokens
//! with gaps (junk frame ids while idle), random `out_ready` with stalls of 1 000 to 3 000
//! cycles, grant patterns with long memory stalls, flushes
//! mid-frame, several frames per run, tens of thousands of cycles; the records out must be
//! golden's `read_second_tile` records, tile by tile, and the reads of every whole frame
//! golden's `bytes_read / 4`. Plus: the planted bug of `cosim/build/mutation.rs` (`K − 1`
//! one too small) is caught at the cycle and port predicted by a model with K − 1 records per
//! block.

use std::sync::{Arc, Mutex};
use tilerast_cosim::blocks::{cosim_lockstep, BlockRtl};
use tilerast_golden::memory_port::{MemTiming, MemoryCycle};
use tilerast_golden::pixel_info::PixelInfoStore;
use tilerast_golden::pixel_info_read::{tile_beats, PixelInfoReadCycle};
use tilerast_golden::streams::{ports, PiRecord, PiStart};
use tilerast_golden::Config;
use tilerast_verif::lockstep::{first_difference, line, Bench, Flushes, Lockstep, Memory, Mismatch, Sink, Source};
use tilerast_verif::stim::{pixel_info_image, pixel_info_store};
use tilerast_verif::{Pattern, Rng};

const STAGE: &str = "pixel_info_read";

fn golden_frame(st: &PixelInfoStore) -> (Vec<PiRecord>, u64) {
    let mut st = st.clone();
    let mut beats = Vec::new();
    for t in st.second_tiles().collect::<Vec<_>>() {
        let recs = st.read_second_tile(t).unwrap();
        beats.extend(tile_beats(t, &recs, st.frame_id()));
    }
    (beats, st.stats().bytes_read)
}

struct Drive {
    seed: u64,
    cycles: u64,
    timing: MemTiming,
    valid: Pattern,
    ready: Pattern,
    grant: Pattern,
    flush_at: Vec<u64>,
}

#[derive(Debug, Default)]
struct Outcome {
    frames: u64,
    beats: u64,
    records: u64,
    nones: u64,
    reads: u64,
    next_reads: u64,
    longest_stall: u64,
    grant_stalls: u64,
    busy_flushes: u64,
    /// Reads of whole frames checked against `bytes_read / 4`.
    frames_read_checked: u64,
}

/// The bench of one drive: start tokens for `st`'s frame (junk frame ids while idle), a sink
/// for the records, golden's memory holding `st`'s bytes behind the read port, the flushes.
fn bench(d: &Drive, st: &PixelInfoStore) -> Bench {
    let start = PiStart { frame: st.frame_id() };
    Bench::new()
        .with("flush", Flushes::at(d.flush_at.clone()))
        .with(
            "inp",
            Source::<ports::PiStart>::new("inp", vec![start], line(d.valid.line(Rng::stream(d.seed, 0))))
                .cyclic()
                .with_random_junk(Rng::stream(d.seed, 3), 100),
        )
        .with(
            "out",
            Sink::<ports::PiRecord>::new("out", line(d.ready.line(Rng::stream(d.seed, 1)))),
        )
        .with(
            "mem",
            Memory::new(
                "rd",
                "rsp",
                MemoryCycle::new(d.timing, pixel_info_image(st)),
                line(d.grant.line(Rng::stream(d.seed, 2))),
            )
            .logged(),
        )
}

/// Where a model with `k` records per block first differs from the model under the same
/// drive: (cycle, port).
fn predict(cfg: &Config, st: &PixelInfoStore, d: &Drive, k: u32) -> Option<(u64, String)> {
    let mut a = Lockstep::new(PixelInfoReadCycle::new(cfg), bench(d, st));
    let mut b = Lockstep::new(PixelInfoReadCycle::with_per_block(cfg, k).unwrap(), bench(d, st));
    first_difference(&mut a, &mut b, d.cycles).unwrap()
}

/// Split `v` at the flush marks (what follows a flush starts afresh).
fn segments<T>(v: &[T], marks: &[usize]) -> Vec<std::ops::Range<usize>> {
    let mut out = Vec::new();
    let mut from = 0;
    for &m in marks.iter().chain(std::iter::once(&v.len())) {
        out.push(from..m);
        from = m;
    }
    out
}

/// RTL `preset` against the model for `cfg` through the lock-step harness (every port, every
/// cycle) with `st`'s bytes behind the port; then the records out must be golden's, frame by
/// frame, and every whole frame's reads `bytes_read / 4`.
fn run(preset: &str, cfg: &Config, st: &PixelInfoStore, d: &Drive) -> Result<Outcome, Box<Mismatch>> {
    let (want, bytes) = golden_frame(st);
    let busy = Arc::new(Mutex::new(0u64));
    let b = busy.clone();
    let flush_at = d.flush_at.clone();
    let mut ls = Lockstep::new(PixelInfoReadCycle::new(cfg), bench(d, st)).watching(move |c, m| {
        *b.lock().unwrap() += (flush_at.contains(&c) && !m.core().is_quiet()) as u64;
    });
    cosim_lockstep(preset, &mut ls, d.cycles, None)?;
    println!("{}", ls.bench.summary());
    let sink = ls.bench.get::<Sink<ports::PiRecord>>("out");
    let mem = ls.bench.get::<Memory>("mem");
    let mut o = Outcome {
        longest_stall: sink.longest_wait,
        grant_stalls: mem.waits,
        reads: mem.requests,
        next_reads: ls.model.stats().next_reads,
        busy_flushes: *busy.lock().unwrap(),
        ..Default::default()
    };
    o.frames = sink.repeats(&want).unwrap_or_else(|e| panic!("not golden's: {e}"));
    for beat in &sink.received {
        o.beats += 1;
        o.records += (!beat.none) as u64;
        o.nones += beat.none as u64;
    }
    // A frame's reads start with list 0's head (offset 0, read by nothing else): the reads
    // from one such read to the next, with no flush between, are one whole frame's.
    let log = mem.log.as_ref().unwrap();
    for seg in segments(log, &mem.flush_marks) {
        let heads: Vec<usize> = seg.clone().filter(|&i| log[i].addr == 0).collect();
        for w in heads.windows(2) {
            assert_eq!((w[1] - w[0]) as u64, bytes / 4, "reads in a frame of {bytes} bytes");
            o.frames_read_checked += 1;
        }
    }
    Ok(o)
}

fn long_run(preset: &str, seed: u64, quads: usize, timings: &[MemTiming]) {
    let cfg = Config::preset(preset).unwrap();
    let st = pixel_info_store(&cfg, seed, quads, 0x3c);
    for (i, &timing) in timings.iter().enumerate() {
        let s = seed * 10 + i as u64;
        let cycles = 120_000;
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
                Pattern::Runs { pct: 85 },
            ][i % 3],
            flush_at: vec![5_003 + 1_000 * i as u64, 43_456, 81_000 + 777 * i as u64],
        };
        let o = run(preset, &cfg, &st, &d)
            .unwrap_or_else(|m| panic!("{preset} L{} D{}: {m}", timing.latency, timing.depth));
        println!("{preset} L{} D{}: {o:?}", timing.latency, timing.depth);
        assert!(o.frames >= 3, "several frames: {o:?}");
        assert!(o.frames_read_checked >= 2, "{o:?}");
        assert!(o.longest_stall >= 1_000, "{o:?}");
        assert!(o.busy_flushes >= 2, "flushes mid-frame: {o:?}");
        assert!(
            o.nones > 0 && o.next_reads > 0 && o.grant_stalls > 100 && o.reads > 10_000,
            "{o:?}"
        );
    }
}

#[test]
fn rtl_matches_cycle_model_default() {
    long_run(
        "default",
        1,
        500,
        &[
            MemTiming { latency: 1, depth: 2 },
            MemTiming { latency: 3, depth: 4 },
            MemTiming { latency: 4, depth: 5 },
        ],
    );
}

#[test]
fn rtl_matches_cycle_model_ice40() {
    long_run(
        "ice40",
        2,
        300,
        &[
            MemTiming { latency: 2, depth: 3 },
            MemTiming { latency: 1, depth: 1 },
            MemTiming { latency: 4, depth: 2 },
        ],
    );
}

/// The planted bug (`default_mut`: the core's K − 1 constant is 3, so a full block's `next`
/// is read after its 4th record): the RTL differs from the model first at the cycle and on the
/// port where a model with K − 1 = 4 records per block first differs (predicted here by
/// stepping that model on the same inputs): the read port, the cycle after the model loads
/// the 5th record's first word of the first full block while the mutant loads `next`.
#[test]
fn planted_bug_is_caught_where_predicted() {
    let cfg = Config::preset("default").unwrap();
    let st = pixel_info_store(&cfg, 5, 400, 0x3c);
    let d = Drive {
        seed: 77,
        cycles: 20_000,
        timing: MemTiming { latency: 2, depth: 3 },
        valid: Pattern::gaps(20),
        ready: Pattern::Random { pct: 85 },
        grant: Pattern::Random { pct: 85 },
        flush_at: vec![],
    };
    // The prediction: a model with K − 1 = 4 records per block, on the same drive.
    let (at, port) = predict(&cfg, &st, &d, 4).expect("the mutant model differs somewhere");
    run("default", &cfg, &st, &d).unwrap_or_else(|m| panic!("clean: {m}"));
    let m = run("default_mut", &cfg, &st, &d).expect_err("the planted bug is caught");
    println!("planted bug: predicted cycle {at} on {port}, caught: {m}");
    assert_eq!(
        (m.cycle, m.port.as_str()),
        (at, port.as_str()),
        "caught at the predicted cycle and port"
    );
    assert!(port.starts_with("rd__addr"), "{port}");
}

/// The port table names every port the encoders drive (no port forgotten, none unknown).
#[test]
fn both_presets_are_built_with_the_memory_port() {
    for p in ["default", "ice40", "default_mut"] {
        let r = BlockRtl::new(p, STAGE).unwrap_or_else(|e| panic!("{e}"));
        let names: Vec<&str> = r.desc.outputs.iter().map(|o| o.name).collect();
        assert!(
            names.contains(&"rd__addr") && names.contains(&"out__mask"),
            "{p}: {names:?}"
        );
    }
}

/// The harness itself on a block of four streams in Verilator: one bit of `out__mask` read
/// flipped at cycle 2 000 is reported at exactly that cycle and port, after a clean start.
#[test]
fn a_flipped_bit_is_reported_at_its_cycle_and_port() {
    let cfg = Config::preset("default").unwrap();
    let st = pixel_info_store(&cfg, 5, 400, 0x3c);
    let d = Drive {
        seed: 9,
        cycles: 3_000,
        timing: MemTiming { latency: 2, depth: 3 },
        valid: Pattern::gaps(20),
        ready: Pattern::Random { pct: 85 },
        grant: Pattern::Random { pct: 85 },
        flush_at: vec![],
    };
    let mut ls = Lockstep::new(PixelInfoReadCycle::new(&cfg), bench(&d, &st));
    let m = cosim_lockstep("default", &mut ls, d.cycles, Some((2_000, "out__mask")))
        .expect_err("the flipped bit is reported");
    assert_eq!((m.cycle, m.port.as_str()), (2_000, "out__mask"), "{m}");
    assert_eq!(m.rtl ^ m.model, 1, "{m}");
    assert!(ls.bench.get::<Memory>("mem").requests > 500, "{}", ls.bench.summary());
}
