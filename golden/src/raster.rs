//! Seed 000's golden path for triangles: hierarchical tile rasterization at transaction level.
//!
//! ```text
//!  TriSetup, tile ─► tile_parser ─► subtile_coverage ─► sample_raster ─► quad_packer ─► quads
//!                    first sub-tiles   row / column /     first masks      recombine,
//!                    (walk order)      edge|samples test  per sample       re-split?, pack
//! ```
//!
//! [`raster_triangle_tile`] runs the four stages for one (triangle, tile): parse the tile into
//! first sub-tiles, classify every sub-tile (whole-row rejection, column rejection, finer test,
//! trivial accept), rasterize the covered ones per sample into the recombined tile, then emit
//! quads from the first sub-tiles or from the re-split second sub-tiles (see `quad_packer` for
//! the exact quad order). When the packer's groups are the first sub-tiles (no re-split, or
//! second sub-tile preset = first sub-tile size), quads stream from the sample rasterizer
//! straight into the packer (`quad_packer::StreamPacker`), same output and counters;
//! [`Rasterizer::new_recombining`] forces the general path.
//!
//! Counters: [`RasterStats`] keeps each stage's counters as a named field. Re-split counters
//! (second sub-tiles, storage blocks, shared blocks, block pixels / capacity) are counted once
//! per re-split, i.e. per (primitive, tile) in re-split mode, as the seed re-splits each
//! primitive's rasterized tile; their ratio (block utilisation) is per tile layout. [`raster_triangle`] does it for every tile meeting the triangle's
//! bounding box, **tiles in rows bottom-up, left → right**; quads of one tile are contiguous.
//!
//! Output order for one (triangle, tile) is `quad_packer`'s contract: groups (second
//! sub-tiles when `cfg.resplit()`, first sub-tiles otherwise) bottom-up then left → right,
//! quads inside a group bottom-up then left → right, empty quads never emitted.
//!
//! API choices: the `raster_*` free functions return a fresh `Vec<Quad>` (`*_into` variants
//! append to a caller's vector); they reuse a per-thread [`Rasterizer`] scratch so nothing
//! tile-sized is allocated per call. Preconditions: `cfg` has passed `Config::validate` and
//! `tri` came from `setup::setup_triangle` with the same config. A tile outside the tile grid
//! yields no quads; [`try_raster_triangle_tile`] reports such bad input as an error naming the
//! field instead.

use crate::config::Config;
use crate::counters::counters;
use crate::prim::Quad;
use crate::quad_packer::{self, BlockLayout, PackerStats, RasterTile, StreamPacker};
use crate::sample_raster::{self, SampleSetup, SampleStats};
use crate::setup::{PixelBox, TriSetup};
use crate::subtile_coverage::{self, CoverageStats, CoveredSubtile, SubtileFate};
use crate::tile_parser::{self, InputError, ParserStats, SubTile};
use std::cell::RefCell;

counters! {
    /// Counters of every stage of the triangle raster path, per stage.
    #[derive(Clone, Copy, Debug, Default, PartialEq, Eq)]
    pub struct RasterStats {
        /// Tile parser: tiles parsed, sub-tiles produced, sub-tiles clipped by the viewport.
        pub parser: ParserStats,
        /// Sub-tile coverage: walked, rejected by row (rows and sub-tiles), by column, by the
        /// edge/sample test, trivially accepted, partial.
        pub coverage: CoverageStats,
        /// Sample rasterizer: samples tested, set by trivial accept, covered.
        pub sample: SampleStats,
        /// Recombiner / re-splitter / packer: quads, non-empty groups, second sub-tiles, blocks.
        pub packer: PackerStats,
    }
}

/// Reusable scratch of the raster path: the recombined tile, the covered-sub-tile list and
/// the last block layout (layouts depend only on the clipped tile size and the config).
#[derive(Clone, Debug)]
pub struct Rasterizer {
    rt: RasterTile,
    ss: SampleSetup,
    covered: Vec<CoveredSubtile>,
    layout: Option<(LayoutKey, BlockLayout)>,
    always_recombine: bool,
}

impl Default for Rasterizer {
    fn default() -> Self {
        Rasterizer::new()
    }
}

/// Second sub-tile preset size and clipped tile size: all a layout depends on.
type LayoutKey = ([u32; 2], [u32; 2]);

impl Rasterizer {
    /// Empty scratch.
    pub fn new() -> Rasterizer {
        Rasterizer {
            rt: RasterTile::new(),
            ss: SampleSetup::empty(),
            covered: Vec::new(),
            layout: None,
            always_recombine: false,
        }
    }

    /// Scratch that always goes through the recombined tile, even when the packer's groups are
    /// the first sub-tiles and quads could stream straight through (same output and counters;
    /// for tests of that equivalence).
    pub fn new_recombining() -> Rasterizer {
        Rasterizer {
            always_recombine: true,
            ..Rasterizer::new()
        }
    }

    /// Rasterize `tri` in tile `tile`, appending quads to `out`. A tile outside the grid
    /// yields nothing.
    pub fn tile(
        &mut self,
        cfg: &Config,
        tri: &TriSetup,
        prim: u32,
        tile: [u32; 2],
        st: &mut RasterStats,
        out: &mut Vec<Quad>,
    ) {
        self.tile_traced(cfg, tri, prim, tile, st, out, |_, _| {});
    }

    /// [`Rasterizer::tile`], also reporting every first sub-tile's fate, in walk order.
    #[allow(clippy::too_many_arguments)]
    pub fn tile_traced<F: FnMut(&SubTile, SubtileFate)>(
        &mut self,
        cfg: &Config,
        tri: &TriSetup,
        prim: u32,
        tile: [u32; 2],
        st: &mut RasterStats,
        out: &mut Vec<Quad>,
        trace: F,
    ) {
        self.ss.set(cfg, tri);
        self.tile_with(cfg, cfg.second_subtile(), tri, prim, tile, st, out, trace);
    }

    #[allow(clippy::too_many_arguments)]
    fn tile_with<F: FnMut(&SubTile, SubtileFate)>(
        &mut self,
        cfg: &Config,
        second: [u32; 2],
        tri: &TriSetup,
        prim: u32,
        tile: [u32; 2],
        st: &mut RasterStats,
        out: &mut Vec<Quad>,
        trace: F,
    ) {
        // 1. Tile parser.
        let Ok(pt) = tile_parser::parse_tile(cfg, tile) else {
            return;
        };
        st.parser.add(&pt.stats());
        // 2. Sub-tile coverage.
        self.covered.clear();
        subtile_coverage::classify_tile_traced(cfg, tri, &pt, &mut st.coverage, &mut self.covered, trace);
        // 4a. Re-split layout (if colours/pixel < samples/pixel): second sub-tiles and blocks.
        let resplit = cfg.resplit();
        if resplit {
            let key = (second, [pt.rect.width(), pt.rect.height()]);
            if self.layout.as_ref().map(|(k, _)| *k != key).unwrap_or(true) {
                self.layout = Some((key, quad_packer::block_layout(cfg, &pt)));
            }
        }
        if !self.always_recombine && (!resplit || second == cfg.subtile) {
            // 3 + 4b. Groups are the first sub-tiles: the rasterizer's quads stream straight
            // into the packer, already in its order.
            let mut sp = StreamPacker::new(out, prim);
            for cs in &self.covered {
                sample_raster::raster_subtile(tri, &self.ss, cs, &mut sp, &mut st.sample);
            }
            sp.finish(&mut st.packer);
            if resplit {
                st.packer
                    .add(&self.layout.as_ref().expect("layout set above").1.stats());
            }
            return;
        }
        // 3. Sample rasterizer, writing into the recombined tile.
        self.rt.begin(cfg, &pt);
        for cs in &self.covered {
            sample_raster::raster_subtile(tri, &self.ss, cs, &mut self.rt, &mut st.sample);
        }
        // 4b. Quad packing from second sub-tiles (re-split) or first sub-tiles.
        if resplit {
            let layout = &self.layout.as_ref().expect("layout set above").1;
            quad_packer::pack_second_subtiles(&self.rt, layout, prim, &mut st.packer, out);
        } else {
            quad_packer::pack_first_subtiles(&self.rt, &self.covered, prim, &mut st.packer, out);
        }
    }

    /// Rasterize `tri` in every tile meeting its bounding box, tiles in rows bottom-up,
    /// left → right, appending quads to `out`.
    pub fn triangle(&mut self, cfg: &Config, tri: &TriSetup, prim: u32, st: &mut RasterStats, out: &mut Vec<Quad>) {
        self.ss.set(cfg, tri);
        let second = cfg.second_subtile();
        for t in tiles_of(cfg, &tri.bbox) {
            self.tile_with(cfg, second, tri, prim, t, st, out, |_, _| {});
        }
    }
}

/// Tiles meeting pixel box `b` (clipped to the viewport's tile grid), rows bottom-up,
/// left → right.
pub fn tiles_of(cfg: &Config, b: &PixelBox) -> impl Iterator<Item = [u32; 2]> {
    // Tile sizes are powers of two (Config::validate).
    let (sx, sy) = (cfg.tile[0].trailing_zeros(), cfg.tile[1].trailing_zeros());
    let (nx, ny) = (
        (cfg.viewport[0] + cfg.tile[0] - 1) >> sx,
        (cfg.viewport[1] + cfg.tile[1] - 1) >> sy,
    );
    let (tx0, tx1) = (b.x0 >> sx, (b.x1 >> sx).min(nx.saturating_sub(1)));
    let (ty0, ty1) = (b.y0 >> sy, (b.y1 >> sy).min(ny.saturating_sub(1)));
    (ty0..=ty1).flat_map(move |ty| (tx0..=tx1).map(move |tx| [tx, ty]))
}

thread_local! {
    static SCRATCH: RefCell<Rasterizer> = RefCell::new(Rasterizer::new());
}

fn with_scratch<R>(f: impl FnOnce(&mut Rasterizer) -> R) -> R {
    SCRATCH.with(|s| match s.try_borrow_mut() {
        Ok(mut r) => f(&mut r),
        Err(_) => f(&mut Rasterizer::new()),
    })
}

/// Quads of triangle `tri` (primitive index `prim`) in tile `tile`, in `quad_packer` order.
pub fn raster_triangle_tile(
    cfg: &Config,
    tri: &TriSetup,
    prim: u32,
    tile: [u32; 2],
    st: &mut RasterStats,
) -> Vec<Quad> {
    let mut out = Vec::new();
    raster_triangle_tile_into(cfg, tri, prim, tile, st, &mut out);
    out
}

/// [`raster_triangle_tile`], appending to `out`.
pub fn raster_triangle_tile_into(
    cfg: &Config,
    tri: &TriSetup,
    prim: u32,
    tile: [u32; 2],
    st: &mut RasterStats,
    out: &mut Vec<Quad>,
) {
    with_scratch(|r| r.tile(cfg, tri, prim, tile, st, out));
}

/// [`raster_triangle_tile`], reporting every first sub-tile's fate (walk order) to `trace`.
pub fn raster_triangle_tile_traced<F: FnMut(&SubTile, SubtileFate)>(
    cfg: &Config,
    tri: &TriSetup,
    prim: u32,
    tile: [u32; 2],
    st: &mut RasterStats,
    out: &mut Vec<Quad>,
    trace: F,
) {
    with_scratch(|r| r.tile_traced(cfg, tri, prim, tile, st, out, trace));
}

/// [`raster_triangle_tile`] with its inputs checked: an invalid config or a tile outside the
/// grid is an error naming the field.
pub fn try_raster_triangle_tile(
    cfg: &Config,
    tri: &TriSetup,
    prim: u32,
    tile: [u32; 2],
    st: &mut RasterStats,
) -> Result<Vec<Quad>, InputError> {
    cfg.validate().map_err(|e| InputError {
        field: e.field,
        msg: e.msg,
    })?;
    tile_parser::tile_rect(cfg, tile)?;
    Ok(raster_triangle_tile(cfg, tri, prim, tile, st))
}

/// Quads of triangle `tri` over every tile meeting its bounding box: tiles in rows bottom-up,
/// left → right, each tile's quads in `quad_packer` order.
pub fn raster_triangle(cfg: &Config, tri: &TriSetup, prim: u32, st: &mut RasterStats) -> Vec<Quad> {
    let mut out = Vec::new();
    raster_triangle_into(cfg, tri, prim, st, &mut out);
    out
}

/// [`raster_triangle`], appending to `out`.
pub fn raster_triangle_into(cfg: &Config, tri: &TriSetup, prim: u32, st: &mut RasterStats, out: &mut Vec<Quad>) {
    with_scratch(|r| r.triangle(cfg, tri, prim, st, out));
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::prim::{coverage_samples, quads_to_coverage, TriangleFx};
    use crate::reference;
    use crate::setup::setup_triangle;

    #[test]
    fn matches_reference_on_a_tile_straddling_triangle() {
        let cfg = Config::preset("ice40").unwrap();
        let t = TriangleFx {
            v: [
                [5 * 256 + 77, 3 * 256],
                [41 * 256, 9 * 256 + 5],
                [20 * 256, 37 * 256 + 200],
            ],
            colour: [0; 4],
            depth: 0,
        };
        let s = setup_triangle(&cfg, &t).unwrap();
        let mut st = RasterStats::default();
        let q = raster_triangle(&cfg, &s, 0, &mut st);
        let cov = quads_to_coverage(&q, cfg.msaa).unwrap();
        let r = reference::triangle(&cfg, &t, &mut Default::default());
        assert!(coverage_samples(&r) > 0);
        assert_eq!(cov, r);
        assert_eq!(st.sample.samples_covered, coverage_samples(&r));
    }

    #[test]
    fn tiles_of_walks_rows_bottom_up() {
        let cfg = Config::preset("default").unwrap(); // 32x32 tiles
        let b = PixelBox {
            x0: 30,
            y0: 10,
            x1: 70,
            y1: 40,
        };
        let v: Vec<_> = tiles_of(&cfg, &b).collect();
        assert_eq!(v, vec![[0, 0], [1, 0], [2, 0], [0, 1], [1, 1], [2, 1]]);
    }

    #[test]
    fn try_variant_names_fields() {
        let mut cfg = Config::preset("default").unwrap();
        let t = TriangleFx {
            v: [[0, 0], [2560, 0], [0, 2560]],
            colour: [0; 4],
            depth: 0,
        };
        let s = setup_triangle(&cfg, &t).unwrap();
        let mut st = RasterStats::default();
        assert_eq!(
            try_raster_triangle_tile(&cfg, &s, 0, [20, 0], &mut st)
                .unwrap_err()
                .field,
            "tile"
        );
        assert!(raster_triangle_tile(&cfg, &s, 0, [20, 0], &mut st).is_empty());
        assert!(!try_raster_triangle_tile(&cfg, &s, 0, [0, 0], &mut st)
            .unwrap()
            .is_empty());
        cfg.msaa = 3;
        assert_eq!(
            try_raster_triangle_tile(&cfg, &s, 0, [0, 0], &mut st)
                .unwrap_err()
                .field,
            "msaa"
        );
    }
}
