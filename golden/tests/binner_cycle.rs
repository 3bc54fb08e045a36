//! The binner's cycle model (`BinnerCycle`, layer 3) against its transaction model
//! (`bin_with_chunk`, layer 2): random boxes from the verification kit (`stim::bin_boxes`: small,
//! multi-tile and large boxes, a hot tile whose lists take many chunks, one tile never touched),
//! frame-end tokens, frames back to back, on the presets ice40, default and full, under input
//! gaps, memory back-pressure, stalls of thousands of cycles and flushes. Per frame, the writes
//! replayed on an empty memory must hold `bin_with_chunk`'s bytes byte for byte (every
//! allocated word compared, nothing written beyond), and their count × 4 must be
//! `BinStats::bytes_written`. Plus the timing contract at exact cycles, a frame with no box,
//! and a broken model the comparison catches.

use tilerast_golden::binner::{bin_with_chunk, BinSt, BinnerCycle, BIN_CHUNK_BYTES};
use tilerast_golden::cycle::CycleModel;
use tilerast_golden::memory_port::SparseMemory;
use tilerast_golden::pixel_info::NIL;
use tilerast_golden::setup::PixelBox;
use tilerast_golden::streams::{BinBox, BinWrite};
use tilerast_golden::Config;
use tilerast_verif::stim::{bin_boxes, bin_frame};
use tilerast_verif::{Pattern, Rng};

/// Compare a frame's writes with `bin_with_chunk`'s memory; returns (writes, chunks, longest
/// list in chunks).
fn check_frame(cfg: &Config, boxes: &[(u32, PixelBox)], writes: &[BinWrite], what: &str) -> (u64, u64, u32) {
    let bins = bin_with_chunk(cfg, boxes, BIN_CHUNK_BYTES).unwrap();
    let gm = bins.memory();
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
    let st = bins.stats();
    assert_eq!(4 * writes.len() as u64, st.bytes_written, "{what}: bytes written");
    let per = (BIN_CHUNK_BYTES - 4) / 4;
    let longest = st.max_list_len.div_ceil(per);
    (writes.len() as u64, st.chunks, longest)
}

struct Totals {
    cycles: u64,
    writes: u64,
    chunks: u64,
    frames: u64,
    flushes: u64,
    stalled: u64,
    longest_chunks: u32,
    empty_lists: u64,
}

/// Drive `m` with `frames` (each: boxes, then `end`) under the patterns; flushes at the cycles
/// `flush_at` restart the frame in flight from its first box. Checks every finished frame's
/// bytes and, every cycle, that nothing moves on the output without an advance and that
/// `in_ready` is the `Idle` state.
#[allow(clippy::too_many_arguments)]
fn run<M: CycleModel<In = BinBox, Out = BinWrite>>(
    cfg: &Config,
    m: &mut M,
    state: impl Fn(&M) -> Option<BinSt>,
    frames: &[Vec<(u32, PixelBox)>],
    seed: u64,
    valid: Pattern,
    ready: Pattern,
    flush_at: &[u64],
) -> Totals {
    let inputs: Vec<Vec<BinBox>> = frames.iter().map(|f| bin_frame(f)).collect();
    let (mut vl, mut rl) = (valid.line(Rng::stream(seed, 0)), ready.line(Rng::stream(seed, 1)));
    let mut t = Totals {
        cycles: 0,
        writes: 0,
        chunks: 0,
        frames: 0,
        flushes: 0,
        stalled: 0,
        longest_chunks: 0,
        empty_lists: 0,
    };
    // (frame, box) offered next; the frame whose writes are being collected.
    let (mut fin, mut bi) = (0usize, 0usize);
    let mut cur = 0usize;
    let mut writes: Vec<BinWrite> = Vec::new();
    let lists = cfg.tiles()[0] * cfg.tiles()[1];
    while cur < frames.len() {
        let c = t.cycles;
        assert!(c < 20_000_000, "no progress");
        let flush = flush_at.contains(&c);
        let have = fin < inputs.len();
        let (v, rd) = (have && vl.step(), rl.step());
        let inp = if have { inputs[fin][bi] } else { BinBox::default() };
        let (ov, w) = m.out();
        let ready = m.in_ready(rd);
        if let Some(s) = state(m) {
            assert_eq!(ready, s == BinSt::Idle, "cycle {c}: in_ready");
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
                    let (n, ch, longest) = check_frame(cfg, &frames[cur], &writes, &format!("seed {seed} frame {cur}"));
                    t.writes += n;
                    t.chunks += ch;
                    t.longest_chunks = t.longest_chunks.max(longest);
                    let bins = bin_with_chunk(cfg, &frames[cur], BIN_CHUNK_BYTES).unwrap();
                    t.empty_lists += lists as u64 - bins.stats().tiles_touched;
                    t.frames += 1;
                    writes.clear();
                    cur += 1;
                }
            }
            if ov && !rd {
                t.stalled += 1;
            }
            if v && ready {
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

fn frames(cfg: &Config, seed: u64, n: usize, per: usize) -> Vec<Vec<(u32, PixelBox)>> {
    (0..n).map(|i| bin_boxes(cfg, seed * 100 + i as u64, per)).collect()
}

#[test]
fn memory_matches_bin_with_chunk_on_every_preset_and_pattern() {
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
        let mut all = Totals {
            cycles: 0,
            writes: 0,
            chunks: 0,
            frames: 0,
            flushes: 0,
            stalled: 0,
            longest_chunks: 0,
            empty_lists: 0,
        };
        for (seed, (valid, ready, flushes)) in patterns.iter().enumerate() {
            let mut fr = frames(&cfg, seed as u64 + 1, 3, 120);
            fr.insert(1, Vec::new()); // a frame with no box
            let mut m = BinnerCycle::new(&cfg, BIN_CHUNK_BYTES).unwrap();
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
            all.chunks += t.chunks;
            all.frames += t.frames;
            all.flushes += t.flushes;
            all.stalled += t.stalled;
            all.longest_chunks = all.longest_chunks.max(t.longest_chunks);
            all.empty_lists += t.empty_lists;
        }
        println!(
            "{preset}: {} cycles, {} frames, {} writes compared, {} chunks, longest list {} chunks, {} flushes, {} stalled",
            all.cycles, all.frames, all.writes, all.chunks, all.longest_chunks, all.flushes, all.stalled
        );
        // Activity: multi-chunk lists, untouched tiles, back-pressure.
        assert!(
            all.longest_chunks >= 3,
            "{preset}: longest list {} chunks",
            all.longest_chunks
        );
        assert!(all.empty_lists >= 16, "{preset}: {} empty lists", all.empty_lists);
        assert!(all.stalled > 1000, "{preset}: back-pressure");
        assert!(all.writes > 2000, "{preset}: {} writes", all.writes);
    }
}

/// The exact cycles of the contract: the sweep (L cycles), a box's first write at c + 5, three
/// cycles per tile, four with a link, the finish pass's writes and `last`.
#[test]
fn timing_contract_at_exact_cycles() {
    let cfg = Config::preset("ice40").unwrap();
    let mut m = BinnerCycle::new(&cfg, BIN_CHUNK_BYTES).unwrap();
    let lists = cfg.tiles()[0] * cfg.tiles()[1];
    let first = m.list_writer().first_chunk();
    for c in 0..lists {
        assert!(!m.in_ready(true), "sweep, cycle {c}");
        m.clock(true, &BinBox::default(), true, false);
    }
    assert!(m.in_ready(true), "ready from cycle L");
    // 16 boxes on tile (0, 0) (the 16th needs a second chunk: 15 records per chunk), then one
    // box over tiles (1, 0) and (2, 0), then the frame end.
    let one = |prim| BinBox {
        prim,
        x0: 1,
        y0: 2,
        x1: 3,
        y1: 4,
        end: false,
    };
    let mut input: Vec<BinBox> = (0..16).map(one).collect();
    input.push(BinBox {
        prim: 99,
        x0: 16,
        y0: 0,
        x1: 40,
        y1: 15,
        end: false,
    });
    input.push(BinBox {
        end: true,
        ..Default::default()
    });
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
    // Box 0 taken at edge L, its record on the output in cycle L + 5.
    assert_eq!(taken[0], l);
    assert_eq!(seen[0].0, l + 5);
    assert_eq!(seen[0].1.req.addr, first * 64 + 4);
    assert_eq!(seen[0].1.req.wdata, 0);
    // One-tile boxes without a link: 2 + 3 cycles apart.
    assert_eq!(taken[1] - taken[0], 5);
    // Box 15 (the 16th record of list 0) links: the tail's next (chunk first + 1) then the
    // record at the new chunk's slot 0; 6 cycles for that box.
    assert_eq!(taken[16] - taken[15], 6);
    let link = seen.iter().position(|(_, w)| w.req.addr == first * 64).unwrap();
    assert_eq!(seen[link].1.req.wdata, first + 1);
    assert_eq!(seen[link + 1].1.req.addr, (first + 1) * 64 + 4);
    assert_eq!(seen[link + 1].1.req.wdata, 15);
    assert_eq!(seen[link + 1].0, seen[link].0 + 1, "record right after the link");
    // Box 16 covers tiles 1 and 2 of row 0: 2 + 3·2 cycles.
    assert_eq!(taken[17] - taken[16], 8);
    // Finish: list 0 (non-empty): next = NIL at its tail chunk, head, count; list 1 next.
    let f = seen.iter().position(|(_, w)| w.req.wdata == NIL).unwrap();
    assert_eq!(seen[f].1.req.addr, (first + 1) * 64);
    assert_eq!((seen[f + 1].1.req.addr, seen[f + 1].1.req.wdata), (0, first));
    assert_eq!((seen[f + 2].1.req.addr, seen[f + 2].1.req.wdata), (4, 16));
    // end taken at edge e: FRead e+1, FLatch e+2, first close write on the output at e+4.
    assert_eq!(seen[f].0, taken[17] + 4);
    // Empty lists: head NIL and count 0, 4 cycles each; the last is marked.
    let (c_last, w_last) = *seen.last().unwrap();
    assert!(w_last.last);
    assert_eq!((w_last.req.addr, w_last.req.wdata), (8 * (lists - 1) + 4, 0));
    let nonempty = 3; // lists 0, 1, 2
    assert_eq!(c_last, taken[17] + 1 + 5 * nonempty + 4 * (lists as u64 - nonempty));
    assert_eq!(seen.len() as u64, 18 + 1 + 3 * nonempty + 2 * (lists as u64 - nonempty));
    // State back to empty: the bump allocator at the first chunk, the next frame the same.
    assert_eq!(m.list_writer().bump(), (first, first * 64));
    assert!((0..lists).all(|i| m.list_writer().state(i).count == 0));
}

#[test]
fn flush_returns_to_new() {
    let cfg = Config::preset("ice40").unwrap();
    let mut m = BinnerCycle::new(&cfg, BIN_CHUNK_BYTES).unwrap();
    let fresh = BinnerCycle::new(&cfg, BIN_CHUNK_BYTES).unwrap();
    let b = BinBox {
        prim: 5,
        x0: 0,
        y0: 0,
        x1: 100,
        y1: 100,
        end: false,
    };
    for _ in 0..200 {
        m.clock(true, &b, false, false);
    }
    assert!(m.out().0, "a write is waiting");
    m.clock(true, &b, true, true);
    assert_eq!(m.out(), fresh.out());
    assert_eq!(m.state(), BinSt::Init);
    assert!(!m.in_ready(true));
}

/// A model whose link writes point one chunk too far (a plausible off-by-one) is caught by
/// the byte comparison.
#[test]
fn a_broken_model_is_caught() {
    struct Broken(BinnerCycle, u32);
    impl CycleModel for Broken {
        type In = BinBox;
        type Out = BinWrite;
        fn out(&self) -> (bool, BinWrite) {
            let (v, mut w) = self.0.out();
            if w.req.addr >= self.1 * 64 && w.req.addr.is_multiple_of(64) && w.req.wdata != NIL {
                w.req.wdata += 1;
            }
            (v, w)
        }
        fn in_ready(&self, r: bool) -> bool {
            self.0.in_ready(r)
        }
        fn clock(&mut self, v: bool, i: &BinBox, r: bool, f: bool) {
            self.0.clock(v, i, r, f)
        }
    }
    let cfg = Config::preset("ice40").unwrap();
    let inner = BinnerCycle::new(&cfg, BIN_CHUNK_BYTES).unwrap();
    let first = inner.list_writer().first_chunk();
    let mut m = Broken(inner, first);
    let fr = frames(&cfg, 9, 1, 200);
    let caught = std::panic::catch_unwind(std::panic::AssertUnwindSafe(|| {
        run(&cfg, &mut m, |_| None, &fr, 3, Pattern::Always, Pattern::Always, &[]);
    }));
    let msg = caught.expect_err("the broken model passed");
    let msg = msg.downcast_ref::<String>().cloned().unwrap_or_default();
    assert!(msg.contains("word at"), "{msg}");
}
