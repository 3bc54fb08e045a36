//! Point rasterizer block (seed 003: point rasterization with odd/even point size).
//!
//! Role: turns one point command (one point in one screen tile) into the beats of its quads,
//! exactly golden `point_raster::raster_point_tile`'s quads in its order; cycle model
//! [`tilerast_golden::point_raster::PointRasterCycle`], whose rustdoc is the block's timing
//! contract (latency, scan steps, throughput), stated once.
//!
//! Ports (valid/ready; a transfer happens at a rising edge where both are high):
//! * `clock`, `flush` (synchronous: back to idle, output register emptied and zeroed).
//! * in: `in_valid`, `in_ready` with `inp` ([`crate::streams::CmdIn`], the cmd stream; it
//!   reads `prim`, the tile, `v0x`/`v0y` (position, absolute 1/256 px), `size` (1/256 px) and
//!   `aa`; `kind`, `v1` and `v2` are unused since raster_core routes only points here).
//! * out: `out_valid`, `out_ready` with `out` ([`crate::streams::BeatOut`], the beat stream:
//!   per lane the absolute quad and 4·S mask bits). Lanes l ≥ Q are always 0.
//!
//! ```text
//!  in ──►[accept]──► SX ──► SY ──► SCAN ─────────────► [out register] ──► out
//!         N = clamp(round½↑ size)   one step per cycle:     prim, lane_valid,
//!         s = min(size, max·256)    Q quads of a quad row   qx/qy/mask ×4, last
//!         K_lo, K_hi (adds)          masks = col(x) & row(y)
//!              │       ▲ ▲
//!              └─► axis unit (shared by x in SX and y in SY): 2p + K → A0, A1 (1/16 px)
//!                  clip to tile ∩ viewport → Q0, Q1 − Q0, P0/P1 parity, lo4, hi4, empty
//! ```
//!
//! **Setup, adds and shifts only.** Accept stage (from the ports into registers): N =
//! `(size + 128) >> 8` clamped to `[1, max_point_size]`, s = `min(size, max_point_size·256)`,
//! and the two axis adder constants `K_lo, K_hi` = `−256(N−1), +256(N−1)` (AA off) or
//! `31 − s, s − 1` (AA on), each candidate one adder or one constant compare from `in_size`,
//! then muxed (the accept stage sits right behind the command RAM in the FPGA tops). With p
//! the position in 1/256 px, the axis unit computes `A0 = (2p + K_lo) >> 5` and
//! `A1 = (2p + K_hi) >> 5` in 1/16 px. AA off it clears the low 4 bits of A0 and sets those of
//! A1: the pixel range `[⌊p/256 − (N−1)/2⌋, ⌊p/256 + (N−1)/2⌋]`,
//! which is the seed's parity-dependent range (odd N: centred on the pixel holding the point;
//! even N: on the nearest pixel corner). AA on, A0 / A1 are the first / last 1/16-px position
//! inside `[2p − s, 2p + s)` (1/512 px). Then it clips them to the tile and the viewport
//! (`[16·tile_origin, 16·min(tile_end, viewport) − 1]`, both axes' bounds computed from the
//! ports and registered at accept, which keeps that adder and compare off the SX/SY path) and
//! splits them into quad (bits 5..16), pixel parity (bit 4) and in-pixel threshold (bits 0..3).
//!
//! **Scan** (the seed's quad-by-quad scan): quad rows bottom-up, in a row left→right, Q =
//! `quads_per_clock` quads per step. Per quad column the seed's span cases: the first
//! column with an odd first pixel lights only its right pixels, the last column with an even
//! last pixel only its left ones (likewise rows: upper / lower); AA off a lit pixel gets all S
//! bits, so a quad lights 4, 2 or 1 fragments. AA on, the edge pixels get only the samples at
//! or right of (left of) the in-pixel threshold (a per-preset table of the sample offsets),
//! and pixel (x, y)'s mask is `col(x) & row(y)`. A lane is valid iff its mask is non-zero.
//!
//! **Handshake.** States IDLE → SX → SY → SCAN (the diagram). The scan advances while the
//! output register is free or taken (`advance = ¬out_valid ∨ out_ready`);
//! `in_ready = IDLE ∨ (SCAN ∧ final step ∧ advance)` (combinational in `out_ready`, the only
//! input → output path), so the next command is taken at the edge that loads the final step's
//! beat. The final step always emits and carries `out_last` (a command missing its tile emits
//! just that beat, no lane valid); steps with no valid lane (AA only) emit nothing. Timing
//! contract: [`tilerast_golden::point_raster::PointRasterCycle`].
//!
//! Order of outputs: command by command; inside a command rows bottom-up, left→right, lanes
//! in quad order (an empty lane may sit between valid ones with AA on). A lane l < Q that is
//! not valid still carries `qx = cur + l`, `qy` of the row and mask 0 (the cycle model predicts
//! it); the payload registers change only when a beat is loaded.
//!
//! Size: one shared axis unit (two 26-bit adders, three 21-bit compares) instead of one per
//! axis; no multiplier; per lane only an equality compare, S-bit masks and a 12-bit add.
//! Measured sizes: only the generated per-block table in docs/measurements.md ("FPGA").

use rust_hdl::prelude::*;
use tilerast_golden::config::Config;
use tilerast_golden::point_raster::edge_sample_tables;
use tilerast_golden::samples;

use crate::emit;

/// The FSM's states, encoded 0..=3 in this order (the diagram's IDLE, SX, SY, SCAN): waiting
/// for a point; the axis unit on x; the axis unit on y; the quad scan.
#[derive(Copy, Clone, Debug, PartialEq, Eq, LogicState)]
pub enum PointState {
    Idle,
    Sx,
    Sy,
    Scan,
}

tilerast_golden::point_raster_streams! { crate::streams::stream_block;
    /// The point rasterizer block; see the module header.
    pub struct PointRaster {
        // ---- preset constants
        c_q: Constant<Bits<8>>,
        c_s1: Constant<Bits<8>>,
        c_s2: Constant<Bits<8>>,
        c_s3: Constant<Bits<8>>,
        c_full: Constant<Bits<64>>,
        c_tsx: Constant<Bits<8>>,
        c_tsy: Constant<Bits<8>>,
        c_tw: Constant<Bits<17>>,
        c_th: Constant<Bits<17>>,
        c_vw: Constant<Bits<17>>,
        c_vh: Constant<Bits<17>>,
        /// Accept-stage constants (all 26-bit, two's complement): see `new`.
        c_383: Constant<Bits<26>>,
        c_128: Constant<Bits<26>>,
        c_31: Constant<Bits<26>>,
        c_1: Constant<Bits<26>>,
        c_pxmask: Constant<Bits<26>>,
        c_n1: Constant<Bits<26>>,
        c_nmax: Constant<Bits<26>>,
        c_max_s: Constant<Bits<26>>,
        c_klo_nmax: Constant<Bits<26>>,
        c_khi_nmax: Constant<Bits<26>>,
        c_klo_smax: Constant<Bits<26>>,
        c_khi_smax: Constant<Bits<26>>,
        c_sext: Constant<Bits<26>>,
        c_lo_clr: Constant<Bits<21>>,
        c_hi_set: Constant<Bits<21>>,
        c_lane: [Constant<Bits<8>>; 4],
        c_lane12: [Constant<Bits<12>>; 4],
        c_lane0: [Constant<Bit>; 4],
        c_v: [Constant<Bits<4>>; 16],
        c_gex: [Constant<Bits<64>>; 16],
        c_lex: [Constant<Bits<64>>; 16],
        c_gey: [Constant<Bits<64>>; 16],
        c_ley: [Constant<Bits<64>>; 16],

        // ---- state
        st: DFF<PointState>,
        // accept stage
        prim_r: DFF<Bits<24>>,
        /// Clip bounds per axis in 1/16 px, from the tile and the viewport at accept:
        /// `[16·tile_origin, 16·min(tile_end, viewport) − 1]`.
        clx_r: DFF<Signed<21>>,
        chx_r: DFF<Signed<21>>,
        cly_r: DFF<Signed<21>>,
        chy_r: DFF<Signed<21>>,
        px_r: DFF<Signed<24>>,
        py_r: DFF<Signed<24>>,
        klo_r: DFF<Signed<26>>,
        khi_r: DFF<Signed<26>>,
        aa_r: DFF<Bit>,
        // x axis (SX)
        q0x_r: DFF<Bits<12>>,
        nqx_r: DFF<Bits<8>>,
        p0ox_r: DFF<Bit>,
        p1ox_r: DFF<Bit>,
        lo4x_r: DFF<Bits<4>>,
        hi4x_r: DFF<Bits<4>>,
        emx_r: DFF<Bit>,
        // y axis edges (SY)
        p0oy_r: DFF<Bit>,
        p1oy_r: DFF<Bit>,
        lo4y_r: DFF<Bits<4>>,
        hi4y_r: DFF<Bits<4>>,
        // scan
        cur_x: DFF<Bits<12>>,
        rem_x: DFF<Bits<8>>,
        col_first: DFF<Bit>,
        cur_y: DFF<Bits<12>>,
        rem_y: DFF<Bits<8>>,
        row_first: DFF<Bit>,
        empty_r: DFF<Bit>,
        // output register
        ov: DFF<Bit>,
        oprim: DFF<Bits<24>>,
        okind: DFF<Bit>,
        olv: DFF<Bits<4>>,
        olast: DFF<Bit>,
        oqx: [DFF<Bits<12>>; 4],
        oqy: [DFF<Bits<12>>; 4],
        omask: [DFF<Bits<64>>; 4],

        // ---- combinational
        // accept stage
        a_u: Signal<Local, Bits<26>>,
        a_klo: Signal<Local, Bits<26>>,
        a_khi: Signal<Local, Bits<26>>,
        a_accept: Signal<Local, Bit>,
        a_orgx: Signal<Local, Bits<16>>,
        a_orgy: Signal<Local, Bits<16>>,
        a_endx: Signal<Local, Bits<17>>,
        a_endy: Signal<Local, Bits<17>>,
        a_vendx: Signal<Local, Bits<17>>,
        a_vendy: Signal<Local, Bits<17>>,
        a_chbx: Signal<Local, Bits<21>>,
        a_chby: Signal<Local, Bits<21>>,
        // axis unit
        ax_y: Signal<Local, Bit>,
        ax_p: Signal<Local, Signed<24>>,
        ax_pb: Signal<Local, Bits<24>>,
        ax_pe: Signal<Local, Bits<26>>,
        ax_two: Signal<Local, Signed<26>>,
        ax_slo: Signal<Local, Signed<26>>,
        ax_shi: Signal<Local, Signed<26>>,
        ax_a0raw: Signal<Local, Signed<21>>,
        ax_a1raw: Signal<Local, Signed<21>>,
        ax_a0b: Signal<Local, Bits<21>>,
        ax_a1b: Signal<Local, Bits<21>>,
        ax_a0: Signal<Local, Signed<21>>,
        ax_a1: Signal<Local, Signed<21>>,
        ax_cl: Signal<Local, Signed<21>>,
        ax_ch: Signal<Local, Signed<21>>,
        ax_a0c: Signal<Local, Signed<21>>,
        ax_a1c: Signal<Local, Signed<21>>,
        ax_emp: Signal<Local, Bit>,
        ax_b0: Signal<Local, Bits<21>>,
        ax_b1: Signal<Local, Bits<21>>,
        ax_q0: Signal<Local, Bits<12>>,
        ax_q1: Signal<Local, Bits<12>>,
        // scan
        sc_adv: Signal<Local, Bit>,
        sc_endrow: Signal<Local, Bit>,
        sc_lastrow: Signal<Local, Bit>,
        sc_final: Signal<Local, Bit>,
        sc_inr: Signal<Local, Bit>,
        sc_mlox: Signal<Local, Bits<64>>,
        sc_mhix: Signal<Local, Bits<64>>,
        sc_mloy: Signal<Local, Bits<64>>,
        sc_mhiy: Signal<Local, Bits<64>>,
        sc_fc0x: Signal<Local, Bits<64>>,
        sc_fc1x: Signal<Local, Bits<64>>,
        sc_lc0x: Signal<Local, Bits<64>>,
        sc_lc1x: Signal<Local, Bits<64>>,
        sc_fc0y: Signal<Local, Bits<64>>,
        sc_fc1y: Signal<Local, Bits<64>>,
        sc_lc0y: Signal<Local, Bits<64>>,
        sc_lc1y: Signal<Local, Bits<64>>,
        sc_r0a: Signal<Local, Bits<64>>,
        sc_r0b: Signal<Local, Bits<64>>,
        sc_r1a: Signal<Local, Bits<64>>,
        sc_r1b: Signal<Local, Bits<64>>,
        sc_r0: Signal<Local, Bits<64>>,
        sc_r1: Signal<Local, Bits<64>>,
        sc_lok: [Signal<Local, Bit>; 4],
        sc_in: [Signal<Local, Bit>; 4],
        sc_ca0: [Signal<Local, Bits<64>>; 4],
        sc_cb0: [Signal<Local, Bits<64>>; 4],
        sc_ca1: [Signal<Local, Bits<64>>; 4],
        sc_cb1: [Signal<Local, Bits<64>>; 4],
        sc_c0: [Signal<Local, Bits<64>>; 4],
        sc_c1: [Signal<Local, Bits<64>>; 4],
        sc_m: [Signal<Local, Bits<64>>; 4],
        sc_v: [Signal<Local, Bit>; 4],
        sc_qx: [Signal<Local, Bits<12>>; 4],
        sc_qy: [Signal<Local, Bits<12>>; 4],
        sc_lv: Signal<Local, Bits<4>>,
        sc_emit: Signal<Local, Bit>,
    }
}

impl PointRaster {
    /// The block elaborated for a preset: every preset value enters as a constant.
    pub fn new(cfg: &Config) -> Self {
        let (ge, le) = edge_sample_tables(cfg.msaa);
        let s = cfg.msaa as u64;
        let k8 = |v: u64| Constant::new(Bits::<8>::from(v));
        let k17 = |v: u32| Constant::new(Bits::<17>::from(v as u64));
        // A 26-bit two's-complement constant.
        let k26 = |v: i64| Constant::new(Bits::<26>::from((v as u64) & 0x3ff_ffff));
        let m = cfg.max_point_size as i64;
        let tab = |t: [u16; 16]| std::array::from_fn(|v| Constant::new(Bits::<64>::from(t[v] as u64)));
        PointRaster {
            clock: Default::default(),
            flush: Default::default(),
            in_valid: Default::default(),
            in_ready: Default::default(),
            inp: Default::default(),
            out_valid: Default::default(),
            out_ready: Default::default(),
            out: Default::default(),
            c_q: k8(cfg.quads_per_clock as u64),
            c_s1: k8(s),
            c_s2: k8(2 * s),
            c_s3: k8(3 * s),
            c_full: Constant::new((samples::pixel_full_mask(cfg.msaa) as u64).into()),
            c_tsx: k8(cfg.tile[0].trailing_zeros() as u64),
            c_tsy: k8(cfg.tile[1].trailing_zeros() as u64),
            c_tw: k17(cfg.tile[0]),
            c_th: k17(cfg.tile[1]),
            c_vw: k17(cfg.viewport[0]),
            c_vh: k17(cfg.viewport[1]),
            // With M = max_point_size and N = clamp((size + 128) >> 8, 1, M): N = 1 iff
            // size < 384 (c_n1), N = M iff size ≥ 256·M + 128 (c_nmax), and otherwise
            // 256(N − 1) = (size − 128) & !0xff and −256(N − 1) = (383 − size) & !0xff.
            c_383: k26(383),
            c_128: k26(128),
            c_31: k26(31),
            c_1: k26(1),
            c_pxmask: k26(0x3ff_ff00),
            c_n1: k26(384),
            c_nmax: k26(256 * m + 128),
            c_max_s: k26(256 * m),
            c_klo_nmax: k26(-256 * (m - 1)),
            c_khi_nmax: k26(256 * (m - 1)),
            c_klo_smax: k26(31 - 256 * m),
            c_khi_smax: k26(256 * m - 1),
            c_sext: Constant::new(0x300_0000u64.into()),
            c_lo_clr: Constant::new(0x1f_fff0u64.into()),
            c_hi_set: Constant::new(0xfu64.into()),
            c_lane: std::array::from_fn(|l| k8(l as u64)),
            c_lane12: std::array::from_fn(|l| Constant::new(Bits::<12>::from(l as u64))),
            c_lane0: std::array::from_fn(|l| Constant::new(l == 0)),
            c_v: std::array::from_fn(|v| Constant::new(Bits::<4>::from(v as u64))),
            c_gex: tab(ge[0]),
            c_lex: tab(le[0]),
            c_gey: tab(ge[1]),
            c_ley: tab(le[1]),
            st: Default::default(),
            prim_r: Default::default(),
            clx_r: Default::default(),
            chx_r: Default::default(),
            cly_r: Default::default(),
            chy_r: Default::default(),
            px_r: Default::default(),
            py_r: Default::default(),
            klo_r: Default::default(),
            khi_r: Default::default(),
            aa_r: Default::default(),
            q0x_r: Default::default(),
            nqx_r: Default::default(),
            p0ox_r: Default::default(),
            p1ox_r: Default::default(),
            lo4x_r: Default::default(),
            hi4x_r: Default::default(),
            emx_r: Default::default(),
            p0oy_r: Default::default(),
            p1oy_r: Default::default(),
            lo4y_r: Default::default(),
            hi4y_r: Default::default(),
            cur_x: Default::default(),
            rem_x: Default::default(),
            col_first: Default::default(),
            cur_y: Default::default(),
            rem_y: Default::default(),
            row_first: Default::default(),
            empty_r: Default::default(),
            ov: Default::default(),
            oprim: Default::default(),
            okind: Default::default(),
            olv: Default::default(),
            olast: Default::default(),
            oqx: Default::default(),
            oqy: Default::default(),
            omask: Default::default(),
            a_u: Default::default(),
            a_klo: Default::default(),
            a_khi: Default::default(),
            a_accept: Default::default(),
            a_orgx: Default::default(),
            a_orgy: Default::default(),
            a_endx: Default::default(),
            a_endy: Default::default(),
            a_vendx: Default::default(),
            a_vendy: Default::default(),
            a_chbx: Default::default(),
            a_chby: Default::default(),
            ax_y: Default::default(),
            ax_p: Default::default(),
            ax_pb: Default::default(),
            ax_pe: Default::default(),
            ax_two: Default::default(),
            ax_slo: Default::default(),
            ax_shi: Default::default(),
            ax_a0raw: Default::default(),
            ax_a1raw: Default::default(),
            ax_a0b: Default::default(),
            ax_a1b: Default::default(),
            ax_a0: Default::default(),
            ax_a1: Default::default(),
            ax_cl: Default::default(),
            ax_ch: Default::default(),
            ax_a0c: Default::default(),
            ax_a1c: Default::default(),
            ax_emp: Default::default(),
            ax_b0: Default::default(),
            ax_b1: Default::default(),
            ax_q0: Default::default(),
            ax_q1: Default::default(),
            sc_adv: Default::default(),
            sc_endrow: Default::default(),
            sc_lastrow: Default::default(),
            sc_final: Default::default(),
            sc_inr: Default::default(),
            sc_mlox: Default::default(),
            sc_mhix: Default::default(),
            sc_mloy: Default::default(),
            sc_mhiy: Default::default(),
            sc_fc0x: Default::default(),
            sc_fc1x: Default::default(),
            sc_lc0x: Default::default(),
            sc_lc1x: Default::default(),
            sc_fc0y: Default::default(),
            sc_fc1y: Default::default(),
            sc_lc0y: Default::default(),
            sc_lc1y: Default::default(),
            sc_r0a: Default::default(),
            sc_r0b: Default::default(),
            sc_r1a: Default::default(),
            sc_r1b: Default::default(),
            sc_r0: Default::default(),
            sc_r1: Default::default(),
            sc_lok: Default::default(),
            sc_in: Default::default(),
            sc_ca0: Default::default(),
            sc_cb0: Default::default(),
            sc_ca1: Default::default(),
            sc_cb1: Default::default(),
            sc_c0: Default::default(),
            sc_c1: Default::default(),
            sc_m: Default::default(),
            sc_v: Default::default(),
            sc_qx: Default::default(),
            sc_qy: Default::default(),
            sc_lv: Default::default(),
            sc_emit: Default::default(),
        }
    }
}

impl Logic for PointRaster {
    #[hdl_gen]
    fn update(&mut self) {
        dff_setup!(
            self, clock, st, prim_r, clx_r, chx_r, cly_r, chy_r, px_r, py_r, klo_r, khi_r, aa_r, q0x_r, nqx_r, p0ox_r,
            p1ox_r, lo4x_r, hi4x_r, emx_r, p0oy_r, p1oy_r, lo4y_r, hi4y_r, cur_x, rem_x, col_first, cur_y, rem_y,
            row_first, empty_r, ov, oprim, okind, olv, olast
        );
        for l in 0..4 {
            self.oqx[l].clock.next = self.clock.val();
            self.oqy[l].clock.next = self.clock.val();
            self.omask[l].clock.next = self.clock.val();
            self.oqx[l].d.next = self.oqx[l].q.val();
            self.oqy[l].d.next = self.oqy[l].q.val();
            self.omask[l].d.next = self.omask[l].q.val();
        }

        // ---- accept stage: the axis adder constants K_lo, K_hi, from the ports. Every
        // candidate is one adder or one compare away from `in_size`, all side by side, then a
        // mux (this stage sits behind the command buffer's RAM in the FPGA tops, where a
        // chain add → clamp → subtract → negate was the critical path).
        self.a_u.next = bit_cast::<26, 24>(self.inp.size.val());
        // AA off: K_lo = −256(N − 1), K_hi = 256(N − 1).
        self.a_klo.next = (self.c_383.val() - self.a_u.val()) & self.c_pxmask.val();
        self.a_khi.next = (self.a_u.val() - self.c_128.val()) & self.c_pxmask.val();
        if self.a_u.val() < self.c_n1.val() {
            self.a_klo.next = 0u64.into();
            self.a_khi.next = 0u64.into();
        }
        if self.a_u.val() >= self.c_nmax.val() {
            self.a_klo.next = self.c_klo_nmax.val();
            self.a_khi.next = self.c_khi_nmax.val();
        }
        // AA on: with s = min(size, 256·M), K_lo = 31 − s, K_hi = s − 1.
        if self.inp.aa.val() {
            self.a_klo.next = self.c_31.val() - self.a_u.val();
            self.a_khi.next = self.a_u.val() - self.c_1.val();
            if self.a_u.val() > self.c_max_s.val() {
                self.a_klo.next = self.c_klo_smax.val();
                self.a_khi.next = self.c_khi_smax.val();
            }
        }

        // Clip bounds of both axes, registered at accept (off the SX/SY path).
        self.a_orgx.next = bit_cast::<16, 8>(self.inp.tile_x.val()) << self.c_tsx.val();
        self.a_orgy.next = bit_cast::<16, 8>(self.inp.tile_y.val()) << self.c_tsy.val();
        self.a_endx.next = bit_cast::<17, 16>(self.a_orgx.val()) + self.c_tw.val();
        self.a_endy.next = bit_cast::<17, 16>(self.a_orgy.val()) + self.c_th.val();
        self.a_vendx.next = self.a_endx.val();
        if self.c_vw.val() < self.a_endx.val() {
            self.a_vendx.next = self.c_vw.val();
        }
        self.a_vendy.next = self.a_endy.val();
        if self.c_vh.val() < self.a_endy.val() {
            self.a_vendy.next = self.c_vh.val();
        }
        self.a_chbx.next = (bit_cast::<21, 17>(self.a_vendx.val()) << 4u64) - 1u64;
        self.a_chby.next = (bit_cast::<21, 17>(self.a_vendy.val()) << 4u64) - 1u64;

        // ---- axis unit: x in SX, y in SY.
        self.ax_y.next = self.st.q.val() == PointState::Sy;
        self.ax_p.next = self.px_r.q.val();
        self.ax_cl.next = self.clx_r.q.val();
        self.ax_ch.next = self.chx_r.q.val();
        if self.ax_y.val() {
            self.ax_p.next = self.py_r.q.val();
            self.ax_cl.next = self.cly_r.q.val();
            self.ax_ch.next = self.chy_r.q.val();
        }
        // 2p, sign-extended by hand (rust-hdl's `signed_bit_cast` recurses forever on −2^23).
        self.ax_pb.next = unsigned_cast(self.ax_p.val());
        self.ax_pe.next = bit_cast::<26, 24>(self.ax_pb.val());
        if self.ax_pb.val().get_bit(23) {
            self.ax_pe.next = bit_cast::<26, 24>(self.ax_pb.val()) | self.c_sext.val();
        }
        self.ax_two.next = signed_cast(self.ax_pe.val() << 1u64);
        self.ax_slo.next = self.ax_two.val() + self.klo_r.q.val();
        self.ax_shi.next = self.ax_two.val() + self.khi_r.q.val();
        self.ax_a0raw.next = self.ax_slo.val().get_bits::<21>(5);
        self.ax_a1raw.next = self.ax_shi.val().get_bits::<21>(5);
        self.ax_a0b.next = unsigned_cast(self.ax_a0raw.val());
        self.ax_a1b.next = unsigned_cast(self.ax_a1raw.val());
        if !self.aa_r.q.val() {
            self.ax_a0b.next = unsigned_cast(self.ax_a0raw.val()) & self.c_lo_clr.val();
            self.ax_a1b.next = unsigned_cast(self.ax_a1raw.val()) | self.c_hi_set.val();
        }
        self.ax_a0.next = signed_cast(self.ax_a0b.val());
        self.ax_a1.next = signed_cast(self.ax_a1b.val());
        self.ax_a0c.next = self.ax_a0.val();
        if self.ax_a0.val() < self.ax_cl.val() {
            self.ax_a0c.next = self.ax_cl.val();
        }
        self.ax_a1c.next = self.ax_a1.val();
        if self.ax_a1.val() > self.ax_ch.val() {
            self.ax_a1c.next = self.ax_ch.val();
        }
        // Clipped range empty: max(a0, cl) > min(a1, ch), as four compares side by side rather
        // than a compare of the two clipped values (one carry chain less on the SX/SY path).
        self.ax_emp.next = (self.ax_a0.val() > self.ax_a1.val())
            | (self.ax_a0.val() > self.ax_ch.val())
            | (self.ax_cl.val() > self.ax_a1.val())
            | (self.ax_cl.val() > self.ax_ch.val());
        self.ax_b0.next = unsigned_cast(self.ax_a0c.val());
        self.ax_b1.next = unsigned_cast(self.ax_a1c.val());
        self.ax_q0.next = self.ax_b0.val().get_bits::<12>(5);
        self.ax_q1.next = self.ax_b1.val().get_bits::<12>(5);

        // ---- scan step.
        self.sc_adv.next = !self.ov.q.val() | self.out_ready.val();
        self.sc_endrow.next = self.rem_x.q.val() < self.c_q.val();
        self.sc_lastrow.next = !self.rem_y.q.val().any();
        self.sc_final.next = self.empty_r.q.val() | (self.sc_endrow.val() & self.sc_lastrow.val());
        // Edge samples: at or right of / left of the in-pixel thresholds (tables per preset).
        self.sc_mlox.next = self.c_gex[0].val();
        self.sc_mhix.next = self.c_lex[0].val();
        self.sc_mloy.next = self.c_gey[0].val();
        self.sc_mhiy.next = self.c_ley[0].val();
        for v in 1..16 {
            if self.lo4x_r.q.val() == self.c_v[v].val() {
                self.sc_mlox.next = self.c_gex[v].val();
            }
            if self.hi4x_r.q.val() == self.c_v[v].val() {
                self.sc_mhix.next = self.c_lex[v].val();
            }
            if self.lo4y_r.q.val() == self.c_v[v].val() {
                self.sc_mloy.next = self.c_gey[v].val();
            }
            if self.hi4y_r.q.val() == self.c_v[v].val() {
                self.sc_mhiy.next = self.c_ley[v].val();
            }
        }
        // The seed's span cases: first quad (odd first pixel: right / upper pixel only), last
        // quad (even last pixel: left / lower pixel only).
        self.sc_fc0x.next = self.sc_mlox.val();
        self.sc_fc1x.next = self.c_full.val();
        if self.p0ox_r.q.val() {
            self.sc_fc0x.next = 0u64.into();
            self.sc_fc1x.next = self.sc_mlox.val();
        }
        self.sc_lc0x.next = self.sc_mhix.val();
        self.sc_lc1x.next = 0u64.into();
        if self.p1ox_r.q.val() {
            self.sc_lc0x.next = self.c_full.val();
            self.sc_lc1x.next = self.sc_mhix.val();
        }
        self.sc_fc0y.next = self.sc_mloy.val();
        self.sc_fc1y.next = self.c_full.val();
        if self.p0oy_r.q.val() {
            self.sc_fc0y.next = 0u64.into();
            self.sc_fc1y.next = self.sc_mloy.val();
        }
        self.sc_lc0y.next = self.sc_mhiy.val();
        self.sc_lc1y.next = 0u64.into();
        if self.p1oy_r.q.val() {
            self.sc_lc0y.next = self.c_full.val();
            self.sc_lc1y.next = self.sc_mhiy.val();
        }
        // Row masks of the current quad row (pixel rows 0 and 1).
        self.sc_r0a.next = self.c_full.val();
        self.sc_r1a.next = self.c_full.val();
        if self.row_first.q.val() {
            self.sc_r0a.next = self.sc_fc0y.val();
            self.sc_r1a.next = self.sc_fc1y.val();
        }
        self.sc_r0b.next = self.c_full.val();
        self.sc_r1b.next = self.c_full.val();
        if self.sc_lastrow.val() {
            self.sc_r0b.next = self.sc_lc0y.val();
            self.sc_r1b.next = self.sc_lc1y.val();
        }
        self.sc_r0.next = self.sc_r0a.val() & self.sc_r0b.val();
        self.sc_r1.next = self.sc_r1a.val() & self.sc_r1b.val();
        // Lanes: quad cur_x + l of the row.
        // Lane l holds a quad of the range iff l < Q and l ≤ rem_x (lane 0 always; written
        // apart so that no comparison is constant).
        self.sc_in[0].next = !self.empty_r.q.val();
        for l in 1..4 {
            self.sc_in[l].next = (self.c_lane[l].val() < self.c_q.val())
                & (self.c_lane[l].val() <= self.rem_x.q.val())
                & !self.empty_r.q.val();
        }
        for l in 0..4 {
            self.sc_lok[l].next = self.c_lane[l].val() < self.c_q.val();
            self.sc_ca0[l].next = self.c_full.val();
            self.sc_ca1[l].next = self.c_full.val();
            if self.col_first.q.val() & self.c_lane0[l].val() {
                self.sc_ca0[l].next = self.sc_fc0x.val();
                self.sc_ca1[l].next = self.sc_fc1x.val();
            }
            self.sc_cb0[l].next = self.c_full.val();
            self.sc_cb1[l].next = self.c_full.val();
            if self.rem_x.q.val() == self.c_lane[l].val() {
                self.sc_cb0[l].next = self.sc_lc0x.val();
                self.sc_cb1[l].next = self.sc_lc1x.val();
            }
            self.sc_c0[l].next = self.sc_ca0[l].val() & self.sc_cb0[l].val();
            self.sc_c1[l].next = self.sc_ca1[l].val() & self.sc_cb1[l].val();
            self.sc_m[l].next = 0u64.into();
            if self.sc_in[l].val() {
                self.sc_m[l].next = (self.sc_c0[l].val() & self.sc_r0.val())
                    | ((self.sc_c1[l].val() & self.sc_r0.val()) << self.c_s1.val())
                    | ((self.sc_c0[l].val() & self.sc_r1.val()) << self.c_s2.val())
                    | ((self.sc_c1[l].val() & self.sc_r1.val()) << self.c_s3.val());
            }
            self.sc_v[l].next = self.sc_m[l].val().any();
            self.sc_qx[l].next = 0u64.into();
            self.sc_qy[l].next = 0u64.into();
            if self.sc_lok[l].val() {
                self.sc_qx[l].next = self.cur_x.q.val() + self.c_lane12[l].val();
                self.sc_qy[l].next = self.cur_y.q.val();
            }
        }
        self.sc_lv.next = self.c_v[0]
            .val()
            .replace_bit(0, self.sc_v[0].val())
            .replace_bit(1, self.sc_v[1].val())
            .replace_bit(2, self.sc_v[2].val())
            .replace_bit(3, self.sc_v[3].val());
        self.sc_emit.next = self.sc_lv.val().any() | self.sc_final.val();

        // ---- handshake and registers.
        self.sc_inr.next = (self.st.q.val() == PointState::Idle)
            | ((self.st.q.val() == PointState::Scan) & self.sc_final.val() & self.sc_adv.val());
        self.in_ready.next = self.sc_inr.val();
        self.a_accept.next = self.in_valid.val() & self.sc_inr.val();
        if self.ov.q.val() & self.out_ready.val() {
            self.ov.d.next = false;
        }
        if self.st.q.val() == PointState::Sx {
            self.q0x_r.d.next = self.ax_q0.val();
            self.nqx_r.d.next = bit_cast::<8, 12>(self.ax_q1.val() - self.ax_q0.val());
            self.p0ox_r.d.next = self.ax_b0.val().get_bit(4);
            self.p1ox_r.d.next = self.ax_b1.val().get_bit(4);
            self.lo4x_r.d.next = self.ax_b0.val().get_bits::<4>(0);
            self.hi4x_r.d.next = self.ax_b1.val().get_bits::<4>(0);
            self.emx_r.d.next = self.ax_emp.val();
            self.st.d.next = PointState::Sy;
        }
        if self.st.q.val() == PointState::Sy {
            self.p0oy_r.d.next = self.ax_b0.val().get_bit(4);
            self.p1oy_r.d.next = self.ax_b1.val().get_bit(4);
            self.lo4y_r.d.next = self.ax_b0.val().get_bits::<4>(0);
            self.hi4y_r.d.next = self.ax_b1.val().get_bits::<4>(0);
            self.cur_x.d.next = self.q0x_r.q.val();
            self.rem_x.d.next = self.nqx_r.q.val();
            self.col_first.d.next = true;
            self.cur_y.d.next = self.ax_q0.val();
            self.rem_y.d.next = bit_cast::<8, 12>(self.ax_q1.val() - self.ax_q0.val());
            self.row_first.d.next = true;
            self.empty_r.d.next = self.emx_r.q.val() | self.ax_emp.val();
            self.st.d.next = PointState::Scan;
        }
        if (self.st.q.val() == PointState::Scan) & self.sc_adv.val() {
            self.ov.d.next = self.sc_emit.val();
            if self.sc_emit.val() {
                self.oprim.d.next = self.prim_r.q.val();
                self.okind.d.next = true;
                self.olv.d.next = self.sc_lv.val();
                self.olast.d.next = self.sc_final.val();
                for l in 0..4 {
                    self.oqx[l].d.next = self.sc_qx[l].val();
                    self.oqy[l].d.next = self.sc_qy[l].val();
                    self.omask[l].d.next = self.sc_m[l].val();
                }
            }
            if self.sc_endrow.val() {
                self.cur_x.d.next = self.q0x_r.q.val();
                self.rem_x.d.next = self.nqx_r.q.val();
                self.col_first.d.next = true;
                self.cur_y.d.next = self.cur_y.q.val() + 1u64;
                self.rem_y.d.next = self.rem_y.q.val() - 1u64;
                self.row_first.d.next = false;
            } else {
                self.cur_x.d.next = self.cur_x.q.val() + bit_cast::<12, 8>(self.c_q.val());
                self.rem_x.d.next = self.rem_x.q.val() - self.c_q.val();
                self.col_first.d.next = false;
            }
            if self.sc_final.val() {
                self.st.d.next = PointState::Idle;
            }
        }
        if self.a_accept.val() {
            self.prim_r.d.next = self.inp.prim.val();
            self.clx_r.d.next = signed_cast(bit_cast::<21, 16>(self.a_orgx.val()) << 4u64);
            self.cly_r.d.next = signed_cast(bit_cast::<21, 16>(self.a_orgy.val()) << 4u64);
            self.chx_r.d.next = signed_cast(self.a_chbx.val());
            self.chy_r.d.next = signed_cast(self.a_chby.val());
            self.px_r.d.next = self.inp.v0x.val();
            self.py_r.d.next = self.inp.v0y.val();
            self.klo_r.d.next = signed_cast(self.a_klo.val());
            self.khi_r.d.next = signed_cast(self.a_khi.val());
            self.aa_r.d.next = self.inp.aa.val();
            self.st.d.next = PointState::Sx;
        }
        if self.flush.val() {
            self.st.d.next = PointState::Idle;
            self.ov.d.next = false;
            self.oprim.d.next = 0u64.into();
            self.okind.d.next = false;
            self.olv.d.next = 0u64.into();
            self.olast.d.next = false;
            for l in 0..4 {
                self.oqx[l].d.next = 0u64.into();
                self.oqy[l].d.next = 0u64.into();
                self.omask[l].d.next = 0u64.into();
            }
        }

        // ---- outputs (all from registers).
        self.out_valid.next = self.ov.q.val();
        self.out.prim.next = self.oprim.q.val();
        self.out.kind.next = self.okind.q.val();
        self.out.lane_valid.next = self.olv.q.val();
        self.out.last.next = self.olast.q.val();
        self.out.qx_0.next = self.oqx[0].q.val();
        self.out.qy_0.next = self.oqy[0].q.val();
        self.out.mask_0.next = self.omask[0].q.val();
        self.out.qx_1.next = self.oqx[1].q.val();
        self.out.qy_1.next = self.oqy[1].q.val();
        self.out.mask_1.next = self.omask[1].q.val();
        self.out.qx_2.next = self.oqx[2].q.val();
        self.out.qy_2.next = self.oqy[2].q.val();
        self.out.mask_2.next = self.omask[2].q.val();
        self.out.qx_3.next = self.oqx[3].q.val();
        self.out.qy_3.next = self.oqy[3].q.val();
        self.out.mask_3.next = self.omask[3].q.val();
    }
}

/// The block for `cfg` as Verilog, top module `name` (post-processed by [`emit::fix_verilog`]).
pub fn verilog(cfg: &Config, name: &str) -> String {
    emit::block_verilog(PointRaster::new(cfg), name)
}
