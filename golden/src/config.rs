//! The one configuration type shared by the golden model, the RTL generator and the
//! co-simulation harness, with its named presets.
//!
//! Every parameter the hardware is elaborated with lives here, so that `hw` and `golden`
//! can never disagree about, say, the MSAA rate. A scene file names a preset and may
//! override individual fields (see `scene.rs`); [`Config::validate`] checks the result and
//! reports the offending field by name.
//!
//! | field | meaning | seed |
//! |---|---|---|
//! | `viewport` | width × height in pixels | — |
//! | `guard_band` | pixels beyond each viewport edge a vertex may lie | — |
//! | `tile` | screen tile = first tile of 001, in pixels | 000, 001 |
//! | `subtile` | first sub-tile, in pixels | 000 |
//! | `msaa` | samples per pixel S (1/2/4/8/16) | 000 |
//! | `colours_per_pixel` | colours C stored per pixel, independent of S | 000 |
//! | `colour_block_bytes` | one on-chip colour-buffer storage block | 000 |
//! | `quads_per_clock` | Q quads the sample rasterizer emits per clock | 000 (RTL) |
//! | `second_tile` | pixel-processor tile of 001 | 001 |
//! | `max_point_size` | largest rasterized point size | 003 |
//! | `subtiles_per_cycle` | K: sub-tiles the tile parser's look-ahead walks per cycle (1 = none) | 000 (RTL) |
//! | `framebuffer` | `clear`: blend over the frame's background register (no `dst` read); `keep`: read `dst` from memory | 000 |
//! | `blend_match_in_flight` | the blender's pool also merges onto the ops in its pipeline stages (claim 6) | 004 |

use serde::{Deserialize, Serialize};
use std::fmt;

/// How the sub-tile coverage stage decides, after row and column rejection, whether a first
/// sub-tile is touched by a triangle (seed 000, claims 8 and 9).
#[derive(Clone, Copy, Debug, PartialEq, Eq, Serialize, Deserialize, Default)]
#[serde(rename_all = "snake_case")]
pub enum CoverageTest {
    /// Claim 8: does the triangle's area overlap the sub-tile's area? Each edge is evaluated at
    /// the sub-tile corner where it is largest.
    #[default]
    Edge,
    /// Claim 9: sample the sub-tile's own sample points (the corners of the hull of every
    /// pixel sample inside it) to get a "second mask"; a sub-tile whose second mask shows all
    /// corners outside one edge is not covered.
    Samples,
    /// Bounding-box row and column rejection only.
    BboxOnly,
}

/// Which triangles are dropped by winding (y up: counter-clockwise has positive area).
#[derive(Clone, Copy, Debug, PartialEq, Eq, Serialize, Deserialize, Default)]
#[serde(rename_all = "snake_case")]
pub enum CullMode {
    #[default]
    None,
    /// Drop clockwise triangles.
    Cw,
    /// Drop counter-clockwise triangles.
    Ccw,
}

/// Depth comparison used by the pixel side (seed 002's depth test).
#[derive(Clone, Copy, Debug, PartialEq, Eq, Serialize, Deserialize, Default)]
#[serde(rename_all = "snake_case")]
pub enum DepthFunc {
    /// Nearer (smaller) or equal depth wins; with equal depths, the later primitive wins,
    /// which is painter's order for 2D scenes.
    #[default]
    LessEqual,
    Less,
    Always,
}

/// Where the output merger's `dst` comes from (seed 000's output merger, read side).
#[derive(Clone, Copy, Debug, PartialEq, Eq, Serialize, Deserialize, Default)]
#[serde(rename_all = "snake_case")]
pub enum FramebufferMode {
    /// A fast clear: every slot's `dst` is the frame's background, held in a register (the
    /// frame-end token's `colour`), so the back end reads nothing from the framebuffer. Equal
    /// to `keep` over a framebuffer that holds the background, as each slot is blended at most
    /// once per frame.
    #[default]
    Clear,
    /// Read every blended slot's `dst` from the framebuffer in memory (one read per slot): for
    /// drawing over what the memory already holds.
    Keep,
}

impl FramebufferMode {
    /// The config file's spelling (`clear`, `keep`).
    pub fn name(self) -> &'static str {
        match self {
            FramebufferMode::Clear => "clear",
            FramebufferMode::Keep => "keep",
        }
    }
}

/// The single configuration struct. All sizes are in pixels.
#[derive(Clone, Debug, PartialEq, Eq, Serialize, Deserialize)]
#[serde(deny_unknown_fields)]
pub struct Config {
    /// Preset name this config came from (informational; shows up in generated RTL names).
    pub name: String,
    /// Viewport width and height in pixels.
    pub viewport: [u32; 2],
    /// How far (in whole pixels) beyond each viewport edge a vertex may lie.
    pub guard_band: u32,
    /// Screen tile (= seed 001's first tile) width and height.
    pub tile: [u32; 2],
    /// First sub-tile width and height; divides the tile.
    pub subtile: [u32; 2],
    /// Samples per pixel: 1, 2, 4, 8 or 16.
    pub msaa: u32,
    /// Colours stored per pixel (1, 2, 4, 8 or 16), independent of `msaa`.
    pub colours_per_pixel: u32,
    /// Bytes in one on-chip colour-buffer storage block (holds one second sub-tile).
    pub colour_block_bytes: u32,
    /// Quads per clock of the sample rasterizer: 1, 2 or 4.
    pub quads_per_clock: u32,
    /// Seed 001's second tile (pixel-processor tile) width and height.
    pub second_tile: [u32; 2],
    /// Largest point size rasterized (sizes are clamped to it).
    pub max_point_size: u32,
    /// Sub-tile coverage method after row/column rejection.
    #[serde(default)]
    pub coverage_test: CoverageTest,
    /// Sub-tiles the tile parser walks per cycle, K (1..=4): with K > 1 its walker tests the
    /// next K − 1 sub-tiles of the row for rejection by the area-box edge test and skips the
    /// rejected ones in the same cycle (`tile_parser::TileParserCycle`). 1 = one sub-tile per
    /// cycle, no look-ahead (the default, and what configs without the field get).
    #[serde(default = "one")]
    pub subtiles_per_cycle: u32,
    /// Winding cull mode.
    #[serde(default)]
    pub cull: CullMode,
    /// Depth function of the pixel side.
    #[serde(default)]
    pub depth_func: DepthFunc,
    /// Where blending's `dst` comes from: the background register (`clear`, the default) or
    /// the framebuffer in memory (`keep`).
    #[serde(default)]
    pub framebuffer: FramebufferMode,
    /// Seed 001: bytes per pixel-info memory block (linked-list node, incl. its next pointer).
    pub pixel_info_block_bytes: u32,
    /// Seed 002: radix digit width in bits.
    pub sort_digit_bits: u32,
    /// Seed 004: blender sample-pool entries P.
    pub blend_pool: u32,
    /// Seed 004: blend lanes L.
    pub blend_lanes: u32,
    /// Seed 004: blend pipeline depth in cycles (samples "in flight").
    pub blend_latency: u32,
    /// Seed 004, claim 6: the blender's comparator also matches pool samples against the ops
    /// in its D pipeline stages and merges them there. It is two thirds of the blender's logic
    /// (one 72-bit comparator per pool slot and op in flight, and the sideband that copies the
    /// op's result into the merged sample's slot) and gains no frame cycles on the shipped
    /// scenes, so only `full` builds it (docs/measurements.md, "The blender's in-flight
    /// match"). Configs without the field get `false`.
    #[serde(default)]
    pub blend_match_in_flight: bool,
}

fn one() -> u32 {
    1
}

/// Largest `Config::subtiles_per_cycle` (the RTL has look-ahead lanes for this many).
pub const MAX_SUBTILES_PER_CYCLE: u32 = 4;

/// Bytes of one stored colour (RGBA8).
pub const COLOUR_BYTES: u32 = 4;
/// Fractional bits of vertex and point positions.
pub const FRAC_BITS: u32 = 8;
/// One pixel in fixed point.
pub const ONE: i32 = 1 << FRAC_BITS;

/// Error from [`Config::validate`] or preset lookup: names the field.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct ConfigError {
    pub field: &'static str,
    pub msg: String,
}

impl fmt::Display for ConfigError {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        write!(f, "config.{}: {}", self.field, self.msg)
    }
}
impl std::error::Error for ConfigError {}

/// Names of the presets, in the order CI runs them.
pub const PRESETS: &[&str] = &["ice40", "default", "full", "ice40_1x"];

impl Config {
    /// Look up a named preset.
    pub fn preset(name: &str) -> Result<Config, ConfigError> {
        let base = Config {
            name: name.to_string(),
            viewport: [640, 480],
            guard_band: 256,
            tile: [32, 32],
            subtile: [8, 8],
            msaa: 4,
            colours_per_pixel: 1,
            colour_block_bytes: 256,
            quads_per_clock: 2,
            second_tile: [64, 32],
            max_point_size: 64,
            coverage_test: CoverageTest::Edge,
            // Look-ahead over 3 test-rejected sub-tiles per step: with its lane offsets
            // registered the tile parser at K = 4 measured 63.5 MHz on the ECP5 (1 130 LUT4s;
            // 132.5 and 401 at K = 1), above the whole core's 48.4 MHz (docs/measurements.md,
            // issue 17).
            subtiles_per_cycle: 4,
            cull: CullMode::None,
            depth_func: DepthFunc::LessEqual,
            framebuffer: FramebufferMode::Clear,
            pixel_info_block_bytes: 64,
            sort_digit_bits: 11,
            blend_pool: 4,
            blend_lanes: 2,
            blend_latency: 4,
            blend_match_in_flight: false,
        };
        let c = match name {
            // Small enough for an iCE40 UP5K: 4x MSAA, one quad per clock.
            "ice40" => Config {
                viewport: [160, 120],
                guard_band: 32,
                tile: [16, 16],
                subtile: [4, 4],
                msaa: 4,
                quads_per_clock: 1,
                colour_block_bytes: 64,
                second_tile: [32, 16],
                max_point_size: 16,
                // No look-ahead: at Q = 1 it gains under 1 % on the shipped ice40 scenes, and
                // K = 4 measured 1 332 instead of 455 LUT4s and 67.1 instead of 106.6 MHz for the
                // tile parser on the HX8K, whose 4x core already fills 99 % (docs/measurements.md,
                // issue 17).
                subtiles_per_cycle: 1,
                ..base
            },
            // The ice40 preset at 1x MSAA (one sample per pixel, at the pixel centre): the
            // raster core that fits the iCE40 boards next to the UART top (fpga/README.md).
            "ice40_1x" => Config {
                name: name.to_string(),
                msaa: 1,
                // Today's walker (no look-ahead): this core fills 98 % of the UP5K.
                subtiles_per_cycle: 1,
                ..Config::preset("ice40")?
            },
            "default" => base,
            // Full HD, 16x MSAA, four quads per clock.
            "full" => Config {
                viewport: [1920, 1080],
                guard_band: 1024,
                tile: [64, 64],
                subtile: [8, 8],
                msaa: 16,
                colours_per_pixel: 4,
                colour_block_bytes: 1024,
                quads_per_clock: 4,
                // 32x32 (not the other presets' 64x32): at 16 samples shading_sort's RAMs
                // grow with the second tile, and the frame top's on-chip RAM must fit the
                // ECP5-85F with room for a board top (`frame::ram::check_frame_ram`: 3.15 Mbit
                // here, 5.86 at 64x32).
                second_tile: [32, 32],
                max_point_size: 255,
                // Look-ahead over 3 test-rejected sub-tiles per step: at Q = 4 the walker, not
                // the rasterizer, sets the pace on thin and large triangles (throughput bench);
                // the core's path is sample_raster's (33.9 MHz), not the tile parser's.
                subtiles_per_cycle: 4,
                // The preset with every feature: the blender's in-flight match too.
                blend_match_in_flight: true,
                ..base
            },
            _ => {
                return Err(ConfigError {
                    field: "name",
                    msg: format!("unknown preset `{name}` (known: {})", PRESETS.join(", ")),
                })
            }
        };
        c.validate()?;
        Ok(c)
    }

    /// Check every field; the error names the first bad one.
    pub fn validate(&self) -> Result<(), ConfigError> {
        fn err(field: &'static str, msg: String) -> Result<(), ConfigError> {
            Err(ConfigError { field, msg })
        }
        let pow2 = |v: u32| v != 0 && v.is_power_of_two();
        let [w, h] = self.viewport;
        if !(1..=MAX_VIEWPORT).contains(&w) || !(1..=MAX_VIEWPORT).contains(&h) {
            return err(
                "viewport",
                format!("{w}x{h} must be within 1..={MAX_VIEWPORT} on each axis"),
            );
        }
        if self.guard_band > MAX_GUARD_BAND {
            return err(
                "guard_band",
                format!("{} exceeds the maximum {MAX_GUARD_BAND}", self.guard_band),
            );
        }
        for (i, v) in self.tile.iter().enumerate() {
            if !pow2(*v) || !(2..=256).contains(v) {
                return err("tile", format!("tile[{i}] = {v} must be a power of two in 2..=256"));
            }
        }
        for (i, v) in self.subtile.iter().enumerate() {
            if !pow2(*v) || *v < 2 || *v > self.tile[i] {
                return err(
                    "subtile",
                    format!(
                        "subtile[{i}] = {v} must be a power of two, at least 2 and at most tile[{i}] = {}",
                        self.tile[i]
                    ),
                );
            }
        }
        if ![1, 2, 4, 8, 16].contains(&self.msaa) {
            return err("msaa", format!("{} is not one of 1, 2, 4, 8, 16", self.msaa));
        }
        if ![1, 2, 4, 8, 16].contains(&self.colours_per_pixel) {
            return err(
                "colours_per_pixel",
                format!("{} is not one of 1, 2, 4, 8, 16", self.colours_per_pixel),
            );
        }
        if ![1, 2, 4].contains(&self.quads_per_clock) {
            return err(
                "quads_per_clock",
                format!("{} is not one of 1, 2, 4", self.quads_per_clock),
            );
        }
        if !(1..=MAX_SUBTILES_PER_CYCLE).contains(&self.subtiles_per_cycle) {
            return err(
                "subtiles_per_cycle",
                format!(
                    "{} must be within 1..={MAX_SUBTILES_PER_CYCLE}",
                    self.subtiles_per_cycle
                ),
            );
        }
        let bpp = COLOUR_BYTES * self.colours_per_pixel;
        if !pow2(self.colour_block_bytes) || self.colour_block_bytes < 4 * bpp {
            return err(
                "colour_block_bytes",
                format!(
                    "{} must be a power of two holding at least one quad ({} bytes at {} colours/pixel)",
                    self.colour_block_bytes,
                    4 * bpp,
                    self.colours_per_pixel
                ),
            );
        }
        let [sw, sh] = self.second_subtile();
        if sw > self.tile[0] || sh > self.tile[1] {
            return err(
                "colour_block_bytes",
                format!(
                    "second sub-tile {sw}x{sh} from {} bytes is larger than the tile",
                    self.colour_block_bytes
                ),
            );
        }
        for (i, v) in self.second_tile.iter().enumerate() {
            if !pow2(*v) || !(2..=256).contains(v) {
                return err(
                    "second_tile",
                    format!("second_tile[{i}] = {v} must be a power of two in 2..=256"),
                );
            }
        }
        if !(1..=MAX_POINT_SIZE).contains(&self.max_point_size) {
            return err(
                "max_point_size",
                format!("{} must be within 1..={MAX_POINT_SIZE}", self.max_point_size),
            );
        }
        if !pow2(self.pixel_info_block_bytes) || !(16..=4096).contains(&self.pixel_info_block_bytes) {
            return err(
                "pixel_info_block_bytes",
                format!("{} must be a power of two in 16..=4096", self.pixel_info_block_bytes),
            );
        }
        if !(1..=16).contains(&self.sort_digit_bits) {
            return err(
                "sort_digit_bits",
                format!("{} must be within 1..=16", self.sort_digit_bits),
            );
        }
        if !(1..=64).contains(&self.blend_lanes) {
            return err("blend_lanes", format!("{} must be within 1..=64", self.blend_lanes));
        }
        if self.blend_pool < self.blend_lanes || self.blend_pool > 64 {
            return err(
                "blend_pool",
                format!(
                    "{} must be within blend_lanes ({})..=64",
                    self.blend_pool, self.blend_lanes
                ),
            );
        }
        if !(1..=64).contains(&self.blend_latency) {
            return err("blend_latency", format!("{} must be within 1..=64", self.blend_latency));
        }
        Ok(())
    }

    /// Samples per pixel.
    pub fn samples(&self) -> u32 {
        self.msaa
    }

    /// True when colours/pixel < samples/pixel: quads come from re-split second sub-tiles
    /// (seed 000 claim 2), otherwise straight from the first sub-tiles (claim 3).
    pub fn resplit(&self) -> bool {
        self.colours_per_pixel < self.msaa
    }

    /// Preset size of a second sub-tile: as many pixels as one colour storage block holds,
    /// as square as a power of two allows (width ≥ height).
    pub fn second_subtile(&self) -> [u32; 2] {
        let pixels = self.colour_block_bytes / (COLOUR_BYTES * self.colours_per_pixel);
        let log = pixels.max(1).trailing_zeros();
        let w = 1u32 << log.div_ceil(2);
        let h = (pixels / w).max(1);
        [w, h]
    }

    /// Number of tiles across and up the viewport.
    pub fn tiles(&self) -> [u32; 2] {
        [
            self.viewport[0].div_ceil(self.tile[0]),
            self.viewport[1].div_ceil(self.tile[1]),
        ]
    }

    /// Guard-band limits in fixed point: a coordinate must lie in `[lo, hi]`.
    pub fn guard_limits_fx(&self) -> ([i32; 2], [i32; 2]) {
        let g = self.guard_band as i32;
        let lo = [-g * ONE, -g * ONE];
        let hi = [(self.viewport[0] as i32 + g) * ONE, (self.viewport[1] as i32 + g) * ONE];
        (lo, hi)
    }

    /// Quad mask width in bits: 4 pixels × S samples.
    pub fn quad_mask_bits(&self) -> u32 {
        4 * self.msaa
    }
}

/// Largest viewport side supported (keeps every fixed-point value within 22 signed bits).
pub const MAX_VIEWPORT: u32 = 4096;
/// Largest guard band supported.
pub const MAX_GUARD_BAND: u32 = 4096;
/// Largest configurable point size.
pub const MAX_POINT_SIZE: u32 = 1023;

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn every_preset_validates_and_differs() {
        let cs: Vec<Config> = PRESETS.iter().map(|p| Config::preset(p).unwrap()).collect();
        assert_eq!(cs[0].msaa, 4);
        assert_eq!(cs[0].quads_per_clock, 1);
        assert_eq!(cs[2].msaa, 16);
        assert_eq!(cs[2].quads_per_clock, 4);
        assert_ne!(cs[0], cs[1]);
    }

    #[test]
    fn unknown_preset_names_field() {
        let e = Config::preset("nope").unwrap_err();
        assert_eq!(e.field, "name");
        assert!(e.to_string().contains("nope"));
    }

    #[test]
    fn bad_fields_are_named() {
        let mut c = Config::preset("default").unwrap();
        c.msaa = 3;
        assert_eq!(c.validate().unwrap_err().field, "msaa");
        let mut c = Config::preset("default").unwrap();
        c.subtile = [64, 8];
        assert_eq!(c.validate().unwrap_err().field, "subtile");
        let mut c = Config::preset("default").unwrap();
        c.colour_block_bytes = 100;
        assert_eq!(c.validate().unwrap_err().field, "colour_block_bytes");
    }

    #[test]
    fn second_subtile_from_block_size() {
        let mut c = Config::preset("default").unwrap();
        c.colours_per_pixel = 1;
        c.colour_block_bytes = 256; // 64 pixels
        assert_eq!(c.second_subtile(), [8, 8]);
        c.colour_block_bytes = 128; // 32 pixels
        assert_eq!(c.second_subtile(), [8, 4]);
        c.colours_per_pixel = 4;
        c.colour_block_bytes = 1024; // 64 pixels
        assert_eq!(c.second_subtile(), [8, 8]);
    }
}
