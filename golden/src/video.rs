//! The board top's video link (issue 35): the video mode (a column of the board table), the
//! reference for what a DVI transmitter sends for a picture, and the receiver that the board
//! simulation decodes captured TMDS characters with.
//!
//! ```text
//!   picture (x, y) → RGB ─┐                     ┌─ DviReceiver: 10b → 8b, every character
//!   VideoMode::timing ────┤ DviLink: 3 × TMDS   │  checked against the encoder's rule at the
//!   (de, hsync, vsync)    │ encoder (blue with  │  tracked running disparity, control periods,
//!                         └ hsync/vsync) ───────┤  sync positions against the mode ─► frames
//!                             [blue, green, red] words, one per pixel clock
//! ```
//!
//! Conventions (one statement, used by the reference, the receiver and the RTL scan-out):
//! * A line is `h_active` pixels of active video, then the front porch, the sync pulse and the
//!   back porch; a frame is `v_active` active lines, then the front porch, sync and back porch
//!   lines. Pixel clock (x, y) with x < h_total, y < v_total; (0, 0) is the first active
//!   pixel. vsync covers whole lines (it changes with x = 0).
//! * The sync pins carry the mode's polarity (640×480 at 60 Hz: both negative, low in the
//!   pulse). DVI channel 0 (blue) sends (c1, c0) = (vsync, hsync) pin levels in its control
//!   periods, channels 1 (green) and 2 (red) send (0, 0).
//! * A captured pixel clock is the three channels' 10-bit characters, blue, green, red; the
//!   text form (`--tmds FILE`) is one line per pixel clock, three hex words: `bbb ggg rrr`.

use crate::streams::TmdsIn;
use crate::tmds_encoder::{decode, Decoded, TmdsEncoder};

/// A video mode's timing.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct VideoMode {
    pub name: &'static str,
    pub h_active: u32,
    pub h_front: u32,
    pub h_sync: u32,
    pub h_back: u32,
    pub v_active: u32,
    pub v_front: u32,
    pub v_sync: u32,
    pub v_back: u32,
    /// Sync pulses are high (positive) or low (negative).
    pub h_sync_positive: bool,
    pub v_sync_positive: bool,
    /// The mode's nominal pixel clock, Hz.
    pub pixel_hz: u32,
}

/// 640×480 at 60 Hz (VESA DMT / CEA-861 format 1): 800 × 525 clocks, negative syncs, 25.175
/// MHz nominal (25 MHz gives 59.5 Hz, which monitors take).
pub const VGA_640X480_60: VideoMode = VideoMode {
    name: "640x480@60",
    h_active: 640,
    h_front: 16,
    h_sync: 96,
    h_back: 48,
    v_active: 480,
    v_front: 10,
    v_sync: 2,
    v_back: 33,
    h_sync_positive: false,
    v_sync_positive: false,
    pixel_hz: 25_175_000,
};

/// What the link carries at one pixel clock: data enable and the sync pin levels.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct VideoTiming {
    pub de: bool,
    /// Pin levels (with the mode's polarity).
    pub hsync: bool,
    pub vsync: bool,
}

impl VideoMode {
    pub fn h_total(&self) -> u32 {
        self.h_active + self.h_front + self.h_sync + self.h_back
    }
    pub fn v_total(&self) -> u32 {
        self.v_active + self.v_front + self.v_sync + self.v_back
    }
    /// Pixel clocks per frame.
    pub fn frame_clocks(&self) -> u64 {
        u64::from(self.h_total()) * u64::from(self.v_total())
    }
    /// Frames per second at `pixel_hz`.
    pub fn refresh_hz(&self, pixel_hz: f64) -> f64 {
        pixel_hz / self.frame_clocks() as f64
    }

    /// The link's timing at pixel clock (x, y), x < h_total, y < v_total.
    pub fn timing(&self, x: u32, y: u32) -> VideoTiming {
        let hs = (self.h_active + self.h_front..self.h_active + self.h_front + self.h_sync).contains(&x);
        let vs = (self.v_active + self.v_front..self.v_active + self.v_front + self.v_sync).contains(&y);
        VideoTiming {
            de: x < self.h_active && y < self.v_active,
            hsync: hs == self.h_sync_positive,
            vsync: vs == self.v_sync_positive,
        }
    }

    /// (x, y) of pixel clock `clock` of a frame that starts at clock 0.
    pub fn position(&self, clock: u64) -> (u32, u32) {
        let c = clock % self.frame_clocks();
        (
            (c % u64::from(self.h_total())) as u32,
            (c / u64::from(self.h_total())) as u32,
        )
    }

    /// The clock of a frame at which the vsync pulse starts (x = 0 of its first line).
    pub fn vsync_start(&self) -> u64 {
        u64::from(self.v_active + self.v_front) * u64::from(self.h_total())
    }
}

/// The three TMDS channels' characters of one pixel clock: blue (with the syncs), green, red.
pub type LinkWord = [u16; 3];

/// A DVI transmitter: three TMDS encoders, their running disparities its state.
#[derive(Clone, Copy, Debug, Default)]
pub struct DviLink {
    pub encoders: [TmdsEncoder; 3],
}

impl DviLink {
    /// The characters of one pixel clock: `rgb` in active video, else the control periods
    /// carrying the syncs on channel 0.
    pub fn word(&mut self, t: VideoTiming, rgb: [u8; 3]) -> LinkWord {
        let ctrl = u8::from(t.vsync) << 1 | u8::from(t.hsync);
        let bytes = [rgb[2], rgb[1], rgb[0]];
        let mut out = [0u16; 3];
        for (ch, o) in out.iter_mut().enumerate() {
            *o = self.encoders[ch].encode(&TmdsIn {
                data: bytes[ch],
                de: t.de,
                ctrl: if ch == 0 { ctrl } else { 0 },
            });
        }
        out
    }

    /// `clocks` pixel clocks of `mode` from the start of a frame (clock 0 = pixel (0, 0)),
    /// showing `picture(x, y)` → RGB in active video.
    pub fn frames(&mut self, mode: &VideoMode, clocks: u64, picture: impl Fn(u32, u32) -> [u8; 3]) -> Vec<LinkWord> {
        (0..clocks)
            .map(|c| {
                let (x, y) = mode.position(c);
                let t = mode.timing(x, y);
                self.word(t, if t.de { picture(x, y) } else { [0; 3] })
            })
            .collect()
    }
}

/// One decoded picture: `h_active × v_active` RGB pixels, rows top-down.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct VideoFrame {
    pub width: u32,
    pub height: u32,
    pub rgb: Vec<[u8; 3]>,
    /// The capture's pixel clock at which its first active pixel came.
    pub first_clock: u64,
}

impl VideoFrame {
    pub fn pixel(&self, x: u32, y: u32) -> [u8; 3] {
        self.rgb[(y * self.width + x) as usize]
    }
}

const CHANNELS: [&str; 3] = ["blue", "green", "red"];

/// A DVI receiver that checks what it receives: every character against the DVI 1.0 encoder's
/// rule at the running disparity it tracks per channel from the channel's first control
/// character on (so a broken encoder is caught at its first wrong character, even when the
/// byte still decodes), the control periods (channels 1
/// and 2 carry (0, 0); all three agree on data enable), and, once it has seen a vsync pulse
/// start, every pixel clock's de, hsync and vsync against the mode. The first error stops it
/// with one line naming the pixel clock.
#[derive(Clone, Debug)]
pub struct DviReceiver {
    mode: VideoMode,
    /// Each channel's running disparity, known from its first control character on (a
    /// capture may start in active video).
    disparity: [Option<i32>; 3],
    clock: u64,
    /// The capture's clock of frame clock 0 (pixel (0, 0)), once locked.
    frame_origin: Option<u64>,
    last_vsync: Option<bool>,
    current: Vec<[u8; 3]>,
    current_first: u64,
    pub frames: Vec<VideoFrame>,
}

impl DviReceiver {
    pub fn new(mode: VideoMode) -> DviReceiver {
        DviReceiver {
            mode,
            disparity: [None; 3],
            clock: 0,
            frame_origin: None,
            last_vsync: None,
            current: Vec::new(),
            current_first: 0,
            frames: Vec::new(),
        }
    }

    /// Pixel clocks received.
    pub fn clocks(&self) -> u64 {
        self.clock
    }

    /// Whether it has locked to the syncs (seen a vsync pulse start).
    pub fn locked(&self) -> bool {
        self.frame_origin.is_some()
    }

    /// (x, y) of the current pixel clock in the mode's frame, once locked.
    fn frame_position(&self) -> Option<(u32, u32)> {
        // The origin may lie after the clock (locked in the capture's first frame): the
        // position wraps by a frame.
        let f = self.mode.frame_clocks();
        self.frame_origin
            .map(|o| self.mode.position(self.clock.wrapping_sub(o).wrapping_add(f)))
    }

    fn err(&self, what: String) -> String {
        let at = match self.frame_position() {
            Some((x, y)) => format!(" (column {x}, line {y})"),
            None => String::new(),
        };
        format!("dvi: pixel clock {}{at}: {what}", self.clock)
    }

    /// Receive one pixel clock's characters.
    pub fn receive(&mut self, w: LinkWord) -> Result<(), String> {
        let mut de = [false; 3];
        let mut bytes = [0u8; 3];
        let mut ctrl = [0u8; 3];
        for ch in 0..3 {
            let word = w[ch] & 0x3ff;
            if w[ch] > 0x3ff {
                return Err(self.err(format!(
                    "channel {}: {:#x} is not a 10-bit character",
                    CHANNELS[ch], w[ch]
                )));
            }
            match decode(word) {
                Decoded::Control(c) => {
                    self.disparity[ch] = Some(0);
                    ctrl[ch] = c;
                }
                Decoded::Data(b) => {
                    if let Some(d) = self.disparity[ch] {
                        let mut enc = TmdsEncoder { disparity: d };
                        let want = enc.encode(&TmdsIn {
                            data: b,
                            de: true,
                            ctrl: 0,
                        });
                        if want != word {
                            return Err(self.err(format!(
                                "channel {}: character {word:#05x} is not DVI's for byte {b:#04x} at running disparity {d} ({want:#05x})",
                                CHANNELS[ch]
                            )));
                        }
                        self.disparity[ch] = Some(enc.disparity);
                    }
                    de[ch] = true;
                    bytes[ch] = b;
                }
            }
        }
        if de[0] != de[1] || de[1] != de[2] {
            return Err(self.err(format!(
                "the channels disagree on data enable (blue, green, red: {de:?})"
            )));
        }
        if !de[0] && (ctrl[1] != 0 || ctrl[2] != 0) {
            return Err(self.err(format!(
                "control bits of green {} and red {}: DVI sends 0",
                ctrl[1], ctrl[2]
            )));
        }
        let got = VideoTiming {
            de: de[0],
            hsync: if de[0] {
                !self.mode.h_sync_positive
            } else {
                ctrl[0] & 1 == 1
            },
            vsync: if de[0] {
                self.last_vsync.unwrap_or(!self.mode.v_sync_positive)
            } else {
                ctrl[0] & 2 == 2
            },
        };
        // Lock at the first vsync pulse start.
        if self.frame_origin.is_none() && !got.de {
            let active = got.vsync == self.mode.v_sync_positive;
            if active && self.last_vsync == Some(!self.mode.v_sync_positive) {
                self.frame_origin = Some(self.clock + self.mode.frame_clocks() - self.mode.vsync_start());
            }
        }
        if !got.de {
            self.last_vsync = Some(got.vsync);
        }
        if let Some((x, y)) = self.frame_position() {
            let want = self.mode.timing(x, y);
            let check = |name: &str, g: bool, w: bool, what: &str| -> Result<(), String> {
                if g != w {
                    Err(format!(
                        "{name} is {} where {what} wants it {}",
                        u8::from(g),
                        u8::from(w)
                    ))
                } else {
                    Ok(())
                }
            };
            let r = check("de", got.de, want.de, self.mode.name).and_then(|_| {
                if want.de {
                    Ok(())
                } else {
                    check("hsync", got.hsync, want.hsync, self.mode.name)
                        .and_then(|_| check("vsync", got.vsync, want.vsync, self.mode.name))
                }
            });
            if let Err(e) = r {
                return Err(self.err(e));
            }
            if got.de {
                if x == 0 && y == 0 {
                    self.current.clear();
                    self.current_first = self.clock;
                }
                self.current.push([bytes[2], bytes[1], bytes[0]]);
                if x + 1 == self.mode.h_active
                    && y + 1 == self.mode.v_active
                    && self.current.len() as u64 == u64::from(self.mode.h_active * self.mode.v_active)
                {
                    self.frames.push(VideoFrame {
                        width: self.mode.h_active,
                        height: self.mode.v_active,
                        rgb: std::mem::take(&mut self.current),
                        first_clock: self.current_first,
                    });
                }
            }
        }
        self.clock += 1;
        Ok(())
    }

    /// Receive a whole capture; the frames it completed are in [`DviReceiver::frames`].
    pub fn receive_all(&mut self, words: &[LinkWord]) -> Result<(), String> {
        words.iter().try_for_each(|&w| self.receive(w))
    }
}

/// The text form of a capture (`--tmds FILE`): one line per pixel clock, `bbb ggg rrr`.
pub fn format_words(words: &[LinkWord]) -> String {
    let mut s = String::with_capacity(words.len() * 12);
    for w in words {
        s.push_str(&format!("{:03x} {:03x} {:03x}\n", w[0], w[1], w[2]));
    }
    s
}

/// Parse [`format_words`]' text; an error names the file and the line.
pub fn parse_words(file: &str, text: &str) -> Result<Vec<LinkWord>, String> {
    text.lines()
        .enumerate()
        .filter(|(_, l)| !l.trim().is_empty())
        .map(|(i, l)| {
            let f: Vec<&str> = l.split_whitespace().collect();
            let bad = || {
                format!(
                    "{file}:{}: `{}`: want three 10-bit hex words `bbb ggg rrr`",
                    i + 1,
                    l.trim()
                )
            };
            if f.len() != 3 {
                return Err(bad());
            }
            let mut w = [0u16; 3];
            for (o, t) in w.iter_mut().zip(&f) {
                *o = u16::from_str_radix(t, 16)
                    .ok()
                    .filter(|v| *v <= 0x3ff)
                    .ok_or_else(bad)?;
            }
            Ok(w)
        })
        .collect()
}
