//! The rust-hdl `Setup` block against its cycle model `tilerast_golden::setup::SetupCycle`:
//! the same random stimulus (random triangle commands, random input gaps, random and long-held
//! `out_ready`, occasional flush) drives both, and every output port (valid and payload) and
//! `in_ready` must agree on every cycle; the transferred beats must also equal golden
//! `setup::edges_for`. Plus: the Verilog of every preset passes `verilator --lint-only -Wall`
//! (with the project waiver file `hw/lint/waivers.vlt`) and has no range-less signed localparam.

mod common;

use common::{Report, Run};
use std::collections::VecDeque;
use tilerast_golden::config::CullMode;
use tilerast_golden::setup::{edges_for, SetupCycle};
use tilerast_golden::streams::{Cmd, Edges};
use tilerast_golden::Config;
use tilerast_hw::setup::Setup;

use tilerast_verif::stim::setup_cmds;
use tilerast_verif::{Flush, Handshake, Pattern};

/// Run the block and the model side by side for `cycles` (`cycles / 4` random triangle
/// commands from `stim::setup_cmds`, whose random `size` / `aa` setup must ignore; 30 % input gaps, 75 % ready with
/// stalls of 10-49 cycles, 1 % flushes).
fn cosim(cfg: &Config, seed: u64, cycles: usize) -> Report<Cmd, Edges> {
    let cmds = setup_cmds(cfg, seed, cycles / 4);
    let ready = Pattern::RandomStalls {
        pct: 75,
        permille: 30,
        min: 10,
        max: 49,
    };
    let hs = Handshake::new(Pattern::gaps(30), ready).with_flush(Flush::Random { permille: 10 });
    Run::new(hs, seed, cycles as u64).go(Setup::new(cfg), SetupCycle::new(cfg), cmds)
}

/// The beats transferred between flushes, with the commands they belong to (the model has
/// one beat per command, in order; a flush drops the commands in flight).
fn pairs(r: &Report<Cmd, Edges>) -> Vec<(Cmd, Edges)> {
    let mut in_flight = VecDeque::new();
    let mut pairs = Vec::new();
    for s in &r.trace {
        if s.transferred() {
            let c = in_flight.pop_front().expect("output without a command");
            pairs.push((c, s.output));
        }
        if s.accepted() {
            in_flight.push_back(s.input);
        }
        if s.flush {
            in_flight.clear();
        }
    }
    pairs
}

fn check(cfg: &Config, seed: u64, cycles: usize) {
    let r = cosim(cfg, seed, cycles);
    println!("{} ({seed}): {}", cfg.name, r.summary());
    r.assert_clean(&format!("{} ({seed})", cfg.name));
    let pairs = pairs(&r);
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
