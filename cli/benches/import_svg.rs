//! Scaling of `tilerast import` on one long noisy path (cli/src/import_svg.rs, `fill`).
//!
//! `cargo bench -p tilerast --no-default-features --bench import_svg [-- N1 N2 …]`
//!
//! Writes single-path SVGs of N segments (default 25 000, 50 000, 100 000, 200 000) of two
//! shapes and times the `tilerast import` binary on each (best of two runs), then prints the
//! times side by side with the ratio t(N)/t(previous N): about 2 per doubling is linear (or
//! n log n), 4 is quadratic.
//!
//! - `signal`: a filled noisy signal, x stepping evenly over the canvas, y random over a fifth
//!   of it (the SVG path of a plotted noisy series, filled by default). Its edges are short in
//!   x, so the importer's vertical strips keep lyon's sweep linear.
//! - `circle`: a circle with random radial noise of ±30 on radius 400 (a star-shaped polygon).
//!   Near its top and bottom a horizontal line crosses a share of all its edges (lyon's sweep:
//!   quadratic), and near 45° its spikes are tilted, long in x and crowded (vertical strips help
//!   little). It has no crossing edges, so the importer fills it with its own trapezoid sweep,
//!   O(n log n).

use std::path::Path;
use std::process::Command;
use std::time::{Duration, Instant};

/// Uniform in [0, 1) from the one generator (the verification kit's `Rng`).
fn uniform(seed: u64) -> impl FnMut() -> f64 {
    let mut r = tilerast_verif::Rng::new(seed);
    move || r.unit()
}

fn svg(points: &[(f64, f64)]) -> String {
    let mut d = format!("M{:.3} {:.3}", points[0].0, points[0].1);
    for p in &points[1..] {
        d += &format!(" L{:.3} {:.3}", p.0, p.1);
    }
    format!(
        "<svg xmlns=\"http://www.w3.org/2000/svg\" width=\"1000\" height=\"1000\"><path d=\"{d} Z\" fill=\"#336699\"/></svg>\n"
    )
}

fn shape(name: &str, n: usize) -> String {
    let mut r = uniform(n as u64);
    let pts: Vec<(f64, f64)> = match name {
        "signal" => (0..n)
            .map(|i| (1000.0 * i as f64 / n as f64, 400.0 + 200.0 * r()))
            .collect(),
        _ => (0..n)
            .map(|i| {
                let a = std::f64::consts::TAU * i as f64 / n as f64;
                let rad = 400.0 + 60.0 * (r() - 0.5);
                (500.0 + rad * a.cos(), 500.0 + rad * a.sin())
            })
            .collect(),
    };
    svg(&pts)
}

/// Best of two runs; the primitive count from `wrote … (N primitives)`.
fn time_import(svg: &Path, out: &Path) -> (Duration, String) {
    let mut best = Duration::MAX;
    let mut prims = String::new();
    for _ in 0..2 {
        let t = Instant::now();
        let o = Command::new(env!("CARGO_BIN_EXE_tilerast"))
            .arg("import")
            .arg(svg)
            .arg("-o")
            .arg(out)
            .output()
            .expect("run tilerast");
        let dt = t.elapsed();
        assert!(o.status.success(), "{}", String::from_utf8_lossy(&o.stderr));
        best = best.min(dt);
        let s = String::from_utf8_lossy(&o.stdout);
        prims = s
            .rsplit('(')
            .next()
            .and_then(|x| x.split_whitespace().next())
            .unwrap_or("?")
            .to_string();
    }
    (best, prims)
}

fn main() {
    let sizes: Vec<usize> = std::env::args()
        .skip(1)
        .filter_map(|a| a.replace('_', "").parse().ok())
        .collect();
    let sizes = if sizes.is_empty() {
        vec![25_000, 50_000, 100_000, 200_000]
    } else {
        sizes
    };
    let dir = Path::new(env!("CARGO_TARGET_TMPDIR")).join("bench-import-svg");
    std::fs::create_dir_all(&dir).unwrap();
    println!(
        "{:>8} {:>9} {:>10} {:>12} {:>13}",
        "shape", "segments", "seconds", "triangles", "t(n)/t(prev)"
    );
    for name in ["signal", "circle"] {
        let mut prev: Option<f64> = None;
        for &n in &sizes {
            let f = dir.join(format!("{name}-{n}.svg"));
            std::fs::write(&f, shape(name, n)).unwrap();
            let (t, prims) = time_import(&f, &dir.join("out.json"));
            let t = t.as_secs_f64();
            let ratio = prev.map_or(String::from("-"), |p| format!("{:.2}", t / p));
            println!("{name:>8} {n:>9} {t:>10.3} {prims:>12} {ratio:>13}");
            prev = Some(t);
        }
    }
}
