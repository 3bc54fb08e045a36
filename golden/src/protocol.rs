//! The UART protocol between a host and the FPGA top (`hw/src/fpga_top/`), pure code with no
//! I/O: constants, frame encoding and decoding, the quad-stream CRC, the golden expectation of
//! a run, a cycle-level UART line model, and a [`Client`] that speaks the protocol over any
//! [`Link`]. The host tool (`tilerast fpga`, a serial port) and the Verilator test of the whole
//! top (`cosim/tests/fpga_top.rs`, a simulated UART) both use exactly this code.
//!
//! ```text
//!   host ── frame (0xA5 op len payload chk) ──► uart_rx ─► parser ─► cmd RAM ─► raster_core
//!   host ◄─ frame (0x5A type len payload chk) ── uart_tx ◄─ responder ◄─ count / CRC / quads
//! ```
//!
//! The byte-exact description is in `hw/README.md`, section "FPGA top and UART protocol".
//! In short: host frames are `A5 op len_lo len_hi payload… chk`, board frames are
//! `5A type len_lo len_hi payload… chk`, and in both the bytes after the sync byte (op/type,
//! length, payload, chk) sum to 0 mod 256. All multi-byte fields are little-endian.
//!
//! The board top with a screen (`tilerast_top_<board>_frame`, issue 35) speaks the same
//! framing with its own records ("The frame top's frames" below): a scene's [`PrimIn`] beats
//! in LOAD BEATS frames, RUN FRAME, and a FRAME RESULT with the frame's GPU cycle count and the
//! CRC-32 of the picture the screen showed ([`display_crc`]); [`crate::frame_host::expect_frame`] is golden's
//! answer.

use crate::config::Config;
use crate::cycle::CycleModel;
use crate::raster_core::RasterCoreCycle;
use crate::streams::{ports, Cmd, PrimIn, Stream};
use crate::Quad;

/// Sync byte of a host → board frame.
pub const SYNC_HOST: u8 = 0xA5;
/// Sync byte of a board → host frame.
pub const SYNC_BOARD: u8 = 0x5A;
/// Protocol version reported by PING.
pub const VERSION: u8 = 1;

/// Host opcode: PING, no payload → [`Response::Desc`].
pub const OP_PING: u8 = 0x01;
/// Host opcode: LOAD, payload n × [`CMD_BYTES`] command records appended to the list → ACK.
pub const OP_LOAD: u8 = 0x02;
/// Host opcode: CLEAR, no payload: empty the command list → ACK.
pub const OP_CLEAR: u8 = 0x03;
/// Host opcode: RUN, payload one byte mode (0 count + CRC, 1 stream) → (QUAD…) RESULT.
pub const OP_RUN: u8 = 0x04;

/// Board type: descriptor (answer to PING).
pub const T_DESC: u8 = 0x81;
/// Board type: acknowledge (LOAD, CLEAR) with the number of commands loaded.
pub const T_ACK: u8 = 0x82;
/// Board type: one streamed quad.
pub const T_QUAD: u8 = 0x83;
/// Board type: result of a run.
pub const T_RESULT: u8 = 0x84;
/// Board type: error.
pub const T_ERROR: u8 = 0x8F;

/// Error code: the frame's checksum is wrong.
pub const E_CHECKSUM: u8 = 1;
/// Error code: unknown opcode.
pub const E_OPCODE: u8 = 2;
/// Error code: payload length wrong for the opcode (LOAD: not a multiple of [`CMD_BYTES`]).
pub const E_LENGTH: u8 = 3;
/// Error code: LOAD would exceed the command buffer's capacity (nothing of it is kept).
pub const E_CAPACITY: u8 = 4;
/// Error code: a UART stop bit was missing inside the frame.
pub const E_UART: u8 = 5;
/// Error code: the frame stopped for more than 2^20 clock cycles (the partial frame is dropped).
pub const E_TIMEOUT: u8 = 6;
/// Error code: RUN mode byte not 0 or 1.
pub const E_MODE: u8 = 7;
/// Error code (frame top): RUN FRAME without a whole frame loaded (no beats, or the last beat
/// is not a frame-end token).
pub const E_SCENE: u8 = 8;

/// RUN mode: count quads, CRC and cycles only (output always ready).
pub const MODE_COUNT: u8 = 0;
/// RUN mode: also stream every quad back (the core is back-pressured by the UART).
pub const MODE_STREAM: u8 = 1;

/// Bytes of one command record in a LOAD payload.
pub const CMD_BYTES: usize = 27;
/// Payload bytes of a descriptor.
pub const DESC_BYTES: usize = 12;
/// Payload bytes of a result.
pub const RESULT_BYTES: usize = 18;
/// Inter-byte timeout of the board's frame parser, in clock cycles.
pub const TIMEOUT_CYCLES: u64 = 1 << 20;

/// Human name of an error code.
pub fn error_name(code: u8) -> &'static str {
    match code {
        E_CHECKSUM => "bad checksum",
        E_OPCODE => "unknown opcode",
        E_LENGTH => "bad payload length",
        E_CAPACITY => "command buffer full",
        E_UART => "UART framing error",
        E_TIMEOUT => "frame timeout",
        E_MODE => "bad RUN mode",
        E_SCENE => "no whole frame loaded",
        _ => "unknown error",
    }
}

/// Mask bytes of a streamed quad for `msaa` samples per pixel (4·S bits, at least one byte).
pub fn mask_bytes(msaa: u32) -> usize {
    (4 * msaa as usize).div_ceil(8)
}

/// Payload bytes of a QUAD frame: prim u32 (24 bits used), qx u16, qy u16, mask.
pub fn quad_bytes(msaa: u32) -> usize {
    8 + mask_bytes(msaa)
}

/// A command as its 27-byte record: `flags` (bit 0 kind, bit 1 aa), `prim` (3), `tile_x`,
/// `tile_y`, `v0x v0y v1x v1y v2x v2y` (3 each, two's complement), `size` (3).
pub fn encode_cmd(c: &Cmd) -> [u8; CMD_BYTES] {
    let mut b = [0u8; CMD_BYTES];
    b[0] = (c.kind & 1) | (c.aa as u8) << 1;
    put24(&mut b[1..4], c.prim);
    b[4] = c.tile_x as u8;
    b[5] = c.tile_y as u8;
    for (i, v) in [c.v[0][0], c.v[0][1], c.v[1][0], c.v[1][1], c.v[2][0], c.v[2][1]]
        .iter()
        .enumerate()
    {
        put24(&mut b[6 + 3 * i..9 + 3 * i], *v as u32);
    }
    put24(&mut b[24..27], c.size);
    b
}

/// Inverse of [`encode_cmd`].
pub fn decode_cmd(b: &[u8; CMD_BYTES]) -> Cmd {
    let s24 = |x: u32| ((x << 8) as i32) >> 8;
    let g = |i: usize| get24(&b[i..i + 3]);
    Cmd {
        kind: b[0] & 1,
        aa: b[0] >> 1 & 1 == 1,
        prim: g(1),
        tile_x: b[4] as u32,
        tile_y: b[5] as u32,
        v: [
            [s24(g(6)), s24(g(9))],
            [s24(g(12)), s24(g(15))],
            [s24(g(18)), s24(g(21))],
        ],
        size: g(24),
    }
}

fn put24(d: &mut [u8], v: u32) {
    d.copy_from_slice(&v.to_le_bytes()[..3]);
}
fn get24(d: &[u8]) -> u32 {
    d[0] as u32 | (d[1] as u32) << 8 | (d[2] as u32) << 16
}

/// Checksum byte: makes the bytes after the sync byte sum to 0 mod 256.
pub fn checksum(bytes: &[u8]) -> u8 {
    bytes.iter().fold(0u8, |a, &b| a.wrapping_add(b)).wrapping_neg()
}

/// A complete frame: `sync op len_lo len_hi payload… chk`.
pub fn frame(sync: u8, op: u8, payload: &[u8]) -> Vec<u8> {
    assert!(payload.len() <= u16::MAX as usize, "payload too long for one frame");
    let mut f = vec![sync, op, payload.len() as u8, (payload.len() >> 8) as u8];
    f.extend_from_slice(payload);
    f.push(checksum(&f[1..]));
    f
}

/// A host → board frame.
pub fn host_frame(op: u8, payload: &[u8]) -> Vec<u8> {
    frame(SYNC_HOST, op, payload)
}

/// LOAD frames for `cmds`, at most `per_frame` commands each.
pub fn load_frames(cmds: &[Cmd], per_frame: usize) -> Vec<Vec<u8>> {
    cmds.chunks(per_frame.max(1))
        .map(|ch| host_frame(OP_LOAD, &ch.iter().flat_map(encode_cmd).collect::<Vec<u8>>()))
        .collect()
}

/// The CRC-32 of the RESULT and FRAME RESULT frames (its own module: the video output's
/// display CRC uses it too).
pub use crate::crc::Crc32;

/// What a RUN reports (RESULT payload).
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq)]
pub struct RunResult {
    /// Quads transferred (24-bit counter on the board).
    pub quads: u32,
    /// CRC-32 of every quad's mask, 4·S bits per quad, bit 0 first, in stream order.
    pub crc: u32,
    /// Clock cycles from the first command offered to the cycle the last `last` beat moved,
    /// inclusive (32-bit counter).
    pub cycles: u32,
    /// Σ (qx + 4096·qy) over all quads, mod 2^24.
    pub pos_sum: u32,
    /// Commands run.
    pub commands: u16,
}

impl RunResult {
    /// Fold one quad into quads / crc / pos_sum (the CRC state is kept raw in `crc` until
    /// [`RunResult::finish`]).
    fn add(&mut self, q: &Quad, mask_bits: u32, crc: &mut Crc32) {
        self.quads = (self.quads + 1) & 0xff_ffff;
        crc.bits(q.mask, mask_bits);
        self.pos_sum = (self.pos_sum + q.qx as u32 + 4096 * q.qy as u32) & 0xff_ffff;
    }
}

/// Golden expectation of a RUN of `cmds` on a board with config `cfg`: count, CRC and position
/// sum of the golden quad stream, and the cycle count of the cycle model
/// ([`RasterCoreCycle`]) fed the commands back to back with the output always ready.
/// Also returns the quads in order (what stream mode must send).
pub fn expect_run(cfg: &Config, cmds: &[Cmd]) -> (RunResult, Vec<Quad>) {
    let mut m = RasterCoreCycle::new(cfg);
    let mut r = RunResult {
        commands: cmds.len() as u16,
        ..Default::default()
    };
    let mut crc = Crc32::default();
    let mut quads = Vec::new();
    let mut next = 0usize;
    let mut lasts = 0usize;
    let mut cyc: u64 = 0;
    let bits = 4 * cfg.msaa;
    while lasts < cmds.len() {
        let valid = next < cmds.len();
        let c = if valid { cmds[next] } else { Cmd::default() };
        let (ov, beat) = m.out();
        let rdy = m.in_ready(true);
        if ov {
            for q in beat.quads() {
                r.add(&q, bits, &mut crc);
                quads.push(q);
            }
            lasts += beat.last as usize;
        }
        if valid && rdy {
            next += 1;
        }
        m.clock(valid, &c, true, false);
        cyc += 1;
        assert!(cyc < 1 << 32, "run longer than the 32-bit cycle counter");
    }
    r.cycles = cyc as u32;
    r.crc = crc.value();
    (r, quads)
}

/// Count, CRC and position sum of a quad list (what the board computes from what it streamed).
pub fn summarize(quads: &[Quad], msaa: u32) -> RunResult {
    let mut r = RunResult::default();
    let mut crc = Crc32::default();
    for q in quads {
        r.add(q, 4 * msaa, &mut crc);
    }
    r.crc = crc.value();
    r
}

/// PING answer: which bitstream the host is talking to.
#[derive(Clone, Debug, Default, PartialEq, Eq)]
pub struct Descriptor {
    /// Protocol version ([`VERSION`]).
    pub version: u8,
    /// Board index in [`crate::board::BOARDS`].
    pub board: u8,
    /// Preset index in `config::PRESETS`.
    pub preset: u8,
    pub msaa: u8,
    pub q: u8,
    /// Command buffer capacity.
    pub capacity: u16,
    /// Commands currently loaded.
    pub loaded: u16,
    /// Core clock in MHz (rounded); the frame top's GPU clock.
    pub clock_mhz: u8,
    /// The board top with a screen (magic "TF": `capacity` and `loaded` count [`PrimIn`]
    /// beats), not the raster-core top (magic "TR": commands).
    pub frame_top: bool,
}

impl Descriptor {
    /// Board name.
    pub fn board_name(&self) -> &'static str {
        crate::board::BOARDS
            .get(self.board as usize)
            .map_or("unknown", |b| b.name)
    }
    /// Preset name.
    pub fn preset_name(&self) -> &'static str {
        crate::config::PRESETS
            .get(self.preset as usize)
            .copied()
            .unwrap_or("unknown")
    }
}

/// One decoded board → host frame.
#[derive(Clone, Debug, PartialEq, Eq)]
pub enum Response {
    Desc(Descriptor),
    /// Commands loaded after the LOAD / CLEAR.
    Ack(u16),
    /// One streamed quad (mask bytes as on the wire).
    Quad(Quad),
    Result(RunResult),
    /// The frame top's answer to RUN FRAME.
    FrameResult(FrameResult),
    /// Error code and the opcode of the frame it answers.
    Error {
        code: u8,
        op: u8,
    },
}

/// Decode a board frame's payload (`typ` = its type byte); `msaa` sizes a QUAD payload.
pub fn decode_response(typ: u8, p: &[u8], msaa: u32) -> Result<Response, String> {
    let need = |n: usize| {
        if p.len() == n {
            Ok(())
        } else {
            Err(format!("type {typ:#04x}: payload of {} bytes, expected {n}", p.len()))
        }
    };
    let u16_at = |i: usize| p[i] as u16 | (p[i + 1] as u16) << 8;
    let u32_at = |i: usize| u32::from_le_bytes([p[i], p[i + 1], p[i + 2], p[i + 3]]);
    match typ {
        T_DESC => {
            need(DESC_BYTES)?;
            let frame_top = &p[0..2] == FRAME_MAGIC;
            if &p[0..2] != b"TR" && !frame_top {
                return Err(format!("descriptor magic {:02x?}, expected \"TR\" or \"TF\"", &p[0..2]));
            }
            Ok(Response::Desc(Descriptor {
                version: p[2],
                board: p[3],
                preset: p[4],
                msaa: p[5],
                q: p[6],
                capacity: u16_at(7),
                loaded: u16_at(9),
                clock_mhz: p[11],
                frame_top,
            }))
        }
        T_ACK => {
            need(2)?;
            Ok(Response::Ack(u16_at(0)))
        }
        T_ERROR => {
            need(2)?;
            Ok(Response::Error { code: p[0], op: p[1] })
        }
        T_RESULT => {
            need(RESULT_BYTES)?;
            Ok(Response::Result(RunResult {
                quads: u32_at(0),
                crc: u32_at(4),
                cycles: u32_at(8),
                pos_sum: u32_at(12),
                commands: u16_at(16),
            }))
        }
        T_FRAME_RESULT => {
            need(FRAME_RESULT_BYTES)?;
            Ok(Response::FrameResult(FrameResult {
                cycles: u32_at(0),
                crc: u32_at(4),
                beats: u16_at(8),
                frame: p[10],
                shown: p[11],
                flags: p[12],
            }))
        }
        T_QUAD => {
            need(quad_bytes(msaa))?;
            let mut mask = 0u64;
            for (i, &b) in p[8..].iter().enumerate() {
                mask |= (b as u64) << (8 * i);
            }
            Ok(Response::Quad(Quad {
                prim: u32_at(0),
                qx: u16_at(4),
                qy: u16_at(6),
                mask,
            }))
        }
        t => Err(format!("unknown frame type {t:#04x}")),
    }
}

/// Incremental parser of board → host bytes. Bytes before a sync byte are skipped (and
/// counted); a frame whose checksum fails is an error.
#[derive(Clone, Debug, Default)]
pub struct FrameParser {
    buf: Vec<u8>,
    /// Bytes skipped while looking for a sync byte.
    pub skipped: u64,
}

impl FrameParser {
    /// Feed bytes; returns every complete frame as `(type, payload)`.
    pub fn push(&mut self, bytes: &[u8]) -> Vec<Result<(u8, Vec<u8>), String>> {
        self.buf.extend_from_slice(bytes);
        let mut out = Vec::new();
        loop {
            let s = self.buf.iter().position(|&b| b == SYNC_BOARD).unwrap_or(self.buf.len());
            self.skipped += s as u64;
            self.buf.drain(..s);
            if self.buf.len() < 4 {
                break;
            }
            let len = self.buf[2] as usize | (self.buf[3] as usize) << 8;
            if self.buf.len() < 5 + len {
                break;
            }
            let f: Vec<u8> = self.buf.drain(..5 + len).collect();
            if f[1..].iter().fold(0u8, |a, &b| a.wrapping_add(b)) != 0 {
                out.push(Err(format!("board frame type {:#04x} with a bad checksum", f[1])));
            } else {
                out.push(Ok((f[1], f[4..4 + len].to_vec())));
            }
        }
        out
    }
}

/// A byte link to a board: a serial port, or a simulated UART.
pub trait Link {
    /// Send all bytes.
    fn send(&mut self, bytes: &[u8]) -> Result<(), String>;
    /// Receive at least one byte into `buf`, waiting at most the link's time (or cycle)
    /// budget; `Ok(0)` means nothing arrived within it.
    fn recv(&mut self, buf: &mut [u8]) -> Result<usize, String>;
}

/// The host side of the protocol over a [`Link`].
pub struct Client<L: Link> {
    pub link: L,
    parser: FrameParser,
    pending: std::collections::VecDeque<Result<(u8, Vec<u8>), String>>,
    /// Samples per pixel of the board (sizes QUAD frames); set by [`Client::ping`].
    pub msaa: u32,
    /// Empty `recv` calls tolerated while waiting for one frame.
    pub patience: u32,
}

impl<L: Link> Client<L> {
    /// A client; call [`Client::ping`] first.
    pub fn new(link: L) -> Self {
        Client {
            link,
            parser: FrameParser::default(),
            pending: Default::default(),
            msaa: 4,
            patience: 3,
        }
    }

    /// Bytes skipped so far while looking for a board frame's sync byte.
    pub fn parser_skipped(&self) -> u64 {
        self.parser.skipped
    }

    /// The next board frame, decoded.
    pub fn recv_frame(&mut self) -> Result<Response, String> {
        let mut idle = 0;
        loop {
            if let Some(f) = self.pending.pop_front() {
                let (t, p) = f?;
                return decode_response(t, &p, self.msaa);
            }
            let mut buf = [0u8; 4096];
            let n = self.link.recv(&mut buf)?;
            if n == 0 {
                idle += 1;
                if idle > self.patience {
                    return Err("timeout: no answer from the board".into());
                }
                continue;
            }
            idle = 0;
            let frames = self.parser.push(&buf[..n]);
            self.pending.extend(frames);
        }
    }

    /// Send raw bytes and return the next frame (tests use this for corrupted frames).
    pub fn raw(&mut self, bytes: &[u8]) -> Result<Response, String> {
        self.link.send(bytes)?;
        self.recv_frame()
    }

    fn expect_ack(&mut self, what: &str, bytes: &[u8]) -> Result<u16, String> {
        match self.raw(bytes)? {
            Response::Ack(n) => Ok(n),
            Response::Error { code, .. } => Err(format!("{what}: board error {code} ({})", error_name(code))),
            r => Err(format!("{what}: unexpected answer {r:?}")),
        }
    }

    /// PING: the board's descriptor (also sets [`Client::msaa`]).
    pub fn ping(&mut self) -> Result<Descriptor, String> {
        match self.raw(&host_frame(OP_PING, &[]))? {
            Response::Desc(d) => {
                if d.version != VERSION {
                    return Err(format!("board speaks protocol version {}, host {VERSION}", d.version));
                }
                self.msaa = d.msaa as u32;
                Ok(d)
            }
            r => Err(format!("PING: unexpected answer {r:?}")),
        }
    }

    /// CLEAR: empty the command list.
    pub fn clear(&mut self) -> Result<(), String> {
        match self.expect_ack("CLEAR", &host_frame(OP_CLEAR, &[]))? {
            0 => Ok(()),
            n => Err(format!("CLEAR: board still reports {n} commands")),
        }
    }

    /// LOAD `cmds` (appended), `per_frame` commands per frame; returns the board's count.
    pub fn load(&mut self, cmds: &[Cmd], per_frame: usize) -> Result<u16, String> {
        let mut n = 0;
        for f in load_frames(cmds, per_frame) {
            n = self.expect_ack("LOAD", &f)?;
        }
        Ok(n)
    }

    /// RUN in `mode`; returns the result and (stream mode) the quads received.
    pub fn run(&mut self, mode: u8) -> Result<(RunResult, Vec<Quad>), String> {
        self.link.send(&host_frame(OP_RUN, &[mode]))?;
        let mut quads = Vec::new();
        loop {
            match self.recv_frame()? {
                Response::Quad(q) => quads.push(q),
                Response::Result(r) => return Ok((r, quads)),
                Response::Error { code, .. } => return Err(format!("RUN: board error {code} ({})", error_name(code))),
                r => return Err(format!("RUN: unexpected answer {r:?}")),
            }
        }
    }
}

/// What one chunk of a checked command list did on the board and in the golden model.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct ChunkReport {
    /// Index of the chunk's first command in the whole list.
    pub first: usize,
    pub commands: usize,
    /// Count-mode result from the board.
    pub board: RunResult,
    /// Golden expectation ([`expect_run`]).
    pub golden: RunResult,
    /// Stream mode: quads received (equal to the golden quads), and the stream run's cycles.
    pub streamed: Option<(usize, u32)>,
}

/// The config a board with descriptor `d` runs (its preset), or why it cannot be used.
pub fn board_config(d: &Descriptor) -> Result<Config, String> {
    let cfg = Config::preset(d.preset_name()).map_err(|e| format!("board preset: {}", e.msg))?;
    if cfg.msaa != d.msaa as u32 || cfg.quads_per_clock != d.q as u32 {
        return Err(format!(
            "board reports preset {} with {}x MSAA and Q = {}, but the preset has {}x and Q = {}",
            cfg.name, d.msaa, d.q, cfg.msaa, cfg.quads_per_clock
        ));
    }
    Ok(cfg)
}

/// Run `cmds` on the board in chunks of its capacity (CLEAR, LOAD in frames of `per_frame`
/// commands, RUN in count mode, and with `stream` RUN again in stream mode) and compare every
/// chunk with the golden model: quad count, CRC, position sum and cycle count in count mode;
/// in stream mode every quad and the count / CRC / position sum. The first difference is an
/// error naming the chunk and the field. This is the whole check of `tilerast fpga`, and the
/// Verilator test of the top runs exactly this.
pub fn check_commands<L: Link>(
    c: &mut Client<L>,
    d: &Descriptor,
    cfg: &Config,
    cmds: &[Cmd],
    per_frame: usize,
    stream: bool,
) -> Result<Vec<ChunkReport>, String> {
    let cap = (d.capacity as usize).max(1);
    let mut out = Vec::new();
    for (k, chunk) in cmds.chunks(cap).enumerate() {
        let first = k * cap;
        let at = format!("chunk {k} (commands {first}..{})", first + chunk.len());
        c.clear().map_err(|e| format!("{at}: {e}"))?;
        let n = c.load(chunk, per_frame).map_err(|e| format!("{at}: {e}"))?;
        if n as usize != chunk.len() {
            return Err(format!(
                "{at}: board holds {n} commands after LOAD, sent {}",
                chunk.len()
            ));
        }
        let (golden, gquads) = expect_run(cfg, chunk);
        let (board, _) = c.run(MODE_COUNT).map_err(|e| format!("{at}: {e}"))?;
        let fields = |b: &RunResult, g: &RunResult, with_cycles: bool| -> Result<(), String> {
            let mut diffs = Vec::new();
            for (name, x, y) in [
                ("quads", b.quads, g.quads),
                ("crc", b.crc, g.crc),
                ("pos_sum", b.pos_sum, g.pos_sum),
                ("commands", b.commands as u32, g.commands as u32),
                ("cycles", b.cycles, g.cycles),
            ] {
                if x != y && (with_cycles || name != "cycles") {
                    diffs.push(format!("{name} board {x:#x} golden {y:#x}"));
                }
            }
            if diffs.is_empty() {
                Ok(())
            } else {
                Err(diffs.join(", "))
            }
        };
        fields(&board, &golden, true).map_err(|e| format!("{at}: count mode: {e}"))?;
        let mut streamed = None;
        if stream {
            let (sres, quads) = c.run(MODE_STREAM).map_err(|e| format!("{at}: {e}"))?;
            if let Some(i) = (0..quads.len().max(gquads.len())).find(|&i| quads.get(i) != gquads.get(i)) {
                return Err(format!(
                    "{at}: stream mode: quad #{i}: board {:?} golden {:?} ({} vs {} quads)",
                    quads.get(i),
                    gquads.get(i),
                    quads.len(),
                    gquads.len()
                ));
            }
            fields(&sres, &golden, false).map_err(|e| format!("{at}: stream mode: {e}"))?;
            streamed = Some((quads.len(), sres.cycles));
        }
        out.push(ChunkReport {
            first,
            commands: chunk.len(),
            board,
            golden,
            streamed,
        });
    }
    Ok(out)
}

// ---------------------------------------------------------------------------------------------
// The frame top's frames (the board top with a screen, `tilerast_top_<board>_frame`).
//
//   host ── PING ───────────────────────────► DESC, magic "TF", capacity in beats
//   host ── CLEAR ──────────────────────────► ACK 0
//   host ── LOAD BEATS (n × beat records) ──► ACK beats loaded      (appended; all or nothing)
//   host ── RUN FRAME ──────────────────────► FRAME RESULT          (once the frame is shown)

/// Descriptor magic of the frame top (the raster-core top's is "TR").
pub const FRAME_MAGIC: &[u8; 2] = b"TF";
/// Host opcode (frame top): LOAD BEATS, payload n × [`beat_bytes`] beat records
/// ([`encode_beat`]) appended to the scene buffer → ACK with the beats loaded. A payload that
/// is not whole records is [`E_LENGTH`]; one that would overflow the buffer is [`E_CAPACITY`]
/// and nothing of it is kept.
pub const OP_LOAD_BEATS: u8 = 0x05;
/// Host opcode (frame top): RUN FRAME, no payload: the loaded beats are offered once, in order,
/// to the frame top; when its frame is done, swapped in and shown, and the CRC of the first
/// whole video frame showing it is taken → [`T_FRAME_RESULT`]. Without a whole frame loaded:
/// [`E_SCENE`].
pub const OP_RUN_FRAME: u8 = 0x06;
/// Board type: the frame top's result of RUN FRAME ([`FrameResult`]).
pub const T_FRAME_RESULT: u8 = 0x85;
/// Payload bytes of a FRAME RESULT.
pub const FRAME_RESULT_BYTES: usize = 13;

/// Bits of one beat record's value: the `PrimIn` stream's fields, as declared once in
/// `streams.rs` (227: kind, six 24-bit coordinates, size, aa, colour, depth, end).
pub fn beat_bits() -> u32 {
    <ports::PrimIn as Stream>::FIELDS.iter().map(|f| f.width).sum()
}

/// Bytes of one beat record (whole bytes: 29).
pub fn beat_bytes() -> usize {
    beat_bits().div_ceil(8) as usize
}

/// A beat as its record: the board top's `inp` port value, the Verilog concatenation
/// `{kind, v0x, …, end}` of the stream's fields (the last field in bit 0; signed fields two's
/// complement in their width), little-endian, the top byte's unused bits zero. So the board
/// writes the bytes as they come into one port-wide word and offers it unchanged.
pub fn encode_beat(b: &PrimIn) -> Vec<u8> {
    let fields = <ports::PrimIn as Stream>::FIELDS;
    let bits = <ports::PrimIn as Stream>::to_bits(b);
    let mut out = vec![0u8; beat_bytes()];
    let mut at = 0u32;
    for (f, v) in fields.iter().zip(bits).rev() {
        for i in 0..f.width {
            if v >> i & 1 == 1 {
                out[(at / 8) as usize] |= 1 << (at % 8);
            }
            at += 1;
        }
    }
    out
}

/// Inverse of [`encode_beat`]; `Err` (one line) for a record of the wrong length or with a
/// padding bit set.
pub fn decode_beat(r: &[u8]) -> Result<PrimIn, String> {
    if r.len() != beat_bytes() {
        return Err(format!("beat record of {} bytes, expected {}", r.len(), beat_bytes()));
    }
    let total = beat_bits();
    if (total..8 * r.len() as u32).any(|i| r[(i / 8) as usize] >> (i % 8) & 1 == 1) {
        return Err(format!(
            "beat record: padding bits above bit {} are not zero",
            total - 1
        ));
    }
    let fields = <ports::PrimIn as Stream>::FIELDS;
    let mut bits = vec![0u64; fields.len()];
    let mut at = 0u32;
    for (k, f) in fields.iter().enumerate().rev() {
        for i in 0..f.width {
            bits[k] |= u64::from(r[(at / 8) as usize] >> (at % 8) & 1) << i;
            at += 1;
        }
    }
    Ok(<ports::PrimIn as Stream>::from_bits(&bits))
}

/// LOAD BEATS frames for `beats`, at most `per_frame` beats each.
pub fn load_beat_frames(beats: &[PrimIn], per_frame: usize) -> Vec<Vec<u8>> {
    beats
        .chunks(per_frame.max(1))
        .map(|ch| host_frame(OP_LOAD_BEATS, &ch.iter().flat_map(encode_beat).collect::<Vec<u8>>()))
        .collect()
}

/// FRAME RESULT flag: the video output's sticky `underrun`: a pixel missing at its clock since
/// the first vertical blank after power-up (the first video frame comes before the scan-out's
/// first walk, which starts in vertical blank, could fill the line buffer).
pub const FLAG_UNDERRUN: u8 = 1;
/// FRAME RESULT flag: the SDRAM controller's sticky `error`.
pub const FLAG_SDRAM_ERROR: u8 = 2;
/// FRAME RESULT flag: the double buffer's sticky `map_error`.
pub const FLAG_MAP_ERROR: u8 = 4;

/// Every FRAME RESULT flag with its name and meaning.
pub const FLAGS: [(u8, &str, &str); 3] = [
    (FLAG_UNDERRUN, "underrun", "the scan-out missed a pixel's clock"),
    (FLAG_SDRAM_ERROR, "SDRAM error", "the controller's sticky error"),
    (FLAG_MAP_ERROR, "map error", "the double buffer's sticky map error"),
];

/// The flags set in `flags`, named with their meaning ("none" when there are none).
pub fn flag_names(flags: u8) -> String {
    let names: Vec<String> = FLAGS
        .iter()
        .filter(|f| flags & f.0 != 0)
        .map(|f| format!("{} ({})", f.1, f.2))
        .collect();
    if names.is_empty() {
        "none".into()
    } else {
        names.join(", ")
    }
}

/// What RUN FRAME reports (FRAME RESULT payload, [`FRAME_RESULT_BYTES`]: cycles u32, crc u32,
/// beats u16, frame u8, shown u8, flags u8).
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq)]
pub struct FrameResult {
    /// GPU clock cycles from the first cycle the first beat is offered to the cycle of the
    /// frame top's `done`, inclusive (32-bit counter).
    pub cycles: u32,
    /// [`display_crc`] of the first whole video frame that showed the frame.
    pub crc: u32,
    /// Beats offered and taken.
    pub beats: u16,
    /// The frame's id (`done_frame`).
    pub frame: u8,
    /// The buffer shown (0 or 1).
    pub shown: u8,
    /// [`FLAG_UNDERRUN`] | [`FLAG_SDRAM_ERROR`] | [`FLAG_MAP_ERROR`].
    pub flags: u8,
}

impl FrameResult {
    /// The FRAME RESULT payload (what the board sends).
    pub fn payload(&self) -> [u8; FRAME_RESULT_BYTES] {
        let mut p = [0u8; FRAME_RESULT_BYTES];
        p[0..4].copy_from_slice(&self.cycles.to_le_bytes());
        p[4..8].copy_from_slice(&self.crc.to_le_bytes());
        p[8..10].copy_from_slice(&self.beats.to_le_bytes());
        p[10] = self.frame;
        p[11] = self.shown;
        p[12] = self.flags;
        p
    }
}

/// CRC-32 ([`Crc32`], zlib's) of a picture as the screen shows it: the active pixels row by
/// row, top-down, each pixel's bytes red, green, blue. The same as zlib's `crc32` of the
/// picture's raw RGB rows (a PNG's rows without their filter bytes), so any tool can check it.
pub fn display_crc(rgb: impl IntoIterator<Item = [u8; 3]>) -> u32 {
    let mut c = Crc32::default();
    for p in rgb {
        c.bytes(&p);
    }
    c.value()
}

/// [`display_crc`] of an RGBA image shown scaled by `scale` whole pixels (each framebuffer
/// pixel a `scale` × `scale` block of the screen; alpha is not shown).
pub fn screen_crc(image: &crate::output_merger::Image, scale: u32) -> u32 {
    let s = scale.max(1);
    let (w, h) = (image.width * s, image.height * s);
    display_crc((0..h).flat_map(|y| {
        (0..w).map(move |x| {
            let i = 4 * ((y / s) * image.width + x / s) as usize;
            [image.rgba[i], image.rgba[i + 1], image.rgba[i + 2]]
        })
    }))
}

/// Golden's answer to RUN FRAME of `frame` on `board`'s frame top, sent after power-up and
/// before the first video frame's end ([`crate::frame_host::expect_frame`] computes it).
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct FrameExpect {
    /// [`screen_crc`] of the frame's render (`frame_memory`'s image) at the scan-out's scale.
    pub crc: u32,
    /// The cycles of that run's [`FrameResult`], exactly: the frame host's count (from the
    /// first beat offered, at the edge after the display CRC's first toggle, to the frame's
    /// `done`, both included). A later run starts at the same phase of the video, but not of
    /// the SDRAM's refresh timer, and may find the other buffer in front
    /// ([`FRAME_CYCLES_TOLERANCE`]).
    pub cycles: u64,
    /// The frame's beats (primitives and its end token).
    pub beats: usize,
}

/// How far a board's frame cycle count may be from golden's
/// ([`crate::frame_host::expect_frame`]), as a fraction.
/// The frame host starts every run at a video frame's end, so a run differs from golden's only
/// by the SDRAM refresh timer's phase (it drifts against the video) and by which buffer is in
/// front; a second run of a scene on the golden board measures it
/// (`golden/tests/frame_host_cycle.rs` prints the ratio).
pub const FRAME_CYCLES_TOLERANCE: f64 = 0.01;

/// A frame top's run of one scene beside golden's.
#[derive(Clone, Debug)]
pub struct FrameCheck {
    pub board: FrameResult,
    pub golden: FrameExpect,
    /// The board's cycles over golden's.
    pub ratio: f64,
}

/// `frame` on the frame top behind `c` (descriptor `d`): CLEAR, LOAD BEATS (`per_frame` beats
/// per frame), RUN FRAME, and the FRAME RESULT checked against `golden` (the frame's
/// [`crate::frame_host::expect_frame`] on the board): every beat taken, the display CRC equal,
/// no flag ([`flag_names`]), the cycles within [`FRAME_CYCLES_TOLERANCE`] of golden's.
/// `Err`: one line naming the field.
pub fn check_frame<L: Link>(
    c: &mut Client<L>,
    d: &Descriptor,
    frame: &crate::Frame,
    golden: &FrameExpect,
    per_frame: usize,
) -> Result<FrameCheck, String> {
    if !d.frame_top {
        return Err(format!(
            "board {} runs the raster top, not the frame top",
            d.board_name()
        ));
    }
    let beats = crate::bin_setup::frame_beats(&frame.prims, frame.background)?;
    if beats.len() > usize::from(d.capacity) {
        return Err(format!(
            "the scene has {} beats, the board's scene buffer holds {}",
            beats.len(),
            d.capacity
        ));
    }
    if beats.len() != golden.beats {
        return Err(format!(
            "the scene has {} beats, golden's expectation {}",
            beats.len(),
            golden.beats
        ));
    }
    c.clear()?;
    let loaded = c.load_beats(&beats, per_frame)?;
    if usize::from(loaded) != beats.len() {
        return Err(format!(
            "LOAD BEATS: the board has {loaded} beats, {} sent",
            beats.len()
        ));
    }
    let r = c.run_frame()?;
    if usize::from(r.beats) != golden.beats {
        return Err(format!("FRAME RESULT beats {}, golden {}", r.beats, golden.beats));
    }
    if r.crc != golden.crc {
        return Err(format!(
            "FRAME RESULT display CRC {:#010x}, golden's {:#010x}",
            r.crc, golden.crc
        ));
    }
    if r.flags != 0 {
        return Err(format!("FRAME RESULT flags {:#x}: {}", r.flags, flag_names(r.flags)));
    }
    let ratio = f64::from(r.cycles) / golden.cycles.max(1) as f64;
    if (ratio - 1.0).abs() > FRAME_CYCLES_TOLERANCE {
        return Err(format!(
            "FRAME RESULT cycles {}, golden {} (ratio {ratio:.3}, tolerance {FRAME_CYCLES_TOLERANCE})",
            r.cycles, golden.cycles
        ));
    }
    Ok(FrameCheck {
        board: r,
        golden: *golden,
        ratio,
    })
}

impl<L: Link> Client<L> {
    /// LOAD BEATS `beats` (appended), `per_frame` beats per frame; returns the board's count.
    pub fn load_beats(&mut self, beats: &[PrimIn], per_frame: usize) -> Result<u16, String> {
        let mut n = 0;
        for f in load_beat_frames(beats, per_frame) {
            n = self.expect_ack("LOAD BEATS", &f)?;
        }
        Ok(n)
    }

    /// RUN FRAME: the frame top's result.
    pub fn run_frame(&mut self) -> Result<FrameResult, String> {
        match self.raw(&host_frame(OP_RUN_FRAME, &[]))? {
            Response::FrameResult(r) => Ok(r),
            Response::Error { code, .. } => Err(format!("RUN FRAME: board error {code} ({})", error_name(code))),
            r => Err(format!("RUN FRAME: unexpected answer {r:?}")),
        }
    }
}

/// Cycle-level model of an 8N1 UART line, as the FPGA top's UART implements it (see
/// `hw/src/uart.rs`): idle high, start bit low, 8 data bits LSB first, stop bit high, each bit
/// `div` clock cycles.
pub mod uart {
    use std::collections::VecDeque;

    /// Turns bytes into a line level per clock cycle.
    #[derive(Clone, Debug)]
    pub struct Serializer {
        pub div: u32,
        bits: VecDeque<bool>,
        left: u32,
        cur: bool,
        /// Idle stop bits inserted after each byte (≥ 1; more = a slower sender).
        pub stop_bits: u32,
    }

    impl Serializer {
        pub fn new(div: u32) -> Self {
            Serializer {
                div,
                bits: VecDeque::new(),
                left: 0,
                cur: true,
                stop_bits: 1,
            }
        }
        /// Queue bytes.
        pub fn push(&mut self, bytes: &[u8]) {
            for &b in bytes {
                self.bits.push_back(false);
                for i in 0..8 {
                    self.bits.push_back(b >> i & 1 == 1);
                }
                for _ in 0..self.stop_bits {
                    self.bits.push_back(true);
                }
            }
        }
        /// Queue one byte with a broken (low) stop bit.
        pub fn push_bad_stop(&mut self, b: u8) {
            self.bits.push_back(false);
            for i in 0..8 {
                self.bits.push_back(b >> i & 1 == 1);
            }
            self.bits.push_back(false);
            self.bits.push_back(true);
        }
        /// Nothing left to send.
        pub fn idle(&self) -> bool {
            self.bits.is_empty() && self.left == 0
        }
        /// Line level during the next cycle.
        pub fn tick(&mut self) -> bool {
            if self.left == 0 {
                match self.bits.pop_front() {
                    Some(b) => {
                        self.cur = b;
                        self.left = self.div;
                    }
                    None => return true,
                }
            }
            self.left -= 1;
            self.cur
        }
    }

    /// Samples a line per clock cycle and recovers bytes (start edge, then the middle of each
    /// bit), reporting framing errors.
    #[derive(Clone, Debug)]
    pub struct Deserializer {
        pub div: u32,
        state: u32,
        count: u32,
        shift: u8,
        prev: bool,
        /// Bytes whose stop bit was low.
        pub framing_errors: u32,
    }

    impl Deserializer {
        pub fn new(div: u32) -> Self {
            Deserializer {
                div,
                state: 0,
                count: 0,
                shift: 0,
                prev: true,
                framing_errors: 0,
            }
        }
        /// One cycle of line level `v`; returns a byte when its stop bit is sampled.
        pub fn tick(&mut self, v: bool) -> Option<u8> {
            let mut out = None;
            match self.state {
                0 => {
                    if self.prev && !v {
                        self.state = 1;
                        self.count = self.div / 2;
                    }
                }
                s => {
                    self.count -= 1;
                    if self.count == 0 {
                        self.count = self.div;
                        match s {
                            1 => self.state = if v { 0 } else { 2 },
                            2..=9 => {
                                self.shift = self.shift >> 1 | (v as u8) << 7;
                                self.state += 1;
                            }
                            _ => {
                                if v {
                                    out = Some(self.shift);
                                } else {
                                    self.framing_errors += 1;
                                }
                                self.state = 0;
                            }
                        }
                    }
                }
            }
            self.prev = v;
            out
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn cmd_record_round_trips() {
        let c = Cmd {
            kind: 1,
            prim: 0xabcdef,
            tile_x: 7,
            tile_y: 200,
            v: [[-5, 8_000_000], [-8_388_608, 1], [0, -1]],
            size: 0x123456,
            aa: true,
        };
        let b = encode_cmd(&c);
        assert_eq!(b[0], 3);
        assert_eq!(&b[1..4], &[0xef, 0xcd, 0xab]);
        assert_eq!(&b[6..9], &[0xfb, 0xff, 0xff]);
        assert_eq!(decode_cmd(&b), c);
    }

    #[test]
    fn frames_sum_to_zero_and_parse() {
        let f = frame(SYNC_BOARD, T_ACK, &[5, 1]);
        assert_eq!(f, vec![0x5A, 0x82, 2, 0, 5, 1, 0u8.wrapping_sub(0x82 + 2 + 5 + 1)]);
        let mut p = FrameParser::default();
        let mut bytes = vec![0x00, 0x13];
        bytes.extend(&f);
        let r = p.push(&bytes[..5]);
        assert!(r.is_empty());
        let r = p.push(&bytes[5..]);
        assert_eq!(r, vec![Ok((T_ACK, vec![5, 1]))]);
        assert_eq!(p.skipped, 2);
        let mut bad = f.clone();
        bad[4] ^= 1;
        assert!(p.push(&bad)[0].is_err());
        assert_eq!(decode_response(T_ACK, &[5, 1], 4), Ok(Response::Ack(261)));
    }

    #[test]
    fn beat_records_are_the_inp_port_value_little_endian() {
        // 1 + 6·24 + 24 + 1 + 32 + 24 + 1 bits (kind, vertices, size, aa, colour, depth, end).
        assert_eq!((beat_bits(), beat_bytes()), (227, 29));
        let end = encode_beat(&PrimIn {
            end: true,
            ..PrimIn::default()
        });
        assert_eq!(end[0], 1, "end is bit 0");
        assert!(end[1..].iter().all(|&b| b == 0));
        // kind is the top field: bit 226 = byte 28, bit 2.
        let kind = encode_beat(&PrimIn {
            kind: 1,
            ..PrimIn::default()
        });
        assert_eq!((kind[28], kind[..28].iter().any(|&b| b != 0)), (4, false));
        // depth sits right above end: bits 1..=24.
        let depth = encode_beat(&PrimIn {
            depth: 0xab_cdef,
            ..PrimIn::default()
        });
        assert_eq!(&depth[..4], &[0xde, 0x9b, 0x57, 0x01]);
        // v2y = -1: 24 ones above size (24), aa (1), colour (32), depth (24), end (1): bits 82..106.
        let v = encode_beat(&PrimIn {
            v: [[0, 0], [0, 0], [0, -1]],
            ..PrimIn::default()
        });
        let ones: Vec<u32> = (0..227).filter(|&i| v[i as usize / 8] >> (i % 8) & 1 == 1).collect();
        assert_eq!(ones, (82..106).collect::<Vec<u32>>());
    }

    #[test]
    fn beat_records_round_trip_and_bad_ones_are_refused() {
        let mut r = crate::rng::Rng::new(0xbea7);
        for _ in 0..500 {
            let b = PrimIn {
                kind: r.below(2) as u8,
                v: [0; 3].map(|_| [r.signed(24) as i32, r.signed(24) as i32]),
                size: r.below(1 << 24) as u32,
                aa: r.chance(50),
                colour: r.next_u32(),
                depth: r.below(1 << 24) as u32,
                end: r.chance(20),
            };
            let rec = encode_beat(&b);
            assert_eq!(rec.len(), 29);
            assert_eq!(decode_beat(&rec), Ok(b));
        }
        let rec = encode_beat(&PrimIn::default());
        assert!(decode_beat(&rec[..28]).unwrap_err().contains("28 bytes, expected 29"));
        let mut pad = rec.clone();
        pad[28] |= 1 << 3;
        assert!(decode_beat(&pad).unwrap_err().contains("padding"));
        // LOAD BEATS frames: whole records, at most per_frame each.
        let beats = vec![PrimIn::default(); 5];
        let fs = load_beat_frames(&beats, 2);
        assert_eq!(
            fs.iter().map(|f| f.len()).collect::<Vec<_>>(),
            vec![5 + 58, 5 + 58, 5 + 29]
        );
        assert_eq!(&fs[0][..2], &[SYNC_HOST, OP_LOAD_BEATS]);
    }

    #[test]
    fn frame_results_and_frame_top_descriptors_decode() {
        let r = FrameResult {
            cycles: 0x0102_0304,
            crc: 0xcbf4_3926,
            beats: 0x0506,
            frame: 7,
            shown: 1,
            flags: FLAG_UNDERRUN | FLAG_MAP_ERROR,
        };
        let p = r.payload();
        assert_eq!(p, [4, 3, 2, 1, 0x26, 0x39, 0xf4, 0xcb, 6, 5, 7, 1, 5]);
        let mut parser = FrameParser::default();
        let got = parser.push(&frame(SYNC_BOARD, T_FRAME_RESULT, &p));
        let (t, payload) = got[0].clone().unwrap();
        assert_eq!(decode_response(t, &payload, 1), Ok(Response::FrameResult(r)));
        assert!(decode_response(T_FRAME_RESULT, &p[..12], 1).is_err());
        let mut desc = vec![b'T', b'F', VERSION, 2, 0, 1, 1, 0, 4, 3, 0, 50];
        match decode_response(T_DESC, &desc, 1) {
            Ok(Response::Desc(d)) => {
                assert!(
                    d.frame_top && d.capacity == 1024 && d.loaded == 3 && d.clock_mhz == 50,
                    "{d:?}"
                )
            }
            r => panic!("{r:?}"),
        }
        desc[1] = b'R';
        assert!(matches!(decode_response(T_DESC, &desc, 1), Ok(Response::Desc(d)) if !d.frame_top));
        desc[0] = b'X';
        assert!(decode_response(T_DESC, &desc, 1).is_err());
        assert_eq!(error_name(E_SCENE), "no whole frame loaded");
    }

    #[test]
    fn display_crc_is_zlib_crc32_of_the_rgb_rows() {
        // Three pixels whose bytes are "123456789": the CRC-32 check value.
        assert_eq!(display_crc([*b"123", *b"456", *b"789"]), 0xCBF4_3926);
        // A 2 × 1 image shown at scale 2: two screen rows, each a a b b.
        let image = crate::output_merger::Image {
            width: 2,
            height: 1,
            rgba: vec![1, 2, 3, 255, 4, 5, 6, 0],
        };
        let a = [1u8, 2, 3];
        let b = [4u8, 5, 6];
        assert_eq!(screen_crc(&image, 2), display_crc([a, a, b, b, a, a, b, b]));
        assert_eq!(screen_crc(&image, 1), display_crc([a, b]));
        assert_ne!(screen_crc(&image, 1), display_crc([b, a]), "order counts");
    }

    /// A board that answers from a script and keeps what it was sent.
    struct Scripted {
        sent: Vec<u8>,
        answers: std::collections::VecDeque<Vec<u8>>,
    }

    impl Link for Scripted {
        fn send(&mut self, bytes: &[u8]) -> Result<(), String> {
            self.sent.extend_from_slice(bytes);
            Ok(())
        }
        fn recv(&mut self, buf: &mut [u8]) -> Result<usize, String> {
            let a = self.answers.pop_front().unwrap_or_default();
            buf[..a.len()].copy_from_slice(&a);
            Ok(a.len())
        }
    }

    #[test]
    fn the_client_loads_beats_and_runs_a_frame() {
        let beats: Vec<PrimIn> = (0..3)
            .map(|i| PrimIn {
                colour: 0x1000 + i,
                end: i == 2,
                ..PrimIn::default()
            })
            .collect();
        let result = FrameResult {
            cycles: 1234,
            crc: 0xdead_beef,
            beats: 3,
            ..FrameResult::default()
        };
        let mut c = Client::new(Scripted {
            sent: Vec::new(),
            answers: [
                frame(SYNC_BOARD, T_ACK, &[2, 0]),
                frame(SYNC_BOARD, T_ACK, &[3, 0]),
                frame(SYNC_BOARD, T_FRAME_RESULT, &result.payload()),
                frame(SYNC_BOARD, T_ERROR, &[E_SCENE, OP_RUN_FRAME]),
            ]
            .into(),
        });
        assert_eq!(c.load_beats(&beats, 2), Ok(3));
        assert_eq!(c.run_frame(), Ok(result));
        assert!(c.run_frame().unwrap_err().contains("no whole frame loaded"));
        // What went out: two LOAD BEATS frames whose records decode to the beats, then RUN FRAME twice.
        let mut sent = c.link.sent.as_slice();
        let mut got = Vec::new();
        for n in [2, 1] {
            let len = 29 * n;
            assert_eq!(&sent[..4], &[SYNC_HOST, OP_LOAD_BEATS, len as u8, 0]);
            assert_eq!(checksum(&sent[1..4 + len]), sent[4 + len]);
            got.extend(sent[4..4 + len].chunks(29).map(|r| decode_beat(r).unwrap()));
            sent = &sent[5 + len..];
        }
        assert_eq!(got, beats);
        let run = host_frame(OP_RUN_FRAME, &[]);
        assert_eq!(sent, [run.clone(), run].concat());
    }

    #[test]
    fn uart_model_round_trips_and_flags_bad_stop_bits() {
        let mut s = uart::Serializer::new(7);
        let mut d = uart::Deserializer::new(7);
        s.push(&[0x00, 0xff, 0xa5, 0x3c]);
        s.push_bad_stop(0x11);
        s.push(&[0x5a]);
        let mut got = Vec::new();
        for _ in 0..7 * 10 * 8 {
            if let Some(b) = d.tick(s.tick()) {
                got.push(b);
            }
        }
        assert_eq!(got, vec![0x00, 0xff, 0xa5, 0x3c, 0x5a]);
        assert_eq!(d.framing_errors, 1);
    }
}
