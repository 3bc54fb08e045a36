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
//! * **Sort** (claim 5): the shading-point buffer is read pixel by pixel in Morton order
//!   ([`morton_order`]); each distinct shading point of a pixel (its visible samples of one
//!   primitive) becomes one `(key, pixel)` element, in the order of its lowest sample. Equal
//!   keys can only come from one pixel, so collapsing them as the buffer is read gives the walk
//!   the same shading points the seed's per-sample list does, with up to S times fewer
//!   elements to sort (issue 34: "a sort over pixels instead of samples"). Because the
//!   elements already come in Morton order, the key's Morton bits are sorted before the first
//!   pass: a stable LSD radix sort over the primitive bits alone gives the key order. Those
//!   bits are rebased by the tile's smallest primitive id, so `prim_bits = bitlen(max_prim −
//!   min_prim)` and `passes = ⌈prim_bits / d⌉` ([`sort_passes`], d = [`tile_digit_bits`]):
//!   none for a tile of one primitive, one for up to 2^d primitive ids, at most ⌈21 / d⌉
//!   (seed: "one or two passes for tiles with fewer triangles"). Traffic per pass follows the
//!   seed's estimate: read keys once for the histogram, read (key, value) once more and write
//!   it once when reordering; key bytes = ⌈(21 + cb) / 8⌉, value bytes = ⌈cb / 8⌉ (the pixel;
//!   64×32 at 16x fully covered by primitives spanning up to 2^11 ids: 4 + 2 bytes, 2k shading
//!   points, 1 pass → 20 KiB read, 12 KiB written, where the seed's 32k per-sample elements
//!   over 3 passes of the whole key give 960 and 576 KiB).
//! * **Walk** (claims 6, 7): each element is one shading point; consecutive keys with equal
//!   `key >> 2` form one 2×2 shading quad (the Morton code's two low bits are x0, y0). Quads
//!   come out in primitive order, then Morton order. Each quad is shaded once: 4 lanes (helper
//!   lanes included) each call [`shade`] for its pixel; then each lane's colour is scattered to
//!   every sample position of its pixel that holds the shading point.

use crate::config::{Config, DepthFunc};
use crate::pixel_info::{PixelInfoStore, StoreError, DEPTH_MAX};
use crate::prim::Rgba;

/// Bits of the primitive id in a shading point.
pub const PRIM_ID_BITS: u32 = 21;

/// Bits of an X word (`hw/src/shading_sort.rs` builds its RAMs with these widths): valid,
/// depth 24, prim 21.
pub const X_WORD_BITS: u32 = 1 + 24 + PRIM_ID_BITS;
/// Bits of a Y or Z word: prim 21, the pixel in 16 bits (`prim << 16 | pixel`).
pub const Y_WORD_BITS: u32 = PRIM_ID_BITS + 16;
/// Bits of an H word: epoch, count 16.
pub const H_WORD_BITS: u32 = 1 + 16;
/// Bits of a C word: valid, RGBA8.
pub const C_WORD_BITS: u32 = 1 + 32;

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

/// The pixel indices (`py·w + px`) of a w×h tile in Morton order: entry m is the pixel whose
/// [`morton`] code is m. The order shading_sort reads its shading-point buffer out in.
pub fn morton_order(w: u32, h: u32) -> Vec<u32> {
    let (xb, yb) = (w.trailing_zeros(), h.trailing_zeros());
    let mut order = vec![0; (w * h) as usize];
    for y in 0..h {
        for x in 0..w {
            order[morton(x, y, xb, yb) as usize] = y * w + x;
        }
    }
    order
}

/// The digit width of shading_sort's radix passes: `cfg.sort_digit_bits`, at most log2 of
/// the second tile's pixels, so that the histogram (2^digit counters) is no longer than the
/// readout that clears it in passing.
pub fn tile_digit_bits(cfg: &Config) -> u32 {
    let cb = cfg.second_tile[0].trailing_zeros() + cfg.second_tile[1].trailing_zeros();
    cfg.sort_digit_bits.min(cb).max(1)
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

    // The shading-point buffer, read pixel by pixel in Morton order: each distinct shading
    // point of a pixel (its samples of one primitive) is one sort element (key, pixel), in the
    // order of its lowest sample.
    let visible = sp.iter().filter(|&&k| k != EMPTY).count() as u64;
    stats.visible_samples = visible;
    let mut items: Vec<(u64, u32)> = Vec::new();
    for pix in morton_order(w, h) {
        let pix = pix as usize;
        let px = &sp[pix * s_n as usize..(pix + 1) * s_n as usize];
        for (s, &k) in px.iter().enumerate() {
            if k != EMPTY && !px[..s].contains(&k) {
                items.push((k, pix as u32));
            }
        }
    }
    let n = items.len() as u64;
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
    for e in items.iter_mut() {
        e.0 -= min_prim << cb;
    }
    // The elements are in Morton order already, so a stable sort by the rebased primitive
    // alone puts them in key order: passes over bitlen(max − min) bits only (none for a tile
    // of one primitive).
    let prim_bits = 64 - (max_prim - min_prim).leading_zeros();
    let mut by_prim: Vec<(u64, u32)> = items.iter().enumerate().map(|(i, e)| (e.0 >> cb, i as u32)).collect();
    let passes = radix_sort(&mut by_prim, prim_bits, tile_digit_bits(cfg))? as u64;
    let items: Vec<(u64, u32)> = by_prim.iter().map(|e| items[e.1 as usize]).collect();
    let key_bytes = (PRIM_ID_BITS + cb).div_ceil(8) as u64;
    let val_bytes = cb.div_ceil(8).max(1) as u64;
    stats.sort_passes = passes;
    stats.sort_bytes_read = passes * n * (2 * key_bytes + val_bytes);
    stats.sort_bytes_written = passes * n * (key_bytes + val_bytes);
    stats.sort_bytes = stats.sort_bytes_read + stats.sort_bytes_written;

    // Walk: each element is one shading point; runs of equal key >> 2 are shading quads.
    let mut i = 0;
    while i < items.len() {
        let qid = items[i].0 >> 2;
        let mut j = i;
        while j < items.len() && items[j].0 >> 2 == qid {
            stats.shading_points += 1;
            j += 1;
        }
        let prim = ((items[i].0 >> cb) + min_prim) as u32;
        let pix = items[i].1;
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
        let mut samples = 0u32;
        for e in &items[i..j] {
            let pix = e.1;
            let lane = 2 * ((pix / w) & 1) + ((pix % w) & 1);
            live |= 1 << lane;
            // Scatter to every sample position of the pixel that holds this shading point.
            let key = e.0 + (min_prim << cb);
            for s in 0..s_n {
                let at = (pix * s_n + s) as usize;
                if sp[at] != key {
                    continue;
                }
                let slot = &mut out.samples[at];
                if slot.is_some() {
                    return Err(StoreError::new(
                        "internal",
                        format!("sample position {at} scattered twice"),
                    ));
                }
                *slot = Some((prim, lanes[lane as usize]));
                stats.scatter_writes += 1;
                samples += 1;
            }
        }
        if let Some(t) = trace.as_deref_mut() {
            t.push(ShadingQuad {
                prim,
                qx: bx / 2,
                qy: by / 2,
                live,
                samples,
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

/// The pixels of shaded second tile `ts` as the pixel back end takes them
/// ([`crate::streams::PixSamples`], the way the pipeline's pixel side formats them): every
/// pixel of the tile inside `cfg.viewport`, rows bottom-up, left→right; mask bit i = sample i
/// owned by a shading point, `colour[i]` its shaded colour (packed little-endian RGBA8), 0
/// when not covered.
pub fn tile_pixels(cfg: &Config, ts: &TileSamples) -> Vec<crate::streams::PixSamples> {
    let mut out = Vec::new();
    for py in 0..ts.size[1] {
        for px in 0..ts.size[0] {
            let (x, y) = (ts.origin[0] + px, ts.origin[1] + py);
            if x >= cfg.viewport[0] || y >= cfg.viewport[1] {
                continue;
            }
            let mut p = crate::streams::PixSamples {
                x,
                y,
                ..Default::default()
            };
            for s in 0..ts.msaa {
                if let Some((_, c)) = ts.get(px, py, s) {
                    p.mask |= 1 << s;
                    p.colour[s as usize] = u32::from_le_bytes(c);
                }
            }
            out.push(p);
        }
    }
    out
}

/// Phase of [`ShadingSortCycle`].
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum SsPhase {
    /// Clear sweep after `new` / flush: X, C and the histogram, one address per cycle.
    Init,
    /// Taking records, one pixel (lane) per cycle.
    Depth,
    /// X read in Morton order into the sort buffer.
    Readout,
    /// Sort pass: histogram of the pass's digit.
    Hist,
    /// Sort pass: exclusive prefix sum over the tile's 2^min(bits, d) counters.
    Prefix,
    /// Sort pass: reorder (scatter) into the other sort buffer.
    Scatter,
    /// Walk of the sorted buffer, scattering colours into C.
    Walk,
    /// Walk: colour read on `rd`.
    WalkReq,
    /// Walk: waiting for the colour on `rsp`.
    WalkWait,
}

/// Counters of [`ShadingSortCycle`] beyond [`ShadeStats`].
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq)]
pub struct ShadingSortStats {
    /// Records taken (not `none`).
    pub records: u64,
    /// `none` tokens taken (empty second tiles).
    pub none_tiles: u64,
    /// Second tiles whose pixels were all handed out.
    pub tiles_out: u64,
    /// Pixel beats handed out.
    pub beats: u64,
    /// Colour reads put on `rd` (one per primitive change of the walk).
    pub colour_reads: u64,
    /// Cycles of the sort phases (Hist, Prefix, Scatter, their setup cycles included).
    pub sort_cycles: u64,
}

/// The sort-based deferred shading block (seed 002), cycle by cycle: [`crate::streams::PiRecord`]s
/// in (pixel_info_read's stream), [`crate::streams::PixSamples`] out (the pixel back end's
/// input), a memory read port (`rd` [`crate::streams::MemReq`] out, `rsp`
/// [`crate::streams::MemResp`] in, in order) on the primitive table
/// ([`crate::prim_table`]). Results equal [`shade_tile`] per second tile, formatted by
/// [`tile_pixels`]; the counters equal shade_tile's [`ShadeStats`].
///
/// # Timing contract
///
/// Geometry: tile w×h pixels (`cfg.second_tile`), S samples, P = w·h pixels, N = P·S sample
/// positions, cb = log2 w + log2 h, d = [`tile_digit_bits`] (`cfg.sort_digit_bits`, at most
/// cb), D = 2^d ≤ P. All RAMs are on chip,
/// one read and one write port each, synchronous read:
/// * **X** (depth/shading point): S banks (bank = sample) × P entries {valid, depth 24, prim 21}.
/// * **Y**, **Z** (sort buffers, ping-pong): N entries {prim 21, pixel log2 P} (one per shading
///   point; a tile has at most N).
/// * **H** (histogram): D entries {epoch 1, count 16}. Readout clears entry `cnt` in
///   passing (every entry once per tile, as D ≤ P); between the passes of a tile an entry
///   whose epoch differs from the pass's epoch reads as 0 (the prefix sum rewrites the
///   pass's entries with the current epoch; the epoch toggles per pass).
/// * **C** (colours): S banks × P entries {valid, RGBA8}: the walk writes, the output engine
///   reads and clears.
///
/// Phases (one at a time; `in_ready` only in Depth), and beside them the **output engine**,
/// which hands out one tile's pixels from C while the phases go on with the next tile.
/// "Setup" = one cycle that only loads addresses (the sync-read fill) at the start of
/// Prefix and of the output engine's tile, and two at the start of Readout, Hist, Scatter
/// and Walk: those phases take every X pixel (Readout) or sort element (the others) through
/// the RAM's read register and then a register of their own (the readout's X entries; the
/// **element register**: prim, pixel and the rebased key), so that no RAM output drives
/// logic into a RAM's address or a port (the GPU clock's worst paths on the ECP5 until then:
/// Y/Z → prim − min → digit → H's read address, Y/Z → the walk's primitive compare → X's read
/// address, X → the readout's primitive compares → X's read address).
/// * **Init** (after `new` and every flush): P cycles, clearing `X[p]`, `C[p]` (all S banks)
///   and `H[p]` (p < D) at address p per cycle; then Depth. No port is active.
/// * **Depth**: `in_ready` = Depth and (no lane pending, or exactly one pending and the held
///   record is not `last`), a function of registers. A record taken at edge e holds its
///   lanes with a non-empty pixel mask; one lane per edge (e+1, e+2, …, lowest lane first)
///   reads the pixel's S entries, tests every covered sample (`cfg.depth_func` against the
///   entry's depth, DEPTH_MAX when invalid) and writes the passes back (depth, prim). The RTL
///   reads X one cycle ahead, so the same pixel in back-to-back lanes/records needs a
///   **bypass** of the write (no stall). A record costs max(1, lanes) cycles. A `none` token
///   costs one cycle and produces nothing. The input's bits beyond the block's widths are
///   dropped: prim to 21 bits, qx to log2 w − 1 bits, qy to log2 h − 1 bits, mask to 4·S.
///   At the edge that processes the `last` record's final lane (or takes it, if it has no
///   lane) the phase becomes Readout; `tile_x`, `tile_y` are taken from every record. A
///   one-bit register `open` is set by every record taken (not by a `none` token) and cleared
///   at the edge the phase becomes Readout: a tile's records are in X.
/// * **Readout**: 2 setup cycles, then pixel by pixel in Morton order (`cnt` = 0..P − 1 is the
///   Morton code; p = [`morton_order`]`[cnt]`, `H[cnt]` := 0 every cycle), max(1,
///   shading points of p) cycles per pixel, a shading point being the pixel's visible samples
///   of one primitive: each cycle the lowest visible sample not yet read out and every visible
///   sample of the pixel with the same primitive (S compares) become one element (prim, p)
///   written at `Y[n]`, n += 1, min/max prim tracked. X is not cleared here (the walk reads it
///   again). Then, if n = 0, the Walk (it only hands the tile over); else b = bitlen(max −
///   min), passes =
///   [`sort_passes`]`(b, d)`, R = 2^min(b, d) counters, and Hist of pass 0, or the Walk if
///   passes = 0 (one primitive: Y is in key order already).
/// * **Sort pass k** (digit = bits k·d.. of prim − min; Y holds the elements in Morton
///   order, so a stable sort by the primitive is the key order): Hist: 2 setup + n cycles
///   (element i read from the source buffer, `H[digit]` read-modify-write, a bypass for equal
///   consecutive digits); Prefix: setup + R cycles (`H[j]` := running sum, exclusive, j <
///   R); Scatter: 2 setup + n cycles (element i to `dst[H[digit]]`, `H[digit] += 1`, bypass as
///   in Hist). Pass k costs 5 + 2n + R cycles; source Y, Z, Y, … alternately.
/// * **Walk**: 2 setup cycles, then, while the output engine holds no tile (`out_busy` before the
///   edge; C is the previous tile's until then), one sorted element per cycle; the element's
///   prim differs from the
///   colour register's (or the walk's first element): one cycle notices, then `rd` holds
///   `{addr: prim·32 + 4·COLOUR_WORD, write 0}` until taken, then the block waits for `rsp`
///   (`rsp_ready` is always high); the element is then written (`C[pos] := colour`) in the
///   next cycle. So a primitive change costs 2 + (rd wait) + (response latency) cycles and
///   the colour reads of a tile = its distinct visible primitives. An element's colour goes
///   to every sample s of its pixel whose X entry holds the element's primitive (`C[p·S + s]
///   := colour`, all S banks in one write, and those X entries cleared, so that X is empty
///   once the walk is done: the RTL reads X at the element's pixel one cycle after Y, compares
///   in the next and writes C and X at the edge after that, two edges later than this model:
///   the last element's writes land at the edge of the output engine's setup cycle, whose C
///   read of the same address sees them (write-first), and of the first edge at which the
///   next tile's first record can read X). After the last element, at the edge of a cycle with
///   `cnt` = n, the tile goes to the output engine (`out_busy`, `out_tile` := tile) and the
///   phase is Depth.
/// * **Output engine**: setup, then pixel p = 0..P−1 in position order (rows bottom-up,
///   left→right): a pixel inside the viewport is a beat `{x = out_tile_x·w + px, y =
///   out_tile_y·h + py, mask = C valid bits, colour_i = C_i or 0}` with `out_valid` until
///   `out_ready`; a pixel outside costs one cycle and no beat; `C[p]` is cleared as the
///   pixel leaves. After the last pixel `out_busy` falls. Meanwhile the next tile's Depth,
///   Readout and sort run; its Walk waits for the engine.
/// * **Idle.** `idle` = (phase = Init ∨ phase = Depth) ∧ `pend` = 0 ∧ ¬`open` ∧
///   ¬`out_busy` ([`ShadingSortCycle::is_idle`]): no record held or in X, no sort, walk,
///   colour read or pixel in C; the Init sweep holds nothing of a frame.
/// * **Flush** (synchronous): every register and counter back to the start, Init again; a
///   read in flight is dropped (the memory behind the port is flushed with the block).
///
/// So a tile whose last record's last lane is processed at the edge ending cycle e (all
/// ready, colour reads granted at once, response latency L) hands out its first pixel beat
/// in cycle e + T + passes·(5 + 2n + R) + (3 + n + G·(L + 2)) + 2, with n the tile's shading
/// points, T = 2 + Σ_p max(1, shading points of p), R and passes as above and G the distinct
/// visible primitives (n = 0 included), if the output engine is free by then, then one beat
/// per cycle while `out_ready` holds (the tile's P − (pixels outside the viewport) beats in P
/// cycles). The next tile's records are taken from the cycle after the hand-over.
#[derive(Clone, Debug)]
pub struct ShadingSortCycle {
    w: u32,
    h: u32,
    s_n: u32,
    xb: u32,
    yb: u32,
    d: u32,
    func: DepthFunc,
    viewport: [u32; 2],
    mask_used: u64,
    key_bytes: u64,
    val_bytes: u64,
    mx: Vec<u32>,
    my: Vec<u32>,
    /// [`morton_order`]: the pixel Readout reads at each value of `cnt`.
    order: Vec<u32>,
    // RAMs.
    x_ram: Vec<Option<(u32, u32)>>,
    y_ram: Vec<(u32, u32)>,
    z_ram: Vec<(u32, u32)>,
    h_ram: Vec<(bool, u32)>,
    c_ram: Vec<Option<u32>>,
    // Registers.
    phase: SsPhase,
    /// Setup cycles left in the phase ([`Self::setup_cycles`]).
    setup: u8,
    cnt: u32,
    pend: u8,
    open: bool,
    rec: crate::streams::PiRecord,
    tile: [u32; 2],
    n: u32,
    min: u32,
    max: u32,
    ro_done: u16,
    pass: u32,
    passes: u32,
    /// Histogram counters the tile's passes use (Prefix's length): 2^min(d, prim_bits).
    range: u32,
    epoch: bool,
    sum: u32,
    src_y: bool,
    cur_prim: Option<u32>,
    colour: u32,
    prev_key: Option<u64>,
    /// The output engine: a tile's pixels leaving C (`out_busy`), its setup cycle, the
    /// pixel it is at and the tile.
    out_busy: bool,
    out_setup: bool,
    out_cnt: u32,
    out_tile: [u32; 2],
    bug: bool,
    stats: ShadeStats,
    xstats: ShadingSortStats,
}

crate::block_signature! {
    /// shading_sort's ports: pixel-info records in, pixels out, the memory port's read side
    /// (the primitive table's colour words), and `idle`.
    pub ShadingSort "shading_sort" {
        takes { inp: PiRecord, rsp: MemResp }
        sends { out: PixSamples, rd: MemReq }
        outs { idle: bool }
    }
}

impl crate::cycle::BlockModel for ShadingSortCycle {
    type Sig = ShadingSortPorts;
    fn outputs(&self, _: &ShadingSortIn) -> ShadingSortOut {
        let (ov, out) = self.out();
        let (rv, rd) = self.rd();
        ShadingSortOut {
            inp_ready: self.in_ready(),
            rsp_ready: self.rsp_ready(),
            out: crate::cycle::Offer::new(ov, out),
            rd: crate::cycle::Offer::new(rv, rd),
            idle: self.is_idle(),
        }
    }
    fn clock(&mut self, i: &ShadingSortIn) {
        ShadingSortCycle::clock(self, i)
    }
}

impl ShadingSortCycle {
    /// The block for `cfg`, or the one line naming the field it does not support.
    pub fn try_new(cfg: &Config) -> Result<ShadingSortCycle, String> {
        cfg.validate().map_err(|e| format!("config.{}: {}", e.field, e.msg))?;
        let [w, h] = cfg.second_tile;
        if w < 2 || h < 2 || w > 256 || h > 256 {
            return Err(format!("config.second_tile: {w}x{h} must be within 2..=256 each way"));
        }
        if !(1..=16).contains(&cfg.sort_digit_bits) {
            return Err(format!(
                "config.sort_digit_bits: {} must be within 1..=16",
                cfg.sort_digit_bits
            ));
        }
        let s_n = cfg.msaa;
        let (xb, yb) = (w.trailing_zeros(), h.trailing_zeros());
        let p = (w * h) as usize;
        let n_pos = p * s_n as usize;
        Ok(ShadingSortCycle {
            w,
            h,
            s_n,
            xb,
            yb,
            d: tile_digit_bits(cfg),
            func: cfg.depth_func,
            viewport: cfg.viewport,
            mask_used: crate::pixel_info_read::mask_bits(s_n),
            key_bytes: (PRIM_ID_BITS + xb + yb).div_ceil(8) as u64,
            val_bytes: (xb + yb).div_ceil(8).max(1) as u64,
            mx: (0..w).map(|x| morton(x, 0, xb, yb)).collect(),
            my: (0..h).map(|y| morton(0, y, xb, yb)).collect(),
            order: morton_order(w, h),
            x_ram: vec![None; n_pos],
            y_ram: vec![(0, 0); n_pos],
            z_ram: vec![(0, 0); n_pos],
            h_ram: vec![(false, 0); 1 << tile_digit_bits(cfg)],
            c_ram: vec![None; n_pos],
            phase: SsPhase::Init,
            setup: 0,
            cnt: 0,
            pend: 0,
            open: false,
            rec: Default::default(),
            tile: [0, 0],
            n: 0,
            min: 0,
            max: 0,
            ro_done: 0,
            pass: 0,
            passes: 0,
            range: 0,
            epoch: false,
            sum: 0,
            src_y: true,
            cur_prim: None,
            colour: 0,
            prev_key: None,
            out_busy: false,
            out_setup: false,
            out_cnt: 0,
            out_tile: [0, 0],
            bug: false,
            stats: ShadeStats::default(),
            xstats: ShadingSortStats::default(),
        })
    }

    /// The block for `cfg`.
    ///
    /// # Panics
    /// With [`ShadingSortCycle::try_new`]'s message.
    pub fn new(cfg: &Config) -> ShadingSortCycle {
        Self::try_new(cfg).unwrap_or_else(|e| panic!("{e}"))
    }

    /// Plant a bug: the histogram's epoch does not toggle between passes, so a pass's counts
    /// start from the previous pass's end offsets (a histogram never cleared).
    #[doc(hidden)]
    pub fn plant_bug(&mut self) {
        self.bug = true;
    }

    /// The [`ShadeStats`] so far (since `new` or the last flush).
    pub fn stats(&self) -> ShadeStats {
        self.stats
    }
    /// The block's own counters so far (since `new` or the last flush).
    pub fn extra_stats(&self) -> ShadingSortStats {
        self.xstats
    }
    /// The phase (and whether it is in its setup cycle).
    pub fn phase(&self) -> (SsPhase, bool) {
        (self.phase, self.setup > 0)
    }
    /// Nothing of a frame held (the contract's **Idle**, registers only): Init or Depth, no
    /// lane pending, no record of an unfinished tile taken (`open`). Every later phase holds a
    /// tile (sort buffers, a colour read in flight, pixels in C).
    pub fn is_idle(&self) -> bool {
        matches!(self.phase, SsPhase::Init | SsPhase::Depth) && self.pend == 0 && !self.open && !self.out_busy
    }

    /// The output engine holds a tile (its pixels are leaving C).
    pub fn output_busy(&self) -> bool {
        self.out_busy
    }

    /// Ready for a record (registered).
    pub fn in_ready(&self) -> bool {
        self.phase == SsPhase::Depth && (self.pend == 0 || (self.pend.count_ones() == 1 && !self.rec.last))
    }

    /// (rd_valid, request).
    pub fn rd(&self) -> (bool, crate::streams::MemReq) {
        if self.phase == SsPhase::WalkReq {
            let prim = self.elem(self.cnt).0;
            (
                true,
                crate::streams::MemReq {
                    addr: (prim << crate::prim_table::PRIM_LOG) + 4 * crate::prim_table::COLOUR_WORD,
                    ..Default::default()
                },
            )
        } else {
            (false, crate::streams::MemReq::default())
        }
    }

    /// Ready for a response: always.
    pub fn rsp_ready(&self) -> bool {
        true
    }

    /// (out_valid, pixel beat).
    pub fn out(&self) -> (bool, crate::streams::PixSamples) {
        let mut p = crate::streams::PixSamples::default();
        if !self.out_busy || self.out_setup || self.out_cnt >= self.w * self.h {
            return (false, p);
        }
        let (px, py) = (self.out_cnt % self.w, self.out_cnt / self.w);
        p.x = self.out_tile[0] * self.w + px;
        p.y = self.out_tile[1] * self.h + py;
        if p.x >= self.viewport[0] || p.y >= self.viewport[1] {
            return (false, crate::streams::PixSamples::default());
        }
        let base = (self.out_cnt * self.s_n) as usize;
        for s in 0..self.s_n as usize {
            if let Some(c) = self.c_ram[base + s] {
                p.mask |= 1 << s;
                p.colour[s] = c;
            }
        }
        (true, p)
    }

    /// Element i of the buffer the current pass (or the walk) reads.
    fn elem(&self, i: u32) -> (u32, u32) {
        let i = i as usize % self.y_ram.len();
        if self.src_y {
            self.y_ram[i]
        } else {
            self.z_ram[i]
        }
    }

    /// The samples of pixel `p` whose X entry is valid with primitive `prim` (bit s = sample s).
    fn same_prim(&self, p: u32, prim: u32) -> u16 {
        let base = (p * self.s_n) as usize;
        (0..self.s_n as usize)
            .filter(|&s| self.x_ram[base + s].is_some_and(|e| e.1 == prim))
            .fold(0, |m, s| m | 1 << s)
    }

    /// Rebased sort key of an element (prim, pixel).
    fn key(&self, e: (u32, u32)) -> u64 {
        let pix = e.1;
        let m = self.mx[(pix % self.w) as usize] | self.my[(pix / self.w) as usize];
        ((e.0.wrapping_sub(self.min) as u64) << (self.xb + self.yb)) | m as u64
    }

    /// The pass's digit of an element: bits pass·d.. of its rebased primitive (the Morton
    /// bits of the key are in order from the readout).
    fn digit(&self, e: (u32, u32)) -> usize {
        ((e.0.wrapping_sub(self.min) >> (self.pass * self.d)) & ((1u32 << self.d) - 1)) as usize
    }

    /// The counters' width: 16 bits (the RTL's; N ≤ 2^15 sample positions).
    fn count_mask(&self) -> u32 {
        0xffff
    }

    /// Setup cycles of a phase: two for the phases that read X or the sort buffers in order
    /// (Readout, Hist, Scatter, Walk: the RAM's read register, then the phase's own register),
    /// one for the others.
    fn setup_cycles(phase: SsPhase) -> u8 {
        match phase {
            SsPhase::Readout | SsPhase::Hist | SsPhase::Scatter | SsPhase::Walk => 2,
            _ => 1,
        }
    }

    fn enter(&mut self, phase: SsPhase) {
        self.phase = phase;
        self.setup = Self::setup_cycles(phase);
        self.cnt = 0;
    }

    /// The depth test of lane `lane` of the held record.
    fn depth_lane(&mut self, lane: u32) {
        let r = self.rec;
        let qx = r.qx as u32 & (self.w / 2 - 1);
        let qy = r.qy as u32 & (self.h / 2 - 1);
        let (px, py) = (2 * qx + (lane & 1), 2 * qy + (lane >> 1));
        let full = crate::samples::pixel_full_mask(self.s_n) as u64;
        let pm = (r.mask & self.mask_used) >> (lane * self.s_n) & full;
        let prim = r.prim & ((1 << PRIM_ID_BITS) - 1);
        let base = ((py * self.w + px) * self.s_n) as usize;
        for s in 0..self.s_n as usize {
            if pm >> s & 1 == 0 {
                continue;
            }
            self.stats.depth_tests += 1;
            let z = self.x_ram[base + s].map_or(DEPTH_MAX, |e| e.0);
            if depth_pass(self.func, r.depth & DEPTH_MAX, z) {
                self.stats.depth_passes += 1;
                self.x_ram[base + s] = Some((r.depth & DEPTH_MAX, prim));
            }
        }
    }

    fn lanes(&self, r: &crate::streams::PiRecord) -> u8 {
        let full = crate::samples::pixel_full_mask(self.s_n) as u64;
        let m = r.mask & self.mask_used;
        (0..4)
            .filter(|l| (m >> (l * self.s_n)) & full != 0)
            .fold(0, |a, l| a | 1 << l)
    }

    /// One rising edge.
    pub fn clock(&mut self, i: &ShadingSortIn) {
        if i.flush {
            let mut fresh = Self {
                x_ram: std::mem::take(&mut self.x_ram),
                y_ram: std::mem::take(&mut self.y_ram),
                z_ram: std::mem::take(&mut self.z_ram),
                h_ram: std::mem::take(&mut self.h_ram),
                c_ram: std::mem::take(&mut self.c_ram),
                mx: std::mem::take(&mut self.mx),
                my: std::mem::take(&mut self.my),
                order: std::mem::take(&mut self.order),
                rec: Default::default(),
                ..*self
            };
            fresh.phase = SsPhase::Init;
            fresh.setup = 0;
            fresh.cnt = 0;
            fresh.pend = 0;
            fresh.open = false;
            fresh.tile = [0, 0];
            fresh.n = 0;
            fresh.min = 0;
            fresh.max = 0;
            fresh.ro_done = 0;
            fresh.pass = 0;
            fresh.passes = 0;
            fresh.range = 0;
            fresh.epoch = false;
            fresh.sum = 0;
            fresh.src_y = true;
            fresh.cur_prim = None;
            fresh.colour = 0;
            fresh.prev_key = None;
            fresh.out_busy = false;
            fresh.out_setup = false;
            fresh.out_cnt = 0;
            fresh.out_tile = [0, 0];
            fresh.stats = ShadeStats::default();
            fresh.xstats = ShadingSortStats::default();
            *self = fresh;
            return;
        }
        let in_ready = self.in_ready();
        let (ov, _) = self.out();
        let p_n = self.w * self.h;
        let s_n = self.s_n;
        if matches!(self.phase, SsPhase::Hist | SsPhase::Prefix | SsPhase::Scatter) {
            self.xstats.sort_cycles += 1;
        }
        // The output engine, beside the phases: one pixel of C per cycle while `out_ready`
        // (or the pixel lies outside the viewport), cleared as it leaves.
        let out_busy = self.out_busy;
        if self.out_setup {
            self.out_setup = false;
        } else if self.out_busy && (!ov || i.out_ready) {
            if ov {
                self.xstats.beats += 1;
            }
            let b = (self.out_cnt * s_n) as usize;
            self.c_ram[b..b + s_n as usize].fill(None);
            self.out_cnt += 1;
            if self.out_cnt == p_n {
                self.xstats.tiles_out += 1;
                self.out_busy = false;
            }
        }
        if self.setup > 0 {
            self.setup -= 1;
            return;
        }
        match self.phase {
            SsPhase::Init => {
                let i = self.cnt as usize;
                if i < p_n as usize {
                    let b = i * s_n as usize;
                    self.x_ram[b..b + s_n as usize].fill(None);
                    self.c_ram[b..b + s_n as usize].fill(None);
                }
                if i < self.h_ram.len() {
                    self.h_ram[i] = (false, 0);
                }
                self.cnt += 1;
                if self.cnt as usize >= (p_n as usize).max(self.h_ram.len()) {
                    self.phase = SsPhase::Depth;
                    self.cnt = 0;
                    self.epoch = false;
                }
            }
            SsPhase::Depth => {
                let mut to_readout = false;
                if self.pend != 0 {
                    let lane = self.pend.trailing_zeros();
                    self.depth_lane(lane);
                    self.pend &= self.pend - 1;
                    to_readout = self.pend == 0 && self.rec.last;
                }
                if i.inp.valid && in_ready {
                    if i.inp.payload.none {
                        self.xstats.none_tiles += 1;
                    } else {
                        self.xstats.records += 1;
                        self.open = true;
                        self.rec = i.inp.payload;
                        self.tile = [i.inp.payload.tile_x, i.inp.payload.tile_y];
                        self.pend = self.lanes(&i.inp.payload);
                        to_readout = self.pend == 0 && i.inp.payload.last;
                    }
                }
                if to_readout {
                    self.open = false;
                    self.rec = Default::default();
                    self.n = 0;
                    self.min = u32::MAX;
                    self.max = 0;
                    self.ro_done = 0;
                    self.enter(SsPhase::Readout);
                }
            }
            SsPhase::Readout => {
                // Pixel cnt in Morton order; the histogram word at cnt is cleared in passing
                // (2^d ≤ the tile's pixels, every one read out).
                let p = self.order[self.cnt as usize];
                let hl = self.h_ram.len();
                self.h_ram[self.cnt as usize % hl] = (false, 0);
                let base = (p * s_n) as usize;
                let mut vis = 0u16;
                for s in 0..s_n as usize {
                    if self.x_ram[base + s].is_some() {
                        vis |= 1 << s;
                    }
                }
                vis &= !self.ro_done;
                let mut done = vis == 0;
                if vis != 0 {
                    // The lowest sample not yet read out, and every visible sample of the
                    // pixel with the same primitive: one shading point, one element.
                    let s = vis.trailing_zeros();
                    let prim = self.x_ram[base + s as usize].map_or(0, |e| e.1);
                    let same = self.same_prim(p, prim) & vis;
                    let at = self.n as usize % self.y_ram.len();
                    self.y_ram[at] = (prim, p);
                    self.n += 1;
                    self.min = self.min.min(prim);
                    self.max = self.max.max(prim);
                    self.ro_done |= same;
                    self.stats.visible_samples += same.count_ones() as u64;
                    done = vis & !same == 0;
                }
                if done {
                    self.ro_done = 0;
                    self.cnt += 1;
                }
                if self.cnt == p_n {
                    let n = self.n as u64;
                    self.src_y = true;
                    self.pass = 0;
                    if n == 0 {
                        self.enter(SsPhase::Walk);
                    } else {
                        let prim_bits = 32 - (self.max - self.min).leading_zeros();
                        self.passes = sort_passes(prim_bits, self.d);
                        self.range = 1 << prim_bits.min(self.d);
                        let pp = self.passes as u64;
                        self.stats.sort_passes += pp;
                        self.stats.sort_bytes_read += pp * n * (2 * self.key_bytes + self.val_bytes);
                        self.stats.sort_bytes_written += pp * n * (self.key_bytes + self.val_bytes);
                        self.stats.sort_bytes = self.stats.sort_bytes_read + self.stats.sort_bytes_written;
                        if self.passes == 0 {
                            self.cur_prim = None;
                            self.prev_key = None;
                            self.enter(SsPhase::Walk);
                        } else {
                            self.enter(SsPhase::Hist);
                        }
                    }
                }
            }
            SsPhase::Hist => {
                let dg = self.digit(self.elem(self.cnt));
                let (ep, c) = self.h_ram[dg];
                let cm = self.count_mask();
                self.h_ram[dg] = (self.epoch, if ep == self.epoch { (c + 1) & cm } else { 1 });
                self.cnt += 1;
                if self.cnt == self.n {
                    self.sum = 0;
                    self.enter(SsPhase::Prefix);
                }
            }
            SsPhase::Prefix => {
                let j = self.cnt as usize;
                let (ep, c) = self.h_ram[j];
                let c = if ep == self.epoch { c } else { 0 };
                self.h_ram[j] = (self.epoch, self.sum);
                self.sum = (self.sum + c) & self.count_mask();
                self.cnt += 1;
                if self.cnt == self.range {
                    self.enter(SsPhase::Scatter);
                }
            }
            SsPhase::Scatter => {
                let e = self.elem(self.cnt);
                let dg = self.digit(e);
                let (ep, at) = self.h_ram[dg];
                self.h_ram[dg] = (ep, (at + 1) & self.count_mask());
                let at = at as usize % self.y_ram.len();
                if self.src_y {
                    self.z_ram[at] = e;
                } else {
                    self.y_ram[at] = e;
                }
                self.cnt += 1;
                if self.cnt == self.n {
                    self.src_y = !self.src_y;
                    if !self.bug {
                        self.epoch = !self.epoch;
                    }
                    self.pass += 1;
                    if self.pass == self.passes {
                        self.cur_prim = None;
                        self.prev_key = None;
                        self.enter(SsPhase::Walk);
                    } else {
                        self.enter(SsPhase::Hist);
                    }
                }
            }
            SsPhase::Walk => {
                if out_busy {
                    // C still holds the previous tile's pixels.
                } else if self.cnt == self.n {
                    // The tile's pixels go to the output engine; the next tile's records
                    // come in meanwhile.
                    self.out_busy = true;
                    self.out_setup = true;
                    self.out_cnt = 0;
                    self.out_tile = self.tile;
                    self.phase = SsPhase::Depth;
                    self.cnt = 0;
                } else {
                    let e = self.elem(self.cnt);
                    if self.cur_prim != Some(e.0) {
                        self.phase = SsPhase::WalkReq;
                    } else {
                        let key = self.key(e);
                        if self.prev_key != Some(key) {
                            self.stats.shading_points += 1;
                        }
                        if self.prev_key.map(|k| k >> 2) != Some(key >> 2) {
                            self.stats.shading_quads += 1;
                            self.stats.shading_invocations += 4;
                        }
                        self.prev_key = Some(key);
                        let pix = e.1 % (self.w * self.h);
                        let same = self.same_prim(pix, e.0);
                        for s in 0..s_n {
                            if same >> s & 1 == 1 {
                                self.c_ram[(pix * s_n + s) as usize] = Some(self.colour);
                                self.x_ram[(pix * s_n + s) as usize] = None;
                                self.stats.scatter_writes += 1;
                            }
                        }
                        self.cnt += 1;
                    }
                }
            }
            SsPhase::WalkReq => {
                if i.rd_ready {
                    self.xstats.colour_reads += 1;
                    self.phase = SsPhase::WalkWait;
                }
            }
            SsPhase::WalkWait => {
                if i.rsp.valid {
                    self.colour = i.rsp.payload.rdata;
                    self.cur_prim = Some(self.elem(self.cnt).0);
                    self.phase = SsPhase::Walk;
                }
            }
        }
    }
}
