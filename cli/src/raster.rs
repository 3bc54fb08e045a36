//! `tilerast raster SCENE --format jsonl`: the raster side's output as JSON lines, the CLI's
//! machine-readable contract (documented in `cli/README.md`; keep it stable).
//!
//! Order of the lines:
//! 1. one line per emitted quad, in pipeline order (first tiles bottom-up, left→right; inside a
//!    tile, primitives in submission order; inside a primitive, the quad packer's order):
//!    `{"tile":[tx,ty],"qx":QX,"qy":QY,"mask":"0x…","prim":P}` — keys in exactly this order;
//!    `mask` is lower-case hex, zero-padded to S digits (4·S bits, S = MSAA samples), pixel
//!    i = 2·(y&1)+(x&1) owning bits [i·S, (i+1)·S);
//! 2. one line per point primitive, in submission order: `{"point":P,"fragments":N}`;
//! 3. one final line `{"summary":{...}}` with `quads`, `samples` (sum of the masks' popcounts),
//!    `points`, `fragments`, `prims`, `msaa`, `viewport`, `tile`.
//!
//! The lines are written as the quads are made (`pipeline::raster_stream`, first tile by first
//! tile): memory does not grow with the frame's quads, and the summary needs only counts.
//!
//! ```text
//!   Frame ─► raster_stream ─► (tile, prim) quads ─► line per quad ─┐ (as they come)
//!                    └─► point fragments, counts ─► line per point ─► summary line
//! ```

use crate::error::{CliError, Res};
use crate::output::{bytes, grouped};
use clap::ValueEnum;
use std::io::Write;
use tilerast_golden::pipeline::{Event, PipelineError};
use tilerast_golden::{Frame, PrimitiveFx, Quad};

/// Parse a byte count: an integer, optionally with a binary suffix `K`, `M`, `G` or `T`
/// (`KiB`, `MiB`… and a trailing `B` are accepted too).
pub fn parse_bytes(s: &str) -> Result<u64, String> {
    let t = s.trim();
    let t = t.strip_suffix(['B', 'b']).unwrap_or(t);
    let t = t.strip_suffix(['i', 'I']).unwrap_or(t);
    let (num, shift) = match t.char_indices().last() {
        Some((i, c)) if c.is_ascii_alphabetic() => {
            let shift = match c.to_ascii_uppercase() {
                'K' => 10,
                'M' => 20,
                'G' => 30,
                'T' => 40,
                _ => return Err(format!("`{s}`: unknown unit `{c}` (use K, M, G or T)")),
            };
            (&t[..i], shift)
        }
        _ => (t, 0),
    };
    let n: u64 = num
        .trim()
        .parse()
        .map_err(|_| format!("`{s}` is not a byte count (an integer, optionally with K, M, G or T)"))?;
    n.checked_mul(1 << shift).ok_or_else(|| format!("`{s}` is too large"))
}

/// Decimal digits of `n`.
fn digits(n: u64) -> u64 {
    n.checked_ilog10().map_or(1, |d| d as u64 + 1)
}

/// 2×2 quad positions of the viewport that the fixed-point box `[x0, x1] × [y0, y1]` (1/256
/// pixel, inclusive) touches.
fn cells_in_box(frame: &Frame, lo: [i64; 2], hi: [i64; 2]) -> u64 {
    let mut n = 1u64;
    for a in 0..2 {
        let top = frame.cfg.viewport[a] as i64 * 256 - 1;
        let (l, h) = (lo[a].max(0), hi[a].min(top));
        if l > h {
            return 0;
        }
        n *= (h / 512 - l / 512 + 1) as u64;
    }
    n
}

/// An upper bound of the quads `raster` emits for `frame`, without rasterizing: per
/// primitive, the quad positions its box touches in the viewport, and for a triangle also
/// its area bound: the 2×2 cells a convex shape of area A and box w × h pixels touches are at
/// most A/4 + w + h + 4 (each such cell's corner lies in the shape grown by the cell, of area
/// A + 4(w + h) + 16). Quads only come from cells a primitive touches, one per (cell,
/// primitive), so this bounds them (tight for large triangles, loose for slivers).
pub fn quad_bound(frame: &Frame) -> u64 {
    let mut total = 0u64;
    for p in &frame.prims {
        total += match p {
            PrimitiveFx::Triangle(t) => {
                let xs = t.v.map(|v| v[0] as i64);
                let ys = t.v.map(|v| v[1] as i64);
                let lo = [*xs.iter().min().unwrap(), *ys.iter().min().unwrap()];
                let hi = [*xs.iter().max().unwrap(), *ys.iter().max().unwrap()];
                let cells = cells_in_box(frame, lo, hi);
                let cross =
                    (xs[1] - xs[0]) as f64 * (ys[2] - ys[0]) as f64 - (xs[2] - xs[0]) as f64 * (ys[1] - ys[0]) as f64;
                let area = cross.abs() / 2.0 / 65536.0;
                let (w, h) = ((hi[0] - lo[0]) as f64 / 256.0, (hi[1] - lo[1]) as f64 / 256.0);
                let by_area = (area / 4.0 + w + h + 4.0).ceil() as u64 + 1;
                cells.min(by_area)
            }
            PrimitiveFx::Point(q) => {
                // Rounded size, clamped like the rasterizer; one pixel more for AA.
                let n = ((q.size as i64 + 128) >> 8).clamp(1, frame.cfg.max_point_size as i64) + 1;
                let r = n * 128 + 256;
                cells_in_box(
                    frame,
                    [q.pos[0] as i64 - r, q.pos[1] as i64 - r],
                    [q.pos[0] as i64 + r, q.pos[1] as i64 + r],
                )
            }
        };
    }
    total
}

/// Bytes of the longest quad line for `frame` (with its line break).
pub fn quad_line_bytes(frame: &Frame) -> u64 {
    let c = &frame.cfg;
    let [tx, ty] = c.tiles();
    let prims = frame.prims.len().max(1) as u64;
    // {"tile":[TX,TY],"qx":QX,"qy":QY,"mask":"0xM…","prim":P}\n
    let fixed = r#"{"tile":[,],"qx":,"qy":,"mask":"0x","prim":}"#.len() as u64 + 1;
    fixed
        + digits(tx as u64 - 1)
        + digits(ty as u64 - 1)
        + digits(c.viewport[0].div_ceil(2) as u64 - 1)
        + digits(c.viewport[1].div_ceil(2) as u64 - 1)
        + c.msaa as u64
        + digits(prims - 1)
}

/// An upper bound of the bytes `raster` writes for `frame` ([`quad_bound`] quads of
/// [`quad_line_bytes`], a line per point, the summary), and the quad bound.
pub fn output_bound(frame: &Frame) -> (u64, u64) {
    let quads = quad_bound(frame);
    let prims = frame.prims.len().max(1) as u64;
    let points = frame
        .prims
        .iter()
        .filter(|p| matches!(p, PrimitiveFx::Point(_)))
        .count() as u64;
    // {"point":P,"fragments":N}\n, N ≤ (max_point_size + 1)².
    let point_line = r#"{"point":,"fragments":}"#.len() as u64
        + 1
        + digits(prims - 1)
        + digits((frame.cfg.max_point_size as u64 + 1).pow(2));
    let summary = 512;
    (
        quads.saturating_mul(quad_line_bytes(frame)) + points * point_line + summary,
        quads,
    )
}

/// Refuse, before any work, a `raster` whose output could pass `max` bytes: one line with the
/// bound, the limit and the flag that raises it.
pub fn check_output_size(frame: &Frame, file: &str, max: u64) -> Res<()> {
    let (est, quads) = output_bound(frame);
    if est > max {
        return Err(CliError::at(
            file,
            "output",
            format!(
                "raster could write up to {} of JSON lines ({} quads at most from {} primitives, {} bytes a line), more than the {} limit; raise it with --max-output-bytes (e.g. --max-output-bytes {}G)",
                bytes(est),
                grouped(quads),
                grouped(frame.prims.len() as u64),
                quad_line_bytes(frame),
                bytes(max),
                est.div_ceil(1 << 30)
            ),
        ));
    }
    Ok(())
}

/// Output format of `raster`.
#[derive(Clone, Copy, Debug, PartialEq, Eq, ValueEnum)]
pub enum Format {
    /// JSON lines (one object per line).
    Jsonl,
}

/// Hex digits of a mask: 4·S bits = S digits.
pub fn mask_hex(mask: u64, msaa: u32) -> String {
    format!("0x{:0width$x}", mask, width = msaa as usize)
}

/// Write the JSON lines of a collected `r` for `frame` to `out` (what [`run`] streams).
#[cfg(test)]
pub fn write_jsonl(
    frame: &Frame,
    r: &tilerast_golden::pipeline::RasterOutput,
    out: &mut dyn Write,
) -> std::io::Result<()> {
    let s = frame.cfg.msaa;
    let mut samples: u64 = 0;
    for q in &r.quads {
        samples += q.quad.samples() as u64;
        write_quad(out, q.tile, &q.quad, s)?;
    }
    write_tail(frame, r.quads.len() as u64, samples, &r.point_fragments, out)
}

/// One quad line.
pub fn write_quad(out: &mut dyn Write, tile: [u32; 2], q: &Quad, msaa: u32) -> std::io::Result<()> {
    writeln!(
        out,
        r#"{{"tile":[{},{}],"qx":{},"qy":{},"mask":"{}","prim":{}}}"#,
        tile[0],
        tile[1],
        q.qx,
        q.qy,
        mask_hex(q.mask, msaa),
        q.prim
    )
}

/// The point lines and the summary line, after `quads` quad lines covering `samples` samples.
pub fn write_tail(
    frame: &Frame,
    quads: u64,
    samples: u64,
    point_fragments: &[(u32, u64)],
    out: &mut dyn Write,
) -> std::io::Result<()> {
    let s = frame.cfg.msaa;
    let mut fragments = 0;
    for (p, n) in point_fragments {
        fragments += n;
        writeln!(out, r#"{{"point":{p},"fragments":{n}}}"#)?;
    }
    let c = &frame.cfg;
    writeln!(
        out,
        r#"{{"summary":{{"quads":{},"samples":{},"points":{},"fragments":{},"prims":{},"msaa":{},"viewport":[{},{}],"tile":[{},{}]}}}}"#,
        quads,
        samples,
        point_fragments.len(),
        fragments,
        frame.prims.len(),
        s,
        c.viewport[0],
        c.viewport[1],
        c.tile[0],
        c.tile[1]
    )?;
    out.flush()
}

/// Why a stream stopped: the pipeline or the output.
pub enum StreamFail {
    Pipeline(PipelineError),
    Io(std::io::Error),
}

impl From<PipelineError> for StreamFail {
    fn from(e: PipelineError) -> Self {
        StreamFail::Pipeline(e)
    }
}

impl StreamFail {
    /// One line: a pipeline failure names `file`, an I/O failure `dest`.
    pub fn at(self, file: &str, dest: &str) -> CliError {
        match self {
            StreamFail::Pipeline(e) => CliError::at(file, "pipeline", e),
            StreamFail::Io(e) => CliError::at(dest, "write", e),
        }
    }
}

/// Run `raster`: every line to `out`, the quad lines as the raster side makes them. A pipeline
/// failure names `file`, an I/O failure `dest`.
pub fn run(frame: &Frame, file: &str, dest: &str, out: &mut dyn Write, quiet: bool) -> Res<()> {
    let s = frame.cfg.msaa;
    let (mut quads, mut samples) = (0u64, 0u64);
    let [ntx, nty] = frame.cfg.tiles();
    let progress = crate::progress::Progress::new(ntx as u64 * nty as u64, "tiles", format!("raster {file}"), quiet);
    let r = tilerast_golden::pipeline::raster_stream(frame, false, |e| {
        match e {
            Event::Quads { tile, quads: qs } => {
                for q in qs {
                    quads += 1;
                    samples += q.samples() as u64;
                    write_quad(out, tile, q, s).map_err(StreamFail::Io)?;
                }
            }
            Event::TileDone([tx, ty]) => progress.set(ty as u64 * ntx as u64 + tx as u64 + 1),
            _ => {}
        }
        Ok(())
    })
    .map_err(|e: StreamFail| e.at(file, dest))?;
    progress.finish();
    write_tail(frame, quads, samples, &r.point_fragments, out).map_err(|e| CliError::at(dest, "write", e))
}

#[cfg(test)]
mod tests {
    use super::*;
    use tilerast_golden::pipeline::{RasterOutput, TileQuad};
    use tilerast_golden::{Quad, Scene};

    #[test]
    fn hex_width_is_s_digits() {
        assert_eq!(mask_hex(0x1, 1), "0x1");
        assert_eq!(mask_hex(0xf, 4), "0x000f");
        assert_eq!(mask_hex(u64::MAX, 16), "0xffffffffffffffff");
        assert_eq!(mask_hex(0x80, 2), "0x80");
    }

    #[test]
    fn byte_counts_parse() {
        assert_eq!(parse_bytes("1000"), Ok(1000));
        assert_eq!(parse_bytes("8G"), Ok(8 << 30));
        assert_eq!(parse_bytes("16MiB"), Ok(16 << 20));
        assert_eq!(parse_bytes("2k"), Ok(2048));
        assert!(parse_bytes("lots").is_err());
        assert!(parse_bytes("3X").is_err());
        assert!(parse_bytes("99999999999T").is_err());
    }

    /// The bounds hold on shipped and random scenes: never fewer quads or bytes than written.
    #[test]
    fn the_output_bound_holds() {
        let mut frames: Vec<Frame> = Scene::shipped()
            .unwrap()
            .into_iter()
            .map(|(n, s)| s.to_frame(&n).unwrap())
            .collect();
        // A full-screen pair at `full` and thin slivers on diagonals.
        let big = r#"{"config":{"preset":"ice40","msaa":16},"primitives":[
            {"triangle":{"v":[[-10,-10],[170,-10],[-10,130]],"colour":[1,2,3,4]}},
            {"triangle":{"v":[[0,0],[160,119],[0.5,0]],"colour":[1,2,3,4]}},
            {"triangle":{"v":[[159,1],[1,119],[159.25,1.5]],"colour":[1,2,3,4]}},
            {"point":{"pos":[3.5,3.5],"size":9,"colour":[1,2,3,4],"aa":true}}]}"#;
        frames.push(Scene::from_json(big, "t").unwrap().to_frame("t").unwrap());
        for f in &frames {
            let mut out = Vec::new();
            run(f, "t", "t", &mut out, true).unwrap();
            let text = String::from_utf8(out).unwrap();
            let quads = text.lines().filter(|l| l.starts_with(r#"{"tile""#)).count() as u64;
            let longest = text
                .lines()
                .filter(|l| l.starts_with(r#"{"tile""#))
                .map(|l| l.len() as u64 + 1)
                .max()
                .unwrap_or(0);
            let (est, q) = output_bound(f);
            assert!(q >= quads, "quad bound {q} < {quads} written");
            assert!(longest <= quad_line_bytes(f), "{longest} > {}", quad_line_bytes(f));
            assert!(est >= text.len() as u64, "{est} < {}", text.len());
        }
    }

    #[test]
    fn lines_and_summary() {
        let frame = Scene::from_json(r#"{"config":{"preset":"ice40"}}"#, "t")
            .unwrap()
            .to_frame("t")
            .unwrap();
        let r = RasterOutput {
            quads: vec![
                TileQuad {
                    tile: [1, 0],
                    quad: Quad {
                        prim: 3,
                        qx: 9,
                        qy: 2,
                        mask: 0x8001,
                    },
                },
                TileQuad {
                    tile: [1, 0],
                    quad: Quad {
                        prim: 4,
                        qx: 9,
                        qy: 3,
                        mask: 0x7,
                    },
                },
            ],
            point_fragments: vec![(4, 9)],
            ..Default::default()
        };
        let mut buf = Vec::new();
        write_jsonl(&frame, &r, &mut buf).unwrap();
        let text = String::from_utf8(buf).unwrap();
        let lines: Vec<&str> = text.lines().collect();
        assert_eq!(lines[0], r#"{"tile":[1,0],"qx":9,"qy":2,"mask":"0x8001","prim":3}"#);
        assert_eq!(lines[1], r#"{"tile":[1,0],"qx":9,"qy":3,"mask":"0x0007","prim":4}"#);
        assert_eq!(lines[2], r#"{"point":4,"fragments":9}"#);
        // samples = popcount(0x8001) + popcount(0x7) = 2 + 3.
        assert_eq!(
            lines[3],
            r#"{"summary":{"quads":2,"samples":5,"points":1,"fragments":9,"prims":0,"msaa":4,"viewport":[160,120],"tile":[16,16]}}"#
        );
        for l in lines {
            serde_json::from_str::<serde_json::Value>(l).unwrap();
        }
    }
}
