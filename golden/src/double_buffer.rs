//! # double_buffer (no seed: the board top's map of the GPU's memory port, issue 35)
//!
//! Between the frame top's memory port and the board's memory (through the board arbiter's GPU
//! client): the frame's 32-bit address space ([`crate::frame`]'s regions, two sets) placed in
//! the board's SDRAM ([`BoardMap`]), and the framebuffer doubled. The frame renders into the
//! back buffer while the scan-out shows the front one; the two swap once the frame's `done`
//! has come, and the scan-out takes the new front at its next vertical blank. Before a frame
//! writes its back buffer, the block clears it to the frame's background, because the frame's
//! memory starts from the background in every slot ([`crate::frame::frame_memory`]: the back
//! end writes only the pixels it covers, and it skips empty second tiles).
//!
//! ```text
//!   ends (FrameEnd) ─► backgrounds FIFO (END_DEPTH) ─────────────┐ head: the frame being drawn
//!   inp (MemReq) ─► map (region, set → board window) ─► slot ─┬─ framebuffer? wait for `open` ─┐
//!                                                             └─ other regions ───────────────┴─► out
//!   clear walk: background → every word of the back buffer ─────────────────(when the slot waits)─┘
//!   done ─► pending ─► swap (cleared, the slot holds no framebuffer request): front ^= 1
//!   shown (the buffer the scan-out latched) = front ∧ cleared ─► open (framebuffer requests go)
//! ```

use crate::cycle::{BlockModel, Offer};
use crate::frame::{BINS, PIXEL_INFO, PRIMS, REGIONS, SET_STRIDE};
use crate::streams::{FrameEnd, MemReq};

/// Backgrounds held: frames whose end token the frame top took and that have not swapped in
/// (the frame top has two frames in flight; `ends_ready` holds a third frame's end token).
pub const END_DEPTH: usize = 4;

/// Where the frame's regions live in the board's memory: two framebuffers and, per region set,
/// the prim table, the bin lists and the pixel info, each a window (base, bytes).
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct BoardMap {
    /// Bytes of one framebuffer (the frame's viewport, 4 bytes per colour slot).
    pub fb_bytes: u32,
    /// The two framebuffers' bases (aligned to a power of two at least `fb_bytes`).
    pub buffers: [u32; 2],
    /// Per set, per region of [`crate::frame::REGIONS`] after the framebuffer (prims, bins,
    /// pixel info): base and bytes.
    pub windows: [[(u32, u32); 3]; 2],
    /// The memory's size: a request outside every window goes here (beyond the part: the SDRAM
    /// controller refuses it and answers a read 0) and sets `error`.
    pub limit: u32,
}

/// Where a frame address lands ([`BoardMap::map`]).
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum Target {
    /// The framebuffer, at this byte offset (in the back buffer).
    Framebuffer(u32),
    /// A board address of another region.
    Board(u32),
    /// No window holds it.
    Outside,
}

impl BoardMap {
    /// The map of a memory of `memory_bytes` for a framebuffer of `fb_bytes`: the two
    /// framebuffers first, each in a power-of-two slot; the rest split in two sets, each a
    /// seventh prims, two sevenths bins, four sevenths pixel info (32 MiB and 640 × 480: 2 MiB
    /// slots, 14 MiB sets of 2 + 4 + 8 MiB).
    pub fn new(memory_bytes: u64, fb_bytes: u32) -> Result<BoardMap, String> {
        let slot = u64::from(fb_bytes.max(4)).next_power_of_two();
        let set_bytes = memory_bytes.saturating_sub(2 * slot) / 2;
        let unit = set_bytes / 7 / 4 * 4;
        if memory_bytes > 1 << 31 || unit < 4096 {
            return Err(format!(
                "board map: a memory of {memory_bytes} bytes cannot hold two {fb_bytes}-byte framebuffers and two sets of regions (at least 4 KiB of prims each)"
            ));
        }
        let window = |set: u64| {
            let base = 2 * slot + set * set_bytes;
            [
                (base, unit),
                (base + unit, 2 * unit),
                (base + 3 * unit, set_bytes - 3 * unit),
            ]
            .map(|(b, n)| (b as u32, n as u32))
        };
        Ok(BoardMap {
            fb_bytes,
            buffers: [0, slot as u32],
            windows: [window(0), window(1)],
            limit: memory_bytes as u32,
        })
    }

    /// The map of a board's frame row: its SDRAM and its preset's framebuffer.
    pub fn for_board(board: &crate::board::Board) -> Result<BoardMap, String> {
        let f = board
            .frame
            .as_ref()
            .ok_or_else(|| format!("board {}: no frame row (no SDRAM and screen)", board.name))?;
        let cfg = crate::Config::preset(f.preset).map_err(|e| format!("board {}: {e}", board.name))?;
        let fb = cfg.viewport[0] * cfg.viewport[1] * cfg.colours_per_pixel * 4;
        BoardMap::new(f.sdram.bytes(), fb).map_err(|e| format!("board {}: {e}", board.name))
    }

    /// Where frame address `addr` goes.
    pub fn map(&self, addr: u32) -> Target {
        if addr < PRIMS {
            return if addr < self.fb_bytes {
                Target::Framebuffer(addr)
            } else {
                Target::Outside
            };
        }
        let set = usize::from(addr >= SET_STRIDE);
        let a = addr & !SET_STRIDE;
        if a < PRIMS {
            return Target::Outside;
        }
        let r = if a < BINS {
            0
        } else if a < PIXEL_INFO {
            1
        } else {
            2
        };
        let offset = a - REGIONS[r + 1].1;
        let (base, bytes) = self.windows[set][r];
        if offset < bytes {
            Target::Board(base + offset)
        } else {
            Target::Outside
        }
    }
}

/// Counters, for tests that assert activity (kept across flushes).
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq)]
pub struct DoubleBufferStats {
    /// Requests of the frame passed on, framebuffer requests among them.
    pub requests: u64,
    pub framebuffer: u64,
    /// Clear writes sent, back buffers cleared, swaps.
    pub clear_writes: u64,
    pub clears: u64,
    pub swaps: u64,
    /// Cycles a framebuffer request waited for its buffer.
    pub held: u64,
    /// Most dones waiting for a swap.
    pub peak_pending: u32,
    /// End tokens held back (`ends_ready` low).
    pub ends_refused: u64,
}

/// The backgrounds FIFO as the RTL's ring holds it: its head entry is on the clear's `wdata`
/// even when the FIFO is empty (the last one popped; a flush resets the pointers only).
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq)]
struct Ring {
    entries: [u32; END_DEPTH],
    head: usize,
    count: usize,
}

impl Ring {
    fn head(&self) -> u32 {
        self.entries[self.head]
    }
    fn push(&mut self, v: u32) {
        self.entries[(self.head + self.count) % END_DEPTH] = v;
        self.count += 1;
    }
    fn pop(&mut self) {
        self.head = (self.head + 1) % END_DEPTH;
        self.count -= 1;
    }
}

/// The request slot: the frame's request, mapped.
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq)]
struct Slot {
    full: bool,
    /// A framebuffer request: `req.addr` is the offset in the back buffer.
    framebuffer: bool,
    /// Swaps still to come before the request's frame is the one being drawn (`pending` after
    /// the edge that took it: a request taken after its frame's predecessor was done).
    ahead: u32,
    req: MemReq,
}

/// The block, cycle by cycle.
///
/// **Timing contract** (the RTL's ports, cycle by cycle):
/// * **State.** `front` (the buffer to show; the back buffer is the other), `cleared` (the
///   back buffer holds the current frame's background), the clear walk (`clearing`, its byte
///   offset), `pending` (dones not yet swapped), `open` (framebuffer requests may go), the
///   backgrounds FIFO (one per frame end taken and not yet swapped in, at most [`END_DEPTH`];
///   its head is the frame being drawn), the request slot, the sticky `error`. All 0 / empty
///   after `new` or a flush: front 0, so the first frame draws into buffer 1.
/// * **Outputs** (from the state; ready also from `out_ready`): pass = the slot is full ∧
///   (not a framebuffer request ∨ (`open` ∧ its `ahead` = 0)); `out_valid` = pass ∨
///   `clearing`; `out` = the slot's request (a framebuffer offset plus the back buffer's base)
///   when pass, else the clear's write (the background at the walk's offset in the back
///   buffer, all bytes); `inp_ready` = the slot empty ∨ (`out_ready` ∧ pass); `ends_ready` =
///   the FIFO not full; `front`; `error`.
/// * **Edge.** The slot takes `inp` when valid and ready, mapped by [`BoardMap::map`] (a
///   request outside every window goes to `limit` and sets `error`), else empties when its
///   request went; a request's `ahead` is `pending` after the edge that takes it (it belongs to
///   a frame after the one being drawn), and a swap counts it down. A clear write taken
///   (`out_ready`, `clearing`, not pass) steps the walk; the last word's ends it (`cleared`).
///   A walk starts when the back buffer is neither cleared nor being cleared, `shown` =
///   `front` (the scan-out shows the front buffer) and a background is held. A swap, when
///   `cleared` ∧ (`pending` > 0 ∨ `done`) ∧ the slot holds no framebuffer request of the frame
///   being drawn (`ahead` = 0): `front` flips, `cleared` falls, the head background leaves;
///   `pending` becomes `pending` + `done` − swap. `open` ← ¬swap ∧ `cleared` ∧ `shown` =
///   `front` (before the edge: it opens the cycle after the clear's last write, and closes at
///   a swap). An end token taken pushes its background.
/// * **Assumes** the frame's `done` comes after its last request was taken, and `shown`
///   follows `front` (the scan-out latches the front buffer at vertical blank, synchronised).
#[derive(Clone, Debug)]
pub struct DoubleBufferCycle {
    map: BoardMap,
    front: bool,
    cleared: bool,
    clearing: bool,
    clear_offset: u32,
    pending: u32,
    open: bool,
    backgrounds: Ring,
    slot: Slot,
    error: bool,
    stats: DoubleBufferStats,
    /// The planted bug of the tests: the back buffer opens without waiting for the scan-out
    /// to show the front one (a swap that does not wait for vertical blank: a torn frame).
    no_vblank_wait: bool,
}

impl DoubleBufferCycle {
    pub fn new(map: BoardMap) -> DoubleBufferCycle {
        DoubleBufferCycle {
            map,
            front: false,
            cleared: false,
            clearing: false,
            clear_offset: 0,
            pending: 0,
            open: false,
            backgrounds: Ring::default(),
            slot: Slot::default(),
            error: false,
            stats: DoubleBufferStats::default(),
            no_vblank_wait: false,
        }
    }

    pub fn map(&self) -> &BoardMap {
        &self.map
    }

    pub fn stats(&self) -> DoubleBufferStats {
        self.stats
    }

    /// The buffer to show (the scan-out's next base is `map().buffers[front]`).
    pub fn front(&self) -> bool {
        self.front
    }

    pub fn error(&self) -> bool {
        self.error
    }

    /// The mutant's model (cosim's `double_buffer` mutant): `shown` is taken as the front
    /// buffer always, so the clear and the frame's writes go into the buffer on the screen.
    pub fn plant_no_vblank_wait_bug(&mut self) {
        self.no_vblank_wait = true;
    }

    fn shows_front(&self, shown: bool) -> bool {
        self.no_vblank_wait || shown == self.front
    }

    fn back_base(&self) -> u32 {
        self.map.buffers[usize::from(!self.front)]
    }

    /// The slot holds a framebuffer request of the frame being drawn.
    fn drawing(&self) -> bool {
        self.slot.full && self.slot.framebuffer && self.slot.ahead == 0
    }

    fn passes(&self) -> bool {
        self.slot.full && (!self.slot.framebuffer || (self.open && self.slot.ahead == 0))
    }

    /// `out_valid` and `out`.
    pub fn out(&self) -> (bool, MemReq) {
        if self.passes() {
            let mut q = self.slot.req;
            if self.slot.framebuffer {
                q.addr = self.back_base().wrapping_add(q.addr);
            }
            return (true, q);
        }
        let clear = MemReq {
            addr: self.back_base().wrapping_add(self.clear_offset),
            write: true,
            wdata: self.backgrounds.head(),
            be: 0xf,
        };
        (self.clearing, clear)
    }

    pub fn inp_ready(&self, out_ready: bool) -> bool {
        !self.slot.full || (out_ready && self.passes())
    }

    pub fn ends_ready(&self) -> bool {
        self.backgrounds.count < END_DEPTH
    }

    /// One rising edge.
    #[allow(clippy::too_many_arguments)]
    pub fn clock(
        &mut self,
        inp_valid: bool,
        inp: &MemReq,
        out_ready: bool,
        ends_valid: bool,
        end: &FrameEnd,
        done: bool,
        shown: bool,
        flush: bool,
    ) {
        if flush {
            let (map, stats, bug) = (self.map, self.stats, self.no_vblank_wait);
            let entries = self.backgrounds.entries;
            *self = DoubleBufferCycle::new(map);
            self.stats = stats;
            self.no_vblank_wait = bug;
            self.backgrounds.entries = entries;
            return;
        }
        let passes = self.passes();
        let take = inp_valid && self.inp_ready(out_ready);
        let clear_write = out_ready && self.clearing && !passes;
        let shows_front = self.shows_front(shown);
        let swap = self.cleared && (self.pending > 0 || done) && !self.drawing();
        let start_clear = !self.cleared && !self.clearing && shows_front && self.backgrounds.count > 0;
        let open = !swap && self.cleared && shows_front;
        let push = ends_valid && self.ends_ready();
        self.stats.ends_refused += u64::from(ends_valid && !push);

        self.stats.held += u64::from(self.slot.full && self.slot.framebuffer && !passes);
        if passes && out_ready {
            self.stats.requests += 1;
            self.stats.framebuffer += u64::from(self.slot.framebuffer);
        }
        if swap {
            self.slot.ahead = self.slot.ahead.saturating_sub(1);
        }
        let pending = self.pending + u32::from(done) - u32::from(swap);
        if take {
            let (framebuffer, addr) = match self.map.map(inp.addr) {
                Target::Framebuffer(offset) => (true, offset),
                Target::Board(a) => (false, a),
                Target::Outside => {
                    self.error = true;
                    (false, self.map.limit)
                }
            };
            self.slot = Slot {
                full: true,
                framebuffer,
                ahead: pending,
                req: MemReq { addr, ..*inp },
            };
        } else if passes && out_ready {
            self.slot.full = false;
        }
        if clear_write {
            self.stats.clear_writes += 1;
            if self.clear_offset + 4 >= self.map.fb_bytes {
                self.clearing = false;
                self.cleared = true;
                self.clear_offset = 0;
                self.stats.clears += 1;
            } else {
                self.clear_offset += 4;
            }
        }
        if start_clear {
            self.clearing = true;
            self.clear_offset = 0;
        }
        if swap {
            self.front = !self.front;
            self.cleared = false;
            self.backgrounds.pop();
            self.stats.swaps += 1;
        }
        self.pending = pending;
        self.stats.peak_pending = self.stats.peak_pending.max(self.pending);
        self.open = open;
        if push {
            self.backgrounds.push(end.colour);
        }
    }
}

crate::block_signature! {
    /// double_buffer's ports: the frame top's requests in (`inp`), the board's out (`out`, to
    /// the arbiter's GPU client); the frame's end tokens (`ends`, their backgrounds); `done`
    /// (the frame top's done pulse), `shown` (the buffer the scan-out latched, synchronised);
    /// `front` (the buffer to show), `error` (sticky: a request outside every window).
    pub DoubleBuffer "double_buffer" {
        takes { inp: MemReq, ends: FrameEnd }
        sends { out: MemReq }
        ins { done: bool, shown: bool }
        outs { front: bool, error: bool }
    }
}

impl BlockModel for DoubleBufferCycle {
    type Sig = DoubleBufferPorts;
    fn outputs(&self, i: &DoubleBufferIn) -> DoubleBufferOut {
        let (v, q) = self.out();
        DoubleBufferOut {
            inp_ready: self.inp_ready(i.out_ready),
            ends_ready: self.ends_ready(),
            out: Offer::new(v, q),
            front: self.front,
            error: self.error,
        }
    }
    fn clock(&mut self, i: &DoubleBufferIn) {
        DoubleBufferCycle::clock(
            self,
            i.inp.valid,
            &i.inp.payload,
            i.out_ready,
            i.ends.valid,
            &i.ends.payload,
            i.done,
            i.shown,
            i.flush,
        )
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn the_ulx3s_map_places_every_region_and_refuses_the_rest() {
        let m = BoardMap::for_board(crate::board::board("ulx3s").unwrap()).unwrap();
        assert_eq!(m.fb_bytes, 640 * 480 * 4);
        assert_eq!(m.buffers, [0, 2 << 20]);
        assert_eq!(
            m.windows[0],
            [(4 << 20, 2 << 20), (6 << 20, 4 << 20), (10 << 20, 8 << 20)]
        );
        assert_eq!(m.windows[1][2], (24 << 20, 8 << 20));
        assert_eq!(m.limit, 32 << 20);
        assert_eq!(m.map(0x1234), Target::Framebuffer(0x1234));
        assert_eq!(m.map(m.fb_bytes), Target::Outside);
        assert_eq!(m.map(PRIMS + 8), Target::Board((4 << 20) + 8));
        assert_eq!(m.map(SET_STRIDE | BINS), Target::Board(20 << 20));
        assert_eq!(
            m.map(SET_STRIDE | PIXEL_INFO | 0x7f_fffc),
            Target::Board((32 << 20) - 4)
        );
        assert_eq!(m.map(PIXEL_INFO + (8 << 20)), Target::Outside);
        assert_eq!(m.map(SET_STRIDE | 0x40), Target::Outside, "set 1 has no framebuffer");
        let e = BoardMap::new(1 << 20, 640 * 480 * 4).unwrap_err();
        assert!(e.contains("1048576 bytes"), "{e}");
    }
}
