//! Sample rasterizer ("采样点光栅化器", seed 000 claim 1; fig. 6 block 615).
//!
//! For each first sub-tile the coverage stage passed on, computes the *first mask value* of
//! every sample of every pixel (SPEC §2 sample positions, fill rule folded into the biased
//! edges of `setup`), quad by quad (2×2 pixels, SPEC §2 quad mask layout).
//!
//! - **Trivially accepted** sub-tile: every pixel inside the viewport gets the full mask; no
//!   sample is tested.
//! - **Partial** sub-tile: only pixels inside the triangle's bounding box can hold covered
//!   samples (the box bounds every vertex), so the *region* `sub-tile ∩ bbox` is rasterized,
//!   all S samples of each of its pixels (`samples_tested` counts them all); the rest of the
//!   sub-tile keeps the preset (zero) mask. Edge values are evaluated incrementally: once per
//!   quad row at its first quad's corner, then `+2·a·256` per quad; sample i of quad pixel p
//!   adds a per-triangle constant (`SampleSetup::dq`). A sample is covered when the three
//!   biased values are ≥ 0 (tested as: the sign bit of their OR is clear). Model shortcuts
//!   with identical results: quads (at 8x/16x also pixels) wholly outside one edge, or wholly
//!   inside all three, are decided without evaluating each sample.
//!
//! In:  `TriSetup`, `CoveredSubtile`s in walk order.
//! Out: per sub-tile, `QuadSink::open_subtile(sub, region)` then `set_quad` for **every quad
//!      meeting the region** (zero masks included), in row order bottom-up, left → right. The
//!      sink is the recombiner's `RasterTile`, or, when the packer's groups are the first
//!      sub-tiles, the `StreamPacker`, which emits the non-zero quads as they come.
//!
//! ```text
//!   region = sub-tile ∩ bbox, quad rows bottom-up, quads left → right
//!   ┌─────┬─────┬─────┐      E_k(quad corner + 2 px) = E_k(corner) + 2·a_k·256
//!   │ 3 ▸ │ 4 ▸ │ 5   │      sample i of pixel p: E_k(corner) + dq[k][p·S + i]
//!   ├─────┼─────┼─────┤      mask bit p·S + i = all three ≥ 0
//!   │ 0 ▸ │ 1 ▸ │ 2   │
//!   └─────┴─────┴─────┘
//! ```

use crate::config::{Config, ONE};
use crate::counters::counters;
use crate::quad_packer::QuadSink;
use crate::samples;
use crate::setup::{PixelBox, TriSetup};
use crate::subtile_coverage::CoveredSubtile;

counters! {
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
}

/// Per-triangle constants of the sample rasterizer.
#[derive(Clone, Copy, Debug)]
pub struct SampleSetup {
    /// Samples per pixel.
    pub msaa: u32,
    /// `d[k][i] = a_k·X_i·16 + b_k·Y_i·16`: edge k's offset of sample i from the pixel corner.
    pub d: [[i64; 16]; 3],
    /// `dq[k][p·S + i]`: edge k's offset of sample i of quad pixel p (0 bottom-left,
    /// 1 bottom-right, 2 top-left, 3 top-right) from the quad's bottom-left corner; the index
    /// is the sample's quad mask bit.
    pub dq: [[i64; 64]; 3],
    /// Per edge, the smallest and largest `dq` (bounds over the quad's samples).
    pub dq_min: [i64; 3],
    pub dq_max: [i64; 3],
    /// Per edge and quad pixel, the largest offset of that pixel's samples.
    pub dp_max: [[i64; 4]; 3],
    /// Full mask of one pixel.
    pub full: u16,
}

impl SampleSetup {
    /// Constants for `tri` at `cfg.msaa` (which must be a validated rate).
    pub fn new(cfg: &Config, tri: &TriSetup) -> SampleSetup {
        let mut ss = SampleSetup::empty();
        ss.set(cfg, tri);
        ss
    }

    /// All-zero constants (to be [`SampleSetup::set`]).
    pub fn empty() -> SampleSetup {
        SampleSetup {
            msaa: 1,
            d: [[0; 16]; 3],
            dq: [[0; 64]; 3],
            dq_min: [0; 3],
            dq_max: [0; 3],
            dp_max: [[0; 4]; 3],
            full: 1,
        }
    }

    /// Recompute in place for `tri` at `cfg.msaa` (which must be a validated rate).
    pub fn set(&mut self, cfg: &Config, tri: &TriSetup) {
        match cfg.msaa {
            1 => self.fill::<1>(tri),
            2 => self.fill::<2>(tri),
            4 => self.fill::<4>(tri),
            8 => self.fill::<8>(tri),
            16 => self.fill::<16>(tri),
            m => panic!("unsupported MSAA rate {m} (Config::validate rejects it)"),
        }
    }

    #[allow(clippy::needless_range_loop)] // index arithmetic (p·S + i) is the point
    fn fill<const S: usize>(&mut self, tri: &TriSetup) {
        let one = ONE as i64;
        let offs = samples::offsets(S as u32);
        for k in 0..3 {
            let (a, b) = (tri.edges[k].a, tri.edges[k].b);
            let (mut lo, mut hi) = (i64::MAX, i64::MIN);
            let d = &mut self.d[k];
            for (i, &(sx, sy)) in offs.iter().enumerate().take(S) {
                let v = a * (sx as i64 * 16) + b * (sy as i64 * 16);
                d[i] = v;
                lo = lo.min(v);
                hi = hi.max(v);
            }
            // Quad pixel p sits (p & 1, p >> 1) pixels from the quad corner.
            let po = [0, a * one, b * one, (a + b) * one];
            for p in 0..4 {
                for i in 0..S {
                    self.dq[k][p * S + i] = d[i] + po[p];
                }
                self.dp_max[k][p] = hi + po[p];
            }
            self.dq_min[k] = lo + (a * one).min(0) + (b * one).min(0);
            self.dq_max[k] = hi + (a * one).max(0) + (b * one).max(0);
        }
        self.msaa = S as u32;
        self.full = samples::pixel_full_mask(S as u32);
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
    [
        tri.edges[0].eval(px, py),
        tri.edges[1].eval(px, py),
        tri.edges[2].eval(px, py),
    ]
}

/// Which pixels of quad (qx, qy) lie inside `r`: bit p for quad pixel p.
#[inline]
fn quad_inside(qx: u32, qy: u32, r: &PixelBox) -> u32 {
    let (x, y) = (2 * qx, 2 * qy);
    let cols = (x >= r.x0) as u32 | (((x < r.x1) as u32) << 1);
    let bottom = if y >= r.y0 { cols } else { 0 };
    let top = if y < r.y1 { cols } else { 0 };
    bottom | (top << 2)
}

/// Expand a 4-bit pixel set to quad mask bits (S bits per pixel).
#[inline]
fn expand(pixels: u32, full: u16, s: u32) -> u64 {
    (0..4)
        .filter(|p| pixels >> p & 1 == 1)
        .fold(0u64, |m, p| m | (full as u64) << (p * s))
}

/// Rasterize one covered sub-tile into `sink` (the recombiner's tile or the stream packer).
///
/// Work order: the quads of the region (trivial: the whole sub-tile; partial: sub-tile ∩
/// bbox) in rows bottom-up, left → right; inside a quad, pixels 0..3, samples 0..S−1.
pub fn raster_subtile<K: QuadSink>(
    tri: &TriSetup,
    ss: &SampleSetup,
    cs: &CoveredSubtile,
    sink: &mut K,
    st: &mut SampleStats,
) {
    let rt = sink;
    let r = cs.sub.rect;
    if cs.trivial {
        rt.open_subtile(&cs.sub, &r);
        let n = r.pixels() * ss.msaa as u64;
        st.samples_trivial += n;
        st.samples_covered += n;
        for qy in r.y0 / 2..=r.y1 / 2 {
            for qx in r.x0 / 2..=r.x1 / 2 {
                rt.set_quad(qx, qy, expand(quad_inside(qx, qy, &r), ss.full, ss.msaa));
            }
        }
        return;
    }
    let b = &tri.bbox;
    let reg = PixelBox {
        x0: r.x0.max(b.x0),
        y0: r.y0.max(b.y0),
        x1: r.x1.min(b.x1),
        y1: r.y1.min(b.y1),
    };
    if reg.x0 > reg.x1 || reg.y0 > reg.y1 {
        // Cannot happen after row/column rejection; the sub-tile keeps the preset mask.
        return;
    }
    rt.open_subtile(&cs.sub, &reg);
    st.samples_tested += reg.pixels() * ss.msaa as u64;
    st.samples_covered += match ss.msaa {
        1 => quads::<1, K>(tri, ss, &reg, rt),
        2 => quads::<2, K>(tri, ss, &reg, rt),
        4 => quads::<4, K>(tri, ss, &reg, rt),
        8 => quads::<8, K>(tri, ss, &reg, rt),
        _ => quads::<16, K>(tri, ss, &reg, rt),
    };
}

/// Test every sample of every pixel of `reg`, quad by quad, setting every quad of `reg` in `rt`;
/// returns the covered samples.
///
/// Model speed-ups with identical results: a quad (or a pixel) whose samples all lie outside
/// one edge (edge value + the largest sample offset < 0) is skipped, and a quad wholly inside
/// `reg` whose samples all lie inside every edge gets the full mask, without evaluating each
/// sample. `samples_tested` still counts every sample of the region (the hardware's
/// per-sample work).
#[inline]
#[allow(clippy::needless_range_loop)] // index arithmetic (p·S + i) is the point
fn quads<const S: usize, K: QuadSink>(tri: &TriSetup, ss: &SampleSetup, reg: &PixelBox, rt: &mut K) -> u64 {
    let full_quad = expand(0xF, ss.full, S as u32);
    let step = [
        tri.edges[0].a * 2 * ONE as i64,
        tri.edges[1].a * 2 * ONE as i64,
        tri.edges[2].a * 2 * ONE as i64,
    ];
    let (qmin, qmax, pmax) = (ss.dq_min, ss.dq_max, ss.dp_max);
    let (d0, d1, d2) = (&ss.dq[0][..4 * S], &ss.dq[1][..4 * S], &ss.dq[2][..4 * S]);
    let (qx0, qx1) = (reg.x0 / 2, reg.x1 / 2);
    let mut covered = 0u64;
    for qy in reg.y0 / 2..=reg.y1 / 2 {
        let mut e = corner_values(tri, 2 * qx0, 2 * qy);
        for qx in qx0..=qx1 {
            if (e[0] + qmax[0]) | (e[1] + qmax[1]) | (e[2] + qmax[2]) >= 0 {
                let inside = quad_inside(qx, qy, reg);
                let m = if inside == 0xF && (e[0] + qmin[0]) | (e[1] + qmin[1]) | (e[2] + qmin[2]) >= 0 {
                    full_quad
                } else {
                    let mut m = 0u64;
                    for p in 0..4 {
                        // (At ≤ 4 samples the per-pixel early-out costs more than it saves.)
                        if inside >> p & 1 == 1
                            && (S <= 4 || (e[0] + pmax[0][p]) | (e[1] + pmax[1][p]) | (e[2] + pmax[2][p]) >= 0)
                        {
                            for j in p * S..(p + 1) * S {
                                let v = (e[0] + d0[j]) | (e[1] + d1[j]) | (e[2] + d2[j]);
                                m |= ((v >= 0) as u64) << j;
                            }
                        }
                    }
                    m
                };
                covered += m.count_ones() as u64;
                rt.set_quad(qx, qy, m);
            } else {
                rt.set_quad(qx, qy, 0);
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
        let t = setup_triangle(
            &cfg,
            &TriangleFx {
                v: [[1024, 0], [3072, 0], [1024, 2048]],
                colour: [0; 4],
                depth: 0,
            },
        )
        .unwrap();
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

pub use cycle::*;

pub mod cycle {
    //! The cycle model of `hw/src/sample_raster.rs`: same registers, same cycle, every port (truth
    //! layer 3, see [`crate::cycle`]); the transaction model above is the truth it is checked
    //! against. Its items are re-exported at the stage's top level.
    //!
    //! Cycle model of the RTL block `hw/src/sample_raster.rs`: one `Job` (a covered first
    //! sub-tile, or a bare `last` token) in, `Beat`s of up to Q quads out.
    //!
    //! Per job, the sub-tile's quads are walked in golden order (quad rows bottom-up, in a row
    //! left → right), Q quads per cycle along the row: beat j covers quad row r = j / BPR and quad
    //! columns c·Q .. c·Q + Q − 1 with c = j mod BPR, where BPR = (SW/2)/Q beats per row and
    //! NB = BPR·SH/2 beats per job. Lane l of beat j holds quad
    //! (c·Q + l, r) of the sub-tile; pixel i of it (0 BL, 1 BR, 2 TL, 3 TR) holds mask bits
    //! [i·S, (i+1)·S), sample s covered iff `trivial`, or every biased edge value
    //! E_sub + a·(px·256 + X_s·16) + b·(py·256 + Y_s·16) ≥ 0 (px, py the pixel's offset inside the
    //! sub-tile); pixels outside the viewport (tile-relative x ≥ vis_w or y ≥ vis_h) get 0. A lane is
    //! valid iff its mask is non-zero; a `none` job has no valid lane.
    //!
    //! Registers: `busy`, beat counter `bcnt`, the job, the output register. The timing contract
    //! is the rustdoc of [`SampleRasterCycle`].
    //!
    //! ```text
    //!           ┌──────────── job regs ───────────┐   beat bcnt   ┌──────────┐
    //!   job ──► │ a, b, E_sub (clamped), col/row, │ ─────────────►│ out reg  │──► beat
    //!           │ vis, last, none, trivial        │  3·Q·4·S sign │ (1 beat) │
    //!           └──────── bcnt 0..NB−1 ───────────┘  tests/cycle  └──────────┘
    //! ```
    //!
    //! The model evaluates the edge functions exactly (i64); the RTL uses narrowed arithmetic that
    //! is exact for every job whose coefficients respect the guard band (|a| ≤ (H + 2g)·256,
    //! |b| ≤ (W + 2g)·256, see [`SampleRasterGeom`]); the co-simulation tests check that.

    use super::*;

    use crate::cycle::CycleModel;
    use crate::streams::{Beat, Job, LANES};

    /// Preset-derived constants of the sample_raster block, shared by this cycle model and the
    /// RTL generator (`hw/src/sample_raster.rs`).
    #[derive(Clone, Debug, PartialEq, Eq)]
    pub struct SampleRasterGeom {
        /// Samples per pixel S.
        pub msaa: u32,
        /// Quads per beat Q.
        pub q: u32,
        /// First sub-tile size in pixels.
        pub subtile: [u32; 2],
        /// Tile size in pixels.
        pub tile: [u32; 2],
        /// Beats per quad row of a sub-tile, (SW/2)/Q.
        pub beats_per_row: u32,
        /// Beats per job NB = beats_per_row · SH/2.
        pub beats: u32,
        /// Bounds on |a| and |b| from the guard band: (H + 2g)·256 and (W + 2g)·256.
        pub coef_max: [i64; 2],
        /// Bits of a stored coefficient (two's complement): holds ±max(coef_max).
        pub coef_bits: u32,
        /// M: 2^M exceeds every |offset|/16 from the sub-tile origin to a sample inside it.
        pub m: u32,
    }

    impl SampleRasterGeom {
        /// Constants for `cfg`; an error if the block cannot be built for it.
        pub fn new(cfg: &Config) -> Result<SampleRasterGeom, String> {
            cfg.validate().map_err(|e| e.to_string())?;
            let [sw, sh] = cfg.subtile;
            let q = cfg.quads_per_clock;
            if q > sw / 2 {
                return Err(format!(
                    "sample_raster: quads_per_clock {q} exceeds the sub-tile's quads per row {}",
                    sw / 2
                ));
            }
            let g = cfg.guard_band as i64;
            let coef_max = [
                (cfg.viewport[1] as i64 + 2 * g) * ONE as i64,
                (cfg.viewport[0] as i64 + 2 * g) * ONE as i64,
            ];
            let cm = coef_max[0].max(coef_max[1]);
            let coef_bits = 64 - cm.leading_zeros() + 1;
            let off = coef_max[0] * (16 * sw as i64 - 1) + coef_max[1] * (16 * sh as i64 - 1);
            let m = 64 - off.leading_zeros();
            debug_assert!(1i64 << m > off);
            if m + 4 > 47 {
                return Err(format!(
                    "sample_raster: edge offsets need 2^{m}·16, beyond the 48-bit edge values"
                ));
            }
            let beats_per_row = sw / 2 / q;
            Ok(SampleRasterGeom {
                msaa: cfg.msaa,
                q,
                subtile: cfg.subtile,
                tile: cfg.tile,
                beats_per_row,
                beats: beats_per_row * sh / 2,
                coef_max,
                coef_bits,
                m,
            })
        }

        /// Width of the RTL's edge values in 1/16 units (E/16), M + 2.
        pub fn w_u(&self) -> u32 {
            self.m + 2
        }

        /// Width of the RTL's per-pixel sums in 1/256 units (E/256), M − 2.
        pub fn w_g(&self) -> u32 {
            self.m - 2
        }

        /// Beat `bcnt` of `job`: (beat, is the job's final beat, is it emitted).
        pub fn beat(&self, job: &Job, bcnt: u32) -> (Beat, bool, bool) {
            let c = &job.cand;
            let s = self.msaa;
            let offs = samples::offsets(s);
            let log2 = |v: u32| v.trailing_zeros();
            let (qw, qh) = (self.subtile[0] / 2, self.subtile[1] / 2);
            let col_g = bcnt % self.beats_per_row;
            let r = bcnt / self.beats_per_row;
            // Tile-relative quad coordinates of lane 0 (ORs: the parts never overlap in range).
            let xq = (c.col << log2(qw)) | (col_g << log2(self.q));
            let yq = (c.row << log2(qh)) | r;
            let fin = c.none || bcnt == self.beats - 1;
            let mut b = Beat {
                prim: c.prim,
                last: fin && c.last,
                ..Default::default()
            };
            for l in 0..self.q as usize {
                b.qx[l] = ((c.tile_x << log2(self.tile[0] / 2)) | xq | l as u32) & 0xFFF;
                b.qy[l] = ((c.tile_y << log2(self.tile[1] / 2)) | yq) & 0xFFF;
                let mut m = 0u64;
                for p in 0..4u32 {
                    let vx = 2 * (xq + l as u32) + (p & 1);
                    let vy = 2 * yq + (p >> 1);
                    if c.none || vx >= c.vis_w || vy >= c.vis_h {
                        continue;
                    }
                    // Pixel offset inside the sub-tile, in 1/256 px.
                    let px = (2 * (col_g * self.q + l as u32) + (p & 1)) as i64 * ONE as i64;
                    let py = (2 * r + (p >> 1)) as i64 * ONE as i64;
                    for (i, &(sx, sy)) in offs.iter().enumerate() {
                        let x = px + sx as i64 * 16;
                        let y = py + sy as i64 * 16;
                        let inside = (0..3).all(|k| c.e[k] + c.a[k] as i64 * x + c.b[k] as i64 * y >= 0);
                        if job.trivial || inside {
                            m |= 1 << (p * s + i as u32);
                        }
                    }
                }
                b.mask[l] = m;
                if m != 0 {
                    b.lane_valid |= 1 << l;
                }
            }
            let emit = b.lane_valid != 0 || b.last;
            (b, fin, emit)
        }
    }

    /// Cycle model of `hw/src/sample_raster.rs` (In = [`Job`], Out = [`Beat`]), mirroring its
    /// registers; beat contents: [`SampleRasterGeom::beat`] and the `cycle model` section comment
    /// of this file.
    ///
    /// # Timing contract
    ///
    /// The one statement of the block's timing; the RTL is held to it on every port and cycle
    /// (`hw/tests/sample_raster.rs`, `cosim/tests/sample_raster.rs`). "Accepted at edge t" means
    /// `in_valid` and `in_ready` are high in cycle t (the transfer happens at the rising edge
    /// ending it). A job has NB = BPR · SH/2 beats ([`SampleRasterGeom::beats`]: ice40 and
    /// ice40_1x 4, default 8, full 4), BPR = (SW/2)/Q per quad row
    /// ([`SampleRasterGeom::beats_per_row`]).
    ///
    /// * **Handshake:** with `final` = none ∨ bcnt = NB − 1 and `can_out` = ¬out_valid ∨ out_ready,
    ///   `in_ready` = ¬busy ∨ (can_out ∧ final), the only combinational input → output path.
    /// * **Latency 2:** without stalls, a job accepted at edge t computes beat j (quad row
    ///   j / BPR, quads (j mod BPR)·Q … + Q − 1) in cycle t + 1 + j and shows it on the output from
    ///   cycle t + 2 + j.
    /// * **Throughput: Q quads per cycle.** A job occupies NB cycles, a `none` job 1; the next job
    ///   is accepted at the edge of the current job's final beat, so jobs follow without a bubble.
    /// * **Emitted beats:** a computed beat is loaded into the output register, and `out_valid` set,
    ///   iff it has a valid lane or it is the final beat of a `last` job (then `last` = 1, possibly
    ///   with no lane). Other empty beats spend their cycle but are not emitted (`out_valid` is low
    ///   in the cycle after).
    /// * **Back-pressure:** a busy block computes beat `bcnt` only in cycles with `can_out`;
    ///   otherwise it holds (bcnt and the output register unchanged).
    /// * **Flush:** every register returns to the state of [`SampleRasterCycle::new`].
    #[derive(Clone, Debug, PartialEq)]
    pub struct SampleRasterCycle {
        geom: SampleRasterGeom,
        busy: bool,
        bcnt: u32,
        job: Job,
        out_valid: bool,
        out: Beat,
    }

    impl SampleRasterCycle {
        /// Idle block for `cfg`.
        ///
        /// # Panics
        /// If [`SampleRasterGeom::new`] refuses the config.
        pub fn new(cfg: &Config) -> SampleRasterCycle {
            let geom = SampleRasterGeom::new(cfg).unwrap_or_else(|e| panic!("{e}"));
            SampleRasterCycle {
                geom,
                busy: false,
                bcnt: 0,
                job: Job::default(),
                out_valid: false,
                out: Beat::default(),
            }
        }

        /// The preset constants.
        pub fn geom(&self) -> &SampleRasterGeom {
            &self.geom
        }

        /// A job is loaded (the block is not idle).
        pub fn busy(&self) -> bool {
            self.busy
        }

        fn is_final(&self) -> bool {
            self.job.cand.none || self.bcnt == self.geom.beats - 1
        }
    }

    impl CycleModel for SampleRasterCycle {
        type In = Job;
        type Out = Beat;

        fn out(&self) -> (bool, Beat) {
            (self.out_valid, self.out)
        }

        fn in_ready(&self, out_ready: bool) -> bool {
            !self.busy || ((!self.out_valid || out_ready) && self.is_final())
        }

        fn clock(&mut self, in_valid: bool, inp: &Job, out_ready: bool, flush: bool) {
            if flush {
                *self = SampleRasterCycle {
                    geom: self.geom.clone(),
                    busy: false,
                    bcnt: 0,
                    job: Job::default(),
                    out_valid: false,
                    out: Beat::default(),
                };
                return;
            }
            let accept = in_valid && self.in_ready(out_ready);
            let can_out = !self.out_valid || out_ready;
            if self.busy && can_out {
                let (b, fin, emit) = self.geom.beat(&self.job, self.bcnt);
                self.out = b;
                self.out_valid = emit;
                if fin {
                    self.busy = false;
                    self.bcnt = 0;
                } else {
                    self.bcnt += 1;
                }
            } else if out_ready {
                self.out_valid = false;
            }
            if accept {
                let c = &inp.cand;
                debug_assert!(
                    (0..3).all(|k| (c.a[k] as i64).abs() <= self.geom.coef_max[0]
                        && (c.b[k] as i64).abs() <= self.geom.coef_max[1]),
                    "sample_raster: edge coefficients {:?} / {:?} exceed the guard-band bounds {:?}",
                    c.a,
                    c.b,
                    self.geom.coef_max
                );
                self.job = *inp;
                self.busy = true;
                self.bcnt = 0;
            }
        }
    }

    /// `LANES` must hold the largest Q.
    const _: () = assert!(LANES >= 4);
}

crate::cycle_model_signature! {
    /// sample_raster's ports: jobs in, quad beats out.
    pub SampleRaster "sample_raster" for SampleRasterCycle: Job -> Beat
}
