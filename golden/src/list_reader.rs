//! The generic **list reader** core, cycle by cycle: it walks `lists` linked lists of
//! fixed-size blocks in the [`crate::pixel_info::BlockLists`] layout through the memory port
//! (list table `[head, count]` per list at offset 0, block `i` at `i·B`, `next` at offset 0,
//! then `K` records of `W` words) and hands out one record per beat, in list order, with a
//! bare `last` token (`none`) for an empty list. Its reads are exactly
//! [`crate::pixel_info::BlockLists::read_list`]'s, list after list, in the same order.
//!
//! [`crate::pixel_info_read::PixelInfoReadCycle`] is this core with the pixel-info record
//! decode and the second-tile coordinates around it; the tile sequencer can read the binner's
//! primitive lists with it too ([`ListGeom::bins`]: records of 1 word in 64-byte chunks,
//! [`crate::binner::Bins::read_tile`]). Its timing contract is [`ListReaderCycle`]'s rustdoc.

use crate::streams::{MemReq, MemResp};

/// Most words of a record (20-byte pixel-info records at 16× MSAA).
pub const MAX_WORDS: usize = 5;

/// Entries of the output FIFO (and the credits of the read side, see [`ListReaderCycle`]).
pub const OUT_DEPTH: usize = 4;

/// What the core reads: `lists` lists (table at offset 0), records of `words` 32-bit words,
/// blocks of `1 << block_log` bytes holding `per_block` records after the `next` word.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct ListGeom {
    /// Number of lists (table entries), ≥ 1.
    pub lists: u32,
    /// W, words per record, 1..=[`MAX_WORDS`].
    pub words: u32,
    /// log2 B (B = block bytes, a power of two).
    pub block_log: u32,
    /// K, records per block, ≥ 1, with 4 + 4·W·K ≤ B.
    pub per_block: u32,
}

impl ListGeom {
    /// Check the geometry; the error names the parameter.
    pub fn check(&self) -> Result<(), String> {
        if self.lists == 0 || self.lists > 1 << 29 {
            return Err(format!(
                "lists: {} must be within 1..=2^29 (8-byte table entries in 32-bit addresses)",
                self.lists
            ));
        }
        if !(1..=MAX_WORDS as u32).contains(&self.words) {
            return Err(format!("words: {} must be within 1..={MAX_WORDS}", self.words));
        }
        if !(4..=16).contains(&self.block_log) {
            return Err(format!("block_log: {} must be within 4..=16", self.block_log));
        }
        if self.per_block == 0 || 4 + 4 * self.words * self.per_block > 1 << self.block_log {
            return Err(format!(
                "per_block: {} records of {} words do not fit a {}-byte block after its next pointer",
                self.per_block,
                self.words,
                1u32 << self.block_log
            ));
        }
        Ok(())
    }

    /// The binner's primitive lists of `tiles` first tiles ([`crate::binner`]: 4-byte records,
    /// [`crate::binner::BIN_CHUNK_BYTES`]-byte chunks).
    pub fn bins(tiles: u32) -> ListGeom {
        let b = crate::binner::BIN_CHUNK_BYTES;
        ListGeom {
            lists: tiles,
            words: 1,
            block_log: b.trailing_zeros(),
            per_block: (b - 4) / 4,
        }
    }

    /// Byte offset of block `blk`: `blk · B` in 32 bits (bits above 31 are dropped, see the
    /// address limit in [`ListReaderCycle`]).
    pub fn block_addr(&self, blk: u32) -> u32 {
        blk << self.block_log
    }

    /// Does block `blk` lie beyond the 32-bit byte offsets of the port?
    pub fn wraps(&self, blk: u32) -> bool {
        (blk as u64) << self.block_log > u32::MAX as u64
    }
}

/// The sequencer's state.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum Seq {
    /// Waiting for a start.
    Idle,
    /// Issue the list's `head` read.
    Head,
    /// Issue the list's `count` read.
    Count,
    /// Wait for `head` and `count`.
    WaitC,
    /// Issue record words.
    Rec,
    /// Issue the block's `next` read.
    Next,
    /// Wait for `next`.
    WaitN,
}

/// One beat of the output FIFO: the record's words (word `j ≥ W` whatever it held), `last`
/// (last beat of its list), `none` (an empty list's token: word 0 = the start's `none_w0`, the
/// other words 0).
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq)]
pub struct ListBeat {
    pub words: [u32; MAX_WORDS],
    pub last: bool,
    pub none: bool,
}

/// What the core did.
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq)]
pub struct ListReaderStats {
    /// Starts accepted.
    pub starts: u64,
    /// Reads loaded into the request register: table, record and `next` reads.
    pub reads: u64,
    pub table_reads: u64,
    pub record_reads: u64,
    /// `next` pointers read (= blocks followed).
    pub next_reads: u64,
    /// Beats pushed into the output FIFO, records and `none` tokens.
    pub records: u64,
    pub nones: u64,
    /// Block addresses beyond 32 bits (read at the wrapped address).
    pub wrapped: u64,
}

/// The list reader core, cycle by cycle.
///
/// # Timing contract
///
/// The one statement of the core's timing (and of `pixel_info_read`'s, which adds only
/// wiring); the RTL is held to it on every port and cycle (`hw/tests/pixel_info_read.rs`,
/// `cosim/tests/pixel_info_read.rs`). W = words per record, K = records per block, B = 2^b
/// block bytes, N = lists; L and D are the memory's latency and depth
/// ([`crate::memory_port::MemoryCycle`]).
///
/// ```text
///  start ─► sequencer ──────────────► rd [addr] (register) ─► memory ─► rsp (rdata)
///           Idle→Head→Count→WaitC─┐      ▲ head: 8l, count: 8l+4       │ pend > 0: record word
///             ▲        ┌──────────┘      │ word: blk<<b | off          │   → asm[wr] ─► FIFO ×4 ─► out
///             │        ▼                 │ next: blk<<b                │ pend = 0: control word
///             └── Rec ⇄ Next→WaitN ◄─────┴──── blk, left (captured) ◄──┘   → blk / left, rleft
///                  credits: 4 − FIFO entries − records issued and not yet in the FIFO
/// ```
///
/// * **Registers.** Sequencer: state ([`Seq`]), table address `taddr` (8·list), `blk`, `left`
///   (records of the list not yet issued), `kk` (record in block), `w` (word in record), `off`
///   (byte offset in block), `ctl_n` (control words captured, 0..2), `nw0` (word 0 of `none`
///   tokens, from the start). Read side: the request register (`rd_valid`, `rd`), `pend`
///   (record words issued and not answered), `cred` (credits, 0..4). Response side: `wr`
///   (word in record), `rleft` (records of the list not yet assembled), assembly words
///   `asm[0..W)`, `asm_done`, `asm_last`. Output: a 4-entry shift FIFO, entry 0 on `out`.
/// * **Start.** `in_ready` = state is Idle (registered). On a start: `taddr` ← 0, `nw0` ←
///   `none_w0`, state ← Head. A start can be taken while the last frame's words are in flight.
/// * **Issue** (`adv_rd` = ¬rd_valid ∨ rd_ready; with `adv_rd` and nothing issued, rd_valid ←
///   0 and the payload keeps its value). Head: rd ← taddr, → Count. Count: rd ← taddr + 4, →
///   WaitC. WaitC with ctl_n = 2: if `left` = 0, a `none` beat is pushed into the FIFO when
///   `cred` > 0 (cred − 1, ctl_n ← 0, next list); else ctl_n ← 0, kk, w ← 0, off ← 4, → Rec.
///   Rec, when `adv_rd` ∧ (w ≠ 0 ∨ cred > 0): rd ← (blk << b) | off, off += 4, pend + 1,
///   cred − 1 if w = 0; at w = W − 1: w ← 0, left − 1, kk + 1, and if that was the list's last
///   record → next list, else if the block's K-th → Next. Next: rd ← blk << b, → WaitN. WaitN
///   with ctl_n = 1: ctl_n ← 0, kk, w ← 0, off ← 4, → Rec. *Next list*: after list N − 1 →
///   Idle, else taddr + 8, → Head. The reads are thus `read_list`'s: head, count, the records
///   of the first block, its `next` (only when records remain), the next block's records…
/// * **Responses** (in request order). `rsp_ready` = 1 (constant: every read issued has its
///   room, see credits). A response with pend > 0 is a record word: asm[wr] ← rdata, pend −
///   1; at wr = W − 1: wr ← 0, asm_done ← 1, asm_last ← (rleft = 1), rleft − 1. A response
///   with pend = 0 (and state ≠ Idle) is a control word: with ctl_n = 0 `blk` ← rdata (head or
///   next), with ctl_n = 1 `left`, `rleft` ← rdata (count); ctl_n + 1. A record word is never
///   issued while a control read is unanswered, so the words in flight are always some record
///   words followed by some control reads: `pend` alone tells them apart. A response while
///   Idle with pend = 0 is dropped.
/// * **Output.** asm_done (registered) pushes {asm, asm_last, none 0} into the FIFO the next
///   edge (never in the same edge as a `none` push: that one needs the count, which comes
///   after every earlier record word). `out_valid` = FIFO not empty, `out` = entry 0 (after a
///   pop the entries shift down, the last one keeps its value: the payload when not valid is
///   whatever entry 0 holds, 0 after `new` or a flush). Pop at `out_valid ∧ out_ready`.
/// * **Credits.** `cred` starts at 4; − 1 per record whose first word is issued and per
///   `none` pushed; + 1 per pop. So FIFO entries + records in flight ≤ 4: the core never
///   issues a read it has no room to receive, and `rsp_ready` can be 1.
/// * **Flush** (synchronous). Every register returns to the state of
///   [`ListReaderCycle::new`]; the reads in flight are forgotten, so the memory's held reads
///   must be flushed in the same edge ([`crate::memory_port::MemoryCycle::clock`]'s `flush`);
///   a response of a read from before the flush that arrives after it is taken (rsp_ready =
///   1): while Idle it is dropped, later it would be misread as a control word.
/// * **Latency** (L, D ≥ L + 1, grant and `out_ready` always high; measured in
///   `tests/pixel_info_read_cycle.rs`). A start taken at edge 0: `head` on `rd` from cycle 2,
///   `count` from 3; the first record word from cycle 6 + L; the first record on `out` from
///   cycle 7 + 2L + W (12 for L = 1, W = 3).
/// * **Throughput** (same conditions). One read per cycle inside a block: a record every W
///   cycles while the credits last (4 credits cover the round trip W + L + 3 of a record for
///   L ≤ 3W − 3). A block boundary costs L + 3 cycles of the read port, one of which carries
///   the `next` read (its answer is the address of the next block's first word); a list costs
///   L + 4 cycles between its table reads and its first record word (or its `none` token).
///   With D ≤ L the memory allows only D reads per L + 1 cycles.
/// * **Address limit.** Addresses are 32-bit byte offsets in the list region (table at 0);
///   block `i` is at `(i · B) mod 2^32`: a list whose blocks lie beyond 4 GiB is read at the
///   wrapped address (counted in [`ListReaderStats::wrapped`]). The region's base is added
///   by the memory arbiter that owns the port.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct ListReaderCycle {
    g: ListGeom,
    seq: Seq,
    taddr: u32,
    nw0: u32,
    blk: u32,
    left: u32,
    kk: u32,
    w: u32,
    off: u32,
    ctl_n: u8,
    rd_valid: bool,
    rd: MemReq,
    pend: u32,
    cred: u32,
    wr: u32,
    rleft: u32,
    asm: [u32; MAX_WORDS],
    asm_done: bool,
    asm_last: bool,
    fifo: [ListBeat; OUT_DEPTH],
    cnt: usize,
    stats: ListReaderStats,
    mutant: bool,
}

impl ListReaderCycle {
    /// The core for `g`, or the one line naming the parameter it refuses.
    pub fn try_new(g: ListGeom) -> Result<ListReaderCycle, String> {
        g.check()?;
        Ok(Self::idle(g))
    }

    /// The core for `g`.
    ///
    /// # Panics
    /// With [`ListReaderCycle::try_new`]'s message.
    pub fn new(g: ListGeom) -> ListReaderCycle {
        Self::try_new(g).unwrap_or_else(|e| panic!("{e}"))
    }

    fn idle(g: ListGeom) -> ListReaderCycle {
        ListReaderCycle {
            g,
            seq: Seq::Idle,
            taddr: 0,
            nw0: 0,
            blk: 0,
            left: 0,
            kk: 0,
            w: 0,
            off: 0,
            ctl_n: 0,
            rd_valid: false,
            rd: MemReq::default(),
            pend: 0,
            cred: OUT_DEPTH as u32,
            wr: 0,
            rleft: 0,
            asm: [0; MAX_WORDS],
            asm_done: false,
            asm_last: false,
            fifo: [ListBeat::default(); OUT_DEPTH],
            cnt: 0,
            stats: ListReaderStats::default(),
            mutant: false,
        }
    }

    /// A planted bug for the tests: the `next` read is skipped when a block is full, the
    /// following records are read from the same block again.
    #[doc(hidden)]
    pub fn plant_bug(&mut self) {
        self.mutant = true;
    }

    /// The geometry.
    pub fn geom(&self) -> ListGeom {
        self.g
    }
    /// Sequencer state.
    pub fn seq(&self) -> Seq {
        self.seq
    }
    /// Counters so far.
    pub fn stats(&self) -> ListReaderStats {
        self.stats
    }
    /// Ready for a start (registered).
    pub fn in_ready(&self) -> bool {
        self.seq == Seq::Idle
    }
    /// (rd_valid, request): registered.
    pub fn rd(&self) -> (bool, MemReq) {
        (self.rd_valid, self.rd)
    }
    /// Ready for a response: always.
    pub fn rsp_ready(&self) -> bool {
        true
    }
    /// (out_valid, FIFO entry 0): registered.
    pub fn out(&self) -> (bool, ListBeat) {
        (self.cnt > 0, self.fifo[0])
    }
    /// Entries in the output FIFO.
    pub fn fifo_len(&self) -> usize {
        self.cnt
    }
    /// Record words issued and not answered.
    pub fn pending(&self) -> u32 {
        self.pend
    }
    /// Credits left.
    pub fn credits(&self) -> u32 {
        self.cred
    }
    /// Nothing in flight or held: idle, no read pending, FIFO empty.
    pub fn is_quiet(&self) -> bool {
        self.seq == Seq::Idle && self.pend == 0 && !self.rd_valid && !self.asm_done && self.cnt == 0
    }

    fn load(&mut self, addr: u32) {
        self.rd = MemReq {
            addr,
            write: false,
            wdata: 0,
            be: 0,
        };
        self.rd_valid = true;
        self.stats.reads += 1;
    }

    fn next_list(&mut self) {
        if self.taddr == 8 * (self.g.lists - 1) {
            self.seq = Seq::Idle;
        } else {
            self.taddr += 8;
            self.seq = Seq::Head;
        }
    }

    fn start_block(&mut self) {
        self.ctl_n = 0;
        self.kk = 0;
        self.w = 0;
        self.off = 4;
        self.seq = Seq::Rec;
    }

    /// One rising edge. `none_w0` is the start's word 0 for `none` tokens.
    #[allow(clippy::too_many_arguments)]
    pub fn clock(
        &mut self,
        in_valid: bool,
        none_w0: u32,
        out_ready: bool,
        rd_ready: bool,
        rsp_valid: bool,
        rsp: &MemResp,
        flush: bool,
    ) {
        if flush {
            let (g, stats, mutant) = (self.g, self.stats, self.mutant);
            *self = Self::idle(g);
            self.stats = stats;
            self.mutant = mutant;
            return;
        }
        let adv_rd = !self.rd_valid || rd_ready;
        let pop = self.cnt > 0 && out_ready;
        let rec_rsp = rsp_valid && self.pend > 0;
        let ctl_rsp = rsp_valid && self.pend == 0 && self.seq != Seq::Idle;
        let (cred0, ctl_n0, left0) = (self.cred, self.ctl_n, self.left);

        // Output FIFO: pop (shift down), then the push of this edge at the first free entry.
        let mut push: Option<ListBeat> = None;
        if self.asm_done {
            push = Some(ListBeat {
                words: self.asm,
                last: self.asm_last,
                none: false,
            });
        }
        let mut reserve = false;
        let mut issued_rec = false;

        // Sequencer and read issue (from the registered state).
        match self.seq {
            Seq::Idle => {
                if in_valid {
                    self.taddr = 0;
                    self.nw0 = none_w0;
                    self.seq = Seq::Head;
                    self.stats.starts += 1;
                }
                if adv_rd {
                    self.rd_valid = false;
                }
            }
            Seq::Head | Seq::Count | Seq::Next => {
                if adv_rd {
                    let addr = match self.seq {
                        Seq::Head => self.taddr,
                        Seq::Count => self.taddr + 4,
                        _ => self.g.block_addr(self.blk),
                    };
                    self.load(addr);
                    if self.seq == Seq::Next {
                        self.stats.next_reads += 1;
                    } else {
                        self.stats.table_reads += 1;
                    }
                    self.seq = match self.seq {
                        Seq::Head => Seq::Count,
                        Seq::Count => Seq::WaitC,
                        _ => Seq::WaitN,
                    };
                }
            }
            Seq::WaitC => {
                if adv_rd {
                    self.rd_valid = false;
                }
                if ctl_n0 == 2 {
                    if left0 == 0 {
                        if cred0 > 0 {
                            debug_assert!(push.is_none(), "none token and record pushed together");
                            let mut words = [0; MAX_WORDS];
                            words[0] = self.nw0;
                            push = Some(ListBeat {
                                words,
                                last: true,
                                none: true,
                            });
                            reserve = true;
                            self.ctl_n = 0;
                            self.stats.nones += 1;
                            self.next_list();
                        }
                    } else {
                        self.start_block();
                    }
                }
            }
            Seq::Rec => {
                if adv_rd && (self.w != 0 || cred0 > 0) {
                    let addr = self.g.block_addr(self.blk) | self.off;
                    if self.w == 0 && self.g.wraps(self.blk) {
                        self.stats.wrapped += 1;
                    }
                    self.load(addr);
                    self.stats.record_reads += 1;
                    issued_rec = true;
                    self.off += 4;
                    if self.w == 0 {
                        reserve = true;
                    }
                    if self.w == self.g.words - 1 {
                        self.w = 0;
                        self.left = left0.wrapping_sub(1);
                        let kk0 = self.kk;
                        self.kk += 1;
                        if left0 == 1 {
                            self.next_list();
                        } else if kk0 == self.g.per_block - 1 {
                            if self.mutant {
                                self.kk = 0;
                                self.off = 4;
                            } else {
                                self.seq = Seq::Next;
                            }
                        }
                    } else {
                        self.w += 1;
                    }
                } else if adv_rd {
                    self.rd_valid = false;
                }
            }
            Seq::WaitN => {
                if adv_rd {
                    self.rd_valid = false;
                }
                if ctl_n0 == 1 {
                    self.start_block();
                }
            }
        }

        // Responses.
        if rec_rsp {
            self.asm[self.wr as usize] = rsp.rdata;
            if self.wr == self.g.words - 1 {
                self.wr = 0;
                self.asm_done = true;
                self.asm_last = self.rleft == 1;
                self.rleft = self.rleft.wrapping_sub(1);
            } else {
                self.wr += 1;
                self.asm_done = false;
            }
        } else {
            self.asm_done = false;
        }
        if ctl_rsp {
            if ctl_n0 == 0 {
                self.blk = rsp.rdata;
            } else {
                self.left = rsp.rdata;
                self.rleft = rsp.rdata;
            }
            self.ctl_n = (ctl_n0 + 1) & 3; // 2 bits, as in the RTL
        }
        self.pend = self.pend + issued_rec as u32 - rec_rsp as u32;
        self.cred = cred0 + pop as u32 - reserve as u32;

        if pop {
            for i in 0..OUT_DEPTH - 1 {
                self.fifo[i] = self.fifo[i + 1];
            }
            self.cnt -= 1;
        }
        if let Some(b) = push {
            assert!(self.cnt < OUT_DEPTH, "output FIFO overflow (credits broken)");
            self.fifo[self.cnt] = b;
            self.cnt += 1;
            self.stats.records += 1;
        }
    }
}
