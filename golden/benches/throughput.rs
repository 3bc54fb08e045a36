//! Benchmark: raster_core throughput from its cycle model (the RTL matches it cycle by cycle in
//! co-simulation), on the shipped scenes and on a large-triangle scene, at Q = 1 and Q = 4.
//!
//! `cargo bench -p tilerast-golden --bench throughput`
//!
//! For each run: commands (primitive × first tile), quads emitted, cycles until the last beat
//! left with the output always ready, the lower bound ⌈quads / Q⌉, efficiency = bound / cycles
//! (goal ≥ 0.95 on large triangles at Q = 1 and Q = 4), setup cycles (triangle commands × the
//! setup block's initiation interval; overlapped with rasterization), and sub-tiles rejected by
//! the edge test (each costs the walker one cycle, hidden unless the rasterizer starves; rows
//! and columns outside the bounding box cost no cycle at all).

use tilerast_golden::pipeline::raster_frame;
use tilerast_golden::raster_core::run_commands;
use tilerast_golden::scene::{Frame, Scene};
use tilerast_golden::streams::commands;

struct Run {
    commands: usize,
    tri_commands: u64,
    quads: u64,
    cycles: u64,
    rejected_test: u64,
    rejected_rowcol: u64,
}

fn run(frame: &Frame) -> Run {
    let cmds = commands(frame).expect("commands");
    let (cycles, quads) = run_commands(&frame.cfg, &cmds, 50_000_000).expect("raster_core did not finish");
    // The golden model's counters tell which sub-tiles were rejected, and how.
    let g = raster_frame(frame, false).expect("golden raster");
    assert_eq!(g.stats.quads, quads, "cycle model and golden disagree");
    let c = &g.stats.raster.coverage;
    Run {
        commands: cmds.len(),
        tri_commands: cmds.iter().filter(|c| c.kind == 0).count() as u64,
        quads,
        cycles,
        rejected_test: c.subtiles_rejected_test,
        rejected_rowcol: c.subtiles_rejected_row + c.subtiles_rejected_col,
    }
}

fn main() {
    let scenes = Scene::shipped().expect("scenes/");
    println!(
        "{:<22} {:>2} {:>8} {:>9} {:>9} {:>9} {:>6} {:>9} {:>12} {:>16}",
        "scene", "Q", "commands", "quads", "cycles", "bound", "eff", "setup_cy", "rej_test_cy", "rej_rowcol(0cy)"
    );
    for (name, scene) in &scenes {
        for q in [1u32, 4] {
            let mut frame = scene.to_frame(name).expect("valid scene");
            frame.cfg.quads_per_clock = q;
            if q > frame.cfg.subtile[0] / 2 {
                println!(
                    "{name:<22} {q:>2} skipped: Q = {q} exceeds the {}-pixel sub-tile's quads per row",
                    frame.cfg.subtile[0]
                );
                continue;
            }
            let r = run(&frame);
            let bound = r.quads.div_ceil(q as u64);
            println!(
                "{:<22} {:>2} {:>8} {:>9} {:>9} {:>9} {:>6.3} {:>9} {:>12} {:>16}",
                name,
                q,
                r.commands,
                r.quads,
                r.cycles,
                bound,
                bound as f64 / r.cycles as f64,
                r.tri_commands * tilerast_golden::setup::SETUP_II,
                r.rejected_test,
                r.rejected_rowcol
            );
        }
    }
}
