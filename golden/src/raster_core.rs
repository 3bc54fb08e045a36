//! raster_core: the RTL blocks of seeds 000 and 003 wired together, as a cycle model
//! (`hw/src/raster_core.rs` is the RTL).
//!
//! ```text
//!            ┌──────────┐ tri ┌───────┐   ┌─────────────┐   ┌──────────────────┐   ┌───────────────┐
//!  cmd ─────►│ dispatch │────►│ setup │──►│ tile_parser │──►│ subtile_coverage │──►│ sample_raster │─┐
//!            │ kind FIFO│     └───────┘   └─────────────┘   └──────────────────┘   └───────────────┘ │
//!            │          │ pt  ┌──────────────┐                                                   ┌───▼───┐  ┌─────────────┐
//!            │          │────►│ point_raster │──────────────────────────────────────────────────►│ merge │─►│ quad_packer │─► out
//!            └────┬─────┘     └──────────────┘                                                   └───▲───┘  └─────────────┘
//!                 └──────────── kinds of the commands in flight, oldest first ──────────────────────┘
//! ```
//!
//! * **Dispatch.** A command is accepted when the kind FIFO has room and the block for its kind
//!   (setup for triangles, point_raster for points) is ready; its kind is pushed into the FIFO.
//! * **Merge.** The FIFO's oldest kind selects which path's beats go to the quad packer; the
//!   beat carrying `last` pops it. So quads leave in command order, and every command ends with
//!   exactly one `last` beat (see `hw/README.md`).
//! * **Ready** is evaluated from the output back to the input every cycle (each block's
//!   `in_ready` may depend combinationally on its `out_ready`); `out()` of every block is
//!   registered, so the merge's valid is combinational only through the FIFO head.
//! * **Flush** resets every block and empties the FIFO.
//!
//! The core's timing contract, composed from the blocks' contracts, is the rustdoc of
//! [`RasterCoreCycle`].

use crate::config::Config;
use crate::cycle::CycleModel;
use crate::point_raster::PointRasterCycle;
use crate::quad_packer::QuadPackerCycle;
use crate::sample_raster::SampleRasterCycle;
use crate::setup::SetupCycle;
use crate::streams::{Beat, Cmd};
use crate::subtile_coverage::SubtileCoverageCycle;
use crate::tile_parser::TileParserCycle;

/// Depth of the kind FIFO: commands in flight at once.
pub const KIND_FIFO_DEPTH: usize = 8;

/// Cycle model of raster_core (`hw/src/raster_core.rs`; In = [`Cmd`], Out = [`Beat`] with
/// `block`).
///
/// # Timing contract
///
/// The one statement of the core's timing; the RTL is held to it on every port and cycle
/// (`hw/tests/raster_core.rs`, `cosim/tests/raster_core.rs`, `tilerast regress`). Dispatch and
/// merge add no register on the data path: the core's timing is its blocks' contracts
/// composed, each stated once on its cycle model: [`SetupCycle`], [`TileParserCycle`],
/// [`SubtileCoverageCycle`], [`SampleRasterCycle`], [`PointRasterCycle`], [`QuadPackerCycle`].
/// "Accepted at edge c" means `cmd_valid` and `cmd_ready` are high in cycle c.
///
/// * **Handshake:** `cmd_ready` = (fewer than [`KIND_FIFO_DEPTH`] commands in flight) ∧ setup's
///   `in_ready` ∧ point_raster's `in_ready` (both, so it never depends on `cmd_kind`); it
///   depends combinationally on `out_ready` through every block's ready chain. The outputs are
///   the quad packer's registers.
/// * **Latency:** in an idle core with `out_ready` high, the first beat sample_raster emits for
///   a triangle accepted at edge c is at the quad packer's input from cycle c + 13 at the
///   earliest (setup 9 + tile parser 1 + sub-tile coverage 1 + sample raster 2; later when the
///   first candidates are rejected or the first beats empty); point_raster's first beat for a
///   point from cycle c + 4. The packer shows an output beat 1 cycle after the input beat that
///   completes it. So with Q = 1 (`ice40`, `ice40_1x`), a triangle whose first visited quad is
///   covered gives its first output beat in cycle c + 14, a point in c + 5.
/// * **Order:** the oldest command in flight selects the merge input; a block whose command is
///   not the oldest holds its output (back-pressure) until the older commands' `last` beats
///   have passed.
/// * **Throughput:** the slowest stage's, the stages overlapping across up to
///   [`KIND_FIFO_DEPTH`] commands in flight: setup takes one triangle command per
///   [`SETUP_II`](crate::setup::SETUP_II) cycles, the tile parser and sub-tile coverage one
///   candidate per cycle (the tile parser's look-ahead passes over up to K − 1 =
///   `subtiles_per_cycle` − 1 test-rejected sub-tiles per step at no cycle), sample_raster NB cycles per covered sub-tile (1 per `none` job),
///   point_raster k + 2 cycles per point of k scan steps, the quad packer one input beat per
///   cycle (+1 per `pend`). So small triangles back to back are accepted every `SETUP_II`
///   cycles and one-quad points every 3. The throughput benchmark
///   (`golden/benches/throughput.rs`) measures quads per cycle against the bound ⌈quads / Q⌉.
/// * **Flush:** every block returns to its `new` state and the kind FIFO empties.
#[derive(Clone, Debug)]
pub struct RasterCoreCycle {
    pub setup: SetupCycle,
    pub tile_parser: TileParserCycle,
    pub coverage: SubtileCoverageCycle,
    pub sample: SampleRasterCycle,
    pub point: PointRasterCycle,
    pub packer: QuadPackerCycle,
    /// Kinds of the commands in flight (bit i of `kinds` = i-th oldest; 1 = point).
    kinds: u32,
    count: u32,
}

/// Combinational signals of one cycle, evaluated from the registered state.
#[derive(Clone, Copy, Debug, Default)]
struct Wires {
    head_point: bool,
    have_head: bool,
    merge_valid: bool,
    merge_beat: Beat,
    packer_in_ready: bool,
    sample_out_ready: bool,
    point_out_ready: bool,
    coverage_out_ready: bool,
    parser_out_ready: bool,
    setup_out_ready: bool,
    setup_in_ready: bool,
    point_in_ready: bool,
}

impl RasterCoreCycle {
    pub fn new(cfg: &Config) -> Self {
        RasterCoreCycle {
            setup: SetupCycle::new(cfg),
            tile_parser: TileParserCycle::new(cfg),
            coverage: SubtileCoverageCycle::new(cfg),
            sample: SampleRasterCycle::new(cfg),
            point: PointRasterCycle::new(cfg),
            packer: QuadPackerCycle::new(cfg),
            kinds: 0,
            count: 0,
        }
    }

    /// Commands accepted whose `last` beat has not reached the quad packer yet.
    pub fn in_flight(&self) -> u32 {
        self.count
    }

    fn wires(&self, out_ready: bool) -> Wires {
        let mut w = Wires {
            have_head: self.count > 0,
            head_point: self.kinds & 1 == 1,
            ..Wires::default()
        };
        w.packer_in_ready = self.packer.in_ready(out_ready);
        let (sv, sb) = self.sample.out();
        let (pv, pb) = self.point.out();
        if w.have_head {
            if w.head_point {
                w.merge_valid = pv;
                w.merge_beat = pb;
            } else {
                w.merge_valid = sv;
                w.merge_beat = sb;
            }
        }
        w.sample_out_ready = w.have_head && !w.head_point && w.packer_in_ready;
        w.point_out_ready = w.have_head && w.head_point && w.packer_in_ready;
        w.coverage_out_ready = self.sample.in_ready(w.sample_out_ready);
        w.parser_out_ready = self.coverage.in_ready(w.coverage_out_ready);
        w.setup_out_ready = self.tile_parser.in_ready(w.parser_out_ready);
        w.setup_in_ready = self.setup.in_ready(w.setup_out_ready);
        w.point_in_ready = self.point.in_ready(w.point_out_ready);
        w
    }
}

/// The core has no further outputs (its ports are the command and beat streams only).
impl crate::cycle::ExtraOut for RasterCoreCycle {}

impl CycleModel for RasterCoreCycle {
    type In = Cmd;
    type Out = Beat;

    fn out(&self) -> (bool, Beat) {
        self.packer.out()
    }

    fn in_ready(&self, out_ready: bool) -> bool {
        let w = self.wires(out_ready);
        (self.count as usize) < KIND_FIFO_DEPTH && w.setup_in_ready && w.point_in_ready
    }

    fn clock(&mut self, in_valid: bool, inp: &Cmd, out_ready: bool, flush: bool) {
        let w = self.wires(out_ready);
        let fifo_room = (self.count as usize) < KIND_FIFO_DEPTH;
        let accept = in_valid && fifo_room && w.setup_in_ready && w.point_in_ready;
        let is_point = inp.kind == 1;
        // Every block sees this cycle's inputs, then all clock together.
        let (cv, cand) = self.tile_parser.out();
        let (jv, job) = self.coverage.out();
        let (ev, edges) = self.setup.out();
        let pop = w.merge_valid && w.packer_in_ready && w.merge_beat.last;
        self.packer.clock(w.merge_valid, &w.merge_beat, out_ready, flush);
        self.sample.clock(jv, &job, w.sample_out_ready, flush);
        self.coverage.clock(cv, &cand, w.coverage_out_ready, flush);
        self.tile_parser.clock(ev, &edges, w.parser_out_ready, flush);
        self.setup.clock(accept && !is_point, inp, w.setup_out_ready, flush);
        self.point.clock(accept && is_point, inp, w.point_out_ready, flush);
        if flush {
            self.kinds = 0;
            self.count = 0;
            return;
        }
        if pop {
            self.kinds >>= 1;
            self.count -= 1;
        }
        if accept {
            self.kinds |= (is_point as u32) << self.count;
            self.count += 1;
        }
    }
}

/// Drive [`RasterCoreCycle`] with `cmds` (one offered per cycle, the output always ready) until
/// the last command's last beat has left: (cycles, quads), or `Err` after `limit` cycles.
/// A config the core's blocks cannot build is an `Err` naming the field.
pub fn run_commands(cfg: &Config, cmds: &[Cmd], limit: u64) -> Result<(u64, u64), String> {
    crate::quad_packer::cycle::QuadPackerGeom::new(cfg)?;
    let mut m = RasterCoreCycle::new(cfg);
    let (mut next, mut lasts, mut quads, mut cycles) = (0usize, 0usize, 0u64, 0u64);
    while lasts < cmds.len() {
        if cycles >= limit {
            return Err(format!(
                "raster_core: {lasts} of {} commands done after {limit} cycles",
                cmds.len()
            ));
        }
        let (v, beat) = m.out();
        if v {
            quads += beat.lane_valid.count_ones() as u64;
            lasts += beat.last as usize;
        }
        let in_valid = next < cmds.len();
        let inp = if in_valid { cmds[next] } else { Cmd::default() };
        if in_valid && m.in_ready(true) {
            next += 1;
        }
        m.clock(in_valid, &inp, true, false);
        cycles += 1;
    }
    Ok((cycles, quads))
}
