//! Seed 001 binner: hand-worked lists and byte counts, brute force over tiles, and primitive
//! bounding boxes against the brute-force reference coverage.

use proptest::prelude::*;
use tilerast_golden::binner::{bin, bin_primitives, bin_with_chunk, point_bbox, prim_bbox, BIN_CHUNK_BYTES};
use tilerast_golden::reference::{self, RefStats};
use tilerast_golden::setup::PixelBox;
use tilerast_golden::{Config, PointFx, PrimitiveFx, TriangleFx};

fn cfg64() -> Config {
    let mut c = Config::preset("default").unwrap();
    c.viewport = [64, 64];
    c.tile = [16, 16];
    c.subtile = [4, 4];
    c
}

fn pb(x0: u32, y0: u32, x1: u32, y1: u32) -> PixelBox {
    PixelBox { x0, y0, x1, y1 }
}

#[test]
fn hand_worked_lists_and_bytes() {
    // 64x64 viewport, 16x16 tiles → 4x4 tiles, index = ty*4 + tx.
    // prim 7: pixels [0,15]x[0,15]          → tile (0,0)
    // prim 3: pixels [10,20]x[10,20]        → tiles (0,0) (1,0) (0,1) (1,1)
    // prim 9: pixels [48,63]x[0,63]         → tiles (3,0) (3,1) (3,2) (3,3)
    let c = cfg64();
    let mut b = bin(
        &c,
        &[(7, pb(0, 0, 15, 15)), (3, pb(10, 10, 20, 20)), (9, pb(48, 0, 63, 63))],
    )
    .unwrap();
    assert_eq!(b.tiles(), [4, 4]);
    let expect: &[([u32; 2], &[u32])] = &[
        ([0, 0], &[7, 3]),
        ([1, 0], &[3]),
        ([2, 0], &[]),
        ([3, 0], &[9]),
        ([0, 1], &[3]),
        ([1, 1], &[3]),
        ([2, 1], &[]),
        ([3, 1], &[9]),
        ([0, 2], &[]),
        ([3, 2], &[9]),
        ([3, 3], &[9]),
        ([1, 3], &[]),
    ];
    let before = b.stats();
    // entries = 1 + 4 + 4 = 9; touched tiles = (0,0) (1,0) (3,0) (0,1) (1,1) (3,1) (3,2) (3,3) = 8;
    // longest list = tile (0,0) with 2. With 64-byte chunks (15 indices) every touched tile
    // needs one chunk: 8 chunks. Bytes written = table 16 tiles × 8 = 128, + 9 indices × 4 = 36,
    // + 8 next pointers × 4 = 32 → 196.
    assert_eq!(before.prims, 3);
    assert_eq!(before.entries, 9);
    assert_eq!(before.tiles_touched, 8);
    assert_eq!(before.max_list_len, 2);
    assert_eq!(before.chunks, 8);
    assert_eq!(before.bytes_written, 196);
    assert_eq!(before.bytes_read, 0);
    assert_eq!(BIN_CHUNK_BYTES, 64);
    let mut read = 0;
    for (t, l) in expect {
        assert_eq!(b.read_tile(*t).unwrap(), l.to_vec(), "tile {t:?}");
        // Reading a list = table entry 8 + 4 per index (single chunk: no next pointer read).
        read += 8 + 4 * l.len() as u64;
        assert_eq!(b.stats().bytes_read, read);
    }
    assert!(b.read_tile([4, 0]).is_err());
}

#[test]
fn multi_chunk_list() {
    // 16-byte chunks hold a next pointer + 3 indices. Seven primitives all in tile (1,2):
    // 3 chunks. Written = table 16×8 = 128 + 7×4 = 28 + 3×4 = 12 → 168.
    // Reading tile (1,2) = 8 + 28 + 2 next pointers × 4 = 44.
    let c = cfg64();
    let boxes: Vec<_> = (0..7).map(|i| (100 + i, pb(16 + i, 32, 20 + i, 40))).collect();
    let mut b = bin_with_chunk(&c, &boxes, 16).unwrap();
    let s = b.stats();
    assert_eq!(
        (s.entries, s.chunks, s.tiles_touched, s.max_list_len, s.bytes_written),
        (7, 3, 1, 7, 168)
    );
    assert_eq!(b.read_tile([1, 2]).unwrap(), (100..107).collect::<Vec<_>>());
    assert_eq!(b.stats().bytes_read, 44);
    assert_eq!(b.read_tile([0, 0]).unwrap(), Vec::<u32>::new());
    assert_eq!(b.stats().bytes_read, 52);
}

#[test]
fn bad_input_names_field() {
    let c = cfg64();
    assert_eq!(bin(&c, &[(0, pb(0, 0, 64, 3))]).unwrap_err().field, "bboxes");
    assert_eq!(bin(&c, &[(0, pb(5, 0, 4, 3))]).unwrap_err().field, "bboxes");
    assert_eq!(bin_with_chunk(&c, &[], 6).unwrap_err().field, "chunk_bytes");
    let mut bad = c.clone();
    bad.msaa = 3;
    assert_eq!(bin(&bad, &[]).unwrap_err().field, "msaa");
}

#[test]
fn point_bbox_hand_worked() {
    let c = cfg64();
    // Size 8 (even), position (20.3, 30.7): centre (⌊20.8⌋, ⌊31.2⌋) = (20, 31);
    // pixels 16..=23 × 27..=34.
    let p = PointFx {
        pos: [20 * 256 + 77, 30 * 256 + 179],
        size: 8 * 256,
        aa: false,
        colour: [0; 4],
        depth: 0,
    };
    assert_eq!(point_bbox(&c, &p), Some(pb(16, 27, 23, 34)));
    // Size 9 (odd): centre pixel (20, 30); pixels 16..=24 × 26..=34.
    let p9 = PointFx { size: 9 * 256, ..p };
    assert_eq!(point_bbox(&c, &p9), Some(pb(16, 26, 24, 34)));
    // AA, size 3 px at (10, 10): [8.5, 11.5) → pixels 8..=11.
    let pa = PointFx {
        pos: [2560, 2560],
        size: 768,
        aa: true,
        ..p
    };
    assert_eq!(point_bbox(&c, &pa), Some(pb(8, 8, 11, 11)));
    // AA, size 2 px at (10, 10): [9, 11) → pixels 9..=10 (pixel 11 starts at the open edge).
    let pa2 = PointFx { size: 512, ..pa };
    assert_eq!(point_bbox(&c, &pa2), Some(pb(9, 9, 10, 10)));
    // AA size 0 covers nothing; a point far off screen has no box; one at the corner is clipped.
    assert_eq!(point_bbox(&c, &PointFx { size: 0, ..pa }), None);
    assert_eq!(point_bbox(&c, &PointFx { pos: [-5000, 100], ..p }), None);
    assert_eq!(point_bbox(&c, &PointFx { pos: [0, 0], ..p }), Some(pb(0, 0, 3, 3)));
}

fn tri(v: [[i32; 2]; 3]) -> PrimitiveFx {
    PrimitiveFx::Triangle(TriangleFx {
        v,
        colour: [1, 2, 3, 4],
        depth: 0,
    })
}

#[test]
fn bin_primitives_skips_empty_and_keeps_order() {
    let c = cfg64();
    let prims = vec![
        tri([[0, 0], [256, 256], [512, 512]]),       // zero area: not binned
        tri([[256, 256], [4096, 256], [256, 4096]]), // pixels [1,16]²: tiles (0,0) (1,0) (0,1) (1,1)
        PrimitiveFx::Point(PointFx {
            pos: [20 * 256, 20 * 256],
            size: 256,
            aa: false,
            colour: [0; 4],
            depth: 0,
        }), // pixel (20,20): tile (1,1)
    ];
    let mut b = bin_primitives(&c, &prims).unwrap();
    assert_eq!(b.stats().prims, 2);
    assert_eq!(b.read_tile([1, 1]).unwrap(), vec![1, 2]);
    assert_eq!(b.read_tile([0, 0]).unwrap(), vec![1]);
    assert_eq!(b.read_tile([2, 2]).unwrap(), Vec::<u32>::new());
}

fn arb_box(w: u32, h: u32) -> impl Strategy<Value = PixelBox> {
    (0..w, 0..h, 0..w, 0..h).prop_map(|(a, b, c, d)| pb(a.min(c), b.min(d), a.max(c), b.max(d)))
}

proptest! {
    #![proptest_config(ProptestConfig::with_cases(128))]

    /// Every list equals, in order, the primitives whose box overlaps the tile (brute force over
    /// every tile and every box), and the byte counters follow the layout formula.
    #[test]
    fn lists_equal_brute_force(boxes in prop::collection::vec(arb_box(100, 70), 0..60), tw in 1u32..5, th in 1u32..5, chunk in 2u32..20) {
        let mut c = Config::preset("default").unwrap();
        c.viewport = [100, 70];
        c.tile = [1 << tw, 1 << th];
        c.subtile = [2, 2];
        c.colour_block_bytes = 16;
        let chunk_bytes = 4 * chunk;
        let input: Vec<(u32, PixelBox)> = boxes.iter().enumerate().map(|(i, b)| (i as u32 * 3 + 1, *b)).collect();
        let mut b = bin_with_chunk(&c, &input, chunk_bytes).unwrap();
        let [nx, ny] = c.tiles();
        let per_chunk = (chunk_bytes as u64 - 4) / 4;
        let (mut entries, mut chunks, mut touched, mut maxlen, mut read) = (0u64, 0u64, 0u64, 0u64, 0u64);
        for ty in 0..ny {
            for tx in 0..nx {
                let (x0, y0) = (tx * c.tile[0], ty * c.tile[1]);
                let want: Vec<u32> = input.iter().filter(|(_, bb)| bb.overlaps(x0, y0, x0 + c.tile[0] - 1, y0 + c.tile[1] - 1)).map(|p| p.0).collect();
                prop_assert_eq!(b.read_tile([tx, ty]).unwrap(), want.clone());
                let n = want.len() as u64;
                let ch = n.div_ceil(per_chunk);
                entries += n;
                chunks += ch;
                touched += (n > 0) as u64;
                maxlen = maxlen.max(n);
                read += 8 + 4 * n + 4 * ch.saturating_sub(1);
            }
        }
        let s = b.stats();
        prop_assert_eq!(s.entries, entries);
        prop_assert_eq!(s.chunks, chunks);
        prop_assert_eq!(s.tiles_touched, touched);
        prop_assert_eq!(s.max_list_len as u64, maxlen);
        prop_assert_eq!(s.bytes_written, 8 * (nx * ny) as u64 + 4 * entries + 4 * chunks);
        prop_assert_eq!(s.bytes_read, read);
    }

    /// A point's box contains every pixel the reference covers; for non-AA points fully on
    /// screen it is exactly the covered N×N pixels.
    #[test]
    fn point_bbox_contains_reference(x in -2000i32..20000, y in -2000i32..20000, size in 0i32..6000, aa in any::<bool>()) {
        let c = cfg64();
        let p = PointFx { pos: [x, y], size, aa, colour: [0; 4], depth: 0 };
        let cov = reference::point(&c, &p, &mut RefStats::default());
        let bb = point_bbox(&c, &p);
        if let Some(b) = bb {
            for &(px, py) in cov.keys() {
                prop_assert!(px >= b.x0 && px <= b.x1 && py >= b.y0 && py <= b.y1);
            }
            if !aa {
                prop_assert_eq!(cov.len() as u64, b.pixels());
            }
        } else {
            prop_assert!(cov.is_empty());
        }
    }

    /// Binning triangles by their setup box: every reference-covered pixel's tile lists the
    /// triangle.
    #[test]
    fn covered_pixels_are_in_listed_tiles(v in prop::array::uniform3(prop::array::uniform2(-2000i32..18000))) {
        let c = cfg64();
        let p = tri(v);
        let PrimitiveFx::Triangle(t) = p else { unreachable!() };
        let cov = reference::triangle(&c, &t, &mut RefStats::default());
        let mut b = bin_primitives(&c, &[p]).unwrap();
        prop_assert_eq!(prim_bbox(&c, &p).is_some() as u64, b.stats().prims);
        for &(px, py) in cov.keys() {
            prop_assert_eq!(b.read_tile([px / 16, py / 16]).unwrap(), vec![0]);
        }
    }
}
