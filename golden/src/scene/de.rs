//! Strict deserialization of scene files (see `scene.rs` for the format).
//!
//! Only the documented object forms are accepted: a scene, a primitive, a triangle and a point
//! are JSON objects (serde's positional-array form of a struct is refused), every object
//! refuses duplicate and unknown keys, and every error names the field path, e.g.
//! `primitives[3].triangle.v[1]: vertex has 3 coordinates, expected 2 (x, y)`. serde_json
//! appends the line and column, which `Scene::from_json` reports as the error's position.
//!
//! ```text
//!   text ─► SceneVisitor ─┬─ config:     ConfigVisitor (field → JSON value, no duplicates)
//!                         ├─ background: colour
//!                         └─ primitives: PrimsVisitor ─► PrimVisitor ─► TriangleVisitor / PointVisitor
//!                                                                      (leaves: JSON value → number, [x, y], colour)
//! ```

use super::{Point, Primitive, Scene, Triangle};
use crate::prim::Rgba;
use serde::de::{self, DeserializeSeed, Deserializer, MapAccess, SeqAccess, Visitor};
use serde_json::Value;
use std::fmt;

/// A short one-line description of a JSON value for messages: `"4"`, `32`, `an array`.
pub(crate) fn describe(v: &Value) -> String {
    match v {
        Value::Null => "null".into(),
        Value::Bool(b) => b.to_string(),
        Value::Number(n) => n.to_string(),
        Value::String(s) => {
            let t: String = s.chars().take(40).collect();
            let more = if t.len() < s.len() { "…" } else { "" };
            format!("{}{more}", Value::String(t))
        }
        Value::Array(a) => format!("an array of {}", a.len()),
        Value::Object(_) => "an object".into(),
    }
}

fn num(v: &Value, path: &str) -> Result<f64, String> {
    v.as_f64()
        .ok_or_else(|| format!("{path}: expected a number, got {}", describe(v)))
}

fn vec2(v: &Value, path: &str, what: &str) -> Result<[f64; 2], String> {
    let a = v
        .as_array()
        .ok_or_else(|| format!("{path}: expected a {what} [x, y], got {}", describe(v)))?;
    if a.len() != 2 {
        return Err(format!(
            "{path}: {what} has {} coordinate{}, expected 2 (x, y)",
            a.len(),
            if a.len() == 1 { "" } else { "s" }
        ));
    }
    Ok([num(&a[0], &format!("{path}[0]"))?, num(&a[1], &format!("{path}[1]"))?])
}

fn vertices(v: &Value, path: &str) -> Result<[[f64; 2]; 3], String> {
    let a = v.as_array().ok_or_else(|| {
        format!(
            "{path}: expected three vertices [[x, y], [x, y], [x, y]], got {}",
            describe(v)
        )
    })?;
    if a.len() != 3 {
        return Err(format!("{path}: triangle has {} vertices, expected 3", a.len()));
    }
    let mut out = [[0.0; 2]; 3];
    for (k, p) in a.iter().enumerate() {
        out[k] = vec2(p, &format!("{path}[{k}]"), "vertex")?;
    }
    Ok(out)
}

fn colour(v: &Value, path: &str) -> Result<Rgba, String> {
    let a = v
        .as_array()
        .ok_or_else(|| format!("{path}: expected a colour [r, g, b, a], got {}", describe(v)))?;
    if a.len() != 4 {
        return Err(format!(
            "{path}: colour has {} components, expected 4 (r, g, b, a)",
            a.len()
        ));
    }
    let mut out = [0u8; 4];
    for (i, c) in a.iter().enumerate() {
        out[i] = c
            .as_u64()
            .and_then(|c| u8::try_from(c).ok())
            .ok_or_else(|| format!("{path}[{i}]: expected an integer 0..=255, got {}", describe(c)))?;
    }
    Ok(out)
}

fn boolean(v: &Value, path: &str) -> Result<bool, String> {
    v.as_bool()
        .ok_or_else(|| format!("{path}: expected true or false, got {}", describe(v)))
}

/// The visitor methods for every JSON type but an object (or, with `seq`, an array): a
/// one-line error `path: expected <what>, got <kind>`.
macro_rules! only_object {
    () => {
        fn visit_bool<E: de::Error>(self, v: bool) -> Result<Self::Value, E> {
            Err(self.wrong(&v.to_string()))
        }
        fn visit_i64<E: de::Error>(self, v: i64) -> Result<Self::Value, E> {
            Err(self.wrong(&v.to_string()))
        }
        fn visit_u64<E: de::Error>(self, v: u64) -> Result<Self::Value, E> {
            Err(self.wrong(&v.to_string()))
        }
        fn visit_f64<E: de::Error>(self, v: f64) -> Result<Self::Value, E> {
            Err(self.wrong(&v.to_string()))
        }
        fn visit_str<E: de::Error>(self, v: &str) -> Result<Self::Value, E> {
            Err(self.wrong(&describe(&Value::String(v.to_string()))))
        }
        fn visit_unit<E: de::Error>(self) -> Result<Self::Value, E> {
            Err(self.wrong("null"))
        }
    };
    (seq) => {
        only_object!();
        fn visit_seq<A: SeqAccess<'de>>(self, _seq: A) -> Result<Self::Value, A::Error> {
            Err(self.wrong("an array (the positional form is not supported)"))
        }
    };
}

/// Read the keys of an object, refusing duplicates and keys not in `known`.
struct Keys {
    path: String,
    known: &'static [&'static str],
    seen: Vec<String>,
}

impl Keys {
    fn new(path: impl Into<String>, known: &'static [&'static str]) -> Keys {
        Keys {
            path: path.into(),
            known,
            seen: Vec::new(),
        }
    }

    fn next<'de, A: MapAccess<'de>>(&mut self, map: &mut A) -> Result<Option<String>, A::Error> {
        let Some(k) = map.next_key::<String>()? else {
            return Ok(None);
        };
        if self.seen.contains(&k) {
            return Err(de::Error::custom(format!("{}: duplicate key {k:?}", self.path)));
        }
        if !self.known.is_empty() && !self.known.contains(&k.as_str()) {
            return Err(de::Error::custom(format!(
                "{}: unknown field {k:?} (expected {})",
                self.path,
                self.known.join(", ")
            )));
        }
        self.seen.push(k.clone());
        Ok(Some(k))
    }

    fn missing<E: de::Error>(&self, k: &str) -> E {
        E::custom(format!("{}: missing field \"{k}\"", self.path))
    }
}

fn leaf<'de, A: MapAccess<'de>, T>(
    map: &mut A,
    path: String,
    f: impl FnOnce(&Value, &str) -> Result<T, String>,
) -> Result<T, A::Error> {
    let v: Value = map.next_value()?;
    f(&v, &path).map_err(de::Error::custom)
}

struct SceneVisitor;

impl SceneVisitor {
    fn wrong<E: de::Error>(&self, got: &str) -> E {
        E::custom(format!(
            "scene: expected an object {{\"config\": …, \"background\": …, \"primitives\": […]}}, got {got}"
        ))
    }
}

impl<'de> Visitor<'de> for SceneVisitor {
    type Value = Scene;
    fn expecting(&self, f: &mut fmt::Formatter) -> fmt::Result {
        f.write_str("a scene object")
    }
    only_object!(seq);
    fn visit_map<A: MapAccess<'de>>(self, mut map: A) -> Result<Scene, A::Error> {
        let mut keys = Keys::new("scene", &["config", "background", "primitives"]);
        let mut scene = Scene {
            config: serde_json::Map::new(),
            background: [0, 0, 0, 255],
            primitives: Vec::new(),
        };
        while let Some(k) = keys.next(&mut map)? {
            match k.as_str() {
                "config" => scene.config = map.next_value_seed(ConfigSeed)?,
                "background" => scene.background = leaf(&mut map, "background".into(), colour)?,
                _ => scene.primitives = map.next_value_seed(PrimsSeed)?,
            }
        }
        Ok(scene)
    }
}

impl<'de> de::Deserialize<'de> for Scene {
    fn deserialize<D: Deserializer<'de>>(d: D) -> Result<Scene, D::Error> {
        d.deserialize_any(SceneVisitor)
    }
}

/// `config`: an object of field → JSON value (checked by `Scene::config`), no duplicates.
struct ConfigSeed;

impl ConfigSeed {
    fn wrong<E: de::Error>(&self, got: &str) -> E {
        E::custom(format!(
            "config: expected an object {{\"preset\": \"…\", field: value, …}}, got {got}"
        ))
    }
}

impl<'de> DeserializeSeed<'de> for ConfigSeed {
    type Value = serde_json::Map<String, Value>;
    fn deserialize<D: Deserializer<'de>>(self, d: D) -> Result<Self::Value, D::Error> {
        d.deserialize_any(self)
    }
}

impl<'de> Visitor<'de> for ConfigSeed {
    type Value = serde_json::Map<String, Value>;
    fn expecting(&self, f: &mut fmt::Formatter) -> fmt::Result {
        f.write_str("a config object")
    }
    only_object!(seq);
    fn visit_map<A: MapAccess<'de>>(self, mut map: A) -> Result<Self::Value, A::Error> {
        let mut keys = Keys::new("config", &[]);
        let mut out = serde_json::Map::new();
        while let Some(k) = keys.next(&mut map)? {
            let v: Value = map.next_value()?;
            out.insert(k, v);
        }
        Ok(out)
    }
}

/// `primitives`: an array of primitives.
struct PrimsSeed;

impl PrimsSeed {
    fn wrong<E: de::Error>(&self, got: &str) -> E {
        E::custom(format!("primitives: expected an array of primitives, got {got}"))
    }
}

impl<'de> DeserializeSeed<'de> for PrimsSeed {
    type Value = Vec<Primitive>;
    fn deserialize<D: Deserializer<'de>>(self, d: D) -> Result<Self::Value, D::Error> {
        d.deserialize_any(self)
    }
}

impl<'de> Visitor<'de> for PrimsSeed {
    type Value = Vec<Primitive>;
    fn expecting(&self, f: &mut fmt::Formatter) -> fmt::Result {
        f.write_str("an array of primitives")
    }
    only_object!();
    fn visit_map<A: MapAccess<'de>>(self, _map: A) -> Result<Self::Value, A::Error> {
        Err(self.wrong("an object"))
    }
    fn visit_seq<A: SeqAccess<'de>>(self, mut seq: A) -> Result<Self::Value, A::Error> {
        let mut out = Vec::new();
        while let Some(p) = seq.next_element_seed(PrimSeed(out.len()))? {
            out.push(p);
        }
        Ok(out)
    }
}

/// One primitive: `{"triangle": {…}}` or `{"point": {…}}`.
struct PrimSeed(usize);

impl PrimSeed {
    fn wrong<E: de::Error>(&self, got: &str) -> E {
        E::custom(format!(
            "primitives[{}]: expected an object {{\"triangle\": {{…}}}} or {{\"point\": {{…}}}}, got {got}",
            self.0
        ))
    }
}

impl<'de> DeserializeSeed<'de> for PrimSeed {
    type Value = Primitive;
    fn deserialize<D: Deserializer<'de>>(self, d: D) -> Result<Primitive, D::Error> {
        d.deserialize_any(self)
    }
}

impl<'de> Visitor<'de> for PrimSeed {
    type Value = Primitive;
    fn expecting(&self, f: &mut fmt::Formatter) -> fmt::Result {
        f.write_str("a primitive object")
    }
    only_object!(seq);
    fn visit_map<A: MapAccess<'de>>(self, mut map: A) -> Result<Primitive, A::Error> {
        let path = format!("primitives[{}]", self.0);
        let Some(k) = map.next_key::<String>()? else {
            return Err(self.wrong("an empty object"));
        };
        let p = match k.as_str() {
            "triangle" => Primitive::Triangle(map.next_value_seed(TriangleSeed(format!("{path}.triangle")))?),
            "point" => Primitive::Point(map.next_value_seed(PointSeed(format!("{path}.point")))?),
            _ => {
                return Err(de::Error::custom(format!(
                    "{path}: unknown primitive {k:?} (expected \"triangle\" or \"point\")"
                )))
            }
        };
        if let Some(k2) = map.next_key::<String>()? {
            return Err(de::Error::custom(format!(
                "{path}: a primitive has exactly one key, \"triangle\" or \"point\"; found a second key \"{k2}\""
            )));
        }
        Ok(p)
    }
}

struct TriangleSeed(String);

impl TriangleSeed {
    fn wrong<E: de::Error>(&self, got: &str) -> E {
        E::custom(format!(
            "{}: expected an object {{\"v\": […], \"colour\": […], \"depth\": …}}, got {got}",
            self.0
        ))
    }
}

impl<'de> DeserializeSeed<'de> for TriangleSeed {
    type Value = Triangle;
    fn deserialize<D: Deserializer<'de>>(self, d: D) -> Result<Triangle, D::Error> {
        d.deserialize_any(self)
    }
}

impl<'de> Visitor<'de> for TriangleSeed {
    type Value = Triangle;
    fn expecting(&self, f: &mut fmt::Formatter) -> fmt::Result {
        f.write_str("a triangle object")
    }
    only_object!(seq);
    fn visit_map<A: MapAccess<'de>>(self, mut map: A) -> Result<Triangle, A::Error> {
        let p = &self.0;
        let mut keys = Keys::new(p.clone(), &["v", "colour", "depth"]);
        let (mut v, mut c, mut depth) = (None, None, 0.0);
        while let Some(k) = keys.next(&mut map)? {
            match k.as_str() {
                "v" => v = Some(leaf(&mut map, format!("{p}.v"), vertices)?),
                "colour" => c = Some(leaf(&mut map, format!("{p}.colour"), colour)?),
                _ => depth = leaf(&mut map, format!("{p}.depth"), num)?,
            }
        }
        Ok(Triangle {
            v: v.ok_or_else(|| keys.missing("v"))?,
            colour: c.ok_or_else(|| keys.missing("colour"))?,
            depth,
        })
    }
}

struct PointSeed(String);

impl PointSeed {
    fn wrong<E: de::Error>(&self, got: &str) -> E {
        E::custom(format!(
            "{}: expected an object {{\"pos\": […], \"size\": …, \"colour\": […], \"depth\": …, \"aa\": …}}, got {got}",
            self.0
        ))
    }
}

impl<'de> DeserializeSeed<'de> for PointSeed {
    type Value = Point;
    fn deserialize<D: Deserializer<'de>>(self, d: D) -> Result<Point, D::Error> {
        d.deserialize_any(self)
    }
}

impl<'de> Visitor<'de> for PointSeed {
    type Value = Point;
    fn expecting(&self, f: &mut fmt::Formatter) -> fmt::Result {
        f.write_str("a point object")
    }
    only_object!(seq);
    fn visit_map<A: MapAccess<'de>>(self, mut map: A) -> Result<Point, A::Error> {
        let p = &self.0;
        let mut keys = Keys::new(p.clone(), &["pos", "size", "colour", "depth", "aa"]);
        let (mut pos, mut size, mut c, mut depth, mut aa) = (None, None, None, 0.0, false);
        while let Some(k) = keys.next(&mut map)? {
            match k.as_str() {
                "pos" => pos = Some(leaf(&mut map, format!("{p}.pos"), |v, p| vec2(v, p, "position"))?),
                "size" => size = Some(leaf(&mut map, format!("{p}.size"), num)?),
                "colour" => c = Some(leaf(&mut map, format!("{p}.colour"), colour)?),
                "depth" => depth = leaf(&mut map, format!("{p}.depth"), num)?,
                _ => aa = leaf(&mut map, format!("{p}.aa"), boolean)?,
            }
        }
        Ok(Point {
            pos: pos.ok_or_else(|| keys.missing("pos"))?,
            size: size.ok_or_else(|| keys.missing("size"))?,
            colour: c.ok_or_else(|| keys.missing("colour"))?,
            depth,
            aa,
        })
    }
}

/// A config file: one object `{"preset": "…", field: value, …}` (a scene's `config`), with
/// the same strictness (no duplicate keys, an object and nothing else).
pub(crate) fn config_map(text: &str) -> Result<serde_json::Map<String, Value>, serde_json::Error> {
    let mut de = serde_json::Deserializer::from_str(text);
    let map = ConfigSeed.deserialize(&mut de)?;
    de.end()?;
    Ok(map)
}
