//! Seed 002 sort-based deferred shading: radix sort vs std sort, pass counts, Morton codes,
//! depth functions on hand-worked quads, hand-counted shading work, the seed's own bandwidth
//! example, and scatter vs an independent per-sample brute force.

use proptest::prelude::*;
use std::collections::{BTreeMap, BTreeSet};
use tilerast_golden::pixel_info::{PixelInfo, PixelInfoStore, DEPTH_MAX};
use tilerast_golden::shading_sort::{
    morton, radix_sort, shade_store, shade_tile, shade_tile_traced, sort_passes, ShadingQuad, PRIM_ID_BITS,
};
use tilerast_golden::{Config, DepthFunc, Quad, Rgba};

fn cfg(second_tile: [u32; 2], msaa: u32, func: DepthFunc) -> Config {
    let mut c = Config::preset("default").unwrap();
    c.viewport = [256, 128];
    c.second_tile = second_tile;
    c.msaa = msaa;
    c.depth_func = func;
    c
}

fn colours(n: usize) -> Vec<Rgba> {
    (0..n).map(|i| [i as u8, (i >> 8) as u8, 0x5a, 0xff]).collect()
}

/// Records of one primitive from per-pixel sample masks (tile-relative pixels), one record per
/// touched quad, quads in (qy, qx) order.
fn recs(prim: u32, depth: u32, pixels: &[(u32, u32, u16)], msaa: u32, frame: u8) -> Vec<PixelInfo> {
    let mut quads: BTreeMap<(u32, u32), u64> = BTreeMap::new();
    for &(x, y, m) in pixels {
        let lane = 2 * (y & 1) + (x & 1);
        *quads.entry((y / 2, x / 2)).or_default() |= (m as u64) << (lane * msaa);
    }
    quads
        .into_iter()
        .map(|((qy, qx), mask)| PixelInfo {
            mask,
            depth,
            prim,
            frame,
            qx: qx as u8,
            qy: qy as u8,
        })
        .collect()
}

fn rect(x0: u32, y0: u32, w: u32, h: u32, m: u16) -> Vec<(u32, u32, u16)> {
    (y0..y0 + h)
        .flat_map(|y| (x0..x0 + w).map(move |x| (x, y, m)))
        .collect()
}

#[test]
fn passes_formula() {
    // Seed: 32-bit keys (21-bit id + 6+5 coordinate bits) at 11-bit digits → 3 passes.
    assert_eq!(sort_passes(PRIM_ID_BITS + 11, 11), 3);
    // Shorter keys need fewer passes: 22 bits → 2, 11 bits → 1; 34 bits → 4.
    assert_eq!(sort_passes(22, 11), 2);
    assert_eq!(sort_passes(11, 11), 1);
    assert_eq!(sort_passes(34, 11), 4);
    assert_eq!(sort_passes(32, 16), 2);
    assert_eq!(sort_passes(32, 1), 32);
    // radix_sort reports the same count and rejects bad parameters by name.
    let mut v = vec![(5u64, 0u32), (1, 1)];
    assert_eq!(radix_sort(&mut v, 32, 11).unwrap(), 3);
    assert_eq!(v, vec![(1, 1), (5, 0)]);
    assert_eq!(radix_sort(&mut v, 32, 0).unwrap_err().field, "sort_digit_bits");
    assert_eq!(radix_sort(&mut v, 32, 17).unwrap_err().field, "sort_digit_bits");
    assert_eq!(radix_sort(&mut v, 2, 1).unwrap_err().field, "items");
    assert_eq!(radix_sort(&mut v, 65, 8).unwrap_err().field, "key_bits");
}

#[test]
fn morton_hand_worked() {
    // 64x32: bit order x0 y0 x1 y1 x2 y2 x3 y3 x4 y4 x5.
    // (5, 3) = x 101, y 011: x0=1→b0, y0=1→b1, x1=0, y1=1→b3, x2=1→b4, y2=0 → 1+2+8+16 = 27.
    assert_eq!(morton(5, 3, 6, 5), 27);
    assert_eq!(morton(1, 0, 6, 5), 1);
    assert_eq!(morton(0, 1, 6, 5), 2);
    assert_eq!(morton(1, 1, 6, 5), 3);
    assert_eq!(morton(2, 0, 6, 5), 4);
    assert_eq!(morton(16, 0, 6, 5), 256); // x4 → b8
    assert_eq!(morton(0, 16, 6, 5), 512); // y4 → b9
    assert_eq!(morton(32, 0, 6, 5), 1024); // x5 → b10, above all y bits
    assert_eq!(morton(63, 31, 6, 5), 2047);
    // 32x64: x0 y0 … x4 y4 y5; (31, 0) = b0 b2 b4 b6 b8 = 341; (0, 32) = b10 = 1024.
    assert_eq!(morton(31, 0, 5, 6), 341);
    assert_eq!(morton(0, 32, 5, 6), 1024);
    // The four pixels of a quad share code >> 2: (6,2) (7,2) (6,3) (7,3).
    let q: Vec<u32> = [(6, 2), (7, 2), (6, 3), (7, 3)]
        .iter()
        .map(|&(x, y)| morton(x, y, 6, 5))
        .collect();
    assert!(q.iter().all(|c| c >> 2 == q[0] >> 2));
    assert_eq!(q.iter().map(|c| c & 3).collect::<Vec<_>>(), vec![0, 1, 2, 3]);
}

/// Four primitives on quad (0,0) of an 8x8 tile at 4x:
///   A prim 0: all 16 samples, depth 100;  B prim 1: pixel 0, depth 100 (tie);
///   C prim 2: pixel 1, depth 50 (nearer);  D prim 3: pixel 2, depth 200 (farther).
#[test]
fn depth_functions_hand_worked() {
    let all = |f| {
        let c = cfg([8, 8], 4, f);
        let mut r = recs(0, 100, &rect(0, 0, 2, 2, 0xf), 4, 9);
        r.extend(recs(1, 100, &[(0, 0, 0xf)], 4, 9));
        r.extend(recs(2, 50, &[(1, 0, 0xf)], 4, 9));
        r.extend(recs(3, 200, &[(0, 1, 0xf)], 4, 9));
        let cols = colours(4);
        let mut tr = Vec::new();
        let (t, s) = shade_tile_traced(&c, [0, 0], &r, &cols, Some(&mut tr)).unwrap();
        let owner: Vec<u32> = (0..4).map(|i| t.get(i & 1, i >> 1, 0).unwrap().0).collect();
        for i in 0..4u32 {
            for smp in 0..4 {
                let (p, col) = t.get(i & 1, i >> 1, smp).unwrap();
                assert_eq!((p, col), (owner[i as usize], cols[owner[i as usize] as usize]));
            }
        }
        assert_eq!(t.frame, Some(9));
        assert_eq!(s.depth_tests, 28); // 16 + 4 + 4 + 4 covered samples
        assert_eq!(s.visible_samples, 16);
        assert_eq!(s.scatter_writes, 16);
        (owner, s, tr)
    };
    // LessEqual: tie → later B wins pixel 0; C wins pixel 1; D fails. Passes 16 + 4 + 4 + 0.
    let (o, s, tr) = all(DepthFunc::LessEqual);
    assert_eq!(o, vec![1, 2, 0, 0]);
    assert_eq!(s.depth_passes, 24);
    // Shading points (prim, pixel): (0,p2) (0,p3) (1,p0) (2,p1) = 4, one quad per prim = 3.
    assert_eq!((s.shading_points, s.shading_quads, s.shading_invocations), (4, 3, 12));
    // Dispatch in primitive order; live lanes are the pixels each primitive kept.
    assert_eq!(
        tr,
        vec![
            ShadingQuad {
                prim: 0,
                qx: 0,
                qy: 0,
                live: 0b1100,
                samples: 8
            },
            ShadingQuad {
                prim: 1,
                qx: 0,
                qy: 0,
                live: 0b0001,
                samples: 4
            },
            ShadingQuad {
                prim: 2,
                qx: 0,
                qy: 0,
                live: 0b0010,
                samples: 4
            },
        ]
    );
    // Sort: 8x8 tile → 3+3 coordinate bits, read out in Morton order; prims 0..=2 → range 2 →
    // 2 bits, one pass (digit min(11, 6) = 6 bits) over the 4 shading points (16 visible
    // samples, one primitive per pixel).
    // Key bytes ⌈(21+6)/8⌉ = 4, value bytes (the pixel) ⌈6/8⌉ = 1.
    // Read 4 × (4 + 5) = 36, write 4 × 5 = 20.
    assert_eq!(
        (s.sort_passes, s.sort_bytes_read, s.sort_bytes_written, s.sort_bytes),
        (1, 36, 20, 56)
    );
    // Less: the tie fails, pixel 0 stays A's. Passes 16 + 0 + 4 + 0.
    let (o, s, _) = all(DepthFunc::Less);
    assert_eq!(o, vec![0, 2, 0, 0]);
    assert_eq!(s.depth_passes, 20);
    assert_eq!((s.shading_points, s.shading_quads, s.shading_invocations), (4, 2, 8));
    // Always: every record overwrites. Passes 28.
    let (o, s, _) = all(DepthFunc::Always);
    assert_eq!(o, vec![1, 2, 3, 0]);
    assert_eq!(s.depth_passes, 28);
    assert_eq!((s.shading_points, s.shading_quads, s.shading_invocations), (4, 4, 16));
}

#[test]
fn cleared_depth_is_max() {
    // With Less, a sample at the far plane (DEPTH_MAX) fails against the cleared buffer;
    // with LessEqual it passes.
    let r = recs(0, DEPTH_MAX, &[(3, 3, 0x1)], 4, 1);
    let (t, s) = shade_tile(&cfg([8, 8], 4, DepthFunc::Less), [0, 0], &r, &colours(1)).unwrap();
    assert_eq!(
        (
            s.depth_tests,
            s.depth_passes,
            s.visible_samples,
            s.sort_passes,
            s.shading_quads
        ),
        (1, 0, 0, 0, 0)
    );
    assert!(t.samples.iter().all(|x| x.is_none()));
    assert_eq!(t.frame, Some(1));
    let (t, s) = shade_tile(&cfg([8, 8], 4, DepthFunc::LessEqual), [0, 0], &r, &colours(1)).unwrap();
    assert_eq!(
        (
            s.depth_passes,
            s.visible_samples,
            s.shading_points,
            s.shading_quads,
            s.shading_invocations
        ),
        (1, 1, 1, 1, 4)
    );
    assert_eq!(t.get(3, 3, 0), Some((0, colours(1)[0])));
    assert_eq!(t.samples.iter().filter(|x| x.is_some()).count(), 1);
}

#[test]
fn msaa4_full_coverage_counts() {
    let c = cfg([64, 32], 4, DepthFunc::LessEqual);
    // A fully covered, quad-aligned 4x4 pixel region of one primitive at 4x: 64 visible samples,
    // 16 shading points (one per pixel), 4 quads, 16 invocations ≤ 64 samples.
    let r = recs(7, 10, &rect(4, 2, 4, 4, 0xf), 4, 0);
    let (t, s) = shade_tile(&c, [1, 2], &r, &colours(8)).unwrap();
    assert_eq!(
        (
            s.visible_samples,
            s.shading_points,
            s.shading_quads,
            s.shading_invocations
        ),
        (64, 16, 4, 16)
    );
    assert!(s.shading_invocations <= s.visible_samples);
    // One primitive: the readout's Morton order is the key order, no pass, no sort bytes.
    assert_eq!((s.sort_passes, s.sort_bytes_read, s.sort_bytes_written), (0, 0, 0));
    assert_eq!(t.origin, [64, 64]);
    assert_eq!(t.get_abs(64 + 4, 64 + 2, 3), Some((7, colours(8)[7])));
    assert_eq!(t.get(3, 2, 0), None);
    // Shifted by one pixel the region straddles 3x3 quads: still 64 samples and 16 points but
    // 9 quads and 36 invocations (20 helper lanes), still ≤ 64.
    let r = recs(7, 10, &rect(5, 3, 4, 4, 0xf), 4, 0);
    let (_, s) = shade_tile(&c, [0, 0], &r, &colours(8)).unwrap();
    assert_eq!(
        (
            s.visible_samples,
            s.shading_points,
            s.shading_quads,
            s.shading_invocations
        ),
        (64, 16, 9, 36)
    );
    // Partial coverage: each of the 16 pixels has 1 sample → 16 samples, 16 points, 4 quads.
    let r = recs(7, 10, &rect(4, 2, 4, 4, 0x2), 4, 0);
    let (_, s) = shade_tile(&c, [0, 0], &r, &colours(8)).unwrap();
    assert_eq!(
        (
            s.visible_samples,
            s.shading_points,
            s.shading_quads,
            s.shading_invocations
        ),
        (16, 16, 4, 16)
    );
}

#[test]
fn seed_bandwidth_example() {
    // Seed 002 [0025]–[0034]: 64x32 tile, 16 samples/pixel = 32k samples; 32-bit keys, 11-bit
    // digits, 3 passes; the seed sorts one element of 4 (key) + 2 (15-bit sample position)
    // bytes per sample: 960 KiB read (histogram 4 B + reorder 6 B, × 3 passes × 32k) and 576
    // KiB written (6 B × 3 × 32k). The model sorts one element per shading point, a pixel's
    // samples of one primitive collapsed as the buffer is read (the walk's shading points are
    // the same): 2k elements of 4 + 2 (11-bit pixel) bytes, 16 times less. They are read
    // out in Morton order, so only the primitive's bits need passes.
    // Prims 0 (left half) and 4095 (right half): 12 primitive bits → 2 passes of 11 bits:
    // 40 KiB read (10 B × 2 × 2k) and 24 KiB written (6 B × 2 × 2k).
    let c = cfg([64, 32], 16, DepthFunc::LessEqual);
    let cols = colours(4096);
    let mut r = recs(0, 5, &rect(0, 0, 32, 32, 0xffff), 16, 2);
    r.extend(recs(4095, 5, &rect(32, 0, 32, 32, 0xffff), 16, 2));
    let (t, s) = shade_tile(&c, [0, 0], &r, &cols).unwrap();
    assert_eq!(s.visible_samples, 32768);
    assert_eq!(
        (s.shading_points, s.shading_quads, s.shading_invocations),
        (2048, 512, 2048)
    );
    assert_eq!(s.sort_passes, 2);
    assert_eq!(s.sort_bytes_read, 40 * 1024);
    assert_eq!(s.sort_bytes_written, 24 * 1024);
    assert_eq!(t.get(40, 31, 15), Some((4095, cols[4095])));
    assert_eq!(t.get(31, 0, 0), Some((0, cols[0])));
    // Fewer primitives → shorter keys → fewer passes (seed: "one or two passes").
    let mut r = recs(3, 5, &rect(0, 0, 32, 32, 0xffff), 16, 2);
    r.extend(recs(10, 5, &rect(32, 0, 32, 32, 0xffff), 16, 2));
    let (_, s) = shade_tile(&c, [0, 0], &r, &cols).unwrap();
    assert_eq!(s.sort_passes, 1); // range 7 → 3 bits
    assert_eq!(s.sort_bytes, 2048 * (10 + 6));
    let r = recs(3, 5, &rect(0, 0, 64, 32, 0xffff), 16, 2);
    let (_, s) = shade_tile(&c, [0, 0], &r, &cols).unwrap();
    assert_eq!((s.sort_passes, s.sort_bytes), (0, 0));
}

#[test]
fn bad_records_name_field() {
    let c = cfg([8, 8], 4, DepthFunc::LessEqual);
    let ok = PixelInfo {
        mask: 1,
        depth: 0,
        prim: 0,
        frame: 0,
        qx: 0,
        qy: 0,
    };
    let e = |r: PixelInfo, n: usize| shade_tile(&c, [0, 0], &[ok, r], &colours(n)).unwrap_err().field;
    assert_eq!(e(PixelInfo { prim: 1 << 21, ..ok }, 1 << 22), "records");
    assert_eq!(e(PixelInfo { prim: 5, ..ok }, 5), "records");
    assert_eq!(e(PixelInfo { qx: 4, ..ok }, 1), "records");
    assert_eq!(e(PixelInfo { mask: 1 << 16, ..ok }, 1), "records");
    assert_eq!(e(PixelInfo { frame: 1, ..ok }, 1), "records");
    assert_eq!(e(PixelInfo { depth: 1 << 24, ..ok }, 1), "records");
    assert_eq!(shade_tile(&c, [32, 0], &[], &[]).unwrap_err().field, "second_tile");
}

/// (x, y, sample) → (primitive, depth).
type SampleMap = BTreeMap<(u32, u32, u32), (u32, u32)>;

/// Independent brute force: per sample position, the last record (in order) whose depth passes
/// the function against everything before it; returns (prim, depth) per (x, y, s) and the count
/// of passes.
fn brute(func: DepthFunc, msaa: u32, quads: &[(Quad, u32)]) -> (SampleMap, u64) {
    let mut m = SampleMap::new();
    let mut passes = 0;
    for (q, d) in quads {
        for bit in 0..4 * msaa {
            if q.mask >> bit & 1 == 0 {
                continue;
            }
            let (lane, s) = (bit / msaa, bit % msaa);
            let key = (2 * q.qx as u32 + (lane & 1), 2 * q.qy as u32 + lane / 2, s);
            let z = m.get(&key).map_or(DEPTH_MAX, |e| e.1);
            let pass = match func {
                DepthFunc::Less => *d < z,
                DepthFunc::LessEqual => *d <= z,
                DepthFunc::Always => true,
            };
            if pass {
                passes += 1;
                m.insert(key, (q.prim, *d));
            }
        }
    }
    (m, passes)
}

fn arb_setup() -> impl Strategy<Value = (u32, [u32; 2], DepthFunc, u32)> {
    (
        prop::sample::select(vec![1u32, 2, 4, 8, 16]),
        (1u32..7, 1u32..7).prop_map(|(a, b)| [1 << a, 1 << b]),
        prop::sample::select(vec![DepthFunc::LessEqual, DepthFunc::Less, DepthFunc::Always]),
        1u32..=16,
    )
}

proptest! {
    #![proptest_config(ProptestConfig::with_cases(128))]

    /// LSD radix sort = stable std sort, any digit width 1..=16, any key width.
    #[test]
    fn radix_equals_std_sort(keys in prop::collection::vec(any::<u64>(), 0..300), key_bits in 1u32..=64, digit in 1u32..=16) {
        let mask = if key_bits == 64 { u64::MAX } else { (1u64 << key_bits) - 1 };
        // Many duplicates: also squeeze keys into a few values half of the time.
        let mut v: Vec<(u64, u32)> = keys.iter().enumerate().map(|(i, k)| (if i % 2 == 0 { k & mask } else { (k % 7) & mask }, i as u32)).collect();
        let mut want = v.clone();
        want.sort_by_key(|e| e.0);
        let passes = radix_sort(&mut v, key_bits, digit).unwrap();
        prop_assert_eq!(passes, key_bits.div_ceil(digit));
        prop_assert_eq!(v, want);
    }

    /// Random quads in one tile: every visible sample is written exactly once and equals the
    /// brute-force "last passing primitive" colour; counters match counts from the brute force.
    #[test]
    fn scatter_equals_brute_force(
        (msaa, st, func, digit) in arb_setup(),
        raw in prop::collection::vec((0u32..40, 0u32..64, 0u32..64, any::<u64>(), 0u32..4), 1..80),
    ) {
        let mut c = cfg(st, msaa, func);
        c.sort_digit_bits = digit;
        let used = if msaa == 16 { u64::MAX } else { (1u64 << (4 * msaa)) - 1 };
        let (w, h) = (st[0], st[1]);
        let tile = [1u32, 1u32];
        let quads: Vec<(Quad, u32)> = raw
            .iter()
            .filter(|r| r.3 & used != 0)
            .map(|&(prim, qx, qy, m, d)| {
                (Quad { prim: prim * 997 % 40, qx: (tile[0] * w / 2 + qx % (w / 2)) as u16, qy: (tile[1] * h / 2 + qy % (h / 2)) as u16, mask: m & used }, d * 1000)
            })
            .collect();
        let recs: Vec<PixelInfo> = quads
            .iter()
            .map(|(q, d)| PixelInfo { mask: q.mask, depth: *d, prim: q.prim, frame: 4, qx: (q.qx as u32 % (w / 2)) as u8, qy: (q.qy as u32 % (h / 2)) as u8 })
            .collect();
        let cols = colours(40);
        let mut tr = Vec::new();
        let (t, s) = shade_tile_traced(&c, tile, &recs, &cols, Some(&mut tr)).unwrap();
        let (want, passes) = brute(func, msaa, &quads);
        let (ox, oy) = (w, h);
        let mut n = 0u64;
        for py in 0..h {
            for px in 0..w {
                for smp in 0..msaa {
                    let got = t.get(px, py, smp);
                    let exp = want.get(&(ox + px, oy + py, smp)).map(|&(p, _)| (p, cols[p as usize]));
                    prop_assert_eq!(got, exp);
                    n += got.is_some() as u64;
                }
            }
        }
        prop_assert_eq!(t.samples.len() as u32, w * h * msaa);
        prop_assert_eq!(s.visible_samples, want.len() as u64);
        prop_assert_eq!(s.scatter_writes, n);
        prop_assert_eq!(s.visible_samples, n);
        prop_assert_eq!(s.depth_tests, quads.iter().map(|(q, _)| q.mask.count_ones() as u64).sum::<u64>());
        prop_assert_eq!(s.depth_passes, passes);
        let points: BTreeSet<(u32, u32, u32)> = want.iter().map(|(k, v)| (v.0, k.0, k.1)).collect();
        let squads: BTreeSet<(u32, u32, u32)> = want.iter().map(|(k, v)| (v.0, k.0 / 2, k.1 / 2)).collect();
        prop_assert_eq!(s.shading_points, points.len() as u64);
        prop_assert_eq!(s.shading_quads, squads.len() as u64);
        prop_assert_eq!(s.shading_invocations, 4 * squads.len() as u64);
        prop_assert_eq!(tr.len() as u64, s.shading_quads);
        prop_assert_eq!(tr.iter().map(|q| q.samples as u64).sum::<u64>(), n);
        // Dispatch order: primitive, then Morton order of the quad — strictly increasing.
        let (xb, yb) = (w.trailing_zeros(), h.trailing_zeros());
        let order: Vec<(u32, u32)> = tr.iter().map(|q| (q.prim, morton(2 * q.qx, 2 * q.qy, xb, yb))).collect();
        prop_assert!(order.windows(2).all(|p| p[0] < p[1]), "{:?}", order);
        // Passes: over the bits of the primitive-id range present (the readout's Morton
        // order sorts the coordinate bits), digits of at most the tile's coordinate bits.
        if n > 0 {
            let (lo, hi) = (want.values().map(|v| v.0).min().unwrap(), want.values().map(|v| v.0).max().unwrap());
            let bits = 32 - (hi - lo).leading_zeros();
            prop_assert_eq!(s.sort_passes, bits.div_ceil(digit.min(xb + yb)) as u64);
        } else {
            prop_assert_eq!(s.sort_passes, 0);
        }
    }

    /// Whole pixel side through the store: quads pushed in first-tile order, read per second
    /// tile after finish, shaded; every sample equals the brute force over all quads and every
    /// tile carries the frame id.
    #[test]
    fn store_to_samples_equals_brute_force(
        (msaa, st, func, digit) in arb_setup(),
        raw in prop::collection::vec((0u32..30, 0u32..48, 0u32..32, any::<u64>(), 0u32..3), 1..150),
        frame in any::<u8>(),
    ) {
        let mut c = cfg(st, msaa, func);
        c.viewport = [96, 64];
        c.tile = [16, 16];
        c.subtile = [4, 4];
        c.sort_digit_bits = digit;
        c.pixel_info_block_bytes = 64;
        let used = if msaa == 16 { u64::MAX } else { (1u64 << (4 * msaa)) - 1 };
        let mut quads: Vec<(Quad, u32)> = raw
            .iter()
            .filter(|r| r.3 & used != 0)
            .map(|&(prim, qx, qy, m, d)| (Quad { prim, qx: qx as u16, qy: qy as u16, mask: m & used }, d))
            .collect();
        // Raster order: by first tile (rows bottom-up, left→right), then submission (prim) order.
        quads.sort_by_key(|(q, _)| ((q.qy / 8, q.qx / 8), q.prim));
        let mut store = PixelInfoStore::new(&c, frame).unwrap();
        for (q, d) in &quads {
            store.push(q, *d).unwrap();
        }
        let cols = colours(30);
        prop_assert_eq!(shade_store(&c, &mut store, &cols).unwrap_err().field, "finish_raster");
        store.finish_raster().unwrap();
        let (tiles, total) = shade_store(&c, &mut store, &cols).unwrap();
        let (want, passes) = brute(func, msaa, &quads);
        prop_assert_eq!(tiles.len() as u32, 96u32.div_ceil(st[0]) * 64u32.div_ceil(st[1]));
        let mut n = 0;
        for t in &tiles {
            prop_assert_eq!(t.frame, Some(frame));
            for py in 0..t.size[1] {
                for px in 0..t.size[0] {
                    for smp in 0..msaa {
                        let (x, y) = (t.origin[0] + px, t.origin[1] + py);
                        let exp = want.get(&(x, y, smp)).map(|&(p, _)| (p, cols[p as usize]));
                        prop_assert_eq!(t.get(px, py, smp), exp);
                        n += exp.is_some() as u64;
                    }
                }
            }
        }
        prop_assert_eq!(total.visible_samples, n);
        prop_assert_eq!(total.visible_samples, want.len() as u64);
        prop_assert_eq!(total.depth_passes, passes);
    }
}
