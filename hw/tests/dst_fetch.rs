//! rust-hdl simulation of `DstFetch` against its cycle model `DstFetchCycle` through the one
//! lock-step harness (`tilerast_verif::lockstep`, rust-hdl back end in `tests/common`): a
//! source of pixels on `inp`, a sink on `out`, golden's `MemoryCycle` behind the read port
//! (`rd` → `rsp`), a random `background` level, every output port compared on every cycle.
//! Stimulus: random pixels (random slot masks, empty ones, junk above C), input gaps, random
//! `out_ready` with a long stall, random memory grant with a long stall, one flush mid-stream;
//! with `framebuffer: keep` (dst read) and `clear` (dst = background, nothing read).

mod common;

use std::sync::{Arc, Mutex};
use tilerast_golden::config::{Config, FramebufferMode};
use tilerast_golden::dst_fetch::{DstFetchCycle, META_DEPTH};
use tilerast_golden::memory_port::{MemTiming, MemoryCycle, SparseMemory};
use tilerast_golden::output_merger::slot_addr;
use tilerast_golden::streams::{ports, BlendFrag, PixSlots};
use tilerast_hw::dst_fetch::DstFetch;
use tilerast_verif::lockstep::{self, Bench, Ctl, Flushes, Level, Lockstep, Memory, Sink, Source};
use tilerast_verif::{Pattern, Rng};

#[derive(Debug, Default)]
struct Report {
    accepted: u64,
    frags: u64,
    multi: u64,
    full: u64,
    reads: u64,
    lanes: u64,
    /// Samples whose dst is the background level of a cycle of the run (clear).
    background_lanes: u64,
    background_changes: u64,
    meta_full: u64,
    rd_waits: u64,
    out_waits: u64,
    flushes: u64,
}

/// The controls of one run: input valid, out_ready, memory grant; flush cycles.
struct Lines {
    valid: Ctl,
    ready: Ctl,
    grant: Ctl,
    flush_at: Vec<u64>,
}

fn run(cfg: &Config, pixels: Vec<PixSlots>, timing: MemTiming, mem: SparseMemory, cycles: u64, l: Lines) -> Report {
    let k = DstFetchCycle::new(cfg).lanes();
    let meta_full = Arc::new(Mutex::new(0u64));
    let mf = meta_full.clone();
    let bench = Bench::new()
        .with("flush", Flushes::at(l.flush_at))
        .with("inp", Source::<ports::PixSlots>::new("inp", pixels, l.valid))
        .with("out", Sink::<ports::BlendFrag>::new("out", l.ready))
        .with("mem", Memory::new("rd", "rsp", MemoryCycle::new(timing, mem), l.grant))
        .with("background", Level::random("background", Rng::stream(cycles, 7), 20));
    let ls = Lockstep::new(DstFetchCycle::new(cfg), bench)
        .watching(move |_, m: &DstFetchCycle| *mf.lock().unwrap() += (m.meta_len() == META_DEPTH) as u64);
    let (ls, outcome) = common::lockstep(DstFetch::new(cfg), ls, cycles, None);
    println!("{}", ls.bench.summary());
    if let Err(m) = outcome {
        panic!("{m}");
    }
    let sink = ls.bench.get::<Sink<ports::BlendFrag>>("out");
    let lanes = |f: &BlendFrag| f.lane_valid.count_ones() as usize;
    let dsts: Vec<u32> = sink.received.iter().flat_map(|f| f.dst[..lanes(f)].to_vec()).collect();
    let levels = &ls.bench.get::<Level>("background").driven;
    let r = Report {
        accepted: ls.bench.get::<Source<ports::PixSlots>>("inp").accepted,
        frags: sink.received.len() as u64,
        multi: sink.received.iter().filter(|f| lanes(f) > 1).count() as u64,
        full: sink.received.iter().filter(|f| lanes(f) == k).count() as u64,
        reads: ls.bench.get::<Memory>("mem").requests,
        lanes: dsts.len() as u64,
        background_lanes: dsts.iter().filter(|&&d| levels.contains(&(d as u64))).count() as u64,
        background_changes: ls.bench.get::<Level>("background").changes,
        meta_full: *meta_full.lock().unwrap(),
        rd_waits: ls.bench.get::<Memory>("mem").waits,
        out_waits: sink.waits,
        flushes: ls.bench.get::<Flushes>("flush").count,
    };
    println!("{r:?}");
    r
}

fn pixels(cfg: &Config, seed: u64, n: usize) -> Vec<PixSlots> {
    let mut r = Rng::new(seed);
    (0..n)
        .map(|_| {
            let mut p = PixSlots {
                x: r.below(cfg.viewport[0] as u64) as u32,
                y: r.below(cfg.viewport[1] as u64) as u32,
                slot_valid: match r.below(5) {
                    0 => 0,
                    1 => 0xffff,
                    _ => r.next_u32() as u16,
                },
                ..Default::default()
            };
            for c in p.colour.iter_mut() {
                *c = r.next_u32();
            }
            p
        })
        .collect()
}

fn memory(cfg: &Config, seed: u64) -> SparseMemory {
    let mut r = Rng::new(seed);
    let mut m = SparseMemory::new();
    // The slots the pixels can touch (rows below 8 are enough: the pixels' y are masked below).
    for pos in 0..cfg.viewport[0] * 8 * cfg.colours_per_pixel {
        m.write(slot_addr(pos), r.next_u32(), 0xf);
    }
    m
}

/// `n` random pixels in the rows below 8 and the lines of a stressed run: input gaps, random
/// `out_ready` with a long stall at 900..960, a 75 % memory grant stalled over `grant_stall`,
/// one flush at cycle 1200.
fn stressed(cfg: &Config, seed: u64, n: usize, grant_stall: std::ops::Range<u64>) -> (Vec<PixSlots>, Lines) {
    let mut px = pixels(cfg, seed, n);
    for p in px.iter_mut() {
        p.y %= 8;
    }
    let ready = Pattern::RandomStalls {
        pct: 85,
        permille: 5,
        min: 5,
        max: 20,
    };
    let lines = Lines {
        valid: lockstep::line(Pattern::gaps(20).line(Rng::stream(seed, 0))),
        ready: lockstep::line_stalled(ready.line(Rng::stream(seed, 1)), 900..960),
        grant: lockstep::line_stalled(Pattern::Random { pct: 75 }.line(Rng::stream(seed, 2)), grant_stall),
        flush_at: vec![1200],
    };
    (px, lines)
}

#[test]
fn cosim_against_the_cycle_model() {
    // (config, C, P, memory timing): C = 4 with K = 3, and C = 16 with K = 4 at the full width.
    let mut a = Config::preset("ice40").unwrap();
    a.framebuffer = FramebufferMode::Keep;
    a.colours_per_pixel = 4;
    a.colour_block_bytes = 64;
    a.blend_pool = 3;
    let mut b = Config::preset("full").unwrap();
    b.framebuffer = FramebufferMode::Keep;
    b.colours_per_pixel = 16;
    b.colour_block_bytes = 1024;
    for (i, (cfg, timing)) in [
        (a, MemTiming { latency: 2, depth: 3 }),
        (b, MemTiming { latency: 3, depth: 4 }),
    ]
    .into_iter()
    .enumerate()
    {
        let seed = 40 + i as u64;
        let (px, lines) = stressed(&cfg, seed, 1200, 1500..1540);
        println!("C = {}, P = {}", cfg.colours_per_pixel, cfg.blend_pool);
        let r = run(&cfg, px, timing, memory(&cfg, seed), 2500, lines);
        assert_eq!(r.flushes, 1);
        assert!(r.accepted > 150 && r.reads > 1000, "{r:?}");
        assert!(r.multi > 100 && r.full > 50, "multi-lane and full-K fragments: {r:?}");
        assert!(r.meta_full > 20 && r.rd_waits > 100 && r.out_waits > 100, "{r:?}");
        assert_eq!(r.background_lanes, 0, "keep: dst read, not the background: {r:?}");
    }
}

/// `framebuffer: clear`: dst is the `background` level (redrawn at random while pixels flow),
/// the read port never moves, responses are not taken; C = 4 with K = 3 and C = 1 with K = 4.
#[test]
fn cosim_against_the_cycle_model_clear() {
    let mut a = Config::preset("ice40").unwrap();
    a.colours_per_pixel = 4;
    a.colour_block_bytes = 64;
    a.blend_pool = 3;
    let b = Config::preset("default").unwrap();
    for (i, cfg) in [a, b].into_iter().enumerate() {
        assert_eq!(cfg.framebuffer, FramebufferMode::Clear);
        let seed = 60 + i as u64;
        let (px, lines) = stressed(&cfg, seed, 1500, 0..0);
        let r = run(
            &cfg,
            px,
            MemTiming { latency: 2, depth: 3 },
            memory(&cfg, seed),
            2500,
            lines,
        );
        assert_eq!((r.flushes, r.reads), (1, 0), "{r:?}");
        assert!(
            r.accepted > 500 && r.lanes > 700 && r.multi > 100 && r.full > 20,
            "{r:?}"
        );
        assert_eq!(r.background_lanes, r.lanes, "every dst a background level: {r:?}");
        assert!(r.background_changes > 20 && r.out_waits > 100, "{r:?}");
    }
}

/// A directed burst: one-slot pixels back to back (C = 1, K = 4), memory latency 1, nothing
/// stalls. Reads issue at edges 1, 2, 3, 4 (n = 0..3); the fourth closes its fragment only
/// because n = K − 1 (the next pixel follows), its response enters the assembly at edge 6, so
/// `rsp_ready` is low in cycle 7 and the fragment is on `out` from cycle 8.
#[test]
fn directed_burst() {
    let mut cfg = Config::preset("default").unwrap();
    cfg.framebuffer = FramebufferMode::Keep;
    assert_eq!((cfg.colours_per_pixel, cfg.blend_pool), (1, 4));
    let px: Vec<PixSlots> = (0..12)
        .map(|i| PixSlots {
            x: i,
            y: 1,
            slot_valid: 1,
            colour: [i + 100; 16],
        })
        .collect();
    let lines = Lines {
        valid: lockstep::always(),
        ready: lockstep::always(),
        grant: lockstep::always(),
        flush_at: vec![],
    };
    let r = run(
        &cfg,
        px.clone(),
        MemTiming { latency: 1, depth: 2 },
        memory(&cfg, 1),
        40,
        lines,
    );
    assert_eq!((r.accepted, r.reads, r.frags, r.full), (12, 12, 3, 3));
    // The same burst with `framebuffer: clear`: one sample per cycle, no read.
    cfg.framebuffer = FramebufferMode::Clear;
    let lines = Lines {
        valid: lockstep::always(),
        ready: lockstep::always(),
        grant: lockstep::always(),
        flush_at: vec![],
    };
    let r = run(&cfg, px, MemTiming { latency: 1, depth: 2 }, memory(&cfg, 1), 20, lines);
    assert_eq!((r.accepted, r.reads, r.frags, r.full), (12, 0, 3, 3), "{r:?}");
}

/// The harness itself on a block of four streams: the block's `rd__addr` read with one bit
/// flipped at cycle 301 (and nothing else changed) is reported at exactly that cycle and port.
#[test]
fn a_flipped_bit_is_reported_at_its_cycle_and_port() {
    let mut cfg = Config::preset("default").unwrap();
    cfg.framebuffer = FramebufferMode::Keep;
    let mut px = pixels(&cfg, 5, 400);
    for p in px.iter_mut() {
        p.y %= 8;
    }
    let bench = Bench::new()
        .with("inp", Source::<ports::PixSlots>::new("inp", px, lockstep::always()))
        .with("out", Sink::<ports::BlendFrag>::new("out", lockstep::always()))
        .with(
            "mem",
            Memory::new(
                "rd",
                "rsp",
                MemoryCycle::new(MemTiming { latency: 2, depth: 3 }, memory(&cfg, 5)),
                lockstep::always(),
            ),
        )
        .with("background", Level::new("background", |_| 0x1234_5678));
    let ls = Lockstep::new(DstFetchCycle::new(&cfg), bench);
    let (ls, outcome) = common::lockstep(DstFetch::new(&cfg), ls, 400, Some((301, "rd__addr")));
    let m = outcome.expect_err("the flipped bit must be reported");
    assert_eq!((m.cycle, m.port.as_str()), (301, "rd__addr"), "{m}");
    assert_eq!(m.rtl ^ m.model, 1, "{m}");
    assert!(ls.bench.get::<Memory>("mem").requests > 100, "{}", ls.bench.summary());
}

#[test]
fn verilog_lints_clean() {
    for (p, mode) in tilerast_golden::PRESETS
        .iter()
        .map(|p| (*p, FramebufferMode::Clear))
        .chain([("default", FramebufferMode::Keep)])
    {
        let mut cfg = Config::preset(p).unwrap();
        cfg.framebuffer = mode;
        let top = format!("dst_fetch_{p}_{}", mode.name());
        let v = tilerast_hw::dst_fetch::verilog(&cfg, &top);
        assert!(tilerast_hw::emit::rangeless_signed_localparams(&v).is_empty(), "{top}");
        if let Err(m) = tilerast_hw::emit::lint(&v, &top) {
            panic!("{top}: lint:\n{m}");
        }
    }
}
