//! The sort-based deferred shading block's cycle model (`ShadingSortCycle`) against golden's
//! transaction model (`shade_tile`, per second tile, formatted by `tile_pixels`, and the
//! pipeline's own pixel stream `back_end_input`): the record stream of pixel_info_read in,
//! the colours read through the memory port from the primitive table (a `MemoryCycle`), every
//! pixel beat out equal to golden's, the counters equal `ShadeStats`, the colour reads = the
//! distinct visible primitives of each tile; under input gaps, output back-pressure with
//! stalls ≥ 1000 cycles, read latencies and grant gaps, flushes mid-tile, tiles and frames
//! back to back; the contract's exact cycles; a planted bug caught.

use std::collections::BTreeSet;
use tilerast_golden::cycle::Offer;
use tilerast_golden::memory_port::{MemTiming, MemoryCycle, SparseMemory};
use tilerast_golden::pipeline::{back_end_input, raster_frame};
use tilerast_golden::pixel_info::{PixelInfo, PixelInfoStore, DEPTH_MAX};
use tilerast_golden::pixel_info_read::tile_beats;
use tilerast_golden::prim_table::{self, COLOUR_WORD};
use tilerast_golden::shading_sort::{shade_tile, tile_pixels, ShadeStats, ShadingSortCycle, ShadingSortIn, SsPhase};
use tilerast_golden::streams::{PiRecord, PixSamples};
use tilerast_golden::{Config, DepthFunc, Frame, Rgba, Scene};
use tilerast_verif::{Line, Pattern, Rng};

/// One second tile of a run: the records' beats, golden's pixels and counters.
#[derive(Clone, Debug)]
struct Tile {
    beats: Vec<PiRecord>,
    want: Vec<PixSamples>,
    stats: ShadeStats,
    /// Distinct visible primitives (the colour reads the contract promises).
    prims: u64,
}

/// Golden's view of tile `st` with `recs`.
fn golden_tile(cfg: &Config, st: [u32; 2], recs: &[PixelInfo], colours: &[Rgba], frame: u8) -> Tile {
    let beats = tile_beats(st, recs, frame);
    if recs.is_empty() {
        return Tile {
            beats,
            want: vec![],
            stats: ShadeStats::default(),
            prims: 0,
        };
    }
    let (ts, stats) = shade_tile(cfg, st, recs, colours).unwrap();
    let prims: BTreeSet<u32> = ts.samples.iter().flatten().map(|s| s.0).collect();
    Tile {
        beats,
        want: tile_pixels(cfg, &ts),
        stats,
        prims: prims.len() as u64,
    }
}

fn colour_of(prim: u32) -> Rgba {
    let h = Rng::mix(0xc0102, prim as u64);
    [h as u8, (h >> 8) as u8, (h >> 16) as u8, 0x80 | (h >> 24) as u8]
}

/// The primitive table's colour words for primitives `0..n` (only the colour word is read).
fn colour_memory(colours: &[Rgba]) -> SparseMemory {
    let mut m = SparseMemory::new();
    for (i, c) in colours.iter().enumerate() {
        m.write(32 * i as u32 + 4 * COLOUR_WORD, u32::from_le_bytes(*c), 0xf);
    }
    m
}

/// Random records of second tile `st`: `kind` 0 = few primitives close together (a one-pass
/// sort), 1 = primitives spread over 2^20 ids (more passes), 2 = one big primitive over the
/// whole tile then a few small ones (depth rejections, reuse). Depths sometimes tie.
fn random_recs(cfg: &Config, r: &mut Rng, kind: u32, n: usize) -> (Vec<PixelInfo>, u32) {
    let [w, h] = cfg.second_tile;
    let used = tilerast_golden::pixel_info_read::mask_bits(cfg.msaa);
    let base = r.below(1 << 19) as u32;
    let mut out = Vec::new();
    let mut max_prim = 0;
    if kind == 2 {
        let d = r.below(1 << 23) as u32;
        for qy in 0..h / 2 {
            for qx in 0..w / 2 {
                out.push(PixelInfo {
                    mask: used,
                    depth: d,
                    prim: base,
                    frame: 3,
                    qx: qx as u8,
                    qy: qy as u8,
                });
            }
        }
        max_prim = base;
    }
    let depths = [0, 1000, 1000, 5000, DEPTH_MAX];
    for _ in 0..n {
        let prim = match kind {
            0 => base + r.below(4) as u32,
            1 => base + r.below(1 << 20) as u32,
            _ => base + 1 + r.below(6) as u32,
        };
        max_prim = max_prim.max(prim);
        let mask = match r.below(3) {
            0 => used,
            _ => (r.next_u64() & used).max(1),
        };
        let depth = if r.chance(40) {
            *r.pick(&depths)
        } else {
            r.below(1 << 24) as u32
        };
        out.push(PixelInfo {
            mask,
            depth,
            prim,
            frame: 3,
            qx: r.below((w / 2) as u64) as u8,
            qy: r.below((h / 2) as u64) as u8,
        });
    }
    (out, max_prim)
}

/// `count` random second tiles of `cfg` (some empty), in the reader's order, with colours.
fn random_tiles(cfg: &Config, seed: u64, count: usize) -> (Vec<Tile>, Vec<Rgba>) {
    let mut r = Rng::new(seed);
    let [sw, sh] = cfg.second_tile;
    let nx = cfg.viewport[0].div_ceil(sw);
    let ny = cfg.viewport[1].div_ceil(sh);
    let mut raw = Vec::new();
    let mut max_prim = 0;
    for i in 0..count {
        let t = (i as u32) % (nx * ny);
        let st = [t % nx, t / nx];
        if i % 5 == 3 {
            raw.push((st, vec![]));
            continue;
        }
        let kind = (i % 3) as u32;
        let n = 1 + r.below(if kind == 2 { 12 } else { 60 }) as usize;
        let (recs, m) = random_recs(cfg, &mut r, kind, n);
        max_prim = max_prim.max(m);
        raw.push((st, recs));
    }
    let colours: Vec<Rgba> = (0..=max_prim).map(colour_of).collect();
    let tiles = raw
        .iter()
        .map(|(st, recs)| golden_tile(cfg, *st, recs, &colours, 3))
        .collect();
    (tiles, colours)
}

/// The lines of a run.
struct Lines {
    valid: Line,
    ready: Line,
    grant: Line,
    flush_at: Vec<u64>,
}

impl Lines {
    fn always() -> Lines {
        Lines {
            valid: Pattern::Always.line(Rng::new(0)),
            ready: Pattern::Always.line(Rng::new(0)),
            grant: Pattern::Always.line(Rng::new(0)),
            flush_at: vec![],
        }
    }
}

#[derive(Debug, Default)]
struct Run {
    cycles: u64,
    beats: u64,
    tiles_done: usize,
    flushes: u64,
    busy_flushes: u64,
    flush_phases: BTreeSet<String>,
    longest_stall: u64,
    /// Records taken while the output engine hands out the tile before.
    taken_beside_output: u64,
    rd_stalls: u64,
    /// (cycle, address) of each colour read taken.
    reads: Vec<(u64, u32)>,
    /// Cycle of each beat taken.
    beat_cycles: Vec<u64>,
    /// The phase in every cycle.
    phases: Vec<SsPhase>,
    /// `is_idle` in every cycle.
    idle: Vec<bool>,
    /// `output_busy` in every cycle.
    out_busy: Vec<bool>,
    /// Colour reads since the last flush.
    reads_since_flush: u64,
    /// First tile fed after the last flush.
    restart: usize,
    stats: ShadeStats,
    error: Option<String>,
}

/// Run `model` over `tiles` (records in, pixels out), the colours behind the read port;
/// every beat checked as it leaves. On a flush the input restarts at the first tile not
/// fully out (its pixels expected again).
fn run(
    mut model: ShadingSortCycle,
    tiles: &[Tile],
    mem: SparseMemory,
    timing: MemTiming,
    mut lines: Lines,
    max: u64,
) -> Run {
    let mut m = MemoryCycle::new(timing, mem);
    let mut r = Run::default();
    // Tile index and beat index inside it, for the input and the output.
    let (mut ti, mut bi) = (0usize, 0usize);
    let (mut to, mut po) = (0usize, 0usize);
    let mut stall = 0u64;
    for cyc in 0..max {
        let flush = lines.flush_at.contains(&cyc);
        let valid = lines.valid.step() && ti < tiles.len();
        let ready = lines.ready.step();
        let grant = lines.grant.step();
        let rd_ready = m.req_ready(grant);
        let (rv, rsp) = m.resp();
        let (qv, q) = model.rd();
        let (ov, o) = model.out();
        let in_ready = model.in_ready();
        r.phases.push(model.phase().0);
        r.idle.push(model.is_idle());
        r.out_busy.push(model.output_busy());
        let inp = if valid {
            tiles[ti].beats[bi]
        } else {
            PiRecord::default()
        };
        stall = if ov && !ready { stall + 1 } else { 0 };
        r.longest_stall = r.longest_stall.max(stall);
        r.rd_stalls += (qv && !rd_ready) as u64;
        if flush {
            r.flushes += 1;
            if !model.is_idle() || ti != to || bi != 0 {
                r.busy_flushes += 1;
                r.flush_phases.insert(format!("{:?}", model.phase().0));
                if model.output_busy() {
                    r.flush_phases.insert("Output".to_string());
                }
            }
            // Restart at the first tile not fully out.
            ti = to;
            bi = 0;
            po = 0;
            r.restart = to;
            r.reads_since_flush = 0;
        } else {
            r.taken_beside_output += (valid && in_ready && model.output_busy()) as u64;
            if valid && in_ready {
                let none = tiles[ti].beats[bi].none;
                bi += 1;
                if bi == tiles[ti].beats.len() {
                    ti += 1;
                    bi = 0;
                }
                if none {
                    // The empty tile is done once its token is taken and every earlier tile
                    // is out (the output engine may still hand out the one before it).
                    if to + 1 == ti {
                        to = ti;
                        r.tiles_done += 1;
                    }
                }
            }
            if qv && rd_ready {
                r.reads.push((cyc, q.addr));
                r.reads_since_flush += 1;
            }
            if ov && ready {
                if to >= tiles.len() {
                    r.error
                        .get_or_insert(format!("cycle {cyc}: beat {o:?} after the last tile"));
                } else if o != tiles[to].want[po] {
                    r.error.get_or_insert(format!(
                        "cycle {cyc}: tile {to} beat {po} is {o:?}, golden {:?}",
                        tiles[to].want[po]
                    ));
                }
                r.beats += 1;
                r.beat_cycles.push(cyc);
                po += 1;
                if to < tiles.len() && po == tiles[to].want.len() {
                    po = 0;
                    to += 1;
                    r.tiles_done += 1;
                    // Empty tiles whose tokens were taken while this one was going out.
                    while to < ti && tiles[to].want.is_empty() {
                        to += 1;
                        r.tiles_done += 1;
                    }
                }
            }
        }
        model.clock(&ShadingSortIn {
            flush,
            inp: Offer::new(valid, inp),
            rsp: Offer::new(rv, rsp),
            out_ready: ready,
            rd_ready,
        });
        m.clock(qv && !flush, &q, grant, true, flush);
        r.cycles = cyc + 1;
        if r.error.is_some() || (to == tiles.len() && model.is_idle() && m.held() == 0) {
            break;
        }
    }
    r.stats = model.stats();
    r
}

fn sum_stats(tiles: &[Tile]) -> ShadeStats {
    let mut s = ShadeStats::default();
    for t in tiles {
        s += t.stats;
    }
    s
}

/// Random tiles on ice40, default and full under every kind of gap; two frames back to back.
#[test]
fn random_tiles_equal_golden_under_gaps_and_stalls() {
    let mut agg = ShadeStats::default();
    let mut no_pass = 0;
    let mut one_pass = 0;
    let mut multi_pass = 0;
    for (pi, preset) in ["ice40", "ice40_1x", "default", "full"].into_iter().enumerate() {
        let cfg = Config::preset(preset).unwrap();
        let count = if preset == "full" { 12 } else { 24 };
        let (one, colours) = random_tiles(&cfg, 40 + pi as u64, count);
        for t in &one {
            match t.stats.sort_passes {
                0 if t.stats.shading_points > 0 => no_pass += 1,
                1 => one_pass += 1,
                p if p > 1 => multi_pass += 1,
                _ => {}
            }
        }
        // Two frames back to back.
        let tiles: Vec<Tile> = one.iter().chain(&one).cloned().collect();
        let mem = colour_memory(&colours);
        for latency in [1u32, 3] {
            let seed = (pi * 10) as u64 + latency as u64;
            let lines = Lines {
                valid: Pattern::gaps(40).line(Rng::stream(seed, 0)),
                ready: Pattern::RandomStalls {
                    pct: 70,
                    permille: 1,
                    min: 1000,
                    max: 1500,
                }
                .line(Rng::stream(seed, 1)),
                grant: Pattern::Runs { pct: 70 }.line(Rng::stream(seed, 2)),
                flush_at: vec![],
            };
            let timing = MemTiming {
                latency,
                depth: latency + 1,
            };
            let r = run(
                ShadingSortCycle::new(&cfg),
                &tiles,
                mem.clone(),
                timing,
                lines,
                20_000_000,
            );
            let what = format!("{preset} L{latency}");
            assert_eq!(r.error, None, "{what}");
            assert_eq!(r.tiles_done, tiles.len(), "{what}: every tile out");
            let want: u64 = tiles.iter().map(|t| t.want.len() as u64).sum();
            assert_eq!(r.beats, want, "{what}: beats");
            let st = sum_stats(&tiles);
            assert_eq!(r.stats, st, "{what}: counters equal shade_tile's");
            let prims: u64 = tiles.iter().map(|t| t.prims).sum();
            assert_eq!(r.reads.len() as u64, prims, "{what}: one colour read per primitive");
            assert!(r.rd_stalls > 0, "{what}: reads waited for a grant");
            if preset != "full" {
                assert!(
                    r.longest_stall >= 1000,
                    "{what}: a long output stall ({})",
                    r.longest_stall
                );
            }
            assert!(
                r.taken_beside_output > 0,
                "{what}: records taken while the tile before leaves"
            );
            println!(
                "{what}: {} cycles, {} beats, {} colour reads, longest stall {}, {:?}",
                r.cycles, r.beats, prims, r.longest_stall, st
            );
        }
        agg += sum_stats(&one);
    }
    assert!(
        no_pass > 0 && one_pass > 0 && multi_pass > 0,
        "drawn tiles with no pass {no_pass}, one pass {one_pass}, more passes {multi_pass}"
    );
    assert!(agg.depth_passes < agg.depth_tests, "depth rejections: {agg:?}");
    assert!(
        agg.visible_samples > agg.shading_invocations,
        "shading reuse > 1: {agg:?}"
    );
}

/// Every depth function: rejections under Less and LessEqual (and Less rejecting ties that
/// LessEqual passes), none under Always; results equal golden's.
#[test]
fn every_depth_function() {
    let mut passes = Vec::new();
    for func in [DepthFunc::LessEqual, DepthFunc::Less, DepthFunc::Always] {
        let mut cfg = Config::preset("ice40").unwrap();
        cfg.depth_func = func;
        let (tiles, colours) = random_tiles(&cfg, 77, 15);
        let r = run(
            ShadingSortCycle::new(&cfg),
            &tiles,
            colour_memory(&colours),
            MemTiming { latency: 2, depth: 2 },
            Lines::always(),
            5_000_000,
        );
        assert_eq!(r.error, None, "{func:?}");
        let st = sum_stats(&tiles);
        assert_eq!(r.stats, st, "{func:?}");
        match func {
            DepthFunc::Always => assert_eq!(st.depth_passes, st.depth_tests, "{func:?}"),
            _ => assert!(st.depth_passes < st.depth_tests, "{func:?}: {st:?}"),
        }
        passes.push(st.depth_passes);
    }
    assert!(
        passes[1] < passes[0],
        "Less rejects ties that LessEqual passes: {passes:?}"
    );
    assert!(passes[0] < passes[2], "{passes:?}");
}

/// Flushes mid-tile (in Depth, Readout, the sort, the walk, the output engine's tile with the
/// next tile in Depth): the input restarts at the first tile not fully out and every tile
/// comes out whole; the counters restart.
#[test]
fn flush_mid_tile_then_restart() {
    let cfg = Config::preset("ice40").unwrap();
    let (tiles, colours) = random_tiles(&cfg, 5, 18);
    let mem = colour_memory(&colours);
    let mut phases = BTreeSet::new();
    // (phase, output engine busy or either): the last is Depth beside a tile leaving C.
    let targets = [
        (SsPhase::Init, None),
        (SsPhase::Depth, None),
        (SsPhase::Readout, None),
        (SsPhase::Hist, None),
        (SsPhase::Prefix, None),
        (SsPhase::Scatter, None),
        (SsPhase::Walk, None),
        (SsPhase::WalkWait, None),
        (SsPhase::Depth, Some(true)),
    ];
    let lines = |seed: u64, flush_at: Vec<u64>| Lines {
        valid: Pattern::gaps(20).line(Rng::stream(seed, 0)),
        ready: Pattern::Random { pct: 80 }.line(Rng::stream(seed, 1)),
        grant: Pattern::Random { pct: 80 }.line(Rng::stream(seed, 2)),
        flush_at,
    };
    let timing = MemTiming { latency: 3, depth: 2 };
    for (i, (target, busy)) in targets.into_iter().enumerate() {
        let seed = 300 + i as u64;
        // A run without flush shows when the block is in the target phase (after tile 2 starts).
        let probe = run(
            ShadingSortCycle::new(&cfg),
            &tiles,
            mem.clone(),
            timing,
            lines(seed, vec![]),
            5_000_000,
        );
        assert_eq!(probe.error, None);
        let from = if target == SsPhase::Init { 5 } else { 6_000 };
        let at = (from..probe.cycles)
            .find(|&c| {
                probe.phases[c as usize] == target
                    && busy.is_none_or(|b| probe.out_busy[c as usize] == b)
                    && (target == SsPhase::Init || !probe.idle[c as usize])
            })
            .unwrap_or_else(|| panic!("no cycle in {target:?} (output busy {busy:?})"));
        let r = run(
            ShadingSortCycle::new(&cfg),
            &tiles,
            mem.clone(),
            timing,
            lines(seed, vec![at, at + 9_111]),
            5_000_000,
        );
        assert_eq!(r.error, None, "flush at {at}");
        assert_eq!(r.flushes, 2, "flush at {at}");
        assert!(r.tiles_done >= tiles.len(), "flush at {at}: {}", r.tiles_done);
        assert_eq!(
            r.stats,
            sum_stats(&tiles[r.restart..]),
            "flush at {at}: counters since the flush"
        );
        let prims: u64 = tiles[r.restart..].iter().map(|t| t.prims).sum();
        assert_eq!(
            r.reads_since_flush, prims,
            "flush at {at}: colour reads since the flush"
        );
        assert_eq!(r.phases[at as usize], target, "flush at {at}");
        phases.extend(r.flush_phases);
    }
    println!("flushed in {phases:?}");
    for p in [
        "Depth", "Readout", "Hist", "Prefix", "Scatter", "Walk", "WalkWait", "Output",
    ] {
        assert!(phases.contains(p), "a flush in {p}: {phases:?}");
    }
}

/// Real frames: the records of `scenes/default.json` (rasterized by golden, pushed into the
/// pixel-info store as the pipeline does, read back per second tile), the colours from the
/// frame's primitive table; the pixels equal the pipeline's own back-end stream
/// (`back_end_input`) and the counters its `FrameStats::shade`.
#[test]
fn real_frames_equal_the_pipelines_stream() {
    let path = concat!(env!("CARGO_MANIFEST_DIR"), "/../scenes/default.json");
    let scene = Scene::load(std::path::Path::new(path)).unwrap();
    let base = scene.to_frame(path).unwrap();
    let mut all_nones = 0;
    for preset in ["ice40", "default", "full"] {
        let mut f: Frame = base.clone();
        let vp = f.cfg.viewport;
        f.cfg = Config::preset(preset).unwrap();
        f.cfg.viewport = [vp[0].min(200), vp[1].min(150)];
        f.cfg.guard_band = f.cfg.guard_band.max(256);
        f.cfg.validate().unwrap();
        let cfg = f.cfg.clone();
        let golden = back_end_input(&f).unwrap();
        let stream = golden.back_end.unwrap().input;
        // The records: the raster's quads pushed as the pipeline pushes them.
        let ras = raster_frame(&f, false).unwrap();
        let mut store = PixelInfoStore::new(&cfg, 0).unwrap();
        for tq in &ras.quads {
            store.push(&tq.quad, f.prims[tq.quad.prim as usize].depth()).unwrap();
        }
        store.finish_raster().unwrap();
        let colours: Vec<Rgba> = f.prims.iter().map(|p| p.colour()).collect();
        let mut tiles = Vec::new();
        for st in store.second_tiles().collect::<Vec<_>>() {
            let recs = store.read_second_tile(st).unwrap();
            tiles.push(golden_tile(&cfg, st, &recs, &colours, 0));
        }
        let all: Vec<PixSamples> = tiles.iter().flat_map(|t| t.want.clone()).collect();
        assert_eq!(
            all, stream,
            "{preset}: golden's per-tile reference = the pipeline's stream"
        );
        let table = prim_table::table(&f.prims).unwrap();
        let mut mem = SparseMemory::new();
        for (i, w) in table.chunks(4).enumerate() {
            mem.write(4 * i as u32, u32::from_le_bytes([w[0], w[1], w[2], w[3]]), 0xf);
        }
        let seed = preset.len() as u64;
        let lines = Lines {
            valid: Pattern::gaps(30).line(Rng::stream(seed, 0)),
            ready: Pattern::Random { pct: 85 }.line(Rng::stream(seed, 1)),
            grant: Pattern::Random { pct: 75 }.line(Rng::stream(seed, 2)),
            flush_at: vec![],
        };
        let r = run(
            ShadingSortCycle::new(&cfg),
            &tiles,
            mem,
            MemTiming { latency: 2, depth: 3 },
            lines,
            50_000_000,
        );
        assert_eq!(r.error, None, "{preset}");
        assert_eq!(r.beats, stream.len() as u64, "{preset}");
        assert_eq!(r.stats, golden.stats.shade, "{preset}: counters equal the pipeline's");
        let nones = tiles.iter().filter(|t| t.beats[0].none).count();
        all_nones += nones;
        assert!(
            r.stats.visible_samples > r.stats.shading_points,
            "{preset}: drawn tiles, reuse"
        );
        println!(
            "{preset}: {} tiles ({nones} empty), {} cycles, {} beats, {} colour reads, {:?}",
            tiles.len(),
            r.cycles,
            r.beats,
            r.reads.len(),
            r.stats
        );
    }
    assert!(all_nones > 0, "empty second tiles");
}

/// The contract's cycles, worked by hand on ice40 (w·h = 512, S = 4, d = min(11, 9) = 9, D =
/// 512): Init 512 cycles; record A (prim 5, quad (0, 0), all 16 samples: 4 lanes) taken in
/// cycle 512, its lanes in 513..516; B (prim 7, quad (1, 0), sample 0 of lane 0, `last`) taken
/// in 516, its lane in e = 517. Readout T = 2 + (512 − 5) + 4 + 1 = 514 (A's four pixels are
/// one shading point each, whatever their 4 samples; B's pixel one); n = 5, span 2 → 2
/// primitive bits → one pass over R = 4 counters, 5 + 2·5 + 4 = 19 cycles; walk 3 + 5 +
/// 2·(L + 2); first beat at e + T + 19 + walk + 2, then one per cycle (the whole tile lies in
/// the viewport). Then the same with B's primitive 5 too: one primitive, no pass, a walk of
/// 3 + 5 + (L + 2).
#[test]
fn contract_cycles() {
    let cfg = Config::preset("ice40").unwrap();
    for (b_prim, passes) in [(7u32, 1u64), (5, 0)] {
        for latency in [1u32, 4] {
            let recs = [
                PixelInfo {
                    mask: 0xffff,
                    depth: 10,
                    prim: 5,
                    frame: 1,
                    qx: 0,
                    qy: 0,
                },
                PixelInfo {
                    mask: 1,
                    depth: 10,
                    prim: b_prim,
                    frame: 1,
                    qx: 1,
                    qy: 0,
                },
            ];
            let colours: Vec<Rgba> = (0..8).map(colour_of).collect();
            let tiles = vec![golden_tile(&cfg, [0, 0], &recs, &colours, 1)];
            let r = run(
                ShadingSortCycle::new(&cfg),
                &tiles,
                colour_memory(&colours),
                MemTiming {
                    latency,
                    depth: latency + 1,
                },
                Lines::always(),
                100_000,
            );
            assert_eq!(r.error, None);
            let l = latency as u64;
            let e = 517u64;
            let rr = 514u64;
            let sort = passes * (5 + 2 * 5 + 4);
            let prims = 1 + passes;
            let walk = 3 + 5 + prims * (l + 2);
            let first = e + rr + sort + walk + 2;
            assert_eq!(r.beat_cycles[0], first, "prim {b_prim}, L{l}: first beat");
            assert_eq!(r.beat_cycles.len(), 512);
            assert_eq!(r.beat_cycles[511], first + 511, "L{l}: one beat per cycle");
            // Colour reads: prim 5 (then 7), at word 6 of their entries; the first in the
            // walk's fourth cycle (two setup cycles, notice, request), the second after the first's
            // L-cycle wait, 4 elements (A's pixels, 16 samples) written and one cycle noticing.
            let w0 = e + rr + sort + 4;
            let mut reads = vec![(w0, 5 * 32 + 24)];
            if b_prim != 5 {
                reads.push((w0 + 1 + l + 4 + 1, b_prim * 32 + 24));
            }
            assert_eq!(r.reads, reads, "prim {b_prim}, L{l}");
            assert_eq!(r.stats.sort_passes, passes);
            assert_eq!(r.stats.shading_quads, 2);
            assert_eq!(r.stats.shading_points, 5);
            println!(
                "prim {b_prim}, L{l}: first beat at cycle {first}, colour reads {:?}",
                r.reads
            );
        }
    }
}

/// The planted bug (the histogram's epoch does not toggle between passes, so pass 2 counts on
/// top of pass 1's offsets) is caught on tiles with more than one pass.
#[test]
fn planted_bug_is_caught() {
    let cfg = Config::preset("default").unwrap();
    let (tiles, colours) = random_tiles(&cfg, 41, 6);
    assert!(tiles.iter().any(|t| t.stats.sort_passes > 1));
    let mut model = ShadingSortCycle::new(&cfg);
    model.plant_bug();
    let r = run(
        model,
        &tiles,
        colour_memory(&colours),
        MemTiming::default(),
        Lines::always(),
        2_000_000,
    );
    let e = r.error.expect("the planted bug is caught");
    println!("planted bug: {e}");
}

/// Bad configuration: one line naming the field; junk beyond the record widths is dropped,
/// never a panic (the result is golden's on the masked records).
#[test]
fn refuses_bad_config_and_masks_junk() {
    let mut cfg = Config::preset("ice40").unwrap();
    cfg.sort_digit_bits = 0;
    let e = ShadingSortCycle::try_new(&cfg).unwrap_err();
    assert!(e.starts_with("config.sort_digit_bits") && !e.contains('\n'), "{e}");
    let cfg = Config::preset("ice40").unwrap();
    let good = PixelInfo {
        mask: 0x0f0f,
        depth: 77,
        prim: 3,
        frame: 2,
        qx: 2,
        qy: 1,
    };
    let colours: Vec<Rgba> = (0..4).map(colour_of).collect();
    let mut tiles = vec![golden_tile(&cfg, [1, 0], &[good], &colours, 2)];
    // The same record with junk above every field's width.
    let b = &mut tiles[0].beats[0];
    b.prim |= 0xffe0_0000;
    b.qx |= 0xf0;
    b.qy |= 0xf8;
    b.mask |= 0xffff_0000_0000_0000;
    let r = run(
        ShadingSortCycle::new(&cfg),
        &tiles,
        colour_memory(&colours),
        MemTiming::default(),
        Lines::always(),
        100_000,
    );
    assert_eq!(r.error, None);
    assert_eq!(r.beats, 512);
    assert_eq!(r.stats, tiles[0].stats);
    let _ = SsPhase::Init;
}

/// `is_idle` (the contract's **Idle**): true in the new state (the Init sweep holds nothing of
/// a frame), false in every phase that holds a tile and in Depth while a tile is open (records
/// taken, its last not yet: input gaps make such cycles with no lane pending), true again
/// when the run ends (it ends only on idle with every tile out).
#[test]
fn idle_covers_open_tiles_and_every_busy_phase() {
    let cfg = Config::preset("ice40").unwrap();
    let (tiles, colours) = random_tiles(&cfg, 91, 10);
    let lines = Lines {
        valid: Pattern::gaps(60).line(Rng::stream(91, 0)),
        ready: Pattern::Random { pct: 80 }.line(Rng::stream(91, 1)),
        grant: Pattern::Random { pct: 80 }.line(Rng::stream(91, 2)),
        flush_at: vec![],
    };
    assert!(ShadingSortCycle::new(&cfg).is_idle(), "new state");
    let r = run(
        ShadingSortCycle::new(&cfg),
        &tiles,
        colour_memory(&colours),
        MemTiming { latency: 2, depth: 3 },
        lines,
        5_000_000,
    );
    assert_eq!(r.error, None);
    assert_eq!(r.tiles_done, tiles.len());
    assert!(r.cycles < 5_000_000, "the run ends on idle");
    assert!(r.idle[0] && r.phases[0] == SsPhase::Init);
    let mut open_depth = 0;
    for (c, (&p, &idle)) in r.phases.iter().zip(&r.idle).enumerate() {
        if !matches!(p, SsPhase::Init | SsPhase::Depth) {
            assert!(!idle, "cycle {c}: idle in {p:?}");
        }
        open_depth += (p == SsPhase::Depth && !idle) as u64;
    }
    assert!(open_depth > 0, "no Depth cycle with a tile open");
    assert!(r.idle.iter().any(|&i| !i) && r.idle.iter().any(|&i| i));
}
