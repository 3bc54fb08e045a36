//! Bounded fuzzing of the scene parser and front end: arbitrary bytes and mutated copies of
//! the shipped scenes must give `Ok` or a one-line `Err`, never a panic. 2000 cases per
//! target (a few seconds), so it runs in every CI test run.

use proptest::prelude::*;
use tilerast_golden::Scene;

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

/// One edit: overwrite, insert or delete a byte, or splice in a JSON-significant token.
#[derive(Clone, Debug)]
enum Edit {
    Set(usize, u8),
    Insert(usize, u8),
    Delete(usize),
    Token(usize, usize),
}

const TOKENS: [&str; 14] = [
    "[", "]", "{", "}", ",", ":", "\"", "1e400", "-0", "5e6", "null", "[]", "{}", "\u{feff}",
];

fn apply(text: &str, edits: &[Edit]) -> String {
    let mut b = text.as_bytes().to_vec();
    for e in edits {
        let at = |i: usize, len: usize| if len == 0 { 0 } else { i % (len + 1) };
        match *e {
            Edit::Set(i, v) if !b.is_empty() => {
                let n = b.len();
                b[i % n] = v;
            }
            Edit::Insert(i, v) => b.insert(at(i, b.len()), v),
            Edit::Delete(i) if !b.is_empty() => {
                let n = b.len();
                b.remove(i % n);
            }
            Edit::Token(i, t) => {
                let p = at(i, b.len());
                b.splice(p..p, TOKENS[t % TOKENS.len()].bytes());
            }
            _ => {}
        }
    }
    String::from_utf8_lossy(&b).into_owned()
}

fn edit() -> impl Strategy<Value = Edit> {
    prop_oneof![
        (any::<usize>(), any::<u8>()).prop_map(|(i, v)| Edit::Set(i, v)),
        (any::<usize>(), any::<u8>()).prop_map(|(i, v)| Edit::Insert(i, v)),
        any::<usize>().prop_map(Edit::Delete),
        (any::<usize>(), any::<usize>()).prop_map(|(i, t)| Edit::Token(i, t)),
    ]
}

proptest! {
    #![proptest_config(ProptestConfig { cases: 2000, failure_persistence: None, ..ProptestConfig::default() })]

    #[test]
    fn arbitrary_bytes_never_panic(bytes in proptest::collection::vec(any::<u8>(), 0..256)) {
        check(&String::from_utf8_lossy(&bytes));
    }

    #[test]
    fn mutated_scenes_never_panic(seed in 0..SEEDS.len(), edits in proptest::collection::vec(edit(), 1..6)) {
        check(&apply(SEEDS[seed], &edits));
    }
}
