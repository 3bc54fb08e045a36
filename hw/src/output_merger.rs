//! # output_merger (seed 000: assembles the tiles into the frame)
//!
//! The write path of the output merger: takes the blender's beats (up to four results, each a
//! framebuffer slot position and its packed RGBA8 colour) and turns every valid slot into one
//! memory write on the pixel side's memory port, at golden's framebuffer address
//! ([`tilerast_golden::output_merger::slot_addr`]: `4·pos`, one little-endian word per slot, R at
//! the lowest byte), so that the memory behind the port ends the frame holding golden's
//! framebuffer byte for byte. Cycle model:
//! [`tilerast_golden::output_merger::OutputMergerCycle`] (same registers); its rustdoc is the
//! block's timing contract, stated once.
//!
//! **Ports.** `clock`, `flush` (synchronous reset, every register zero); in:
//! `in_valid`/`in_ready` with `inp` ([`crate::streams::BlendBeatIn`]: slot j valid iff
//! `lane_valid` bit j); out: `out_valid`/`out_ready` with `out` ([`crate::streams::MemReqOut`]:
//! `addr`, `write` = 1, `wdata`, `be` = 0xf), the memory port's request side.
//!
//! **Handshake.** `adv = !out_valid | out_ready` moves the hold register's lowest slot into
//! the output register; `in_ready = (hold empty) | (one slot left & adv)` (the only
//! combinational input → output path).
//!
//! **Depth.** A four-way priority select (lowest remaining slot) and a 2:1 multiplexer in
//! front of each output register; the address is the position shifted by two (wiring). Every
//! output is a register.
//!
//! ```text
//!  beat ─► hold: [mask | pos0..3 | colour0..3] ─► lowest slot l ─► [addr = 4·pos_l,
//!             ▲  mask &= ~(1 << l) on adv            (priority)      wdata = colour_l,
//!             └─ loaded whole when in_ready                          write, be = 0xf] ─► out
//! ```
//!
//! Parameters: none (the framebuffer is at address 0 of the port); every config builds it.

use crate::emit;
use crate::streams::{MemReqOut, MemReqReg};
use crate::util::{k, vec_of};
use rust_hdl::prelude::*;
use tilerast_golden::config::Config;

tilerast_golden::output_merger_streams! { crate::streams::stream_block;
    /// The output merger's write path. Build with [`OutputMerger::new`].
    pub struct OutputMerger {
        c_zero4: Constant<Bits<4>>,
        c_one4: Constant<Bits<4>>,
        c_be: Constant<Bits<4>>,
        c_two: Constant<Bits<32>>,
        c_clear: Vec<Constant<Bits<4>>>,

        adv: Signal<Local, Bit>,
        left1: Signal<Local, Bit>,
        ready: Signal<Local, Bit>,
        sel_pos: Signal<Local, Bits<32>>,
        sel_col: Signal<Local, Bits<32>>,
        sel_clear: Signal<Local, Bits<4>>,

        hv: DFF<Bits<4>>,
        hpos: Vec<DFF<Bits<32>>>,
        hcol: Vec<DFF<Bits<32>>>,
        ov: DFF<Bit>,
        /// The output register (the memory request), loaded at the write path's advance.
        out_reg: MemReqReg,
    }
}

impl OutputMerger {
    /// The block (no parameters: `cfg` is taken for the uniform block interface).
    pub fn new(_cfg: &Config) -> OutputMerger {
        OutputMerger {
            clock: Default::default(),
            flush: Default::default(),
            in_valid: Default::default(),
            in_ready: Default::default(),
            idle: Default::default(),
            inp: Default::default(),
            out_valid: Default::default(),
            out_ready: Default::default(),
            out: Default::default(),
            c_zero4: k(0),
            c_one4: k(1),
            c_be: k(0xf),
            c_two: k(2),
            // Mask after slot j leaves: clear bit j.
            c_clear: (0..4).map(|j| k(0xf & !(1u64 << j))).collect(),
            adv: Default::default(),
            left1: Default::default(),
            ready: Default::default(),
            sel_pos: Default::default(),
            sel_col: Default::default(),
            sel_clear: Default::default(),
            hv: Default::default(),
            hpos: vec_of(4),
            hcol: vec_of(4),
            ov: Default::default(),
            out_reg: Default::default(),
        }
    }

    #[hdl_gen]
    fn kernel(&mut self) {
        self.hv.clock.next = self.clock.val();
        self.hv.d.next = self.hv.q.val();
        self.ov.clock.next = self.clock.val();
        self.ov.d.next = self.ov.q.val();
        for j in 0..4 {
            self.hpos[j].clock.next = self.clock.val();
            self.hpos[j].d.next = self.hpos[j].q.val();
            self.hcol[j].clock.next = self.clock.val();
            self.hcol[j].d.next = self.hcol[j].q.val();
        }

        // Handshake.
        self.adv.next = !self.ov.q.val() | self.out_ready.val();
        self.left1.next = (self.hv.q.val() != self.c_zero4.val())
            & ((self.hv.q.val() & (self.hv.q.val() - self.c_one4.val())) == self.c_zero4.val());
        self.ready.next = (self.hv.q.val() == self.c_zero4.val()) | (self.left1.val() & self.adv.val());
        self.in_ready.next = self.ready.val();

        // Lowest remaining slot (later assignments win).
        self.sel_pos.next = self.hpos[3].q.val();
        self.sel_col.next = self.hcol[3].q.val();
        self.sel_clear.next = self.c_clear[3].val();
        if self.hv.q.val().get_bit(2) {
            self.sel_pos.next = self.hpos[2].q.val();
            self.sel_col.next = self.hcol[2].q.val();
            self.sel_clear.next = self.c_clear[2].val();
        }
        if self.hv.q.val().get_bit(1) {
            self.sel_pos.next = self.hpos[1].q.val();
            self.sel_col.next = self.hcol[1].q.val();
            self.sel_clear.next = self.c_clear[1].val();
        }
        if self.hv.q.val().get_bit(0) {
            self.sel_pos.next = self.hpos[0].q.val();
            self.sel_col.next = self.hcol[0].q.val();
            self.sel_clear.next = self.c_clear[0].val();
        }

        // The output register (MemReqReg): the lowest remaining slot's write, loaded when it
        // leaves, cleared by flush.
        self.out_reg.clock.next = self.clock.val();
        self.out_reg.load.next = false;
        self.out_reg.clear.next = self.flush.val();
        self.out_reg.d.addr.next = self.sel_pos.val() << self.c_two.val();
        self.out_reg.d.wdata.next = self.sel_col.val();
        self.out_reg.d.write.next = true;
        self.out_reg.d.be.next = self.c_be.val();

        if self.adv.val() {
            if self.hv.q.val() == self.c_zero4.val() {
                self.ov.d.next = false;
            } else {
                self.ov.d.next = true;
                self.out_reg.load.next = true;
                self.hv.d.next = self.hv.q.val() & self.sel_clear.val();
            }
        }
        if self.in_valid.val() & self.ready.val() {
            self.hv.d.next = self.inp.lane_valid.val();
            self.hpos[0].d.next = self.inp.pos_0.val();
            self.hpos[1].d.next = self.inp.pos_1.val();
            self.hpos[2].d.next = self.inp.pos_2.val();
            self.hpos[3].d.next = self.inp.pos_3.val();
            self.hcol[0].d.next = self.inp.colour_0.val();
            self.hcol[1].d.next = self.inp.colour_1.val();
            self.hcol[2].d.next = self.inp.colour_2.val();
            self.hcol[3].d.next = self.inp.colour_3.val();
        }

        if self.flush.val() {
            self.hv.d.next = self.c_zero4.val();
            self.ov.d.next = false;
            for j in 0..4 {
                self.hpos[j].d.next = 0.into();
                self.hcol[j].d.next = 0.into();
            }
        }

        self.out_valid.next = self.ov.q.val();
        self.idle.next = !self.hv.q.val().any() & !self.ov.q.val();
        MemReqOut::link(&mut self.out, &mut self.out_reg.q);
    }
}

emit::indexed_kernel_logic!(OutputMerger);

/// The block's Verilog with top module `name`.
pub fn verilog(cfg: &Config, name: &str) -> String {
    emit::block_verilog(OutputMerger::new(cfg), name)
}

/// The output merger's row of [`crate::BLOCK_FILES`].
pub const FILE: crate::BlockFile = crate::BlockFile {
    role: "seed 000, framebuffer writes through the memory port",
    contract: "tilerast_golden::output_merger::OutputMergerCycle",
    sig: <tilerast_golden::output_merger::OutputMergerPorts as tilerast_golden::cycle::BlockSignature>::SIGNATURE,
    params: |_| Ok("framebuffer at address 0, slot pos at 4·pos".into()),
    verilog,
};
