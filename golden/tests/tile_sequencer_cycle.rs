//! The tile sequencer's cycle model (`TileSequencerCycle`) against golden's command list
//! (`pipeline::commands(frame)`, plus each primitive's depth and the frame-end token), with two
//! `MemoryCycle`s behind its read ports: the binner's lists (`binner::bin_primitives`, its
//! memory byte for byte) and the primitive table (`prim_table::table`), from the kit's
//! `stim::seq_images`. Random frames of triangles and points (`stim::seq_frame`: the kit's
//! `spread_triangle` / `point_at` on its RNG)
//! with a hot tile (a list of ≥ 3 chunks) and empty tiles, on ice40, default and full, under
//! random grants and latencies on both ports, output back-pressure with stalls ≥ 1000
//! cycles, flushes mid-frame with a restart, frames back to back; plus the contract's exact
//! cycles and a broken model that the checks catch.

use tilerast_golden::binner::{Bins, BIN_CHUNK_BYTES};
use tilerast_golden::cycle::Offer;
use tilerast_golden::memory_port::{MemTiming, MemoryCycle, SparseMemory};
use tilerast_golden::prim::PrimitiveFx;
use tilerast_golden::scene::Frame;
use tilerast_golden::streams::{SeqCmd, SeqStart};
use tilerast_golden::tile_sequencer::{TileSequencerCycle, TileSequencerIn, ATTR_OFF};
use tilerast_golden::Config;
use tilerast_verif::stim::{seq_beats, seq_frame, seq_images, spread_triangle};
use tilerast_verif::{Line, Pattern, Rng};

fn random_frame(cfg: &Config, seed: u64, n: usize, hot: usize) -> Frame {
    seq_frame(cfg, seed, n, hot)
}

fn golden_beats(frame: &Frame) -> Vec<SeqCmd> {
    seq_beats(frame)
}

fn images(frame: &Frame) -> (SparseMemory, SparseMemory, Bins) {
    seq_images(frame)
}

struct Lines {
    valid: Line,
    ready: Line,
    lgrant: Line,
    pgrant: Line,
    flush_at: Vec<u64>,
}

fn always() -> Line {
    Pattern::Always.line(Rng::new(0))
}

fn quiet_lines() -> Lines {
    Lines {
        valid: always(),
        ready: always(),
        lgrant: always(),
        pgrant: always(),
        flush_at: vec![],
    }
}

#[derive(Debug, Default)]
struct Run {
    cycles: u64,
    frames: u64,
    beats: u64,
    cmds: u64,
    points: u64,
    triangles: u64,
    flushes: u64,
    busy_flushes: u64,
    longest_stall: u64,
    /// Cycle of every beat out (since the start), and of the first start taken.
    out_at: Vec<u64>,
    start_at: Option<u64>,
    /// Prim-table read addresses accepted since the last flush.
    preads: Vec<u32>,
    empty_tiles: u64,
    slot_waits: u64,
    error: Option<String>,
}

/// Run `model` for `frames` frames of `want`, checking every beat as it leaves.
#[allow(clippy::too_many_arguments)]
fn run(
    mut model: TileSequencerCycle,
    lists: SparseMemory,
    pt: SparseMemory,
    lt: MemTiming,
    ptm: MemTiming,
    want: &[SeqCmd],
    frames: u64,
    mut lines: Lines,
    max: u64,
) -> Run {
    let mut lm = MemoryCycle::new(lt, lists);
    let mut pm = MemoryCycle::new(ptm, pt);
    let mut r = Run::default();
    let mut pos = 0usize;
    let mut starts_left = frames;
    let mut stall = 0u64;
    for cyc in 0..max {
        let flush = lines.flush_at.contains(&cyc);
        let offer = lines.valid.step() && starts_left > 0;
        let ready = lines.ready.step();
        let lg = lines.lgrant.step();
        let pg = lines.pgrant.step();
        let lrd_ready = lm.req_ready(lg);
        let prd_ready = pm.req_ready(pg);
        let (lv, lrsp) = lm.resp();
        let (pv, prsp) = pm.resp();
        let (lqv, lq) = model.lrd();
        let (pqv, pq) = model.prd();
        let (ov, o) = model.out();
        let in_ready = model.in_ready();
        stall = if ov && !ready { stall + 1 } else { 0 };
        r.longest_stall = r.longest_stall.max(stall);
        if flush {
            r.flushes += 1;
            r.busy_flushes += (!model.is_quiet()) as u64;
            if pos > 0 || !in_ready {
                starts_left += 1;
            }
            pos = 0;
            r.preads.clear();
        } else {
            if offer && in_ready {
                starts_left -= 1;
                r.start_at.get_or_insert(cyc);
            }
            if pqv && prd_ready {
                r.preads.push(pq.addr);
                assert!(!pq.write && pq.wdata == 0 && pq.be == 0);
            }
            assert!(!lqv || (!lq.write && lq.wdata == 0 && lq.be == 0));
            if ov && ready {
                r.out_at.push(cyc);
                if o != want[pos] && r.error.is_none() {
                    r.error = Some(format!("cycle {cyc}: beat {pos} is {o:?}, golden {:?}", want[pos]));
                }
                r.beats += 1;
                if !o.end {
                    r.cmds += 1;
                    r.points += (o.cmd.kind == 1) as u64;
                    r.triangles += (o.cmd.kind == 0) as u64;
                }
                pos += 1;
                if pos == want.len() {
                    pos = 0;
                    r.frames += 1;
                }
            }
        }
        model.clock(&TileSequencerIn {
            flush,
            inp: Offer::new(offer, SeqStart { frame: 3 }),
            lrsp: Offer::new(lv, lrsp),
            prsp: Offer::new(pv, prsp),
            out_ready: ready,
            lrd_ready,
            prd_ready,
        });
        lm.clock(lqv && !flush, &lq, lg, true, flush);
        pm.clock(pqv && !flush, &pq, pg, true, flush);
        r.cycles = cyc + 1;
        if r.error.is_some()
            || (r.frames >= frames && starts_left == 0 && model.is_quiet() && lm.held() == 0 && pm.held() == 0)
        {
            break;
        }
    }
    r.empty_tiles = model.stats().empty_tiles;
    r.slot_waits = model.stats().slot_waits;
    r
}

/// The prim-table reads of a frame, walked here from the commands: per command words 7, 0..5
/// of its entry.
fn golden_preads(want: &[SeqCmd]) -> Vec<u32> {
    let mut out = Vec::new();
    for b in want.iter().filter(|b| !b.end) {
        let base = b.cmd.prim * 32;
        out.push(base + 28);
        out.extend((0..6).map(|k| base + 4 * k));
    }
    out
}

#[test]
fn commands_equal_golden_under_back_pressure() {
    for (pi, preset) in ["ice40", "default", "full"].into_iter().enumerate() {
        let mut cfg = Config::preset(preset).unwrap();
        if preset == "full" {
            // Fewer tiles keep the run short; still 16x8 first tiles of 64 pixels.
            cfg.viewport = [1024, 512];
        }
        let frame = random_frame(&cfg, 40 + pi as u64, 40, 40);
        let want = golden_beats(&frame);
        let (lists, pt, bins) = images(&frame);
        let st = bins.stats();
        let per = (BIN_CHUNK_BYTES - 4) / 4;
        assert!(
            st.max_list_len > 2 * per,
            "{preset}: a list of ≥ 3 chunks ({})",
            st.max_list_len
        );
        let n_tiles = bins.tiles()[0] * bins.tiles()[1];
        assert!((st.tiles_touched as u32) < n_tiles, "{preset}: empty tiles");
        let preads = golden_preads(&want);
        for (li, latency) in [1u32, 2, 4].into_iter().enumerate() {
            let seed = (pi * 10 + li) as u64;
            let lines = Lines {
                valid: Pattern::gaps(50).line(Rng::stream(seed, 0)),
                ready: Pattern::RandomStalls {
                    pct: 70,
                    permille: 1,
                    min: 1000,
                    max: 1500,
                }
                .line(Rng::stream(seed, 1)),
                lgrant: Pattern::Random { pct: 70 }.line(Rng::stream(seed, 2)),
                pgrant: Pattern::Runs { pct: 80 }.line(Rng::stream(seed, 3)),
                flush_at: vec![],
            };
            let lt = MemTiming {
                latency,
                depth: latency + 1,
            };
            let ptm = MemTiming {
                latency: 5 - latency,
                depth: 1 + li as u32,
            };
            let r = run(
                TileSequencerCycle::new(&cfg),
                lists.clone(),
                pt.clone(),
                lt,
                ptm,
                &want,
                3,
                lines,
                3_000_000,
            );
            let what = format!("{preset} L{latency}");
            assert_eq!(r.error, None, "{what}");
            assert_eq!(r.frames, 3, "{what}: {r:?}");
            assert_eq!(r.beats, 3 * want.len() as u64, "{what}");
            let thrice: Vec<u32> = preads.iter().chain(&preads).chain(&preads).copied().collect();
            assert_eq!(r.preads, thrice, "{what}: prim-table reads");
            assert!(r.cmds > 0 && r.points > 0 && r.triangles > 0, "{what}: {r:?}");
            assert!(r.empty_tiles > 0, "{what}: empty tiles");
            assert!(
                r.longest_stall >= 1000,
                "{what}: a stall of ≥ 1000 cycles ({})",
                r.longest_stall
            );
            println!(
                "{what}: {} cycles, {} commands ({} points), {} empty tiles, longest list {} ({} chunks), longest stall {}, {} slot waits",
                r.cycles,
                r.cmds,
                r.points,
                r.empty_tiles,
                st.max_list_len,
                st.max_list_len.div_ceil(per),
                r.longest_stall,
                r.slot_waits
            );
        }
    }
}

/// Flushes mid-frame (list reads, prim-table reads and slots in flight), then a restart: the
/// frame comes out whole after the last flush.
#[test]
fn flush_mid_frame_then_restart() {
    let cfg = Config::preset("ice40").unwrap();
    let frame = random_frame(&cfg, 5, 30, 35);
    let want = golden_beats(&frame);
    let (lists, pt, _) = images(&frame);
    for (i, at) in [3u64, 30, 250, 900, 2000].into_iter().enumerate() {
        let seed = 700 + i as u64;
        let lines = Lines {
            valid: Pattern::gaps(30).line(Rng::stream(seed, 0)),
            ready: Pattern::Random { pct: 80 }.line(Rng::stream(seed, 1)),
            lgrant: Pattern::Random { pct: 80 }.line(Rng::stream(seed, 2)),
            pgrant: Pattern::Random { pct: 80 }.line(Rng::stream(seed, 3)),
            flush_at: vec![at, at + 1_777],
        };
        let t = MemTiming { latency: 3, depth: 3 };
        let r = run(
            TileSequencerCycle::new(&cfg),
            lists.clone(),
            pt.clone(),
            t,
            t,
            &want,
            2,
            lines,
            1_000_000,
        );
        assert_eq!(r.error, None, "flush at {at}");
        assert_eq!((r.flushes, r.frames), (2, 2), "flush at {at}: {r:?}");
        assert!(r.busy_flushes >= 1, "flush at {at}: a flush with work in flight");
    }
}

/// A frame with no primitive: just the end tokens, back to back.
#[test]
fn frames_without_commands_are_just_the_token() {
    let cfg = Config::preset("ice40").unwrap();
    let frame = Frame {
        cfg: cfg.clone(),
        background: [0; 4],
        prims: vec![],
    };
    let want = golden_beats(&frame);
    assert_eq!(want.len(), 1);
    let (lists, pt, _) = images(&frame);
    let t = MemTiming { latency: 2, depth: 3 };
    let r = run(
        TileSequencerCycle::new(&cfg),
        lists,
        pt,
        t,
        t,
        &want,
        4,
        quiet_lines(),
        100_000,
    );
    assert_eq!(r.error, None);
    assert_eq!((r.frames, r.beats, r.cmds), (4, 4, 0));
}

/// The contract's cycles (all ready, D = L + 1): the first command on `out` at 16 + 3L; inside
/// a tile one command every 7 cycles (a tile of ≥ 45 commands over 3 chunks); an all-empty
/// frame's end token at N·(L + 4) + 3.
#[test]
fn contract_cycles() {
    let cfg = Config::preset("ice40").unwrap();
    let n = cfg.tiles()[0] * cfg.tiles()[1];
    for l in 1..=4u32 {
        let t = MemTiming {
            latency: l,
            depth: l + 1,
        };
        // 50 small triangles in tile (0, 0) only.
        let mut r = Rng::new(9);
        let prims: Vec<PrimitiveFx> = (0..50)
            .map(|_| {
                let x = (1 + r.below(8) as i32) * 256;
                let y = (1 + r.below(8) as i32) * 256;
                spread_triangle(&cfg, (x, y), (3 * 256, 0), (0, 3 * 256), 1)
            })
            .collect();
        let frame = Frame {
            cfg: cfg.clone(),
            background: [0; 4],
            prims,
        };
        let want = golden_beats(&frame);
        assert!(want.iter().all(|b| b.end || (b.cmd.tile_x, b.cmd.tile_y) == (0, 0)));
        assert_eq!(want.len(), 51);
        let (lists, pt, _) = images(&frame);
        let run1 = run(
            TileSequencerCycle::new(&cfg),
            lists,
            pt,
            t,
            t,
            &want,
            1,
            quiet_lines(),
            100_000,
        );
        assert_eq!(run1.error, None);
        let l64 = l as u64;
        assert_eq!(run1.start_at, Some(0));
        assert_eq!(run1.out_at[0], 16 + 3 * l64, "L{l}: first command");
        for k in 1..50 {
            assert_eq!(
                run1.out_at[k] - run1.out_at[k - 1],
                7,
                "L{l}: command {k}: 7 cycles per command"
            );
        }
        // All tiles empty.
        let empty = Frame {
            cfg: cfg.clone(),
            background: [0; 4],
            prims: vec![],
        };
        let want = golden_beats(&empty);
        let (lists, pt, _) = images(&empty);
        let run2 = run(
            TileSequencerCycle::new(&cfg),
            lists,
            pt,
            t,
            t,
            &want,
            1,
            quiet_lines(),
            100_000,
        );
        assert_eq!(run2.error, None);
        assert_eq!(
            run2.out_at[0],
            n as u64 * (l64 + 4) + 3,
            "L{l}: all-empty frame: L + 4 cycles per tile"
        );
        println!(
            "L{l}: first command at {}, 7 cycles per command, {} tiles empty: end at {} ({} per tile)",
            run1.out_at[0],
            n,
            run2.out_at[0],
            l + 4
        );
    }
}

/// A broken model (the attribute read from the colour word's offset) is caught.
#[test]
fn broken_model_is_caught() {
    let cfg = Config::preset("ice40").unwrap();
    let frame = random_frame(&cfg, 8, 20, 0);
    let want = golden_beats(&frame);
    let (lists, pt, _) = images(&frame);
    let t = MemTiming { latency: 1, depth: 2 };
    let m = TileSequencerCycle::new(&cfg).with_attr_off(ATTR_OFF - 4);
    let r = run(m, lists, pt, t, t, &want, 1, quiet_lines(), 100_000);
    let e = r.error.expect("the broken model is caught");
    println!("broken model: {e}");
}

/// What cannot be built: one line naming the field.
#[test]
fn refuses_by_name() {
    let mut cfg = Config::preset("ice40").unwrap();
    cfg.viewport = [4096, 64];
    cfg.tile = [8, 8];
    cfg.validate().unwrap();
    let e = TileSequencerCycle::try_new(&cfg).unwrap_err();
    println!("{e}");
    assert!(
        e.starts_with("config.tile:") && e.contains("tile_x") && !e.contains('\n'),
        "{e}"
    );
    cfg.viewport = [0, 64];
    let e = TileSequencerCycle::try_new(&cfg).unwrap_err();
    assert!(e.starts_with("config.viewport") && !e.contains('\n'), "{e}");
    for p in ["ice40", "default", "full", "ice40_1x"] {
        assert!(TileSequencerCycle::try_new(&Config::preset(p).unwrap()).is_ok(), "{p}");
    }
}
