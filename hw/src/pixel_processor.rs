//! # pixel_processor (seed 000: coverage ratio → colour)
//!
//! One pixel per beat: its S sample colours (after 002's scatter) and their covered mask in,
//! its C colour slots out, each exactly [`tilerast_golden::pixel_processor::resolve_pixel`]'s
//! slot: `rgb = round(Σ rgb / k)` over the k covered samples of the slot's g, `a = round(Σ a /
//! g)`, round half up. C (`colours_per_pixel`) is independent of S (`msaa`): any of 1, 2, 4,
//! 8, 16 each ([`supported`] refuses only what `Config::validate` refuses). Cycle model:
//! [`tilerast_golden::pixel_processor::PixelProcessorCycle`] (same registers); its rustdoc is
//! the block's timing contract, stated once (7 stages, one pixel per cycle,
//! `in_ready = ¬out_valid ∨ out_ready`).
//!
//! **Ports.** `clock`, `flush` (synchronous reset, every register zero); in:
//! `in_valid`/`in_ready` with `inp` ([`crate::streams::PixSamplesIn`]: `x`, `y` sideband,
//! `mask` bit i = sample i covered, `colour_i` packed RGBA8, R in bits 7..0; lanes ≥ S
//! ignored); out: `out_valid`/`out_ready` with `out` ([`crate::streams::PixSlotsOut`]: `x`,
//! `y`, `slot_valid` bit j = slot j has a colour, `colour_j`; slots ≥ C and empty slots 0).
//! The blend position of slot j is `(y·W + x)·C + j` (the output merger's).
//!
//! **Pipeline** (every stage a register; each stage has at most one adder or one
//! multiplier or a constant-indexed selection in front of it):
//!
//! ```text
//!  E0 leaves    leaf j = sample j >> log2(C/S) (C > S) else sample j; 0 unless covered and
//!               j < max(S, C); per leaf 4 × 12-bit channel, 5-bit count (0/1)
//!  E1 … E4      the adder tree, 16 nodes per level: level l < log2 g adds node 2i + 2i+1
//!               into node i (i < 8, nodes ≥ 8 zero), levels ≥ log2 g pass through; after
//!               E4 node j = slot j's (Σ_c, k)
//!  E5 divider   per slot: M_c = Σ_c + ⌊k/2⌋ (rgb), R = ⌈2^16/k⌉ from a 17-entry ROM,
//!  prep         k = 1 flag, a = (Σ_a + ⌊g/2⌋) >> log2 g (g a power of two: a shift)
//!  E6 output    q_c = k = 1 ? M_c : (M_c · R) >> 16 (12 × 16-bit product), packed RGBA8,
//!               slot_valid = k ≠ 0 and j < C
//! ```
//!
//! The divider is exact for every `Σ ≤ 255·k`, k = 1..16
//! ([`tilerast_golden::pixel_processor::div_round_hw`], proved exhaustively in golden). The
//! multiplier is the deepest path: a DSP (MULT18X18D) on ECP5; on iCE40 HX (no DSP) it is a
//! LUT multiplier of 12 × 16 bits, the one path that may need splitting into two stages for
//! 75 MHz (not yet measured).

use crate::emit;
use crate::util::{k, vec_of};
use rust_hdl::prelude::*;
use tilerast_golden::config::Config;
use tilerast_golden::pixel_processor::{recip, PixelGeom};

/// Whether the block can be built for `cfg`: `Ok`, or one line (the config's own validation:
/// every S, C of a valid config is built).
pub fn supported(cfg: &Config) -> Result<(), String> {
    PixelGeom::new(cfg).map(|_| ())
}

tilerast_golden::pixel_processor_streams! { crate::streams::stream_block;
    /// The pixel processor block. Build with [`PixelProcessor::new`].
    pub struct PixelProcessor {
        // ---- constants ----
        c_en: Vec<Constant<Bit>>,
        c_r: Vec<Constant<Bit>>,
        c_add: Vec<Constant<Bit>>,
        c_slot: Vec<Constant<Bit>>,
        c_halfg: Constant<Bits<12>>,
        c_lv: Constant<Bits<12>>,
        c_kh: Vec<Constant<Bits<12>>>,
        c_kv: Vec<Constant<Bits<5>>>,
        c_rc: Vec<Constant<Bits<16>>>,
        c_bit: Vec<Constant<Bits<16>>>,
        c_sh: Vec<Constant<Bits<32>>>,

        // ---- combinational ----
        adv: Signal<Local, Bit>,
        lane: Vec<Signal<Local, Bits<32>>>,
        lm: Vec<Signal<Local, Bit>>,
        sc: Vec<Signal<Local, Bits<32>>>,
        sm: Vec<Signal<Local, Bit>>,
        lf: Vec<Signal<Local, Bits<12>>>,
        kh: Vec<Signal<Local, Bits<12>>>,
        msum: Vec<Signal<Local, Bits<12>>>,
        mw: Vec<Signal<Local, Bits<16>>>,
        pk: Vec<Signal<Local, Bits<32>>>,
        asum: Vec<Signal<Local, Bits<12>>>,
        rom: Vec<Signal<Local, Bits<16>>>,
        prod: Vec<Signal<Local, Bits<32>>>,
        q: Vec<Signal<Local, Bits<8>>>,
        svc: Vec<Signal<Local, Bits<16>>>,

        // ---- registers ----
        v: Vec<DFF<Bit>>,
        px: Vec<DFF<Bits<12>>>,
        py: Vec<DFF<Bits<12>>>,
        n: Vec<DFF<Bits<12>>>,
        nk: Vec<DFF<Bits<5>>>,
        mm: Vec<DFF<Bits<16>>>,
        rr: Vec<DFF<Bits<16>>>,
        aa: Vec<DFF<Bits<8>>>,
        k1: Vec<DFF<Bit>>,
        kv: Vec<DFF<Bit>>,
        oc: Vec<DFF<Bits<32>>>,
        ov: Vec<DFF<Bit>>,
    }
}

impl PixelProcessor {
    /// The block for `cfg`, or why it cannot be built ([`supported`]).
    pub fn try_new(cfg: &Config) -> Result<PixelProcessor, String> {
        let g = PixelGeom::new(cfg)?;
        Ok(PixelProcessor {
            clock: Default::default(),
            flush: Default::default(),
            in_valid: Default::default(),
            in_ready: Default::default(),
            idle: Default::default(),
            inp: Default::default(),
            out_valid: Default::default(),
            out_ready: Default::default(),
            out: Default::default(),
            c_en: (0..16).map(|j| Constant::new(j < g.leaves())).collect(),
            c_r: (1..5).map(|r| Constant::new(r == g.spread)).collect(),
            c_add: (0..4).map(|l| Constant::new(l < g.levels)).collect(),
            c_slot: (0..16).map(|j| Constant::new(j < g.c)).collect(),
            c_halfg: k((g.g / 2) as u64),
            c_lv: k(g.levels as u64),
            c_kh: (2..17).map(|x| k(x / 2)).collect(),
            c_kv: (0..17).map(k).collect(),
            c_rc: (2..17).map(|x| k(recip(x as u32) as u64)).collect(),
            c_bit: (0..16).map(|j| k(1 << j)).collect(),
            c_sh: [8u64, 16, 24].into_iter().map(k).collect(),
            adv: Default::default(),
            lane: vec_of(16),
            lm: vec_of(16),
            sc: vec_of(16),
            sm: vec_of(16),
            lf: vec_of(64),
            kh: vec_of(16),
            msum: vec_of(48),
            mw: vec_of(48),
            pk: vec_of(16),
            asum: vec_of(16),
            rom: vec_of(16),
            prod: vec_of(48),
            q: vec_of(48),
            svc: vec_of(17),
            v: vec_of(7),
            px: vec_of(7),
            py: vec_of(7),
            n: vec_of(320),
            nk: vec_of(80),
            mm: vec_of(48),
            rr: vec_of(16),
            aa: vec_of(16),
            k1: vec_of(16),
            kv: vec_of(16),
            oc: vec_of(16),
            ov: vec_of(16),
        })
    }

    /// The block for `cfg`.
    ///
    /// # Panics
    /// With the reason if it is not supported ([`supported`]).
    pub fn new(cfg: &Config) -> PixelProcessor {
        PixelProcessor::try_new(cfg).unwrap_or_else(|e| panic!("{e}"))
    }

    /// The block's logic (vector indices are expressions of the loop variables: `hdl` goes
    /// through [`emit::resolve_indices`]). Index layout: stage s: `v[s]`, `px[s]`, `py[s]`;
    /// tree level L (0 = E0 leaves, 4 = E4) node i: count `nk[L*16 + i]`, channel c
    /// `n[(L*16 + i)*4 + c]`; slot j channel c (rgb): `mm[j*3 + c]`, `prod`, `q`.
    #[hdl_gen]
    fn kernel(&mut self) {
        for s in 0..7 {
            self.v[s].clock.next = self.clock.val();
            self.v[s].d.next = self.v[s].q.val();
            self.px[s].clock.next = self.clock.val();
            self.px[s].d.next = self.px[s].q.val();
            self.py[s].clock.next = self.clock.val();
            self.py[s].d.next = self.py[s].q.val();
        }
        for i in 0..320 {
            self.n[i].clock.next = self.clock.val();
            self.n[i].d.next = self.n[i].q.val();
        }
        for i in 0..80 {
            self.nk[i].clock.next = self.clock.val();
            self.nk[i].d.next = self.nk[i].q.val();
        }
        for i in 0..48 {
            self.mm[i].clock.next = self.clock.val();
            self.mm[i].d.next = self.mm[i].q.val();
        }
        for j in 0..16 {
            self.rr[j].clock.next = self.clock.val();
            self.rr[j].d.next = self.rr[j].q.val();
            self.aa[j].clock.next = self.clock.val();
            self.aa[j].d.next = self.aa[j].q.val();
            self.k1[j].clock.next = self.clock.val();
            self.k1[j].d.next = self.k1[j].q.val();
            self.kv[j].clock.next = self.clock.val();
            self.kv[j].d.next = self.kv[j].q.val();
            self.oc[j].clock.next = self.clock.val();
            self.oc[j].d.next = self.oc[j].q.val();
            self.ov[j].clock.next = self.clock.val();
            self.ov[j].d.next = self.ov[j].q.val();
        }

        // ---- handshake ----
        self.adv.next = !self.v[6].q.val() | self.out_ready.val();
        self.in_ready.next = self.adv.val();

        // ---- E0: leaves (lane spread for C > S, lane enable, covered mask) ----
        self.lane[0].next = self.inp.colour_0.val();
        self.lane[1].next = self.inp.colour_1.val();
        self.lane[2].next = self.inp.colour_2.val();
        self.lane[3].next = self.inp.colour_3.val();
        self.lane[4].next = self.inp.colour_4.val();
        self.lane[5].next = self.inp.colour_5.val();
        self.lane[6].next = self.inp.colour_6.val();
        self.lane[7].next = self.inp.colour_7.val();
        self.lane[8].next = self.inp.colour_8.val();
        self.lane[9].next = self.inp.colour_9.val();
        self.lane[10].next = self.inp.colour_10.val();
        self.lane[11].next = self.inp.colour_11.val();
        self.lane[12].next = self.inp.colour_12.val();
        self.lane[13].next = self.inp.colour_13.val();
        self.lane[14].next = self.inp.colour_14.val();
        self.lane[15].next = self.inp.colour_15.val();
        self.lm[0].next = self.inp.mask.val().get_bit(0);
        self.lm[1].next = self.inp.mask.val().get_bit(1);
        self.lm[2].next = self.inp.mask.val().get_bit(2);
        self.lm[3].next = self.inp.mask.val().get_bit(3);
        self.lm[4].next = self.inp.mask.val().get_bit(4);
        self.lm[5].next = self.inp.mask.val().get_bit(5);
        self.lm[6].next = self.inp.mask.val().get_bit(6);
        self.lm[7].next = self.inp.mask.val().get_bit(7);
        self.lm[8].next = self.inp.mask.val().get_bit(8);
        self.lm[9].next = self.inp.mask.val().get_bit(9);
        self.lm[10].next = self.inp.mask.val().get_bit(10);
        self.lm[11].next = self.inp.mask.val().get_bit(11);
        self.lm[12].next = self.inp.mask.val().get_bit(12);
        self.lm[13].next = self.inp.mask.val().get_bit(13);
        self.lm[14].next = self.inp.mask.val().get_bit(14);
        self.lm[15].next = self.inp.mask.val().get_bit(15);
        for j in 0..16 {
            self.sc[j].next = self.lane[j].val();
            self.sm[j].next = self.lm[j].val();
            if self.c_r[0].val() {
                self.sc[j].next = self.lane[j / 2].val();
                self.sm[j].next = self.lm[j / 2].val();
            }
            if self.c_r[1].val() {
                self.sc[j].next = self.lane[j / 4].val();
                self.sm[j].next = self.lm[j / 4].val();
            }
            if self.c_r[2].val() {
                self.sc[j].next = self.lane[j / 8].val();
                self.sm[j].next = self.lm[j / 8].val();
            }
            if self.c_r[3].val() {
                self.sc[j].next = self.lane[j / 16].val();
                self.sm[j].next = self.lm[j / 16].val();
            }
        }
        // Leaf channels widened to 12 bits (literal indices: `bit_cast` takes no loop variable).
        self.lf[0].next = bit_cast::<12, 8>(self.sc[0].val().get_bits::<8>(0));
        self.lf[1].next = bit_cast::<12, 8>(self.sc[0].val().get_bits::<8>(8));
        self.lf[2].next = bit_cast::<12, 8>(self.sc[0].val().get_bits::<8>(16));
        self.lf[3].next = bit_cast::<12, 8>(self.sc[0].val().get_bits::<8>(24));
        self.lf[4].next = bit_cast::<12, 8>(self.sc[1].val().get_bits::<8>(0));
        self.lf[5].next = bit_cast::<12, 8>(self.sc[1].val().get_bits::<8>(8));
        self.lf[6].next = bit_cast::<12, 8>(self.sc[1].val().get_bits::<8>(16));
        self.lf[7].next = bit_cast::<12, 8>(self.sc[1].val().get_bits::<8>(24));
        self.lf[8].next = bit_cast::<12, 8>(self.sc[2].val().get_bits::<8>(0));
        self.lf[9].next = bit_cast::<12, 8>(self.sc[2].val().get_bits::<8>(8));
        self.lf[10].next = bit_cast::<12, 8>(self.sc[2].val().get_bits::<8>(16));
        self.lf[11].next = bit_cast::<12, 8>(self.sc[2].val().get_bits::<8>(24));
        self.lf[12].next = bit_cast::<12, 8>(self.sc[3].val().get_bits::<8>(0));
        self.lf[13].next = bit_cast::<12, 8>(self.sc[3].val().get_bits::<8>(8));
        self.lf[14].next = bit_cast::<12, 8>(self.sc[3].val().get_bits::<8>(16));
        self.lf[15].next = bit_cast::<12, 8>(self.sc[3].val().get_bits::<8>(24));
        self.lf[16].next = bit_cast::<12, 8>(self.sc[4].val().get_bits::<8>(0));
        self.lf[17].next = bit_cast::<12, 8>(self.sc[4].val().get_bits::<8>(8));
        self.lf[18].next = bit_cast::<12, 8>(self.sc[4].val().get_bits::<8>(16));
        self.lf[19].next = bit_cast::<12, 8>(self.sc[4].val().get_bits::<8>(24));
        self.lf[20].next = bit_cast::<12, 8>(self.sc[5].val().get_bits::<8>(0));
        self.lf[21].next = bit_cast::<12, 8>(self.sc[5].val().get_bits::<8>(8));
        self.lf[22].next = bit_cast::<12, 8>(self.sc[5].val().get_bits::<8>(16));
        self.lf[23].next = bit_cast::<12, 8>(self.sc[5].val().get_bits::<8>(24));
        self.lf[24].next = bit_cast::<12, 8>(self.sc[6].val().get_bits::<8>(0));
        self.lf[25].next = bit_cast::<12, 8>(self.sc[6].val().get_bits::<8>(8));
        self.lf[26].next = bit_cast::<12, 8>(self.sc[6].val().get_bits::<8>(16));
        self.lf[27].next = bit_cast::<12, 8>(self.sc[6].val().get_bits::<8>(24));
        self.lf[28].next = bit_cast::<12, 8>(self.sc[7].val().get_bits::<8>(0));
        self.lf[29].next = bit_cast::<12, 8>(self.sc[7].val().get_bits::<8>(8));
        self.lf[30].next = bit_cast::<12, 8>(self.sc[7].val().get_bits::<8>(16));
        self.lf[31].next = bit_cast::<12, 8>(self.sc[7].val().get_bits::<8>(24));
        self.lf[32].next = bit_cast::<12, 8>(self.sc[8].val().get_bits::<8>(0));
        self.lf[33].next = bit_cast::<12, 8>(self.sc[8].val().get_bits::<8>(8));
        self.lf[34].next = bit_cast::<12, 8>(self.sc[8].val().get_bits::<8>(16));
        self.lf[35].next = bit_cast::<12, 8>(self.sc[8].val().get_bits::<8>(24));
        self.lf[36].next = bit_cast::<12, 8>(self.sc[9].val().get_bits::<8>(0));
        self.lf[37].next = bit_cast::<12, 8>(self.sc[9].val().get_bits::<8>(8));
        self.lf[38].next = bit_cast::<12, 8>(self.sc[9].val().get_bits::<8>(16));
        self.lf[39].next = bit_cast::<12, 8>(self.sc[9].val().get_bits::<8>(24));
        self.lf[40].next = bit_cast::<12, 8>(self.sc[10].val().get_bits::<8>(0));
        self.lf[41].next = bit_cast::<12, 8>(self.sc[10].val().get_bits::<8>(8));
        self.lf[42].next = bit_cast::<12, 8>(self.sc[10].val().get_bits::<8>(16));
        self.lf[43].next = bit_cast::<12, 8>(self.sc[10].val().get_bits::<8>(24));
        self.lf[44].next = bit_cast::<12, 8>(self.sc[11].val().get_bits::<8>(0));
        self.lf[45].next = bit_cast::<12, 8>(self.sc[11].val().get_bits::<8>(8));
        self.lf[46].next = bit_cast::<12, 8>(self.sc[11].val().get_bits::<8>(16));
        self.lf[47].next = bit_cast::<12, 8>(self.sc[11].val().get_bits::<8>(24));
        self.lf[48].next = bit_cast::<12, 8>(self.sc[12].val().get_bits::<8>(0));
        self.lf[49].next = bit_cast::<12, 8>(self.sc[12].val().get_bits::<8>(8));
        self.lf[50].next = bit_cast::<12, 8>(self.sc[12].val().get_bits::<8>(16));
        self.lf[51].next = bit_cast::<12, 8>(self.sc[12].val().get_bits::<8>(24));
        self.lf[52].next = bit_cast::<12, 8>(self.sc[13].val().get_bits::<8>(0));
        self.lf[53].next = bit_cast::<12, 8>(self.sc[13].val().get_bits::<8>(8));
        self.lf[54].next = bit_cast::<12, 8>(self.sc[13].val().get_bits::<8>(16));
        self.lf[55].next = bit_cast::<12, 8>(self.sc[13].val().get_bits::<8>(24));
        self.lf[56].next = bit_cast::<12, 8>(self.sc[14].val().get_bits::<8>(0));
        self.lf[57].next = bit_cast::<12, 8>(self.sc[14].val().get_bits::<8>(8));
        self.lf[58].next = bit_cast::<12, 8>(self.sc[14].val().get_bits::<8>(16));
        self.lf[59].next = bit_cast::<12, 8>(self.sc[14].val().get_bits::<8>(24));
        self.lf[60].next = bit_cast::<12, 8>(self.sc[15].val().get_bits::<8>(0));
        self.lf[61].next = bit_cast::<12, 8>(self.sc[15].val().get_bits::<8>(8));
        self.lf[62].next = bit_cast::<12, 8>(self.sc[15].val().get_bits::<8>(16));
        self.lf[63].next = bit_cast::<12, 8>(self.sc[15].val().get_bits::<8>(24));
        if self.adv.val() {
            self.v[0].d.next = self.in_valid.val();
            self.px[0].d.next = 0.into();
            self.py[0].d.next = 0.into();
            if self.in_valid.val() {
                self.px[0].d.next = self.inp.x.val();
                self.py[0].d.next = self.inp.y.val();
            }
            for j in 0..16 {
                self.nk[j].d.next = 0.into();
                self.n[j * 4].d.next = 0.into();
                self.n[j * 4 + 1].d.next = 0.into();
                self.n[j * 4 + 2].d.next = 0.into();
                self.n[j * 4 + 3].d.next = 0.into();
                if self.in_valid.val() & self.c_en[j].val() & self.sm[j].val() {
                    self.nk[j].d.next = self.c_kv[1].val();
                    for c in 0..4 {
                        self.n[j * 4 + c].d.next = self.lf[j * 4 + c].val();
                    }
                }
            }

            // ---- E1 … E4: the adder tree (one add per level) ----
            for l in 0..4 {
                self.v[l + 1].d.next = self.v[l].q.val();
                self.px[l + 1].d.next = self.px[l].q.val();
                self.py[l + 1].d.next = self.py[l].q.val();
                if self.c_add[l].val() {
                    for i in 0..8 {
                        self.nk[(l + 1) * 16 + i].d.next =
                            self.nk[l * 16 + 2 * i].q.val() + self.nk[l * 16 + 2 * i + 1].q.val();
                        for c in 0..4 {
                            self.n[((l + 1) * 16 + i) * 4 + c].d.next =
                                self.n[(l * 16 + 2 * i) * 4 + c].q.val() + self.n[(l * 16 + 2 * i + 1) * 4 + c].q.val();
                        }
                    }
                    for i in 8..16 {
                        self.nk[(l + 1) * 16 + i].d.next = 0.into();
                        for c in 0..4 {
                            self.n[((l + 1) * 16 + i) * 4 + c].d.next = 0.into();
                        }
                    }
                } else {
                    for i in 0..16 {
                        self.nk[(l + 1) * 16 + i].d.next = self.nk[l * 16 + i].q.val();
                        for c in 0..4 {
                            self.n[((l + 1) * 16 + i) * 4 + c].d.next = self.n[(l * 16 + i) * 4 + c].q.val();
                        }
                    }
                }
            }

            // ---- E5: divider operands ----
            self.v[5].d.next = self.v[4].q.val();
            self.px[5].d.next = self.px[4].q.val();
            self.py[5].d.next = self.py[4].q.val();
            // ---- E6: output register ----
            self.v[6].d.next = self.v[5].q.val();
            self.px[6].d.next = self.px[5].q.val();
            self.py[6].d.next = self.py[5].q.val();
        }
        for j in 0..16 {
            self.asum[j].next = (self.n[(64 + j) * 4 + 3].q.val() + self.c_halfg.val()) >> self.c_lv.val();
            self.rom[j].next = 0.into();
            self.kh[j].next = 0.into();
            for kk in 2..17 {
                if self.nk[64 + j].q.val() == self.c_kv[kk].val() {
                    self.kh[j].next = self.c_kh[kk - 2].val();
                    self.rom[j].next = self.c_rc[kk - 2].val();
                }
            }
            for c in 0..3 {
                self.msum[j * 3 + c].next = self.n[(64 + j) * 4 + c].q.val() + self.kh[j].val();
                self.prod[j * 3 + c].next = self.mm[j * 3 + c].q.val() * self.rr[j].q.val();
                self.q[j * 3 + c].next = self.prod[j * 3 + c].val().get_bits::<8>(16);
                if self.k1[j].q.val() {
                    self.q[j * 3 + c].next = self.mm[j * 3 + c].q.val().get_bits::<8>(0);
                }
            }
        }
        // Widened divider operands and packed colours (literal indices for `bit_cast`).
        self.mw[0].next = bit_cast::<16, 12>(self.msum[0].val());
        self.mw[1].next = bit_cast::<16, 12>(self.msum[1].val());
        self.mw[2].next = bit_cast::<16, 12>(self.msum[2].val());
        self.mw[3].next = bit_cast::<16, 12>(self.msum[3].val());
        self.mw[4].next = bit_cast::<16, 12>(self.msum[4].val());
        self.mw[5].next = bit_cast::<16, 12>(self.msum[5].val());
        self.mw[6].next = bit_cast::<16, 12>(self.msum[6].val());
        self.mw[7].next = bit_cast::<16, 12>(self.msum[7].val());
        self.mw[8].next = bit_cast::<16, 12>(self.msum[8].val());
        self.mw[9].next = bit_cast::<16, 12>(self.msum[9].val());
        self.mw[10].next = bit_cast::<16, 12>(self.msum[10].val());
        self.mw[11].next = bit_cast::<16, 12>(self.msum[11].val());
        self.mw[12].next = bit_cast::<16, 12>(self.msum[12].val());
        self.mw[13].next = bit_cast::<16, 12>(self.msum[13].val());
        self.mw[14].next = bit_cast::<16, 12>(self.msum[14].val());
        self.mw[15].next = bit_cast::<16, 12>(self.msum[15].val());
        self.mw[16].next = bit_cast::<16, 12>(self.msum[16].val());
        self.mw[17].next = bit_cast::<16, 12>(self.msum[17].val());
        self.mw[18].next = bit_cast::<16, 12>(self.msum[18].val());
        self.mw[19].next = bit_cast::<16, 12>(self.msum[19].val());
        self.mw[20].next = bit_cast::<16, 12>(self.msum[20].val());
        self.mw[21].next = bit_cast::<16, 12>(self.msum[21].val());
        self.mw[22].next = bit_cast::<16, 12>(self.msum[22].val());
        self.mw[23].next = bit_cast::<16, 12>(self.msum[23].val());
        self.mw[24].next = bit_cast::<16, 12>(self.msum[24].val());
        self.mw[25].next = bit_cast::<16, 12>(self.msum[25].val());
        self.mw[26].next = bit_cast::<16, 12>(self.msum[26].val());
        self.mw[27].next = bit_cast::<16, 12>(self.msum[27].val());
        self.mw[28].next = bit_cast::<16, 12>(self.msum[28].val());
        self.mw[29].next = bit_cast::<16, 12>(self.msum[29].val());
        self.mw[30].next = bit_cast::<16, 12>(self.msum[30].val());
        self.mw[31].next = bit_cast::<16, 12>(self.msum[31].val());
        self.mw[32].next = bit_cast::<16, 12>(self.msum[32].val());
        self.mw[33].next = bit_cast::<16, 12>(self.msum[33].val());
        self.mw[34].next = bit_cast::<16, 12>(self.msum[34].val());
        self.mw[35].next = bit_cast::<16, 12>(self.msum[35].val());
        self.mw[36].next = bit_cast::<16, 12>(self.msum[36].val());
        self.mw[37].next = bit_cast::<16, 12>(self.msum[37].val());
        self.mw[38].next = bit_cast::<16, 12>(self.msum[38].val());
        self.mw[39].next = bit_cast::<16, 12>(self.msum[39].val());
        self.mw[40].next = bit_cast::<16, 12>(self.msum[40].val());
        self.mw[41].next = bit_cast::<16, 12>(self.msum[41].val());
        self.mw[42].next = bit_cast::<16, 12>(self.msum[42].val());
        self.mw[43].next = bit_cast::<16, 12>(self.msum[43].val());
        self.mw[44].next = bit_cast::<16, 12>(self.msum[44].val());
        self.mw[45].next = bit_cast::<16, 12>(self.msum[45].val());
        self.mw[46].next = bit_cast::<16, 12>(self.msum[46].val());
        self.mw[47].next = bit_cast::<16, 12>(self.msum[47].val());
        self.pk[0].next = bit_cast::<32, 8>(self.q[0].val())
            | (bit_cast::<32, 8>(self.q[1].val()) << self.c_sh[0].val())
            | (bit_cast::<32, 8>(self.q[2].val()) << self.c_sh[1].val())
            | (bit_cast::<32, 8>(self.aa[0].q.val()) << self.c_sh[2].val());
        self.pk[1].next = bit_cast::<32, 8>(self.q[3].val())
            | (bit_cast::<32, 8>(self.q[4].val()) << self.c_sh[0].val())
            | (bit_cast::<32, 8>(self.q[5].val()) << self.c_sh[1].val())
            | (bit_cast::<32, 8>(self.aa[1].q.val()) << self.c_sh[2].val());
        self.pk[2].next = bit_cast::<32, 8>(self.q[6].val())
            | (bit_cast::<32, 8>(self.q[7].val()) << self.c_sh[0].val())
            | (bit_cast::<32, 8>(self.q[8].val()) << self.c_sh[1].val())
            | (bit_cast::<32, 8>(self.aa[2].q.val()) << self.c_sh[2].val());
        self.pk[3].next = bit_cast::<32, 8>(self.q[9].val())
            | (bit_cast::<32, 8>(self.q[10].val()) << self.c_sh[0].val())
            | (bit_cast::<32, 8>(self.q[11].val()) << self.c_sh[1].val())
            | (bit_cast::<32, 8>(self.aa[3].q.val()) << self.c_sh[2].val());
        self.pk[4].next = bit_cast::<32, 8>(self.q[12].val())
            | (bit_cast::<32, 8>(self.q[13].val()) << self.c_sh[0].val())
            | (bit_cast::<32, 8>(self.q[14].val()) << self.c_sh[1].val())
            | (bit_cast::<32, 8>(self.aa[4].q.val()) << self.c_sh[2].val());
        self.pk[5].next = bit_cast::<32, 8>(self.q[15].val())
            | (bit_cast::<32, 8>(self.q[16].val()) << self.c_sh[0].val())
            | (bit_cast::<32, 8>(self.q[17].val()) << self.c_sh[1].val())
            | (bit_cast::<32, 8>(self.aa[5].q.val()) << self.c_sh[2].val());
        self.pk[6].next = bit_cast::<32, 8>(self.q[18].val())
            | (bit_cast::<32, 8>(self.q[19].val()) << self.c_sh[0].val())
            | (bit_cast::<32, 8>(self.q[20].val()) << self.c_sh[1].val())
            | (bit_cast::<32, 8>(self.aa[6].q.val()) << self.c_sh[2].val());
        self.pk[7].next = bit_cast::<32, 8>(self.q[21].val())
            | (bit_cast::<32, 8>(self.q[22].val()) << self.c_sh[0].val())
            | (bit_cast::<32, 8>(self.q[23].val()) << self.c_sh[1].val())
            | (bit_cast::<32, 8>(self.aa[7].q.val()) << self.c_sh[2].val());
        self.pk[8].next = bit_cast::<32, 8>(self.q[24].val())
            | (bit_cast::<32, 8>(self.q[25].val()) << self.c_sh[0].val())
            | (bit_cast::<32, 8>(self.q[26].val()) << self.c_sh[1].val())
            | (bit_cast::<32, 8>(self.aa[8].q.val()) << self.c_sh[2].val());
        self.pk[9].next = bit_cast::<32, 8>(self.q[27].val())
            | (bit_cast::<32, 8>(self.q[28].val()) << self.c_sh[0].val())
            | (bit_cast::<32, 8>(self.q[29].val()) << self.c_sh[1].val())
            | (bit_cast::<32, 8>(self.aa[9].q.val()) << self.c_sh[2].val());
        self.pk[10].next = bit_cast::<32, 8>(self.q[30].val())
            | (bit_cast::<32, 8>(self.q[31].val()) << self.c_sh[0].val())
            | (bit_cast::<32, 8>(self.q[32].val()) << self.c_sh[1].val())
            | (bit_cast::<32, 8>(self.aa[10].q.val()) << self.c_sh[2].val());
        self.pk[11].next = bit_cast::<32, 8>(self.q[33].val())
            | (bit_cast::<32, 8>(self.q[34].val()) << self.c_sh[0].val())
            | (bit_cast::<32, 8>(self.q[35].val()) << self.c_sh[1].val())
            | (bit_cast::<32, 8>(self.aa[11].q.val()) << self.c_sh[2].val());
        self.pk[12].next = bit_cast::<32, 8>(self.q[36].val())
            | (bit_cast::<32, 8>(self.q[37].val()) << self.c_sh[0].val())
            | (bit_cast::<32, 8>(self.q[38].val()) << self.c_sh[1].val())
            | (bit_cast::<32, 8>(self.aa[12].q.val()) << self.c_sh[2].val());
        self.pk[13].next = bit_cast::<32, 8>(self.q[39].val())
            | (bit_cast::<32, 8>(self.q[40].val()) << self.c_sh[0].val())
            | (bit_cast::<32, 8>(self.q[41].val()) << self.c_sh[1].val())
            | (bit_cast::<32, 8>(self.aa[13].q.val()) << self.c_sh[2].val());
        self.pk[14].next = bit_cast::<32, 8>(self.q[42].val())
            | (bit_cast::<32, 8>(self.q[43].val()) << self.c_sh[0].val())
            | (bit_cast::<32, 8>(self.q[44].val()) << self.c_sh[1].val())
            | (bit_cast::<32, 8>(self.aa[14].q.val()) << self.c_sh[2].val());
        self.pk[15].next = bit_cast::<32, 8>(self.q[45].val())
            | (bit_cast::<32, 8>(self.q[46].val()) << self.c_sh[0].val())
            | (bit_cast::<32, 8>(self.q[47].val()) << self.c_sh[1].val())
            | (bit_cast::<32, 8>(self.aa[15].q.val()) << self.c_sh[2].val());
        for j in 0..16 {
            if self.adv.val() {
                for c in 0..3 {
                    self.mm[j * 3 + c].d.next = self.mw[j * 3 + c].val();
                }
                self.rr[j].d.next = self.rom[j].val();
                self.aa[j].d.next = self.asum[j].val().get_bits::<8>(0);
                self.k1[j].d.next = self.nk[64 + j].q.val() == self.c_kv[1].val();
                self.kv[j].d.next = self.nk[64 + j].q.val() != self.c_kv[0].val();
                self.ov[j].d.next = false;
                self.oc[j].d.next = 0.into();
                if self.c_slot[j].val() & self.kv[j].q.val() {
                    self.ov[j].d.next = true;
                    self.oc[j].d.next = self.pk[j].val();
                }
            }
        }

        // ---- flush ----
        if self.flush.val() {
            for s in 0..7 {
                self.v[s].d.next = false;
                self.px[s].d.next = 0.into();
                self.py[s].d.next = 0.into();
            }
            for i in 0..320 {
                self.n[i].d.next = 0.into();
            }
            for i in 0..80 {
                self.nk[i].d.next = 0.into();
            }
            for i in 0..48 {
                self.mm[i].d.next = 0.into();
            }
            for j in 0..16 {
                self.rr[j].d.next = 0.into();
                self.aa[j].d.next = 0.into();
                self.k1[j].d.next = false;
                self.kv[j].d.next = false;
                self.oc[j].d.next = 0.into();
                self.ov[j].d.next = false;
            }
        }

        // ---- outputs (registers) ----
        self.out_valid.next = self.v[6].q.val();
        self.idle.next = !(self.v[0].q.val()
            | self.v[1].q.val()
            | self.v[2].q.val()
            | self.v[3].q.val()
            | self.v[4].q.val()
            | self.v[5].q.val()
            | self.v[6].q.val());
        self.out.x.next = self.px[6].q.val();
        self.out.y.next = self.py[6].q.val();
        self.svc[0].next = 0.into();
        for j in 0..16 {
            self.svc[j + 1].next = self.svc[j].val();
            if self.ov[j].q.val() {
                self.svc[j + 1].next = self.svc[j].val() | self.c_bit[j].val();
            }
        }
        self.out.slot_valid.next = self.svc[16].val();
        self.out.colour_0.next = self.oc[0].q.val();
        self.out.colour_1.next = self.oc[1].q.val();
        self.out.colour_2.next = self.oc[2].q.val();
        self.out.colour_3.next = self.oc[3].q.val();
        self.out.colour_4.next = self.oc[4].q.val();
        self.out.colour_5.next = self.oc[5].q.val();
        self.out.colour_6.next = self.oc[6].q.val();
        self.out.colour_7.next = self.oc[7].q.val();
        self.out.colour_8.next = self.oc[8].q.val();
        self.out.colour_9.next = self.oc[9].q.val();
        self.out.colour_10.next = self.oc[10].q.val();
        self.out.colour_11.next = self.oc[11].q.val();
        self.out.colour_12.next = self.oc[12].q.val();
        self.out.colour_13.next = self.oc[13].q.val();
        self.out.colour_14.next = self.oc[14].q.val();
        self.out.colour_15.next = self.oc[15].q.val();
    }
}

emit::indexed_kernel_logic!(PixelProcessor);

/// The block's Verilog with top module `name`.
pub fn verilog(cfg: &Config, name: &str) -> String {
    emit::block_verilog(PixelProcessor::new(cfg), name)
}

/// The pixel processor's row of [`crate::BLOCK_FILES`].
pub const FILE: crate::BlockFile = crate::BlockFile {
    role: "seed 000, coverage ratio to colour",
    contract: "tilerast_golden::pixel_processor::PixelProcessorCycle",
    sig: <tilerast_golden::pixel_processor::PixelProcessorPorts as tilerast_golden::cycle::BlockSignature>::SIGNATURE,
    params: |cfg| {
        supported(cfg)?;
        Ok(format!(
            "S = {} samples, C = {} colours per pixel",
            cfg.msaa, cfg.colours_per_pixel
        ))
    },
    verilog,
};
