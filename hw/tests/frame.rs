//! rust-hdl simulation of the frame top `Frame` (`hw/src/frame.rs`) against its cycle model
//! `FrameCycle` through the one lock-step harness (`tilerast_verif::lockstep`, rust-hdl back
//! end in `tests/common`; the host is `stim::FrameHost`, with golden's `MemoryCycle` behind the
//! memory port): `in_ready`, `mem_req_valid` + `mem_req`, `mem_resp_ready`, `done_valid` and
//! `done_frame` must agree on every cycle. Stimulus: the smallest preset (`ice40_1x`, 160×120,
//! 40 second tiles), two tiny frames of three primitives each (two overlapping triangles at
//! different depths, one point), read latency 2 with three responses held, random grant
//! back-pressure (25 %) and a 600-cycle grant stall; the first frame is flushed once in its
//! Raster phase (the memory drops its held reads with it) and offered again from its first
//! primitive; the second frame is offered from the cycle after the first's end token is taken
//! (the top holds it off until the first's handoff to the pixel side, then takes it beside the
//! first's Pixel phase; the testbench rewrites the framebuffer to the second frame's background
//! at the Done edge). At the first Done the memory must equal golden's
//! `frame_memory` word for word (both ways); at the second, every word the second frame wrote
//! must be golden's frame-1 memory (its pixel-info records carry frame id 1), and so must every
//! non-zero word golden has and the whole framebuffer; each framebuffer's image must be
//! `render_frame`'s.
//! A second test runs one frame in `framebuffer: keep` (the back end, client 0, reads `dst`)
//! behind a deep, slow memory, so that the read-tag FIFO fills while the back end offers a
//! read: before the fix in `arbitrated_kernel!` the RTL told the back end its read went (client
//! 0 was granted by default) and the two parted at cycle 6279 on `mem_req__addr`.
//! The rust-hdl simulator runs the whole frame top at about 900 cycles/s (release), so a
//! frame of a few primitives (~10 000 cycles) takes about 12 s; the Verilator co-simulation
//! of the same top is `cosim/tests/frame.rs`.

mod common;

use std::time::Instant;
use tilerast_golden::config::Config;
use tilerast_golden::frame::{FrameCycle, Phase};
use tilerast_golden::memory_port::MemTiming;
use tilerast_golden::prim::{PointFx, PrimitiveFx, TriangleFx};
use tilerast_golden::scene::Frame as Scene;
use tilerast_hw::frame::Frame;
use tilerast_verif::lockstep::{self, Bench, Flushes, Lockstep};
use tilerast_verif::stim::{check_later, check_single, FrameHost};
use tilerast_verif::{Pattern, Rng};

/// Three primitives around `(x, y)` (pixels): two overlapping triangles (the second nearer)
/// and a point.
fn scene(cfg: &Config, (x, y): (i32, i32), background: [u8; 4]) -> Scene {
    let p = |dx: i32, dy: i32| [(x + dx) * 256 + 37, (y + dy) * 256 + 11];
    Scene {
        cfg: cfg.clone(),
        background,
        prims: vec![
            PrimitiveFx::Triangle(TriangleFx {
                v: [p(0, 0), p(30, 4), p(8, 26)],
                colour: [200, 40, 90, 255],
                depth: 9000,
            }),
            PrimitiveFx::Triangle(TriangleFx {
                v: [p(4, 20), p(6, 2), p(36, 14)],
                colour: [30, 60, 240, 160],
                depth: 100,
            }),
            PrimitiveFx::Point(PointFx {
                pos: p(20, 12),
                size: 5 * 256,
                aa: false,
                colour: [30, 220, 60, 128],
                depth: 50,
            }),
        ],
    }
}

/// The bench: both frames back to back (always valid, random junk while idle), read latency
/// 2 with three responses held, 25 % random grant back-pressure and a 600-cycle grant stall
/// from cycle 2000, and a flush at `flush` (none: `None`).
fn lockstep(cfg: &Config, frames: &[Scene], flush: Option<u64>) -> Lockstep<FrameCycle> {
    let seed = 0xf4a3e;
    let refs: Vec<&Scene> = frames.iter().collect();
    let host = FrameHost::new(
        &refs,
        lockstep::always(),
        Rng::stream(seed, 2),
        MemTiming { latency: 2, depth: 3 },
        lockstep::line_stalled(Pattern::Random { pct: 75 }.line(Rng::stream(seed, 1)), 2_000..2_600),
    )
    .unwrap();
    let bench = Bench::new()
        .with("flush", Flushes::at(flush.into_iter().collect()))
        .with("host", host);
    Lockstep::new(FrameCycle::new(cfg), bench)
}

/// The model alone on the bench: the cycle 300 cycles into the first Raster phase (where the
/// test flushes), and with that flush the cycle after the last frame's Done.
fn plan(cfg: &Config, frames: &[Scene]) -> (u64, u64) {
    let mut ls = lockstep(cfg, frames, None);
    let mut raster = 0;
    let flush = loop {
        raster += (ls.model.phase() == Phase::Raster) as u64;
        if raster == 300 {
            break ls.cycle;
        }
        ls.step().unwrap();
        assert!(ls.cycle < 60_000, "no Raster phase");
    };
    let mut ls = lockstep(cfg, frames, Some(flush));
    while !ls.bench.get::<FrameHost>("host").finished() {
        ls.step().unwrap();
        assert!(ls.cycle < 60_000, "no second Done");
    }
    (flush, ls.cycle)
}

#[test]
fn rtl_matches_frame_cycle_two_frames_and_a_flush() {
    common::big_stack(run);
}

fn run() {
    let cfg = Config::preset("ice40_1x").unwrap();
    let frames = [
        scene(&cfg, (5, 3), [10, 20, 30, 255]),
        scene(&cfg, (110, 80), [250, 240, 0, 40]),
    ];
    let (flush, cycles) = plan(&cfg, &frames);
    let t0 = Instant::now();
    let (ls, outcome) = common::lockstep(Frame::new(&cfg), lockstep(&cfg, &frames, Some(flush)), cycles, None);
    let secs = t0.elapsed().as_secs_f64();
    let host = ls.bench.get::<FrameHost>("host");
    println!(
        "{cycles} cycles in {secs:.1} s ({:.0} cycles/s): flush at {flush}, Done at {:?}; {}",
        cycles as f64 / secs,
        host.dones.iter().map(|d| (d.cycle, d.frame_id)).collect::<Vec<_>>(),
        ls.bench.summary()
    );
    if let Err(m) = outcome {
        panic!("{m}");
    }
    assert_eq!(ls.bench.get::<Flushes>("flush").count, 1);
    assert_eq!(
        host.busy_flushes, 1,
        "the flush hit the first frame in its Raster phase"
    );
    let ids: Vec<u8> = host.dones.iter().map(|d| d.frame_id).collect();
    assert_eq!(ids, [0, 1], "two frames done, ids 0 then 1");
    check_single(&frames[0], 0, &host.dones[0].memory).unwrap_or_else(|e| panic!("frame 0: {e}"));
    check_later(&frames[1], 1, &host.dones[1].memory, &host.dones[1].written)
        .unwrap_or_else(|e| panic!("frame 1: {e}"));
    assert!(host.mem.waits > 500, "{}", ls.bench.summary());
    assert!(host.held_off > 1000 && host.early == 0, "{}", ls.bench.summary());
    assert!(
        host.overlapped > 0,
        "frame 1 taken beside frame 0's Pixel phase: {}",
        ls.bench.summary()
    );
}

/// `framebuffer: keep` (the back end reads each blended slot's `dst`, so client 0, the back
/// end, offers reads) behind a deep, slow memory (latency 12, 12 reads held, 60 % grant): the
/// read-tag FIFO fills while the back end offers a read, the case where the arbiter must not
/// tell a client that is not eligible that its request went. One frame, every port every
/// cycle, then the memory against golden's `frame_memory`.
#[test]
fn keep_mode_behind_a_deep_slow_memory_matches_frame_cycle() {
    common::big_stack(run_keep);
}

fn run_keep() {
    let cfg = Config {
        framebuffer: tilerast_golden::config::FramebufferMode::Keep,
        ..Config::preset("ice40_1x").unwrap()
    };
    let frames = [scene(&cfg, (20, 30), [10, 20, 30, 255])];
    let refs: Vec<&Scene> = frames.iter().collect();
    let bench = || {
        let host = FrameHost::new(
            &refs,
            lockstep::always(),
            Rng::stream(7, 2),
            MemTiming { latency: 12, depth: 12 },
            lockstep::line(Pattern::Random { pct: 60 }.line(Rng::stream(7, 1))),
        )
        .unwrap();
        Bench::new().with("flush", Flushes::at(vec![])).with("host", host)
    };
    // The model alone: the cycles to its Done, and how often the back end offered a read
    // while the tag FIFO was full.
    let mut ls = Lockstep::new(FrameCycle::new(&cfg), bench());
    let mut held_back = 0;
    while !ls.bench.get::<FrameHost>("host").finished() {
        let (valid, req) = ls.model.client_requests()[tilerast_golden::frame::client::BACK_END];
        held_back +=
            u64::from(valid && !req.write && ls.model.reads_in_flight().len() == tilerast_golden::frame::TAG_FIFO);
        ls.step().unwrap();
        assert!(ls.cycle < 60_000, "no Done");
    }
    let cycles = ls.cycle;
    assert!(
        held_back > 0,
        "the back end never offered a read with the tag FIFO full"
    );
    let (ls, outcome) = common::lockstep(
        Frame::new(&cfg),
        Lockstep::new(FrameCycle::new(&cfg), bench()),
        cycles,
        None,
    );
    let host = ls.bench.get::<FrameHost>("host");
    println!(
        "{cycles} cycles, {held_back} with a back-end read held back; {}",
        ls.bench.summary()
    );
    if let Err(m) = outcome {
        panic!("{m}");
    }
    assert_eq!(host.dones.len(), 1);
    check_single(&frames[0], 0, &host.dones[0].memory).unwrap_or_else(|e| panic!("keep frame: {e}"));
}

// Lint: every preset's frame top is `rtl-out/tilerast_frame_<preset>.v`, which
// `hw/tests/rtl_out.rs` proves is this block's logic (`rtl_out_is_exactly_what_gen_rtl_writes…`)
// and lints with `-Wall` (`rtl_out_lints_clean`); linting it here again cost CI 16 s.
