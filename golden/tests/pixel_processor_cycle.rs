//! The pixel processor's port-level cycle model (`PixelProcessorCycle`, layer 3) against its
//! transaction model (`resolve_pixel`, layer 2): the same slots for every pixel, in order, and
//! the same `PixelStats`, under random input gaps and back-pressure, for every S × C of the
//! config space (the presets' (4, 1), (16, 4), (1, 1) among them); the latency of the timing
//! contract; and the divider's exhaustive proof.

use proptest::prelude::*;
use tilerast_golden::cycle::{drive, CycleModel};
use tilerast_golden::pixel_processor::{
    div_round_hw, pack, recip, resolve_pixel, PixelProcessorCycle, PixelStats, STAGES,
};
use tilerast_golden::streams::{PixSamples, PixSlots};
use tilerast_golden::{Config, PRESETS};

fn cfg(s: u32, c: u32) -> Config {
    let mut k = Config::preset("default").unwrap();
    k.msaa = s;
    k.colours_per_pixel = c;
    k.colour_block_bytes = 4096;
    k.validate().unwrap();
    k
}

/// Every (sum, k) the block's divider can see: `sum ≤ 255·k`, k = 1..=16, gives exactly
/// `(2·sum + k) / (2·k)` (golden's `div_round`); and the reciprocals fit 16 bits, the largest
/// product 12 × 16 bits.
#[test]
fn divider_is_exact_for_every_input() {
    for k in 1..=16u32 {
        assert!(recip(k) < 1 << 16, "R[{k}] = {}", recip(k));
        for sum in 0..=255 * k {
            let want = (2 * sum + k) / (2 * k);
            assert_eq!(div_round_hw(sum, k) as u32, want, "sum {sum}, k {k}");
            assert!(sum + k / 2 < 1 << 12);
        }
    }
}

/// The transaction model's slots for one input pixel, as the output payload, and its stats.
fn expected(c: &Config, p: &PixSamples, st: &mut PixelStats) -> PixSlots {
    let s = c.msaa as usize;
    let samples: Vec<Option<[u8; 4]>> = (0..s)
        .map(|i| (p.mask >> i & 1 == 1).then(|| p.colour[i].to_le_bytes()))
        .collect();
    let mut out = [None; 16];
    let n = resolve_pixel(c, &samples, &mut out, st);
    let mut b = PixSlots {
        x: p.x,
        y: p.y,
        ..Default::default()
    };
    for (j, slot) in out.iter().enumerate().take(n) {
        if let Some(col) = slot {
            b.slot_valid |= 1 << j;
            b.colour[j] = pack(*col);
        }
    }
    b
}

/// Pixels from words: mask kinds (none, all, random, one) over every lane, colours random or
/// from a small alphabet (so that sums hit 255·k).
fn pixels(words: &[(u64, u64)]) -> Vec<PixSamples> {
    words
        .iter()
        .enumerate()
        .map(|(n, &(a, b))| {
            let mask = match a % 4 {
                0 => 0,
                1 => 0xffff,
                2 => (a >> 8) as u16,
                _ => 1 << (a >> 8 & 15),
            };
            let mut colour = [0u32; 16];
            for (i, c) in colour.iter_mut().enumerate() {
                let w = b.rotate_left(i as u32 * 7) ^ (i as u64).wrapping_mul(0x9e37_79b9_7f4a_7c15);
                *c = if b & 1 == 0 {
                    [0xffff_ffff, 0, 0x80ff_7f01, 0x01fe_00ff][(w % 4) as usize]
                } else {
                    w as u32
                };
            }
            PixSamples {
                x: (n as u32 * 37) & 0xfff,
                y: (a >> 32) as u32 & 0xfff,
                mask,
                colour,
            }
        })
        .collect()
}

fn check(c: &Config, px: &[PixSamples], gaps: &[bool], ready: &[bool]) -> Result<(), TestCaseError> {
    let mut st = PixelStats::default();
    let want: Vec<PixSlots> = px.iter().map(|p| expected(c, p, &mut st)).collect();
    let mut m = PixelProcessorCycle::new(c);
    let g = |cyc: u64| gaps[cyc as usize % gaps.len()] && !cyc.is_multiple_of(89);
    let r = |cyc: u64| ready[cyc as usize % ready.len()] || cyc.is_multiple_of(97);
    let n = px.len();
    let (outs, _) = drive(&mut m, px, g, r, |o| o.len() >= n, 100_000);
    prop_assert_eq!(&outs, &want, "S {} C {}", c.msaa, c.colours_per_pixel);
    prop_assert_eq!(m.stats(), st);
    Ok(())
}

proptest! {
    #![proptest_config(ProptestConfig::with_cases(64))]

    #[test]
    fn cycle_model_equals_resolve_pixel(
        sc in (0u32..5, 0u32..5),
        words in prop::collection::vec((any::<u64>(), any::<u64>()), 1..60),
        gaps in prop::collection::vec(any::<bool>(), 1..16),
        ready in prop::collection::vec(any::<bool>(), 1..16),
    ) {
        let c = cfg(1 << sc.0, 1 << sc.1);
        check(&c, &pixels(&words), &gaps, &ready)?;
    }
}

/// Every preset's S and C, with partial coverage, empty slots and full coverage all seen.
#[test]
fn presets_with_partial_and_full_coverage() {
    let words: Vec<(u64, u64)> = (0..400u64)
        .map(|i| {
            (
                i.wrapping_mul(0x2545_f491_4f6c_dd1d) ^ (i << 1 & 3),
                i.wrapping_mul(0x9e37_79b9),
            )
        })
        .collect();
    let px = pixels(&words);
    for p in PRESETS {
        let c = Config::preset(p).unwrap();
        let mut st = PixelStats::default();
        for q in &px {
            expected(&c, q, &mut st);
        }
        assert!(st.partial_slots > 20 || c.msaa == 1, "{p}: {st:?}");
        assert!(st.slots > st.partial_slots + 20, "{p}: {st:?}");
        assert!(st.pixels < px.len() as u64, "{p}: some pixel uncovered");
        check(&c, &px, &[false, false, true], &[true, true, false, true]).unwrap();
    }
}

/// The latency and throughput of the contract: a pixel every cycle with out_ready high leaves
/// STAGES cycles after its accepting edge, one per cycle; a stall holds everything.
#[test]
fn latency_and_stall() {
    let c = cfg(16, 4);
    let px = pixels(&[(1, 2), (5, 7), (9, 11)]);
    let mut m = PixelProcessorCycle::new(&c);
    let mut seen = Vec::new();
    for cyc in 0..20u64 {
        let i = cyc as usize;
        let (v, o) = m.out();
        if v {
            seen.push((cyc, o.x));
        }
        let valid = i < px.len();
        assert!(m.in_ready(true));
        m.clock(valid, px.get(i).unwrap_or(&PixSamples::default()), true, false);
    }
    let want: Vec<(u64, u32)> = (0..3).map(|i| (i + STAGES as u64, px[i as usize].x)).collect();
    assert_eq!(seen, want);
    // Stall: output held, in_ready low; flush empties.
    let mut m = PixelProcessorCycle::new(&c);
    for i in 0..STAGES {
        m.clock(i == 0, &px[1], true, false);
    }
    assert!(m.out().0 && !m.in_ready(false));
    let held = m.out();
    m.clock(true, &px[2], false, false);
    assert_eq!(m.out(), held);
    m.clock(false, &px[2], false, true);
    assert_eq!(m, PixelProcessorCycle::new(&c));
}
