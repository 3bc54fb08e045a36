//! Fixed-point primitives and quads: the data that flows between stages.

use serde::{Deserialize, Serialize};
use std::collections::BTreeMap;

/// RGBA, 8 bits per channel, straight (not premultiplied) alpha.
pub type Rgba = [u8; 4];

/// A triangle after the front end: vertices in 1/256 pixel, y up.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Serialize, Deserialize)]
pub struct TriangleFx {
    pub v: [[i32; 2]; 3],
    pub colour: Rgba,
    /// Depth as 24-bit unsigned normalized (0 = near).
    pub depth: u32,
}

/// A point after the front end.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Serialize, Deserialize)]
pub struct PointFx {
    /// Position in 1/256 pixel.
    pub pos: [i32; 2],
    /// Unrounded size in 1/256 pixel (≥ 0).
    pub size: i32,
    /// Multisample antialiasing on for this point (per-sample square test).
    pub aa: bool,
    pub colour: Rgba,
    pub depth: u32,
}

/// One primitive of a frame.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Serialize, Deserialize)]
pub enum PrimitiveFx {
    Triangle(TriangleFx),
    Point(PointFx),
}

impl PrimitiveFx {
    pub fn colour(&self) -> Rgba {
        match self {
            PrimitiveFx::Triangle(t) => t.colour,
            PrimitiveFx::Point(p) => p.colour,
        }
    }
    pub fn depth(&self) -> u32 {
        match self {
            PrimitiveFx::Triangle(t) => t.depth,
            PrimitiveFx::Point(p) => p.depth,
        }
    }
}

/// A 2×2 pixel quad with its coverage (SPEC §2 "Quads"): pixel i = 2·(y&1) + (x&1) owns mask
/// bits [i·S, (i+1)·S).
#[derive(Clone, Copy, Debug, PartialEq, Eq, PartialOrd, Ord, Hash, Serialize, Deserialize)]
pub struct Quad {
    /// Index of the primitive in the frame.
    pub prim: u32,
    /// Quad column: bottom-left pixel x = 2·qx.
    pub qx: u16,
    /// Quad row: bottom-left pixel y = 2·qy.
    pub qy: u16,
    /// 4·S coverage bits.
    pub mask: u64,
}

impl Quad {
    /// Sample mask of pixel `i` (0 bottom-left, 1 bottom-right, 2 top-left, 3 top-right).
    pub fn pixel_mask(&self, i: u32, msaa: u32) -> u16 {
        ((self.mask >> (i * msaa)) & crate::samples::pixel_full_mask(msaa) as u64) as u16
    }
    /// Pixel coordinates of pixel `i` of this quad.
    pub fn pixel_xy(&self, i: u32) -> (u32, u32) {
        (2 * self.qx as u32 + (i & 1), 2 * self.qy as u32 + (i >> 1))
    }
    /// Covered samples.
    pub fn samples(&self) -> u32 {
        self.mask.count_ones()
    }
}

/// Covered samples of one primitive: pixel (x, y) → sample mask. Pixels with an empty mask
/// are absent.
pub type Coverage = BTreeMap<(u32, u32), u16>;

/// Error from [`quads_to_coverage`].
#[derive(Clone, Debug, PartialEq, Eq)]
pub enum QuadError {
    /// A quad was emitted with an all-zero mask.
    EmptyQuad(Quad),
    /// A sample appears in more than one quad.
    Duplicate { pixel: (u32, u32), samples: u16 },
    /// A mask bit beyond 4·S is set.
    StrayBits(Quad),
}

/// Collect per-pixel coverage from quads, checking the quad contract: no empty quad, no
/// sample twice.
pub fn quads_to_coverage(quads: &[Quad], msaa: u32) -> Result<Coverage, QuadError> {
    let mut cov = Coverage::new();
    let used = if msaa * 4 == 64 {
        u64::MAX
    } else {
        (1u64 << (4 * msaa)) - 1
    };
    for q in quads {
        if q.mask == 0 {
            return Err(QuadError::EmptyQuad(*q));
        }
        if q.mask & !used != 0 {
            return Err(QuadError::StrayBits(*q));
        }
        for i in 0..4 {
            let m = q.pixel_mask(i, msaa);
            if m != 0 {
                let e = cov.entry(q.pixel_xy(i)).or_insert(0);
                if *e & m != 0 {
                    return Err(QuadError::Duplicate {
                        pixel: q.pixel_xy(i),
                        samples: *e & m,
                    });
                }
                *e |= m;
            }
        }
    }
    Ok(cov)
}

/// Total covered samples of a coverage map.
pub fn coverage_samples(c: &Coverage) -> u64 {
    c.values().map(|m| m.count_ones() as u64).sum()
}
