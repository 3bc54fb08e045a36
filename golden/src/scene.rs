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
//! `background` to opaque black. Unknown fields are errors.

use crate::config::{Config, ONE};
use crate::prim::{PointFx, PrimitiveFx, Rgba, TriangleFx};
use serde::{Deserialize, Serialize};
use std::fmt;
use std::path::Path;

/// A triangle as written in a scene file.
#[derive(Clone, Debug, PartialEq, Serialize, Deserialize)]
#[serde(deny_unknown_fields)]
pub struct Triangle {
    /// Three vertices, pixels, y up.
    pub v: [[f64; 2]; 3],
    pub colour: Rgba,
    /// Depth in [0, 1], 0 nearest.
    #[serde(default)]
    pub depth: f64,
}

/// A point as written in a scene file.
#[derive(Clone, Debug, PartialEq, Serialize, Deserialize)]
#[serde(deny_unknown_fields)]
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
#[derive(Clone, Debug, PartialEq, Serialize, Deserialize)]
#[serde(rename_all = "snake_case", deny_unknown_fields)]
pub enum Primitive {
    Triangle(Triangle),
    Point(Point),
}

fn default_background() -> Rgba {
    [0, 0, 0, 255]
}

/// A scene file.
#[derive(Clone, Debug, PartialEq, Serialize, Deserialize)]
#[serde(deny_unknown_fields)]
pub struct Scene {
    /// A preset name plus overrides: `{"preset": "ice40", "msaa": 16}`.
    #[serde(default)]
    pub config: serde_json::Map<String, serde_json::Value>,
    #[serde(default = "default_background")]
    pub background: Rgba,
    #[serde(default)]
    pub primitives: Vec<Primitive>,
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
    /// Parse JSON text; errors carry the line and column.
    pub fn from_json(text: &str, file: &str) -> Result<Scene, SceneError> {
        serde_json::from_str(text).map_err(|e| SceneError {
            file: file.to_string(),
            at: format!("line {} column {}", e.line(), e.column()),
            msg: strip_serde_position(&e.to_string()),
        })
    }

    /// Read and parse a scene file.
    pub fn load(path: &Path) -> Result<Scene, SceneError> {
        let file = path.display().to_string();
        let text = std::fs::read_to_string(path).map_err(|e| SceneError {
            file: file.clone(),
            at: "file".into(),
            msg: e.to_string(),
        })?;
        Scene::from_json(&text, &file)
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
        let mut value = serde_json::to_value(&base).expect("config serializes");
        let obj = value.as_object_mut().expect("config is an object");
        for (k, v) in &self.config {
            if k == "preset" {
                continue;
            }
            if k == "name" || !obj.contains_key(k) {
                return Err(err(format!("config.{k}"), "unknown config field".into()));
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
            let f = to_fixed(v).ok_or_else(|| err(at.clone(), format!("{v} is not a finite coordinate")))?;
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
