//! The frame's front end ahead of the binner, **bin_setup**: primitives stream in one per beat
//! in submission order ([`PrimIn`]); for each it
//!
//! 1. assigns the primitive index (a 24-bit counter from 0, back to 0 after each frame end),
//! 2. writes the primitive's entry of the primitive table ([`crate::prim_table`]: 8 words at
//!    `index · 32`, [`crate::prim_table::encode`]) through a memory write port (`wr`,
//!    [`MemReq`]: offsets in the table's region, the frame top adds the base), and
//! 3. sends the binner the primitive's pixel box ([`BinBox`]) exactly when golden
//!    [`crate::binner::prim_bbox`] is `Some`: triangles that are neither zero-area nor culled
//!    and meet the viewport, points whose scan range meets it.
//!
//! A frame-end token on the input sends the binner's frame-end token after the frame's last
//! box and resets the index. For a frame's primitives the boxes are
//! `prims.enumerate().filter_map(prim_bbox)` then `end`, and the writes, replayed on any
//! memory, leave [`crate::prim_table::table`]'s bytes.
//!
//! ```text
//!              ┌── latch entry ─► word mux (w = 0..7) ─► wr  (MemReq, 8 writes)
//!   PrimIn ───►┤
//!   (idx++)    └── box pipeline ─────────────────────────► out (BinBox, after the 8th write)
//!                  triangle: d = v1−v0, v2−v0 → |d|, sign → 24×24 magnitude products
//!                            (12-bit halves) → compare → zero / cw / cull
//!                            min/max of v>>8 → clip to the viewport
//!                  point:    point_setup (rounded N or the AA square) → clip
//!   end ──────────────────────────────────────────────────► out (BinBox { end, prim = count })
//! ```
//!
//! The cycle model is [`BinSetupCycle`]; its rustdoc is the block's timing contract.
//! [`box_of`] is the box arithmetic the RTL does, bit for bit (signed area from magnitude
//! products, pixel coordinates by shifts), checked against golden's i64 setup in
//! `tests/bin_setup_cycle.rs`.

use crate::config::{Config, CullMode};
use crate::prim::PrimitiveFx;
use crate::prim_table::{encode, entry, PrimEntry, PRIM_WORDS};
use crate::setup::PixelBox;
use crate::streams::{BinBox, MemReq, PrimIn};

/// The [`PrimIn`] beat of primitive `p`, or one line naming the field that does not fit
/// ([`crate::prim_table::entry`]'s).
pub fn prim_in(p: &PrimitiveFx) -> Result<PrimIn, String> {
    let e = entry(p)?;
    Ok(PrimIn {
        kind: e.kind,
        v: e.v,
        size: e.size,
        aa: e.aa,
        colour: u32::from_le_bytes(e.colour),
        depth: e.depth,
        end: false,
    })
}

/// A frame's input beats: every primitive in order, then the frame-end token, whose `colour`
/// is the frame's background (packed RGBA8, the frame top's `background` register); the error
/// names the primitive and its field (`prims[i].…`).
pub fn frame_beats(prims: &[PrimitiveFx], background: crate::prim::Rgba) -> Result<Vec<PrimIn>, String> {
    let mut out = Vec::with_capacity(prims.len() + 1);
    for (i, p) in prims.iter().enumerate() {
        out.push(prim_in(p).map_err(|m| format!("prims[{i}].{m}"))?);
    }
    out.push(PrimIn {
        end: true,
        colour: u32::from_le_bytes(background),
        ..PrimIn::default()
    });
    Ok(out)
}

/// The table entry a beat writes (the fields a kind does not use are not written: a
/// triangle's `size`/`aa`, a point's `v[1]`, `v[2]`).
pub fn beat_entry(b: &PrimIn) -> PrimEntry {
    let point = b.kind & 1 == 1;
    PrimEntry {
        kind: b.kind & 1,
        v: if point { [b.v[0], [0, 0], [0, 0]] } else { b.v },
        size: if point { b.size & 0xff_ffff } else { 0 },
        aa: point && b.aa,
        colour: b.colour.to_le_bytes(),
        depth: b.depth & 0xff_ffff,
    }
}

/// The block's constants for a config.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct BinSetupParams {
    /// Viewport width and height − 1 (pixels).
    pub vmax: [i64; 2],
    pub cull: CullMode,
    /// `max_point_size`.
    pub max_point: i64,
    /// The value x1 takes when the range reaches past the right edge: `vmax[0]` (the planted
    /// bug of [`BinSetupCycle::plant_bug`] makes it W).
    #[doc(hidden)]
    pub clamp_x1: i64,
}

impl BinSetupParams {
    /// The constants of `cfg`, or the one line naming the field it does not support.
    pub fn try_new(cfg: &Config) -> Result<BinSetupParams, String> {
        cfg.validate().map_err(|e| format!("config.{}: {}", e.field, e.msg))?;
        for (i, &v) in cfg.viewport.iter().enumerate() {
            if v > 1 << 12 {
                return Err(format!(
                    "config.viewport[{i}]: {v} pixels do not fit the box's 12-bit coordinates"
                ));
            }
        }
        Ok(BinSetupParams {
            vmax: [cfg.viewport[0] as i64 - 1, cfg.viewport[1] as i64 - 1],
            cull: cfg.cull,
            max_point: cfg.max_point_size as i64,
            clamp_x1: cfg.viewport[0] as i64 - 1,
        })
    }
}

/// What the box pipeline decided about one primitive ([`box_of`]).
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum BoxVerdict {
    /// Boxed.
    Box(PixelBox),
    /// Triangle of zero area.
    ZeroArea,
    /// Triangle culled by its winding.
    Culled,
    /// Antialiased point of size 0.
    NoSize,
    /// The range misses the viewport.
    Offscreen,
}

/// Sign and zero of twice the signed area `(v1−v0)×(v2−v0)` as the RTL computes it: the four
/// 25-bit differences as sign and 24-bit magnitude, the two 48-bit magnitude products
/// `|d1x|·|d2y|` and `|d2x|·|d1y|` (each from four 12×12 partial products), compared as 24-bit
/// halves; the products' signs decide between "same sign" (area's sign is theirs) and
/// "opposite signs" (the larger magnitude wins, equal ⇒ zero). Returns (zero, clockwise).
pub fn area_sign(v: &[[i32; 2]; 3]) -> (bool, bool) {
    let d = |a: i32, b: i32| (a as i64) - (b as i64);
    let (d1x, d1y) = (d(v[1][0], v[0][0]), d(v[1][1], v[0][1]));
    let (d2x, d2y) = (d(v[2][0], v[0][0]), d(v[2][1], v[0][1]));
    // A = d1x·d2y, C = −d2x·d1y; area = A + C.
    let ma = d1x.unsigned_abs() * d2y.unsigned_abs();
    let mc = d2x.unsigned_abs() * d1y.unsigned_abs();
    let (za, zc) = (ma == 0, mc == 0);
    let na = ((d1x < 0) ^ (d2y < 0)) && !za;
    let nc = !((d2x < 0) ^ (d1y < 0)) && !zc;
    let (ha, la, hc, lc) = (ma >> 24, ma & 0xff_ffff, mc >> 24, mc & 0xff_ffff);
    let lt = ha < hc || (ha == hc && la < lc);
    let eq = ha == hc && la == lc;
    match (na, nc) {
        (false, false) => (za && zc, false),
        (true, true) => (false, true),
        // A < 0 ≤ C: area = mc − ma.
        (true, false) => (eq, !eq && !lt),
        // C < 0 ≤ A: area = ma − mc.
        (false, true) => (eq, lt),
    }
}

/// The unclipped pixel range `[lo_x, lo_y, hi_x, hi_y]` of a point beat (golden
/// [`crate::point_raster::point_setup`]'s range by shifts and adds: N = clamp((size + 128) >>
/// 8, 1, max), lo = frag − N/2, hi = frag + (N−1)/2 with frag = odd ? p >> 8 : (p + 128) >> 8;
/// AA: s = min(size, 256·max), [(2p − s) >> 9, (2p + s − 1) >> 9]), or `None` (AA, size 0).
pub fn point_range(pr: &BinSetupParams, b: &PrimIn) -> Option<[i64; 4]> {
    let size = (b.size & 0xff_ffff) as i64;
    let p = [b.v[0][0] as i64, b.v[0][1] as i64];
    if b.aa {
        let s = size.min(pr.max_point * 256);
        if s == 0 {
            return None;
        }
        Some([
            (2 * p[0] - s) >> 9,
            (2 * p[1] - s) >> 9,
            (2 * p[0] + (s - 1)) >> 9,
            (2 * p[1] + (s - 1)) >> 9,
        ])
    } else {
        let n17 = (size + 128) >> 8;
        let n17m1 = (size - 128) >> 8;
        let (n, nm1) = if n17 == 0 {
            (1, 0)
        } else if n17 > pr.max_point {
            (pr.max_point, pr.max_point - 1)
        } else {
            (n17, n17m1)
        };
        let odd = n & 1 == 1;
        let frag = |c: i64| if odd { c >> 8 } else { (c + 128) >> 8 };
        let (fx, fy) = (frag(p[0]), frag(p[1]));
        Some([fx - (n >> 1), fy - (n >> 1), fx + (nm1 >> 1), fy + (nm1 >> 1)])
    }
}

/// The box pipeline of one (non-end) beat, as the RTL computes it.
pub fn box_of(pr: &BinSetupParams, b: &PrimIn) -> BoxVerdict {
    let range = if b.kind & 1 == 1 {
        match point_range(pr, b) {
            Some(r) => r,
            None => return BoxVerdict::NoSize,
        }
    } else {
        let (zero, cw) = area_sign(&b.v);
        if zero {
            return BoxVerdict::ZeroArea;
        }
        if matches!((pr.cull, cw), (CullMode::Cw, true) | (CullMode::Ccw, false)) {
            return BoxVerdict::Culled;
        }
        let px = |i: usize, c: usize| (b.v[i][c] >> 8) as i64;
        let lo = |c| px(0, c).min(px(1, c)).min(px(2, c));
        let hi = |c| px(0, c).max(px(1, c)).max(px(2, c));
        [lo(0), lo(1), hi(0), hi(1)]
    };
    // Empty ⇔ hi < 0 or lo > W − 1 (lo ≤ hi always holds here).
    for c in 0..2 {
        if range[2 + c] < 0 || range[c] > pr.vmax[c] {
            return BoxVerdict::Offscreen;
        }
    }
    BoxVerdict::Box(PixelBox {
        x0: range[0].max(0) as u32,
        y0: range[1].max(0) as u32,
        x1: if range[2] > pr.vmax[0] { pr.clamp_x1 } else { range[2] } as u32,
        y1: range[3].min(pr.vmax[1]) as u32,
    })
}

/// The block's sequencer.
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq)]
pub enum BsSt {
    /// Waiting for a beat (`in_ready` high).
    #[default]
    Idle = 0,
    /// The table writes, word `w` in the `wr` register.
    Write = 1,
    /// A box (or the end token) in the output register.
    Box = 2,
}

/// Counters of [`BinSetupCycle`].
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq)]
pub struct BinSetupStats {
    /// Primitives accepted.
    pub prims: u64,
    /// Frame ends accepted.
    pub frames: u64,
    /// Boxes sent (ends not included).
    pub boxes: u64,
    pub zero_area: u64,
    pub culled: u64,
    pub no_size: u64,
    pub offscreen: u64,
    /// Table writes issued.
    pub writes: u64,
    /// Cycles with a write offered and not taken.
    pub wr_stalled: u64,
    /// Cycles with a box offered and not taken.
    pub out_stalled: u64,
}

/// The bin_setup block, cycle by cycle: [`PrimIn`] in; the table writes ([`MemReq`]) out on
/// `wr`, the boxes ([`BinBox`]) out on `out`.
///
/// # Timing contract
///
/// The one statement of the `bin_setup` block's timing; the RTL is held to it on every port
/// and cycle (`hw/tests/bin_setup.rs`, `cosim/tests/bin_setup.rs`).
///
/// * **Registers.** Sequencer `st` ([`BsSt`]), word counter `w` (0..7), primitive counter
///   `idx` (24 bits, wraps), the latched entry, the box pipeline, and two output registers:
///   `wr` (`wr_valid` + [`MemReq`]) and `out` (`out_valid` + [`BinBox`]). Payloads change only
///   when loaded (below) and are 0 after `new`/flush.
/// * **Handshake.** `in_ready` = `st = Idle` ∨ (`st = Box` ∧ `out_ready`): the only
///   combinational path (a beat is taken at the edge the box leaves).
/// * **Primitive** accepted at edge c (index i = `idx`, then `idx` + 1): `wr` ← word 0
///   (`addr` = 32·i, `write` 1, `be` 0xf, `wdata` = [`encode`]'s word), `st` ← Write. Each
///   `wr` handshake loads the next word (addr + 4); the handshake of word 7 clears `wr_valid`
///   and, when the primitive has a box ([`box_of`]), loads `out` ← {prim i, box, end 0} with
///   `out_valid` ← 1, `st` ← Box, else `st` ← Idle. **Order:** all 8 writes of a primitive are
///   taken before its box is offered, so a box (or the end token) on `out` means every
///   earlier table write is done.
/// * **Frame end** accepted at edge c: `out` ← {prim = `idx` (the frame's primitive count mod
///   2^24), x0..y1 0, end 1}, `out_valid` ← 1, `idx` ← 0, `st` ← Box; no write.
/// * **Box** state: an `out` handshake clears `out_valid` (payload kept) and `st` ← Idle,
///   unless a beat is taken at the same edge.
/// * **Latency / interval** without back-pressure: word k on `wr` in cycle c+1+k, box in
///   cycle c+9, next primitive taken at edge c+9: initiation interval 9 cycles (with or without
///   a box); end token on `out` in cycle c+1. Stalls on either output only delay: nothing is
///   dropped or reordered. The box arithmetic needs 7 pipeline edges after the accept and the
///   8th write's handshake is at edge c+8 at the earliest.
/// * **Flush** (synchronous): every register to `new`'s (idle, both outputs empty, payloads
///   0, `idx` 0).
///
/// ```text
///   in ─► [Idle] ─ prim ─► Write w=0..7 (wr) ─ w=7 taken ─┬─ box ─► [Box] (out) ─► Idle
///            │                                            └─ none ─► Idle
///            └─ end ─► [Box] (out: end, prim = count), idx ← 0
/// ```
#[derive(Clone, Debug)]
pub struct BinSetupCycle {
    pr: BinSetupParams,
    st: BsSt,
    w: u32,
    idx: u32,
    pidx: u32,
    words: [u32; PRIM_WORDS as usize],
    verdict: BoxVerdict,
    wr_valid: bool,
    wr: MemReq,
    out_valid: bool,
    out: BinBox,
    stats: BinSetupStats,
    bug: bool,
}

crate::block_signature! {
    /// bin_setup's ports: primitives in, boxes out, and the primitive table's writes (`wr`, a
    /// memory port's write side: no responses).
    pub BinSetup "bin_setup" {
        takes { inp: PrimIn }
        sends { out: BinBox, wr: MemReq }
    }
}

impl crate::cycle::BlockModel for BinSetupCycle {
    type Sig = BinSetupPorts;
    fn outputs(&self, i: &BinSetupIn) -> BinSetupOut {
        let (ov, out) = self.out();
        let (wv, wr) = self.wr();
        BinSetupOut {
            inp_ready: self.in_ready(i.out_ready),
            out: crate::cycle::Offer::new(ov, out),
            wr: crate::cycle::Offer::new(wv, wr),
        }
    }
    fn clock(&mut self, i: &BinSetupIn) {
        BinSetupCycle::clock(self, i)
    }
}

impl BinSetupCycle {
    /// The block for `cfg`, or the one line naming the field it does not support.
    pub fn try_new(cfg: &Config) -> Result<BinSetupCycle, String> {
        Ok(Self::with_params(BinSetupParams::try_new(cfg)?))
    }

    /// The block for `cfg`.
    ///
    /// # Panics
    /// With [`BinSetupCycle::try_new`]'s message.
    pub fn new(cfg: &Config) -> BinSetupCycle {
        Self::try_new(cfg).unwrap_or_else(|e| panic!("{e}"))
    }

    /// Plant the RTL mutant's bug (`cosim` BLOCK_MUTANTS): a box that reaches past the
    /// viewport's right edge gets x1 = W instead of W − 1 (the clamp constant one too big).
    #[doc(hidden)]
    pub fn plant_bug(&mut self) {
        self.bug = true;
    }

    /// Counters so far.
    pub fn stats(&self) -> BinSetupStats {
        self.stats
    }
    /// The sequencer's state.
    pub fn state(&self) -> BsSt {
        self.st
    }
    /// The primitive counter.
    pub fn index(&self) -> u32 {
        self.idx
    }
    /// (out_valid, box): registered.
    pub fn out(&self) -> (bool, BinBox) {
        (self.out_valid, self.out)
    }
    /// (wr_valid, write): registered.
    pub fn wr(&self) -> (bool, MemReq) {
        (self.wr_valid, self.wr)
    }
    /// Ready for a beat, given the box port's ready.
    pub fn in_ready(&self, out_ready: bool) -> bool {
        self.st == BsSt::Idle || (self.st == BsSt::Box && out_ready)
    }

    fn word(&self, w: u32) -> MemReq {
        MemReq {
            addr: (self.pidx << 5) + 4 * w,
            write: true,
            wdata: self.words[w as usize],
            be: 0xf,
        }
    }

    /// One rising edge.
    pub fn clock(&mut self, i: &BinSetupIn) {
        let (in_valid, inp, out_ready, wr_ready, flush) =
            (i.inp.valid, &i.inp.payload, i.out_ready, i.wr_ready, i.flush);
        if flush {
            *self = BinSetupCycle {
                stats: self.stats,
                bug: self.bug,
                ..Self::with_params(self.pr)
            };
            return;
        }
        let take = in_valid && self.in_ready(out_ready);
        if self.wr_valid && !wr_ready {
            self.stats.wr_stalled += 1;
        }
        if self.out_valid && !out_ready {
            self.stats.out_stalled += 1;
        }
        match self.st {
            BsSt::Idle => {}
            BsSt::Write => {
                if wr_ready {
                    self.stats.writes += 1;
                    if self.w + 1 == PRIM_WORDS {
                        self.wr_valid = false;
                        match self.verdict {
                            BoxVerdict::Box(b) => {
                                self.stats.boxes += 1;
                                self.out_valid = true;
                                self.out = BinBox {
                                    prim: self.pidx,
                                    x0: b.x0,
                                    y0: b.y0,
                                    x1: b.x1,
                                    y1: b.y1,
                                    end: false,
                                };
                                self.st = BsSt::Box;
                            }
                            v => {
                                match v {
                                    BoxVerdict::ZeroArea => self.stats.zero_area += 1,
                                    BoxVerdict::Culled => self.stats.culled += 1,
                                    BoxVerdict::NoSize => self.stats.no_size += 1,
                                    _ => self.stats.offscreen += 1,
                                }
                                self.st = BsSt::Idle;
                            }
                        }
                    } else {
                        self.w += 1;
                        self.wr = self.word(self.w);
                    }
                }
            }
            BsSt::Box => {
                if out_ready {
                    self.out_valid = false;
                    self.st = BsSt::Idle;
                }
            }
        }
        if take {
            if inp.end {
                self.stats.frames += 1;
                self.out_valid = true;
                self.out = BinBox {
                    prim: self.idx,
                    end: true,
                    ..BinBox::default()
                };
                self.idx = 0;
                self.st = BsSt::Box;
            } else {
                debug_assert!(inp.kind < 2 && inp.size < 1 << 24 && inp.depth < 1 << 24);
                self.stats.prims += 1;
                self.pidx = self.idx;
                self.idx = (self.idx + 1) & 0xff_ffff;
                self.words = encode(&beat_entry(inp));
                let mut pr = self.pr;
                if self.bug {
                    pr.clamp_x1 += 1;
                }
                self.verdict = box_of(&pr, inp);
                self.w = 0;
                self.wr_valid = true;
                self.wr = self.word(0);
                self.st = BsSt::Write;
            }
        }
    }

    fn with_params(pr: BinSetupParams) -> BinSetupCycle {
        BinSetupCycle {
            pr,
            st: BsSt::Idle,
            w: 0,
            idx: 0,
            pidx: 0,
            words: [0; PRIM_WORDS as usize],
            verdict: BoxVerdict::Offscreen,
            wr_valid: false,
            wr: MemReq::default(),
            out_valid: false,
            out: BinBox::default(),
            stats: BinSetupStats::default(),
            bug: false,
        }
    }
}
