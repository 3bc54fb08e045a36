//! Scene files and the software front end.
//!
//! A scene is one frame: a config (a preset plus field overrides), a background colour and a
//! list of primitives in submission order. Positions are floats in pixels, y up, origin at the
//! bottom-left of the viewport. The front end ([`Scene::to_frame`]) converts them to 1/256-pixel
//! fixed point, rounding to nearest with ties to even, and rejects non-finite values and
//! positions outside the guard band with an error that names the field.
//!
//! ```json
//! {
//!   "config": { "preset": "default", "msaa": 8 },
//!   "background": [0, 0, 0, 255],
//!   "primitives": [
//!     { "triangle": { "v": [[10, 10], [100, 10.5], [40, 90]], "colour": [255, 0, 0, 255], "depth": 0.5 } },
//!     { "point": { "pos": [30.25, 40], "size": 8, "colour": [0, 255, 0, 255], "aa": false } }
//!   ]
//! }
//! ```
//!
//! `config` may be omitted (preset `default`), `depth` defaults to 0, `aa` to false,
//! `background` to opaque black. Only these object forms are accepted (serde's positional-array
//! form of an object is refused); unknown fields and duplicate keys are errors, anywhere,
//! including inside `config`. A leading UTF-8 byte order mark is skipped. A scene file
//! ([`Scene::load`]) must have at least one primitive and at most [`MAX_INPUT_BYTES`] bytes.
//! Parsing is in `scene/de.rs`.

use crate::config::{Config, ONE};
use crate::prim::{PointFx, PrimitiveFx, Rgba, TriangleFx};
use serde::Serialize;
use std::fmt;
use std::io::Read;
use std::path::Path;

mod de;

/// A triangle as written in a scene file.
#[derive(Clone, Debug, PartialEq, Serialize)]
pub struct Triangle {
    /// Three vertices, pixels, y up.
    pub v: [[f64; 2]; 3],
    pub colour: Rgba,
    /// Depth in [0, 1], 0 nearest.
    #[serde(default)]
    pub depth: f64,
}

/// A point as written in a scene file.
#[derive(Clone, Debug, PartialEq, Serialize)]
pub struct Point {
    pub pos: [f64; 2],
    /// Point size in pixels (unrounded).
    pub size: f64,
    pub colour: Rgba,
    #[serde(default)]
    pub depth: f64,
    /// Multisample antialiasing for this point.
    #[serde(default)]
    pub aa: bool,
}

/// One primitive.
#[derive(Clone, Debug, PartialEq, Serialize)]
#[serde(rename_all = "snake_case")]
pub enum Primitive {
    Triangle(Triangle),
    Point(Point),
}

/// A scene file. `Deserialize` is implemented by hand in `scene/de.rs` (strict, with field
/// paths in every error).
#[derive(Clone, Debug, PartialEq, Serialize)]
pub struct Scene {
    /// A preset name plus overrides: `{"preset": "ice40", "msaa": 16}`.
    pub config: serde_json::Map<String, serde_json::Value>,
    pub background: Rgba,
    pub primitives: Vec<Primitive>,
}

/// Largest scene, OBJ or SVG file read (64 MiB): a larger file (or `/dev/zero`) is refused
/// before it can take unbounded memory.
pub const MAX_INPUT_BYTES: u64 = 64 << 20;

/// Read an input file (scene, OBJ, SVG) of at most [`MAX_INPUT_BYTES`]; the error names the
/// file and the limit.
pub fn read_input(path: &Path) -> Result<Vec<u8>, SceneError> {
    let file = path.display().to_string();
    let err = |msg: String| SceneError {
        file: file.clone(),
        at: "read".into(),
        msg,
    };
    let f = std::fs::File::open(path).map_err(|e| err(e.to_string()))?;
    let mut data = Vec::new();
    f.take(MAX_INPUT_BYTES + 1)
        .read_to_end(&mut data)
        .map_err(|e| err(e.to_string()))?;
    if data.len() as u64 > MAX_INPUT_BYTES {
        return Err(err(format!(
            "the file is larger than the {} MiB limit for input files",
            MAX_INPUT_BYTES >> 20
        )));
    }
    Ok(data)
}

/// [`read_input`] as UTF-8 text, without a leading byte order mark.
pub fn read_input_text(path: &Path) -> Result<String, SceneError> {
    let data = read_input(path)?;
    let text = String::from_utf8(data).map_err(|e| SceneError {
        file: path.display().to_string(),
        at: "read".into(),
        msg: format!(
            "not UTF-8 text (invalid byte at offset {})",
            e.utf8_error().valid_up_to()
        ),
    })?;
    Ok(match text.strip_prefix('\u{feff}') {
        Some(t) => t.to_string(),
        None => text,
    })
}

/// A frame after the front end: validated config and fixed-point primitives.
#[derive(Clone, Debug, PartialEq)]
pub struct Frame {
    pub cfg: Config,
    pub background: Rgba,
    pub prims: Vec<PrimitiveFx>,
}

/// A front-end error: where (file, then line/column or field path) and what.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct SceneError {
    /// File name, or `<scene>` for in-memory scenes.
    pub file: String,
    /// `line 3 column 7`, or a field path like `primitives[4].v[1].x`.
    pub at: String,
    pub msg: String,
}

impl fmt::Display for SceneError {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        write!(f, "{}: {}: {}", self.file, self.at, self.msg)
    }
}
impl std::error::Error for SceneError {}

/// Convert a coordinate in pixels to 1/256-pixel fixed point, rounding to nearest, ties to
/// even. `None` for non-finite values or values beyond ±2^30 units.
pub fn to_fixed(v: f64) -> Option<i32> {
    if !v.is_finite() {
        return None;
    }
    let r = (v * ONE as f64).round_ties_even();
    if r.abs() > (1u64 << 30) as f64 {
        return None;
    }
    Some(r as i32)
}

/// Depth in [0, 1] → 24-bit unsigned normalized, rounding to nearest even.
pub fn depth_to_unorm24(d: f64) -> Option<u32> {
    if !d.is_finite() || !(0.0..=1.0).contains(&d) {
        return None;
    }
    Some((d * ((1u32 << 24) - 1) as f64).round_ties_even() as u32)
}

impl Scene {
    /// Parse JSON text (a leading byte order mark is skipped); errors carry the line and
    /// column, and the field path in the message. An empty primitive list is accepted here
    /// (in-memory scenes); [`Scene::load`] refuses it.
    pub fn from_json(text: &str, file: &str) -> Result<Scene, SceneError> {
        let text = text.strip_prefix('\u{feff}').unwrap_or(text);
        serde_json::from_str(text).map_err(|e| SceneError {
            file: file.to_string(),
            at: format!("line {} column {}", e.line(), e.column()),
            msg: strip_serde_position(&e.to_string()),
        })
    }

    /// A config given on its own (`tilerast rtl --config FILE`): `text` is the object a scene's
    /// `config` holds (`{"preset": "ice40", "msaa": 8}`; empty text = preset `default`), then
    /// `overrides` (field, value) are applied in order, a later one replacing an earlier. The
    /// result is checked like a scene's config; errors name `file` and the field.
    pub fn config_from_json(
        text: &str,
        file: &str,
        overrides: &[(String, serde_json::Value)],
    ) -> Result<Config, SceneError> {
        let text = text.strip_prefix('\u{feff}').unwrap_or(text);
        let mut map = if text.trim().is_empty() {
            serde_json::Map::new()
        } else {
            de::config_map(text).map_err(|e| SceneError {
                file: file.to_string(),
                at: format!("line {} column {}", e.line(), e.column()),
                msg: strip_serde_position(&e.to_string()),
            })?
        };
        for (k, v) in overrides {
            map.insert(k.clone(), v.clone());
        }
        let scene = Scene {
            config: map,
            background: Default::default(),
            primitives: Vec::new(),
        };
        scene.config(file)
    }

    /// Read and parse a scene file (at most [`MAX_INPUT_BYTES`], at least one primitive).
    pub fn load(path: &Path) -> Result<Scene, SceneError> {
        let file = path.display().to_string();
        let scene = Scene::from_json(&read_input_text(path)?, &file)?;
        if scene.primitives.is_empty() {
            return Err(SceneError {
                file,
                at: "primitives".into(),
                msg: "scene has no primitives (expected at least one triangle or point)".into(),
            });
        }
        Ok(scene)
    }

    /// The scenes shipped in the repository's `scenes/` (every `.json`), as (file stem, scene),
    /// sorted by name: what the benches and the shipped-scene tests iterate.
    pub fn shipped() -> Result<Vec<(String, Scene)>, SceneError> {
        let dir = Path::new(concat!(env!("CARGO_MANIFEST_DIR"), "/../scenes"));
        let entries = std::fs::read_dir(dir).map_err(|e| SceneError {
            file: dir.display().to_string(),
            at: "read".into(),
            msg: e.to_string(),
        })?;
        let mut v = Vec::new();
        for p in entries.filter_map(|e| e.ok().map(|e| e.path())) {
            if p.extension().is_some_and(|x| x == "json") {
                let name = p.file_stem().unwrap_or_default().to_string_lossy().into_owned();
                v.push((name, Scene::load(&p)?));
            }
        }
        v.sort_by(|a, b| a.0.cmp(&b.0));
        Ok(v)
    }

    /// The scene's config: its preset with the overrides applied, validated.
    pub fn config(&self, file: &str) -> Result<Config, SceneError> {
        let err = |at: String, msg: String| SceneError {
            file: file.to_string(),
            at,
            msg,
        };
        let preset = match self.config.get("preset") {
            None => "default".to_string(),
            Some(serde_json::Value::String(s)) => s.clone(),
            Some(v) => return Err(err("config.preset".into(), format!("expected a preset name, got {v}"))),
        };
        let base = Config::preset(&preset).map_err(|e| err("config.preset".into(), e.msg))?;
        let base_value = serde_json::to_value(&base).expect("config serializes");
        let mut value = base_value.clone();
        let obj = value.as_object_mut().expect("config is an object");
        for (k, v) in &self.config {
            if k == "preset" {
                continue;
            }
            if k == "name" || !obj.contains_key(k) {
                return Err(err(format!("config.{k}"), "unknown config field".into()));
            }
            // Check this field's type on its own, so the error names it.
            let mut one = base_value.clone();
            one.as_object_mut()
                .expect("config is an object")
                .insert(k.clone(), v.clone());
            if serde_json::from_value::<Config>(one).is_err() {
                // A [width, height] pair of the right length: name the element that is wrong.
                if let (Some(names), Some(a)) = (pair_names(k), v.as_array()) {
                    if a.len() == 2 {
                        if let Some(i) = (0..2).find(|&i| a[i].as_u64().is_none_or(|n| n > u32::MAX as u64)) {
                            return Err(err(
                                format!("config.{k}[{i}]"),
                                format!(
                                    "expected the {} as a positive integer, got {}",
                                    names[i],
                                    de::describe(&a[i])
                                ),
                            ));
                        }
                    }
                }
                return Err(err(
                    format!("config.{k}"),
                    format!("expected {}, got {}", config_field_expects(k), de::describe(v)),
                ));
            }
            obj.insert(k.clone(), v.clone());
        }
        let cfg: Config = serde_json::from_value(value).map_err(|e| err("config".into(), e.to_string()))?;
        cfg.validate().map_err(|e| err(format!("config.{}", e.field), e.msg))?;
        Ok(cfg)
    }

    /// Run the front end: config, fixed-point conversion, guard-band and range checks.
    pub fn to_frame(&self, file: &str) -> Result<Frame, SceneError> {
        let cfg = self.config(file)?;
        let (lo, hi) = cfg.guard_limits_fx();
        let err = |at: String, msg: String| SceneError {
            file: file.to_string(),
            at,
            msg,
        };
        let coord = |v: f64, axis: usize, at: String| -> Result<i32, SceneError> {
            if !v.is_finite() {
                return Err(err(at, format!("{v} is not a finite coordinate")));
            }
            // Finite but beyond the fixed-point range: outside the guard band too.
            let f = to_fixed(v).unwrap_or(if v < 0.0 { i32::MIN } else { i32::MAX });
            if f < lo[axis] || f > hi[axis] {
                return Err(err(
                    at,
                    format!(
                        "{v} is outside the guard band [{}, {}]",
                        lo[axis] as f64 / ONE as f64,
                        hi[axis] as f64 / ONE as f64
                    ),
                ));
            }
            Ok(f)
        };
        let depth =
            |d: f64, at: String| depth_to_unorm24(d).ok_or_else(|| err(at, format!("{d} is not a depth in [0, 1]")));
        let mut prims = Vec::with_capacity(self.primitives.len());
        for (i, p) in self.primitives.iter().enumerate() {
            prims.push(match p {
                Primitive::Triangle(t) => {
                    let mut v = [[0i32; 2]; 3];
                    for (k, vert) in t.v.iter().enumerate() {
                        for (a, name) in ["x", "y"].iter().enumerate() {
                            v[k][a] = coord(vert[a], a, format!("primitives[{i}].triangle.v[{k}].{name}"))?;
                        }
                    }
                    let depth = depth(t.depth, format!("primitives[{i}].triangle.depth"))?;
                    PrimitiveFx::Triangle(TriangleFx {
                        v,
                        colour: t.colour,
                        depth,
                    })
                }
                Primitive::Point(q) => {
                    let pos = [
                        coord(q.pos[0], 0, format!("primitives[{i}].point.pos.x"))?,
                        coord(q.pos[1], 1, format!("primitives[{i}].point.pos.y"))?,
                    ];
                    let at = format!("primitives[{i}].point.size");
                    let size = to_fixed(q.size)
                        .filter(|s| *s >= 0 && *s <= (crate::config::MAX_POINT_SIZE as i32 + 1) * ONE)
                        .ok_or_else(|| {
                            err(
                                at,
                                format!(
                                    "{} is not a point size in [0, {}]",
                                    q.size,
                                    crate::config::MAX_POINT_SIZE + 1
                                ),
                            )
                        })?;
                    let depth = depth(q.depth, format!("primitives[{i}].point.depth"))?;
                    PrimitiveFx::Point(PointFx {
                        pos,
                        size,
                        aa: q.aa,
                        colour: q.colour,
                        depth,
                    })
                }
            });
        }
        Ok(Frame {
            cfg,
            background: self.background,
            prims,
        })
    }

    /// The built-in default scene: a small frame that exercises triangles of every kind,
    /// points of both parities and AA on and off. Used by `tilerast render` with no scene.
    pub fn builtin_default() -> Scene {
        Scene::from_json(include_str!("../../scenes/default.json"), "scenes/default.json")
            .expect("built-in default scene parses")
    }
}

/// The element names of a `[width, height]` config field.
fn pair_names(field: &str) -> Option<[&'static str; 2]> {
    matches!(field, "viewport" | "tile" | "subtile" | "second_tile").then_some(["width", "height"])
}

/// What a config field's value must be, for type errors.
fn config_field_expects(field: &str) -> &'static str {
    match field {
        "viewport" | "tile" | "subtile" | "second_tile" => "[width, height], two positive integers",
        "msaa" | "colours_per_pixel" => "an integer 1, 2, 4, 8 or 16",
        "quads_per_clock" => "an integer 1, 2 or 4",
        "coverage_test" => r#"one of "edge", "samples", "bbox_only""#,
        "cull" => r#"one of "none", "cw", "ccw""#,
        "depth_func" => r#"one of "less_equal", "less", "always""#,
        "framebuffer" => r#"one of "clear", "keep""#,
        _ => "a non-negative integer",
    }
}

/// serde_json appends " at line L column C"; we report the position separately.
fn strip_serde_position(s: &str) -> String {
    match s.rfind(" at line ") {
        Some(i) => s[..i].to_string(),
        None => s.to_string(),
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn a_pair_field_type_error_names_the_element() {
        let cfg = |c: &str| {
            Scene::from_json(&format!(r#"{{"config":{c}}}"#), "t.json")
                .unwrap()
                .config("t.json")
                .unwrap_err()
                .to_string()
        };
        assert_eq!(
            cfg(r#"{"viewport":[640,"a"]}"#),
            r#"t.json: config.viewport[1]: expected the height as a positive integer, got "a""#
        );
        assert_eq!(
            cfg(r#"{"tile":[-16,16]}"#),
            "t.json: config.tile[0]: expected the width as a positive integer, got -16"
        );
        assert_eq!(
            cfg(r#"{"viewport":[640,1.5]}"#),
            "t.json: config.viewport[1]: expected the height as a positive integer, got 1.5"
        );
        // Not a pair at all: the field, as before.
        assert!(cfg(r#"{"viewport":[640]}"#).starts_with("t.json: config.viewport: expected [width, height]"));
    }

    #[test]
    fn ties_to_even() {
        // 1/512 px is exactly half a fixed-point unit.
        assert_eq!(to_fixed(0.5 / 256.0), Some(0));
        assert_eq!(to_fixed(1.5 / 256.0), Some(2));
        assert_eq!(to_fixed(2.5 / 256.0), Some(2));
        assert_eq!(to_fixed(-0.5 / 256.0), Some(0));
        assert_eq!(to_fixed(-1.5 / 256.0), Some(-2));
        assert_eq!(to_fixed(10.0), Some(2560));
        assert_eq!(to_fixed(f64::NAN), None);
        assert_eq!(to_fixed(f64::INFINITY), None);
    }

    #[test]
    fn errors_name_the_field() {
        let s = r#"{"config":{"preset":"ice40"},"primitives":[
            {"triangle":{"v":[[0,0],[10,0],[0,10]],"colour":[1,2,3,4]}},
            {"triangle":{"v":[[0,0],[10,0],[0,1000]],"colour":[1,2,3,4]}}]}"#;
        let e = Scene::from_json(s, "t.json").unwrap().to_frame("t.json").unwrap_err();
        assert_eq!(e.at, "primitives[1].triangle.v[2].y");
        assert!(e
            .to_string()
            .starts_with("t.json: primitives[1].triangle.v[2].y: 1000 is outside the guard band"));
        let e = Scene::from_json(
            r#"{"primitives":[{"triangle":{"v":[[0,0],[1,0]],"colour":[1,2,3,4]}}]}"#,
            "u.json",
        )
        .unwrap_err();
        assert!(e.at.starts_with("line 1 column"), "{e}");
        let e = Scene::from_json(r#"{"config":{"msaa":3}}"#, "c.json")
            .unwrap()
            .to_frame("c.json")
            .unwrap_err();
        assert_eq!(e.at, "config.msaa");
        let e = Scene::from_json(r#"{"config":{"msaaa":4}}"#, "c.json")
            .unwrap()
            .to_frame("c.json")
            .unwrap_err();
        assert_eq!(e.at, "config.msaaa");
        let e = Scene::from_json(
            r#"{"primitives":[{"point":{"pos":[1,1],"size":-2,"colour":[1,2,3,4]}}]}"#,
            "p.json",
        )
        .unwrap()
        .to_frame("p.json")
        .unwrap_err();
        assert_eq!(e.at, "primitives[0].point.size");
    }

    fn parse_err(text: &str) -> String {
        Scene::from_json(text, "s.json").unwrap_err().to_string()
    }

    fn frame_err(text: &str) -> String {
        Scene::from_json(text, "s.json")
            .unwrap()
            .to_frame("s.json")
            .unwrap_err()
            .to_string()
    }

    const TRI: &str = r#"{"triangle":{"v":[[0,0],[10,0],[0,10]],"colour":[1,2,3,4]}}"#;

    #[test]
    fn positional_array_forms_are_refused() {
        // Scene, primitive, triangle and point as serde's positional arrays.
        let e = parse_err("[]");
        assert!(e.starts_with("s.json: line 1 column "), "{e}");
        assert!(e.contains("scene: expected an object"), "{e}");
        assert!(e.contains("got an array"), "{e}");
        let e = parse_err(r#"{"primitives":[[[[0,0],[10,0],[0,10]],[1,2,3,4],0]]}"#);
        assert!(e.contains("primitives[0]: expected an object"), "{e}");
        let e = parse_err(r#"{"primitives":[{"triangle":[[[0,0],[10,0],[0,10]],[1,2,3,4],0]}]}"#);
        assert!(e.contains("primitives[0].triangle: expected an object"), "{e}");
        let e = parse_err(r#"{"primitives":[{"point":[[1,1],2,[1,2,3,4],0,false]}]}"#);
        assert!(e.contains("primitives[0].point: expected an object"), "{e}");
    }

    #[test]
    fn duplicate_keys_are_errors_everywhere() {
        let e = parse_err(r#"{"config":{"msaa":4,"msaa":8}}"#);
        assert!(e.contains(r#"config: duplicate key "msaa""#), "{e}");
        let e = parse_err(&format!(r#"{{"primitives":[{TRI}],"primitives":[]}}"#));
        assert!(e.contains(r#"scene: duplicate key "primitives""#), "{e}");
        let e = parse_err(
            r#"{"primitives":[{"triangle":{"v":[[0,0],[1,0],[0,1]],"v":[[0,0],[1,0],[0,1]],"colour":[1,2,3,4]}}]}"#,
        );
        assert!(e.contains(r#"primitives[0].triangle: duplicate key "v""#), "{e}");
        let e =
            parse_err(r#"{"primitives":[{"point":{"pos":[1,1],"size":2,"colour":[1,2,3,4],"aa":true,"aa":false}}]}"#);
        assert!(e.contains(r#"primitives[0].point: duplicate key "aa""#), "{e}");
        let e = parse_err(&format!(
            r#"{{"primitives":[{TRI},{{"triangle":{{}},"triangle":{{}}}}]}}"#
        ));
        assert!(e.contains("primitives[1]"), "{e}");
    }

    #[test]
    fn wrong_lengths_say_what_was_expected() {
        let e = parse_err(r#"{"primitives":[{"triangle":{"v":[[0,0],[10,0,5],[0,10]],"colour":[1,2,3,4]}}]}"#);
        assert!(
            e.contains("primitives[0].triangle.v[1]: vertex has 3 coordinates, expected 2"),
            "{e}"
        );
        assert!(!e.contains("trailing"), "{e}");
        let e = parse_err(r#"{"primitives":[{"triangle":{"v":[[0,0],[10,0],[0,10],[1,1]],"colour":[1,2,3,4]}}]}"#);
        assert!(
            e.contains("primitives[0].triangle.v: triangle has 4 vertices, expected 3"),
            "{e}"
        );
        let e = parse_err(r#"{"primitives":[{"triangle":{"v":[[0,0],[10,0],[0,10]],"colour":[1,2,3,4,5]}}]}"#);
        assert!(
            e.contains("primitives[0].triangle.colour: colour has 5 components, expected 4"),
            "{e}"
        );
        let e = parse_err(r#"{"background":[1,2,300,4]}"#);
        assert!(e.contains("background[2]: expected an integer 0..=255, got 300"), "{e}");
        let e = parse_err(r#"{"primitives":[{"point":{"pos":[1,1,1],"size":2,"colour":[1,2,3,4]}}]}"#);
        assert!(
            e.contains("primitives[0].point.pos: position has 3 coordinates, expected 2"),
            "{e}"
        );
        let e = parse_err(r#"{"primitives":[{"point":{"pos":[1,1],"size":"2","colour":[1,2,3,4]}}]}"#);
        assert!(
            e.contains(r#"primitives[0].point.size: expected a number, got "2""#),
            "{e}"
        );
        let e = parse_err(r#"{"primitives":[{"point":{"pos":[1,1],"colour":[1,2,3,4]}}]}"#);
        assert!(e.contains(r#"primitives[0].point: missing field "size""#), "{e}");
        let e = parse_err(r#"{"primitives":[{"circle":{}}]}"#);
        assert!(e.contains(r#"primitives[0]: unknown primitive "circle""#), "{e}");
        // Every message is one line.
        assert_eq!(e.lines().count(), 1);
    }

    #[test]
    fn byte_order_mark_is_skipped() {
        let s = Scene::from_json(&format!("\u{feff}{{\"primitives\":[{TRI}]}}"), "b.json").unwrap();
        assert_eq!(s.primitives.len(), 1);
    }

    #[test]
    fn config_type_errors_name_the_field() {
        let e = frame_err(r#"{"config":{"msaa":"4"}}"#);
        assert_eq!(
            e,
            r#"s.json: config.msaa: expected an integer 1, 2, 4, 8 or 16, got "4""#
        );
        let e = frame_err(r#"{"config":{"tile":32}}"#);
        assert_eq!(
            e,
            "s.json: config.tile: expected [width, height], two positive integers, got 32"
        );
        let e = frame_err(r#"{"config":{"cull":"front"}}"#);
        assert_eq!(
            e,
            r#"s.json: config.cull: expected one of "none", "cw", "ccw", got "front""#
        );
        let e = frame_err(r#"{"config":{"guard_band":-1}}"#);
        assert_eq!(e, "s.json: config.guard_band: expected a non-negative integer, got -1");
    }

    #[test]
    fn finite_far_coordinate_is_out_of_range_not_non_finite() {
        let e = frame_err(r#"{"primitives":[{"triangle":{"v":[[0,0],[5e6,0],[0,10]],"colour":[1,2,3,4]}}]}"#);
        assert_eq!(
            e,
            "s.json: primitives[0].triangle.v[1].x: 5000000 is outside the guard band [-256, 896]"
        );
        let e = frame_err(r#"{"primitives":[{"point":{"pos":[1,-1e300],"size":2,"colour":[1,2,3,4]}}]}"#);
        assert!(e.contains("primitives[0].point.pos.y: "), "{e}");
        assert!(e.contains("is outside the guard band [-256, 736]"), "{e}");
    }

    fn tmp_file(name: &str, body: &[u8]) -> std::path::PathBuf {
        let d = std::env::temp_dir().join(format!("tilerast-scene-{}", std::process::id()));
        std::fs::create_dir_all(&d).unwrap();
        let p = d.join(name);
        std::fs::write(&p, body).unwrap();
        p
    }

    #[test]
    fn load_refuses_empty_scenes_and_checks_size_and_encoding() {
        let p = tmp_file("empty.json", b"{}");
        let e = Scene::load(&p).unwrap_err();
        assert_eq!(e.at, "primitives");
        assert!(e.to_string().contains("scene has no primitives"), "{e}");
        let p = tmp_file("latin1.json", b"{\"primitives\": \xff}");
        let e = Scene::load(&p).unwrap_err().to_string();
        assert!(e.contains("latin1.json: read: not UTF-8 text"), "{e}");
        let p = tmp_file("bom.json", format!("\u{feff}{{\"primitives\":[{TRI}]}}").as_bytes());
        assert_eq!(Scene::load(&p).unwrap().primitives.len(), 1);
    }

    #[cfg(unix)]
    #[test]
    fn load_of_an_endless_file_stops_at_the_limit() {
        let e = Scene::load(Path::new("/dev/zero")).unwrap_err().to_string();
        assert_eq!(
            e,
            "/dev/zero: read: the file is larger than the 64 MiB limit for input files"
        );
    }

    #[test]
    fn overrides_apply() {
        let s = Scene::from_json(r#"{"config":{"preset":"ice40","msaa":16,"tile":[32,32]}}"#, "o.json").unwrap();
        let c = s.config("o.json").unwrap();
        assert_eq!(c.msaa, 16);
        assert_eq!(c.tile, [32, 32]);
        assert_eq!(c.viewport, [160, 120]);
    }

    #[test]
    fn builtin_default_scene_is_valid_and_non_trivial() {
        let f = Scene::builtin_default().to_frame("default").unwrap();
        assert!(f.prims.len() >= 8);
        assert!(f.prims.iter().any(|p| matches!(p, PrimitiveFx::Point(_))));
    }
}
