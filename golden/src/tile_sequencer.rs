//! Seed 001's raster side, between the binner and the raster core: the **tile sequencer**.
//! After the binner has closed a frame's lists (a [`SeqStart`] token), it walks the first
//! tiles in golden order (rows bottom-up, left→right: [`crate::binner::Bins::tile_order`],
//! list `ty·tiles_x + tx`), reads each tile's primitive list back through one memory read
//! port (`lrd`/`lrsp`, the binner's lists: [`crate::binner::Bins::read_tile`]'s reads, with
//! the generic list reader [`ListReaderCycle`] on [`ListGeom::bins`]), and for every listed
//! primitive reads its entry of the primitive table through a second read port (`prd`/`prsp`,
//! [`crate::prim_table`]: entry `i` at `i·32`) and hands out one [`SeqCmd`]: the raster
//! core's [`crate::streams::Cmd`] plus the primitive's depth. After the frame's last command comes a bare
//! `end` token (command fields 0); a frame with no command is just the token. The commands
//! equal [`crate::pipeline::commands`], in order.
//!
//! ```text
//!  SeqStart ─► ListReaderCycle (bins: W = 1, K = 15, B = 64) ─► FIFO ×4 ─┐ beat: prim | none, last
//!                 │ lrd (MemReq)  ▲ lrsp (MemResp)                        ▼
//!                 ▼               │                tile counter ◄── take (pop) ──► prd: prim<<5 | 28, 0, 4, …, 20
//!               memory: bins region                 (tx, ty)         │ reserve     │ (MemReq)
//!                                                                    ▼             ▼ memory: prim table
//!               out (SeqCmd) ◄── decode ◄── slots ×2 [prim, tile, attr, w0..w5, end, done] ◄── prsp
//! ```
//!
//! The cycle model is [`TileSequencerCycle`], whose rustdoc is the block's timing contract.

use crate::config::Config;
use crate::list_reader::{ListGeom, ListReaderCycle, ListReaderStats};
use crate::prim_table::{self, PRIM_LOG, PRIM_WORDS};
use crate::streams::{MemReq, MemResp, SeqCmd};

/// Command slots (output buffer entries and the credits of the prim-table reads).
pub const SLOTS: usize = 2;
/// Prim-table words read per command: the attribute word, then the six coordinate words (the
/// colour word is not read).
pub const READS_PER_CMD: u32 = 7;
/// Byte offset in an entry of the first word read ([`prim_table::ATTR_WORD`]).
pub const ATTR_OFF: u32 = 4 * prim_table::ATTR_WORD;
/// Byte offset of the last word read (v2.y, word 5).
pub const LAST_OFF: u32 = 20;

/// The sequencer's parameters for `cfg`: the first tiles (across, up) and the list geometry,
/// or one line naming what cannot be built.
pub fn geom(cfg: &Config) -> Result<([u32; 2], ListGeom), String> {
    cfg.validate().map_err(|e| format!("config.{}: {}", e.field, e.msg))?;
    let tiles = cfg.tiles();
    for (i, axis) in ["x", "y"].iter().enumerate() {
        if tiles[i] > 256 {
            return Err(format!(
                "config.tile: {} first tiles along {axis} do not fit the command's 8-bit tile_{axis}",
                tiles[i]
            ));
        }
    }
    let g = ListGeom::bins(tiles[0] * tiles[1]);
    g.check().map_err(|e| format!("config.tile: {e}"))?;
    Ok((tiles, g))
}

/// One command slot: what the take writes (prim, tile, end) and what the responses write
/// (attribute word's low 26 bits, coordinate words' low 24 bits).
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq)]
pub struct Slot {
    pub prim: u32,
    pub tx: u32,
    pub ty: u32,
    pub end: bool,
    pub done: bool,
    pub attr: u32,
    pub w: [u32; 6],
}

impl Slot {
    /// The beat this slot shows on `out` (end token: every command field 0).
    pub fn beat(&self) -> SeqCmd {
        if self.end {
            return SeqCmd {
                end: true,
                ..SeqCmd::default()
            };
        }
        let mut words = [0u32; PRIM_WORDS as usize];
        words[..6].copy_from_slice(&self.w);
        words[prim_table::ATTR_WORD as usize] = self.attr;
        let e = prim_table::decode(&words);
        SeqCmd {
            cmd: e.cmd(self.prim, [self.tx, self.ty]),
            depth: e.depth,
            end: false,
        }
    }
}

/// What the sequencer did.
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq)]
pub struct TileSequencerStats {
    pub starts: u64,
    /// Commands taken (prim-table reads started), end tokens reserved.
    pub cmds: u64,
    pub ends: u64,
    /// Empty tiles (the core's `none` tokens taken).
    pub empty_tiles: u64,
    /// Prim-table reads loaded into the `prd` register.
    pub prim_reads: u64,
    /// Cycles a record waited at the core's output for a free slot.
    pub slot_waits: u64,
}

/// The tile sequencer, cycle by cycle: [`SeqStart`] in, two read ports (`lrd`/`lrsp` on the
/// bins region, `prd`/`prsp` on the prim-table region), [`SeqCmd`] out.
///
/// # Timing contract
///
/// L = the memories' latency ([`crate::memory_port::MemoryCycle`], depth D ≥ L + 1), all
/// grants and `out_ready` high unless stated; N = first tiles (nx·ny).
///
/// * **List side** = [`ListReaderCycle`] on [`ListGeom::bins`] (W = 1, K = 15, B = 64; its
///   rustdoc is the list port's contract), `none_w0` = 0, started by the sequencer's start.
///   Its `out_ready` is the take below (a combinational function of registers and
///   `prd_ready`).
/// * **Registers.** `run` (a frame is in progress), tile counter (`tx`, `ty`), `fin` (the last
///   tile's last beat was taken), the prim-table request register (`prd_valid`, `prd`),
///   `pbusy`, `pbase` (prim·32), `poff` (offset of the next word), two command slots
///   ([`Slot`]: prim, tile, end, done, attr, w0..w5), pointers `ip` (next slot to reserve),
///   `ap` (slot being assembled), `rp` (slot on `out`), `used` (slots reserved, 0..2), `acnt`
///   (commands reserved and not yet assembled, 0..2), `pr` (response word 0..6).
/// * **Start.** `in_ready` = ¬run (a register). A start sets `run` and starts the core (its
///   `in_ready` is always high then). The input's `frame` is not used (every output field
///   comes from memory). A new start can be taken the cycle after the end token is reserved,
///   while the last frame's commands are still in the slots.
/// * **Take** (from the core's registered output, `adv` = ¬prd_valid ∨ prd_ready). A record
///   beat is taken when ¬pbusy ∧ adv ∧ used < 2: slot `ip` ← {prim = word & 0xffffff, (tx,
///   ty), end 0, done 0}, ip ^= 1, used + 1, acnt + 1, prd ← prim·32 + 28 (the attribute
///   word), poff ← 0, pbusy ← 1. A `none` beat (empty tile) is taken whenever it is at the
///   core's output. Every take of a `last` beat advances the tile counter (x + 1, at nx to 0
///   with y + 1); the take of the last tile's (x = nx − 1, y = ny − 1) sets `fin` and resets
///   the counter.
/// * **Prim-table reads.** With pbusy ∧ adv: prd ← pbase + poff, poff + 4; at poff = 20,
///   pbusy ← 0. So a command's reads are, in order, words 7, 0, 1, 2, 3, 4, 5 (7 reads, one
///   per cycle; points read v1, v2 too, whose words are 0; the colour word 6 is not read).
///   With adv and nothing loaded, prd_valid ← 0 (the payload keeps its value). `write`,
///   `wdata`, `be` are 0 on both ports.
/// * **Responses** (`prsp_ready` = 1; in order). A response while acnt > 0 goes to slot `ap`:
///   word `pr` = 0 → attr (low 26 bits), `pr` = k → w[k − 1] (low 24 bits); at pr = 6: pr ←
///   0, done ← 1, ap ^= 1, acnt − 1. A response with acnt = 0 is dropped.
/// * **End token.** When fin ∧ ¬pbusy ∧ used < 2 ∧ acnt = 0: slot `ip` ← {end 1, done 1,
///   prim 0, tile 0}, ip ^= 1, ap ^= 1, used + 1, fin ← 0, run ← 0.
/// * **Output.** `out_valid` = slot `rp` done; `out` = slot `rp` decoded
///   ([`Slot::beat`]: [`prim_table::decode`] of its words; an end slot shows 0 fields and
///   `end`), also when not valid. Pop at out_valid ∧ out_ready: done ← 0, rp ^= 1, used − 1.
/// * **Flush** (synchronous): every register back to [`TileSequencerCycle::new`]'s state, the
///   core's too; flush both memories' held reads in the same edge.
/// * **Latency.** A start taken at edge 0: the first record on the core's output at cycle
///   8 + 2L (the core's 7 + 2L + W), taken there; the 7 reads on `prd` in cycles 9 + 2L …
///   15 + 2L; the first command on `out` at cycle **16 + 3L** (19 for L = 1). A frame whose
///   tiles are all empty: the end token on `out` at cycle **N·(L + 4) + 3**.
/// * **Throughput.** **7 cycles per command** (one prim-table read per cycle; the next take
///   is the edge after a command's 7th read), sustained while a slot is free: a slot is held
///   from its take to its pop, 9 + L cycles, so the 2 slots cover the 14 cycles of two
///   commands for L ≤ 5 (and the memory holds D ≥ L + 1 reads). The list reads overlap: the
///   core runs ahead by its 4-entry FIFO, so a tile of n ≥ 1 commands costs **7·n cycles**
///   once the list side is ahead (its own cost is L + 4 cycles per tile plus one per record
///   and L + 3 per chunk boundary, 4·L + … ≪ 7·15 per chunk), and an **empty tile costs
///   L + 4 cycles** of the list side, hidden behind the prim-table reads of earlier commands
///   while the core's FIFO has room (4 beats).
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct TileSequencerCycle {
    core: ListReaderCycle,
    tiles: [u32; 2],
    attr_off: u32,
    run: bool,
    tx: u32,
    ty: u32,
    fin: bool,
    prd_valid: bool,
    prd: MemReq,
    pbusy: bool,
    pbase: u32,
    poff: u32,
    slots: [Slot; SLOTS],
    ip: usize,
    ap: usize,
    rp: usize,
    used: u32,
    acnt: u32,
    pr: u32,
    stats: TileSequencerStats,
}

crate::block_signature! {
    /// tile_sequencer's ports: start tokens in, commands out, and two memory ports' read sides
    /// (`lrd`/`lrsp` on the bins region, `prd`/`prsp` on the prim-table region).
    pub TileSequencer "tile_sequencer" {
        takes { inp: SeqStart, lrsp: MemResp, prsp: MemResp }
        sends { out: SeqCmd, lrd: MemReq, prd: MemReq }
    }
}

impl crate::cycle::BlockModel for TileSequencerCycle {
    type Sig = TileSequencerPorts;
    fn outputs(&self, _: &TileSequencerIn) -> TileSequencerOut {
        let (ov, out) = self.out();
        let (lv, lrd) = self.lrd();
        let (pv, prd) = self.prd();
        TileSequencerOut {
            inp_ready: self.in_ready(),
            lrsp_ready: self.lrsp_ready(),
            prsp_ready: self.prsp_ready(),
            out: crate::cycle::Offer::new(ov, out),
            lrd: crate::cycle::Offer::new(lv, lrd),
            prd: crate::cycle::Offer::new(pv, prd),
        }
    }
    fn clock(&mut self, i: &TileSequencerIn) {
        TileSequencerCycle::clock(self, i)
    }
}

impl TileSequencerCycle {
    /// Every register at its initial (and flushed) value around `core`; the counters kept.
    fn idle(core: ListReaderCycle, tiles: [u32; 2], attr_off: u32, stats: TileSequencerStats) -> Self {
        TileSequencerCycle {
            core,
            tiles,
            attr_off,
            run: false,
            tx: 0,
            ty: 0,
            fin: false,
            prd_valid: false,
            prd: MemReq::default(),
            pbusy: false,
            pbase: 0,
            poff: 0,
            slots: [Slot::default(); SLOTS],
            ip: 0,
            ap: 0,
            rp: 0,
            used: 0,
            acnt: 0,
            pr: 0,
            stats,
        }
    }

    /// The sequencer for `cfg`, or the one line naming what it does not support.
    pub fn try_new(cfg: &Config) -> Result<TileSequencerCycle, String> {
        let (tiles, g) = geom(cfg)?;
        Ok(Self::idle(
            ListReaderCycle::try_new(g)?,
            tiles,
            ATTR_OFF,
            TileSequencerStats::default(),
        ))
    }

    /// The sequencer for `cfg`.
    ///
    /// # Panics
    /// With [`TileSequencerCycle::try_new`]'s message.
    pub fn new(cfg: &Config) -> TileSequencerCycle {
        Self::try_new(cfg).unwrap_or_else(|e| panic!("{e}"))
    }

    /// A planted bug (the co-simulation's mutant, `cosim/build/mutation.rs`, predicted with
    /// it): the first word read of every command is at byte `off` of the entry instead of 28
    /// (24: the colour word is taken as the attribute word).
    #[doc(hidden)]
    pub fn with_attr_off(mut self, off: u32) -> TileSequencerCycle {
        self.attr_off = off;
        self
    }

    /// The list core inside.
    pub fn core(&self) -> &ListReaderCycle {
        &self.core
    }
    /// First tiles across and up.
    pub fn tiles(&self) -> [u32; 2] {
        self.tiles
    }
    /// Counters so far.
    pub fn stats(&self) -> TileSequencerStats {
        self.stats
    }
    /// The list core's counters.
    pub fn list_stats(&self) -> ListReaderStats {
        self.core.stats()
    }
    /// Slots reserved.
    pub fn used(&self) -> u32 {
        self.used
    }
    /// Ready for a start (registered).
    pub fn in_ready(&self) -> bool {
        !self.run
    }
    /// List port request (registered).
    pub fn lrd(&self) -> (bool, MemReq) {
        self.core.rd()
    }
    /// List port: ready for a response (always).
    pub fn lrsp_ready(&self) -> bool {
        true
    }
    /// Prim-table port request (registered).
    pub fn prd(&self) -> (bool, MemReq) {
        (self.prd_valid, self.prd)
    }
    /// Prim-table port: ready for a response (always).
    pub fn prsp_ready(&self) -> bool {
        true
    }
    /// (out_valid, beat): slot `rp`.
    pub fn out(&self) -> (bool, SeqCmd) {
        let s = &self.slots[self.rp];
        (s.done, s.beat())
    }
    /// Nothing in progress or held.
    pub fn is_quiet(&self) -> bool {
        !self.run && self.used == 0 && !self.prd_valid && self.core.is_quiet()
    }

    fn load(&mut self, addr: u32) {
        self.prd = MemReq {
            addr,
            write: false,
            wdata: 0,
            be: 0,
        };
        self.prd_valid = true;
        self.stats.prim_reads += 1;
    }

    /// One rising edge.
    pub fn clock(&mut self, i: &TileSequencerIn) {
        let (in_valid, out_ready, lrd_ready, lrsp_valid, lrsp, prd_ready, prsp_valid, prsp, flush) = (
            i.inp.valid,
            i.out_ready,
            i.lrd_ready,
            i.lrsp.valid,
            &i.lrsp.payload,
            i.prd_ready,
            i.prsp.valid,
            &i.prsp.payload,
            i.flush,
        );
        if flush {
            self.core
                .clock(false, 0, false, false, false, &MemResp::default(), true);
            *self = Self::idle(self.core.clone(), self.tiles, self.attr_off, self.stats);
            return;
        }
        let adv = !self.prd_valid || prd_ready;
        let (cv, beat) = self.core.out();
        let take_rec = cv && !beat.none && !self.pbusy && adv && self.used < SLOTS as u32;
        let take_none = cv && beat.none;
        let take = take_rec || take_none;
        self.stats.slot_waits += (cv && !beat.none && !self.pbusy && self.used == SLOTS as u32) as u64;
        let emit_end = self.fin && !self.pbusy && self.used < SLOTS as u32 && self.acnt == 0;
        let pop = self.slots[self.rp].done && out_ready;
        let rsp = prsp_valid && self.acnt > 0;
        let start = in_valid && !self.run;

        // The list core (its pop is the take).
        self.core.clock(start, 0, take, lrd_ready, lrsp_valid, lrsp, false);
        if start {
            self.run = true;
            self.stats.starts += 1;
        }

        // Tile counter.
        let (tx0, ty0) = (self.tx, self.ty);
        if take && beat.last {
            if self.tx + 1 == self.tiles[0] {
                self.tx = 0;
                if self.ty + 1 == self.tiles[1] {
                    self.ty = 0;
                    self.fin = true;
                } else {
                    self.ty += 1;
                }
            } else {
                self.tx += 1;
            }
        }
        self.stats.empty_tiles += take_none as u64;

        // Prim-table reads and slot reservation.
        let (used0, acnt0, ip0, ap0) = (self.used, self.acnt, self.ip, self.ap);
        let mut used = used0;
        let mut acnt = acnt0;
        if self.pbusy && adv {
            let a = self.pbase | self.poff;
            self.load(a);
            if self.poff == LAST_OFF {
                self.pbusy = false;
            }
            self.poff = (self.poff + 4) & 31;
        } else if take_rec {
            let prim = beat.words[0] & 0xff_ffff;
            self.slots[ip0] = Slot {
                prim,
                tx: tx0,
                ty: ty0,
                end: false,
                done: false,
                ..self.slots[ip0]
            };
            self.pbase = prim << PRIM_LOG;
            self.load(self.pbase | self.attr_off);
            self.poff = 0;
            self.pbusy = true;
            self.ip ^= 1;
            used += 1;
            acnt += 1;
            self.stats.cmds += 1;
        } else if adv {
            self.prd_valid = false;
        }
        if emit_end {
            self.slots[ip0] = Slot {
                prim: 0,
                tx: 0,
                ty: 0,
                end: true,
                done: true,
                ..self.slots[ip0]
            };
            self.ip ^= 1;
            self.ap ^= 1;
            used += 1;
            self.fin = false;
            self.run = false;
            self.stats.ends += 1;
        }

        // Responses into slot `ap`.
        if rsp {
            let s = &mut self.slots[ap0];
            if self.pr == 0 {
                s.attr = prsp.rdata & 0x3ff_ffff;
            } else {
                s.w[self.pr as usize - 1] = prsp.rdata & 0xff_ffff;
            }
            if self.pr == READS_PER_CMD - 1 {
                self.pr = 0;
                s.done = true;
                self.ap ^= 1;
                acnt -= 1;
            } else {
                self.pr += 1;
            }
        }

        // Output.
        if pop {
            self.slots[self.rp].done = false;
            self.rp ^= 1;
            used -= 1;
        }
        self.used = used;
        self.acnt = acnt;
    }
}
