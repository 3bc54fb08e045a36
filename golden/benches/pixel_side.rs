//! Benchmark: the pixel back end's cycles per frame (pixel processor → colour buffer → dst read
//! → blender → output merger behind one memory port), from its cycle model (`PixelBackEndCycle`, which the
//! RTL equals cycle by cycle in co-simulation), next to the raster core's cycles for the same
//! frame, on every shipped scene and preset (the scene's own viewport kept). Blender figures
//! with the sample-pool merge on (the RTL's options) and off, from the cycle model and from
//! golden's transaction model (`FrameStats::blend` / `blend_nomerge`), all from the same run.
//!
//! `cargo bench -p tilerast-golden --bench pixel_side`
//!
//! Memory: block RAM timing (read latency 1, `MemTiming::default()`), never busy. Columns:
//! `pixels` the back end's input beats (every pixel of a second tile with pixel info),
//! `samples` blend samples (one dst read and one write each), `raster` the raster core's
//! cycles (`RasterCoreCycle`, output always ready), `back_end` the back end's cycles with
//! merging and `/px` per input pixel, `nomerge` with merging off, `inflight` with merging and
//! the blender's in-flight match on (`Config::blend_match_in_flight`, which only `full`
//! builds); then blend ops on/off/in-flight (the cycle model) and golden's transaction-model
//! blend cycles and ops on/off.

use tilerast_golden::blender::{pipeline_blend, BlendOpts};
use tilerast_golden::pipeline::{back_end_input, commands};
use tilerast_golden::pixel_back_end::{run_frame, MemBehaviour};
use tilerast_golden::raster_core::run_commands;
use tilerast_golden::scene::Scene;
use tilerast_golden::{Config, PRESETS};

fn main() {
    let scenes = Scene::shipped().expect("scenes/");
    println!(
        "{:<16} {:<9} {:>8} {:>8} {:>9} {:>9} {:>5} {:>9} {:>9} {:>8} {:>8} {:>8} {:>9} {:>9} {:>8} {:>8}",
        "scene",
        "preset",
        "pixels",
        "samples",
        "raster",
        "back_end",
        "/px",
        "nomerge",
        "inflight",
        "ops",
        "ops_off",
        "ops_infl",
        "g_cycles",
        "g_cyc_off",
        "g_ops",
        "g_ops_off"
    );
    let mut notes = Vec::new();
    for (name, scene) in &scenes {
        let own = scene.to_frame(name).expect("valid scene");
        for preset in PRESETS {
            let mut frame = own.clone();
            frame.cfg = Config::preset(preset).unwrap();
            frame.cfg.viewport = own.cfg.viewport;
            frame.cfg.guard_band = frame.cfg.guard_band.max(256);
            if let Err(e) = frame.cfg.validate() {
                println!("{name:<16} {preset:<9} skipped: {e}");
                continue;
            }
            let cmds = commands(&frame).expect("commands");
            // The raster core's cycles, or `—` where its blocks cannot be built for this
            // viewport (the reason is printed below the table).
            let raster = match run_commands(&frame.cfg, &cmds, 100_000_000) {
                Ok((c, _)) => c.to_string(),
                Err(e) => {
                    notes.push(format!("{name} on {preset}: raster core: {e}"));
                    "—".into()
                }
            };
            let out = back_end_input(&frame).expect("golden");
            let rec = out.back_end.expect("recorded");
            let st = &out.stats;
            let go = |blend: BlendOpts| {
                let mem = MemBehaviour {
                    blend: Some(blend),
                    ..MemBehaviour::default()
                };
                let limit = 50 * rec.input.len() as u64 + 10_000;
                run_frame(&frame.cfg, &rec.input, rec.background, st.blend.samples, mem, limit).expect("back end")
            };
            let on = go(pipeline_blend(&frame.cfg));
            let off = go(BlendOpts::default());
            let infl = go(BlendOpts {
                match_in_flight: true,
                ..pipeline_blend(&frame.cfg)
            });
            assert_eq!(on.memory.first_difference(&rec.memory), None, "{name} {preset}: memory");
            println!(
                "{:<16} {:<9} {:>8} {:>8} {:>9} {:>9} {:>5.2} {:>9} {:>9} {:>8} {:>8} {:>8} {:>9} {:>9} {:>8} {:>8}",
                name,
                preset,
                rec.input.len(),
                st.blend.samples,
                raster,
                on.cycles,
                on.cycles as f64 / rec.input.len().max(1) as f64,
                off.cycles,
                infl.cycles,
                on.stats.blend.blend_ops,
                off.stats.blend.blend_ops,
                infl.stats.blend.blend_ops,
                st.blend.cycles,
                st.blend_nomerge.cycles,
                st.blend.blend_ops,
                st.blend_nomerge.blend_ops,
            );
        }
    }
    for n in notes {
        println!("{n}");
    }
}
