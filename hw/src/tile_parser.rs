//! Tile parser (seed 000, claim 1 first step, claims 6–7 by construction): walks the first
//! sub-tiles of one command's bounding box and hands each to the sub-tile coverage stage with
//! its edge values.
//!
//! Cycle model: [`tilerast_golden::tile_parser::TileParserCycle`] (same registers); its
//! rustdoc is the block's timing contract (latency, throughput, back-pressure), stated once.
//!
//! **Ports.** `clock`, `flush` (synchronous: every register returns to 0, i.e. idle).
//! In: `in_valid`/`in_ready` with `inp` ([`crate::streams::EdgesIn`], the `edges` stream from
//! setup: `e0..2` is the biased E at the origin of sub-tile (c0, r0), the bbox is inclusive,
//! tile-relative and clipped). Out: `out_valid`/`out_ready` with `out`
//! ([`crate::streams::CandOut`], the `cand` stream: `e0..2` at this sub-tile's origin). Fields:
//! [`tilerast_golden::for_each_stream!`].
//!
//! **Walk.** With c0 = bx0 / SW, c1 = bx1 / SW, r0 = by0 / SH, r1 = by1 / SH: rows r0..=r1 bottom-up,
//! in each row columns c0..=c1 left → right (golden `subtile_coverage` walk order restricted to
//! the bounding box). Rows and columns outside the box are seed 000's row (claim 6) and column
//! (claim 7) rejection: they are never visited and cost no cycle. E is stepped incrementally:
//! next column `E += a << (8 + log2 SW)`, next row `E_row += b << (8 + log2 SH)`, `E = E_row`
//! (shifts and adds, no multiplier). The last visited sub-tile carries `last`; an
//! `empty` command gives one candidate with `none = 1, last = 1` (its other fields are loaded
//! from the input as for a non-empty command).
//!
//! **Look-ahead** (`cfg.subtiles_per_cycle` = K, 1..=4; issue 17). Lanes j = 1 … K − 1 test
//! column col + j of the held row: edge k rejects it when `E_k + j·A_k + max(A_k, 0) +
//! max(B_k, 0)` (A = a << (8 + log2 SW), B = b << (8 + log2 SH); E's maximum over the
//! sub-tile's unclipped area box) is negative at bit eb. A column step lands on the first lane
//! whose column is not rejected or is the command's last, else on col + K (`E + j·A`, with
//! j·A = A, A << 1, A + (A << 1), A << 2); if a lane's column lies right of c1 (all rejected),
//! on (c0, row + 1) like the row step. Lanes j ≥ K are constant-disabled (yosys removes them):
//! K = 1 is the walker without look-ahead. `BboxOnly` builds K = 1. Every look-ahead input is a
//! register: the lane offsets `j·A + max(A, 0) + max(B, 0)` and `3·A` depend only on the
//! command's a and b, so they are computed from the input and registered with the command
//! (`off_r`, `ja3_r`, kept in eb + 1 bits, exact for the test's sign bit eb), leaving one adder
//! `E + off_r` before the lane priority (issue 17; before, up to four carry chains in series:
//! docs/measurements.md, "Benchmarks"). They are functions of `a_r`, `b_r`, so the cycle model
//! needs no state for them; its `lookahead` / `lookahead_rejects` state the rule.
//!
//! **Widths.** Ports follow `hw/README.md` (`Signed<24>` coefficients, `Signed<48>` E). Inside,
//! every a/b and E register input is sign-extended from the preset's bound
//! `tilerast_golden::tile_parser::edge_widths(cfg)` (`(cb, eb)`: ice40 17/34, default 20/38,
//! full 21/42 bits), so yosys merges the copied high register bits and prunes the adders above:
//! exact for every value setup can produce (vertices inside the guard band; the bound is tested
//! at the guard-band extremes), and out-of-range inputs wrap exactly as the cycle model says.
//! Measured sizes: only the generated per-block table in docs/measurements.md ("FPGA").
//!
//! **Handshake.** The output registers are the walker: `out_valid` = a candidate is held.
//! `in_ready = !out_valid | (out_ready & out_last)` (combinational in `out_ready`, nothing else
//! combinational from input to output). Loading the next command at the edge where the last
//! candidate leaves is what lets commands follow without a bubble (timing contract:
//! [`tilerast_golden::tile_parser::TileParserCycle`]).
//!
//! ```text
//!                 ┌───────────────────────────────────────────────┐
//!  in_* ─────────►│ load (accept): col=c0,row=r0,E=E_row=in_e,...  │
//!                 │ step (fire):   col+j, E+=j·(a<<sx) | row+1,    │──► out_* (registers)
//!  in_ready ◄─────│                col=c0, E=E_row+=b<<sy         │
//!                 └──────────▲────────────────────────────────────┘
//!      lanes j = 1..K−1: reject(col+j) = ∃k: E_k + off_r[j,k] < 0, off = j·A_k + A_k⁺ + B_k⁺
//!      (off_r, 3·A loaded with the command from in a, b)
//!      j = first lane not rejected (or the last sub-tile), else K; all up to c1 rejected → row+1
//!   row r1  ─ ─ ─► ─► ─► (last)
//!   row r0+1 ─ ─ ► ─► ─►
//!   row r0   ─ ─ ► ─►──►        columns c0..c1 of the bbox; other rows/columns never visited;
//!                   └skip┘      test-rejected columns passed over by the look-ahead
//! ```

use crate::emit;
use crate::util::{vec_of, Sext24, Sext48};
use rust_hdl::prelude::*;
use tilerast_golden::config::{Config, CoverageTest};
use tilerast_golden::tile_parser::edge_widths;

tilerast_golden::tile_parser_streams! { crate::streams::stream_block;
    /// The tile parser block (see the module header).
    pub struct TileParser {
        // Preset constants.
        sw_log: Constant<Bits<8>>,
        sh_log: Constant<Bits<8>>,
        col_shift: Constant<Bits<8>>,
        row_shift: Constant<Bits<8>>,
        one8: Constant<Bits<8>>,
        zero8: Constant<Bits<8>>,
        zero9: Constant<Bits<9>>,
        zero24: Constant<Bits<24>>,
        szero24: Constant<Signed<24>>,
        szero48: Constant<Signed<48>>,
        // Look-ahead constants (index j − 1): lane j (1..=3) enabled iff j < K; column offsets
        // j (1..=4) in 9 bits; the sign bit of a look-ahead sum (bit eb, at most 47) and bit 47.
        c_en: Vec<Constant<Bit>>,
        c_j9: Vec<Constant<Bits<9>>>,
        sh1: Constant<Bits<8>>,
        sh2: Constant<Bits<8>>,
        sbit48: Constant<Bits<48>>,
        bit47: Constant<Bits<48>>,
        uzero48: Constant<Bits<48>>,

        // Look-ahead locals (index (j − 1)·3 + k for lane j, edge k). The lane offsets are
        // computed from the command being loaded (`i*`: a, b from the input) and registered.
        iax: Vec<Signal<Local, Signed<48>>>,
        ibx: Vec<Signal<Local, Signed<48>>>,
        iast: Vec<Signal<Local, Signed<48>>>,
        ibst: Vec<Signal<Local, Signed<48>>>,
        iapos: Vec<Signal<Local, Signed<48>>>,
        ibpos: Vec<Signal<Local, Signed<48>>>,
        imx: Vec<Signal<Local, Signed<48>>>,
        ija: Vec<Signal<Local, Signed<48>>>,
        ioff: Vec<Signal<Local, Signed<48>>>,
        sx_off: Vec<Sext48>,
        sx_ja3: Vec<Sext48>,
        ast: Vec<Signal<Local, Signed<48>>>,
        ecur: Vec<Signal<Local, Signed<48>>>,
        ja: Vec<Signal<Local, Signed<48>>>,
        tsum: Vec<Signal<Local, Signed<48>>>,
        land: Vec<Signal<Local, Signed<48>>>,
        tneg: Vec<Signal<Local, Bit>>,
        rej: Vec<Signal<Local, Bit>>,
        skip: Vec<Signal<Local, Bit>>,
        cj: Vec<Signal<Local, Bits<9>>>,
        inrow: Vec<Signal<Local, Bit>>,
        fin: Vec<Signal<Local, Bit>>,
        col9: Signal<Local, Bits<9>>,
        wrap: Signal<Local, Bit>,
        c19: Signal<Local, Bits<9>>,

        // Combinational locals.
        accept: Signal<Local, Bit>,
        fire: Signal<Local, Bit>,
        c0_in: Signal<Local, Bits<8>>,
        c1_in: Signal<Local, Bits<8>>,
        r0_in: Signal<Local, Bits<8>>,
        r1_in: Signal<Local, Bits<8>>,
        col_inc: Signal<Local, Bits<8>>,
        row_inc: Signal<Local, Bits<8>>,
        ax0: Signal<Local, Signed<48>>,
        ax1: Signal<Local, Signed<48>>,
        ax2: Signal<Local, Signed<48>>,
        bx0: Signal<Local, Signed<48>>,
        bx1: Signal<Local, Signed<48>>,
        bx2: Signal<Local, Signed<48>>,
        astep0: Signal<Local, Signed<48>>,
        astep1: Signal<Local, Signed<48>>,
        astep2: Signal<Local, Signed<48>>,
        bstep0: Signal<Local, Signed<48>>,
        bstep1: Signal<Local, Signed<48>>,
        bstep2: Signal<Local, Signed<48>>,
        erow_next0: Signal<Local, Signed<48>>,
        erow_next1: Signal<Local, Signed<48>>,
        erow_next2: Signal<Local, Signed<48>>,
        e_d0: Signal<Local, Signed<48>>,
        e_d1: Signal<Local, Signed<48>>,
        e_d2: Signal<Local, Signed<48>>,
        erow_d0: Signal<Local, Signed<48>>,
        erow_d1: Signal<Local, Signed<48>>,
        erow_d2: Signal<Local, Signed<48>>,

        // Sign extension of every E and a/b register input (preset widths).
        sx_e0: Sext48,
        sx_e1: Sext48,
        sx_e2: Sext48,
        sx_erow0: Sext48,
        sx_erow1: Sext48,
        sx_erow2: Sext48,
        sx_a0: Sext24,
        sx_a1: Sext24,
        sx_a2: Sext24,
        sx_b0: Sext24,
        sx_b1: Sext24,
        sx_b2: Sext24,

        // Registers: the held candidate (= outputs) and the walk state.
        valid_r: DFF<Bit>,
        prim_r: DFF<Bits<24>>,
        tx_r: DFF<Bits<8>>,
        ty_r: DFF<Bits<8>>,
        col_r: DFF<Bits<8>>,
        row_r: DFF<Bits<8>>,
        e0_r: DFF<Signed<48>>,
        e1_r: DFF<Signed<48>>,
        e2_r: DFF<Signed<48>>,
        a0_r: DFF<Signed<24>>,
        a1_r: DFF<Signed<24>>,
        a2_r: DFF<Signed<24>>,
        b0_r: DFF<Signed<24>>,
        b1_r: DFF<Signed<24>>,
        b2_r: DFF<Signed<24>>,
        visw_r: DFF<Bits<9>>,
        vish_r: DFF<Bits<9>>,
        last_r: DFF<Bit>,
        none_r: DFF<Bit>,
        c0_r: DFF<Bits<8>>,
        c1_r: DFF<Bits<8>>,
        r1_r: DFF<Bits<8>>,
        erow0_r: DFF<Signed<48>>,
        erow1_r: DFF<Signed<48>>,
        erow2_r: DFF<Signed<48>>,
        // Look-ahead registers, loaded with the command (functions of a_r, b_r): lane offsets
        // j·A + max(A, 0) + max(B, 0) (index (j − 1)·3 + k) and 3·A (index k), kept in eb + 1
        // bits (the test's sign bit is eb).
        off_r: Vec<DFF<Signed<48>>>,
        ja3_r: Vec<DFF<Signed<48>>>,
    }
}

impl TileParser {
    /// The block for `cfg` (sub-tile size enters as shift constants, K =
    /// `cfg.subtiles_per_cycle` as lane enables; K = 1 with `BboxOnly`, as in the cycle model).
    pub fn new(cfg: &Config) -> Self {
        let lsw = cfg.subtile[0].trailing_zeros() as u64;
        let lsh = cfg.subtile[1].trailing_zeros() as u64;
        let (cb, eb) = edge_widths(cfg);
        let kk = if cfg.coverage_test == CoverageTest::BboxOnly {
            1
        } else {
            cfg.subtiles_per_cycle
        };
        Self {
            c_en: (1..4).map(|j| Constant::new(j < kk)).collect(),
            c_j9: (1..5u64).map(|j| Constant::new(j.into())).collect(),
            sh1: Constant::new(1u64.into()),
            sh2: Constant::new(2u64.into()),
            sbit48: Constant::new((1u64 << eb.min(47)).into()),
            bit47: Constant::new((1u64 << 47).into()),
            uzero48: Constant::new(0u64.into()),
            iax: vec_of(3),
            ibx: vec_of(3),
            iast: vec_of(3),
            ibst: vec_of(3),
            iapos: vec_of(3),
            ibpos: vec_of(3),
            imx: vec_of(3),
            ija: vec_of(9),
            ioff: vec_of(9),
            sx_off: (0..9).map(|_| Sext48::new((eb + 1).min(48))).collect(),
            sx_ja3: (0..3).map(|_| Sext48::new((eb + 1).min(48))).collect(),
            ast: vec_of(3),
            ecur: vec_of(3),
            ja: vec_of(12),
            tsum: vec_of(9),
            land: vec_of(12),
            tneg: vec_of(9),
            rej: vec_of(4),
            skip: vec_of(4),
            cj: vec_of(5),
            inrow: vec_of(5),
            fin: vec_of(5),
            col9: Default::default(),
            wrap: Default::default(),
            c19: Default::default(),
            clock: Default::default(),
            flush: Default::default(),
            in_valid: Default::default(),
            in_ready: Default::default(),
            inp: Default::default(),
            out_valid: Default::default(),
            out_ready: Default::default(),
            out: Default::default(),
            sw_log: Constant::new(lsw.into()),
            sh_log: Constant::new(lsh.into()),
            col_shift: Constant::new((8 + lsw).into()),
            row_shift: Constant::new((8 + lsh).into()),
            one8: Constant::new(1u64.into()),
            zero8: Constant::new(0u64.into()),
            zero9: Constant::new(0u64.into()),
            zero24: Constant::new(0u64.into()),
            szero24: Constant::new(0i64.into()),
            szero48: Constant::new(0i64.into()),
            accept: Default::default(),
            fire: Default::default(),
            c0_in: Default::default(),
            c1_in: Default::default(),
            r0_in: Default::default(),
            r1_in: Default::default(),
            col_inc: Default::default(),
            row_inc: Default::default(),
            ax0: Default::default(),
            ax1: Default::default(),
            ax2: Default::default(),
            bx0: Default::default(),
            bx1: Default::default(),
            bx2: Default::default(),
            astep0: Default::default(),
            astep1: Default::default(),
            astep2: Default::default(),
            bstep0: Default::default(),
            bstep1: Default::default(),
            bstep2: Default::default(),
            erow_next0: Default::default(),
            erow_next1: Default::default(),
            erow_next2: Default::default(),
            e_d0: Default::default(),
            e_d1: Default::default(),
            e_d2: Default::default(),
            erow_d0: Default::default(),
            erow_d1: Default::default(),
            erow_d2: Default::default(),
            sx_e0: Sext48::new(eb),
            sx_e1: Sext48::new(eb),
            sx_e2: Sext48::new(eb),
            sx_erow0: Sext48::new(eb),
            sx_erow1: Sext48::new(eb),
            sx_erow2: Sext48::new(eb),
            sx_a0: Sext24::new(cb),
            sx_a1: Sext24::new(cb),
            sx_a2: Sext24::new(cb),
            sx_b0: Sext24::new(cb),
            sx_b1: Sext24::new(cb),
            sx_b2: Sext24::new(cb),
            valid_r: Default::default(),
            prim_r: Default::default(),
            tx_r: Default::default(),
            ty_r: Default::default(),
            col_r: Default::default(),
            row_r: Default::default(),
            e0_r: Default::default(),
            e1_r: Default::default(),
            e2_r: Default::default(),
            a0_r: Default::default(),
            a1_r: Default::default(),
            a2_r: Default::default(),
            b0_r: Default::default(),
            b1_r: Default::default(),
            b2_r: Default::default(),
            visw_r: Default::default(),
            vish_r: Default::default(),
            last_r: Default::default(),
            none_r: Default::default(),
            c0_r: Default::default(),
            c1_r: Default::default(),
            r1_r: Default::default(),
            erow0_r: Default::default(),
            erow1_r: Default::default(),
            erow2_r: Default::default(),
            off_r: vec_of(9),
            ja3_r: vec_of(3),
        }
    }
}

impl Logic for TileParser {
    #[hdl_gen]
    fn update(&mut self) {
        dff_setup!(
            self, clock, valid_r, prim_r, tx_r, ty_r, col_r, row_r, e0_r, e1_r, e2_r, a0_r, a1_r, a2_r, b0_r, b1_r,
            b2_r, visw_r, vish_r, last_r, none_r, c0_r, c1_r, r1_r, erow0_r, erow1_r, erow2_r
        );
        // Handshake.
        self.in_ready.next = !self.valid_r.q.val() | (self.out_ready.val() & self.last_r.q.val());
        self.accept.next = self.in_valid.val() & (!self.valid_r.q.val() | (self.out_ready.val() & self.last_r.q.val()));
        self.fire.next = self.valid_r.q.val() & self.out_ready.val();
        // Bounding box in sub-tiles.
        self.c0_in.next = self.inp.bx0.val() >> self.sw_log.val();
        self.c1_in.next = self.inp.bx1.val() >> self.sw_log.val();
        self.r0_in.next = self.inp.by0.val() >> self.sh_log.val();
        self.r1_in.next = self.inp.by1.val() >> self.sh_log.val();
        self.col_inc.next = self.col_r.q.val() + self.one8.val();
        self.row_inc.next = self.row_r.q.val() + self.one8.val();
        // Steps: a·SW·256 and b·SH·256 (sign-extend, then shift).
        self.ax0.next = signed_bit_cast::<48, 24>(self.a0_r.q.val());
        self.ax1.next = signed_bit_cast::<48, 24>(self.a1_r.q.val());
        self.ax2.next = signed_bit_cast::<48, 24>(self.a2_r.q.val());
        self.bx0.next = signed_bit_cast::<48, 24>(self.b0_r.q.val());
        self.bx1.next = signed_bit_cast::<48, 24>(self.b1_r.q.val());
        self.bx2.next = signed_bit_cast::<48, 24>(self.b2_r.q.val());
        self.astep0.next = signed_cast(unsigned_cast(self.ax0.val()) << self.col_shift.val());
        self.astep1.next = signed_cast(unsigned_cast(self.ax1.val()) << self.col_shift.val());
        self.astep2.next = signed_cast(unsigned_cast(self.ax2.val()) << self.col_shift.val());
        self.bstep0.next = signed_cast(unsigned_cast(self.bx0.val()) << self.row_shift.val());
        self.bstep1.next = signed_cast(unsigned_cast(self.bx1.val()) << self.row_shift.val());
        self.bstep2.next = signed_cast(unsigned_cast(self.bx2.val()) << self.row_shift.val());
        self.erow_next0.next = self.erow0_r.q.val() + self.bstep0.val();
        self.erow_next1.next = self.erow1_r.q.val() + self.bstep1.val();
        self.erow_next2.next = self.erow2_r.q.val() + self.bstep2.val();
        // Look-ahead (K > 1): lane j tests column col + j with E + off_r (off = j·A + max(A, 0)
        // + max(B, 0), from the loading command's a, b), sign at bit eb; ja = j·A, land = E +
        // j·A (j = 1..=4; 3·A registered).
        for i in 0..9 {
            self.off_r[i].clock.next = self.clock.val();
            self.off_r[i].d.next = self.off_r[i].q.val();
        }
        for k in 0..3 {
            self.ja3_r[k].clock.next = self.clock.val();
            self.ja3_r[k].d.next = self.ja3_r[k].q.val();
        }
        self.iax[0].next = signed_bit_cast::<48, 24>(self.sx_a0.y.val());
        self.iax[1].next = signed_bit_cast::<48, 24>(self.sx_a1.y.val());
        self.iax[2].next = signed_bit_cast::<48, 24>(self.sx_a2.y.val());
        self.ibx[0].next = signed_bit_cast::<48, 24>(self.sx_b0.y.val());
        self.ibx[1].next = signed_bit_cast::<48, 24>(self.sx_b1.y.val());
        self.ibx[2].next = signed_bit_cast::<48, 24>(self.sx_b2.y.val());
        for k in 0..3 {
            self.iast[k].next = signed_cast(unsigned_cast(self.iax[k].val()) << self.col_shift.val());
            self.ibst[k].next = signed_cast(unsigned_cast(self.ibx[k].val()) << self.row_shift.val());
            self.iapos[k].next = self.iast[k].val();
            if (unsigned_cast(self.iast[k].val()) & self.bit47.val()) != self.uzero48.val() {
                self.iapos[k].next = self.szero48.val();
            }
            self.ibpos[k].next = self.ibst[k].val();
            if (unsigned_cast(self.ibst[k].val()) & self.bit47.val()) != self.uzero48.val() {
                self.ibpos[k].next = self.szero48.val();
            }
            self.imx[k].next = self.iapos[k].val() + self.ibpos[k].val();
            self.ija[k].next = self.iast[k].val();
            self.ija[3 + k].next = signed_cast(unsigned_cast(self.iast[k].val()) << self.sh1.val());
            self.ija[6 + k].next = self.iast[k].val() + self.ija[3 + k].val();
            self.sx_ja3[k].x.next = self.ija[6 + k].val();
        }
        for i in 0..9 {
            self.ioff[i].next = self.ija[i].val() + self.imx[i % 3].val();
            self.sx_off[i].x.next = self.ioff[i].val();
        }
        self.ast[0].next = self.astep0.val();
        self.ast[1].next = self.astep1.val();
        self.ast[2].next = self.astep2.val();
        self.ecur[0].next = self.e0_r.q.val();
        self.ecur[1].next = self.e1_r.q.val();
        self.ecur[2].next = self.e2_r.q.val();
        for k in 0..3 {
            self.ja[k].next = self.ast[k].val();
            self.ja[3 + k].next = signed_cast(unsigned_cast(self.ast[k].val()) << self.sh1.val());
            self.ja[6 + k].next = self.ja3_r[k].q.val();
            self.ja[9 + k].next = signed_cast(unsigned_cast(self.ast[k].val()) << self.sh2.val());
        }
        for i in 0..12 {
            self.land[i].next = self.ecur[i % 3].val() + self.ja[i].val();
        }
        for i in 0..9 {
            self.tsum[i].next = self.ecur[i % 3].val() + self.off_r[i].q.val();
            self.tneg[i].next = (unsigned_cast(self.tsum[i].val()) & self.sbit48.val()) != self.uzero48.val();
        }
        self.col9.next = bit_cast::<9, 8>(self.col_r.q.val());
        self.c19.next = bit_cast::<9, 8>(self.c1_r.q.val());
        self.rej[0].next = false;
        self.skip[0].next = false;
        self.cj[0].next = self.col9.val();
        self.inrow[0].next = true;
        self.fin[0].next = false;
        for j in 1..5 {
            self.cj[j].next = self.col9.val() + self.c_j9[j - 1].val();
            self.inrow[j].next = self.cj[j].val() <= self.c19.val();
            self.fin[j].next = (self.cj[j].val() == self.c19.val()) & (self.row_r.q.val() == self.r1_r.q.val());
        }
        for j in 1..4 {
            self.rej[j].next =
                self.tneg[(j - 1) * 3].val() | self.tneg[(j - 1) * 3 + 1].val() | self.tneg[(j - 1) * 3 + 2].val();
            self.skip[j].next = self.c_en[j - 1].val() & self.rej[j].val() & !self.fin[j].val();
        }
        // Every column up to c1 tested and rejected: the step goes to the next row.
        self.wrap.next = self.skip[1].val()
            & (!self.inrow[2].val()
                | (self.skip[2].val() & !self.inrow[3].val())
                | (self.skip[2].val() & self.skip[3].val() & !self.inrow[4].val()));
        // E register inputs (hold by default), sign-extended below.
        self.e_d0.next = self.e0_r.q.val();
        self.e_d1.next = self.e1_r.q.val();
        self.e_d2.next = self.e2_r.q.val();
        self.erow_d0.next = self.erow0_r.q.val();
        self.erow_d1.next = self.erow1_r.q.val();
        self.erow_d2.next = self.erow2_r.q.val();
        self.sx_a0.x.next = self.inp.a0.val();
        self.sx_a1.x.next = self.inp.a1.val();
        self.sx_a2.x.next = self.inp.a2.val();
        self.sx_b0.x.next = self.inp.b0.val();
        self.sx_b1.x.next = self.inp.b1.val();
        self.sx_b2.x.next = self.inp.b2.val();
        if self.accept.val() {
            // Load a new command: its first visited sub-tile (c0, r0).
            self.valid_r.d.next = true;
            self.prim_r.d.next = self.inp.prim.val();
            self.tx_r.d.next = self.inp.tile_x.val();
            self.ty_r.d.next = self.inp.tile_y.val();
            self.col_r.d.next = self.c0_in.val();
            self.row_r.d.next = self.r0_in.val();
            self.e_d0.next = self.inp.e0.val();
            self.e_d1.next = self.inp.e1.val();
            self.e_d2.next = self.inp.e2.val();
            self.erow_d0.next = self.inp.e0.val();
            self.erow_d1.next = self.inp.e1.val();
            self.erow_d2.next = self.inp.e2.val();
            self.a0_r.d.next = self.sx_a0.y.val();
            self.a1_r.d.next = self.sx_a1.y.val();
            self.a2_r.d.next = self.sx_a2.y.val();
            self.b0_r.d.next = self.sx_b0.y.val();
            self.b1_r.d.next = self.sx_b1.y.val();
            self.b2_r.d.next = self.sx_b2.y.val();
            for i in 0..9 {
                self.off_r[i].d.next = self.sx_off[i].y.val();
            }
            for k in 0..3 {
                self.ja3_r[k].d.next = self.sx_ja3[k].y.val();
            }
            self.visw_r.d.next = self.inp.vis_w.val();
            self.vish_r.d.next = self.inp.vis_h.val();
            self.c0_r.d.next = self.c0_in.val();
            self.c1_r.d.next = self.c1_in.val();
            self.r1_r.d.next = self.r1_in.val();
            self.none_r.d.next = self.inp.empty.val();
            self.last_r.d.next = self.inp.empty.val()
                | ((self.c0_in.val() == self.c1_in.val()) & (self.r0_in.val() == self.r1_in.val()));
        } else if self.fire.val() {
            if self.last_r.q.val() {
                self.valid_r.d.next = false;
            } else if (self.col_r.q.val() == self.c1_r.q.val()) | self.wrap.val() {
                // Next row, back to column c0: the row's end, or every column up to c1 tested
                // and rejected.
                self.col_r.d.next = self.c0_r.q.val();
                self.row_r.d.next = self.row_inc.val();
                self.erow_d0.next = self.erow_next0.val();
                self.erow_d1.next = self.erow_next1.val();
                self.erow_d2.next = self.erow_next2.val();
                self.e_d0.next = self.erow_next0.val();
                self.e_d1.next = self.erow_next1.val();
                self.e_d2.next = self.erow_next2.val();
                self.last_r.d.next =
                    (self.row_inc.val() == self.r1_r.q.val()) & (self.c0_r.q.val() == self.c1_r.q.val());
            } else if !self.skip[1].val() {
                // Next column.
                self.col_r.d.next = self.col_inc.val();
                self.e_d0.next = self.e0_r.q.val() + self.astep0.val();
                self.e_d1.next = self.e1_r.q.val() + self.astep1.val();
                self.e_d2.next = self.e2_r.q.val() + self.astep2.val();
                self.last_r.d.next =
                    (self.col_inc.val() == self.c1_r.q.val()) & (self.row_r.q.val() == self.r1_r.q.val());
            } else if !self.skip[2].val() {
                // Column col + 2 (col + 1 skipped).
                self.col_r.d.next = bit_cast::<8, 9>(self.cj[2].val());
                self.e_d0.next = self.land[3].val();
                self.e_d1.next = self.land[4].val();
                self.e_d2.next = self.land[5].val();
                self.last_r.d.next = self.fin[2].val();
            } else if !self.skip[3].val() {
                // Column col + 3.
                self.col_r.d.next = bit_cast::<8, 9>(self.cj[3].val());
                self.e_d0.next = self.land[6].val();
                self.e_d1.next = self.land[7].val();
                self.e_d2.next = self.land[8].val();
                self.last_r.d.next = self.fin[3].val();
            } else {
                // Column col + 4.
                self.col_r.d.next = bit_cast::<8, 9>(self.cj[4].val());
                self.e_d0.next = self.land[9].val();
                self.e_d1.next = self.land[10].val();
                self.e_d2.next = self.land[11].val();
                self.last_r.d.next = self.fin[4].val();
            }
        }
        self.sx_e0.x.next = self.e_d0.val();
        self.sx_e1.x.next = self.e_d1.val();
        self.sx_e2.x.next = self.e_d2.val();
        self.sx_erow0.x.next = self.erow_d0.val();
        self.sx_erow1.x.next = self.erow_d1.val();
        self.sx_erow2.x.next = self.erow_d2.val();
        self.e0_r.d.next = self.sx_e0.y.val();
        self.e1_r.d.next = self.sx_e1.y.val();
        self.e2_r.d.next = self.sx_e2.y.val();
        self.erow0_r.d.next = self.sx_erow0.y.val();
        self.erow1_r.d.next = self.sx_erow1.y.val();
        self.erow2_r.d.next = self.sx_erow2.y.val();
        if self.flush.val() {
            self.valid_r.d.next = false;
            self.prim_r.d.next = self.zero24.val();
            self.tx_r.d.next = self.zero8.val();
            self.ty_r.d.next = self.zero8.val();
            self.col_r.d.next = self.zero8.val();
            self.row_r.d.next = self.zero8.val();
            self.e0_r.d.next = self.szero48.val();
            self.e1_r.d.next = self.szero48.val();
            self.e2_r.d.next = self.szero48.val();
            self.erow0_r.d.next = self.szero48.val();
            self.erow1_r.d.next = self.szero48.val();
            self.erow2_r.d.next = self.szero48.val();
            self.a0_r.d.next = self.szero24.val();
            self.a1_r.d.next = self.szero24.val();
            self.a2_r.d.next = self.szero24.val();
            self.b0_r.d.next = self.szero24.val();
            self.b1_r.d.next = self.szero24.val();
            self.b2_r.d.next = self.szero24.val();
            self.visw_r.d.next = self.zero9.val();
            self.vish_r.d.next = self.zero9.val();
            self.c0_r.d.next = self.zero8.val();
            self.c1_r.d.next = self.zero8.val();
            self.r1_r.d.next = self.zero8.val();
            self.none_r.d.next = false;
            self.last_r.d.next = false;
            for i in 0..9 {
                self.off_r[i].d.next = self.szero48.val();
            }
            for k in 0..3 {
                self.ja3_r[k].d.next = self.szero48.val();
            }
        }
        // Outputs straight from the registers.
        self.out_valid.next = self.valid_r.q.val();
        self.out.prim.next = self.prim_r.q.val();
        self.out.tile_x.next = self.tx_r.q.val();
        self.out.tile_y.next = self.ty_r.q.val();
        self.out.col.next = self.col_r.q.val();
        self.out.row.next = self.row_r.q.val();
        self.out.e0.next = self.e0_r.q.val();
        self.out.e1.next = self.e1_r.q.val();
        self.out.e2.next = self.e2_r.q.val();
        self.out.a0.next = self.a0_r.q.val();
        self.out.a1.next = self.a1_r.q.val();
        self.out.a2.next = self.a2_r.q.val();
        self.out.b0.next = self.b0_r.q.val();
        self.out.b1.next = self.b1_r.q.val();
        self.out.b2.next = self.b2_r.q.val();
        self.out.vis_w.next = self.visw_r.q.val();
        self.out.vis_h.next = self.vish_r.q.val();
        self.out.last.next = self.last_r.q.val();
        self.out.none.next = self.none_r.q.val();
    }
}

/// Verilog of the tile parser for `cfg`, top module `name`, post-processed by `emit::fix_verilog`.
pub fn verilog(cfg: &Config, name: &str) -> String {
    emit::block_verilog(TileParser::new(cfg), name)
}
