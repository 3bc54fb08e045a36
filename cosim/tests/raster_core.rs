//! raster_core RTL (Verilator, `rtl-out/tilerast_<preset>.v`) against `RasterCoreCycle`, port by
//! port, every cycle: shipped scenes on their presets with random gaps, back-pressure, stalls of
//! thousands of cycles and a flush mid-stream; random frames on every preset; and a mutant
//! RTL that must be caught at the exact cycle its broken bit first matters.

use proptest::prelude::*;
use std::collections::BTreeMap;
use tilerast_cosim::*;
use tilerast_golden::pipeline::raster_frame;
use tilerast_golden::prim::{quads_to_coverage, Coverage};
use tilerast_golden::reference::{self, RefStats};
use tilerast_golden::scene::{Frame, Scene};
use tilerast_golden::streams::{commands, Cmd};
use tilerast_golden::{Config, PointFx, PrimitiveFx, Quad, TriangleFx, PRESETS};

const SCENES: &[&str] = &["default", "points", "mesh", "large_triangles", "slivers"];

fn scene(name: &str) -> Frame {
    let path = format!("{}/../scenes/{name}.json", env!("CARGO_MANIFEST_DIR"));
    Scene::load(std::path::Path::new(&path))
        .unwrap()
        .to_frame(name)
        .unwrap()
}

/// The preset whose RTL implements this frame's config (scenes must not override RTL constants).
fn preset_of(frame: &Frame) -> &'static str {
    PRESETS
        .iter()
        .find(|p| Config::preset(p).unwrap() == frame.cfg)
        .copied()
        .expect("scene config equals one of the presets")
}

fn golden_quads(frame: &Frame) -> Vec<Quad> {
    raster_frame(frame, false)
        .unwrap()
        .quads
        .into_iter()
        .map(|t| t.quad)
        .collect()
}

/// Per-primitive coverage from the co-simulated quads equals the reference rasterizer's.
fn check_reference(frame: &Frame, quads: &[Quad]) {
    let mut per_prim: BTreeMap<u32, Vec<Quad>> = BTreeMap::new();
    for q in quads {
        per_prim.entry(q.prim).or_default().push(*q);
    }
    for (i, p) in frame.prims.iter().enumerate() {
        let want = reference::primitive(&frame.cfg, p, &mut RefStats::default());
        let got: Coverage = per_prim
            .get(&(i as u32))
            .map(|q| quads_to_coverage(q, frame.cfg.msaa).expect("quad contract"))
            .unwrap_or_default();
        assert_eq!(got, want, "primitive {i} differs from the reference");
    }
}

fn ok(r: Result<Summary, Mismatch>) -> Summary {
    match r {
        Ok(s) => s,
        Err(m) => panic!("RTL/model mismatch:\n{m}"),
    }
}

#[test]
fn shipped_scenes_match_model_golden_and_reference() {
    for name in SCENES {
        let frame = scene(name);
        let preset = preset_of(&frame);
        let cmds = commands(&frame).unwrap();
        let want = golden_quads(&frame);
        assert!(!want.is_empty());

        // Random gaps and ready regimes (incl. stalled stretches).
        let s = ok(cosim(
            preset,
            &cmds,
            &Stimulus {
                seed: 7,
                gap_pct: 20,
                ..Stimulus::default()
            },
        ));
        assert_eq!(s.lasts, cmds.len() as u64, "{name}: one last per command");
        assert!(s.quads == want, "{name}: quads differ from golden");
        check_reference(&frame, &s.quads);

        // Stalls of thousands of cycles and a flush a third of the way through.
        let stim = Stimulus {
            seed: 0xfeed,
            gap_pct: 35,
            ready: Ready::Stalls {
                pct: 70,
                every: 6000,
                len: 3500,
            },
            flush_at: Some(s.cycles / 3),
            max_cycles: 50_000_000,
        };
        let f = ok(cosim(preset, &cmds, &stim));
        assert!(f.flushed);
        assert!(f.commands > cmds.len() as u64, "{name}: the flush hit mid-stream");
        assert_eq!(f.lasts, cmds.len() as u64);
        assert!(f.quads == want, "{name}: quads differ from golden after a flush");
        eprintln!(
            "{name} ({preset}): {} cmds, {} quads, {} + {} cycles, {:.2} M cycles/s",
            cmds.len(),
            want.len(),
            s.cycles,
            f.cycles,
            (s.cycles + f.cycles) as f64 / (s.secs + f.secs) / 1e6
        );
    }
}

#[test]
fn interleaved_triangles_and_points_on_ice40() {
    let mesh = commands(&scene("mesh")).unwrap();
    let pts = commands(&scene("points")).unwrap();
    let mut cmds: Vec<Cmd> = Vec::new();
    for (i, t) in mesh.iter().enumerate() {
        cmds.push(*t);
        if i % 2 == 0 {
            cmds.push(pts[i % pts.len()]);
        }
    }
    for seed in 1..4 {
        let s = ok(cosim(
            "ice40",
            &cmds,
            &Stimulus {
                seed,
                gap_pct: 10 * seed as u32,
                ..Stimulus::default()
            },
        ));
        assert_eq!(s.lasts, cmds.len() as u64);
    }
}

/// The mutant (lane 0 mask bit 0 forced to 0 at the output port) must be reported at the first
/// cycle where the model's `out_mask_0` has bit 0 set, on port `out_mask_0`.
#[test]
fn mutant_is_caught_at_the_expected_cycle() {
    let frame = scene("mesh");
    let cmds = commands(&frame).unwrap();
    let stim = Stimulus {
        seed: 3,
        ..Stimulus::default()
    };
    // The unmutated RTL passes this stimulus.
    ok(cosim("ice40", &cmds, &stim));
    let outs = model_outputs(&frame.cfg, &cmds, &stim);
    let expected = outs
        .chunks(OUT_W)
        .position(|w| w[6] & 1 == 1)
        .expect("bit 0 of lane 0 is set somewhere");
    let m = cosim_model("ice40_mut", &frame.cfg, &cmds, &stim, None).expect_err("the mutant must be caught");
    eprintln!("mutant caught: {m}");
    assert_eq!(m.cycle, expected as u64);
    assert_eq!(m.port, "out_mask_0");
    assert_eq!(m.model & 1, 1);
    assert_eq!(m.rtl, m.model & !1);
}

#[cfg(feature = "trace")]
#[test]
fn vcd_around_a_mismatch() {
    let frame = scene("mesh");
    let cmds = commands(&frame).unwrap();
    let stim = Stimulus {
        seed: 3,
        ..Stimulus::default()
    };
    let m = cosim_model("ice40_mut", &frame.cfg, &cmds, &stim, None).unwrap_err();
    let path = format!("{}/mutant.vcd", std::env::temp_dir().display());
    assert!(m.cycle > 8);
    vcd_around("ice40_mut", &frame.cfg, &cmds, &stim, &m, 5, &path).unwrap();
    let vcd = std::fs::read_to_string(&path).unwrap();
    assert!(vcd.contains("$enddefinitions"));
    assert!(
        vcd.contains(&format!("\n#{}\n", m.cycle * 10)),
        "the mismatch cycle is in the dump"
    );
    assert!(
        vcd.contains(&format!("\n#{}\n", (m.cycle - 5) * 10)),
        "the window starts 5 cycles before"
    );
    assert!(
        !vcd.contains(&format!("\n#{}\n", (m.cycle - 6) * 10)),
        "only the window is dumped"
    );
}

fn prim_strategy(cfg: &Config) -> impl Strategy<Value = PrimitiveFx> {
    let (w, h) = (cfg.viewport[0] as i32 * 256, cfg.viewport[1] as i32 * 256);
    let g = cfg.guard_band as i32 * 256;
    let c = (-g..w + g, -g..h + g);
    let tri = (
        c.clone(),
        (-4000i32..4000, -4000i32..4000),
        (-4000i32..4000, -4000i32..4000),
        0u8..4,
    )
        .prop_map(move |((x, y), (dx1, dy1), (dx2, dy2), size)| {
            let k = [1, 1, 8, 40][size as usize];
            let cl = |v: i32, lo: i32, hi: i32| v.clamp(lo, hi);
            let v1 = [cl(x + dx1 * k, -g, w + g), cl(y + dy1 * k, -g, h + g)];
            let v2 = [cl(x + dx2 * k, -g, w + g), cl(y + dy2 * k, -g, h + g)];
            PrimitiveFx::Triangle(TriangleFx {
                v: [[x, y], v1, v2],
                colour: [1; 4],
                depth: 0,
            })
        });
    let max = cfg.max_point_size as i32 * 256 + 256;
    let pt = (c, 0..max, any::<bool>()).prop_map(|((x, y), size, aa)| {
        PrimitiveFx::Point(PointFx {
            pos: [x, y],
            size,
            aa,
            colour: [1; 4],
            depth: 0,
        })
    });
    prop_oneof![3 => tri, 1 => pt]
}

fn frame_strategy(preset: &'static str) -> impl Strategy<Value = (Vec<PrimitiveFx>, u64, u32, u8)> {
    let cfg = Config::preset(preset).unwrap();
    (
        proptest::collection::vec(prim_strategy(&cfg), 1..48),
        any::<u64>(),
        0u32..60,
        0u8..3,
    )
}

fn random_frame(
    preset: &'static str,
    prims: Vec<PrimitiveFx>,
    seed: u64,
    gap: u32,
    rmode: u8,
) -> Result<(), TestCaseError> {
    let cfg = Config::preset(preset).unwrap();
    let frame = Frame {
        cfg: cfg.clone(),
        background: [0; 4],
        prims,
    };
    let cmds = commands(&frame).unwrap();
    let ready = match rmode {
        0 => Ready::Regimes { period: 256 },
        1 => Ready::Random { pct: 60 },
        _ => Ready::Stalls {
            pct: 85,
            every: 3000,
            len: 1200,
        },
    };
    let stim = Stimulus {
        seed,
        gap_pct: gap,
        ready,
        flush_at: None,
        max_cycles: 20_000_000,
    };
    let s = cosim(preset, &cmds, &stim).map_err(|m| TestCaseError::fail(format!("{preset}: {m}")))?;
    prop_assert_eq!(s.lasts, cmds.len() as u64);
    prop_assert!(
        s.quads == golden_quads(&frame),
        "quads differ from golden on {}",
        preset
    );
    Ok(())
}

proptest! {
    #![proptest_config(ProptestConfig { cases: 96, failure_persistence: None, ..ProptestConfig::default() })]
    #[test]
    fn random_frames_ice40((prims, seed, gap, r) in frame_strategy("ice40")) { random_frame("ice40", prims, seed, gap, r)?; }
    #[test]
    fn random_frames_default((prims, seed, gap, r) in frame_strategy("default")) { random_frame("default", prims, seed, gap, r)?; }
    #[test]
    fn random_frames_full((prims, seed, gap, r) in frame_strategy("full")) { random_frame("full", prims, seed, gap, r)?; }
}
