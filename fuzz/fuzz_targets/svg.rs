//! The SVG importer (`import_svg::svg_to_scene`: usvg, lyon tessellation, the sweep fill,
//! then the front end): any bytes give a scene or one line of error, never a panic.
#![no_main]

use libfuzzer_sys::fuzz_target;
use tilerast::import_svg::svg_to_scene;
use tilerast::scene_io::ImportArgs;
use tilerast_golden::Config;

fuzz_target!(|data: &[u8]| {
    let cfg = Config::preset("ice40").expect("preset");
    // No resources directory: nothing outside the input is read.
    let opt = usvg::Options {
        resources_dir: None,
        ..Default::default()
    };
    match svg_to_scene(data, "fuzz.svg", &cfg, &ImportArgs::default(), &opt) {
        Ok(s) => {
            if let Err(e) = s.to_frame("fuzz.svg") {
                assert_eq!(e.to_string().lines().count(), 1, "{e}");
            }
        }
        Err(e) => assert_eq!(e.0.lines().count(), 1, "{e}"),
    }
});
