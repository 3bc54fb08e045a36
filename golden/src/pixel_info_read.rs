//! Seed 001's pixel side, first step: the **pixel-info reader**. After every first tile is
//! rasterized (a [`PiStart`] token), it reads the pixel-info lists of
//! [`crate::pixel_info::PixelInfoStore`] back through the memory port, second tile by second
//! tile (rows bottom-up, left→right: [`crate::pixel_info::PixelInfoStore::second_tiles`]), and
//! hands out one [`PiRecord`] per record, in push order, with `last` on a tile's last record
//! and a bare `none` token for an empty second tile. Its reads are exactly
//! [`crate::pixel_info::PixelInfoStore::read_second_tile`]'s, tile after tile, so the bytes it
//! reads equal [`crate::pixel_info::PixelInfoStats::bytes_read`] after every tile is read.
//!
//! ```text
//!   PiStart ─► ListReaderCycle (lists = second tiles, W = R/4, K = (B−4)/R, B) ─► decode ─► PiRecord
//!                  │ rd (MemReq, reads)   ▲ rsp (MemResp)            + tile counter (tile_x, tile_y)
//!                  ▼                      │
//!                memory: the pixel-info region (table at offset 0, blocks at i·B)
//! ```
//!
//! The cycle model is [`PixelInfoReadCycle`]: the generic list reader
//! [`crate::list_reader::ListReaderCycle`] (whose rustdoc is the timing contract) plus wiring.

use crate::config::Config;
use crate::list_reader::{ListBeat, ListGeom, ListReaderCycle, ListReaderStats};
use crate::pixel_info::{record_bytes, PixelInfo, DEPTH_MAX};
use crate::streams::{MemReq, PiRecord};

/// The reader's parameters for `cfg`: (second tiles across, up), the list geometry.
pub fn geom(cfg: &Config) -> Result<([u32; 2], ListGeom), String> {
    cfg.validate().map_err(|e| format!("config.{}: {}", e.field, e.msg))?;
    let [w, h] = cfg.second_tile;
    let tiles = [cfg.viewport[0].div_ceil(w), cfg.viewport[1].div_ceil(h)];
    let r = record_bytes(cfg.msaa);
    let b = cfg.pixel_info_block_bytes;
    if b < 4 + r {
        return Err(format!(
            "config.pixel_info_block_bytes: {b} bytes hold no {r}-byte pixel-info record (msaa {}) after the 4-byte next pointer",
            cfg.msaa
        ));
    }
    let g = ListGeom {
        lists: tiles[0] * tiles[1],
        words: r / 4,
        block_log: b.trailing_zeros(),
        per_block: (b - 4) / r,
    };
    g.check().map_err(|e| format!("config.pixel_info_block_bytes: {e}"))?;
    Ok((tiles, g))
}

/// The record bits a mask of `msaa` samples per pixel uses (4·S bits).
pub fn mask_bits(msaa: u32) -> u64 {
    if msaa >= 16 {
        u64::MAX
    } else {
        (1u64 << (4 * msaa)) - 1
    }
}

/// A FIFO beat of the core as the record it carries (tile coordinates 0).
pub fn decode_beat(b: &ListBeat, mask_used: u64) -> PiRecord {
    let w = b.words;
    let mask = ((w[2] >> 16) as u64 | (w[3] as u64) << 16 | (w[4] as u64) << 48) & mask_used;
    PiRecord {
        tile_x: 0,
        tile_y: 0,
        prim: w[1],
        depth: w[0] & DEPTH_MAX,
        frame: (w[0] >> 24) as u8,
        qx: w[2] as u8,
        qy: (w[2] >> 8) as u8,
        mask,
        last: b.last,
        none: b.none,
    }
}

/// A golden record of second tile `st` as the beat the reader gives for it.
pub fn record_beat(st: [u32; 2], r: &PixelInfo, last: bool) -> PiRecord {
    PiRecord {
        tile_x: st[0],
        tile_y: st[1],
        prim: r.prim,
        depth: r.depth,
        frame: r.frame,
        qx: r.qx,
        qy: r.qy,
        mask: r.mask,
        last,
        none: false,
    }
}

/// The beats the reader gives for second tile `st` with records `recs` (golden's
/// `read_second_tile`), frame `frame` on an empty tile's token.
pub fn tile_beats(st: [u32; 2], recs: &[PixelInfo], frame: u8) -> Vec<PiRecord> {
    if recs.is_empty() {
        return vec![PiRecord {
            tile_x: st[0],
            tile_y: st[1],
            frame,
            last: true,
            none: true,
            ..PiRecord::default()
        }];
    }
    recs.iter()
        .enumerate()
        .map(|(i, r)| record_beat(st, r, i + 1 == recs.len()))
        .collect()
}

/// The pixel-info reader, cycle by cycle: [`PiStart`] in, reads ([`MemReq`]) out on `rd`, the
/// answers ([`MemResp`]) in on `rsp`, [`PiRecord`]s out.
///
/// # Timing contract
///
/// [`ListReaderCycle`]'s, with lists = second tiles (N = ⌈W/sw⌉·⌈H/sh⌉, list l = tile
/// (l mod nx, l / nx)), W = R/4 words per record (R = [`record_bytes`]: W = 3, 4, 5), K = (B −
/// 4)/R, B = `pixel_info_block_bytes`; `none_w0` = frame << 24 from the start token. The
/// output adds only registers and wiring:
/// * `out` = FIFO entry 0 decoded (word 0: depth, frame; word 1: prim; word 2: qx, qy,
///   mask[15:0]; words 3, 4: mask[47:16], mask[63:48]; mask ANDed with the 4·S bits used),
///   `tile_x`, `tile_y` = the tile counter (registered).
/// * The tile counter starts at (0, 0) and advances at every pop of a `last` beat (x + 1, at
///   nx back to 0 with y + 1, after the last tile back to (0, 0)); a flush clears it.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct PixelInfoReadCycle {
    core: ListReaderCycle,
    tiles: [u32; 2],
    mask_used: u64,
    tx: u32,
    ty: u32,
}

crate::block_signature! {
    /// pixel_info_read's ports: start tokens in, records out, and the memory port's read side.
    pub PixelInfoRead "pixel_info_read" {
        takes { inp: PiStart, rsp: MemResp }
        sends { out: PiRecord, rd: MemReq }
    }
}

impl crate::cycle::BlockModel for PixelInfoReadCycle {
    type Sig = PixelInfoReadPorts;
    fn outputs(&self, _: &PixelInfoReadIn) -> PixelInfoReadOut {
        let (ov, out) = self.out();
        let (rv, rd) = self.rd();
        PixelInfoReadOut {
            inp_ready: self.in_ready(),
            rsp_ready: self.rsp_ready(),
            out: crate::cycle::Offer::new(ov, out),
            rd: crate::cycle::Offer::new(rv, rd),
        }
    }
    fn clock(&mut self, i: &PixelInfoReadIn) {
        PixelInfoReadCycle::clock(self, i)
    }
}

impl PixelInfoReadCycle {
    /// The reader for `cfg`, or the one line naming the field it does not support.
    pub fn try_new(cfg: &Config) -> Result<PixelInfoReadCycle, String> {
        let (tiles, g) = geom(cfg)?;
        Ok(PixelInfoReadCycle {
            core: ListReaderCycle::try_new(g)?,
            tiles,
            mask_used: mask_bits(cfg.msaa),
            tx: 0,
            ty: 0,
        })
    }

    /// The reader for `cfg`.
    ///
    /// # Panics
    /// With [`PixelInfoReadCycle::try_new`]'s message.
    pub fn new(cfg: &Config) -> PixelInfoReadCycle {
        Self::try_new(cfg).unwrap_or_else(|e| panic!("{e}"))
    }

    /// The reader for `cfg` with its core's records per block set to `per_block` instead of
    /// K (a mutant that follows `next` early: the co-simulation's prediction of its planted
    /// bug, `cosim/build/mutation.rs`).
    #[doc(hidden)]
    pub fn with_per_block(cfg: &Config, per_block: u32) -> Result<PixelInfoReadCycle, String> {
        let (tiles, mut g) = geom(cfg)?;
        g.per_block = per_block;
        Ok(PixelInfoReadCycle {
            core: ListReaderCycle::try_new(g)?,
            tiles,
            mask_used: mask_bits(cfg.msaa),
            tx: 0,
            ty: 0,
        })
    }

    /// The list core inside.
    pub fn core(&self) -> &ListReaderCycle {
        &self.core
    }
    /// Plant the core's bug ([`ListReaderCycle::plant_bug`]).
    #[doc(hidden)]
    pub fn plant_bug(&mut self) {
        self.core.plant_bug();
    }
    /// Second tiles across and up.
    pub fn tiles(&self) -> [u32; 2] {
        self.tiles
    }
    /// Counters so far.
    pub fn stats(&self) -> ListReaderStats {
        self.core.stats()
    }
    /// Ready for a start (registered).
    pub fn in_ready(&self) -> bool {
        self.core.in_ready()
    }
    /// (rd_valid, request): registered.
    pub fn rd(&self) -> (bool, MemReq) {
        self.core.rd()
    }
    /// Ready for a response: always.
    pub fn rsp_ready(&self) -> bool {
        self.core.rsp_ready()
    }
    /// (out_valid, record): registers and wiring.
    pub fn out(&self) -> (bool, PiRecord) {
        let (v, b) = self.core.out();
        let mut r = decode_beat(&b, self.mask_used);
        r.tile_x = self.tx;
        r.tile_y = self.ty;
        (v, r)
    }

    /// One rising edge.
    pub fn clock(&mut self, i: &PixelInfoReadIn) {
        let (ov, b) = self.core.out();
        if i.flush {
            self.tx = 0;
            self.ty = 0;
        } else if ov && i.out_ready && b.last {
            if self.tx + 1 == self.tiles[0] {
                self.tx = 0;
                self.ty = if self.ty + 1 == self.tiles[1] { 0 } else { self.ty + 1 };
            } else {
                self.tx += 1;
            }
        }
        self.core.clock(
            i.inp.valid,
            (i.inp.payload.frame as u32) << 24,
            i.out_ready,
            i.rd_ready,
            i.rsp.valid,
            &i.rsp.payload,
            i.flush,
        );
    }
}
