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

impl ParserStats {
    /// Accumulate another set of counters.
    pub fn add(&mut self, o: &ParserStats) {
        self.tiles += o.tiles;
        self.subtiles += o.subtiles;
        self.subtiles_clipped += o.subtiles_clipped;
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

/// The pixels of tile `[tx, ty]`, clipped to the viewport. Error (field `tile`) if the tile
/// lies outside the tile grid.
pub fn tile_rect(cfg: &Config, tile: [u32; 2]) -> Result<PixelBox, InputError> {
    // Tile origin; the tile exists iff its origin is inside the viewport.
    let x0 = tile[0].saturating_mul(cfg.tile[0]);
    let y0 = tile[1].saturating_mul(cfg.tile[1]);
    if x0 >= cfg.viewport[0] || y0 >= cfg.viewport[1] {
        return Err(outside(cfg, tile));
    }
    Ok(PixelBox {
        x0,
        y0,
        x1: (x0 + cfg.tile[0]).min(cfg.viewport[0]) - 1,
        y1: (y0 + cfg.tile[1]).min(cfg.viewport[1]) - 1,
    })
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
