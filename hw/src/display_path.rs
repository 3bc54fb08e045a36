//! # display_path: the board top's memory and display half, as one block (issue 35)
//!
//! **Role.** Everything of the ULX3S board top right of the GPU port's crossing, wired from the
//! board's blocks: [`MemArbiter`] (client 0 the scan-out, client 1 the GPU port),
//! [`SdramController`] and its pins, [`ScanOut`], [`LineBuffer`] into the pixel clock,
//! [`VideoOut`], and the two-flop synchroniser of `vblank` into the memory clock whose rising
//! edge starts the scan-out. Cycle model: `tilerast_golden::display_path::DisplayPathCycle`,
//! whose rustdoc is the timing contract; the blocks keep their own.
//!
//! **Ports** (the golden signature `DisplayPath`): `clock` (memory), `pixel_clock` (its
//! rising edges coincide with memory edges, as from one PLL), `flush` (each part at its own
//! clock's next edge); `in_valid`/`in_ready` + `inp` (the GPU port's requests, `MemReq`),
//! `out_valid`/`out_ready` + `out` (its answers); `tmds_valid`/`tmds_ready` + `tmds` (each pixel
//! clock's three characters); `base` (the framebuffer the next walk shows); `dq_in` and the
//! SDRAM pins (`cs_n`, `ras_n`, `cas_n`, `we_n`, `ba`, `sdram_addr`, `dqm`, `dq_out`, `dq_oe`;
//! registers of the controller); `started` (a walk started at the last edge), `underrun`,
//! `error` (sticky); `frame_crc` and `crc_toggle` (the video output's display CRC, pixel
//! clock).
//!
//! **Latency and throughput.** The GPU port's: the arbiter's (its request goes to the
//! controller in the cycle it is offered when the scan-out offers none; answers in order, the
//! controller's read latency after). The picture's: one pixel per pixel clock, the scan-out
//! keeping the line buffer ahead by its credits.
//!
//! ```text
//!   clock                                                                    │ pixel_clock
//!   inp (GPU) ─► arbiter.gpu_req     arbiter.out ─► sdram ◄─► dq_in, pins     │
//!   out ◄──────  arbiter.gpu_rsp     arbiter.inp ◄─┘                          │
//!   scan_out.rd ─► arbiter.scan_rd, arbiter.scan_rsp ─► scan_out.inp          │
//!   scan_out.out ─► line_buffer (write side) ═════════════════ (read side) ══╪═► video_out ─► tmds
//!   base ─► scan_out (start ◄─ sync2 ∧ ¬seen) ◄─ sync1 ◄─ sync2 ◄═ vblank ═════╪══════┘
//! ```

use crate::emit;
use crate::line_buffer::LineBuffer;
use crate::mem_arbiter::MemArbiter;
use crate::scan_out::ScanOut;
use crate::sdram_controller::SdramController;
use crate::streams::{DviWordOut, MemReqIn, MemRespOut, RtlValue};
use crate::video_out::VideoOut;
use rust_hdl::prelude::*;
use tilerast_golden::board::{Board, FrameBoard};
use tilerast_golden::cycle::Ports;
use tilerast_golden::scan_out::ScanOutParams;

/// The stage name (module `tilerast_display_path_<board>`).
pub const STAGE: &str = tilerast_golden::display_path::STAGE;

/// The display path (see the module header).
#[derive(LogicBlock)]
pub struct DisplayPath {
    pub clock: Signal<In, Clock>,
    pub pixel_clock: Signal<In, Clock>,
    pub flush: Signal<In, Bit>,
    pub in_valid: Signal<In, Bit>,
    pub in_ready: Signal<Out, Bit>,
    pub inp: MemReqIn,
    pub out_valid: Signal<Out, Bit>,
    pub out_ready: Signal<In, Bit>,
    pub out: MemRespOut,
    pub tmds_valid: Signal<Out, Bit>,
    pub tmds_ready: Signal<In, Bit>,
    pub tmds: DviWordOut,
    pub base: Signal<In, Bits<32>>,
    pub dq_in: Signal<In, Bits<16>>,
    pub cs_n: Signal<Out, Bit>,
    pub ras_n: Signal<Out, Bit>,
    pub cas_n: Signal<Out, Bit>,
    pub we_n: Signal<Out, Bit>,
    pub ba: Signal<Out, Bits<2>>,
    pub sdram_addr: Signal<Out, Bits<13>>,
    pub dqm: Signal<Out, Bits<2>>,
    pub dq_out: Signal<Out, Bits<16>>,
    pub dq_oe: Signal<Out, Bit>,
    pub started: Signal<Out, Bit>,
    pub underrun: Signal<Out, Bit>,
    pub error: Signal<Out, Bit>,
    pub frame_crc: Signal<Out, Bits<32>>,
    pub crc_toggle: Signal<Out, Bit>,
    arbiter: MemArbiter,
    sdram: SdramController,
    scan_out: ScanOut,
    line_buffer: LineBuffer,
    video_out: VideoOut,
    /// The video output's `vblank` through two memory-clock flops, and the second flop's value
    /// one edge ago.
    vblank_sync1: DFF<Bit>,
    vblank_sync2: DFF<Bit>,
    vblank_seen: DFF<Bit>,
    started_reg: DFF<Bit>,
    /// The walk starts at this edge.
    start: Signal<Local, Bit>,
    /// The planted fault of the starvation test (`DisplayPathCycle::plant_gpu_first`): the GPU
    /// port on the arbiter's first client, the scan-out on the second. 0 in every build.
    c_gpu_first: Constant<Bit>,
}

impl DisplayPath {
    /// The display path of frame row `f` with the scan-out `scan`.
    pub fn new(f: &FrameBoard, scan: &ScanOutParams) -> DisplayPath {
        DisplayPath {
            clock: Default::default(),
            pixel_clock: Default::default(),
            flush: Default::default(),
            in_valid: Default::default(),
            in_ready: Default::default(),
            inp: Default::default(),
            out_valid: Default::default(),
            out_ready: Default::default(),
            out: Default::default(),
            tmds_valid: Default::default(),
            tmds_ready: Default::default(),
            tmds: Default::default(),
            base: Default::default(),
            dq_in: Default::default(),
            cs_n: Default::default(),
            ras_n: Default::default(),
            cas_n: Default::default(),
            we_n: Default::default(),
            ba: Default::default(),
            sdram_addr: Default::default(),
            dqm: Default::default(),
            dq_out: Default::default(),
            dq_oe: Default::default(),
            started: Default::default(),
            underrun: Default::default(),
            error: Default::default(),
            frame_crc: Default::default(),
            crc_toggle: Default::default(),
            arbiter: MemArbiter::default(),
            sdram: SdramController::for_frame_board(f),
            scan_out: ScanOut::new(scan),
            line_buffer: LineBuffer::new(false),
            video_out: VideoOut::new(&f.video),
            vblank_sync1: Default::default(),
            vblank_sync2: Default::default(),
            vblank_seen: Default::default(),
            started_reg: Default::default(),
            start: Default::default(),
            c_gpu_first: Constant::new(false),
        }
    }

    /// The display path of `f`'s own row (its preset's viewport on its video mode).
    pub fn for_board(f: &FrameBoard) -> Result<DisplayPath, String> {
        Ok(Self::new(f, &ScanOutParams::for_board(f)?))
    }

    /// The planted fault (`c_gpu_first` = 1; `DisplayPathCycle::plant_gpu_first`).
    pub fn mutant_gpu_first(mut self) -> DisplayPath {
        self.c_gpu_first = Constant::new(true);
        self
    }

    /// Every input port but the clocks from `p` (a lock-step step's inputs).
    pub fn set_data_inputs(&mut self, p: &Ports) {
        self.flush.next = p.bit("flush");
        self.in_valid.next = p.bit("in_valid");
        self.inp.drive_ports("inp", p);
        self.out_ready.next = p.bit("out_ready");
        self.tmds_ready.next = p.bit("tmds_ready");
        self.base.next = RtlValue::from_raw(p.get("base").unwrap_or(0));
        self.dq_in.next = RtlValue::from_raw(p.get("dq_in").unwrap_or(0));
    }

    /// Marks the inputs [`DisplayPath::set_data_inputs`] drives as driven from outside (a test
    /// wrapper's `Logic::connect`).
    pub fn connect_data_inputs(&mut self) {
        self.flush.connect();
        self.in_valid.connect();
        self.inp.addr.connect();
        self.inp.write.connect();
        self.inp.wdata.connect();
        self.inp.be.connect();
        self.out_ready.connect();
        self.tmds_ready.connect();
        self.base.connect();
        self.dq_in.connect();
    }

    /// Every output port's value now: the streams' (`outputs`) and the further ones
    /// (`extra_outs`), in the signature's order.
    pub fn outputs(&self) -> Ports {
        let mut p = Ports::default();
        p.set("in_ready", self.in_ready.val() as u64);
        p.set("out_valid", self.out_valid.val() as u64);
        self.out.put_ports("out", &mut p);
        p.set("tmds_valid", self.tmds_valid.val() as u64);
        self.tmds.put_ports("tmds", &mut p);
        for (port, v) in self.extra_outs() {
            p.set(port, v);
        }
        p
    }

    /// The further outputs (the pins, `started`, `underrun`, `error`, the display CRC), in the
    /// signature's order.
    pub fn extra_outs(&self) -> Vec<(&'static str, u64)> {
        vec![
            ("cs_n", self.cs_n.val() as u64),
            ("ras_n", self.ras_n.val() as u64),
            ("cas_n", self.cas_n.val() as u64),
            ("we_n", self.we_n.val() as u64),
            ("ba", self.ba.val().index() as u64),
            ("sdram_addr", self.sdram_addr.val().index() as u64),
            ("dqm", self.dqm.val().index() as u64),
            ("dq_out", self.dq_out.val().index() as u64),
            ("dq_oe", self.dq_oe.val() as u64),
            ("started", self.started.val() as u64),
            ("underrun", self.underrun.val() as u64),
            ("error", self.error.val() as u64),
            ("frame_crc", self.frame_crc.val().index() as u64),
            ("crc_toggle", self.crc_toggle.val() as u64),
        ]
    }
}

impl Logic for DisplayPath {
    #[hdl_gen]
    fn update(&mut self) {
        dff_setup!(self, clock, vblank_sync1, vblank_sync2, vblank_seen, started_reg);
        clock!(self, clock, arbiter, sdram, scan_out);
        self.line_buffer.write_clock.next = self.clock.val();
        self.line_buffer.read_clock.next = self.pixel_clock.val();
        self.video_out.clock.next = self.pixel_clock.val();
        self.arbiter.flush.next = self.flush.val();
        self.sdram.flush.next = self.flush.val();
        self.scan_out.flush.next = self.flush.val();
        self.line_buffer.flush.next = self.flush.val();
        self.video_out.flush.next = self.flush.val();

        // ---- the arbiter and the SDRAM controller ----
        self.sdram.in_valid.next = self.arbiter.out_valid.val();
        self.sdram.inp.addr.next = self.arbiter.out.addr.val();
        self.sdram.inp.write.next = self.arbiter.out.write.val();
        self.sdram.inp.wdata.next = self.arbiter.out.wdata.val();
        self.sdram.inp.be.next = self.arbiter.out.be.val();
        self.arbiter.out_ready.next = self.sdram.in_ready.val();
        self.arbiter.in_valid.next = self.sdram.out_valid.val();
        self.arbiter.inp.rdata.next = self.sdram.out.rdata.val();
        self.sdram.out_ready.next = self.arbiter.in_ready.val();
        self.sdram.dq_in.next = self.dq_in.val();
        self.cs_n.next = self.sdram.cs_n.val();
        self.ras_n.next = self.sdram.ras_n.val();
        self.cas_n.next = self.sdram.cas_n.val();
        self.we_n.next = self.sdram.we_n.val();
        self.ba.next = self.sdram.ba.val();
        self.sdram_addr.next = self.sdram.sdram_addr.val();
        self.dqm.next = self.sdram.dqm.val();
        self.dq_out.next = self.sdram.dq_out.val();
        self.dq_oe.next = self.sdram.dq_oe.val();
        self.error.next = self.sdram.error.val();

        // ---- the clients: the scan-out first, the GPU port second ----
        self.arbiter.scan_rd_valid.next = self.scan_out.rd_valid.val();
        self.arbiter.scan_rd.addr.next = self.scan_out.rd.addr.val();
        self.arbiter.scan_rd.write.next = self.scan_out.rd.write.val();
        self.arbiter.scan_rd.wdata.next = self.scan_out.rd.wdata.val();
        self.arbiter.scan_rd.be.next = self.scan_out.rd.be.val();
        self.scan_out.rd_ready.next = self.arbiter.scan_rd_ready.val();
        self.scan_out.in_valid.next = self.arbiter.scan_rsp_valid.val();
        self.scan_out.inp.rdata.next = self.arbiter.scan_rsp.rdata.val();
        self.arbiter.scan_rsp_ready.next = self.scan_out.in_ready.val();
        self.arbiter.gpu_req_valid.next = self.in_valid.val();
        self.arbiter.gpu_req.addr.next = self.inp.addr.val();
        self.arbiter.gpu_req.write.next = self.inp.write.val();
        self.arbiter.gpu_req.wdata.next = self.inp.wdata.val();
        self.arbiter.gpu_req.be.next = self.inp.be.val();
        self.in_ready.next = self.arbiter.gpu_req_ready.val();
        self.out_valid.next = self.arbiter.gpu_rsp_valid.val();
        self.out.rdata.next = self.arbiter.gpu_rsp.rdata.val();
        self.arbiter.gpu_rsp_ready.next = self.out_ready.val();
        if self.c_gpu_first.val() {
            self.arbiter.scan_rd_valid.next = self.in_valid.val();
            self.arbiter.scan_rd.addr.next = self.inp.addr.val();
            self.arbiter.scan_rd.write.next = self.inp.write.val();
            self.arbiter.scan_rd.wdata.next = self.inp.wdata.val();
            self.arbiter.scan_rd.be.next = self.inp.be.val();
            self.in_ready.next = self.arbiter.scan_rd_ready.val();
            self.out_valid.next = self.arbiter.scan_rsp_valid.val();
            self.out.rdata.next = self.arbiter.scan_rsp.rdata.val();
            self.arbiter.scan_rsp_ready.next = self.out_ready.val();
            self.arbiter.gpu_req_valid.next = self.scan_out.rd_valid.val();
            self.arbiter.gpu_req.addr.next = self.scan_out.rd.addr.val();
            self.arbiter.gpu_req.write.next = self.scan_out.rd.write.val();
            self.arbiter.gpu_req.wdata.next = self.scan_out.rd.wdata.val();
            self.arbiter.gpu_req.be.next = self.scan_out.rd.be.val();
            self.scan_out.rd_ready.next = self.arbiter.gpu_req_ready.val();
            self.scan_out.in_valid.next = self.arbiter.gpu_rsp_valid.val();
            self.scan_out.inp.rdata.next = self.arbiter.gpu_rsp.rdata.val();
            self.arbiter.gpu_rsp_ready.next = self.scan_out.in_ready.val();
        }

        // ---- the scan-out, the line buffer, the video output ----
        self.start.next = self.vblank_sync2.q.val() & !self.vblank_seen.q.val() & !self.flush.val();
        self.scan_out.start.next = self.start.val();
        self.scan_out.base.next = self.base.val();
        self.scan_out.fill.next = self.line_buffer.fill.val();
        // The credits keep the line buffer from overflowing: the scan-out's out is always taken.
        self.scan_out.out_ready.next = true;
        // A new walk: whatever the last one left unread is dropped.
        self.line_buffer.drop.next = self.start.val();
        self.line_buffer.in_valid.next = self.scan_out.out_valid.val();
        self.line_buffer.inp.red.next = self.scan_out.out.red.val();
        self.line_buffer.inp.green.next = self.scan_out.out.green.val();
        self.line_buffer.inp.blue.next = self.scan_out.out.blue.val();
        self.video_out.in_valid.next = self.line_buffer.out_valid.val();
        self.video_out.inp.red.next = self.line_buffer.out.red.val();
        self.video_out.inp.green.next = self.line_buffer.out.green.val();
        self.video_out.inp.blue.next = self.line_buffer.out.blue.val();
        self.line_buffer.out_ready.next = self.video_out.in_ready.val();
        self.video_out.out_ready.next = self.tmds_ready.val();
        self.tmds_valid.next = self.video_out.out_valid.val();
        self.tmds.blue.next = self.video_out.out.blue.val();
        self.tmds.green.next = self.video_out.out.green.val();
        self.tmds.red.next = self.video_out.out.red.val();
        self.underrun.next = self.video_out.underrun.val();
        self.frame_crc.next = self.video_out.frame_crc.val();
        self.crc_toggle.next = self.video_out.crc_toggle.val();

        // ---- vblank into the memory clock ----
        self.vblank_sync1.d.next = self.video_out.vblank.val() & !self.flush.val();
        self.vblank_sync2.d.next = self.vblank_sync1.q.val() & !self.flush.val();
        self.vblank_seen.d.next = self.vblank_sync2.q.val() & !self.flush.val();
        self.started_reg.d.next = self.start.val();
        self.started.next = self.started_reg.q.val();
    }
}

/// The block's Verilog with top module `name`.
pub fn verilog(f: &FrameBoard, name: &str) -> String {
    let block = DisplayPath::for_board(f).unwrap_or_else(|e| panic!("{e}"));
    emit::block_verilog(block, name)
}

/// The display path's row of [`crate::FRAME_BOARD_BLOCKS`].
pub const BOARD_FILE: crate::FrameBoardBlock = crate::FrameBoardBlock {
    role: "the board top right of the GPU port's crossing: arbiter, SDRAM controller, scan-out, line buffer, \
           video output, vblank synchroniser",
    sig: <tilerast_golden::display_path::DisplayPathPorts as tilerast_golden::cycle::BlockSignature>::SIGNATURE,
    rtl_file,
    made_from: |f| f.video.name,
};

/// The full text of `rtl-out/tilerast_display_path_<board>.v`: a header (the command, the
/// contract, the lint command, the ports), then the block. `None` for a board without a frame
/// row.
pub fn rtl_file(board: &Board) -> Option<String> {
    let f = board.frame.as_ref()?;
    let top = format!("tilerast_{STAGE}_{}", board.name);
    Some(format!(
        "// generated by `cargo run -p tilerast-hw --bin gen-rtl` — do not edit\n\
         // {STAGE} for board {} ({}): SDRAM {} at {} MHz, {} at a {} MHz pixel clock\n\
         // timing contract: tilerast_golden::display_path::DisplayPathCycle; top module: {top}\n\
         // lint-clean with: {}\n\
         // Ports: clock (memory), pixel_clock, flush; in_valid/in_ready + inp (the GPU port's requests),\n\
         // out_valid/out_ready + out (its answers), tmds_valid/tmds_ready + tmds (blue, green, red);\n\
         // base, dq_in (in); cs_n, ras_n, cas_n, we_n, ba, sdram_addr, dqm, dq_out, dq_oe, started,\n\
         // underrun, error, frame_crc, crc_toggle (out)\n//\n{}",
        board.name,
        board.title,
        f.sdram.name,
        f.sdram_hz / 1_000_000,
        f.video.name,
        f.pixel_hz / 1_000_000,
        crate::lint_top_command(&top),
        verilog(f, &top)
    ))
}
