//! Seed 000 golden model (tile parser → sub-tile coverage → sample raster → quad packer)
//! against the brute-force reference, plus hand-worked cases for every counter, row / column
//! rejection, trivial accept, block sharing and the quad order contract.

use proptest::prelude::*;
use tilerast_golden::config::{Config, CoverageTest, CullMode};
use tilerast_golden::prim::{coverage_samples, quads_to_coverage, Quad, TriangleFx};
use tilerast_golden::raster::{
    raster_triangle, raster_triangle_tile, raster_triangle_tile_traced, RasterStats, Rasterizer,
};
use tilerast_golden::reference;
use tilerast_golden::samples;
use tilerast_golden::setup::{setup_triangle, SetupReject};
use tilerast_golden::subtile_coverage::SubtileFate;
use tilerast_verif::Rng;

// ───────────────────────────── configurations ─────────────────────────────

const TESTS: [CoverageTest; 3] = [CoverageTest::Edge, CoverageTest::Samples, CoverageTest::BboxOnly];

/// Base configurations: the three presets and two odd ones. The number is the pixel count of
/// one colour storage block (= second sub-tile) to keep when colours/pixel changes.
fn bases() -> Vec<(Config, u32)> {
    let ice = Config::preset("ice40").unwrap();
    let def = Config::preset("default").unwrap();
    let full = Config::preset("full").unwrap();
    // Odd viewport, second sub-tiles (16x16) larger than first sub-tiles (8x8).
    let mut odd = def.clone();
    odd.name = "odd100x75".into();
    odd.viewport = [100, 75];
    odd.guard_band = 64;
    // Non-square tiles and sub-tiles, second sub-tiles (4x2) smaller than first ones (4x4).
    let mut odd2 = def.clone();
    odd2.name = "odd50x37".into();
    odd2.viewport = [50, 37];
    odd2.guard_band = 40;
    odd2.tile = [32, 16];
    odd2.subtile = [4, 4];
    vec![(ice, 16), (def, 64), (full, 64), (odd, 256), (odd2, 8)]
}

/// One configuration: base, MSAA rate, coverage test, re-split on/off.
fn make(base: &(Config, u32), msaa: u32, test: CoverageTest, resplit: bool) -> Config {
    let mut c = base.0.clone();
    c.msaa = msaa;
    c.coverage_test = test;
    c.colours_per_pixel = if resplit { (msaa / 2).max(1) } else { msaa };
    c.colour_block_bytes = base.1 * 4 * c.colours_per_pixel;
    c.validate().unwrap();
    assert_eq!(c.resplit(), resplit);
    c
}

/// Every combination (re-split needs msaa > colours ≥ 1, so not at 1x).
fn all_configs() -> Vec<Config> {
    let mut v = Vec::new();
    for b in bases() {
        for msaa in [1, 2, 4, 8, 16] {
            for t in TESTS {
                for rs in [false, true] {
                    if rs && msaa == 1 {
                        continue;
                    }
                    v.push(make(&b, msaa, t, rs));
                }
            }
        }
    }
    v
}

// ───────────────────────────── triangle generators ─────────────────────────────

/// Build a triangle of class `kind` from raw numbers (deterministic, so proptest can shrink).
fn gen_tri(cfg: &Config, kind: u32, r: &[u32; 12]) -> [[i32; 2]; 3] {
    let (lo, hi) = cfg.guard_limits_fx();
    let (vw, vh) = (cfg.viewport[0] as i32 * 256, cfg.viewport[1] as i32 * 256);
    let big = cfg.viewport[0] * cfg.viewport[1] > 400_000;
    let pick = |v: u32, a: i32, b: i32| a + (v % ((b - a + 1) as u32)) as i32;
    let clampx = |x: i32| x.clamp(lo[0], hi[0]);
    let clampy = |y: i32| y.clamp(lo[1], hi[1]);
    // A window to draw from: the whole guard band on small viewports, a 320 px box on big ones
    // (keeps the brute-force reference affordable), placed anywhere incl. beyond the edges.
    let (wx0, wy0, wx1, wy1) = if big {
        let x0 = pick(r[0], lo[0], hi[0] - 320 * 256);
        let y0 = pick(r[1], lo[1], hi[1] - 320 * 256);
        (x0, y0, x0 + 320 * 256, y0 + 320 * 256)
    } else {
        (lo[0], lo[1], hi[0], hi[1])
    };
    let mut v = match kind % 7 {
        // Anywhere in the window: huge triangles spanning the guard band.
        0 => [0, 1, 2].map(|i| [pick(r[2 + 2 * i], wx0, wx1), pick(r[3 + 2 * i], wy0, wy1)]),
        // Small, near the viewport.
        1 => {
            let c = [pick(r[2], -2048, vw + 2048), pick(r[3], -2048, vh + 2048)];
            let rad = pick(r[4], 1, 40 * 256);
            [0, 1, 2].map(|i| {
                [
                    clampx(c[0] + pick(r[5 + 2 * i], -rad, rad)),
                    clampy(c[1] + pick(r[6 + 2 * i], -rad, rad)),
                ]
            })
        }
        // Sliver: a long segment and a third vertex a few units off a point on it.
        2 => {
            let a = [pick(r[2], wx0, wx1), pick(r[3], wy0, wy1)];
            let b = [pick(r[4], wx0, wx1), pick(r[5], wy0, wy1)];
            let t = pick(r[6], 0, 1000) as i64;
            let p = [
                a[0] + ((b[0] - a[0]) as i64 * t / 1000) as i32,
                a[1] + ((b[1] - a[1]) as i64 * t / 1000) as i32,
            ];
            [
                a,
                b,
                [clampx(p[0] + pick(r[7], -4, 4)), clampy(p[1] + pick(r[8], -4, 4))],
            ]
        }
        // Vertices exactly on sample positions (pixel + table offset).
        3 => {
            let offs = samples::offsets(cfg.msaa);
            let c = [
                pick(r[2], 0, cfg.viewport[0] as i32),
                pick(r[3], 0, cfg.viewport[1] as i32),
            ];
            [0, 1, 2].map(|i| {
                let o = offs[r[4 + i] as usize % offs.len()];
                let px = c[0] + pick(r[7 + i], -12, 12);
                let py = c[1] + pick(r[10 - i], -12, 12);
                [clampx(px * 256 + o.0 as i32 * 16), clampy(py * 256 + o.1 as i32 * 16)]
            })
        }
        // Vertices on sub-tile / tile edges (multiples of 256·subtile), sometimes nudged by 1.
        4 => {
            let g = [256 * cfg.subtile[0] as i32, 256 * cfg.subtile[1] as i32];
            let c = [
                pick(r[2], 0, cfg.viewport[0] as i32 / cfg.subtile[0] as i32),
                pick(r[3], 0, cfg.viewport[1] as i32 / cfg.subtile[1] as i32),
            ];
            [0, 1, 2].map(|i| {
                let nudge = [0, 0, 1, -1][r[4 + i] as usize % 4];
                [
                    clampx((c[0] + pick(r[5 + i], -3, 3)) * g[0] + nudge),
                    clampy((c[1] + pick(r[8 + i], -3, 3)) * g[1]),
                ]
            })
        }
        // Degenerate: collinear or repeated vertices.
        5 => {
            let a = [pick(r[2], wx0, wx1), pick(r[3], wy0, wy1)];
            let d = [pick(r[4], -4096, 4096), pick(r[5], -4096, 4096)];
            let k = pick(r[6], -2, 3);
            [
                a,
                [clampx(a[0] + d[0]), clampy(a[1] + d[1])],
                [clampx(a[0] + k * d[0]), clampy(a[1] + k * d[1])],
            ]
        }
        // Thin axis-aligned-ish triangle crossing many tiles (row / column rejection).
        _ => {
            let y = pick(r[2], wy0, wy1);
            let x0 = pick(r[3], wx0, wx1);
            let x1 = pick(r[4], wx0, wx1);
            [
                [x0, y],
                [x1, clampy(y + pick(r[5], -300, 300))],
                [pick(r[6], wx0, wx1), clampy(y + pick(r[7], -600, 600))],
            ]
        }
    };
    // Random vertex order: both windings.
    let p = r[11] % 6;
    let perm = [[0, 1, 2], [0, 2, 1], [1, 0, 2], [1, 2, 0], [2, 0, 1], [2, 1, 0]][p as usize];
    v = [v[perm[0]], v[perm[1]], v[perm[2]]];
    v
}

// ───────────────────────────── checks ─────────────────────────────

/// The documented order key of a quad: tile row, tile column, group row, group column, quad
/// row, quad column (groups: second sub-tiles when re-splitting, first sub-tiles otherwise).
fn order_key(cfg: &Config, q: &Quad) -> [u32; 6] {
    let (px, py) = (2 * q.qx as u32, 2 * q.qy as u32);
    let (tx, ty) = (px / cfg.tile[0], py / cfg.tile[1]);
    let g = if cfg.resplit() {
        cfg.second_subtile()
    } else {
        cfg.subtile
    };
    let (gx, gy) = ((px - tx * cfg.tile[0]) / g[0], (py - ty * cfg.tile[1]) / g[1]);
    [ty, tx, gy, gx, q.qy as u32, q.qx as u32]
}

/// Model vs reference for one triangle, plus stats consistency and the order contract.
fn check(cfg: &Config, v: [[i32; 2]; 3]) -> Result<(), TestCaseError> {
    let t = TriangleFx {
        v,
        colour: [1, 2, 3, 4],
        depth: 0,
    };
    let want = reference::triangle(cfg, &t, &mut Default::default());
    let s = match setup_triangle(cfg, &t) {
        Ok(s) => s,
        Err(SetupReject::ZeroArea | SetupReject::Offscreen | SetupReject::Culled) => {
            prop_assert!(
                want.is_empty(),
                "setup rejected {:?} but the reference covers samples",
                v
            );
            return Ok(());
        }
    };
    let mut st = RasterStats::default();
    let quads = raster_triangle(cfg, &s, 7, &mut st);
    let got = quads_to_coverage(&quads, cfg.msaa);
    prop_assert!(
        got.is_ok(),
        "{}: quad contract broken: {:?} for {:?}",
        cfg.name,
        got.err(),
        v
    );
    let got = got.unwrap();
    prop_assert_eq!(
        &got,
        &want,
        "{} msaa {} {:?} resplit {}: {:?}",
        cfg.name,
        cfg.msaa,
        cfg.coverage_test,
        cfg.resplit(),
        v
    );
    prop_assert!(quads.iter().all(|q| q.prim == 7));
    // Counters agree with each other and with the output.
    let c = &st.coverage;
    prop_assert_eq!(
        c.walked,
        c.subtiles_rejected_row + c.subtiles_rejected_col + c.subtiles_rejected_test + c.trivial + c.partial
    );
    prop_assert_eq!(c.walked, st.parser.subtiles);
    prop_assert_eq!(st.sample.samples_covered, coverage_samples(&want));
    prop_assert_eq!(st.packer.quads, quads.len() as u64);
    prop_assert!(st.sample.samples_tested <= s.bbox.pixels() * cfg.msaa as u64);
    if cfg.coverage_test == CoverageTest::BboxOnly {
        prop_assert_eq!(c.trivial + c.subtiles_rejected_test, 0);
    }
    // Order contract: strictly increasing keys (also proves no quad is emitted twice).
    for w in quads.windows(2) {
        prop_assert!(
            order_key(cfg, &w[0]) < order_key(cfg, &w[1]),
            "order: {:?} then {:?}",
            w[0],
            w[1]
        );
    }
    Ok(())
}

// ───────────────────────────── random tests ─────────────────────────────

proptest! {
    #![proptest_config(ProptestConfig::with_cases(256))]

    /// Random configuration × random triangle class.
    #[test]
    fn model_matches_reference(ci in 0usize..1000, kind in 0u32..7, r in prop::array::uniform12(0u32..u32::MAX), cull in 0u8..4) {
        let cfgs = all_configs();
        let mut cfg = cfgs[ci % cfgs.len()].clone();
        cfg.cull = match cull { 1 => CullMode::Cw, 2 => CullMode::Ccw, _ => CullMode::None };
        check(&cfg, gen_tri(&cfg, kind, &r))?;
    }
}

/// Every configuration combination (5 bases × MSAA × coverage test × re-split) with each
/// triangle class, from a fixed pseudo-random stream.
#[test]
fn every_config_every_class() {
    let mut rng = Rng::new(0x9e37_79b9_7f4a_7c15);
    let mut next = || rng.next_u32();
    let mut nonempty = 0;
    for cfg in all_configs() {
        for kind in 0..7 {
            let r: [u32; 12] = std::array::from_fn(|_| next());
            let v = gen_tri(&cfg, kind, &r);
            check(&cfg, v).unwrap();
            let t = TriangleFx {
                v,
                colour: [0; 4],
                depth: 0,
            };
            nonempty += !reference::triangle(&cfg, &t, &mut Default::default()).is_empty() as u32;
        }
    }
    // The sweep must exercise real coverage, not just rejected triangles.
    assert!(nonempty > 300, "only {nonempty} covering triangles");
}

/// Streaming (quads straight from the sample rasterizer when groups are first sub-tiles) and
/// the general recombine-then-pack path give the same quads, order and counters, and the
/// general path also matches the reference.
#[test]
fn streaming_equals_recombining() {
    let mut rng = Rng::new(0x51ed_270b_1f0c_a4e3);
    let mut next = || rng.next_u32();
    let (mut a, mut b) = (Rasterizer::new(), Rasterizer::new_recombining());
    let mut compared = 0;
    for cfg in all_configs() {
        for kind in 0..7 {
            let r: [u32; 12] = std::array::from_fn(|_| next());
            let t = TriangleFx {
                v: gen_tri(&cfg, kind, &r),
                colour: [0; 4],
                depth: 0,
            };
            let Ok(s) = setup_triangle(&cfg, &t) else { continue };
            let (mut qa, mut qb) = (Vec::new(), Vec::new());
            let (mut sa, mut sb) = (RasterStats::default(), RasterStats::default());
            a.triangle(&cfg, &s, 1, &mut sa, &mut qa);
            b.triangle(&cfg, &s, 1, &mut sb, &mut qb);
            assert_eq!(qa, qb, "{} {:?}", cfg.name, t.v);
            assert_eq!(sa, sb, "{} {:?}", cfg.name, t.v);
            assert_eq!(
                quads_to_coverage(&qb, cfg.msaa).unwrap(),
                reference::triangle(&cfg, &t, &mut Default::default())
            );
            compared += !qa.is_empty() as u32;
        }
    }
    assert!(compared > 300, "{compared}");
}

// ───────────────────────────── hand-worked cases ─────────────────────────────

fn tri(v: [[i32; 2]; 3]) -> TriangleFx {
    TriangleFx {
        v,
        colour: [0; 4],
        depth: 0,
    }
}

/// `default` preset (640x480, 32x32 tiles, 8x8 sub-tiles → 4x4 grid) at `msaa` with `test`,
/// colours = samples (no re-split).
fn def(msaa: u32, test: CoverageTest) -> Config {
    let mut c = Config::preset("default").unwrap();
    c.msaa = msaa;
    c.colours_per_pixel = msaa;
    c.colour_block_bytes = 256 * msaa;
    c.coverage_test = test;
    c.validate().unwrap();
    c
}

const PX: i32 = 256;

/// Small triangle (8,8),(16,8),(8,16) px in tile (0,0) of `default`, 1 sample per pixel.
///
/// Bounding box: pixels x 8..=16, y 8..=16 (a vertex at 16.0 px touches pixel 16).
/// Sub-tile rows: 0 = y 0..7 (miss), 1 = y 8..15 (hit), 2 = y 16..23 (hit, y = 16),
/// 3 = y 24..31 (miss) → 2 rows rejected = 8 sub-tiles, in one step each.
/// Surviving rows 1, 2: columns 0 (x 0..7) and 3 (x 24..31) miss → 4 column rejections.
/// Left: (1,1), (2,1), (1,2), (2,2). The hypotenuse keeps x + y < 24 (direction (-8,+8),
/// dy > 0: exclusive). Edge test, corner where x + y is smallest: (16,8), (8,16), (16,16) give
/// x + y ≥ 24 → rejected; (1,1) at (8,8) passes. Its sample hull (8.5..15.5)² reaches
/// x + y = 31 → not trivial → 1 partial. Samples test: hull corners (16.5,8.5) etc. all have
/// x + y ≥ 25 → the same 3 rejections.
/// Covered: pixel centres (8+i+.5, 8+j+.5) with i + j + 1 < 8 → i + j ≤ 6 → 28 samples.
/// Quads (8,8)+: quad (4+a, 4+b) has pixel sums 2a+2b + {0,1,1,2}; non-empty iff a + b ≤ 3.
#[test]
fn row_and_column_rejection_by_hand() {
    let v = [[8 * PX, 8 * PX], [16 * PX, 8 * PX], [8 * PX, 16 * PX]];
    for (test, rejected_test, partial, tested) in [
        (CoverageTest::Edge, 3, 1, 64),
        (CoverageTest::Samples, 3, 1, 64),
        // No third step: all 4 survivors are rasterized, over sub-tile ∩ bbox = the 9x9 bbox.
        (CoverageTest::BboxOnly, 0, 4, 81),
    ] {
        let cfg = def(1, test);
        let s = setup_triangle(&cfg, &tri(v)).unwrap();
        let mut st = RasterStats::default();
        let mut fates = Vec::new();
        let mut q = Vec::new();
        raster_triangle_tile_traced(&cfg, &s, 3, [0, 0], &mut st, &mut q, |sub, f| {
            fates.push((sub.col, sub.row, f))
        });
        let c = st.coverage;
        assert_eq!(
            (
                c.walked,
                c.rows_rejected,
                c.subtiles_rejected_row,
                c.subtiles_rejected_col
            ),
            (16, 2, 8, 4),
            "{test:?}"
        );
        assert_eq!(
            (c.subtiles_rejected_test, c.trivial, c.partial),
            (rejected_test, 0, partial),
            "{test:?}"
        );
        assert_eq!(
            (st.parser.tiles, st.parser.subtiles, st.parser.subtiles_clipped),
            (1, 16, 0)
        );
        assert_eq!(
            (
                st.sample.samples_tested,
                st.sample.samples_trivial,
                st.sample.samples_covered
            ),
            (tested, 0, 28)
        );
        // 10 quads, all from sub-tile (1,1): one group. No re-split: no second sub-tiles.
        assert_eq!((st.packer.quads, st.packer.groups), (10, 1));
        assert_eq!(
            (
                st.packer.second_subtiles,
                st.packer.storage_blocks,
                st.packer.shared_blocks
            ),
            (0, 0, 0)
        );
        assert_eq!((st.packer.block_pixels_stored, st.packer.block_pixel_capacity), (0, 0));
        // Fates in walk order: row 0 all RejectedRow, row 1: col 0 RejectedColumn, ...
        use SubtileFate::*;
        let second = if test == CoverageTest::BboxOnly {
            Partial
        } else {
            RejectedTest
        };
        let want = vec![
            (0, 0, RejectedRow),
            (1, 0, RejectedRow),
            (2, 0, RejectedRow),
            (3, 0, RejectedRow),
            (0, 1, RejectedColumn),
            (1, 1, Partial),
            (2, 1, second),
            (3, 1, RejectedColumn),
            (0, 2, RejectedColumn),
            (1, 2, second),
            (2, 2, second),
            (3, 2, RejectedColumn),
            (0, 3, RejectedRow),
            (1, 3, RejectedRow),
            (2, 3, RejectedRow),
            (3, 3, RejectedRow),
        ];
        assert_eq!(fates, want);
        // Exact quad sequence (1x: mask bit i = pixel i; pixel sums 2a+2b+{0,1,1,2} ≤ 6).
        let want: Vec<Quad> = [
            (4, 4, 0xF),
            (5, 4, 0xF),
            (6, 4, 0xF),
            (7, 4, 0x1),
            (4, 5, 0xF),
            (5, 5, 0xF),
            (6, 5, 0x1),
            (4, 6, 0xF),
            (5, 6, 0x1),
            (4, 7, 0x1),
        ]
        .iter()
        .map(|&(qx, qy, mask)| Quad { prim: 3, qx, qy, mask })
        .collect();
        assert_eq!(q, want);
    }
}

/// Right triangle (0,0),(32,0),(0,32) px at 1x in tile (0,0): inside iff x + y < 32.
/// Sub-tile (c,r) = [8c, 8c+8) × [8r, 8r+8); its 1x sample hull (8c+.5 .. 8c+7.5, ...).
/// Trivial: far hull corner 8(c+r) + 15 < 32 ⇔ c + r ≤ 2 → 6 sub-tiles.
/// Edge reject: near area corner 8(c+r) ≥ 32 ⇔ c + r ≥ 4 → 3 + 2 + 1 = 6.
/// Samples reject: near hull corner 8(c+r) + 1 ≥ 32 ⇔ c + r ≥ 4 → 6. Partial: c + r = 3 → 4.
/// Covered: (i+.5) + (j+.5) < 32 ⇔ i + j ≤ 30 → 496 of 1024 pixels; quads (a,b) non-empty iff
/// 2a + 2b ≤ 30 → 136. The bbox covers every row and column of the tile: no rejection there.
#[test]
fn trivial_accept_and_edge_test_by_hand() {
    let v = [[0, 0], [32 * PX, 0], [0, 32 * PX]];
    for (test, rej, triv, part) in [
        (CoverageTest::Edge, 6, 6, 4),
        (CoverageTest::Samples, 6, 6, 4),
        (CoverageTest::BboxOnly, 0, 0, 16),
    ] {
        let cfg = def(1, test);
        let s = setup_triangle(&cfg, &tri(v)).unwrap();
        let mut st = RasterStats::default();
        let q = raster_triangle_tile(&cfg, &s, 0, [0, 0], &mut st);
        let c = st.coverage;
        assert_eq!(
            (
                c.walked,
                c.rows_rejected,
                c.subtiles_rejected_row,
                c.subtiles_rejected_col
            ),
            (16, 0, 0, 0)
        );
        assert_eq!(
            (c.subtiles_rejected_test, c.trivial, c.partial),
            (rej, triv, part),
            "{test:?}"
        );
        // Tested: partial sub-tiles × 64 px (bbox covers the whole tile); trivial: 64 px each.
        assert_eq!(st.sample.samples_tested, part * 64);
        assert_eq!(st.sample.samples_trivial, triv * 64);
        assert_eq!(st.sample.samples_covered, 496);
        assert_eq!(st.packer.quads, 136);
        // Groups: every sub-tile with c + r ≤ 3 holds covered pixels → 10.
        assert_eq!(st.packer.groups, 10);
        assert_eq!(q.len(), 136);
    }
}

/// Same triangle grown to 32.5 px: x + y < 32.5. The Samples test is tighter than the Edge
/// test: Edge rejects iff 8(c+r) ≥ 32.5 ⇔ c + r ≥ 5 → 3; Samples iff 8(c+r) + 1 ≥ 32.5 ⇔
/// c + r ≥ 4 → 6. Trivial (8(c+r) + 15 < 32.5 ⇔ c + r ≤ 2) → 6 in both. Coverage identical:
/// i + j + 1 < 32.5 ⇔ i + j ≤ 31 → 496 + 32 = 528 samples.
#[test]
fn samples_test_is_tighter_than_edge_test() {
    let v = [[0, 0], [32 * PX + 128, 0], [0, 32 * PX + 128]];
    for (test, rej, part) in [(CoverageTest::Edge, 3, 7), (CoverageTest::Samples, 6, 4)] {
        let cfg = def(1, test);
        let s = setup_triangle(&cfg, &tri(v)).unwrap();
        let mut st = RasterStats::default();
        let q = raster_triangle_tile(&cfg, &s, 0, [0, 0], &mut st);
        assert_eq!(
            (
                st.coverage.subtiles_rejected_test,
                st.coverage.trivial,
                st.coverage.partial
            ),
            (rej, 6, part),
            "{test:?}"
        );
        assert_eq!(st.sample.samples_covered, 528);
        assert_eq!(
            quads_to_coverage(&q, 1).unwrap(),
            reference::triangle(&cfg, &tri(v), &mut Default::default())
        );
    }
}

/// raster_triangle on the 32 px right triangle walks the 4 tiles its bbox (pixels 0..=32)
/// meets. Tile (0,0) as above. Tile (1,0) (x 32..63): bbox x = 32 only → columns 1..3
/// rejected (12); column 0 (x 32..40) fails the edge test at (32, 8r) → 4. Tile (0,1):
/// bbox y = 32 only → rows 1..3 rejected (3 rows, 12 sub-tiles); row 0's 4 sub-tiles fail the
/// edge test. Tile (1,1): rows 1..3 rejected (12), row 0: columns 1..3 rejected (3), (0,0)
/// fails the edge test (1). Totals: 64 walked, 6 rows / 24 sub-tiles by row, 15 by column,
/// 6 + 4 + 4 + 1 = 15 by test, 6 trivial, 4 partial.
#[test]
fn multi_tile_walk_by_hand() {
    let cfg = def(1, CoverageTest::Edge);
    let v = [[0, 0], [32 * PX, 0], [0, 32 * PX]];
    let s = setup_triangle(&cfg, &tri(v)).unwrap();
    let mut st = RasterStats::default();
    let q = raster_triangle(&cfg, &s, 0, &mut st);
    let c = st.coverage;
    assert_eq!(st.parser.tiles, 4);
    assert_eq!(
        (
            c.walked,
            c.rows_rejected,
            c.subtiles_rejected_row,
            c.subtiles_rejected_col
        ),
        (64, 6, 24, 15)
    );
    assert_eq!((c.subtiles_rejected_test, c.trivial, c.partial), (15, 6, 4));
    assert_eq!(q.len(), 136);
    // Stats add up across calls.
    let mut a = RasterStats::default();
    for t in [[0, 0], [1, 0], [0, 1], [1, 1]] {
        let mut one = RasterStats::default();
        raster_triangle_tile(&cfg, &s, 0, t, &mut one);
        a.add(&one);
    }
    assert_eq!(a, st);
}

/// Quad order with and without re-split, hand-worked. `default` at 2x, triangle
/// (4,0),(12,0),(4,8) px: pixel (4+u, y) has bit 0 iff u + y ≤ 6, bit 1 iff u + y ≤ 7 (see
/// sample_raster's unit test). Quad (qx,qy) pixel sums s = 2qx − 4 + 2qy + {0,1,1,2};
/// mask per pixel: s ≤ 6 → 0b11, s = 7 → 0b10; quad mask = Σ m_i << 2i. Non-empty iff
/// qx + qy ≤ 5 (qx ≥ 2): row 0: qx 2..5, row 1: 2..4, row 2: 2..3, row 3: 2.
/// Masks: sums {0..6} only → 0xFF; sums {6,7,7,8} → 0b00_10_10_11 = 0x2B.
/// Without re-split (colours = samples) groups are first sub-tiles (8x8): sub-tile (0,0)
/// holds qx 2,3; sub-tile (1,0) holds qx 4,5. With re-split (1 colour, 1024-byte blocks →
/// 16x16 second sub-tiles) it is one group: plain row order.
#[test]
fn quad_order_first_vs_second_subtiles_by_hand() {
    let v = [[4 * PX, 0], [12 * PX, 0], [4 * PX, 8 * PX]];
    let q = |l: &[(u16, u16, u64)]| {
        l.iter()
            .map(|&(qx, qy, mask)| Quad { prim: 9, qx, qy, mask })
            .collect::<Vec<_>>()
    };
    let first = q(&[
        (2, 0, 0xFF),
        (3, 0, 0xFF),
        (2, 1, 0xFF),
        (3, 1, 0xFF),
        (2, 2, 0xFF),
        (3, 2, 0x2B),
        (2, 3, 0x2B),
        (4, 0, 0xFF),
        (5, 0, 0x2B),
        (4, 1, 0x2B),
    ]);
    let second = q(&[
        (2, 0, 0xFF),
        (3, 0, 0xFF),
        (4, 0, 0xFF),
        (5, 0, 0x2B),
        (2, 1, 0xFF),
        (3, 1, 0xFF),
        (4, 1, 0x2B),
        (2, 2, 0xFF),
        (3, 2, 0x2B),
        (2, 3, 0x2B),
    ]);
    for (colours, want, groups) in [(2, &first, 2), (1, &second, 1)] {
        let mut cfg = Config::preset("default").unwrap();
        cfg.msaa = 2;
        cfg.colours_per_pixel = colours;
        cfg.colour_block_bytes = 1024;
        cfg.validate().unwrap();
        let s = setup_triangle(&cfg, &tri(v)).unwrap();
        let mut st = RasterStats::default();
        let got = raster_triangle_tile(&cfg, &s, 9, [0, 0], &mut st);
        assert_eq!(&got, want, "colours {colours}");
        // 6 × 8 + 4 × 4 covered samples = 64.
        assert_eq!(st.sample.samples_covered, 64);
        assert_eq!((st.packer.quads, st.packer.groups), (10, groups));
        if colours == 1 {
            // Re-split of a full 32x32 tile into 16x16: 4 second sub-tiles, 4 blocks, none
            // shared, 1024 pixels in 1024 pixels of capacity.
            let p = st.packer;
            assert_eq!((p.second_subtiles, p.storage_blocks, p.shared_blocks), (4, 4, 0));
            assert_eq!((p.block_pixels_stored, p.block_pixel_capacity), (1024, 1024));
        } else {
            assert_eq!(st.packer.second_subtiles, 0);
        }
    }
}

/// `full` at 1080p with one colour per pixel and 1024-byte blocks → 256-px 16x16 second
/// sub-tiles. The top tile row (ty = 16) covers y 1024..1079: 56 rows = 3·16 + 8. The last
/// row of second sub-tiles is 16x8 = 128 px ≤ 256/2: its 4 pieces pair up into 2 shared
/// blocks. Blocks: 3·4 + 2 = 14 (16 without sharing); capacity 14·256 = 3584 = 64·56 stored:
/// utilisation 1.0 (0.875 without sharing).
#[test]
fn edge_second_subtiles_share_blocks_1080p() {
    let mut cfg = Config::preset("full").unwrap();
    cfg.colours_per_pixel = 1;
    cfg.colour_block_bytes = 1024;
    cfg.validate().unwrap();
    assert_eq!(cfg.second_subtile(), [16, 16]);
    // A triangle covering the whole tile (5,16): x 320..383, y 1024..1079 and beyond.
    let v = [[300 * PX, 1000 * PX], [500 * PX, 1000 * PX], [300 * PX, 1200 * PX]];
    let s = setup_triangle(&cfg, &tri(v)).unwrap();
    let mut st = RasterStats::default();
    let q = raster_triangle_tile(&cfg, &s, 0, [5, 16], &mut st);
    let p = st.packer;
    assert_eq!((p.second_subtiles, p.storage_blocks, p.shared_blocks), (16, 14, 2));
    assert_eq!((p.block_pixels_stored, p.block_pixel_capacity), (3584, 3584));
    assert_eq!(p.block_utilisation(), 1.0);
    // Inside x + y < 1500: every pixel of the tile (max 383 + 1079 = 1462) at 16x.
    assert_eq!(st.sample.samples_covered, 64 * 56 * 16);
    // 8x8 first sub-tiles: 8 columns x 7 rows, all trivially accepted; none clipped (56 = 7·8).
    assert_eq!((st.coverage.walked, st.coverage.trivial), (56, 56));
    assert_eq!(st.parser.subtiles_clipped, 0);
    // Every quad full (64 bits); 32 x 28 quads; 16 groups, each non-empty.
    assert_eq!(q.len(), 32 * 28);
    assert!(q.iter().all(|q| q.mask == u64::MAX));
    assert_eq!(p.groups, 16);
    // The first group is the 16x16 piece at the tile origin: its 8 quads of row 512 first.
    assert_eq!((q[0].qx, q[0].qy, q[7].qx, q[8].qx, q[8].qy), (160, 512, 167, 160, 513));
}

/// 100x75 viewport, 32x32 tiles, 8x8 first sub-tiles, 16x16 second sub-tiles. Tile (3,0) is
/// x 96..99 (4 px wide), y 0..31: first sub-tiles 1 column (clipped to 4 px) x 4 rows, all
/// clipped; second sub-tiles 4x16 = 64 px ≤ 128 → both small, 64 + 64 ≤ 256 → one shared
/// block holding 128 px of 256. A triangle covering the whole tile at 4x: 4 trivial
/// sub-tiles, 4·32·4 = 512 samples, 2 groups of 2x8 = 16 quads each, piece 0 (y 0..15) first.
/// Tile (3,2) (x 96..99, y 64..74): 1 column x 2 rows (8 + 3 px), both clipped; one 4x11
/// piece = 44 px, small but alone: 1 block, not shared.
#[test]
fn clipped_tile_pieces_share_one_block() {
    let mut cfg = Config::preset("default").unwrap();
    cfg.viewport = [100, 75];
    cfg.colour_block_bytes = 1024;
    cfg.validate().unwrap();
    let v = [[-100 * PX, -100 * PX], [300 * PX, -100 * PX], [-100 * PX, 300 * PX]];
    let s = setup_triangle(&cfg, &tri(v)).unwrap();
    let mut st = RasterStats::default();
    let q = raster_triangle_tile(&cfg, &s, 0, [3, 0], &mut st);
    assert_eq!((st.parser.subtiles, st.parser.subtiles_clipped), (4, 4));
    assert_eq!(
        (st.coverage.walked, st.coverage.trivial, st.coverage.partial),
        (4, 4, 0)
    );
    assert_eq!(
        (
            st.sample.samples_trivial,
            st.sample.samples_tested,
            st.sample.samples_covered
        ),
        (512, 0, 512)
    );
    let p = st.packer;
    assert_eq!((p.second_subtiles, p.storage_blocks, p.shared_blocks), (2, 1, 1));
    assert_eq!((p.block_pixels_stored, p.block_pixel_capacity), (128, 256));
    assert_eq!((p.quads, p.groups), (32, 2));
    let order: Vec<(u16, u16)> = q.iter().map(|q| (q.qx, q.qy)).collect();
    let want: Vec<(u16, u16)> = (0..16).flat_map(|qy| [(48, qy), (49, qy)]).collect();
    assert_eq!(order, want);

    let mut st = RasterStats::default();
    let q = raster_triangle_tile(&cfg, &s, 0, [3, 2], &mut st);
    assert_eq!((st.parser.subtiles, st.parser.subtiles_clipped), (2, 2));
    let p = st.packer;
    assert_eq!((p.second_subtiles, p.storage_blocks, p.shared_blocks), (1, 1, 0));
    assert_eq!((p.block_pixels_stored, p.block_pixel_capacity), (44, 256));
    // 4 x 11 pixels x 4 samples, in 2 x 6 quads (the top quad row is half outside).
    assert_eq!(st.sample.samples_covered, 176);
    assert_eq!(q.len(), 12);
    assert_eq!(quads_to_coverage(&q, 4).unwrap().len(), 44);
}

/// Exclusive hypotenuse through the centre of a sub-tile's far corner pixel: right triangle
/// (0,0),(31,0),(0,31) px at 1x, inside iff x + y < 31. Sub-tiles with c + r = 2 have their
/// far hull corner at 8·2 + 15 = 31, exactly on the edge → excluded → not trivial.
/// Trivial: c + r ≤ 1 → 3. Rejected (Edge: 8(c+r) ≥ 31; Samples: 8(c+r) + 1 ≥ 31) ⇔
/// c + r ≥ 4 → 6. Partial 16 − 3 − 6 = 7. Covered: i + j + 1 < 31 ⇔ i + j ≤ 29 →
/// Σ_{s=0}^{29} (s+1) = 465.
#[test]
fn trivial_accept_excludes_a_corner_sample_on_an_exclusive_edge() {
    let v = [[0, 0], [31 * PX, 0], [0, 31 * PX]];
    for test in [CoverageTest::Edge, CoverageTest::Samples] {
        let cfg = def(1, test);
        let s = setup_triangle(&cfg, &tri(v)).unwrap();
        let mut st = RasterStats::default();
        let q = raster_triangle_tile(&cfg, &s, 0, [0, 0], &mut st);
        assert_eq!(
            (
                st.coverage.trivial,
                st.coverage.subtiles_rejected_test,
                st.coverage.partial
            ),
            (3, 6, 7),
            "{test:?}"
        );
        assert_eq!(st.sample.samples_covered, 465);
        assert_eq!(
            quads_to_coverage(&q, 1).unwrap(),
            reference::triangle(&cfg, &tri(v), &mut Default::default())
        );
    }
}

/// The edge test must keep a sub-tile whose only covered sample sits next to the area corner
/// where the edge is largest. 16x, triangle V2 (100,0) → V1 (2148,2048) → V0 (100,2049) in
/// 1/256 px (counter-clockwise). Top edge V1→V0: a = −1, b = −2048, biased value
/// (2148 − x) + 2048·(2048 − y) − 1 (dy > 0: exclusive). Over sub-tile (1,1)'s area
/// [2048, 4096]² it is largest at corner (2048, 2048): 99 ≥ 0 → kept. Sample 15 (offset (1,0)
/// /16) of pixel (8,8) is at (2064, 2048): 83 ≥ 0, and inside the other two edges (x = y + 100
/// at y = 2048 is 2148 > 2064; x ≥ 100). Every other sample of that pixel has y ≥ 2064 →
/// negative. So pixel (8,8) has exactly mask 1 << 15, the only covered sample in (1,1).
#[test]
fn edge_test_keeps_a_sample_next_to_its_largest_corner() {
    let v = [[100, 0], [2148, 2048], [100, 2049]];
    for test in TESTS {
        let mut cfg = def(16, test);
        cfg.colours_per_pixel = 16;
        let s = setup_triangle(&cfg, &tri(v)).unwrap();
        let mut st = RasterStats::default();
        let q = raster_triangle_tile(&cfg, &s, 0, [0, 0], &mut st);
        let got = quads_to_coverage(&q, 16).unwrap();
        assert_eq!(got.get(&(8, 8)), Some(&(1u16 << 15)), "{test:?}");
        assert_eq!(got.keys().filter(|(x, y)| *x >= 8 && *y >= 8).count(), 1);
        assert_eq!(got, reference::triangle(&cfg, &tri(v), &mut Default::default()));
    }
}
