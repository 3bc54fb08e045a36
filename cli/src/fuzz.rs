//! Bounded fuzzing of the OBJ and SVG importers (unit tests only): arbitrary bytes and mutated
//! copies of the test fixtures must give `Ok` or a one-line `Err`, never a panic. 2000 cases
//! per target, a few seconds in all, so it runs in every CI test run. The scene parser has its
//! own in `golden/tests/fuzz_scene.rs`.

use crate::error::Res;
use crate::scene_io::ImportArgs;
use crate::{import_obj, import_svg};
use proptest::prelude::*;
use std::path::Path;
use tilerast_golden::{Config, Scene};
use tilerast_verif::mutate;

const OBJ: &str = include_str!("../tests/data/cube.obj");
const SVG: &str = include_str!("../tests/data/shapes.svg");

/// Tokens that matter to the formats, spliced in at random places.
const TOKENS: [&str; 22] = [
    "\n",
    " ",
    "/",
    "//",
    "-",
    "0",
    "-1",
    "1e99",
    "nan",
    "v ",
    "vt ",
    "vn ",
    "f ",
    "l ",
    "usemtl ",
    "<",
    ">",
    "\"",
    "=",
    "</svg>",
    "<path d=\"M0 0L",
    "\u{feff}",
];

/// Random edits for `tilerast_verif::mutate::apply`.
fn edits() -> impl Strategy<Value = Vec<mutate::Edit>> {
    proptest::collection::vec((any::<u8>(), any::<usize>(), any::<usize>()), 1..6)
}

/// An import result is fine if it is one line of error, or a scene the front end accepts or
/// refuses with one line.
fn check(r: Res<Scene>) {
    match r {
        Ok(s) => {
            if let Err(e) = s.to_frame("fuzz") {
                assert_eq!(e.to_string().lines().count(), 1, "{e}");
            }
        }
        Err(e) => assert_eq!(e.0.lines().count(), 1, "{e}"),
    }
}

fn obj(bytes: &[u8]) {
    let cfg = Config::preset("ice40").unwrap();
    // A directory without material files: `mtllib` lines find nothing.
    let dir = Path::new("/nonexistent-tilerast-fuzz");
    check(import_obj::obj_to_scene(
        &String::from_utf8_lossy(bytes),
        dir,
        "fuzz.obj",
        &cfg,
        &ImportArgs::default(),
    ));
}

fn svg(bytes: &[u8]) {
    let cfg = Config::preset("ice40").unwrap();
    let opt = usvg::Options {
        resources_dir: None,
        ..Default::default()
    };
    check(import_svg::svg_to_scene(
        bytes,
        "fuzz.svg",
        &cfg,
        &ImportArgs::default(),
        &opt,
    ));
}

proptest! {
    #![proptest_config(ProptestConfig { cases: 2000, failure_persistence: None, ..ProptestConfig::default() })]

    #[test]
    fn obj_arbitrary_bytes_never_panic(bytes in proptest::collection::vec(any::<u8>(), 0..256)) {
        obj(&bytes);
    }

    #[test]
    fn obj_mutations_never_panic(edits in edits()) {
        obj(&mutate::apply(OBJ, &TOKENS, &edits));
    }

    #[test]
    fn svg_arbitrary_bytes_never_panic(bytes in proptest::collection::vec(any::<u8>(), 0..256)) {
        svg(&bytes);
    }

    #[test]
    fn svg_mutations_never_panic(edits in edits()) {
        svg(&mutate::apply(SVG, &TOKENS, &edits));
    }
}
