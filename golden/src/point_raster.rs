//! Point rasterizer (seed 003: point rasterization with odd/even point size), transaction
//! level.
//!
//! Implements the seed's claims 1–9: (1) the point coordinate is mapped to a *fragment
//! coordinate*, (2) the point size is rounded to N and its parity selects the scan-range
//! formula, (3–9) the range is scanned quad by quad and each quad lights 4, 2 or 1 fragments
//! depending on where the range edges cut it. With antialiasing on (`PointFx::aa`) every
//! sample is tested against the unrounded square instead (SPEC §2), also quad by quad.
//!
//! ```text
//!   PointFx ─► point_setup ─────────────► scan range [x_lo..=x_hi] × [y_lo..=y_hi] (pixels)
//!              N = round½↑(size), parity,   │ ∩ viewport ∩ screen tile
//!              fragment coordinate          ▼
//!                                        quad scan, rows bottom-up, left→right
//!                                          │ per quad: x span pattern × y span pattern
//!                                          │   (AA off: 4 / 2 / 1 fragments, all S bits)
//!                                          │   (AA on : column ∩ row sample masks)
//!                                          ▼
//!                                        Quad { prim, qx, qy, mask }   (non-empty only)
//! ```
//!
//! **Setup (AA off), SPEC §2.** N = size rounded half up, clamped to `1..=max_point_size`.
//! Fragment coordinate: odd N → (⌊x⌋, ⌊y⌋) (the pixel holding the point, centre at +½);
//! even N → (⌊x + ½⌋, ⌊y + ½⌋) (the nearest pixel corner). Scan range, inclusive:
//! odd `[x1 − (N−1)/2, x1 + (N−1)/2]`, even `[x1 − N/2, x1 + N/2 − 1]`, likewise in y: exactly
//! the N×N pixels whose centres lie inside the N-wide square around the centre. Every step is
//! an add or a shift, so the RTL mirrors [`point_setup`] bit for bit.
//!
//! **Setup (AA on).** The square `[x − s/2, x + s/2) × [y − s/2, y + s/2)` (s unrounded, in
//! 1/256 px, negative taken as 0 and clamped to `max_point_size` like N, as
//! `reference::point` does) is kept in 1/512 px so it is exact; the scan range is the pixels
//! it meets.
//!
//! **Quad masks.** Along one axis, a quad column (or row) q holds pixels 2q and 2q+1; its
//! *span pattern* is bit 0 = "2q in range", bit 1 = "2q+1 in range" ([`span_pattern`]). The
//! seed's cases are exactly the values of this pattern: interior quads 0b11; the first quad
//! when the range starts on an odd pixel 0b10 (seed figs. 6 / 9: upper / right fragments);
//! the last quad when the range ends on an even pixel 0b01 (figs. 7 / 8: lower / left); a
//! range that starts and ends in the same quad gives 0b11, 0b01 or 0b10 from the parities of
//! its ends (figs. 10–14). The quad lights pixel i = 2·yb + xb iff x-pattern bit xb and
//! y-pattern bit yb are set, hence 4, 2 or 1 fragments (never 3: the range is a rectangle).
//! A lit pixel sets all S sample bits. Viewport clipping clips the range first, so it is
//! still a rectangle. With AA on, pixel (x, y)'s mask is `col(x) & row(y)`, where `col(x)` is
//! the set of samples whose x lies in the square's x interval (the square is axis-aligned, so
//! the per-sample test separates); a quad may then light any of 0–4 pixels.
//!
//! **Where the seed and the SPEC differ** (the SPEC is normative): (a) the seed maps the point
//! to the fragment coordinate `int(x + 0.5)` for both parities; the SPEC takes ⌊x⌋ for odd N
//! (so an odd point is centred on the pixel holding it) and ⌊x + ½⌋ for even N; `int` is read
//! as floor, also for negative coordinates. (b) The seed's range ends, e.g. odd
//! `xmax = int(x1 + 0.5 + N/2)`, would give N + 1 pixels if inclusive; here the range is
//! inclusive with exactly N pixels per axis. (c) The seed's "fourth unit" lights 4 fragments
//! when a range starts and ends in one quad on both axes with `xmin == xmax`, `ymin == ymax`;
//! that quad holds one pixel of the range, and lights 1 here (N = 1, or a clipped corner).
//!
//! **Output order (contract).** [`raster_point_tile`]: the quads of one screen tile, rows
//! bottom-up (qy ascending), within a row left→right (qx ascending); only non-empty quads.
//! [`raster_point`]: the tiles the point's clipped scan range touches, tile rows bottom-up,
//! within a row left→right, each contributing its quads in the order above. Tiles are even
//! sized, so a quad never straddles two tiles.

use crate::config::Config;
use crate::counters::counters;
use crate::prim::{PointFx, Quad};
use crate::reference::point_size_n;
use crate::samples;
use crate::setup::PixelBox;

/// A set-up point: what the RTL's point-setup block computes.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct PointSetup {
    /// Antialiasing on: per-sample square test.
    pub aa: bool,
    /// Rounded size N (AA off; also computed, but unused, with AA on).
    pub n: u32,
    /// N is odd.
    pub odd: bool,
    /// AA off: the seed's fragment coordinate (x1, y1), in pixels (odd: ⌊p⌋, even: ⌊p + ½⌋).
    /// AA on: ⌊p⌋.
    pub frag: [i64; 2],
    /// The covered square `[x0, x1) × [y0, y1)` in 1/512 px, as `[x0, y0, x1, y1]`. AA off:
    /// the N-wide square around the snapped centre (a pixel is lit iff its centre is inside);
    /// AA on: the unrounded square around the position.
    pub square: [i64; 4],
    /// Scan range in pixels, inclusive, not clipped: `[x_lo, y_lo, x_hi, y_hi]`; empty when
    /// `x_hi < x_lo` (AA on with size 0).
    pub range: [i64; 4],
}

counters! {
    /// Counters of the point rasterizer. Each field is a plain sum, so [`PointStats::add`]
    /// accumulates them.
    #[derive(Clone, Copy, Debug, Default, PartialEq, Eq)]
    pub struct PointStats {
        /// Points set up by [`raster_point`] (not counted by [`raster_point_tile`]).
        pub points: u64,
        /// (point, screen tile) pairs scanned.
        pub tiles: u64,
        /// Quads visited by the quad scan (scan range ∩ viewport ∩ tile, in quads).
        pub quads_scanned: u64,
        /// Non-empty quads emitted.
        pub quads_emitted: u64,
        /// `quads_by_lit[k]`: scanned quads with exactly k pixels lit (k = 0..=4). Index 0 is
        /// only reachable with AA on; index 3 likewise.
        pub quads_by_lit: [u64; 5],
        /// Fragments = pixels with at least one covered sample.
        pub fragments: u64,
        /// Covered samples.
        pub samples: u64,
    }
}

/// Point setup (seed claims 1–2, SPEC §2): rounded size, parity, fragment coordinate, covered
/// square and scan range. Pure function of its inputs; never panics (all arithmetic in i64).
pub fn point_setup(cfg: &Config, p: &PointFx) -> PointSetup {
    let (px, py) = (p.pos[0] as i64, p.pos[1] as i64);
    let n = point_size_n(cfg, p.size);
    let odd = n & 1 == 1;
    if !p.aa {
        // Fragment coordinate (the seed's "first preset algorithm", with SPEC's choice of
        // floor for odd sizes and round-half-up for even sizes).
        let frag = if odd {
            [px >> 8, py >> 8]
        } else {
            [(px + 128) >> 8, (py + 128) >> 8]
        };
        // Second / third preset algorithm: the inclusive scan range.
        let lo = |c: i64| if odd { c - (n - 1) / 2 } else { c - n / 2 };
        let range = [lo(frag[0]), lo(frag[1]), lo(frag[0]) + n - 1, lo(frag[1]) + n - 1];
        // Square in 1/512 px: [lo, hi + 1) pixel edges.
        let square = [
            range[0] * 512,
            range[1] * 512,
            (range[2] + 1) * 512,
            (range[3] + 1) * 512,
        ];
        PointSetup {
            aa: false,
            n: n as u32,
            odd,
            frag,
            square,
            range,
        }
    } else {
        let s = (p.size.max(0) as i64).min(cfg.max_point_size as i64 * 256);
        let square = [2 * px - s, 2 * py - s, 2 * px + s, 2 * py + s];
        // Pixels meeting the half-open square: [x0 / 512, (x1 − 1) / 512]; empty if s = 0.
        let range = if s > 0 {
            [
                square[0] >> 9,
                square[1] >> 9,
                (square[2] - 1) >> 9,
                (square[3] - 1) >> 9,
            ]
        } else {
            [0, 0, -1, -1]
        };
        PointSetup {
            aa: true,
            n: n as u32,
            odd,
            frag: [px >> 8, py >> 8],
            square,
            range,
        }
    }
}

/// Inclusive range clipped to `[lo, hi]` on both axes; `None` if empty.
#[inline]
fn clip(r: [i64; 4], x0: i64, y0: i64, x1: i64, y1: i64) -> Option<[i64; 4]> {
    let c = [r[0].max(x0), r[1].max(y0), r[2].min(x1), r[3].min(y1)];
    (c[0] <= c[2] && c[1] <= c[3]).then_some(c)
}

fn viewport_clip(cfg: &Config, su: &PointSetup) -> Option<[i64; 4]> {
    clip(su.range, 0, 0, cfg.viewport[0] as i64 - 1, cfg.viewport[1] as i64 - 1)
}

/// Pixels that may be covered by the point, clipped to the viewport (used by the binner).
/// `None` when the point misses the viewport or covers nothing (AA on, size 0).
pub fn point_bbox(cfg: &Config, p: &PointFx) -> Option<PixelBox> {
    let r = viewport_clip(cfg, &point_setup(cfg, p))?;
    Some(PixelBox {
        x0: r[0] as u32,
        y0: r[1] as u32,
        x1: r[2] as u32,
        y1: r[3] as u32,
    })
}

/// Span pattern of quad column/row `q` against the inclusive range `[lo, hi]` (seed's span
/// cases, see the module header): bit 0 set iff pixel 2q is in range, bit 1 iff 2q+1 is.
#[inline]
pub fn span_pattern(q: i64, lo: i64, hi: i64) -> u8 {
    let a = 2 * q;
    ((lo..=hi).contains(&a) as u8) | (((lo..=hi).contains(&(a + 1)) as u8) << 1)
}

/// The 4-bit lit-pixel set of a quad from its x and y span patterns: pixel i = 2·yb + xb.
#[inline]
pub fn quad_pixels(xpat: u8, ypat: u8) -> u8 {
    let row = xpat & 3;
    (if ypat & 1 != 0 { row } else { 0 }) | (if ypat & 2 != 0 { row << 2 } else { 0 })
}

/// Quads of one screen tile `tile = [tx, ty]` (pixels `[tx·tw, (tx+1)·tw) × [ty·th, (ty+1)·th)`
/// clipped to the viewport), rows bottom-up, left→right, non-empty only. A tile outside the
/// viewport yields nothing.
pub fn raster_point_tile(cfg: &Config, p: &PointFx, prim: u32, tile: [u32; 2], st: &mut PointStats) -> Vec<Quad> {
    let su = point_setup(cfg, p);
    let mut out = Vec::new();
    raster_setup_tile(cfg, &su, prim, tile, st, &mut out);
    out
}

/// Every quad of the point, over all tiles its clipped scan range touches: tile rows
/// bottom-up, left→right; inside a tile as [`raster_point_tile`].
pub fn raster_point(cfg: &Config, p: &PointFx, prim: u32, st: &mut PointStats) -> Vec<Quad> {
    st.points += 1;
    let su = point_setup(cfg, p);
    let mut out = Vec::new();
    let Some(r) = viewport_clip(cfg, &su) else { return out };
    let (tw, th) = (cfg.tile[0] as i64, cfg.tile[1] as i64);
    for ty in r[1] / th..=r[3] / th {
        for tx in r[0] / tw..=r[2] / tw {
            raster_setup_tile(cfg, &su, prim, [tx as u32, ty as u32], st, &mut out);
        }
    }
    out
}

/// The quad scan of one tile for a set-up point, appending to `out`.
pub fn raster_setup_tile(
    cfg: &Config,
    su: &PointSetup,
    prim: u32,
    tile: [u32; 2],
    st: &mut PointStats,
    out: &mut Vec<Quad>,
) {
    st.tiles += 1;
    let (tw, th) = (cfg.tile[0] as i64, cfg.tile[1] as i64);
    let (tx0, ty0) = (tile[0] as i64 * tw, tile[1] as i64 * th);
    let (vw, vh) = (cfg.viewport[0] as i64, cfg.viewport[1] as i64);
    let Some(r) = clip(
        su.range,
        tx0.max(0),
        ty0.max(0),
        (tx0 + tw - 1).min(vw - 1),
        (ty0 + th - 1).min(vh - 1),
    ) else {
        return;
    };
    let s = cfg.msaa;
    let full = samples::pixel_full_mask(s) as u64;
    let (qx0, qy0, qx1, qy1) = (r[0] >> 1, r[1] >> 1, r[2] >> 1, r[3] >> 1);
    st.quads_scanned += ((qx1 - qx0 + 1) * (qy1 - qy0 + 1)) as u64;
    if !su.aa {
        for qy in qy0..=qy1 {
            let ypat = span_pattern(qy, r[1], r[3]);
            for qx in qx0..=qx1 {
                let pix = quad_pixels(span_pattern(qx, r[0], r[2]), ypat);
                let mut mask = 0u64;
                for i in 0..4 {
                    if pix >> i & 1 != 0 {
                        mask |= full << (i * s);
                    }
                }
                let lit = pix.count_ones();
                st.quads_by_lit[lit as usize] += 1;
                // Never empty: the quad lies inside the clipped range's quad span.
                st.quads_emitted += 1;
                st.fragments += lit as u64;
                st.samples += (lit * s) as u64;
                out.push(Quad {
                    prim,
                    qx: qx as u16,
                    qy: qy as u16,
                    mask,
                });
            }
        }
    } else {
        let offs = samples::offsets(s);
        let [sx0, sy0, sx1, sy1] = su.square;
        // Samples of pixel column x (row y) whose x (y) lies in the square's interval; pixels
        // outside the clipped range get 0.
        let axis = |v: i64, lo: i64, hi: i64, a: i64, b: i64, pick: fn(&(u8, u8)) -> u8| -> u64 {
            if v < lo || v > hi {
                return 0;
            }
            let mut m = 0u64;
            for (i, o) in offs.iter().enumerate() {
                let c = v * 512 + pick(o) as i64 * 32;
                if c >= a && c < b {
                    m |= 1 << i;
                }
            }
            m
        };
        for qy in qy0..=qy1 {
            let rows = [
                axis(2 * qy, r[1], r[3], sy0, sy1, |o| o.1),
                axis(2 * qy + 1, r[1], r[3], sy0, sy1, |o| o.1),
            ];
            for qx in qx0..=qx1 {
                let cols = [
                    axis(2 * qx, r[0], r[2], sx0, sx1, |o| o.0),
                    axis(2 * qx + 1, r[0], r[2], sx0, sx1, |o| o.0),
                ];
                let mut mask = 0u64;
                let mut lit = 0u32;
                for i in 0..4u32 {
                    let m = cols[(i & 1) as usize] & rows[(i >> 1) as usize];
                    if m != 0 {
                        lit += 1;
                        mask |= m << (i * s);
                    }
                }
                st.quads_by_lit[lit as usize] += 1;
                if mask != 0 {
                    st.quads_emitted += 1;
                    st.fragments += lit as u64;
                    st.samples += mask.count_ones() as u64;
                    out.push(Quad {
                        prim,
                        qx: qx as u16,
                        qy: qy as u16,
                        mask,
                    });
                }
            }
        }
    }
}

pub use cycle::*;

pub mod cycle {
    //! The cycle model of `hw/src/point_raster.rs`: same registers, same cycle, every port (truth
    //! layer 3, see [`crate::cycle`]); the transaction model above is the truth it is checked
    //! against. Its items are re-exported at the stage's top level.
    //!
    //! `PointRasterCycle` mirrors the registers of `hw/src/point_raster.rs` (see that file's
    //! header for the ports). Its rustdoc is the block's timing contract; this comment is the
    //! arithmetic.
    //!
    //! ```text
    //!  cmd ─► [accept] ─► SX ─► SY ─► SCAN (one step per cycle) ─► out register ─► beat
    //!          N, s, K      x axis  y axis   Q quads of one quad row per step
    //!          (adds)       unit    unit
    //!                       └─ one shared axis unit, time-multiplexed ─┘
    //! ```
    //!
    //! The scan range per axis is `[A0, A1]` in 1/16 px (the sample grid): A0 is the first, A1 the
    //! last 1/16-px position that is covered, clipped to the tile and the viewport. AA off:
    //! `A0 = 16·lo`, `A1 = 16·hi + 15` with `lo, hi` = [`point_setup`]'s range (N×N pixels);
    //! AA on: `A0 = ⌈(2p − s)/32⌉`, `A1 = ⌊(2p + s − 1)/32⌋` (the half-open square in 1/512 px).
    //! Both come from one adder each: `(2p + K) >> 5` with `K = ∓256(N−1)` (AA off, then the low
    //! 4 bits are cleared / set) or `K = 31 − s`, `s − 1` (AA on). Pixel `P0 = A0 >> 4`, quad
    //! `Q0 = A0 >> 5`, `P0` odd = bit 4, in-pixel threshold `lo4 = A0 & 15` (likewise P1, hi4).
    //! The seed's span cases: the first quad column (q = Q0) with P0 odd lights only its right
    //! pixel; the last (q = Q1) with P1 even only its left pixel; in between both. With AA the edge
    //! pixels light only the samples at or right of lo4 / at or left of hi4 (`ge`/`le` tables), so
    //! the pixel mask is `col(x) & row(y)` exactly as in [`raster_setup_tile`]. AA on, the scanned
    //! range can be smaller than golden's (pixels with no covered sample at the range ends are not
    //! visited); the emitted quads are the same.

    use super::*;

    use crate::cycle::CycleModel;
    use crate::streams::{Beat, Cmd, LANES};

    const ST_IDLE: u8 = 0;
    const ST_SX: u8 = 1;
    const ST_SY: u8 = 2;
    const ST_SCAN: u8 = 3;

    /// The point a point command describes (`v[0]`, `size`, `aa`).
    pub fn point_of_cmd(c: &Cmd) -> PointFx {
        PointFx {
            pos: c.v[0],
            size: c.size as i32,
            aa: c.aa,
            colour: [0; 4],
            depth: 0,
        }
    }

    /// What golden says a point command produces: the quads of `raster_point_tile` for its tile.
    pub fn cmd_quads(cfg: &Config, c: &Cmd) -> Vec<Quad> {
        raster_point_tile(
            cfg,
            &point_of_cmd(c),
            c.prim,
            [c.tile_x, c.tile_y],
            &mut PointStats::default(),
        )
    }

    /// Edge-pixel sample tables of the point block, per axis (0 = x, 1 = y) and threshold
    /// v = 0..16: `ge[a][v]` = samples whose offset on axis a is ≥ v, `le[a][v]` = ≤ v (1/16 px).
    pub fn edge_sample_tables(msaa: u32) -> ([[u16; 16]; 2], [[u16; 16]; 2]) {
        let offs = samples::offsets(msaa);
        let mut ge = [[0u16; 16]; 2];
        let mut le = [[0u16; 16]; 2];
        for a in 0..2 {
            for v in 0..16u8 {
                for (i, o) in offs.iter().enumerate() {
                    let c = if a == 0 { o.0 } else { o.1 };
                    if c >= v {
                        ge[a][v as usize] |= 1 << i;
                    }
                    if c <= v {
                        le[a][v as usize] |= 1 << i;
                    }
                }
            }
        }
        (ge, le)
    }

    /// One axis of the point setup: what the shared axis unit computes (and the block registers).
    #[derive(Clone, Copy, Debug, Default, PartialEq, Eq)]
    pub struct PointAxis {
        /// First quad column (row), 12 bits: bits [5, 17) of the clipped A0.
        pub q0: u32,
        /// Last minus first quad, 8 bits (wrapping).
        pub nq: u32,
        /// First / last pixel of the range is odd.
        pub p0odd: bool,
        pub p1odd: bool,
        /// In-pixel thresholds (1/16 px) of the first / last pixel.
        pub lo4: u32,
        pub hi4: u32,
        /// Clipped range empty on this axis.
        pub empty: bool,
    }

    /// Preset constants of the block.
    #[derive(Clone, Debug, PartialEq, Eq)]
    struct PrConsts {
        q: u32,
        s: u32,
        full: u64,
        tile_shift: [u32; 2],
        tile: [u32; 2],
        vp: [u32; 2],
        max_n: u32,
        max_s: u32,
        ge: [[u16; 16]; 2],
        le: [[u16; 16]; 2],
    }

    /// Cycle model of the point rasterizer block (`hw/src/point_raster.rs`), In = [`Cmd`]
    /// (kind must be point; uses `prim`, `tile_x`, `tile_y`, `v[0]`, `size`, `aa`), Out = [`Beat`]
    /// (`block` always 0). The scan range and span cases are in the `cycle model` section comment
    /// of this file.
    ///
    /// # Timing contract
    ///
    /// The one statement of the point rasterizer's timing; the RTL is held to it on every port and
    /// cycle (`hw/tests/point_raster.rs`, `cosim/tests/point_raster.rs`). "Accepted at edge t"
    /// means `in_valid` and `in_ready` are high in cycle t (the transfer happens at the rising
    /// edge ending it). States: IDLE → SX (x axis) → SY (y axis) → SCAN.
    ///
    /// * **Handshake:** with `advance` = ¬out_valid ∨ out_ready, `in_ready` = IDLE ∨ (SCAN ∧ final
    ///   step ∧ advance), the only combinational input → output path.
    /// * **Latency 4:** a command accepted at edge t is in SX in cycle t + 1, in SY in t + 2, makes
    ///   its first scan step in t + 3, and that step's beat is on the output from t + 4.
    /// * **Scan steps:** one per cycle with `advance` (otherwise the scan holds). A quad row of w
    ///   quads (scan range ∩ tile ∩ viewport) takes ⌈w / Q⌉ steps, h rows h·⌈w / Q⌉ steps; a
    ///   command whose range misses the tile takes 1 step (a bare `last` beat, no lane valid).
    ///   A step whose Q quads are all empty (AA on only) spends its cycle and emits nothing; the
    ///   final step always emits and carries `last`.
    /// * **Throughput:** the next command is accepted at the edge of the previous command's final
    ///   step, so back to back, without output stalls, a command of k steps takes k + 2 cycles (one
    ///   each for SX and SY): a one-quad point every 3 cycles.
    /// * **Flush:** every register returns to the state of [`PointRasterCycle::new`] (IDLE, output
    ///   register emptied and zeroed).
    #[derive(Clone, Debug, PartialEq, Eq)]
    pub struct PointRasterCycle {
        k: PrConsts,
        st: u8,
        // Accept stage.
        prim: u32,
        org: [u32; 2],
        pos: [i32; 2],
        klo: i32,
        khi: i32,
        aa: bool,
        // x axis (SX).
        ax: PointAxis,
        // y axis edges (SY).
        ay: PointAxis,
        // Scan.
        cur_x: u32,
        rem_x: u32,
        col_first: bool,
        cur_y: u32,
        rem_y: u32,
        row_first: bool,
        empty: bool,
        // Output register.
        out_valid: bool,
        out: Beat,
    }

    impl PointRasterCycle {
        pub fn new(cfg: &Config) -> Self {
            let (ge, le) = edge_sample_tables(cfg.msaa);
            let k = PrConsts {
                q: cfg.quads_per_clock,
                s: cfg.msaa,
                full: samples::pixel_full_mask(cfg.msaa) as u64,
                tile_shift: [cfg.tile[0].trailing_zeros(), cfg.tile[1].trailing_zeros()],
                tile: cfg.tile,
                vp: cfg.viewport,
                max_n: cfg.max_point_size,
                max_s: cfg.max_point_size * 256,
                ge,
                le,
            };
            Self::with_consts(k)
        }

        fn with_consts(k: PrConsts) -> Self {
            PointRasterCycle {
                k,
                st: ST_IDLE,
                prim: 0,
                org: [0; 2],
                pos: [0; 2],
                klo: 0,
                khi: 0,
                aa: false,
                ax: PointAxis::default(),
                ay: PointAxis::default(),
                cur_x: 0,
                rem_x: 0,
                col_first: false,
                cur_y: 0,
                rem_y: 0,
                row_first: false,
                empty: false,
                out_valid: false,
                out: Beat::default(),
            }
        }

        /// Idle: nothing accepted is still being worked on and the output register is empty.
        pub fn is_idle(&self) -> bool {
            self.st == ST_IDLE && !self.out_valid
        }

        /// The accept stage: (K_lo, K_hi) of the two axis adders from the size (see header).
        fn ks(&self, size: u32, aa: bool) -> (i32, i32) {
            let n_raw = (size + 128) >> 8;
            let n = if n_raw == 0 { 1 } else { n_raw.min(self.k.max_n) };
            let d = ((n - 1) << 8) as i32;
            let s = size.min(self.k.max_s) as i32;
            if aa {
                (31 - s, s - 1)
            } else {
                (-d, d)
            }
        }

        /// The shared axis unit: clipped range of axis `a` (0 = x, 1 = y) from the accept registers.
        pub fn axis(&self, a: usize) -> PointAxis {
            let two = 2 * self.pos[a] as i64;
            let (a0raw, a1raw) = ((two + self.klo as i64) >> 5, (two + self.khi as i64) >> 5);
            let (a0, a1) = if self.aa {
                (a0raw, a1raw)
            } else {
                (a0raw & !15, a1raw | 15)
            };
            let org = self.org[a];
            let cl = (org as i64) << 4;
            let end = org + self.k.tile[a];
            let vend = end.min(self.k.vp[a]);
            let ch = ((vend as i64) << 4) - 1;
            let a0c = a0.max(cl);
            let a1c = a1.min(ch);
            let q0 = ((a0c >> 5) & 0xfff) as u32;
            let q1 = ((a1c >> 5) & 0xfff) as u32;
            PointAxis {
                q0,
                nq: q1.wrapping_sub(q0) & 0xff,
                p0odd: (a0c >> 4) & 1 == 1,
                p1odd: (a1c >> 4) & 1 == 1,
                lo4: (a0c & 15) as u32,
                hi4: (a1c & 15) as u32,
                empty: a0c > a1c,
            }
        }

        /// Edge column (row) masks of axis `a`: (first quad pixel 0, pixel 1, last quad pixel 0,
        /// pixel 1).
        fn edges(&self, a: usize, e: &PointAxis) -> [u64; 4] {
            let f = self.k.full;
            let mlo = self.k.ge[a][e.lo4 as usize] as u64 & f;
            let mhi = self.k.le[a][e.hi4 as usize] as u64 & f;
            [
                if e.p0odd { 0 } else { mlo },
                if e.p0odd { mlo } else { f },
                if e.p1odd { f } else { mhi },
                if e.p1odd { mhi } else { 0 },
            ]
        }

        fn end_row(&self) -> bool {
            self.rem_x < self.k.q
        }

        fn final_step(&self) -> bool {
            self.empty || (self.end_row() && self.rem_y == 0)
        }

        /// The beat the current scan step produces, and whether it is emitted.
        fn scan_beat(&self) -> (Beat, bool) {
            let f = self.k.full;
            let s = self.k.s;
            let ex = self.edges(0, &self.ax);
            let ey = self.edges(1, &self.ay);
            let last_row = self.rem_y == 0;
            let sel = |c: bool, m: u64| if c { m } else { f };
            let r0 = sel(self.row_first, ey[0]) & sel(last_row, ey[2]);
            let r1 = sel(self.row_first, ey[1]) & sel(last_row, ey[3]);
            let fin = self.final_step();
            let mut b = Beat {
                prim: self.prim,
                kind: 1,
                last: fin,
                ..Beat::default()
            };
            for l in 0..LANES {
                if l as u32 >= self.k.q {
                    continue;
                }
                b.qx[l] = (self.cur_x + l as u32) & 0xfff;
                b.qy[l] = self.cur_y;
                let inr = l as u32 <= self.rem_x && !self.empty;
                let fc = self.col_first && l == 0;
                let g = self.rem_x == l as u32;
                let c0 = sel(fc, ex[0]) & sel(g, ex[2]);
                let c1 = sel(fc, ex[1]) & sel(g, ex[3]);
                let m = (c0 & r0) | (c1 & r0) << s | (c0 & r1) << (2 * s) | (c1 & r1) << (3 * s);
                b.mask[l] = if inr { m } else { 0 };
                if b.mask[l] != 0 {
                    b.lane_valid |= 1 << l;
                }
            }
            let emit = b.lane_valid != 0 || fin;
            (b, emit)
        }
    }

    impl CycleModel for PointRasterCycle {
        type In = Cmd;
        type Out = Beat;

        fn out(&self) -> (bool, Beat) {
            (self.out_valid, self.out)
        }

        fn in_ready(&self, out_ready: bool) -> bool {
            let advance = !self.out_valid || out_ready;
            self.st == ST_IDLE || (self.st == ST_SCAN && self.final_step() && advance)
        }

        fn clock(&mut self, in_valid: bool, inp: &Cmd, out_ready: bool, flush: bool) {
            if flush {
                *self = Self::with_consts(self.k.clone());
                return;
            }
            let advance = !self.out_valid || out_ready;
            let accept = in_valid && self.in_ready(out_ready);
            let mut n = self.clone();
            if self.out_valid && out_ready {
                n.out_valid = false;
            }
            match self.st {
                ST_SX => {
                    n.ax = self.axis(0);
                    n.st = ST_SY;
                }
                ST_SY => {
                    let ay = self.axis(1);
                    n.ay = ay;
                    n.cur_x = self.ax.q0;
                    n.rem_x = self.ax.nq;
                    n.col_first = true;
                    n.cur_y = ay.q0;
                    n.rem_y = ay.nq;
                    n.row_first = true;
                    n.empty = self.ax.empty || ay.empty;
                    n.st = ST_SCAN;
                }
                ST_SCAN if advance => {
                    let (b, emit) = self.scan_beat();
                    if emit {
                        n.out = b;
                        n.out_valid = true;
                    } else {
                        n.out_valid = false;
                    }
                    if self.end_row() {
                        n.cur_x = self.ax.q0;
                        n.rem_x = self.ax.nq;
                        n.col_first = true;
                        n.cur_y = (self.cur_y + 1) & 0xfff;
                        n.rem_y = self.rem_y.wrapping_sub(1) & 0xff;
                        n.row_first = false;
                    } else {
                        n.cur_x = (self.cur_x + self.k.q) & 0xfff;
                        n.rem_x = self.rem_x.wrapping_sub(self.k.q) & 0xff;
                        n.col_first = false;
                    }
                    if self.final_step() {
                        n.st = ST_IDLE;
                    }
                }
                _ => {}
            }
            if accept {
                debug_assert!(inp.prim < 1 << 24 && inp.tile_x < 256 && inp.tile_y < 256 && inp.size < 1 << 24);
                debug_assert!(inp.v[0].iter().all(|&c| (-(1 << 23)..1 << 23).contains(&c)));
                let (klo, khi) = self.ks(inp.size, inp.aa);
                n.prim = inp.prim;
                n.org = [inp.tile_x << self.k.tile_shift[0], inp.tile_y << self.k.tile_shift[1]];
                n.pos = inp.v[0];
                n.klo = klo;
                n.khi = khi;
                n.aa = inp.aa;
                n.st = ST_SX;
            }
            *self = n;
        }
    }
}

crate::cycle_model_signature! {
    /// point_raster's ports: commands in (the point fields), quad beats out.
    pub PointRaster "point_raster" for PointRasterCycle: Cmd -> Beat
}
