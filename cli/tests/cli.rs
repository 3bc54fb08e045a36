//! End-to-end tests of the `tilerast` binary: every command on the built-in scene and on the
//! fixtures in `tests/data/` (written by hand for these tests), and every error case.
//!
//! Expected values come from the scene files (where triangles are), from the SPEC's quad mask
//! layout, and from the brute-force reference (`tilerast_golden::reference`), never from the
//! code under test.

use std::collections::BTreeMap;
use std::path::{Path, PathBuf};
use std::process::{Command, Output};
use tilerast_golden::{Coverage, PrimitiveFx, Scene};

fn bin() -> Command {
    let mut c = Command::new(env!("CARGO_BIN_EXE_tilerast"));
    c.env_remove("RUST_BACKTRACE");
    c
}

fn run(args: &[&str]) -> Output {
    bin().args(args).output().expect("run tilerast")
}

fn data(name: &str) -> String {
    Path::new(env!("CARGO_MANIFEST_DIR"))
        .join("tests/data")
        .join(name)
        .display()
        .to_string()
}

fn default_scene_path() -> String {
    Path::new(env!("CARGO_MANIFEST_DIR"))
        .join("../scenes/default.json")
        .display()
        .to_string()
}

/// A fresh per-test directory.
fn tmp(name: &str) -> PathBuf {
    let d = Path::new(env!("CARGO_TARGET_TMPDIR")).join(format!("cli-{name}"));
    let _ = std::fs::remove_dir_all(&d);
    std::fs::create_dir_all(&d).unwrap();
    d
}

fn ok(o: &Output) -> String {
    let err = String::from_utf8_lossy(&o.stderr);
    assert!(o.status.success(), "tilerast failed: {:?}\nstderr: {err}", o.status);
    String::from_utf8(o.stdout.clone()).unwrap()
}

struct Png {
    w: u32,
    h: u32,
    rgba: Vec<u8>,
}

impl Png {
    fn load(p: &Path) -> Png {
        let dec = png::Decoder::new(std::io::BufReader::new(std::fs::File::open(p).unwrap()));
        let mut r = dec.read_info().unwrap();
        let mut buf = vec![0; r.output_buffer_size().unwrap()];
        let info = r.next_frame(&mut buf).unwrap();
        assert_eq!(info.color_type, png::ColorType::Rgba);
        buf.truncate(info.buffer_size());
        Png {
            w: info.width,
            h: info.height,
            rgba: buf,
        }
    }
    /// Pixel at (x, y) with y UP (row 0 of the file is the top).
    fn at(&self, x: u32, y: u32) -> [u8; 4] {
        let row = self.h - 1 - y;
        let i = ((row * self.w + x) * 4) as usize;
        self.rgba[i..i + 4].try_into().unwrap()
    }
}

fn close(a: [u8; 4], b: [u8; 3], tol: i32) -> bool {
    (0..3).all(|i| (a[i] as i32 - b[i] as i32).abs() <= tol)
}

// ---------------------------------------------------------------------------------------------
// render

#[test]
fn render_default_scene_has_triangles_where_the_scene_puts_them() {
    let d = tmp("render-default");
    let out = d.join("default.png");
    let stdout = ok(&run(&["render", "-o", out.to_str().unwrap()]));
    assert!(stdout.contains("primitives: 24"), "{stdout}");
    assert!(stdout.contains("quads: "), "{stdout}");
    let img = Png::load(&out);
    assert_eq!((img.w, img.h), (640, 480));
    // scenes/default.json: background (16,16,24); triangles 0/1 fill [20,620]x[20,300] (colours
    // (40,60,120) below the diagonal, (60,40,120) above it); triangle 11 (255,120,0) is
    // (64,64)-(128,64)-(64,128), nearest. Pixel (5,5) is background, (40,250) is above the
    // diagonal of the big quad (diagonal y at x=40.5 is 29.5), (600,40) below it, (80,70) in
    // the orange triangle. All fully covered, opaque: the exact colours.
    assert!(close(img.at(5, 5), [16, 16, 24], 1), "{:?}", img.at(5, 5));
    assert!(close(img.at(40, 250), [60, 40, 120], 1), "{:?}", img.at(40, 250));
    assert!(close(img.at(600, 40), [40, 60, 120], 1), "{:?}", img.at(600, 40));
    assert!(close(img.at(80, 70), [255, 120, 0], 1), "{:?}", img.at(80, 70));
    // The white triangle (300,340)-(360,460)-(420,340): pixel (360,360) is inside.
    assert!(close(img.at(360, 360), [250, 250, 250], 1), "{:?}", img.at(360, 360));
    // y-up check: the same x one row from the top (y = 479) is background.
    assert!(close(img.at(360, 479), [16, 16, 24], 1));
}

#[test]
fn render_overlays_change_the_image_and_scale_it() {
    let d = tmp("render-overlay");
    let plain = d.join("plain.png");
    let over = d.join("over.png");
    ok(&run(&["render", "-o", plain.to_str().unwrap(), "--scale", "2"]));
    let s = ok(&run(&[
        "render",
        "-o",
        over.to_str().unwrap(),
        "--overlay",
        "tiles,subtiles,quads",
        "--scale",
        "2",
    ]));
    assert!(
        s.contains("overlay subtiles:") && s.contains("overlay quads:") && s.contains("overlay tiles: 20x15"),
        "{s}"
    );
    let (a, b) = (Png::load(&plain), Png::load(&over));
    assert_eq!((a.w, a.h), (1280, 960));
    assert_eq!((b.w, b.h), (1280, 960));
    // Tile grid: canvas column 64 (scene x = 32, a tile edge) near the top is background in the
    // plain image and brightened in the overlay.
    let px = |p: &Png, cx: u32, cy: u32| -> [u8; 4] {
        let i = ((cy * p.w + cx) * 4) as usize;
        p.rgba[i..i + 4].try_into().unwrap()
    };
    assert!(close(px(&a, 64, 4), [16, 16, 24], 1));
    assert!(px(&b, 64, 4)[0] > 100, "{:?}", px(&b, 64, 4));
    // A background pixel off every grid line and away from every primitive's sub-tiles stays.
    assert!(
        close(px(&b, 2 * 630 + 1, 2 + 1), [16, 16, 24], 1),
        "{:?}",
        px(&b, 1261, 3)
    );
    // Quads: the orange triangle's interior gets cyan outlines; some pixel there changed.
    let changed = (140..250).any(|cx| px(&a, cx, 960 - 2 * 70) != px(&b, cx, 960 - 2 * 70));
    assert!(changed);
}

#[test]
fn render_with_prim_filter_and_bad_prim() {
    let d = tmp("render-prim");
    let out = d.join("p.png");
    ok(&run(&[
        "render",
        "-o",
        out.to_str().unwrap(),
        "--overlay",
        "quads",
        "--prim",
        "11",
    ]));
    let o = run(&[
        "render",
        "-o",
        out.to_str().unwrap(),
        "--overlay",
        "quads",
        "--prim",
        "99",
    ]);
    assert_one_line_error(&o, &["--prim", "99"]);
}

// ---------------------------------------------------------------------------------------------
// raster

/// Parse the JSONL; return (per-prim coverage from the masks, point fragments, summary).
fn parse_jsonl(text: &str, msaa: u32) -> (BTreeMap<u32, Coverage>, BTreeMap<u32, u64>, serde_json::Value) {
    let lines: Vec<&str> = text.lines().collect();
    let summary: serde_json::Value = serde_json::from_str(lines.last().unwrap()).unwrap();
    assert!(
        summary.get("summary").is_some(),
        "last line is the summary: {}",
        lines.last().unwrap()
    );
    let mut cov: BTreeMap<u32, Coverage> = BTreeMap::new();
    let mut frags = BTreeMap::new();
    let mut samples = 0u64;
    let mut quads = 0u64;
    let mut seen_point = false;
    for l in &lines[..lines.len() - 1] {
        let v: serde_json::Value = serde_json::from_str(l).unwrap_or_else(|e| panic!("{e}: {l}"));
        if let Some(p) = v.get("point") {
            seen_point = true;
            frags.insert(p.as_u64().unwrap() as u32, v["fragments"].as_u64().unwrap());
            continue;
        }
        assert!(!seen_point, "quad lines come before point lines");
        assert!(l.starts_with(r#"{"tile":["#), "key order: {l}");
        let m = v["mask"].as_str().unwrap();
        assert!(m.starts_with("0x") && m.len() == 2 + msaa as usize, "mask width: {m}");
        assert!(
            m[2..].chars().all(|c| c.is_ascii_hexdigit() && !c.is_ascii_uppercase()),
            "{m}"
        );
        let mask = u64::from_str_radix(&m[2..], 16).unwrap();
        assert_ne!(mask, 0, "empty quad emitted: {l}");
        samples += mask.count_ones() as u64;
        quads += 1;
        let (qx, qy, prim) = (
            v["qx"].as_u64().unwrap() as u32,
            v["qy"].as_u64().unwrap() as u32,
            v["prim"].as_u64().unwrap() as u32,
        );
        // SPEC §2: pixel i = 2·(y&1)+(x&1) owns bits [i·S, (i+1)·S).
        let full = if msaa == 16 { 0xffff } else { (1u64 << msaa) - 1 };
        for i in 0..4u32 {
            let pm = ((mask >> (i * msaa)) & full) as u16;
            if pm != 0 {
                let e = cov
                    .entry(prim)
                    .or_default()
                    .entry((2 * qx + (i & 1), 2 * qy + (i >> 1)))
                    .or_insert(0);
                assert_eq!(*e & pm, 0, "sample emitted twice: {l}");
                *e |= pm;
            }
        }
    }
    let s = &summary["summary"];
    assert_eq!(
        s["samples"].as_u64().unwrap(),
        samples,
        "summary samples = sum of mask popcounts"
    );
    assert_eq!(s["quads"].as_u64().unwrap(), quads);
    assert_eq!(s["points"].as_u64().unwrap(), frags.len() as u64);
    (cov, frags, summary)
}

#[test]
fn raster_jsonl_matches_the_brute_force_reference() {
    let path = default_scene_path();
    let text = ok(&run(&["raster", &path, "--format", "jsonl"]));
    let frame = Scene::load(Path::new(&path)).unwrap().to_frame("d").unwrap();
    let (cov, frags, summary) = parse_jsonl(&text, frame.cfg.msaa);
    assert!(summary["summary"]["samples"].as_u64().unwrap() > 100_000);
    let mut st = tilerast_golden::reference::RefStats::default();
    let mut points = 0;
    for (i, p) in frame.prims.iter().enumerate() {
        let want = tilerast_golden::reference::primitive(&frame.cfg, p, &mut st);
        let got = cov.get(&(i as u32)).cloned().unwrap_or_default();
        assert_eq!(got, want, "primitive {i} coverage differs from the reference");
        assert!(
            !want.is_empty(),
            "every primitive of the default scene covers something"
        );
        if let PrimitiveFx::Point(_) = p {
            points += 1;
            assert_eq!(
                frags.get(&(i as u32)),
                Some(&(want.len() as u64)),
                "point {i} fragments = pixels lit"
            );
        }
    }
    assert_eq!(points, 12);
}

#[test]
fn raster_to_file_equals_stdout() {
    let d = tmp("raster-file");
    let f = d.join("q.jsonl");
    let path = default_scene_path();
    let a = ok(&run(&["raster", &path, "-o", f.to_str().unwrap()]));
    assert!(a.is_empty());
    let b = ok(&run(&["raster", &path]));
    assert_eq!(std::fs::read_to_string(&f).unwrap(), b);
}

// ---------------------------------------------------------------------------------------------
// explore

#[test]
fn explore_writes_csv_table_and_plots() {
    let d = tmp("explore");
    let csv = d.join("e.csv");
    let svg = d.join("e.svg");
    let png = d.join("e.png");
    let out = ok(&bin()
        .env("CI", "1")
        .args([
            "explore",
            "--tile",
            "16,32,64",
            "--msaa",
            "1,4",
            "--csv",
            csv.to_str().unwrap(),
            "--plot",
            svg.to_str().unwrap(),
        ])
        .output()
        .unwrap());
    let text = std::fs::read_to_string(&csv).unwrap();
    let lines: Vec<&str> = text.lines().collect();
    assert_eq!(lines.len(), 1 + 6, "{text}");
    let cols = lines[0].split(',').count();
    assert!(cols > 7, "parameter columns plus stats: {}", lines[0]);
    assert!(lines[0].starts_with("tile_w,tile_h,subtile_w,subtile_h,msaa,colours_per_pixel,coverage_test,"));
    for l in &lines[1..] {
        assert_eq!(l.split(',').count(), cols, "{l}");
        for v in l.split(',').skip(7) {
            assert!(v.parse::<f64>().is_ok(), "numeric stat: {v}");
        }
    }
    // Sweep order: tile outer, msaa inner.
    assert!(
        lines[1].starts_with("16,16,8,8,1,")
            && lines[2].starts_with("16,16,8,8,4,")
            && lines[6].starts_with("64,64,8,8,4,")
    );
    // Table: header + 6 rows on stdout.
    assert_eq!(out.lines().count(), 7, "{out}");
    let s = std::fs::read_to_string(&svg).unwrap();
    assert!(s.contains("<svg") && s.contains("msaa=4") && s.contains("<polyline"));
    ok(&run(&[
        "explore",
        "--tile",
        "16,32",
        "--raster-only",
        "--plot",
        png.to_str().unwrap(),
    ]));
    let p = Png::load(&png);
    assert!(p.w > 0 && p.rgba.chunks(4).any(|c| c[0] < 100));
}

/// One piece of an explore plot SVG: `<g class="…" data-…="…" transform="translate(x,y)">`
/// around a nested `<svg width height>` (see cli/src/plot.rs).
struct PlotPiece {
    class: String,
    figure: String,
    group: String,
    x: f64,
    y: f64,
    w: f64,
    body: String,
}

fn xml_attr(tag: &str, name: &str) -> Option<String> {
    let k = format!(" {name}=\"");
    let i = tag.find(&k)? + k.len();
    let j = tag[i..].find('"')? + i;
    Some(
        tag[i..j]
            .replace("&lt;", "<")
            .replace("&gt;", ">")
            .replace("&quot;", "\"")
            .replace("&amp;", "&"),
    )
}

fn plot_pieces(svg: &str) -> Vec<PlotPiece> {
    svg.split("<g class=\"")
        .skip(1)
        .map(|part| {
            let part = format!(" class=\"{part}");
            let tag = &part[..part.find('>').unwrap()];
            let body = &part[..part.find("</g>").expect("</g>")];
            let tr = xml_attr(tag, "transform").unwrap();
            let (x, y) = tr
                .trim_start_matches("translate(")
                .trim_end_matches(')')
                .split_once(',')
                .unwrap();
            let inner = &body[body.find("<svg").unwrap()..];
            PlotPiece {
                class: xml_attr(tag, "class").unwrap(),
                figure: xml_attr(tag, "data-figure").unwrap_or_default(),
                group: xml_attr(tag, "data-group").unwrap_or_default(),
                x: x.parse().unwrap(),
                y: y.parse().unwrap(),
                w: xml_attr(&inner[..inner.find('>').unwrap()], "width")
                    .unwrap()
                    .parse()
                    .unwrap(),
                body: body.to_string(),
            }
        })
        .collect()
}

/// Elements `<name …>` of `body`, each with the text up to the next `<`.
fn elements<'a>(body: &'a str, name: &str) -> Vec<(&'a str, &'a str)> {
    let open = format!("<{name} ");
    body.match_indices(&open)
        .map(|(i, _)| {
            let end = body[i..].find('>').unwrap() + i;
            let rest = &body[end + 1..];
            (&body[i..end], rest[..rest.find('<').unwrap_or(rest.len())].trim())
        })
        .collect()
}

/// The coloured polylines of a panel (the series; axes and grid are black): (colour, points).
fn series_lines(body: &str) -> Vec<(String, Vec<(f64, f64)>)> {
    elements(body, "polyline")
        .into_iter()
        .filter_map(|(tag, _)| {
            let c = xml_attr(tag, "stroke")?;
            if c == "#000000" {
                return None;
            }
            let pts = xml_attr(tag, "points")
                .unwrap()
                .split_whitespace()
                .map(|p| {
                    let (x, y) = p.split_once(',').unwrap();
                    (x.parse().unwrap(), y.parse().unwrap())
                })
                .collect();
            Some((c, pts))
        })
        .collect()
}

/// Legend entries: each coloured `<rect>` swatch and the `<text>` label after it.
fn legend_entries(body: &str) -> Vec<(String, String)> {
    let mut out = Vec::new();
    let mut rest = body;
    while let Some(i) = rest.find("<rect ") {
        rest = &rest[i..];
        let tag = &rest[..rest.find('>').unwrap()];
        let colour = xml_attr(tag, "fill").unwrap();
        let (_, label) = elements(rest, "text")[0];
        out.push((colour, label.to_string()));
        rest = &rest[1..];
    }
    out
}

/// `name=value name=value` → map.
fn values_map(label: &str) -> BTreeMap<String, String> {
    label
        .split_whitespace()
        .filter(|w| w.contains('='))
        .map(|w| {
            let (k, v) = w.split_once('=').unwrap();
            (k.to_string(), v.to_string())
        })
        .collect()
}

/// A sweep of five parameters: x = tile (3 values) and 2 × 4 × 2 × 2 = 32 combinations of
/// the others, far more than one legend should carry. Reads the SVG back: no panel has more
/// than 8 series, every (figure, combination) is drawn exactly once, every label is in its
/// legend, the legends sit beside the panels, and the lines follow the CSV's values on one y
/// scale per figure (sub-tile size changes values between groups, msaa between series).
#[test]
fn explore_plot_has_at_most_eight_series_per_panel_and_draws_every_combination_once() {
    let d = tmp("explore-plot");
    let (csv, svg) = (d.join("e.csv"), d.join("e.svg"));
    let figures = ["quads", "covered_samples", "subtiles_walked"];
    ok(&bin()
        .env("CI", "1")
        .args([
            "explore",
            "--tile",
            "16,32,64",
            "--subtile",
            "4,8",
            "--msaa",
            "1,2,4,8",
            "--colours",
            "1,2",
            "--coverage-test",
            "edge,bbox_only",
            "--raster-only",
            "--figures",
            &figures.join(","),
            "--csv",
            csv.to_str().unwrap(),
            "--plot",
            svg.to_str().unwrap(),
        ])
        .output()
        .unwrap());
    // CSV: (figure, non-x values) → value per tile.
    let text = std::fs::read_to_string(&csv).unwrap();
    let mut lines = text.lines();
    let header: Vec<&str> = lines.next().unwrap().split(',').collect();
    let col = |n: &str| header.iter().position(|h| *h == n).unwrap();
    let ticks = ["16", "32", "64"];
    let mut want: BTreeMap<(String, BTreeMap<String, String>), Vec<f64>> = BTreeMap::new();
    for l in lines {
        let v: Vec<&str> = l.split(',').collect();
        let key: BTreeMap<String, String> = [
            ("subtile", v[col("subtile_w")]),
            ("msaa", v[col("msaa")]),
            ("colours", v[col("colours_per_pixel")]),
            ("coverage", v[col("coverage_test")]),
        ]
        .into_iter()
        .map(|(k, x)| (k.to_string(), x.to_string()))
        .collect();
        let xi = ticks.iter().position(|t| *t == v[col("tile_w")]).unwrap();
        for f in figures {
            let e = want.entry((f.to_string(), key.clone())).or_insert(vec![f64::NAN; 3]);
            e[xi] = v[col(f)].parse().unwrap();
        }
    }
    assert_eq!(want.len(), 3 * 32);

    let s = std::fs::read_to_string(&svg).unwrap();
    usvg::Tree::from_str(&s, &usvg::Options::default()).expect("the plot is valid SVG");
    let pieces = plot_pieces(&s);
    let panels: Vec<&PlotPiece> = pieces.iter().filter(|p| p.class == "panel").collect();
    let legends: BTreeMap<&str, &PlotPiece> = pieces
        .iter()
        .filter(|p| p.class == "legend")
        .map(|p| (p.group.as_str(), p))
        .collect();
    assert!(
        legends.len() > 1,
        "32 combinations need several groups: {}",
        legends.len()
    );
    assert_eq!(panels.len(), legends.len() * figures.len());
    let right_of_panels = panels.iter().map(|p| p.x + p.w).fold(0.0, f64::max);
    let mut entries: BTreeMap<&str, Vec<(String, String)>> = BTreeMap::new();
    for (g, l) in &legends {
        let e = legend_entries(&l.body);
        assert!((1..=8).contains(&e.len()), "legend {g}: {} entries", e.len());
        let labels: Vec<&str> = e.iter().map(|x| x.1.as_str()).collect();
        for (i, (c, label)) in e.iter().enumerate() {
            assert!(!label.is_empty() && label.len() <= 32, "legend {g}: label `{label}`");
            assert!(!labels[..i].contains(&label.as_str()), "legend {g}: `{label}` twice");
            assert!(!e[..i].iter().any(|x| x.0 == *c), "legend {g}: colour {c} twice");
            // Fits: 12.9 px sans-serif is under 8 px per character, from x = 46.
            assert!(
                46.0 + 8.0 * label.len() as f64 <= l.w,
                "legend {g}: `{label}` wider than {}",
                l.w
            );
        }
        assert!(l.x >= right_of_panels, "legend {g} at x {} overlaps the panels", l.x);
        let top = panels
            .iter()
            .filter(|p| p.group == *g)
            .map(|p| p.y)
            .fold(f64::INFINITY, f64::min);
        assert_eq!(l.y, top, "legend {g} beside its group's first row of panels");
        entries.insert(g, e);
    }
    let mut drawn: BTreeMap<(String, BTreeMap<String, String>), usize> = BTreeMap::new();
    let mut ys: BTreeMap<String, Vec<(f64, f64)>> = BTreeMap::new();
    let mut panels_with_distinct_lines = 0;
    for p in &panels {
        let lines = series_lines(&p.body);
        let e = &entries[p.group.as_str()];
        assert!(
            !lines.is_empty() && lines.len() <= 8 && lines.len() == e.len(),
            "panel {} {}: {} series, legend {}",
            p.figure,
            p.group,
            lines.len(),
            e.len()
        );
        assert!(
            p.body.contains(&format!("\n{} ({})\n", p.figure, p.group)),
            "caption of {}",
            p.figure
        );
        let mut distinct_ys = std::collections::BTreeSet::new();
        for (colour, pts) in &lines {
            let label = &e
                .iter()
                .find(|x| x.0 == *colour)
                .expect("series colour in the legend")
                .1;
            let mut key = values_map(&p.group);
            key.extend(values_map(label));
            *drawn.entry((p.figure.clone(), key.clone())).or_default() += 1;
            assert_eq!(pts.len(), 3, "{label}: one point per tile size");
            assert!(pts.windows(2).all(|w| w[0].0 < w[1].0), "{label}: x increases");
            let v = &want[&(p.figure.clone(), key)];
            for (i, q) in pts.iter().enumerate() {
                ys.entry(p.figure.clone()).or_default().push((v[i], q.1));
            }
            distinct_ys.insert(pts.iter().map(|q| q.1 as i64).collect::<Vec<_>>());
        }
        if distinct_ys.len() > 1 {
            panels_with_distinct_lines += 1;
        }
    }
    let missing: Vec<_> = want.keys().filter(|k| !drawn.contains_key(*k)).collect();
    assert!(missing.is_empty(), "not drawn: {missing:?}");
    let twice: Vec<_> = drawn.iter().filter(|(_, n)| **n != 1).collect();
    assert!(twice.is_empty(), "drawn more than once: {twice:?}");
    assert_eq!(drawn.len(), want.len());
    // One y scale per figure, the same in every panel: y is affine in the value (SVG y down),
    // from the points of the smallest and largest value, within a pixel of rounding.
    for (f, v) in &ys {
        let lo = v
            .iter()
            .copied()
            .fold((f64::INFINITY, 0.0), |a, q| if q.0 < a.0 { q } else { a });
        let hi = v
            .iter()
            .copied()
            .fold((f64::NEG_INFINITY, 0.0), |a, q| if q.0 > a.0 { q } else { a });
        if f == "quads" {
            continue; // nearly constant here: a few pixels, too few for a scale
        }
        assert!(
            hi.0 > lo.0 && hi.1 + 50.0 < lo.1,
            "{f}: values {lo:?}..{hi:?} span under 50 px"
        );
        let k = (hi.1 - lo.1) / (hi.0 - lo.0);
        for q in v {
            let y = lo.1 + (q.0 - lo.0) * k;
            assert!(
                (q.1 - y).abs() <= 1.5,
                "{f}: {} drawn at y {}, the scale puts it at {y:.1}",
                q.0,
                q.1
            );
        }
    }
    // covered_samples grows with msaa: its panels show lines at different heights.
    assert!(panels_with_distinct_lines > 0);
}

#[test]
fn explore_skips_combinations_invalid_only_together() {
    // tile 4 with the preset's 8x8 sub-tile is invalid only in combination: skipped, noted.
    let o = run(&["explore", "--tile", "4,32", "--raster-only"]);
    let out = ok(&o);
    assert_eq!(out.lines().count(), 2, "{out}");
    let err = String::from_utf8_lossy(&o.stderr);
    assert!(
        err.lines().count() == 1 && err.starts_with("note: skipping tile=4"),
        "{err}"
    );
    // Every combination invalid: an error.
    let o = run(&["explore", "--tile", "4", "--raster-only"]);
    assert_one_line_error(&o, &["<builtin default>", "every combination is invalid"]);
}

/// `explore` spreads its combinations over a rayon pool (`RAYON_NUM_THREADS`): a 1-thread run
/// and 4-thread runs give the same table, CSV and plot byte for byte. The sweep mixes cheap
/// and costly combinations (tile 16 / 64, MSAA 1 / 16, one or four colours), so that
/// combinations finish out of sweep order on several threads; a pool of 4 threads on fewer
/// cores still interleaves them.
#[test]
fn explore_on_many_threads_is_byte_for_byte_the_serial_run() {
    let d = tmp("explore-threads");
    let sweep = |threads: &str| {
        let csv = d.join(format!("t{threads}.csv"));
        let svg = d.join(format!("t{threads}.svg"));
        let o = bin()
            .env("CI", "1")
            .env("RAYON_NUM_THREADS", threads)
            .args([
                "explore",
                "--tile",
                "64,16,32",
                "--msaa",
                "16,1,4",
                "--colours",
                "4,1",
                "--figures",
                "quads,covered_samples,storage_blocks,blend_cycles",
                "--csv",
                csv.to_str().unwrap(),
                "--plot",
                svg.to_str().unwrap(),
            ])
            .output()
            .unwrap();
        let out = ok(&o);
        (
            out,
            String::from_utf8(o.stderr).unwrap(),
            std::fs::read_to_string(&csv).unwrap(),
            std::fs::read_to_string(&svg).unwrap(),
        )
    };
    let one = sweep("1");
    assert_eq!(one.2.lines().count(), 1 + 18, "{}", one.2);
    // Sweep order: tile 64 first as listed, msaa 16 first, colours 4 first.
    assert!(
        one.2.lines().nth(1).unwrap().starts_with("64,64,8,8,16,4,"),
        "{}",
        one.2
    );
    for _ in 0..3 {
        let many = sweep("4");
        assert!(
            many.0 == one.0,
            "stdout differs:\n1 thread:\n{}\n4 threads:\n{}",
            one.0,
            many.0
        );
        assert!(many.1 == one.1, "stderr differs:\n{}\n{}", one.1, many.1);
        assert!(
            many.2 == one.2,
            "CSV differs:\n1 thread:\n{}\n4 threads:\n{}",
            one.2,
            many.2
        );
        assert!(many.3 == one.3, "plot SVG differs");
    }
}
// ---------------------------------------------------------------------------------------------
// import

fn check_imported(json: &Path, expect_tris: Option<usize>) -> Scene {
    let scene = Scene::load(json).unwrap();
    let frame = scene.to_frame("i").unwrap();
    assert!(!frame.prims.is_empty());
    if let Some(n) = expect_tris {
        assert_eq!(frame.prims.len(), n);
    }
    let [w, h] = frame.cfg.viewport;
    for p in &frame.prims {
        let PrimitiveFx::Triangle(t) = p else {
            panic!("import makes triangles only")
        };
        for v in t.v {
            assert!(
                v[0] >= 0 && v[0] <= (w as i32) * 256 && v[1] >= 0 && v[1] <= (h as i32) * 256,
                "{v:?} outside the viewport"
            );
        }
    }
    scene
}

fn rendered_coverage(scene: &Path) -> (u64, Png) {
    let d = scene.parent().unwrap();
    let png = d.join("r.png");
    ok(&run(&["render", scene.to_str().unwrap(), "-o", png.to_str().unwrap()]));
    let text = ok(&run(&["raster", scene.to_str().unwrap()]));
    let s: serde_json::Value = serde_json::from_str(text.lines().last().unwrap()).unwrap();
    (s["summary"]["samples"].as_u64().unwrap(), Png::load(&png))
}

#[test]
fn obj_import_renders_a_lit_cube() {
    let d = tmp("obj");
    let json = d.join("cube.json");
    let s = ok(&run(&["import", &data("cube.obj"), "-o", json.to_str().unwrap()]));
    assert!(s.contains("12 primitives"), "{s}");
    let scene = check_imported(&json, Some(12));
    // Two materials: red-ish and blue-ish triangles both present.
    let cols: Vec<[u8; 4]> = scene
        .primitives
        .iter()
        .map(|p| match p {
            tilerast_golden::scene::Primitive::Triangle(t) => t.colour,
            _ => unreachable!(),
        })
        .collect();
    assert!(cols.iter().any(|c| c[0] > c[2]) && cols.iter().any(|c| c[2] > c[0]));
    let (samples, img) = rendered_coverage(&json);
    assert!(samples > 1000, "{samples}");
    // Fitted and centred: the viewport centre shows the cube, the corner the background.
    assert!(!close(img.at(320, 240), [16, 16, 24], 4), "{:?}", img.at(320, 240));
    assert!(close(img.at(2, 2), [16, 16, 24], 1));
    // Rendering the OBJ directly gives the same image.
    let direct = d.join("direct.png");
    ok(&run(&["render", &data("cube.obj"), "-o", direct.to_str().unwrap()]));
    assert_eq!(Png::load(&direct).rgba, img.rgba);
}

#[test]
fn svg_import_renders_shapes_in_place() {
    let d = tmp("svg");
    let json = d.join("shapes.json");
    ok(&run(&[
        "import",
        &data("shapes.svg"),
        "-o",
        json.to_str().unwrap(),
        "--preset",
        "ice40",
    ]));
    let scene = check_imported(&json, None);
    assert_eq!(scene.config.get("preset").and_then(|v| v.as_str()), Some("ice40"));
    let (samples, img) = rendered_coverage(&json);
    assert!(samples > 1000, "{samples}");
    assert_eq!((img.w, img.h), (160, 120));
    // Canvas 200x150 → 160x120 with a 5% margin: scale s = min(144/200, 108/150) = 0.72,
    // offset (8, 6); screen X = 8 + 0.72·x, Y = 6 + 0.72·(150 − y) (y flipped). The gradient
    // rectangle x 10..190, y 10..70 → X 15.2..144.8, Y 63.6..106.8; pixel (30, 90) is inside
    // and shows the first stop's colour #3060c0.
    assert!(close(img.at(30, 90), [0x30, 0x60, 0xc0], 2), "{:?}", img.at(30, 90));
    // The circle's centre (100,100) → (80, 42), radius 30·0.72 = 21.6: orange #f0a020.
    assert!(close(img.at(80, 42), [0xf0, 0xa0, 0x20], 2), "{:?}", img.at(80, 42));
    // White background outside the drawing (SVG import default background).
    assert!(close(img.at(1, 1), [255, 255, 255], 1));
}

#[test]
fn import_to_stdout_is_a_valid_scene() {
    let text = ok(&run(&["import", &data("shapes.svg")]));
    let s = Scene::from_json(&text, "stdout").unwrap();
    assert!(s.to_frame("stdout").is_ok());
}

// ---------------------------------------------------------------------------------------------
// errors

fn assert_one_line_error(o: &Output, needles: &[&str]) {
    let err = String::from_utf8_lossy(&o.stderr);
    assert!(!o.status.success(), "must fail: {err}");
    assert_ne!(o.status.code(), Some(101), "a panic: {err}");
    assert_eq!(err.lines().count(), 1, "exactly one stderr line: {err:?}");
    assert!(err.starts_with("error: "), "{err}");
    assert!(!err.contains("panicked"), "{err}");
    for n in needles {
        assert!(err.contains(n), "stderr {err:?} should name {n:?}");
    }
}

/// `synth --frame` (the board top with a screen): a board is needed, one with a frame row, and
/// the options that would change its core are refused, each in one line before any tool runs.
#[test]
fn error_synth_frame_needs_a_board_with_a_frame_row() {
    assert_one_line_error(&run(&["synth", "--frame"]), &["--frame", "--board"]);
    assert_one_line_error(
        &run(&["synth", "--board", "hx8k", "--frame"]),
        &["hx8k", "no frame row", "ulx3s"],
    );
    assert_one_line_error(
        &run(&["synth", "--board", "ulx3s", "--frame", "--preset", "ice40"]),
        &["--frame", "--preset"],
    );
}

#[test]
fn error_bad_json_names_file_and_line() {
    let f = data("bad_syntax.json");
    let o = run(&["render", &f, "-o", "/dev/null.png"]);
    assert_one_line_error(&o, &["bad_syntax.json", "line 5"]);
    assert_eq!(o.status.code(), Some(1));
}

#[test]
fn error_unknown_field_names_it() {
    let o = run(&["raster", &data("unknown_field.json")]);
    assert_one_line_error(&o, &["unknown_field.json", "line 3", "shade"]);
}

#[test]
fn error_nan_in_obj_names_the_line() {
    let o = run(&["import", &data("nan.obj")]);
    assert_one_line_error(&o, &["nan.obj", "line 4", "not a finite"]);
    let o = run(&["render", &data("nan.obj"), "-o", "x.png"]);
    assert_one_line_error(&o, &["nan.obj", "line 4"]);
}

#[test]
fn error_guard_band_names_the_field() {
    let o = run(&["raster", &data("guard_band.json")]);
    assert_one_line_error(&o, &["guard_band.json", "primitives[1].triangle.v[2].y", "guard band"]);
}

#[test]
fn error_unreadable_file() {
    let o = run(&["raster", "/nonexistent/dir/scene.json"]);
    assert_one_line_error(&o, &["/nonexistent/dir/scene.json"]);
    let o = run(&["import", "/nonexistent/m.obj"]);
    assert_one_line_error(&o, &["/nonexistent/m.obj", "read"]);
}

#[test]
fn error_unknown_extension() {
    let o = run(&["render", &data("scene.txt")]);
    assert_one_line_error(&o, &["scene.txt", "unknown scene extension `.txt`"]);
}

#[test]
fn error_bad_tile_values() {
    let o = run(&["explore", "--tile", "16,abc"]);
    assert_one_line_error(&o, &["--tile", "abc"]);
    let o = run(&["explore", "--tile", "16,3"]);
    assert_one_line_error(&o, &["--tile", "3", "config.tile"]);
    let o = run(&["explore", "--msaa", "5"]);
    assert_one_line_error(&o, &["--msaa", "5"]);
    let o = run(&[
        "explore",
        "--tile",
        "16,32",
        "--plot",
        "x.svg",
        "--figures",
        "quads,nope",
    ]);
    assert_one_line_error(&o, &["--figures", "nope", "unknown figure"]);
    let o = run(&["explore", "--figures", "nope"]);
    assert_one_line_error(&o, &["--figures", "nope", "unknown figure"]);
}

#[test]
fn error_bad_sweep_values() {
    let o = run(&["explore", "--sweep", "quads_per_clock"]);
    assert_one_line_error(&o, &["--sweep", "quads_per_clock", "expected FIELD=V1,V2"]);
    let o = run(&["explore", "--sweep", "nope=1,2"]);
    assert_one_line_error(&o, &["--sweep", "nope", "unknown config field", "second_tile"]);
    let o = run(&["explore", "--sweep", "quads_per_clock=1,x"]);
    assert_one_line_error(&o, &["--sweep", "quads_per_clock=x", "whole number"]);
    let o = run(&["explore", "--sweep", "second_tile=64x32,3"]);
    assert_one_line_error(&o, &["--sweep", "second_tile=3", "config.second_tile"]);
    let o = run(&["explore", "--sweep", "depth_func=sideways"]);
    assert_one_line_error(&o, &["--sweep", "depth_func=sideways", "unknown variant"]);
    let o = run(&["explore", "--msaa", "1,4", "--sweep", "msaa=4,16"]);
    assert_one_line_error(&o, &["--sweep", "msaa=4,16", "swept twice"]);
}

/// `--sweep` takes any config field and `--cycles` adds the frame top's cycle model: the CSV's
/// cycle figures are `run_frames`'s own for each combination (built here from the scene's
/// config, not by explore), the swept values change the hardware's figures (the raster core
/// alone is faster at 2 quads per clock), and a combination the frame top is not built for
/// gets empty cells and a note naming the field.
#[test]
fn explore_sweeps_any_field_and_reports_the_frame_cycles() {
    use tilerast_golden::frame::run_frames;
    use tilerast_golden::pixel_back_end::MemBehaviour;
    let d = tmp("explore-cycles");
    let csv = d.join("c.csv");
    let scene = Path::new(env!("CARGO_MANIFEST_DIR")).join("../scenes/points.json");
    let o = bin()
        .env("CI", "1")
        .args(["explore", scene.to_str().unwrap(), "--cycles", "--quiet"])
        .args(["--sweep", "quads_per_clock=1,2,4", "--sweep", "second_tile=32x16,64x32"])
        .arg("--csv")
        .arg(&csv)
        .output()
        .unwrap();
    let out = ok(&o);
    let err = String::from_utf8_lossy(&o.stderr);
    assert_eq!(err.matches("note: no cycle figures for").count(), 2, "{err}");
    assert!(
        err.contains("quads_per_clock=4") && err.contains("config.quads_per_clock"),
        "{err}"
    );
    assert!(
        out.lines().next().unwrap().contains("quads_per_clock  second_tile"),
        "{out}"
    );
    let text = std::fs::read_to_string(&csv).unwrap();
    let mut lines = text.lines();
    let header: Vec<&str> = lines.next().unwrap().split(',').collect();
    let col = |n: &str| {
        header
            .iter()
            .position(|h| *h == n)
            .unwrap_or_else(|| panic!("{n} in {header:?}"))
    };
    let rows: Vec<Vec<&str>> = lines.map(|l| l.split(',').collect()).collect();
    assert_eq!(rows.len(), 6, "{text}");
    let base = Scene::load(&scene).unwrap().to_frame("points").unwrap();
    let mut core = Vec::new();
    for r in &rows {
        let qpc: u32 = r[col("quads_per_clock")].parse().unwrap();
        let st = r[col("second_tile")];
        if qpc == 4 {
            assert!(
                r[col("frame_cycles")].is_empty() && r[col("fps_ulx3s")].is_empty(),
                "{r:?}"
            );
            continue;
        }
        let mut f = base.clone();
        f.cfg.quads_per_clock = qpc;
        f.cfg.second_tile = if st == "32x16" { [32, 16] } else { [64, 32] };
        let run = run_frames(&f.cfg, &[&f], MemBehaviour::default(), u64::MAX).unwrap();
        let want = run.frames[0].cycles;
        assert!(want > 0 && run.frames[0].stats.tiles_done > 0);
        assert_eq!(r[col("frame_cycles")].parse::<u64>().unwrap(), want, "{r:?}");
        let bytes: u64 = run.frames[0].stats.clients.iter().map(|c| c.bytes).sum();
        assert_eq!(r[col("port_bytes")].parse::<u64>().unwrap(), bytes, "{r:?}");
        core.push((qpc, r[col("raster_core_cycles")].parse::<u64>().unwrap()));
    }
    let at = |q: u32| core.iter().find(|c| c.0 == q).unwrap().1;
    assert!(at(2) < at(1), "{core:?}");
    // The on-chip RAM, in every row (refused tops too): a 64x32 second tile holds more.
    let ram = |st: &str| -> Vec<u64> {
        rows.iter()
            .filter(|r| r[col("second_tile")] == st)
            .map(|r| r[col("ram_bits")].parse::<u64>().unwrap())
            .collect()
    };
    let (small, large) = (ram("32x16"), ram("64x32"));
    assert_eq!((small.len(), large.len()), (3, 3));
    assert!(
        small.iter().all(|&b| b > 100_000 && b < large[0]),
        "{small:?} {large:?}"
    );
    std::fs::remove_dir_all(&d).ok();
}

/// A combination whose frame top would not fit the chip's block RAM gets no cycle figures and
/// a note naming `second_tile`, with the RAM it would need in its row.
#[test]
fn explore_names_the_field_when_the_frame_ram_would_not_fit() {
    let d = tmp("explore-ram");
    let csv = d.join("c.csv");
    let scene = Path::new(env!("CARGO_MANIFEST_DIR")).join("../scenes/points.json");
    let o = bin()
        .env("CI", "1")
        .args([
            "explore",
            scene.to_str().unwrap(),
            "--cycles",
            "--quiet",
            "--msaa",
            "4,16",
        ])
        .args(["--sweep", "second_tile=64x32"])
        .arg("--csv")
        .arg(&csv)
        .output()
        .unwrap();
    ok(&o);
    let err = String::from_utf8_lossy(&o.stderr);
    assert_eq!(err.matches("note: no cycle figures for").count(), 1, "{err}");
    assert!(err.contains("config.second_tile: 64x32 at 16x MSAA needs "), "{err}");
    let text = std::fs::read_to_string(&csv).unwrap();
    let header: Vec<&str> = text.lines().next().unwrap().split(',').collect();
    let at = |n: &str| header.iter().position(|h| *h == n).unwrap();
    let rows: Vec<Vec<&str>> = text.lines().skip(1).map(|l| l.split(',').collect()).collect();
    assert_eq!(rows.len(), 2, "{text}");
    let sixteen = rows.iter().find(|r| r[at("msaa")] == "16").unwrap();
    assert!(sixteen[at("frame_cycles")].is_empty(), "{sixteen:?}");
    // Over the budget: the ECP5-85F's 208 EBRs of 18 Kibit less 14 for a board top.
    let bits: u64 = sixteen[at("ram_bits")].parse().unwrap();
    assert!(bits > (208 - 14) * 18 * 1024, "{sixteen:?}");
    std::fs::remove_dir_all(&d).ok();
}

/// The terminal table shows the parameters and the chosen figures (a handful by default), so
/// it fits a terminal; the CSV keeps every figure.
#[test]
fn explore_table_shows_the_chosen_figures() {
    let params = "tile_w  tile_h  subtile_w  subtile_h  msaa  colours_per_pixel  coverage_test";
    let out = ok(&bin()
        .env("CI", "1")
        .args(["explore", "--tile", "16,32", "--raster-only"])
        .output()
        .unwrap());
    let header: Vec<&str> = out.lines().next().unwrap().split_whitespace().collect();
    assert_eq!(header.len(), 7 + 5, "{out}");
    assert!(
        header.contains(&"quads") && header.contains(&"prim_list_bytes"),
        "{out}"
    );
    assert!(
        out.lines().all(|l| l.len() <= 160),
        "table wider than 160 columns:\n{out}"
    );
    let out = ok(&bin()
        .env("CI", "1")
        .args([
            "explore",
            "--tile",
            "16,32",
            "--raster-only",
            "--figures",
            "quads,subtiles_trivial",
        ])
        .output()
        .unwrap());
    let header: Vec<&str> = out.lines().next().unwrap().split_whitespace().collect();
    assert_eq!(header.join("  "), format!("{params}  quads  subtiles_trivial"), "{out}");
    assert_eq!(out.lines().count(), 3, "{out}");
    // The quads column is a number and grows with work (the default scene covers pixels).
    let quads: f64 = out
        .lines()
        .nth(1)
        .unwrap()
        .split_whitespace()
        .nth(7)
        .unwrap()
        .parse()
        .unwrap();
    assert!(quads > 0.0, "{out}");
}

#[test]
fn error_bad_output_and_preset() {
    let o = run(&["render", "-o", "/nonexistent/dir/x.png"]);
    assert_one_line_error(&o, &["/nonexistent/dir/x.png", "write"]);
    let o = run(&["render", "-o", "x.jpg"]);
    assert_one_line_error(&o, &["x.jpg"]);
    let o = run(&["render", "--preset", "nope", "-o", "x.png"]);
    assert_one_line_error(&o, &["--preset", "nope"]);
    let o = run(&["import", &data("cube.obj"), "--view", "0,0,0"]);
    assert_one_line_error(&o, &["--view"]);
    let o = run(&["import", &default_scene_path()]);
    assert_one_line_error(&o, &["default.json", "already a JSON scene"]);
}

// ---------------------------------------------------------------------------------------------
// bad input: one clear line, exit code 1, never a panic

/// Write `body` to `name` in a fresh per-test directory.
fn write_tmp(dir: &Path, name: &str, body: &[u8]) -> String {
    let p = dir.join(name);
    std::fs::write(&p, body).unwrap();
    p.display().to_string()
}

const ONE_TRI: &str = r#"{"triangle":{"v":[[0,0],[10,0],[0,10]],"colour":[1,2,3,4]}}"#;

#[test]
fn error_huge_canvas_is_refused_with_the_size_it_would_need() {
    let d = tmp("huge-canvas");
    let f = write_tmp(
        &d,
        "big.json",
        format!(r#"{{"config":{{"viewport":[2048,2048]}},"primitives":[{ONE_TRI}]}}"#).as_bytes(),
    );
    let out = d.join("x.png");
    let o = run(&["render", &f, "--scale", "16", "-o", out.to_str().unwrap()]);
    assert_one_line_error(&o, &["--scale", "32768x32768", "4096 MiB", "limit 1024 MiB"]);
    assert_eq!(o.status.code(), Some(1));
    assert!(!out.exists(), "nothing written");
}

#[test]
fn error_render_that_cannot_fit_is_refused_up_front_with_its_size() {
    // The largest valid config (4096², 16x, 16 colours): a 1 GiB framebuffer; at scale 4 the
    // canvas (16384², exactly the canvas limit) adds 1 GiB more: over the 2 GiB limit.
    let d = tmp("render-memory");
    let f = write_tmp(
        &d,
        "big.json",
        format!(r#"{{"config":{{"viewport":[4096,4096],"msaa":16,"colours_per_pixel":16}},"primitives":[{ONE_TRI}]}}"#)
            .as_bytes(),
    );
    let out = d.join("x.png");
    let t0 = std::time::Instant::now();
    let o = run(&["render", &f, "--scale", "4", "-o", out.to_str().unwrap()]);
    assert_one_line_error(
        &o,
        &[
            "big.json",
            "memory",
            "would need 21",
            "canvas 1024 MiB",
            "limit 2048 MiB",
        ],
    );
    assert_eq!(o.status.code(), Some(1));
    assert!(!out.exists(), "nothing written");
    assert!(t0.elapsed().as_secs() < 20, "refused before rendering");
}

/// An overdraw scene past what the modelled pixel-info memory can hold: 30 000 triangles over
/// the whole `full` viewport (about 3 MB of JSON) need about 330 GiB of pixel info, more than
/// the 256 GiB that 32-bit block indices reach, so it is refused before rasterizing (the
/// issue's 10 000 at `default` used to abort after 18 GB of host memory), in one line with the
/// size.
#[test]
fn error_overdraw_scene_whose_pixel_info_cannot_fit_is_refused_up_front() {
    let d = tmp("render-overdraw");
    let tri = r#"{"triangle":{"v":[[-1,-1],[4000,-1],[-1,4000]],"colour":[200,100,50,255],"depth":0.5}}"#;
    let prims = vec![tri; 30_000].join(",");
    let f = write_tmp(
        &d,
        "overdraw.json",
        format!(r#"{{"config":{{"preset":"full","guard_band":4096}},"primitives":[{prims}]}}"#).as_bytes(),
    );
    let out = d.join("x.png");
    let t0 = std::time::Instant::now();
    let o = run(&["render", &f, "-o", out.to_str().unwrap()]);
    assert_one_line_error(
        &o,
        &[
            "overdraw.json",
            "pixel_info",
            "needs at least",
            "more than the 256.0 GiB",
            "refused before rasterizing",
        ],
    );
    assert_eq!(o.status.code(), Some(1));
    assert!(!out.exists(), "nothing written");
    assert!(t0.elapsed().as_secs() < 20, "refused before rendering");
}

#[test]
fn render_largest_valid_config_at_scale_1() {
    // The same config at scale 1 fits (the stream holds tiles, not the frame): it renders.
    let d = tmp("render-largest");
    let f = write_tmp(
        &d,
        "big.json",
        format!(r#"{{"config":{{"viewport":[4096,4096],"msaa":16,"colours_per_pixel":16}},"primitives":[{ONE_TRI}]}}"#)
            .as_bytes(),
    );
    let out = d.join("x.png");
    let s = ok(&run(&["render", &f, "-o", out.to_str().unwrap()]));
    assert!(s.contains("wrote") && s.contains("(4096x4096)"), "{s}");
    let png = Png::load(&out);
    assert_eq!((png.w, png.h), (4096, 4096));
}

#[cfg(unix)]
#[test]
fn error_endless_input_stops_at_the_size_limit() {
    let d = tmp("endless");
    for name in ["zero.json", "zero.obj", "zero.svg"] {
        let p = d.join(name);
        std::os::unix::fs::symlink("/dev/zero", &p).unwrap();
        let o = run(&["render", p.to_str().unwrap(), "-o", d.join("x.png").to_str().unwrap()]);
        assert_one_line_error(&o, &[name, "read", "64 MiB limit"]);
    }
}

#[test]
fn error_empty_and_positional_scenes_are_refused() {
    let d = tmp("positional");
    let cases: [(&str, &str, &[&str]); 5] = [
        ("empty_array.json", "[]", &["scene: expected an object", "got an array"]),
        ("empty_object.json", "{}", &["primitives", "scene has no primitives"]),
        ("no_prims.json", r#"{"primitives":[]}"#, &["scene has no primitives"]),
        (
            "tri_array.json",
            r#"{"primitives":[{"triangle":[[[0,0],[10,0],[0,10]],[1,2,3,4],0]}]}"#,
            &["line 1 column", "primitives[0].triangle: expected an object"],
        ),
        (
            "point_array.json",
            r#"{"primitives":[{"point":[[1,1],2,[1,2,3,4],0,false]}]}"#,
            &["primitives[0].point: expected an object"],
        ),
    ];
    for (name, body, needles) in cases {
        let f = write_tmp(&d, name, body.as_bytes());
        let o = run(&["raster", &f]);
        let mut all = vec![name];
        all.extend_from_slice(needles);
        assert_one_line_error(&o, &all);
    }
}

#[test]
fn error_duplicate_keys_name_the_key_and_its_path() {
    let d = tmp("duplicates");
    let f = write_tmp(
        &d,
        "dup.json",
        format!("{{\"config\": {{\"msaa\": 4,\n \"msaa\": 8}}, \"primitives\": [{ONE_TRI}]}}").as_bytes(),
    );
    let o = run(&["raster", &f]);
    assert_one_line_error(&o, &["dup.json", "line 2", r#"config: duplicate key "msaa""#]);
    let f = write_tmp(
        &d,
        "dup_colour.json",
        br#"{"primitives":[{"triangle":{"v":[[0,0],[10,0],[0,10]],"colour":[1,2,3,4],"colour":[1,2,3,4]}}]}"#,
    );
    let o = run(&["raster", &f]);
    assert_one_line_error(&o, &[r#"primitives[0].triangle: duplicate key "colour""#]);
}

#[test]
fn error_messages_name_the_field_and_what_was_expected() {
    let d = tmp("messages");
    let tri = |v: &str| format!(r#"{{"primitives":[{{"triangle":{{"v":{v},"colour":[1,2,3,4]}}}}]}}"#);
    let cases: Vec<(String, Vec<&str>)> = vec![
        (
            tri("[[0,0],[5e6,0],[0,10]]"),
            vec!["primitives[0].triangle.v[1].x: 5000000 is outside the guard band [-256, 896]"],
        ),
        (
            tri("[[0,0],[10,0,1],[0,10]]"),
            vec!["primitives[0].triangle.v[1]: vertex has 3 coordinates, expected 2 (x, y)"],
        ),
        (
            format!(r#"{{"config":{{"msaa":"4"}},"primitives":[{ONE_TRI}]}}"#),
            vec![r#"config.msaa: expected an integer 1, 2, 4, 8 or 16, got "4""#],
        ),
        (
            format!(r#"{{"config":{{"tile":32}},"primitives":[{ONE_TRI}]}}"#),
            vec!["config.tile: expected [width, height], two positive integers, got 32"],
        ),
        (
            format!(r#"{{"config":{{"cull":"front"}},"primitives":[{ONE_TRI}]}}"#),
            vec![r#"config.cull: expected one of "none", "cw", "ccw", got "front""#],
        ),
    ];
    for (i, (body, needles)) in cases.iter().enumerate() {
        let f = write_tmp(&d, &format!("m{i}.json"), body.as_bytes());
        let o = run(&["raster", &f]);
        let err = String::from_utf8_lossy(&o.stderr);
        assert!(!err.contains("not a finite") && !err.contains("trailing"), "{err}");
        let mut all = vec![format!("m{i}.json")];
        all.extend(needles.iter().map(|s| s.to_string()));
        assert_one_line_error(&o, &all.iter().map(String::as_str).collect::<Vec<_>>());
    }
}

#[test]
fn byte_order_marks_are_skipped_in_json_obj_and_svg() {
    let d = tmp("bom");
    let bom = |s: &str| [b"\xef\xbb\xbf".as_slice(), s.as_bytes()].concat();
    let json = write_tmp(&d, "b.json", &bom(&format!(r#"{{"primitives":[{ONE_TRI}]}}"#)));
    assert!(ok(&run(&["raster", &json])).contains("summary"));
    // Without the fix the BOM hid the first `v` line, so face index 3 was out of range.
    let obj = write_tmp(&d, "b.obj", &bom("v 0 0 0\nv 1 0 0\nv 0 1 0\nf 1 2 3\n"));
    let s = Scene::from_json(&ok(&run(&["import", &obj])), "stdout").unwrap();
    assert_eq!(s.primitives.len(), 1);
    let svg = write_tmp(
        &d,
        "b.svg",
        &bom(r#"<svg xmlns="http://www.w3.org/2000/svg" width="10" height="10"><rect width="5" height="5"/></svg>"#),
    );
    let s = Scene::from_json(&ok(&run(&["import", &svg])), "stdout").unwrap();
    assert!(!s.primitives.is_empty());
}

#[test]
fn error_obj_errors_all_carry_line_numbers() {
    let d = tmp("obj-lines");
    let head = "v 0 0 0\nv 1 0 0\nv 0 1 0\nvt 0 0\n";
    let cases: [(&str, &[&str]); 5] = [
        (
            "f 1/1 2/1 3/5\n",
            &["line 5", "texture coordinate index 5 is out of range"],
        ),
        ("f 1//7 2//1 3//1\n", &["line 5", "normal index 7 is out of range"]),
        ("vt 0.5\nf 1 2 3\n", &["line 5", "texture coordinate needs 2 numbers"]),
        ("v 1 2\nf 1 2 3\n", &["line 5", "vertex has 2 values"]),
        // Not caught by the prescan (tobj splits `usemtl` at a space): found by bisection.
        ("usemtl\tred\nf 1 2 3\n", &["line 5"]),
    ];
    for (i, (tail, needles)) in cases.iter().enumerate() {
        let name = format!("o{i}.obj");
        let f = write_tmp(&d, &name, format!("{head}{tail}").as_bytes());
        let o = run(&["import", &f]);
        let mut all = vec![name.as_str()];
        all.extend_from_slice(needles);
        assert_one_line_error(&o, &all);
    }
}

#[test]
fn error_svg_parse_errors_carry_line_and_column() {
    let d = tmp("svg-lines");
    let f = write_tmp(
        &d,
        "bad.svg",
        b"<svg xmlns=\"http://www.w3.org/2000/svg\">\n<rect x=\"1\" y=2/>\n</svg>",
    );
    let o = run(&["import", &f]);
    assert_one_line_error(&o, &["bad.svg: line 2 column 15: expected a quote"]);
    let f = write_tmp(&d, "cut.svg", b"<svg xmlns=\"http://www.w3.org/2000/svg\">\n<rect");
    let o = run(&["import", &f]);
    assert_one_line_error(&o, &["cut.svg: line 2 column"]);
}

// ---------------------------------------------------------------------------------------------
// at scale (issue 37): outputs never overwrite inputs, negative flag values, limits up front

/// The file's bytes, to show a refused command left it alone.
fn bytes_of(p: &Path) -> Vec<u8> {
    std::fs::read(p).unwrap()
}

#[test]
fn error_no_command_writes_over_one_of_its_inputs() {
    let d = tmp("self-overwrite");
    let svg = d.join("X.svg");
    std::fs::copy(data("shapes.svg"), &svg).unwrap();
    let before = bytes_of(&svg);
    let o = run(&["import", svg.to_str().unwrap(), "-o", svg.to_str().unwrap()]);
    assert_one_line_error(&o, &["-o", "X.svg: is the input", "refusing to write over an input"]);
    assert_eq!(bytes_of(&svg), before, "the input is untouched");

    let json = d.join("X.json");
    std::fs::write(&json, format!(r#"{{"primitives":[{ONE_TRI}]}}"#)).unwrap();
    let before = bytes_of(&json);
    // The same file by another name: through `sub/..`, and through a hard link.
    std::fs::create_dir_all(d.join("sub")).unwrap();
    let other = d.join("sub/../X.json");
    for out in [json.clone(), other] {
        let o = run(&["raster", json.to_str().unwrap(), "-o", out.to_str().unwrap()]);
        assert_one_line_error(&o, &["-o", "is the input", "X.json"]);
    }
    #[cfg(unix)]
    {
        let link = d.join("link.jsonl");
        std::fs::hard_link(&json, &link).unwrap();
        let o = run(&["raster", json.to_str().unwrap(), "-o", link.to_str().unwrap()]);
        assert_one_line_error(&o, &["-o", "link.jsonl: is the input", "X.json"]);
    }
    assert_eq!(bytes_of(&json), before, "the input is untouched");
    // explore: a plot over the SVG it reads.
    let o = run(&[
        "explore",
        svg.to_str().unwrap(),
        "--tile",
        "16",
        "--plot",
        svg.to_str().unwrap(),
    ]);
    assert_one_line_error(&o, &["--plot", "is the input"]);
    let o = run(&["explore", json.to_str().unwrap(), "--csv", json.to_str().unwrap()]);
    assert_one_line_error(&o, &["--csv", "is the input"]);
}

#[test]
fn error_an_output_extension_must_match_what_is_written() {
    let d = tmp("out-ext");
    let cases: [(Vec<String>, &str, &[&str]); 5] = [
        (
            vec!["render".into(), "-o".into(), d.join("out.json").display().to_string()],
            "out.json",
            &["-o", "a PNG image", "`.json`", "use a .png file name"],
        ),
        (
            vec![
                "import".into(),
                data("cube.obj"),
                "-o".into(),
                d.join("scene.png").display().to_string(),
            ],
            "scene.png",
            &["-o", "a JSON scene", "use a .json file name"],
        ),
        (
            vec![
                "raster".into(),
                default_scene_path(),
                "-o".into(),
                d.join("q.json").display().to_string(),
            ],
            "q.json",
            &["-o", "JSON lines", "use a .jsonl or .ndjson file name"],
        ),
        (
            vec!["explore".into(), "--csv".into(), d.join("t.txt").display().to_string()],
            "t.txt",
            &["--csv", "use a .csv file name"],
        ),
        (
            vec!["render".into(), "-o".into(), d.join("noext").display().to_string()],
            "noext",
            &["-o", "no extension"],
        ),
    ];
    for (args, name, needles) in cases {
        let args: Vec<&str> = args.iter().map(String::as_str).collect();
        let o = run(&args);
        let mut all = vec![name];
        all.extend_from_slice(needles);
        assert_one_line_error(&o, &all);
        assert!(!d.join(name).exists(), "{name} not written");
    }
    // A device is not a file name: `raster -o /dev/null` stays allowed.
    #[cfg(unix)]
    assert!(run(&["raster", &default_scene_path(), "-o", "/dev/null"])
        .status
        .success());
}

#[test]
fn error_render_checks_its_output_directory_before_rendering() {
    let o = run(&["render", "-o", "/nonexistent/dir/x.png"]);
    assert_one_line_error(
        &o,
        &[
            "/nonexistent/dir/x.png",
            "write",
            "the directory /nonexistent/dir of -o does not exist",
        ],
    );
    assert!(o.stdout.is_empty(), "no summary: nothing was rendered");
}

#[test]
fn negative_flag_values_parse() {
    let d = tmp("negative-flags");
    // A view direction with negative components, as its own word after the flag.
    let a = ok(&run(&["import", &data("cube.obj"), "--view", "-1,-0.5,-2"]));
    let b = ok(&run(&["import", &data("cube.obj"), "--view=-1,-0.5,-2"]));
    assert_eq!(a, b);
    let c = ok(&run(&["import", &data("cube.obj")]));
    assert_ne!(a, c, "the view changed the projection");
    // Negative numbers reach our own range checks (exit 1, naming the flag), not clap's
    // "unexpected argument" (exit 2).
    for (flag, v, needle) in [("--fov", "-10", "(1, 170)"), ("--margin", "-0.5", "[0, 0.5)")] {
        for cmd in ["import", "render"] {
            let png = d.join("x.png");
            let o = if cmd == "import" {
                run(&[cmd, &data("cube.obj"), flag, v])
            } else {
                run(&[cmd, &data("cube.obj"), "-o", png.to_str().unwrap(), flag, v])
            };
            assert_one_line_error(&o, &[&format!("{flag}: {v}: must be"), needle]);
            assert_eq!(o.status.code(), Some(1), "{cmd} {flag} {v}");
        }
    }
}

/// An OBJ of three vertices and one polygon of `n` vertices (a fan of n − 2 triangles): tiny
/// to write, as many triangles as wanted.
fn fan_obj(dir: &Path, name: &str, n: usize) -> String {
    let mut s = String::with_capacity(8 * n + 64);
    s.push_str("v 0 0 0\nv 1 0 0\nv 0 1 0\nf");
    for i in 0..n {
        s.push_str([" 1", " 2", " 3"][i % 3]);
    }
    s.push('\n');
    write_tmp(dir, name, s.as_bytes())
}

#[test]
fn error_import_refuses_a_scene_the_readers_would_refuse() {
    let d = tmp("import-size");
    let out = d.join("big.json");
    // 800 000 triangles need at least 800 000 × 87 bytes = 66.4 MiB: refused from the face
    // count, before tobj triangulates them.
    let f = fan_obj(&d, "many.obj", 800_002);
    let t0 = std::time::Instant::now();
    let o = run(&["import", &f, "-o", out.to_str().unwrap()]);
    assert_one_line_error(
        &o,
        &[
            "many.obj: faces: the scene would be at least 66.4 MiB of JSON (at least 800 000 primitives)",
            "more than the 64.0 MiB limit every command reads back (no flag raises it)",
        ],
    );
    assert!(t0.elapsed().as_secs() < 10, "refused before triangulating");
    assert!(!out.exists(), "nothing written");
    // 760 000 pass that bound, but their exact encoding is larger than 64 MiB: refused with
    // the exact size, before writing.
    let f = fan_obj(&d, "fewer.obj", 760_002);
    let o = run(&["import", &f, "-o", out.to_str().unwrap()]);
    assert_one_line_error(
        &o,
        &[
            "fewer.obj: size: the scene would be ",
            "MiB of JSON (760 000 primitives)",
            "64.0 MiB limit",
        ],
    );
    assert!(!out.exists(), "nothing written");
}

#[test]
fn error_more_primitives_than_the_primitive_id_holds_are_refused_at_load() {
    let d = tmp("prim-ids");
    let f = fan_obj(&d, "huge.obj", 2_200_003);
    let msg = "huge.obj: faces: scene has 2 200 001 primitives; the primitive id holds 21 bits, so at most 2 097 152";
    let png = d.join("x.png");
    for args in [
        vec!["render", &f, "-o", png.to_str().unwrap()],
        vec!["raster", &f],
        vec!["explore", &f, "--raster-only"],
        vec!["import", &f],
    ] {
        let t0 = std::time::Instant::now();
        let o = run(&args);
        assert_one_line_error(&o, &[msg]);
        assert!(t0.elapsed().as_secs() < 10, "{args:?}: refused at load");
    }
    // 2^21 triangles exactly pass that check (import refuses them by size instead).
    let f = fan_obj(&d, "edge.obj", 2_097_154);
    let o = run(&["import", &f]);
    assert_one_line_error(&o, &["edge.obj: faces: the scene would be at least"]);
}

#[test]
fn error_raster_refuses_output_past_the_limit_before_writing() {
    let d = tmp("raster-size");
    // 2000 triangles over the whole `full` viewport (about 200 KB of JSON): at least 2000 ×
    // 518 400 quads, tens of GB of lines. Refused before rasterizing; nothing created.
    let tri = r#"{"triangle":{"v":[[-1,-1],[4000,-1],[-1,4000]],"colour":[200,100,50,255]}}"#;
    let prims = vec![tri; 2000].join(",");
    let f = write_tmp(
        &d,
        "full.json",
        format!(r#"{{"config":{{"preset":"full","guard_band":4096}},"primitives":[{prims}]}}"#).as_bytes(),
    );
    let out = d.join("q.jsonl");
    let t0 = std::time::Instant::now();
    let o = run(&["raster", &f, "-o", out.to_str().unwrap()]);
    assert_one_line_error(
        &o,
        &[
            "full.json: output: raster could write up to ",
            "GiB of JSON lines (1 036 800 000 quads at most from 2 000 primitives",
            "more than the 4.0 GiB limit; raise it with --max-output-bytes",
        ],
    );
    assert!(t0.elapsed().as_secs() < 10, "refused up front");
    assert!(!out.exists(), "nothing written");
    // The flag lowers (or raises) the limit; the default scene fits a megabyte, not a kilobyte.
    let scene = default_scene_path();
    let o = run(&["raster", &scene, "--max-output-bytes", "1K"]);
    assert_one_line_error(
        &o,
        &[
            "default.json: output",
            "more than the 1.0 KiB limit",
            "--max-output-bytes",
        ],
    );
    ok(&run(&["raster", &scene, "--max-output-bytes", "64M"]));
}

#[test]
fn error_smaller_things_name_what_is_wrong() {
    let d = tmp("smaller");
    // A viewport element of the wrong type is named.
    let f = write_tmp(
        &d,
        "vp.json",
        format!(r#"{{"config":{{"viewport":[640,"a"]}},"primitives":[{ONE_TRI}]}}"#).as_bytes(),
    );
    let o = run(&["raster", &f]);
    assert_one_line_error(
        &o,
        &[r#"vp.json: config.viewport[1]: expected the height as a positive integer, got "a""#],
    );
    // SVG nesting past usvg's limit: where, and what the limit is.
    let n = 1100;
    let svg = format!(
        "<svg xmlns=\"http://www.w3.org/2000/svg\" width=\"10\" height=\"10\">\n{}<rect width=\"5\" height=\"5\"/>{}</svg>",
        "<g>".repeat(n),
        "</g>".repeat(n)
    );
    let f = write_tmp(&d, "deep.svg", svg.as_bytes());
    let o = run(&["import", &f]);
    assert_one_line_error(
        &o,
        &[
            "deep.svg: line 2 column ",
            "elements nest more than 1024 deep",
            "this <g> is at depth 1025",
        ],
    );
    // fpga: the flags and the scene are checked before the port is opened.
    let o = run(&[
        "fpga",
        "--port",
        "/nonexistent/tty",
        "--scene",
        &data("bad_syntax.json"),
    ]);
    assert_one_line_error(&o, &["bad_syntax.json", "line 5"]);
    let o = run(&[
        "fpga",
        "--port",
        "/nonexistent/tty",
        "--scene",
        &default_scene_path(),
        "--baud",
        "0",
    ]);
    assert_one_line_error(&o, &["--baud: 0: must be a positive baud rate"]);
}

#[test]
fn a_point_wider_than_the_config_draws_is_one_warning_line() {
    let d = tmp("point-size");
    let pt = |size: u32| format!(r#"{{"point":{{"pos":[50,50],"size":{size},"colour":[9,9,9,255]}}}}"#);
    // ice40: max_point_size 16. Sizes 20 and 30 are drawn 16 wide; 16.4 rounds to 16: fine.
    let f = write_tmp(
        &d,
        "pts.json",
        format!(
            r#"{{"config":{{"preset":"ice40"}},"primitives":[{ONE_TRI},{},{},{}]}}"#,
            pt(16),
            pt(20),
            pt(30)
        )
        .as_bytes(),
    );
    let o = run(&["raster", &f]);
    let err = String::from_utf8_lossy(&o.stderr);
    assert!(o.status.success(), "{err}");
    assert_eq!(err.lines().count(), 1, "{err:?}");
    assert!(
        err.starts_with("warning: ")
            && err.contains("pts.json: primitives[2].point.size: 20 is above max_point_size 16"),
        "{err}"
    );
    assert!(err.contains("drawn 16 pixels wide (2 points in all)"), "{err}");
    let f = write_tmp(
        &d,
        "ok.json",
        format!(r#"{{"config":{{"preset":"ice40"}},"primitives":[{}]}}"#, pt(16)).as_bytes(),
    );
    assert!(run(&["raster", &f]).stderr.is_empty());
}

#[test]
fn progress_is_drawn_on_a_terminal_only_and_not_with_quiet() {
    let scene = default_scene_path();
    // On a pipe (the harness's stderr), even when the bar would show at once: nothing.
    let o = bin()
        .env("TILERAST_PROGRESS_AFTER_MS", "0")
        .args(["raster", &scene])
        .output()
        .unwrap();
    assert!(
        o.status.success() && o.stderr.is_empty(),
        "{:?}",
        String::from_utf8_lossy(&o.stderr)
    );
    // On a pseudo-terminal (`script`), if there is one: the bar with its rate and time left.
    #[cfg(unix)]
    {
        let d = tmp("progress");
        let png = d.join("x.png");
        let cmd = |quiet: &str| {
            format!(
                "TILERAST_PROGRESS_AFTER_MS=0 {} render {scene} -o {} {quiet}",
                env!("CARGO_BIN_EXE_tilerast"),
                png.display()
            )
        };
        let tty = |c: String| Command::new("script").args(["-qec", &c, "/dev/null"]).output();
        if let Ok(o) = tty(cmd("")) {
            if o.status.success() {
                let s = String::from_utf8_lossy(&o.stdout);
                assert!(
                    s.contains("render ") && s.contains("tiles (") && s.contains("left)"),
                    "{s}"
                );
                let q = tty(cmd("--quiet")).unwrap();
                let s = String::from_utf8_lossy(&q.stdout);
                assert!(!s.contains("tiles ("), "{s}");
            }
        }
    }
}

/// `sh -c CMD` on a pseudo-terminal (`script`): what the terminal showed (stdout and stderr,
/// unless CMD redirects them). `CI` is set, as on the CI machine: it must not matter.
#[cfg(unix)]
fn on_tty(cmd: &str) -> String {
    let o = Command::new("script")
        .args(["-qec", cmd, "/dev/null"])
        .env("CI", "true")
        .env("TILERAST_PROGRESS_AFTER_MS", "0")
        .output()
        .expect("`script` (util-linux) runs commands on a pseudo-terminal for this test");
    assert!(o.status.success(), "{cmd}: {o:?}");
    String::from_utf8_lossy(&o.stdout).into_owned()
}

/// `explore` and `import` (OBJ and SVG) draw their bar on stderr when it is a terminal
/// (whatever stdout is: here a file, and the file holds exactly what a piped run prints),
/// with a rate and the time left; not when stderr is a pipe or a file (even with stdout on the
/// terminal), and not with `--quiet`. The bar shows at once (`TILERAST_PROGRESS_AFTER_MS=0`).
#[test]
fn progress_of_explore_and_import_is_drawn_on_a_terminal_stderr_only_and_not_with_quiet() {
    let scene = default_scene_path();
    let (obj, svg) = (data("cube.obj"), data("shapes.svg"));
    let cases: [(&str, Vec<String>, &str); 3] = [
        (
            "explore",
            vec!["explore".into(), scene.clone(), "--msaa".into(), "1,4".into()],
            "combinations (",
        ),
        ("import-obj", vec!["import".into(), obj.clone()], "B/s, "),
        ("import-svg", vec!["import".into(), svg.clone()], "paths ("),
    ];
    for (name, args, unit) in cases {
        // A pipe: nothing on stderr, even when the bar would show at once.
        let piped = bin()
            .env("TILERAST_PROGRESS_AFTER_MS", "0")
            .env("CI", "true")
            .args(&args)
            .output()
            .unwrap();
        let expected = ok(&piped);
        assert!(
            piped.stderr.is_empty(),
            "{name}: {:?}",
            String::from_utf8_lossy(&piped.stderr)
        );
        #[cfg(unix)]
        {
            let d = tmp(&format!("progress-{name}"));
            let line = format!("{} {}", env!("CARGO_BIN_EXE_tilerast"), args.join(" "));
            let out = d.join(format!("{name}.out"));
            let err = d.join(format!("{name}.err"));
            // stderr on the terminal, stdout to a file: the bar, and the same stdout.
            let s = on_tty(&format!("{line} > {}", out.display()));
            assert!(
                s.contains(&format!("{} ", args[0])) && s.contains(unit) && s.contains("left)"),
                "{name}: no bar on the terminal: {s:?}"
            );
            assert_eq!(
                std::fs::read_to_string(&out).unwrap(),
                expected,
                "{name}: stdout changed"
            );
            // stdout on the terminal, stderr to a file: no bar anywhere.
            let s = on_tty(&format!("{line} 2> {}", err.display()));
            assert!(!s.contains("left)"), "{name}: a bar with stderr on a file: {s:?}");
            let e = std::fs::read_to_string(&err).unwrap();
            assert!(e.is_empty(), "{name}: stderr is a file: {e:?}");
            // --quiet: no bar.
            let s = on_tty(&format!("{line} --quiet > {}", out.display()));
            assert!(!s.contains("left)"), "{name}: a bar with --quiet: {s:?}");
            assert_eq!(
                std::fs::read_to_string(&out).unwrap(),
                expected,
                "{name}: stdout changed"
            );
        }
    }
}

// ---------------------------------------------------------------------------------------------
// regress (RTL co-simulation)

/// `key value` pairs of the `summary:` line of `tilerast regress`.
fn regress_summary(stdout: &str) -> BTreeMap<String, String> {
    let line = stdout
        .lines()
        .find(|l| l.starts_with("summary: "))
        .unwrap_or_else(|| panic!("no summary line in {stdout:?}"));
    let t: Vec<&str> = line["summary: ".len()..].split_whitespace().collect();
    t.chunks(2)
        .filter(|c| c.len() == 2)
        .map(|c| (c[0].to_string(), c[1].to_string()))
        .collect()
}

fn num(s: &BTreeMap<String, String>, k: &str) -> f64 {
    s.get(k)
        .unwrap_or_else(|| panic!("summary has no {k}: {s:?}"))
        .trim_end_matches('s')
        .parse()
        .unwrap()
}

#[test]
fn regress_small_run_passes_with_a_summary() {
    let d = tmp("regress-small");
    let out = d.display().to_string();
    let o = run(&[
        "regress", "--preset", "ice40", "--count", "300", "--chunk", "100", "--seed", "5", "--out", &out,
    ]);
    let s = regress_summary(&ok(&o));
    assert_eq!(num(&s, "primitives"), 300.0);
    assert_eq!(num(&s, "chunks"), 3.0);
    assert_eq!(num(&s, "mismatches"), 0.0);
    assert!(num(&s, "quads") > 0.0 && num(&s, "samples") >= num(&s, "quads"));
    assert!(num(&s, "cycles") > num(&s, "commands") && num(&s, "cycles/s") > 0.0);
    assert!(
        std::fs::read_dir(&d).unwrap().next().is_none(),
        "nothing saved on a clean run"
    );
}

/// A config that is no preset, from a file plus a `--set`: its core is verilated on demand (or
/// found in the cache) and co-simulated with the usual checks; the summary names it.
#[test]
fn regress_config_runs_a_non_preset_core_on_demand() {
    let d = tmp("regress-config");
    let cfg = d.join("q2_8x.json");
    std::fs::write(&cfg, r#"{"preset": "ice40", "msaa": 8, "quads_per_clock": 2}"#).unwrap();
    let (cfg_s, out) = (cfg.display().to_string(), d.join("out").display().to_string());
    let o = run(&[
        "regress", "--config", &cfg_s, "--set", "cull=cw", "--count", "300", "--chunk", "100", "--out", &out,
    ]);
    let text = ok(&o);
    let s = regress_summary(&text);
    assert_eq!(s["preset"], "q2_8x");
    assert!(s["model"].starts_with("q2_8x-"), "{}", s["model"]);
    assert!(text.contains("model q2_8x-"), "build or cache line: {text}");
    assert_eq!((num(&s, "primitives"), num(&s, "mismatches")), (300.0, 0.0));
    assert!(num(&s, "quads") > 0.0 && num(&s, "samples") > num(&s, "quads"));
    for (args, needles) in [
        (vec!["--set", "msaa=3"], vec!["config.msaa"]),
        (vec!["--set", "quads_per_clock=4"], vec!["config.quads_per_clock"]),
        (vec!["--config", "/nonexistent/c.json"], vec!["/nonexistent/c.json"]),
        (vec!["--set", "msaa=2", "--model", "ice40"], vec!["--model"]),
    ] {
        let mut a = vec!["regress", "--count", "10"];
        a.extend(args.iter().copied());
        let o = run(&a);
        assert_one_line_error(&o, &needles);
        assert_eq!(o.status.code(), Some(2), "{args:?}");
    }
}

#[test]
fn regress_shards_cover_exactly_the_unsharded_run() {
    let base = [
        "regress", "--preset", "ice40", "--count", "450", "--chunk", "100", "--seed", "9",
    ];
    let all = regress_summary(&ok(&run(&base)));
    let mut sum = BTreeMap::new();
    for shard in ["1/2", "2/2"] {
        let mut a = base.to_vec();
        a.extend(["--shard", shard]);
        let s = regress_summary(&ok(&run(&a)));
        assert!(num(&s, "primitives") > 0.0, "shard {shard} is empty");
        for k in ["chunks", "primitives", "commands", "quads", "samples"] {
            *sum.entry(k).or_insert(0.0) += num(&s, k);
        }
    }
    assert_eq!(num(&all, "primitives"), 450.0);
    for (k, v) in sum {
        assert_eq!(v, num(&all, k), "{k}: shards vs unsharded");
    }
}

#[test]
fn regress_back_end_passes_and_a_planted_bug_is_shrunk_saved_and_replayed() {
    let d = tmp("regress-back-end");
    let out = d.display().to_string();
    let o = run(&[
        "regress",
        "--back-end",
        "--preset",
        "default",
        "--count",
        "20",
        "--chunk",
        "10",
        "--seed",
        "3",
        "--out",
        &out,
    ]);
    let text = ok(&o);
    assert!(text.contains("summary: back end preset default"), "{text}");
    assert!(text.contains("mismatches 0"), "{text}");
    assert!(!text.contains(" writes 0 "), "nothing written: {text}");
    // The planted bug (the arbiter's select stuck on reads): exit 1, the chunk shrunk and saved
    // with its memory behaviour and a side-by-side VCD.
    let o = run(&[
        "regress",
        "--back-end",
        "--preset",
        "default",
        "--model",
        "default_mut",
        "--count",
        "10",
        "--chunk",
        "10",
        "--seed",
        "3",
        "--shrink-secs",
        "20",
        "--out",
        &out,
    ]);
    assert_eq!(o.status.code(), Some(1), "{}", String::from_utf8_lossy(&o.stdout));
    let stdout = String::from_utf8_lossy(&o.stdout);
    assert!(stdout.contains("FAIL chunk 0: cycle "), "{stdout}");
    let scene = d.join("back_end_default_s3_c0.json");
    for ext in ["json", "drive.json", "vcd"] {
        let p = d.join(format!("back_end_default_s3_c0.{ext}"));
        assert!(p.exists(), "{} not saved", p.display());
    }
    let vcd = std::fs::read_to_string(d.join("back_end_default_s3_c0.vcd")).unwrap();
    assert!(vcd.contains("golden") && vcd.contains("mem_req__write"), "VCD scopes");
    let n = serde_json::from_str::<serde_json::Value>(&std::fs::read_to_string(&scene).unwrap()).unwrap()["primitives"]
        .as_array()
        .unwrap()
        .len();
    assert!((1..10).contains(&n), "shrunk to {n} of 10 primitives");
    // Replayed: the saved case fails on the mutant and passes on the real back end.
    let s = scene.display().to_string();
    let o = run(&["regress", "--back-end", "--scene", &s, "--model", "default_mut"]);
    assert_eq!(o.status.code(), Some(1));
    let text = ok(&run(&["regress", "--back-end", "--scene", &s]));
    assert!(text.contains("equal golden"), "{text}");
}

#[test]
fn regress_bad_arguments_are_one_line_with_exit_2() {
    for (args, needles) in [
        (vec!["regress", "--shard", "3/2"], vec!["--shard", "3/2"]),
        (vec!["regress", "--shard", "x"], vec!["--shard"]),
        (vec!["regress", "--preset", "nope"], vec!["--preset", "nope"]),
        (
            vec!["regress", "--scene", "/nonexistent/s.json"],
            vec!["/nonexistent/s.json"],
        ),
        (vec!["regress", "--model", "nope"], vec!["--model", "nope"]),
    ] {
        let o = run(&args);
        assert_one_line_error(&o, &needles);
        assert_eq!(o.status.code(), Some(2), "{args:?}");
    }
    let help = ok(&run(&["regress", "--help"]));
    assert!(
        help.contains("--shard") && !help.contains("--model"),
        "--model is hidden"
    );
}

/// The failure line (`cycle N: port P rtl X model Y`) of a regress run's output.
fn failure_line(o: &Output) -> String {
    let all = format!(
        "{}{}",
        String::from_utf8_lossy(&o.stdout),
        String::from_utf8_lossy(&o.stderr)
    );
    let i = all
        .find("cycle ")
        .unwrap_or_else(|| panic!("no failing cycle in {all}"));
    all[i..].lines().next().unwrap().to_string()
}

#[test]
fn regress_mismatch_saves_a_scene_that_reproduces_it() {
    let d = tmp("regress-mut");
    let out = d.display().to_string();
    let o = run(&[
        "regress",
        "--preset",
        "ice40",
        "--model",
        "ice40_mut",
        "--count",
        "200",
        "--chunk",
        "100",
        "--out",
        &out,
        "--shrink-secs",
        "30",
    ]);
    let err = String::from_utf8_lossy(&o.stderr);
    assert_eq!(o.status.code(), Some(1), "a mismatch exits 1: {err}");
    let scene = d.join("fail-ice40-seed1-chunk0.json");
    assert!(scene.exists(), "{} saved", scene.display());
    assert!(d.join("fail-ice40-seed1-chunk0.stim.json").exists());
    assert!(d.join("fail-ice40-seed1-chunk0-orig.json").exists());
    assert!(
        err.contains(&scene.display().to_string()),
        "the error names the scene: {err}"
    );
    let stdout = String::from_utf8_lossy(&o.stdout);
    assert!(
        stdout.contains("primitive "),
        "the failing primitive is shown: {stdout}"
    );
    // The shrunk scene loads as an ordinary scene, with fewer primitives than the chunk.
    let shrunk = Scene::load(&scene).unwrap();
    assert!(!shrunk.primitives.is_empty() && shrunk.primitives.len() < 100);
    // The reported failure is the shrunk case's: replaying it fails the same way, and the real
    // RTL passes it.
    let s = scene.display().to_string();
    let again = run(&["regress", "--scene", &s, "--model", "ice40_mut"]);
    assert_eq!(again.status.code(), Some(1));
    assert_eq!(failure_line(&again), failure_line(&o));
    let good = run(&["regress", "--scene", &s]);
    let g = regress_summary(&ok(&good));
    assert_eq!(num(&g, "mismatches"), 0.0);
    assert_eq!(num(&g, "primitives"), shrunk.primitives.len() as f64);
}

// ---------------------------------------------------------------------------------------------
// rtl

/// `tilerast rtl --preset P -o rtl-out` run in an empty directory writes the committed
/// `rtl-out/`'s structure for P alone (gen-rtl packages every preset together, so modules that
/// P shares with another preset live in other files there): the same tops, each the same logic
/// module by module (`tilerast_hw::package::flattened`), with the same header, and a file list
/// per top. (Compiled with the `rtl` feature only: it reads `tilerast_hw`, so that `cargo test
/// -p tilerast --no-default-features` builds the other tests without Verilator.)
#[cfg(feature = "rtl")]
#[test]
fn rtl_for_a_preset_is_the_committed_rtl_out_logic() {
    use tilerast_hw::package::{flattened, read_file_list};
    let d = tmp("rtl-preset");
    let o = bin()
        .args(["rtl", "--preset", "ice40_1x", "-o", "rtl-out"])
        .current_dir(&d)
        .output()
        .unwrap();
    ok(&o);
    let committed = Path::new(env!("CARGO_MANIFEST_DIR")).join("../rtl-out");
    let texts = |dir: &Path, stem: &str| -> Vec<String> {
        read_file_list(dir, stem)
            .unwrap_or_else(|e| panic!("{e}"))
            .iter()
            .map(|f| std::fs::read_to_string(f).unwrap())
            .collect()
    };
    let mut tops = Vec::new();
    for e in std::fs::read_dir(d.join("rtl-out")).unwrap() {
        let f = e.unwrap().file_name().into_string().unwrap();
        let Some(top) = f.strip_suffix(".f") else { continue };
        let have = texts(&d.join("rtl-out"), top);
        let want = texts(&committed, top);
        let h: Vec<&str> = have.iter().map(String::as_str).collect();
        let w: Vec<&str> = want.iter().map(String::as_str).collect();
        assert!(
            flattened(&h, top).unwrap() == flattened(&w, top).unwrap(),
            "tilerast rtl --preset ice40_1x: {top} is not the logic of rtl-out/{top}"
        );
        let header = |t: &str| {
            t.lines()
                .take_while(|l| l.starts_with("//"))
                .collect::<Vec<_>>()
                .join("\n")
        };
        assert_eq!(header(h.last().unwrap()), header(w.last().unwrap()), "{top}'s header");
        tops.push(top.to_string());
    }
    tops.sort();
    for want in [
        "tilerast_ice40_1x",
        "tilerast_blender_ice40_1x",
        "tilerast_frame_ice40_1x",
    ] {
        assert!(tops.iter().any(|t| t == want), "{want} not written: {tops:?}");
    }
    let waivers = std::fs::read_to_string(d.join("rtl-out/tilerast_waivers.vlt")).unwrap();
    assert!(waivers.contains("lint_off -rule WIDTH"), "{waivers}");
}

/// A config outside a pixel-side block's parameters still gets its core; the block is skipped
/// with one line naming the field, and nothing half-written is left for it.
#[test]
fn rtl_skips_a_pixel_side_block_outside_its_parameters() {
    let d = tmp("rtl-skip");
    let out = d.join("out");
    let out_s = out.display().to_string();
    let stdout = ok(&run(&[
        "rtl",
        "--set",
        "blend_pool=8",
        "--name",
        "p8",
        "-o",
        &out_s,
        "--no-lint",
    ]));
    assert!(out.join("tilerast_p8.v").exists(), "{stdout}");
    assert!(
        stdout.contains("skipped tilerast_blender_p8.v: blender: config.blend_pool: 8 entries"),
        "{stdout}"
    );
    assert!(!out.join("tilerast_blender_p8.v").exists());
    // Inside them, it is written and linted.
    let stdout = ok(&run(&["rtl", "--preset", "ice40", "-o", &out_s]));
    assert!(
        stdout.contains("wrote ")
            && stdout.contains(
                "tilerast_blender_ice40.v (top module tilerast_blender_ice40, file list tilerast_blender_ice40.f)"
            ),
        "{stdout}"
    );
    // The blender is linted inside the frame top, whose hierarchy holds it (one Verilator run
    // per top that no other top's hierarchy holds).
    let frame_lint = stdout
        .lines()
        .find(|l| l.starts_with("lint: clean (verilator --lint-only -Wall --top-module tilerast_frame_ice40 "))
        .unwrap_or_else(|| panic!("no lint of the frame top: {stdout}"));
    assert!(frame_lint.contains("tilerast_blender_ice40.v"), "{frame_lint}");
    assert!(!stdout.contains("--top-module tilerast_blender_ice40 "), "{stdout}");
}

/// A config no preset has (8x MSAA, Q = 2, non-square tile and sub-tile, cw culling, the
/// samples coverage test) is emitted, named, described and lint-clean.
#[test]
fn rtl_for_a_non_preset_config_is_lint_clean() {
    let d = tmp("rtl-custom");
    let cfg = d.join("m8.json");
    std::fs::write(
        &cfg,
        r#"{"preset": "default", "msaa": 8, "tile": [32, 16], "subtile": [8, 4], "colour_block_bytes": 128}"#,
    )
    .unwrap();
    let cfg_s = cfg.display().to_string();
    let out_s = d.join("out").display().to_string();
    let args = [
        "rtl",
        "--config",
        &cfg_s,
        "--set",
        "quads_per_clock=2",
        "--set",
        "cull=cw",
        "--set",
        "coverage_test=samples",
        "-o",
        &out_s,
    ];
    let stdout = ok(&run(&args));
    assert!(stdout.contains("lint: clean"), "{stdout}");
    let v = std::fs::read_to_string(d.join("out/tilerast_m8.v")).unwrap();
    let head: Vec<&str> = v.lines().take(5).collect();
    assert_eq!(
        head[0],
        format!("// generated by `tilerast {}` — do not edit", args.join(" "))
    );
    assert!(
        head[1].contains("tile 32x16, sub-tile 8x4, 8x MSAA, Q = 2"),
        "{}",
        head[1]
    );
    assert!(
        head[2].contains(r#""cull":"cw""#) && head[2].contains(r#""coverage_test":"samples""#),
        "{}",
        head[2]
    );
    assert!(v.contains("mask_l bit p*8 + s"), "port description for 8x MSAA");
    assert!(v.contains("\nmodule tilerast_m8(clock,flush,cmd_valid,cmd_ready,"));
}

#[test]
fn rtl_refuses_an_unsupported_config_naming_the_field() {
    let d = tmp("rtl-refuse");
    let out_s = d.join("out").display().to_string();
    let o = run(&[
        "rtl",
        "--set",
        "quads_per_clock=4",
        "--set",
        "subtile=[4,4]",
        "--set",
        "colour_block_bytes=64",
        "-o",
        &out_s,
    ]);
    assert_one_line_error(&o, &["config.quads_per_clock", "at most 2"]);
    assert!(!d.join("out").exists(), "nothing is written for a refused config");
    let o = run(&["rtl", "--set", "msaa=\"4\"", "-o", &out_s]);
    assert_one_line_error(&o, &["config.msaa"]);
    let o = run(&["rtl", "--name", "a-b", "-o", &out_s]);
    assert_one_line_error(&o, &["--name", "a-b"]);
}

/// `render --rtl`: the shipped points scene through the verilated frame top on its own preset
/// (ice40). The summary names the cycles per phase and the traffic per client (non-zero), and
/// the PNG it writes from the RTL framebuffer equals the golden render's pixel for pixel.
#[test]
fn render_rtl_reproduces_the_golden_png_and_prints_cycles_and_traffic() {
    let d = tmp("render-rtl");
    let scene = Path::new(env!("CARGO_MANIFEST_DIR"))
        .join("../scenes/points.json")
        .display()
        .to_string();
    let golden_png = d.join("golden.png");
    let rtl_png = d.join("rtl.png");
    ok(&run(&["render", &scene, "-o", golden_png.to_str().unwrap()]));
    let text = ok(&run(&["render", &scene, "--rtl", "-o", rtl_png.to_str().unwrap()]));
    assert!(text.contains("= FrameCycle on every port and every cycle"), "{text}");
    assert!(text.contains("image = golden's bit for bit"), "{text}");
    assert!(text.contains("from the RTL framebuffer"), "{text}");
    // The phases and the clients: numbers taken from the summary, each > 0.
    let line = text
        .lines()
        .find(|l| l.starts_with("rtl cycles: "))
        .expect("cycles line");
    let total: u64 = line["rtl cycles: ".len()..].split(' ').next().unwrap().parse().unwrap();
    for phase in ["bin ", "raster ", "pixel "] {
        let v = number_after(line, phase);
        assert!(v > 0 && v < total, "{phase}in {line}");
    }
    for client in [
        "binner",
        "bin_setup",
        "pixel_info_write",
        "tile_sequencer lrd",
        "pixel_back_end",
        "pixel_info_read",
    ] {
        let l = text
            .lines()
            .find(|l| l.trim_start().starts_with(client))
            .unwrap_or_else(|| panic!("no traffic line for {client}: {text}"));
        let nums: Vec<u64> = l.split_whitespace().filter_map(|w| w.parse().ok()).collect();
        assert!(nums.iter().sum::<u64>() > 0, "{client} moved no bytes: {l}");
    }
    let (g, r) = (Png::load(&golden_png), Png::load(&rtl_png));
    assert_eq!((g.w, g.h), (r.w, r.h));
    assert!(g.rgba == r.rgba, "the RTL framebuffer's PNG differs from golden's");
    assert!(g.rgba.chunks(4).any(|p| p != [0, 0, 0, 255]), "points drawn");
}

/// `render --rtl` on a config that is no preset: one line naming the config, exit 1.
#[test]
fn render_rtl_refuses_a_config_that_is_not_a_verilated_preset() {
    let d = tmp("render-rtl-config");
    let s = d.join("msaa1.json");
    std::fs::write(
        &s,
        r#"{"config": {"preset": "ice40", "msaa": 1}, "primitives": [{"triangle": {"v": [[1, 1], [30, 2], [5, 20]], "colour": [255, 0, 0, 255]}}]}"#,
    )
    .unwrap();
    let o = run(&[
        "render",
        s.to_str().unwrap(),
        "--rtl",
        "-o",
        d.join("x.png").to_str().unwrap(),
    ]);
    assert_one_line_error(&o, &["config", "--rtl", "presets only"]);
    assert_eq!(o.status.code(), Some(1));
}

/// `regress --frame`: random frames through the verilated frame top, each chunk's frame with
/// its partner in flight beside it, every frame equal to golden (ports, memory, image,
/// traffic), some quads drawn and partner primitives taken before the chunk's Done.
#[test]
fn regress_frame_passes_with_traffic() {
    let d = tmp("regress-frame");
    let text = ok(&run(&[
        "regress",
        "--frame",
        "--preset",
        "ice40_1x",
        "--count",
        "12",
        "--chunk",
        "6",
        "--seed",
        "5",
        "--out",
        d.to_str().unwrap(),
    ]));
    assert!(text.contains("summary: frame preset ice40_1x"), "{text}");
    assert!(text.contains("chunks 2 "), "{text}");
    assert!(text.contains("mismatches 0"), "{text}");
    for field in [" quads ", " overlapped "] {
        let v: u64 = number_after(&text, field);
        assert!(v > 0, "{field}: {text}");
    }
}

/// The number right after the first `key` in `text` (up to the next space).
fn number_after(text: &str, key: &str) -> u64 {
    let rest = text.split(key).nth(1).unwrap_or_else(|| panic!("no {key:?} in {text}"));
    rest.split([' ', ',', ')'])
        .next()
        .and_then(|n| n.parse().ok())
        .unwrap_or_else(|| panic!("no number after {key:?} in {text}"))
}
