//! Seed 002 (claims 1–8): **sort-based deferred shading** on the pixel processor's tile (the
//! *second tile* of seed 001, `cfg.second_tile`).
//!
//! Data in: one second tile's [`PixelInfo`](crate::pixel_info::PixelInfo) records in push order (raster order; for any one
//! pixel that is primitive submission order), and the primitive colours.
//! Data out: [`TileSamples`], per pixel per sample of the tile, `Some((prim, colour))` of the
//! shading point that finally owns that sample, or `None`; plus [`ShadeStats`]. The frame id of
//! the records is carried into the result (seed 001 claim 4).
//!
//! ```text
//!  records ─► depth test per sample ─► shading-point buffer (one key per sample position)
//!  (push order)  (cfg.depth_func,        key = prim[20:0] << cb | morton(px, py)
//!                 z cleared to max)                    │ after the tile's last record
//!                                                      ▼
//!            LSD radix sort of (key, sample position), digit = cfg.sort_digit_bits
//!                                                      │ sorted: prim, then Morton order
//!                                                      ▼
//!            walk: key >> 2 = one shading quad ─► shade 4 lanes once ─► scatter lane colour
//!                  (dedup equal keys = shading points)            to every sample position
//! ```
//!
//! * **Shading point** (claims 2–4): primitive id (21 bits, [`PRIM_ID_BITS`]) above the
//!   Morton-ordered pixel coordinate relative to the tile ([`morton`]; `cb = log2 w + log2 h`
//!   bits, e.g. 6 + 5 for 64×32). The shading coordinate is the sample's own pixel (no
//!   decoupled mapping). Each sample position keeps the last shading point that passed the
//!   depth test, so each position is scattered to exactly once.
//! * **Depth test**: per sample, 24-bit depth buffer cleared to [`DEPTH_MAX`]; `LessEqual`
//!   passes `d ≤ z`, `Less` passes `d < z`, `Always` always passes; on a pass the depth and
//!   shading point are replaced.
//! * **Sort** (claim 5): the visible sample positions are read in position order
//!   (`((py·w) + px)·S + s`) as `(key, position)` pairs and LSD radix sorted (stable). The
//!   sort only looks at the bits that can differ within the tile: the key is rebased by the
//!   tile's smallest primitive id, so `key_bits = cb + bitlen(max_prim − min_prim)` and
//!   `passes = ⌈key_bits / digit⌉` ([`sort_passes`]): at most ⌈(21 + cb) / digit⌉ (3 for
//!   32-bit keys and 11-bit digits), fewer when the tile holds few primitives (seed: "one or
//!   two passes for tiles with fewer triangles"). Traffic per pass follows the seed's
//!   estimate: read keys once for the histogram, read (key, value) once more and write it
//!   once when reordering; key bytes = ⌈(21 + cb) / 8⌉, value bytes = ⌈log2(w·h·S) / 8⌉
//!   (64×32 at 16x: 4 + 2 bytes, 32k samples, 3 passes → 960 KiB read, 576 KiB written).
//! * **Walk** (claims 6, 7): equal keys collapse into one shading point; consecutive keys with
//!   equal `key >> 2` form one 2×2 shading quad (the Morton code's two low bits are x0, y0).
//!   Quads come out in primitive order, then Morton order. Each quad is shaded once: 4 lanes
//!   (helper lanes included) each call [`shade`] for its pixel; then the quad's lane colour is
//!   scattered to every sample position in its run of the sorted list.

use crate::config::{Config, DepthFunc};
use crate::pixel_info::{PixelInfoStore, StoreError, DEPTH_MAX};
use crate::prim::Rgba;

/// Bits of the primitive id in a shading point.
pub const PRIM_ID_BITS: u32 = 21;

/// The pixel shader hook: colour of pixel (x, y) (frame coordinates) of a primitive. In this
/// project it is the flat primitive colour.
pub fn shade(prim_colour: Rgba, x: u32, y: u32) -> Rgba {
    let _ = (x, y);
    prim_colour
}

/// Morton code of tile-relative pixel (x, y) with `xbits`/`ybits` coordinate bits: bits are
/// interleaved from the bottom, x first (bit 0 = x0, bit 1 = y0, bit 2 = x1, …); once the
/// shorter coordinate runs out the longer one's bits continue on top. For 64×32:
/// `x0 y0 x1 y1 x2 y2 x3 y3 x4 y4 x5` (bit 0 first).
pub fn morton(x: u32, y: u32, xbits: u32, ybits: u32) -> u32 {
    let mut code = 0u32;
    let mut bit = 0;
    for i in 0..xbits.max(ybits) {
        if i < xbits {
            code |= ((x >> i) & 1) << bit;
            bit += 1;
        }
        if i < ybits {
            code |= ((y >> i) & 1) << bit;
            bit += 1;
        }
    }
    code
}

/// LSD radix-sort passes over `key_bits`-bit keys with `digit_bits`-bit digits.
pub fn sort_passes(key_bits: u32, digit_bits: u32) -> u32 {
    key_bits.div_ceil(digit_bits.max(1))
}

/// Stable LSD radix sort of `(key, value)` pairs by key, `digit_bits` (1..=16) per pass over
/// the low `key_bits` (0..=64) bits; every key must be below `2^key_bits`. Returns the number
/// of passes, [`sort_passes`]: the passes run whatever the data (even empty), as in hardware.
pub fn radix_sort(items: &mut Vec<(u64, u32)>, key_bits: u32, digit_bits: u32) -> Result<u32, StoreError> {
    if !(1..=16).contains(&digit_bits) {
        return Err(StoreError::new(
            "sort_digit_bits",
            format!("{digit_bits} must be within 1..=16"),
        ));
    }
    if key_bits > 64 {
        return Err(StoreError::new("key_bits", format!("{key_bits} exceeds 64")));
    }
    if key_bits < 64 {
        if let Some((i, k)) = items.iter().enumerate().find(|(_, e)| e.0 >> key_bits != 0) {
            return Err(StoreError::new(
                "items",
                format!("items[{i}].key = {:#x} does not fit {key_bits} bits", k.0),
            ));
        }
    }
    let passes = sort_passes(key_bits, digit_bits);
    let radix = 1usize << digit_bits;
    let mask = (radix - 1) as u64;
    let mut hist = vec![0usize; radix];
    let mut tmp = vec![(0u64, 0u32); items.len()];
    for p in 0..passes {
        let shift = p * digit_bits;
        hist.fill(0);
        for e in items.iter() {
            hist[((e.0 >> shift) & mask) as usize] += 1;
        }
        let mut sum = 0;
        for h in hist.iter_mut() {
            let c = *h;
            *h = sum;
            sum += c;
        }
        for e in items.iter() {
            let d = ((e.0 >> shift) & mask) as usize;
            tmp[hist[d]] = *e;
            hist[d] += 1;
        }
        std::mem::swap(items, &mut tmp);
    }
    Ok(passes)
}

/// Work counters of the shading stage.
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq)]
pub struct ShadeStats {
    /// Sample positions holding a shading point after the tile's depth tests.
    pub visible_samples: u64,
    /// Distinct shading points (prim, pixel) after the sort.
    pub shading_points: u64,
    /// 2×2 shading quads dispatched.
    pub shading_quads: u64,
    /// Shader invocations: 4 per quad, helper lanes included.
    pub shading_invocations: u64,
    /// Radix-sort passes (summed over tiles).
    pub sort_passes: u64,
    /// Sort bytes read (histogram key reads + reorder element reads).
    pub sort_bytes_read: u64,
    /// Sort bytes written (reorder element writes).
    pub sort_bytes_written: u64,
    /// `sort_bytes_read + sort_bytes_written`.
    pub sort_bytes: u64,
    /// Samples depth-tested (covered samples of all records).
    pub depth_tests: u64,
    /// Samples that passed the depth test.
    pub depth_passes: u64,
    /// Sample positions written by the scatter (= `visible_samples`: each exactly once).
    pub scatter_writes: u64,
}

impl std::ops::AddAssign for ShadeStats {
    fn add_assign(&mut self, o: Self) {
        self.visible_samples += o.visible_samples;
        self.shading_points += o.shading_points;
        self.shading_quads += o.shading_quads;
        self.shading_invocations += o.shading_invocations;
        self.sort_passes += o.sort_passes;
        self.sort_bytes_read += o.sort_bytes_read;
        self.sort_bytes_written += o.sort_bytes_written;
        self.sort_bytes += o.sort_bytes;
        self.depth_tests += o.depth_tests;
        self.depth_passes += o.depth_passes;
        self.scatter_writes += o.scatter_writes;
    }
}

/// The shaded samples of one second tile.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct TileSamples {
    /// Second-tile coordinates.
    pub tile: [u32; 2],
    /// Frame coordinates of the tile's bottom-left pixel.
    pub origin: [u32; 2],
    /// Tile width and height in pixels.
    pub size: [u32; 2],
    /// Samples per pixel.
    pub msaa: u32,
    /// Frame id carried by the records (`None` for a tile without records).
    pub frame: Option<u8>,
    /// Index `((py·w) + px)·S + s`, px/py tile-relative, rows bottom-up.
    pub samples: Vec<Option<(u32, Rgba)>>,
}

impl TileSamples {
    /// Sample `s` of tile-relative pixel (px, py).
    pub fn get(&self, px: u32, py: u32, s: u32) -> Option<(u32, Rgba)> {
        if px >= self.size[0] || py >= self.size[1] || s >= self.msaa {
            return None;
        }
        self.samples[((py * self.size[0] + px) * self.msaa + s) as usize]
    }
    /// Sample `s` of frame pixel (x, y); `None` outside the tile.
    pub fn get_abs(&self, x: u32, y: u32, s: u32) -> Option<(u32, Rgba)> {
        let (px, py) = (x.checked_sub(self.origin[0])?, y.checked_sub(self.origin[1])?);
        self.get(px, py, s)
    }
}

fn depth_pass(f: DepthFunc, d: u32, z: u32) -> bool {
    match f {
        DepthFunc::LessEqual => d <= z,
        DepthFunc::Less => d < z,
        DepthFunc::Always => true,
    }
}

const EMPTY: u64 = u64::MAX;

/// One shading quad as dispatched by the walk (for tracing and for the RTL's order contract).
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct ShadingQuad {
    /// Primitive id.
    pub prim: u32,
    /// Quad column and row inside the tile (bottom-left pixel = tile origin + 2·(qx, qy)).
    pub qx: u32,
    pub qy: u32,
    /// Lanes (bit i = pixel i of the quad) holding at least one shading point; the others are
    /// helper lanes.
    pub live: u8,
    /// Sample positions the quad's results were scattered to.
    pub samples: u32,
}

/// Depth-test, sort, shade and scatter one second tile `st` (see the module header).
/// Errors name the bad record field (primitive id beyond 21 bits or without a colour, quad
/// outside the tile, stray mask bits, depth beyond 24 bits, mixed frame ids).
pub fn shade_tile(
    cfg: &Config,
    st: [u32; 2],
    records: &[crate::pixel_info::PixelInfo],
    prim_colours: &[Rgba],
) -> Result<(TileSamples, ShadeStats), StoreError> {
    shade_tile_traced(cfg, st, records, prim_colours, None)
}

/// [`shade_tile`], also appending every shading quad to `trace` in dispatch order: primitive
/// order, then Morton order of the quad inside the tile.
pub fn shade_tile_traced(
    cfg: &Config,
    st: [u32; 2],
    records: &[crate::pixel_info::PixelInfo],
    prim_colours: &[Rgba],
    mut trace: Option<&mut Vec<ShadingQuad>>,
) -> Result<(TileSamples, ShadeStats), StoreError> {
    cfg.validate()?;
    let [w, h] = cfg.second_tile;
    let s_n = cfg.msaa;
    let (xb, yb) = (w.trailing_zeros(), h.trailing_zeros());
    let cb = xb + yb;
    let origin = [st[0] * w, st[1] * h];
    if origin[0] >= cfg.viewport[0] || origin[1] >= cfg.viewport[1] {
        return Err(StoreError::new(
            "second_tile",
            format!("tile ({}, {}) lies outside the viewport", st[0], st[1]),
        ));
    }
    let n_pos = (w * h * s_n) as usize;
    let used = if s_n == 16 { u64::MAX } else { (1u64 << (4 * s_n)) - 1 };
    let full = crate::samples::pixel_full_mask(s_n) as u64;
    // Morton lookup tables: morton(x, y) = mx[x] | my[y].
    let mx: Vec<u32> = (0..w).map(|x| morton(x, 0, xb, yb)).collect();
    let my: Vec<u32> = (0..h).map(|y| morton(0, y, xb, yb)).collect();

    let mut stats = ShadeStats::default();
    let mut zbuf = vec![DEPTH_MAX; n_pos];
    let mut sp = vec![EMPTY; n_pos];
    let mut frame = None;
    for (i, r) in records.iter().enumerate() {
        if r.prim >= 1 << PRIM_ID_BITS || r.prim as usize >= prim_colours.len() {
            return Err(StoreError::new(
                "records",
                format!(
                    "records[{i}].prim = {} needs a colour (have {}) and must fit {PRIM_ID_BITS} bits",
                    r.prim,
                    prim_colours.len()
                ),
            ));
        }
        if 2 * r.qx as u32 >= w || 2 * r.qy as u32 >= h {
            return Err(StoreError::new(
                "records",
                format!("records[{i}] quad ({}, {}) is outside the {w}x{h} tile", r.qx, r.qy),
            ));
        }
        if r.mask == 0 || r.mask & !used != 0 {
            return Err(StoreError::new(
                "records",
                format!(
                    "records[{i}].mask = {:#x} must be non-zero within {} bits",
                    r.mask,
                    4 * s_n
                ),
            ));
        }
        if r.depth > DEPTH_MAX {
            return Err(StoreError::new(
                "records",
                format!("records[{i}].depth = {} exceeds 24 bits", r.depth),
            ));
        }
        match frame {
            None => frame = Some(r.frame),
            Some(f) if f != r.frame => {
                return Err(StoreError::new(
                    "records",
                    format!("records[{i}].frame = {} differs from the tile's frame {f}", r.frame),
                ));
            }
            _ => {}
        }
        let prim_key = (r.prim as u64) << cb;
        for lane in 0..4u32 {
            let pm = (r.mask >> (lane * s_n)) & full;
            if pm == 0 {
                continue;
            }
            let (px, py) = (2 * r.qx as u32 + (lane & 1), 2 * r.qy as u32 + (lane >> 1));
            let key = prim_key | (mx[px as usize] | my[py as usize]) as u64;
            let base = ((py * w + px) * s_n) as usize;
            let mut m = pm;
            while m != 0 {
                let s = m.trailing_zeros() as usize;
                m &= m - 1;
                stats.depth_tests += 1;
                if depth_pass(cfg.depth_func, r.depth, zbuf[base + s]) {
                    stats.depth_passes += 1;
                    zbuf[base + s] = r.depth;
                    sp[base + s] = key;
                }
            }
        }
    }

    // The shading-point buffer, read in position order, is the sort input.
    let mut items: Vec<(u64, u32)> = sp
        .iter()
        .enumerate()
        .filter(|(_, &k)| k != EMPTY)
        .map(|(p, &k)| (k, p as u32))
        .collect();
    let n = items.len() as u64;
    stats.visible_samples = n;
    let mut out = TileSamples {
        tile: st,
        origin,
        size: [w, h],
        msaa: s_n,
        frame,
        samples: vec![None; n_pos],
    };
    if n == 0 {
        return Ok((out, stats));
    }
    let min_prim = items.iter().map(|e| e.0 >> cb).min().unwrap_or(0);
    let max_prim = items.iter().map(|e| e.0 >> cb).max().unwrap_or(0);
    let key_bits = cb + (64 - (max_prim - min_prim).leading_zeros());
    for e in items.iter_mut() {
        e.0 -= min_prim << cb;
    }
    let passes = radix_sort(&mut items, key_bits, cfg.sort_digit_bits)? as u64;
    let key_bytes = (PRIM_ID_BITS + cb).div_ceil(8) as u64;
    let val_bytes = (n_pos.trailing_zeros()).div_ceil(8).max(1) as u64;
    stats.sort_passes = passes;
    stats.sort_bytes_read = passes * n * (2 * key_bytes + val_bytes);
    stats.sort_bytes_written = passes * n * (key_bytes + val_bytes);
    stats.sort_bytes = stats.sort_bytes_read + stats.sort_bytes_written;

    // Walk: runs of equal key >> 2 are shading quads; equal keys are one shading point.
    let mut i = 0;
    while i < items.len() {
        let qid = items[i].0 >> 2;
        let mut j = i;
        while j < items.len() && items[j].0 >> 2 == qid {
            if j == i || items[j].0 != items[j - 1].0 {
                stats.shading_points += 1;
            }
            j += 1;
        }
        let prim = ((items[i].0 >> cb) + min_prim) as u32;
        let pix = items[i].1 / s_n;
        let (bx, by) = ((pix % w) & !1, (pix / w) & !1);
        let colour = prim_colours[prim as usize];
        let lanes: [Rgba; 4] = std::array::from_fn(|l| {
            shade(
                colour,
                origin[0] + bx + (l as u32 & 1),
                origin[1] + by + (l as u32 >> 1),
            )
        });
        stats.shading_quads += 1;
        stats.shading_invocations += 4;
        let mut live = 0u8;
        for e in &items[i..j] {
            let pix = e.1 / s_n;
            let lane = 2 * ((pix / w) & 1) + ((pix % w) & 1);
            live |= 1 << lane;
            let slot = &mut out.samples[e.1 as usize];
            if slot.is_some() {
                return Err(StoreError::new(
                    "internal",
                    format!("sample position {} scattered twice", e.1),
                ));
            }
            *slot = Some((prim, lanes[lane as usize]));
            stats.scatter_writes += 1;
        }
        if let Some(t) = trace.as_deref_mut() {
            t.push(ShadingQuad {
                prim,
                qx: bx / 2,
                qy: by / 2,
                live,
                samples: (j - i) as u32,
            });
        }
        i = j;
    }
    Ok((out, stats))
}

/// Pixel side of a whole frame: read every second tile of a finished store, in order (rows
/// bottom-up, left→right), and shade it. Every result carries the store's frame id. Error
/// before [`PixelInfoStore::finish_raster`] or if `cfg` does not match the store.
pub fn shade_store(
    cfg: &Config,
    store: &mut PixelInfoStore,
    prim_colours: &[Rgba],
) -> Result<(Vec<TileSamples>, ShadeStats), StoreError> {
    if store.msaa() != cfg.msaa {
        return Err(StoreError::new(
            "msaa",
            format!("store built for {}x, config says {}x", store.msaa(), cfg.msaa),
        ));
    }
    if store.second_tile() != cfg.second_tile {
        return Err(StoreError::new(
            "second_tile",
            "store built for another second-tile size",
        ));
    }
    let mut tiles = Vec::new();
    let mut total = ShadeStats::default();
    for st in store.second_tiles() {
        let recs = store.read_second_tile(st)?;
        let (mut t, s) = shade_tile(cfg, st, &recs, prim_colours)?;
        t.frame = Some(store.frame_id());
        total += s;
        tiles.push(t);
    }
    Ok((tiles, total))
}
