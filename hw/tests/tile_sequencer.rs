//! rust-hdl simulation of `TileSequencer` against its cycle model `TileSequencerCycle` through
//! the one lock-step harness (`tilerast_verif::lockstep`, rust-hdl back end in `tests/common`):
//! a source of start tokens on `inp`, a sink on `out`, and two golden `MemoryCycle`s behind the
//! read ports (`lrd` → `lrsp`: the binner's lists, `prd` → `prsp`: the primitive table, of a
//! random frame, `stim::seq_images`), every output port compared on every cycle. Stimulus:
//! start tokens with gaps and junk payloads, random `out_ready` with a long stall, random
//! grants on both ports with a long stall, flushes mid-frame; the beats out must be golden's
//! commands (`pipeline::commands`) with depths and the end token.

mod common;

use tilerast_golden::config::Config;
use tilerast_golden::memory_port::{MemTiming, MemoryCycle, SparseMemory};
use tilerast_golden::streams::{ports, SeqCmd, SeqStart};
use tilerast_golden::tile_sequencer::TileSequencerCycle;
use tilerast_hw::tile_sequencer::TileSequencer;
use tilerast_verif::lockstep::{self, Bench, Ctl, Flushes, Lockstep, Memory, Sink, Source};
use tilerast_verif::stim::{seq_beats, seq_frame, seq_images};
use tilerast_verif::{Pattern, Rng};

/// What a run did.
#[derive(Debug, Default)]
struct Report {
    /// Beats out that differ from golden's, first one.
    wrong: Option<String>,
    frames: u64,
    cmds: u64,
    points: u64,
    lreads: u64,
    preads: u64,
    longest_out_stall: u64,
    flushes: u64,
    first_out: Option<u64>,
}

/// The controls of one run: start offered, out_ready, list grant, table grant; flush cycles.
struct Lines {
    valid: Ctl,
    ready: Ctl,
    lgrant: Ctl,
    pgrant: Ctl,
    flush_at: Vec<u64>,
}

fn run(
    cfg: &Config,
    want: Vec<SeqCmd>,
    timing: MemTiming,
    lists: SparseMemory,
    pt: SparseMemory,
    cycles: u64,
    l: Lines,
) -> Report {
    // A start token every cycle the valid line is high (never runs out); the id is not used,
    // so every token's and every idle cycle's payload is random.
    let mut ids = Rng::new(77);
    let starts: Vec<SeqStart> = (0..cycles)
        .map(|_| SeqStart {
            frame: ids.next_u32() as u8,
        })
        .collect();
    let bench = Bench::new()
        .with("flush", Flushes::at(l.flush_at.clone()))
        .with(
            "inp",
            Source::<ports::SeqStart>::new("inp", starts, l.valid).with_random_junk(Rng::new(78), 100),
        )
        .with("out", Sink::<ports::SeqCmd>::new("out", l.ready))
        .with(
            "lmem",
            Memory::new("lrd", "lrsp", MemoryCycle::new(timing, lists), l.lgrant),
        )
        .with(
            "pmem",
            Memory::new("prd", "prsp", MemoryCycle::new(timing, pt), l.pgrant),
        );
    let ls = Lockstep::new(TileSequencerCycle::new(cfg), bench);
    let (ls, outcome) = common::lockstep(TileSequencer::new(cfg), ls, cycles, None);
    println!("{}", ls.bench.summary());
    if let Err(m) = outcome {
        panic!("{m}");
    }
    let sink = ls.bench.get::<Sink<ports::SeqCmd>>("out");
    let real = |b: &&SeqCmd| !b.end;
    let mut r = Report {
        cmds: sink.received.iter().filter(real).count() as u64,
        points: sink.received.iter().filter(real).filter(|b| b.cmd.kind == 1).count() as u64,
        lreads: ls.bench.get::<Memory>("lmem").requests,
        preads: ls.bench.get::<Memory>("pmem").requests,
        longest_out_stall: sink.longest_wait,
        flushes: ls.bench.get::<Flushes>("flush").count,
        first_out: sink.received_at.first().copied(),
        ..Report::default()
    };
    // Golden's commands, frame after frame; a flush starts the frame again.
    match sink.repeats(&want) {
        Ok(frames) => r.frames = frames,
        Err(e) => r.wrong = Some(e),
    }
    println!("{r:?}");
    assert_eq!(r.wrong, None, "commands differ from golden's");
    r
}

/// ice40 (10x8 first tiles), a frame of 12 primitives + 20 in the hot tile (2 chunks), about
/// 3000 cycles with gaps, stalls and two flushes.
#[test]
fn cosim_against_the_cycle_model() {
    let cfg = Config::preset("ice40").unwrap();
    let frame = seq_frame(&cfg, 21, 12, 20);
    let want = seq_beats(&frame);
    let (lists, pt, _) = seq_images(&frame);
    let seed = 60;
    let ready = Pattern::RandomStalls {
        pct: 80,
        permille: 3,
        min: 5,
        max: 20,
    };
    let lines = Lines {
        valid: lockstep::line(Pattern::gaps(60).line(Rng::stream(seed, 0))),
        ready: lockstep::line_stalled(ready.line(Rng::stream(seed, 1)), 400..500), // a long output stall
        lgrant: lockstep::line_stalled(Pattern::Random { pct: 75 }.line(Rng::stream(seed, 2)), 900..960), // list port
        pgrant: lockstep::line_stalled(Pattern::Runs { pct: 80 }.line(Rng::stream(seed, 3)), 1300..1360), // table port
        flush_at: vec![700, 1900],
    };
    let r = run(&cfg, want, MemTiming { latency: 2, depth: 3 }, lists, pt, 3000, lines);
    assert_eq!(r.flushes, 2);
    assert!(r.longest_out_stall >= 50, "long stall: {}", r.longest_out_stall);
    assert!(r.frames >= 1 && r.cmds > 30 && r.points > 0, "{r:?}");
    assert!(r.lreads > 100 && r.preads > 200, "{r:?}");
}

/// Directed: ice40, latency 1, nothing stalls: the first command on `out` at 16 + 3L = 19.
#[test]
fn directed_first_command() {
    let cfg = Config::preset("ice40").unwrap();
    let frame = seq_frame(&cfg, 4, 0, 3);
    let want = seq_beats(&frame);
    assert_eq!(want[0].cmd.tile_x, 1);
    let (lists, pt, _) = seq_images(&frame);
    let lines = Lines {
        valid: Box::new(|c| c == 0), // one start, at cycle 0
        ready: lockstep::always(),
        lgrant: lockstep::always(),
        pgrant: lockstep::always(),
        flush_at: vec![],
    };
    let r = run(&cfg, want, MemTiming { latency: 1, depth: 2 }, lists, pt, 120, lines);
    // Tile (1, 1) is list 11: 11 empty lists of L + 4 = 5 cycles come first.
    assert_eq!(r.first_out, Some(19 + 11 * 5), "{r:?}");
    assert_eq!(r.cmds, 3, "{r:?}");
}

#[test]
fn verilog_lints_clean() {
    for p in tilerast_golden::PRESETS {
        let cfg = Config::preset(p).unwrap();
        let top = format!("tile_sequencer_{p}");
        let v = tilerast_hw::tile_sequencer::verilog(&cfg, &top);
        assert!(tilerast_hw::emit::rangeless_signed_localparams(&v).is_empty(), "{top}");
        if let Err(msg) = tilerast_hw::emit::lint(&v, &top) {
            panic!("{top}: lint:\n{msg}");
        }
    }
}

#[test]
fn refuses_bad_configs_by_name() {
    let mut cfg = Config::preset("ice40").unwrap();
    cfg.viewport = [4096, 64];
    cfg.tile = [8, 8];
    let e = tilerast_hw::tile_sequencer::supported(&cfg).unwrap_err();
    assert!(e.starts_with("config.tile:") && !e.contains('\n'), "{e}");
}
