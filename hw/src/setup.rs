//! # setup — triangle setup (seed 000)
//!
//! Role: one triangle command (primitive, first tile) → the three biased edge functions of the
//! counter-clockwise triangle, winding / cull / zero-area decision, the pixel bbox clipped to
//! tile and viewport (tile-relative), and the edge values E at the origin of the first visited
//! first sub-tile. Bit-exact with golden `setup::edges_for` (= `setup_triangle` translated to
//! the tile); cycle model [`tilerast_golden::setup::SetupCycle`].
//!
//! Ports (valid/ready, see `hw/README.md`): `clock`, `flush` (synchronous: back to idle,
//! output register cleared), `in_valid`/`in_ready` with `inp` ([`crate::streams::CmdIn`]: the
//! **cmd** stream; it reads the triangle fields, `kind`, `size` and `aa` are unused since only
//! triangles are routed here), `out_valid`/`out_ready` with `out`
//! ([`crate::streams::EdgesOut`]: the **edges** stream). Fields and widths are declared once in
//! [`tilerast_golden::for_each_stream!`]. Every command gives exactly one beat; an empty one
//! (zero area, culled, bbox misses the tile, tile outside the grid) has `out.empty = 1` and
//! every field other than prim/tile zero.
//!
//! Handshake: `in_ready` is high in IDLE, and in FIN when the output register can load
//! (`!out_valid || out_ready`), the only combinational input→output path. Outputs leave in
//! command order.
//!
//! Timing contract (latency, initiation interval, back-pressure), stated once:
//! [`tilerast_golden::setup::SetupCycle`]; `hw/tests/setup.rs` holds this block to it.
//!
//! ```text
//!  in_* ─► floor(v/256) (offset binary) ─► 3 compares/axis ─► min ─► clip to [t0, thi] ─► w_bx0/by0
//!   │                                          └► compare bits w_c ─┐       (at accept)
//!   ▼                                                                ▼
//!  ring r0,r1,r2 ─► MUL 0: max from the ring + w_c ─► clip ─► w_bx1/by1, empty   (tile-relative)
//!   ▲ rotate after    opA = odd ? r0x−r1x : r1y−r0y  (−b_k / −a_k)
//!   │ each edge       opB = (odd ? r0y : r0x) − (O+P)  (vertex − sub-tile origin, from w_tx/w_bx0)
//!   └───────────      4 × (16×16 signed) ─► pp (registered) ─► P = ll + (hl+lh)·2^12 + hh·2^24
//!                     t2 ← t2 + P + (odd ? incl : 0) │ even: t1 ← sum, t0 ← t1, t2 ← −1; aacc += P
//!  FIN: aacc = 2·area: zero / cw (sign bit) / cull ─► output register:
//!       e = cw ? ~(t2, t1, t0) : (t0, t1, t2); a/b = ring differences with v1, v2 swapped if cw
//! ```
//!
//! FSM (`state`, [`SetupState`]: 0 IDLE, 1 MUL with `step` 0..=6, 2 FIN), one 24×24 product per cycle from
//! four DSP-sized 16×16 products (12-bit halves; the high half sign-extended, the low half
//! zero-extended):
//! * accept (IDLE, or FIN while the output loads): latch the vertices into the ring, prim and
//!   tile, the bbox min side (bx0, by0: needed by MUL 0), the three comparison bits per axis,
//!   and the first half of `empty` (min beyond the tile, tile outside the grid); t2 ← −1,
//!   aacc ← 0; → MUL 0. The bbox max side is selected in MUL 0 from the ring (still in input
//!   order) with the kept comparison bits, which halves the accept-path depth.
//! * MUL step s ≤ 5: edge k = s/2 of the input order (ring r0 = v_k, r1 = v_{k+1}); even s
//!   multiplies −a_k·(x_k − Ox), odd s −b_k·(y_k − Oy) and then rotates the ring
//!   (r0, r1, r2) ← (r1, r2, r0); (Ox, Oy) = O + P is the absolute origin of the first visited
//!   sub-tile. Each step also registers incl (inclusive edge: a > 0, or a = 0 and b > 0, i.e.
//!   −a < 0, or −a = 0 and −b < 0; sign bits only).
//! * Steps 1..=6 accumulate the previous step's product: t2 starts each edge at −1 and adds
//!   incl_k as a carry with the a-product, so after the b-product t2 + P = V_k = E_k − bias_k
//!   (E_k the unbiased edge at O + P, bias_k = 1 − incl_k), which steps 2 and 4 shift into t1
//!   (t0 ← t1, t2 ← −1 again) and step 6 leaves in t2. aacc sums the six products: Σ E_k =
//!   2·area (shoelace).
//! * FIN: zero area ⇔ aacc = 0; clockwise ⇔ aacc < 0. Counter-clockwise: e_k = V_k.
//!   Clockwise (reordered to (v0, v2, v1)): edge k is input edge 2 − k reversed, value
//!   −E_{2−k}, bias 1 − bias_{2−k}, so e_k = ~V_{2−k}. a/b are the ring differences with v1
//!   and v2 swapped when clockwise. Loads the output register when it is free (`empty` beats
//!   load zeros through the flip-flops' synchronous reset); → IDLE, or MUL 0 if a command is
//!   accepted on the same edge.
//!
//! Multiplier operands are narrowed to the preset's width n (`mul_operand_bits`: ice40 17,
//! default 20, full 21 bits): the high 12-bit halves keep bits 12..n−1 and copy bit n−1 above
//! them, which is exact because the front end keeps every vertex inside the guard band, and
//! lets yosys size the three products with a high half to n − 12 bits. Likewise the edge
//! accumulators t0..t2 and aacc load values sign-extended from bit eb − 1
//! (`tile_parser::edge_widths`: every final value fits, partial sums are exact mod 2^eb), the
//! bbox compares work on `bbox_bits` (n − 8, at least 9) offset-binary bits, and `incl` reads the
//! differences' sign at bit n − 1.
//!
//! The UP5K flow maps the four products to SB_MAC16 blocks (without yosys's `ice40_dsp`
//! packing, `fpga/src/flow.rs`), the HX8K flow to LUT multipliers, which is where the operand
//! narrowing matters most. Measured sizes and Fmax: only the generated tables in the "FPGA"
//! section of docs/measurements.md (`tilerast synth --table`). All signed comparisons are made
//! on sign bits or on offset-binary values compared unsigned; no signed constants exist.

use crate::util::{k, Sext48};
use rust_hdl::prelude::*;
use tilerast_golden::setup::SetupParams;
use tilerast_golden::Config;

use crate::emit;

/// The FSM's states, in the order of their encodings 0, 1, 2 (the cycle model's `IDLE`, `MUL`,
/// `FIN`): waiting for a command; six multiplier steps (`step` 0..=6); the result waits for the
/// output register.
#[derive(Copy, Clone, Debug, PartialEq, Eq, LogicState)]
pub enum SetupState {
    Idle,
    Mul,
    Fin,
}

tilerast_golden::setup_streams! { crate::streams::stream_block;
    /// Triangle setup block; see the module header.
    pub struct Setup {
        // ---- preset constants ----
        tile_shift_x: Constant<Bits<4>>,
        tile_shift_y: Constant<Bits<4>>,
        last_tile_x: Constant<Bits<8>>,
        last_tile_y: Constant<Bits<8>>,
        last_vis_x: Constant<Bits<9>>,
        last_vis_y: Constant<Bits<9>>,
        tile_w: Constant<Bits<9>>,
        tile_mask_x: Constant<Bits<16>>,
        tile_mask_y: Constant<Bits<16>>,
        vp_max_x: Constant<Bits<16>>,
        vp_max_y: Constant<Bits<16>>,
        tile_h: Constant<Bits<9>>,
        sub_mask_x: Constant<Bits<8>>,
        sub_mask_y: Constant<Bits<8>>,
        cull_cw: Constant<Bit>,
        cull_ccw: Constant<Bit>,
        step_one: Constant<Bits<3>>,
        step_last: Constant<Bits<3>>,
        frac_shift: Constant<Bits<4>>,
        half_shift: Constant<Bits<5>>,
        /// Offset binary of ⌊v/256⌋ in `bbox_bits(cfg)` bits: keep mask and flipped sign bit.
        ob_flip: Constant<Bits<16>>,
        ob_keep: Constant<Bits<16>>,
        /// High-half operand narrowing (see [`mul_operand_bits`]): keep mask, sign-fill, sign index.
        hkeep16: Constant<Bits<16>>,
        hfill16: Constant<Bits<16>>,
        opsgn: Constant<Bits<8>>,
        nkeep24: Constant<Bits<24>>,
        sext36: Constant<Bits<36>>,
        /// E-width narrowing (`tile_parser::edge_widths(cfg).1` = eb): keep mask, sign fill, sign index.
        ones48: Constant<Bits<48>>,
        one48: Constant<Bits<48>>,
        zero8: Constant<Bits<8>>,
        c1: Constant<Bits<3>>,
        c2: Constant<Bits<3>>,
        c3: Constant<Bits<3>>,
        c4: Constant<Bits<3>>,
        c5: Constant<Bits<3>>,
        zero3: Constant<Bits<3>>,
        zero9: Constant<Bits<9>>,
        zero24: Constant<Bits<24>>,
        zero48: Constant<Bits<48>>,

        // ---- accept-time bbox (combinational from the input ports) ----
        accept: Signal<Local, Bit>,
        load: Signal<Local, Bit>,
        vx0: Signal<Local, Bits<24>>,
        vx1: Signal<Local, Bits<24>>,
        vx2: Signal<Local, Bits<24>>,
        vy0: Signal<Local, Bits<24>>,
        vy1: Signal<Local, Bits<24>>,
        vy2: Signal<Local, Bits<24>>,
        ox0: Signal<Local, Bits<16>>,
        ox1: Signal<Local, Bits<16>>,
        ox2: Signal<Local, Bits<16>>,
        oy0: Signal<Local, Bits<16>>,
        oy1: Signal<Local, Bits<16>>,
        oy2: Signal<Local, Bits<16>>,
        cx01: Signal<Local, Bit>,
        cx02: Signal<Local, Bit>,
        cx12: Signal<Local, Bit>,
        cy01: Signal<Local, Bit>,
        cy02: Signal<Local, Bit>,
        cy12: Signal<Local, Bit>,
        thx: Signal<Local, Bits<16>>,
        thy: Signal<Local, Bits<16>>,
        mnx: Signal<Local, Bits<16>>,
        qx0: Signal<Local, Bits<16>>,
        qx1: Signal<Local, Bits<16>>,
        qx2: Signal<Local, Bits<16>>,
        qy0: Signal<Local, Bits<16>>,
        qy1: Signal<Local, Bits<16>>,
        qy2: Signal<Local, Bits<16>>,
        ftx0: Signal<Local, Bits<16>>,
        fty0: Signal<Local, Bits<16>>,
        fthx: Signal<Local, Bits<16>>,
        fthy: Signal<Local, Bits<16>>,
        hiempty: Signal<Local, Bit>,
        mxx: Signal<Local, Bits<16>>,
        mny: Signal<Local, Bits<16>>,
        mxy: Signal<Local, Bits<16>>,
        tx0: Signal<Local, Bits<16>>,
        ty0: Signal<Local, Bits<16>>,
        fvisx: Signal<Local, Bits<9>>,
        fvisy: Signal<Local, Bits<9>>,
        sx: Signal<Local, Bits<16>>,
        sy: Signal<Local, Bits<16>>,
        bx0n: Signal<Local, Bits<8>>,
        bx1n: Signal<Local, Bits<8>>,
        by0n: Signal<Local, Bits<8>>,
        by1n: Signal<Local, Bits<8>>,
        bbempty: Signal<Local, Bit>,

        // ---- MUL datapath ----
        na_w: Signal<Local, Bits<24>>,
        nb_w: Signal<Local, Bits<24>>,
        op_a: Signal<Local, Bits<24>>,
        op_bn: Signal<Local, Bits<24>>,
        op_bo: Signal<Local, Bits<16>>,
        op_bh: Signal<Local, Bits<16>>,
        op_b: Signal<Local, Bits<24>>,
        a_lo: Signal<Local, Bits<16>>,
        a_hi: Signal<Local, Bits<16>>,
        b_lo: Signal<Local, Bits<16>>,
        b_hi: Signal<Local, Bits<16>>,
        ma_lo: Signal<Local, Signed<16>>,
        ma_hi: Signal<Local, Signed<16>>,
        mb_lo: Signal<Local, Signed<16>>,
        mb_hi: Signal<Local, Signed<16>>,
        /// The four 16×16 → 32 partial products. They must be full-width signals of their own:
        /// inside `$signed(...)` (what `signed_bit_cast` emits) a Verilog product is sized by its
        /// 16-bit operands and loses its upper half, while rust-hdl's simulator keeps it.
        p_ll: Signal<Local, Signed<32>>,
        p_lh: Signal<Local, Signed<32>>,
        p_hl: Signal<Local, Signed<32>>,
        p_hh: Signal<Local, Signed<32>>,
        incl: Signal<Local, Bit>,
        u_ll: Signal<Local, Bits<24>>,
        u_lh: Signal<Local, Bits<26>>,
        u_hl: Signal<Local, Bits<26>>,
        u_hh: Signal<Local, Bits<24>>,
        mid: Signal<Local, Bits<26>>,
        mid36: Signal<Local, Bits<36>>,
        ph36: Signal<Local, Bits<36>>,
        prod: Signal<Local, Bits<48>>,
        carry: Signal<Local, Bits<48>>,
        sum: Signal<Local, Bits<48>>,
        acc_s: Signal<Local, Bits<48>>,
        /// `sum` and `aacc + prod` sign-extended from bit eb − 1.
        sx_sum: Sext48,
        sx_acc: Sext48,

        // ---- FIN ----
        zero_area: Signal<Local, Bit>,
        cw: Signal<Local, Bit>,
        empty: Signal<Local, Bit>,
        mx_: Signal<Local, Bits<24>>,
        my_: Signal<Local, Bits<24>>,
        nx_: Signal<Local, Bits<24>>,
        ny_: Signal<Local, Bits<24>>,

        // ---- registers ----
        state: DFF<SetupState>,
        step: DFF<Bits<3>>,
        r0x: DFF<Bits<24>>,
        r0y: DFF<Bits<24>>,
        r1x: DFF<Bits<24>>,
        r1y: DFF<Bits<24>>,
        r2x: DFF<Bits<24>>,
        r2y: DFF<Bits<24>>,
        w_prim: DFF<Bits<24>>,
        w_tx: DFF<Bits<8>>,
        w_ty: DFF<Bits<8>>,
        w_bx0: DFF<Bits<8>>,
        w_by0: DFF<Bits<8>>,
        w_bx1: DFF<Bits<8>>,
        w_by1: DFF<Bits<8>>,
        w_bbe: DFF<Bit>,
        w_c: DFF<Bits<6>>,
        pp_ll: DFF<Signed<24>>,
        pp_lh: DFF<Signed<26>>,
        pp_hl: DFF<Signed<26>>,
        pp_hh: DFF<Signed<24>>,
        incl_r: DFF<Bit>,
        t0: DFF<Bits<48>>,
        t1: DFF<Bits<48>>,
        t2: DFF<Bits<48>>,
        aacc: DFF<Bits<48>>,
        o_valid: DFF<Bit>,
        o_prim: DFF<Bits<24>>,
        o_tx: DFF<Bits<8>>,
        o_ty: DFF<Bits<8>>,
        o_empty: DFF<Bit>,
        o_a0: DFF<Bits<24>>,
        o_a1: DFF<Bits<24>>,
        o_a2: DFF<Bits<24>>,
        o_b0: DFF<Bits<24>>,
        o_b1: DFF<Bits<24>>,
        o_b2: DFF<Bits<24>>,
        o_e0: DFF<Bits<48>>,
        o_e1: DFF<Bits<48>>,
        o_e2: DFF<Bits<48>>,
        o_bx0: DFF<Bits<8>>,
        o_by0: DFF<Bits<8>>,
        o_bx1: DFF<Bits<8>>,
        o_by1: DFF<Bits<8>>,
        o_vw: DFF<Bits<9>>,
        o_vh: DFF<Bits<9>>,
    }
}

fn dflt<T: Default>() -> T {
    T::default()
}

/// Signed width n of every multiplier operand of the preset: both −a / −b (a difference of two
/// coordinates) and vertex − sub-tile origin lie within ±(max(W, H) + 2g)·256, the front end's
/// guard-band limits (`Config::guard_limits_fx`, inclusive). ice40 17, default 20, full 21; at
/// least 13 (one high bit) and at most 24 (the port width).
pub fn mul_operand_bits(cfg: &Config) -> u32 {
    let r = (cfg.viewport[0].max(cfg.viewport[1]) as u64 + 2 * cfg.guard_band as u64) * 256;
    // Smallest n with −2^(n−1) ≤ −r and r ≤ 2^(n−1) − 1.
    let n = 64 - r.leading_zeros() + 1;
    n.clamp(13, 24)
}

/// Width nb of the bbox comparisons (whole pixels, offset binary): ⌊v/256⌋ of a vertex lies in
/// [−g, W + g] (H likewise), and W + g < 2^(n−9) for n = [`mul_operand_bits`], so n − 8 bits
/// hold it (ice40 9, default 12, full 13); at least 9, so that the flipped sign bit is never
/// one of the 8 tile-relative bits, at most 16. Tile bounds of a tile outside the grid do not
/// fit, but such a command is empty whatever they compare to.
pub fn bbox_bits(cfg: &Config) -> u32 {
    (mul_operand_bits(cfg) - 8).clamp(9, 16)
}

impl Setup {
    /// The block elaborated for `cfg` (the preset enters as constants).
    pub fn new(cfg: &Config) -> Setup {
        let p = SetupParams::new(cfg);
        let eb = tilerast_golden::tile_parser::edge_widths(cfg).1;
        Setup {
            clock: dflt(),
            flush: dflt(),
            in_valid: dflt(),
            in_ready: dflt(),
            inp: Default::default(),
            out_valid: dflt(),
            out_ready: dflt(),
            out: Default::default(),
            tile_shift_x: k(p.tile_shift[0] as u64),
            tile_shift_y: k(p.tile_shift[1] as u64),
            last_tile_x: k(p.last_tile[0] as u64),
            last_tile_y: k(p.last_tile[1] as u64),
            last_vis_x: k(p.last_vis[0] as u64),
            last_vis_y: k(p.last_vis[1] as u64),
            tile_w: k(p.tile[0] as u64),
            tile_mask_x: k(p.tile[0] as u64 - 1),
            tile_mask_y: k(p.tile[1] as u64 - 1),
            vp_max_x: k(p.vp_max[0] as u64),
            vp_max_y: k(p.vp_max[1] as u64),
            tile_h: k(p.tile[1] as u64),
            sub_mask_x: k(p.sub_mask[0] as u64),
            sub_mask_y: k(p.sub_mask[1] as u64),
            cull_cw: Constant::new(p.cull_cw),
            cull_ccw: Constant::new(p.cull_ccw),
            step_one: k(1),
            step_last: k(6),
            frac_shift: k(8),
            half_shift: k(12),
            ob_flip: k(1u64 << (bbox_bits(cfg) - 1)),
            ob_keep: k((1u64 << bbox_bits(cfg)) - 1),
            hkeep16: k((1u64 << (mul_operand_bits(cfg) - 12)) - 1),
            hfill16: k(0xffff & !((1u64 << (mul_operand_bits(cfg) - 12)) - 1)),
            opsgn: k(mul_operand_bits(cfg) as u64 - 1),
            nkeep24: k((1u64 << mul_operand_bits(cfg)) - 1),
            sext36: k(0xf_fc00_0000),
            ones48: k(0xffff_ffff_ffff),
            one48: k(1),
            zero8: k(0),
            c1: k(1),
            c2: k(2),
            c3: k(3),
            c4: k(4),
            c5: k(5),
            zero3: k(0),
            zero9: k(0),
            zero24: k(0),
            zero48: k(0),
            accept: dflt(),
            load: dflt(),
            vx0: dflt(),
            vx1: dflt(),
            vx2: dflt(),
            vy0: dflt(),
            vy1: dflt(),
            vy2: dflt(),
            ox0: dflt(),
            ox1: dflt(),
            ox2: dflt(),
            oy0: dflt(),
            oy1: dflt(),
            oy2: dflt(),
            cx01: dflt(),
            cx02: dflt(),
            cx12: dflt(),
            cy01: dflt(),
            cy02: dflt(),
            cy12: dflt(),
            thx: dflt(),
            thy: dflt(),
            mnx: dflt(),
            qx0: dflt(),
            qx1: dflt(),
            qx2: dflt(),
            qy0: dflt(),
            qy1: dflt(),
            qy2: dflt(),
            ftx0: dflt(),
            fty0: dflt(),
            fthx: dflt(),
            fthy: dflt(),
            hiempty: dflt(),
            mxx: dflt(),
            mny: dflt(),
            mxy: dflt(),
            tx0: dflt(),
            ty0: dflt(),
            fvisx: dflt(),
            fvisy: dflt(),
            sx: dflt(),
            sy: dflt(),
            bx0n: dflt(),
            bx1n: dflt(),
            by0n: dflt(),
            by1n: dflt(),
            bbempty: dflt(),
            na_w: dflt(),
            nb_w: dflt(),
            op_a: dflt(),
            op_bn: dflt(),
            op_bo: dflt(),
            op_bh: dflt(),
            op_b: dflt(),
            a_lo: dflt(),
            a_hi: dflt(),
            b_lo: dflt(),
            b_hi: dflt(),
            ma_lo: dflt(),
            p_ll: dflt(),
            p_lh: dflt(),
            p_hl: dflt(),
            p_hh: dflt(),
            ma_hi: dflt(),
            mb_lo: dflt(),
            mb_hi: dflt(),
            incl: dflt(),
            u_ll: dflt(),
            u_lh: dflt(),
            u_hl: dflt(),
            u_hh: dflt(),
            mid: dflt(),
            mid36: dflt(),
            ph36: dflt(),
            prod: dflt(),
            carry: dflt(),
            sum: dflt(),
            acc_s: dflt(),
            sx_sum: Sext48::new(eb),
            sx_acc: Sext48::new(eb),
            zero_area: dflt(),
            cw: dflt(),
            empty: dflt(),
            mx_: dflt(),
            my_: dflt(),
            nx_: dflt(),
            ny_: dflt(),
            state: dflt(),
            step: dflt(),
            r0x: dflt(),
            r0y: dflt(),
            r1x: dflt(),
            r1y: dflt(),
            r2x: dflt(),
            r2y: dflt(),
            w_prim: dflt(),
            w_tx: dflt(),
            w_ty: dflt(),
            w_bx0: dflt(),
            w_by0: dflt(),
            w_bx1: dflt(),
            w_by1: dflt(),
            w_bbe: dflt(),
            w_c: dflt(),
            pp_ll: dflt(),
            pp_lh: dflt(),
            pp_hl: dflt(),
            pp_hh: dflt(),
            incl_r: dflt(),
            t0: dflt(),
            t1: dflt(),
            t2: dflt(),
            aacc: dflt(),
            o_valid: dflt(),
            o_prim: dflt(),
            o_tx: dflt(),
            o_ty: dflt(),
            o_empty: dflt(),
            o_a0: dflt(),
            o_a1: dflt(),
            o_a2: dflt(),
            o_b0: dflt(),
            o_b1: dflt(),
            o_b2: dflt(),
            o_e0: dflt(),
            o_e1: dflt(),
            o_e2: dflt(),
            o_bx0: dflt(),
            o_by0: dflt(),
            o_bx1: dflt(),
            o_by1: dflt(),
            o_vw: dflt(),
            o_vh: dflt(),
        }
    }
}

impl Logic for Setup {
    #[hdl_gen]
    fn update(&mut self) {
        dff_setup!(
            self, clock, state, step, r0x, r0y, r1x, r1y, r2x, r2y, w_prim, w_tx, w_ty, w_bx0, w_by0, w_bx1, w_by1,
            w_bbe, w_c, pp_ll, pp_lh, pp_hl, pp_hh, incl_r, t0, t1, t2, aacc, o_valid, o_prim, o_tx, o_ty, o_empty,
            o_a0, o_a1, o_a2, o_b0, o_b1, o_b2, o_e0, o_e1, o_e2, o_bx0, o_by0, o_bx1, o_by1, o_vw, o_vh
        );

        // ---------------- handshake ----------------
        self.load.next = (self.state.q.val() == SetupState::Fin) & (!self.o_valid.q.val() | self.out_ready.val());
        self.in_ready.next = (self.state.q.val() == SetupState::Idle) | self.load.val();
        self.accept.next = self.in_valid.val() & self.in_ready.val();

        // ---------------- bbox from the input ports ----------------
        // floor(v / 256) = the top 16 bits; offset binary (sign bit flipped) compares unsigned.
        self.vx0.next = unsigned_cast(self.inp.v0x.val());
        self.vx1.next = unsigned_cast(self.inp.v1x.val());
        self.vx2.next = unsigned_cast(self.inp.v2x.val());
        self.vy0.next = unsigned_cast(self.inp.v0y.val());
        self.vy1.next = unsigned_cast(self.inp.v1y.val());
        self.vy2.next = unsigned_cast(self.inp.v2y.val());
        self.ox0.next = (self.vx0.val().get_bits::<16>(8) & self.ob_keep.val()) ^ self.ob_flip.val();
        self.ox1.next = (self.vx1.val().get_bits::<16>(8) & self.ob_keep.val()) ^ self.ob_flip.val();
        self.ox2.next = (self.vx2.val().get_bits::<16>(8) & self.ob_keep.val()) ^ self.ob_flip.val();
        self.oy0.next = (self.vy0.val().get_bits::<16>(8) & self.ob_keep.val()) ^ self.ob_flip.val();
        self.oy1.next = (self.vy1.val().get_bits::<16>(8) & self.ob_keep.val()) ^ self.ob_flip.val();
        self.oy2.next = (self.vy2.val().get_bits::<16>(8) & self.ob_keep.val()) ^ self.ob_flip.val();
        // The three comparisons per axis in parallel; the min is selected now (the first
        // visited sub-tile needs it in MUL 0), the comparison bits are kept for the max, which
        // MUL 0 selects from the ring (still in input order then).
        self.cx01.next = self.ox0.val() < self.ox1.val();
        self.cx02.next = self.ox0.val() < self.ox2.val();
        self.cx12.next = self.ox1.val() < self.ox2.val();
        self.cy01.next = self.oy0.val() < self.oy1.val();
        self.cy02.next = self.oy0.val() < self.oy2.val();
        self.cy12.next = self.oy1.val() < self.oy2.val();
        self.mnx.next = self.ox2.val();
        if self.cx01.val() & self.cx02.val() {
            self.mnx.next = self.ox0.val();
        } else if !self.cx01.val() & self.cx12.val() {
            self.mnx.next = self.ox1.val();
        }
        self.mny.next = self.oy2.val();
        if self.cy01.val() & self.cy02.val() {
            self.mny.next = self.oy0.val();
        } else if !self.cy01.val() & self.cy12.val() {
            self.mny.next = self.oy1.val();
        }
        // The tile's pixels inside the viewport, absolute: [t0, thi] (thi = VW − 1 for the last
        // column), offset binary like the vertices.
        self.tx0.next = bit_cast::<16, 8>(self.inp.tile_x.val()) << self.tile_shift_x.val();
        self.ty0.next = bit_cast::<16, 8>(self.inp.tile_y.val()) << self.tile_shift_y.val();
        self.thx.next = self.tx0.val() | self.tile_mask_x.val();
        if self.inp.tile_x.val() == self.last_tile_x.val() {
            self.thx.next = self.vp_max_x.val();
        }
        self.thy.next = self.ty0.val() | self.tile_mask_y.val();
        if self.inp.tile_y.val() == self.last_tile_y.val() {
            self.thy.next = self.vp_max_y.val();
        }
        // Clip the min to t0; tile-relative = the low bits (t0 is a multiple of the tile size).
        self.bx0n.next = self.mnx.val().get_bits::<8>(0) & self.tile_mask_x.val().get_bits::<8>(0);
        if self.mnx.val() < ((self.tx0.val() & self.ob_keep.val()) ^ self.ob_flip.val()) {
            self.bx0n.next = self.zero8.val();
        }
        self.by0n.next = self.mny.val().get_bits::<8>(0) & self.tile_mask_y.val().get_bits::<8>(0);
        if self.mny.val() < ((self.ty0.val() & self.ob_keep.val()) ^ self.ob_flip.val()) {
            self.by0n.next = self.zero8.val();
        }
        // Empty (first part): the min lies beyond thi, or the tile is outside the grid.
        self.bbempty.next = (self.mnx.val() > ((self.thx.val() & self.ob_keep.val()) ^ self.ob_flip.val()))
            | (self.mny.val() > ((self.thy.val() & self.ob_keep.val()) ^ self.ob_flip.val()))
            | (self.inp.tile_x.val() > self.last_tile_x.val())
            | (self.inp.tile_y.val() > self.last_tile_y.val());

        // ---------------- bbox max side (MUL 0, from the ring and the kept comparisons) ----------------
        self.qx0.next = (self.r0x.q.val().get_bits::<16>(8) & self.ob_keep.val()) ^ self.ob_flip.val();
        self.qx1.next = (self.r1x.q.val().get_bits::<16>(8) & self.ob_keep.val()) ^ self.ob_flip.val();
        self.qx2.next = (self.r2x.q.val().get_bits::<16>(8) & self.ob_keep.val()) ^ self.ob_flip.val();
        self.qy0.next = (self.r0y.q.val().get_bits::<16>(8) & self.ob_keep.val()) ^ self.ob_flip.val();
        self.qy1.next = (self.r1y.q.val().get_bits::<16>(8) & self.ob_keep.val()) ^ self.ob_flip.val();
        self.qy2.next = (self.r2y.q.val().get_bits::<16>(8) & self.ob_keep.val()) ^ self.ob_flip.val();
        self.mxx.next = self.qx2.val();
        if !self.w_c.q.val().get_bit(0) & !self.w_c.q.val().get_bit(1) {
            self.mxx.next = self.qx0.val();
        } else if self.w_c.q.val().get_bit(0) & !self.w_c.q.val().get_bit(2) {
            self.mxx.next = self.qx1.val();
        }
        self.mxy.next = self.qy2.val();
        if !self.w_c.q.val().get_bit(3) & !self.w_c.q.val().get_bit(4) {
            self.mxy.next = self.qy0.val();
        } else if self.w_c.q.val().get_bit(3) & !self.w_c.q.val().get_bit(5) {
            self.mxy.next = self.qy1.val();
        }
        self.ftx0.next = bit_cast::<16, 8>(self.w_tx.q.val()) << self.tile_shift_x.val();
        self.fty0.next = bit_cast::<16, 8>(self.w_ty.q.val()) << self.tile_shift_y.val();
        self.fthx.next = self.ftx0.val() | self.tile_mask_x.val();
        if self.w_tx.q.val() == self.last_tile_x.val() {
            self.fthx.next = self.vp_max_x.val();
        }
        self.fthy.next = self.fty0.val() | self.tile_mask_y.val();
        if self.w_ty.q.val() == self.last_tile_y.val() {
            self.fthy.next = self.vp_max_y.val();
        }
        self.bx1n.next = self.mxx.val().get_bits::<8>(0) & self.tile_mask_x.val().get_bits::<8>(0);
        if self.mxx.val() > ((self.fthx.val() & self.ob_keep.val()) ^ self.ob_flip.val()) {
            self.bx1n.next = self.fthx.val().get_bits::<8>(0) & self.tile_mask_x.val().get_bits::<8>(0);
        }
        self.by1n.next = self.mxy.val().get_bits::<8>(0) & self.tile_mask_y.val().get_bits::<8>(0);
        if self.mxy.val() > ((self.fthy.val() & self.ob_keep.val()) ^ self.ob_flip.val()) {
            self.by1n.next = self.fthy.val().get_bits::<8>(0) & self.tile_mask_y.val().get_bits::<8>(0);
        }
        // Empty (second part): the max lies before t0.
        self.hiempty.next = (self.mxx.val() < ((self.ftx0.val() & self.ob_keep.val()) ^ self.ob_flip.val()))
            | (self.mxy.val() < ((self.fty0.val() & self.ob_keep.val()) ^ self.ob_flip.val()));

        // ---------------- MUL datapath ----------------
        // −a = y_j − y_i and −b = x_i − x_j, so that the products add up to +E.
        self.na_w.next = self.r1y.q.val() - self.r0y.q.val();
        self.nb_w.next = self.r0x.q.val() - self.r1x.q.val();
        self.op_a.next = self.na_w.val();
        self.op_bn.next = self.r0x.q.val();
        // Absolute pixel of the first visited sub-tile's origin: tile origin | (bx0 rounded down
        // to the sub-tile); the two parts share no bit, so this is wiring.
        self.sx.next = (bit_cast::<16, 8>(self.w_tx.q.val()) << self.tile_shift_x.val())
            | bit_cast::<16, 8>(self.w_bx0.q.val() & self.sub_mask_x.val());
        self.sy.next = (bit_cast::<16, 8>(self.w_ty.q.val()) << self.tile_shift_y.val())
            | bit_cast::<16, 8>(self.w_by0.q.val() & self.sub_mask_y.val());
        self.op_bo.next = self.sx.val();
        if self.step.q.val().get_bit(0) {
            self.op_a.next = self.nb_w.val();
            self.op_bn.next = self.r0y.q.val();
            self.op_bo.next = self.sy.val();
        }
        // vertex − (O + P): the origin is whole pixels, so only the top 16 bits subtract.
        self.op_bh.next = self.op_bn.val().get_bits::<16>(8) - self.op_bo.val();
        self.op_b.next = (bit_cast::<24, 16>(self.op_bh.val()) << self.frac_shift.val())
            | bit_cast::<24, 8>(self.op_bn.val().get_bits::<8>(0));
        // 12-bit halves: low zero-extended, high sign-extended, as 16-bit signed operands.
        self.a_lo.next = bit_cast::<16, 12>(self.op_a.val().get_bits::<12>(0));
        self.b_lo.next = bit_cast::<16, 12>(self.op_b.val().get_bits::<12>(0));
        // High halves narrowed to the preset's operand width (`mul_operand_bits`): bits 12 ..
        // n−1 kept, bit n−1 copied above them. Exact, as every operand fits n bits; yosys then
        // sees only n − 12 significant bits per high operand and sizes the multipliers to them.
        self.a_hi.next = bit_cast::<16, 12>(self.op_a.val().get_bits::<12>(12)) & self.hkeep16.val();
        if self.op_a.val().get_bit(self.opsgn.val().index()) {
            self.a_hi.next =
                (bit_cast::<16, 12>(self.op_a.val().get_bits::<12>(12)) & self.hkeep16.val()) | self.hfill16.val();
        }
        self.b_hi.next = bit_cast::<16, 12>(self.op_b.val().get_bits::<12>(12)) & self.hkeep16.val();
        if self.op_b.val().get_bit(self.opsgn.val().index()) {
            self.b_hi.next =
                (bit_cast::<16, 12>(self.op_b.val().get_bits::<12>(12)) & self.hkeep16.val()) | self.hfill16.val();
        }
        self.ma_lo.next = signed_cast(self.a_lo.val());
        self.ma_hi.next = signed_cast(self.a_hi.val());
        self.mb_lo.next = signed_cast(self.b_lo.val());
        self.mb_hi.next = signed_cast(self.b_hi.val());
        // Only the bits the sum below uses are kept: ll < 2^24, |lh|, |hl| ≤ 2^23, and hh
        // counts from bit 24 up (mod 2^48).
        self.p_ll.next = self.ma_lo.val() * self.mb_lo.val();
        self.p_lh.next = self.ma_lo.val() * self.mb_hi.val();
        self.p_hl.next = self.ma_hi.val() * self.mb_lo.val();
        self.p_hh.next = self.ma_hi.val() * self.mb_hi.val();
        self.pp_ll.d.next = signed_bit_cast::<24, 32>(self.p_ll.val());
        self.pp_lh.d.next = signed_bit_cast::<26, 32>(self.p_lh.val());
        self.pp_hl.d.next = signed_bit_cast::<26, 32>(self.p_hl.val());
        self.pp_hh.d.next = signed_bit_cast::<24, 32>(self.p_hh.val());
        // Inclusive edge: a > 0, or a = 0 and b > 0, i.e. −a < 0, or −a = 0 and −b < 0.
        // Both differences fit n = `mul_operand_bits` signed bits: sign at bit n − 1, zero test on
        // the low n bits (the ring's bits above n − 1 then feed only the a/b outputs).
        self.incl.next = self.na_w.val().get_bit(self.opsgn.val().index())
            | (((self.na_w.val() & self.nkeep24.val()) == self.zero24.val())
                & self.nb_w.val().get_bit(self.opsgn.val().index()));
        self.incl_r.d.next = self.incl.val();

        // Sum of the registered partial products: hh·2^24 + (hl + lh)·2^12 + ll (mod 2^48).
        self.u_ll.next = unsigned_cast(self.pp_ll.q.val());
        self.u_lh.next = unsigned_cast(self.pp_lh.q.val());
        self.u_hl.next = unsigned_cast(self.pp_hl.q.val());
        self.u_hh.next = unsigned_cast(self.pp_hh.q.val());
        // |hl|, |lh| ≤ 2^23, so hl + lh fits 26 bits; the low 12 bits of the product are ll's.
        self.mid.next = self.u_hl.val() + self.u_lh.val();
        self.mid36.next = bit_cast::<36, 26>(self.mid.val());
        if self.mid.val().get_bit(25) {
            self.mid36.next = bit_cast::<36, 26>(self.mid.val()) | self.sext36.val();
        }
        self.ph36.next = (bit_cast::<36, 24>(self.u_hh.val()) << self.half_shift.val())
            + self.mid36.val()
            + bit_cast::<36, 12>(self.u_ll.val().get_bits::<12>(12));
        self.prod.next = (bit_cast::<48, 36>(self.ph36.val()) << self.half_shift.val())
            | bit_cast::<48, 12>(self.u_ll.val().get_bits::<12>(0));
        // t2 starts every edge at −1; the a-step's product brings incl_k in as a carry.
        self.carry.next = self.zero48.val();
        if self.step.q.val().get_bit(0) & self.incl_r.q.val() {
            self.carry.next = self.one48.val();
        }
        self.sum.next = self.t2.q.val() + self.prod.val() + self.carry.val();
        // Every value t0..t2 and aacc finally hold fits eb signed bits (E at a point of the
        // viewport; |2·area| ≤ (W + 2g)(H + 2g)·256² < 2^(eb−1)), and the partial sums are exact
        // mod 2^eb, so the register inputs are sign-extended from bit eb − 1: yosys merges the
        // copied flip-flops and prunes the adders above.
        self.sx_sum.x.next = signed_cast(self.sum.val());
        self.acc_s.next = self.aacc.q.val() + self.prod.val();
        self.sx_acc.x.next = signed_cast(self.acc_s.val());

        // ---------------- FIN ----------------
        self.zero_area.next = !self.aacc.q.val().any();
        self.cw.next = self.aacc.q.val().get_bit(47);
        self.empty.next = self.w_bbe.q.val()
            | self.zero_area.val()
            | (self.cw.val() & self.cull_cw.val())
            | (!self.cw.val() & self.cull_ccw.val());
        self.fvisx.next = self.tile_w.val();
        if self.w_tx.q.val() == self.last_tile_x.val() {
            self.fvisx.next = self.last_vis_x.val();
        }
        self.fvisy.next = self.tile_h.val();
        if self.w_ty.q.val() == self.last_tile_y.val() {
            self.fvisy.next = self.last_vis_y.val();
        }
        self.mx_.next = self.r1x.q.val();
        self.my_.next = self.r1y.q.val();
        self.nx_.next = self.r2x.q.val();
        self.ny_.next = self.r2y.q.val();
        if self.cw.val() {
            self.mx_.next = self.r2x.q.val();
            self.my_.next = self.r2y.q.val();
            self.nx_.next = self.r1x.q.val();
            self.ny_.next = self.r1y.q.val();
        }

        // ---------------- state and datapath registers ----------------
        if self.state.q.val() == SetupState::Mul {
            if self.step.q.val() == self.zero3.val() {
                self.w_bx1.d.next = self.bx1n.val();
                self.w_by1.d.next = self.by1n.val();
                self.w_bbe.d.next = self.w_bbe.q.val() | self.hiempty.val();
            }
            if self.step.q.val() != self.zero3.val() {
                // Odd step or the last: t2 accumulates. Even steps 2 and 4 finish an edge:
                // V_k → t1 (t0 ← t1), and t2 restarts at −1.
                self.t2.d.next = unsigned_cast(self.sx_sum.y.val());
                if !self.step.q.val().get_bit(0) & (self.step.q.val() != self.step_last.val()) {
                    self.t0.d.next = self.t1.q.val();
                    self.t1.d.next = unsigned_cast(self.sx_sum.y.val());
                    self.t2.d.next = self.ones48.val();
                }
                self.aacc.d.next = unsigned_cast(self.sx_acc.y.val());
            }
            if self.step.q.val().get_bit(0) & (self.step.q.val() != self.step_last.val()) {
                self.r0x.d.next = self.r1x.q.val();
                self.r0y.d.next = self.r1y.q.val();
                self.r1x.d.next = self.r2x.q.val();
                self.r1y.d.next = self.r2y.q.val();
                self.r2x.d.next = self.r0x.q.val();
                self.r2y.d.next = self.r0y.q.val();
            }
            if self.step.q.val() == self.step_last.val() {
                self.state.d.next = SetupState::Fin;
            } else {
                self.step.d.next = self.step.q.val() + self.step_one.val();
            }
        }

        // Output register.
        if self.load.val() {
            self.o_valid.d.next = true;
            self.o_prim.d.next = self.w_prim.q.val();
            self.o_tx.d.next = self.w_tx.q.val();
            self.o_ty.d.next = self.w_ty.q.val();
            self.o_empty.d.next = self.empty.val();
            self.o_a0.d.next = self.zero24.val();
            self.o_a1.d.next = self.zero24.val();
            self.o_a2.d.next = self.zero24.val();
            self.o_b0.d.next = self.zero24.val();
            self.o_b1.d.next = self.zero24.val();
            self.o_b2.d.next = self.zero24.val();
            self.o_e0.d.next = self.zero48.val();
            self.o_e1.d.next = self.zero48.val();
            self.o_e2.d.next = self.zero48.val();
            self.o_bx0.d.next = self.zero8.val();
            self.o_by0.d.next = self.zero8.val();
            self.o_bx1.d.next = self.zero8.val();
            self.o_by1.d.next = self.zero8.val();
            self.o_vw.d.next = self.zero9.val();
            self.o_vh.d.next = self.zero9.val();
            if !self.empty.val() {
                self.o_a0.d.next = self.r0y.q.val() - self.my_.val();
                self.o_a1.d.next = self.my_.val() - self.ny_.val();
                self.o_a2.d.next = self.ny_.val() - self.r0y.q.val();
                self.o_b0.d.next = self.mx_.val() - self.r0x.q.val();
                self.o_b1.d.next = self.nx_.val() - self.mx_.val();
                self.o_b2.d.next = self.r0x.q.val() - self.nx_.val();
                self.o_e0.d.next = self.t0.q.val();
                self.o_e1.d.next = self.t1.q.val();
                self.o_e2.d.next = self.t2.q.val();
                if self.cw.val() {
                    self.o_e0.d.next = !self.t2.q.val();
                    self.o_e1.d.next = !self.t1.q.val();
                    self.o_e2.d.next = !self.t0.q.val();
                }
                self.o_bx0.d.next = self.w_bx0.q.val();
                self.o_by0.d.next = self.w_by0.q.val();
                self.o_bx1.d.next = self.w_bx1.q.val();
                self.o_by1.d.next = self.w_by1.q.val();
                self.o_vw.d.next = self.fvisx.val();
                self.o_vh.d.next = self.fvisy.val();
            }
            self.state.d.next = SetupState::Idle;
        } else if self.out_ready.val() {
            self.o_valid.d.next = false;
        }

        // Accept: latch the command and its bbox.
        if self.accept.val() {
            self.r0x.d.next = self.vx0.val();
            self.r0y.d.next = self.vy0.val();
            self.r1x.d.next = self.vx1.val();
            self.r1y.d.next = self.vy1.val();
            self.r2x.d.next = self.vx2.val();
            self.r2y.d.next = self.vy2.val();
            self.w_prim.d.next = self.inp.prim.val();
            self.w_tx.d.next = self.inp.tile_x.val();
            self.w_ty.d.next = self.inp.tile_y.val();
            self.w_bx0.d.next = self.bx0n.val();
            self.w_by0.d.next = self.by0n.val();
            self.w_c.d.next = bit_cast::<6, 1>(self.cx01.val().into())
                | (bit_cast::<6, 1>(self.cx02.val().into()) << self.c1.val())
                | (bit_cast::<6, 1>(self.cx12.val().into()) << self.c2.val())
                | (bit_cast::<6, 1>(self.cy01.val().into()) << self.c3.val())
                | (bit_cast::<6, 1>(self.cy02.val().into()) << self.c4.val())
                | (bit_cast::<6, 1>(self.cy12.val().into()) << self.c5.val());
            self.w_bbe.d.next = self.bbempty.val();
            self.aacc.d.next = self.zero48.val();
            self.t2.d.next = self.ones48.val();
            self.state.d.next = SetupState::Mul;
            self.step.d.next = self.zero3.val();
        }

        // Flush: idle, output register cleared.
        if self.flush.val() {
            self.state.d.next = SetupState::Idle;
            self.o_valid.d.next = false;
            self.o_prim.d.next = self.zero24.val();
            self.o_tx.d.next = self.zero8.val();
            self.o_ty.d.next = self.zero8.val();
            self.o_empty.d.next = false;
            self.o_a0.d.next = self.zero24.val();
            self.o_a1.d.next = self.zero24.val();
            self.o_a2.d.next = self.zero24.val();
            self.o_b0.d.next = self.zero24.val();
            self.o_b1.d.next = self.zero24.val();
            self.o_b2.d.next = self.zero24.val();
            self.o_e0.d.next = self.zero48.val();
            self.o_e1.d.next = self.zero48.val();
            self.o_e2.d.next = self.zero48.val();
            self.o_bx0.d.next = self.zero8.val();
            self.o_by0.d.next = self.zero8.val();
            self.o_bx1.d.next = self.zero8.val();
            self.o_by1.d.next = self.zero8.val();
            self.o_vw.d.next = self.zero9.val();
            self.o_vh.d.next = self.zero9.val();
        }

        // ---------------- outputs ----------------
        self.out_valid.next = self.o_valid.q.val();
        self.out.prim.next = self.o_prim.q.val();
        self.out.tile_x.next = self.o_tx.q.val();
        self.out.tile_y.next = self.o_ty.q.val();
        self.out.empty.next = self.o_empty.q.val();
        self.out.a0.next = signed_cast(self.o_a0.q.val());
        self.out.a1.next = signed_cast(self.o_a1.q.val());
        self.out.a2.next = signed_cast(self.o_a2.q.val());
        self.out.b0.next = signed_cast(self.o_b0.q.val());
        self.out.b1.next = signed_cast(self.o_b1.q.val());
        self.out.b2.next = signed_cast(self.o_b2.q.val());
        self.out.e0.next = signed_cast(self.o_e0.q.val());
        self.out.e1.next = signed_cast(self.o_e1.q.val());
        self.out.e2.next = signed_cast(self.o_e2.q.val());
        self.out.bx0.next = self.o_bx0.q.val();
        self.out.by0.next = self.o_by0.q.val();
        self.out.bx1.next = self.o_bx1.q.val();
        self.out.by1.next = self.o_by1.q.val();
        self.out.vis_w.next = self.o_vw.q.val();
        self.out.vis_h.next = self.o_vh.q.val();
    }
}

/// The Verilog of the block for `cfg`, top module `name`, post-processed by `emit::fix_verilog`.
pub fn verilog(cfg: &Config, name: &str) -> String {
    emit::block_verilog(Setup::new(cfg), name)
}
