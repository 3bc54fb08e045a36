//! rust-hdl simulation of `BinSetup` against its cycle model `BinSetupCycle`: `in_ready`,
//! `out_valid` + `out` (boxes) and `wr_valid` + `wr` (table writes), payloads valid or not, on
//! every cycle. Stimulus: frames of `stim::bin_setup_frame` primitives (triangles of every
//! kind incl. zero-area, near-degenerate and 24-bit extremes, points AA off / on) each closed
//! by a frame-end token, junk payloads while `in_valid` is low, random input gaps, random
//! back-pressure with stalls on each output, a flush mid-frame. Transaction level: each frame
//! finished must give golden's boxes (`binner::prim_bbox`) and `prim_table::table`'s bytes.
//! Configs: `ice40` (cull none) and `ice40` with cull cw, ~3000 cycles each.

use rust_hdl::prelude::*;
use std::sync::{Arc, Mutex};
use tilerast_golden::bin_setup::{frame_beats, BinSetupCycle};
use tilerast_golden::config::{Config, CullMode};
use tilerast_golden::prim::PrimitiveFx;
use tilerast_golden::prim_table::table;
use tilerast_golden::streams::{port_name, ports, BinBox, MemReq, PrimIn, Stream};
use tilerast_hw::bin_setup::{supported, BinSetup};
use tilerast_verif::stim::{bin_setup_boxes, bin_setup_frame};
use tilerast_verif::{Pattern, Rng};

#[derive(Debug, Default)]
struct Report {
    cycles: u64,
    mismatch: Option<(u64, Vec<String>)>,
    frames: u64,
    boxes: u64,
    writes: u64,
    flushes: u64,
    out_stall: u64,
    wr_stall: u64,
    longest_stall: u64,
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

fn run(cfg: &Config, frames: Vec<Vec<PrimitiveFx>>, seed: u64, cycles: u64, flush_at: u64) -> Report {
    let mut dut = BinSetup::new(cfg);
    dut.connect_all();
    let cfg2 = cfg.clone();
    let result = Arc::new(Mutex::new(None));
    let res = result.clone();
    let mut sim = Simulation::new();
    sim.add_clock(5, |x: &mut Box<BinSetup>| x.clock.next = !x.clock.val());
    sim.add_testbench(move |mut sim: Sim<BinSetup>| {
        let cfg = cfg2.clone();
        let mut model = BinSetupCycle::new(&cfg);
        let inputs: Vec<Vec<PrimIn>> = frames.iter().map(|f| frame_beats(f).unwrap()).collect();
        let mut vl = Pattern::gaps(25).line(Rng::stream(seed, 0));
        let mut ol = Pattern::RandomStalls {
            pct: 80,
            permille: 8,
            min: 10,
            max: 60,
        }
        .line(Rng::stream(seed, 1));
        let mut wl = Pattern::RandomStalls {
            pct: 85,
            permille: 5,
            min: 10,
            max: 80,
        }
        .line(Rng::stream(seed, 2));
        let mut junk = Rng::stream(seed, 3);
        let mut r = Report::default();
        let (mut fin, mut bi, mut cur) = (0usize, 0usize, 0usize);
        let (mut boxes, mut writes): (Vec<BinBox>, Vec<MemReq>) = (Vec::new(), Vec::new());
        let (mut os, mut ws) = (0u64, 0u64);
        let mut x = sim.init()?;
        for cycle in 0..cycles {
            let have = fin < inputs.len();
            let (v, or, wr) = (have && vl.step(), ol.step(), wl.step());
            let flush = cycle == flush_at;
            let inp = if v {
                inputs[fin][bi]
            } else {
                PrimIn {
                    kind: junk.below(2) as u8,
                    v: [[junk.signed(24) as i32; 2]; 3],
                    size: junk.below(1 << 24) as u32,
                    aa: junk.bool(),
                    colour: junk.next_u32(),
                    depth: junk.below(1 << 24) as u32,
                    end: junk.bool(),
                }
            };
            x.in_valid.next = v;
            x.inp.drive(&inp);
            x.out_ready.next = or;
            x.wr_ready.next = wr;
            x.flush.next = flush;
            x = sim.watch(|x| !x.clock.val().clk, x)?;
            let in_ready = model.in_ready(or);
            let (ov, ob) = model.out();
            let (wv, wq) = model.wr();
            let mut d = Vec::new();
            for (name, rtl, m) in [
                ("in_ready", x.in_ready.val(), in_ready),
                ("out_valid", x.out_valid.val(), ov),
                ("wr_valid", x.wr_valid.val(), wv),
            ] {
                if rtl != m {
                    d.push(format!("{name} rtl {rtl} model {m}"));
                }
            }
            diff::<ports::BinBox>("out", &x.out.sample(), &ob, &mut d);
            diff::<ports::MemReq>("wr", &x.wr.sample(), &wq, &mut d);
            r.cycles = cycle + 1;
            if !d.is_empty() {
                r.mismatch = Some((cycle, d));
                break;
            }
            os = if ov && !or { os + 1 } else { 0 };
            ws = if wv && !wr { ws + 1 } else { 0 };
            r.longest_stall = r.longest_stall.max(os).max(ws);
            r.out_stall += (ov && !or) as u64;
            r.wr_stall += (wv && !wr) as u64;
            if flush {
                r.flushes += 1;
                boxes.clear();
                writes.clear();
                fin = cur;
                bi = 0;
            } else {
                if wv && wr {
                    writes.push(wq);
                }
                if ov && or {
                    boxes.push(ob);
                    if ob.end {
                        assert_eq!(boxes, bin_setup_boxes(&cfg, &frames[cur]), "frame {cur}: boxes");
                        let want = table(&frames[cur]).unwrap();
                        let mut mem = vec![0u8; want.len()];
                        assert_eq!(writes.len() * 4, want.len(), "frame {cur}: writes");
                        for w in &writes {
                            let a = w.addr as usize;
                            mem[a..a + 4].copy_from_slice(&w.wdata.to_le_bytes());
                        }
                        assert!(mem == want, "frame {cur}: table bytes");
                        r.boxes += boxes.len() as u64 - 1;
                        r.writes += writes.len() as u64;
                        r.frames += 1;
                        boxes.clear();
                        writes.clear();
                        cur += 1;
                    }
                }
                if v && in_ready {
                    bi += 1;
                    if bi == inputs[fin].len() {
                        fin += 1;
                        bi = 0;
                    }
                }
            }
            model.clock(v, &inp, or, wr, flush);
            x = sim.watch(|x| x.clock.val().clk, x)?;
        }
        *res.lock().unwrap() = Some(r);
        sim.done(x)
    });
    sim.run(Box::new(dut), 10 * (cycles + 10)).expect("rust-hdl simulation");
    let r = result.lock().unwrap().take().unwrap();
    r
}

#[test]
fn cosim_against_the_cycle_model() {
    for (i, cull) in [CullMode::None, CullMode::Cw].into_iter().enumerate() {
        let mut cfg = Config::preset("ice40").unwrap();
        cfg.cull = cull;
        supported(&cfg).unwrap();
        let frames: Vec<Vec<PrimitiveFx>> = (0..6)
            .map(|f| bin_setup_frame(&cfg, 70 + 10 * i as u64 + f, 40))
            .collect();
        let r = run(&cfg, frames, 5 + i as u64, 3_000, 900);
        println!("{cull:?}: {r:?}");
        if let Some((c, d)) = &r.mismatch {
            panic!("BinSetup and BinSetupCycle differ at cycle {c}: {}", d.join("; "));
        }
        assert_eq!(r.flushes, 1);
        assert!(r.frames >= 3, "only {} frames finished", r.frames);
        assert!(r.boxes > 30 && r.writes > 600, "{r:?}");
        assert!(r.out_stall > 0 && r.wr_stall > 0 && r.longest_stall >= 10, "{r:?}");
    }
}

#[test]
fn verilog_lints_clean_and_refusals_name_the_field() {
    for p in tilerast_golden::PRESETS {
        let cfg = Config::preset(p).unwrap();
        let top = format!("bin_setup_{p}");
        let v = tilerast_hw::bin_setup::verilog(&cfg, &top);
        assert!(tilerast_hw::emit::rangeless_signed_localparams(&v).is_empty(), "{top}");
        if let Err(msg) = tilerast_hw::emit::lint(&v, &top) {
            panic!("{top}: lint:\n{msg}");
        }
    }
    let mut cfg = Config::preset("default").unwrap();
    cfg.viewport = [8192, 64];
    let e = supported(&cfg).unwrap_err();
    assert!(e.starts_with("config.viewport") && !e.contains('\n'), "{e}");
}
