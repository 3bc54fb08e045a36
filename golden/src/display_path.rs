//! # display_path: the board top's memory and display half, as one block (issue 35)
//!
//! **Role.** Everything of `tilerast_top_ulx3s_frame` right of the GPU port's crossing: the
//! memory arbiter (client 0 the scan-out, client 1 the GPU port), the SDRAM controller and its
//! pins, the scan-out, the line buffer into the pixel clock, the video output, and the
//! synchroniser that brings the video output's `vblank` into the memory clock, whose rising
//! edge starts the scan-out's walk at `base`. Its environment is the SDRAM chip behind the
//! pins and a DVI receiver behind `tmds` ([`crate::board_top::DisplayPath`] is that bench in
//! golden; the board top adds the GPU half).
//!
//! **Clocks.** `clock` is the memory clock; `pixel_clock` is an input that is 1 in the steps
//! with the pixel clock's rising edge (the ULX3S: every fourth), coinciding with the memory
//! clock's edge of that step, as from one PLL (the line buffer's convention,
//! [`crate::line_buffer`]). The video output and the line buffer's read side run at the pixel
//! edges; everything else at every step.
//!
//! **Ports** ([`DisplayPathPorts`]): `flush` (synchronous: each part at its own clock's next
//! edge; the line buffer's write side at the memory edge, its read side at the pixel edge, so
//! hold it over a pixel edge); `inp` / `out`: the GPU port's requests and answers (`MemReq`,
//! `MemResp`, reads answered in order); `tmds`: each pixel clock's three TMDS characters
//! (valid once the video output runs; `tmds_ready` is the video output's `out_ready`);
//! `base`: the framebuffer the next walk shows (byte address, latched at the walk's start);
//! `dq_in` and the SDRAM pins (registered, the controller's); `started` (a walk started at the
//! last memory edge: the buffer at `base` is the one shown), `underrun` (sticky: an active pixel
//! clock found the line buffer empty), `error` (the controller's, sticky), `frame_crc` and
//! `crc_toggle` (the video output's display CRC of the last whole video frame, pixel-clock
//! registers).
//!
//! **Timing contract.** The blocks' own ([`crate::mem_arbiter`], [`crate::sdram_controller`],
//! [`crate::scan_out`], [`crate::crossing`], [`crate::video_out`]), wired as below; the
//! vblank synchroniser is [`SYNC_FLOPS`] memory-clock flops, then `vblank_seen` (the
//! synchroniser's output one edge ago): `start` = synchronised ∧ ¬seen, registered into
//! `started`. At the start the line buffer drops what it holds ([`Crossing::drop_edge`]): a
//! frame the video output fell behind in (an underrun holds its last pixel for a clock, one
//! word stays unread) leaves nothing for the next, so every walk's first pixel is its frame's
//! first; the video output takes nothing in vertical blank, where the start is. The GPU port's
//! `inp_ready` and its answer's valid are combinational through the
//! arbiter (from the controller's `in_ready`, a register, and the tag FIFO's head).
//!
//! ```text
//!   memory clock                                                              │ pixel clock
//!   inp (GPU) ──► mem_arbiter ─out─► sdram_controller ◄─► pins (dq_in, cs_n…) │
//!   out ◄──────── (1)    ▲ (0) ▲ scan_rsp                                      │
//!                 scan_rd│     │                                               │
//!               scan_out ┘─────┘── pixel ─► line_buffer ══════════════════════╪═► video_out ─► tmds
//!   base ──────► (start)  ▲ fill ◄──┘  (write side; drop ◄ start) (read side) │     │ vblank
//!   started ◄── start ◄── ¬seen ∧ sync ◄══ SYNC_FLOPS ════════════════════════╪═════┘
//! ```

use crate::board::FrameBoard;
use crate::crossing::{Crossing, Synchroniser, SYNC_FLOPS};
use crate::cycle::{BlockModel, CycleModel, Offer, UBits};
use crate::mem_arbiter::MemArbiterCycle;
use crate::scan_out::{ScanOutCycle, ScanOutParams, FIFO_WORDS};
use crate::sdram_controller::SdramControllerCycle;
use crate::streams::{MemReq, VideoPixel};
use crate::video_out::VideoOutCycle;

/// The stage name (module `tilerast_display_path_<board>`).
pub const STAGE: &str = "display_path";

crate::block_signature! {
    /// display_path's ports (see the module header): the GPU port's requests in and answers
    /// out, the TMDS characters out at the pixel clock, the SDRAM's pins.
    pub DisplayPath "display_path" {
        takes { inp: MemReq }
        sends { out: MemResp, tmds: DviWord }
        ins { pixel_clock: bool, base: UBits<32>, dq_in: UBits<16> }
        outs {
            cs_n: bool,
            ras_n: bool,
            cas_n: bool,
            we_n: bool,
            ba: UBits<2>,
            sdram_addr: UBits<13>,
            dqm: UBits<2>,
            dq_out: UBits<16>,
            dq_oe: bool,
            started: bool,
            underrun: bool,
            error: bool,
            frame_crc: UBits<32>,
            crc_toggle: bool,
        }
    }
}

/// The arbiter's clients: the scan-out first (it must never miss a pixel), then the GPU.
pub const SCAN_CLIENT: usize = 0;
pub const GPU_CLIENT: usize = 1;

/// The display path's cycle model (see the module header).
#[derive(Clone, Debug)]
pub struct DisplayPathCycle {
    pub sdram: SdramControllerCycle,
    pub arbiter: MemArbiterCycle,
    pub scan_out: ScanOutCycle,
    pub line: Crossing<VideoPixel>,
    pub video_out: VideoOutCycle,
    vblank: Synchroniser<bool>,
    vblank_seen: bool,
    started: bool,
    /// The planted fault of the starvation test: the GPU's port served before the scan-out.
    gpu_first: bool,
}

impl DisplayPathCycle {
    /// The display path of frame row `f` with the scan-out `scan` (the board's is
    /// [`ScanOutParams::for_board`]; tests take smaller pictures and modes).
    pub fn new(f: &FrameBoard, scan: ScanOutParams) -> DisplayPathCycle {
        let hz = f64::from(f.sdram_hz);
        DisplayPathCycle {
            sdram: SdramControllerCycle::new(f.sdram, hz, f.cas_latency),
            arbiter: MemArbiterCycle::new(2),
            scan_out: ScanOutCycle::new(scan),
            line: Crossing::new(FIFO_WORDS),
            video_out: VideoOutCycle::new(f.video),
            vblank: Synchroniser::new(),
            vblank_seen: false,
            started: false,
            gpu_first: false,
        }
    }

    /// The display path of `f`'s own row (its preset's viewport on its video mode).
    pub fn for_board(f: &FrameBoard) -> Result<DisplayPathCycle, String> {
        Ok(Self::new(f, ScanOutParams::for_board(f)?))
    }

    /// The planted fault of the starvation test: the arbiter serves the GPU's port first.
    pub fn plant_gpu_first(&mut self) {
        self.gpu_first = true;
    }

    /// The scan-out starts a walk at this memory edge (the synchronised vblank's rising edge).
    pub fn start(&self) -> bool {
        self.vblank.out() && !self.vblank_seen
    }

    /// The arbiter's offers and answer readies, in its client order.
    fn offers(&self, i: &DisplayPathIn) -> ([(bool, MemReq); 2], [bool; 2], usize, usize) {
        let scan = self.scan_out.rd();
        let gpu = (i.inp.valid, i.inp.payload);
        let (gpu_index, scan_index) = if self.gpu_first {
            (SCAN_CLIENT, GPU_CLIENT)
        } else {
            (GPU_CLIENT, SCAN_CLIENT)
        };
        let mut req = [scan; 2];
        req[gpu_index] = gpu;
        let mut rsp_ready = [i.out_ready; 2];
        rsp_ready[scan_index] = self.scan_out.in_ready(true);
        (req, rsp_ready, gpu_index, scan_index)
    }
}

impl BlockModel for DisplayPathCycle {
    type Sig = DisplayPathPorts;

    fn outputs(&self, i: &DisplayPathIn) -> DisplayPathOut {
        let (req, rsp_ready, gpu_index, _) = self.offers(i);
        let d = self.arbiter.decide(&req, &rsp_ready);
        let (answer_valid, answer) = self.sdram.out();
        let (tmds_valid, tmds) = self.video_out.out();
        let p = self.sdram.pins();
        DisplayPathOut {
            inp_ready: self.sdram.in_ready() && d.out_valid && d.winner == gpu_index,
            out: Offer::new(answer_valid && d.rsp_valid[gpu_index], answer),
            tmds: Offer::new(tmds_valid, tmds),
            cs_n: p.cs_n,
            ras_n: p.ras_n,
            cas_n: p.cas_n,
            we_n: p.we_n,
            ba: UBits::new(u64::from(p.ba)),
            sdram_addr: UBits::new(u64::from(p.addr)),
            dqm: UBits::new(u64::from(p.dqm)),
            dq_out: UBits::new(u64::from(p.dq_out)),
            dq_oe: p.dq_oe,
            started: self.started,
            underrun: self.video_out.underrun(),
            error: self.sdram.error(),
            frame_crc: UBits::new(u64::from(self.video_out.frame_crc().0)),
            crc_toggle: self.video_out.frame_crc().1,
        }
    }

    fn clock(&mut self, i: &DisplayPathIn) {
        let flush = i.flush;
        // Every crossing samples the other side's values from before this step's edges.
        let (line_written, line_read) = self.line.pointers();
        let fill = self.line.fill();
        let vblank = self.video_out.vblank();
        let (req, rsp_ready, _, scan_index) = self.offers(i);
        let d = self.arbiter.decide(&req, &rsp_ready);
        let out_ready = self.sdram.in_ready();
        let (answer_valid, answer) = self.sdram.out();
        let taken = d.out_valid && out_ready;
        let answer_to_scan = answer_valid && d.rsp_valid[scan_index];
        // The memory clock's edge.
        self.sdram
            .clock(d.out_valid, &d.out, d.inp_ready, i.dq_in.0 as u16, flush);
        self.arbiter.clock(&req, out_ready, answer_valid, &rsp_ready, flush);
        let (pixel_valid, pixel) = self.scan_out.out();
        let start = self.start() && !flush;
        if start {
            // A new walk: whatever the last one left unread is dropped.
            self.line.drop_edge(line_read);
        } else {
            self.line.write_edge(pixel_valid.then_some(pixel), line_read, flush);
        }
        let rd_ready = taken && d.winner == scan_index;
        self.scan_out.clock(
            answer_to_scan,
            &answer,
            true,
            rd_ready,
            start,
            i.base.0 as u32,
            fill,
            flush,
        );
        if flush {
            self.vblank.clear();
            self.vblank_seen = false;
        } else {
            self.vblank_seen = self.vblank.out();
            self.vblank.clock(vblank);
        }
        self.started = start;
        // The pixel clock's edge, coinciding.
        if i.pixel_clock {
            let readable = self.line.readable();
            let (_, head) = self.line.out();
            let pop = readable && self.video_out.in_ready(i.tmds_ready);
            self.line.read_edge(pop, line_written, flush);
            CycleModel::clock(&mut self.video_out, readable, &head, i.tmds_ready, flush);
        }
    }
}

const _: () = assert!(SYNC_FLOPS == 2);
