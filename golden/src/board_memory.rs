//! The board memory: a memory-port slave on the FPGA's own RAM (issue 15), the memory behind
//! the pixel side's one port ([`crate::memory_port`]) on a board without external RAM. Block
//! RAM on the HX8K and the ULX3S, the UP5K's 128 KiB of SPRAM on the iCEBreaker; which one, and
//! how large, is a column of the board table ([`crate::board::Board::memory`]).
//!
//! ```text
//!   in_valid, MemReq {addr, write, wdata, be} ─►┌──────────────────────────────┐
//!   in_ready = fewer than 2 reads held ◄────────│ BoardMemoryCycle             │
//!                                               │ = MemoryCycle, MemTiming     │
//!   out_valid, MemResp {rdata} ◄────────────────│   {latency 1, depth 2}, no   │◄─ out_ready
//!   error (sticky: a request out of range) ◄────│   back-pressure line         │
//!                                               └──────────────────────────────┘
//! ```
//!
//! [`BoardMemoryCycle`] is the cycle model of `hw/src/board_memory.rs`. It is
//! [`MemoryCycle`] with the default timing ([`MemTiming::default`]: a registered read and a
//! two-entry response buffer) and `grant` always high, so the co-simulation's memory model and
//! the board's memory share one timing contract; it adds the capacity and the `error` flag.

use crate::memory_port::{MemTiming, MemoryCycle, SparseMemory};
use crate::streams::{MemReq, MemResp};

/// 32-bit words of the UP5K's SPRAM: 4 × `SB_SPRAM256KA` of 16 Ki × 16 bits (128 KiB).
pub const SPRAM_WORDS: u32 = 32 * 1024;

/// What a board memory is built from (a column of [`crate::board::BOARDS`]).
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum MemoryKind {
    /// Inferred synchronous block RAM of `words` 32-bit words (a power of two, at least 2)
    /// with byte enables and a registered read; yosys maps it to `SB_RAM40_4K` on iCE40 and
    /// `DP16KD` on ECP5. Configuration loads it with zeros.
    Bram { words: u32 },
    /// The UP5K's single-port RAM: 4 × `SB_SPRAM256KA` ([`SPRAM_WORDS`] words, 128 KiB), two
    /// 16-bit halves side by side in each of two banks, the byte enables as nibble write masks
    /// (`MASKWREN`). Its contents after power-up are undefined on the chip (0 in simulation).
    Spram,
}

impl MemoryKind {
    /// Capacity in 32-bit words (a power of two).
    pub fn words(self) -> u32 {
        match self {
            MemoryKind::Bram { words } => words,
            MemoryKind::Spram => SPRAM_WORDS,
        }
    }

    /// Capacity in bytes.
    pub fn bytes(self) -> u32 {
        4 * self.words()
    }

    /// Bits of a word address (log2 of [`MemoryKind::words`]).
    pub fn word_bits(self) -> u32 {
        self.words().trailing_zeros()
    }

    /// Whether a request at byte address `addr` is performed: `addr` a multiple of 4 and below
    /// the capacity. Every other request is an error ([`BoardMemoryCycle`]), never wrapped.
    pub fn in_range(self, addr: u32) -> bool {
        addr & 3 == 0 && (addr as u64) < self.bytes() as u64
    }

    /// One line for headers and tables: `block RAM, 2048 words (8 KiB)`.
    pub fn describe(self) -> String {
        let kib = self.bytes() / 1024;
        match self {
            MemoryKind::Bram { words } => format!("block RAM, {words} words of 32 bits ({kib} KiB)"),
            MemoryKind::Spram => format!(
                "SPRAM, 4 x SB_SPRAM256KA, {} words of 32 bits ({kib} KiB)",
                self.words()
            ),
        }
    }

    /// Panics unless the kind can be built (a power-of-two word count, at least 2, at most
    /// 2^30 so that every byte address fits 32 bits).
    pub fn check(self) {
        let w = self.words();
        assert!(
            w.is_power_of_two() && (2..=1 << 30).contains(&w),
            "board memory: {w} words (a power of two in 2..=2^30)"
        );
    }
}

/// What the board memory did.
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq)]
pub struct BoardMemoryStats {
    /// Performed reads and writes (in range).
    pub reads: u64,
    pub writes: u64,
    /// Requests refused as out of range (taken, not performed).
    pub errors: u64,
}

/// Cycle model of `hw/src/board_memory.rs`.
///
/// # Timing contract
///
/// Ports: `in_valid`/`in_ready` with `inp` ([`MemReq`]), `out_valid`/`out_ready` with `out`
/// ([`MemResp`]), `error`, `flush`.
///
/// - **Request.** `in_ready` is high while fewer than **2** reads are held (in flight or
///   waiting for `out_ready`); it depends on nothing else, in particular not on `out_ready` or
///   on this cycle's request. A request transfers at an edge where `in_valid` and `in_ready`
///   are high, reads and writes alike (a write is held back by a full response buffer too).
///   An in-range write updates its enabled bytes (`be` bit k: byte k, little-endian) at that
///   edge; an in-range read takes the word at that edge (request order is memory order: a read
///   after a write sees it).
/// - **Response.** A read accepted at edge c is on `out` from cycle c + 1 (**latency 1**: the
///   RAM's registered read), oldest first, until an edge with `out_ready` high. One response
///   per read, in request order; writes get none. `rdata` is 0 whenever `out_valid` is low.
/// - **Throughput.** With `out_ready` high one request per cycle, reads and writes in any mix.
///   With `out_ready` low two reads fill the buffer and `in_ready` falls; it rises in the cycle
///   after the edge that takes a response.
/// - **Out of range** (address not a multiple of 4, or at or above the capacity,
///   [`MemoryKind::in_range`]): the request transfers like any other but is **not performed**:
///   a write changes no byte; a read is answered with `rdata` 0 on a read's timing, in its
///   place in the order (so the requester never waits forever). `error` goes high in the cycle
///   after the edge and stays high until a flush. An address is never wrapped.
/// - **Flush** (synchronous, high at an edge): drops every held read, clears `error`; the
///   request offered at that edge is not taken. The bytes stay (memory is not reset).
/// - **Contents at power-up**: 0 ([`MemoryKind::Spram`] on the chip: undefined; the owner of
///   the memory writes before it reads, as the back end's framebuffer is cleared anyway).
///
/// Every output comes from a register (`rdata` from the skid register or the RAM's own read
/// register, under a registered select); none depends combinationally on an input.
#[derive(Clone, Debug)]
pub struct BoardMemoryCycle {
    kind: MemoryKind,
    inner: MemoryCycle,
    error: bool,
    stats: BoardMemoryStats,
}

impl BoardMemoryCycle {
    /// An empty memory of `kind` (every byte 0), idle.
    pub fn new(kind: MemoryKind) -> Self {
        kind.check();
        BoardMemoryCycle {
            kind,
            inner: MemoryCycle::new(MemTiming::default(), SparseMemory::new()),
            error: false,
            stats: BoardMemoryStats::default(),
        }
    }

    pub fn kind(&self) -> MemoryKind {
        self.kind
    }

    /// `in_ready` this cycle.
    pub fn in_ready(&self) -> bool {
        self.inner.req_ready(true)
    }

    /// (`out_valid`, `out`) this cycle.
    pub fn out(&self) -> (bool, MemResp) {
        self.inner.resp()
    }

    /// `error` this cycle.
    pub fn error(&self) -> bool {
        self.error
    }

    /// The bytes (every performed write so far).
    pub fn memory(&self) -> &SparseMemory {
        &self.inner.mem
    }

    pub fn stats(&self) -> BoardMemoryStats {
        self.stats
    }

    /// One rising edge.
    pub fn clock(&mut self, in_valid: bool, inp: &MemReq, out_ready: bool, flush: bool) {
        let take = in_valid && self.in_ready() && !flush;
        let ok = self.kind.in_range(inp.addr);
        if flush {
            self.error = false;
        } else if take {
            if ok && inp.write {
                self.stats.writes += 1;
            } else if ok {
                self.stats.reads += 1;
            } else {
                self.stats.errors += 1;
                self.error = true;
            }
        }
        self.inner.clock_performing(in_valid, inp, true, out_ready, flush, ok);
    }
}

crate::block_signature! {
    /// The board memory's ports: requests in, read responses out, and the sticky `error`.
    pub BoardMemory "board_memory" {
        takes { inp: MemReq }
        sends { out: MemResp }
        outs { error: bool }
    }
}

impl crate::cycle::BlockModel for BoardMemoryCycle {
    type Sig = BoardMemoryPorts;
    fn outputs(&self, _: &BoardMemoryIn) -> BoardMemoryOut {
        let (v, r) = self.out();
        BoardMemoryOut {
            inp_ready: self.in_ready(),
            out: crate::cycle::Offer::new(v, r),
            error: self.error,
        }
    }
    fn clock(&mut self, i: &BoardMemoryIn) {
        BoardMemoryCycle::clock(self, i.inp.valid, &i.inp.payload, i.out_ready, i.flush)
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn rd(addr: u32) -> MemReq {
        MemReq {
            addr,
            ..MemReq::default()
        }
    }

    fn wr(addr: u32, wdata: u32, be: u8) -> MemReq {
        MemReq {
            addr,
            write: true,
            wdata,
            be,
        }
    }

    #[test]
    fn kinds_and_ranges() {
        assert_eq!(MemoryKind::Spram.bytes(), 128 * 1024);
        assert_eq!(MemoryKind::Spram.word_bits(), 15);
        let k = MemoryKind::Bram { words: 2048 };
        assert!(k.in_range(0) && k.in_range(8188));
        assert!(!k.in_range(8192) && !k.in_range(2) && !k.in_range(0xffff_fffc));
        assert!(k.describe().contains("8 KiB"), "{}", k.describe());
    }

    /// The contract's cycles, by hand: latency 1, two held reads stop requests, an
    /// out-of-range read answers 0 in order and raises `error` until the flush.
    #[test]
    fn contract_by_hand() {
        let mut m = BoardMemoryCycle::new(MemoryKind::Bram { words: 16 });
        assert!(m.in_ready() && !m.out().0 && !m.error());
        m.clock(true, &wr(4, 0x1122_3344, 0b1111), true, false);
        m.clock(true, &wr(4, 0xaabb_ccdd, 0b0101), true, false);
        assert!(!m.out().0, "writes get no response");
        m.clock(true, &rd(4), false, false);
        assert_eq!(m.out(), (true, MemResp { rdata: 0x11bb_33dd }), "latency 1");
        m.clock(true, &rd(64), false, false); // out of range
        assert!(!m.in_ready(), "two reads held");
        assert!(m.error());
        // Not taken (two reads held before this edge; its pop does not count), but the first
        // response leaves.
        m.clock(true, &wr(0, 5, 0xf), true, false);
        assert_eq!(m.memory().read(0), 0);
        assert_eq!(m.out(), (true, MemResp { rdata: 0 }), "the refused read answers 0");
        assert!(m.in_ready());
        m.clock(true, &wr(60, 7, 0xf), false, true); // flush: not taken
        assert!(!m.out().0 && !m.error() && m.in_ready());
        assert_eq!(m.memory().read(60), 0);
        assert_eq!(m.memory().read(4), 0x11bb_33dd, "flush keeps the bytes");
        assert_eq!(
            m.stats(),
            BoardMemoryStats {
                reads: 1,
                writes: 2,
                errors: 1
            }
        );
    }
}
