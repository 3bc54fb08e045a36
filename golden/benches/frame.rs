//! Benchmark: the whole frame's cycles (primitives in → framebuffer out) from the frame top's
//! cycle model (`FrameCycle`, which the RTL frame top is held to cycle by cycle), split by
//! phase and stage, next to the raster core alone on the same commands; the memory bytes per
//! frame against golden's transaction statistics; and the frames per second at each board's
//! clock. Every shipped scene on every preset that builds the frame (the scene's own viewport
//! kept).
//!
//! `cargo bench -p tilerast-golden --bench frame`
//!
//! Memory: block RAM timing (read latency 1, `MemTiming::default()`), never busy. Columns:
//! * `cycles`: first primitive in → Done; `bin` / `raster` / `pixel`: the phases' shares.
//! * `core`: the raster core alone on the frame's commands (`run_commands`, output always
//!   ready); `r/core`: the Raster phase's cycles over it (the sequencer's reads, the depth FIFO
//!   and the pixel-info writes around the core: 1.00 = no slow-down); `r.port`: the share of
//!   Raster-phase cycles in which the memory port takes a request (pixel-info writes and the
//!   sequencer's reads, one 32-bit word each): near 100 % the port, not the core, sets the pace.
//! * `sort`: shading_sort's sort-phase cycles as a share of the Pixel phase; `be/px`: Pixel
//!   phase cycles per pixel handed to the back end.
//! * `MB`: bytes through the memory port; `=golden`: those bytes, less the primitive table's
//!   (which golden's transaction model has no counter for), over golden's own (bins written and
//!   read, pixel info written and read, framebuffer read and written): 1.000 when equal.
//! * `fps@<board>`: frames per second at the clock the board's top runs at, frames back to
//!   back (8 frames' cycles / 8: the next frame's Bin and Raster beside this one's Pixel phase).
//!
//! The same figures, per scene and preset, go to `target/bench/frame.json` (an array of
//! objects: `scene`, `preset`, `frame_cycles`, `raster_core_cycles`, `port_bytes`,
//! `port_bound_cycles` = port bytes / 4, `bin_phase_cycles`, `raster_phase_cycles`,
//! `pixel_phase_cycles`, `pixel_phase_bytes` (port bytes in the Pixel phase), `ram_bits`
//! (the frame top's on-chip RAM, `tilerast_golden::frame::ram`), `steady_cycles_per_frame` (8 frames of the scene back to back, their
//! cycles / 8) and `fps`, an object of frames per second at each board's clock), measured by
//! `tilerast_golden::frame::FrameFigures`. `cargo bench -p tilerast-golden --bench frame --
//! --update-docs` also rewrites the table between the `frame-bench` markers of
//! `docs/measurements.md`, which `golden/tests/frame_figures.rs` holds to the model.

use tilerast_golden::board::BOARDS;
use tilerast_golden::frame::{client, frame_at, replace_table, FrameFigures};
use tilerast_golden::pipeline::back_end_input;
use tilerast_golden::scene::Scene;
use tilerast_golden::PRESETS;

/// The document whose `frame-bench` table `-- --update-docs` rewrites.
const DOC: &str = "docs/measurements.md";

fn pct(a: u64, b: u64) -> String {
    format!("{:.1}%", 100.0 * a as f64 / b.max(1) as f64)
}

fn main() {
    let scenes = Scene::shipped().expect("scenes/");
    print!(
        "{:<16} {:<9} {:>10} {:>6} {:>6} {:>6} {:>9} {:>6} {:>6} {:>6} {:>6} {:>7} {:>7}",
        "scene",
        "preset",
        "cycles",
        "bin",
        "raster",
        "pixel",
        "core",
        "r/core",
        "r.port",
        "sort",
        "be/px",
        "MB",
        "=golden"
    );
    for b in BOARDS {
        print!(" {:>14}", format!("fps@{}", b.name));
    }
    println!();
    let mut worst: Option<(f64, String)> = None;
    let mut rows = Vec::new();
    for (name, scene) in &scenes {
        let own = scene.to_frame(name).expect("valid scene");
        for preset in PRESETS {
            let frame = match frame_at(&own, preset) {
                Ok(f) => f,
                Err(e) => {
                    println!("{name:<16} {preset:<9} not built: {e}");
                    continue;
                }
            };
            let (fig, s) = match FrameFigures::measure(name, &frame) {
                Ok(r) => r,
                Err(e) => {
                    println!("{name:<16} {preset:<9} {e}");
                    continue;
                }
            };
            let g = back_end_input(&frame).expect("golden").stats;
            let prim_bytes = s.clients[client::BIN_SETUP].bytes
                + s.clients[client::SEQ_PRIMS].bytes
                + s.clients[client::SHADING].bytes;
            let golden_bytes = g.bin.bytes_written
                + g.bin.bytes_read
                + g.pixel_info.bytes_written
                + g.pixel_info.bytes_read
                + 2 * g.framebuffer_bytes;
            let raster_reqs = s.clients[client::PI_WRITE].requests
                + s.clients[client::SEQ_PRIMS].requests
                + s.clients[client::SEQ_LISTS].requests;
            let slow = s.raster_cycles as f64 / fig.cycles.raster_core_cycles.max(1) as f64;
            if *preset == "default" && worst.as_ref().is_none_or(|w| slow > w.0) {
                worst = Some((slow, format!("{name} on default")));
            }
            print!(
                "{:<16} {:<9} {:>10} {:>6} {:>6} {:>6} {:>9} {:>6.2} {:>6} {:>6} {:>6.1} {:>7.2} {:>7.3}",
                name,
                preset,
                fig.cycles.frame_cycles,
                pct(s.bin_cycles, fig.cycles.frame_cycles),
                pct(s.raster_cycles, fig.cycles.frame_cycles),
                pct(s.pixel_cycles, fig.cycles.frame_cycles),
                fig.cycles.raster_core_cycles,
                slow,
                pct(raster_reqs, s.raster_cycles),
                pct(s.shading.sort_cycles, s.pixel_cycles),
                s.pixel_cycles as f64 / s.shading.beats.max(1) as f64,
                fig.cycles.port_bytes as f64 / 1e6,
                (fig.cycles.port_bytes - prim_bytes) as f64 / golden_bytes.max(1) as f64,
            );
            for (_, fps) in fig.fps() {
                print!(" {fps:>14.2}");
            }
            println!();
            rows.push(fig);
        }
    }
    let root = std::path::Path::new(env!("CARGO_MANIFEST_DIR")).join("..");
    let out = root.join("target/bench/frame.json");
    std::fs::create_dir_all(out.parent().expect("target/bench")).expect("target/bench/");
    let json: Vec<_> = rows.iter().map(FrameFigures::to_json).collect();
    std::fs::write(&out, serde_json::to_string_pretty(&json).expect("JSON") + "\n").expect("frame.json");
    println!("\nwrote {}", out.display());
    if std::env::args().any(|a| a == "--update-docs") {
        let doc = root.join(DOC);
        let text = std::fs::read_to_string(&doc).expect(DOC);
        match replace_table(DOC, &text, &rows) {
            Ok(t) => {
                std::fs::write(&doc, t).expect(DOC);
                println!("rewrote the frame table of {DOC}");
            }
            Err(e) => {
                eprintln!("{e}");
                std::process::exit(1);
            }
        }
    }
    if let Some((slow, at)) = worst {
        println!(
            "\nRaster phase over the raster core alone, worst on the default preset: {slow:.2} ({at}); \
             a frame's Pixel phase runs after its every first tile (seed 001), so one frame \
             alone takes about raster + pixel; back to back, the next frame's raster runs beside \
             this one's pixel phase."
        );
    }
}
