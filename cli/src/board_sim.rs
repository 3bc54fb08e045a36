//! `tilerast board-sim`: a scene on a board with an SDRAM and a screen, sent over the board's
//! UART and simulated on the cycle models (`tilerast_golden::frame_host::FrameHostBench`: the
//! host's own protocol code, `protocol::Client`, drives both UART lines at the board's baud rate;
//! the frame host parses its LOAD BEATS and RUN FRAME and feeds the board top,
//! `tilerast_golden::board_top::BoardTop`: the frame top, the double buffer, the clock-crossing
//! GPU port, the memory arbiter, the SDRAM controller with the datasheet-checking chip model
//! behind its pins, the scan-out, the line buffer, the video output), the TMDS lanes decoded by
//! a checking DVI receiver. Writes the decoded picture (the video frame after the FRAME RESULT,
//! which the board sends once the frame is shown) to a PNG, optionally the raw lanes
//! (`--tmds`), and checks the picture and the FRAME RESULT's display CRC against golden's
//! render.
//!
//! With `--rtl` it replays the run's inputs into the RTL: the board top's logic
//! (`rtl-out/tilerast_board_top_<board>.v`, verilated) against its cycle model, every port at
//! every memory clock, its beats offered from the memory clock the frame host first offered
//! them; and the frame host (`rtl-out/tilerast_frame_host_<board>.v`) against its cycle model
//! under the inputs it had at every GPU clock; the PNG and the lanes are then the RTL's. The
//! UART's bit-level receiver and transmitter and the pins' cells are proven apart
//! (`hw/tests/fpga_top.rs`, `hw/tests/frame_top.rs`).

use crate::render::write_png;
use std::io::Write;
use std::path::PathBuf;
use tilerast::error::{CliError, Res};
use tilerast::output;
use tilerast::scene_io::{self, ImportArgs};
use tilerast_golden::bin_setup::frame_beats;
use tilerast_golden::board::board;
use tilerast_golden::frame::frame_memory;
use tilerast_golden::frame_host::{expect_frame, FrameHostBench};
use tilerast_golden::protocol::{Client, FRAME_CYCLES_TOLERANCE};

/// Memory clocks a run may take before it is called stuck (40 s of the ULX3S's SDRAM clock).
pub const MAX_TICKS: u64 = 4_000_000_000;

/// Beats per LOAD BEATS frame (29 bytes each).
pub const BEATS_PER_FRAME: usize = 64;

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
    let capacity = b.capacity as usize;
    if beats.len() > capacity {
        return Err(CliError(format!(
            "error: {}: {} beats ({} primitives and the end token), but board {}'s scene buffer holds {capacity} (the board table's capacity)",
            l.file,
            beats.len(),
            beats.len() - 1,
            b.name
        )));
    }
    let mut bench = FrameHostBench::new(b, capacity).map_err(|e| CliError(format!("error: {e}")))?;
    if a.rtl {
        bench = bench.record_inputs();
    }
    if a.tmds.is_some() {
        bench.top.env.capture = Some(Vec::new());
    }
    let sim_err = |e: String| CliError(format!("error: {}: {e}", l.file));
    let mut client = Client::new(bench);
    let desc = client.ping().map_err(sim_err)?;
    if !desc.frame_top || usize::from(desc.capacity) != capacity {
        return Err(sim_err(format!("the board answered {desc:?}")));
    }
    let loaded = client.load_beats(&beats, BEATS_PER_FRAME).map_err(sim_err)?;
    let result = client.run_frame().map_err(sim_err)?;
    let mut bench = client.link;
    // One more whole video frame after the FRAME RESULT: the capture ends with it.
    let frames = bench.top.env.receiver.frames.len();
    let mut ticks = 0;
    while bench.top.env.receiver.frames.len() <= frames {
        bench.tick();
        ticks += 1;
        if let Some(v) = &bench.top.env.violation {
            return Err(sim_err(v.clone()));
        }
        if ticks > MAX_TICKS {
            return Err(sim_err(format!(
                "no whole video frame in {MAX_TICKS} memory clocks after the FRAME RESULT"
            )));
        }
    }
    let top = &bench.top;
    let mut got = top.env.receiver.frames.last().cloned().expect("a frame decoded");
    let (first, done) = (
        bench.first_offer.expect("the beats were offered"),
        top.frames.first().map(|f| f.gpu_cycle).expect("a frame done"),
    );
    if u64::from(result.cycles) != done - first + 1 || usize::from(result.beats) != beats.len() {
        return Err(sim_err(format!(
            "FRAME RESULT {result:?}: the board top offered the first beat at GPU cycle {first} and was done at {done}"
        )));
    }
    // Golden's figure for the run (`expect_frame`: fed at the first video frame's end): the
    // same count when RUN FRAME came before that end, else within the host's tolerance.
    let golden = expect_frame(b, &frame, MAX_TICKS).map_err(sim_err)?;
    let ratio = f64::from(result.cycles) / golden.cycles as f64;
    if golden.crc != result.crc || (ratio - 1.0).abs() > FRAME_CYCLES_TOLERANCE {
        return Err(sim_err(format!(
            "FRAME RESULT {result:?}: golden's expect_frame gives {} cycles (ratio {ratio:.4}, tolerance {FRAME_CYCLES_TOLERANCE}) and CRC {:#010x}",
            golden.cycles, golden.crc
        )));
    }
    let against_golden = if u64::from(result.cycles) == golden.cycles {
        "= golden's expect_frame".to_string()
    } else {
        format!("golden's expect_frame {} (ratio {ratio:.4})", golden.cycles)
    };
    // The display CRC the board reports (FRAME RESULT): the RTL frame host's with --rtl (it
    // equalled the model's on every port), and the RTL board top's CRC at the GPU clock.
    let mut board_crc = result.crc;
    let rtl_words = if a.rtl {
        let (frame, words, crc) = rtl_run(b, beats.clone(), &bench)?;
        got = frame;
        if crc != board_crc {
            return Err(sim_err(format!(
                "the RTL board top's display CRC {crc:#010x} is not the FRAME RESULT's {board_crc:#010x}"
            )));
        }
        board_crc = crc;
        Some(words)
    } else {
        None
    };
    let top = &bench.top;
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
    let io = |e| tilerast::error::io_err(std::path::Path::new("<stdout>"), "write", e);
    writeln!(
        w,
        "board-sim: over the UART ({} baud): {loaded} beats loaded ({} LOAD BEATS frames), RUN FRAME; FRAME RESULT: {} GPU cycles from the first beat (GPU cycle {first}) to done ({against_golden}), display CRC {:#010x}, frame {}, buffer {} shown, flags {:#x}",
        b.baud,
        beats.len().div_ceil(BEATS_PER_FRAME),
        result.cycles,
        result.crc,
        result.frame,
        result.shown,
        result.flags
    )
    .map_err(io)?;
    if let (Some(from), Some(to)) = (bench.memory_at_first_offer, bench.memory_at_done) {
        writeln!(
            w,
            "board-sim: the frame's memory (first beat to done): {}",
            to.since(&from)
        )
        .map_err(io)?;
    }
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
            "board-sim: under the run's inputs, the RTL board top (rtl-out/tilerast_board_top_{0}.v, Verilator) equals BoardTopCycle on every port for {1} memory clocks, and the RTL frame host (rtl-out/tilerast_frame_host_{0}.v) equals FrameHostCycle on every port for {2} GPU clocks; the picture and the lanes below are the RTL's",
            b.name,
            st.ticks,
            bench.recorded().count()
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

/// The run's inputs replayed into the RTL: the board top beside its cycle model for the run's
/// memory clocks (its beats from the memory clock the frame host first offered them), the frame
/// host beside its own under the inputs it had at every GPU clock. The board top's last decoded
/// video frame, every pixel clock's characters and its display CRC at the GPU clock at the end.
#[cfg(feature = "rtl")]
fn rtl_run(
    b: &'static tilerast_golden::board::Board,
    beats: Vec<tilerast_golden::streams::PrimIn>,
    run: &FrameHostBench,
) -> Res<(
    tilerast_golden::video::VideoFrame,
    Vec<tilerast_golden::video::LinkWord>,
    u32,
)> {
    use tilerast_golden::cycle::Record;
    use tilerast_golden::streams::ports;
    use tilerast_verif::lockstep::{Bench, Lockstep, Replay, SdramChipAgent, Sink};
    let f = b.frame.expect("a frame row: checked by run");
    let first = run.first_offer_tick.expect("the beats were offered");
    let steps = run.top.stats().ticks;
    let model = tilerast_golden::board_top::BoardTopCycle::new(b).map_err(|e| CliError(format!("error: {e}")))?;
    let mut ls = Lockstep::new(model, tilerast_verif::board_top::bench_from(&f, beats, first).0);
    tilerast_cosim::blocks::cosim_lockstep(b.name, &mut ls, steps, None).map_err(|m| {
        CliError(format!(
            "error: board-sim --rtl: the RTL board top differs from its cycle model: {}",
            m.ports_line()
        ))
    })?;
    if let Some(v) = &ls.bench.get::<SdramChipAgent>("sdram").violation {
        return Err(CliError(format!("error: board-sim --rtl: sdram chip: {v}")));
    }
    // The frame host under the inputs it had.
    let record: Vec<_> = run.inputs.iter().flatten().map(|(i, n)| (i.to_ports(), *n)).collect();
    let edges = run.recorded().count() as u64;
    let host = tilerast_golden::frame_host::FrameHostCycle::new(b, b.capacity as usize)
        .map_err(|e| CliError(format!("error: {e}")))?;
    let mut hs = Lockstep::new(host, Bench::new().with("replay", Replay::new(record)));
    tilerast_cosim::blocks::cosim_lockstep(b.name, &mut hs, edges, None).map_err(|m| {
        CliError(format!(
            "error: board-sim --rtl: the RTL frame host differs from its cycle model: {}",
            m.ports_line()
        ))
    })?;
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
    _: &FrameHostBench,
) -> Res<(
    tilerast_golden::video::VideoFrame,
    Vec<tilerast_golden::video::LinkWord>,
    u32,
)> {
    Err(CliError(
        "error: --rtl: this tilerast is built without the rtl feature (Verilator models)".into(),
    ))
}
