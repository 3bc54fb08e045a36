//! The streaming pipeline (`pipeline::raster_stream` / `render_stream`, and the collecting
//! wrappers `raster_frame` / `render_frame` built on it) against a kept copy of the collecting
//! pipeline it replaced: every quad of the frame collected, every pixel-info record pushed
//! before any second tile is read, the whole frame's blend samples in one blender run (the
//! cycle loop copied as it was, not the `StreamBlender` under test). Same quads in the same
//! order, same sub-tile events, same image bytes, same `FrameStats`, on the shipped scenes and
//! on random frames on every preset and on tile geometries where a second tile spans several
//! first tiles, or a first tile several second tiles, per axis.
//!
//! And what the stream holds: at most one (tile, primitive) batch of quads, the records of the
//! first tiles that can still reach an open second tile, and a band of second tiles' blend
//! samples, each far below the frame's total on a many-tile scene.

use std::collections::VecDeque;
use tilerast_golden::binner;
use tilerast_golden::blender::{
    blend_component, component_key, pipeline_blend, sample_key, BlendOpts, BlendSample, BlendStats, MergeMode,
};
use tilerast_golden::output_merger::{Image, OutputMerger};
use tilerast_golden::pipeline::{
    check_pixel_info_fits, min_quads, raster_frame, raster_stream, render_frame, render_stream, Event, FrameStats,
    PipelineError, SubTileClass, SubTileEvent, TileQuad,
};
use tilerast_golden::pixel_info::{PixelInfoStore, CHUNK_BYTES};
use tilerast_golden::pixel_processor;
use tilerast_golden::point_raster;
use tilerast_golden::quad_packer;
use tilerast_golden::raster::Rasterizer;
use tilerast_golden::scene::{Frame, Scene};
use tilerast_golden::setup::{self, PixelBox, SetupReject, TriSetup};
use tilerast_golden::shading_sort;
use tilerast_golden::subtile_coverage::SubtileFate;
use tilerast_golden::{Config, PointFx, PrimitiveFx, Rgba, TriangleFx, PRESETS};
use tilerast_verif::stim::overdraw_frame;
use tilerast_verif::Rng;

// ---------------------------------------------------------------------------------------------
// The reference: the collecting pipeline as it was before streaming.

enum RefSetup {
    Tri(TriSetup),
    Point(PointFx),
}

struct RefOut {
    quads: Vec<TileQuad>,
    subtiles: Vec<SubTileEvent>,
    stats: FrameStats,
    image: Image,
}

fn class_of(f: SubtileFate) -> SubTileClass {
    match f {
        SubtileFate::RejectedRow => SubTileClass::RejectedRow,
        SubtileFate::RejectedColumn => SubTileClass::RejectedColumn,
        SubtileFate::RejectedTest => SubTileClass::RejectedTest,
        SubtileFate::Trivial => SubTileClass::TrivialAccept,
        SubtileFate::Partial => SubTileClass::Partial,
    }
}

fn ref_pipeline(frame: &Frame) -> RefOut {
    let cfg = &frame.cfg;
    let mut st = FrameStats::default();
    let mut quads_out = Vec::new();
    let mut subtiles = Vec::new();
    let mut setups = Vec::new();
    let mut boxes: Vec<(u32, PixelBox)> = Vec::new();
    for (i, p) in frame.prims.iter().enumerate() {
        st.setup.prims += 1;
        let s = match p {
            PrimitiveFx::Triangle(t) => {
                st.setup.triangles += 1;
                match setup::setup_triangle(cfg, t) {
                    Ok(s) => {
                        boxes.push((i as u32, s.bbox));
                        Some(RefSetup::Tri(s))
                    }
                    Err(SetupReject::ZeroArea) => {
                        st.setup.zero_area += 1;
                        None
                    }
                    Err(SetupReject::Culled) => {
                        st.setup.culled += 1;
                        None
                    }
                    Err(SetupReject::Offscreen) => {
                        st.setup.offscreen += 1;
                        None
                    }
                }
            }
            PrimitiveFx::Point(q) => {
                st.setup.points += 1;
                st.point.points += 1;
                match point_raster::point_bbox(cfg, q) {
                    Some(b) => {
                        boxes.push((i as u32, b));
                        Some(RefSetup::Point(*q))
                    }
                    None => {
                        st.setup.offscreen += 1;
                        None
                    }
                }
            }
        };
        setups.push(s);
    }
    let mut bins = binner::bin(cfg, &boxes).unwrap();
    let mut r = Rasterizer::new();
    let order: Vec<[u32; 2]> = bins.tile_order().collect();
    for t in order {
        for prim in bins.read_tile(t).unwrap() {
            let mut quads = Vec::new();
            match setups[prim as usize].as_ref().unwrap() {
                RefSetup::Tri(s) => {
                    r.tile_traced(cfg, s, prim, t, &mut st.raster, &mut quads, |sub, fate| {
                        subtiles.push(SubTileEvent {
                            prim,
                            x0: sub.rect.x0,
                            y0: sub.rect.y0,
                            w: sub.rect.width(),
                            h: sub.rect.height(),
                            class: class_of(fate),
                        })
                    });
                }
                RefSetup::Point(p) => quads = point_raster::raster_point_tile(cfg, p, prim, t, &mut st.point),
            }
            for q in &quads {
                st.quads += 1;
                st.covered_samples += q.samples() as u64;
                quads_out.push(TileQuad { tile: t, quad: *q });
            }
        }
    }
    st.bin = bins.stats();
    // Pixel side after the whole raster side.
    let mut store = PixelInfoStore::new(cfg, 0).unwrap();
    for tq in &quads_out {
        store
            .push(&tq.quad, frame.prims[tq.quad.prim as usize].depth())
            .unwrap();
    }
    store.finish_raster().unwrap();
    let colours: Vec<Rgba> = frame.prims.iter().map(|p| p.colour()).collect();
    let mut merger = OutputMerger::new(cfg, frame.background);
    let mut blend_in: Vec<BlendSample> = Vec::new();
    let mut smp: Vec<Option<Rgba>> = vec![None; cfg.msaa as usize];
    let mut slots = [None; 16];
    let tiles: Vec<[u32; 2]> = store.second_tiles().collect();
    for t in tiles {
        let records = store.read_second_tile(t).unwrap();
        if records.is_empty() {
            continue;
        }
        let (ts, ss) = shading_sort::shade_tile(cfg, t, &records, &colours).unwrap();
        st.shade += ss;
        // Resolve every pixel (raster order), then hand them to the blender the way the colour
        // buffer stores them: the quad packer's storage blocks of this tile's clipped
        // rectangle, pieces by (block, offset), each piece's pixels in raster order.
        let mut resolved = std::collections::HashMap::new();
        for py in 0..ts.size[1] {
            for px in 0..ts.size[0] {
                let (x, y) = (ts.origin[0] + px, ts.origin[1] + py);
                if x >= cfg.viewport[0] || y >= cfg.viewport[1] {
                    continue;
                }
                for (i, v) in smp.iter_mut().enumerate() {
                    *v = ts.get(px, py, i as u32).map(|(_, c)| c);
                }
                let c = pixel_processor::resolve_pixel(cfg, &smp, &mut slots, &mut st.pixel);
                resolved.insert((x, y), slots[..c].to_vec());
            }
        }
        let rect = PixelBox {
            x0: ts.origin[0],
            y0: ts.origin[1],
            x1: (ts.origin[0] + cfg.second_tile[0]).min(cfg.viewport[0]) - 1,
            y1: (ts.origin[1] + cfg.second_tile[1]).min(cfg.viewport[1]) - 1,
        };
        let mut pieces = quad_packer::block_layout_rect(cfg, rect).pieces;
        pieces.sort_by_key(|p| (p.block, p.offset));
        for p in pieces {
            for y in p.rect.y0..=p.rect.y1 {
                for x in p.rect.x0..=p.rect.x1 {
                    for (j, slot) in resolved.remove(&(x, y)).unwrap().iter().enumerate() {
                        if let Some(src) = slot {
                            let pos = merger.pos(x, y, j as u32);
                            blend_in.push(BlendSample {
                                pos,
                                src: *src,
                                dst: merger.read(pos),
                                state: 0,
                            });
                        }
                    }
                }
            }
        }
        assert!(resolved.is_empty(), "tile {t:?}: pixels outside the storage blocks");
    }
    st.pixel_info = store.stats();
    let (outs, bs) = ref_blend(cfg, &pipeline_blend(cfg), &blend_in);
    let (_, bs0) = ref_blend(cfg, &BlendOpts::default(), &blend_in);
    st.blend = bs;
    st.blend_nomerge = bs0;
    for (pos, c) in outs {
        merger.write(pos, c);
    }
    st.framebuffer_bytes = merger.bytes_written;
    RefOut {
        quads: quads_out,
        subtiles,
        stats: st,
        image: merger.finish(),
    }
}

struct Op {
    key: [u8; 9],
    ckeys: [[u8; 4]; 4],
    result: Rgba,
    exit: u64,
}

struct BlendOut {
    cycle: u64,
    index: usize,
    pos: u32,
    colour: Rgba,
}

/// The blender's cycle loop over a whole stream, as it was before `StreamBlender`.
fn ref_blend(cfg: &Config, opts: &BlendOpts, input: &[BlendSample]) -> (Vec<(u32, Rgba)>, BlendStats) {
    let lanes = cfg.blend_lanes.max(1) as usize;
    let pool = (cfg.blend_pool as usize).max(lanes);
    let latency = cfg.blend_latency.max(1) as u64;
    let cap = pool.saturating_add(opts.input_buffer);
    let n = input.len();
    let mut st = BlendStats {
        samples: n as u64,
        ..BlendStats::default()
    };
    // Per input sample: (emission cycle, colour), filled when it is resolved.
    let mut done: Vec<(u64, Rgba)> = vec![(0, [0; 4]); n];
    let mut window: VecDeque<usize> = VecDeque::new();
    let mut keep: VecDeque<usize> = VecDeque::new();
    let mut in_flight: VecDeque<Op> = VecDeque::new();
    let mut issued: Vec<Op> = Vec::with_capacity(lanes);
    let mut next = 0usize;
    let mut cycle = 0u64;
    let merging = opts.merge != MergeMode::Off;
    while next < n || !window.is_empty() || !in_flight.is_empty() {
        // 1. Arrival.
        let k = pool.min(cap - window.len()).min(n - next);
        window.extend(next..next + k);
        next += k;

        // 2. Compare and issue.
        if !window.is_empty() {
            st.busy_cycles += 1;
            let pool_len = pool.min(window.len());
            issued.clear();
            keep.clear();
            for (w, &i) in window.iter().enumerate() {
                let smp = &input[i];
                let key = sample_key(smp);
                let exit = cycle + latency;
                if merging && opts.match_in_flight {
                    if let Some(op) = in_flight.iter().find(|op| op.key == key) {
                        done[i] = (op.exit, op.result);
                        st.merged_in_flight += 1;
                        st.merged_buffer += (w >= pool) as u64;
                        continue;
                    }
                }
                let ckeys = [0, 1, 2, 3].map(|c| component_key(smp, c));
                // Sources among this cycle's ops: per component (PerComponent) or whole.
                let mut src: [Option<usize>; 4] = [None; 4];
                match opts.merge {
                    MergeMode::Off => {}
                    MergeMode::PerSample => {
                        if let Some(j) = issued.iter().position(|op| op.key == key) {
                            src = [Some(j); 4];
                        }
                    }
                    MergeMode::PerComponent => {
                        for c in 0..4 {
                            src[c] = issued.iter().position(|op| op.ckeys[c] == ckeys[c]);
                        }
                    }
                }
                if src.iter().all(|s| s.is_some()) {
                    done[i] = (exit, [0, 1, 2, 3].map(|c| issued[src[c].unwrap_or(0)].result[c]));
                    st.merged_samples += 1;
                    st.merged_buffer += (w >= pool) as u64;
                } else if w < pool_len && issued.len() < lanes {
                    let mut result = [0u8; 4];
                    let mut merged = 0u64;
                    for c in 0..4 {
                        result[c] = match src[c] {
                            Some(j) => {
                                merged += 1;
                                issued[j].result[c]
                            }
                            None => blend_component(smp.src, smp.dst, smp.state, c),
                        };
                    }
                    st.blend_ops += 1;
                    st.merged_components += merged;
                    st.component_ops += 4 - if opts.gate_idle_lanes { merged } else { 0 };
                    done[i] = (exit, result);
                    issued.push(Op {
                        key,
                        ckeys,
                        result,
                        exit,
                    });
                } else {
                    keep.push_back(i);
                }
            }
            let idle = (lanes - issued.len()) as u64;
            st.idle_lane_cycles += idle;
            if opts.gate_idle_lanes {
                st.gated_lane_cycles += idle;
            }
            std::mem::swap(&mut window, &mut keep);
            in_flight.extend(issued.drain(..));
        }

        // 3. Retire the ops issued D cycles ago.
        while in_flight.front().is_some_and(|op| op.exit <= cycle) {
            in_flight.pop_front();
        }
        cycle += 1;
    }
    let mut outs: Vec<BlendOut> = done
        .iter()
        .enumerate()
        .map(|(i, &(c, colour))| BlendOut {
            cycle: c,
            index: i,
            pos: input[i].pos,
            colour,
        })
        .collect();
    outs.sort_by_key(|o| (o.cycle, o.index));
    st.cycles = outs.last().map_or(0, |o| o.cycle + 1);
    (outs.into_iter().map(|o| (o.pos, o.colour)).collect(), st)
}

// ---------------------------------------------------------------------------------------------
// Frames.

/// `n` random primitives over `cfg`'s viewport (a little beyond it too): triangles of every
/// size, a few points, colours from a small palette (so the blender merges), some translucent.
fn random_frame(cfg: &Config, seed: u64, n: usize) -> Frame {
    let mut rng = Rng::stream(seed, 0);
    let [w, h] = cfg.viewport;
    let g = cfg.guard_band.min(16) as i64;
    let coord = |rng: &mut Rng, span: u32| (rng.below((span as u64 + 2 * g as u64) * 256) as i64 - g * 256) as i32;
    let palette: [Rgba; 4] = [
        [200, 30, 30, 255],
        [30, 200, 30, 255],
        [30, 30, 200, 128],
        [250, 250, 250, 255],
    ];
    let mut prims = Vec::new();
    for _ in 0..n {
        let colour = palette[rng.below(4) as usize];
        let depth = rng.below(1 << 24) as u32;
        if rng.below(8) == 0 {
            prims.push(PrimitiveFx::Point(PointFx {
                pos: [coord(&mut rng, w), coord(&mut rng, h)],
                size: (1 + rng.below(12) as i32) * 128,
                aa: rng.below(2) == 0,
                colour,
                depth,
            }));
        } else {
            let small = rng.below(2) == 0;
            let a = [coord(&mut rng, w), coord(&mut rng, h)];
            let mut v = [a; 3];
            for vi in v.iter_mut().skip(1) {
                *vi = if small {
                    [
                        (a[0] + rng.below(40 * 256) as i32 - 20 * 256)
                            .clamp(-(g as i32) * 256, (w as i32 + g as i32) * 256),
                        (a[1] + rng.below(40 * 256) as i32 - 20 * 256)
                            .clamp(-(g as i32) * 256, (h as i32 + g as i32) * 256),
                    ]
                } else {
                    [coord(&mut rng, w), coord(&mut rng, h)]
                };
            }
            prims.push(PrimitiveFx::Triangle(TriangleFx { v, colour, depth }));
        }
    }
    Frame {
        cfg: cfg.clone(),
        background: [10, 10, 10, 255],
        prims,
    }
}

fn shipped_scenes() -> Vec<(String, Frame)> {
    let dir = concat!(env!("CARGO_MANIFEST_DIR"), "/../scenes");
    let mut v: Vec<(String, Frame)> = std::fs::read_dir(dir)
        .unwrap()
        .filter_map(|e| e.ok())
        .map(|e| e.path())
        .filter(|p| p.extension().is_some_and(|x| x == "json"))
        .map(|p| {
            let name = p.display().to_string();
            let f = Scene::load(&p).unwrap().to_frame(&name).unwrap();
            (name, f)
        })
        .collect();
    v.sort_by(|a, b| a.0.cmp(&b.0));
    assert!(v.len() >= 5);
    v
}

/// Presets plus tile geometries that stress the second-tile completion order.
fn configs() -> Vec<Config> {
    let mut v: Vec<Config> = PRESETS.iter().map(|p| Config::preset(p).unwrap()).collect();
    let base = Config::preset("default").unwrap();
    // A second tile spans 4x2 first tiles; a first tile spans 4 second tiles in y only; the
    // viewport is not a multiple of either.
    for (tile, second, vp) in [
        ([16, 16], [64, 32], [200, 150]),
        ([32, 64], [64, 16], [200, 150]),
        ([64, 16], [16, 64], [130, 97]),
    ] {
        let mut c = base.clone();
        c.name = format!("tile{}x{}_second{}x{}", tile[0], tile[1], second[0], second[1]);
        c.tile = tile;
        c.subtile = [8, 8];
        c.second_tile = second;
        c.viewport = vp;
        c.validate().unwrap();
        v.push(c);
    }
    v
}

// ---------------------------------------------------------------------------------------------
// Equality.

fn check_equal(what: &str, frame: &Frame) -> u64 {
    let want = ref_pipeline(frame);
    let got = render_frame(frame).unwrap_or_else(|e| panic!("{what}: {e}"));
    assert_eq!(got.raster.quads, want.quads, "{what}: quads");
    assert_eq!(got.image, want.image, "{what}: image");
    assert_eq!(
        format!("{:?}", got.raster.stats),
        format!("{:?}", want.stats),
        "{what}: stats"
    );
    // The raster side alone, traced: the same quads and sub-tile events and raster stats.
    let r = raster_frame(frame, true).unwrap();
    assert_eq!(r.quads, want.quads, "{what}: raster quads");
    assert_eq!(r.subtiles, want.subtiles, "{what}: sub-tile events");
    assert_eq!(
        format!("{:?}", r.stats.raster),
        format!("{:?}", want.stats.raster),
        "{what}: raster stats"
    );
    want.stats.quads
}

#[test]
fn shipped_scenes_stream_equals_collecting_on_every_preset() {
    let mut quads = 0;
    for (name, base) in shipped_scenes() {
        for cfg in configs() {
            let mut frame = base.clone();
            let vp = frame.cfg.viewport;
            frame.cfg = cfg.clone();
            frame.cfg.viewport = vp;
            frame.cfg.guard_band = frame.cfg.guard_band.max(256);
            frame.cfg.validate().unwrap();
            quads += check_equal(&format!("{name} on {}", cfg.name), &frame);
        }
    }
    assert!(quads > 0);
}

#[test]
fn random_frames_stream_equals_collecting_on_every_preset() {
    for cfg in configs() {
        let mut quads = 0;
        for seed in 0..4 {
            let n = if cfg.msaa == 16 { 12 } else { 40 };
            let frame = random_frame(&cfg, seed, n);
            quads += check_equal(&format!("seed {seed} on {}", cfg.name), &frame);
        }
        assert!(quads > 0, "{}: nothing drawn", cfg.name);
    }
}

// ---------------------------------------------------------------------------------------------
// What is held.

#[test]
fn stream_holds_tiles_in_flight_not_the_frame() {
    for cfg in configs() {
        let frame = random_frame(&cfg, 7, if cfg.msaa == 16 { 16 } else { 60 });
        let want = ref_pipeline(&frame);
        let [ntx, nty] = cfg.tiles();
        assert!(ntx * nty >= 12, "{}: a many-tile frame", cfg.name);
        // Quads per first tile, in tile order.
        let idx = |t: [u32; 2]| (t[1] * ntx + t[0]) as usize;
        let mut per_tile = vec![0u64; (ntx * nty) as usize];
        let mut per_batch = std::collections::BTreeMap::new();
        for tq in &want.quads {
            per_tile[idx(tq.tile)] += 1;
            *per_batch.entry((idx(tq.tile), tq.quad.prim)).or_insert(0u64) += 1;
        }
        // A second tile is open from its first overlapping first tile to its last (tile order):
        // the records held are those of at most `span` consecutive first tiles.
        let (tw, sw, vp) = (cfg.tile, cfg.second_tile, cfg.viewport);
        let [nsx, nsy] = [vp[0].div_ceil(sw[0]), vp[1].div_ceil(sw[1])];
        let mut span = 1;
        for sy in 0..nsy {
            for sx in 0..nsx {
                let first = [sx * sw[0] / tw[0], sy * sw[1] / tw[1]];
                let last = [
                    (((sx + 1) * sw[0]).min(vp[0]) - 1) / tw[0],
                    (((sy + 1) * sw[1]).min(vp[1]) - 1) / tw[1],
                ];
                span = span.max(idx(last) - idx(first) + 1);
            }
        }
        let window_max = per_tile
            .windows(span.min(per_tile.len()))
            .map(|w| w.iter().sum::<u64>())
            .max()
            .unwrap();
        let mut events = 0u64;
        let s = render_stream(&frame, false, |e| {
            if let Event::Quads { .. } = e {
                events += 1;
            }
            Ok::<(), PipelineError>(())
        })
        .unwrap();
        let h = s.held;
        let total = want.stats.quads;
        let blend_total = want.stats.blend.samples;
        let name = &cfg.name;
        assert!(
            total > 0 && blend_total > 0 && h.quads > 0 && h.records > 0 && h.blend_samples > 0,
            "{name}: activity {h:?}"
        );
        assert_eq!(events, per_batch.len() as u64, "{name}: one event per non-empty batch");
        assert_eq!(h.quads, *per_batch.values().max().unwrap(), "{name}: largest batch");
        assert!(
            h.records <= window_max,
            "{name}: {} records held > {window_max} of {span} first tiles",
            h.records
        );
        assert!(h.records < total, "{name}: held {} of {total} records", h.records);
        // Blend samples: at most a band of second tiles as tall as a first tile (plus one) of
        // shaded samples, plus the two blender windows.
        let c = cfg.colours_per_pixel as u64;
        let rows = (tw[1] / sw[1]).max(1) as u64;
        let band = (nsx as u64 * rows + 1) * (sw[0] * sw[1]) as u64 * c + 2 * (cfg.blend_pool as u64 + 1);
        assert!(
            h.blend_samples <= band,
            "{name}: {} blend samples held > {band}",
            h.blend_samples
        );
        assert!(
            h.blend_samples < blend_total,
            "{name}: held {} of {blend_total} blend samples",
            h.blend_samples
        );
        // The simulated pixel-info memory keeps only live blocks on the host.
        let footprint = want.stats.pixel_info.memory_bytes;
        eprintln!("{name}: held {h:?}, pixel-info footprint {footprint}, quads {total}");
        if footprint > 16 * CHUNK_BYTES as u64 {
            assert!(
                h.pixel_info_resident * 2 < footprint,
                "{name}: {} resident of a {footprint}-byte pixel-info memory",
                h.pixel_info_resident
            );
        }
        assert_eq!(s.image.unwrap(), want.image);
    }
}

#[test]
fn a_sink_error_stops_the_stream_and_comes_back() {
    let cfg = Config::preset("default").unwrap();
    let frame = random_frame(&cfg, 3, 40);
    let (mut quad_events, mut tiles) = (0, 0);
    let r = render_stream(&frame, false, |e| match e {
        Event::Quads { .. } => {
            quad_events += 1;
            Err(PipelineError("sink full".into()))
        }
        Event::TileDone(_) => {
            tiles += 1;
            Ok(())
        }
        Event::SubTile(_) => Ok(()),
    });
    assert_eq!(r.unwrap_err().0, "sink full");
    assert_eq!(quad_events, 1, "nothing after the error");
    assert!(tiles < cfg.tiles()[0] * cfg.tiles()[1], "stopped early");
}

#[test]
fn fixed_host_bytes_counts_the_framebuffer_and_image() {
    // The largest valid config: 4096² × 16 colours × 4 bytes of framebuffer, 4096² × 4 of image.
    let mut c = Config::preset("default").unwrap();
    c.viewport = [4096, 4096];
    c.msaa = 16;
    c.colours_per_pixel = 16;
    c.validate().unwrap();
    // The windows in flight and the shading buffers grow with the pool's threads: the bounds
    // are for one thread, and more threads count more.
    let in_pool = |threads: usize, c: &Config| {
        rayon::ThreadPoolBuilder::new()
            .num_threads(threads)
            .build()
            .unwrap()
            .install(|| tilerast_golden::pipeline::fixed_host_bytes(c))
    };
    let b = in_pool(1, &c);
    let fb_image = (4096u64 * 4096) * (16 * 4 + 4);
    assert!(b >= fb_image && b < fb_image + (256 << 20), "{b}");
    assert!(in_pool(4, &c) > b, "more threads, more bytes");
    let small = in_pool(1, &Config::preset("ice40").unwrap());
    assert!(small < 4 << 20, "{small}");
}

/// `pipeline::min_quads` (the geometric lower bound behind the up-front pixel-info refusal)
/// never exceeds the quads a frame really emits, and is close on large triangles.
#[test]
fn min_quads_is_a_lower_bound_and_close_on_large_triangles() {
    let mut frames: Vec<(String, Frame)> = shipped_scenes();
    for cfg in configs() {
        for seed in 0..3 {
            frames.push((format!("{} seed {seed}", cfg.name), random_frame(&cfg, 40 + seed, 60)));
        }
    }
    frames.push(("overdraw 3".into(), overdraw_frame(1, 3)));
    let mut positive = 0;
    for (name, f) in &frames {
        let lb = min_quads(f);
        let quads = raster_frame(f, false).unwrap().stats.quads;
        assert!(lb <= quads, "{name}: lower bound {lb} > {quads} quads");
        positive += (lb > 0) as u32;
    }
    assert!(positive >= 5, "the bound is non-trivial on {positive} frames");
    let f = overdraw_frame(1, 3);
    let (lb, quads) = (min_quads(&f), raster_frame(&f, false).unwrap().stats.quads);
    assert!(lb * 100 >= quads * 98, "full-screen triangles: {lb} of {quads}");
}

/// 30 000 full-screen triangles at `full` need about 330 GiB of pixel info (seed 001 keeps the
/// frame's until the pixel side starts), more than the 256 GiB that 32-bit indices of 64-byte
/// blocks reach: refused before anything is rasterized, with the size it would need. The
/// issue's 10 000 (about 110 GiB, beyond the 4 GiB of byte addresses) pass the check.
#[test]
fn a_frame_whose_pixel_info_cannot_fit_is_refused_up_front() {
    let f = overdraw_frame(1, 30_000);
    let mut events = 0;
    let e = render_stream(&f, false, |_| {
        events += 1;
        Err(PipelineError("rasterizing started".into()))
    })
    .unwrap_err()
    .0;
    assert_eq!(events, 0, "nothing rasterized");
    assert!(
        e.starts_with("pixel_info: this frame needs at least ") && e.contains("GiB"),
        "{e}"
    );
    let gib: f64 = e
        .split('(')
        .nth(1)
        .unwrap()
        .split(" GiB")
        .next()
        .unwrap()
        .parse()
        .unwrap();
    assert!(gib > 300.0, "{e}");
    assert!(e.contains("more than the 256.0 GiB"), "{e}");
    assert!(check_pixel_info_fits(&overdraw_frame(1, 100)).is_ok());
    assert!(check_pixel_info_fits(&overdraw_frame(1, 10_000)).is_ok());
    // The raster side alone keeps nothing frame-sized: it starts.
    let mut started = false;
    let _ = raster_stream(&f, false, |_| {
        started = true;
        Err(PipelineError("stop".into()))
    });
    assert!(started);
}
