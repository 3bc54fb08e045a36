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
//! command stream `cmd_valid`/`cmd_ready` with `cmd_kind` (0 triangle, 1 point), `cmd_prim`,
//! `cmd_tile_x`, `cmd_tile_y`, `cmd_v{0,1,2}{x,y}` (1/256 px), `cmd_size`, `cmd_aa`; quad beat
//! stream `out_valid`/`out_ready` with `out_prim`, `out_lane_valid`, per lane l `out_qx_l`,
//! `out_qy_l`, `out_mask_l` (4·S bits), `out_block_l` (storage block), and `out_last`.
//!
//! **Handshake.** `cmd_ready` is high when the kind FIFO has room and *both* setup and
//! point_raster can accept (so it never depends combinationally on `cmd_kind`); it depends
//! combinationally on `out_ready` through the blocks' ready chain. Outputs are the quad
//! packer's registers.
//!
//! **Order and timing.** Quads leave in command order, each command ending with exactly one
//! `last` beat; inside a command, the golden order. Timing contract:
//! [`tilerast_golden::raster_core::RasterCoreCycle`] (the blocks' contracts composed).
//!
//! **Instance names** are the stage names of [`tilerast_golden::stages::RASTER_CORE_STAGES`],
//! so each block's Verilog module is `tilerast_<preset>__<stage>`.

use crate::point_raster::PointRaster;
use crate::quad_packer::QuadPacker;
use crate::sample_raster::SampleRaster;
use crate::setup::Setup;
use crate::subtile_coverage::SubtileCoverage;
use crate::tile_parser::TileParser;
use rust_hdl::prelude::*;
use tilerast_golden::Config;

/// Commands in flight at once: the cycle model's [`tilerast_golden::raster_core::KIND_FIFO_DEPTH`].
const KIND_FIFO_DEPTH: u64 = tilerast_golden::raster_core::KIND_FIFO_DEPTH as u64;

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
    /// Command field `kind`.
    pub cmd_kind: Signal<In, Bit>,
    /// Command field `prim`.
    pub cmd_prim: Signal<In, Bits<24>>,
    /// Command field `tile_x`.
    pub cmd_tile_x: Signal<In, Bits<8>>,
    /// Command field `tile_y`.
    pub cmd_tile_y: Signal<In, Bits<8>>,
    /// Command field `v0x`.
    pub cmd_v0x: Signal<In, Signed<24>>,
    /// Command field `v0y`.
    pub cmd_v0y: Signal<In, Signed<24>>,
    /// Command field `v1x`.
    pub cmd_v1x: Signal<In, Signed<24>>,
    /// Command field `v1y`.
    pub cmd_v1y: Signal<In, Signed<24>>,
    /// Command field `v2x`.
    pub cmd_v2x: Signal<In, Signed<24>>,
    /// Command field `v2y`.
    pub cmd_v2y: Signal<In, Signed<24>>,
    /// Command field `size`.
    pub cmd_size: Signal<In, Bits<24>>,
    /// Command field `aa`.
    pub cmd_aa: Signal<In, Bit>,
    /// Quad beat stream valid.
    pub out_valid: Signal<Out, Bit>,
    /// Quad beat stream ready.
    pub out_ready: Signal<In, Bit>,
    /// Beat field `prim`.
    pub out_prim: Signal<Out, Bits<24>>,
    /// Beat field `lane_valid`.
    pub out_lane_valid: Signal<Out, Bits<4>>,
    /// Beat field `qx_0`.
    pub out_qx_0: Signal<Out, Bits<12>>,
    /// Beat field `qx_1`.
    pub out_qx_1: Signal<Out, Bits<12>>,
    /// Beat field `qx_2`.
    pub out_qx_2: Signal<Out, Bits<12>>,
    /// Beat field `qx_3`.
    pub out_qx_3: Signal<Out, Bits<12>>,
    /// Beat field `qy_0`.
    pub out_qy_0: Signal<Out, Bits<12>>,
    /// Beat field `qy_1`.
    pub out_qy_1: Signal<Out, Bits<12>>,
    /// Beat field `qy_2`.
    pub out_qy_2: Signal<Out, Bits<12>>,
    /// Beat field `qy_3`.
    pub out_qy_3: Signal<Out, Bits<12>>,
    /// Beat field `mask_0`.
    pub out_mask_0: Signal<Out, Bits<64>>,
    /// Beat field `mask_1`.
    pub out_mask_1: Signal<Out, Bits<64>>,
    /// Beat field `mask_2`.
    pub out_mask_2: Signal<Out, Bits<64>>,
    /// Beat field `mask_3`.
    pub out_mask_3: Signal<Out, Bits<64>>,
    /// Beat field `block_0`.
    pub out_block_0: Signal<Out, Bits<8>>,
    /// Beat field `block_1`.
    pub out_block_1: Signal<Out, Bits<8>>,
    /// Beat field `block_2`.
    pub out_block_2: Signal<Out, Bits<8>>,
    /// Beat field `block_3`.
    pub out_block_3: Signal<Out, Bits<8>>,
    /// Beat field `last`.
    pub out_last: Signal<Out, Bit>,
    setup: Setup,
    tile_parser: TileParser,
    subtile_coverage: SubtileCoverage,
    sample_raster: SampleRaster,
    point_raster: PointRaster,
    quad_packer: QuadPacker,
    /// Kinds of the commands in flight, oldest in bit 0 (1 = point).
    kinds: DFF<Bits<8>>,
    /// Number of commands in flight.
    count: DFF<Bits<4>>,
    depth: Constant<Bits<4>>,
    room: Signal<Local, Bit>,
    accept: Signal<Local, Bit>,
    head_point: Signal<Local, Bit>,
    have_head: Signal<Local, Bit>,
    merge_valid: Signal<Local, Bit>,
    merge_last: Signal<Local, Bit>,
    pop: Signal<Local, Bit>,
    one: Constant<Bits<4>>,
    one8: Constant<Bits<8>>,
}

impl RasterCore {
    /// The core for `cfg` (the blocks take their preset constants from it).
    pub fn new(cfg: &Config) -> Self {
        RasterCore {
            clock: Default::default(),
            flush: Default::default(),
            cmd_valid: Default::default(),
            cmd_ready: Default::default(),
            cmd_kind: Default::default(),
            cmd_prim: Default::default(),
            cmd_tile_x: Default::default(),
            cmd_tile_y: Default::default(),
            cmd_v0x: Default::default(),
            cmd_v0y: Default::default(),
            cmd_v1x: Default::default(),
            cmd_v1y: Default::default(),
            cmd_v2x: Default::default(),
            cmd_v2y: Default::default(),
            cmd_size: Default::default(),
            cmd_aa: Default::default(),
            out_valid: Default::default(),
            out_ready: Default::default(),
            out_prim: Default::default(),
            out_lane_valid: Default::default(),
            out_qx_0: Default::default(),
            out_qx_1: Default::default(),
            out_qx_2: Default::default(),
            out_qx_3: Default::default(),
            out_qy_0: Default::default(),
            out_qy_1: Default::default(),
            out_qy_2: Default::default(),
            out_qy_3: Default::default(),
            out_mask_0: Default::default(),
            out_mask_1: Default::default(),
            out_mask_2: Default::default(),
            out_mask_3: Default::default(),
            out_block_0: Default::default(),
            out_block_1: Default::default(),
            out_block_2: Default::default(),
            out_block_3: Default::default(),
            out_last: Default::default(),
            setup: Setup::new(cfg),
            tile_parser: TileParser::new(cfg),
            subtile_coverage: SubtileCoverage::new(cfg),
            sample_raster: SampleRaster::new(cfg),
            point_raster: PointRaster::new(cfg),
            quad_packer: QuadPacker::new(cfg),
            kinds: Default::default(),
            count: Default::default(),
            depth: Constant::new(KIND_FIFO_DEPTH.to_bits()),
            room: Default::default(),
            accept: Default::default(),
            head_point: Default::default(),
            have_head: Default::default(),
            merge_valid: Default::default(),
            merge_last: Default::default(),
            pop: Default::default(),
            one: Constant::new(1u64.to_bits()),
            one8: Constant::new(1u64.to_bits()),
        }
    }
}

impl Logic for RasterCore {
    #[hdl_gen]
    fn update(&mut self) {
        dff_setup!(self, clock, kinds, count);
        clock!(
            self,
            clock,
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
        self.have_head.next = self.count.q.val().any();
        self.head_point.next = self.kinds.q.val().get_bit(0);
        self.merge_valid.next = false;
        self.merge_last.next = self.sample_raster.out_last.val();
        self.quad_packer.out_ready.next = self.out_ready.val();
        self.quad_packer.in_prim.next = self.sample_raster.out_prim.val();
        self.quad_packer.in_lane_valid.next = self.sample_raster.out_lane_valid.val();
        self.quad_packer.in_qx_0.next = self.sample_raster.out_qx_0.val();
        self.quad_packer.in_qx_1.next = self.sample_raster.out_qx_1.val();
        self.quad_packer.in_qx_2.next = self.sample_raster.out_qx_2.val();
        self.quad_packer.in_qx_3.next = self.sample_raster.out_qx_3.val();
        self.quad_packer.in_qy_0.next = self.sample_raster.out_qy_0.val();
        self.quad_packer.in_qy_1.next = self.sample_raster.out_qy_1.val();
        self.quad_packer.in_qy_2.next = self.sample_raster.out_qy_2.val();
        self.quad_packer.in_qy_3.next = self.sample_raster.out_qy_3.val();
        self.quad_packer.in_mask_0.next = self.sample_raster.out_mask_0.val();
        self.quad_packer.in_mask_1.next = self.sample_raster.out_mask_1.val();
        self.quad_packer.in_mask_2.next = self.sample_raster.out_mask_2.val();
        self.quad_packer.in_mask_3.next = self.sample_raster.out_mask_3.val();
        self.quad_packer.in_last.next = self.sample_raster.out_last.val();
        if self.have_head.val() {
            if self.head_point.val() {
                self.merge_valid.next = self.point_raster.out_valid.val();
                self.merge_last.next = self.point_raster.out_last.val();
                self.quad_packer.in_prim.next = self.point_raster.out_prim.val();
                self.quad_packer.in_lane_valid.next = self.point_raster.out_lane_valid.val();
                self.quad_packer.in_qx_0.next = self.point_raster.out_qx_0.val();
                self.quad_packer.in_qx_1.next = self.point_raster.out_qx_1.val();
                self.quad_packer.in_qx_2.next = self.point_raster.out_qx_2.val();
                self.quad_packer.in_qx_3.next = self.point_raster.out_qx_3.val();
                self.quad_packer.in_qy_0.next = self.point_raster.out_qy_0.val();
                self.quad_packer.in_qy_1.next = self.point_raster.out_qy_1.val();
                self.quad_packer.in_qy_2.next = self.point_raster.out_qy_2.val();
                self.quad_packer.in_qy_3.next = self.point_raster.out_qy_3.val();
                self.quad_packer.in_mask_0.next = self.point_raster.out_mask_0.val();
                self.quad_packer.in_mask_1.next = self.point_raster.out_mask_1.val();
                self.quad_packer.in_mask_2.next = self.point_raster.out_mask_2.val();
                self.quad_packer.in_mask_3.next = self.point_raster.out_mask_3.val();
                self.quad_packer.in_last.next = self.point_raster.out_last.val();
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
        self.sample_raster.in_prim.next = self.subtile_coverage.out_prim.val();
        self.sample_raster.in_tile_x.next = self.subtile_coverage.out_tile_x.val();
        self.sample_raster.in_tile_y.next = self.subtile_coverage.out_tile_y.val();
        self.sample_raster.in_col.next = self.subtile_coverage.out_col.val();
        self.sample_raster.in_row.next = self.subtile_coverage.out_row.val();
        self.sample_raster.in_e0.next = self.subtile_coverage.out_e0.val();
        self.sample_raster.in_e1.next = self.subtile_coverage.out_e1.val();
        self.sample_raster.in_e2.next = self.subtile_coverage.out_e2.val();
        self.sample_raster.in_a0.next = self.subtile_coverage.out_a0.val();
        self.sample_raster.in_a1.next = self.subtile_coverage.out_a1.val();
        self.sample_raster.in_a2.next = self.subtile_coverage.out_a2.val();
        self.sample_raster.in_b0.next = self.subtile_coverage.out_b0.val();
        self.sample_raster.in_b1.next = self.subtile_coverage.out_b1.val();
        self.sample_raster.in_b2.next = self.subtile_coverage.out_b2.val();
        self.sample_raster.in_vis_w.next = self.subtile_coverage.out_vis_w.val();
        self.sample_raster.in_vis_h.next = self.subtile_coverage.out_vis_h.val();
        self.sample_raster.in_last.next = self.subtile_coverage.out_last.val();
        self.sample_raster.in_none.next = self.subtile_coverage.out_none.val();
        self.sample_raster.in_trivial.next = self.subtile_coverage.out_trivial.val();
        self.subtile_coverage.in_valid.next = self.tile_parser.out_valid.val();
        self.tile_parser.out_ready.next = self.subtile_coverage.in_ready.val();
        self.subtile_coverage.in_prim.next = self.tile_parser.out_prim.val();
        self.subtile_coverage.in_tile_x.next = self.tile_parser.out_tile_x.val();
        self.subtile_coverage.in_tile_y.next = self.tile_parser.out_tile_y.val();
        self.subtile_coverage.in_col.next = self.tile_parser.out_col.val();
        self.subtile_coverage.in_row.next = self.tile_parser.out_row.val();
        self.subtile_coverage.in_e0.next = self.tile_parser.out_e0.val();
        self.subtile_coverage.in_e1.next = self.tile_parser.out_e1.val();
        self.subtile_coverage.in_e2.next = self.tile_parser.out_e2.val();
        self.subtile_coverage.in_a0.next = self.tile_parser.out_a0.val();
        self.subtile_coverage.in_a1.next = self.tile_parser.out_a1.val();
        self.subtile_coverage.in_a2.next = self.tile_parser.out_a2.val();
        self.subtile_coverage.in_b0.next = self.tile_parser.out_b0.val();
        self.subtile_coverage.in_b1.next = self.tile_parser.out_b1.val();
        self.subtile_coverage.in_b2.next = self.tile_parser.out_b2.val();
        self.subtile_coverage.in_vis_w.next = self.tile_parser.out_vis_w.val();
        self.subtile_coverage.in_vis_h.next = self.tile_parser.out_vis_h.val();
        self.subtile_coverage.in_last.next = self.tile_parser.out_last.val();
        self.subtile_coverage.in_none.next = self.tile_parser.out_none.val();
        self.tile_parser.in_valid.next = self.setup.out_valid.val();
        self.setup.out_ready.next = self.tile_parser.in_ready.val();
        self.tile_parser.in_prim.next = self.setup.out_prim.val();
        self.tile_parser.in_tile_x.next = self.setup.out_tile_x.val();
        self.tile_parser.in_tile_y.next = self.setup.out_tile_y.val();
        self.tile_parser.in_empty.next = self.setup.out_empty.val();
        self.tile_parser.in_a0.next = self.setup.out_a0.val();
        self.tile_parser.in_a1.next = self.setup.out_a1.val();
        self.tile_parser.in_a2.next = self.setup.out_a2.val();
        self.tile_parser.in_b0.next = self.setup.out_b0.val();
        self.tile_parser.in_b1.next = self.setup.out_b1.val();
        self.tile_parser.in_b2.next = self.setup.out_b2.val();
        self.tile_parser.in_e0.next = self.setup.out_e0.val();
        self.tile_parser.in_e1.next = self.setup.out_e1.val();
        self.tile_parser.in_e2.next = self.setup.out_e2.val();
        self.tile_parser.in_bx0.next = self.setup.out_bx0.val();
        self.tile_parser.in_by0.next = self.setup.out_by0.val();
        self.tile_parser.in_bx1.next = self.setup.out_bx1.val();
        self.tile_parser.in_by1.next = self.setup.out_by1.val();
        self.tile_parser.in_vis_w.next = self.setup.out_vis_w.val();
        self.tile_parser.in_vis_h.next = self.setup.out_vis_h.val();
        // Dispatch: both paths ready and room in the kind FIFO (independent of cmd_kind).
        self.room.next = self.count.q.val() != self.depth.val();
        self.cmd_ready.next = self.room.val() & self.setup.in_ready.val() & self.point_raster.in_ready.val();
        self.accept.next =
            self.cmd_valid.val() & self.room.val() & self.setup.in_ready.val() & self.point_raster.in_ready.val();
        self.setup.in_valid.next = self.accept.val() & !self.cmd_kind.val();
        self.point_raster.in_valid.next = self.accept.val() & self.cmd_kind.val();
        self.setup.in_prim.next = self.cmd_prim.val();
        self.setup.in_tile_x.next = self.cmd_tile_x.val();
        self.setup.in_tile_y.next = self.cmd_tile_y.val();
        self.setup.in_v0x.next = self.cmd_v0x.val();
        self.setup.in_v0y.next = self.cmd_v0y.val();
        self.setup.in_v1x.next = self.cmd_v1x.val();
        self.setup.in_v1y.next = self.cmd_v1y.val();
        self.setup.in_v2x.next = self.cmd_v2x.val();
        self.setup.in_v2y.next = self.cmd_v2y.val();
        self.point_raster.in_prim.next = self.cmd_prim.val();
        self.point_raster.in_tile_x.next = self.cmd_tile_x.val();
        self.point_raster.in_tile_y.next = self.cmd_tile_y.val();
        self.point_raster.in_v0x.next = self.cmd_v0x.val();
        self.point_raster.in_v0y.next = self.cmd_v0y.val();
        self.point_raster.in_size.next = self.cmd_size.val();
        self.point_raster.in_aa.next = self.cmd_aa.val();
        // Kind FIFO: pop on the merge's last beat, push on accept (both may happen at once).
        if self.pop.val() {
            self.kinds.d.next = self.kinds.q.val() >> self.one8.val();
            self.count.d.next = self.count.q.val() - self.one.val();
            if self.accept.val() {
                self.kinds.d.next = (self.kinds.q.val() >> self.one8.val())
                    | (bit_cast::<8, 1>(self.cmd_kind.val().into()) << (self.count.q.val() - self.one.val()));
                self.count.d.next = self.count.q.val();
            }
        } else if self.accept.val() {
            self.kinds.d.next =
                self.kinds.q.val() | (bit_cast::<8, 1>(self.cmd_kind.val().into()) << self.count.q.val());
            self.count.d.next = self.count.q.val() + self.one.val();
        }
        if self.flush.val() {
            self.kinds.d.next = 0.into();
            self.count.d.next = 0.into();
        }
        // Outputs: the quad packer's registers.
        self.out_valid.next = self.quad_packer.out_valid.val();
        self.out_prim.next = self.quad_packer.out_prim.val();
        self.out_lane_valid.next = self.quad_packer.out_lane_valid.val();
        self.out_qx_0.next = self.quad_packer.out_qx_0.val();
        self.out_qx_1.next = self.quad_packer.out_qx_1.val();
        self.out_qx_2.next = self.quad_packer.out_qx_2.val();
        self.out_qx_3.next = self.quad_packer.out_qx_3.val();
        self.out_qy_0.next = self.quad_packer.out_qy_0.val();
        self.out_qy_1.next = self.quad_packer.out_qy_1.val();
        self.out_qy_2.next = self.quad_packer.out_qy_2.val();
        self.out_qy_3.next = self.quad_packer.out_qy_3.val();
        self.out_mask_0.next = self.quad_packer.out_mask_0.val();
        self.out_mask_1.next = self.quad_packer.out_mask_1.val();
        self.out_mask_2.next = self.quad_packer.out_mask_2.val();
        self.out_mask_3.next = self.quad_packer.out_mask_3.val();
        self.out_block_0.next = self.quad_packer.out_block_0.val();
        self.out_block_1.next = self.quad_packer.out_block_1.val();
        self.out_block_2.next = self.quad_packer.out_block_2.val();
        self.out_block_3.next = self.quad_packer.out_block_3.val();
        self.out_last.next = self.quad_packer.out_last.val();
    }
}

/// Verilog of the core for `cfg`, top module `name`, constants given a range (see `emit`).
pub fn verilog(cfg: &Config, name: &str) -> String {
    let mut b = RasterCore::new(cfg);
    b.connect_all();
    crate::emit::fix_verilog(&crate::emit::generate_verilog_named(&b, name))
}
