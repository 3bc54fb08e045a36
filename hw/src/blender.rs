//! # blender (seed 004: sample-pool equality merge)
//!
//! Blends up to four samples per fragment (straight-alpha RGBA8, the four operations of
//! [`tilerast_golden::blender::blend`], bit exact with `⌊v/255⌉` as two adds and shifts) in L
//! lanes, after a comparator that merges samples which will give the same result: with each
//! other in the pool (per whole sample, or per RGBA component), with the ops in flight, and,
//! with an input buffer, samples of the next fragments waiting behind the pool with this
//! cycle's ops and the ops in flight. Merged samples take no lane: their position travels as
//! sideband through the pipeline and the result of the lane they merged onto is replicated to
//! it. Cycle model: [`tilerast_golden::blender::BlenderCycle`] (same registers); its rustdoc is
//! the block's timing contract, stated once, with the difference from the transaction model.
//!
//! **Supported parameters** ([`supported`]): P = `blend_pool` = 4, L = `blend_lanes` = 2,
//! D = `blend_latency` = 4 (every preset), merge Off, PerSample or PerComponent, in-flight
//! match on or off (whole samples, as the model), gating on or off, input buffer
//! B = 0 ..= 4 = 2·(P − L). The pipeline builds B = 0, PerSample, gated, and the in-flight
//! match only where the config's `blend_match_in_flight` asks for it (`full`; [`FILE`]): the
//! in-flight comparators and the sideband that copies their results are two thirds of the
//! block's logic and kept it from routing on the ECP5. `default_comp` and `default_buf`
//! ([`VARIANTS`]) are built for the co-simulation only.
//!
//! **What is elaborated.** With B = 0 the input buffer does not exist in the Verilog: its
//! registers, comparators and gates are vectors of length 0 and every loop over them is bounded
//! by their length (`buf_entries`, `buf_columns`), so no synthesis tool has to find out that
//! they are unused. With B > 0 all four places are built and those beyond B are constant-absent
//! (`c_bv`). Positions are stored in PW = [`pos_bits`] bits (the config's output-merger slots,
//! `(y·W + x)·C + j`: 19 at `default`, 15 at `ice40`, 23 at `full`), one-bit registers per
//! position bit (rust-hdl widths are types; a const-generic width would make this block and
//! every block that holds it generic over the config): the input's bits above PW are ignored (the contract's
//! positions never have them) and the output's are zero. Source and destination components are
//! 8-bit registers, widened only at the stage-1 operands.
//!
//! **PerComponent.** Per component c, the key `(src[c], dst[c], src[3], state)` of each pool
//! entry is compared with every older one; a component's source is the first issued op of the
//! cycle with an equal key (`hs`, `hl`). An entry whose four components have sources merges;
//! an issued op carries per component `qg` (merged) and `qsl` (source lane) down its lane: the
//! component's product and sum registers are gated (with `gate_idle_lanes`) and stage 3's
//! `resf` takes that component from the source lane, so the lane's result (and what in-flight
//! matches copy) is always complete. Slots carry a source lane per component.
//!
//! **Input buffer.** Pool slots 0 and 1 always drain (the first L valid entries always leave),
//! so buffer places sit only behind pool slots 2 and 3: column 2 + m holds the pool entry and
//! up to two buffer entries e = m (first place) and e = 2 + m (second), packed from the pool
//! slot down; constant `c_bv[e]` says which places exist (golden's buffer slot b = 2k + 1 − m
//! for place k: column 3 first, then column 2, then the second places). A buffer entry never
//! takes a lane: it is compared with the pool entries (`beq`, `bceq`) and with the lane stages
//! (`bfm`) like a pool entry, merges onto an op issued this cycle or in flight, and leaves
//! through its column's batch slot when the pool entry stays (`blv`; the first place before
//! the second). Entries behind one that leaves move up; the lane of an accepted fragment goes
//! behind what its column keeps (`keep`, `keep2`).
//!
//! **Ports.** `clock`, `flush` (synchronous reset, every register zero); in:
//! `in_valid`/`in_ready` with `inp` ([`crate::streams::BlendFragIn`], a fragment: lane j valid
//! iff `lane_valid` bit j, packed RGBA8 colours); out: `out_valid`/`out_ready` with `out`
//! ([`crate::streams::BlendBeatOut`]: one batch, slot j = column j, empty slots zero).
//!
//! **Handshake.** `adv = !out_valid | out_ready` moves the whole pipeline;
//! `in_ready = adv & room[0..4]`, column j having room when its pool entry is absent or
//! certain to leave (fewer than L valid entries before it) or one of its buffer places is
//! free; from valid bits only, not the comparators (with B = 0: valid pool entries ≤ L). The
//! only combinational input → output path.
//!
//! **Gating.** With `gate_idle_lanes`, the registers of a lane stage load only when an op
//! enters it (`en = adv & valid`): an idle lane's registers keep their value, a real enable
//! that synthesis maps to clock enables. Without it they load every `adv` cycle.
//!
//! **Depth.** One level of comparators ((P + B) × P keys: pool × pool and buffer × pool, whole
//! and per component; (P + B) × lane stages keys: buffer entries never issue, so buffer ×
//! buffer is not needed), then the oldest-first scan as four steps of gates and a 3-bit count,
//! then the buffer's gates (two per column) and the issue multiplexer. The lane arithmetic:
//! stage 1 operands, stage 2 products (8×8), stage 3 `t = p1 + p2 + 128` (or the replace /
//! saturated add result), `div255`'s `(t + (t >> 8)) >> 8` in front of the slot registers.
//! Every output is a register.
//!
//! ```text
//!  frag ─► column j: pool[j] ◄─ buf[j, 1] ◄─ buf[j, 2]   (buffer places in columns 2, 3 only)
//!            │
//!            ├─ peq/ceq (pool × pool), beq/bceq (buffer × pool), fm/bfm (× lane stages)
//!            │    ─► scan (pool, in order) ─► leave[j] ─► buffer gates ─► blv[e]: the first
//!            │       │ lane, dist                         merging buffer entry of a column
//!            │       │                                    whose pool entry stays
//!            └─► issue mux ─► lane l: [q: key] ─► [p1,p2] ─► [t] ─► div255 ─► [rr]
//!                                (en = adv & valid when gating)      │
//!  slot j (pool j, or buffer entry of column j): [pos, lane, dist, colour] ─► … ─► (latch
//!          res[lane] when the source is at stage 3) ─► out slot j (stage 4 = output register)
//! ```

use crate::emit;
use crate::util::{k, vec_of};
use rust_hdl::prelude::*;
use tilerast_golden::blender::{BlendOpts, BlenderGeom, MergeMode};
use tilerast_golden::config::Config;

/// Bits of a blend position for `cfg` (PW): positions are output-merger slots
/// `(y·W + x)·C + j` ([`tilerast_golden::output_merger::pos_bits`]); the block stores these
/// bits and ignores the rest of the 32-bit stream field. `Err` names the fields if they do not
/// fit the stream's 32 bits.
pub fn pos_bits(cfg: &Config) -> Result<usize, String> {
    let pw = tilerast_golden::output_merger::pos_bits(cfg);
    if pw > 32 {
        return Err(format!(
            "config.viewport/colours_per_pixel: blend positions need {pw} bits; the blender's streams carry 32"
        ));
    }
    Ok(pw as usize)
}

/// Whether the block can be built for `cfg` / `opts`: `Ok`, or one line naming what it
/// supports.
pub fn supported(cfg: &Config, opts: &BlendOpts) -> Result<(), String> {
    let g = BlenderGeom::new(cfg, opts)?;
    pos_bits(cfg)?;
    if (g.pool, g.lanes, g.latency) != (4, 2, 4) {
        return Err(format!(
            "config.blend_pool/blend_lanes/blend_latency: P = {}, L = {}, D = {}; the blender block is built for P = 4, L = 2, D = 4",
            g.pool, g.lanes, g.latency
        ));
    }
    Ok(())
}

tilerast_golden::blender_streams! { crate::streams::stream_block;
    /// The blender block. Build with [`Blender::new`].
    pub struct Blender {
        // ---- constants ----
        c_merge: Constant<Bit>,
        c_comp: Constant<Bit>,
        c_mif: Constant<Bit>,
        c_gate: Constant<Bit>,
        c_bv: Vec<Constant<Bit>>,
        c_l: Constant<Bits<3>>,
        c_lane: Vec<Constant<Bits<3>>>,
        c_lt: Vec<Constant<Bit>>,
        c_k: Vec<Constant<Bits<3>>>,
        c_latch: Vec<Constant<Bits<3>>>,
        c_bit: Vec<Constant<Bits<4>>>,
        c_255: Constant<Bits<16>>,
        c_128: Constant<Bits<16>>,
        c_8: Constant<Bits<16>>,
        c_sh: Vec<Constant<Bits<32>>>,
        c_pbit: Vec<Constant<Bits<32>>>,
        c_isa: Vec<Constant<Bit>>,
        c_op: Vec<Constant<Bits<2>>>,

        // ---- combinational ----
        adv: Signal<Local, Bit>,
        ovo: Signal<Local, Bit>,
        pc: Vec<Signal<Local, Bits<3>>>,
        room: Vec<Signal<Local, Bit>>,
        accept: Signal<Local, Bit>,
        i_v: Vec<Signal<Local, Bit>>,
        i_pos: Vec<Signal<Local, Bits<32>>>,
        i_s: Vec<Signal<Local, Bits<8>>>,
        i_d: Vec<Signal<Local, Bits<8>>>,
        i_st: Vec<Signal<Local, Bits<8>>>,
        beq: Vec<Signal<Local, Bit>>,
        bceq: Vec<Signal<Local, Bit>>,
        bfm: Vec<Signal<Local, Bit>>,
        binf: Vec<Signal<Local, Bit>>,
        binf_k: Vec<Signal<Local, Bits<3>>>,
        binf_l: Vec<Signal<Local, Bit>>,
        bmrg: Vec<Signal<Local, Bit>>,
        bmlane: Vec<Signal<Local, Bit>>,
        bhs: Vec<Signal<Local, Bit>>,
        bhl: Vec<Signal<Local, Bit>>,
        blv: Vec<Signal<Local, Bit>>,
        keep: Vec<Signal<Local, Bit>>,
        keep2: Vec<Signal<Local, Bit>>,
        peq: Vec<Signal<Local, Bit>>,
        ceq: Vec<Signal<Local, Bit>>,
        hs: Vec<Signal<Local, Bit>>,
        hl: Vec<Signal<Local, Bit>>,
        is_g: Vec<Signal<Local, Bit>>,
        is_sl: Vec<Signal<Local, Bit>>,
        cen: Vec<Signal<Local, Bit>>,
        resf: Vec<Signal<Local, Bits<8>>>,
        fm: Vec<Signal<Local, Bit>>,
        inf: Vec<Signal<Local, Bit>>,
        inf_k: Vec<Signal<Local, Bits<3>>>,
        inf_l: Vec<Signal<Local, Bit>>,
        mrg: Vec<Signal<Local, Bit>>,
        mlane: Vec<Signal<Local, Bit>>,
        iss: Vec<Signal<Local, Bit>>,
        lv: Vec<Signal<Local, Bit>>,
        cnt: Vec<Signal<Local, Bits<3>>>,
        is_v: Vec<Signal<Local, Bit>>,
        is_s: Vec<Signal<Local, Bits<8>>>,
        is_d: Vec<Signal<Local, Bits<8>>>,
        is_st: Vec<Signal<Local, Bits<8>>>,
        en: Vec<Signal<Local, Bit>>,
        op1: Vec<Signal<Local, Bits<2>>>,
        op2: Vec<Signal<Local, Bits<2>>>,
        op3: Vec<Signal<Local, Bits<2>>>,
        ma: Vec<Signal<Local, Bits<16>>>,
        mb: Vec<Signal<Local, Bits<16>>>,
        mc: Vec<Signal<Local, Bits<16>>>,
        md: Vec<Signal<Local, Bits<16>>>,
        pr1: Vec<Signal<Local, Bits<32>>>,
        pr2: Vec<Signal<Local, Bits<32>>>,
        sum: Vec<Signal<Local, Bits<16>>>,
        rsum: Vec<Signal<Local, Bits<16>>>,
        res: Vec<Signal<Local, Bits<8>>>,
        lvc: Vec<Signal<Local, Bits<4>>>,

        // ---- registers ----
        pv: Vec<DFF<Bit>>,
        ppos: Vec<DFF<Bit>>,
        ps: Vec<DFF<Bits<8>>>,
        pd: Vec<DFF<Bits<8>>>,
        pst: Vec<DFF<Bits<8>>>,
        bv: Vec<DFF<Bit>>,
        bpos: Vec<DFF<Bit>>,
        bs: Vec<DFF<Bits<8>>>,
        bd: Vec<DFF<Bits<8>>>,
        bst: Vec<DFF<Bits<8>>>,
        qv: Vec<DFF<Bit>>,
        qs: Vec<DFF<Bits<8>>>,
        qd: Vec<DFF<Bits<8>>>,
        qst: Vec<DFF<Bits<8>>>,
        qg: Vec<DFF<Bit>>,
        qsl: Vec<DFF<Bit>>,
        ap1: Vec<DFF<Bits<16>>>,
        ap2: Vec<DFF<Bits<16>>>,
        at: Vec<DFF<Bits<16>>>,
        rr: Vec<DFF<Bits<8>>>,
        sv: Vec<DFF<Bit>>,
        spos: Vec<DFF<Bit>>,
        scol: Vec<DFF<Bits<8>>>,
        slane: Vec<DFF<Bit>>,
        sdist: Vec<DFF<Bits<3>>>,
    }
}

impl Blender {
    /// The block for `cfg` / `opts`, or why it cannot be built ([`supported`]).
    pub fn try_new(cfg: &Config, opts: &BlendOpts) -> Result<Blender, String> {
        supported(cfg, opts)?;
        // The input buffer's registers and logic exist only with B > 0: four places (those
        // beyond B are constant-absent, `c_bv`), two columns; none at all with B = 0.
        let nb = if opts.input_buffer > 0 { 4 } else { 0 };
        let pw = pos_bits(cfg)?;
        Ok(Blender {
            clock: Default::default(),
            flush: Default::default(),
            in_valid: Default::default(),
            in_ready: Default::default(),
            idle: Default::default(),
            inp: Default::default(),
            out_valid: Default::default(),
            out_ready: Default::default(),
            out: Default::default(),
            c_merge: Constant::new(opts.merge != MergeMode::Off),
            c_comp: Constant::new(opts.merge == MergeMode::PerComponent),
            c_mif: Constant::new(opts.match_in_flight),
            c_gate: Constant::new(opts.gate_idle_lanes),
            // Buffer entry e = k·2 + m: column 2 + m, place k + 1 behind the pool slot; it is
            // golden's buffer slot b = 2k + 1 − m (BlenderGeom::depth: from the last column).
            c_bv: (0..nb)
                .map(|e| Constant::new(e / 2 * 2 + 1 - e % 2 < opts.input_buffer))
                .collect(),
            c_l: k(2),
            c_lane: (0..2).map(k).collect(),
            c_lt: (0..16).map(|x| Constant::new(x / 4 < x % 4)).collect(),
            // Stage s + 1 of an in-flight source found in stage index s.
            c_k: (1..5).map(k).collect(),
            // A slot leaving stage s + 1 (s < 3) latches when its source is in stage 3: distance 2 − s.
            c_latch: (0..3).map(|s: u64| k(2 - s)).collect(),
            c_bit: (0..4).map(|j| k(1 << j)).collect(),
            c_255: k(255),
            c_128: k(128),
            c_8: k(8),
            c_sh: [8u64, 16, 24].into_iter().map(k).collect(),
            c_pbit: (0..pw).map(|b| k(1 << b)).collect(),
            c_isa: (0..4).map(|c| Constant::new(c == 3)).collect(),
            c_op: (0..4).map(k).collect(),
            adv: Default::default(),
            ovo: Default::default(),
            pc: vec_of(5),
            room: vec_of(4),
            accept: Default::default(),
            i_v: vec_of(4),
            i_pos: vec_of(4),
            i_s: vec_of(16),
            i_d: vec_of(16),
            i_st: vec_of(4),
            beq: vec_of(nb * 4),
            bceq: vec_of(nb * 16),
            bfm: vec_of(nb * 8),
            binf: vec_of(nb),
            binf_k: vec_of(nb),
            binf_l: vec_of(nb),
            bmrg: vec_of(nb),
            bmlane: vec_of(nb),
            bhs: vec_of(nb * 4),
            bhl: vec_of(nb * 4),
            blv: vec_of(nb),
            keep: vec_of(4),
            keep2: vec_of(nb / 2),
            peq: vec_of(16),
            ceq: vec_of(64),
            hs: vec_of(16),
            hl: vec_of(16),
            is_g: vec_of(8),
            is_sl: vec_of(8),
            cen: vec_of(16),
            resf: vec_of(8),
            fm: vec_of(32),
            inf: vec_of(4),
            inf_k: vec_of(4),
            inf_l: vec_of(4),
            mrg: vec_of(4),
            mlane: vec_of(4),
            iss: vec_of(4),
            lv: vec_of(4),
            cnt: vec_of(5),
            is_v: vec_of(2),
            is_s: vec_of(8),
            is_d: vec_of(8),
            is_st: vec_of(2),
            en: vec_of(8),
            op1: vec_of(2),
            op2: vec_of(2),
            op3: vec_of(2),
            ma: vec_of(8),
            mb: vec_of(8),
            mc: vec_of(8),
            md: vec_of(8),
            pr1: vec_of(8),
            pr2: vec_of(8),
            sum: vec_of(8),
            rsum: vec_of(8),
            res: vec_of(8),
            lvc: vec_of(5),
            pv: vec_of(4),
            ppos: vec_of(4 * pw),
            ps: vec_of(16),
            pd: vec_of(16),
            pst: vec_of(4),
            bv: vec_of(nb),
            bpos: vec_of(nb * pw),
            bs: vec_of(nb * 4),
            bd: vec_of(nb * 4),
            bst: vec_of(nb),
            qv: vec_of(8),
            qs: vec_of(32),
            qd: vec_of(32),
            qst: vec_of(8),
            qg: vec_of(24),
            qsl: vec_of(24),
            ap1: vec_of(8),
            ap2: vec_of(8),
            at: vec_of(8),
            rr: vec_of(8),
            sv: vec_of(16),
            spos: vec_of(16 * pw),
            scol: vec_of(64),
            slane: vec_of(64),
            sdist: vec_of(16),
        })
    }

    /// Position bits stored (PW, [`pos_bits`]): position registers are one bit each, bit b of
    /// pool slot j at `b*4 + j`, of buffer entry e at `b*4 + e`, of sideband slot i at `b*16 + i`.
    fn pw(&self) -> usize {
        self.c_pbit.len()
    }

    /// Input-buffer entries built: 4 with B > 0 (places beyond B constant-absent), 0 with B = 0.
    fn buf_entries(&self) -> usize {
        self.bv.len()
    }

    /// Columns with buffer places (2, 3): 2 with B > 0, none with B = 0.
    fn buf_columns(&self) -> usize {
        self.bv.len() / 2
    }

    /// Input-buffer component registers (entry e, component c: `e*4 + c`): 16 or none.
    fn buf_keys(&self) -> usize {
        self.bs.len()
    }

    /// The block for `cfg` / `opts`.
    ///
    /// # Panics
    /// With the reason if they are not supported ([`supported`]).
    pub fn new(cfg: &Config, opts: &BlendOpts) -> Blender {
        Blender::try_new(cfg, opts).unwrap_or_else(|e| panic!("{e}"))
    }

    /// The block's logic (vector indices are expressions of the loop variables, which
    /// rust-hdl's generator cannot evaluate alone: `hdl` goes through
    /// [`emit::resolve_indices`]). Index layout: pool slot j, component c: `j*4 + c`; lane
    /// stage s (0 = stage 1), lane l: `s*2 + l`, its components `(s*2 + l)*4 + c`; lane l's
    /// arithmetic registers `l*4 + c`; sideband stage s slot j: `s*4 + j`, colour
    /// `(s*4 + j)*4 + c`; in-flight match of slot j with stage s lane l: `j*8 + s*2 + l`.
    #[hdl_gen]
    fn kernel(&mut self) {
        for j in 0..4 {
            self.pv[j].clock.next = self.clock.val();
            self.pv[j].d.next = self.pv[j].q.val();
            self.pst[j].clock.next = self.clock.val();
            self.pst[j].d.next = self.pst[j].q.val();
        }
        for i in 0..self.ppos.len() {
            self.ppos[i].clock.next = self.clock.val();
            self.ppos[i].d.next = self.ppos[i].q.val();
        }
        for i in 0..self.bpos.len() {
            self.bpos[i].clock.next = self.clock.val();
            self.bpos[i].d.next = self.bpos[i].q.val();
        }
        for i in 0..self.spos.len() {
            self.spos[i].clock.next = self.clock.val();
            self.spos[i].d.next = self.spos[i].q.val();
        }
        for e in 0..self.buf_entries() {
            self.bv[e].clock.next = self.clock.val();
            self.bv[e].d.next = self.bv[e].q.val();
            self.bst[e].clock.next = self.clock.val();
            self.bst[e].d.next = self.bst[e].q.val();
        }
        for i in 0..self.buf_keys() {
            self.bs[i].clock.next = self.clock.val();
            self.bs[i].d.next = self.bs[i].q.val();
            self.bd[i].clock.next = self.clock.val();
            self.bd[i].d.next = self.bd[i].q.val();
        }
        for i in 0..16 {
            self.ps[i].clock.next = self.clock.val();
            self.ps[i].d.next = self.ps[i].q.val();
            self.pd[i].clock.next = self.clock.val();
            self.pd[i].d.next = self.pd[i].q.val();
            self.sv[i].clock.next = self.clock.val();
            self.sv[i].d.next = self.sv[i].q.val();
            self.sdist[i].clock.next = self.clock.val();
            self.sdist[i].d.next = self.sdist[i].q.val();
        }
        for i in 0..8 {
            self.qv[i].clock.next = self.clock.val();
            self.qv[i].d.next = self.qv[i].q.val();
            self.qst[i].clock.next = self.clock.val();
            self.qst[i].d.next = self.qst[i].q.val();
            self.ap1[i].clock.next = self.clock.val();
            self.ap1[i].d.next = self.ap1[i].q.val();
            self.ap2[i].clock.next = self.clock.val();
            self.ap2[i].d.next = self.ap2[i].q.val();
            self.at[i].clock.next = self.clock.val();
            self.at[i].d.next = self.at[i].q.val();
            self.rr[i].clock.next = self.clock.val();
            self.rr[i].d.next = self.rr[i].q.val();
        }
        for i in 0..32 {
            self.qs[i].clock.next = self.clock.val();
            self.qs[i].d.next = self.qs[i].q.val();
            self.qd[i].clock.next = self.clock.val();
            self.qd[i].d.next = self.qd[i].q.val();
        }
        for i in 0..64 {
            self.scol[i].clock.next = self.clock.val();
            self.scol[i].d.next = self.scol[i].q.val();
            self.slane[i].clock.next = self.clock.val();
            self.slane[i].d.next = self.slane[i].q.val();
        }
        for i in 0..24 {
            self.qg[i].clock.next = self.clock.val();
            self.qg[i].d.next = self.qg[i].q.val();
            self.qsl[i].clock.next = self.clock.val();
            self.qsl[i].d.next = self.qsl[i].q.val();
        }

        // ---- handshake ----
        self.ovo.next = self.sv[12].q.val() | self.sv[13].q.val() | self.sv[14].q.val() | self.sv[15].q.val();
        self.adv.next = !self.ovo.val() | self.out_ready.val();
        self.pc[0].next = 0.into();
        for j in 0..4 {
            if self.pv[j].q.val() {
                self.pc[j + 1].next = self.pc[j].val() + self.c_lane[1].val();
            } else {
                self.pc[j + 1].next = self.pc[j].val();
            }
        }
        // Column j has room: its pool entry is absent or certain to leave (fewer than L valid
        // entries before it), or one of its buffer places (columns 2, 3) exists and is empty.
        for j in 0..4 {
            self.room[j].next = !self.pv[j].q.val() | (self.pc[j].val() < self.c_l.val());
        }
        for m in 0..self.buf_columns() {
            self.room[2 + m].next = !self.pv[2 + m].q.val()
                | (self.pc[2 + m].val() < self.c_l.val())
                | (self.c_bv[m].val() & !self.bv[m].q.val())
                | (self.c_bv[2 + m].val() & !self.bv[2 + m].q.val());
        }
        self.in_ready.next =
            self.adv.val() & self.room[0].val() & self.room[1].val() & self.room[2].val() & self.room[3].val();
        self.accept.next = self.in_valid.val() & self.in_ready.val();

        // ---- comparators: pool × pool, pool × lane stages (one level) ----
        for i in 0..4 {
            for j in 0..4 {
                self.peq[i * 4 + j].next = self.pst[i].q.val() == self.pst[j].q.val();
                for c in 0..4 {
                    if (self.ps[i * 4 + c].q.val() != self.ps[j * 4 + c].q.val())
                        | (self.pd[i * 4 + c].q.val() != self.pd[j * 4 + c].q.val())
                    {
                        self.peq[i * 4 + j].next = false;
                    }
                }
            }
        }
        for c in 0..4 {
            for i in 0..4 {
                for j in 0..4 {
                    self.ceq[c * 16 + i * 4 + j].next = (self.ps[i * 4 + c].q.val() == self.ps[j * 4 + c].q.val())
                        & (self.pd[i * 4 + c].q.val() == self.pd[j * 4 + c].q.val())
                        & (self.ps[i * 4 + 3].q.val() == self.ps[j * 4 + 3].q.val())
                        & (self.pst[i].q.val() == self.pst[j].q.val());
                }
            }
        }
        for j in 0..4 {
            for s in 0..4 {
                for l in 0..2 {
                    self.fm[j * 8 + s * 2 + l].next =
                        self.qv[s * 2 + l].q.val() & (self.qst[s * 2 + l].q.val() == self.pst[j].q.val());
                    for c in 0..4 {
                        if (self.qs[(s * 2 + l) * 4 + c].q.val() != self.ps[j * 4 + c].q.val())
                            | (self.qd[(s * 2 + l) * 4 + c].q.val() != self.pd[j * 4 + c].q.val())
                        {
                            self.fm[j * 8 + s * 2 + l].next = false;
                        }
                    }
                }
            }
        }

        // Input buffer: buffer × pool keys (whole and per component), buffer × lane stages.
        for b in 0..self.buf_entries() {
            for i in 0..4 {
                self.beq[b * 4 + i].next = self.bst[b].q.val() == self.pst[i].q.val();
                for c in 0..4 {
                    if (self.bs[b * 4 + c].q.val() != self.ps[i * 4 + c].q.val())
                        | (self.bd[b * 4 + c].q.val() != self.pd[i * 4 + c].q.val())
                    {
                        self.beq[b * 4 + i].next = false;
                    }
                }
            }
        }
        for c in 0..4 {
            for b in 0..self.buf_entries() {
                for i in 0..4 {
                    self.bceq[c * 16 + b * 4 + i].next = (self.bs[b * 4 + c].q.val() == self.ps[i * 4 + c].q.val())
                        & (self.bd[b * 4 + c].q.val() == self.pd[i * 4 + c].q.val())
                        & (self.bs[b * 4 + 3].q.val() == self.ps[i * 4 + 3].q.val())
                        & (self.bst[b].q.val() == self.pst[i].q.val());
                }
            }
        }
        for b in 0..self.buf_entries() {
            for s in 0..4 {
                for l in 0..2 {
                    self.bfm[b * 8 + s * 2 + l].next =
                        self.qv[s * 2 + l].q.val() & (self.qst[s * 2 + l].q.val() == self.bst[b].q.val());
                    for c in 0..4 {
                        if (self.qs[(s * 2 + l) * 4 + c].q.val() != self.bs[b * 4 + c].q.val())
                            | (self.qd[(s * 2 + l) * 4 + c].q.val() != self.bd[b * 4 + c].q.val())
                        {
                            self.bfm[b * 8 + s * 2 + l].next = false;
                        }
                    }
                }
            }
        }

        // ---- scan, oldest first (gates and a 3-bit count) ----
        self.cnt[0].next = 0.into();
        for j in 0..4 {
            self.inf[j].next = false;
            self.inf_k[j].next = 0.into();
            self.inf_l[j].next = false;
            for s in 0..4 {
                for l in 0..2 {
                    if self.fm[j * 8 + s * 2 + l].val() {
                        self.inf[j].next = self.pv[j].q.val() & self.c_merge.val() & self.c_mif.val();
                        self.inf_k[j].next = self.c_k[s].val();
                        self.inf_l[j].next = self.c_lane[l].val().get_bit(0);
                    }
                }
            }
            self.mrg[j].next = false;
            self.mlane[j].next = false;
            for i in 0..4 {
                if self.c_lt[i * 4 + j].val()
                    & self.iss[i].val()
                    & self.peq[i * 4 + j].val()
                    & self.c_merge.val()
                    & !self.c_comp.val()
                {
                    self.mrg[j].next = self.pv[j].q.val() & !self.inf[j].val();
                    self.mlane[j].next = self.cnt[i].val().get_bit(0);
                }
            }
            // PerComponent: the first issued op (lowest slot) with an equal component key is
            // each component's source (the loop runs the slots downwards, the last hit wins).
            for c in 0..4 {
                self.hs[j * 4 + c].next = false;
                self.hl[j * 4 + c].next = false;
                for i in 0..4 {
                    if self.c_lt[(3 - i) * 4 + j].val()
                        & self.iss[3 - i].val()
                        & self.ceq[c * 16 + (3 - i) * 4 + j].val()
                    {
                        self.hs[j * 4 + c].next = self.c_comp.val();
                        self.hl[j * 4 + c].next = self.cnt[3 - i].val().get_bit(0);
                    }
                }
            }
            if self.c_comp.val() {
                self.mrg[j].next = self.pv[j].q.val()
                    & !self.inf[j].val()
                    & self.hs[j * 4].val()
                    & self.hs[j * 4 + 1].val()
                    & self.hs[j * 4 + 2].val()
                    & self.hs[j * 4 + 3].val();
            }
            self.iss[j].next =
                self.pv[j].q.val() & !self.inf[j].val() & !self.mrg[j].val() & (self.cnt[j].val() < self.c_l.val());
            if self.iss[j].val() {
                self.cnt[j + 1].next = self.cnt[j].val() + self.c_lane[1].val();
            } else {
                self.cnt[j + 1].next = self.cnt[j].val();
            }
            self.lv[j].next = self.inf[j].val() | self.mrg[j].val() | self.iss[j].val();
        }

        // ---- input buffer: merge only, through the batch slot of a pool entry that stays ----
        for j in 0..self.buf_entries() {
            self.binf[j].next = false;
            self.binf_k[j].next = 0.into();
            self.binf_l[j].next = false;
            for s in 0..4 {
                for l in 0..2 {
                    if self.bfm[j * 8 + s * 2 + l].val() {
                        self.binf[j].next = self.bv[j].q.val() & self.c_merge.val() & self.c_mif.val();
                        self.binf_k[j].next = self.c_k[s].val();
                        self.binf_l[j].next = self.c_lane[l].val().get_bit(0);
                    }
                }
            }
            self.bmrg[j].next = false;
            self.bmlane[j].next = false;
            for i in 0..4 {
                if self.iss[i].val() & self.beq[j * 4 + i].val() & self.c_merge.val() & !self.c_comp.val() {
                    self.bmrg[j].next = self.bv[j].q.val() & !self.binf[j].val();
                    self.bmlane[j].next = self.cnt[i].val().get_bit(0);
                }
            }
            for c in 0..4 {
                self.bhs[j * 4 + c].next = false;
                self.bhl[j * 4 + c].next = false;
                for i in 0..4 {
                    if self.iss[3 - i].val() & self.bceq[c * 16 + j * 4 + (3 - i)].val() {
                        self.bhs[j * 4 + c].next = self.c_comp.val();
                        self.bhl[j * 4 + c].next = self.cnt[3 - i].val().get_bit(0);
                    }
                }
            }
            if self.c_comp.val() {
                self.bmrg[j].next = self.bv[j].q.val()
                    & !self.binf[j].val()
                    & self.bhs[j * 4].val()
                    & self.bhs[j * 4 + 1].val()
                    & self.bhs[j * 4 + 2].val()
                    & self.bhs[j * 4 + 3].val();
            }
        }
        // The first merging entry of a column's buffer leaves through its batch slot, if the
        // pool entry stays. `keep`/`keep2`: the column still holds one / two entries after this
        // edge's departures (at most one entry per column leaves).
        for j in 0..4 {
            self.keep[j].next = self.pv[j].q.val() & !self.lv[j].val();
        }
        for m in 0..self.buf_columns() {
            self.blv[m].next = (self.binf[m].val() | self.bmrg[m].val()) & !self.lv[2 + m].val();
            self.blv[2 + m].next =
                (self.binf[2 + m].val() | self.bmrg[2 + m].val()) & !self.lv[2 + m].val() & !self.blv[m].val();
            self.keep[2 + m].next = (self.pv[2 + m].q.val() & !self.lv[2 + m].val())
                | (self.bv[m].q.val() & !self.blv[m].val())
                | (self.bv[2 + m].q.val() & !self.blv[2 + m].val());
            self.keep2[m].next =
                self.bv[2 + m].q.val() | (self.bv[m].q.val() & !self.lv[2 + m].val() & !self.blv[m].val());
        }

        // ---- issue multiplexer ----
        for l in 0..2 {
            self.is_v[l].next = false;
            self.is_st[l].next = 0.into();
            for c in 0..4 {
                self.is_s[l * 4 + c].next = 0.into();
                self.is_d[l * 4 + c].next = 0.into();
                self.is_g[l * 4 + c].next = false;
                self.is_sl[l * 4 + c].next = false;
            }
            for j in 0..4 {
                if self.iss[j].val() & (self.cnt[j].val() == self.c_lane[l].val()) {
                    self.is_v[l].next = true;
                    self.is_st[l].next = self.pst[j].q.val();
                    for c in 0..4 {
                        self.is_s[l * 4 + c].next = self.ps[j * 4 + c].q.val();
                        self.is_d[l * 4 + c].next = self.pd[j * 4 + c].q.val();
                        self.is_g[l * 4 + c].next = self.hs[j * 4 + c].val();
                        self.is_sl[l * 4 + c].next = self.hl[j * 4 + c].val();
                    }
                }
            }
        }

        // ---- lanes: enables (gating), key registers, arithmetic ----
        for l in 0..2 {
            self.en[l].next = self.adv.val() & (self.is_v[l].val() | !self.c_gate.val());
            for s in 1..4 {
                self.en[s * 2 + l].next = self.adv.val() & (self.qv[(s - 1) * 2 + l].q.val() | !self.c_gate.val());
            }
            // Component units (products, sum): also off for a merged component when gating.
            for c in 0..4 {
                self.cen[l * 4 + c].next =
                    self.adv.val() & ((self.qv[l].q.val() & !self.qg[l * 4 + c].q.val()) | !self.c_gate.val());
                self.cen[8 + l * 4 + c].next = self.adv.val()
                    & ((self.qv[2 + l].q.val() & !self.qg[(2 + l) * 4 + c].q.val()) | !self.c_gate.val());
            }
            self.op1[l].next = self.qst[l].q.val().get_bits::<2>(0);
            self.op2[l].next = self.qst[2 + l].q.val().get_bits::<2>(0);
            self.op3[l].next = self.qst[4 + l].q.val().get_bits::<2>(0);
        }
        // Stage 1 operands: the 8-bit key registers widened for the 16-bit arithmetic
        // (`bit_cast` takes constant indices only).
        self.ma[0].next = bit_cast::<16, 8>(self.qs[0].q.val());
        self.ma[1].next = bit_cast::<16, 8>(self.qs[1].q.val());
        self.ma[2].next = bit_cast::<16, 8>(self.qs[2].q.val());
        self.ma[3].next = bit_cast::<16, 8>(self.qs[3].q.val());
        self.ma[4].next = bit_cast::<16, 8>(self.qs[4].q.val());
        self.ma[5].next = bit_cast::<16, 8>(self.qs[5].q.val());
        self.ma[6].next = bit_cast::<16, 8>(self.qs[6].q.val());
        self.ma[7].next = bit_cast::<16, 8>(self.qs[7].q.val());
        self.mc[0].next = bit_cast::<16, 8>(self.qd[0].q.val());
        self.mc[1].next = bit_cast::<16, 8>(self.qd[1].q.val());
        self.mc[2].next = bit_cast::<16, 8>(self.qd[2].q.val());
        self.mc[3].next = bit_cast::<16, 8>(self.qd[3].q.val());
        self.mc[4].next = bit_cast::<16, 8>(self.qd[4].q.val());
        self.mc[5].next = bit_cast::<16, 8>(self.qd[5].q.val());
        self.mc[6].next = bit_cast::<16, 8>(self.qd[6].q.val());
        self.mc[7].next = bit_cast::<16, 8>(self.qd[7].q.val());
        for l in 0..2 {
            if self.adv.val() {
                self.qv[l].d.next = self.is_v[l].val();
                for s in 1..4 {
                    self.qv[s * 2 + l].d.next = self.qv[(s - 1) * 2 + l].q.val();
                }
            }
            if self.en[l].val() {
                self.qst[l].d.next = self.is_st[l].val();
                for c in 0..4 {
                    self.qg[l * 4 + c].d.next = self.is_g[l * 4 + c].val();
                    self.qsl[l * 4 + c].d.next = self.is_sl[l * 4 + c].val();
                    self.qs[l * 4 + c].d.next = self.is_s[l * 4 + c].val();
                    self.qd[l * 4 + c].d.next = self.is_d[l * 4 + c].val();
                }
            }
            for s in 1..4 {
                if self.en[s * 2 + l].val() {
                    self.qst[s * 2 + l].d.next = self.qst[(s - 1) * 2 + l].q.val();
                    for c in 0..4 {
                        self.qs[(s * 2 + l) * 4 + c].d.next = self.qs[((s - 1) * 2 + l) * 4 + c].q.val();
                        self.qd[(s * 2 + l) * 4 + c].d.next = self.qd[((s - 1) * 2 + l) * 4 + c].q.val();
                    }
                }
            }
            for s in 1..3 {
                if self.en[s * 2 + l].val() {
                    for c in 0..4 {
                        self.qg[(s * 2 + l) * 4 + c].d.next = self.qg[((s - 1) * 2 + l) * 4 + c].q.val();
                        self.qsl[(s * 2 + l) * 4 + c].d.next = self.qsl[((s - 1) * 2 + l) * 4 + c].q.val();
                    }
                }
            }
            for c in 0..4 {
                // Stage 1 → 2: products. op 0: s·m + d·(255 − sa), m = sa (R, G, B) or 255 (A);
                // op 3: s·d; op 1: s; op 2: s + d.
                self.md[l * 4 + c].next = self.c_255.val() - self.ma[l * 4 + 3].val();
                if self.op1[l].val() == self.c_op[3].val() {
                    self.mb[l * 4 + c].next = self.mc[l * 4 + c].val();
                } else if self.c_isa[c].val() {
                    self.mb[l * 4 + c].next = self.c_255.val();
                } else {
                    self.mb[l * 4 + c].next = self.ma[l * 4 + 3].val();
                }
                self.pr1[l * 4 + c].next = self.ma[l * 4 + c].val() * self.mb[l * 4 + c].val();
                self.pr2[l * 4 + c].next = self.mc[l * 4 + c].val() * self.md[l * 4 + c].val();
                if self.cen[l * 4 + c].val() {
                    if self.op1[l].val() == self.c_op[1].val() {
                        self.ap1[l * 4 + c].d.next = self.ma[l * 4 + c].val();
                        self.ap2[l * 4 + c].d.next = 0.into();
                    } else if self.op1[l].val() == self.c_op[2].val() {
                        self.ap1[l * 4 + c].d.next = self.ma[l * 4 + c].val() + self.mc[l * 4 + c].val();
                        self.ap2[l * 4 + c].d.next = 0.into();
                    } else if self.op1[l].val() == self.c_op[3].val() {
                        self.ap1[l * 4 + c].d.next = self.pr1[l * 4 + c].val().get_bits::<16>(0);
                        self.ap2[l * 4 + c].d.next = 0.into();
                    } else {
                        self.ap1[l * 4 + c].d.next = self.pr1[l * 4 + c].val().get_bits::<16>(0);
                        self.ap2[l * 4 + c].d.next = self.pr2[l * 4 + c].val().get_bits::<16>(0);
                    }
                }
                // Stage 2 → 3: t = p1 + p2 + 128 (op 0, 3), s (op 1), min(255, s + d) (op 2).
                self.sum[l * 4 + c].next = self.ap1[l * 4 + c].q.val() + self.ap2[l * 4 + c].q.val() + self.c_128.val();
                if self.cen[8 + l * 4 + c].val() {
                    if (self.op2[l].val() == self.c_op[0].val()) | (self.op2[l].val() == self.c_op[3].val()) {
                        self.at[l * 4 + c].d.next = self.sum[l * 4 + c].val();
                    } else if self.ap1[l * 4 + c].q.val() > self.c_255.val() {
                        self.at[l * 4 + c].d.next = self.c_255.val();
                    } else {
                        self.at[l * 4 + c].d.next = self.ap1[l * 4 + c].q.val();
                    }
                }
                // Stage 3: ⌊v/255⌉ = (t + (t >> 8)) >> 8.
                self.rsum[l * 4 + c].next = self.at[l * 4 + c].q.val() + (self.at[l * 4 + c].q.val() >> self.c_8.val());
                if (self.op3[l].val() == self.c_op[0].val()) | (self.op3[l].val() == self.c_op[3].val()) {
                    self.res[l * 4 + c].next = self.rsum[l * 4 + c].val().get_bits::<8>(8);
                } else {
                    self.res[l * 4 + c].next = self.at[l * 4 + c].q.val().get_bits::<8>(0);
                }
                // A merged component's value comes from its source lane (PerComponent).
                self.resf[l * 4 + c].next = self.res[l * 4 + c].val();
                for m in 0..2 {
                    if self.qg[(4 + l) * 4 + c].q.val()
                        & (self.qsl[(4 + l) * 4 + c].q.val() == self.c_lane[m].val().get_bit(0))
                    {
                        self.resf[l * 4 + c].next = self.res[m * 4 + c].val();
                    }
                }
                // Stage 3 → 4: the result register (in-flight sources in stage 4).
                if self.en[6 + l].val() {
                    self.rr[l * 4 + c].d.next = self.resf[l * 4 + c].val();
                }
            }
        }

        // ---- sideband slots ----
        if self.adv.val() {
            for j in 0..4 {
                self.sv[j].d.next = self.lv[j].val();
                for b in 0..self.pw() {
                    self.spos[b * 16 + j].d.next = false;
                }
                self.sdist[j].d.next = 0.into();
                for c in 0..4 {
                    self.scol[j * 4 + c].d.next = 0.into();
                    self.slane[j * 4 + c].d.next = false;
                }
                if self.lv[j].val() {
                    for b in 0..self.pw() {
                        self.spos[b * 16 + j].d.next = self.ppos[b * 4 + j].q.val();
                    }
                }

                for c in 0..4 {
                    if self.iss[j].val() {
                        self.slane[j * 4 + c].d.next = self.cnt[j].val().get_bit(0);
                    }
                    if self.mrg[j].val() & self.c_comp.val() {
                        self.slane[j * 4 + c].d.next = self.hl[j * 4 + c].val();
                    }
                    if self.mrg[j].val() & !self.c_comp.val() {
                        self.slane[j * 4 + c].d.next = self.mlane[j].val();
                    }
                    if self.inf[j].val() {
                        self.slane[j * 4 + c].d.next = self.inf_l[j].val();
                    }
                }
                if self.inf[j].val() {
                    self.sdist[j].d.next = self.inf_k[j].val();
                    for l in 0..2 {
                        if self.inf_l[j].val() == self.c_lane[l].val().get_bit(0) {
                            for c in 0..4 {
                                if self.inf_k[j].val() == self.c_k[2].val() {
                                    self.scol[j * 4 + c].d.next = self.resf[l * 4 + c].val();
                                }
                                if self.inf_k[j].val() == self.c_k[3].val() {
                                    self.scol[j * 4 + c].d.next = self.rr[l * 4 + c].q.val();
                                }
                            }
                        }
                    }
                }
            }
            // A buffer entry that leaves (columns 2, 3) takes its column's slot (its pool entry
            // stays), with its own source lane and distance.
            for m in 0..self.buf_columns() {
                for k in 0..2 {
                    if self.blv[k * 2 + m].val() {
                        self.sv[2 + m].d.next = true;
                        for b in 0..self.pw() {
                            self.spos[b * 16 + 2 + m].d.next = self.bpos[b * 4 + k * 2 + m].q.val();
                        }
                        for c in 0..4 {
                            if self.bmrg[k * 2 + m].val() & self.c_comp.val() {
                                self.slane[(2 + m) * 4 + c].d.next = self.bhl[(k * 2 + m) * 4 + c].val();
                            }
                            if self.bmrg[k * 2 + m].val() & !self.c_comp.val() {
                                self.slane[(2 + m) * 4 + c].d.next = self.bmlane[k * 2 + m].val();
                            }
                            if self.binf[k * 2 + m].val() {
                                self.slane[(2 + m) * 4 + c].d.next = self.binf_l[k * 2 + m].val();
                            }
                        }
                        if self.binf[k * 2 + m].val() {
                            self.sdist[2 + m].d.next = self.binf_k[k * 2 + m].val();
                            for l in 0..2 {
                                if self.binf_l[k * 2 + m].val() == self.c_lane[l].val().get_bit(0) {
                                    for c in 0..4 {
                                        if self.binf_k[k * 2 + m].val() == self.c_k[2].val() {
                                            self.scol[(2 + m) * 4 + c].d.next = self.resf[l * 4 + c].val();
                                        }
                                        if self.binf_k[k * 2 + m].val() == self.c_k[3].val() {
                                            self.scol[(2 + m) * 4 + c].d.next = self.rr[l * 4 + c].q.val();
                                        }
                                    }
                                }
                            }
                        }
                    }
                }
            }
            for s in 1..4 {
                for j in 0..4 {
                    self.sv[s * 4 + j].d.next = self.sv[(s - 1) * 4 + j].q.val();
                    for b in 0..self.pw() {
                        self.spos[b * 16 + s * 4 + j].d.next = self.spos[b * 16 + (s - 1) * 4 + j].q.val();
                    }
                    self.sdist[s * 4 + j].d.next = self.sdist[(s - 1) * 4 + j].q.val();
                    for c in 0..4 {
                        self.scol[(s * 4 + j) * 4 + c].d.next = self.scol[((s - 1) * 4 + j) * 4 + c].q.val();
                        self.slane[(s * 4 + j) * 4 + c].d.next = self.slane[((s - 1) * 4 + j) * 4 + c].q.val();
                    }
                    if self.sv[(s - 1) * 4 + j].q.val()
                        & (self.sdist[(s - 1) * 4 + j].q.val() == self.c_latch[s - 1].val())
                    {
                        for c in 0..4 {
                            for l in 0..2 {
                                if self.slane[((s - 1) * 4 + j) * 4 + c].q.val() == self.c_lane[l].val().get_bit(0) {
                                    self.scol[(s * 4 + j) * 4 + c].d.next = self.resf[l * 4 + c].val();
                                }
                            }
                        }
                    }
                }
            }
        }

        // ---- pool and input buffer (column j: pool slot j, buffer slot j behind it) ----
        self.i_v[0].next = self.inp.lane_valid.val().get_bit(0);
        self.i_v[1].next = self.inp.lane_valid.val().get_bit(1);
        self.i_v[2].next = self.inp.lane_valid.val().get_bit(2);
        self.i_v[3].next = self.inp.lane_valid.val().get_bit(3);
        self.i_pos[0].next = self.inp.pos_0.val();
        self.i_pos[1].next = self.inp.pos_1.val();
        self.i_pos[2].next = self.inp.pos_2.val();
        self.i_pos[3].next = self.inp.pos_3.val();
        self.i_st[0].next = self.inp.state_0.val();
        self.i_st[1].next = self.inp.state_1.val();
        self.i_st[2].next = self.inp.state_2.val();
        self.i_st[3].next = self.inp.state_3.val();
        self.i_s[0].next = self.inp.src_0.val().get_bits::<8>(0);
        self.i_s[1].next = self.inp.src_0.val().get_bits::<8>(8);
        self.i_s[2].next = self.inp.src_0.val().get_bits::<8>(16);
        self.i_s[3].next = self.inp.src_0.val().get_bits::<8>(24);
        self.i_s[4].next = self.inp.src_1.val().get_bits::<8>(0);
        self.i_s[5].next = self.inp.src_1.val().get_bits::<8>(8);
        self.i_s[6].next = self.inp.src_1.val().get_bits::<8>(16);
        self.i_s[7].next = self.inp.src_1.val().get_bits::<8>(24);
        self.i_s[8].next = self.inp.src_2.val().get_bits::<8>(0);
        self.i_s[9].next = self.inp.src_2.val().get_bits::<8>(8);
        self.i_s[10].next = self.inp.src_2.val().get_bits::<8>(16);
        self.i_s[11].next = self.inp.src_2.val().get_bits::<8>(24);
        self.i_s[12].next = self.inp.src_3.val().get_bits::<8>(0);
        self.i_s[13].next = self.inp.src_3.val().get_bits::<8>(8);
        self.i_s[14].next = self.inp.src_3.val().get_bits::<8>(16);
        self.i_s[15].next = self.inp.src_3.val().get_bits::<8>(24);
        self.i_d[0].next = self.inp.dst_0.val().get_bits::<8>(0);
        self.i_d[1].next = self.inp.dst_0.val().get_bits::<8>(8);
        self.i_d[2].next = self.inp.dst_0.val().get_bits::<8>(16);
        self.i_d[3].next = self.inp.dst_0.val().get_bits::<8>(24);
        self.i_d[4].next = self.inp.dst_1.val().get_bits::<8>(0);
        self.i_d[5].next = self.inp.dst_1.val().get_bits::<8>(8);
        self.i_d[6].next = self.inp.dst_1.val().get_bits::<8>(16);
        self.i_d[7].next = self.inp.dst_1.val().get_bits::<8>(24);
        self.i_d[8].next = self.inp.dst_2.val().get_bits::<8>(0);
        self.i_d[9].next = self.inp.dst_2.val().get_bits::<8>(8);
        self.i_d[10].next = self.inp.dst_2.val().get_bits::<8>(16);
        self.i_d[11].next = self.inp.dst_2.val().get_bits::<8>(24);
        self.i_d[12].next = self.inp.dst_3.val().get_bits::<8>(0);
        self.i_d[13].next = self.inp.dst_3.val().get_bits::<8>(8);
        self.i_d[14].next = self.inp.dst_3.val().get_bits::<8>(16);
        self.i_d[15].next = self.inp.dst_3.val().get_bits::<8>(24);
        if self.adv.val() {
            // The entries behind one that leaves move up one place.
            for j in 0..4 {
                if self.lv[j].val() {
                    self.pv[j].d.next = false;
                }
            }
            for m in 0..self.buf_columns() {
                if self.lv[2 + m].val() {
                    self.pv[2 + m].d.next = self.bv[m].q.val();
                    for b in 0..self.pw() {
                        self.ppos[b * 4 + 2 + m].d.next = self.bpos[b * 4 + m].q.val();
                    }
                    self.pst[2 + m].d.next = self.bst[m].q.val();
                    for c in 0..4 {
                        self.ps[(2 + m) * 4 + c].d.next = self.bs[m * 4 + c].q.val();
                        self.pd[(2 + m) * 4 + c].d.next = self.bd[m * 4 + c].q.val();
                    }
                }
                if self.lv[2 + m].val() | self.blv[m].val() {
                    self.bv[m].d.next = self.bv[2 + m].q.val();
                    for b in 0..self.pw() {
                        self.bpos[b * 4 + m].d.next = self.bpos[b * 4 + 2 + m].q.val();
                    }
                    self.bst[m].d.next = self.bst[2 + m].q.val();
                    for c in 0..4 {
                        self.bs[m * 4 + c].d.next = self.bs[(2 + m) * 4 + c].q.val();
                        self.bd[m * 4 + c].d.next = self.bd[(2 + m) * 4 + c].q.val();
                    }
                }
                if self.lv[2 + m].val() | self.blv[m].val() | self.blv[2 + m].val() {
                    self.bv[2 + m].d.next = false;
                }
            }
        }
        // Lane j of an accepted fragment goes behind the entries its column keeps.
        if self.accept.val() {
            for j in 0..4 {
                if self.i_v[j].val() & !self.keep[j].val() {
                    self.pv[j].d.next = true;
                    for b in 0..self.pw() {
                        self.ppos[b * 4 + j].d.next = self.i_pos[j].val().get_bit(b);
                    }
                    self.pst[j].d.next = self.i_st[j].val();
                    for c in 0..4 {
                        self.ps[j * 4 + c].d.next = self.i_s[j * 4 + c].val();
                        self.pd[j * 4 + c].d.next = self.i_d[j * 4 + c].val();
                    }
                }
            }
            for m in 0..self.buf_columns() {
                for k in 0..2 {
                    if self.i_v[2 + m].val()
                        & self.keep[2 + m].val()
                        & (self.keep2[m].val() == self.c_lane[k].val().get_bit(0))
                    {
                        self.bv[k * 2 + m].d.next = self.c_bv[k * 2 + m].val();
                        for b in 0..self.pw() {
                            self.bpos[b * 4 + k * 2 + m].d.next = self.i_pos[2 + m].val().get_bit(b);
                        }
                        self.bst[k * 2 + m].d.next = self.i_st[2 + m].val();
                        for c in 0..4 {
                            self.bs[(k * 2 + m) * 4 + c].d.next = self.i_s[(2 + m) * 4 + c].val();
                            self.bd[(k * 2 + m) * 4 + c].d.next = self.i_d[(2 + m) * 4 + c].val();
                        }
                    }
                }
            }
        }

        // ---- flush ----
        if self.flush.val() {
            for j in 0..4 {
                self.pv[j].d.next = false;
                self.pst[j].d.next = 0.into();
            }
            for i in 0..self.ppos.len() {
                self.ppos[i].d.next = false;
            }
            for i in 0..self.bpos.len() {
                self.bpos[i].d.next = false;
            }
            for i in 0..self.spos.len() {
                self.spos[i].d.next = false;
            }
            for e in 0..self.buf_entries() {
                self.bv[e].d.next = false;
                self.bst[e].d.next = 0.into();
            }
            for i in 0..self.buf_keys() {
                self.bs[i].d.next = 0.into();
                self.bd[i].d.next = 0.into();
            }
            for i in 0..16 {
                self.ps[i].d.next = 0.into();
                self.pd[i].d.next = 0.into();
                self.sv[i].d.next = false;
                self.sdist[i].d.next = 0.into();
            }
            for i in 0..8 {
                self.qv[i].d.next = false;
                self.qst[i].d.next = 0.into();
                self.ap1[i].d.next = 0.into();
                self.ap2[i].d.next = 0.into();
                self.at[i].d.next = 0.into();
                self.rr[i].d.next = 0.into();
            }
            for i in 0..32 {
                self.qs[i].d.next = 0.into();
                self.qd[i].d.next = 0.into();
            }
            for i in 0..64 {
                self.scol[i].d.next = 0.into();
                self.slane[i].d.next = false;
            }
            for i in 0..24 {
                self.qg[i].d.next = false;
                self.qsl[i].d.next = false;
            }
        }

        // ---- outputs (registers) ----
        self.out_valid.next = self.ovo.val();
        self.idle.next = true;
        for j in 0..4 {
            if self.pv[j].q.val() {
                self.idle.next = false;
            }
        }
        for e in 0..self.buf_entries() {
            if self.bv[e].q.val() {
                self.idle.next = false;
            }
        }
        for i in 0..8 {
            if self.qv[i].q.val() {
                self.idle.next = false;
            }
        }
        for i in 0..16 {
            if self.sv[i].q.val() {
                self.idle.next = false;
            }
        }
        self.lvc[0].next = 0.into();
        for j in 0..4 {
            if self.sv[12 + j].q.val() {
                self.lvc[j + 1].next = self.lvc[j].val() | self.c_bit[j].val();
            } else {
                self.lvc[j + 1].next = self.lvc[j].val();
            }
        }
        self.out.lane_valid.next = self.lvc[4].val();
        // Positions: the PW stored bits, zero above.
        self.out.pos_0.next = 0.into();
        self.out.pos_1.next = 0.into();
        self.out.pos_2.next = 0.into();
        self.out.pos_3.next = 0.into();
        for b in 0..self.pw() {
            if self.spos[b * 16 + 12].q.val() {
                self.out.pos_0.next = self.out.pos_0.val() | self.c_pbit[b].val();
            }
            if self.spos[b * 16 + 13].q.val() {
                self.out.pos_1.next = self.out.pos_1.val() | self.c_pbit[b].val();
            }
            if self.spos[b * 16 + 14].q.val() {
                self.out.pos_2.next = self.out.pos_2.val() | self.c_pbit[b].val();
            }
            if self.spos[b * 16 + 15].q.val() {
                self.out.pos_3.next = self.out.pos_3.val() | self.c_pbit[b].val();
            }
        }
        self.out.colour_0.next = bit_cast::<32, 8>(self.scol[48].q.val())
            | (bit_cast::<32, 8>(self.scol[49].q.val()) << self.c_sh[0].val())
            | (bit_cast::<32, 8>(self.scol[50].q.val()) << self.c_sh[1].val())
            | (bit_cast::<32, 8>(self.scol[51].q.val()) << self.c_sh[2].val());
        self.out.colour_1.next = bit_cast::<32, 8>(self.scol[52].q.val())
            | (bit_cast::<32, 8>(self.scol[53].q.val()) << self.c_sh[0].val())
            | (bit_cast::<32, 8>(self.scol[54].q.val()) << self.c_sh[1].val())
            | (bit_cast::<32, 8>(self.scol[55].q.val()) << self.c_sh[2].val());
        self.out.colour_2.next = bit_cast::<32, 8>(self.scol[56].q.val())
            | (bit_cast::<32, 8>(self.scol[57].q.val()) << self.c_sh[0].val())
            | (bit_cast::<32, 8>(self.scol[58].q.val()) << self.c_sh[1].val())
            | (bit_cast::<32, 8>(self.scol[59].q.val()) << self.c_sh[2].val());
        self.out.colour_3.next = bit_cast::<32, 8>(self.scol[60].q.val())
            | (bit_cast::<32, 8>(self.scol[61].q.val()) << self.c_sh[0].val())
            | (bit_cast::<32, 8>(self.scol[62].q.val()) << self.c_sh[1].val())
            | (bit_cast::<32, 8>(self.scol[63].q.val()) << self.c_sh[2].val());
    }
}

emit::indexed_kernel_logic!(Blender);

/// The block's Verilog with top module `name`.
pub fn verilog(cfg: &Config, opts: &BlendOpts, name: &str) -> String {
    emit::block_verilog(Blender::new(cfg, opts), name)
}

/// What a blender file states it is built with (`params` of its row), or the refusal.
fn params(cfg: &Config, opts: &BlendOpts) -> Result<String, String> {
    supported(cfg, opts)?;
    Ok(format!(
        "P = {}, L = {}, D = {}; options {opts:?}",
        cfg.blend_pool, cfg.blend_lanes, cfg.blend_latency
    ))
}

/// Options of the variant `default_comp`: PerComponent merging (in flight, gated).
pub const COMP_OPTS: BlendOpts = BlendOpts {
    merge: MergeMode::PerComponent,
    input_buffer: 0,
    match_in_flight: true,
    gate_idle_lanes: true,
};

/// Options of the variant `default_buf`: the pipeline's (PerSample, in flight, gated) with a
/// full input buffer, B = 4.
pub const BUF_OPTS: BlendOpts = BlendOpts {
    merge: MergeMode::PerSample,
    input_buffer: 4,
    match_in_flight: true,
    gate_idle_lanes: true,
};

/// The blender's rows of [`crate::BLOCK_VARIANTS`]: what the pipeline does not build, for the
/// Verilator co-simulation (`cosim/tests/blender.rs`).
pub const VARIANTS: [crate::BlockVariant; 2] = [
    crate::BlockVariant {
        name: "default_comp",
        preset: "default",
        file: &FILE,
        params: |cfg| params(cfg, &COMP_OPTS),
        verilog: |cfg, top| verilog(cfg, &COMP_OPTS, top),
    },
    crate::BlockVariant {
        name: "default_buf",
        preset: "default",
        file: &FILE,
        params: |cfg| params(cfg, &BUF_OPTS),
        verilog: |cfg, top| verilog(cfg, &BUF_OPTS, top),
    },
];

/// The blender's row of [`crate::BLOCK_FILES`]: built with the pipeline's options for the
/// config ([`tilerast_golden::blender::pipeline_blend`]: PerSample, gating, and the in-flight
/// match where `blend_match_in_flight` asks for it).
pub const FILE: crate::BlockFile = crate::BlockFile {
    role: "seed 004, sample-pool equality merge",
    contract: "tilerast_golden::blender::BlenderCycle",
    sig: <tilerast_golden::blender::BlenderPorts as tilerast_golden::cycle::BlockSignature>::SIGNATURE,
    params: |cfg| params(cfg, &tilerast_golden::blender::pipeline_blend(cfg)),
    verilog: |cfg, top| verilog(cfg, &tilerast_golden::blender::pipeline_blend(cfg), top),
};
