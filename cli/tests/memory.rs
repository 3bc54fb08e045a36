//! Peak memory of `import` and `raster` on large inputs: the built binary runs under a memory
//! limit set here (`ulimit -d`, RLIMIT_DATA: the heap and every private writable mapping,
//! thread stacks included) and must finish with the right output. `raster`'s output is more
//! than four times its limit, so an implementation that gathers its lines (or the frame's
//! quads) before writing cannot pass; `import`'s limit is below what it took while it held
//! the encoded scene (and gathered per-triangle vectors besides the primitives). Memory, not
//! time: nothing here is timed.
//!
//! Shown red: raster by collecting its lines into a `Vec<String>` before writing them
//! (allocation failure, exit by SIGABRT); import on the code before it streamed.

use std::io::{BufRead, BufReader, Read};
use std::path::{Path, PathBuf};
use std::process::{Command, Stdio};
use tilerast_golden::pipeline::{raster_stream, Event, PipelineError};
use tilerast_golden::Scene;

/// `raster`'s limit, in KiB (`ulimit -d`). Measured: a 2-thread run needs less than 16 MiB
/// of data for the scene below, whose output is 224 MiB of JSON lines.
const RASTER_LIMIT_KIB: u64 = 48 * 1024;

/// `import`'s limit, in KiB. Measured on the 421 362-triangle grid below (a 14 MiB OBJ, 59 MiB
/// of scene JSON): passes at 96 MiB, fails at 80 MiB (peak RSS 81 MB: tobj's parse of the OBJ
/// is the peak; then the scene's primitives, about 72 bytes a triangle, and the frame checked
/// from them). Before it streamed, import held the encoded text as well and needed 140 MiB
/// (fails at 130), and before its triangles were read from the meshes in each pass it held
/// two more per-triangle vectors.
const IMPORT_LIMIT_KIB: u64 = 112 * 1024;

/// A fresh per-test directory.
fn tmp(name: &str) -> PathBuf {
    let d = Path::new(env!("CARGO_TARGET_TMPDIR")).join(format!("memory-{name}"));
    let _ = std::fs::remove_dir_all(&d);
    std::fs::create_dir_all(&d).unwrap();
    d
}

/// `tilerast ARGS` under a data limit of `kib` KiB, 2 rayon threads; stdout piped.
fn limited(kib: u64, args: &[&str]) -> Command {
    let mut c = Command::new("sh");
    c.arg("-c")
        .arg(format!("ulimit -d {kib} && exec \"$0\" \"$@\""))
        .arg(env!("CARGO_BIN_EXE_tilerast"))
        .args(args)
        .env("RAYON_NUM_THREADS", "2")
        .env_remove("RUST_BACKTRACE")
        .stdout(Stdio::piped())
        .stderr(Stdio::piped());
    c
}

/// The limit is in force: under the same shell line, `dd` cannot take a block of 4 × the
/// limit (so a pass below is not a limit silently ignored).
#[test]
fn the_limit_is_in_force() {
    const LIMIT_KIB: u64 = RASTER_LIMIT_KIB;
    let o = Command::new("sh")
        .arg("-c")
        .arg(format!(
            "ulimit -d {LIMIT_KIB} && exec dd if=/dev/zero of=/dev/null bs={}K count=1",
            LIMIT_KIB * 4
        ))
        .output()
        .unwrap();
    assert!(!o.status.success(), "a {} KiB block passed the limit", LIMIT_KIB * 4);
    let o = Command::new("sh")
        .arg("-c")
        .arg(format!(
            "ulimit -d {LIMIT_KIB} && exec dd if=/dev/zero of=/dev/null bs={}K count=1",
            LIMIT_KIB / 4
        ))
        .output()
        .unwrap();
    assert!(o.status.success(), "{}", String::from_utf8_lossy(&o.stderr));
}

/// 100 triangles, each half of the default preset's 640×480 viewport, alternating halves: every
/// pixel covered 50 times at 4× MSAA.
fn overdraw_scene() -> String {
    let tris: Vec<String> = (0..100)
        .map(|i| {
            let v = if i % 2 == 0 {
                "[[-10,-10],[700,-10],[-10,700]]"
            } else {
                "[[700,700],[700,-10],[-10,700]]"
            };
            format!(r#"{{"triangle":{{"v":{v},"colour":[200,40,40,128],"depth":0.5}}}}"#)
        })
        .collect();
    format!(
        "{{\"config\":{{\"preset\":\"default\"}},\"primitives\":[\n{}\n]}}\n",
        tris.join(",\n")
    )
}

#[test]
fn raster_of_a_large_frame_streams_within_the_memory_limit() {
    let d = tmp("raster");
    let scene = d.join("overdraw.json");
    std::fs::write(&scene, overdraw_scene()).unwrap();
    // What the output must hold, from the golden pipeline in this process (counts only).
    let frame = Scene::load(&scene).unwrap().to_frame("overdraw").unwrap();
    let (mut want_quads, mut want_samples) = (0u64, 0u64);
    raster_stream(&frame, false, |e| {
        if let Event::Quads { quads, .. } = e {
            want_quads += quads.len() as u64;
            want_samples += quads.iter().map(|q| q.samples() as u64).sum::<u64>();
        }
        Ok::<(), PipelineError>(())
    })
    .unwrap();
    let mut child = limited(RASTER_LIMIT_KIB, &["raster", scene.to_str().unwrap()])
        .spawn()
        .unwrap();
    // Read the lines as they come (the output is not held here either).
    let (mut lines, mut bytes, mut samples, mut last) = (0u64, 0u64, 0u64, String::new());
    for l in BufReader::new(child.stdout.take().unwrap()).lines() {
        let l = l.unwrap();
        bytes += l.len() as u64 + 1;
        if let Some(m) = l.split("\"mask\":\"0x").nth(1) {
            let hex = &m[..m.find('"').unwrap()];
            samples += u64::from_str_radix(hex, 16).unwrap().count_ones() as u64;
            lines += 1;
        } else {
            last = l;
        }
    }
    let mut err = String::new();
    child.stderr.take().unwrap().read_to_string(&mut err).unwrap();
    let status = child.wait().unwrap();
    assert!(
        status.success(),
        "raster under a {RASTER_LIMIT_KIB} KiB data limit failed: {status:?}\nstderr: {err}"
    );
    assert!(
        bytes > 4 * RASTER_LIMIT_KIB * 1024,
        "the output ({bytes} B) must be well over the limit"
    );
    assert_eq!((lines, samples), (want_quads, want_samples));
    let summary: serde_json::Value = serde_json::from_str(&last).unwrap();
    assert_eq!(summary["summary"]["quads"], want_quads);
    assert_eq!(summary["summary"]["samples"], want_samples);
}

/// A grid of `n` × `n` vertices, two triangles per cell.
fn grid_obj(n: usize) -> String {
    let mut s = String::new();
    for j in 0..n {
        for i in 0..n {
            let (x, y) = (
                i as f64 / (n - 1) as f64 * 2.0 - 1.0,
                j as f64 / (n - 1) as f64 * 2.0 - 1.0,
            );
            let z = ((i * 7 + j * 13) % 17) as f64 / 170.0;
            s += &format!("v {x:.5} {y:.5} {z:.4}\n");
        }
    }
    for j in 0..n - 1 {
        for i in 0..n - 1 {
            let a = j * n + i + 1;
            let (b, c, d) = (a + 1, a + n, a + n + 1);
            s += &format!("f {a} {b} {d}\nf {a} {d} {c}\n");
        }
    }
    s
}

#[test]
fn import_of_a_large_mesh_streams_within_the_memory_limit() {
    let d = tmp("import");
    let obj = d.join("grid.obj");
    let n = 460;
    std::fs::write(&obj, grid_obj(n)).unwrap();
    let tris = 2 * (n - 1) * (n - 1);
    // To a file.
    let json = d.join("grid.json");
    let o = limited(
        IMPORT_LIMIT_KIB,
        &["import", obj.to_str().unwrap(), "-o", json.to_str().unwrap()],
    )
    .output()
    .unwrap();
    let err = String::from_utf8_lossy(&o.stderr);
    assert!(
        o.status.success(),
        "import under a {IMPORT_LIMIT_KIB} KiB data limit failed: {:?}\nstderr: {err}",
        o.status
    );
    let file = std::fs::read(&json).unwrap();
    assert!(file.len() as u64 > 50 << 20, "{} B", file.len());
    let scene = Scene::from_json(std::str::from_utf8(&file).unwrap(), "grid.json").unwrap();
    assert_eq!(scene.primitives.len(), tris);
    scene.to_frame("grid.json").unwrap();
    // To stdout: the same bytes.
    let o = limited(IMPORT_LIMIT_KIB, &["import", obj.to_str().unwrap()])
        .output()
        .unwrap();
    assert!(o.status.success(), "{}", String::from_utf8_lossy(&o.stderr));
    assert!(o.stdout == file, "stdout differs from the file");
}
