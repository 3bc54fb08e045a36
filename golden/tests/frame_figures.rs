//! The committed frame figures (the table between the `frame-bench` markers of
//! `docs/measurements.md`, written by `cargo bench -p tilerast-golden --bench frame --
//! --update-docs`) against the cycle model, rerun now: a figure that no longer holds goes red.
//!
//! The table must have one row per shipped scene and preset the frame top is built for, in the
//! bench's order. The rows this test reruns are the cheapest ones up to [`BUDGET`] model cycles
//! (a row costs 1 + 8 frames of its committed frame cycles), every `points` and `mesh`
//! row and the two cheapest 640×480 ones today (a third of CI's former budget: the whole table
//! is `cargo bench -p tilerast-golden --bench frame`); as the frame gets faster, more rows fit. Each rerun row must equal its committed line
//! character for character: every column is a cycle count, a byte count or a ratio of them,
//! deterministic on any machine. No timing is asserted.

use tilerast_golden::frame::{committed_rows, frame_at, FrameFigures, STEADY_FRAMES};
use tilerast_golden::scene::Scene;
use tilerast_golden::PRESETS;

const DOC: &str = "docs/measurements.md";

/// Model cycles this test may spend (1 + [`STEADY_FRAMES`] frames per row).
const BUDGET: u64 = 30_000_000;

#[test]
fn the_committed_frame_figures_are_the_cycle_models() {
    let path = std::path::Path::new(env!("CARGO_MANIFEST_DIR")).join("..").join(DOC);
    let text = std::fs::read_to_string(&path).unwrap_or_else(|e| panic!("{DOC}: {e}"));
    let rows = committed_rows(DOC, &text).unwrap_or_else(|e| panic!("{e}"));
    let scenes = Scene::shipped().expect("scenes/");
    // Every built (scene, preset), in the bench's order, and nothing else.
    let mut built = Vec::new();
    for (name, scene) in &scenes {
        let own = scene.to_frame(name).expect("valid scene");
        for preset in PRESETS {
            if let Ok(frame) = frame_at(&own, preset) {
                built.push((name.clone(), preset.to_string(), frame));
            }
        }
    }
    let keys: Vec<(&str, &str)> = built.iter().map(|(s, p, _)| (s.as_str(), p.as_str())).collect();
    let committed: Vec<(&str, &str)> = rows.iter().map(|r| (r.scene.as_str(), r.preset.as_str())).collect();
    assert_eq!(
        committed, keys,
        "{DOC}: the frame table's rows are not every built scene and preset in the bench's order; \
         rerun `cargo bench -p tilerast-golden --bench frame -- --update-docs`"
    );
    // The cheapest rows within the budget.
    let mut order: Vec<usize> = (0..rows.len()).collect();
    order.sort_by_key(|&i| rows[i].frame_cycles);
    let (mut spent, mut rerun) = (0u64, 0usize);
    for i in order {
        let cost = rows[i].frame_cycles * (1 + STEADY_FRAMES as u64);
        if spent + cost > BUDGET {
            break;
        }
        spent += cost;
        let (scene, preset, frame) = &built[i];
        let (fig, stats) = FrameFigures::measure(scene, frame).unwrap_or_else(|e| panic!("{scene} on {preset}: {e}"));
        // Activity: the frame really drew something and moved bytes.
        assert!(
            stats.shading.beats > 0 && stats.tiles_done > 0 && fig.cycles.port_bytes > 0,
            "{scene} on {preset}: an empty frame"
        );
        assert_eq!(
            rows[i].line,
            fig.table_row(),
            "{DOC}: the `{scene}` / `{preset}` row is stale (committed, then measured now); rerun \
             `cargo bench -p tilerast-golden --bench frame -- --update-docs`"
        );
        rerun += 1;
    }
    assert!(rerun >= 3, "only {rerun} rows fit the budget of {BUDGET} model cycles");
    eprintln!("{rerun} of {} rows rerun ({spent} model cycles)", rows.len());
}
