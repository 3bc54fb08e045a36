//! # pixel_info_read (seed 001: the pixel side reads the pixel-info lists back)
//!
//! After every first tile is rasterized (a start token on `inp`), reads the pixel-info lists of
//! [`tilerast_golden::pixel_info::PixelInfoStore`] back through the memory read port, second
//! tile by second tile (rows bottom-up, left→right), and hands out one record per beat on `out`
//! ([`tilerast_golden::streams::PiRecord`]: second tile, prim, depth, frame, qx, qy, mask,
//! `last` on the tile's last record), with a bare `last` + `none` token for an empty second
//! tile. Its reads are golden's `read_second_tile` reads, in order (table `[head, count]`, the
//! records' words, a block's `next` only when records remain). Cycle model:
//! [`tilerast_golden::pixel_info_read::PixelInfoReadCycle`] on the generic core
//! [`tilerast_golden::list_reader::ListReaderCycle`] (same registers); the core's rustdoc is the
//! block's timing contract (latency 7 + 2L + W to the first record, one read per cycle inside a
//! block, L + 3 read-port cycles per block boundary, 4 output credits), stated once.
//!
//! **Ports.** `clock`, `flush` (synchronous reset, every register to its initial state; flush
//! the memory's held reads with it); in: `in_valid`/`in_ready` with `inp`
//! ([`crate::streams::PiStartIn`]: `frame`, put on empty tiles' tokens); out:
//! `out_valid`/`out_ready` with `out` ([`crate::streams::PiRecordOut`]); the read port:
//! `rd_valid`/`rd_ready` with `rd` ([`crate::streams::MemReqOut`]: `addr`, `write` = 0,
//! `wdata` = 0, `be` = 0) and `rsp_valid`/`rsp_ready` with `rsp`
//! ([`crate::streams::MemRespIn`], in request order; `rsp_ready` is the constant 1: the credits
//! leave room for every read issued).
//!
//! **Addresses** are 32-bit byte offsets in the pixel-info region (golden's layout at offset 0:
//! the list table, then block i at i·B); the frame top's memory arbiter adds the region's base.
//! Block i is read at (i·B) mod 2^32 (`blk << log2 B`, the bits above 31 dropped): a frame's
//! pixel info must fit the first 4 GiB of the region.
//!
//! **Handshake.** `in_ready` = the sequencer is idle (a register). Every output is a register
//! or wiring of registers: `out` is the output FIFO's entry 0 decoded plus the tile counter.
//!
//! **Depth.** No multiplier: the block address is `blk << log2 B` OR the offset in the block
//! (B a power of two), the table address an 8-step counter. The longest paths are the 32-bit
//! `left`/`rleft` decrements and `= 0`/`= 1` compares into the sequencer's state, and the
//! response word into the assembly lane selected by a 3-bit counter. Measured on the HX8K
//! (`tilerast synth --blocks --board hx8k --preset ice40 --only pixel_info_read`, nextpnr seed
//! 1): 1243 LUT4s, 714 flip-flops, 86.2 MHz against the 75 MHz goal, critical path `left` →
//! the output FIFO (the `left = 0` test of a `none` push). ECP5 not measured (no nextpnr-ecp5
//! on the machine it was built on).
//!
//! ```text
//!  start ─► core: ListReader (lists N, W words, K per block, B) ───────────────► FIFO ×4 entry 0
//!             seq: Idle→Head→Count→WaitC→Rec⇄Next→WaitN        rd [addr] ─► memory   │ decode
//!             credits (used ≤ 4) ──┘  pend > 0: record word ◄── rsp (rdata) ◄─┘      ▼
//!                                  pend = 0: head/count/next                  out [tile_x, tile_y
//!                                                     tile counter ◄ pop of a last ─┘  (registers)]
//! ```
//!
//! Parameters: N second tiles (nx·ny), W = R/4 words per record, K = (B − 4)/R, log2 B; the
//! mask's 4·S bits.

use crate::emit;
pub use crate::list_reader::ListReader;
use crate::util::k;
use rust_hdl::prelude::*;
use tilerast_golden::config::Config;
use tilerast_golden::pixel_info_read::{geom, mask_bits};

tilerast_golden::pixel_info_read_streams! { crate::streams::stream_block;
    /// The pixel-info reader. Build with [`PixelInfoRead::new`].
    pub struct PixelInfoRead {
        core: ListReader,
        c_nx1: Constant<Bits<11>>,
        c_ny1: Constant<Bits<11>>,
        c_one11: Constant<Bits<11>>,
        c_mask: Constant<Bits<64>>,
        c_24: Constant<Bits<32>>,
        c_16: Constant<Bits<64>>,
        c_48: Constant<Bits<64>>,
        c_zero4: Constant<Bits<4>>,
        pop_last: Signal<Local, Bit>,
        tx: DFF<Bits<11>>,
        ty: DFF<Bits<11>>,
    }
}

/// Whether the block builds for `cfg`: the golden model's parameters
/// ([`tilerast_golden::pixel_info_read::geom`]).
pub fn supported(cfg: &Config) -> Result<(), String> {
    let (_, g) = geom(cfg)?;
    ListReader::try_new(g)
        .map(|_| ())
        .map_err(|e| format!("config.pixel_info_block_bytes: {e}"))
}

impl PixelInfoRead {
    /// The block for `cfg`, or the one line naming the field it does not support.
    pub fn try_new(cfg: &Config) -> Result<PixelInfoRead, String> {
        let (tiles, g) = geom(cfg)?;
        let core = ListReader::try_new(g).map_err(|e| format!("config.pixel_info_block_bytes: {e}"))?;
        Ok(PixelInfoRead {
            clock: Default::default(),
            flush: Default::default(),
            in_valid: Default::default(),
            in_ready: Default::default(),
            inp: Default::default(),
            out_valid: Default::default(),
            out_ready: Default::default(),
            out: Default::default(),
            rd_valid: Default::default(),
            rd_ready: Default::default(),
            rd: Default::default(),
            rsp_valid: Default::default(),
            rsp_ready: Default::default(),
            rsp: Default::default(),
            core,
            c_nx1: k(tiles[0] as u64 - 1),
            c_ny1: k(tiles[1] as u64 - 1),
            c_one11: k(1),
            c_mask: k(mask_bits(cfg.msaa)),
            c_24: k(24),
            c_16: k(16),
            c_48: k(48),
            c_zero4: k(0),
            pop_last: Default::default(),
            tx: Default::default(),
            ty: Default::default(),
        })
    }

    /// The block for `cfg`.
    ///
    /// # Panics
    /// With the reason if it is not supported ([`supported`]).
    pub fn new(cfg: &Config) -> PixelInfoRead {
        Self::try_new(cfg).unwrap_or_else(|e| panic!("{e}"))
    }

    #[hdl_gen]
    fn kernel(&mut self) {
        self.core.clock.next = self.clock.val();
        self.core.flush.next = self.flush.val();
        self.tx.clock.next = self.clock.val();
        self.tx.d.next = self.tx.q.val();
        self.ty.clock.next = self.clock.val();
        self.ty.d.next = self.ty.q.val();

        // Start, read port, responses: the core's.
        self.core.start_valid.next = self.in_valid.val();
        self.in_ready.next = self.core.start_ready.val();
        self.core.none_w0.next = bit_cast::<32, 8>(self.inp.frame.val()) << self.c_24.val();
        self.rd_valid.next = self.core.rd_valid.val();
        self.core.rd_ready.next = self.rd_ready.val();
        self.rd.addr.next = self.core.rd_addr.val();
        self.rd.write.next = false;
        self.rd.wdata.next = 0.into();
        self.rd.be.next = self.c_zero4.val();
        self.core.rsp_valid.next = self.rsp_valid.val();
        self.core.rsp_rdata.next = self.rsp.rdata.val();
        self.rsp_ready.next = true;

        // Output: FIFO entry 0 decoded, the tile counter.
        self.out_valid.next = self.core.out_valid.val();
        self.core.out_ready.next = self.out_ready.val();
        self.out.tile_x.next = self.tx.q.val();
        self.out.tile_y.next = self.ty.q.val();
        self.out.prim.next = self.core.out_w1.val();
        self.out.depth.next = self.core.out_w0.val().get_bits::<24>(0);
        self.out.frame.next = self.core.out_w0.val().get_bits::<8>(24);
        self.out.qx.next = self.core.out_w2.val().get_bits::<8>(0);
        self.out.qy.next = self.core.out_w2.val().get_bits::<8>(8);
        self.out.mask.next = (bit_cast::<64, 16>(self.core.out_w2.val().get_bits::<16>(16))
            | (bit_cast::<64, 32>(self.core.out_w3.val()) << self.c_16.val())
            | (bit_cast::<64, 32>(self.core.out_w4.val()) << self.c_48.val()))
            & self.c_mask.val();
        self.out.last.next = self.core.out_last.val();
        self.out.none.next = self.core.out_none.val();

        self.pop_last.next = self.core.out_valid.val() & self.out_ready.val() & self.core.out_last.val();
        if self.pop_last.val() {
            if self.tx.q.val() == self.c_nx1.val() {
                self.tx.d.next = 0.into();
                if self.ty.q.val() == self.c_ny1.val() {
                    self.ty.d.next = 0.into();
                } else {
                    self.ty.d.next = self.ty.q.val() + self.c_one11.val();
                }
            } else {
                self.tx.d.next = self.tx.q.val() + self.c_one11.val();
            }
        }
        if self.flush.val() {
            self.tx.d.next = 0.into();
            self.ty.d.next = 0.into();
        }
    }
}

emit::indexed_kernel_logic!(PixelInfoRead);

/// The block's Verilog with top module `name`.
pub fn verilog(cfg: &Config, name: &str) -> String {
    emit::block_verilog(PixelInfoRead::new(cfg), name)
}

/// The pixel-info reader's row of [`crate::BLOCK_FILES`].
pub const FILE: crate::BlockFile = crate::BlockFile {
    role:
        "seed 001, the pixel side reads the pixel-info lists back through the memory port, second tile by second tile",
    contract: "tilerast_golden::pixel_info_read::PixelInfoReadCycle (tilerast_golden::list_reader::ListReaderCycle)",
    sig: <tilerast_golden::pixel_info_read::PixelInfoReadPorts as tilerast_golden::cycle::BlockSignature>::SIGNATURE,
    params: |cfg| {
        let (tiles, g) = geom(cfg)?;
        supported(cfg)?;
        Ok(format!(
            "{}x{} second tiles, {} words per record, {} records per {}-byte block; list table at offset 0, 32-bit offsets in the pixel-info region",
            tiles[0],
            tiles[1],
            g.words,
            g.per_block,
            1u32 << g.block_log
        ))
    },
    verilog,
};
