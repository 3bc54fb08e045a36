//! # list_reader (the generic list reader core, shared)
//!
//! The RTL of [`tilerast_golden::list_reader::ListReaderCycle`] (same registers; its rustdoc is
//! the timing contract): walks `lists` linked lists of fixed-size blocks in the `BlockLists`
//! layout through a memory read port and hands out one record per beat from a 4-entry FIFO.
//! Used by `pixel_info_read` (the pixel-info lists) and `tile_sequencer` (the binner's
//! primitive lists, W = 1), as `list_writer.rs` is shared by the binner and `pixel_info_write`.

use crate::emit;
use crate::fifo::shift_fifo;
use crate::util::{k, vec_of};
use rust_hdl::prelude::*;
use tilerast_golden::list_reader::{ListGeom, MAX_WORDS, OUT_DEPTH};

/// Sequencer states ([`tilerast_golden::list_reader::Seq`] in declaration order).
const S_IDLE: usize = 0;
const S_HEAD: usize = 1;
const S_COUNT: usize = 2;
const S_WAITC: usize = 3;
const S_REC: usize = 4;
const S_NEXT: usize = 5;
const S_WAITN: usize = 6;

shift_fifo! {
    /// The list reader's output FIFO ([`OUT_DEPTH`] records of [`MAX_WORDS`] words, `last`
    /// and `none`): entry 0 is the core's `out`.
    pub struct OutFifo {
        depth 4, last 3, count 3,
        fields { w0: Bits<32>, w1: Bits<32>, w2: Bits<32>, w3: Bits<32>, w4: Bits<32>, last: Bit, none: Bit }
    }
}

/// The generic list reader core ([`tilerast_golden::list_reader::ListReaderCycle`], same
/// registers; `used` = 4 − the model's `cred`, so that every register starts at 0). Reusable
/// for any lists in the `BlockLists` layout (the binner's primitive lists: W = 1).
#[derive(LogicBlock)]
pub struct ListReader {
    pub clock: Signal<In, Clock>,
    pub flush: Signal<In, Bit>,
    /// A start is offered / taken (`start_ready` = idle).
    pub start_valid: Signal<In, Bit>,
    pub start_ready: Signal<Out, Bit>,
    /// Word 0 of the `none` tokens of this start.
    pub none_w0: Signal<In, Bits<32>>,
    /// The read port (reads only), from the request register.
    pub rd_valid: Signal<Out, Bit>,
    pub rd_ready: Signal<In, Bit>,
    pub rd_addr: Signal<Out, Bits<32>>,
    /// Responses, always taken.
    pub rsp_valid: Signal<In, Bit>,
    pub rsp_rdata: Signal<In, Bits<32>>,
    /// The output FIFO's entry 0.
    pub out_valid: Signal<Out, Bit>,
    pub out_ready: Signal<In, Bit>,
    pub out_w0: Signal<Out, Bits<32>>,
    pub out_w1: Signal<Out, Bits<32>>,
    pub out_w2: Signal<Out, Bits<32>>,
    pub out_w3: Signal<Out, Bits<32>>,
    pub out_w4: Signal<Out, Bits<32>>,
    pub out_last: Signal<Out, Bit>,
    pub out_none: Signal<Out, Bit>,

    c_idle: Constant<Bits<3>>,
    c_head: Constant<Bits<3>>,
    c_count: Constant<Bits<3>>,
    c_waitc: Constant<Bits<3>>,
    c_rec: Constant<Bits<3>>,
    c_next: Constant<Bits<3>>,
    c_waitn: Constant<Bits<3>>,
    c_i3: Vec<Constant<Bits<3>>>,
    c_w1: Constant<Bits<3>>,
    c_k1: Constant<Bits<16>>,
    c_log: Constant<Bits<32>>,
    c_tlast: Constant<Bits<32>>,
    c_four32: Constant<Bits<32>>,
    c_eight32: Constant<Bits<32>>,
    c_one32: Constant<Bits<32>>,
    c_zero32: Constant<Bits<32>>,
    c_four16: Constant<Bits<16>>,
    c_one16: Constant<Bits<16>>,
    c_two2: Constant<Bits<2>>,
    c_one2: Constant<Bits<2>>,
    c_one3: Constant<Bits<3>>,
    c_four3: Constant<Bits<3>>,
    c_one5: Constant<Bits<5>>,

    adv_rd: Signal<Local, Bit>,
    pop: Signal<Local, Bit>,
    rec_rsp: Signal<Local, Bit>,
    ctl_rsp: Signal<Local, Bit>,
    cred_ok: Signal<Local, Bit>,
    rec_go: Signal<Local, Bit>,
    push_none: Signal<Local, Bit>,
    push: Signal<Local, Bit>,
    reserve: Signal<Local, Bit>,
    last_list: Signal<Local, Bit>,
    w_last: Signal<Local, Bit>,
    base: Signal<Local, Bits<32>>,

    seq: DFF<Bits<3>>,
    taddr: DFF<Bits<32>>,
    nw0: DFF<Bits<32>>,
    blk: DFF<Bits<32>>,
    left: DFF<Bits<32>>,
    kk: DFF<Bits<16>>,
    w: DFF<Bits<3>>,
    off: DFF<Bits<16>>,
    ctl_n: DFF<Bits<2>>,
    rv: DFF<Bit>,
    raddr: DFF<Bits<32>>,
    pend: DFF<Bits<5>>,
    used: DFF<Bits<3>>,
    wr: DFF<Bits<3>>,
    rleft: DFF<Bits<32>>,
    asm: Vec<DFF<Bits<32>>>,
    asm_done: DFF<Bit>,
    asm_last: DFF<Bit>,
    /// The output FIFO: records assembled (or an empty list's `none` token), entry 0 on `out`.
    out_fifo: OutFifo,
}

impl ListReader {
    /// The core for `g`, or the one line naming the parameter it refuses.
    pub fn try_new(g: ListGeom) -> Result<ListReader, String> {
        g.check()?;
        if g.per_block > 1 << 16 {
            return Err(format!("per_block: {} exceeds the core's 16-bit counter", g.per_block));
        }
        assert_eq!(
            (MAX_WORDS, OUT_DEPTH),
            (5, 4),
            "the RTL has 5 word lanes and 4 FIFO entries"
        );
        Ok(ListReader {
            clock: Default::default(),
            flush: Default::default(),
            start_valid: Default::default(),
            start_ready: Default::default(),
            none_w0: Default::default(),
            rd_valid: Default::default(),
            rd_ready: Default::default(),
            rd_addr: Default::default(),
            rsp_valid: Default::default(),
            rsp_rdata: Default::default(),
            out_valid: Default::default(),
            out_ready: Default::default(),
            out_w0: Default::default(),
            out_w1: Default::default(),
            out_w2: Default::default(),
            out_w3: Default::default(),
            out_w4: Default::default(),
            out_last: Default::default(),
            out_none: Default::default(),
            c_idle: k(S_IDLE as u64),
            c_head: k(S_HEAD as u64),
            c_count: k(S_COUNT as u64),
            c_waitc: k(S_WAITC as u64),
            c_rec: k(S_REC as u64),
            c_next: k(S_NEXT as u64),
            c_waitn: k(S_WAITN as u64),
            c_i3: (0..5).map(k).collect(),
            c_w1: k(g.words as u64 - 1),
            c_k1: k(g.per_block as u64 - 1),
            c_log: k(g.block_log as u64),
            c_tlast: k(8 * (g.lists as u64 - 1)),
            c_four32: k(4),
            c_eight32: k(8),
            c_one32: k(1),
            c_zero32: k(0),
            c_four16: k(4),
            c_one16: k(1),
            c_two2: k(2),
            c_one2: k(1),
            c_one3: k(1),
            c_four3: k(4),
            c_one5: k(1),
            adv_rd: Default::default(),
            pop: Default::default(),
            rec_rsp: Default::default(),
            ctl_rsp: Default::default(),
            cred_ok: Default::default(),
            rec_go: Default::default(),
            push_none: Default::default(),
            push: Default::default(),
            reserve: Default::default(),
            last_list: Default::default(),
            w_last: Default::default(),
            base: Default::default(),
            seq: Default::default(),
            taddr: Default::default(),
            nw0: Default::default(),
            blk: Default::default(),
            left: Default::default(),
            kk: Default::default(),
            w: Default::default(),
            off: Default::default(),
            ctl_n: Default::default(),
            rv: Default::default(),
            raddr: Default::default(),
            pend: Default::default(),
            used: Default::default(),
            wr: Default::default(),
            rleft: Default::default(),
            asm: vec_of(MAX_WORDS),
            asm_done: Default::default(),
            asm_last: Default::default(),
            out_fifo: Default::default(),
        })
    }

    #[hdl_gen]
    fn kernel(&mut self) {
        self.seq.clock.next = self.clock.val();
        self.seq.d.next = self.seq.q.val();
        self.taddr.clock.next = self.clock.val();
        self.taddr.d.next = self.taddr.q.val();
        self.nw0.clock.next = self.clock.val();
        self.nw0.d.next = self.nw0.q.val();
        self.blk.clock.next = self.clock.val();
        self.blk.d.next = self.blk.q.val();
        self.left.clock.next = self.clock.val();
        self.left.d.next = self.left.q.val();
        self.kk.clock.next = self.clock.val();
        self.kk.d.next = self.kk.q.val();
        self.w.clock.next = self.clock.val();
        self.w.d.next = self.w.q.val();
        self.off.clock.next = self.clock.val();
        self.off.d.next = self.off.q.val();
        self.ctl_n.clock.next = self.clock.val();
        self.ctl_n.d.next = self.ctl_n.q.val();
        self.rv.clock.next = self.clock.val();
        self.rv.d.next = self.rv.q.val();
        self.raddr.clock.next = self.clock.val();
        self.raddr.d.next = self.raddr.q.val();
        self.pend.clock.next = self.clock.val();
        self.pend.d.next = self.pend.q.val();
        self.used.clock.next = self.clock.val();
        self.used.d.next = self.used.q.val();
        self.wr.clock.next = self.clock.val();
        self.wr.d.next = self.wr.q.val();
        self.rleft.clock.next = self.clock.val();
        self.rleft.d.next = self.rleft.q.val();
        self.asm_done.clock.next = self.clock.val();
        self.asm_done.d.next = false;
        self.asm_last.clock.next = self.clock.val();
        self.asm_last.d.next = self.asm_last.q.val();
        for j in 0..5 {
            self.asm[j].clock.next = self.clock.val();
            self.asm[j].d.next = self.asm[j].q.val();
        }

        // The cycle's decisions, from registers and the port inputs.
        self.adv_rd.next = !self.rv.q.val() | self.rd_ready.val();
        self.pop.next = (self.out_fifo.count.val() != self.c_i3[0].val()) & self.out_ready.val();
        self.rec_rsp.next = self.rsp_valid.val() & self.pend.q.val().any();
        self.ctl_rsp.next = self.rsp_valid.val() & !self.pend.q.val().any() & (self.seq.q.val() != self.c_idle.val());
        self.cred_ok.next = self.used.q.val() != self.c_four3.val();
        self.rec_go.next =
            (self.seq.q.val() == self.c_rec.val()) & self.adv_rd.val() & (self.w.q.val().any() | self.cred_ok.val());
        self.push_none.next = (self.seq.q.val() == self.c_waitc.val())
            & (self.ctl_n.q.val() == self.c_two2.val())
            & !self.left.q.val().any()
            & self.cred_ok.val();
        self.reserve.next = (self.rec_go.val() & !self.w.q.val().any()) | self.push_none.val();
        self.last_list.next = self.taddr.q.val() == self.c_tlast.val();
        self.w_last.next = self.w.q.val() == self.c_w1.val();
        self.base.next = self.blk.q.val() << self.c_log.val();

        // Sequencer and read issue.
        if self.adv_rd.val() {
            self.rv.d.next = false;
        }
        if (self.seq.q.val() == self.c_idle.val()) & self.start_valid.val() {
            self.taddr.d.next = 0.into();
            self.nw0.d.next = self.none_w0.val();
            self.seq.d.next = self.c_head.val();
        }
        if (self.seq.q.val() == self.c_head.val()) & self.adv_rd.val() {
            self.rv.d.next = true;
            self.raddr.d.next = self.taddr.q.val();
            self.seq.d.next = self.c_count.val();
        }
        if (self.seq.q.val() == self.c_count.val()) & self.adv_rd.val() {
            self.rv.d.next = true;
            self.raddr.d.next = self.taddr.q.val() + self.c_four32.val();
            self.seq.d.next = self.c_waitc.val();
        }
        if (self.seq.q.val() == self.c_next.val()) & self.adv_rd.val() {
            self.rv.d.next = true;
            self.raddr.d.next = self.base.val();
            self.seq.d.next = self.c_waitn.val();
        }
        if (self.seq.q.val() == self.c_waitc.val()) & (self.ctl_n.q.val() == self.c_two2.val()) {
            if self.left.q.val().any() {
                self.ctl_n.d.next = 0.into();
                self.kk.d.next = 0.into();
                self.w.d.next = 0.into();
                self.off.d.next = self.c_four16.val();
                self.seq.d.next = self.c_rec.val();
            } else if self.cred_ok.val() {
                self.ctl_n.d.next = 0.into();
                if self.last_list.val() {
                    self.seq.d.next = self.c_idle.val();
                } else {
                    self.taddr.d.next = self.taddr.q.val() + self.c_eight32.val();
                    self.seq.d.next = self.c_head.val();
                }
            }
        }
        if (self.seq.q.val() == self.c_waitn.val()) & (self.ctl_n.q.val() == self.c_one2.val()) {
            self.ctl_n.d.next = 0.into();
            self.kk.d.next = 0.into();
            self.w.d.next = 0.into();
            self.off.d.next = self.c_four16.val();
            self.seq.d.next = self.c_rec.val();
        }
        if self.rec_go.val() {
            self.rv.d.next = true;
            self.raddr.d.next = self.base.val() | bit_cast::<32, 16>(self.off.q.val());
            self.off.d.next = self.off.q.val() + self.c_four16.val();
            if self.w_last.val() {
                self.w.d.next = 0.into();
                self.left.d.next = self.left.q.val() - self.c_one32.val();
                self.kk.d.next = self.kk.q.val() + self.c_one16.val();
                if self.left.q.val() == self.c_one32.val() {
                    if self.last_list.val() {
                        self.seq.d.next = self.c_idle.val();
                    } else {
                        self.taddr.d.next = self.taddr.q.val() + self.c_eight32.val();
                        self.seq.d.next = self.c_head.val();
                    }
                } else if self.kk.q.val() == self.c_k1.val() {
                    self.seq.d.next = self.c_next.val();
                }
            } else {
                self.w.d.next = self.w.q.val() + self.c_one3.val();
            }
        }

        // Responses: record words into the assembly lanes, control words into the sequencer.
        if self.rec_rsp.val() {
            for j in 0..5 {
                if self.wr.q.val() == self.c_i3[j].val() {
                    self.asm[j].d.next = self.rsp_rdata.val();
                }
            }
            if self.wr.q.val() == self.c_w1.val() {
                self.wr.d.next = 0.into();
                self.asm_done.d.next = true;
                self.asm_last.d.next = self.rleft.q.val() == self.c_one32.val();
                self.rleft.d.next = self.rleft.q.val() - self.c_one32.val();
            } else {
                self.wr.d.next = self.wr.q.val() + self.c_one3.val();
            }
        }
        if self.ctl_rsp.val() {
            if self.ctl_n.q.val().any() {
                self.left.d.next = self.rsp_rdata.val();
                self.rleft.d.next = self.rsp_rdata.val();
            } else {
                self.blk.d.next = self.rsp_rdata.val();
            }
            self.ctl_n.d.next = self.ctl_n.q.val() + self.c_one2.val();
        }
        if self.rec_go.val() & !self.rec_rsp.val() {
            self.pend.d.next = self.pend.q.val() + self.c_one5.val();
        }
        if self.rec_rsp.val() & !self.rec_go.val() {
            self.pend.d.next = self.pend.q.val() - self.c_one5.val();
        }
        if self.reserve.val() & !self.pop.val() {
            self.used.d.next = self.used.q.val() + self.c_one3.val();
        }
        if self.pop.val() & !self.reserve.val() {
            self.used.d.next = self.used.q.val() - self.c_one3.val();
        }

        // Output FIFO (shift_fifo!): the record assembled, or an empty list's token (which
        // wins), pushed at the first free entry; popped as `out` is taken.
        self.push.next = self.asm_done.q.val() | self.push_none.val();
        self.out_fifo.clock.next = self.clock.val();
        self.out_fifo.flush.next = self.flush.val();
        self.out_fifo.pop.next = self.pop.val();
        self.out_fifo.push.next = self.push.val();
        self.out_fifo.push_w0.next = self.asm[0].q.val();
        self.out_fifo.push_w1.next = self.asm[1].q.val();
        self.out_fifo.push_w2.next = self.asm[2].q.val();
        self.out_fifo.push_w3.next = self.asm[3].q.val();
        self.out_fifo.push_w4.next = self.asm[4].q.val();
        self.out_fifo.push_last.next = self.asm_last.q.val();
        self.out_fifo.push_none.next = false;
        if self.push_none.val() {
            self.out_fifo.push_w0.next = self.nw0.q.val();
            self.out_fifo.push_w1.next = self.c_zero32.val();
            self.out_fifo.push_w2.next = self.c_zero32.val();
            self.out_fifo.push_w3.next = self.c_zero32.val();
            self.out_fifo.push_w4.next = self.c_zero32.val();
            self.out_fifo.push_last.next = true;
            self.out_fifo.push_none.next = true;
        }

        if self.flush.val() {
            self.seq.d.next = 0.into();
            self.taddr.d.next = 0.into();
            self.nw0.d.next = 0.into();
            self.blk.d.next = 0.into();
            self.left.d.next = 0.into();
            self.kk.d.next = 0.into();
            self.w.d.next = 0.into();
            self.off.d.next = 0.into();
            self.ctl_n.d.next = 0.into();
            self.rv.d.next = false;
            self.raddr.d.next = 0.into();
            self.pend.d.next = 0.into();
            self.used.d.next = 0.into();
            self.wr.d.next = 0.into();
            self.rleft.d.next = 0.into();
            self.asm_done.d.next = false;
            self.asm_last.d.next = false;
            for j in 0..5 {
                self.asm[j].d.next = 0.into();
            }
        }

        self.start_ready.next = self.seq.q.val() == self.c_idle.val();
        self.rd_valid.next = self.rv.q.val();
        self.rd_addr.next = self.raddr.q.val();
        self.out_valid.next = self.out_fifo.count.val() != self.c_i3[0].val();
        self.out_w0.next = self.out_fifo.head_w0.val();
        self.out_w1.next = self.out_fifo.head_w1.val();
        self.out_w2.next = self.out_fifo.head_w2.val();
        self.out_w3.next = self.out_fifo.head_w3.val();
        self.out_w4.next = self.out_fifo.head_w4.val();
        self.out_last.next = self.out_fifo.head_last.val();
        self.out_none.next = self.out_fifo.head_none.val();
    }
}

emit::indexed_kernel_logic!(ListReader);
