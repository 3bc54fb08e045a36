//! rust-hdl simulation of `DstFetch` against its cycle model `DstFetchCycle`, with a golden
//! `MemoryCycle` behind the read port serviced from the testbench every cycle (its `req_ready`
//! and response drive both sides): `in_ready`, `rsp_ready`, `rd_valid` + `rd`, `out_valid` +
//! `out` and `idle` must agree on every cycle. Stimulus: random pixels (random slot masks, empty ones,
//! junk above C), input gaps, random `out_ready` with a long stall, random memory grant with a
//! long stall, one flush mid-stream. The shared harness (`tests/common`) drives one-in/one-out
//! blocks; this block has a second stream pair, so the loop is written here.

use rust_hdl::prelude::*;
use std::sync::{Arc, Mutex};
use tilerast_golden::config::Config;
use tilerast_golden::dst_fetch::{DstFetchCycle, META_DEPTH};
use tilerast_golden::memory_port::{MemTiming, MemoryCycle, SparseMemory};
use tilerast_golden::output_merger::slot_addr;
use tilerast_golden::streams::{port_name, ports, PixSlots, Stream};
use tilerast_hw::dst_fetch::DstFetch;
use tilerast_verif::{Pattern, Rng};

/// Control lines of one cycle: (in_valid if a pixel is left, out_ready, memory grant, flush).
type Lines = Box<dyn FnMut(u64) -> (bool, bool, bool, bool) + Send>;

#[derive(Debug, Default)]
struct Report {
    cycles: u64,
    /// First mismatch: cycle and the differing ports (`name rtl model`).
    mismatch: Option<(u64, Vec<String>)>,
    accepted: u64,
    frags: u64,
    multi: u64,
    full: u64,
    reads: u64,
    meta_full: u64,
    rd_stall: u64,
    out_stall: u64,
    longest_out_stall: u64,
    flushes: u64,
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

fn run(cfg: &Config, pixels: Vec<PixSlots>, timing: MemTiming, mem: SparseMemory, cycles: u64, lines: Lines) -> Report {
    let mut dut = DstFetch::new(cfg);
    dut.connect_all();
    let state = Arc::new(Mutex::new(Some((
        DstFetchCycle::new(cfg),
        MemoryCycle::new(timing, mem),
        pixels,
        lines,
    ))));
    let result = Arc::new(Mutex::new(None));
    let res = result.clone();
    let mut sim = Simulation::new();
    sim.add_clock(5, |x: &mut Box<DstFetch>| x.clock.next = !x.clock.val());
    sim.add_testbench(move |mut sim: Sim<DstFetch>| {
        let (mut model, mut mem, pixels, mut lines) = state.lock().unwrap().take().unwrap();
        let k = model.lanes();
        let mut r = Report::default();
        let mut next = 0usize;
        let mut stall = 0u64;
        let mut x = sim.init()?;
        for cycle in 0..cycles {
            let (valid, out_ready, grant, flush) = lines(cycle);
            let in_valid = valid && next < pixels.len();
            let inp = pixels.get(next).copied().unwrap_or_default();
            let rd_ready = mem.req_ready(grant);
            let (rsp_valid, rsp) = mem.resp();
            x.in_valid.next = in_valid;
            x.inp.drive(&inp);
            x.out_ready.next = out_ready;
            x.rd_ready.next = rd_ready;
            x.rsp_valid.next = rsp_valid;
            x.rsp.drive(&rsp);
            x.flush.next = flush;
            x = sim.watch(|x| !x.clock.val().clk, x)?;
            // Compare every output port.
            let in_ready = model.in_ready(rd_ready);
            let (out_valid, out) = model.out();
            let (rd_valid, rd) = model.rd();
            let rsp_ready = model.rsp_ready();
            let mut d = Vec::new();
            for (name, rtl, m) in [
                ("in_ready", x.in_ready.val(), in_ready),
                ("rsp_ready", x.rsp_ready.val(), rsp_ready),
                ("rd_valid", x.rd_valid.val(), rd_valid),
                ("out_valid", x.out_valid.val(), out_valid),
                ("idle", x.idle.val(), model.idle()),
            ] {
                if rtl != m {
                    d.push(format!("{name} rtl {rtl} model {m}"));
                }
            }
            diff::<ports::MemReq>("rd", &x.rd.sample(), &rd, &mut d);
            diff::<ports::BlendFrag>("out", &x.out.sample(), &out, &mut d);
            r.cycles = cycle + 1;
            if !d.is_empty() {
                r.mismatch = Some((cycle, d));
                break;
            }
            r.meta_full += (model.meta_len() == META_DEPTH) as u64;
            r.rd_stall += (rd_valid && !rd_ready) as u64;
            r.out_stall += (out_valid && !out_ready) as u64;
            stall = if out_valid && !out_ready { stall + 1 } else { 0 };
            r.longest_out_stall = r.longest_out_stall.max(stall);
            r.flushes += flush as u64;
            if !flush {
                if in_valid && in_ready {
                    r.accepted += 1;
                    next += 1;
                }
                if out_valid && out_ready {
                    let n = out.lane_valid.count_ones() as usize;
                    r.frags += 1;
                    r.multi += (n > 1) as u64;
                    r.full += (n == k) as u64;
                }
                r.reads += (rd_valid && rd_ready) as u64;
            }
            model.clock(in_valid, &inp, out_ready, rd_ready, rsp_valid, &rsp, flush);
            mem.clock(rd_valid, &rd, grant, rsp_ready, flush);
            x = sim.watch(|x| x.clock.val().clk, x)?;
        }
        *res.lock().unwrap() = Some(r);
        sim.done(x)
    });
    sim.run(Box::new(dut), 10 * (cycles + 10)).expect("rust-hdl simulation");
    let r = result.lock().unwrap().take().unwrap();
    r
}

fn pixels(cfg: &Config, seed: u64, n: usize) -> Vec<PixSlots> {
    let mut r = Rng::new(seed);
    (0..n)
        .map(|_| {
            let mut p = PixSlots {
                x: r.below(cfg.viewport[0] as u64) as u32,
                y: r.below(cfg.viewport[1] as u64) as u32,
                slot_valid: match r.below(5) {
                    0 => 0,
                    1 => 0xffff,
                    _ => r.next_u32() as u16,
                },
                ..Default::default()
            };
            for c in p.colour.iter_mut() {
                *c = r.next_u32();
            }
            p
        })
        .collect()
}

fn memory(cfg: &Config, seed: u64) -> SparseMemory {
    let mut r = Rng::new(seed);
    let mut m = SparseMemory::new();
    // The slots the pixels can touch (rows below 8 are enough: the pixels' y are masked below).
    for pos in 0..cfg.viewport[0] * 8 * cfg.colours_per_pixel {
        m.write(slot_addr(pos), r.next_u32(), 0xf);
    }
    m
}

fn check(what: &str, r: &Report) {
    println!("{what}: {r:?}");
    if let Some((c, d)) = &r.mismatch {
        panic!(
            "{what}: DstFetch and DstFetchCycle differ at cycle {c}: {}",
            d.join("; ")
        );
    }
}

#[test]
fn cosim_against_the_cycle_model() {
    // (config, C, P, memory timing): C = 4 with K = 3, and C = 16 with K = 4 at the full width.
    let mut a = Config::preset("ice40").unwrap();
    a.colours_per_pixel = 4;
    a.colour_block_bytes = 64;
    a.blend_pool = 3;
    let mut b = Config::preset("full").unwrap();
    b.colours_per_pixel = 16;
    b.colour_block_bytes = 1024;
    for (i, (cfg, timing)) in [
        (a, MemTiming { latency: 2, depth: 3 }),
        (b, MemTiming { latency: 3, depth: 4 }),
    ]
    .into_iter()
    .enumerate()
    {
        let seed = 40 + i as u64;
        let mut px = pixels(&cfg, seed, 1200);
        for p in px.iter_mut() {
            p.y %= 8;
        }
        let mut rl = Pattern::RandomStalls {
            pct: 85,
            permille: 5,
            min: 5,
            max: 20,
        }
        .line(Rng::stream(seed, 1));
        let mut vl = Pattern::gaps(20).line(Rng::stream(seed, 0));
        let mut gl = Pattern::Random { pct: 75 }.line(Rng::stream(seed, 2));
        let lines: Lines = Box::new(move |c| {
            let (v, r, g) = (vl.step(), rl.step(), gl.step());
            (
                v,
                r && !(900..960).contains(&c),   // a long output stall
                g && !(1500..1540).contains(&c), // a long memory stall
                c == 1200,
            )
        });
        let r = run(&cfg, px, timing, memory(&cfg, seed), 2500, lines);
        check(&format!("C = {}, P = {}", cfg.colours_per_pixel, cfg.blend_pool), &r);
        assert_eq!(r.flushes, 1);
        assert!(r.longest_out_stall >= 60, "long stall: {}", r.longest_out_stall);
        assert!(r.accepted > 150 && r.reads > 1000, "{r:?}");
        assert!(r.multi > 100 && r.full > 50, "multi-lane and full-K fragments: {r:?}");
        assert!(r.meta_full > 20 && r.rd_stall > 100 && r.out_stall > 100, "{r:?}");
    }
}

/// A directed burst: one-slot pixels back to back (C = 1, K = 4), memory latency 1, nothing
/// stalls. Reads issue at edges 1, 2, 3, 4 (n = 0..3); the fourth closes its fragment only
/// because n = K − 1 (the next pixel follows), its response enters the assembly at edge 6, so
/// `rsp_ready` is low in cycle 7 and the fragment is on `out` from cycle 8.
#[test]
fn directed_burst() {
    let cfg = Config::preset("default").unwrap();
    assert_eq!((cfg.colours_per_pixel, cfg.blend_pool), (1, 4));
    let px: Vec<PixSlots> = (0..12)
        .map(|i| PixSlots {
            x: i,
            y: 1,
            slot_valid: 1,
            colour: [i + 100; 16],
        })
        .collect();
    let lines: Lines = Box::new(|_| (true, true, true, false));
    let r = run(&cfg, px, MemTiming { latency: 1, depth: 2 }, memory(&cfg, 1), 40, lines);
    check("burst", &r);
    assert_eq!((r.accepted, r.reads, r.frags, r.full), (12, 12, 3, 3));
}

#[test]
fn verilog_lints_clean() {
    for p in tilerast_golden::PRESETS {
        let cfg = Config::preset(p).unwrap();
        let top = format!("dst_fetch_{p}");
        let v = tilerast_hw::dst_fetch::verilog(&cfg, &top);
        assert!(tilerast_hw::emit::rangeless_signed_localparams(&v).is_empty(), "{top}");
        if let Err(msg) = tilerast_hw::emit::lint(&v, &top) {
            panic!("{top}: lint:\n{msg}");
        }
    }
}
