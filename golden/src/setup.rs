//! Triangle setup: fixed-point vertices → three edge functions with the fill-rule bias folded
//! in, a pixel bounding box clipped to the viewport, and the winding / cull decision.
//!
//! Edge i→j of the counter-clockwise triangle is E(p) = (y_i − y_j)·p_x + (x_j − x_i)·p_y +
//! (x_i·y_j − x_j·y_i) (SPEC §2), with p in 1/256 pixel so E is in 1/65536 pixel². A sample is
//! covered when E > 0, or E = 0 on an inclusive edge (dy < 0, or dy = 0 and dx > 0). Since E
//! is an integer, the rule folds into one comparison: `a·p_x + b·p_y + c ≥ 0` with
//! `c = E's constant − (exclusive ? 1 : 0)`.
//!
//! Widths: |coordinate| ≤ 2^21 (viewport + guard band ≤ 8192 px), so |a|, |b| ≤ 2^22 and
//! |E| < 2^46; i64 never overflows (tested at the extremes in `tests/frontend.rs`).

use crate::config::{Config, CullMode, ONE};
use crate::prim::TriangleFx;

/// One edge function, bias folded: covered iff `a·x + b·y + c ≥ 0` (x, y in 1/256 px).
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct Edge {
    pub a: i64,
    pub b: i64,
    pub c: i64,
}

impl Edge {
    /// Biased edge value at a point in 1/256 pixel. Covered iff ≥ 0.
    #[inline]
    pub fn eval(&self, x: i64, y: i64) -> i64 {
        self.a * x + self.b * y + self.c
    }
}

/// Inclusive pixel rectangle `[x0, x1] × [y0, y1]`.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct PixelBox {
    pub x0: u32,
    pub y0: u32,
    pub x1: u32,
    pub y1: u32,
}

impl PixelBox {
    pub fn width(&self) -> u32 {
        self.x1 - self.x0 + 1
    }
    pub fn height(&self) -> u32 {
        self.y1 - self.y0 + 1
    }
    pub fn pixels(&self) -> u64 {
        self.width() as u64 * self.height() as u64
    }
    /// Does this box overlap the inclusive box `[x0, x1] × [y0, y1]`?
    pub fn overlaps(&self, x0: u32, y0: u32, x1: u32, y1: u32) -> bool {
        self.x0 <= x1 && x0 <= self.x1 && self.y0 <= y1 && y0 <= self.y1
    }
}

/// A set-up triangle, ready for the tile parser.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct TriSetup {
    pub edges: [Edge; 3],
    /// Pixels that may hold covered samples, clipped to the viewport.
    pub bbox: PixelBox,
    /// The input was clockwise (and was reordered to counter-clockwise).
    pub was_cw: bool,
}

/// Why setup produced nothing.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum SetupReject {
    ZeroArea,
    Culled,
    Offscreen,
}

/// Twice the signed area in (1/256 px)²; positive for counter-clockwise (y up).
pub fn signed_area2(v: &[[i32; 2]; 3]) -> i64 {
    let [x0, y0] = [v[0][0] as i64, v[0][1] as i64];
    let [x1, y1] = [v[1][0] as i64, v[1][1] as i64];
    let [x2, y2] = [v[2][0] as i64, v[2][1] as i64];
    (x1 - x0) * (y2 - y0) - (x2 - x0) * (y1 - y0)
}

/// The biased edge i→j (vertices already counter-clockwise).
pub fn edge(vi: [i32; 2], vj: [i32; 2]) -> Edge {
    let (xi, yi, xj, yj) = (vi[0] as i64, vi[1] as i64, vj[0] as i64, vj[1] as i64);
    let (dx, dy) = (xj - xi, yj - yi);
    let inclusive = dy < 0 || (dy == 0 && dx > 0);
    Edge { a: yi - yj, b: xj - xi, c: xi * yj - xj * yi - if inclusive { 0 } else { 1 } }
}

/// Set up one triangle.
pub fn setup_triangle(cfg: &Config, t: &TriangleFx) -> Result<TriSetup, SetupReject> {
    let area = signed_area2(&t.v);
    if area == 0 {
        return Err(SetupReject::ZeroArea);
    }
    let was_cw = area < 0;
    match (cfg.cull, was_cw) {
        (CullMode::Cw, true) | (CullMode::Ccw, false) => return Err(SetupReject::Culled),
        _ => {}
    }
    let v = if was_cw { [t.v[0], t.v[2], t.v[1]] } else { t.v };
    let edges = [edge(v[0], v[1]), edge(v[1], v[2]), edge(v[2], v[0])];
    let bbox = fx_bbox(cfg, v.iter().map(|p| p[0]), v.iter().map(|p| p[1])).ok_or(SetupReject::Offscreen)?;
    Ok(TriSetup { edges, bbox, was_cw })
}

/// Pixel box of the pixels whose area `[x, x+1)` meets `[min, max]` of the coordinates,
/// clipped to the viewport; `None` if nothing is left.
pub fn fx_bbox(cfg: &Config, xs: impl Iterator<Item = i32> + Clone, ys: impl Iterator<Item = i32> + Clone) -> Option<PixelBox> {
    let (minx, maxx) = (xs.clone().min()?, xs.max()?);
    let (miny, maxy) = (ys.clone().min()?, ys.max()?);
    let px = |v: i32| v.div_euclid(ONE);
    let (w, h) = (cfg.viewport[0] as i32, cfg.viewport[1] as i32);
    let x0 = px(minx).max(0);
    let y0 = px(miny).max(0);
    let x1 = px(maxx).min(w - 1);
    let y1 = px(maxy).min(h - 1);
    if x0 > x1 || y0 > y1 {
        return None;
    }
    Some(PixelBox { x0: x0 as u32, y0: y0 as u32, x1: x1 as u32, y1: y1 as u32 })
}

#[cfg(test)]
mod tests {
    use super::*;

    fn tri(v: [[i32; 2]; 3]) -> TriangleFx {
        TriangleFx { v, colour: [255; 4], depth: 0 }
    }

    #[test]
    fn winding_and_cull() {
        let mut cfg = Config::preset("default").unwrap();
        let ccw = tri([[0, 0], [2560, 0], [0, 2560]]);
        let cw = tri([[0, 0], [0, 2560], [2560, 0]]);
        assert!(!setup_triangle(&cfg, &ccw).unwrap().was_cw);
        assert!(setup_triangle(&cfg, &cw).unwrap().was_cw);
        cfg.cull = CullMode::Cw;
        assert_eq!(setup_triangle(&cfg, &cw), Err(SetupReject::Culled));
        assert!(setup_triangle(&cfg, &ccw).is_ok());
        cfg.cull = CullMode::Ccw;
        assert_eq!(setup_triangle(&cfg, &ccw), Err(SetupReject::Culled));
        cfg.cull = CullMode::None;
        let flat = tri([[0, 0], [256, 256], [512, 512]]);
        assert_eq!(setup_triangle(&cfg, &flat), Err(SetupReject::ZeroArea));
        let off = tri([[-2560, -2560], [-256, -2560], [-2560, -256]]);
        assert_eq!(setup_triangle(&cfg, &off), Err(SetupReject::Offscreen));
    }

    #[test]
    fn fill_rule_bias() {
        // Bottom edge (dx > 0, dy = 0) is inclusive; a point on it passes.
        let e = edge([0, 0], [256, 0]);
        assert!(e.eval(128, 0) >= 0);
        // Same edge reversed (top edge) is exclusive; a point on it fails.
        let e = edge([256, 0], [0, 0]);
        assert!(e.eval(128, 0) < 0);
        // Left edge going down (dy < 0) is inclusive.
        let e = edge([0, 256], [0, 0]);
        assert!(e.eval(0, 128) >= 0);
        // Right edge going up is exclusive.
        let e = edge([0, 0], [0, 256]);
        assert!(e.eval(0, 128) < 0);
    }
}
