//! raster_core (all blocks wired) in the rust-hdl simulator against `RasterCoreCycle`: the same
//! stimulus — real commands from the shipped ice40 scenes (triangles and points interleaved),
//! random input gaps, random and long output stalls, a flush in the middle — drives both, and
//! every output port must agree on every cycle. Short by design (rust-hdl's simulator is slow);
//! the long regressions run on Verilator in `cosim/`.

mod common;

use common::Run;
use tilerast_golden::pipeline::commands;
use tilerast_golden::raster_core::RasterCoreCycle;
use tilerast_golden::scene::Scene;
use tilerast_golden::streams::Cmd;
use tilerast_golden::Config;
use tilerast_hw::raster_core::RasterCore;
use tilerast_verif::{Flush, Handshake, Pattern};

fn scene_cmds(name: &str) -> (Config, Vec<Cmd>) {
    let path = format!("{}/../scenes/{name}.json", env!("CARGO_MANIFEST_DIR"));
    let frame = Scene::load(std::path::Path::new(&path))
        .unwrap()
        .to_frame(name)
        .unwrap();
    (frame.cfg.clone(), commands(&frame).unwrap())
}

/// Runs block and model side by side (20 % input gaps; 80 % ready, stalled for the last 97
/// cycles of every 388); panics at a difference. Returns (quads transferred, commands
/// accepted).
fn run(cfg: Config, cmds: Vec<Cmd>, seed: u64, cycles: u64, flush_at: Option<u64>) -> (u64, u64) {
    let ready = Pattern::Stalls {
        pct: 80,
        every: 388,
        len: 97,
    };
    let hs = Handshake::new(Pattern::gaps(20), ready).with_flush(flush_at.map_or(Flush::Never, Flush::At));
    let r = Run::new(hs, seed, cycles).go(RasterCore::new(&cfg), RasterCoreCycle::new(&cfg), cmds);
    let quads: u64 = r.outputs().map(|b| b.lane_valid.count_ones() as u64).sum();
    println!("{} ({quads} quads)", r.summary());
    r.assert_clean("raster_core");
    (quads, r.accepted)
}

#[test]
fn raster_core_matches_cycle_model_on_mixed_commands() {
    // Interleave triangles of the watertight mesh with points, on the ice40 preset.
    let (cfg, tris) = scene_cmds("mesh");
    let (_, pts) = scene_cmds("points");
    let mut cmds = Vec::new();
    for (i, t) in tris.iter().take(24).enumerate() {
        cmds.push(*t);
        if i % 3 == 0 {
            cmds.push(pts[i % pts.len()]);
        }
    }
    let (quads, accepted) = run(cfg, cmds, 0x5eed, 1200, None);
    assert!(quads > 50, "the run must emit quads ({quads})");
    assert!(accepted > 10, "the run must accept commands ({accepted})");
}

#[test]
fn flush_mid_stream_matches_cycle_model() {
    let (cfg, tris) = scene_cmds("mesh");
    let cmds: Vec<Cmd> = tris.into_iter().take(16).collect();
    let (quads, _) = run(cfg, cmds, 0xf1a5, 600, Some(150));
    assert!(quads > 0);
}
