//! Handshake patterns: when a producer offers (`valid`), when a consumer takes (`ready`) and
//! when the pipeline is flushed, cycle by cycle, from a seed.
//!
//! A [`Pattern`] describes one line; [`Pattern::line`] turns it into a [`Line`] that yields one
//! `bool` per cycle (high = valid offered / ready asserted). A [`Handshake`] bundles the valid
//! and ready patterns of a block's two ports with a [`Flush`]; [`Handshake::lines`] gives the
//! three lines of a run, each on its own [`Rng::stream`] of the seed.
//!
//! Every line must be stepped exactly once per cycle (the periodic patterns count cycles).

use crate::Rng;

/// The shape of one handshake line (a producer's `valid` or a consumer's `ready`).
///
/// `pct` is the probability (%) that the line is high in a cycle outside stalls / long
/// off-runs; 100 means always.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum Pattern {
    /// High in every cycle.
    Always,
    /// High with probability `pct` %, each cycle on its own.
    Random { pct: u32 },
    /// Every `period` cycles one of four regimes, picked uniformly: always high; 50 %; low
    /// except the last fifth of the period (a long stall); 90 %.
    Regimes { period: u64 },
    /// High with probability `pct` %, plus a full stall (low) in the last `len` cycles of every
    /// `every` cycles (always low if `len` ≥ `every`): periodic stalls, e.g. thousands of cycles
    /// long.
    Stalls { pct: u32, every: u64, len: u64 },
    /// High with probability `pct` %, plus full stalls at random: in a cycle outside a stall
    /// (and not right after one, so stalls never merge) one starts with probability
    /// `permille` ‰ and holds the line low for `min..=max` cycles, that cycle included.
    RandomStalls {
        pct: u32,
        permille: u32,
        min: u64,
        max: u64,
    },
    /// Runs of random length: each run is high with probability `pct` %; a high run lasts 1–12
    /// cycles, a low run 1–3, or (1 in 10) a long 20–79. Bursty traffic with short bubbles
    /// and occasional stalls.
    Runs { pct: u32 },
}

impl Pattern {
    /// The `valid` pattern of a producer that idles (a gap) with probability `gap_pct` % per
    /// cycle: `Random { pct: 100 - gap_pct }`.
    pub fn gaps(gap_pct: u32) -> Pattern {
        Pattern::Random {
            pct: 100u32.saturating_sub(gap_pct),
        }
    }

    /// This pattern driven by `rng`, from cycle 0.
    pub fn line(self, rng: Rng) -> Line {
        Line {
            pattern: self,
            rng,
            cycle: 0,
            left: 0,
            rest: false,
            state: true,
            regime: 0,
        }
    }
}

/// One handshake line: a [`Pattern`] with its generator and position. [`Line::step`] (or the
/// [`Iterator`]) gives the line's value in the next cycle.
#[derive(Clone, Debug)]
pub struct Line {
    pattern: Pattern,
    rng: Rng,
    cycle: u64,
    /// Cycles left in the current stall / run.
    left: u64,
    /// A random stall just ended (no new one this cycle).
    rest: bool,
    /// Value of the current run.
    state: bool,
    regime: u64,
}

impl Line {
    /// The pattern this line follows.
    pub fn pattern(&self) -> Pattern {
        self.pattern
    }

    /// Cycles stepped so far.
    pub fn cycle(&self) -> u64 {
        self.cycle
    }

    /// The line's value in the next cycle.
    pub fn step(&mut self) -> bool {
        let cyc = self.cycle;
        self.cycle += 1;
        let r = &mut self.rng;
        match self.pattern {
            Pattern::Always => true,
            Pattern::Random { pct } => r.chance(pct as u64),
            Pattern::Regimes { period } => {
                let period = period.max(1);
                if cyc.is_multiple_of(period) {
                    self.regime = r.below(4);
                }
                match self.regime {
                    0 => true,
                    1 => r.chance(50),
                    2 => cyc % period >= period - period / 5,
                    _ => r.chance(90),
                }
            }
            Pattern::Stalls { pct, every, len } => {
                let every = every.max(1);
                cyc % every < every.saturating_sub(len) && r.chance(pct as u64)
            }
            Pattern::RandomStalls {
                pct,
                permille,
                min,
                max,
            } => {
                if self.left == 0 && !self.rest && r.permille(permille as u64) {
                    self.left = min + r.below(max.saturating_sub(min) + 1);
                }
                if self.left > 0 {
                    self.left -= 1;
                    self.rest = self.left == 0;
                    return false;
                }
                self.rest = false;
                r.chance(pct as u64)
            }
            Pattern::Runs { pct } => {
                if self.left == 0 {
                    self.state = r.chance(pct as u64);
                    self.left = if self.state {
                        1 + r.below(12)
                    } else if r.one_in(10) {
                        20 + r.below(60)
                    } else {
                        1 + r.below(3)
                    };
                }
                self.left -= 1;
                self.state
            }
        }
    }
}

/// An endless stream of [`Line::step`] values.
impl Iterator for Line {
    type Item = bool;
    fn next(&mut self) -> Option<bool> {
        Some(self.step())
    }
}

/// When the pipeline is flushed.
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq)]
pub enum Flush {
    /// Never.
    #[default]
    Never,
    /// In this cycle only.
    At(u64),
    /// In any cycle with probability `permille` ‰.
    Random { permille: u32 },
}

impl Flush {
    /// This flush pattern driven by `rng`, from cycle 0.
    pub fn line(self, rng: Rng) -> FlushLine {
        FlushLine {
            flush: self,
            rng,
            cycle: 0,
        }
    }
}

/// A [`Flush`] with its generator and position.
#[derive(Clone, Debug)]
pub struct FlushLine {
    flush: Flush,
    rng: Rng,
    cycle: u64,
}

impl FlushLine {
    /// Whether the next cycle flushes.
    pub fn step(&mut self) -> bool {
        let cyc = self.cycle;
        self.cycle += 1;
        match self.flush {
            Flush::Never => false,
            Flush::At(c) => cyc == c,
            Flush::Random { permille } => self.rng.permille(permille as u64),
        }
    }
}

/// The stimulus of a valid/ready block's control inputs: the producer's `valid`, the
/// consumer's `ready` and `flush`.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct Handshake {
    pub valid: Pattern,
    pub ready: Pattern,
    pub flush: Flush,
}

impl Handshake {
    /// `valid` and `ready` as given, never a flush.
    pub fn new(valid: Pattern, ready: Pattern) -> Handshake {
        Handshake {
            valid,
            ready,
            flush: Flush::Never,
        }
    }

    /// The same with this flush.
    pub fn with_flush(self, flush: Flush) -> Handshake {
        Handshake { flush, ..self }
    }

    /// The three lines of a run with this seed: valid, ready and flush draw from streams 0, 1
    /// and 2 of `seed` ([`Rng::stream`]), so none depends on how often another is used.
    pub fn lines(&self, seed: u64) -> Lines {
        Lines {
            valid: self.valid.line(Rng::stream(seed, 0)),
            ready: self.ready.line(Rng::stream(seed, 1)),
            flush: self.flush.line(Rng::stream(seed, 2)),
        }
    }
}

/// The lines of a [`Handshake`]. Step all three with [`Lines::step`], or each on its own
/// (e.g. as two closures, one per port); each must be stepped once per cycle.
#[derive(Clone, Debug)]
pub struct Lines {
    pub valid: Line,
    pub ready: Line,
    pub flush: FlushLine,
}

/// One cycle of a [`Handshake`].
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct Cycle {
    /// The producer offers (if it has anything to offer).
    pub valid: bool,
    /// The consumer takes.
    pub ready: bool,
    pub flush: bool,
}

impl Lines {
    /// The next cycle of all three lines.
    pub fn step(&mut self) -> Cycle {
        Cycle {
            valid: self.valid.step(),
            ready: self.ready.step(),
            flush: self.flush.step(),
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    const ALL: [Pattern; 7] = [
        Pattern::Random { pct: 60 },
        Pattern::Random { pct: 99 },
        Pattern::Regimes { period: 256 },
        Pattern::Stalls {
            pct: 80,
            every: 6000,
            len: 3500,
        },
        Pattern::RandomStalls {
            pct: 75,
            permille: 4,
            min: 20,
            max: 600,
        },
        Pattern::Runs { pct: 70 },
        Pattern::Runs { pct: 30 },
    ];

    /// Lengths of the maximal runs of `v` in the first `n` cycles of `line`.
    fn runs(line: &mut Line, n: usize, v: bool) -> Vec<u64> {
        let mut out = Vec::new();
        let mut cur = 0;
        for x in line.take(n) {
            if x == v {
                cur += 1;
            } else if cur > 0 {
                out.push(cur);
                cur = 0;
            }
        }
        out
    }

    #[test]
    fn every_pattern_produces_both_states() {
        for p in ALL {
            let ones = p.line(Rng::new(1)).take(100_000).filter(|&x| x).count();
            assert!(ones > 1000 && ones < 99_000, "{p:?}: {ones} high of 100 000");
        }
        assert!(Pattern::Always.line(Rng::new(1)).take(1000).all(|x| x));
        assert!(Pattern::Random { pct: 100 }.line(Rng::new(1)).take(1000).all(|x| x));
        assert!(!Pattern::Random { pct: 0 }.line(Rng::new(1)).take(1000).any(|x| x));
        assert_eq!(Pattern::gaps(25), Pattern::Random { pct: 75 });
        assert_eq!(Pattern::gaps(200), Pattern::Random { pct: 0 });
    }

    #[test]
    fn same_seed_same_line_other_seed_other_line() {
        for p in ALL {
            let a: Vec<bool> = p.line(Rng::new(9)).take(20_000).collect();
            let b: Vec<bool> = p.line(Rng::new(9)).take(20_000).collect();
            let c: Vec<bool> = p.line(Rng::new(10)).take(20_000).collect();
            assert_eq!(a, b, "{p:?}");
            assert_ne!(a, c, "{p:?}");
        }
        // The lines of one handshake are independent streams.
        let h = Handshake::new(Pattern::Random { pct: 50 }, Pattern::Random { pct: 50 });
        let mut l = h.lines(3);
        let (v, r): (Vec<bool>, Vec<bool>) = (0..1000).map(|_| l.step()).map(|c| (c.valid, c.ready)).unzip();
        assert_ne!(v, r);
    }

    #[test]
    fn random_is_near_its_percentage() {
        let ones = Pattern::Random { pct: 30 }
            .line(Rng::new(4))
            .take(100_000)
            .filter(|&x| x)
            .count();
        assert!((29_000..31_000).contains(&ones), "{ones}");
    }

    #[test]
    fn random_stalls_cover_the_configured_lengths() {
        // With pct 100 every low run is exactly one stall.
        let p = Pattern::RandomStalls {
            pct: 100,
            permille: 20,
            min: 5,
            max: 40,
        };
        let stalls = runs(&mut p.line(Rng::new(2)), 1_000_000, false);
        assert!(stalls.len() > 5000, "{} stalls", stalls.len());
        assert!(stalls.iter().all(|&s| (5..=40).contains(&s)), "stall outside 5..=40");
        assert!(stalls.contains(&5) && stalls.contains(&40), "both ends reached");
        // Long stalls: 20..=600 (the per-block co-simulation's default).
        let p = Pattern::RandomStalls {
            pct: 75,
            permille: 4,
            min: 20,
            max: 600,
        };
        let low = runs(&mut p.line(Rng::new(5)), 400_000, false);
        assert!(low.iter().any(|&s| s >= 500), "a stall of 500+ cycles");
    }

    #[test]
    fn periodic_stalls_are_the_last_len_cycles_of_every_period() {
        let p = Pattern::Stalls {
            pct: 100,
            every: 6000,
            len: 3500,
        };
        let v: Vec<bool> = p.line(Rng::new(1)).take(18_000).collect();
        for (c, &x) in v.iter().enumerate() {
            assert_eq!(x, c % 6000 < 2500, "cycle {c}");
        }
        let p = Pattern::Stalls {
            pct: 100,
            every: 10,
            len: 20,
        };
        assert!(!p.line(Rng::new(1)).take(100).any(|x| x), "len ≥ every: always low");
    }

    #[test]
    fn regimes_change_per_period_and_include_a_long_stall() {
        let period = 100;
        let v: Vec<bool> = Pattern::Regimes { period }.line(Rng::new(8)).take(100_000).collect();
        let mut kinds = [0; 3];
        for chunk in v.chunks(period as usize) {
            let ones = chunk.iter().filter(|&&x| x).count();
            if ones == 100 {
                kinds[0] += 1; // always (or a lucky 90 %)
            } else if chunk[..80].iter().all(|&x| !x) && chunk[80..].iter().all(|&x| x) {
                kinds[1] += 1; // stalled but for the last fifth
            } else {
                kinds[2] += 1; // random
            }
        }
        assert!(kinds.iter().all(|&k| k > 100), "{kinds:?}");
    }

    #[test]
    fn runs_have_bubbles_and_long_stalls() {
        let low = runs(&mut Pattern::Runs { pct: 70 }.line(Rng::new(6)), 200_000, false);
        assert!(
            low.iter().any(|&s| s <= 3) && low.iter().any(|&s| s >= 20),
            "short and long low runs"
        );
        let high = runs(&mut Pattern::Runs { pct: 70 }.line(Rng::new(6)), 200_000, true);
        assert!(high.iter().any(|&s| s >= 12), "long high runs");
    }

    #[test]
    fn flush_patterns() {
        let at: Vec<u64> = (0..1000u64)
            .scan(Flush::At(150).line(Rng::new(1)), |l, c| Some((c, l.step())))
            .filter(|x| x.1)
            .map(|x| x.0)
            .collect();
        assert_eq!(at, [150]);
        assert!(!Flush::Never.line(Rng::new(1)).step());
        let mut l = Flush::Random { permille: 3 }.line(Rng::new(1));
        let n = (0..100_000).filter(|_| l.step()).count();
        assert!((200..400).contains(&n), "{n} flushes in 100 000 cycles at 3 ‰");
        let h = Handshake::new(Pattern::Always, Pattern::Always).with_flush(Flush::At(2));
        let mut lines = h.lines(0);
        let c: Vec<Cycle> = (0..4).map(|_| lines.step()).collect();
        assert_eq!(
            c.iter().map(|c| c.flush).collect::<Vec<_>>(),
            [false, false, true, false]
        );
        assert!(c.iter().all(|c| c.valid && c.ready));
    }
}
