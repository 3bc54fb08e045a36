//! bin_setup's bench and port words, from its cycle model `BinSetupCycle` through the one
//! lock-step harness (`tilerast_verif::lockstep`): the drive of `cosim/tests/bin_setup.rs`
//! (Verilator, [`crate::blocks::cosim_lockstep`]) and of the gate-level regression
//! (`fpga/tests/postsim.rs`, [`vectors`]). Frames of primitives back to back (repeated), junk
//! payloads while `in_valid` is low, the patterns of [`Drive`]; every frame finished is checked
//! against golden (`binner::prim_bbox` boxes, `prim_table::table` bytes) by
//! `stim::BinSetupFrames`.

use crate::blocks::lockstep_vectors;
use tilerast_golden::bin_setup::BinSetupCycle;
use tilerast_golden::prim::PrimitiveFx;
use tilerast_golden::streams::ports;
use tilerast_golden::Config;
use tilerast_verif::lockstep::{line, Bench, Flushes, Lockstep, Sink};
use tilerast_verif::stim::BinSetupFrames;
use tilerast_verif::{Pattern, Rng};

/// The stage name.
pub const STAGE: &str = "bin_setup";

/// The handshake lines and flushes of a run.
#[derive(Clone, Debug)]
pub struct Drive {
    pub seed: u64,
    pub cycles: u64,
    pub valid: Pattern,
    pub out_ready: Pattern,
    pub wr_ready: Pattern,
    pub flush_at: Vec<u64>,
}

/// What a run did.
#[derive(Clone, Debug, Default)]
pub struct Outcome {
    /// Frames finished (each checked against golden).
    pub frames: u64,
    pub boxes: u64,
    pub writes: u64,
    pub longest_out_stall: u64,
    pub longest_wr_stall: u64,
    /// Flushes with a frame in flight.
    pub busy_flushes: u64,
    pub zero_area: u64,
    pub culled: u64,
}

/// The bench of a drive: `frames` back to back and repeated on `inp`, sinks on `out` and `wr`.
pub fn bench(cfg: &Config, frames: &[Vec<PrimitiveFx>], d: &Drive) -> Bench {
    Bench::new()
        .with("flush", Flushes::at(d.flush_at.clone()))
        .with(
            "inp",
            BinSetupFrames::new(
                cfg,
                frames.to_vec(),
                line(d.valid.line(Rng::stream(d.seed, 0))),
                Rng::stream(d.seed, 3),
            )
            .cyclic(),
        )
        .with(
            "out",
            Sink::<ports::BinBox>::new("out", line(d.out_ready.line(Rng::stream(d.seed, 1)))),
        )
        .with(
            "wr",
            Sink::<ports::MemReq>::new("wr", line(d.wr_ready.line(Rng::stream(d.seed, 2)))),
        )
}

/// What the lock-step `ls` did; `Err`: the first finished frame that is not golden's.
pub fn outcome(ls: &Lockstep<BinSetupCycle>) -> Result<Outcome, String> {
    let f = ls.bench.get::<BinSetupFrames>("inp");
    if let Some(e) = &f.wrong {
        return Err(e.clone());
    }
    let st = ls.model.stats();
    Ok(Outcome {
        frames: f.finished,
        boxes: f.boxes_out,
        writes: f.writes_out,
        longest_out_stall: ls.bench.get::<Sink<ports::BinBox>>("out").longest_wait,
        longest_wr_stall: ls.bench.get::<Sink<ports::MemReq>>("wr").longest_wait,
        busy_flushes: f.busy_flushes,
        zero_area: st.zero_area,
        culled: st.culled,
    })
}

/// The run's port words: `inp` and `exp` (the model's outputs), `in_words()` / `out_words()`
/// of `preset`'s port table per cycle.
pub struct Vectors {
    pub inp: Vec<u32>,
    pub exp: Vec<u32>,
    pub outcome: Outcome,
}

/// The words of a run of the model for `cfg` on `frames` (back to back, repeated) against the
/// port table of `preset`. `Err`: a finished frame that is not golden's, or no port table.
pub fn vectors(preset: &str, cfg: &Config, frames: &[Vec<PrimitiveFx>], d: &Drive) -> Result<Vectors, String> {
    let mut ls = Lockstep::new(BinSetupCycle::new(cfg), bench(cfg, frames, d));
    let (inp, exp) = lockstep_vectors(preset, &mut ls, d.cycles)?;
    Ok(Vectors {
        inp,
        exp,
        outcome: outcome(&ls)?,
    })
}
