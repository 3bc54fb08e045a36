//! The board memory's cycle model (`BoardMemoryCycle`) against the transaction model: requests
//! applied one by one to a plain word array of the board's capacity, an out-of-range request
//! (misaligned, or at or beyond the capacity) changing nothing and a refused read answering 0.
//! Random requests on every board's memory (both ends of the capacity, just beyond it),
//! random byte enables, random `in_valid` gaps and `out_ready` stalls; checked every cycle:
//! `in_ready` is "fewer than two reads held", a response arrives exactly one cycle after its
//! read when nothing waits, responses in order with the transaction model's data, and `error`
//! is high exactly after the first refused request since the last flush.

use std::collections::VecDeque;
use tilerast_golden::board::BOARDS;
use tilerast_golden::board_memory::{BoardMemoryCycle, MemoryKind};
use tilerast_golden::streams::MemReq;
use tilerast_verif::{Pattern, Rng};

fn random_reqs(kind: MemoryKind, r: &mut Rng, n: usize) -> Vec<MemReq> {
    let w = kind.words();
    (0..n)
        .map(|_| {
            let write = r.chance(45);
            let word = match r.below(3) {
                0 => r.below(8) as u32,
                1 => w - 1 - r.below(8) as u32,
                _ => r.below(w as u64) as u32,
            };
            let addr = match r.below(40) {
                0 => 4 * (w + r.below(8) as u32),
                1 => 4 * word + 1 + r.below(3) as u32,
                _ => 4 * word,
            };
            MemReq {
                addr,
                write,
                wdata: if write { r.next_u32() } else { 0 },
                be: if write { r.below(16) as u8 } else { 0 },
            }
        })
        .collect()
}

/// The read data, in order, of `reqs` applied one by one (refused requests: no effect, 0).
fn transaction(kind: MemoryKind, reqs: &[MemReq]) -> Vec<u32> {
    let mut words = vec![0u32; kind.words() as usize];
    let mut out = Vec::new();
    for q in reqs {
        let ok = q.addr % 4 == 0 && q.addr / 4 < kind.words();
        let i = (q.addr / 4) as usize;
        if q.write && ok {
            let m = (0..4)
                .filter(|k| q.be >> k & 1 == 1)
                .fold(0u32, |m, k| m | 0xff << (8 * k));
            words[i] = (words[i] & !m) | (q.wdata & m);
        } else if !q.write {
            out.push(if ok { words[i] } else { 0 });
        }
    }
    out
}

#[test]
fn every_board_memory_equals_the_transaction_model_cycle_by_cycle() {
    for (k, b) in BOARDS.iter().enumerate() {
        for seed in 0..4u64 {
            let mut r = Rng::stream(100 * k as u64 + seed, 5);
            let reqs = random_reqs(b.memory, &mut r, 3000);
            let want = transaction(b.memory, &reqs);
            let mut m = BoardMemoryCycle::new(b.memory);
            let mut valid = Pattern::Runs { pct: 80 }.line(Rng::stream(seed, 0));
            let mut ready = Pattern::RandomStalls {
                pct: 75,
                permille: 10,
                min: 3,
                max: 2000,
            }
            .line(Rng::stream(seed, 1));
            let (mut next, mut got) = (0usize, Vec::new());
            // Reads taken and not yet answered: (edge taken, first cycle a response could wait).
            let mut pending: VecDeque<u64> = VecDeque::new();
            let (mut refused, mut waits, mut full) = (false, 0u64, 0u64);
            let mut cycle = 0u64;
            while got.len() < want.len() {
                assert!(cycle < 1_000_000, "{}: stuck", b.name);
                let (v, rd) = (valid.step() && next < reqs.len(), ready.step());
                let q = reqs.get(next).copied().unwrap_or_default();
                let (ov, resp) = m.out();
                assert_eq!(m.in_ready(), pending.len() < 2, "{} cycle {cycle}: in_ready", b.name);
                assert_eq!(ov, !pending.is_empty(), "{} cycle {cycle}: out_valid", b.name);
                if !ov {
                    assert_eq!(resp.rdata, 0, "payload when not valid");
                }
                assert_eq!(m.error(), refused, "{} cycle {cycle}: error", b.name);
                full += (v && !m.in_ready()) as u64;
                if ov && rd {
                    // The oldest read is answered exactly one cycle after its edge unless it had
                    // to wait for out_ready.
                    let at = pending.pop_front().unwrap();
                    assert!(cycle > at, "latency ≥ 1");
                    waits += (cycle > at + 1) as u64;
                    got.push(resp.rdata);
                }
                if v && m.in_ready() {
                    refused |= !b.memory.in_range(q.addr);
                    if !q.write {
                        pending.push_back(cycle);
                    }
                    next += 1;
                }
                m.clock(v, &q, rd, false);
                cycle += 1;
            }
            assert_eq!(got, want, "{} seed {seed}: read data", b.name);
            assert!(refused && waits > 100 && full > 100, "{}: activity", b.name);
            let s = m.stats();
            assert_eq!(s.reads + s.writes + s.errors, reqs.len() as u64);
        }
    }
}

/// A flush drops the held reads and clears `error`; the bytes stay.
#[test]
fn flush_drops_reads_clears_error_keeps_bytes() {
    let kind = MemoryKind::Bram { words: 64 };
    let mut m = BoardMemoryCycle::new(kind);
    let w = |addr, wdata| MemReq {
        addr,
        write: true,
        wdata,
        be: 0xf,
    };
    let rd = |addr| MemReq {
        addr,
        ..MemReq::default()
    };
    m.clock(true, &w(8, 0x55), false, false);
    m.clock(true, &rd(8), false, false);
    m.clock(true, &rd(1 << 20), false, false);
    assert!(m.error() && !m.in_ready() && m.out().0);
    m.clock(true, &w(12, 0x66), false, true);
    assert!(!m.error() && m.in_ready() && !m.out().0);
    assert_eq!(m.memory().read(12), 0, "the request at the flush edge is not taken");
    m.clock(true, &rd(8), true, false);
    assert_eq!(m.out().1.rdata, 0x55);
}
