//! Benchmark: wall time against the number of threads, three tables. First, the golden
//! pipeline: one larger frame
//! (the shipped default scene stretched over the `full` preset's 1920×1080 viewport: 16
//! samples and 4 colours per pixel) is rendered with `pipeline::render_stream` in rayon pools
//! of 1, 2 and 4 threads (each its own pool, so `RAYON_NUM_THREADS` does not matter here), a
//! few times each. Prints, per thread count: the fastest and the median wall time, the speed-up
//! of the fastest over 1 thread's fastest; for the fastest run, the CPU time of all threads,
//! that over the wall time (the cores it kept busy on average), the CPU time of the busiest
//! thread and all threads' over it (how evenly the work was split: the most the speed-up
//! could be with a free core per thread, waits aside); then the machine's core count and
//! load average. On a shared machine the wall times measure what the other processes leave;
//! the split does not depend on it as much. Figures are printed, never asserted; each run's
//! image and statistics are checked equal to the 1-thread run's (a mismatch exits non-zero).
//! Second, an `explore` sweep (`cli/src/explore.rs`): 18 configs of the shipped default scene,
//! one task each in the pool, each its own streamed render sharing the pool (every config's
//! figures checked equal across thread counts). Third, the brute-force reference
//! (`reference::primitives`, one task per primitive) on `scenes/mesh.json` stretched to `full`
//! as above (160 triangles: the default scene's 24, one of them most of the screen, leave
//! little to split), its coverage checked equal. The sweep and the reference have no serial stage, so their speed-up shows
//! what the cores give when nothing waits.
//!
//! ```text
//! cargo bench -p tilerast-golden --bench threads
//! TILERAST_THREADS=1,2,4,8 TILERAST_RUNS=7 cargo bench -p tilerast-golden --bench threads
//! ```
//!
//! The speed-up is bounded by the serial parts (bin-list reads, pixel-info pushes and takes,
//! the two blenders, which run beside the next window but one after the other: module header
//! of `pipeline.rs`), and on a shared machine by what the other processes leave.

use rayon::prelude::*;
use std::collections::hash_map::DefaultHasher;
use std::collections::BTreeMap;
use std::hash::{Hash, Hasher};
use std::time::Instant;
use tilerast_golden::pipeline::{render_stream, PipelineError, StreamOutput};
use tilerast_golden::reference::{primitives, RefStats};
use tilerast_golden::scene::{Frame, Scene};
use tilerast_golden::{Config, PrimitiveFx};

/// A scene with the `full` preset, stretched from its own viewport to `full`'s.
fn stretched(scene: &Scene) -> Frame {
    let mut frame = scene.to_frame("scene").expect("valid scene");
    let [w0, h0] = frame.cfg.viewport.map(i64::from);
    frame.cfg = Config::preset("full").expect("preset");
    let [w, h] = frame.cfg.viewport.map(i64::from);
    let sx = |x: i32| (x as i64 * w / w0) as i32;
    let sy = |y: i32| (y as i64 * h / h0) as i32;
    for p in &mut frame.prims {
        match p {
            PrimitiveFx::Triangle(t) => {
                for v in &mut t.v {
                    *v = [sx(v[0]), sy(v[1])];
                }
            }
            PrimitiveFx::Point(q) => q.pos = [sx(q.pos[0]), sy(q.pos[1])],
        }
    }
    frame
}

/// User + system CPU time in a `/proc/.../stat` line, in clock ticks (1/100 s).
fn stat_ticks(stat: &str) -> Option<u64> {
    // Fields after the command name (which ends at the last ')'): utime and stime are the
    // 14th and 15th fields of the line, the 12th and 13th after it.
    let rest = &stat[stat.rfind(')')? + 2..];
    let f: Vec<&str> = rest.split_whitespace().collect();
    Some(f.get(11)?.parse::<u64>().ok()? + f.get(12)?.parse::<u64>().ok()?)
}

/// CPU ticks of every thread of this process, by thread id (`/proc/self/task/*/stat`).
fn thread_ticks() -> BTreeMap<String, u64> {
    let mut out = BTreeMap::new();
    for task in std::fs::read_dir("/proc/self/task").into_iter().flatten().flatten() {
        let stat = std::fs::read_to_string(task.path().join("stat")).unwrap_or_default();
        if let Some(t) = stat_ticks(&stat) {
            out.insert(task.file_name().to_string_lossy().into_owned(), t);
        }
    }
    out
}

/// CPU seconds each thread spent between two [`thread_ticks`] readings: (all threads, the
/// busiest one).
fn cpu_between(before: &BTreeMap<String, u64>, after: &BTreeMap<String, u64>) -> (f64, f64) {
    let spent = after
        .iter()
        .map(|(tid, t)| t - before.get(tid).copied().unwrap_or(0).min(*t));
    let (total, busiest) = spent.fold((0, 0), |(s, m), t| (s + t, m.max(t)));
    (total as f64 / 100.0, busiest as f64 / 100.0)
}

fn list(var: &str, default: &str) -> Vec<usize> {
    let v = std::env::var(var).unwrap_or_else(|_| default.to_string());
    v.split(',')
        .map(|x| {
            x.trim().parse().unwrap_or_else(|_| {
                eprintln!("error: {var}={v}: not a list of counts");
                std::process::exit(2)
            })
        })
        .collect()
}

/// Everything a run produces that must not depend on the thread count (the image hashed).
fn fingerprint(s: &StreamOutput) -> String {
    let image = s.image.as_ref().expect("render_stream makes an image");
    let mut h = DefaultHasher::new();
    image.rgba.hash(&mut h);
    format!("{:?}{:?}{:?}{:x}", s.stats, s.held, s.point_fragments, h.finish())
}

/// One table: `work` run `runs` times in a pool of each thread count, its fingerprint checked
/// equal to the first run's.
fn table(title: &str, threads: &[usize], runs: usize, work: &(dyn Fn() -> String + Sync)) {
    let mut want: Option<String> = None;
    let mut base: Option<f64> = None;
    println!("{title}, best of {runs}");
    println!(
        "{:>7} {:>8} {:>8} {:>8} {:>7} {:>8} {:>9} {:>11}",
        "threads", "best s", "median s", "speed-up", "cpu s", "cpu/wall", "busiest s", "cpu/busiest"
    );
    for &n in threads {
        let pool = rayon::ThreadPoolBuilder::new()
            .num_threads(n)
            .build()
            .expect("thread pool");
        let mut times = Vec::with_capacity(runs);
        let mut best_cpu = (0.0, 0.0);
        for _ in 0..runs {
            let (c0, t0) = (thread_ticks(), Instant::now());
            let fp = pool.install(work);
            let secs = t0.elapsed().as_secs_f64();
            let cpu = cpu_between(&c0, &thread_ticks());
            if times.iter().all(|&t| secs < t) {
                best_cpu = cpu;
            }
            times.push(secs);
            match &want {
                None => want = Some(fp),
                Some(w) if *w != fp => {
                    eprintln!("error: {title}: {n} threads: output differs from the first run's");
                    std::process::exit(1);
                }
                Some(_) => {}
            }
        }
        times.sort_by(f64::total_cmp);
        let (best, median) = (times[0], times[times.len() / 2]);
        let b = *base.get_or_insert(best);
        let (cpu, busiest) = best_cpu;
        println!(
            "{n:>7} {best:>8.3} {median:>8.3} {:>7.2}x {cpu:>7.2} {:>8.2} {busiest:>9.2} {:>11.2}",
            b / best,
            cpu / best,
            cpu / busiest.max(0.01)
        );
    }
}

/// The configs of an `explore` sweep (`tilerast explore --tile 16,32,64 --msaa 1,4,16
/// --colours 1,4` on the default scene): one task per config, each its own streamed render in
/// the same pool, as `cli/src/explore.rs` runs them.
fn sweep_configs(base: &Config) -> Vec<Config> {
    let mut out = Vec::new();
    for tile in [16, 32, 64] {
        for msaa in [1, 4, 16] {
            for colours in [1, 4] {
                let mut c = base.clone();
                c.tile = [tile, tile];
                c.msaa = msaa;
                c.colours_per_pixel = colours;
                c.validate().expect("sweep config");
                out.push(c);
            }
        }
    }
    out
}

fn main() {
    let threads = list("TILERAST_THREADS", "1,2,4");
    let runs = list("TILERAST_RUNS", "5")[0].max(1);
    let cores = std::thread::available_parallelism().map_or(0, |n| n.get());
    let big = stretched(&Scene::builtin_default());
    let mesh_path = std::path::Path::new(env!("CARGO_MANIFEST_DIR")).join("../scenes/mesh.json");
    let mesh = stretched(&Scene::load(&mesh_path).expect("scenes/mesh.json"));
    table(
        &format!(
            "render_stream, default scene on `full` (1920x1080, 16x MSAA, {} primitives)",
            big.prims.len()
        ),
        &threads,
        runs,
        &|| {
            let s = render_stream(&big, false, |_| Ok::<(), PipelineError>(())).expect("render");
            fingerprint(&s)
        },
    );
    let small = Scene::builtin_default().to_frame("default").expect("valid scene");
    let configs = sweep_configs(&small.cfg);
    println!();
    table(
        &format!(
            "explore sweep: {} configs of the default scene (tile 16,32,64 x msaa 1,4,16 x colours 1,4), one task each",
            configs.len()
        ),
        &threads,
        runs,
        &|| {
            let rows: Vec<String> = configs
                .par_iter()
                .map(|cfg| {
                    let f = Frame {
                        cfg: cfg.clone(),
                        background: small.background,
                        prims: small.prims.clone(),
                    };
                    let s = render_stream(&f, false, |_| Ok::<(), PipelineError>(())).expect("render");
                    format!("{:?}", s.stats.rows())
                })
                .collect();
            rows.join("\n")
        },
    );
    println!();
    table(
        &format!(
            "reference::primitives (brute force, one task per primitive), scenes/mesh.json on `full` ({} primitives)",
            mesh.prims.len()
        ),
        &threads,
        runs,
        &|| {
            let mut st = RefStats::default();
            let cov = primitives(&mesh.cfg, &mesh.prims, &mut st);
            let mut h = DefaultHasher::new();
            cov.hash(&mut h);
            format!("{} {:x}", st.samples_tested, h.finish())
        },
    );
    let load = std::fs::read_to_string("/proc/loadavg").unwrap_or_default();
    println!(
        "cores: {cores}; load average (1, 5, 15 min): {}",
        load.split_whitespace().take(3).collect::<Vec<_>>().join(" ")
    );
}
