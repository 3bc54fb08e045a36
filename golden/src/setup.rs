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
    /// The pixels of tile `[tx, ty]`, clipped to the viewport; `None` if the tile lies outside
    /// the tile grid (`crate::tile_parser::tile_rect` says which tile and grid).
    pub fn of_tile(cfg: &Config, tile: [u32; 2]) -> Option<PixelBox> {
        // Tile origin; the tile exists iff its origin is inside the viewport.
        let x0 = tile[0].saturating_mul(cfg.tile[0]);
        let y0 = tile[1].saturating_mul(cfg.tile[1]);
        if x0 >= cfg.viewport[0] || y0 >= cfg.viewport[1] {
            return None;
        }
        Some(PixelBox {
            x0,
            y0,
            x1: (x0 + cfg.tile[0]).min(cfg.viewport[0]) - 1,
            y1: (y0 + cfg.tile[1]).min(cfg.viewport[1]) - 1,
        })
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
    Edge {
        a: yi - yj,
        b: xj - xi,
        c: xi * yj - xj * yi - if inclusive { 0 } else { 1 },
    }
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
pub fn fx_bbox(
    cfg: &Config,
    xs: impl Iterator<Item = i32> + Clone,
    ys: impl Iterator<Item = i32> + Clone,
) -> Option<PixelBox> {
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
    Some(PixelBox {
        x0: x0 as u32,
        y0: y0 as u32,
        x1: x1 as u32,
        y1: y1 as u32,
    })
}

#[cfg(test)]
mod tests {
    use super::*;

    fn tri(v: [[i32; 2]; 3]) -> TriangleFx {
        TriangleFx {
            v,
            colour: [255; 4],
            depth: 0,
        }
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

pub use cycle::*;

pub mod cycle {
    //! The cycle model of `hw/src/setup.rs`: same registers, same cycle, every port (truth
    //! layer 3, see [`crate::cycle`]); the transaction model above is the truth it is checked
    //! against. Its items are re-exported at the stage's top level.
    //!
    //! Cycle model of the RTL block `hw/src/setup.rs` (seed 000 triangle setup), and the
    //! transaction-level helper [`edges_for`] that states what its `Edges` beat must be.
    //!
    //! ```text
    //!   cmd (triangle, tile) ─► accept: ring ← v0..v2, bbox min side ─► MUL 0..6 ─► FIN ─► edges
    //!                           MUL 0: bbox max side; ring rotates once per edge   (winding, cull,
    //!                                                                               reorder, load)
    //! ```
    //!
    //! The timing contract (latency, initiation interval, handshake) is the rustdoc of
    //! [`SetupCycle`]; the schedule below is how the FSM meets it.
    //!
    //! Per-cycle schedule after an accept at cycle c (step s of state MUL at cycle c + 1 + s; at
    //! accept t2 ← −1 and aacc ← 0; the ring holds (v_k, v_{k+1}, v_{k+2}) during edge k):
    //!
    //! | cycle | state | multiplier (pp ← opA·opB), incl_r ← incl | accumulate (pp of the cycle before)          |
    //! |-------|-------|------------------------------------------|---------------------------------------------|
    //! | c+1   | MUL 0 | −a0·(x0 − Ox); bbox max side             | —                                           |
    //! | c+2   | MUL 1 | −b0·(y0 − Oy), then rotate the ring      | t2 ← t2 + pp + incl0; aacc += pp            |
    //! | c+3   | MUL 2 | −a1·(x1 − Ox)                            | t1 ← t2 + pp (= V0), t0 ← t1, t2 ← −1; aacc |
    //! | c+4   | MUL 3 | −b1·(y1 − Oy), rotate                    | t2 ← t2 + pp + incl1; aacc += pp            |
    //! | c+5   | MUL 4 | −a2·(x2 − Ox)                            | t1 ← V1, t0 ← V0, t2 ← −1; aacc += pp       |
    //! | c+6   | MUL 5 | −b2·(y2 − Oy), rotate                    | t2 ← t2 + pp + incl2; aacc += pp            |
    //! | c+7   | MUL 6 | —                                        | t2 ← t2 + pp (= V2); aacc += pp             |
    //! | c+8   | FIN   | —                                        | winding/cull from aacc; load the output     |
    //!
    //! Here (Ox, Oy) = O + P is the absolute origin of the first visited sub-tile in 1/256 px,
    //! a_k = y_i − y_j, b_k = x_j − x_i for the *input* order (i = k, j = k+1 mod 3), incl_k =
    //! a_k > 0 || (a_k = 0 && b_k > 0), and V_k = −1 + incl_k + a_k·(Ox − x_i) + b_k·(Oy − y_i)
    //! = E_k − bias_k, where E_k is the unbiased edge at O + P and bias_k = 1 − incl_k.
    //! aacc = Σ E_k = 2·area. So:
    //! * zero area ⇔ aacc = 0; clockwise ⇔ aacc < 0 (sign bit);
    //! * counter-clockwise: e_k = V_k;
    //! * clockwise (reordered to (v0, v2, v1)): edge k of the reordered triangle is input edge
    //!   2 − k reversed, with value −E_{2−k} and bias 1 − bias_{2−k} (an edge of a triangle with
    //!   non-zero area is never degenerate): e_k = −E_{2−k} − incl_{2−k} = ~V_{2−k};
    //! * a/b of the reordered triangle are computed at FIN from the ring (back in input order
    //!   after three rotations) with v1 and v2 swapped when clockwise.
    //!
    //! Empty results (zero area, culled, bbox misses the tile, tile outside the grid) load
    //! `Edges { prim, tile_x, tile_y, empty: true, ..0 }`. The model keeps `pp` and `incl_r` only
    //! while they are used (the RTL loads them every cycle; the difference is not observable).

    use super::*;

    use crate::streams::{Cmd, Edges};

    /// Preset-derived constants of the setup block (the RTL gets them as `Constant`s).
    #[derive(Clone, Copy, Debug, PartialEq, Eq)]
    pub struct SetupParams {
        /// log2 of the tile width / height in pixels.
        pub tile_shift: [u32; 2],
        /// Tile width / height in pixels.
        pub tile: [u32; 2],
        /// Index of the last tile column / row of the grid.
        pub last_tile: [u32; 2],
        /// Pixels of the last tile column / row inside the viewport.
        pub last_vis: [u32; 2],
        /// Mask that rounds a tile-relative pixel coordinate (< tile size) down to its sub-tile
        /// origin: `(tile − 1) & !(subtile − 1)`.
        pub sub_mask: [u32; 2],
        /// Last pixel column / row of the viewport (viewport − 1).
        pub vp_max: [u32; 2],
        /// Cull clockwise / counter-clockwise triangles.
        pub cull_cw: bool,
        pub cull_ccw: bool,
    }

    impl SetupParams {
        pub fn new(cfg: &Config) -> SetupParams {
            let t = cfg.tiles();
            let last_tile = [t[0] - 1, t[1] - 1];
            SetupParams {
                tile_shift: [cfg.tile[0].trailing_zeros(), cfg.tile[1].trailing_zeros()],
                tile: cfg.tile,
                last_tile,
                last_vis: [
                    cfg.viewport[0] - last_tile[0] * cfg.tile[0],
                    cfg.viewport[1] - last_tile[1] * cfg.tile[1],
                ],
                sub_mask: [
                    (cfg.tile[0] - 1) & !(cfg.subtile[0] - 1),
                    (cfg.tile[1] - 1) & !(cfg.subtile[1] - 1),
                ],
                vp_max: [cfg.viewport[0] - 1, cfg.viewport[1] - 1],
                cull_cw: cfg.cull == CullMode::Cw,
                cull_ccw: cfg.cull == CullMode::Ccw,
            }
        }
    }

    /// What setup must send for a triangle command: golden [`setup_triangle`] translated to the
    /// tile. `bx0..by1` is the triangle's pixel bbox (clipped to the viewport) intersected with
    /// the tile, tile-relative; `e_k` is golden's biased edge `k` evaluated at the absolute
    /// point O + P, O the tile origin, P the origin of the first visited sub-tile
    /// (c0, r0) = (bx0 / SW, by0 / SH). Zero area, culled, no overlap with the tile, or a tile
    /// outside the tile grid: `empty` with every other field except prim/tile zero.
    pub fn edges_for(cfg: &Config, cmd: &Cmd) -> Edges {
        let empty = Edges {
            prim: cmd.prim,
            tile_x: cmd.tile_x,
            tile_y: cmd.tile_y,
            empty: true,
            ..Edges::default()
        };
        let tri = TriangleFx {
            v: cmd.v,
            colour: [0; 4],
            depth: 0,
        };
        let Ok(ts) = setup_triangle(cfg, &tri) else {
            return empty;
        };
        let Some(r) = PixelBox::of_tile(cfg, [cmd.tile_x, cmd.tile_y]) else {
            return empty;
        };
        let b = ts.bbox;
        if !b.overlaps(r.x0, r.y0, r.x1, r.y1) {
            return empty;
        }
        let (bx0, by0) = (b.x0.max(r.x0) - r.x0, b.y0.max(r.y0) - r.y0);
        let (bx1, by1) = (b.x1.min(r.x1) - r.x0, b.y1.min(r.y1) - r.y0);
        let [sw, sh] = cfg.subtile;
        let px = ((r.x0 + bx0 / sw * sw) as i64) << crate::config::FRAC_BITS;
        let py = ((r.y0 + by0 / sh * sh) as i64) << crate::config::FRAC_BITS;
        let e = ts.edges;
        Edges {
            prim: cmd.prim,
            tile_x: cmd.tile_x,
            tile_y: cmd.tile_y,
            empty: false,
            a: e.map(|g| g.a as i32),
            b: e.map(|g| g.b as i32),
            e: e.map(|g| g.eval(px, py)),
            bx0,
            by0,
            bx1,
            by1,
            vis_w: r.width(),
            vis_h: r.height(),
        }
    }

    /// Sign-extend the low `bits` bits of `v`.
    fn sext(v: i64, bits: u32) -> i64 {
        let s = 64 - bits;
        (v << s) >> s
    }

    /// Initiation interval of the setup block, in cycles (see the timing contract on
    /// [`SetupCycle`]; `golden/tests/setup_cycle.rs` checks accepts at cycles 0, 8, 16).
    pub const SETUP_II: u64 = 8;

    /// FSM states of the setup block (the RTL's `state` register values).
    const IDLE: u8 = 0;
    const MUL: u8 = 1;
    const FIN: u8 = 2;

    /// Cycle model of `hw/src/setup.rs` (In = [`Cmd`], a triangle; Out = [`Edges`]): mirrors its
    /// registers (FSM IDLE → MUL 0..=6 → FIN; the per-cycle schedule is in the `cycle model`
    /// section comment of this file).
    ///
    /// # Timing contract
    ///
    /// The one statement of the setup block's timing; the RTL is held to it on every port and
    /// cycle (`hw/tests/setup.rs`, `cosim/tests/setup.rs`). "Accepted at edge c" means `in_valid`
    /// and `in_ready` are high in cycle c, so the transfer happens at the rising edge ending it.
    ///
    /// * **Handshake:** `in_ready = state == IDLE || (state == FIN && (!out_valid || out_ready))`,
    ///   the block's only combinational input → output path; the outputs are one registered
    ///   [`Edges`] beat.
    /// * **Latency 9:** a command accepted at edge c is in MUL 0..=6 during cycles c + 1 … c + 7
    ///   and in FIN in cycle c + 8; FIN loads the output register when it is free
    ///   (`!out_valid || out_ready`), so the beat is on the output (`out_valid`) from cycle c + 9.
    ///   While the register is still full, FIN waits, and the beat appears the cycle after FIN
    ///   loads it.
    /// * **Initiation interval 8** ([`SETUP_II`]): the next command is accepted in the FIN cycle at
    ///   the earliest, at the edge that loads the output. Back to back, commands are accepted at
    ///   cycles 0, 8, 16, … and their beats appear from cycles 9, 17, 25, …
    /// * **Back-pressure:** a beat waiting for `out_ready` does not block the next command: after
    ///   FIN loads the register the block is in IDLE, accepts the next command and computes it;
    ///   only that command's FIN waits for the register. One result waits while the next is being
    ///   computed.
    /// * The schedule does not depend on the data: every command, empty ones included (zero area,
    ///   culled, bbox missing the tile, tile outside the grid), takes the same cycles and gives
    ///   exactly one beat, in command order.
    /// * **Flush:** with `flush` high at an edge the block returns to the state of
    ///   [`SetupCycle::new`] (IDLE, output register cleared), whatever else is driven.
    #[derive(Clone, Debug)]
    pub struct SetupCycle {
        k: SetupParams,
        state: u8,
        step: u8,
        /// Vertex ring (x, y), 24-bit values; rotates (r0, r1, r2) ← (r1, r2, r0) after each edge.
        ring: [[i64; 2]; 3],
        w_prim: u32,
        w_tile: [u32; 2],
        /// Tile-relative clipped bbox [x0, y0, x1, y1], 8 bits each.
        w_bbox: [u32; 4],
        w_bbempty: bool,
        /// Product register (the four partial products summed), and the inclusive flag of the
        /// a-step it belongs to.
        pp: i64,
        incl_r: bool,
        t: [i64; 3],
        aacc: i64,
        out_valid: bool,
        out: Edges,
    }

    impl SetupCycle {
        pub fn new(cfg: &Config) -> SetupCycle {
            SetupCycle::with_params(SetupParams::new(cfg))
        }

        fn with_params(k: SetupParams) -> SetupCycle {
            SetupCycle {
                k,
                state: IDLE,
                step: 0,
                ring: [[0; 2]; 3],
                w_prim: 0,
                w_tile: [0; 2],
                w_bbox: [0; 4],
                w_bbempty: false,
                pp: 0,
                incl_r: false,
                t: [0; 3],
                aacc: 0,
                out_valid: false,
                out: Edges::default(),
            }
        }

        /// Idle: nothing accepted and nothing waiting at the output.
        pub fn idle(&self) -> bool {
            self.state == IDLE && !self.out_valid
        }

        /// The tile's visible pixels on one axis, absolute: [t0, thi] (thi = viewport − 1 for the
        /// last column/row), as 16-bit two's complement values.
        fn tile_span(&self, axis: usize, tile: u32) -> (i16, i16, u32) {
            let mask = self.k.tile[axis] - 1;
            let t0 = (tile << self.k.tile_shift[axis]) & 0xffff;
            let thi = if tile == self.k.last_tile[axis] {
                self.k.vp_max[axis]
            } else {
                t0 | mask
            };
            (t0 as u16 as i16, thi as u16 as i16, mask)
        }

        /// floor(v / 256) of the three 24-bit coordinates: their top 16 bits.
        fn pixels(c: [i64; 3]) -> [i16; 3] {
            c.map(|v| (sext(v, 24) >> 8) as i16)
        }

        /// Bbox min side of one axis, at accept (from the input ports): (lo, empty).
        /// Tile-relative values are the low bits (t0 is a multiple of the tile size).
        fn lo_side(&self, axis: usize, c: [i64; 3], tile: u32) -> (u32, bool) {
            let mn = *Self::pixels(c).iter().min().unwrap();
            let (t0, thi, mask) = self.tile_span(axis, tile);
            let lo = if mn < t0 { 0 } else { mn as u16 as u32 & mask };
            (lo, mn > thi || tile > self.k.last_tile[axis])
        }

        /// Bbox max side of one axis, in MUL 0 (from the ring, still in input order): (hi, empty).
        fn hi_side(&self, axis: usize) -> (u32, bool) {
            let mx = *Self::pixels(self.ring.map(|p| p[axis])).iter().max().unwrap();
            let (t0, thi, mask) = self.tile_span(axis, self.w_tile[axis]);
            let hi = if mx > thi {
                thi as u16 as u32 & mask
            } else {
                mx as u16 as u32 & mask
            };
            (hi, mx < t0)
        }

        /// Visible pixels of tile column/row `tile` (9 bits), as computed at FIN.
        fn vis(&self, axis: usize, tile: u32) -> u32 {
            if tile == self.k.last_tile[axis] {
                self.k.last_vis[axis]
            } else {
                self.k.tile[axis]
            }
        }

        /// Absolute pixel of the first visited sub-tile's origin (16 bits): the tile origin with
        /// the tile-relative bbox start rounded down to the sub-tile.
        fn sub_origin(&self, axis: usize) -> u32 {
            ((self.w_tile[axis] << self.k.tile_shift[axis]) | (self.w_bbox[axis] & self.k.sub_mask[axis])) & 0xffff
        }

        /// The output register's next value at FIN.
        fn fin(&self) -> Edges {
            let zero = self.aacc == 0;
            let cw = self.aacc < 0;
            let culled = (cw && self.k.cull_cw) || (!cw && self.k.cull_ccw);
            let base = Edges {
                prim: self.w_prim,
                tile_x: self.w_tile[0],
                tile_y: self.w_tile[1],
                ..Edges::default()
            };
            if self.w_bbempty || zero || culled {
                return Edges { empty: true, ..base };
            }
            let r = &self.ring;
            let (m, n) = if cw { (r[2], r[1]) } else { (r[1], r[2]) };
            let d = |p: i64, q: i64| sext(p - q, 24) as i32;
            let t = &self.t;
            Edges {
                a: [d(r[0][1], m[1]), d(m[1], n[1]), d(n[1], r[0][1])],
                b: [d(m[0], r[0][0]), d(n[0], m[0]), d(r[0][0], n[0])],
                e: if cw { [!t[2], !t[1], !t[0]] } else { *t },
                bx0: self.w_bbox[0],
                by0: self.w_bbox[1],
                bx1: self.w_bbox[2],
                by1: self.w_bbox[3],
                vis_w: self.vis(0, self.w_tile[0]),
                vis_h: self.vis(1, self.w_tile[1]),
                ..base
            }
        }
    }

    impl crate::cycle::CycleModel for SetupCycle {
        type In = Cmd;
        type Out = Edges;

        fn out(&self) -> (bool, Edges) {
            (self.out_valid, self.out)
        }

        fn in_ready(&self, out_ready: bool) -> bool {
            self.state == IDLE || (self.state == FIN && (!self.out_valid || out_ready))
        }

        fn clock(&mut self, in_valid: bool, inp: &Cmd, out_ready: bool, flush: bool) {
            if flush {
                *self = SetupCycle::with_params(self.k);
                return;
            }
            let accept = in_valid && self.in_ready(out_ready);
            let load = self.state == FIN && (!self.out_valid || out_ready);
            // Output register.
            if load {
                self.out = self.fin();
                self.out_valid = true;
            } else if out_ready {
                self.out_valid = false;
            }
            if self.state == MUL {
                if self.step == 0 {
                    let (x1, ex) = self.hi_side(0);
                    let (y1, ey) = self.hi_side(1);
                    self.w_bbox[2] = x1;
                    self.w_bbox[3] = y1;
                    self.w_bbempty |= ex || ey;
                }
                // Accumulate the product of the previous step.
                if self.step >= 1 {
                    let carry = (self.step & 1 == 1 && self.incl_r) as i64;
                    let sum = sext(self.t[2] + self.pp + carry, 48);
                    if self.step & 1 == 0 && self.step != 6 {
                        self.t = [self.t[1], sum, -1];
                    } else {
                        self.t[2] = sum;
                    }
                    self.aacc = sext(self.aacc + self.pp, 48);
                }
                // Multiply.
                if self.step <= 5 {
                    let r = self.ring;
                    let na = sext(r[1][1] - r[0][1], 24);
                    let nb = sext(r[0][0] - r[1][0], 24);
                    let h = (self.step & 1) as usize;
                    let op_a = if h == 1 { nb } else { na };
                    let op_b = sext(r[0][h] - ((self.sub_origin(h) as i64) << 8), 24);
                    self.pp = sext(op_a * op_b, 48);
                    // Inclusive: a > 0, or a = 0 and b > 0.
                    self.incl_r = na < 0 || (na == 0 && nb < 0);
                    if h == 1 {
                        self.ring = [r[1], r[2], r[0]];
                    }
                }
                if self.step == 6 {
                    self.state = FIN;
                } else {
                    self.step += 1;
                }
            }
            if load {
                self.state = IDLE;
            }
            if accept {
                let v = inp.v.map(|p| p.map(|c| sext(c as i64, 24)));
                self.ring = v;
                self.w_prim = inp.prim & 0xff_ffff;
                self.w_tile = [inp.tile_x & 0xff, inp.tile_y & 0xff];
                let (x0, ex) = self.lo_side(0, v.map(|p| p[0]), self.w_tile[0]);
                let (y0, ey) = self.lo_side(1, v.map(|p| p[1]), self.w_tile[1]);
                self.w_bbox[0] = x0;
                self.w_bbox[1] = y0;
                self.w_bbempty = ex || ey;
                self.aacc = 0;
                self.t[2] = -1;
                self.state = MUL;
                self.step = 0;
            }
        }
    }
}

crate::cycle_model_signature! {
    /// setup's ports: commands in (the triangle fields), edge functions out.
    pub Setup "setup" for SetupCycle: Cmd -> Edges
}
