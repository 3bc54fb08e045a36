//! The frame's figures: what [`FrameCycle`] spends on one scene at one preset, the numbers the
//! frame bench (`cargo bench -p tilerast-golden --bench frame`) writes to
//! `target/bench/frame.json` and, with `-- --update-docs`, as the table between the
//! `frame-bench` markers of `docs/measurements.md`. `golden/tests/frame_figures.rs` reruns the
//! rows it can afford and compares them with that committed table, line for line, so a stale
//! figure goes red. Every figure is a cycle or byte count of the cycle model (block-RAM timing,
//! memory never busy), so it is deterministic.
//!
//! ```text
//!  scene ─► frame at the preset (the scene's viewport kept) ─► run_frames ×1 ─► phases, bytes
//!                                                          └─► run_frames ×8 ─► steady cycles / frame
//!        ─► commands ─► run_commands (the raster core alone, output always ready)
//! ```

use super::{run_frames, FrameCycle, FrameCycleStats};
use crate::board::BOARDS;
use crate::config::Config;
use crate::pipeline::commands;
use crate::pixel_back_end::MemBehaviour;
use crate::raster_core::run_commands;
use crate::scene::Frame;

/// Frames run back to back for [`FrameFigures::steady_cycles_per_frame`].
pub const STEADY_FRAMES: usize = 8;

/// The markers around the generated table in `docs/measurements.md`.
pub const TABLE_BEGIN: &str = "<!-- frame-bench:begin -->";
pub const TABLE_END: &str = "<!-- frame-bench:end -->";

/// One scene at one preset.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct FrameFigures {
    pub scene: String,
    pub preset: String,
    /// One frame alone (first primitive in → Done), and the raster core alone.
    pub cycles: CycleFigures,
    /// [`STEADY_FRAMES`] frames of the scene back to back: their cycles / [`STEADY_FRAMES`].
    pub steady_cycles_per_frame: u64,
}

/// The frame of scene `own` at `preset`, its viewport kept; `Err` names why the frame top is
/// not built for it ([`FrameCycle::supported`]'s line).
pub fn frame_at(own: &Frame, preset: &str) -> Result<Frame, String> {
    let mut frame = own.clone();
    frame.cfg = Config::preset(preset).map_err(|e| e.to_string())?;
    frame.cfg.viewport = own.cfg.viewport;
    FrameCycle::supported(&frame.cfg)?;
    Ok(frame)
}

/// One frame alone through [`FrameCycle`]: the columns of [`FrameFigures`] but the steady
/// ones, what `tilerast explore --cycles` adds to its figures.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct CycleFigures {
    pub frame_cycles: u64,
    pub raster_core_cycles: u64,
    pub port_bytes: u64,
    pub port_bound_cycles: u64,
    pub bin_phase_cycles: u64,
    pub raster_phase_cycles: u64,
    pub pixel_phase_cycles: u64,
    /// Bytes through the port in the Pixel phase.
    pub pixel_phase_bytes: u64,
    /// The frame top's on-chip RAM for the config ([`super::ram::frame_ram_bits`], the
    /// emitted Verilog's count).
    pub ram_bits: u64,
}

impl CycleFigures {
    /// Run `frame` once through the frame top's cycle model and the raster core alone; also
    /// the frame's counters. `Err` is one line (the top not built for the config, or the run).
    pub fn measure(frame: &Frame) -> Result<(CycleFigures, FrameCycleStats), String> {
        FrameCycle::supported(&frame.cfg)?;
        let one = run_frames(&frame.cfg, &[frame], MemBehaviour::default(), u64::MAX)?;
        let d = one.frames.first().ok_or("frame: no Done")?;
        let s = d.stats;
        let cmds = commands(frame).map_err(|e| e.to_string())?;
        let (core, _) = run_commands(&frame.cfg, &cmds, u64::MAX)?;
        let port_bytes: u64 = s.clients.iter().map(|c| c.bytes).sum();
        let f = CycleFigures {
            frame_cycles: d.cycles,
            raster_core_cycles: core,
            port_bytes,
            port_bound_cycles: port_bytes / 4,
            bin_phase_cycles: s.bin_cycles,
            raster_phase_cycles: s.raster_cycles,
            pixel_phase_cycles: s.pixel_cycles,
            pixel_phase_bytes: s.pixel_bytes,
            ram_bits: super::ram::frame_ram_bits(&frame.cfg),
        };
        Ok((f, s))
    }

    /// The figures' names as [`CycleFigures::rows`] gives them: the nine counts, then
    /// `fps_<board>` for every board.
    pub fn names() -> &'static [&'static str] {
        static NAMES: std::sync::OnceLock<Vec<&'static str>> = std::sync::OnceLock::new();
        NAMES.get_or_init(|| {
            let mut v = vec![
                "frame_cycles",
                "raster_core_cycles",
                "port_bytes",
                "port_bound_cycles",
                "bin_phase_cycles",
                "raster_phase_cycles",
                "pixel_phase_cycles",
                "pixel_phase_bytes",
                "ram_bits",
            ];
            static FPS: std::sync::OnceLock<Vec<String>> = std::sync::OnceLock::new();
            let fps = FPS.get_or_init(|| BOARDS.iter().map(|b| format!("fps_{}", b.name)).collect());
            v.extend(fps.iter().map(String::as_str));
            v
        })
    }

    /// Name and value of every figure, [`CycleFigures::names`] order.
    pub fn rows(&self) -> Vec<(&'static str, f64)> {
        let mut v = vec![
            self.frame_cycles as f64,
            self.raster_core_cycles as f64,
            self.port_bytes as f64,
            self.port_bound_cycles as f64,
            self.bin_phase_cycles as f64,
            self.raster_phase_cycles as f64,
            self.pixel_phase_cycles as f64,
            self.pixel_phase_bytes as f64,
            self.ram_bits as f64,
        ];
        v.extend(
            BOARDS
                .iter()
                .map(|b| b.clock_hz() as f64 / self.frame_cycles.max(1) as f64),
        );
        Self::names().iter().copied().zip(v).collect()
    }
}

impl FrameFigures {
    /// Run `frame` (scene `scene`, built by [`frame_at`]) and measure it ([`CycleFigures`],
    /// then [`STEADY_FRAMES`] frames back to back); also the counters of the single frame, for
    /// the bench's other columns.
    pub fn measure(scene: &str, frame: &Frame) -> Result<(FrameFigures, FrameCycleStats), String> {
        let (c, s) = CycleFigures::measure(frame)?;
        let steady = run_frames(&frame.cfg, &[frame; STEADY_FRAMES], MemBehaviour::default(), u64::MAX)?;
        let f = FrameFigures {
            scene: scene.to_string(),
            preset: frame.cfg.name.clone(),
            cycles: c,
            steady_cycles_per_frame: steady.cycles / STEADY_FRAMES as u64,
        };
        Ok((f, s))
    }

    /// Frames per second at each board's clock (`BOARDS` order), frames back to back (the
    /// steady cycles per frame: the next frame's raster beside this one's pixel phase).
    pub fn fps(&self) -> Vec<(&'static str, f64)> {
        BOARDS
            .iter()
            .map(|b| (b.name, b.clock_hz() as f64 / self.steady_cycles_per_frame.max(1) as f64))
            .collect()
    }

    /// The goal "the frame at its port": frame cycles over max(raster core alone, port bound)
    /// (issue 34 asks for ≤ 1.25).
    pub fn frame_over_bound(&self) -> f64 {
        let c = &self.cycles;
        c.frame_cycles as f64 / c.raster_core_cycles.max(c.port_bound_cycles).max(1) as f64
    }

    /// The goal "the pixel side at raster speed": Pixel-phase cycles over max(raster core
    /// alone, the Pixel phase's bytes ÷ 4) (issue 34 asks for ≤ 1).
    pub fn pixel_over_bound(&self) -> f64 {
        let c = &self.cycles;
        c.pixel_phase_cycles as f64 / c.raster_core_cycles.max(c.pixel_phase_bytes / 4).max(1) as f64
    }

    /// The goal "frames overlapped": steady cycles per frame over max(Raster phase, Pixel
    /// phase, port bound) (issue 34 asks for ≤ 1.1).
    pub fn steady_over_bound(&self) -> f64 {
        let c = &self.cycles;
        let bound = c.raster_phase_cycles.max(c.pixel_phase_cycles).max(c.port_bound_cycles);
        self.steady_cycles_per_frame as f64 / bound.max(1) as f64
    }

    /// The JSON object of `target/bench/frame.json`.
    pub fn to_json(&self) -> serde_json::Value {
        let fps: serde_json::Map<String, serde_json::Value> =
            self.fps().into_iter().map(|(b, f)| (b.to_string(), f.into())).collect();
        serde_json::json!({
            "scene": self.scene,
            "preset": self.preset,
            "frame_cycles": self.cycles.frame_cycles,
            "raster_core_cycles": self.cycles.raster_core_cycles,
            "port_bytes": self.cycles.port_bytes,
            "port_bound_cycles": self.cycles.port_bound_cycles,
            "bin_phase_cycles": self.cycles.bin_phase_cycles,
            "raster_phase_cycles": self.cycles.raster_phase_cycles,
            "pixel_phase_cycles": self.cycles.pixel_phase_cycles,
            "pixel_phase_bytes": self.cycles.pixel_phase_bytes,
            "ram_bits": self.cycles.ram_bits,
            "steady_cycles_per_frame": self.steady_cycles_per_frame,
            "fps": fps,
        })
    }

    /// The table's header (two lines).
    pub fn table_header() -> String {
        let mut h = String::from(
            "| scene | preset | frame cycles | raster core alone | port bound | Bin | Raster | Pixel \
             | 8 frames, per frame | Pixel ÷ max(core, Pixel bytes ÷ 4) | frame ÷ max(core, port) \
             | 8 frames ÷ max(Raster, Pixel, port) | on-chip RAM, Mbit |",
        );
        let mut rule = String::from("|---|---|---:|---:|---:|---:|---:|---:|---:|---:|---:|---:|---:|");
        for b in BOARDS {
            h += &format!(" fps@{} |", b.name);
            rule += "---:|";
        }
        format!("{h}\n{rule}")
    }

    /// This row of the table (one line).
    pub fn table_row(&self) -> String {
        let mut r = format!(
            "| `{}` | `{}` | {} | {} | {} | {} | {} | {} | {} | {:.2} | {:.2} | {:.2} | {:.2} |",
            self.scene,
            self.preset,
            self.cycles.frame_cycles,
            self.cycles.raster_core_cycles,
            self.cycles.port_bound_cycles,
            self.cycles.bin_phase_cycles,
            self.cycles.raster_phase_cycles,
            self.cycles.pixel_phase_cycles,
            self.steady_cycles_per_frame,
            self.pixel_over_bound(),
            self.frame_over_bound(),
            self.steady_over_bound(),
            self.cycles.ram_bits as f64 / 1e6,
        );
        for (_, f) in self.fps() {
            r += &format!(" {f:.2} |");
        }
        r
    }
}

/// The generated table: markers, header, one row per figure (in the order given).
pub fn table(rows: &[FrameFigures]) -> String {
    let mut t = format!("{TABLE_BEGIN}\n{}\n", FrameFigures::table_header());
    for r in rows {
        t += &r.table_row();
        t.push('\n');
    }
    t + TABLE_END
}

/// One committed row of the table: scene, preset, frame cycles, and the line itself.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct CommittedRow {
    pub scene: String,
    pub preset: String,
    pub frame_cycles: u64,
    pub line: String,
}

/// Where the two markers start in `text`, or one line naming the one missing or out of order.
fn markers(file: &str, text: &str) -> Result<(usize, usize), String> {
    let begin = text
        .find(TABLE_BEGIN)
        .ok_or_else(|| format!("{file}: no `{TABLE_BEGIN}` marker"))?;
    let end = text
        .find(TABLE_END)
        .ok_or_else(|| format!("{file}: no `{TABLE_END}` marker"))?;
    if end < begin {
        return Err(format!("{file}: `{TABLE_END}` comes before `{TABLE_BEGIN}`"));
    }
    Ok((begin, end))
}

/// The rows between the markers of `text` (the contents of `docs/measurements.md`), or one
/// line naming what is wrong (`file` names the file in it).
pub fn committed_rows(file: &str, text: &str) -> Result<Vec<CommittedRow>, String> {
    let (begin, end) = markers(file, text)?;
    let first_line = text[..begin].lines().count() + 1;
    let body = &text[begin + TABLE_BEGIN.len()..end];
    let header = FrameFigures::table_header();
    let mut lines = body.lines().filter(|l| !l.trim().is_empty()).peekable();
    for h in header.lines() {
        match lines.next() {
            Some(l) if l == h => {}
            Some(l) => {
                return Err(format!(
                    "{file}: the frame table's header differs from the bench's: `{l}`"
                ))
            }
            None => return Err(format!("{file}: the frame table has no header")),
        }
    }
    let mut rows = Vec::new();
    for (i, l) in lines.enumerate() {
        let cells: Vec<&str> = l.split('|').map(str::trim).collect();
        let at = format!("{file}:{} (row {})", first_line + i + 3, i + 1);
        let cell = |k: usize| cells.get(k).copied().ok_or_else(|| format!("{at}: too few cells"));
        let unquote = |s: &str| s.trim_matches('`').to_string();
        let frame_cycles = cell(3)?
            .parse()
            .map_err(|_| format!("{at}: frame cycles `{}` is not a number", cells[3]))?;
        rows.push(CommittedRow {
            scene: unquote(cell(1)?),
            preset: unquote(cell(2)?),
            frame_cycles,
            line: l.to_string(),
        });
    }
    Ok(rows)
}

/// `text` with the table between the markers replaced by `table`'s (the markers kept), or one
/// line naming what is missing.
pub fn replace_table(file: &str, text: &str, rows: &[FrameFigures]) -> Result<String, String> {
    let (begin, end) = markers(file, text)?;
    Ok(format!(
        "{}{}{}",
        &text[..begin],
        table(rows),
        &text[end + TABLE_END.len()..]
    ))
}

#[cfg(test)]
mod tests {
    use super::*;

    fn row(scene: &str, cycles: u64) -> FrameFigures {
        FrameFigures {
            scene: scene.into(),
            preset: "ice40".into(),
            cycles: CycleFigures {
                frame_cycles: cycles,
                raster_core_cycles: 10,
                port_bytes: 400,
                port_bound_cycles: 100,
                bin_phase_cycles: 1,
                raster_phase_cycles: 2,
                pixel_phase_cycles: cycles - 4,
                pixel_phase_bytes: 40,
                ram_bits: 1_000_000,
            },
            steady_cycles_per_frame: cycles,
        }
    }

    #[test]
    fn the_table_reads_back_what_it_wrote() {
        let rows = [row("a", 1000), row("b", 250)];
        let doc = format!("# x\n\ntext\n{}\nmore\n", table(&rows));
        let back = committed_rows("doc.md", &doc).unwrap();
        assert_eq!(back.len(), 2);
        assert_eq!((back[0].scene.as_str(), back[0].frame_cycles), ("a", 1000));
        assert_eq!(back[1].line, rows[1].table_row());
        assert!(back[0].line.contains("| 10.00 |"), "{}", back[0].line);
        let again = replace_table("doc.md", &doc, &rows[..1]).unwrap();
        assert!(again.starts_with("# x\n\ntext\n") && again.ends_with("\nmore\n"));
        assert_eq!(committed_rows("doc.md", &again).unwrap().len(), 1);
    }

    #[test]
    fn a_broken_table_is_one_line_naming_the_file() {
        let e = committed_rows("doc.md", "nothing").unwrap_err();
        assert!(e.starts_with("doc.md: no `<!-- frame-bench:begin -->`"), "{e}");
        let bad = table(&[row("a", 1000)]).replace("| 1000 |", "| lots |");
        let e = committed_rows("doc.md", &bad).unwrap_err();
        assert!(e.contains("doc.md:4 (row 1): frame cycles `lots`"), "{e}");
        let e = committed_rows("doc.md", &bad.replace("| scene |", "| scenes |")).unwrap_err();
        assert!(e.contains("header differs"), "{e}");
    }
}
