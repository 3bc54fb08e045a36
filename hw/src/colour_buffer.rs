//! # colour_buffer (seed 000: the on-chip colour buffer, as storage blocks)
//!
//! Holds one of seed 001's second tiles of resolved pixels (the pixel processor's colour slots)
//! per bank, two banks, and hands each tile on in storage order: second sub-tile (piece) by
//! piece, block by block, the layout of golden's quad packer on the clipped tile
//! ([`tilerast_golden::colour_buffer::BufferLayout`]; edge pieces of at most half a block
//! share one). Cycle model: [`tilerast_golden::colour_buffer::ColourBufferCycle`] (same
//! registers); its rustdoc is the block's timing contract, stated once.
//!
//! **Ports.** `clock`, `flush` (synchronous reset: every register back to the model's `new`
//! state, the RAM keeps its words); in: `in_valid`/`in_ready` with `inp`
//! ([`crate::streams::PixSlotsIn`], whole second tiles, rows bottom-up, left → right; slots ≥ C
//! are dropped); out: `out_valid`/`out_ready` with `out` ([`crate::streams::PixSlotsOut`], the
//! tile's pixels in storage order; the last payload stays on `out` while not valid).
//!
//! **Handshake.** `in_ready` = ¬`closed[in_bank]`, kept in a register (`nrdy`): nothing
//! combinational from `out_ready` or `in_valid`. Taking a tile's last pixel closes the bank
//! and flips `in_bank`; the drain frees it after the tile's last read.
//!
//! **Depth.** Write side: at the input, the tile class (two masked equality compares against
//! constants), the last-pixel test (four compares in parallel, selected by the class) and the
//! write-ROM lookup `(class, row, col) → (base, w)`; in `s1 → s2` the word address `base + ly·w
//! + lx` (one small multiply-add); `s2` drives the RAM's write port directly. Read side: the
//! drain-ROM lookup `(class[rb], k) → (base, count, last piece)` into `ra`, `left`; a read per
//! cycle while the output FIFO has room (`ra + 1`, `left − 1`, `left = 1`). Every output is a
//! register (`out` = `o0`, `out_valid` = `ov`, `in_ready` = ¬`nrdy`).
//!
//! ```text
//!            class, last, (row, col)        base + ly·w + lx
//!  inp ──► [write ROM] ──► s1 ──────────────► s2 ──► we/waddr/wd ┐
//!   │ take: closed[in_bank], in_bank ^= last    └─ last: full[bank], class[bank]
//!   ▼                                                            ▼
//!  nrdy ◄── closed[], in_bank            ┌──────────── ColourRam ────────────┐
//!                                        │ {bank, word} × (x, y, slot_valid, │
//!  full[rb], class[rb], k ─► [drain ROM] │ colours 0..C-1), registered read  │
//!       load: ra, left, last piece       └───────────────┬───────────────────┘
//!       read: re, raddr = {rb, ra} ─────────────────────►│ (inflight)
//!                                                        ▼
//!                             o1 ◄──┬── rd ──► o0 (mux o1 / rd) ──► out, ov = n > 0
//! ```
//!
//! **RAM.** [`ColourRam`] is a wrapper: a simple dual-port RAM (one write port, one read port
//! with a read register), depth 2·2^⌈log2 bank_words⌉ (address `{bank, word}`), width
//! 24 + C + 32·C bits (only the stored bits: x, y, `slot_valid` bits 0..C, colours 0..C; the
//! other slots read back 0), written so that yosys infers block RAM. Its rust-hdl model holds
//! junk in the read register after every edge without a read, so that the tests catch any use
//! of it beyond the one cycle (`inflight`) the model uses it.
//!
//! Parameters: the four class layouts as two ROMs, the tile and piece sizes as masks and
//! shifts, C; [`supported`] refuses what the fixed port widths cannot hold.

use crate::fpga_top::wrapper_block;
use crate::streams::{PixSlotsIn, PixSlotsMux, PixSlotsOut, PixSlotsReg};
use crate::util::k;
use rust_hdl::prelude::*;
use std::collections::BTreeMap;
use tilerast_golden::colour_buffer::BufferLayout;
use tilerast_golden::config::Config;
use tilerast_golden::streams::PixSlots;

/// Words of a bank the address width holds (`{bank, word}` is 13 bits).
pub const MAX_BANK_WORDS: u32 = 4096;
/// Pieces of a tile class the drain counter and the ROM indices hold.
pub const MAX_PIECES: u32 = 256;

/// What the rust-hdl model of the RAM's read register holds after an edge without a read.
pub const RAM_JUNK: PixSlots = PixSlots {
    x: 0xabc,
    y: 0x5a5,
    slot_valid: 0xa5a5,
    colour: [0xdead_beef; 16],
};

/// Whether the block can be built for `cfg`: `Ok`, or one line naming the config field.
pub fn supported(cfg: &Config) -> Result<(), String> {
    cfg.validate().map_err(|e| e.to_string())?;
    let lay = BufferLayout::new(cfg);
    if lay.bank_words > MAX_BANK_WORDS {
        return Err(format!(
            "config.second_tile: a {}x{} second tile needs {} words per colour-buffer bank; the \
             RAM address is 13 bits ({{bank, word}}), at most {MAX_BANK_WORDS} words per bank",
            lay.tile[0], lay.tile[1], lay.bank_words
        ));
    }
    let pieces = (lay.tile[0] / lay.piece[0]) * (lay.tile[1] / lay.piece[1]);
    if pieces > MAX_PIECES {
        return Err(format!(
            "config.colour_block_bytes: second sub-tiles of {}x{} cut a {}x{} second tile into \
             {pieces} pieces; the colour buffer's piece index is 8 bits, at most {MAX_PIECES}",
            lay.piece[0], lay.piece[1], lay.tile[0], lay.tile[1]
        ));
    }
    Ok(())
}

/// The colour buffer's RAM: one write port, one read port with a registered read (`rd` = the
/// word read at the last edge with `re`; undefined on every other cycle). Address `{bank,
/// word}` in the low `abits` bits of `waddr` / `raddr`.
pub struct ColourRam {
    /// Clock.
    pub clock: Signal<In, Clock>,
    /// Write `wd` at `waddr` at this edge.
    pub we: Signal<In, Bit>,
    pub waddr: Signal<In, Bits<13>>,
    /// Write data (slots ≥ C are not stored).
    pub wd: PixSlotsIn,
    /// Read `raddr` at this edge (on `rd` in the next cycle).
    pub re: Signal<In, Bit>,
    pub raddr: Signal<In, Bits<13>>,
    /// The word of the last edge's read (slots ≥ C: 0).
    pub rd: PixSlotsOut,
    c: usize,
    abits: usize,
    mem: Vec<PixSlots>,
    q: PixSlots,
}

impl ColourRam {
    /// A RAM of 2^`abits` words of C = `c` colours, every word 0.
    pub fn new(c: usize, abits: usize) -> Self {
        assert!((1..=16).contains(&c) && (1..=13).contains(&abits));
        ColourRam {
            clock: Default::default(),
            we: Default::default(),
            waddr: Default::default(),
            wd: Default::default(),
            re: Default::default(),
            raddr: Default::default(),
            rd: Default::default(),
            c,
            abits,
            mem: vec![PixSlots::default(); 1 << abits],
            q: PixSlots::default(),
        }
    }

    fn write_word(&self) -> PixSlots {
        let w = &self.wd;
        let col = [
            w.colour_0.val(),
            w.colour_1.val(),
            w.colour_2.val(),
            w.colour_3.val(),
            w.colour_4.val(),
            w.colour_5.val(),
            w.colour_6.val(),
            w.colour_7.val(),
            w.colour_8.val(),
            w.colour_9.val(),
            w.colour_10.val(),
            w.colour_11.val(),
            w.colour_12.val(),
            w.colour_13.val(),
            w.colour_14.val(),
            w.colour_15.val(),
        ];
        let mut p = PixSlots {
            x: w.x.val().to_u64() as u32,
            y: w.y.val().to_u64() as u32,
            slot_valid: (w.slot_valid.val().to_u64() & ((1u64 << self.c) - 1)) as u16,
            ..PixSlots::default()
        };
        for (j, v) in col.iter().enumerate().take(self.c) {
            p.colour[j] = v.to_u64() as u32;
        }
        p
    }
}

wrapper_block!(ColourRam; clock, we, waddr, wd, re, raddr, rd);

impl Logic for ColourRam {
    fn update(&mut self) {
        if self.clock.pos_edge() {
            let m = (1usize << self.abits) - 1;
            let q = if self.re.val() {
                self.mem[self.raddr.val().index() & m]
            } else {
                RAM_JUNK
            };
            if self.we.val() {
                let w = self.write_word();
                self.mem[self.waddr.val().index() & m] = w;
            }
            self.q = q;
        }
        let q = self.q;
        let b32 = |v: u32| Bits::<32>::from(v as u64);
        self.rd.x.next = (q.x as u64 & 0xfff).into();
        self.rd.y.next = (q.y as u64 & 0xfff).into();
        self.rd.slot_valid.next = (q.slot_valid as u64).into();
        self.rd.colour_0.next = b32(q.colour[0]);
        self.rd.colour_1.next = b32(q.colour[1]);
        self.rd.colour_2.next = b32(q.colour[2]);
        self.rd.colour_3.next = b32(q.colour[3]);
        self.rd.colour_4.next = b32(q.colour[4]);
        self.rd.colour_5.next = b32(q.colour[5]);
        self.rd.colour_6.next = b32(q.colour[6]);
        self.rd.colour_7.next = b32(q.colour[7]);
        self.rd.colour_8.next = b32(q.colour[8]);
        self.rd.colour_9.next = b32(q.colour[9]);
        self.rd.colour_10.next = b32(q.colour[10]);
        self.rd.colour_11.next = b32(q.colour[11]);
        self.rd.colour_12.next = b32(q.colour[12]);
        self.rd.colour_13.next = b32(q.colour[13]);
        self.rd.colour_14.next = b32(q.colour[14]);
        self.rd.colour_15.next = b32(q.colour[15]);
    }

    fn connect(&mut self) {
        self.rd.x.connect();
        self.rd.y.connect();
        self.rd.slot_valid.connect();
        self.rd.colour_0.connect();
        self.rd.colour_1.connect();
        self.rd.colour_2.connect();
        self.rd.colour_3.connect();
        self.rd.colour_4.connect();
        self.rd.colour_5.connect();
        self.rd.colour_6.connect();
        self.rd.colour_7.connect();
        self.rd.colour_8.connect();
        self.rd.colour_9.connect();
        self.rd.colour_10.connect();
        self.rd.colour_11.connect();
        self.rd.colour_12.connect();
        self.rd.colour_13.connect();
        self.rd.colour_14.connect();
        self.rd.colour_15.connect();
    }

    fn hdl(&self) -> Verilog {
        let c = self.c;
        let width = 24 + c + 32 * c;
        let depth = 1usize << self.abits;
        let (w1, a1) = (width - 1, self.abits - 1);
        let mut cat: Vec<String> = (0..c).rev().map(|j| format!("wd$colour_{j}")).collect();
        cat.push(format!("wd$slot_valid[{}:0]", c - 1));
        cat.push("wd$y".into());
        cat.push("wd$x".into());
        let mut code = format!(
            "    // {depth} words ({{bank, word}}) x {width} bits: x, y, slot_valid[{c1}:0], colours 0..{c1};\n\
             \x20   // one write port, one read port with a read register. `no_rw_check`: the drain never\n\
             \x20   // reads the bank being written.\n\
             \x20   (* no_rw_check *) reg [{w1}:0] mem [0:{d1}];\n\
             \x20   reg [{w1}:0] q;\n\
             \x20   wire [{w1}:0] wdw = {{{cat}}};\n\
             \x20   always @(posedge clock) begin\n\
             \x20       if (we) mem[waddr[{a1}:0]] <= wdw;\n\
             \x20       if (re) q <= mem[raddr[{a1}:0]];\n\
             \x20   end\n\
             \x20   assign rd$x = q[11:0];\n\
             \x20   assign rd$y = q[23:12];\n",
            c1 = c - 1,
            d1 = depth - 1,
            cat = cat.join(", ")
        );
        if c < 16 {
            code.push_str(&format!(
                "    assign rd$slot_valid = {{{}'d0, q[{}:24]}};\n",
                16 - c,
                23 + c
            ));
        } else {
            code.push_str("    assign rd$slot_valid = q[39:24];\n");
        }
        for j in 0..16 {
            if j < c {
                let lo = 24 + c + 32 * j;
                code.push_str(&format!("    assign rd$colour_{j} = q[{}:{lo}];\n", lo + 31));
            } else {
                code.push_str(&format!("    assign rd$colour_{j} = 32'd0;\n"));
            }
        }
        code.push_str(&format!(
            "`ifndef SYNTHESIS\n\
             \x20   // Simulation: zeros at time 0 (FPGA configuration clears block RAM).\n\
             \x20   integer i;\n\
             \x20   initial for (i = 0; i < {depth}; i = i + 1) mem[i] = {width}'d0;\n\
             `endif\n"
        ));
        Verilog::Wrapper(Wrapper {
            code,
            cores: String::new(),
        })
    }
}

tilerast_golden::colour_buffer_streams! { crate::streams::stream_block;
    /// The colour buffer block. Build with [`ColourBuffer::new`] (see the module header).
    pub struct ColourBuffer {
        /// The RAM.
        pub ram: ColourRam,
        wrom: ROM<Bits<32>, 12>,
        drom: ROM<Bits<32>, 12>,

        // ---- constants ----
        c_xmask: Constant<Bits<12>>,
        c_xclip: Constant<Bits<12>>,
        c_xen: Constant<Bit>,
        c_ymask: Constant<Bits<12>>,
        c_yclip: Constant<Bits<12>>,
        c_yen: Constant<Bit>,
        c_txm: Constant<Bits<12>>,
        c_tym: Constant<Bits<12>>,
        c_pxm: Constant<Bits<12>>,
        c_pym: Constant<Bits<12>>,
        c_pwlog: Constant<Bits<12>>,
        c_phlog: Constant<Bits<12>>,
        c_cb: Constant<Bits<12>>,
        c_wcx: Constant<Bits<12>>,
        c_wcy: Constant<Bits<12>>,
        c_dcx: Constant<Bits<12>>,
        c_dcy: Constant<Bits<12>>,
        c_lx0: Constant<Bits<12>>,
        c_lx1: Constant<Bits<12>>,
        c_ly0: Constant<Bits<12>>,
        c_ly1: Constant<Bits<12>>,
        c_bank: Constant<Bits<13>>,
        c_one12: Constant<Bits<12>>,
        c_one13: Constant<Bits<13>>,
        c_zero2: Constant<Bits<2>>,
        c_one2: Constant<Bits<2>>,
        c_two2: Constant<Bits<2>>,
        c_cls1: Constant<Bits<2>>,
        c_cls2: Constant<Bits<2>>,

        // ---- combinational ----
        tx: Signal<Local, Bits<12>>,
        ty: Signal<Local, Bits<12>>,
        cx: Signal<Local, Bit>,
        cy: Signal<Local, Bit>,
        lastx: Signal<Local, Bit>,
        lasty: Signal<Local, Bit>,
        last: Signal<Local, Bit>,
        cls: Signal<Local, Bits<2>>,
        take: Signal<Local, Bit>,
        widx: Signal<Local, Bits<12>>,
        prod: Signal<Local, Bits<32>>,
        clsrb: Signal<Local, Bits<2>>,
        fullrb: Signal<Local, Bit>,
        didx: Signal<Local, Bits<12>>,
        pop: Signal<Local, Bit>,
        after: Signal<Local, Bits<2>>,
        nsum: Signal<Local, Bits<2>>,
        space: Signal<Local, Bit>,
        rd_en: Signal<Local, Bit>,
        done: Signal<Local, Bit>,
        cl0n: Signal<Local, Bit>,
        cl1n: Signal<Local, Bit>,
        ibn: Signal<Local, Bit>,

        // ---- write side ----
        in_bank: DFF<Bit>,
        closed0: DFF<Bit>,
        closed1: DFF<Bit>,
        /// A pixel of the tile being filled is taken and its last is not.
        open: DFF<Bit>,
        /// ¬`in_ready`.
        nrdy: DFF<Bit>,
        s1v: DFF<Bit>,
        s1bank: DFF<Bit>,
        s1last: DFF<Bit>,
        s1cls: DFF<Bits<2>>,
        s1base: DFF<Bits<12>>,
        s1w: DFF<Bits<16>>,
        s1lx: DFF<Bits<12>>,
        s1ly: DFF<Bits<16>>,
        s1d: PixSlotsReg,
        s2v: DFF<Bit>,
        s2bank: DFF<Bit>,
        s2last: DFF<Bit>,
        s2cls: DFF<Bits<2>>,
        s2addr: DFF<Bits<12>>,
        s2d: PixSlotsReg,
        full0: DFF<Bit>,
        full1: DFF<Bit>,
        class0: DFF<Bits<2>>,
        class1: DFF<Bits<2>>,

        // ---- read side ----
        rb: DFF<Bit>,
        active: DFF<Bit>,
        kk: DFF<Bits<12>>,
        ra: DFF<Bits<12>>,
        left: DFF<Bits<13>>,
        /// The active piece is its tile's last.
        lastp: DFF<Bit>,
        inflight: DFF<Bit>,
        n: DFF<Bits<2>>,
        ov: DFF<Bit>,
        o0: PixSlotsReg,
        o1: PixSlotsReg,
        omux: PixSlotsMux,
    }
}

/// Write-ROM word: base in bits 11..0, width in bits 27..16.
fn wrom_word(base: u32, w: u32) -> u64 {
    base as u64 | (w as u64) << 16
}

/// Drain-ROM word: base in bits 11..0, pixel count in bits 24..12, last piece in bit 31.
fn drom_word(base: u32, count: u32, last: bool) -> u64 {
    base as u64 | (count as u64) << 12 | (last as u64) << 31
}

impl ColourBuffer {
    /// The block for `cfg`, or why it cannot be built ([`supported`]).
    pub fn try_new(cfg: &Config) -> Result<ColourBuffer, String> {
        supported(cfg)?;
        let lay = BufferLayout::new(cfg);
        let [w, h] = lay.viewport;
        let [sw, sh] = lay.tile;
        let [pw, ph] = lay.piece;
        let cb = (sw / pw).trailing_zeros();
        let rbits = (sh / ph).trailing_zeros();
        let abits = (lay.bank_words.max(1).next_power_of_two().trailing_zeros()) as usize;
        let mut wmap = BTreeMap::new();
        let mut dmap = BTreeMap::new();
        for (c, cl) in lay.classes.iter().enumerate() {
            let cols = cl.layout.cols;
            for (i, &(base, width)) in cl.write.iter().enumerate() {
                let (row, col) = (i as u32 / cols, i as u32 % cols);
                let idx = (c as u32) << (cb + rbits) | row << cb | col;
                wmap.insert(Bits::<12>::from(idx as u64), Bits::<32>::from(wrom_word(base, width)));
            }
            for (i, &(base, count)) in cl.drain.iter().enumerate() {
                let idx = (c as u32) << 8 | i as u32;
                let last = i + 1 == cl.drain.len();
                dmap.insert(
                    Bits::<12>::from(idx as u64),
                    Bits::<32>::from(drom_word(base, count, last)),
                );
            }
        }
        let clip = |v: u32, s: u32| (v / s * s, !v.is_multiple_of(s), (v % s).max(1) - 1);
        let (xclip, xen, lx1) = clip(w, sw);
        let (yclip, yen, ly1) = clip(h, sh);
        Ok(ColourBuffer {
            clock: Default::default(),
            flush: Default::default(),
            in_valid: Default::default(),
            in_ready: Default::default(),
            inp: Default::default(),
            out_valid: Default::default(),
            out_ready: Default::default(),
            out: Default::default(),
            idle: Default::default(),
            open: Default::default(),
            ram: ColourRam::new(lay.c as usize, abits + 1),
            wrom: ROM::new(wmap),
            drom: ROM::new(dmap),
            c_xmask: k((!(sw - 1) & 0xfff) as u64),
            c_xclip: k((xclip & 0xfff) as u64),
            c_xen: Constant::new(xen),
            c_ymask: k((!(sh - 1) & 0xfff) as u64),
            c_yclip: k((yclip & 0xfff) as u64),
            c_yen: Constant::new(yen),
            c_txm: k((sw - 1) as u64),
            c_tym: k((sh - 1) as u64),
            c_pxm: k((pw - 1) as u64),
            c_pym: k((ph - 1) as u64),
            c_pwlog: k(pw.trailing_zeros() as u64),
            c_phlog: k(ph.trailing_zeros() as u64),
            c_cb: k(cb as u64),
            c_wcx: k(1 << (cb + rbits)),
            c_wcy: k(2 << (cb + rbits)),
            c_dcx: k(1 << 8),
            c_dcy: k(2 << 8),
            c_lx0: k((sw - 1) as u64),
            c_lx1: k(lx1 as u64),
            c_ly0: k((sh - 1) as u64),
            c_ly1: k(ly1 as u64),
            c_bank: k(1 << abits),
            c_one12: k(1),
            c_one13: k(1),
            c_zero2: k(0),
            c_one2: k(1),
            c_two2: k(2),
            c_cls1: k(1),
            c_cls2: k(2),
            tx: Default::default(),
            ty: Default::default(),
            cx: Default::default(),
            cy: Default::default(),
            lastx: Default::default(),
            lasty: Default::default(),
            last: Default::default(),
            cls: Default::default(),
            take: Default::default(),
            widx: Default::default(),
            prod: Default::default(),
            clsrb: Default::default(),
            fullrb: Default::default(),
            didx: Default::default(),
            pop: Default::default(),
            after: Default::default(),
            nsum: Default::default(),
            space: Default::default(),
            rd_en: Default::default(),
            done: Default::default(),
            cl0n: Default::default(),
            cl1n: Default::default(),
            ibn: Default::default(),
            in_bank: Default::default(),
            closed0: Default::default(),
            closed1: Default::default(),
            nrdy: Default::default(),
            s1v: Default::default(),
            s1bank: Default::default(),
            s1last: Default::default(),
            s1cls: Default::default(),
            s1base: Default::default(),
            s1w: Default::default(),
            s1lx: Default::default(),
            s1ly: Default::default(),
            s1d: Default::default(),
            s2v: Default::default(),
            s2bank: Default::default(),
            s2last: Default::default(),
            s2cls: Default::default(),
            s2addr: Default::default(),
            s2d: Default::default(),
            full0: Default::default(),
            full1: Default::default(),
            class0: Default::default(),
            class1: Default::default(),
            rb: Default::default(),
            active: Default::default(),
            kk: Default::default(),
            ra: Default::default(),
            left: Default::default(),
            lastp: Default::default(),
            inflight: Default::default(),
            n: Default::default(),
            ov: Default::default(),
            o0: Default::default(),
            o1: Default::default(),
            omux: Default::default(),
        })
    }

    /// The block for `cfg`.
    ///
    /// # Panics
    /// With the reason if it is not supported ([`supported`]).
    pub fn new(cfg: &Config) -> ColourBuffer {
        ColourBuffer::try_new(cfg).unwrap_or_else(|e| panic!("{e}"))
    }
}

impl Logic for ColourBuffer {
    #[hdl_gen]
    fn update(&mut self) {
        // ---- clocks, hold ----
        self.ram.clock.next = self.clock.val();
        self.s1d.clock.next = self.clock.val();
        self.s2d.clock.next = self.clock.val();
        self.o0.clock.next = self.clock.val();
        self.o1.clock.next = self.clock.val();
        self.in_bank.clock.next = self.clock.val();
        self.in_bank.d.next = self.in_bank.q.val();
        self.closed0.clock.next = self.clock.val();
        self.closed0.d.next = self.closed0.q.val();
        self.closed1.clock.next = self.clock.val();
        self.closed1.d.next = self.closed1.q.val();
        self.open.clock.next = self.clock.val();
        self.open.d.next = self.open.q.val();
        self.nrdy.clock.next = self.clock.val();
        self.nrdy.d.next = self.nrdy.q.val();
        self.s1v.clock.next = self.clock.val();
        self.s1v.d.next = self.s1v.q.val();
        self.s1bank.clock.next = self.clock.val();
        self.s1bank.d.next = self.s1bank.q.val();
        self.s1last.clock.next = self.clock.val();
        self.s1last.d.next = self.s1last.q.val();
        self.s1cls.clock.next = self.clock.val();
        self.s1cls.d.next = self.s1cls.q.val();
        self.s1base.clock.next = self.clock.val();
        self.s1base.d.next = self.s1base.q.val();
        self.s1w.clock.next = self.clock.val();
        self.s1w.d.next = self.s1w.q.val();
        self.s1lx.clock.next = self.clock.val();
        self.s1lx.d.next = self.s1lx.q.val();
        self.s1ly.clock.next = self.clock.val();
        self.s1ly.d.next = self.s1ly.q.val();
        self.s2v.clock.next = self.clock.val();
        self.s2v.d.next = self.s2v.q.val();
        self.s2bank.clock.next = self.clock.val();
        self.s2bank.d.next = self.s2bank.q.val();
        self.s2last.clock.next = self.clock.val();
        self.s2last.d.next = self.s2last.q.val();
        self.s2cls.clock.next = self.clock.val();
        self.s2cls.d.next = self.s2cls.q.val();
        self.s2addr.clock.next = self.clock.val();
        self.s2addr.d.next = self.s2addr.q.val();
        self.full0.clock.next = self.clock.val();
        self.full0.d.next = self.full0.q.val();
        self.full1.clock.next = self.clock.val();
        self.full1.d.next = self.full1.q.val();
        self.class0.clock.next = self.clock.val();
        self.class0.d.next = self.class0.q.val();
        self.class1.clock.next = self.clock.val();
        self.class1.d.next = self.class1.q.val();
        self.rb.clock.next = self.clock.val();
        self.rb.d.next = self.rb.q.val();
        self.active.clock.next = self.clock.val();
        self.active.d.next = self.active.q.val();
        self.kk.clock.next = self.clock.val();
        self.kk.d.next = self.kk.q.val();
        self.ra.clock.next = self.clock.val();
        self.ra.d.next = self.ra.q.val();
        self.left.clock.next = self.clock.val();
        self.left.d.next = self.left.q.val();
        self.lastp.clock.next = self.clock.val();
        self.lastp.d.next = self.lastp.q.val();
        self.inflight.clock.next = self.clock.val();
        self.inflight.d.next = self.inflight.q.val();
        self.n.clock.next = self.clock.val();
        self.n.d.next = self.n.q.val();
        self.ov.clock.next = self.clock.val();
        self.ov.d.next = self.ov.q.val();

        // ---- write side, at the input: class, last pixel, write-ROM index ----
        self.tx.next = self.inp.x.val() & self.c_txm.val();
        self.ty.next = self.inp.y.val() & self.c_tym.val();
        self.cx.next = ((self.inp.x.val() & self.c_xmask.val()) == self.c_xclip.val()) & self.c_xen.val();
        self.cy.next = ((self.inp.y.val() & self.c_ymask.val()) == self.c_yclip.val()) & self.c_yen.val();
        self.lastx.next = self.tx.val() == self.c_lx0.val();
        if self.cx.val() {
            self.lastx.next = self.tx.val() == self.c_lx1.val();
        }
        self.lasty.next = self.ty.val() == self.c_ly0.val();
        if self.cy.val() {
            self.lasty.next = self.ty.val() == self.c_ly1.val();
        }
        self.last.next = self.lastx.val() & self.lasty.val();
        self.cls.next = self.c_zero2.val();
        if self.cx.val() {
            self.cls.next = self.c_cls1.val();
        }
        if self.cy.val() {
            self.cls.next = self.cls.val() | self.c_cls2.val();
        }
        self.widx.next =
            (self.tx.val() >> self.c_pwlog.val()) | ((self.ty.val() >> self.c_phlog.val()) << self.c_cb.val());
        if self.cx.val() {
            self.widx.next = self.widx.val() | self.c_wcx.val();
        }
        if self.cy.val() {
            self.widx.next = self.widx.val() | self.c_wcy.val();
        }
        self.wrom.address.next = self.widx.val();
        self.take.next = self.in_valid.val() & !self.nrdy.q.val();

        // s1: every edge (its payload matters only with s1v).
        PixSlotsIn::link(&mut self.inp, &mut self.s1d.d);
        self.s1d.load.next = true;
        self.s1d.clear.next = self.flush.val();
        self.s1v.d.next = self.take.val();
        self.s1bank.d.next = self.in_bank.q.val();
        self.s1last.d.next = self.last.val();
        self.s1cls.d.next = self.cls.val();
        self.s1base.d.next = self.wrom.data.val().get_bits::<12>(0);
        self.s1w.d.next = bit_cast::<16, 12>(self.wrom.data.val().get_bits::<12>(16));
        self.s1lx.d.next = self.tx.val() & self.c_pxm.val();
        self.s1ly.d.next = bit_cast::<16, 12>(self.ty.val() & self.c_pym.val());

        // s2: the word address.
        PixSlotsOut::join(&mut self.s1d.q, &mut self.s2d.d);
        self.s2d.load.next = true;
        self.s2d.clear.next = self.flush.val();
        self.prod.next = self.s1ly.q.val() * self.s1w.q.val();
        self.s2v.d.next = self.s1v.q.val();
        self.s2bank.d.next = self.s1bank.q.val();
        self.s2last.d.next = self.s1last.q.val();
        self.s2cls.d.next = self.s1cls.q.val();
        self.s2addr.d.next = self.s1base.q.val() + self.prod.val().get_bits::<12>(0) + self.s1lx.q.val();

        // The RAM's write port: s2.
        PixSlotsOut::join(&mut self.s2d.q, &mut self.ram.wd);
        self.ram.we.next = self.s2v.q.val();
        self.ram.waddr.next = bit_cast::<13, 12>(self.s2addr.q.val());
        if self.s2bank.q.val() {
            self.ram.waddr.next = bit_cast::<13, 12>(self.s2addr.q.val()) | self.c_bank.val();
        }

        // ---- read side: the drain ----
        self.clsrb.next = self.class0.q.val();
        self.fullrb.next = self.full0.q.val();
        if self.rb.q.val() {
            self.clsrb.next = self.class1.q.val();
            self.fullrb.next = self.full1.q.val();
        }
        self.didx.next = self.kk.q.val();
        if self.clsrb.val().get_bit(0) {
            self.didx.next = self.didx.val() | self.c_dcx.val();
        }
        if self.clsrb.val().get_bit(1) {
            self.didx.next = self.didx.val() | self.c_dcy.val();
        }
        self.drom.address.next = self.didx.val();
        self.pop.next = (self.n.q.val() != self.c_zero2.val()) & self.out_ready.val();
        self.after.next = self.n.q.val();
        if self.pop.val() {
            self.after.next = self.n.q.val() - self.c_one2.val();
        }
        self.nsum.next = self.after.val();
        if self.inflight.q.val() {
            self.nsum.next = self.after.val() + self.c_one2.val();
        }
        self.space.next = !self.nsum.val().get_bit(1);
        self.rd_en.next = self.active.q.val() & self.space.val();
        self.done.next = self.rd_en.val() & (self.left.q.val() == self.c_one13.val()) & self.lastp.q.val();

        self.cl0n.next = self.closed0.q.val();
        self.cl1n.next = self.closed1.q.val();
        self.ibn.next = self.in_bank.q.val();
        if !self.active.q.val() {
            if self.fullrb.val() {
                self.ra.d.next = self.drom.data.val().get_bits::<12>(0);
                self.left.d.next = self.drom.data.val().get_bits::<13>(12);
                self.lastp.d.next = self.drom.data.val().get_bit(31);
                self.active.d.next = true;
                self.kk.d.next = self.kk.q.val() + self.c_one12.val();
            }
        } else if self.space.val() {
            self.ra.d.next = self.ra.q.val() + self.c_one12.val();
            self.left.d.next = self.left.q.val() - self.c_one13.val();
            if self.left.q.val() == self.c_one13.val() {
                self.active.d.next = false;
                if self.lastp.q.val() {
                    self.rb.d.next = !self.rb.q.val();
                    self.kk.d.next = 0.into();
                    if self.rb.q.val() {
                        self.full1.d.next = false;
                        self.cl1n.next = false;
                    } else {
                        self.full0.d.next = false;
                        self.cl0n.next = false;
                    }
                }
            }
        }
        self.ram.re.next = self.rd_en.val();
        self.ram.raddr.next = bit_cast::<13, 12>(self.ra.q.val());
        if self.rb.q.val() {
            self.ram.raddr.next = bit_cast::<13, 12>(self.ra.q.val()) | self.c_bank.val();
        }
        self.inflight.d.next = self.rd_en.val();

        // ---- output FIFO o0 (= out), o1 ----
        PixSlotsOut::join(&mut self.o1.q, &mut self.omux.a);
        PixSlotsOut::join(&mut self.ram.rd, &mut self.omux.b);
        PixSlotsOut::join(&mut self.ram.rd, &mut self.o1.d);
        PixSlotsOut::join(&mut self.omux.y, &mut self.o0.d);
        self.omux.sel.next = self.after.val() == self.c_zero2.val();
        self.o0.load.next = (self.pop.val() & (self.n.q.val() == self.c_two2.val()))
            | (self.inflight.q.val() & (self.after.val() == self.c_zero2.val()));
        self.o1.load.next = self.inflight.q.val() & (self.after.val() != self.c_zero2.val());
        self.o0.clear.next = self.flush.val();
        self.o1.clear.next = self.flush.val();
        self.n.d.next = self.nsum.val();
        self.ov.d.next = self.nsum.val() != self.c_zero2.val();

        // ---- write side: the RAM write's tile end, then the input (later assignments win) ----
        if self.s2v.q.val() & self.s2last.q.val() {
            if self.s2bank.q.val() {
                self.full1.d.next = true;
                self.class1.d.next = self.s2cls.q.val();
            } else {
                self.full0.d.next = true;
                self.class0.d.next = self.s2cls.q.val();
            }
        }
        if self.take.val() & self.last.val() {
            self.ibn.next = !self.in_bank.q.val();
            if self.in_bank.q.val() {
                self.cl1n.next = true;
            } else {
                self.cl0n.next = true;
            }
        }
        if self.take.val() {
            self.open.d.next = !self.last.val();
        }
        self.closed0.d.next = self.cl0n.val();
        self.closed1.d.next = self.cl1n.val();
        self.in_bank.d.next = self.ibn.val();
        self.nrdy.d.next = self.cl0n.val();
        if self.ibn.val() {
            self.nrdy.d.next = self.cl1n.val();
        }

        // ---- flush: every register to the model's `new` state ----
        if self.flush.val() {
            self.in_bank.d.next = false;
            self.closed0.d.next = false;
            self.closed1.d.next = false;
            self.open.d.next = false;
            self.nrdy.d.next = false;
            self.s1v.d.next = false;
            self.s1bank.d.next = false;
            self.s1last.d.next = false;
            self.s1cls.d.next = self.c_zero2.val();
            self.s1base.d.next = 0.into();
            self.s1w.d.next = 0.into();
            self.s1lx.d.next = 0.into();
            self.s1ly.d.next = 0.into();
            self.s2v.d.next = false;
            self.s2bank.d.next = false;
            self.s2last.d.next = false;
            self.s2cls.d.next = self.c_zero2.val();
            self.s2addr.d.next = 0.into();
            self.full0.d.next = false;
            self.full1.d.next = false;
            self.class0.d.next = self.c_zero2.val();
            self.class1.d.next = self.c_zero2.val();
            self.rb.d.next = false;
            self.active.d.next = false;
            self.kk.d.next = 0.into();
            self.ra.d.next = 0.into();
            self.left.d.next = 0.into();
            self.lastp.d.next = false;
            self.inflight.d.next = false;
            self.n.d.next = self.c_zero2.val();
            self.ov.d.next = false;
        }

        // ---- outputs: registers ----
        self.in_ready.next = !self.nrdy.q.val();
        self.out_valid.next = self.ov.q.val();
        PixSlotsOut::link(&mut self.out, &mut self.o0.q);
        self.idle.next = !self.open.q.val()
            & !self.s1v.q.val()
            & !self.s2v.q.val()
            & !self.closed0.q.val()
            & !self.closed1.q.val()
            & !self.inflight.q.val()
            & (self.n.q.val() == self.c_zero2.val());
    }
}

/// The block's Verilog with top module `name`.
pub fn verilog(cfg: &Config, name: &str) -> String {
    crate::emit::block_verilog(ColourBuffer::new(cfg), name)
}

/// What the block is built with for `cfg`, or the one-line refusal.
pub fn params(cfg: &Config) -> Result<String, String> {
    supported(cfg)?;
    let lay = BufferLayout::new(cfg);
    let abits = lay.bank_words.max(1).next_power_of_two().trailing_zeros() + 1;
    let classes: Vec<String> = lay
        .classes
        .iter()
        .enumerate()
        .filter(|(_, c)| c.present)
        .map(|(i, c)| {
            format!(
                "class {i} {}x{}: {} pieces{}",
                c.size[0],
                c.size[1],
                c.drain.len(),
                if c.layout.shared_blocks > 0 {
                    format!(", {} shared blocks", c.layout.shared_blocks)
                } else {
                    String::new()
                }
            )
        })
        .collect();
    Ok(format!(
        "second tile {}x{}, pieces {}x{}, C = {}, {} words per bank, RAM {} x {} bits; {}",
        lay.tile[0],
        lay.tile[1],
        lay.piece[0],
        lay.piece[1],
        lay.c,
        lay.bank_words,
        1u32 << abits,
        24 + lay.c + 32 * lay.c,
        classes.join("; ")
    ))
}

/// The colour buffer's row of [`crate::BLOCK_FILES`].
pub const FILE: crate::BlockFile = crate::BlockFile {
    role: "seed 000, on-chip colour buffer: second tiles in, storage order out",
    contract: "tilerast_golden::colour_buffer::ColourBufferCycle",
    sig: <tilerast_golden::colour_buffer::ColourBufferPorts as tilerast_golden::cycle::BlockSignature>::SIGNATURE,
    params,
    verilog,
};
