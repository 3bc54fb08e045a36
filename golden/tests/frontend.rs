//! The software front end and the width claims: float → 1/256 fixed point (ties to even),
//! guard-band rejection, and no overflow anywhere at the extremes of the largest configurable
//! viewport and guard band. The test profile keeps overflow checks on, so an overflowing
//! product anywhere in setup, the model or the reference panics here.

use tilerast_golden::config::{MAX_GUARD_BAND, MAX_POINT_SIZE, MAX_VIEWPORT};
use tilerast_golden::pipeline::raster_frame;
use tilerast_golden::prim::quads_to_coverage;
use tilerast_golden::reference::{self, RefStats};
use tilerast_golden::scene::{to_fixed, Frame, Scene};
use tilerast_golden::setup::setup_triangle;
use tilerast_golden::{Config, PointFx, PrimitiveFx, TriangleFx};

fn extreme_cfg(msaa: u32) -> Config {
    let mut c = Config::preset("full").unwrap();
    c.viewport = [MAX_VIEWPORT, MAX_VIEWPORT];
    c.guard_band = MAX_GUARD_BAND;
    c.msaa = msaa;
    c.max_point_size = MAX_POINT_SIZE;
    c.validate().unwrap();
    c
}

#[test]
fn extreme_triangles_do_not_overflow_and_match_reference() {
    for msaa in [1, 16] {
        let cfg = extreme_cfg(msaa);
        let (lo, hi) = cfg.guard_limits_fx();
        // Corners of the guard band, and thin slivers whose edge constants are the largest.
        let tris = [
            [[lo[0], lo[1]], [hi[0], lo[1]], [lo[0], hi[1]]],
            [[hi[0], hi[1]], [lo[0], hi[1]], [hi[0], lo[1]]],
            [[lo[0], lo[1]], [hi[0], hi[1] - 512], [hi[0], hi[1]]],
            [[lo[0], hi[1]], [hi[0], lo[1]], [hi[0] - 512, lo[1]]],
        ];
        for v in tris {
            let t = TriangleFx {
                v,
                colour: [1, 2, 3, 4],
                depth: 0,
            };
            let s = setup_triangle(&cfg, &t).expect("extreme triangle sets up");
            // The edge values at the far corners stay well inside i64.
            for e in &s.edges {
                for (x, y) in [(lo[0], lo[1]), (hi[0], hi[1]), (lo[0], hi[1]), (hi[0], lo[1])] {
                    assert!(e.eval(x as i64, y as i64).unsigned_abs() < 1u64 << 47);
                }
            }
        }
        // Pipeline on a frame made of slivers and points at the extremes, vs the reference.
        let prims = vec![
            PrimitiveFx::Triangle(TriangleFx {
                v: tris[2],
                colour: [9; 4],
                depth: 0,
            }),
            PrimitiveFx::Triangle(TriangleFx {
                v: tris[3],
                colour: [9; 4],
                depth: 0,
            }),
            PrimitiveFx::Point(PointFx {
                pos: [
                    hi[0] - (MAX_GUARD_BAND as i32 - 200) * 256,
                    hi[1] - (MAX_GUARD_BAND as i32 - 200) * 256,
                ],
                size: (MAX_POINT_SIZE as i32 + 1) * 256,
                aa: false,
                colour: [1; 4],
                depth: 0,
            }),
            PrimitiveFx::Point(PointFx {
                pos: [lo[0], lo[1]],
                size: (MAX_POINT_SIZE as i32 + 1) * 256,
                aa: true,
                colour: [1; 4],
                depth: 0,
            }),
            PrimitiveFx::Point(PointFx {
                pos: [0, 0],
                size: (MAX_POINT_SIZE as i32 + 1) * 256,
                aa: true,
                colour: [1; 4],
                depth: 0,
            }),
        ];
        let frame = Frame {
            cfg: cfg.clone(),
            background: [0; 4],
            prims: prims.clone(),
        };
        let out = raster_frame(&frame, false).unwrap();
        for (i, p) in prims.iter().enumerate() {
            let q: Vec<_> = out
                .quads
                .iter()
                .filter(|t| t.quad.prim == i as u32)
                .map(|t| t.quad)
                .collect();
            let got = quads_to_coverage(&q, msaa).unwrap();
            let want = reference::primitive(&cfg, p, &mut RefStats::default());
            assert_eq!(got, want, "primitive {i} at {msaa}x");
            if i != 3 {
                assert!(!got.is_empty(), "primitive {i} must cover something");
            }
        }
    }
}

#[test]
fn guard_band_edges_are_inclusive_and_one_unit_beyond_is_rejected() {
    let s = |x: f64| {
        format!(
            r#"{{"config":{{"preset":"ice40"}},"primitives":[{{"triangle":{{"v":[[{x},0],[10,0],[0,10]],"colour":[1,1,1,1]}}}}]}}"#
        )
    };
    // ice40: viewport 160 wide, guard band 32 → x in [-32, 192].
    assert!(Scene::from_json(&s(192.0), "g").unwrap().to_frame("g").is_ok());
    assert!(Scene::from_json(&s(-32.0), "g").unwrap().to_frame("g").is_ok());
    // 1/512 px beyond rounds (ties to even) back onto the limit: still accepted.
    assert!(Scene::from_json(&s(192.0 + 1.0 / 512.0), "g")
        .unwrap()
        .to_frame("g")
        .is_ok());
    let e = Scene::from_json(&s(192.0 + 1.0 / 256.0), "g")
        .unwrap()
        .to_frame("g")
        .unwrap_err();
    assert_eq!(e.at, "primitives[0].triangle.v[0].x");
    let e = Scene::from_json(&s(-32.0 - 1.0 / 256.0), "g")
        .unwrap()
        .to_frame("g")
        .unwrap_err();
    assert!(e.msg.contains("guard band"), "{e}");
}

#[test]
fn rounding_is_to_nearest_ties_to_even_at_every_scale() {
    // k + 1/2 units rounds to the even neighbour; k + 1/2 ± tiny rounds to nearest.
    for k in [-1000i32, -3, -2, -1, 0, 1, 2, 3, 1001] {
        let v = (k as f64 + 0.5) / 256.0;
        let even = if k % 2 == 0 { k } else { k + 1 };
        assert_eq!(to_fixed(v), Some(even), "{v}");
        assert_eq!(to_fixed(v + 1e-9), Some(k + 1));
        assert_eq!(to_fixed(v - 1e-9), Some(k));
    }
    assert_eq!(to_fixed(f64::NEG_INFINITY), None);
    assert_eq!(to_fixed(1e300), None);
}
