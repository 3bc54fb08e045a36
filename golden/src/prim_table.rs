//! The **primitive table** in memory: one 32-byte entry per primitive of a frame, at byte
//! offset `prim · 32` of its region. The frame top writes it as primitives stream in; the tile
//! sequencer reads an entry back for every (first tile, listed primitive) to rebuild the raster
//! core's [`Cmd`] and the depth the pixel-info writer records; shading (002) reads the colour
//! word once per primitive of a second tile.
//!
//! ```text
//!  word  bits     triangle               point
//!   0    31..0    v0.x (i24, sign-ext.)  pos.x
//!   1    31..0    v0.y                   pos.y
//!   2    31..0    v1.x                   size (u24, 1/256 px)
//!   3    31..0    v1.y                   0
//!   4    31..0    v2.x                   0
//!   5    31..0    v2.y                   0
//!   6    31..0    colour RGBA8, R in bits 7..0 (little-endian bytes R, G, B, A)
//!   7    23..0    depth (unorm24)
//!        24       kind (0 triangle, 1 point)
//!        25       aa (points; 0 for triangles)
//!        31..26   0
//! ```
//!
//! Coordinates are the raster core's: absolute 1/256 px in signed 24 bits ([`Cmd::v`]).
//! [`encode`] refuses a primitive whose fields do not fit, naming the field.

use crate::prim::{PrimitiveFx, Rgba};
use crate::streams::Cmd;

/// Words of an entry.
pub const PRIM_WORDS: u32 = 8;
/// Bytes of an entry (a power of two: entry `i` is at `i << PRIM_LOG`).
pub const PRIM_BYTES: u32 = 4 * PRIM_WORDS;
/// log2 [`PRIM_BYTES`].
pub const PRIM_LOG: u32 = PRIM_BYTES.trailing_zeros();
/// Word holding the colour.
pub const COLOUR_WORD: u32 = 6;
/// Word holding depth, kind and aa.
pub const ATTR_WORD: u32 = 7;
/// Bit of the kind in [`ATTR_WORD`].
pub const KIND_BIT: u32 = 24;
/// Bit of aa in [`ATTR_WORD`].
pub const AA_BIT: u32 = 25;

/// One decoded entry.
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq)]
pub struct PrimEntry {
    /// 0 triangle, 1 point.
    pub kind: u8,
    /// Vertices (a point uses `v[0]`), signed 24 bits.
    pub v: [[i32; 2]; 3],
    /// Point size, 24 bits (0 for triangles).
    pub size: u32,
    pub aa: bool,
    pub colour: Rgba,
    /// unorm24.
    pub depth: u32,
}

impl PrimEntry {
    /// The raster core command of this primitive in first tile `tile`.
    pub fn cmd(&self, prim: u32, tile: [u32; 2]) -> Cmd {
        Cmd {
            kind: self.kind,
            prim,
            tile_x: tile[0],
            tile_y: tile[1],
            v: self.v,
            size: self.size,
            aa: self.aa,
        }
    }
}

fn fits_i24(v: i32) -> bool {
    (-(1 << 23)..1 << 23).contains(&v)
}

/// The entry of `p`, or one line naming the field that does not fit.
pub fn entry(p: &PrimitiveFx) -> Result<PrimEntry, String> {
    let e = match p {
        PrimitiveFx::Triangle(t) => PrimEntry {
            kind: 0,
            v: t.v,
            size: 0,
            aa: false,
            colour: t.colour,
            depth: t.depth,
        },
        PrimitiveFx::Point(q) => PrimEntry {
            kind: 1,
            v: [q.pos, [0, 0], [0, 0]],
            size: q.size as u32,
            aa: q.aa,
            colour: q.colour,
            depth: q.depth,
        },
    };
    for (i, v) in e.v.iter().enumerate() {
        for (c, &x) in v.iter().enumerate() {
            if !fits_i24(x) {
                return Err(format!("v[{i}][{c}] = {x} does not fit signed 24 bits (1/256 px)"));
            }
        }
    }
    if let PrimitiveFx::Point(q) = p {
        if !(0..1 << 24).contains(&q.size) {
            return Err(format!("size = {} must be within 0..2^24 (1/256 px)", q.size));
        }
    }
    if e.depth >= 1 << 24 {
        return Err(format!("depth = {} does not fit 24 bits", e.depth));
    }
    Ok(e)
}

/// The words of entry `e`.
pub fn encode(e: &PrimEntry) -> [u32; PRIM_WORDS as usize] {
    let m24 = |x: i32| x as u32;
    let mut w = [0u32; PRIM_WORDS as usize];
    if e.kind == 0 {
        for i in 0..3 {
            w[2 * i] = m24(e.v[i][0]);
            w[2 * i + 1] = m24(e.v[i][1]);
        }
    } else {
        w[0] = m24(e.v[0][0]);
        w[1] = m24(e.v[0][1]);
        w[2] = e.size;
    }
    w[COLOUR_WORD as usize] = u32::from_le_bytes(e.colour);
    w[ATTR_WORD as usize] = (e.depth & 0xff_ffff) | (u32::from(e.kind & 1) << KIND_BIT) | (u32::from(e.aa) << AA_BIT);
    w
}

/// Sign-extend the low 24 bits.
fn sx24(x: u32) -> i32 {
    ((x << 8) as i32) >> 8
}

/// Decode an entry's words (the low 24 bits of the coordinate and size words, as the RTL
/// reads them; bits the layout leaves 0 are ignored).
pub fn decode(w: &[u32; PRIM_WORDS as usize]) -> PrimEntry {
    let attr = w[ATTR_WORD as usize];
    let kind = ((attr >> KIND_BIT) & 1) as u8;
    let v = if kind == 0 {
        std::array::from_fn(|i| [sx24(w[2 * i]), sx24(w[2 * i + 1])])
    } else {
        [[sx24(w[0]), sx24(w[1])], [0, 0], [0, 0]]
    };
    PrimEntry {
        kind,
        v,
        size: if kind == 0 { 0 } else { w[2] & 0xff_ffff },
        aa: kind == 1 && (attr >> AA_BIT) & 1 == 1,
        colour: w[COLOUR_WORD as usize].to_le_bytes(),
        depth: attr & 0xff_ffff,
    }
}

/// The table of a frame's primitives, byte for byte (entry `i` at `i · 32`); the error names
/// the primitive and its field.
pub fn table(prims: &[PrimitiveFx]) -> Result<Vec<u8>, String> {
    let mut out = Vec::with_capacity(prims.len() * PRIM_BYTES as usize);
    for (i, p) in prims.iter().enumerate() {
        let e = entry(p).map_err(|m| format!("prims[{i}].{m}"))?;
        for w in encode(&e) {
            out.extend_from_slice(&w.to_le_bytes());
        }
    }
    Ok(out)
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::prim::{PointFx, TriangleFx};

    #[test]
    fn entries_round_trip_and_rebuild_the_golden_commands() {
        let t = PrimitiveFx::Triangle(TriangleFx {
            v: [[-(1 << 23), (1 << 23) - 1], [5, -6], [256, 512]],
            colour: [1, 2, 3, 250],
            depth: 0xab_cdef,
        });
        let p = PrimitiveFx::Point(PointFx {
            pos: [-1, 77],
            size: 0xff_ffff,
            aa: true,
            colour: [9, 8, 7, 6],
            depth: 3,
        });
        for (i, q) in [t, p].iter().enumerate() {
            let e = entry(q).unwrap();
            let w = encode(&e);
            assert_eq!(decode(&w), e);
            assert_eq!(e.colour, q.colour());
            assert_eq!(e.depth, q.depth());
            let c = e.cmd(i as u32, [3, 4]);
            assert_eq!((c.kind, c.prim, c.tile_x, c.tile_y), (i as u8, i as u32, 3, 4));
        }
        assert_eq!(encode(&entry(&p).unwrap())[ATTR_WORD as usize], 3 | 1 << 24 | 1 << 25);
        assert_eq!(
            encode(&entry(&t).unwrap())[0],
            0xff80_0000,
            "v0.x = -2^23 sign-extended"
        );
        let tab = table(&[t, p]).unwrap();
        assert_eq!(tab.len(), 64);
        assert_eq!(&tab[32 + 24..32 + 28], &[9, 8, 7, 6], "colour word of entry 1");
    }

    #[test]
    fn fields_that_do_not_fit_are_named() {
        let t = PrimitiveFx::Triangle(TriangleFx {
            v: [[0, 0], [1 << 23, 0], [0, 5]],
            colour: [0; 4],
            depth: 0,
        });
        assert_eq!(
            table(&[t]).unwrap_err(),
            "prims[0].v[1][0] = 8388608 does not fit signed 24 bits (1/256 px)"
        );
        let p = PrimitiveFx::Point(PointFx {
            pos: [0, 0],
            size: -1,
            aa: false,
            colour: [0; 4],
            depth: 1 << 24,
        });
        assert!(entry(&p).unwrap_err().starts_with("size = -1"));
    }
}
