//! The pixel-info writer's cycle model (`PixelInfoWriteCycle`, layer 3) against its transaction
//! model (`PixelInfoStore::push` per valid lane, then `finish_raster`): random beats from the
//! verification kit (`stim::pi_beats`: 0..4 valid lanes, a hot second tile whose list takes
//! many blocks, one second tile never touched), frame-end tokens, frames back to back, on the
//! presets ice40, default and full (records of 12, 12 and 20 bytes), under input gaps, memory
//! back-pressure, stalls of thousands of cycles and flushes. Per frame, the writes replayed on
//! an empty memory must hold the store's bytes byte for byte (every allocated word compared,
//! nothing written beyond), and their count × 4 must be `PixelInfoStats::bytes_written`. Plus
//! the timing contract at exact cycles, a frame with no beat, and a broken model caught.

use tilerast_golden::cycle::CycleModel;
use tilerast_golden::memory_port::SparseMemory;
use tilerast_golden::pixel_info::{record_bytes, NIL};
use tilerast_golden::pixel_info_write::{PiwSt, PixelInfoWriteCycle};
use tilerast_golden::streams::{Beat, BinWrite, PiBeat};
use tilerast_golden::Config;
use tilerast_verif::stim::{pi_beats, pi_frame, pi_store};
use tilerast_verif::{Pattern, Rng};

/// Compare a frame's writes with `PixelInfoStore`'s memory; returns (writes, blocks, longest
/// list in blocks, empty lists).
fn check_frame(cfg: &Config, beats: &[PiBeat], frame: u8, writes: &[BinWrite], what: &str) -> (u64, u64, u64, u64) {
    let store = pi_store(cfg, beats, frame);
    let gm = store.memory();
    let mut mem = SparseMemory::new();
    for (i, w) in writes.iter().enumerate() {
        let q = w.req;
        assert!(q.write && q.be == 0xf && q.addr.is_multiple_of(4), "{what}: {q:?}");
        assert!(
            (q.addr as u64) < gm.size(),
            "{what}: write {i} at {:#x} beyond {}",
            q.addr,
            gm.size()
        );
        assert_eq!(
            w.last,
            i + 1 == writes.len(),
            "{what}: `last` on write {i} of {}",
            writes.len()
        );
        mem.write(q.addr, q.wdata, q.be);
    }
    for a in (0..gm.size()).step_by(4) {
        let want = gm.peek_u32(a).unwrap();
        assert_eq!(mem.read(a as u32), want, "{what}: word at {a:#x}");
    }
    let st = store.stats();
    assert_eq!(4 * writes.len() as u64, st.bytes_written, "{what}: bytes written");
    // Longest list and empty lists, from the table.
    let [tx, ty] = store.second_tile_count();
    let per = st.records_per_block as u64;
    let (mut longest, mut empty) = (0u64, 0u64);
    for l in 0..(tx * ty) as u64 {
        let count = gm.peek_u32(8 * l + 4).unwrap() as u64;
        if count == 0 {
            assert_eq!(gm.peek_u32(8 * l), Some(NIL));
            empty += 1;
        }
        longest = longest.max(count.div_ceil(per));
    }
    (writes.len() as u64, st.blocks_allocated, longest, empty)
}

#[derive(Default)]
struct Totals {
    cycles: u64,
    writes: u64,
    blocks: u64,
    frames: u64,
    flushes: u64,
    stalled: u64,
    longest_blocks: u64,
    empty_lists: u64,
    four_lane_beats: u64,
}

/// Drive `m` with `frames` (each: beats, then `end`; frame id = index + 7) under the patterns;
/// flushes at the cycles `flush_at` restart the frame in flight from its first beat. Checks
/// every finished frame's bytes and, every cycle, that nothing moves on the output without an
/// advance and that `in_ready` is the `Idle` state.
#[allow(clippy::too_many_arguments)]
fn run<M: CycleModel<In = PiBeat, Out = BinWrite>>(
    cfg: &Config,
    m: &mut M,
    state: impl Fn(&M) -> Option<PiwSt>,
    frames: &[Vec<PiBeat>],
    seed: u64,
    valid: Pattern,
    ready: Pattern,
    flush_at: &[u64],
) -> Totals {
    let inputs: Vec<Vec<PiBeat>> = frames.iter().map(|f| pi_frame(f)).collect();
    let (mut vl, mut rl) = (valid.line(Rng::stream(seed, 0)), ready.line(Rng::stream(seed, 1)));
    let mut t = Totals::default();
    let (mut fin, mut bi) = (0usize, 0usize);
    let mut cur = 0usize;
    let mut writes: Vec<BinWrite> = Vec::new();
    while cur < frames.len() {
        let c = t.cycles;
        assert!(c < 20_000_000, "no progress");
        let flush = flush_at.contains(&c);
        let have = fin < inputs.len();
        let (v, rd) = (have && vl.step(), rl.step());
        let inp = if have { inputs[fin][bi] } else { PiBeat::default() };
        let (ov, w) = m.out();
        let ready = m.in_ready(rd);
        if let Some(s) = state(m) {
            assert_eq!(ready, s == PiwSt::Idle, "cycle {c}: in_ready");
        }
        if flush {
            t.flushes += 1;
            writes.clear();
            fin = cur;
            bi = 0;
        } else {
            if ov && rd {
                writes.push(w);
                if w.last {
                    let what = format!("seed {seed} frame {cur}");
                    let (n, bl, longest, empty) = check_frame(cfg, &frames[cur], cur as u8 + 7, &writes, &what);
                    t.writes += n;
                    t.blocks += bl;
                    t.longest_blocks = t.longest_blocks.max(longest);
                    t.empty_lists += empty;
                    t.frames += 1;
                    writes.clear();
                    cur += 1;
                }
            }
            if ov && !rd {
                t.stalled += 1;
            }
            if v && ready {
                if inp.beat.lane_valid == 0xf && !inp.end {
                    t.four_lane_beats += 1;
                }
                bi += 1;
                if bi == inputs[fin].len() {
                    fin += 1;
                    bi = 0;
                }
            }
        }
        let before = m.out();
        m.clock(v, &inp, rd, flush);
        if ov && !rd && !flush {
            assert_eq!(m.out(), before, "cycle {c}: output moved without advance");
        }
        t.cycles += 1;
    }
    t
}

fn frames(cfg: &Config, seed: u64, n: usize, per: usize) -> Vec<Vec<PiBeat>> {
    (0..n)
        .map(|i| pi_beats(cfg, seed * 100 + i as u64, per, i as u8 + 7))
        .collect()
}

/// Frame `i` carries frame id `i + 7`; an inserted frame shifts the ids of those after it.
fn renumber(fr: &mut [Vec<PiBeat>]) {
    for (i, f) in fr.iter_mut().enumerate() {
        for b in f.iter_mut() {
            b.frame = i as u8 + 7;
        }
    }
}

#[test]
fn memory_matches_pixel_info_store_on_every_preset_and_pattern() {
    let patterns = [
        (Pattern::Always, Pattern::Always, vec![]),
        (Pattern::gaps(30), Pattern::Random { pct: 60 }, vec![]),
        (
            Pattern::Runs { pct: 70 },
            Pattern::Regimes { period: 300 },
            vec![2_345u64, 9_000],
        ),
        (
            Pattern::Random { pct: 90 },
            Pattern::Stalls {
                pct: 80,
                every: 5000,
                len: 2500,
            },
            vec![7_777],
        ),
    ];
    for preset in ["ice40", "default", "full"] {
        let cfg = Config::preset(preset).unwrap();
        let mut all = Totals::default();
        for (seed, (valid, ready, flushes)) in patterns.iter().enumerate() {
            let mut fr = frames(&cfg, seed as u64 + 1, 3, 150);
            fr.insert(1, Vec::new()); // a frame with no beat
            renumber(&mut fr);
            let mut m = PixelInfoWriteCycle::new(&cfg).unwrap();
            assert_eq!(m.words(), record_bytes(cfg.msaa) / 4);
            let t = run(
                &cfg,
                &mut m,
                |m| Some(m.state()),
                &fr,
                seed as u64,
                *valid,
                *ready,
                flushes,
            );
            assert_eq!(t.frames, 4);
            assert_eq!(t.flushes, flushes.len() as u64);
            all.cycles += t.cycles;
            all.writes += t.writes;
            all.blocks += t.blocks;
            all.frames += t.frames;
            all.flushes += t.flushes;
            all.stalled += t.stalled;
            all.longest_blocks = all.longest_blocks.max(t.longest_blocks);
            all.empty_lists += t.empty_lists;
            all.four_lane_beats += t.four_lane_beats;
        }
        println!(
            "{preset} (R = {}): {} cycles, {} frames, {} writes compared, {} blocks, longest list {} blocks, {} empty lists, {} four-lane beats, {} flushes, {} stalled",
            record_bytes(cfg.msaa),
            all.cycles,
            all.frames,
            all.writes,
            all.blocks,
            all.longest_blocks,
            all.empty_lists,
            all.four_lane_beats,
            all.flushes,
            all.stalled
        );
        assert!(
            all.longest_blocks >= 3,
            "{preset}: longest list {} blocks",
            all.longest_blocks
        );
        assert!(all.empty_lists >= 16, "{preset}: {} empty lists", all.empty_lists);
        assert!(all.four_lane_beats >= 100, "{preset}: four-lane beats");
        assert!(all.stalled > 1000, "{preset}: back-pressure");
        assert!(all.writes > 5000, "{preset}: {} writes", all.writes);
    }
}

/// The exact cycles of the contract on ice40 (R = 12, W = 3, 64-byte blocks: 5 records per
/// block): the sweep (L cycles), a beat's first write at c + 5, 3 + W cycles per quad, one more
/// with a link, an empty beat in one cycle, the finish pass and `last`.
#[test]
fn timing_contract_at_exact_cycles() {
    let cfg = Config::preset("ice40").unwrap();
    let mut m = PixelInfoWriteCycle::new(&cfg).unwrap();
    assert_eq!(m.words(), 3);
    let lists = m.list_writer().lists();
    let first = m.list_writer().first_chunk();
    let b = cfg.pixel_info_block_bytes;
    assert_eq!(b, 64);
    for c in 0..lists {
        assert!(!m.in_ready(true), "sweep, cycle {c}");
        m.clock(true, &PiBeat::default(), true, false);
    }
    assert!(m.in_ready(true), "ready from cycle L");
    // Beat 0: four quads in second tile 0 (lanes 0..3); beat 1: two quads (lanes 1, 3), the
    // second of them (the 6th record of list 0) links a new block; beat 2: no lane; beat 3:
    // one quad in second tile (1, 0) at quad (17, 2): stx = 34 / 32 = 1, rqx = 1, rqy = 2.
    let quad_beat = |prim: u32, lanes: u8, depth: u32| {
        let mut bt = Beat {
            prim,
            lane_valid: lanes,
            ..Beat::default()
        };
        for l in 0..4 {
            bt.qx[l] = l as u32;
            bt.qy[l] = 1;
            bt.mask[l] = 0x1 << l;
        }
        PiBeat {
            beat: bt,
            depth,
            frame: 3,
            end: false,
        }
    };
    let mut b3 = quad_beat(77, 1, 0xabcdef);
    b3.beat.qx[0] = 17;
    b3.beat.qy[0] = 2;
    b3.beat.mask[0] = 0xf0f0;
    let input = [
        quad_beat(5, 0xf, 100),
        quad_beat(6, 0b1010, 200),
        quad_beat(7, 0, 300),
        b3,
        PiBeat {
            end: true,
            ..Default::default()
        },
    ];
    let (mut seen, mut taken) = (Vec::new(), Vec::new());
    let mut next = 0;
    for c in lists as u64..lists as u64 + 2000 {
        let (ov, w) = m.out();
        if ov {
            seen.push((c, w));
        }
        let v = next < input.len();
        let inp = input.get(next).copied().unwrap_or_default();
        if v && m.in_ready(true) {
            taken.push(c);
            next += 1;
        }
        m.clock(v, &inp, true, false);
        if ov && w.last {
            break;
        }
    }
    let l = lists as u64;
    assert_eq!(taken[0], l);
    // The first record word at c + 5: depth | frame << 24 at the first block's slot 0.
    assert_eq!(seen[0].0, l + 5);
    assert_eq!(seen[0].1.req.addr, first * b + 4);
    assert_eq!(seen[0].1.req.wdata, 100 | 3 << 24);
    assert_eq!(seen[1].1.req.wdata, 5, "word 1: prim");
    assert_eq!(seen[2].1.req.wdata, 1 << 8 | 1 << 16, "word 2: qx 0, qy 1, mask");
    // Four quads without a link: 1 + 4·(3 + 3) cycles.
    assert_eq!(taken[1] - taken[0], 1 + 4 * 6);
    // Beat 1: two quads, the second with a link: 1 + 6 + 7.
    assert_eq!(taken[2] - taken[1], 1 + 6 + 7);
    let link = seen.iter().position(|(_, w)| w.req.addr == first * b).unwrap();
    assert_eq!(seen[link].1.req.wdata, first + 1);
    assert_eq!(seen[link + 1].1.req.addr, (first + 1) * b + 4);
    assert_eq!(seen[link + 2].1.req.wdata, 6);
    assert_eq!(seen[link + 3].1.req.wdata, 3 | 1 << 8 | 0x8 << 16, "lane 3");
    assert_eq!(seen[link + 1].0, seen[link].0 + 1, "record right after the link");
    // The empty beat: taken, ready again the next cycle.
    assert_eq!(taken[3] - taken[2], 1);
    // Beat 3 in list 1 (a new block): 1 + 6.
    assert_eq!(taken[4] - taken[3], 1 + 6);
    let r3 = seen
        .iter()
        .position(|(_, w)| w.req.wdata == 0xabcdef | 3 << 24)
        .unwrap();
    assert_eq!(seen[r3].1.req.addr, (first + 2) * b + 4);
    assert_eq!(seen[r3 + 2].1.req.wdata, 1 | 2 << 8 | 0xf0f0 << 16);
    // Finish: list 0 (two blocks): next = NIL at its tail block, head, count = 6.
    let f = seen.iter().position(|(_, w)| w.req.wdata == NIL).unwrap();
    assert_eq!(seen[f].1.req.addr, (first + 1) * b);
    assert_eq!((seen[f + 1].1.req.addr, seen[f + 1].1.req.wdata), (0, first));
    assert_eq!((seen[f + 2].1.req.addr, seen[f + 2].1.req.wdata), (4, 6));
    assert_eq!(seen[f].0, taken[4] + 4);
    let (c_last, w_last) = *seen.last().unwrap();
    assert!(w_last.last);
    assert_eq!((w_last.req.addr, w_last.req.wdata), (8 * (lists - 1) + 4, 0));
    let nonempty = 2;
    assert_eq!(c_last, taken[4] + 1 + 5 * nonempty + 4 * (l - nonempty));
    assert_eq!(seen.len() as u64, 7 * 3 + 1 + 3 * nonempty + 2 * (l - nonempty));
    assert_eq!(m.list_writer().bump(), (first, first * b));
    assert!((0..lists).all(|i| m.list_writer().state(i).count == 0));
}

#[test]
fn flush_returns_to_new() {
    let cfg = Config::preset("ice40").unwrap();
    let mut m = PixelInfoWriteCycle::new(&cfg).unwrap();
    let fresh = PixelInfoWriteCycle::new(&cfg).unwrap();
    let b = pi_beats(&cfg, 4, 1, 0)[0];
    let b = PiBeat {
        beat: Beat {
            lane_valid: 0xf,
            ..b.beat
        },
        ..b
    };
    for _ in 0..300 {
        m.clock(true, &b, false, false);
    }
    assert!(m.out().0, "a write is waiting");
    m.clock(true, &b, true, true);
    assert_eq!(m.out(), fresh.out());
    assert_eq!(m.state(), PiwSt::Init);
    assert!(!m.in_ready(true));
}

/// A model that writes the record's word 2 with qx and qy swapped (a plausible slip in the
/// encoding) is caught by the byte comparison.
#[test]
fn a_broken_model_is_caught() {
    struct Broken(PixelInfoWriteCycle, u64);
    impl CycleModel for Broken {
        type In = PiBeat;
        type Out = BinWrite;
        fn out(&self) -> (bool, BinWrite) {
            let (v, mut w) = self.0.out();
            // Word 2 of a record: (addr - 4) / 4 % 3 == 2 inside a block.
            let off = w.req.addr as u64 % 64;
            if w.req.addr as u64 >= self.1 && off >= 4 && (off - 4) / 4 % 3 == 2 {
                let d = w.req.wdata;
                w.req.wdata = (d & 0xffff_0000) | (d & 0xff) << 8 | (d >> 8 & 0xff);
            }
            (v, w)
        }
        fn in_ready(&self, r: bool) -> bool {
            self.0.in_ready(r)
        }
        fn clock(&mut self, v: bool, i: &PiBeat, r: bool, f: bool) {
            self.0.clock(v, i, r, f)
        }
    }
    let cfg = Config::preset("ice40").unwrap();
    let inner = PixelInfoWriteCycle::new(&cfg).unwrap();
    let first = inner.list_writer().first_chunk() as u64 * 64;
    let mut m = Broken(inner, first);
    let fr = frames(&cfg, 9, 1, 200);
    let caught = std::panic::catch_unwind(std::panic::AssertUnwindSafe(|| {
        run(&cfg, &mut m, |_| None, &fr, 3, Pattern::Always, Pattern::Always, &[]);
    }));
    let msg = caught.expect_err("the broken model passed");
    let msg = msg.downcast_ref::<String>().cloned().unwrap_or_default();
    assert!(msg.contains("word at"), "{msg}");
}
