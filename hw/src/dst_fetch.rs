//! # dst_fetch (seed 000: the output merger's read side)
//!
//! For every valid colour slot j < C of a pixel, hands the blender the slot's `dst` next to its
//! colour, in fragments of up to K = min(P, 4) lanes `{pos, src = the slot's colour, dst,
//! state 0}`, pos = (y·W + x)·C + j: golden's blend samples (`pipeline.rs`,
//! `PixelSide::shade`) in golden's order. With `framebuffer: keep` it reads `dst` from the
//! pixel side's memory port (address [`tilerast_golden::output_merger::slot_addr`]`(pos)` =
//! 4·pos); with `framebuffer: clear` (a fast clear, the default) `dst` is the `background`
//! input, the frame's background register, and the read port, the meta FIFO and the read
//! register are constant (synthesis removes them). Cycle model:
//! [`tilerast_golden::dst_fetch::DstFetchCycle`] (same registers); its rustdoc is the block's
//! timing contract, stated once.
//!
//! **Ports.** `clock`, `flush` (synchronous reset, every register zero); in:
//! `in_valid`/`in_ready` with `inp` ([`crate::streams::PixSlotsIn`]); out:
//! `out_valid`/`out_ready` with `out` ([`crate::streams::BlendFragOut`], lanes contiguous from
//! 0); the read port, from the same stream declarations: `rd_valid`/`rd_ready` with `rd`
//! ([`crate::streams::MemReqOut`]: `addr`, `write` = 0, `wdata` = 0, `be` = 0) and
//! `rsp_valid`/`rsp_ready` with `rsp` ([`crate::streams::MemRespIn`]: `rdata`, in request
//! order); `background` (Bits<32>, packed RGBA8, held by the frame top).
//!
//! **Handshake.** `in_ready = (hold empty) | (one slot left & issue)`. keep: `issue =
//! (!rd_valid | rd_ready) & (hold not empty) & (meta count != 4)`, the only combinational
//! input → output path is `rd_ready` → `in_ready`, `rsp_ready = !adone`. clear: `issue = (hold
//! not empty) & (!adone | !out_valid)`, registers only, and `rsp_ready = 0`. Every other output
//! is a register.
//!
//! **Depth.** Accept: a 16×16 multiplier by the constant W in front of `hyw` (y·W). Issue: the
//! lowest remaining slot as `hmask & -hmask` (one 16-bit adder) selecting j and its colour
//! (AND-OR), and `hyw + hx` (one 24-bit adder) in front of the read register and the meta FIFO
//! (the shifts by c and 2 are wiring). Responses: a 3-bit lane counter selects the assembly
//! lane. Every output is a register (`in_ready` aside).
//!
//! ```text
//!  pixel ─► hold [hmask | hyw=y·W | hx | colour0..15] ─► j = lowest slot ─► rd [addr = ((hyw+hx)<<c | j)<<2]
//!             ▲ bit j cleared on issue                        │                    ─► memory
//!             └ loaded when in_ready                          └► meta FIFO ×4 (pos, src, close; shift_fifo!)
//!                                                                   │ head        rsp (rdata)
//!                                                                   ▼              │
//!                                      out [lane_valid, pos/src/dst ×4] ◄─ assembly lanes 0..an, adone
//!                                                                                   ▲ clear: (pos, colour j, background)
//! ```
//!
//! Parameters: W (`viewport[0]`), c = log2 `colours_per_pixel`, K = min(`blend_pool`, 4),
//! keep (`framebuffer`).

use crate::emit;
use crate::fifo::shift_fifo;
use crate::util::{k, vec_of};
use rust_hdl::prelude::*;
use tilerast_golden::config::Config;
use tilerast_golden::dst_fetch::DstFetchCycle;
use tilerast_golden::streams::LANES;

shift_fifo! {
    /// dst_fetch's meta FIFO: one record per read in flight (its slot position, its source
    /// colour, whether it closes the fragment), popped as its response is taken.
    pub struct MetaFifo { depth 4, last 3, count 3, fields { pos: Bits<32>, src: Bits<32>, close: Bit } }
}
// The model's meta FIFO (`DstFetchCycle`) is as deep.
const _: () = assert!(tilerast_golden::dst_fetch::META_DEPTH == 4);

tilerast_golden::dst_fetch_streams! { crate::streams::stream_block;
    /// The destination fetch. Build with [`DstFetch::new`].
    pub struct DstFetch {
        c_cmask: Constant<Bits<16>>,
        c_w: Constant<Bits<16>>,
        c_c: Constant<Bits<32>>,
        c_two: Constant<Bits<32>>,
        c_km1: Constant<Bits<2>>,
        c_one2: Constant<Bits<2>>,
        c_one3: Constant<Bits<3>>,
        c_one16: Constant<Bits<16>>,
        c_four3: Constant<Bits<3>>,
        c_i3: Vec<Constant<Bits<3>>>,
        c_lv: Vec<Constant<Bits<4>>>,
        c_j: Vec<Constant<Bits<32>>>,
        c_zero8: Constant<Bits<8>>,
        c_zero4: Constant<Bits<4>>,
        /// `framebuffer: keep`: `dst` is read from memory (else it is `background`).
        c_keep: Constant<Bit>,

        /// The assembly lane a clear-mode sample goes to (0 when the assembly is handed over
        /// at this edge).
        alane: Signal<Local, Bits<3>>,
        adv_rd: Signal<Local, Bit>,
        issue: Signal<Local, Bit>,
        ready: Signal<Local, Bit>,
        onehot: Signal<Local, Bits<16>>,
        rest: Signal<Local, Bits<16>>,
        last1: Signal<Local, Bit>,
        next_has: Signal<Local, Bit>,
        close: Signal<Local, Bit>,
        sel_j: Signal<Local, Bits<32>>,
        sel_col: Signal<Local, Bits<32>>,
        base: Signal<Local, Bits<32>>,
        pos: Signal<Local, Bits<32>>,
        yw: Signal<Local, Bits<32>>,
        pop: Signal<Local, Bit>,
        adv_out: Signal<Local, Bit>,

        hmask: DFF<Bits<16>>,
        hyw: DFF<Bits<24>>,
        hx: DFF<Bits<12>>,
        hcol: Vec<DFF<Bits<32>>>,
        rv: DFF<Bit>,
        raddr: DFF<Bits<32>>,
        /// The meta FIFO: per read in flight, its slot position, source colour and whether it
        /// closes the fragment.
        meta: MetaFifo,
        n: DFF<Bits<2>>,
        an: DFF<Bits<3>>,
        apos: Vec<DFF<Bits<32>>>,
        asrc: Vec<DFF<Bits<32>>>,
        adst: Vec<DFF<Bits<32>>>,
        adone: DFF<Bit>,
        ov: DFF<Bit>,
        olv: DFF<Bits<4>>,
        opos: Vec<DFF<Bits<32>>>,
        osrc: Vec<DFF<Bits<32>>>,
        odst: Vec<DFF<Bits<32>>>,
    }
}

/// Whether the block builds for `cfg`: the golden model's parameters ([`DstFetchCycle::try_new`]).
pub fn supported(cfg: &Config) -> Result<(), String> {
    DstFetchCycle::try_new(cfg).map(|_| ())
}

impl DstFetch {
    /// The block for `cfg`, or the one line naming the field it does not support.
    pub fn try_new(cfg: &Config) -> Result<DstFetch, String> {
        let kk = DstFetchCycle::try_new(cfg)?.lanes() as u64;
        let cc = cfg.colours_per_pixel as u64;
        Ok(DstFetch {
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
            background: Default::default(),
            c_cmask: k((1u64 << cc) - 1),
            c_w: k(cfg.viewport[0] as u64),
            c_c: k(cc.trailing_zeros() as u64),
            c_two: k(2),
            c_km1: k(kk - 1),
            c_one2: k(1),
            c_one3: k(1),
            c_one16: k(1),
            c_four3: k(4),
            c_i3: (0..=4).map(k).collect(),
            c_lv: (0..=4).map(|a| k((1u64 << a) - 1)).collect(),
            c_j: (0..16).map(k).collect(),
            c_zero8: k(0),
            c_zero4: k(0),
            c_keep: Constant::new(cfg.framebuffer == tilerast_golden::config::FramebufferMode::Keep),
            alane: Default::default(),
            adv_rd: Default::default(),
            issue: Default::default(),
            ready: Default::default(),
            onehot: Default::default(),
            rest: Default::default(),
            last1: Default::default(),
            next_has: Default::default(),
            close: Default::default(),
            sel_j: Default::default(),
            sel_col: Default::default(),
            base: Default::default(),
            pos: Default::default(),
            yw: Default::default(),
            pop: Default::default(),
            adv_out: Default::default(),
            hmask: Default::default(),
            hyw: Default::default(),
            hx: Default::default(),
            hcol: vec_of(16),
            rv: Default::default(),
            raddr: Default::default(),
            meta: Default::default(),
            n: Default::default(),
            an: Default::default(),
            apos: vec_of(LANES),
            asrc: vec_of(LANES),
            adst: vec_of(LANES),
            adone: Default::default(),
            ov: Default::default(),
            olv: Default::default(),
            opos: vec_of(LANES),
            osrc: vec_of(LANES),
            odst: vec_of(LANES),
        })
    }

    /// The block for `cfg`.
    ///
    /// # Panics
    /// With the reason if it is not supported ([`supported`]).
    pub fn new(cfg: &Config) -> DstFetch {
        Self::try_new(cfg).unwrap_or_else(|e| panic!("{e}"))
    }

    #[hdl_gen]
    fn kernel(&mut self) {
        self.hmask.clock.next = self.clock.val();
        self.hmask.d.next = self.hmask.q.val();
        self.hyw.clock.next = self.clock.val();
        self.hyw.d.next = self.hyw.q.val();
        self.hx.clock.next = self.clock.val();
        self.hx.d.next = self.hx.q.val();
        self.rv.clock.next = self.clock.val();
        self.rv.d.next = self.rv.q.val();
        self.raddr.clock.next = self.clock.val();
        self.raddr.d.next = self.raddr.q.val();
        self.n.clock.next = self.clock.val();
        self.n.d.next = self.n.q.val();
        self.an.clock.next = self.clock.val();
        self.an.d.next = self.an.q.val();
        self.adone.clock.next = self.clock.val();
        self.adone.d.next = self.adone.q.val();
        self.ov.clock.next = self.clock.val();
        self.ov.d.next = self.ov.q.val();
        self.olv.clock.next = self.clock.val();
        self.olv.d.next = self.olv.q.val();
        for j in 0..16 {
            self.hcol[j].clock.next = self.clock.val();
            self.hcol[j].d.next = self.hcol[j].q.val();
        }
        for i in 0..4 {
            self.apos[i].clock.next = self.clock.val();
            self.apos[i].d.next = self.apos[i].q.val();
            self.asrc[i].clock.next = self.clock.val();
            self.asrc[i].d.next = self.asrc[i].q.val();
            self.adst[i].clock.next = self.clock.val();
            self.adst[i].d.next = self.adst[i].q.val();
            self.opos[i].clock.next = self.clock.val();
            self.opos[i].d.next = self.opos[i].q.val();
            self.osrc[i].clock.next = self.clock.val();
            self.osrc[i].d.next = self.osrc[i].q.val();
            self.odst[i].clock.next = self.clock.val();
            self.odst[i].d.next = self.odst[i].q.val();
        }

        // Issue: the lowest remaining slot j (one-hot `hmask & -hmask`), its colour, its pos.
        self.adv_rd.next = !self.rv.q.val() | self.rd_ready.val();
        if self.c_keep.val() {
            self.issue.next =
                self.adv_rd.val() & self.hmask.q.val().any() & (self.meta.count.val() != self.c_four3.val());
        } else {
            self.issue.next = self.hmask.q.val().any() & (!self.adone.q.val() | !self.ov.q.val());
        }
        self.onehot.next = self.hmask.q.val() & (!self.hmask.q.val() + self.c_one16.val());
        self.rest.next = self.hmask.q.val() & !self.onehot.val();
        self.last1.next = self.hmask.q.val().any() & !self.rest.val().any();
        self.ready.next = !self.hmask.q.val().any() | (self.last1.val() & self.issue.val());
        self.in_ready.next = self.ready.val();
        self.next_has.next = self.in_valid.val() & (self.inp.slot_valid.val() & self.c_cmask.val()).any();
        self.close.next = (self.n.q.val() == self.c_km1.val()) | (self.last1.val() & !self.next_has.val());
        self.sel_j.next = 0.into();
        self.sel_col.next = 0.into();
        for j in 0..16 {
            if self.onehot.val().get_bit(j) {
                self.sel_j.next = self.c_j[j].val();
                self.sel_col.next = self.hcol[j].q.val();
            }
        }
        self.base.next = bit_cast::<32, 24>(self.hyw.q.val()) + bit_cast::<32, 12>(self.hx.q.val());
        self.pos.next = (self.base.val() << self.c_c.val()) | self.sel_j.val();

        // Meta FIFO: pop on a response taken, push on an issue (at the first free entry).
        self.pop.next = self.c_keep.val() & self.rsp_valid.val() & !self.adone.q.val();
        self.meta.clock.next = self.clock.val();
        self.meta.flush.next = self.flush.val();
        self.meta.pop.next = self.pop.val();
        self.meta.push.next = self.c_keep.val() & self.issue.val();
        self.meta.push_pos.next = self.pos.val();
        self.meta.push_src.next = self.sel_col.val();
        self.meta.push_close.next = self.close.val();
        if self.issue.val() {
            self.hmask.d.next = self.rest.val();
            if self.close.val() {
                self.n.d.next = 0.into();
            } else {
                self.n.d.next = self.n.q.val() + self.c_one2.val();
            }
        }
        if self.c_keep.val() & self.adv_rd.val() {
            if self.issue.val() {
                self.rv.d.next = true;
                self.raddr.d.next = self.pos.val() << self.c_two.val();
            } else {
                self.rv.d.next = false;
            }
        }

        // Output register from the assembly (as registered), then the response into it.
        self.adv_out.next = !self.ov.q.val() | self.out_ready.val();
        if self.adv_out.val() {
            if self.adone.q.val() {
                self.ov.d.next = true;
                for a in 0..5 {
                    if self.an.q.val() == self.c_i3[a].val() {
                        self.olv.d.next = self.c_lv[a].val();
                    }
                }
                for i in 0..4 {
                    self.opos[i].d.next = self.apos[i].q.val();
                    self.osrc[i].d.next = self.asrc[i].q.val();
                    self.odst[i].d.next = self.adst[i].q.val();
                    self.apos[i].d.next = 0.into();
                    self.asrc[i].d.next = 0.into();
                    self.adst[i].d.next = 0.into();
                }
                self.an.d.next = 0.into();
                self.adone.d.next = false;
            } else {
                self.ov.d.next = false;
            }
        }
        if self.pop.val() {
            for i in 0..4 {
                if self.an.q.val() == self.c_i3[i].val() {
                    self.apos[i].d.next = self.meta.head_pos.val();
                    self.asrc[i].d.next = self.meta.head_src.val();
                    self.adst[i].d.next = self.rsp.rdata.val();
                }
            }
            self.an.d.next = self.an.q.val() + self.c_one3.val();
            if self.meta.head_close.val() {
                self.adone.d.next = true;
            }
        }
        // Clear: the sample goes straight into the assembly (lane 0 if it is handed over now).
        if self.adone.q.val() {
            self.alane.next = 0.into();
        } else {
            self.alane.next = self.an.q.val();
        }
        if !self.c_keep.val() & self.issue.val() {
            for i in 0..4 {
                if self.alane.val() == self.c_i3[i].val() {
                    self.apos[i].d.next = self.pos.val();
                    self.asrc[i].d.next = self.sel_col.val();
                    self.adst[i].d.next = self.background.val();
                }
            }
            self.an.d.next = self.alane.val() + self.c_one3.val();
            self.adone.d.next = self.close.val();
        }

        // Accept: the load wins over the bit clear of the same edge.
        self.yw.next = bit_cast::<16, 12>(self.inp.y.val()) * self.c_w.val();
        if self.in_valid.val() & self.ready.val() {
            self.hmask.d.next = self.inp.slot_valid.val() & self.c_cmask.val();
            self.hyw.d.next = self.yw.val().get_bits::<24>(0);
            self.hx.d.next = self.inp.x.val();
            self.hcol[0].d.next = self.inp.colour_0.val();
            self.hcol[1].d.next = self.inp.colour_1.val();
            self.hcol[2].d.next = self.inp.colour_2.val();
            self.hcol[3].d.next = self.inp.colour_3.val();
            self.hcol[4].d.next = self.inp.colour_4.val();
            self.hcol[5].d.next = self.inp.colour_5.val();
            self.hcol[6].d.next = self.inp.colour_6.val();
            self.hcol[7].d.next = self.inp.colour_7.val();
            self.hcol[8].d.next = self.inp.colour_8.val();
            self.hcol[9].d.next = self.inp.colour_9.val();
            self.hcol[10].d.next = self.inp.colour_10.val();
            self.hcol[11].d.next = self.inp.colour_11.val();
            self.hcol[12].d.next = self.inp.colour_12.val();
            self.hcol[13].d.next = self.inp.colour_13.val();
            self.hcol[14].d.next = self.inp.colour_14.val();
            self.hcol[15].d.next = self.inp.colour_15.val();
        }

        if self.flush.val() {
            self.hmask.d.next = 0.into();
            self.hyw.d.next = 0.into();
            self.hx.d.next = 0.into();
            self.rv.d.next = false;
            self.raddr.d.next = 0.into();
            self.n.d.next = 0.into();
            self.an.d.next = 0.into();
            self.adone.d.next = false;
            self.ov.d.next = false;
            self.olv.d.next = self.c_zero4.val();
            for j in 0..16 {
                self.hcol[j].d.next = 0.into();
            }
            for i in 0..4 {
                self.apos[i].d.next = 0.into();
                self.asrc[i].d.next = 0.into();
                self.adst[i].d.next = 0.into();
                self.opos[i].d.next = 0.into();
                self.osrc[i].d.next = 0.into();
                self.odst[i].d.next = 0.into();
            }
        }

        self.rd_valid.next = self.rv.q.val();
        self.rd.addr.next = self.raddr.q.val();
        self.rd.write.next = false;
        self.rd.wdata.next = 0.into();
        self.rd.be.next = self.c_zero4.val();
        self.rsp_ready.next = self.c_keep.val() & !self.adone.q.val();
        self.out_valid.next = self.ov.q.val();
        self.idle.next = !self.hmask.q.val().any()
            & !self.rv.q.val()
            & !self.meta.count.val().any()
            & !self.n.q.val().any()
            & !self.an.q.val().any()
            & !self.adone.q.val()
            & !self.ov.q.val();
        self.out.lane_valid.next = self.olv.q.val();
        self.out.pos_0.next = self.opos[0].q.val();
        self.out.pos_1.next = self.opos[1].q.val();
        self.out.pos_2.next = self.opos[2].q.val();
        self.out.pos_3.next = self.opos[3].q.val();
        self.out.src_0.next = self.osrc[0].q.val();
        self.out.src_1.next = self.osrc[1].q.val();
        self.out.src_2.next = self.osrc[2].q.val();
        self.out.src_3.next = self.osrc[3].q.val();
        self.out.dst_0.next = self.odst[0].q.val();
        self.out.dst_1.next = self.odst[1].q.val();
        self.out.dst_2.next = self.odst[2].q.val();
        self.out.dst_3.next = self.odst[3].q.val();
        self.out.state_0.next = self.c_zero8.val();
        self.out.state_1.next = self.c_zero8.val();
        self.out.state_2.next = self.c_zero8.val();
        self.out.state_3.next = self.c_zero8.val();
    }
}

emit::indexed_kernel_logic!(DstFetch);

/// The block's Verilog with top module `name`.
pub fn verilog(cfg: &Config, name: &str) -> String {
    emit::block_verilog(DstFetch::new(cfg), name)
}

/// The destination fetch's row of [`crate::BLOCK_FILES`].
pub const FILE: crate::BlockFile = crate::BlockFile {
    role: "seed 000, dst for the blender: the background register (clear) or framebuffer reads through the memory port (keep)",
    contract: "tilerast_golden::dst_fetch::DstFetchCycle",
    sig: <tilerast_golden::dst_fetch::DstFetchPorts as tilerast_golden::cycle::BlockSignature>::SIGNATURE,
    params: |cfg| {
        let m = DstFetchCycle::try_new(cfg)?;
        Ok(format!(
            "W = {}, C = {}, K = {} lanes per fragment, framebuffer: {}; framebuffer at address 0, slot pos at 4·pos",
            cfg.viewport[0],
            cfg.colours_per_pixel,
            m.lanes(),
            cfg.framebuffer.name()
        ))
    },
    verilog,
};
