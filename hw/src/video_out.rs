//! # video_out (no seed: the board top's DVI output)
//!
//! The pixel-clock side of the scan-out: the video mode's timing counters and one
//! [`TmdsEncoder`] per channel. It takes a pixel of the picture at each pixel clock of active
//! video and sends every pixel clock's three 10-bit characters (blue with the syncs, green,
//! red) to the serialisers; a pixel missing at its clock goes out black and, from the first
//! vertical blank after a flush on (`armed`), sets the sticky `underrun`. Cycle model: [`tilerast_golden::video_out::VideoOutCycle`] (same registers);
//! its rustdoc is the block's timing contract, stated once. The link's conventions (porches,
//! syncs, polarity, which channel carries the syncs) are [`tilerast_golden::video`]'s.
//!
//! **Ports.** `clock`, `flush` (synchronous reset: counters (0, 0), disparities 0, `armed`,
//! `underrun` 0); in: `in_valid`/`in_ready` with `inp` ([`crate::streams::VideoPixelIn`]: `red`,
//! `green`, `blue`); out: `out_valid`/`out_ready` with `out` ([`crate::streams::DviWordOut`]:
//! `blue`, `green`, `red`, 10 bits each, bit 0 sent first); `vblank`, `underrun`.
//!
//! **Handshake.** `adv = !out_valid | out_ready` (the encoders' own); `in_ready = adv ∧ de`,
//! de from the counters. The serialisers hold `out_ready` high: one pixel clock per cycle,
//! latency 1 (the encoders' output registers are the block's).
//!
//! ```text
//!  x, y counters (12 bits) ─► de = x < h_active ∧ y < v_active, hsync, vsync (pin levels)
//!        ▲ adv: x+1, wrap at h_total; y+1 at x's wrap, wrap at v_total
//!  inp ──┴─(in_valid ? bytes : 0)─► blue  encoder (ctrl = vsync:hsync) ─► out.blue
//!                                 ─► green encoder (ctrl = 0)           ─► out.green
//!                                 ─► red   encoder (ctrl = 0)           ─► out.red
//!  adv ∧ de ∧ ¬in_valid ∧ armed ─► underrun (sticky)   y ≥ v_active ─► vblank, armed (sticky)
//! ```
//!
//! Parameters: the video mode (a column of the board table's frame row); every total up to
//! 4096 clocks.

use crate::crc::DisplayCrc;
use crate::emit;
use crate::tmds_encoder::TmdsEncoder;
use crate::util::k;
use rust_hdl::prelude::*;
use tilerast_golden::board::Board;
// Named by the signature (`outs { frame_crc: UBits<32> }`), which the stream macro expands here.
use tilerast_golden::cycle::UBits;
use tilerast_golden::video::VideoMode;

/// The stage name (module `tilerast_video_out_<board>`).
pub const STAGE: &str = "video_out";

tilerast_golden::video_out_streams! { crate::streams::stream_block;
    /// The DVI output's pixel-clock side. Build with [`VideoOut::new`] (see the module header).
    pub struct VideoOut {
        /// h_active, the hsync pulse's first and first-after clocks, h_total − 1.
        c_h_active: Constant<Bits<12>>,
        c_h_sync_start: Constant<Bits<12>>,
        c_h_sync_end: Constant<Bits<12>>,
        c_h_last: Constant<Bits<12>>,
        /// The same for lines.
        c_v_active: Constant<Bits<12>>,
        /// The frame's last active pixel: h_active − 1, v_active − 1.
        c_h_active_last: Constant<Bits<12>>,
        c_v_active_last: Constant<Bits<12>>,
        c_v_sync_start: Constant<Bits<12>>,
        c_v_sync_end: Constant<Bits<12>>,
        c_v_last: Constant<Bits<12>>,
        /// The sync pins' level outside the pulse (1 for negative syncs).
        c_h_sync_idle: Constant<Bit>,
        c_v_sync_idle: Constant<Bit>,
        c_zero12: Constant<Bits<12>>,
        c_one12: Constant<Bits<12>>,
        c_zero8: Constant<Bits<8>>,
        /// (c1, c0) = (vsync, hsync) as the control number 0..3.
        c_ctrl: Vec<Constant<Bits<2>>>,

        adv: Signal<Local, Bit>,
        /// The counters' pixel clock is active video.
        de: Signal<Local, Bit>,
        /// The sync pins' levels at the counters' pixel clock.
        hsync: Signal<Local, Bit>,
        vsync: Signal<Local, Bit>,
        /// Blue's control bits (vsync, hsync).
        sync_ctrl: Signal<Local, Bits<2>>,

        /// The pixel clock the next characters are for: column and line.
        x: DFF<Bits<12>>,
        y: DFF<Bits<12>>,
        /// A vertical blanking line was sent since the last flush (underruns count from here).
        armed: DFF<Bit>,
        /// A pixel was missing at its clock since `armed`.
        underrun_reg: DFF<Bit>,
        /// The three channels' encoders (their output registers are the block's output).
        blue: TmdsEncoder,
        green: TmdsEncoder,
        red: TmdsEncoder,
        /// The display CRC of the bytes the encoders take in active video.
        display_crc: DisplayCrc,
    }
}

impl VideoOut {
    /// The block for `mode` (every total at most 4096 clocks).
    pub fn new(mode: &VideoMode) -> VideoOut {
        assert!(
            mode.h_total() <= 4096 && mode.v_total() <= 4096,
            "{}: a total over 4096 does not fit the 12-bit counters",
            mode.name
        );
        let h_sync = mode.h_active + mode.h_front;
        let v_sync = mode.v_active + mode.v_front;
        VideoOut {
            clock: Default::default(),
            flush: Default::default(),
            in_valid: Default::default(),
            in_ready: Default::default(),
            inp: Default::default(),
            out_valid: Default::default(),
            out_ready: Default::default(),
            out: Default::default(),
            vblank: Default::default(),
            underrun: Default::default(),
            frame_crc: Default::default(),
            crc_toggle: Default::default(),
            c_h_active: k(u64::from(mode.h_active)),
            c_h_sync_start: k(u64::from(h_sync)),
            c_h_sync_end: k(u64::from(h_sync + mode.h_sync)),
            c_h_last: k(u64::from(mode.h_total() - 1)),
            c_v_active: k(u64::from(mode.v_active)),
            c_h_active_last: k(u64::from(mode.h_active - 1)),
            c_v_active_last: k(u64::from(mode.v_active - 1)),
            c_v_sync_start: k(u64::from(v_sync)),
            c_v_sync_end: k(u64::from(v_sync + mode.v_sync)),
            c_v_last: k(u64::from(mode.v_total() - 1)),
            c_h_sync_idle: Constant::new(!mode.h_sync_positive),
            c_v_sync_idle: Constant::new(!mode.v_sync_positive),
            c_zero12: k(0),
            c_one12: k(1),
            c_zero8: k(0),
            c_ctrl: (0..4).map(k).collect(),
            adv: Default::default(),
            de: Default::default(),
            hsync: Default::default(),
            vsync: Default::default(),
            sync_ctrl: Default::default(),
            x: Default::default(),
            y: Default::default(),
            armed: Default::default(),
            underrun_reg: Default::default(),
            blue: TmdsEncoder::channel(),
            green: TmdsEncoder::channel(),
            red: TmdsEncoder::channel(),
            display_crc: DisplayCrc::default(),
        }
    }

    #[hdl_gen]
    fn kernel(&mut self) {
        self.x.clock.next = self.clock.val();
        self.x.d.next = self.x.q.val();
        self.y.clock.next = self.clock.val();
        self.y.d.next = self.y.q.val();
        self.underrun_reg.clock.next = self.clock.val();
        self.underrun_reg.d.next = self.underrun_reg.q.val();
        self.armed.clock.next = self.clock.val();
        self.armed.d.next = self.armed.q.val();

        // The timing of the counters' pixel clock.
        self.adv.next = self.blue.in_ready.val();
        self.de.next = (self.x.q.val() < self.c_h_active.val()) & (self.y.q.val() < self.c_v_active.val());
        self.hsync.next = ((self.x.q.val() >= self.c_h_sync_start.val()) & (self.x.q.val() < self.c_h_sync_end.val()))
            ^ self.c_h_sync_idle.val();
        self.vsync.next = ((self.y.q.val() >= self.c_v_sync_start.val()) & (self.y.q.val() < self.c_v_sync_end.val()))
            ^ self.c_v_sync_idle.val();
        self.sync_ctrl.next = self.c_ctrl[0].val();
        if self.hsync.val() & !self.vsync.val() {
            self.sync_ctrl.next = self.c_ctrl[1].val();
        }
        if !self.hsync.val() & self.vsync.val() {
            self.sync_ctrl.next = self.c_ctrl[2].val();
        }
        if self.hsync.val() & self.vsync.val() {
            self.sync_ctrl.next = self.c_ctrl[3].val();
        }
        self.in_ready.next = self.adv.val() & self.de.val();

        // The encoders take a pixel clock at every edge they advance: the pixel's bytes (0
        // when it is missing) in active video, else the control period.
        self.blue.clock.next = self.clock.val();
        self.green.clock.next = self.clock.val();
        self.red.clock.next = self.clock.val();
        self.blue.flush.next = self.flush.val();
        self.green.flush.next = self.flush.val();
        self.red.flush.next = self.flush.val();
        self.blue.in_valid.next = true;
        self.green.in_valid.next = true;
        self.red.in_valid.next = true;
        self.blue.out_ready.next = self.out_ready.val();
        self.green.out_ready.next = self.out_ready.val();
        self.red.out_ready.next = self.out_ready.val();
        self.blue.inp.de.next = self.de.val();
        self.green.inp.de.next = self.de.val();
        self.red.inp.de.next = self.de.val();
        self.blue.inp.ctrl.next = self.sync_ctrl.val();
        self.green.inp.ctrl.next = self.c_ctrl[0].val();
        self.red.inp.ctrl.next = self.c_ctrl[0].val();
        self.blue.inp.data.next = self.c_zero8.val();
        self.green.inp.data.next = self.c_zero8.val();
        self.red.inp.data.next = self.c_zero8.val();
        if self.in_valid.val() {
            self.blue.inp.data.next = self.inp.blue.val();
            self.green.inp.data.next = self.inp.green.val();
            self.red.inp.data.next = self.inp.red.val();
        }

        // The counters step with every pixel clock sent; a missing pixel is an underrun.
        if self.adv.val() {
            if self.x.q.val() == self.c_h_last.val() {
                self.x.d.next = self.c_zero12.val();
                if self.y.q.val() == self.c_v_last.val() {
                    self.y.d.next = self.c_zero12.val();
                } else {
                    self.y.d.next = self.y.q.val() + self.c_one12.val();
                }
            } else {
                self.x.d.next = self.x.q.val() + self.c_one12.val();
            }
            if self.de.val() & !self.in_valid.val() & self.armed.q.val() {
                self.underrun_reg.d.next = true;
            }
            if self.y.q.val() >= self.c_v_active.val() {
                self.armed.d.next = true;
            }
        }
        if self.flush.val() {
            self.x.d.next = self.c_zero12.val();
            self.y.d.next = self.c_zero12.val();
            self.underrun_reg.d.next = false;
            self.armed.d.next = false;
        }

        // The display CRC takes what the encoders take in active video.
        self.display_crc.clock.next = self.clock.val();
        self.display_crc.flush.next = self.flush.val();
        self.display_crc.en.next = self.adv.val() & self.de.val();
        self.display_crc.last.next =
            (self.x.q.val() == self.c_h_active_last.val()) & (self.y.q.val() == self.c_v_active_last.val());
        self.display_crc.red.next = self.red.inp.data.val();
        self.display_crc.green.next = self.green.inp.data.val();
        self.display_crc.blue.next = self.blue.inp.data.val();
        self.frame_crc.next = self.display_crc.frame_crc.val();
        self.crc_toggle.next = self.display_crc.crc_toggle.val();

        self.out_valid.next = self.blue.out_valid.val();
        self.out.blue.next = self.blue.out.word.val();
        self.out.green.next = self.green.out.word.val();
        self.out.red.next = self.red.out.word.val();
        self.vblank.next = self.y.q.val() >= self.c_v_active.val();
        self.underrun.next = self.underrun_reg.q.val();
    }
}

emit::indexed_kernel_logic!(VideoOut);

/// Top module name of `board`'s video output in `rtl-out/`.
pub fn top_name(board: &str) -> String {
    format!("tilerast_{STAGE}_{board}")
}

/// File name of `board`'s video output in `rtl-out/`.
pub fn rtl_file_name(board: &str) -> String {
    format!("{}.v", top_name(board))
}

/// The block's Verilog for `mode` with top module `name`.
pub fn verilog(mode: &VideoMode, name: &str) -> String {
    emit::block_verilog(VideoOut::new(mode), name)
}

/// The video output's row of [`crate::FRAME_BOARD_BLOCKS`].
pub const BOARD_FILE: crate::FrameBoardBlock = crate::FrameBoardBlock {
    role: "DVI output: video timing, three TMDS encoders and the display CRC at the pixel clock",
    sig: <tilerast_golden::video_out::VideoOutPorts as tilerast_golden::cycle::BlockSignature>::SIGNATURE,
    rtl_file,
    made_from: |f| f.video.name,
};

/// The full text of `rtl-out/tilerast_video_out_<board>.v`: a header (the command, the mode,
/// the contract, the lint command), then the block. `None` for a board without a frame row.
pub fn rtl_file(board: &Board) -> Option<String> {
    let f = board.frame.as_ref()?;
    let m = &f.video;
    let top = top_name(board.name);
    Some(format!(
        "// generated by `cargo run -p tilerast-hw --bin gen-rtl` — do not edit\n\
         // {STAGE} for board {} ({}): {} ({} x {} clocks: {} + {} + {} + {} per line, {} + {} + {} + {} lines;\n\
         // hsync {}, vsync {}), pixel clock {} MHz\n\
         // timing contract: tilerast_golden::video_out::VideoOutCycle; top module: {top}\n\
         // lint-clean with: {}\n\
         // Ports: clock, flush (synchronous), in_valid/in_ready + inp (red, green, blue: 8 bits),\n\
         // out_valid/out_ready + out (blue, green, red: 10-bit TMDS characters, bit 0 first),\n\
         // vblank, underrun, frame_crc (32), crc_toggle (out)\n//\n{}",
        board.name,
        board.title,
        m.name,
        m.h_total(),
        m.v_total(),
        m.h_active,
        m.h_front,
        m.h_sync,
        m.h_back,
        m.v_active,
        m.v_front,
        m.v_sync,
        m.v_back,
        if m.h_sync_positive { "positive" } else { "negative" },
        if m.v_sync_positive { "positive" } else { "negative" },
        f.pixel_hz / 1_000_000,
        crate::lint_top_command(&top),
        verilog(m, &top)
    ))
}
