//! Per-stage stimulus generators, one per stream: what the rust-hdl tests (`hw/tests/`), the
//! Verilator tests (`cosim/tests/`) and the cycle-model tests feed a block. Each draws from the
//! kit's one [`Rng`], so a seed reproduces its inputs exactly. Golden payloads
//! (`tilerast_golden::streams`) come from golden's own transaction models where a realistic
//! input is wanted (setup, the tile parser's walk, sub-tile coverage), mixed with random-field
//! inputs that reach the extremes of the ports.

use crate::Rng;
use std::ops::Range;
use tilerast_golden::colour_buffer::{BufferLayout, ColourBufferCycle};
use tilerast_golden::config::{Config, ONE};
use tilerast_golden::cycle::drive;
use tilerast_golden::cycle::CycleModel;
use tilerast_golden::memory_port::SparseMemory;
use tilerast_golden::pixel_info::PixelInfoStore;
use tilerast_golden::prim::{PointFx, PrimitiveFx, TriangleFx};
use tilerast_golden::raster::tiles_of;
use tilerast_golden::sample_raster::SampleRasterGeom;
use tilerast_golden::setup::PixelBox;
use tilerast_golden::setup::{edges_for, setup_triangle, TriSetup};
use tilerast_golden::streams::{
    ports, Beat, BinBox, BlendBeat, BlendFrag, Cand, Cmd, Edges, Job, PiBeat, PiRecord, PixSamples, PixSlots, TmdsIn,
    LANES,
};
use tilerast_golden::subtile_coverage::{classify_tile, CoverageStats};
use tilerast_golden::tile_parser::{parse_tile, tile_rect, TileParserCycle};

/// A triangle command for `tile`.
pub fn tri_cmd(prim: u32, tile: [u32; 2], v: [[i32; 2]; 3]) -> Cmd {
    Cmd {
        kind: 0,
        prim,
        tile_x: tile[0],
        tile_y: tile[1],
        v,
        ..Default::default()
    }
}

/// A random triangle command for setup: near its tile, anywhere in the guard band, slivers,
/// degenerate, at the guard-band limits, half clockwise; random `size` / `aa`, which setup
/// must ignore.
pub fn setup_cmd(cfg: &Config, rng: &mut Rng, prim: u32) -> Cmd {
    let (lo, hi) = cfg.guard_limits_fx();
    let [nx, ny] = cfg.tiles();
    let tile = [rng.below(nx as u64) as u32, rng.below(ny as u64) as u32];
    let tw = [cfg.tile[0] as i64 * 256, cfg.tile[1] as i64 * 256];
    let near = |rng: &mut Rng, a: usize| {
        let o = tile[a] as i64 * tw[a] - tw[a] + rng.below(3 * tw[a] as u64) as i64;
        o.clamp(lo[a] as i64, hi[a] as i64) as i32
    };
    let any = |rng: &mut Rng, a: usize| lo[a] + rng.below((hi[a] - lo[a]) as u64 + 1) as i32;
    let mut v = [[0i32; 2]; 3];
    match rng.below(5) {
        0 => v = [0, 1, 2].map(|_| [any(rng, 0), any(rng, 1)]),
        1 => {
            v[0] = [near(rng, 0), near(rng, 1)];
            v[1] = [
                (v[0][0] + rng.below(9) as i32 - 4).clamp(lo[0], hi[0]),
                (v[0][1] + rng.below(9) as i32 - 4).clamp(lo[1], hi[1]),
            ];
            v[2] = [any(rng, 0), any(rng, 1)];
        }
        2 => {
            v[0] = [near(rng, 0), near(rng, 1)];
            let d = [rng.below(1025) as i32 - 512, rng.below(1025) as i32 - 512];
            let k = rng.below(4) as i32 - 1;
            v[1] = [
                (v[0][0] + d[0]).clamp(lo[0], hi[0]),
                (v[0][1] + d[1]).clamp(lo[1], hi[1]),
            ];
            v[2] = [
                (v[0][0] + k * d[0]).clamp(lo[0], hi[0]),
                (v[0][1] + k * d[1]).clamp(lo[1], hi[1]),
            ];
        }
        3 => {
            for p in v.iter_mut() {
                for (a, c) in p.iter_mut().enumerate() {
                    *c = match rng.below(3) {
                        0 => lo[a],
                        1 => hi[a],
                        _ => any(rng, a),
                    };
                }
            }
        }
        _ => v = [0, 1, 2].map(|_| [near(rng, 0), near(rng, 1)]),
    }
    if rng.chance(50) {
        v.swap(1, 2);
    }
    // kind / size / aa have no port on setup: random values must not matter.
    Cmd {
        kind: 0,
        prim,
        tile_x: tile[0],
        tile_y: tile[1],
        v,
        size: rng.below(1 << 24) as u32,
        aa: rng.chance(50),
    }
}

/// `n` [`setup_cmd`]s from `seed`.
pub fn setup_cmds(cfg: &Config, seed: u64, n: usize) -> Vec<Cmd> {
    let mut rng = Rng::new(seed);
    (0..n)
        .map(|i| setup_cmd(cfg, &mut rng, (i as u32 * 104_729) & 0xff_ffff))
        .collect()
}

/// `n` point commands: every size up to past `max_point_size`, fractions at the rounding
/// edges, at tile and viewport edges, missing their tile, at the extremes of the ports, AA on
/// and off; random `v1`/`v2`, which point_raster must ignore.
pub fn point_cmds(c: &Config, seed: u64, n: usize) -> Vec<Cmd> {
    let mut rng = Rng::new(seed);
    let (tw, th) = (c.tile[0] as i64, c.tile[1] as i64);
    let [ntx, nty] = c.tiles();
    let fracs = [0i64, 128, 127, 129, 1, 255];
    (0..n)
        .map(|i| {
            let tx = rng.below(ntx as u64 + 1) as u32;
            let ty = rng.below(nty as u64 + 1) as u32;
            let mut coord = |t: u32, ts: i64| -> i64 {
                let px = match rng.below(4) {
                    0 => t as i64 * ts + rng.range(-2, 2),
                    1 => (t as i64 + 1) * ts + rng.range(-2, 1),
                    _ => t as i64 * ts + rng.range(0, ts - 1),
                };
                let f = if rng.chance(50) {
                    fracs[rng.below(6) as usize]
                } else {
                    rng.range(0, 255)
                };
                px * 256 + f
            };
            let (mut x, mut y) = (coord(tx, tw), coord(ty, th));
            if rng.below(40) == 0 {
                x = if rng.chance(50) { -(1 << 23) } else { (1 << 23) - 1 };
            }
            if rng.below(40) == 0 {
                y = if rng.chance(50) { -(1 << 23) + 7 } else { (1 << 23) - 9 };
            }
            let whole = match rng.below(24) {
                0 => rng.below(c.max_point_size as u64 + 2),
                1 => c.max_point_size as u64 + rng.below(3),
                2..=5 => rng.below(c.max_point_size.min(40) as u64),
                _ => rng.below(7),
            };
            let size = match rng.below(30) {
                0 => (1 << 24) - 1,
                _ => whole * 256 + [0, 128, 127, 129, rng.below(256)][rng.below(5) as usize],
            };
            let (tile_x, tile_y) = match rng.below(8) {
                0 => (rng.below(256) as u32, ty),
                1 => ((tx + 1).min(255), ty),
                _ => (tx, ty),
            };
            // v1 / v2 / kind have no port on point_raster: random values must not matter.
            Cmd {
                kind: 1,
                prim: rng.below(1 << 24) as u32 ^ i as u32,
                tile_x,
                tile_y,
                v: [
                    [x as i32, y as i32],
                    [rng.signed(24) as i32, 0],
                    [0, rng.signed(24) as i32],
                ],
                size: size as u32,
                aa: rng.chance(50),
            }
        })
        .collect()
}

/// Edges beats: golden `setup::edges_for` of random triangles in every tile their bbox touches,
/// empty beats, and a tenth with random fields (anything the ports can carry).
pub fn edges(cfg: &Config, rng: &mut Rng, n: usize) -> Vec<Edges> {
    let mut out = Vec::new();
    let [nx, ny] = cfg.tiles();
    while out.len() < n {
        let prim = rng.below(1 << 24) as u32;
        if rng.below(10) == 0 {
            let (x0, x1) = (
                rng.below(cfg.tile[0] as u64) as u32,
                rng.below(cfg.tile[0] as u64) as u32,
            );
            let (y0, y1) = (
                rng.below(cfg.tile[1] as u64) as u32,
                rng.below(cfg.tile[1] as u64) as u32,
            );
            out.push(Edges {
                prim,
                tile_x: rng.below(256) as u32,
                tile_y: rng.below(256) as u32,
                empty: rng.below(4) == 0,
                a: [0, 1, 2].map(|_| rng.signed(24) as i32),
                b: [0, 1, 2].map(|_| rng.signed(24) as i32),
                e: [0, 1, 2].map(|_| rng.signed(48)),
                bx0: x0.min(x1),
                bx1: x0.max(x1),
                by0: y0.min(y1),
                by1: y0.max(y1),
                vis_w: rng.below(512) as u32,
                vis_h: rng.below(512) as u32,
            });
            continue;
        }
        if rng.below(8) == 0 {
            let tile = [rng.below(nx as u64) as u32, rng.below(ny as u64) as u32];
            out.push(edges_for(cfg, &tri_cmd(prim, tile, [[0, 0]; 3])));
            continue;
        }
        let cx = rng.range(0, cfg.viewport[0] as i64) * 256;
        let cy = rng.range(0, cfg.viewport[1] as i64) * 256;
        let r = (cfg.tile[0] as i64) * 256 * (1 + rng.below(2) as i64);
        let v = [0, 1, 2].map(|_| [(cx + rng.range(-r, r)) as i32, (cy + rng.range(-r, r)) as i32]);
        let Ok(t) = setup_triangle(
            cfg,
            &TriangleFx {
                v,
                colour: [0; 4],
                depth: 0,
            },
        ) else {
            continue;
        };
        let (x0, x1) = (t.bbox.x0 / cfg.tile[0], t.bbox.x1 / cfg.tile[0]);
        let (y0, y1) = (t.bbox.y0 / cfg.tile[1], t.bbox.y1 / cfg.tile[1]);
        for ty in y0..=y1 {
            for tx in x0..=x1 {
                out.push(edges_for(cfg, &tri_cmd(prim, [tx, ty], v)));
            }
        }
    }
    out
}

/// The tile parser's walk of random edges beats, with random-field candidates mixed in.
pub fn candidates(cfg: &Config, seed: u64, n: usize) -> Vec<Cand> {
    let mut rng = Rng::new(seed);
    let edges = edges(cfg, &mut rng, n / 4 + 1);
    let mut tp = TileParserCycle::new(cfg);
    let (walk, _) = drive(
        &mut tp,
        &edges,
        |_| false,
        |_| true,
        |o: &[Cand]| o.len() >= n,
        100 * n as u64,
    );
    let mut out = Vec::new();
    for c in walk.into_iter().take(n) {
        out.push(c);
        if rng.below(6) == 0 {
            out.push(Cand {
                prim: rng.below(1 << 24) as u32,
                tile_x: rng.below(256) as u32,
                tile_y: rng.below(256) as u32,
                col: rng.below(256) as u32,
                row: rng.below(256) as u32,
                e: [0, 1, 2].map(|_| rng.signed(48)),
                a: [0, 1, 2].map(|_| rng.signed(24) as i32),
                b: [0, 1, 2].map(|_| rng.signed(24) as i32),
                vis_w: rng.below(512) as u32,
                vis_h: rng.below(512) as u32,
                last: rng.chance(50),
                none: rng.chance(25),
            });
        }
    }
    out
}

/// Jobs of a random triangle in one of its tiles (golden setup + sub-tile coverage), at most 6.
pub fn triangle_jobs(cfg: &Config, r: &mut Rng, prim: u32) -> Vec<Job> {
    let (lo, hi) = cfg.guard_limits_fx();
    let (vw, vh) = (cfg.viewport[0] as i64 * ONE as i64, cfg.viewport[1] as i64 * ONE as i64);
    let v = if r.below(3) == 0 {
        [0; 3].map(|_| {
            [
                r.range(lo[0] as i64, hi[0] as i64) as i32,
                r.range(lo[1] as i64, hi[1] as i64) as i32,
            ]
        })
    } else {
        let c = [r.range(0, vw), r.range(0, vh)];
        let rad = r.range(ONE as i64, 40 * ONE as i64);
        [0; 3].map(|_| {
            [
                (c[0] + r.range(-rad, rad)).clamp(lo[0] as i64, hi[0] as i64) as i32,
                (c[1] + r.range(-rad, rad)).clamp(lo[1] as i64, hi[1] as i64) as i32,
            ]
        })
    };
    let Ok(tri) = setup_triangle(
        cfg,
        &TriangleFx {
            v,
            colour: [0; 4],
            depth: 0,
        },
    ) else {
        return Vec::new();
    };
    let tiles: Vec<[u32; 2]> = tiles_of(cfg, &tri.bbox).collect();
    let tile = tiles[r.below(tiles.len() as u64) as usize];
    let all = jobs_for(cfg, &tri, prim, tile);
    let n = all.len();
    all.into_iter().skip(n.saturating_sub(6)).collect()
}

/// A synthetic job: coefficients up to the guard-band bounds, E anywhere, at, or next to the
/// clamp thresholds, random flags and viewport clipping.
pub fn synthetic_job(cfg: &Config, g: &SampleRasterGeom, r: &mut Rng, prim: u32) -> Job {
    let m4 = 1i64 << (g.m + 4);
    let coef = |r: &mut Rng, max: i64| match r.below(4) {
        0 => max,
        1 => -max,
        _ => r.range(-max, max),
    };
    let a = [0; 3].map(|_| coef(r, g.coef_max[0]));
    let b = [0; 3].map(|_| coef(r, g.coef_max[1]));
    let (w, h) = (cfg.subtile[0] as i64 * ONE as i64, cfg.subtile[1] as i64 * ONE as i64);
    let mut e = [0i64; 3];
    for (k, v) in e.iter_mut().enumerate() {
        *v = match r.below(8) {
            0..=2 => {
                let (x, y) = if r.below(2) == 0 {
                    let o = tilerast_golden::samples::offsets(cfg.msaa);
                    let (sx, sy) = o[r.below(o.len() as u64) as usize];
                    (
                        r.below(cfg.subtile[0] as u64) as i64 * ONE as i64 + sx as i64 * 16,
                        r.below(cfg.subtile[1] as u64) as i64 * ONE as i64 + sy as i64 * 16,
                    )
                } else {
                    (r.range(0, w), r.range(0, h))
                };
                -(a[k] * x + b[k] * y) + r.range(-2, 2)
            }
            3 => r.range(m4 / 2, 1 << 46),
            4 => r.range(-(1 << 46), 1 << 46),
            5 => m4 + r.range(-20, 20),
            6 => -m4 + r.range(-20, 20),
            _ => {
                let v = r.range(m4 / 2, m4 - 1);
                if r.below(2) == 0 {
                    v
                } else {
                    -v
                }
            }
        };
    }
    let [nx, ny] = cfg.tiles();
    let none = r.below(12) == 0;
    Job {
        cand: Cand {
            prim,
            tile_x: r.below(nx as u64) as u32,
            tile_y: r.below(ny as u64) as u32,
            col: r.below((cfg.tile[0] / cfg.subtile[0]) as u64) as u32,
            row: r.below((cfg.tile[1] / cfg.subtile[1]) as u64) as u32,
            e,
            a: a.map(|v| v as i32),
            b: b.map(|v| v as i32),
            vis_w: if r.below(3) == 0 {
                1 + r.below(cfg.tile[0] as u64) as u32
            } else {
                cfg.tile[0]
            },
            vis_h: if r.below(3) == 0 {
                1 + r.below(cfg.tile[1] as u64) as u32
            } else {
                cfg.tile[1]
            },
            last: none || r.below(3) == 0,
            none,
        },
        trivial: r.below(5) == 0,
    }
}

/// `n`+ jobs: half from random triangles, half synthetic.
pub fn jobs(cfg: &Config, seed: u64, n: usize) -> Vec<Job> {
    let geom = SampleRasterGeom::new(cfg).unwrap();
    let mut r = Rng::new(seed);
    let mut jobs = Vec::new();
    let mut prim = 0;
    while jobs.len() < n {
        prim += 1;
        if r.below(2) == 0 {
            jobs.extend(triangle_jobs(cfg, &mut r, prim));
        } else {
            jobs.push(synthetic_job(cfg, &geom, &mut r, prim));
        }
    }
    jobs
}

/// `n` random beats: any lane pattern, coordinates and masks (also lanes beyond any Q), `last`
/// on a quarter of them.
pub fn beats(seed: u64, n: usize) -> Vec<Beat> {
    let mut r = Rng::new(seed);
    (0..n)
        .map(|_| {
            let mut b = Beat {
                prim: r.below(1 << 24) as u32,
                lane_valid: r.below(16) as u8,
                last: r.below(4) == 0,
                ..Default::default()
            };
            for l in 0..4 {
                b.qx[l] = r.below(1 << 12) as u32;
                b.qy[l] = r.below(1 << 12) as u32;
                b.mask[l] = r.next_u64();
            }
            b
        })
        .collect()
}

/// `n` random blender fragments: any lane pattern, positions counting up, and keys drawn from
/// a small alphabet (a random one in 1 of 8 lanes), often the same key in a whole fragment and
/// runs of fragments repeating the last key, so that per-sample merges and in-flight matches
/// are frequent; all four operations, reserved state bits set at times.
pub fn blend_frags(seed: u64, n: usize) -> Vec<BlendFrag> {
    let mut r = Rng::new(seed);
    let mut pos = 0u32;
    let key = |r: &mut Rng| -> (u32, u32, u8) {
        if r.below(8) == 0 {
            (r.next_u32(), r.next_u32(), r.below(256) as u8)
        } else {
            let k = r.below(12) as u32;
            let a = [0u32, 128, 255, 77][(k & 3) as usize];
            let src = (k * 40) | (((k * 13) & 255) << 8) | (200 << 16) | (a << 24);
            let dst = 10 | (((k * 7) & 255) << 8) | (90 << 16) | (255 << 24);
            (src, dst, (k % 4) as u8 | if r.below(16) == 0 { 0x40 } else { 0 })
        }
    };
    let mut last = key(&mut r);
    (0..n)
        .map(|_| {
            let mut f = BlendFrag {
                lane_valid: if r.below(3) == 0 { r.below(16) as u8 } else { 15 },
                ..Default::default()
            };
            let whole = r.below(3) == 0;
            if r.below(3) != 0 {
                last = key(&mut r);
            }
            for l in 0..4 {
                let k = if whole || r.below(2) == 0 { last } else { key(&mut r) };
                f.pos[l] = pos;
                pos = pos.wrapping_add(1);
                f.src[l] = k.0;
                f.dst[l] = k.1;
                f.state[l] = k.2;
            }
            f
        })
        .collect()
}

/// `n` blender fragments for an input buffer: [`blend_frags`] with a third of them made into
/// four distinct keys (lane l's src byte 2 changed by l + 1: with L = 2 lanes the last two wait
/// in the pool) and a third full with lanes 2, 3 repeating lanes 0, 1 (arriving behind waiting
/// entries, they sit in the buffer while their twins issue: the buffer's merges).
pub fn blend_frags_buffered(seed: u64, n: usize) -> Vec<BlendFrag> {
    let mut r = Rng::new(seed ^ 0xb0ff);
    blend_frags(seed, n)
        .into_iter()
        .map(|mut f| {
            match r.below(3) {
                0 => {}
                1 => {
                    f.lane_valid = 15;
                    for l in 0..4 {
                        f.src[l] ^= (l as u32 + 1) << 16;
                    }
                }
                _ => {
                    f.lane_valid = 15;
                    for l in 2..4 {
                        f.src[l] = f.src[l - 2];
                        f.dst[l] = f.dst[l - 2];
                        f.state[l] = f.state[l - 2];
                    }
                }
            }
            f
        })
        .collect()
}

/// `n` blender output beats for the output merger: random slot masks (a third of them partial,
/// empty ones included), positions below `slots` (repeats happen), random colours; invalid
/// slots carry junk too, which the block must ignore.
pub fn blend_beats(seed: u64, n: usize, slots: u32) -> Vec<BlendBeat> {
    let mut r = Rng::new(seed);
    (0..n)
        .map(|_| {
            let mut b = BlendBeat {
                lane_valid: if r.below(3) == 0 { r.below(16) as u8 } else { 15 },
                ..Default::default()
            };
            for l in 0..4 {
                b.pos[l] = r.below(slots as u64) as u32;
                b.colour[l] = r.next_u32();
            }
            b
        })
        .collect()
}

/// `n` random pixels for the pixel processor at `s` samples per pixel: covered masks none,
/// all S, random, one sample, all but one (lanes ≥ S random too: the block ignores them);
/// colours from a small alphabet (0, 255 and near-ties, so sums reach 255·k and the rounding
/// ties) or random; coordinates over the whole 12 bits.
pub fn pix_samples(s: u32, seed: u64, n: usize) -> Vec<PixSamples> {
    let mut r = Rng::new(seed);
    let all: u16 = if s >= 16 { 0xffff } else { (1u16 << s) - 1 };
    let pal = [0xffff_ffffu32, 0, 0x80ff_7f01, 0x01fe_00ff, 0x7f80_8180];
    (0..n)
        .map(|_| {
            let junk = (r.next_u32() as u16) & !all;
            let mask = match r.below(5) {
                0 => 0,
                1 => all,
                2 => r.next_u32() as u16 & all,
                3 => 1 << r.below(s as u64),
                _ => all & !(1 << r.below(s as u64)),
            } | junk;
            let small = r.below(2) == 0;
            let mut colour = [0u32; 16];
            for c in colour.iter_mut() {
                *c = if small { pal[r.index(pal.len())] } else { r.next_u32() };
            }
            PixSamples {
                x: r.below(1 << 12) as u32,
                y: r.below(1 << 12) as u32,
                mask,
                colour,
            }
        })
        .collect()
}

/// About `n` pixels for the pixel back end (the pixel processor, then the colour buffer, whose
/// input precondition is whole second tiles): whole second tiles of `cfg`
/// ([`random_second_tile`]: every other one an edge tile), every viewport pixel in raster order,
/// samples as [`pix_samples`] draws them. A consumer that flushes restarts at the next tile's
/// first pixel ([`starts_tile`]).
pub fn pix_sample_tiles(cfg: &Config, seed: u64, n: usize) -> Vec<PixSamples> {
    let lay = BufferLayout::new(cfg);
    let mut rng = Rng::stream(seed, 12);
    let mut xy = Vec::with_capacity(n + (cfg.second_tile[0] * cfg.second_tile[1]) as usize);
    while xy.len() < n {
        let t = random_second_tile(&lay, &mut rng);
        xy.extend(second_tile_pixels(&lay, t, &mut rng).iter().map(|p| (p.x, p.y)));
    }
    let mut px = pix_samples(cfg.msaa, seed, xy.len());
    for (p, (x, y)) in px.iter_mut().zip(xy) {
        (p.x, p.y) = (x, y);
    }
    px
}

/// Pixel (x, y) is the first of its second tile in raster order (where a stream of whole tiles
/// may restart after a flush).
pub fn starts_tile(cfg: &Config, x: u32, y: u32) -> bool {
    x.is_multiple_of(cfg.second_tile[0]) && y.is_multiple_of(cfg.second_tile[1])
}

// ----- generators driven by proptest input words (shrinkable) and test oracles -----

/// The jobs subtile_coverage hands the sample rasterizer for (tri, tile) (see
/// `tests/sample_raster_cycle.rs`).
pub fn jobs_for(cfg: &Config, tri: &TriSetup, prim: u32, tile: [u32; 2]) -> Vec<Job> {
    let pt = parse_tile(cfg, tile).unwrap();
    let mut st = CoverageStats::default();
    let mut cov = Vec::new();
    classify_tile(cfg, tri, &pt, &mut st, &mut cov);
    let base = Cand {
        prim,
        tile_x: tile[0],
        tile_y: tile[1],
        a: tri.edges.map(|e| e.a as i32),
        b: tri.edges.map(|e| e.b as i32),
        vis_w: pt.rect.width(),
        vis_h: pt.rect.height(),
        ..Default::default()
    };
    if cov.is_empty() {
        return vec![Job {
            cand: Cand {
                last: true,
                none: true,
                ..base
            },
            trivial: false,
        }];
    }
    let n = cov.len();
    cov.iter()
        .enumerate()
        .map(|(i, cs)| {
            let (x, y) = (cs.sub.rect.x0 as i64 * ONE as i64, cs.sub.rect.y0 as i64 * ONE as i64);
            Job {
                cand: Cand {
                    col: cs.sub.col,
                    row: cs.sub.row,
                    e: tri.edges.map(|e| e.eval(x, y)),
                    last: i + 1 == n,
                    ..base
                },
                trivial: cs.trivial,
            }
        })
        .collect()
}

/// The `Edges` beat setup sends (an oracle independent of `setup::edges_for`) for `tri` in `tile` (golden setup translated by hand: bbox
/// clipped to the tile, E evaluated at the origin of sub-tile (bx0/SW, by0/SH)); empty if the
/// bbox misses the tile.
pub fn edges_by_hand(cfg: &Config, tri: &TriSetup, prim: u32, tile: [u32; 2]) -> Edges {
    let rect = tile_rect(cfg, tile).unwrap();
    let mut e = Edges {
        prim,
        tile_x: tile[0],
        tile_y: tile[1],
        vis_w: rect.width(),
        vis_h: rect.height(),
        ..Default::default()
    };
    for k in 0..3 {
        e.a[k] = tri.edges[k].a as i32;
        e.b[k] = tri.edges[k].b as i32;
    }
    let bb = tri.bbox;
    if bb.x1 < rect.x0 || bb.x0 > rect.x1 || bb.y1 < rect.y0 || bb.y0 > rect.y1 {
        e.empty = true;
        return e;
    }
    e.bx0 = bb.x0.max(rect.x0) - rect.x0;
    e.bx1 = bb.x1.min(rect.x1) - rect.x0;
    e.by0 = bb.y0.max(rect.y0) - rect.y0;
    e.by1 = bb.y1.min(rect.y1) - rect.y0;
    let [sw, sh] = cfg.subtile;
    let ox = (rect.x0 + e.bx0 / sw * sw) as i64 * 256;
    let oy = (rect.y0 + e.by0 / sh * sh) as i64 * 256;
    for k in 0..3 {
        e.e[k] = tri.edges[k].eval(ox, oy);
    }
    e
}

/// A random triangle: centre anywhere in the viewport (± guard band a little), size class from
/// sub-pixel slivers to several tiles, or vertices at the guard band's corners.
pub fn tri_from_words(cfg: &Config, r: &[u32; 8]) -> TriangleFx {
    let g = cfg.guard_band as i64 / 2;
    let cx = (r[0] as i64 % (cfg.viewport[0] as i64 + 2 * g) - g) * 256 + (r[1] % 256) as i64;
    let cy = (r[2] as i64 % (cfg.viewport[1] as i64 + 2 * g) - g) * 256 + (r[3] % 256) as i64;
    let (lo, hi) = cfg.guard_limits_fx();
    if r[4] % 6 == 5 {
        // Guard-band extremes: every vertex at a corner of the guard band (widest edges).
        let corner = |v: u32| [[lo[0], hi[0]][v as usize & 1], [lo[1], hi[1]][(v >> 1) as usize & 1]];
        return TriangleFx {
            v: [corner(r[5]), corner(r[6]), corner(r[7])],
            colour: [0; 4],
            depth: 0,
        };
    }
    let size = [
        2i64,
        256,
        4 * 256,
        cfg.tile[0] as i64 * 256,
        3 * cfg.tile[0] as i64 * 256,
    ][r[4] as usize % 5];
    let off = |v: u32| (v as i64 % (2 * size + 1)) - size;
    let clamp = |v: i64, i: usize| v.clamp(lo[i] as i64, hi[i] as i64) as i32;
    TriangleFx {
        v: [
            [clamp(cx + off(r[5]), 0), clamp(cy + off(r[6]), 1)],
            [clamp(cx + off(r[7]), 0), clamp(cy + off(r[5] ^ r[6]), 1)],
            [
                clamp(cx + off(r[6].rotate_left(7)), 0),
                clamp(cy + off(r[7].rotate_left(13)), 1),
            ],
        ],
        colour: [0; 4],
        depth: 0,
    }
}

/// Commands for a triangle: every tile its bbox touches (at most 12, spread over the range),
/// plus one random tile (often empty).
pub fn tri_edges(cfg: &Config, tri: &TriSetup, prim: u32, pick: u32) -> Vec<Edges> {
    let [tw, th] = cfg.tile;
    let [nx, ny] = cfg.tiles();
    let mut tiles = Vec::new();
    for ty in tri.bbox.y0 / th..=tri.bbox.y1 / th {
        for tx in tri.bbox.x0 / tw..=tri.bbox.x1 / tw {
            tiles.push([tx, ty]);
        }
    }
    if tiles.len() > 12 {
        let step = tiles.len() / 12;
        tiles = tiles.into_iter().step_by(step).take(12).collect();
    }
    tiles.push([pick % nx, (pick / nx) % ny]);
    tiles.into_iter().map(|t| edges_by_hand(cfg, tri, prim, t)).collect()
}

// ----- raster-core primitives from proptest draws (the cycle-model and Verilator core tests) -----

/// Where a raster-core test anchors a random primitive, in 1/256 px: x and y over the viewport
/// widened by the guard band on each side, as half-open ranges (ready to use as proptest
/// strategies).
pub fn guard_box_fx(cfg: &Config) -> (Range<i32>, Range<i32>) {
    let (w, h) = (cfg.viewport[0] as i32 * 256, cfg.viewport[1] as i32 * 256);
    let g = cfg.guard_band as i32 * 256;
    (-g..w + g, -g..h + g)
}

/// Point sizes a raster-core test draws, in 1/256 px: from 0 to one pixel past `max_point_size`.
pub fn point_sizes_fx(cfg: &Config) -> Range<i32> {
    0..cfg.max_point_size as i32 * 256 + 256
}

/// A triangle with one vertex at `(x, y)` (drawn from [`guard_box_fx`]) and the other two at
/// `(x, y) + k·d1` and `(x, y) + k·d2`, each coordinate clamped to the viewport ± guard band;
/// colour 1, depth 0.
pub fn spread_triangle(cfg: &Config, (x, y): (i32, i32), d1: (i32, i32), d2: (i32, i32), k: i32) -> PrimitiveFx {
    let (w, h) = (cfg.viewport[0] as i32 * 256, cfg.viewport[1] as i32 * 256);
    let g = cfg.guard_band as i32 * 256;
    let vertex = |(dx, dy): (i32, i32)| [(x + dx * k).clamp(-g, w + g), (y + dy * k).clamp(-g, h + g)];
    PrimitiveFx::Triangle(TriangleFx {
        v: [[x, y], vertex(d1), vertex(d2)],
        colour: [1; 4],
        depth: 0,
    })
}

/// A point at `(x, y)` (drawn from [`guard_box_fx`]) of `size` (from [`point_sizes_fx`]);
/// colour 1, depth 0.
pub fn point_at((x, y): (i32, i32), size: i32, aa: bool) -> PrimitiveFx {
    PrimitiveFx::Point(PointFx {
        pos: [x, y],
        size,
        aa,
        colour: [1; 4],
        depth: 0,
    })
}

/// Second tile `t` of the colour buffer's layout as its input stream: every viewport pixel of
/// the tile, rows bottom-up, left → right, with random `slot_valid` (all 16 bits, junk above C
/// included) and random colours in every slot.
pub fn second_tile_pixels(lay: &BufferLayout, t: [u32; 2], rng: &mut Rng) -> Vec<PixSlots> {
    let (x0, y0) = (t[0] * lay.tile[0], t[1] * lay.tile[1]);
    let x1 = (x0 + lay.tile[0]).min(lay.viewport[0]);
    let y1 = (y0 + lay.tile[1]).min(lay.viewport[1]);
    let mut out = Vec::with_capacity(((x1 - x0) * (y1 - y0)) as usize);
    for y in y0..y1 {
        for x in x0..x1 {
            let mut p = PixSlots {
                x,
                y,
                slot_valid: rng.next_u32() as u16,
                ..PixSlots::default()
            };
            for c in p.colour.iter_mut() {
                *c = rng.next_u32();
            }
            out.push(p);
        }
    }
    out
}

/// A random second tile of the viewport; every other one an edge tile (the last column or row),
/// so that the clipped classes (and their shared storage blocks) come often.
pub fn random_second_tile(lay: &BufferLayout, rng: &mut Rng) -> [u32; 2] {
    let n = [
        lay.viewport[0].div_ceil(lay.tile[0]),
        lay.viewport[1].div_ceil(lay.tile[1]),
    ];
    let mut t = [rng.below(n[0] as u64) as u32, rng.below(n[1] as u64) as u32];
    if rng.bool() {
        t[0] = n[0] - 1;
    }
    if rng.bool() {
        t[1] = n[1] - 1;
    }
    t
}

/// The colour buffer's input for one run: whole second tiles (`random_second_tile`, pixels by
/// [`second_tile_pixels`]), restarted with a whole tile at every flush, as the block's input
/// precondition asks. The run is replayed on the cycle model with the run's control lines
/// (`line()` gives each cycle's valid, ready and flush, from cycle 0, exactly as the bench will
/// drive them; acceptance follows the model's `in_ready`, an input is taken when valid, ready
/// and no flush): at each flush the inputs not yet taken are replaced by fresh tiles. Returns the
/// inputs (offered in order, never exhausted within `cycles`) and, per flush, (cycle, whether it
/// fell between tiles).
pub fn colour_buffer_input(
    cfg: &Config,
    seed: u64,
    cycles: u64,
    line: impl FnMut() -> (bool, bool, bool) + Clone,
) -> (Vec<PixSlots>, Vec<(u64, bool)>) {
    let lay = BufferLayout::new(cfg);
    let mut rng = Rng::stream(seed, 11);
    let mut px: Vec<PixSlots> = Vec::new();
    let mut starts = std::collections::BTreeSet::new();
    let extend = |px: &mut Vec<PixSlots>, starts: &mut std::collections::BTreeSet<usize>, rng: &mut Rng| {
        while px.len() < cycles as usize + 1 {
            starts.insert(px.len());
            let t = random_second_tile(&lay, rng);
            px.extend(second_tile_pixels(&lay, t, rng));
        }
    };
    extend(&mut px, &mut starts, &mut rng);
    let mut flushes = Vec::new();
    loop {
        let mut m = ColourBufferCycle::new(cfg);
        let mut l = line.clone();
        let mut next = 0usize;
        let mut cut = None;
        for cycle in 0..cycles {
            let (valid, ready, flush) = l();
            let take = valid && m.in_ready(ready) && !flush;
            if flush && !flushes.iter().any(|&(c, _)| c == cycle) {
                cut = Some((cycle, next));
                break;
            }
            m.clock(valid, &px[next], ready, flush);
            next += take as usize;
        }
        let Some((cycle, at)) = cut else { break };
        flushes.push((cycle, starts.contains(&at)));
        if !starts.contains(&at) {
            px.truncate(at);
            starts.retain(|&s| s < at);
            extend(&mut px, &mut starts, &mut rng);
        }
    }
    (px, flushes)
}

/// A finished pixel-info store of frame `frame` for `cfg` (seed 001), with `quads` random
/// records: random primitive ids, depths and non-zero 4·S-bit masks, quads inside the viewport.
/// Most quads go to a few "hot" second tiles (so their lists span several blocks), the rest
/// anywhere, and a quarter of the second tiles are kept empty (their lists have no block), so
/// a reader sees multi-block lists, single-block lists and empty ones.
pub fn pixel_info_store(cfg: &Config, seed: u64, quads: usize, frame: u8) -> PixelInfoStore {
    use tilerast_golden::prim::Quad;
    let mut r = Rng::new(seed);
    let mut st = PixelInfoStore::new(cfg, frame).expect("a valid config");
    let [nx, ny] = st.second_tile_count();
    let [sw, sh] = cfg.second_tile;
    let (qw, qh) = (cfg.viewport[0] / 2, cfg.viewport[1] / 2);
    let empty: Vec<bool> = (0..nx * ny).map(|_| r.chance(25)).collect();
    let hot: Vec<u32> = (0..3).map(|_| r.below((nx * ny) as u64) as u32).collect();
    let used = if cfg.msaa == 16 {
        u64::MAX
    } else {
        (1u64 << (4 * cfg.msaa)) - 1
    };
    let mut n = 0;
    while n < quads {
        // A quad column and row inside the viewport (whole quads only).
        let (qx, qy) = if r.chance(60) {
            let t = *r.pick(&hot);
            let (tx, ty) = (t % nx, t / nx);
            let qx = (tx * sw / 2 + r.below((sw / 2) as u64) as u32).min(qw - 1);
            let qy = (ty * sh / 2 + r.below((sh / 2) as u64) as u32).min(qh - 1);
            (qx, qy)
        } else {
            (r.below(qw as u64) as u32, r.below(qh as u64) as u32)
        };
        let t = (2 * qy / sh) * nx + 2 * qx / sw;
        if empty[t as usize] && !hot.contains(&t) {
            continue;
        }
        let mask = match r.below(4) {
            0 => used,
            _ => (r.next_u64() & used).max(1),
        };
        let q = Quad {
            prim: r.next_u32(),
            qx: qx as u16,
            qy: qy as u16,
            mask,
        };
        st.push(&q, r.below(1 << 24) as u32)
            .expect("a quad inside the viewport");
        n += 1;
    }
    st.finish_raster().expect("finished once");
    st
}

/// The bytes of a pixel-info store's memory as the memory port's memory (offset 0 = the list
/// table), no traffic counted.
pub fn pixel_info_image(st: &PixelInfoStore) -> SparseMemory {
    let m = st.memory();
    let mut out = SparseMemory::new();
    for a in (0..m.size()).step_by(4) {
        let w = m.peek_u32(a).expect("allocated");
        if w != 0 {
            out.write(a as u32, w, 0xf);
        }
    }
    out
}

/// `n` primitive boxes for the binner, in submission order (prim ids from a random base, 24
/// bits): 3/8 inside one tile, 2/8 over a few tiles, 1/8 large (up to half the viewport each
/// way, many tiles), 2/8 around one hot tile so that its lists take many chunks. No box touches the top-right first tile, so some list stays empty.
pub fn bin_boxes(cfg: &Config, seed: u64, n: usize) -> Vec<(u32, PixelBox)> {
    let mut r = Rng::new(seed);
    let [vw, vh] = cfg.viewport;
    let [tw, th] = cfg.tile;
    let t = cfg.tiles();
    let base = r.below(1 << 24) as u32;
    let hot = [r.below(t[0] as u64) as u32 * tw, r.below(t[1] as u64) as u32 * th];
    (0..n)
        .map(|i| {
            let (w, h, x, y) = match r.below(8) {
                0..=2 => (1 + r.below(tw as u64) as u32, 1 + r.below(th as u64) as u32, None, None),
                3..=4 => (
                    1 + r.below(3 * tw as u64) as u32,
                    1 + r.below(3 * th as u64) as u32,
                    None,
                    None,
                ),
                5 => (
                    1 + r.below((vw / 2) as u64) as u32,
                    1 + r.below((vh / 2) as u64) as u32,
                    None,
                    None,
                ),
                _ => (
                    1 + r.below(tw as u64 / 2 + 1) as u32,
                    1 + r.below(th as u64 / 2 + 1) as u32,
                    Some(hot[0] + r.below(tw as u64 / 2) as u32),
                    Some(hot[1] + r.below(th as u64 / 2) as u32),
                ),
            };
            let (w, h) = (w.min(vw), h.min(vh));
            let x0 = x.unwrap_or_else(|| r.below((vw - w + 1) as u64) as u32).min(vw - w);
            let y0 = y.unwrap_or_else(|| r.below((vh - h + 1) as u64) as u32).min(vh - h);
            let mut b = PixelBox {
                x0,
                y0,
                x1: x0 + w - 1,
                y1: y0 + h - 1,
            };
            // Keep off the top-right tile: clip one axis below it.
            let (lx, ly) = ((t[0] - 1) * tw, (t[1] - 1) * th);
            if b.x1 >= lx && b.y1 >= ly {
                if b.x0 < lx {
                    b.x1 = lx - 1;
                } else if b.y0 < ly {
                    b.y1 = ly - 1;
                } else {
                    b.x0 = b.x0.min(lx - 1).min(b.x1);
                    b.x0 -= b.x0.min(tw);
                    b.x1 = lx - 1;
                }
            }
            ((base + i as u32) & 0xff_ffff, b)
        })
        .collect()
}

/// The binner's input for one frame: `boxes` then the frame-end token.
pub fn bin_frame(boxes: &[(u32, PixelBox)]) -> Vec<BinBox> {
    boxes
        .iter()
        .map(|&(prim, b)| BinBox {
            prim,
            x0: b.x0,
            y0: b.y0,
            x1: b.x1,
            y1: b.y1,
            end: false,
        })
        .chain(std::iter::once(BinBox {
            end: true,
            ..Default::default()
        }))
        .collect()
}

/// `n` beats for the pixel-info writer, frame id `frame` (prim ids from a random base, 24-bit
/// depths): lane sets of every kind (a quarter all four lanes, a few none), masks non-zero
/// within the 4·S bits of `cfg.msaa`, every quad inside the viewport (`PixelInfoStore::push`'s
/// checks), a third of the quads in one hot second tile so that its list takes many blocks,
/// and none in the top-right second tile, so that some list stays empty.
pub fn pi_beats(cfg: &Config, seed: u64, n: usize, frame: u8) -> Vec<PiBeat> {
    let mut r = Rng::new(seed);
    let [vw, vh] = cfg.viewport;
    let [sw, sh] = cfg.second_tile;
    let (qw, qh) = (vw / 2, vh / 2);
    let (tx, ty) = (vw.div_ceil(sw), vh.div_ceil(sh));
    let (hw, hh) = ((sw / 2).min(qw), (sh / 2).min(qh));
    let hot = [r.below(tx as u64) as u32 * sw / 2, r.below(ty as u64) as u32 * sh / 2];
    let bits = 4 * cfg.msaa;
    let used = if bits == 64 { u64::MAX } else { (1u64 << bits) - 1 };
    let base = r.below(1 << 24) as u32;
    (0..n)
        .map(|i| {
            let lane_valid = match r.below(16) {
                0 => 0,
                1..=4 => 0xf,
                _ => r.below(16) as u8,
            };
            let mut b = Beat {
                prim: (base + i as u32) & 0xff_ffff,
                lane_valid,
                kind: r.below(2) as u8,
                last: r.chance(30),
                ..Beat::default()
            };
            for l in 0..LANES {
                let (mut x, mut y) = if r.below(3) == 0 {
                    (
                        (hot[0] + r.below(hw as u64) as u32).min(qw - 1),
                        (hot[1] + r.below(hh as u64) as u32).min(qh - 1),
                    )
                } else {
                    (r.below(qw as u64) as u32, r.below(qh as u64) as u32)
                };
                // Keep off the top-right second tile.
                if 2 * x / sw == tx - 1 && 2 * y / sh == ty - 1 {
                    if r.chance(50) {
                        x -= x.min(sw / 2);
                    } else {
                        y -= y.min(sh / 2);
                    }
                }
                let m = match r.below(4) {
                    0 => used,
                    1 => 1u64 << r.below(bits as u64),
                    _ => r.next_u64() & used,
                };
                b.qx[l] = x;
                b.qy[l] = y;
                b.mask[l] = if m == 0 { 1 } else { m };
                if lane_valid >> l & 1 == 0 && r.chance(50) {
                    // Junk in an invalid lane.
                    b.qx[l] = r.below(1 << 12) as u32;
                    b.mask[l] = r.next_u64();
                }
            }
            PiBeat {
                beat: b,
                depth: r.below(1 << 24) as u32,
                frame,
                end: false,
            }
        })
        .collect()
}

/// The pixel-info writer's input for one frame: `beats` then the frame-end token.
pub fn pi_frame(beats: &[PiBeat]) -> Vec<PiBeat> {
    beats
        .iter()
        .copied()
        .chain(std::iter::once(PiBeat {
            end: true,
            ..Default::default()
        }))
        .collect()
}

/// Golden's pixel-info store after `beats` (every valid lane pushed, lane order) and
/// `finish_raster`: what the pixel-info writer's memory must hold.
pub fn pi_store(cfg: &Config, beats: &[PiBeat], frame: u8) -> tilerast_golden::pixel_info::PixelInfoStore {
    let mut s = tilerast_golden::pixel_info::PixelInfoStore::new(cfg, frame).expect("valid config");
    for b in beats {
        for q in b.beat.quads() {
            s.push(&q, b.depth).expect("a valid quad");
        }
    }
    s.finish_raster().expect("first finish");
    s
}

/// The overdraw frame: `n` triangles at preset `full` (guard band raised to 4096 so they set
/// up), each covering the whole viewport (corners (-1, -1), (2W + 2, -1), (-1, 2H + 2), every
/// coordinate jittered by less than a pixel), random opaque colours and depths. What
/// `golden/benches/overdraw.rs` measures host memory on and the pipeline's up-front pixel-info
/// refusal is tested with.
pub fn overdraw_frame(seed: u64, n: usize) -> tilerast_golden::scene::Frame {
    let mut cfg = Config::preset("full").expect("preset full");
    cfg.guard_band = 4096;
    cfg.validate().expect("full with a 4096 guard band");
    let [w, h] = [cfg.viewport[0] as i32, cfg.viewport[1] as i32];
    let mut r = Rng::stream(seed, 0);
    let prims = (0..n)
        .map(|_| {
            let mut j = || r.below(256) as i32;
            let v = [
                [-256 - j(), -256 - j()],
                [(2 * w + 2) * 256 + j(), -256 - j()],
                [-256 - j(), (2 * h + 2) * 256 + j()],
            ];
            PrimitiveFx::Triangle(TriangleFx {
                v,
                colour: [r.below(256) as u8, r.below(256) as u8, r.below(256) as u8, 255],
                depth: r.below(1 << 24) as u32,
            })
        })
        .collect();
    tilerast_golden::scene::Frame {
        cfg,
        background: [0, 0, 0, 255],
        prims,
    }
}

/// A frame for the tile sequencer: `n` primitives in the left half of the viewport (so the
/// right half's first tiles stay empty): spread triangles (small and large) and points (1 in 5,
/// aa or not), then `hot` small triangles inside first tile (1, 1) (its list takes ⌈hot/15⌉
/// 64-byte chunks). Random colours and depths.
pub fn seq_frame(cfg: &Config, seed: u64, n: usize, hot: usize) -> tilerast_golden::scene::Frame {
    let mut r = Rng::stream(seed, 0);
    let [w, h] = cfg.viewport;
    let [tw, th] = cfg.tile;
    let mut prims = Vec::new();
    for i in 0..n + hot {
        let mut p = if i >= n {
            let x = (tw as i64 + 2 + r.below(tw as u64 / 2) as i64) * 256;
            let y = (th as i64 + 2 + r.below(th as u64 / 2) as i64) * 256;
            spread_triangle(cfg, (x as i32, y as i32), (3 * 256, 0), (0, 3 * 256), 1)
        } else {
            let at = (r.range(0, w as i64 * 128) as i32, r.range(0, h as i64 * 256) as i32);
            if r.one_in(5) {
                point_at(at, r.range(128, 8 * 256) as i32, r.bool())
            } else {
                let s = if r.bool() { 12 * 256 } else { 60 * 256 };
                let d1 = (r.range(-s, s) as i32, r.range(-s, s) as i32);
                let d2 = (r.range(-s, s) as i32, r.range(-s, s) as i32);
                spread_triangle(cfg, at, d1, d2, 1)
            }
        };
        let (colour, depth) = ([r.below(256) as u8, 2, 3, 255], r.below(1 << 24) as u32);
        match &mut p {
            PrimitiveFx::Triangle(t) => (t.colour, t.depth) = (colour, depth),
            PrimitiveFx::Point(q) => (q.colour, q.depth) = (colour, depth),
        }
        prims.push(p);
    }
    tilerast_golden::scene::Frame {
        cfg: cfg.clone(),
        background: [0; 4],
        prims,
    }
}

/// Golden's tile-sequencer beats of a frame: `pipeline::commands(frame)` with each primitive's
/// depth, then the end token.
pub fn seq_beats(frame: &tilerast_golden::scene::Frame) -> Vec<tilerast_golden::streams::SeqCmd> {
    use tilerast_golden::streams::SeqCmd;
    let mut out: Vec<SeqCmd> = tilerast_golden::pipeline::commands(frame)
        .expect("golden commands")
        .into_iter()
        .map(|c| SeqCmd {
            cmd: c,
            depth: frame.prims[c.prim as usize].depth(),
            end: false,
        })
        .collect();
    out.push(SeqCmd {
        end: true,
        ..SeqCmd::default()
    });
    out
}

/// The tile sequencer's two memory images of a frame: the binner's lists
/// (`binner::bin_primitives`, byte for byte) and the primitive table (`prim_table::table`),
/// plus the bins (for their statistics).
pub fn seq_images(
    frame: &tilerast_golden::scene::Frame,
) -> (SparseMemory, SparseMemory, tilerast_golden::binner::Bins) {
    let bins = tilerast_golden::binner::bin_primitives(&frame.cfg, &frame.prims).expect("binned");
    let m = bins.memory();
    let mut lists = SparseMemory::new();
    for a in (0..m.size()).step_by(4) {
        lists.write(a as u32, m.peek_u32(a).expect("allocated"), 0xf);
    }
    let tab = tilerast_golden::prim_table::table(&frame.prims).expect("prim table");
    let mut pt = SparseMemory::new();
    for (i, c) in tab.chunks(4).enumerate() {
        pt.write(4 * i as u32, u32::from_le_bytes([c[0], c[1], c[2], c[3]]), 0xf);
    }
    (lists, pt, bins)
}

/// Golden's `bin_setup` output for a frame: the box of every primitive that has one
/// (`binner::prim_bbox`, as `pipeline::commands` bins them), then the end token carrying the
/// frame's primitive count.
pub fn bin_setup_boxes(cfg: &Config, prims: &[PrimitiveFx]) -> Vec<tilerast_golden::streams::BinBox> {
    use tilerast_golden::streams::BinBox;
    let mut v: Vec<BinBox> = prims
        .iter()
        .enumerate()
        .filter_map(|(i, p)| {
            tilerast_golden::binner::prim_bbox(cfg, p).map(|b| BinBox {
                prim: i as u32,
                x0: b.x0,
                y0: b.y0,
                x1: b.x1,
                y1: b.y1,
                end: false,
            })
        })
        .collect();
    v.push(BinBox {
        prim: prims.len() as u32,
        end: true,
        ..BinBox::default()
    });
    v
}

/// A random frame for bin_setup (`tests/bin_setup_cycle.rs`, the hw and cosim tests): `n`
/// primitives mixing triangles anywhere in the viewport ± guard band (either winding, small
/// and large), zero-area triangles (collinear, repeated vertices), near-degenerate ones whose
/// two area products agree in their high bits (area ±k with coordinates up to 2^23), triangles
/// at the extremes of the 24-bit coordinates, and points (AA off and on, sizes from 0 to past
/// `max_point_size`, some up to 2^24 − 1) inside and across every viewport edge. Every field
/// fits `prim_table::entry`.
pub fn bin_setup_frame(cfg: &Config, seed: u64, n: usize) -> Vec<PrimitiveFx> {
    let mut r = Rng::stream(seed, 0x5e7b);
    let (gx, gy) = guard_box_fx(cfg);
    const LO: i64 = -(1 << 23);
    const HI: i64 = (1 << 23) - 1;
    let c24 = |v: i64| v.clamp(LO, HI) as i32;
    let mut out = Vec::with_capacity(n);
    for _ in 0..n {
        let colour = [
            r.below(256) as u8,
            r.below(256) as u8,
            r.below(256) as u8,
            r.below(256) as u8,
        ];
        let depth = r.below(1 << 24) as u32;
        let pt = |r: &mut Rng| -> [i64; 2] {
            [
                r.range(gx.start as i64, gx.end as i64 - 1),
                r.range(gy.start as i64, gy.end as i64 - 1),
            ]
        };
        let tri = |v: [[i64; 2]; 3]| {
            PrimitiveFx::Triangle(TriangleFx {
                v: v.map(|p| [c24(p[0]), c24(p[1])]),
                colour,
                depth,
            })
        };
        let p = match r.below(16) {
            // Large random triangles.
            0..=2 => tri([pt(&mut r), pt(&mut r), pt(&mut r)]),
            // Small triangles around a point (a few pixels).
            3..=5 => {
                let a = pt(&mut r);
                let s = r.range(1, 4096);
                let mut v = [a; 3];
                for q in v.iter_mut().skip(1) {
                    *q = [a[0] + r.range(-s, s), a[1] + r.range(-s, s)];
                }
                tri(v)
            }
            // Zero area: collinear (v2 = v0 + k(v1 − v0)) or a repeated vertex.
            6 => {
                let a = pt(&mut r);
                let d = [r.range(-2000, 2000), r.range(-2000, 2000)];
                let k = r.range(-3, 3);
                let v = [a, [a[0] + d[0], a[1] + d[1]], [a[0] + k * d[0], a[1] + k * d[1]]];
                let mut v = v;
                if r.chance(30) {
                    v[r.index(3)] = v[r.index(3)];
                }
                tri(v)
            }
            // Near-degenerate: d2 = 2·d1 + e, area = d1x·e_y − d1y·e_x, |d1| up to 2^22.
            7 => {
                let a = [r.signed(21), r.signed(21)];
                let d1 = [r.signed(22), r.signed(22)];
                let e = [r.range(-2, 2), r.range(-2, 2)];
                tri([
                    a,
                    [a[0] + d1[0], a[1] + d1[1]],
                    [a[0] + 2 * d1[0] + e[0], a[1] + 2 * d1[1] + e[1]],
                ])
            }
            // Extremes of the 24-bit coordinates.
            8 => {
                let ext = |r: &mut Rng| {
                    if r.bool() {
                        r.range(LO, LO + 3)
                    } else {
                        r.range(HI - 3, HI)
                    }
                };
                let mut v = [[0i64; 2]; 3];
                for q in v.iter_mut() {
                    for c in q.iter_mut() {
                        *c = if r.chance(70) { ext(&mut r) } else { r.signed(24) };
                    }
                }
                tri(v)
            }
            // Points, AA off and on.
            _ => {
                let a = pt(&mut r);
                let max = cfg.max_point_size as i64 * 256;
                let size = match r.below(8) {
                    0 => {
                        if r.chance(40) {
                            0
                        } else {
                            r.range(0, 300)
                        }
                    }
                    1 => r.range(max - 300, max + 600),
                    2 => r.range(0, (1 << 24) - 1),
                    _ => r.range(0, max + 256),
                };
                PrimitiveFx::Point(PointFx {
                    pos: [c24(a[0]), c24(a[1])],
                    size: size as i32,
                    aa: r.bool(),
                    colour,
                    depth,
                })
            }
        };
        out.push(p);
    }
    out
}

/// One second tile for shading_sort: its record beats (`pixel_info_read::tile_beats`) and
/// golden's pixels out (`shading_sort::tile_pixels`; none for an empty tile).
pub type ShadeTile = (Vec<PiRecord>, Vec<PixSamples>);

/// The lock-step agent on shading_sort's `inp` and `out` (`crate::lockstep`): offers the
/// tiles' records in order under `valid`, again and again (random payloads, masked to the
/// used sample bits, while not valid), and checks every pixel out against golden's, tile by
/// tile; a flush starts again from the first tile whose pixels have not all left. Shared by
/// `hw/tests/shading_sort.rs` and `cosim/tests/shading_sort.rs`.
pub struct ShadeTiles {
    tiles: Vec<ShadeTile>,
    valid: crate::lockstep::Ctl,
    junk: Rng,
    mask: u64,
    offered: bool,
    /// Tile and beat offered next (tile counting repeats).
    ti: usize,
    bi: usize,
    /// Tile and pixel expected next on `out`.
    to: usize,
    po: usize,
    /// The first pixel out that is not golden's.
    pub wrong: Option<String>,
    /// Pixels out.
    pub beats: u64,
    /// Tiles whose pixels have all left.
    pub tiles_out: u64,
}

impl ShadeTiles {
    /// `tiles` under `valid`; `junk` draws the idle payloads, masked to `mask` (the used
    /// sample bits).
    pub fn new(tiles: Vec<ShadeTile>, valid: crate::lockstep::Ctl, junk: Rng, mask: u64) -> ShadeTiles {
        ShadeTiles {
            tiles,
            valid,
            junk,
            mask,
            offered: false,
            ti: 0,
            bi: 0,
            to: 0,
            po: 0,
            wrong: None,
            beats: 0,
            tiles_out: 0,
        }
    }

    fn tile(&self, i: usize) -> &ShadeTile {
        &self.tiles[i % self.tiles.len()]
    }
}

impl crate::lockstep::Agent for ShadeTiles {
    fn drive(&mut self, cycle: u64, p: &mut tilerast_golden::cycle::Ports) {
        self.offered = (self.valid)(cycle);
        let inp = if self.offered {
            self.tile(self.ti).0[self.bi]
        } else {
            let j = &mut self.junk;
            PiRecord {
                tile_x: j.below(8) as u32,
                tile_y: j.below(8) as u32,
                prim: j.next_u32(),
                depth: j.below(1 << 24) as u32,
                frame: j.next_u32() as u8,
                qx: j.next_u32() as u8,
                qy: j.next_u32() as u8,
                mask: j.next_u64() & self.mask,
                last: j.bool(),
                none: j.bool(),
            }
        };
        p.set("in_valid", self.offered as u64);
        p.put_payload::<ports::PiRecord>("inp", &inp);
    }

    fn edge(&mut self, cycle: u64, i: &tilerast_golden::cycle::Ports, o: &tilerast_golden::cycle::Ports) {
        if i.bit("flush") {
            (self.ti, self.bi, self.po) = (self.to, 0, 0);
            return;
        }
        if self.offered && o.bit("in_ready") {
            let none = self.tile(self.ti).0[self.bi].none;
            self.bi += 1;
            if self.bi == self.tile(self.ti).0.len() {
                self.ti += 1;
                self.bi = 0;
            }
            if none && self.to + 1 == self.ti {
                self.to = self.ti;
            }
        }
        if o.bit("out_valid") && i.bit("out_ready") {
            let out = o.payload::<ports::PixSamples>("out");
            let n = self.tiles.len();
            let want = &self.tiles[self.to % n].1;
            let len = want.len();
            if self.po >= len || out != want[self.po] {
                self.wrong
                    .get_or_insert(format!("cycle {cycle}: tile {} pixel {}: {out:?}", self.to, self.po));
            } else {
                self.po += 1;
                if self.po == len {
                    self.po = 0;
                    self.to += 1;
                    self.tiles_out += 1;
                    // Empty tiles whose tokens were taken while this one's pixels left (the
                    // output engine runs beside the next tiles' Depth).
                    while self.to < self.ti && self.tile(self.to).1.is_empty() {
                        self.to += 1;
                    }
                }
            }
            self.beats += 1;
        }
    }

    fn summary(&self) -> String {
        format!(
            "inp: {} tiles taken, {} tiles out ({} pixels)",
            self.ti, self.tiles_out, self.beats
        )
    }

    fn as_any(&self) -> &dyn std::any::Any {
        self
    }
}

/// The lock-step agent on bin_setup's `inp`, `out` and `wr` (`crate::lockstep`; the readies of
/// `out` and `wr` come from two sinks): offers the frames' beats (`bin_setup::frame_beats`) in
/// order under `valid` (random payloads while not valid), frame after frame, again and again
/// when `cyclic`; collects the boxes and table writes of the frame being finished and checks
/// each finished frame against golden's (`binner::prim_bbox` boxes, `prim_table::table`
/// bytes). A flush drops what was collected and starts again from that frame. Shared by
/// `hw/tests/bin_setup.rs` and `cosim/src/bin_setup.rs` (Verilator and gate level).
pub struct BinSetupFrames {
    cfg: Config,
    frames: Vec<Vec<PrimitiveFx>>,
    inputs: Vec<Vec<tilerast_golden::streams::PrimIn>>,
    valid: crate::lockstep::Ctl,
    junk: Rng,
    cyclic: bool,
    offered: bool,
    /// Frame and beat offered next (frames counting repeats).
    fin: usize,
    bi: usize,
    /// Frame being finished on the outputs, and what it has given so far.
    cur: usize,
    boxes: Vec<BinBox>,
    writes: Vec<tilerast_golden::streams::MemReq>,
    /// The first finished frame that is not golden's.
    pub wrong: Option<String>,
    /// Frames finished (each checked), their boxes (without the end tokens) and writes.
    pub finished: u64,
    pub boxes_out: u64,
    pub writes_out: u64,
    /// Flushes with a frame in flight (offered in part, or a box or write on an output).
    pub busy_flushes: u64,
}

impl BinSetupFrames {
    /// `frames` under `valid` (stepped only while a beat is left to offer); `junk` draws the
    /// idle payloads.
    pub fn new(cfg: &Config, frames: Vec<Vec<PrimitiveFx>>, valid: crate::lockstep::Ctl, junk: Rng) -> Self {
        BinSetupFrames {
            cfg: cfg.clone(),
            inputs: frames
                .iter()
                .map(|f| tilerast_golden::bin_setup::frame_beats(f, [0; 4]).expect("frame beats"))
                .collect(),
            frames,
            valid,
            junk,
            cyclic: false,
            offered: false,
            fin: 0,
            bi: 0,
            cur: 0,
            boxes: Vec::new(),
            writes: Vec::new(),
            wrong: None,
            finished: 0,
            boxes_out: 0,
            writes_out: 0,
            busy_flushes: 0,
        }
    }

    /// Offer the frames again and again.
    pub fn cyclic(mut self) -> Self {
        self.cyclic = true;
        self
    }

    /// The frame `cur` has ended: its boxes and table bytes against golden's.
    fn check_frame(&self) -> Result<(), String> {
        let cur = self.cur;
        let frame = &self.frames[cur % self.frames.len()];
        let want = bin_setup_boxes(&self.cfg, frame);
        if self.boxes != want {
            return Err(format!("frame {cur}: boxes {:?}, golden {want:?}", self.boxes));
        }
        let want = tilerast_golden::prim_table::table(frame).expect("golden's table");
        if self.writes.len() * 4 != want.len() {
            return Err(format!(
                "frame {cur}: {} writes, golden's table is {} bytes",
                self.writes.len(),
                want.len()
            ));
        }
        let mut mem = vec![0u8; want.len()];
        for w in &self.writes {
            let a = w.addr as usize;
            mem[a..a + 4].copy_from_slice(&w.wdata.to_le_bytes());
        }
        if mem != want {
            return Err(format!("frame {cur}: table bytes differ from golden's"));
        }
        Ok(())
    }
}

impl crate::lockstep::Agent for BinSetupFrames {
    fn drive(&mut self, cycle: u64, p: &mut tilerast_golden::cycle::Ports) {
        self.offered = (self.cyclic || self.fin < self.inputs.len()) && (self.valid)(cycle);
        let j = &mut self.junk;
        let inp = if self.offered {
            self.inputs[self.fin % self.inputs.len()][self.bi]
        } else {
            tilerast_golden::streams::PrimIn {
                kind: j.below(2) as u8,
                v: [[j.signed(24) as i32, j.signed(24) as i32]; 3],
                size: j.below(1 << 24) as u32,
                aa: j.bool(),
                colour: j.next_u32(),
                depth: j.below(1 << 24) as u32,
                end: j.bool(),
            }
        };
        p.set("in_valid", self.offered as u64);
        p.put_payload::<ports::PrimIn>("inp", &inp);
    }

    fn edge(&mut self, cycle: u64, i: &tilerast_golden::cycle::Ports, o: &tilerast_golden::cycle::Ports) {
        if i.bit("flush") {
            self.busy_flushes += (self.bi != 0 || o.bit("out_valid") || o.bit("wr_valid")) as u64;
            self.boxes.clear();
            self.writes.clear();
            self.fin = self.cur;
            self.bi = 0;
            return;
        }
        if o.bit("wr_valid") && i.bit("wr_ready") {
            self.writes.push(o.payload::<ports::MemReq>("wr"));
        }
        if o.bit("out_valid") && i.bit("out_ready") {
            let b = o.payload::<ports::BinBox>("out");
            self.boxes.push(b);
            if b.end {
                if let Err(e) = self.check_frame() {
                    self.wrong.get_or_insert(format!("cycle {cycle}: {e}"));
                }
                self.boxes_out += self.boxes.len() as u64 - 1;
                self.writes_out += self.writes.len() as u64;
                self.finished += 1;
                self.boxes.clear();
                self.writes.clear();
                self.cur += 1;
            }
        }
        if self.offered && o.bit("in_ready") {
            self.bi += 1;
            if self.bi == self.inputs[self.fin % self.inputs.len()].len() {
                self.fin += 1;
                self.bi = 0;
            }
        }
    }

    fn summary(&self) -> String {
        format!(
            "inp: {} frames taken, {} finished ({} boxes, {} writes)",
            self.fin, self.finished, self.boxes_out, self.writes_out
        )
    }

    fn as_any(&self) -> &dyn std::any::Any {
        self
    }
}

/// What drives a run of the pixel back end besides its pixels ([`back_end_bench`]).
#[derive(Clone, Debug)]
pub struct BackEndDrive {
    pub seed: u64,
    /// Per-mille chances: no pixel offered (gap), memory busy.
    pub gap_pm: u64,
    pub busy_pm: u64,
    /// Cycles at which `flush` is high (the memory drops its held reads too).
    pub flush_at: Vec<u64>,
    /// A long memory stall: [from, to).
    pub stall: (u64, u64),
    pub timing: tilerast_golden::memory_port::MemTiming,
    /// Stop after this many cycles (0: when the frame's writes are done).
    pub cycles: u64,
    /// Read the RTL's output `port` with its low bit flipped at this cycle (a test that the
    /// comparison can fail: it must report exactly that cycle and port).
    pub flip: Option<(u64, &'static str)>,
}

/// The pixel back end's bench, one set of lock-step agents shared by `hw/tests/pixel_back_end.rs`
/// (rust-hdl) and `cosim/src/back_end.rs` (Verilator and gate level): `pixels` offered in
/// order on `inp` with `gap_pm` ‰ gaps and random junk while idle, restarting at the next
/// second tile after a flush (the colour buffer takes whole tiles); golden's memory holding
/// `mem0` behind `mem_req` → `mem_resp`, busy `busy_pm` ‰ of the cycles and stalled over
/// `stall`; flushes at `flush_at`; `background` held on the level input of that name (the
/// frame's background, packed RGBA8). Agents: `flush`, `inp`, `mem`, `background`.
pub fn back_end_bench(
    cfg: &Config,
    pixels: &[PixSamples],
    mem0: SparseMemory,
    background: u32,
    d: &BackEndDrive,
) -> crate::lockstep::Bench {
    use crate::lockstep::{Bench, Flushes, Level, Memory, Source};
    let tiles = cfg.clone();
    let mut gaps = Rng::stream(d.seed, 0);
    let gap_pm = d.gap_pm;
    let mut busy = Rng::stream(d.seed, 1);
    let (busy_pm, stall) = (d.busy_pm, d.stall);
    Bench::new()
        .with("flush", Flushes::at(d.flush_at.clone()))
        .with(
            "inp",
            Source::<tilerast_golden::streams::ports::PixSamples>::new(
                "inp",
                pixels.to_vec(),
                Box::new(move |_| !gaps.permille(gap_pm)),
            )
            .with_random_junk(Rng::stream(d.seed, 2), 100)
            .restart_at(move |p| starts_tile(&tiles, p.x, p.y)),
        )
        .with(
            "mem",
            Memory::new(
                "mem_req",
                "mem_resp",
                tilerast_golden::memory_port::MemoryCycle::new(d.timing, mem0),
                Box::new(move |c| !(stall.0..stall.1).contains(&c) && !busy.permille(busy_pm)),
            ),
        )
        .with("background", Level::new("background", move |_| background as u64))
}

/// One frame's Done as the frame top's host saw it.
#[derive(Clone, Debug)]
pub struct HostDone {
    /// The cycle in which `done_valid` was high, and `done_frame`.
    pub cycle: u64,
    pub frame_id: u8,
    /// The memory in the Done cycle (before its edge).
    pub memory: tilerast_golden::memory_port::SparseMemory,
    /// Addresses in the frame's memory (`frame_owns`) written since the previous Done (or the
    /// start, or the last flush), and the words of its region set written before that (its
    /// front ran beside the frame before it).
    pub written: std::collections::BTreeSet<u32>,
}

/// The frame top's host, one agent of the lock-step harness: frames offered back to back on
/// `inp` (golden's beats, `frame_beats`, under `valid`; random bits on every payload field
/// while not valid), golden's memory behind `mem_req` → `mem_resp` holding the framebuffer of
/// the frame in flight, and the frames' ends on `done_valid` / `done_frame`.
///
/// The next frame is offered from the cycle after the current one's end token is taken (the
/// top takes it once its front is free: beside the pixel side's frame, one frame ahead at
/// most). At the Done edge the framebuffer is rewritten to the next frame's background; a flush (the memory drops its held reads at the same edge) offers
/// the frame in flight again from its first primitive, its framebuffer rewritten to its
/// background. Shared by `hw/tests/frame.rs` (rust-hdl) and `cosim/src/frame.rs` (Verilator
/// and gate level).
pub struct FrameHost {
    frames: Vec<tilerast_golden::scene::Frame>,
    beats: Vec<Vec<tilerast_golden::streams::PrimIn>>,
    valid: crate::lockstep::Ctl,
    junk: Rng,
    /// Golden's memory behind the port (the agent the host drives the port with).
    pub mem: crate::lockstep::Memory,
    offered: bool,
    /// The frame in flight (the next Done's), the frame offered and its next beat.
    in_flight: usize,
    offering: usize,
    next_beat: usize,
    written: std::collections::BTreeSet<u32>,
    /// Every Done so far.
    pub dones: Vec<HostDone>,
    /// Flushes that hit a frame in flight (offered in part, a later frame offered, or a
    /// request on the port).
    pub busy_flushes: u64,
    /// Cycles with a later frame offered and held off (the front still busy with the one
    /// before it).
    pub held_off: u64,
    /// Beats of a later frame taken before the next Done (frames in flight together).
    pub overlapped: u64,
    /// Beats taken that finished a frame two or more ahead of the next Done's (the front runs
    /// one frame ahead of the pixel side at most, so this stays 0).
    pub early: u64,
}

impl FrameHost {
    /// `frames` (one config; `Err` names the first that differs or whose primitives do not
    /// make beats) under `valid`, with `timing` and `grant` for the memory port; `junk` draws
    /// the idle payloads.
    pub fn new(
        frames: &[&tilerast_golden::scene::Frame],
        valid: crate::lockstep::Ctl,
        junk: Rng,
        timing: tilerast_golden::memory_port::MemTiming,
        grant: crate::lockstep::Ctl,
    ) -> Result<FrameHost, String> {
        let first = frames.first().ok_or("no frame")?;
        let mut beats = Vec::new();
        for (i, f) in frames.iter().enumerate() {
            if f.cfg != first.cfg {
                return Err(format!("frames[{i}].cfg differs from frames[0].cfg"));
            }
            beats.push(
                tilerast_golden::bin_setup::frame_beats(&f.prims, f.background)
                    .map_err(|e| format!("frames[{i}].{e}"))?,
            );
        }
        let mem = tilerast_golden::memory_port::MemoryCycle::new(
            timing,
            tilerast_golden::pixel_back_end::framebuffer(&first.cfg, first.background),
        );
        Ok(FrameHost {
            frames: frames.iter().map(|f| (*f).clone()).collect(),
            beats,
            valid,
            junk,
            mem: crate::lockstep::Memory::new("mem_req", "mem_resp", mem, grant),
            offered: false,
            in_flight: 0,
            offering: 0,
            next_beat: 0,
            written: Default::default(),
            dones: Vec::new(),
            busy_flushes: 0,
            held_off: 0,
            overlapped: 0,
            early: 0,
        })
    }

    /// Frames finished (every frame once all are).
    pub fn frames_done(&self) -> usize {
        self.in_flight
    }

    /// Every frame has had its Done.
    pub fn finished(&self) -> bool {
        self.in_flight == self.frames.len()
    }

    /// Rewrite the framebuffer to frame `f`'s background.
    fn clear_framebuffer(&mut self, f: usize) {
        let fr = &self.frames[f];
        for (a, w) in tilerast_golden::pixel_back_end::framebuffer(&fr.cfg, fr.background).words() {
            self.mem.mem.mem.write(a, w, 0xf);
        }
    }
}

impl crate::lockstep::Agent for FrameHost {
    fn drive(&mut self, cycle: u64, p: &mut tilerast_golden::cycle::Ports) {
        use tilerast_golden::streams::{ports, Stream};
        self.mem.drive(cycle, p);
        let left = self.offering < self.frames.len() && self.next_beat < self.beats[self.offering].len();
        self.offered = left && (self.valid)(cycle);
        let inp = if self.offered {
            self.beats[self.offering][self.next_beat]
        } else {
            // Junk while not valid: the top must ignore the payload without in_valid.
            let bits: Vec<u64> = ports::PrimIn::FIELDS
                .iter()
                .map(|f| match f.width {
                    64.. => self.junk.next_u64(),
                    w => self.junk.next_u64() & ((1u64 << w) - 1),
                })
                .collect();
            ports::PrimIn::from_bits(&bits)
        };
        p.set("in_valid", self.offered as u64);
        p.put_payload::<ports::PrimIn>("inp", &inp);
    }

    fn edge(&mut self, cycle: u64, i: &tilerast_golden::cycle::Ports, o: &tilerast_golden::cycle::Ports) {
        use tilerast_golden::streams::ports;
        let flush = i.bit("flush");
        let in_ready = o.bit("in_ready");
        let (req_valid, req) = (o.bit("mem_req_valid"), o.payload::<ports::MemReq>("mem_req"));
        let done = o.bit("done_valid");
        if flush {
            self.busy_flushes += (self.next_beat > 0 || self.offering > self.in_flight || req_valid) as u64;
        } else {
            if req_valid && i.bit("mem_req_ready") && req.write {
                self.written.insert(req.addr);
            }
            if self.offered && in_ready {
                self.overlapped += (self.offering > self.in_flight) as u64;
                self.next_beat += 1;
                if self.next_beat == self.beats[self.offering].len() {
                    (self.offering, self.next_beat) = (self.offering + 1, 0);
                }
                self.early += (self.offering > self.in_flight + 2) as u64;
            }
        }
        self.held_off += (self.offered && self.offering > self.in_flight && !in_ready) as u64;
        if done {
            // The frame's words go with its Done; the other set's (the next frame's) stay.
            let frame_id = o.get("done_frame").unwrap_or(0) as u8;
            let (written, rest) = std::mem::take(&mut self.written)
                .into_iter()
                .partition(|&a| tilerast_golden::frame::frame_owns(frame_id, a));
            self.written = rest;
            self.dones.push(HostDone {
                cycle,
                frame_id,
                memory: self.mem.mem.mem.clone(),
                written,
            });
        }
        self.mem.edge(cycle, i, o);
        if flush {
            (self.offering, self.next_beat) = (self.in_flight, 0);
            self.written.clear();
            self.clear_framebuffer(self.in_flight);
        } else if done {
            self.in_flight += 1;
            if self.in_flight < self.frames.len() {
                self.clear_framebuffer(self.in_flight);
            }
        }
    }

    fn summary(&self) -> String {
        format!(
            "frames: {} of {} done, {} busy flushes, {} cycles held off, {} beats of a later frame taken early; {}",
            self.in_flight,
            self.frames.len(),
            self.busy_flushes,
            self.held_off,
            self.overlapped,
            self.mem.summary()
        )
    }

    fn as_any(&self) -> &dyn std::any::Any {
        self
    }
}

/// The frame checks of the frame top's tests (`hw/tests/frame.rs`, `cosim::frame`, the
/// post-synthesis simulation). A frame's memory at Done against golden's `frame_memory` as
/// frame `fid`, word for word both ways (every word equal, absent = 0, and nothing written in
/// the frame's memory, `frame_owns`, outside golden's footprint: the other region set is the
/// next frame's, in flight), and its framebuffer's image against `render_frame`'s.
pub fn check_single(frame: &tilerast_golden::scene::Frame, fid: u8, got: &SparseMemory) -> Result<(), String> {
    let g = tilerast_golden::frame::frame_memory(frame, fid).map_err(|e| e.to_string())?;
    check_frame_memory(&g.memory, fid, got)?;
    check_image(frame, got)
}

/// Frame `fid`'s memory `got` against golden's `want` (its `frame_memory`), word for word both
/// ways: every word of `want` equal in `got` (absent = 0), and every word `got` holds in the
/// frame's memory (`frame_owns`: the framebuffer and the frame's region set; the other set is
/// the next frame's, in flight) inside `want`'s footprint.
pub fn check_frame_memory(want: &SparseMemory, fid: u8, got: &SparseMemory) -> Result<(), String> {
    if let Some((a, w, have)) = want
        .words()
        .map(|(a, w)| (a, w, got.read(a)))
        .find(|&(_, w, have)| w != have)
    {
        return Err(format!("memory word {a:#010x} is {have:#x}, golden {w:#x}"));
    }
    let footprint: std::collections::HashSet<u32> = want.words().map(|(a, _)| a).collect();
    if let Some((a, w)) = got
        .words()
        .find(|&(a, _)| tilerast_golden::frame::frame_owns(fid, a) && !footprint.contains(&a))
    {
        return Err(format!("word {a:#010x} = {w:#x} written outside golden's footprint"));
    }
    Ok(())
}

/// A later frame of a run (frame id `fid`): every word written in its memory (`frame_owns`)
/// is golden's, and so is every non-zero word golden has and the whole framebuffer (the
/// earlier frames' words stay where it writes none); its image is `render_frame`'s.
pub fn check_later(
    frame: &tilerast_golden::scene::Frame,
    fid: u8,
    memory: &SparseMemory,
    written: &std::collections::BTreeSet<u32>,
) -> Result<(), String> {
    let g = tilerast_golden::frame::frame_memory(frame, fid).map_err(|e| e.to_string())?;
    let bad = |a: u32| {
        let (have, want) = (memory.read(a), g.memory.read(a));
        (have != want).then(|| format!("word {a:#010x} is {have:#x}, golden {want:#x}"))
    };
    if let Some(e) = written
        .iter()
        .filter(|&&a| tilerast_golden::frame::frame_owns(fid, a))
        .find_map(|&a| bad(a))
    {
        return Err(format!("a word the frame wrote: {e}"));
    }
    if let Some(e) = g.memory.words().find_map(|(a, w)| {
        if w != 0 || a < tilerast_golden::frame::PRIMS {
            bad(a)
        } else {
            None
        }
    }) {
        return Err(format!("a word golden has: {e}"));
    }
    check_image(frame, memory)
}

fn check_image(frame: &tilerast_golden::scene::Frame, got: &SparseMemory) -> Result<(), String> {
    let want = tilerast_golden::pipeline::render_frame(frame)
        .map_err(|e| e.to_string())?
        .image;
    let have = tilerast_golden::output_merger::image_from_memory(&frame.cfg, got);
    if let Some(i) = (0..want.rgba.len() / 4).find(|&i| have.rgba[4 * i..4 * i + 4] != want.rgba[4 * i..4 * i + 4]) {
        return Err(format!(
            "image pixel (column {}, row {} from the top) is {:?}, golden {:?}",
            i % want.width as usize,
            i / want.width as usize,
            &have.rgba[4 * i..4 * i + 4],
            &want.rgba[4 * i..4 * i + 4]
        ));
    }
    Ok(())
}

/// `n` pixel clocks of one DVI channel for the TMDS encoder, video-like: lines of 1..40
/// active bytes (a run of one value, a ramp, or random bytes: runs push the running disparity
/// to its bounds; `ctrl` junk) between control periods of 0..5 clocks with random control
/// bits, half of them 00, whose `data` is junk (the encoder ignores it).
pub fn tmds_video(seed: u64, n: usize) -> Vec<TmdsIn> {
    let mut r = Rng::new(seed);
    let mut v = Vec::with_capacity(n);
    while v.len() < n {
        for _ in 0..r.below(6) {
            let ctrl = if r.below(2) == 0 { 0 } else { r.below(4) as u8 };
            v.push(TmdsIn {
                data: r.next_u32() as u8,
                de: false,
                ctrl,
            });
        }
        let len = 1 + r.below(40) as usize;
        let (kind, base) = (r.below(3), r.next_u32() as u8);
        for i in 0..len {
            let data = match kind {
                0 => base,
                1 => base.wrapping_add(i as u8),
                _ => r.next_u32() as u8,
            };
            v.push(TmdsIn {
                data,
                de: true,
                ctrl: r.below(4) as u8,
            });
        }
    }
    v.truncate(n);
    v
}

#[cfg(test)]
mod tests {
    use super::*;
    use tilerast_golden::frame::{PIXEL_INFO, PRIMS, SET_STRIDE};

    /// The frame-memory check: equal passes; a wrong word, a missing word and an extra word in
    /// the frame's memory fail, naming the word; a word of the other region set (the next
    /// frame's, in flight) is not the frame's and passes.
    #[test]
    fn check_frame_memory_fails_on_the_frames_words_only() {
        let mut want = SparseMemory::new();
        want.write(0x40, 7, 0xf);
        want.write(PRIMS + SET_STRIDE, 9, 0xf);
        let fid = 1;
        assert_eq!(check_frame_memory(&want, fid, &want.clone()), Ok(()));
        let mut wrong = want.clone();
        wrong.write(0x40, 8, 0xf);
        assert!(check_frame_memory(&want, fid, &wrong)
            .unwrap_err()
            .contains("0x00000040"));
        let mut missing = SparseMemory::new();
        missing.write(0x40, 7, 0xf);
        let e = check_frame_memory(&want, fid, &missing).unwrap_err();
        assert!(e.contains(&format!("{:#010x}", PRIMS + SET_STRIDE)), "{e}");
        let mut extra = want.clone();
        extra.write(PIXEL_INFO + SET_STRIDE, 1, 0xf);
        assert!(check_frame_memory(&want, fid, &extra)
            .unwrap_err()
            .contains("outside golden's footprint"));
        let mut other_set = want.clone();
        other_set.write(PIXEL_INFO, 1, 0xf);
        assert_eq!(check_frame_memory(&want, fid, &other_set), Ok(()));
    }
}
