//! Line plots for `tilerast explore --plot out.svg|out.png`: a grid of panels, one per
//! (group, figure), x = the swept x parameter's values (evenly spaced, labelled with the
//! values), at most [`MAX_SERIES`] line series per panel, and one legend per group.
//!
//! ```text
//!   title
//!   ┌ figure 1 (group 1) ┐┌ figure 2 (group 1) ┐┌ figure 3 (group 1) ┐ ┌ legend ──────┐
//!   │ ≤ 8 series         ││                    ││                    │ │ group 1      │
//!   └────────────────────┘└────────────────────┘└────────────────────┘ │ ▬ msaa=1 …   │
//!   ┌ figure 4 (group 1) ┐   (more than 3 figures wrap into further rows) └──────────────┘
//!   ┌ figure 1 (group 2) ┐ …                                            ┌ legend group 2
//! ```
//!
//! A group is one combination of the parameters that are not drawn as series (see
//! `explore::build_plot`); all panels of a group have the same series and share its legend
//! (right of the group's rows). Each figure has one y range across all groups, so panels of
//! the same figure compare directly. Series are dodged sideways around each x position
//! (at most ±0.25 of the spacing) so that coinciding lines stay visible side by side.
//!
//! In the SVG, each piece is its own element, so tools (and our tests) can read the plot back:
//! `<g class="title">`, `<g class="panel" data-figure="F" data-group="G">` and
//! `<g class="legend" data-group="G">`, each `transform="translate(x,y)"` around a nested
//! `<svg>` drawn by plotters. Series are the panel's coloured `<polyline>`s; a legend entry is
//! a coloured `<rect>` swatch followed by its `<text>` label, in series order.
//!
//! Text without system font libraries: plotters is built without its `ttf` feature. The SVG
//! backend writes `<text>` elements itself (the viewer picks the font). For PNG, [`Font8`]
//! wraps the bitmap backend and draws labels with the public-domain 8×8 bitmap font of the
//! `font8x8` crate (scaled by whole pixels), so PNG plots need no font files either.
//!
//! ```text
//!   Plot { figures, groups: [Group { series: [Series { points per figure }] }] }
//!        ├─► layout: pieces (title, panels, legends) with their rectangles
//!        ├─► per piece: SVGBackend string ─► <g …> wrapper ─────────► out.svg
//!        └─► per piece: sub-area of Font8(BitMapBackend RGB) ─► RGBA ─► out.png
//! ```

use crate::error::{CliError, Res};
use plotters::coord::Shift;
use plotters::prelude::*;
use plotters_backend::text_anchor::{HPos, Pos, VPos};
use plotters_backend::{BackendColor, BackendCoord, BackendStyle, BackendTextStyle, DrawingErrorKind};
use std::path::Path;

/// At most this many series in one panel (and legend); one colour each.
pub const MAX_SERIES: usize = 8;

/// One line, in every figure of its group.
#[derive(Clone, Debug)]
pub struct Series {
    /// Short, names the parameter values, e.g. `msaa=4 colours=2`.
    pub label: String,
    /// Per figure (index into `Plot::figures`): (index into `Plot::x_ticks`, value).
    pub points: Vec<Vec<(usize, f64)>>,
}

/// One row of panels (one per figure) with its legend.
#[derive(Clone, Debug)]
pub struct Group {
    /// The values shared by the group's series, e.g. `tile=32`; empty when there is one group.
    pub label: String,
    /// At most [`MAX_SERIES`].
    pub series: Vec<Series>,
}

/// A whole plot.
#[derive(Clone, Debug)]
pub struct Plot {
    pub title: String,
    pub x_label: String,
    /// Labels of the x positions 0, 1, 2, …
    pub x_ticks: Vec<String>,
    pub figures: Vec<String>,
    pub groups: Vec<Group>,
}

pub const COLOURS: [RGBColor; MAX_SERIES] = [
    RGBColor(31, 119, 180),
    RGBColor(255, 127, 14),
    RGBColor(44, 160, 44),
    RGBColor(214, 39, 40),
    RGBColor(148, 103, 189),
    RGBColor(140, 86, 75),
    RGBColor(227, 119, 194),
    RGBColor(23, 190, 207),
];

const PANEL_W: u32 = 480;
const PANEL_H: u32 = 280;
const TITLE_H: u32 = 40;
/// Figures per row of panels; more wrap into further rows of the same group.
const MAX_COLS: usize = 3;
/// Legend text: 16 px (plotters writes 12.9 px into the SVG); the PNG's bitmap font is 8 px
/// per character at that size, the SVG's sans-serif about 7.
const LEGEND_CHAR_W: u32 = 8;
const LEGEND_ROW_H: u32 = 22;

/// A part of the image.
#[derive(Clone, Copy, Debug, PartialEq)]
enum Piece {
    Title,
    /// (group, figure)
    Panel(usize, usize),
    Legend(usize),
}

/// Where everything goes.
struct Layout {
    size: (u32, u32),
    /// (piece, x, y, w, h)
    pieces: Vec<(Piece, u32, u32, u32, u32)>,
    /// y of the grey line above each group but the first.
    separators: Vec<u32>,
}

fn layout(p: &Plot) -> Layout {
    let nf = p.figures.len().max(1);
    let cols = nf.min(MAX_COLS);
    let rows = nf.div_ceil(cols) as u32;
    let chars = p
        .groups
        .iter()
        .flat_map(|g| {
            g.series
                .iter()
                .map(|s| s.label.chars().count())
                .chain([g.label.chars().count()])
        })
        .max()
        .unwrap_or(0) as u32;
    let has_legend = p.groups.iter().any(|g| g.series.iter().any(|s| !s.label.is_empty()));
    let legend_w = if has_legend { 56 + chars * LEGEND_CHAR_W } else { 0 };
    let ng = p.groups.len().max(1) as u32;
    let w = cols as u32 * PANEL_W + legend_w;
    let h = TITLE_H + ng * rows * PANEL_H;
    let mut pieces = vec![(Piece::Title, 0, 0, w, TITLE_H)];
    let mut separators = Vec::new();
    for g in 0..p.groups.len() {
        let y0 = TITLE_H + g as u32 * rows * PANEL_H;
        if g > 0 {
            separators.push(y0);
        }
        for f in 0..p.figures.len() {
            let (c, r) = ((f % cols) as u32, (f / cols) as u32);
            pieces.push((Piece::Panel(g, f), c * PANEL_W, y0 + r * PANEL_H, PANEL_W, PANEL_H));
        }
        if has_legend {
            pieces.push((Piece::Legend(g), cols as u32 * PANEL_W, y0, legend_w, rows * PANEL_H));
        }
    }
    Layout {
        size: (w, h),
        pieces,
        separators,
    }
}

/// Each figure's y range over all groups: from min(0, lowest) to the highest plus 8 %.
fn y_ranges(p: &Plot) -> Vec<(f64, f64)> {
    (0..p.figures.len())
        .map(|f| {
            let vals = p
                .groups
                .iter()
                .flat_map(|g| g.series.iter())
                .flat_map(|s| s.points.get(f).into_iter().flatten().map(|q| q.1))
                .filter(|v| v.is_finite());
            let (lo, hi) = vals.fold((f64::INFINITY, f64::NEG_INFINITY), |(a, b), v| (a.min(v), b.max(v)));
            let (lo, hi) = if lo.is_finite() { (lo.min(0.0), hi) } else { (0.0, 1.0) };
            let hi = if hi <= lo { lo + 1.0 } else { hi + (hi - lo) * 0.08 };
            (lo, hi)
        })
        .collect()
}

/// Sideways offset of series `i` of `k` around its x position.
fn dodge(i: usize, k: usize) -> f64 {
    let step = 0.5 / MAX_SERIES as f64;
    (i as f64 - (k.max(1) - 1) as f64 / 2.0) * step
}

fn draw_piece<DB: DrawingBackend>(
    area: &DrawingArea<DB, Shift>,
    piece: Piece,
    p: &Plot,
    yr: &[(f64, f64)],
) -> Result<(), String> {
    let e = |x: DrawingAreaErrorKind<DB::ErrorType>| x.to_string();
    match piece {
        Piece::Title => {
            let (w, _) = area.dim_in_pixel();
            let style = TextStyle::from(("sans-serif", 24).into_font()).pos(Pos::new(HPos::Center, VPos::Top));
            area.draw_text(&p.title, &style, (w as i32 / 2, 8)).map_err(e)?;
        }
        Piece::Legend(g) => {
            let group = &p.groups[g];
            let mut y = 16;
            let text = TextStyle::from(("sans-serif", 16).into_font()).pos(Pos::new(HPos::Left, VPos::Center));
            if !group.label.is_empty() {
                area.draw_text(&group.label, &text, (12, y)).map_err(e)?;
                y += LEGEND_ROW_H as i32;
            }
            for (i, s) in group.series.iter().enumerate() {
                let c = COLOURS[i % COLOURS.len()];
                area.draw(&Rectangle::new([(16, y - 2), (38, y + 2)], c.filled()))
                    .map_err(e)?;
                area.draw(&Circle::new((27, y), 3, c.filled())).map_err(e)?;
                area.draw_text(&s.label, &text, (46, y)).map_err(e)?;
                y += LEGEND_ROW_H as i32;
            }
        }
        Piece::Panel(g, f) => {
            let group = &p.groups[g];
            let n = p.x_ticks.len().max(1);
            let (lo, hi) = yr[f];
            let caption = if group.label.is_empty() {
                p.figures[f].clone()
            } else {
                format!("{} ({})", p.figures[f], group.label)
            };
            let mut chart = ChartBuilder::on(area)
                .caption(&caption, ("sans-serif", 16))
                .margin(10)
                .x_label_area_size(36)
                .y_label_area_size(64)
                .build_cartesian_2d(-0.5..(n as f64 - 0.5), lo..hi)
                .map_err(e)?;
            let ticks = p.x_ticks.clone();
            let fmt_x = move |v: &f64| {
                let i = v.round();
                if (v - i).abs() < 1e-6 && i >= 0.0 && (i as usize) < ticks.len() {
                    ticks[i as usize].clone()
                } else {
                    String::new()
                }
            };
            chart
                .configure_mesh()
                .x_labels(n * 2 + 1)
                .x_label_formatter(&fmt_x)
                .y_labels(6)
                .label_style(("sans-serif", 14))
                .axis_desc_style(("sans-serif", 15))
                .y_label_formatter(&|v| crate::render::fmt_num(*v))
                .x_desc(&p.x_label)
                .disable_x_mesh()
                .draw()
                .map_err(e)?;
            let k = group.series.len();
            for (i, s) in group.series.iter().enumerate() {
                let c = COLOURS[i % COLOURS.len()];
                let dx = dodge(i, k);
                let pts: Vec<(f64, f64)> = s
                    .points
                    .get(f)
                    .into_iter()
                    .flatten()
                    .map(|&(x, y)| (x as f64 + dx, y))
                    .collect();
                chart
                    .draw_series(LineSeries::new(pts.clone(), Color::stroke_width(&c, 2)))
                    .map_err(e)?;
                chart
                    .draw_series(pts.iter().map(|&q| Circle::new(q, 3, c.filled())))
                    .map_err(e)?;
            }
        }
    }
    Ok(())
}

fn xml_attr(s: &str) -> String {
    s.replace('&', "&amp;")
        .replace('"', "&quot;")
        .replace('<', "&lt;")
        .replace('>', "&gt;")
}

/// The largest PNG plot drawn, in either dimension (an SVG has no limit).
pub const MAX_PNG_SIDE: u32 = 16384;

/// Write `p` to `path` (`.svg` or `.png`).
pub fn write(path: &Path, p: &Plot) -> Res<()> {
    let ext = path.extension().and_then(|e| e.to_str()).map(str::to_ascii_lowercase);
    let fail = |m: String| CliError::at(path.display(), "plot", m);
    if let Some(g) = p.groups.iter().find(|g| g.series.len() > MAX_SERIES) {
        return Err(fail(format!(
            "internal: group `{}` has {} series (at most {MAX_SERIES})",
            g.label,
            g.series.len()
        )));
    }
    let lay = layout(p);
    let (w, h) = lay.size;
    let yr = y_ranges(p);
    match ext.as_deref() {
        Some("svg") => {
            let mut out = format!(
                "<svg width=\"{w}\" height=\"{h}\" viewBox=\"0 0 {w} {h}\" xmlns=\"http://www.w3.org/2000/svg\">\n\
                 <rect x=\"0\" y=\"0\" width=\"{w}\" height=\"{h}\" fill=\"#FFFFFF\" stroke=\"none\"/>\n"
            );
            for &(piece, x, y, pw, ph) in &lay.pieces {
                let mut s = String::new();
                {
                    let area = SVGBackend::with_string(&mut s, (pw, ph)).into_drawing_area();
                    draw_piece(&area, piece, p, &yr).map_err(fail)?;
                    area.present().map_err(|x| fail(x.to_string()))?;
                }
                let attrs = match piece {
                    Piece::Title => "class=\"title\"".to_string(),
                    Piece::Panel(g, f) => format!(
                        "class=\"panel\" data-figure=\"{}\" data-group=\"{}\"",
                        xml_attr(&p.figures[f]),
                        xml_attr(&p.groups[g].label)
                    ),
                    Piece::Legend(g) => format!("class=\"legend\" data-group=\"{}\"", xml_attr(&p.groups[g].label)),
                };
                out += &format!("<g {attrs} transform=\"translate({x},{y})\">\n{s}</g>\n");
            }
            for y in &lay.separators {
                out += &format!(
                    "<line class=\"separator\" x1=\"0\" y1=\"{y}\" x2=\"{w}\" y2=\"{y}\" stroke=\"#999999\" stroke-width=\"1\"/>\n"
                );
            }
            out += "</svg>\n";
            std::fs::write(path, out).map_err(|e| crate::error::io_err(path, "write", e))
        }
        Some("png") => {
            if w > MAX_PNG_SIDE || h > MAX_PNG_SIDE {
                return Err(fail(format!(
                    "the plot would be {w}x{h} pixels ({} panels), over the PNG limit of {MAX_PNG_SIDE}; \
                     write an .svg or sweep fewer values",
                    p.groups.len() * p.figures.len()
                )));
            }
            let mut rgb = vec![0u8; (w as usize) * (h as usize) * 3];
            {
                let root = Font8 {
                    inner: BitMapBackend::with_buffer(&mut rgb, (w, h)),
                }
                .into_drawing_area();
                root.fill(&WHITE).map_err(|x| fail(x.to_string()))?;
                for &(piece, x, y, pw, ph) in &lay.pieces {
                    let area = root.clone().shrink((x, y), (pw, ph));
                    draw_piece(&area, piece, p, &yr).map_err(fail)?;
                }
                for &y in &lay.separators {
                    let line = PathElement::new(vec![(0, y as i32), (w as i32, y as i32)], RGBColor(153, 153, 153));
                    root.draw(&line).map_err(|x| fail(x.to_string()))?;
                }
                root.present().map_err(|x| fail(x.to_string()))?;
            }
            let rgba: Vec<u8> = rgb.chunks_exact(3).flat_map(|c| [c[0], c[1], c[2], 255]).collect();
            crate::render::write_png(path, w, h, &rgba)
        }
        _ => Err(CliError::at(
            path.display(),
            "--plot",
            "the plot must be a .svg or .png file",
        )),
    }
}

/// Bitmap backend whose text comes from the built-in 8×8 bitmap font.
pub struct Font8<'a> {
    pub inner: BitMapBackend<'a>,
}

/// Whole-pixel magnification of the 8×8 font for a font size in pixels.
fn font_scale(size: f64) -> i32 {
    ((size / 11.0).round() as i32).max(1)
}

fn glyph(c: char) -> [u8; 8] {
    let i = c as usize;
    if i < 128 {
        font8x8::legacy::BASIC_LEGACY[i]
    } else {
        font8x8::legacy::BASIC_LEGACY[b'?' as usize]
    }
}

type Err8<'a> = DrawingErrorKind<<BitMapBackend<'a> as DrawingBackend>::ErrorType>;

impl<'a> DrawingBackend for Font8<'a> {
    type ErrorType = <BitMapBackend<'a> as DrawingBackend>::ErrorType;

    fn get_size(&self) -> (u32, u32) {
        self.inner.get_size()
    }
    fn ensure_prepared(&mut self) -> Result<(), Err8<'a>> {
        self.inner.ensure_prepared()
    }
    fn present(&mut self) -> Result<(), Err8<'a>> {
        self.inner.present()
    }
    fn draw_pixel(&mut self, p: BackendCoord, c: BackendColor) -> Result<(), Err8<'a>> {
        self.inner.draw_pixel(p, c)
    }
    fn draw_line<S: BackendStyle>(&mut self, a: BackendCoord, b: BackendCoord, s: &S) -> Result<(), Err8<'a>> {
        self.inner.draw_line(a, b, s)
    }
    fn draw_rect<S: BackendStyle>(
        &mut self,
        a: BackendCoord,
        b: BackendCoord,
        s: &S,
        fill: bool,
    ) -> Result<(), Err8<'a>> {
        self.inner.draw_rect(a, b, s, fill)
    }
    fn draw_path<S: BackendStyle, I: IntoIterator<Item = BackendCoord>>(
        &mut self,
        path: I,
        s: &S,
    ) -> Result<(), Err8<'a>> {
        self.inner.draw_path(path, s)
    }
    fn draw_circle<S: BackendStyle>(&mut self, c: BackendCoord, r: u32, s: &S, fill: bool) -> Result<(), Err8<'a>> {
        self.inner.draw_circle(c, r, s, fill)
    }
    fn fill_polygon<S: BackendStyle, I: IntoIterator<Item = BackendCoord>>(
        &mut self,
        v: I,
        s: &S,
    ) -> Result<(), Err8<'a>> {
        self.inner.fill_polygon(v, s)
    }
    fn blit_bitmap(&mut self, pos: BackendCoord, size: (u32, u32), src: &[u8]) -> Result<(), Err8<'a>> {
        self.inner.blit_bitmap(pos, size, src)
    }

    fn estimate_text_size<T: BackendTextStyle>(&self, text: &str, style: &T) -> Result<(u32, u32), Err8<'a>> {
        let k = font_scale(style.size()) as u32;
        Ok((8 * k * text.chars().count() as u32, 8 * k))
    }

    fn draw_text<T: BackendTextStyle>(&mut self, text: &str, style: &T, pos: BackendCoord) -> Result<(), Err8<'a>> {
        let colour = style.color();
        if colour.alpha == 0.0 {
            return Ok(());
        }
        let k = font_scale(style.size());
        let (w, h) = (8 * k * text.chars().count() as i32, 8 * k);
        let anchor = style.anchor();
        let dx = match anchor.h_pos {
            HPos::Left => 0,
            HPos::Right => -w,
            HPos::Center => -w / 2,
        };
        let dy = match anchor.v_pos {
            VPos::Top => 0,
            VPos::Center => -h / 2,
            VPos::Bottom => -h,
        };
        let trans = style.transform();
        let (sw, sh) = self.get_size();
        for (ci, ch) in text.chars().enumerate() {
            let g = glyph(ch);
            for (row, bits) in g.iter().enumerate() {
                for col in 0..8 {
                    if bits & (1 << col) == 0 {
                        continue;
                    }
                    for sy in 0..k {
                        for sx in 0..k {
                            let x = ci as i32 * 8 * k + col * k + sx + dx;
                            let y = row as i32 * k + sy + dy;
                            let (x, y) = trans.transform(x, y);
                            let (x, y) = (pos.0 + x, pos.1 + y);
                            if x >= 0 && y >= 0 && x < sw as i32 && y < sh as i32 {
                                self.inner.draw_pixel((x, y), colour)?;
                            }
                        }
                    }
                }
            }
        }
        Ok(())
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn sample() -> Plot {
        Plot {
            title: "t".into(),
            x_label: "tile".into(),
            x_ticks: vec!["16".into(), "32".into(), "64".into()],
            figures: vec!["quads".into()],
            groups: vec![Group {
                label: String::new(),
                series: vec![
                    Series {
                        label: "msaa=1".into(),
                        points: vec![vec![(0, 10.0), (1, 20.0), (2, 40.0)]],
                    },
                    Series {
                        label: "msaa=4".into(),
                        points: vec![vec![(0, 5.0), (1, 15.0), (2, 30.0)]],
                    },
                ],
            }],
        }
    }

    #[test]
    fn svg_has_text_and_lines() {
        let dir = std::env::temp_dir().join(format!("tilerast-plot-{}", std::process::id()));
        std::fs::create_dir_all(&dir).unwrap();
        let f = dir.join("p.svg");
        write(&f, &sample()).unwrap();
        let s = std::fs::read_to_string(&f).unwrap();
        assert!(
            s.contains("<svg") && s.contains("\nmsaa=4\n</text>") && s.contains("\nquads\n</text>"),
            "{}",
            &s[..200.min(s.len())]
        );
        // Two coloured lines (axes are black polylines too).
        let lines = s
            .lines()
            .filter(|l| l.starts_with("<polyline") && !l.contains("stroke=\"#000000\""));
        assert_eq!(lines.count(), 2);
        assert_eq!(s.matches("<g class=\"panel\" data-figure=\"quads\"").count(), 1);
        assert_eq!(s.matches("<g class=\"legend\"").count(), 1);
    }

    #[test]
    fn too_many_series_is_an_error_not_a_crowded_legend() {
        let mut p = sample();
        let s = p.groups[0].series[0].clone();
        p.groups[0].series = vec![s; MAX_SERIES + 1];
        let dir = std::env::temp_dir().join(format!("tilerast-plot-{}", std::process::id()));
        std::fs::create_dir_all(&dir).unwrap();
        let e = write(&dir.join("q.svg"), &p).unwrap_err();
        assert!(e.0.contains("9 series"), "{e}");
    }

    #[test]
    fn a_png_too_tall_is_refused_with_one_line_an_svg_is_written() {
        let mut p = sample();
        p.groups = (0..60)
            .map(|i| Group {
                label: format!("tile={i}"),
                series: sample().groups[0].series.clone(),
            })
            .collect();
        let dir = std::env::temp_dir().join(format!("tilerast-plot-{}", std::process::id()));
        std::fs::create_dir_all(&dir).unwrap();
        let f = dir.join("tall.png");
        let e = write(&f, &p).unwrap_err();
        assert!(
            e.0.starts_with(&format!("{}: plot: the plot would be", f.display()))
                && e.0.contains("x16840 pixels")
                && e.0.contains("write an .svg")
                && !e.0.contains('\n'),
            "{e}"
        );
        assert!(!f.exists());
        let f = dir.join("tall.svg");
        write(&f, &p).unwrap();
        let s = std::fs::read_to_string(&f).unwrap();
        assert_eq!(s.matches("<g class=\"panel\"").count(), 60);
        assert_eq!(s.matches("<line class=\"separator\"").count(), 59);
    }

    #[test]
    fn png_has_drawn_text_pixels() {
        let dir = std::env::temp_dir().join(format!("tilerast-plot-{}", std::process::id()));
        std::fs::create_dir_all(&dir).unwrap();
        let f = dir.join("p.png");
        write(&f, &sample()).unwrap();
        let dec = png::Decoder::new(std::io::BufReader::new(std::fs::File::open(&f).unwrap()));
        let mut r = dec.read_info().unwrap();
        let mut buf = vec![0; r.output_buffer_size().unwrap()];
        let info = r.next_frame(&mut buf).unwrap();
        let w = info.width as usize;
        // One panel plus a legend for "msaa=1" / "msaa=4" (6 characters).
        assert_eq!((info.width, info.height), (PANEL_W + 56 + 6 * 8, TITLE_H + PANEL_H));
        // The title "t" is drawn in black at the top centre: some dark pixel in the top band.
        let dark = (0..30 * w).any(|i| buf[i * 4] < 60 && buf[i * 4 + 1] < 60 && buf[i * 4 + 2] < 60);
        assert!(dark);
        assert!(write(&dir.join("p.gif"), &sample()).unwrap_err().0.contains("--plot"));
    }
}
