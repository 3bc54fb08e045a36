//! # Clock crossings: the board top's asynchronous FIFO and level synchroniser (cycle models)
//!
//! The board top runs three clocks from one PLL (GPU, memory, pixel). Everything that passes
//! between them goes through one of two pieces of plumbing, modelled here as the RTL builds
//! them (`hw/src/crossing.rs`), register for register:
//!
//! - [`Synchroniser`]: a level through [`SYNC_FLOPS`] flops of the destination clock;
//! - [`Crossing`]: a FIFO written at one clock's edges and read at another's. Its pointers
//!   count modulo twice the depth; each crosses to the other side as a gray code (one bit
//!   changes per word, so a flop that samples it mid-change sees the old or the new count,
//!   never a third) through a [`Synchroniser`], and is turned back into binary there. The words
//!   sit in a dual-clock RAM (block RAM on the ECP5) with a read register on the read clock.
//!
//! ```text
//!   write clock                             │ read clock
//!   push ─► mem[write_ptr] ─────────────────┼──► read register ─► head (gated by readable)
//!           write_ptr ─gray─► ═sync═════════┼══► written_at_read ─┐ readable = written_at_read
//!   fill, room (registers) ◄─ read_at_write ◄─bin─ sync ◄══┼══ gray ◄─ read_ptr ◄┘ ≠ read_ptr
//! ```
//!
//! **Timing contract.** One call of [`Crossing::write_edge`] per write-clock edge and of
//! [`Crossing::read_edge`] per read-clock edge; where the two edges coincide, each side samples
//! the other's pointer from before them (the callers pass it in: [`Crossing::pointers`] taken
//! before either edge). A word pushed at a write edge is readable after the second read edge
//! that follows it (the second flop of `written_at_read`), and its slot counts as free on the
//! write side after the third write edge that follows its pop ([`READ_SEEN_FLOPS`]: the two
//! synchroniser flops, then the read pointer back in binary in a register of its own, from
//! which the RTL computes `fill` and `room` a write edge ahead, into registers: the write
//! side's ready is a flop, not the end of a gray decode, a subtraction and a compare). So the write side's `fill`
//! over-counts and the read side's `readable` under-counts: the FIFO never overflows and never
//! gives a word that is not there. One push per write edge, one pop per read edge. The read
//! register is loaded at every read edge from the slot of the next read pointer (a first-word
//! fall-through RAM): the word at the head is there whenever `readable` is; [`Crossing::out`]
//! gives zero while it is not (the RTL gates the payload, so a netlist's unwritten RAM never
//! reaches a port).
//!
//! **Flush.** Synchronous on each side: at a write edge with `flush` the write pointer and the
//! write side's synchroniser go to zero, at a read edge with `flush` the read pointer and the
//! read side's. Hold it over an edge of both clocks with neither side moving (the board top's
//! power-on flush) and the FIFO is empty.

use std::collections::VecDeque;

/// Flops of each synchroniser (pointer or level) between two clock domains.
pub const SYNC_FLOPS: usize = 2;

/// Write edges from a [`Crossing`]'s pop to the write side's `fill`: the [`SYNC_FLOPS`] of the
/// gray pointer, then its binary value registered.
pub const READ_SEEN_FLOPS: usize = SYNC_FLOPS + 1;

/// A level through [`SYNC_FLOPS`] flops of the destination clock.
#[derive(Clone, Debug)]
pub struct Synchroniser<T: Copy + Default> {
    flops: VecDeque<T>,
}

impl<T: Copy + Default> Default for Synchroniser<T> {
    fn default() -> Self {
        Self::new()
    }
}

impl<T: Copy + Default> Synchroniser<T> {
    pub fn new() -> Self {
        Self::with_flops(SYNC_FLOPS)
    }
    /// A chain of `flops` flops (at least one).
    pub fn with_flops(flops: usize) -> Self {
        assert!(flops >= 1, "a synchroniser has a flop");
        Synchroniser {
            flops: VecDeque::from(vec![T::default(); flops]),
        }
    }
    /// The value the destination sees (the last flop).
    pub fn out(&self) -> T {
        self.flops[0]
    }
    /// A destination edge sampling `v`.
    pub fn clock(&mut self, v: T) {
        self.flops.pop_front();
        self.flops.push_back(v);
    }
    /// A destination edge with the flush: every flop to its initial value.
    pub fn clear(&mut self) {
        self.flops.iter_mut().for_each(|f| *f = T::default());
    }
}

/// A clock-crossing FIFO of `depth` words (a power of two), as the RTL builds it: see the
/// module header for its timing contract.
#[derive(Clone, Debug)]
pub struct Crossing<T> {
    depth: u32,
    mem: Vec<T>,
    write_ptr: u32,
    read_ptr: u32,
    /// The RAM's read register (the slot of the read pointer at the last read edge).
    head: T,
    read_at_write: Synchroniser<u32>,
    written_at_read: Synchroniser<u32>,
    peak: u32,
    /// The planted bug: the read side sees the write pointer itself, no synchroniser.
    unsynchronised: bool,
}

impl<T: Copy + Default> Crossing<T> {
    pub fn new(depth: u32) -> Crossing<T> {
        assert!(depth.is_power_of_two(), "a crossing FIFO's depth is a power of two");
        Crossing {
            depth,
            mem: vec![T::default(); depth as usize],
            write_ptr: 0,
            read_ptr: 0,
            head: T::default(),
            read_at_write: Synchroniser::with_flops(READ_SEEN_FLOPS),
            written_at_read: Synchroniser::new(),
            peak: 0,
            unsynchronised: false,
        }
    }
    fn wrap(&self) -> u32 {
        2 * self.depth - 1
    }
    /// Words held as the write side counts them (its pointer less the read pointer it sees).
    pub fn fill(&self) -> u32 {
        self.write_ptr.wrapping_sub(self.read_at_write.out()) & self.wrap()
    }
    /// The write side may push.
    pub fn room(&self) -> bool {
        self.fill() < self.depth
    }
    /// The read side has a word ([`Crossing::head`]).
    pub fn readable(&self) -> bool {
        let seen = if self.unsynchronised {
            self.write_ptr
        } else {
            self.written_at_read.out()
        };
        seen != self.read_ptr
    }
    /// Plants the co-simulation's bug (the RTL's `c_unsynchronised`): `readable` from the write
    /// pointer itself, so a word is taken before the read register holds it.
    pub fn plant_unsynchronised_bug(&mut self) {
        self.unsynchronised = true;
    }
    /// The read register: the head word whenever [`Crossing::readable`].
    pub fn head(&self) -> T {
        self.head
    }
    /// The read side's stream: `(readable, head)`, the head zero while not readable.
    pub fn out(&self) -> (bool, T) {
        let v = self.readable();
        (v, if v { self.head } else { T::default() })
    }
    /// `(write pointer, read pointer)`: what each side's synchroniser samples at an edge, taken
    /// before the tick's edges.
    pub fn pointers(&self) -> (u32, u32) {
        (self.write_ptr, self.read_ptr)
    }
    /// Most words held at once (write pointer less read pointer).
    pub fn peak(&self) -> u32 {
        self.peak
    }
    /// A write-clock edge: `push` written at the write pointer, the read pointer `read_before`
    /// (from before the tick's edges) into the write side's synchroniser.
    pub fn write_edge(&mut self, push: Option<T>, read_before: u32, flush: bool) {
        if flush {
            self.write_ptr = 0;
            self.read_at_write.clear();
            return;
        }
        if let Some(v) = push {
            assert!(self.room(), "a crossing FIFO pushed when full");
            self.mem[(self.write_ptr % self.depth) as usize] = v;
            self.write_ptr = (self.write_ptr + 1) & self.wrap();
            let held = self.write_ptr.wrapping_sub(self.read_ptr) & self.wrap();
            self.peak = self.peak.max(held);
        }
        self.read_at_write.clock(read_before);
    }
    /// A write-clock edge that empties the FIFO as the write side sees it: the write pointer
    /// takes the value of the read pointer it sees (the words not yet read are abandoned, and
    /// a push at this edge with them), the read pointer `read_before` into the write side's
    /// synchroniser. The read side sees the write pointer go back through its own two flops; it
    /// must not pop until it has (the board top drops at the scan-out's start, in vertical
    /// blank, where the video output takes nothing). Unlike a flush, which zeroes one side's
    /// pointer and must reach both sides in order, it needs nothing of the read side.
    pub fn drop_edge(&mut self, read_before: u32) {
        self.write_ptr = self.read_at_write.out();
        self.read_at_write.clock(read_before);
    }
    /// A read-clock edge: the head popped if `pop`, the write pointer `written_before` (from
    /// before the tick's edges) into the read side's synchroniser, the read register loaded
    /// from the next read pointer's slot.
    pub fn read_edge(&mut self, pop: bool, written_before: u32, flush: bool) {
        if flush {
            self.read_ptr = 0;
            self.written_at_read.clear();
        } else {
            if pop {
                assert!(self.readable(), "a crossing FIFO popped when empty");
                self.read_ptr = (self.read_ptr + 1) & self.wrap();
            }
            self.written_at_read.clock(written_before);
        }
        self.head = self.mem[(self.read_ptr % self.depth) as usize];
    }
}
