//! The frame top's on-chip RAM, block by block: every RAM array its RTL declares, with the
//! words and widths `hw` builds it with (`hw/tests/ram_bits.rs` counts the same arrays in the
//! emitted Verilog, instance by instance, and must find exactly these), their total, and the
//! budget a frame top must fit: the ECP5-85F's block RAM less a board top's share.
//!
//! ```text
//!  block             RAM                       words            bits per word
//!  binner            list state                2^⌈log2 T1⌉      114 (head, tail, count, off, 2 flags)
//!  pixel_info_write  list state                2^⌈log2 T2⌉      114
//!  shading_sort      X (depth, prim) × S banks P                46 (valid, depth 24, prim 21)
//!                    Y, Z (sort buffers)       N = P·S          37 (prim 21, pixel 16)
//!                    H (histogram)             D = 2^d          17 (epoch, count 16)
//!                    C (colours) × S banks     P                33 (valid, RGBA8)
//!  colour_buffer     two banks                 2·2^⌈log2 B⌉     24 + C + 32·C (x, y, slot bits, colours)
//! ```
//!
//! T1, T2: first and second tiles of the viewport; P = pixels of a second tile; B = the colour
//! buffer's words per bank ([`crate::colour_buffer::BufferLayout::bank_words`]). Register files
//! (the FIFOs) are flip-flops, not RAM, and are not counted.

use crate::config::Config;

/// One RAM array of a block: `count` copies of `words` × `width` bits.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct Ram {
    pub block: &'static str,
    pub name: &'static str,
    pub count: u32,
    pub words: u64,
    pub width: u32,
}

impl Ram {
    /// Bits of all its copies.
    pub fn bits(&self) -> u64 {
        self.count as u64 * self.words * self.width as u64
    }
}

/// The ECP5-85F's block RAM: 208 EBRs of 18 Kibit.
pub const ECP5_85F_RAM_BITS: u64 = 208 * 18 * 1024;

/// What a frame top leaves of it for a board top (issue 35: a scan-out line buffer, the SDRAM
/// controller's FIFOs, the UART): 14 EBRs, 252 Kibit.
pub const BOARD_TOP_RAM_BITS: u64 = 14 * 18 * 1024;

/// The most on-chip RAM a frame top may declare ([`check_frame_ram`]).
pub const FRAME_RAM_BUDGET_BITS: u64 = ECP5_85F_RAM_BITS - BOARD_TOP_RAM_BITS;

/// Bits of a list writer's state word (`hw/src/list_writer.rs`, `StateRam`): head, tail and
/// count (32 bits each), the chunk offset (16) and the flags `nz` and `full`.
pub const LIST_STATE_BITS: u32 = 3 * 32 + 16 + 2;

fn pow2_words(n: u64) -> u64 {
    n.max(2).next_power_of_two()
}

/// The frame top's RAM arrays for `cfg`, in pipeline order (`cfg` as the frame top accepts it).
pub fn frame_rams(cfg: &Config) -> Vec<Ram> {
    let t1 = cfg.tiles();
    let [sw, sh] = cfg.second_tile;
    let t2 = [cfg.viewport[0].div_ceil(sw), cfg.viewport[1].div_ceil(sh)];
    let p = (sw * sh) as u64;
    let s = cfg.msaa;
    let c = cfg.colours_per_pixel;
    let cb = crate::colour_buffer::BufferLayout::new(cfg);
    use crate::shading_sort::{C_WORD_BITS, H_WORD_BITS, X_WORD_BITS, Y_WORD_BITS};
    let ram = |block, name, count, words, width| Ram {
        block,
        name,
        count,
        words,
        width,
    };
    vec![
        ram(
            "binner",
            "list state",
            1,
            pow2_words((t1[0] * t1[1]) as u64),
            LIST_STATE_BITS,
        ),
        ram(
            "pixel_info_write",
            "list state",
            1,
            pow2_words((t2[0] * t2[1]) as u64),
            LIST_STATE_BITS,
        ),
        ram("shading_sort", "X", s, p, X_WORD_BITS),
        ram("shading_sort", "Y, Z", 2, p * s as u64, Y_WORD_BITS),
        ram(
            "shading_sort",
            "H",
            1,
            1 << crate::shading_sort::tile_digit_bits(cfg),
            H_WORD_BITS,
        ),
        ram("shading_sort", "C", s, p, C_WORD_BITS),
        ram(
            "colour_buffer",
            "two banks",
            1,
            2 * (cb.bank_words.max(1) as u64).next_power_of_two(),
            24 + c + 32 * c,
        ),
    ]
}

/// Total bits of [`frame_rams`].
pub fn frame_ram_bits(cfg: &Config) -> u64 {
    frame_rams(cfg).iter().map(Ram::bits).sum()
}

/// The frame top's RAM per block, in pipeline order: (block, bits).
pub fn frame_ram_by_block(cfg: &Config) -> Vec<(&'static str, u64)> {
    let mut out: Vec<(&'static str, u64)> = Vec::new();
    for r in frame_rams(cfg) {
        match out.last_mut() {
            Some((b, bits)) if *b == r.block => *bits += r.bits(),
            _ => out.push((r.block, r.bits())),
        }
    }
    out
}

fn mbit(bits: u64) -> String {
    format!("{:.2} Mbit", bits as f64 / 1e6)
}

/// `Ok` when the frame top's RAM for `cfg` fits [`FRAME_RAM_BUDGET_BITS`], else the one line
/// naming `second_tile` (the pixel side's local memory is sized by it, SPEC §1, and `msaa`
/// with it), the total, the largest blocks and the budget.
pub fn check_frame_ram(cfg: &Config) -> Result<(), String> {
    let total = frame_ram_bits(cfg);
    if total <= FRAME_RAM_BUDGET_BITS {
        return Ok(());
    }
    let mut blocks = frame_ram_by_block(cfg);
    blocks.sort_by_key(|b| std::cmp::Reverse(b.1));
    let list: Vec<String> = blocks
        .iter()
        .take(3)
        .map(|(b, bits)| format!("{b} {}", mbit(*bits)))
        .collect();
    Err(format!(
        "config.second_tile: {}x{} at {}x MSAA needs {} of on-chip RAM in the frame top ({}), over its budget of {} \
         (the ECP5-85F's {} less {} for a board top); a smaller second_tile or msaa fits",
        cfg.second_tile[0],
        cfg.second_tile[1],
        cfg.msaa,
        mbit(total),
        list.join(", "),
        mbit(FRAME_RAM_BUDGET_BITS),
        mbit(ECP5_85F_RAM_BITS),
        mbit(BOARD_TOP_RAM_BITS)
    ))
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::{Config, PRESETS};

    /// Every preset's frame top fits; `full` at the other presets' 64x32 second tile does not,
    /// and the refusal is one line naming `second_tile` with the figures; at 1x it fits again.
    #[test]
    fn presets_fit_and_a_second_tile_too_large_is_refused_by_name() {
        for p in PRESETS {
            let cfg = Config::preset(p).unwrap();
            check_frame_ram(&cfg).unwrap_or_else(|e| panic!("{p}: {e}"));
            let by_block = frame_ram_by_block(&cfg);
            assert_eq!(by_block.iter().map(|b| b.1).sum::<u64>(), frame_ram_bits(&cfg));
            assert_eq!(by_block.len(), 4, "{p}: {by_block:?}");
        }
        let mut cfg = Config::preset("full").unwrap();
        cfg.second_tile = [64, 32];
        let e = check_frame_ram(&cfg).unwrap_err();
        assert!(
            e.starts_with("config.second_tile: 64x32 at 16x MSAA needs 5.86 Mbit"),
            "{e}"
        );
        assert!(
            e.contains("shading_sort 5.05 Mbit") && e.contains("budget of 3.58 Mbit"),
            "{e}"
        );
        assert!(!e.contains('\n'));
        assert!(crate::frame::FrameCycle::supported(&cfg)
            .unwrap_err()
            .starts_with("config.second_tile:"));
        cfg.msaa = 1;
        check_frame_ram(&cfg).unwrap();
    }

    /// The budget: 208 EBRs of 18 Kibit less 14 for a board top.
    #[test]
    fn budget() {
        assert_eq!(ECP5_85F_RAM_BITS, 3_833_856);
        assert_eq!(FRAME_RAM_BUDGET_BITS, 3_575_808);
    }
}
