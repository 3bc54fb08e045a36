//! The whole frame as the RTL `frame` top runs it (SPEC §1; the hardware of issue 16): the map
//! of its one memory port, the memory a frame leaves behind, which the frame top's memory must
//! equal byte for byte at frame end, and the top's cycle model [`FrameCycle`] (its rustdoc is
//! the top's timing contract) with [`run_frames`], which runs frames through it behind a
//! [`crate::memory_port::MemoryCycle`].
//!
//! ```text
//!             ┌──────────────────────────────────────── frame ──────────────────────────────────────────┐
//!  PrimIn ───►│ bin_setup ─BinBox─► binner                                                              │
//!  (in)       │    │ wr              │ wr(last) ─► SeqStart ─► tile_sequencer ─SeqCmd─┬─Cmd─► raster_core ─Beat─┐
//!             │    │                 │                          │ lrd/lrsp  prd/prsp  └─depth─► depth FIFO ─────┤
//!             │    │                 │                          │                                   PiBeat ◄─┘
//!             │    │                 │                          │            pixel_info_write ◄───────┘
//!             │    │                 │                          │              │ wr(last) ─► PiStart ─► pixel_info_read
//!             │    │                 │                          │              │                 │ rd/rsp     │ PiRecord
//!             │    │                 │                          │              │                 │        shading_sort ─PixSamples─► pixel_back_end
//!             │    ▼                 ▼                          ▼              ▼                 ▼            │ rd/rsp               │ mem
//!             │  ═══════════════ memory arbiter: region base added, fixed priority, read-tag FIFO ════════════════════════════════│
//!             └─────────────────────────────── mem_req ▼ ▲ mem_resp ───────────── done (pulse, frame id) ────────────────────────┘
//! ```
//!
//! ```text
//!  byte address              region        written by          read by
//!  FRAMEBUFFER 0x0000_0000   framebuffer   pixel back end      pixel back end (dst, `framebuffer: keep` only)
//!  PRIMS       0x0400_0000   prim table    bin_setup           tile_sequencer, shading_sort
//!  BINS        0x0800_0000   bin lists     binner              tile_sequencer
//!  PIXEL_INFO  0x1000_0000   pixel info    pixel_info_write    pixel_info_read
//!  + SET_STRIDE 0x8000_0000  the same three regions for odd frame ids (set 1)
//! ```
//!
//! Every block addresses its own region from offset 0 (the layouts of [`crate::output_merger`],
//! [`crate::prim_table`], [`crate::binner`] and [`crate::pixel_info`]); the frame top's memory
//! arbiter adds the region's base, and for the prims, bins and pixel info the set of the frame
//! the client works on ([`set_base`]: even frame ids set 0, odd set 1). Two frames are in
//! flight at once, frame f + 1's Bin and Raster beside frame f's Pixel phase (seed 001's frame
//! id in every pixel-info record), each in its own set; the framebuffer is written only by the
//! Pixel phase, one frame after another. The framebuffer of the largest config (1920×1080, 4 colours
//! per pixel: 31.6 MiB) fits below [`PRIMS`]; 2^21 primitives (the shading point's id bits,
//! [`crate::shading_sort::PRIM_ID_BITS`]) fill the prim table's 64 MiB exactly; a frame whose
//! bins or pixel info outgrow their region is refused with the region's name ([`frame_memory`]).
//!
//! What the memory holds at frame end ([`frame_memory`]):
//! * the framebuffer: the frame's background in every slot, then what the back end wrote
//!   (golden's [`crate::output_merger::OutputMerger::memory`], as [`crate::pipeline::back_end_input`]
//!   renders it);
//! * the prim table: [`crate::prim_table::table`] of the frame's primitives;
//! * the bin lists: [`crate::binner::bin`] of the boxes setup keeps, closed;
//! * the pixel info: every quad of the frame pushed in raster order with its primitive's depth
//!   and the frame id, then closed ([`PixelInfoStore::finish_raster`]). Reading the lists back
//!   frees nothing in memory (golden frees host memory only), so they are still there.

mod cycle;
mod figures;
pub mod ram;
pub use cycle::*;
pub use figures::*;

use crate::memory_port::SparseMemory;
use crate::output_merger::Image;
use crate::pipeline::{back_end_input, raster_frame, PipelineError};
use crate::pixel_info::{Memory, PixelInfoStore};
use crate::scene::Frame;

/// Base of the framebuffer region.
pub const FRAMEBUFFER: u32 = 0;
/// Base of the primitive table region.
pub const PRIMS: u32 = 0x0400_0000;
/// Base of the bin-list region.
pub const BINS: u32 = 0x0800_0000;
/// Base of the pixel-info region (it runs to [`SET_STRIDE`]).
pub const PIXEL_INFO: u32 = 0x1000_0000;
/// The second set of the per-frame regions (prims, bins, pixel info) starts here: frame `f`
/// uses set `f & 1` ([`set_base`]), so that frame f + 1's Bin and Raster phases write one set
/// while frame f's Pixel phase reads the other. The framebuffer has one copy, at 0.
pub const SET_STRIDE: u32 = 0x8000_0000;

/// The regions of set 0 in address order: name, base, size in bytes (set 1's prims, bins and
/// pixel info are the same at + [`SET_STRIDE`]).
pub const REGIONS: [(&str, u32, u64); 4] = [
    ("framebuffer", FRAMEBUFFER, (PRIMS - FRAMEBUFFER) as u64),
    ("prims", PRIMS, (BINS - PRIMS) as u64),
    ("bins", BINS, (PIXEL_INFO - BINS) as u64),
    ("pixel_info", PIXEL_INFO, (SET_STRIDE - PIXEL_INFO) as u64),
];

/// What frame `fid` adds to its prims, bins and pixel-info addresses: its set's offset, 0 or
/// [`SET_STRIDE`] (the frame id's low bit as address bit 31).
pub const fn set_base(fid: u8) -> u32 {
    (fid as u32 & 1) << 31
}

/// Whether byte address `addr` belongs to frame `fid`'s memory: the framebuffer, or a region
/// of the frame's set ([`set_base`]). The other set is the next (or previous) frame's.
pub fn frame_owns(fid: u8, addr: u32) -> bool {
    addr < PRIMS || (addr & SET_STRIDE == set_base(fid) && addr & !SET_STRIDE >= PRIMS)
}

/// What a frame leaves in memory, and the bytes each region holds.
#[derive(Clone, Debug)]
pub struct FrameMemory {
    /// The whole address space at frame end.
    pub memory: SparseMemory,
    /// Bytes used per region, in [`REGIONS`] order.
    pub used: [u64; 4],
    /// The image the framebuffer holds (golden's `render_frame` image).
    pub image: Image,
}

/// Write `(offset, word)`s into region `region` of `m`; the error names the region when an
/// offset lies beyond it. Returns the bytes used (highest offset + 4).
fn place(
    m: &mut SparseMemory,
    region: usize,
    set: u32,
    words: impl Iterator<Item = (u64, u32)>,
) -> Result<u64, PipelineError> {
    let (name, base, size) = REGIONS[region];
    let base = base + set;
    let mut used = 0;
    for (off, w) in words {
        if off + 4 > size {
            return Err(PipelineError(format!(
                "frame memory: the {name} region ({size} bytes at {base:#010x}) cannot hold byte offset {off}"
            )));
        }
        m.write(base + off as u32, w, 0xf);
        used = used.max(off + 4);
    }
    Ok(used)
}

/// The words of a simulated memory, `(offset, word)` for every allocated word.
fn memory_words(mem: &Memory) -> impl Iterator<Item = (u64, u32)> + '_ {
    (0..mem.size() / 4).map(move |i| (4 * i, mem.peek_u32(4 * i).unwrap_or(0)))
}

/// The memory `frame` leaves behind as frame `frame_id` (module header), with the bytes each
/// region uses and the image. Errors name the field or region that does not fit.
pub fn frame_memory(frame: &Frame, frame_id: u8) -> Result<FrameMemory, PipelineError> {
    let cfg = &frame.cfg;
    let mut m = SparseMemory::new();
    let mut used = [0u64; 4];

    // Framebuffer: the back end's, over the background.
    let be = back_end_input(frame)?;
    let rec = be
        .back_end
        .ok_or_else(|| PipelineError("internal: no back-end record".into()))?;
    used[0] = place(&mut m, 0, 0, rec.memory.words().map(|(a, w)| (a as u64, w)))?;

    // Primitive table.
    let table = crate::prim_table::table(&frame.prims).map_err(PipelineError)?;
    let set = set_base(frame_id);
    used[1] = place(
        &mut m,
        1,
        set,
        table
            .chunks_exact(4)
            .enumerate()
            .map(|(i, c)| (4 * i as u64, u32::from_le_bytes([c[0], c[1], c[2], c[3]]))),
    )?;

    // Bin lists of the boxes setup keeps (as `pipeline::commands` bins them).
    let boxes: Vec<_> = frame
        .prims
        .iter()
        .enumerate()
        .filter_map(|(i, p)| crate::binner::prim_bbox(cfg, p).map(|b| (i as u32, b)))
        .collect();
    let bins = crate::binner::bin(cfg, &boxes)?;
    used[2] = place(&mut m, 2, set, memory_words(bins.memory()))?;

    // Pixel info: every quad in raster order, its primitive's depth, this frame's id.
    let raster = raster_frame(frame, false)?;
    let mut store = PixelInfoStore::new(cfg, frame_id)?;
    for tq in &raster.quads {
        store.push(&tq.quad, frame.prims[tq.quad.prim as usize].depth())?;
    }
    store.finish_raster()?;
    used[3] = place(&mut m, 3, set, memory_words(store.memory()))?;

    let image = crate::output_merger::image_from_memory(cfg, &m);
    Ok(FrameMemory { memory: m, used, image })
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::binner::BIN_CHUNK_BYTES;
    use crate::prim_table::{decode, entry, PRIM_BYTES, PRIM_WORDS};
    use crate::scene::Scene;

    fn default_frame() -> Frame {
        Scene::builtin_default().to_frame("builtin").unwrap()
    }

    #[test]
    fn regions_are_ordered_disjoint_and_fit_every_preset_framebuffer() {
        for w in REGIONS.windows(2) {
            assert_eq!(
                w[0].1 as u64 + w[0].2,
                w[1].1 as u64,
                "{} ends where {} starts",
                w[0].0,
                w[1].0
            );
        }
        for p in ["ice40_1x", "ice40", "default", "full"] {
            let c = crate::Config::preset(p).unwrap();
            let fb = 4 * c.viewport[0] as u64 * c.viewport[1] as u64 * c.colours_per_pixel as u64;
            assert!(fb <= REGIONS[0].2, "{p}: framebuffer {fb} bytes");
        }
        assert_eq!(REGIONS[1].2, (PRIM_BYTES as u64) << crate::shading_sort::PRIM_ID_BITS);
    }

    /// Each region read back through its own decoder gives what the pipeline computes from
    /// the frame: the image, the primitives, the commands' tile lists, the quads.
    #[test]
    fn the_default_frame_memory_decodes_to_the_golden_render() {
        let frame = default_frame();
        let fm = frame_memory(&frame, 7).unwrap();
        // Frame 7 uses the second set.
        let set = set_base(7);
        assert_eq!(set, SET_STRIDE);
        let (prims, bins, pixel_info) = (PRIMS + set, BINS + set, PIXEL_INFO + set);
        assert!(fm
            .memory
            .words()
            .all(|(a, _)| frame_owns(7, a) && (a < PRIMS || !frame_owns(6, a))));
        assert!(fm.used.iter().all(|&u| u > 0), "every region used: {:?}", fm.used);
        // Framebuffer → render_frame's image (and some pixel not the background).
        let golden = crate::pipeline::render_frame(&frame).unwrap();
        assert_eq!(fm.image.rgba, golden.image.rgba);
        assert!(
            fm.image.rgba.chunks(4).any(|p| p != frame.background),
            "something drawn"
        );
        // Prim table → every primitive's entry.
        for (i, p) in frame.prims.iter().enumerate() {
            let base = prims + i as u32 * PRIM_BYTES;
            let w: [u32; PRIM_WORDS as usize] = std::array::from_fn(|k| fm.memory.read(base + 4 * k as u32));
            assert_eq!(decode(&w), entry(p).unwrap(), "prims[{i}]");
        }
        // Bins → the commands' (tile, prim) sequence, walking the lists from the memory image.
        let cmds = crate::pipeline::commands(&frame).unwrap();
        assert!(!cmds.is_empty());
        let tiles = frame.cfg.tiles();
        let mut walked = Vec::new();
        for ty in 0..tiles[1] {
            for tx in 0..tiles[0] {
                let t = ty * tiles[0] + tx;
                let mut blk = fm.memory.read(bins + 8 * t);
                let n = fm.memory.read(bins + 8 * t + 4);
                let per = (BIN_CHUNK_BYTES - 4) / 4;
                for k in 0..n {
                    if k > 0 && k.is_multiple_of(per) {
                        blk = fm.memory.read(bins + blk * BIN_CHUNK_BYTES);
                    }
                    let prim = fm.memory.read(bins + blk * BIN_CHUNK_BYTES + 4 + 4 * (k % per));
                    walked.push((tx, ty, prim));
                }
            }
        }
        let want: Vec<_> = cmds.iter().map(|c| (c.tile_x, c.tile_y, c.prim)).collect();
        assert_eq!(walked, want);
        // Pixel info → per second tile, walking its list in the memory image, the records of
        // the quads in it, in raster order, with their depth and frame id 7.
        let cfg = &frame.cfg;
        let [sw, sh] = cfg.second_tile;
        let [nx, ny] = [cfg.viewport[0].div_ceil(sw), cfg.viewport[1].div_ceil(sh)];
        let b = cfg.pixel_info_block_bytes;
        let r = crate::pixel_info::record_bytes(cfg.msaa);
        let per = (b - 4) / r;
        let quads = &golden.raster.quads;
        assert!(quads.len() > 100, "{} quads", quads.len());
        let mut records = 0;
        for sy in 0..ny {
            for sx in 0..nx {
                let t = sy * nx + sx;
                let mut blk = fm.memory.read(pixel_info + 8 * t);
                let n = fm.memory.read(pixel_info + 8 * t + 4);
                let want: Vec<_> = quads
                    .iter()
                    .map(|tq| tq.quad)
                    .filter(|q| 2 * q.qx as u32 / sw == sx && 2 * q.qy as u32 / sh == sy)
                    .collect();
                assert_eq!(n as usize, want.len(), "second tile ({sx}, {sy})");
                for (k, q) in want.iter().enumerate() {
                    let k = k as u32;
                    if k > 0 && k.is_multiple_of(per) {
                        blk = fm.memory.read(pixel_info + blk * b);
                    }
                    let a = pixel_info + blk * b + 4 + r * (k % per);
                    let (w0, w1, w2) = (fm.memory.read(a), fm.memory.read(a + 4), fm.memory.read(a + 8));
                    let depth = frame.prims[q.prim as usize].depth();
                    assert_eq!(w0, depth | 7 << 24, "record {k} of ({sx}, {sy}): depth, frame");
                    assert_eq!(w1, q.prim);
                    let (qx, qy) = (q.qx as u32 - sx * sw / 2, q.qy as u32 - sy * sh / 2);
                    assert_eq!(w2, qx | qy << 8 | (q.mask as u32 & 0xffff) << 16);
                    records += 1;
                }
            }
        }
        assert_eq!(records, quads.len());
    }

    #[test]
    fn a_region_overflow_is_named() {
        let mut m = SparseMemory::new();
        let e = place(&mut m, 1, 0, [(REGIONS[1].2, 1u32)].into_iter()).unwrap_err();
        assert!(e.0.contains("the prims region"), "{e}");
    }
}
