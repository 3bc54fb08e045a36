//! rust-hdl simulation of `PixelProcessor` against its cycle model `PixelProcessorCycle`: the
//! same random pixels (`stim::pix_samples`: masks none / all / random / one / all but one,
//! colours from a tie-heavy alphabet or random), random input gaps, random `out_ready` with
//! long stalls, one `flush` pulse mid-stream; `in_ready` and every output port must agree on
//! every cycle. Per preset S × C (4 × 1, 16 × 4, 1 × 1) and a C > S config (2 × 8, the
//! spread path). Activity is asserted on the model's counters replayed over the same stimulus
//! and on the transferred beats (partial slots, k = 0 slots, full slots, uncovered pixels),
//! so that all-zero traffic cannot pass. Plus Verilog lint per config.

mod common;

use common::{Report, Run};
use tilerast_golden::config::Config;
use tilerast_golden::cycle::CycleModel;
use tilerast_golden::pixel_processor::{PixelProcessorCycle, PixelStats};
use tilerast_golden::streams::{PixSamples, PixSlots};
use tilerast_hw::pixel_processor::{supported, PixelProcessor};
use tilerast_verif::stim::pix_samples;
use tilerast_verif::{Flush, Handshake, Pattern};

fn cfg(preset: &str, sc: Option<(u32, u32)>) -> Config {
    let mut c = Config::preset(preset).unwrap();
    if let Some((s, k)) = sc {
        c.msaa = s;
        c.colours_per_pixel = k;
        c.colour_block_bytes = 4096;
    }
    c.validate().unwrap();
    c
}

/// The model's counters over the run's stimulus (replayed cycle by cycle from the report).
fn replay(cfg: &Config, r: &Report<PixSamples, PixSlots>) -> PixelStats {
    let mut m = PixelProcessorCycle::new(cfg);
    for s in &r.trace {
        m.clock(s.in_valid, &s.input, s.out_ready, s.flush);
    }
    m.stats()
}

fn cosim(c: &Config, cycles: u64, seed: u64, flush_at: u64) -> Report<PixSamples, PixSlots> {
    let ready = Pattern::RandomStalls {
        pct: 75,
        permille: 15,
        min: 10,
        max: 40,
    };
    let hs = Handshake::new(Pattern::gaps(20), ready).with_flush(Flush::At(flush_at));
    let px = pix_samples(c.msaa, seed, cycles as usize);
    let what = format!("{} S {} C {}", c.name, c.msaa, c.colours_per_pixel);
    let report = Run::new(hs, seed, cycles).go(PixelProcessor::new(c), PixelProcessorCycle::new(c), px);
    println!("{what}: {}", report.summary());
    report.assert_clean(&what);
    let st = replay(c, &report);
    println!("{st:?}");
    assert!(report.longest_stall >= 10, "no long stall");
    assert_eq!(report.flushes, 1);
    assert!(report.transferred > cycles / 3, "only {} beats out", report.transferred);
    // Activity on the transferred beats: full slots, k = 0 slots of covered pixels, pixels
    // without any covered sample, and (S > C) partial slots in the counters.
    let cn = c.colours_per_pixel;
    let all: u16 = if cn >= 16 { 0xffff } else { (1 << cn) - 1 };
    let outs: Vec<&PixSlots> = report.outputs().collect();
    assert!(
        outs.iter().any(|o| o.slot_valid == all),
        "{what}: no fully covered pixel"
    );
    assert!(outs.iter().any(|o| o.slot_valid == 0), "{what}: no uncovered pixel");
    if c.msaa > c.colours_per_pixel {
        assert!(st.partial_slots > 10, "{what}: {st:?}");
    }
    if c.colours_per_pixel > 1 {
        assert!(
            outs.iter().any(|o| o.slot_valid != 0 && o.slot_valid != all),
            "{what}: no pixel with an empty slot"
        );
    }
    assert!(st.slots > st.partial_slots + 10, "{what}: {st:?}");
    assert!(outs.iter().all(|o| o.slot_valid & !all == 0));
    assert!(outs.iter().any(|o| o.colour.iter().any(|&x| x != 0 && x != u32::MAX)));
    report
}

#[test]
fn cosim_ice40_4x_1_colour() {
    cosim(&cfg("ice40", None), 900, 51, 400);
}

#[test]
fn cosim_full_16x_4_colours() {
    cosim(&cfg("full", None), 700, 52, 300);
}

#[test]
fn cosim_ice40_1x() {
    cosim(&cfg("ice40_1x", None), 600, 53, 250);
}

#[test]
fn cosim_more_colours_than_samples() {
    cosim(&cfg("default", Some((2, 8))), 600, 54, 200);
}

#[test]
fn refuses_invalid_configs() {
    let mut c = Config::preset("default").unwrap();
    assert!(supported(&c).is_ok());
    c.colours_per_pixel = 3;
    let e = supported(&c).unwrap_err();
    assert!(e.contains("colours_per_pixel"), "{e}");
}

/// The one configuration `rtl-out/` does not hold (more colours than samples) lints clean;
/// every preset's block is linted, with its ranged constants checked, by `hw/tests/rtl_out.rs`.
#[test]
fn verilog_lints_clean() {
    let c = cfg("default", Some((2, 8)));
    let top = format!("pixel_processor_default_{}", c.colours_per_pixel);
    let v = tilerast_hw::pixel_processor::verilog(&c, &top);
    assert!(tilerast_hw::emit::rangeless_signed_localparams(&v).is_empty(), "{top}");
    if let Err(msg) = tilerast_hw::emit::lint(&v, &top) {
        panic!("{top}: lint:\n{msg}");
    }
}
