//! Seed 003 point rasterizer: against the brute-force reference (proptest) and hand-worked
//! cases from the SPEC §2 point rule and the seed's span cases.

use proptest::prelude::*;
use tilerast_golden::point_raster::{self, point_bbox, point_setup, raster_point, raster_point_tile, PointStats};
use tilerast_golden::prim::{coverage_samples, quads_to_coverage};
use tilerast_golden::reference::{self, RefStats};
use tilerast_golden::{Config, PointFx, Quad};

const PX: i32 = 256;

fn cfg(preset: &str, msaa: u32) -> Config {
    let mut c = Config::preset(preset).unwrap();
    c.msaa = msaa;
    c.validate().unwrap();
    c
}

fn pt(x: i32, y: i32, size: i32, aa: bool) -> PointFx {
    PointFx {
        pos: [x, y],
        size,
        aa,
        colour: [1, 2, 3, 4],
        depth: 0,
    }
}

fn q(qx: u16, qy: u16, mask: u64) -> Quad {
    Quad { prim: 7, qx, qy, mask }
}

/// A config with an odd-sized viewport (partial last tile and partial last quad).
fn odd_cfg(msaa: u32) -> Config {
    let mut c = Config::preset("ice40").unwrap();
    c.viewport = [161, 97];
    c.msaa = msaa;
    c.validate().unwrap();
    c
}

/// Check every property that must hold for one point against the reference.
fn check(c: &Config, p: &PointFx) -> Result<(), TestCaseError> {
    let mut st = PointStats::default();
    let quads = raster_point(c, p, 7, &mut st);
    let cov = quads_to_coverage(&quads, c.msaa).map_err(|e| TestCaseError::fail(format!("{e:?}")))?;
    let want = reference::point(c, p, &mut RefStats::default());
    prop_assert_eq!(&cov, &want, "coverage differs for {:?}", p);

    // Ordering: (tile row, tile column, quad row, quad column) strictly increasing.
    let key = |q: &Quad| {
        let (x, y) = (2 * q.qx as u32, 2 * q.qy as u32);
        (y / c.tile[1], x / c.tile[0], q.qy, q.qx)
    };
    for w in quads.windows(2) {
        prop_assert!(key(&w[0]) < key(&w[1]), "order {:?} then {:?}", w[0], w[1]);
    }
    prop_assert!(quads.iter().all(|q| q.prim == 7));

    // Per-tile API agrees: the concatenation over tiles in order is the same list.
    let [ntx, nty] = c.tiles();
    let mut cat = Vec::new();
    let mut st2 = PointStats::default();
    if let Some(bb) = point_bbox(c, p) {
        for ty in 0..nty {
            for tx in 0..ntx {
                let t = raster_point_tile(c, p, 7, [tx, ty], &mut st2);
                let touches = bb.overlaps(
                    tx * c.tile[0],
                    ty * c.tile[1],
                    (tx + 1) * c.tile[0] - 1,
                    (ty + 1) * c.tile[1] - 1,
                );
                if !touches {
                    prop_assert!(t.is_empty());
                }
                cat.extend(t);
            }
        }
        // bbox holds every covered pixel.
        for &(x, y) in cov.keys() {
            prop_assert!(x >= bb.x0 && x <= bb.x1 && y >= bb.y0 && y <= bb.y1);
        }
    } else {
        prop_assert!(cov.is_empty());
    }
    prop_assert_eq!(&cat, &quads);

    // Counters, derived from the reference's coverage.
    prop_assert_eq!(st.points, 1);
    prop_assert_eq!(st.fragments, want.len() as u64);
    prop_assert_eq!(st.samples, coverage_samples(&want));
    prop_assert_eq!(st.quads_emitted, quads.len() as u64);
    prop_assert_eq!(st.quads_by_lit.iter().sum::<u64>(), st.quads_scanned);
    prop_assert_eq!(st.quads_by_lit[1..].iter().sum::<u64>(), st.quads_emitted);
    let lit: u64 = st.quads_by_lit.iter().enumerate().map(|(k, n)| k as u64 * n).sum();
    prop_assert_eq!(lit, st.fragments);
    for qd in &quads {
        prop_assert!(qd.mask != 0);
    }
    if !p.aa {
        // AA off: every scanned quad lights 4, 2 or 1 fragments and is emitted.
        prop_assert_eq!(st.quads_scanned, st.quads_emitted);
        prop_assert_eq!(st.quads_by_lit[0] + st.quads_by_lit[3], 0);
        prop_assert_eq!(st.samples, st.fragments * c.msaa as u64);
        let n = reference::point_size_n(c, p.size);
        let su = point_setup(c, p);
        prop_assert_eq!(su.n as i64, n);
        prop_assert_eq!(su.range[2] - su.range[0] + 1, n);
        if su.range[0] >= 0
            && su.range[1] >= 0
            && su.range[2] < c.viewport[0] as i64
            && su.range[3] < c.viewport[1] as i64
        {
            prop_assert_eq!(st.fragments as i64, n * n, "fully on screen: N² fragments");
        }
    }
    Ok(())
}

fn config_strategy() -> impl Strategy<Value = Config> {
    (0usize..5, prop::sample::select(vec![1u32, 2, 4, 8, 16])).prop_map(|(k, s)| match k {
        0 => cfg("ice40", s),
        1 => cfg("default", s),
        2 => cfg("full", s),
        3 => odd_cfg(s),
        _ => {
            // Small maximum: sizes beyond it are clamped.
            let mut c = cfg("ice40", s);
            c.max_point_size = 5;
            c
        }
    })
}

/// A coordinate in 1/256 px: on a pixel centre, on a corner, just around them, or anywhere;
/// pixels from beyond the low edge to beyond the high edge.
fn coord(limit: i32, margin: i32) -> impl Strategy<Value = i32> {
    let frac = prop_oneof![Just(0), Just(128), Just(127), Just(129), Just(1), Just(255), 0..256i32];
    (-margin..limit + margin, frac).prop_map(|(p, f)| p * PX + f)
}

fn size(max: i32) -> impl Strategy<Value = i32> {
    let frac = prop_oneof![Just(0), Just(128), Just(127), Just(129), 0..256i32];
    let whole = prop_oneof![0..=9i32, 0..=max + 1];
    (whole, frac).prop_map(|(n, f)| n * PX + f)
}

fn case() -> impl Strategy<Value = (Config, PointFx)> {
    config_strategy().prop_flat_map(|c| {
        let m = c.max_point_size as i32 / 2 + 3;
        let (w, h, max) = (c.viewport[0] as i32, c.viewport[1] as i32, c.max_point_size as i32);
        (Just(c), coord(w, m), coord(h, m), size(max), any::<bool>()).prop_map(|(c, x, y, s, aa)| (c, pt(x, y, s, aa)))
    })
}

proptest! {
    #![proptest_config(ProptestConfig { cases: 256, ..ProptestConfig::default() })]

    #[test]
    fn matches_reference((c, p) in case()) {
        check(&c, &p)?;
    }

    /// Points near the origin and the far corner of small viewports: lots of clipping.
    #[test]
    fn matches_reference_at_edges(
        k in 0usize..2, s in prop::sample::select(vec![1u32, 2, 4, 8, 16]),
        fx in -1200..1200i32, fy in -1200..1200i32, far in any::<bool>(),
        sz in 0..(6 * PX), aa in any::<bool>(),
    ) {
        let c = if k == 0 { cfg("ice40", s) } else { odd_cfg(s) };
        let (x, y) = if far { (c.viewport[0] as i32 * PX + fx, c.viewport[1] as i32 * PX + fy) } else { (fx, fy) };
        check(&c, &pt(x, y, sz, aa))?;
    }
}

/// Run one point and return its quads and counters.
fn run(c: &Config, p: &PointFx) -> (Vec<Quad>, PointStats) {
    let mut st = PointStats::default();
    let v = raster_point(c, p, 7, &mut st);
    (v, st)
}

#[test]
fn size_8_is_64_fragments_size_9_is_81() {
    let c = cfg("default", 4);
    // Point at (50.3, 40.01) ≈ (12877, 10243) in 1/256 px.
    let (x, y) = (50 * PX + 77, 40 * PX + 3);

    // N = 8, even: fragment coord (⌊50.3 + .5⌋, ⌊40.01 + .5⌋) = (50, 40); range 46..=53 ×
    // 36..=43. 46 even and 53 odd on both axes → quads 23..=26 × 18..=21, all full: 16 quads
    // × 4 fragments, all in tile (1, 1) of 32×32.
    let p = pt(x, y, 8 * PX, false);
    let su = point_setup(&c, &p);
    assert_eq!(
        (su.n, su.odd, su.frag, su.range),
        (8, false, [50, 40], [46, 36, 53, 43])
    );
    let (quads, st) = run(&c, &p);
    assert_eq!(quads.len(), 16);
    assert!(quads.iter().all(|q| q.mask == 0xffff));
    assert_eq!(quads.first().map(|q| (q.qx, q.qy)), Some((23, 18)));
    assert_eq!(quads.last().map(|q| (q.qx, q.qy)), Some((26, 21)));
    let want = PointStats {
        points: 1,
        tiles: 1,
        quads_scanned: 16,
        quads_emitted: 16,
        quads_by_lit: [0, 0, 0, 0, 16],
        fragments: 64,
        samples: 64 * 4,
    };
    assert_eq!(st, want);

    // N = 9, odd: fragment coord (⌊50.3⌋, ⌊40.01⌋) = (50, 40); range 46..=54 × 36..=44.
    // Quads 23..=27 × 18..=22: column 27 holds only pixel 54 (left: pixels 0, 2 → 0x0f0f),
    // row 22 only pixel row 44 (lower: pixels 0, 1 → 0x00ff), the corner (27, 22) only
    // pixel 0 (0x000f). 16·4 + 4·2 + 4·2 + 1 = 81.
    let p = pt(x, y, 9 * PX, false);
    let su = point_setup(&c, &p);
    assert_eq!((su.n, su.odd, su.frag, su.range), (9, true, [50, 40], [46, 36, 54, 44]));
    let (quads, st) = run(&c, &p);
    assert_eq!(quads.len(), 25);
    for qd in &quads {
        let want = match (qd.qx, qd.qy) {
            (27, 22) => 0x000f,
            (27, _) => 0x0f0f,
            (_, 22) => 0x00ff,
            _ => 0xffff,
        };
        assert_eq!(qd.mask, want, "quad {:?}", qd);
    }
    assert_eq!(st.quads_by_lit, [0, 1, 8, 0, 16]);
    assert_eq!(
        (st.fragments, st.samples, st.quads_scanned, st.quads_emitted),
        (81, 324, 25, 25)
    );
}

#[test]
fn size_1_lights_one_pixel_with_its_quad_slot() {
    let c = cfg("default", 4);
    // (10.9, 20.1), N = 1 odd: pixel (⌊10.9⌋, ⌊20.1⌋) = (10, 20) → quad (5, 10), pixel index
    // 2·(20&1) + (10&1) = 0 → bits 0..4.
    let (quads, st) = run(&c, &pt(10 * PX + 230, 20 * PX + 26, PX, false));
    assert_eq!(quads, vec![q(5, 10, 0x000f)]);
    assert_eq!(st.quads_by_lit, [0, 1, 0, 0, 0]);
    // (11.5, 21.5): pixel (11, 21) → quad (5, 10), index 3 → bits 12..16.
    let (quads, _) = run(&c, &pt(11 * PX + 128, 21 * PX + 128, PX, false));
    assert_eq!(quads, vec![q(5, 10, 0xf000)]);
    // Size 0 rounds to N = 1 (at least 1); size 1.49 (381) rounds to 1 as well.
    assert_eq!(
        run(&c, &pt(11 * PX + 128, 21 * PX + 128, 0, false)).0,
        vec![q(5, 10, 0xf000)]
    );
    assert_eq!(
        run(&c, &pt(11 * PX + 128, 21 * PX + 128, 381, false)).0,
        vec![q(5, 10, 0xf000)]
    );
}

#[test]
fn size_2_range_edges_cut_quads() {
    let c = cfg("default", 4);
    // (10.4, 20.6), N = 2 even: fragment coord (⌊10.9⌋, ⌊21.1⌋) = (10, 21); range x 9..=10,
    // y 20..=21. x 9 is the right half of quad column 4 (span 0b10), x 10 the left half of
    // column 5 (0b01); y 20..=21 is all of quad row 10. So two quads of 2 fragments:
    // (4, 10) pixels 1, 3 → 0xf0f0; (5, 10) pixels 0, 2 → 0x0f0f.
    let p = pt(10 * PX + 102, 20 * PX + 154, 2 * PX, false);
    let (quads, st) = run(&c, &p);
    assert_eq!(quads, vec![q(4, 10, 0xf0f0), q(5, 10, 0x0f0f)]);
    assert_eq!(st.quads_by_lit, [0, 0, 2, 0, 0]);
    assert_eq!((st.fragments, st.samples), (4, 16));

    // (10.4, 20.4): fragment coord (10, 20); range 9..=10 × 19..=20: four quads of one
    // fragment each, rows bottom-up: (4, 9) pixel (9, 19) index 3 → 0xf000, (5, 9) pixel
    // (10, 19) index 2 → 0x0f00, (4, 10) pixel (9, 20) index 1 → 0x00f0, (5, 10) pixel
    // (10, 20) index 0 → 0x000f.
    let (quads, st) = run(&c, &pt(10 * PX + 102, 20 * PX + 102, 2 * PX, false));
    assert_eq!(
        quads,
        vec![q(4, 9, 0xf000), q(5, 9, 0x0f00), q(4, 10, 0x00f0), q(5, 10, 0x000f)]
    );
    assert_eq!(st.quads_by_lit, [0, 4, 0, 0, 0]);

    // (10.6, 20.6): fragment coord (11, 21); range 10..=11 × 20..=21 = exactly quad (5, 10).
    let (quads, _) = run(&c, &pt(10 * PX + 154, 20 * PX + 154, 2 * PX, false));
    assert_eq!(quads, vec![q(5, 10, 0xffff)]);

    // Same at 1x MSAA: one bit per pixel.
    let c1 = cfg("default", 1);
    let (quads, _) = run(&c1, &p);
    assert_eq!(quads, vec![q(4, 10, 0b1010), q(5, 10, 0b0101)]);
}

#[test]
fn span_patterns_are_the_seed_cases() {
    use point_raster::{quad_pixels, span_pattern};
    // Range 3..=8: quad 1 (pixels 2, 3) starts on an odd pixel → upper/right only (0b10);
    // quad 2 interior (0b11); quad 4 (pixels 8, 9) ends on an even pixel → lower/left (0b01).
    assert_eq!(span_pattern(1, 3, 8), 0b10);
    assert_eq!(span_pattern(2, 3, 8), 0b11);
    assert_eq!(span_pattern(4, 3, 8), 0b01);
    assert_eq!(span_pattern(5, 3, 8), 0b00);
    // Start and end in one quad: 6..=6 → left, 7..=7 → right, 6..=7 → both.
    assert_eq!(span_pattern(3, 6, 6), 0b01);
    assert_eq!(span_pattern(3, 7, 7), 0b10);
    assert_eq!(span_pattern(3, 6, 7), 0b11);
    // Pixel sets: x both × y lower → 0, 1; x right × y both → 1, 3; x left × y upper → 2.
    assert_eq!(quad_pixels(0b11, 0b01), 0b0011);
    assert_eq!(quad_pixels(0b10, 0b11), 0b1010);
    assert_eq!(quad_pixels(0b01, 0b10), 0b0100);
}

#[test]
fn fractional_sizes_round_half_up_and_clamp() {
    let c = cfg("default", 1);
    let p = |s| pt(100 * PX + 128, 100 * PX + 128, s, false);
    // 7.5 px (1920) → N = 8 → 64; 7.5 − 1/256 (1919) → N = 7 → 49; 8.5 (2176) → 9 → 81.
    assert_eq!(run(&c, &p(1920)).1.fragments, 64);
    assert_eq!(run(&c, &p(1919)).1.fragments, 49);
    assert_eq!(run(&c, &p(2176)).1.fragments, 81);
    // ice40 max_point_size 16: size 100 → N = 16 → 256 fragments (point at (80, 60) is fully
    // on the 160×120 screen).
    let c = cfg("ice40", 4);
    let (_, st) = run(&c, &pt(80 * PX, 60 * PX, 100 * PX, false));
    assert_eq!((st.fragments, st.samples), (256, 1024));
    // With AA the unrounded size is clamped the same way: s = 16 px → square [72, 88)², every
    // sample of 16×16 pixels: 8×8 = 64 full quads, 1024 samples.
    let (quads, st) = run(&c, &pt(80 * PX, 60 * PX, 100 * PX, true));
    assert_eq!(quads.len(), 64);
    assert!(quads.iter().all(|q| q.mask == 0xffff));
    assert_eq!((st.fragments, st.samples, st.quads_by_lit[4]), (256, 1024, 64));
}

#[test]
fn viewport_clipping_at_both_corners() {
    // ice40 160×120. Size 4 at (0.2, 0.2): even, fragment coord (0, 0), range −2..=1 →
    // clipped 0..=1 on both axes: one full quad (0, 0).
    let c = cfg("ice40", 4);
    let (quads, st) = run(&c, &pt(51, 51, 4 * PX, false));
    assert_eq!(quads, vec![q(0, 0, 0xffff)]);
    assert_eq!((st.fragments, st.tiles), (4, 1));

    // Size 5 at (159.5, 119.5): odd, fragment coord (159, 119), range 157..=161 × 117..=121,
    // clipped to 157..=159 × 117..=119. x: quad 78 holds pixel 157 only (right, 0b10),
    // quad 79 pixels 158, 159 (0b11); y likewise (quad 58 upper only). Quads:
    // (78, 58) pixel 3 → 0xf000; (79, 58) pixels 2, 3 → 0xff00; (78, 59) pixels 1, 3 →
    // 0xf0f0; (79, 59) full. 1 + 2 + 2 + 4 = 9 = 3×3 fragments.
    let (quads, st) = run(&c, &pt(159 * PX + 128, 119 * PX + 128, 5 * PX, false));
    assert_eq!(
        quads,
        vec![
            q(78, 58, 0xf000),
            q(79, 58, 0xff00),
            q(78, 59, 0xf0f0),
            q(79, 59, 0xffff)
        ]
    );
    assert_eq!(st.quads_by_lit, [0, 1, 2, 0, 1]);
    assert_eq!((st.fragments, st.samples, st.tiles), (9, 36, 1));

    // Entirely off screen: nothing, no tiles, no bbox.
    let far = pt(-40 * PX, 10 * PX, 5 * PX, false);
    assert_eq!(point_bbox(&c, &far), None);
    let (quads, st) = run(&c, &far);
    assert!(quads.is_empty());
    assert_eq!((st.points, st.tiles, st.quads_scanned), (1, 0, 0));
}

#[test]
fn odd_viewport_partial_quad_and_tile_order() {
    // Viewport 161×97, tiles 16×16. Size 3 at (160.5, 60.5): odd, fragment coord (160, 60),
    // range 159..=161 × 59..=61, clipped x to 159..=160 (pixel 161 is off screen).
    // x 159 is quad 79 right (tile 9), x 160 quad 80 left (tile 10, partial quad);
    // y 59 quad 29 upper, y 60..=61 quad 30 full; all in tile row 3 (48..=63).
    // Tile (9, 3): (79, 29) pixel 3 → 0xf000, (79, 30) pixels 1, 3 → 0xf0f0.
    // Tile (10, 3): (80, 29) pixel 2 → 0x0f00, (80, 30) pixels 0, 2 → 0x0f0f.
    let c = odd_cfg(4);
    let p = pt(160 * PX + 128, 60 * PX + 128, 3 * PX, false);
    let (quads, st) = run(&c, &p);
    assert_eq!(
        quads,
        vec![
            q(79, 29, 0xf000),
            q(79, 30, 0xf0f0),
            q(80, 29, 0x0f00),
            q(80, 30, 0x0f0f)
        ]
    );
    assert_eq!((st.tiles, st.fragments), (2, 6));
    let mut st = PointStats::default();
    assert_eq!(
        raster_point_tile(&c, &p, 7, [10, 3], &mut st),
        vec![q(80, 29, 0x0f00), q(80, 30, 0x0f0f)]
    );
    assert_eq!((st.points, st.tiles, st.quads_scanned), (0, 1, 2));
    let bb = point_bbox(&c, &p).unwrap();
    assert_eq!((bb.x0, bb.y0, bb.x1, bb.y1), (159, 59, 160, 61));

    // Four tiles: size 4 at (32, 32) on default (32×32 tiles): fragment coord (32, 32),
    // range 30..=33 on both axes. Tile order rows bottom-up, left→right.
    let c = cfg("default", 1);
    let (quads, st) = run(&c, &pt(32 * PX, 32 * PX, 4 * PX, false));
    let at: Vec<(u16, u16)> = quads.iter().map(|q| (q.qx, q.qy)).collect();
    assert_eq!(at, vec![(15, 15), (16, 15), (15, 16), (16, 16)]);
    assert_eq!((st.tiles, st.quads_emitted, st.fragments), (4, 4, 16));
}

#[test]
fn aa_on_unit_square_between_four_pixels() {
    // 4x MSAA, sample positions (6,2) (14,6) (2,10) (10,14) /16. Point at (10, 10), s = 1:
    // square [9.5, 10.5)². Column 9 keeps samples with X ≥ 8: {1, 3}; column 10 X < 8: {0, 2}.
    // Row 9 keeps Y ≥ 8: {2, 3}; row 10 Y < 8: {0, 1}.
    // (9, 9): {1,3}∩{2,3} = {3} → 0b1000, quad (4, 4) index 3 → 0x8000.
    // (10, 9): {0,2}∩{2,3} = {2} → 0b0100, quad (5, 4) index 2 → 0x0400.
    // (9, 10): {1,3}∩{0,1} = {1} → 0b0010, quad (4, 5) index 1 → 0x0020.
    // (10, 10): {0,2}∩{0,1} = {0} → 0b0001, quad (5, 5) index 0 → 0x0001.
    let c = cfg("default", 4);
    let (quads, st) = run(&c, &pt(10 * PX, 10 * PX, PX, true));
    assert_eq!(
        quads,
        vec![q(4, 4, 0x8000), q(5, 4, 0x0400), q(4, 5, 0x0020), q(5, 5, 0x0001)]
    );
    let want = PointStats {
        points: 1,
        tiles: 1,
        quads_scanned: 4,
        quads_emitted: 4,
        quads_by_lit: [0, 4, 0, 0, 0],
        fragments: 4,
        samples: 4,
    };
    assert_eq!(st, want);
}

#[test]
fn aa_on_scanned_quads_can_be_empty() {
    // s = 26/256 px at (10, 10.5): x interval [9.949, 10.051) meets pixels 9 and 10, but
    // pixel 9 would need a sample with X/16 ≥ 0.949 (X ≥ 15.2; 4x max is 14) and pixel 10 one
    // with X/16 < 0.051 (X < 0.8; 4x min is 2). y interval [10.449, 10.551) is row 10.
    // Quads (4, 5) and (5, 5) are scanned, none emitted.
    let c = cfg("default", 4);
    let p = pt(10 * PX, 10 * PX + 128, 26, true);
    let bb = point_bbox(&c, &p).unwrap();
    assert_eq!((bb.x0, bb.y0, bb.x1, bb.y1), (9, 10, 10, 10));
    let (quads, st) = run(&c, &p);
    assert!(quads.is_empty());
    assert_eq!(
        (st.quads_scanned, st.quads_emitted, st.quads_by_lit[0], st.samples),
        (2, 0, 2, 0)
    );
    // Size 0 with AA covers nothing and has no box.
    assert_eq!(point_bbox(&c, &pt(10 * PX, 10 * PX, 0, true)), None);
}

#[test]
fn aa_on_1x_tests_the_pixel_centre() {
    // 1x MSAA: the single sample is the pixel centre. Point (2, 1), s = 307/256 px, half
    // 153.5/256 ≈ 0.5996: x [1.4004, 2.5996) holds centres 1.5, 2.5 (pixels 1, 2); y
    // [0.4004, 1.5996) holds 0.5, 1.5 (pixels 0, 1). Quad (0, 0) gets pixels (1,0), (1,1) =
    // indices 1, 3 → 0b1010; quad (1, 0) gets (2,0), (2,1) = indices 0, 2 → 0b0101.
    let c = cfg("default", 1);
    let (quads, st) = run(&c, &pt(2 * PX, PX, 307, true));
    assert_eq!(quads, vec![q(0, 0, 0b1010), q(1, 0, 0b0101)]);
    assert_eq!(st.quads_by_lit, [0, 0, 2, 0, 0]);
}

#[test]
fn aa_on_quad_with_three_lit_pixels() {
    // 4x MSAA, samples 0 (6,2) 1 (14,6) 2 (2,10) 3 (10,14) in 1/16 px. Point (243, 291)/256,
    // s = 230: in 1/512 px the square is x [486 − 230, 486 + 230) = [256, 716),
    // y [582 − 230, 582 + 230) = [352, 812). A sample at offset X sits at 512·x + 32·X.
    //   column 0: 32X ≥ 256 → X ≥ 8: samples {1, 3};   column 1: 512 + 32X < 716 → X < 6.4: {0, 2}
    //   row 0:    32Y ≥ 352 → Y ≥ 11: samples {3};     row 1:    512 + 32Y < 812 → Y < 9.4: {0, 1}
    // Pixel 0 = {1,3}∩{3} = {3} → 0x0008; pixel 1 = {0,2}∩{3} = ∅;
    // pixel 2 = {1,3}∩{0,1} = {1} → 0b0010 << 8 = 0x0200; pixel 3 = {0,2}∩{0,1} = {0} → 0x1000.
    // Scan range: x 256>>9 .. 715>>9 = 0..=1, y 352>>9 .. 811>>9 = 0..=1 → one quad.
    let c = cfg("default", 4);
    let (quads, st) = run(&c, &pt(243, 291, 230, true));
    assert_eq!(quads, vec![q(0, 0, 0x1208)]);
    assert_eq!(st.quads_by_lit, [0, 0, 0, 1, 0]);
    assert_eq!((st.quads_scanned, st.fragments, st.samples), (1, 3, 3));
}

#[test]
fn stats_add_sums_every_field() {
    let a = PointStats {
        points: 1,
        tiles: 2,
        quads_scanned: 3,
        quads_emitted: 4,
        quads_by_lit: [5, 6, 7, 8, 9],
        fragments: 10,
        samples: 11,
    };
    let mut b = a;
    b.add(&a);
    assert_eq!(
        b,
        PointStats {
            points: 2,
            tiles: 4,
            quads_scanned: 6,
            quads_emitted: 8,
            quads_by_lit: [10, 12, 14, 16, 18],
            fragments: 20,
            samples: 22,
        }
    );
}

#[test]
fn hostile_inputs_do_not_panic() {
    let c = cfg("full", 16);
    for p in [
        pt(i32::MAX, i32::MAX, i32::MAX, false),
        pt(i32::MIN, i32::MIN, i32::MAX, true),
        pt(0, 0, i32::MIN, false),
        pt(0, 0, -5, true),
    ] {
        let (quads, _) = run(&c, &p);
        let want = reference::point(&c, &p, &mut RefStats::default());
        assert_eq!(quads_to_coverage(&quads, 16).unwrap(), want);
    }
    // A tile far outside the viewport yields nothing.
    let mut st = PointStats::default();
    assert!(raster_point_tile(&c, &pt(100, 100, 512, false), 0, [u32::MAX, u32::MAX], &mut st).is_empty());
}
