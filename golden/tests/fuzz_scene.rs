//! Bounded fuzzing of the scene parser and front end: arbitrary bytes and mutated copies of
//! the shipped scenes must give `Ok` or a one-line `Err`, never a panic. 2000 cases per
//! target (a few seconds), so it runs in every CI test run.

use proptest::prelude::*;
use tilerast_golden::Scene;
use tilerast_verif::mutate;

const SEEDS: [&str; 3] = [
    include_str!("../../scenes/default.json"),
    include_str!("../../scenes/points.json"),
    include_str!("../../scenes/slivers.json"),
];

/// Parse and, when that succeeds, run the front end; every error is one line.
fn check(text: &str) {
    match Scene::from_json(text, "fuzz.json") {
        Ok(s) => {
            if let Err(e) = s.to_frame("fuzz.json") {
                assert_eq!(e.to_string().lines().count(), 1, "{e}");
            }
        }
        Err(e) => assert_eq!(e.to_string().lines().count(), 1, "{e}"),
    }
}

/// JSON-significant tokens the mutations splice in.
const TOKENS: [&str; 14] = [
    "[", "]", "{", "}", ",", ":", "\"", "1e400", "-0", "5e6", "null", "[]", "{}", "\u{feff}",
];

/// Random edits for `tilerast_verif::mutate::apply`.
fn edits() -> impl Strategy<Value = Vec<mutate::Edit>> {
    proptest::collection::vec((any::<u8>(), any::<usize>(), any::<usize>()), 1..6)
}

proptest! {
    #![proptest_config(ProptestConfig { cases: 2000, failure_persistence: None, ..ProptestConfig::default() })]

    #[test]
    fn arbitrary_bytes_never_panic(bytes in proptest::collection::vec(any::<u8>(), 0..256)) {
        check(&String::from_utf8_lossy(&bytes));
    }

    #[test]
    fn mutated_scenes_never_panic(seed in 0..SEEDS.len(), edits in edits()) {
        check(&String::from_utf8_lossy(&mutate::apply(SEEDS[seed], &TOKENS, &edits)));
    }
}

/// Found by `mutated_scenes_never_panic` (seed 2, one edit splicing an escaped newline into a
/// primitive's kind): names from the input are quoted with their escapes, so the message stays
/// one line for an unknown primitive, an unknown field and a duplicate key.
#[test]
fn names_with_escaped_newlines_stay_on_one_line() {
    let base = SEEDS[1];
    for (from, to) in [("\"point\"", "\"po\\nint\""), ("\"size\"", "\"si\\nze\"")] {
        let text = base.replacen(from, to, 1);
        assert_ne!(text, base, "{from} is in points.json");
        let e = Scene::from_json(&text, "fuzz.json").expect_err(to).to_string();
        assert_eq!(e.lines().count(), 1, "{e}");
        assert!(e.contains(to), "{e}");
    }
    let dup = base.replacen("{", "{\"a\\nb\": 1, \"a\\nb\": 2, ", 1);
    let e = Scene::from_json(&dup, "fuzz.json").unwrap_err().to_string();
    assert_eq!(e.lines().count(), 1, "{e}");
}
