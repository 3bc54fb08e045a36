//! Seed 001 (claims 1, 4, 5): the **pixel-info writer** (`pixel_info_write`), cycle by cycle:
//! the hardware form of [`crate::pixel_info::PixelInfoStore::push`] for every quad the raster
//! core emits, then [`crate::pixel_info::PixelInfoStore::finish_raster`] on the frame-end
//! token. The list writing is [`ListWriterCycle`] with records of `W = R / 4` words
//! (`R = record_bytes(cfg.msaa)`: 12..20 bytes); this model adds the lane walk (one record per
//! valid lane of a beat, lane order), the second-tile index and the record encoding.

use crate::config::Config;
use crate::cycle::CycleModel;
use crate::list_writer::{AfterAppend, ListEmitterCycle, ListOwner, ListSt, ListWriterCycle};
use crate::pixel_info::{record_bytes, StoreError, DEPTH_MAX};
use crate::streams::{BinWrite, PiBeat, LANES};

/// State of [`PixelInfoWriteCycle`]'s sequencer: the list emitter's [`ListSt`] (the RTL's
/// `st` register, the same encoding), whose `Own` state is the writer's `Pick`: take the
/// lowest remaining lane (its list index `li` and its tile-relative quad position and mask).
pub type PiwSt = ListSt;

/// Counters of [`PixelInfoWriteCycle`].
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq)]
pub struct PixelInfoWriteStats {
    /// Beats accepted (frame ends not included).
    pub beats: u64,
    /// Frame ends accepted.
    pub frames: u64,
    /// Records appended (valid lanes).
    pub quads: u64,
    /// Memory writes issued.
    pub writes: u64,
    /// Cycles with a write on the output not taken.
    pub stalled: u64,
}

/// The words of the pixel-info record of one quad (golden's `encode`, in 32-bit words):
/// `depth | frame << 24`, `prim`, `qx | qy << 8 | mask[15:0] << 16`, then `mask[16 + 32k ..]`.
pub fn record_words(depth: u32, frame: u8, prim: u32, qx: u32, qy: u32, mask: u64, words: u32) -> [u32; 5] {
    let mut w = [0u32; 5];
    w[0] = depth | (frame as u32) << 24;
    w[1] = prim;
    w[2] = qx | qy << 8 | ((mask & 0xffff) as u32) << 16;
    for (k, v) in w.iter_mut().enumerate().take(words as usize).skip(3) {
        *v = (mask >> (16 + 32 * (k - 3))) as u32;
    }
    w
}

/// The pixel-info writer, cycle by cycle: beats of quads ([`PiBeat`]) in, the writes of
/// [`crate::pixel_info::PixelInfoStore`]'s memory ([`BinWrite`]: a
/// [`crate::streams::MemReq`] plus `last`) out.
///
/// # Timing contract
///
/// The one statement of the `pixel_info_write` block's timing; the RTL is held to it on every
/// port and cycle (`hw/tests/pixel_info_write.rs`, `cosim/tests/pixel_info_write.rs`).
///
/// The advance, the handshake, the append's and the finish pass's cycles, the RAM hazard and
/// the flush are the list emitter's ([`ListEmitterCycle`]'s contract, shared with the
/// binner); the writer adds:
///
/// * **Registers.** The beat (`prim`, `depth`, `frame`, the remaining lanes `lanes` (4 bits),
///   `qx`/`qy`/`mask` per lane) and the picked quad (list index `li`, tile-relative
///   `rqx`/`rqy`, `rmask`), beside the emitter's (`st`, [`PiwSt`]; the finish list; the list
///   writer's; the output register). State RAM: per second tile `{head, tail, count, off}`.
/// * **Per beat** (accepted at edge c): a beat with `lane_valid` = 0 writes nothing and the
///   block is ready again in cycle c+1. Otherwise per valid lane, lowest first: `Own` = Pick
///   (list `li = sty·tiles_x + stx`, `stx = 2qx / stw`, `sty = 2qy / sth`; record
///   `qx, qy` relative to the second tile), `Read`, `Latch`, then one `Emit` cycle per write:
///   the link (the full tail block's `next` = the new block's index) when the list's tail
///   block is full, then the record's W words in order (`depth | frame << 24`, `prim`,
///   `qx | qy << 8 | mask[15:0] << 16`, `mask[47:16]`, `mask[63:48]`). After a quad's
///   append the emitter goes to `Own` for the next valid lane, or to `Idle` after the last.
///   Without back-pressure the first write is on the output from cycle c+5; a quad costs
///   `3 + W` cycles (`4 + W` with a link); the next beat is taken in the cycle after the last
///   write was loaded: `1 + Σ (3 + W + link)` cycles per beat.
/// * **Frame end** (`end` accepted): the emitter's finish pass; frames follow back to back,
///   each with `PixelInfoStore`'s bytes at the same addresses.
/// * **Memory bytes.** The writes of a frame, replayed in order on any memory, leave
///   `PixelInfoStore`'s bytes after the same pushes and `finish_raster` (every address once),
///   and `4 · writes = PixelInfoStats::bytes_written`: `tests/pixel_info_write_cycle.rs`.
/// * **Addresses** are 32-bit byte offsets in the pixel-info region (golden's layout at
///   offset 0; a frame top adds the region base). The bump allocator's byte address is not
///   checked: a frame whose pixel info passes 2^32 bytes (golden's block indices reach
///   256 GiB) wraps modulo 2^32 and overwrites the table: the frame top must keep a frame's
///   pixel info below 4 GiB ([`crate::pixel_info::min_memory_bytes`]); the model wraps the
///   same way.
///
/// ```text
///   beat ─► [Idle] ─► Pick ─► Read ─► Latch ─► Emit: [link] w0 .. w(W−1) ─┬─► out (BinWrite)
///   (lanes)    ▲      li, rqx   RAM[li]   cur    write back RAM[li]       │
///              │      rqy,rmask   ▲──────────── next valid lane ──────────┘
///              └── no lane left / last list
///   end ─► FRead ─► FLatch ─► FEmit: [next=NIL] head count (last on list L−1)
/// ```
#[derive(Clone, Debug)]
pub struct PixelInfoWriteCycle {
    tiles_x: u32,
    /// `log2(stw) − 1`, `log2(sth) − 1`: quad coordinate → second tile.
    sx: u32,
    sy: u32,
    words: u32,
    emitter: ListEmitterCycle,
    prim: u32,
    depth: u32,
    frame: u8,
    lanes: u8,
    qx: [u32; LANES],
    qy: [u32; LANES],
    mask: [u64; LANES],
    li: u32,
    rec: [u32; 5],
    stats: PixelInfoWriteStats,
}

impl PixelInfoWriteCycle {
    /// The writer of `cfg` (lists of `PixelInfoStore::new`, blocks of
    /// `cfg.pixel_info_block_bytes`, records of `record_bytes(cfg.msaa)`).
    pub fn new(cfg: &Config) -> Result<Self, StoreError> {
        cfg.validate()?;
        let [w, h] = cfg.second_tile;
        let tiles = [cfg.viewport[0].div_ceil(w), cfg.viewport[1].div_ceil(h)];
        let words = record_bytes(cfg.msaa) / 4;
        let lw = ListWriterCycle::new(
            tiles[0] * tiles[1],
            cfg.pixel_info_block_bytes,
            words,
            "pixel_info_block_bytes",
        )?;
        Ok(PixelInfoWriteCycle {
            tiles_x: tiles[0],
            sx: w.trailing_zeros() - 1,
            sy: h.trailing_zeros() - 1,
            words,
            emitter: ListEmitterCycle::new(lw),
            prim: 0,
            depth: 0,
            frame: 0,
            lanes: 0,
            qx: [0; LANES],
            qy: [0; LANES],
            mask: [0; LANES],
            li: 0,
            rec: [0; 5],
            stats: PixelInfoWriteStats::default(),
        })
    }

    /// Counters so far.
    pub fn stats(&self) -> PixelInfoWriteStats {
        let (writes, stalled) = self.emitter.counts();
        PixelInfoWriteStats {
            writes,
            stalled,
            ..self.stats
        }
    }
    /// The sequencer's state.
    pub fn state(&self) -> PiwSt {
        self.emitter.state()
    }
    /// Words per record (W).
    pub fn words(&self) -> u32 {
        self.words
    }
    /// The list-writing core.
    pub fn list_writer(&self) -> &ListWriterCycle {
        self.emitter.list_writer()
    }
}

impl CycleModel for PixelInfoWriteCycle {
    type In = PiBeat;
    type Out = BinWrite;

    fn out(&self) -> (bool, BinWrite) {
        self.emitter.out()
    }

    fn in_ready(&self, _out_ready: bool) -> bool {
        self.emitter.state() == ListSt::Idle
    }

    fn clock(&mut self, in_valid: bool, inp: &PiBeat, out_ready: bool, flush: bool) {
        if flush {
            self.emitter.reset_regs();
            (self.prim, self.depth, self.frame, self.lanes) = (0, 0, 0, 0);
            (self.qx, self.qy, self.mask) = ([0; LANES], [0; LANES], [0; LANES]);
            (self.li, self.rec) = (0, [0; 5]);
            return;
        }
        let st = self.emitter.state();
        let take = st == ListSt::Idle && in_valid;
        let lanes = inp.beat.lane_valid & 0xf;
        let owner = ListOwner {
            start: take && !inp.end && lanes != 0,
            finish: take && inp.end,
            list: self.li,
            rec: &self.rec[..self.words as usize],
            after: if self.lanes != 0 {
                AfterAppend::Own
            } else {
                AfterAppend::Idle
            },
        };
        if self.emitter.clock(out_ready, owner) {
            self.stats.quads += 1;
        }
        if take && inp.end {
            self.stats.frames += 1;
        } else if take {
            let b = &inp.beat;
            debug_assert!(inp.depth <= DEPTH_MAX && b.prim < 1 << 24 && b.lane_valid < 16);
            self.stats.beats += 1;
            self.prim = b.prim;
            self.depth = inp.depth;
            self.frame = inp.frame;
            self.lanes = lanes;
            for l in 0..LANES {
                debug_assert!(b.qx[l] < 1 << 12 && b.qy[l] < 1 << 12);
                self.qx[l] = b.qx[l];
                self.qy[l] = b.qy[l];
                self.mask[l] = b.mask[l];
            }
        }
        if st == ListSt::Own {
            // Pick: the lowest remaining lane.
            let l = self.lanes.trailing_zeros() as usize;
            self.lanes &= !(1 << l);
            let (stx, sty) = (self.qx[l] >> self.sx, self.qy[l] >> self.sy);
            let rqx = self.qx[l] & ((1 << self.sx) - 1);
            let rqy = self.qy[l] & ((1 << self.sy) - 1);
            self.li = sty * self.tiles_x + stx;
            self.rec = record_words(self.depth, self.frame, self.prim, rqx, rqy, self.mask[l], self.words);
        }
    }
}

crate::cycle_model_signature! {
    /// pixel_info_write's ports: quad beats in, pixel-info list writes out on the memory port.
    pub PixelInfoWrite "pixel_info_write" for PixelInfoWriteCycle: PiBeat -> BinWrite
}
