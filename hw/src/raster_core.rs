//! raster_core: the raster pipeline of seeds 000 and 003, the blocks of this crate wired
//! together. Primitive commands in, quad beats out, plus a synchronous `flush`.
//!
//! ```text
//!            ┌──────────┐ tri ┌───────┐  ┌─────────────┐  ┌──────────────────┐  ┌───────────────┐
//!  cmd ─────►│ dispatch │────►│ setup │─►│ tile_parser │─►│ subtile_coverage │─►│ sample_raster │─┐
//!            │          │     └───────┘  └─────────────┘  └──────────────────┘  └───────────────┘ │ ┌───────┐  ┌─────────────┐
//!            │          │ pt  ┌──────────────┐                                                   └►│ merge │─►│ quad_packer │─► out
//!            │          │────►│ point_raster │────────────────────────────────────────────────────►│       │  └─────────────┘
//!            └────┬─────┘     └──────────────┘                                                     └───▲───┘
//!                 └────────── kind FIFO (8 commands in flight, oldest selects the merge input) ────────┘
//! ```
//!
//! **Ports.** `clock`, `flush` (synchronous: every block and the kind FIFO return to idle);
//! command stream `cmd_valid`/`cmd_ready` with `cmd` ([`CmdIn`]: Verilog ports `cmd__kind`
//! (0 triangle, 1 point), `cmd__prim`, …); quad beat stream `out_valid`/`out_ready` with
//! `out` ([`PackedBeatOut`]: `out__prim`, `out__lane_valid`, per lane `out__qx_l`,
//! `out__qy_l`, `out__mask_l` (4·S bits), `out__block_l` (storage block), `out__last`). The
//! fields are declared once, in [`tilerast_golden::for_each_stream!`]; every block-to-block
//! connection below is one `join`.
//!
//! **Handshake.** `cmd_ready` is high when the kind FIFO has room and *both* setup and
//! point_raster can accept (so it never depends combinationally on `cmd.kind`); it depends
//! combinationally on `out_ready` through the blocks' ready chain. Outputs are the quad
//! packer's registers.
//!
//! **Order and timing.** Quads leave in command order, each command ending with exactly one
//! `last` beat; inside a command, the golden order. Timing contract:
//! [`tilerast_golden::raster_core::RasterCoreCycle`] (the blocks' contracts composed).
//!
//! **Instance names** are the stage names of [`tilerast_golden::stages::RASTER_CORE_STAGES`],
//! so each block's Verilog module is `tilerast_<preset>__<stage>`.

use crate::fifo::shift_fifo;
use crate::point_raster::PointRaster;
use crate::quad_packer::QuadPacker;
use crate::sample_raster::SampleRaster;
use crate::setup::Setup;
use crate::streams::{BeatMux, BeatOut, CandOut, CmdIn, EdgesOut, JobOut, PackedBeatOut};
use crate::subtile_coverage::SubtileCoverage;
use crate::tile_parser::TileParser;
use rust_hdl::prelude::*;
use tilerast_golden::streams::Stream;
use tilerast_golden::Config;

/// Commands in flight at once: the cycle model's [`tilerast_golden::raster_core::KIND_FIFO_DEPTH`].
const KIND_FIFO_DEPTH: u64 = tilerast_golden::raster_core::KIND_FIFO_DEPTH as u64;
const _: () = assert!(KIND_FIFO_DEPTH == 8, "KindFifo's depth is the literal 8");

shift_fifo! {
    /// The kind FIFO: the kind of every command in flight (`point` = 1 for a point), oldest at
    /// the head; the head selects the merge's input.
    pub struct KindFifo { depth 8, last 7, count 4, fields { point: Bit } }
}

/// The raster core.
#[derive(LogicBlock)]
pub struct RasterCore {
    /// Clock.
    pub clock: Signal<In, Clock>,
    /// Synchronous reset to idle.
    pub flush: Signal<In, Bit>,
    /// Command stream valid.
    pub cmd_valid: Signal<In, Bit>,
    /// Command stream ready.
    pub cmd_ready: Signal<Out, Bit>,
    /// Command payload ([`CmdIn`]).
    pub cmd: CmdIn,
    /// Quad beat stream valid.
    pub out_valid: Signal<Out, Bit>,
    /// Quad beat stream ready.
    pub out_ready: Signal<In, Bit>,
    /// Beat payload ([`PackedBeatOut`]).
    pub out: PackedBeatOut,
    setup: Setup,
    tile_parser: TileParser,
    subtile_coverage: SubtileCoverage,
    sample_raster: SampleRaster,
    point_raster: PointRaster,
    quad_packer: QuadPacker,
    /// The in-order merge's payload multiplexer (`sel` = the oldest command is a point).
    merge: BeatMux,
    /// Kinds of the commands in flight, oldest first.
    kinds: KindFifo,
    depth: Constant<Bits<4>>,
    room: Signal<Local, Bit>,
    accept: Signal<Local, Bit>,
    head_point: Signal<Local, Bit>,
    have_head: Signal<Local, Bit>,
    merge_valid: Signal<Local, Bit>,
    merge_last: Signal<Local, Bit>,
    pop: Signal<Local, Bit>,
}

/// The core's one stream in (`cmd_valid`/`cmd_ready` + `cmd`, a Cmd) and one out (a
/// PackedBeat), for the rust-hdl harness; it has no further outputs. (The core is the one
/// block without a golden signature: its ports were named before the convention.)
impl crate::streams::OneStream for RasterCore {
    type In = tilerast_golden::streams::ports::Cmd;
    type Out = tilerast_golden::streams::ports::PackedBeat;
    const IN_READY: &'static str = "cmd_ready";
    fn clock_high(&self) -> bool {
        self.clock.val().clk
    }
    fn toggle_clock(&mut self) {
        self.clock.next = !self.clock.val();
    }
    fn drive_main(&mut self, in_valid: bool, inp: &<Self::In as Stream>::Payload, out_ready: bool, flush: bool) {
        self.cmd_valid.next = in_valid;
        self.cmd.drive(inp);
        self.out_ready.next = out_ready;
        self.flush.next = flush;
    }
    fn in_ready_now(&self) -> bool {
        self.cmd_ready.val()
    }
    fn out_valid_now(&self) -> bool {
        self.out_valid.val()
    }
    fn sample_out(&self) -> <Self::Out as Stream>::Payload {
        self.out.sample()
    }
    fn extra_outs_now(&self) -> Vec<(&'static str, u64)> {
        Vec::new()
    }
}

impl RasterCore {
    /// The core for `cfg` (the blocks take their preset constants from it).
    pub fn new(cfg: &Config) -> Self {
        RasterCore {
            clock: Default::default(),
            flush: Default::default(),
            cmd_valid: Default::default(),
            cmd_ready: Default::default(),
            cmd: Default::default(),
            out_valid: Default::default(),
            out_ready: Default::default(),
            out: Default::default(),
            setup: Setup::new(cfg),
            tile_parser: TileParser::new(cfg),
            subtile_coverage: SubtileCoverage::new(cfg),
            sample_raster: SampleRaster::new(cfg),
            point_raster: PointRaster::new(cfg),
            quad_packer: QuadPacker::new(cfg),
            merge: Default::default(),
            kinds: Default::default(),
            depth: Constant::new(KIND_FIFO_DEPTH.to_bits()),
            room: Default::default(),
            accept: Default::default(),
            head_point: Default::default(),
            have_head: Default::default(),
            merge_valid: Default::default(),
            merge_last: Default::default(),
            pop: Default::default(),
        }
    }
}

impl Logic for RasterCore {
    #[hdl_gen]
    fn update(&mut self) {
        clock!(
            self,
            clock,
            kinds,
            setup,
            tile_parser,
            subtile_coverage,
            sample_raster,
            point_raster,
            quad_packer
        );
        self.setup.flush.next = self.flush.val();
        self.tile_parser.flush.next = self.flush.val();
        self.subtile_coverage.flush.next = self.flush.val();
        self.sample_raster.flush.next = self.flush.val();
        self.point_raster.flush.next = self.flush.val();
        self.quad_packer.flush.next = self.flush.val();
        // Merge: the oldest command's kind selects the path feeding the quad packer.
        self.have_head.next = self.kinds.count.val().any();
        self.head_point.next = self.kinds.head_point.val();
        BeatOut::join(&mut self.sample_raster.out, &mut self.merge.a);
        BeatOut::join(&mut self.point_raster.out, &mut self.merge.b);
        BeatOut::join(&mut self.merge.y, &mut self.quad_packer.inp);
        self.merge.sel.next = self.have_head.val() & self.head_point.val();
        self.merge_valid.next = false;
        self.merge_last.next = self.sample_raster.out.last.val();
        self.quad_packer.out_ready.next = self.out_ready.val();
        if self.have_head.val() {
            if self.head_point.val() {
                self.merge_valid.next = self.point_raster.out_valid.val();
                self.merge_last.next = self.point_raster.out.last.val();
            } else {
                self.merge_valid.next = self.sample_raster.out_valid.val();
            }
        }
        self.quad_packer.in_valid.next = self.merge_valid.val();
        self.sample_raster.out_ready.next =
            self.have_head.val() & !self.head_point.val() & self.quad_packer.in_ready.val();
        self.point_raster.out_ready.next =
            self.have_head.val() & self.head_point.val() & self.quad_packer.in_ready.val();
        self.pop.next = self.merge_valid.val() & self.quad_packer.in_ready.val() & self.merge_last.val();
        // Triangle path, block to block.
        self.sample_raster.in_valid.next = self.subtile_coverage.out_valid.val();
        self.subtile_coverage.out_ready.next = self.sample_raster.in_ready.val();
        JobOut::join(&mut self.subtile_coverage.out, &mut self.sample_raster.inp);
        self.subtile_coverage.in_valid.next = self.tile_parser.out_valid.val();
        self.tile_parser.out_ready.next = self.subtile_coverage.in_ready.val();
        CandOut::join(&mut self.tile_parser.out, &mut self.subtile_coverage.inp);
        self.tile_parser.in_valid.next = self.setup.out_valid.val();
        self.setup.out_ready.next = self.tile_parser.in_ready.val();
        EdgesOut::join(&mut self.setup.out, &mut self.tile_parser.inp);
        // Dispatch: both paths ready and room in the kind FIFO (independent of cmd.kind); both
        // see the whole command and read the fields they need.
        self.room.next = self.kinds.count.val() != self.depth.val();
        self.cmd_ready.next = self.room.val() & self.setup.in_ready.val() & self.point_raster.in_ready.val();
        self.accept.next =
            self.cmd_valid.val() & self.room.val() & self.setup.in_ready.val() & self.point_raster.in_ready.val();
        self.setup.in_valid.next = self.accept.val() & !self.cmd.kind.val();
        self.point_raster.in_valid.next = self.accept.val() & self.cmd.kind.val();
        CmdIn::link(&mut self.cmd, &mut self.setup.inp);
        CmdIn::link(&mut self.cmd, &mut self.point_raster.inp);
        // Kind FIFO (shift_fifo!): pop on the merge's last beat, push on accept (both may happen
        // at once).
        self.kinds.flush.next = self.flush.val();
        self.kinds.push.next = self.accept.val();
        self.kinds.push_point.next = self.cmd.kind.val();
        self.kinds.pop.next = self.pop.val();
        // Outputs: the quad packer's registers.
        self.out_valid.next = self.quad_packer.out_valid.val();
        PackedBeatOut::link(&mut self.out, &mut self.quad_packer.out);
    }
}

/// Verilog of the core for `cfg`, top module `name`, constants given a range (see `emit`).
pub fn verilog(cfg: &Config, name: &str) -> String {
    let mut b = RasterCore::new(cfg);
    b.connect_all();
    crate::emit::fix_verilog(&crate::emit::generate_verilog_named(&b, name))
}
