//! mem_arbiter's cycle model against the reference: with golden's memory behind it, each
//! client's answers are exactly the words its own reads find when the memory performs the
//! requests in the order the arbiter sent them (a replay on a plain memory), under answer
//! stalls that fill the tag FIFO; the scan-out's reads are never passed over by the GPU's
//! while the FIFO has room; writes never take a tag; a flush empties the FIFO; the planted
//! full-early bug holds a read back at the predicted cycle.

use tilerast_golden::mem_arbiter::{MemArbiterCycle, TAG_DEPTH};
use tilerast_golden::memory_port::{MemTiming, MemoryCycle, SparseMemory};
use tilerast_golden::rng::Rng;
use tilerast_golden::streams::MemReq;

/// Client 0 reads only (the scan-out), client 1 reads and writes (the GPU).
fn requests(client: usize, n: usize, seed: u64) -> Vec<MemReq> {
    let mut r = Rng::stream(seed, client as u64);
    (0..n)
        .map(|_| {
            let write = client == 1 && r.below(100) < 40;
            MemReq {
                addr: 4 * r.below(64) as u32,
                write,
                wdata: if write { r.next_u32() } else { 0 },
                be: if write { 1 + r.below(15) as u8 } else { 0 },
            }
        })
        .collect()
}

struct Run {
    /// (client, request) in the order the memory took them.
    order: Vec<(usize, MemReq)>,
    answers: [Vec<u32>; 2],
    peak_tags: usize,
    /// Cycles in which client 0 was eligible and lost.
    passed_over: u64,
    /// Cycles in which the tag FIFO was full with a read offered.
    full_waits: u64,
}

fn run(arb: &mut MemArbiterCycle, seed: u64, cycles: u64) -> Run {
    let mut mem = MemoryCycle::new(MemTiming { latency: 5, depth: 12 }, SparseMemory::new());
    let queues = [requests(0, 400, seed), requests(1, 400, seed)];
    let mut next = [0usize; 2];
    let mut rng = Rng::stream(seed, 9);
    let mut r = Run {
        order: vec![],
        answers: [vec![], vec![]],
        peak_tags: 0,
        passed_over: 0,
        full_waits: 0,
    };
    for _ in 0..cycles {
        let req: Vec<(bool, MemReq)> = (0..2)
            .map(|k| {
                let valid = next[k] < queues[k].len() && rng.below(100) < 70;
                (valid, queues[k].get(next[k]).copied().unwrap_or_default())
            })
            .collect();
        let rsp_ready = [rng.below(100) < 60, rng.below(100) < 60];
        let grant = rng.below(100) < 80;
        let out_ready = mem.req_ready(grant);
        let (inp_valid, inp) = mem.resp();
        let d = arb.decide(&req, &rsp_ready);
        if req[0].0 && arb.tags().len() < TAG_DEPTH && d.winner != 0 {
            r.passed_over += 1;
        }
        r.full_waits += u64::from(arb.tags().len() == TAG_DEPTH && req.iter().any(|q| q.0 && !q.1.write));
        if d.out_valid && out_ready {
            r.order.push((d.winner, d.out));
            next[d.winner] += 1;
        }
        for (k, answers) in r.answers.iter_mut().enumerate() {
            if inp_valid && d.rsp_valid[k] && rsp_ready[k] {
                answers.push(inp.rdata);
            }
        }
        mem.clock(d.out_valid, &d.out, grant, d.inp_ready, false);
        arb.clock(&req, out_ready, inp_valid, &rsp_ready, false);
        r.peak_tags = r.peak_tags.max(arb.tags().len());
    }
    r
}

/// The reference: the taken requests performed in order on a plain memory; each client's read
/// data in its order.
fn replay(order: &[(usize, MemReq)]) -> [Vec<u32>; 2] {
    let mut m = SparseMemory::new();
    let mut out = [vec![], vec![]];
    for (c, q) in order {
        if q.write {
            m.write(q.addr, q.wdata, q.be);
        } else {
            out[*c].push(m.read(q.addr));
        }
    }
    out
}

#[test]
fn each_client_gets_its_own_reads_answers_in_order() {
    let mut arb = MemArbiterCycle::new(2);
    let r = run(&mut arb, 1, 3_000);
    let want = replay(&r.order);
    assert_eq!(r.answers, want);
    let t = arb.traffic();
    println!("{t:?}, peak tags {}", r.peak_tags);
    assert!(t[0].reads == 400 && t[1].reads > 150 && t[1].writes > 100, "{t:?}");
    assert_eq!((t[0].answers, t[1].answers), (t[0].reads, t[1].reads));
    assert!(
        want[1].iter().filter(|&&w| w != 0).count() > 50,
        "the GPU reads what it wrote"
    );
    assert_eq!(r.peak_tags, TAG_DEPTH, "the answer stalls fill the tag FIFO");
    assert!(r.full_waits > 20 && t[1].lost > 50, "{} {t:?}", r.full_waits);
    assert_eq!(r.passed_over, 0, "the scan-out first");
}

#[test]
fn a_flush_empties_the_tag_fifo() {
    let mut arb = MemArbiterCycle::new(2);
    let read = MemReq::default();
    arb.clock(&[(true, read), (false, read)], true, false, &[true, true], false);
    arb.clock(&[(false, read), (true, read)], true, false, &[true, true], false);
    assert_eq!(arb.tags().iter().copied().collect::<Vec<_>>(), vec![0, 1]);
    arb.clock(&[(true, read), (true, read)], true, false, &[true, true], true);
    assert!(arb.tags().is_empty(), "flushed, and nothing taken at the flush edge");
}

#[test]
fn the_planted_full_early_bug_holds_a_read_back() {
    let mut good = MemArbiterCycle::new(2);
    let mut bad = MemArbiterCycle::new(2);
    bad.plant_full_early_bug();
    let a = run(&mut good, 1, 3_000);
    let b = run(&mut bad, 1, 3_000);
    assert_eq!(b.peak_tags, TAG_DEPTH - 1);
    assert_ne!(a.order, b.order);
    assert_eq!(b.answers, replay(&b.order), "still correct, only slower");
}
