//! The cycle model of the whole-frame top ([`FrameCycle`], `hw/src/frame.rs`), its per-cycle
//! port record ([`FramePorts`]) and the driver that runs frames through it behind a
//! [`MemoryCycle`] ([`run_frames`]). The diagram and the memory map are the parent module's
//! ([`crate::frame`]); the timing contract is [`FrameCycle`]'s rustdoc.

use crate::bin_setup::{frame_beats, BinSetupCycle, BinSetupIn, BinSetupParams, BinSetupStats};
use crate::binner::{BinnerCycle, BinnerCycleStats, BIN_CHUNK_BYTES};
use crate::blender::{pipeline_blend, BlendOpts};
use crate::config::Config;
use crate::cycle::{CycleModel, Offer};
use crate::list_reader::ListReaderStats;
use crate::memory_port::{MemStats, MemoryCycle, SparseMemory};
use crate::pixel_back_end::{framebuffer, BackEndStats, MemBehaviour, PixelBackEndCycle, PixelBackEndIn};
use crate::pixel_info_read::{PixelInfoReadCycle, PixelInfoReadIn};
use crate::pixel_info_write::{PixelInfoWriteCycle, PixelInfoWriteStats};
use crate::raster_core::RasterCoreCycle;
use crate::scene::Frame;
use crate::shading_sort::{ShadeStats, ShadingSortCycle, ShadingSortIn, ShadingSortStats, PRIM_ID_BITS};
use crate::streams::{Beat, MemReq, MemResp, PiBeat, PiStart, PrimIn, SeqStart};
use crate::tile_sequencer::{TileSequencerCycle, TileSequencerIn, TileSequencerStats};
use std::collections::VecDeque;

use super::{set_base, BINS, PIXEL_INFO, PRIMS, REGIONS};

/// Entries of the top's depth FIFO (the depths of the raster core's commands in flight).
pub const DEPTH_FIFO: usize = 16;
/// Entries of the arbiter's read-tag FIFO (reads in flight).
pub const TAG_FIFO: usize = 8;
/// The arbiter's memory clients, highest priority first, declared once (downstream first: the
/// pixel side before the front, and inside each, so the part that produces work never starves
/// the one that drains it; the pixel side is also the longer phase: with the front first,
/// eight frames back to back of `large_triangles` and `slivers` took longer on every preset,
/// the frame bench's figure). A row: the index and its [`client`] constant; its [`Side`] (`front`:
/// the Bin and Raster phases' blocks, `pixel`: the Pixel phase's), which says whose frame id
/// picks the region set; the block (its instance in the RTL, its field in [`FrameCycle`],
/// whose method of the stream's name gives `(valid, request)`) and its request stream, then
/// `/` its response stream for a reader; `+ REGION` when the arbiter adds that region's base
/// and the side's set ([`super::set_base`]) to the request's address (the back end addresses
/// the framebuffer, at 0, itself). [`client`], [`CLIENTS`], [`CLIENT_TABLE`], golden's request list and the RTL's
/// arbiter (`tilerast_hw::frame`) are made from it: `frame_clients!(callback; more)` calls
/// `callback! { clients { rows } more }`.
#[macro_export]
macro_rules! frame_clients {
    ($cb:ident) => {
        $crate::frame_clients! { @rows $cb {} }
    };
    ($cb:ident ; $($rest:tt)*) => {
        $crate::frame_clients! { @rows $cb { $($rest)* } }
    };
    (@rows $cb:ident { $($rest:tt)* }) => {
        $cb! {
            clients {
                /// The pixel back end's framebuffer reads and writes (its `write` bit).
                0 BACK_END (pixel): pixel_back_end.mem_req / mem_resp;
                /// shading_sort's colour reads.
                1 SHADING (pixel): shading_sort.rd / rsp + PRIMS;
                /// pixel_info_read's list reads.
                2 PI_READ (pixel): pixel_info_read.rd / rsp + PIXEL_INFO;
                /// The binner's list writes.
                3 BINNER (front): binner.out + BINS;
                /// bin_setup's primitive-table writes.
                4 BIN_SETUP (front): bin_setup.wr + PRIMS;
                /// pixel_info_write's list writes.
                5 PI_WRITE (front): pixel_info_write.out + PIXEL_INFO;
                /// The tile sequencer's primitive-table reads.
                6 SEQ_PRIMS (front): tile_sequencer.prd / prsp + PRIMS;
                /// The tile sequencer's list reads.
                7 SEQ_LISTS (front): tile_sequencer.lrd / lrsp + BINS;
            }
            $($rest)*
        }
    };
}

/// [`client`], [`CLIENTS`] and [`CLIENT_TABLE`] from [`frame_clients!`]'s rows.
macro_rules! client_table {
    (clients { $($(#[$doc:meta])* $i:literal $name:ident ($side:ident) : $block:ident . $req:ident
        $(/ $rsp:ident)? $(+ $base:ident)?;)* }) => {
        /// Client indices, highest priority first ([`frame_clients!`]).
        pub mod client {
            $($(#[$doc])* pub const $name: usize = $i;)*
        }
        /// Memory clients of the arbiter.
        pub const CLIENTS: usize = [$($i),*].len();
        /// Per client ([`frame_clients!`]): its name (block and request stream), the base the
        /// arbiter adds (set 0's; a client with a base also gets its side's set), the index of
        /// its region in [`REGIONS`], its side.
        pub const CLIENT_TABLE: [(&str, u32, usize, Side); CLIENTS] =
            [$((
                concat!(stringify!($block), " ", stringify!($req)),
                client_table!(@base $($base)?),
                region_at(client_table!(@base $($base)?)),
                client_table!(@side $side),
            ),)*];
        // The rows are numbered in order.
        const _: () = {
            let mut next = 0;
            $(assert!($i == next, "frame_clients!: rows out of order"); next += 1;)*
            let _ = next;
        };
    };
    (@base) => { 0 };
    (@base $base:ident) => { $base };
    (@side front) => { Side::Front };
    (@side pixel) => { Side::Pixel };
}
crate::frame_clients!(client_table);

/// The clients' requests, in [`frame_clients!`]'s row order: each row's block's request stream,
/// `(valid, request)` (a binner-style `BinWrite` as its `MemReq`), read from `$frame`'s field
/// named after the block.
macro_rules! client_requests {
    (clients { $($(#[$doc:meta])* $i:literal $name:ident ($side:ident) : $block:ident . $req:ident
        $(/ $rsp:ident)? $(+ $base:ident)?;)* } $frame:ident) => {
        [$({
            let (valid, req) = $frame.$block.$req();
            (valid, MemReq::from(req))
        }),*]
    };
}

/// The index in [`REGIONS`] of the region at `base`.
const fn region_at(base: u32) -> usize {
    let mut r = 0;
    while REGIONS[r].1 != base {
        r += 1;
    }
    r
}

/// Which frame a memory client works for: the front's (`fid`) or the pixel side's
/// (`pixel_fid`); a client with a region base gets that frame's set ([`set_base`]).
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum Side {
    /// bin_setup, binner, tile_sequencer, pixel_info_write: the Bin and Raster phases.
    Front,
    /// pixel_info_read, shading_sort, pixel_back_end: the Pixel phase.
    Pixel,
}

/// Phase of the front (`phase` register; the RTL's encoding): the blocks that take a frame's
/// primitives and write its prim table, bin lists and pixel info.
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq, PartialOrd, Ord)]
pub enum Phase {
    /// Primitives in, table and bin lists written.
    #[default]
    Bin = 0,
    /// The tile sequencer feeds the raster core, the pixel-info lists are written.
    Raster = 1,
    /// The frame's pixel info is complete; it waits for the pixel side to take it (the handoff).
    Queued = 2,
}

/// Phase of the pixel side (`pixel` register; the RTL's encoding): the blocks that read a
/// frame's pixel info back, shade it and blend it into the framebuffer.
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq, PartialOrd, Ord)]
pub enum PixelPhase {
    /// No frame.
    #[default]
    Idle = 0,
    /// The pixel-info lists are read back, shaded and blended into the framebuffer.
    Pixel = 1,
    /// One cycle: `done_valid`, the pixel side's blocks flushed.
    Done = 2,
}

/// Memory traffic of one arbiter client.
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq)]
pub struct ClientStats {
    /// Requests accepted (`mem_req_valid` ∧ `mem_req_ready` with this client selected).
    pub requests: u64,
    pub reads: u64,
    pub writes: u64,
    /// 4 per request.
    pub bytes: u64,
}

/// What one frame did in [`FrameCycle`]: the front's counters from its first primitive to
/// the handoff, then the pixel side's to its Done ([`FrameCycle::stats`]; at the Done cycle,
/// before its edge, the whole frame).
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq)]
pub struct FrameCycleStats {
    /// Per client ([`client`] indices).
    pub clients: [ClientStats; CLIENTS],
    /// Cycles in Bin from the frame's first [`PrimIn`] transfer (that cycle included).
    pub bin_cycles: u64,
    pub raster_cycles: u64,
    /// Cycles Queued: the frame's pixel info complete, waiting for the pixel side (the handoff
    /// cycle included: 1 when the pixel side is free).
    pub queued_cycles: u64,
    pub pixel_cycles: u64,
    /// From the first [`PrimIn`] transfer to the Done cycle, both included: bin + raster +
    /// queued + pixel + 1 once Done is reached.
    pub cycles: u64,
    /// Cycles with `mem_req_valid` and not `mem_req_ready`, counted for the frame whose client
    /// the arbiter selects.
    pub mem_stalled: u64,
    /// Bytes through the port for the Pixel phase (4 per request of a pixel-side client).
    pub pixel_bytes: u64,
    /// Commands into the raster core, beats out of it (into pixel_info_write).
    pub cmds: u64,
    pub beats: u64,
    /// Second tiles whose `last` record shading_sort has taken (`tiles_done`).
    pub tiles_done: u64,
    /// Most reads in flight at once (tag FIFO entries), and most distinct clients among them.
    pub max_reads_in_flight: u32,
    pub max_read_clients: u32,
    /// The blocks' counters for this frame.
    pub bin_setup: BinSetupStats,
    pub binner: BinnerCycleStats,
    pub sequencer: TileSequencerStats,
    /// The sequencer's list reader (the bins).
    pub seq_lists: ListReaderStats,
    pub pi_write: PixelInfoWriteStats,
    /// pixel_info_read's list reader.
    pub pi_read: ListReaderStats,
    pub shade: ShadeStats,
    pub shading: ShadingSortStats,
    pub back_end: BackEndStats,
}

/// `a − b` field by field; the struct literal names every field, so a field added to the
/// counters without being listed here does not compile.
macro_rules! minus {
    ($t:ident, $a:expr, $b:expr, [$($f:ident),* $(,)?]) => {
        $t { $($f: $a.$f - $b.$f),* }
    };
}

/// The counters of the blocks that keep counting through a flush (the others restart at
/// every flush, so at every Done): their values at the frame's start.
#[derive(Clone, Copy, Debug, Default)]
struct Base {
    bs: BinSetupStats,
    bn: BinnerCycleStats,
    seq: TileSequencerStats,
    seq_lists: ListReaderStats,
    piw: PixelInfoWriteStats,
    pir: ListReaderStats,
}

fn lists_minus(a: ListReaderStats, b: ListReaderStats) -> ListReaderStats {
    minus!(
        ListReaderStats,
        a,
        b,
        [
            starts,
            reads,
            table_reads,
            record_reads,
            next_reads,
            records,
            nones,
            wrapped
        ]
    )
}

/// One cycle at the top's ports: the inputs driven and the outputs the model predicts (what
/// the Verilator co-simulation compares, port by port, every cycle).
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq)]
pub struct FramePorts {
    pub cycle: u64,
    // Inputs.
    pub flush: bool,
    pub in_valid: bool,
    pub inp: PrimIn,
    pub mem_req_ready: bool,
    pub mem_resp_valid: bool,
    pub mem_resp: MemResp,
    // Outputs.
    pub in_ready: bool,
    pub mem_req_valid: bool,
    pub mem_req: MemReq,
    pub mem_resp_ready: bool,
    pub done_valid: bool,
    pub done_frame: u8,
}

/// The wires of one cycle, from the registers and the cycle's inputs.
#[derive(Clone, Copy, Debug, Default)]
struct Wires {
    /// `phase` = Bin ∧ ¬`ended`: bin_setup may take a beat.
    take_in: bool,
    box_ready: bool,
    in_ready: bool,
    // Raster.
    seq_out_ready: bool,
    core_cmd_valid: bool,
    core_cmd_ready: bool,
    piw_in_ready: bool,
    piw_in_valid: bool,
    piw_in: PiBeat,
    depth_push: bool,
    depth_pop: bool,
    // Pixel.
    ss_in_ready: bool,
    be_in_ready: bool,
    last_in: bool,
    fin: bool,
    handoff: bool,
    // Arbiter.
    valid: [bool; CLIENTS],
    sel: Option<usize>,
    mem_req_valid: bool,
    mem_req: MemReq,
    ready: [bool; CLIENTS],
    rsp_valid: [bool; CLIENTS],
    mem_resp_ready: bool,
    bin_last: bool,
    piw_last: bool,
}

/// Cycle model of the whole-frame top `hw/src/frame.rs` (RTL module `tilerast_frame_<preset>`):
/// primitives in, one memory port, a done pulse with the frame id out.
///
/// # Timing contract
///
/// The one statement of the `frame` top's timing (issue 16); the RTL is held to it on every
/// port and cycle (`hw/tests/frame.rs`, `cosim/tests/frame.rs`). Diagram and memory map: the
/// [`crate::frame`] module header. The blocks keep their own contracts ([`BinSetupCycle`],
/// [`BinnerCycle`], [`TileSequencerCycle`], [`RasterCoreCycle`], [`PixelInfoWriteCycle`],
/// [`PixelInfoReadCycle`], [`ShadingSortCycle`], [`PixelBackEndCycle`]); this one adds the
/// wiring, the phases and the memory arbiter.
///
/// **Ports** (names as the blocks', `stream_block!` in `hw/src/streams.rs`): `clock`, `flush`
/// (synchronous: every register and every block back to its new state; the memory is not the
/// frame's and is not flushed, but its held reads must be dropped at the same edge, as for
/// every block with a read port, [`MemoryCycle::clock`]'s `flush`: a response from before a
/// flush arriving after a new read was issued would be routed to that read's client). In:
/// `in_valid` / `in_ready` / `inp` ([`PrimIn`]: a frame's primitives, then one token with `end`
/// = 1 whose `colour` is the frame's background, packed RGBA8). Memory, exactly like `pixel_back_end`'s: `mem_req_valid` / `mem_req_ready` / `mem_req`
/// ([`MemReq`]), `mem_resp_valid` / `mem_resp_ready` / `mem_resp` ([`MemResp`]; only reads are
/// answered, in request order). `done_valid` (Bit), `done_frame` (Bits<8>): a one-cycle pulse,
/// no handshake.
///
/// **Registers of the top** (besides the blocks'). Two frames can be in flight: the front
/// (bin_setup, binner, tile_sequencer, raster_core, pixel_info_write) works on frame `fid`
/// while the pixel side (pixel_info_read, shading_sort, pixel_back_end) works on frame
/// `pixel_fid` = `fid` − 1, each in its own region set ([`set_base`]).
/// * `phase` ∈ {Bin, Raster, Queued} ([`Phase`], the front); new/flush: Bin.
/// * `pixel` ∈ {Idle, Pixel, Done} ([`PixelPhase`], the pixel side); new/flush: Idle.
/// * `fid`: Bits<8>, the front's frame id; new/flush: 0. The first frame after a flush is
///   frame 0, then 1, 2, … (wrapping at 256). `pixel_fid`: Bits<8>, the pixel side's; new: 0.
/// * `ended`: Bit, the front's frame's end token has been taken; new/flush/handoff: 0.
/// * `background`: Bits<32>, the `colour` of the front's frame's end token, loaded when it
///   transfers; `pixel_background`: Bits<32>, the pixel side's, loaded from `background` at the
///   handoff. New/flush: 0. `pixel_background` is pixel_back_end's `background` input (with
///   `framebuffer: clear`, every blended slot's `dst`).
/// * `seq_go`: Bit (SeqStart pending), `pi_go`: Bit (PiStart pending); new: 0.
/// * depth FIFO: [`DEPTH_FIFO`] = 16 entries of Bits<24> (register file + head/tail/count);
///   new: empty.
/// * tag FIFO: [`TAG_FIFO`] = 8 entries of Bits<3> (the client of each read in flight); new:
///   empty. `front_reads`, `pixel_reads`: Bits<4>, the reads in flight of the front's clients
///   and of the pixel side's ([`Side`]); new: 0.
/// * `tiles_done`: Bits<32>, second tiles whose `last` record (a `none` token included: it has
///   `last` = 1) shading_sort has taken this frame; new: 0.
///
/// **Per cycle.** Every wire is a function of the registers and the cycle's inputs; no input
/// reaches an output combinationally (`in_ready` and `mem_resp_ready` are functions of
/// registers too). `handoff` = (`phase` = Queued) ∧ (`pixel` ≠ Pixel) ∧ (`front_reads` = 0).
/// `front_flush` = `flush`
/// ∨ `handoff` is the front's blocks' `flush` input; `pixel_flush` = `flush` ∨ (`pixel` =
/// Done) is the pixel side's.
/// * **In.** `in_ready` = (`phase` = Bin) ∧ ¬`ended` ∧ bin_setup.in_ready(box_ready)
///   (box_ready = binner.in_ready); bin_setup's `in_valid` = `in_valid` ∧ (`phase` = Bin) ∧
///   ¬`ended`. The end token's transfer sets `ended`. So after a frame's end token the top
///   takes no primitive until the cycle after its handoff, which comes when the frame before
///   it is Done or has been. (A transfer in a `flush` cycle is dropped with everything else.)
/// * **Bin phase.** bin_setup's box output → binner's input. bin_setup's `wr` and the binner's
///   write (BinWrite's `req`) are arbiter clients. When the binner's write with `last` = 1 is
///   accepted (valid ∧ ready): `phase` ← Raster, `seq_go` ← 1.
/// * **Raster phase.** tile_sequencer `in_valid` = `seq_go`, `SeqStart.frame` = `fid`;
///   `seq_go` ← 0 when `seq_go` ∧ seq.in_ready. seq `lrd`, `prd` are arbiter clients; `lrsp`,
///   `prsp` come from the response router. With (`sv`, `sc`) = seq.out():
///   - `sc.end` = 0: raster_core `cmd_valid` = sv ∧ depth FIFO not full, `cmd` = sc's command
///     fields (also when not valid); seq `out_ready` = core.cmd_ready ∧ depth FIFO not full;
///     on a transfer push `sc.depth`.
///   - `sc.end` = 1: raster_core `cmd_valid` = 0; `end_go` = sv ∧ depth FIFO empty ∧
///     ¬core.out_valid; seq `out_ready` = `end_go` ∧ piw.in_ready.
///   - pixel_info_write input: `in_valid` = core.out_valid ∨ `end_go`; payload = core.out_valid
///     ? PiBeat{beat = the core's beat with `block` 0, depth = depth FIFO head, frame = `fid`,
///     end 0} : PiBeat{beat 0, depth 0, frame = `fid`, end 1}. core `out_ready` =
///     piw.in_ready. When a core beat with `last` transfers, pop the depth FIFO (a push and a
///     pop in one cycle both happen).
///   - piw's write (BinWrite `req`) is an arbiter client. When its write with `last` = 1 is
///     accepted: `phase` ← Queued.
/// * **Handoff** (`handoff`: the front's frame is Queued, its reads answered, and the pixel
///   side Idle or Done). At
///   its edge the front's blocks and the depth FIFO go back to new, `phase` ← Bin, `fid` ←
///   `fid` + 1, `ended`, `seq_go` ← 0; `pixel` ← Pixel, `pi_go` ← 1, `pixel_fid` ← `fid`,
///   `pixel_background` ← `background`.
/// * **Pixel phase.** pixel_info_read `in_valid` = `pi_go`, `PiStart.frame` = `pixel_fid`;
///   `pi_go` ← 0 on its transfer. pir out → shading_sort in (pir `out_ready` =
///   shading_sort.in_ready); shading_sort out → pixel_back_end in (shading `out_ready` =
///   back_end.in_ready(ready(BACK_END)), which depends on registers only); pir `rd`, shading
///   `rd` and the back end's `mem_req` are arbiter clients. `tiles_done` += 1 when a PiRecord
///   with `last` = 1 transfers into shading_sort. `fin` = (`pixel` = Pixel) ∧ `tiles_done` = T2
///   (the viewport's second tiles) ∧ shading_sort idle ∧ pixel_back_end idle ∧ `pixel_reads`
///   = 0 ∧ ¬`pi_go` (the blocks' **Idle** lines: [`ShadingSortCycle::is_idle`],
///   [`PixelBackEndCycle::idle`]). When `fin`: `pixel` ← Done.
/// * **Done.** In the Done cycle `done_valid` = 1, `done_frame` = `pixel_fid` (both decode the
///   registers) and the pixel side's blocks see `pixel_flush`; at its edge `pixel` ← Idle
///   (Pixel at a handoff), `tiles_done` ← 0. The frame's memory is complete when `done_valid`
///   is seen (every write accepted, every read of the pixel side answered). No pixel-side
///   client requests anything in the Done cycle.
///
/// **Memory arbiter** (combinational: no register but the tag FIFO and the read counts). Clients
/// in fixed priority, highest first (downstream first: the pixel side, then the front, and
/// inside each; [`frame_clients!`]):
///
/// The clients, their order, side and the base each one's requests get are
/// [`frame_clients!`]'s rows (made into [`client`] and [`CLIENT_TABLE`]).
///
/// * eligible(c) = valid(c) ∧ (req(c).write ∨ tag FIFO not full). `sel` = the lowest-index
///   eligible client; `mem_req_valid` = any eligible; `mem_req` = req(sel) with `addr` =
///   base(sel) + req(sel).addr (32-bit wrap), where base(c) is the row's region base plus, for
///   a row with a base, [`set_base`] of its side's frame id (`fid` or `pixel_fid`); the other
///   fields as they are. When no client is eligible, `mem_req` = client 0's request (the back
///   end's, whatever it holds).
/// * ready(c) = `mem_req_ready` ∧ (c = sel), client c's ready input (bin_setup `wr_ready`,
///   binner and pixel_info_write `out_ready`, the sequencer's `prd_ready` / `lrd_ready`, the
///   back end's `mem_req_ready`, shading_sort's and pixel_info_read's `rd_ready`). A read
///   accepted (`mem_req_valid` ∧ `mem_req_ready` ∧ ¬`mem_req.write`) pushes `sel` into the
///   tag FIFO and counts up `pixel_reads` or `front_reads`, by `sel`'s side.
/// * Responses: head = the tag FIFO's oldest entry. rsp_valid(c) = `mem_resp_valid` ∧ tag
///   FIFO not empty ∧ head = c; every client's response payload is `mem_resp`.
///   `mem_resp_ready` = tag FIFO empty ∨ rsp_ready(head): a response with no tag is taken and
///   dropped. A response transferred pops the tag FIFO and counts down the head's side's
///   count (a push and a pop in one cycle both happen).
/// * Only the back end's `rsp_ready` (dst_fetch's, a register) is ever low; every other
///   client's is 1.
/// * Only `flush` empties the tag FIFO and the read counts: at a handoff or a Done the other
///   side's reads may be in flight (the side that flushes has none: `handoff` and `fin` wait
///   for its reads).
///
/// **Latency and throughput** are the blocks' composed: Bin ends with the binner's finish
/// pass, Raster with pixel_info_write's, Pixel once the back end has written the last pixel;
/// frame f + 1's Bin and Raster run beside frame f's Pixel phase, and its Pixel phase starts
/// in the cycle after frame f's Done (its handoff is that Done cycle) or, when its Raster
/// phase ends later, two cycles after its pixel-info write with `last` = 1 is accepted.
/// [`FrameCycleStats`] counts the cycles of each phase.
#[derive(Clone, Debug)]
pub struct FrameCycle {
    t2: u32,
    bin_setup: BinSetupCycle,
    binner: BinnerCycle,
    tile_sequencer: TileSequencerCycle,
    core: RasterCoreCycle,
    pixel_info_write: PixelInfoWriteCycle,
    pixel_info_read: PixelInfoReadCycle,
    shading_sort: ShadingSortCycle,
    pixel_back_end: PixelBackEndCycle,
    phase: Phase,
    pixel: PixelPhase,
    fid: u8,
    pixel_fid: u8,
    ended: bool,
    background: u32,
    pixel_background: u32,
    seq_go: bool,
    pi_go: bool,
    depth: VecDeque<u32>,
    tags: VecDeque<u8>,
    front_reads: u8,
    pixel_reads: u8,
    tiles_done: u32,
    started: bool,
    /// The front's frame's counters, and the pixel side's (the front's at its handoff, then
    /// the pixel side's own).
    st: FrameCycleStats,
    pixel_st: FrameCycleStats,
    base: Base,
    /// Transfers at the top's ports so far (see [`FrameCycle::moves`]).
    moves: u64,
}

/// The raster core's checks, each naming the config field.
fn raster_core_supported(cfg: &Config) -> Result<(), String> {
    if cfg.second_subtile() != cfg.subtile {
        return Err(format!(
            "config.colour_block_bytes: the raster core needs the second sub-tile ({:?}) to equal the first ({:?})",
            cfg.second_subtile(),
            cfg.subtile
        ));
    }
    if cfg.quads_per_clock > cfg.subtile[0] / 2 {
        return Err(format!(
            "config.quads_per_clock: {} exceeds the {} quads of a sub-tile row",
            cfg.quads_per_clock,
            cfg.subtile[0] / 2
        ));
    }
    let subs = (cfg.tile[0] / cfg.subtile[0]) * (cfg.tile[1] / cfg.subtile[1]);
    if subs > 256 {
        return Err(format!(
            "config.subtile: {subs} sub-tiles per tile do not fit the packer's 8-bit block field"
        ));
    }
    crate::sample_raster::cycle::SampleRasterGeom::new(cfg).map_err(|e| format!("config.guard_band: {e}"))?;
    crate::quad_packer::cycle::QuadPackerGeom::new(cfg).map_err(|e| format!("config.viewport: {e}"))?;
    Ok(())
}

crate::block_signature! {
    /// The frame top's ports (`FrameTop`: [`FramePorts`] is one cycle's outputs as the
    /// whole-frame regression records them): primitives in, the one memory port (requests out, read
    /// responses in), and the frame's end (`done_valid`, `done_frame`).
    pub FrameTop "frame" {
        takes { inp: PrimIn, mem_resp: MemResp }
        sends { mem_req: MemReq }
        outs { done_valid: bool, done_frame: u8 }
    }
}

impl crate::cycle::BlockModel for FrameCycle {
    type Sig = FrameTopPorts;
    fn outputs(&self, _: &FrameTopIn) -> FrameTopOut {
        let (qv, q) = self.mem_req();
        let (done_valid, done_frame) = self.done();
        FrameTopOut {
            inp_ready: self.in_ready(),
            mem_resp_ready: self.mem_resp_ready(),
            mem_req: crate::cycle::Offer::new(qv, q),
            done_valid,
            done_frame,
        }
    }
    fn clock(&mut self, i: &FrameTopIn) {
        FrameCycle::clock(self, i)
    }
}

impl FrameCycle {
    /// Whether the top can be built for `cfg`: `Ok`, or one line naming the field (each
    /// block's check in pipeline order, then the framebuffer region).
    pub fn supported(cfg: &Config) -> Result<(), String> {
        cfg.validate().map_err(|e| e.to_string())?;
        BinSetupParams::try_new(cfg)?;
        BinnerCycle::new(cfg, BIN_CHUNK_BYTES).map_err(|e| format!("config.tile: binner: {e}"))?;
        TileSequencerCycle::try_new(cfg)?;
        raster_core_supported(cfg)?;
        PixelInfoWriteCycle::new(cfg).map_err(|e| {
            if e.field == "pixel_info_block_bytes" {
                format!("config.pixel_info_block_bytes: {}", e.msg)
            } else {
                format!("config.second_tile: pixel_info_write: {e}")
            }
        })?;
        PixelInfoReadCycle::try_new(cfg)?;
        ShadingSortCycle::try_new(cfg)?;
        PixelBackEndCycle::supported(cfg)?;
        let fb = 4 * cfg.viewport[0] as u64 * cfg.viewport[1] as u64 * cfg.colours_per_pixel as u64;
        if fb > REGIONS[0].2 {
            return Err(format!(
                "config.viewport: a {}x{} framebuffer of {} colour(s) per pixel takes {fb} bytes, more than the {}-byte framebuffer region",
                cfg.viewport[0], cfg.viewport[1], cfg.colours_per_pixel, REGIONS[0].2
            ));
        }
        // The on-chip RAM fits the ECP5-85F with room for a board top.
        super::ram::check_frame_ram(cfg)?;
        Ok(())
    }

    /// The top for `cfg` in its new state, or [`FrameCycle::supported`]'s line.
    pub fn try_new(cfg: &Config) -> Result<FrameCycle, String> {
        Self::try_with_opts(cfg, &pipeline_blend(cfg))
    }

    /// The top whose blender has options `opts` instead of [`pipeline_blend`]'s (the RTL is
    /// built with [`pipeline_blend`]'s).
    pub fn try_with_opts(cfg: &Config, opts: &BlendOpts) -> Result<FrameCycle, String> {
        Self::supported(cfg)?;
        crate::blender::BlenderGeom::new(cfg, opts)?;
        let pir = PixelInfoReadCycle::try_new(cfg)?;
        let t = pir.tiles();
        let mut f = FrameCycle {
            t2: t[0] * t[1],
            bin_setup: BinSetupCycle::try_new(cfg)?,
            binner: BinnerCycle::new(cfg, BIN_CHUNK_BYTES).map_err(|e| e.to_string())?,
            tile_sequencer: TileSequencerCycle::try_new(cfg)?,
            core: RasterCoreCycle::new(cfg),
            pixel_info_write: PixelInfoWriteCycle::new(cfg).map_err(|e| e.to_string())?,
            pixel_info_read: pir,
            shading_sort: ShadingSortCycle::try_new(cfg)?,
            pixel_back_end: PixelBackEndCycle::with_opts(cfg, opts),
            phase: Phase::Bin,
            pixel: PixelPhase::Idle,
            fid: 0,
            pixel_fid: 0,
            ended: false,
            background: 0,
            pixel_background: 0,
            seq_go: false,
            pi_go: false,
            depth: VecDeque::with_capacity(DEPTH_FIFO),
            tags: VecDeque::with_capacity(TAG_FIFO),
            front_reads: 0,
            pixel_reads: 0,
            tiles_done: 0,
            started: false,
            st: FrameCycleStats::default(),
            pixel_st: FrameCycleStats::default(),
            base: Base::default(),
            moves: 0,
        };
        f.base = f.raw_base();
        Ok(f)
    }

    /// The top for `cfg` in its new state.
    ///
    /// # Panics
    /// With [`FrameCycle::supported`]'s line.
    pub fn new(cfg: &Config) -> FrameCycle {
        Self::try_new(cfg).unwrap_or_else(|e| panic!("{e}"))
    }

    /// The front's phase register.
    pub fn phase(&self) -> Phase {
        self.phase
    }
    /// The pixel side's phase register.
    pub fn pixel_phase(&self) -> PixelPhase {
        self.pixel
    }
    /// The front's frame id register.
    pub fn frame_id(&self) -> u8 {
        self.fid
    }
    /// The pixel side's frame id register.
    pub fn pixel_frame_id(&self) -> u8 {
        self.pixel_fid
    }
    /// What the arbiter adds to client `c`'s addresses this cycle: its row's region base and,
    /// for a row with a base, the set of its side's frame ([`set_base`]).
    pub fn client_base(&self, c: usize) -> u32 {
        let (_, base, _, side) = CLIENT_TABLE[c];
        if base == 0 {
            return 0;
        }
        base + set_base(match side {
            Side::Front => self.fid,
            Side::Pixel => self.pixel_fid,
        })
    }
    /// Second tiles of the viewport (T2).
    pub fn second_tiles(&self) -> u32 {
        self.t2
    }
    /// The `tiles_done` register.
    pub fn tiles_done(&self) -> u32 {
        self.tiles_done
    }
    /// Reads in flight (tag FIFO entries), oldest first, as client indices.
    pub fn reads_in_flight(&self) -> Vec<usize> {
        self.tags.iter().map(|&c| c as usize).collect()
    }

    /// Ready for a [`PrimIn`] this cycle (registers only).
    pub fn in_ready(&self) -> bool {
        self.take_in() && self.bin_setup.in_ready(self.binner.in_ready(false))
    }

    /// The memory request this cycle: (`mem_req_valid`, `mem_req`) (registers only).
    pub fn mem_req(&self) -> (bool, MemReq) {
        let a = self.arbiter();
        (a.1.is_some(), a.2)
    }

    /// The arbiter's inputs this cycle: each client's (valid, request), the request as the
    /// client shows it (offset in its region, before the base is added).
    pub fn client_requests(&self) -> [(bool, MemReq); CLIENTS] {
        self.arbiter().0
    }

    /// The arbiter's selected client this cycle ([`client`] indices; `None` when no client is
    /// eligible).
    pub fn mem_client(&self) -> Option<usize> {
        self.arbiter().1
    }

    /// Ready for a memory response this cycle (registers only).
    pub fn mem_resp_ready(&self) -> bool {
        match self.tags.front() {
            Some(&h) if h as usize == client::BACK_END => self.pixel_back_end.mem_resp_ready(),
            _ => true,
        }
    }

    /// (`done_valid`, `done_frame`).
    pub fn done(&self) -> (bool, u8) {
        (self.pixel == PixelPhase::Done, self.pixel_fid)
    }

    /// The counters of the current frame (module [`FrameCycleStats`]).
    /// Edges so far at which something moved at the top's ports: a primitive taken, a memory
    /// request accepted or a response taken, a Done or a flush. Never reset; a run whose count
    /// stands still for longer than [`FrameCycle::quiet_bound`] has stopped ([`Watchdog`]).
    pub fn moves(&self) -> u64 {
        self.moves
    }

    /// The most edges in a row at which nothing moves at the ports while the top works, by the
    /// blocks' contracts, with the memory answering at once, doubled: shading_sort's Readout and
    /// radix passes over a full second tile with the widest primitive span (N +
    /// passes·(5 + 2N + D) edges, N = w·h·S, D = 2^d, d = [`tile_digit_bits`], passes for 21
    /// primitive bits) or its Init sweep (w·h ≥ D), whichever is longer, plus 4096. A stalled
    /// memory adds its stall.
    ///
    /// [`tile_digit_bits`]: crate::shading_sort::tile_digit_bits
    pub fn quiet_bound(cfg: &Config) -> u64 {
        let [w, h] = cfg.second_tile;
        let p = w as u64 * h as u64;
        let n = p * cfg.msaa as u64;
        let d = crate::shading_sort::tile_digit_bits(cfg);
        let dd = 1u64 << d;
        let passes = crate::shading_sort::sort_passes(crate::shading_sort::PRIM_ID_BITS, d) as u64;
        let sort = n + passes * (5 + 2 * n + dd);
        2 * sort.max(p.max(dd)) + 4096
    }

    /// The counters of the frame in flight ([`FrameCycleStats`]): the pixel side's frame
    /// while it has one (`pixel` = Pixel or Done), else the front's so far.
    pub fn stats(&self) -> FrameCycleStats {
        if self.pixel == PixelPhase::Idle {
            return self.front_stats();
        }
        let mut s = self.pixel_st;
        s.cycles =
            s.bin_cycles + s.raster_cycles + s.queued_cycles + s.pixel_cycles + (self.pixel == PixelPhase::Done) as u64;
        s.tiles_done = self.tiles_done as u64;
        s.pi_read = lists_minus(self.pixel_info_read.stats(), self.base.pir);
        s.shade = self.shading_sort.stats();
        s.shading = self.shading_sort.extra_stats();
        s.back_end = self.pixel_back_end.stats();
        s
    }

    /// The front's frame's counters so far, its blocks' included.
    fn front_stats(&self) -> FrameCycleStats {
        let mut s = self.st;
        let b = &self.base;
        s.cycles = s.bin_cycles + s.raster_cycles + s.queued_cycles;
        s.bin_setup = minus!(
            BinSetupStats,
            self.bin_setup.stats(),
            b.bs,
            [
                prims,
                frames,
                boxes,
                zero_area,
                culled,
                no_size,
                offscreen,
                writes,
                wr_stalled,
                out_stalled
            ]
        );
        s.binner = minus!(
            BinnerCycleStats,
            self.binner.stats(),
            b.bn,
            [boxes, frames, tiles, writes, stalled]
        );
        s.sequencer = minus!(
            TileSequencerStats,
            self.tile_sequencer.stats(),
            b.seq,
            [starts, cmds, ends, empty_tiles, prim_reads, slot_waits]
        );
        s.seq_lists = lists_minus(self.tile_sequencer.list_stats(), b.seq_lists);
        s.pi_write = minus!(
            PixelInfoWriteStats,
            self.pixel_info_write.stats(),
            b.piw,
            [beats, frames, quads, writes, stalled]
        );
        s
    }

    fn raw_base(&self) -> Base {
        Base {
            bs: self.bin_setup.stats(),
            bn: self.binner.stats(),
            seq: self.tile_sequencer.stats(),
            seq_lists: self.tile_sequencer.list_stats(),
            piw: self.pixel_info_write.stats(),
            pir: self.pixel_info_read.stats(),
        }
    }

    /// The front's frame goes to the pixel side at this cycle's edge: it is Queued, its reads
    /// are answered, and the pixel side is Idle or Done.
    fn handoff(&self) -> bool {
        self.phase == Phase::Queued && self.pixel != PixelPhase::Pixel && self.front_reads == 0
    }

    /// The reads-in-flight count of client `c`'s side.
    fn reads_of(&mut self, c: usize) -> &mut u8 {
        match CLIENT_TABLE[c].3 {
            Side::Front => &mut self.front_reads,
            Side::Pixel => &mut self.pixel_reads,
        }
    }

    fn take_in(&self) -> bool {
        self.phase == Phase::Bin && !self.ended
    }

    /// The clients' requests, `sel` and the port's request.
    fn arbiter(&self) -> ([(bool, MemReq); CLIENTS], Option<usize>, MemReq) {
        let reqs = crate::frame_clients! { client_requests; self };
        let room = self.tags.len() < TAG_FIFO;
        let sel = (0..CLIENTS).find(|&c| reqs[c].0 && (reqs[c].1.write || room));
        let c = sel.unwrap_or(0);
        let mut q = reqs[c].1;
        q.addr = q.addr.wrapping_add(self.client_base(c));
        (reqs, sel, q)
    }

    fn wires(&self, mem_req_ready: bool, mem_resp_valid: bool) -> Wires {
        let mut w = Wires {
            take_in: self.take_in(),
            box_ready: self.binner.in_ready(false),
            ..Wires::default()
        };
        w.in_ready = w.take_in && self.bin_setup.in_ready(w.box_ready);

        // Arbiter.
        let (reqs, sel, q) = self.arbiter();
        for (c, (v, _)) in reqs.iter().enumerate() {
            w.valid[c] = *v;
            w.ready[c] = mem_req_ready && sel == Some(c);
        }
        w.sel = sel;
        w.mem_req_valid = sel.is_some();
        w.mem_req = q;
        let head = self.tags.front().map(|&h| h as usize);
        for (c, v) in w.rsp_valid.iter_mut().enumerate() {
            *v = mem_resp_valid && head == Some(c);
        }
        w.mem_resp_ready = self.mem_resp_ready();
        w.bin_last = w.valid[client::BINNER] && self.binner.out().1.last && w.ready[client::BINNER];
        w.piw_last = w.valid[client::PI_WRITE] && self.pixel_info_write.out().1.last && w.ready[client::PI_WRITE];

        // Raster.
        let (sv, sc) = self.tile_sequencer.out();
        let (cv, beat) = self.core.out();
        let room = self.depth.len() < DEPTH_FIFO;
        w.piw_in_ready = self.pixel_info_write.in_ready(false);
        w.core_cmd_ready = self.core.in_ready(w.piw_in_ready);
        let end_go = if sc.end {
            w.core_cmd_valid = false;
            let go = sv && self.depth.is_empty() && !cv;
            w.seq_out_ready = go && w.piw_in_ready;
            go
        } else {
            w.core_cmd_valid = sv && room;
            w.seq_out_ready = w.core_cmd_ready && room;
            false
        };
        w.piw_in_valid = cv || end_go;
        w.piw_in = if cv {
            PiBeat {
                beat: Beat { block: [0; 4], ..beat },
                depth: self.depth.front().copied().unwrap_or(0),
                frame: self.fid,
                end: false,
            }
        } else {
            PiBeat {
                beat: Beat::default(),
                depth: 0,
                frame: self.fid,
                end: true,
            }
        };
        w.depth_push = w.core_cmd_valid && w.core_cmd_ready;
        w.depth_pop = cv && w.piw_in_ready && beat.last;

        // Pixel.
        w.ss_in_ready = self.shading_sort.in_ready();
        w.be_in_ready = self.pixel_back_end.in_ready(w.ready[client::BACK_END]);
        let (rv, rec) = self.pixel_info_read.out();
        w.last_in = rv && w.ss_in_ready && rec.last;
        w.fin = self.pixel == PixelPhase::Pixel
            && self.tiles_done == self.t2
            && self.shading_sort.is_idle()
            && self.pixel_back_end.idle()
            && self.pixel_reads == 0
            && !self.pi_go;
        w.handoff = self.handoff();
        w
    }

    /// The port values of this cycle for the given inputs (outputs as predicted).
    #[allow(clippy::too_many_arguments)]
    pub fn ports(
        &self,
        cycle: u64,
        in_valid: bool,
        inp: &PrimIn,
        mem_req_ready: bool,
        mem_resp_valid: bool,
        mem_resp: &MemResp,
        flush: bool,
    ) -> FramePorts {
        let (qv, q) = self.mem_req();
        let (dv, df) = self.done();
        FramePorts {
            cycle,
            flush,
            in_valid,
            inp: *inp,
            mem_req_ready,
            mem_resp_valid,
            mem_resp: *mem_resp,
            in_ready: self.in_ready(),
            mem_req_valid: qv,
            mem_req: q,
            mem_resp_ready: self.mem_resp_ready(),
            done_valid: dv,
            done_frame: df,
        }
    }

    /// One rising edge.
    pub fn clock(&mut self, i: &FrameTopIn) {
        let w = self.wires(i.mem_req_ready, i.mem_resp.valid);
        let front_flush = i.flush || w.handoff;
        let pixel_flush = i.flush || self.pixel == PixelPhase::Done;
        let (fid, pixel_fid) = (self.fid, self.pixel_fid);
        let r = &i.mem_resp.payload;
        // Every block's inputs are taken from the registers before the edge.
        let (bv, bbox) = self.bin_setup.out();
        let (_, sc) = self.tile_sequencer.out();
        let (pv, rec) = self.pixel_info_read.out();
        let (ov, pix) = self.shading_sort.out();
        let seq_in_ready = self.tile_sequencer.in_ready();
        let pir_in_ready = self.pixel_info_read.in_ready();
        let in_take = i.inp.valid && w.in_ready;
        let port_moved = (w.mem_req_valid && i.mem_req_ready) || (i.mem_resp.valid && w.mem_resp_ready);
        self.moves += (in_take || port_moved || front_flush || pixel_flush) as u64;
        self.bin_setup.clock(&BinSetupIn {
            flush: front_flush,
            inp: Offer::new(i.inp.valid && w.take_in, i.inp.payload),
            out_ready: w.box_ready,
            wr_ready: w.ready[client::BIN_SETUP],
        });
        self.binner.clock(bv, &bbox, w.ready[client::BINNER], front_flush);
        self.tile_sequencer.clock(&TileSequencerIn {
            flush: front_flush,
            inp: Offer::new(self.seq_go, SeqStart { frame: fid }),
            lrsp: Offer::new(w.rsp_valid[client::SEQ_LISTS], *r),
            prsp: Offer::new(w.rsp_valid[client::SEQ_PRIMS], *r),
            out_ready: w.seq_out_ready,
            lrd_ready: w.ready[client::SEQ_LISTS],
            prd_ready: w.ready[client::SEQ_PRIMS],
        });
        self.core.clock(w.core_cmd_valid, &sc.cmd, w.piw_in_ready, front_flush);
        self.pixel_info_write
            .clock(w.piw_in_valid, &w.piw_in, w.ready[client::PI_WRITE], front_flush);
        self.pixel_info_read.clock(&PixelInfoReadIn {
            flush: pixel_flush,
            inp: Offer::new(self.pi_go, PiStart { frame: pixel_fid }),
            rsp: Offer::new(w.rsp_valid[client::PI_READ], *r),
            out_ready: w.ss_in_ready,
            rd_ready: w.ready[client::PI_READ],
        });
        self.shading_sort.clock(&ShadingSortIn {
            flush: pixel_flush,
            inp: Offer::new(pv, rec),
            rsp: Offer::new(w.rsp_valid[client::SHADING], *r),
            out_ready: w.be_in_ready,
            rd_ready: w.ready[client::SHADING],
        });
        self.pixel_back_end.clock(&PixelBackEndIn {
            flush: pixel_flush,
            inp: Offer::new(ov, pix),
            mem_resp: Offer::new(w.rsp_valid[client::BACK_END], *r),
            mem_req_ready: w.ready[client::BACK_END],
            background: self.pixel_background,
        });

        if i.flush {
            // Every register back to new, the counters restart.
            self.phase = Phase::Bin;
            self.pixel = PixelPhase::Idle;
            self.fid = 0;
            self.pixel_fid = 0;
            self.background = 0;
            self.pixel_background = 0;
            self.ended = false;
            self.seq_go = false;
            self.pi_go = false;
            self.depth.clear();
            self.tags.clear();
            self.front_reads = 0;
            self.pixel_reads = 0;
            self.tiles_done = 0;
            self.started = false;
            self.st = FrameCycleStats::default();
            self.pixel_st = FrameCycleStats::default();
            self.base = self.raw_base();
            return;
        }

        // Counters: the front's frame's and the pixel side's.
        if in_take {
            self.started = true;
        }
        let st = &mut self.st;
        match self.phase {
            Phase::Bin => st.bin_cycles += self.started as u64,
            Phase::Raster => st.raster_cycles += 1,
            Phase::Queued => st.queued_cycles += 1,
        }
        st.cmds += w.depth_push as u64;
        st.beats += (w.piw_in_valid && !w.piw_in.end && w.piw_in_ready) as u64;
        self.pixel_st.pixel_cycles += (self.pixel == PixelPhase::Pixel) as u64;
        let accepted = w.mem_req_valid && i.mem_req_ready;
        if let Some(c) = w.sel {
            let pixel_side = CLIENT_TABLE[c].3 == Side::Pixel;
            let st = if pixel_side { &mut self.pixel_st } else { &mut self.st };
            st.mem_stalled += !i.mem_req_ready as u64;
            if accepted {
                st.pixel_bytes += 4 * pixel_side as u64;
                let cs = &mut st.clients[c];
                cs.requests += 1;
                cs.bytes += 4;
                if w.mem_req.write {
                    cs.writes += 1;
                } else {
                    cs.reads += 1;
                }
            }
        }

        // The read tags: pushed by a read accepted, popped by its response.
        if i.mem_resp.valid && w.mem_resp_ready {
            if let Some(h) = self.tags.pop_front() {
                *self.reads_of(h as usize) -= 1;
            }
        }
        if let (true, Some(c)) = (accepted && !w.mem_req.write, w.sel) {
            self.tags.push_back(c as u8);
            *self.reads_of(c) += 1;
        }
        let n = self.tags.len() as u32;
        let mut seen = [false; CLIENTS];
        for &c in &self.tags {
            seen[c as usize] = true;
        }
        let clients = seen.iter().filter(|&&s| s).count() as u32;
        for st in [&mut self.st, &mut self.pixel_st] {
            st.max_reads_in_flight = st.max_reads_in_flight.max(n);
            st.max_read_clients = st.max_read_clients.max(clients);
        }

        // The pixel side's registers.
        if self.pixel == PixelPhase::Done {
            self.pixel = PixelPhase::Idle;
            self.tiles_done = 0;
            self.base.pir = self.pixel_info_read.stats();
        }
        if self.pi_go && pir_in_ready {
            self.pi_go = false;
        }
        if w.last_in {
            self.tiles_done = self.tiles_done.wrapping_add(1);
        }
        if w.fin {
            self.pixel = PixelPhase::Done;
        }

        // The front's registers.
        if w.handoff {
            // The front's frame goes to the pixel side with its counters so far; the front
            // starts the next frame.
            self.pixel_st = self.front_stats();
            self.pixel = PixelPhase::Pixel;
            self.pi_go = true;
            self.pixel_fid = fid;
            self.pixel_background = self.background;
            self.phase = Phase::Bin;
            self.fid = fid.wrapping_add(1);
            self.ended = false;
            self.seq_go = false;
            self.depth.clear();
            self.started = false;
            self.st = FrameCycleStats::default();
            let raw = self.raw_base();
            self.base = Base {
                pir: self.base.pir,
                ..raw
            };
            return;
        }
        if in_take && i.inp.payload.end {
            self.ended = true;
            self.background = i.inp.payload.colour;
        }
        if self.seq_go && seq_in_ready {
            self.seq_go = false;
        }
        if w.bin_last {
            self.phase = Phase::Raster;
            self.seq_go = true;
        }
        if w.depth_pop {
            self.depth.pop_front();
        }
        if w.depth_push {
            self.depth.push_back(sc.depth & 0xff_ffff);
        }
        if w.piw_last {
            self.phase = Phase::Queued;
        }
    }
}

/// One frame of [`run_frames`].
#[derive(Clone, Debug)]
pub struct FrameDone {
    /// The cycle (from the run's start) in which `done_valid` was high.
    pub done_cycle: u64,
    /// `done_frame`.
    pub frame_id: u8,
    /// [`FrameCycleStats::cycles`]: from the first primitive's transfer to the Done cycle.
    pub cycles: u64,
    pub stats: FrameCycleStats,
    /// The whole memory in the Done cycle.
    pub memory: SparseMemory,
}

/// What [`run_frames`] gives.
#[derive(Clone, Debug)]
pub struct FrameRun {
    pub frames: Vec<FrameDone>,
    /// Cycles run (the last Done cycle included).
    pub cycles: u64,
    pub mem_stats: MemStats,
}

/// Stops a run that has stopped moving, instead of a fixed cycle budget that would also stop
/// a long frame still making progress: [`Watchdog::check`] fails once [`FrameCycle::moves`]
/// has stood still for more than [`FrameCycle::quiet_bound`] plus the longest memory stall
/// the run drives.
#[derive(Clone, Copy, Debug)]
pub struct Watchdog {
    /// Edges without a move that still count as working.
    pub limit: u64,
    moves: u64,
    since: u64,
}

impl Watchdog {
    /// For `cfg`, with memory stalls of up to `stall` cycles.
    pub fn new(cfg: &Config, stall: u64) -> Watchdog {
        Watchdog {
            limit: FrameCycle::quiet_bound(cfg).saturating_add(stall),
            moves: 0,
            since: 0,
        }
    }

    /// Called once per cycle with the top's [`FrameCycle::moves`]: `Err` with one line once
    /// nothing has moved for more than [`Watchdog::limit`] cycles (`cycle` is the cycle now).
    pub fn check(&mut self, cycle: u64, top: &FrameCycle) -> Result<(), String> {
        if top.moves() != self.moves {
            self.moves = top.moves();
            self.since = cycle;
        } else if cycle - self.since > self.limit {
            return Err(format!(
                "no progress for {} cycles (cycle {cycle}: nothing moved at the frame top's ports since cycle {}; \
                 the watchdog allows {}), phase {:?}, pixel side {:?}, {} of {} second tiles",
                cycle - self.since,
                self.since,
                self.limit,
                top.phase(),
                top.pixel_phase(),
                top.tiles_done(),
                top.second_tiles()
            ));
        }
        Ok(())
    }
}

/// [`run_frames`] calling `trace` with every cycle's ports before its edge.
pub fn run_frames_traced(
    cfg: &Config,
    frames: &[&Frame],
    mem: MemBehaviour,
    max_cycles: u64,
    mut trace: impl FnMut(&FramePorts),
) -> Result<FrameRun, String> {
    let mut top = FrameCycle::try_with_opts(cfg, &mem.blend.unwrap_or_else(|| pipeline_blend(cfg)))?;
    let mut beats = Vec::with_capacity(frames.len());
    for (i, f) in frames.iter().enumerate() {
        if f.cfg != *cfg {
            return Err(format!("frames[{i}].cfg: differs from the run's config `{}`", cfg.name));
        }
        if f.prims.len() as u64 > 1 << PRIM_ID_BITS {
            return Err(format!(
                "frames[{i}].prims: {} primitives exceed the 2^{PRIM_ID_BITS} ids of a shading point",
                f.prims.len()
            ));
        }
        beats.push(frame_beats(&f.prims, f.background).map_err(|e| format!("frames[{i}].{e}"))?);
    }
    let Some(first) = frames.first() else {
        return Ok(FrameRun {
            frames: vec![],
            cycles: 0,
            mem_stats: MemStats::default(),
        });
    };
    let mut m = MemoryCycle::new(mem.timing, framebuffer(cfg, first.background));
    let mut grants = mem.grant_line();
    let mut done = Vec::with_capacity(frames.len());
    // The frame offered and its next beat (offered back to back: the top takes the next frame
    // once the front is free), and the frame whose Done comes next.
    let (mut offer, mut next) = (0usize, 0usize);
    let mut dog = Watchdog::new(cfg, mem.stall.1.saturating_sub(mem.stall.0));
    for cyc in 0..max_cycles {
        let f = done.len();
        dog.check(cyc, &top)
            .map_err(|e| format!("frame: frame {f} of {}: {e}", frames.len()))?;
        let grant = grants(cyc);
        let req_ready = m.req_ready(grant);
        let (rv, resp) = m.resp();
        let (qv, q) = top.mem_req();
        let resp_ready = top.mem_resp_ready();
        let in_valid = offer < frames.len() && next < beats[offer].len();
        let inp = if in_valid {
            beats[offer][next]
        } else {
            PrimIn::default()
        };
        trace(&top.ports(cyc, in_valid, &inp, req_ready, rv, &resp, false));
        if qv && req_ready {
            if let Some(c) = top.mem_client() {
                let (name, _, region, _) = CLIENT_TABLE[c];
                let off = q.addr.wrapping_sub(top.client_base(c)) as u64;
                if off + 4 > REGIONS[region].2 {
                    return Err(format!(
                        "frames[{f}]: {name} addresses byte {off} of the {} region ({} bytes)",
                        REGIONS[region].0, REGIONS[region].2
                    ));
                }
            }
        }
        if in_valid && top.in_ready() {
            next += 1;
            if next == beats[offer].len() {
                (offer, next) = (offer + 1, 0);
            }
        }
        let (dv, id) = top.done();
        if dv {
            let stats = top.stats();
            done.push(FrameDone {
                done_cycle: cyc,
                frame_id: id,
                cycles: stats.cycles,
                stats,
                memory: m.mem.clone(),
            });
        }
        top.clock(&FrameTopIn {
            flush: false,
            inp: Offer::new(in_valid, inp),
            mem_resp: Offer::new(rv, resp),
            mem_req_ready: req_ready,
        });
        m.clock(qv, &q, grant, resp_ready, false);
        if dv {
            let f = done.len();
            if f == frames.len() {
                return Ok(FrameRun {
                    frames: done,
                    cycles: cyc + 1,
                    mem_stats: m.stats,
                });
            }
            // The testbench clears the framebuffer to the next background (its Pixel phase
            // starts after this edge at the earliest).
            for (a, w) in framebuffer(cfg, frames[f].background).words() {
                m.mem.write(a, w, 0xf);
            }
        }
    }
    let f = done.len();
    Err(format!(
        "frame: {} of {} frames done after {max_cycles} cycles (frame {f}: {next} of {} inputs of frame {offer} taken, phase {:?}, pixel side {:?}, {} of {} second tiles)",
        done.len(),
        frames.len(),
        beats.get(offer).map_or(0, Vec::len),
        top.phase(),
        top.pixel_phase(),
        top.tiles_done(),
        top.second_tiles()
    ))
}

/// Run `frames` (each with `cfg`) through [`FrameCycle`] back to back, one primitive offered
/// per cycle, the next frame's first primitive right after the last one's end token, a
/// [`MemoryCycle`] behind the port with `mem`'s timing, grant back-pressure and stall. The
/// memory starts as the first frame's background in every framebuffer slot ([`framebuffer`])
/// and nothing else; at each Done edge the testbench rewrites the framebuffer to the next
/// frame's background.
/// Per frame: the Done cycle, `done_frame`, the counters and the memory at its Done. `Err`
/// (one line) for a config or frame the top cannot take, a request beyond its client's
/// region, a run that stops moving ([`Watchdog`]), or `max_cycles` reached (`u64::MAX`: no
/// budget, only the watchdog).
pub fn run_frames(cfg: &Config, frames: &[&Frame], mem: MemBehaviour, max_cycles: u64) -> Result<FrameRun, String> {
    run_frames_traced(cfg, frames, mem, max_cycles, |_| {})
}
