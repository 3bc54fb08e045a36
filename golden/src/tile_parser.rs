//! Tile parser (seed 000, claim 1 first step; device claim 13 "图块解析器", fig. 6 block 605).
//!
//! Splits one screen tile into *first sub-tiles* and walks them. Tile `(tx, ty)` covers the
//! pixels `[tx·TW, tx·TW + TW) × [ty·TH, ty·TH + TH)` (`cfg.tile = [TW, TH]`) clipped to the
//! viewport; first sub-tiles are `cfg.subtile = [SW, SH]` pixels, aligned to the tile origin.
//! A sub-tile lying entirely outside the viewport is not produced at all; one lying partly
//! outside is clipped (its `rect` is the part inside, `clipped` is set).
//!
//! In:  `cfg`, tile coordinates `[tx, ty]`.
//! Out: a [`ParsedTile`] (the clipped tile rectangle and the sub-tile grid) whose rows and
//!      sub-tiles are produced in the **walk order**: rows bottom-up (increasing y), inside a row
//!      left → right (increasing x). `SubTile::index = row · cols + col` is that order.
//!
//! ```text
//!   y ▲   tile (clipped at the viewport's top edge: last row only 3 px high)
//!     │   ┌──────┬──────┬──────┬──────┐
//!     │   │ 12   │ 13   │ 14   │ 15   │  row 3 (clipped)
//!     │   ├──────┼──────┼──────┼──────┤
//!     │   │  8   │  9   │ 10   │ 11   │  row 2
//!     │   ├──────┼──────┼──────┼──────┤
//!     │   │  4 ─►│  5 ─►│  6 ─►│  7   │  row 1
//!     │   ├──────┼──────┼──────┼──────┤
//!     │   │  0 ─►│  1 ─►│  2 ─►│  3   │  row 0  (walked first)
//!     │   └──────┴──────┴──────┴──────┘
//!     └──────────────────────────────────► x
//! ```
//!
//! The parser itself holds no per-primitive state: the sub-tile coverage stage asks it for row
//! y-ranges (for whole-row rejection, claim 6) and column x-ranges (claim 7).

use crate::config::Config;
use crate::counters::counters;
use crate::setup::PixelBox;
use std::fmt;

/// Bad input to a raster-stage function: names the offending field.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct InputError {
    pub field: &'static str,
    pub msg: String,
}

impl fmt::Display for InputError {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        write!(f, "{}: {}", self.field, self.msg)
    }
}
impl std::error::Error for InputError {}

counters! {
    /// Counters of the tile parser.
    #[derive(Clone, Copy, Debug, Default, PartialEq, Eq)]
    pub struct ParserStats {
        /// Tiles parsed (one per `(primitive, tile)` pair rasterized).
        pub tiles: u64,
        /// First sub-tiles produced (inside the viewport, possibly clipped).
        pub subtiles: u64,
        /// Of those, sub-tiles clipped by the viewport.
        pub subtiles_clipped: u64,
    }
}

/// One first sub-tile of a parsed tile.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct SubTile {
    /// Column inside the tile (0 = leftmost).
    pub col: u32,
    /// Row inside the tile (0 = bottom).
    pub row: u32,
    /// Walk-order index, `row · cols + col`.
    pub index: u32,
    /// Its pixels, clipped to the viewport (inclusive).
    pub rect: PixelBox,
    /// Smaller than the configured sub-tile because the viewport cut it.
    pub clipped: bool,
}

/// A tile split into first sub-tiles.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct ParsedTile {
    /// Tile coordinates `[tx, ty]`.
    pub tile: [u32; 2],
    /// The tile's pixels, clipped to the viewport (inclusive).
    pub rect: PixelBox,
    /// Configured first sub-tile size `[SW, SH]`.
    pub subtile: [u32; 2],
    /// Sub-tile columns inside the viewport.
    pub cols: u32,
    /// Sub-tile rows inside the viewport.
    pub rows: u32,
}

/// The pixels of tile `[tx, ty]`, clipped to the viewport ([`PixelBox::of_tile`]). Error (field
/// `tile`) if the tile lies outside the tile grid.
pub fn tile_rect(cfg: &Config, tile: [u32; 2]) -> Result<PixelBox, InputError> {
    PixelBox::of_tile(cfg, tile).ok_or_else(|| outside(cfg, tile))
}

#[cold]
fn not_pow2(sw: u32, sh: u32) -> InputError {
    InputError {
        field: "subtile",
        msg: format!("sub-tile size {sw}x{sh} must be powers of two"),
    }
}

#[cold]
fn outside(cfg: &Config, tile: [u32; 2]) -> InputError {
    let [nx, ny] = cfg.tiles();
    InputError {
        field: "tile",
        msg: format!(
            "tile {:?} is outside the {nx}x{ny} tile grid of the {}x{} viewport",
            tile, cfg.viewport[0], cfg.viewport[1]
        ),
    }
}

/// Split tile `[tx, ty]` into first sub-tiles. Error (field `tile`) if the tile lies outside
/// the tile grid.
#[inline]
pub fn parse_tile(cfg: &Config, tile: [u32; 2]) -> Result<ParsedTile, InputError> {
    let rect = tile_rect(cfg, tile)?;
    let [sw, sh] = cfg.subtile;
    if !sw.is_power_of_two() || !sh.is_power_of_two() {
        return Err(not_pow2(sw, sh));
    }
    // Sizes are powers of two: ceil-divide by shifting.
    let cols = (rect.width() + sw - 1) >> sw.trailing_zeros();
    let rows = (rect.height() + sh - 1) >> sh.trailing_zeros();
    Ok(ParsedTile {
        tile,
        rect,
        subtile: [sw, sh],
        cols,
        rows,
    })
}

impl ParsedTile {
    /// Number of sub-tiles walked (inside the viewport).
    pub fn count(&self) -> u32 {
        self.cols * self.rows
    }

    /// Inclusive pixel y-range of sub-tile row `r` (clipped).
    #[inline]
    pub fn row_y(&self, r: u32) -> (u32, u32) {
        let y0 = self.rect.y0 + r * self.subtile[1];
        (y0, (y0 + self.subtile[1] - 1).min(self.rect.y1))
    }

    /// Inclusive pixel x-range of sub-tile column `c` (clipped).
    #[inline]
    pub fn col_x(&self, c: u32) -> (u32, u32) {
        let x0 = self.rect.x0 + c * self.subtile[0];
        (x0, (x0 + self.subtile[0] - 1).min(self.rect.x1))
    }

    /// Sub-tile at column `c`, row `r` (both must be inside the grid).
    #[inline]
    pub fn subtile(&self, c: u32, r: u32) -> SubTile {
        let (x0, x1) = self.col_x(c);
        let (y0, y1) = self.row_y(r);
        SubTile {
            col: c,
            row: r,
            index: r * self.cols + c,
            rect: PixelBox { x0, y0, x1, y1 },
            clipped: x1 - x0 + 1 < self.subtile[0] || y1 - y0 + 1 < self.subtile[1],
        }
    }

    /// Sub-tiles in walk order (rows bottom-up, left → right).
    pub fn iter(&self) -> impl Iterator<Item = SubTile> + '_ {
        (0..self.rows).flat_map(move |r| (0..self.cols).map(move |c| self.subtile(c, r)))
    }

    /// Counters for producing this tile's sub-tiles once.
    pub fn stats(&self) -> ParserStats {
        // Sizes are powers of two: divide by shifting.
        let full_cols = self.rect.width() >> self.subtile[0].trailing_zeros();
        let full_rows = self.rect.height() >> self.subtile[1].trailing_zeros();
        ParserStats {
            tiles: 1,
            subtiles: self.count() as u64,
            subtiles_clipped: (self.count() - full_cols * full_rows) as u64,
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn odd() -> Config {
        let mut c = Config::preset("default").unwrap();
        c.viewport = [100, 75];
        c
    }

    #[test]
    fn interior_tile_is_a_full_grid_in_walk_order() {
        // default: 32x32 tiles, 8x8 sub-tiles → 4x4 grid, tile (2,1) starts at (64,32).
        let c = Config::preset("default").unwrap();
        let t = parse_tile(&c, [2, 1]).unwrap();
        assert_eq!((t.cols, t.rows), (4, 4));
        let v: Vec<_> = t.iter().collect();
        assert_eq!(v.len(), 16);
        assert_eq!(
            v[0].rect,
            PixelBox {
                x0: 64,
                y0: 32,
                x1: 71,
                y1: 39
            }
        );
        assert_eq!(v[1].rect.x0, 72); // left → right first
        assert_eq!(
            v[4].rect,
            PixelBox {
                x0: 64,
                y0: 40,
                x1: 71,
                y1: 47
            }
        ); // then up
        assert!(v.iter().enumerate().all(|(i, s)| s.index == i as u32 && !s.clipped));
        assert_eq!(
            t.stats(),
            ParserStats {
                tiles: 1,
                subtiles: 16,
                subtiles_clipped: 0
            }
        );
    }

    #[test]
    fn clipped_corner_tile() {
        // 100x75 viewport, 32x32 tiles: tile (3,2) = x 96..99 (4 px), y 64..74 (11 px).
        // 8x8 sub-tiles: 1 column (4 px wide, clipped), 2 rows (8 px, then 3 px): both clipped.
        let c = odd();
        let t = parse_tile(&c, [3, 2]).unwrap();
        assert_eq!(
            t.rect,
            PixelBox {
                x0: 96,
                y0: 64,
                x1: 99,
                y1: 74
            }
        );
        assert_eq!((t.cols, t.rows), (1, 2));
        let v: Vec<_> = t.iter().collect();
        assert_eq!(
            v[1].rect,
            PixelBox {
                x0: 96,
                y0: 72,
                x1: 99,
                y1: 74
            }
        );
        assert_eq!(
            t.stats(),
            ParserStats {
                tiles: 1,
                subtiles: 2,
                subtiles_clipped: 2
            }
        );
        // Tile (0,2): 4 columns x 2 rows; the top row (3 px) is clipped: 4 clipped of 8.
        let t = parse_tile(&c, [0, 2]).unwrap();
        assert_eq!(
            t.stats(),
            ParserStats {
                tiles: 1,
                subtiles: 8,
                subtiles_clipped: 4
            }
        );
    }

    #[test]
    fn out_of_grid_names_the_field() {
        let c = odd();
        assert_eq!(parse_tile(&c, [4, 0]).unwrap_err().field, "tile");
        assert_eq!(parse_tile(&c, [0, 3]).unwrap_err().field, "tile");
    }
}

pub use cycle::*;

pub mod cycle {
    //! The cycle model of `hw/src/tile_parser.rs`: same registers, same cycle, every port (truth
    //! layer 3, see [`crate::cycle`]); the transaction model above is the truth it is checked
    //! against. Its items are re-exported at the stage's top level.
    //!
    //! `TileParserCycle`: the cycle model of `hw/src/tile_parser.rs` (see that file's header for the
    //! block diagram). It mirrors the block's registers one for one.
    //!
    //! In: `streams::Edges` (setup → tile parser). Out: `streams::Cand` (→ sub-tile coverage).
    //! Walk: with c0 = bx0/SW, c1 = bx1/SW, r0 = by0/SH, r1 = by1/SH, rows r0..=r1 bottom-up and in each
    //! row columns c0..=c1 left → right: exactly `subtile_coverage::classify_tile`'s walk order with
    //! the row (claim 6) and column (claim 7) rejected sub-tiles skipped at no cost. E steps
    //! incrementally: next column `E += a·SW·256`, next row `E_row += b·SH·256, E = E_row`. Like the
    //! RTL, the a/b and E registers keep `edge_widths(cfg)` signed bits (sign-extended; exact for
    //! everything setup produces, wrapping otherwise). The last visited sub-tile carries `last`; an `empty` command
    //! gives one `none = last = 1` candidate (other fields loaded from the input as usual).
    //!
    //! Look-ahead (`cfg.subtiles_per_cycle` = K > 1, issue 17): when the walk steps along a row,
    //! K − 1 lanes test the next columns col + 1 … col + K − 1 with a cheap, conservative edge test
    //! ([`TileParserCycle::lookahead_rejects`]: every edge's maximum over the unclipped area box)
    //! and the walk lands on the first column not rejected in one step, so a run of up to K − 1
    //! sub-tiles that `subtile_coverage` would reject costs no cycle
    //! ([`TileParserCycle::lookahead`]). The candidates are then golden's walk minus some of its
    //! edge/sample-test-rejected sub-tiles (never a command's last); K = 1 (and `BboxOnly`) is
    //! the walk without look-ahead.
    //!
    //! The timing contract is the rustdoc of [`TileParserCycle`].

    use super::*;

    use crate::cycle::CycleModel;
    use crate::streams::{Cand, Edges};

    /// Wrap to a signed 48-bit value (the RTL's `Signed<48>` arithmetic).
    #[inline]
    pub(crate) fn wrap48(v: i64) -> i64 {
        wrap_bits(v, 48)
    }

    /// Wrap to a signed `n`-bit value (bits ≥ n copy bit n − 1), 1 ≤ n ≤ 64.
    #[inline]
    pub fn wrap_bits(v: i64, n: u32) -> i64 {
        (v << (64 - n)) >> (64 - n)
    }

    /// Internal widths the edge datapath of the tile parser and sub-tile coverage blocks needs for
    /// `cfg`: `(coef_bits, e_bits)`, signed. The stream ports stay `Signed<24>` / `Signed<48>`
    /// (widths of the largest configuration); inside, registers and adders only keep these many
    /// low bits and sign-extend the rest (a preset constant mask: yosys merges the copies and
    /// prunes the carry chain above), which roughly removes a quarter of their cost at `ice40`.
    ///
    /// Bound: vertices lie in the guard band, x ∈ [−g, W + g]·256, so |a| = |y_i − y_j| ≤ (H + 2g)·256
    /// and |b| ≤ (W + 2g)·256. Every point p the blocks evaluate (sub-tile origins, area and
    /// sample-hull corners of viewport-clipped sub-tiles) lies in [0, W·256] × [0, H·256], and
    /// E(p) = a·(p_x − x_i) + b·(p_y − y_i) − bias, so |E| ≤ |a|·(W + g)·256 + |b|·(H + g)·256 + 1.
    /// `tests/tile_parser_cycle.rs` checks it at the guard-band extremes of every preset.
    ///
    /// The bound is not tight for E: E is multi-affine in the vertex and point coordinates, so its
    /// extremes lie at box corners, and the exact maximum is max((H + 2g)(W + g), (W + 2g)(H + g))
    /// ·2^16 + 1, which needs one bit less on every preset (ice40 33, default 37, full 41). The
    /// spare bit stays because setup accumulates 2·area (up to (W + 2g)(H + 2g)·2^16) in the same
    /// `e_bits`, and on `default` that needs all 38: narrowing setup's area accumulator by one bit
    /// fails the co-simulation there, narrowing its edge sums does not.
    pub fn edge_widths(cfg: &Config) -> (u32, u32) {
        let (w, h, g) = (cfg.viewport[0] as i64, cfg.viewport[1] as i64, cfg.guard_band as i64);
        let one = crate::config::ONE as i64;
        let (amax, bmax) = ((h + 2 * g) * one, (w + 2 * g) * one);
        let emax = amax * (w + g) * one + bmax * (h + g) * one + 1;
        // Smallest n with |v| ≤ 2^(n−1) − 1.
        let bits = |v: i64| 65 - (v as u64).leading_zeros();
        (bits(amax.max(bmax)).min(24), bits(emax).min(48))
    }

    /// Cycle model of the tile parser block (`hw/src/tile_parser.rs`; In = [`Edges`], Out =
    /// [`Cand`]), mirroring its registers one for one (walk and widths: the `cycle model` section
    /// comment of this file).
    ///
    /// # Timing contract
    ///
    /// The one statement of the tile parser's timing; the RTL is held to it on every port and
    /// cycle (`hw/tests/tile_parser.rs`, `cosim/tests/tile_parser.rs`). "Accepted at edge k" means
    /// `in_valid` and `in_ready` are high in cycle k (the transfer happens at the rising edge ending
    /// it).
    ///
    /// * **Handshake:** the output registers are the walker (`out_valid` = a candidate is held);
    ///   `in_ready = !out_valid | (out_ready & out_last)`, the only combinational input → output
    ///   path.
    /// * **Latency 1:** an `Edges` beat accepted at edge k shows its first candidate in cycle
    ///   k + 1.
    /// * **Throughput: one candidate per cycle, no bubble between commands.** A command with
    ///   n candidates occupies cycles k + 1 … k + n while `out_ready` is high, and the next beat
    ///   is accepted at the edge where the last candidate transfers, so its first candidate
    ///   appears in cycle k + n + 1. Rows and columns outside the bbox are never visited and cost
    ///   no cycle. With K = 1 (`cfg.subtiles_per_cycle`, or `BboxOnly`) n = (c1 − c0 + 1)·(r1 −
    ///   r0 + 1) visited sub-tiles (n = 1 for an `empty` command: one `none`+`last` candidate;
    ///   [`TileParserCycle::cycles_for`]).
    /// * **Look-ahead (K > 1).** The step that leaves a candidate at column col < c1 (not the
    ///   command's last) goes to [`TileParserCycle::lookahead`]'s column in the same cycle: up
    ///   to K − 1 columns rejected by [`TileParserCycle::lookahead_rejects`] are passed over,
    ///   never the command's last sub-tile; when every column up to c1 is passed over the step
    ///   goes to (c0, row + 1) like the step from c1. So n ≤ the K = 1 count, each candidate
    ///   still one cycle; the step from c1 to the next row and the load of a command test
    ///   nothing. The test reads only the held registers (E, a, b, col, row, c1, r1).
    /// * **Back-pressure:** `out_ready` low holds the candidate; every stalled cycle delays the rest
    ///   of the walk by one.
    /// * **Flush:** every register returns to the state of [`TileParserCycle::new`].
    #[derive(Clone, Debug, PartialEq, Eq)]
    pub struct TileParserCycle {
        lsw: u32,
        lsh: u32,
        /// `edge_widths(cfg)`: registers keep a/b in `cb` and E in `eb` signed bits.
        cb: u32,
        eb: u32,
        valid: bool,
        /// The held candidate (the block's output registers).
        cand: Cand,
        c0: u32,
        c1: u32,
        r1: u32,
        /// E at the origin of sub-tile (c0, row).
        erow: [i64; 3],
        /// `cfg.subtiles_per_cycle` (K): look-ahead lanes + 1.
        k: u32,
    }

    impl TileParserCycle {
        /// Idle model for `cfg`.
        pub fn new(cfg: &Config) -> Self {
            let (cb, eb) = edge_widths(cfg);
            TileParserCycle::idle(
                cfg.subtile[0].trailing_zeros(),
                cfg.subtile[1].trailing_zeros(),
                cb,
                eb,
                // `BboxOnly` has no edge test to skip by.
                if cfg.coverage_test == crate::config::CoverageTest::BboxOnly {
                    1
                } else {
                    cfg.subtiles_per_cycle
                },
            )
        }

        fn idle(lsw: u32, lsh: u32, cb: u32, eb: u32, k: u32) -> Self {
            TileParserCycle {
                lsw,
                lsh,
                cb,
                eb,
                k,
                valid: false,
                cand: Cand::default(),
                c0: 0,
                c1: 0,
                r1: 0,
                erow: [0; 3],
            }
        }

        /// Cycles the block needs for one command with `out_ready` always high and K = 1: the
        /// number of visited sub-tiles (1 for an empty command). With look-ahead (K > 1) this
        /// is an upper bound: skipped sub-tiles cost no cycle.
        pub fn cycles_for(cfg: &Config, e: &Edges) -> u64 {
            if e.empty {
                return 1;
            }
            let [sw, sh] = cfg.subtile;
            let cols = (e.bx1 / sw).wrapping_sub(e.bx0 / sw).wrapping_add(1) & 0xff;
            let rows = (e.by1 / sh).wrapping_sub(e.by0 / sh).wrapping_add(1) & 0xff;
            cols as u64 * rows as u64
        }

        /// The step of the walk from the held candidate when it is not the last one and not at
        /// the end of its row: `(j, wrap)`. Lane j (1 ≤ j < K) tests column col + j of the row
        /// with [`Self::lookahead_rejects`]; the walk lands on col + j for the first lane that
        /// keeps its sub-tile or holds the command's last sub-tile (`(j, false)`), else on
        /// col + K (`(K, false)`); when a column col + j (j ≥ 2) lies right of c1, every column
        /// up to c1 was tested and rejected: it lands on (c0, row + 1) (`(j, true)`). With K = 1
        /// nothing is tested: `(1, false)`, the next column, as without look-ahead.
        pub fn lookahead(&self) -> (u32, bool) {
            let c = &self.cand;
            for j in 1..=self.k {
                let col = c.col + j;
                if j > 1 && col > self.c1 {
                    return (j, true);
                }
                if j == self.k || (col == self.c1 && c.row == self.r1) || !self.lookahead_rejects(j) {
                    return (j, false);
                }
            }
            unreachable!("k >= 1")
        }

        /// The look-ahead test of the sub-tile `j` columns right of the held candidate (E at its
        /// origin `E + j·A`): true when some edge is negative over its whole unclipped area
        /// box, `E + j·A + max(A, 0) + max(B, 0) < 0` with `A = a·SW·256`, `B = b·SH·256`, the
        /// sign taken at bit `eb` (the box's far corner may lie up to one sub-tile outside the
        /// viewport, so the sum needs one bit more than E; bit 47 if `eb` = 48). A sub-tile it
        /// rejects is rejected by `subtile_coverage` in the `Edge` and `Samples` modes (its
        /// clipped area box and sample hull lie inside the unclipped box), so skipping it
        /// changes no output; with `BboxOnly` the walker is built with K = 1.
        pub fn lookahead_rejects(&self, j: u32) -> bool {
            let c = &self.cand;
            let n = (self.eb + 1).min(48);
            (0..3).any(|k| {
                let a = (c.a[k] as i64) << (8 + self.lsw);
                let b = (c.b[k] as i64) << (8 + self.lsh);
                wrap_bits(c.e[k] + j as i64 * a + a.max(0) + b.max(0), n) < 0
            })
        }
    }

    impl CycleModel for TileParserCycle {
        type In = Edges;
        type Out = Cand;

        fn out(&self) -> (bool, Cand) {
            (self.valid, self.cand)
        }

        fn in_ready(&self, out_ready: bool) -> bool {
            !self.valid || (out_ready && self.cand.last)
        }

        fn clock(&mut self, in_valid: bool, inp: &Edges, out_ready: bool, flush: bool) {
            if flush {
                *self = TileParserCycle::idle(self.lsw, self.lsh, self.cb, self.eb, self.k);
                return;
            }
            let accept = in_valid && self.in_ready(out_ready);
            let fire = self.valid && out_ready;
            if accept {
                debug_assert!(inp.prim < 1 << 24 && inp.tile_x < 256 && inp.tile_y < 256);
                debug_assert!(inp.bx0 < 256 && inp.by0 < 256 && inp.bx1 < 256 && inp.by1 < 256);
                debug_assert!(inp.vis_w < 512 && inp.vis_h < 512);
                debug_assert!(inp.e.iter().all(|&e| wrap48(e) == e));
                let (cb, eb) = (self.cb, self.eb);
                let e = inp.e.map(|v| wrap_bits(v, eb));
                let (c0, c1) = (inp.bx0 >> self.lsw, inp.bx1 >> self.lsw);
                let (r0, r1) = (inp.by0 >> self.lsh, inp.by1 >> self.lsh);
                self.valid = true;
                self.cand = Cand {
                    prim: inp.prim,
                    tile_x: inp.tile_x,
                    tile_y: inp.tile_y,
                    col: c0,
                    row: r0,
                    e,
                    a: inp.a.map(|v| wrap_bits(v as i64, cb) as i32),
                    b: inp.b.map(|v| wrap_bits(v as i64, cb) as i32),
                    vis_w: inp.vis_w,
                    vis_h: inp.vis_h,
                    last: inp.empty || (c0 == c1 && r0 == r1),
                    none: inp.empty,
                };
                self.c0 = c0;
                self.c1 = c1;
                self.r1 = r1;
                self.erow = e;
            } else if fire {
                let (j, wrap) = self.lookahead();
                let c = &mut self.cand;
                if c.last {
                    self.valid = false;
                } else if c.col == self.c1 || wrap {
                    // Next row, back to column c0: at the row's end, or with every column up to
                    // c1 passed over by the look-ahead.
                    let row = (c.row + 1) & 0xff;
                    for k in 0..3 {
                        self.erow[k] = wrap_bits(self.erow[k] + ((c.b[k] as i64) << (8 + self.lsh)), self.eb);
                    }
                    c.col = self.c0;
                    c.row = row;
                    c.e = self.erow;
                    c.last = row == self.r1 && self.c0 == self.c1;
                } else {
                    let col = (c.col + j) & 0xff;
                    for k in 0..3 {
                        c.e[k] = wrap_bits(c.e[k] + j as i64 * ((c.a[k] as i64) << (8 + self.lsw)), self.eb);
                    }
                    c.col = col;
                    c.last = col == self.c1 && c.row == self.r1;
                }
            }
        }
    }
}

crate::cycle_model_signature! {
    /// tile_parser's ports: edge functions in, candidate tiles out.
    pub TileParser "tile_parser" for TileParserCycle: Edges -> Cand
}
