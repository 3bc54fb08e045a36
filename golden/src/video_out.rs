//! # video_out (no seed: the board top's DVI output, issue 35)
//!
//! The pixel-clock side of the scan-out: the video mode's timing counters and the three TMDS
//! encoders. It takes one pixel of the picture at each pixel clock of active video and sends
//! every pixel clock's three 10-bit characters (blue with the syncs, green, red) to the
//! serialisers. The line buffer in front of it fills from the framebuffer; a pixel that is not
//! there when its clock comes is an underrun: the clock goes out black (the timing never
//! slips) and the sticky `underrun` output rises.
//!
//! ```text
//!            ┌──────────── video_out ─────────────────────────────────────────────┐
//!            │ (x, y) counters ─► VideoMode::timing ─► de, hsync, vsync            │
//!  inp ─────►│ taken when de ──► red/green/blue bytes ─► 3 × TmdsEncoderCycle ─────┼─► out
//!  (a pixel) │ de ∧ ¬in_valid ─► black, underrun ← 1 (sticky)      (blue: syncs)   │  (3 characters)
//!            │ y ≥ v_active ───► vblank                                            │
//!            │ bytes sent ─► CRC-32 ─(last active pixel)─► frame_crc, crc_toggle   │
//!            └─────────────────────────────────────────────────────────────────────┘
//! ```
//!
//! The convention of the link (where the porches and syncs are, which channel carries the
//! syncs, the polarity) is [`crate::video`]'s, stated once there; [`crate::video::DviLink`] is
//! the reference this block's words equal (`golden/tests/video_out_cycle.rs`).
//!
//! The display CRC (`frame_crc`) is what the frame top's FRAME RESULT reports
//! ([`crate::protocol::display_crc`] of the picture on the screen): computed where the pixels
//! leave for the screen, so it covers the whole path from the SDRAM, underruns included.

use crate::crc::Crc32;
use crate::cycle::{BlockModel, CycleModel, Offer, UBits};
use crate::streams::{DviWord, TmdsIn, VideoPixel};
use crate::tmds_encoder::TmdsEncoderCycle;
use crate::video::VideoMode;

/// The RTL block's cycle model.
///
/// **Timing contract** (the RTL's ports, cycle by cycle):
/// * **State.** The counters (x, y): the pixel clock the next characters are for; (0, 0) after
///   `new` or a flush. Three encoders (blue, green, red), each a [`TmdsEncoderCycle`]: their
///   output registers are the block's output.
/// * **Advance.** `adv` = ¬`out_valid` ∨ `out_ready` (the serialisers hold `out_ready` high:
///   one pixel clock per cycle). At an `adv` edge every encoder takes the timing of (x, y)
///   ([`VideoMode::timing`]): in active video (de) the pixel's bytes, else the control period
///   (blue: (vsync, hsync) pin levels, green and red 0); then (x, y) steps to the next pixel
///   clock (x wraps at `h_total`, y at `v_total`). Without `adv` nothing changes.
/// * **Input.** `in_ready` = `adv` ∧ de(x, y): combinational on `out_ready`, registered state
///   otherwise. A pixel is taken at an edge with `in_ready` ∧ `in_valid`.
/// * **Underrun.** An `adv` edge in active video with `in_valid` low sends black (bytes 0, de
///   high) and, once `armed`, sets `underrun`, which stays until a flush. `armed` is set at the
///   first `adv` edge in vertical blanking (y ≥ `v_active`): the frame the counters start in
///   after a flush comes before anything could fill the line buffer (the scan-out's walk
///   starts in vertical blank), so its missing pixels are not a fault; every later one is.
/// * **Output.** `out_valid` and `out` are the encoders' registers: the characters of the pixel
///   clock taken at the last `adv` edge (latency 1). `out_valid` is low after `new` or a
///   flush until the first edge. The payload when not valid is 0.
/// * **vblank.** y ≥ `v_active` (the counters' line is a blanking line), from registers.
/// * **Display CRC.** A CRC-32 register ([`Crc32`], zlib's, all ones at the start) takes, at
///   every `adv` edge in active video, the bytes sent: red, green, blue (the pixel, or black
///   at an underrun). At the edge of the frame's last active pixel, (x, y) = (`h_active` − 1,
///   `v_active` − 1), its value with that pixel (final complement applied) loads `frame_crc`,
///   `crc_toggle` flips and the register restarts. So `frame_crc` is
///   [`crate::protocol::display_crc`] of the last whole video frame sent, and stays for a whole
///   frame; both are registers.
/// * **Flush.** Every register to its `new` value (counters (0, 0), disparities 0,
///   `armed` and `underrun` 0, `out_valid` 0, the CRC register all ones, `frame_crc` 0,
///   `crc_toggle` 0).
#[derive(Clone, Debug)]
pub struct VideoOutCycle {
    mode: VideoMode,
    x: u32,
    y: u32,
    encoders: [TmdsEncoderCycle; 3],
    /// A vertical blanking line has been sent since the flush: underruns count from here.
    armed: bool,
    underrun: bool,
    /// The running CRC of this frame's active pixels so far.
    crc: Crc32,
    /// The CRC of the last whole frame, and the toggle that flips when it loads.
    frame_crc: u32,
    crc_toggle: bool,
    /// A planted bug for the CRC's mutant: bit `n` of the red byte not fed.
    crc_bug: Option<u32>,
    /// A planted bug for the mutant's prediction: bit `n` of every encoder's disparity
    /// inverted at each active edge ([`VideoOutCycle::plant_disparity_bug`]).
    disparity_bug: Option<u32>,
}

impl VideoOutCycle {
    pub fn new(mode: VideoMode) -> Self {
        Self {
            mode,
            x: 0,
            y: 0,
            encoders: Default::default(),
            armed: false,
            underrun: false,
            crc: Crc32::default(),
            frame_crc: 0,
            crc_toggle: false,
            crc_bug: None,
            disparity_bug: None,
        }
    }

    pub fn mode(&self) -> &VideoMode {
        &self.mode
    }

    /// The pixel clock the next characters are for.
    pub fn position(&self) -> (u32, u32) {
        (self.x, self.y)
    }

    /// The counters' line is a blanking line.
    pub fn vblank(&self) -> bool {
        self.y >= self.mode.v_active
    }

    /// Some pixel was missing at its clock since the first vertical blank after the last flush.
    pub fn underrun(&self) -> bool {
        self.underrun
    }

    /// The display CRC of the last whole video frame sent, and its toggle (see the contract).
    pub fn frame_crc(&self) -> (u32, bool) {
        (self.frame_crc, self.crc_toggle)
    }

    /// The CRC mutant's model: bit `bit` of the red byte is fed as 0.
    pub fn plant_crc_bug(&mut self, bit: u32) {
        self.crc_bug = Some(bit);
    }

    /// The mutant's model: every encoder's disparity register loads with bit `bit` inverted
    /// at every data character (what `cosim`'s `video_out` mutant does to the one TMDS encoder
    /// module the three channels instantiate).
    pub fn plant_disparity_bug(&mut self, bit: u32) {
        self.disparity_bug = Some(bit);
    }
}

impl CycleModel for VideoOutCycle {
    type In = VideoPixel;
    type Out = DviWord;

    fn out(&self) -> (bool, DviWord) {
        let (valid, blue) = self.encoders[0].out();
        let word = DviWord {
            blue: blue.word,
            green: self.encoders[1].out().1.word,
            red: self.encoders[2].out().1.word,
        };
        (valid, word)
    }

    fn in_ready(&self, out_ready: bool) -> bool {
        self.encoders[0].in_ready(out_ready) && self.mode.timing(self.x, self.y).de
    }

    fn clock(&mut self, in_valid: bool, inp: &VideoPixel, out_ready: bool, flush: bool) {
        if flush {
            *self = Self {
                disparity_bug: self.disparity_bug,
                crc_bug: self.crc_bug,
                ..Self::new(self.mode)
            };
            return;
        }
        if !self.encoders[0].in_ready(out_ready) {
            return;
        }
        let t = self.mode.timing(self.x, self.y);
        let pixel = if t.de && in_valid { *inp } else { VideoPixel::default() };
        if t.de && !in_valid && self.armed {
            self.underrun = true;
        }
        if self.y >= self.mode.v_active {
            self.armed = true;
        }
        let ctrl = u8::from(t.vsync) << 1 | u8::from(t.hsync);
        for (ch, (data, ctrl)) in [(pixel.blue, ctrl), (pixel.green, 0), (pixel.red, 0)]
            .into_iter()
            .enumerate()
        {
            let enc_in = TmdsIn { data, de: t.de, ctrl };
            CycleModel::clock(&mut self.encoders[ch], true, &enc_in, out_ready, false);
        }
        if t.de {
            let red = pixel.red & !self.crc_bug.map_or(0, |b| 1u8 << b);
            self.crc.bytes(&[red, pixel.green, pixel.blue]);
            if self.x + 1 == self.mode.h_active && self.y + 1 == self.mode.v_active {
                self.frame_crc = self.crc.value();
                self.crc_toggle = !self.crc_toggle;
                self.crc = Crc32::default();
            }
        }
        if let (Some(bit), true) = (self.disparity_bug, t.de) {
            for e in &mut self.encoders {
                e.invert_disparity_bit(bit);
            }
        }
        self.x += 1;
        if self.x == self.mode.h_total() {
            self.x = 0;
            self.y += 1;
            if self.y == self.mode.v_total() {
                self.y = 0;
            }
        }
    }
}

crate::block_signature! {
    /// video_out's ports: the picture's pixels in (taken in active video), each pixel clock's
    /// three TMDS characters out, `vblank` (the counters are in vertical blanking), the
    /// sticky `underrun`, and the display CRC of the last whole frame sent (`frame_crc`) with
    /// its `crc_toggle`.
    pub VideoOut "video_out" {
        takes { inp: VideoPixel }
        sends { out: DviWord }
        outs { vblank: bool, underrun: bool, frame_crc: UBits<32>, crc_toggle: bool }
    }
}

impl crate::cycle::OneStream for VideoOutPorts {
    type InS = crate::streams::ports::VideoPixel;
    type OutS = crate::streams::ports::DviWord;
}

impl BlockModel for VideoOutCycle {
    type Sig = VideoOutPorts;
    fn outputs(&self, i: &VideoOutIn) -> VideoOutOut {
        let (v, w) = self.out();
        VideoOutOut {
            inp_ready: self.in_ready(i.out_ready),
            out: Offer::new(v, w),
            vblank: self.vblank(),
            underrun: self.underrun,
            frame_crc: UBits::new(u64::from(self.frame_crc)),
            crc_toggle: self.crc_toggle,
        }
    }
    fn clock(&mut self, i: &VideoOutIn) {
        CycleModel::clock(self, i.inp.valid, &i.inp.payload, i.out_ready, i.flush)
    }
}

/// A small mode for short simulations (rust-hdl runs a few thousand cycles a second): 8 × 3
/// active pixels, 2 + 3 + 2 clocks of horizontal and 1 + 1 + 1 lines of vertical blanking,
/// negative syncs like 640×480.
pub const TEST_MODE: VideoMode = VideoMode {
    name: "8x3 test",
    h_active: 8,
    h_front: 2,
    h_sync: 3,
    h_back: 2,
    v_active: 3,
    v_front: 1,
    v_sync: 1,
    v_back: 1,
    h_sync_positive: false,
    v_sync_positive: false,
    pixel_hz: 1_000_000,
};
