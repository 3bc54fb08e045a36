//! The pixel back end's cycle model (`PixelBackEndCycle`, layer 3, the composition of its
//! blocks' cycle models and the arbiter) against the whole golden pipeline (layer 2): for the
//! shipped scenes on every preset and for random frames, the back end fed golden's scatter
//! stream (`pipeline::back_end_input`) leaves the memory holding golden's framebuffer byte for
//! byte, so its image is `render_frame`'s bit for bit, whatever the memory's latency and
//! back-pressure. The counters are held against golden's: the pixel processor's equal
//! `FrameStats::pixel`, every blend sample arrives (`BlendStats::samples`), one write per
//! sample.

use tilerast_golden::cycle::Offer;
use tilerast_golden::memory_port::{MemTiming, MemoryCycle};
use tilerast_golden::output_merger::image_from_memory;
use tilerast_golden::pipeline::{back_end_input, render_frame};
use tilerast_golden::pixel_back_end::{
    framebuffer, run_frame, BackEndRun, MemBehaviour, PixelBackEndCycle, PixelBackEndIn,
};
use tilerast_golden::scene::{Frame, Scene};
use tilerast_golden::{Config, FramebufferMode, PrimitiveFx, PRESETS};
use tilerast_verif::stim::{point_at, spread_triangle};
use tilerast_verif::Rng;

fn shipped_scenes() -> Vec<(String, Frame)> {
    let dir = concat!(env!("CARGO_MANIFEST_DIR"), "/../scenes");
    let mut v: Vec<(String, Frame)> = std::fs::read_dir(dir)
        .unwrap()
        .filter_map(|e| e.ok())
        .map(|e| e.path())
        .filter(|p| p.extension().is_some_and(|x| x == "json"))
        .map(|p| {
            let name = p.file_stem().unwrap().to_string_lossy().to_string();
            (
                name,
                Scene::load(&p).unwrap().to_frame(&p.display().to_string()).unwrap(),
            )
        })
        .collect();
    v.sort_by(|a, b| a.0.cmp(&b.0));
    assert!(v.len() >= 5);
    v
}

/// Run the frame through golden and through the back end's cycle model; assert the memory,
/// the image and the counters; return the run.
fn check(what: &str, frame: &Frame, mem: MemBehaviour) -> BackEndRun {
    let out = back_end_input(frame).unwrap_or_else(|e| panic!("{what}: {e}"));
    let rec = out.back_end.expect("back_end_input records the back end");
    let st = &out.stats;
    let run = run_frame(
        &frame.cfg,
        &rec.input,
        rec.background,
        st.blend.samples,
        mem,
        50 * rec.input.len() as u64 + 10_000,
    )
    .unwrap_or_else(|e| panic!("{what}: {e}"));
    if let Some((addr, want, got)) = rec.memory.first_difference(&run.memory) {
        panic!("{what}: memory byte {addr:#x} is {got:#04x}, golden {want:#04x}");
    }
    assert_eq!(
        image_from_memory(&frame.cfg, &run.memory),
        out.image.expect("image"),
        "{what}: image"
    );
    assert_eq!(run.stats.pixel, st.pixel, "{what}: pixel processor counters");
    assert_eq!(run.stats.blend.samples, st.blend.samples, "{what}: blend samples");
    let reads = match frame.cfg.framebuffer {
        FramebufferMode::Keep => st.blend.samples,
        FramebufferMode::Clear => 0,
    };
    assert_eq!(
        run.stats.dst.reads, reads,
        "{what}: dst reads ({:?})",
        frame.cfg.framebuffer
    );
    assert_eq!(run.mem_stats.reads, reads, "{what}: reads at the memory");
    assert_eq!(run.stats.dst.samples, st.blend.samples, "{what}: dst_fetch's samples");
    assert_eq!(run.mem_stats.writes, st.blend.samples, "{what}: one write per sample");
    assert_eq!(run.stats.pixel.pixels, st.pixel.pixels);
    // Every pixel went into the colour buffer; every second tile of the input but the last
    // has drained (the run ends at the last write: the last tile's trailing pixels without a
    // covered slot may still be on their way out).
    let tiles: std::collections::BTreeSet<_> = rec
        .input
        .iter()
        .map(|p| (p.x / frame.cfg.second_tile[0], p.y / frame.cfg.second_tile[1]))
        .collect();
    assert_eq!(
        run.stats.buffer.pixels,
        rec.input.len() as u64,
        "{what}: colour buffer pixels"
    );
    assert!(
        run.stats.buffer.tiles + 1 >= tiles.len() as u64 && run.stats.buffer.tiles <= tiles.len() as u64,
        "{what}: colour buffer drained {} of {} tiles",
        run.stats.buffer.tiles,
        tiles.len()
    );
    run
}

fn on_preset(frame: &Frame, preset: &str) -> Frame {
    let mut f = frame.clone();
    let keep = f.cfg.viewport;
    f.cfg = Config::preset(preset).unwrap();
    f.cfg.viewport = keep;
    f.cfg.guard_band = f.cfg.guard_band.max(256);
    f.cfg.validate().unwrap();
    f
}

#[test]
fn shipped_scenes_on_every_preset_equal_golden() {
    let mut partial = std::collections::BTreeSet::new();
    let (mut merged, mut in_flight, mut frags_multi) = (0, 0, 0);
    for (name, scene) in shipped_scenes() {
        for (k, preset) in PRESETS.iter().enumerate() {
            let frame = on_preset(&scene, preset);
            let mem = MemBehaviour {
                timing: MemTiming {
                    latency: 1 + k as u32,
                    ..MemTiming::default()
                },
                busy_permille: 150 * k as u32,
                seed: 7 + k as u64,
                ..MemBehaviour::default()
            };
            let run = check(&format!("{name} on {preset}"), &frame, mem);
            println!(
                "{name} on {preset}: {} pixels, {} samples, {} cycles (latency {}, {} ‰ busy), \
                 {} blend ops, {} merged, {} in flight",
                run.stats.pixel.pixels,
                run.stats.blend.samples,
                run.cycles,
                mem.timing.latency,
                mem.busy_permille,
                run.stats.blend.blend_ops,
                run.stats.blend.merged_samples,
                run.stats.blend.merged_in_flight
            );
            assert!(run.stats.blend.samples > 0, "{name} on {preset}: nothing blended");
            if run.stats.pixel.partial_slots > 0 {
                partial.insert(frame.cfg.msaa);
            }
            merged += run.stats.blend.merged_samples;
            in_flight += run.stats.blend.merged_in_flight;
            frags_multi += (run.stats.dst.frags < run.stats.dst.samples) as u64;
        }
    }
    // Activity: partial coverage at every MSAA rate of the presets where a colour slot has more
    // than one sample (S > C; at 1x a slot is covered or not), merges in the pool and against
    // the ops in flight, fragments of more than one sample.
    for p in PRESETS {
        let c = Config::preset(p).unwrap();
        if c.msaa > c.colours_per_pixel {
            assert!(partial.contains(&c.msaa), "no partial-coverage colour at {}x", c.msaa);
        }
    }
    assert!(merged > 0, "no pool merge");
    assert!(in_flight > 0, "no in-flight merge");
    assert!(frags_multi > 0, "no fragment of more than one sample");
}

/// A random frame of `n` primitives: spread triangles (large and small) and points.
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
        let at = (r.range(0, w as i64 * 256) as i32, r.range(0, h as i64 * 256) as i32);
        let mut p = if r.one_in(6) {
            point_at(at, r.range(128, 8 * 256) as i32, r.bool())
        } else {
            let s = if r.bool() { 12 * 256 } else { 60 * 256 };
            let d1 = (r.range(-s, s) as i32, r.range(-s, s) as i32);
            let d2 = (r.range(-s, s) as i32, r.range(-s, s) as i32);
            spread_triangle(cfg, at, d1, d2, 1)
        };
        let (colour, depth) = (*r.pick(&palette), r.below(1 << 24) as u32);
        match &mut p {
            PrimitiveFx::Triangle(t) => (t.colour, t.depth) = (colour, depth),
            PrimitiveFx::Point(q) => (q.colour, q.depth) = (colour, depth),
        }
        prims.push(p);
    }
    Frame {
        cfg: cfg.clone(),
        background: [10, 20, 30, 255],
        prims,
    }
}

#[test]
fn random_frames_on_every_preset_equal_golden() {
    for (k, preset) in PRESETS.iter().enumerate() {
        let mut cfg = Config::preset(preset).unwrap();
        // Small viewports keep the full preset's 16 samples per pixel quick.
        cfg.viewport = [cfg.viewport[0].min(200), cfg.viewport[1].min(150)];
        cfg.validate().unwrap();
        for seed in 0..3u64 {
            // Seed 1 reads dst from the framebuffer (`keep`), the others blend over the
            // background register (`clear`, the presets').
            cfg.framebuffer = if seed == 1 {
                FramebufferMode::Keep
            } else {
                FramebufferMode::Clear
            };
            let frame = random_frame(&cfg, 100 * k as u64 + seed, 40);
            let mem = MemBehaviour {
                timing: MemTiming {
                    latency: 1 + (seed as u32 % 4),
                    ..MemTiming::default()
                },
                busy_permille: [0, 300, 700][seed as usize],
                seed,
                ..MemBehaviour::default()
            };
            let run = check(&format!("random {seed} on {preset}"), &frame, mem);
            assert!(run.stats.blend.samples > 0);
        }
    }
}

/// The harness can fail: a frame whose golden memory is changed in one byte is reported at
/// that byte.
#[test]
fn a_wrong_byte_is_reported() {
    let mut cfg = Config::preset("ice40").unwrap();
    cfg.viewport = [64, 48];
    let frame = random_frame(&cfg, 5, 12);
    let out = back_end_input(&frame).unwrap();
    let rec = out.back_end.unwrap();
    let run = run_frame(
        &cfg,
        &rec.input,
        rec.background,
        out.stats.blend.samples,
        MemBehaviour::default(),
        1 << 20,
    )
    .unwrap();
    let mut bad = rec.memory.clone();
    let addr = 4 * 100 + 2;
    bad.write(addr & !3, 0x00ab_0000 ^ bad.read(addr & !3), 0b0100);
    assert_eq!(bad.first_difference(&run.memory).map(|d| d.0), Some(addr));
    assert!(render_frame(&frame).is_ok());
}

/// `idle` of the back end and of each of its five blocks (the contracts' **Idle**): true in
/// the new state, false at least once while a frame goes through each block, true again when
/// the frame's last write has reached the memory and the back end has drained (the memory
/// then equals golden's), and true the cycle after a flush in mid-frame.
#[test]
fn idle_is_true_before_and_after_a_frame_and_false_in_between() {
    let mut cfg = Config::preset("default").unwrap();
    cfg.viewport = [96, 64];
    cfg.validate().unwrap();
    let frame = random_frame(&cfg, 11, 20);
    let out = back_end_input(&frame).unwrap();
    let rec = out.back_end.unwrap();
    let mem = MemBehaviour {
        timing: MemTiming { latency: 3, depth: 4 },
        busy_permille: 200,
        ..MemBehaviour::default()
    };
    for flush_at in [None, Some(rec.input.len() as u64 / 2)] {
        let mut be = PixelBackEndCycle::new(&cfg);
        assert!(be.idle() && be.blocks_idle() == [true; 5], "new state");
        let mut m = MemoryCycle::new(mem.timing, framebuffer(&cfg, rec.background));
        let mut rng = Rng::stream(3, 0);
        let mut busy = [false; 5];
        let mut next = 0usize;
        let mut end = None;
        for cyc in 0..1_000_000u64 {
            let flush = flush_at == Some(cyc);
            let grant = !rng.permille(mem.busy_permille as u64);
            let req_ready = m.req_ready(grant);
            let (rv, resp) = m.resp();
            let (qv, q) = be.mem_req();
            let in_valid = next < rec.input.len();
            let inp = rec.input.get(next).copied().unwrap_or_default();
            if !flush && in_valid && be.in_ready(req_ready) {
                next += 1;
            }
            let resp_ready = be.mem_resp_ready();
            be.clock(&PixelBackEndIn {
                flush,
                inp: Offer::new(in_valid, inp),
                mem_resp: Offer::new(rv, resp),
                mem_req_ready: req_ready,
                background: u32::from_le_bytes(rec.background),
            });
            m.clock(qv && !flush, &q, grant, resp_ready, flush);
            for (b, i) in busy.iter_mut().zip(be.blocks_idle()) {
                *b |= !i;
            }
            if flush {
                assert!(be.idle(), "idle the cycle after a flush");
                break;
            }
            if next == rec.input.len() && be.idle() && m.held() == 0 {
                end = Some(cyc);
                break;
            }
        }
        assert_eq!(busy, [true; 5], "every block held something once");
        if flush_at.is_none() {
            println!(
                "idle again at cycle {end:?}: {} pixels, {} writes",
                rec.input.len(),
                m.stats.writes
            );
            assert!(m.stats.writes > 100 && rec.input.len() > 1000, "activity");
            assert!(end.is_some(), "the back end drained");
            assert_eq!(rec.memory.first_difference(&m.mem), None, "memory at idle");
        }
    }
}
