//! The memory port: the pixel side's one request/response interface to memory (seed 000's
//! output merger writes and reads the framebuffer through it; the pixel-info lists of seed 001
//! and the primitive lists will too), and the memory behind it as a cycle model: what the
//! co-simulation puts behind the RTL's port, with a configurable latency and a back-pressure
//! line, so that golden predicts every cycle of a block that talks to memory.
//!
//! ```text
//!                 req_valid, MemReq {addr, write, wdata, be} ─►┌────────────────────┐
//!   req_ready = inflight < depth && grant ◄────────────────────│ MemoryCycle        │◄─ grant (back-pressure line)
//!                                                              │ SparseMemory bytes │
//!               resp_valid, MemResp {rdata} (registered) ◄─────│ read FIFO, latency │◄─ resp_ready
//!                                                              └────────────────────┘
//! ```
//!
//! The port's fields are declared once with the other streams
//! ([`crate::for_each_stream!`]: `MemReq`, `MemResp`).

use crate::streams::{MemReq, MemResp};
use std::collections::{HashMap, VecDeque};

/// The bytes of a memory, sparse (a framebuffer of the largest config is 256 MiB; a frame
/// touches what it draws). Unwritten bytes read as 0.
#[derive(Clone, Debug, Default, PartialEq, Eq)]
pub struct SparseMemory {
    words: HashMap<u32, u32>,
}

impl SparseMemory {
    pub fn new() -> Self {
        Self::default()
    }
    /// The word at byte address `addr` (a multiple of 4).
    pub fn read(&self, addr: u32) -> u32 {
        debug_assert_eq!(addr % 4, 0, "word address");
        self.words.get(&(addr >> 2)).copied().unwrap_or(0)
    }
    /// Write the bytes of `data` enabled by `be` (bit k: byte k, little-endian).
    pub fn write(&mut self, addr: u32, data: u32, be: u8) {
        debug_assert_eq!(addr % 4, 0, "word address");
        let m = (0..4)
            .filter(|k| be >> k & 1 == 1)
            .fold(0u32, |m, k| m | 0xff << (8 * k));
        let w = self.words.entry(addr >> 2).or_insert(0);
        *w = (*w & !m) | (data & m);
    }
    /// Every word ever written, `(byte address, word)`, in address order.
    pub fn words(&self) -> impl Iterator<Item = (u32, u32)> + '_ {
        let mut a: Vec<u32> = self.words.keys().copied().collect();
        a.sort_unstable();
        a.into_iter().map(|w| (w << 2, self.words[&w]))
    }
    /// Byte at `addr`.
    pub fn byte(&self, addr: u32) -> u8 {
        (self.read(addr & !3) >> (8 * (addr & 3))) as u8
    }
    /// The first byte (address order) where `self` and `other` differ: `(addr, self, other)`.
    pub fn first_difference(&self, other: &SparseMemory) -> Option<(u32, u8, u8)> {
        let mut words: Vec<u32> = self.words.keys().chain(other.words.keys()).copied().collect();
        words.sort_unstable();
        words.dedup();
        words.into_iter().find_map(|w| {
            let (a, b) = (self.read(w << 2), other.read(w << 2));
            (a != b).then(|| {
                let k = (0..4).find(|k| (a ^ b) >> (8 * k) & 0xff != 0).unwrap();
                (w * 4 + k, (a >> (8 * k)) as u8, (b >> (8 * k)) as u8)
            })
        })
    }
}

/// Latency and depth of the memory behind the port.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct MemTiming {
    /// Cycles from a read's accepting edge to its response being visible (≥ 1: registered).
    pub latency: u32,
    /// Reads the memory holds at once, in flight or waiting for `resp_ready` (≥ 1).
    pub depth: u32,
}

impl Default for MemTiming {
    /// Block RAM with a registered read and a two-entry response buffer: one read per cycle.
    fn default() -> Self {
        MemTiming { latency: 1, depth: 2 }
    }
}

/// What the memory did.
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq)]
pub struct MemStats {
    pub reads: u64,
    pub writes: u64,
    /// Bytes written (enabled bytes of every write).
    pub bytes_written: u64,
    /// Cycles with a request offered and not accepted (back-pressure).
    pub stalled: u64,
}

/// The memory behind the port, cycle by cycle.
///
/// # Timing contract
/// - **Request**: `req_ready(grant)` = fewer than `depth` reads held **and** `grant` (the
///   back-pressure line: `false` models a busy memory for that cycle). A request transfers at an
///   edge where `req_valid` and `req_ready` are high. A write updates the bytes at that edge
///   (a later request sees it); a read takes its data at that edge (request order is memory
///   order) and is held.
/// - **Response**: a read accepted at edge c is visible on `resp()` from cycle c + `latency`,
///   oldest first, and leaves at an edge where `resp_ready` is high. Responses come in request
///   order, one per read; writes get none. `req_ready` does not look at this cycle's
///   response leaving (no combinational path from `resp_ready` to `req_ready`), so with `grant`
///   and `resp_ready` always high, `depth ≥ latency + 1` streams one read per cycle and a
///   smaller depth d gives d reads per `latency + 1` cycles.
/// - **Payload when not valid**: `rdata` is 0.
/// - **Flush** (synchronous): drops every held read; the bytes stay (memory is not reset).
#[derive(Clone, Debug)]
pub struct MemoryCycle {
    pub mem: SparseMemory,
    timing: MemTiming,
    /// Held reads: (first cycle visible, data), oldest first.
    held: VecDeque<(u64, u32)>,
    cycle: u64,
    pub stats: MemStats,
}

impl MemoryCycle {
    pub fn new(timing: MemTiming, mem: SparseMemory) -> Self {
        assert!(timing.latency >= 1 && timing.depth >= 1, "latency and depth ≥ 1");
        MemoryCycle {
            mem,
            timing,
            held: VecDeque::new(),
            cycle: 0,
            stats: MemStats::default(),
        }
    }

    /// Ready for a request this cycle.
    pub fn req_ready(&self, grant: bool) -> bool {
        grant && (self.held.len() as u32) < self.timing.depth
    }

    /// (resp_valid, payload) this cycle.
    pub fn resp(&self) -> (bool, MemResp) {
        match self.held.front() {
            Some(&(at, d)) if at <= self.cycle => (true, MemResp { rdata: d }),
            _ => (false, MemResp::default()),
        }
    }

    /// Reads held (in flight or waiting to be taken).
    pub fn held(&self) -> usize {
        self.held.len()
    }

    /// One rising edge.
    pub fn clock(&mut self, req_valid: bool, req: &MemReq, grant: bool, resp_ready: bool, flush: bool) {
        self.clock_performing(req_valid, req, grant, resp_ready, flush, true);
    }

    /// One rising edge, as [`MemoryCycle::clock`], except that a request accepted with
    /// `perform` false leaves the bytes alone: a write changes nothing and a read is answered
    /// with `rdata` 0, on a read's timing and in its place in the order (the board memory's
    /// out-of-range requests, [`crate::board_memory`]). Neither is counted in the stats.
    pub fn clock_performing(
        &mut self,
        req_valid: bool,
        req: &MemReq,
        grant: bool,
        resp_ready: bool,
        flush: bool,
        perform: bool,
    ) {
        let ready = self.req_ready(grant);
        let (rv, _) = self.resp();
        self.cycle += 1;
        if flush {
            self.held.clear();
            return;
        }
        if rv && resp_ready {
            self.held.pop_front();
        }
        if req_valid && !ready {
            self.stats.stalled += 1;
        }
        if req_valid && ready && !perform {
            if !req.write {
                self.held.push_back((self.cycle - 1 + self.timing.latency as u64, 0));
            }
        } else if req_valid && ready {
            if req.write {
                self.mem.write(req.addr, req.wdata, req.be);
                self.stats.writes += 1;
                self.stats.bytes_written += (req.be & 0xf).count_ones() as u64;
            } else {
                let at = self.cycle - 1 + self.timing.latency as u64;
                self.held.push_back((at, self.mem.read(req.addr)));
                self.stats.reads += 1;
            }
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn byte_enables_and_first_difference() {
        let mut a = SparseMemory::new();
        a.write(8, 0x1122_3344, 0b1111);
        a.write(8, 0xaabb_ccdd, 0b0101);
        assert_eq!(a.read(8), 0x11bb_33dd);
        assert_eq!((a.byte(8), a.byte(9), a.byte(11)), (0xdd, 0x33, 0x11));
        let mut b = a.clone();
        assert_eq!(a.first_difference(&b), None);
        b.write(8, 0x0000_7700, 0b0010);
        assert_eq!(a.first_difference(&b), Some((9, 0x33, 0x77)));
        b.write(4000, 1, 1);
        assert_eq!(SparseMemory::new().first_difference(&b), Some((8, 0, 0xdd)));
    }
}
