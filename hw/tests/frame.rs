//! rust-hdl simulation of the frame top `Frame` (`hw/src/frame.rs`) against its cycle model
//! `FrameCycle`, with a golden `MemoryCycle` behind the memory port serviced from the testbench
//! every cycle: `in_ready`, `mem_req_valid` + `mem_req`, `mem_resp_ready`, `done_valid` and
//! `done_frame` must agree on every cycle. Stimulus: the smallest preset (`ice40_1x`, 160×120,
//! 40 second tiles), two tiny frames of three primitives each (two overlapping triangles at
//! different depths, one point), read latency 2 with three responses held, random grant
//! back-pressure (25 %) and a 600-cycle grant stall; the first frame is flushed once in its
//! Raster phase (the memory drops its held reads with it) and offered again from its first
//! primitive; the second frame is offered from the cycle after the first's end token is taken
//! (the top must hold it off until the cycle after the first's Done; the testbench rewrites
//! the framebuffer to the second frame's background at the Done edge). At the first Done the memory must equal golden's
//! `frame_memory` word for word (both ways); at the second, every word the second frame wrote
//! must be golden's frame-1 memory (its pixel-info records carry frame id 1), and so must every
//! non-zero word golden has and the whole framebuffer; each framebuffer's image must be
//! `render_frame`'s.
//! The rust-hdl simulator runs the whole frame top at about 900 cycles/s (release), so a
//! frame of a few primitives (~10 000 cycles) takes about 12 s; the Verilator co-simulation
//! of the same top is `cosim/tests/frame.rs`.

use rust_hdl::prelude::*;
use std::sync::{Arc, Mutex};
use std::time::Instant;
use tilerast_golden::bin_setup::frame_beats;
use tilerast_golden::config::Config;
use tilerast_golden::frame::{frame_memory, FrameCycle, Phase, PRIMS};
use tilerast_golden::memory_port::{MemTiming, MemoryCycle};
use tilerast_golden::output_merger::image_from_memory;
use tilerast_golden::pipeline::render_frame;
use tilerast_golden::pixel_back_end::framebuffer;
use tilerast_golden::prim::{PointFx, PrimitiveFx, TriangleFx};
use tilerast_golden::scene::Frame as Scene;
use tilerast_golden::streams::{port_name, ports, PrimIn, Stream};
use tilerast_hw::frame::Frame;
use tilerast_verif::{Pattern, Rng};

/// Run `f` on a thread with a large stack (the frame top's structures and update code need more
/// than a test thread's 2 MiB).
fn big_stack<T: Send + 'static>(f: impl FnOnce() -> T + Send + 'static) -> T {
    std::thread::Builder::new()
        .stack_size(256 << 20)
        .spawn(f)
        .unwrap()
        .join()
        .unwrap_or_else(|e| std::panic::resume_unwind(e))
}

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

/// One Done: its cycle, the frame id, the first memory difference against golden (address,
/// RTL byte, golden byte) and whether the image is golden's.
#[derive(Debug)]
struct DoneAt(u64, u8, Option<(u32, u8, u8)>, bool);

/// What a run saw.
#[derive(Debug, Default)]
struct Report {
    cycles: u64,
    mismatch: Option<(u64, Vec<String>)>,
    done: Vec<DoneAt>,
    flush_at: Option<u64>,
    /// Cycles with the next frame offered and not taken (the current one not done).
    held_off: u64,
    /// Primitives of a frame taken before the previous frame's Done (must stay 0).
    early: u64,
    reads: u64,
    writes: u64,
    req_stall: u64,
    secs: f64,
}

fn diff<S: Stream>(iface: &str, rtl: &S::Payload, model: &S::Payload, out: &mut Vec<String>) {
    let (r, m) = (S::to_bits(rtl), S::to_bits(model));
    for (i, f) in S::FIELDS.iter().enumerate() {
        if r[i] != m[i] {
            out.push(format!(
                "{} rtl {:#x} model {:#x}",
                port_name(iface, f.name),
                r[i],
                m[i]
            ));
        }
    }
}

#[test]
fn rtl_matches_frame_cycle_two_frames_and_a_flush() {
    big_stack(run);
}

fn run() {
    let cfg = Config::preset("ice40_1x").unwrap();
    let frames = [
        scene(&cfg, (5, 3), [10, 20, 30, 255]),
        scene(&cfg, (110, 80), [250, 240, 0, 40]),
    ];
    let want: Vec<_> = frames
        .iter()
        .enumerate()
        .map(|(i, f)| frame_memory(f, i as u8).unwrap())
        .collect();
    let images: Vec<_> = frames.iter().map(|f| render_frame(f).unwrap().image).collect();
    for (w, img) in want.iter().zip(&images) {
        assert_eq!(w.image, *img, "frame_memory's image is render_frame's");
    }
    let beats: Vec<Vec<PrimIn>> = frames.iter().map(|f| frame_beats(&f.prims).unwrap()).collect();
    let cycles = 60_000u64;
    let mut dut = Frame::new(&cfg);
    dut.connect_all();
    let seed = 0xf4a3e;
    let state = Arc::new(Mutex::new(Some((
        FrameCycle::new(&cfg),
        MemoryCycle::new(
            MemTiming { latency: 2, depth: 3 },
            framebuffer(&cfg, frames[0].background),
        ),
        frames.clone(),
        want.clone(),
        beats,
    ))));
    let result = Arc::new(Mutex::new(None));
    let res = result.clone();
    let mut sim = Simulation::new();
    sim.add_clock(5, |x: &mut Box<Frame>| x.clock.next = !x.clock.val());
    sim.add_testbench(move |mut sim: Sim<Frame>| {
        let (mut model, mut mem, frames, want, beats) = state.lock().unwrap().take().unwrap();
        let mut gl = Pattern::Random { pct: 75 }.line(Rng::stream(seed, 1));
        let mut r = Report::default();
        let t0 = Instant::now();
        // `f`: the frame in flight (the next Done's); `o`, `next`: the frame offered and its next
        // primitive (after a frame's end token the next frame is offered at once: the top
        // must hold `in_ready` low until the cycle after Done).
        let (mut f, mut o, mut next, mut raster) = (0usize, 0usize, 0usize, 0u64);
        let mut written = std::collections::BTreeSet::new();
        let mut x = sim.init()?;
        for cycle in 0..cycles {
            let grant = gl.step() && !(2_000..2_600).contains(&cycle);
            // One flush, 300 cycles into the first frame's Raster phase.
            raster += (model.phase() == Phase::Raster) as u64;
            let flush = r.flush_at.is_none() && raster == 300;
            let req_ready = mem.req_ready(grant);
            let (rsp_valid, rsp) = mem.resp();
            let in_valid = o < frames.len() && next < beats[o].len();
            let inp = if in_valid { beats[o][next] } else { PrimIn::default() };
            x.in_valid.next = in_valid;
            x.inp.drive(&inp);
            x.mem_req_ready.next = req_ready;
            x.mem_resp_valid.next = rsp_valid;
            x.mem_resp.drive(&rsp);
            x.flush.next = flush;
            x = sim.watch(|x| !x.clock.val().clk, x)?;
            let p = model.ports(cycle, in_valid, &inp, req_ready, rsp_valid, &rsp, flush);
            let mut d = Vec::new();
            for (name, rtl, m) in [
                ("in_ready", x.in_ready.val(), p.in_ready),
                ("mem_req_valid", x.mem_req_valid.val(), p.mem_req_valid),
                ("mem_resp_ready", x.mem_resp_ready.val(), p.mem_resp_ready),
                ("done_valid", x.done_valid.val(), p.done_valid),
            ] {
                if rtl != m {
                    d.push(format!("{name} rtl {rtl} model {m}"));
                }
            }
            if x.done_frame.val().to_u64() != p.done_frame as u64 {
                d.push(format!(
                    "done_frame rtl {} model {}",
                    x.done_frame.val().to_u64(),
                    p.done_frame
                ));
            }
            diff::<ports::MemReq>("mem_req", &x.mem_req.sample(), &p.mem_req, &mut d);
            r.cycles = cycle + 1;
            if !d.is_empty() {
                r.mismatch = Some((cycle, d));
                break;
            }
            r.req_stall += (p.mem_req_valid && !req_ready) as u64;
            if flush {
                r.flush_at = Some(cycle);
                // The frame is offered again from its first primitive.
                (o, next) = (f, 0);
            } else {
                if in_valid && p.in_ready {
                    next += 1;
                    if next == beats[o].len() {
                        (o, next) = (o + 1, 0);
                    }
                    r.early += (o > f + 1) as u64;
                }
                if p.mem_req_valid && req_ready {
                    r.reads += !p.mem_req.write as u64;
                    r.writes += p.mem_req.write as u64;
                    if p.mem_req.write {
                        written.insert(p.mem_req.addr);
                    }
                }
            }
            if p.done_valid {
                let d = if f == 0 {
                    mem.mem.first_difference(&want[f].memory)
                } else {
                    // A later frame leaves the earlier frame's words where it writes none:
                    // every word it wrote is golden's, and so is every non-zero word golden
                    // has and the whole framebuffer.
                    let g = &want[f].memory;
                    let bad = |a: u32| (g.read(a) != mem.mem.read(a)).then(|| (a, mem.mem.read(a), g.read(a)));
                    written
                        .iter()
                        .find_map(|&a| bad(a))
                        .or_else(|| {
                            g.words()
                                .find_map(|(a, w)| if w != 0 || a < PRIMS { bad(a) } else { None })
                        })
                        .map(|(a, r, g)| (a, r as u8, g as u8))
                };
                written.clear();
                let img = image_from_memory(&frames[f].cfg, &mem.mem) == want[f].image;
                r.done.push(DoneAt(cycle, p.done_frame, d, img));
            }
            r.held_off += (in_valid && o > f && !p.in_ready) as u64;
            model.clock(in_valid, &inp, req_ready, rsp_valid, &rsp, flush);
            mem.clock(p.mem_req_valid, &p.mem_req, grant, p.mem_resp_ready, flush);
            if p.done_valid {
                f += 1;
                if f == frames.len() {
                    x = sim.watch(|x| x.clock.val().clk, x)?;
                    break;
                }
                // The testbench rewrites the framebuffer to the next frame's background at the
                // Done edge (the top writes nothing before its Pixel phase).
                for (a, w) in framebuffer(&frames[f].cfg, frames[f].background).words() {
                    mem.mem.write(a, w, 0xf);
                }
            }
            x = sim.watch(|x| x.clock.val().clk, x)?;
        }
        r.secs = t0.elapsed().as_secs_f64();
        *res.lock().unwrap() = Some(r);
        sim.done(x)
    });
    sim.run(Box::new(dut), 10 * (cycles + 10)).expect("rust-hdl simulation");
    let r = result.lock().unwrap().take().unwrap();
    println!(
        "{} cycles in {:.1} s ({:.0} cycles/s): flush at {:?}, Done at {:?}, {} reads, {} writes, {} stalled requests, next frame held off {} cycles",
        r.cycles,
        r.secs,
        r.cycles as f64 / r.secs,
        r.flush_at,
        r.done.iter().map(|d| (d.0, d.1)).collect::<Vec<_>>(),
        r.reads,
        r.writes,
        r.req_stall,
        r.held_off
    );
    if let Some((c, d)) = &r.mismatch {
        panic!("Frame and FrameCycle differ at cycle {c}: {}", d.join("; "));
    }
    assert!(r.flush_at.is_some(), "no flush in the Raster phase");
    assert_eq!(r.done.len(), 2, "two frames done: {:?}", r.done);
    for (i, DoneAt(_, id, d, img)) in r.done.iter().enumerate() {
        assert_eq!(*id, i as u8, "frame ids 0 then 1");
        assert_eq!(
            *d, None,
            "frame {i}: memory (address, rtl, golden) differs from frame_memory"
        );
        assert!(*img, "frame {i}: image differs from render_frame's");
    }
    assert!(r.req_stall > 500, "{r:?}");
    assert!(r.held_off > 1000 && r.early == 0, "{r:?}");
}

/// The Verilog is lint-clean (`frame::verilog` builds the top on a thread of its own with a
/// large stack, so this test thread's 2 MiB do).
#[test]
fn verilog_lints_clean() {
    let cfg = Config::preset("ice40_1x").unwrap();
    let v = tilerast_hw::frame::verilog(&cfg, "frame_ice40_1x");
    if let Err(msg) = tilerast_hw::emit::lint(&v, "frame_ice40_1x") {
        panic!("frame_ice40_1x: lint:\n{msg}");
    }
}
