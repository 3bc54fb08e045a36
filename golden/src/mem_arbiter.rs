//! # mem_arbiter (no seed: the board top's memory arbiter, issue 35)
//!
//! The board's one memory (the SDRAM controller's port) shared by its clients, the scan-out
//! first: a fixed-priority arbiter with a read-tag FIFO that sends each answer back to the
//! client whose read it is. The scan-out comes first so that the picture never waits on the
//! GPU; its credits ([`crate::scan_out`]) bound what it takes, and the GPU's port gets the
//! rest. The contract is the frame top's arbiter's ([`crate::frame::FrameCycle`]: eligible,
//! lowest index wins, client 0 the default, the tag FIFO's head routes the answers), without
//! the frame's region bases.
//!
//! ```text
//!   scan_rd (client 0) ─┐  eligible(c) = valid ∧ (write ∨ tags not full)
//!   gpu_req (client 1) ─┴─► lowest eligible wins ─► out (MemReq) ─► memory
//!                           a read taken ─► tag FIFO (client index, TAG_DEPTH)
//!   scan_rsp ◄─┐
//!   gpu_rsp  ◄─┴── head of the tag FIFO picks the client ◄── inp (MemResp) ◄─ memory
//! ```

use crate::cycle::{BlockModel, Offer};
use crate::streams::MemReq;
use std::collections::VecDeque;

/// Reads in flight the tag FIFO remembers (the SDRAM controller holds at most its response
/// FIFO's words plus a burst in flight, fewer than this).
pub const TAG_DEPTH: usize = 8;

/// The board arbiter's clients, highest priority first: the scan-out's reads, the GPU's port.
pub const BOARD_CLIENTS: [&str; 2] = ["scan_out", "gpu"];

/// Counters per client, for tests that assert activity.
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq)]
pub struct ClientTraffic {
    pub reads: u64,
    pub writes: u64,
    /// Answers sent to the client.
    pub answers: u64,
    /// Cycles the client offered a request and another client's went out.
    pub lost: u64,
}

/// The arbiter over `clients` request/answer pairs, cycle by cycle.
///
/// **Timing contract** (the RTL's ports, cycle by cycle; client c's request stream is
/// `req[c]`, its answers `rsp[c]`; the memory side's request `out`, its answers `inp`):
/// * **State.** The tag FIFO: the client of each read taken by the memory and not yet answered,
///   oldest first, at most [`TAG_DEPTH`]. Empty after `new` or a flush.
/// * **Requests** (combinational): eligible(c) = `req[c]` valid ∧ (its `write` ∨ the tag FIFO
///   not full); the winner is the lowest eligible index, client 0 when none is. `out_valid` =
///   some client eligible; `out` = the winner's request (client 0's when none is eligible);
///   `req[c]` ready = `out_ready` ∧ c is eligible and the winner (a client that is not
///   eligible is never told its request went).
/// * **Answers** (combinational): `rsp[c]` valid = `inp` valid ∧ the tag FIFO not empty ∧ its
///   head is c; every `rsp[c]` carries `inp`'s word, valid or not; `inp` ready = the head client's `rsp` ready, or 1 when the
///   FIFO is empty (an answer nobody asked for is dropped: the memory never sends one).
/// * **Edge.** A read taken by the memory (`out_valid` ∧ `out_ready` ∧ ¬`write`) pushes the
///   winner; an answer taken (`inp` valid ∧ ready ∧ FIFO not empty) pops the head; both at one
///   edge when both happen. **Flush**: the FIFO empties.
#[derive(Clone, Debug)]
pub struct MemArbiterCycle {
    clients: usize,
    tags: VecDeque<usize>,
    traffic: Vec<ClientTraffic>,
    /// A planted bug for the mutant's prediction: the tag FIFO counts as full one entry early.
    full_early: bool,
}

/// One cycle's outputs of [`MemArbiterCycle::decide`].
#[derive(Clone, Debug, PartialEq)]
pub struct Decision {
    pub out_valid: bool,
    pub out: MemReq,
    /// The client whose request is on `out` (taken when `out_valid` ∧ `out_ready`).
    pub winner: usize,
    /// Per client: an answer offered to it.
    pub rsp_valid: Vec<bool>,
    pub inp_ready: bool,
}

impl MemArbiterCycle {
    pub fn new(clients: usize) -> Self {
        assert!(clients >= 1);
        Self {
            clients,
            tags: VecDeque::new(),
            traffic: vec![ClientTraffic::default(); clients],
            full_early: false,
        }
    }

    /// Reads in flight, oldest first (their clients).
    pub fn tags(&self) -> &VecDeque<usize> {
        &self.tags
    }

    pub fn traffic(&self) -> &[ClientTraffic] {
        &self.traffic
    }

    /// The mutant's model (`cosim`'s `mem_arbiter` mutant): the tag FIFO is full at
    /// [`TAG_DEPTH`] − 1 entries.
    pub fn plant_full_early_bug(&mut self) {
        self.full_early = true;
    }

    fn tags_full(&self) -> bool {
        self.tags.len() >= TAG_DEPTH - usize::from(self.full_early)
    }

    /// The combinational outputs for the clients' offers `req` (valid, request), the memory's
    /// answer valid `inp_valid` and the clients' answer readies `rsp_ready`.
    pub fn decide(&self, req: &[(bool, MemReq)], rsp_ready: &[bool]) -> Decision {
        let eligible = |c: usize| req[c].0 && (req[c].1.write || !self.tags_full());
        let winner = (0..self.clients).find(|&c| eligible(c));
        let w = winner.unwrap_or(0);
        let head = self.tags.front().copied();
        Decision {
            out_valid: winner.is_some(),
            out: req[w].1,
            winner: w,
            rsp_valid: (0..self.clients).map(|c| head == Some(c)).collect(),
            inp_ready: head.is_none_or(|h| rsp_ready[h]),
        }
    }

    /// One rising edge.
    pub fn clock(&mut self, req: &[(bool, MemReq)], out_ready: bool, inp_valid: bool, rsp_ready: &[bool], flush: bool) {
        if flush {
            self.tags.clear();
            return;
        }
        let d = self.decide(req, rsp_ready);
        for (c, t) in self.traffic.iter_mut().enumerate() {
            t.lost += u64::from(req[c].0 && d.out_valid && out_ready && d.winner != c);
        }
        if inp_valid && d.inp_ready {
            if let Some(h) = self.tags.pop_front() {
                self.traffic[h].answers += 1;
            }
        }
        if d.out_valid && out_ready {
            let t = &mut self.traffic[d.winner];
            if d.out.write {
                t.writes += 1;
            } else {
                t.reads += 1;
                self.tags.push_back(d.winner);
            }
        }
    }
}

crate::block_signature! {
    /// mem_arbiter's ports on a board (clients [`BOARD_CLIENTS`]): the memory's answers in and
    /// its requests out; the scan-out's reads in (`scan_rd`) and answers out (`scan_rsp`); the
    /// GPU port's requests in (`gpu_req`) and answers out (`gpu_rsp`).
    pub MemArbiter "mem_arbiter" {
        takes { inp: MemResp, scan_rd: MemReq, gpu_req: MemReq }
        sends { out: MemReq, scan_rsp: MemResp, gpu_rsp: MemResp }
    }
}

impl MemArbiterCycle {
    fn board_offers(i: &MemArbiterIn) -> ([(bool, MemReq); 2], [bool; 2]) {
        (
            [
                (i.scan_rd.valid, i.scan_rd.payload),
                (i.gpu_req.valid, i.gpu_req.payload),
            ],
            [i.scan_rsp_ready, i.gpu_rsp_ready],
        )
    }
}

impl BlockModel for MemArbiterCycle {
    type Sig = MemArbiterPorts;
    fn outputs(&self, i: &MemArbiterIn) -> MemArbiterOut {
        let (req, rsp_ready) = Self::board_offers(i);
        let d = self.decide(&req, &rsp_ready);
        let answer = |c: usize| Offer::new(i.inp.valid && d.rsp_valid[c], i.inp.payload);
        MemArbiterOut {
            inp_ready: d.inp_ready,
            scan_rd_ready: i.out_ready && d.out_valid && d.winner == 0,
            gpu_req_ready: i.out_ready && d.out_valid && d.winner == 1,
            out: Offer::new(d.out_valid, d.out),
            scan_rsp: answer(0),
            gpu_rsp: answer(1),
        }
    }
    fn clock(&mut self, i: &MemArbiterIn) {
        let (req, rsp_ready) = Self::board_offers(i);
        MemArbiterCycle::clock(self, &req, i.out_ready, i.inp.valid, &rsp_ready, i.flush)
    }
}
