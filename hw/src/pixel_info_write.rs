//! # pixel_info_write (seed 001: per-second-tile pixel-info lists in memory)
//!
//! **Role.** Behind the raster core: takes every beat of quads (with the primitive's depth and
//! the frame id) and appends one pixel-info record per valid lane to the list of the second
//! tile (`cfg.second_tile`) the quad lies in, as writes on a memory port, in exactly the byte
//! layout of golden's [`tilerast_golden::pixel_info::PixelInfoStore`] (`push` per quad, then
//! `finish_raster` on the frame-end token: table `[head, count]` per second tile at offset 0
//! padded to whole blocks, blocks of `cfg.pixel_info_block_bytes`, records of
//! `R = record_bytes(cfg.msaa)` bytes = W words). The frame-end token closes every list and
//! marks the final write with `last`. Addresses are 32-bit offsets in the pixel-info region
//! (golden's layout at offset 0); a frame top adds the region base. The bump allocator's byte
//! address wraps at 2^32 unchecked (see the contract): the frame top keeps a frame's pixel
//! info below 4 GiB.
//!
//! **Cycle model and timing contract:**
//! [`tilerast_golden::pixel_info_write::PixelInfoWriteCycle`] (its rustdoc, stated once): per
//! beat 1 cycle plus per valid lane `3 + W` cycles (`4 + W` with a link); first write on the
//! output 5 cycles after the beat is taken; the finish pass 4 or 5 cycles per list. The list
//! writing, its sequencer and the output register are the list emitter
//! [`crate::list_writer::ListEmitter`] (the binner's, with W words).
//!
//! **Ports.** `clock`, `flush` (synchronous reset: every register zero, then the sweep empties
//! the state RAM, one list per cycle, `in_ready` low meanwhile); in: `in_valid`/`in_ready`
//! with `inp` ([`crate::streams::PiBeatIn`]: the beat's `prim`, `lane_valid`, `qx_l`, `qy_l`,
//! `mask_l`, `kind`, `last`, plus `depth`, `frame`, `end`; `kind` and `last` are not used);
//! out: `out_valid`/`out_ready` with `out` ([`crate::streams::BinWriteOut`]: `addr`,
//! `write` = 1, `wdata`, `be` = 0xf, `last`).
//!
//! **Handshake.** `in_ready` = (`st` = Idle), a register decode; `adv = !out_valid |
//! out_ready` loads the next write in the emit states. No combinational path from
//! `out_ready` to `in_ready`.
//!
//! **Depth.** Each lane's list index `li_l = sty·tiles_x + stx` (its second tile by constant
//! shifts, one multiply by a constant, a 12-bit add) is computed from the input port as the
//! beat is latched, one multiply per lane, into a register (`lli`); Pick is then a priority
//! mux of the lowest remaining lane's registers into `li`. (With the multiply behind the lane
//! mux in Pick, the ECP5 path `qy → li` was 13.2 ns, 75.7 MHz.) Emit: a 5:1 mux of record
//! words into the output register; addresses from the core's word register (one 32-bit add
//! per cycle).
//!
//! ```text
//!   inp ─► beat regs (Idle) ─► Pick: lane = lowest of `lanes`; li = lli[lane]
//!   prim depth frame lanes       rqx, rqy = qx, qy mod (second tile / 2), rmask ─┐
//!   qx/qy/mask × 4, lli × 4 = (qy>>sy)·tiles_x + (qx>>sx)                         ▼
//!   ListWriter: Read RAM[li] ─► Latch cur ─► Emit: [link] w0..w(W−1) ──► out reg (BinWrite)
//!        w0 = depth | frame << 24, w1 = prim, w2 = rqx | rqy << 8 | rmask[15:0] << 16,
//!        w3 = rmask[47:16], w4 = rmask[63:48]          ─► next lane, or Idle
//!   end ─► FRead ─► FLatch ─► FEmit: [next = NIL] head count (last on list L−1)
//! ```
//!
//! Parameters: tiles across, the second-tile shifts, the list count, W, the block size and
//! the first block after the table as constants; [`supported`] refuses what the 12-bit list
//! index or the 16-bit in-block offset cannot hold.

use crate::emit;
use crate::list_writer::ListEmitter;
use crate::streams::BinWriteOut;
use crate::util::k;
use rust_hdl::prelude::*;
use tilerast_golden::config::Config;
use tilerast_golden::list_writer::ListWriterCycle;
use tilerast_golden::pixel_info::record_bytes;

/// Lists (second tiles) the 12-bit list index holds.
pub const MAX_LISTS: u32 = 4096;

/// (second tiles across, lists, W, list writer) of `cfg`.
fn geometry(cfg: &Config) -> Result<(u32, u32, u32, ListWriterCycle), String> {
    let [w, h] = cfg.second_tile;
    let t = [cfg.viewport[0].div_ceil(w), cfg.viewport[1].div_ceil(h)];
    let words = record_bytes(cfg.msaa) / 4;
    let lw = ListWriterCycle::new(t[0] * t[1], cfg.pixel_info_block_bytes, words, "pixel_info_block_bytes")
        .map_err(|e| format!("config.{}: {}", e.field, e.msg))?;
    Ok((t[0], t[0] * t[1], words, lw))
}

/// Whether the block can be built for `cfg`: `Ok`, or one line naming the config field.
pub fn supported(cfg: &Config) -> Result<(), String> {
    cfg.validate().map_err(|e| e.to_string())?;
    if cfg.viewport[0] > 8192 || cfg.viewport[1] > 8192 {
        return Err(format!(
            "config.viewport: {}x{}: the beat's quad ports are 12 bits, at most 8192 pixels per axis",
            cfg.viewport[0], cfg.viewport[1]
        ));
    }
    if cfg.pixel_info_block_bytes > 32768 {
        return Err(format!(
            "config.pixel_info_block_bytes: {} bytes: the list writer's in-block offset is 16 bits, at most 32768",
            cfg.pixel_info_block_bytes
        ));
    }
    let (tx, lists, _, _) = geometry(cfg)?;
    if lists > MAX_LISTS {
        return Err(format!(
            "config.second_tile: {tx}x{} second tiles of {}x{} make {lists} lists; the pixel-info \
             writer's state RAM index is 12 bits, at most {MAX_LISTS} lists",
            lists / tx,
            cfg.second_tile[0],
            cfg.second_tile[1]
        ));
    }
    Ok(())
}

tilerast_golden::pixel_info_write_streams! { crate::streams::stream_block;
    /// The pixel-info writer block. Build with [`PixelInfoWrite::new`] (see the module header).
    pub struct PixelInfoWrite {
        /// The list emitter (sequencer, list-writing core, output register), records of W
        /// words; its `Own` state is the writer's Pick.
        pub emitter: ListEmitter,

        // ---- constants ----
        c_sx: Constant<Bits<12>>,
        c_sy: Constant<Bits<12>>,
        c_mx: Constant<Bits<12>>,
        c_my: Constant<Bits<12>>,
        c_tiles_x16: Constant<Bits<16>>,
        c_zero4: Constant<Bits<4>>,
        c_lane_clr: Vec<Constant<Bits<4>>>,
        c_kw: Vec<Constant<Bits<3>>>,
        c_8: Constant<Bits<32>>,
        c_16: Constant<Bits<32>>,
        c_24: Constant<Bits<32>>,

        // ---- combinational ----
        sqx: Signal<Local, Bits<12>>,
        sqy: Signal<Local, Bits<12>>,
        sli: Signal<Local, Bits<12>>,
        lprod: Vec<Signal<Local, Bits<32>>>,
        smask: Signal<Local, Bits<64>>,
        sclr: Signal<Local, Bits<4>>,
        word: Signal<Local, Bits<32>>,

        // ---- registers ----
        prim: DFF<Bits<24>>,
        depth: DFF<Bits<24>>,
        frame: DFF<Bits<8>>,
        lanes: DFF<Bits<4>>,
        qx: Vec<DFF<Bits<12>>>,
        qy: Vec<DFF<Bits<12>>>,
        lli: Vec<DFF<Bits<12>>>,
        mask: Vec<DFF<Bits<64>>>,
        li: DFF<Bits<12>>,
        rqx: DFF<Bits<12>>,
        rqy: DFF<Bits<12>>,
        rmask: DFF<Bits<64>>,
    }
}

impl PixelInfoWrite {
    /// The block for `cfg` (call [`supported`] first).
    pub fn new(cfg: &Config) -> PixelInfoWrite {
        let (tiles_x, lists, words, lw) = geometry(cfg).expect("supported config");
        let abits = lists.max(2).next_power_of_two().trailing_zeros() as usize;
        let sx = cfg.second_tile[0].trailing_zeros() as u64 - 1;
        let sy = cfg.second_tile[1].trailing_zeros() as u64 - 1;
        PixelInfoWrite {
            clock: Default::default(),
            flush: Default::default(),
            in_valid: Default::default(),
            in_ready: Default::default(),
            inp: Default::default(),
            out_valid: Default::default(),
            out_ready: Default::default(),
            out: Default::default(),
            emitter: ListEmitter::new(&lw, cfg.pixel_info_block_bytes, words, abits),
            c_sx: k(sx),
            c_sy: k(sy),
            c_mx: k((1 << sx) - 1),
            c_my: k((1 << sy) - 1),
            c_tiles_x16: k(tiles_x as u64),
            c_zero4: k(0),
            c_lane_clr: (0..4).map(|l| k(0xf & !(1u64 << l))).collect(),
            c_kw: (0..4).map(k).collect(),
            c_8: k(8),
            c_16: k(16),
            c_24: k(24),
            sqx: Default::default(),
            sqy: Default::default(),
            sli: Default::default(),
            lprod: (0..4).map(|_| Default::default()).collect(),
            smask: Default::default(),
            sclr: Default::default(),
            word: Default::default(),
            prim: Default::default(),
            depth: Default::default(),
            frame: Default::default(),
            lanes: Default::default(),
            qx: (0..4).map(|_| Default::default()).collect(),
            qy: (0..4).map(|_| Default::default()).collect(),
            lli: (0..4).map(|_| Default::default()).collect(),
            mask: (0..4).map(|_| Default::default()).collect(),
            li: Default::default(),
            rqx: Default::default(),
            rqy: Default::default(),
            rmask: Default::default(),
        }
    }

    #[hdl_gen]
    fn kernel(&mut self) {
        // Every register holds unless assigned below.
        dff_setup!(self, clock, prim, depth, frame, lanes, li, rqx, rqy, rmask);
        for l in 0..4 {
            self.qx[l].clock.next = self.clock.val();
            self.qx[l].d.next = self.qx[l].q.val();
            self.qy[l].clock.next = self.clock.val();
            self.qy[l].d.next = self.qy[l].q.val();
            self.lli[l].clock.next = self.clock.val();
            self.lli[l].d.next = self.lli[l].q.val();
            self.mask[l].clock.next = self.clock.val();
            self.mask[l].d.next = self.mask[l].q.val();
        }

        // ---- combinational ----
        self.in_ready.next = self.emitter.idle.val();
        // The lowest remaining lane.
        self.sqx.next = self.qx[3].q.val();
        self.sqy.next = self.qy[3].q.val();
        self.sli.next = self.lli[3].q.val();
        self.smask.next = self.mask[3].q.val();
        self.sclr.next = self.c_lane_clr[3].val();
        if self.lanes.q.val().get_bit(2) {
            self.sqx.next = self.qx[2].q.val();
            self.sqy.next = self.qy[2].q.val();
            self.sli.next = self.lli[2].q.val();
            self.smask.next = self.mask[2].q.val();
            self.sclr.next = self.c_lane_clr[2].val();
        }
        if self.lanes.q.val().get_bit(1) {
            self.sqx.next = self.qx[1].q.val();
            self.sqy.next = self.qy[1].q.val();
            self.sli.next = self.lli[1].q.val();
            self.smask.next = self.mask[1].q.val();
            self.sclr.next = self.c_lane_clr[1].val();
        }
        if self.lanes.q.val().get_bit(0) {
            self.sqx.next = self.qx[0].q.val();
            self.sqy.next = self.qy[0].q.val();
            self.sli.next = self.lli[0].q.val();
            self.smask.next = self.mask[0].q.val();
            self.sclr.next = self.c_lane_clr[0].val();
        }
        self.lprod[0].next = bit_cast::<16, 12>(self.inp.qy_0.val() >> self.c_sy.val()) * self.c_tiles_x16.val();
        self.lprod[1].next = bit_cast::<16, 12>(self.inp.qy_1.val() >> self.c_sy.val()) * self.c_tiles_x16.val();
        self.lprod[2].next = bit_cast::<16, 12>(self.inp.qy_2.val() >> self.c_sy.val()) * self.c_tiles_x16.val();
        self.lprod[3].next = bit_cast::<16, 12>(self.inp.qy_3.val() >> self.c_sy.val()) * self.c_tiles_x16.val();
        // Word kw of the record.
        self.word.next = bit_cast::<32, 16>(self.rmask.q.val().get_bits::<16>(48));
        if self.emitter.kw.val() == self.c_kw[0].val() {
            self.word.next =
                bit_cast::<32, 24>(self.depth.q.val()) | (bit_cast::<32, 8>(self.frame.q.val()) << self.c_24.val());
        }
        if self.emitter.kw.val() == self.c_kw[1].val() {
            self.word.next = bit_cast::<32, 24>(self.prim.q.val());
        }
        if self.emitter.kw.val() == self.c_kw[2].val() {
            self.word.next = bit_cast::<32, 12>(self.rqx.q.val())
                | (bit_cast::<32, 12>(self.rqy.q.val()) << self.c_8.val())
                | (bit_cast::<32, 16>(self.rmask.q.val().get_bits::<16>(0)) << self.c_16.val());
        }
        if self.emitter.kw.val() == self.c_kw[3].val() {
            self.word.next = self.rmask.q.val().get_bits::<32>(16);
        }

        // ---- list emitter: the picked lane's list and record ----
        self.emitter.clock.next = self.clock.val();
        self.emitter.flush.next = self.flush.val();
        self.emitter.out_ready.next = self.out_ready.val();
        self.emitter.start.next =
            self.in_valid.val() & !self.inp.end.val() & (self.inp.lane_valid.val() != self.c_zero4.val());
        self.emitter.finish.next = self.in_valid.val() & self.inp.end.val();
        self.emitter.list.next = self.li.q.val();
        self.emitter.word.next = self.word.val();
        self.emitter.after_read.next = false;
        self.emitter.after_own.next = self.lanes.q.val() != self.c_zero4.val();

        // ---- the beat and the lane walk ----
        if self.emitter.idle.val() & self.in_valid.val() & !self.inp.end.val() {
            self.prim.d.next = self.inp.prim.val();
            self.depth.d.next = self.inp.depth.val();
            self.frame.d.next = self.inp.frame.val();
            self.lanes.d.next = self.inp.lane_valid.val();
            self.qx[0].d.next = self.inp.qx_0.val();
            self.qx[1].d.next = self.inp.qx_1.val();
            self.qx[2].d.next = self.inp.qx_2.val();
            self.qx[3].d.next = self.inp.qx_3.val();
            self.qy[0].d.next = self.inp.qy_0.val();
            self.qy[1].d.next = self.inp.qy_1.val();
            self.qy[2].d.next = self.inp.qy_2.val();
            self.qy[3].d.next = self.inp.qy_3.val();
            self.lli[0].d.next = self.lprod[0].val().get_bits::<12>(0) + (self.inp.qx_0.val() >> self.c_sx.val());
            self.lli[1].d.next = self.lprod[1].val().get_bits::<12>(0) + (self.inp.qx_1.val() >> self.c_sx.val());
            self.lli[2].d.next = self.lprod[2].val().get_bits::<12>(0) + (self.inp.qx_2.val() >> self.c_sx.val());
            self.lli[3].d.next = self.lprod[3].val().get_bits::<12>(0) + (self.inp.qx_3.val() >> self.c_sx.val());
            self.mask[0].d.next = self.inp.mask_0.val();
            self.mask[1].d.next = self.inp.mask_1.val();
            self.mask[2].d.next = self.inp.mask_2.val();
            self.mask[3].d.next = self.inp.mask_3.val();
        }
        if self.emitter.own.val() {
            // Pick: the lowest remaining lane.
            self.lanes.d.next = self.lanes.q.val() & self.sclr.val();
            self.li.d.next = self.sli.val();
            self.rqx.d.next = self.sqx.val() & self.c_mx.val();
            self.rqy.d.next = self.sqy.val() & self.c_my.val();
            self.rmask.d.next = self.smask.val();
        }

        if self.flush.val() {
            self.prim.d.next = 0.into();
            self.depth.d.next = 0.into();
            self.frame.d.next = 0.into();
            self.lanes.d.next = 0.into();
            for l in 0..4 {
                self.qx[l].d.next = 0.into();
                self.qy[l].d.next = 0.into();
                self.lli[l].d.next = 0.into();
                self.mask[l].d.next = 0.into();
            }
            self.li.d.next = 0.into();
            self.rqx.d.next = 0.into();
            self.rqy.d.next = 0.into();
            self.rmask.d.next = 0.into();
        }

        self.out_valid.next = self.emitter.out_valid.val();
        BinWriteOut::link(&mut self.out, &mut self.emitter.out);
    }
}

emit::indexed_kernel_logic!(PixelInfoWrite);

/// The block's Verilog with top module `name`.
pub fn verilog(cfg: &Config, name: &str) -> String {
    emit::block_verilog(PixelInfoWrite::new(cfg), name)
}

/// What the block is built with for `cfg`, or the one-line refusal.
pub fn params(cfg: &Config) -> Result<String, String> {
    supported(cfg)?;
    let (tiles_x, lists, words, lw) = geometry(cfg)?;
    let abits = lists.max(2).next_power_of_two().trailing_zeros();
    Ok(format!(
        "{tiles_x}x{} second tiles of {}x{} = {lists} lists, {}-byte records (W = {words}), \
         {}-byte blocks (first after the table: {}), state RAM {} x 112 bits; addresses relative \
         to the pixel-info region",
        lists / tiles_x,
        cfg.second_tile[0],
        cfg.second_tile[1],
        4 * words,
        cfg.pixel_info_block_bytes,
        lw.first_chunk(),
        1u32 << abits
    ))
}

/// The pixel-info writer's row of [`crate::BLOCK_FILES`].
pub const FILE: crate::BlockFile = crate::BlockFile {
    role: "seed 001, per-second-tile pixel-info lists written through the memory port",
    contract: "tilerast_golden::pixel_info_write::PixelInfoWriteCycle",
    sig: <tilerast_golden::pixel_info_write::PixelInfoWritePorts as tilerast_golden::cycle::BlockSignature>::SIGNATURE,
    params,
    verilog,
};
