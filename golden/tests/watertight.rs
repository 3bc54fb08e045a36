//! Watertightness of the seed 000 raster path (SPEC §2 fill rule): meshes that tile a region
//! containing the viewport — regular and jittered vertex grids, grids snapped to sub-tile
//! edges, triangle fans — cover every sample of the viewport exactly once, at every MSAA rate,
//! with every coverage test, with and without re-split. The total is asserted to equal
//! viewport pixels × S, and no sample may appear twice.

use proptest::prelude::*;
use tilerast_golden::config::{Config, CoverageTest};
use tilerast_golden::prim::TriangleFx;
use tilerast_golden::raster::{raster_triangle_into, RasterStats};
use tilerast_golden::samples::pixel_full_mask;
use tilerast_golden::setup::{setup_triangle, SetupReject};
use tilerast_verif::Rng;

type Tri = [[i32; 2]; 3];

/// Uniform in `lo..=hi` (fixed-point coordinates).
fn range(rng: &mut Rng, lo: i32, hi: i32) -> i32 {
    rng.range(lo as i64, hi as i64) as i32
}

fn cfg(preset: &str, viewport: Option<[u32; 2]>, msaa: u32, test: CoverageTest, resplit: bool) -> Config {
    let mut c = Config::preset(preset).unwrap();
    if let Some(v) = viewport {
        c.viewport = v;
        c.name = format!("{preset}-{}x{}", v[0], v[1]);
    }
    let block_px = c.colour_block_bytes / (4 * c.colours_per_pixel);
    c.msaa = msaa;
    c.coverage_test = test;
    c.colours_per_pixel = if resplit { 1 } else { msaa };
    c.colour_block_bytes = block_px * 4 * c.colours_per_pixel;
    c.validate().unwrap();
    c
}

/// Rasterize every triangle, check that no sample is covered twice and none lies outside the
/// viewport; return total covered samples (also asserting every pixel is fully covered).
fn cover_exactly_once(cfg: &Config, tris: &[Tri]) -> u64 {
    let (w, h) = (cfg.viewport[0] as usize, cfg.viewport[1] as usize);
    let s = cfg.msaa;
    let full = pixel_full_mask(s);
    let mut px = vec![0u16; w * h];
    let mut quads = Vec::new();
    let mut st = RasterStats::default();
    for (i, v) in tris.iter().enumerate() {
        let t = TriangleFx {
            v: *v,
            colour: [0; 4],
            depth: 0,
        };
        let su = match setup_triangle(cfg, &t) {
            Ok(su) => su,
            Err(SetupReject::ZeroArea) | Err(SetupReject::Offscreen) => continue,
            Err(e) => panic!("{e:?}"),
        };
        quads.clear();
        raster_triangle_into(cfg, &su, i as u32, &mut st, &mut quads);
        for q in &quads {
            assert_ne!(q.mask, 0, "empty quad {q:?}");
            for p in 0..4 {
                let m = q.pixel_mask(p, s);
                if m == 0 {
                    continue;
                }
                let (x, y) = q.pixel_xy(p);
                assert!(
                    (x as usize) < w && (y as usize) < h,
                    "{}: sample outside the viewport at ({x},{y})",
                    cfg.name
                );
                let cell = &mut px[y as usize * w + x as usize];
                assert_eq!(
                    *cell & m,
                    0,
                    "{} msaa {}: samples {:#x} of pixel ({x},{y}) covered twice (triangle {i} {v:?})",
                    cfg.name,
                    s,
                    *cell & m
                );
                *cell |= m;
            }
        }
    }
    for (i, m) in px.iter().enumerate() {
        assert_eq!(
            *m,
            full,
            "{} msaa {} {:?}: pixel ({},{}) has {:#x}",
            cfg.name,
            s,
            cfg.coverage_test,
            i % w,
            i / w,
            m
        );
    }
    let total: u64 = px.iter().map(|m| m.count_ones() as u64).sum();
    assert_eq!(st.sample.samples_covered, total, "stats vs output");
    total
}

/// Grid of `nx × ny` cells over the fixed-point rectangle `[x0, x1] × [y0, y1]`; interior
/// vertices jittered by up to `jitter` of a cell on each axis (< 0.25 keeps every cell convex, so
/// either diagonal splits it into two non-overlapping triangles), boundary vertices slide only along their boundary. Each cell is
/// split along a random diagonal; triangles are emitted in random winding.
fn grid(rng: &mut Rng, r: [i32; 4], nx: i32, ny: i32, jitter: f64) -> Vec<Tri> {
    let [x0, y0, x1, y1] = r;
    let cw = (x1 - x0) as f64 / nx as f64;
    let ch = (y1 - y0) as f64 / ny as f64;
    let jx = (cw * jitter) as i32;
    let jy = (ch * jitter) as i32;
    let mut p = vec![[0i32; 2]; ((nx + 1) * (ny + 1)) as usize];
    for j in 0..=ny {
        for i in 0..=nx {
            let mut x = if i == nx { x1 } else { x0 + (i as f64 * cw) as i32 };
            let mut y = if j == ny { y1 } else { y0 + (j as f64 * ch) as i32 };
            if i > 0 && i < nx && jx > 0 {
                x += range(rng, -jx, jx);
            }
            if j > 0 && j < ny && jy > 0 {
                y += range(rng, -jy, jy);
            }
            p[(j * (nx + 1) + i) as usize] = [x, y];
        }
    }
    let at = |i: i32, j: i32| p[(j * (nx + 1) + i) as usize];
    let mut out = Vec::new();
    for j in 0..ny {
        for i in 0..nx {
            let (a, b, c, d) = (at(i, j), at(i + 1, j), at(i + 1, j + 1), at(i, j + 1));
            let pair = if rng.bool() {
                [[a, b, c], [a, c, d]]
            } else {
                [[a, b, d], [b, c, d]]
            };
            for t in pair {
                out.push(if rng.bool() { t } else { [t[0], t[2], t[1]] });
            }
        }
    }
    out
}

/// Fan from `centre` (inside the rectangle) to its boundary: the 4 corners plus `extra`
/// random points per side, counter-clockwise; random winding per triangle.
fn fan(rng: &mut Rng, r: [i32; 4], centre: [i32; 2], extra: usize) -> Vec<Tri> {
    let [x0, y0, x1, y1] = r;
    let mut rim = Vec::new();
    let side = |rng: &mut Rng, a: i32, b: i32| {
        let mut v: Vec<i32> = (0..extra).map(|_| range(rng, a + 1, b - 1)).collect();
        v.sort();
        v.dedup();
        v
    };
    rim.push([x0, y0]);
    rim.extend(side(rng, x0, x1).into_iter().map(|x| [x, y0]));
    rim.push([x1, y0]);
    rim.extend(side(rng, y0, y1).into_iter().map(|y| [x1, y]));
    rim.push([x1, y1]);
    rim.extend(side(rng, x0, x1).into_iter().rev().map(|x| [x, y1]));
    rim.push([x0, y1]);
    rim.extend(side(rng, y0, y1).into_iter().rev().map(|y| [x0, y]));
    (0..rim.len())
        .map(|k| {
            let (a, b) = (rim[k], rim[(k + 1) % rim.len()]);
            if rng.bool() {
                [centre, a, b]
            } else {
                [centre, b, a]
            }
        })
        .collect()
}

/// The viewport in fixed point.
fn vp(c: &Config) -> [i32; 4] {
    [0, 0, c.viewport[0] as i32 * 256, c.viewport[1] as i32 * 256]
}

/// A rectangle reaching into the guard band on every side.
fn beyond(c: &Config) -> [i32; 4] {
    let g = c.guard_band.min(40) as i32 * 256;
    [
        -g + 37,
        -g + 11,
        c.viewport[0] as i32 * 256 + g - 5,
        c.viewport[1] as i32 * 256 + g - 77,
    ]
}

const TESTS: [CoverageTest; 3] = [CoverageTest::Edge, CoverageTest::Samples, CoverageTest::BboxOnly];

#[test]
fn grids_and_fans_cover_every_sample_once_at_every_rate() {
    let mut rng = Rng::new(0x1234_5678_9abc_def1);
    let mut k = 0;
    for (preset, viewport) in [
        ("ice40", None),
        ("default", Some([100, 75])),
        ("default", Some([130, 66])),
    ] {
        for msaa in [1, 2, 4, 8, 16] {
            for resplit in [false, true] {
                if resplit && msaa == 1 {
                    continue;
                }
                let test = TESTS[k % 3];
                k += 1;
                let c = cfg(preset, viewport, msaa, test, resplit);
                let n = c.viewport[0] as u64 * c.viewport[1] as u64 * msaa as u64;
                // Regular grid with fractional cell sizes.
                assert_eq!(cover_exactly_once(&c, &grid(&mut rng, vp(&c), 7, 5, 0.0)), n);
                // Jittered grid reaching into the guard band.
                assert_eq!(cover_exactly_once(&c, &grid(&mut rng, beyond(&c), 9, 6, 0.24)), n);
                // Grid on sub-tile edges: cells of exactly one sub-tile.
                let sub = [c.subtile[0] as i32 * 256, c.subtile[1] as i32 * 256];
                let r = [
                    0,
                    0,
                    sub[0] * c.viewport[0].div_ceil(c.subtile[0]) as i32,
                    sub[1] * c.viewport[1].div_ceil(c.subtile[1]) as i32,
                ];
                let cells = [r[2] / sub[0], r[3] / sub[1]];
                assert_eq!(cover_exactly_once(&c, &grid(&mut rng, r, cells[0], cells[1], 0.0)), n);
                // Fan from an interior point to the viewport's boundary.
                let centre = [
                    range(&mut rng, 256, vp(&c)[2] - 256),
                    range(&mut rng, 256, vp(&c)[3] - 256),
                ];
                assert_eq!(cover_exactly_once(&c, &fan(&mut rng, vp(&c), centre, 6)), n);
                // Fan from a sample position to a rectangle beyond the viewport.
                let centre = [
                    (c.viewport[0] as i32 / 2) * 256 + 16 * 6,
                    (c.viewport[1] as i32 / 3) * 256 + 16 * 10,
                ];
                assert_eq!(cover_exactly_once(&c, &fan(&mut rng, beyond(&c), centre, 4)), n);
            }
        }
    }
}

#[test]
fn default_and_full_presets_are_watertight() {
    let mut rng = Rng::new(0xfeed_beef_0bad_cafe);
    for (i, preset) in ["default", "full"].into_iter().enumerate() {
        let base = Config::preset(preset).unwrap();
        let c = cfg(preset, None, base.msaa, TESTS[i], base.resplit());
        let n = c.viewport[0] as u64 * c.viewport[1] as u64 * c.msaa as u64;
        assert!(n > 0);
        assert_eq!(cover_exactly_once(&c, &grid(&mut rng, beyond(&c), 23, 17, 0.24)), n);
        let centre = [
            range(&mut rng, 256, vp(&c)[2] - 256),
            range(&mut rng, 256, vp(&c)[3] - 256),
        ];
        assert_eq!(cover_exactly_once(&c, &fan(&mut rng, vp(&c), centre, 9)), n);
    }
}

proptest! {
    #![proptest_config(ProptestConfig::with_cases(48))]

    /// Random jittered grids and fans on small viewports, any rate / test / re-split.
    #[test]
    fn random_meshes_are_watertight(
        seed in 1u64..u64::MAX,
        w in 9u32..90,
        h in 9u32..70,
        ms in 0usize..5,
        t in 0usize..3,
        rs in any::<bool>(),
        nx in 1i32..12,
        ny in 1i32..12,
        jitter in 0.0f64..0.249,
    ) {
        let msaa = [1, 2, 4, 8, 16][ms];
        let c = cfg("ice40", Some([w, h]), msaa, TESTS[t], rs && msaa > 1);
        let mut rng = Rng::new(seed);
        let n = w as u64 * h as u64 * msaa as u64;
        prop_assert_eq!(cover_exactly_once(&c, &grid(&mut rng, beyond(&c), nx, ny, jitter)), n);
        let centre = [range(&mut rng, 1, vp(&c)[2] - 1), range(&mut rng, 1, vp(&c)[3] - 1)];
        prop_assert_eq!(cover_exactly_once(&c, &fan(&mut rng, vp(&c), centre, nx as usize)), n);
    }
}
