//! Wavefront OBJ → scene (`tilerast import mesh.obj`, or `tilerast render mesh.obj`).
//!
//! Conventions (documented in `cli/README.md`):
//! - The file is first pre-scanned line by line, so that a bad vertex (`v nan 0 0`, a missing
//!   coordinate, `1e99` which overflows OBJ's f32) or a face index out of range is reported with
//!   its line number. Then `tobj` loads it with triangulation (polygons become fans).
//! - Camera: it looks at the centre of the mesh's bounding box from direction `--view` (from the
//!   centre towards the eye; default `1,0.8,1.6`), world +y up (+z if the view is vertical), at a
//!   distance where the bounding sphere fills the `--fov` cone. Perspective projection.
//! - The projected mesh is scaled uniformly and centred so its 2D bounding box fits the preset's
//!   viewport minus `--margin` on each side: every vertex lands inside the viewport.
//! - Colour: per triangle, the material's diffuse colour (white-ish grey `200,200,200` without a
//!   material) times a Lambert term `0.25 + 0.75·max(0, n·L)`, n = face normal from the
//!   counter-clockwise winding, L = a light above-left of the camera. Alpha 255.
//! - Depth: view-space distance of the triangle's centroid, normalised to [0, 1] over the mesh's
//!   vertices (0 = nearest). No culling here: front faces (CCW in the OBJ) stay CCW on screen,
//!   so the config's `cull: "cw"` drops back faces.
//! - Output order: triangles in file order (objects in order, faces in order, fan order).
//!
//! ```text
//!   text ─► prescan (line numbers) ─► tobj (triangulate) ─► camera ─► project ─► fit viewport
//!                                                                  └► Lambert colour, depth
//! ```

use crate::error::{CliError, Res};
use crate::progress::Progress;
use crate::scene_io::{check_triangles, parse_vec3, snap, ImportArgs};
use std::io::{BufReader, Read};
use std::path::Path;
use tilerast_golden::scene::{Primitive, Triangle};
use tilerast_golden::{Config, Scene};

type V3 = [f64; 3];

fn sub(a: V3, b: V3) -> V3 {
    [a[0] - b[0], a[1] - b[1], a[2] - b[2]]
}
fn add(a: V3, b: V3) -> V3 {
    [a[0] + b[0], a[1] + b[1], a[2] + b[2]]
}
fn scale(a: V3, s: f64) -> V3 {
    [a[0] * s, a[1] * s, a[2] * s]
}
fn dot(a: V3, b: V3) -> f64 {
    a[0] * b[0] + a[1] * b[1] + a[2] * b[2]
}
fn cross(a: V3, b: V3) -> V3 {
    [
        a[1] * b[2] - a[2] * b[1],
        a[2] * b[0] - a[0] * b[2],
        a[0] * b[1] - a[1] * b[0],
    ]
}
fn norm(a: V3) -> Option<V3> {
    let l = dot(a, a).sqrt();
    (l > 1e-300 && l.is_finite()).then(|| scale(a, 1.0 / l))
}

/// Import an OBJ file for the viewport of `cfg`.
pub fn import(path: &Path, cfg: &Config, imp: &ImportArgs) -> Res<Scene> {
    let text = tilerast_golden::scene::read_input_text(path)?;
    let dir = path.parent().map(Path::to_path_buf).unwrap_or_default();
    obj_to_scene(&text, &dir, &path.display().to_string(), cfg, imp)
}

/// Check every line `tobj` would refuse, so that errors carry a line number (tobj's do not):
/// `v` (3 coordinates, then nothing, a non-zero `w` or an `r g b` colour), `vt` (2 numbers),
/// `vn` (3 numbers), `f` / `l` (`v`, `v/vt`, `v//vn` or `v/vt/vn` per vertex, every index in
/// range) and `usemtl` (a name). Also counts the triangles the faces make (a face of n
/// vertices is a fan of n − 2) and refuses more than a scene may hold
/// ([`check_triangles`]) before `tobj` allocates them.
fn prescan(text: &str, file: &str, imp: &ImportArgs) -> Res<()> {
    // Counts of v, vt, vn lines so far.
    let mut count = [0i64; 3];
    let mut triangles = 0u64;
    let f32_of = |t: &str| t.parse::<f32>().ok();
    for (n, line) in text.lines().enumerate() {
        let at = || format!("line {}", n + 1);
        let fail = |msg: String| Err(CliError::at(file, at(), msg));
        let mut toks = line.split_whitespace();
        let Some(kw) = toks.next() else { continue };
        if kw == "f" || kw == "l" {
            // Token by token: one face line may hold millions of vertices.
            let verts = scan_face(kw, toks, &count, &|m| CliError::at(file, at(), m))?;
            if kw == "f" {
                triangles += verts - 2;
            }
            continue;
        }
        let args: Vec<&str> = toks.collect();
        match kw {
            "v" => {
                if !matches!(args.len(), 3 | 4 | 6) {
                    return fail(format!(
                        "vertex has {} values, expected 3 (x y z), 4 (x y z w) or 6 (x y z r g b)",
                        args.len()
                    ));
                }
                // OBJ coordinates are read as f32 (tobj's default), so check them as f32.
                for (i, t) in args.iter().take(3).enumerate() {
                    let axis = ["x", "y", "z"][i];
                    match f32_of(t) {
                        None => return fail(format!("vertex {axis} `{t}` is not a number")),
                        Some(v) if !v.is_finite() => {
                            return fail(format!("vertex {axis} `{t}` is not a finite coordinate"))
                        }
                        Some(_) => {}
                    }
                }
                if args.len() == 4 {
                    let w = args[3];
                    match f32_of(w) {
                        Some(v) if v.is_finite() && v != 0.0 => {
                            let finite = args[..3].iter().all(|t| f32_of(t).is_some_and(|c| (c / v).is_finite()));
                            if !finite {
                                return fail(format!("vertex w `{w}` makes a coordinate non-finite"));
                            }
                        }
                        _ => return fail(format!("vertex w `{w}` is not a finite non-zero number")),
                    }
                }
                count[0] += 1;
            }
            "vt" | "vn" => {
                let (need, what, slot) = if kw == "vt" {
                    (2, "texture coordinate", 1)
                } else {
                    (3, "normal", 2)
                };
                if args.len() < need {
                    return fail(format!("{what} needs {need} numbers, found {}", args.len()));
                }
                if let Some(t) = args.iter().take(need).find(|t| f32_of(t).is_none()) {
                    return fail(format!("{what} value `{t}` is not a number"));
                }
                count[slot] += 1;
            }
            "usemtl" if args.is_empty() => return fail("usemtl needs a material name".into()),
            _ => {}
        }
    }
    check_triangles(file, "faces", triangles, true, imp)?;
    Ok(())
}

/// Check one `f` / `l` line's vertices (`toks`, after the keyword); the number of vertices.
fn scan_face<'a>(
    kw: &str,
    toks: impl Iterator<Item = &'a str>,
    count: &[i64; 3],
    fail: &dyn Fn(String) -> CliError,
) -> Res<u64> {
    let (what, min) = if kw == "f" { ("face", 3) } else { ("line", 2) };
    let mut n = 0u64;
    for t in toks {
        n += 1;
        let parts: Vec<&str> = t.split('/').collect();
        if parts.len() > 3 {
            return Err(fail(format!("{what} vertex `{t}` has more than 3 indices (v/vt/vn)")));
        }
        for (slot, p) in parts.iter().enumerate() {
            let name = ["vertex", "texture coordinate", "normal"][slot];
            if p.is_empty() {
                if slot == 0 {
                    return Err(fail(format!("{what} vertex `{t}` has no vertex index")));
                }
                continue;
            }
            let Ok(idx) = p.parse::<i64>() else {
                return Err(fail(format!(
                    "{what} vertex `{t}` has a {name} index `{p}` that is not an integer"
                )));
            };
            let have = count[slot];
            let ok = if idx > 0 { idx <= have } else { idx < 0 && -idx <= have };
            if !ok {
                return Err(fail(if slot == 0 {
                    format!("{what} vertex index {idx} is out of range (1..={have} vertices so far)")
                } else {
                    format!("{what} vertex `{t}`: {name} index {idx} is out of range (1..={have} so far)")
                }));
            }
        }
    }
    if n < min {
        return Err(fail(format!("{what} needs at least {min} vertices, found {n}")));
    }
    Ok(n)
}

/// The first line at which `tobj` fails, for its errors that carry no line (the prescan
/// should catch them all first): the shortest failing prefix, by bisection.
fn tobj_failing_line(text: &str, opts: &tobj::LoadOptions) -> Option<usize> {
    let lines: Vec<&str> = text.lines().collect();
    let fails = |n: usize| {
        let prefix = lines[..n].join("\n");
        tobj::load_obj_buf(&mut BufReader::new(prefix.as_bytes()), opts, |_| {
            Err(tobj::LoadError::OpenFileFailed)
        })
        .is_err()
    };
    if !fails(lines.len()) {
        return None;
    }
    let (mut lo, mut hi) = (0, lines.len()); // fails(hi), !fails(lo) (an empty file loads)
    while hi - lo > 1 {
        let mid = (lo + hi) / 2;
        if fails(mid) {
            hi = mid;
        } else {
            lo = mid;
        }
    }
    Some(hi)
}

/// The triangles of `models` in file order: world positions and the material's base colour.
fn mesh_triangles<'a>(
    models: &'a [tobj::Model],
    materials: &'a [tobj::Material],
) -> impl Iterator<Item = ([V3; 3], [f64; 3])> + 'a {
    models.iter().flat_map(move |m| {
        let mesh = &m.mesh;
        let base = mesh
            .material_id
            .and_then(|i| materials.get(i))
            .and_then(|mat| mat.diffuse)
            .map(|d| [d[0] as f64, d[1] as f64, d[2] as f64])
            .unwrap_or([200.0 / 255.0; 3]);
        let pos = move |i: u32| -> V3 {
            let i = i as usize * 3;
            [
                mesh.positions[i] as f64,
                mesh.positions[i + 1] as f64,
                mesh.positions[i + 2] as f64,
            ]
        };
        mesh.indices
            .chunks_exact(3)
            .map(move |t| ([pos(t[0]), pos(t[1]), pos(t[2])], base))
    })
}

/// The OBJ's bytes as tobj reads them, each read counted on the progress bar.
struct Counted<'a> {
    rest: &'a [u8],
    read: u64,
    progress: &'a Progress,
}

impl Read for Counted<'_> {
    fn read(&mut self, buf: &mut [u8]) -> std::io::Result<usize> {
        let n = self.rest.read(buf)?;
        self.read += n as u64;
        self.progress.set(self.read);
        Ok(n)
    }
}

/// Convert OBJ text to a scene (materials are looked up relative to `dir`).
pub fn obj_to_scene(text: &str, dir: &Path, file: &str, cfg: &Config, imp: &ImportArgs) -> Res<Scene> {
    let text = text.strip_prefix('\u{feff}').unwrap_or(text);
    prescan(text, file, imp)?;
    let view = parse_vec3("--view", &imp.view)?;
    let opts = tobj::LoadOptions {
        triangulate: true,
        single_index: true,
        ignore_points: true,
        ignore_lines: true,
    };
    // The parse is most of the import's own time: its bar counts the bytes tobj has read.
    let progress = Progress::new(text.len() as u64, "bytes", format!("import {file}"), imp.quiet);
    let counted = Counted {
        rest: text.as_bytes(),
        read: 0,
        progress: &progress,
    };
    let parsed = tobj::load_obj_buf(&mut BufReader::new(counted), &opts, |p| {
        // Through read_input: a material file is size-limited like the OBJ itself.
        let text =
            tilerast_golden::scene::read_input_text(&dir.join(p)).map_err(|_| tobj::LoadError::OpenFileFailed)?;
        tobj::load_mtl_buf(&mut BufReader::new(text.as_bytes()))
    });
    progress.finish();
    let (models, materials) = parsed.map_err(|e| match tobj_failing_line(text, &opts) {
        Some(n) => CliError::at(file, format!("line {n}"), e),
        None => CliError::at(file, "obj", e),
    })?;
    // A missing or bad .mtl only loses colours.
    let materials = materials.unwrap_or_default();

    // Triangles (world positions + base colour) in file order, read from the meshes in each
    // pass below rather than gathered: the scene's primitives are the only per-triangle
    // vectors (`cli/tests/memory.rs`).
    let count: usize = models.iter().map(|m| m.mesh.indices.len() / 3).sum();
    if count == 0 {
        return Err(CliError::at(file, "obj", "no faces (a mesh needs `f` lines)"));
    }
    let tris = || mesh_triangles(&models, &materials);

    // Camera.
    let mut lo = [f64::INFINITY; 3];
    let mut hi = [f64::NEG_INFINITY; 3];
    for (t, _) in tris() {
        for p in &t {
            for a in 0..3 {
                lo[a] = lo[a].min(p[a]);
                hi[a] = hi[a].max(p[a]);
            }
        }
    }
    let centre = scale(add(lo, hi), 0.5);
    let radius = 0.5 * dot(sub(hi, lo), sub(hi, lo)).sqrt();
    if !(radius > 0.0 && radius.is_finite()) {
        return Err(CliError::at(
            file,
            "obj",
            "the mesh has no extent (all vertices coincide)",
        ));
    }
    let d = norm(view).ok_or_else(|| CliError::at("--view", &imp.view, "must not be the zero vector"))?;
    let fwd = scale(d, -1.0);
    let up_world = if dot(fwd, [0.0, 1.0, 0.0]).abs() > 0.999 {
        [0.0, 0.0, -1.0]
    } else {
        [0.0, 1.0, 0.0]
    };
    let right = norm(cross(fwd, up_world)).expect("non-parallel");
    let up = cross(right, fwd);
    let half_fov = imp.fov.to_radians() / 2.0;
    let eye = add(centre, scale(d, radius / half_fov.sin() * 1.05));
    // (right, up, d) is right-handed, so CCW-from-outside faces stay CCW on the y-up screen.
    let project = |p: V3| -> (f64, f64, f64) {
        let v = sub(p, eye);
        let z = dot(v, fwd); // distance in front of the eye (> 0)
        (dot(v, right) / z, dot(v, up) / z, z)
    };
    let light = norm(add(add(d, scale(up, 0.8)), scale(right, -0.5))).expect("light");

    let proj = |t: &[V3; 3]| [project(t[0]), project(t[1]), project(t[2])];
    let (mut x0, mut x1, mut y0, mut y1, mut z0, mut z1) = (
        f64::INFINITY,
        f64::NEG_INFINITY,
        f64::INFINITY,
        f64::NEG_INFINITY,
        f64::INFINITY,
        f64::NEG_INFINITY,
    );
    for (t, _) in tris() {
        for (x, y, z) in proj(&t) {
            x0 = x0.min(x);
            x1 = x1.max(x);
            y0 = y0.min(y);
            y1 = y1.max(y);
            z0 = z0.min(z);
            z1 = z1.max(z);
        }
    }
    let [w, h] = [cfg.viewport[0] as f64, cfg.viewport[1] as f64];
    let (aw, ah) = (w * (1.0 - 2.0 * imp.margin), h * (1.0 - 2.0 * imp.margin));
    let s = (aw / (x1 - x0).max(1e-12)).min(ah / (y1 - y0).max(1e-12));
    let (cx, cy) = ((x0 + x1) / 2.0, (y0 + y1) / 2.0);
    let to_screen = |x: f64, y: f64| -> [f64; 2] {
        // Snap, then clamp so rounding can never push a vertex outside the viewport.
        [
            snap(w / 2.0 + (x - cx) * s).clamp(0.0, w),
            snap(h / 2.0 + (y - cy) * s).clamp(0.0, h),
        ]
    };

    let mut prims = Vec::with_capacity(count);
    for (t, base) in tris() {
        let p = proj(&t);
        let n = norm(cross(sub(t[1], t[0]), sub(t[2], t[0])));
        let lambert = n.map(|n| dot(n, light).max(0.0)).unwrap_or(0.0);
        let k = 0.25 + 0.75 * lambert;
        let c = |i: usize| (base[i] * k * 255.0).round().clamp(0.0, 255.0) as u8;
        let zc = (p[0].2 + p[1].2 + p[2].2) / 3.0;
        let depth = if z1 > z0 {
            ((zc - z0) / (z1 - z0)).clamp(0.0, 1.0)
        } else {
            0.0
        };
        prims.push(Primitive::Triangle(Triangle {
            v: [
                to_screen(p[0].0, p[0].1),
                to_screen(p[1].0, p[1].1),
                to_screen(p[2].0, p[2].1),
            ],
            colour: [c(0), c(1), c(2), 255],
            depth: (depth * 1e6).round() / 1e6,
        }));
    }
    let mut config = serde_json::Map::new();
    config.insert("preset".into(), serde_json::Value::String(cfg.name.clone()));
    Ok(Scene {
        config,
        background: [16, 16, 24, 255],
        primitives: prims,
    })
}

#[cfg(test)]
mod tests {
    use super::*;

    fn cfg() -> Config {
        Config::preset("default").unwrap()
    }

    fn tri(p: &Primitive) -> &Triangle {
        match p {
            Primitive::Triangle(t) => t,
            _ => panic!("not a triangle"),
        }
    }

    /// Signed area with y up (positive = counter-clockwise).
    fn area(t: &Triangle) -> f64 {
        let [a, b, c] = t.v;
        (b[0] - a[0]) * (c[1] - a[1]) - (c[0] - a[0]) * (b[1] - a[1])
    }

    #[test]
    fn facing_triangle_fills_viewport_ccw_and_lit() {
        // One CCW triangle in the z = 0 plane, seen head-on from +z.
        let obj = "v 0 0 0\nv 1 0 0\nv 0 1 0\nf 1 2 3\n";
        let imp = ImportArgs {
            view: "0,0,1".into(),
            margin: 0.1,
            ..Default::default()
        };
        let s = obj_to_scene(obj, Path::new("."), "t.obj", &cfg(), &imp).unwrap();
        assert_eq!(s.primitives.len(), 1);
        let t = tri(&s.primitives[0]);
        assert!(area(t) > 0.0, "front face must stay CCW: {:?}", t.v);
        // Fitted: the 2D bbox spans the height minus the margins (480·0.8 = 384), centred.
        let ys: Vec<f64> = t.v.iter().map(|v| v[1]).collect();
        let (lo, hi) = (
            ys.iter().cloned().fold(f64::MAX, f64::min),
            ys.iter().cloned().fold(f64::MIN, f64::max),
        );
        assert!((hi - lo - 384.0).abs() < 0.01, "{lo} {hi}");
        assert!((lo - 48.0).abs() < 0.01);
        // Normal (0,0,1) faces the camera; the light is near the view direction: well lit.
        assert!(t.colour[0] > 150, "{:?}", t.colour);
        // Every vertex is at the same view distance (a plane facing the camera): depth 0.
        assert_eq!(t.depth, 0.0);
    }

    #[test]
    fn depth_orders_near_and_far() {
        // Two parallel triangles, z = 0 (far) and z = 1 (near), viewed from +z.
        let obj = "v 0 0 0\nv 1 0 0\nv 0 1 0\nv 0 0 1\nv 1 0 1\nv 0 1 1\nf 1 2 3\nf 4 5 6\n";
        let imp = ImportArgs {
            view: "0,0,1".into(),
            ..Default::default()
        };
        let s = obj_to_scene(obj, Path::new("."), "t.obj", &cfg(), &imp).unwrap();
        let (far, near) = (tri(&s.primitives[0]).depth, tri(&s.primitives[1]).depth);
        assert!(near < far, "near {near} far {far}");
        assert_eq!(near, 0.0);
        assert_eq!(far, 1.0);
    }

    #[test]
    fn errors_carry_line_numbers() {
        let imp = ImportArgs::default();
        let e = obj_to_scene("v 0 0 0\nv nan 1 0\n", Path::new("."), "n.obj", &cfg(), &imp).unwrap_err();
        assert!(e.0.starts_with("n.obj: line 2: vertex x `nan` is not a finite"), "{e}");
        let e = obj_to_scene(
            "v 0 0 0\nv 1 0 0\nv 0 1 0\nf 1 2 4\n",
            Path::new("."),
            "f.obj",
            &cfg(),
            &imp,
        )
        .unwrap_err();
        assert!(e.0.starts_with("f.obj: line 4: face vertex index 4"), "{e}");
        let e = obj_to_scene("v 0 0 0\n", Path::new("."), "e.obj", &cfg(), &imp).unwrap_err();
        assert!(e.0.contains("no faces"), "{e}");
        let e = obj_to_scene("v 0 0 1e99\n", Path::new("."), "o.obj", &cfg(), &imp).unwrap_err();
        assert!(e.0.starts_with("o.obj: line 1: vertex z"), "{e}");
    }
}
