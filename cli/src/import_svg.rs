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
//!   are ignored). A long fill whose horizontal lines cross many of its edges (a noisy path)
//!   is flattened and cut into vertical strips first, each tessellated alone ([`fill`]):
//!   lyon's sweep is quadratic in that case.
//! - Colour: a solid paint's colour; a gradient → its FIRST stop's colour and opacity; a
//!   pattern → grey 128. Alpha = paint opacity × fill/stroke opacity × the group opacities.
//!   Text, images, clip paths, masks and filters are ignored (usvg is built without text).
//! - Depth: painter's order. Each fill or stroke is a layer, in document (paint) order; layer k
//!   of n gets depth (n−1−k)/(n−1): the first drawn is farthest (1), the last nearest (0), so
//!   later paths win with `depth_func` `less_equal` (the default) and with `less` too.
//! - Output order: layers in document order; inside a layer, lyon's triangle order (strip by
//!   strip, left to right, for a fill cut into strips).
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

/// Flattening tolerance of fills and strokes, in screen pixels.
const TOLERANCE: f32 = 0.1;

/// A fill of at most this many line segments is tessellated whole (as lyon gives it).
pub const SPLIT_ABOVE: usize = 2048;
/// Larger fills whose horizontal lines cross more than this many edges on average are cut into
/// vertical strips so that each strip's cross about this many.
pub const ACTIVE_TARGET: f64 = 32.0;

/// A closed polygon (fills close every sub-path).
type Poly = Vec<Point>;

/// A tessellated fill and the pieces it was tessellated in.
pub struct Filled {
    pub tris: Vec<[[f64; 2]; 3]>,
    /// Per piece given to the tessellator: (line segments, edges a horizontal line crosses on
    /// average).
    pub pieces: Vec<(usize, f64)>,
}

#[cfg(test)]
impl Filled {
    /// An estimate of the tessellator's sweep work: Σ segments × (1 + active edges).
    pub fn sweep_work(&self) -> f64 {
        self.pieces.iter().map(|&(n, a)| n as f64 * (1.0 + a)).sum()
    }
}

/// Segments and the average number of edges a horizontal line through `polys` crosses.
fn piece_stats(polys: &[Poly]) -> (usize, f64) {
    let (mut n, mut dy, mut lo, mut hi) = (0, 0.0f64, f32::INFINITY, f32::NEG_INFINITY);
    for p in polys {
        for i in 0..p.len() {
            let (a, b) = (p[i], p[(i + 1) % p.len()]);
            n += 1;
            dy += (a.y - b.y).abs() as f64;
            lo = lo.min(a.y);
            hi = hi.max(a.y);
        }
    }
    let h = (hi - lo) as f64;
    (n, if h > 0.0 { dy / h } else { 0.0 })
}

/// `k` − 1 borders at quantiles of `v` (strictly increasing).
fn quantile_borders(mut v: Vec<f32>, k: usize) -> Vec<f32> {
    v.sort_by(f32::total_cmp);
    let mut b: Vec<f32> = (1..k).map(|i| v[i * v.len() / k]).collect();
    b.dedup();
    b
}

fn segment_mids(polys: &[Poly], f: impl Fn(Point) -> f32) -> Vec<f32> {
    polys
        .iter()
        .flat_map(|p| (0..p.len()).map(move |i| (p[i], p[(i + 1) % p.len()])))
        .map(|(a, b)| (f(a) + f(b)) / 2.0)
        .collect()
}

/// Cut closed polygons into the vertical slabs between `borders` (x). In each slab, each
/// polygon that meets it is clipped to it, with the parts outside pushed onto the slab's
/// border lines: each segment contributes its part inside the slab, and consecutive parts
/// join along a border line (between them the polygon stayed on one side; to reach the other
/// side it would have crossed the slab). Those border pieces have no area, and the winding
/// number of every point strictly inside the slab is unchanged (a vertical ray from it meets
/// the same edges), so both fill rules give the same result. A border crossing is computed
/// once per (segment, border), from the same arguments for both neighbours, so neighbouring
/// slabs share the vertex exactly and no crack opens. Work: one step per (segment, slab it
/// meets).
fn slabs_x(polys: &[Poly], borders: &[f32]) -> Vec<Vec<Poly>> {
    let n = borders.len() + 1;
    let lo = |j: usize| if j == 0 { f32::NEG_INFINITY } else { borders[j - 1] };
    let hi = |j: usize| if j == n - 1 { f32::INFINITY } else { borders[j] };
    // The slabs whose closed x range [lo, hi] meets [a, b].
    let first = |x: f32| borders.partition_point(|&b| b < x);
    let last = |x: f32| borders.partition_point(|&b| b <= x);
    let cross = |a: Point, b: Point, x: f32| point(x, a.y + (x - a.x) * (b.y - a.y) / (b.x - a.x));
    let mut out: Vec<Vec<Poly>> = vec![Vec::new(); n];
    // The last polygon that started a sub-path in each slab.
    let mut started = vec![usize::MAX; n];
    for (pi, poly) in polys.iter().enumerate() {
        for i in 0..poly.len() {
            let (a, b) = (poly[i], poly[(i + 1) % poly.len()]);
            for j in first(a.x.min(b.x))..=last(a.x.max(b.x)) {
                let (l, h) = (lo(j), hi(j));
                let clip = |p: Point| {
                    if p.x < l {
                        cross(a, b, l)
                    } else if p.x > h {
                        cross(a, b, h)
                    } else {
                        p
                    }
                };
                let (enter, exit) = (clip(a), clip(b));
                if started[j] != pi {
                    started[j] = pi;
                    out[j].push(Vec::new());
                }
                let cur = out[j].last_mut().expect("sub-path");
                if cur.last() != Some(&enter) {
                    cur.push(enter);
                }
                cur.push(exit);
            }
        }
    }
    out
}

/// Fill `lp` with `rule`.
///
/// lyon's sweep (top to bottom) keeps its active edges in a list it scans at every event, so
/// it costs about segments × edges crossed by a horizontal line: quadratic for a long noisy
/// path whose horizontal lines cross a share of all its edges (a noisy signal filled, a circle
/// with radial noise near its top and bottom). A fill of more than [`SPLIT_ABOVE`] segments
/// whose horizontal lines cross on average more than [`ACTIVE_TARGET`] edges is therefore
/// flattened (the tessellator's own tolerance) and cut into vertical strips at quantiles of the
/// segments' x, so that each strip's lines cross about that many; each strip is tessellated
/// alone ([`slabs_x`]: exact for both fill rules). Triangles then come strip by strip, left
/// to right. Linear when the edges are short in x compared with the strips (a noisy signal);
/// edges that are long in x but crowded (tilted spikes) still cost more (see the bench).
pub fn fill(lp: &LyonPath, rule: FillRule) -> Result<Filled, lyon::tessellation::TessellationError> {
    fill_split(lp, rule, Split::Auto)
}

/// How [`fill_split`] cuts a fill.
#[derive(Clone, Copy, PartialEq)]
enum Split {
    /// As [`fill`] does.
    Auto,
    /// Never (the whole path to lyon).
    #[cfg(test)]
    Never,
    /// Exactly this many strips, at quantiles of x.
    #[cfg(test)]
    Strips(usize),
}

fn fill_split(lp: &LyonPath, rule: FillRule, mode: Split) -> Result<Filled, lyon::tessellation::TessellationError> {
    use lyon::path::iterator::PathIterator;
    use lyon::path::PathEvent;
    let opts = FillOptions::tolerance(TOLERANCE).with_fill_rule(rule);
    let tessellate = |p: &LyonPath| {
        let mut buf: VertexBuffers<Point, u32> = VertexBuffers::new();
        FillTessellator::new()
            .tessellate_path(
                p,
                &opts,
                &mut BuffersBuilder::new(&mut buf, |v: FillVertex| v.position()),
            )
            .map(|_| triangles(&buf))
    };
    let mut polys: Vec<Poly> = Vec::new();
    for e in lp.iter().flattened(TOLERANCE) {
        match e {
            PathEvent::Begin { at } => polys.push(vec![at]),
            PathEvent::Line { to, .. } => polys.last_mut().expect("begin").push(to),
            _ => {}
        }
    }
    let (segments, active) = piece_stats(&polys);
    let whole = match mode {
        Split::Auto => segments <= SPLIT_ABOVE || active <= ACTIVE_TARGET,
        #[cfg(test)]
        Split::Never => true,
        #[cfg(test)]
        Split::Strips(_) => false,
    };
    if whole {
        return Ok(Filled {
            tris: tessellate(lp)?,
            pieces: vec![(segments, active)],
        });
    }
    let mut out = Filled {
        tris: Vec::new(),
        pieces: Vec::new(),
    };
    let mut todo = match mode {
        #[cfg(test)]
        Split::Strips(k) => {
            let mut v = slabs_x(&polys, &quantile_borders(segment_mids(&polys, |p| p.x), k));
            v.reverse();
            v
        }
        _ => vec![polys],
    };
    // Auto: split while the estimated sweep work (segments × (1 + active)) drops by a quarter.
    while let Some(s) = todo.pop() {
        let (n, a) = piece_stats(&s);
        let cost = n as f64 * (1.0 + a);
        if mode == Split::Auto && n > 256 && a > ACTIVE_TARGET {
            let k = ((a / ACTIVE_TARGET).ceil() as usize).clamp(2, 8);
            let parts = slabs_x(&s, &quantile_borders(segment_mids(&s, |p| p.x), k));
            let split_cost: f64 = parts
                .iter()
                .map(|p| {
                    let (n, a) = piece_stats(p);
                    n as f64 * (1.0 + a)
                })
                .sum();
            if parts.len() > 1 && split_cost < 0.75 * cost {
                todo.extend(parts.into_iter().rev());
                continue;
            }
        }
        let mut b = LyonPath::builder();
        for p in s.iter().filter(|p| p.len() >= 3) {
            b.begin(p[0]);
            for &q in &p[1..] {
                b.line_to(q);
            }
            b.end(true);
        }
        out.pieces.push((n, a));
        out.tris.extend(tessellate(&b.build())?);
    }
    Ok(out)
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
                    let filled = fill(&lp, rule).map_err(|e| {
                        CliError::at(
                            file,
                            format!("path `{}`", p.id()),
                            format!("fill tessellation failed: {e:?}"),
                        )
                    })?;
                    pending.push(Layer {
                        colour: paint_colour(f.paint(), opacity * f.opacity().get()),
                        tris: filled.tris,
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
                    let opts = StrokeOptions::tolerance(TOLERANCE)
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

    /// A closed polygon as a lyon path.
    fn polygon(pts: &[(f32, f32)]) -> LyonPath {
        let mut b = LyonPath::builder();
        b.begin(point(pts[0].0, pts[0].1));
        for &(x, y) in &pts[1..] {
            b.line_to(point(x, y));
        }
        b.end(true);
        b.build()
    }

    /// A filled noisy signal of `n` segments over 600 px: x steps evenly, y random in 140..340
    /// (the closing edge runs back along the whole width, crossing the noise).
    fn signal(n: usize, seed: u64) -> Vec<(f32, f32)> {
        let mut r = seed;
        let mut next = move || {
            r = r.wrapping_mul(6364136223846793005).wrapping_add(1442695040888963407);
            (r >> 33) as f32 / (1u64 << 31) as f32
        };
        (0..n)
            .map(|i| (20.0 + 600.0 * i as f32 / n as f32, 140.0 + 200.0 * next()))
            .collect()
    }

    fn covers(tris: &[[[f64; 2]; 3]], x: f64, y: f64) -> usize {
        let side = |a: [f64; 2], b: [f64; 2]| (b[0] - a[0]) * (y - a[1]) - (b[1] - a[1]) * (x - a[0]);
        tris.iter()
            .filter(|t| {
                let s = [side(t[0], t[1]), side(t[1], t[2]), side(t[2], t[0])];
                s.iter().all(|&v| v > 0.0) || s.iter().all(|&v| v < 0.0)
            })
            .count()
    }

    /// Cutting a fill into strips covers the same points as tessellating it whole, for both
    /// fill rules, on self-intersecting polygons.
    #[test]
    fn strips_cover_what_the_whole_fill_covers() {
        let random: Vec<(f32, f32)> = signal(300, 7)
            .iter()
            .zip(signal(300, 8))
            .map(|(a, b)| (20.0 + (a.1 - 140.0) * 3.0, 40.0 + (b.1 - 140.0) * 2.0))
            .collect();
        for (name, pts) in [("signal", signal(3000, 1)), ("random", random)] {
            let lp = polygon(&pts);
            for rule in [FillRule::NonZero, FillRule::EvenOdd] {
                let whole = fill_split(&lp, rule, Split::Never).unwrap();
                let cut = fill_split(&lp, rule, Split::Strips(6)).unwrap();
                assert_eq!(whole.pieces.len(), 1);
                assert!(cut.pieces.len() == 6, "{name}: {} strips", cut.pieces.len());
                let a = |t: &[[[f64; 2]; 3]]| -> f64 {
                    t.iter()
                        .map(|t| {
                            let [p, q, r] = *t;
                            ((q[0] - p[0]) * (r[1] - p[1]) - (r[0] - p[0]) * (q[1] - p[1])).abs() / 2.0
                        })
                        .sum()
                };
                let (aw, ac) = (a(&whole.tris), a(&cut.tris));
                assert!(
                    aw > 1000.0 && (aw - ac).abs() < aw * 1e-3,
                    "{name} {rule:?}: area {aw} whole, {ac} cut"
                );
                // Sample points: each covered at most once, and the same ones.
                let (mut differ, mut inside) = (0, 0);
                for i in 0..120 {
                    for j in 0..80 {
                        let (x, y) = (20.5 + i as f64 * 5.0, 20.5 + j as f64 * 5.5);
                        let (w, c) = (covers(&whole.tris, x, y), covers(&cut.tris, x, y));
                        assert!(w <= 1 && c <= 1, "{name} {rule:?}: ({x}, {y}) covered {w} / {c} times");
                        differ += (w != c) as usize;
                        inside += w;
                    }
                }
                assert!(inside > 500, "{name} {rule:?}: {inside} samples inside");
                assert!(
                    differ * 200 <= inside,
                    "{name} {rule:?}: {differ} of {inside} samples differ"
                );
            }
        }
    }

    /// The tessellator's sweep work (segments × edges crossed per horizontal line, per piece)
    /// for a noisy signal of n and 2n segments: about double with the strips, where the whole
    /// path's grows four times.
    #[test]
    fn the_sweep_work_of_a_noisy_path_grows_linearly() {
        let work = |n: usize| {
            let lp = polygon(&signal(n, 3));
            let f = fill(&lp, FillRule::NonZero).unwrap();
            assert!(f.tris.len() >= n / 2, "{n}: {} triangles", f.tris.len());
            let polys: Vec<Poly> = vec![signal(n, 3).iter().map(|&(x, y)| point(x, y)).collect()];
            let (s, a) = piece_stats(&polys);
            (f.sweep_work(), s as f64 * (1.0 + a))
        };
        let (cut1, whole1) = work(20_000);
        let (cut2, whole2) = work(40_000);
        assert!(whole2 / whole1 > 3.5, "the whole path's work: {whole1} → {whole2}");
        assert!(
            cut2 / cut1 < 2.3,
            "work with strips: {cut1} → {cut2} (× {:.2})",
            cut2 / cut1
        );
        assert!(cut1 < whole1 / 50.0, "strips: {cut1}, whole: {whole1}");
    }
}
