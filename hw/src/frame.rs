//! # frame (issue 16: the whole frame, primitives in, framebuffer out, behind one memory port)
//!
//! **Role.** The frame top: the frame's blocks wired in pipeline order behind one memory port,
//! frames one after another with increasing frame ids, two in flight at once: the front
//! (bin_setup, binner, tile_sequencer, raster_core, pixel_info_write) takes frame f + 1's
//! primitives and writes its tables and pixel info while the pixel side (pixel_info_read,
//! shading_sort, pixel_back_end) shades frame f into the framebuffer. Primitives (`PrimIn`)
//! stream in; the binner's lists, the primitive table, the pixel-info lists and the framebuffer
//! are written through the port at the regions of [`tilerast_golden::frame`] (the arbiter adds
//! each region's base to the block's offsets, and for the per-frame regions the set of the
//! client's frame: frame id bit 0 as address bit 31); `done_valid` pulses with `done_frame` =
//! the frame id when the frame's memory is complete. Golden's `pipeline.rs` is the model,
//! stage for stage.
//!
//! **Timing contract:** the rustdoc of the cycle model
//! `tilerast_golden::frame::FrameCycle` (phases, the handoff, the top's registers, every wire
//! of the cycle, the arbiter's priorities, the done pulse), stated once there. The blocks keep
//! their own contracts (each block's cycle model).
//!
//! **Ports.** `clock`, `flush` (synchronous: every register and every block to its new state;
//! the memory is not the frame's and is not flushed); in: `in_valid`/`in_ready` with `inp`
//! ([`crate::streams::PrimInIn`]: primitives, then one token with `end` = 1 whose `colour` is
//! the frame's background, kept in the register `background` and handed to the pixel side
//! with the frame); the memory port, exactly like the pixel back end's:
//! `mem_req_valid`/`mem_req_ready` with `mem_req` ([`crate::streams::MemReqOut`]) and
//! `mem_resp_valid`/`mem_resp_ready` with `mem_resp` ([`crate::streams::MemRespIn`]; only reads
//! are answered, in request order); `done_valid` and `done_frame` (a one-cycle pulse, no
//! handshake). `in_ready` is bin_setup's gated by the front's phase and `ended` (the frame's
//! end token taken: the next frame waits for the cycle after the handoff), combinational from
//! the binner's `in_ready`, a register; `mem_req_ready` reaches every client's ready through
//! the arbiter (the only input → output paths, as the contract lists them); everything else is
//! a register or wiring of registers.
//!
//! ```text
//!            ┌──────────────────────────────────────────── frame ─────────────────────────────────────────────┐
//!  inp ─────►│ bin_setup ─BinBox─► binner   (phase = Bin)                               the front: fid        │
//!  (PrimIn)  │   │ wr (4)            │ out (3), last ─► phase Raster, seq_go                                  │
//!            │   │                   │        seq_go ─► tile_sequencer ─SeqCmd─┬─ cmd ─► raster_core ─┐       │
//!            │   │                   │                  │ prd (6) lrd (7)      └─ depth ─► depth FIFO ┤       │
//!            │   │                   │                  │        end_go (FIFO empty, core empty) ─────┤       │
//!            │   │                   │                  │                       PiBeat (fid) ◄────────┘       │
//!            │   │                   │                  │   pixel_info_write ◄──┘                             │
//!            │   │                   │                  │     │ out (5), last ─► phase Queued                 │
//!            │   │                   │                  │     │  handoff (Queued, pixel side free, no front   │
//!            │   │                   │                  │     │  read out) ─► front flushed, fid + 1;          │
//!            │   │                   │                  │     │  pixel Pixel, pixel_fid, pi_go                │
//!            │   │                   │                  │     │      pi_go ─► pixel_info_read ─PiRecord─┐     │
//!            │   │                   │                  │     │                 │ rd (2)  shading_sort ◄┘     │
//!            │   │                   │                  │     │                 │   tiles_done │ rd (1)       │
//!            │   │                   │                  │     │                 │          PixSamples         │
//!            │   │                   │                  │     │                 │   pixel_back_end (0) ◄┘     │
//!            │   ▼                   ▼                  ▼     ▼                 ▼          ▼   the pixel side │
//!            │ ═ arbiter: lowest eligible index wins, base + set + offset, read-tag FIFO (8) routes mem_resp ═│
//!            │  fin (Pixel, tiles_done = T2, shading_sort and back end idle, no pixel read out) ─► pixel Done │
//!            └────────────── mem_req ▼ ▲ mem_resp ──────── done_valid, done_frame (pixel = Done, pixel_fid) ──┘
//! ```
//!
//! **Build.** The arbiter's select is a priority chain over the clients' registered valids
//! (and the tag FIFO's count, a register); each region base is a constant add on the client's
//! own offset before the multiplexer, plus the set (bit 31 from a register: no carry into
//! it). The depth FIFO (16 × 24 bits) and the tag FIFO (8 × 3 bits) are the shared ring FIFO
//! (`crate::fifo::ring_fifo!`: register files with head/tail/count registers). `front_flush` =
//! `flush` ∨ `handoff` goes to the front's blocks and the depth FIFO, `pixel_flush` = `flush`
//! ∨ (`pixel` = Done) to the pixel side's; only `flush` empties the tag FIFO and the two
//! read counts (`front_reads`, `pixel_reads`), which the handoff and `fin` wait on.

use crate::bin_setup::BinSetup;
use crate::binner::Binner;
use crate::emit;
use crate::fifo::ring_fifo;
use crate::pixel_back_end::PixelBackEnd;
use crate::pixel_info_read::PixelInfoRead;
use crate::pixel_info_write::PixelInfoWrite;
use crate::raster_core::RasterCore;
use crate::shading_sort::ShadingSort;
use crate::streams::{BinBoxOut, PiRecordOut, PixSamplesOut, PrimInIn};
use crate::tile_sequencer::TileSequencer;
use crate::util::{k, vec_of};
use rust_hdl::prelude::*;
use tilerast_golden::config::Config;
use tilerast_golden::frame::{Side, BINS, CLIENTS, CLIENT_TABLE, DEPTH_FIFO, PIXEL_INFO, PRIMS, SET_STRIDE, TAG_FIFO};

ring_fifo! {
    /// The depth FIFO: the depth of each command inside the raster core ([`DEPTH_FIFO`]
    /// entries of 24 bits), pushed when the command enters, popped at its last beat.
    pub struct DepthFifo { width 24, depth 16, pointer 4, count 5 }
}
ring_fifo! {
    /// The read-tag FIFO: the client of each read accepted on the memory port ([`TAG_FIFO`]
    /// entries of a 3-bit client index), popped by its response, whose head routes it.
    pub struct TagFifo { width 3, depth 8, pointer 3, count 4 }
}
// The FIFOs are golden's (`FrameCycle`'s depth and tags); `sel` and the tag FIFO's entries
// hold a client index in 3 bits.
const _: () = assert!(DEPTH_FIFO == 16 && TAG_FIFO == 8 && CLIENTS <= 1 << 3);

/// Phase codes of the `phase` register (the front, golden's `Phase`).
const PH_BIN: u64 = 0;
const PH_RASTER: u64 = 1;
const PH_QUEUED: u64 = 2;
/// Phase codes of the `pixel` register (the pixel side, golden's `PixelPhase`).
const PX_IDLE: u64 = 0;
const PX_PIXEL: u64 = 1;
const PX_DONE: u64 = 2;

tilerast_golden::frame_top_streams! { crate::streams::stream_block;
    /// The frame top. Build with [`Frame::new`] (see the module header).
    /// `done_valid`: the frame is complete (one cycle, `phase` = Done); `done_frame`: its frame
    /// id (`fid`).
    pub struct Frame {
        bin_setup: BinSetup,
        binner: Binner,
        tile_sequencer: TileSequencer,
        raster_core: RasterCore,
        pixel_info_write: PixelInfoWrite,
        pixel_info_read: PixelInfoRead,
        shading_sort: ShadingSort,
        pixel_back_end: PixelBackEnd,

        // ---- registers ----
        /// The front's phase (Bin, Raster, Queued) and the pixel side's (Idle, Pixel, Done).
        phase: DFF<Bits<2>>,
        pixel: DFF<Bits<2>>,
        /// The front's frame id and the pixel side's.
        fid: DFF<Bits<8>>,
        pixel_fid: DFF<Bits<8>>,
        ended: DFF<Bit>,
        /// The front's frame's background (its end token's `colour`), and the pixel side's
        /// (the back end's `dst` with `framebuffer: clear`).
        background: DFF<Bits<32>>,
        pixel_background: DFF<Bits<32>>,
        seq_go: DFF<Bit>,
        pi_go: DFF<Bit>,
        tiles_done: DFF<Bits<32>>,
        /// Reads in flight of the front's clients and of the pixel side's.
        front_reads: DFF<Bits<4>>,
        pixel_reads: DFF<Bits<4>>,
        depth_fifo: DepthFifo,
        tag_fifo: TagFifo,

        // ---- constants ----
        c_bin: Constant<Bits<2>>,
        c_raster: Constant<Bits<2>>,
        c_queued: Constant<Bits<2>>,
        c_px_idle: Constant<Bits<2>>,
        c_px_pixel: Constant<Bits<2>>,
        c_px_done: Constant<Bits<2>>,
        c_prims: Constant<Bits<32>>,
        c_bins: Constant<Bits<32>>,
        c_pixel_info: Constant<Bits<32>>,
        /// The second region set's offset (`SET_STRIDE`).
        c_set: Constant<Bits<32>>,
        c_t2: Constant<Bits<32>>,
        c_one32: Constant<Bits<32>>,
        c_one8: Constant<Bits<8>>,
        c_one4: Constant<Bits<4>>,
        c_i3: Vec<Constant<Bits<3>>>,
        /// Per client: 1 on the pixel side (golden's `CLIENT_TABLE`).
        c_pixel_side: Vec<Constant<Bit>>,

        // ---- wires ----
        front_flush: Signal<Local, Bit>,
        pixel_flush: Signal<Local, Bit>,
        handoff: Signal<Local, Bit>,
        /// The set offset of the front's frame and of the pixel side's; per client, its side's.
        front_set: Signal<Local, Bits<32>>,
        pixel_set: Signal<Local, Bits<32>>,
        client_set: Vec<Signal<Local, Bits<32>>>,
        /// `sel` and the tag FIFO's head are pixel-side clients.
        sel_pixel: Signal<Local, Bit>,
        head_pixel: Signal<Local, Bit>,
        take_in: Signal<Local, Bit>,
        dfull: Signal<Local, Bit>,
        dempty: Signal<Local, Bit>,
        dhd: Signal<Local, Bits<24>>,
        tnf: Signal<Local, Bit>,
        tne: Signal<Local, Bit>,
        thd: Signal<Local, Bits<3>>,
        end_go: Signal<Local, Bit>,
        dpush: Signal<Local, Bit>,
        dpop: Signal<Local, Bit>,
        e: Vec<Signal<Local, Bit>>,
        g: Vec<Signal<Local, Bit>>,
        sel: Signal<Local, Bits<3>>,
        tpush: Signal<Local, Bit>,
        tpop: Signal<Local, Bit>,
        fin: Signal<Local, Bit>,
    }
}

/// Second tiles of the viewport (the `last` records shading_sort takes in a frame).
pub fn second_tiles(cfg: &Config) -> u32 {
    cfg.viewport[0].div_ceil(cfg.second_tile[0]) * cfg.viewport[1].div_ceil(cfg.second_tile[1])
}

/// Whether the frame top builds for `cfg`: every block does (the raster core's [`crate::supported`]
/// and each block's own), or the one line naming the block and the field.
pub fn supported(cfg: &Config) -> Result<(), String> {
    crate::supported(cfg).map_err(|e| format!("raster_core: {e}"))?;
    crate::bin_setup::supported(cfg).map_err(|e| format!("bin_setup: {e}"))?;
    crate::binner::supported(cfg).map_err(|e| format!("binner: {e}"))?;
    crate::tile_sequencer::supported(cfg).map_err(|e| format!("tile_sequencer: {e}"))?;
    crate::pixel_info_write::supported(cfg).map_err(|e| format!("pixel_info_write: {e}"))?;
    crate::pixel_info_read::supported(cfg).map_err(|e| format!("pixel_info_read: {e}"))?;
    crate::shading_sort::supported(cfg).map_err(|e| format!("shading_sort: {e}"))?;
    crate::pixel_back_end::supported(cfg).map_err(|e| format!("pixel_back_end: {e}"))?;
    tilerast_golden::frame::ram::check_frame_ram(cfg)
}

impl Frame {
    /// The frame top for `cfg`, or the one line naming what a block does not support.
    pub fn try_new(cfg: &Config) -> Result<Frame, String> {
        supported(cfg)?;
        Ok(Frame {
            clock: Default::default(),
            flush: Default::default(),
            in_valid: Default::default(),
            in_ready: Default::default(),
            inp: Default::default(),
            mem_req_valid: Default::default(),
            mem_req_ready: Default::default(),
            mem_req: Default::default(),
            mem_resp_valid: Default::default(),
            mem_resp_ready: Default::default(),
            mem_resp: Default::default(),
            done_valid: Default::default(),
            done_frame: Default::default(),
            bin_setup: BinSetup::new(cfg),
            binner: Binner::new(cfg),
            tile_sequencer: TileSequencer::try_new(cfg)?,
            raster_core: RasterCore::new(cfg),
            pixel_info_write: PixelInfoWrite::new(cfg),
            pixel_info_read: PixelInfoRead::try_new(cfg)?,
            shading_sort: ShadingSort::try_new(cfg)?,
            pixel_back_end: PixelBackEnd::try_new(cfg)?,
            phase: Default::default(),
            pixel: Default::default(),
            fid: Default::default(),
            pixel_fid: Default::default(),
            ended: Default::default(),
            background: Default::default(),
            pixel_background: Default::default(),
            seq_go: Default::default(),
            pi_go: Default::default(),
            tiles_done: Default::default(),
            front_reads: Default::default(),
            pixel_reads: Default::default(),
            depth_fifo: Default::default(),
            tag_fifo: Default::default(),
            c_bin: k(PH_BIN),
            c_raster: k(PH_RASTER),
            c_queued: k(PH_QUEUED),
            c_px_idle: k(PX_IDLE),
            c_px_pixel: k(PX_PIXEL),
            c_px_done: k(PX_DONE),
            c_prims: k(PRIMS as u64),
            c_bins: k(BINS as u64),
            c_pixel_info: k(PIXEL_INFO as u64),
            c_set: k(SET_STRIDE as u64),
            c_t2: k(second_tiles(cfg) as u64),
            c_one32: k(1),
            c_one8: k(1),
            c_one4: k(1),
            c_i3: (0..8).map(k).collect(),
            c_pixel_side: CLIENT_TABLE.iter().map(|c| Constant::new(c.3 == Side::Pixel)).collect(),
            front_flush: Default::default(),
            pixel_flush: Default::default(),
            handoff: Default::default(),
            front_set: Default::default(),
            pixel_set: Default::default(),
            client_set: vec_of(CLIENTS),
            sel_pixel: Default::default(),
            head_pixel: Default::default(),
            take_in: Default::default(),
            dfull: Default::default(),
            dempty: Default::default(),
            dhd: Default::default(),
            tnf: Default::default(),
            tne: Default::default(),
            thd: Default::default(),
            end_go: Default::default(),
            dpush: Default::default(),
            dpop: Default::default(),
            e: vec_of(CLIENTS),
            g: vec_of(CLIENTS),
            sel: Default::default(),
            tpush: Default::default(),
            tpop: Default::default(),
            fin: Default::default(),
        })
    }

    /// The frame top for `cfg`.
    ///
    /// # Panics
    /// With the reason if it is not supported ([`supported`]).
    pub fn new(cfg: &Config) -> Frame {
        Self::try_new(cfg).unwrap_or_else(|e| panic!("{e}"))
    }
}

/// The frame top's `#[hdl_gen]` kernel, its head and `before` handed in (so `self` and the
/// attribute are the caller's), then the memory arbiter made from golden's
/// client rows ([`tilerast_golden::frame_clients!`]: index, block, request and response
/// streams, the region base it adds), then `after`. Client c's request stream `q` is the
/// block's `q_valid` / `q` / `q_ready`, its response stream `r` is `r_valid` / `r` / `r_ready`.
/// The arbiter is the frame contract's ([`tilerast_golden::frame::FrameCycle`]): eligible(c) =
/// valid ∧ (write ∨ tag FIFO not full); the lowest eligible index wins, and client 0 is the
/// default (its request on the port when no client is eligible, but ready only when it is
/// eligible: `framebuffer: keep`'s back end offers reads); a read accepted pushes `sel`
/// into the tag FIFO, whose head routes `mem_resp` and picks the `mem_resp_ready` source.
macro_rules! arbitrated_kernel {
    (clients {
        $(#[$d0:meta])* $i0:literal $n0:ident ($s0:ident) : $b0:ident . $q0:ident $(/ $r0:ident)? $(+ $base0:ident)?;
        $($(#[$d:meta])* $i:literal $n:ident ($sd:ident) : $b:ident . $q:ident $(/ $r:ident)? $(+ $base:ident)?;)*
    }
    $hash:tt $attr:tt fn kernel(&mut $s:tt) { $($before:tt)* }
    after { $($after:tt)* }) => { paste::paste! {
impl Frame {
    $hash $attr
    fn kernel(&mut $s) {
        $($before)*

        // ---- arbiter: eligible clients, the lowest index wins ----
        $s.e[$i0].next = $s.$b0.[<$q0 _valid>].val() & ($s.$b0.$q0.write.val() | $s.tnf.val());
        $($s.e[$i].next = $s.$b.[<$q _valid>].val() & ($s.$b.$q.write.val() | $s.tnf.val());)*
        $s.mem_req_valid.next = $s.e[$i0].val() $(| $s.e[$i].val())*;
        for i in 0..8 {
            $s.g[i].next = false;
            // The set of the client's side's frame.
            $s.client_set[i].next = $s.front_set.val();
            if $s.c_pixel_side[i].val() {
                $s.client_set[i].next = $s.pixel_set.val();
            }
        }
        $(if $s.e[$i].val() & !$s.e[$i0].val() {
            $s.g[$i].next = true;
            $s.sel.next = $s.c_i3[$i].val();
            $s.sel_pixel.next = $s.c_pixel_side[$i].val();
            $s.mem_req.addr.next = $s.$b.$q.addr.val() $(+ $s.[<c_ $base:lower>].val() + $s.client_set[$i].val())?;
            $s.mem_req.write.next = $s.$b.$q.write.val();
            $s.mem_req.wdata.next = $s.$b.$q.wdata.val();
            $s.mem_req.be.next = $s.$b.$q.be.val();
        } else)* {
            // Client 0's request on the port, also when no client is eligible; client 0 is
            // granted (told ready) only when it is eligible.
            $s.g[$i0].next = $s.e[$i0].val();
            $s.sel.next = $s.c_i3[$i0].val();
            $s.sel_pixel.next = $s.c_pixel_side[$i0].val();
            $s.mem_req.addr.next = $s.$b0.$q0.addr.val() $(+ $s.[<c_ $base0:lower>].val() + $s.client_set[$i0].val())?;
            $s.mem_req.write.next = $s.$b0.$q0.write.val();
            $s.mem_req.wdata.next = $s.$b0.$q0.wdata.val();
            $s.mem_req.be.next = $s.$b0.$q0.be.val();
        }
        $s.$b0.[<$q0 _ready>].next = $s.mem_req_ready.val() & $s.g[$i0].val();
        $($s.$b.[<$q _ready>].next = $s.mem_req_ready.val() & $s.g[$i].val();)*
        $s.tpush.next = $s.mem_req_valid.val() & $s.mem_req_ready.val() & !$s.mem_req.write.val();

        // ---- responses: the oldest read's client ----
        $($s.$b0.[<$r0 _valid>].next =
            $s.mem_resp_valid.val() & $s.tne.val() & ($s.thd.val() == $s.c_i3[$i0].val());)?
        $($($s.$b.[<$r _valid>].next =
            $s.mem_resp_valid.val() & $s.tne.val() & ($s.thd.val() == $s.c_i3[$i].val());)?)*
        $($s.$b0.$r0.rdata.next = $s.mem_resp.rdata.val();)?
        $($($s.$b.$r.rdata.next = $s.mem_resp.rdata.val();)?)*
        $s.mem_resp_ready.next = true;
        $s.head_pixel.next = false;
        $(if $s.thd.val() == $s.c_i3[$i].val() {
            $s.head_pixel.next = $s.c_pixel_side[$i].val();
        })*
        if $s.thd.val() == $s.c_i3[$i0].val() {
            $s.head_pixel.next = $s.c_pixel_side[$i0].val();
        }
        if $s.tne.val() {
            $(if $s.thd.val() == $s.c_i3[$i0].val() {
                $s.mem_resp_ready.next = $s.$b0.[<$r0 _ready>].val();
            })?
            $($(if $s.thd.val() == $s.c_i3[$i].val() {
                $s.mem_resp_ready.next = $s.$b.[<$r _ready>].val();
            })?)*
        }
        $s.tpop.next = $s.mem_resp_valid.val() & $s.mem_resp_ready.val() & $s.tne.val();

        $($after)*
    }
}
    } };
}

// The kernel: the frame's wiring (`before`, `after`) around the memory arbiter, which
// `arbitrated_kernel!` makes from golden's client rows (`tilerast_golden::frame_clients!`).
tilerast_golden::frame_clients! { arbitrated_kernel;
    #[hdl_gen]
    fn kernel(&mut self) {
        dff_setup!(
            self,
            clock,
            phase,
            pixel,
            fid,
            pixel_fid,
            ended,
            background,
            pixel_background,
            seq_go,
            pi_go,
            tiles_done,
            front_reads,
            pixel_reads
        );
        clock!(
            self,
            clock,
            bin_setup,
            binner,
            tile_sequencer,
            raster_core,
            pixel_info_write,
            pixel_info_read,
            shading_sort,
            pixel_back_end
        );
        // ---- the handoff and the two sides' flushes ----
        self.handoff.next = (self.phase.q.val() == self.c_queued.val())
            & (self.pixel.q.val() != self.c_px_pixel.val())
            & !self.front_reads.q.val().any();
        self.front_flush.next = self.flush.val() | self.handoff.val();
        self.pixel_flush.next = self.flush.val() | (self.pixel.q.val() == self.c_px_done.val());
        self.bin_setup.flush.next = self.front_flush.val();
        self.binner.flush.next = self.front_flush.val();
        self.tile_sequencer.flush.next = self.front_flush.val();
        self.raster_core.flush.next = self.front_flush.val();
        self.pixel_info_write.flush.next = self.front_flush.val();
        self.pixel_info_read.flush.next = self.pixel_flush.val();
        self.shading_sort.flush.next = self.pixel_flush.val();
        self.pixel_back_end.flush.next = self.pixel_flush.val();
        // The region sets: frame id bit 0 as address bit 31.
        self.front_set.next = 0.into();
        if self.fid.q.val().get_bit(0) {
            self.front_set.next = self.c_set.val();
        }
        self.pixel_set.next = 0.into();
        if self.pixel_fid.q.val().get_bit(0) {
            self.pixel_set.next = self.c_set.val();
        }

        // ---- the FIFOs (ring_fifo!): the depth FIFO emptied with the front, the tag FIFO by
        // flush only; their state ----
        self.depth_fifo.clock.next = self.clock.val();
        self.depth_fifo.flush.next = self.front_flush.val();
        self.tag_fifo.clock.next = self.clock.val();
        self.tag_fifo.flush.next = self.flush.val();
        self.dfull.next = self.depth_fifo.full.val();
        self.dempty.next = self.depth_fifo.empty.val();
        self.tnf.next = !self.tag_fifo.full.val();
        self.tne.next = !self.tag_fifo.empty.val();
        self.dhd.next = self.depth_fifo.head_data.val();
        self.thd.next = self.tag_fifo.head_data.val();

        // ---- in: bin_setup in the Bin phase until the end token; bin_setup → binner ----
        self.take_in.next = (self.phase.q.val() == self.c_bin.val()) & !self.ended.q.val();
        self.bin_setup.in_valid.next = self.in_valid.val() & self.take_in.val();
        self.in_ready.next = self.take_in.val() & self.bin_setup.in_ready.val();
        PrimInIn::link(&mut self.inp, &mut self.bin_setup.inp);
        self.binner.in_valid.next = self.bin_setup.out_valid.val();
        self.bin_setup.out_ready.next = self.binner.in_ready.val();
        BinBoxOut::join(&mut self.bin_setup.out, &mut self.binner.inp);

        // ---- raster: sequencer → raster core (+ depth FIFO) → pixel-info writer ----
        self.tile_sequencer.in_valid.next = self.seq_go.q.val();
        self.tile_sequencer.inp.frame.next = self.fid.q.val();
        self.raster_core.cmd.kind.next = self.tile_sequencer.out.kind.val();
        self.raster_core.cmd.prim.next = self.tile_sequencer.out.prim.val();
        self.raster_core.cmd.tile_x.next = self.tile_sequencer.out.tile_x.val();
        self.raster_core.cmd.tile_y.next = self.tile_sequencer.out.tile_y.val();
        self.raster_core.cmd.v0x.next = self.tile_sequencer.out.v0x.val();
        self.raster_core.cmd.v0y.next = self.tile_sequencer.out.v0y.val();
        self.raster_core.cmd.v1x.next = self.tile_sequencer.out.v1x.val();
        self.raster_core.cmd.v1y.next = self.tile_sequencer.out.v1y.val();
        self.raster_core.cmd.v2x.next = self.tile_sequencer.out.v2x.val();
        self.raster_core.cmd.v2y.next = self.tile_sequencer.out.v2y.val();
        self.raster_core.cmd.size.next = self.tile_sequencer.out.size.val();
        self.raster_core.cmd.aa.next = self.tile_sequencer.out.aa.val();
        self.end_go.next = false;
        self.raster_core.cmd_valid.next = false;
        if self.tile_sequencer.out.end.val() {
            self.end_go.next =
                self.tile_sequencer.out_valid.val() & self.dempty.val() & !self.raster_core.out_valid.val();
            self.tile_sequencer.out_ready.next = self.end_go.val() & self.pixel_info_write.in_ready.val();
        } else {
            self.raster_core.cmd_valid.next = self.tile_sequencer.out_valid.val() & !self.dfull.val();
            self.tile_sequencer.out_ready.next = self.raster_core.cmd_ready.val() & !self.dfull.val();
        }
        self.dpush.next = self.tile_sequencer.out_valid.val()
            & !self.tile_sequencer.out.end.val()
            & !self.dfull.val()
            & self.raster_core.cmd_ready.val();
        self.raster_core.out_ready.next = self.pixel_info_write.in_ready.val();
        self.dpop.next =
            self.raster_core.out_valid.val() & self.pixel_info_write.in_ready.val() & self.raster_core.out.last.val();
        self.pixel_info_write.in_valid.next = self.raster_core.out_valid.val() | self.end_go.val();
        self.pixel_info_write.inp.frame.next = self.fid.q.val();
        if self.raster_core.out_valid.val() {
            self.pixel_info_write.inp.prim.next = self.raster_core.out.prim.val();
            self.pixel_info_write.inp.lane_valid.next = self.raster_core.out.lane_valid.val();
            self.pixel_info_write.inp.qx_0.next = self.raster_core.out.qx_0.val();
            self.pixel_info_write.inp.qx_1.next = self.raster_core.out.qx_1.val();
            self.pixel_info_write.inp.qx_2.next = self.raster_core.out.qx_2.val();
            self.pixel_info_write.inp.qx_3.next = self.raster_core.out.qx_3.val();
            self.pixel_info_write.inp.qy_0.next = self.raster_core.out.qy_0.val();
            self.pixel_info_write.inp.qy_1.next = self.raster_core.out.qy_1.val();
            self.pixel_info_write.inp.qy_2.next = self.raster_core.out.qy_2.val();
            self.pixel_info_write.inp.qy_3.next = self.raster_core.out.qy_3.val();
            self.pixel_info_write.inp.mask_0.next = self.raster_core.out.mask_0.val();
            self.pixel_info_write.inp.mask_1.next = self.raster_core.out.mask_1.val();
            self.pixel_info_write.inp.mask_2.next = self.raster_core.out.mask_2.val();
            self.pixel_info_write.inp.mask_3.next = self.raster_core.out.mask_3.val();
            self.pixel_info_write.inp.kind.next = self.raster_core.out.kind.val();
            self.pixel_info_write.inp.last.next = self.raster_core.out.last.val();
            self.pixel_info_write.inp.depth.next = self.dhd.val();
            self.pixel_info_write.inp.end.next = false;
        } else {
            self.pixel_info_write.inp.prim.next = 0.into();
            self.pixel_info_write.inp.lane_valid.next = 0.into();
            self.pixel_info_write.inp.qx_0.next = 0.into();
            self.pixel_info_write.inp.qx_1.next = 0.into();
            self.pixel_info_write.inp.qx_2.next = 0.into();
            self.pixel_info_write.inp.qx_3.next = 0.into();
            self.pixel_info_write.inp.qy_0.next = 0.into();
            self.pixel_info_write.inp.qy_1.next = 0.into();
            self.pixel_info_write.inp.qy_2.next = 0.into();
            self.pixel_info_write.inp.qy_3.next = 0.into();
            self.pixel_info_write.inp.mask_0.next = 0.into();
            self.pixel_info_write.inp.mask_1.next = 0.into();
            self.pixel_info_write.inp.mask_2.next = 0.into();
            self.pixel_info_write.inp.mask_3.next = 0.into();
            self.pixel_info_write.inp.kind.next = false;
            self.pixel_info_write.inp.last.next = false;
            self.pixel_info_write.inp.depth.next = 0.into();
            self.pixel_info_write.inp.end.next = true;
        }

        // ---- pixel: reader → shading_sort → back end ----
        self.pixel_info_read.in_valid.next = self.pi_go.q.val();
        self.pixel_info_read.inp.frame.next = self.pixel_fid.q.val();
        self.shading_sort.in_valid.next = self.pixel_info_read.out_valid.val();
        self.pixel_info_read.out_ready.next = self.shading_sort.in_ready.val();
        PiRecordOut::join(&mut self.pixel_info_read.out, &mut self.shading_sort.inp);
        self.pixel_back_end.in_valid.next = self.shading_sort.out_valid.val();
        self.shading_sort.out_ready.next = self.pixel_back_end.in_ready.val();
        PixSamplesOut::join(&mut self.shading_sort.out, &mut self.pixel_back_end.inp);
    }
    after {
        // ---- the top's registers ----
        self.fin.next = (self.pixel.q.val() == self.c_px_pixel.val())
            & (self.tiles_done.q.val() == self.c_t2.val())
            & self.shading_sort.idle.val()
            & self.pixel_back_end.idle.val()
            & !self.pixel_reads.q.val().any()
            & !self.pi_go.q.val();
        self.pixel_back_end.background.next = self.pixel_background.q.val();
        // Read counts: up by a read accepted, down by a response taken, by side.
        if self.tpush.val() & !self.sel_pixel.val() {
            self.front_reads.d.next = self.front_reads.q.val() + self.c_one4.val();
        }
        if self.tpush.val() & self.sel_pixel.val() {
            self.pixel_reads.d.next = self.pixel_reads.q.val() + self.c_one4.val();
        }
        if self.tpop.val() & !self.head_pixel.val() {
            self.front_reads.d.next = self.front_reads.q.val() - self.c_one4.val();
        }
        if self.tpop.val() & self.head_pixel.val() {
            self.pixel_reads.d.next = self.pixel_reads.q.val() - self.c_one4.val();
        }
        if self.tpush.val() & self.tpop.val() & (self.sel_pixel.val() == self.head_pixel.val()) {
            if self.sel_pixel.val() {
                self.pixel_reads.d.next = self.pixel_reads.q.val();
            } else {
                self.front_reads.d.next = self.front_reads.q.val();
            }
        }
        // The pixel side: Done for one cycle, the PiStart, the tiles, fin.
        if self.pixel.q.val() == self.c_px_done.val() {
            self.pixel.d.next = self.c_px_idle.val();
            self.tiles_done.d.next = 0.into();
        }
        if self.pi_go.q.val() & self.pixel_info_read.in_ready.val() {
            self.pi_go.d.next = false;
        }
        if self.pixel_info_read.out_valid.val() & self.shading_sort.in_ready.val() & self.pixel_info_read.out.last.val()
        {
            self.tiles_done.d.next = self.tiles_done.q.val() + self.c_one32.val();
        }
        if self.fin.val() {
            self.pixel.d.next = self.c_px_done.val();
        }
        // The front: the end token, Bin → Raster → Queued.
        if self.in_valid.val() & self.in_ready.val() & self.inp.end.val() {
            self.ended.d.next = true;
            self.background.d.next = self.inp.colour.val();
        }
        if self.binner.out_valid.val() & self.binner.out_ready.val() & self.binner.out.last.val() {
            self.phase.d.next = self.c_raster.val();
            self.seq_go.d.next = true;
        }
        if self.seq_go.q.val() & self.tile_sequencer.in_ready.val() {
            self.seq_go.d.next = false;
        }
        if self.pixel_info_write.out_valid.val()
            & self.pixel_info_write.out_ready.val()
            & self.pixel_info_write.out.last.val()
        {
            self.phase.d.next = self.c_queued.val();
        }
        // Depth FIFO: a command's depth pushed as it enters the core, popped at its last beat.
        self.depth_fifo.push.next = self.dpush.val();
        self.depth_fifo.push_data.next = self.tile_sequencer.out.depth.val();
        self.depth_fifo.pop.next = self.dpop.val();
        // Tag FIFO: the client of each read accepted, popped by its response.
        self.tag_fifo.push.next = self.tpush.val();
        self.tag_fifo.push_data.next = self.sel.val();
        self.tag_fifo.pop.next = self.tpop.val();
        // The handoff: the front's frame to the pixel side, the front to the next frame.
        if self.handoff.val() {
            self.pixel.d.next = self.c_px_pixel.val();
            self.pi_go.d.next = true;
            self.pixel_fid.d.next = self.fid.q.val();
            self.pixel_background.d.next = self.background.q.val();
            self.phase.d.next = self.c_bin.val();
            self.fid.d.next = self.fid.q.val() + self.c_one8.val();
            self.ended.d.next = false;
            self.seq_go.d.next = false;
        }
        if self.flush.val() {
            self.phase.d.next = self.c_bin.val();
            self.pixel.d.next = self.c_px_idle.val();
            self.fid.d.next = 0.into();
            self.pixel_fid.d.next = 0.into();
            self.ended.d.next = false;
            self.background.d.next = 0.into();
            self.pixel_background.d.next = 0.into();
            self.seq_go.d.next = false;
            self.pi_go.d.next = false;
            self.tiles_done.d.next = 0.into();
            self.front_reads.d.next = 0.into();
            self.pixel_reads.d.next = 0.into();
        }
        self.done_valid.next = self.pixel.q.val() == self.c_px_done.val();
        self.done_frame.next = self.pixel_fid.q.val();
    }
}

emit::indexed_kernel_logic!(Frame);

/// Stack for building and emitting the frame top: its structures (~350 KB each, moved a few
/// times) and rust-hdl's recursive walks outgrow a test thread's 2 MiB.
pub const STACK_BYTES: usize = 256 << 20;

/// The frame top's Verilog with top module `name` (the blocks as its submodules), built on a
/// thread of its own with [`STACK_BYTES`] of stack, so any caller's thread will do.
pub fn verilog(cfg: &Config, name: &str) -> String {
    let (cfg, name) = (cfg.clone(), name.to_string());
    std::thread::Builder::new()
        .name("frame verilog".into())
        .stack_size(STACK_BYTES)
        .spawn(move || emit::block_verilog(Frame::new(&cfg), &name))
        .expect("spawn the frame's Verilog thread")
        .join()
        .unwrap_or_else(|e| std::panic::resume_unwind(e))
}

/// The frame top's row of [`crate::BLOCK_FILES`].
pub const FILE: crate::BlockFile = crate::BlockFile {
    role: "issue 16, the whole frame: bin_setup, binner, tile_sequencer, raster_core, pixel_info_write, \
           pixel_info_read, shading_sort and pixel_back_end behind one memory port",
    contract: "tilerast_golden::frame::FrameCycle",
    sig: <tilerast_golden::frame::FrameTopPorts as tilerast_golden::cycle::BlockSignature>::SIGNATURE,
    params: |cfg| {
        supported(cfg)?;
        Ok(format!(
            "{} second tiles; regions prims {PRIMS:#010x}, bins {BINS:#010x}, pixel info {PIXEL_INFO:#010x} \
             (+ {SET_STRIDE:#010x} for odd frame ids), framebuffer 0; arbiter priority {}; depth FIFO \
             {DEPTH_FIFO}, read-tag FIFO {TAG_FIFO}; \
             also done_valid (out, one-cycle pulse) and done_frame [7:0] (out, the frame id)",
            second_tiles(cfg),
            CLIENT_TABLE.map(|c| c.0).join(", ")
        ))
    },
    verilog,
};
