//! The SDRAM controller's lock-step bench, shared by its rust-hdl test
//! (`hw/tests/sdram_controller.rs`), its Verilator test (`cosim/tests/sdram_controller.rs`) and
//! its post-synthesis simulation (`fpga/tests/postsim.rs`): requests in, answers out under
//! back-pressure, random flushes, and the SDRAM chip model behind the pins
//! ([`crate::lockstep::SdramChipAgent`]), which checks every command against the datasheet.

use crate::lockstep::{Bench, Flushes, Observer, SdramChipAgent, Sink, Source};
use crate::{Flush, Pattern, Rng};
use std::sync::{Arc, Mutex};
use tilerast_golden::sdram_chip::{SdramChip, SdramPart};
use tilerast_golden::streams::{ports, MemReq};

/// The requests: runs of 1..16 consecutive words from a random word of a window of 4 rows in
/// each of the 4 banks (so rows open, hit, and get precharged for another row), 45 % writes
/// (random byte enables, 0 and 0xf included), 1 % beyond a 32 MB part, 1 % misaligned.
/// `pair_words` is the part's column pairs per row (columns / 2: one 32-bit word each).
pub fn requests(seed: u64, n: usize, pair_words: u32) -> Vec<MemReq> {
    let mut r = Rng::stream(seed, 10);
    let mut v = Vec::new();
    let window = u64::from(pair_words) * 4 * 4;
    while v.len() < n {
        let start = r.below(window);
        let run = 1 + r.below(16);
        let write = r.chance(45);
        for i in 0..run {
            let word = ((start + i) % window) as u32;
            let addr = match r.below(100) {
                0 => 0x0200_0000 + 4 * word,
                1 => 4 * word + 2,
                _ => 4 * word,
            };
            v.push(MemReq {
                addr,
                write,
                wdata: if write { r.next_u32() } else { 0 },
                be: if write { r.below(16) as u8 } else { 0 },
            });
        }
    }
    v.truncate(n);
    v
}

/// What the bench saw (counted by an observer on the model's ports).
#[derive(Clone, Debug, Default)]
pub struct Activity {
    pub taken: u64,
    pub reads_answered: u64,
    pub nonzero_answers: u64,
    pub error_cycles: u64,
    /// Cycles with a request offered and `in_ready` low.
    pub full_stalls: u64,
}

/// A long stall of `out_ready`, in every run long enough to reach it.
pub const STALL: std::ops::Range<u64> = 2500..2700;

/// The bench: [`requests`] under an 80 % runs pattern, answers taken under random stalls (and
/// [`STALL`]), random flushes (2 ‰, none before `first_flush`), the chip (`part` at `clock_hz`)
/// behind the pins, and an observer counting [`Activity`].
pub fn bench(
    part: SdramPart,
    clock_hz: f64,
    seed: u64,
    cycles: u64,
    first_flush: u64,
) -> (Bench, Arc<Mutex<Activity>>) {
    let mut valid = Pattern::Runs { pct: 80 }.line(Rng::stream(seed, 0));
    let mut ready = Pattern::RandomStalls {
        pct: 75,
        permille: 8,
        min: 5,
        max: 60,
    }
    .line(Rng::stream(seed, 1));
    let mut flush = Flush::Random { permille: 2 }.line(Rng::stream(seed, 2));
    let act = Arc::new(Mutex::new(Activity::default()));
    let a = act.clone();
    let observer = Observer::new(move |_, i, o| {
        let mut a = a.lock().unwrap();
        let flush = i.bit("flush");
        a.error_cycles += o.bit("error") as u64;
        a.full_stalls += (i.bit("in_valid") && !o.bit("in_ready")) as u64;
        a.taken += (i.bit("in_valid") && o.bit("in_ready") && !flush) as u64;
        if o.bit("out_valid") && i.bit("out_ready") && !flush {
            a.reads_answered += 1;
            a.nonzero_answers += (o.get("out__rdata") != Some(0)) as u64;
        }
    });
    let b = Bench::new()
        .with(
            "flush",
            Flushes::when(Box::new(move |c| flush.step() && c >= first_flush)),
        )
        .with(
            "inp",
            Source::<ports::MemReq>::new(
                "inp",
                requests(seed, cycles as usize, part.columns / 2),
                Box::new(move |_| valid.step()),
            ),
        )
        .with(
            "out",
            Sink::<ports::MemResp>::new("out", Box::new(move |c| ready.step() && !STALL.contains(&c))),
        )
        .with("sdram", SdramChipAgent::new(SdramChip::new(part, clock_hz)))
        .with("activity", observer);
    (b, act)
}
