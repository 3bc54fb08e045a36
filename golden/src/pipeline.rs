//! The whole golden pipeline for one frame (SPEC §1), streamed first tile by first tile so that
//! the host holds the tiles in flight, not the frame's quads:
//!
//! ```text
//!  Frame ─► setup ─► binner (001): per first tile, the primitives touching it
//!                      │
//!   for each first tile T, in tile order (rows bottom-up, left→right):
//!   ┌──────────────────┼───────────────────────────────────────────────────────────────────┐
//!   │                  ▼ per listed primitive (submission order)                            │
//!   │   raster (000: tile parser → sub-tile coverage → sample raster → quad packer)         │
//!   │   or point_raster (003) ─► quads of (T, prim) ─┬─► sink: Event::Quads (+ SubTile)     │
//!   │                                                ▼                                      │
//!   │          pixel_info store (001): append to the list of each quad's second tile        │
//!   │                                                │                                      │
//!   │   T done: every second tile S whose last overlapping first tile is T is complete:     │
//!   │     close S's list, read it back, free its blocks ─► shading_sort (002)               │
//!   │     ─► pixel_processor (000) ─► S's blend samples ─► queue (by S, row-major)          │
//!   │   the queue's head run (next S in rows bottom-up, left→right) ─► blender (004),       │
//!   │     merge on and off, one sample at a time ─► output_merger (writes the framebuffer)  │
//!   └────────────────────────────────────────────────► sink: Event::TileDone(T) ───────────┘
//!  end: drain the blenders ─► stats, Image
//! ```
//!
//! **Why it equals the collecting pipeline.** Seed 001 starts the pixel side after every first
//! tile is rasterized; the model computes the same results earlier. A quad lies inside the
//! first tile it was emitted for, so once the last first tile overlapping a second tile (its
//! top-right one, in tile order) is done, that second tile's list is final: reading it then
//! gives the records, in push order, that reading it after the whole frame would. Closing the
//! list writes exactly the table entry and tail pointer `finish_raster` would, so the
//! simulated traffic and footprint ([`PixelInfoStats`]) are unchanged; freeing only releases
//! host memory. Shading, pixel and pixel-info counters are sums over second tiles. The blender
//! is a cycle model whose pool and in-flight matching reach across tile boundaries, so its
//! stream keeps the collecting order, second tiles rows bottom-up, left→right: a second tile
//! completed early (e.g. the upper one of two stacked in a first tile) waits in the queue, at
//! most a band of second tiles as tall as a first tile. The blender itself
//! ([`StreamBlender`]) runs a cycle only when its arrivals are known, so its cycles and
//! [`BlendStats`] are those of one run over the whole stream. `tests/stream.rs` checks all of
//! this against a kept copy of the collecting pipeline.
//!
//! **What is held** ([`HeldStats`]), in the stream order above: one (tile, primitive) batch of
//! quads; the pixel-info records of second tiles still open (those of the first tiles from a
//! second tile's first to its last, in tile order: one first tile on `full`, two on
//! `default`); the queued blend samples; the framebuffer (`viewport × colours_per_pixel`), the
//! image, the pixel-info list table, per-primitive setup and bins. Overdraw in one first tile
//! still costs host memory (its records are held until its second tiles are read). The
//! parallel run below holds a few windows of first tiles on top.
//!
//! **Parallel.** The run spreads first tiles and second tiles over the threads of the rayon
//! pool it is called in (the global pool, sized by `RAYON_NUM_THREADS` or the core count,
//! unless the caller is inside `ThreadPool::install`). First tiles go in windows of
//! consecutive ones in tile order, `WINDOW_TILES_PER_THREAD` (4) per thread, fewer when a
//! window's completed second tiles would hold more than `WINDOW_BLEND_BYTES` (16 MiB) of blend
//! samples or its batches more than `WINDOW_QUAD_BYTES` (64 MiB) of quads, bounded by every
//! listed primitive covering its whole tile (at least one first tile). Per window:
//!
//! 1. its bin lists are read, in tile order (serial: the list memory counts its reads);
//! 2. each first tile's raster side is made as one task ([`Event::Quads`] batches, sub-tile
//!    events and the tile's own raster and point counters), in parallel;
//! 3. serially, tile by tile in tile order, exactly as above: the tile's quads are pushed to
//!    the pixel-info store, then the second tiles it completes are taken back, so block
//!    addresses, traffic, footprint and the held marks do not change;
//! 4. each taken second tile is shaded (002) and resolved (000) as one task, in parallel;
//! 5. serially, tile by tile: the events go to the sink, the counters are added, the shaded
//!    second tiles join the queue and the queue's head run becomes the tile's blend step.
//!
//! Tasks' results are collected in task order (rayon's indexed `collect`), never in the order
//! they finish, and every counter of a task is a plain sum, added in tile order. The two
//! blenders are cycle models over the whole stream, so each stays one serial stage: the
//! merged one (and the framebuffer it writes) runs the previous window's blend steps while
//! this window is made, the unmerged one the window before that; each is fed the serial
//! stream's samples in its order, so cycles, [`BlendStats`] and the image are unchanged. A
//! sample's `dst` is read from the colour buffer just before it enters the merged blender
//! rather than when its tile is shaded: a slot is blended once per frame, so both reads give
//! the background. An error of steps 1–4 is kept with its place and returned when step 5
//! reaches it, after the events the serial order sends before it. What stays serial (steps 1,
//! 3 and 5 on the calling thread, each blender on one thread) bounds the speed-up: on frames
//! whose blend stream is most of the work, few threads already reach it. A 1-thread pool runs
//! the same code with the tasks one after the other; `tests/parallel.rs` checks that 1, 3 and
//! 4 threads give the same events, image, statistics and held marks, and `benches/threads.rs`
//! measures the speed-up.
//!
//! Quad order of the whole frame (the raster-side contract): first tiles in rows bottom-up,
//! left→right; inside a tile, primitives in submission order; inside a (tile, primitive), the
//! order of `quad_packer` (triangles) or `point_raster` (points).
//!
//! [`raster_frame`] and [`render_frame`] are collecting wrappers (every quad kept) for tests,
//! `explore` and co-simulation; `tilerast render` and `raster` use the streams.
//!
//! [`commands`] is the raster core's input for a frame ([`Cmd`]s, binned as above), which the
//! host loads into the FPGA top and the RTL tests drive.

use crate::binner::{self, BinStats};
use crate::blender::{pipeline_blend, BlendOpts, BlendSample, BlendStats, StreamBlender};
use crate::colour_buffer::BufferLayout;
use crate::config::Config;
use crate::memory_port::SparseMemory;
use crate::output_merger::{self, Image, OutputMerger};
use crate::pixel_info::{PixelInfo, PixelInfoStats, PixelInfoStore, StoreError};
use crate::pixel_processor::{self, PixelStats};
use crate::point_raster::{self, PointStats};
use crate::raster::{self, RasterStats};
use crate::scene::Frame;
use crate::setup::{self, PixelBox, SetupReject, TriSetup};
use crate::shading_sort::{self, ShadeStats};
use crate::streams::{Cmd, PixSamples};
use crate::subtile_coverage::SubtileFate;
use crate::{PointFx, PrimitiveFx, Quad, Rgba};
use rayon::prelude::*;
use std::collections::BTreeMap;
use std::fmt;

/// A quad with the first tile it was emitted for.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct TileQuad {
    pub tile: [u32; 2],
    pub quad: Quad,
}

/// Classification of one first sub-tile for one primitive (for overlays).
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum SubTileClass {
    RejectedRow,
    RejectedColumn,
    RejectedTest,
    Partial,
    TrivialAccept,
}

/// One first sub-tile's fate (for `--overlay subtiles`).
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct SubTileEvent {
    pub prim: u32,
    /// Pixel rectangle `[x0, x0 + w) × [y0, y0 + h)`.
    pub x0: u32,
    pub y0: u32,
    pub w: u32,
    pub h: u32,
    pub class: SubTileClass,
}

/// Result of the raster side.
#[derive(Clone, Debug, Default)]
pub struct RasterOutput {
    pub quads: Vec<TileQuad>,
    /// Per point primitive: (primitive id, fragments = pixels lit).
    pub point_fragments: Vec<(u32, u64)>,
    /// Filled when tracing was requested.
    pub subtiles: Vec<SubTileEvent>,
    pub stats: FrameStats,
}

/// Result of the whole pipeline.
#[derive(Clone, Debug)]
pub struct RenderOutput {
    pub image: Image,
    pub raster: RasterOutput,
}

/// Front-end / setup counters.
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq)]
pub struct SetupStats {
    pub prims: u64,
    pub triangles: u64,
    pub points: u64,
    pub zero_area: u64,
    pub culled: u64,
    pub offscreen: u64,
}

/// Per-frame statistics of every stage.
#[derive(Clone, Debug, Default)]
pub struct FrameStats {
    pub setup: SetupStats,
    pub bin: BinStats,
    pub raster: RasterStats,
    pub point: PointStats,
    /// Quads leaving the raster side (triangles and points).
    pub quads: u64,
    /// Samples covered by those quads.
    pub covered_samples: u64,
    pub pixel_info: PixelInfoStats,
    pub shade: ShadeStats,
    pub pixel: PixelStats,
    /// Blender with sample-pool merge (per-sample compare, in-flight match).
    pub blend: BlendStats,
    /// The same blender stream without merging, for the comparison.
    pub blend_nomerge: BlendStats,
    pub framebuffer_bytes: u64,
}

impl FrameStats {
    /// Named figures, in a fixed order, for tables and CSV (`tilerast explore`).
    pub fn rows(&self) -> Vec<(&'static str, f64)> {
        let c = &self.raster.coverage;
        let p = &self.raster.packer;
        let util = if p.block_pixel_capacity == 0 {
            0.0
        } else {
            p.block_pixels_stored as f64 / p.block_pixel_capacity as f64
        };
        let reuse = if self.shade.shading_invocations == 0 {
            0.0
        } else {
            self.shade.visible_samples as f64 / self.shade.shading_invocations as f64
        };
        vec![
            ("prims", self.setup.prims as f64),
            ("triangles", self.setup.triangles as f64),
            ("points", self.setup.points as f64),
            ("prim_list_bytes", self.bin.bytes_written as f64),
            ("bin_entries", self.bin.entries as f64),
            ("subtiles_walked", c.walked as f64),
            ("subtiles_rejected_row", c.subtiles_rejected_row as f64),
            ("subtiles_rejected_col", c.subtiles_rejected_col as f64),
            ("subtiles_rejected_test", c.subtiles_rejected_test as f64),
            ("subtiles_trivial", c.trivial as f64),
            ("subtiles_partial", c.partial as f64),
            ("samples_tested", self.raster.sample.samples_tested as f64),
            ("quads", self.quads as f64),
            ("covered_samples", self.covered_samples as f64),
            ("point_fragments", self.point.fragments as f64),
            ("second_subtiles", p.second_subtiles as f64),
            ("storage_blocks", p.storage_blocks as f64),
            ("shared_blocks", p.shared_blocks as f64),
            ("block_utilisation", util),
            ("pixel_info_bytes_written", self.pixel_info.bytes_written as f64),
            ("pixel_info_bytes_read", self.pixel_info.bytes_read as f64),
            ("sort_passes", self.shade.sort_passes as f64),
            ("sort_bytes", self.shade.sort_bytes as f64),
            ("visible_samples", self.shade.visible_samples as f64),
            ("shading_invocations", self.shade.shading_invocations as f64),
            ("shading_reuse", reuse),
            ("blend_cycles", self.blend.cycles as f64),
            ("blend_cycles_nomerge", self.blend_nomerge.cycles as f64),
            (
                "blend_cycles_saved",
                self.blend_nomerge.cycles.saturating_sub(self.blend.cycles) as f64,
            ),
            ("blend_ops", self.blend.blend_ops as f64),
            ("blend_ops_nomerge", self.blend_nomerge.blend_ops as f64),
            ("framebuffer_bytes", self.framebuffer_bytes as f64),
        ]
    }
}

/// A pipeline failure (a limit of a memory or id field was exceeded); names the field.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct PipelineError(pub String);

impl fmt::Display for PipelineError {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.write_str(&self.0)
    }
}
impl std::error::Error for PipelineError {}

impl From<StoreError> for PipelineError {
    fn from(e: StoreError) -> Self {
        PipelineError(e.to_string())
    }
}

/// A primitive after setup.
#[derive(Clone, Copy, Debug)]
enum Setup {
    Tri(TriSetup),
    Point(PointFx),
}

fn class_of(f: SubtileFate) -> SubTileClass {
    match f {
        SubtileFate::RejectedRow => SubTileClass::RejectedRow,
        SubtileFate::RejectedColumn => SubTileClass::RejectedColumn,
        SubtileFate::RejectedTest => SubTileClass::RejectedTest,
        SubtileFate::Trivial => SubTileClass::TrivialAccept,
        SubtileFate::Partial => SubTileClass::Partial,
    }
}

/// What the streaming pipeline hands its sink, in pipeline order.
#[derive(Clone, Copy, Debug)]
pub enum Event<'a> {
    /// The quads of one primitive in one first tile, in the raster side's order (module
    /// header); never empty.
    Quads { tile: [u32; 2], quads: &'a [Quad] },
    /// One first sub-tile's fate (only when tracing), before that primitive's quads.
    SubTile(SubTileEvent),
    /// Every primitive listed for first tile `tile` is rasterized (and, when rendering, the
    /// second tiles it completed are shaded).
    TileDone([u32; 2]),
}

/// The most the streaming pipeline held at once on the host (not the modelled hardware's
/// memories, which [`FrameStats`] counts). Everything here is bounded by tiles in flight.
/// These are the marks of the stream order, one first tile after the other, and do not depend
/// on the number of threads; the parallel run holds up to three windows of first tiles on top
/// (module header, "Parallel").
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq)]
pub struct HeldStats {
    /// Quads of one (first tile, primitive) batch.
    pub quads: u64,
    /// Pixel-info records pushed and not yet read back (lists of second tiles that a first
    /// tile still to come can reach).
    pub records: u64,
    /// Blend samples waiting: shaded second tiles queued for their turn in the blend stream
    /// (rows bottom-up, left→right), plus the blenders' windows.
    pub blend_samples: u64,
    /// Host bytes of the simulated pixel-info memory (live chunks).
    pub pixel_info_resident: u64,
}

/// Result of [`raster_stream`] / [`render_stream`]: what is not streamed to the sink.
#[derive(Clone, Debug, Default)]
pub struct StreamOutput {
    /// Per point primitive: (primitive id, fragments = pixels lit).
    pub point_fragments: Vec<(u32, u64)>,
    pub stats: FrameStats,
    /// The image ([`render_stream`] only).
    pub image: Option<Image>,
    /// High-water marks of what was held.
    pub held: HeldStats,
    /// The pixel back end's input stream and the framebuffer memory it must leave
    /// ([`back_end_input`] only).
    pub back_end: Option<BackEndRecord>,
}

/// What [`back_end_input`] records for the pixel back end.
#[derive(Clone, Debug, Default)]
pub struct BackEndRecord {
    /// The back end's input, one pixel per beat, in order.
    pub input: Vec<PixSamples>,
    /// The frame's background (the framebuffer's initial value in every slot).
    pub background: Rgba,
    /// The framebuffer's bytes at the end of the frame ([`OutputMerger::memory`]).
    pub memory: SparseMemory,
}

/// Setup of every primitive: the set-up primitives and the bounding boxes to bin.
fn setup_frame(frame: &Frame, st: &mut FrameStats) -> (Vec<Option<Setup>>, Vec<(u32, PixelBox)>) {
    let cfg = &frame.cfg;
    let mut setups: Vec<Option<Setup>> = Vec::with_capacity(frame.prims.len());
    let mut boxes: Vec<(u32, PixelBox)> = Vec::with_capacity(frame.prims.len());
    for (i, p) in frame.prims.iter().enumerate() {
        st.setup.prims += 1;
        let s = match p {
            PrimitiveFx::Triangle(t) => {
                st.setup.triangles += 1;
                match setup::setup_triangle(cfg, t) {
                    Ok(s) => {
                        boxes.push((i as u32, s.bbox));
                        Some(Setup::Tri(s))
                    }
                    Err(SetupReject::ZeroArea) => {
                        st.setup.zero_area += 1;
                        None
                    }
                    Err(SetupReject::Culled) => {
                        st.setup.culled += 1;
                        None
                    }
                    Err(SetupReject::Offscreen) => {
                        st.setup.offscreen += 1;
                        None
                    }
                }
            }
            PrimitiveFx::Point(q) => {
                st.setup.points += 1;
                st.point.points += 1;
                match point_raster::point_bbox(cfg, q) {
                    Some(b) => {
                        boxes.push((i as u32, b));
                        Some(Setup::Point(*q))
                    }
                    None => {
                        st.setup.offscreen += 1;
                        None
                    }
                }
            }
        };
        setups.push(s);
    }
    (setups, boxes)
}

/// Stream the raster side (setup, binning, seed 000 / 003) of a frame: every quad goes to
/// `sink` as it is made, first tile by first tile; with `trace`, every first sub-tile's
/// classification too. Only one (tile, primitive) batch of quads is held. A sink error stops
/// the run and is returned.
pub fn raster_stream<E: From<PipelineError>>(
    frame: &Frame,
    trace: bool,
    sink: impl FnMut(Event<'_>) -> Result<(), E>,
) -> Result<StreamOutput, E> {
    run(frame, trace, false, false, sink)
}

/// Stream the whole pipeline: [`raster_stream`]'s events go to `sink`, and the pixel side runs
/// per second tile as soon as the last first tile reaching it is rasterized, so that only the
/// tiles in flight are held (module header). The image and every statistic equal those of
/// processing the whole frame's quads at once.
pub fn render_stream<E: From<PipelineError>>(
    frame: &Frame,
    trace: bool,
    sink: impl FnMut(Event<'_>) -> Result<(), E>,
) -> Result<StreamOutput, E> {
    run(frame, trace, true, false, sink)
}

/// A lower bound on the quads (so pixel-info records) a frame's triangles emit, from geometry
/// alone: per triangle that setup keeps, its part inside the viewport (a convex polygon of
/// area A and perimeter P, in pixels) contains the region at least 3 px from its boundary,
/// whose area is at least A − 3·P; every 2×2 quad meeting that region lies inside the triangle
/// with a margin of more than 0.17 px (its diagonal is 2√2 < 3), so all its samples are
/// covered, and those quads cover the region: at least (A − 3·P) / 4 of them. Points count 0.
pub fn min_quads(frame: &Frame) -> u64 {
    let [w, h] = frame.cfg.viewport.map(|v| v as f64);
    let mut total = 0u64;
    for p in &frame.prims {
        let PrimitiveFx::Triangle(t) = p else { continue };
        if setup::setup_triangle(&frame.cfg, t).is_err() {
            continue;
        }
        let mut poly: Vec<[f64; 2]> = t.v.iter().map(|v| [v[0] as f64 / 256.0, v[1] as f64 / 256.0]).collect();
        // Sutherland–Hodgman against x ≥ 0, x ≤ w, y ≥ 0, y ≤ h.
        for (axis, bound, keep_below) in [(0, 0.0, false), (0, w, true), (1, 0.0, false), (1, h, true)] {
            let inside = |q: &[f64; 2]| if keep_below { q[axis] <= bound } else { q[axis] >= bound };
            let mut next = Vec::with_capacity(poly.len() + 2);
            for i in 0..poly.len() {
                let (a, b) = (poly[i], poly[(i + 1) % poly.len()]);
                if inside(&a) {
                    next.push(a);
                }
                if inside(&a) != inside(&b) {
                    let f = (bound - a[axis]) / (b[axis] - a[axis]);
                    next.push([a[0] + f * (b[0] - a[0]), a[1] + f * (b[1] - a[1])]);
                }
            }
            poly = next;
            if poly.len() < 3 {
                break;
            }
        }
        if poly.len() < 3 {
            continue;
        }
        let n = poly.len();
        let area = (0..n)
            .map(|i| poly[i][0] * poly[(i + 1) % n][1] - poly[(i + 1) % n][0] * poly[i][1])
            .sum::<f64>()
            .abs()
            / 2.0;
        let perimeter: f64 = (0..n)
            .map(|i| (poly[(i + 1) % n][0] - poly[i][0]).hypot(poly[(i + 1) % n][1] - poly[i][1]))
            .sum();
        let inner = area - 3.0 * perimeter;
        if inner > 0.0 {
            total += (inner / 4.0).floor() as u64;
        }
    }
    total
}

/// Refuse up front a frame whose pixel info cannot fit the modelled pixel-info memory
/// ([`pixel_info::min_memory_bytes`] of [`min_quads`]), with the size it would need.
pub fn check_pixel_info_fits(frame: &Frame) -> Result<(), PipelineError> {
    let q = min_quads(frame);
    let need = crate::pixel_info::min_memory_bytes(&frame.cfg, q);
    let space = crate::pixel_info::address_space(frame.cfg.pixel_info_block_bytes);
    if need > space {
        return Err(PipelineError(format!(
            "pixel_info: this frame needs at least {need} bytes ({}) of pixel-info memory for at \
             least {q} quads of pixel info (seed 001 keeps a whole frame's until the pixel side starts), \
             more than the {} that 32-bit indices of {}-byte blocks reach; refused before rasterizing",
            crate::pixel_info::bytes_text(need),
            crate::pixel_info::bytes_text(space),
            frame.cfg.pixel_info_block_bytes
        )));
    }
    Ok(())
}

/// First tiles per window of the parallel pipeline, per thread of the rayon pool it runs in
/// (module header, "Parallel"): enough tiles for work stealing to even out uneven ones.
const WINDOW_TILES_PER_THREAD: usize = 4;

/// Most bytes of blend samples the second tiles completed by one window may hold; caps the
/// window on configs with large second tiles and many colours per pixel.
const WINDOW_BLEND_BYTES: u64 = 16 << 20;

/// Bytes of blend samples one first tile can complete: the second tiles whose last
/// overlapping first tile (in tile order) it is, each of `second_tile` pixels × C slots.
fn completed_blend_bytes_per_tile(cfg: &Config) -> u64 {
    let [tw, th] = cfg.tile.map(u64::from);
    let [sw, sh] = cfg.second_tile.map(u64::from);
    tw.div_ceil(sw)
        * th.div_ceil(sh)
        * sw
        * sh
        * cfg.colours_per_pixel as u64
        * std::mem::size_of::<BlendSample>() as u64
}

/// Most host bytes of a window's batches of quads, as bounded by [`batch_bytes_bound`]: a
/// window closes once its bin lists reach it (a single first tile may exceed it, as in the
/// stream order).
const WINDOW_QUAD_BYTES: u64 = 64 << 20;

/// Most host bytes of one (first tile, primitive) batch's quads: every quad of the tile.
fn batch_bytes_bound(cfg: &Config) -> u64 {
    let [tw, th] = cfg.tile.map(u64::from);
    tw.div_ceil(2) * th.div_ceil(2) * std::mem::size_of::<Quad>() as u64
}

/// First tiles per window for `cfg` in a pool of `threads` threads: [`WINDOW_TILES_PER_THREAD`]
/// per thread, capped by [`WINDOW_BLEND_BYTES`], at least one.
fn window_tiles(cfg: &Config, threads: usize) -> usize {
    let cap = (WINDOW_BLEND_BYTES / completed_blend_bytes_per_tile(cfg).max(1)).max(1);
    (WINDOW_TILES_PER_THREAD * threads.max(1)).min(cap as usize)
}

/// One (first tile, primitive) batch of the raster side.
struct Batch {
    prim: u32,
    /// The primitive's quads in the tile, in the raster side's order (may be empty).
    quads: Vec<Quad>,
    /// Its first sub-tile events in walk order (only when tracing).
    subtiles: Vec<SubTileEvent>,
    /// Pixels lit (points; 0 for triangles).
    fragments: u64,
}

/// One first tile's raster side: a batch per listed primitive, in list (submission) order,
/// and the counters of making them.
#[derive(Default)]
struct TileRaster {
    batches: Vec<Batch>,
    raster: RasterStats,
    point: PointStats,
}

/// Rasterize every primitive of first tile `t`'s bin list `list` (one task of the parallel
/// raster pass; the triangle path uses its thread's [`raster::Rasterizer`] scratch, whose history
/// changes no output).
fn raster_tile(cfg: &Config, setups: &[Option<Setup>], t: [u32; 2], list: &[u32], trace: bool) -> TileRaster {
    let mut out = TileRaster {
        batches: Vec::with_capacity(list.len()),
        ..TileRaster::default()
    };
    for &prim in list {
        let mut quads = Vec::new();
        let mut subtiles = Vec::new();
        let mut fragments = 0;
        match setups[prim as usize]
            .as_ref()
            .expect("only set-up primitives are binned")
        {
            Setup::Tri(s) => {
                if trace {
                    raster::raster_triangle_tile_traced(cfg, s, prim, t, &mut out.raster, &mut quads, |sub, fate| {
                        subtiles.push(SubTileEvent {
                            prim,
                            x0: sub.rect.x0,
                            y0: sub.rect.y0,
                            w: sub.rect.width(),
                            h: sub.rect.height(),
                            class: class_of(fate),
                        })
                    });
                } else {
                    raster::raster_triangle_tile_into(cfg, s, prim, t, &mut out.raster, &mut quads);
                }
            }
            Setup::Point(p) => {
                quads = point_raster::raster_point_tile(cfg, p, prim, t, &mut out.point);
                fragments = quads
                    .iter()
                    .map(|q| (0..4).filter(|&i| q.pixel_mask(i, cfg.msaa) != 0).count() as u64)
                    .sum::<u64>();
            }
        }
        out.batches.push(Batch {
            prim,
            quads,
            subtiles,
            fragments,
        });
    }
    out
}

/// Where in a window the serial pipeline meets an error of the window's serial passes (bin
/// lists, pixel-info store): the error is returned at that point of the event stream, after
/// the events the serial pipeline sends before it.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
enum StopAt {
    /// Reading the tile's bin list (before any of its events).
    List,
    /// Pushing batch `b`'s quads (after its sub-tile events, before its quads).
    Push(usize),
    /// Taking the tile's `k`-th completed second tile (after the first `k` are shaded).
    Take(usize),
}

/// A window's serial-pass error: the window tile it stopped in, where, and the error.
type Stop = (usize, StopAt, PipelineError);

/// The window's error if it stopped in window tile `tile` at a place `at` accepts.
fn stopped_at(stop: &mut Option<Stop>, tile: usize, at: impl Fn(StopAt) -> bool) -> Option<PipelineError> {
    stop.take_if(|(i, place, _)| *i == tile && at(*place)).map(|(.., e)| e)
}

fn run<E: From<PipelineError>>(
    frame: &Frame,
    trace: bool,
    render: bool,
    scatter: bool,
    mut sink: impl FnMut(Event<'_>) -> Result<(), E>,
) -> Result<StreamOutput, E> {
    let cfg = &frame.cfg;
    if render {
        check_pixel_info_fits(frame)?;
    }
    let mut out = StreamOutput::default();
    let (setups, boxes) = setup_frame(frame, &mut out.stats);
    // Binning (001): per first tile, the primitives touching it.
    let mut bins = binner::bin(cfg, &boxes).map_err(PipelineError::from)?;
    let mut pix = if render {
        Some((
            PixelSide::new(frame, scatter)?,
            MergedBlend::new(frame),
            UnmergedBlend::new(cfg),
        ))
    } else {
        None
    };
    let mut fragments: Vec<u64> = vec![0; frame.prims.len()];
    let order: Vec<[u32; 2]> = bins.tile_order().collect();
    let max_tiles = window_tiles(cfg, rayon::current_num_threads());
    let batch_bytes = batch_bytes_bound(cfg);
    // Blend steps due: the window before's, for the merged blender (which reads their `dst`),
    // and the one before that's, for the unmerged one; both run while this window is made.
    let mut merged_due: Vec<BlendStep> = Vec::new();
    let mut unmerged_due: Vec<BlendStep> = Vec::new();
    let mut next = 0;
    while next < order.len() {
        // 1. The window's bin lists, in tile order (serial: the list memory counts its reads):
        // up to `max_tiles` first tiles, fewer once their batches may hold WINDOW_QUAD_BYTES.
        let mut stop: Option<Stop> = None;
        let mut lists: Vec<Vec<u32>> = Vec::with_capacity(max_tiles);
        let mut bound = 0u64;
        while next + lists.len() < order.len() && lists.len() < max_tiles && bound < WINDOW_QUAD_BYTES {
            match bins.read_tile(order[next + lists.len()]) {
                Ok(l) => {
                    bound += l.len() as u64 * batch_bytes;
                    lists.push(l);
                }
                Err(e) => {
                    stop = Some((lists.len(), StopAt::List, e.into()));
                    break;
                }
            }
        }
        let tiles = &order[next..next + lists.len() + stop.is_some() as usize];
        next += tiles.len();
        let (mut side, stages) = match pix.as_mut() {
            Some((side, merged, unmerged)) => (Some(side), Some((merged, unmerged))),
            None => (None, None),
        };
        let mut merging = std::mem::take(&mut merged_due);
        let unmerging = std::mem::take(&mut unmerged_due);
        let (setups, out, fragments, sink) = (&setups, &mut out, &mut fragments, &mut sink);
        let made = rayon::in_place_scope(|scope| {
            if let Some((merged, unmerged)) = stages {
                let merging = &mut merging;
                scope.spawn(move |_| merged.run(merging));
                scope.spawn(move |_| unmerged.run(unmerging));
            }
            // 2. Raster side of every listed tile, in parallel; results in tile order.
            let rasters: Vec<TileRaster> = lists
                .par_iter()
                .zip(tiles.par_iter())
                .map(|(list, &t)| raster_tile(cfg, setups, t, list, trace))
                .collect();
            let mut shaded = Vec::new().into_iter();
            let mut taken_per_tile: Vec<usize> = Vec::new();
            if let Some(side) = side.as_deref_mut() {
                // 3. Pixel-info store, serial and in the serial pipeline's order: a tile's
                // pushes, then the second tiles it completed taken back.
                let mut taken: Vec<([u32; 2], Vec<PixelInfo>)> = Vec::new();
                'tiles: for (i, (tr, &t)) in rasters.iter().zip(tiles).enumerate() {
                    for (b, batch) in tr.batches.iter().enumerate() {
                        let depth = frame.prims[batch.prim as usize].depth();
                        for q in &batch.quads {
                            if let Err(e) = side.store.push(q, depth) {
                                stop = Some((i, StopAt::Push(b), e.into()));
                                break 'tiles;
                            }
                        }
                    }
                    out.held.records = out.held.records.max(side.store.records_held());
                    let before = taken.len();
                    for (k, s) in completed_second_tiles(cfg, t).enumerate() {
                        match side.store.take_second_tile(s) {
                            Ok(records) => taken.push((s, records)),
                            Err(e) => {
                                taken_per_tile.push(taken.len() - before);
                                stop = Some((i, StopAt::Take(k), e.into()));
                                break 'tiles;
                            }
                        }
                    }
                    taken_per_tile.push(taken.len() - before);
                    out.held.pixel_info_resident =
                        out.held.pixel_info_resident.max(side.store.memory().peak_resident());
                }
                // 4. Shading (002) and the pixel processor (000) of every second tile taken, in
                // parallel; results in taking order.
                let (colours, buffer) = (&side.colours, &side.buffer);
                let record = side.scatter.is_some();
                shaded = taken
                    .into_par_iter()
                    .map_init(
                        || ShadeScratch::new(cfg),
                        |sc, (s, records)| shade_second_tile(cfg, colours, buffer, record, s, records, sc),
                    )
                    .collect::<Vec<_>>()
                    .into_iter();
            }
            // 5. The window in the serial pipeline's order: events to the sink, counters summed
            // tile by tile, shaded second tiles queued and the blend steps they make due.
            let mut steps = Vec::with_capacity(tiles.len());
            let st = &mut out.stats;
            for (i, &t) in tiles.iter().enumerate() {
                if let Some(e) = stopped_at(&mut stop, i, |at| at == StopAt::List) {
                    return Err(e.into());
                }
                let tr = &rasters[i];
                for (b, batch) in tr.batches.iter().enumerate() {
                    for e in &batch.subtiles {
                        sink(Event::SubTile(*e))?;
                    }
                    if let Some(e) = stopped_at(&mut stop, i, |at| at == StopAt::Push(b)) {
                        return Err(e.into());
                    }
                    fragments[batch.prim as usize] += batch.fragments;
                    if batch.quads.is_empty() {
                        continue;
                    }
                    out.held.quads = out.held.quads.max(batch.quads.len() as u64);
                    for q in &batch.quads {
                        st.quads += 1;
                        st.covered_samples += q.samples() as u64;
                    }
                    sink(Event::Quads {
                        tile: t,
                        quads: &batch.quads,
                    })?;
                }
                st.raster.add(&tr.raster);
                st.point.add(&tr.point);
                if let Some(side) = side.as_deref_mut() {
                    for _ in 0..taken_per_tile[i] {
                        let s = shaded.next().expect("one shading result per second tile taken")?;
                        st.shade += s.shade;
                        st.pixel.add(&s.pixel);
                        side.ready_samples += s.samples.len() as u64;
                        side.ready.insert(s.index, (s.samples, s.pixels));
                    }
                    if let Some(e) = stopped_at(&mut stop, i, |at| matches!(at, StopAt::Take(_))) {
                        return Err(e.into());
                    }
                    steps.push(side.due_step());
                }
                sink(Event::TileDone(t))?;
            }
            Ok::<_, E>(steps)
        })?;
        unmerged_due = merging;
        merged_due = made;
    }
    out.stats.bin = bins.stats();
    if let Some((side, mut merged, mut unmerged)) = pix {
        merged.run(&mut merged_due);
        unmerged.run(unmerged_due);
        unmerged.run(merged_due);
        let (image, pixels) = side.finish(merged, unmerged, &mut out.stats, &mut out.held)?;
        out.image = Some(image);
        out.back_end = pixels;
    }
    out.point_fragments = frame
        .prims
        .iter()
        .enumerate()
        .filter(|(_, p)| matches!(p, PrimitiveFx::Point(_)))
        .map(|(i, _)| (i as u32, fragments[i]))
        .collect();
    Ok(out)
}

/// Second tiles whose last overlapping first tile (in tile order: the top-right one) is `t`,
/// rows bottom-up, left→right: those first tile `t` completes.
fn completed_second_tiles(cfg: &Config, t: [u32; 2]) -> impl Iterator<Item = [u32; 2]> + '_ {
    let (tw, sw) = (cfg.tile, cfg.second_tile);
    let mut axis = [0..0, 0..0];
    for i in 0..2 {
        let lo = t[i] * tw[i];
        let hi = ((t[i] + 1) * tw[i]).min(cfg.viewport[i]) - 1;
        axis[i] = lo / sw[i]..hi / sw[i] + 1;
    }
    let last = move |s: u32, i: usize| (((s + 1) * sw[i]).min(cfg.viewport[i]) - 1) / tw[i];
    let [xs, ys] = axis;
    ys.flat_map(move |sy| xs.clone().map(move |sx| [sx, sy]))
        .filter(move |&[sx, sy]| last(sx, 0) == t[0] && last(sy, 1) == t[1])
}

/// The pixel side of a streamed frame but the blenders: the pixel-info store, and the second
/// tiles shaded but not yet in the blend stream.
struct PixelSide {
    colours: Vec<Rgba>,
    store: PixelInfoStore,
    /// Shaded second tiles (by index `sy·nx + sx`) waiting for their turn in the blend stream,
    /// with their pixels as the pixel processor takes them when the scatter is recorded.
    ready: BTreeMap<u32, (Vec<BlendSample>, Vec<PixSamples>)>,
    /// The back end's input stream in blend-stream order ([`back_end_input`]), when recorded.
    scatter: Option<Vec<PixSamples>>,
    background: Rgba,
    ready_samples: u64,
    /// Index of the next second tile of the blend stream.
    next: u32,
    /// The colour buffer's organisation: the order in which a tile reaches the blender.
    buffer: BufferLayout,
}

/// The blender with the sample-pool merge and the framebuffer it writes: a serial stage run
/// one window behind the rest (module header, "Parallel").
struct MergedBlend {
    merger: OutputMerger,
    blend: StreamBlender,
    /// `framebuffer: clear`: every sample's `dst`, the frame's background (no read).
    clear_dst: Option<Rgba>,
}

/// The blender without merging (for [`FrameStats::blend_nomerge`]): a serial stage run one
/// window behind [`MergedBlend`], on the samples whose `dst` it has read.
struct UnmergedBlend {
    blend: StreamBlender,
    /// High-water mark of the blend samples held at the end of a first tile: queued second
    /// tiles plus both blenders' windows ([`HeldStats::blend_samples`]).
    held_blend_samples: u64,
}

/// What the blenders do at the end of one first tile (the serial pipeline's `tile_done`): note
/// what is held, then take the samples of the second tiles now due.
struct BlendStep {
    /// Shaded samples queued once the tile's completed second tiles joined the queue.
    queued: u64,
    /// Samples the merged blender held before this step ([`MergedBlend::run`] fills it in).
    held_merged: u64,
    /// The second tiles now next in the blend stream, in order: their samples, `dst` read from
    /// the colour buffer by [`MergedBlend::run`].
    feed: Vec<Vec<BlendSample>>,
}

/// One second tile shaded and resolved ([`shade_second_tile`]).
struct Shaded {
    /// Index `sy·nx + sx` in the blend stream.
    index: u32,
    samples: Vec<BlendSample>,
    pixels: Vec<PixSamples>,
    shade: ShadeStats,
    pixel: PixelStats,
}

/// A shading task's scratch: one pixel's samples and one second tile's resolved slots (pixel
/// `(y mod SH)·SW + x mod SW`); every entry the storage order reads is written by the tile's
/// own resolve loop, so its history changes no output.
struct ShadeScratch {
    smp: Vec<Option<Rgba>>,
    resolved: Vec<[Option<Rgba>; 16]>,
}

impl ShadeScratch {
    fn new(cfg: &Config) -> Self {
        ShadeScratch {
            smp: vec![None; cfg.msaa as usize],
            resolved: vec![[None; 16]; (cfg.second_tile[0] * cfg.second_tile[1]) as usize],
        }
    }
}

/// Shade (002) and resolve (000) second tile `t` from its `records`: its blend samples (in the
/// colour buffer's storage order, [`BufferLayout::storage_order`]; `dst` left for the blend
/// stage to read) and (with `record_pixels`) its pixels as the pixel processor takes them:
/// every pixel of a second tile with records that lies in the viewport, rows bottom-up,
/// left→right. A pure function of its inputs (one task of the parallel shading pass).
fn shade_second_tile(
    cfg: &Config,
    colours: &[Rgba],
    buffer: &BufferLayout,
    record_pixels: bool,
    t: [u32; 2],
    records: Vec<PixelInfo>,
    scratch: &mut ShadeScratch,
) -> Result<Shaded, PipelineError> {
    let nx = cfg.viewport[0].div_ceil(cfg.second_tile[0]);
    let mut out = Shaded {
        index: t[1] * nx + t[0],
        samples: Vec::new(),
        pixels: Vec::new(),
        shade: ShadeStats::default(),
        pixel: PixelStats::default(),
    };
    if records.is_empty() {
        return Ok(out);
    }
    // Sort-based deferred shading (002).
    let (ts, ss) = shading_sort::shade_tile(cfg, t, &records, colours)?;
    drop(records);
    out.shade = ss;
    // Pixel processor (000): coverage → colour slots, into the colour buffer, which hands
    // the tile on in storage order (the seed's storage blocks, `colour_buffer.rs`).
    let [sw, sh] = cfg.second_tile;
    let c = cfg.colours_per_pixel as usize;
    let ShadeScratch { smp, resolved } = scratch;
    for py in 0..ts.size[1] {
        for px in 0..ts.size[0] {
            let (x, y) = (ts.origin[0] + px, ts.origin[1] + py);
            if x >= cfg.viewport[0] || y >= cfg.viewport[1] {
                continue;
            }
            for (i, v) in smp.iter_mut().enumerate() {
                *v = ts.get(px, py, i as u32).map(|(_, c)| c);
            }
            if record_pixels {
                let mut p = PixSamples {
                    x,
                    y,
                    ..PixSamples::default()
                };
                for (i, v) in smp.iter().enumerate() {
                    if let Some(c) = v {
                        p.mask |= 1 << i;
                        p.colour[i] = u32::from_le_bytes(*c);
                    }
                }
                out.pixels.push(p);
            }
            let slots = &mut resolved[((y % sh) * sw + x % sw) as usize];
            pixel_processor::resolve_pixel(cfg, smp, slots, &mut out.pixel);
        }
    }
    for (x, y) in buffer.storage_order(t) {
        for (j, slot) in resolved[((y % sh) * sw + x % sw) as usize].iter().enumerate().take(c) {
            if let Some(src) = slot {
                out.samples.push(BlendSample {
                    pos: output_merger::slot_pos(cfg, x, y, j as u32),
                    src: *src,
                    dst: [0; 4],
                    state: 0,
                });
            }
        }
    }
    Ok(out)
}

impl PixelSide {
    fn new(frame: &Frame, scatter: bool) -> Result<Self, PipelineError> {
        let cfg = &frame.cfg;
        Ok(PixelSide {
            colours: frame.prims.iter().map(|p| p.colour()).collect(),
            store: PixelInfoStore::new(cfg, 0)?,
            ready: BTreeMap::new(),
            scatter: scatter.then(Vec::new),
            background: frame.background,
            ready_samples: 0,
            next: 0,
            buffer: BufferLayout::new(cfg),
        })
    }

    /// A first tile's completed second tiles are queued: the blend step it makes due, every
    /// queued second tile that is next in the blend stream leaving the queue (its pixels to the
    /// recorded scatter).
    fn due_step(&mut self) -> BlendStep {
        let mut step = BlendStep {
            queued: self.ready_samples,
            held_merged: 0,
            feed: Vec::new(),
        };
        while let Some((samples, pixels)) = self.ready.remove(&self.next) {
            self.ready_samples -= samples.len() as u64;
            if let Some(sc) = self.scatter.as_mut() {
                sc.extend(pixels);
            }
            step.feed.push(samples);
            self.next += 1;
        }
        step
    }

    fn finish(
        mut self,
        mut merged: MergedBlend,
        unmerged: UnmergedBlend,
        st: &mut FrameStats,
        held: &mut HeldStats,
    ) -> Result<(Image, Option<BackEndRecord>), PipelineError> {
        let b = self.ready_samples + merged.blend.held() as u64 + unmerged.blend.held() as u64;
        held.blend_samples = unmerged.held_blend_samples.max(b);
        held.pixel_info_resident = held.pixel_info_resident.max(self.store.memory().peak_resident());
        self.store.finish_raster()?;
        let [nx, ny] = self.store.second_tile_count();
        if self.next != nx * ny || !self.ready.is_empty() {
            return Err(PipelineError(format!(
                "internal: {} of {} second tiles reached the blender",
                self.next,
                nx * ny
            )));
        }
        st.pixel_info = self.store.stats();
        // Blender (004) with and without the sample-pool merge; the merged one is used.
        let merger = &mut merged.merger;
        st.blend = merged.blend.finish(|o| merger.write(o.pos, o.colour));
        st.blend_nomerge = unmerged.blend.finish(|_| {});
        st.framebuffer_bytes = merger.bytes_written;
        let rec = self.scatter.take().map(|input| BackEndRecord {
            input,
            background: self.background,
            memory: merger.memory(),
        });
        Ok((merger.finish(), rec))
    }
}

impl MergedBlend {
    fn new(frame: &Frame) -> Self {
        MergedBlend {
            merger: OutputMerger::new(&frame.cfg, frame.background),
            blend: StreamBlender::new(&frame.cfg, &pipeline_blend(&frame.cfg)),
            clear_dst: (frame.cfg.framebuffer == crate::config::FramebufferMode::Clear).then_some(frame.background),
        }
    }

    /// Run blend steps in order: note what the blender holds, then read each due sample's
    /// `dst` from the colour buffer and feed it; the results go to the output merger.
    fn run(&mut self, steps: &mut [BlendStep]) {
        let merger = &mut self.merger;
        for step in steps {
            step.held_merged = self.blend.held() as u64;
            for s in step.feed.iter_mut().flatten() {
                // Each slot is blended once per frame and this is its sample, so the colour
                // buffer still holds the background here whatever the blender has written:
                // the value it held when the tile was shaded. With `framebuffer: clear` the
                // background comes from its register and nothing is read.
                s.dst = self.clear_dst.unwrap_or_else(|| merger.read(s.pos));
                self.blend.push(*s, |o| merger.write(o.pos, o.colour));
            }
        }
    }
}

impl UnmergedBlend {
    fn new(cfg: &Config) -> Self {
        UnmergedBlend {
            blend: StreamBlender::new(cfg, &BlendOpts::default()),
            held_blend_samples: 0,
        }
    }

    /// Run blend steps in order, after [`MergedBlend::run`]: note what is held (the queue and
    /// both blenders), then feed the due samples.
    fn run(&mut self, steps: Vec<BlendStep>) {
        for step in steps {
            let held = step.queued + step.held_merged + self.blend.held() as u64;
            self.held_blend_samples = self.held_blend_samples.max(held);
            for s in step.feed.into_iter().flatten() {
                self.blend.push(s, |_| {});
            }
        }
    }
}

/// Host bytes the streaming pipeline ([`render_stream`]) needs for `cfg` whatever the scene
/// draws, run in the rayon pool of the calling thread: the framebuffer (`colours_per_pixel`
/// RGBA slots per pixel), the image, the pixel-info list table, the blend queue (a band of
/// second tiles as tall as a first tile, plus one), the blend samples of the three windows in
/// flight (module header, "Parallel") and one second tile's shading buffers per thread. What
/// the scene adds (per-primitive setup and bins, a window's quads, at most 64 MiB or one first
/// tile's, and its overdraw records) comes on top. For refusing a request up front.
pub fn fixed_host_bytes(cfg: &Config) -> u64 {
    let [w, h] = cfg.viewport.map(u64::from);
    let c = cfg.colours_per_pixel as u64;
    let [sw, sh] = cfg.second_tile.map(u64::from);
    let [nsx, nsy] = [w.div_ceil(sw), h.div_ceil(sh)];
    let framebuffer = w * h * c * std::mem::size_of::<Rgba>() as u64;
    let image = w * h * 4;
    let table = (8 * nsx * nsy).next_multiple_of(crate::pixel_info::CHUNK_BYTES as u64);
    let rows = (cfg.tile[1] as u64 / sh).max(1);
    let queue = (nsx * rows + 1) * sw * sh * c * std::mem::size_of::<BlendSample>() as u64;
    let threads = rayon::current_num_threads();
    let windows = 3 * window_tiles(cfg, threads) as u64 * completed_blend_bytes_per_tile(cfg);
    // Depth, shading point, sorted item and shaded sample per sample position, per thread.
    let shade = threads as u64 * sw * sh * cfg.msaa as u64 * (4 + 8 + 2 * 16 + 12);
    framebuffer + image + table + queue + windows + shade
}

/// Run the raster side and collect it: [`raster_stream`] with every quad (and, with `trace`,
/// every first sub-tile event) kept. Memory grows with the frame's quads; prefer
/// [`raster_stream`] for big frames.
pub fn raster_frame(frame: &Frame, trace: bool) -> Result<RasterOutput, PipelineError> {
    let mut quads = Vec::new();
    let mut subtiles = Vec::new();
    let s = raster_stream(frame, trace, |e| {
        collect(e, &mut quads, &mut subtiles);
        Ok::<(), PipelineError>(())
    })?;
    Ok(RasterOutput {
        quads,
        point_fragments: s.point_fragments,
        subtiles,
        stats: s.stats,
    })
}

/// The commands for a frame, in the golden pipeline's order: first tiles bottom-up then
/// left→right, primitives of each tile's bin list in submission order (each primitive binned by
/// [`binner::prim_bbox`]). The tile sequencer emits these, with depths and an end token.
pub fn commands(frame: &Frame) -> Result<Vec<Cmd>, PipelineError> {
    let cfg: &Config = &frame.cfg;
    let boxes: Vec<(u32, PixelBox)> = frame
        .prims
        .iter()
        .enumerate()
        .filter_map(|(i, p)| binner::prim_bbox(cfg, p).map(|b| (i as u32, b)))
        .collect();
    let mut bins = binner::bin(cfg, &boxes)?;
    let order: Vec<[u32; 2]> = bins.tile_order().collect();
    let mut cmds = Vec::new();
    for t in order {
        for prim in bins.read_tile(t)? {
            let c = match &frame.prims[prim as usize] {
                PrimitiveFx::Triangle(tr) => Cmd {
                    kind: 0,
                    prim,
                    tile_x: t[0],
                    tile_y: t[1],
                    v: tr.v,
                    size: 0,
                    aa: false,
                },
                PrimitiveFx::Point(p) => Cmd {
                    kind: 1,
                    prim,
                    tile_x: t[0],
                    tile_y: t[1],
                    v: [p.pos, [0, 0], [0, 0]],
                    size: p.size as u32,
                    aa: p.aa,
                },
            };
            cmds.push(c);
        }
    }
    Ok(cmds)
}

fn collect(e: Event<'_>, quads: &mut Vec<TileQuad>, subtiles: &mut Vec<SubTileEvent>) {
    match e {
        Event::Quads { tile, quads: q } => quads.extend(q.iter().map(|&quad| TileQuad { tile, quad })),
        Event::SubTile(ev) => subtiles.push(ev),
        Event::TileDone(_) => {}
    }
}

/// The pixel back end's input for a frame (the stream `hw/src/pixel_back_end.rs` takes, as
/// golden's sort-based shading (002) scatters it): per second tile with pixel-info records, in
/// the blend stream's order (rows of second tiles bottom-up, left→right), every pixel of the
/// tile inside the viewport (rows bottom-up, left→right) with its S sample colours and covered
/// mask. Also the frame's image and statistics, as [`render_stream`] gives them (the quads are
/// not kept). The framebuffer the back end writes starts as the frame's background.
pub fn back_end_input(frame: &Frame) -> Result<StreamOutput, PipelineError> {
    run(frame, false, true, true, |_| Ok::<(), PipelineError>(()))
}

/// Run the whole pipeline and produce the image, keeping every quad in
/// [`RenderOutput::raster`] ([`render_stream`] without the collection).
pub fn render_frame(frame: &Frame) -> Result<RenderOutput, PipelineError> {
    let mut quads = Vec::new();
    let mut subtiles = Vec::new();
    let s = render_stream(frame, false, |e| {
        collect(e, &mut quads, &mut subtiles);
        Ok::<(), PipelineError>(())
    })?;
    Ok(RenderOutput {
        image: s.image.expect("render_stream makes an image"),
        raster: RasterOutput {
            quads,
            point_fragments: s.point_fragments,
            subtiles,
            stats: s.stats,
        },
    })
}
