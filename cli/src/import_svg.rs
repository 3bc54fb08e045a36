//! SVG → scene (`tilerast import drawing.svg`, or `tilerast render drawing.svg`).
//!
//! Conventions (documented in `cli/README.md`):
//! - `usvg` parses and simplifies the file (shapes become paths, `use` is resolved, CSS and
//!   `viewBox` applied). Every path's absolute transform is applied.
//! - Mapping: the union of the SVG canvas (`width`×`height` after `viewBox`) and everything
//!   drawn is scaled uniformly to fit the preset's viewport minus `--margin` on each side and
//!   centred; SVG's y-down is flipped to tilerast's y-up. So every vertex is in the viewport.
//! - Fills are tessellated with lyon's `FillTessellator` (the path's fill rule, tolerance
//!   0.1 px on screen); strokes with `StrokeTessellator` (width, join, cap, miter limit; dashes
//!   are ignored).
//! - Colour: a solid paint's colour; a gradient → its FIRST stop's colour and opacity; a
//!   pattern → grey 128. Alpha = paint opacity × fill/stroke opacity × the group opacities.
//!   Text, images, clip paths, masks and filters are ignored (usvg is built without text).
//! - Depth: painter's order. Each fill or stroke is a layer, in document (paint) order; layer k
//!   of n gets depth (n−1−k)/(n−1): the first drawn is farthest (1), the last nearest (0), so
//!   later paths win with `depth_func` `less_equal` (the default) and with `less` too.
//! - Output order: layers in document order; inside a layer, lyon's triangle order.
//!
//! ```text
//!   svg ─► usvg::Tree ─► walk groups (opacity) ─► paths ─► abs transform ─► fit + flip y
//!                                                      └► lyon fill / stroke ─► triangles
//! ```

use crate::error::{CliError, Res};
use crate::scene_io::{snap, ImportArgs};
use lyon::math::{point, Point};
use lyon::path::Path as LyonPath;
use lyon::tessellation::{
    BuffersBuilder, FillOptions, FillRule, FillTessellator, FillVertex, LineCap, LineJoin, StrokeOptions,
    StrokeTessellator, StrokeVertex, VertexBuffers,
};
use std::path::Path;
use tilerast_golden::scene::{Primitive, Triangle};
use tilerast_golden::{Config, Rgba, Scene};
use usvg::tiny_skia_path::{PathSegment, Transform};

/// Import an SVG file for the viewport of `cfg`.
pub fn import(path: &Path, cfg: &Config, imp: &ImportArgs) -> Res<Scene> {
    let data = tilerast_golden::scene::read_input(path)?;
    let opt = usvg::Options {
        resources_dir: path.parent().map(Path::to_path_buf),
        ..Default::default()
    };
    svg_to_scene(&data, &path.display().to_string(), cfg, imp, &opt)
}

/// One tessellated fill or stroke, in screen pixels (y up).
struct Layer {
    colour: Rgba,
    tris: Vec<[[f64; 2]; 3]>,
}

/// The canvas → screen mapping: scale, then flip y.
#[derive(Clone, Copy)]
struct Fit {
    s: f64,
    bx0: f64,
    by1: f64,
    ox: f64,
    oy: f64,
}

impl Fit {
    fn map(&self, x: f64, y: f64) -> Point {
        point(
            (self.ox + (x - self.bx0) * self.s) as f32,
            (self.oy + (self.by1 - y) * self.s) as f32,
        )
    }
}

fn paint_colour(p: &usvg::Paint, opacity: f32) -> Rgba {
    let (c, o) = match p {
        usvg::Paint::Color(c) => (*c, 1.0),
        usvg::Paint::LinearGradient(g) => g
            .stops()
            .first()
            .map(|s| (s.color(), s.opacity().get()))
            .unwrap_or((usvg::Color::black(), 0.0)),
        usvg::Paint::RadialGradient(g) => g
            .stops()
            .first()
            .map(|s| (s.color(), s.opacity().get()))
            .unwrap_or((usvg::Color::black(), 0.0)),
        usvg::Paint::Pattern(_) => (usvg::Color::new_rgb(128, 128, 128), 1.0),
    };
    let a = (255.0 * o * opacity).round().clamp(0.0, 255.0) as u8;
    [c.red, c.green, c.blue, a]
}

/// The path in screen coordinates as a lyon path.
fn to_lyon(path: &usvg::Path, fit: &Fit) -> LyonPath {
    let t: Transform = path.abs_transform();
    let m = |p: usvg::tiny_skia_path::Point| {
        let mut q = p;
        t.map_point(&mut q);
        fit.map(q.x as f64, q.y as f64)
    };
    let mut b = LyonPath::builder();
    let mut open = false;
    let mut last = point(0.0, 0.0);
    for seg in path.data().segments() {
        match seg {
            PathSegment::MoveTo(p) => {
                if open {
                    b.end(false);
                }
                last = m(p);
                b.begin(last);
                open = true;
            }
            PathSegment::LineTo(p) => {
                if !open {
                    b.begin(last);
                    open = true;
                }
                last = m(p);
                b.line_to(last);
            }
            PathSegment::QuadTo(c, p) => {
                if !open {
                    b.begin(last);
                    open = true;
                }
                last = m(p);
                b.quadratic_bezier_to(m(c), last);
            }
            PathSegment::CubicTo(c1, c2, p) => {
                if !open {
                    b.begin(last);
                    open = true;
                }
                last = m(p);
                b.cubic_bezier_to(m(c1), m(c2), last);
            }
            PathSegment::Close => {
                if open {
                    b.end(true);
                    open = false;
                }
            }
        }
    }
    if open {
        b.end(false);
    }
    b.build()
}

fn triangles(buf: &VertexBuffers<Point, u32>) -> Vec<[[f64; 2]; 3]> {
    buf.indices
        .chunks_exact(3)
        .map(|t| {
            let v = |i: u32| {
                let p = buf.vertices[i as usize];
                [p.x as f64, p.y as f64]
            };
            [v(t[0]), v(t[1]), v(t[2])]
        })
        .collect()
}

fn walk(g: &usvg::Group, opacity: f32, fit: &Fit, file: &str, out: &mut Vec<Layer>) -> Res<()> {
    let opacity = opacity * g.opacity().get();
    for node in g.children() {
        match node {
            usvg::Node::Group(c) => walk(c, opacity, fit, file, out)?,
            usvg::Node::Path(p) if p.is_visible() => {
                let lp = to_lyon(p, fit);
                let fill_first = matches!(p.paint_order(), usvg::PaintOrder::FillAndStroke);
                let mut pending: Vec<Layer> = Vec::new();
                if let Some(f) = p.fill() {
                    let rule = match f.rule() {
                        usvg::FillRule::NonZero => FillRule::NonZero,
                        usvg::FillRule::EvenOdd => FillRule::EvenOdd,
                    };
                    let mut buf: VertexBuffers<Point, u32> = VertexBuffers::new();
                    FillTessellator::new()
                        .tessellate_path(
                            &lp,
                            &FillOptions::tolerance(0.1).with_fill_rule(rule),
                            &mut BuffersBuilder::new(&mut buf, |v: FillVertex| v.position()),
                        )
                        .map_err(|e| {
                            CliError::at(
                                file,
                                format!("path `{}`", p.id()),
                                format!("fill tessellation failed: {e:?}"),
                            )
                        })?;
                    pending.push(Layer {
                        colour: paint_colour(f.paint(), opacity * f.opacity().get()),
                        tris: triangles(&buf),
                    });
                }
                if let Some(s) = p.stroke() {
                    let t = p.abs_transform();
                    let tscale = ((t.sx * t.sy - t.kx * t.ky) as f64).abs().sqrt();
                    let width = (s.width().get() as f64 * tscale * fit.s) as f32;
                    let join = match s.linejoin() {
                        usvg::LineJoin::Miter => LineJoin::Miter,
                        usvg::LineJoin::MiterClip => LineJoin::MiterClip,
                        usvg::LineJoin::Round => LineJoin::Round,
                        usvg::LineJoin::Bevel => LineJoin::Bevel,
                    };
                    let cap = match s.linecap() {
                        usvg::LineCap::Butt => LineCap::Butt,
                        usvg::LineCap::Round => LineCap::Round,
                        usvg::LineCap::Square => LineCap::Square,
                    };
                    let opts = StrokeOptions::tolerance(0.1)
                        .with_line_width(width)
                        .with_line_join(join)
                        .with_line_cap(cap)
                        .with_miter_limit(s.miterlimit().get().max(1.0));
                    let mut buf: VertexBuffers<Point, u32> = VertexBuffers::new();
                    StrokeTessellator::new()
                        .tessellate_path(
                            &lp,
                            &opts,
                            &mut BuffersBuilder::new(&mut buf, |v: StrokeVertex| v.position()),
                        )
                        .map_err(|e| {
                            CliError::at(
                                file,
                                format!("path `{}`", p.id()),
                                format!("stroke tessellation failed: {e:?}"),
                            )
                        })?;
                    let layer = Layer {
                        colour: paint_colour(s.paint(), opacity * s.opacity().get()),
                        tris: triangles(&buf),
                    };
                    if fill_first {
                        pending.push(layer);
                    } else {
                        pending.insert(0, layer);
                    }
                }
                out.extend(pending.into_iter().filter(|l| !l.tris.is_empty()));
            }
            _ => {}
        }
    }
    Ok(())
}

/// Line and column (1-based) just past the end of `text`.
fn end_pos(text: &str) -> (usize, usize) {
    let line = text.split('\n').count();
    let col = text.rsplit('\n').next().map_or(0, |l| l.chars().count()) + 1;
    (line, col)
}

/// A usvg error as one line; XML errors carry their line and column.
fn svg_error(file: &str, text: &str, e: usvg::Error) -> CliError {
    match e {
        usvg::Error::ParsingFailed(x) => {
            let (line, col) = match x {
                // Errors found at the end of the text (roxmltree reports them at 1:1).
                usvg::roxmltree::Error::UnexpectedEndOfStream | usvg::roxmltree::Error::UnclosedRootNode => {
                    end_pos(text)
                }
                _ => (x.pos().row as usize, x.pos().col as usize),
            };
            let msg = x.to_string();
            let msg = match msg.rfind(" at ") {
                Some(i) if msg[i + 4..].chars().all(|c| c.is_ascii_digit() || c == ':') => &msg[..i],
                _ => &msg,
            };
            // roxmltree quotes the offending character, which may be a line break.
            let msg: String = msg
                .chars()
                .flat_map(|c| {
                    let e: Vec<char> = if c.is_control() {
                        c.escape_default().collect()
                    } else {
                        vec![c]
                    };
                    e
                })
                .collect();
            CliError::at(file, format!("line {line} column {col}"), msg)
        }
        e => CliError::at(file, "svg", e),
    }
}

/// Convert SVG bytes to a scene. A leading UTF-8 byte order mark is skipped.
pub fn svg_to_scene(data: &[u8], file: &str, cfg: &Config, imp: &ImportArgs, opt: &usvg::Options) -> Res<Scene> {
    if data.starts_with(&[0x1f, 0x8b]) {
        return Err(CliError::at(
            file,
            "svg",
            "compressed SVG (svgz) is not supported; decompress it first",
        ));
    }
    let text = std::str::from_utf8(data).map_err(|e| {
        CliError::at(
            file,
            "read",
            format!("not UTF-8 text (invalid byte at offset {})", e.valid_up_to()),
        )
    })?;
    let text = text.strip_prefix('\u{feff}').unwrap_or(text);
    let tree = usvg::Tree::from_str(text, opt).map_err(|e| svg_error(file, text, e))?;
    // Canvas ∪ drawn content, in canvas units (y down).
    let size = tree.size();
    let (mut bx0, mut by0, mut bx1, mut by1) = (0.0f64, 0.0f64, size.width() as f64, size.height() as f64);
    if tree.root().has_children() {
        let bb = tree.root().abs_stroke_bounding_box();
        bx0 = bx0.min(bb.left() as f64);
        by0 = by0.min(bb.top() as f64);
        bx1 = bx1.max(bb.right() as f64);
        by1 = by1.max(bb.bottom() as f64);
    }
    let [w, h] = [cfg.viewport[0] as f64, cfg.viewport[1] as f64];
    let (aw, ah) = (w * (1.0 - 2.0 * imp.margin), h * (1.0 - 2.0 * imp.margin));
    let s = (aw / (bx1 - bx0)).min(ah / (by1 - by0));
    if !(s.is_finite() && s > 0.0) {
        return Err(CliError::at(file, "svg", "the drawing has no extent"));
    }
    let fit = Fit {
        s,
        bx0,
        by1,
        ox: (w - (bx1 - bx0) * s) / 2.0,
        oy: (h - (by1 - by0) * s) / 2.0,
    };

    let mut layers = Vec::new();
    walk(tree.root(), 1.0, &fit, file, &mut layers)?;
    if layers.is_empty() {
        return Err(CliError::at(
            file,
            "svg",
            "nothing to draw (no visible filled or stroked path)",
        ));
    }
    let n = layers.len();
    let mut prims = Vec::new();
    for (k, l) in layers.iter().enumerate() {
        let depth = if n > 1 {
            (n - 1 - k) as f64 / (n - 1) as f64
        } else {
            0.0
        };
        for t in &l.tris {
            let v = t.map(|p| [snap(p[0]).clamp(0.0, w), snap(p[1]).clamp(0.0, h)]);
            prims.push(Primitive::Triangle(Triangle {
                v,
                colour: l.colour,
                depth: (depth * 1e9).round() / 1e9,
            }));
        }
    }
    let mut config = serde_json::Map::new();
    config.insert("preset".into(), serde_json::Value::String(cfg.name.clone()));
    Ok(Scene {
        config,
        background: [255, 255, 255, 255],
        primitives: prims,
    })
}

#[cfg(test)]
mod tests {
    use super::*;

    fn scene(svg: &str) -> Res<Scene> {
        let cfg = Config::preset("default").unwrap();
        let imp = ImportArgs {
            margin: 0.0,
            ..Default::default()
        };
        svg_to_scene(svg.as_bytes(), "t.svg", &cfg, &imp, &usvg::Options::default())
    }

    fn tris(s: &Scene) -> Vec<&Triangle> {
        s.primitives
            .iter()
            .map(|p| match p {
                Primitive::Triangle(t) => t,
                _ => panic!("point"),
            })
            .collect()
    }

    fn area(t: &Triangle) -> f64 {
        let [a, b, c] = t.v;
        ((b[0] - a[0]) * (c[1] - a[1]) - (c[0] - a[0]) * (b[1] - a[1])).abs() / 2.0
    }

    #[test]
    fn rect_maps_with_y_flip_and_scale() {
        // Canvas 64x48 → viewport 640x480: scale 10. Rect x 0..32, y 0..16 (SVG, y down) is the
        // top-left quarter-width strip: screen x 0..320, y 480-160..480 = 320..480.
        let s = scene(r##"<svg xmlns="http://www.w3.org/2000/svg" width="64" height="48"><rect x="0" y="0" width="32" height="16" fill="#ff0000"/></svg>"##).unwrap();
        let t = tris(&s);
        assert!(!t.is_empty());
        let total: f64 = t.iter().map(|t| area(t)).sum();
        assert!((total - 320.0 * 160.0).abs() < 1.0, "{total}");
        for tr in &t {
            assert_eq!(tr.colour, [255, 0, 0, 255]);
            for v in tr.v {
                assert!(
                    (0.0..=320.0).contains(&v[0]) && (320.0..=480.0).contains(&v[1]),
                    "{v:?}"
                );
            }
        }
    }

    #[test]
    fn later_paths_are_nearer_and_gradient_takes_first_stop() {
        let s = scene(
            r##"<svg xmlns="http://www.w3.org/2000/svg" width="100" height="100">
              <defs><linearGradient id="g"><stop offset="0" stop-color="#00ff00"/><stop offset="1" stop-color="#0000ff"/></linearGradient></defs>
              <rect width="50" height="50" fill="url(#g)"/>
              <g transform="translate(50,50)" opacity="0.5"><rect width="10" height="10" fill="blue"/></g>
            </svg>"##,
        )
        .unwrap();
        let t = tris(&s);
        let first = t.first().unwrap();
        let last = t.last().unwrap();
        assert_eq!(first.colour, [0, 255, 0, 255]);
        assert_eq!(first.depth, 1.0);
        assert_eq!(last.colour, [0, 0, 255, 128]);
        assert_eq!(last.depth, 0.0);
        // The translated small rect sits right of and below the canvas centre → y < 240 (y up).
        for v in last.v {
            assert!(v[0] >= 320.0 - 0.01 && v[1] <= 240.0 + 0.01, "{v:?}");
        }
    }

    #[test]
    fn errors_are_one_line_and_name_the_file() {
        // XML errors carry their line and column (before: `t.svg: svg: …` without them).
        let e = scene("<svg").unwrap_err();
        assert!(e.0.starts_with("t.svg: line 1 column 1: "), "{e}");
        let e = scene("<svg xmlns=\"http://www.w3.org/2000/svg\">\n  <rect width=5/>\n</svg>").unwrap_err();
        assert!(e.0.starts_with("t.svg: line 2 column 15: expected a quote"), "{e}");
        assert!(!e.0.contains(" at 2:"), "{e}");
        // A quoted line break stays escaped: one line.
        let e = scene("<svg xmlns=\"http://www.w3.org/2000/svg\"\n").unwrap_err();
        assert_eq!(e.0.lines().count(), 1, "{e}");
        // Not XML errors: still one line naming the file.
        let e = scene(r#"<svg xmlns="http://www.w3.org/2000/svg" width="0" height="10"><rect/></svg>"#).unwrap_err();
        assert!(e.0.starts_with("t.svg: svg: "), "{e}");
        let e = scene(r#"<svg xmlns="http://www.w3.org/2000/svg" width="10" height="10"></svg>"#).unwrap_err();
        assert!(e.0.contains("nothing to draw"), "{e}");
    }
}
