//! rust-hdl simulation of `PixelInfoRead` against its cycle model `PixelInfoReadCycle` through
//! the one lock-step harness (`tilerast_verif::lockstep`, rust-hdl back end in `tests/common`):
//! a source of start tokens on `inp`, a sink on `out`, golden's `MemoryCycle` behind the read
//! port (`rd` → `rsp`, holding a finished `PixelInfoStore`'s bytes), every output port compared
//! on every cycle. Stimulus: start tokens with gaps and junk payloads while idle, random
//! `out_ready` with a long stall, random memory grant with a long stall, flushes mid-frame; the
//! records out must be golden's `read_second_tile` records, tile by tile.

mod common;

use tilerast_golden::config::Config;
use tilerast_golden::memory_port::{MemTiming, MemoryCycle, SparseMemory};
use tilerast_golden::pixel_info::PixelInfoStore;
use tilerast_golden::pixel_info_read::{tile_beats, PixelInfoReadCycle};
use tilerast_golden::streams::{ports, PiRecord, PiStart};
use tilerast_hw::pixel_info_read::PixelInfoRead;
use tilerast_verif::lockstep::{self, Bench, Ctl, Flushes, Lockstep, Memory, Sink, Source};
use tilerast_verif::stim::{pixel_info_image, pixel_info_store};
use tilerast_verif::{Pattern, Rng};

/// What a run did.
#[derive(Debug, Default)]
struct Report {
    /// Beats out that differ from golden's, first one.
    wrong: Option<String>,
    frames: u64,
    beats: u64,
    nones: u64,
    next_reads: u64,
    rd_stall: u64,
    out_stall: u64,
    longest_out_stall: u64,
    flushes: u64,
    /// First cycle a beat left.
    first_out: Option<u64>,
}

/// The controls of one run: start offered, out_ready, memory grant; flush cycles.
struct Lines {
    valid: Ctl,
    ready: Ctl,
    grant: Ctl,
    flush_at: Vec<u64>,
}

fn golden_frame(st: &PixelInfoStore) -> Vec<PiRecord> {
    let mut st = st.clone();
    let mut beats = Vec::new();
    for t in st.second_tiles().collect::<Vec<_>>() {
        let recs = st.read_second_tile(t).unwrap();
        beats.extend(tile_beats(t, &recs, st.frame_id()));
    }
    beats
}

fn run(cfg: &Config, want: Vec<PiRecord>, timing: MemTiming, mem: SparseMemory, cycles: u64, l: Lines) -> Report {
    // A start token every cycle the valid line is high (never runs out), a random frame id
    // while it is low.
    let starts = vec![PiStart { frame: want[0].frame }; cycles as usize];
    let bench = Bench::new()
        .with("flush", Flushes::at(l.flush_at.clone()))
        .with(
            "inp",
            Source::<ports::PiStart>::new("inp", starts, l.valid).with_random_junk(Rng::new(77), 100),
        )
        .with("out", Sink::<ports::PiRecord>::new("out", l.ready))
        .with("mem", Memory::new("rd", "rsp", MemoryCycle::new(timing, mem), l.grant));
    let ls = Lockstep::new(PixelInfoReadCycle::new(cfg), bench);
    let (ls, outcome) = common::lockstep(PixelInfoRead::new(cfg), ls, cycles, None);
    println!("{}", ls.bench.summary());
    if let Err(m) = outcome {
        panic!("{m}");
    }
    let sink = ls.bench.get::<Sink<ports::PiRecord>>("out");
    let mem = ls.bench.get::<Memory>("mem");
    let mut r = Report {
        beats: sink.received.len() as u64,
        nones: sink.received.iter().filter(|b| b.none).count() as u64,
        next_reads: ls.model.stats().next_reads,
        rd_stall: mem.waits,
        out_stall: sink.waits,
        longest_out_stall: sink.longest_wait,
        flushes: ls.bench.get::<Flushes>("flush").count,
        first_out: sink.received_at.first().copied(),
        ..Report::default()
    };
    // Golden's records, frame after frame; a flush starts the frame again.
    match sink.repeats(&want) {
        Ok(frames) => r.frames = frames,
        Err(e) => r.wrong = Some(e),
    }
    println!("{r:?}");
    assert_eq!(r.wrong, None, "records differ from golden's");
    r
}

#[test]
fn cosim_against_the_cycle_model() {
    // ice40 (40 second tiles, 3 words, 5 per block) and full's 20-byte records on a smaller
    // viewport (5 words, 3 per block), each with its own memory timing.
    let a = Config::preset("ice40").unwrap();
    let mut b = Config::preset("full").unwrap();
    b.viewport = [256, 128];
    for (i, (cfg, timing, quads)) in [
        (a, MemTiming { latency: 2, depth: 3 }, 60),
        (b, MemTiming { latency: 3, depth: 2 }, 40),
    ]
    .into_iter()
    .enumerate()
    {
        let seed = 50 + i as u64;
        let st = pixel_info_store(&cfg, seed, quads, 0xa5);
        let want = golden_frame(&st);
        let ready = Pattern::RandomStalls {
            pct: 75,
            permille: 3,
            min: 5,
            max: 20,
        };
        let lines = Lines {
            valid: lockstep::line(Pattern::gaps(60).line(Rng::stream(seed, 0))),
            ready: lockstep::line_stalled(ready.line(Rng::stream(seed, 1)), 700..800), // a long output stall
            grant: lockstep::line_stalled(Pattern::Random { pct: 75 }.line(Rng::stream(seed, 2)), 1500..1560),
            flush_at: vec![1100, 2300],
        };
        println!("{} S = {}", cfg.name, cfg.msaa);
        let r = run(&cfg, want, timing, pixel_info_image(&st), 4000, lines);
        assert_eq!(r.flushes, 2);
        assert!(r.longest_out_stall >= 90, "long stall: {}", r.longest_out_stall);
        assert!(r.frames >= 1 && r.nones > 5 && r.next_reads > 5, "{r:?}");
        assert!(r.rd_stall > 50 && r.out_stall > 50, "{r:?}");
    }
}

/// Directed: default preset, memory latency 1, nothing stalls; the first record on `out` at
/// cycle 7 + 2L + W = 12 (the contract's latency), checked on the RTL through the model.
#[test]
fn directed_first_record() {
    let cfg = Config::preset("default").unwrap();
    let mut st = PixelInfoStore::new(&cfg, 3).unwrap();
    for i in 0..7 {
        let q = tilerast_golden::Quad {
            prim: 100 + i,
            qx: i as u16,
            qy: 1,
            mask: 0xf0f0,
        };
        st.push(&q, 1000 + i).unwrap();
    }
    st.finish_raster().unwrap();
    let want = golden_frame(&st);
    let lines = Lines {
        valid: Box::new(|c| c == 0), // one start, at cycle 0
        ready: lockstep::always(),
        grant: lockstep::always(),
        flush_at: vec![],
    };
    let r = run(
        &cfg,
        want,
        MemTiming { latency: 1, depth: 2 },
        pixel_info_image(&st),
        40,
        lines,
    );
    assert_eq!(r.first_out, Some(12), "{r:?}");
    assert!(r.beats >= 7, "{r:?}");
}

#[test]
fn verilog_lints_clean() {
    for p in tilerast_golden::PRESETS {
        let cfg = Config::preset(p).unwrap();
        let top = format!("pixel_info_read_{p}");
        let v = tilerast_hw::pixel_info_read::verilog(&cfg, &top);
        assert!(tilerast_hw::emit::rangeless_signed_localparams(&v).is_empty(), "{top}");
        if let Err(msg) = tilerast_hw::emit::lint(&v, &top) {
            panic!("{top}: lint:\n{msg}");
        }
    }
}

#[test]
fn refuses_bad_configs_by_name() {
    let mut cfg = Config::preset("full").unwrap();
    cfg.pixel_info_block_bytes = 16;
    let e = tilerast_hw::pixel_info_read::supported(&cfg).unwrap_err();
    assert!(
        e.starts_with("config.pixel_info_block_bytes:") && !e.contains('\n'),
        "{e}"
    );
}
