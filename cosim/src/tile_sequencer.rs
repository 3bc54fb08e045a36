//! The tile sequencer's bench for the one lock-step harness (`tilerast_verif::lockstep`): the
//! drive of `cosim/tests/tile_sequencer.rs` (Verilator, `blocks::cosim_lockstep`) and of the
//! gate-level regression (`fpga/tests/postsim.rs`, `blocks::lockstep_vectors`). Start tokens
//! with gaps (random ids, junk while idle), a sink for the commands, golden's memories behind
//! the list (`lrd` → `lrsp`) and the table (`prd` → `prsp`) read ports; [`outcome`] checks the
//! commands out against golden's (`stim::seq_beats`), frame after frame, each flush starting
//! the frame again.

use std::sync::{Arc, Mutex};
use tilerast_golden::memory_port::{MemTiming, MemoryCycle};
use tilerast_golden::scene::Frame;
use tilerast_golden::streams::{ports, SeqCmd, SeqStart};
use tilerast_golden::tile_sequencer::TileSequencerCycle;
use tilerast_verif::lockstep::{line, Bench, Flushes, Lockstep, Memory, Sink, Source};
use tilerast_verif::stim::{seq_beats, seq_images};
use tilerast_verif::{Pattern, Rng};

/// The handshake lines, memory timings and flushes of a run.
#[derive(Clone, Debug)]
pub struct Drive {
    pub seed: u64,
    pub cycles: u64,
    pub ltiming: MemTiming,
    pub ptiming: MemTiming,
    pub valid: Pattern,
    pub ready: Pattern,
    pub lgrant: Pattern,
    pub pgrant: Pattern,
    pub flush_at: Vec<u64>,
}

/// What a run did.
#[derive(Debug, Default)]
pub struct Outcome {
    /// Whole frames of golden's commands out.
    pub frames: u64,
    pub cmds: u64,
    pub points: u64,
    pub lreads: u64,
    pub preads: u64,
    pub longest_stall: u64,
    pub grant_stalls: u64,
    /// Flushes that found the block busy (the model not quiet).
    pub busy_flushes: u64,
}

/// The bench of one drive over `frame`.
pub fn bench(frame: &Frame, d: &Drive) -> Bench {
    let (lists, pt, _) = seq_images(frame);
    let mut ids = Rng::stream(d.seed, 5);
    let starts: Vec<SeqStart> = (0..256)
        .map(|_| SeqStart {
            frame: ids.next_u32() as u8,
        })
        .collect();
    Bench::new()
        .with("flush", Flushes::at(d.flush_at.clone()))
        .with(
            "inp",
            Source::<ports::SeqStart>::new("inp", starts, line(d.valid.line(Rng::stream(d.seed, 0))))
                .cyclic()
                .with_random_junk(Rng::stream(d.seed, 4), 100),
        )
        .with(
            "out",
            Sink::<ports::SeqCmd>::new("out", line(d.ready.line(Rng::stream(d.seed, 1)))),
        )
        .with(
            "lmem",
            Memory::new(
                "lrd",
                "lrsp",
                MemoryCycle::new(d.ltiming, lists),
                line(d.lgrant.line(Rng::stream(d.seed, 2))),
            ),
        )
        .with(
            "pmem",
            Memory::new(
                "prd",
                "prsp",
                MemoryCycle::new(d.ptiming, pt),
                line(d.pgrant.line(Rng::stream(d.seed, 3))),
            ),
        )
}

/// The model for `frame` on [`bench`], counting the flushes that find it busy.
pub fn lockstep(frame: &Frame, d: &Drive) -> (Lockstep<TileSequencerCycle>, Arc<Mutex<u64>>) {
    let busy = Arc::new(Mutex::new(0u64));
    let b = busy.clone();
    let flush_at = d.flush_at.clone();
    let ls = Lockstep::new(TileSequencerCycle::new(&frame.cfg), bench(frame, d)).watching(move |c, m| {
        *b.lock().unwrap() += (flush_at.contains(&c) && !m.is_quiet()) as u64;
    });
    (ls, busy)
}

/// What the run of `ls` did; `Err`: the first command out that is not golden's.
pub fn outcome(ls: &Lockstep<TileSequencerCycle>, busy: &Mutex<u64>, frame: &Frame) -> Result<Outcome, String> {
    let want: Vec<SeqCmd> = seq_beats(frame);
    let sink = ls.bench.get::<Sink<ports::SeqCmd>>("out");
    let (lmem, pmem) = (ls.bench.get::<Memory>("lmem"), ls.bench.get::<Memory>("pmem"));
    let mut o = Outcome {
        lreads: lmem.requests,
        preads: pmem.requests,
        longest_stall: sink.longest_wait,
        grant_stalls: lmem.waits + pmem.waits,
        busy_flushes: *busy.lock().unwrap(),
        ..Default::default()
    };
    o.frames = sink.repeats(&want)?;
    for beat in sink.received.iter().filter(|b| !b.end) {
        o.cmds += 1;
        o.points += (beat.cmd.kind == 1) as u64;
    }
    Ok(o)
}
