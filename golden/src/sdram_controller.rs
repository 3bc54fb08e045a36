//! The SDRAM controller (issue 35): a memory-port slave on a board's SDR SDRAM, the memory
//! behind the GPU's one port on a board with a screen (the ULX3S's 32 MB). No seed: board
//! plumbing. This is its cycle model, the one statement of its timing; the RTL block is to be
//! held to it on every port and cycle, with the chip model ([`crate::sdram_chip`]) behind its
//! pins checking every command against the datasheet.
//!
//! ```text
//!  inp (MemReq) ─► request register ─► command decision ─► pins (registered): cs_n ras_n
//!  in_ready = no request held            │  open-row policy,    cas_n we_n ba addr dqm
//!                                        │  per-bank counters,  dq_out dq_oe      ──► SDRAM
//!                                        │  refresh every tREFI                          │
//!  out (MemResp) ◄─ response FIFO ◄─ the two 16-bit halves captured CL + 1, CL + 2 ◄─ dq_in
//!  error (sticky: a request beyond the part, never wrapped)
//! ```
//!
//! Why not rust-hdl's `SDRAMBurstController` (rust-hdl-widgets 0.46): it has no DQM (the port
//! writes single bytes with `be`), no flow control on its data (the port's responses wait on
//! `out_ready`), closes the row after every burst (the frame's streams are sequential: an open
//! row serves them at one word per two clocks), and waits a fixed 70 % of tREFI without the
//! tRAS/tRC/tRRD rules. Its `MemoryTimings` fields are the part's datasheet figures, which
//! [`crate::sdram_chip::SdramTimings`] carries here (golden depends on no HDL crate).

use crate::cycle::{Offer, UBits};
use crate::sdram_chip::{SdramClocks, SdramCmd, SdramMode, SdramPart, SdramPins};
use crate::streams::{MemReq, MemResp};
use std::collections::VecDeque;

/// Words the response FIFO holds: reads are issued only while the FIFO and the reads in
/// flight leave room for their answers.
pub const RESPONSE_DEPTH: usize = 4;
/// The refresh is asked this many clocks before tREFI has passed since the last one (what a
/// request in progress and the PRECHARGE ALL may take before the AUTO REFRESH goes out).
pub const REFRESH_MARGIN: u64 = 32;
/// Words of a burst: one 32-bit port word is two 16-bit SDRAM words.
pub const BURST: u32 = 2;

/// Where a port address lands in the part: byte address `addr` of a 32-bit word → (bank,
/// row, column of its low half), or `None` if it is misaligned or beyond the part. Word
/// address bits, low first: column pair (log2 columns − 1 bits), bank (2), row.
pub fn map_addr(part: &SdramPart, addr: u32) -> Option<(u32, u32, u32)> {
    if addr & 3 != 0 {
        return None;
    }
    let word = addr >> 2;
    let pair_bits = part.columns.trailing_zeros() - 1;
    let bank_bits = part.banks.trailing_zeros();
    let column = (word & ((1 << pair_bits) - 1)) * 2;
    let bank = (word >> pair_bits) & (part.banks - 1);
    let row = word >> (pair_bits + bank_bits);
    (row < part.rows).then_some((bank, row, column))
}

/// Step of the power-up sequence; `Ready` once the mode register is loaded and tMRD passed.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Default)]
pub enum InitStep {
    /// NOPs for the power-up wait.
    #[default]
    PowerUp,
    PrechargeAll,
    Refresh1,
    Refresh2,
    LoadMode,
    Ready,
}

/// Counters of the controller, for tests that assert activity.
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq)]
pub struct SdramControllerStats {
    pub reads: u64,
    pub writes: u64,
    /// Requests that found their row open (no PRECHARGE or ACTIVE first).
    pub row_hits: u64,
    pub activates: u64,
    pub precharges: u64,
    pub refreshes: u64,
    /// Requests beyond the part (answered 0 or dropped, `error` set).
    pub refused: u64,
}

/// The SDRAM controller, cycle by cycle.
///
/// # Timing contract
///
/// Parameters: the part (geometry, timings in clocks at the controller's clock,
/// [`SdramClocks`]), the CAS latency CL (2 or 3). Bursts of [`BURST`] = 2 words, sequential,
/// burst writes. Every pin is a register; a command decided at edge e is on the pins in the
/// cycle after it (the chip takes it at edge e + 1).
/// * **Power-up.** NOPs until edge `init`, then PRECHARGE ALL, AUTO REFRESH tRP later, AUTO
///   REFRESH tRFC later, LOAD MODE REGISTER (burst 2, CL) tRFC later, and Ready tMRD later:
///   decisions at edges init, init + rp, + rfc, + rfc, + mrd (no other command before).
/// * **Request register.** `in_ready` = no request held (a register). A request taken at
///   edge a is decided on from edge a + 1 on.
/// * **Address.** [`map_addr`]: a request beyond the part sets `error` (sticky until a flush)
///   and is not performed: a write is dropped when decided on, a read is answered 0 once no
///   read is in flight and the FIFO has room, both before the edge (it goes straight into the
///   FIFO: one push per edge at most, as a capture needs a read in flight).
/// * **Each edge, one decision**, in this order of priority (every "wait" is a counter of edges
///   still to wait, set to gap − 1 by the command that starts it, merged by max, counting down
///   by one per edge; a command may go when its counters are 0):
///   1. the power-up sequence until Ready;
///   2. the second data word of a WRITE (the cycle after it): `dq_out` = the high half,
///      `dqm` = its byte enables inverted, `dq_oe`, command NOP;
///   3. refresh, once `refresh_timer` ≥ tREFI − [`REFRESH_MARGIN`]: PRECHARGE ALL if a bank is
///      open (when every open bank's precharge wait is 0), then AUTO REFRESH (every bank's
///      activate wait 0); `refresh_timer` counts edges from Ready and restarts at the AUTO
///      REFRESH decision, so an idle controller refreshes every tREFI − [`REFRESH_MARGIN`]
///      edges;
///   4. the held request, on its bank: the row open → READ or WRITE (rcd wait 0; a WRITE also
///      the read-to-write wait 0, a READ room for its answer: FIFO words + reads in flight,
///      both before the edge, < [`RESPONSE_DEPTH`]); another row open → PRECHARGE of that bank (its precharge wait 0);
///      the bank closed → ACTIVE (its activate wait and the rrd wait 0);
///   5. NOP.
///
///   Every command waits for the rfc wait too. Waits set: ACTIVE → rcd wait rcd − 1,
///   precharge wait ras − 1, activate wait rc − 1, rrd wait rrd − 1; PRECHARGE → activate
///   wait rp − 1; READ → precharge wait 1, read-to-write wait CL + 1; WRITE → precharge wait
///   wr (tWR after its second word); AUTO REFRESH → rfc wait rfc − 1.
/// * **Reads.** A READ decided at edge e has its low half on `dq_in` at edge e + CL + 1 and
///   its high half at e + CL + 2, where the word `high << 16 | low` enters the FIFO;
///   `out_valid` = FIFO not empty, `out` = its head (0 when empty), popped at an edge with
///   `out_ready`. Latency from the take (row open, nothing else waiting): CL + 3 edges.
/// * **Throughput.** One word per two clocks on an open row, reads or writes.
/// * **Flush** (synchronous): the request, the FIFO, the reads in flight (their data is not
///   captured) and `error` are dropped, and that edge decides as if no request were held;
///   the SDRAM side (power-up, open rows, waits, refresh timer, a WRITE's second word) goes
///   on, so the chip never sees a broken command sequence.
/// * **Ready** is reached at the edge tMRD after the LOAD MODE REGISTER decision; requests are
///   decided on from the edge after it.
#[derive(Clone, Debug)]
pub struct SdramControllerCycle {
    part: SdramPart,
    t: SdramClocks,
    cas_latency: u32,
    /// Edges so far.
    edge: u64,
    pins: SdramPins,
    init_step: InitStep,
    /// Edges until the next power-up step.
    init_wait: u64,
    open_row: Vec<Option<u32>>,
    rcd_wait: Vec<u64>,
    precharge_wait: Vec<u64>,
    activate_wait: Vec<u64>,
    rrd_wait: u64,
    rfc_wait: u64,
    read_to_write_wait: u64,
    refresh_timer: u64,
    request: Option<MemReq>,
    /// A WRITE's second word: (data, dqm).
    write_high: Option<(u16, u8)>,
    /// Captures to come: (edge, high half).
    captures: VecDeque<(u64, bool)>,
    low_half: u16,
    reads_in_flight: usize,
    responses: VecDeque<u32>,
    error: bool,
    stats: SdramControllerStats,
    /// The held request needed a PRECHARGE or an ACTIVE (it is no row hit).
    opened_for_request: bool,
    bug_short_rcd: bool,
}

impl SdramControllerCycle {
    /// A controller for `part` at `clock_hz` with CAS latency `cas_latency` (2 or 3).
    pub fn new(part: SdramPart, clock_hz: f64, cas_latency: u32) -> SdramControllerCycle {
        let banks = part.banks as usize;
        let t = part.timings.at(clock_hz);
        SdramControllerCycle {
            part,
            t,
            cas_latency,
            edge: 0,
            pins: SdramCmd::Nop.pins(),
            init_step: InitStep::PowerUp,
            init_wait: t.init,
            open_row: vec![None; banks],
            rcd_wait: vec![0; banks],
            precharge_wait: vec![0; banks],
            activate_wait: vec![0; banks],
            rrd_wait: 0,
            rfc_wait: 0,
            read_to_write_wait: 0,
            refresh_timer: 0,
            request: None,
            write_high: None,
            captures: VecDeque::new(),
            low_half: 0,
            reads_in_flight: 0,
            responses: VecDeque::new(),
            error: false,
            stats: SdramControllerStats::default(),
            opened_for_request: false,
            bug_short_rcd: false,
        }
    }

    /// A planted bug for the tests: READ and WRITE one clock short of tRCD.
    pub fn plant_bug(&mut self) {
        self.bug_short_rcd = true;
    }

    pub fn stats(&self) -> SdramControllerStats {
        self.stats
    }

    pub fn init_step(&self) -> InitStep {
        self.init_step
    }

    /// The mode register the controller loads.
    pub fn mode(&self) -> SdramMode {
        SdramMode {
            burst: BURST,
            cas_latency: self.cas_latency,
            single_writes: false,
        }
    }

    /// The registered pins.
    pub fn pins(&self) -> SdramPins {
        self.pins
    }

    pub fn in_ready(&self) -> bool {
        self.request.is_none()
    }

    pub fn out(&self) -> (bool, MemResp) {
        (
            !self.responses.is_empty(),
            MemResp {
                rdata: self.responses.front().copied().unwrap_or(0),
            },
        )
    }

    pub fn error(&self) -> bool {
        self.error
    }

    /// Nothing held: no request, no read in flight, no answer waiting, no WRITE word to send.
    pub fn idle(&self) -> bool {
        self.request.is_none() && self.reads_in_flight == 0 && self.responses.is_empty() && self.write_high.is_none()
    }

    /// One edge: `in_valid`/`inp`, `out_ready`, `dq_in` (what the chip drives in the cycle
    /// before the edge), `flush`.
    pub fn clock(&mut self, in_valid: bool, inp: &MemReq, out_ready: bool, dq_in: u16, flush: bool) {
        let e = self.edge;
        let held = if flush { None } else { self.request };
        let was_empty = self.request.is_none();
        // What the decision counts answers with: the FIFO and the reads in flight as they were
        // before this edge (a pop or a capture at this edge does not count yet).
        let owed = Owed {
            fifo: self.responses.len(),
            in_flight: self.reads_in_flight,
        };
        // The answer leaves.
        if out_ready && !self.responses.is_empty() {
            self.responses.pop_front();
        }
        // Captures of this edge.
        while let Some(&(at, high)) = self.captures.front() {
            if at != e {
                break;
            }
            self.captures.pop_front();
            if high {
                self.responses
                    .push_back(u32::from(dq_in) << 16 | u32::from(self.low_half));
                self.reads_in_flight -= 1;
            } else {
                self.low_half = dq_in;
            }
        }
        // The decision, from the waits as they were before this edge.
        let waits = Waits {
            rcd: self.rcd_wait.clone(),
            precharge: self.precharge_wait.clone(),
            activate: self.activate_wait.clone(),
            rrd: self.rrd_wait,
            rfc: self.rfc_wait,
            read_to_write: self.read_to_write_wait,
        };
        let dec = |w: &mut u64| *w = w.saturating_sub(1);
        self.rcd_wait.iter_mut().for_each(dec);
        self.precharge_wait.iter_mut().for_each(dec);
        self.activate_wait.iter_mut().for_each(dec);
        dec(&mut self.rrd_wait);
        dec(&mut self.rfc_wait);
        dec(&mut self.read_to_write_wait);
        let consumed = self.decide(e, held, &waits, owed);
        if self.init_step == InitStep::Ready {
            self.refresh_timer += 1;
        }
        // The request register.
        if flush {
            self.request = None;
            self.opened_for_request = false;
            self.responses.clear();
            self.captures.clear();
            self.reads_in_flight = 0;
            self.error = false;
        } else if consumed {
            self.request = None;
        } else if was_empty && in_valid {
            self.request = Some(*inp);
        }
        self.edge += 1;
    }

    fn set(w: &mut u64, v: u64) {
        *w = (*w).max(v);
    }

    /// Decide this edge's command (the pins of the next cycle); whether the held request was
    /// consumed.
    fn decide(&mut self, e: u64, held: Option<MemReq>, w: &Waits, owed: Owed) -> bool {
        let t = self.t;
        self.pins = SdramCmd::Nop.pins();
        // 1. Power-up.
        if self.init_step != InitStep::Ready {
            if self.init_wait > 0 {
                self.init_wait -= 1;
                return false;
            }
            let (cmd, next, wait) = match self.init_step {
                InitStep::PowerUp => (
                    Some(SdramCmd::Precharge { bank: 0, all: true }),
                    InitStep::PrechargeAll,
                    t.rp,
                ),
                InitStep::PrechargeAll => (Some(SdramCmd::Refresh), InitStep::Refresh1, t.rfc),
                InitStep::Refresh1 => (Some(SdramCmd::Refresh), InitStep::Refresh2, t.rfc),
                InitStep::Refresh2 => (
                    Some(SdramCmd::LoadMode {
                        mode: self.mode().bits(),
                    }),
                    InitStep::LoadMode,
                    t.mrd,
                ),
                InitStep::LoadMode | InitStep::Ready => (None, InitStep::Ready, 0),
            };
            if let Some(c) = cmd {
                self.pins = c.pins();
            }
            self.init_step = next;
            self.init_wait = wait.saturating_sub(1);
            return false;
        }
        // 2. A WRITE's second word.
        if let Some((data, dqm)) = self.write_high.take() {
            self.pins = SdramPins {
                dq_out: data,
                dq_oe: true,
                dqm,
                ..SdramCmd::Nop.pins()
            };
            return false;
        }
        if w.rfc > 0 {
            return false;
        }
        let banks = self.open_row.len();
        // 3. Refresh.
        if self.refresh_timer + REFRESH_MARGIN >= t.refi {
            if self.open_row.iter().any(|r| r.is_some()) {
                if (0..banks).all(|b| self.open_row[b].is_none() || w.precharge[b] == 0) {
                    self.pins = SdramCmd::Precharge { bank: 0, all: true }.pins();
                    for b in 0..banks {
                        self.open_row[b] = None;
                        Self::set(&mut self.activate_wait[b], t.rp.saturating_sub(1));
                    }
                    self.stats.precharges += 1;
                }
            } else if w.activate.iter().all(|&a| a == 0) {
                self.pins = SdramCmd::Refresh.pins();
                Self::set(&mut self.rfc_wait, t.rfc.saturating_sub(1));
                self.refresh_timer = 0;
                self.stats.refreshes += 1;
            }
            return false;
        }
        // 4. The held request.
        let Some(req) = held else { return false };
        let Some((bank, row, column)) = map_addr(&self.part, req.addr) else {
            if req.write {
                self.error = true;
                self.stats.refused += 1;
                return true;
            }
            if owed.in_flight == 0 && owed.fifo < RESPONSE_DEPTH {
                self.responses.push_back(0);
                self.error = true;
                self.stats.refused += 1;
                return true;
            }
            return false;
        };
        let b = bank as usize;
        match self.open_row[b] {
            Some(open) if open == row => {
                let rcd_ok = w.rcd[b] <= u64::from(self.bug_short_rcd);
                if !rcd_ok {
                    return false;
                }
                if req.write {
                    if w.read_to_write > 0 {
                        return false;
                    }
                    let dqm = |be: u32| (!be & 3) as u8;
                    self.pins = SdramCmd::Write {
                        bank: bank as u8,
                        column: column as u16,
                        auto_precharge: false,
                        data: req.wdata as u16,
                    }
                    .pins();
                    self.pins.dqm = dqm(u32::from(req.be));
                    self.write_high = Some(((req.wdata >> 16) as u16, dqm(u32::from(req.be) >> 2)));
                    Self::set(&mut self.precharge_wait[b], t.wr);
                    self.stats.writes += 1;
                } else {
                    if owed.fifo + owed.in_flight >= RESPONSE_DEPTH {
                        return false;
                    }
                    self.pins = SdramCmd::Read {
                        bank: bank as u8,
                        column: column as u16,
                        auto_precharge: false,
                    }
                    .pins();
                    let cl = u64::from(self.cas_latency);
                    self.captures.push_back((e + cl + 1, false));
                    self.captures.push_back((e + cl + 2, true));
                    self.reads_in_flight += 1;
                    Self::set(&mut self.precharge_wait[b], 1);
                    Self::set(&mut self.read_to_write_wait, cl + 1);
                    self.stats.reads += 1;
                }
                if !std::mem::take(&mut self.opened_for_request) {
                    self.stats.row_hits += 1;
                }
                true
            }
            Some(_) => {
                if w.precharge[b] == 0 {
                    self.pins = SdramCmd::Precharge {
                        bank: bank as u8,
                        all: false,
                    }
                    .pins();
                    self.open_row[b] = None;
                    Self::set(&mut self.activate_wait[b], t.rp.saturating_sub(1));
                    self.stats.precharges += 1;
                    self.opened_for_request = true;
                }
                false
            }
            None => {
                if w.activate[b] == 0 && w.rrd == 0 {
                    self.pins = SdramCmd::Active {
                        bank: bank as u8,
                        row: row as u16,
                    }
                    .pins();
                    self.open_row[b] = Some(row);
                    Self::set(&mut self.rcd_wait[b], t.rcd.saturating_sub(1));
                    Self::set(&mut self.precharge_wait[b], t.ras.saturating_sub(1));
                    Self::set(&mut self.activate_wait[b], t.rc.saturating_sub(1));
                    Self::set(&mut self.rrd_wait, t.rrd.saturating_sub(1));
                    self.stats.activates += 1;
                    self.opened_for_request = true;
                }
                false
            }
        }
    }
}

/// The answers owed before an edge: words in the FIFO, reads in flight.
#[derive(Clone, Copy)]
struct Owed {
    fifo: usize,
    in_flight: usize,
}

/// The waits as they were before an edge (what the edge's decision reads).
struct Waits {
    rcd: Vec<u64>,
    precharge: Vec<u64>,
    activate: Vec<u64>,
    rrd: u64,
    rfc: u64,
    read_to_write: u64,
}

crate::block_signature! {
    /// sdram_controller's ports: the memory port's requests in and answers out, the SDRAM's
    /// pins (registered outputs; `dq_out`/`dq_oe` the data bus's output side, `dq_in` what the
    /// chip drives), and the sticky `error`.
    pub SdramController "sdram_controller" {
        takes { inp: MemReq }
        sends { out: MemResp }
        ins { dq_in: UBits<16> }
        outs {
            cs_n: bool,
            ras_n: bool,
            cas_n: bool,
            we_n: bool,
            ba: UBits<2>,
            sdram_addr: UBits<13>,
            dqm: UBits<2>,
            dq_out: UBits<16>,
            dq_oe: bool,
            error: bool,
        }
    }
}

impl crate::cycle::BlockModel for SdramControllerCycle {
    type Sig = SdramControllerPorts;
    fn outputs(&self, _: &SdramControllerIn) -> SdramControllerOut {
        let (v, r) = self.out();
        let p = self.pins;
        SdramControllerOut {
            inp_ready: self.in_ready(),
            out: Offer::new(v, r),
            cs_n: p.cs_n,
            ras_n: p.ras_n,
            cas_n: p.cas_n,
            we_n: p.we_n,
            ba: UBits::new(u64::from(p.ba)),
            sdram_addr: UBits::new(u64::from(p.addr)),
            dqm: UBits::new(u64::from(p.dqm)),
            dq_out: UBits::new(u64::from(p.dq_out)),
            dq_oe: p.dq_oe,
            error: self.error,
        }
    }
    fn clock(&mut self, i: &SdramControllerIn) {
        SdramControllerCycle::clock(
            self,
            i.inp.valid,
            &i.inp.payload,
            i.out_ready,
            i.dq_in.0 as u16,
            i.flush,
        )
    }
}

/// The pins of a [`SdramControllerOut`] (what the chip takes at the next edge).
pub fn pins_of(o: &SdramControllerOut) -> SdramPins {
    SdramPins {
        cs_n: o.cs_n,
        ras_n: o.ras_n,
        cas_n: o.cas_n,
        we_n: o.we_n,
        ba: o.ba.0 as u8,
        addr: o.sdram_addr.0 as u16,
        dqm: o.dqm.0 as u8,
        dq_out: o.dq_out.0 as u16,
        dq_oe: o.dq_oe,
    }
}

/// A request pattern for [`throughput`].
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum Traffic {
    /// Consecutive words from address 0 (a framebuffer or list written in order).
    SequentialWrites,
    /// Consecutive words from address 0, read.
    SequentialReads,
    /// Runs of 16 consecutive words, reads and writes in turn (a reader and a writer sharing
    /// the port).
    AlternatingRuns,
    /// Words anywhere in the part, reads and writes at random (the worst case: a row miss
    /// nearly every time).
    RandomWords,
}

impl Traffic {
    pub const ALL: [Traffic; 4] = [
        Traffic::SequentialWrites,
        Traffic::SequentialReads,
        Traffic::AlternatingRuns,
        Traffic::RandomWords,
    ];

    pub fn name(self) -> &'static str {
        match self {
            Traffic::SequentialWrites => "sequential writes",
            Traffic::SequentialReads => "sequential reads",
            Traffic::AlternatingRuns => "16-word runs, read/write in turn",
            Traffic::RandomWords => "random words",
        }
    }

    /// Request `i` of the pattern.
    pub fn request(self, part: &SdramPart, i: u32) -> MemReq {
        let words = (part.bytes() / 4) as u32;
        let (word, write) = match self {
            Traffic::SequentialWrites => (i, true),
            Traffic::SequentialReads => (i, false),
            Traffic::AlternatingRuns => {
                // Run k = i / 16: even runs write words from 0, odd runs read from the middle.
                let write = (i / 16).is_multiple_of(2);
                ((i / 32) * 16 + i % 16 + if write { 0 } else { words / 2 }, write)
            }
            Traffic::RandomWords => {
                let h = crate::rng::Rng::mix(0x5d_7a, u64::from(i));
                ((h as u32) % words, h >> 40 & 1 == 1)
            }
        };
        MemReq {
            addr: 4 * (word % words),
            write,
            wdata: i.wrapping_mul(0x9e37_79b9),
            be: 0xf,
        }
    }
}

/// What [`throughput`] measured: `words` requests, offered back to back and answered at once,
/// took `cycles` controller clocks from the first offer to the last word on the pins or out.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct Throughput {
    pub words: u64,
    pub cycles: u64,
    pub stats: SdramControllerStats,
}

impl Throughput {
    /// 32-bit words per controller clock (at most 1/2: a word is a burst of two).
    pub fn words_per_cycle(&self) -> f64 {
        self.words as f64 / self.cycles.max(1) as f64
    }
}

/// The controller's throughput on `traffic`: `words` requests offered every cycle, answers
/// always taken, the chip model behind the pins (a violation is an `Err` naming it), counted
/// from the first cycle after Ready. Deterministic: the figure is the cycle model's.
pub fn throughput(
    part: SdramPart,
    clock_hz: f64,
    cas_latency: u32,
    traffic: Traffic,
    words: u32,
) -> Result<Throughput, String> {
    let mut ctrl = SdramControllerCycle::new(part, clock_hz, cas_latency);
    let mut chip = crate::sdram_chip::SdramChip::new(part, clock_hz);
    let mut step = |ctrl: &mut SdramControllerCycle, req: Option<MemReq>| -> Result<bool, String> {
        let taken = req.is_some() && ctrl.in_ready();
        let pins = ctrl.pins();
        let dq = chip.dq().unwrap_or(0);
        ctrl.clock(req.is_some(), &req.unwrap_or_default(), true, dq, false);
        chip.clock(&pins).map_err(|e| e.to_string())?;
        Ok(taken)
    };
    while ctrl.init_step() != InitStep::Ready {
        step(&mut ctrl, None)?;
    }
    let start = ctrl.stats();
    let (mut i, mut cycles) = (0u32, 0u64);
    while i < words || !ctrl.idle() {
        let req = (i < words).then(|| traffic.request(&part, i));
        if step(&mut ctrl, req)? {
            i += 1;
        }
        cycles += 1;
        if cycles > 100 * u64::from(words) + 100_000 {
            return Err(format!("{}: no progress at word {i}", traffic.name()));
        }
    }
    let s = ctrl.stats();
    let d = |a: u64, b: u64| a - b;
    Ok(Throughput {
        words: u64::from(words),
        cycles,
        stats: SdramControllerStats {
            reads: d(s.reads, start.reads),
            writes: d(s.writes, start.writes),
            row_hits: d(s.row_hits, start.row_hits),
            activates: d(s.activates, start.activates),
            precharges: d(s.precharges, start.precharges),
            refreshes: d(s.refreshes, start.refreshes),
            refused: d(s.refused, start.refused),
        },
    })
}

/// Requests per pattern of the generated throughput table.
pub const TABLE_WORDS: u32 = 20_000;

/// The throughput table (Markdown) of every board with a frame row, every [`Traffic`]: the
/// rows `cargo bench -p tilerast-golden --bench sdram -- --update-docs` writes between the
/// `sdram-bench` markers of `docs/measurements.md` (and `golden/tests/sdram_figures.rs` holds
/// to the model).
pub fn throughput_table() -> Result<String, String> {
    let mut t = String::from(
        "| board | part, clock, CL | traffic | words | cycles | words per cycle | MB/s | row hits | ACTIVE | AUTO REFRESH |\n\
         |---|---|---|---:|---:|---:|---:|---:|---:|---:|\n",
    );
    for b in crate::board::BOARDS {
        let Some(f) = b.frame else { continue };
        let hz = f64::from(f.sdram_hz);
        for traffic in Traffic::ALL {
            let r = throughput(f.sdram, hz, f.cas_latency, traffic, TABLE_WORDS)?;
            t.push_str(&format!(
                "| `{}` | {} at {} MHz, CL {} | {} | {} | {} | {:.3} | {:.1} | {} | {} | {} |\n",
                b.name,
                f.sdram.name,
                f.sdram_hz / 1_000_000,
                f.cas_latency,
                traffic.name(),
                r.words,
                r.cycles,
                r.words_per_cycle(),
                4.0 * r.words_per_cycle() * hz / 1e6,
                r.stats.row_hits,
                r.stats.activates,
                r.stats.refreshes
            ));
        }
    }
    Ok(t)
}
