//! Co-simulation of the tilerast RTL (`rtl-out/tilerast_<preset>.v`, verilated at build time)
//! against the golden cycle model [`RasterCoreCycle`]: both see the same inputs on every cycle,
//! and every output port (`cmd_ready`, `out_valid`, the whole beat payload) must agree on every
//! cycle, valid or not.
//!
//! Ports are sampled like [`CycleModel::out`] / [`CycleModel::in_ready`]: inputs applied with
//! the clock low, combinational settle, sample, then the rising edge. Cycles run in batches
//! (one FFI call per batch): the stimulus never depends on the RTL's outputs, only on the
//! model's predicted `cmd_ready`, so the model runs a batch first and records its inputs and
//! predicted outputs, then Verilator replays the inputs and the two output streams are compared
//! word by word. The first difference is a [`Mismatch`].

use std::fmt;
use std::time::Instant;
use tilerast_golden::cycle::CycleModel;
use tilerast_golden::raster_core::RasterCoreCycle;
use tilerast_golden::streams::{Beat, Cmd, LANES};
use tilerast_golden::{Config, Quad};
use tilerast_verif::{Flush, Handshake, Lines, Pattern};

pub mod blocks;
pub mod regress;
pub mod top;
pub mod wave;

#[cxx::bridge]
pub mod ffi {
    /// Result of [`replay_timed`]: nanoseconds of the C++ loop, first differing cycle (or u64::MAX).
    #[derive(Clone, Copy, Debug)]
    struct Replay {
        nanos: u64,
        first_bad: u64,
    }

    unsafe extern "C++" {
        include!("tilerast-cosim/csrc/glue.h");
        type Model;
        fn new_model(preset: &str) -> Result<UniquePtr<Model>>;
        fn run(m: Pin<&mut Model>, cycles: u32, inp: &[u32], out: &mut [u32]) -> Result<()>;
        fn open_trace(m: Pin<&mut Model>, path: &str, from_cycle: u64) -> Result<()>;
        fn replay_timed(m: Pin<&mut Model>, inp: &[u32], want: &[u32], out: &mut [u32]) -> Result<Replay>;
    }
}

/// u32 input words per cycle (layout in `csrc/glue.h`).
pub const IN_W: usize = 10;
/// u32 output words per cycle (layout in `csrc/glue.h`).
pub const OUT_W: usize = 16;
/// Cycles per FFI call.
pub const BATCH: usize = 2048;

/// RTL models built into this crate: the presets plus `ice40_mut` (ice40 with one line of the
/// sample_raster block broken on purpose, see `build.rs`, for the mutation test).
pub const MODELS: &[&str] = &["ice40", "default", "full", "ice40_1x", "ice40_mut"];

/// One verilated `tilerast_<preset>` core.
pub struct Rtl(cxx::UniquePtr<ffi::Model>);
// A verilated model is not thread-safe, but it may move between threads.
unsafe impl Send for Rtl {}

impl Rtl {
    pub fn new(model: &str) -> Result<Rtl, String> {
        ffi::new_model(model).map(Rtl).map_err(|e| e.what().to_string())
    }
    /// Run `inp.len() / IN_W` cycles; `out` receives OUT_W words per cycle.
    pub fn run(&mut self, inp: &[u32], out: &mut [u32]) {
        let cycles = (inp.len() / IN_W) as u32;
        ffi::run(self.0.pin_mut(), cycles, inp, out).expect("run");
    }
    /// Dump a VCD of every cycle from `from_cycle` on (needs the `trace` feature).
    pub fn open_trace(&mut self, path: &str, from_cycle: u64) -> Result<(), String> {
        ffi::open_trace(self.0.pin_mut(), path, from_cycle).map_err(|e| e.what().to_string())
    }
    /// Replay recorded input words in one pure C++ loop (apply, sample, compare with `want`),
    /// timed in C++: the baseline of the speed benchmark. `out` receives the output words.
    pub fn replay_timed(&mut self, inp: &[u32], want: &[u32], out: &mut [u32]) -> Result<ffi::Replay, String> {
        ffi::replay_timed(self.0.pin_mut(), inp, want, out).map_err(|e| e.what().to_string())
    }
}

/// Input words of one cycle.
pub fn encode_in(cmd_valid: bool, c: &Cmd, out_ready: bool, flush: bool) -> [u32; IN_W] {
    let m24 = |v: i32| v as u32 & 0xff_ffff;
    [
        cmd_valid as u32
            | (out_ready as u32) << 1
            | (flush as u32) << 2
            | ((c.kind == 1) as u32) << 3
            | (c.aa as u32) << 4,
        c.prim & 0xff_ffff,
        (c.tile_x & 0xff) | (c.tile_y & 0xff) << 8,
        m24(c.v[0][0]),
        m24(c.v[0][1]),
        m24(c.v[1][0]),
        m24(c.v[1][1]),
        m24(c.v[2][0]),
        m24(c.v[2][1]),
        c.size & 0xff_ffff,
    ]
}

/// Output words of one cycle as the model predicts them.
pub fn encode_out(cmd_ready: bool, out_valid: bool, b: &Beat) -> [u32; OUT_W] {
    let mut w = [0u32; OUT_W];
    w[0] = cmd_ready as u32 | (out_valid as u32) << 1 | (b.last as u32) << 2 | ((b.lane_valid as u32) & 0xf) << 4;
    w[1] = b.prim;
    for l in 0..LANES {
        w[2 + l] = b.qx[l] | b.qy[l] << 16;
        w[6 + 2 * l] = b.mask[l] as u32;
        w[7 + 2 * l] = (b.mask[l] >> 32) as u32;
        w[14] |= (b.block[l] & 0xff) << (8 * l);
    }
    w
}

/// Named port values of one cycle's output words.
pub fn ports(w: &[u32]) -> Vec<(String, u64)> {
    let mut p = vec![
        ("cmd_ready".to_string(), (w[0] & 1) as u64),
        ("out_valid".to_string(), (w[0] >> 1 & 1) as u64),
        ("out_last".to_string(), (w[0] >> 2 & 1) as u64),
        ("out_lane_valid".to_string(), (w[0] >> 4 & 0xf) as u64),
        ("out_prim".to_string(), w[1] as u64),
    ];
    for l in 0..LANES {
        p.push((format!("out_qx_{l}"), (w[2 + l] & 0xffff) as u64));
        p.push((format!("out_qy_{l}"), (w[2 + l] >> 16) as u64));
    }
    for l in 0..LANES {
        p.push((
            format!("out_mask_{l}"),
            w[6 + 2 * l] as u64 | (w[7 + 2 * l] as u64) << 32,
        ));
    }
    for l in 0..LANES {
        p.push((format!("out_block_{l}"), (w[14] >> (8 * l) & 0xff) as u64));
    }
    p
}

/// Downstream ready pattern: a [`tilerast_verif::Pattern`] (`Always`, `Random { pct }`,
/// `Regimes { period }`, `Stalls { pct, every, len }`, ...).
pub use tilerast_verif::Pattern as Ready;

/// Stimulus of one run. Deterministic: the same stimulus gives the same cycles.
#[derive(Clone, Debug)]
pub struct Stimulus {
    /// Seed of the gap, ready and flush lines (see [`Stimulus::handshake`]).
    pub seed: u64,
    /// Probability (%) that the producer holds `cmd_valid` low in a cycle.
    pub gap_pct: u32,
    pub ready: Ready,
    /// Flush at this cycle; the command stream then starts over from the first command.
    pub flush_at: Option<u64>,
    /// Give up (error) after this many cycles.
    pub max_cycles: u64,
}

impl Stimulus {
    /// The handshake this stimulus drives: valid with `gap_pct` % gaps, `ready`, the flush;
    /// its lines are drawn from `seed` ([`Handshake::lines`]).
    pub fn handshake(&self) -> Handshake {
        Handshake::new(Pattern::gaps(self.gap_pct), self.ready)
            .with_flush(self.flush_at.map_or(Flush::Never, Flush::At))
    }
}

impl Default for Stimulus {
    fn default() -> Self {
        Stimulus {
            seed: 1,
            gap_pct: 20,
            ready: Ready::Regimes { period: 256 },
            flush_at: None,
            max_cycles: 50_000_000,
        }
    }
}

/// The first difference between RTL and model.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct Mismatch {
    pub cycle: u64,
    /// Port name, or `<timeout>` if the stream did not finish within `max_cycles`.
    pub port: String,
    pub rtl: u64,
    pub model: u64,
    /// Primitive on the model's output port that cycle.
    pub prim: u32,
    /// Index of the command offered that cycle.
    pub cmd_index: usize,
    /// All output words of that cycle.
    pub rtl_words: Vec<u32>,
    pub model_words: Vec<u32>,
}

impl fmt::Display for Mismatch {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        writeln!(
            f,
            "cycle {}: port {} rtl {:#x} model {:#x} (out prim {}, cmd #{} offered)",
            self.cycle, self.port, self.rtl, self.model, self.prim, self.cmd_index
        )?;
        if !self.rtl_words.is_empty() {
            writeln!(f, "  rtl   {:?}", ports(&self.rtl_words))?;
            write!(f, "  model {:?}", ports(&self.model_words))?;
        }
        Ok(())
    }
}

/// What a clean run did.
#[derive(Clone, Debug, Default)]
pub struct Summary {
    pub cycles: u64,
    /// Commands accepted (all of them, counting the ones re-sent after a flush).
    pub commands: u64,
    /// Quads transferred after the last flush, in order (model side = RTL side).
    pub quads: Vec<Quad>,
    /// Beats with `last` transferred after the last flush.
    pub lasts: u64,
    pub flushed: bool,
    pub secs: f64,
    /// Time spent inside Verilator.
    pub rtl_secs: f64,
    pub cycles_per_sec: f64,
}

/// The stimulus generator and the cycle model, run ahead of the RTL one batch at a time.
pub struct Driver<'a> {
    pub model: RasterCoreCycle,
    cmds: &'a [Cmd],
    stim: Stimulus,
    lines: Lines,
    /// Next command to offer.
    pub next: usize,
    /// `last` beats transferred since the last flush.
    pub lasts: u64,
    /// Commands accepted in total.
    pub accepted: u64,
    pub cycle: u64,
    pub quads: Vec<Quad>,
    pub flushed: bool,
}

impl<'a> Driver<'a> {
    pub fn new(cfg: &Config, cmds: &'a [Cmd], stim: &Stimulus) -> Self {
        Driver {
            model: RasterCoreCycle::new(cfg),
            cmds,
            stim: stim.clone(),
            lines: stim.handshake().lines(stim.seed),
            next: 0,
            lasts: 0,
            accepted: 0,
            cycle: 0,
            quads: Vec::new(),
            flushed: false,
        }
    }

    /// Every command went through and (if asked for) the flush happened.
    pub fn finished(&self) -> bool {
        let n = self.cmds.len();
        self.next >= n && self.lasts >= n as u64 && (self.stim.flush_at.is_none() || self.flushed)
    }

    /// Run up to `inp.len() / IN_W` cycles of the model, stopping early when finished or at
    /// `max_cycles`; writes each cycle's inputs and predicted outputs (and the index of the
    /// command offered). Returns the number of cycles run.
    pub fn batch(&mut self, inp: &mut [u32], want: &mut [u32], offered: &mut [usize]) -> usize {
        let n = self.cmds.len();
        let idle = Cmd::default();
        let mut k = 0;
        while k < inp.len() / IN_W && !self.finished() && self.cycle < self.stim.max_cycles {
            let hs = self.lines.step();
            let out_ready = hs.ready;
            let in_valid = self.next < n && hs.valid;
            let c = if self.next < n { &self.cmds[self.next] } else { &idle };
            let flush = hs.flush;
            let (ov, beat) = self.model.out();
            let ready = self.model.in_ready(out_ready);
            inp[k * IN_W..(k + 1) * IN_W].copy_from_slice(&encode_in(in_valid, c, out_ready, flush));
            want[k * OUT_W..(k + 1) * OUT_W].copy_from_slice(&encode_out(ready, ov, &beat));
            offered[k] = self.next;
            self.model.clock(in_valid, c, out_ready, flush);
            if flush {
                self.next = 0;
                self.lasts = 0;
                self.quads.clear();
                self.flushed = true;
            } else {
                if ov && out_ready {
                    self.quads.extend(beat.quads());
                    self.lasts += beat.last as u64;
                }
                if in_valid && ready {
                    self.next += 1;
                    self.accepted += 1;
                }
            }
            self.cycle += 1;
            k += 1;
        }
        k
    }
}

/// Co-simulate the `tilerast_<preset>` RTL against the cycle model of that preset.
pub fn cosim(preset: &str, cmds: &[Cmd], stim: &Stimulus) -> Result<Summary, Mismatch> {
    let cfg = Config::preset(preset).unwrap_or_else(|e| panic!("{}", e.msg));
    cosim_model(preset, &cfg, cmds, stim, None)
}

/// As [`cosim`] with an explicit RTL model name (see [`MODELS`]) and config; with `vcd` =
/// `Some((path, from_cycle))` the RTL writes a VCD from that cycle on (feature `trace`).
pub fn cosim_model(
    model: &str,
    cfg: &Config,
    cmds: &[Cmd],
    stim: &Stimulus,
    vcd: Option<(&str, u64)>,
) -> Result<Summary, Mismatch> {
    let t0 = Instant::now();
    let mut rtl = Rtl::new(model).unwrap_or_else(|e| panic!("{e}"));
    if let Some((path, from)) = vcd {
        rtl.open_trace(path, from).unwrap_or_else(|e| panic!("{e}"));
    }
    let mut d = Driver::new(cfg, cmds, stim);
    let mut inp = vec![0u32; BATCH * IN_W];
    let mut want = vec![0u32; BATCH * OUT_W];
    let mut got = vec![0u32; BATCH * OUT_W];
    let mut offered = vec![0usize; BATCH];
    let mut rtl_secs = 0.0;
    loop {
        // 1. The model runs a batch, recording inputs and predicted outputs.
        let start = d.cycle;
        let k = d.batch(&mut inp, &mut want, &mut offered);
        // 2. Verilator replays the batch; compare every word of every cycle.
        if k > 0 {
            let t = Instant::now();
            rtl.run(&inp[..k * IN_W], &mut got[..k * OUT_W]);
            rtl_secs += t.elapsed().as_secs_f64();
            if got[..k * OUT_W] != want[..k * OUT_W] {
                let i = (0..k * OUT_W).find(|&i| got[i] != want[i]).unwrap();
                let c = i / OUT_W;
                let (g, w) = (&got[c * OUT_W..(c + 1) * OUT_W], &want[c * OUT_W..(c + 1) * OUT_W]);
                let (pg, pw) = (ports(g), ports(w));
                let j = (0..pg.len()).find(|&j| pg[j].1 != pw[j].1).unwrap();
                return Err(Mismatch {
                    cycle: start + c as u64,
                    port: pg[j].0.clone(),
                    rtl: pg[j].1,
                    model: pw[j].1,
                    prim: w[1],
                    cmd_index: offered[c],
                    rtl_words: g.to_vec(),
                    model_words: w.to_vec(),
                });
            }
        }
        if d.finished() {
            break;
        }
        if d.cycle >= stim.max_cycles {
            return Err(Mismatch {
                cycle: d.cycle,
                port: "<timeout>".into(),
                rtl: 0,
                model: 0,
                prim: 0,
                cmd_index: d.next,
                rtl_words: vec![],
                model_words: vec![],
            });
        }
    }
    let secs = t0.elapsed().as_secs_f64();
    Ok(Summary {
        cycles: d.cycle,
        commands: d.accepted,
        quads: d.quads,
        lasts: d.lasts,
        flushed: d.flushed,
        secs,
        rtl_secs,
        cycles_per_sec: d.cycle as f64 / secs.max(1e-9),
    })
}

/// The model's predicted output words for every cycle of a run (no RTL involved).
pub fn model_outputs(cfg: &Config, cmds: &[Cmd], stim: &Stimulus) -> Vec<u32> {
    let mut d = Driver::new(cfg, cmds, stim);
    let mut all = Vec::new();
    let mut inp = vec![0u32; BATCH * IN_W];
    let mut want = vec![0u32; BATCH * OUT_W];
    let mut offered = vec![0usize; BATCH];
    loop {
        let k = d.batch(&mut inp, &mut want, &mut offered);
        if k == 0 {
            break;
        }
        all.extend_from_slice(&want[..k * OUT_W]);
    }
    all
}

/// Re-run a failing co-simulation with a VCD of the cycles around the mismatch
/// (`window` cycles before it; needs the `trace` feature). Returns the path written.
pub fn vcd_around(
    model: &str,
    cfg: &Config,
    cmds: &[Cmd],
    stim: &Stimulus,
    mismatch: &Mismatch,
    window: u64,
    path: &str,
) -> Result<String, String> {
    let mut s = stim.clone();
    s.max_cycles = mismatch.cycle + 2;
    let from = mismatch.cycle.saturating_sub(window);
    match cosim_model(model, cfg, cmds, &s, Some((path, from))) {
        Err(m) if m.cycle == mismatch.cycle => Ok(path.to_string()),
        Err(m) => Err(format!("re-run diverged: {m}")),
        Ok(_) => Err("re-run did not mismatch".into()),
    }
}
