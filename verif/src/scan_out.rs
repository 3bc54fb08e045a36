//! The scan-out's bench, shared by its rust-hdl, Verilator and gate-level tests: a memory
//! holding two framebuffers behind `rd`/`inp` (the board's double buffer), a line buffer
//! behind `out` whose `fill` lags its reads as a clock-crossing FIFO's write side does,
//! drained at the pixel clock's rate, and `start` pulses that alternate the two `base`s.
//!
//! ```text
//!   start, base (level agents: a start every `period` cycles, base A then B then A …)
//!   Memory("rd" → "inp"): both framebuffers, random grant, latency 4
//!   LineBuffer("out", fill): depth = the credits, a word drained per `drain_every` cycles,
//!                            fill = words in + words drained `FILL_LAG` cycles ago or earlier
//!   Flushes (optional)
//! ```

use crate::lockstep::{Agent, Bench, Ctl, Flushes, Level, Memory};
use crate::{Pattern, Rng};
use std::any::Any;
use std::collections::VecDeque;
use tilerast_golden::cycle::Ports;
use tilerast_golden::memory_port::{MemTiming, MemoryCycle, SparseMemory};
use tilerast_golden::scan_out::{pixel_of, ScanOutParams};
use tilerast_golden::streams::{ports, VideoPixel};

/// Cycles a drained word takes to show in `fill` (the read pointer's synchroniser).
pub const FILL_LAG: usize = 3;
/// The two framebuffers' byte addresses.
pub const BASES: [u32; 2] = [0x0010_0000, 0x0030_0000];

/// The line buffer behind `out`: a FIFO of `depth` words whose `fill` counts a drained word
/// only [`FILL_LAG`] cycles later (it over-counts, as the write side of a clock-crossing FIFO
/// does), drained one word per `drain_every` cycles.
pub struct LineBuffer {
    depth: usize,
    drain_every: u64,
    ready: Ctl,
    words: VecDeque<VideoPixel>,
    /// Words drained in each of the last cycles, newest last (not yet in `fill`).
    recent_drains: VecDeque<usize>,
    /// Every word drained, in order.
    pub drained: Vec<VideoPixel>,
    /// Words taken from `out`.
    pub taken: u64,
    /// A word came while the buffer was full (the credits failed).
    pub overflow: bool,
    /// Most words held.
    pub peak: usize,
}

impl LineBuffer {
    pub fn new(depth: usize, drain_every: u64, ready: Ctl) -> LineBuffer {
        LineBuffer {
            depth,
            drain_every,
            ready,
            words: VecDeque::new(),
            recent_drains: VecDeque::from(vec![0; FILL_LAG]),
            drained: Vec::new(),
            taken: 0,
            overflow: false,
            peak: 0,
        }
    }

    fn fill(&self) -> usize {
        self.words.len() + self.recent_drains.iter().sum::<usize>()
    }
}

impl Agent for LineBuffer {
    fn drive(&mut self, cycle: u64, p: &mut Ports) {
        p.set("out_ready", (self.ready)(cycle) as u64);
        p.set("fill", self.fill() as u64);
    }

    fn edge(&mut self, cycle: u64, i: &Ports, o: &Ports) {
        if i.bit("flush") {
            self.words.clear();
            self.recent_drains.iter_mut().for_each(|d| *d = 0);
            return;
        }
        if o.bit("out_valid") && i.bit("out_ready") {
            self.taken += 1;
            self.overflow |= self.words.len() >= self.depth;
            self.words.push_back(o.payload::<ports::VideoPixel>("out"));
            self.peak = self.peak.max(self.words.len());
        }
        let mut drained = 0;
        if cycle.is_multiple_of(self.drain_every) {
            if let Some(w) = self.words.pop_front() {
                self.drained.push(w);
                drained = 1;
            }
        }
        self.recent_drains.pop_front();
        self.recent_drains.push_back(drained);
    }

    fn summary(&self) -> String {
        format!(
            "line buffer: {} words taken, {} drained, peak {} of {}{}",
            self.taken,
            self.drained.len(),
            self.peak,
            self.depth,
            if self.overflow { ", OVERFLOW" } else { "" }
        )
    }

    fn as_any(&self) -> &dyn Any {
        self
    }
}

/// A framebuffer's word at position `pos` of buffer `which` (a pattern the test can recompute).
pub fn word(which: usize, pos: u32) -> u32 {
    Rng::mix(0x5ca7 + which as u64, u64::from(pos)) as u32
}

/// Both framebuffers of `p` in one memory.
pub fn memory(p: &ScanOutParams) -> SparseMemory {
    let mut m = SparseMemory::new();
    for (which, base) in BASES.iter().enumerate() {
        for pos in 0..p.width * p.height {
            m.write(base + 4 * pos, word(which, pos), 0xf);
        }
    }
    m
}

/// The screen as the scan-out must send it for buffer `which`: screen line by line, top first.
pub fn screen(p: &ScanOutParams, which: usize) -> Vec<VideoPixel> {
    let (sw, sh) = (p.width * p.scale, p.height * p.scale);
    (0..sh)
        .flat_map(|l| (0..sw).map(move |c| (c, l)))
        .map(|(c, l)| pixel_of(word(which, (p.height - 1 - l / p.scale) * p.width + c / p.scale)))
        .collect()
}

/// How a bench drives the block.
#[derive(Clone, Debug)]
pub struct ScanOutStim {
    pub seed: u64,
    /// A start every `period` cycles, from cycle `first_start` (base A, then B, then A …).
    pub first_start: u64,
    pub period: u64,
    /// The memory's grant, % of cycles.
    pub grant_pct: u32,
    /// The line buffer: a word drained per `drain_every` cycles; `out_ready` stalls at random.
    pub drain_every: u64,
    pub stalls: bool,
    /// Random flushes, per million cycles (0: none).
    pub flush_ppm: u64,
}

/// The bench for `p` under `s`.
pub fn bench(p: &ScanOutParams, s: &ScanOutStim) -> Bench {
    let (first, period) = (s.first_start, s.period);
    let mut grant = Pattern::Random { pct: s.grant_pct }.line(Rng::stream(s.seed, 0));
    let ready: Ctl = if s.stalls {
        let mut l = Pattern::RandomStalls {
            pct: 90,
            permille: 4,
            min: 2,
            max: 30,
        }
        .line(Rng::stream(s.seed, 1));
        Box::new(move |_| l.step())
    } else {
        Box::new(|_| true)
    };
    let mut flush_rng = Rng::stream(s.seed, 2);
    let ppm = s.flush_ppm;
    let mem = MemoryCycle::new(MemTiming { latency: 4, depth: 8 }, memory(p));
    Bench::new()
        .with(
            "flush",
            Flushes::when(Box::new(move |c| {
                c > first && ppm > 0 && flush_rng.below(1_000_000) < ppm
            })),
        )
        .with(
            "start",
            Level::new("start", move |c| (c >= first && (c - first) % period == 0) as u64),
        )
        .with(
            "base",
            Level::new("base", move |c| {
                u64::from(BASES[(c.saturating_sub(first) / period % 2) as usize])
            }),
        )
        .with("memory", Memory::new("rd", "inp", mem, Box::new(move |_| grant.step())))
        .with("line", LineBuffer::new(p.credits as usize, s.drain_every, ready))
}

/// Where the planted row-step bug (`ScanOutCycle::plant_row_step_bug`, the RTL's
/// `mutant_row_step_up` and cosim's `scan_out` mutant) first shows on the ports under `s`
/// within `cycles`: (cycle, port), from the model with the bug against the model without.
pub fn predicted_row_step_bug(p: &ScanOutParams, s: &ScanOutStim, cycles: u64) -> (u64, String) {
    use crate::lockstep::{first_difference, Lockstep};
    use tilerast_golden::scan_out::ScanOutCycle;
    let mut bad_model = ScanOutCycle::new(*p);
    bad_model.plant_row_step_bug();
    let mut good = Lockstep::new(ScanOutCycle::new(*p), bench(p, s));
    let mut bad = Lockstep::new(bad_model, bench(p, s));
    first_difference(&mut good, &mut bad, cycles)
        .unwrap()
        .expect("the row-step bug shows on the ports")
}
