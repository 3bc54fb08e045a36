//! Destination fetch (seed 000's output merger, read side): for every valid colour slot of a
//! pixel, the slot's `dst` next to its `src`, so that the blender can blend. With
//! `framebuffer: keep` the block reads the slot's current framebuffer word from memory; with
//! `framebuffer: clear` (the default, a fast clear) `dst` is the frame's background, an input
//! level, and the block reads nothing.
//!
//! ```text
//!   keep:  PixSlots ─► hold ─► read issue ─► MemReq (read, addr 4·pos) ─► memory
//!                         └──► meta FIFO (pos, src, close) ──┐
//!                                              MemResp ─► assembly lanes ─► BlendFrag
//!   clear: PixSlots ─► hold ─► (pos, src, background) ─────► assembly lanes ─► BlendFrag
//! ```
//!
//! The transaction rule it implements is golden's (`pipeline.rs`, `PixelSide::shade`): for a
//! pixel (x, y) and every valid slot j < C, in slot order, one blend sample
//! `{ pos = (y·W + x)·C + j, src = colour[j], dst = framebuffer slot pos, state = 0 }`, the
//! framebuffer slot being the word at [`crate::output_merger::slot_addr`]`(pos)`.
//! [`DstFetchCycle`] packs those samples, in that order, into fragments of up to K lanes.

use crate::config::{Config, FramebufferMode, MAX_VIEWPORT};
use crate::streams::{BlendFrag, MemReq, PixSlots, LANES};
use std::collections::VecDeque;

/// Meta FIFO depth: reads issued and not yet answered.
pub const META_DEPTH: usize = 4;

/// Counters of [`DstFetchCycle`].
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq)]
pub struct DstFetchStats {
    /// Pixels accepted (empty ones included).
    pub pixels: u64,
    /// Reads issued (loaded into the read output register; none with `framebuffer: clear`).
    pub reads: u64,
    /// Blend samples put into the assembly (one per valid slot).
    pub samples: u64,
    /// Fragments loaded into the output register.
    pub frags: u64,
}

/// The parameters: W, c = log2 C, K, and whether `dst` is read (`framebuffer: keep`).
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
struct Geom {
    w: u32,
    c: u32,
    k: u32,
    keep: bool,
}

fn geom(cfg: &Config) -> Result<Geom, String> {
    let w = cfg.viewport[0];
    if !(1..=MAX_VIEWPORT).contains(&w) {
        return Err(format!(
            "config.viewport: width {w}; dst_fetch takes 12-bit pixel coordinates, width 1..={MAX_VIEWPORT}"
        ));
    }
    let cc = cfg.colours_per_pixel;
    if !(cc.is_power_of_two() && cc <= 16) {
        return Err(format!(
            "config.colours_per_pixel: {cc}; dst_fetch needs a power of two up to 16"
        ));
    }
    if cfg.blend_pool == 0 {
        return Err("config.blend_pool: 0; dst_fetch needs at least one lane per fragment".into());
    }
    Ok(Geom {
        w,
        c: cc.trailing_zeros(),
        k: cfg.blend_pool.min(LANES as u32),
        keep: cfg.framebuffer == FramebufferMode::Keep,
    })
}

/// One meta FIFO entry: a read issued and not yet answered.
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq)]
struct Meta {
    pos: u32,
    src: u32,
    close: bool,
}

/// The destination fetch, cycle by cycle: pixels ([`PixSlots`]) in, fragments ([`BlendFrag`])
/// of up to K samples out to the blender. With `framebuffer: keep`, one framebuffer read
/// ([`MemReq`]) per valid slot out on the read port and the answers ([`MemResp`]) in; with
/// `framebuffer: clear`, each sample's `dst` is the `background` input and the read port stays
/// idle.
///
/// # Timing contract
///
/// The one statement of the `dst_fetch` block's timing; the RTL is held to it on every port
/// and cycle (`hw/tests/dst_fetch.rs`). W = `viewport[0]`, C = `colours_per_pixel` (c =
/// log2 C, Cmask = (1 << C) − 1), K = min(`blend_pool`, 4) lanes per fragment (the blender
/// ignores lanes ≥ P, so a fragment never has more than P lanes).
///
/// The rules below up to **Payload** are those of `framebuffer: keep`; **Clear** then says
/// what `framebuffer: clear` changes.
///
/// * **Registers.** `hold`: the remaining slot mask `hmask` (16 bits), `hyw` = y·W, `hx` = x
///   and the 16 colours; the read output register (`rd_valid`, one [`MemReq`]); the meta FIFO
///   of up to [`META_DEPTH`] = 4 entries (pos, src, close), oldest first, one per read issued
///   and not yet answered; the chunk lane counter n (0..K−1); the assembly register (`an`
///   lanes filled, 0..4, per lane pos/src/dst, `adone`); the output register (`out_valid`, one
///   [`BlendFrag`]).
/// * **Issue.** `adv_rd` = ¬rd_valid ∨ rd_ready; `issue` = adv_rd ∧ hmask ≠ 0 ∧ (meta
///   entries, as registered) < 4. j = the lowest set bit of hmask, pos = ((hyw + hx) << c) | j;
///   `close` = (n = K−1) ∨ (j is hold's last slot ∧ ¬(in_valid ∧ (inp.slot_valid & Cmask) ≠ 0)):
///   a fragment closes when it has K lanes, or when the pixel ends and no pixel with a valid
///   slot follows at once (it then continues over the next pixel). On `issue`: rd ← {addr =
///   4·pos, write 0, wdata 0, be 0}, rd_valid ← 1; push (pos, colour[j], close); clear bit j of
///   hmask; n ← close ? 0 : n + 1. With adv_rd and no issue: rd_valid ← 0, the payload keeps
///   its value. Without adv_rd nothing of this moves.
/// * **Handshake.** `in_ready` = hmask = 0 ∨ (popcount(hmask) = 1 ∧ issue) (combinational in
///   `rd_ready`, not in `out_ready`). On accept: hmask ← slot_valid & Cmask, hyw ← y·W, hx ← x,
///   colours ← colour (the load wins over the bit clear of the same edge). A pixel with no
///   valid slot is accepted and issues nothing.
/// * **Responses** (in request order). `rsp_ready` = ¬adone (registered only). On rsp_valid ∧
///   rsp_ready: the meta head goes to assembly lane `an` with dst = rdata; an += 1; pop; if its
///   close bit is set, adone ← 1.
/// * **Output.** `adv_out` = ¬out_valid ∨ out_ready. adone ∧ adv_out: out ← {lane_valid =
///   (1 << an) − 1, pos/src/dst of the lanes < an, 0 in the lanes ≥ an, state 0}, out_valid ← 1,
///   the assembly register cleared (an ← 0, adone ← 0, lane registers 0). adv_out without
///   adone: out_valid ← 0, the payload keeps its value.
/// * **Payload when not valid.** The last one loaded (0 after `new` or a flush), for `rd` and
///   `out` alike.
/// * **Clear** (`framebuffer: clear`). No read: `rd_valid` stays 0 (its payload 0), the meta
///   FIFO stays empty and `rsp_ready` = 0 (a response offered is not taken). `issue` =
///   hmask ≠ 0 ∧ (¬adone ∨ ¬out_valid), a function of registers: the assembly is free, or it
///   is handed to an empty output register at this very edge. On `issue`, with j, pos and
///   `close` as above, the sample (pos, colour[j], dst = `background` as sampled at this edge)
///   goes straight into assembly lane `an` (lane 0 when the assembly is handed over at this
///   edge), an += 1, adone ← close; bit j of hmask is cleared and n moves as above. `in_ready`
///   and the accept rule are as above with this `issue`. So a slot goes into a fragment in
///   the cycle it is issued, and at K ≥ 2 the block hands out one sample per cycle without
///   back-pressure (a fragment of K lanes every K cycles).
/// * **Idle.** `idle` = hmask = 0 ∧ ¬rd_valid ∧ meta FIFO empty ∧ n = 0 ∧ an = 0 ∧ ¬adone ∧
///   ¬out_valid ([`DstFetchCycle::idle`]): no pixel held, no read outstanding, nothing
///   assembled or on the output.
/// * **Flush.** Every register returns to the state of [`DstFetchCycle::new`] (the reads in
///   flight are forgotten: flush the memory's response queue with it).
/// * **Latency** (memory of latency 1 and depth ≥ 2, grant and `out_ready` always high,
///   measured in `tests/dst_fetch_cycle.rs`). A pixel accepted at edge t into an empty block
///   issues its first read at edge t + 1 (on `rd` from cycle t + 2), the memory takes it at
///   edge t + 2, its answer enters the assembly at edge t + 3; a fragment whose last read is
///   issued at edge e is on `out` from cycle e + 4.
/// * **Throughput** (same conditions). One read per cycle while the meta FIFO has room; the
///   response queue stops for one cycle per fragment (the cycle in which `adone` hands the
///   assembly to the output register), so the block settles at K samples per K + 1 cycles: a
///   fragment of K lanes every K + 1 cycles, with the meta FIFO full. A pixel of m valid slots
///   is accepted in the cycle its last read issues (one pixel per cycle at m = 1).
///
/// The fragments' lanes, concatenated, are golden's blend samples of the accepted pixels in
/// order (`tests/dst_fetch_cycle.rs`); every fragment has 1..=K lanes, contiguous from lane 0.
#[derive(Clone, Debug, PartialEq)]
pub struct DstFetchCycle {
    g: Geom,
    hmask: u16,
    hyw: u32,
    hx: u32,
    hcol: [u32; 16],
    rd_valid: bool,
    rd: MemReq,
    meta: VecDeque<Meta>,
    n: u32,
    an: usize,
    apos: [u32; LANES],
    asrc: [u32; LANES],
    adst: [u32; LANES],
    adone: bool,
    out_valid: bool,
    out: BlendFrag,
    stats: DstFetchStats,
}

crate::block_signature! {
    /// dst_fetch's ports: pixels in, fragments out, and the memory port's read side.
    pub DstFetch "dst_fetch" {
        takes { inp: PixSlots, rsp: MemResp }
        sends { out: BlendFrag, rd: MemReq }
        ins { background: u32 }
        outs { idle: bool }
    }
}

impl crate::cycle::BlockModel for DstFetchCycle {
    type Sig = DstFetchPorts;
    fn outputs(&self, i: &DstFetchIn) -> DstFetchOut {
        let (ov, out) = self.out();
        let (rv, rd) = self.rd();
        DstFetchOut {
            inp_ready: self.in_ready(i.rd_ready),
            rsp_ready: self.rsp_ready(),
            out: crate::cycle::Offer::new(ov, out),
            rd: crate::cycle::Offer::new(rv, rd),
            idle: self.idle(),
        }
    }
    fn clock(&mut self, i: &DstFetchIn) {
        DstFetchCycle::clock(self, i)
    }
}

impl DstFetchCycle {
    /// The block for `cfg`, or the one line naming the field it does not support.
    pub fn try_new(cfg: &Config) -> Result<DstFetchCycle, String> {
        Ok(Self::with_geom(geom(cfg)?))
    }

    fn with_geom(g: Geom) -> DstFetchCycle {
        DstFetchCycle {
            g,
            hmask: 0,
            hyw: 0,
            hx: 0,
            hcol: [0; 16],
            rd_valid: false,
            rd: MemReq::default(),
            meta: VecDeque::with_capacity(META_DEPTH),
            n: 0,
            an: 0,
            apos: [0; LANES],
            asrc: [0; LANES],
            adst: [0; LANES],
            adone: false,
            out_valid: false,
            out: BlendFrag::default(),
            stats: DstFetchStats::default(),
        }
    }

    /// The block for `cfg`.
    ///
    /// # Panics
    /// With [`DstFetchCycle::try_new`]'s message.
    pub fn new(cfg: &Config) -> DstFetchCycle {
        Self::try_new(cfg).unwrap_or_else(|e| panic!("{e}"))
    }

    /// K, the most lanes of a fragment.
    pub fn lanes(&self) -> usize {
        self.g.k as usize
    }

    /// Meta FIFO entries (reads issued and not answered).
    pub fn meta_len(&self) -> usize {
        self.meta.len()
    }

    /// (out_valid, fragment): registered.
    pub fn out(&self) -> (bool, BlendFrag) {
        (self.out_valid, self.out)
    }

    /// (rd_valid, read request): registered.
    pub fn rd(&self) -> (bool, MemReq) {
        (self.rd_valid, self.rd)
    }

    /// Ready for a read response: registered only (never with `framebuffer: clear`).
    pub fn rsp_ready(&self) -> bool {
        self.g.keep && !self.adone
    }

    fn cmask(&self) -> u16 {
        ((1u32 << (1u32 << self.g.c)) - 1) as u16
    }

    fn issue(&self, rd_ready: bool) -> bool {
        if self.g.keep {
            (!self.rd_valid || rd_ready) && self.hmask != 0 && self.meta.len() < META_DEPTH
        } else {
            self.hmask != 0 && (!self.adone || !self.out_valid)
        }
    }

    /// Ready for a pixel, given the read port's ready.
    pub fn in_ready(&self, rd_ready: bool) -> bool {
        self.hmask == 0 || (self.hmask.count_ones() == 1 && self.issue(rd_ready))
    }

    /// Counters so far.
    pub fn stats(&self) -> DstFetchStats {
        self.stats
    }

    /// Nothing held: no slot left in `hold`, no read on the port or unanswered, no lane
    /// counted or assembled, no fragment on the output (registers only).
    pub fn idle(&self) -> bool {
        self.hmask == 0
            && !self.rd_valid
            && self.meta.is_empty()
            && self.n == 0
            && self.an == 0
            && !self.adone
            && !self.out_valid
    }

    /// One rising edge.
    pub fn clock(&mut self, i: &DstFetchIn) {
        if i.flush {
            *self = Self::with_geom(self.g);
            return;
        }
        let cmask = self.cmask();
        let adv_rd = !self.rd_valid || i.rd_ready;
        let issue = self.issue(i.rd_ready);
        let take = i.inp.valid && self.in_ready(i.rd_ready);
        let adv_out = !self.out_valid || i.out_ready;
        let rsp_take = i.rsp.valid && self.rsp_ready();

        // Output register (from the assembly as registered).
        if adv_out {
            if self.adone {
                let an = self.an;
                let mut f = BlendFrag {
                    lane_valid: ((1u32 << an) - 1) as u8,
                    ..Default::default()
                };
                f.pos = self.apos;
                f.src = self.asrc;
                f.dst = self.adst;
                self.out = f;
                self.out_valid = true;
                self.an = 0;
                self.adone = false;
                self.apos = [0; LANES];
                self.asrc = [0; LANES];
                self.adst = [0; LANES];
                self.stats.frags += 1;
            } else {
                self.out_valid = false;
            }
        }
        // Response into the assembly (never in the same edge as the hand-over: rsp_ready = ¬adone).
        if rsp_take {
            let m = self.meta.pop_front().expect("a response answers an issued read");
            debug_assert!(self.an < LANES);
            self.apos[self.an] = m.pos;
            self.asrc[self.an] = m.src;
            self.adst[self.an] = i.rsp.payload.rdata;
            self.an += 1;
            self.stats.samples += 1;
            if m.close {
                self.adone = true;
            }
        }
        // Issue: the lowest slot left, as a read (keep; the meta count as registered: the pop
        // above does not make room) or straight into the assembly (clear; emptied above if it
        // was handed over at this edge).
        if issue {
            let j = self.hmask.trailing_zeros();
            let pos = ((self.hyw + self.hx) << self.g.c) | j;
            let src = self.hcol[j as usize];
            let last = self.hmask.count_ones() == 1;
            let next = i.inp.valid && (i.inp.payload.slot_valid & cmask) != 0;
            let close = self.n == self.g.k - 1 || (last && !next);
            self.hmask &= !(1 << j);
            self.n = if close { 0 } else { self.n + 1 };
            if self.g.keep {
                self.rd = MemReq {
                    addr: crate::output_merger::slot_addr(pos),
                    write: false,
                    wdata: 0,
                    be: 0,
                };
                self.rd_valid = true;
                self.meta.push_back(Meta { pos, src, close });
                self.stats.reads += 1;
            } else {
                debug_assert!(self.an < LANES && !self.adone);
                self.apos[self.an] = pos;
                self.asrc[self.an] = src;
                self.adst[self.an] = i.background;
                self.an += 1;
                self.adone = close;
                self.stats.samples += 1;
            }
        } else if self.g.keep && adv_rd {
            self.rd_valid = false;
        }
        if take {
            self.hmask = i.inp.payload.slot_valid & cmask;
            self.hyw = i.inp.payload.y * self.g.w;
            self.hx = i.inp.payload.x;
            self.hcol = i.inp.payload.colour;
            self.stats.pixels += 1;
        }
    }
}

/// Golden's blend samples of one pixel (`pipeline.rs`, `PixelSide::shade`) as fragment lanes:
/// (pos, src, dst) per valid slot j < C in slot order, dst read through `dst(pos)`.
pub fn pixel_samples(cfg: &Config, p: &PixSlots, dst: impl Fn(u32) -> u32) -> Vec<(u32, u32, u32)> {
    let c = cfg.colours_per_pixel;
    (0..c)
        .filter(|j| p.slot_valid >> j & 1 == 1)
        .map(|j| {
            let pos = (p.y * cfg.viewport[0] + p.x) * c + j;
            (pos, p.colour[j as usize], dst(pos))
        })
        .collect()
}
