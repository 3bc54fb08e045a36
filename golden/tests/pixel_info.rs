//! Seed 001 pixel-info store: linked-list reconstruction, byte counters, the "pixel side only
//! after the raster side" rule, frame ids, and independence of first and second tile sizes.

use proptest::prelude::*;
use tilerast_golden::pixel_info::{record_bytes, PixelInfo, PixelInfoStore, DEPTH_MAX, NIL};
use tilerast_golden::{Config, Quad};

fn cfg(viewport: [u32; 2], second_tile: [u32; 2], msaa: u32, block: u32) -> Config {
    let mut c = Config::preset("default").unwrap();
    c.viewport = viewport;
    c.second_tile = second_tile;
    c.msaa = msaa;
    c.pixel_info_block_bytes = block;
    c
}

fn q(prim: u32, qx: u16, qy: u16, mask: u64) -> Quad {
    Quad { prim, qx, qy, mask }
}

#[test]
fn record_sizes() {
    // 12-byte header holds 16 mask bits; S = 8 needs 32 bits (+1 word), S = 16 needs 64 (+2).
    assert_eq!([1, 2, 4, 8, 16].map(record_bytes), [12, 12, 12, 16, 20]);
}

#[test]
fn byte_counters_hand_worked() {
    // Viewport 16x8, second tile 8x8 → 2 second tiles. 4x MSAA → 12-byte records; 32-byte
    // blocks hold a next pointer + (32 − 4) / 12 = 2 records.
    // Tile (0,0) gets 5 records → 3 blocks; tile (1,0) gets 1 record → 1 block.
    let c = cfg([16, 8], [8, 8], 4, 32);
    let mut s = PixelInfoStore::new(&c, 7).unwrap();
    let t0 = [
        q(0, 0, 0, 0xf),
        q(1, 1, 0, 0xf0),
        q(2, 2, 1, 0x1),
        q(3, 3, 3, 0xffff),
        q(4, 0, 3, 0x8000),
    ];
    let t1 = q(5, 4, 2, 0x0f0f); // pixel x = 8 → second tile (1,0), local quad (0, 2)
    for (i, qq) in t0.iter().enumerate() {
        s.push(qq, 100 + i as u32).unwrap();
    }
    s.push(&t1, DEPTH_MAX).unwrap();
    let st = s.stats();
    assert_eq!(st.records, 6);
    assert_eq!(st.record_bytes, 12);
    assert_eq!(st.records_per_block, 2);
    assert_eq!(st.blocks_allocated, 4);
    // Before finish: 6 records × 12 = 72, plus next pointers of the two blocks of tile (0,0)
    // closed by linking = 8 → 80.
    assert_eq!(st.bytes_written, 80);
    s.finish_raster().unwrap();
    // Finish writes the 2 open tails' next pointers (8) and the table 2 × 8 = 16 → 104.
    let st = s.stats();
    assert_eq!(st.bytes_written, 104);
    // Footprint: table 16 padded to one 32-byte block + 4 blocks × 32 = 160.
    assert_eq!(st.memory_bytes, 160);
    assert_eq!(st.bytes_read, 0);
    // Table entry of tile (1,0) at address 8: head = block index 4 (the table is block 0, the
    // fourth allocated block is block 4, at byte 128), count 1; that block's next is NIL.
    assert_eq!(s.memory().peek_u32(8), Some(4));
    assert_eq!(s.memory().peek_u32(12), Some(1));
    assert_eq!(s.memory().peek_u32(128), Some(NIL));
    // Tile (0,0): its five records came first, in blocks 1 → 2 → 3 (bytes 32, 64, 96).
    assert_eq!(s.memory().peek_u32(0), Some(1));
    assert_eq!(s.memory().peek_u32(32), Some(2));
    assert_eq!(s.memory().peek_u32(64), Some(3));
    assert_eq!(s.memory().peek_u32(96), Some(NIL));

    let r0 = s.read_second_tile([0, 0]).unwrap();
    // Read = table entry 8 + 5 × 12 + 2 next pointers × 4 = 76.
    assert_eq!(s.stats().bytes_read, 76);
    let r1 = s.read_second_tile([1, 0]).unwrap();
    assert_eq!(s.stats().bytes_read, 76 + 8 + 12);
    let want0: Vec<PixelInfo> = t0
        .iter()
        .enumerate()
        .map(|(i, qq)| PixelInfo {
            mask: qq.mask,
            depth: 100 + i as u32,
            prim: qq.prim,
            frame: 7,
            qx: qq.qx as u8,
            qy: qq.qy as u8,
        })
        .collect();
    assert_eq!(r0, want0);
    assert_eq!(
        r1,
        vec![PixelInfo {
            mask: 0x0f0f,
            depth: DEPTH_MAX,
            prim: 5,
            frame: 7,
            qx: 0,
            qy: 2
        }]
    );
    assert_eq!(r1[0].quad(&c, [1, 0]), t1);
    assert_eq!(s.second_tiles().collect::<Vec<_>>(), vec![[0, 0], [1, 0]]);
}

#[test]
fn read_before_finish_is_an_error() {
    let c = cfg([32, 32], [16, 16], 4, 64);
    let mut s = PixelInfoStore::new(&c, 0).unwrap();
    s.push(&q(0, 0, 0, 1), 0).unwrap();
    let e = s.read_second_tile([0, 0]).unwrap_err();
    assert_eq!(e.field, "finish_raster");
    assert!(s.read_all().is_err());
    s.finish_raster().unwrap();
    assert_eq!(s.read_second_tile([0, 0]).unwrap().len(), 1);
    assert_eq!(s.push(&q(0, 0, 0, 1), 0).unwrap_err().field, "finish_raster");
    assert!(s.finish_raster().is_err());
    assert_eq!(s.read_second_tile([2, 0]).unwrap_err().field, "second_tile");
}

#[test]
fn take_second_tile_early_counts_what_finish_then_read_counts() {
    // The hand-worked store of `byte_counters_hand_worked`, streamed: tile (1,0) is taken
    // (closed, read, freed) before tile (0,0) is even complete; the counters at the end are the
    // hand-worked ones (written 104, read 76 + 20, footprint 144) and the records equal.
    let c = cfg([16, 8], [8, 8], 4, 32);
    let mut s = PixelInfoStore::new(&c, 7).unwrap();
    let t0 = [q(0, 0, 0, 0xf), q(1, 1, 0, 0xf0), q(2, 2, 1, 0x1)];
    for (i, qq) in t0.iter().enumerate() {
        s.push(qq, 100 + i as u32).unwrap();
    }
    s.push(&q(5, 4, 2, 0x0f0f), DEPTH_MAX).unwrap();
    assert_eq!(s.records_held(), 4);
    let r1 = s.take_second_tile([1, 0]).unwrap();
    assert_eq!((r1.len(), r1[0].prim), (1, 5));
    assert_eq!(s.records_held(), 3);
    // Its list is closed: no push reaches it, no second read.
    assert_eq!(s.push(&q(6, 4, 0, 1), 0).unwrap_err().field, "list");
    assert_eq!(s.take_second_tile([1, 0]).unwrap_err().field, "list");
    // Tile (0,0) still takes records.
    s.push(&q(3, 3, 3, 0xffff), 103).unwrap();
    s.push(&q(4, 0, 3, 0x8000), 104).unwrap();
    let r0 = s.take_second_tile([0, 0]).unwrap();
    assert_eq!(r0.iter().map(|r| r.prim).collect::<Vec<_>>(), [0, 1, 2, 3, 4]);
    assert_eq!(s.records_held(), 0);
    s.finish_raster().unwrap();
    let st = s.stats();
    assert_eq!(
        (
            st.records,
            st.blocks_allocated,
            st.bytes_written,
            st.bytes_read,
            st.memory_bytes
        ),
        (6, 4, 104, 76 + 20, 160)
    );
    // The blocks were given back: reading the list again is an error, not garbage.
    assert_eq!(s.read_second_tile([0, 0]).unwrap_err().field, "list");
}

#[test]
fn memory_free_drops_chunks_and_refuses_double_free() {
    use tilerast_golden::pixel_info::{Memory, CHUNK_BYTES};
    let mut m = Memory::new();
    let a = m.alloc(CHUNK_BYTES).unwrap();
    let b = m.alloc(CHUNK_BYTES / 2).unwrap();
    let c = m.alloc(CHUNK_BYTES / 2).unwrap();
    assert_eq!(
        (m.size(), m.resident()),
        (2 * CHUNK_BYTES as u64, 2 * CHUNK_BYTES as u64)
    );
    m.write_u32(c, 9).unwrap();
    m.free(a, CHUNK_BYTES).unwrap();
    assert_eq!(m.resident(), CHUNK_BYTES as u64);
    assert_eq!(m.read_u32(a).unwrap_err().field, "memory");
    // Half of the second chunk is still live.
    m.free(b, CHUNK_BYTES / 2).unwrap();
    assert_eq!(m.read_u32(c).unwrap(), 9);
    m.free(c, CHUNK_BYTES / 2).unwrap();
    assert_eq!(m.resident(), 0);
    assert_eq!(m.peak_resident(), 2 * CHUNK_BYTES as u64);
    assert!(m.free(c, 4).is_err(), "double free");
    // The footprint and the counters are unchanged by freeing; addresses are not reused.
    assert_eq!(
        (m.size(), m.bytes_written(), m.bytes_read()),
        (2 * CHUNK_BYTES as u64, 4, 4)
    );
    assert_eq!(m.alloc(8).unwrap(), 2 * CHUNK_BYTES as u64);
}

#[test]
fn bad_input_names_field() {
    let c = cfg([32, 32], [16, 16], 4, 64);
    let mut s = PixelInfoStore::new(&c, 0).unwrap();
    assert_eq!(s.push(&q(0, 0, 0, 1), 1 << 24).unwrap_err().field, "depth");
    assert_eq!(s.push(&q(0, 0, 0, 0), 0).unwrap_err().field, "quad.mask");
    assert_eq!(s.push(&q(0, 0, 0, 1 << 16), 0).unwrap_err().field, "quad.mask");
    assert_eq!(s.push(&q(0, 16, 0, 1), 0).unwrap_err().field, "quad");
    // 16-byte blocks cannot hold a 16-byte (8x) record next to the pointer.
    assert_eq!(
        PixelInfoStore::new(&cfg([32, 32], [16, 16], 8, 16), 0)
            .unwrap_err()
            .field,
        "pixel_info_block_bytes"
    );
    // A quad half outside an odd viewport is fine as long as its outside pixels are uncovered.
    let c = cfg([31, 31], [16, 16], 1, 64);
    let mut s = PixelInfoStore::new(&c, 0).unwrap();
    s.push(&q(0, 15, 15, 0b0001), 0).unwrap();
    assert_eq!(s.push(&q(0, 15, 15, 0b0010), 0).unwrap_err().field, "quad");
}

#[test]
fn first_and_second_tiles_independent() {
    // The raster side walks 16x16 first tiles; the store groups by second tile only.
    // Quad (9, 1) = pixels x 18..19, y 2..3: first tile (1, 0).
    //  - second tile 32x16 (larger than the first tile): tile (0, 0), local quad (9, 1);
    //  - second tile 8x4 (smaller): tile (18/8, 2/4) = (2, 0), local quad ((18 % 8)/2, (2 % 4)/2) = (1, 1).
    // Quad (3, 12) = pixels 6..7 × 24..25: first tile (0, 1).
    //  - 32x16: tile (0, 1), local (3, 4);  - 8x4: tile (0, 6), local (3, 0).
    for (st, a, b) in [
        ([32u32, 16u32], ([0u32, 0u32], 9u8, 1u8), ([0u32, 1u32], 3u8, 4u8)),
        ([8, 4], ([2, 0], 1, 1), ([0, 6], 3, 0)),
    ] {
        let mut c = cfg([64, 64], st, 4, 64);
        c.tile = [16, 16];
        let mut s = PixelInfoStore::new(&c, 3).unwrap();
        // Pushed in raster (first tile) order: tile (1,0) comes before tile (0,1).
        s.push(&q(1, 9, 1, 0xf), 5).unwrap();
        s.push(&q(2, 3, 12, 0xf0), 6).unwrap();
        s.finish_raster().unwrap();
        let mut nonempty = Vec::new();
        for t in s.second_tiles() {
            let r = s.read_second_tile(t).unwrap();
            for rec in &r {
                nonempty.push((t, rec.qx, rec.qy, rec.prim));
            }
        }
        // Second tiles are visited rows bottom-up: a's row first.
        assert_eq!(
            nonempty,
            vec![(a.0, a.1, a.2, 1), (b.0, b.1, b.2, 2)],
            "second tile {st:?}"
        );
        assert_eq!(s.second_tile_count(), [64 / st[0], 64 / st[1]]);
    }
}

/// Random quads anywhere in a `vw`x`vh` viewport (even sizes) with random 64-bit masks (cut to
/// 4·S bits by the test) and depths.
fn arb_quads(vw: u32, vh: u32) -> impl Strategy<Value = Vec<(Quad, u32)>> {
    prop::collection::vec(
        (0u32..1 << 22, 0..vw / 2, 0..vh / 2, any::<u64>(), 0u32..=DEPTH_MAX),
        1..400,
    )
    .prop_map(move |v| {
        v.into_iter()
            .map(|(prim, qx, qy, mask, d)| {
                (
                    Quad {
                        prim,
                        qx: qx as u16,
                        qy: qy as u16,
                        mask,
                    },
                    d,
                )
            })
            .collect()
    })
}

proptest! {
    #![proptest_config(ProptestConfig::with_cases(96))]

    /// Walking each second tile's linked list in memory gives back exactly the records pushed
    /// to it, in push order (expected values grouped independently here), with small blocks so
    /// that lists span many blocks; byte counters follow the layout formula.
    #[test]
    fn reconstruction_equals_pushed(
        msaa in prop::sample::select(vec![1u32, 2, 4, 8, 16]),
        (stw, sth) in (1u32..5, 1u32..5),
        block in prop::sample::select(vec![32u32, 64, 128]),
        frame in any::<u8>(),
        quads in arb_quads(40, 24),
    ) {
        let c = cfg([40, 24], [1 << stw, 1 << sth], msaa, block);
        let bits = 4 * msaa;
        let used = if bits == 64 { u64::MAX } else { (1u64 << bits) - 1 };
        let quads: Vec<(Quad, u32)> = quads.into_iter().map(|(mut qq, d)| { qq.mask &= used; if qq.mask == 0 { qq.mask = 1 } (qq, d) }).collect();
        let mut s = PixelInfoStore::new(&c, frame).unwrap();
        for (qq, d) in &quads {
            s.push(qq, *d).unwrap();
        }
        s.finish_raster().unwrap();
        let (w, h) = (c.second_tile[0], c.second_tile[1]);
        let [nx, ny] = [40u32.div_ceil(w), 24u32.div_ceil(h)];
        let rb = record_bytes(msaa) as u64;
        let per = (block as u64 - 4) / rb;
        let (mut blocks, mut read) = (0u64, 0u64);
        let mut order = Vec::new();
        for t in s.second_tiles() {
            order.push(t);
            let got = s.read_second_tile(t).unwrap();
            let want: Vec<PixelInfo> = quads
                .iter()
                .filter(|(qq, _)| 2 * qq.qx as u32 / w == t[0] && 2 * qq.qy as u32 / h == t[1])
                .map(|(qq, d)| PixelInfo {
                    mask: qq.mask,
                    depth: *d,
                    prim: qq.prim,
                    frame,
                    qx: (qq.qx as u32 - t[0] * w / 2) as u8,
                    qy: (qq.qy as u32 - t[1] * h / 2) as u8,
                })
                .collect();
            let want_quads: Vec<Quad> = quads.iter().filter(|(qq, _)| 2 * qq.qx as u32 / w == t[0] && 2 * qq.qy as u32 / h == t[1]).map(|x| x.0).collect();
            prop_assert_eq!(got.iter().map(|r| r.quad(&c, t)).collect::<Vec<_>>(), want_quads);
            prop_assert_eq!(&got, &want);
            let n = want.len() as u64;
            let b = n.div_ceil(per);
            blocks += b;
            read += 8 + rb * n + 4 * b.saturating_sub(1);
        }
        let expect_order: Vec<[u32; 2]> = (0..ny).flat_map(|y| (0..nx).map(move |x| [x, y])).collect();
        prop_assert_eq!(order, expect_order);
        let st = s.stats();
        prop_assert_eq!(st.records, quads.len() as u64);
        prop_assert_eq!(st.blocks_allocated, blocks);
        prop_assert_eq!(st.bytes_written, 8 * (nx * ny) as u64 + rb * quads.len() as u64 + 4 * blocks);
        prop_assert_eq!(st.bytes_read, read);
        prop_assert_eq!(st.memory_bytes, (8 * (nx * ny) as u64).next_multiple_of(block as u64) + block as u64 * blocks);
    }
}
