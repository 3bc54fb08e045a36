//! Tile recombiner, tile re-splitter and quad packer (seed 000 claims 1–5, 14–17; fig. 6
//! blocks 620 "图块重组器", 625 "图块再分解器", 630 "像素四元组打包器"; figs. 7, 9, 10).
//!
//! **Recombiner** ([`RasterTile`]): holds the rasterized tile of one (primitive, tile). Each
//! first sub-tile either was rasterized (its quad masks are stored) or holds the preset first
//! mask, all zero (claim 10); putting each rasterized sub-tile at its place *is* the
//! recombination. Masks are kept in quad layout (SPEC §2: 4·S bits, pixel i = 2·(y&1)+(x&1)).
//!
//! **Re-splitter** ([`block_layout`]), used when `cfg.resplit()` (colours/pixel < samples/pixel,
//! claim 2): cuts the rasterized tile (clipped to the viewport) into *second sub-tiles* of the
//! preset size `cfg.second_subtile() = [PW, PH]` (one colour storage block's pixels) along rows
//! and columns from the tile origin (claim 4). The last column / row may be narrower (tile
//! clipped by the viewport). A second sub-tile whose actual pixel count is ≤ half the preset
//! pixel count ("small edge piece") shares a storage block with other small edge pieces
//! (claim 5): walking the pieces in group order, a small piece goes into the currently open
//! shared block if it still fits (sum of pixel counts ≤ PW·PH), else opens a new block; every
//! other piece gets a block of its own. Blocks are numbered in order of first use.
//!
//! **Quad packer** ([`pack`]): emits the non-empty 2×2 quads. Without re-split (claim 3) the
//! quads come straight from the rasterized first sub-tiles.
//!
//! **Streaming** ([`StreamPacker`]): when the groups are the first sub-tiles themselves (no
//! re-split, or second sub-tile preset = first sub-tile size, as in every preset), the sample
//! rasterizer already produces quads in the packer's order, so `raster` feeds them straight
//! to the output without storing the rasterized tile; the result (quads, order, counters) is
//! identical to recombining first (tested). In data terms the recombined tile is still "every
//! rasterized sub-tile at its place, preset zero elsewhere".
//!
//! In:  the covered first sub-tiles (walk order) and their quad masks; `cfg` (re-split or not,
//!      second sub-tile preset). Out: `Quad`s of one primitive, in the order below.
//!
//! **Output order (the contract the RTL follows)**:
//! 1. groups — second sub-tiles when `cfg.resplit()`, first sub-tiles otherwise — in row order
//!    bottom-up (increasing y), inside a row left → right;
//! 2. inside a group, quads in row order bottom-up, inside a quad row left → right;
//! 3. only quads with a non-zero mask are emitted (empty groups emit nothing).
//!
//! Because every boundary (tile, sub-tile, second sub-tile) is even, each quad lies in exactly
//! one first and one second sub-tile. When second sub-tile = first sub-tile size (all presets)
//! both modes give the same order.
//!
//! ```text
//!  rasterized tile 32x32, second sub-tiles 16x16     inside one group (quads, 2x2 px):
//!   ┌────────┬────────┐                               ┌──┬──┬──┬──┐
//!   │ 2      │ 3      │                               │12│13│14│15│
//!   │        │        │                               ├──┼──┼──┼──┤
//!   ├────────┼────────┤                               │ 8│ 9│10│11│  ...
//!   │ 0 ───► │ 1      │                               ├──┼──┼──┼──┤
//!   │        │        │                               │ 0│ 1│ 2│ 3│
//!   └────────┴────────┘                               └──┴──┴──┴──┘
//!  clipped tile 4 px wide: pieces 4x16 (64 px ≤ 256/2) → two pieces share one block
//! ```

use crate::config::Config;
use crate::counters::counters;
use crate::prim::Quad;
use crate::setup::PixelBox;
use crate::subtile_coverage::CoveredSubtile;
use crate::tile_parser::{ParsedTile, SubTile};

counters! {
    /// Counters of the recombiner / re-splitter / quad packer.
    #[derive(Clone, Copy, Debug, Default, PartialEq, Eq)]
    pub struct PackerStats {
        /// Quads emitted (non-empty).
        pub quads: u64,
        /// Groups (second sub-tiles when re-splitting, else first sub-tiles) that emitted ≥ 1 quad.
        pub groups: u64,
        /// Second sub-tiles the rasterized tiles were re-split into (counted per re-split, i.e.
        /// per (primitive, tile) in re-split mode).
        pub second_subtiles: u64,
        /// Storage blocks those second sub-tiles occupy (per re-split).
        pub storage_blocks: u64,
        /// Of those, blocks shared by ≥ 2 small edge second sub-tiles (claim 5).
        pub shared_blocks: u64,
        /// Pixels held by the blocks (the rasterized tiles' pixels inside the viewport).
        pub block_pixels_stored: u64,
        /// Pixel capacity of the blocks (`storage_blocks · PW · PH`).
        pub block_pixel_capacity: u64,
    }
}

impl PackerStats {
    /// Block utilisation: pixels stored / pixel capacity (0 when nothing was stored).
    pub fn block_utilisation(&self) -> f64 {
        if self.block_pixel_capacity == 0 {
            0.0
        } else {
            self.block_pixels_stored as f64 / self.block_pixel_capacity as f64
        }
    }
}

// ───────────────────────────── recombiner ─────────────────────────────

/// The rasterized tile of one (primitive, tile): quad masks of the rasterized first sub-tiles,
/// the preset all-zero mask everywhere else. Reused across calls without clearing: a
/// generation stamp per first sub-tile tells which sub-tiles hold this call's data, and the
/// region (quad range) the sample rasterizer wrote in each; quads outside it read as zero.
#[derive(Clone, Debug)]
pub struct RasterTile {
    /// Clipped tile rectangle.
    rect: PixelBox,
    /// log2 of the first sub-tile size (sizes are powers of two).
    sub_shift: [u32; 2],
    cols: u32,
    /// Quads per tile row (configured tile width / 2).
    qstride: u32,
    msaa: u32,
    masks: Vec<u64>,
    stamp: Vec<u32>,
    /// Per first sub-tile: written quads `[qx0, qy0, qx1, qy1]`, relative to the tile's quads.
    region: Vec<[u32; 4]>,
    gen: u32,
    /// Union of the pixel regions written by the sample rasterizer (empty: x0 > x1).
    written: PixelBox,
}

const EMPTY: PixelBox = PixelBox {
    x0: 1,
    y0: 1,
    x1: 0,
    y1: 0,
};

impl Default for RasterTile {
    fn default() -> Self {
        RasterTile::new()
    }
}

impl RasterTile {
    /// An empty buffer; sized on first [`RasterTile::begin`].
    pub fn new() -> RasterTile {
        RasterTile {
            rect: EMPTY,
            sub_shift: [1, 1],
            cols: 0,
            qstride: 0,
            msaa: 1,
            masks: Vec::new(),
            stamp: Vec::new(),
            region: Vec::new(),
            gen: 0,
            written: EMPTY,
        }
    }

    /// Start the rasterized tile of a new (primitive, tile): every first sub-tile holds the
    /// preset (zero) mask.
    pub fn begin(&mut self, cfg: &Config, pt: &ParsedTile) {
        let nq = (cfg.tile[0] / 2 * (cfg.tile[1] / 2)) as usize;
        let ns = ((cfg.tile[0] / cfg.subtile[0]) * (cfg.tile[1] / cfg.subtile[1])) as usize;
        if self.masks.len() != nq {
            self.masks = vec![0; nq];
        }
        if self.stamp.len() != ns {
            self.stamp = vec![0; ns];
            self.region = vec![[0; 4]; ns];
            self.gen = 0;
        }
        if self.gen == u32::MAX {
            self.stamp.iter_mut().for_each(|s| *s = 0);
            self.gen = 0;
        }
        self.gen += 1;
        self.rect = pt.rect;
        self.sub_shift = [pt.subtile[0].trailing_zeros(), pt.subtile[1].trailing_zeros()];
        self.cols = pt.cols;
        self.qstride = cfg.tile[0] / 2;
        self.msaa = cfg.msaa;
        self.written = EMPTY;
    }

    /// The clipped tile rectangle.
    pub fn rect(&self) -> PixelBox {
        self.rect
    }

    /// Pixels written so far (bounding rectangle; empty if `x0 > x1`).
    pub fn written(&self) -> PixelBox {
        self.written
    }

    /// Mask of quad (qx, qy) in screen quad coordinates: the stored mask inside a rasterized
    /// first sub-tile's written region, the preset zero mask elsewhere.
    #[inline]
    pub fn quad_mask(&self, qx: u32, qy: u32) -> u64 {
        let (rx, ry) = (qx - self.rect.x0 / 2, qy - self.rect.y0 / 2);
        let s = (((2 * ry) >> self.sub_shift[1]) * self.cols + ((2 * rx) >> self.sub_shift[0])) as usize;
        let g = self.region[s];
        if self.stamp[s] != self.gen || rx < g[0] || ry < g[1] || rx > g[2] || ry > g[3] {
            return 0;
        }
        self.masks[(ry * self.qstride + rx) as usize]
    }

    /// Sample mask of pixel (x, y) of the rasterized tile.
    pub fn pixel_mask(&self, x: u32, y: u32) -> u16 {
        let q = self.quad_mask(x / 2, y / 2);
        let i = 2 * (y & 1) + (x & 1);
        ((q >> (i * self.msaa)) & crate::samples::pixel_full_mask(self.msaa) as u64) as u16
    }
}

/// Receiver of the sample rasterizer's output, one first sub-tile at a time, in walk order.
pub trait QuadSink {
    /// A rasterized first sub-tile begins; every quad meeting `region` (pixels inside `sub`)
    /// follows exactly once, in row order (bottom-up, left → right).
    fn open_subtile(&mut self, sub: &SubTile, region: &PixelBox);
    /// The mask of quad (qx, qy) (screen quad coordinates), possibly zero.
    fn set_quad(&mut self, qx: u32, qy: u32, m: u64);
}

impl QuadSink for RasterTile {
    /// Receive a rasterized first sub-tile whose pixels in `region` (inside it) are about to be
    /// written: every quad meeting `region` must then be set once with
    /// [`RasterTile::set_quad`]; the rest of the sub-tile keeps the preset zero mask.
    fn open_subtile(&mut self, sub: &SubTile, region: &PixelBox) {
        let s = sub.index as usize;
        self.stamp[s] = self.gen;
        let (ox, oy) = (self.rect.x0 / 2, self.rect.y0 / 2);
        self.region[s] = [
            region.x0 / 2 - ox,
            region.y0 / 2 - oy,
            region.x1 / 2 - ox,
            region.y1 / 2 - oy,
        ];
        let w = &mut self.written;
        if w.x0 > w.x1 {
            *w = *region;
        } else {
            *w = PixelBox {
                x0: w.x0.min(region.x0),
                y0: w.y0.min(region.y0),
                x1: w.x1.max(region.x1),
                y1: w.y1.max(region.y1),
            };
        }
    }

    /// Set the mask of quad (qx, qy) (screen quad coordinates, inside an opened region).
    #[inline]
    fn set_quad(&mut self, qx: u32, qy: u32, m: u64) {
        let idx = ((qy - self.rect.y0 / 2) * self.qstride + (qx - self.rect.x0 / 2)) as usize;
        self.masks[idx] = m;
    }
}

/// The quad packer fed directly by the sample rasterizer, used when the packer's groups are the
/// first sub-tiles themselves: without re-split (claim 3), or when the second sub-tile preset
/// equals the first sub-tile size (all presets). The rasterizer then produces quads in
/// exactly the packer's order (sub-tiles in walk order, quads in row order), so they can be
/// emitted as they come, with the same result as recombining first.
pub struct StreamPacker<'a> {
    out: &'a mut Vec<Quad>,
    prim: u32,
    quads: u64,
    groups: u64,
    current: u64,
}

impl<'a> StreamPacker<'a> {
    /// Append primitive `prim`'s quads to `out`.
    pub fn new(out: &'a mut Vec<Quad>, prim: u32) -> Self {
        StreamPacker {
            out,
            prim,
            quads: 0,
            groups: 0,
            current: 0,
        }
    }

    /// Close the last group and add the counters.
    pub fn finish(self, st: &mut PackerStats) {
        st.quads += self.quads;
        st.groups += self.groups + (self.current > 0) as u64;
    }
}

impl QuadSink for StreamPacker<'_> {
    #[inline]
    fn open_subtile(&mut self, _sub: &SubTile, _region: &PixelBox) {
        self.groups += (self.current > 0) as u64;
        self.current = 0;
    }

    #[inline]
    fn set_quad(&mut self, qx: u32, qy: u32, m: u64) {
        if m != 0 {
            self.out.push(Quad {
                prim: self.prim,
                qx: qx as u16,
                qy: qy as u16,
                mask: m,
            });
            self.quads += 1;
            self.current += 1;
        }
    }
}

// ───────────────────────────── re-splitter ─────────────────────────────

/// One second sub-tile of a re-split tile and where it is stored.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct SecondSubtile {
    pub col: u32,
    pub row: u32,
    /// Group order index `row · cols + col`.
    pub index: u32,
    /// Its pixels (inclusive), inside the viewport.
    pub rect: PixelBox,
    /// Pixel count ≤ half the preset pixel count (claim 5).
    pub small: bool,
    /// Storage block holding it.
    pub block: u32,
    /// Pixel offset of its data inside the block.
    pub offset: u32,
}

/// How a rasterized tile is re-split into second sub-tiles and laid into storage blocks.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct BlockLayout {
    /// Clipped tile rectangle.
    pub rect: PixelBox,
    /// Preset second sub-tile size `[PW, PH]`.
    pub preset: [u32; 2],
    pub cols: u32,
    pub rows: u32,
    /// Second sub-tiles in group order (rows bottom-up, left → right).
    pub pieces: Vec<SecondSubtile>,
    /// Storage blocks used.
    pub blocks: u32,
    /// Blocks holding ≥ 2 pieces.
    pub shared_blocks: u32,
}

impl BlockLayout {
    /// Pixel capacity of one block (`PW · PH`).
    pub fn capacity(&self) -> u32 {
        self.preset[0] * self.preset[1]
    }

    /// Counters of one re-split of a tile with this layout.
    pub fn stats(&self) -> PackerStats {
        PackerStats {
            second_subtiles: self.pieces.len() as u64,
            storage_blocks: self.blocks as u64,
            shared_blocks: self.shared_blocks as u64,
            block_pixels_stored: self.rect.pixels(),
            block_pixel_capacity: self.blocks as u64 * self.capacity() as u64,
            ..Default::default()
        }
    }

    /// Range of piece columns / rows meeting pixel box `b` (inclusive), or `None`, for this
    /// layout placed on a tile whose clipped rectangle is `r` (same size as `self.rect`).
    fn pieces_meeting(&self, r: &PixelBox, b: &PixelBox) -> Option<(u32, u32, u32, u32)> {
        let x0 = b.x0.max(r.x0);
        let y0 = b.y0.max(r.y0);
        let x1 = b.x1.min(r.x1);
        let y1 = b.y1.min(r.y1);
        if x0 > x1 || y0 > y1 {
            return None;
        }
        // Preset sizes are powers of two (from Config::second_subtile).
        let (sx, sy) = (self.preset[0].trailing_zeros(), self.preset[1].trailing_zeros());
        Some((
            (x0 - r.x0) >> sx,
            (y0 - r.y0) >> sy,
            (x1 - r.x0) >> sx,
            (y1 - r.y0) >> sy,
        ))
    }
}

/// Re-split the tile `pt` into second sub-tiles of `cfg.second_subtile()` and allocate their
/// storage blocks (claims 4, 5). Depends only on the clipped tile size and the config.
pub fn block_layout(cfg: &Config, pt: &ParsedTile) -> BlockLayout {
    block_layout_rect(cfg, pt.rect)
}

/// [`block_layout`] of any pixel rectangle `rect` (the colour buffer lays seed 001's second
/// tiles out with it: [`crate::colour_buffer`]).
pub fn block_layout_rect(cfg: &Config, rect: PixelBox) -> BlockLayout {
    let preset = cfg.second_subtile();
    let [pw, ph] = preset;
    let cols = rect.width().div_ceil(pw);
    let rows = rect.height().div_ceil(ph);
    let cap = pw * ph;
    let mut pieces = Vec::with_capacity((cols * rows) as usize);
    let mut blocks = 0u32;
    let mut shared_blocks = 0u32;
    // Open shared block: (block, pixels used, pieces in it).
    let mut open: Option<(u32, u32, u32)> = None;
    for row in 0..rows {
        for col in 0..cols {
            let x0 = rect.x0 + col * pw;
            let y0 = rect.y0 + row * ph;
            let r = PixelBox {
                x0,
                y0,
                x1: (x0 + pw - 1).min(rect.x1),
                y1: (y0 + ph - 1).min(rect.y1),
            };
            let area = r.width() * r.height();
            let small = 2 * area <= cap;
            let (block, offset) = match open {
                Some((b, used, n)) if small && used + area <= cap => {
                    if n == 1 {
                        shared_blocks += 1;
                    }
                    open = Some((b, used + area, n + 1));
                    (b, used)
                }
                _ => {
                    let b = blocks;
                    blocks += 1;
                    if small {
                        open = Some((b, area, 1));
                    }
                    (b, 0)
                }
            };
            pieces.push(SecondSubtile {
                col,
                row,
                index: row * cols + col,
                rect: r,
                small,
                block,
                offset,
            });
        }
    }
    BlockLayout {
        rect,
        preset,
        cols,
        rows,
        pieces,
        blocks,
        shared_blocks,
    }
}

// ───────────────────────────── quad packer ─────────────────────────────

/// Emit the quads of the rectangle `g ∩ written` of `rt` in row order; returns how many.
#[inline]
fn emit_group(rt: &RasterTile, g: &PixelBox, prim: u32, out: &mut Vec<Quad>) -> u64 {
    let w = rt.written;
    let x0 = g.x0.max(w.x0);
    let y0 = g.y0.max(w.y0);
    let x1 = g.x1.min(w.x1);
    let y1 = g.y1.min(w.y1);
    if x0 > x1 || y0 > y1 {
        return 0;
    }
    let (ox, oy) = (rt.rect.x0 / 2, rt.rect.y0 / 2);
    let (qx0, qx1) = (x0 / 2 - ox, x1 / 2 - ox);
    // Quad columns per first sub-tile: a run of quads inside one sub-tile shares its stamp
    // and written region.
    let qsh = rt.sub_shift[0] - 1;
    let mut n = 0;
    for qy in y0 / 2 - oy..=y1 / 2 - oy {
        let srow = ((2 * qy) >> rt.sub_shift[1]) * rt.cols;
        let base = (qy * rt.qstride) as usize;
        let mut qx = qx0;
        while qx <= qx1 {
            let sc = qx >> qsh;
            let end = (((sc + 1) << qsh) - 1).min(qx1);
            let s = (srow + sc) as usize;
            let r = rt.region[s];
            if rt.stamp[s] == rt.gen && qy >= r[1] && qy <= r[3] {
                let (a, b) = (qx.max(r[0]), end.min(r[2]));
                if a <= b {
                    for (i, &mask) in rt.masks[base + a as usize..=base + b as usize].iter().enumerate() {
                        if mask != 0 {
                            out.push(Quad {
                                prim,
                                qx: (ox + a + i as u32) as u16,
                                qy: (oy + qy) as u16,
                                mask,
                            });
                            n += 1;
                        }
                    }
                }
            }
            qx = end + 1;
        }
    }
    n
}

/// Claim 3: quads straight from the rasterized first sub-tiles, in walk order (`covered` is in
/// walk order), each sub-tile's quads in row order.
pub fn pack_first_subtiles(
    rt: &RasterTile,
    covered: &[CoveredSubtile],
    prim: u32,
    st: &mut PackerStats,
    out: &mut Vec<Quad>,
) {
    for cs in covered {
        let n = emit_group(rt, &cs.sub.rect, prim, out);
        st.quads += n;
        st.groups += (n > 0) as u64;
    }
}

/// Claims 2, 4, 5: quads from the second sub-tiles of `layout`, in group order, each group's
/// quads in row order. Also counts the re-split (second sub-tiles, blocks, utilisation).
///
/// `layout` may have been made for another tile of the same clipped size (layouts depend only
/// on the size); its pieces are placed relative to `rt`'s tile.
pub fn pack_second_subtiles(
    rt: &RasterTile,
    layout: &BlockLayout,
    prim: u32,
    st: &mut PackerStats,
    out: &mut Vec<Quad>,
) {
    st.add(&layout.stats());
    let r = rt.rect;
    debug_assert_eq!((r.width(), r.height()), (layout.rect.width(), layout.rect.height()));
    let Some((c0, r0, c1, r1)) = layout.pieces_meeting(&r, &rt.written) else {
        return;
    };
    let (dx, dy) = (r.x0.wrapping_sub(layout.rect.x0), r.y0.wrapping_sub(layout.rect.y0));
    for row in r0..=r1 {
        for col in c0..=c1 {
            let p = &layout.pieces[(row * layout.cols + col) as usize].rect;
            let g = PixelBox {
                x0: p.x0.wrapping_add(dx),
                y0: p.y0.wrapping_add(dy),
                x1: p.x1.wrapping_add(dx),
                y1: p.y1.wrapping_add(dy),
            };
            let n = emit_group(rt, &g, prim, out);
            st.quads += n;
            st.groups += (n > 0) as u64;
        }
    }
}

/// Emit the quads of a rasterized tile: re-split when `cfg.resplit()` (then `layout` must be
/// `block_layout(cfg, pt)` of this tile), else straight from the first sub-tiles.
pub fn pack(
    cfg: &Config,
    rt: &RasterTile,
    covered: &[CoveredSubtile],
    layout: &BlockLayout,
    prim: u32,
    st: &mut PackerStats,
    out: &mut Vec<Quad>,
) {
    if cfg.resplit() {
        pack_second_subtiles(rt, layout, prim, st, out);
    } else {
        pack_first_subtiles(rt, covered, prim, st, out);
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::tile_parser::parse_tile;

    fn cfg16(viewport: [u32; 2]) -> Config {
        // 32x32 tiles, 8x8 first sub-tiles, 1 colour/pixel, 1024-byte blocks → 256 px → 16x16.
        let mut c = Config::preset("default").unwrap();
        c.viewport = viewport;
        c.colour_block_bytes = 1024;
        c.validate().unwrap();
        assert_eq!(c.second_subtile(), [16, 16]);
        c
    }

    #[test]
    fn full_tile_layout_one_block_each() {
        let c = cfg16([100, 75]);
        let l = block_layout(&c, &parse_tile(&c, [0, 0]).unwrap());
        assert_eq!((l.cols, l.rows, l.blocks, l.shared_blocks), (2, 2, 4, 0));
        assert_eq!(l.pieces.iter().map(|p| p.block).collect::<Vec<_>>(), vec![0, 1, 2, 3]);
    }

    #[test]
    fn narrow_edge_pieces_share_a_block() {
        // Tile (3,0) of 100x75: x 96..99 (4 px), y 0..31. Pieces 4x16 = 64 px ≤ 256/2 → small;
        // 64 + 64 ≤ 256 → both in block 0, the second at pixel offset 64.
        let c = cfg16([100, 75]);
        let l = block_layout(&c, &parse_tile(&c, [3, 0]).unwrap());
        assert_eq!((l.cols, l.rows, l.blocks, l.shared_blocks), (1, 2, 1, 1));
        assert_eq!((l.pieces[1].block, l.pieces[1].offset), (0, 64));
        assert!(l.pieces.iter().all(|p| p.small));
        // Tile (0,2): y 64..74 (11 px). Pieces 16x11 = 176 > 128: one block each, none shared.
        let l = block_layout(&c, &parse_tile(&c, [0, 2]).unwrap());
        assert_eq!((l.blocks, l.shared_blocks), (2, 0));
        assert!(l.pieces.iter().all(|p| !p.small));
        // Tile (3,2): one 4x11 = 44 px piece, small but alone: 1 block, not shared.
        let l = block_layout(&c, &parse_tile(&c, [3, 2]).unwrap());
        assert_eq!((l.blocks, l.shared_blocks, l.pieces.len()), (1, 0, 1));
        let s = l.stats();
        assert_eq!((s.block_pixels_stored, s.block_pixel_capacity), (44, 256));
    }

    #[test]
    fn recombined_tile_reads_preset_zero_elsewhere() {
        let c = cfg16([100, 75]);
        let pt = parse_tile(&c, [1, 1]).unwrap(); // x 32..63, y 32..63
        let mut rt = RasterTile::new();
        rt.begin(&c, &pt);
        let sub = pt.subtile(1, 0); // x 40..47, y 32..39
                                    // Written region: pixels x 41..43, y 33..33 → quads (20..21, 16).
        rt.open_subtile(
            &sub,
            &PixelBox {
                x0: 41,
                y0: 33,
                x1: 43,
                y1: 33,
            },
        );
        // Pixel (41,33) is pixel 3 of quad (20,16): bits 12..15 at 4x.
        rt.set_quad(20, 16, 0b1010 << 12);
        rt.set_quad(21, 16, 0);
        assert_eq!(rt.pixel_mask(41, 33), 0b1010);
        assert_eq!(rt.pixel_mask(40, 33), 0);
        assert_eq!(rt.quad_mask(20, 16), 0b1010 << 12);
        // Outside the written region the preset mask reads, whatever the buffer holds.
        rt.set_quad(22, 16, 0xFFFF);
        assert_eq!(rt.quad_mask(22, 16), 0);
        // Another, never opened, sub-tile: preset.
        assert_eq!(rt.quad_mask(16, 16), 0);
        // A new (primitive, tile) sees only preset masks, without any clearing.
        rt.begin(&c, &pt);
        assert_eq!(rt.quad_mask(20, 16), 0);
    }
}

pub use cycle::*;

pub mod cycle {
    //! The cycle model of `hw/src/quad_packer.rs`: same registers, same cycle, every port (truth
    //! layer 3, see [`crate::cycle`]); the transaction model above is the truth it is checked
    //! against. Its items are re-exported at the stage's top level.
    //!
    //! Cycle model of the RTL block `hw/src/quad_packer.rs`: `Beat`s in (from the merge), `Beat`s
    //! out with `block` filled.
    //!
    //! **Packing.** The valid lanes (lanes ≥ Q are ignored; so are mask bits ≥ 4·S) of
    //! consecutive input beats are appended, in order, to an accumulator of up to Q − 1 quads; an
    //! output beat leaves as soon as Q lanes are filled, or when an input beat carries `last` (that
    //! output beat carries `last`, possibly with fewer lanes, or none if the command had no quad). Lanes fill from lane 0; unused lanes
    //! of an output beat are all zero. If an input beat with `last` overflows a full output beat,
    //! the remainder leaves one cycle later as a second beat with `last` (`pend`). With Q = 1 the
    //! block is a register stage that drops empty non-`last` beats.
    //!
    //! **Block.** `block_l` = the storage block of lane l's second sub-tile. The RTL requires second
    //! sub-tile = first sub-tile and that golden [`block_layout`] numbers every tile's pieces
    //! `row · C + col` (C = sub-tiles per tile row; no shared edge pieces): then the block is the
    //! sub-tile index within the tile, `((qy / (SH/2)) mod R) · C + (qx / (SW/2)) mod C` — bit
    //! fields of qx, qy ([`QuadPackerGeom::new`] refuses every other config).
    //!
    //! The timing contract is the rustdoc of [`QuadPackerCycle`].
    //!
    //! ```text
    //!   beat ──► compact valid lanes ──► acc (≤ Q−1 quads) ++ new lanes ──► first Q ──► out reg ──► beat
    //!            (+ block from qx/qy)          │                               (last: all)
    //!                                          └── rest (≤ Q−1) back into acc
    //! ```

    use super::*;

    use crate::cycle::CycleModel;
    use crate::streams::{Beat, LANES};

    /// Preset-derived constants of the quad_packer block, shared by this cycle model and the RTL
    /// generator (`hw/src/quad_packer.rs`).
    #[derive(Clone, Debug, PartialEq, Eq)]
    pub struct QuadPackerGeom {
        /// Quads per beat Q.
        pub q: u32,
        /// log2 of the quads per sub-tile in x and y.
        pub sub_qshift: [u32; 2],
        /// log2 of the sub-tiles per tile in x and y (C = 2^x, R = 2^y).
        pub cols_shift: [u32; 2],
        /// Mask bits used, 4·S (higher input mask bits are ignored).
        pub mask_bits: u32,
    }

    impl QuadPackerGeom {
        /// Constants for `cfg`, or an error naming why the RTL cannot pack for it.
        pub fn new(cfg: &Config) -> Result<QuadPackerGeom, String> {
            cfg.validate().map_err(|e| e.to_string())?;
            let q = cfg.quads_per_clock;
            if cfg.second_subtile() != cfg.subtile {
                return Err(format!(
                    "quad_packer: the RTL needs second sub-tile = first sub-tile, config `{}` has second {:?} vs first {:?} \
                     (colour_block_bytes / colours_per_pixel must give subtile pixels)",
                    cfg.name,
                    cfg.second_subtile(),
                    cfg.subtile
                ));
            }
            let cols = cfg.tile[0] / cfg.subtile[0];
            let rows = cfg.tile[1] / cfg.subtile[1];
            if cols * rows > 256 {
                return Err(format!(
                    "quad_packer: {cols}x{rows} sub-tiles per tile do not fit the 8-bit block field (config `{}`)",
                    cfg.name
                ));
            }
            let geom = QuadPackerGeom {
                q,
                sub_qshift: [
                    (cfg.subtile[0] / 2).trailing_zeros(),
                    (cfg.subtile[1] / 2).trailing_zeros(),
                ],
                cols_shift: [cols.trailing_zeros(), rows.trailing_zeros()],
                mask_bits: cfg.quad_mask_bits(),
            };
            // Every tile shape (interior, right edge, top edge, corner) must number its pieces
            // row · C + col, as the bit-field block does.
            let [nx, ny] = cfg.tiles();
            for t in [[0, 0], [nx - 1, 0], [0, ny - 1], [nx - 1, ny - 1]] {
                let pt = crate::tile_parser::parse_tile(cfg, t).map_err(|e| e.msg)?;
                let lay = block_layout(cfg, &pt);
                for p in &lay.pieces {
                    let want = (p.row << geom.cols_shift[0]) | p.col;
                    if p.block != want {
                        return Err(format!(
                            "quad_packer: config `{}`: golden block_layout puts piece (col {}, row {}) of tile {:?} in block {} \
                             (edge pieces clipped by the viewport {:?}); the RTL's bit-field block would be {want}",
                            cfg.name, p.col, p.row, t, p.block, cfg.viewport
                        ));
                    }
                }
            }
            Ok(geom)
        }

        /// Storage block of quad (qx, qy): its first (= second) sub-tile's index within the tile.
        pub fn block(&self, qx: u32, qy: u32) -> u32 {
            let col = (qx >> self.sub_qshift[0]) & ((1 << self.cols_shift[0]) - 1);
            let row = (qy >> self.sub_qshift[1]) & ((1 << self.cols_shift[1]) - 1);
            (row << self.cols_shift[0]) | col
        }
    }

    /// One quad held by the packer: (qx, qy, mask, block).
    type Lane = (u32, u32, u64, u32);

    /// Cycle model of `hw/src/quad_packer.rs` (In = [`Beat`] from the merge, Out = [`Beat`] with
    /// `block`), mirroring its registers; packing and `block` in the `cycle model` section comment
    /// of this file.
    ///
    /// # Timing contract
    ///
    /// The one statement of the quad packer's timing; the RTL is held to it on every port and
    /// cycle (`hw/tests/quad_packer.rs`, `cosim/tests/quad_packer.rs`). "Accepted at edge t" means
    /// `in_valid` and `in_ready` are high in cycle t (the transfer happens at the rising edge
    /// ending it).
    ///
    /// * **Handshake:** with `can_out` = ¬out_valid ∨ out_ready, `in_ready` = ¬pend ∧ can_out, the
    ///   only combinational input → output path.
    /// * **Latency 1:** an input beat accepted at edge t that completes an output beat (Q lanes
    ///   filled, or `last`) shows it from cycle t + 1. Quads that do not fill a beat wait in the
    ///   accumulator (≤ Q − 1) for the next input beat of the command.
    /// * **Throughput:** one input beat per cycle, so up to Q quads per cycle in and out. An input
    ///   beat with `last` whose quads overflow a full output beat sets `pend`: the remainder beat
    ///   (with `last`) is loaded at the next edge with `can_out`, one cycle later without stalls,
    ///   and `in_ready` is low meanwhile. That costs at most one cycle per command.
    /// * With Q = 1 the block is a one-register stage (latency 1, one beat per cycle) that drops
    ///   empty non-`last` beats.
    /// * **Flush:** every register returns to the state of [`QuadPackerCycle::new`].
    #[derive(Clone, Debug, PartialEq)]
    pub struct QuadPackerCycle {
        geom: QuadPackerGeom,
        acc: [Lane; LANES - 1],
        acc_n: u32,
        pend: bool,
        prim: u32,
        kind: u8,
        out_valid: bool,
        out: Beat,
    }

    impl QuadPackerCycle {
        /// Idle block for `cfg`.
        ///
        /// # Panics
        /// If [`QuadPackerGeom::new`] refuses the config.
        pub fn new(cfg: &Config) -> QuadPackerCycle {
            let geom = QuadPackerGeom::new(cfg).unwrap_or_else(|e| panic!("{e}"));
            QuadPackerCycle::with_geom(geom)
        }

        fn with_geom(geom: QuadPackerGeom) -> QuadPackerCycle {
            QuadPackerCycle {
                geom,
                acc: [(0, 0, 0, 0); LANES - 1],
                acc_n: 0,
                pend: false,
                prim: 0,
                kind: 0,
                out_valid: false,
                out: Beat::default(),
            }
        }

        /// The preset constants.
        pub fn geom(&self) -> &QuadPackerGeom {
            &self.geom
        }

        fn load(&mut self, prim: u32, kind: u8, lanes: &[Lane], last: bool) {
            let mut b = Beat {
                prim,
                kind,
                last,
                ..Default::default()
            };
            for (l, &(qx, qy, m, blk)) in lanes.iter().enumerate() {
                b.lane_valid |= 1 << l;
                b.qx[l] = qx;
                b.qy[l] = qy;
                b.mask[l] = m;
                b.block[l] = blk;
            }
            self.out = b;
            self.out_valid = true;
        }
    }

    impl CycleModel for QuadPackerCycle {
        type In = Beat;
        type Out = Beat;

        fn out(&self) -> (bool, Beat) {
            (self.out_valid, self.out)
        }

        fn in_ready(&self, out_ready: bool) -> bool {
            !self.pend && (!self.out_valid || out_ready)
        }

        fn clock(&mut self, in_valid: bool, inp: &Beat, out_ready: bool, flush: bool) {
            if flush {
                *self = QuadPackerCycle::with_geom(self.geom.clone());
                return;
            }
            let can_out = !self.out_valid || out_ready;
            let accept = in_valid && self.in_ready(out_ready);
            let q = self.geom.q as usize;
            if out_ready {
                self.out_valid = false;
            }
            if self.pend && can_out {
                let n = self.acc_n as usize;
                let lanes = self.acc;
                self.load(self.prim, self.kind, &lanes[..n], true);
                self.acc_n = 0;
                self.pend = false;
            } else if accept {
                let mut c: Vec<Lane> = self.acc[..self.acc_n as usize].to_vec();
                for l in 0..q {
                    if inp.lane_valid >> l & 1 == 1 {
                        let m = inp.mask[l] & (u64::MAX >> (64 - self.geom.mask_bits));
                        c.push((inp.qx[l], inp.qy[l], m, self.geom.block(inp.qx[l], inp.qy[l])));
                    }
                }
                self.prim = inp.prim;
                self.kind = inp.kind;
                let t = c.len();
                if t >= q {
                    self.load(inp.prim, inp.kind, &c[..q], inp.last && t == q);
                    let rest = &c[q..];
                    self.acc[..rest.len()].copy_from_slice(rest);
                    self.acc_n = rest.len() as u32;
                    self.pend = inp.last && t > q;
                } else if inp.last {
                    self.load(inp.prim, inp.kind, &c, true);
                    self.acc_n = 0;
                } else {
                    self.acc[..t].copy_from_slice(&c);
                    self.acc_n = t as u32;
                }
            }
        }
    }
}

crate::cycle_model_signature! {
    /// quad_packer's ports: quad beats in, packed beats (with `block_l`) out.
    pub QuadPacker "quad_packer" for QuadPackerCycle: Beat -> PackedBeat
}
