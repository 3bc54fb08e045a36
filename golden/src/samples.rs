//! Standard sample positions (SPEC §2), in 1/16 pixel from the pixel's bottom-left corner,
//! y up. Sample i of pixel (x, y) is at (x + X_i/16, y + Y_i/16) and is mask bit i.

const S1: [(u8, u8); 1] = [(8, 8)];
const S2: [(u8, u8); 2] = [(12, 12), (4, 4)];
const S4: [(u8, u8); 4] = [(6, 2), (14, 6), (2, 10), (10, 14)];
const S8: [(u8, u8); 8] = [(9, 5), (7, 11), (13, 9), (5, 3), (3, 13), (1, 7), (11, 15), (15, 1)];
const S16: [(u8, u8); 16] = [
    (9, 9),
    (7, 5),
    (5, 10),
    (12, 7),
    (3, 6),
    (10, 13),
    (13, 11),
    (11, 3),
    (6, 14),
    (8, 1),
    (4, 2),
    (2, 12),
    (0, 8),
    (15, 4),
    (14, 15),
    (1, 0),
];

/// Sample offsets for `msaa` samples per pixel (1, 2, 4, 8 or 16), in 1/16 pixel.
///
/// # Panics
/// On any other rate; [`crate::Config::validate`] rejects those first.
pub fn offsets(msaa: u32) -> &'static [(u8, u8)] {
    match msaa {
        1 => &S1,
        2 => &S2,
        4 => &S4,
        8 => &S8,
        16 => &S16,
        _ => panic!("unsupported MSAA rate {msaa}"),
    }
}

/// Sample offsets in 1/256 pixel (the fixed-point unit of positions).
pub fn offsets_fx(msaa: u32) -> Vec<(i32, i32)> {
    offsets(msaa)
        .iter()
        .map(|&(x, y)| (x as i32 * 16, y as i32 * 16))
        .collect()
}

/// All-ones mask for one pixel.
pub fn pixel_full_mask(msaa: u32) -> u16 {
    if msaa == 16 {
        0xffff
    } else {
        ((1u32 << msaa) - 1) as u16
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    #[test]
    fn positions_are_distinct_and_inside_the_pixel() {
        for s in [1, 2, 4, 8, 16] {
            let o = offsets(s);
            assert_eq!(o.len(), s as usize);
            for (i, a) in o.iter().enumerate() {
                assert!(a.0 < 16 && a.1 < 16);
                for b in &o[i + 1..] {
                    assert_ne!(a, b);
                }
            }
            assert_eq!(pixel_full_mask(s).count_ones(), s);
        }
    }
}
