//! `tilerast board-sim`: a scene on a board with an SDRAM and a screen, simulated on the board
//! top's cycle model (`tilerast_golden::board_top::BoardTop`: the frame top, the double buffer,
//! the clock-crossing GPU port, the memory arbiter, the SDRAM controller with the datasheet-
//! checking chip model behind its pins, the scan-out, the line buffer, the video output), the
//! TMDS lanes decoded by a checking DVI receiver. Writes the decoded picture (after the scene's
//! frame has swapped in) to a PNG, optionally the raw lanes (`--tmds`), and checks the picture
//! against golden's render pixel for pixel.
//!
//! With `--rtl` it also runs the board top's logic as RTL (`rtl-out/tilerast_board_top_<board>.v`,
//! verilated) in lock-step with its cycle model, every port at every memory clock for the same
//! memory clocks, and the PNG and the lanes are the RTL's. The FPGA top around that logic (the
//! PLL, the serialisers, the UART) is not built yet.

use crate::render::write_png;
use std::io::Write;
use std::path::PathBuf;
use tilerast::error::{CliError, Res};
use tilerast::output;
use tilerast::scene_io::{self, ImportArgs};
use tilerast_golden::bin_setup::frame_beats;
use tilerast_golden::board::board;
use tilerast_golden::board_top::BoardTop;
use tilerast_golden::frame::frame_memory;

/// Memory clocks a run may take before it is called stuck (40 s of the ULX3S's SDRAM clock).
pub const MAX_TICKS: u64 = 4_000_000_000;

#[derive(clap::Args, Debug)]
pub struct BoardSimArgs {
    /// Scene file (.json, .obj, .svg); omitted = the built-in default. Its preset is the
    /// board's frame row's (an OBJ or SVG is fitted to that viewport).
    pub scene: Option<PathBuf>,
    /// Board (its row in the board table must have a frame row: SDRAM and screen).
    #[arg(long, default_value = "ulx3s")]
    pub board: String,
    /// Output PNG: the picture decoded from the TMDS lanes.
    #[arg(short, long, default_value = "frame.png")]
    pub out: PathBuf,
    /// Also write the raw lanes, one line per pixel clock from power-up: the three channels'
    /// 10-bit characters in hex, blue, green, red, blanking included; it ends with a whole
    /// video frame showing the scene.
    #[arg(long, value_name = "FILE")]
    pub tmds: Option<PathBuf>,
    /// Also run the RTL board top (`rtl-out/tilerast_board_top_<board>.v`, verilated) beside
    /// the cycle model, every port compared at every memory clock; the PNG and the lanes are
    /// then the RTL's.
    #[arg(long)]
    pub rtl: bool,
    #[command(flatten)]
    pub import: ImportArgs,
}

pub fn run(a: &BoardSimArgs, w: &mut dyn Write) -> Res<()> {
    let b = board(&a.board).map_err(|e| CliError(format!("error: --board: {e}")))?;
    let f = b.frame.ok_or_else(|| {
        CliError(format!(
            "error: --board: {} has no frame row (no SDRAM and screen)",
            b.name
        ))
    })?;
    let inputs: Vec<&std::path::Path> = a.scene.iter().map(|p| p.as_path()).collect();
    let png = output::OutSpec {
        flag: "-o",
        path: &a.out,
        exts: &["png"],
        what: "a PNG image",
    };
    output::check(&png, &inputs)?;
    if let Some(p) = &a.tmds {
        let spec = output::OutSpec {
            flag: "--tmds",
            path: p,
            exts: &["txt", "tmds"],
            what: "the TMDS capture (text)",
        };
        output::check(&spec, &inputs)?;
    }
    if let Some(p) = &a.import.preset {
        if p != f.preset {
            return Err(CliError(format!(
                "error: --preset: board {} renders at preset {}, not {p}",
                b.name, f.preset
            )));
        }
    }
    let mut import = a.import.clone();
    import.preset = Some(f.preset.to_string());
    let l = scene_io::load(a.scene.as_ref(), &import)?;
    let frame = l.frame()?;
    let want_cfg = tilerast_golden::Config::preset(f.preset).map_err(|e| CliError(format!("error: {e}")))?;
    if frame.cfg != want_cfg {
        return Err(CliError(format!(
            "error: {}: config: the scene changes preset {}'s fields, and the board's frame top is built for the preset as it is",
            l.file, f.preset
        )));
    }
    let beats = frame_beats(&frame.prims, frame.background).map_err(|e| CliError(format!("error: {}: {e}", l.file)))?;
    let want = frame_memory(&frame, 0)
        .map_err(|e| CliError(format!("error: {}: {e}", l.file)))?
        .image;
    let mut top = BoardTop::new(b, beats.clone()).map_err(|e| CliError(format!("error: {e}")))?;
    if a.tmds.is_some() {
        top.env.capture = Some(Vec::new());
    }
    let mut got = top
        .run(1, MAX_TICKS)
        .map_err(|e| CliError(format!("error: {}: {e}", l.file)))?;
    // The display CRC the board brings into the GPU clock (FRAME RESULT's crc): the RTL's with
    // --rtl (it equalled the model's on every step), else the cycle model's.
    let mut board_crc = top.block.frame_crc().0;
    let rtl_words = if a.rtl {
        let (frame, words, crc) = rtl_run(b, beats, top.stats().ticks)?;
        got = frame;
        board_crc = crc;
        Some(words)
    } else {
        None
    };
    let rgba: Vec<u8> = got.rgb.iter().flat_map(|p| [p[0], p[1], p[2], 255]).collect();
    write_png(&a.out, got.width, got.height, &rgba)?;
    if let (Some(p), Some(words)) = (&a.tmds, rtl_words.as_ref().or(top.env.capture.as_ref())) {
        std::fs::write(p, tilerast_golden::video::format_words(words))
            .map_err(|e| tilerast::error::io_err(p, "write", e))?;
    }
    let wrong = (0..got.rgb.len())
        .filter(|&i| got.rgb[i] != [want.rgba[4 * i], want.rgba[4 * i + 1], want.rgba[4 * i + 2]])
        .count();
    let st = top.stats();
    let db = top.block.double_buffer.stats();
    let done = top.frames[0].gpu_cycle;
    let io = |e| tilerast::error::io_err(std::path::Path::new("<stdout>"), "write", e);
    writeln!(
        w,
        "board-sim: {} ({}), {}: frame done at GPU cycle {done} ({:.2} ms at {} MHz), swapped in and shown; {} memory clocks, {} pixel clocks, {} video frames decoded",
        b.name,
        f.preset,
        l.file,
        done as f64 * 1e3 / f64::from(f.gpu_hz),
        f.gpu_hz / 1_000_000,
        st.ticks,
        st.pixel_clocks,
        top.env.receiver.frames.len()
    )
    .map_err(io)?;
    writeln!(
        w,
        "board-sim: back buffer cleared ({} writes), {} framebuffer requests, GPU port {} requests beside the scan-out; line buffer peak {} words, underruns {}; SDRAM chip: no datasheet rule broken",
        db.clear_writes, db.framebuffer, st.gpu_requests, st.peak_line_words, st.underruns
    )
    .map_err(io)?;
    if a.rtl {
        writeln!(
            w,
            "board-sim: the RTL board top (rtl-out/tilerast_board_top_{}.v, Verilator) equals BoardTopCycle on every port for {} memory clocks; the picture and the lanes below are the RTL's",
            b.name,
            st.ticks
        )
        .map_err(io)?;
    }
    writeln!(w, "wrote {} ({}x{})", a.out.display(), got.width, got.height).map_err(io)?;
    if let Some(p) = &a.tmds {
        writeln!(w, "wrote {} ({} pixel clocks)", p.display(), top.env.receiver.clocks()).map_err(io)?;
    }
    let scale = tilerast_golden::scan_out::ScanOutParams::for_board(&f)
        .map_err(|e| CliError(format!("error: {e}")))?
        .scale;
    let golden_crc = tilerast_golden::protocol::screen_crc(&want, scale);
    let shown_crc = tilerast_golden::protocol::display_crc(got.rgb.iter().copied());
    writeln!(
        w,
        "board-sim: display CRC {board_crc:#010x} at the GPU clock (the FRAME RESULT's crc); the decoded picture's {shown_crc:#010x}, golden's render's {golden_crc:#010x}"
    )
    .map_err(io)?;
    if wrong > 0 || st.underruns > 0 {
        return Err(CliError(format!(
            "error: {}: the picture on the lanes differs from golden's render in {wrong} pixels, {} underruns",
            l.file, st.underruns
        )));
    }
    if board_crc != golden_crc || shown_crc != golden_crc {
        return Err(CliError(format!(
            "error: {}: display CRC {board_crc:#010x} at the GPU clock, {shown_crc:#010x} decoded, golden's {golden_crc:#010x}",
            l.file
        )));
    }
    writeln!(
        w,
        "board-sim: picture = golden's render, pixel for pixel; display CRC = golden's"
    )
    .map_err(io)?;
    Ok(())
}

/// The RTL board top beside its cycle model for `steps` memory clocks (the cycle model's run):
/// its last decoded video frame, every pixel clock's characters and its display CRC at the GPU
/// clock at the end.
#[cfg(feature = "rtl")]
fn rtl_run(
    b: &'static tilerast_golden::board::Board,
    beats: Vec<tilerast_golden::streams::PrimIn>,
    steps: u64,
) -> Res<(
    tilerast_golden::video::VideoFrame,
    Vec<tilerast_golden::video::LinkWord>,
    u32,
)> {
    use tilerast_golden::streams::ports;
    use tilerast_verif::lockstep::{Lockstep, SdramChipAgent, Sink};
    let f = b.frame.expect("a frame row: checked by run");
    let model = tilerast_golden::board_top::BoardTopCycle::new(b).map_err(|e| CliError(format!("error: {e}")))?;
    let mut ls = Lockstep::new(model, tilerast_verif::board_top::bench(&f, beats).0);
    tilerast_cosim::blocks::cosim_lockstep(b.name, &mut ls, steps, None).map_err(|m| {
        CliError(format!(
            "error: board-sim --rtl: the RTL board top differs from its cycle model: {}",
            m.ports_line()
        ))
    })?;
    if let Some(v) = &ls.bench.get::<SdramChipAgent>("sdram").violation {
        return Err(CliError(format!("error: board-sim --rtl: sdram chip: {v}")));
    }
    let words = &ls.bench.get::<Sink<ports::DviWord>>("tmds").received;
    let frames = tilerast_verif::display_path::decode(&f, words)
        .map_err(|e| CliError(format!("error: board-sim --rtl: the RTL's lanes: {e}")))?;
    let last = frames
        .last()
        .cloned()
        .ok_or_else(|| CliError("error: board-sim --rtl: no whole video frame on the RTL's lanes".into()))?;
    Ok((
        last,
        words.iter().map(|w| [w.blue, w.green, w.red]).collect(),
        ls.model.frame_crc().0,
    ))
}

#[cfg(not(feature = "rtl"))]
fn rtl_run(
    _: &'static tilerast_golden::board::Board,
    _: Vec<tilerast_golden::streams::PrimIn>,
    _: u64,
) -> Res<(
    tilerast_golden::video::VideoFrame,
    Vec<tilerast_golden::video::LinkWord>,
    u32,
)> {
    Err(CliError(
        "error: --rtl: this tilerast is built without the rtl feature (Verilator models)".into(),
    ))
}
