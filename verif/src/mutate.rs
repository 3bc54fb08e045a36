//! Byte-level mutations for the bounded fuzz tests (the scene parser in golden, the OBJ and
//! SVG importers in the CLI): a valid input with a few random edits, each an overwritten,
//! inserted or deleted byte, or a format-significant token spliced in. The tests draw the
//! edits (with proptest) as plain numbers; this module is what they mean.

/// One edit, drawn as `(kind, at, value)`: kind mod 4 picks overwrite byte `at` with `value`,
/// insert `value` before `at`, delete byte `at`, or splice `tokens[value]` in before `at`.
/// Positions wrap around the current length, so every draw is valid.
pub type Edit = (u8, usize, usize);

/// `text` with `edits` applied in order.
pub fn apply(text: &str, tokens: &[&str], edits: &[Edit]) -> Vec<u8> {
    let mut b = text.as_bytes().to_vec();
    for &(kind, i, v) in edits {
        let n = b.len();
        match kind % 4 {
            0 if n > 0 => b[i % n] = v as u8,
            1 => b.insert(i % (n + 1), v as u8),
            2 if n > 0 => {
                b.remove(i % n);
            }
            3 if !tokens.is_empty() => {
                let p = i % (n + 1);
                b.splice(p..p, tokens[v % tokens.len()].bytes());
            }
            _ => {}
        }
    }
    b
}

#[cfg(test)]
mod tests {
    use super::apply;

    #[test]
    fn each_edit_kind_does_what_it_says() {
        assert_eq!(apply("abc", &[], &[(0, 1, b'X' as usize)]), b"aXc");
        assert_eq!(apply("abc", &[], &[(1, 3, b'!' as usize)]), b"abc!");
        assert_eq!(apply("abc", &[], &[(2, 4, 0)]), b"ac");
        assert_eq!(apply("abc", &["<>"], &[(3, 0, 7)]), b"<>abc");
        assert_eq!(apply("", &[], &[(0, 5, 1), (2, 1, 0)]), b"", "no-ops on empty input");
    }
}
