//! The pixel-info reader's cycle model (`PixelInfoReadCycle`, on the list reader core
//! `ListReaderCycle`) against golden's transaction model (`PixelInfoStore::read_second_tile`),
//! with the memory behind the port as a `MemoryCycle` holding the store's bytes: records out
//! equal `read_second_tile` for every second tile in order (empty tiles as `none` tokens), the
//! reads are golden's (addresses walked independently here, count = `bytes_read / 4`), under
//! start gaps, output back-pressure with long stalls, memory latencies 1..4, depths 1..4 and
//! grant patterns, flushes mid-frame with a restart; plus the contract's exact cycles and a
//! planted bug that the checks catch.

use tilerast_golden::cycle::Offer;
use tilerast_golden::list_reader::{ListGeom, ListReaderCycle, Seq, OUT_DEPTH};
use tilerast_golden::memory_port::{MemTiming, MemoryCycle, SparseMemory};
use tilerast_golden::pixel_info::{PixelInfoStore, NIL};
use tilerast_golden::pixel_info_read::{tile_beats, PixelInfoReadCycle, PixelInfoReadIn};
use tilerast_golden::streams::{MemResp, PiRecord, PiStart};
use tilerast_golden::Config;
use tilerast_verif::stim::{pixel_info_image, pixel_info_store};
use tilerast_verif::{Line, Pattern, Rng};

/// Golden's beats for a whole frame (every second tile in order) and its bytes read.
fn golden_frame(st: &PixelInfoStore) -> (Vec<PiRecord>, u64) {
    let mut st = st.clone();
    let before = st.stats().bytes_read;
    let mut beats = Vec::new();
    for t in st.second_tiles().collect::<Vec<_>>() {
        let recs = st.read_second_tile(t).unwrap();
        beats.extend(tile_beats(t, &recs, st.frame_id()));
    }
    (beats, st.stats().bytes_read - before)
}

/// The read addresses of a whole frame, walked here from the bytes (independently of the
/// models): per list head, count, the records' words, a `next` only when records remain.
fn golden_reads(cfg: &Config, mem: &SparseMemory, lists: u32) -> Vec<u32> {
    let b = cfg.pixel_info_block_bytes;
    let r = tilerast_golden::pixel_info::record_bytes(cfg.msaa);
    let k = (b - 4) / r;
    let mut out = Vec::new();
    for l in 0..lists {
        out.push(8 * l);
        out.push(8 * l + 4);
        let (mut blk, mut left) = (mem.read(8 * l), mem.read(8 * l + 4));
        while left > 0 {
            assert_ne!(blk, NIL);
            let n = left.min(k);
            for i in 0..n {
                for w in 0..r / 4 {
                    out.push(blk * b + 4 + i * r + 4 * w);
                }
            }
            left -= n;
            if left > 0 {
                out.push(blk * b);
                blk = mem.read(blk * b);
            }
        }
    }
    out
}

/// The lines of a run.
struct Lines {
    valid: Line,
    ready: Line,
    grant: Line,
    flush_at: Vec<u64>,
}

#[derive(Debug, Default)]
struct Run {
    cycles: u64,
    frames: u64,
    /// Frames out since the last flush.
    frames_since_flush: u64,
    beats: u64,
    records: u64,
    nones: u64,
    /// Read addresses accepted by the memory since the last flush.
    reads: Vec<u32>,
    /// Reads accepted in all.
    all_reads: u64,
    next_reads: u64,
    flushes: u64,
    busy_flushes: u64,
    longest_stall: u64,
    rd_stalls: u64,
    credit_waits: u64,
    first_out: Option<u64>,
    /// Cycle of each read put on `rd` (first cycle shown), with its address, from the start.
    rd_log: Vec<(u64, u32)>,
    error: Option<String>,
}

/// Run `model` over `frames` frames of `mem` (want = golden's beats of one frame), checking
/// every beat as it leaves. Stops when `frames` frames are out and the model is quiet, or
/// after `max` cycles.
#[allow(clippy::too_many_arguments)]
fn run(
    mut model: PixelInfoReadCycle,
    mem: SparseMemory,
    timing: MemTiming,
    frame: u8,
    want: &[PiRecord],
    frames: u64,
    mut lines: Lines,
    max: u64,
) -> Run {
    let mut m = MemoryCycle::new(timing, mem);
    let mut r = Run::default();
    let mut pos = 0usize;
    let mut starts_left = frames;
    let mut stall = 0u64;
    let mut prev_rd: Option<(bool, u32)> = None;
    for cyc in 0..max {
        let flush = lines.flush_at.contains(&cyc);
        let offer = lines.valid.step() && starts_left > 0;
        let ready = lines.ready.step();
        let grant = lines.grant.step();
        let rd_ready = m.req_ready(grant);
        let (rv, rsp) = m.resp();
        let (qv, q) = model.rd();
        let (ov, o) = model.out();
        let in_ready = model.in_ready();
        if qv && prev_rd != Some((true, q.addr)) {
            r.rd_log.push((cyc, q.addr));
        }
        prev_rd = Some((qv, q.addr));
        stall = if ov && !ready { stall + 1 } else { 0 };
        r.longest_stall = r.longest_stall.max(stall);
        r.rd_stalls += (qv && !rd_ready) as u64;
        r.credit_waits += (model.core().seq() == Seq::Rec && model.core().credits() == 0) as u64;
        if flush {
            r.flushes += 1;
            r.busy_flushes += (!model.core().is_quiet()) as u64;
            // The frame in flight is dropped; it is read again from its start.
            if pos > 0 || !in_ready {
                starts_left += 1;
            }
            pos = 0;
            r.reads.clear();
            r.frames_since_flush = 0;
        } else {
            if offer && in_ready {
                starts_left -= 1;
            }
            if qv && rd_ready {
                r.reads.push(q.addr);
                r.all_reads += 1;
            }
            if ov && ready {
                r.first_out.get_or_insert(cyc);
                if o != want[pos] && r.error.is_none() {
                    r.error = Some(format!("cycle {cyc}: beat {pos} is {o:?}, golden {:?}", want[pos]));
                }
                r.beats += 1;
                r.records += (!o.none) as u64;
                r.nones += o.none as u64;
                pos += 1;
                if pos == want.len() {
                    pos = 0;
                    r.frames += 1;
                    r.frames_since_flush += 1;
                }
            }
        }
        model.clock(&PixelInfoReadIn {
            flush,
            inp: Offer::new(offer, PiStart { frame }),
            rsp: Offer::new(rv, rsp),
            out_ready: ready,
            rd_ready,
        });
        m.clock(qv && !flush, &q, grant, true, flush);
        r.cycles = cyc + 1;
        if r.error.is_some() || (r.frames >= frames && starts_left == 0 && model.core().is_quiet() && m.held() == 0) {
            break;
        }
    }
    r.next_reads = model.stats().next_reads;
    r
}

fn always() -> Line {
    Pattern::Always.line(Rng::new(0))
}

/// A store for `preset` with the list shapes the checks need.
fn store(cfg: &Config, seed: u64, quads: usize) -> PixelInfoStore {
    let st = pixel_info_store(cfg, seed, quads, 0x5a);
    let s = st.stats();
    let k = s.records_per_block as u64;
    let mut st2 = st.clone();
    let all = st2.read_all().unwrap();
    assert!(all.iter().any(|(_, r)| r.is_empty()), "an empty second tile");
    assert!(
        all.iter().any(|(_, r)| r.len() as u64 > 2 * k),
        "a list of three blocks or more"
    );
    assert!(
        all.iter().any(|(_, r)| !r.is_empty() && r.len() as u64 <= k),
        "a one-block list"
    );
    st
}

/// Every preset the brief names: records of 12, 12 and 20 bytes (3, 3, 5 words).
#[test]
fn records_and_reads_equal_golden_under_back_pressure() {
    let mut total = (0u64, 0u64, 0u64, 0u64);
    for (pi, preset) in ["ice40", "default", "full"].into_iter().enumerate() {
        let cfg = Config::preset(preset).unwrap();
        let st = store(&cfg, 7 + pi as u64, 300);
        let (want, bytes) = golden_frame(&st);
        let mem = pixel_info_image(&st);
        let n = PixelInfoReadCycle::new(&cfg).tiles();
        let reads_want = golden_reads(&cfg, &mem, n[0] * n[1]);
        assert_eq!(
            reads_want.len() as u64 * 4,
            bytes,
            "{preset}: the independent walk reads golden's bytes"
        );
        let w = tilerast_golden::pixel_info::record_bytes(cfg.msaa) / 4;
        assert_eq!(w, [3, 3, 5][pi], "{preset}: words per record");
        for latency in 1..=4 {
            for depth in 1..=4 {
                let seed = (pi * 100 + latency * 10 + depth) as u64;
                let lines = Lines {
                    valid: Pattern::gaps(50).line(Rng::stream(seed, 0)),
                    ready: Pattern::RandomStalls {
                        pct: 70,
                        permille: 2,
                        min: 50,
                        max: 1500,
                    }
                    .line(Rng::stream(seed, 1)),
                    grant: match depth % 3 {
                        0 => Pattern::Always,
                        1 => Pattern::Random { pct: 70 },
                        _ => Pattern::Runs { pct: 80 },
                    }
                    .line(Rng::stream(seed, 2)),
                    flush_at: vec![],
                };
                let timing = MemTiming {
                    latency: latency as u32,
                    depth: depth as u32,
                };
                let r = run(
                    PixelInfoReadCycle::new(&cfg),
                    mem.clone(),
                    timing,
                    0x5a,
                    &want,
                    2,
                    lines,
                    2_000_000,
                );
                let what = format!("{preset} L{latency} D{depth}");
                assert_eq!(r.error, None, "{what}");
                assert_eq!(r.frames, 2, "{what}: {r:?}");
                assert_eq!(r.beats, 2 * want.len() as u64, "{what}");
                assert_eq!(
                    r.reads.len() as u64,
                    2 * bytes / 4,
                    "{what}: reads = bytes_read / 4 per frame"
                );
                let twice: Vec<u32> = reads_want.iter().chain(&reads_want).copied().collect();
                assert_eq!(r.reads, twice, "{what}: golden's read addresses in order");
                assert!(r.next_reads > 0 && r.nones > 0 && r.records > 0, "{what}: {r:?}");
                total.0 += r.cycles;
                total.1 += r.records;
                total.2 += r.all_reads;
                total.3 += r.next_reads;
                if latency == 4 && depth == 4 {
                    println!(
                        "{what}: {} cycles, {} records, {} nones, {} reads, {} next pointers, longest stall {}, {} credit waits",
                        r.cycles, r.records, r.nones, r.all_reads, r.next_reads, r.longest_stall, r.credit_waits
                    );
                    assert!(r.longest_stall >= 50 && r.credit_waits > 0, "{what}: {r:?}");
                }
            }
        }
    }
    println!(
        "all: {} cycles, {} records, {} reads, {} next pointers followed",
        total.0, total.1, total.2, total.3
    );
}

/// Flushes mid-frame (reads, records and `next` waits in flight), then a restart: the frame is
/// read again from its start and comes out whole.
#[test]
fn flush_mid_frame_then_restart() {
    let cfg = Config::preset("default").unwrap();
    let st = store(&cfg, 3, 400);
    let (want, bytes) = golden_frame(&st);
    let mem = pixel_info_image(&st);
    for (i, at) in [5u64, 40, 333, 1500, 4000].into_iter().enumerate() {
        let seed = 900 + i as u64;
        let lines = Lines {
            valid: Pattern::gaps(30).line(Rng::stream(seed, 0)),
            ready: Pattern::Random { pct: 80 }.line(Rng::stream(seed, 1)),
            grant: Pattern::Random { pct: 80 }.line(Rng::stream(seed, 2)),
            flush_at: vec![at, at + 2_777],
        };
        let timing = MemTiming { latency: 3, depth: 3 };
        let r = run(
            PixelInfoReadCycle::new(&cfg),
            mem.clone(),
            timing,
            0x5a,
            &want,
            2,
            lines,
            1_000_000,
        );
        assert_eq!(r.error, None, "flush at {at}");
        assert_eq!((r.flushes, r.frames), (2, 2), "flush at {at}: {r:?}");
        assert!(r.busy_flushes >= 1, "flush at {at}: a flush with work in flight");
        assert!(
            r.frames_since_flush >= 1,
            "flush at {at}: a whole frame after the last flush"
        );
        assert_eq!(
            r.reads.len() as u64,
            r.frames_since_flush * bytes / 4,
            "flush at {at}: reads since the last flush"
        );
    }
}

/// The contract's cycles at L = 1, D = 2, everything ready: head on `rd` at cycle 2, count at
/// 3, the first record word at 6 + L, the first record on `out` at 7 + 2L + W; a full block's
/// last word at c, its `next` at c + 1, the next block's first word at c + L + 4; the
/// throughput inside a block one word per cycle.
#[test]
fn contract_cycles() {
    for (preset, latency) in [("default", 1u32), ("full", 1), ("default", 3)] {
        let cfg = Config::preset(preset).unwrap();
        let w = tilerast_golden::pixel_info::record_bytes(cfg.msaa) / 4;
        let k = (cfg.pixel_info_block_bytes - 4) / (4 * w);
        let mut st = PixelInfoStore::new(&cfg, 9).unwrap();
        // Tile (0, 0): K + 2 records (two blocks).
        for i in 0..k + 2 {
            let q = tilerast_golden::Quad {
                prim: i,
                qx: 0,
                qy: 0,
                mask: 1,
            };
            st.push(&q, i).unwrap();
        }
        st.finish_raster().unwrap();
        let (want, _) = golden_frame(&st);
        let lines = Lines {
            valid: always(),
            ready: always(),
            grant: always(),
            flush_at: vec![],
        };
        let timing = MemTiming {
            latency,
            depth: latency + 1,
        };
        let r = run(
            PixelInfoReadCycle::new(&cfg),
            pixel_info_image(&st),
            timing,
            9,
            &want,
            1,
            lines,
            100_000,
        );
        assert_eq!(r.error, None);
        let l = latency as u64;
        let log: Vec<(u64, u32)> = r.rd_log.iter().take(4).copied().collect();
        assert_eq!(log[0], (2, 0), "{preset} L{l}: head");
        assert_eq!(log[1], (3, 4), "{preset} L{l}: count");
        let b = cfg.pixel_info_block_bytes;
        // The table is padded to whole blocks: the first block follows it.
        let first_blk = (8 * r_lists(&cfg)).div_ceil(b);
        assert_eq!(log[2], (6 + l, first_blk * b + 4), "{preset} L{l}: first word");
        assert_eq!(
            r.first_out,
            Some(7 + 2 * l + w as u64),
            "{preset} L{l}: first record out"
        );
        // Words of the first block back to back, then its next pointer, then the bubble.
        let words = (k * w) as usize;
        let c = r.rd_log[2 + words - 1].0;
        assert_eq!(
            r.rd_log[2 + words - 1].0 - r.rd_log[2].0,
            words as u64 - 1,
            "one word per cycle"
        );
        assert_eq!(r.rd_log[2 + words], (c + 1, first_blk * b), "{preset} L{l}: next read");
        assert_eq!(
            r.rd_log[3 + words].0,
            c + l + 4,
            "{preset} L{l}: next block's first word"
        );
        println!(
            "{preset} L{l}: first record at cycle {:?}, next block's first word {} cycles after the last",
            r.first_out,
            l + 4
        );
    }
}

fn r_lists(cfg: &Config) -> u32 {
    let n = PixelInfoReadCycle::new(cfg).tiles();
    n[0] * n[1]
}

/// The planted bug (a full block's `next` is not followed; its records are read from the same
/// block again) is caught: the first record after a full block differs from golden's.
#[test]
fn planted_bug_is_caught() {
    let cfg = Config::preset("ice40").unwrap();
    let st = store(&cfg, 11, 200);
    let (want, _) = golden_frame(&st);
    let mut model = PixelInfoReadCycle::new(&cfg);
    model.plant_bug();
    let lines = Lines {
        valid: always(),
        ready: always(),
        grant: always(),
        flush_at: vec![],
    };
    let timing = MemTiming { latency: 2, depth: 3 };
    let r = run(model, pixel_info_image(&st), timing, 0x5a, &want, 1, lines, 100_000);
    let e = r.error.expect("the planted bug is caught");
    println!("planted bug: {e}");
}

/// Bad geometry: one line naming the parameter, never a panic.
#[test]
fn refuses_bad_geometry_by_name() {
    let mut cfg = Config::preset("full").unwrap();
    cfg.pixel_info_block_bytes = 16;
    let e = PixelInfoReadCycle::try_new(&cfg).unwrap_err();
    assert!(
        e.starts_with("config.pixel_info_block_bytes:") && !e.contains('\n'),
        "{e}"
    );
    cfg.pixel_info_block_bytes = 20;
    let e = PixelInfoReadCycle::try_new(&cfg).unwrap_err();
    assert!(e.starts_with("config.pixel_info_block_bytes:"), "{e}");
    let g = ListGeom {
        lists: 4,
        words: 6,
        block_log: 6,
        per_block: 1,
    };
    assert!(ListReaderCycle::try_new(g).unwrap_err().starts_with("words:"));
    // The binner's lists: one word per record, 15 per 64-byte chunk.
    let b = ListGeom::bins(10);
    assert_eq!((b.words, b.per_block, b.block_log), (1, 15, 6));
    assert!(ListReaderCycle::try_new(b).is_ok());
    assert_eq!(OUT_DEPTH, 4);
}

/// The core on the binner's primitive lists (records of one word): the values out equal
/// `Bins::read_tile`'s primitive indices, tile by tile.
#[test]
fn reads_the_binners_lists() {
    use tilerast_golden::binner::bin;
    use tilerast_golden::setup::PixelBox;
    let cfg = Config::preset("ice40").unwrap();
    let mut rng = Rng::new(5);
    let boxes: Vec<(u32, PixelBox)> = (0..120)
        .map(|i| {
            let x0 = rng.below(150) as u32;
            let y0 = rng.below(110) as u32;
            let w = if i % 7 == 0 { 150 } else { rng.below(30) as u32 };
            let h = if i % 7 == 0 { 110 } else { rng.below(30) as u32 };
            (
                i,
                PixelBox {
                    x0,
                    y0,
                    x1: (x0 + w).min(159),
                    y1: (y0 + h).min(119),
                },
            )
        })
        .collect();
    let bins = bin(&cfg, &boxes).unwrap();
    let order: Vec<[u32; 2]> = bins.tile_order().collect();
    let mut want: Vec<(u32, bool, bool)> = Vec::new();
    let mut b2 = bins.clone();
    for t in &order {
        let v = b2.read_tile(*t).unwrap();
        if v.is_empty() {
            want.push((0, true, true));
        }
        for (i, p) in v.iter().enumerate() {
            want.push((*p, i + 1 == v.len(), false));
        }
    }
    let mem = {
        let m = bins.memory();
        let mut out = SparseMemory::new();
        for a in (0..m.size()).step_by(4) {
            out.write(a as u32, m.peek_u32(a).unwrap(), 0xf);
        }
        out
    };
    let mut core = ListReaderCycle::new(ListGeom::bins(order.len() as u32));
    let mut m = MemoryCycle::new(MemTiming { latency: 2, depth: 3 }, mem);
    let mut got = Vec::new();
    let mut ready = Pattern::Random { pct: 60 }.line(Rng::new(3));
    for _ in 0..200_000 {
        let rdy = ready.step();
        let (qv, q) = core.rd();
        let (ov, o) = core.out();
        let rd_ready = m.req_ready(true);
        let (rv, rsp) = m.resp();
        if ov && rdy {
            got.push((o.words[0], o.last, o.none));
        }
        let start = core.stats().starts == 0;
        core.clock(start, 0, rdy, rd_ready, rv, &rsp, false);
        m.clock(qv, &q, true, true, false);
        if core.stats().starts == 1 && core.is_quiet() {
            break;
        }
    }
    assert_eq!(got, want);
    assert!(core.stats().next_reads > 0, "a tile with several chunks");
    let _ = MemResp::default();
}

/// The address limit: block i is read at (i·B) mod 2^32. A list whose head block lies at
/// 4 GiB (index 2^26 at B = 64) is read at the wrapped offset, and the model counts it.
#[test]
fn blocks_beyond_4_gib_wrap_and_are_counted() {
    let mut cfg = Config::preset("default").unwrap();
    cfg.viewport = [2, 2];
    cfg.second_tile = [2, 2];
    let mut mem = SparseMemory::new();
    mem.write(0, 1 << 26, 0xf); // head: block 2^26, at byte 2^32
    mem.write(4, 1, 0xf); // one record
    let mut model = PixelInfoReadCycle::new(&cfg);
    let mut m = MemoryCycle::new(MemTiming::default(), mem);
    let mut addrs = Vec::new();
    for c in 0..60 {
        let (qv, q) = model.rd();
        let rd_ready = m.req_ready(true);
        let (rv, rsp) = m.resp();
        if qv && rd_ready {
            addrs.push(q.addr);
        }
        model.clock(&PixelInfoReadIn {
            flush: false,
            inp: Offer::new(c == 0, PiStart { frame: 1 }),
            rsp: Offer::new(rv, rsp),
            out_ready: true,
            rd_ready,
        });
        m.clock(qv, &q, true, true, false);
    }
    assert_eq!(addrs, [0, 4, 4, 8, 12], "the record's words at the wrapped offset 4");
    assert_eq!(model.stats().wrapped, 1);
}
