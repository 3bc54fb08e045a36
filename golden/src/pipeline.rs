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

use crate::scene::Frame;
use crate::Quad;

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

/// Per-frame statistics of every stage.
#[derive(Clone, Debug, Default)]
pub struct FrameStats {}

impl FrameStats {
    /// Named figures, in a fixed order, for tables and CSV (`tilerast explore`).
    pub fn rows(&self) -> Vec<(&'static str, f64)> {
        todo!()
    }
}

/// Run the raster side (setup, binning, seed 000 / 003) for a frame. With `trace`, record every
/// first sub-tile's classification.
pub fn raster_frame(frame: &Frame, trace: bool) -> RasterOutput {
    let _ = (frame, trace);
    todo!()
}

/// Run the whole pipeline and produce the image.
pub fn render_frame(frame: &Frame) -> RenderOutput {
    let _ = frame;
    todo!()
}
