//! Output merger (seed 000): assembles the per-tile results into the frame.
//!
//! The framebuffer holds C colour slots per pixel (`cfg.colours_per_pixel`), initialised to
//! the background. The blender's outputs land in their slots; at the end each pixel's colour
//! is the rounded mean of its C slots, and the image is written with row 0 at the top (the
//! window is y-up, image files are y-down).
//!
//! ```text
//!   blender (pos = pixel·C + slot, RGBA) ──► framebuffer [W·H·C] ──► mean of C ──► Image
//! ```
//!
//! **Framebuffer in memory.** The framebuffer lives at byte address 0 of the pixel side's
//! memory ([`crate::memory_port`]): slot `pos` is the little-endian word at [`slot_addr`]`(pos)
//! = 4·pos`, bytes R, G, B, A from the lowest address (the packed RGBA8 of the streams:
//! R in bits 7..0). [`OutputMerger::memory`] gives those bytes; [`image_from_memory`] reads an
//! image back from them, as [`OutputMerger::finish`] does from the slots.
//!
//! **Cycle model.** [`OutputMergerCycle`] is the write path as the RTL block builds it:
//! blender beats in, one memory write per result out.

use crate::config::Config;
use crate::cycle::CycleModel;
use crate::memory_port::SparseMemory;
use crate::prim::Rgba;
use crate::streams::{BlendBeat, MemReq, LANES};

/// An RGBA8 image, row 0 at the top (as image files want it).
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct Image {
    pub width: u32,
    pub height: u32,
    pub rgba: Vec<u8>,
}

/// Byte address of framebuffer slot `pos` (framebuffer at address 0, one 4-byte word per slot).
pub fn slot_addr(pos: u32) -> u32 {
    4 * pos
}

/// Merge `c` slots per pixel (`slot(pos)`) of a `w`×`h` framebuffer and flip to a top-down image.
fn resolve(w: u32, h: u32, c: u32, slot: impl Fn(usize) -> Rgba) -> Image {
    let (wu, hu, cu) = (w as usize, h as usize, c as usize);
    let mut rgba = vec![0u8; wu * hu * 4];
    for y in 0..hu {
        for x in 0..wu {
            let base = (y * wu + x) * cu;
            let mut sum = [0u32; 4];
            for j in 0..cu {
                let s = slot(base + j);
                for ch in 0..4 {
                    sum[ch] += s[ch] as u32;
                }
            }
            let o = ((hu - 1 - y) * wu + x) * 4;
            for ch in 0..4 {
                rgba[o + ch] = ((2 * sum[ch] + c) / (2 * c)) as u8;
            }
        }
    }
    Image {
        width: w,
        height: h,
        rgba,
    }
}

/// The image that framebuffer bytes `mem` ([`slot_addr`] layout) hold for `cfg`: what
/// [`OutputMerger::finish`] gives for the same slots.
pub fn image_from_memory(cfg: &Config, mem: &SparseMemory) -> Image {
    let [w, h] = cfg.viewport;
    resolve(w, h, cfg.colours_per_pixel, |pos| {
        mem.read(slot_addr(pos as u32)).to_le_bytes()
    })
}

/// Bits of a slot position id ([`OutputMerger::pos`], `(y·W + x)·C + j`) for `cfg`: enough
/// for every slot below W·H·C (at least 1). The blender's RTL stores positions this wide.
pub fn pos_bits(cfg: &Config) -> u32 {
    let [w, h] = cfg.viewport;
    let slots = u64::from(w) * u64::from(h) * u64::from(cfg.colours_per_pixel);
    (64 - slots.saturating_sub(1).leading_zeros()).max(1)
}

/// Slot position id of pixel (x, y), slot j, in `cfg`'s framebuffer: `(y·W + x)·C + j`, as
/// [`OutputMerger::pos`] gives it, without the framebuffer.
pub fn slot_pos(cfg: &Config, x: u32, y: u32, j: u32) -> u32 {
    (y * cfg.viewport[0] + x) * cfg.colours_per_pixel + j
}

/// The framebuffer with C colours per pixel.
pub struct OutputMerger {
    w: u32,
    h: u32,
    c: u32,
    slots: Vec<Rgba>,
    /// Bytes written into the framebuffer (4 per slot write).
    pub bytes_written: u64,
}

impl OutputMerger {
    pub fn new(cfg: &Config, background: Rgba) -> Self {
        let [w, h] = cfg.viewport;
        let c = cfg.colours_per_pixel;
        OutputMerger {
            w,
            h,
            c,
            slots: vec![background; (w * h * c) as usize],
            bytes_written: 0,
        }
    }

    /// Slot position id of pixel (x, y), slot j: `(y·W + x)·C + j`.
    pub fn pos(&self, x: u32, y: u32, j: u32) -> u32 {
        (y * self.w + x) * self.c + j
    }

    /// Write one slot by position id.
    pub fn write(&mut self, pos: u32, rgba: Rgba) {
        self.slots[pos as usize] = rgba;
        self.bytes_written += 4;
    }

    /// Read one slot by position id.
    pub fn read(&self, pos: u32) -> Rgba {
        self.slots[pos as usize]
    }

    /// Merge C slots per pixel and flip to a top-down image.
    pub fn finish(&self) -> Image {
        resolve(self.w, self.h, self.c, |pos| self.slots[pos])
    }

    /// The framebuffer's bytes in memory ([`slot_addr`] layout), every slot (background where
    /// nothing was written): what the memory behind the RTL's port holds at the end of a frame
    /// whose framebuffer was cleared to the background.
    pub fn memory(&self) -> SparseMemory {
        let mut m = SparseMemory::new();
        for (pos, s) in self.slots.iter().enumerate() {
            m.write(slot_addr(pos as u32), u32::from_le_bytes(*s), 0xf);
        }
        m
    }
}

/// Counters of [`OutputMergerCycle`].
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq)]
pub struct MergerCycleStats {
    /// Beats accepted (empty ones included).
    pub beats: u64,
    /// Framebuffer writes issued (one per valid slot).
    pub writes: u64,
    /// Cycles with a write on the output not taken (memory back-pressure).
    pub stalled: u64,
}

/// The output merger's write path, cycle by cycle: blender beats ([`BlendBeat`]) in, one
/// framebuffer write ([`MemReq`]) per valid slot out, in slot order 0..4.
///
/// # Timing contract
///
/// The one statement of the `output_merger` block's timing; the RTL is held to it on every
/// port and cycle (`hw/tests/output_merger.rs`, `cosim/tests/output_merger.rs`).
///
/// * **Registers.** `hold`: the beat being written (its remaining slot mask, positions and
///   colours); the output register: `out_valid` and one [`MemReq`].
/// * **Advance.** `adv` = ¬out_valid ∨ out_ready. In an `adv` cycle the lowest remaining slot
///   `l` of `hold` is loaded into the output register (`addr` = [`slot_addr`]`(pos[l])`,
///   `write` = 1, `wdata` = `colour[l]`, `be` = 0xf) and leaves `hold`; with none remaining,
///   `out_valid` ← 0 and the payload keeps its value. Without `adv` nothing moves.
/// * **Handshake.** `in_ready` = `hold` empty ∨ (one slot remaining ∧ `adv`): a beat is taken
///   at the edge where its predecessor's last slot leaves, and replaces `hold` whole. A beat
///   with no valid slot is taken and writes nothing.
/// * **Latency and throughput.** A beat accepted at edge t has its first write on the output
///   from cycle t + 2, one per cycle after that without back-pressure; beats of n ≥ 1 slots
///   follow each other with no bubble (n cycles each), an empty beat costs one cycle of input.
/// * **Payload when not valid.** The last write's (0 after `new` or a flush).
/// * **Flush.** Every register returns to the state of [`OutputMergerCycle::new`].
/// * **Idle.** `idle` = `hold` has no slot remaining ∧ ¬`out_valid`
///   ([`OutputMergerCycle::idle`]).
///
/// The writes are the transaction model's [`OutputMerger::write`]s in stream order, so the
/// memory after them holds [`OutputMerger::memory`] (`tests/output_merger_cycle.rs`).
#[derive(Clone, Debug, Default)]
pub struct OutputMergerCycle {
    hold: BlendBeat,
    out_valid: bool,
    out: MemReq,
    stats: MergerCycleStats,
}

impl OutputMergerCycle {
    pub fn new() -> Self {
        Self::default()
    }

    /// Counters so far.
    pub fn stats(&self) -> MergerCycleStats {
        self.stats
    }

    /// Nothing held: no slot remaining in `hold` and no write on the output (registers only).
    pub fn idle(&self) -> bool {
        self.hold.lane_valid & 0xf == 0 && !self.out_valid
    }
}

impl CycleModel for OutputMergerCycle {
    type In = BlendBeat;
    type Out = MemReq;

    fn out(&self) -> (bool, MemReq) {
        (self.out_valid, self.out)
    }

    fn in_ready(&self, out_ready: bool) -> bool {
        let adv = !self.out_valid || out_ready;
        let left = (self.hold.lane_valid & 0xf).count_ones();
        left == 0 || (left == 1 && adv)
    }

    fn clock(&mut self, in_valid: bool, inp: &BlendBeat, out_ready: bool, flush: bool) {
        if flush {
            *self = Self::new();
            return;
        }
        let adv = !self.out_valid || out_ready;
        let take = in_valid && self.in_ready(out_ready);
        if self.out_valid && !out_ready {
            self.stats.stalled += 1;
        }
        if adv {
            let m = self.hold.lane_valid & 0xf;
            if m == 0 {
                self.out_valid = false;
            } else {
                let l = m.trailing_zeros() as usize;
                debug_assert!(l < LANES);
                self.out = MemReq {
                    addr: slot_addr(self.hold.pos[l]),
                    write: true,
                    wdata: self.hold.colour[l],
                    be: 0xf,
                };
                self.out_valid = true;
                self.hold.lane_valid = m & !(1 << l);
                self.stats.writes += 1;
            }
        }
        if take {
            self.hold = *inp;
            self.hold.lane_valid &= 0xf;
            self.stats.beats += 1;
        }
    }
}

crate::cycle_model_signature! {
    /// output_merger's ports: blended batches in, framebuffer writes out on the memory port.
    pub OutputMerger "output_merger" for OutputMergerCycle: BlendBeat -> MemReq, idle
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn position_bits_cover_every_slot() {
        let bits = |p: &str| pos_bits(&Config::preset(p).unwrap());
        // 640·480 = 307 200 slots < 2^19; 160·120 = 19 200 < 2^15; 1920·1080·4 < 2^23.
        assert_eq!((bits("default"), bits("ice40"), bits("full")), (19, 15, 23));
        for p in crate::config::PRESETS {
            let cfg = Config::preset(p).unwrap();
            let [w, h] = cfg.viewport;
            let m = OutputMerger::new(&cfg, [0; 4]);
            let last = m.pos(w - 1, h - 1, cfg.colours_per_pixel - 1);
            assert!(u64::from(last) < 1 << pos_bits(&cfg), "{p}");
            assert!(u64::from(last) >= 1 << (pos_bits(&cfg) - 1), "{p}");
        }
    }

    #[test]
    fn flips_and_averages() {
        let mut cfg = Config::preset("ice40").unwrap();
        cfg.colours_per_pixel = 2;
        cfg.colour_block_bytes = 1024;
        let mut m = OutputMerger::new(&cfg, [0, 0, 0, 255]);
        // Bottom-left pixel, slot 1 white: mean of black and white = 128 (round half up).
        let p = m.pos(0, 0, 1);
        m.write(p, [255, 255, 255, 255]);
        assert_eq!(m.bytes_written, 4);
        let img = m.finish();
        let h = cfg.viewport[1] as usize;
        let w = cfg.viewport[0] as usize;
        let o = (h - 1) * w * 4; // last row of the image = y 0
        assert_eq!(&img.rgba[o..o + 4], &[128, 128, 128, 255]);
        assert_eq!(&img.rgba[0..4], &[0, 0, 0, 255]);
    }
}
