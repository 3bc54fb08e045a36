//! # pixel_back_end (seeds 000 and 004: the pixel side after shading, behind one memory port)
//!
//! The five pixel-side blocks wired in pipeline order, one synchronous `flush` to all, one
//! memory port shared by the read side (`dst_fetch`) and the write side (`output_merger`).
//! Cycle model: `tilerast_golden::pixel_back_end::PixelBackEndCycle` (the blocks' contracts
//! composed with this arbiter).
//!
//! ```text
//!  inp ─► pixel_processor ─PixSlots─► colour_buffer ─PixSlots─► dst_fetch ─BlendFrag─► blender
//!  (PixSamples)                        (storage blocks)           │ rd ▲ rsp               │ BlendBeat
//!                                                                 ▼    └─ mem_resp ◄─┐   ▼
//!                                              arbiter: writes first ────────────────┴─ output_merger (wr)
//!                                                                 └─► mem_req
//! ```
//!
//! **Ports.** `clock`, `flush` (synchronous reset of every block); in: `in_valid`/`in_ready`
//! with `inp` ([`crate::streams::PixSamplesIn`]); the memory port: `mem_req_valid`/
//! `mem_req_ready` with `mem_req` ([`crate::streams::MemReqOut`]) and `mem_resp_valid`/
//! `mem_resp_ready` with `mem_resp` ([`crate::streams::MemRespIn`]; only reads are answered,
//! in request order); `background` (Bits<32>, the frame's background, to dst_fetch: with
//! `framebuffer: clear` every blended slot's `dst`, and the port carries writes only).
//!
//! **Arbiter** (combinational, here): `mem_req_valid = wr_valid | rd_valid`; `mem_req =
//! wr_valid ? output_merger's write : dst_fetch's read` (writes first); `wr_ready =
//! mem_req_ready`; `rd_ready = mem_req_ready & !wr_valid`; `mem_resp` goes to `dst_fetch`.
//! `mem_req` is a multiplexer of two registers selected by a register; the blocks' readies are
//! their own combinational chains (`mem_req_ready` → output merger → blender → dst_fetch), which
//! end at the colour buffer: its `in_ready` is a register, and `in_ready` is the pixel
//! processor's on it.
//!
//! Blender options: the pipeline's for the config ([`tilerast_golden::blender::pipeline_blend`]).

use crate::blender::Blender;
use crate::colour_buffer::ColourBuffer;
use crate::dst_fetch::DstFetch;
use crate::output_merger::OutputMerger;
use crate::pixel_processor::PixelProcessor;
use crate::streams::{BlendBeatOut, BlendFragOut, MemReqMux, MemReqOut, MemRespIn, PixSamplesIn, PixSlotsOut};
use rust_hdl::prelude::*;
use tilerast_golden::blender::pipeline_blend;
use tilerast_golden::config::Config;

tilerast_golden::pixel_back_end_streams! { crate::streams::stream_block;
    /// The pixel back end. Build with [`PixelBackEnd::new`].
    pub struct PixelBackEnd {
        pixel_processor: PixelProcessor,
        colour_buffer: ColourBuffer,
        dst_fetch: DstFetch,
        blender: Blender,
        output_merger: OutputMerger,
        /// The arbiter's payload multiplexer (`sel` = a write is offered).
        arb: MemReqMux,
    }
}

/// Whether every block builds for `cfg` (the blender with [`pipeline_blend`]'s options).
pub fn supported(cfg: &Config) -> Result<(), String> {
    crate::pixel_processor::supported(cfg)?;
    crate::colour_buffer::supported(cfg)?;
    crate::dst_fetch::supported(cfg)?;
    crate::blender::supported(cfg, &pipeline_blend(cfg))
}

impl PixelBackEnd {
    /// The back end for `cfg`, or the one line naming what a block does not support.
    pub fn try_new(cfg: &Config) -> Result<PixelBackEnd, String> {
        supported(cfg)?;
        Ok(PixelBackEnd {
            clock: Default::default(),
            flush: Default::default(),
            in_valid: Default::default(),
            in_ready: Default::default(),
            idle: Default::default(),
            inp: Default::default(),
            mem_req_valid: Default::default(),
            mem_req_ready: Default::default(),
            mem_req: Default::default(),
            mem_resp_valid: Default::default(),
            mem_resp_ready: Default::default(),
            mem_resp: Default::default(),
            background: Default::default(),
            pixel_processor: PixelProcessor::try_new(cfg)?,
            colour_buffer: ColourBuffer::try_new(cfg)?,
            dst_fetch: DstFetch::try_new(cfg)?,
            blender: Blender::try_new(cfg, &pipeline_blend(cfg))?,
            output_merger: OutputMerger::new(cfg),
            arb: Default::default(),
        })
    }

    /// The back end for `cfg`.
    ///
    /// # Panics
    /// With the reason if it is not supported ([`supported`]).
    pub fn new(cfg: &Config) -> PixelBackEnd {
        Self::try_new(cfg).unwrap_or_else(|e| panic!("{e}"))
    }
}

impl Logic for PixelBackEnd {
    #[hdl_gen]
    fn update(&mut self) {
        self.pixel_processor.clock.next = self.clock.val();
        self.colour_buffer.clock.next = self.clock.val();
        self.dst_fetch.clock.next = self.clock.val();
        self.blender.clock.next = self.clock.val();
        self.output_merger.clock.next = self.clock.val();
        self.pixel_processor.flush.next = self.flush.val();
        self.colour_buffer.flush.next = self.flush.val();
        self.dst_fetch.flush.next = self.flush.val();
        self.blender.flush.next = self.flush.val();
        self.output_merger.flush.next = self.flush.val();

        // Input → pixel processor.
        self.pixel_processor.in_valid.next = self.in_valid.val();
        self.in_ready.next = self.pixel_processor.in_ready.val();
        PixSamplesIn::link(&mut self.inp, &mut self.pixel_processor.inp);
        // Pixel processor → colour buffer → dst_fetch.
        self.colour_buffer.in_valid.next = self.pixel_processor.out_valid.val();
        self.pixel_processor.out_ready.next = self.colour_buffer.in_ready.val();
        PixSlotsOut::join(&mut self.pixel_processor.out, &mut self.colour_buffer.inp);
        self.dst_fetch.in_valid.next = self.colour_buffer.out_valid.val();
        self.colour_buffer.out_ready.next = self.dst_fetch.in_ready.val();
        PixSlotsOut::join(&mut self.colour_buffer.out, &mut self.dst_fetch.inp);
        // dst_fetch → blender.
        self.blender.in_valid.next = self.dst_fetch.out_valid.val();
        self.dst_fetch.out_ready.next = self.blender.in_ready.val();
        BlendFragOut::join(&mut self.dst_fetch.out, &mut self.blender.inp);
        // Blender → output merger.
        self.output_merger.in_valid.next = self.blender.out_valid.val();
        self.blender.out_ready.next = self.output_merger.in_ready.val();
        BlendBeatOut::join(&mut self.blender.out, &mut self.output_merger.inp);

        // The memory port: writes first, responses to dst_fetch.
        MemReqOut::join(&mut self.dst_fetch.rd, &mut self.arb.a);
        MemReqOut::join(&mut self.output_merger.out, &mut self.arb.b);
        self.arb.sel.next = self.output_merger.out_valid.val();
        MemReqOut::link(&mut self.mem_req, &mut self.arb.y);
        self.mem_req_valid.next = self.output_merger.out_valid.val() | self.dst_fetch.rd_valid.val();
        self.output_merger.out_ready.next = self.mem_req_ready.val();
        self.dst_fetch.rd_ready.next = self.mem_req_ready.val() & !self.output_merger.out_valid.val();
        self.dst_fetch.rsp_valid.next = self.mem_resp_valid.val();
        self.mem_resp_ready.next = self.dst_fetch.rsp_ready.val();
        MemRespIn::link(&mut self.mem_resp, &mut self.dst_fetch.rsp);
        self.dst_fetch.background.next = self.background.val();
        self.idle.next = self.pixel_processor.idle.val()
            & self.colour_buffer.idle.val()
            & self.dst_fetch.idle.val()
            & self.blender.idle.val()
            & self.output_merger.idle.val();
    }
}

/// The back end's Verilog with top module `name` (the blocks as its submodules).
pub fn verilog(cfg: &Config, name: &str) -> String {
    crate::emit::block_verilog(PixelBackEnd::new(cfg), name)
}

/// The back end's row of [`crate::BLOCK_FILES`].
pub const FILE: crate::BlockFile = crate::BlockFile {
    role:
        "seeds 000 and 004, pixel processor, colour buffer, dst_fetch, blender and output merger behind one memory port",
    contract: "tilerast_golden::pixel_back_end::PixelBackEndCycle",
    sig: <tilerast_golden::pixel_back_end::PixelBackEndPorts as tilerast_golden::cycle::BlockSignature>::SIGNATURE,
    params: |cfg| {
        supported(cfg)?;
        let (s, c, w) = (cfg.msaa, cfg.colours_per_pixel, cfg.viewport[0]);
        let (p, l, d) = (cfg.blend_pool, cfg.blend_lanes, cfg.blend_latency);
        Ok(format!(
            "S = {s}, C = {c}, W = {w}, blender P = {p}, L = {l}, D = {d} with {:?}, framebuffer: {}; \
             writes before reads on the memory port",
            pipeline_blend(cfg),
            cfg.framebuffer.name()
        ))
    },
    verilog,
};
