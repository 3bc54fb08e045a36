//! Cycle model of the quad packer (`QuadPackerCycle`), alone and chained behind the sample
//! rasterizer's cycle model:
//! * chain: random triangles on every preset → golden setup + sub-tile coverage → jobs →
//!   `SampleRasterCycle` → `QuadPackerCycle`, random input gaps, random ready between the two
//!   blocks and at the output (with long stalls): the quads, in order, equal golden
//!   `raster_triangle_tile`, exactly one `last` per command, every beat but a command's last
//!   has all Q lanes, lanes fill from lane 0, and `block` is golden `block_layout`'s block;
//! * alone: random beat streams (any lane pattern) against a direct packing reference;
//! * a worked case with its cycle-by-cycle timing derived by hand, flush, refused configs.

use proptest::prelude::*;
use tilerast_golden::config::{Config, ONE, PRESETS};
use tilerast_golden::cycle::{drive, CycleModel};
use tilerast_golden::prim::{Quad, TriangleFx};
use tilerast_golden::quad_packer::{block_layout, QuadPackerCycle, QuadPackerGeom};
use tilerast_golden::raster::{raster_triangle_tile, tiles_of, RasterStats};
use tilerast_golden::sample_raster::SampleRasterCycle;
use tilerast_golden::setup::{setup_triangle, TriSetup};
use tilerast_golden::streams::{Beat, Job};
use tilerast_golden::tile_parser::parse_tile;
use tilerast_verif::stim::jobs_for;
use tilerast_verif::{Handshake, Pattern};

fn gen_tri(cfg: &Config, kind: u32, r: &[u32; 8]) -> Option<TriSetup> {
    let (lo, hi) = cfg.guard_limits_fx();
    let pick = |v: u32, a: i32, b: i32| a + (v % ((b - a + 1) as u32)) as i32;
    let (vw, vh) = (cfg.viewport[0] as i32 * ONE, cfg.viewport[1] as i32 * ONE);
    let v = match kind % 3 {
        0 => [0, 1, 2].map(|i| [pick(r[2 * i], lo[0], hi[0]), pick(r[2 * i + 1], lo[1], hi[1])]),
        k => {
            let rad = if k == 1 { 48 * ONE } else { 6 * ONE };
            let c = [pick(r[6], -ONE * 8, vw + ONE * 8), pick(r[7], -ONE * 8, vh + ONE * 8)];
            [0, 1, 2].map(|i| {
                [
                    (c[0] + pick(r[2 * i], -rad, rad)).clamp(lo[0], hi[0]),
                    (c[1] + pick(r[2 * i + 1], -rad, rad)).clamp(lo[1], hi[1]),
                ]
            })
        }
    };
    setup_triangle(
        cfg,
        &TriangleFx {
            v,
            colour: [0; 4],
            depth: 0,
        },
    )
    .ok()
}

/// Up to 4 tiles of the triangle's bounding box, spread over it.
fn some_tiles(cfg: &Config, tri: &TriSetup, pick: u32) -> Vec<[u32; 2]> {
    let tiles: Vec<[u32; 2]> = tiles_of(cfg, &tri.bbox).collect();
    let n = tiles.len();
    if n <= 4 {
        return tiles;
    }
    let mut idx: Vec<usize> = (0..4).map(|i| (pick as usize).wrapping_mul(i * 7 + 1) % n).collect();
    idx.sort_unstable();
    idx.dedup();
    idx.into_iter().map(|i| tiles[i]).collect()
}

/// sample_raster → quad_packer with random input gaps, inner ready (the packer's in_ready is
/// the only back-pressure there) and random output ready (runs of random length, sometimes
/// long stalls). Returns the transferred beats.
fn run_chain(cfg: &Config, jobs: &[Job], seed: u64) -> Vec<Beat> {
    let mut sr = SampleRasterCycle::new(cfg);
    let mut qp = QuadPackerCycle::new(cfg);
    let mut lines = Handshake::new(Pattern::Runs { pct: 75 }, Pattern::Runs { pct: 60 }).lines(seed);
    let commands = jobs.iter().filter(|j| j.cand.last).count();
    let mut next = 0;
    let mut outs = Vec::new();
    for _ in 0..jobs.len() as u64 * 600 + 2000 {
        let c = lines.step();
        let in_valid = next < jobs.len() && c.valid;
        let job = jobs.get(next).copied().unwrap_or_default();
        let out_ready = c.ready;
        let (qv, qo) = qp.out();
        let mid_ready = qp.in_ready(out_ready);
        let (sv, so) = sr.out();
        let in_ready = sr.in_ready(mid_ready);
        if qv && out_ready {
            outs.push(qo);
        }
        if in_valid && in_ready {
            next += 1;
        }
        sr.clock(in_valid, &job, mid_ready, false);
        qp.clock(sv, &so, out_ready, false);
        if next == jobs.len() && outs.iter().filter(|b| b.last).count() == commands {
            break;
        }
    }
    assert_eq!(next, jobs.len(), "not every job accepted");
    outs
}

/// Golden storage block of quad q in tile t: the block of the second sub-tile containing it.
fn golden_block(cfg: &Config, t: [u32; 2], q: &Quad) -> u32 {
    let lay = block_layout(cfg, &parse_tile(cfg, t).unwrap());
    let (x, y) = (2 * q.qx as u32, 2 * q.qy as u32);
    lay.pieces
        .iter()
        .find(|p| p.rect.x0 <= x && x <= p.rect.x1 && p.rect.y0 <= y && y <= p.rect.y1)
        .expect("quad inside a piece")
        .block
}

/// (prim, qx, qy, mask, block) of one packed quad.
type PackedQuad = (u32, u32, u32, u64, u32);

/// Structural checks of a packed stream; returns the quads (with blocks) per command.
fn split_commands(q: u32, outs: &[Beat]) -> Vec<Vec<(Quad, u32)>> {
    let full = (1u8 << q) - 1;
    let mut groups: Vec<Vec<(Quad, u32)>> = vec![Vec::new()];
    for b in outs {
        let n = b.lane_valid.count_ones();
        assert_eq!(b.lane_valid, ((1u16 << n) - 1) as u8, "lanes fill from lane 0: {b:?}");
        if !b.last {
            assert_eq!(b.lane_valid, full, "a beat before the command's last is full: {b:?}");
        } else {
            assert!(n <= q);
        }
        for l in 0..4 {
            if b.lane_valid >> l & 1 == 0 {
                assert_eq!(
                    (b.qx[l], b.qy[l], b.mask[l], b.block[l]),
                    (0, 0, 0, 0),
                    "unused lane {l} is zero"
                );
            } else {
                assert_ne!(b.mask[l], 0);
            }
        }
        let g = groups.last_mut().unwrap();
        for (l, quad) in b.quads().enumerate() {
            g.push((quad, b.block[l]));
        }
        if b.last {
            groups.push(Vec::new());
        }
    }
    assert!(groups.pop().unwrap().is_empty(), "quads after the final last");
    groups
}

fn check_chain(cfg: &Config, cmds: &[(TriSetup, u32, [u32; 2])], seed: u64) {
    let mut jobs = Vec::new();
    let mut want = Vec::new();
    for (tri, prim, t) in cmds {
        jobs.extend(jobs_for(cfg, tri, *prim, *t));
        want.push(raster_triangle_tile(cfg, tri, *prim, *t, &mut RasterStats::default()));
    }
    let outs = run_chain(cfg, &jobs, seed);
    let groups = split_commands(cfg.quads_per_clock, &outs);
    assert_eq!(groups.len(), cmds.len(), "one last per command");
    for (i, (g, w)) in groups.iter().zip(&want).enumerate() {
        let quads: Vec<Quad> = g.iter().map(|(q, _)| *q).collect();
        assert_eq!(&quads, w, "command {i} on {}", cfg.name);
        for (q, blk) in g {
            assert_eq!(*blk, golden_block(cfg, cmds[i].2, q), "block of {q:?}");
        }
    }
}

proptest! {
    #![proptest_config(ProptestConfig { cases: 300, ..ProptestConfig::default() })]

    #[test]
    fn chain_equals_golden(p in 0usize..3, tris in proptest::collection::vec((0u32..3, proptest::array::uniform8(any::<u32>()), any::<u32>()), 1..4),
                           seed in any::<u64>()) {
        let cfg = Config::preset(PRESETS[p]).unwrap();
        let mut cmds = Vec::new();
        for (prim, (kind, r, pick)) in tris.iter().enumerate() {
            if let Some(tri) = gen_tri(&cfg, *kind, r) {
                for t in some_tiles(&cfg, &tri, *pick) {
                    cmds.push((tri, prim as u32, t));
                }
            }
        }
        check_chain(&cfg, &cmds, seed);
    }

    #[test]
    fn packer_alone_matches_reference(p in 0usize..3, beats in proptest::collection::vec((any::<u8>(), 0u8..6), 0..60),
                                      seed in any::<u64>()) {
        let cfg = Config::preset(PRESETS[p]).unwrap();
        let q = cfg.quads_per_clock as usize;
        let geom = QuadPackerGeom::new(&cfg).unwrap();
        // Input beats: random lane patterns (lanes ≥ Q too, which the packer ignores), `last`
        // with probability 1/6, each command a new prim; a final `last` closes the stream.
        let mut input = Vec::new();
        let mut prim = 0;
        let mut k = 0u32;
        for (i, &(lanes, l)) in beats.iter().enumerate() {
            let mut b = Beat { prim, kind: (prim & 1) as u8, lane_valid: lanes & 0xF, last: l == 0 || i + 1 == beats.len(), ..Default::default() };
            for lane in 0..4 {
                if b.lane_valid >> lane & 1 == 1 {
                    k += 1;
                    b.qx[lane] = (k * 7) & 0x7FF;
                    b.qy[lane] = (k * 13) & 0x7FF;
                    b.mask[lane] = (k as u64) << 3 | 1;
                }
            }
            if b.last {
                prim += 1;
            }
            input.push(b);
        }
        // Reference: per command, the valid lanes < Q in order, chunked into Q.
        let mut want: Vec<Vec<PackedQuad>> = Vec::new();
        let mut cur = Vec::new();
        for b in &input {
            for l in 0..q {
                if b.lane_valid >> l & 1 == 1 {
                    cur.push((b.prim, b.qx[l], b.qy[l], b.mask[l], geom.block(b.qx[l], b.qy[l])));
                }
            }
            if b.last {
                want.push(std::mem::take(&mut cur));
            }
        }
        let mut m = QuadPackerCycle::new(&cfg);
        let mut lines = Handshake::new(Pattern::Runs { pct: 70 }, Pattern::Runs { pct: 60 }).lines(seed);
        let n_cmd = want.len();
        let (outs, _) = drive(&mut m, &input, |_| !lines.valid.step(), |_| lines.ready.step(),
                              |o| o.iter().filter(|b| b.last).count() == n_cmd, 100_000);
        let groups = split_commands(q as u32, &outs);
        prop_assert_eq!(groups.len(), n_cmd);
        for (g, w) in groups.iter().zip(&want) {
            let got: Vec<PackedQuad> = g.iter().map(|(x, blk)| (x.prim, x.qx as u32, x.qy as u32, x.mask, *blk)).collect();
            prop_assert_eq!(&got, w);
        }
        // Every beat carries its command's prim (commands are numbered by prim here) and kind
        // (odd commands are kind 1 here), both passed through.
        let mut cmd = 0;
        for b in &outs {
            prop_assert_eq!(b.prim, cmd);
            prop_assert_eq!(b.kind as u32, cmd & 1);
            cmd += b.last as u32;
        }
    }
}

/// Worked case (default preset: Q = 2), derived by hand. Input beats, offered back to back,
/// output always ready:
///   B0: lanes 0b11 (q1, q2)          → 2 lanes: full beat (q1, q2) at once
///   B1: lanes 0b10 (q3)              → acc = [q3]
///   B2: lanes 0b11 (q4, q5), last    → acc + new = 3 > Q: beat (q3, q4), remainder q5 pending
///   B3: no lane, last (next command) → empty beat with last
///
/// ```text
/// cycle | in_valid in_ready | action                         | out_valid out
///   0   |  1 B0     1       | accept B0: load (q1,q2)        | 0
///   1   |  1 B1     1       | accept B1: acc = [q3]          | 1 (q1,q2)
///   2   |  1 B2     1       | accept B2: load (q3,q4), pend  | 0
///   3   |  1 B3     0       | pend: load (q5) last           | 1 (q3,q4)
///   4   |  1 B3     1       | accept B3: load () last        | 1 (q5) last
///   5   |  0        1       | —                              | 1 () last
///   6   |  0        1       | —                              | 0
/// ```
#[test]
fn worked_case_default() {
    let cfg = Config::preset("default").unwrap();
    let quad = |k: u32| (k, 10 + k, 0xF0u64 << k);
    let beat = |lanes: u8, qs: &[u32], last: bool| {
        let mut b = Beat {
            prim: 3,
            lane_valid: lanes,
            last,
            ..Default::default()
        };
        let mut it = qs.iter();
        for l in 0..4 {
            if lanes >> l & 1 == 1 {
                let (x, y, m) = quad(*it.next().unwrap());
                b.qx[l] = x;
                b.qy[l] = y;
                b.mask[l] = m;
            }
        }
        b
    };
    let input = [
        beat(0b11, &[1, 2], false),
        beat(0b10, &[3], false),
        beat(0b11, &[4, 5], true),
        beat(0, &[], true),
    ];
    let mut m = QuadPackerCycle::new(&cfg);
    let (outs, tr) = drive(&mut m, &input, |_| false, |_| true, |_| false, 7);
    let bits = |s: &str| s.chars().map(|c| c == '1').collect::<Vec<bool>>();
    assert_eq!(tr.iter().map(|t| t.in_valid).collect::<Vec<_>>(), bits("1111100"));
    assert_eq!(tr.iter().map(|t| t.in_ready).collect::<Vec<_>>(), bits("1110111"));
    assert_eq!(tr.iter().map(|t| t.out_valid).collect::<Vec<_>>(), bits("0101110"));
    let got: Vec<(Vec<u32>, bool)> = outs
        .iter()
        .map(|b| {
            (
                (0..4).filter(|l| b.lane_valid >> l & 1 == 1).map(|l| b.qx[l]).collect(),
                b.last,
            )
        })
        .collect();
    assert_eq!(
        got,
        vec![
            (vec![1, 2], false),
            (vec![3, 4], false),
            (vec![5], true),
            (vec![], true)
        ]
    );
    // Blocks: 8x8 sub-tiles = 4x4 quads, 4 sub-tiles per 32-px tile row.
    let g = QuadPackerGeom::new(&cfg).unwrap();
    assert_eq!(g.block(5, 15), 3 * 4 + 1);
    assert_eq!(outs[2].block[0], g.block(5, 15));
}

/// ice40 (Q = 1): a register stage; empty beats without `last` vanish.
#[test]
fn q1_is_a_register_stage() {
    let cfg = Config::preset("ice40").unwrap();
    let mk = |lanes: u8, qx: u32, last: bool| Beat {
        prim: 1,
        lane_valid: lanes,
        qx: [qx, 0, 0, 0],
        qy: [3, 0, 0, 0],
        mask: [lanes as u64, 0, 0, 0],
        last,
        ..Default::default()
    };
    let input = [mk(1, 4, false), mk(0, 0, false), mk(1, 6, true), mk(0, 0, true)];
    let mut m = QuadPackerCycle::new(&cfg);
    let (outs, tr) = drive(&mut m, &input, |_| false, |_| true, |_| false, 6);
    assert!(tr.iter().all(|t| t.in_ready));
    assert_eq!(
        tr.iter().map(|t| t.out_valid).collect::<Vec<_>>(),
        vec![false, true, false, true, true, false]
    );
    assert_eq!(
        outs.iter().map(|b| (b.qx[0], b.last, b.block[0])).collect::<Vec<_>>(),
        vec![(4, false, 4 + 2), (6, true, 4 + 3), (0, true, 0)]
    );
}

#[test]
fn flush_returns_to_idle() {
    for name in PRESETS {
        let cfg = Config::preset(name).unwrap();
        let mut m = QuadPackerCycle::new(&cfg);
        let b = Beat {
            prim: 2,
            lane_valid: 0b1111,
            qx: [1, 2, 3, 4],
            mask: [1, 1, 1, 1],
            last: true,
            ..Default::default()
        };
        m.clock(true, &b, false, false);
        m.clock(true, &b, false, false);
        m.clock(true, &b, false, true);
        assert_eq!(m, QuadPackerCycle::new(&cfg), "{name}");
    }
}

#[test]
fn refuses_unsupported_configs() {
    // Second sub-tile 16x16 ≠ first 8x8.
    let mut c = Config::preset("default").unwrap();
    c.colour_block_bytes = 1024;
    let e = QuadPackerGeom::new(&c).unwrap_err();
    assert!(e.contains("second sub-tile"), "{e}");
    // Viewport 100x75: the right edge tile is 4 px wide (one column of sub-tiles).
    let mut c = Config::preset("default").unwrap();
    c.viewport = [100, 75];
    c.guard_band = 64;
    let e = QuadPackerGeom::new(&c).unwrap_err();
    assert!(e.contains("block_layout"), "{e}");
    for name in PRESETS {
        QuadPackerGeom::new(&Config::preset(name).unwrap()).unwrap();
    }
}
