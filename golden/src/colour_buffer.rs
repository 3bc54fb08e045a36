//! Colour buffer (seed 000): the pixel processor's on-chip colour buffer, organised as the
//! seed's storage blocks.
//!
//! The pixel processor resolves a pixel's samples into its C colour slots
//! ([`crate::pixel_processor`]); the colour buffer holds one of seed 001's second tiles of
//! them on chip and hands them on second sub-tile by second sub-tile, block by block. Its
//! organisation is seed 000's (claims 2, 4, 5): the tile, clipped to the viewport, is cut into
//! second sub-tiles of the preset size `cfg.second_subtile()` (as many pixels as one
//! `colour_block_bytes` storage block holds at C colours per pixel), each stored in a block of
//! its own, and edge pieces of at most half a block share one. The layout is golden's quad
//! packer's, [`crate::quad_packer::block_layout_rect`], on the clipped tile: the buffer does not
//! decide it again.
//!
//! ```text
//!                      ┌──────────────────────── colour_buffer ─────────────────────────┐
//!  PixSlots ─► layout ─┤ bank 0: blocks 0 .. n-1, cap = PW·PH pixels each (C slots + x,y) ├─► drain ─► PixSlots
//!  (tile raster order) │ bank 1: the next second tile, filled while bank 0 drains        │  (storage order)
//!                      └──────────────────────────────────────────────────────────────────┘
//! ```
//!
//! **Word address.** Pixel (x, y) of a second tile lies in piece (col, row) = ((x mod SW) / PW,
//! (y mod SH) / PH) with local (lx, ly); its word is `base + ly·w + lx`, `base = block·cap +
//! offset` and `w` the piece's (clipped) width: the pieces of a block are packed one after the
//! other from the block's start, in the layout's order.
//!
//! **Storage order** ([`BufferLayout::storage_order`]): the tile's words read from address 0
//! up, skipping the unused end of a block: pieces by (block, offset), inside a piece rows
//! bottom-up, left → right. Without shared blocks that is the group order (pieces in rows
//! bottom-up, left → right); a shared block brings its later pieces forward. This is the order
//! in which the blender sees a second tile's pixels ([`crate::pipeline`]).
//!
//! **Tile classes.** A second tile's layout depends only on its clipped size, so there are at
//! most four: interior, clipped on the right, clipped at the top, both (`class` bit 0 = x
//! clipped, bit 1 = y clipped). The RTL holds the four layouts as constants.

use crate::config::Config;
use crate::counters::counters;
use crate::cycle::CycleModel;
use crate::quad_packer::{block_layout_rect, BlockLayout};
use crate::setup::PixelBox;
use crate::streams::PixSlots;

/// The layout of one tile class.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct ClassLayout {
    /// Some second tile of the viewport has this clipped size.
    pub present: bool,
    /// Clipped tile size `[w, h]` (the full second tile size on an unclipped axis).
    pub size: [u32; 2],
    /// The storage-block layout of a tile of this size (origin 0).
    pub layout: BlockLayout,
    /// Per piece in group order (index `row·cols + col`): (base word, width).
    pub write: Vec<(u32, u32)>,
    /// Per piece in storage order: (base word, pixel count).
    pub drain: Vec<(u32, u32)>,
}

impl ClassLayout {
    /// Words of a bank this class uses (its blocks).
    pub fn words(&self) -> u32 {
        self.layout.blocks * self.layout.capacity()
    }
}

/// The colour buffer's organisation for a config: tile classes and bank size.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct BufferLayout {
    pub viewport: [u32; 2],
    /// Seed 001's second tile `[SW, SH]` (powers of two).
    pub tile: [u32; 2],
    /// Second sub-tile preset `[PW, PH]` (powers of two).
    pub piece: [u32; 2],
    /// Pixels per storage block (`PW·PH`).
    pub cap: u32,
    /// Colours per pixel (slots stored per word).
    pub c: u32,
    pub classes: [ClassLayout; 4],
    /// Words per bank: the most any class uses.
    pub bank_words: u32,
}

impl BufferLayout {
    pub fn new(cfg: &Config) -> Self {
        let [w, h] = cfg.viewport;
        let [sw, sh] = cfg.second_tile;
        let classes: [ClassLayout; 4] = std::array::from_fn(|class| {
            let clip = [class & 1 != 0, class & 2 != 0];
            let size = [if clip[0] { w % sw } else { sw }, if clip[1] { h % sh } else { sh }];
            let present =
                (if clip[0] { w % sw != 0 } else { w >= sw }) && (if clip[1] { h % sh != 0 } else { h >= sh });
            // An absent class gets the interior size so that its layout is well formed.
            let size = if size[0] == 0 || size[1] == 0 { [sw, sh] } else { size };
            let rect = PixelBox {
                x0: 0,
                y0: 0,
                x1: size[0] - 1,
                y1: size[1] - 1,
            };
            let layout = block_layout_rect(cfg, rect);
            let cap = layout.capacity();
            let write = layout
                .pieces
                .iter()
                .map(|p| (p.block * cap + p.offset, p.rect.width()))
                .collect();
            let mut drain: Vec<(u32, u32)> = layout
                .pieces
                .iter()
                .map(|p| (p.block * cap + p.offset, p.rect.width() * p.rect.height()))
                .collect();
            drain.sort_unstable();
            ClassLayout {
                present,
                size,
                layout,
                write,
                drain,
            }
        });
        let bank_words = classes
            .iter()
            .filter(|c| c.present)
            .map(ClassLayout::words)
            .max()
            .unwrap_or(0);
        let piece = cfg.second_subtile();
        BufferLayout {
            viewport: cfg.viewport,
            tile: cfg.second_tile,
            piece,
            cap: piece[0] * piece[1],
            c: cfg.colours_per_pixel,
            classes,
            bank_words,
        }
    }

    /// The word the buffer stores for `p` (and hands on): x, y, `slot_valid` bits 0..C and
    /// colours 0..C; slots ≥ C are dropped and read back 0.
    pub fn stored(&self, p: &PixSlots) -> PixSlots {
        let c = self.c as usize;
        let mut w = PixSlots {
            x: p.x,
            y: p.y,
            slot_valid: p.slot_valid & (((1u32 << c) - 1) as u16),
            ..PixSlots::default()
        };
        w.colour[..c].copy_from_slice(&p.colour[..c]);
        w
    }

    /// Class of the second tile holding pixel (x, y): bit 0 its x range is clipped by the
    /// viewport, bit 1 its y range.
    pub fn class_of(&self, x: u32, y: u32) -> usize {
        let clip = |v: u32, s: u32, lim: u32| (v / s + 1) * s > lim;
        (clip(x, self.tile[0], self.viewport[0]) as usize) | ((clip(y, self.tile[1], self.viewport[1]) as usize) << 1)
    }

    /// (class, piece index in group order, lx, ly) of pixel (x, y).
    fn locate(&self, x: u32, y: u32) -> (usize, usize, u32, u32) {
        let class = self.class_of(x, y);
        let l = &self.classes[class].layout;
        let (tx, ty) = (x % self.tile[0], y % self.tile[1]);
        let (col, row) = (tx / self.piece[0], ty / self.piece[1]);
        (
            class,
            (row * l.cols + col) as usize,
            tx - col * self.piece[0],
            ty - row * self.piece[1],
        )
    }

    /// Word address of pixel (x, y) in its tile's bank.
    pub fn word(&self, x: u32, y: u32) -> u32 {
        let (class, piece, lx, ly) = self.locate(x, y);
        let (base, w) = self.classes[class].write[piece];
        base + ly * w + lx
    }

    /// Pixel (x, y) is the last of its second tile in raster order (its clipped tile's top
    /// right pixel).
    pub fn is_last(&self, x: u32, y: u32) -> bool {
        let class = self.class_of(x, y);
        let [w, h] = self.classes[class].size;
        x % self.tile[0] == w - 1 && y % self.tile[1] == h - 1
    }

    /// The pixels of second tile `[sx, sy]` in storage order (see the module header).
    pub fn storage_order(&self, t: [u32; 2]) -> Vec<(u32, u32)> {
        let (x0, y0) = (t[0] * self.tile[0], t[1] * self.tile[1]);
        let class = self.class_of(x0, y0);
        let cl = &self.classes[class];
        let mut pieces: Vec<_> = cl.layout.pieces.iter().collect();
        pieces.sort_by_key(|p| (p.block, p.offset));
        let mut out = Vec::with_capacity((cl.size[0] * cl.size[1]) as usize);
        for p in pieces {
            for y in p.rect.y0..=p.rect.y1 {
                for x in p.rect.x0..=p.rect.x1 {
                    out.push((x0 + x, y0 + y));
                }
            }
        }
        out
    }
}

counters! {
    /// Counters of [`ColourBufferCycle`].
    #[derive(Clone, Copy, Debug, Default, PartialEq, Eq)]
    pub struct ColourBufferStats {
        /// Pixels accepted.
        pub pixels: u64,
        /// Second tiles drained.
        pub tiles: u64,
        /// Drained tiles whose layout has a shared storage block.
        pub shared_tiles: u64,
        /// Pieces (second sub-tiles) drained.
        pub pieces: u64,
        /// Cycles with `in_valid` and not `in_ready` (both banks busy).
        pub stalled_in: u64,
        /// Cycles with `out_valid` and not `out_ready`.
        pub stalled_out: u64,
    }
}

/// A write on its way to the RAM.
#[derive(Clone, Copy, Debug)]
struct Wr {
    bank: usize,
    addr: u32,
    word: PixSlots,
    last: bool,
    class: usize,
}

/// Register stages of the write path: a pixel accepted at edge t is written into the RAM at
/// edge t + 2.
pub const WRITE_STAGES: usize = 2;

/// The colour buffer as `hw/src/colour_buffer.rs` builds it.
///
/// # Timing contract
///
/// The one statement of the `colour_buffer` block's timing; the RTL is held to it on every
/// port and cycle (`hw/tests/colour_buffer.rs`, `cosim/tests/colour_buffer.rs`).
///
/// **Input precondition.** Second tiles arrive whole and one after the other: every pixel of
/// the tile inside the viewport, rows bottom-up, left → right (the order of
/// [`crate::pipeline::back_end_input`]). A tile ends with its last pixel
/// ([`BufferLayout::is_last`]); nothing else marks it.
///
/// **Registers.** Two banks of [`BufferLayout::bank_words`] words (a dual-port RAM, one write
/// and one registered read port; a word is the pixel's x, y, `slot_valid` bits 0..C and colours
/// 0..C; slots ≥ C are not stored and read back 0). Write side: `in_bank`, `closed[2]`, `open`
/// (a pixel of the tile being filled is taken and its last is not), the write pipeline `s1`,
/// `s2` ([`WRITE_STAGES`]), `full[2]` and each bank's `class`. Read side: `rb`,
/// `active`, `k` (next piece), `ra`, `left`, `inflight` (the RAM's read register holds a word),
/// and a two-entry output FIFO `o0` (= `out`), `o1`, count `n`.
///
/// * **Handshake in.** `in_ready` = ¬`closed[in_bank]` (a register: nothing combinational from
///   `out_ready`). A pixel taken at edge t goes into `s1` with its bank and word address; at
///   edge t + 1 into `s2`; at edge t + 2 it is written into the RAM, and if it is its tile's
///   last, `full[bank]` ← 1 with the tile's class. Taking a tile's last pixel sets
///   `closed[in_bank]`, clears `open` and flips `in_bank` at that edge; taking any other pixel
///   sets `open`.
/// * **Drain.** Per edge, from the registers before it: if ¬`active` and `full[rb]`: load piece
///   `k` of `drain` of `class[rb]` (`ra` ← base, `left` ← count, `active` ← 1, `k` += 1), no
///   read. Else if `active` and `space`: read word `ra` of bank `rb` (it is in the read register,
///   `inflight`, in the next cycle), `ra` += 1, `left` −= 1; when `left` reaches 0, `active` ← 0,
///   and after the last piece `full[rb]` ← 0, `closed[rb]` ← 0, `rb` flips, `k` ← 0. `space` =
///   n − pop + inflight < 2, with pop = n > 0 ∧ `out_ready`. One cycle per piece is the load.
/// * **Output.** `out_valid` = n > 0, `out` = `o0`. At an edge: pop as above; if pop and n = 2,
///   `o0` ← `o1`; the inflight word goes to `o0` if nothing is left after the pop, else to `o1`.
///   Payload when not valid: the last one (0 after `new` or a flush).
/// * **Latency.** A tile's last pixel taken at edge t: `full` from cycle t + 3, the first load
///   at edge t + 3, the first read at t + 4, the tile's first pixel on `out` from cycle t + 6
///   when the drain was idle and `out_ready` high.
/// * **Throughput.** In: one pixel per cycle while a bank is free (the other may drain).
///   Out: a piece of a pixels takes a + 1 cycles without back-pressure; banks follow each
///   other directly (the load of the next bank's first piece is the edge after the last read).
/// * **Idle.** `idle` = ¬`open` ∧ ¬`closed[0]` ∧ ¬`closed[1]` ∧ `s1`, `s2` invalid ∧
///   ¬`inflight` ∧ n = 0 ([`ColourBufferCycle::idle`]; `full[b]` and `active` imply `closed`).
/// * **Flush.** Every register returns to the state of [`ColourBufferCycle::new`]; the RAM
///   keeps its words (a drain reads only words its tile wrote).
#[derive(Clone, Debug)]
pub struct ColourBufferCycle {
    lay: BufferLayout,
    mem: [Vec<PixSlots>; 2],
    in_bank: usize,
    closed: [bool; 2],
    open: bool,
    s1: Option<Wr>,
    s2: Option<Wr>,
    full: [bool; 2],
    class: [usize; 2],
    rb: usize,
    active: bool,
    k: usize,
    ra: u32,
    left: u32,
    inflight: Option<PixSlots>,
    o: [PixSlots; 2],
    n: usize,
    stats: ColourBufferStats,
}

impl ColourBufferCycle {
    pub fn new(cfg: &Config) -> Self {
        let lay = BufferLayout::new(cfg);
        let words = lay.bank_words as usize;
        ColourBufferCycle {
            mem: [vec![PixSlots::default(); words], vec![PixSlots::default(); words]],
            ..Self::new_with(lay)
        }
    }

    /// The layout it was built with.
    pub fn layout(&self) -> &BufferLayout {
        &self.lay
    }

    /// Counters so far.
    pub fn stats(&self) -> ColourBufferStats {
        self.stats
    }

    /// Nothing held: no pixel in the write path or a bank (a tile being filled or closed),
    /// nothing on the way out (registers only).
    pub fn idle(&self) -> bool {
        !self.open
            && self.s1.is_none()
            && self.s2.is_none()
            && !self.closed[0]
            && !self.closed[1]
            && self.inflight.is_none()
            && self.n == 0
    }
}

impl CycleModel for ColourBufferCycle {
    type In = PixSlots;
    type Out = PixSlots;

    fn out(&self) -> (bool, PixSlots) {
        (self.n > 0, self.o[0])
    }

    fn in_ready(&self, _out_ready: bool) -> bool {
        !self.closed[self.in_bank]
    }

    fn clock(&mut self, in_valid: bool, inp: &PixSlots, out_ready: bool, flush: bool) {
        if flush {
            let mem = std::mem::take(&mut self.mem);
            let lay = self.lay.clone();
            *self = ColourBufferCycle {
                mem,
                ..ColourBufferCycle::new_with(lay)
            };
            return;
        }
        let take = in_valid && self.in_ready(out_ready);
        if in_valid && !take {
            self.stats.stalled_in += 1;
        }
        if self.n > 0 && !out_ready {
            self.stats.stalled_out += 1;
        }
        // Read side.
        let pop = self.n > 0 && out_ready;
        let push = self.inflight.take();
        let space = (self.n - pop as usize + push.is_some() as usize) < 2;
        if !self.active {
            if self.full[self.rb] {
                let (base, count) = self.lay.classes[self.class[self.rb]].drain[self.k];
                self.ra = base;
                self.left = count;
                self.active = true;
                self.k += 1;
            }
        } else if space {
            self.inflight = Some(self.mem[self.rb][self.ra as usize]);
            self.ra += 1;
            self.left -= 1;
            if self.left == 0 {
                self.active = false;
                self.stats.pieces += 1;
                let cl = &self.lay.classes[self.class[self.rb]];
                if self.k == cl.drain.len() {
                    self.stats.tiles += 1;
                    self.stats.shared_tiles += (cl.layout.shared_blocks > 0) as u64;
                    self.full[self.rb] = false;
                    self.closed[self.rb] = false;
                    self.rb ^= 1;
                    self.k = 0;
                }
            }
        }
        if pop && self.n == 2 {
            self.o[0] = self.o[1];
        }
        let after = self.n - pop as usize;
        self.n = after;
        if let Some(q) = push {
            self.o[after] = q;
            self.n += 1;
        }
        // Write side.
        if let Some(w) = self.s2.take() {
            self.mem[w.bank][w.addr as usize] = w.word;
            if w.last {
                self.full[w.bank] = true;
                self.class[w.bank] = w.class;
            }
        }
        self.s2 = self.s1.take();
        if take {
            self.stats.pixels += 1;
            let last = self.lay.is_last(inp.x, inp.y);
            self.s1 = Some(Wr {
                bank: self.in_bank,
                addr: self.lay.word(inp.x, inp.y),
                word: self.lay.stored(inp),
                last,
                class: self.lay.class_of(inp.x, inp.y),
            });
            self.open = !last;
            if last {
                self.closed[self.in_bank] = true;
                self.in_bank ^= 1;
            }
        }
    }
}

impl ColourBufferCycle {
    fn new_with(lay: BufferLayout) -> Self {
        ColourBufferCycle {
            lay,
            mem: [Vec::new(), Vec::new()],
            in_bank: 0,
            closed: [false; 2],
            open: false,
            s1: None,
            s2: None,
            full: [false; 2],
            class: [0; 2],
            rb: 0,
            active: false,
            k: 0,
            ra: 0,
            left: 0,
            inflight: None,
            o: [PixSlots::default(); 2],
            n: 0,
            stats: ColourBufferStats::default(),
        }
    }
}

crate::cycle_model_signature! {
    /// colour_buffer's ports: resolved pixels in, the same pixels in storage order out.
    pub ColourBuffer "colour_buffer" for ColourBufferCycle: PixSlots -> PixSlots, idle
}
