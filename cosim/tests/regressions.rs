//! Replays every regression case in `cosim/tests/regressions/*.json` (a scene file plus its
//! optional `<name>.stim.json` stimulus, as `tilerast regress` saves failing cases): each must
//! run clean on its preset's RTL, cycle for cycle against the cycle model, with quads equal to
//! the golden pipeline's and per-primitive coverage equal to the reference rasterizer's.
//! The ice40 cases must also catch the planted bug of the `ice40_mut` model.

use std::path::{Path, PathBuf};
use tilerast_cosim::regress::{check_frame, load_case, Failure};
use tilerast_cosim::Stimulus;

fn cases() -> Vec<PathBuf> {
    let dir = Path::new(env!("CARGO_MANIFEST_DIR")).join("tests/regressions");
    let mut v: Vec<PathBuf> = std::fs::read_dir(&dir)
        .unwrap()
        .map(|e| e.unwrap().path())
        .filter(|p| {
            let n = p.file_name().unwrap().to_string_lossy();
            n.ends_with(".json") && !n.ends_with(".stim.json")
        })
        .collect();
    v.sort();
    v
}

#[test]
fn regression_cases_replay_clean() {
    let cases = cases();
    assert!(cases.len() >= 3, "regression cases: {cases:?}");
    for path in &cases {
        let (frame, stim) = load_case(path).unwrap_or_else(|e| panic!("{e}"));
        let stim = stim.unwrap_or_else(Stimulus::default);
        match check_frame(&frame.cfg.name, &frame, &stim) {
            Ok(s) => {
                eprintln!(
                    "{}: {} prims, {} commands, {} quads, {} samples, {} cycles",
                    path.display(),
                    s.prims,
                    s.commands,
                    s.quads,
                    s.samples,
                    s.cycles
                );
                assert!(s.quads > 0 && s.samples > 0, "{}: covers nothing", path.display());
                if stim.flush_at.is_some() {
                    assert!(s.flushed, "{}: the flush happened", path.display());
                }
            }
            Err(f) => panic!("{}: {f}", path.display()),
        }
    }
}

#[test]
fn ice40_regression_cases_catch_the_planted_bug() {
    let mut ice40 = 0;
    let mut caught = 0;
    for path in cases() {
        let (frame, stim) = load_case(&path).unwrap();
        if frame.cfg.name != "ice40" {
            continue;
        }
        ice40 += 1;
        let stim = stim.unwrap_or_else(Stimulus::default);
        match check_frame("ice40_mut", &frame, &stim) {
            Err(Failure::Mismatch(m)) => {
                eprintln!("{}: ice40_mut caught: {}", path.display(), m.port);
                caught += 1;
            }
            Err(f) => panic!("{}: expected a port mismatch, got {f}", path.display()),
            Ok(_) => eprintln!("{}: ice40_mut not caught", path.display()),
        }
    }
    assert!(ice40 >= 1);
    assert!(caught >= 1, "no ice40 regression case catches the mutant");
}
