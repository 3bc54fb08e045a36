//! Line plots for `tilerast explore --plot out.svg|out.png`: one panel per figure, stacked
//! vertically, x = the swept parameter's values (evenly spaced, labelled with the values),
//! one line series per combination of the other swept parameters.
//!
//! Text without system font libraries: plotters is built without its `ttf` feature. The SVG
//! backend writes `<text>` elements itself (the viewer picks the font). For PNG, [`Font8`]
//! wraps the bitmap backend and draws labels with the public-domain 8×8 bitmap font of the
//! `font8x8` crate (scaled by whole pixels), so PNG plots need no font files either.
//!
//! ```text
//!   Plot { figures: [Figure { series: [Series { points }] }] }
//!        ├─► SVGBackend ──────────────────────────────► out.svg
//!        └─► Font8(BitMapBackend RGB buffer) ─► RGBA ─► out.png
//! ```

use crate::error::{CliError, Res};
use plotters::coord::Shift;
use plotters::prelude::*;
use plotters_backend::text_anchor::{HPos, VPos};
use plotters_backend::{BackendColor, BackendCoord, BackendStyle, BackendTextStyle, DrawingErrorKind};
use std::path::Path;

/// One line of a figure.
#[derive(Clone, Debug)]
pub struct Series {
    pub label: String,
    /// (index into `Plot::x_ticks`, value).
    pub points: Vec<(usize, f64)>,
}

/// One panel.
#[derive(Clone, Debug)]
pub struct Figure {
    pub name: String,
    pub series: Vec<Series>,
}

/// A whole plot.
#[derive(Clone, Debug)]
pub struct Plot {
    pub title: String,
    pub x_label: String,
    /// Labels of the x positions 0, 1, 2, …
    pub x_ticks: Vec<String>,
    pub figures: Vec<Figure>,
}

const COLOURS: [RGBColor; 8] = [
    RGBColor(31, 119, 180),
    RGBColor(255, 127, 14),
    RGBColor(44, 160, 44),
    RGBColor(214, 39, 40),
    RGBColor(148, 103, 189),
    RGBColor(140, 86, 75),
    RGBColor(227, 119, 194),
    RGBColor(23, 190, 207),
];

fn draw<DB: DrawingBackend>(root: DrawingArea<DB, Shift>, p: &Plot) -> Result<(), String> {
    let e = |x: DrawingAreaErrorKind<DB::ErrorType>| x.to_string();
    root.fill(&WHITE).map_err(e)?;
    let root = root.titled(&p.title, ("sans-serif", 24)).map_err(e)?;
    let panels = root.split_evenly((p.figures.len().max(1), 1));
    let n = p.x_ticks.len().max(1);
    for (area, fig) in panels.iter().zip(&p.figures) {
        let vals = fig.series.iter().flat_map(|s| s.points.iter().map(|q| q.1));
        let (lo, hi) = vals.fold((f64::INFINITY, f64::NEG_INFINITY), |(a, b), v| (a.min(v), b.max(v)));
        let (lo, hi) = if lo.is_finite() { (lo.min(0.0), hi) } else { (0.0, 1.0) };
        let hi = if hi <= lo { lo + 1.0 } else { hi + (hi - lo) * 0.08 };
        let xr = -0.3..(n as f64 - 0.7);
        let mut chart = ChartBuilder::on(area)
            .caption(&fig.name, ("sans-serif", 20))
            .margin(12)
            .x_label_area_size(36)
            .y_label_area_size(72)
            .build_cartesian_2d(xr, lo..hi)
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
        for (i, s) in fig.series.iter().enumerate() {
            let c = COLOURS[i % COLOURS.len()];
            let pts: Vec<(f64, f64)> = s.points.iter().map(|&(x, y)| (x as f64, y)).collect();
            chart
                .draw_series(LineSeries::new(pts.clone(), Color::stroke_width(&c, 2)))
                .map_err(e)?
                .label(&s.label)
                .legend(move |(x, y)| PathElement::new(vec![(x, y), (x + 18, y)], Color::stroke_width(&c, 2)));
            chart
                .draw_series(pts.iter().map(|&q| Circle::new(q, 3, c.filled())))
                .map_err(e)?;
        }
        if fig.series.len() > 1 || fig.series.first().is_some_and(|s| !s.label.is_empty()) {
            chart
                .configure_series_labels()
                .position(SeriesLabelPosition::UpperLeft)
                .background_style(WHITE.mix(0.85))
                .border_style(BLACK)
                .draw()
                .map_err(e)?;
        }
    }
    root.present().map_err(e)?;
    Ok(())
}

/// Write `p` to `path` (`.svg` or `.png`).
pub fn write(path: &Path, p: &Plot) -> Res<()> {
    let ext = path.extension().and_then(|e| e.to_str()).map(str::to_ascii_lowercase);
    let size = (960u32, 300 * p.figures.len().max(1) as u32 + 40);
    let fail = |m: String| CliError::at(path.display(), "plot", m);
    match ext.as_deref() {
        Some("svg") => {
            let mut text = String::new();
            draw(SVGBackend::with_string(&mut text, size).into_drawing_area(), p).map_err(fail)?;
            std::fs::write(path, text).map_err(|e| crate::error::io_err(path, "write", e))
        }
        Some("png") => {
            let mut rgb = vec![0u8; (size.0 * size.1 * 3) as usize];
            {
                let backend = Font8 {
                    inner: BitMapBackend::with_buffer(&mut rgb, size),
                };
                draw(backend.into_drawing_area(), p).map_err(fail)?;
            }
            let rgba: Vec<u8> = rgb.chunks_exact(3).flat_map(|c| [c[0], c[1], c[2], 255]).collect();
            crate::render::write_png(path, size.0, size.1, &rgba)
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
            figures: vec![Figure {
                name: "quads".into(),
                series: vec![
                    Series {
                        label: "msaa=1".into(),
                        points: vec![(0, 10.0), (1, 20.0), (2, 40.0)],
                    },
                    Series {
                        label: "msaa=4".into(),
                        points: vec![(0, 5.0), (1, 15.0), (2, 30.0)],
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
            s.contains("<svg") && s.contains("msaa=4") && s.contains("\nquads\n</text>"),
            "{}",
            &s[..200.min(s.len())]
        );
        assert!(s.contains("<polyline"));
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
        assert_eq!((info.width, info.height), (960, 340));
        // The title "t" is drawn in black at the top centre: some dark pixel in the top band.
        let dark = (0..30 * 960).any(|i| buf[i * 4] < 60 && buf[i * 4 + 1] < 60 && buf[i * 4 + 2] < 60);
        assert!(dark);
        assert!(write(&dir.join("p.gif"), &sample()).unwrap_err().0.contains("--plot"));
    }
}
