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

use crate::config::Config;
use crate::pipeline::Image;
use crate::prim::Rgba;

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
        let (w, h, c) = (self.w as usize, self.h as usize, self.c as usize);
        let mut rgba = vec![0u8; w * h * 4];
        for y in 0..h {
            for x in 0..w {
                let base = (y * w + x) * c;
                let mut sum = [0u32; 4];
                for s in &self.slots[base..base + c] {
                    for ch in 0..4 {
                        sum[ch] += s[ch] as u32;
                    }
                }
                let o = ((h - 1 - y) * w + x) * 4;
                for ch in 0..4 {
                    rgba[o + ch] = ((2 * sum[ch] + c as u32) / (2 * c as u32)) as u8;
                }
            }
        }
        Image {
            width: self.w,
            height: self.h,
            rgba,
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;

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
