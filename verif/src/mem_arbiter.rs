//! The board memory arbiter's bench, shared by its rust-hdl, Verilator and gate-level tests:
//! golden's memory behind `out`/`inp` (latency 5, 12 reads held, a random grant: deep enough
//! to fill the tag FIFO), the scan-out's reads from one address window and the GPU's reads
//! and writes from another (so an answer's client shows in its address), each client's
//! answers taken under random stalls, optional flushes.
//!
//! ```text
//!   Source("scan_rd"): reads in [SCAN_WINDOW)      Sink("scan_rsp"): random stalls
//!   Source("gpu_req"): reads + writes in [GPU_WINDOW)  Sink("gpu_rsp"): random stalls
//!   Memory("out" → "inp"), logged: the order the memory took the requests in
//! ```

use crate::lockstep::{Bench, Flushes, Memory, Sink, Source};
use crate::{Pattern, Rng};
use tilerast_golden::memory_port::{MemTiming, MemoryCycle, SparseMemory};
use tilerast_golden::streams::{ports, MemReq};

/// The scan-out's addresses and the GPU's (bytes).
pub const SCAN_WINDOW: std::ops::Range<u32> = 0..0x400;
pub const GPU_WINDOW: std::ops::Range<u32> = 0x400..0x800;

/// `n` requests of one client in `window`: the scan-out's reads in address order (wrapping),
/// the GPU's reads and writes at random.
pub fn requests(gpu: bool, n: usize, seed: u64) -> Vec<MemReq> {
    let mut r = Rng::stream(seed, 20 + u64::from(gpu));
    let w = if gpu { GPU_WINDOW } else { SCAN_WINDOW };
    let words = (w.end - w.start) / 4;
    (0..n as u32)
        .map(|i| {
            let write = gpu && r.below(100) < 40;
            MemReq {
                addr: w.start + 4 * if gpu { r.below(words.into()) as u32 } else { i % words },
                write,
                wdata: if write { r.next_u32() } else { 0 },
                be: if write { 1 + r.below(15) as u8 } else { 0 },
            }
        })
        .collect()
}

/// How a bench drives the block.
#[derive(Clone, Debug)]
pub struct MemArbiterStim {
    pub seed: u64,
    pub requests: usize,
    /// Each client's valid, % of cycles (bursty runs).
    pub valid_pct: u32,
    /// Each client's answer ready, % of cycles (with random long stalls).
    pub ready_pct: u32,
    /// Random flushes, per million cycles (0: none).
    pub flush_ppm: u64,
}

/// The bench under `s`; the memory agent is `memory` (logged), the sinks `scan_rsp` and
/// `gpu_rsp`.
pub fn bench(s: &MemArbiterStim) -> Bench {
    let mut scan_valid = Pattern::Runs { pct: s.valid_pct }.line(Rng::stream(s.seed, 0));
    let mut gpu_valid = Pattern::Runs { pct: s.valid_pct }.line(Rng::stream(s.seed, 1));
    let stalls = |k: u64| {
        Pattern::RandomStalls {
            pct: s.ready_pct,
            permille: 5,
            min: 3,
            max: 40,
        }
        .line(Rng::stream(s.seed, k))
    };
    let (mut scan_ready, mut gpu_ready) = (stalls(2), stalls(3));
    let mut grant = Pattern::Random { pct: 80 }.line(Rng::stream(s.seed, 4));
    let mut flush_rng = Rng::stream(s.seed, 5);
    let ppm = s.flush_ppm;
    let mem = MemoryCycle::new(MemTiming { latency: 5, depth: 12 }, SparseMemory::new());
    Bench::new()
        .with(
            "flush",
            Flushes::when(Box::new(move |c| c > 10 && ppm > 0 && flush_rng.below(1_000_000) < ppm)),
        )
        .with(
            "scan_rd",
            Source::<ports::MemReq>::new(
                "scan_rd",
                requests(false, s.requests, s.seed),
                Box::new(move |_| scan_valid.step()),
            ),
        )
        .with(
            "gpu_req",
            Source::<ports::MemReq>::new(
                "gpu_req",
                requests(true, s.requests, s.seed),
                Box::new(move |_| gpu_valid.step()),
            ),
        )
        .with(
            "scan_rsp",
            Sink::<ports::MemResp>::new("scan_rsp", Box::new(move |_| scan_ready.step())),
        )
        .with(
            "gpu_rsp",
            Sink::<ports::MemResp>::new("gpu_rsp", Box::new(move |_| gpu_ready.step())),
        )
        .with(
            "memory",
            Memory::new("out", "inp", mem, Box::new(move |_| grant.step())).logged(),
        )
}

/// The reference for a run without flushes: the requests the memory took, in its order,
/// performed on a plain memory; the words each client's reads find, in order (scan-out, GPU:
/// the client is the address's window).
pub fn replay(log: &[MemReq]) -> [Vec<u32>; 2] {
    let mut m = SparseMemory::new();
    let mut out = [vec![], vec![]];
    for q in log {
        if q.write {
            m.write(q.addr, q.wdata, q.be);
        } else {
            out[usize::from(GPU_WINDOW.contains(&q.addr))].push(m.read(q.addr));
        }
    }
    out
}

/// Where the planted full-early bug (`MemArbiterCycle::plant_full_early_bug`, the RTL's
/// `mutant_full_early` and cosim's `mem_arbiter` mutant) first shows on the ports under `s`
/// within `cycles`: (cycle, port), from the model with the bug against the model without.
pub fn predicted_full_early_bug(s: &MemArbiterStim, cycles: u64) -> (u64, String) {
    use crate::lockstep::{first_difference, Lockstep};
    use tilerast_golden::mem_arbiter::MemArbiterCycle;
    let mut bad_model = MemArbiterCycle::new(2);
    bad_model.plant_full_early_bug();
    let mut good = Lockstep::new(MemArbiterCycle::new(2), bench(s));
    let mut bad = Lockstep::new(bad_model, bench(s));
    first_difference(&mut good, &mut bad, cycles)
        .unwrap()
        .expect("the full-early bug shows on the ports")
}
