//! The whole golden pipeline on the shipped scenes and on generated frames: the raster side's
//! quads equal the brute-force reference per primitive, and the image shows what the scene
//! draws.

use std::collections::BTreeMap;
use tilerast_golden::pipeline::{raster_frame, render_frame};
use tilerast_golden::prim::{coverage_samples, quads_to_coverage, Coverage};
use tilerast_golden::reference::{self, RefStats};
use tilerast_golden::scene::{Frame, Scene};
use tilerast_golden::{Config, PrimitiveFx, Quad, TriangleFx, PRESETS};

fn shipped_scenes() -> Vec<(String, Scene)> {
    let v = Scene::shipped().expect("shipped scenes parse");
    assert!(!v.is_empty());
    v
}

/// Per-primitive coverage from the frame's quads vs the reference, exactly.
fn check_against_reference(frame: &Frame) -> u64 {
    let out = raster_frame(frame, false).expect("raster");
    let mut per_prim: BTreeMap<u32, Vec<Quad>> = BTreeMap::new();
    for tq in &out.quads {
        // Every quad lies in the tile it was emitted for.
        let (x, y) = (2 * tq.quad.qx as u32, 2 * tq.quad.qy as u32);
        assert_eq!(
            [x / frame.cfg.tile[0], y / frame.cfg.tile[1]],
            tq.tile,
            "quad {:?} outside its tile",
            tq
        );
        per_prim.entry(tq.quad.prim).or_default().push(tq.quad);
    }
    let mut total = 0;
    let reference = reference::primitives(&frame.cfg, &frame.prims, &mut RefStats::default());
    for (i, (p, want)) in frame.prims.iter().zip(reference).enumerate() {
        let got: Coverage = per_prim
            .get(&(i as u32))
            .map(|q| quads_to_coverage(q, frame.cfg.msaa).expect("quad contract"))
            .unwrap_or_default();
        assert_eq!(got, want, "primitive {i} ({p:?}) differs from the reference");
        total += coverage_samples(&got);
    }
    assert_eq!(out.stats.covered_samples, total);
    assert_eq!(out.stats.quads, out.quads.len() as u64);
    total
}

#[test]
fn shipped_scenes_match_reference_on_every_preset() {
    for (name, scene) in shipped_scenes() {
        let base = scene.to_frame(&name).expect("valid");
        for preset in PRESETS {
            let mut frame = base.clone();
            let keep_viewport = frame.cfg.viewport;
            frame.cfg = Config::preset(preset).unwrap();
            // Keep the scene's own viewport so its geometry stays inside the guard band.
            frame.cfg.viewport = keep_viewport;
            frame.cfg.guard_band = frame.cfg.guard_band.max(256);
            frame.cfg.validate().unwrap();
            let covered = check_against_reference(&frame);
            assert!(covered > 0, "{name} on {preset} covers nothing");
            if name.ends_with("mesh.json") {
                // The shipped mesh tiles its viewport: every sample exactly once.
                let [w, h] = frame.cfg.viewport;
                assert_eq!(
                    covered,
                    (w * h * frame.cfg.msaa) as u64,
                    "{name} on {preset} is not watertight"
                );
            }
        }
    }
}

#[test]
fn default_scene_renders_what_it_draws() {
    let frame = Scene::builtin_default().to_frame("default").unwrap();
    let out = render_frame(&frame).expect("render");
    let (w, h) = (out.image.width as usize, out.image.height as usize);
    assert_eq!((w, h), (640, 480));
    let px = |x: usize, y: usize| {
        let o = ((h - 1 - y) * w + x) * 4;
        [
            out.image.rgba[o],
            out.image.rgba[o + 1],
            out.image.rgba[o + 2],
            out.image.rgba[o + 3],
        ]
    };
    // Outside every primitive: the background.
    assert_eq!(px(5, 5), frame.background);
    // Deep inside the first big triangle (opaque, nothing nearer there): its colour exactly.
    assert_eq!(px(500, 40), [40, 60, 120, 255]);
    // The pipeline's stages all did work.
    let s = &out.raster.stats;
    assert!(s.quads > 0 && s.covered_samples > 0);
    assert!(s.bin.bytes_written > 0);
    assert!(s.pixel_info.bytes_written > 0 && s.pixel_info.bytes_read > 0);
    assert!(s.shade.shading_invocations > 0 && s.shade.visible_samples > 0);
    assert!(s.blend.blend_ops > 0);
    // Flat-coloured interiors merge in the blender: fewer ops and cycles than without merge.
    assert!(s.blend.blend_ops < s.blend_nomerge.blend_ops);
    assert!(s.blend.cycles < s.blend_nomerge.cycles);
    assert!(s.pixel.partial_slots > 0, "antialiased edges exist");
}

#[test]
fn opaque_mesh_covering_viewport_leaves_no_background() {
    // Two triangles covering the whole ice40 viewport: every pixel must be the mesh colour,
    // at every MSAA rate (a crack would let the background through).
    for msaa in [1, 2, 4, 8, 16] {
        let mut cfg = Config::preset("ice40").unwrap();
        cfg.msaa = msaa;
        let [w, h] = [cfg.viewport[0] as i32 * 256, cfg.viewport[1] as i32 * 256];
        let c = [10, 200, 30, 255];
        let prims = vec![
            PrimitiveFx::Triangle(TriangleFx {
                v: [[0, 0], [w, 0], [w, h]],
                colour: c,
                depth: 0,
            }),
            PrimitiveFx::Triangle(TriangleFx {
                v: [[0, 0], [w, h], [0, h]],
                colour: c,
                depth: 0,
            }),
        ];
        let frame = Frame {
            cfg: cfg.clone(),
            background: [0, 0, 0, 255],
            prims,
        };
        let out = render_frame(&frame).unwrap();
        assert!(
            out.image.rgba.chunks(4).all(|p| p == c),
            "background leaks through at {msaa}x"
        );
        assert_eq!(
            out.raster.stats.covered_samples,
            (cfg.viewport[0] * cfg.viewport[1] * msaa) as u64
        );
    }
}
