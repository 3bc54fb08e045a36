//! The whole golden pipeline for one frame (SPEC §1), stage by stage:
//!
//! ```text
//!  Frame ─► setup ─► binner (001) ─► per first tile, per listed primitive:
//!            │                        raster (000: tile parser → sub-tile coverage →
//!            │                        sample raster → quad packer) or point_raster (003)
//!            │                          │ quads, in tile order
//!            ▼                          ▼
//!         stats              pixel_info store (001, per second tile, linked blocks)
//!                                       │ after every first tile is rasterized
//!                                       ▼
//!            shading_sort (002) ─► pixel_processor (000) ─► blender (004) ─► output_merger
//! ```
//!
//! Quad order of the whole frame (the raster-side contract): first tiles in rows bottom-up,
//! left→right; inside a tile, primitives in submission order; inside a (tile, primitive), the
//! order of `quad_packer` (triangles) or `point_raster` (points).

use crate::binner::{self, BinStats};
use crate::blender::{self, BlendOpts, BlendSample, BlendStats, MergeMode};
use crate::output_merger::OutputMerger;
use crate::pixel_info::{PixelInfoStats, PixelInfoStore, StoreError};
use crate::pixel_processor::{self, PixelStats};
use crate::point_raster::{self, PointStats};
use crate::raster::{RasterStats, Rasterizer};
use crate::scene::Frame;
use crate::setup::{self, PixelBox, SetupReject, TriSetup};
use crate::shading_sort::{self, ShadeStats};
use crate::subtile_coverage::SubtileFate;
use crate::{PointFx, PrimitiveFx, Quad, Rgba};
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

/// An RGBA8 image, row 0 at the top (as image files want it).
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct Image {
    pub width: u32,
    pub height: u32,
    pub rgba: Vec<u8>,
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

/// Run the raster side (setup, binning, seed 000 / 003) for a frame. With `trace`, record every
/// first sub-tile's classification.
pub fn raster_frame(frame: &Frame, trace: bool) -> Result<RasterOutput, PipelineError> {
    let cfg = &frame.cfg;
    let mut out = RasterOutput::default();
    let st = &mut out.stats;
    // Setup.
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
    // Binning (001): per first tile, the primitives touching it.
    let mut bins = binner::bin(cfg, &boxes)?;
    let mut fragments: Vec<u64> = vec![0; frame.prims.len()];
    let mut r = Rasterizer::new();
    let mut quads: Vec<Quad> = Vec::new();
    let order: Vec<[u32; 2]> = bins.tile_order().collect();
    for t in order {
        let list = bins.read_tile(t)?;
        for prim in list {
            quads.clear();
            match setups[prim as usize]
                .as_ref()
                .expect("only set-up primitives are binned")
            {
                Setup::Tri(s) => {
                    if trace {
                        let events = &mut out.subtiles;
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
            for q in &quads {
                st.quads += 1;
                st.covered_samples += q.samples() as u64;
                out.quads.push(TileQuad { tile: t, quad: *q });
            }
        }
    }
    st.bin = bins.stats();
    out.point_fragments = frame
        .prims
        .iter()
        .enumerate()
        .filter(|(_, p)| matches!(p, PrimitiveFx::Point(_)))
        .map(|(i, _)| (i as u32, fragments[i]))
        .collect();
    Ok(out)
}

/// Blender options used by the pipeline: whole-sample compare, in-flight match, gating.
pub const PIPELINE_BLEND: BlendOpts = BlendOpts {
    merge: MergeMode::PerSample,
    input_buffer: 0,
    match_in_flight: true,
    gate_idle_lanes: true,
};

/// Run the whole pipeline and produce the image.
pub fn render_frame(frame: &Frame) -> Result<RenderOutput, PipelineError> {
    let cfg = &frame.cfg;
    let mut raster = raster_frame(frame, false)?;
    // Pixel-info store (001): written while rasterizing, read only after every first tile.
    let mut store = PixelInfoStore::new(cfg, 0)?;
    for tq in &raster.quads {
        store.push(&tq.quad, frame.prims[tq.quad.prim as usize].depth())?;
    }
    store.finish_raster()?;
    let colours: Vec<Rgba> = frame.prims.iter().map(|p| p.colour()).collect();
    let mut merger = OutputMerger::new(cfg, frame.background);
    let mut blend_in: Vec<BlendSample> = Vec::new();
    let s = cfg.msaa as usize;
    let mut smp: Vec<Option<Rgba>> = vec![None; s];
    let mut slots = [None; 16];
    let st = &mut raster.stats;
    let tiles: Vec<[u32; 2]> = store.second_tiles().collect();
    for t in tiles {
        let records = store.read_second_tile(t)?;
        if records.is_empty() {
            continue;
        }
        // Sort-based deferred shading (002).
        let (ts, ss) = shading_sort::shade_tile(cfg, t, &records, &colours)?;
        st.shade += ss;
        // Pixel processor (000): coverage → colour slots.
        for py in 0..ts.size[1] {
            for px in 0..ts.size[0] {
                let (x, y) = (ts.origin[0] + px, ts.origin[1] + py);
                if x >= cfg.viewport[0] || y >= cfg.viewport[1] {
                    continue;
                }
                for (i, v) in smp.iter_mut().enumerate() {
                    *v = ts.get(px, py, i as u32).map(|(_, c)| c);
                }
                let c = pixel_processor::resolve_pixel(cfg, &smp, &mut slots, &mut st.pixel);
                for (j, slot) in slots.iter().enumerate().take(c) {
                    if let Some(src) = slot {
                        let pos = merger.pos(x, y, j as u32);
                        blend_in.push(BlendSample {
                            pos,
                            src: *src,
                            dst: merger.read(pos),
                            state: 0,
                        });
                    }
                }
            }
        }
    }
    st.pixel_info = store.stats();
    // Blender (004) with and without the sample-pool merge; the merged one is used.
    let (outs, bs) = blender::run(cfg, &PIPELINE_BLEND, &blend_in);
    let (_, bs0) = blender::run(cfg, &BlendOpts::default(), &blend_in);
    st.blend = bs;
    st.blend_nomerge = bs0;
    // Output merger.
    for (pos, c) in outs {
        merger.write(pos, c);
    }
    st.framebuffer_bytes = merger.bytes_written;
    Ok(RenderOutput {
        image: merger.finish(),
        raster,
    })
}
