//! The rust-hdl `Setup` block against its cycle model `tilerast_golden::setup::SetupCycle`:
//! the same random stimulus (random triangle commands, random input gaps, random and long-held
//! `out_ready`, occasional flush) drives both, and every output port (valid and payload) and
//! `in_ready` must agree on every cycle; the transferred beats must also equal golden
//! `setup::edges_for`. Plus: the Verilog of every preset passes `verilator --lint-only -Wall`
//! (with the project waiver file `hw/lint/waivers.vlt`) and has no range-less signed localparam.

use rust_hdl::prelude::*;
use std::sync::{Arc, Mutex};
use tilerast_golden::config::CullMode;
use tilerast_golden::cycle::CycleModel;
use tilerast_golden::setup::{edges_for, SetupCycle};
use tilerast_golden::streams::{Cmd, Edges};
use tilerast_golden::Config;
use tilerast_hw::setup::Setup;

use tilerast_verif::{Cycle, Flush, Handshake, Pattern, Rng};

/// A random triangle command: near its tile, anywhere in the guard band, a sliver, degenerate
/// or at the guard-band limits; half of them clockwise.
fn gen_cmd(cfg: &Config, rng: &mut Rng, prim: u32) -> Cmd {
    let (lo, hi) = cfg.guard_limits_fx();
    let [nx, ny] = cfg.tiles();
    let tile = [rng.below(nx as u64) as u32, rng.below(ny as u64) as u32];
    let tw = [cfg.tile[0] as i64 * 256, cfg.tile[1] as i64 * 256];
    let near = |rng: &mut Rng, a: usize| {
        let o = tile[a] as i64 * tw[a] - tw[a] + rng.below(3 * tw[a] as u64) as i64;
        o.clamp(lo[a] as i64, hi[a] as i64) as i32
    };
    let any = |rng: &mut Rng, a: usize| lo[a] + rng.below((hi[a] - lo[a]) as u64 + 1) as i32;
    let mut v = [[0i32; 2]; 3];
    match rng.below(5) {
        0 => v = [0, 1, 2].map(|_| [any(rng, 0), any(rng, 1)]),
        1 => {
            v[0] = [near(rng, 0), near(rng, 1)];
            v[1] = [
                (v[0][0] + rng.below(9) as i32 - 4).clamp(lo[0], hi[0]),
                (v[0][1] + rng.below(9) as i32 - 4).clamp(lo[1], hi[1]),
            ];
            v[2] = [any(rng, 0), any(rng, 1)];
        }
        2 => {
            v[0] = [near(rng, 0), near(rng, 1)];
            let d = [rng.below(1025) as i32 - 512, rng.below(1025) as i32 - 512];
            let k = rng.below(4) as i32 - 1;
            v[1] = [
                (v[0][0] + d[0]).clamp(lo[0], hi[0]),
                (v[0][1] + d[1]).clamp(lo[1], hi[1]),
            ];
            v[2] = [
                (v[0][0] + k * d[0]).clamp(lo[0], hi[0]),
                (v[0][1] + k * d[1]).clamp(lo[1], hi[1]),
            ];
        }
        3 => {
            for p in v.iter_mut() {
                for (a, c) in p.iter_mut().enumerate() {
                    *c = match rng.below(3) {
                        0 => lo[a],
                        1 => hi[a],
                        _ => any(rng, a),
                    };
                }
            }
        }
        _ => v = [0, 1, 2].map(|_| [near(rng, 0), near(rng, 1)]),
    }
    if rng.chance(50) {
        v.swap(1, 2);
    }
    Cmd {
        kind: 0,
        prim,
        tile_x: tile[0],
        tile_y: tile[1],
        v,
        size: 0,
        aa: false,
    }
}

/// The block's output ports as an `Edges` (payload) and out_valid.
fn read_out(x: &Setup) -> (bool, Edges) {
    (x.out_valid.val(), x.out.sample())
}

fn drive_in(x: &mut Setup, c: &Cmd) {
    x.inp.drive(c);
}

/// Run the block and the model side by side for `cycles`; returns the cycle-by-cycle
/// mismatch report (empty if none) and the beats transferred between flushes, with the
/// commands they belong to.
fn cosim(cfg: &Config, seed: u64, cycles: usize) -> (Vec<String>, Vec<(Cmd, Edges)>) {
    let mut rng = Rng::new(seed);
    let cmds: Vec<Cmd> = (0..cycles / 4)
        .map(|i| gen_cmd(cfg, &mut rng, (i as u32 * 104_729) & 0xff_ffff))
        .collect();
    // Per cycle: 30 % input gaps, 75 % ready with stalls of 10-49 cycles, 1 % flushes.
    let ready = Pattern::RandomStalls {
        pct: 75,
        permille: 30,
        min: 10,
        max: 49,
    };
    let mut lines = Handshake::new(Pattern::gaps(30), ready)
        .with_flush(Flush::Random { permille: 10 })
        .lines(seed);
    let stim: Vec<Cycle> = (0..cycles).map(|_| lines.step()).collect();
    let report = Arc::new(Mutex::new(Vec::<String>::new()));
    let pairs = Arc::new(Mutex::new(Vec::<(Cmd, Edges)>::new()));
    let (rep, prs, cfg2) = (report.clone(), pairs.clone(), cfg.clone());
    let mut uut = Setup::new(cfg);
    uut.connect_all();
    let mut sim = Simulation::new();
    sim.add_clock(5, |x: &mut Box<Setup>| x.clock.next = !x.clock.val());
    sim.add_testbench(move |mut sim: Sim<Setup>| {
        let mut x = sim.init()?;
        let mut model = SetupCycle::new(&cfg2);
        // Commands in flight in the model, oldest first (for the transaction check).
        let mut in_flight: std::collections::VecDeque<Cmd> = Default::default();
        let mut next = 0usize;
        wait_clock_true!(sim, clock, x);
        for (cyc, s) in stim.iter().enumerate() {
            let in_valid = next < cmds.len() && s.valid;
            let inp = cmds.get(next).copied().unwrap_or_default();
            x.in_valid.next = in_valid;
            drive_in(&mut x, &inp);
            x.out_ready.next = s.ready;
            x.flush.next = s.flush;
            wait_clock_false!(sim, clock, x);
            let (rv, re) = read_out(&x);
            let (mv, me) = model.out();
            let rr = x.in_ready.val();
            let mr = model.in_ready(s.ready);
            if rv != mv || re != me || rr != mr {
                rep.lock().unwrap().push(format!(
                    "cycle {cyc}: rtl valid={rv} in_ready={rr} {re:?}\n        model valid={mv} in_ready={mr} {me:?}"
                ));
                return sim.halt(x);
            }
            if mv && s.ready && !s.flush {
                let c = in_flight.pop_front().expect("output without a command");
                prs.lock().unwrap().push((c, me));
            }
            if in_valid && mr {
                next += 1;
                if !s.flush {
                    in_flight.push_back(inp);
                }
            }
            if s.flush {
                in_flight.clear();
            }
            model.clock(in_valid, &inp, s.ready, s.flush);
            wait_clock_true!(sim, clock, x);
        }
        sim.done(x)
    });
    let res = sim.run(Box::new(uut), 10 * (cycles as u64 + 10));
    let rep = report.lock().unwrap().clone();
    if rep.is_empty() {
        res.expect("simulation ran");
    }
    let p = pairs.lock().unwrap().clone();
    (rep, p)
}

fn check(cfg: &Config, seed: u64, cycles: usize) {
    let (rep, pairs) = cosim(cfg, seed, cycles);
    assert!(
        rep.is_empty(),
        "{} ({}): RTL and cycle model differ:\n{}",
        cfg.name,
        seed,
        rep.join("\n")
    );
    assert!(pairs.len() > cycles / 40, "too few beats transferred: {}", pairs.len());
    assert!(pairs.iter().any(|(_, e)| !e.empty) && pairs.iter().any(|(_, e)| e.empty));
    for (c, e) in &pairs {
        assert_eq!(
            *e,
            edges_for(cfg, c),
            "{}: beat differs from golden for {c:?}",
            cfg.name
        );
    }
}

#[test]
fn rtl_matches_cycle_model_ice40() {
    check(&Config::preset("ice40").unwrap(), 1, 1500);
}

#[test]
fn rtl_matches_cycle_model_full() {
    check(&Config::preset("full").unwrap(), 2, 1200);
}

#[test]
fn rtl_matches_cycle_model_culling() {
    let mut cfg = Config::preset("default").unwrap();
    cfg.cull = CullMode::Cw;
    check(&cfg, 3, 500);
    cfg.cull = CullMode::Ccw;
    check(&cfg, 4, 500);
}

#[test]
fn verilog_lints_clean() {
    // Every preset's Verilog of this block: ranged constants, and `verilator --lint-only -Wall`
    // clean with the project's one waiver file (hw/lint/waivers.vlt).
    for p in tilerast_golden::PRESETS {
        let cfg = tilerast_golden::Config::preset(p).unwrap();
        let top = format!("setup_{p}");
        let v = tilerast_hw::setup::verilog(&cfg, &top);
        assert!(tilerast_hw::emit::rangeless_signed_localparams(&v).is_empty(), "{top}");
        if let Err(msg) = tilerast_hw::emit::lint(&v, &top) {
            panic!("{top}: lint:\n{msg}");
        }
    }
}
