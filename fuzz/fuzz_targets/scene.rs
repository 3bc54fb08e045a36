//! The scene parser and front end (`Scene::from_json`, `Scene::to_frame`): any bytes give a
//! scene or one line of error, never a panic (a panic aborts: libFuzzer reports a crash).
#![no_main]

use libfuzzer_sys::fuzz_target;
use tilerast_golden::Scene;

fuzz_target!(|data: &[u8]| {
    let text = String::from_utf8_lossy(data);
    match Scene::from_json(&text, "fuzz.json") {
        Ok(s) => {
            if let Err(e) = s.to_frame("fuzz.json") {
                assert_eq!(e.to_string().lines().count(), 1, "{e}");
            }
        }
        Err(e) => assert_eq!(e.to_string().lines().count(), 1, "{e}"),
    }
});
