//! # sample_raster (seed 000: per-pixel per-sample masks, Q quads per clock)
//!
//! For every `job` (a covered first sub-tile) walks the sub-tile's quads in golden order (quad
//! rows bottom-up, in a row left → right), Q quads per cycle, and emits `beat`s with each quad's
//! 4·S-bit mask. Cycle model: [`tilerast_golden::sample_raster::SampleRasterCycle`] (same
//! registers; it evaluates the edges exactly in i64); its rustdoc is the block's timing
//! contract (latency, throughput, back-pressure), stated once.
//!
//! **Ports.** `clock`, `flush` (synchronous reset, every register to zero); in: `in_valid`/
//! `in_ready` with `inp` ([`crate::streams::JobIn`], the `job` stream); out: `out_valid`/
//! `out_ready` with `out` ([`crate::streams::BeatOut`], the `beat` stream). Fields: the one
//! declaration, [`tilerast_golden::for_each_stream!`].
//!
//! **Function.** Beat j of a job covers quad row r = j / BPR and quads c·Q .. c·Q + Q − 1 of it
//! (c = j mod BPR, BPR = (SW/2)/Q, NB = BPR·SH/2 beats). Lane l, pixel i (0 BL, 1 BR, 2 TL,
//! 3 TR), sample s: covered iff `trivial`, or for all three edges
//! E_sub + a·(px·256 + X_s·16) + b·(py·256 + Y_s·16) ≥ 0; pixels outside the viewport
//! (tile-relative x ≥ vis_w or y ≥ vis_h) and `none` jobs give 0. Lane valid iff mask ≠ 0.
//! A beat is emitted iff a lane is valid, or it is the final beat of a `last` job (then
//! `last` = 1, possibly with no lane); a `none` job is one (final) beat.
//!
//! **Arithmetic (exact, narrowed).** Every offset added to E_sub is a multiple of 16, so the block
//! works on u = ⌊E/16⌋ (`ec`, one per edge: u at the current beat's lane-0 quad origin). With the
//! guard band, |a| ≤ (H + 2g)·256 and |b| ≤ (W + 2g)·256, and every |offset|/16 inside a sub-tile
//! is < 2^M (`SampleRasterGeom::m`). At job load, u is clamped to [−2^M, 2^M) — exact for the
//! sign of u + offset, since a clamped u decides every sample alone — so every later value fits
//! W_u = M + 2 bits (two's complement, wrap-around adders: only the low W_u bits are kept).
//! Per edge and sample, G = ⌊(ec + d_s)/16⌋ (pixel units, W_g = M − 2 bits), and pixel i of
//! lane l tests the sign of G + (2l + (i&1))·a + (i>>1)·b. The sample offsets
//! d_s = a·X_s + b·Y_s are computed from the incoming job's a, b when it is accepted, by a
//! shift-add program shared across samples ([`Mcm`]: 5 adders per edge for the 4x table), and
//! registered (`dv`, which also keeps yosys from merging G's adder into a carry-save tree). The
//! lane/pixel multiples n = (2l + (i&1))·a + (i>>1)·b are signed-digit shift-adds, up to two
//! adders deep for lanes l ≥ 1 (7a + b = 8a − a + b); at Q ≥ 2 they too are computed from the
//! incoming job's a, b and registered at load (`nreg`, W_g bits per lane, pixel and edge), so
//! that a sign test is G's adder and one more; at Q = 1 (lane 0: 0, a, b, a + b) each lane adds
//! its own from the registered a, b. Stepping: + 32·Q·a
//! per beat, at a row end + 32·b − 32·Q·(BPR − 1)·a. ice40: W_u = 25, W_g = 21; per cycle
//! 12 G adders (25 bits) and 36 sign tests (21 bits; pixel 0 is G's own sign).
//! `trivial` only forces the full mask (the adders run anyway; the result is identical).
//!
//! **Structure.** The block keeps the handshake, the job load (clamp, shift-add program), the
//! ec stepping, the G adders (shared by all lanes), the viewport row/column tests and the
//! output registers; each lane's pixel multiples, sign tests and mask are one [`SampleLane`]
//! sub-block, instantiated Q times (`lanes`, Verilog instances `lanes__0` … of modules
//! `<parent>__lanes__<l>`: combinational, the lane's constants are its signed digits of
//! 2l, 2l + 1). The lanes' vector ports take two indices (`self.lanes[l].gg[i]`), which
//! rust-hdl's Verilog generator cannot resolve alone: the block's `hdl` goes through
//! [`emit::resolve_indices`].
//!
//! The sign-test carry chains dominate the block's size, then the G adders and the
//! sample-offset program with its registers; measured sizes: only the generated per-block
//! table in the "FPGA" section of docs/measurements.md.
//!
//! **Handshake.** `final = none | bcnt = NB − 1`, `can_out = !out_valid | out_ready`,
//! `in_ready = !busy | (can_out & final)` (the only combinational input → output path). A busy
//! block computes beat `bcnt` in every cycle with `can_out` and loads it into the output
//! register (`out_valid` = emitted); accepting the next job with the final beat is what makes
//! jobs follow without a bubble (timing contract:
//! [`tilerast_golden::sample_raster::SampleRasterCycle`]).
//!
//! ```text
//!  job ─► clamp E/16 ──────────────► ec[k] ──(+32Qa | row end: +32b−32Q(BPR−1)a)
//!     └─► a, b ─► shift-add program ─► dv[s][k] = a·X_s + b·Y_s      (registered at load)
//!             └─► lanes: n[l][i][k] ─► nreg (Q ≥ 2)  (registered at load)
//!         a, b regs ─► a·2^j, b ─────────────────────────┐
//!         G[s][k] = (ec[k] + dv[s][k]) >> 4 ─────────────┤  (shared by all lanes)
//!         viewport: x visible per lane, y visible ───────┤
//!                                                        ▼
//!   ┌─ lanes[l], l = 0..Q (SampleLane, combinational) ───────────────────────────┐
//!   │ n[i][k] = (2l+(i&1))·a + (i>>1)·b   (Q ≥ 2: nreg, from the loaded job's)   │
//!   │ cov[i,s] = trivial | ∧_k sign(G[s][k] + n[i][k]) = 0  (& visible, & !none) │
//!   │ ─► mask (4·S bits), valid = mask ≠ 0                                       │
//!   └────────────────────────────────────────────────────┬───────────────────────┘
//!                                                        └─► masks, lane_valid ─► out reg ─► beat
//! ```

use crate::emit;
use crate::util::{k, vec_of};
use rust_hdl::prelude::*;
use tilerast_golden::config::Config;
use tilerast_golden::sample_raster::SampleRasterGeom;
use tilerast_golden::samples;

tilerast_golden::sample_raster_streams! { crate::streams::stream_block;
    /// The sample rasterizer block. Build with [`SampleRaster::new`].
    pub struct SampleRaster {
        // ---- preset constants ----
        c_nbm1: Constant<Bits<8>>,
        c_bprm1: Constant<Bits<8>>,
        c_bsh: Constant<Bits<8>>,
        c_qsh: Constant<Bits<8>>,
        c_qwsh: Constant<Bits<8>>,
        c_qhsh: Constant<Bits<8>>,
        c_tqxsh: Constant<Bits<8>>,
        c_tqysh: Constant<Bits<8>>,
        c_tqxm: Constant<Bits<10>>,
        c_tqym: Constant<Bits<10>>,
        c_fsh: Constant<Bits<8>>,
        c_wumask: Constant<Bits<48>>,
        c_himask: Constant<Bits<48>>,
        c_chi: Constant<Bits<48>>,
        c_clo: Constant<Bits<48>>,
        c_amask: Constant<Bits<24>>,
        c_asgn: Constant<Bits<6>>,
        c_ahi: Constant<Bits<48>>,
        /// Q ≥ 2: the lanes' multiples come from the incoming job's a, b and are registered at
        /// load (`nreg`); Q = 1: from the registered a, b, each cycle.
        c_regn: Constant<Bit>,
        /// Sample offsets a·X_s + b·Y_s as a shift-add program ([`Mcm`]): op n computes node n + 2
        /// from nodes i1, i2 (`c_s1`/`c_s2`: one-hot over nodes, index n·N + m), shifts `c_h1`/`c_h2`,
        /// subtract if `c_sub`; sample s is node `c_ts` (one-hot, index s·N + m) shifted by `c_tsh`.
        c_s1: Vec<Constant<Bit>>,
        c_s2: Vec<Constant<Bit>>,
        c_h1: Vec<Constant<Bits<8>>>,
        c_h2: Vec<Constant<Bits<8>>>,
        c_sub: Vec<Constant<Bit>>,
        c_ts: Vec<Constant<Bit>>,
        c_tsh: Vec<Constant<Bits<8>>>,
        c_dmask: Constant<Bits<48>>,
        c_dsgn: Constant<Bits<6>>,
        c_dhi: Constant<Bits<48>>,
        c_sext24: Constant<Bits<48>>,
        /// Row-end back step multiple Q·(BPR − 1) in signed digits (8 digits).
        c_bp: Vec<Constant<Bits<48>>>,
        c_bn: Vec<Constant<Bits<48>>>,
        /// Lane index l (for qx) and lane bit 1 << l.
        c_lidx: Vec<Constant<Bits<12>>>,
        c_lidx10: Vec<Constant<Bits<10>>>,
        c_lbit: Vec<Constant<Bits<4>>>,

        // ---- combinational ----
        cg: Signal<Local, Bits<8>>,
        rr: Signal<Local, Bits<8>>,
        fin: Signal<Local, Bit>,
        rowend: Signal<Local, Bit>,
        can_out: Signal<Local, Bit>,
        adv: Signal<Local, Bit>,
        accept: Signal<Local, Bit>,
        emit: Signal<Local, Bit>,
        ein: Vec<Signal<Local, Bits<48>>>,
        ehi: Vec<Signal<Local, Bits<48>>>,
        uc: Vec<Signal<Local, Bits<48>>>,
        aw: Vec<Signal<Local, Bits<48>>>,
        bw: Vec<Signal<Local, Bits<48>>>,
        ax: Vec<Signal<Local, Bits<48>>>,
        bx: Vec<Signal<Local, Bits<48>>>,
        a2: Vec<Signal<Local, Bits<48>>>,
        /// The incoming job's a, b as `aw`/`bw`, `ax`/`bx` and `a2` are of the registered ones.
        awi: Vec<Signal<Local, Bits<48>>>,
        bwi: Vec<Signal<Local, Bits<48>>>,
        axi: Vec<Signal<Local, Bits<48>>>,
        bxi: Vec<Signal<Local, Bits<48>>>,
        a2i: Vec<Signal<Local, Bits<48>>>,
        ia: Vec<Signal<Local, Bits<48>>>,
        ib: Vec<Signal<Local, Bits<48>>>,
        vi: Vec<Signal<Local, Bits<48>>>,
        o1: Vec<Signal<Local, Bits<48>>>,
        o2: Vec<Signal<Local, Bits<48>>>,
        dnew: Vec<Signal<Local, Bits<48>>>,
        dx: Vec<Signal<Local, Bits<48>>>,
        a5: Vec<Signal<Local, Bits<48>>>,
        bk: Vec<Signal<Local, Bits<48>>>,
        step: Vec<Signal<Local, Bits<48>>>,
        gg: Vec<Signal<Local, Bits<48>>>,
        xr: Signal<Local, Bits<10>>,
        yr: Signal<Local, Bits<10>>,
        lx: Vec<Signal<Local, Bits<10>>>,
        vxok: Vec<Signal<Local, Bit>>,
        vyok: Vec<Signal<Local, Bit>>,
        /// Valid-lane bits, accumulated over lanes 0..4 (lanes ≥ Q pass the value on).
        lvc: Vec<Signal<Local, Bits<4>>>,
        anyv: Signal<Local, Bit>,

        // ---- registers ----
        busy: DFF<Bit>,
        bcnt: DFF<Bits<8>>,
        ec: Vec<DFF<Bits<48>>>,
        dv: Vec<DFF<Bits<48>>>,
        /// Lane l's pixel multiples n[i][k] (W_g bits), registered at job load: index l·12 + i·3
        /// + k. Used at Q ≥ 2 (a lane's multiples are then up to two adders deep); at Q = 1
        /// lane 0's are at most a + b and the lane adds its own (these are trimmed).
        nreg: Vec<DFF<Bits<48>>>,
        av: Vec<DFF<Bits<24>>>,
        bv: Vec<DFF<Bits<24>>>,
        prim_r: DFF<Bits<24>>,
        qxs: DFF<Bits<12>>,
        qys: DFF<Bits<12>>,
        visw: DFF<Bits<10>>,
        vish: DFF<Bits<10>>,
        last_r: DFF<Bit>,
        none_r: DFF<Bit>,
        triv_r: DFF<Bit>,
        ov: DFF<Bit>,
        oprim: DFF<Bits<24>>,
        olv: DFF<Bits<4>>,
        oqx: Vec<DFF<Bits<12>>>,
        oqy: Vec<DFF<Bits<12>>>,
        omask: Vec<DFF<Bits<64>>>,
        olast: DFF<Bit>,

        // ---- sub-blocks ----
        /// Lane l's sign tests and mask ([`SampleLane`]), l = 0..Q.
        lanes: Vec<SampleLane>,

        // ---- elaboration-time loop bounds (not signals) ----
        _s: usize,
        _q: usize,
        _nn: usize,
        _nn1: usize,
        _no: usize,
        _no1: usize,
    }
}

/// Canonical signed digits of `v` (non-adjacent form): (positive digit mask, negative digit
/// mask), `v = pos − neg`.
pub fn csd(v: u64) -> (u64, u64) {
    let (mut pos, mut neg, mut x, mut i) = (0u64, 0u64, v as i64, 0);
    while x != 0 {
        if x & 1 == 1 {
            let d = 2 - (x & 3); // +1 if x ≡ 1 (mod 4), −1 if x ≡ 3
            if d == 1 {
                pos |= 1 << i;
            } else {
                neg |= 1 << i;
            }
            x -= d;
        }
        x >>= 1;
        i += 1;
    }
    (pos, neg)
}

/// One shift-add step of an [`Mcm`] program: `node = (node[i1] << h1) ± (node[i2] << h2)`.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct McmOp {
    pub i1: usize,
    pub h1: u32,
    pub i2: usize,
    pub h2: u32,
    /// Subtract the second term.
    pub sub: bool,
}

/// A shift-add program computing x·a + y·b for a set of (x, y) targets (multiple constant
/// multiplication, greedy): nodes 0 and 1 are a and b, op n computes node n + 2; target t is
/// `node[targets[t].0] << targets[t].1`. Nodes are stored odd-normalized (x, y).
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct Mcm {
    pub nodes: Vec<(i64, i64)>,
    pub ops: Vec<McmOp>,
    pub targets: Vec<(usize, u32)>,
}

fn norm(v: (i64, i64)) -> ((i64, i64), u32) {
    assert!(v != (0, 0), "zero target");
    let h = v.0.trailing_zeros().min(v.1.trailing_zeros());
    ((v.0 >> h, v.1 >> h), h)
}

fn alias(nodes: &[(i64, i64)], t: (i64, i64)) -> Option<(usize, u32)> {
    let (n, h) = norm(t);
    nodes.iter().position(|&x| x == n).map(|i| (i, h))
}

/// An op producing the odd-normalized `t` from two nodes, if one exists.
fn one_op(nodes: &[(i64, i64)], t: (i64, i64)) -> Option<McmOp> {
    let sh = |v: (i64, i64), h: u32| (v.0 << h, v.1 << h);
    for (i1, &n1) in nodes.iter().enumerate() {
        for h1 in 0..=5 {
            let p = sh(n1, h1);
            let cands = [
                ((t.0 - p.0, t.1 - p.1), false, false), // t = p + q
                ((p.0 - t.0, p.1 - t.1), true, false),  // t = p − q
                ((t.0 + p.0, t.1 + p.1), true, true),   // t = q − p
            ];
            for (r, sub, swap) in cands {
                if r == (0, 0) {
                    continue;
                }
                if let Some((i2, h2)) = alias(nodes, r) {
                    return Some(if swap {
                        McmOp {
                            i1: i2,
                            h1: h2,
                            i2: i1,
                            h2: h1,
                            sub,
                        }
                    } else {
                        McmOp { i1, h1, i2, h2, sub }
                    });
                }
            }
        }
    }
    None
}

impl Mcm {
    /// Greedy program for `targets` (non-zero (x, y) pairs).
    ///
    /// # Panics
    /// If the greedy search finds no useful intermediate (not the case for the sample tables,
    /// see the unit test).
    pub fn new(targets: &[(i64, i64)]) -> Mcm {
        let mut nodes = vec![(1i64, 0i64), (0, 1)];
        let mut ops = Vec::new();
        let apply = |nodes: &[(i64, i64)], o: &McmOp| {
            let (a, b) = (nodes[o.i1], nodes[o.i2]);
            let (a, b) = ((a.0 << o.h1, a.1 << o.h1), (b.0 << o.h2, b.1 << o.h2));
            if o.sub {
                (a.0 - b.0, a.1 - b.1)
            } else {
                (a.0 + b.0, a.1 + b.1)
            }
        };
        loop {
            let open: Vec<(i64, i64)> = targets
                .iter()
                .copied()
                .filter(|&t| alias(&nodes, t).is_none())
                .collect();
            let Some(&first) = open.first() else {
                break;
            };
            // A target one op away.
            if let Some((t, o)) = open.iter().find_map(|&t| one_op(&nodes, norm(t).0).map(|o| (t, o))) {
                debug_assert_eq!(norm(apply(&nodes, &o)).0, norm(t).0);
                nodes.push(norm(t).0);
                ops.push(o);
                continue;
            }
            // Otherwise the intermediate that brings the most targets within one op.
            let mut best: Option<(usize, i64, (i64, i64), McmOp)> = None;
            let n = nodes.len();
            for i1 in 0..n {
                for i2 in 0..n {
                    for h in 0..=4 {
                        for (h1, h2) in [(h, 0), (0, h)] {
                            for sub in [false, true] {
                                let o = McmOp { i1, h1, i2, h2, sub };
                                let c = apply(&nodes, &o);
                                if c == (0, 0) || alias(&nodes, c).is_some() {
                                    continue;
                                }
                                let (c, hc) = norm(c);
                                if hc != 0 || c.0.abs() + c.1.abs() > 64 {
                                    continue;
                                }
                                let mut with = nodes.clone();
                                with.push(c);
                                let score = open
                                    .iter()
                                    .filter(|&&t| alias(&with, t).is_some() || one_op(&with, norm(t).0).is_some())
                                    .count();
                                let size = c.0.abs() + c.1.abs();
                                if best
                                    .as_ref()
                                    .is_none_or(|b| score > b.0 || (score == b.0 && size < b.1))
                                {
                                    best = Some((score, size, c, o));
                                }
                            }
                        }
                    }
                }
            }
            let (score, _, c, o) = best.expect("candidates");
            assert!(score > 0, "MCM: no progress towards {first:?}");
            nodes.push(c);
            ops.push(o);
        }
        let targets = targets.iter().map(|&t| alias(&nodes, t).expect("realized")).collect();
        Mcm { nodes, ops, targets }
    }

    /// Evaluate the program for coefficients (a, b): the targets' values.
    pub fn eval(&self, a: i64, b: i64) -> Vec<i64> {
        let mut v = vec![a, b];
        for o in &self.ops {
            let (x, y) = (v[o.i1] << o.h1, v[o.i2] << o.h2);
            v.push(if o.sub { x - y } else { x + y });
        }
        self.targets.iter().map(|&(i, h)| v[i] << h).collect()
    }
}

/// All-ones (48 bits) where bit `i` of `digits` is set, per digit position `0..n`.
fn digit_masks(digits: u64, n: usize) -> Vec<Constant<Bits<48>>> {
    (0..n)
        .map(|i| k(if digits >> i & 1 == 1 { (1 << 48) - 1 } else { 0 }))
        .collect()
}

impl SampleRaster {
    /// The block for `cfg`, or why it cannot be built (see `SampleRasterGeom::new`).
    pub fn try_new(cfg: &Config) -> Result<SampleRaster, String> {
        let g = SampleRasterGeom::new(cfg)?;
        let s = g.msaa as usize;
        let q = g.q as usize;
        let lg = |v: u32| v.trailing_zeros() as u64;
        let (qw, qh) = (g.subtile[0] / 2, g.subtile[1] / 2);
        let m = g.m as u64;
        let wu = g.w_u() as u64;
        let mask48 = (1u64 << 48) - 1;
        let offs = samples::offsets(g.msaa);
        let targets: Vec<(i64, i64)> = offs.iter().map(|&(x, y)| (x as i64, y as i64)).collect();
        let prog = Mcm::new(&targets);
        let nn = prog.nodes.len();
        let no = prog.ops.len();
        let bit = |v: bool| Constant::new(v);
        let mut c_s1 = Vec::new();
        let mut c_s2 = Vec::new();
        for op in &prog.ops {
            c_s1.extend((0..nn).map(|m| bit(m == op.i1)));
            c_s2.extend((0..nn).map(|m| bit(m == op.i2)));
        }
        let c_ts: Vec<Constant<Bit>> = prog
            .targets
            .iter()
            .flat_map(|&(i, _)| (0..nn).map(move |m| Constant::new(m == i)))
            .collect();
        // Bits of a sample offset d = a·X + b·Y: |d| ≤ 15·(|a| + |b|).
        let dmax = 15 * (g.coef_max[0] + g.coef_max[1]);
        let dw = (64 - dmax.leading_zeros() + 1) as u64;
        let (bp, bn) = csd(g.q as u64 * (g.beats_per_row as u64 - 1));
        if (bp | bn) >> 8 != 0 {
            return Err("sample_raster: Q·(BPR − 1) needs more than 8 signed digits".into());
        }
        let aw = g.coef_bits as u64;
        if aw > 24 {
            return Err(format!(
                "sample_raster: coefficients need {aw} bits, more than the 24 of the stream"
            ));
        }
        Ok(SampleRaster {
            clock: Default::default(),
            flush: Default::default(),
            in_valid: Default::default(),
            in_ready: Default::default(),
            inp: Default::default(),
            out_valid: Default::default(),
            out_ready: Default::default(),
            out: Default::default(),
            c_nbm1: k(g.beats as u64 - 1),
            c_bprm1: k(g.beats_per_row as u64 - 1),
            c_bsh: k(lg(g.beats_per_row)),
            c_qsh: k(lg(g.q)),
            c_qwsh: k(lg(qw)),
            c_qhsh: k(lg(qh)),
            c_tqxsh: k(lg(g.tile[0] / 2)),
            c_tqysh: k(lg(g.tile[1] / 2)),
            c_tqxm: k(g.tile[0] as u64 / 2 - 1),
            c_tqym: k(g.tile[1] as u64 / 2 - 1),
            c_fsh: k(5 + lg(g.q)),
            c_wumask: k((1 << wu) - 1),
            c_himask: k(mask48 & !((1u64 << (m + 4)) - 1)),
            c_chi: k((1 << m) - 1),
            c_clo: k((1u64 << wu) - (1 << m)),
            c_amask: k((1 << aw) - 1),
            c_asgn: k(aw - 1),
            c_ahi: k(mask48 & !((1u64 << aw) - 1)),
            c_regn: Constant::new(q >= 2),
            c_s1,
            c_s2,
            c_h1: prog.ops.iter().map(|o| k(o.h1 as u64)).collect(),
            c_h2: prog.ops.iter().map(|o| k(o.h2 as u64)).collect(),
            c_sub: prog.ops.iter().map(|o| Constant::new(o.sub)).collect(),
            c_ts,
            c_tsh: prog.targets.iter().map(|&(_, h)| k(h as u64)).collect(),
            c_dmask: k((1 << dw) - 1),
            c_dsgn: k(dw - 1),
            c_dhi: k(mask48 & !((1u64 << dw) - 1)),
            c_sext24: k(mask48 & !((1u64 << 24) - 1)),
            c_bp: digit_masks(bp, 8),
            c_bn: digit_masks(bn, 8),
            c_lidx: (0..q as u64).map(k).collect(),
            c_lidx10: (0..q as u64).map(k).collect(),
            c_lbit: (0..q as u64).map(|l| k(1 << l)).collect(),
            cg: Default::default(),
            rr: Default::default(),
            fin: Default::default(),
            rowend: Default::default(),
            can_out: Default::default(),
            adv: Default::default(),
            accept: Default::default(),
            emit: Default::default(),
            ein: vec_of(3),
            ehi: vec_of(3),
            uc: vec_of(3),
            aw: vec_of(3),
            bw: vec_of(3),
            ax: vec_of(3),
            bx: vec_of(3),
            a2: vec_of(12),
            awi: vec_of(3),
            bwi: vec_of(3),
            axi: vec_of(3),
            bxi: vec_of(3),
            a2i: vec_of(12),
            ia: vec_of(3),
            ib: vec_of(3),
            vi: vec_of(3 * nn),
            o1: vec_of(3 * no),
            o2: vec_of(3 * no),
            dnew: vec_of(3 * s),
            dx: vec_of(3 * s),
            a5: vec_of(24),
            bk: vec_of(27),
            step: vec_of(3),
            gg: vec_of(3 * s),
            xr: Default::default(),
            yr: Default::default(),
            lx: vec_of(q),
            vxok: vec_of(2 * q),
            vyok: vec_of(2),
            lvc: vec_of(5),
            anyv: Default::default(),
            busy: Default::default(),
            bcnt: Default::default(),
            ec: vec_of(3),
            dv: vec_of(3 * s),
            nreg: vec_of(12 * q),
            av: vec_of(3),
            bv: vec_of(3),
            prim_r: Default::default(),
            qxs: Default::default(),
            qys: Default::default(),
            visw: Default::default(),
            vish: Default::default(),
            last_r: Default::default(),
            none_r: Default::default(),
            triv_r: Default::default(),
            ov: Default::default(),
            oprim: Default::default(),
            olv: Default::default(),
            oqx: vec_of(4),
            oqy: vec_of(4),
            omask: vec_of(4),
            olast: Default::default(),
            lanes: (0..q).map(|l| SampleLane::new(l, s, g.w_g(), q >= 2)).collect(),
            _s: s,
            _q: q,
            _nn: nn,
            _nn1: nn + 1,
            _no: no,
            _no1: no + 1,
        })
    }

    /// The block for `cfg`.
    ///
    /// # Panics
    /// With the reason if the config is not supported (see [`SampleRaster::try_new`]).
    pub fn new(cfg: &Config) -> SampleRaster {
        SampleRaster::try_new(cfg).unwrap_or_else(|e| panic!("{e}"))
    }
}

impl SampleRaster {
    /// The block's logic. `#[hdl_gen]` sits in this inherent impl, where it also defines the
    /// inherent `connect` and `hdl` that the `Logic` impl below calls: the lanes' vector ports
    /// are addressed with two indices (`self.lanes[l].gg[i]`), and rust-hdl's generator
    /// resolves only a name's first index, so `hdl` goes through [`emit::resolve_indices`].
    #[hdl_gen]
    fn kernel(&mut self) {
        dff_setup!(
            self, clock, busy, bcnt, prim_r, qxs, qys, visw, vish, last_r, none_r, triv_r, ov, oprim, olv, olast
        );
        for e in 0..3 {
            self.ec[e].clock.next = self.clock.val();
            self.ec[e].d.next = self.ec[e].q.val();
            self.av[e].clock.next = self.clock.val();
            self.av[e].d.next = self.av[e].q.val();
            self.bv[e].clock.next = self.clock.val();
            self.bv[e].d.next = self.bv[e].q.val();
        }
        for s in 0..self._s {
            for e in 0..3 {
                self.dv[s * 3 + e].clock.next = self.clock.val();
                self.dv[s * 3 + e].d.next = self.dv[s * 3 + e].q.val();
            }
        }
        for l in 0..self._q {
            for j in 0..12 {
                self.nreg[l * 12 + j].clock.next = self.clock.val();
                self.nreg[l * 12 + j].d.next = self.nreg[l * 12 + j].q.val();
            }
        }
        for l in 0..4 {
            self.oqx[l].clock.next = self.clock.val();
            self.oqx[l].d.next = self.oqx[l].q.val();
            self.oqy[l].clock.next = self.clock.val();
            self.oqy[l].d.next = self.oqy[l].q.val();
            self.omask[l].clock.next = self.clock.val();
            self.omask[l].d.next = self.omask[l].q.val();
        }

        // ---- beat position, handshake ----
        self.cg.next = self.bcnt.q.val() & self.c_bprm1.val();
        self.rr.next = self.bcnt.q.val() >> self.c_bsh.val();
        self.fin.next = self.none_r.q.val() | (self.bcnt.q.val() == self.c_nbm1.val());
        self.rowend.next = self.cg.val() == self.c_bprm1.val();
        self.can_out.next = !self.ov.q.val() | self.out_ready.val();
        self.adv.next = self.busy.q.val() & self.can_out.val();
        self.in_ready.next = !self.busy.q.val() | (self.can_out.val() & self.fin.val());
        self.accept.next = self.in_valid.val() & (!self.busy.q.val() | (self.can_out.val() & self.fin.val()));

        // ---- job load: u = E/16 clamped to [−2^M, 2^M) ----
        self.ein[0].next = unsigned_cast(self.inp.e0.val());
        self.ein[1].next = unsigned_cast(self.inp.e1.val());
        self.ein[2].next = unsigned_cast(self.inp.e2.val());
        for e in 0..3 {
            self.ehi[e].next = self.ein[e].val() & self.c_himask.val();
            if (self.ehi[e].val() == 0) | (self.ehi[e].val() == self.c_himask.val()) {
                self.uc[e].next = (self.ein[e].val() >> 4) & self.c_wumask.val();
            } else if self.ein[e].val().get_bit(47) {
                self.uc[e].next = self.c_clo.val();
            } else {
                self.uc[e].next = self.c_chi.val();
            }
        }

        // ---- coefficients (sign-extended from the stored bits) and their multiples ----
        self.aw[0].next = bit_cast::<48, 24>(self.av[0].q.val());
        self.aw[1].next = bit_cast::<48, 24>(self.av[1].q.val());
        self.aw[2].next = bit_cast::<48, 24>(self.av[2].q.val());
        self.bw[0].next = bit_cast::<48, 24>(self.bv[0].q.val());
        self.bw[1].next = bit_cast::<48, 24>(self.bv[1].q.val());
        self.bw[2].next = bit_cast::<48, 24>(self.bv[2].q.val());
        for e in 0..3 {
            self.ax[e].next = self.aw[e].val();
            if self.aw[e].val().get_bit(self.c_asgn.val().index()) {
                self.ax[e].next = self.aw[e].val() | self.c_ahi.val();
            }
            self.bx[e].next = self.bw[e].val();
            if self.bw[e].val().get_bit(self.c_asgn.val().index()) {
                self.bx[e].next = self.bw[e].val() | self.c_ahi.val();
            }
            self.a2[e * 4].next = self.ax[e].val();
            for i in 0..3 {
                self.a2[e * 4 + i + 1].next = self.a2[e * 4 + i].val() << 1;
            }
            // Steps of ec: +32·Q·a, at a row end +32·b − 32·Q·(BPR − 1)·a.
            self.a5[e * 8].next = self.ax[e].val() << 5;
            for i in 0..7 {
                self.a5[e * 8 + i + 1].next = self.a5[e * 8 + i].val() << 1;
            }
            self.bk[e * 9].next = self.bx[e].val() << 5;
            for i in 0..8 {
                self.bk[e * 9 + i + 1].next = self.bk[e * 9 + i].val()
                    - (self.a5[e * 8 + i].val() & self.c_bp[i].val())
                    + (self.a5[e * 8 + i].val() & self.c_bn[i].val());
            }
            self.step[e].next = self.ax[e].val() << self.c_fsh.val();
            if self.rowend.val() {
                self.step[e].next = self.bk[e * 9 + 8].val();
            }
        }

        // ---- the incoming job's coefficients, as above (the lanes' multiples registered at load) ----
        self.awi[0].next = bit_cast::<48, 24>(unsigned_cast(self.inp.a0.val()) & self.c_amask.val());
        self.awi[1].next = bit_cast::<48, 24>(unsigned_cast(self.inp.a1.val()) & self.c_amask.val());
        self.awi[2].next = bit_cast::<48, 24>(unsigned_cast(self.inp.a2.val()) & self.c_amask.val());
        self.bwi[0].next = bit_cast::<48, 24>(unsigned_cast(self.inp.b0.val()) & self.c_amask.val());
        self.bwi[1].next = bit_cast::<48, 24>(unsigned_cast(self.inp.b1.val()) & self.c_amask.val());
        self.bwi[2].next = bit_cast::<48, 24>(unsigned_cast(self.inp.b2.val()) & self.c_amask.val());
        for e in 0..3 {
            self.axi[e].next = self.awi[e].val();
            if self.awi[e].val().get_bit(self.c_asgn.val().index()) {
                self.axi[e].next = self.awi[e].val() | self.c_ahi.val();
            }
            self.bxi[e].next = self.bwi[e].val();
            if self.bwi[e].val().get_bit(self.c_asgn.val().index()) {
                self.bxi[e].next = self.bwi[e].val() | self.c_ahi.val();
            }
            self.a2i[e * 4].next = self.axi[e].val();
            for i in 0..3 {
                self.a2i[e * 4 + i + 1].next = self.a2i[e * 4 + i].val() << 1;
            }
        }

        // ---- per sample: G = (ec + d) >> 4, d = a·X_s + b·Y_s registered at job load ----
        for s in 0..self._s {
            for e in 0..3 {
                self.dx[s * 3 + e].next = self.dv[s * 3 + e].q.val();
                if self.dv[s * 3 + e].q.val().get_bit(self.c_dsgn.val().index()) {
                    self.dx[s * 3 + e].next = self.dv[s * 3 + e].q.val() | self.c_dhi.val();
                }
                self.gg[s * 3 + e].next = (((self.ec[e].q.val() & self.c_wumask.val())
                    + (self.dx[s * 3 + e].val() & self.c_wumask.val()))
                    & self.c_wumask.val())
                    >> 4;
            }
        }
        // ---- viewport ----
        // Tile-relative quad coordinates of lane 0 (the low bits of qxs, qys).
        self.xr.next = (bit_cast::<10, 12>(self.qxs.q.val()) & self.c_tqxm.val())
            | (bit_cast::<10, 8>(self.cg.val()) << self.c_qsh.val());
        self.yr.next = (bit_cast::<10, 12>(self.qys.q.val()) & self.c_tqym.val()) | bit_cast::<10, 8>(self.rr.val());
        self.vyok[0].next = (self.yr.val() << 1) < self.vish.q.val();
        self.vyok[1].next = ((self.yr.val() << 1) + 1) < self.vish.q.val();
        for l in 0..self._q {
            self.lx[l].next = (self.xr.val() + self.c_lidx10[l].val()) << 1;
            self.vxok[l * 2].next = self.lx[l].val() < self.visw.q.val();
            self.vxok[l * 2 + 1].next = (self.lx[l].val() + 1) < self.visw.q.val();
        }
        // ---- lanes: sign tests and masks (SampleLane), valid-lane bits ----
        self.lvc[0].next = 0.into();
        for l in 0..self._q {
            for s in 0..self._s {
                for e in 0..3 {
                    self.lanes[l].gg[s * 3 + e].next = self.gg[s * 3 + e].val();
                }
            }
            for e in 0..3 {
                for i in 0..4 {
                    self.lanes[l].a2[e * 4 + i].next = self.a2[e * 4 + i].val();
                    if self.c_regn.val() {
                        self.lanes[l].a2[e * 4 + i].next = self.a2i[e * 4 + i].val();
                    }
                }
                self.lanes[l].bx[e].next = self.bx[e].val();
                if self.c_regn.val() {
                    self.lanes[l].bx[e].next = self.bxi[e].val();
                }
            }
            for j in 0..12 {
                self.lanes[l].nr[j].next = self.nreg[l * 12 + j].q.val();
            }
            self.lanes[l].vx[0].next = self.vxok[l * 2].val();
            self.lanes[l].vx[1].next = self.vxok[l * 2 + 1].val();
            self.lanes[l].vy[0].next = self.vyok[0].val();
            self.lanes[l].vy[1].next = self.vyok[1].val();
            self.lanes[l].trivial.next = self.triv_r.q.val();
            self.lanes[l].none.next = self.none_r.q.val();
            if self.lanes[l].valid.val() {
                self.lvc[l + 1].next = self.lvc[l].val() | self.c_lbit[l].val();
            } else {
                self.lvc[l + 1].next = self.lvc[l].val();
            }
        }
        for l in self._q..4 {
            self.lvc[l + 1].next = self.lvc[l].val();
        }
        self.anyv.next = self.lvc[4].val().any();
        self.emit.next = self.anyv.val() | (self.fin.val() & self.last_r.q.val());

        // ---- advance: load the output register, step ----
        if self.out_ready.val() {
            self.ov.d.next = false;
        }
        if self.adv.val() {
            self.ov.d.next = self.emit.val();
            self.oprim.d.next = self.prim_r.q.val();
            self.olv.d.next = self.lvc[4].val();
            self.olast.d.next = self.fin.val() & self.last_r.q.val();
            for l in 0..self._q {
                self.oqx[l].d.next =
                    self.qxs.q.val() | (bit_cast::<12, 8>(self.cg.val()) << self.c_qsh.val()) | self.c_lidx[l].val();
                self.oqy[l].d.next = self.qys.q.val() | bit_cast::<12, 8>(self.rr.val());
                self.omask[l].d.next = self.lanes[l].mask.val();
            }
            if self.fin.val() {
                self.busy.d.next = false;
                self.bcnt.d.next = 0.into();
            } else {
                self.bcnt.d.next = self.bcnt.q.val() + 1;
                for e in 0..3 {
                    self.ec[e].d.next = ((self.ec[e].q.val() & self.c_wumask.val())
                        + (self.step[e].val() & self.c_wumask.val()))
                        & self.c_wumask.val();
                }
            }
        }

        // ---- job load: sample offsets d = a·X_s + b·Y_s of the incoming job (shift-add program) ----
        self.ia[0].next = bit_cast::<48, 24>(unsigned_cast(self.inp.a0.val()));
        self.ia[1].next = bit_cast::<48, 24>(unsigned_cast(self.inp.a1.val()));
        self.ia[2].next = bit_cast::<48, 24>(unsigned_cast(self.inp.a2.val()));
        self.ib[0].next = bit_cast::<48, 24>(unsigned_cast(self.inp.b0.val()));
        self.ib[1].next = bit_cast::<48, 24>(unsigned_cast(self.inp.b1.val()));
        self.ib[2].next = bit_cast::<48, 24>(unsigned_cast(self.inp.b2.val()));
        for zn in self._nn..self._nn1 {
            for zo in self._no..self._no1 {
                for e in 0..3 {
                    self.vi[e * zn].next = self.ia[e].val();
                    if self.ia[e].val().get_bit(23) {
                        self.vi[e * zn].next = self.ia[e].val() | self.c_sext24.val();
                    }
                    self.vi[e * zn + 1].next = self.ib[e].val();
                    if self.ib[e].val().get_bit(23) {
                        self.vi[e * zn + 1].next = self.ib[e].val() | self.c_sext24.val();
                    }
                    for n in 0..self._no {
                        self.o1[e * zo + n].next = 0.into();
                        self.o2[e * zo + n].next = 0.into();
                        for m in 0..self._nn {
                            if m < n + 2 {
                                if self.c_s1[n * zn + m].val() {
                                    self.o1[e * zo + n].next = self.vi[e * zn + m].val() << self.c_h1[n].val();
                                }
                                if self.c_s2[n * zn + m].val() {
                                    self.o2[e * zo + n].next = self.vi[e * zn + m].val() << self.c_h2[n].val();
                                }
                            }
                        }
                        if self.c_sub[n].val() {
                            self.vi[e * zn + n + 2].next = self.o1[e * zo + n].val() - self.o2[e * zo + n].val();
                        } else {
                            self.vi[e * zn + n + 2].next = self.o1[e * zo + n].val() + self.o2[e * zo + n].val();
                        }
                    }
                    for s in 0..self._s {
                        self.dnew[s * 3 + e].next = 0.into();
                        for m in 0..self._nn {
                            if self.c_ts[s * zn + m].val() {
                                self.dnew[s * 3 + e].next =
                                    (self.vi[e * zn + m].val() << self.c_tsh[s].val()) & self.c_dmask.val();
                            }
                        }
                    }
                }
            }
        }

        if self.accept.val() {
            self.busy.d.next = true;
            for l in 0..self._q {
                for j in 0..12 {
                    self.nreg[l * 12 + j].d.next = self.lanes[l].nnew[j].val();
                }
            }
            for s in 0..self._s {
                for e in 0..3 {
                    self.dv[s * 3 + e].d.next = self.dnew[s * 3 + e].val();
                }
            }
            self.bcnt.d.next = 0.into();
            for e in 0..3 {
                self.ec[e].d.next = self.uc[e].val();
            }
            self.av[0].d.next = unsigned_cast(self.inp.a0.val()) & self.c_amask.val();
            self.av[1].d.next = unsigned_cast(self.inp.a1.val()) & self.c_amask.val();
            self.av[2].d.next = unsigned_cast(self.inp.a2.val()) & self.c_amask.val();
            self.bv[0].d.next = unsigned_cast(self.inp.b0.val()) & self.c_amask.val();
            self.bv[1].d.next = unsigned_cast(self.inp.b1.val()) & self.c_amask.val();
            self.bv[2].d.next = unsigned_cast(self.inp.b2.val()) & self.c_amask.val();
            self.prim_r.d.next = self.inp.prim.val();
            self.qxs.d.next = (bit_cast::<12, 8>(self.inp.tile_x.val()) << self.c_tqxsh.val())
                | (bit_cast::<12, 8>(self.inp.col.val()) << self.c_qwsh.val());
            self.qys.d.next = (bit_cast::<12, 8>(self.inp.tile_y.val()) << self.c_tqysh.val())
                | (bit_cast::<12, 8>(self.inp.row.val()) << self.c_qhsh.val());
            self.visw.d.next = bit_cast::<10, 9>(self.inp.vis_w.val());
            self.vish.d.next = bit_cast::<10, 9>(self.inp.vis_h.val());
            self.last_r.d.next = self.inp.last.val();
            self.none_r.d.next = self.inp.none.val();
            self.triv_r.d.next = self.inp.trivial.val();
        }

        // ---- synchronous flush: every register to zero ----
        if self.flush.val() {
            self.busy.d.next = false;
            self.bcnt.d.next = 0.into();
            self.prim_r.d.next = 0.into();
            self.qxs.d.next = 0.into();
            self.qys.d.next = 0.into();
            self.visw.d.next = 0.into();
            self.vish.d.next = 0.into();
            self.last_r.d.next = false;
            self.none_r.d.next = false;
            self.triv_r.d.next = false;
            self.ov.d.next = false;
            self.oprim.d.next = 0.into();
            self.olv.d.next = 0.into();
            self.olast.d.next = false;
            for e in 0..3 {
                self.ec[e].d.next = 0.into();
                self.av[e].d.next = 0.into();
                self.bv[e].d.next = 0.into();
            }
            for s in 0..self._s {
                for e in 0..3 {
                    self.dv[s * 3 + e].d.next = 0.into();
                }
            }
            for l in 0..self._q {
                for j in 0..12 {
                    self.nreg[l * 12 + j].d.next = 0.into();
                }
            }
            for l in 0..4 {
                self.oqx[l].d.next = 0.into();
                self.oqy[l].d.next = 0.into();
                self.omask[l].d.next = 0.into();
            }
        }

        // ---- outputs straight from the registers ----
        self.out_valid.next = self.ov.q.val();
        self.out.prim.next = self.oprim.q.val();
        self.out.kind.next = false; // triangles only
        self.out.lane_valid.next = self.olv.q.val();
        self.out.last.next = self.olast.q.val();
        self.out.qx_0.next = self.oqx[0].q.val();
        self.out.qx_1.next = self.oqx[1].q.val();
        self.out.qx_2.next = self.oqx[2].q.val();
        self.out.qx_3.next = self.oqx[3].q.val();
        self.out.qy_0.next = self.oqy[0].q.val();
        self.out.qy_1.next = self.oqy[1].q.val();
        self.out.qy_2.next = self.oqy[2].q.val();
        self.out.qy_3.next = self.oqy[3].q.val();
        self.out.mask_0.next = self.omask[0].q.val();
        self.out.mask_1.next = self.omask[1].q.val();
        self.out.mask_2.next = self.omask[2].q.val();
        self.out.mask_3.next = self.omask[3].q.val();
    }
}

emit::indexed_kernel_logic!(SampleRaster);

/// # SampleLane: one lane of [`SampleRaster`]
///
/// **Role.** The sign tests and the mask of the quad in lane l of the current beat (quad
/// c·Q + l of its row): pixel i (0 BL, 1 BR, 2 TL, 3 TR) sample s is covered iff `trivial`, or
/// for all three edges k the sign of G[s][k] + n[i][k] is clear, with
/// n[i][k] = (2l + (i&1))·a + (i>>1)·b in pixel units; and the pixel is visible
/// (`vx[i&1] & vy[i>>1]`) and the job is not `none`. The parent computes G once for all lanes.
/// The lane's constants: the signed digits of 2l and 2l + 1 (`c_lp`/`c_ln`, its only
/// lane-dependent values), the mask bits, the sign bit W_g − 1 and the W_g mask. With
/// `registered` (the parent's Q ≥ 2) the parent drives `a2`, `bx` from the incoming job and
/// registers this lane's `nnew` when it loads the job; the tests then add those registered
/// multiples `nr`, two adders fewer on the path than `nn`. Without (Q = 1) `a2`, `bx` are the
/// registered job's and the tests add `nn` directly.
///
/// **Ports.** In: `gg` (G[s][k], index s·3 + k, W_g bits, zero above), `a2` (a·2^j of edge k,
/// j = 0..3, index k·4 + j) and `bx` (b of edge k), both sign-extended to 48 bits (wrap-around
/// sums, of which the tests keep the low W_g bits), `vx` (the lane's pixel columns visible:
/// x < vis_w, index i&1), `vy` (the beat's pixel rows visible: y < vis_h, index i>>1),
/// `trivial`, `none`, and `nr` (n[i][k] registered at load, index i·3 + k). Out: `mask`
/// (bit i·S + s = pixel i sample s covered, 4·S bits used), `valid` (`mask ≠ 0`) and `nnew`
/// (n[i][k] of `a2`, `bx`, W_g bits).
///
/// **Timing.** Combinational, no register, no latency: `mask` and `valid` follow the inputs in
/// the same cycle (the parent registers them into the beat).
///
/// ```text
///  a2, bx ───► nn[i][k] = Σ ±(a·2^j) (digits of 2l + (i&1)) [+ b if i ≥ 2] ─► nnew
///              (registered: a2, bx of the incoming job; nnew ─► parent's nreg ─► nr)
///  gg ───────► su[s,i][k] = (G[s][k] + (registered ? nr : nn)[i][k]) & W_g mask
///            cov[s,i] = (trivial | ∧_k !sign(su[s,i][k])) & vx[i&1] & vy[i>>1] & !none
///            ─► mask = ∨ cov[s,i]·bit(i·S + s), valid = mask ≠ 0
/// ```
#[derive(LogicBlock)]
pub struct SampleLane {
    /// G per sample s and edge k, index s·3 + k.
    pub gg: Vec<Signal<In, Bits<48>>>,
    /// a·2^j per edge k (sign-extended), index k·4 + j, j = 0..3: the incoming job's if
    /// `registered`, else the registered job's.
    pub a2: Vec<Signal<In, Bits<48>>>,
    /// b per edge (sign-extended).
    pub bx: Vec<Signal<In, Bits<48>>>,
    /// n[i][k] registered at job load (the parent's copy of `nnew`), index i·3 + k.
    pub nr: Vec<Signal<In, Bits<48>>>,
    /// Pixel column visible, index i&1 (left, right column of the lane's quad).
    pub vx: Vec<Signal<In, Bit>>,
    /// Pixel row visible, index i>>1 (bottom, top row of the beat's quad row).
    pub vy: Vec<Signal<In, Bit>>,
    /// Trivially accepted job: every visible sample covered.
    pub trivial: Signal<In, Bit>,
    /// `none` job: empty mask.
    pub none: Signal<In, Bit>,
    /// Coverage mask, bit i·S + s.
    pub mask: Signal<Out, Bits<64>>,
    /// `mask ≠ 0`.
    pub valid: Signal<Out, Bit>,
    /// n[i][k] of `a2`, `bx` (W_g bits), for the parent to register at load.
    pub nnew: Vec<Signal<Out, Bits<48>>>,

    /// Pixel x multiples 2l + i (i = 0, 1) in signed digits: all-ones where digit j of the
    /// positive (`c_lp`) / negative (`c_ln`) part is set, index i·4 + j.
    c_lp: Vec<Constant<Bits<48>>>,
    c_ln: Vec<Constant<Bits<48>>>,
    /// Mask bit of pixel i, sample s: 1 << (i·S + s), index s·4 + i.
    c_bit: Vec<Constant<Bits<64>>>,
    c_sgn: Constant<Bits<6>>,
    c_wgmask: Constant<Bits<48>>,
    /// The tests use the registered multiples `nr` (Q ≥ 2) instead of `nn`.
    c_regn: Constant<Bit>,

    /// n[i][k] of `a2`, `bx`, index i·3 + k.
    nn: Vec<Signal<Local, Bits<48>>>,
    /// The multiples the tests use: `nr` or `nn`.
    ns: Vec<Signal<Local, Bits<48>>>,
    /// G[s][k] + n[i][k], index (s·4 + i)·3 + k.
    su: Vec<Signal<Local, Bits<48>>>,
    /// The mask accumulated over (s, i) in order s·4 + i: mk[j + 1] = mk[j] | covered bit j.
    mk: Vec<Signal<Local, Bits<64>>>,

    // ---- elaboration-time loop bounds (not signals) ----
    _s: usize,
    /// 4·S: the index of the accumulated mask (bound to a loop variable, `#[hdl_gen]` has no `let`).
    _n: usize,
}

impl SampleLane {
    /// Lane `l` of a block with `s` samples per pixel and W_g = `w_g`; with `registered`, the
    /// tests add the multiples registered at job load (`nr`) rather than `nn` (whose only use is
    /// then `nnew`, the value registered).
    pub fn new(l: usize, s: usize, w_g: u32, registered: bool) -> SampleLane {
        let mut c_lp = Vec::new();
        let mut c_ln = Vec::new();
        for i in 0..2u64 {
            let (p, n) = csd(2 * l as u64 + i);
            c_lp.extend(digit_masks(p, 4));
            c_ln.extend(digit_masks(n, 4));
        }
        SampleLane {
            gg: vec_of(3 * s),
            a2: vec_of(12),
            bx: vec_of(3),
            nr: vec_of(12),
            vx: vec_of(2),
            vy: vec_of(2),
            trivial: Default::default(),
            none: Default::default(),
            mask: Default::default(),
            valid: Default::default(),
            nnew: vec_of(12),
            c_lp,
            c_ln,
            c_bit: (0..s)
                .flat_map(|smp| (0..4).map(move |i| k(1 << (i * s + smp))))
                .collect(),
            c_sgn: k(w_g as u64 - 1),
            c_wgmask: k((1 << w_g) - 1),
            c_regn: Constant::new(registered),
            nn: vec_of(12),
            ns: vec_of(12),
            su: vec_of(12 * s),
            mk: vec_of(4 * s + 1),
            _s: s,
            _n: 4 * s,
        }
    }
}

impl Logic for SampleLane {
    #[hdl_gen]
    fn update(&mut self) {
        // ---- per pixel: (2l + (i&1))·a + (i>>1)·b, in pixel units ----
        for i in 0..2 {
            for e in 0..3 {
                self.nn[i * 3 + e].next = (self.a2[e * 4].val() & self.c_lp[i * 4].val())
                    + (self.a2[e * 4 + 1].val() & self.c_lp[i * 4 + 1].val())
                    + (self.a2[e * 4 + 2].val() & self.c_lp[i * 4 + 2].val())
                    + (self.a2[e * 4 + 3].val() & self.c_lp[i * 4 + 3].val())
                    - (self.a2[e * 4].val() & self.c_ln[i * 4].val())
                    - (self.a2[e * 4 + 1].val() & self.c_ln[i * 4 + 1].val())
                    - (self.a2[e * 4 + 2].val() & self.c_ln[i * 4 + 2].val())
                    - (self.a2[e * 4 + 3].val() & self.c_ln[i * 4 + 3].val());
                self.nn[(i + 2) * 3 + e].next = self.nn[i * 3 + e].val() + self.bx[e].val();
            }
        }
        for j in 0..12 {
            self.nnew[j].next = self.nn[j].val() & self.c_wgmask.val();
            self.ns[j].next = self.nn[j].val();
            if self.c_regn.val() {
                self.ns[j].next = self.nr[j].val();
            }
        }
        // ---- sign tests, mask ----
        self.mk[0].next = 0.into();
        for s in 0..self._s {
            for i in 0..4 {
                for e in 0..3 {
                    self.su[(s * 4 + i) * 3 + e].next = ((self.gg[s * 3 + e].val() & self.c_wgmask.val())
                        + (self.ns[i * 3 + e].val() & self.c_wgmask.val()))
                        & self.c_wgmask.val();
                }
                if (self.trivial.val()
                    | (!self.su[(s * 4 + i) * 3].val().get_bit(self.c_sgn.val().index())
                        & !self.su[(s * 4 + i) * 3 + 1].val().get_bit(self.c_sgn.val().index())
                        & !self.su[(s * 4 + i) * 3 + 2].val().get_bit(self.c_sgn.val().index())))
                    & self.vx[i % 2].val()
                    & self.vy[i / 2].val()
                    & !self.none.val()
                {
                    self.mk[s * 4 + i + 1].next = self.mk[s * 4 + i].val() | self.c_bit[s * 4 + i].val();
                } else {
                    self.mk[s * 4 + i + 1].next = self.mk[s * 4 + i].val();
                }
            }
        }
        // One iteration, n = 4·S: the end of the chain (an index must be a loop-variable expression).
        for n in self._n..(self._n + 1) {
            self.mask.next = self.mk[n].val();
            self.valid.next = self.mk[n].val().any();
        }
    }
}

/// Verilog of the block for `cfg`, top module `name`, post-processed by [`emit::fix_verilog`].
pub fn verilog(cfg: &Config, name: &str) -> String {
    emit::block_verilog(SampleRaster::new(cfg), name)
}

#[cfg(test)]
mod tests {
    use super::{csd, Mcm};

    #[test]
    fn mcm_programs_for_every_sample_table() {
        for msaa in [1, 2, 4, 8, 16] {
            let t: Vec<(i64, i64)> = tilerast_golden::samples::offsets(msaa)
                .iter()
                .map(|&(x, y)| (x as i64, y as i64))
                .collect();
            let m = Mcm::new(&t);
            for (a, b) in [(1, 0), (0, 1), (3, -7), (-57344, 47104), (123457, -99991)] {
                let want: Vec<i64> = t.iter().map(|&(x, y)| a * x + b * y).collect();
                assert_eq!(m.eval(a, b), want, "msaa {msaa}");
            }
            println!("msaa {msaa}: {} adders for {} samples", m.ops.len(), t.len());
            assert!(m.ops.len() <= t.len() + 3, "msaa {msaa}: {} ops", m.ops.len());
        }
        assert_eq!(Mcm::new(&[(6, 2), (14, 6), (2, 10), (10, 14)]).ops.len(), 5);
    }

    #[test]
    fn csd_digits() {
        for v in 0..300u64 {
            let (p, n) = csd(v);
            assert_eq!(p.wrapping_sub(n), v);
            assert_eq!(p & n, 0);
            assert_eq!(p & (p >> 1), 0, "non-adjacent");
        }
        assert_eq!(csd(14), (16, 2));
        assert_eq!(csd(7), (8, 1));
    }
}
