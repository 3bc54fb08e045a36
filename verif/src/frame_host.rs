//! The frame host's bench, shared by its rust-hdl, Verilator and gate-level tests: a host agent
//! that plays the UART receiver's and transmitter's sides (a script of frames, bytes with
//! random gaps, a low stop bit, silences, waits for each answer; the answers' bytes taken
//! under a random `tx_ready` and parsed into frames) and a GPU agent that plays the board
//! top's (beats taken under a random ready; the frame's `done` some edges after its end
//! beat, `front` flipping and `shown` following later, the display CRC toggling with a new
//! value every `crc_period` edges, constant `flags`).
//!
//! ```text
//!   Host: inp (UartByte), rx_error, tx_ready ─► frame_host ─► tx ─► Host: answers
//!   Gpu:  out_ready, done, front, shown, CRC  ─►            ─► out ─► Gpu: beats taken
//! ```

use crate::lockstep::{Agent, Bench};
use crate::{Line, Pattern, Rng};
use std::any::Any;
use tilerast_golden::cycle::Ports;
use tilerast_golden::protocol::{
    decode_response, encode_beat, host_frame, FrameParser, FrameResult, Response, E_CAPACITY, E_CHECKSUM, E_LENGTH,
    E_OPCODE, E_SCENE, E_TIMEOUT, E_UART, OP_CLEAR, OP_LOAD_BEATS, OP_PING, OP_RUN_FRAME, SYNC_HOST, T_ACK, T_DESC,
    T_ERROR, T_FRAME_RESULT,
};
use tilerast_golden::streams::{ports, PrimIn, UartByte};

/// One step of the host's script.
#[derive(Clone, Debug, PartialEq, Eq)]
pub enum Step {
    /// These bytes, one per edge after a random gap (lost if `in_ready` is low then).
    Send(Vec<u8>),
    /// One edge with `rx_error` (a low stop bit) and no byte.
    StopBitLow,
    /// This many edges with no byte.
    Quiet(u64),
    /// Wait until this many answers have come in all (one per frame asked), for at most
    /// [`PATIENCE`] edges (a flush ends the wait: the answer is lost with it, or the frame was
    /// cut; the count goes on from the answers expected).
    Await(usize),
}

/// The edges an `Await` waits before it gives up.
pub const PATIENCE: u64 = 4_000;

/// A script of steps, built frame by frame.
#[derive(Clone, Debug, Default)]
pub struct Script {
    pub steps: Vec<Step>,
    answers: usize,
}

impl Script {
    /// `bytes`, then wait for their answer.
    pub fn ask(mut self, bytes: Vec<u8>) -> Script {
        self.steps.push(Step::Send(bytes));
        self.expect_answer()
    }
    /// `bytes` with no answer of their own.
    pub fn send(mut self, bytes: Vec<u8>) -> Script {
        self.steps.push(Step::Send(bytes));
        self
    }
    /// Wait for one more answer.
    pub fn expect_answer(mut self) -> Script {
        self.answers += 1;
        self.steps.push(Step::Await(self.answers));
        self
    }
    pub fn stop_bit_low(mut self) -> Script {
        self.steps.push(Step::StopBitLow);
        self
    }
    pub fn quiet(mut self, edges: u64) -> Script {
        self.steps.push(Step::Quiet(edges));
        self
    }
}

/// The host: the UART's two sides.
pub struct Host {
    steps: Vec<Step>,
    step: usize,
    /// Byte of the current `Send`; edges left of the current gap or silence; answers counted
    /// as come after a flush or a wait given up.
    byte: usize,
    skipped: usize,
    wait: u64,
    gap_max: u64,
    rng: Rng,
    tx_ready: Line,
    offered: bool,
    parser: FrameParser,
    /// Every answer frame: (type, payload), or the parser's error.
    pub answers: Vec<Result<(u8, Vec<u8>), String>>,
    /// Bytes offered and taken, offered and lost (`in_ready` low), answer bytes received.
    pub taken: u64,
    pub lost: u64,
    pub received: u64,
    /// Waits that ended without an answer.
    pub gave_up: u64,
    /// The edge the script ended.
    pub finished_at: Option<u64>,
}

impl Host {
    /// `script` with byte gaps of 1..=`gap_max` edges and `tx_ready` at `tx_pct` %.
    pub fn new(script: Script, seed: u64, gap_max: u64, tx_pct: u32) -> Host {
        Host {
            steps: script.steps,
            step: 0,
            byte: 0,
            skipped: 0,
            wait: 0,
            gap_max,
            rng: Rng::stream(seed, 70),
            tx_ready: Pattern::Random { pct: tx_pct }.line(Rng::stream(seed, 71)),
            offered: false,
            parser: FrameParser::default(),
            answers: Vec::new(),
            taken: 0,
            lost: 0,
            received: 0,
            gave_up: 0,
            finished_at: None,
        }
    }

    /// Every step done.
    pub fn finished(&self) -> bool {
        self.step >= self.steps.len()
    }

    fn advance(&mut self) {
        self.step += 1;
        self.byte = 0;
        self.wait = 0;
    }
}

impl Agent for Host {
    fn drive(&mut self, _: u64, p: &mut Ports) {
        let mut byte = None;
        let mut error = false;
        match self.steps.get(self.step) {
            Some(Step::Send(bytes)) if self.wait == 0 => byte = bytes.get(self.byte).copied(),
            Some(Step::StopBitLow) => error = true,
            _ => {}
        }
        self.offered = byte.is_some();
        p.set("in_valid", byte.is_some() as u64);
        p.put_payload::<ports::UartByte>(
            "inp",
            &UartByte {
                byte: byte.unwrap_or(0),
            },
        );
        p.set("rx_error", error as u64);
        p.set("tx_ready", self.tx_ready.step() as u64);
    }

    fn edge(&mut self, cycle: u64, i: &Ports, o: &Ports) {
        if o.bit("tx_valid") && i.bit("tx_ready") && !i.bit("flush") {
            self.received += 1;
            let b = o.payload::<ports::UartByte>("tx").byte;
            self.answers.extend(self.parser.push(&[b]));
        }
        match self.steps.get(self.step).cloned() {
            Some(Step::Send(bytes)) => {
                if self.offered {
                    if o.bit("in_ready") && !i.bit("flush") {
                        self.taken += 1;
                    } else {
                        self.lost += 1;
                    }
                    self.byte += 1;
                    self.wait = self.rng.below(self.gap_max) + 1;
                    if self.byte == bytes.len() {
                        self.advance();
                    }
                } else {
                    self.wait = self.wait.saturating_sub(1);
                }
            }
            Some(Step::StopBitLow) => self.advance(),
            Some(Step::Quiet(n)) => {
                self.wait += 1;
                if self.wait >= n {
                    self.advance();
                }
            }
            Some(Step::Await(n)) => {
                self.wait += 1;
                let have = self.answers.len() + self.skipped;
                if have >= n {
                    self.advance();
                } else if i.bit("flush") || self.wait >= PATIENCE {
                    self.gave_up += u64::from(!i.bit("flush"));
                    self.skipped += n - have;
                    self.advance();
                }
            }
            None => {
                self.finished_at.get_or_insert(cycle);
            }
        }
    }

    fn summary(&self) -> String {
        format!(
            "host: {} bytes taken, {} lost, {} answer bytes, {} answers, {} waits given up, step {} of {}",
            self.taken,
            self.lost,
            self.received,
            self.answers.len(),
            self.gave_up,
            self.step,
            self.steps.len()
        )
    }

    fn as_any(&self) -> &dyn Any {
        self
    }
}

/// The GPU's timing (edges).
#[derive(Clone, Copy, Debug)]
pub struct GpuTiming {
    pub ready_pct: u32,
    /// From the end beat taken to `done_valid`.
    pub done_after: u64,
    /// From `done` to `front` flipping, and from that to `shown` following.
    pub front_after: u64,
    pub shown_after: u64,
    /// Edges between CRC toggles.
    pub crc_period: u64,
    pub flags: u8,
}

impl Default for GpuTiming {
    fn default() -> GpuTiming {
        GpuTiming {
            ready_pct: 70,
            done_after: 30,
            front_after: 20,
            shown_after: 15,
            crc_period: 40,
            flags: 0b101,
        }
    }
}

/// The board top's side.
pub struct Gpu {
    t: GpuTiming,
    ready: Line,
    rng: Rng,
    /// Edges until the done pulse, the front flip, the shown follow (0: none pending).
    to_done: u64,
    to_front: u64,
    to_shown: u64,
    front: bool,
    shown: bool,
    crc_toggle: bool,
    frame_crc: u32,
    /// Every beat taken, in order; frames done (the id of the next done).
    pub taken: Vec<PrimIn>,
    pub dones: u8,
    /// (edge from which it shows, CRC) of every toggle; the edge `shown` followed `front`.
    pub toggles: Vec<(u64, u32)>,
    pub shown_at: Vec<u64>,
    /// The edge each run's first beat was offered (`out_valid` rising), each done's edge.
    pub offers_from: Vec<u64>,
    pub done_at: Vec<u64>,
    offering: bool,
    /// The edge each run began (`running` rising: the edge after RUN FRAME's execution).
    pub running_from: Vec<u64>,
    running: bool,
}

impl Gpu {
    pub fn new(t: GpuTiming, seed: u64) -> Gpu {
        Gpu {
            t,
            ready: Pattern::Random { pct: t.ready_pct }.line(Rng::stream(seed, 72)),
            rng: Rng::stream(seed, 73),
            to_done: 0,
            to_front: 0,
            to_shown: 0,
            front: false,
            shown: false,
            crc_toggle: false,
            frame_crc: 0,
            taken: Vec::new(),
            dones: 0,
            toggles: Vec::new(),
            shown_at: Vec::new(),
            offers_from: Vec::new(),
            done_at: Vec::new(),
            offering: false,
            running_from: Vec::new(),
            running: false,
        }
    }
}

impl Agent for Gpu {
    fn drive(&mut self, _: u64, p: &mut Ports) {
        p.set("out_ready", self.ready.step() as u64);
        p.set("done_valid", (self.to_done == 1) as u64);
        p.set("done_frame", u64::from(self.dones));
        p.set("front", self.front as u64);
        p.set("shown", self.shown as u64);
        p.set("frame_crc", u64::from(self.frame_crc));
        p.set("crc_toggle", self.crc_toggle as u64);
        p.set("flags", u64::from(self.t.flags));
    }

    fn edge(&mut self, cycle: u64, i: &Ports, o: &Ports) {
        if o.bit("out_valid") && !self.offering {
            self.offers_from.push(cycle);
        }
        self.offering = o.bit("out_valid");
        if o.bit("running") && !self.running {
            self.running_from.push(cycle);
        }
        self.running = o.bit("running");
        if o.bit("out_valid") && i.bit("out_ready") && !i.bit("flush") {
            let b = o.payload::<ports::PrimIn>("out");
            self.taken.push(b);
            if b.end {
                self.to_done = self.t.done_after + 1;
            }
        }
        let count = |n: &mut u64| {
            let fire = *n == 1;
            *n = n.saturating_sub(1);
            fire
        };
        if count(&mut self.to_done) {
            self.done_at.push(cycle);
            self.dones = self.dones.wrapping_add(1);
            self.to_front = self.t.front_after;
        }
        if count(&mut self.to_front) {
            self.front = !self.front;
            self.to_shown = self.t.shown_after;
        }
        if count(&mut self.to_shown) {
            self.shown = self.front;
            self.shown_at.push(cycle + 1);
        }
        if cycle % self.t.crc_period == self.t.crc_period - 1 {
            self.crc_toggle = !self.crc_toggle;
            self.frame_crc = self.rng.next_u32();
            self.toggles.push((cycle + 1, self.frame_crc));
        }
    }

    fn summary(&self) -> String {
        format!(
            "gpu: {} beats taken, {} frames done, {} swaps shown, {} CRC toggles",
            self.taken.len(),
            self.dones,
            self.shown_at.len(),
            self.toggles.len()
        )
    }

    fn as_any(&self) -> &dyn Any {
        self
    }
}

/// The bench: the host playing `script`, the GPU with timing `t`.
pub fn bench(script: Script, t: GpuTiming, seed: u64) -> Bench {
    Bench::new()
        .with("host", Host::new(script, seed, 3, 60))
        .with("gpu", Gpu::new(t, seed))
}

/// The CRC the FRAME RESULT of a frame shown from edge `shown_at` carries: the first toggle
/// after that edge (the GPU's, from its own record; not the model's).
pub fn crc_after(gpu: &Gpu, shown_at: u64) -> Option<u32> {
    gpu.toggles.iter().find(|t| t.0 > shown_at).map(|t| t.1)
}

// ===== the protocol script shared by the rust-hdl and Verilator tests =====

/// `n` distinct beats (none an end token).
pub fn beats(n: u32, salt: u32) -> Vec<PrimIn> {
    (0..n)
        .map(|k| {
            let k = k + salt;
            PrimIn {
                kind: (k % 2) as u8,
                v: [[k as i32 * 256, -5 - k as i32], [-(k as i32), 1 << 22], [7, -(1 << 23)]],
                size: 0x100 + k,
                aa: k.is_multiple_of(3),
                colour: 0xff00_0000 | (k * 0x010203),
                depth: 0xabcdef - k,
                end: false,
            }
        })
        .collect()
}

pub fn load(beats: &[PrimIn], pad: bool) -> Vec<u8> {
    let mut p = Vec::new();
    for b in beats {
        let mut r = encode_beat(b);
        if pad {
            *r.last_mut().unwrap() |= 0xf8;
        }
        p.extend(r);
    }
    host_frame(OP_LOAD_BEATS, &p)
}

/// The scene of the first run (3 beats, the last an end token), of the last (8: the buffer
/// full, records with their padding bits set).
pub fn scenes(capacity: usize) -> (Vec<PrimIn>, Vec<PrimIn>) {
    assert!(capacity >= 8);
    let mut a = beats(3, 0);
    a[2].end = true;
    let mut b = beats(capacity as u32, 10);
    b[capacity - 1].end = true;
    (a, b)
}

/// Every frame of the protocol, with what the protocol says each answer is.
pub fn protocol_script(capacity: usize, timeout: u64) -> (Script, Vec<(u8, Vec<u8>)>) {
    let (a, b) = scenes(capacity);
    let err = |code: u8, op: u8| (T_ERROR, vec![code, op]);
    let ack = |n: u16| (T_ACK, n.to_le_bytes().to_vec());
    let mut bad = load(&a[..1], false);
    bad[9] ^= 0x10;
    let rec = encode_beat(&a[0]);
    let s = Script::default()
        .send(vec![0x00, 0x13])
        .ask(host_frame(OP_PING, &[]))
        .ask(load(&a[..2], false))
        .ask(load(&a[2..], false))
        .send(host_frame(OP_RUN_FRAME, &[]))
        .send(host_frame(OP_PING, &[]))
        .expect_answer()
        .ask(bad)
        .ask(host_frame(0x42, &[]))
        .ask(host_frame(OP_PING, &[1]))
        .ask(host_frame(OP_LOAD_BEATS, &rec[..28]))
        .ask(load(&beats((capacity - a.len() + 1) as u32, 0), false))
        .send(vec![SYNC_HOST, OP_LOAD_BEATS, 29, 0, 1, 2])
        .stop_bit_low()
        .expect_answer()
        .send(vec![SYNC_HOST, OP_PING])
        .quiet(timeout)
        .expect_answer()
        .ask(host_frame(OP_PING, &[]))
        .ask(host_frame(OP_CLEAR, &[]))
        .ask(host_frame(OP_RUN_FRAME, &[]))
        .ask(load(&beats(2, 0), false))
        .ask(host_frame(OP_RUN_FRAME, &[]))
        .ask(host_frame(OP_CLEAR, &[]))
        .ask(load(&b[..5], true))
        .ask(load(&b[5..], true))
        .ask(host_frame(OP_RUN_FRAME, &[]))
        .quiet(20);
    let want = vec![
        (T_DESC, vec![]),
        ack(2),
        ack(3),
        (T_FRAME_RESULT, vec![]),
        err(E_CHECKSUM, OP_LOAD_BEATS),
        err(E_OPCODE, 0x42),
        err(E_LENGTH, OP_PING),
        err(E_LENGTH, OP_LOAD_BEATS),
        err(E_CAPACITY, OP_LOAD_BEATS),
        err(E_UART, OP_LOAD_BEATS),
        err(E_TIMEOUT, OP_PING),
        (T_DESC, vec![]),
        ack(0),
        err(E_SCENE, OP_RUN_FRAME),
        ack(2),
        err(E_SCENE, OP_RUN_FRAME),
        ack(0),
        ack(5),
        ack(capacity as u16),
        (T_FRAME_RESULT, vec![]),
    ];
    (s, want)
}

/// The answers `bench` got for [`protocol_script`] (`want`, with a buffer of `capacity`) are
/// what the protocol says: the errors and ACKs byte for byte, the descriptor's magic, capacity
/// and count, and each FRAME RESULT with the GPU's own cycle count (first beat offered to
/// done, both included; the first beat offered at the edge after the first CRC toggle after RUN
/// FRAME), frame id, CRC (the first toggle after the swap was shown), buffer and flags; every
/// beat loaded was fed once, in order, as sent; bytes sent during a run were
/// lost. Panics with the first difference.
pub fn assert_protocol_answers(bench: &Bench, want: &[(u8, Vec<u8>)], capacity: usize) {
    let host = bench.get::<Host>("host");
    let gpu = bench.get::<Gpu>("gpu");
    assert!(
        host.finished() && host.lost >= 5 && host.gave_up == 0,
        "{}",
        host.summary()
    );
    let got: Vec<(u8, Vec<u8>)> = host.answers.iter().map(|a| a.clone().unwrap()).collect();
    assert_eq!(got.len(), want.len(), "{got:?}");
    let (a, b) = scenes(capacity);
    let mut runs = 0;
    for (k, ((t, p), (wt, wp))) in got.iter().zip(want).enumerate() {
        assert_eq!(t, wt, "answer {k}: {p:?}");
        match *t {
            T_DESC => {
                assert_eq!(&p[..2], b"TF");
                assert_eq!(u16::from_le_bytes([p[7], p[8]]) as usize, capacity);
                let loaded = u16::from_le_bytes([p[9], p[10]]);
                assert_eq!(loaded, if k == 0 { 0 } else { 3 }, "answer {k}");
            }
            T_FRAME_RESULT => {
                let Ok(Response::FrameResult(r)) = decode_response(*t, p, 1) else {
                    panic!("answer {k}: {p:?}")
                };
                let (first, done) = (gpu.offers_from[runs], gpu.done_at[runs]);
                // The feed waited for the first CRC toggle after RUN FRAME (a video frame's end)
                // and offered beat 0 at the edge after the one that saw it.
                let toggle = gpu.toggles.iter().map(|t| t.0).find(|&t| t >= gpu.running_from[runs]);
                assert_eq!(
                    Some(first),
                    toggle.map(|t| t + 1),
                    "answer {k}: run {runs} began at {}",
                    gpu.running_from[runs]
                );
                let shown_at = gpu.shown_at[runs];
                let n = if runs == 0 { a.len() } else { b.len() };
                assert_eq!(
                    r,
                    FrameResult {
                        cycles: (done - first + 1) as u32,
                        crc: crc_after(gpu, shown_at).unwrap(),
                        beats: n as u16,
                        frame: runs as u8,
                        shown: u8::from(runs == 0),
                        flags: GpuTiming::default().flags,
                    },
                    "answer {k}"
                );
                runs += 1;
            }
            _ => assert_eq!(p, wp, "answer {k}"),
        }
    }
    assert_eq!(runs, 2);
    let mut fed = a.clone();
    fed.extend(&b);
    assert_eq!(gpu.taken, fed, "every beat loaded was fed once, in order, as sent");
}

/// The cycle at which `model` on `bench` offers its first beat of run `nth` (from 0):
/// `out_valid` rising for the `nth` time (to place a flush inside a run).
pub fn feed_start(model: tilerast_golden::frame_host::FrameHostCycle, bench: Bench, nth: usize) -> u64 {
    let mut ls = crate::lockstep::Lockstep::new(model, bench);
    let (mut rises, mut before) = (0, false);
    loop {
        let c = ls.cycle;
        let (_, out) = ls.step().unwrap_or_else(|e| panic!("{e}"));
        let v = out.bit("out_valid");
        if v && !before {
            if rises == nth {
                return c;
            }
            rises += 1;
        }
        before = v;
        assert!(c < 4_000_000, "run {nth} never starts");
    }
}

/// The cycles `model` on `bench` takes to play the host's script (its last step done), plus
/// ten: the length of a run of the RTL on the same bench.
pub fn script_cycles(model: tilerast_golden::frame_host::FrameHostCycle, bench: Bench) -> u64 {
    let mut ls = crate::lockstep::Lockstep::new(model, bench);
    while !ls.bench.get::<Host>("host").finished() {
        ls.step().unwrap_or_else(|e| panic!("{e}"));
        assert!(ls.cycle < 4_000_000, "the script does not finish");
    }
    ls.cycle + 10
}
