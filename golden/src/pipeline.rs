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
//! **What is held** ([`HeldStats`]): one (tile, primitive) batch of quads; the pixel-info
//! records of second tiles still open (those of the first tiles from a second tile's first to
//! its last, in tile order: one first tile on `full`, two on `default`); the queued blend
//! samples; the framebuffer (`viewport × colours_per_pixel`), the image, the pixel-info list
//! table, per-primitive setup and bins. Overdraw in one first tile still costs host memory
//! (its records are held until its second tiles are read).
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
use crate::blender::{BlendOpts, BlendSample, BlendStats, StreamBlender, PIPELINE_BLEND};
use crate::colour_buffer::BufferLayout;
use crate::config::Config;
use crate::memory_port::SparseMemory;
use crate::output_merger::{Image, OutputMerger};
use crate::pixel_info::{PixelInfoStats, PixelInfoStore, StoreError};
use crate::pixel_processor::{self, PixelStats};
use crate::point_raster::{self, PointStats};
use crate::raster::{RasterStats, Rasterizer};
use crate::scene::Frame;
use crate::setup::{self, PixelBox, SetupReject, TriSetup};
use crate::shading_sort::{self, ShadeStats};
use crate::streams::{Cmd, PixSamples};
use crate::subtile_coverage::SubtileFate;
use crate::{PointFx, PrimitiveFx, Quad, Rgba};
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
        Some(PixelSide::new(frame, scatter)?)
    } else {
        None
    };
    let mut fragments: Vec<u64> = vec![0; frame.prims.len()];
    let mut r = Rasterizer::new();
    let mut quads: Vec<Quad> = Vec::new();
    let mut events: Vec<SubTileEvent> = Vec::new();
    let order: Vec<[u32; 2]> = bins.tile_order().collect();
    let st = &mut out.stats;
    for t in order {
        let list = bins.read_tile(t).map_err(PipelineError::from)?;
        for prim in list {
            quads.clear();
            match setups[prim as usize]
                .as_ref()
                .expect("only set-up primitives are binned")
            {
                Setup::Tri(s) => {
                    if trace {
                        events.clear();
                        r.tile_traced(cfg, s, prim, t, &mut st.raster, &mut quads, |sub, fate| {
                            events.push(SubTileEvent {
                                prim,
                                x0: sub.rect.x0,
                                y0: sub.rect.y0,
                                w: sub.rect.width(),
                                h: sub.rect.height(),
                                class: class_of(fate),
                            })
                        });
                        for e in &events {
                            sink(Event::SubTile(*e))?;
                        }
                    } else {
                        r.tile(cfg, s, prim, t, &mut st.raster, &mut quads);
                    }
                }
                Setup::Point(p) => {
                    quads = point_raster::raster_point_tile(cfg, p, prim, t, &mut st.point);
                    fragments[prim as usize] += quads
                        .iter()
                        .map(|q| (0..4).filter(|&i| q.pixel_mask(i, cfg.msaa) != 0).count() as u64)
                        .sum::<u64>();
                }
            }
            if quads.is_empty() {
                continue;
            }
            out.held.quads = out.held.quads.max(quads.len() as u64);
            for q in &quads {
                st.quads += 1;
                st.covered_samples += q.samples() as u64;
            }
            if let Some(px) = pix.as_mut() {
                // Pixel-info store (001): written while rasterizing.
                let depth = frame.prims[prim as usize].depth();
                for q in &quads {
                    px.store.push(q, depth).map_err(PipelineError::from)?;
                }
            }
            sink(Event::Quads { tile: t, quads: &quads })?;
        }
        if let Some(px) = pix.as_mut() {
            px.tile_done(t, st, &mut out.held)?;
        }
        sink(Event::TileDone(t))?;
    }
    st.bin = bins.stats();
    if let Some(px) = pix {
        let (image, pixels) = px.finish(st, &mut out.held)?;
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

/// The pixel side of a streamed frame: the pixel-info store, the second tiles shaded but not
/// yet in the blend stream, the two blenders and the framebuffer.
struct PixelSide<'f> {
    cfg: &'f Config,
    colours: Vec<Rgba>,
    store: PixelInfoStore,
    merger: OutputMerger,
    blend: StreamBlender,
    blend_nomerge: StreamBlender,
    /// Shaded second tiles (by index `sy·nx + sx`) waiting for their turn in the blend stream,
    /// with their pixels as the pixel processor takes them when the scatter is recorded.
    ready: BTreeMap<u32, (Vec<BlendSample>, Vec<PixSamples>)>,
    /// The back end's input stream in blend-stream order ([`back_end_input`]), when recorded.
    scatter: Option<Vec<PixSamples>>,
    background: Rgba,
    ready_samples: u64,
    /// Index of the next second tile of the blend stream.
    next: u32,
    smp: Vec<Option<Rgba>>,
    /// The colour buffer's organisation: the order in which a tile reaches the blender.
    buffer: BufferLayout,
    /// One second tile's resolved slots (pixel `(y mod SH)·SW + x mod SW`), reused per tile:
    /// every entry the storage order reads is written by the tile's own resolve loop.
    resolved: Vec<[Option<Rgba>; 16]>,
}

impl<'f> PixelSide<'f> {
    fn new(frame: &'f Frame, scatter: bool) -> Result<Self, PipelineError> {
        let cfg = &frame.cfg;
        Ok(PixelSide {
            cfg,
            colours: frame.prims.iter().map(|p| p.colour()).collect(),
            store: PixelInfoStore::new(cfg, 0)?,
            merger: OutputMerger::new(cfg, frame.background),
            blend: StreamBlender::new(cfg, &PIPELINE_BLEND),
            blend_nomerge: StreamBlender::new(cfg, &BlendOpts::default()),
            ready: BTreeMap::new(),
            scatter: scatter.then(Vec::new),
            background: frame.background,
            ready_samples: 0,
            next: 0,
            smp: vec![None; cfg.msaa as usize],
            buffer: BufferLayout::new(cfg),
            resolved: vec![[None; 16]; (cfg.second_tile[0] * cfg.second_tile[1]) as usize],
        })
    }

    /// First tile `t` is rasterized: shade every second tile whose last overlapping first tile
    /// (in tile order: the top-right one) is `t`, then feed the blenders what is due.
    fn tile_done(&mut self, t: [u32; 2], st: &mut FrameStats, held: &mut HeldStats) -> Result<(), PipelineError> {
        held.records = held.records.max(self.store.records_held());
        let cfg = self.cfg;
        let (tw, sw) = (cfg.tile, cfg.second_tile);
        let mut axis = [0..0, 0..0];
        for i in 0..2 {
            let lo = t[i] * tw[i];
            let hi = ((t[i] + 1) * tw[i]).min(cfg.viewport[i]) - 1;
            axis[i] = lo / sw[i]..hi / sw[i] + 1;
        }
        let last = |s: u32, i: usize| (((s + 1) * sw[i]).min(cfg.viewport[i]) - 1) / tw[i];
        let nx = self.store.second_tile_count()[0];
        for sy in axis[1].clone() {
            for sx in axis[0].clone() {
                if last(sx, 0) != t[0] || last(sy, 1) != t[1] {
                    continue;
                }
                let samples = self.shade([sx, sy], st)?;
                self.ready_samples += samples.0.len() as u64;
                self.ready.insert(sy * nx + sx, samples);
            }
        }
        self.note(held);
        self.feed();
        Ok(())
    }

    fn note(&self, held: &mut HeldStats) {
        let b = self.ready_samples + self.blend.held() as u64 + self.blend_nomerge.held() as u64;
        held.blend_samples = held.blend_samples.max(b);
        held.pixel_info_resident = held.pixel_info_resident.max(self.store.memory().peak_resident());
    }

    /// Read second tile `t` back, shade (002) and resolve (000) it: its blend samples (in the
    /// colour buffer's storage order, [`BufferLayout::storage_order`]), and
    /// (when the scatter is recorded) its pixels as the pixel processor takes them: every pixel
    /// of a second tile with records that lies in the viewport, rows bottom-up, left→right.
    fn shade(
        &mut self,
        t: [u32; 2],
        st: &mut FrameStats,
    ) -> Result<(Vec<BlendSample>, Vec<PixSamples>), PipelineError> {
        let cfg = self.cfg;
        let records = self.store.take_second_tile(t)?;
        let mut blend_in = Vec::new();
        let mut pixels = Vec::new();
        if records.is_empty() {
            return Ok((blend_in, pixels));
        }
        // Sort-based deferred shading (002).
        let (ts, ss) = shading_sort::shade_tile(cfg, t, &records, &self.colours)?;
        drop(records);
        st.shade += ss;
        // Pixel processor (000): coverage → colour slots, into the colour buffer, which hands
        // the tile on in storage order (the seed's storage blocks, `colour_buffer.rs`).
        let [sw, sh] = cfg.second_tile;
        let c = cfg.colours_per_pixel as usize;
        let resolved = &mut self.resolved;
        for py in 0..ts.size[1] {
            for px in 0..ts.size[0] {
                let (x, y) = (ts.origin[0] + px, ts.origin[1] + py);
                if x >= cfg.viewport[0] || y >= cfg.viewport[1] {
                    continue;
                }
                for (i, v) in self.smp.iter_mut().enumerate() {
                    *v = ts.get(px, py, i as u32).map(|(_, c)| c);
                }
                if self.scatter.is_some() {
                    let mut p = PixSamples {
                        x,
                        y,
                        ..PixSamples::default()
                    };
                    for (i, v) in self.smp.iter().enumerate() {
                        if let Some(c) = v {
                            p.mask |= 1 << i;
                            p.colour[i] = u32::from_le_bytes(*c);
                        }
                    }
                    pixels.push(p);
                }
                let slots = &mut resolved[((y % sh) * sw + x % sw) as usize];
                pixel_processor::resolve_pixel(cfg, &self.smp, slots, &mut st.pixel);
            }
        }
        for (x, y) in self.buffer.storage_order(t) {
            for (j, slot) in resolved[((y % sh) * sw + x % sw) as usize].iter().enumerate().take(c) {
                if let Some(src) = slot {
                    let pos = self.merger.pos(x, y, j as u32);
                    // Each slot is blended once per frame, so the colour buffer still
                    // holds the background here whatever the blender has written.
                    blend_in.push(BlendSample {
                        pos,
                        src: *src,
                        dst: self.merger.read(pos),
                        state: 0,
                    });
                }
            }
        }
        Ok((blend_in, pixels))
    }

    /// Feed the blenders every shaded second tile that is next in the blend stream; the merged
    /// blender's results go to the output merger.
    fn feed(&mut self) {
        while let Some((samples, pixels)) = self.ready.remove(&self.next) {
            self.ready_samples -= samples.len() as u64;
            if let Some(sc) = self.scatter.as_mut() {
                sc.extend(pixels);
            }
            let merger = &mut self.merger;
            for s in samples {
                self.blend.push(s, |o| merger.write(o.pos, o.colour));
                self.blend_nomerge.push(s, |_| {});
            }
            self.next += 1;
        }
    }

    fn finish(
        mut self,
        st: &mut FrameStats,
        held: &mut HeldStats,
    ) -> Result<(Image, Option<BackEndRecord>), PipelineError> {
        self.note(held);
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
        let merger = &mut self.merger;
        st.blend = self.blend.finish(|o| merger.write(o.pos, o.colour));
        st.blend_nomerge = self.blend_nomerge.finish(|_| {});
        st.framebuffer_bytes = self.merger.bytes_written;
        let rec = self.scatter.take().map(|input| BackEndRecord {
            input,
            background: self.background,
            memory: self.merger.memory(),
        });
        Ok((self.merger.finish(), rec))
    }
}

/// Host bytes the streaming pipeline ([`render_stream`]) needs for `cfg` whatever the scene
/// draws: the framebuffer (`colours_per_pixel` RGBA slots per pixel), the image, the
/// pixel-info list table, the blend queue (a band of second tiles as tall as a first tile,
/// plus one) and one second tile's shading buffers. What the scene adds (per-primitive setup
/// and bins, one first tile's overdraw records) comes on top. For refusing a request up front.
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
    // Depth, shading point, sorted item and shaded sample per sample position.
    let shade = sw * sh * cfg.msaa as u64 * (4 + 8 + 2 * 16 + 12);
    framebuffer + image + table + queue + shade
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
