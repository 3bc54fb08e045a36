//! rust-hdl simulation of `PixelBackEnd` (pixel processor, dst_fetch, blender and output merger
//! behind one memory port) against its cycle model `PixelBackEndCycle`, with a golden
//! `MemoryCycle` behind the port serviced from the testbench every cycle: `in_ready`,
//! `mem_req_valid` + `mem_req`, `mem_resp_ready` and `idle` must agree on every cycle. Stimulus:
//! `stim::pix_sample_tiles` (whole second tiles, as the colour buffer takes them, edge tiles
//! with shared storage blocks among them; every mask pattern, junk above S) with input gaps,
//! memory back-pressure, a long memory stall and one flush mid-tile, after which the input
//! restarts at the next tile. The Verilator
//! co-simulation of the same block is `cosim/tests/pixel_back_end.rs`.

use rust_hdl::prelude::*;
use std::sync::{Arc, Mutex};
use tilerast_golden::config::Config;
use tilerast_golden::memory_port::{MemTiming, MemoryCycle, SparseMemory};
use tilerast_golden::pixel_back_end::PixelBackEndCycle;
use tilerast_golden::streams::{port_name, ports, PixSamples, Stream};
use tilerast_hw::pixel_back_end::PixelBackEnd;
use tilerast_verif::stim::starts_tile;
use tilerast_verif::{Pattern, Rng};

#[derive(Debug, Default)]
struct Report {
    cycles: u64,
    mismatch: Option<(u64, Vec<String>)>,
    accepted: u64,
    reads: u64,
    writes: u64,
    req_stall: u64,
    flushes: u64,
}

#[test]
fn cosim_against_the_cycle_model() {
    // Small second tiles (16x16, two 8x8 storage blocks each) in a viewport that clips them,
    // so that tiles finish and drain within a short rust-hdl run.
    let mut cfg = Config::preset("default").unwrap();
    cfg.viewport = [100, 70];
    cfg.second_tile = [16, 16];
    cfg.validate().unwrap();
    let seed = 5u64;
    let cycles = 4000u64;
    let pixels = tilerast_verif::stim::pix_sample_tiles(&cfg, seed, 3000);
    let mut dut = PixelBackEnd::new(&cfg);
    dut.connect_all();
    let tiles = cfg.clone();
    let state = Arc::new(Mutex::new(Some((
        PixelBackEndCycle::new(&cfg),
        MemoryCycle::new(MemTiming { latency: 2, depth: 3 }, SparseMemory::new()),
        pixels,
    ))));
    let result = Arc::new(Mutex::new(None));
    let res = result.clone();
    let mut sim = Simulation::new();
    sim.add_clock(5, |x: &mut Box<PixelBackEnd>| x.clock.next = !x.clock.val());
    sim.add_testbench(move |mut sim: Sim<PixelBackEnd>| {
        let (mut model, mut mem, pixels) = state.lock().unwrap().take().unwrap();
        let mut vl = Pattern::gaps(25).line(Rng::stream(seed, 0));
        let mut gl = Pattern::Random { pct: 75 }.line(Rng::stream(seed, 1));
        let mut r = Report::default();
        let mut next = 0usize;
        let mut x = sim.init()?;
        for cycle in 0..cycles {
            let (v, g) = (vl.step(), gl.step());
            let grant = g && !(1200..1300).contains(&cycle);
            let flush = cycle == 2000;
            let in_valid = v && next < pixels.len();
            let inp: PixSamples = pixels.get(next).copied().unwrap_or_default();
            let req_ready = mem.req_ready(grant);
            let (rsp_valid, rsp) = mem.resp();
            x.in_valid.next = in_valid;
            x.inp.drive(&inp);
            x.mem_req_ready.next = req_ready;
            x.mem_resp_valid.next = rsp_valid;
            x.mem_resp.drive(&rsp);
            x.flush.next = flush;
            x = sim.watch(|x| !x.clock.val().clk, x)?;
            let in_ready = model.in_ready(req_ready);
            let (qv, q) = model.mem_req();
            let resp_ready = model.mem_resp_ready();
            let mut d = Vec::new();
            for (name, rtl, m) in [
                ("in_ready", x.in_ready.val(), in_ready),
                ("mem_req_valid", x.mem_req_valid.val(), qv),
                ("mem_resp_ready", x.mem_resp_ready.val(), resp_ready),
                ("idle", x.idle.val(), model.idle()),
            ] {
                if rtl != m {
                    d.push(format!("{name} rtl {rtl} model {m}"));
                }
            }
            let (rb, mb) = (ports::MemReq::to_bits(&x.mem_req.sample()), ports::MemReq::to_bits(&q));
            for (i, f) in ports::MemReq::FIELDS.iter().enumerate() {
                if rb[i] != mb[i] {
                    d.push(format!(
                        "{} rtl {:#x} model {:#x}",
                        port_name("mem_req", f.name),
                        rb[i],
                        mb[i]
                    ));
                }
            }
            r.cycles = cycle + 1;
            if !d.is_empty() {
                r.mismatch = Some((cycle, d));
                break;
            }
            r.flushes += flush as u64;
            r.req_stall += (qv && !req_ready) as u64;
            if flush {
                // The colour buffer takes whole tiles: restart at the next one.
                while next < pixels.len() && !starts_tile(&tiles, pixels[next].x, pixels[next].y) {
                    next += 1;
                }
            } else {
                if in_valid && in_ready {
                    r.accepted += 1;
                    next += 1;
                }
                if qv && req_ready {
                    if q.write {
                        r.writes += 1;
                    } else {
                        r.reads += 1;
                    }
                }
            }
            model.clock(in_valid, &inp, req_ready, rsp_valid, &rsp, flush);
            mem.clock(qv, &q, grant, resp_ready, flush);
            x = sim.watch(|x| x.clock.val().clk, x)?;
        }
        *res.lock().unwrap() = Some(r);
        sim.done(x)
    });
    sim.run(Box::new(dut), 10 * (cycles + 10)).expect("rust-hdl simulation");
    let r = result.lock().unwrap().take().unwrap();
    println!("{r:?}");
    if let Some((c, d)) = &r.mismatch {
        panic!(
            "PixelBackEnd and PixelBackEndCycle differ at cycle {c}: {}",
            d.join("; ")
        );
    }
    assert_eq!(r.flushes, 1);
    assert!(r.accepted > 1000 && r.reads > 500 && r.writes > 500, "{r:?}");
    assert!(r.req_stall > 100, "{r:?}");
}

#[test]
fn verilog_lints_clean() {
    for p in ["ice40", "full"] {
        let cfg = Config::preset(p).unwrap();
        let top = format!("pixel_back_end_{p}");
        let v = tilerast_hw::pixel_back_end::verilog(&cfg, &top);
        if let Err(msg) = tilerast_hw::emit::lint(&v, &top) {
            panic!("{top}: lint:\n{msg}");
        }
    }
}
