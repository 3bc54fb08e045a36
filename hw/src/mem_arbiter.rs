//! # mem_arbiter (no seed: the board top's memory arbiter)
//!
//! The board's memory (the SDRAM controller's port) shared by its two clients, the scan-out
//! first, then the GPU's port: a fixed-priority select and a read-tag FIFO (the shared
//! `ring_fifo!`) whose head sends each answer back to the client whose read it is. Cycle model:
//! [`tilerast_golden::mem_arbiter::MemArbiterCycle`]; its rustdoc is the block's timing
//! contract, stated once (the frame top's arbiter's, without region bases).
//!
//! **Ports.** `clock`, `flush` (synchronous: the tag FIFO empties); the memory side: `out`
//! (`out_valid`/`out_ready`, [`crate::streams::MemReqOut`]) and its answers `inp`
//! (`in_valid`/`in_ready`, [`crate::streams::MemRespIn`]); client 0, the scan-out: `scan_rd`
//! requests in, `scan_rsp` answers out; client 1, the GPU: `gpu_req` in, `gpu_rsp` out.
//!
//! **Handshake.** Combinational both ways (no registers on the paths): `out_valid` from the
//! clients' valids and the tag FIFO's `full` (a register); a client's ready = `out_ready` ∧ it
//! is eligible and wins; a client's answer valid = `in_valid` ∧ the FIFO's head is it; `in_ready` = the head
//! client's answer ready (1 when the FIFO is empty). Latency 0, one request and one answer
//! per cycle.
//!
//! ```text
//!  scan_rd ─┬─ eligible0 = valid ∧ (write ∨ ¬full) ─┐
//!  gpu_req ─┴─ eligible1 ───────────────────────────┴─► winner (0 first) ─► out ─► memory
//!              read taken ─► tag FIFO (1 bit × 8) ◄─ pop: answer taken
//!  scan_rsp ◄─ head = 0 ─┐
//!  gpu_rsp  ◄─ head = 1 ─┴─ inp ◄─ memory
//! ```

use crate::emit;
use crate::fifo::ring_fifo;
use crate::util::k;
use rust_hdl::prelude::*;
use tilerast_golden::board::Board;
use tilerast_golden::mem_arbiter::{BOARD_CLIENTS, TAG_DEPTH};

/// The stage name (module `tilerast_mem_arbiter_<board>`).
pub const STAGE: &str = "mem_arbiter";

const _: () = assert!(TAG_DEPTH == 8 && BOARD_CLIENTS.len() == 2, "the tag FIFO below");

ring_fifo! {
    /// The read tags: the client of each read in flight, oldest at the head.
    pub struct TagFifo { width 1, depth 8, pointer 3, count 4 }
}

tilerast_golden::mem_arbiter_streams! { crate::streams::stream_block;
    /// The board's memory arbiter. Build with [`MemArbiter::default`] (see the module header).
    pub struct MemArbiter {
        c_scan: Constant<Bits<1>>,
        c_gpu: Constant<Bits<1>>,
        /// The clients' requests may go out now.
        scan_eligible: Signal<Local, Bit>,
        gpu_eligible: Signal<Local, Bit>,
        /// The GPU's request is the one on `out`.
        gpu_wins: Signal<Local, Bit>,
        tags: TagFifo,
    }
}

impl Default for MemArbiter {
    fn default() -> Self {
        MemArbiter {
            clock: Default::default(),
            flush: Default::default(),
            in_valid: Default::default(),
            in_ready: Default::default(),
            inp: Default::default(),
            out_valid: Default::default(),
            out_ready: Default::default(),
            out: Default::default(),
            scan_rsp_valid: Default::default(),
            scan_rsp_ready: Default::default(),
            scan_rsp: Default::default(),
            gpu_rsp_valid: Default::default(),
            gpu_rsp_ready: Default::default(),
            gpu_rsp: Default::default(),
            scan_rd_valid: Default::default(),
            scan_rd_ready: Default::default(),
            scan_rd: Default::default(),
            gpu_req_valid: Default::default(),
            gpu_req_ready: Default::default(),
            gpu_req: Default::default(),
            c_scan: k(0),
            c_gpu: k(1),
            scan_eligible: Default::default(),
            gpu_eligible: Default::default(),
            gpu_wins: Default::default(),
            tags: Default::default(),
        }
    }
}

impl MemArbiter {
    /// The planted bug of the tests (`MemArbiterCycle::plant_full_early_bug`): the tag FIFO
    /// says full one entry early.
    pub fn mutant_full_early(mut self) -> MemArbiter {
        self.tags.c_depth = k(TAG_DEPTH as u64 - 1);
        self
    }

    #[hdl_gen]
    fn kernel(&mut self) {
        // The select: the scan-out first; client 0's request on `out` when neither may go.
        self.scan_eligible.next = self.scan_rd_valid.val() & (self.scan_rd.write.val() | !self.tags.full.val());
        self.gpu_eligible.next = self.gpu_req_valid.val() & (self.gpu_req.write.val() | !self.tags.full.val());
        self.gpu_wins.next = self.gpu_eligible.val() & !self.scan_eligible.val();
        self.out_valid.next = self.scan_eligible.val() | self.gpu_eligible.val();
        self.out.addr.next = self.scan_rd.addr.val();
        self.out.write.next = self.scan_rd.write.val();
        self.out.wdata.next = self.scan_rd.wdata.val();
        self.out.be.next = self.scan_rd.be.val();
        if self.gpu_wins.val() {
            self.out.addr.next = self.gpu_req.addr.val();
            self.out.write.next = self.gpu_req.write.val();
            self.out.wdata.next = self.gpu_req.wdata.val();
            self.out.be.next = self.gpu_req.be.val();
        }
        self.scan_rd_ready.next = self.out_ready.val() & self.scan_eligible.val();
        self.gpu_req_ready.next = self.out_ready.val() & self.gpu_wins.val();

        // The answers: the tag FIFO's head is the client of the oldest read.
        self.scan_rsp_valid.next =
            self.in_valid.val() & !self.tags.empty.val() & (self.tags.head_data.val() == self.c_scan.val());
        self.gpu_rsp_valid.next =
            self.in_valid.val() & !self.tags.empty.val() & (self.tags.head_data.val() == self.c_gpu.val());
        self.scan_rsp.rdata.next = self.inp.rdata.val();
        self.gpu_rsp.rdata.next = self.inp.rdata.val();
        self.in_ready.next = true;
        if !self.tags.empty.val() {
            if self.tags.head_data.val() == self.c_gpu.val() {
                self.in_ready.next = self.gpu_rsp_ready.val();
            } else {
                self.in_ready.next = self.scan_rsp_ready.val();
            }
        }

        self.tags.clock.next = self.clock.val();
        self.tags.flush.next = self.flush.val();
        self.tags.push.next = self.out_valid.val() & self.out_ready.val() & !self.out.write.val() & !self.flush.val();
        self.tags.push_data.next = self.c_scan.val();
        if self.gpu_wins.val() {
            self.tags.push_data.next = self.c_gpu.val();
        }
        self.tags.pop.next = self.in_valid.val() & self.in_ready.val() & !self.tags.empty.val() & !self.flush.val();
    }
}

emit::indexed_kernel_logic!(MemArbiter);

/// The block's Verilog with top module `name`.
pub fn verilog(name: &str) -> String {
    emit::block_verilog(MemArbiter::default(), name)
}

/// The arbiter's row of [`crate::FRAME_BOARD_BLOCKS`].
pub const BOARD_FILE: crate::FrameBoardBlock = crate::FrameBoardBlock {
    role: "memory arbiter: the scan-out's reads first, then the GPU's port, read tags route the answers",
    sig: <tilerast_golden::mem_arbiter::MemArbiterPorts as tilerast_golden::cycle::BlockSignature>::SIGNATURE,
    rtl_file,
    made_from: |_| BOARD_CLIENTS[0],
};

/// The full text of `rtl-out/tilerast_mem_arbiter_<board>.v`: a header (the command, the
/// clients, the contract, the lint command), then the block. `None` for a board without a
/// frame row.
pub fn rtl_file(board: &Board) -> Option<String> {
    board.frame.as_ref()?;
    let top = format!("tilerast_{STAGE}_{}", board.name);
    Some(format!(
        "// generated by `cargo run -p tilerast-hw --bin gen-rtl` — do not edit\n\
         // {STAGE} for board {} ({}): clients {} (highest priority first), {TAG_DEPTH} read tags\n\
         // timing contract: tilerast_golden::mem_arbiter::MemArbiterCycle; top module: {top}\n\
         // lint-clean with: {}\n\
         // Ports: clock, flush (synchronous), out_valid/out_ready + out (addr, write, wdata, be: to the\n\
         // memory), in_valid/in_ready + inp (rdata: its answers), per client a request stream in\n\
         // (scan_rd, gpu_req) and an answer stream out (scan_rsp, gpu_rsp)\n//\n{}",
        board.name,
        board.title,
        BOARD_CLIENTS.join(", "),
        crate::lint_top_command(&top),
        verilog(&top)
    ))
}
