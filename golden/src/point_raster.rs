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

impl PointStats {
    /// Add another set of counters to this one.
    pub fn add(&mut self, o: &PointStats) {
        self.points += o.points;
        self.tiles += o.tiles;
        self.quads_scanned += o.quads_scanned;
        self.quads_emitted += o.quads_emitted;
        for k in 0..5 {
            self.quads_by_lit[k] += o.quads_by_lit[k];
        }
        self.fragments += o.fragments;
        self.samples += o.samples;
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
