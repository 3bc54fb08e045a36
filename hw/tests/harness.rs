//! The harness of `hw/tests/common` can fail: a cycle model with one output bit flipped at a
//! known cycle (a payload field, `out_valid`, the input's ready) is reported at exactly that
//! cycle and port, with both values, and nowhere else; the run stops after `max_mismatches`
//! differing cycles.

mod common;

use common::{ExtraOut, PortDiff, Run};
use tilerast_golden::config::Config;
use tilerast_golden::cycle::CycleModel;
use tilerast_golden::quad_packer::QuadPackerCycle;
use tilerast_golden::raster_core::RasterCoreCycle;
use tilerast_golden::streams::{ports, Beat, Stream};
use tilerast_hw::quad_packer::QuadPacker;
use tilerast_hw::raster_core::RasterCore;
use tilerast_verif::stim::beats;
use tilerast_verif::{Flush, Handshake, Pattern};

/// Which output of the model to corrupt.
#[derive(Clone, Copy, Debug)]
enum Flip {
    /// `in_ready`.
    InReady,
    /// `out_valid`.
    OutValid,
    /// Bit `bit` of the payload port `out__<field>`.
    Field(&'static str, u32),
}

/// A model whose `what` is inverted in cycles `from..to` (its state stays the inner model's).
struct Corrupt<M> {
    inner: M,
    what: Flip,
    from: u64,
    to: u64,
    cycle: u64,
}

impl<M> Corrupt<M> {
    fn new(inner: M, what: Flip, from: u64, to: u64) -> Self {
        Corrupt {
            inner,
            what,
            from,
            to,
            cycle: 0,
        }
    }
    fn on(&self) -> bool {
        (self.from..self.to).contains(&self.cycle)
    }
}

impl<M: ExtraOut> ExtraOut for Corrupt<M> {
    fn extra_out(&self) -> Vec<(&'static str, u64)> {
        self.inner.extra_out()
    }
}

impl<M: CycleModel<Out = Beat>> CycleModel for Corrupt<M> {
    type In = M::In;
    type Out = Beat;

    fn out(&self) -> (bool, Beat) {
        let (valid, beat) = self.inner.out();
        match self.what {
            Flip::OutValid if self.on() => (!valid, beat),
            Flip::Field(name, bit) if self.on() => {
                let i = ports::PackedBeat::FIELDS
                    .iter()
                    .position(|f| f.name == name)
                    .expect("a PackedBeat port");
                let mut bits = ports::PackedBeat::to_bits(&beat);
                bits[i] ^= 1 << bit;
                (valid, ports::PackedBeat::from_bits(&bits))
            }
            _ => (valid, beat),
        }
    }

    fn in_ready(&self, out_ready: bool) -> bool {
        self.inner.in_ready(out_ready) ^ matches!(self.what, Flip::InReady if self.on())
    }

    fn clock(&mut self, in_valid: bool, inp: &M::In, out_ready: bool, flush: bool) {
        self.inner.clock(in_valid, inp, out_ready, flush);
        self.cycle += 1;
    }
}

/// quad_packer (ice40) against a corrupted model: random beats, 30 % gaps, 70 % ready with
/// stalls, a flush at 250.
fn packer(what: Flip, from: u64, to: u64, max_mismatches: usize) -> common::Report<Beat, Beat> {
    let cfg = Config::preset("ice40").unwrap();
    let ready = Pattern::RandomStalls {
        pct: 70,
        permille: 25,
        min: 10,
        max: 59,
    };
    let hs = Handshake::new(Pattern::gaps(30), ready).with_flush(Flush::At(250));
    // 400 cycles accept at most 400 beats.
    let beats = beats(5, 400);
    let model = Corrupt::new(QuadPackerCycle::new(&cfg), what, from, to);
    let run = Run {
        max_mismatches,
        ..Run::new(hs, 5, 400)
    };
    run.go(QuadPacker::new(&cfg), model, beats)
}

#[test]
fn the_uncorrupted_model_matches() {
    let r = packer(Flip::OutValid, 0, 0, 5);
    r.assert_clean("clean");
    assert_eq!(r.cycles, 400);
    assert!(r.accepted > 100 && r.transferred > 50 && r.flushes == 1 && r.longest_stall >= 10);
    assert_eq!(r.outputs().count() as u64, r.transferred);
    assert_eq!(r.inputs().count() as u64, r.accepted);
}

#[test]
fn a_flipped_payload_bit_is_reported_at_its_cycle_and_port_only() {
    let r = packer(Flip::Field("mask_2", 5), 137, 138, 5);
    assert_eq!(r.cycles, 400, "the run goes on after one mismatch");
    assert_eq!(r.mismatches.len(), 1, "{:#?}", r.mismatches);
    let m = &r.mismatches[0];
    assert_eq!(m.cycle, 137);
    // The trace holds the model's side: the corrupted value.
    let model = r.trace[137].output.mask[2];
    assert_eq!(
        m.ports,
        [PortDiff {
            port: "out__mask_2".into(),
            rtl: model ^ 1 << 5,
            model,
        }]
    );
    let text = m.to_string();
    assert!(text.starts_with("cycle 137: out__mask_2 rtl "), "{text}");
    assert!(
        text.contains("\n  rtl   in_ready=") && text.contains("\n  model in_ready="),
        "{text}"
    );
    // And a wide field's top bit, a narrow one's.
    for (field, bit) in [
        ("mask_0", 63),
        ("qy_3", 11),
        ("block_1", 7),
        ("lane_valid", 0),
        ("last", 0),
    ] {
        let r = packer(Flip::Field(field, bit), 211, 212, 5);
        assert_eq!(r.mismatches.len(), 1, "{field}: {:#?}", r.mismatches);
        assert_eq!(r.mismatches[0].cycle, 211);
        assert_eq!(r.mismatches[0].ports.len(), 1);
        let d = &r.mismatches[0].ports[0];
        assert_eq!(
            (d.port.as_str(), d.rtl ^ d.model),
            (&*format!("out__{field}"), 1 << bit)
        );
    }
}

#[test]
fn a_flipped_out_valid_is_reported_at_its_cycle() {
    let r = packer(Flip::OutValid, 300, 301, 5);
    assert_eq!(r.mismatches.len(), 1, "{:#?}", r.mismatches);
    assert_eq!(r.mismatches[0].cycle, 300);
    let valid = r.trace[300].out_valid as u64;
    assert_eq!(
        r.mismatches[0].ports,
        [PortDiff {
            port: "out_valid".into(),
            rtl: valid ^ 1,
            model: valid,
        }]
    );
}

#[test]
fn a_flipped_in_ready_is_reported_at_its_cycle() {
    // Acceptance follows the model's ready, so the streams may part after the flip: only the
    // first mismatch is pinned.
    let r = packer(Flip::InReady, 50, 51, 5);
    let m = &r.mismatches[0];
    assert_eq!((m.cycle, m.ports[0].port.as_str()), (50, "in_ready"), "{m}");
    assert_eq!(m.ports[0].rtl ^ m.ports[0].model, 1);
    // The core's input ready is `cmd_ready`.
    let cfg = Config::preset("ice40").unwrap();
    let hs = Handshake::new(Pattern::Always, Pattern::Always);
    let model = Corrupt::new(RasterCoreCycle::new(&cfg), Flip::InReady, 20, 21);
    let r = Run::new(hs, 1, 40).go(RasterCore::new(&cfg), model, std::iter::empty());
    assert_eq!(r.mismatches.len(), 1, "{:#?}", r.mismatches);
    assert_eq!(
        (r.mismatches[0].cycle, r.mismatches[0].ports[0].port.as_str()),
        (20, "cmd_ready")
    );
}

#[test]
fn the_run_stops_after_max_mismatches() {
    let r = packer(Flip::Field("prim", 0), 100, 400, 3);
    let cycles: Vec<u64> = r.mismatches.iter().map(|m| m.cycle).collect();
    assert_eq!(cycles, [100, 101, 102]);
    assert_eq!((r.cycles, r.trace.len()), (103, 103));
    let msg = r.check("stops").expect_err("three mismatches");
    assert!(
        msg.starts_with("stops: tilerast_hw::quad_packer::QuadPacker and its cycle model differ")
            && msg.contains("\ncycle 102: out__prim rtl "),
        "{msg}"
    );
    assert!(packer(Flip::OutValid, 0, 0, 5).check("clean").is_ok());
}
