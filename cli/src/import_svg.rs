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
//!   are ignored). A long fill whose horizontal lines cross many of its edges (a noisy path),
//!   where lyon's sweep is quadratic, is flattened (the same tolerance) and ([`fill`]):
//!   - if no two of its edges meet (except consecutive edges at their vertex), filled by our
//!     own trapezoid sweep in O(n log n) ([`sweep_fill`], both fill rules);
//!   - otherwise (crossings, touching or overlapping edges) cut into vertical strips, each
//!     tessellated by lyon alone.
//! - Colour: a solid paint's colour; a gradient → its FIRST stop's colour and opacity; a
//!   pattern → grey 128. Alpha = paint opacity × fill/stroke opacity × the group opacities.
//!   Text, images, clip paths, masks and filters are ignored (usvg is built without text).
//! - Depth: painter's order. Each fill or stroke is a layer, in document (paint) order; layer k
//!   of n gets depth (n−1−k)/(n−1): the first drawn is farthest (1), the last nearest (0), so
//!   later paths win with `depth_func` `less_equal` (the default) and with `less` too.
//! - Output order: layers in document order; inside a layer, lyon's triangle order (strip by
//!   strip, left to right, for a fill cut into strips), or for a fill taken by the trapezoid
//!   sweep, its trapezoids in the order they close: by the sweep's events bottom to top (screen
//!   y up, ties left to right), and inside an event left to right; each trapezoid as one or two
//!   counter-clockwise triangles.
//!
//! ```text
//!   svg ─► usvg::Tree ─► walk groups (opacity) ─► paths ─► abs transform ─► fit + flip y
//!                                                      ├► lyon fill / stroke ─► triangles
//!                                                      └► long fill ─► flatten ─► trapezoid sweep
//!                                                             (edges meet: lyon, in strips)
//! ```

use crate::error::{CliError, Res};
use crate::scene_io::{check_triangles, max_triangles, snap, ImportArgs};
use lyon::math::{point, Point};
use lyon::path::Path as LyonPath;
use lyon::tessellation::{
    BuffersBuilder, FillGeometryBuilder, FillOptions, FillRule, FillTessellator, FillVertex, GeometryBuilder,
    GeometryBuilderError, LineCap, LineJoin, StrokeGeometryBuilder, StrokeOptions, StrokeTessellator, StrokeVertex,
    VertexBuffers, VertexId,
};
use std::cell::Cell;
use std::cmp::Ordering;
use std::collections::BTreeSet;
use std::ops::Bound::{Excluded, Unbounded};
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

thread_local! {
    /// Triangles the import may still make (set by [`svg_to_scene`]; unlimited otherwise):
    /// lyon's tessellators stop at the first vertex past it ([`Budgeted`]), so that a
    /// self-crossing path whose intersections would make millions of triangles is refused
    /// before they are allocated.
    static TRIANGLES_LEFT: Cell<u64> = const { Cell::new(u64::MAX) };
    /// Set when [`Budgeted`] stopped a tessellation.
    static OVER_BUDGET: Cell<bool> = const { Cell::new(false) };
}

/// A lyon geometry builder that spends [`TRIANGLES_LEFT`]: once it is spent, or once a
/// tessellation has made three vertices per triangle left (a fill's triangles are about
/// as many as its vertices), the next vertex is refused (`TooManyVertices`) and
/// [`OVER_BUDGET`] is set.
struct Budgeted<B> {
    inner: B,
    vertices: u64,
    max_vertices: u64,
}

impl<B> Budgeted<B> {
    fn new(inner: B) -> Self {
        let left = TRIANGLES_LEFT.with(Cell::get);
        Budgeted {
            inner,
            vertices: 0,
            max_vertices: left.saturating_mul(3).saturating_add(64),
        }
    }
    fn vertex(&mut self) -> Result<(), GeometryBuilderError> {
        self.vertices += 1;
        if TRIANGLES_LEFT.with(Cell::get) == 0 || self.vertices > self.max_vertices {
            OVER_BUDGET.with(|o| o.set(true));
            return Err(GeometryBuilderError::TooManyVertices);
        }
        Ok(())
    }
}

impl<B: GeometryBuilder> GeometryBuilder for Budgeted<B> {
    fn begin_geometry(&mut self) {
        self.inner.begin_geometry()
    }
    fn end_geometry(&mut self) {
        self.inner.end_geometry()
    }
    fn add_triangle(&mut self, a: VertexId, b: VertexId, c: VertexId) {
        TRIANGLES_LEFT.with(|t| t.set(t.get().saturating_sub(1)));
        self.inner.add_triangle(a, b, c)
    }
    fn abort_geometry(&mut self) {
        self.inner.abort_geometry()
    }
}

impl<B: FillGeometryBuilder> FillGeometryBuilder for Budgeted<B> {
    fn add_fill_vertex(&mut self, v: FillVertex) -> Result<VertexId, GeometryBuilderError> {
        self.vertex()?;
        self.inner.add_fill_vertex(v)
    }
}

impl<B: StrokeGeometryBuilder> StrokeGeometryBuilder for Budgeted<B> {
    fn add_stroke_vertex(&mut self, v: StrokeVertex) -> Result<VertexId, GeometryBuilderError> {
        self.vertex()?;
        self.inner.add_stroke_vertex(v)
    }
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

/// A tessellated fill, how, and the pieces it was tessellated in.
pub struct Filled {
    pub tris: Vec<[[f64; 2]; 3]>,
    /// Per piece given to lyon's tessellator: (line segments, edges a horizontal line crosses on
    /// average). None for the trapezoid sweep.
    pub pieces: Vec<(usize, f64)>,
    /// Which tessellation was used (read by the tests).
    #[cfg_attr(not(test), allow(dead_code))]
    pub method: Method,
}

/// Which tessellation [`fill`] used.
#[derive(Clone, Copy, Debug, PartialEq)]
pub enum Method {
    /// lyon's `FillTessellator`, on the whole path or strip by strip.
    Lyon,
    /// The trapezoid sweep ([`sweep_fill`]): the flattened polygons have no edges that meet.
    Sweep {
        /// Comparisons made in its ordered set of active edges (its work, up to O(n)).
        comparisons: u64,
        /// Trapezoids emitted (as one or two triangles each).
        trapezoids: usize,
    },
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

/// A vertex on the sweep's integer grid: `[x, y]`, each in 0..=2^30 (give or take a step).
type Q = [i32; 2];

/// The sweep order of points: by y, then by x. A horizontal edge thus runs "upwards" from its
/// left end to its right end, as if tilted by an infinitesimal rise to the right.
fn sweep_key(p: Q) -> (i32, i32) {
    (p[1], p[0])
}

/// Twice the signed area of the triangle (a, b, c): > 0 when c is left of the line a → b.
/// Exact: coordinates about 0..=2^30 give differences about ±2^30 and products about ±2^60.
fn orient(a: Q, b: Q, c: Q) -> i64 {
    let d = |p: Q, q: Q, i: usize| q[i] as i64 - p[i] as i64;
    d(a, b, 0) * d(a, c, 1) - d(a, b, 1) * d(a, c, 0)
}

/// An edge of the sweep, from its lower end to its upper end in the sweep order; `dir` is +1
/// when the polygon runs it upwards, −1 when downwards.
#[derive(Clone, Copy, Debug)]
struct Edge {
    lo: Q,
    hi: Q,
    dir: i8,
}

impl Edge {
    /// x (grid units) where the edge crosses the horizontal line at `y`, for y in its range; its
    /// ends exactly.
    fn x_at(&self, y: i32) -> f64 {
        if y == self.lo[1] {
            self.lo[0] as f64
        } else if y == self.hi[1] {
            self.hi[0] as f64
        } else {
            let t = (y - self.lo[1]) as f64 / (self.hi[1] - self.lo[1]) as f64;
            let x = self.lo[0] as f64 + t * (self.hi[0] - self.lo[0]) as f64;
            x.clamp(self.lo[0].min(self.hi[0]) as f64, self.lo[0].max(self.hi[0]) as f64)
        }
    }
}

/// Whether two edges of the sweep have a point in common other than the one end two
/// consecutive edges share (the sweep's vertices are all distinct, so a shared end is such a
/// vertex). Crossings, an end on the other edge and collinear overlaps all count. Exact.
fn edges_meet(a: &Edge, b: &Edge) -> bool {
    let (ea, eb) = ([a.lo, a.hi], [b.lo, b.hi]);
    for i in 0..2 {
        for j in 0..2 {
            if ea[i] == eb[j] {
                let (c, u, v) = (ea[i], ea[1 - i], eb[1 - j]);
                if u == v {
                    return true;
                }
                // Only at c unless both run from c the same way along one line.
                let dot = (u[0] as i64 - c[0] as i64) * (v[0] as i64 - c[0] as i64)
                    + (u[1] as i64 - c[1] as i64) * (v[1] as i64 - c[1] as i64);
                return orient(c, u, v) == 0 && dot > 0;
            }
        }
    }
    // r (on the line p q) lies on the segment p q.
    let on = |p: Q, q: Q, r: Q| {
        p[0].min(q[0]) <= r[0] && r[0] <= p[0].max(q[0]) && p[1].min(q[1]) <= r[1] && r[1] <= p[1].max(q[1])
    };
    let (d1, d2) = (orient(b.lo, b.hi, a.lo), orient(b.lo, b.hi, a.hi));
    let (d3, d4) = (orient(a.lo, a.hi, b.lo), orient(a.lo, a.hi, b.hi));
    let opposite = |s: i64, t: i64| (s > 0 && t < 0) || (s < 0 && t > 0);
    (opposite(d1, d2) && opposite(d3, d4))
        || (d1 == 0 && on(b.lo, b.hi, a.lo))
        || (d2 == 0 && on(b.lo, b.hi, a.hi))
        || (d3 == 0 && on(a.lo, a.hi, b.lo))
        || (d4 == 0 && on(a.lo, a.hi, b.hi))
}

/// The sweep's work counter, and a flag raised when the ordered set compared two edges that
/// touch (then the sweep gives up).
#[derive(Default)]
struct SweepCtx {
    comparisons: Cell<u64>,
    touching: Cell<bool>,
}

/// An active edge in the sweep's ordered set, ordered left to right along the sweep line.
#[derive(Clone, Copy)]
struct Active<'a> {
    e: Edge,
    id: u32,
    ctx: &'a SweepCtx,
}

impl PartialEq for Active<'_> {
    fn eq(&self, other: &Self) -> bool {
        self.id == other.id
    }
}

impl Eq for Active<'_> {}

impl PartialOrd for Active<'_> {
    fn partial_cmp(&self, other: &Self) -> Option<Ordering> {
        Some(self.cmp(other))
    }
}

impl Ord for Active<'_> {
    /// Two edges active at once span a common stretch of the sweep, from where the later one
    /// starts; without crossings their order is the same all along it, so compare there: the
    /// later one's lower end against the other's line, or, when both start at the same vertex,
    /// the later one's upper end. A total order on edges that do not meet (all the set holds
    /// until the sweep finds a meeting pair); a zero orientation means they touch: flagged.
    fn cmp(&self, other: &Self) -> Ordering {
        if self.id == other.id {
            return Ordering::Equal;
        }
        let c = self.ctx;
        c.comparisons.set(c.comparisons.get() + 1);
        let later_is_self = sweep_key(self.e.lo) >= sweep_key(other.e.lo);
        let (a, b) = if later_is_self {
            (&self.e, &other.e)
        } else {
            (&other.e, &self.e)
        };
        let o = if a.lo == b.lo {
            orient(b.lo, b.hi, a.hi)
        } else {
            orient(b.lo, b.hi, a.lo)
        };
        // o > 0: a is left of b.
        let a_vs_b = match o.cmp(&0) {
            Ordering::Greater => Ordering::Less,
            Ordering::Less => Ordering::Greater,
            Ordering::Equal => {
                c.touching.set(true);
                return self.id.cmp(&other.id);
            }
        };
        if later_is_self {
            a_vs_b
        } else {
            a_vs_b.reverse()
        }
    }
}

/// The trapezoid sweep's result.
struct SweepFill {
    tris: Vec<[[f64; 2]; 3]>,
    comparisons: u64,
    trapezoids: usize,
}

/// The state of the trapezoid sweep ([`sweep_fill`]).
struct Sweeper<'a> {
    edges: Vec<Edge>,
    /// Per edge: the winding number just right of it (fixed when it is inserted).
    wind: Vec<i64>,
    /// Per active edge: the y at which the gap right of it (up to its right neighbour) opened.
    gap_y: Vec<i32>,
    set: BTreeSet<Active<'a>>,
    ctx: &'a SweepCtx,
    rule: FillRule,
    /// Trapezoids: left edge, right edge, y from, y to.
    traps: Vec<(u32, u32, i32, i32)>,
}

impl<'a> Sweeper<'a> {
    fn key(&self, id: u32) -> Active<'a> {
        Active {
            e: self.edges[id as usize],
            id,
            ctx: self.ctx,
        }
    }

    /// The active edge left of `k` (which need not be in the set).
    fn left(&self, k: &Active<'a>) -> Option<u32> {
        self.set.range(..*k).next_back().map(|a| a.id)
    }

    /// The active edge right of `k` (which need not be in the set).
    fn right(&self, k: &Active<'a>) -> Option<u32> {
        self.set.range((Excluded(*k), Unbounded)).next().map(|a| a.id)
    }

    fn wind_of(&self, l: Option<u32>) -> i64 {
        l.map_or(0, |l| self.wind[l as usize])
    }

    fn inside(&self, w: i64) -> bool {
        match self.rule {
            FillRule::NonZero => w != 0,
            FillRule::EvenOdd => w % 2 != 0,
        }
    }

    /// The gap between adjacent edges `l` and `r` (None: beyond the outermost) closes at `y`:
    /// its trapezoid if it is inside.
    fn close(&mut self, l: Option<u32>, r: Option<u32>, y: i32) -> Option<()> {
        let Some(l) = l else { return Some(()) };
        if self.inside(self.wind[l as usize]) {
            let r = r?;
            let y0 = self.gap_y[l as usize];
            if y0 < y {
                self.traps.push((l, r, y0, y));
            }
        }
        Some(())
    }

    /// `l` and `r` became adjacent at `y`: check they do not meet (Shamos–Hoey) and open
    /// their gap. Right of the rightmost edge the winding must be 0.
    fn open(&mut self, l: Option<u32>, r: Option<u32>, y: i32) -> Option<()> {
        match (l, r) {
            (Some(l), Some(r)) => {
                if edges_meet(&self.edges[l as usize], &self.edges[r as usize]) {
                    return None;
                }
                self.gap_y[l as usize] = y;
            }
            (Some(l), None) => {
                if self.wind[l as usize] != 0 {
                    return None;
                }
                self.gap_y[l as usize] = y;
            }
            _ => {}
        }
        Some(())
    }

    fn insert(&mut self, id: u32) -> Option<()> {
        self.set.insert(self.key(id)).then_some(())
    }

    fn remove(&mut self, id: u32) -> Option<()> {
        self.set.remove(&self.key(id)).then_some(())
    }

    /// The event at a vertex at `y` between edge `e_in` (into it) and `e_out` (out of it);
    /// `in_ends` / `out_ends`: whether that edge's upper end is this vertex.
    fn event(&mut self, y: i32, e_in: u32, e_out: u32, in_ends: bool, out_ends: bool) -> Option<()> {
        let (ki, ko) = (self.key(e_in), self.key(e_out));
        match (in_ends, out_ends) {
            // Both edges end here: they must be adjacent.
            (true, true) => {
                let (a, b) = if ki < ko { (ki, ko) } else { (ko, ki) };
                if self.right(&a) != Some(b.id) {
                    return None;
                }
                let (l, r) = (self.left(&a), self.right(&b));
                self.close(l, Some(a.id), y)?;
                self.close(Some(a.id), Some(b.id), y)?;
                self.close(Some(b.id), r, y)?;
                self.remove(a.id)?;
                self.remove(b.id)?;
                self.open(l, r, y)
            }
            // Both start here, inside one gap.
            (false, false) => {
                let (a, b) = if ki < ko { (ki, ko) } else { (ko, ki) };
                let l = self.left(&a);
                let r = self.right(&a);
                if let Some(r) = r {
                    if b >= self.key(r) {
                        return None;
                    }
                }
                self.close(l, r, y)?;
                self.wind[a.id as usize] = self.wind_of(l) + a.e.dir as i64;
                self.wind[b.id as usize] = self.wind[a.id as usize] + b.e.dir as i64;
                // l < a < b < r with l, r adjacent: a, b land between them.
                self.insert(a.id)?;
                self.insert(b.id)?;
                self.open(l, Some(a.id), y)?;
                self.open(Some(a.id), Some(b.id), y)?;
                self.open(Some(b.id), r, y)
            }
            // One ends, the next continues in its place.
            _ => {
                let (end, start) = if in_ends { (ki, ko) } else { (ko, ki) };
                let (l, r) = (self.left(&end), self.right(&end));
                // l < start < r: start lands where end was.
                if l.is_some_and(|l| self.key(l) >= start) || r.is_some_and(|r| self.key(r) <= start) {
                    return None;
                }
                self.close(l, Some(end.id), y)?;
                self.close(Some(end.id), r, y)?;
                self.remove(end.id)?;
                let w = self.wind_of(l) + start.e.dir as i64;
                if w != self.wind[end.id as usize] {
                    return None;
                }
                self.wind[start.id as usize] = w;
                self.insert(start.id)?;
                self.open(l, Some(start.id), y)?;
                self.open(Some(start.id), r, y)
            }
        }
    }
}

/// Fill closed polygons whose edges do not meet (except consecutive edges at their shared
/// vertex) by a trapezoid sweep in O(n log n); None when that does not apply (edges that cross,
/// touch or overlap, two vertices at one point, non-finite coordinates, no extent), for the
/// caller to fall back to lyon.
///
/// The points are moved to an integer grid of 2^30 steps over their extent (≈ 10⁻⁶ px for a
/// 1000 px drawing), so every predicate is exact. Sweep by y (then x) over the vertices; the
/// active edges sit left to right in a `BTreeSet` ([`Active`]), each with the winding number
/// right of it (its left neighbour's plus its direction, fixed when it is inserted). Each gap
/// between adjacent edges whose winding is inside under `rule` is a trapezoid from the y at
/// which they became adjacent to the y at which they stop being adjacent; it is emitted then, as
/// one or two counter-clockwise triangles (y up). An event changes O(1) adjacencies, so the
/// output is O(n) triangles; each pair of edges that become adjacent is tested for a meeting
/// (Shamos–Hoey: if any two edges meet, some adjacent pair does before the sweep passes the
/// lowest such point), and the sweep gives up on the first.
fn sweep_fill(polys: &[Poly], rule: FillRule) -> Option<SweepFill> {
    let (mut lo, mut hi) = ([f64::INFINITY; 2], [f64::NEG_INFINITY; 2]);
    for p in polys.iter().flatten() {
        for (i, v) in [p.x as f64, p.y as f64].into_iter().enumerate() {
            if !v.is_finite() {
                return None;
            }
            lo[i] = lo[i].min(v);
            hi[i] = hi[i].max(v);
        }
    }
    let ext = (hi[0] - lo[0]).max(hi[1] - lo[1]);
    if !(ext.is_finite() && ext > 0.0) {
        return None;
    }
    // A power of two: ext × s ≤ 2^30 (up to the rounding of log2).
    let s = 2f64.powi(30 - ext.log2().ceil() as i32);
    if !(s.is_finite() && s > 0.0) {
        return None;
    }
    let grid = |p: &Point| -> Q {
        [
            ((p.x as f64 - lo[0]) * s).round() as i32,
            ((p.y as f64 - lo[1]) * s).round() as i32,
        ]
    };
    // Vertices ring by ring, without repeats; a ring of fewer than 3 has no area.
    let mut verts: Vec<Q> = Vec::new();
    let mut rings: Vec<(usize, usize)> = Vec::new();
    for p in polys {
        let start = verts.len();
        for q in p.iter().map(grid) {
            if verts.len() == start || verts[verts.len() - 1] != q {
                verts.push(q);
            }
        }
        while verts.len() > start + 1 && verts[verts.len() - 1] == verts[start] {
            verts.pop();
        }
        if verts.len() - start < 3 {
            verts.truncate(start);
        } else {
            rings.push((start, verts.len() - start));
        }
    }
    if verts.is_empty() || verts.len() >= u32::MAX as usize {
        return None;
    }
    // Per vertex: the one before and after it on its ring. Edge k runs from vertex k to next[k].
    let mut prev = vec![0u32; verts.len()];
    let mut next = vec![0u32; verts.len()];
    for &(start, len) in &rings {
        for i in 0..len {
            let (k, n) = (start + i, start + (i + 1) % len);
            next[k] = n as u32;
            prev[n] = k as u32;
        }
    }
    let edges: Vec<Edge> = (0..verts.len())
        .map(|k| {
            let (a, b) = (verts[k], verts[next[k] as usize]);
            if sweep_key(a) < sweep_key(b) {
                Edge { lo: a, hi: b, dir: 1 }
            } else {
                Edge { lo: b, hi: a, dir: -1 }
            }
        })
        .collect();
    let mut order: Vec<u32> = (0..verts.len() as u32).collect();
    order.sort_unstable_by_key(|&k| sweep_key(verts[k as usize]));
    if order.windows(2).any(|w| verts[w[0] as usize] == verts[w[1] as usize]) {
        return None;
    }
    let ctx = SweepCtx::default();
    let mut sw = Sweeper {
        wind: vec![0; edges.len()],
        gap_y: vec![0; edges.len()],
        edges,
        set: BTreeSet::new(),
        ctx: &ctx,
        rule,
        traps: Vec::new(),
    };
    for &k in &order {
        let v = verts[k as usize];
        let p = prev[k as usize];
        let (u, w) = (verts[p as usize], verts[next[k as usize] as usize]);
        let in_ends = sweep_key(u) < sweep_key(v);
        let out_ends = sweep_key(w) < sweep_key(v);
        sw.event(v[1], p, k, in_ends, out_ends)?;
        if ctx.touching.get() {
            return None;
        }
    }
    if !sw.set.is_empty() {
        return None;
    }
    let map = |x: f64, y: i32| [lo[0] + x / s, lo[1] + y as f64 / s];
    let mut tris = Vec::with_capacity(2 * sw.traps.len());
    for &(l, r, y0, y1) in &sw.traps {
        let (el, er) = (&sw.edges[l as usize], &sw.edges[r as usize]);
        let (xl0, xr0, xl1, xr1) = (el.x_at(y0), er.x_at(y0), el.x_at(y1), er.x_at(y1));
        let (bl, br, tr, tl) = (map(xl0, y0), map(xr0, y0), map(xr1, y1), map(xl1, y1));
        match (xr0 > xl0, xr1 > xl1) {
            (true, true) => {
                tris.push([bl, br, tr]);
                tris.push([bl, tr, tl]);
            }
            (true, false) => tris.push([bl, br, tl]),
            (false, true) => tris.push([bl, tr, tl]),
            (false, false) => {}
        }
    }
    Some(SweepFill {
        tris,
        comparisons: ctx.comparisons.get(),
        trapezoids: sw.traps.len(),
    })
}

/// Fill `lp` with `rule`.
///
/// lyon's sweep (top to bottom) keeps its active edges in a list it scans at every event, so
/// it costs about segments × edges crossed by a horizontal line: quadratic for a long noisy
/// path whose horizontal lines cross a share of all its edges (a noisy signal filled, a circle
/// with radial noise near its top and bottom). A fill of more than [`SPLIT_ABOVE`] segments
/// whose horizontal lines cross on average more than [`ACTIVE_TARGET`] edges is therefore
/// flattened (the tessellator's own tolerance) and, if no two of its edges meet, filled by the
/// trapezoid sweep ([`sweep_fill`], O(n log n) whatever the shape: a noisy circle).
///
/// Otherwise (crossing, touching or overlapping edges: a noisy signal, whose closing edge
/// crosses the noise) it is cut into vertical strips at quantiles of the segments' x, so that
/// each strip's lines cross about that many; each strip is tessellated alone ([`slabs_x`]:
/// exact for both fill rules). Triangles then come strip by strip, left to right. Linear when
/// the edges are short in x compared with the strips (a noisy signal); edges that are long in x
/// but crowded (tilted spikes) still cost more.
pub fn fill(lp: &LyonPath, rule: FillRule) -> Result<Filled, lyon::tessellation::TessellationError> {
    fill_split(lp, rule, Split::Auto)
}

/// How [`fill_split`] cuts a fill.
#[derive(Clone, Copy, PartialEq)]
enum Split {
    /// As [`fill`] does.
    Auto,
    /// The trapezoid sweep whatever the size, else as [`fill`] does.
    #[cfg(test)]
    Sweep,
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
                &mut Budgeted::new(BuffersBuilder::new(&mut buf, |v: FillVertex| v.position())),
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
    // Where lyon's sweep would be slow.
    let big = segments > SPLIT_ABOVE && active > ACTIVE_TARGET;
    let auto = match mode {
        Split::Auto => true,
        #[cfg(test)]
        Split::Sweep => true,
        #[cfg(test)]
        Split::Never | Split::Strips(_) => false,
    };
    let try_sweep = match mode {
        #[cfg(test)]
        Split::Sweep => true,
        _ => auto && big,
    };
    if try_sweep {
        if let Some(s) = sweep_fill(&polys, rule) {
            return Ok(Filled {
                tris: s.tris,
                pieces: Vec::new(),
                method: Method::Sweep {
                    comparisons: s.comparisons,
                    trapezoids: s.trapezoids,
                },
            });
        }
    }
    let whole = match mode {
        #[cfg(test)]
        Split::Never => true,
        #[cfg(test)]
        Split::Strips(_) => false,
        _ => !big,
    };
    if whole {
        return Ok(Filled {
            tris: tessellate(lp)?,
            pieces: vec![(segments, active)],
            method: Method::Lyon,
        });
    }
    let mut out = Filled {
        tris: Vec::new(),
        pieces: Vec::new(),
        method: Method::Lyon,
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
        if auto && n > 256 && a > ACTIVE_TARGET {
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

/// What [`walk`] carries down the tree: the mapping, the file, the import options and the
/// triangles made so far (at most [`max_triangles`]).
struct Walk<'a> {
    fit: &'a Fit,
    file: &'a str,
    imp: &'a ImportArgs,
    made: u64,
    /// Paths tessellated so far, and the progress bar over them.
    paths: u64,
    progress: crate::progress::Progress,
}

/// Paths under `g` (what [`walk`] tessellates), for the progress bar.
fn count_paths(g: &usvg::Group) -> u64 {
    g.children()
        .iter()
        .map(|n| match n {
            usvg::Node::Group(c) => count_paths(c),
            usvg::Node::Path(_) => 1,
            _ => 0,
        })
        .sum()
}

impl Walk<'_> {
    /// A tessellation error of path `at`: the triangle budget's refusal if [`Budgeted`] stopped
    /// it, else `what` failed with `e`.
    fn tess_error(&self, at: &str, what: &str, e: impl std::fmt::Debug) -> CliError {
        if OVER_BUDGET.with(|o| o.replace(false)) {
            let n = max_triangles(self.imp) + 1;
            return check_triangles(self.file, at, n, false, self.imp).expect_err("past the budget");
        }
        CliError::at(self.file, at, format!("{what} tessellation failed: {e:?}"))
    }

    /// Count a layer's triangles; refuse them past the budget; spend the budget.
    fn add(&mut self, at: &str, tris: usize) -> Res<()> {
        self.made += tris as u64;
        check_triangles(self.file, at, self.made, false, self.imp)?;
        let left = max_triangles(self.imp) - self.made;
        TRIANGLES_LEFT.with(|t| t.set(left));
        Ok(())
    }
}

fn walk(g: &usvg::Group, opacity: f32, w: &mut Walk, out: &mut Vec<Layer>) -> Res<()> {
    let opacity = opacity * g.opacity().get();
    let fit = w.fit;
    for node in g.children() {
        match node {
            usvg::Node::Group(c) => walk(c, opacity, w, out)?,
            usvg::Node::Path(p) if p.is_visible() => {
                let at = format!("path `{}`", p.id());
                let lp = to_lyon(p, fit);
                let fill_first = matches!(p.paint_order(), usvg::PaintOrder::FillAndStroke);
                let mut pending: Vec<Layer> = Vec::new();
                if let Some(f) = p.fill() {
                    let rule = match f.rule() {
                        usvg::FillRule::NonZero => FillRule::NonZero,
                        usvg::FillRule::EvenOdd => FillRule::EvenOdd,
                    };
                    let filled = fill(&lp, rule).map_err(|e| w.tess_error(&at, "fill", e))?;
                    w.add(&at, filled.tris.len())?;
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
                            &mut Budgeted::new(BuffersBuilder::new(&mut buf, |v: StrokeVertex| v.position())),
                        )
                        .map_err(|e| w.tess_error(&at, "stroke", e))?;
                    w.add(&at, buf.indices.len() / 3)?;
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
                w.paths += 1;
                w.progress.set(w.paths);
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

/// Deepest element nesting usvg accepts (`usvg/src/parser/svgtree/parse.rs`: `depth > 1024`
/// is its `NodesLimitReached`, which roxmltree places at line 1 column 1).
pub const MAX_SVG_DEPTH: usize = 1024;

/// usvg's `NodesLimitReached` as one line: where the first element nested deeper than
/// [`MAX_SVG_DEPTH`] starts, and which element it is.
fn nesting_error(file: &str, text: &str) -> CliError {
    let opt = usvg::roxmltree::ParsingOptions {
        allow_dtd: true,
        ..Default::default()
    };
    let limit = format!("elements nest more than {MAX_SVG_DEPTH} deep, the most the SVG parser (usvg) takes");
    let Ok(doc) = usvg::roxmltree::Document::parse_with_options(text, opt) else {
        return CliError::at(file, "svg", limit);
    };
    // Depth in elements below the root <svg>: the elements still open (a stack of where they
    // end) as the elements come in document order.
    let mut open: Vec<usize> = Vec::new();
    let mut deepest: Option<(usize, usvg::roxmltree::Node)> = None;
    for n in doc.root_element().descendants().filter(|n| n.is_element()) {
        let r = n.range();
        while open.last().is_some_and(|&end| end <= r.start) {
            open.pop();
        }
        let depth = open.len();
        if deepest.is_none_or(|(d, _)| depth > d) {
            deepest = Some((depth, n));
        }
        if depth > MAX_SVG_DEPTH {
            break;
        }
        open.push(r.end);
    }
    match deepest {
        Some((d, n)) => {
            let pos = doc.text_pos_at(n.range().start);
            CliError::at(
                file,
                format!("line {} column {}", pos.row, pos.col),
                format!("{limit}; this <{}> is at depth {d}", n.tag_name().name()),
            )
        }
        None => CliError::at(file, "svg", limit),
    }
}

/// A usvg error as one line; XML errors carry their line and column.
fn svg_error(file: &str, text: &str, e: usvg::Error) -> CliError {
    match e {
        usvg::Error::ParsingFailed(usvg::roxmltree::Error::NodesLimitReached) => nesting_error(file, text),
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
    let mut walker = Walk {
        fit: &fit,
        file,
        imp,
        made: 0,
        paths: 0,
        progress: crate::progress::Progress::new(
            count_paths(tree.root()),
            "paths",
            format!("import {file}"),
            imp.quiet,
        ),
    };
    TRIANGLES_LEFT.with(|t| t.set(max_triangles(imp)));
    OVER_BUDGET.with(|o| o.set(false));
    let walked = walk(tree.root(), 1.0, &mut walker, &mut layers);
    TRIANGLES_LEFT.with(|t| t.set(u64::MAX));
    walker.progress.finish();
    walked?;
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

    /// A self-crossing star (every edge crosses most others) tessellates into far more
    /// triangles than it has edges; past the budget, lyon is stopped at the next vertex and
    /// the import refused on one line, before the triangles are kept.
    #[test]
    fn a_tessellation_past_the_triangle_budget_is_refused() {
        let n = 61;
        let pts: Vec<String> = (0..n)
            .map(|i| {
                let a = std::f64::consts::TAU * (i * 30 % n) as f64 / n as f64;
                format!("{:.3},{:.3}", 50.0 + 40.0 * a.cos(), 50.0 + 40.0 * a.sin())
            })
            .collect();
        let svg = format!(
            r#"<svg xmlns="http://www.w3.org/2000/svg" width="100" height="100"><polygon id="star" points="{}"/></svg>"#,
            pts.join(" ")
        );
        let cfg = Config::preset("default").unwrap();
        let imp = |bytes: Option<u64>| ImportArgs {
            max_scene_bytes: bytes,
            ..Default::default()
        };
        let all = svg_to_scene(svg.as_bytes(), "s.svg", &cfg, &imp(None), &usvg::Options::default())
            .unwrap()
            .primitives
            .len();
        assert!(all > 1000, "{all} triangles");
        let limit = crate::scene_io::MIN_TRIANGLE_BYTES * 500;
        let e = svg_to_scene(
            svg.as_bytes(),
            "s.svg",
            &cfg,
            &imp(Some(limit)),
            &usvg::Options::default(),
        )
        .unwrap_err()
        .0;
        assert_eq!(
            e,
            "s.svg: path `star`: the scene would be at least 42.6 KiB of JSON (at least 501 primitives), more than the 42.5 KiB limit every command reads back (no flag raises it); simplify or split the input"
        );
        // The budget is reset: the next import is not limited.
        assert_eq!(
            svg_to_scene(svg.as_bytes(), "s.svg", &cfg, &imp(None), &usvg::Options::default())
                .unwrap()
                .primitives
                .len(),
            all
        );
    }

    #[test]
    fn too_deep_nesting_names_the_element_and_the_limit() {
        let n = MAX_SVG_DEPTH + 5;
        let svg = format!(
            "<svg xmlns=\"http://www.w3.org/2000/svg\" width=\"10\" height=\"10\">\n{}<rect width=\"5\" height=\"5\"/>{}</svg>",
            "<g>".repeat(n),
            "</g>".repeat(n)
        );
        let e = scene(&svg).unwrap_err().0;
        assert!(e.starts_with("t.svg: line 2 column "), "{e}");
        assert!(
            e.contains("more than 1024 deep") && e.contains("this <g> is at depth 1025"),
            "{e}"
        );
        assert!(!e.contains("line 1 column 1"), "{e}");
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
        let mut r = tilerast_verif::Rng::new(seed);
        let mut next = move || r.unit() as f32;
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

    /// A closed polygon's points.
    type Ring = Vec<(f32, f32)>;

    /// A path of closed polygons.
    fn rings(rs: &[Ring]) -> LyonPath {
        let mut b = LyonPath::builder();
        for pts in rs {
            b.begin(point(pts[0].0, pts[0].1));
            for &(x, y) in &pts[1..] {
                b.line_to(point(x, y));
            }
            b.end(true);
        }
        b.build()
    }

    /// A circle of `n` segments around `c` with random radial noise: radius `r` ± `noise` (a
    /// star-shaped polygon; the bench's `circle` is r 400, noise 30).
    fn noisy_circle(n: usize, seed: u64, c: (f32, f32), r: f32, noise: f32) -> Vec<(f32, f32)> {
        let mut s = tilerast_verif::Rng::new(seed);
        (0..n)
            .map(|i| {
                let u = s.unit();
                let a = std::f64::consts::TAU * i as f64 / n as f64;
                let rad = r as f64 + noise as f64 * (2.0 * u - 1.0);
                ((c.0 as f64 + rad * a.cos()) as f32, (c.1 as f64 + rad * a.sin()) as f32)
            })
            .collect()
    }

    /// Sample points over the bounding box of `rs` (and a margin), at irrational-ish offsets so
    /// that none lies on an edge.
    fn samples(rs: &[Vec<(f32, f32)>], k: usize) -> Vec<(f64, f64)> {
        let (mut x0, mut y0, mut x1, mut y1) = (f64::MAX, f64::MAX, f64::MIN, f64::MIN);
        for &(x, y) in rs.iter().flatten() {
            (x0, y0, x1, y1) = (x0.min(x as f64), y0.min(y as f64), x1.max(x as f64), y1.max(y as f64));
        }
        let (dx, dy) = ((x1 - x0 + 20.0) / k as f64, (y1 - y0 + 20.0) / k as f64);
        (0..k * k)
            .map(|i| {
                (
                    x0 - 10.0 + (i % k) as f64 * dx + 0.414_213_562 * dx,
                    y0 - 10.0 + (i / k) as f64 * dy + 0.732_050_808 * dy,
                )
            })
            .collect()
    }

    /// The trapezoid sweep (forced whatever the size) against lyon's whole fill at the sample
    /// points: the sweep is taken (or not, per `sweep`), each point is covered at most once, and
    /// by the sweep iff by lyon. Returns the sweep's fill and the samples lyon covers.
    fn same_cover(name: &str, rs: &[Vec<(f32, f32)>], rule: FillRule, sweep: bool) -> (Filled, usize) {
        let lp = rings(rs);
        let lyon = fill_split(&lp, rule, Split::Never).unwrap();
        let f = fill_split(&lp, rule, Split::Sweep).unwrap();
        assert_eq!(
            matches!(f.method, Method::Sweep { .. }),
            sweep,
            "{name} {rule:?}: {:?}",
            f.method
        );
        let (mut differ, mut inside) = (0, 0);
        for (x, y) in samples(rs, 100) {
            let (l, s) = (covers(&lyon.tris, x, y), covers(&f.tris, x, y));
            assert!(l <= 1 && s <= 1, "{name} {rule:?}: ({x}, {y}) covered {l} / {s} times");
            differ += (l != s) as usize;
            inside += l;
        }
        assert_eq!(differ, 0, "{name} {rule:?}: {differ} of {inside} samples differ");
        (f, inside)
    }

    fn swap_xy(p: &[(f32, f32)]) -> Vec<(f32, f32)> {
        p.iter().map(|&(x, y)| (y, x)).collect()
    }

    fn reversed(p: &[(f32, f32)]) -> Vec<(f32, f32)> {
        p.iter().rev().copied().collect()
    }

    /// A comb of 10 teeth up from a bar along y = 0 (flat-topped, or pointed).
    fn comb(pointed: bool) -> Vec<(f32, f32)> {
        let mut p = vec![(0.0, 0.0), (580.0, 0.0)];
        for t in (0..10).rev() {
            let x = 60.0 * t as f32;
            if pointed {
                p.extend([(x + 40.0, 60.0), (x + 20.0, 300.0 - 7.0 * t as f32)]);
            } else {
                p.extend([(x + 40.0, 300.0), (x, 300.0)]);
            }
            if t > 0 {
                p.extend([(x, 60.0), (x - 20.0, 60.0)]);
            } else if pointed {
                p.push((x, 60.0));
            }
        }
        p
    }

    /// On polygons without crossings the trapezoid sweep covers exactly what lyon covers, for
    /// both fill rules: noisy circles, holes, disjoint polygons, horizontal edges and repeated
    /// coordinates, concave combs.
    #[test]
    fn the_sweep_covers_what_lyon_covers() {
        let square = |x0: f32, y0: f32, x1: f32, y1: f32| vec![(x0, y0), (x1, y0), (x1, y1), (x0, y1)];
        let mut cases: Vec<(String, Vec<Ring>)> = Vec::new();
        for (n, seed, r) in [(40, 1, 100.0), (500, 2, 300.0), (5000, 3, 400.0)] {
            let c = noisy_circle(n, seed, (500.0, 500.0), r, 30.0);
            cases.push((format!("circle {n}"), vec![reversed(&c)]));
            cases.push((format!("circle {n} cw"), vec![c]));
        }
        cases.push((
            "disjoint".into(),
            vec![
                vec![(50.0, 50.0), (250.0, 80.0), (120.0, 300.0)],
                vec![
                    (400.0, 120.0),
                    (520.0, 200.0),
                    (480.0, 330.0),
                    (350.0, 310.0),
                    (330.0, 180.0),
                ],
            ],
        ));
        let stairs = vec![
            (0.0, 0.0),
            (400.0, 0.0),
            (400.0, 100.0),
            (300.0, 100.0),
            (300.0, 200.0),
            (200.0, 200.0),
            (200.0, 300.0),
            (100.0, 300.0),
            (100.0, 400.0),
            (0.0, 400.0),
        ];
        let cross = vec![
            (100.0, 0.0),
            (200.0, 0.0),
            (200.0, 100.0),
            (300.0, 100.0),
            (300.0, 200.0),
            (200.0, 200.0),
            (200.0, 300.0),
            (100.0, 300.0),
            (100.0, 200.0),
            (0.0, 200.0),
            (0.0, 100.0),
            (100.0, 100.0),
        ];
        for (name, p) in [
            ("stairs", stairs),
            ("cross", cross),
            ("comb", comb(false)),
            ("pointed comb", comb(true)),
        ] {
            cases.push((format!("{name} sideways"), vec![swap_xy(&p)]));
            cases.push((format!("{name} reversed"), vec![reversed(&p)]));
            cases.push((name.into(), vec![p]));
        }
        for (name, rs) in &cases {
            for rule in [FillRule::NonZero, FillRule::EvenOdd] {
                let (f, inside) = same_cover(name, rs, rule, true);
                assert!(inside > 1000, "{name} {rule:?}: {inside} samples inside");
                assert!(f.tris.len() >= 2, "{name}");
            }
        }
        // A square with a square hole: the hole is filled only with nonzero and both rings the
        // same way round.
        let outer = square(100.0, 100.0, 500.0, 500.0);
        for same_way in [true, false] {
            let hole = square(200.0, 210.0, 400.0, 390.0);
            let hole = if same_way { hole } else { reversed(&hole) };
            for flip in [false, true] {
                let (outer, hole) = if flip {
                    (reversed(&outer), reversed(&hole))
                } else {
                    (outer.clone(), hole.clone())
                };
                for rule in [FillRule::NonZero, FillRule::EvenOdd] {
                    let name = format!("hole same way {same_way}");
                    let (f, _) = same_cover(&name, &[outer.clone(), hole.clone()], rule, true);
                    let filled = same_way && rule == FillRule::NonZero;
                    assert_eq!(covers(&f.tris, 300.37, 300.41), filled as usize, "{name} {rule:?}");
                    assert_eq!(covers(&f.tris, 150.37, 300.41), 1, "{name} {rule:?}");
                    assert_eq!(covers(&f.tris, 550.37, 300.41), 0, "{name} {rule:?}");
                }
            }
        }
    }

    /// Random small polygons on a coarse grid (many repeated coordinates, collinear and
    /// horizontal edges, touching and crossing edges): whenever the sweep takes them it covers
    /// what lyon covers; whenever it does not, the fill is lyon's.
    #[test]
    fn the_sweep_agrees_with_lyon_on_random_grid_polygons() {
        let mut r = tilerast_verif::Rng::new(99);
        let mut next = move |k: u64| r.below(k);
        let (mut swept, mut fell_back) = (0, 0);
        for i in 0..400 {
            let nrings = 1 + next(2) as usize;
            let rs: Vec<Vec<(f32, f32)>> = (0..nrings)
                .map(|_| {
                    let n = 3 + next(6) as usize;
                    if i % 2 == 0 {
                        // Star-shaped around the middle: often simple.
                        let mut v: Vec<(f32, f32, f64)> = (0..n)
                            .map(|_| {
                                let (x, y) = (next(9) as f32 * 50.0, next(9) as f32 * 50.0);
                                (x, y, ((y - 201.0) as f64).atan2((x - 199.0) as f64))
                            })
                            .collect();
                        v.sort_by(|a, b| a.2.total_cmp(&b.2));
                        v.into_iter().map(|(x, y, _)| (x, y)).collect()
                    } else {
                        (0..n).map(|_| (next(9) as f32 * 50.0, next(9) as f32 * 50.0)).collect()
                    }
                })
                .collect();
            for rule in [FillRule::NonZero, FillRule::EvenOdd] {
                let lp = rings(&rs);
                let f = fill_split(&lp, rule, Split::Sweep).unwrap();
                if matches!(f.method, Method::Sweep { .. }) {
                    swept += 1;
                    same_cover(&format!("random {i} {rs:?}"), &rs, rule, true);
                } else {
                    fell_back += 1;
                    let lyon = fill_split(&lp, rule, Split::Never).unwrap();
                    assert_eq!(f.tris, lyon.tris, "random {i}");
                }
            }
        }
        assert!(swept > 150 && fell_back > 150, "{swept} swept, {fell_back} fell back");
    }

    /// Paths whose edges cross, touch or overlap fall back to lyon (the same triangles).
    #[test]
    fn crossing_paths_fall_back_to_lyon() {
        let tri = |a: (f32, f32), b: (f32, f32), c: (f32, f32)| vec![a, b, c];
        let cases: Vec<(&str, Vec<Ring>)> = vec![
            (
                "bow-tie",
                vec![vec![(100.0, 100.0), (500.0, 400.0), (500.0, 100.0), (100.0, 400.0)]],
            ),
            (
                "overlapping squares",
                vec![
                    vec![(0.0, 0.0), (200.0, 0.0), (200.0, 200.0), (0.0, 200.0)],
                    vec![(100.0, 100.0), (300.0, 100.0), (300.0, 300.0), (100.0, 300.0)],
                ],
            ),
            (
                "vertex on an edge",
                vec![
                    tri((0.0, 0.0), (200.0, 0.0), (100.0, 200.0)),
                    tri((150.0, 100.0), (300.0, 50.0), (300.0, 150.0)),
                ],
            ),
            (
                "shared vertex",
                vec![
                    tri((0.0, 0.0), (200.0, 0.0), (100.0, 200.0)),
                    tri((100.0, 200.0), (300.0, 300.0), (0.0, 300.0)),
                ],
            ),
            (
                "shared edge",
                vec![
                    vec![(0.0, 0.0), (100.0, 0.0), (100.0, 100.0), (0.0, 100.0)],
                    vec![(100.0, 0.0), (200.0, 0.0), (200.0, 100.0), (100.0, 100.0)],
                ],
            ),
            (
                "folded spike",
                vec![vec![(0.0, 0.0), (200.0, 0.0), (100.0, 0.0), (100.0, 200.0)]],
            ),
            (
                "horizontal spike",
                vec![vec![
                    (0.0, 0.0),
                    (200.0, 0.0),
                    (200.0, 100.0),
                    (300.0, 100.0),
                    (100.0, 100.0),
                    (0.0, 100.0),
                ]],
            ),
        ];
        for (name, rs) in cases {
            let lp = rings(&rs);
            for rule in [FillRule::NonZero, FillRule::EvenOdd] {
                let f = fill_split(&lp, rule, Split::Sweep).unwrap();
                assert_eq!(f.method, Method::Lyon, "{name} {rule:?}");
                assert_eq!(f.tris, fill_split(&lp, rule, Split::Never).unwrap().tris, "{name}");
            }
        }
        // The noisy signal (its closing edge crosses the noise): lyon in strips, as `fill`.
        let lp = polygon(&signal(3000, 1));
        let f = fill_split(&lp, FillRule::NonZero, Split::Sweep).unwrap();
        assert_eq!(f.method, Method::Lyon);
        assert_eq!(f.pieces.len(), fill(&lp, FillRule::NonZero).unwrap().pieces.len());
        assert!(f.pieces.len() > 1);
        assert_eq!(f.tris, fill(&lp, FillRule::NonZero).unwrap().tris);
    }

    /// A noisy circle (the bench's) goes through the trapezoid sweep; its work (comparisons in
    /// the ordered set, trapezoids) for 2n segments is about twice that for n (n log n), where
    /// lyon's whole sweep (segments × edges crossed per horizontal line) grows four times.
    #[test]
    fn the_sweep_work_of_a_noisy_circle_grows_n_log_n() {
        let work = |n: usize| {
            let pts = noisy_circle(n, n as u64, (500.0, 500.0), 400.0, 30.0);
            let f = fill(&polygon(&pts), FillRule::NonZero).unwrap();
            let Method::Sweep {
                comparisons,
                trapezoids,
            } = f.method
            else {
                panic!("{n}: {:?}", f.method)
            };
            assert!(
                f.tris.len() >= n && f.tris.len() <= 4 * n,
                "{n}: {} triangles",
                f.tris.len()
            );
            let polys: Vec<Poly> = vec![pts.iter().map(|&(x, y)| point(x, y)).collect()];
            let (s, a) = piece_stats(&polys);
            (comparisons as f64, trapezoids as f64, s as f64 * (1.0 + a))
        };
        // n log n: × 2 (1 + 1 / log2 of the active edges) per doubling, about 2.25 here.
        let (c1, t1, lyon1) = work(40_000);
        let (c2, t2, lyon2) = work(80_000);
        assert!(lyon2 / lyon1 > 3.5, "lyon's work: {lyon1} → {lyon2}");
        assert!(c2 / c1 < 2.3, "comparisons: {c1} → {c2} (× {:.2})", c2 / c1);
        assert!(t2 / t1 < 2.1, "trapezoids: {t1} → {t2} (× {:.2})", t2 / t1);
        assert!(c1 < 100.0 * 40_000.0, "comparisons: {c1}");
    }
}
