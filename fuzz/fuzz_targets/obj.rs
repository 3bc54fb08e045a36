//! The OBJ importer (`import_obj::obj_to_scene`, then the front end): any bytes give a scene
//! or one line of error, never a panic.
#![no_main]

use libfuzzer_sys::fuzz_target;
use std::path::Path;
use tilerast::import_obj::obj_to_scene;
use tilerast::scene_io::ImportArgs;
use tilerast_golden::Config;

fuzz_target!(|data: &[u8]| {
    let cfg = Config::preset("ice40").expect("preset");
    // A directory without material files: `mtllib` lines find nothing.
    let dir = Path::new("/nonexistent-tilerast-fuzz");
    let text = String::from_utf8_lossy(data);
    match obj_to_scene(&text, dir, "fuzz.obj", &cfg, &ImportArgs::default()) {
        Ok(s) => {
            if let Err(e) = s.to_frame("fuzz.obj") {
                assert_eq!(e.to_string().lines().count(), 1, "{e}");
            }
        }
        Err(e) => assert_eq!(e.0.lines().count(), 1, "{e}"),
    }
});
