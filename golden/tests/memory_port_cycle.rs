//! The memory behind the port (`MemoryCycle`) against the transaction model: requests applied
//! one by one to a plain byte array, each read returning the bytes at its turn. Random request
//! mixes on a small address range (so reads hit recent partial writes), random latency and depth,
//! random back-pressure (`grant`) and response ready lines from the verification kit, including
//! stalls of thousands of cycles, and flushes. The timing contract (`golden/src/memory_port.rs`)
//! is checked cycle by cycle: held reads ≤ depth, each response exactly `latency` cycles after
//! its request when nothing waits, in order.

use std::collections::VecDeque;
use tilerast_golden::memory_port::{MemTiming, MemoryCycle, SparseMemory};
use tilerast_golden::streams::MemReq;
use tilerast_verif::{Pattern, Rng};

fn random_reqs(r: &mut Rng, n: usize) -> Vec<MemReq> {
    (0..n)
        .map(|_| {
            let write = r.chance(45);
            MemReq {
                addr: 4 * r.below(24) as u32,
                write,
                wdata: if write { r.next_u32() } else { 0 },
                be: if write { r.below(16) as u8 } else { 0 },
            }
        })
        .collect()
}

/// The transaction model: the read data, in order, of `reqs` applied one by one.
fn transaction(reqs: &[MemReq]) -> Vec<u32> {
    let mut bytes = [0u8; 4 * 24];
    let mut out = Vec::new();
    for q in reqs {
        let a = q.addr as usize;
        if q.write {
            for k in 0..4 {
                if q.be >> k & 1 == 1 {
                    bytes[a + k] = (q.wdata >> (8 * k)) as u8;
                }
            }
        } else {
            out.push(u32::from_le_bytes(bytes[a..a + 4].try_into().unwrap()));
        }
    }
    out
}

struct Run {
    data: Vec<u32>,
    stalled: u64,
    resp_waits: u64,
    max_held: usize,
    cycles: u64,
}

/// Drive `m` with `reqs` under the three lines; checks the contract every cycle.
fn run(
    m: &mut MemoryCycle,
    t: MemTiming,
    reqs: &[MemReq],
    seed: u64,
    valid: Pattern,
    grant: Pattern,
    ready: Pattern,
) -> Run {
    let (mut vl, mut gl, mut rl) = (
        valid.line(Rng::stream(seed, 0)),
        grant.line(Rng::stream(seed, 1)),
        ready.line(Rng::stream(seed, 2)),
    );
    let n_reads = reqs.iter().filter(|q| !q.write).count();
    let mut next = 0;
    // Accepting cycle of each read not yet answered.
    let mut pending: VecDeque<u64> = VecDeque::new();
    let mut r = Run {
        data: Vec::new(),
        stalled: 0,
        resp_waits: 0,
        max_held: 0,
        cycles: 0,
    };
    let mut cycle = 0u64;
    while r.data.len() < n_reads || next < reqs.len() {
        assert!(cycle < 2_000_000, "no progress");
        let (v, g, rd) = (next < reqs.len() && vl.step(), gl.step(), rl.step());
        let req = if next < reqs.len() {
            reqs[next]
        } else {
            MemReq::default()
        };
        let ready = m.req_ready(g);
        let (rv, resp) = m.resp();
        if !rv {
            assert_eq!(resp.rdata, 0, "payload when not valid");
        }
        if rv {
            let at = *pending.front().expect("a response answers a read");
            assert!(
                cycle >= at + t.latency as u64,
                "cycle {cycle}: response before its latency"
            );
            if rd {
                pending.pop_front();
                r.data.push(resp.rdata);
            } else {
                r.resp_waits += 1;
            }
        } else if let Some(&at) = pending.front() {
            assert!(
                cycle < at + t.latency as u64,
                "cycle {cycle}: a read due at {} is not shown",
                at + t.latency as u64
            );
        }
        if v && !ready {
            r.stalled += 1;
        }
        if v && ready {
            if !req.write {
                pending.push_back(cycle);
            }
            next += 1;
        }
        m.clock(v, &req, g, rd, false);
        r.max_held = r.max_held.max(m.held());
        assert!(
            m.held() <= t.depth as usize,
            "cycle {cycle}: more reads held than the depth"
        );
        cycle += 1;
    }
    r.cycles = cycle;
    r
}

#[test]
fn memory_model_equals_the_transaction_model_under_random_timing() {
    let (mut stalls, mut waits, mut partial, mut reads, mut full_depth) = (0, 0, 0, 0, 0);
    for seed in 0..60u64 {
        let mut r = Rng::stream(0x3e3, seed);
        let t = MemTiming {
            latency: r.range(1, 6) as u32,
            depth: r.range(1, 8) as u32,
        };
        let reqs = random_reqs(&mut r, 400);
        let pick = |r: &mut Rng| match r.below(4) {
            0 => Pattern::Always,
            1 => Pattern::Random { pct: 70 },
            2 => Pattern::Runs { pct: 60 },
            _ => Pattern::Stalls {
                pct: 90,
                every: 3000,
                len: if seed % 7 == 0 { 2000 } else { 30 },
            },
        };
        let (v, g, rd) = (pick(&mut r), pick(&mut r), pick(&mut r));
        let mut m = MemoryCycle::new(t, SparseMemory::new());
        let out = run(&mut m, t, &reqs, seed, v, g, rd);
        assert_eq!(out.data, transaction(&reqs), "seed {seed} {t:?}: read data");
        assert_eq!(m.stats.reads as usize, out.data.len());
        assert_eq!(m.stats.reads + m.stats.writes, reqs.len() as u64);
        assert_eq!(m.stats.stalled, out.stalled);
        stalls += out.stalled;
        waits += out.resp_waits;
        reads += out.data.len();
        partial += reqs.iter().filter(|q| q.write && q.be != 0 && q.be != 15).count();
        full_depth += (out.max_held == t.depth as usize) as u32;
    }
    // Activity: the runs exercised back-pressure, held responses, partial writes, full depth.
    assert!(
        stalls > 1000 && waits > 1000 && partial > 1000 && reads > 5000 && full_depth > 20,
        "{stalls} {waits} {partial} {reads} {full_depth}"
    );
}

/// With every line high and depth ≥ latency + 1, one read per cycle streams through, each
/// response exactly `latency` cycles after its request; a smaller depth d gives d reads per
/// latency + 1 cycles.
#[test]
fn throughput_follows_depth_and_latency() {
    for latency in 1..=5u32 {
        for depth in 1..=latency + 2 {
            let t = MemTiming { latency, depth };
            let n = 60u64;
            let reqs: Vec<MemReq> = (0..n)
                .map(|i| MemReq {
                    addr: 4 * (i as u32 % 24),
                    ..Default::default()
                })
                .collect();
            let mut m = MemoryCycle::new(t, SparseMemory::new());
            let out = run(&mut m, t, &reqs, 1, Pattern::Always, Pattern::Always, Pattern::Always);
            let per = latency as u64 + 1;
            let d = (depth as u64).min(per);
            // Reads accepted in groups of d every `per` cycles; the last is answered `latency` later.
            let last_accept = (n - 1) / d * per + (n - 1) % d;
            assert_eq!(
                out.cycles,
                last_accept + latency as u64 + 1,
                "latency {latency} depth {depth}"
            );
            assert_eq!(
                out.stalled > 0,
                depth <= latency,
                "latency {latency} depth {depth}: stalls"
            );
        }
    }
}

/// A flush drops held reads and keeps the bytes.
#[test]
fn flush_drops_reads_and_keeps_memory() {
    let t = MemTiming { latency: 4, depth: 4 };
    let mut m = MemoryCycle::new(t, SparseMemory::new());
    let w = MemReq {
        addr: 16,
        write: true,
        wdata: 0xdead_beef,
        be: 0b1001,
    };
    m.clock(true, &w, true, true, false);
    let rd = MemReq {
        addr: 16,
        ..Default::default()
    };
    m.clock(true, &rd, true, false, false);
    m.clock(true, &rd, true, false, false);
    assert_eq!(m.held(), 2);
    m.clock(false, &rd, true, false, true);
    assert_eq!((m.held(), m.resp().0), (0, false));
    assert_eq!(m.mem.read(16), 0xde00_00ef);
    assert!(m.req_ready(true));
}
