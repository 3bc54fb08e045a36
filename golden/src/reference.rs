//! Layer 1 of the three layers of truth (SPEC §3): the obvious algorithm. Every sample of every
//! pixel in the bounding box is tested directly against the SPEC's rules. No hierarchy, no
//! incremental evaluation, no shared code with `setup.rs`: it defines the right answer.

use crate::config::Config;
use crate::prim::{Coverage, PointFx, TriangleFx};
use crate::samples;
use rayon::prelude::*;

/// Samples tested by the last call (for the benchmark's samples/s figure).
#[derive(Default, Clone, Copy, Debug)]
pub struct RefStats {
    pub samples_tested: u64,
}

/// Covered samples of a triangle (cull mode applied), per pixel.
pub fn triangle(cfg: &Config, t: &TriangleFx, st: &mut RefStats) -> Coverage {
    let mut out = Coverage::new();
    let p: Vec<(i64, i64)> = t.v.iter().map(|v| (v[0] as i64, v[1] as i64)).collect();
    let area2 = (p[1].0 - p[0].0) * (p[2].1 - p[0].1) - (p[2].0 - p[0].0) * (p[1].1 - p[0].1);
    if area2 == 0 {
        return out;
    }
    let cw = area2 < 0;
    if (cw && cfg.cull == crate::config::CullMode::Cw) || (!cw && cfg.cull == crate::config::CullMode::Ccw) {
        return out;
    }
    let v = if cw { [p[0], p[2], p[1]] } else { [p[0], p[1], p[2]] };
    let xmin = v.iter().map(|q| q.0).min().unwrap().div_euclid(256).max(0);
    let xmax = v
        .iter()
        .map(|q| q.0)
        .max()
        .unwrap()
        .div_euclid(256)
        .min(cfg.viewport[0] as i64 - 1);
    let ymin = v.iter().map(|q| q.1).min().unwrap().div_euclid(256).max(0);
    let ymax = v
        .iter()
        .map(|q| q.1)
        .max()
        .unwrap()
        .div_euclid(256)
        .min(cfg.viewport[1] as i64 - 1);
    let offs = samples::offsets(cfg.msaa);
    for y in ymin..=ymax {
        for x in xmin..=xmax {
            let mut m = 0u16;
            for (i, &(sx, sy)) in offs.iter().enumerate() {
                st.samples_tested += 1;
                let s = (x * 256 + sx as i64 * 16, y * 256 + sy as i64 * 16);
                let inside = (0..3).all(|k| {
                    let (a, b) = (v[k], v[(k + 1) % 3]);
                    let e = (a.1 - b.1) * s.0 + (b.0 - a.0) * s.1 + (a.0 * b.1 - b.0 * a.1);
                    let (dx, dy) = (b.0 - a.0, b.1 - a.1);
                    e > 0 || (e == 0 && (dy < 0 || (dy == 0 && dx > 0)))
                });
                if inside {
                    m |= 1 << i;
                }
            }
            if m != 0 {
                out.insert((x as u32, y as u32), m);
            }
        }
    }
    out
}

/// Rounded point size N (SPEC §2): half up, at least 1, at most the configured maximum.
pub fn point_size_n(cfg: &Config, size_fx: i32) -> i64 {
    ((size_fx as i64 + 128) >> 8).clamp(1, cfg.max_point_size as i64)
}

/// Covered samples of a point, antialiasing off or on, per pixel.
pub fn point(cfg: &Config, p: &PointFx, st: &mut RefStats) -> Coverage {
    let mut out = Coverage::new();
    let (w, h) = (cfg.viewport[0] as i64, cfg.viewport[1] as i64);
    let full = samples::pixel_full_mask(cfg.msaa);
    let (px, py) = (p.pos[0] as i64, p.pos[1] as i64);
    if !p.aa {
        let n = point_size_n(cfg, p.size);
        // Centre in 1/512 pixel so that both parities are integers.
        let (cx2, cy2) = if n % 2 == 1 {
            (px.div_euclid(256) * 512 + 256, py.div_euclid(256) * 512 + 256)
        } else {
            ((px + 128).div_euclid(256) * 512, (py + 128).div_euclid(256) * 512)
        };
        let half = n * 256; // N/2 pixels in 1/512
                            // Every pixel whose centre is strictly inside the square (none can lie on its edge).
        let lo_x = (cx2 - half).div_euclid(512) - 1;
        let lo_y = (cy2 - half).div_euclid(512) - 1;
        for y in lo_y..lo_y + n + 3 {
            for x in lo_x..lo_x + n + 3 {
                st.samples_tested += cfg.msaa as u64;
                let (ccx, ccy) = (x * 512 + 256, y * 512 + 256);
                let inside = (ccx - cx2).abs() < half && (ccy - cy2).abs() < half;
                if inside && x >= 0 && y >= 0 && x < w && y < h {
                    out.insert((x as u32, y as u32), full);
                }
            }
        }
    } else {
        // Sample covered iff in [x − s/2, x + s/2) × [y − s/2, y + s/2); work in 1/512 pixel.
        // s is the unrounded size, clamped like N to the configured maximum.
        let s = (p.size.max(0) as i64).min(cfg.max_point_size as i64 * 256);
        let (x0, x1) = (2 * px - s, 2 * px + s);
        let (y0, y1) = (2 * py - s, 2 * py + s);
        let offs = samples::offsets(cfg.msaa);
        for y in (y0.div_euclid(512)).max(0)..=(y1.div_euclid(512)).min(h - 1) {
            for x in (x0.div_euclid(512)).max(0)..=(x1.div_euclid(512)).min(w - 1) {
                let mut m = 0u16;
                for (i, &(sx, sy)) in offs.iter().enumerate() {
                    st.samples_tested += 1;
                    let (qx, qy) = (x * 512 + sx as i64 * 32, y * 512 + sy as i64 * 32);
                    if qx >= x0 && qx < x1 && qy >= y0 && qy < y1 {
                        m |= 1 << i;
                    }
                }
                if m != 0 {
                    out.insert((x as u32, y as u32), m);
                }
            }
        }
    }
    out
}

/// Covered samples of any primitive.
pub fn primitive(cfg: &Config, p: &crate::prim::PrimitiveFx, st: &mut RefStats) -> Coverage {
    match p {
        crate::prim::PrimitiveFx::Triangle(t) => triangle(cfg, t, st),
        crate::prim::PrimitiveFx::Point(q) => point(cfg, q, st),
    }
}

/// Covered samples of every primitive of a frame, in submission order (element `i` is
/// [`primitive`] of `prims[i]`), the primitives spread over the threads of the current rayon
/// pool; `st` gets the samples tested by all of them. Each primitive is one task with its own
/// counter, results collected in submission order and the counters summed in that order, so
/// the result is the same on any number of threads. Memory grows with the frame's covered
/// pixels: call [`primitive`] one at a time to check a frame as it streams.
pub fn primitives(cfg: &Config, prims: &[crate::prim::PrimitiveFx], st: &mut RefStats) -> Vec<Coverage> {
    let per: Vec<(Coverage, RefStats)> = prims
        .par_iter()
        .map(|p| {
            let mut s = RefStats::default();
            (primitive(cfg, p, &mut s), s)
        })
        .collect();
    per.into_iter()
        .map(|(c, s)| {
            st.samples_tested += s.samples_tested;
            c
        })
        .collect()
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::prim::coverage_samples;

    fn cfg(msaa: u32) -> Config {
        let mut c = Config::preset("default").unwrap();
        c.msaa = msaa;
        c
    }

    #[test]
    fn unit_square_of_two_triangles_covers_each_sample_once() {
        // Two triangles sharing a diagonal tile a 4x4 pixel square exactly.
        let c = cfg(4);
        let a = TriangleFx {
            v: [[0, 0], [1024, 0], [1024, 1024]],
            colour: [0; 4],
            depth: 0,
        };
        let b = TriangleFx {
            v: [[0, 0], [1024, 1024], [0, 1024]],
            colour: [0; 4],
            depth: 0,
        };
        let mut st = RefStats::default();
        let ca = triangle(&c, &a, &mut st);
        let cb = triangle(&c, &b, &mut st);
        assert_eq!(coverage_samples(&ca) + coverage_samples(&cb), 16 * 4);
        for (k, m) in &ca {
            assert_eq!(cb.get(k).copied().unwrap_or(0) & m, 0);
        }
    }

    #[test]
    fn point_size_eight_gives_sixty_four() {
        let c = cfg(1);
        let p = PointFx {
            pos: [50 * 256 + 77, 40 * 256 + 3],
            size: 8 * 256,
            aa: false,
            colour: [0; 4],
            depth: 0,
        };
        assert_eq!(point(&c, &p, &mut RefStats::default()).len(), 64);
        let p = PointFx { size: 9 * 256, ..p };
        assert_eq!(point(&c, &p, &mut RefStats::default()).len(), 81);
    }
}
