//! The destination fetch (`DstFetchCycle`, layer 3) with a `MemoryCycle` behind its read port
//! against golden's blend-sample rule (`pipeline.rs`, `PixelSide::shade`, layer 2), with
//! `framebuffer: keep` (dst read from memory) and `clear` (dst = the `background` input, no
//! read, responses offered at random and never taken): random
//! pixel streams (C ∈ {1, 2, 4, 8, 16}, K ∈ {1..4}, random slot masks with empty pixels and
//! junk above C), random memory latency 1..4 and depth, random grant, random `out_ready`,
//! random input gaps and a few flushes (the memory's held reads flushed with the block).
//! Between flushes, the fragments' lanes concatenated must be a prefix of the samples golden
//! makes from the accepted pixels (pos, src, dst = the memory word at 4·pos or the background, state 0), all of
//! them once the stream has drained; every fragment has 1..=K lanes, contiguous from lane 0,
//! zero in the lanes it does not use. The latency and throughput the timing contract states
//! are measured in `timing_as_documented`.

use tilerast_golden::cycle::Offer;
use tilerast_golden::dst_fetch::{pixel_samples, DstFetchCycle, DstFetchIn, META_DEPTH};
use tilerast_golden::memory_port::{MemTiming, MemoryCycle, SparseMemory};
use tilerast_golden::output_merger::slot_addr;
use tilerast_golden::streams::{BlendFrag, MemReq, PixSlots, LANES};
use tilerast_golden::{Config, FramebufferMode};
use tilerast_verif::{Pattern, Rng};

fn cfg(c: u32, pool: u32, framebuffer: FramebufferMode) -> Config {
    let mut cfg = Config::preset("ice40").unwrap();
    cfg.framebuffer = framebuffer;
    cfg.viewport = [24, 12];
    cfg.colours_per_pixel = c;
    cfg.colour_block_bytes = cfg.colour_block_bytes.max(16 * c);
    cfg.blend_lanes = 1;
    cfg.blend_pool = pool;
    cfg
}

fn pixels(cfg: &Config, r: &mut Rng, n: usize) -> Vec<PixSlots> {
    (0..n)
        .map(|_| {
            let mut p = PixSlots {
                x: r.below(cfg.viewport[0] as u64) as u32,
                y: r.below(cfg.viewport[1] as u64) as u32,
                ..Default::default()
            };
            p.slot_valid = match r.below(6) {
                0 => 0,
                1 => 0xffff,
                2 => 1 << r.below(16),
                _ => r.next_u32() as u16,
            };
            for c in p.colour.iter_mut() {
                *c = r.next_u32();
            }
            p
        })
        .collect()
}

fn memory(cfg: &Config, r: &mut Rng) -> SparseMemory {
    let mut m = SparseMemory::new();
    for pos in 0..cfg.viewport[0] * cfg.viewport[1] * cfg.colours_per_pixel {
        m.write(slot_addr(pos), r.next_u32(), 0xf);
    }
    m
}

/// One fragment's lanes as (pos, src, dst), checking its shape.
fn lanes(f: &BlendFrag, k: usize) -> Vec<(u32, u32, u32)> {
    let n = f.lane_valid.count_ones() as usize;
    assert!((1..=k).contains(&n), "{n} lanes (K = {k}): {f:?}");
    assert_eq!(f.lane_valid as u32, (1u32 << n) - 1, "lanes contiguous from 0: {f:?}");
    for l in 0..LANES {
        assert_eq!(f.state[l], 0, "{f:?}");
        if l >= n {
            assert_eq!((f.pos[l], f.src[l], f.dst[l]), (0, 0, 0), "unused lane {l} zero: {f:?}");
        }
    }
    (0..n).map(|l| (f.pos[l], f.src[l], f.dst[l])).collect()
}

#[derive(Default, Debug)]
struct Seen {
    cycles: u64,
    flushes: u64,
    frags: u64,
    multi: u64,
    full: u64,
    meta_full: u64,
    rd_stall: u64,
    out_stall: u64,
    empty_pixels: u64,
    lanes: u64,
    /// Clear runs: responses offered (and not taken), samples with the background as dst.
    junk_rsp: u64,
    clear_lanes: u64,
}

/// One run: pixels offered in order under the given lines; checks the transaction-level truth
/// segment by segment (a flush ends a segment).
#[allow(clippy::too_many_arguments)]
fn run(
    cfg: &Config,
    seed: u64,
    n: usize,
    timing: MemTiming,
    valid: Pattern,
    ready: Pattern,
    grant: Pattern,
    flush_pm: u64,
) -> Seen {
    let mut r = Rng::new(seed);
    let px = pixels(cfg, &mut r, n);
    let mut dut = DstFetchCycle::new(cfg);
    let k = dut.lanes();
    let keep = cfg.framebuffer == FramebufferMode::Keep;
    let background = r.next_u32();
    let mut mem = MemoryCycle::new(timing, memory(cfg, &mut r));
    let image = mem.mem.clone();
    let mut junk = r.fork();
    let (mut vl, mut rl, mut gl) = (valid.line(r.fork()), ready.line(r.fork()), grant.line(r.fork()));
    let mut fr = r.fork();
    let mut seen = Seen::default();
    let mut next = 0usize;
    // The current segment: samples golden makes from its accepted pixels, lanes out, reads out.
    let mut want: Vec<(u32, u32, u32)> = Vec::new();
    let mut got: Vec<(u32, u32, u32)> = Vec::new();
    let mut reads: Vec<MemReq> = Vec::new();
    let check = |want: &[(u32, u32, u32)], got: &[(u32, u32, u32)], reads: &[MemReq], whole: bool| {
        assert!(
            got.len() <= want.len() && got == &want[..got.len()],
            "lanes not a prefix of golden's samples (seed {seed})"
        );
        assert!(reads.len() <= want.len());
        for (q, w) in reads.iter().zip(want) {
            assert_eq!(
                *q,
                MemReq {
                    addr: slot_addr(w.0),
                    write: false,
                    wdata: 0,
                    be: 0
                },
                "read order (seed {seed})"
            );
        }
        if whole {
            assert_eq!(got.len(), want.len(), "every sample out after the drain (seed {seed})");
            assert_eq!(reads.len(), if keep { want.len() } else { 0 }, "reads (seed {seed})");
        }
    };
    let mut idle = 0u64;
    let mut cycle = 0u64;
    while idle < 40 {
        assert!(cycle < 400_000, "no progress (seed {seed})");
        let flush = flush_pm > 0 && cycle > 10 && fr.permille(flush_pm);
        let in_valid = next < px.len() && vl.step();
        let inp = px.get(next).copied().unwrap_or_default();
        let out_ready = rl.step();
        let grant = gl.step();
        let (rd_valid, rd) = dut.rd();
        let rd_ready = mem.req_ready(grant);
        let (mut rsp_valid, mut rsp) = mem.resp();
        if !keep && junk.below(4) == 0 {
            // Clear: a response offered anyway is not taken.
            (rsp_valid, rsp.rdata) = (true, junk.next_u32());
            seen.junk_rsp += 1;
        }
        let rsp_ready = dut.rsp_ready();
        assert!(keep || !rsp_ready, "clear: rsp_ready stays low (seed {seed})");
        let in_ready = dut.in_ready(rd_ready);
        let (out_valid, out) = dut.out();
        seen.meta_full += (dut.meta_len() == META_DEPTH) as u64;
        seen.rd_stall += (rd_valid && !rd_ready) as u64;
        seen.out_stall += (out_valid && !out_ready) as u64;
        if flush {
            check(&want, &got, &reads, false);
            want.clear();
            got.clear();
            reads.clear();
            seen.flushes += 1;
        } else {
            if out_valid && out_ready {
                let l = lanes(&out, k);
                seen.frags += 1;
                seen.multi += (l.len() > 1) as u64;
                seen.full += (l.len() == k) as u64;
                seen.lanes += l.len() as u64;
                seen.clear_lanes += if keep { 0 } else { l.len() as u64 };
                got.extend(l);
            }
            if rd_valid && rd_ready {
                reads.push(rd);
            }
            if in_valid && in_ready {
                seen.empty_pixels += (inp.slot_valid & ((1u32 << cfg.colours_per_pixel) - 1) as u16 == 0) as u64;
                want.extend(pixel_samples(cfg, &inp, |pos| {
                    if keep {
                        image.read(slot_addr(pos))
                    } else {
                        background
                    }
                }));
                next += 1;
            }
        }
        let busy = next < px.len() || out_valid || rd_valid || dut.meta_len() > 0;
        idle = if busy { 0 } else { idle + 1 };
        dut.clock(&DstFetchIn {
            flush,
            inp: Offer::new(in_valid, inp),
            rsp: Offer::new(rsp_valid, rsp),
            out_ready,
            rd_ready,
            background,
        });
        mem.clock(rd_valid, &rd, grant, rsp_ready, flush);
        cycle += 1;
    }
    check(&want, &got, &reads, true);
    assert_eq!(mem.mem, image, "reads only");
    seen.cycles = cycle;
    seen
}

#[test]
fn fragments_are_goldens_samples() {
    let mut total = Seen::default();
    let mut r = Rng::new(0xd57);
    for i in 0..60u64 {
        let c = *r.pick(&[1u32, 2, 4, 8, 16]);
        let pool = 1 + r.below(5) as u32; // K = min(P, 4): P = 5 gives 4
        let timing = MemTiming {
            latency: 1 + r.below(4) as u32,
            depth: 1 + r.below(6) as u32,
        };
        let valid = *r.pick(&[Pattern::Always, Pattern::gaps(30), Pattern::Runs { pct: 70 }]);
        let ready = *r.pick(&[
            Pattern::Always,
            Pattern::Random { pct: 60 },
            Pattern::RandomStalls {
                pct: 90,
                permille: 10,
                min: 5,
                max: 60,
            },
        ]);
        let grant = *r.pick(&[Pattern::Always, Pattern::Random { pct: 70 }, Pattern::Runs { pct: 80 }]);
        let flush = if i % 3 == 0 { 3 } else { 0 };
        let mode = if i % 2 == 0 {
            FramebufferMode::Keep
        } else {
            FramebufferMode::Clear
        };
        let cfg = cfg(c, pool, mode);
        let s = run(&cfg, 1000 + i, 150, timing, valid, ready, grant, flush);
        total.cycles += s.cycles;
        total.flushes += s.flushes;
        total.frags += s.frags;
        total.multi += s.multi;
        total.full += (s.full > 0 && pool > 1) as u64;
        total.meta_full += s.meta_full;
        total.rd_stall += s.rd_stall;
        total.out_stall += s.out_stall;
        total.empty_pixels += s.empty_pixels;
        total.lanes += s.lanes;
        total.junk_rsp += s.junk_rsp;
        total.clear_lanes += s.clear_lanes;
    }
    println!("{total:?}");
    assert!(total.flushes >= 5, "flushes: {}", total.flushes);
    assert!(total.multi > 500, "multi-lane fragments: {}", total.multi);
    assert!(total.full >= 30, "runs with full K > 1 fragments: {}", total.full);
    assert!(
        total.meta_full > 100,
        "cycles with the meta FIFO full: {}",
        total.meta_full
    );
    assert!(total.rd_stall > 100 && total.out_stall > 100, "{total:?}");
    assert!(total.empty_pixels > 100, "{total:?}");
    assert!(total.clear_lanes > 1000 && total.junk_rsp > 1000, "{total:?}");
}

/// The latency and throughput of the timing contract, measured: memory latency 1, depth 2,
/// grant and out_ready always high.
#[test]
fn timing_as_documented() {
    let t = MemTiming { latency: 1, depth: 2 };
    // One pixel, one slot, into an empty block at edge 0.
    let cfg1 = cfg(1, 4, FramebufferMode::Keep);
    let mut dut = DstFetchCycle::new(&cfg1);
    let mut mem = MemoryCycle::new(t, SparseMemory::new());
    let p = PixSlots {
        x: 3,
        y: 2,
        slot_valid: 1,
        ..Default::default()
    };
    let (mut first_rd, mut first_out) = (None, None);
    for cyc in 0..20u64 {
        let (rv, rd) = dut.rd();
        let (sv, rsp) = mem.resp();
        let rr = mem.req_ready(true);
        if rv && first_rd.is_none() {
            first_rd = Some(cyc);
        }
        if dut.out().0 && first_out.is_none() {
            first_out = Some(cyc);
        }
        let iv = cyc == 0;
        assert!(!iv || dut.in_ready(rr));
        let sr = dut.rsp_ready();
        dut.clock(&DstFetchIn {
            flush: false,
            inp: Offer::new(iv, p),
            rsp: Offer::new(sv, rsp),
            out_ready: true,
            rd_ready: rr,
            background: 0,
        });
        mem.clock(rv, &rd, true, sr, false);
    }
    assert_eq!(
        (first_rd, first_out),
        (Some(2), Some(5)),
        "read from t + 2, fragment from e + 4 (e = t + 1)"
    );

    // A long stream of one-slot pixels (C = 1): K lanes per K + 1 cycles, the meta FIFO full.
    for pool in 1..=4u32 {
        let cfg = cfg(1, pool, FramebufferMode::Keep);
        let k = pool as u64;
        let mut dut = DstFetchCycle::new(&cfg);
        let mut mem = MemoryCycle::new(t, SparseMemory::new());
        let mut outs = Vec::new();
        let mut accepted = 0u64;
        for cyc in 0..400u64 {
            let (rv, rd) = dut.rd();
            let (sv, rsp) = mem.resp();
            let rr = mem.req_ready(true);
            let p = PixSlots {
                x: (cyc % 24) as u32,
                y: 1,
                slot_valid: 1,
                ..Default::default()
            };
            accepted += dut.in_ready(rr) as u64;
            if dut.out().0 {
                assert_eq!(dut.out().1.lane_valid.count_ones() as u64, k);
                outs.push(cyc);
            }
            let sr = dut.rsp_ready();
            dut.clock(&DstFetchIn {
                flush: false,
                inp: Offer::new(true, p),
                rsp: Offer::new(sv, rsp),
                out_ready: true,
                rd_ready: rr,
                background: 0,
            });
            mem.clock(rv, &rd, true, sr, false);
        }
        let gaps: Vec<u64> = outs.windows(2).map(|w| w[1] - w[0]).skip(10).collect();
        assert!(
            gaps.iter().all(|&g| g == k + 1),
            "K = {k}: fragment every K + 1 cycles: {gaps:?}"
        );
        // Pixels accepted at the same rate: K per K + 1 cycles (within the start-up).
        assert!(
            accepted.abs_diff(400 * k / (k + 1)) <= 6,
            "K = {k}: {accepted} pixels in 400 cycles"
        );
    }
}

/// `framebuffer: clear`, measured: out_ready always high, no memory. A pixel accepted at edge
/// t issues at edge t + 1 and is on `out` from cycle t + 3; a stream of one-slot pixels goes
/// through at one per cycle (a K-lane fragment every K cycles) for K ≥ 2, two per three cycles
/// at K = 1; nothing is ever read.
#[test]
fn clear_timing_as_documented() {
    let cfg1 = cfg(1, 4, FramebufferMode::Clear);
    let mut dut = DstFetchCycle::new(&cfg1);
    let p = PixSlots {
        x: 3,
        y: 2,
        slot_valid: 1,
        colour: [7; 16],
    };
    let mut first_out = None;
    for cyc in 0..10u64 {
        assert!(!dut.rd().0, "no read");
        if dut.out().0 && first_out.is_none() {
            first_out = Some(cyc);
            assert_eq!(dut.out().1.dst[0], 0xabcd_ef01, "dst is the background");
            assert_eq!(dut.out().1.src[0], 7);
        }
        assert!(cyc != 0 || dut.in_ready(false), "in_ready without a read port");
        dut.clock(&DstFetchIn {
            flush: false,
            inp: Offer::new(cyc == 0, p),
            rsp: Offer::new(false, Default::default()),
            out_ready: true,
            rd_ready: false,
            background: 0xabcd_ef01,
        });
    }
    assert_eq!(first_out, Some(3), "fragment on out from cycle t + 3");
    for pool in 1..=4u32 {
        let cfg = cfg(1, pool, FramebufferMode::Clear);
        let k = pool as u64;
        let mut dut = DstFetchCycle::new(&cfg);
        let (mut outs, mut accepted, mut lanes) = (Vec::new(), 0u64, 0u64);
        for cyc in 0..400u64 {
            let p = PixSlots {
                x: (cyc % 24) as u32,
                y: 1,
                slot_valid: 1,
                ..Default::default()
            };
            accepted += dut.in_ready(false) as u64;
            if dut.out().0 {
                assert_eq!(dut.out().1.lane_valid.count_ones() as u64, k);
                lanes += k;
                outs.push(cyc);
            }
            dut.clock(&DstFetchIn {
                flush: false,
                inp: Offer::new(true, p),
                rsp: Offer::new(false, Default::default()),
                out_ready: true,
                rd_ready: false,
                background: 1,
            });
        }
        assert_eq!(dut.stats().reads, 0);
        let gaps: Vec<u64> = outs.windows(2).map(|w| w[1] - w[0]).skip(10).collect();
        if k >= 2 {
            assert!(
                gaps.iter().all(|&g| g == k),
                "K = {k}: fragment every K cycles: {gaps:?}"
            );
            assert!(accepted >= 395, "K = {k}: {accepted} pixels in 400 cycles");
        } else {
            assert!(
                gaps.windows(2).all(|g| g[0] + g[1] == 3),
                "K = 1: two fragments per three cycles: {gaps:?}"
            );
            assert!(
                accepted.abs_diff(400 * 2 / 3) <= 4,
                "K = 1: {accepted} pixels in 400 cycles"
            );
        }
        assert!(lanes > 250, "K = {k}: {lanes} lanes");
    }
}
