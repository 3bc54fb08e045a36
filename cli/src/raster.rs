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
use clap::ValueEnum;
use std::io::Write;
use tilerast_golden::pipeline::{Event, PipelineError};
use tilerast_golden::{Frame, Quad};

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
pub fn run(frame: &Frame, file: &str, dest: &str, out: &mut dyn Write) -> Res<()> {
    let s = frame.cfg.msaa;
    let (mut quads, mut samples) = (0u64, 0u64);
    let r = tilerast_golden::pipeline::raster_stream(frame, false, |e| {
        if let Event::Quads { tile, quads: qs } = e {
            for q in qs {
                quads += 1;
                samples += q.samples() as u64;
                write_quad(out, tile, q, s).map_err(StreamFail::Io)?;
            }
        }
        Ok(())
    })
    .map_err(|e: StreamFail| e.at(file, dest))?;
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
