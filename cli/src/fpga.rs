//! `tilerast fpga --port DEV --scene F`: run a scene on a board over the UART protocol
//! (`hw/README.md`, "FPGA top and UART protocol") and check every answer against the golden
//! model. The protocol, the chunking and the checks are `tilerast_golden::protocol` (the
//! Verilator test of the top, `cosim/tests/fpga_top.rs`, runs the very same code over a
//! simulated UART); this file only adds the serial port (`serialport`, no libudev) and the
//! report.
//!
//! ```text
//!   scene ─► Frame (board's preset) ─► commands ─┐
//!   --port ─► SerialLink ─► Client ─ PING ───────┴─► check_commands: per chunk of the board's
//!                                                    capacity CLEAR, LOAD…, RUN count (+ stream)
//!                                                    vs expect_run (count, CRC, pos sum, cycles)
//! ```
//!
//! Exit code 0 when every chunk matched, 1 with one error line naming the chunk and field
//! otherwise (or for a bad port / scene / a board that does not answer).

use crate::error::{CliError, Res};
use crate::scene_io::{self, ImportArgs};
use clap::Args;
use std::io::{Read, Write};
use std::path::PathBuf;
use std::time::Duration;
use tilerast_golden::board;
use tilerast_golden::pipeline::commands;
use tilerast_golden::protocol::{self, Client, Link};

/// Options of `tilerast fpga`.
#[derive(Args, Debug)]
pub struct FpgaArgs {
    /// Serial port of the board (e.g. /dev/ttyUSB1 on iCEBreaker, the FTDI's second interface).
    #[arg(long, value_name = "DEV")]
    pub port: String,
    /// Scene (.json, .obj, .svg); its preset is replaced by the board's.
    #[arg(long, value_name = "F")]
    pub scene: PathBuf,
    /// Baud rate (the board table's, `board::DEFAULT_BAUD`, unless the bitstream was built otherwise).
    #[arg(long, default_value_t = board::DEFAULT_BAUD)]
    pub baud: u32,
    /// Also run in stream mode and compare every quad (slow: one UART frame per quad).
    #[arg(long)]
    pub stream: bool,
    /// Commands per LOAD frame (1..=2427), or beats per LOAD BEATS frame on a frame top
    /// (1..=2259).
    #[arg(long, default_value_t = 64)]
    pub per_frame: usize,
    /// Milliseconds without a byte before the board is considered silent.
    #[arg(long, default_value_t = 2000)]
    pub timeout_ms: u64,
    #[command(flatten)]
    pub import: ImportArgs,
}

/// A serial port as a protocol link.
struct SerialLink {
    port: Box<dyn serialport::SerialPort>,
    name: String,
}

impl Link for SerialLink {
    fn send(&mut self, bytes: &[u8]) -> Result<(), String> {
        self.port
            .write_all(bytes)
            .and_then(|_| self.port.flush())
            .map_err(|e| format!("{}: write: {e}", self.name))
    }

    fn recv(&mut self, buf: &mut [u8]) -> Result<usize, String> {
        match self.port.read(buf) {
            Ok(n) => Ok(n),
            Err(e) if e.kind() == std::io::ErrorKind::TimedOut => Ok(0),
            Err(e) => Err(format!("{}: read: {e}", self.name)),
        }
    }
}

/// Run `tilerast fpga`.
pub fn run(a: &FpgaArgs, out: &mut dyn Write) -> Res<()> {
    if !(1..=u16::MAX as usize / protocol::CMD_BYTES).contains(&a.per_frame) {
        return Err(CliError::at(
            "--per-frame",
            a.per_frame,
            format!("must be in 1..={}", u16::MAX as usize / protocol::CMD_BYTES),
        ));
    }
    if a.baud == 0 {
        return Err(CliError::at("--baud", a.baud, "must be a positive baud rate"));
    }
    if a.timeout_ms == 0 {
        return Err(CliError::at("--timeout-ms", a.timeout_ms, "must be at least 1 ms"));
    }
    // Read and check the scene before opening the port: a bad scene is reported as such, not
    // after a PING timeout. Its preset is the board's, known only after PING: a JSON scene is
    // kept and given it then; an OBJ / SVG is fitted to the board's viewport, so imported again.
    let pre = scene_io::load(Some(&a.scene), &a.import)?;
    let port = serialport::new(&a.port, a.baud)
        .timeout(Duration::from_millis(a.timeout_ms.max(1)))
        .open()
        .map_err(|e| CliError::at(&a.port, "open", e))?;
    let mut c = Client::new(SerialLink {
        port,
        name: a.port.clone(),
    });
    c.patience = 1;
    let d = c.ping().map_err(|e| CliError::at(&a.port, "PING", e))?;
    if d.frame_top {
        return run_frame_top(a, &mut c, &d, pre, out);
    }
    let cfg = protocol::board_config(&d).map_err(|e| CliError::at(&a.port, "descriptor", e))?;
    writeln!(
        out,
        "board {} (preset {}, {}x MSAA, Q = {}, {} MHz), capacity {} commands, protocol v{}",
        d.board_name(),
        cfg.name,
        d.msaa,
        d.q,
        d.clock_mhz,
        d.capacity,
        d.version
    )
    .map_err(|e| CliError::at("<stdout>", "write", e))?;
    // The scene, rasterized with the board's preset.
    let mut imp = a.import.clone();
    imp.preset = Some(cfg.name.clone());
    let loaded = match scene_io::kind_of(&a.scene)? {
        scene_io::SceneKind::Json => {
            let mut l = pre;
            l.scene
                .config
                .insert("preset".into(), serde_json::Value::String(cfg.name.clone()));
            l
        }
        _ => scene_io::load(Some(&a.scene), &imp)?,
    };
    let frame = loaded.frame()?;
    if frame.cfg != cfg {
        return Err(CliError::at(
            a.scene.display(),
            "config",
            format!(
                "the scene overrides the board preset `{}`; the bitstream only runs the preset itself",
                cfg.name
            ),
        ));
    }
    let cmds = commands(&frame).map_err(|e| CliError::at(a.scene.display(), "binning", e.0))?;
    let rep = protocol::check_commands(&mut c, &d, &cfg, &cmds, a.per_frame, a.stream)
        .map_err(|e| CliError::at(&a.port, "mismatch", e))?;
    let w = |e| CliError::at("<stdout>", "write", e);
    for r in &rep {
        writeln!(
            out,
            "commands {}..{}: quads {} crc {:08x} pos_sum {:06x} cycles {} (golden cycle model {}){}",
            r.first,
            r.first + r.commands,
            r.board.quads,
            r.board.crc,
            r.board.pos_sum,
            r.board.cycles,
            r.golden.cycles,
            match r.streamed {
                Some((n, cyc)) => format!(", stream: {n} quads equal, {cyc} cycles"),
                None => String::new(),
            }
        )
        .map_err(w)?;
    }
    let quads: u64 = rep.iter().map(|r| r.board.quads as u64).sum();
    let cycles: u64 = rep.iter().map(|r| r.board.cycles as u64).sum();
    writeln!(
        out,
        "OK: {} commands, {quads} quads, {cycles} cycles = {:.3} quads/cycle; every count, CRC, position sum and cycle count equals golden",
        cmds.len(),
        quads as f64 / cycles.max(1) as f64
    )
    .map_err(w)?;
    Ok(())
}

/// Memory clocks golden's board model may take for one frame (40 s of the ULX3S's SDRAM clock).
const FRAME_MAX_TICKS: u64 = 4_000_000_000;

/// The frame top (descriptor "TF"): the scene at the board's frame row's preset, loaded, run
/// once, and its FRAME RESULT checked against golden (`protocol::check_frame`).
fn run_frame_top<L: Link>(
    a: &FpgaArgs,
    c: &mut Client<L>,
    d: &protocol::Descriptor,
    pre: scene_io::Loaded,
    out: &mut dyn Write,
) -> Res<()> {
    let most = u16::MAX as usize / protocol::beat_bytes();
    if a.per_frame > most {
        return Err(CliError::at(
            "--per-frame",
            a.per_frame,
            format!("a frame top takes at most {most} beats per LOAD BEATS frame"),
        ));
    }
    let b = board::BOARDS
        .get(usize::from(d.board))
        .ok_or_else(|| CliError::at(&a.port, "descriptor", format!("board index {}", d.board)))?;
    let f = b.frame.ok_or_else(|| {
        CliError::at(
            &a.port,
            "descriptor",
            format!("board {} answered as a frame top but has no frame row", b.name),
        )
    })?;
    let w = |e| CliError::at("<stdout>", "write", e);
    writeln!(
        out,
        "board {} frame top (preset {}, {} MHz GPU clock), scene buffer {} beats, protocol v{}",
        b.name, f.preset, d.clock_mhz, d.capacity, d.version
    )
    .map_err(w)?;
    let mut imp = a.import.clone();
    imp.preset = Some(f.preset.to_string());
    let loaded = match scene_io::kind_of(&a.scene)? {
        scene_io::SceneKind::Json => {
            let mut l = pre;
            l.scene
                .config
                .insert("preset".into(), serde_json::Value::String(f.preset.to_string()));
            l
        }
        _ => scene_io::load(Some(&a.scene), &imp)?,
    };
    let frame = loaded.frame()?;
    let want = tilerast_golden::Config::preset(f.preset).map_err(|e| CliError(format!("error: {e}")))?;
    if frame.cfg != want {
        return Err(CliError::at(
            a.scene.display(),
            "config",
            format!(
                "the scene overrides the board preset `{}`; the bitstream only runs the preset itself",
                f.preset
            ),
        ));
    }
    let golden = tilerast_golden::frame_host::expect_frame(b, &frame, FRAME_MAX_TICKS)
        .map_err(|e| CliError::at(a.scene.display(), "golden", e))?;
    let r =
        protocol::check_frame(c, d, &frame, &golden, a.per_frame).map_err(|e| CliError::at(&a.port, "mismatch", e))?;
    writeln!(
        out,
        "OK: {} beats, display CRC {:#010x} = golden's; {} GPU cycles, golden {} (ratio {:.3}); frame {}, buffer {} shown, flags {:#x}",
        r.board.beats, r.board.crc, r.board.cycles, r.golden.cycles, r.ratio, r.board.frame, r.board.shown, r.board.flags
    )
    .map_err(w)?;
    Ok(())
}
