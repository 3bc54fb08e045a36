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
use crate::output::{bytes, grouped};
use crate::{import_obj, import_svg};
use clap::Args;
use std::io::Write;
use std::path::{Path, PathBuf};
use tilerast_golden::scene::Primitive;
use tilerast_golden::shading_sort::PRIM_ID_BITS;
use tilerast_golden::{Config, Frame, PrimitiveFx, Scene};

/// Most primitives a scene may hold, for every command: the pixel side's shading point keys
/// its records by a [`PRIM_ID_BITS`]-bit (21) primitive id (`golden/src/shading_sort.rs`), and
/// 2^21 primitives fill the prim table's 64 MiB region exactly (`golden/src/frame.rs`).
pub const MAX_PRIMS: u64 = 1 << PRIM_ID_BITS;

/// Largest scene `tilerast import` writes: what every command reads back
/// (`tilerast_golden::scene::MAX_INPUT_BYTES`, 64 MiB; no flag raises it).
pub const MAX_SCENE_BYTES: u64 = tilerast_golden::scene::MAX_INPUT_BYTES;

/// Fewest bytes one imported triangle takes in the scene [`encode`] writes: the line
/// `    {"triangle":{"v":[[0.0,0.0],[0.0,0.0],[0.0,0.0]],"colour":[0,0,0,0],"depth":0.0}},`
/// (87 bytes with its indent and line break; a unit test checks it); real ones, with
/// fractions, take about 120.
pub const MIN_TRIANGLE_BYTES: u64 = 87;

/// The one-line refusal of `n` primitives (more than [`MAX_PRIMS`]; `exact` false: at least).
pub fn too_many_prims(file: impl std::fmt::Display, at: &str, n: u64, exact: bool) -> CliError {
    CliError::at(
        file,
        at,
        format!(
            "scene has {}{} primitives; the primitive id holds {PRIM_ID_BITS} bits, so at most {}",
            if exact { "" } else { "at least " },
            grouped(n),
            grouped(MAX_PRIMS)
        ),
    )
}

/// The one-line refusal of an imported scene of `n` primitives and `est` bytes of JSON, more
/// than `limit` ([`MAX_SCENE_BYTES`]) (`exact` false: at least).
pub fn scene_too_big(file: impl std::fmt::Display, at: &str, n: u64, est: u64, exact: bool, limit: u64) -> CliError {
    CliError::at(
        file,
        at,
        format!(
            "the scene would be {}{} of JSON ({}{} primitives), more than the {} limit every command reads back (no flag raises it); simplify or split the input",
            if exact { "" } else { "at least " },
            bytes(est),
            if exact { "" } else { "at least " },
            grouped(n),
            bytes(limit)
        ),
    )
}

/// Most triangles an importer may make for `imp`: [`MAX_PRIMS`], and for `tilerast import`
/// what fits in [`MAX_SCENE_BYTES`] at [`MIN_TRIANGLE_BYTES`] each.
pub fn max_triangles(imp: &ImportArgs) -> u64 {
    match imp.max_scene_bytes {
        Some(b) => MAX_PRIMS.min(b / MIN_TRIANGLE_BYTES),
        None => MAX_PRIMS,
    }
}

/// Refuse `n` triangles (`exact` false: at least `n`) when they are more than
/// [`max_triangles`], naming the limit that binds.
pub fn check_triangles(file: impl std::fmt::Display, at: &str, n: u64, exact: bool, imp: &ImportArgs) -> Res<()> {
    if n > MAX_PRIMS {
        return Err(too_many_prims(file, at, n, exact));
    }
    if let (true, Some(limit)) = (n > max_triangles(imp), imp.max_scene_bytes) {
        return Err(scene_too_big(file, at, n, n * MIN_TRIANGLE_BYTES, false, limit));
    }
    Ok(())
}

/// Write `scene` as JSON that [`Scene::load`] reads back: the config and background on their
/// own lines, then one primitive per line (about 100 bytes a triangle, a quarter of what
/// pretty-printing every number on its own line takes).
pub fn encode(scene: &Scene, w: &mut dyn Write) -> std::io::Result<()> {
    fn j<T: serde::Serialize>(w: &mut dyn Write, v: &T) -> std::io::Result<()> {
        serde_json::to_writer(w, v).map_err(std::io::Error::other)
    }
    w.write_all(b"{\n  \"config\": ")?;
    j(w, &scene.config)?;
    w.write_all(b",\n  \"background\": ")?;
    j(w, &scene.background)?;
    w.write_all(b",\n  \"primitives\": [")?;
    for (i, p) in scene.primitives.iter().enumerate() {
        w.write_all(if i == 0 { b"\n    " } else { b",\n    " })?;
        j(w, p)?;
    }
    w.write_all(b"\n  ]\n}\n")
}

/// A writer that only counts: [`encode`] into it tells the exact size without holding any of
/// it.
#[derive(Default)]
pub struct Counter {
    pub total: u64,
}

impl Write for Counter {
    fn write(&mut self, b: &[u8]) -> std::io::Result<usize> {
        self.total += b.len() as u64;
        Ok(b.len())
    }
    fn flush(&mut self) -> std::io::Result<()> {
        Ok(())
    }
}

/// The exact size of the scene `tilerast import` writes, or a one-line refusal when it would
/// pass [`MAX_SCENE_BYTES`] (nothing is written). Counted by encoding into a [`Counter`]: the
/// encoded text is never held, and [`write_import`] encodes it again straight to the output.
pub fn import_size(scene: &Scene, file: &str) -> Res<u64> {
    let mut c = Counter::default();
    encode(scene, &mut c).map_err(|e| CliError::at(file, "json", e))?;
    if c.total > MAX_SCENE_BYTES {
        return Err(scene_too_big(
            file,
            "size",
            scene.primitives.len() as u64,
            c.total,
            true,
            MAX_SCENE_BYTES,
        ));
    }
    Ok(c.total)
}

/// Encode `scene` to `w` (`dest` names it in errors), streamed: memory does not grow with the
/// output. `size` is [`import_size`]'s count; writing a different number of bytes is a bug.
pub fn write_import(scene: &Scene, size: u64, dest: &str, w: &mut dyn Write) -> Res<()> {
    struct Counted<'a> {
        w: &'a mut dyn Write,
        n: u64,
    }
    impl Write for Counted<'_> {
        fn write(&mut self, b: &[u8]) -> std::io::Result<usize> {
            let k = self.w.write(b)?;
            self.n += k as u64;
            Ok(k)
        }
        fn flush(&mut self) -> std::io::Result<()> {
            self.w.flush()
        }
    }
    let mut c = Counted { w, n: 0 };
    encode(scene, &mut c)
        .and_then(|()| c.flush())
        .map_err(|e| CliError::at(dest, "write", e))?;
    assert_eq!(c.n, size, "import wrote another size than it counted");
    Ok(())
}

/// Points whose size rounds above the config's `max_point_size`: the rasterizer draws them at
/// `max_point_size` (as OpenGL clamps a point size to its supported range). One warning line
/// naming the first such point and how many there are, or `None`.
pub fn point_size_warning(scene: &Scene, frame: &Frame, file: &str) -> Option<String> {
    let max = frame.cfg.max_point_size as i64;
    let mut first = None;
    let mut n = 0u64;
    for (i, (p, fx)) in scene.primitives.iter().zip(&frame.prims).enumerate() {
        if let (Primitive::Point(q), PrimitiveFx::Point(f)) = (p, fx) {
            // N = the fixed-point size rounded half up (point_raster.rs), then clamped.
            if (f.size as i64 + 128) >> 8 > max {
                n += 1;
                first.get_or_insert((i, q.size));
            }
        }
    }
    let (i, size) = first?;
    let more = if n > 1 {
        format!(" ({} points in all)", grouped(n))
    } else {
        String::new()
    };
    Some(format!(
        "warning: {file}: primitives[{i}].point.size: {size} is above max_point_size {} of this config; drawn {} pixels wide{more}, as a GPU clamps to its point size range",
        frame.cfg.max_point_size, frame.cfg.max_point_size
    ))
}

/// Options of the importers (also accepted by `render`, `raster` and `explore`).
#[derive(Args, Debug, Clone)]
pub struct ImportArgs {
    /// Config preset (ice40, default, full). For an imported file it sets the viewport the
    /// geometry is fitted to; for a JSON scene it replaces the scene's preset (its other
    /// config overrides still apply).
    #[arg(long, value_name = "P")]
    pub preset: Option<String>,
    /// OBJ camera: direction from the mesh centre towards the eye, `x,y,z` (world space).
    /// Negative components may follow the flag as its own word (`--view -1,0,0`).
    #[arg(long, value_name = "X,Y,Z", default_value = "1,0.8,1.6", allow_hyphen_values = true)]
    pub view: String,
    /// OBJ camera: vertical field of view in degrees (perspective projection).
    #[arg(long, value_name = "DEG", default_value_t = 40.0, allow_negative_numbers = true)]
    pub fov: f64,
    /// Fraction of the viewport left free on each side when fitting OBJ / SVG geometry.
    #[arg(long, value_name = "F", default_value_t = 0.05, allow_negative_numbers = true)]
    pub margin: f64,
    /// No progress bar on stderr (one is drawn only on a terminal, for work past 2 s).
    #[arg(long)]
    pub quiet: bool,
    /// Set by `tilerast import`: the scene it writes must stay within this many bytes of JSON
    /// ([`MAX_SCENE_BYTES`]), so the importers refuse geometry that cannot fit before making it.
    #[arg(skip)]
    pub max_scene_bytes: Option<u64>,
}

impl Default for ImportArgs {
    fn default() -> Self {
        ImportArgs {
            preset: None,
            view: "1,0.8,1.6".into(),
            fov: 40.0,
            margin: 0.05,
            quiet: false,
            max_scene_bytes: None,
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
    /// Run the golden front end. A point wider than the config draws prints one warning line
    /// on stderr ([`point_size_warning`]).
    pub fn frame(&self) -> Res<Frame> {
        let frame = self.scene.to_frame(&self.file)?;
        if let Some(w) = point_size_warning(&self.scene, &frame, &self.file) {
            eprintln!("{w}");
        }
        Ok(frame)
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
    if scene.primitives.len() as u64 > MAX_PRIMS {
        return Err(too_many_prims(&file, "primitives", scene.primitives.len() as u64, true));
    }
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
    fn the_smallest_triangle_line_is_min_triangle_bytes() {
        let tri = |v: f64, c: u8, depth: f64| {
            Primitive::Triangle(tilerast_golden::scene::Triangle {
                v: [[v, v], [v, v], [v, v]],
                colour: [c; 4],
                depth,
            })
        };
        let scene = |p: Vec<Primitive>| Scene {
            config: Default::default(),
            background: [0; 4],
            primitives: p,
        };
        let size = |s: &Scene| {
            let mut c = Counter::default();
            encode(s, &mut c).unwrap();
            c.total
        };
        let one = size(&scene(vec![tri(0.0, 0, 0.0)]));
        let two = size(&scene(vec![tri(0.0, 0, 0.0); 2]));
        assert_eq!(two - one, MIN_TRIANGLE_BYTES);
        let real = size(&scene(vec![tri(0.0, 0, 0.0), tri(123.45703125, 200, 0.123456)]));
        assert!(real - one > MIN_TRIANGLE_BYTES);
        // What encode writes, Scene::from_json reads back.
        let s = scene(vec![tri(1.5, 7, 0.25); 3]);
        let mut buf = Vec::new();
        write_import(&s, import_size(&s, "t").unwrap(), "t", &mut buf).unwrap();
        assert_eq!(Scene::from_json(std::str::from_utf8(&buf).unwrap(), "t").unwrap(), s);
    }

    #[test]
    fn snapping_is_to_256ths() {
        assert_eq!(snap(1.0 / 512.0 + 1.0), 1.0 + 1.0 / 256.0);
        assert_eq!(snap(3.25), 3.25);
    }
}
