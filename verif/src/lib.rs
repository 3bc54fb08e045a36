//! The tilerast verification kit: the one seeded random number generator and the one set of
//! handshake patterns that every test bench of the project draws its stimulus from.
//!
//! * [`Rng`] — SplitMix64, the generator every test bench draws from: random primitives,
//!   commands, payloads and patterns (the C++ side has none of its own). [`Rng::stream`]
//!   derives independent sub-streams from a seed; it is the derivation `tilerast regress` uses
//!   per chunk, so regression seeds keep their primitives.
//! * [`handshake`] — when a producer offers (`valid`, i.e. input gaps), when a consumer takes
//!   (`ready`: random, regimes, periodic stalls of thousands of cycles, random stalls, bursty
//!   runs) and when the pipeline is flushed: [`Pattern`], [`Flush`], bundled as a
//!   [`Handshake`] and stepped cycle by cycle as [`Lines`].
//!
//! Who uses it:
//! * `golden/tests/` — the cycle models against the transaction model (dev-dependency);
//! * `hw/tests/` — the rust-hdl blocks against the cycle models in rust-hdl's simulator
//!   (dev-dependency);
//! * `cosim/` — the Verilator harnesses: the core's `Driver` (`Stimulus::ready` is a
//!   [`Pattern`]), `tilerast regress` and the cosim tests; through
//!   the `Driver`, also the post-synthesis simulation in `fpga/`;
//! * the C++ side has no generator of its own: C++ loops replay stimulus recorded in Rust.
//!
//! * [`lockstep`] — the one lock-step harness for blocks with any number of streams: a
//!   [`lockstep::Bench`] of agents (sources, sinks, a memory port, flushes), each with its own
//!   handshake pattern, drives the block's cycle model and its RTL (rust-hdl or Verilator
//!   back end) with the same inputs, and every output port is compared on every cycle.
//! * [`stim`] — per-stage stimulus generators (commands for setup and point_raster, edges,
//!   candidates, jobs, beats), shared by the rust-hdl and the Verilator tests of each block,
//!   and the random primitives of the raster-core tests (cycle model and Verilator).
//!
//! The crate depends on no HDL crate; it depends on `tilerast-golden` for the payload types and
//! golden's transaction models, and golden's integration tests use it as a dev-dependency.
//!
//! ```
//! use tilerast_verif::{Flush, Handshake, Pattern, Rng};
//!
//! let mut rng = Rng::new(7);
//! let tile = rng.below(16); // 0..16
//! assert!(tile < 16);
//!
//! // 20 % input gaps, downstream stalls of 20–600 cycles, a flush at cycle 1000.
//! let h = Handshake::new(
//!     Pattern::gaps(20),
//!     Pattern::RandomStalls { pct: 75, permille: 4, min: 20, max: 600 },
//! )
//! .with_flush(Flush::At(1000));
//! let mut lines = h.lines(42);
//! for cycle in 0..2000u64 {
//!     let c = lines.step();
//!     assert_eq!(c.flush, cycle == 1000);
//!     // drive in_valid = c.valid && (something to offer), out_ready = c.ready, flush = c.flush
//! }
//! ```

pub mod board_top;
pub mod display_path;
pub mod double_buffer;
pub mod frame_host;
pub mod handshake;
pub mod line_buffer;
pub mod lockstep;
pub mod mem_arbiter;
pub mod mutate;
pub mod scan_out;
pub mod sdram;
pub mod stim;

pub use handshake::{Cycle, Flush, FlushLine, Handshake, Line, Lines, Pattern};
/// The one seeded generator (SplitMix64), defined at the bottom of the crate graph in golden so
/// that golden's memory model draws from it too.
pub use tilerast_golden::rng::Rng;
