//! Benchmark: the hierarchical golden model (seed 000) against the brute-force reference, side
//! by side in one run, on a 1920×1080 frame of ≥ 100k triangles at 4x MSAA, one core.
//!
//! `cargo bench -p tilerast-golden --bench raster [-- --quick]`
//!
//! Reported per rasterizer: wall time, bounding-box samples per second (the same workload
//! for both: every sample of every triangle's clipped bounding box), samples it actually
//! tested, quads per second; then the model/reference speed ratio. Goals (issue 2): ratio ≥ 5,
//! model ≥ 100 M bbox samples/s.

use std::time::Instant;
use tilerast_golden::prim::{coverage_samples, quads_to_coverage, Quad};
use tilerast_golden::raster::{RasterStats, Rasterizer};
use tilerast_golden::reference::{self, RefStats};
use tilerast_golden::setup::setup_triangle;
use tilerast_golden::{Config, TriangleFx};
use tilerast_verif::Rng;

/// A jittered grid mesh over the viewport: `nx × ny` cells, two triangles each, deterministic.
fn grid_mesh(cfg: &Config, nx: u32, ny: u32) -> Vec<TriangleFx> {
    let (w, h) = (cfg.viewport[0] as i64 * 256, cfg.viewport[1] as i64 * 256);
    let mut rng = Rng::new(0x2545_f491_4f6c_dd1d);
    let mut pts = vec![[0i32; 2]; ((nx + 1) * (ny + 1)) as usize];
    for j in 0..=ny {
        for i in 0..=nx {
            let (mut x, mut y) = (w * i as i64 / nx as i64, h * j as i64 / ny as i64);
            if i > 0 && i < nx {
                x += rng.range(-64, 64);
            }
            if j > 0 && j < ny {
                y += rng.range(-64, 64);
            }
            pts[(j * (nx + 1) + i) as usize] = [x as i32, y as i32];
        }
    }
    let mut tris = Vec::with_capacity((2 * nx * ny) as usize);
    let colour = [200, 100, 50, 255];
    for j in 0..ny {
        for i in 0..nx {
            let p = |a: u32, b: u32| pts[((j + b) * (nx + 1) + i + a) as usize];
            tris.push(TriangleFx {
                v: [p(0, 0), p(1, 0), p(1, 1)],
                colour,
                depth: 0,
            });
            tris.push(TriangleFx {
                v: [p(0, 0), p(1, 1), p(0, 1)],
                colour,
                depth: 0,
            });
        }
    }
    tris
}

fn main() {
    let quick = std::env::args().any(|a| a == "--quick");
    let mut cfg = Config::preset("full").expect("preset");
    cfg.msaa = 4;
    cfg.colours_per_pixel = 1;
    cfg.colour_block_bytes = 256;
    cfg.validate().expect("bench config");
    let (nx, ny) = if quick { (48, 27) } else { (240, 216) };
    let tris = grid_mesh(&cfg, nx, ny);
    let setups: Vec<_> = tris
        .iter()
        .map(|t| setup_triangle(&cfg, t).expect("grid triangles are valid"))
        .collect();
    let bbox_samples: u64 = setups.iter().map(|s| s.bbox.pixels() * cfg.msaa as u64).sum();
    println!(
        "scene: {}x{} viewport, {} triangles, {}x MSAA, tile {:?}, sub-tile {:?}, {} bbox samples",
        cfg.viewport[0],
        cfg.viewport[1],
        tris.len(),
        cfg.msaa,
        cfg.tile,
        cfg.subtile,
        bbox_samples
    );

    // Hierarchical model: best of 3 runs.
    let mut best_model = f64::MAX;
    let mut quads: Vec<Quad> = Vec::new();
    let mut st = RasterStats::default();
    for _ in 0..3 {
        let mut r = Rasterizer::new();
        quads.clear();
        st = RasterStats::default();
        let t0 = Instant::now();
        for (i, s) in setups.iter().enumerate() {
            r.triangle(&cfg, s, i as u32, &mut st, &mut quads);
        }
        best_model = best_model.min(t0.elapsed().as_secs_f64());
        std::hint::black_box(&quads);
    }
    let model_samples: u64 = quads.iter().map(|q| q.samples() as u64).sum();

    // Brute-force reference: best of 2 runs (it is the slow one).
    let mut best_ref = f64::MAX;
    let mut ref_st = RefStats::default();
    let mut ref_covered = 0u64;
    let mut ref_quads = 0u64;
    for _ in 0..2 {
        ref_st = RefStats::default();
        ref_covered = 0;
        ref_quads = 0;
        let t0 = Instant::now();
        for t in &tris {
            let c = reference::triangle(&cfg, t, &mut ref_st);
            ref_covered += coverage_samples(&c);
            let mut qs: Vec<(u32, u32)> = c.keys().map(|&(x, y)| (x / 2, y / 2)).collect();
            qs.dedup();
            qs.sort_unstable();
            qs.dedup();
            ref_quads += qs.len() as u64;
        }
        best_ref = best_ref.min(t0.elapsed().as_secs_f64());
    }

    // Both must agree before their speeds mean anything.
    assert_eq!(
        model_samples, ref_covered,
        "model and reference disagree on covered samples"
    );
    assert_eq!(
        quads.len() as u64,
        ref_quads,
        "model and reference disagree on quad count"
    );
    assert_eq!(
        model_samples,
        cfg.viewport[0] as u64 * cfg.viewport[1] as u64 * cfg.msaa as u64,
        "mesh must cover every sample once"
    );
    quads_to_coverage(&quads[..quads.len().min(200_000)], cfg.msaa).expect("quad contract");

    let row = |name: &str, secs: f64, tested: u64, nq: u64| {
        println!(
            "{name:<12} {:>9.3} ms  {:>8.1} M bbox-samples/s  {:>12} samples tested  {:>8.2} M quads/s",
            secs * 1e3,
            bbox_samples as f64 / secs / 1e6,
            tested,
            nq as f64 / secs / 1e6
        );
    };
    println!(
        "{:<12} {:>12}  {:>26}  {:>26}  {:>17}",
        "rasterizer", "time", "throughput", "work", "quads"
    );
    row("model", best_model, st.sample.samples_tested, quads.len() as u64);
    row("reference", best_ref, ref_st.samples_tested, ref_quads);
    let ratio = best_ref / best_model;
    println!("ratio model/reference: {ratio:.1}x faster (goal >= 5x)");
    println!(
        "model: {:.1} M bbox-samples/s on one core (goal >= 100 M/s); {} sub-tiles trivially accepted of {} walked",
        bbox_samples as f64 / best_model / 1e6,
        st.coverage.trivial,
        st.coverage.walked
    );
}
