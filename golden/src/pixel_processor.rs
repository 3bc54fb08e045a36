//! Pixel processor (seed 000): turns a pixel's sample coverage into its stored colours.
//!
//! The number of colours stored per pixel, C (`cfg.colours_per_pixel`), is chosen
//! independently of the samples per pixel, S (`cfg.msaa`). Colour slot j of a pixel owns the
//! samples `[j·S/C, (j+1)·S/C)` when C ≤ S (g = S/C samples per slot), or the single sample
//! `j·S/C` when C > S (g = 1). A slot whose g samples have k covered ones gets
//!
//! ```text
//!   rgb = round(Σ rgb_i / k)          (mean colour of the covered samples)
//!   a   = round(Σ a_i / g)            (alpha scaled by the coverage ratio k/g)
//! ```
//!
//! so a primitive covering k of g samples contributes its colour scaled by covered/total
//! (seed 000: "coverage ratio → colour"). A slot with k = 0 produces nothing.
//!
//! ```text
//!   S sample colours ──► [ group by slot ] ──► C × Option<RGBA> ──► blender
//! ```
//!
//! Rounding is round-half-up on integers: `(2·Σ + n) / (2·n)`.

use crate::config::Config;
use crate::counters::counters;
use crate::prim::Rgba;
use crate::streams::{PixSamples, PixSlots};

counters! {
    /// Counters of the pixel processor.
    #[derive(Clone, Copy, Debug, Default, PartialEq, Eq)]
    pub struct PixelStats {
        /// Pixels with at least one covered sample.
        pub pixels: u64,
        /// Colour slots written (k > 0).
        pub slots: u64,
        /// Slots with 0 < k < g (partial coverage: antialiased edges).
        pub partial_slots: u64,
    }
}

#[inline]
fn div_round(sum: u32, n: u32) -> u8 {
    ((2 * sum + n) / (2 * n)) as u8
}

/// Resolve one pixel: `samples[i]` is sample i's colour if covered. Writes C slots into `out`
/// (entries beyond C untouched) and returns C.
pub fn resolve_pixel(
    cfg: &Config,
    samples: &[Option<Rgba>],
    out: &mut [Option<Rgba>; 16],
    st: &mut PixelStats,
) -> usize {
    let s = cfg.msaa as usize;
    let c = cfg.colours_per_pixel as usize;
    debug_assert_eq!(samples.len(), s);
    let g = if c <= s { s / c } else { 1 };
    let mut any = false;
    for (j, slot) in out.iter_mut().enumerate().take(c) {
        let first = if c <= s { j * g } else { j * s / c };
        let (mut k, mut sum) = (0u32, [0u32; 4]);
        for smp in samples[first..first + g].iter().flatten() {
            k += 1;
            for ch in 0..4 {
                sum[ch] += smp[ch] as u32;
            }
        }
        if k == 0 {
            *slot = None;
            continue;
        }
        any = true;
        st.slots += 1;
        if (k as usize) < g {
            st.partial_slots += 1;
        }
        *slot = Some([
            div_round(sum[0], k),
            div_round(sum[1], k),
            div_round(sum[2], k),
            div_round(sum[3], g as u32),
        ]);
    }
    if any {
        st.pixels += 1;
    }
    c
}

// ---------------------------------------------------------------------------------------------
// Port-level cycle model (the RTL block `hw/src/pixel_processor.rs`).

pub use hw_model::*;

mod hw_model {
    //! The pixel processor as hardware builds it: one pixel per beat in ([`PixSamples`]: S
    //! sample colours and the covered mask), its C slots out ([`PixSlots`]), every register
    //! of `hw/src/pixel_processor.rs` mirrored stage by stage. The arithmetic is the block's:
    //! an adder tree over the sample lanes and a reciprocal-multiply divider ([`div_round_hw`]),
    //! proved equal to [`resolve_pixel`]'s `div_round` for every input it can see
    //! (`tests/pixel_processor_cycle.rs`, exhaustive).
    //!
    //! ```text
    //!  pixel ─► [E0 leaves: mask, lane enable,  ─► [E1]─►[E2]─►[E3]─►[E4] ─► [E5 per slot j:  ─► [E6 out: q_c = k=1 ? M_c
    //!           C > S spread: leaf j = sample       adder tree, 16 nodes/level:   M_c = Σ_c + ⌊k/2⌋,         : (M_c·R) >> 16,
    //!           j·S/C; uncovered → 0]               level l ≤ log2 g: node i =    R = recip(k) (ROM),         slot_valid, packed]
    //!                                               n[2i] + n[2i+1], else n[i]    a = (Σ_a + ⌊g/2⌋) >> log2 g]
    //! ```

    use super::*;
    use crate::cycle::CycleModel;
    use std::collections::VecDeque;

    /// Register stages from the input to the output register inclusive (E0 … E6): a pixel
    /// accepted at edge t is on the output from cycle t + [`STAGES`] without stalls.
    pub const STAGES: usize = 7;
    /// Add levels of the tree (enough for g = 16); levels above log2 g pass their node through.
    pub const TREE_LEVELS: usize = 4;
    /// Sample lanes of a beat (the largest S) and slots of the output (the largest C).
    pub const PIX_LANES: usize = 16;
    /// Fraction bits of the reciprocal: `R[k] = ⌈2^16 / k⌉` (k = 2..16 fit 16 bits).
    pub const RECIP_SHIFT: u32 = 16;

    /// The reciprocal ROM of the divider: `⌈2^16 / k⌉` for k = 2..=16; 0 for k = 0 and k = 1
    /// (k = 1 bypasses the multiplier).
    pub fn recip(k: u32) -> u32 {
        if k < 2 {
            0
        } else {
            (1u32 << RECIP_SHIFT).div_ceil(k)
        }
    }

    /// `round(sum / k)` with ties up, `(2·sum + k) / (2·k)`, as the block computes it:
    /// `M = sum + ⌊k/2⌋`, then `M` itself for k = 1, else `(M · R[k]) >> 16` (a 12 × 16-bit
    /// product). Exact for every `sum ≤ 255·k`, k = 1..=16 (the exhaustive test in
    /// `tests/pixel_processor_cycle.rs`); k = 0 gives 0.
    pub fn div_round_hw(sum: u32, k: u32) -> u8 {
        let m = sum + k / 2;
        if k == 1 {
            m as u8
        } else {
            ((m * recip(k)) >> RECIP_SHIFT) as u8
        }
    }

    /// RGBA8 packed little endian (R in bits 7..0).
    pub fn pack(c: Rgba) -> u32 {
        u32::from_le_bytes(c)
    }

    /// Parameters of the block: S, C and what follows from them.
    #[derive(Clone, Copy, Debug, PartialEq, Eq)]
    pub struct PixelGeom {
        /// Samples per pixel S.
        pub s: u32,
        /// Colours per pixel C.
        pub c: u32,
        /// Samples per slot g (S / C, or 1 when C > S).
        pub g: u32,
        /// log2 g: the tree levels that add.
        pub levels: u32,
        /// log2 (C / S) when C > S, else 0: leaf j takes sample j >> spread.
        pub spread: u32,
    }

    impl PixelGeom {
        /// The parameters of `cfg`, or the config's own error: every S, C of a valid config
        /// (1, 2, 4, 8, 16 each) is built.
        pub fn new(cfg: &Config) -> Result<PixelGeom, String> {
            cfg.validate().map_err(|e| e.to_string())?;
            let (s, c) = (cfg.msaa, cfg.colours_per_pixel);
            let g = if c <= s { s / c } else { 1 };
            Ok(PixelGeom {
                s,
                c,
                g,
                levels: g.trailing_zeros(),
                spread: if c > s { (c / s).trailing_zeros() } else { 0 },
            })
        }

        /// Leaves of the tree that carry a sample: j < max(S, C).
        pub fn leaves(&self) -> u32 {
            self.s.max(self.c)
        }
    }

    /// One pixel through the block's arithmetic: the output payload and, per slot, the covered
    /// count k (0 for slots ≥ C).
    pub fn resolve_hw(g: &PixelGeom, p: &PixSamples) -> (PixSlots, [u32; PIX_LANES]) {
        // E0: leaves.
        let mut node = [([0u32; 4], 0u32); PIX_LANES];
        for (j, n) in node.iter_mut().enumerate().take(g.leaves() as usize) {
            let i = j >> g.spread;
            if p.mask >> i & 1 == 1 {
                let c = p.colour[i].to_le_bytes();
                *n = (c.map(u32::from), 1);
            }
        }
        // E1..E4: the tree.
        for l in 0..TREE_LEVELS as u32 {
            if l < g.levels {
                let mut next = [([0u32; 4], 0u32); PIX_LANES];
                for (i, nx) in next.iter_mut().enumerate().take(PIX_LANES / 2) {
                    let (a, b) = (node[2 * i], node[2 * i + 1]);
                    *nx = ([0, 1, 2, 3].map(|c| a.0[c] + b.0[c]), a.1 + b.1);
                }
                node = next;
            }
        }
        // E5, E6: divide, pack.
        let mut out = PixSlots {
            x: p.x,
            y: p.y,
            ..PixSlots::default()
        };
        let mut ks = [0u32; PIX_LANES];
        for j in 0..g.c as usize {
            let (sum, k) = node[j];
            ks[j] = k;
            if k == 0 {
                continue;
            }
            out.slot_valid |= 1 << j;
            let a = (sum[3] + g.g / 2) >> g.levels;
            out.colour[j] = pack([
                div_round_hw(sum[0], k),
                div_round_hw(sum[1], k),
                div_round_hw(sum[2], k),
                a as u8,
            ]);
        }
        (out, ks)
    }

    /// Cycle model of `hw/src/pixel_processor.rs` (In = [`PixSamples`], Out = [`PixSlots`]).
    ///
    /// # Timing contract
    ///
    /// The one statement of the pixel processor block's timing; the RTL is held to it on every
    /// port and cycle (`hw/tests/pixel_processor.rs`, `cosim/tests/pixel_processor.rs`).
    /// Any S = `msaa`, C = `colours_per_pixel` of a valid config.
    ///
    /// * **Registers.** [`STAGES`] = 7 stages E0 … E6, each a valid bit and its payload; E6 is
    ///   the output register: `out_valid` = E6's valid, `out` = its payload. An empty stage's
    ///   payload is zero (bubbles carry zeros all the way: x = y = 0, no slot, colours 0).
    /// * **Advance.** `adv` = ¬out_valid ∨ out_ready. With `adv` every stage loads the one
    ///   before it and E0 loads the offered pixel if `in_valid`, else a bubble; without `adv`
    ///   nothing moves (the whole pipeline stalls, bubbles are not squeezed out).
    /// * **Handshake.** `in_ready` = `adv` (the only combinational input → output path).
    /// * **Latency.** A pixel accepted at edge t is on the output from cycle t + 7 when `adv`
    ///   holds in cycles t + 1 … t + 6; every cycle without `adv` in that window adds one.
    /// * **Throughput.** One pixel per cycle; one output beat per input beat, in input order
    ///   (a pixel with no covered sample leaves as a beat with `slot_valid` = 0).
    /// * **Payload.** x, y passed through; slot j < C valid iff k_j > 0, its colour
    ///   [`resolve_pixel`]'s slot j, packed RGBA8; slots ≥ C and empty slots read 0.
    /// * **Flush.** Every register returns to the state of [`PixelProcessorCycle::new`].
    /// * **Idle.** `idle` = every stage's valid bit (E0 … E6) low ([`PixelProcessorCycle::idle`]).
    ///
    /// **Against the transaction model**: the slots are `resolve_pixel`'s for the pixel's
    /// `Option<Rgba>` samples (uncovered = `None`), and [`PixelProcessorCycle::stats`] equals
    /// its [`PixelStats`] over the accepted pixels (counted at acceptance).
    #[derive(Clone, Debug, PartialEq)]
    pub struct PixelProcessorCycle {
        g: PixelGeom,
        /// E0 first; the last is the output register.
        stages: VecDeque<Option<PixSlots>>,
        stats: PixelStats,
    }

    impl PixelProcessorCycle {
        /// Idle block.
        ///
        /// # Panics
        /// If [`PixelGeom::new`] refuses the config.
        pub fn new(cfg: &Config) -> PixelProcessorCycle {
            PixelProcessorCycle::with_geom(PixelGeom::new(cfg).unwrap_or_else(|e| panic!("{e}")))
        }

        /// Idle block for `g`.
        pub fn with_geom(g: PixelGeom) -> PixelProcessorCycle {
            PixelProcessorCycle {
                g,
                stages: (0..STAGES).map(|_| None).collect(),
                stats: PixelStats::default(),
            }
        }

        /// The parameters.
        pub fn geom(&self) -> &PixelGeom {
            &self.g
        }

        /// Counters of the accepted pixels ([`resolve_pixel`]'s [`PixelStats`]).
        pub fn stats(&self) -> PixelStats {
            self.stats
        }

        fn out_valid(&self) -> bool {
            self.stages.back().is_some_and(Option::is_some)
        }

        /// Nothing held: every stage's valid bit low (a function of the registers only).
        pub fn idle(&self) -> bool {
            self.stages.iter().all(Option::is_none)
        }
    }

    impl CycleModel for PixelProcessorCycle {
        type In = PixSamples;
        type Out = PixSlots;

        fn out(&self) -> (bool, PixSlots) {
            match self.stages.back() {
                Some(Some(p)) => (true, *p),
                _ => (false, PixSlots::default()),
            }
        }

        fn in_ready(&self, out_ready: bool) -> bool {
            !self.out_valid() || out_ready
        }

        fn clock(&mut self, in_valid: bool, inp: &PixSamples, out_ready: bool, flush: bool) {
            if flush {
                *self = PixelProcessorCycle::with_geom(self.g);
                return;
            }
            if !self.in_ready(out_ready) {
                return;
            }
            debug_assert!(inp.x < 1 << 12 && inp.y < 1 << 12);
            let entry = in_valid.then(|| {
                let (out, ks) = resolve_hw(&self.g, inp);
                let mut any = false;
                for &k in &ks[..self.g.c as usize] {
                    if k > 0 {
                        any = true;
                        self.stats.slots += 1;
                        if k < self.g.g {
                            self.stats.partial_slots += 1;
                        }
                    }
                }
                self.stats.pixels += any as u64;
                out
            });
            self.stages.pop_back();
            self.stages.push_front(entry);
        }
    }
}

crate::cycle_model_signature! {
    /// pixel_processor's ports: one pixel's samples in, its colour slots out.
    pub PixelProcessor "pixel_processor" for PixelProcessorCycle: PixSamples -> PixSlots, idle
}

#[cfg(test)]
mod tests {
    use super::*;

    fn cfg(s: u32, c: u32) -> Config {
        let mut k = Config::preset("default").unwrap();
        k.msaa = s;
        k.colours_per_pixel = c;
        k.colour_block_bytes = 4096;
        k
    }

    #[test]
    fn coverage_ratio_scales_alpha() {
        // 4 samples, 1 colour: 3 of 4 covered by opaque red → alpha round(3·255/4) = 191.
        let c = cfg(4, 1);
        let red = Some([255, 0, 0, 255]);
        let mut out = [None; 16];
        let mut st = PixelStats::default();
        assert_eq!(resolve_pixel(&c, &[red, red, None, red], &mut out, &mut st), 1);
        assert_eq!(out[0], Some([255, 0, 0, 191]));
        assert_eq!(
            st,
            PixelStats {
                pixels: 1,
                slots: 1,
                partial_slots: 1
            }
        );
    }

    #[test]
    fn colours_independent_of_samples() {
        // 4 samples, 2 colours: slot 0 = samples 0,1; slot 1 = samples 2,3.
        let c = cfg(4, 2);
        let a = Some([100, 0, 0, 255]);
        let b = Some([0, 200, 0, 255]);
        let mut out = [None; 16];
        let mut st = PixelStats::default();
        resolve_pixel(&c, &[a, b, None, None], &mut out, &mut st);
        // slot 0: mean(100,0)=50, mean(0,200)=100, alpha 255·2/2.
        assert_eq!(out[0], Some([50, 100, 0, 255]));
        assert_eq!(out[1], None);
        assert_eq!(
            st,
            PixelStats {
                pixels: 1,
                slots: 1,
                partial_slots: 0
            }
        );
        // More colours than samples: 2 samples, 4 colours → slots 0,1 ← sample 0; 2,3 ← sample 1.
        let c = cfg(2, 4);
        let mut st = PixelStats::default();
        assert_eq!(resolve_pixel(&c, &[a, None], &mut out, &mut st), 4);
        assert_eq!(&out[..4], &[a, a, None, None]);
        assert_eq!(st.slots, 2);
    }
}
