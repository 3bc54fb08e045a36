//! Sample rasterizer ("采样点光栅化器", seed 000 claim 1; fig. 6 block 615).
//!
//! For each first sub-tile the coverage stage passed on, computes the *first mask value* of
//! every sample of every pixel (SPEC §2 sample positions, fill rule folded into the biased
//! edges of `setup`), and writes it into the rasterized tile held by the recombiner
//! (`quad_packer::RasterTile`).
//!
//! - **Trivially accepted** sub-tile: every pixel inside the viewport gets the full mask; no
//!   sample is tested.
//! - **Partial** sub-tile: only pixels inside the triangle's bounding box can hold covered
//!   samples (the box bounds every vertex), so the pixels of `sub-tile ∩ bbox` are tested, all
//!   S samples each; the rest of the sub-tile keeps the preset (zero) mask. Edge values are
//!   evaluated incrementally: once per pixel row at its first pixel's corner, then `+a·256` per
//!   pixel; each sample adds a per-triangle constant `a·X_i + b·Y_i`. A sample is covered when
//!   the three biased values are ≥ 0 (tested as: the sign bit of their OR is clear).
//!
//! In:  `TriSetup`, `CoveredSubtile`s in walk order. Out: pixel masks in the `RasterTile`
//! (position-addressed, so the order of writes does not matter), in the same walk order.
//!
//! ```text
//!   sub-tile ∩ bbox, pixel rows bottom-up, pixels left → right
//!   ┌───────────────┐          E_k(x+1, y) = E_k(x, y) + a_k·256
//!   │ · · ·▸· · · · │          sample i of pixel (x,y): E_k(x,y) + (a_k·X_i + b_k·Y_i)·16
//!   │ · ·▸· · · · · │          mask bit i = all three ≥ 0
//!   └───────────────┘
//! ```

use crate::config::{Config, ONE};
use crate::quad_packer::RasterTile;
use crate::samples;
use crate::setup::{PixelBox, TriSetup};
use crate::subtile_coverage::CoveredSubtile;

/// Counters of the sample rasterizer.
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq)]
pub struct SampleStats {
    /// Samples tested against the three edges (partial sub-tiles: pixels of sub-tile ∩ bbox × S).
    pub samples_tested: u64,
    /// Samples set by trivial accept without a test.
    pub samples_trivial: u64,
    /// Covered samples written (tested-and-covered plus trivial).
    pub samples_covered: u64,
}

impl SampleStats {
    /// Accumulate another set of counters.
    pub fn add(&mut self, o: &SampleStats) {
        self.samples_tested += o.samples_tested;
        self.samples_trivial += o.samples_trivial;
        self.samples_covered += o.samples_covered;
    }
}

/// Per-triangle constants of the sample rasterizer.
#[derive(Clone, Copy, Debug)]
pub struct SampleSetup {
    /// Samples per pixel.
    pub msaa: u32,
    /// `d[k][i] = a_k·X_i·16 + b_k·Y_i·16`: edge k's offset of sample i from the pixel corner.
    pub d: [[i64; 16]; 3],
    /// Full mask of one pixel.
    pub full: u16,
}

impl SampleSetup {
    /// Constants for `tri` at `cfg.msaa` (which must be a validated rate).
    pub fn new(cfg: &Config, tri: &TriSetup) -> SampleSetup {
        let mut d = [[0i64; 16]; 3];
        for (i, &(sx, sy)) in samples::offsets(cfg.msaa).iter().enumerate() {
            for k in 0..3 {
                d[k][i] = tri.edges[k].a * (sx as i64 * 16) + tri.edges[k].b * (sy as i64 * 16);
            }
        }
        SampleSetup { msaa: cfg.msaa, d, full: samples::pixel_full_mask(cfg.msaa) }
    }
}

/// First mask of one pixel, evaluated directly (for tests and single-pixel use).
pub fn pixel_mask(tri: &TriSetup, ss: &SampleSetup, x: u32, y: u32) -> u16 {
    let e = corner_values(tri, x, y);
    let mut m = 0u16;
    for i in 0..ss.msaa as usize {
        if (e[0] + ss.d[0][i]) | (e[1] + ss.d[1][i]) | (e[2] + ss.d[2][i]) >= 0 {
            m |= 1 << i;
        }
    }
    m
}

#[inline]
fn corner_values(tri: &TriSetup, x: u32, y: u32) -> [i64; 3] {
    let (px, py) = (x as i64 * ONE as i64, y as i64 * ONE as i64);
    [tri.edges[0].eval(px, py), tri.edges[1].eval(px, py), tri.edges[2].eval(px, py)]
}

/// Rasterize one covered sub-tile into the recombiner's tile.
pub fn raster_subtile(tri: &TriSetup, ss: &SampleSetup, cs: &CoveredSubtile, rt: &mut RasterTile, st: &mut SampleStats) {
    let r = cs.sub.rect;
    if cs.trivial {
        rt.open_subtile(&cs.sub, &r);
        let n = r.pixels() * ss.msaa as u64;
        st.samples_trivial += n;
        st.samples_covered += n;
        for y in r.y0..=r.y1 {
            for x in r.x0..=r.x1 {
                rt.or_pixel(x, y, ss.full);
            }
        }
        return;
    }
    let b = &tri.bbox;
    let reg = PixelBox { x0: r.x0.max(b.x0), y0: r.y0.max(b.y0), x1: r.x1.min(b.x1), y1: r.y1.min(b.y1) };
    if reg.x0 > reg.x1 || reg.y0 > reg.y1 {
        // Cannot happen after row/column rejection; keep the preset mask.
        rt.open_subtile(&cs.sub, &PixelBox { x0: r.x0, y0: r.y0, x1: r.x0, y1: r.y0 });
        return;
    }
    rt.open_subtile(&cs.sub, &reg);
    st.samples_tested += reg.pixels() * ss.msaa as u64;
    let covered = match ss.msaa {
        1 => rows::<1>(tri, ss, &reg, rt),
        2 => rows::<2>(tri, ss, &reg, rt),
        4 => rows::<4>(tri, ss, &reg, rt),
        8 => rows::<8>(tri, ss, &reg, rt),
        _ => rows::<16>(tri, ss, &reg, rt),
    };
    st.samples_covered += covered;
}

/// Test every sample of every pixel of `reg`; returns covered samples.
#[inline]
fn rows<const S: usize>(tri: &TriSetup, ss: &SampleSetup, reg: &PixelBox, rt: &mut RasterTile) -> u64 {
    let mut d = [[0i64; S]; 3];
    for k in 0..3 {
        d[k].copy_from_slice(&ss.d[k][..S]);
    }
    let step = [tri.edges[0].a * ONE as i64, tri.edges[1].a * ONE as i64, tri.edges[2].a * ONE as i64];
    let mut covered = 0u64;
    for y in reg.y0..=reg.y1 {
        let mut e = corner_values(tri, reg.x0, y);
        for x in reg.x0..=reg.x1 {
            let mut m = 0u16;
            for i in 0..S {
                let v = (e[0] + d[0][i]) | (e[1] + d[1][i]) | (e[2] + d[2][i]);
                m |= ((v >= 0) as u16) << i;
            }
            if m != 0 {
                covered += m.count_ones() as u64;
                rt.or_pixel(x, y, m);
            }
            e[0] += step[0];
            e[1] += step[1];
            e[2] += step[2];
        }
    }
    covered
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::prim::TriangleFx;
    use crate::setup::setup_triangle;

    #[test]
    fn pixel_masks_at_msaa2_by_hand() {
        // Triangle (4,0),(12,0),(4,8) px: inside iff x > 4.., y > 0.., x + y < 12 (hypotenuse
        // goes up-left, dy > 0 → exclusive). 2x samples at (.75,.75) bit 0 and (.25,.25) bit 1.
        // Pixel (4+u, y): bit 0 iff u+y+1.5 < 8 ⇔ u+y ≤ 6; bit 1 iff u+y+0.5 < 8 ⇔ u+y ≤ 7.
        let mut cfg = Config::preset("default").unwrap();
        cfg.msaa = 2;
        let t = setup_triangle(&cfg, &TriangleFx { v: [[1024, 0], [3072, 0], [1024, 2048]], colour: [0; 4], depth: 0 }).unwrap();
        let ss = SampleSetup::new(&cfg, &t);
        assert_eq!(pixel_mask(&t, &ss, 4, 0), 0b11);
        assert_eq!(pixel_mask(&t, &ss, 10, 0), 0b11); // u+y = 6
        assert_eq!(pixel_mask(&t, &ss, 11, 0), 0b10); // 7
        assert_eq!(pixel_mask(&t, &ss, 8, 3), 0b10); // 4+3 = 7
        assert_eq!(pixel_mask(&t, &ss, 8, 4), 0); // 4+4 = 8
        assert_eq!(pixel_mask(&t, &ss, 12, 0), 0); // 8
        assert_eq!(pixel_mask(&t, &ss, 3, 0), 0); // left of x = 4
    }
}
