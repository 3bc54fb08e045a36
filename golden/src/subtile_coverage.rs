//! Sub-tile coverage ("子图块光栅化器", seed 000 claims 6–10; fig. 6 block 610).
//!
//! Decides, for one triangle and one parsed tile, which first sub-tiles the triangle may
//! cover. Three steps, cheapest first, exactly in the tile parser's walk order:
//!
//! 1. **Row rejection** (claim 6). Rows bottom-up: a whole row of sub-tiles whose pixel y-range
//!    misses the triangle's bounding box (`TriSetup::bbox`) is rejected in one step; none of its
//!    sub-tiles is looked at individually.
//! 2. **Column rejection** (claim 7). In a surviving row, left → right: a sub-tile whose x-range
//!    misses the bounding box is rejected.
//! 3. **Finer test**, per `cfg.coverage_test`:
//!    - `Edge` (claim 8, area overlap): each biased edge function is evaluated at the corner of
//!      the sub-tile's *area* `[x0, x1+1] × [y0, y1+1]` where it is largest; if it is negative
//!      for one edge, no point of the sub-tile is inside and it is rejected (conservative).
//!    - `Samples` (claim 9, "second mask"): the sub-tile's own sample points are the four
//!      corners of the rectangle hull of every pixel sample position inside it. The second mask
//!      holds, per edge, which corners are inside that edge ([`second_mask`]); a sub-tile whose
//!      four corners are all outside one edge is rejected. Tighter than `Edge`, still
//!      conservative (a linear function's maximum over the samples is at a hull corner).
//!    - `BboxOnly`: no third step.
//!
//!    With `Edge` or `Samples`, a surviving sub-tile whose four sample-hull corners are inside
//!    all three edges is **trivially accepted**: every sample in it is covered, so the sample
//!    rasterizer fills full masks without per-sample tests. Every other surviving sub-tile is
//!    **partial** (rasterized per sample). `BboxOnly` has no edge evaluator here, so every
//!    surviving sub-tile is partial.
//!
//! Rejected sub-tiles are given the preset first mask (all zero, claim 10): they produce no
//! output here, and the recombiner (`quad_packer::RasterTile`) reads all-zero masks for them.
//!
//! In:  `cfg`, `TriSetup`, `ParsedTile`.
//! Out: the covered sub-tiles (`CoveredSubtile`: sub-tile + trivial flag) **in walk order**
//!      (rows bottom-up, left → right), and optionally every sub-tile's fate (same order).
//!
//! ```text
//!   row 3  ░░░░ ░░░░ ░░░░ ░░░░   ← row rejected (one step)     ░ rejected by row
//!   row 2  ▒▒▒▒ ┌──────┐ ▒▒▒▒    ← column rejected (per tile)  ▒ rejected by column
//!   row 1  ▒▒▒▒ │ tri  │ xxxx    ← x: rejected by edge/sample test
//!   row 0  ░░░░ └──────┘ ░░░░      bbox rows 1..2, cols 1..2
//! ```

use crate::config::{Config, CoverageTest, ONE};
use crate::counters::counters;
use crate::samples;
use crate::setup::{Edge, PixelBox, TriSetup};
use crate::tile_parser::{ParsedTile, SubTile};

counters! {
    /// Counters of the sub-tile coverage stage. `walked = subtiles_rejected_row +
    /// subtiles_rejected_col + subtiles_rejected_test + trivial + partial`.
    #[derive(Clone, Copy, Debug, Default, PartialEq, Eq)]
    pub struct CoverageStats {
        /// First sub-tiles walked (every sub-tile of every parsed tile).
        pub walked: u64,
        /// Whole rows rejected by the bounding-box y test (claim 6).
        pub rows_rejected: u64,
        /// Sub-tiles inside those rows.
        pub subtiles_rejected_row: u64,
        /// Sub-tiles rejected by the bounding-box x test in a surviving row (claim 7).
        pub subtiles_rejected_col: u64,
        /// Sub-tiles rejected by the edge (claim 8) or sample (claim 9) test.
        pub subtiles_rejected_test: u64,
        /// Sub-tiles trivially accepted (every sample covered).
        pub trivial: u64,
        /// Sub-tiles partially covered (rasterized per sample).
        pub partial: u64,
    }
}

/// What happened to one first sub-tile (for traces and overlays).
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum SubtileFate {
    /// Its whole row missed the bounding box.
    RejectedRow,
    /// Its column missed the bounding box.
    RejectedColumn,
    /// The edge or sample test found it outside one edge.
    RejectedTest,
    /// Every sample covered; filled without per-sample tests.
    Trivial,
    /// Rasterized per sample.
    Partial,
}

/// A first sub-tile that goes on to the sample rasterizer.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct CoveredSubtile {
    pub sub: SubTile,
    /// Every sample inside it is covered.
    pub trivial: bool,
}

/// Rectangle `[x0, x1] × [y0, y1]` in 1/256 pixel, as `[x0, y0, x1, y1]`.
pub type FxBox = [i64; 4];

/// The area of a sub-tile, `[x0, x1 + 1] × [y0, y1 + 1]` pixels, in 1/256 pixel.
pub fn area_box(r: &PixelBox) -> FxBox {
    let one = ONE as i64;
    [
        r.x0 as i64 * one,
        r.y0 as i64 * one,
        (r.x1 as i64 + 1) * one,
        (r.y1 as i64 + 1) * one,
    ]
}

/// Bounds of the sample offsets of one pixel, `[min X, min Y, max X, max Y]` in 1/256 pixel.
pub fn sample_offset_bounds(msaa: u32) -> FxBox {
    // Fast path for the table's rates (checked against the table in the unit tests).
    match msaa {
        1 => [128, 128, 128, 128],
        2 => [64, 64, 192, 192],
        4 => [32, 32, 224, 224],
        8 => [16, 16, 240, 240],
        16 => [0, 0, 240, 240],
        _ => bounds_from_table(msaa),
    }
}

fn bounds_from_table(msaa: u32) -> FxBox {
    let o = samples::offsets(msaa);
    let f = |g: fn(&(u8, u8)) -> u8, max: bool| {
        let it = o.iter().map(g);
        16 * if max { it.max() } else { it.min() }.unwrap_or(8) as i64
    };
    [f(|p| p.0, false), f(|p| p.1, false), f(|p| p.0, true), f(|p| p.1, true)]
}

/// The rectangle hull of every pixel sample position inside the sub-tile `r`, given the
/// per-pixel offset bounds from [`sample_offset_bounds`]. Its four corners are the sub-tile's
/// own sample points of claim 9.
pub fn sample_hull(r: &PixelBox, ob: &FxBox) -> FxBox {
    let one = ONE as i64;
    [
        r.x0 as i64 * one + ob[0],
        r.y0 as i64 * one + ob[1],
        r.x1 as i64 * one + ob[2],
        r.y1 as i64 * one + ob[3],
    ]
}

/// Largest value of a (biased) edge over a box: evaluated at the corner where it is largest.
#[inline]
pub fn edge_max(e: &Edge, b: &FxBox) -> i64 {
    e.eval(if e.a >= 0 { b[2] } else { b[0] }, if e.b >= 0 { b[3] } else { b[1] })
}

/// Smallest value of a (biased) edge over a box.
#[inline]
pub fn edge_min(e: &Edge, b: &FxBox) -> i64 {
    e.eval(if e.a >= 0 { b[0] } else { b[2] }, if e.b >= 0 { b[1] } else { b[3] })
}

/// Claim 9's second mask of a sub-tile: for edge k, bit c is set when hull corner c is inside
/// edge k. Corners are numbered like quad pixels: 0 bottom-left, 1 bottom-right, 2 top-left,
/// 3 top-right. The sub-tile is uncovered iff some edge's mask is 0; every sample inside it
/// is covered iff all three masks are `0b1111`.
pub fn second_mask(edges: &[Edge; 3], hull: &FxBox) -> [u8; 3] {
    let corners = [
        (hull[0], hull[1]),
        (hull[2], hull[1]),
        (hull[0], hull[3]),
        (hull[2], hull[3]),
    ];
    let mut m = [0u8; 3];
    for (k, e) in edges.iter().enumerate() {
        for (c, &(x, y)) in corners.iter().enumerate() {
            if e.eval(x, y) >= 0 {
                m[k] |= 1 << c;
            }
        }
    }
    m
}

#[cfg(test)]
fn ranges_overlap(a0: u32, a1: u32, b0: u32, b1: u32) -> bool {
    a0 <= b1 && b0 <= a1
}

/// Classify every first sub-tile of `pt` for triangle `tri`; push the covered ones to `out`
/// in walk order.
pub fn classify_tile(
    cfg: &Config,
    tri: &TriSetup,
    pt: &ParsedTile,
    st: &mut CoverageStats,
    out: &mut Vec<CoveredSubtile>,
) {
    classify_tile_traced(cfg, tri, pt, st, out, |_, _| {});
}

/// [`classify_tile`], also reporting every sub-tile's fate to `trace`, in walk order.
pub fn classify_tile_traced<F: FnMut(&SubTile, SubtileFate)>(
    cfg: &Config,
    tri: &TriSetup,
    pt: &ParsedTile,
    st: &mut CoverageStats,
    out: &mut Vec<CoveredSubtile>,
    mut trace: F,
) {
    let bb = &tri.bbox;
    let ob = sample_offset_bounds(cfg.msaa);
    st.walked += pt.count() as u64;
    // The rows (claim 6) and columns (claim 7) whose ranges meet the bounding box form one
    // contiguous run each; they are found here by arithmetic, and the walk below visits every
    // sub-tile in walk order with exactly the fate the row-by-row, column-by-column comparison
    // gives (`ranges_overlap` in the unit tests checks this equivalence).
    let (r0, r1) = overlap_run(pt.rect.y0, pt.rect.y1, pt.subtile[1], bb.y0, bb.y1, pt.rows);
    let (c0, c1) = overlap_run(pt.rect.x0, pt.rect.x1, pt.subtile[0], bb.x0, bb.x1, pt.cols);
    // Step 1 (claim 6): a row missing the box is rejected whole, in one step.
    let reject_row = |st: &mut CoverageStats, r: u32, trace: &mut F| {
        st.rows_rejected += 1;
        st.subtiles_rejected_row += pt.cols as u64;
        for c in 0..pt.cols {
            trace(&pt.subtile(c, r), SubtileFate::RejectedRow);
        }
    };
    for r in 0..r0.min(pt.rows) {
        reject_row(st, r, &mut trace);
    }
    // An empty run is (n, u32::MAX): its loop must then be empty.
    let r_end = if r1 == u32::MAX { r0 } else { r1 + 1 };
    let c_end = if c1 == u32::MAX { c0 } else { c1 + 1 };
    for r in r0..r_end {
        // Step 2 (claim 7): columns left of the box, ...
        for c in 0..c0.min(pt.cols) {
            st.subtiles_rejected_col += 1;
            trace(&pt.subtile(c, r), SubtileFate::RejectedColumn);
        }
        // (With an empty column run this loop is empty and the others cover every column.)
        for c in c0..c_end {
            let sub = pt.subtile(c, r);
            // Step 3 (claims 8 / 9) and trivial accept.
            let fate = match cfg.coverage_test {
                CoverageTest::BboxOnly => SubtileFate::Partial,
                CoverageTest::Edge => {
                    let area = area_box(&sub.rect);
                    if tri.edges.iter().any(|e| edge_max(e, &area) < 0) {
                        SubtileFate::RejectedTest
                    } else {
                        let hull = sample_hull(&sub.rect, &ob);
                        if tri.edges.iter().all(|e| edge_min(e, &hull) >= 0) {
                            SubtileFate::Trivial
                        } else {
                            SubtileFate::Partial
                        }
                    }
                }
                CoverageTest::Samples => {
                    let m = second_mask(&tri.edges, &sample_hull(&sub.rect, &ob));
                    if m.contains(&0) {
                        SubtileFate::RejectedTest
                    } else if m == [0b1111; 3] {
                        SubtileFate::Trivial
                    } else {
                        SubtileFate::Partial
                    }
                }
            };
            match fate {
                SubtileFate::RejectedTest => st.subtiles_rejected_test += 1,
                SubtileFate::Trivial => {
                    st.trivial += 1;
                    out.push(CoveredSubtile { sub, trivial: true });
                }
                _ => {
                    st.partial += 1;
                    out.push(CoveredSubtile { sub, trivial: false });
                }
            }
            trace(&sub, fate);
        }
        // ... and right of it.
        for c in c1.wrapping_add(1).max(c0.min(pt.cols))..pt.cols {
            st.subtiles_rejected_col += 1;
            trace(&pt.subtile(c, r), SubtileFate::RejectedColumn);
        }
    }
    for r in r1.wrapping_add(1).max(r0.min(pt.rows))..pt.rows {
        reject_row(st, r, &mut trace);
    }
}

/// The run `[first, last]` of sub-tile rows (or columns) of a tile spanning pixels `[t0, t1]`
/// in steps of `size` (a power of two) whose pixel range meets `[b0, b1]`; `(n, u32::MAX)`
/// (an empty run) if none does.
#[inline]
fn overlap_run(t0: u32, t1: u32, size: u32, b0: u32, b1: u32, n: u32) -> (u32, u32) {
    if b1 < t0 || b0 > t1 || b0 > b1 {
        return (n, u32::MAX);
    }
    let sh = size.trailing_zeros();
    ((b0.max(t0) - t0) >> sh, (b1.min(t1) - t0) >> sh)
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::prim::TriangleFx;
    use crate::setup::setup_triangle;

    fn setup(cfg: &Config, v: [[i32; 2]; 3]) -> TriSetup {
        setup_triangle(
            cfg,
            &TriangleFx {
                v,
                colour: [0; 4],
                depth: 0,
            },
        )
        .unwrap()
    }

    #[test]
    fn tile_missed_by_the_bbox_rejects_every_subtile_and_terminates() {
        // default preset: 32x32 tiles of 8x8 sub-tiles (4x4 = 16 per tile). The triangle lies in
        // tile (0, 0), bbox pixels 1..=20 on both axes. Tile (3, 0) shares its rows 0..=2 (row 3,
        // pixels 24..31, is rejected by row, the other 12 by column); tile (0, 3) shares no row.
        let cfg = Config::preset("default").unwrap();
        let tri = setup(&cfg, [[256, 256], [20 * 256, 256], [256, 20 * 256]]);
        for (tile, by_row) in [([3, 0], 4u64), ([0, 3], 16)] {
            let pt = crate::tile_parser::parse_tile(&cfg, tile).unwrap();
            let (mut st, mut out) = (CoverageStats::default(), Vec::new());
            classify_tile(&cfg, &tri, &pt, &mut st, &mut out);
            assert!(out.is_empty());
            assert_eq!(st.walked, 16);
            assert_eq!(st.subtiles_rejected_row, by_row);
            assert_eq!(st.subtiles_rejected_col, 16 - by_row);
        }
    }

    #[test]
    fn offset_bounds_and_hull() {
        // 4x: X in {6,14,2,10}, Y in {2,6,10,14} (1/16 px) → [2,2,14,14]·16.
        assert_eq!(sample_offset_bounds(4), [32, 32, 224, 224]);
        // 1x: the centre.
        assert_eq!(sample_offset_bounds(1), [128, 128, 128, 128]);
        // 16x spans 0..15 on both axes.
        assert_eq!(sample_offset_bounds(16), [0, 0, 240, 240]);
        for s in [1, 2, 4, 8, 16] {
            assert_eq!(sample_offset_bounds(s), bounds_from_table(s), "{s}x");
        }
        let r = PixelBox {
            x0: 8,
            y0: 16,
            x1: 15,
            y1: 23,
        };
        assert_eq!(
            sample_hull(&r, &sample_offset_bounds(1)),
            [8 * 256 + 128, 16 * 256 + 128, 15 * 256 + 128, 23 * 256 + 128]
        );
        assert_eq!(area_box(&r), [8 * 256, 16 * 256, 16 * 256, 24 * 256]);
    }

    #[test]
    fn overlap_run_equals_row_by_row_comparison() {
        // Every tile span / box combination on a small grid: the arithmetic run must select
        // exactly the rows whose range overlaps the box (claim 6's comparison).
        for size in [2u32, 4, 8] {
            for t0 in [0u32, 16] {
                for len in 1..=20u32 {
                    let t1 = t0 + len - 1;
                    let n = len.div_ceil(size);
                    for b0 in 0..40u32 {
                        for b1 in b0..40 {
                            let (r0, r1) = overlap_run(t0, t1, size, b0, b1, n);
                            for r in 0..n {
                                let (y0, y1) = (t0 + r * size, (t0 + r * size + size - 1).min(t1));
                                let want = ranges_overlap(y0, y1, b0, b1);
                                let got = r1 != u32::MAX && r >= r0 && r <= r1;
                                assert_eq!(got, want, "size {size} tile {t0}..{t1} box {b0}..{b1} row {r}");
                            }
                        }
                    }
                }
            }
        }
    }

    #[test]
    fn second_mask_of_a_half_plane() {
        // Triangle (0,0),(32,0),(0,32) px. Hull of 1x samples of sub-tile x 8..15, y 16..23:
        // corners (8.5,16.5) (15.5,16.5) (8.5,23.5) (15.5,23.5); x+y: 25, 32, 32, 39.
        // Hypotenuse keeps x+y < 32: only corner 0 inside it. The other edges hold all four.
        let cfg = Config::preset("default").unwrap();
        let t = setup(&cfg, [[0, 0], [32 * 256, 0], [0, 32 * 256]]);
        let hull = sample_hull(
            &PixelBox {
                x0: 8,
                y0: 16,
                x1: 15,
                y1: 23,
            },
            &sample_offset_bounds(1),
        );
        let m = second_mask(&t.edges, &hull);
        let mut sorted = m;
        sorted.sort();
        assert_eq!(sorted, [0b0001, 0b1111, 0b1111]);
    }
}

pub use cycle::*;

pub mod cycle {
    //! The cycle model of `hw/src/subtile_coverage.rs`: same registers, same cycle, every port (truth
    //! layer 3, see [`crate::cycle`]); the transaction model above is the truth it is checked
    //! against. Its items are re-exported at the stage's top level.
    //!
    //! `SubtileCoverageCycle`: the cycle model of `hw/src/subtile_coverage.rs` (see that file's
    //! header for the block diagram), mirroring its registers.
    //!
    //! In: `streams::Cand` (from the tile parser). Out: `streams::Job`.
    //! Per candidate, the test reproduces `classify_tile`'s third step and trivial accept bit for bit,
    //! in every `CoverageTest` mode, with the hardware's arithmetic: E at the corners is E at the
    //! sub-tile origin plus a·dx + b·dy, dx/dy from the clipped area box or sample hull (see
    //! `corner_offsets`), the offset a·dx + b·dy wrapped at `offset_bits` and the sum's sign taken at
    //! bit `eb − 1` (`tile_parser::edge_widths`): exact for every input setup can produce; other
    //! inputs wrap like the RTL. The job's E / a / b registers keep
    //! `eb` / `cb` bits, sign-extended. Rejected candidates are dropped, unless they carry `last`
    //! (then a `none = last = 1` job); `none` candidates pass as `none` jobs.
    //!
    //! The timing contract is the rustdoc of [`SubtileCoverageCycle`].

    use super::*;

    use crate::cycle::CycleModel;
    use crate::streams::{Cand, Job};
    use crate::tile_parser::{edge_widths, wrap_bits};

    /// Signed bits that hold every corner offset `a·dx + b·dy` the coverage block adds to E for
    /// `cfg` (|dx| ≤ SW·256, |dy| ≤ SH·256 for the area box and the sample hull; |a|, |b| bounded
    /// as in `tile_parser::edge_widths`). The block sign-extends the offsets from there, so yosys
    /// prunes their adders above.
    pub fn offset_bits(cfg: &Config) -> u32 {
        let (w, h, g) = (cfg.viewport[0] as i64, cfg.viewport[1] as i64, cfg.guard_band as i64);
        let one = ONE as i64;
        let (amax, bmax) = ((h + 2 * g) * one, (w + 2 * g) * one);
        let v = amax * cfg.subtile[0] as i64 * one + bmax * cfg.subtile[1] as i64 * one;
        (65 - (v as u64).leading_zeros()).min(48)
    }

    /// Cycle model of the sub-tile coverage block (`hw/src/subtile_coverage.rs`; In = [`Cand`],
    /// Out = [`Job`]), mirroring its registers (the test: [`SubtileCoverageCycle::test`] and the
    /// `cycle model` section comment of this file).
    ///
    /// # Timing contract
    ///
    /// The one statement of the block's timing; the RTL is held to it on every port and cycle
    /// (`hw/tests/subtile_coverage.rs`, `cosim/tests/subtile_coverage.rs`). "Accepted at edge k"
    /// means `in_valid` and `in_ready` are high in cycle k (the transfer happens at the rising edge
    /// ending it).
    ///
    /// * **Handshake:** one output register stage, `in_ready = !out_valid | out_ready`, the only
    ///   combinational input → output path.
    /// * **Latency 1:** a candidate accepted at edge k is a job on the output in cycle k + 1. A
    ///   rejected candidate without `last` is dropped: `out_valid` is low in cycle k + 1 (the slot
    ///   stays empty). A rejected candidate with `last` becomes a `none`+`last` job, and a `none`
    ///   candidate passes as a `none` job, both with the same latency.
    /// * **Throughput:** one candidate per cycle sustained; a dropped candidate costs its input
    ///   cycle only.
    /// * **Back-pressure:** with `out_valid` high and `out_ready` low the job is held and
    ///   `in_ready` is low.
    /// * The payload registers load on every accepted candidate, dropped or not (`out_valid` tells
    ///   them apart).
    /// * **Flush:** every register returns to the state of [`SubtileCoverageCycle::new`].
    #[derive(Clone, Debug, PartialEq, Eq)]
    pub struct SubtileCoverageCycle {
        lsw: u32,
        lsh: u32,
        /// Sub-tile size and the width / height of a viewport-clipped sub-tile (0: never clipped).
        sub: [i64; 2],
        rem: [u32; 2],
        /// `sample_offset_bounds(msaa)`.
        ob: FxBox,
        mode: CoverageTest,
        /// `tile_parser::edge_widths(cfg)`: a/b registers keep `cb`, E registers and corner sums
        /// `eb` signed bits.
        cb: u32,
        eb: u32,
        /// `offset_bits(cfg)`: corner offsets wrap at this many signed bits.
        ob_bits: u32,
        valid: bool,
        job: Job,
    }

    impl SubtileCoverageCycle {
        /// Idle model for `cfg` (every `CoverageTest` mode is supported).
        pub fn new(cfg: &Config) -> Self {
            let [sw, sh] = cfg.subtile;
            let (cb, eb) = edge_widths(cfg);
            SubtileCoverageCycle {
                lsw: sw.trailing_zeros(),
                lsh: sh.trailing_zeros(),
                sub: [sw as i64, sh as i64],
                rem: [cfg.viewport[0] % sw, cfg.viewport[1] % sh],
                ob: sample_offset_bounds(cfg.msaa),
                mode: cfg.coverage_test,
                cb,
                eb,
                ob_bits: offset_bits(cfg),
                valid: false,
                job: Job::default(),
            }
        }

        /// Offsets from the sub-tile origin (1/256 px) of the area box's far corner `[w·256, h·256]`
        /// and of the sample hull `[x_lo, y_lo, x_hi, y_hi]`, for the candidate's (possibly
        /// viewport-clipped) sub-tile: column `col` is clipped iff the viewport is not a multiple of
        /// SW and `col ≥ vis_w / SW`; it is then `viewport_w % SW` pixels wide (tiles are multiples
        /// of SW). Same for rows.
        pub fn corner_offsets(&self, c: &Cand) -> ([i64; 2], FxBox) {
            let clip_x = self.rem[0] != 0 && c.col >= c.vis_w >> self.lsw;
            let clip_y = self.rem[1] != 0 && c.row >= c.vis_h >> self.lsh;
            let w = if clip_x { self.rem[0] as i64 } else { self.sub[0] };
            let h = if clip_y { self.rem[1] as i64 } else { self.sub[1] };
            let one = ONE as i64;
            let ob = &self.ob;
            (
                [w * one, h * one],
                [ob[0], ob[1], (w - 1) * one + ob[2], (h - 1) * one + ob[3]],
            )
        }

        /// The hardware's test of one candidate: (covered, trivial).
        pub fn test(&self, c: &Cand) -> (bool, bool) {
            let (area, hull) = self.corner_offsets(c);
            let mut covered = true;
            let mut all_in = true;
            for k in 0..3 {
                let (a, b) = (c.a[k] as i64, c.b[k] as i64);
                // Offsets of the corner where the edge is largest (area or hull) / smallest (hull).
                let (x_max, y_max) = match self.mode {
                    CoverageTest::Edge => (if a >= 0 { area[0] } else { 0 }, if b >= 0 { area[1] } else { 0 }),
                    _ => (
                        if a >= 0 { hull[2] } else { hull[0] },
                        if b >= 0 { hull[3] } else { hull[1] },
                    ),
                };
                let (x_min, y_min) = (
                    if a >= 0 { hull[0] } else { hull[2] },
                    if b >= 0 { hull[1] } else { hull[3] },
                );
                covered &= wrap_bits(c.e[k] + wrap_bits(a * x_max + b * y_max, self.ob_bits), self.eb) >= 0;
                all_in &= wrap_bits(c.e[k] + wrap_bits(a * x_min + b * y_min, self.ob_bits), self.eb) >= 0;
            }
            match self.mode {
                CoverageTest::BboxOnly => (true, false),
                _ => (covered, covered && all_in),
            }
        }
    }

    impl CycleModel for SubtileCoverageCycle {
        type In = Cand;
        type Out = Job;

        fn out(&self) -> (bool, Job) {
            (self.valid, self.job)
        }

        fn in_ready(&self, out_ready: bool) -> bool {
            !self.valid || out_ready
        }

        fn clock(&mut self, in_valid: bool, inp: &Cand, out_ready: bool, flush: bool) {
            if flush {
                self.valid = false;
                self.job = Job::default();
                return;
            }
            if in_valid && self.in_ready(out_ready) {
                let (covered, trivial) = self.test(inp);
                self.valid = covered || inp.last;
                let (cb, eb) = (self.cb, self.eb);
                let cand = Cand {
                    e: inp.e.map(|v| wrap_bits(v, eb)),
                    a: inp.a.map(|v| wrap_bits(v as i64, cb) as i32),
                    b: inp.b.map(|v| wrap_bits(v as i64, cb) as i32),
                    none: inp.none || !covered,
                    ..*inp
                };
                self.job = Job {
                    cand,
                    trivial: trivial && !inp.none,
                };
            } else if out_ready {
                self.valid = false;
            }
        }
    }
}

crate::cycle_model_signature! {
    /// subtile_coverage's ports: candidate tiles in, sub-tile jobs out.
    pub SubtileCoverage "subtile_coverage" for SubtileCoverageCycle: Cand -> Job
}
