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

// ---------------------------------------------------------------------------------------------
// The cycle model of `hw/src/binner.rs`.

use crate::cycle::CycleModel;
use crate::list_writer::{AfterAppend, ListEmitterCycle, ListOwner, ListSt, ListWriterCycle};
use crate::streams::{BinBox, BinWrite};

/// State of [`BinnerCycle`]'s sequencer: the list emitter's [`ListSt`] (the RTL's `st`
/// register, the same encoding), whose `Own` state is the binner's `Setup`: `rowbase` ←
/// `by0 · tiles_x` (the one multiply, alone in its cycle).
pub type BinSt = ListSt;

/// Counters of [`BinnerCycle`].
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq)]
pub struct BinnerCycleStats {
    /// Boxes accepted (frame ends not included).
    pub boxes: u64,
    /// Frame ends accepted.
    pub frames: u64,
    /// Records appended (tiles visited).
    pub tiles: u64,
    /// Memory writes issued.
    pub writes: u64,
    /// Cycles with a write on the output not taken.
    pub stalled: u64,
}

/// The binner, cycle by cycle: pixel boxes ([`BinBox`]) in, the writes of [`bin_with_chunk`]'s
/// memory ([`BinWrite`]: a [`crate::streams::MemReq`] plus `last`) out. The list writing and
/// its sequencing are the list emitter [`ListEmitterCycle`] (records of one word, the
/// primitive index); this model adds the box, the tile walk and the frame end.
///
/// # Timing contract
///
/// The one statement of the `binner` block's timing; the RTL is held to it on every port and
/// cycle (`hw/tests/binner.rs`, `cosim/tests/binner.rs`). The advance, the handshake, the
/// append's and the finish pass's cycles, the RAM hazard and the flush are the list
/// emitter's ([`ListEmitterCycle`]'s contract); the binner adds:
///
/// * **Registers.** The box (`prim`, tile range `bx0..=bx1`, `by0..=by1` = pixel box
///   `>> log2 tile`) and the walk (`tx`, `ty`, `rowbase` = `ty·tiles_x`; the append's list
///   is `rowbase + tx`), beside the emitter's (`st`, [`BinSt`]; the finish list; the list
///   writer's; the output register).
/// * **Per box** (accepted at edge c, tiles `k = (bx1−bx0+1)·(by1−by0+1)`, walked rows
///   bottom-up, left → right): `Own` = Setup in cycle c+1 (`rowbase` ← `by0·tiles_x`), then
///   per tile `Read`, `Latch`, and one `Emit` cycle per write: the link when the list's tail
///   chunk is full, then the record. After a tile's append the emitter goes straight to
///   `Read` for the next tile, or to `Idle` after the last. Without back-pressure: the first
///   write is on the output from cycle c+5; a tile costs 3 cycles (4 with a link); the next
///   box is taken in the cycle after the last write was loaded: `2 + 3k + links` cycles per
///   box.
/// * **Frame end** (`end` accepted): the emitter's finish pass; frames follow back to back,
///   each with [`bin_with_chunk`]'s bytes at the same addresses.
/// * **Memory bytes.** The writes of a frame, replayed in order on any memory, leave
///   [`bin_with_chunk`]'s bytes for the same boxes (every address once; the table padding
///   and unused record slots are never written): `tests/binner_cycle.rs`.
///
/// ```text
///   box ─► [Idle] ─► Own: Setup ─► Read ─► Latch ─► Emit: [link] record ─┬─► out (BinWrite)
///              ▲        rowbase    RAM[li]   cur      write back RAM[li]  │
///              │                      ▲──────── next tile (tx+1, or ty+1) ┘
///              └── last tile / last list
///   end ─► FRead ─► FLatch ─► FEmit: [next=NIL] head count (last on list L−1)
/// ```
///
/// Addresses are offsets in the binner's own region (golden's layout at offset 0); a frame
/// top adds the region's base in its memory arbiter.
#[derive(Clone, Debug)]
pub struct BinnerCycle {
    tiles_x: u32,
    sx: u32,
    sy: u32,
    emitter: ListEmitterCycle,
    prim: u32,
    bx0: u32,
    bx1: u32,
    by0: u32,
    by1: u32,
    tx: u32,
    ty: u32,
    rowbase: u32,
    stats: BinnerCycleStats,
}

impl BinnerCycle {
    /// The binner of `cfg` with chunks of `chunk_bytes` ([`BIN_CHUNK_BYTES`] in the pipeline).
    pub fn new(cfg: &Config, chunk_bytes: u32) -> Result<Self, StoreError> {
        cfg.validate()?;
        let t = cfg.tiles();
        let lw = ListWriterCycle::new(t[0] * t[1], chunk_bytes, 1, "chunk_bytes")?;
        Ok(BinnerCycle {
            tiles_x: t[0],
            sx: cfg.tile[0].trailing_zeros(),
            sy: cfg.tile[1].trailing_zeros(),
            emitter: ListEmitterCycle::new(lw),
            prim: 0,
            bx0: 0,
            bx1: 0,
            by0: 0,
            by1: 0,
            tx: 0,
            ty: 0,
            rowbase: 0,
            stats: BinnerCycleStats::default(),
        })
    }

    /// Counters so far.
    pub fn stats(&self) -> BinnerCycleStats {
        let (writes, stalled) = self.emitter.counts();
        BinnerCycleStats {
            writes,
            stalled,
            ..self.stats
        }
    }
    /// The sequencer's state.
    pub fn state(&self) -> BinSt {
        self.emitter.state()
    }
    /// The list-writing core.
    pub fn list_writer(&self) -> &ListWriterCycle {
        self.emitter.list_writer()
    }

    /// Every register back to its value after `new` (the flush): the emitter to the sweep,
    /// the box and walk registers to 0; the state RAM keeps its words (the sweep empties it)
    /// and the counters count on.
    fn reset_regs(&mut self) {
        self.emitter.reset_regs();
        (self.prim, self.bx0, self.bx1, self.by0, self.by1) = (0, 0, 0, 0, 0);
        (self.tx, self.ty, self.rowbase) = (0, 0, 0);
    }

    /// Next tile of the walk (rows bottom-up, left → right), after an append.
    fn next_tile(&mut self) {
        if self.tx == self.bx1 {
            self.ty += 1;
            self.tx = self.bx0;
            self.rowbase += self.tiles_x;
        } else {
            self.tx += 1;
        }
    }
}

impl CycleModel for BinnerCycle {
    type In = BinBox;
    type Out = BinWrite;

    fn out(&self) -> (bool, BinWrite) {
        self.emitter.out()
    }

    fn in_ready(&self, _out_ready: bool) -> bool {
        self.emitter.state() == ListSt::Idle
    }

    fn clock(&mut self, in_valid: bool, inp: &BinBox, out_ready: bool, flush: bool) {
        if flush {
            self.reset_regs();
            return;
        }
        let st = self.emitter.state();
        let take = st == ListSt::Idle && in_valid;
        let last_tile = self.tx == self.bx1 && self.ty == self.by1;
        let owner = ListOwner {
            start: take && !inp.end,
            finish: take && inp.end,
            list: self.rowbase + self.tx,
            rec: &[self.prim],
            after: if last_tile {
                AfterAppend::Idle
            } else {
                AfterAppend::Read
            },
        };
        let appended = self.emitter.clock(out_ready, owner);
        if appended {
            self.stats.tiles += 1;
            if !last_tile {
                self.next_tile();
            }
        }
        if take && inp.end {
            self.stats.frames += 1;
        } else if take {
            debug_assert!(inp.prim < 1 << 24 && inp.x1 < 1 << 12 && inp.y1 < 1 << 12);
            self.stats.boxes += 1;
            self.prim = inp.prim;
            self.bx0 = inp.x0 >> self.sx;
            self.bx1 = inp.x1 >> self.sx;
            self.by0 = inp.y0 >> self.sy;
            self.by1 = inp.y1 >> self.sy;
        }
        if st == ListSt::Own {
            // Setup: the one multiply, alone in its cycle.
            self.rowbase = self.by0 * self.tiles_x;
            self.tx = self.bx0;
            self.ty = self.by0;
        }
    }
}

crate::cycle_model_signature! {
    /// binner's ports: primitive boxes and frame ends in, list writes out on the memory port.
    pub Binner "binner" for BinnerCycle: BinBox -> BinWrite
}
