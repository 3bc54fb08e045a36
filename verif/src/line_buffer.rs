//! The line buffer's bench (`tilerast_golden::line_buffer`), shared by its rust-hdl, Verilator
//! and gate-level tests: two clocks as patterns of rising edges over the steps (periodic, as
//! from one PLL, with a phase, or at random), unique pixels offered at the write clock under
//! random valid, taken at the read clock under random stalls, and flushes held over both
//! clocks' edges.
//!
//! ```text
//!   Level("write_clock"), Level("read_clock"): 1 in the steps with that clock's edge
//!   Source("inp") on write_clock: pixel i = i · 0x9e3779 mod 2^24   Sink("out") on read_clock
//!   Flushes: windows of `flush_len` steps
//! ```

use crate::lockstep::{Bench, Flushes, Level, Sink, Source};
use crate::{Pattern, Rng};
use tilerast_golden::streams::{ports, VideoPixel};

/// How each clock's edges fall on the steps.
#[derive(Clone, Copy, Debug)]
pub enum Clocks {
    /// Write every `write` steps, read every `read` steps, the read clock `phase` steps later.
    Periodic { write: u64, read: u64, phase: u64 },
    /// Each clock has an edge in a step with these percentages (clocks of no fixed relation).
    Random { write_pct: u64, read_pct: u64 },
}

/// How a bench drives the block.
#[derive(Clone, Debug)]
pub struct LineBufferStim {
    pub seed: u64,
    pub pixels: usize,
    pub clocks: Clocks,
    /// Offered at a write edge, % (bursty runs).
    pub valid_pct: u32,
    /// Taken at a read edge, % (with random long stalls, so the FIFO fills).
    pub ready_pct: u32,
    /// Flushes: a window of `flush_len` steps starting with probability `flush_ppm` per
    /// million steps (0: none).
    pub flush_ppm: u64,
    pub flush_len: u64,
}

/// The pixels offered: unique (an odd multiplier is a bijection of 24-bit words).
pub fn pixels(n: usize) -> Vec<VideoPixel> {
    (0..n as u32)
        .map(|i| {
            let w = i.wrapping_mul(0x9e_3779) & 0xff_ffff;
            VideoPixel {
                red: (w >> 16) as u8,
                green: (w >> 8) as u8,
                blue: w as u8,
            }
        })
        .collect()
}

/// The pixel's index in [`pixels`].
pub fn index_of(p: &VideoPixel) -> u32 {
    let w = (u32::from(p.red) << 16) | (u32::from(p.green) << 8) | u32::from(p.blue);
    // 0x9e3779's inverse modulo 2^24.
    let mut inv: u32 = 1;
    for _ in 0..5 {
        inv = inv.wrapping_mul(2u32.wrapping_sub(0x9e_3779u32.wrapping_mul(inv)));
    }
    w.wrapping_mul(inv) & 0xff_ffff
}

fn edges(c: Clocks, seed: u64, read: bool) -> Box<dyn FnMut(u64) -> u64 + Send> {
    match c {
        Clocks::Periodic { write, read: r, phase } => {
            if read {
                Box::new(move |s| u64::from((s + r - phase % r) % r == 0))
            } else {
                Box::new(move |s| u64::from(s % write == 0))
            }
        }
        Clocks::Random { write_pct, read_pct } => {
            let mut rng = Rng::stream(seed, 10 + u64::from(read));
            let pct = if read { read_pct } else { write_pct };
            Box::new(move |_| u64::from(rng.below(100) < pct))
        }
    }
}

/// The bench under `s`: agents `write_clock`, `read_clock`, `drop` (never), `flush`, `inp`, `out`.
pub fn bench(s: &LineBufferStim) -> Bench {
    let mut valid = Pattern::Runs { pct: s.valid_pct }.line(Rng::stream(s.seed, 0));
    let mut ready = Pattern::RandomStalls {
        pct: s.ready_pct,
        permille: 5,
        min: 20,
        max: 300,
    }
    .line(Rng::stream(s.seed, 1));
    let mut flush_rng = Rng::stream(s.seed, 2);
    let (ppm, len) = (s.flush_ppm, s.flush_len);
    let mut until = 0u64;
    Bench::new()
        .with("write_clock", Level::new("write_clock", edges(s.clocks, s.seed, false)))
        .with("read_clock", Level::new("read_clock", edges(s.clocks, s.seed, true)))
        // No drops here: a drop abandons words by design, which the order check below does not
        // model; the display path's benches drop at each scan-out start.
        .with("drop", Level::new("drop", |_| 0))
        .with(
            "flush",
            Flushes::when(Box::new(move |c| {
                if c > 10 && ppm > 0 && c >= until && flush_rng.below(1_000_000) < ppm {
                    until = c + len;
                }
                c < until
            })),
        )
        .with(
            "inp",
            Source::<ports::VideoPixel>::new("inp", pixels(s.pixels), Box::new(move |_| valid.step()))
                .on_clock("write_clock"),
        )
        .with(
            "out",
            Sink::<ports::VideoPixel>::new("out", Box::new(move |_| ready.step())).on_clock("read_clock"),
        )
}

/// What the sink received, checked against what was offered: without flushes the first
/// pixels in order; with flushes an increasing run of them (a flush drops what is held).
/// Returns how many were received.
pub fn check_order(received: &[VideoPixel], flushed: bool, offered: usize) -> Result<usize, String> {
    let mut last: Option<u32> = None;
    for (k, p) in received.iter().enumerate() {
        let i = index_of(p);
        let want_next = last.map_or(0, |l| l + 1);
        let ok = if flushed {
            i >= want_next && (i as usize) < offered
        } else {
            i == want_next
        };
        if !ok {
            return Err(format!(
                "line buffer: pixel {k} received is pixel {i} of those offered, expected {}{want_next}",
                if flushed { "at least " } else { "" }
            ));
        }
        last = Some(i);
    }
    Ok(received.len())
}

/// Where the planted bug (`Crossing::plant_unsynchronised_bug`, the RTL's `c_unsynchronised`)
/// first shows on the ports under `s` within `steps`: (step, port), from the model with the
/// bug against the model without.
pub fn predicted_unsynchronised_bug(s: &LineBufferStim, steps: u64) -> (u64, String) {
    use crate::lockstep::{first_difference, Lockstep};
    use tilerast_golden::line_buffer::LineBufferCycle;
    let mut bad_model = LineBufferCycle::default();
    bad_model.fifo.plant_unsynchronised_bug();
    let mut good = Lockstep::new(LineBufferCycle::default(), bench(s));
    let mut bad = Lockstep::new(bad_model, bench(s));
    first_difference(&mut good, &mut bad, steps)
        .unwrap()
        .expect("the unsynchronised read side shows on the ports")
}
