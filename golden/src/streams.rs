//! Payloads of the streams between RTL blocks, as the cycle models see them (see
//! `hw/README.md`). Field names equal the Verilog port suffixes; widths are noted per field and
//! every value must fit them (the cycle models assert it in debug builds).

use crate::config::Config;

/// Lanes of a beat (the largest Q).
pub const LANES: usize = 4;

/// raster_core input: one primitive in one first tile.
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq)]
pub struct Cmd {
    /// 0 triangle, 1 point.
    pub kind: u8,
    /// Primitive id, 24 bits.
    pub prim: u32,
    /// First tile, 8 bits each.
    pub tile_x: u32,
    pub tile_y: u32,
    /// Vertices, absolute 1/256 px, signed 24 bits. A point uses `v[0]`.
    pub v: [[i32; 2]; 3],
    /// Point size in 1/256 px, 24 bits.
    pub size: u32,
    /// Point antialiasing.
    pub aa: bool,
}

/// setup → tile_parser.
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq)]
pub struct Edges {
    pub prim: u32,
    pub tile_x: u32,
    pub tile_y: u32,
    /// Nothing to rasterize (zero area, culled, bbox misses the tile).
    pub empty: bool,
    /// Edge coefficients after the counter-clockwise reorder, signed 24 bits.
    pub a: [i32; 3],
    pub b: [i32; 3],
    /// Biased edge value at the origin of the first visited sub-tile (c0, r0), tile-relative,
    /// signed 48 bits; covered iff ≥ 0.
    pub e: [i64; 3],
    /// Inclusive pixel bbox relative to the tile, clipped to tile and viewport, 8 bits each.
    pub bx0: u32,
    pub by0: u32,
    pub bx1: u32,
    pub by1: u32,
    /// Pixels of this tile inside the viewport, 9 bits each.
    pub vis_w: u32,
    pub vis_h: u32,
}

/// tile_parser → subtile_coverage: one visited first sub-tile (or a bare `last` token).
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq)]
pub struct Cand {
    pub prim: u32,
    pub tile_x: u32,
    pub tile_y: u32,
    /// Sub-tile column and row inside the tile, 8 bits each.
    pub col: u32,
    pub row: u32,
    /// Biased E at this sub-tile's origin, signed 48 bits.
    pub e: [i64; 3],
    pub a: [i32; 3],
    pub b: [i32; 3],
    pub vis_w: u32,
    pub vis_h: u32,
    /// Last candidate of its command.
    pub last: bool,
    /// No sub-tile: a `last` token for a command with nothing to visit.
    pub none: bool,
}

/// subtile_coverage → sample_raster: a covered sub-tile (or a bare `last` token).
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq)]
pub struct Job {
    pub cand: Cand,
    /// Every sample of the sub-tile (inside the viewport) is covered.
    pub trivial: bool,
}

/// A beat of up to [`LANES`] quads: sample_raster / point_raster → merge → quad_packer → out.
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq)]
pub struct Beat {
    pub prim: u32,
    /// Bit l: lane l holds a quad (its mask is non-zero).
    pub lane_valid: u8,
    /// Absolute quad coordinates, 12 bits each.
    pub qx: [u32; LANES],
    pub qy: [u32; LANES],
    /// 4·S mask bits per lane.
    pub mask: [u64; LANES],
    /// Storage block of the lane's second sub-tile (quad_packer output only), 8 bits.
    pub block: [u32; LANES],
    /// Last beat of its command.
    pub last: bool,
}

impl Beat {
    /// The valid quads of this beat, in lane order.
    pub fn quads(&self) -> impl Iterator<Item = crate::Quad> + '_ {
        (0..LANES)
            .filter(move |l| self.lane_valid >> l & 1 == 1)
            .map(move |l| crate::Quad {
                prim: self.prim,
                qx: self.qx[l] as u16,
                qy: self.qy[l] as u16,
                mask: self.mask[l],
            })
    }
}

/// The commands for a frame, in the golden pipeline's order: first tiles bottom-up then
/// left→right, primitives of each tile's bin list in submission order.
pub fn commands(frame: &crate::scene::Frame) -> Result<Vec<Cmd>, crate::pipeline::PipelineError> {
    let cfg: &Config = &frame.cfg;
    let boxes: Vec<(u32, crate::setup::PixelBox)> = frame
        .prims
        .iter()
        .enumerate()
        .filter_map(|(i, p)| crate::binner::prim_bbox(cfg, p).map(|b| (i as u32, b)))
        .collect();
    let mut bins = crate::binner::bin(cfg, &boxes)?;
    let order: Vec<[u32; 2]> = bins.tile_order().collect();
    let mut cmds = Vec::new();
    for t in order {
        for prim in bins.read_tile(t)? {
            let c = match &frame.prims[prim as usize] {
                crate::PrimitiveFx::Triangle(tr) => Cmd {
                    kind: 0,
                    prim,
                    tile_x: t[0],
                    tile_y: t[1],
                    v: tr.v,
                    size: 0,
                    aa: false,
                },
                crate::PrimitiveFx::Point(p) => Cmd {
                    kind: 1,
                    prim,
                    tile_x: t[0],
                    tile_y: t[1],
                    v: [p.pos, [0, 0], [0, 0]],
                    size: p.size as u32,
                    aa: p.aa,
                },
            };
            cmds.push(c);
        }
    }
    Ok(cmds)
}
