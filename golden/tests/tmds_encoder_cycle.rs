//! The TMDS encoder against the DVI 1.0 specification (§3.2.2, layer 1) and its cycle model
//! (`TmdsEncoderCycle`, layer 3) against the transaction model (`TmdsEncoder::encode`, layer 2).
//!
//! The reference is checked through what a receiver and a link can observe, not by restating
//! the encoder: every data character decodes (the receiver's rule, `decode`) to its byte from
//! every reachable disparity; the disparity the encoder keeps is the ones − zeros actually sent
//! since the last control period, and stays bounded; data characters have at most 5
//! transitions and the four control characters at least 7 (how a receiver finds the character
//! boundary); and a few characters worked by hand from the specification's flowchart.

use std::collections::BTreeSet;
use tilerast_golden::cycle::{drive, CycleModel};
use tilerast_golden::streams::TmdsIn;
use tilerast_golden::tmds_encoder::{decode, Decoded, TmdsEncoder, TmdsEncoderCycle, CONTROL_CHARS};
use tilerast_verif::stim::tmds_video;
use tilerast_verif::{Pattern, Rng};

fn data(d: u8) -> TmdsIn {
    TmdsIn {
        data: d,
        de: true,
        ctrl: 3,
    }
}

/// A control period's clock with control bits (c1, c0) = `ctrl`.
fn blank(ctrl: u8) -> TmdsIn {
    TmdsIn {
        data: 0x55,
        de: false,
        ctrl,
    }
}

/// Ones minus zeros of a 10-bit character.
fn balance(word: u16) -> i32 {
    2 * (word & 0x3ff).count_ones() as i32 - 10
}

/// Transitions between neighbouring bits of a 10-bit character.
fn transitions(word: u16) -> u32 {
    ((word ^ word >> 1) & 0x1ff).count_ones()
}

/// Every disparity the encoder reaches from a control period, over every byte.
fn reachable() -> BTreeSet<i32> {
    let mut seen = BTreeSet::from([0]);
    let mut todo = vec![0];
    while let Some(d) = todo.pop() {
        for b in 0..=255u8 {
            let mut e = TmdsEncoder { disparity: d };
            e.encode(&data(b));
            if seen.insert(e.disparity) {
                todo.push(e.disparity);
            }
        }
    }
    seen
}

#[test]
fn characters_worked_by_hand_from_the_flowchart() {
    // 0x00: no ones → XOR chain, q_m = 0 0000 0000 with q_m[8] = 1. At disparity 0 it goes as
    // it is: 01_0000_0000, disparity −8. Then n0 > n1 with a negative disparity: inverted,
    // 11_1111_1111, disparity −8 + 2 + 8 = 2. Then neither rule: as it is, 2 − 8 = −6.
    let mut e = TmdsEncoder::new();
    assert_eq!(e.encode(&data(0x00)), 0b01_0000_0000);
    assert_eq!(e.disparity, -8);
    assert_eq!(e.encode(&data(0x00)), 0b11_1111_1111);
    assert_eq!(e.disparity, 2);
    assert_eq!(e.encode(&data(0x00)), 0b01_0000_0000);
    assert_eq!(e.disparity, -6);
    // 0xff: eight ones → XNOR chain, q_m = 0 1111 1111. At disparity 0, q_m[8] = 0 sends it
    // inverted: 10_0000_0000, disparity −8; then as it is, 00_1111_1111, −8 − 2 + 8 = −2.
    let mut e = TmdsEncoder::new();
    assert_eq!(e.encode(&data(0xff)), 0b10_0000_0000);
    assert_eq!(e.encode(&data(0xff)), 0b00_1111_1111);
    assert_eq!(e.disparity, -2);
    // 0x01: one one → XOR chain, q_m[7:0] = 1111 1111, q_m[8] = 1: 01_1111_1111, +8.
    let mut e = TmdsEncoder::new();
    assert_eq!(e.encode(&data(0x01)), 0b01_1111_1111);
    assert_eq!(e.disparity, 8);
    // A control period sends (c1, c0) = 00's character and forgets the disparity.
    assert_eq!(e.encode(&blank(0)), 0b11_0101_0100);
    assert_eq!(e.disparity, 0);
}

#[test]
fn every_byte_decodes_from_every_reachable_disparity() {
    let states = reachable();
    assert!(states.len() > 5, "the disparity moves: {states:?}");
    for &d in &states {
        for b in 0..=255u8 {
            let mut e = TmdsEncoder { disparity: d };
            let w = e.encode(&data(b));
            assert!(w < 1 << 10);
            assert_eq!(decode(w), Decoded::Data(b), "byte {b:#04x} at disparity {d}: {w:#012b}");
            assert!(
                transitions(w) <= 5,
                "byte {b:#04x} at {d}: {w:#012b} has {} transitions",
                transitions(w)
            );
            // The disparity kept is what the link carries.
            assert_eq!(e.disparity - d, balance(w), "byte {b:#04x} at {d}");
        }
    }
}

#[test]
fn the_disparity_stays_within_five_bits() {
    let states = reachable();
    let (lo, hi) = (*states.first().unwrap(), *states.last().unwrap());
    println!("reachable disparities: {states:?}");
    assert!(
        lo >= -16 && hi <= 15,
        "{lo}..{hi} does not fit the RTL's 5-bit register"
    );
    // DC balance: it never strays past one character's worth (the cycle model's contract).
    assert!(lo >= -8 && hi <= 8, "{lo}..{hi}");
}

#[test]
fn control_characters_are_the_specifications_and_stand_out() {
    for (c, &w) in CONTROL_CHARS.iter().enumerate() {
        assert_eq!(decode(w), Decoded::Control(c as u8));
        assert!(transitions(w) >= 7, "{w:#012b}");
        // A control period sends the character of its control bits, whatever the disparity.
        let mut e = TmdsEncoder { disparity: 6 };
        assert_eq!(e.encode(&blank(c as u8)), w);
        assert_eq!(e.disparity, 0);
    }
    // The spec's table, (c1, c0) → character, bit 0 first (worked from DVI 1.0 §3.2.2).
    let sent: Vec<u16> = (0..4).map(|c| TmdsEncoder::new().encode(&blank(c))).collect();
    assert_eq!(sent, [0b11_0101_0100, 0b00_1010_1011, 0b01_0101_0100, 0b10_1010_1011]);
}

/// The transaction model's characters for `inputs`.
fn expected(inputs: &[TmdsIn]) -> Vec<u16> {
    let mut e = TmdsEncoder::new();
    inputs.iter().map(|i| e.encode(i)).collect()
}

#[test]
fn cycle_model_sends_the_transaction_models_characters() {
    let inputs = tmds_video(3, 5_000);
    let want = expected(&inputs);
    assert!(inputs.iter().any(|i| !i.de) && inputs.iter().filter(|i| i.de).count() > 3_000);
    for (seed, valid, ready) in [
        (1, Pattern::Always, Pattern::Always),
        (2, Pattern::gaps(30), Pattern::Random { pct: 60 }),
        (
            3,
            Pattern::gaps(10),
            Pattern::RandomStalls {
                pct: 80,
                permille: 10,
                min: 20,
                max: 200,
            },
        ),
    ] {
        let mut m = TmdsEncoderCycle::new();
        let (mut vl, mut rl) = (valid.line(Rng::stream(seed, 0)), ready.line(Rng::stream(seed, 1)));
        let (outs, trace) = drive(
            &mut m,
            &inputs,
            |_| !vl.step(),
            |_| rl.step(),
            |o| o.len() == inputs.len(),
            1_000_000,
        );
        let got: Vec<u16> = outs.iter().map(|c| c.word).collect();
        assert_eq!(got, want, "seed {seed}");
        // The contract: in_ready = ¬out_valid ∨ out_ready, and latency 1 when not held.
        for (t, s) in trace.iter().enumerate() {
            assert_eq!(s.in_ready, !s.out_valid || s.out_ready, "cycle {t}");
            if s.in_valid && s.in_ready {
                assert!(
                    trace.get(t + 1).is_none_or(|n| n.out_valid),
                    "cycle {t}: no character next cycle"
                );
            }
        }
        if seed == 1 {
            assert_eq!(trace.len(), inputs.len() + 1, "one character per cycle");
        }
    }
}

#[test]
fn flush_forgets_the_disparity_and_the_character() {
    let mut m = TmdsEncoderCycle::new();
    m.clock(true, &data(0x01), true, false);
    assert_eq!(m.disparity(), 8);
    assert_eq!(
        m.out(),
        (true, tilerast_golden::streams::TmdsChar { word: 0b01_1111_1111 })
    );
    m.clock(true, &data(0x01), true, true);
    assert_eq!(m.disparity(), 0);
    assert_eq!(m.out(), (false, Default::default()));
    assert!(m.idle());
    // Held: nothing moves without out_ready.
    m.clock(true, &data(0x00), true, false);
    let before = (m.out(), m.disparity());
    m.clock(true, &data(0x55), false, false);
    assert_eq!((m.out(), m.disparity()), before);
}
