//! # binner (seed 001: per-first-tile primitive lists in memory)
//!
//! Takes each primitive's inclusive pixel box in submission order and appends the primitive's
//! index to the list of every first tile (`cfg.tile`) the box overlaps, as writes on a memory
//! port, in exactly the byte layout of golden's [`tilerast_golden::binner::bin_with_chunk`]
//! ([`tilerast_golden::pixel_info::BlockLists`] with 4-byte records and
//! [`tilerast_golden::binner::BIN_CHUNK_BYTES`]-byte chunks): table `[head, count]` per tile at
//! offset 0 padded to whole chunks, chunks after it, `next` written once per chunk. A frame-end
//! token closes every list (tail `next = NIL`, `head`, `count`) and marks the final write with
//! `last`. Addresses are offsets in the binner's own region (golden's layout at offset 0): a
//! future frame top adds the region's base in its memory arbiter. Cycle model:
//! [`tilerast_golden::binner::BinnerCycle`] (same registers, on the list emitter
//! [`tilerast_golden::list_writer::ListEmitterCycle`], whose hw form [`ListEmitter`] holds the
//! sequencer, the list-writing core and the output register this block shares with
//! pixel_info_write); its rustdoc is the block's timing
//! contract (per tile 3 cycles, 4 with a link; the finish pass 4 or 5 cycles per list),
//! stated once.
//!
//! **Ports.** `clock`, `flush` (synchronous reset: every register zero, then the sweep empties
//! the state RAM, one list per cycle, `in_ready` low meanwhile); in: `in_valid`/`in_ready` with
//! `inp` ([`crate::streams::BinBoxIn`]: `prim`, `x0..y1`, `end`); out: `out_valid`/`out_ready`
//! with `out` ([`crate::streams::BinWriteOut`]: `addr`, `write` = 1, `wdata`, `be` = 0xf,
//! `last`), the memory port's request side plus the frame's last write.
//!
//! **Handshake.** `in_ready` = (`st` = Idle), a register decode; `adv = !out_valid |
//! out_ready` loads the next write in the emit states. No combinational path from
//! `out_ready` to `in_ready`.
//!
//! **Depth.** The tile walk's list index `li = rowbase + tx` (a 12-bit add) drives the state
//! RAM's address; `rowbase = by0·tiles_x` is the one multiply (12 × constant), alone in the
//! Setup cycle. The RAM read is registered and copied into `cur` the next cycle; the writes are
//! built from `cur`, the bump allocator and the table index, each a 32-bit add at most, into
//! the output register. The RAM hazard is avoided by construction (a list's state is written
//! back at the edge of its last write, before the next read).
//!
//! ```text
//!   inp ─► box regs ─► Setup: rowbase = by0·tiles_x ─► li = rowbase + tx ─┐
//!   (Idle)   bx0..by1 = box >> log2 tile                                   ▼
//!             ┌──────────── StateRam: per list {head, tail, count, off} ──────────┐
//!             │ re/raddr = li (Read, FRead)      we/waddr = li (Init, last write) │
//!             └───────────────┬────────────────────────────▲──────────────────────┘
//!                     rd ─► cur (Latch)                     │ new state / empty
//!                              ▼                            │
//!   Emit:  [link: tail.next = nidx] record at (alloc ? naddr + 4 : tail + off) ──► out reg
//!   FEmit: [tail.next = NIL] head @ 8·li, count @ 8·li + 4 (last)  ──────────────► (BinWrite)
//!   bump: nidx, naddr (+1, +B per chunk; back to the first chunk after the table per frame)
//! ```
//!
//! **RAM.** [`StateRam`]: a simple dual-port RAM (one write port, one read port with a read
//! register), 2^⌈log2 lists⌉ words of 112 bits, written so that yosys infers block RAM. Its
//! rust-hdl model holds junk in the read register after every edge without a read, so the
//! tests catch any use of it beyond the one cycle (Latch) the model uses it.
//!
//! Parameters: tiles across, the tile shifts, the list count, the chunk size and the first
//! chunk after the table as constants; [`supported`] refuses what the 12-bit list index
//! cannot hold. Records are one word (the primitive index); the golden list writer is generic
//! in the record size, this block's core is not yet (the pixel-info writer will need W = 3–5).

use crate::emit;
use crate::list_writer::ListEmitter;
pub use crate::list_writer::{StateRam, RAM_JUNK};
use crate::streams::BinWriteOut;
use crate::util::k;
use rust_hdl::prelude::*;
use tilerast_golden::binner::BIN_CHUNK_BYTES;
use tilerast_golden::config::Config;
use tilerast_golden::list_writer::ListWriterCycle;

/// Lists (first tiles) the 12-bit list index holds.
pub const MAX_LISTS: u32 = 4096;

/// Whether the block can be built for `cfg`: `Ok`, or one line naming the config field.
pub fn supported(cfg: &Config) -> Result<(), String> {
    cfg.validate().map_err(|e| e.to_string())?;
    let t = cfg.tiles();
    let lists = t[0] * t[1];
    if lists > MAX_LISTS {
        return Err(format!(
            "config.tile: {}x{} first tiles of {}x{} over the {}x{} viewport make {lists} lists; \
             the binner's state RAM index is 12 bits, at most {MAX_LISTS} lists",
            t[0], t[1], cfg.tile[0], cfg.tile[1], cfg.viewport[0], cfg.viewport[1]
        ));
    }
    if cfg.viewport[0] > 4096 || cfg.viewport[1] > 4096 {
        return Err(format!(
            "config.viewport: {}x{}: the binner's box ports are 12 bits, at most 4096 per axis",
            cfg.viewport[0], cfg.viewport[1]
        ));
    }
    Ok(())
}

tilerast_golden::binner_streams! { crate::streams::stream_block;
    /// The binner block. Build with [`Binner::new`] (see the module header).
    pub struct Binner {
        /// The list emitter (sequencer, list-writing core, output register), records of one
        /// word; its `Own` state is the binner's Setup.
        pub emitter: ListEmitter,

        // ---- constants ----
        c_sx: Constant<Bits<12>>,
        c_sy: Constant<Bits<12>>,
        c_tiles_x12: Constant<Bits<12>>,
        c_tiles_x16: Constant<Bits<16>>,
        c_one12: Constant<Bits<12>>,

        // ---- combinational ----
        li: Signal<Local, Bits<12>>,
        prod: Signal<Local, Bits<32>>,
        /// The walk is on the box's last tile.
        last_tile: Signal<Local, Bit>,

        // ---- registers ----
        prim: DFF<Bits<24>>,
        bx0: DFF<Bits<12>>,
        bx1: DFF<Bits<12>>,
        by0: DFF<Bits<12>>,
        by1: DFF<Bits<12>>,
        tx: DFF<Bits<12>>,
        ty: DFF<Bits<12>>,
        rowbase: DFF<Bits<12>>,
    }
}

/// (tiles across, lists, list writer) of `cfg`, whose `supported` said `Ok`.
fn geometry(cfg: &Config) -> (u32, u32, ListWriterCycle) {
    let t = cfg.tiles();
    let lw = ListWriterCycle::new(t[0] * t[1], BIN_CHUNK_BYTES, 1, "chunk_bytes").expect("valid chunk size");
    (t[0], t[0] * t[1], lw)
}

impl Binner {
    /// The block for `cfg` (call [`supported`] first).
    pub fn new(cfg: &Config) -> Binner {
        let (tiles_x, lists, lw) = geometry(cfg);
        let abits = lists.max(2).next_power_of_two().trailing_zeros() as usize;
        Binner {
            clock: Default::default(),
            flush: Default::default(),
            in_valid: Default::default(),
            in_ready: Default::default(),
            inp: Default::default(),
            out_valid: Default::default(),
            out_ready: Default::default(),
            out: Default::default(),
            emitter: ListEmitter::new(&lw, BIN_CHUNK_BYTES, 1, abits),
            c_sx: k(cfg.tile[0].trailing_zeros() as u64),
            c_sy: k(cfg.tile[1].trailing_zeros() as u64),
            c_tiles_x12: k(tiles_x as u64),
            c_tiles_x16: k(tiles_x as u64),
            c_one12: k(1),
            li: Default::default(),
            prod: Default::default(),
            last_tile: Default::default(),
            prim: Default::default(),
            bx0: Default::default(),
            bx1: Default::default(),
            by0: Default::default(),
            by1: Default::default(),
            tx: Default::default(),
            ty: Default::default(),
            rowbase: Default::default(),
        }
    }

    #[hdl_gen]
    fn kernel(&mut self) {
        // Every register holds unless assigned below.
        dff_setup!(self, clock, prim, bx0, bx1, by0, by1, tx, ty, rowbase);

        // ---- combinational ----
        self.li.next = self.rowbase.q.val() + self.tx.q.val();
        self.prod.next = bit_cast::<16, 12>(self.by0.q.val()) * self.c_tiles_x16.val();
        self.last_tile.next = (self.tx.q.val() == self.bx1.q.val()) & (self.ty.q.val() == self.by1.q.val());
        self.in_ready.next = self.emitter.idle.val();

        // ---- list emitter: the walk's list and the primitive index as the record ----
        self.emitter.clock.next = self.clock.val();
        self.emitter.flush.next = self.flush.val();
        self.emitter.out_ready.next = self.out_ready.val();
        self.emitter.start.next = self.in_valid.val() & !self.inp.end.val();
        self.emitter.finish.next = self.in_valid.val() & self.inp.end.val();
        self.emitter.list.next = self.li.val();
        self.emitter.word.next = bit_cast::<32, 24>(self.prim.q.val());
        self.emitter.after_read.next = !self.last_tile.val();
        self.emitter.after_own.next = false;

        // ---- the box and the walk ----
        if self.emitter.idle.val() & self.in_valid.val() & !self.inp.end.val() {
            self.prim.d.next = self.inp.prim.val();
            self.bx0.d.next = self.inp.x0.val() >> self.c_sx.val();
            self.bx1.d.next = self.inp.x1.val() >> self.c_sx.val();
            self.by0.d.next = self.inp.y0.val() >> self.c_sy.val();
            self.by1.d.next = self.inp.y1.val() >> self.c_sy.val();
        }
        if self.emitter.own.val() {
            // Setup: the one multiply, alone in its cycle.
            self.rowbase.d.next = self.prod.val().get_bits::<12>(0);
            self.tx.d.next = self.bx0.q.val();
            self.ty.d.next = self.by0.q.val();
        }
        if self.emitter.appended.val() & !self.last_tile.val() {
            // Next tile, rows bottom-up, left → right.
            if self.tx.q.val() == self.bx1.q.val() {
                self.ty.d.next = self.ty.q.val() + self.c_one12.val();
                self.tx.d.next = self.bx0.q.val();
                self.rowbase.d.next = self.rowbase.q.val() + self.c_tiles_x12.val();
            } else {
                self.tx.d.next = self.tx.q.val() + self.c_one12.val();
            }
        }

        if self.flush.val() {
            self.prim.d.next = 0.into();
            self.bx0.d.next = 0.into();
            self.bx1.d.next = 0.into();
            self.by0.d.next = 0.into();
            self.by1.d.next = 0.into();
            self.tx.d.next = 0.into();
            self.ty.d.next = 0.into();
            self.rowbase.d.next = 0.into();
        }

        self.out_valid.next = self.emitter.out_valid.val();
        BinWriteOut::link(&mut self.out, &mut self.emitter.out);
    }
}

emit::indexed_kernel_logic!(Binner);

/// The block's Verilog with top module `name`.
pub fn verilog(cfg: &Config, name: &str) -> String {
    emit::block_verilog(Binner::new(cfg), name)
}

/// What the block is built with for `cfg`, or the one-line refusal.
pub fn params(cfg: &Config) -> Result<String, String> {
    supported(cfg)?;
    let (tiles_x, lists, lw) = geometry(cfg);
    let abits = lists.max(2).next_power_of_two().trailing_zeros();
    Ok(format!(
        "{tiles_x}x{} first tiles of {}x{} = {lists} lists, {BIN_CHUNK_BYTES}-byte chunks \
         (first after the table: {}), state RAM {} x 112 bits; addresses relative to the binner's region",
        lists / tiles_x,
        cfg.tile[0],
        cfg.tile[1],
        lw.first_chunk(),
        1u32 << abits
    ))
}

/// The binner's row of [`crate::BLOCK_FILES`].
pub const FILE: crate::BlockFile = crate::BlockFile {
    role: "seed 001, per-first-tile primitive lists written through the memory port",
    contract: "tilerast_golden::binner::BinnerCycle",
    sig: <tilerast_golden::binner::BinnerPorts as tilerast_golden::cycle::BlockSignature>::SIGNATURE,
    params,
    verilog,
};
