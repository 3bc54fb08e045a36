//! # frame_host: the frame top's UART host interface at the GPU clock (issue 35)
//!
//! **Role.** The board side of the frame top's UART frames ([`crate::protocol`], "The frame
//! top's frames"): it parses the host's frames from the UART receiver's bytes, keeps a scene's
//! [`PrimIn`] beats in a buffer (block RAM in the RTL, `hw/src/frame_host.rs`),
//! offers them once to the board top on RUN FRAME, counts the GPU cycles to the frame's `done`,
//! waits for the swap and the first whole video frame that shows it, and answers with a FRAME
//! RESULT carrying that frame's display CRC. This is its cycle model, written before the RTL:
//! the RTL block is held to it on every port and every cycle.
//!
//! ```text
//!  rx bytes ─► parser (A5 op len payload chk) ─► LOAD BEATS: 29-byte records ─► scene buffer
//!                  │ exec at the checksum byte                                     │ RUN FRAME
//!                  ▼                                                               ▼
//!  tx bytes ◄─ responder (DESC, ACK, ERROR, FRAME RESULT) ◄─ run: feed ─► beat ─► board top
//!                                 ▲                        count to done, swap, shown, CRC
//!                                 └──────── frame_crc, crc_toggle, front, shown, flags ◄┘
//! ```
//!
//! **Timing contract** (per GPU clock edge; every output is from registers; [`FrameHostPorts`]
//! names the ports):
//! * **Flush** (synchronous): the power-up state: nothing loaded, parsing, running or answered.
//! * **Responder.** `tx` is the first byte of the answer being sent; it advances at an edge
//!   with `tx_ready`. An answer is queued whole at the edge that executes a frame.
//! * **Parser.** `in_ready` is high while no RUN FRAME is going on and no answer is being sent;
//!   a byte (`inp`, the receiver's one-edge pulse) is taken at its edge while it is high, else
//!   it is lost (the host waits for each answer), and so is a low stop bit. States: sync
//!   (only `A5` starts a frame), op, length low, length high, payload, checksum; the edge of the
//!   checksum byte executes the frame. Checks, first found wins: the frame's bytes stopped for
//!   [`TIMEOUT_CYCLES`] edges (ERROR 6, at that edge), a low stop bit (`rx_error`) inside a
//!   frame (ERROR 5, at once), the checksum (ERROR 1), then the opcode (ERROR 2) and its length
//!   (ERROR 3: PING, CLEAR and RUN FRAME take none, LOAD BEATS whole records) and, for LOAD
//!   BEATS, the capacity (ERROR 4: nothing of the frame is kept).
//! * **LOAD BEATS.** Each record's bytes are written into the buffer after the loaded beats as
//!   they come (its padding bits ignored); the loaded count moves past them only when the frame
//!   executes without an error. ACK with the new count.
//! * **RUN FRAME** (with at least one beat and the last one an end token, else ERROR 8):
//!   `crc_toggle` at its execution is remembered, and the feed waits for the first edge with
//!   `crc_toggle` changed (the end of a video frame's active picture: every run starts at the
//!   same phase of the video, so its cycle count does not depend on when the host sent it).
//!   From the edge after that one, beat k is offered (`out`) until the board top takes it
//!   (`out_ready`), beat k + 1 from the edge after, back to back. `cycles` counts every edge
//!   from the first one with a beat offered to the one with `done_valid`, both included. Then:
//!   `front` at `done` is remembered; the swap is seen at the first edge with `front` changed
//!   and `shown` = `front`, where `crc_toggle` is remembered again; the first edge with
//!   `crc_toggle` changed again (the first
//!   whole video frame that showed the frame: the one before it ended before that frame's
//!   walk started) queues the FRAME RESULT with `frame_crc` of that edge, the beats, the
//!   frame's id (`done_frame`), `shown` and `flags`. `running` is high from the edge after
//!   RUN FRAME's execution to the edge that queues its FRAME RESULT.
//!
//! Where its bytes come from and go to: the board's UART receiver and transmitter, as
//! [`crate::protocol::uart`] models their lines.

use crate::board_top::BoardTop;
use crate::cycle::{BlockModel, Offer, UBits};
use crate::protocol::uart::{Deserializer, Serializer};
use crate::protocol::{
    frame, FrameResult, E_CAPACITY, E_CHECKSUM, E_LENGTH, E_OPCODE, E_SCENE, E_TIMEOUT, E_UART, FRAME_MAGIC, OP_CLEAR,
    OP_LOAD_BEATS, OP_PING, OP_RUN_FRAME, SYNC_BOARD, SYNC_HOST, TIMEOUT_CYCLES, T_ACK, T_DESC, T_ERROR,
    T_FRAME_RESULT, VERSION,
};
use crate::protocol::{
    host_frame, load_beat_frames, screen_crc, FrameExpect, Link, FLAG_MAP_ERROR, FLAG_SDRAM_ERROR, FLAG_UNDERRUN,
};
use crate::streams::{PrimIn, UartByte};
use std::collections::VecDeque;

crate::block_signature! {
    /// frame_host's ports (see the module header): the UART receiver's bytes in (`in_valid`
    /// is its one-edge pulse; it does not wait), the scene's beats out to the board top
    /// (`out`), the answers' bytes out to the UART transmitter (`tx`); the board top's levels
    /// in (`done_valid` with `done_frame`, `front`, `shown`, the display CRC and its toggle at
    /// the GPU clock, `flags`: `protocol::FLAG_*` of its sticky errors) and `rx_error` (the
    /// receiver saw a low stop bit at this edge).
    pub FrameHost "frame_host" {
        takes { inp: UartByte }
        sends { out: PrimIn, tx: UartByte }
        ins {
            rx_error: bool,
            done_valid: bool,
            done_frame: UBits<8>,
            front: bool,
            shown: bool,
            frame_crc: UBits<32>,
            crc_toggle: bool,
            flags: UBits<3>,
        }
        outs { running: bool }
    }
}

/// The stage name (module `tilerast_frame_host_<board>`).
pub const STAGE: &str = "frame_host";

#[derive(Clone, Copy, Debug, PartialEq, Eq)]
enum Parse {
    Sync,
    Op,
    Len0,
    Len1,
    Payload,
    Checksum,
}

#[derive(Clone, Copy, Debug, PartialEq, Eq)]
enum Run {
    Idle,
    /// RUN FRAME executed; waiting for `crc_toggle` to change (a video frame's end).
    Align,
    /// Offering beat `next`, counting.
    Feed,
    /// Every beat taken; counting until `done`.
    Done,
    /// Waiting for the swap to be shown.
    Swap,
    /// Waiting for the CRC of the first whole video frame that shows it.
    Crc,
}

/// The frame host's cycle model (see the module header).
#[derive(Clone, Debug)]
pub struct FrameHostCycle {
    /// The descriptor's fields: board and preset index, MSAA, Q, GPU clock in MHz.
    desc: [u8; 5],
    scene: Vec<PrimIn>,
    loaded: usize,
    parse: Parse,
    op: u8,
    len: usize,
    received: usize,
    sum: u8,
    /// The frame's first error found so far (checked at its checksum byte).
    error: Option<u8>,
    record: Vec<u8>,
    written: usize,
    /// Edges since the frame's last byte.
    quiet: u64,
    /// Edges of silence inside a frame that abandon it ([`TIMEOUT_CYCLES`]).
    timeout: u64,
    run: Run,
    next: usize,
    cycles: u64,
    done_frame: u8,
    front_at_done: bool,
    /// `crc_toggle` remembered: at RUN FRAME's execution (Align), then when the swap is shown
    /// (Crc); the state ends at the first edge it differs.
    toggle_mark: bool,
    reply: VecDeque<u8>,
}

impl FrameHostCycle {
    /// The frame host of `board`'s frame row, its scene buffer `capacity` beats.
    pub fn new(board: &crate::board::Board, capacity: usize) -> Result<FrameHostCycle, String> {
        let f = board
            .frame
            .ok_or_else(|| format!("board {}: no frame row (no SDRAM and screen)", board.name))?;
        let cfg = crate::Config::preset(f.preset).map_err(|e| format!("board {}: {e}", board.name))?;
        let preset = crate::config::PRESETS
            .iter()
            .position(|p| *p == f.preset)
            .ok_or_else(|| format!("board {}: preset {} is not in PRESETS", board.name, f.preset))?;
        if capacity == 0 || capacity > usize::from(u16::MAX) {
            return Err(format!("frame host: capacity {capacity} beats, expected 1..=65535"));
        }
        let desc = [
            board.index() as u8,
            preset as u8,
            cfg.msaa as u8,
            cfg.quads_per_clock as u8,
            ((f.gpu_hz + 500_000) / 1_000_000) as u8,
        ];
        Ok(FrameHostCycle::empty(desc, capacity))
    }

    /// The frame host of `board`'s frame row with the board table's buffer capacity.
    pub fn for_board(board: &crate::board::Board) -> Result<FrameHostCycle, String> {
        FrameHostCycle::new(board, board.capacity as usize)
    }

    fn empty(desc: [u8; 5], capacity: usize) -> FrameHostCycle {
        FrameHostCycle {
            desc,
            scene: vec![PrimIn::default(); capacity],
            loaded: 0,
            parse: Parse::Sync,
            op: 0,
            len: 0,
            received: 0,
            sum: 0,
            error: None,
            record: Vec::new(),
            written: 0,
            quiet: 0,
            timeout: TIMEOUT_CYCLES,
            run: Run::Idle,
            next: 0,
            cycles: 0,
            done_frame: 0,
            front_at_done: false,
            toggle_mark: false,
            reply: VecDeque::new(),
        }
    }

    /// The cycles of the last RUN FRAME, from its done until its FRAME RESULT is queued.
    pub fn frame_cycles(&self) -> Option<u64> {
        matches!(self.run, Run::Swap | Run::Crc).then_some(self.cycles)
    }

    /// Beats loaded.
    pub fn loaded(&self) -> usize {
        self.loaded
    }

    /// A RUN FRAME is going on (waiting for a video frame's end, feeding, or waiting for its
    /// frame's done, swap or CRC).
    pub fn running(&self) -> bool {
        self.run != Run::Idle
    }

    /// The parser takes a byte at this edge if one comes (from registers).
    fn takes_bytes(&self) -> bool {
        self.run == Run::Idle && self.reply.is_empty()
    }

    /// The power-up state: nothing loaded, parsing, running or answering (the flush's).
    fn reset(&mut self) {
        let timeout = self.timeout;
        *self = FrameHostCycle::empty(self.desc, self.scene.len()).with_timeout(timeout);
    }

    /// The same host with a frame timeout of `edges` (≥ 1) instead of [`TIMEOUT_CYCLES`]
    /// (tests of the timeout in short simulations).
    pub fn with_timeout(mut self, edges: u64) -> FrameHostCycle {
        assert!(edges >= 1);
        self.timeout = edges;
        self
    }

    /// The scene buffer's beats.
    pub fn capacity(&self) -> usize {
        self.scene.len()
    }

    /// The frame timeout in edges.
    pub fn timeout(&self) -> u64 {
        self.timeout
    }

    /// The DESC answer's payload with `loaded` beats loaded.
    pub fn desc_payload(&self, loaded: u16) -> Vec<u8> {
        let [board, preset, msaa, q, mhz] = self.desc;
        let mut p = vec![FRAME_MAGIC[0], FRAME_MAGIC[1], VERSION, board, preset, msaa, q];
        p.extend((self.scene.len() as u16).to_le_bytes());
        p.extend(loaded.to_le_bytes());
        p.push(mhz);
        p
    }

    fn answer(&mut self, typ: u8, payload: &[u8]) {
        self.reply.extend(frame(SYNC_BOARD, typ, payload));
    }

    fn fail(&mut self, code: u8) {
        let op = self.op;
        self.answer(T_ERROR, &[code, op]);
        self.parse = Parse::Sync;
    }

    /// One GPU clock edge (the [`BlockModel`]'s).
    fn edge(&mut self, i: &FrameHostIn) {
        if i.flush {
            self.reset();
            return;
        }
        let takes = self.takes_bytes();
        if i.tx_ready {
            self.reply.pop_front();
        }
        self.run_edge(i);
        if !takes {
            return;
        }
        let rx = i.inp.valid.then_some(i.inp.payload.byte);
        // The parser.
        if self.parse != Parse::Sync {
            if i.rx_error {
                self.fail(E_UART);
                return;
            }
            if rx.is_none() {
                self.quiet += 1;
                if self.quiet >= self.timeout {
                    self.fail(E_TIMEOUT);
                }
                return;
            }
        }
        let Some(b) = rx else { return };
        self.quiet = 0;
        self.sum = self.sum.wrapping_add(b);
        match self.parse {
            Parse::Sync => {
                if b == SYNC_HOST {
                    self.parse = Parse::Op;
                    self.sum = 0;
                    self.error = None;
                }
            }
            Parse::Op => {
                self.op = b;
                self.parse = Parse::Len0;
            }
            Parse::Len0 => {
                self.len = usize::from(b);
                self.parse = Parse::Len1;
            }
            Parse::Len1 => {
                self.len |= usize::from(b) << 8;
                self.received = 0;
                self.record.clear();
                self.written = 0;
                let records = self.len / crate::protocol::beat_bytes();
                self.error = match self.op {
                    OP_PING | OP_CLEAR | OP_RUN_FRAME if self.len != 0 => Some(E_LENGTH),
                    OP_PING | OP_CLEAR | OP_RUN_FRAME => None,
                    OP_LOAD_BEATS if !self.len.is_multiple_of(crate::protocol::beat_bytes()) => Some(E_LENGTH),
                    OP_LOAD_BEATS if self.loaded + records > self.scene.len() => Some(E_CAPACITY),
                    OP_LOAD_BEATS => None,
                    _ => Some(E_OPCODE),
                };
                self.parse = if self.len == 0 { Parse::Checksum } else { Parse::Payload };
            }
            Parse::Payload => {
                self.received += 1;
                if self.op == OP_LOAD_BEATS && self.error.is_none() {
                    self.record.push(b);
                    if self.record.len() == crate::protocol::beat_bytes() {
                        let bits = crate::protocol::beat_bits();
                        let last = self.record.len() - 1;
                        self.record[last] &= ((1u16 << (bits - 8 * last as u32)) - 1) as u8;
                        let beat = crate::protocol::decode_beat(&self.record).expect("a whole record, padding cleared");
                        self.scene[self.loaded + self.written] = beat;
                        self.written += 1;
                        self.record.clear();
                    }
                }
                if self.received == self.len {
                    self.parse = Parse::Checksum;
                }
            }
            Parse::Checksum => {
                self.parse = Parse::Sync;
                if self.sum != 0 {
                    self.fail(E_CHECKSUM);
                } else if let Some(code) = self.error {
                    self.fail(code);
                } else {
                    self.execute(i.crc_toggle);
                }
            }
        }
    }

    /// The frame just checked, at the edge of its checksum byte (`crc_toggle` that edge's).
    fn execute(&mut self, crc_toggle: bool) {
        match self.op {
            OP_PING => {
                let p = self.desc_payload(self.loaded as u16);
                self.answer(T_DESC, &p);
            }
            OP_CLEAR => {
                self.loaded = 0;
                self.answer(T_ACK, &[0, 0]);
            }
            OP_LOAD_BEATS => {
                self.loaded += self.written;
                let n = self.loaded as u16;
                self.answer(T_ACK, &n.to_le_bytes());
            }
            _ => {
                // RUN FRAME.
                if self.loaded == 0 || !self.scene[self.loaded - 1].end {
                    self.fail(E_SCENE);
                } else {
                    self.run = Run::Align;
                    self.toggle_mark = crc_toggle;
                }
            }
        }
    }

    fn run_edge(&mut self, i: &FrameHostIn) {
        match self.run {
            Run::Idle => {}
            Run::Align => {
                if i.crc_toggle != self.toggle_mark {
                    self.run = Run::Feed;
                    self.next = 0;
                    self.cycles = 0;
                }
            }
            Run::Feed | Run::Done => {
                self.cycles += 1;
                if self.run == Run::Feed && i.out_ready {
                    self.next += 1;
                    if self.next == self.loaded {
                        self.run = Run::Done;
                    }
                }
                if self.run == Run::Done && i.done_valid {
                    self.done_frame = i.done_frame.0 as u8;
                    self.front_at_done = i.front;
                    self.run = Run::Swap;
                }
            }
            Run::Swap => {
                if i.front != self.front_at_done && i.shown == i.front {
                    self.toggle_mark = i.crc_toggle;
                    self.run = Run::Crc;
                }
            }
            Run::Crc => {
                if i.crc_toggle != self.toggle_mark {
                    let r = FrameResult {
                        cycles: self.cycles.min(u64::from(u32::MAX)) as u32,
                        crc: i.frame_crc.0 as u32,
                        beats: self.loaded as u16,
                        frame: self.done_frame,
                        shown: u8::from(i.shown),
                        flags: i.flags.0 as u8,
                    };
                    self.answer(T_FRAME_RESULT, &r.payload());
                    self.run = Run::Idle;
                }
            }
        }
    }
}

impl BlockModel for FrameHostCycle {
    type Sig = FrameHostPorts;

    fn outputs(&self, _: &FrameHostIn) -> FrameHostOut {
        let feeding = self.run == Run::Feed;
        FrameHostOut {
            inp_ready: self.takes_bytes(),
            out: Offer::new(
                feeding,
                if feeding {
                    self.scene[self.next]
                } else {
                    PrimIn::default()
                },
            ),
            tx: Offer::new(
                !self.reply.is_empty(),
                UartByte {
                    byte: self.reply.front().copied().unwrap_or(0),
                },
            ),
            running: self.running(),
        }
    }

    fn clock(&mut self, i: &FrameHostIn) {
        self.edge(i);
    }
}

/// The golden board behind its UART: the frame host, the board top's cycle model in its
/// environment ([`BoardTop`] with no scene of its own: the SDRAM chip, the DVI receiver) and
/// both UART lines at the GPU clock ([`crate::protocol::uart`], 8N1 at the board's baud rate),
/// as a [`Link`] for the protocol's [`crate::protocol::Client`]. This is `board-sim` through
/// the UART in golden, and what the RTL board will be held to.
pub struct FrameHostBench {
    pub host: FrameHostCycle,
    pub top: BoardTop,
    to_board: Serializer,
    board_rx: Deserializer,
    board_tx: Serializer,
    from_board: Deserializer,
    got: Vec<u8>,
    /// The GPU edge (counted as the board top counts them, from 1) at which a RUN FRAME first
    /// offered a beat.
    pub first_offer: Option<u64>,
    /// The memory clock (its index from 0, as the board top counts them) from which a RUN
    /// FRAME offered its beats: the board top's `in_valid` is high from this one on until the
    /// end beat is taken (what a replay of the board top's inputs starts its beats at).
    pub first_offer_tick: Option<u64>,
    /// The memory's counters when a RUN FRAME first offered a beat and when its frame was
    /// done: `memory_at_done.since(memory_at_first_offer)` is what the frame cost the memory.
    pub memory_at_first_offer: Option<crate::board_top::MemoryUse>,
    pub memory_at_done: Option<crate::board_top::MemoryUse>,
    /// Memory clocks one `recv` runs at most before it reports nothing.
    pub patience_ticks: u64,
    /// With [`FrameHostBench::record_inputs`]: the frame host's inputs at every GPU edge, run-length
    /// coded (`(inputs, edges)`), for a replay into the RTL block.
    pub inputs: Option<Vec<(FrameHostIn, u32)>>,
}

impl FrameHostBench {
    /// The bench of `board`'s frame row with a scene buffer of `capacity` beats.
    pub fn new(board: &crate::board::Board, capacity: usize) -> Result<FrameHostBench, String> {
        let div = board
            .frame_uart_div()
            .ok_or_else(|| format!("board {}: no frame row (no SDRAM and screen)", board.name))?;
        Ok(FrameHostBench {
            host: FrameHostCycle::new(board, capacity)?,
            top: BoardTop::new(board, Vec::new())?,
            to_board: Serializer::new(div),
            board_rx: Deserializer::new(div),
            board_tx: Serializer::new(div),
            from_board: Deserializer::new(div),
            got: Vec::new(),
            first_offer: None,
            first_offer_tick: None,
            memory_at_first_offer: None,
            memory_at_done: None,
            patience_ticks: 40_000_000,
            inputs: None,
        })
    }

    /// Keep the frame host's inputs of every GPU edge from now on ([`FrameHostBench::inputs`]).
    pub fn record_inputs(mut self) -> FrameHostBench {
        self.inputs = Some(Vec::new());
        self
    }

    /// The recorded inputs, one per GPU edge, in order.
    pub fn recorded(&self) -> impl Iterator<Item = &FrameHostIn> {
        self.inputs
            .iter()
            .flatten()
            .flat_map(|(i, n)| std::iter::repeat_n(i, *n as usize))
    }

    /// One memory clock: the board top's tick with the host's beat, and at a GPU edge the UART
    /// lines and the frame host.
    pub fn tick(&mut self) {
        let out = self.host.outputs(&FrameHostIn::default());
        if out.out.valid && self.first_offer_tick.is_none() {
            self.first_offer_tick = Some(self.top.stats().ticks);
            self.memory_at_first_offer = Some(self.top.memory_use());
        }
        let t = self.top.tick_with(out.out.valid.then_some(out.out.payload));
        if !t.gpu_clock {
            return;
        }
        if t.out.done_valid && self.memory_at_done.is_none() {
            self.memory_at_done = Some(self.top.memory_use());
        }
        if out.out.valid && self.first_offer.is_none() {
            self.first_offer = Some(self.top.gpu_cycles);
        }
        let errors = self.board_rx.framing_errors;
        let rx = self.board_rx.tick(self.to_board.tick());
        let tx_ready = self.board_tx.idle();
        if tx_ready && out.tx.valid {
            self.board_tx.push(&[out.tx.payload.byte]);
        }
        let i = host_inputs(&t, byte_offer(rx), self.board_rx.framing_errors != errors, tx_ready);
        if let Some(rec) = &mut self.inputs {
            match rec.last_mut() {
                Some((last, n)) if *last == i && *n < u32::MAX => *n += 1,
                _ => rec.push((i.clone(), 1)),
            }
        }
        self.host.clock(&i);
        if let Some(b) = self.from_board.tick(self.board_tx.tick()) {
            self.got.push(b);
        }
    }
}

/// The frame host's inputs at a GPU edge of the board top (`t`): the board top's levels, the
/// receiver's byte `inp` and framing error, the transmitter's `tx_ready`.
fn host_inputs(t: &crate::board_top::BoardTick, inp: Offer<UartByte>, rx_error: bool, tx_ready: bool) -> FrameHostIn {
    let o = &t.out;
    FrameHostIn {
        inp,
        rx_error,
        tx_ready,
        out_ready: t.taken,
        done_valid: o.done_valid,
        done_frame: UBits::new(u64::from(o.done_frame)),
        front: o.front,
        shown: o.shown,
        frame_crc: o.frame_crc,
        crc_toggle: o.crc_toggle,
        flags: UBits::new(u64::from(board_flags(o))),
        flush: false,
    }
}

/// Golden's answer to RUN FRAME of `frame` (at the frame row's preset) on `board`'s frame top:
/// the frame host and the board top from power-up, the scene's LOAD BEATS frame and RUN FRAME
/// given to the host a byte per GPU edge (no UART), run to the frame's `done`. The feed starts
/// where the host starts it (at the edge after the display CRC's first toggle), so a RUN FRAME
/// sent over the UART before the first video frame ends counts the same cycles exactly.
/// `Err`, one line, when the board has no frame row, the frame's beats are refused, or the
/// model stops (an SDRAM rule, a stuck frame top, `max_ticks` memory clocks).
pub fn expect_frame(board: &crate::board::Board, frame: &crate::Frame, max_ticks: u64) -> Result<FrameExpect, String> {
    let f = board
        .frame
        .ok_or_else(|| format!("board {}: no frame row (no SDRAM and screen)", board.name))?;
    let scale = crate::scan_out::ScanOutParams::for_board(&f)?.scale;
    let image = crate::frame::frame_memory(frame, 0).map_err(|e| e.to_string())?.image;
    let beats = crate::bin_setup::frame_beats(&frame.prims, frame.background)?;
    let mut bytes: VecDeque<u8> = load_beat_frames(&beats, beats.len()).concat().into();
    bytes.extend(host_frame(OP_RUN_FRAME, &[]));
    let mut host = FrameHostCycle::new(board, beats.len())?;
    let mut top = BoardTop::new(board, Vec::new())?;
    loop {
        if let Some(v) = top.env.violation.as_ref().or(top.stuck.as_ref()) {
            return Err(v.clone());
        }
        if top.stats().ticks >= max_ticks {
            return Err(format!("expect_frame: no frame done after {max_ticks} memory clocks"));
        }
        let out = host.outputs(&FrameHostIn::default());
        let t = top.tick_with(out.out.valid.then_some(out.out.payload));
        if !t.gpu_clock {
            continue;
        }
        let byte = if out.inp_ready { bytes.pop_front() } else { None };
        host.clock(&host_inputs(&t, byte_offer(byte), false, true));
        if let Some(cycles) = host.frame_cycles() {
            return Ok(FrameExpect {
                crc: screen_crc(&image, scale),
                cycles,
                beats: beats.len(),
            });
        }
        if bytes.is_empty() && !host.running() && host.reply.is_empty() {
            return Err(format!(
                "expect_frame: the frame host refused the scene ({} of {} beats loaded)",
                host.loaded,
                beats.len()
            ));
        }
    }
}

/// A byte the UART receiver finished at an edge, as the frame host's `inp` offer.
pub fn byte_offer(rx: Option<u8>) -> Offer<UartByte> {
    Offer::new(rx.is_some(), UartByte { byte: rx.unwrap_or(0) })
}

/// The frame host's `flags`: `protocol::FLAG_*` of the board top's sticky errors.
pub fn board_flags(o: &crate::board_top::BoardTopOut) -> u8 {
    [
        (o.underrun, FLAG_UNDERRUN),
        (o.error, FLAG_SDRAM_ERROR),
        (o.map_error, FLAG_MAP_ERROR),
    ]
    .iter()
    .filter(|f| f.0)
    .fold(0, |a, f| a | f.1)
}

impl Link for FrameHostBench {
    fn send(&mut self, bytes: &[u8]) -> Result<(), String> {
        self.to_board.push(bytes);
        Ok(())
    }

    fn recv(&mut self, buf: &mut [u8]) -> Result<usize, String> {
        let mut ticks = 0;
        while self.got.is_empty() && ticks < self.patience_ticks {
            if let Some(v) = &self.top.env.violation {
                return Err(v.clone());
            }
            self.tick();
            ticks += 1;
        }
        let n = self.got.len().min(buf.len());
        buf[..n].copy_from_slice(&self.got[..n]);
        self.got.drain(..n);
        Ok(n)
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::protocol::{decode_beat, encode_beat, host_frame, Client, Response};

    const DIV: u32 = 4;

    /// A stand-in for the board top around the frame host: beats taken two edges in three;
    /// `done` (frame 7) 50 edges after the end token; `front` flips 100 edges after that,
    /// `shown` follows 40 edges later; the display CRC toggles every 300 edges with a new value.
    #[derive(Default)]
    struct FakeGpu {
        edge: u64,
        taken: Vec<PrimIn>,
        first_offer: Option<u64>,
        /// The first edge with `running` high (the one after RUN FRAME's execution).
        running_from: Option<u64>,
        end_at: Option<u64>,
        done_at: Option<u64>,
        front: bool,
        shown: bool,
        crc_toggle: bool,
        frame_crc: u32,
        /// (edge from which visible, crc) of every toggle.
        toggles: Vec<(u64, u32)>,
    }

    impl FakeGpu {
        fn inputs(&self) -> FrameHostIn {
            FrameHostIn {
                out_ready: !self.edge.is_multiple_of(3),
                done_valid: self.end_at.map(|e| e + 50) == Some(self.edge),
                done_frame: UBits::new(7),
                front: self.front,
                shown: self.shown,
                frame_crc: UBits::new(u64::from(self.frame_crc)),
                crc_toggle: self.crc_toggle,
                flags: UBits::new(u64::from(FLAG_MAP_ERROR)),
                ..FrameHostIn::default()
            }
        }
        fn edge(&mut self, out: &FrameHostOut, i: &FrameHostIn) {
            if out.out.valid && self.first_offer.is_none() {
                self.first_offer = Some(self.edge);
            }
            if out.running && self.running_from.is_none() {
                self.running_from = Some(self.edge);
            }
            if out.out.valid && i.out_ready {
                let b = out.out.payload;
                self.taken.push(b);
                if b.end {
                    self.end_at = Some(self.edge);
                }
            }
            if i.done_valid {
                self.done_at = Some(self.edge);
            }
            if let Some(d) = self.done_at {
                if self.edge == d + 100 {
                    self.front = !self.front;
                }
                if self.edge == d + 140 {
                    self.shown = self.front;
                }
            }
            if self.edge % 300 == 299 {
                self.crc_toggle = !self.crc_toggle;
                self.frame_crc = 0x1000 + self.edge as u32;
                self.toggles.push((self.edge + 1, self.frame_crc));
            }
            self.edge += 1;
        }
    }

    /// The frame host, the stand-in board top and both UART lines, stepped by the client's link.
    struct Sim {
        host: FrameHostCycle,
        gpu: FakeGpu,
        to_board: Serializer,
        board_rx: Deserializer,
        board_tx: Serializer,
        from_board: Deserializer,
        got: Vec<u8>,
    }

    impl Sim {
        fn new(capacity: usize) -> Sim {
            Sim {
                host: FrameHostCycle::new(crate::board::board("ulx3s").unwrap(), capacity).unwrap(),
                gpu: FakeGpu::default(),
                to_board: Serializer::new(DIV),
                board_rx: Deserializer::new(DIV),
                board_tx: Serializer::new(DIV),
                from_board: Deserializer::new(DIV),
                got: Vec::new(),
            }
        }
        fn step(&mut self) {
            let errors = self.board_rx.framing_errors;
            let rx = self.board_rx.tick(self.to_board.tick());
            let out = self.host.outputs(&FrameHostIn::default());
            let tx_ready = self.board_tx.idle();
            if tx_ready && out.tx.valid {
                self.board_tx.push(&[out.tx.payload.byte]);
            }
            let i = FrameHostIn {
                inp: byte_offer(rx),
                rx_error: self.board_rx.framing_errors != errors,
                tx_ready,
                ..self.gpu.inputs()
            };
            self.gpu.edge(&out, &i);
            self.host.clock(&i);
            if let Some(b) = self.from_board.tick(self.board_tx.tick()) {
                self.got.push(b);
            }
        }
    }

    impl Link for Sim {
        fn send(&mut self, bytes: &[u8]) -> Result<(), String> {
            self.to_board.push(bytes);
            Ok(())
        }
        fn recv(&mut self, buf: &mut [u8]) -> Result<usize, String> {
            for _ in 0..20_000 {
                if !self.got.is_empty() {
                    break;
                }
                self.step();
            }
            let n = self.got.len().min(buf.len());
            buf[..n].copy_from_slice(&self.got[..n]);
            self.got.drain(..n);
            Ok(n)
        }
    }

    fn beats(n: u32) -> Vec<PrimIn> {
        (0..n)
            .map(|k| PrimIn {
                kind: (k % 2) as u8,
                v: [[k as i32 * 256, -5], [-(k as i32), 1 << 22], [7, -(1 << 23)]],
                size: 0x100 + k,
                aa: k % 3 == 0,
                colour: 0xff00_0000 | (k * 0x010203),
                depth: 0xabcdef - k,
                end: k + 1 == n,
            })
            .collect()
    }

    #[test]
    fn a_scene_loads_runs_once_and_the_result_is_the_swapped_frame_s() {
        let mut c = Client::new(Sim::new(16));
        let d = c.ping().unwrap();
        let ulx3s = crate::board::board("ulx3s").unwrap();
        assert!(
            d.frame_top && d.board_name() == "ulx3s" && d.capacity == 16 && d.loaded == 0,
            "{d:?}"
        );
        assert_eq!(u32::from(d.clock_mhz), ulx3s.frame.unwrap().gpu_hz / 1_000_000);
        let scene = beats(5);
        assert_eq!(c.load_beats(&scene[..2], 1), Ok(2));
        assert_eq!(c.load_beats(&scene[2..], 3), Ok(5));
        let r = c.run_frame().unwrap();
        let g = &c.link.gpu;
        // Every beat taken once, in order, with its every field.
        assert_eq!(g.taken, scene);
        // cycles: from the first edge a beat was offered to the done edge, both included.
        let (first, done) = (g.first_offer.unwrap(), g.done_at.unwrap());
        assert_eq!(u64::from(r.cycles), done - first + 1);
        // The feed waited for the display CRC's first toggle after RUN FRAME (a video frame's
        // end), and offered beat 0 at the edge after it.
        let running_from = g.running_from.unwrap();
        let toggle = g.toggles.iter().find(|t| t.0 >= running_from).unwrap().0;
        assert!(
            toggle > running_from,
            "the stand-in's toggle is not at RUN FRAME's own edge"
        );
        assert_eq!(
            first,
            toggle + 1,
            "first beat offered at {first}, the toggle seen at {toggle}"
        );
        // The CRC: the first toggle after the edge where shown = front after the swap.
        let shown_at = done + 141;
        let want = g.toggles.iter().find(|t| t.0 > shown_at).unwrap().1;
        assert_eq!(
            (r.crc, r.beats, r.frame, r.shown, r.flags),
            (want, 5, 7, 1, FLAG_MAP_ERROR)
        );
        assert!(
            g.toggles.iter().any(|t| t.0 <= shown_at),
            "a toggle before the swap was passed over"
        );
    }

    #[test]
    fn bad_frames_get_their_error_and_change_nothing() {
        let mut c = Client::new(Sim::new(2));
        let err = |r: Result<Response, String>| match r.unwrap() {
            Response::Error { code, op } => (code, op),
            r => panic!("{r:?}"),
        };
        // RUN FRAME with nothing loaded, or without an end token last.
        assert!(c.run_frame().unwrap_err().contains("no whole frame loaded"));
        let mut open = beats(2);
        open[1].end = false;
        assert_eq!(c.load_beats(&open, 2), Ok(2));
        assert!(c.run_frame().unwrap_err().contains("no whole frame loaded"));
        // Over the capacity: nothing kept.
        assert!(c.load_beats(&beats(1), 1).unwrap_err().contains("error 4"));
        assert_eq!(c.ping().unwrap().loaded, 2);
        assert_eq!(c.raw(&host_frame(OP_CLEAR, &[])).unwrap(), Response::Ack(0));
        // Not whole records; a payload on PING; an unknown opcode; a bad checksum.
        let rec = encode_beat(&beats(1)[0]);
        assert_eq!(
            err(c.raw(&host_frame(OP_LOAD_BEATS, &rec[..28]))),
            (E_LENGTH, OP_LOAD_BEATS)
        );
        assert_eq!(err(c.raw(&host_frame(OP_PING, &[1]))), (E_LENGTH, OP_PING));
        assert_eq!(err(c.raw(&host_frame(0x42, &[]))), (E_OPCODE, 0x42));
        let mut bad = host_frame(OP_LOAD_BEATS, &rec);
        bad[7] ^= 0x10;
        assert_eq!(err(c.raw(&bad)), (E_CHECKSUM, OP_LOAD_BEATS));
        assert_eq!(c.ping().unwrap().loaded, 0, "nothing of the bad frames was kept");
        // A stop bit low inside a frame abandons it at once.
        c.link.to_board.push(&[SYNC_HOST, OP_LOAD_BEATS]);
        c.link.to_board.push_bad_stop(29);
        assert_eq!(err(c.recv_frame()), (E_UART, OP_LOAD_BEATS));
        // A record's padding bits are ignored; the beat loads as sent.
        let mut padded = encode_beat(&beats(1)[0]);
        padded[28] |= 0xf8;
        assert_eq!(c.raw(&host_frame(OP_LOAD_BEATS, &padded)).unwrap(), Response::Ack(1));
        let r = c.run_frame().unwrap();
        assert_eq!((r.beats, c.link.gpu.taken.clone()), (1, beats(1)));
        assert_eq!(decode_beat(&encode_beat(&c.link.gpu.taken[0])), Ok(beats(1)[0]));
    }

    #[test]
    fn a_frame_that_stops_times_out() {
        let mut s = Sim::new(2);
        s.to_board.push(&[SYNC_HOST, OP_PING, 0]);
        while !s.to_board.idle() {
            s.step();
        }
        let at = s.gpu.edge;
        let mut answered = None;
        for _ in 0..TIMEOUT_CYCLES + 10 * u64::from(DIV) * 10 + 100 {
            s.step();
            if answered.is_none() && s.host.outputs(&FrameHostIn::default()).tx.valid {
                answered = Some(s.gpu.edge);
            }
        }
        // The last byte was taken within a byte time before `at`; the answer comes
        // TIMEOUT_CYCLES edges after it.
        let a = answered.expect("an answer");
        assert!(
            a > at + TIMEOUT_CYCLES - 10 * u64::from(DIV) && a <= at + TIMEOUT_CYCLES,
            "{a} {at}"
        );
        let mut p = crate::protocol::FrameParser::default();
        let f = p.push(&s.got);
        assert_eq!(f, vec![Ok((T_ERROR, vec![E_TIMEOUT, OP_PING]))]);
    }
}
