//! Peak host memory of the streaming pipeline on the issue's overdraw scene: N triangles, each
//! covering the whole viewport, random colours and depths, at preset `full` (1920×1080, 16x,
//! 4 colours/pixel). Not a timed test: it renders with `pipeline::render_stream`, prints the
//! time, the held high-water marks and the process's peak RSS (`VmHWM`), and exits non-zero if
//! the peak RSS is 1 GiB or more.
//!
//! ```text
//! cargo bench -p tilerast-golden --bench overdraw              # N = 100
//! TILERAST_OVERDRAW_TRIS=400 cargo bench -p tilerast-golden --bench overdraw
//! ```
//!
//! The guard band is raised to its maximum (4096) so that one triangle can cover the 1920×1080
//! viewport (with `full`'s 1024 none can); it is a validation limit only and changes no work.
//! The issue's N = 10 000 takes about 110 GiB of simulated pixel-info memory (seed 001 keeps the
//! whole frame's pixel info until the pixel side starts; 32-bit block indices reach 256 GiB),
//! of which the host keeps only the live blocks. A frame beyond that is refused with the
//! pipeline's one-line error, printed here with the peak RSS reached.

use std::time::Instant;
use tilerast_golden::pipeline::{render_stream, Event, PipelineError};

/// Peak resident set size of this process, bytes (`VmHWM` of /proc/self/status).
fn vm_hwm() -> Option<u64> {
    let s = std::fs::read_to_string("/proc/self/status").ok()?;
    let line = s.lines().find(|l| l.starts_with("VmHWM:"))?;
    let kb: u64 = line.split_whitespace().nth(1)?.parse().ok()?;
    Some(kb * 1024)
}

fn main() {
    let n: usize = match std::env::var("TILERAST_OVERDRAW_TRIS") {
        Ok(v) => v.parse().unwrap_or_else(|_| {
            eprintln!("error: TILERAST_OVERDRAW_TRIS={v}: not a count");
            std::process::exit(2)
        }),
        Err(_) => 100,
    };
    let f = tilerast_verif::stim::overdraw_frame(1, n);
    let before = vm_hwm().unwrap_or(0);
    let t0 = Instant::now();
    let mut tiles = 0u64;
    let r = render_stream(&f, false, |e| {
        if let Event::TileDone(_) = e {
            tiles += 1;
        }
        Ok::<(), PipelineError>(())
    });
    let secs = t0.elapsed().as_secs_f64();
    let hwm = vm_hwm().unwrap_or(0);
    let mib = |b: u64| b as f64 / (1u64 << 20) as f64;
    println!(
        "overdraw: {n} full-screen triangles, preset full: {secs:.1} s ({:.2} s per 100 triangles), {tiles} first tiles",
        secs * 100.0 / n.max(1) as f64
    );
    let ok = match &r {
        Ok(s) => {
            println!(
                "  quads {}, pixel-info footprint (simulated) {:.1} MiB, blend samples {}",
                s.stats.quads,
                mib(s.stats.pixel_info.memory_bytes),
                s.stats.blend.samples
            );
            println!("  held: {:?}", s.held);
            true
        }
        Err(e) => {
            println!("  pipeline error after {tiles} first tiles: {e}");
            false
        }
    };
    println!(
        "  peak RSS (VmHWM): {:.1} MiB (before the render {:.1} MiB); limit 1024 MiB",
        mib(hwm),
        mib(before)
    );
    if hwm >= 1 << 30 {
        eprintln!("error: peak RSS {:.1} MiB is over 1 GiB", mib(hwm));
        std::process::exit(1);
    }
    if !ok {
        std::process::exit(3);
    }
}
