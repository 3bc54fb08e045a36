//! `tilerast render`: run the whole golden pipeline on a scene, write the antialiased image as
//! PNG, optionally with debug overlays, and print a short summary.
//!
//! Overlays are drawn on a copy of the image magnified `--scale` times (nearest neighbour), in
//! this order: `subtiles`, then `quads`, then `tiles` (so the grid stays on top). Coordinates are
//! converted from the pipeline's y-up pixels to image rows (row 0 = top of the viewport):
//! pixel row y is image row `H − 1 − y`.
//!
//! The pipeline is streamed (`pipeline::render_stream`, first tile by first tile): what the
//! overlays need is gathered as the events come, bounded by the screen, not by the frame's
//! quads: the most advanced class per first sub-tile (`subtiles`) and the number of quads
//! outlined per quad position (`quads`). A request whose fixed memory (framebuffer, image,
//! canvas, overlay maps) would exceed [`MAX_RENDER_BYTES`] is refused up front with the size
//! it would need.
//!
//! ```text
//!   Frame ─► render_stream ─► Image (RGBA, row 0 top) ─► ×scale ─► overlays ─► PNG
//!                 └─► events: sub-tile fates, quads ─► best class per sub-tile,
//!                                                       outlines per quad position ─┘
//! ```

use crate::error::{io_err, CliError, Res};
use clap::ValueEnum;
use std::collections::BTreeMap;
use std::io::Write;
use std::path::Path;
use tilerast_golden::output_merger::Image;
use tilerast_golden::pipeline::Event;
use tilerast_golden::pipeline::{SubTileClass, SubTileEvent};
use tilerast_golden::Quad;
use tilerast_golden::{Frame, PrimitiveFx};

/// What to draw over the rendered image.
#[derive(Clone, Copy, Debug, PartialEq, Eq, ValueEnum)]
pub enum Overlay {
    /// The first-tile (screen tile) grid.
    Tiles,
    /// First sub-tiles by fate: rejected by row / column / test, partial, trivially accepted.
    Subtiles,
    /// Outlines of emitted 2×2 quads.
    Quads,
}

/// Tint of each sub-tile class (RGB).
pub fn class_colour(c: SubTileClass) -> [u8; 3] {
    match c {
        SubTileClass::RejectedRow => [220, 40, 40],
        SubTileClass::RejectedColumn => [245, 140, 20],
        SubTileClass::RejectedTest => [200, 40, 220],
        SubTileClass::Partial => [245, 225, 40],
        SubTileClass::TrivialAccept => [40, 210, 70],
    }
}

/// Which class a sub-tile shows when several primitives classified it: the most advanced.
fn class_rank(c: SubTileClass) -> u8 {
    match c {
        SubTileClass::RejectedRow => 0,
        SubTileClass::RejectedColumn => 1,
        SubTileClass::RejectedTest => 2,
        SubTileClass::Partial => 3,
        SubTileClass::TrivialAccept => 4,
    }
}

/// Largest image `render` writes, in pixels (2^28: 1 GiB of RGBA, e.g. 16384x16384). A larger
/// viewport × `--scale` is refused up front with the size it would need.
pub const MAX_CANVAS_PIXELS: u64 = 1 << 28;

/// Largest host memory `render` may need before it starts, in bytes (2 GiB): the pipeline's
/// fixed part (`pipeline::fixed_host_bytes`: framebuffer, image, blend queue, …), the canvas
/// and the overlay maps. A larger request is refused up front with the size it would need.
pub const MAX_RENDER_BYTES: u64 = 2 << 30;

/// Bytes `render` needs up front for `cfg` at `scale` with `overlays` (see [`MAX_RENDER_BYTES`]),
/// with the parts named for the error line.
pub fn render_bytes(cfg: &tilerast_golden::Config, scale: u32, overlays: &[Overlay]) -> (u64, String) {
    let [w, h] = cfg.viewport.map(u64::from);
    let pipeline = tilerast_golden::pipeline::fixed_host_bytes(cfg);
    let canvas = w * h * (scale as u64).pow(2) * 4;
    let mut total = pipeline + canvas;
    let mut parts = format!("pipeline {} MiB, canvas {} MiB", mib(pipeline), mib(canvas));
    if overlays.contains(&Overlay::Quads) {
        let b = w.div_ceil(2) * h.div_ceil(2) * 4;
        total += b;
        parts += &format!(", quad outlines {} MiB", mib(b));
    }
    if overlays.contains(&Overlay::Subtiles) {
        // One map entry (rectangle, class, tree overhead) per first sub-tile of the viewport.
        let [sw, sh] = cfg.subtile.map(u64::from);
        let b = w.div_ceil(sw) * h.div_ceil(sh) * 64;
        total += b;
        parts += &format!(", sub-tile map {} MiB", mib(b));
    }
    (total, parts)
}

fn mib(b: u64) -> u64 {
    b.div_ceil(1 << 20)
}

/// The `subtiles` overlay's state: per first sub-tile rectangle, the most advanced class any
/// (selected) primitive gave it.
#[derive(Default)]
pub struct SubtileMap {
    best: BTreeMap<(u32, u32, u32, u32), SubTileClass>,
}

impl SubtileMap {
    /// Take one event into account.
    pub fn add(&mut self, e: &SubTileEvent) {
        let slot = self.best.entry((e.x0, e.y0, e.w, e.h)).or_insert(e.class);
        if class_rank(e.class) > class_rank(*slot) {
            *slot = e.class;
        }
    }

    /// Tint and outline every sub-tile by its class; the number of sub-tiles per class name.
    pub fn draw(&self, c: &mut Canvas) -> BTreeMap<&'static str, usize> {
        let mut counts = BTreeMap::new();
        for (&(x0, y0, w, h), &class) in &self.best {
            let rgb = class_colour(class);
            c.fill_rect(x0, y0, w, h, rgb, 0.35);
            c.outline_rect(x0, y0, w, h, rgb, 0.9);
            *counts.entry(class_name(class)).or_insert(0) += 1;
        }
        counts
    }
}

/// The `quads` overlay's state: how many emitted quads sit at each quad position. Outlines of
/// one position cover the same canvas pixels with the same colour, so drawing them by count
/// is drawing them one by one.
pub struct QuadOutlines {
    across: u32,
    counts: Vec<u32>,
    total: usize,
}

impl QuadOutlines {
    /// No quads yet, for a viewport.
    pub fn new(viewport: [u32; 2]) -> Self {
        let across = viewport[0].div_ceil(2);
        QuadOutlines {
            across,
            counts: vec![0; across as usize * viewport[1].div_ceil(2) as usize],
            total: 0,
        }
    }

    /// Count one emitted quad.
    pub fn add(&mut self, q: &Quad) {
        let i = q.qy as usize * self.across as usize + q.qx as usize;
        if let Some(n) = self.counts.get_mut(i) {
            *n = n.saturating_add(1);
            self.total += 1;
        }
    }

    /// Outline every counted quad (cyan); the number of quads outlined.
    pub fn draw(&self, c: &mut Canvas) -> usize {
        for (i, &n) in self.counts.iter().enumerate() {
            if n == 0 {
                continue;
            }
            let (qx, qy) = (i as u32 % self.across, i as u32 / self.across);
            // n outlines, or fewer once the rounding reaches its fixed point (then more change
            // nothing).
            for _ in 0..n {
                if !c.outline_rect_changes(2 * qx, 2 * qy, 2, 2, [0, 230, 255], 0.7) {
                    break;
                }
            }
        }
        self.total
    }
}

/// An RGBA canvas, row 0 at the top, `k` canvas pixels per scene pixel.
pub struct Canvas {
    pub width: u32,
    pub height: u32,
    /// Scene viewport height in pixels (for the y flip).
    pub scene_h: u32,
    pub k: u32,
    pub rgba: Vec<u8>,
}

impl Canvas {
    /// Magnify `img` by `k` (nearest neighbour).
    pub fn from_image(img: &Image, k: u32) -> Canvas {
        let (w, h) = (img.width * k, img.height * k);
        let mut rgba = vec![0u8; w as usize * h as usize * 4];
        for y in 0..h as usize {
            for x in 0..w as usize {
                let s = ((y / k as usize) * img.width as usize + x / k as usize) * 4;
                let d = (y * w as usize + x) * 4;
                rgba[d..d + 4].copy_from_slice(&img.rgba[s..s + 4]);
            }
        }
        Canvas {
            width: w,
            height: h,
            scene_h: img.height,
            k,
            rgba,
        }
    }

    /// Blend `rgb` with opacity `a` into canvas pixel (cx, cy) (row 0 top).
    pub fn blend(&mut self, cx: i64, cy: i64, rgb: [u8; 3], a: f32) {
        if cx < 0 || cy < 0 || cx >= self.width as i64 || cy >= self.height as i64 {
            return;
        }
        let i = (cy as usize * self.width as usize + cx as usize) * 4;
        for (d, s) in self.rgba[i..i + 3].iter_mut().zip(rgb) {
            *d = (*d as f32 + (s as f32 - *d as f32) * a).round() as u8;
        }
        self.rgba[i + 3] = 255;
    }

    /// Canvas rectangle `[cx0, cx1) × [cy0, cy1)` (rows from the top) of the scene pixel
    /// rectangle `[x0, x0 + w) × [y0, y0 + h)` (y up).
    fn to_canvas(&self, x0: u32, y0: u32, w: u32, h: u32) -> (i64, i64, i64, i64) {
        let k = self.k as i64;
        let top_row = self.scene_h as i64 - (y0 + h) as i64; // scene row index from the top
        (
            x0 as i64 * k,
            top_row * k,
            (x0 + w) as i64 * k,
            (top_row + h as i64) * k,
        )
    }

    /// Fill a scene-pixel rectangle (y up).
    pub fn fill_rect(&mut self, x0: u32, y0: u32, w: u32, h: u32, rgb: [u8; 3], a: f32) {
        let (cx0, cy0, cx1, cy1) = self.to_canvas(x0, y0, w, h);
        for cy in cy0.max(0)..cy1.min(self.height as i64) {
            for cx in cx0.max(0)..cx1.min(self.width as i64) {
                self.blend(cx, cy, rgb, a);
            }
        }
    }

    /// Outline (1 canvas pixel, inside the rectangle) a scene-pixel rectangle (y up).
    pub fn outline_rect(&mut self, x0: u32, y0: u32, w: u32, h: u32, rgb: [u8; 3], a: f32) {
        self.outline_rect_changes(x0, y0, w, h, rgb, a);
    }

    /// [`Canvas::outline_rect`]; false when no pixel changed (blending again changes nothing).
    pub fn outline_rect_changes(&mut self, x0: u32, y0: u32, w: u32, h: u32, rgb: [u8; 3], a: f32) -> bool {
        let before = self.outline_pixels(x0, y0, w, h);
        self.outline_rect_raw(x0, y0, w, h, rgb, a);
        before != self.outline_pixels(x0, y0, w, h)
    }

    /// A copy of the outline's pixels, for [`Canvas::outline_rect_changes`].
    fn outline_pixels(&self, x0: u32, y0: u32, w: u32, h: u32) -> Vec<u8> {
        let (cx0, cy0, cx1, cy1) = self.to_canvas(x0, y0, w, h);
        let mut v = Vec::new();
        for cy in cy0.max(0)..cy1.min(self.height as i64) {
            for cx in cx0.max(0)..cx1.min(self.width as i64) {
                if cy == cy0 || cy == cy1 - 1 || cx == cx0 || cx == cx1 - 1 {
                    let i = (cy as usize * self.width as usize + cx as usize) * 4;
                    v.extend_from_slice(&self.rgba[i..i + 4]);
                }
            }
        }
        v
    }

    fn outline_rect_raw(&mut self, x0: u32, y0: u32, w: u32, h: u32, rgb: [u8; 3], a: f32) {
        let (cx0, cy0, cx1, cy1) = self.to_canvas(x0, y0, w, h);
        for cx in cx0..cx1 {
            self.blend(cx, cy0, rgb, a);
            if cy1 - 1 > cy0 {
                self.blend(cx, cy1 - 1, rgb, a);
            }
        }
        for cy in cy0 + 1..cy1 - 1 {
            self.blend(cx0, cy, rgb, a);
            if cx1 - 1 > cx0 {
                self.blend(cx1 - 1, cy, rgb, a);
            }
        }
    }
}

/// Draw the tile grid: the left column and bottom row of every tile.
pub fn draw_tiles(c: &mut Canvas, tile: [u32; 2], viewport: [u32; 2]) {
    let rgb = [255, 255, 255];
    let (k, w, h) = (c.k as i64, c.width as i64, c.height as i64);
    let mut x = 0;
    while x < viewport[0] {
        for cy in 0..h {
            c.blend(x as i64 * k, cy, rgb, 0.6);
        }
        x += tile[0];
    }
    let mut y = 0;
    while y < viewport[1] {
        // Bottom canvas row of scene pixel row y.
        let cy = (viewport[1] - y) as i64 * k - 1;
        for cx in 0..w {
            c.blend(cx, cy, rgb, 0.6);
        }
        y += tile[1];
    }
}

/// Draw sub-tile fates; with `prim`, only that primitive's events.
#[cfg(test)]
pub fn draw_subtiles(c: &mut Canvas, events: &[SubTileEvent], prim: Option<u32>) -> BTreeMap<&'static str, usize> {
    let mut m = SubtileMap::default();
    for e in events.iter().filter(|e| prim.is_none_or(|p| p == e.prim)) {
        m.add(e);
    }
    m.draw(c)
}

/// Stable lower-case name of a class.
pub fn class_name(c: SubTileClass) -> &'static str {
    match c {
        SubTileClass::RejectedRow => "rejected_row",
        SubTileClass::RejectedColumn => "rejected_column",
        SubTileClass::RejectedTest => "rejected_test",
        SubTileClass::Partial => "partial",
        SubTileClass::TrivialAccept => "trivial_accept",
    }
}

/// Encode RGBA8 (row 0 top) as PNG.
pub fn write_png(path: &Path, width: u32, height: u32, rgba: &[u8]) -> Res<()> {
    let f = std::fs::File::create(path).map_err(|e| io_err(path, "write", e))?;
    let mut enc = png::Encoder::new(std::io::BufWriter::new(f), width, height);
    enc.set_color(png::ColorType::Rgba);
    enc.set_depth(png::BitDepth::Eight);
    let mut w = enc
        .write_header()
        .map_err(|e| CliError::at(path.display(), "write", e))?;
    w.write_image_data(rgba)
        .map_err(|e| CliError::at(path.display(), "write", e))?;
    w.finish().map_err(|e| CliError::at(path.display(), "write", e))?;
    Ok(())
}

/// Primitive counts (triangles, points).
pub fn prim_counts(frame: &Frame) -> (usize, usize) {
    let t = frame
        .prims
        .iter()
        .filter(|p| matches!(p, PrimitiveFx::Triangle(_)))
        .count();
    (t, frame.prims.len() - t)
}

/// Options of `render` that shape the output.
pub struct RenderOpts<'a> {
    pub out: &'a Path,
    pub overlays: &'a [Overlay],
    pub scale: u32,
    pub prim: Option<u32>,
    /// Print every statistic instead of [`KEY_STATS`].
    pub all_stats: bool,
    /// No progress bar (`--quiet`).
    pub quiet: bool,
}

/// The statistics `render` prints by default (names of `FrameStats::rows()`).
pub const KEY_STATS: [&str; 10] = [
    "prim_list_bytes",
    "subtiles_walked",
    "subtiles_trivial",
    "subtiles_partial",
    "samples_tested",
    "storage_blocks",
    "pixel_info_bytes_written",
    "shading_invocations",
    "blend_cycles",
    "blend_cycles_saved",
];

/// Run `render`; the summary goes to `out`.
pub fn run(frame: &Frame, file: &str, o: &RenderOpts, out: &mut dyn Write) -> Res<()> {
    let ext = o.out.extension().and_then(|e| e.to_str()).map(str::to_ascii_lowercase);
    if ext.as_deref() != Some("png") {
        return Err(CliError::at(
            o.out.display(),
            "-o",
            "the output image must be a .png file",
        ));
    }
    if !(1..=16).contains(&o.scale) {
        return Err(CliError::at("--scale", o.scale, "must be within 1..=16"));
    }
    let [vw, vh] = frame.cfg.viewport;
    let (cw, ch) = (vw as u64 * o.scale as u64, vh as u64 * o.scale as u64);
    if cw * ch > MAX_CANVAS_PIXELS {
        return Err(CliError::at(
            "--scale",
            o.scale,
            format!(
                "the {vw}x{vh} viewport at scale {} is a {cw}x{ch} image, which would need {} MiB (limit {} MiB); use a smaller --scale",
                o.scale,
                (cw * ch * 4).div_ceil(1 << 20),
                (MAX_CANVAS_PIXELS * 4) >> 20
            ),
        ));
    }
    let (need, parts) = render_bytes(&frame.cfg, o.scale, o.overlays);
    if need > MAX_RENDER_BYTES {
        return Err(CliError::at(
            file,
            "memory",
            format!(
                "rendering the {vw}x{vh} viewport at {} colours/pixel, scale {} would need {} MiB ({parts}; limit {} MiB); use a smaller viewport, colours_per_pixel or --scale",
                frame.cfg.colours_per_pixel,
                o.scale,
                mib(need),
                MAX_RENDER_BYTES >> 20
            ),
        ));
    }
    if let Some(p) = o.prim {
        if p as usize >= frame.prims.len() {
            return Err(CliError::at(
                "--prim",
                p,
                format!("no such primitive (the scene has {})", frame.prims.len()),
            ));
        }
    }
    let want_sub = o.overlays.contains(&Overlay::Subtiles);
    let mut subtiles = SubtileMap::default();
    let mut outlines = o
        .overlays
        .contains(&Overlay::Quads)
        .then(|| QuadOutlines::new(frame.cfg.viewport));
    let mine = |p: u32| o.prim.is_none_or(|q| q == p);
    let [ntx, nty] = frame.cfg.tiles();
    let progress = crate::progress::Progress::new(ntx as u64 * nty as u64, "tiles", format!("render {file}"), o.quiet);
    let r = tilerast_golden::pipeline::render_stream(frame, want_sub, |e| {
        match e {
            Event::TileDone([tx, ty]) => progress.set(ty as u64 * ntx as u64 + tx as u64 + 1),
            Event::SubTile(ev) if mine(ev.prim) => subtiles.add(&ev),
            Event::Quads { quads, .. } => {
                if let Some(ol) = outlines.as_mut() {
                    quads.iter().filter(|q| mine(q.prim)).for_each(|q| ol.add(q));
                }
            }
            _ => {}
        }
        Ok::<(), tilerast_golden::pipeline::PipelineError>(())
    })
    .map_err(|e| CliError::at(file, "pipeline", e))?;
    progress.finish();
    let image = r.image.as_ref().expect("render_stream makes an image");
    let mut canvas = Canvas::from_image(image, o.scale);
    let mut notes = Vec::new();
    if want_sub {
        let counts = subtiles.draw(&mut canvas);
        let legend: Vec<String> = counts.iter().map(|(k, v)| format!("{k} {v}")).collect();
        notes.push(format!(
            "overlay subtiles: {} (tints: rejected_row red, rejected_column orange, rejected_test magenta, partial yellow, trivial_accept green)",
            legend.join(", ")
        ));
    }
    if let Some(ol) = &outlines {
        let n = ol.draw(&mut canvas);
        notes.push(format!("overlay quads: {n} outlined (cyan)"));
    }
    if o.overlays.contains(&Overlay::Tiles) {
        draw_tiles(&mut canvas, frame.cfg.tile, frame.cfg.viewport);
        let [tx, ty] = frame.cfg.tiles();
        notes.push(format!(
            "overlay tiles: {tx}x{ty} tiles of {}x{} (white)",
            frame.cfg.tile[0], frame.cfg.tile[1]
        ));
    }
    write_png(o.out, canvas.width, canvas.height, &canvas.rgba)?;

    let cfg = &frame.cfg;
    let (tris, points) = prim_counts(frame);
    let samples = r.stats.covered_samples;
    let fragments: u64 = r.point_fragments.iter().map(|p| p.1).sum();
    let mut s = String::new();
    s += &format!("scene: {file}\n");
    s += &format!(
        "config: {} viewport {}x{}, tile {}x{}, subtile {}x{}, msaa {}, colours/pixel {}\n",
        cfg.name,
        cfg.viewport[0],
        cfg.viewport[1],
        cfg.tile[0],
        cfg.tile[1],
        cfg.subtile[0],
        cfg.subtile[1],
        cfg.msaa,
        cfg.colours_per_pixel
    );
    s += &format!(
        "primitives: {} ({tris} triangles, {points} points)\n",
        frame.prims.len()
    );
    s += &format!(
        "quads: {}\ncovered samples: {samples}\npoint fragments: {fragments}\n",
        r.stats.quads
    );
    for n in &notes {
        s += n;
        s.push('\n');
    }
    s += if o.all_stats {
        "stats:\n"
    } else {
        "key stats (all with --stats):\n"
    };
    for (name, v) in r
        .stats
        .rows()
        .into_iter()
        .filter(|(n, _)| o.all_stats || KEY_STATS.contains(n))
    {
        s += &format!("  {name:<32} {}\n", fmt_num(v));
    }
    s += &format!("wrote {} ({}x{})\n", o.out.display(), canvas.width, canvas.height);
    out.write_all(s.as_bytes())
        .map_err(|e| CliError::at("<stdout>", "write", e))
}

/// Integers without a fraction, others with up to 4 decimals.
pub fn fmt_num(v: f64) -> String {
    if v.fract() == 0.0 && v.abs() < 1e15 {
        format!("{}", v as i64)
    } else {
        let s = format!("{v:.4}");
        s.trim_end_matches('0').trim_end_matches('.').to_string()
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn img(w: u32, h: u32) -> Image {
        Image {
            width: w,
            height: h,
            rgba: vec![0; (w * h * 4) as usize],
        }
    }

    fn px(c: &Canvas, x: u32, y: u32) -> [u8; 4] {
        let i = ((y * c.width + x) * 4) as usize;
        c.rgba[i..i + 4].try_into().unwrap()
    }

    #[test]
    fn fill_rect_flips_y() {
        // Scene pixel (1, 0) (bottom row) of a 4x3 image is canvas row 2 at scale 1, rows 4..6 at 2.
        let mut c = Canvas::from_image(&img(4, 3), 1);
        c.fill_rect(1, 0, 1, 1, [255, 0, 0], 1.0);
        assert_eq!(px(&c, 1, 2), [255, 0, 0, 255]);
        assert_eq!(px(&c, 1, 0), [0, 0, 0, 0]);
        let mut c = Canvas::from_image(&img(4, 3), 2);
        c.fill_rect(1, 0, 1, 1, [255, 0, 0], 1.0);
        for (x, y) in [(2, 4), (3, 4), (2, 5), (3, 5)] {
            assert_eq!(px(&c, x, y), [255, 0, 0, 255], "{x},{y}");
        }
        assert_eq!(px(&c, 2, 3)[0], 0);
        assert_eq!(px(&c, 4, 4)[0], 0);
    }

    #[test]
    fn outline_leaves_inside_untouched() {
        let mut c = Canvas::from_image(&img(8, 8), 1);
        c.outline_rect(2, 2, 4, 4, [0, 255, 0], 1.0);
        // Rows from top: scene y 2..6 ↔ canvas rows 2..6 (8 - 6 = 2).
        assert_eq!(px(&c, 2, 2)[1], 255);
        assert_eq!(px(&c, 5, 5)[1], 255);
        assert_eq!(px(&c, 3, 3)[1], 0);
        assert_eq!(px(&c, 1, 2)[1], 0);
    }

    #[test]
    fn subtile_best_class_wins_and_is_counted() {
        let mut c = Canvas::from_image(&img(8, 8), 1);
        let ev = |prim, x0, class| SubTileEvent {
            prim,
            x0,
            y0: 0,
            w: 4,
            h: 4,
            class,
        };
        let events = [
            ev(0, 0, SubTileClass::RejectedRow),
            ev(1, 0, SubTileClass::Partial),
            ev(0, 4, SubTileClass::RejectedColumn),
        ];
        let counts = draw_subtiles(&mut c, &events, None);
        assert_eq!(counts.get("partial"), Some(&1));
        assert_eq!(counts.get("rejected_column"), Some(&1));
        assert_eq!(counts.get("rejected_row"), None);
        // Only primitive 0: the sub-tile at x0 = 0 is a row rejection.
        let counts = draw_subtiles(&mut c, &events, Some(0));
        assert_eq!(counts.get("rejected_row"), Some(&1));
        assert_eq!(counts.values().sum::<usize>(), 2);
    }

    #[test]
    fn quad_outlines_by_count_equal_outlines_one_by_one() {
        // Five quads at one position and one at another, at scales 1 and 3: drawing by count
        // (which stops at the rounding's fixed point) gives the canvas of drawing each.
        for k in [1, 3] {
            let mut a = Canvas::from_image(&img(8, 6), k);
            let mut b = Canvas::from_image(&img(8, 6), k);
            let mut ol = QuadOutlines::new([8, 6]);
            let quads = [(1, 1); 5].into_iter().chain([(3, 0)]);
            for (qx, qy) in quads {
                ol.add(&Quad {
                    prim: 0,
                    qx,
                    qy,
                    mask: 1,
                });
                a.outline_rect(2 * qx as u32, 2 * qy as u32, 2, 2, [0, 230, 255], 0.7);
            }
            assert_eq!(ol.draw(&mut b), 6);
            assert!(a.rgba == b.rgba, "scale {k}");
            assert_ne!(px(&b, 2 * k, 2 * k), [0, 0, 0, 0], "drawn");
        }
    }

    #[test]
    fn tile_grid_lines() {
        let mut c = Canvas::from_image(&img(8, 8), 1);
        draw_tiles(&mut c, [4, 4], [8, 8]);
        // Columns 0 and 4; rows: bottom of scene rows 0 and 4 = canvas rows 7 and 3.
        assert!(px(&c, 0, 1)[0] > 0 && px(&c, 4, 1)[0] > 0 && px(&c, 1, 7)[0] > 0 && px(&c, 1, 3)[0] > 0);
        assert_eq!(px(&c, 1, 1)[0], 0);
        assert_eq!(px(&c, 2, 4)[0], 0);
    }

    #[test]
    fn numbers() {
        assert_eq!(fmt_num(3.0), "3");
        assert_eq!(fmt_num(0.25), "0.25");
        assert_eq!(fmt_num(1.0 / 3.0), "0.3333");
    }
}
