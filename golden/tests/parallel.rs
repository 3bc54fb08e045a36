//! The parallel golden pipeline (`pipeline.rs`, "Parallel") gives the same output whatever the
//! number of threads: in a 1-thread rayon pool (the same code, every window's tasks run one
//! after the other) and in 3- and 4-thread pools, `render_stream`, `raster_stream` (both
//! traced) and `back_end_input` (up to 640x480) send the same events in the same order (every quad, sub-tile
//! event and tile end), and give the same image bytes, `FrameStats` (every counter, via its
//! `Debug` text), `HeldStats`, point fragments and back-end record. On every shipped scene on
//! every preset (the scene's own viewport kept), and on seeded random frames on every preset
//! and on tile geometries where a second tile spans several first tiles or a first tile
//! several second tiles.
//!
//! The brute-force reference over a frame (`reference::primitives`) likewise: the same coverage
//! per primitive and the same samples tested on 1 and 4 threads as one primitive at a time.
//!
//! And the stream stops where the serial pipeline stops: a sink error after the same events,
//! and a pixel-info store error (a depth beyond 24 bits) just before the quads event of the
//! first batch it fails in, after that batch's sub-tile events.

use tilerast_golden::memory_port::SparseMemory;
use tilerast_golden::pipeline::{
    back_end_input, raster_stream, render_stream, Event, HeldStats, PipelineError, StreamOutput, SubTileEvent,
};
use tilerast_golden::reference::{self, RefStats};
use tilerast_golden::scene::{Frame, Scene};
use tilerast_golden::streams::PixSamples;
use tilerast_golden::{Config, Coverage, PointFx, PrimitiveFx, Quad, Rgba, TriangleFx, PRESETS};
use tilerast_verif::Rng;

/// An event of the stream, owned.
#[derive(Clone, Debug, PartialEq, Eq)]
enum Ev {
    Quads([u32; 2], Vec<Quad>),
    SubTile(SubTileEvent),
    TileDone([u32; 2]),
}

fn own(e: Event<'_>) -> Ev {
    match e {
        Event::Quads { tile, quads } => Ev::Quads(tile, quads.to_vec()),
        Event::SubTile(s) => Ev::SubTile(s),
        Event::TileDone(t) => Ev::TileDone(t),
    }
}

/// What one pipeline call gave: its events, and everything else as comparable values.
#[derive(Debug, PartialEq, Eq)]
struct Run {
    events: Vec<Ev>,
    /// `FrameStats` has no `PartialEq`: its `Debug` text names and shows every counter.
    stats: String,
    held: HeldStats,
    point_fragments: Vec<(u32, u64)>,
    image: Option<(u32, u32, Vec<u8>)>,
    /// The back end's input, background and framebuffer bytes (`back_end_input`).
    back_end: Option<(Vec<PixSamples>, Rgba, SparseMemory)>,
}

fn run_of(events: Vec<Ev>, s: StreamOutput) -> Run {
    Run {
        events,
        stats: format!("{:?}", s.stats),
        held: s.held,
        point_fragments: s.point_fragments,
        image: s.image.map(|i| (i.width, i.height, i.rgba)),
        back_end: s.back_end.map(|b| (b.input, b.background, b.memory)),
    }
}

/// `render_stream` and `raster_stream` (traced) and `back_end_input` on `frame`; the last only
/// up to 640x480 pixels (its record holds the whole framebuffer as a sparse memory, whose
/// building and comparing cost seconds at 1920x1080 with 4 colours per pixel, where the image
/// and the statistics are still compared).
fn runs(frame: &Frame) -> Vec<Run> {
    let mut out = Vec::new();
    for render in [true, false] {
        let mut events = Vec::new();
        let sink = |e: Event<'_>| {
            events.push(own(e));
            Ok::<(), PipelineError>(())
        };
        let s = if render {
            render_stream(frame, true, sink)
        } else {
            raster_stream(frame, true, sink)
        }
        .unwrap_or_else(|e| panic!("pipeline: {e}"));
        out.push(run_of(events, s));
    }
    let [w, h] = frame.cfg.viewport;
    if w * h <= 640 * 480 {
        out.push(run_of(Vec::new(), back_end_input(frame).expect("back_end_input")));
    }
    out
}

/// `f` in a rayon pool of its own with `threads` threads.
fn in_pool<R: Send>(threads: usize, f: impl FnOnce() -> R + Send) -> R {
    rayon::ThreadPoolBuilder::new()
        .num_threads(threads)
        .build()
        .expect("thread pool")
        .install(f)
}

/// `frame` on 1 thread and on each of `threads`: identical runs. Returns the quads drawn.
fn check(what: &str, frame: &Frame, threads: &[usize]) -> u64 {
    let want = in_pool(1, || runs(frame));
    for &n in threads {
        let got = in_pool(n, || runs(frame));
        for (k, (g, w)) in got.iter().zip(&want).enumerate() {
            let call = ["render_stream", "raster_stream", "back_end_input"][k];
            // Field by field first, for a readable failure.
            assert_eq!(
                g.events.len(),
                w.events.len(),
                "{what}, {call}, {n} threads: event count"
            );
            if let Some(i) = (0..g.events.len()).find(|&i| g.events[i] != w.events[i]) {
                panic!(
                    "{what}, {call}, {n} threads: event {i} differs: {:?} vs {:?} on 1 thread",
                    g.events[i], w.events[i]
                );
            }
            assert_eq!(g.stats, w.stats, "{what}, {call}, {n} threads: statistics");
            assert_eq!(g.held, w.held, "{what}, {call}, {n} threads: held");
            assert_eq!(
                g.point_fragments, w.point_fragments,
                "{what}, {call}, {n} threads: fragments"
            );
            assert!(g.image == w.image, "{what}, {call}, {n} threads: image bytes differ");
            assert!(
                g.back_end == w.back_end,
                "{what}, {call}, {n} threads: back-end record differs"
            );
            assert_eq!(g, w, "{what}, {call}, {n} threads");
        }
    }
    want[0]
        .events
        .iter()
        .map(|e| match e {
            Ev::Quads(_, q) => q.len() as u64,
            _ => 0,
        })
        .sum()
}

/// Presets plus tile geometries that stress the second-tile completion order (as
/// `tests/stream.rs`): a second tile spanning 4x2 first tiles, a first tile spanning 4 second
/// tiles in y, viewports a multiple of neither.
fn configs() -> Vec<Config> {
    let mut v: Vec<Config> = PRESETS.iter().map(|p| Config::preset(p).unwrap()).collect();
    let base = Config::preset("default").unwrap();
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

/// `n` random primitives over `cfg`'s viewport and a little beyond: triangles of every size and
/// both windings, points (AA on and off), colours from a small palette (so the blender merges)
/// some translucent, random depths; and a pile of small triangles over one first tile
/// (overdraw: a long bin list, many records in one second tile).
fn random_frame(cfg: &Config, seed: u64, n: usize) -> Frame {
    let mut r = Rng::stream(seed, 0x9a7a);
    let [w, h] = cfg.viewport.map(i64::from);
    let g = cfg.guard_band.min(16) as i64;
    let coord = |r: &mut Rng, span: i64| r.range(-g * 256, (span + g) * 256) as i32;
    let palette: [Rgba; 4] = [
        [200, 30, 30, 255],
        [30, 200, 30, 255],
        [30, 30, 200, 128],
        [250, 250, 250, 255],
    ];
    let mut prims = Vec::new();
    for i in 0..n + n / 2 {
        let colour = *r.pick(&palette);
        let depth = r.below(1 << 24) as u32;
        if i >= n {
            // The pile: inside first tile (0, 0).
            let [tw, th] = cfg.tile.map(i64::from);
            let a = [r.range(0, tw.min(w) * 256 - 1), r.range(0, th.min(h) * 256 - 1)];
            let v = [0, 1, 2].map(|k| {
                if k == 0 {
                    [a[0] as i32, a[1] as i32]
                } else {
                    [
                        (a[0] + r.range(-2048, 2048)) as i32,
                        (a[1] + r.range(-2048, 2048)) as i32,
                    ]
                }
            });
            prims.push(PrimitiveFx::Triangle(TriangleFx { v, colour, depth }));
        } else if r.one_in(6) {
            prims.push(PrimitiveFx::Point(PointFx {
                pos: [coord(&mut r, w), coord(&mut r, h)],
                size: r.range(0, 12 * 256) as i32,
                aa: r.bool(),
                colour,
                depth,
            }));
        } else {
            let small = r.bool();
            let a = [coord(&mut r, w), coord(&mut r, h)];
            let mut v = [a; 3];
            for vi in v.iter_mut().skip(1) {
                *vi = if small {
                    [
                        (a[0] + r.range(-20 * 256, 20 * 256) as i32).clamp(-g as i32 * 256, (w + g) as i32 * 256),
                        (a[1] + r.range(-20 * 256, 20 * 256) as i32).clamp(-g as i32 * 256, (h + g) as i32 * 256),
                    ]
                } else {
                    [coord(&mut r, w), coord(&mut r, h)]
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

/// Every shipped scene on every preset it builds on (its own viewport kept, the guard band
/// raised so its geometry stays inside), as `tests/pipeline.rs` runs them.
fn shipped_frames() -> Vec<(String, Frame)> {
    let mut v = Vec::new();
    for (name, scene) in Scene::shipped().expect("shipped scenes parse") {
        let base = scene.to_frame(&name).expect("valid scene");
        for preset in PRESETS {
            let mut frame = base.clone();
            frame.cfg = Config::preset(preset).unwrap();
            frame.cfg.viewport = base.cfg.viewport;
            frame.cfg.guard_band = frame.cfg.guard_band.max(256);
            if frame.cfg.validate().is_ok() {
                v.push((format!("{name} on {preset}"), frame));
            }
        }
    }
    assert!(
        v.len() >= 5 * PRESETS.len(),
        "every shipped scene on every preset: {}",
        v.len()
    );
    v
}

#[test]
fn shipped_scenes_are_identical_on_1_and_4_threads() {
    let mut quads = 0;
    for (what, frame) in shipped_frames() {
        let q = check(&what, &frame, &[4]);
        assert!(q > 0, "{what} draws nothing");
        quads += q;
    }
    assert!(quads > 0);
}

#[test]
fn random_frames_are_identical_on_1_3_and_4_threads() {
    for cfg in configs() {
        let mut quads = 0;
        // `full` (1920x1080, 16 samples, large triangles) costs seconds a run: one seed, 4 threads.
        let (seeds, n, threads) = if cfg.msaa == 16 {
            (1, 12, &[4][..])
        } else {
            (3, 40, &[3, 4][..])
        };
        for seed in 0..seeds {
            let frame = random_frame(&cfg, seed, n);
            quads += check(&format!("seed {seed} on {}", cfg.name), &frame, threads);
        }
        assert!(quads > 0, "{}: nothing drawn", cfg.name);
    }
}

#[test]
fn the_reference_is_identical_on_1_and_4_threads_and_to_one_primitive_at_a_time() {
    let mut frames = shipped_frames();
    for cfg in configs() {
        frames.push((format!("seed 5 on {}", cfg.name), random_frame(&cfg, 5, 40)));
    }
    for (what, frame) in frames {
        let mut serial = RefStats::default();
        let want: Vec<Coverage> = frame
            .prims
            .iter()
            .map(|p| reference::primitive(&frame.cfg, p, &mut serial))
            .collect();
        for n in [1, 4] {
            let mut st = RefStats::default();
            let got = in_pool(n, || reference::primitives(&frame.cfg, &frame.prims, &mut st));
            assert!(got == want, "{what}, {n} threads: coverage differs");
            assert_eq!(
                st.samples_tested, serial.samples_tested,
                "{what}, {n} threads: samples tested"
            );
        }
    }
}

/// The events a sink error stops after, and the error, on `threads` threads.
fn stopped(frame: &Frame, threads: usize, stop_after: usize) -> (Vec<Ev>, String) {
    in_pool(threads, || {
        let mut events = Vec::new();
        let r = render_stream(frame, true, |e| {
            if events.len() == stop_after {
                return Err(PipelineError(format!("sink full after {stop_after} events")));
            }
            events.push(own(e));
            Ok(())
        });
        (events, r.expect_err("the sink stops the stream").0)
    })
}

#[test]
fn a_sink_error_stops_at_the_same_event_on_any_thread_count() {
    let cfg = Config::preset("default").unwrap();
    let frame = random_frame(&cfg, 11, 60);
    let all = in_pool(1, || runs(&frame)).swap_remove(0).events;
    assert!(all.len() > 40, "a long stream: {}", all.len());
    for stop_after in [0, 1, all.len() / 3, all.len() / 2 + 7, all.len() - 1] {
        let one = stopped(&frame, 1, stop_after);
        assert_eq!(one.0, all[..stop_after], "1 thread, stop after {stop_after}");
        for n in [2, 4] {
            assert_eq!(
                stopped(&frame, n, stop_after),
                one,
                "{n} threads, stop after {stop_after}"
            );
        }
    }
}

#[test]
fn a_store_error_stops_before_the_failing_batch_on_any_thread_count() {
    let cfg = Config::preset("default").unwrap();
    let good = random_frame(&cfg, 12, 60);
    let all = in_pool(1, || runs(&good)).swap_remove(0).events;
    // A primitive that draws, in the middle of the stream: its depth made 25 bits wide.
    let first_quads_of = |p: u32| all.iter().position(|e| matches!(e, Ev::Quads(_, q) if q[0].prim == p));
    let (prim, at) = (0..good.prims.len() as u32)
        .filter_map(|p| first_quads_of(p).map(|i| (p, i)))
        .min_by_key(|&(_, i)| i.abs_diff(all.len() / 2))
        .expect("some primitive draws");
    let mut bad = good.clone();
    match &mut bad.prims[prim as usize] {
        PrimitiveFx::Triangle(t) => t.depth = 1 << 24,
        PrimitiveFx::Point(q) => q.depth = 1 << 24,
    }
    for n in [1, 2, 4] {
        let (events, err) = in_pool(n, || {
            let mut events = Vec::new();
            let r = render_stream(&bad, true, |e| {
                events.push(own(e));
                Ok::<(), PipelineError>(())
            });
            (events, r.expect_err("depth beyond 24 bits").0)
        });
        assert!(err.contains("depth"), "{n} threads: {err}");
        assert_eq!(
            events,
            all[..at],
            "{n} threads: the events before primitive {prim}'s first quads"
        );
    }
}
