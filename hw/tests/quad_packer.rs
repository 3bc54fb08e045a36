//! rust-hdl simulation of `QuadPacker` against its cycle model `QuadPackerCycle`: the same
//! random stimulus (random beats with any lane pattern, random input gaps, random `out_ready`
//! with long stalls, one `flush` pulse) drives both, and every output port (valid, payload
//! incl. `block_l`) and `in_ready` must agree on every cycle. Plus Verilog emission per preset,
//! linted with `verilator --lint-only -Wall` (skipped with a note if verilator is absent).

use rust_hdl::prelude::*;
use std::sync::{Arc, Mutex};
use tilerast_golden::config::Config;
use tilerast_golden::cycle::CycleModel;
use tilerast_golden::quad_packer::QuadPackerCycle;
use tilerast_golden::streams::Beat;
use tilerast_hw::quad_packer::QuadPacker;

use tilerast_verif::{Flush, Handshake, Pattern, Rng};

fn random_beat(r: &mut Rng) -> Beat {
    let mut b = Beat {
        prim: r.below(1 << 24) as u32,
        lane_valid: r.below(16) as u8,
        last: r.one_in(4),
        ..Default::default()
    };
    for l in 0..4 {
        b.qx[l] = r.below(1 << 12) as u32;
        b.qy[l] = r.below(1 << 12) as u32;
        b.mask[l] = r.next_u64();
    }
    b
}

fn drive_in(x: &mut QuadPacker, valid: bool, b: &Beat, out_ready: bool, flush: bool) {
    x.flush.next = flush;
    x.in_valid.next = valid;
    x.out_ready.next = out_ready;
    x.inp.drive(b);
}

fn sample_out(x: &QuadPacker) -> (bool, Beat) {
    (x.out_valid.val(), x.out.sample())
}

/// Co-simulate `cycles` cycles; returns (beats transferred out, errors).
fn cosim(preset: &str, cycles: u64, seed: u64, flush_at: u64) -> (u64, Vec<String>) {
    let cfg = Config::preset(preset).unwrap();
    let mut uut = QuadPacker::new(&cfg);
    uut.connect_all();
    let result = Arc::new(Mutex::new((0u64, Vec::<String>::new())));
    let res = result.clone();
    let mut sim = Simulation::new();
    sim.add_clock(5, |x: &mut Box<QuadPacker>| x.clock.next = !x.clock.val());
    sim.add_testbench(move |mut sim: Sim<QuadPacker>| {
        let mut x = sim.init()?;
        let mut model = QuadPackerCycle::new(&cfg);
        let mut r = Rng::new(seed);
        let mut cur = random_beat(&mut r);
        // 30 % input gaps, 70 % ready with stalls of 10-59 cycles, one flush.
        let ready = Pattern::RandomStalls {
            pct: 70,
            permille: 25,
            min: 10,
            max: 59,
        };
        let mut lines = Handshake::new(Pattern::gaps(30), ready)
            .with_flush(Flush::At(flush_at))
            .lines(seed);
        wait_clock_true!(sim, clock, x);
        for cyc in 0..cycles {
            // Inputs right after the rising edge.
            let c = lines.step();
            let (in_valid, out_ready, flush) = (c.valid, c.ready, c.flush);
            drive_in(&mut x, in_valid, &cur, out_ready, flush);
            wait_clock_false!(sim, clock, x);
            // Settled: compare every port with the model.
            let got = sample_out(&x);
            let want = model.out();
            let rdy = x.in_ready.val();
            let want_rdy = model.in_ready(out_ready);
            if got != want || rdy != want_rdy {
                let mut g = res.lock().unwrap();
                g.1.push(format!(
                    "cycle {cyc}: rtl ({rdy}, {got:?}) model ({want_rdy}, {want:?})"
                ));
                if g.1.len() > 5 {
                    break;
                }
            }
            if got.0 && out_ready {
                res.lock().unwrap().0 += 1;
            }
            model.clock(in_valid, &cur, out_ready, flush);
            if in_valid && rdy && !flush {
                cur = random_beat(&mut r);
            }
            wait_clock_true!(sim, clock, x);
        }
        sim.done(x)
    });
    sim.run(Box::new(uut), 10 * (cycles + 10)).unwrap();
    let g = result.lock().unwrap();
    (g.0, g.1.clone())
}

#[test]
fn cosim_ice40() {
    let (n, errs) = cosim("ice40", 1500, 11, 700);
    assert!(errs.is_empty(), "{}", errs.join("\n"));
    assert!(n > 200, "only {n} beats out");
}

#[test]
fn cosim_default() {
    let (n, errs) = cosim("default", 1500, 22, 900);
    assert!(errs.is_empty(), "{}", errs.join("\n"));
    assert!(n > 200, "only {n} beats out");
}

#[test]
fn cosim_full() {
    let (n, errs) = cosim("full", 1000, 33, 400);
    assert!(errs.is_empty(), "{}", errs.join("\n"));
    assert!(n > 100, "only {n} beats out");
}

#[test]
fn refuses_unsupported_configs() {
    let mut c = Config::preset("default").unwrap();
    c.colour_block_bytes = 1024;
    let e = QuadPacker::try_new(&c).err().expect("refused");
    assert!(e.contains("second sub-tile"), "{e}");
}

#[test]
fn verilog_lints_clean() {
    // Every preset's Verilog of this block: ranged constants, and `verilator --lint-only -Wall`
    // clean with the project's one waiver file (hw/lint/waivers.vlt).
    for p in tilerast_golden::PRESETS {
        let cfg = tilerast_golden::Config::preset(p).unwrap();
        let top = format!("quad_packer_{p}");
        let v = tilerast_hw::quad_packer::verilog(&cfg, &top);
        assert!(tilerast_hw::emit::rangeless_signed_localparams(&v).is_empty(), "{top}");
        if let Err(msg) = tilerast_hw::emit::lint(&v, &top) {
            panic!("{top}: lint:\n{msg}");
        }
    }
}
