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
