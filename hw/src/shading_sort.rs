//! # shading_sort (seed 002: sort-based deferred shading of a second tile)
//!
//! Takes pixel_info_read's records of one second tile after another
//! ([`tilerast_golden::streams::PiRecord`]), depth-tests every covered sample into the on-chip
//! shading-point buffer X, reads the shading points out in Morton order into sort buffer Y
//! (one element per pixel and visible primitive: the pixel's samples of one primitive
//! collapse), LSD-radix-sorts them by primitive − tile minimum between Y and Z (the Morton
//! order is the readout's; no pass for a tile of one primitive), walks the sorted list reading one primitive colour per primitive change through the
//! memory read port (the primitive table, [`tilerast_golden::prim_table`]) and scattering it
//! into the colour buffer C at every sample of the pixel whose X entry holds the primitive
//! (clearing those X entries), then hands the tile to the output engine, which hands out
//! every pixel of the tile inside the viewport ([`tilerast_golden::streams::PixSamples`], rows
//! bottom-up, left→right) while the next tile's records come in. Cycle model and timing
//! contract: [`tilerast_golden::shading_sort::ShadingSortCycle`] (phases Init, Depth, Readout,
//! Hist/Prefix/Scatter per pass, Walk; 5 + 2n + 2^min(b, d) cycles per pass, b the bits of the
//! tile's primitive span; the output engine beside them).
//!
//! **Ports.** `clock`, `flush` (synchronous: every register to its initial state, Init again;
//! flush the memory's held reads with it); in: `in_valid`/`in_ready` with `inp`
//! ([`crate::streams::PiRecordIn`]); out: `out_valid`/`out_ready` with `out`
//! ([`crate::streams::PixSamplesOut`], 0 while not valid); the read port: `rd_valid`/`rd_ready`
//! with `rd` ([`crate::streams::MemReqOut`]: `addr` = prim·32 + 24, `write` = 0) and
//! `rsp_valid`/`rsp_ready` with `rsp` ([`crate::streams::MemRespIn`]; `rsp_ready` = 1: one
//! read at a time).
//!
//! **Handshake.** `in_ready` is a function of registers (Depth, pending lanes), `rd_valid` is
//! a register (`rd_pending`: the phase is WalkReq, from the walk's own condition), `out_valid` the output engine's registers plus its pixel counter's
//! viewport test; `out`'s
//! colours come from C's read register.
//!
//! **RAMs** (one write port, one read port each, read register, write-first: a read of the
//! address written at the same edge returns the new word, which is the Depth bypass and the
//! histogram's read-modify-write bypass): X = S banks × P words {valid, depth 24, prim 21};
//! Y, Z = N words {prim 21, pixel 16}; H = 2^d words {epoch, count 16} (d =
//! `tile_digit_bits`, 2^d ≤ P: Readout clears H word `cnt` in passing); C = S banks × P words
//! {valid, RGBA8}. Y and Z are read through an **element register** (`elem`, `elem_key`: the
//! word and its rebased primitive, loaded from the RAM's read register; two setup cycles fill
//! both): Hist, Scatter and the walk take their element from it, never from a RAM output.
//! The histogram and the scatter are two-stage pipelines (element register → digit → H read;
//! H word → write) whose last write lands in the next phase's setup cycle.
//!
//! ```text
//!  inp ─► lanes ─► X read (next lane) ─► depth test ×S ─► X write ─┐
//!           Readout (Morton order m): X[p(m)] ─► S compares ─► Y[n] = (prim, p) (min, max)
//!  ┌──────── pass k: Hist (Y/Z ─► digit ─► H++), Prefix (H := Σ), Scatter (Y/Z ─► Z/Y[H[d]++]) ◄┘
//!  └─► Walk: sorted (prim, p) ─► prim change? rd (prim·32+24) ─► rsp colour
//!            └─► X[p] read ─► S compares (X prim = prim) ─► reg ─► C[p] banks := colour, X[p] := 0
//!  output engine (beside the next tile's Depth..sort; the walk waits for it):
//!            C[p] ─► out {x, y, mask, colour_0..15}, C[p] cleared
//! ```
//!
//! **Latency / throughput** (the contract's): records one lane (pixel) per cycle; per tile
//! Readout Σ max(1, shading points of a pixel) cycles, per sort pass 5 + 2n + 2^min(b, d) cycles,
//! the walk 3 + n cycles, and 2 + grant wait + response latency per primitive change, the output
//! engine one pixel per cycle beside them; an Init sweep of w·h cycles after a flush.
//!
//! **Depth and size:** the per-block table (`tilerast synth --blocks`) and the board top's
//! route in `docs/measurements.md`. Known long paths (against the one-adder-per-stage rule):
//! Depth from X's read register through S 24-bit compares to X's write enables (the block's
//! worst alone on the ECP5, 18.6 ns); Readout from its X entry registers through a 16-way
//! lowest-bit select to Y's write data and the min/max compares, and on through S 21-bit
//! compares (the pixel's samples of that primitive) to the done mask, the pixel counter, X's
//! read enable and the next phase (the board top's GPU clock's worst at 44aafe6, 20.4 ns, ran
//! on from the next phase into `rd_pending`, which now takes the walk's own condition); the walk's second stage from X's read register through S
//! 21-bit compares into a register (the third stage writes C and clears X from it); the pass
//! count (21-bit subtract, bit length, table) from registers to the pass-end compare. On-chip bits: per preset in the frame
//! table's RAM column (`golden::frame::ram`, which `hw/tests/rtl_out.rs` holds to the emitted
//! Verilog; the frame top refuses a config over the ECP5-85F's budget).
//!
//! Parameters: tile w×h (powers of two), S samples, d digit bits, the depth function, the
//! viewport.

// The kernel's nested state `if`s are kept as the emitted Verilog's (rtl-out is generated from
// them).
#![allow(clippy::collapsible_if)]

use crate::emit;
use crate::fpga_top::wrapper_block;
use crate::util::k;
use rust_hdl::prelude::*;
use tilerast_golden::config::{Config, DepthFunc};
use tilerast_golden::pixel_info::DEPTH_MAX;
use tilerast_golden::shading_sort::{
    morton, sort_passes, tile_digit_bits, ShadingSortCycle, C_WORD_BITS, H_WORD_BITS, PRIM_ID_BITS, X_WORD_BITS,
    Y_WORD_BITS,
};

/// A RAM of 2^`abits` words of `width` ≤ 64 bits: one write port, one read port with a read
/// register updated at edges with `re` (write-first: reading the address written at the same
/// edge gives the new word). Every word 0 at time 0.
pub struct SsRam {
    pub clock: Signal<In, Clock>,
    pub we: Signal<In, Bit>,
    pub waddr: Signal<In, Bits<16>>,
    pub wd: Signal<In, Bits<64>>,
    pub re: Signal<In, Bit>,
    pub raddr: Signal<In, Bits<16>>,
    pub rd: Signal<Out, Bits<64>>,
    width: usize,
    abits: usize,
    mem: Vec<u64>,
    q: u64,
}

impl Default for SsRam {
    fn default() -> Self {
        SsRam::new(1, 1)
    }
}

impl SsRam {
    /// A RAM of 2^`abits` words of `width` bits.
    pub fn new(width: usize, abits: usize) -> Self {
        assert!((1..=64).contains(&width) && (1..=16).contains(&abits));
        SsRam {
            clock: Default::default(),
            we: Default::default(),
            waddr: Default::default(),
            wd: Default::default(),
            re: Default::default(),
            raddr: Default::default(),
            rd: Default::default(),
            width,
            abits,
            mem: vec![0; 1 << abits],
            q: 0,
        }
    }
}

wrapper_block!(SsRam; clock, we, waddr, wd, re, raddr, rd);

impl Logic for SsRam {
    fn update(&mut self) {
        if self.clock.pos_edge() {
            let m = (1usize << self.abits) - 1;
            let wm = if self.width == 64 {
                u64::MAX
            } else {
                (1u64 << self.width) - 1
            };
            let (wa, ra) = (self.waddr.val().index() & m, self.raddr.val().index() & m);
            let wd = self.wd.val().to_u64() & wm;
            if self.re.val() {
                self.q = if self.we.val() && wa == ra { wd } else { self.mem[ra] };
            }
            if self.we.val() {
                self.mem[wa] = wd;
            }
        }
        self.rd.next = self.q.into();
    }

    fn connect(&mut self) {
        self.rd.connect();
    }

    fn hdl(&self) -> Verilog {
        let depth = 1usize << self.abits;
        let (a1, w1) = (self.abits - 1, self.width - 1);
        let pad = if self.width == 64 {
            "assign rd = q;".to_string()
        } else {
            format!("assign rd = {{{}'d0, q}};", 64 - self.width)
        };
        let code = format!(
            "    // {depth} words x {w} bits; one write port, one read port with a read register,\n\
             \x20   // write-first (a read of the address written at the same edge gets the new word).\n\
             \x20   reg [{w1}:0] mem [0:{d1}];\n\
             \x20   reg [{w1}:0] q;\n\
             \x20   always @(posedge clock) begin\n\
             \x20       if (we) mem[waddr[{a1}:0]] <= wd[{w1}:0];\n\
             \x20       if (re) q <= (we && waddr[{a1}:0] == raddr[{a1}:0]) ? wd[{w1}:0] : mem[raddr[{a1}:0]];\n\
             \x20   end\n\
             \x20   {pad}\n\
             `ifndef SYNTHESIS\n\
             \x20   // Simulation: zeros at time 0 (FPGA configuration clears block RAM).\n\
             \x20   integer i;\n\
             \x20   initial begin for (i = 0; i < {depth}; i = i + 1) mem[i] = {w}'d0; q = {w}'d0; end\n\
             `endif\n",
            w = self.width,
            d1 = depth - 1
        );
        Verilog::Wrapper(Wrapper {
            code,
            cores: String::new(),
        })
    }
}

tilerast_golden::shading_sort_streams! { crate::streams::stream_block;
    /// The sort-based shading block. Build with [`ShadingSort::new`].
    pub struct ShadingSort {
        /// X banks (sample s), Y, Z, H, C banks.
        pub xr: Vec<SsRam>,
        pub yr: SsRam,
        pub zr: SsRam,
        pub hr: SsRam,
        pub cr: Vec<SsRam>,

        /// Phase codes: [`tilerast_golden::shading_sort::SsPhase`] in declaration order (Init 0,
        /// Depth 1, Readout 2, Hist 3, Prefix 4, Scatter 5, Walk 6, WalkReq 7, WalkWait 8).
        c_ph: Vec<Constant<Bits<4>>>,
        c_sb: Vec<Constant<Bits<64>>>,
        c_sb16: Vec<Constant<Bits<16>>>,
        c_lm: Vec<Constant<Bits<64>>>,
        c_lb: Vec<Constant<Bits<4>>>,
        c_l2: Vec<Constant<Bits<2>>>,
        c_ls: Vec<Constant<Bits<64>>>,
        c_msrc: Vec<Constant<Bits<16>>>,
        c_mdst: Vec<Constant<Bits<16>>>,
        c_bit21: Vec<Constant<Bits<21>>>,
        c_len: Vec<Constant<Bits<6>>>,
        c_npass: Vec<Constant<Bits<6>>>,
        c_men: Vec<Constant<Bits<16>>>,
        c_ep64: Constant<Bits<64>>,
        c_full: Constant<Bits<64>>,
        c_used: Constant<Bits<64>>,
        c_prim_mask: Constant<Bits<32>>,
        c_qxm: Constant<Bits<8>>,
        c_qym: Constant<Bits<8>>,
        c_xb16: Constant<Bits<16>>,
        c_xb12: Constant<Bits<12>>,
        c_yb12: Constant<Bits<12>>,
        c_wm16: Constant<Bits<16>>,
        c_p1: Constant<Bits<16>>,
        c_init_last: Constant<Bits<16>>,
        /// Prefix's last counter per primitive bit length: 2^min(l, d) − 1.
        c_prefix_last: Vec<Constant<Bits<16>>>,
        c_dmask: Constant<Bits<16>>,
        c_d8: Constant<Bits<8>>,
        c_vw: Constant<Bits<12>>,
        c_vh: Constant<Bits<12>>,
        c_dmax: Constant<Bits<24>>,
        c_le: Constant<Bit>,
        c_lt: Constant<Bit>,
        c_always: Constant<Bit>,
        c_one16: Constant<Bits<16>>,
        c_two16: Constant<Bits<16>>,
        c_one4: Constant<Bits<4>>,
        c_one6: Constant<Bits<6>>,
        c_1664: Constant<Bits<64>>,
        c_2164: Constant<Bits<64>>,
        c_4564: Constant<Bits<64>>,
        /// An X word's valid bit and primitive (the readout's part of it).
        c_vp64: Constant<Bits<64>>,
        c_3264: Constant<Bits<64>>,
        c_5: Constant<Bits<32>>,
        c_24: Constant<Bits<32>>,
        c_zero4: Constant<Bits<4>>,

        accept: Signal<Local, Bit>,
        take_rec: Signal<Local, Bit>,
        in_lanes: Signal<Local, Bits<4>>,
        pend_pop: Signal<Local, Bits<4>>,
        pend_nx: Signal<Local, Bits<4>>,
        la: Signal<Local, Bits<2>>,
        qxa: Signal<Local, Bits<8>>,
        qya: Signal<Local, Bits<8>>,
        ra_addr: Signal<Local, Bits<16>>,
        lc: Signal<Local, Bits<2>>,
        cur_addr: Signal<Local, Bits<16>>,
        dv: Signal<Local, Bit>,
        pm: Signal<Local, Bits<64>>,
        zs: Vec<Signal<Local, Bits<24>>>,
        vis_c: Vec<Signal<Local, Bits<16>>>,
        vis: Signal<Local, Bits<16>>,
        fnd: Vec<Signal<Local, Bit>>,
        selp: Signal<Local, Bits<21>>,
        /// Readout: the visible samples of the pixel with the selected sample's primitive.
        same_c: Vec<Signal<Local, Bits<16>>>,
        /// Walk, second stage: the samples whose X entry holds the element's primitive.
        hit_c: Vec<Signal<Local, Bits<16>>>,
        emit: Signal<Local, Bit>,
        pdone: Signal<Local, Bit>,
        n_nx: Signal<Local, Bits<16>>,
        srcq: Signal<Local, Bits<64>>,
        eprim: Signal<Local, Bits<21>>,
        epos: Signal<Local, Bits<16>>,
        /// Readout: the Morton counter `cnt` + 1, and the pixels (py·w + px) of `cnt` and
        /// of `cnt` + 1 (bit `c_msrc[i]` of a pixel is bit i of its Morton code).
        ro_next: Signal<Local, Bits<16>>,
        ro_pix: Vec<Signal<Local, Bits<16>>>,
        ro_next_pix: Vec<Signal<Local, Bits<16>>>,
        /// The pixel of `cnt` + 2: the X read a pixel ahead of the readout's X entries.
        ro_next2: Signal<Local, Bits<16>>,
        ro_next2_pix: Vec<Signal<Local, Bits<16>>>,
        /// The rebased primitive (prim − min) of the element in the RAM's read register: the
        /// radix passes' key, loaded into `elem_key` with the element.
        key: Signal<Local, Bits<32>>,
        digit: Signal<Local, Bits<16>>,
        hq_ep: Signal<Local, Bit>,
        ep64: Signal<Local, Bits<64>>,
        hq_ep64: Signal<Local, Bits<64>>,
        hq_cnt: Signal<Local, Bits<16>>,
        span: Signal<Local, Bits<21>>,
        blen: Signal<Local, Bits<6>>,
        npass: Signal<Local, Bits<6>>,
        /// Prefix's last counter for the tile: 2^min(prim bits, d) − 1.
        prefix_last: Signal<Local, Bits<16>>,
        opx: Signal<Local, Bits<12>>,
        opy: Signal<Local, Bits<12>>,
        ox: Signal<Local, Bits<12>>,
        oy: Signal<Local, Bits<12>>,
        in_vp: Signal<Local, Bit>,
        ogo: Signal<Local, Bit>,
        omask: Vec<Signal<Local, Bits<16>>>,

        ph: DFF<Bits<4>>,
        setup: DFF<Bit>,
        cnt: DFF<Bits<16>>,
        pend: DFF<Bits<4>>,
        rlast: DFF<Bit>,
        /// A record of the tile being depth-tested is taken (its records are in X).
        open: DFF<Bit>,
        rprim: DFF<Bits<21>>,
        rdepth: DFF<Bits<24>>,
        rqx: DFF<Bits<8>>,
        rqy: DFF<Bits<8>>,
        rmask: DFF<Bits<64>>,
        tx: DFF<Bits<12>>,
        ty: DFF<Bits<12>>,
        n: DFF<Bits<16>>,
        mn: DFF<Bits<21>>,
        mx: DFF<Bits<21>>,
        rodone: DFF<Bits<16>>,
        /// Readout: the X entries {valid, prim} of the pixel it is at, one per sample bank
        /// (X's read registers hold the next pixel's). Nothing in the readout reads X's RAM
        /// outputs but these.
        ro_entry: Vec<DFF<Bits<64>>>,
        pass: DFF<Bits<6>>,
        shamt: DFF<Bits<8>>,
        epoch: DFF<Bit>,
        sum: DFF<Bits<16>>,
        srcy: DFF<Bit>,
        /// The second setup cycle of Hist, Scatter and Walk: the element register's fill.
        setup2: DFF<Bit>,
        /// The element register: the sort buffer word (prim 21 << 16 | pixel) the phase is at
        /// (element `cnt`; the RAM's read register holds element `cnt` + 1), and its rebased
        /// primitive, the radix key. Nothing reads the sort buffers' RAM outputs but these.
        elem: DFF<Bits<64>>,
        elem_key: DFF<Bits<21>>,
        curv: DFF<Bit>,
        curp: DFF<Bits<21>>,
        colour: DFF<Bits<32>>,
        hv: DFF<Bit>,
        hdig: DFF<Bits<16>>,
        sv: DFF<Bit>,
        sdig: DFF<Bits<16>>,
        selem: DFF<Bits<64>>,
        sdst_y: DFF<Bit>,
        /// Walk, second stage: an element whose X entries are in X's read registers this
        /// cycle, its pixel and primitive.
        wv: DFF<Bit>,
        wpix: DFF<Bits<16>>,
        wprim: DFF<Bits<21>>,
        /// Walk, third stage: the element's pixel and its samples that hold its primitive
        /// (the second stage's compares, registered): C written, X cleared at this edge.
        write_valid: DFF<Bit>,
        write_pix: DFF<Bits<16>>,
        write_samples: DFF<Bits<16>>,
        /// The output engine: a tile's pixels leaving C (busy), its setup cycle (C read at
        /// pixel 0), the pixel it is at, and the tile's coordinates.
        obusy: DFF<Bit>,
        osetup: DFF<Bit>,
        ocnt: DFF<Bits<16>>,
        otx: DFF<Bits<12>>,
        oty: DFF<Bits<12>>,
        /// The phase is WalkReq (a colour read on `rd`): `rd_valid` and `rd`'s gate from a
        /// flop, not from a compare of `ph` (the board top's memory-request multiplexer
        /// starts here).
        rd_pending: DFF<Bit>,
    }
}

/// Whether the block builds for `cfg` (the cycle model's parameters; second tiles of at most
/// 64×32 pixels and 2^16 sample positions, digits of at most 12 bits).
pub fn supported(cfg: &Config) -> Result<(), String> {
    ShadingSortCycle::try_new(cfg)?;
    let [w, h] = cfg.second_tile;
    if w * h > 2048 || w * h * cfg.msaa > 1 << 15 {
        return Err(format!(
            "config.second_tile: {w}x{h} at {}x exceeds the block's 2048 pixels / 32768 sample positions",
            cfg.msaa
        ));
    }
    if cfg.sort_digit_bits > 12 {
        return Err(format!(
            "config.sort_digit_bits: {} exceeds the block's 12-bit histogram address",
            cfg.sort_digit_bits
        ));
    }
    Ok(())
}

impl ShadingSort {
    /// The block for `cfg`, or the one line naming the field it does not support.
    pub fn try_new(cfg: &Config) -> Result<ShadingSort, String> {
        supported(cfg)?;
        let [w, h] = cfg.second_tile;
        let s_n = cfg.msaa as usize;
        let (xb, yb) = (w.trailing_zeros(), h.trailing_zeros());
        let cb = xb + yb;
        let p = (w * h) as usize;
        let pbits = (cb as usize).max(1);
        let nbits = (p * s_n).trailing_zeros().max(1) as usize;
        let d = tile_digit_bits(cfg);
        let full = tilerast_golden::samples::pixel_full_mask(cfg.msaa) as u64;
        let used = tilerast_golden::pixel_info_read::mask_bits(cfg.msaa);
        // Morton bit i comes from pixel-index bit msrc[i] (pixel index = py << xb | px).
        let mut msrc = Vec::new();
        for i in 0..cb {
            let m = 1u32 << i;
            let src = (0..cb)
                .find(|&b| {
                    let (x, y) = if b < xb { (1 << b, 0) } else { (0, 1 << (b - xb)) };
                    morton(x, y, xb, yb) == m
                })
                .expect("a permutation");
            msrc.push(src);
        }
        let func = match cfg.depth_func {
            DepthFunc::LessEqual => 0,
            DepthFunc::Less => 1,
            DepthFunc::Always => 2,
        };
        Ok(ShadingSort {
            clock: Default::default(),
            flush: Default::default(),
            in_valid: Default::default(),
            in_ready: Default::default(),
            idle: Default::default(),
            inp: Default::default(),
            out_valid: Default::default(),
            out_ready: Default::default(),
            out: Default::default(),
            rd_valid: Default::default(),
            rd_ready: Default::default(),
            rd: Default::default(),
            rsp_valid: Default::default(),
            rsp_ready: Default::default(),
            rsp: Default::default(),
            xr: (0..16)
                .map(|s| {
                    if s < s_n {
                        SsRam::new(X_WORD_BITS as usize, pbits)
                    } else {
                        SsRam::new(1, 1)
                    }
                })
                .collect(),
            yr: SsRam::new(Y_WORD_BITS as usize, nbits),
            zr: SsRam::new(Y_WORD_BITS as usize, nbits),
            hr: SsRam::new(H_WORD_BITS as usize, d as usize),
            cr: (0..16)
                .map(|s| {
                    if s < s_n {
                        SsRam::new(C_WORD_BITS as usize, pbits)
                    } else {
                        SsRam::new(1, 1)
                    }
                })
                .collect(),
            c_ph: (0..9).map(k).collect(),
            c_sb: (0..16).map(|s| k(1 << s)).collect(),
            c_sb16: (0..16).map(|s| k(1 << s)).collect(),
            c_lm: (0..4).map(|l| k((full << (l * s_n)) & used)).collect(),
            c_lb: (0..4).map(|l| k(1 << l)).collect(),
            c_l2: (0..4).map(k).collect(),
            c_ls: (0..4).map(|l| k((l * s_n) as u64)).collect(),
            c_msrc: (0..16).map(|i| k(msrc.get(i).copied().unwrap_or(0) as u64)).collect(),
            c_mdst: (0..16).map(|i| k(i as u64)).collect(),
            c_bit21: (0..PRIM_ID_BITS).map(|b| k(1 << b)).collect(),
            c_len: (0..=PRIM_ID_BITS).map(|l| k(l as u64)).collect(),
            c_npass: (0..=PRIM_ID_BITS).map(|l| k(sort_passes(l, d) as u64)).collect(),
            c_prefix_last: (0..=PRIM_ID_BITS).map(|l| k((1u64 << l.min(d)) - 1)).collect(),
            c_men: (0..16).map(|i| k((i < cb) as u64)).collect(),
            c_ep64: k(1 << 16),
            c_full: k(full),
            c_used: k(used),
            c_prim_mask: k((1 << PRIM_ID_BITS) - 1),
            c_qxm: k((w / 2 - 1) as u64),
            c_qym: k((h / 2 - 1) as u64),
            c_xb16: k(xb as u64),
            c_xb12: k(xb as u64),
            c_yb12: k(yb as u64),
            c_wm16: k((w - 1) as u64),
            c_p1: k(p as u64 - 1),
            c_init_last: k(p.max(1 << d) as u64 - 1),
            c_dmask: k((1u64 << d) - 1),
            c_d8: k(d as u64),
            c_vw: k(cfg.viewport[0] as u64),
            c_vh: k(cfg.viewport[1] as u64),
            c_dmax: k(DEPTH_MAX as u64),
            c_le: Constant::new(func == 0),
            c_lt: Constant::new(func == 1),
            c_always: Constant::new(func == 2),
            c_one16: k(1),
            c_two16: k(2),
            c_one4: k(1),
            c_one6: k(1),
            c_1664: k(16),
            c_2164: k(21),
            c_4564: k(1 << 45),
            c_vp64: k((1 << 45) | ((1 << 21) - 1)),
            c_3264: k(1 << 32),
            c_5: k(5),
            c_24: k(24),
            c_zero4: k(0),
            accept: Default::default(),
            take_rec: Default::default(),
            in_lanes: Default::default(),
            pend_pop: Default::default(),
            pend_nx: Default::default(),
            la: Default::default(),
            qxa: Default::default(),
            qya: Default::default(),
            ra_addr: Default::default(),
            lc: Default::default(),
            cur_addr: Default::default(),
            dv: Default::default(),
            pm: Default::default(),
            zs: (0..16).map(|_| Default::default()).collect(),
            vis_c: (0..=16).map(|_| Default::default()).collect(),
            vis: Default::default(),
            fnd: (0..=16).map(|_| Default::default()).collect(),
            selp: Default::default(),
            same_c: (0..=16).map(|_| Default::default()).collect(),
            emit: Default::default(),
            pdone: Default::default(),
            n_nx: Default::default(),
            srcq: Default::default(),
            eprim: Default::default(),
            epos: Default::default(),
            ro_next: Default::default(),
            ro_pix: (0..=16).map(|_| Default::default()).collect(),
            ro_next_pix: (0..=16).map(|_| Default::default()).collect(),
            ro_next2: Default::default(),
            ro_next2_pix: (0..=16).map(|_| Default::default()).collect(),
            ro_entry: (0..16).map(|_| Default::default()).collect(),
            key: Default::default(),
            digit: Default::default(),
            hq_ep: Default::default(),
            ep64: Default::default(),
            hq_ep64: Default::default(),
            hq_cnt: Default::default(),
            span: Default::default(),
            blen: Default::default(),
            npass: Default::default(),
            prefix_last: Default::default(),
            opx: Default::default(),
            opy: Default::default(),
            ox: Default::default(),
            oy: Default::default(),
            in_vp: Default::default(),
            ogo: Default::default(),
            omask: (0..=16).map(|_| Default::default()).collect(),
            ph: Default::default(),
            setup: Default::default(),
            cnt: Default::default(),
            pend: Default::default(),
            rlast: Default::default(),
            open: Default::default(),
            rprim: Default::default(),
            rdepth: Default::default(),
            rqx: Default::default(),
            rqy: Default::default(),
            rmask: Default::default(),
            tx: Default::default(),
            ty: Default::default(),
            n: Default::default(),
            mn: Default::default(),
            mx: Default::default(),
            rodone: Default::default(),
            pass: Default::default(),
            shamt: Default::default(),
            epoch: Default::default(),
            sum: Default::default(),
            srcy: Default::default(),
            setup2: Default::default(),
            elem: Default::default(),
            elem_key: Default::default(),
            curv: Default::default(),
            curp: Default::default(),
            colour: Default::default(),
            hv: Default::default(),
            hdig: Default::default(),
            sv: Default::default(),
            sdig: Default::default(),
            selem: Default::default(),
            sdst_y: Default::default(),
            wv: Default::default(),
            wpix: Default::default(),
            wprim: Default::default(),
            write_valid: Default::default(),
            write_pix: Default::default(),
            write_samples: Default::default(),
            hit_c: (0..=16).map(|_| Default::default()).collect(),
            obusy: Default::default(),
            osetup: Default::default(),
            ocnt: Default::default(),
            otx: Default::default(),
            oty: Default::default(),
            rd_pending: Default::default(),
        })
    }

    /// The block for `cfg`.
    ///
    /// # Panics
    /// With the reason if it is not supported ([`supported`]).
    pub fn new(cfg: &Config) -> ShadingSort {
        Self::try_new(cfg).unwrap_or_else(|e| panic!("{e}"))
    }

    /// The block's logic (vectors indexed by the sample loop variable: [`emit::resolve_indices`]).
    #[hdl_gen]
    fn kernel(&mut self) {
        // ---- registers hold, RAMs idle ----
        self.ph.clock.next = self.clock.val();
        self.ph.d.next = self.ph.q.val();
        self.setup.clock.next = self.clock.val();
        self.setup.d.next = false;
        self.cnt.clock.next = self.clock.val();
        self.cnt.d.next = self.cnt.q.val();
        self.pend.clock.next = self.clock.val();
        self.pend.d.next = self.pend.q.val();
        self.open.clock.next = self.clock.val();
        self.open.d.next = self.open.q.val();
        self.rlast.clock.next = self.clock.val();
        self.rlast.d.next = self.rlast.q.val();
        self.rprim.clock.next = self.clock.val();
        self.rprim.d.next = self.rprim.q.val();
        self.rdepth.clock.next = self.clock.val();
        self.rdepth.d.next = self.rdepth.q.val();
        self.rqx.clock.next = self.clock.val();
        self.rqx.d.next = self.rqx.q.val();
        self.rqy.clock.next = self.clock.val();
        self.rqy.d.next = self.rqy.q.val();
        self.rmask.clock.next = self.clock.val();
        self.rmask.d.next = self.rmask.q.val();
        self.tx.clock.next = self.clock.val();
        self.tx.d.next = self.tx.q.val();
        self.ty.clock.next = self.clock.val();
        self.ty.d.next = self.ty.q.val();
        self.n.clock.next = self.clock.val();
        self.n.d.next = self.n.q.val();
        self.mn.clock.next = self.clock.val();
        self.mn.d.next = self.mn.q.val();
        self.mx.clock.next = self.clock.val();
        self.mx.d.next = self.mx.q.val();
        self.rodone.clock.next = self.clock.val();
        self.rodone.d.next = self.rodone.q.val();
        for s in 0..16 {
            self.ro_entry[s].clock.next = self.clock.val();
            self.ro_entry[s].d.next = self.ro_entry[s].q.val();
        }
        self.pass.clock.next = self.clock.val();
        self.pass.d.next = self.pass.q.val();
        self.shamt.clock.next = self.clock.val();
        self.shamt.d.next = self.shamt.q.val();
        self.epoch.clock.next = self.clock.val();
        self.epoch.d.next = self.epoch.q.val();
        self.sum.clock.next = self.clock.val();
        self.sum.d.next = self.sum.q.val();
        self.srcy.clock.next = self.clock.val();
        self.srcy.d.next = self.srcy.q.val();
        self.setup2.clock.next = self.clock.val();
        self.setup2.d.next = false;
        self.elem.clock.next = self.clock.val();
        self.elem.d.next = self.elem.q.val();
        self.elem_key.clock.next = self.clock.val();
        self.elem_key.d.next = self.elem_key.q.val();
        self.curv.clock.next = self.clock.val();
        self.curv.d.next = self.curv.q.val();
        self.curp.clock.next = self.clock.val();
        self.curp.d.next = self.curp.q.val();
        self.colour.clock.next = self.clock.val();
        self.colour.d.next = self.colour.q.val();
        self.hv.clock.next = self.clock.val();
        self.hv.d.next = false;
        self.hdig.clock.next = self.clock.val();
        self.hdig.d.next = self.hdig.q.val();
        self.sv.clock.next = self.clock.val();
        self.sv.d.next = false;
        self.sdig.clock.next = self.clock.val();
        self.sdig.d.next = self.sdig.q.val();
        self.selem.clock.next = self.clock.val();
        self.selem.d.next = self.selem.q.val();
        self.sdst_y.clock.next = self.clock.val();
        self.sdst_y.d.next = self.sdst_y.q.val();
        self.wv.clock.next = self.clock.val();
        self.wv.d.next = false;
        self.wpix.clock.next = self.clock.val();
        self.wpix.d.next = self.wpix.q.val();
        self.wprim.clock.next = self.clock.val();
        self.wprim.d.next = self.wprim.q.val();
        self.write_valid.clock.next = self.clock.val();
        self.write_valid.d.next = self.wv.q.val();
        self.write_pix.clock.next = self.clock.val();
        self.write_pix.d.next = self.wpix.q.val();
        self.write_samples.clock.next = self.clock.val();
        self.write_samples.d.next = self.hit_c[16].val();
        self.obusy.clock.next = self.clock.val();
        self.obusy.d.next = self.obusy.q.val();
        self.osetup.clock.next = self.clock.val();
        self.osetup.d.next = self.osetup.q.val();
        self.ocnt.clock.next = self.clock.val();
        self.ocnt.d.next = self.ocnt.q.val();
        self.otx.clock.next = self.clock.val();
        self.otx.d.next = self.otx.q.val();
        self.oty.clock.next = self.clock.val();
        self.oty.d.next = self.oty.q.val();
        self.rd_pending.clock.next = self.clock.val();
        for s in 0..16 {
            self.xr[s].clock.next = self.clock.val();
            self.xr[s].we.next = false;
            self.xr[s].waddr.next = self.cnt.q.val();
            self.xr[s].wd.next = 0.into();
            self.xr[s].re.next = false;
            self.xr[s].raddr.next = self.cnt.q.val();
            self.cr[s].clock.next = self.clock.val();
            self.cr[s].we.next = false;
            self.cr[s].waddr.next = self.cnt.q.val();
            self.cr[s].wd.next = 0.into();
            self.cr[s].re.next = false;
            self.cr[s].raddr.next = self.cnt.q.val();
        }
        self.yr.clock.next = self.clock.val();
        self.yr.we.next = false;
        self.yr.waddr.next = self.n.q.val();
        self.yr.wd.next = 0.into();
        self.yr.re.next = false;
        self.yr.raddr.next = self.cnt.q.val();
        self.zr.clock.next = self.clock.val();
        self.zr.we.next = false;
        self.zr.waddr.next = self.n.q.val();
        self.zr.wd.next = 0.into();
        self.zr.re.next = false;
        self.zr.raddr.next = self.cnt.q.val();
        self.hr.clock.next = self.clock.val();
        self.hr.we.next = false;
        self.hr.waddr.next = self.cnt.q.val();
        self.hr.wd.next = 0.into();
        self.hr.re.next = false;
        self.hr.raddr.next = self.cnt.q.val();

        // ---- ports ----
        self.rsp_ready.next = true;
        self.idle.next = ((self.ph.q.val() == self.c_ph[0].val()) | (self.ph.q.val() == self.c_ph[1].val()))
            & !self.pend.q.val().any()
            & !self.open.q.val()
            & !self.obusy.q.val();
        self.rd.write.next = false;
        self.rd.wdata.next = 0.into();
        self.rd.be.next = self.c_zero4.val();

        // ---- Depth: lanes, read-ahead, test ----
        self.in_ready.next = (self.ph.q.val() == self.c_ph[1].val())
            & ((!self.pend.q.val().any())
                | ((!(self.pend.q.val() & (self.pend.q.val() - self.c_one4.val())).any()) & !self.rlast.q.val()));
        self.accept.next = self.in_valid.val() & self.in_ready.val();
        self.take_rec.next = self.accept.val() & !self.inp.none.val();
        self.in_lanes.next = 0.into();
        for l in 0..4 {
            if (self.inp.mask.val() & self.c_lm[l].val()).any() {
                self.in_lanes.next = self.in_lanes.val() | self.c_lb[l].val();
            }
        }
        self.pend_pop.next = self.pend.q.val() & (self.pend.q.val() - self.c_one4.val());
        if self.take_rec.val() {
            self.pend_nx.next = self.in_lanes.val();
            self.qxa.next = self.inp.qx.val() & self.c_qxm.val();
            self.qya.next = self.inp.qy.val() & self.c_qym.val();
        } else {
            self.pend_nx.next = self.pend_pop.val();
            self.qxa.next = self.rqx.q.val();
            self.qya.next = self.rqy.q.val();
        }
        // Lowest lane of the next pending set, and of the current one.
        self.la.next = self.c_l2[3].val();
        for l in 0..4 {
            if (self.pend_nx.val() & self.c_lb[3 - l].val()).any() {
                self.la.next = self.c_l2[3 - l].val();
            }
        }
        self.lc.next = self.c_l2[3].val();
        for l in 0..4 {
            if (self.pend.q.val() & self.c_lb[3 - l].val()).any() {
                self.lc.next = self.c_l2[3 - l].val();
            }
        }
        self.ra_addr.next = ((((bit_cast::<16, 8>(self.qya.val()) << self.c_one16.val())
            | bit_cast::<16, 1>(self.la.val().get_bits::<1>(1)))
            << self.c_xb16.val())
            | (bit_cast::<16, 8>(self.qxa.val()) << self.c_one16.val()))
            | bit_cast::<16, 1>(self.la.val().get_bits::<1>(0));
        self.cur_addr.next = ((((bit_cast::<16, 8>(self.rqy.q.val()) << self.c_one16.val())
            | bit_cast::<16, 1>(self.lc.val().get_bits::<1>(1)))
            << self.c_xb16.val())
            | (bit_cast::<16, 8>(self.rqx.q.val()) << self.c_one16.val()))
            | bit_cast::<16, 1>(self.lc.val().get_bits::<1>(0));
        self.dv.next = (self.ph.q.val() == self.c_ph[1].val()) & (self.pend.q.val().any());
        self.pm.next = 0.into();
        for l in 0..4 {
            if self.lc.val() == self.c_l2[l].val() {
                self.pm.next = (self.rmask.q.val() >> self.c_ls[l].val()) & self.c_full.val();
            }
        }
        for s in 0..16 {
            if (self.xr[s].rd.val() & self.c_4564.val()).any() {
                self.zs[s].next = self.xr[s].rd.val().get_bits::<24>(21);
            } else {
                self.zs[s].next = self.c_dmax.val();
            }
        }
        if self.ph.q.val() == self.c_ph[1].val() {
            for s in 0..16 {
                self.xr[s].re.next = true;
                self.xr[s].raddr.next = self.ra_addr.val();
                self.xr[s].waddr.next = self.cur_addr.val();
                self.xr[s].wd.next = self.c_4564.val()
                    | (bit_cast::<64, 24>(self.rdepth.q.val()) << self.c_2164.val())
                    | bit_cast::<64, 21>(self.rprim.q.val());
                if self.dv.val() & ((self.pm.val() & self.c_sb[s].val()).any()) {
                    if self.c_always.val() {
                        self.xr[s].we.next = true;
                    }
                    if self.c_lt.val() & (self.rdepth.q.val() < self.zs[s].val()) {
                        self.xr[s].we.next = true;
                    }
                    if self.c_le.val() & (self.rdepth.q.val() <= self.zs[s].val()) {
                        self.xr[s].we.next = true;
                    }
                }
            }
            if self.dv.val() {
                self.pend.d.next = self.pend_pop.val();
                if !self.pend_pop.val().any() {
                    if self.rlast.q.val() {
                        self.ph.d.next = self.c_ph[2].val();
                        self.open.d.next = false;
                        self.setup.d.next = true;
                        self.cnt.d.next = 0.into();
                        self.rlast.d.next = false;
                        self.n.d.next = 0.into();
                        self.mn.d.next = self.c_prim_mask.val().get_bits::<21>(0);
                        self.mx.d.next = 0.into();
                        self.rodone.d.next = 0.into();
                    }
                }
            }
            if self.take_rec.val() {
                self.open.d.next = true;
                self.pend.d.next = self.in_lanes.val();
                self.rlast.d.next = self.inp.last.val();
                self.rprim.d.next = self.inp.prim.val().get_bits::<21>(0);
                self.rdepth.d.next = self.inp.depth.val();
                self.rqx.d.next = self.inp.qx.val() & self.c_qxm.val();
                self.rqy.d.next = self.inp.qy.val() & self.c_qym.val();
                self.rmask.d.next = self.inp.mask.val() & self.c_used.val();
                self.tx.d.next = bit_cast::<12, 11>(self.inp.tile_x.val());
                self.ty.d.next = bit_cast::<12, 11>(self.inp.tile_y.val());
                if (!self.in_lanes.val().any()) & self.inp.last.val() {
                    self.ph.d.next = self.c_ph[2].val();
                    self.open.d.next = false;
                    self.setup.d.next = true;
                    self.cnt.d.next = 0.into();
                    self.rlast.d.next = false;
                    self.n.d.next = 0.into();
                    self.mn.d.next = self.c_prim_mask.val().get_bits::<21>(0);
                    self.mx.d.next = 0.into();
                    self.rodone.d.next = 0.into();
                }
            }
        }

        // ---- Readout: visible samples of the pixel of Morton code cnt, lowest first ----
        self.ro_next.next = self.cnt.q.val() + self.c_one16.val();
        self.ro_next2.next = self.cnt.q.val() + self.c_two16.val();
        self.ro_pix[0].next = 0.into();
        self.ro_next_pix[0].next = 0.into();
        self.ro_next2_pix[0].next = 0.into();
        for i in 0..16 {
            self.ro_next2_pix[i + 1].next = self.ro_next2_pix[i].val()
                | (((self.ro_next2.val() >> self.c_mdst[i].val()) & self.c_men[i].val()) << self.c_msrc[i].val());
            self.ro_pix[i + 1].next = self.ro_pix[i].val()
                | (((self.cnt.q.val() >> self.c_mdst[i].val()) & self.c_men[i].val()) << self.c_msrc[i].val());
            self.ro_next_pix[i + 1].next = self.ro_next_pix[i].val()
                | (((self.ro_next.val() >> self.c_mdst[i].val()) & self.c_men[i].val()) << self.c_msrc[i].val());
        }
        self.vis_c[0].next = 0.into();
        self.fnd[0].next = false;
        self.selp.next = 0.into();
        for s in 0..16 {
            if (self.ro_entry[s].q.val() & self.c_4564.val()).any() {
                self.vis_c[s + 1].next = self.vis_c[s].val() | self.c_sb16[s].val();
            } else {
                self.vis_c[s + 1].next = self.vis_c[s].val();
            }
        }
        self.vis.next = self.vis_c[16].val() & !self.rodone.q.val();
        for s in 0..16 {
            self.fnd[s + 1].next = self.fnd[s].val() | ((self.vis.val() & self.c_sb16[s].val()).any());
            if !self.fnd[s].val() & ((self.vis.val() & self.c_sb16[s].val()).any()) {
                self.selp.next = self.ro_entry[s].q.val().get_bits::<21>(0);
            }
        }
        self.same_c[0].next = 0.into();
        for s in 0..16 {
            if ((self.vis.val() & self.c_sb16[s].val()).any())
                & (self.ro_entry[s].q.val().get_bits::<21>(0) == self.selp.val())
            {
                self.same_c[s + 1].next = self.same_c[s].val() | self.c_sb16[s].val();
            } else {
                self.same_c[s + 1].next = self.same_c[s].val();
            }
        }
        self.emit.next = self.vis.val().any();
        self.pdone.next = !(self.vis.val() & !self.same_c[16].val()).any();
        if self.emit.val() {
            self.n_nx.next = self.n.q.val() + self.c_one16.val();
        } else {
            self.n_nx.next = self.n.q.val();
        }
        // Passes from the tile's primitive span.
        self.span.next = self.mx.q.val() - self.mn.q.val();
        self.blen.next = 0.into();
        for b in 0..21 {
            if (self.span.val() & self.c_bit21[b].val()).any() {
                self.blen.next = self.c_len[b + 1].val();
            }
        }
        self.npass.next = self.c_npass[0].val();
        self.prefix_last.next = self.c_prefix_last[0].val();
        for l in 0..22 {
            if self.blen.val() == self.c_len[l].val() {
                self.npass.next = self.c_npass[l].val();
                self.prefix_last.next = self.c_prefix_last[l].val();
            }
        }

        // ---- sort element, key, digit ----
        if self.srcy.q.val() {
            self.srcq.next = self.yr.rd.val();
        } else {
            self.srcq.next = self.zr.rd.val();
        }
        self.eprim.next = self.elem.q.val().get_bits::<21>(16);
        self.epos.next = self.elem.q.val().get_bits::<16>(0);
        // Y holds the elements in Morton order (the readout's), so the passes sort by the
        // rebased primitive alone.
        self.key.next = bit_cast::<32, 21>(self.srcq.val().get_bits::<21>(16) - self.mn.q.val());
        self.digit.next =
            bit_cast::<16, 32>(bit_cast::<32, 21>(self.elem_key.q.val()) >> bit_cast::<32, 8>(self.shamt.q.val()))
                & self.c_dmask.val();
        self.hq_ep.next = (self.hr.rd.val() & self.c_ep64.val()).any();
        if self.epoch.q.val() {
            self.ep64.next = self.c_ep64.val();
        } else {
            self.ep64.next = 0.into();
        }
        if self.hq_ep.val() {
            self.hq_ep64.next = self.c_ep64.val();
        } else {
            self.hq_ep64.next = 0.into();
        }
        self.hq_cnt.next = self.hr.rd.val().get_bits::<16>(0);

        // Pending histogram write (the element of the last Hist cycle).
        if self.hv.q.val() {
            self.hr.we.next = true;
            self.hr.waddr.next = self.hdig.q.val();
            if self.hq_ep.val() == self.epoch.q.val() {
                self.hr.wd.next = bit_cast::<64, 16>(self.hq_cnt.val() + self.c_one16.val()) | self.ep64.val();
            } else {
                self.hr.wd.next = bit_cast::<64, 16>(self.c_one16.val()) | self.ep64.val();
            }
        }
        // Pending scatter write (the element of the last Scatter cycle).
        if self.sv.q.val() {
            self.hr.we.next = true;
            self.hr.waddr.next = self.sdig.q.val();
            self.hr.wd.next = bit_cast::<64, 16>(self.hq_cnt.val() + self.c_one16.val()) | self.hq_ep64.val();
            if self.sdst_y.q.val() {
                self.yr.we.next = true;
                self.yr.waddr.next = self.hq_cnt.val();
                self.yr.wd.next = self.selem.q.val();
            } else {
                self.zr.we.next = true;
                self.zr.waddr.next = self.hq_cnt.val();
                self.zr.wd.next = self.selem.q.val();
            }
        }

        // ---- Output engine's pixel ----
        self.opx.next = bit_cast::<12, 16>(self.ocnt.q.val() & self.c_wm16.val());
        self.opy.next = bit_cast::<12, 16>(self.ocnt.q.val() >> self.c_xb16.val());
        self.ox.next = (self.otx.q.val() << self.c_xb12.val()) | self.opx.val();
        self.oy.next = (self.oty.q.val() << self.c_yb12.val()) | self.opy.val();
        self.in_vp.next = (self.ox.val() < self.c_vw.val()) & (self.oy.val() < self.c_vh.val());
        self.out_valid.next = self.obusy.q.val() & !self.osetup.q.val() & self.in_vp.val();
        self.ogo.next = !self.in_vp.val() | self.out_ready.val();
        self.omask[0].next = 0.into();
        for s in 0..16 {
            if (self.cr[s].rd.val() & self.c_3264.val()).any() {
                self.omask[s + 1].next = self.omask[s].val() | self.c_sb16[s].val();
            } else {
                self.omask[s + 1].next = self.omask[s].val();
            }
        }
        self.out.x.next = 0.into();
        self.out.y.next = 0.into();
        self.out.mask.next = 0.into();
        self.out.colour_0.next = 0.into();
        self.out.colour_1.next = 0.into();
        self.out.colour_2.next = 0.into();
        self.out.colour_3.next = 0.into();
        self.out.colour_4.next = 0.into();
        self.out.colour_5.next = 0.into();
        self.out.colour_6.next = 0.into();
        self.out.colour_7.next = 0.into();
        self.out.colour_8.next = 0.into();
        self.out.colour_9.next = 0.into();
        self.out.colour_10.next = 0.into();
        self.out.colour_11.next = 0.into();
        self.out.colour_12.next = 0.into();
        self.out.colour_13.next = 0.into();
        self.out.colour_14.next = 0.into();
        self.out.colour_15.next = 0.into();
        if self.out_valid.val() {
            self.out.x.next = self.ox.val();
            self.out.y.next = self.oy.val();
            self.out.mask.next = self.omask[16].val();
            self.out.colour_0.next = self.cr[0].rd.val().get_bits::<32>(0);
            self.out.colour_1.next = self.cr[1].rd.val().get_bits::<32>(0);
            self.out.colour_2.next = self.cr[2].rd.val().get_bits::<32>(0);
            self.out.colour_3.next = self.cr[3].rd.val().get_bits::<32>(0);
            self.out.colour_4.next = self.cr[4].rd.val().get_bits::<32>(0);
            self.out.colour_5.next = self.cr[5].rd.val().get_bits::<32>(0);
            self.out.colour_6.next = self.cr[6].rd.val().get_bits::<32>(0);
            self.out.colour_7.next = self.cr[7].rd.val().get_bits::<32>(0);
            self.out.colour_8.next = self.cr[8].rd.val().get_bits::<32>(0);
            self.out.colour_9.next = self.cr[9].rd.val().get_bits::<32>(0);
            self.out.colour_10.next = self.cr[10].rd.val().get_bits::<32>(0);
            self.out.colour_11.next = self.cr[11].rd.val().get_bits::<32>(0);
            self.out.colour_12.next = self.cr[12].rd.val().get_bits::<32>(0);
            self.out.colour_13.next = self.cr[13].rd.val().get_bits::<32>(0);
            self.out.colour_14.next = self.cr[14].rd.val().get_bits::<32>(0);
            self.out.colour_15.next = self.cr[15].rd.val().get_bits::<32>(0);
        }

        // ---- Walk: the read port ----
        self.rd_valid.next = self.rd_pending.q.val();
        self.rd.addr.next = 0.into();
        if self.rd_valid.val() {
            self.rd.addr.next = (bit_cast::<32, 21>(self.eprim.val()) << self.c_5.val()) | self.c_24.val();
        }

        // ---- Walk, second stage: the samples of the element's pixel holding its primitive ----
        self.hit_c[0].next = 0.into();
        for s in 0..16 {
            if ((self.xr[s].rd.val() & self.c_4564.val()).any())
                & (self.xr[s].rd.val().get_bits::<21>(0) == self.wprim.q.val())
            {
                self.hit_c[s + 1].next = self.hit_c[s].val() | self.c_sb16[s].val();
            } else {
                self.hit_c[s + 1].next = self.hit_c[s].val();
            }
        }
        // ---- Walk, third stage: the colour to those samples in C, and their X entries
        // cleared (X is empty once the walk is done). The colour register still holds the
        // element's colour: a new one comes at the earliest three edges after the last
        // element of a primitive leaves the first stage (notice, request, response). ----
        if self.write_valid.q.val() {
            for s in 0..16 {
                self.cr[s].waddr.next = self.write_pix.q.val();
                self.cr[s].wd.next = self.c_3264.val() | bit_cast::<64, 32>(self.colour.q.val());
                self.xr[s].waddr.next = self.write_pix.q.val();
                self.xr[s].wd.next = 0.into();
                if (self.write_samples.q.val() & self.c_sb16[s].val()).any() {
                    self.cr[s].we.next = true;
                    self.xr[s].we.next = true;
                }
            }
        }

        // ---- Output engine: beside the phases, one pixel of C per cycle, cleared as it leaves ----
        if self.osetup.q.val() {
            self.osetup.d.next = false;
            for s in 0..16 {
                self.cr[s].re.next = true;
                self.cr[s].raddr.next = 0.into();
            }
        } else if self.obusy.q.val() & self.ogo.val() {
            for s in 0..16 {
                self.cr[s].we.next = true;
                self.cr[s].waddr.next = self.ocnt.q.val();
                self.cr[s].wd.next = 0.into();
                self.cr[s].re.next = true;
                self.cr[s].raddr.next = self.ocnt.q.val() + self.c_one16.val();
            }
            self.ocnt.d.next = self.ocnt.q.val() + self.c_one16.val();
            if self.ocnt.q.val() == self.c_p1.val() {
                self.ocnt.d.next = 0.into();
                self.obusy.d.next = false;
            }
        }

        // ---- phase sequencing ----
        if self.setup.q.val() {
            // Setup: the first read of the phase.
            if self.ph.q.val() == self.c_ph[2].val() {
                for s in 0..16 {
                    self.xr[s].re.next = true;
                    self.xr[s].raddr.next = 0.into();
                }
                self.setup2.d.next = true;
            }
            if (self.ph.q.val() == self.c_ph[3].val())
                | (self.ph.q.val() == self.c_ph[5].val())
                | (self.ph.q.val() == self.c_ph[6].val())
            {
                self.yr.re.next = true;
                self.yr.raddr.next = 0.into();
                self.zr.re.next = true;
                self.zr.raddr.next = 0.into();
                self.setup2.d.next = true;
            }
            if self.ph.q.val() == self.c_ph[4].val() {
                self.hr.re.next = true;
                self.hr.raddr.next = 0.into();
            }
            // A tile of one primitive needs no pass: Hist's setup (the same reads as the
            // walk's) becomes the walk's.
            if (self.ph.q.val() == self.c_ph[3].val()) & !self.npass.val().any() {
                self.curv.d.next = false;
                self.ph.d.next = self.c_ph[6].val();
            }
        } else if self.setup2.q.val() {
            if self.ph.q.val() == self.c_ph[2].val() {
                // Readout's second setup cycle: pixel 0's X entries into the readout's
                // registers, the pixel of Morton code 1 read.
                for s in 0..16 {
                    self.ro_entry[s].d.next = self.xr[s].rd.val() & self.c_vp64.val();
                    self.xr[s].re.next = true;
                    self.xr[s].raddr.next = self.ro_next_pix[16].val();
                }
            } else {
                // The sort buffers' second setup cycle: element 0 into the element register,
                // element 1 read.
                self.elem.d.next = self.srcq.val();
                self.elem_key.d.next = self.key.val().get_bits::<21>(0);
                self.yr.re.next = true;
                self.yr.raddr.next = self.c_one16.val();
                self.zr.re.next = true;
                self.zr.raddr.next = self.c_one16.val();
            }
        } else {
            if self.ph.q.val() == self.c_ph[0].val() {
                for s in 0..16 {
                    self.xr[s].we.next = true;
                    self.xr[s].waddr.next = self.cnt.q.val();
                    self.xr[s].wd.next = 0.into();
                    self.cr[s].we.next = true;
                    self.cr[s].waddr.next = self.cnt.q.val();
                    self.cr[s].wd.next = 0.into();
                }
                self.hr.we.next = true;
                self.hr.waddr.next = self.cnt.q.val();
                self.hr.wd.next = 0.into();
                self.cnt.d.next = self.cnt.q.val() + self.c_one16.val();
                if self.cnt.q.val() == self.c_init_last.val() {
                    self.ph.d.next = self.c_ph[1].val();
                    self.cnt.d.next = 0.into();
                    self.epoch.d.next = false;
                }
            }
            if self.ph.q.val() == self.c_ph[2].val() {
                // H cleared in passing: every word once a tile (2^d ≤ w·h).
                self.hr.we.next = true;
                self.hr.waddr.next = self.cnt.q.val();
                self.hr.wd.next = 0.into();
                if self.emit.val() {
                    self.yr.we.next = true;
                    self.yr.waddr.next = self.n.q.val();
                    self.yr.wd.next = (bit_cast::<64, 21>(self.selp.val()) << self.c_1664.val())
                        | bit_cast::<64, 16>(self.ro_pix[16].val());
                    self.n.d.next = self.n_nx.val();
                    self.rodone.d.next = self.rodone.q.val() | self.same_c[16].val();
                    if self.selp.val() < self.mn.q.val() {
                        self.mn.d.next = self.selp.val();
                    }
                    if self.selp.val() > self.mx.q.val() {
                        self.mx.d.next = self.selp.val();
                    }
                }
                // X is read a pixel ahead (the address does not wait for `pdone`; the read and
                // the readout's registers move on with it).
                for s in 0..16 {
                    self.xr[s].raddr.next = self.ro_next2_pix[16].val();
                }
                if self.pdone.val() {
                    for s in 0..16 {
                        self.xr[s].re.next = true;
                        self.ro_entry[s].d.next = self.xr[s].rd.val() & self.c_vp64.val();
                    }
                    self.rodone.d.next = 0.into();
                    self.cnt.d.next = self.cnt.q.val() + self.c_one16.val();
                    if self.cnt.q.val() == self.c_p1.val() {
                        self.cnt.d.next = 0.into();
                        self.setup.d.next = true;
                        self.srcy.d.next = true;
                        self.pass.d.next = 0.into();
                        self.shamt.d.next = 0.into();
                        if !self.n_nx.val().any() {
                            self.ph.d.next = self.c_ph[6].val();
                        } else {
                            self.ph.d.next = self.c_ph[3].val();
                        }
                    }
                }
            }
            if self.ph.q.val() == self.c_ph[3].val() {
                self.hr.re.next = true;
                self.hr.raddr.next = self.digit.val();
                self.hv.d.next = true;
                self.hdig.d.next = self.digit.val();
                self.elem.d.next = self.srcq.val();
                self.elem_key.d.next = self.key.val().get_bits::<21>(0);
                self.yr.re.next = true;
                self.yr.raddr.next = self.cnt.q.val() + self.c_two16.val();
                self.zr.re.next = true;
                self.zr.raddr.next = self.cnt.q.val() + self.c_two16.val();
                self.cnt.d.next = self.cnt.q.val() + self.c_one16.val();
                if (self.cnt.q.val() + self.c_one16.val()) == self.n.q.val() {
                    self.cnt.d.next = 0.into();
                    self.sum.d.next = 0.into();
                    self.setup.d.next = true;
                    self.ph.d.next = self.c_ph[4].val();
                }
            }
            if self.ph.q.val() == self.c_ph[4].val() {
                self.hr.we.next = true;
                self.hr.waddr.next = self.cnt.q.val();
                self.hr.wd.next = bit_cast::<64, 16>(self.sum.q.val()) | self.ep64.val();
                if self.hq_ep.val() == self.epoch.q.val() {
                    self.sum.d.next = self.sum.q.val() + self.hq_cnt.val();
                }
                self.hr.re.next = true;
                self.hr.raddr.next = self.cnt.q.val() + self.c_one16.val();
                self.cnt.d.next = self.cnt.q.val() + self.c_one16.val();
                if self.cnt.q.val() == self.prefix_last.val() {
                    self.cnt.d.next = 0.into();
                    self.setup.d.next = true;
                    self.ph.d.next = self.c_ph[5].val();
                }
            }
            if self.ph.q.val() == self.c_ph[5].val() {
                self.hr.re.next = true;
                self.hr.raddr.next = self.digit.val();
                self.sv.d.next = true;
                self.sdig.d.next = self.digit.val();
                self.selem.d.next = self.elem.q.val();
                self.sdst_y.d.next = !self.srcy.q.val();
                self.elem.d.next = self.srcq.val();
                self.elem_key.d.next = self.key.val().get_bits::<21>(0);
                self.yr.re.next = true;
                self.yr.raddr.next = self.cnt.q.val() + self.c_two16.val();
                self.zr.re.next = true;
                self.zr.raddr.next = self.cnt.q.val() + self.c_two16.val();
                self.cnt.d.next = self.cnt.q.val() + self.c_one16.val();
                if (self.cnt.q.val() + self.c_one16.val()) == self.n.q.val() {
                    self.cnt.d.next = 0.into();
                    self.setup.d.next = true;
                    self.srcy.d.next = !self.srcy.q.val();
                    self.epoch.d.next = !self.epoch.q.val();
                    self.pass.d.next = self.pass.q.val() + self.c_one6.val();
                    self.shamt.d.next = self.shamt.q.val() + self.c_d8.val();
                    if (self.pass.q.val() + self.c_one6.val()) == self.npass.val() {
                        self.curv.d.next = false;
                        self.ph.d.next = self.c_ph[6].val();
                    } else {
                        self.ph.d.next = self.c_ph[3].val();
                    }
                }
            }
            // The walk waits while C still holds the previous tile's pixels.
            if (self.ph.q.val() == self.c_ph[6].val()) & !self.obusy.q.val() {
                if self.cnt.q.val() == self.n.q.val() {
                    // The tile goes to the output engine; the next tile's records come in.
                    self.cnt.d.next = 0.into();
                    self.ph.d.next = self.c_ph[1].val();
                    self.obusy.d.next = true;
                    self.osetup.d.next = true;
                    self.ocnt.d.next = 0.into();
                    self.otx.d.next = self.tx.q.val();
                    self.oty.d.next = self.ty.q.val();
                } else if !self.curv.q.val() | (self.eprim.val() != self.curp.q.val()) {
                    self.ph.d.next = self.c_ph[7].val();
                } else {
                    // First stage: read X at the element's pixel; the second writes C.
                    self.wv.d.next = true;
                    self.wpix.d.next = self.epos.val();
                    self.wprim.d.next = self.eprim.val();
                    for s in 0..16 {
                        self.xr[s].re.next = true;
                        self.xr[s].raddr.next = self.epos.val();
                    }
                    self.elem.d.next = self.srcq.val();
                    self.elem_key.d.next = self.key.val().get_bits::<21>(0);
                    self.yr.re.next = true;
                    self.yr.raddr.next = self.cnt.q.val() + self.c_two16.val();
                    self.zr.re.next = true;
                    self.zr.raddr.next = self.cnt.q.val() + self.c_two16.val();
                    self.cnt.d.next = self.cnt.q.val() + self.c_one16.val();
                }
            }
            if (self.ph.q.val() == self.c_ph[7].val()) & self.rd_ready.val() {
                self.ph.d.next = self.c_ph[8].val();
            }
            if (self.ph.q.val() == self.c_ph[8].val()) & self.rsp_valid.val() {
                self.colour.d.next = self.rsp.rdata.val();
                self.curv.d.next = true;
                self.curp.d.next = self.eprim.val();
                self.ph.d.next = self.c_ph[6].val();
            }
        }

        if self.flush.val() {
            self.ph.d.next = 0.into();
            self.setup.d.next = false;
            self.cnt.d.next = 0.into();
            self.pend.d.next = 0.into();
            self.rlast.d.next = false;
            self.open.d.next = false;
            self.rprim.d.next = 0.into();
            self.rdepth.d.next = 0.into();
            self.rqx.d.next = 0.into();
            self.rqy.d.next = 0.into();
            self.rmask.d.next = 0.into();
            self.tx.d.next = 0.into();
            self.ty.d.next = 0.into();
            self.n.d.next = 0.into();
            self.mn.d.next = 0.into();
            self.mx.d.next = 0.into();
            self.rodone.d.next = 0.into();
            for s in 0..16 {
                self.ro_entry[s].d.next = 0.into();
            }
            self.pass.d.next = 0.into();
            self.shamt.d.next = 0.into();
            self.epoch.d.next = false;
            self.sum.d.next = 0.into();
            self.srcy.d.next = false;
            self.setup2.d.next = false;
            self.elem.d.next = 0.into();
            self.elem_key.d.next = 0.into();
            self.curv.d.next = false;
            self.curp.d.next = 0.into();
            self.colour.d.next = 0.into();
            self.hv.d.next = false;
            self.sv.d.next = false;
            self.sdst_y.d.next = false;
            self.wv.d.next = false;
            self.wpix.d.next = 0.into();
            self.wprim.d.next = 0.into();
            self.write_valid.d.next = false;
            self.write_pix.d.next = 0.into();
            self.write_samples.d.next = 0.into();
            self.obusy.d.next = false;
            self.osetup.d.next = false;
            self.ocnt.d.next = 0.into();
            self.otx.d.next = 0.into();
            self.oty.d.next = 0.into();
        }
        // `rd_valid` as a flop of its own: the phase after this edge is WalkReq. Computed
        // from the two conditions that lead there (the walk meets a primitive other than
        // the current colour's; WalkReq not yet granted), not from the next-phase mux.
        self.rd_pending.d.next = !self.flush.val()
            & ((!self.setup.q.val()
                & !self.setup2.q.val()
                & (self.ph.q.val() == self.c_ph[6].val())
                & !self.obusy.q.val()
                & (self.cnt.q.val() != self.n.q.val())
                & (!self.curv.q.val() | (self.eprim.val() != self.curp.q.val())))
                | ((self.ph.q.val() == self.c_ph[7].val())
                    & (!self.rd_ready.val() | self.setup.q.val() | self.setup2.q.val())));
    }
}

emit::indexed_kernel_logic!(ShadingSort);

/// The block's Verilog with top module `name`.
pub fn verilog(cfg: &Config, name: &str) -> String {
    emit::block_verilog(ShadingSort::new(cfg), name)
}

/// The shading block's row of [`crate::BLOCK_FILES`].
pub const FILE: crate::BlockFile = crate::BlockFile {
    role: "seed 002, sort-based deferred shading of a second tile: depth test, radix sort, walk with colour reads, pixels out",
    contract: "tilerast_golden::shading_sort::ShadingSortCycle",
    sig: <tilerast_golden::shading_sort::ShadingSortPorts as tilerast_golden::cycle::BlockSignature>::SIGNATURE,
    params: |cfg| {
        supported(cfg)?;
        let [w, h] = cfg.second_tile;
        Ok(format!(
            "{w}x{h} second tiles, {}x, {}-bit digits, depth {:?}; X {} x {} x 46 bits, Y and Z {} x 37, H {} x 17, C {} x {} x 33; colour reads at prim*32 + 24 in the primitive table",
            cfg.msaa,
            cfg.sort_digit_bits,
            cfg.depth_func,
            cfg.msaa,
            w * h,
            w * h * cfg.msaa,
            1u32 << cfg.sort_digit_bits,
            cfg.msaa,
            w * h
        ))
    },
    verilog,
};
