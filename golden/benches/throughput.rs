//! Benchmark: raster_core throughput from its cycle model (the RTL matches it cycle by cycle in
//! co-simulation), on the shipped scenes and on a large-triangle scene, at Q = 1 and Q = 4.
//!
//! `cargo bench -p tilerast-golden --bench throughput`
//!
//! For each run: commands (primitive × first tile), quads emitted, cycles until the last beat
//! left with the output always ready, the lower bound ⌈quads / Q⌉, efficiency = bound / cycles
//! (goal ≥ 0.95 on large triangles at Q = 1 and Q = 4), setup cycles (triangle commands × the
//! setup block's initiation interval; overlapped with rasterization), sub-tiles rejected by the
//! edge test (each costs the walker one cycle unless its look-ahead passes over it, hidden
//! unless the rasterizer starves; rows and columns outside the bounding box cost no cycle at
//! all), and of those the ones the tile parser's look-ahead (K = `subtiles_per_cycle`, issue
//! 17) passed over, with the number of steps that passed over at least one (the activity
//! check: both > 0 on slivers at K > 1). Every scene runs at K = 1 (no look-ahead) and K = 4
//! side by side; `K=2 cargo bench …` runs one K only.

use tilerast_golden::cycle::drive;
use tilerast_golden::pipeline::{commands, raster_frame};
use tilerast_golden::raster_core::run_commands;
use tilerast_golden::scene::{Frame, Scene};
use tilerast_golden::setup::edges_for;
use tilerast_golden::streams::Cand;
use tilerast_golden::tile_parser::TileParserCycle;

struct Run {
    commands: usize,
    tri_commands: u64,
    quads: u64,
    cycles: u64,
    rejected_test: u64,
    rejected_rowcol: u64,
    /// Test-rejected sub-tiles the tile parser's look-ahead passed over (no cycle), and the
    /// steps that passed over at least one.
    skipped: u64,
    skip_steps: u64,
}

/// The tile parser alone on every triangle command's `Edges` (ready always high): sub-tiles its
/// look-ahead passed over (visited without look-ahead − candidates) and the steps that did.
fn skips(frame: &Frame, cmds: &[tilerast_golden::streams::Cmd]) -> (u64, u64) {
    let (mut skipped, mut steps) = (0, 0);
    for c in cmds.iter().filter(|c| c.kind == 0) {
        let e = edges_for(&frame.cfg, c);
        let mut m = TileParserCycle::new(&frame.cfg);
        let (got, _) = drive(
            &mut m,
            &[e],
            |_| false,
            |_| true,
            |o: &[Cand]| o.iter().any(|c| c.last),
            1 << 20,
        );
        skipped += TileParserCycle::cycles_for(&frame.cfg, &e) - got.len() as u64;
        // A step passed over sub-tiles when it did not go to the next sub-tile in walk order.
        let [sw, _] = frame.cfg.subtile;
        let (c0, c1) = (e.bx0 / sw, e.bx1 / sw);
        for w in got.windows(2) {
            let next = if w[0].col == c1 {
                (c0, w[0].row + 1)
            } else {
                (w[0].col + 1, w[0].row)
            };
            steps += ((w[1].col, w[1].row) != next) as u64;
        }
    }
    (skipped, steps)
}

fn run(frame: &Frame) -> Run {
    let cmds = commands(frame).expect("commands");
    let (cycles, quads) = run_commands(&frame.cfg, &cmds, 50_000_000).expect("raster_core did not finish");
    // The golden model's counters tell which sub-tiles were rejected, and how.
    let g = raster_frame(frame, false).expect("golden raster");
    assert_eq!(g.stats.quads, quads, "cycle model and golden disagree");
    let c = &g.stats.raster.coverage;
    let (skipped, skip_steps) = skips(frame, &cmds);
    Run {
        commands: cmds.len(),
        tri_commands: cmds.iter().filter(|c| c.kind == 0).count() as u64,
        quads,
        cycles,
        rejected_test: c.subtiles_rejected_test,
        rejected_rowcol: c.subtiles_rejected_row + c.subtiles_rejected_col,
        skipped,
        skip_steps,
    }
}

fn main() {
    let scenes = Scene::shipped().expect("scenes/");
    println!(
        "{:<22} {:>2} {:>2} {:>8} {:>9} {:>9} {:>9} {:>6} {:>9} {:>12} {:>16} {:>12} {:>10}",
        "scene",
        "Q",
        "K",
        "commands",
        "quads",
        "cycles",
        "bound",
        "eff",
        "setup_cy",
        "rej_test",
        "rej_rowcol(0cy)",
        "skipped(0cy)",
        "skip_steps"
    );
    for (name, scene) in &scenes {
        // Side by side in one run: the walker without look-ahead (K = 1) and with it (K = 4);
        // `K=2 cargo bench …` runs one K only.
        let ks: Vec<u32> = match std::env::var("K") {
            Ok(k) => vec![k.parse().expect("K: 1..=4")],
            Err(_) => vec![1, 4],
        };
        for (q, k) in [1u32, 4].into_iter().flat_map(|q| ks.iter().map(move |&k| (q, k))) {
            let mut frame = scene.to_frame(name).expect("valid scene");
            frame.cfg.quads_per_clock = q;
            frame.cfg.subtiles_per_cycle = k;
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
                "{:<22} {:>2} {:>2} {:>8} {:>9} {:>9} {:>9} {:>6.3} {:>9} {:>12} {:>16} {:>12} {:>10}",
                name,
                q,
                frame.cfg.subtiles_per_cycle,
                r.commands,
                r.quads,
                r.cycles,
                bound,
                bound as f64 / r.cycles as f64,
                r.tri_commands * tilerast_golden::setup::SETUP_II,
                r.rejected_test,
                r.rejected_rowcol,
                r.skipped,
                r.skip_steps
            );
        }
    }
}
