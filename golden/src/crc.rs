//! CRC-32 (IEEE 802.3, zlib's), fed bit by bit: the quad-mask CRC of the raster-core top's
//! RESULT ([`crate::protocol`]) and the display CRC of the video output
//! ([`crate::video_out`]) that the frame top's FRAME RESULT reports.

/// Running CRC-32 (IEEE 802.3, reflected polynomial 0xEDB88320, initial value all ones, final
/// complement) over a *bit* stream, least significant bit first. Over whole bytes it equals
/// zlib's `crc32`.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct Crc32(pub u32);

impl Default for Crc32 {
    fn default() -> Self {
        Crc32(0xffff_ffff)
    }
}

impl Crc32 {
    /// Feed the low `n` bits of `v`, bit 0 first.
    pub fn bits(&mut self, v: u64, n: u32) {
        for i in 0..n {
            let b = (v >> i) as u32 & 1;
            let x = (self.0 ^ b) & 1;
            self.0 >>= 1;
            if x == 1 {
                self.0 ^= 0xEDB8_8320;
            }
        }
    }
    /// Feed whole bytes.
    pub fn bytes(&mut self, d: &[u8]) {
        for &b in d {
            self.bits(b as u64, 8);
        }
    }
    /// The CRC value (final complement applied).
    pub fn value(&self) -> u32 {
        !self.0
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn crc_matches_the_check_value() {
        // The standard CRC-32 check value of "123456789".
        let mut c = Crc32::default();
        c.bytes(b"123456789");
        assert_eq!(c.value(), 0xCBF4_3926);
        // Bit-wise feeding equals byte-wise feeding.
        let mut d = Crc32::default();
        d.bits(u64::from_le_bytes(*b"12345678"), 64);
        d.bits(b'9' as u64, 8);
        assert_eq!(d.value(), 0xCBF4_3926);
    }
}
