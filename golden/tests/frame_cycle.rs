//! The whole-frame top's cycle model (`FrameCycle`, layer 3: every block's cycle model wired
//! as the contract says, plus the top's phases and memory arbiter) against the golden
//! pipeline (layer 2): the checks of the contract's last section. For shipped scenes and
//! random frames on every preset, under memory latencies 1 and 5, random grant back-pressure,
//! stalls of thousands of cycles, frames back to back and a flush: the memory at Done equals
//! `frame_memory` word for word (both ways), the image `render_frame`'s, the bytes of every
//! memory client golden's transaction statistics; activity is asserted so that a run doing
//! nothing cannot pass.

use std::collections::BTreeSet;
use tilerast_golden::bin_setup::frame_beats;
use tilerast_golden::cycle::Offer;
use tilerast_golden::frame::{
    client, frame_memory, frame_owns, run_frames, run_frames_traced, set_base, FrameCycle, FrameDone, FrameMemory,
    FramePorts, FrameTopIn, Phase, PixelPhase, Side, CLIENTS, FRAMEBUFFER, PIXEL_INFO, PRIMS, SET_STRIDE,
};
use tilerast_golden::memory_port::{MemTiming, MemoryCycle, SparseMemory};
use tilerast_golden::output_merger::{image_from_memory, Image};
use tilerast_golden::pipeline::{back_end_input, raster_frame, FrameStats};
use tilerast_golden::pixel_back_end::{framebuffer, MemBehaviour};
use tilerast_golden::pixel_info::PixelInfoStore;
use tilerast_golden::shading_sort::shade_tile;
use tilerast_golden::streams::{MemResp, PrimIn};
use tilerast_golden::{Config, DepthFunc, Frame, PrimitiveFx, Scene, PRESETS};
use tilerast_verif::stim::{check_frame_memory, point_at, spread_triangle};
use tilerast_verif::Rng;

/// What golden says about a frame.
struct Golden {
    /// The frame id golden's memory is for.
    fid: u8,
    mem: FrameMemory,
    stats: FrameStats,
    image: Image,
    /// Colour reads of shading: per second tile, its distinct visible primitives.
    colour_reads: u64,
    /// Sort passes of each second tile with visible samples.
    passes: Vec<u64>,
}

fn golden(frame: &Frame, fid: u8) -> Golden {
    let out = back_end_input(frame).unwrap();
    let mem = frame_memory(frame, fid).unwrap();
    // Shading per second tile, from the pixel-info store as the reader walks it.
    let raster = raster_frame(frame, false).unwrap();
    let mut store = PixelInfoStore::new(&frame.cfg, fid).unwrap();
    for tq in &raster.quads {
        store
            .push(&tq.quad, frame.prims[tq.quad.prim as usize].depth())
            .unwrap();
    }
    store.finish_raster().unwrap();
    let colours: Vec<_> = frame.prims.iter().map(|p| p.colour()).collect();
    let (mut colour_reads, mut passes) = (0, Vec::new());
    for st in store.second_tiles() {
        let recs = store.read_second_tile(st).unwrap();
        if recs.is_empty() {
            continue;
        }
        let (ts, s) = shade_tile(&frame.cfg, st, &recs, &colours).unwrap();
        let prims: BTreeSet<u32> = ts.samples.iter().flatten().map(|s| s.0).collect();
        colour_reads += prims.len() as u64;
        if s.visible_samples > 0 {
            passes.push(s.sort_passes);
        }
    }
    Golden {
        fid,
        image: out.image.unwrap(),
        stats: out.stats,
        mem,
        colour_reads,
        passes,
    }
}

/// A frame's memory at Done against golden's, word for word both ways: every word equal
/// (absent = 0) and every word the top holds in the frame's memory (the framebuffer and its
/// region set, `frame_owns`; the other set is the next frame's) inside golden's footprint.
fn check_memory(what: &str, g: &Golden, got: &SparseMemory) {
    check_frame_memory(&g.mem.memory, g.fid, got).unwrap_or_else(|e| panic!("{what}: {e}"));
}

/// Golden draws something in `frame` (a pixel that is not the background).
fn drawn(frame: &Frame, g: &Golden) -> bool {
    g.image.rgba.chunks(4).any(|p| p != frame.background)
}

/// An image against golden's, reporting the first differing pixel.
fn check_image(what: &str, got: &Image, want: &Image) {
    assert_eq!((got.width, got.height), (want.width, want.height), "{what}: image size");
    if let Some(i) = (0..got.rgba.len() / 4).find(|&i| got.rgba[4 * i..4 * i + 4] != want.rgba[4 * i..4 * i + 4]) {
        panic!(
            "{what}: image pixel (column {}, row {} from the top) is {:?}, golden {:?}",
            i % got.width as usize,
            i / got.width as usize,
            &got.rgba[4 * i..4 * i + 4],
            &want.rgba[4 * i..4 * i + 4]
        );
    }
}

/// The bytes of every client against golden's statistics (which ones: see each line).
fn check_traffic(what: &str, frame: &Frame, g: &Golden, d: &FrameDone) {
    let c = &d.stats.clients;
    let st = &g.stats;
    for (i, cs) in c.iter().enumerate() {
        assert_eq!(cs.bytes, 4 * cs.requests, "{what}: client {i} bytes");
        assert_eq!(cs.requests, cs.reads + cs.writes, "{what}: client {i}");
    }
    // The binner's writes and the sequencer's list reads = BinStats.
    assert_eq!(c[client::BINNER].writes, c[client::BINNER].requests, "{what}");
    assert_eq!(
        c[client::BINNER].bytes,
        st.bin.bytes_written,
        "{what}: bin bytes written"
    );
    assert_eq!(c[client::SEQ_LISTS].bytes, st.bin.bytes_read, "{what}: bin bytes read");
    // The prim table: 32 bytes per primitive written, 28 per command read by the sequencer,
    // 4 per (second tile, primitive) change read by shading.
    assert_eq!(
        c[client::BIN_SETUP].bytes,
        32 * frame.prims.len() as u64,
        "{what}: prim table written"
    );
    assert_eq!(
        c[client::SEQ_PRIMS].bytes,
        28 * st.bin.entries,
        "{what}: prim table read by the sequencer"
    );
    assert_eq!(c[client::SHADING].bytes, 4 * g.colour_reads, "{what}: colour reads");
    // Pixel info = PixelInfoStats.
    assert_eq!(
        c[client::PI_WRITE].bytes,
        st.pixel_info.bytes_written,
        "{what}: pixel info written"
    );
    assert_eq!(
        c[client::PI_READ].bytes,
        st.pixel_info.bytes_read,
        "{what}: pixel info read"
    );
    // Framebuffer: one dst read per blend sample with `framebuffer: keep` (none with a fast
    // clear) and one write per blend sample; bytes written = golden's.
    let reads = match frame.cfg.framebuffer {
        tilerast_golden::FramebufferMode::Keep => st.blend.samples,
        tilerast_golden::FramebufferMode::Clear => 0,
    };
    assert_eq!(c[client::BACK_END].reads, reads, "{what}: framebuffer reads");
    assert_eq!(
        c[client::BACK_END].writes,
        st.blend.samples,
        "{what}: framebuffer writes"
    );
    assert_eq!(
        4 * c[client::BACK_END].writes,
        st.framebuffer_bytes,
        "{what}: framebuffer bytes"
    );
    // The blocks' own counters against golden's.
    assert_eq!(d.stats.shade, st.shade, "{what}: ShadeStats");
    assert_eq!(d.stats.back_end.pixel, st.pixel, "{what}: PixelStats");
    assert_eq!(d.stats.pi_write.quads, st.quads, "{what}: quads recorded");
    assert_eq!(d.stats.cmds, st.bin.entries, "{what}: raster commands");
    // The phases add up to the frame's cycles (the Done cycle included).
    assert_eq!(
        d.stats.cycles,
        d.stats.bin_cycles + d.stats.raster_cycles + d.stats.queued_cycles + d.stats.pixel_cycles + 1,
        "{what}: phases"
    );
}

/// A single frame from the background: memory, image, traffic; the run's only frame is 0.
fn check_single(what: &str, frame: &Frame, mem: MemBehaviour) -> (Golden, FrameDone) {
    let limit = 200_000_000;
    let run = run_frames(&frame.cfg, &[frame], mem, limit).unwrap_or_else(|e| panic!("{what}: {e}"));
    let d = run.frames.into_iter().next().unwrap();
    assert_eq!(d.frame_id, 0, "{what}: done_frame");
    // Every request the clients' counters hold is one the memory performed.
    let (reads, writes) = d
        .stats
        .clients
        .iter()
        .fold((0, 0), |a, c| (a.0 + c.reads, a.1 + c.writes));
    assert_eq!(
        (reads, writes),
        (run.mem_stats.reads, run.mem_stats.writes),
        "{what}: requests"
    );
    let g = golden(frame, 0);
    check_memory(what, &g, &d.memory);
    check_image(what, &image_from_memory(&frame.cfg, &d.memory), &g.image);
    check_traffic(what, frame, &g, &d);
    // Activity: every phase took cycles, something was drawn.
    let s = &d.stats;
    assert!(
        s.bin_cycles > 0 && s.raster_cycles > 0 && s.pixel_cycles > 0,
        "{what}: {s:?}"
    );
    assert!(
        s.back_end.merger.writes > 0 && s.tiles_done > 0,
        "{what}: nothing drawn"
    );
    (g, d)
}

fn scene(name: &str) -> Frame {
    let path = format!("{}/../scenes/{name}.json", env!("CARGO_MANIFEST_DIR"));
    Scene::load(std::path::Path::new(&path))
        .unwrap()
        .to_frame(&path)
        .unwrap()
}

/// The default scene on its preset: the single-frame checks and the activity the contract
/// asks of it.
#[test]
fn default_scene_equals_golden_with_every_kind_of_activity() {
    let frame = Scene::builtin_default().to_frame("default").unwrap();
    // Read latency 4: with a fast clear only pixel_info_read and shading_sort read in the
    // Pixel phase, and their reads overlap once each waits that long.
    let mem = MemBehaviour {
        timing: MemTiming { latency: 4, depth: 5 },
        ..MemBehaviour::default()
    };
    let (g, d) = check_single("default", &frame, mem);
    let s = &d.stats;
    println!(
        "default: {} cycles: bin {}, raster {}, pixel {}; {:?}",
        s.cycles, s.bin_cycles, s.raster_cycles, s.pixel_cycles, s.clients
    );
    // Multi-block lists (pixel info: `next` pointers followed), tiles with no primitive
    // (first tiles and second tiles), drawn tiles of one primitive (no sort pass) and of
    // several (one pass: the scene's 24 primitives span 5 bits; more passes need a span
    // beyond 2^11, the random frames of `random_frames_with_long_spans_sort_in_passes`),
    // shading reuse > 1, a read in flight from two clients at once.
    assert!(s.pi_read.next_reads > 0, "multi-block pixel-info lists");
    assert!(s.sequencer.empty_tiles > 0, "first tiles with no primitive");
    assert!(s.shading.none_tiles > 0, "second tiles with no record");
    assert!(g.passes.contains(&0), "a tile with no sort pass: {:?}", g.passes);
    assert!(g.passes.contains(&1), "a one-pass sort: {:?}", g.passes);
    assert!(
        s.shade.visible_samples > s.shade.shading_invocations,
        "shading reuse > 1"
    );
    assert!(s.max_read_clients >= 2, "reads of two clients in flight at once");
    assert!(s.back_end.blend.merged_samples > 0, "pool merges");
}

/// The other shipped scenes on their own presets, with the memory's latency 5 and random
/// grant back-pressure (`slivers`, full HD, on its own below).
#[test]
fn shipped_scenes_on_their_presets_equal_golden() {
    for (k, name) in ["large_triangles", "mesh", "points"].into_iter().enumerate() {
        let frame = scene(name);
        let mem = MemBehaviour {
            timing: MemTiming { latency: 5, depth: 6 },
            busy_permille: 200,
            seed: 10 + k as u64,
            ..MemBehaviour::default()
        };
        let (_, d) = check_single(name, &frame, mem);
        assert!(d.stats.mem_stalled > 0, "{name}: back-pressure");
        println!("{name} on {}: {} cycles", frame.cfg.name, d.cycles);
    }
}

/// `slivers` on the `full` preset (1920×1080, 16 samples, 4 colours per pixel).
#[test]
fn slivers_on_full_equals_golden() {
    let frame = scene("slivers");
    assert_eq!(frame.cfg.name, "full");
    let (_, d) = check_single("slivers", &frame, MemBehaviour::default());
    println!("slivers on full: {} cycles", d.cycles);
}

/// A random frame of `n` primitives with depths: spread triangles (large and small) and
/// points, some off screen or degenerate.
fn random_frame(cfg: &Config, seed: u64, n: usize) -> Frame {
    let mut r = Rng::stream(seed, 0);
    let [w, h] = cfg.viewport;
    let palette = [
        [200, 30, 30, 255],
        [30, 200, 30, 255],
        [30, 30, 200, 128],
        [250, 250, 250, 255],
    ];
    let mut prims = Vec::new();
    for _ in 0..n {
        let at = (
            r.range(-8 * 256, (w as i64 + 8) * 256) as i32,
            r.range(-8 * 256, (h as i64 + 8) * 256) as i32,
        );
        let mut p = if r.one_in(5) {
            point_at(at, r.range(0, 10 * 256) as i32, r.bool())
        } else {
            let s = if r.bool() { 6 * 256 } else { 40 * 256 };
            let d1 = (r.range(-s, s) as i32, r.range(-s, s) as i32);
            let d2 = (r.range(-s, s) as i32, r.range(-s, s) as i32);
            spread_triangle(cfg, at, d1, d2, 1)
        };
        let depths = [0, 1 << 20, 1 << 20, (1 << 24) - 1];
        let (colour, depth) = (
            *r.pick(&palette),
            if r.bool() {
                *r.pick(&depths)
            } else {
                r.below(1 << 24) as u32
            },
        );
        match &mut p {
            PrimitiveFx::Triangle(t) => (t.colour, t.depth) = (colour, depth),
            PrimitiveFx::Point(q) => (q.colour, q.depth) = (colour, depth),
        }
        prims.push(p);
    }
    Frame {
        cfg: cfg.clone(),
        background: [r.below(256) as u8, 20, 30, 255],
        prims,
    }
}

/// `random_frame` with `stack` triangles over the whole viewport first: every first tile's
/// bin list holds more than one chunk (15 entries) when `stack` ≥ 16.
fn stacked_frame(cfg: &Config, seed: u64, stack: usize, n: usize) -> Frame {
    let mut f = random_frame(cfg, seed, n);
    let mut r = Rng::stream(seed, 1);
    let [w, h] = cfg.viewport.map(|v| v as i32 * 256);
    let mut big: Vec<PrimitiveFx> = (0..stack)
        .map(|k| {
            let mut t = spread_triangle(cfg, (-256, -256), (2 * w + 512, 0), (0, 2 * h + 512), 1);
            if let PrimitiveFx::Triangle(t) = &mut t {
                t.colour = [(40 * k) as u8, 100, 200, 200];
                t.depth = r.below(1 << 24) as u32;
            }
            t
        })
        .collect();
    big.append(&mut f.prims);
    f.prims = big;
    f
}

/// A small viewport of `preset` (every preset is accepted by `FrameCycle::supported`; the
/// raster core wants the viewport's edge tiles cut at whole sub-tiles).
fn small(preset: &str, viewport: [u32; 2]) -> Config {
    let mut cfg = Config::preset(preset).unwrap();
    cfg.viewport = viewport;
    cfg.validate().unwrap();
    FrameCycle::supported(&cfg).unwrap();
    cfg
}

/// Random small frames on every preset, the depth function varied, under the memory's
/// latency 1 and 5, without and with random grant back-pressure.
#[test]
fn random_frames_on_every_preset_equal_golden() {
    let (mut bin_chunks, mut rejections, mut busy, mut two_clients) = (0, 0, 0, 0);
    for (k, preset) in PRESETS.iter().enumerate() {
        let cfg = small(preset, if *preset == "full" { [128, 64] } else { [96, 64] });
        for (i, (latency, busy_pm)) in [(1, 0), (5, 0), (1, 300), (5, 500)].into_iter().enumerate() {
            let mut cfg = cfg.clone();
            cfg.depth_func = [DepthFunc::LessEqual, DepthFunc::Less, DepthFunc::Always][(k + i) % 3];
            // The second frame of each preset reads dst from the framebuffer (`keep`).
            if i == 1 {
                cfg.framebuffer = tilerast_golden::FramebufferMode::Keep;
            }
            let seed = 10 * k as u64 + i as u64;
            // The last frame of each preset: bin lists of more than one chunk (15 entries).
            let frame = if i == 3 {
                stacked_frame(&cfg, seed, 17, 10)
            } else {
                random_frame(&cfg, seed, 30)
            };
            let mem = MemBehaviour {
                timing: MemTiming {
                    latency,
                    depth: latency + 1,
                },
                busy_permille: busy_pm,
                seed,
                ..MemBehaviour::default()
            };
            let what = format!("{preset} seed {seed} L{latency} {busy_pm}‰");
            let (_, d) = check_single(&what, &frame, mem);
            let s = &d.stats;
            bin_chunks += s.seq_lists.next_reads;
            rejections += (s.shade.depth_passes < s.shade.depth_tests) as u32;
            busy += (s.mem_stalled > 0) as u32;
            two_clients += (s.max_read_clients >= 2) as u32;
            if busy_pm > 0 {
                assert!(s.mem_stalled > 0, "{what}: back-pressure");
            }
        }
    }
    assert!(bin_chunks > 0, "multi-chunk bin lists");
    assert!(rejections > 0 && busy > 0 && two_clients > 0);
}

/// Second tiles whose visible primitives span more than 2^d ids sort in more than one radix
/// pass (ice40: d = min(11, log2 512) = 9, so 700 primitives over 6 second tiles span 10 bits
/// and more, two passes); the frame still equals golden.
#[test]
fn random_frames_with_long_spans_sort_in_passes() {
    let cfg = small("ice40", [64, 48]);
    let frame = random_frame(&cfg, 91, 700);
    let mem = MemBehaviour {
        timing: MemTiming { latency: 3, depth: 4 },
        ..MemBehaviour::default()
    };
    let (g, d) = check_single("700 primitives", &frame, mem);
    assert!(g.passes.iter().any(|&p| p >= 2), "a sort of 2 passes: {:?}", g.passes);
    assert_eq!(d.stats.shade.sort_passes, g.passes.iter().sum::<u64>());
}

/// Stalls of `mem_req_ready` of 1500 cycles in the middle of each phase: the requests wait
/// (≥ 1000 stalled cycles), the frame still equals golden.
#[test]
fn long_stalls_in_every_phase() {
    let cfg = small("ice40", [64, 48]);
    let frame = random_frame(&cfg, 77, 20);
    let mem = MemBehaviour {
        timing: MemTiming { latency: 5, depth: 6 },
        ..MemBehaviour::default()
    };
    let (_, d) = check_single("unstalled", &frame, mem);
    let s = d.stats;
    let mut requests = Vec::new();
    run_frames_traced(&cfg, &[&frame], mem, 10_000_000, |p| {
        if p.mem_req_valid {
            requests.push(p.cycle)
        }
    })
    .unwrap();
    // The first primitive is taken in cycle 0; the stall starts at the first request after
    // the middle of the phase.
    let mids = [
        s.bin_cycles / 2,
        s.bin_cycles + s.raster_cycles / 2,
        s.bin_cycles + s.raster_cycles + s.pixel_cycles / 2,
    ]
    .map(|m| *requests.iter().find(|&&c| c >= m).unwrap());
    assert!(mids[0] < s.bin_cycles && mids[1] < s.bin_cycles + s.raster_cycles && mids[2] < s.cycles);
    for (phase, from) in ["bin", "raster", "pixel"].into_iter().zip(mids) {
        let stalled = MemBehaviour {
            stall: (from, from + 1500),
            ..mem
        };
        let (_, ds) = check_single(&format!("stall in {phase}"), &frame, stalled);
        assert!(
            ds.stats.mem_stalled >= 1000,
            "{phase}: {} stalled cycles",
            ds.stats.mem_stalled
        );
        assert!(ds.cycles >= d.cycles + 1000, "{phase}: {} vs {}", ds.cycles, d.cycles);
    }
}

/// Two frames back to back, in flight together (frame 1's Bin and Raster beside frame 0's
/// Pixel phase, in the other region set; the framebuffer cleared to the second background at
/// frame 0's Done): `done_frame` 0 then 1, a one-cycle pulse each, each image right, every word
/// the second frame writes is golden's frame-1 memory (its pixel-info records carry frame id
/// 1), and nothing golden has is missing.
#[test]
fn two_frames_back_to_back() {
    let cfg = small("default", [128, 96]);
    let a = random_frame(&cfg, 5, 40);
    let mut b = random_frame(&cfg, 6, 12);
    b.background = [1, 2, 3, 4];
    let mut ports: Vec<FramePorts> = Vec::new();
    let mem = MemBehaviour {
        timing: MemTiming { latency: 3, depth: 4 },
        busy_permille: 100,
        ..MemBehaviour::default()
    };
    let run = run_frames_traced(&cfg, &[&a, &b], mem, 50_000_000, |p| ports.push(*p)).unwrap();
    assert_eq!(run.frames.len(), 2);
    let ids: Vec<u8> = run.frames.iter().map(|d| d.frame_id).collect();
    assert_eq!(ids, [0, 1]);
    let pulses: Vec<u64> = ports.iter().filter(|p| p.done_valid).map(|p| p.cycle).collect();
    assert_eq!(pulses, run.frames.iter().map(|d| d.done_cycle).collect::<Vec<_>>());
    assert!(
        ports.iter().all(|p| !(p.done_valid && p.mem_req_valid)),
        "no request in a Done cycle"
    );
    assert_eq!(
        ports
            .iter()
            .filter(|p| p.done_valid)
            .map(|p| p.done_frame)
            .collect::<Vec<_>>(),
        [0, 1]
    );
    // Frame 0 as a single frame.
    let ga = golden(&a, 0);
    check_memory("frame 0", &ga, &run.frames[0].memory);
    check_traffic("frame 0", &a, &ga, &run.frames[0]);
    // Frame 1: the words it wrote (from the port trace: set 1's, and the framebuffer's after
    // frame 0's Done) are golden's frame-1 memory; golden's non-zero words and the whole
    // framebuffer are in memory.
    let gb = golden(&b, 1);
    let from = run.frames[0].done_cycle;
    let writes = || {
        ports
            .iter()
            .filter(|p| p.mem_req_valid && p.mem_req_ready && p.mem_req.write)
    };
    let written: BTreeSet<u32> = writes()
        .filter(|p| p.cycle > from || p.mem_req.addr >= SET_STRIDE)
        .map(|p| p.mem_req.addr)
        .collect();
    assert!(written.iter().all(|&a| frame_owns(1, a)));
    // In flight together: frame 1 wrote its prim table, bins and pixel info before frame 0's
    // Done, while frame 0 still wrote its framebuffer.
    let early: Vec<u64> = writes()
        .filter(|p| p.cycle < from && p.mem_req.addr >= SET_STRIDE + PIXEL_INFO)
        .map(|p| p.cycle)
        .collect();
    assert!(!early.is_empty(), "frame 1's pixel info written before frame 0's Done");
    assert!(
        writes().any(|p| p.cycle > early[0] && p.cycle < from && p.mem_req.addr < PRIMS),
        "frame 0 drew after frame 1's raster began"
    );
    let got = &run.frames[1].memory;
    assert!(written.len() > 100);
    for &addr in &written {
        assert_eq!(got.read(addr), gb.mem.memory.read(addr), "frame 1: word {addr:#010x}");
    }
    for (addr, w) in gb.mem.memory.words() {
        if w != 0 || addr < PRIMS {
            assert_eq!(got.read(addr), w, "frame 1: golden word {addr:#010x}");
        }
    }
    check_image("frame 1", &image_from_memory(&cfg, got), &gb.image);
    check_traffic("frame 1", &b, &gb, &run.frames[1]);
    // Every pixel-info record of frame 1 carries frame id 1: word 0 of each record
    // (depth | frame << 24) is among the words written, so equal to golden's, whose frame is 1.
    let pi_words = written.iter().filter(|&&a| a >= SET_STRIDE + PIXEL_INFO).count();
    assert!(
        pi_words as u64 * 4 == gb.stats.pixel_info.bytes_written,
        "frame 1: pixel info words"
    );
    assert!(gb.stats.quads > 0);
    // The framebuffer held frame 1's background before frame 1 drew: a slot nobody drew.
    let untouched = (0..cfg.viewport[0] * cfg.viewport[1] * cfg.colours_per_pixel)
        .map(|p| FRAMEBUFFER + 4 * p)
        .find(|a| !written.contains(a))
        .unwrap();
    assert_eq!(got.read(untouched), u32::from_le_bytes(b.background));
}

/// A driver offering frames back to back without waiting (the next frame's first primitive
/// is offered as soon as the end token is taken), with a flush at `flush_at` (the memory's
/// held reads dropped with it): the port trace and the memory at each done pulse.
fn drive(
    cfg: &Config,
    frames: &[&Frame],
    flush_at: Option<u64>,
    max: u64,
) -> (Vec<FramePorts>, Vec<(u8, SparseMemory)>) {
    let mut top = FrameCycle::new(cfg);
    let mut m = MemoryCycle::new(
        MemTiming { latency: 2, depth: 3 },
        framebuffer(cfg, frames[0].background),
    );
    let beats: Vec<PrimIn> = frames
        .iter()
        .flat_map(|f| frame_beats(&f.prims, f.background).unwrap())
        .collect();
    let mut r = Rng::new(9);
    let (mut next, mut trace, mut done) = (0usize, Vec::new(), Vec::new());
    for cyc in 0..max {
        let flush = flush_at == Some(cyc);
        let grant = r.chance(80);
        let req_ready = m.req_ready(grant);
        let (rv, resp) = m.resp();
        let (qv, q) = top.mem_req();
        let resp_ready = top.mem_resp_ready();
        let in_valid = next < beats.len();
        let inp = beats.get(next).copied().unwrap_or_default();
        let p = top.ports(cyc, in_valid, &inp, req_ready, rv, &resp, flush);
        trace.push(p);
        if p.done_valid {
            done.push((p.done_frame, m.mem.clone()));
        }
        if in_valid && p.in_ready && !flush {
            next += 1;
        }
        top.clock(&FrameTopIn {
            flush,
            inp: Offer::new(in_valid, inp),
            mem_resp: Offer::new(rv, resp),
            mem_req_ready: req_ready,
        });
        m.clock(qv, &q, grant, resp_ready, flush);
        if p.done_valid && done.len() < frames.len() {
            let bg = frames[done.len()].background;
            for (a, w) in framebuffer(cfg, bg).words() {
                m.mem.write(a, w, 0xf);
            }
        }
        if done.len() == frames.len() {
            break;
        }
    }
    (trace, done)
}

/// Offered without a pause, frames overlap by one and no more: the next frame's primitives
/// are taken while the frame before it is still in its Pixel phase (before its done pulse),
/// but the frame after that waits for that done pulse (the front holds its frame, Queued,
/// until the pixel side is free); every frame comes out right.
#[test]
fn the_front_runs_one_frame_ahead_and_no_more() {
    let cfg = small("ice40", [64, 48]);
    let (a, b, c) = (
        random_frame(&cfg, 1, 15),
        random_frame(&cfg, 2, 4),
        random_frame(&cfg, 7, 6),
    );
    let (trace, done) = drive(&cfg, &[&a, &b, &c], None, 10_000_000);
    assert_eq!(done.len(), 3);
    let taken: Vec<&FramePorts> = trace.iter().filter(|p| p.in_valid && p.in_ready).collect();
    let ends: Vec<u64> = taken.iter().filter(|p| p.inp.end).map(|p| p.cycle).collect();
    let pulses: Vec<u64> = trace.iter().filter(|p| p.done_valid).map(|p| p.cycle).collect();
    assert_eq!((ends.len(), pulses.len()), (3, 3));
    // The first primitive of b and of c.
    let first = |after: u64| taken.iter().find(|p| p.cycle > after).unwrap().cycle;
    let (b_first, c_first) = (first(ends[0]), first(ends[1]));
    assert!(
        b_first < pulses[0],
        "b taken at {b_first}, before a's Done at {}",
        pulses[0]
    );
    assert!(ends[1] < pulses[0], "b's end token at {}, before a's Done", ends[1]);
    assert!(
        c_first > pulses[0],
        "c taken at {c_first}, after a's Done at {}",
        pulses[0]
    );
    // Between b's end token and a's Done nothing is taken although c is offered.
    for p in &trace[ends[1] as usize + 1..=pulses[0] as usize] {
        assert!(p.in_valid && !p.in_ready, "cycle {}: c held off", p.cycle);
    }
    for (k, (f, (id, mem))) in [&a, &b, &c].into_iter().zip(&done).enumerate() {
        assert_eq!(*id as usize, k);
        let g = golden(f, k as u8);
        assert!(drawn(f, &g), "frame {k} draws something");
        check_image(&format!("frame {k}"), &image_from_memory(&cfg, mem), &g.image);
    }
}

/// A flush in the middle of a frame (in each phase, and with two frames in flight): the top
/// restarts at frame 0, the next frame (after the testbench clears the framebuffer) is
/// golden's, and `done_frame` is 0.
#[test]
fn a_flush_in_any_phase_restarts_at_frame_zero() {
    let cfg = small("ice40", [64, 48]);
    let (a, b) = (random_frame(&cfg, 3, 20), random_frame(&cfg, 4, 10));
    let gb = golden(&b, 0);
    assert!(drawn(&b, &gb));
    let mut flushed = BTreeSet::new();
    // Frame a's Pixel phase alone, to flush early and late in it.
    let pixel = run_frames(&cfg, &[&a], MemBehaviour::default(), 50_000_000)
        .unwrap()
        .frames[0]
        .stats
        .pixel_cycles;
    assert!(pixel > 4000, "a Pixel phase of {pixel} cycles");
    // Flush in the `after`-th cycle in which `at` holds: the front in a phase on frame a, the
    // pixel side on frame a, or both (frame b's Raster beside frame a's Pixel phase).
    type At = fn(&FrameCycle) -> bool;
    let targets: [(&str, At, u32); 5] = [
        ("Bin", |t| t.phase() == Phase::Bin && t.frame_id() == 0, 40),
        ("Raster", |t| t.phase() == Phase::Raster && t.frame_id() == 0, 300),
        ("Pixel", |t| t.pixel_phase() == PixelPhase::Pixel, 3000),
        (
            "late Pixel",
            |t| t.pixel_phase() == PixelPhase::Pixel,
            pixel as u32 * 3 / 4,
        ),
        (
            "Pixel beside the next frame's Raster",
            |t| t.pixel_phase() == PixelPhase::Pixel && t.phase() == Phase::Raster,
            50,
        ),
    ];
    for (name, target, after) in targets {
        let mut top = FrameCycle::new(&cfg);
        let mut m = MemoryCycle::new(MemTiming { latency: 2, depth: 3 }, framebuffer(&cfg, a.background));
        // Before the flush frames a then b are offered back to back; after it, b alone.
        let beats = [
            frame_beats(&a.prims, a.background).unwrap(),
            frame_beats(&b.prims, b.background).unwrap(),
        ];
        let (mut k, mut next, mut done, mut seen, mut after_flush) = (0usize, 0usize, None, 0, false);
        let at = format!("{name} + {after}");
        for _ in 0..20_000_000u64 {
            seen += (!after_flush && target(&top)) as u32;
            let flush = !after_flush && seen == after && target(&top);
            if flush {
                flushed.insert(name);
            }
            let req_ready = m.req_ready(true);
            let (rv, resp) = m.resp();
            let (qv, q) = top.mem_req();
            let resp_ready = top.mem_resp_ready();
            let in_valid = k < 2 && next < beats[k].len();
            let inp = if in_valid { beats[k][next] } else { PrimIn::default() };
            if let (true, id) = top.done() {
                assert!(after_flush, "flush at {at}: a Done before the flush");
                done = Some((id, m.mem.clone()));
            }
            if in_valid && top.in_ready() && !flush {
                next += 1;
                if next == beats[k].len() && !after_flush {
                    (k, next) = (k + 1, 0);
                }
            }
            top.clock(&FrameTopIn {
                flush,
                inp: Offer::new(in_valid, inp),
                mem_resp: Offer::new(rv, resp),
                mem_req_ready: req_ready,
            });
            m.clock(qv, &q, true, resp_ready, flush);
            if done.is_some() {
                break;
            }
            if flush {
                assert_eq!(
                    (top.phase(), top.pixel_phase(), top.frame_id(), top.in_ready()),
                    (Phase::Bin, PixelPhase::Idle, 0, true)
                );
                // The testbench clears the framebuffer and offers frame b.
                for (a, w) in framebuffer(&cfg, b.background).words() {
                    m.mem.write(a, w, 0xf);
                }
                (k, next, after_flush) = (1, 0, true);
            }
        }
        assert!(after_flush, "flush at {at} happened");
        let (id, mem) = done.expect("frame b done");
        assert_eq!(id, 0, "flush at {at}: frame id");
        check_image(&format!("flush at {at}"), &image_from_memory(&cfg, &mem), &gb.image);
        for (addr, w) in gb.mem.memory.words() {
            if w != 0 {
                assert_eq!(mem.read(addr), w, "flush at {at}: golden word {addr:#010x}");
            }
        }
    }
    assert_eq!(flushed.len(), targets.len(), "flushed at every target: {flushed:?}");
}

/// The frame id counts on after every Done and wraps at 256 (tiny frames, 257 of them).
#[test]
fn frame_ids_wrap_at_256() {
    let cfg = small("ice40", [16, 16]);
    let frames: Vec<Frame> = (0..257).map(|i| random_frame(&cfg, 1000 + i, 1)).collect();
    let refs: Vec<&Frame> = frames.iter().collect();
    let run = run_frames(&cfg, &refs, MemBehaviour::default(), 50_000_000).unwrap();
    let ids: Vec<u8> = run.frames.iter().map(|d| d.frame_id).collect();
    assert_eq!(ids.len(), 257);
    assert!(ids.iter().enumerate().all(|(i, &id)| id == (i % 256) as u8), "{ids:?}");
    let last = run.frames.last().unwrap();
    check_image(
        "frame 256",
        &image_from_memory(&cfg, &last.memory),
        &golden(&frames[256], 0).image,
    );
}

/// `supported`: every preset; refusals are one line naming a config field; the port outputs
/// in the new state; no input reaches an output in the same cycle.
#[test]
fn supported_new_state_and_no_combinational_input_path() {
    for p in PRESETS {
        FrameCycle::supported(&Config::preset(p).unwrap()).unwrap();
    }
    let mut big = Config::preset("default").unwrap();
    big.viewport = [4096, 4096];
    big.tile = [64, 64];
    big.colours_per_pixel = 4;
    big.colour_block_bytes = 1024;
    let e = FrameCycle::supported(&big).unwrap_err();
    assert!(e.starts_with("config.viewport:") && !e.contains('\n'), "{e}");
    let mut q = Config::preset("ice40").unwrap();
    q.subtile = [2, 2];
    q.quads_per_clock = 2;
    q.colour_block_bytes = 16;
    let e = FrameCycle::supported(&q).unwrap_err();
    assert!(e.starts_with("config.quads_per_clock:") && !e.contains('\n'), "{e}");
    let mut s = Config::preset("ice40").unwrap();
    s.second_tile = [512, 16];
    let e = FrameCycle::supported(&s).unwrap_err();
    assert!(e.starts_with("config.") && !e.contains('\n'), "{e}");

    // New state: ready for a primitive, nothing requested, no pulse, phase Bin, frame 0.
    let cfg = small("ice40", [64, 48]);
    let top = FrameCycle::new(&cfg);
    assert!(top.in_ready() && !top.mem_req().0 && top.mem_resp_ready() && top.done() == (false, 0));
    assert_eq!(top.phase(), Phase::Bin);
    // Along a run, the outputs of a cycle do not depend on that cycle's inputs.
    let frame = random_frame(&cfg, 8, 15);
    let mut top = FrameCycle::new(&cfg);
    let mut m = MemoryCycle::new(MemTiming { latency: 2, depth: 3 }, framebuffer(&cfg, frame.background));
    let beats = frame_beats(&frame.prims, frame.background).unwrap();
    let (mut next, mut r) = (0, Rng::new(4));
    let outputs = |p: &FramePorts| {
        (
            p.in_ready,
            p.mem_req_valid,
            p.mem_req,
            p.mem_resp_ready,
            p.done_valid,
            p.done_frame,
        )
    };
    let junk = PrimIn {
        kind: 1,
        size: 999,
        end: true,
        ..PrimIn::default()
    };
    let mut seen = [false; CLIENTS];
    for cyc in 0..2_000_000u64 {
        let grant = r.chance(70);
        let req_ready = m.req_ready(grant);
        let (rv, resp) = m.resp();
        let in_valid = next < beats.len() && r.chance(60);
        let inp = beats.get(next).copied().unwrap_or_default();
        let p = top.ports(cyc, in_valid, &inp, req_ready, rv, &resp, false);
        let other = top.ports(cyc, !in_valid, &junk, !req_ready, !rv, &MemResp { rdata: 7 }, true);
        assert_eq!(outputs(&p), outputs(&other), "cycle {cyc}");
        if let Some(c) = top.mem_client() {
            seen[c] = true;
        }
        if p.done_valid {
            break;
        }
        if in_valid && p.in_ready {
            next += 1;
        }
        let (qv, q) = top.mem_req();
        top.clock(&FrameTopIn {
            flush: false,
            inp: Offer::new(in_valid, inp),
            mem_resp: Offer::new(rv, resp),
            mem_req_ready: req_ready,
        });
        m.clock(qv, &q, grant, p.mem_resp_ready, false);
    }
    assert!(top.done().0, "frame done");
    assert_eq!(seen, [true; CLIENTS], "every client selected at least once");
}

/// The arbiter, cycle by cycle, against the contract's table recomputed here: `sel` = the
/// lowest-index client that is valid and a write or finds the tag FIFO not full, `mem_req` =
/// its request plus its region's base and its side's frame's set (client 0's when none is
/// eligible), the tag FIFO = the clients of the accepted reads not yet answered, oldest first.
/// Two frames back to back under back-pressure and latency 10, with clients competing (the
/// pixel side against the next frame's front too), both sets addressed and the tag FIFO full
/// (asserted).
#[test]
fn the_arbiter_is_the_contracts_table() {
    use tilerast_golden::frame::{CLIENT_TABLE, TAG_FIFO};
    let cfg = small("default", [96, 64]);
    let frame = random_frame(&cfg, 21, 30);
    let second = random_frame(&cfg, 22, 30);
    let mut top = FrameCycle::new(&cfg);
    // A slow, deep memory: up to 12 reads held, so the 8-entry tag FIFO fills.
    let mut m = MemoryCycle::new(
        MemTiming { latency: 10, depth: 12 },
        framebuffer(&cfg, frame.background),
    );
    // Two frames: the second's front competes with the first's pixel side, in the other set.
    let beats: Vec<PrimIn> = [&frame, &second]
        .iter()
        .flat_map(|f| frame_beats(&f.prims, f.background).unwrap())
        .collect();
    let mut r = Rng::new(12);
    let mut tags: std::collections::VecDeque<usize> = Default::default();
    let (mut next, mut contended, mut full, mut won) = (0, 0u64, 0u64, [0u64; CLIENTS]);
    let (mut sets, mut cross, mut first) = ([0u64; 2], 0u64, None);
    for cyc in 0..20_000_000u64 {
        let reqs = top.client_requests();
        assert_eq!(top.reads_in_flight(), Vec::from(tags.clone()), "cycle {cyc}: tag FIFO");
        let room = tags.len() < TAG_FIFO;
        let eligible: Vec<usize> = (0..CLIENTS)
            .filter(|&c| reqs[c].0 && (reqs[c].1.write || room))
            .collect();
        let sel = eligible.first().copied();
        contended += (eligible.len() >= 2) as u64;
        full += (!room && reqs.iter().any(|q| q.0 && !q.1.write)) as u64;
        let (qv, q) = top.mem_req();
        assert_eq!(top.mem_client(), sel, "cycle {cyc}: sel");
        assert_eq!(qv, sel.is_some(), "cycle {cyc}: mem_req_valid");
        // Client 0 when none is eligible; the row's base, and for a row with a base the set of
        // its side's frame.
        let c = sel.unwrap_or(0);
        let mut want = reqs[c].1;
        let (_, base, _, side) = CLIENT_TABLE[c];
        let fid = match side {
            Side::Front => top.frame_id(),
            Side::Pixel => top.pixel_frame_id(),
        };
        let set = if base == 0 { 0 } else { set_base(fid) };
        want.addr = want.addr.wrapping_add(base + set);
        sets[(set != 0) as usize] += (qv && base != 0) as u64;
        cross += (eligible.iter().any(|&e| CLIENT_TABLE[e].3 == Side::Pixel)
            && eligible.iter().any(|&e| CLIENT_TABLE[e].3 == Side::Front)) as u64;
        assert_eq!(q, want, "cycle {cyc}: mem_req of client {c}");
        let grant = r.chance(75);
        let req_ready = m.req_ready(grant);
        let (rv, resp) = m.resp();
        let resp_ready = top.mem_resp_ready();
        if tags.is_empty() {
            assert!(resp_ready, "cycle {cyc}: no tag, response taken");
        }
        let in_valid = next < beats.len();
        let inp = beats.get(next).copied().unwrap_or_default();
        if top.done() == (true, 0) {
            first = Some(m.mem.clone());
        }
        if top.done() == (true, 1) {
            break;
        }
        if in_valid && top.in_ready() {
            next += 1;
        }
        if rv && resp_ready {
            tags.pop_front();
        }
        if let (true, true, Some(c)) = (qv && req_ready, !q.write, sel) {
            tags.push_back(c);
        }
        if qv && req_ready {
            won[c] += 1;
        }
        top.clock(&FrameTopIn {
            flush: false,
            inp: Offer::new(in_valid, inp),
            mem_resp: Offer::new(rv, resp),
            mem_req_ready: req_ready,
        });
        m.clock(qv, &q, grant, resp_ready, false);
    }
    assert_eq!(top.done(), (true, 1), "both frames done");
    let mem = first.expect("frame 0 done");
    let g = golden(&frame, 0);
    check_memory("slow memory", &g, &mem);
    check_image("slow memory", &image_from_memory(&cfg, &mem), &g.image);
    assert!(contended > 0, "clients competed");
    assert!(cross > 0, "the pixel side and the front competed");
    assert!(sets[0] > 0 && sets[1] > 0, "requests to both region sets: {sets:?}");
    assert!(full > 0, "a read held back by a full tag FIFO");
    assert!(won.iter().all(|&w| w > 0), "every client won: {won:?}");
    println!("{contended} contended cycles ({cross} pixel side against front), {full} with the tag FIFO full, {won:?}, sets {sets:?}");
}

/// The watchdog (issue 34: a fixed budget must not fail a frame still making progress): a
/// memory that never grants stops the run exactly `limit + 1` cycles after the last move at
/// the ports, naming the phase; a stall longer than the quiet bound but finite, which the run
/// drives and so adds to the limit, does not.
#[test]
fn the_watchdog_stops_a_run_that_stopped_and_only_that() {
    let cfg = small("ice40_1x", [64, 32]);
    let frame = random_frame(&cfg, 7, 12);
    let limit = FrameCycle::quiet_bound(&cfg);
    assert!(limit > 4096, "{limit}");
    let never = MemBehaviour {
        busy_permille: 1000,
        ..MemBehaviour::default()
    };
    let e = run_frames(&cfg, &[&frame], never, u64::MAX).unwrap_err();
    assert!(
        e.contains(&format!("no progress for {} cycles", limit + 1)) && e.contains("phase Bin"),
        "{e}"
    );
    // The last move was a primitive taken: the error's cycle is that move's plus limit + 1.
    let (since, at) = {
        let num = |key: &str| -> u64 {
            let i = e.find(key).unwrap_or_else(|| panic!("{key} in {e}")) + key.len();
            e[i..]
                .chars()
                .take_while(char::is_ascii_digit)
                .collect::<String>()
                .parse()
                .unwrap()
        };
        (num("since cycle "), num("(cycle "))
    };
    assert!(since > 0 && at == since + limit + 1, "{e}");
    let stalled = MemBehaviour {
        stall: (50, 50 + 2 * limit),
        ..MemBehaviour::default()
    };
    let run = run_frames(&cfg, &[&frame], stalled, u64::MAX).unwrap_or_else(|e| panic!("stalled: {e}"));
    assert!(
        run.cycles > 2 * limit && run.frames[0].stats.tiles_done > 0,
        "{}",
        run.cycles
    );
}
