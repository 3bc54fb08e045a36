//! Sub-tile coverage (seed 000, claims 8–10): the finer test of each candidate sub-tile from the
//! tile parser, trivial accept, and dropping of rejected sub-tiles.
//!
//! Cycle model: [`tilerast_golden::subtile_coverage::SubtileCoverageCycle`] (same registers);
//! its rustdoc is the block's timing contract (latency, throughput, back-pressure), stated once.
//!
//! **Ports.** `clock`, `flush` (synchronous: every register returns to 0, i.e. idle).
//! In: `in_valid`/`in_ready` with `inp` ([`crate::streams::CandIn`], the `cand` stream).
//! Out: `out_valid`/`out_ready` with `out` ([`crate::streams::JobOut`], the `job` stream: the
//! same fields plus `trivial`). Fields: [`tilerast_golden::for_each_stream!`].
//!
//! **Test** (bit-exact with golden `subtile_coverage::classify_tile`, all three
//! `cfg.coverage_test` modes; the mode enters as constants, yosys keeps only the selected one):
//! the sub-tile rectangle is clipped to the viewport like golden's: column `col` is clipped iff
//! `viewport_w % SW != 0` and `col ≥ vis_w / SW`, and then it is `RW = viewport_w % SW` pixels
//! wide (tiles are multiples of SW, so a clipped sub-tile always has that width); same for rows.
//! With w = SW or RW, h = SH or RH, and `(ob0, ob1, ob2, ob3)` = `sample_offset_bounds(msaa)`, the
//! corner offsets from the origin (1/256 px) are: area `x ∈ {0, w·256}`, sample hull
//! `x ∈ {ob0, (w−1)·256 + ob2}` (same for y). Per edge, E at the needed corners is
//! `E + (a·dx) + (b·dy)` with a·w·256 = `a << (8 + log2 SW)` (or Σ of shifted a over RW's bits when
//! clipped), a·ob0 = `a << log2 ob0` (or 0), a·hull_right = a·w·256 − `a << log2(256 − ob2)`:
//! shifts and adds only, no multiplier. Offsets are computed in 42 bits (|a|, |b| < 2^23,
//! |dx|, |dy| ≤ 2^16), sign-extended from `offset_bits(cfg)` bits, added to E, and the sum's sign
//! is read at bit `eb − 1` of `tile_parser::edge_widths(cfg)` (the sums are E at points inside
//! the viewport, which fit); yosys prunes everything above. The job's E / a / b registers are
//! sign-extended from `eb` / `cb` bits like the tile parser's.
//! - `Edge` (claim 8): covered iff for every edge E at the area corner where it is largest ≥ 0;
//! - `Samples` (claim 9): covered iff for every edge some hull corner ≥ 0 (= max over the hull);
//! - `BboxOnly`: always covered, never trivial.
//! - Trivial accept (`Edge`, `Samples`): every edge ≥ 0 at the hull corner where it is smallest.
//!
//! A rejected candidate is dropped, unless it carries `last`: then one job with `none = 1,
//! last = 1` goes out, so every command still ends with exactly one `last`. A `none` candidate
//! passes as a `none` job. `trivial = covered & all hull minima ≥ 0 & !none`.
//!
//! **Handshake.** One output register stage (the job registers): `in_ready = !out_valid |
//! out_ready`, the only combinational input → output path. `out_valid` loads `covered | in_last`;
//! the payload registers load on every accepted candidate, dropped or not.
//!
//! `cfg.coverage_test` modes other than `Edge` are supported too (the presets use `Edge`).
//! Measured sizes: only the generated per-block table in docs/measurements.md ("FPGA").
//!
//! ```text
//!   in_e*,a*,b* ──► EdgeTest ×3 ──covered_k, all_in_k──┐
//!   in_col,vis_w ─► clip_x/clip_y ─┘                    ▼
//!   in_* ───────────────────────────────────────► [job regs] ──► out_* , out_trivial
//!   in_ready = !out_valid | out_ready       valid' = covered | in_last
//! ```

use crate::emit;
use crate::streams::{JobOut, JobReg};
use crate::util::{Sext24, Sext48};
use rust_hdl::prelude::*;
use tilerast_golden::config::{Config, CoverageTest};
use tilerast_golden::subtile_coverage::{offset_bits, sample_offset_bounds};
use tilerast_golden::tile_parser::edge_widths;

/// Shift amount and enable mask of `x · v` for `v` = 0 or a power of two.
fn pow2_term(v: i64, what: &str) -> (u64, u64) {
    match v {
        0 => (0, 0),
        v if v > 0 && (v as u64).is_power_of_two() => (v.trailing_zeros() as u64, (1u64 << 42) - 1),
        _ => panic!("subtile_coverage: {what} = {v} must be 0 or a power of two (sample table changed?)"),
    }
}

/// The per-edge evaluator: is the edge's half-plane meeting the sub-tile (`covered`), and are
/// all its samples inside it (`all_in`)? Combinational.
#[derive(LogicBlock)]
pub struct EdgeTest {
    /// Biased E at the sub-tile origin.
    pub e: Signal<In, Signed<48>>,
    pub a: Signal<In, Signed<24>>,
    pub b: Signal<In, Signed<24>>,
    /// The sub-tile is clipped by the viewport's right / top edge.
    pub clip_x: Signal<In, Bit>,
    pub clip_y: Signal<In, Bit>,
    /// Some point of the tested box is inside this edge (mode-dependent, see the header).
    pub covered: Signal<Out, Bit>,
    /// Every sample of the sub-tile is inside this edge.
    pub all_in: Signal<Out, Bit>,

    sx_full: Constant<Bits<8>>,
    sy_full: Constant<Bits<8>>,
    mx0: Constant<Bits<42>>,
    mx1: Constant<Bits<42>>,
    mx2: Constant<Bits<42>>,
    mx3: Constant<Bits<42>>,
    mx4: Constant<Bits<42>>,
    mx5: Constant<Bits<42>>,
    mx6: Constant<Bits<42>>,
    mx7: Constant<Bits<42>>,
    my0: Constant<Bits<42>>,
    my1: Constant<Bits<42>>,
    my2: Constant<Bits<42>>,
    my3: Constant<Bits<42>>,
    my4: Constant<Bits<42>>,
    my5: Constant<Bits<42>>,
    my6: Constant<Bits<42>>,
    my7: Constant<Bits<42>>,
    sx_lo: Constant<Bits<8>>,
    sy_lo: Constant<Bits<8>>,
    m_lo_x: Constant<Bits<42>>,
    m_lo_y: Constant<Bits<42>>,
    sx_hi: Constant<Bits<8>>,
    sy_hi: Constant<Bits<8>>,
    mode_edge: Constant<Bit>,
    mode_bbox: Constant<Bit>,
    zero42: Constant<Bits<42>>,
    e_sign: Constant<Bits<48>>,
    zero48: Constant<Bits<48>>,

    ax: Signal<Local, Signed<42>>,
    bx: Signal<Local, Signed<42>>,
    au: Signal<Local, Bits<42>>,
    bu: Signal<Local, Bits<42>>,
    eu: Signal<Local, Bits<48>>,
    px_clip: Signal<Local, Bits<42>>,
    py_clip: Signal<Local, Bits<42>>,
    px_area: Signal<Local, Bits<42>>,
    py_area: Signal<Local, Bits<42>>,
    px_lo: Signal<Local, Bits<42>>,
    py_lo: Signal<Local, Bits<42>>,
    px_hi: Signal<Local, Bits<42>>,
    py_hi: Signal<Local, Bits<42>>,
    tx_max: Signal<Local, Bits<42>>,
    ty_max: Signal<Local, Bits<42>>,
    tx_min: Signal<Local, Bits<42>>,
    ty_min: Signal<Local, Bits<42>>,
    off_max: Signal<Local, Bits<42>>,
    off_min: Signal<Local, Bits<42>>,
    off_max_x: Signal<Local, Signed<48>>,
    off_min_x: Signal<Local, Signed<48>>,
    e_max: Signal<Local, Bits<48>>,
    e_min: Signal<Local, Bits<48>>,
    sx_off_max: Sext48,
    sx_off_min: Sext48,
}

impl EdgeTest {
    /// The evaluator for `cfg` (sub-tile size, viewport remainder, sample bounds, mode).
    pub fn new(cfg: &Config) -> Self {
        let [sw, sh] = cfg.subtile;
        let (rw, rh) = (cfg.viewport[0] % sw, cfg.viewport[1] % sh);
        let ob = sample_offset_bounds(cfg.msaa);
        let (sx_lo, m_lo_x) = pow2_term(ob[0], "sample bound min X");
        let (sy_lo, m_lo_y) = pow2_term(ob[1], "sample bound min Y");
        let (sx_hi, _) = pow2_term(256 - ob[2], "256 - sample bound max X");
        let (sy_hi, _) = pow2_term(256 - ob[3], "256 - sample bound max Y");
        let m = |r: u32, k: u32| -> Constant<Bits<42>> {
            Constant::new(if r >> k & 1 == 1 { (1u64 << 42) - 1 } else { 0 }.into())
        };
        let c8 = |v: u64| -> Constant<Bits<8>> { Constant::new(v.into()) };
        let c42 = |v: u64| -> Constant<Bits<42>> { Constant::new(v.into()) };
        Self {
            e: Default::default(),
            a: Default::default(),
            b: Default::default(),
            clip_x: Default::default(),
            clip_y: Default::default(),
            covered: Default::default(),
            all_in: Default::default(),
            sx_full: c8(8 + sw.trailing_zeros() as u64),
            sy_full: c8(8 + sh.trailing_zeros() as u64),
            mx0: m(rw, 0),
            mx1: m(rw, 1),
            mx2: m(rw, 2),
            mx3: m(rw, 3),
            mx4: m(rw, 4),
            mx5: m(rw, 5),
            mx6: m(rw, 6),
            mx7: m(rw, 7),
            my0: m(rh, 0),
            my1: m(rh, 1),
            my2: m(rh, 2),
            my3: m(rh, 3),
            my4: m(rh, 4),
            my5: m(rh, 5),
            my6: m(rh, 6),
            my7: m(rh, 7),
            sx_lo: c8(sx_lo),
            sy_lo: c8(sy_lo),
            m_lo_x: c42(m_lo_x),
            m_lo_y: c42(m_lo_y),
            sx_hi: c8(sx_hi),
            sy_hi: c8(sy_hi),
            mode_edge: Constant::new(cfg.coverage_test == CoverageTest::Edge),
            mode_bbox: Constant::new(cfg.coverage_test == CoverageTest::BboxOnly),
            zero42: c42(0),
            e_sign: Constant::new((1u64 << (edge_widths(cfg).1 - 1)).into()),
            zero48: Constant::new(0u64.into()),
            ax: Default::default(),
            bx: Default::default(),
            au: Default::default(),
            bu: Default::default(),
            eu: Default::default(),
            px_clip: Default::default(),
            py_clip: Default::default(),
            px_area: Default::default(),
            py_area: Default::default(),
            px_lo: Default::default(),
            py_lo: Default::default(),
            px_hi: Default::default(),
            py_hi: Default::default(),
            tx_max: Default::default(),
            ty_max: Default::default(),
            tx_min: Default::default(),
            ty_min: Default::default(),
            off_max: Default::default(),
            off_min: Default::default(),
            off_max_x: Default::default(),
            off_min_x: Default::default(),
            e_max: Default::default(),
            e_min: Default::default(),
            sx_off_max: Sext48::new(offset_bits(cfg)),
            sx_off_min: Sext48::new(offset_bits(cfg)),
        }
    }
}

impl Logic for EdgeTest {
    #[hdl_gen]
    fn update(&mut self) {
        self.ax.next = signed_bit_cast::<42, 24>(self.a.val());
        self.bx.next = signed_bit_cast::<42, 24>(self.b.val());
        self.au.next = unsigned_cast(self.ax.val());
        self.bu.next = unsigned_cast(self.bx.val());
        self.eu.next = unsigned_cast(self.e.val());
        // a·RW·256 for a clipped column (RW < SW ≤ 256: its bits 0..7 select shifted copies).
        self.px_clip.next = ((self.au.val() << 8) & self.mx0.val())
            + ((self.au.val() << 9) & self.mx1.val())
            + ((self.au.val() << 10) & self.mx2.val())
            + ((self.au.val() << 11) & self.mx3.val())
            + ((self.au.val() << 12) & self.mx4.val())
            + ((self.au.val() << 13) & self.mx5.val())
            + ((self.au.val() << 14) & self.mx6.val())
            + ((self.au.val() << 15) & self.mx7.val());
        self.py_clip.next = ((self.bu.val() << 8) & self.my0.val())
            + ((self.bu.val() << 9) & self.my1.val())
            + ((self.bu.val() << 10) & self.my2.val())
            + ((self.bu.val() << 11) & self.my3.val())
            + ((self.bu.val() << 12) & self.my4.val())
            + ((self.bu.val() << 13) & self.my5.val())
            + ((self.bu.val() << 14) & self.my6.val())
            + ((self.bu.val() << 15) & self.my7.val());
        // a·w·256: the area's right edge offset times a.
        if self.clip_x.val() {
            self.px_area.next = self.px_clip.val();
        } else {
            self.px_area.next = self.au.val() << self.sx_full.val();
        }
        if self.clip_y.val() {
            self.py_area.next = self.py_clip.val();
        } else {
            self.py_area.next = self.bu.val() << self.sy_full.val();
        }
        // a·ob0 (hull left) and a·((w−1)·256 + ob2) (hull right).
        self.px_lo.next = (self.au.val() << self.sx_lo.val()) & self.m_lo_x.val();
        self.py_lo.next = (self.bu.val() << self.sy_lo.val()) & self.m_lo_y.val();
        self.px_hi.next = self.px_area.val() - (self.au.val() << self.sx_hi.val());
        self.py_hi.next = self.py_area.val() - (self.bu.val() << self.sy_hi.val());
        // Corner where E is largest (area for Edge, hull for Samples) and smallest (hull).
        if self.a.val().get_bit(23) {
            self.tx_min.next = self.px_hi.val();
            if self.mode_edge.val() {
                self.tx_max.next = self.zero42.val();
            } else {
                self.tx_max.next = self.px_lo.val();
            }
        } else {
            self.tx_min.next = self.px_lo.val();
            if self.mode_edge.val() {
                self.tx_max.next = self.px_area.val();
            } else {
                self.tx_max.next = self.px_hi.val();
            }
        }
        if self.b.val().get_bit(23) {
            self.ty_min.next = self.py_hi.val();
            if self.mode_edge.val() {
                self.ty_max.next = self.zero42.val();
            } else {
                self.ty_max.next = self.py_lo.val();
            }
        } else {
            self.ty_min.next = self.py_lo.val();
            if self.mode_edge.val() {
                self.ty_max.next = self.py_area.val();
            } else {
                self.ty_max.next = self.py_hi.val();
            }
        }
        // Offsets to the corners (|a|, |b| < 2^23, offsets ≤ 2^16: 42 bits hold them), then
        // sign-extended and added to E.
        self.off_max.next = self.tx_max.val() + self.ty_max.val();
        self.off_min.next = self.tx_min.val() + self.ty_min.val();
        self.off_max_x.next = signed_bit_cast::<48, 42>(signed_cast(self.off_max.val()));
        self.off_min_x.next = signed_bit_cast::<48, 42>(signed_cast(self.off_min.val()));
        // The offsets fit `offset_bits(cfg)` bits: sign-extend from there (yosys prunes above).
        self.sx_off_max.x.next = self.off_max_x.val();
        self.sx_off_min.x.next = self.off_min_x.val();
        self.e_max.next = self.eu.val() + unsigned_cast(self.sx_off_max.y.val());
        self.e_min.next = self.eu.val() + unsigned_cast(self.sx_off_min.y.val());
        // Sign at bit eb − 1 (`edge_widths`): the sums are exact there, bits above are pruned.
        self.covered.next = self.mode_bbox.val() | ((self.e_max.val() & self.e_sign.val()) == self.zero48.val());
        self.all_in.next = !self.mode_bbox.val() & ((self.e_min.val() & self.e_sign.val()) == self.zero48.val());
    }
}

tilerast_golden::subtile_coverage_streams! { crate::streams::stream_block;
    /// The sub-tile coverage block (see the module header).
    pub struct SubtileCoverage {
        sw_log: Constant<Bits<9>>,
        sh_log: Constant<Bits<9>>,
        clip_x_en: Constant<Bit>,
        clip_y_en: Constant<Bit>,

        et0: EdgeTest,
        et1: EdgeTest,
        et2: EdgeTest,
        sx_e0: Sext48,
        sx_e1: Sext48,
        sx_e2: Sext48,
        sx_a0: Sext24,
        sx_a1: Sext24,
        sx_a2: Sext24,
        sx_b0: Sext24,
        sx_b1: Sext24,
        sx_b2: Sext24,

        accept: Signal<Local, Bit>,
        clip_x: Signal<Local, Bit>,
        clip_y: Signal<Local, Bit>,
        covered: Signal<Local, Bit>,
        all_in: Signal<Local, Bit>,

        valid_r: DFF<Bit>,
        /// The job register (the output payload).
        job_r: JobReg,
    }
}

impl SubtileCoverage {
    /// The block for `cfg`. Every `cfg.coverage_test` mode is supported (selected by constants).
    pub fn new(cfg: &Config) -> Self {
        let [sw, sh] = cfg.subtile;
        let (cb, eb) = edge_widths(cfg);
        Self {
            clock: Default::default(),
            flush: Default::default(),
            in_valid: Default::default(),
            in_ready: Default::default(),
            inp: Default::default(),
            out_valid: Default::default(),
            out_ready: Default::default(),
            out: Default::default(),
            sw_log: Constant::new((sw.trailing_zeros() as u64).into()),
            sh_log: Constant::new((sh.trailing_zeros() as u64).into()),
            clip_x_en: Constant::new(!cfg.viewport[0].is_multiple_of(sw)),
            clip_y_en: Constant::new(!cfg.viewport[1].is_multiple_of(sh)),
            et0: EdgeTest::new(cfg),
            et1: EdgeTest::new(cfg),
            et2: EdgeTest::new(cfg),
            sx_e0: Sext48::new(eb),
            sx_e1: Sext48::new(eb),
            sx_e2: Sext48::new(eb),
            sx_a0: Sext24::new(cb),
            sx_a1: Sext24::new(cb),
            sx_a2: Sext24::new(cb),
            sx_b0: Sext24::new(cb),
            sx_b1: Sext24::new(cb),
            sx_b2: Sext24::new(cb),
            accept: Default::default(),
            clip_x: Default::default(),
            clip_y: Default::default(),
            covered: Default::default(),
            all_in: Default::default(),
            valid_r: Default::default(),
            job_r: Default::default(),
        }
    }
}

impl Logic for SubtileCoverage {
    #[hdl_gen]
    fn update(&mut self) {
        dff_setup!(self, clock, valid_r);
        self.in_ready.next = !self.valid_r.q.val() | self.out_ready.val();
        self.accept.next = self.in_valid.val() & (!self.valid_r.q.val() | self.out_ready.val());
        // Viewport clipping of this sub-tile: col ≥ vis_w / SW (only possible if the viewport
        // is not a multiple of the sub-tile size).
        self.clip_x.next = self.clip_x_en.val()
            & (bit_cast::<9, 8>(self.inp.col.val()) >= (self.inp.vis_w.val() >> self.sw_log.val()));
        self.clip_y.next = self.clip_y_en.val()
            & (bit_cast::<9, 8>(self.inp.row.val()) >= (self.inp.vis_h.val() >> self.sh_log.val()));
        self.et0.e.next = self.inp.e0.val();
        self.et0.a.next = self.inp.a0.val();
        self.et0.b.next = self.inp.b0.val();
        self.et0.clip_x.next = self.clip_x.val();
        self.et0.clip_y.next = self.clip_y.val();
        self.et1.e.next = self.inp.e1.val();
        self.et1.a.next = self.inp.a1.val();
        self.et1.b.next = self.inp.b1.val();
        self.et1.clip_x.next = self.clip_x.val();
        self.et1.clip_y.next = self.clip_y.val();
        self.et2.e.next = self.inp.e2.val();
        self.et2.a.next = self.inp.a2.val();
        self.et2.b.next = self.inp.b2.val();
        self.et2.clip_x.next = self.clip_x.val();
        self.et2.clip_y.next = self.clip_y.val();
        self.sx_e0.x.next = self.inp.e0.val();
        self.sx_e1.x.next = self.inp.e1.val();
        self.sx_e2.x.next = self.inp.e2.val();
        self.sx_a0.x.next = self.inp.a0.val();
        self.sx_a1.x.next = self.inp.a1.val();
        self.sx_a2.x.next = self.inp.a2.val();
        self.sx_b0.x.next = self.inp.b0.val();
        self.sx_b1.x.next = self.inp.b1.val();
        self.sx_b2.x.next = self.inp.b2.val();
        self.covered.next = self.et0.covered.val() & self.et1.covered.val() & self.et2.covered.val();
        self.all_in.next = self.et0.all_in.val() & self.et1.all_in.val() & self.et2.all_in.val();
        // The job register loads at accept (cleared by flush).
        self.job_r.clock.next = self.clock.val();
        self.job_r.load.next = self.accept.val();
        self.job_r.clear.next = self.flush.val();
        self.job_r.d.prim.next = self.inp.prim.val();
        self.job_r.d.tile_x.next = self.inp.tile_x.val();
        self.job_r.d.tile_y.next = self.inp.tile_y.val();
        self.job_r.d.col.next = self.inp.col.val();
        self.job_r.d.row.next = self.inp.row.val();
        self.job_r.d.e0.next = self.sx_e0.y.val();
        self.job_r.d.e1.next = self.sx_e1.y.val();
        self.job_r.d.e2.next = self.sx_e2.y.val();
        self.job_r.d.a0.next = self.sx_a0.y.val();
        self.job_r.d.a1.next = self.sx_a1.y.val();
        self.job_r.d.a2.next = self.sx_a2.y.val();
        self.job_r.d.b0.next = self.sx_b0.y.val();
        self.job_r.d.b1.next = self.sx_b1.y.val();
        self.job_r.d.b2.next = self.sx_b2.y.val();
        self.job_r.d.vis_w.next = self.inp.vis_w.val();
        self.job_r.d.vis_h.next = self.inp.vis_h.val();
        self.job_r.d.last.next = self.inp.last.val();
        self.job_r.d.none.next = self.inp.none.val() | !self.covered.val();
        self.job_r.d.trivial.next = self.covered.val() & self.all_in.val() & !self.inp.none.val();
        if self.accept.val() {
            self.valid_r.d.next = self.covered.val() | self.inp.last.val();
        } else if self.out_ready.val() {
            self.valid_r.d.next = false;
        }
        if self.flush.val() {
            self.valid_r.d.next = false;
        }
        self.out_valid.next = self.valid_r.q.val();
        JobOut::link(&mut self.out, &mut self.job_r.q);
    }
}

/// Verilog of the sub-tile coverage block for `cfg`, top module `name`, post-processed by
/// `emit::fix_verilog`.
pub fn verilog(cfg: &Config, name: &str) -> String {
    emit::block_verilog(SubtileCoverage::new(cfg), name)
}
