//! # bin_setup — the frame's front end ahead of the binner
//!
//! Role: primitives stream in one per beat (**prim_in**, [`crate::streams::PrimInIn`]); per
//! primitive the block assigns the index (24-bit counter, 0 after each frame end), writes its
//! 8-word primitive-table entry (`tilerast_golden::prim_table`) on the memory write port `wr`
//! ([`crate::streams::MemReqOut`], offsets in the table's region) and, when golden
//! `binner::prim_bbox` has a box, sends the binner its pixel box on `out`
//! ([`crate::streams::BinBoxOut`]); a frame-end token sends the binner's end token (`prim` =
//! the frame's primitive count). Cycle model [`tilerast_golden::bin_setup::BinSetupCycle`].
//!
//! Ports: `clock`, `flush` (synchronous: idle, both output registers cleared, index 0),
//! `in_valid`/`in_ready` with `inp`, `out_valid`/`out_ready` with `out` (boxes),
//! `wr_valid`/`wr_ready` with `wr` (table writes). `in_ready` = idle, or the box leaving this
//! cycle (the only combinational path). All 8 writes of a primitive are taken before its box
//! is offered.
//!
//! Timing contract (latency 9 cycles to the box, initiation interval 9), stated once:
//! [`tilerast_golden::bin_setup::BinSetupCycle`]; `hw/tests/bin_setup.rs` holds this block to it.
//!
//! ```text
//!  inp ─► latch (v sign-extended to 25 bits, size, aa, colour, depth) ─► word mux ─► wr reg
//!          │ free-running box pipeline, one adder / compare per stage:
//!          │ S1 d = v1−v0, v2−v0 │ v>>8 compares  │ n17, (size±128)>>8, size > 256·max
//!          │ S2 |d|, sign        │ min / max      │ N, N−1 clamped, s = min(size, 256·max)
//!          │ S3 8 × 12×12 (16×16 DSP-sized) partial products │ point lo/hi (AA off / on)
//!          │ S4 lh + hl          │ lo/hi by kind (18-bit)
//!          │ S5 (ll>>12) + mid   │ clip compares (offset binary)
//!          │ S6 + hh<<12 (36 b)  │ clipped box, offscreen
//!          │ S7 magnitude compares by 24-bit halves, zero tests
//!          └─ at the 8th write's handshake (≥ 7 edges after the accept): zero / cw / cull /
//!             AA size 0 / offscreen → out reg (box) or idle
//! ```
//!
//! Every signed quantity is two's complement in unsigned `Bits` (sign tests on the top bit,
//! ordered compares on offset binary): no `Signed` arithmetic, no product inside `$signed`.

use crate::util::k;
use rust_hdl::prelude::*;
use tilerast_golden::bin_setup::BinSetupParams;
use tilerast_golden::config::{Config, CullMode};

use crate::emit;

/// Whether the block can be built for `cfg`: `Ok`, or one line naming the config field.
pub fn supported(cfg: &Config) -> Result<(), String> {
    BinSetupParams::try_new(cfg).map(|_| ())
}

tilerast_golden::bin_setup_streams! { crate::streams::stream_block;
    /// The bin_setup block; see the module header.
    pub struct BinSetup {
        // ---- constants ----
        c_idle: Constant<Bits<2>>,
        c_write: Constant<Bits<2>>,
        c_box: Constant<Bits<2>>,
        c_w7: Constant<Bits<3>>,
        c_one3: Constant<Bits<3>>,
        c_one24: Constant<Bits<24>>,
        c_four32: Constant<Bits<32>>,
        c_five: Constant<Bits<32>>,
        c_be: Constant<Bits<4>>,
        c_top25: Constant<Bits<25>>,
        c_top32: Constant<Bits<32>>,
        c_kind32: Constant<Bits<32>>,
        c_aa32: Constant<Bits<32>>,
        c_128: Constant<Bits<25>>,
        c_pmax24: Constant<Bits<24>>,
        c_pmaxm1_24: Constant<Bits<24>>,
        c_nmax: Constant<Bits<17>>,
        c_nmaxm1: Constant<Bits<17>>,
        c_one17: Constant<Bits<17>>,
        c_sx17_18: Constant<Bits<18>>,
        c_sx16_18: Constant<Bits<18>>,
        c_sign16: Constant<Bits<16>>,
        c_sign18: Constant<Bits<18>>,
        c_vmax_ob_x: Constant<Bits<18>>,
        c_vmax_ob_y: Constant<Bits<18>>,
        c_top32_24: Constant<Bits<32>>,
        c_one25: Constant<Bits<25>>,
        c_one27: Constant<Bits<27>>,
        c_sx27: Constant<Bits<27>>,
        c_twelve36: Constant<Bits<36>>,
        c_vmax12_x: Constant<Bits<12>>,
        c_vmax12_y: Constant<Bits<12>>,
        c_cull_cw: Constant<Bit>,
        c_cull_ccw: Constant<Bit>,
        // ---- combinational ----
        take: Signal<Local, Bit>,
        wn: Signal<Local, Bits<3>>,
        wsel: Signal<Local, Bits<32>>,
        i_v0x: Signal<Local, Bits<25>>,
        s_v0x: Signal<Local, Bits<32>>,
        i_v0y: Signal<Local, Bits<25>>,
        s_v0y: Signal<Local, Bits<32>>,
        i_v1x: Signal<Local, Bits<25>>,
        s_v1x: Signal<Local, Bits<32>>,
        i_v1y: Signal<Local, Bits<25>>,
        s_v1y: Signal<Local, Bits<32>>,
        i_v2x: Signal<Local, Bits<25>>,
        s_v2x: Signal<Local, Bits<32>>,
        i_v2y: Signal<Local, Bits<25>>,
        s_v2y: Signal<Local, Bits<32>>,
        i0x32: Signal<Local, Bits<32>>,
        u_v0x: Signal<Local, Bits<24>>,
        u_v0y: Signal<Local, Bits<24>>,
        u_v1x: Signal<Local, Bits<24>>,
        u_v1y: Signal<Local, Bits<24>>,
        u_v2x: Signal<Local, Bits<24>>,
        u_v2y: Signal<Local, Bits<24>>,
        sp128: Signal<Local, Bits<25>>,
        sm128: Signal<Local, Bits<25>>,
        vp128x: Signal<Local, Bits<25>>,
        vp128y: Signal<Local, Bits<25>>,
        nd1x: Signal<Local, Bits<25>>,
        nd1y: Signal<Local, Bits<25>>,
        nd2x: Signal<Local, Bits<25>>,
        nd2y: Signal<Local, Bits<25>>,
        w7: Signal<Local, Bits<32>>,
        size25: Signal<Local, Bits<25>>,
        px27: Signal<Local, Bits<27>>,
        py27: Signal<Local, Bits<27>>,
        s27: Signal<Local, Bits<27>>,
        sm1_27: Signal<Local, Bits<27>>,
        al_x: Signal<Local, Bits<27>>,
        al_y: Signal<Local, Bits<27>>,
        ah_x: Signal<Local, Bits<27>>,
        ah_y: Signal<Local, Bits<27>>,
        frag_x: Signal<Local, Bits<18>>,
        frag_y: Signal<Local, Bits<18>>,
        half18: Signal<Local, Bits<18>>,
        hoff18: Signal<Local, Bits<18>>,
        ox0: Signal<Local, Bits<16>>,
        ox1: Signal<Local, Bits<16>>,
        ox2: Signal<Local, Bits<16>>,
        oy0: Signal<Local, Bits<16>>,
        oy1: Signal<Local, Bits<16>>,
        oy2: Signal<Local, Bits<16>>,
        p_all: Signal<Local, Bits<32>>,
        p_alh: Signal<Local, Bits<32>>,
        p_ahl: Signal<Local, Bits<32>>,
        p_ahh: Signal<Local, Bits<32>>,
        p_cll: Signal<Local, Bits<32>>,
        p_clh: Signal<Local, Bits<32>>,
        p_chl: Signal<Local, Bits<32>>,
        p_chh: Signal<Local, Bits<32>>,
        na: Signal<Local, Bit>,
        nc: Signal<Local, Bit>,
        lt: Signal<Local, Bit>,
        eq: Signal<Local, Bit>,
        zero: Signal<Local, Bit>,
        cw: Signal<Local, Bit>,
        has_box: Signal<Local, Bit>,

        // ---- registers: sequencer, latched primitive ----
        st: DFF<Bits<2>>,
        w: DFF<Bits<3>>,
        idx: DFF<Bits<24>>,
        pidx: DFF<Bits<24>>,
        kind: DFF<Bit>,
        aa: DFF<Bit>,
        v0x: DFF<Bits<25>>,
        v0y: DFF<Bits<25>>,
        v1x: DFF<Bits<25>>,
        v1y: DFF<Bits<25>>,
        v2x: DFF<Bits<25>>,
        v2y: DFF<Bits<25>>,
        size: DFF<Bits<24>>,
        colour: DFF<Bits<32>>,
        depth: DFF<Bits<24>>,
        // ---- box pipeline (free-running) ----
        r_d1x: DFF<Bits<25>>,
        r_d1y: DFF<Bits<25>>,
        r_d2x: DFF<Bits<25>>,
        r_d2y: DFF<Bits<25>>,
        cx01: DFF<Bit>,
        cx02: DFF<Bit>,
        cx12: DFF<Bit>,
        cy01: DFF<Bit>,
        cy02: DFF<Bit>,
        cy12: DFF<Bit>,
        n17: DFF<Bits<17>>,
        n17m1: DFF<Bits<17>>,
        sgt: DFF<Bit>,
        szero: DFF<Bit>,
        sizem1: DFF<Bits<24>>,
        prx: DFF<Bits<17>>,
        pry: DFF<Bits<17>>,
        m1x: DFF<Bits<24>>,
        m1y: DFF<Bits<24>>,
        m2x: DFF<Bits<24>>,
        m2y: DFF<Bits<24>>,
        sa: DFF<Bit>,
        sc: DFF<Bit>,
        tminx: DFF<Bits<16>>,
        tmaxx: DFF<Bits<16>>,
        tminy: DFF<Bits<16>>,
        tmaxy: DFF<Bits<16>>,
        n: DFF<Bits<17>>,
        nm1: DFF<Bits<17>>,
        s: DFF<Bits<24>>,
        sm1: DFF<Bits<24>>,
        a_ll: DFF<Bits<24>>,
        a_lh: DFF<Bits<24>>,
        a_hl: DFF<Bits<24>>,
        a_hh: DFF<Bits<24>>,
        c_ll: DFF<Bits<24>>,
        c_lh: DFF<Bits<24>>,
        c_hl: DFF<Bits<24>>,
        c_hh: DFF<Bits<24>>,
        pl_x: DFF<Bits<18>>,
        pl_y: DFF<Bits<18>>,
        ph_x: DFF<Bits<18>>,
        ph_y: DFF<Bits<18>>,
        ql_x: DFF<Bits<18>>,
        ql_y: DFF<Bits<18>>,
        qh_x: DFF<Bits<18>>,
        qh_y: DFF<Bits<18>>,
        mid_a: DFF<Bits<25>>,
        mid_c: DFF<Bits<25>>,
        a_ll4: DFF<Bits<24>>,
        a_hh4: DFF<Bits<24>>,
        c_ll4: DFF<Bits<24>>,
        c_hh4: DFF<Bits<24>>,
        lo_x: DFF<Bits<18>>,
        lo_y: DFF<Bits<18>>,
        hi_x: DFF<Bits<18>>,
        hi_y: DFF<Bits<18>>,
        t_a: DFF<Bits<26>>,
        t_c: DFF<Bits<26>>,
        a_lo12: DFF<Bits<12>>,
        c_lo12: DFF<Bits<12>>,
        a_hh5: DFF<Bits<24>>,
        c_hh5: DFF<Bits<24>>,
        lo_x5: DFF<Bits<18>>,
        lo_y5: DFF<Bits<18>>,
        hi_x5: DFF<Bits<18>>,
        hi_y5: DFF<Bits<18>>,
        gt_lx: DFF<Bit>,
        gt_ly: DFF<Bit>,
        gt_hx: DFF<Bit>,
        gt_hy: DFF<Bit>,
        ma36: DFF<Bits<36>>,
        mc36: DFF<Bits<36>>,
        a_lo12_6: DFF<Bits<12>>,
        c_lo12_6: DFF<Bits<12>>,
        bx0: DFF<Bits<12>>,
        by0: DFF<Bits<12>>,
        bx1: DFF<Bits<12>>,
        by1: DFF<Bits<12>>,
        boff: DFF<Bit>,
        hlt: DFF<Bit>,
        heq: DFF<Bit>,
        llt: DFF<Bit>,
        leq: DFF<Bit>,
        za: DFF<Bit>,
        zc: DFF<Bit>,
        // ---- output registers ----
        ov: DFF<Bit>,
        oprim: DFF<Bits<24>>,
        bo_x0: DFF<Bits<12>>,
        bo_y0: DFF<Bits<12>>,
        bo_x1: DFF<Bits<12>>,
        bo_y1: DFF<Bits<12>>,
        oend: DFF<Bit>,
        wv: DFF<Bit>,
        waddr: DFF<Bits<32>>,
        wdata: DFF<Bits<32>>,
        wwrite: DFF<Bit>,
        wbe: DFF<Bits<4>>,
    }
}

impl BinSetup {
    /// The block for `cfg` (call [`supported`] first).
    pub fn new(cfg: &Config) -> BinSetup {
        let pmax = cfg.max_point_size as u64 * 256;
        let nmax = cfg.max_point_size as u64;
        let (vx, vy) = (cfg.viewport[0] as u64 - 1, cfg.viewport[1] as u64 - 1);
        BinSetup {
            clock: Default::default(),
            flush: Default::default(),
            in_valid: Default::default(),
            in_ready: Default::default(),
            inp: Default::default(),
            out_valid: Default::default(),
            out_ready: Default::default(),
            out: Default::default(),
            wr_valid: Default::default(),
            wr_ready: Default::default(),
            wr: Default::default(),
            c_idle: k(0),
            c_write: k(1),
            c_box: k(2),
            c_w7: k(7),
            c_one3: k(1),
            c_one24: k(1),
            c_four32: k(4),
            c_five: k(5),
            c_be: k(0xf),
            c_top25: k(1 << 24),
            c_top32: k(0xfe00_0000),
            c_kind32: k(1 << 24),
            c_aa32: k(1 << 25),
            c_128: k(128),
            c_pmax24: k(pmax),
            c_pmaxm1_24: k(pmax - 1),
            c_nmax: k(nmax),
            c_nmaxm1: k(nmax - 1),
            c_one17: k(1),
            c_sx17_18: k(1 << 17),
            c_sx16_18: k(3 << 16),
            c_sign16: k(0x8000),
            c_sign18: k(0x2_0000),
            c_vmax_ob_x: k(vx ^ 0x2_0000),
            c_vmax_ob_y: k(vy ^ 0x2_0000),
            c_top32_24: k(0xff00_0000),
            c_one25: k(1),
            c_one27: k(1),
            c_sx27: k(1 << 26),
            c_twelve36: k(12),
            c_vmax12_x: k(vx),
            c_vmax12_y: k(vy),
            c_cull_cw: Constant::new(cfg.cull == CullMode::Cw),
            c_cull_ccw: Constant::new(cfg.cull == CullMode::Ccw),
            take: Default::default(),
            wn: Default::default(),
            wsel: Default::default(),
            i_v0x: Default::default(),
            s_v0x: Default::default(),
            i_v0y: Default::default(),
            s_v0y: Default::default(),
            i_v1x: Default::default(),
            s_v1x: Default::default(),
            i_v1y: Default::default(),
            s_v1y: Default::default(),
            i_v2x: Default::default(),
            s_v2x: Default::default(),
            i_v2y: Default::default(),
            s_v2y: Default::default(),
            i0x32: Default::default(),
            u_v0x: Default::default(),
            u_v0y: Default::default(),
            u_v1x: Default::default(),
            u_v1y: Default::default(),
            u_v2x: Default::default(),
            u_v2y: Default::default(),
            sp128: Default::default(),
            sm128: Default::default(),
            vp128x: Default::default(),
            vp128y: Default::default(),
            nd1x: Default::default(),
            nd1y: Default::default(),
            nd2x: Default::default(),
            nd2y: Default::default(),
            w7: Default::default(),
            size25: Default::default(),
            px27: Default::default(),
            py27: Default::default(),
            s27: Default::default(),
            sm1_27: Default::default(),
            al_x: Default::default(),
            al_y: Default::default(),
            ah_x: Default::default(),
            ah_y: Default::default(),
            frag_x: Default::default(),
            frag_y: Default::default(),
            half18: Default::default(),
            hoff18: Default::default(),
            ox0: Default::default(),
            ox1: Default::default(),
            ox2: Default::default(),
            oy0: Default::default(),
            oy1: Default::default(),
            oy2: Default::default(),
            p_all: Default::default(),
            p_alh: Default::default(),
            p_ahl: Default::default(),
            p_ahh: Default::default(),
            p_cll: Default::default(),
            p_clh: Default::default(),
            p_chl: Default::default(),
            p_chh: Default::default(),
            na: Default::default(),
            nc: Default::default(),
            lt: Default::default(),
            eq: Default::default(),
            zero: Default::default(),
            cw: Default::default(),
            has_box: Default::default(),
            st: Default::default(),
            w: Default::default(),
            idx: Default::default(),
            pidx: Default::default(),
            kind: Default::default(),
            aa: Default::default(),
            v0x: Default::default(),
            v0y: Default::default(),
            v1x: Default::default(),
            v1y: Default::default(),
            v2x: Default::default(),
            v2y: Default::default(),
            size: Default::default(),
            colour: Default::default(),
            depth: Default::default(),
            r_d1x: Default::default(),
            r_d1y: Default::default(),
            r_d2x: Default::default(),
            r_d2y: Default::default(),
            cx01: Default::default(),
            cx02: Default::default(),
            cx12: Default::default(),
            cy01: Default::default(),
            cy02: Default::default(),
            cy12: Default::default(),
            n17: Default::default(),
            n17m1: Default::default(),
            sgt: Default::default(),
            szero: Default::default(),
            sizem1: Default::default(),
            prx: Default::default(),
            pry: Default::default(),
            m1x: Default::default(),
            m1y: Default::default(),
            m2x: Default::default(),
            m2y: Default::default(),
            sa: Default::default(),
            sc: Default::default(),
            tminx: Default::default(),
            tmaxx: Default::default(),
            tminy: Default::default(),
            tmaxy: Default::default(),
            n: Default::default(),
            nm1: Default::default(),
            s: Default::default(),
            sm1: Default::default(),
            a_ll: Default::default(),
            a_lh: Default::default(),
            a_hl: Default::default(),
            a_hh: Default::default(),
            c_ll: Default::default(),
            c_lh: Default::default(),
            c_hl: Default::default(),
            c_hh: Default::default(),
            pl_x: Default::default(),
            pl_y: Default::default(),
            ph_x: Default::default(),
            ph_y: Default::default(),
            ql_x: Default::default(),
            ql_y: Default::default(),
            qh_x: Default::default(),
            qh_y: Default::default(),
            mid_a: Default::default(),
            mid_c: Default::default(),
            a_ll4: Default::default(),
            a_hh4: Default::default(),
            c_ll4: Default::default(),
            c_hh4: Default::default(),
            lo_x: Default::default(),
            lo_y: Default::default(),
            hi_x: Default::default(),
            hi_y: Default::default(),
            t_a: Default::default(),
            t_c: Default::default(),
            a_lo12: Default::default(),
            c_lo12: Default::default(),
            a_hh5: Default::default(),
            c_hh5: Default::default(),
            lo_x5: Default::default(),
            lo_y5: Default::default(),
            hi_x5: Default::default(),
            hi_y5: Default::default(),
            gt_lx: Default::default(),
            gt_ly: Default::default(),
            gt_hx: Default::default(),
            gt_hy: Default::default(),
            ma36: Default::default(),
            mc36: Default::default(),
            a_lo12_6: Default::default(),
            c_lo12_6: Default::default(),
            bx0: Default::default(),
            by0: Default::default(),
            bx1: Default::default(),
            by1: Default::default(),
            boff: Default::default(),
            hlt: Default::default(),
            heq: Default::default(),
            llt: Default::default(),
            leq: Default::default(),
            za: Default::default(),
            zc: Default::default(),
            ov: Default::default(),
            oprim: Default::default(),
            bo_x0: Default::default(),
            bo_y0: Default::default(),
            bo_x1: Default::default(),
            bo_y1: Default::default(),
            oend: Default::default(),
            wv: Default::default(),
            waddr: Default::default(),
            wdata: Default::default(),
            wwrite: Default::default(),
            wbe: Default::default(),
        }
    }

    #[hdl_gen]
    fn kernel(&mut self) {
        // Every register holds unless assigned below.
        self.st.clock.next = self.clock.val();
        self.st.d.next = self.st.q.val();
        self.w.clock.next = self.clock.val();
        self.w.d.next = self.w.q.val();
        self.idx.clock.next = self.clock.val();
        self.idx.d.next = self.idx.q.val();
        self.pidx.clock.next = self.clock.val();
        self.pidx.d.next = self.pidx.q.val();
        self.kind.clock.next = self.clock.val();
        self.kind.d.next = self.kind.q.val();
        self.aa.clock.next = self.clock.val();
        self.aa.d.next = self.aa.q.val();
        self.v0x.clock.next = self.clock.val();
        self.v0x.d.next = self.v0x.q.val();
        self.v0y.clock.next = self.clock.val();
        self.v0y.d.next = self.v0y.q.val();
        self.v1x.clock.next = self.clock.val();
        self.v1x.d.next = self.v1x.q.val();
        self.v1y.clock.next = self.clock.val();
        self.v1y.d.next = self.v1y.q.val();
        self.v2x.clock.next = self.clock.val();
        self.v2x.d.next = self.v2x.q.val();
        self.v2y.clock.next = self.clock.val();
        self.v2y.d.next = self.v2y.q.val();
        self.size.clock.next = self.clock.val();
        self.size.d.next = self.size.q.val();
        self.colour.clock.next = self.clock.val();
        self.colour.d.next = self.colour.q.val();
        self.depth.clock.next = self.clock.val();
        self.depth.d.next = self.depth.q.val();
        self.r_d1x.clock.next = self.clock.val();
        self.r_d1x.d.next = self.r_d1x.q.val();
        self.r_d1y.clock.next = self.clock.val();
        self.r_d1y.d.next = self.r_d1y.q.val();
        self.r_d2x.clock.next = self.clock.val();
        self.r_d2x.d.next = self.r_d2x.q.val();
        self.r_d2y.clock.next = self.clock.val();
        self.r_d2y.d.next = self.r_d2y.q.val();
        self.cx01.clock.next = self.clock.val();
        self.cx01.d.next = self.cx01.q.val();
        self.cx02.clock.next = self.clock.val();
        self.cx02.d.next = self.cx02.q.val();
        self.cx12.clock.next = self.clock.val();
        self.cx12.d.next = self.cx12.q.val();
        self.cy01.clock.next = self.clock.val();
        self.cy01.d.next = self.cy01.q.val();
        self.cy02.clock.next = self.clock.val();
        self.cy02.d.next = self.cy02.q.val();
        self.cy12.clock.next = self.clock.val();
        self.cy12.d.next = self.cy12.q.val();
        self.n17.clock.next = self.clock.val();
        self.n17.d.next = self.n17.q.val();
        self.n17m1.clock.next = self.clock.val();
        self.n17m1.d.next = self.n17m1.q.val();
        self.sgt.clock.next = self.clock.val();
        self.sgt.d.next = self.sgt.q.val();
        self.szero.clock.next = self.clock.val();
        self.szero.d.next = self.szero.q.val();
        self.sizem1.clock.next = self.clock.val();
        self.sizem1.d.next = self.sizem1.q.val();
        self.prx.clock.next = self.clock.val();
        self.prx.d.next = self.prx.q.val();
        self.pry.clock.next = self.clock.val();
        self.pry.d.next = self.pry.q.val();
        self.m1x.clock.next = self.clock.val();
        self.m1x.d.next = self.m1x.q.val();
        self.m1y.clock.next = self.clock.val();
        self.m1y.d.next = self.m1y.q.val();
        self.m2x.clock.next = self.clock.val();
        self.m2x.d.next = self.m2x.q.val();
        self.m2y.clock.next = self.clock.val();
        self.m2y.d.next = self.m2y.q.val();
        self.sa.clock.next = self.clock.val();
        self.sa.d.next = self.sa.q.val();
        self.sc.clock.next = self.clock.val();
        self.sc.d.next = self.sc.q.val();
        self.tminx.clock.next = self.clock.val();
        self.tminx.d.next = self.tminx.q.val();
        self.tmaxx.clock.next = self.clock.val();
        self.tmaxx.d.next = self.tmaxx.q.val();
        self.tminy.clock.next = self.clock.val();
        self.tminy.d.next = self.tminy.q.val();
        self.tmaxy.clock.next = self.clock.val();
        self.tmaxy.d.next = self.tmaxy.q.val();
        self.n.clock.next = self.clock.val();
        self.n.d.next = self.n.q.val();
        self.nm1.clock.next = self.clock.val();
        self.nm1.d.next = self.nm1.q.val();
        self.s.clock.next = self.clock.val();
        self.s.d.next = self.s.q.val();
        self.sm1.clock.next = self.clock.val();
        self.sm1.d.next = self.sm1.q.val();
        self.a_ll.clock.next = self.clock.val();
        self.a_ll.d.next = self.a_ll.q.val();
        self.a_lh.clock.next = self.clock.val();
        self.a_lh.d.next = self.a_lh.q.val();
        self.a_hl.clock.next = self.clock.val();
        self.a_hl.d.next = self.a_hl.q.val();
        self.a_hh.clock.next = self.clock.val();
        self.a_hh.d.next = self.a_hh.q.val();
        self.c_ll.clock.next = self.clock.val();
        self.c_ll.d.next = self.c_ll.q.val();
        self.c_lh.clock.next = self.clock.val();
        self.c_lh.d.next = self.c_lh.q.val();
        self.c_hl.clock.next = self.clock.val();
        self.c_hl.d.next = self.c_hl.q.val();
        self.c_hh.clock.next = self.clock.val();
        self.c_hh.d.next = self.c_hh.q.val();
        self.pl_x.clock.next = self.clock.val();
        self.pl_x.d.next = self.pl_x.q.val();
        self.pl_y.clock.next = self.clock.val();
        self.pl_y.d.next = self.pl_y.q.val();
        self.ph_x.clock.next = self.clock.val();
        self.ph_x.d.next = self.ph_x.q.val();
        self.ph_y.clock.next = self.clock.val();
        self.ph_y.d.next = self.ph_y.q.val();
        self.ql_x.clock.next = self.clock.val();
        self.ql_x.d.next = self.ql_x.q.val();
        self.ql_y.clock.next = self.clock.val();
        self.ql_y.d.next = self.ql_y.q.val();
        self.qh_x.clock.next = self.clock.val();
        self.qh_x.d.next = self.qh_x.q.val();
        self.qh_y.clock.next = self.clock.val();
        self.qh_y.d.next = self.qh_y.q.val();
        self.mid_a.clock.next = self.clock.val();
        self.mid_a.d.next = self.mid_a.q.val();
        self.mid_c.clock.next = self.clock.val();
        self.mid_c.d.next = self.mid_c.q.val();
        self.a_ll4.clock.next = self.clock.val();
        self.a_ll4.d.next = self.a_ll4.q.val();
        self.a_hh4.clock.next = self.clock.val();
        self.a_hh4.d.next = self.a_hh4.q.val();
        self.c_ll4.clock.next = self.clock.val();
        self.c_ll4.d.next = self.c_ll4.q.val();
        self.c_hh4.clock.next = self.clock.val();
        self.c_hh4.d.next = self.c_hh4.q.val();
        self.lo_x.clock.next = self.clock.val();
        self.lo_x.d.next = self.lo_x.q.val();
        self.lo_y.clock.next = self.clock.val();
        self.lo_y.d.next = self.lo_y.q.val();
        self.hi_x.clock.next = self.clock.val();
        self.hi_x.d.next = self.hi_x.q.val();
        self.hi_y.clock.next = self.clock.val();
        self.hi_y.d.next = self.hi_y.q.val();
        self.t_a.clock.next = self.clock.val();
        self.t_a.d.next = self.t_a.q.val();
        self.t_c.clock.next = self.clock.val();
        self.t_c.d.next = self.t_c.q.val();
        self.a_lo12.clock.next = self.clock.val();
        self.a_lo12.d.next = self.a_lo12.q.val();
        self.c_lo12.clock.next = self.clock.val();
        self.c_lo12.d.next = self.c_lo12.q.val();
        self.a_hh5.clock.next = self.clock.val();
        self.a_hh5.d.next = self.a_hh5.q.val();
        self.c_hh5.clock.next = self.clock.val();
        self.c_hh5.d.next = self.c_hh5.q.val();
        self.lo_x5.clock.next = self.clock.val();
        self.lo_x5.d.next = self.lo_x5.q.val();
        self.lo_y5.clock.next = self.clock.val();
        self.lo_y5.d.next = self.lo_y5.q.val();
        self.hi_x5.clock.next = self.clock.val();
        self.hi_x5.d.next = self.hi_x5.q.val();
        self.hi_y5.clock.next = self.clock.val();
        self.hi_y5.d.next = self.hi_y5.q.val();
        self.gt_lx.clock.next = self.clock.val();
        self.gt_lx.d.next = self.gt_lx.q.val();
        self.gt_ly.clock.next = self.clock.val();
        self.gt_ly.d.next = self.gt_ly.q.val();
        self.gt_hx.clock.next = self.clock.val();
        self.gt_hx.d.next = self.gt_hx.q.val();
        self.gt_hy.clock.next = self.clock.val();
        self.gt_hy.d.next = self.gt_hy.q.val();
        self.ma36.clock.next = self.clock.val();
        self.ma36.d.next = self.ma36.q.val();
        self.mc36.clock.next = self.clock.val();
        self.mc36.d.next = self.mc36.q.val();
        self.a_lo12_6.clock.next = self.clock.val();
        self.a_lo12_6.d.next = self.a_lo12_6.q.val();
        self.c_lo12_6.clock.next = self.clock.val();
        self.c_lo12_6.d.next = self.c_lo12_6.q.val();
        self.bx0.clock.next = self.clock.val();
        self.bx0.d.next = self.bx0.q.val();
        self.by0.clock.next = self.clock.val();
        self.by0.d.next = self.by0.q.val();
        self.bx1.clock.next = self.clock.val();
        self.bx1.d.next = self.bx1.q.val();
        self.by1.clock.next = self.clock.val();
        self.by1.d.next = self.by1.q.val();
        self.boff.clock.next = self.clock.val();
        self.boff.d.next = self.boff.q.val();
        self.hlt.clock.next = self.clock.val();
        self.hlt.d.next = self.hlt.q.val();
        self.heq.clock.next = self.clock.val();
        self.heq.d.next = self.heq.q.val();
        self.llt.clock.next = self.clock.val();
        self.llt.d.next = self.llt.q.val();
        self.leq.clock.next = self.clock.val();
        self.leq.d.next = self.leq.q.val();
        self.za.clock.next = self.clock.val();
        self.za.d.next = self.za.q.val();
        self.zc.clock.next = self.clock.val();
        self.zc.d.next = self.zc.q.val();
        self.ov.clock.next = self.clock.val();
        self.ov.d.next = self.ov.q.val();
        self.oprim.clock.next = self.clock.val();
        self.oprim.d.next = self.oprim.q.val();
        self.bo_x0.clock.next = self.clock.val();
        self.bo_x0.d.next = self.bo_x0.q.val();
        self.bo_y0.clock.next = self.clock.val();
        self.bo_y0.d.next = self.bo_y0.q.val();
        self.bo_x1.clock.next = self.clock.val();
        self.bo_x1.d.next = self.bo_x1.q.val();
        self.bo_y1.clock.next = self.clock.val();
        self.bo_y1.d.next = self.bo_y1.q.val();
        self.oend.clock.next = self.clock.val();
        self.oend.d.next = self.oend.q.val();
        self.wv.clock.next = self.clock.val();
        self.wv.d.next = self.wv.q.val();
        self.waddr.clock.next = self.clock.val();
        self.waddr.d.next = self.waddr.q.val();
        self.wdata.clock.next = self.clock.val();
        self.wdata.d.next = self.wdata.q.val();
        self.wwrite.clock.next = self.clock.val();
        self.wwrite.d.next = self.wwrite.q.val();
        self.wbe.clock.next = self.clock.val();
        self.wbe.d.next = self.wbe.q.val();
        // ---- input: sign-extended vertices, word 0 ----
        self.u_v0x.next = unsigned_cast(self.inp.v0x.val());
        self.u_v0y.next = unsigned_cast(self.inp.v0y.val());
        self.u_v1x.next = unsigned_cast(self.inp.v1x.val());
        self.u_v1y.next = unsigned_cast(self.inp.v1y.val());
        self.u_v2x.next = unsigned_cast(self.inp.v2x.val());
        self.u_v2y.next = unsigned_cast(self.inp.v2y.val());
        self.i_v0x.next = bit_cast::<25, 24>(self.u_v0x.val());
        if self.u_v0x.val().get_bit(23) {
            self.i_v0x.next = bit_cast::<25, 24>(self.u_v0x.val()) | self.c_top25.val();
        }
        self.i_v0y.next = bit_cast::<25, 24>(self.u_v0y.val());
        if self.u_v0y.val().get_bit(23) {
            self.i_v0y.next = bit_cast::<25, 24>(self.u_v0y.val()) | self.c_top25.val();
        }
        self.i_v1x.next = bit_cast::<25, 24>(self.u_v1x.val());
        if self.u_v1x.val().get_bit(23) {
            self.i_v1x.next = bit_cast::<25, 24>(self.u_v1x.val()) | self.c_top25.val();
        }
        self.i_v1y.next = bit_cast::<25, 24>(self.u_v1y.val());
        if self.u_v1y.val().get_bit(23) {
            self.i_v1y.next = bit_cast::<25, 24>(self.u_v1y.val()) | self.c_top25.val();
        }
        self.i_v2x.next = bit_cast::<25, 24>(self.u_v2x.val());
        if self.u_v2x.val().get_bit(23) {
            self.i_v2x.next = bit_cast::<25, 24>(self.u_v2x.val()) | self.c_top25.val();
        }
        self.i_v2y.next = bit_cast::<25, 24>(self.u_v2y.val());
        if self.u_v2y.val().get_bit(23) {
            self.i_v2y.next = bit_cast::<25, 24>(self.u_v2y.val()) | self.c_top25.val();
        }
        self.i0x32.next = bit_cast::<32, 24>(self.u_v0x.val());
        if self.u_v0x.val().get_bit(23) {
            self.i0x32.next = bit_cast::<32, 24>(self.u_v0x.val()) | self.c_top32_24.val();
        }

        // ---- the table words of the latched primitive ----
        self.s_v0x.next = bit_cast::<32, 25>(self.v0x.q.val());
        if self.v0x.q.val().get_bit(24) {
            self.s_v0x.next = bit_cast::<32, 25>(self.v0x.q.val()) | self.c_top32.val();
        }
        self.s_v0y.next = bit_cast::<32, 25>(self.v0y.q.val());
        if self.v0y.q.val().get_bit(24) {
            self.s_v0y.next = bit_cast::<32, 25>(self.v0y.q.val()) | self.c_top32.val();
        }
        self.s_v1x.next = bit_cast::<32, 25>(self.v1x.q.val());
        if self.v1x.q.val().get_bit(24) {
            self.s_v1x.next = bit_cast::<32, 25>(self.v1x.q.val()) | self.c_top32.val();
        }
        self.s_v1y.next = bit_cast::<32, 25>(self.v1y.q.val());
        if self.v1y.q.val().get_bit(24) {
            self.s_v1y.next = bit_cast::<32, 25>(self.v1y.q.val()) | self.c_top32.val();
        }
        self.s_v2x.next = bit_cast::<32, 25>(self.v2x.q.val());
        if self.v2x.q.val().get_bit(24) {
            self.s_v2x.next = bit_cast::<32, 25>(self.v2x.q.val()) | self.c_top32.val();
        }
        self.s_v2y.next = bit_cast::<32, 25>(self.v2y.q.val());
        if self.v2y.q.val().get_bit(24) {
            self.s_v2y.next = bit_cast::<32, 25>(self.v2y.q.val()) | self.c_top32.val();
        }
        self.w7.next = bit_cast::<32, 24>(self.depth.q.val());
        if self.kind.q.val() {
            self.w7.next = bit_cast::<32, 24>(self.depth.q.val()) | self.c_kind32.val();
            if self.aa.q.val() {
                self.w7.next = bit_cast::<32, 24>(self.depth.q.val()) | self.c_kind32.val() | self.c_aa32.val();
            }
        }
        self.wn.next = self.w.q.val() + self.c_one3.val();
        if self.wn.val().get_bit(2) {
            if self.wn.val().get_bit(1) {
                if self.wn.val().get_bit(0) {
                    self.wsel.next = self.w7.val();
                } else {
                    self.wsel.next = self.colour.q.val();
                }
            } else if self.kind.q.val() {
                self.wsel.next = 0.into();
            } else if self.wn.val().get_bit(0) {
                self.wsel.next = self.s_v2y.val();
            } else {
                self.wsel.next = self.s_v2x.val();
            }
        } else if self.wn.val().get_bit(1) {
            if self.wn.val().get_bit(0) {
                if self.kind.q.val() {
                    self.wsel.next = 0.into();
                } else {
                    self.wsel.next = self.s_v1y.val();
                }
            } else if self.kind.q.val() {
                self.wsel.next = bit_cast::<32, 24>(self.size.q.val());
            } else {
                self.wsel.next = self.s_v1x.val();
            }
        } else if self.wn.val().get_bit(0) {
            self.wsel.next = self.s_v0y.val();
        } else {
            self.wsel.next = self.s_v0x.val();
        }

        // ---- S1: differences, pixel-coordinate compares, point size terms ----
        self.r_d1x.d.next = self.v1x.q.val() - self.v0x.q.val();
        self.r_d1y.d.next = self.v1y.q.val() - self.v0y.q.val();
        self.r_d2x.d.next = self.v2x.q.val() - self.v0x.q.val();
        self.r_d2y.d.next = self.v2y.q.val() - self.v0y.q.val();
        self.ox0.next = self.v0x.q.val().get_bits::<16>(8) ^ self.c_sign16.val();
        self.ox1.next = self.v1x.q.val().get_bits::<16>(8) ^ self.c_sign16.val();
        self.ox2.next = self.v2x.q.val().get_bits::<16>(8) ^ self.c_sign16.val();
        self.oy0.next = self.v0y.q.val().get_bits::<16>(8) ^ self.c_sign16.val();
        self.oy1.next = self.v1y.q.val().get_bits::<16>(8) ^ self.c_sign16.val();
        self.oy2.next = self.v2y.q.val().get_bits::<16>(8) ^ self.c_sign16.val();
        self.cx01.d.next = self.ox0.val() < self.ox1.val();
        self.cx02.d.next = self.ox0.val() < self.ox2.val();
        self.cx12.d.next = self.ox1.val() < self.ox2.val();
        self.cy01.d.next = self.oy0.val() < self.oy1.val();
        self.cy02.d.next = self.oy0.val() < self.oy2.val();
        self.cy12.d.next = self.oy1.val() < self.oy2.val();
        self.size25.next = bit_cast::<25, 24>(self.size.q.val());
        self.sp128.next = self.size25.val() + self.c_128.val();
        self.sm128.next = self.size25.val() - self.c_128.val();
        self.n17.d.next = self.sp128.val().get_bits::<17>(8);
        self.n17m1.d.next = self.sm128.val().get_bits::<17>(8);
        self.sgt.d.next = self.size.q.val() > self.c_pmax24.val();
        self.szero.d.next = !self.size.q.val().any();
        self.sizem1.d.next = self.size.q.val() - self.c_one24.val();
        self.vp128x.next = self.v0x.q.val() + self.c_128.val();
        self.vp128y.next = self.v0y.q.val() + self.c_128.val();
        self.prx.d.next = self.vp128x.val().get_bits::<17>(8);
        self.pry.d.next = self.vp128y.val().get_bits::<17>(8);

        // ---- S2: magnitudes and signs, min / max, clamped N and s ----
        self.nd1x.next = (!self.r_d1x.q.val()) + self.c_one25.val();
        self.nd1y.next = (!self.r_d1y.q.val()) + self.c_one25.val();
        self.nd2x.next = (!self.r_d2x.q.val()) + self.c_one25.val();
        self.nd2y.next = (!self.r_d2y.q.val()) + self.c_one25.val();
        self.m1x.d.next = self.r_d1x.q.val().get_bits::<24>(0);
        if self.r_d1x.q.val().get_bit(24) {
            self.m1x.d.next = self.nd1x.val().get_bits::<24>(0);
        }
        self.m1y.d.next = self.r_d1y.q.val().get_bits::<24>(0);
        if self.r_d1y.q.val().get_bit(24) {
            self.m1y.d.next = self.nd1y.val().get_bits::<24>(0);
        }
        self.m2x.d.next = self.r_d2x.q.val().get_bits::<24>(0);
        if self.r_d2x.q.val().get_bit(24) {
            self.m2x.d.next = self.nd2x.val().get_bits::<24>(0);
        }
        self.m2y.d.next = self.r_d2y.q.val().get_bits::<24>(0);
        if self.r_d2y.q.val().get_bit(24) {
            self.m2y.d.next = self.nd2y.val().get_bits::<24>(0);
        }
        self.sa.d.next = self.r_d1x.q.val().get_bit(24) ^ self.r_d2y.q.val().get_bit(24);
        self.sc.d.next = self.r_d2x.q.val().get_bit(24) ^ self.r_d1y.q.val().get_bit(24);
        // min = c01 ? (c02 ? v0 : v2) : (c12 ? v1 : v2); max = c01 ? (c12 ? v2 : v1) : (c02 ? v2 : v0)
        if self.cx01.q.val() {
            if self.cx02.q.val() {
                self.tminx.d.next = self.v0x.q.val().get_bits::<16>(8);
            } else {
                self.tminx.d.next = self.v2x.q.val().get_bits::<16>(8);
            }
            if self.cx12.q.val() {
                self.tmaxx.d.next = self.v2x.q.val().get_bits::<16>(8);
            } else {
                self.tmaxx.d.next = self.v1x.q.val().get_bits::<16>(8);
            }
        } else {
            if self.cx12.q.val() {
                self.tminx.d.next = self.v1x.q.val().get_bits::<16>(8);
            } else {
                self.tminx.d.next = self.v2x.q.val().get_bits::<16>(8);
            }
            if self.cx02.q.val() {
                self.tmaxx.d.next = self.v2x.q.val().get_bits::<16>(8);
            } else {
                self.tmaxx.d.next = self.v0x.q.val().get_bits::<16>(8);
            }
        }
        if self.cy01.q.val() {
            if self.cy02.q.val() {
                self.tminy.d.next = self.v0y.q.val().get_bits::<16>(8);
            } else {
                self.tminy.d.next = self.v2y.q.val().get_bits::<16>(8);
            }
            if self.cy12.q.val() {
                self.tmaxy.d.next = self.v2y.q.val().get_bits::<16>(8);
            } else {
                self.tmaxy.d.next = self.v1y.q.val().get_bits::<16>(8);
            }
        } else {
            if self.cy12.q.val() {
                self.tminy.d.next = self.v1y.q.val().get_bits::<16>(8);
            } else {
                self.tminy.d.next = self.v2y.q.val().get_bits::<16>(8);
            }
            if self.cy02.q.val() {
                self.tmaxy.d.next = self.v2y.q.val().get_bits::<16>(8);
            } else {
                self.tmaxy.d.next = self.v0y.q.val().get_bits::<16>(8);
            }
        }
        self.n.d.next = self.n17.q.val();
        self.nm1.d.next = self.n17m1.q.val();
        if !self.n17.q.val().any() {
            self.n.d.next = self.c_one17.val();
            self.nm1.d.next = 0.into();
        } else if self.n17.q.val() > self.c_nmax.val() {
            self.n.d.next = self.c_nmax.val();
            self.nm1.d.next = self.c_nmaxm1.val();
        }
        self.s.d.next = self.size.q.val();
        self.sm1.d.next = self.sizem1.q.val();
        if self.sgt.q.val() {
            self.s.d.next = self.c_pmax24.val();
            self.sm1.d.next = self.c_pmaxm1_24.val();
        }

        // ---- S3: partial products (12-bit halves, 16×16), point ranges ----
        self.p_all.next = bit_cast::<16, 12>(self.m1x.q.val().get_bits::<12>(0))
            * bit_cast::<16, 12>(self.m2y.q.val().get_bits::<12>(0));
        self.p_alh.next = bit_cast::<16, 12>(self.m1x.q.val().get_bits::<12>(0))
            * bit_cast::<16, 12>(self.m2y.q.val().get_bits::<12>(12));
        self.p_ahl.next = bit_cast::<16, 12>(self.m1x.q.val().get_bits::<12>(12))
            * bit_cast::<16, 12>(self.m2y.q.val().get_bits::<12>(0));
        self.p_ahh.next = bit_cast::<16, 12>(self.m1x.q.val().get_bits::<12>(12))
            * bit_cast::<16, 12>(self.m2y.q.val().get_bits::<12>(12));
        self.p_cll.next = bit_cast::<16, 12>(self.m2x.q.val().get_bits::<12>(0))
            * bit_cast::<16, 12>(self.m1y.q.val().get_bits::<12>(0));
        self.p_clh.next = bit_cast::<16, 12>(self.m2x.q.val().get_bits::<12>(0))
            * bit_cast::<16, 12>(self.m1y.q.val().get_bits::<12>(12));
        self.p_chl.next = bit_cast::<16, 12>(self.m2x.q.val().get_bits::<12>(12))
            * bit_cast::<16, 12>(self.m1y.q.val().get_bits::<12>(0));
        self.p_chh.next = bit_cast::<16, 12>(self.m2x.q.val().get_bits::<12>(12))
            * bit_cast::<16, 12>(self.m1y.q.val().get_bits::<12>(12));
        self.a_ll.d.next = self.p_all.val().get_bits::<24>(0);
        self.a_lh.d.next = self.p_alh.val().get_bits::<24>(0);
        self.a_hl.d.next = self.p_ahl.val().get_bits::<24>(0);
        self.a_hh.d.next = self.p_ahh.val().get_bits::<24>(0);
        self.c_ll.d.next = self.p_cll.val().get_bits::<24>(0);
        self.c_lh.d.next = self.p_clh.val().get_bits::<24>(0);
        self.c_hl.d.next = self.p_chl.val().get_bits::<24>(0);
        self.c_hh.d.next = self.p_chh.val().get_bits::<24>(0);
        // AA off: frag = odd ? p >> 8 : (p + 128) >> 8 (17 bits, sign-extended to 18).
        if self.n.q.val().get_bit(0) {
            self.frag_x.next = bit_cast::<18, 17>(self.v0x.q.val().get_bits::<17>(8));
            if self.v0x.q.val().get_bit(24) {
                self.frag_x.next = bit_cast::<18, 17>(self.v0x.q.val().get_bits::<17>(8)) | self.c_sx17_18.val();
            }
            self.frag_y.next = bit_cast::<18, 17>(self.v0y.q.val().get_bits::<17>(8));
            if self.v0y.q.val().get_bit(24) {
                self.frag_y.next = bit_cast::<18, 17>(self.v0y.q.val().get_bits::<17>(8)) | self.c_sx17_18.val();
            }
        } else {
            self.frag_x.next = bit_cast::<18, 17>(self.prx.q.val());
            if self.prx.q.val().get_bit(16) {
                self.frag_x.next = bit_cast::<18, 17>(self.prx.q.val()) | self.c_sx17_18.val();
            }
            self.frag_y.next = bit_cast::<18, 17>(self.pry.q.val());
            if self.pry.q.val().get_bit(16) {
                self.frag_y.next = bit_cast::<18, 17>(self.pry.q.val()) | self.c_sx17_18.val();
            }
        }
        self.half18.next = bit_cast::<18, 16>(self.n.q.val().get_bits::<16>(1));
        self.hoff18.next = bit_cast::<18, 16>(self.nm1.q.val().get_bits::<16>(1));
        self.pl_x.d.next = self.frag_x.val() - self.half18.val();
        self.pl_y.d.next = self.frag_y.val() - self.half18.val();
        self.ph_x.d.next = self.frag_x.val() + self.hoff18.val();
        self.ph_y.d.next = self.frag_y.val() + self.hoff18.val();
        // AA on: [(2p − s) >> 9, (2p + s − 1) >> 9] in 27 bits.
        self.px27.next = bit_cast::<27, 25>(self.v0x.q.val()) << self.c_one27.val();
        if self.v0x.q.val().get_bit(24) {
            self.px27.next = (bit_cast::<27, 25>(self.v0x.q.val()) << self.c_one27.val()) | self.c_sx27.val();
        }
        self.py27.next = bit_cast::<27, 25>(self.v0y.q.val()) << self.c_one27.val();
        if self.v0y.q.val().get_bit(24) {
            self.py27.next = (bit_cast::<27, 25>(self.v0y.q.val()) << self.c_one27.val()) | self.c_sx27.val();
        }
        self.s27.next = bit_cast::<27, 24>(self.s.q.val());
        self.sm1_27.next = bit_cast::<27, 24>(self.sm1.q.val());
        self.al_x.next = self.px27.val() - self.s27.val();
        self.al_y.next = self.py27.val() - self.s27.val();
        self.ah_x.next = self.px27.val() + self.sm1_27.val();
        self.ah_y.next = self.py27.val() + self.sm1_27.val();
        self.ql_x.d.next = self.al_x.val().get_bits::<18>(9);
        self.ql_y.d.next = self.al_y.val().get_bits::<18>(9);
        self.qh_x.d.next = self.ah_x.val().get_bits::<18>(9);
        self.qh_y.d.next = self.ah_y.val().get_bits::<18>(9);

        // ---- S4: middle terms; the range by kind ----
        self.mid_a.d.next = bit_cast::<25, 24>(self.a_lh.q.val()) + bit_cast::<25, 24>(self.a_hl.q.val());
        self.mid_c.d.next = bit_cast::<25, 24>(self.c_lh.q.val()) + bit_cast::<25, 24>(self.c_hl.q.val());
        self.a_ll4.d.next = self.a_ll.q.val();
        self.a_hh4.d.next = self.a_hh.q.val();
        self.c_ll4.d.next = self.c_ll.q.val();
        self.c_hh4.d.next = self.c_hh.q.val();
        if self.kind.q.val() {
            if self.aa.q.val() {
                self.lo_x.d.next = self.ql_x.q.val();
                self.lo_y.d.next = self.ql_y.q.val();
                self.hi_x.d.next = self.qh_x.q.val();
                self.hi_y.d.next = self.qh_y.q.val();
            } else {
                self.lo_x.d.next = self.pl_x.q.val();
                self.lo_y.d.next = self.pl_y.q.val();
                self.hi_x.d.next = self.ph_x.q.val();
                self.hi_y.d.next = self.ph_y.q.val();
            }
        } else {
            self.lo_x.d.next = bit_cast::<18, 16>(self.tminx.q.val());
            if self.tminx.q.val().get_bit(15) {
                self.lo_x.d.next = bit_cast::<18, 16>(self.tminx.q.val()) | self.c_sx16_18.val();
            }
            self.lo_y.d.next = bit_cast::<18, 16>(self.tminy.q.val());
            if self.tminy.q.val().get_bit(15) {
                self.lo_y.d.next = bit_cast::<18, 16>(self.tminy.q.val()) | self.c_sx16_18.val();
            }
            self.hi_x.d.next = bit_cast::<18, 16>(self.tmaxx.q.val());
            if self.tmaxx.q.val().get_bit(15) {
                self.hi_x.d.next = bit_cast::<18, 16>(self.tmaxx.q.val()) | self.c_sx16_18.val();
            }
            self.hi_y.d.next = bit_cast::<18, 16>(self.tmaxy.q.val());
            if self.tmaxy.q.val().get_bit(15) {
                self.hi_y.d.next = bit_cast::<18, 16>(self.tmaxy.q.val()) | self.c_sx16_18.val();
            }
        }

        // ---- S5: (ll >> 12) + mid; clip compares (offset binary) ----
        self.t_a.d.next =
            bit_cast::<26, 12>(self.a_ll4.q.val().get_bits::<12>(12)) + bit_cast::<26, 25>(self.mid_a.q.val());
        self.t_c.d.next =
            bit_cast::<26, 12>(self.c_ll4.q.val().get_bits::<12>(12)) + bit_cast::<26, 25>(self.mid_c.q.val());
        self.a_lo12.d.next = self.a_ll4.q.val().get_bits::<12>(0);
        self.c_lo12.d.next = self.c_ll4.q.val().get_bits::<12>(0);
        self.a_hh5.d.next = self.a_hh4.q.val();
        self.c_hh5.d.next = self.c_hh4.q.val();
        self.lo_x5.d.next = self.lo_x.q.val();
        self.lo_y5.d.next = self.lo_y.q.val();
        self.hi_x5.d.next = self.hi_x.q.val();
        self.hi_y5.d.next = self.hi_y.q.val();
        self.gt_lx.d.next = (self.lo_x.q.val() ^ self.c_sign18.val()) > self.c_vmax_ob_x.val();
        self.gt_ly.d.next = (self.lo_y.q.val() ^ self.c_sign18.val()) > self.c_vmax_ob_y.val();
        self.gt_hx.d.next = (self.hi_x.q.val() ^ self.c_sign18.val()) > self.c_vmax_ob_x.val();
        self.gt_hy.d.next = (self.hi_y.q.val() ^ self.c_sign18.val()) > self.c_vmax_ob_y.val();

        // ---- S6: the magnitudes' upper 36 bits; the clipped box ----
        self.ma36.d.next =
            bit_cast::<36, 26>(self.t_a.q.val()) + (bit_cast::<36, 24>(self.a_hh5.q.val()) << self.c_twelve36.val());
        self.mc36.d.next =
            bit_cast::<36, 26>(self.t_c.q.val()) + (bit_cast::<36, 24>(self.c_hh5.q.val()) << self.c_twelve36.val());
        self.a_lo12_6.d.next = self.a_lo12.q.val();
        self.c_lo12_6.d.next = self.c_lo12.q.val();
        self.bx0.d.next = self.lo_x5.q.val().get_bits::<12>(0);
        if self.lo_x5.q.val().get_bit(17) {
            self.bx0.d.next = 0.into();
        }
        self.by0.d.next = self.lo_y5.q.val().get_bits::<12>(0);
        if self.lo_y5.q.val().get_bit(17) {
            self.by0.d.next = 0.into();
        }
        self.bx1.d.next = self.hi_x5.q.val().get_bits::<12>(0);
        if self.gt_hx.q.val() {
            self.bx1.d.next = self.c_vmax12_x.val();
        }
        self.by1.d.next = self.hi_y5.q.val().get_bits::<12>(0);
        if self.gt_hy.q.val() {
            self.by1.d.next = self.c_vmax12_y.val();
        }
        self.boff.d.next =
            self.hi_x5.q.val().get_bit(17) | self.hi_y5.q.val().get_bit(17) | self.gt_lx.q.val() | self.gt_ly.q.val();

        // ---- S7: compare the magnitudes (upper 36 bits, then the low 12) ----
        self.hlt.d.next = self.ma36.q.val() < self.mc36.q.val();
        self.heq.d.next = self.ma36.q.val() == self.mc36.q.val();
        self.llt.d.next = self.a_lo12_6.q.val() < self.c_lo12_6.q.val();
        self.leq.d.next = self.a_lo12_6.q.val() == self.c_lo12_6.q.val();
        self.za.d.next = !self.ma36.q.val().any() & !self.a_lo12_6.q.val().any();
        self.zc.d.next = !self.mc36.q.val().any() & !self.c_lo12_6.q.val().any();

        // ---- the verdict (read at the 8th write's handshake) ----
        self.na.next = self.sa.q.val() & !self.za.q.val();
        self.nc.next = !self.sc.q.val() & !self.zc.q.val();
        self.lt.next = self.hlt.q.val() | (self.heq.q.val() & self.llt.q.val());
        self.eq.next = self.heq.q.val() & self.leq.q.val();
        self.zero.next = (!self.na.val() & !self.nc.val() & self.za.q.val() & self.zc.q.val())
            | ((self.na.val() ^ self.nc.val()) & self.eq.val());
        self.cw.next = (self.na.val() & self.nc.val())
            | (self.na.val() & !self.nc.val() & !self.eq.val() & !self.lt.val())
            | (!self.na.val() & self.nc.val() & self.lt.val());
        if self.kind.q.val() {
            self.has_box.next = !self.boff.q.val() & !(self.aa.q.val() & self.szero.q.val());
        } else {
            self.has_box.next = !self.boff.q.val()
                & !self.zero.val()
                & !((self.c_cull_cw.val() & self.cw.val()) | (self.c_cull_ccw.val() & !self.cw.val()));
        }

        // ---- sequencer ----
        self.in_ready.next =
            (self.st.q.val() == self.c_idle.val()) | ((self.st.q.val() == self.c_box.val()) & self.out_ready.val());
        self.take.next = self.in_valid.val()
            & ((self.st.q.val() == self.c_idle.val()) | ((self.st.q.val() == self.c_box.val()) & self.out_ready.val()));
        if (self.st.q.val() == self.c_write.val()) & self.wr_ready.val() {
            if self.w.q.val() == self.c_w7.val() {
                self.wv.d.next = false;
                self.st.d.next = self.c_idle.val();
                if self.has_box.val() {
                    self.ov.d.next = true;
                    self.oprim.d.next = self.pidx.q.val();
                    self.bo_x0.d.next = self.bx0.q.val();
                    self.bo_y0.d.next = self.by0.q.val();
                    self.bo_x1.d.next = self.bx1.q.val();
                    self.bo_y1.d.next = self.by1.q.val();
                    self.oend.d.next = false;
                    self.st.d.next = self.c_box.val();
                }
            } else {
                self.w.d.next = self.wn.val();
                self.waddr.d.next = self.waddr.q.val() + self.c_four32.val();
                self.wdata.d.next = self.wsel.val();
            }
        }
        if (self.st.q.val() == self.c_box.val()) & self.out_ready.val() {
            self.ov.d.next = false;
            self.st.d.next = self.c_idle.val();
        }
        if self.take.val() {
            if self.inp.end.val() {
                self.ov.d.next = true;
                self.oprim.d.next = self.idx.q.val();
                self.bo_x0.d.next = 0.into();
                self.bo_y0.d.next = 0.into();
                self.bo_x1.d.next = 0.into();
                self.bo_y1.d.next = 0.into();
                self.oend.d.next = true;
                self.idx.d.next = 0.into();
                self.st.d.next = self.c_box.val();
            } else {
                self.pidx.d.next = self.idx.q.val();
                self.idx.d.next = self.idx.q.val() + self.c_one24.val();
                self.kind.d.next = self.inp.kind.val();
                self.aa.d.next = self.inp.aa.val();
                self.v0x.d.next = self.i_v0x.val();
                self.v0y.d.next = self.i_v0y.val();
                self.v1x.d.next = self.i_v1x.val();
                self.v1y.d.next = self.i_v1y.val();
                self.v2x.d.next = self.i_v2x.val();
                self.v2y.d.next = self.i_v2y.val();
                self.size.d.next = self.inp.size.val();
                self.colour.d.next = self.inp.colour.val();
                self.depth.d.next = self.inp.depth.val();
                self.w.d.next = 0.into();
                self.wv.d.next = true;
                self.waddr.d.next = bit_cast::<32, 24>(self.idx.q.val()) << self.c_five.val();
                self.wdata.d.next = self.i0x32.val();
                self.wwrite.d.next = true;
                self.wbe.d.next = self.c_be.val();
                self.st.d.next = self.c_write.val();
            }
        }

        if self.flush.val() {
            self.st.d.next = 0.into();
            self.w.d.next = 0.into();
            self.idx.d.next = 0.into();
            self.pidx.d.next = 0.into();
            self.kind.d.next = false;
            self.aa.d.next = false;
            self.v0x.d.next = 0.into();
            self.v0y.d.next = 0.into();
            self.v1x.d.next = 0.into();
            self.v1y.d.next = 0.into();
            self.v2x.d.next = 0.into();
            self.v2y.d.next = 0.into();
            self.size.d.next = 0.into();
            self.colour.d.next = 0.into();
            self.depth.d.next = 0.into();
            self.r_d1x.d.next = 0.into();
            self.r_d1y.d.next = 0.into();
            self.r_d2x.d.next = 0.into();
            self.r_d2y.d.next = 0.into();
            self.cx01.d.next = false;
            self.cx02.d.next = false;
            self.cx12.d.next = false;
            self.cy01.d.next = false;
            self.cy02.d.next = false;
            self.cy12.d.next = false;
            self.n17.d.next = 0.into();
            self.n17m1.d.next = 0.into();
            self.sgt.d.next = false;
            self.szero.d.next = false;
            self.sizem1.d.next = 0.into();
            self.prx.d.next = 0.into();
            self.pry.d.next = 0.into();
            self.m1x.d.next = 0.into();
            self.m1y.d.next = 0.into();
            self.m2x.d.next = 0.into();
            self.m2y.d.next = 0.into();
            self.sa.d.next = false;
            self.sc.d.next = false;
            self.tminx.d.next = 0.into();
            self.tmaxx.d.next = 0.into();
            self.tminy.d.next = 0.into();
            self.tmaxy.d.next = 0.into();
            self.n.d.next = 0.into();
            self.nm1.d.next = 0.into();
            self.s.d.next = 0.into();
            self.sm1.d.next = 0.into();
            self.a_ll.d.next = 0.into();
            self.a_lh.d.next = 0.into();
            self.a_hl.d.next = 0.into();
            self.a_hh.d.next = 0.into();
            self.c_ll.d.next = 0.into();
            self.c_lh.d.next = 0.into();
            self.c_hl.d.next = 0.into();
            self.c_hh.d.next = 0.into();
            self.pl_x.d.next = 0.into();
            self.pl_y.d.next = 0.into();
            self.ph_x.d.next = 0.into();
            self.ph_y.d.next = 0.into();
            self.ql_x.d.next = 0.into();
            self.ql_y.d.next = 0.into();
            self.qh_x.d.next = 0.into();
            self.qh_y.d.next = 0.into();
            self.mid_a.d.next = 0.into();
            self.mid_c.d.next = 0.into();
            self.a_ll4.d.next = 0.into();
            self.a_hh4.d.next = 0.into();
            self.c_ll4.d.next = 0.into();
            self.c_hh4.d.next = 0.into();
            self.lo_x.d.next = 0.into();
            self.lo_y.d.next = 0.into();
            self.hi_x.d.next = 0.into();
            self.hi_y.d.next = 0.into();
            self.t_a.d.next = 0.into();
            self.t_c.d.next = 0.into();
            self.a_lo12.d.next = 0.into();
            self.c_lo12.d.next = 0.into();
            self.a_hh5.d.next = 0.into();
            self.c_hh5.d.next = 0.into();
            self.lo_x5.d.next = 0.into();
            self.lo_y5.d.next = 0.into();
            self.hi_x5.d.next = 0.into();
            self.hi_y5.d.next = 0.into();
            self.gt_lx.d.next = false;
            self.gt_ly.d.next = false;
            self.gt_hx.d.next = false;
            self.gt_hy.d.next = false;
            self.ma36.d.next = 0.into();
            self.mc36.d.next = 0.into();
            self.a_lo12_6.d.next = 0.into();
            self.c_lo12_6.d.next = 0.into();
            self.bx0.d.next = 0.into();
            self.by0.d.next = 0.into();
            self.bx1.d.next = 0.into();
            self.by1.d.next = 0.into();
            self.boff.d.next = false;
            self.hlt.d.next = false;
            self.heq.d.next = false;
            self.llt.d.next = false;
            self.leq.d.next = false;
            self.za.d.next = false;
            self.zc.d.next = false;
            self.ov.d.next = false;
            self.oprim.d.next = 0.into();
            self.bo_x0.d.next = 0.into();
            self.bo_y0.d.next = 0.into();
            self.bo_x1.d.next = 0.into();
            self.bo_y1.d.next = 0.into();
            self.oend.d.next = false;
            self.wv.d.next = false;
            self.waddr.d.next = 0.into();
            self.wdata.d.next = 0.into();
            self.wwrite.d.next = false;
            self.wbe.d.next = 0.into();
        }

        self.out_valid.next = self.ov.q.val();
        self.out.prim.next = self.oprim.q.val();
        self.out.x0.next = self.bo_x0.q.val();
        self.out.y0.next = self.bo_y0.q.val();
        self.out.x1.next = self.bo_x1.q.val();
        self.out.y1.next = self.bo_y1.q.val();
        self.out.end.next = self.oend.q.val();
        self.wr_valid.next = self.wv.q.val();
        self.wr.addr.next = self.waddr.q.val();
        self.wr.write.next = self.wwrite.q.val();
        self.wr.wdata.next = self.wdata.q.val();
        self.wr.be.next = self.wbe.q.val();
    }
}

emit::indexed_kernel_logic!(BinSetup);

/// The block's Verilog with top module `name`.
pub fn verilog(cfg: &Config, name: &str) -> String {
    emit::block_verilog(BinSetup::new(cfg), name)
}

/// What the block is built with for `cfg`, or the one-line refusal.
pub fn params(cfg: &Config) -> Result<String, String> {
    supported(cfg)?;
    Ok(format!(
        "viewport {}x{}, cull {:?}, max point size {}; table offsets index·32 relative to the table's region",
        cfg.viewport[0], cfg.viewport[1], cfg.cull, cfg.max_point_size
    ))
}

/// bin_setup's row of [`crate::BLOCK_FILES`].
pub const FILE: crate::BlockFile = crate::BlockFile {
    role: "the frame's front end: primitive index, primitive-table writes, the binner's pixel boxes",
    contract: "tilerast_golden::bin_setup::BinSetupCycle",
    sig: <tilerast_golden::bin_setup::BinSetupPorts as tilerast_golden::cycle::BlockSignature>::SIGNATURE,
    params,
    verilog,
};
