//! Verilator co-simulation of the frame top (`rtl-out/tilerast_frame_<preset>.v`) against its
//! cycle model `FrameCycle`, every port on every cycle (`in_ready`, `mem_req_valid` +
//! `mem_req`, `mem_resp_ready`, `done_valid`, `done_frame`), with a golden `MemoryCycle`
//! behind the memory port (harness: `tilerast_cosim::frame`). Per preset:
//! * `default`: the default scene, read latency 2, 20 % grant back-pressure, input gaps with
//!   junk payloads, a 1500-cycle grant stall; the memory at Done equals golden's
//!   `frame_memory` word for word both ways, the image `render_frame`'s, the bytes of every
//!   client golden's statistics, and the activity the contract asks of the scene (multi-block
//!   lists, first and second tiles with nothing, a multi-pass sort, shading reuse, reads of
//!   two clients in flight at once).
//! * `ice40`: two random frames back to back (the second offered from the first's end token on,
//!   held off until the first's handoff and then taken beside its Pixel phase), read latency 5 with 30 % back-pressure, a flush in the
//!   first frame (which is then offered again) and a 1200-cycle stall; frame ids 0 then 1.
//! * `ice40_1x`: a random frame, latency 1, no back-pressure, a 1000-cycle stall; plus a model
//!   broken at one cycle caught at that cycle and port.
//! * `full`: a random frame over a corner of the 1920×1080 viewport, latency 3 with 10 %
//!   back-pressure.
//! * the watchdog: a memory that never grants stops the run at the cycle `FrameCycle::quiet_bound`
//!   predicts, the ports equal up to there.

use tilerast_cosim::frame::{check_later, check_single, check_traffic, run, Drive, Outcome};
use tilerast_golden::pipeline::raster_frame;
use tilerast_golden::pixel_info::PixelInfoStore;
use tilerast_golden::prim::PrimitiveFx;
use tilerast_golden::scene::{Frame, Scene};
use tilerast_golden::shading_sort::shade_tile;
use tilerast_golden::Config;
use tilerast_verif::stim::{point_at, spread_triangle};
use tilerast_verif::Rng;

/// `n` random primitives inside `[0, w) × [0, h)` pixels (a little beyond it too) of
/// `preset`'s viewport: spread triangles, large and small, and points, with colours and depths
/// (ties and extremes among them).
fn random_frame(preset: &str, seed: u64, n: usize, [w, h]: [u32; 2]) -> Frame {
    let cfg = Config::preset(preset).unwrap();
    let mut r = Rng::stream(seed, 0);
    let palette = [
        [200, 30, 30, 255],
        [30, 200, 30, 255],
        [30, 30, 200, 128],
        [250, 250, 250, 255],
    ];
    let mut prims = Vec::new();
    for _ in 0..n {
        let at = (
            r.range(-4 * 256, (w as i64 + 4) * 256) as i32,
            r.range(-4 * 256, (h as i64 + 4) * 256) as i32,
        );
        let mut p = if r.one_in(5) {
            point_at(at, r.range(0, 10 * 256) as i32, r.bool())
        } else {
            let s = if r.bool() { 6 * 256 } else { 24 * 256 };
            let d1 = (r.range(-s, s) as i32, r.range(-s, s) as i32);
            let d2 = (r.range(-s, s) as i32, r.range(-s, s) as i32);
            spread_triangle(&cfg, at, d1, d2, 1)
        };
        let depths = [0, 1 << 20, 1 << 20, (1 << 24) - 1];
        let colour = *r.pick(&palette);
        let depth = if r.bool() {
            *r.pick(&depths)
        } else {
            r.below(1 << 24) as u32
        };
        match &mut p {
            PrimitiveFx::Triangle(t) => (t.colour, t.depth) = (colour, depth),
            PrimitiveFx::Point(q) => (q.colour, q.depth) = (colour, depth),
        }
        prims.push(p);
    }
    Frame {
        cfg,
        background: [r.below(256) as u8, 20, 30, 255],
        prims,
    }
}

/// The sort passes of every second tile with visible samples, as golden shades the frame.
fn sort_passes(frame: &Frame) -> Vec<u64> {
    let raster = raster_frame(frame, false).unwrap();
    let mut store = PixelInfoStore::new(&frame.cfg, 0).unwrap();
    for tq in &raster.quads {
        store
            .push(&tq.quad, frame.prims[tq.quad.prim as usize].depth())
            .unwrap();
    }
    store.finish_raster().unwrap();
    let colours: Vec<_> = frame.prims.iter().map(|p| p.colour()).collect();
    let mut passes = Vec::new();
    for st in store.second_tiles() {
        let recs = store.read_second_tile(st).unwrap();
        if !recs.is_empty() {
            let (_, s) = shade_tile(&frame.cfg, st, &recs, &colours).unwrap();
            if s.visible_samples > 0 {
                passes.push(s.sort_passes);
            }
        }
    }
    passes
}

fn report(what: &str, o: &Outcome) {
    let per: Vec<String> = o
        .frames
        .iter()
        .map(|d| {
            let s = &d.stats;
            format!(
                "frame {} done at {} ({} cycles: bin {}, raster {}, pixel {})",
                d.frame_id, d.cycle, s.cycles, s.bin_cycles, s.raster_cycles, s.pixel_cycles
            )
        })
        .collect();
    println!(
        "{what}: {} cycles in {:.1} s ({:.0} cycles/s, {:.1} s in Verilator), {} reads, {} writes, {} stalled; {}",
        o.cycles,
        o.secs,
        o.cycles as f64 / o.secs,
        o.rtl_secs,
        o.mem_stats.reads,
        o.mem_stats.writes,
        o.mem_stats.stalled,
        per.join("; ")
    );
}

#[test]
fn default_scene_on_default() {
    let frame = Scene::builtin_default().to_frame("default").unwrap();
    let d = Drive {
        gap_pm: 100,
        stalls: vec![(20_000, 21_500)],
        ..Drive::new(0xdefa, 2, 200)
    };
    let o = run("default", &[&frame], &d).unwrap_or_else(|e| panic!("default scene: {e}"));
    report("default scene on default", &o);
    assert_eq!(o.frames.len(), 1);
    let f = &o.frames[0];
    assert_eq!(f.frame_id, 0);
    check_single(&frame, 0, &f.memory).unwrap_or_else(|e| panic!("default scene: {e}"));
    check_traffic(&frame, f).unwrap_or_else(|e| panic!("default scene: {e}"));
    let s = &f.stats;
    assert!(s.bin_cycles > 0 && s.raster_cycles > 0 && s.pixel_cycles > 0, "{s:?}");
    assert!(o.mem_stats.stalled >= 1500, "the stall");
    assert!(s.pi_read.next_reads > 0, "multi-block pixel-info lists");
    assert!(s.sequencer.empty_tiles > 0, "first tiles with no primitive");
    assert!(s.shading.none_tiles > 0, "second tiles with no record");
    let passes = sort_passes(&frame);
    // Tiles of one primitive (no pass) and one-pass sorts: the scene's 24 primitives span 5
    // bits (sorts of more passes: `cosim/tests/shading_sort.rs`).
    assert!(
        passes.contains(&0) && passes.contains(&1),
        "a tile with no sort pass and a one-pass sort: {passes:?}"
    );
    assert_eq!(s.shade.sort_passes, passes.iter().sum::<u64>());
    assert!(
        s.shade.visible_samples > s.shade.shading_invocations,
        "shading reuse > 1"
    );
    assert!(s.max_read_clients >= 2, "reads of two clients in flight at once");
}

#[test]
fn two_frames_back_to_back_and_a_flush_on_ice40() {
    let a = random_frame("ice40", 1, 20, [96, 64]);
    let b = random_frame("ice40", 2, 12, [160, 120]);
    let d = Drive {
        gap_pm: 200,
        flush_at: vec![3_000],
        stalls: vec![(9_000, 10_200)],
        ..Drive::new(0x1ce4, 5, 300)
    };
    let o = run("ice40", &[&a, &b], &d).unwrap_or_else(|e| panic!("ice40: {e}"));
    report("two frames on ice40", &o);
    let ids: Vec<u8> = o.frames.iter().map(|f| f.frame_id).collect();
    assert_eq!(ids, [0, 1]);
    assert_eq!(o.busy_flushes, 1, "the flush hit the first frame in flight");
    assert!(o.held_off > 100, "the second frame was held off");
    assert!(
        o.overlapped > 0,
        "the second frame was taken beside the first's Pixel phase"
    );
    assert!(o.mem_stats.stalled >= 1200, "the stall");
    check_single(&a, 0, &o.frames[0].memory).unwrap_or_else(|e| panic!("frame 0: {e}"));
    check_traffic(&a, &o.frames[0]).unwrap_or_else(|e| panic!("frame 0: {e}"));
    check_later(&b, 1, &o.frames[1]).unwrap_or_else(|e| panic!("frame 1: {e}"));
    check_traffic(&b, &o.frames[1]).unwrap_or_else(|e| panic!("frame 1: {e}"));
}

#[test]
fn random_frame_on_ice40_1x() {
    let f = random_frame("ice40_1x", 3, 25, [160, 120]);
    let d = Drive {
        stalls: vec![(2_000, 3_000)],
        ..Drive::new(0x1c41, 1, 0)
    };
    let o = run("ice40_1x", &[&f], &d).unwrap_or_else(|e| panic!("ice40_1x: {e}"));
    report("random frame on ice40_1x", &o);
    check_single(&f, 0, &o.frames[0].memory).unwrap_or_else(|e| panic!("ice40_1x: {e}"));
    check_traffic(&f, &o.frames[0]).unwrap_or_else(|e| panic!("ice40_1x: {e}"));
}

#[test]
fn random_frame_on_full() {
    let f = random_frame("full", 4, 12, [192, 128]);
    let o = run("full", &[&f], &Drive::new(0xf011, 3, 100)).unwrap_or_else(|e| panic!("full: {e}"));
    report("random frame on full", &o);
    check_single(&f, 0, &o.frames[0].memory).unwrap_or_else(|e| panic!("full: {e}"));
    check_traffic(&f, &o.frames[0]).unwrap_or_else(|e| panic!("full: {e}"));
}

/// An RTL `mem_req__addr` bit flipped at one cycle is caught at that cycle and port.
#[test]
fn a_broken_model_is_caught_at_its_cycle_and_port() {
    let f = random_frame("ice40_1x", 5, 6, [64, 48]);
    let d = Drive {
        flip: Some((1_234, "mem_req__addr")),
        ..Drive::new(5, 2, 100)
    };
    let e = run("ice40_1x", &[&f], &d).expect_err("a flipped output bit went unnoticed");
    println!("caught as expected: {e}");
    assert!(e.starts_with("cycle 1234: mem_req__addr rtl "), "{e}");
    // The window of the mismatch ends at that cycle and becomes a side-by-side VCD.
    let (e2, w) = tilerast_cosim::frame::check_frame_windowed("ice40_1x", &f, &d).expect_err("still caught");
    assert_eq!(e2, e);
    assert_eq!(w.from + w.cycles.len() as u64 - 1, 1_234, "window ends at the mismatch");
    let p = std::path::Path::new(env!("CARGO_TARGET_TMPDIR")).join("frame-mismatch.vcd");
    tilerast_cosim::frame::write_vcd(&p, "ice40_1x", &w).unwrap();
    let vcd = std::fs::read_to_string(&p).unwrap();
    for needle in [
        "$scope module golden",
        "$scope module diff",
        "mem_req__addr",
        "done_frame",
    ] {
        assert!(vcd.contains(needle), "VCD lacks {needle}");
    }
}

/// A random regression chunk passes on every check of `check_frame` (ports, memory, image,
/// traffic) and its drive survives the JSON sidecar of a saved case.
#[test]
fn a_regression_chunk_passes_and_its_drive_round_trips() {
    let cfg = tilerast_golden::Config::preset("ice40_1x").unwrap();
    let (f, d) = tilerast_cosim::frame::chunk_case(&cfg, 9, 0, 8);
    let o = tilerast_cosim::frame::check_frame("ice40_1x", &f, &d).unwrap();
    assert!(o.frames[0].stats.pi_write.quads > 0, "the chunk drew nothing");
    let back = tilerast_cosim::frame::drive_from_json(&tilerast_cosim::frame::drive_to_json(&d), "x").unwrap();
    assert_eq!(
        (back.seed, back.gap_pm, back.busy_pm, back.stalls.clone(), back.timing),
        (d.seed, d.gap_pm, d.busy_pm, d.stalls.clone(), d.timing)
    );
}

/// The watchdog that replaced the fixed cycle budget: a memory that never grants stops the RTL
/// and the model together exactly `quiet_bound + 1` cycles after the last move at the ports,
/// with the frame and phase named; the ports agreed on every cycle up to there.
#[test]
fn a_run_that_stops_moving_is_stopped_by_the_watchdog() {
    let f = random_frame("ice40_1x", 0x57a11, 8, [64, 32]);
    // Every grant withheld by back-pressure (not a declared stall, which the watchdog would add
    // to its limit).
    let never = Drive {
        busy_pm: 1000,
        ..Drive::new(0x57a11, 1, 0)
    };
    let limit = tilerast_golden::frame::FrameCycle::quiet_bound(&f.cfg);
    let e = run("ice40_1x", &[&f], &never).unwrap_err();
    assert!(
        e.contains("frame 0 in flight") && e.contains(&format!("no progress for {} cycles", limit + 1)),
        "{e}"
    );
}
