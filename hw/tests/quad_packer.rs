//! rust-hdl simulation of `QuadPacker` against its cycle model `QuadPackerCycle`: the same
//! random stimulus (random beats with any lane pattern, random input gaps, random `out_ready`
//! with long stalls, one `flush` pulse) drives both, and every output port (valid, payload
//! incl. `block_l`) and `in_ready` must agree on every cycle. Plus Verilog emission per preset,
//! linted with `verilator --lint-only -Wall` (skipped with a note if verilator is absent).

mod common;

use common::{Report, Run};
use tilerast_golden::config::Config;
use tilerast_golden::quad_packer::QuadPackerCycle;
use tilerast_golden::streams::Beat;
use tilerast_hw::quad_packer::QuadPacker;

use tilerast_verif::stim::beats;
use tilerast_verif::{Flush, Handshake, Pattern};

/// Co-simulate `cycles` cycles: `cycles` random beats from `stim::beats`, 30 % input gaps, 70 % ready with
/// stalls of 10-59 cycles, one flush.
fn cosim(preset: &str, cycles: u64, seed: u64, flush_at: u64) -> Report<Beat, Beat> {
    let cfg = Config::preset(preset).unwrap();
    let ready = Pattern::RandomStalls {
        pct: 70,
        permille: 25,
        min: 10,
        max: 59,
    };
    let hs = Handshake::new(Pattern::gaps(30), ready).with_flush(Flush::At(flush_at));
    // At most one beat is accepted per cycle, so `cycles` beats never run out.
    let beats = beats(seed, cycles as usize);
    let report = Run::new(hs, seed, cycles).go(QuadPacker::new(&cfg), QuadPackerCycle::new(&cfg), beats);
    println!("{preset}: {}", report.summary());
    report.assert_clean(preset);
    report
}

#[test]
fn cosim_ice40() {
    let n = cosim("ice40", 1500, 11, 700).transferred;
    assert!(n > 200, "only {n} beats out");
}

#[test]
fn cosim_default() {
    let n = cosim("default", 1500, 22, 900).transferred;
    assert!(n > 200, "only {n} beats out");
}

#[test]
fn cosim_full() {
    let n = cosim("full", 1000, 33, 400).transferred;
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
