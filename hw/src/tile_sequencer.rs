//! # tile_sequencer (seed 001: the raster side reads the binner's lists back)
//!
//! After the binner has closed a frame's lists (a start token on `inp`), walks the first tiles
//! in golden order (rows bottom-up, left→right), reads each tile's primitive list through the
//! list port (`lrd`/`lrsp`: golden's `Bins::read_tile` reads, with the shared list reader core
//! [`crate::list_reader::ListReader`] on `ListGeom::bins`), and for every listed primitive
//! reads its primitive-table entry through the table port (`prd`/`prsp`: words 7, 0, 1, 2, 3,
//! 4, 5 of entry `prim` at `prim·32`) and hands out one command on `out`
//! ([`tilerast_golden::streams::SeqCmd`]: the raster core's `Cmd` plus the primitive's depth),
//! then a bare `end` token after the frame's last command. Cycle model:
//! [`tilerast_golden::tile_sequencer::TileSequencerCycle`] (same registers), whose rustdoc is
//! the timing contract: first command at 16 + 3L after the start, **7 cycles per command**
//! (one table read per cycle, 2 command slots), an empty tile L + 4 cycles of the list side,
//! overlapped with the table reads through the core's 4-entry FIFO.
//!
//! **Ports.** `clock`, `flush` (synchronous reset of every register, the core's too; flush
//! both memories' held reads with it); in: `in_valid`/`in_ready` with `inp`
//! ([`crate::streams::SeqStartIn`]: `frame`, not used); out: `out_valid`/`out_ready` with `out`
//! ([`crate::streams::SeqCmdOut`]: Cmd's fields, `depth`, `end`); two read ports of the same
//! stream types, named apart by their interface names (the signature's `sends`/`takes`
//! lists take any number of streams; the ports are `lrd_valid`, `lrd__addr`, …, `prd_valid`,
//! `prd__addr`, …): `lrd`/`lrd_ready` + `lrsp`/`lrsp_ready` on the bins region and
//! `prd`/`prd_ready` + `prsp`/`prsp_ready` on the prim-table region
//! ([`crate::streams::MemReqOut`] with `write`, `wdata`, `be` = 0;
//! [`crate::streams::MemRespIn`], in request order; both `*_ready` of the responses are the
//! constant 1: the list core's credits and the two command slots leave room for every read).
//!
//! **Addresses** are 32-bit byte offsets in each region; the frame top's arbiter adds the
//! regions' bases.
//!
//! **Handshake.** `in_ready` = ¬run (a register). `out` is command slot `rp` decoded (an AND /
//! select per field on registers). The list core's `out_ready` (the take) is combinational
//! from registers and `prd_ready`.
//!
//! **Depth.** No multiplier: the table address is `prim << 5` OR a 5-bit offset counter; the
//! longest paths are the core's (`left`/`rleft` compares), the take decision (core FIFO entry
//! 0's `none`, `used`, `pbusy`, `prd_ready`) into the slot and address registers. Measured on
//! the HX8K (`tilerast synth --blocks --board hx8k --preset ice40 --only tile_sequencer`,
//! nextpnr seed 1): 1076 LUT4s, 795 flip-flops, 133 carries, 97.6 MHz against the 75 MHz goal,
//! critical path the core's `left` → `off` (10.2 ns, 7.0 of it routing). ECP5 not measured
//! (no nextpnr-ecp5 on the machine it was built on).
//!
//! ```text
//!  start ─► run ─► core: ListReader (bins: W 1, K 15, B 64) ◄─► lrd / lrsp (bins region)
//!                      │ FIFO ×4 entry 0: prim | none, last
//!                      ▼ take (¬pbusy ∧ adv ∧ used < 2, or none)       tile counter (tx, ty) ─► fin
//!          ┌─ slot ip ← prim, tx, ty ──┐    prd ← prim<<5 | 28, then pbase | 0, 4, …, 20 ─► prd
//!          ▼                           │                                                    │
//!   slots ×2 [prim tx ty end done attr w0..w5] ◄── prsp (word pr of slot ap) ◄──────────────┘
//!          │ slot rp decoded (kind, v, size, aa, depth; end ⇒ 0)
//!          ▼
//!         out (SeqCmd)                    end token: fin ∧ ¬pbusy ∧ used < 2 ∧ acnt = 0
//! ```

use crate::emit;
use crate::list_reader::ListReader;
use crate::util::{k, vec_of};
use rust_hdl::prelude::*;
use tilerast_golden::config::Config;
use tilerast_golden::tile_sequencer::{geom, ATTR_OFF, LAST_OFF, SLOTS};

tilerast_golden::tile_sequencer_streams! { crate::streams::stream_block;
    /// The tile sequencer. Build with [`TileSequencer::new`].
    pub struct TileSequencer {
        core: ListReader,
        c_nx1: Constant<Bits<8>>,
        c_ny1: Constant<Bits<8>>,
        c_one8: Constant<Bits<8>>,
        c_attr: Constant<Bits<32>>,
        c_last: Constant<Bits<5>>,
        c_four5: Constant<Bits<5>>,
        c_log: Constant<Bits<32>>,
        c_two2: Constant<Bits<2>>,
        c_one2: Constant<Bits<2>>,
        c_six3: Constant<Bits<3>>,
        c_one3: Constant<Bits<3>>,
        c_i3: Vec<Constant<Bits<3>>>,
        c_zero4: Constant<Bits<4>>,
        c_zero24: Constant<Bits<24>>,
        c_b: Vec<Constant<Bit>>,
        adv: Signal<Local, Bit>,
        take_rec: Signal<Local, Bit>,
        take_none: Signal<Local, Bit>,
        take: Signal<Local, Bit>,
        slot_ok: Signal<Local, Bit>,
        emit_end: Signal<Local, Bit>,
        pop: Signal<Local, Bit>,
        rsp: Signal<Local, Bit>,
        start: Signal<Local, Bit>,
        inc: Signal<Local, Bit>,
        asm_end: Signal<Local, Bit>,
        prim_in: Signal<Local, Bits<24>>,
        o_prim: Signal<Local, Bits<24>>,
        o_tx: Signal<Local, Bits<8>>,
        o_ty: Signal<Local, Bits<8>>,
        o_end: Signal<Local, Bit>,
        o_done: Signal<Local, Bit>,
        o_attr: Signal<Local, Bits<26>>,
        o_w0: Signal<Local, Bits<24>>,
        o_w1: Signal<Local, Bits<24>>,
        o_w2: Signal<Local, Bits<24>>,
        o_w3: Signal<Local, Bits<24>>,
        o_w4: Signal<Local, Bits<24>>,
        o_w5: Signal<Local, Bits<24>>,
        o_kind: Signal<Local, Bit>,
        run: DFF<Bit>,
        tx: DFF<Bits<8>>,
        ty: DFF<Bits<8>>,
        fin: DFF<Bit>,
        pv: DFF<Bit>,
        paddr: DFF<Bits<32>>,
        pbusy: DFF<Bit>,
        pbase: DFF<Bits<32>>,
        poff: DFF<Bits<5>>,
        s_prim: Vec<DFF<Bits<24>>>,
        s_tx: Vec<DFF<Bits<8>>>,
        s_ty: Vec<DFF<Bits<8>>>,
        s_end: Vec<DFF<Bit>>,
        s_done: Vec<DFF<Bit>>,
        s_attr: Vec<DFF<Bits<26>>>,
        s_w0: Vec<DFF<Bits<24>>>,
        s_w1: Vec<DFF<Bits<24>>>,
        s_w2: Vec<DFF<Bits<24>>>,
        s_w3: Vec<DFF<Bits<24>>>,
        s_w4: Vec<DFF<Bits<24>>>,
        s_w5: Vec<DFF<Bits<24>>>,
        ip: DFF<Bit>,
        ap: DFF<Bit>,
        rp: DFF<Bit>,
        used: DFF<Bits<2>>,
        acnt: DFF<Bits<2>>,
        pr: DFF<Bits<3>>,
    }
}

/// Whether the block builds for `cfg`: the golden model's parameters
/// ([`tilerast_golden::tile_sequencer::geom`]) and the core's.
pub fn supported(cfg: &Config) -> Result<(), String> {
    let (_, g) = geom(cfg)?;
    ListReader::try_new(g)
        .map(|_| ())
        .map_err(|e| format!("config.tile: {e}"))
}

impl TileSequencer {
    /// The block for `cfg`, or the one line naming the field it does not support.
    pub fn try_new(cfg: &Config) -> Result<TileSequencer, String> {
        let (tiles, g) = geom(cfg)?;
        let core = ListReader::try_new(g).map_err(|e| format!("config.tile: {e}"))?;
        assert_eq!(SLOTS, 2, "the RTL has two command slots");
        Ok(TileSequencer {
            clock: Default::default(),
            flush: Default::default(),
            in_valid: Default::default(),
            in_ready: Default::default(),
            inp: Default::default(),
            out_valid: Default::default(),
            out_ready: Default::default(),
            out: Default::default(),
            lrd_valid: Default::default(),
            lrd_ready: Default::default(),
            lrd: Default::default(),
            prd_valid: Default::default(),
            prd_ready: Default::default(),
            prd: Default::default(),
            lrsp_valid: Default::default(),
            lrsp_ready: Default::default(),
            lrsp: Default::default(),
            prsp_valid: Default::default(),
            prsp_ready: Default::default(),
            prsp: Default::default(),
            core,
            c_nx1: k(tiles[0] as u64 - 1),
            c_ny1: k(tiles[1] as u64 - 1),
            c_one8: k(1),
            c_attr: k(ATTR_OFF as u64),
            c_last: k(LAST_OFF as u64),
            c_four5: k(4),
            c_log: k(tilerast_golden::prim_table::PRIM_LOG as u64),
            c_two2: k(2),
            c_one2: k(1),
            c_six3: k(6),
            c_one3: k(1),
            c_i3: (0..7).map(k).collect(),
            c_zero4: k(0),
            c_zero24: k(0),
            c_b: vec![Constant::new(false), Constant::new(true)],
            adv: Default::default(),
            take_rec: Default::default(),
            take_none: Default::default(),
            take: Default::default(),
            slot_ok: Default::default(),
            emit_end: Default::default(),
            pop: Default::default(),
            rsp: Default::default(),
            start: Default::default(),
            inc: Default::default(),
            asm_end: Default::default(),
            prim_in: Default::default(),
            o_prim: Default::default(),
            o_tx: Default::default(),
            o_ty: Default::default(),
            o_end: Default::default(),
            o_done: Default::default(),
            o_attr: Default::default(),
            o_w0: Default::default(),
            o_w1: Default::default(),
            o_w2: Default::default(),
            o_w3: Default::default(),
            o_w4: Default::default(),
            o_w5: Default::default(),
            o_kind: Default::default(),
            run: Default::default(),
            tx: Default::default(),
            ty: Default::default(),
            fin: Default::default(),
            pv: Default::default(),
            paddr: Default::default(),
            pbusy: Default::default(),
            pbase: Default::default(),
            poff: Default::default(),
            s_prim: vec_of(2),
            s_tx: vec_of(2),
            s_ty: vec_of(2),
            s_end: vec_of(2),
            s_done: vec_of(2),
            s_attr: vec_of(2),
            s_w0: vec_of(2),
            s_w1: vec_of(2),
            s_w2: vec_of(2),
            s_w3: vec_of(2),
            s_w4: vec_of(2),
            s_w5: vec_of(2),
            ip: Default::default(),
            ap: Default::default(),
            rp: Default::default(),
            used: Default::default(),
            acnt: Default::default(),
            pr: Default::default(),
        })
    }

    /// The block for `cfg`.
    ///
    /// # Panics
    /// With the reason if it is not supported ([`supported`]).
    pub fn new(cfg: &Config) -> TileSequencer {
        Self::try_new(cfg).unwrap_or_else(|e| panic!("{e}"))
    }

    #[hdl_gen]
    fn kernel(&mut self) {
        self.core.clock.next = self.clock.val();
        self.core.flush.next = self.flush.val();
        self.run.clock.next = self.clock.val();
        self.run.d.next = self.run.q.val();
        self.tx.clock.next = self.clock.val();
        self.tx.d.next = self.tx.q.val();
        self.ty.clock.next = self.clock.val();
        self.ty.d.next = self.ty.q.val();
        self.fin.clock.next = self.clock.val();
        self.fin.d.next = self.fin.q.val();
        self.pv.clock.next = self.clock.val();
        self.pv.d.next = self.pv.q.val();
        self.paddr.clock.next = self.clock.val();
        self.paddr.d.next = self.paddr.q.val();
        self.pbusy.clock.next = self.clock.val();
        self.pbusy.d.next = self.pbusy.q.val();
        self.pbase.clock.next = self.clock.val();
        self.pbase.d.next = self.pbase.q.val();
        self.poff.clock.next = self.clock.val();
        self.poff.d.next = self.poff.q.val();
        self.ip.clock.next = self.clock.val();
        self.ip.d.next = self.ip.q.val();
        self.ap.clock.next = self.clock.val();
        self.ap.d.next = self.ap.q.val();
        self.rp.clock.next = self.clock.val();
        self.rp.d.next = self.rp.q.val();
        self.used.clock.next = self.clock.val();
        self.used.d.next = self.used.q.val();
        self.acnt.clock.next = self.clock.val();
        self.acnt.d.next = self.acnt.q.val();
        self.pr.clock.next = self.clock.val();
        self.pr.d.next = self.pr.q.val();
        for i in 0..2 {
            self.s_prim[i].clock.next = self.clock.val();
            self.s_prim[i].d.next = self.s_prim[i].q.val();
            self.s_tx[i].clock.next = self.clock.val();
            self.s_tx[i].d.next = self.s_tx[i].q.val();
            self.s_ty[i].clock.next = self.clock.val();
            self.s_ty[i].d.next = self.s_ty[i].q.val();
            self.s_end[i].clock.next = self.clock.val();
            self.s_end[i].d.next = self.s_end[i].q.val();
            self.s_done[i].clock.next = self.clock.val();
            self.s_done[i].d.next = self.s_done[i].q.val();
            self.s_attr[i].clock.next = self.clock.val();
            self.s_attr[i].d.next = self.s_attr[i].q.val();
            self.s_w0[i].clock.next = self.clock.val();
            self.s_w0[i].d.next = self.s_w0[i].q.val();
            self.s_w1[i].clock.next = self.clock.val();
            self.s_w1[i].d.next = self.s_w1[i].q.val();
            self.s_w2[i].clock.next = self.clock.val();
            self.s_w2[i].d.next = self.s_w2[i].q.val();
            self.s_w3[i].clock.next = self.clock.val();
            self.s_w3[i].d.next = self.s_w3[i].q.val();
            self.s_w4[i].clock.next = self.clock.val();
            self.s_w4[i].d.next = self.s_w4[i].q.val();
            self.s_w5[i].clock.next = self.clock.val();
            self.s_w5[i].d.next = self.s_w5[i].q.val();
        }

        // The list port: the core's.
        self.lrd_valid.next = self.core.rd_valid.val();
        self.core.rd_ready.next = self.lrd_ready.val();
        self.lrd.addr.next = self.core.rd_addr.val();
        self.lrd.write.next = false;
        self.lrd.wdata.next = 0.into();
        self.lrd.be.next = self.c_zero4.val();
        self.core.rsp_valid.next = self.lrsp_valid.val();
        self.core.rsp_rdata.next = self.lrsp.rdata.val();
        self.lrsp_ready.next = true;
        self.core.none_w0.next = 0.into();

        // The cycle's decisions, from registers and the port inputs.
        self.start.next = self.in_valid.val() & !self.run.q.val();
        self.core.start_valid.next = self.start.val();
        self.adv.next = !self.pv.q.val() | self.prd_ready.val();
        self.slot_ok.next = self.used.q.val() != self.c_two2.val();
        self.take_rec.next = self.core.out_valid.val()
            & !self.core.out_none.val()
            & !self.pbusy.q.val()
            & self.adv.val()
            & self.slot_ok.val();
        self.take_none.next = self.core.out_valid.val() & self.core.out_none.val();
        self.take.next = self.take_rec.val() | self.take_none.val();
        self.core.out_ready.next = self.take.val();
        self.emit_end.next = self.fin.q.val() & !self.pbusy.q.val() & self.slot_ok.val() & !self.acnt.q.val().any();
        self.rsp.next = self.prsp_valid.val() & self.acnt.q.val().any();
        self.asm_end.next = self.rsp.val() & (self.pr.q.val() == self.c_six3.val());
        self.prim_in.next = self.core.out_w0.val().get_bits::<24>(0);

        if self.start.val() {
            self.run.d.next = true;
        }

        // Tile counter.
        if self.take.val() & self.core.out_last.val() {
            if self.tx.q.val() == self.c_nx1.val() {
                self.tx.d.next = 0.into();
                if self.ty.q.val() == self.c_ny1.val() {
                    self.ty.d.next = 0.into();
                    self.fin.d.next = true;
                } else {
                    self.ty.d.next = self.ty.q.val() + self.c_one8.val();
                }
            } else {
                self.tx.d.next = self.tx.q.val() + self.c_one8.val();
            }
        }

        // Prim-table reads and slot reservation.
        if self.pbusy.q.val() & self.adv.val() {
            self.pv.d.next = true;
            self.paddr.d.next = self.pbase.q.val() | bit_cast::<32, 5>(self.poff.q.val());
            if self.poff.q.val() == self.c_last.val() {
                self.pbusy.d.next = false;
            }
            self.poff.d.next = self.poff.q.val() + self.c_four5.val();
        } else if self.take_rec.val() {
            for i in 0..2 {
                if self.ip.q.val() == self.c_b[i].val() {
                    self.s_prim[i].d.next = self.prim_in.val();
                    self.s_tx[i].d.next = self.tx.q.val();
                    self.s_ty[i].d.next = self.ty.q.val();
                    self.s_end[i].d.next = false;
                    self.s_done[i].d.next = false;
                }
            }
            self.pbase.d.next = bit_cast::<32, 24>(self.prim_in.val()) << self.c_log.val();
            self.pv.d.next = true;
            self.paddr.d.next = (bit_cast::<32, 24>(self.prim_in.val()) << self.c_log.val()) | self.c_attr.val();
            self.poff.d.next = 0.into();
            self.pbusy.d.next = true;
            self.ip.d.next = !self.ip.q.val();
        } else if self.adv.val() {
            self.pv.d.next = false;
        }
        if self.emit_end.val() {
            for i in 0..2 {
                if self.ip.q.val() == self.c_b[i].val() {
                    self.s_prim[i].d.next = 0.into();
                    self.s_tx[i].d.next = 0.into();
                    self.s_ty[i].d.next = 0.into();
                    self.s_end[i].d.next = true;
                    self.s_done[i].d.next = true;
                }
            }
            self.ip.d.next = !self.ip.q.val();
            self.ap.d.next = !self.ap.q.val();
            self.fin.d.next = false;
            self.run.d.next = false;
        }

        // Responses into slot `ap`: word `pr` (0 the attribute word, k the coordinate word k − 1).
        if self.rsp.val() {
            for i in 0..2 {
                if self.ap.q.val() == self.c_b[i].val() {
                    if self.pr.q.val() == self.c_i3[0].val() {
                        self.s_attr[i].d.next = self.prsp.rdata.val().get_bits::<26>(0);
                    }
                    if self.pr.q.val() == self.c_i3[1].val() {
                        self.s_w0[i].d.next = self.prsp.rdata.val().get_bits::<24>(0);
                    }
                    if self.pr.q.val() == self.c_i3[2].val() {
                        self.s_w1[i].d.next = self.prsp.rdata.val().get_bits::<24>(0);
                    }
                    if self.pr.q.val() == self.c_i3[3].val() {
                        self.s_w2[i].d.next = self.prsp.rdata.val().get_bits::<24>(0);
                    }
                    if self.pr.q.val() == self.c_i3[4].val() {
                        self.s_w3[i].d.next = self.prsp.rdata.val().get_bits::<24>(0);
                    }
                    if self.pr.q.val() == self.c_i3[5].val() {
                        self.s_w4[i].d.next = self.prsp.rdata.val().get_bits::<24>(0);
                    }
                    if self.pr.q.val() == self.c_i3[6].val() {
                        self.s_w5[i].d.next = self.prsp.rdata.val().get_bits::<24>(0);
                        self.s_done[i].d.next = true;
                    }
                }
            }
            if self.asm_end.val() {
                self.pr.d.next = 0.into();
                self.ap.d.next = !self.ap.q.val();
            } else {
                self.pr.d.next = self.pr.q.val() + self.c_one3.val();
            }
        }

        // Output: slot `rp`.
        self.o_prim.next = self.s_prim[0].q.val();
        self.o_tx.next = self.s_tx[0].q.val();
        self.o_ty.next = self.s_ty[0].q.val();
        self.o_end.next = self.s_end[0].q.val();
        self.o_done.next = self.s_done[0].q.val();
        self.o_attr.next = self.s_attr[0].q.val();
        self.o_w0.next = self.s_w0[0].q.val();
        self.o_w1.next = self.s_w1[0].q.val();
        self.o_w2.next = self.s_w2[0].q.val();
        self.o_w3.next = self.s_w3[0].q.val();
        self.o_w4.next = self.s_w4[0].q.val();
        self.o_w5.next = self.s_w5[0].q.val();
        if self.rp.q.val() {
            self.o_prim.next = self.s_prim[1].q.val();
            self.o_tx.next = self.s_tx[1].q.val();
            self.o_ty.next = self.s_ty[1].q.val();
            self.o_end.next = self.s_end[1].q.val();
            self.o_done.next = self.s_done[1].q.val();
            self.o_attr.next = self.s_attr[1].q.val();
            self.o_w0.next = self.s_w0[1].q.val();
            self.o_w1.next = self.s_w1[1].q.val();
            self.o_w2.next = self.s_w2[1].q.val();
            self.o_w3.next = self.s_w3[1].q.val();
            self.o_w4.next = self.s_w4[1].q.val();
            self.o_w5.next = self.s_w5[1].q.val();
        }
        self.pop.next = self.o_done.val() & self.out_ready.val();
        if self.pop.val() {
            for i in 0..2 {
                if self.rp.q.val() == self.c_b[i].val() {
                    self.s_done[i].d.next = false;
                }
            }
            self.rp.d.next = !self.rp.q.val();
        }

        // Slots reserved and commands not yet assembled.
        self.inc.next = self.take_rec.val() | self.emit_end.val();
        if self.inc.val() & !self.pop.val() {
            self.used.d.next = self.used.q.val() + self.c_one2.val();
        }
        if self.pop.val() & !self.inc.val() {
            self.used.d.next = self.used.q.val() - self.c_one2.val();
        }
        if self.take_rec.val() & !self.asm_end.val() {
            self.acnt.d.next = self.acnt.q.val() + self.c_one2.val();
        }
        if self.asm_end.val() & !self.take_rec.val() {
            self.acnt.d.next = self.acnt.q.val() - self.c_one2.val();
        }

        if self.flush.val() {
            self.run.d.next = false;
            self.tx.d.next = 0.into();
            self.ty.d.next = 0.into();
            self.fin.d.next = false;
            self.pv.d.next = false;
            self.paddr.d.next = 0.into();
            self.pbusy.d.next = false;
            self.pbase.d.next = 0.into();
            self.poff.d.next = 0.into();
            self.ip.d.next = false;
            self.ap.d.next = false;
            self.rp.d.next = false;
            self.used.d.next = 0.into();
            self.acnt.d.next = 0.into();
            self.pr.d.next = 0.into();
            for i in 0..2 {
                self.s_prim[i].d.next = 0.into();
                self.s_tx[i].d.next = 0.into();
                self.s_ty[i].d.next = 0.into();
                self.s_end[i].d.next = false;
                self.s_done[i].d.next = false;
                self.s_attr[i].d.next = 0.into();
                self.s_w0[i].d.next = 0.into();
                self.s_w1[i].d.next = 0.into();
                self.s_w2[i].d.next = 0.into();
                self.s_w3[i].d.next = 0.into();
                self.s_w4[i].d.next = 0.into();
                self.s_w5[i].d.next = 0.into();
            }
        }

        // Ports from registers.
        self.in_ready.next = !self.run.q.val();
        self.prd_valid.next = self.pv.q.val();
        self.prd.addr.next = self.paddr.q.val();
        self.prd.write.next = false;
        self.prd.wdata.next = 0.into();
        self.prd.be.next = self.c_zero4.val();
        self.prsp_ready.next = true;
        self.out_valid.next = self.o_done.val();
        self.o_kind.next = self.o_attr.val().get_bit(24);
        self.out.kind.next = self.o_kind.val();
        self.out.prim.next = self.o_prim.val();
        self.out.tile_x.next = self.o_tx.val();
        self.out.tile_y.next = self.o_ty.val();
        self.out.v0x.next = signed_cast(self.o_w0.val());
        self.out.v0y.next = signed_cast(self.o_w1.val());
        self.out.v1x.next = signed_cast(self.o_w2.val());
        self.out.v1y.next = signed_cast(self.o_w3.val());
        self.out.v2x.next = signed_cast(self.o_w4.val());
        self.out.v2y.next = signed_cast(self.o_w5.val());
        self.out.size.next = self.c_zero24.val();
        self.out.aa.next = false;
        self.out.depth.next = self.o_attr.val().get_bits::<24>(0);
        self.out.end.next = self.o_end.val();
        if self.o_kind.val() {
            self.out.v1x.next = signed_cast(self.c_zero24.val());
            self.out.v1y.next = signed_cast(self.c_zero24.val());
            self.out.v2x.next = signed_cast(self.c_zero24.val());
            self.out.v2y.next = signed_cast(self.c_zero24.val());
            self.out.size.next = self.o_w2.val();
            self.out.aa.next = self.o_attr.val().get_bit(25);
        }
        if self.o_end.val() {
            self.out.kind.next = false;
            self.out.prim.next = 0.into();
            self.out.tile_x.next = 0.into();
            self.out.tile_y.next = 0.into();
            self.out.v0x.next = signed_cast(self.c_zero24.val());
            self.out.v0y.next = signed_cast(self.c_zero24.val());
            self.out.v1x.next = signed_cast(self.c_zero24.val());
            self.out.v1y.next = signed_cast(self.c_zero24.val());
            self.out.v2x.next = signed_cast(self.c_zero24.val());
            self.out.v2y.next = signed_cast(self.c_zero24.val());
            self.out.size.next = self.c_zero24.val();
            self.out.aa.next = false;
            self.out.depth.next = self.c_zero24.val();
        }
    }
}

emit::indexed_kernel_logic!(TileSequencer);

/// The block's Verilog with top module `name`.
pub fn verilog(cfg: &Config, name: &str) -> String {
    emit::block_verilog(TileSequencer::new(cfg), name)
}

/// The tile sequencer's row of [`crate::BLOCK_FILES`].
pub const FILE: crate::BlockFile = crate::BlockFile {
    role: "seed 001, the raster side reads the binner's lists and the primitive table back, one command per listed primitive",
    contract: "tilerast_golden::tile_sequencer::TileSequencerCycle (tilerast_golden::list_reader::ListReaderCycle)",
    sig: <tilerast_golden::tile_sequencer::TileSequencerPorts as tilerast_golden::cycle::BlockSignature>::SIGNATURE,
    params: |cfg| {
        let (tiles, _) = geom(cfg)?;
        supported(cfg)?;
        Ok(format!(
            "{}x{} first tiles, bin lists of 1-word records in 64-byte chunks (offsets in the bins region), 32-byte prim-table entries (offsets in the prim-table region), {} command slots",
            tiles[0], tiles[1], SLOTS
        ))
    },
    verilog,
};
