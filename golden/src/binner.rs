//! Seed 001 (claims 3 and 12): the **binner** (图块划分模块). For each *first tile*
//! (`cfg.tile`, sized by the rasterizer's buffer) it writes to memory the indices of the
//! primitives that touch it, grouped by first tile, so that the rasterizer can read them back
//! tile by tile.
//!
//! Data in: `(primitive index, pixel bounding box)` pairs in submission order (a primitive
//! "touches" a tile when its inclusive box overlaps the tile's pixels; the bbox is
//! conservative, so a listed primitive may still cover nothing in the tile). Boxes come from
//! [`prim_bbox`]: for triangles `setup::setup_triangle(cfg, t)?.bbox` (zero-area, culled and
//! off-screen triangles are not binned), for points the exact pixel hull of the SPEC §2 point
//! rule ([`point_bbox`]).
//! Data out: [`Bins`]: one list per first tile, each holding the indices **in submission
//! order**; tiles are numbered rows bottom-up, left→right (`index = ty·tiles_x + tx`).
//!
//! ```text
//!  (prim, bbox) ─► tiles overlapped ─► append prim to each tile's list
//!     in order      tx0..=tx1 ×          (on-chip tail per tile)
//!                   ty0..=ty1                  │
//!                                              ▼ memory
//!                  ┌──────────────────────────────────────────────────┐
//!                  │ table [head,count] × tiles │ chunk: next │ i i i │
//!                  └──────────────────────────────────────────────────┘
//!                                              │ read_tile (rasterizer)
//!                                              ▼ indices, submission order
//! ```
//!
//! Memory layout: the [`crate::pixel_info::BlockLists`] layout with 4-byte records (one u32
//! primitive index each): list table at address 0, `[head: u32, count: u32]` per tile, padded
//! to whole chunks; chunks of `chunk_bytes` ([`BIN_CHUNK_BYTES`] = 64 by default) holding
//! `next: u32` (a chunk index, like `head`) then `(chunk_bytes − 4) / 4` indices. Bytes
//! written = `8·tiles + 4·entries + 4·chunks`; reading a tile = `8 + 4·count + 4·(chunks_in_list − 1)`.

use crate::config::Config;
use crate::pixel_info::{BlockLists, Memory, StoreError};
use crate::prim::PrimitiveFx;
use crate::setup::{setup_triangle, PixelBox};

/// Default bytes per primitive-list chunk (next pointer + 15 indices).
pub const BIN_CHUNK_BYTES: u32 = 64;

/// Binning statistics.
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq)]
pub struct BinStats {
    /// Primitives (bounding boxes) binned.
    pub prims: u64,
    /// List entries over all tiles (Σ tiles touched per primitive).
    pub entries: u64,
    /// Tiles whose list is non-empty.
    pub tiles_touched: u64,
    /// Longest list.
    pub max_list_len: u32,
    /// Chunks allocated.
    pub chunks: u64,
    /// Bytes written to memory (table, indices, next pointers).
    pub bytes_written: u64,
    /// Bytes read back so far by [`Bins::read_tile`].
    pub bytes_read: u64,
}

/// Per-first-tile primitive lists in simulated memory.
#[derive(Clone, Debug)]
pub struct Bins {
    tiles: [u32; 2],
    lists: BlockLists,
    prims: u64,
}

/// Alias (the seed calls these the first-tile data structures).
pub type BinLists = Bins;

impl Bins {
    /// The primitive indices of first tile `[tx, ty]`, in submission order, read from memory
    /// (counted in [`BinStats::bytes_read`]).
    pub fn read_tile(&mut self, t: [u32; 2]) -> Result<Vec<u32>, StoreError> {
        if t[0] >= self.tiles[0] || t[1] >= self.tiles[1] {
            return Err(StoreError::new(
                "tile",
                format!(
                    "({}, {}) outside the {}x{} first tiles",
                    t[0], t[1], self.tiles[0], self.tiles[1]
                ),
            ));
        }
        let list = t[1] * self.tiles[0] + t[0];
        let mut out = Vec::with_capacity(self.lists.list_len(list) as usize);
        self.lists
            .read_list(list, |b| out.push(u32::from_le_bytes([b[0], b[1], b[2], b[3]])))?;
        Ok(out)
    }

    /// First-tile coordinates in processing order: rows bottom-up, left→right.
    pub fn tile_order(&self) -> impl Iterator<Item = [u32; 2]> + 'static {
        let [nx, ny] = self.tiles;
        (0..ny).flat_map(move |y| (0..nx).map(move |x| [x, y]))
    }

    /// Number of first tiles across and up.
    pub fn tiles(&self) -> [u32; 2] {
        self.tiles
    }

    /// Statistics (bytes read so far included).
    pub fn stats(&self) -> BinStats {
        let n = self.lists.lists();
        let lens = (0..n).map(|l| self.lists.list_len(l));
        BinStats {
            prims: self.prims,
            entries: self.lists.records(),
            tiles_touched: lens.clone().filter(|&c| c > 0).count() as u64,
            max_list_len: lens.max().unwrap_or(0),
            chunks: self.lists.blocks(),
            bytes_written: self.lists.memory().bytes_written(),
            bytes_read: self.lists.memory().bytes_read(),
        }
    }

    /// The simulated memory.
    pub fn memory(&self) -> &Memory {
        self.lists.memory()
    }
}

/// Bin `bboxes` (in submission order) into per-first-tile lists with [`BIN_CHUNK_BYTES`]
/// chunks.
pub fn bin(cfg: &Config, bboxes: &[(u32, PixelBox)]) -> Result<Bins, StoreError> {
    bin_with_chunk(cfg, bboxes, BIN_CHUNK_BYTES)
}

/// [`bin`] with an explicit chunk size (a multiple of 4, at least 8).
pub fn bin_with_chunk(cfg: &Config, bboxes: &[(u32, PixelBox)], chunk_bytes: u32) -> Result<Bins, StoreError> {
    cfg.validate()?;
    let tiles = cfg.tiles();
    let [tw, th] = cfg.tile;
    let [vw, vh] = cfg.viewport;
    let mut lists = BlockLists::new(tiles[0] * tiles[1], chunk_bytes, 4, "chunk_bytes")?;
    for (i, (prim, b)) in bboxes.iter().enumerate() {
        if b.x0 > b.x1 || b.y0 > b.y1 || b.x1 >= vw || b.y1 >= vh {
            return Err(StoreError::new(
                "bboxes",
                format!(
                    "bboxes[{i}] = [{}, {}]x[{}, {}] is empty or outside the {vw}x{vh} viewport",
                    b.x0, b.x1, b.y0, b.y1
                ),
            ));
        }
        let rec = prim.to_le_bytes();
        for ty in b.y0 / th..=b.y1 / th {
            for tx in b.x0 / tw..=b.x1 / tw {
                lists.append(ty * tiles[0] + tx, &rec)?;
            }
        }
    }
    lists.finish()?;
    Ok(Bins {
        tiles,
        lists,
        prims: bboxes.len() as u64,
    })
}

/// Bin a frame's primitives (index = position in `prims`); primitives without a bbox
/// ([`prim_bbox`] = `None`) are skipped.
pub fn bin_primitives(cfg: &Config, prims: &[PrimitiveFx]) -> Result<Bins, StoreError> {
    let boxes: Vec<(u32, PixelBox)> = prims
        .iter()
        .enumerate()
        .filter_map(|(i, p)| prim_bbox(cfg, p).map(|b| (i as u32, b)))
        .collect();
    bin(cfg, &boxes)
}

/// Bounding box of a primitive, clipped to the viewport; `None` when it can cover nothing
/// (zero-area, culled or off-screen triangle; off-screen or zero-size antialiased point).
pub fn prim_bbox(cfg: &Config, p: &PrimitiveFx) -> Option<PixelBox> {
    match p {
        PrimitiveFx::Triangle(t) => setup_triangle(cfg, t).ok().map(|s| s.bbox),
        PrimitiveFx::Point(q) => point_bbox(cfg, q),
    }
}

/// Pixel hull of a point, clipped to the viewport: the point rasterizer's own box, so the
/// binner and the scan can never disagree.
pub use crate::point_raster::point_bbox;
