//! Seed 001: the **list-writing core** shared by the binner and the pixel-info writer,
//! cycle by cycle: appends fixed-size records to per-bucket linked lists of chunks in memory,
//! in exactly the byte layout of [`crate::pixel_info::BlockLists`] (table `[head, count]` per
//! list at offset 0 padded to whole chunks, chunk `i` at byte `i·B`, `next` = chunk index or
//! [`NIL`] written once when the chunk is closed, records of `R = 4·W` bytes at `4 + k·R`).
//!
//! [`ListWriterCycle`] holds the core's registers and its state RAM; the block around it (e.g.
//! [`crate::binner::BinnerCycle`]) sequences it: `read` (RAM read, registered), `latch` (the
//! read word into `cur`), then one [`ListWriterCycle::append_step`] or
//! [`ListWriterCycle::close_step`] per memory write, each returning the write and whether it
//! was the last one of the append / close (which also writes the list's new state back to the
//! RAM). `clear` writes an empty state (the sweep after `new` / a flush).
//!
//! [`ListEmitterCycle`] is that sequencing, once: the core plus its state register, the sweep,
//! the finish pass and the memory-request output register. The binner and the pixel-info writer
//! are owners around it that do their own work in its `Own` state.
//!
//! ```text
//!              ┌──────── state RAM: per list {head, tail, count, off} ────────┐
//!  list ─read─►│ registered read ─► rd ─latch─► cur ─► append: [link] rec w0..│─► MemReq
//!              └──◄── write back (last write of the append / close) ◄────────┘   (one per
//!      bump allocator: nidx (chunk index), naddr = nidx·B, +1 / +B per chunk        step)
//! ```
//!
//! Per list: `head` chunk index (valid when `count > 0`), `tail` byte address of the tail
//! chunk, `count` records, `off` byte offset of the next free record in the tail chunk
//! (`OFF_FULL = 4 + K·R` when the tail chunk is full; K = ⌊(B − 4) / R⌋). An append needs a
//! new chunk when `count = 0 ∨ off = OFF_FULL`; when the list had a tail it first writes the
//! tail's `next` (the new chunk's index). A close writes the tail's `next = NIL` (non-empty
//! lists only), then `head` (NIL for an empty list), then `count`, and leaves the list empty.

use crate::pixel_info::{StoreError, NIL};
use crate::streams::{BinWrite, MemReq};

/// One list's on-chip state: a word of the state RAM.
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq)]
pub struct ListState {
    /// Chunk index of the first chunk (meaningful when `count > 0`).
    pub head: u32,
    /// Byte address of the tail chunk.
    pub tail: u32,
    /// Records in the list.
    pub count: u32,
    /// Byte offset of the next free record in the tail chunk.
    pub off: u32,
}

/// The list-writing core's registers and state RAM (see the module header).
#[derive(Clone, Debug)]
pub struct ListWriterCycle {
    lists: u32,
    chunk_bytes: u32,
    words: u32,
    off_full: u32,
    first: u32,
    ram: Vec<ListState>,
    rd: ListState,
    cur: ListState,
    ph: u32,
    nidx: u32,
    naddr: u32,
    chunks: u64,
}

/// A whole-word write.
fn write(addr: u32, wdata: u32) -> MemReq {
    MemReq {
        addr,
        write: true,
        wdata,
        be: 0xf,
    }
}

impl ListWriterCycle {
    /// `lists` lists of chunks of `chunk_bytes` bytes holding records of `words` 32-bit words;
    /// the same checks as [`crate::pixel_info::BlockLists::new`]. Every register is zero (the
    /// bump allocator is set by [`ListWriterCycle::reset_bump`]); the RAM is all-empty.
    pub fn new(lists: u32, chunk_bytes: u32, words: u32, field: &'static str) -> Result<Self, StoreError> {
        if words == 0 || words > 64 {
            return Err(StoreError::new("record_bytes", format!("{words} words must be 1..=64")));
        }
        let r = 4 * words;
        if !chunk_bytes.is_multiple_of(4) || chunk_bytes < 4 + r {
            return Err(StoreError::new(
                field,
                format!("{chunk_bytes} bytes must be a multiple of 4 holding the 4-byte next pointer and at least one {r}-byte record"),
            ));
        }
        if lists == 0 {
            return Err(StoreError::new("lists", "at least one list"));
        }
        let table = (lists as u64 * 8).next_multiple_of(chunk_bytes as u64);
        if table > u32::MAX as u64 {
            return Err(StoreError::new(
                "lists",
                format!("{lists} lists do not fit the address space"),
            ));
        }
        Ok(ListWriterCycle {
            lists,
            chunk_bytes,
            words,
            off_full: 4 + (chunk_bytes - 4) / r * r,
            first: (table / chunk_bytes as u64) as u32,
            ram: vec![ListState::default(); lists as usize],
            rd: ListState::default(),
            cur: ListState::default(),
            ph: 0,
            nidx: 0,
            naddr: 0,
            chunks: 0,
        })
    }

    /// Number of lists.
    pub fn lists(&self) -> u32 {
        self.lists
    }
    /// Index of the first chunk after the table (where the bump allocator starts).
    pub fn first_chunk(&self) -> u32 {
        self.first
    }
    /// `4 + K·R`: `off` of a full tail chunk.
    pub fn off_full(&self) -> u32 {
        self.off_full
    }
    /// Chunks allocated since `new`.
    pub fn chunks(&self) -> u64 {
        self.chunks
    }
    /// The state RAM word of `list` (tests).
    pub fn state(&self, list: u32) -> ListState {
        self.ram[list as usize]
    }
    /// The bump allocator: next chunk index and its byte address.
    pub fn bump(&self) -> (u32, u32) {
        (self.nidx, self.naddr)
    }

    /// Every register back to `new`'s (the RAM keeps its words).
    pub fn reset_regs(&mut self) {
        self.rd = ListState::default();
        self.cur = ListState::default();
        self.ph = 0;
        self.nidx = 0;
        self.naddr = 0;
    }

    /// Bump allocator to the first chunk after the table (end of the sweep, end of a frame).
    pub fn reset_bump(&mut self) {
        self.nidx = self.first;
        self.naddr = self.first.wrapping_mul(self.chunk_bytes);
    }

    /// RAM read of `list` at this edge (on `rd` next cycle).
    pub fn read(&mut self, list: u32) {
        self.rd = self.ram[list as usize];
    }

    /// `cur` ← the word read at the last edge.
    pub fn latch(&mut self) {
        self.cur = self.rd;
    }

    /// Write an empty state to `list`.
    pub fn clear(&mut self, list: u32) {
        self.ram[list as usize] = ListState::default();
    }

    /// The write of this step of appending `rec` (W words) to `list` (whose state is in `cur`),
    /// and whether it ends the append (then the new state is written back to the RAM and the
    /// bump allocator advances if a chunk was taken). Steps: the link (tail's `next` = new
    /// chunk) when the list has a full tail, then the record's words in order.
    pub fn append_step(&mut self, list: u32, rec: &[u32]) -> (MemReq, bool) {
        debug_assert_eq!(rec.len(), self.words as usize);
        let c = self.cur;
        let full = c.off == self.off_full;
        let alloc = c.count == 0 || full;
        let link = c.count != 0 && full;
        if link && self.ph == 0 {
            self.ph = 1;
            return (write(c.tail, self.nidx), false);
        }
        let k = self.ph - link as u32;
        let base = if alloc {
            self.naddr.wrapping_add(4)
        } else {
            c.tail.wrapping_add(c.off)
        };
        let req = write(base.wrapping_add(4 * k), rec[k as usize]);
        if k + 1 < self.words {
            self.ph += 1;
            return (req, false);
        }
        self.ph = 0;
        let r = 4 * self.words;
        let new = if alloc {
            ListState {
                head: if c.count == 0 { self.nidx } else { c.head },
                tail: self.naddr,
                count: c.count.wrapping_add(1),
                off: 4 + r,
            }
        } else {
            ListState {
                count: c.count.wrapping_add(1),
                off: c.off + r,
                ..c
            }
        };
        self.ram[list as usize] = new;
        if alloc {
            self.nidx = self.nidx.wrapping_add(1);
            self.naddr = self.naddr.wrapping_add(self.chunk_bytes);
            self.chunks += 1;
        }
        (req, true)
    }

    /// The write of this step of closing `list` (state in `cur`), and whether it ends the
    /// close (then the list's RAM word is empty again). Steps: tail `next = NIL` (non-empty
    /// list only), `head` at `8·list` (NIL if empty), `count` at `8·list + 4`.
    pub fn close_step(&mut self, list: u32) -> (MemReq, bool) {
        let c = self.cur;
        if self.ph == 0 && c.count == 0 {
            self.ph = 1;
        }
        let t = list.wrapping_mul(8);
        match self.ph {
            0 => {
                self.ph = 1;
                (write(c.tail, NIL), false)
            }
            1 => {
                self.ph = 2;
                (write(t, if c.count == 0 { NIL } else { c.head }), false)
            }
            _ => {
                self.ph = 0;
                self.ram[list as usize] = ListState::default();
                (write(t.wrapping_add(4), c.count), true)
            }
        }
    }
}

// ---------------------------------------------------------------------------------------------
// The list emitter: the core's sequencer and the memory-request output register, shared by the
// binner and the pixel-info writer (`hw/src/list_writer.rs`'s `ListEmitter`).

/// State of [`ListEmitterCycle`]'s sequencer (the RTL's `st` register: the same encoding). The
/// owner block gives `Own` its meaning: the binner's `Setup`, the pixel-info writer's `Pick`.
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq)]
pub enum ListSt {
    /// Sweep: write an empty state to list `flist` (one per cycle), after `new` / a flush.
    #[default]
    Init = 0,
    /// Waiting for the owner's input (its `in_ready`).
    Idle = 1,
    /// The owner's own cycle (it prepares the next append's list and record); then `Read`.
    Own = 2,
    /// Read the state of the append's list.
    Read = 3,
    /// `cur` ← the word read.
    Latch = 4,
    /// The append's writes (link, then W record words), one per advance.
    Emit = 5,
    /// Finish pass: read the state of list `flist`.
    FRead = 6,
    /// `cur` ← the word read.
    FLatch = 7,
    /// The close's writes, one per advance.
    FEmit = 8,
}

/// Where the sequencer goes when an append ends.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum AfterAppend {
    /// Back to `Idle` (the owner takes its next input).
    Idle,
    /// Straight to `Read` (another list for the same record: the binner's next tile).
    Read,
    /// To `Own` (the owner prepares another record: the pixel-info writer's next lane).
    Own,
}

/// What the owner block decides in one cycle, from its registers before the edge.
#[derive(Clone, Copy, Debug)]
pub struct ListOwner<'a> {
    /// In `Idle`: start the owner's work (→ `Own`).
    pub start: bool,
    /// In `Idle`: the frame end (→ the finish pass); wins over `start`.
    pub finish: bool,
    /// The append's list (read in `Read`, written back at the end of `Emit`).
    pub list: u32,
    /// The append's record (W words).
    pub rec: &'a [u32],
    /// Where to go if the append ends at this edge.
    pub after: AfterAppend,
}

/// The list emitter, cycle by cycle: [`ListWriterCycle`] sequenced through reads, latches and
/// the steps of an append or a close, the sweep after `new` / a flush, the finish pass on a
/// frame end, and the output register holding one memory write ([`BinWrite`]). The binner
/// ([`crate::binner::BinnerCycle`]) and the pixel-info writer
/// ([`crate::pixel_info_write::PixelInfoWriteCycle`]) are an owner around it: they take the
/// input, decide [`ListOwner`] each cycle and do their own work in [`ListSt::Own`].
///
/// # Timing contract (the part the two owners share)
///
/// * **Advance.** `adv` = ¬out_valid ∨ out_ready. In `Emit` / `FEmit` an `adv` cycle loads
///   the step's write into the output register (`out_valid` ← 1); in any other state `adv`
///   clears `out_valid` (the payload keeps its value). Without `adv` nothing moves in `Emit` /
///   `FEmit`; the other states move regardless of `out_ready`.
/// * **Handshake.** The owner's `in_ready` is `st = Idle`, a register decode.
/// * **Append.** `Own` (1 cycle, the owner's), `Read`, `Latch`, then one `Emit` cycle per
///   write: the link when the list's tail chunk is full, then the W record words. The list's
///   new state is written back at the edge that loads the last word; the next `Read` comes
///   after it, so the RAM needs no forwarding.
/// * **Frame end.** The finish pass over lists 0..L in order: per list `FRead`, `FLatch`, then
///   `FEmit`'s close writes (tail `next = NIL` for a non-empty list, `head` at `8·list`,
///   `count` at `8·list + 4`). `last` is high on the final `count` write (list L − 1); the
///   bump allocator returns to the first chunk after the table and `st` to `Idle`.
/// * **After `new` / flush.** `st` = `Init`, `flist` = 0: the sweep writes an empty state to
///   lists 0..L, one per cycle, then sets the bump allocator; flush (synchronous) returns every
///   register to `new`'s and the RAM keeps its words.
///
/// ```text
///   start ─► [Idle] ─► Own ─► Read ─► Latch ─► Emit: [link] w0 .. w(W−1) ─┬─► out (BinWrite)
///              ▲      (owner)  RAM[list]  cur    write back RAM[list]      │
///              │                  ▲────── after = Read ──┤ after = Own ─► Own
///              └──────────────────────── after = Idle ───┘
///   finish ─► FRead ─► FLatch ─► FEmit: [next = NIL] head count (last on list L−1)
/// ```
#[derive(Clone, Debug)]
pub struct ListEmitterCycle {
    lw: ListWriterCycle,
    st: ListSt,
    /// The list the sweep and the finish pass are on (0 whenever `st` = `Idle`).
    flist: u32,
    out_valid: bool,
    out: BinWrite,
    writes: u64,
    stalled: u64,
}

impl ListEmitterCycle {
    /// The emitter around `lw`, in `Init`.
    pub fn new(lw: ListWriterCycle) -> Self {
        ListEmitterCycle {
            lw,
            st: ListSt::Init,
            flist: 0,
            out_valid: false,
            out: BinWrite::default(),
            writes: 0,
            stalled: 0,
        }
    }
    /// The sequencer's state.
    pub fn state(&self) -> ListSt {
        self.st
    }
    /// The list-writing core.
    pub fn list_writer(&self) -> &ListWriterCycle {
        &self.lw
    }
    /// The output register.
    pub fn out(&self) -> (bool, BinWrite) {
        (self.out_valid, self.out)
    }
    /// Memory writes issued, and cycles with a write on the output not taken.
    pub fn counts(&self) -> (u64, u64) {
        (self.writes, self.stalled)
    }

    /// Every register back to `new`'s (the flush; the RAM keeps its words, the counters count
    /// on).
    pub fn reset_regs(&mut self) {
        self.lw.reset_regs();
        self.st = ListSt::Init;
        self.flist = 0;
        self.out_valid = false;
        self.out = BinWrite::default();
    }

    /// One rising edge without flush. Returns whether an append ended at this edge (the owner
    /// moves its walk on).
    pub fn clock(&mut self, out_ready: bool, owner: ListOwner<'_>) -> bool {
        let adv = !self.out_valid || out_ready;
        if self.out_valid && !out_ready {
            self.stalled += 1;
        }
        let last_list = self.lw.lists() - 1;
        let emitting = matches!(self.st, ListSt::Emit | ListSt::FEmit);
        let mut appended = false;
        match self.st {
            ListSt::Init => {
                self.lw.clear(self.flist);
                if self.flist == last_list {
                    self.lw.reset_bump();
                    self.flist = 0;
                    self.st = ListSt::Idle;
                } else {
                    self.flist += 1;
                }
            }
            ListSt::Idle => {
                if owner.finish {
                    self.st = ListSt::FRead;
                } else if owner.start {
                    self.st = ListSt::Own;
                }
            }
            ListSt::Own => self.st = ListSt::Read,
            ListSt::Read => {
                self.lw.read(owner.list);
                self.st = ListSt::Latch;
            }
            ListSt::Latch | ListSt::FLatch => {
                self.lw.latch();
                self.st = if self.st == ListSt::Latch {
                    ListSt::Emit
                } else {
                    ListSt::FEmit
                };
            }
            ListSt::Emit => {
                if adv {
                    let (req, done) = self.lw.append_step(owner.list, owner.rec);
                    self.out = BinWrite { req, last: false };
                    self.writes += 1;
                    if done {
                        appended = true;
                        self.st = match owner.after {
                            AfterAppend::Idle => ListSt::Idle,
                            AfterAppend::Read => ListSt::Read,
                            AfterAppend::Own => ListSt::Own,
                        };
                    }
                }
            }
            ListSt::FRead => {
                self.lw.read(self.flist);
                self.st = ListSt::FLatch;
            }
            ListSt::FEmit => {
                if adv {
                    let (req, done) = self.lw.close_step(self.flist);
                    let fin = done && self.flist == last_list;
                    self.out = BinWrite { req, last: fin };
                    self.writes += 1;
                    if fin {
                        self.lw.reset_bump();
                        self.flist = 0;
                        self.st = ListSt::Idle;
                    } else if done {
                        self.flist += 1;
                        self.st = ListSt::FRead;
                    }
                }
            }
        }
        if adv {
            self.out_valid = emitting;
        }
        appended
    }
}
