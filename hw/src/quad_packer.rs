//! # quad_packer (seed 000: re-split sideband and Q-lane packing)
//!
//! Packs the valid quads of consecutive input beats of one command into output beats of Q
//! lanes, in order, and adds the storage-block sideband `block_l`. Cycle model:
//! [`tilerast_golden::quad_packer::QuadPackerCycle`] (same registers); its rustdoc is the
//! block's timing contract (latency, throughput, the `pend` cycle), stated once.
//!
//! **Ports.** `clock`, `flush` (synchronous reset to the idle state, every register zero);
//! in: `in_valid`/`in_ready` with `inp` ([`crate::streams::BeatIn`], a `beat`); out:
//! `out_valid`/`out_ready` with `out` ([`crate::streams::PackedBeatOut`]: the same fields
//! plus `block_l`). Lanes ≥ Q and mask bits ≥ 4·S of the input are ignored.
//!
//! **Packing.** The valid lanes of an accepted beat are appended to an accumulator of up to
//! Q − 1 quads (lane order kept). When Q lanes are filled, an output beat with all Q lanes
//! leaves; the rest (≤ Q − 1) stays. An input beat with `last` flushes everything: one output
//! beat with `last` (fewer lanes, or none if the command had no quad); if the accumulator plus
//! the beat exceed Q, the full beat leaves first and the remainder follows with `last` in the
//! next cycle that the output register is free (`pend`, `in_ready` low meanwhile). Lanes fill
//! from lane 0; unused lanes are all zero. With Q = 1 the block is a plain register stage that
//! drops empty non-`last` beats.
//!
//! **Block.** Hardware restriction (hw/README.md): second sub-tile = first sub-tile, and golden
//! `block_layout` must number every tile's pieces `row · C + col` (no shared edge pieces; true
//! for all presets). Then `block_l = ((qy_l >> log2(SH/2)) mod R) · C + (qx_l >> log2(SW/2)) mod C`,
//! bit fields of the quad coordinates (no logic). [`QuadPacker::try_new`] refuses other configs.
//!
//! **Handshake.** `can_out = !out_valid | out_ready`, `in_ready = !pend & can_out` (the only
//! combinational input → output path); the output beat is one register.
//!
//! **Size.** At Q = 1 the block is little more than the output register: its LUTs mostly zero
//! the lanes of an empty `last` beat. Q > 1 adds the accumulator and the slot multiplexers.
//! Measured sizes: only the generated per-block table in docs/measurements.md ("FPGA").
//!
//! ```text
//!  in beat ─► lanes < Q, valid ─► compact: pos_j = acc_n + #valid lanes below j
//!                                   slots = acc[0..acc_n) ++ valid lanes  (≤ 2Q−1)
//!                                        │ first Q ─────────────► out reg ─► out beat
//!                                        └ rest ─► acc (≤ Q−1)     (+ block_l)
//! ```

use crate::emit;
use crate::util::{k, vec_of};
use rust_hdl::prelude::*;
use tilerast_golden::config::Config;
use tilerast_golden::quad_packer::QuadPackerGeom;

tilerast_golden::quad_packer_streams! { crate::streams::stream_block;
    /// The quad packer block. Build with [`QuadPacker::new`].
    pub struct QuadPacker {
        // ---- preset constants ----
        c_qmask: Constant<Bits<4>>,
        c_kmask: Constant<Bits<4>>,
        c_q: Constant<Bits<4>>,
        c_multi: Constant<Bit>,
        c_mmask: Constant<Bits<64>>,
        c_sqx: Constant<Bits<12>>,
        c_sqy: Constant<Bits<12>>,
        c_cmask: Constant<Bits<12>>,
        c_rmask: Constant<Bits<12>>,
        c_csh: Constant<Bits<12>>,
        c_idx: Vec<Constant<Bits<4>>>,
        c_lbit: Vec<Constant<Bits<4>>>,
        c_hidx: Vec<Constant<Bits<4>>>,

        // ---- combinational ----
        lqx: Vec<Signal<Local, Bits<12>>>,
        lqy: Vec<Signal<Local, Bits<12>>>,
        lmask: Vec<Signal<Local, Bits<64>>>,
        lblk: Vec<Signal<Local, Bits<12>>>,
        ival: Signal<Local, Bits<4>>,
        pos: Vec<Signal<Local, Bits<4>>>,
        tot: Signal<Local, Bits<4>>,
        fill: Signal<Local, Bit>,
        can_out: Signal<Local, Bit>,
        accept: Signal<Local, Bit>,
        sv: Vec<Signal<Local, Bit>>,
        sqx: Vec<Signal<Local, Bits<12>>>,
        sqy: Vec<Signal<Local, Bits<12>>>,
        smask: Vec<Signal<Local, Bits<64>>>,
        sblk: Vec<Signal<Local, Bits<12>>>,
        hqx: Vec<Signal<Local, Bits<12>>>,
        hqy: Vec<Signal<Local, Bits<12>>>,
        hmask: Vec<Signal<Local, Bits<64>>>,
        hblk: Vec<Signal<Local, Bits<12>>>,
        nv: Vec<Signal<Local, Bit>>,
        nqx: Vec<Signal<Local, Bits<12>>>,
        nqy: Vec<Signal<Local, Bits<12>>>,
        nmask: Vec<Signal<Local, Bits<64>>>,
        nblk: Vec<Signal<Local, Bits<12>>>,
        lvc: Vec<Signal<Local, Bits<4>>>,

        // ---- registers ----
        acc_n: DFF<Bits<4>>,
        pend: DFF<Bit>,
        prim_r: DFF<Bits<24>>,
        kind_r: DFF<Bit>,
        aqx: Vec<DFF<Bits<12>>>,
        aqy: Vec<DFF<Bits<12>>>,
        amask: Vec<DFF<Bits<64>>>,
        ablk: Vec<DFF<Bits<12>>>,
        ov: DFF<Bit>,
        oprim: DFF<Bits<24>>,
        okind: DFF<Bit>,
        olv: DFF<Bits<4>>,
        oqx: [DFF<Bits<12>>; 4],
        oqy: [DFF<Bits<12>>; 4],
        omask: [DFF<Bits<64>>; 4],
        oblk: [DFF<Bits<12>>; 4],
        olast: DFF<Bit>,

        // ---- elaboration-time loop bounds (not signals) ----
        _q: usize,
        _q1: usize,
        _qm1: usize,
        _has1: usize,
        _has2: usize,
    }
}

impl QuadPacker {
    /// The block for `cfg`, or why the RTL cannot pack for it (see [`QuadPackerGeom::new`]).
    pub fn try_new(cfg: &Config) -> Result<QuadPacker, String> {
        let g = QuadPackerGeom::new(cfg)?;
        let q = g.q as u64;
        let mask_bits = 4 * cfg.msaa as u64;
        let qu = q as usize;
        Ok(QuadPacker {
            clock: Default::default(),
            flush: Default::default(),
            in_valid: Default::default(),
            in_ready: Default::default(),
            inp: Default::default(),
            out_valid: Default::default(),
            out_ready: Default::default(),
            out: Default::default(),
            c_qmask: k((1 << q) - 1),
            c_kmask: k(q - 1),
            c_q: k(q),
            c_multi: Constant::new(q > 1),
            c_mmask: k(if mask_bits == 64 {
                u64::MAX
            } else {
                (1 << mask_bits) - 1
            }),
            c_sqx: k(g.sub_qshift[0] as u64),
            c_sqy: k(g.sub_qshift[1] as u64),
            c_cmask: k((1 << g.cols_shift[0]) - 1),
            c_rmask: k((1 << g.cols_shift[1]) - 1),
            c_csh: k(g.cols_shift[0] as u64),
            c_idx: (0..q).map(k).collect(),
            c_lbit: (0..q).map(|l| k(1 << l)).collect(),
            c_hidx: (q..2 * q - 1).map(k).collect(),
            lqx: vec_of(qu),
            lqy: vec_of(qu),
            lmask: vec_of(qu),
            lblk: vec_of(qu),
            ival: Default::default(),
            pos: vec_of(qu + 1),
            tot: Default::default(),
            fill: Default::default(),
            can_out: Default::default(),
            accept: Default::default(),
            sv: vec_of(qu),
            sqx: vec_of(qu),
            sqy: vec_of(qu),
            smask: vec_of(qu),
            sblk: vec_of(qu),
            hqx: vec_of(qu - 1),
            hqy: vec_of(qu - 1),
            hmask: vec_of(qu - 1),
            hblk: vec_of(qu - 1),
            nv: vec_of(qu),
            nqx: vec_of(qu),
            nqy: vec_of(qu),
            nmask: vec_of(qu),
            nblk: vec_of(qu),
            lvc: vec_of(qu + 1),
            acc_n: Default::default(),
            pend: Default::default(),
            prim_r: Default::default(),
            kind_r: Default::default(),
            aqx: vec_of(qu - 1),
            aqy: vec_of(qu - 1),
            amask: vec_of(qu - 1),
            ablk: vec_of(qu - 1),
            ov: Default::default(),
            oprim: Default::default(),
            okind: Default::default(),
            olv: Default::default(),
            oqx: Default::default(),
            oqy: Default::default(),
            omask: Default::default(),
            oblk: Default::default(),
            olast: Default::default(),
            _q: qu,
            _q1: qu + 1,
            _qm1: qu - 1,
            _has1: (qu > 1) as usize,
            _has2: (qu > 2) as usize,
        })
    }

    /// The block for `cfg`.
    ///
    /// # Panics
    /// With the reason if the config is not supported (see [`QuadPacker::try_new`]).
    pub fn new(cfg: &Config) -> QuadPacker {
        QuadPacker::try_new(cfg).unwrap_or_else(|e| panic!("{e}"))
    }
}

impl Logic for QuadPacker {
    #[hdl_gen]
    fn update(&mut self) {
        dff_setup!(self, clock, acc_n, pend, prim_r, kind_r, ov, oprim, okind, olv, olast);
        for i in 0..self._qm1 {
            self.aqx[i].clock.next = self.clock.val();
            self.aqx[i].d.next = self.aqx[i].q.val();
            self.aqy[i].clock.next = self.clock.val();
            self.aqy[i].d.next = self.aqy[i].q.val();
            self.amask[i].clock.next = self.clock.val();
            self.amask[i].d.next = self.amask[i].q.val();
            self.ablk[i].clock.next = self.clock.val();
            self.ablk[i].d.next = self.ablk[i].q.val();
        }
        for i in 0..4 {
            self.oqx[i].clock.next = self.clock.val();
            self.oqx[i].d.next = self.oqx[i].q.val();
            self.oqy[i].clock.next = self.clock.val();
            self.oqy[i].d.next = self.oqy[i].q.val();
            self.omask[i].clock.next = self.clock.val();
            self.omask[i].d.next = self.omask[i].q.val();
            self.oblk[i].clock.next = self.clock.val();
            self.oblk[i].d.next = self.oblk[i].q.val();
        }

        // Input lanes (masks cut to 4·S bits) and their blocks (bit fields of qx, qy).
        self.lqx[0].next = self.inp.qx_0.val();
        self.lqy[0].next = self.inp.qy_0.val();
        self.lmask[0].next = self.inp.mask_0.val() & self.c_mmask.val();
        for _z in 0..self._has1 {
            self.lqx[1].next = self.inp.qx_1.val();
            self.lqy[1].next = self.inp.qy_1.val();
            self.lmask[1].next = self.inp.mask_1.val() & self.c_mmask.val();
        }
        for _z in 0..self._has2 {
            self.lqx[2].next = self.inp.qx_2.val();
            self.lqy[2].next = self.inp.qy_2.val();
            self.lmask[2].next = self.inp.mask_2.val() & self.c_mmask.val();
            self.lqx[3].next = self.inp.qx_3.val();
            self.lqy[3].next = self.inp.qy_3.val();
            self.lmask[3].next = self.inp.mask_3.val() & self.c_mmask.val();
        }
        for j in 0..self._q {
            self.lblk[j].next = (((self.lqy[j].val() >> self.c_sqy.val()) & self.c_rmask.val()) << self.c_csh.val())
                | ((self.lqx[j].val() >> self.c_sqx.val()) & self.c_cmask.val());
        }
        self.ival.next = self.inp.lane_valid.val() & self.c_qmask.val();

        // Slot of every valid input lane: acc_n + number of valid lanes below it.
        self.pos[0].next = self.acc_n.q.val();
        for j in 0..self._q {
            if self.ival.val().get_bit(j) {
                self.pos[j + 1].next = self.pos[j].val() + 1;
            } else {
                self.pos[j + 1].next = self.pos[j].val();
            }
        }
        self.tot.next = 0.into();
        for j in self._q..(self._q + 1) {
            self.tot.next = self.pos[j].val();
        }
        self.fill.next = self.tot.val() >= self.c_q.val();

        // Slots 0..Q: accumulator first, then the valid input lanes in order.
        for i in 0..self._q {
            self.sv[i].next = false;
            self.sqx[i].next = 0.into();
            self.sqy[i].next = 0.into();
            self.smask[i].next = 0.into();
            self.sblk[i].next = 0.into();
        }
        for i in 0..self._qm1 {
            if self.acc_n.q.val() > self.c_idx[i].val() {
                self.sv[i].next = true;
                self.sqx[i].next = self.aqx[i].q.val();
                self.sqy[i].next = self.aqy[i].q.val();
                self.smask[i].next = self.amask[i].q.val();
                self.sblk[i].next = self.ablk[i].q.val();
            }
        }
        for i in 0..self._q {
            for j in 0..self._q {
                if self.ival.val().get_bit(j) & (self.pos[j].val() == self.c_idx[i].val()) {
                    self.sv[i].next = true;
                    self.sqx[i].next = self.lqx[j].val();
                    self.sqy[i].next = self.lqy[j].val();
                    self.smask[i].next = self.lmask[j].val();
                    self.sblk[i].next = self.lblk[j].val();
                }
            }
        }
        // Slots Q.. (only ever filled from the input, as acc_n < Q): the next accumulator.
        for i in 0..self._qm1 {
            self.hqx[i].next = 0.into();
            self.hqy[i].next = 0.into();
            self.hmask[i].next = 0.into();
            self.hblk[i].next = 0.into();
            for j in 0..self._q {
                if self.ival.val().get_bit(j) & (self.pos[j].val() == self.c_hidx[i].val()) {
                    self.hqx[i].next = self.lqx[j].val();
                    self.hqy[i].next = self.lqy[j].val();
                    self.hmask[i].next = self.lmask[j].val();
                    self.hblk[i].next = self.lblk[j].val();
                }
            }
        }

        // Handshake.
        self.can_out.next = !self.ov.q.val() | self.out_ready.val();
        self.in_ready.next = !self.pend.q.val() & self.can_out.val();
        self.accept.next = self.in_valid.val() & !self.pend.q.val() & self.can_out.val();
        if self.out_ready.val() {
            self.ov.d.next = false;
        }

        // Candidate output lanes: the pending remainder, or the first Q slots.
        for i in 0..self._q {
            self.nv[i].next = false;
            self.nqx[i].next = 0.into();
            self.nqy[i].next = 0.into();
            self.nmask[i].next = 0.into();
            self.nblk[i].next = 0.into();
        }
        if self.pend.q.val() {
            for i in 0..self._qm1 {
                if self.acc_n.q.val() > self.c_idx[i].val() {
                    self.nv[i].next = true;
                    self.nqx[i].next = self.aqx[i].q.val();
                    self.nqy[i].next = self.aqy[i].q.val();
                    self.nmask[i].next = self.amask[i].q.val();
                    self.nblk[i].next = self.ablk[i].q.val();
                }
            }
        } else {
            for i in 0..self._q {
                self.nv[i].next = self.sv[i].val();
                self.nqx[i].next = self.sqx[i].val();
                self.nqy[i].next = self.sqy[i].val();
                self.nmask[i].next = self.smask[i].val();
                self.nblk[i].next = self.sblk[i].val();
            }
        }

        self.lvc[0].next = 0.into();
        for i in 0..self._q {
            if self.nv[i].val() {
                self.lvc[i + 1].next = self.lvc[i].val() | self.c_lbit[i].val();
            } else {
                self.lvc[i + 1].next = self.lvc[i].val();
            }
        }

        if self.pend.q.val() & self.can_out.val() {
            // The remainder of an overflowing `last` beat.
            self.ov.d.next = true;
            self.olast.d.next = true;
            self.oprim.d.next = self.prim_r.q.val();
            self.okind.d.next = self.kind_r.q.val();
            self.acc_n.d.next = 0.into();
            self.pend.d.next = false;
        } else if self.accept.val() {
            self.prim_r.d.next = self.inp.prim.val();
            self.kind_r.d.next = self.inp.kind.val();
            if self.fill.val() {
                self.ov.d.next = true;
                self.olast.d.next = self.inp.last.val() & (self.tot.val() == self.c_q.val());
                self.oprim.d.next = self.inp.prim.val();
                self.okind.d.next = self.inp.kind.val();
                self.acc_n.d.next = (self.tot.val() - self.c_q.val()) & self.c_kmask.val();
                self.pend.d.next = self.inp.last.val() & (self.tot.val() > self.c_q.val()) & self.c_multi.val();
                for i in 0..self._qm1 {
                    self.aqx[i].d.next = self.hqx[i].val();
                    self.aqy[i].d.next = self.hqy[i].val();
                    self.amask[i].d.next = self.hmask[i].val();
                    self.ablk[i].d.next = self.hblk[i].val();
                }
            } else if self.inp.last.val() {
                self.ov.d.next = true;
                self.olast.d.next = true;
                self.oprim.d.next = self.inp.prim.val();
                self.okind.d.next = self.inp.kind.val();
                self.acc_n.d.next = 0.into();
            } else {
                self.acc_n.d.next = self.tot.val() & self.c_kmask.val();
                for i in 0..self._qm1 {
                    self.aqx[i].d.next = self.sqx[i].val();
                    self.aqy[i].d.next = self.sqy[i].val();
                    self.amask[i].d.next = self.smask[i].val();
                    self.ablk[i].d.next = self.sblk[i].val();
                }
            }
        }
        // Load the output lanes whenever a beat leaves.
        if (self.pend.q.val() & self.can_out.val()) | (self.accept.val() & (self.fill.val() | self.inp.last.val())) {
            for zq in self._q..self._q1 {
                self.olv.d.next = self.lvc[zq].val();
            }
            for i in 0..self._q {
                self.oqx[i].d.next = self.nqx[i].val();
                self.oqy[i].d.next = self.nqy[i].val();
                self.omask[i].d.next = self.nmask[i].val();
                self.oblk[i].d.next = self.nblk[i].val();
            }
        }

        // Synchronous flush: every register to zero.
        if self.flush.val() {
            self.acc_n.d.next = 0.into();
            self.pend.d.next = false;
            self.prim_r.d.next = 0.into();
            self.kind_r.d.next = false;
            self.ov.d.next = false;
            self.oprim.d.next = 0.into();
            self.okind.d.next = false;
            self.olv.d.next = 0.into();
            self.olast.d.next = false;
            for i in 0..self._qm1 {
                self.aqx[i].d.next = 0.into();
                self.aqy[i].d.next = 0.into();
                self.amask[i].d.next = 0.into();
                self.ablk[i].d.next = 0.into();
            }
            for i in 0..4 {
                self.oqx[i].d.next = 0.into();
                self.oqy[i].d.next = 0.into();
                self.omask[i].d.next = 0.into();
                self.oblk[i].d.next = 0.into();
            }
        }

        // Outputs straight from the registers.
        self.out_valid.next = self.ov.q.val();
        self.out.prim.next = self.oprim.q.val();
        self.out.kind.next = self.okind.q.val();
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
        self.out.block_0.next = bit_cast::<8, 12>(self.oblk[0].q.val());
        self.out.block_1.next = bit_cast::<8, 12>(self.oblk[1].q.val());
        self.out.block_2.next = bit_cast::<8, 12>(self.oblk[2].q.val());
        self.out.block_3.next = bit_cast::<8, 12>(self.oblk[3].q.val());
    }
}

/// Verilog of the block for `cfg`, top module `name`, post-processed by [`emit::fix_verilog`].
pub fn verilog(cfg: &Config, name: &str) -> String {
    emit::block_verilog(QuadPacker::new(cfg), name)
}
