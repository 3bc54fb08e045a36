//! raster_core's cycle model (all block models wired as in `hw/src/raster_core.rs`) against
//! the golden transaction model, no RTL involved: for the same frame, the quads it emits, in
//! order, equal `pipeline::raster_frame`'s, under random input gaps and output back-pressure
//! (including long stalls), on every preset; every command ends with exactly one `last` beat;
//! a flush mid-stream leaves nothing stale.

use proptest::prelude::*;
use tilerast_golden::cycle::CycleModel;
use tilerast_golden::pipeline::{commands, raster_frame};
use tilerast_golden::raster_core::RasterCoreCycle;
use tilerast_golden::scene::{Frame, Scene};
use tilerast_golden::streams::Cmd;
use tilerast_golden::{Config, PrimitiveFx, Quad, PRESETS};
use tilerast_verif::stim::{guard_box_fx, point_at, point_sizes_fx, spread_triangle};
use tilerast_verif::{Flush, Handshake, Pattern};

/// Run `cmds` through the model with random gaps (20 %) and ready regimes (incl. long
/// stalls); returns (quads, last beats, cycles).
fn run(cfg: &Config, cmds: &[Cmd], seed: u64, flush_at: Option<u64>) -> (Vec<Quad>, usize, u64) {
    let mut m = RasterCoreCycle::new(cfg);
    let mut lines = Handshake::new(Pattern::gaps(20), Pattern::Regimes { period: 256 })
        .with_flush(flush_at.map_or(Flush::Never, Flush::At))
        .lines(seed);
    let (mut next, mut lasts, mut quads, mut cyc) = (0usize, 0usize, Vec::new(), 0u64);
    while (lasts < cmds.len() || next < cmds.len()) && cyc < 5_000_000 {
        let c = lines.step();
        let out_ready = c.ready;
        let in_valid = next < cmds.len() && c.valid;
        let inp = if next < cmds.len() { cmds[next] } else { Cmd::default() };
        let flush = c.flush;
        let (v, beat) = m.out();
        if flush {
            // Everything in flight is dropped; start the stream over after the flush.
            m.clock(in_valid, &inp, out_ready, true);
            next = 0;
            lasts = 0;
            quads.clear();
            cyc += 1;
            assert_eq!(m.in_flight(), 0);
            assert!(!m.out().0, "nothing valid right after a flush");
            continue;
        }
        if v && out_ready {
            quads.extend(beat.quads());
            lasts += beat.last as usize;
        }
        if in_valid && m.in_ready(out_ready) {
            next += 1;
        }
        m.clock(in_valid, &inp, out_ready, false);
        cyc += 1;
    }
    (quads, lasts, cyc)
}

fn golden_quads(frame: &Frame) -> Vec<Quad> {
    raster_frame(frame, false)
        .unwrap()
        .quads
        .into_iter()
        .map(|t| t.quad)
        .collect()
}

#[test]
fn shipped_scenes_equal_golden() {
    for name in ["default", "points", "mesh", "large_triangles", "slivers"] {
        let path = format!("{}/../scenes/{name}.json", env!("CARGO_MANIFEST_DIR"));
        let frame = Scene::load(std::path::Path::new(&path))
            .unwrap()
            .to_frame(name)
            .unwrap();
        let cmds = commands(&frame).unwrap();
        let want = golden_quads(&frame);
        assert!(!want.is_empty());
        let (got, lasts, _) = run(&frame.cfg, &cmds, 7, None);
        assert_eq!(lasts, cmds.len(), "{name}: one last per command");
        assert!(got == want, "{name}: quads differ from golden");
        let (got, lasts, _) = run(&frame.cfg, &cmds, 11, Some(1000));
        assert_eq!(lasts, cmds.len());
        assert!(got == want, "{name}: quads differ from golden after a flush");
    }
}

/// Triangles (the other vertices up to 4000/256 px away, or 40 times that) and points, 3 : 1.
fn prim_strategy(cfg: &Config) -> impl Strategy<Value = PrimitiveFx> {
    let (at, d, tri_cfg) = (guard_box_fx(cfg), (-4000i32..4000, -4000i32..4000), cfg.clone());
    let tri = (at.clone(), d.clone(), d, any::<bool>())
        .prop_map(move |(v0, d1, d2, huge)| spread_triangle(&tri_cfg, v0, d1, d2, if huge { 40 } else { 1 }));
    let pt = (at, point_sizes_fx(cfg), any::<bool>()).prop_map(|(pos, size, aa)| point_at(pos, size, aa));
    prop_oneof![3 => tri, 1 => pt]
}

fn frame_strategy() -> impl Strategy<Value = (usize, Vec<PrimitiveFx>, u64)> {
    (0usize..PRESETS.len()).prop_flat_map(|p| {
        let cfg = Config::preset(PRESETS[p]).unwrap();
        (
            Just(p),
            proptest::collection::vec(prim_strategy(&cfg), 1..12),
            any::<u64>(),
        )
    })
}

proptest! {
    #![proptest_config(ProptestConfig { cases: 48, ..ProptestConfig::default() })]
    #[test]
    fn random_frames_equal_golden((preset, prims, seed) in frame_strategy()) {
        let cfg = Config::preset(PRESETS[preset]).unwrap();
        let frame = Frame { cfg: cfg.clone(), background: [0; 4], prims };
        let cmds = commands(&frame).unwrap();
        let want = golden_quads(&frame);
        let (got, lasts, _) = run(&cfg, &cmds, seed, None);
        prop_assert_eq!(lasts, cmds.len());
        prop_assert!(got == want, "quads differ from golden on {}", PRESETS[preset]);
    }
}
