//! Scene loading for every command: a `.json` scene, or an `.obj` / `.svg` file imported on the
//! fly (see `import_obj.rs`, `import_svg.rs`), or the built-in default scene when no path is
//! given. The extension decides (case-insensitive); anything else is a one-line error.
//!
//! ```text
//!   SCENE ──ext──► .json ─► Scene::load ─┐
//!                  .obj  ─► import_obj  ─┼─► Scene (+ --preset) ─► Scene::to_frame ─► Frame
//!                  .svg  ─► import_svg  ─┘
//!   (none) ─► Scene::builtin_default ────┘
//! ```

use crate::error::{CliError, Res};
use crate::{import_obj, import_svg};
use clap::Args;
use std::path::{Path, PathBuf};
use tilerast_golden::{Config, Frame, Scene};

/// Options of the importers (also accepted by `render`, `raster` and `explore`).
#[derive(Args, Debug, Clone)]
pub struct ImportArgs {
    /// Config preset (ice40, default, full). For an imported file it sets the viewport the
    /// geometry is fitted to; for a JSON scene it replaces the scene's preset (its other
    /// config overrides still apply).
    #[arg(long, value_name = "P")]
    pub preset: Option<String>,
    /// OBJ camera: direction from the mesh centre towards the eye, `x,y,z` (world space).
    #[arg(long, value_name = "X,Y,Z", default_value = "1,0.8,1.6")]
    pub view: String,
    /// OBJ camera: vertical field of view in degrees (perspective projection).
    #[arg(long, value_name = "DEG", default_value_t = 40.0)]
    pub fov: f64,
    /// Fraction of the viewport left free on each side when fitting OBJ / SVG geometry.
    #[arg(long, value_name = "F", default_value_t = 0.05)]
    pub margin: f64,
}

impl Default for ImportArgs {
    fn default() -> Self {
        ImportArgs {
            preset: None,
            view: "1,0.8,1.6".into(),
            fov: 40.0,
            margin: 0.05,
        }
    }
}

/// Kind of a scene file, by extension.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum SceneKind {
    Json,
    Obj,
    Svg,
}

/// Decide the kind of `path` from its extension.
pub fn kind_of(path: &Path) -> Res<SceneKind> {
    let ext = path
        .extension()
        .and_then(|e| e.to_str())
        .map(|e| e.to_ascii_lowercase());
    match ext.as_deref() {
        Some("json") => Ok(SceneKind::Json),
        Some("obj") => Ok(SceneKind::Obj),
        Some("svg") => Ok(SceneKind::Svg),
        Some(e) => Err(CliError::at(
            path.display(),
            "extension",
            format!("unknown scene extension `.{e}` (expected .json, .obj or .svg)"),
        )),
        None => Err(CliError::at(
            path.display(),
            "extension",
            "no extension (expected .json, .obj or .svg)",
        )),
    }
}

/// The preset's config, or a one-line error naming `--preset`.
pub fn preset_config(preset: Option<&str>) -> Res<Config> {
    let name = preset.unwrap_or("default");
    Config::preset(name).map_err(|e| CliError::at("--preset", name, e.msg))
}

fn check_import_args(imp: &ImportArgs) -> Res<()> {
    if !(imp.margin.is_finite() && (0.0..0.5).contains(&imp.margin)) {
        return Err(CliError::at("--margin", imp.margin, "must be in [0, 0.5)"));
    }
    if !(imp.fov.is_finite() && imp.fov > 1.0 && imp.fov < 170.0) {
        return Err(CliError::at("--fov", imp.fov, "must be within (1, 170) degrees"));
    }
    Ok(())
}

/// A scene with the name errors should carry.
#[derive(Clone, Debug)]
pub struct Loaded {
    pub scene: Scene,
    /// Display name of the source (the path, or `<builtin default>`).
    pub file: String,
}

impl Loaded {
    /// Run the golden front end.
    pub fn frame(&self) -> Res<Frame> {
        Ok(self.scene.to_frame(&self.file)?)
    }
}

/// Load a scene: JSON, imported OBJ/SVG, or the built-in default when `path` is `None`.
pub fn load(path: Option<&PathBuf>, imp: &ImportArgs) -> Res<Loaded> {
    check_import_args(imp)?;
    let (mut scene, file) = match path {
        None => (Scene::builtin_default(), "<builtin default>".to_string()),
        Some(p) => {
            let file = p.display().to_string();
            let scene = match kind_of(p)? {
                SceneKind::Json => Scene::load(p)?,
                SceneKind::Obj => import_obj::import(p, &preset_config(imp.preset.as_deref())?, imp)?,
                SceneKind::Svg => import_svg::import(p, &preset_config(imp.preset.as_deref())?, imp)?,
            };
            (scene, file)
        }
    };
    if let Some(p) = &imp.preset {
        preset_config(Some(p))?;
        scene
            .config
            .insert("preset".into(), serde_json::Value::String(p.clone()));
    }
    Ok(Loaded { scene, file })
}

/// Load an OBJ or SVG for `tilerast import` (a JSON input is refused: nothing to convert).
pub fn import_only(path: &PathBuf, imp: &ImportArgs) -> Res<Scene> {
    match kind_of(path)? {
        SceneKind::Json => Err(CliError::at(
            path.display(),
            "extension",
            "already a JSON scene; import takes .obj or .svg",
        )),
        _ => Ok(load(Some(path), imp)?.scene),
    }
}

/// Parse `a,b,c` floats for option `opt`.
pub fn parse_vec3(opt: &str, s: &str) -> Res<[f64; 3]> {
    let parts: Vec<&str> = s.split(',').map(str::trim).collect();
    if parts.len() != 3 {
        return Err(CliError::at(opt, s, "expected three comma-separated numbers x,y,z"));
    }
    let mut v = [0.0; 3];
    for (i, p) in parts.iter().enumerate() {
        v[i] = p
            .parse::<f64>()
            .ok()
            .filter(|x| x.is_finite())
            .ok_or_else(|| CliError::at(opt, s, format!("`{p}` is not a finite number")))?;
    }
    Ok(v)
}

/// Round a pixel coordinate to the 1/256-pixel grid the front end uses, so the JSON shows the
/// exact value the rasterizer will see.
pub fn snap(v: f64) -> f64 {
    (v * 256.0).round() / 256.0
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn kinds_by_extension() {
        assert_eq!(kind_of(Path::new("a/b.JSON")).unwrap(), SceneKind::Json);
        assert_eq!(kind_of(Path::new("m.obj")).unwrap(), SceneKind::Obj);
        assert_eq!(kind_of(Path::new("d.Svg")).unwrap(), SceneKind::Svg);
        let e = kind_of(Path::new("x.txt")).unwrap_err();
        assert!(
            e.0.starts_with("x.txt: extension: unknown scene extension `.txt`"),
            "{e}"
        );
        assert!(kind_of(Path::new("noext")).is_err());
    }

    #[test]
    fn vec3_parsing() {
        assert_eq!(parse_vec3("--view", "1, 2,-3.5").unwrap(), [1.0, 2.0, -3.5]);
        assert!(parse_vec3("--view", "1,2").unwrap_err().0.starts_with("--view: 1,2:"));
        assert!(parse_vec3("--view", "1,nan,2").is_err());
    }

    #[test]
    fn preset_override_applies_to_json_scene() {
        let imp = ImportArgs {
            preset: Some("ice40".into()),
            ..Default::default()
        };
        let l = load(None, &imp).unwrap();
        assert_eq!(l.scene.config.get("preset").and_then(|v| v.as_str()), Some("ice40"));
        let bad = ImportArgs {
            preset: Some("nope".into()),
            ..Default::default()
        };
        assert!(load(None, &bad).unwrap_err().0.starts_with("--preset: nope:"));
    }

    #[test]
    fn snapping_is_to_256ths() {
        assert_eq!(snap(1.0 / 512.0 + 1.0), 1.0 + 1.0 / 256.0);
        assert_eq!(snap(3.25), 3.25);
    }
}
