//! The one lock-step harness for blocks with any number of streams.
//!
//! A block's cycle model ([`tilerast_golden::cycle::BlockModel`], seen through named ports as a
//! [`PortModel`]) and the block's RTL are driven with the same inputs every cycle, and every
//! output port is compared every cycle, valid or not. The inputs come from a [`Bench`]: one
//! [`Agent`] per stream or port group, each with its own handshake pattern:
//!
//! ```text
//!   Bench: Source("inp")  Sink("out")  Memory("rd" → "rsp")  Flushes
//!            │ in_valid, inp__*   │ out_ready     │ rd_ready, rsp_valid, rsp__*   │ flush
//!            └───────────────────┴──────┬────────┴──────────────────────────────┘
//!                                 inputs (Ports)
//!                    ┌───────────────────┴──────────────────┐
//!                    ▼                                      ▼
//!       model: port_outputs(inputs) = want      RTL back end: outputs = got
//!                    └────────────── compare every port ────┘
//!                    then: agents see (inputs, want), note transfers, advance; model clocks
//! ```
//!
//! The inputs never depend on the RTL, only on the agents' state and the model's outputs, so
//! a back end may run the model ahead and replay a batch (the Verilator back end,
//! `tilerast_cosim::blocks::cosim_lockstep`) or compare cycle by cycle (the rust-hdl back end,
//! `hw/tests/common::lockstep`). Both call [`Lockstep::step`] and [`compare`].
//!
//! Transfers are counted where a stream's valid and ready are both high at an edge without
//! flush; every agent reports its activity, so that a run in which nothing moved can be told
//! from a passing one.

use crate::{FlushLine, Line, Rng};
use std::any::Any;
use std::fmt;
use tilerast_golden::cycle::{ready_port, valid_port, PortModel, Ports, Signature};
use tilerast_golden::streams::Stream;

/// A control line: its value in cycle `c` (valid, ready, grant, …).
pub type Ctl = Box<dyn FnMut(u64) -> bool + Send>;

/// A source's restart rule: does this item start a group (see [`Source::restart_at`])?
pub type Restart<T> = Box<dyn Fn(&T) -> bool + Send>;

/// A per-cycle look at a model (see [`Lockstep::watch`]).
pub type Watch<M> = Box<dyn FnMut(u64, &M) + Send>;

/// A [`Line`] as a control line.
pub fn line(mut l: Line) -> Ctl {
    Box::new(move |_| l.step())
}

/// A [`Line`] held low during the cycles of `stall` (a long stall at a chosen time).
pub fn line_stalled(mut l: Line, stall: std::ops::Range<u64>) -> Ctl {
    Box::new(move |c| l.step() && !stall.contains(&c))
}

/// Always high.
pub fn always() -> Ctl {
    Box::new(|_| true)
}

/// One part of the bench: drives some input ports from its own state, then sees the cycle's
/// inputs and the model's outputs before the edge.
pub trait Agent: Send {
    /// Set this agent's input ports for cycle `cycle`.
    fn drive(&mut self, cycle: u64, inputs: &mut Ports);
    /// The cycle's inputs and outputs, before the rising edge (note transfers, advance).
    fn edge(&mut self, cycle: u64, inputs: &Ports, outputs: &Ports);
    /// What it did, one line.
    fn summary(&self) -> String;
    fn as_any(&self) -> &dyn Any;
}

/// Offers stream `S`'s payloads on `iface` in order, under `valid`; while not valid, a random
/// other item's payload at `junk_pct` % ([`Source::with_junk`]) or random bits on every payload
/// port ([`Source::with_random_junk`]), else the next one's (the RTL must not take it).
pub struct Source<S: Stream> {
    iface: String,
    items: Vec<S::Payload>,
    valid: Ctl,
    junk: Option<(Rng, u64)>,
    cyclic: bool,
    junk_bits: bool,
    restart: Option<Restart<S::Payload>>,
    /// The clock input whose rising edges take items ([`Source::on_clock`]); `None`: every step.
    clock: Option<String>,
    next: usize,
    offered: bool,
    /// Items taken (valid and ready at an edge without flush).
    pub accepted: u64,
    /// Cycles offered and not taken.
    pub waits: u64,
    pub junk_cycles: u64,
}

impl<S: Stream> Source<S> {
    /// A stream of another clock than the step's: items are taken (and flushes seen) only in
    /// the steps where the 1-bit input `clock` is 1, that clock's rising edges (a
    /// multi-clock block's port, `tilerast_golden::line_buffer`).
    pub fn on_clock(mut self, clock: &str) -> Source<S> {
        self.clock = Some(clock.to_string());
        self
    }

    pub fn new(iface: &str, items: Vec<S::Payload>, valid: Ctl) -> Source<S> {
        Source {
            iface: iface.to_string(),
            items,
            valid,
            junk: None,
            cyclic: false,
            junk_bits: false,
            restart: None,
            clock: None,
            next: 0,
            offered: false,
            accepted: 0,
            waits: 0,
            junk_cycles: 0,
        }
    }

    /// While not valid, offer a random item's payload in `pct` % of the cycles.
    pub fn with_junk(mut self, rng: Rng, pct: u64) -> Self {
        self.junk = Some((rng, pct));
        self
    }

    /// Offer the items again and again, in order (never runs dry).
    pub fn cyclic(mut self) -> Self {
        self.cyclic = true;
        self
    }

    /// While not valid, offer random bits on every payload port (each field's width) in `pct` %
    /// of the cycles: junk that need not be any item (a start token's unused id, say).
    pub fn with_random_junk(mut self, rng: Rng, pct: u64) -> Self {
        self.junk = Some((rng, pct));
        self.junk_bits = true;
        self
    }

    /// After a flush, skip to the next item for which `starts` holds (a block that takes whole
    /// groups, such as second tiles, restarts at the next group).
    pub fn restart_at(mut self, starts: impl Fn(&S::Payload) -> bool + Send + 'static) -> Self {
        self.restart = Some(Box::new(starts));
        self
    }

    /// Items not yet taken.
    pub fn left(&self) -> usize {
        self.items.len().saturating_sub(self.next)
    }

    fn index(&self) -> usize {
        if self.cyclic && !self.items.is_empty() {
            self.next % self.items.len()
        } else {
            self.next
        }
    }
}

impl<S: Stream + Send + 'static> Agent for Source<S>
where
    S::Payload: Send,
{
    fn drive(&mut self, cycle: u64, p: &mut Ports) {
        let want = (self.valid)(cycle);
        let at = self.index();
        self.offered = want && at < self.items.len();
        let mut payload = self
            .items
            .get(at.min(self.items.len().saturating_sub(1)))
            .cloned()
            .unwrap_or_default();
        if !self.offered && !self.items.is_empty() {
            if let Some((rng, pct)) = &mut self.junk {
                if rng.chance(*pct) {
                    payload = if self.junk_bits {
                        let bits: Vec<u64> = S::FIELDS
                            .iter()
                            .map(|f| match f.width {
                                64.. => rng.next_u64(),
                                w => rng.next_u64() & ((1u64 << w) - 1),
                            })
                            .collect();
                        S::from_bits(&bits)
                    } else {
                        self.items[rng.index(self.items.len())].clone()
                    };
                    self.junk_cycles += 1;
                }
            }
        }
        p.set(valid_port(&self.iface), self.offered as u64);
        p.put_payload::<S>(&self.iface, &payload);
    }

    fn edge(&mut self, _: u64, i: &Ports, o: &Ports) {
        if self.clock.as_ref().is_some_and(|c| !i.bit(c)) {
            return;
        }
        let ready = o.bit(ready_port(&self.iface));
        if self.offered && !ready {
            self.waits += 1;
        }
        if i.bit("flush") {
            if let Some(starts) = &self.restart {
                while self.next < self.items.len() && !starts(&self.items[self.next]) {
                    self.next += 1;
                }
            }
        } else if self.offered && ready {
            self.next += 1;
            self.accepted += 1;
        }
    }

    fn summary(&self) -> String {
        format!(
            "{}: {} of {} taken, {} waits, {} junk",
            self.iface,
            self.accepted,
            self.items.len(),
            self.waits,
            self.junk_cycles
        )
    }

    fn as_any(&self) -> &dyn Any {
        self
    }
}

/// Takes stream `S` on `iface` under `ready`, keeping what it receives.
pub struct Sink<S: Stream> {
    iface: String,
    ready: Ctl,
    /// The clock input whose rising edges take payloads ([`Sink::on_clock`]); `None`: every step.
    clock: Option<String>,
    now: bool,
    wait: u64,
    /// Payloads received, in order.
    pub received: Vec<S::Payload>,
    /// `received.len()` at each flush (a flush voids what was in flight).
    pub flush_marks: Vec<usize>,
    /// The cycle of each payload received (its edge ends that cycle).
    pub received_at: Vec<u64>,
    /// Cycles offered and not taken.
    pub waits: u64,
    /// Longest run of cycles offered and not taken (valid high, ready low).
    pub longest_wait: u64,
    stall: u64,
    /// Longest run of cycles with ready low, offered or not (a long stall really driven).
    pub longest_stall: u64,
}

impl<S: Stream> Sink<S> {
    pub fn new(iface: &str, ready: Ctl) -> Sink<S> {
        Sink {
            iface: iface.to_string(),
            ready,
            clock: None,
            now: false,
            wait: 0,
            received: Vec::new(),
            flush_marks: Vec::new(),
            received_at: Vec::new(),
            waits: 0,
            longest_wait: 0,
            stall: 0,
            longest_stall: 0,
        }
    }
}

impl<S: Stream> Sink<S> {
    /// A stream of another clock than the step's: payloads are taken (and flushes seen) only in
    /// the steps where the 1-bit input `clock` is 1, that clock's rising edges (a
    /// multi-clock block's port, `tilerast_golden::line_buffer`).
    pub fn on_clock(mut self, clock: &str) -> Sink<S> {
        self.clock = Some(clock.to_string());
        self
    }

    /// The payloads received after each flush (and before the first), in order.
    pub fn segments(&self) -> Vec<&[S::Payload]> {
        let mut out = Vec::new();
        let mut from = 0;
        for &m in self.flush_marks.iter().chain(std::iter::once(&self.received.len())) {
            out.push(&self.received[from..m]);
            from = m;
        }
        out
    }

    /// Check that what was received is `want` again and again, each flush starting it afresh
    /// (a frame's records, a frame's commands). Returns how many whole `want`s arrived, or the
    /// first payload that is not the one expected.
    pub fn repeats(&self, want: &[S::Payload]) -> Result<u64, String> {
        let mut whole = 0;
        for (k, seg) in self.segments().into_iter().enumerate() {
            for (pos, got) in seg.iter().enumerate() {
                let w = &want[pos % want.len()];
                if got != w {
                    return Err(format!(
                        "{}: beat {pos} after flush {k}: {got:?}, expected {w:?}",
                        self.iface
                    ));
                }
                whole += (pos % want.len() == want.len() - 1) as u64;
            }
        }
        Ok(whole)
    }
}

impl<S: Stream + Send + 'static> Agent for Sink<S>
where
    S::Payload: Send,
{
    fn drive(&mut self, cycle: u64, p: &mut Ports) {
        self.now = (self.ready)(cycle);
        self.stall = if self.now { 0 } else { self.stall + 1 };
        self.longest_stall = self.longest_stall.max(self.stall);
        p.set(ready_port(&self.iface), self.now as u64);
    }

    fn edge(&mut self, cycle: u64, i: &Ports, o: &Ports) {
        if self.clock.as_ref().is_some_and(|c| !i.bit(c)) {
            return;
        }
        let valid = o.bit(valid_port(&self.iface));
        self.wait = if valid && !self.now { self.wait + 1 } else { 0 };
        self.longest_wait = self.longest_wait.max(self.wait);
        self.waits += (valid && !self.now) as u64;
        if i.bit("flush") {
            self.flush_marks.push(self.received.len());
        } else if valid && self.now {
            self.received.push(o.payload::<S>(&self.iface));
            self.received_at.push(cycle);
        }
    }

    fn summary(&self) -> String {
        format!(
            "{}: {} received, {} waits, longest wait {}",
            self.iface,
            self.received.len(),
            self.waits,
            self.longest_wait
        )
    }

    fn as_any(&self) -> &dyn Any {
        self
    }
}

/// Golden's memory port model behind a read (or read/write) request stream `req` and its
/// response stream `rsp`; `grant` is the port's own back-pressure.
pub struct Memory {
    req: String,
    rsp: String,
    grant: Ctl,
    granted: bool,
    /// The memory model (its contents: `mem.memory()` or as the test keeps it).
    pub mem: tilerast_golden::memory_port::MemoryCycle,
    /// Requests taken.
    pub requests: u64,
    /// Cycles a request waited for the port.
    pub waits: u64,
    /// With [`Memory::logged`]: every request taken, in order, and `log.len()` at each flush.
    pub log: Option<Vec<tilerast_golden::streams::MemReq>>,
    pub flush_marks: Vec<usize>,
}

impl Memory {
    pub fn new(req: &str, rsp: &str, mem: tilerast_golden::memory_port::MemoryCycle, grant: Ctl) -> Memory {
        Memory {
            req: req.to_string(),
            rsp: rsp.to_string(),
            grant,
            granted: false,
            mem,
            requests: 0,
            waits: 0,
            log: None,
            flush_marks: Vec::new(),
        }
    }

    /// Keep every request taken ([`Memory::log`]).
    pub fn logged(mut self) -> Self {
        self.log = Some(Vec::new());
        self
    }
}

impl Agent for Memory {
    fn drive(&mut self, cycle: u64, p: &mut Ports) {
        use tilerast_golden::streams::ports;
        self.granted = (self.grant)(cycle);
        p.set(ready_port(&self.req), self.mem.req_ready(self.granted) as u64);
        let (v, r) = self.mem.resp();
        p.set(valid_port(&self.rsp), v as u64);
        p.put_payload::<ports::MemResp>(&self.rsp, &r);
    }

    fn edge(&mut self, _: u64, i: &Ports, o: &Ports) {
        use tilerast_golden::streams::ports;
        let flush = i.bit("flush");
        let valid = o.bit(valid_port(&self.req));
        let ready = i.bit(ready_port(&self.req));
        self.waits += (valid && !ready) as u64;
        self.requests += (valid && ready && !flush) as u64;
        let req = o.payload::<ports::MemReq>(&self.req);
        if let Some(log) = &mut self.log {
            if flush {
                self.flush_marks.push(log.len());
            } else if valid && ready {
                log.push(req);
            }
        }
        let rsp_ready = o.bit(ready_port(&self.rsp));
        self.mem.clock(valid, &req, self.granted, rsp_ready, flush);
    }

    fn summary(&self) -> String {
        format!(
            "{} → {}: {} requests, {} waits",
            self.req, self.rsp, self.requests, self.waits
        )
    }

    fn as_any(&self) -> &dyn Any {
        self
    }
}

/// The SDRAM chip model ([`tilerast_golden::sdram_chip::SdramChip`]) behind an SDRAM
/// controller's pins: drives `dq_in` with what the chip drives, and clocks the chip with the
/// pins the outputs carry (the model's, so the chip follows the cycle model and the RTL is
/// compared against it). The first datasheet rule broken is kept in [`SdramChipAgent::violation`]
/// and the chip stops there.
pub struct SdramChipAgent {
    pub chip: tilerast_golden::sdram_chip::SdramChip,
    pub violation: Option<tilerast_golden::sdram_chip::SdramViolation>,
}

impl SdramChipAgent {
    pub fn new(chip: tilerast_golden::sdram_chip::SdramChip) -> SdramChipAgent {
        SdramChipAgent { chip, violation: None }
    }
}

impl Agent for SdramChipAgent {
    fn drive(&mut self, _: u64, p: &mut Ports) {
        p.set("dq_in", u64::from(self.chip.dq().unwrap_or(0)));
    }
    fn edge(&mut self, _: u64, _: &Ports, o: &Ports) {
        if self.violation.is_some() {
            return;
        }
        let g = |n: &str| o.get(n).unwrap_or(0);
        let pins = tilerast_golden::sdram_chip::SdramPins {
            cs_n: g("cs_n") == 1,
            ras_n: g("ras_n") == 1,
            cas_n: g("cas_n") == 1,
            we_n: g("we_n") == 1,
            ba: g("ba") as u8,
            addr: g("sdram_addr") as u16,
            dqm: g("dqm") as u8,
            dq_out: g("dq_out") as u16,
            dq_oe: g("dq_oe") == 1,
        };
        if let Err(e) = self.chip.clock(&pins) {
            self.violation = Some(e);
        }
    }
    fn summary(&self) -> String {
        let s = self.chip.stats();
        format!(
            "sdram chip: {} ACTIVE, {} READ, {} WRITE, {} PRECHARGE, {} AUTO REFRESH{}",
            s.activates,
            s.reads,
            s.writes,
            s.precharges,
            s.refreshes,
            self.violation
                .as_ref()
                .map(|v| format!(", stopped: {v}"))
                .unwrap_or_default()
        )
    }
    fn as_any(&self) -> &dyn Any {
        self
    }
}

/// Drives a level input, a signature's `ins` port (`background`): `value(cycle)` every cycle.
pub struct Level {
    port: String,
    value: Box<dyn FnMut(u64) -> u64 + Send>,
    last: Option<u64>,
    /// Cycles in which the value differed from the cycle before.
    pub changes: u64,
    /// Every value it drove.
    pub driven: std::collections::BTreeSet<u64>,
}

impl Level {
    /// `port` driven with `value(cycle)`.
    pub fn new(port: &str, value: impl FnMut(u64) -> u64 + Send + 'static) -> Level {
        Level {
            port: port.to_string(),
            value: Box::new(value),
            last: None,
            changes: 0,
            driven: Default::default(),
        }
    }

    /// `port` held at a random 32-bit value that `rng` redraws with `permille` ‰ each cycle.
    pub fn random(port: &str, mut rng: crate::Rng, permille: u64) -> Level {
        let mut v = rng.next_u32() as u64;
        Level::new(port, move |_| {
            if rng.permille(permille) {
                v = rng.next_u32() as u64;
            }
            v
        })
    }
}

impl Agent for Level {
    fn drive(&mut self, cycle: u64, p: &mut Ports) {
        let v = (self.value)(cycle);
        self.changes += (self.last.is_some_and(|l| l != v)) as u64;
        self.last = Some(v);
        self.driven.insert(v);
        p.set(&self.port, v);
    }
    fn edge(&mut self, _: u64, _: &Ports, _: &Ports) {}
    fn summary(&self) -> String {
        format!("{}: {} changes", self.port, self.changes)
    }
    fn as_any(&self) -> &dyn Any {
        self
    }
}

/// Drives every input port from a record, cycle by cycle, run-length coded (`(ports, cycles)`):
/// the inputs another bench gave a block, replayed into its RTL (the frame host's inputs of a
/// board run through the UART). After the record: its last cycle's ports again.
pub struct Replay {
    record: Vec<(Ports, u32)>,
    at: usize,
    left: u32,
    /// Cycles replayed.
    pub cycles: u64,
}

impl Replay {
    pub fn new(record: Vec<(Ports, u32)>) -> Replay {
        let left = record.first().map_or(0, |r| r.1);
        Replay {
            record,
            at: 0,
            left,
            cycles: 0,
        }
    }
}

impl Agent for Replay {
    fn drive(&mut self, _: u64, p: &mut Ports) {
        while self.left == 0 && self.at + 1 < self.record.len() {
            self.at += 1;
            self.left = self.record[self.at].1;
        }
        if let Some((r, _)) = self.record.get(self.at) {
            for (name, v) in r.iter() {
                p.set(name, v);
            }
        }
    }
    fn edge(&mut self, _: u64, _: &Ports, _: &Ports) {
        self.left = self.left.saturating_sub(1);
        self.cycles += 1;
    }
    fn summary(&self) -> String {
        format!("replay: {} cycles of {} runs", self.cycles, self.record.len())
    }
    fn as_any(&self) -> &dyn Any {
        self
    }
}

/// Drives `flush` from a [`FlushLine`] or a list of cycles.
pub struct Flushes {
    ctl: Ctl,
    /// Flushes driven.
    pub count: u64,
    /// Flushes that hit a busy block: some stream of it offered (a `*_valid` output high) or
    /// held back (a `*_ready` output low).
    pub busy: u64,
}

impl Flushes {
    /// Flush in exactly these cycles.
    pub fn at(cycles: Vec<u64>) -> Flushes {
        Flushes {
            ctl: Box::new(move |c| cycles.contains(&c)),
            count: 0,
            busy: 0,
        }
    }

    /// Flush when the control line says so.
    pub fn when(ctl: Ctl) -> Flushes {
        Flushes { ctl, count: 0, busy: 0 }
    }

    /// Flush when `l` says so.
    pub fn line(mut l: FlushLine) -> Flushes {
        Flushes {
            ctl: Box::new(move |_| l.step()),
            count: 0,
            busy: 0,
        }
    }
}

impl Agent for Flushes {
    fn drive(&mut self, cycle: u64, p: &mut Ports) {
        let f = (self.ctl)(cycle);
        self.count += f as u64;
        p.set("flush", f as u64);
    }
    fn edge(&mut self, _: u64, i: &Ports, o: &Ports) {
        if i.bit("flush") {
            let busy = o
                .iter()
                .any(|(n, v)| (n.ends_with("_valid") && v & 1 == 1) || (n.ends_with("_ready") && v & 1 == 0));
            self.busy += busy as u64;
        }
    }
    fn summary(&self) -> String {
        format!("flush: {} ({} busy)", self.count, self.busy)
    }
    fn as_any(&self) -> &dyn Any {
        self
    }
}

/// What an [`Observer`] calls each cycle: (cycle, inputs, the model's outputs).
pub type See = Box<dyn FnMut(u64, &Ports, &Ports) + Send>;

/// Drives nothing; sees every cycle's inputs and the model's outputs before the edge (a
/// test's own activity counters: requests of a kind taken, runs of transfers).
pub struct Observer {
    see: See,
    /// Cycles seen.
    pub cycles: u64,
}

impl Observer {
    pub fn new(see: impl FnMut(u64, &Ports, &Ports) + Send + 'static) -> Observer {
        Observer {
            see: Box::new(see),
            cycles: 0,
        }
    }
}

impl Agent for Observer {
    fn drive(&mut self, _: u64, _: &mut Ports) {}
    fn edge(&mut self, cycle: u64, i: &Ports, o: &Ports) {
        self.cycles += 1;
        (self.see)(cycle, i, o);
    }
    fn summary(&self) -> String {
        format!("observed {} cycles", self.cycles)
    }
    fn as_any(&self) -> &dyn Any {
        self
    }
}

/// Everything around the block: its agents, in the order they drive.
#[derive(Default)]
pub struct Bench {
    agents: Vec<(String, Box<dyn Agent>)>,
}

impl Bench {
    pub fn new() -> Bench {
        Bench::default()
    }

    /// Add an agent under `name` (the name [`Bench::get`] finds it by).
    pub fn with(mut self, name: &str, a: impl Agent + 'static) -> Bench {
        self.agents.push((name.to_string(), Box::new(a)));
        self
    }

    /// The agent `name` as its type.
    ///
    /// # Panics
    /// If there is none of that name and type (a test's mistake).
    pub fn get<A: Agent + 'static>(&self, name: &str) -> &A {
        self.agents
            .iter()
            .find(|(n, _)| n == name)
            .and_then(|(_, a)| a.as_any().downcast_ref::<A>())
            .unwrap_or_else(|| panic!("bench has no agent `{name}` of type {}", std::any::type_name::<A>()))
    }

    /// One line per agent.
    pub fn summary(&self) -> String {
        let v: Vec<String> = self.agents.iter().map(|(_, a)| a.summary()).collect();
        v.join("; ")
    }
}

/// A model and its bench, stepped cycle by cycle.
pub struct Lockstep<M: PortModel> {
    pub model: M,
    pub bench: Bench,
    /// Cycles stepped.
    pub cycle: u64,
    /// Called every cycle with the model before its edge (a test's coverage counters on the
    /// model's state: a FIFO that filled, a phase that ran).
    pub watch: Option<Watch<M>>,
    sig: Signature,
}

impl<M: PortModel> Lockstep<M> {
    /// The model and its bench (their ports are checked against the signature on the first
    /// [`Lockstep::step`]).
    pub fn new(model: M, bench: Bench) -> Lockstep<M> {
        let sig = model.signature();
        Lockstep {
            model,
            bench,
            cycle: 0,
            watch: None,
            sig,
        }
    }

    /// With a per-cycle look at the model ([`Lockstep::watch`]).
    pub fn watching(mut self, f: impl FnMut(u64, &M) + Send + 'static) -> Self {
        self.watch = Some(Box::new(f));
        self
    }

    /// The block's signature.
    pub fn signature(&self) -> Signature {
        self.sig
    }

    /// One cycle: the agents' inputs, the model's outputs for them; then the agents see both
    /// and the model takes the edge. Returns (inputs, expected outputs). On the first cycle,
    /// `Err` if the bench's ports or the model's are not exactly the signature's.
    pub fn step(&mut self) -> Result<(Ports, Ports), String> {
        let c = self.cycle;
        let mut inputs = Ports::default();
        for (_, a) in self.bench.agents.iter_mut() {
            a.drive(c, &mut inputs);
        }
        if inputs.get("flush").is_none() {
            inputs.set("flush", 0);
        }
        let want = self.model.port_outputs(&inputs);
        if c == 0 {
            same_names("the bench's inputs", &inputs, &self.sig.input_ports())?;
            same_names("the model's outputs", &want, &self.sig.output_ports())?;
        }
        for (_, a) in self.bench.agents.iter_mut() {
            a.edge(c, &inputs, &want);
        }
        if let Some(w) = &mut self.watch {
            w(c, &self.model);
        }
        self.model.port_clock(&inputs);
        self.cycle += 1;
        Ok((inputs, want))
    }
}

fn same_names(what: &str, p: &Ports, names: &[String]) -> Result<(), String> {
    let have: Vec<&str> = p.iter().map(|(n, _)| n).collect();
    let missing: Vec<&String> = names.iter().filter(|n| !have.contains(&n.as_str())).collect();
    let extra: Vec<&&str> = have.iter().filter(|n| !names.iter().any(|m| m == *n)).collect();
    if missing.is_empty() && extra.is_empty() {
        Ok(())
    } else {
        Err(format!(
            "{what} are not the signature's ports: missing {missing:?}, not in it {extra:?}"
        ))
    }
}

/// The first port where the RTL and the model differ.
#[derive(Clone, Debug)]
pub struct Mismatch {
    pub block: String,
    pub cycle: u64,
    pub port: String,
    pub rtl: u64,
    pub model: u64,
    pub inputs: Ports,
    pub rtl_out: Ports,
    pub model_out: Ports,
}

impl fmt::Display for Mismatch {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        writeln!(
            f,
            "{}: RTL and model differ at cycle {}, port {}: rtl {:#x}, model {:#x}",
            self.block, self.cycle, self.port, self.rtl, self.model
        )?;
        writeln!(f, "  inputs: {}", self.inputs)?;
        writeln!(f, "  rtl:    {}", self.rtl_out)?;
        write!(f, "  model:  {}", self.model_out)
    }
}

impl Mismatch {
    /// One line: `cycle N: port rtl X model Y, …` for every output port that differs.
    pub fn ports_line(&self) -> String {
        let diff: Vec<String> = self
            .model_out
            .iter()
            .filter_map(|(p, m)| {
                let r = self.rtl_out.get(p).unwrap_or(u64::MAX);
                (r != m).then(|| format!("{p} rtl {r:#x} model {m:#x}"))
            })
            .collect();
        format!("cycle {}: {}", self.cycle, diff.join(", "))
    }
}

/// Compare every output port the model predicts with the RTL's; a port the RTL lacks is a
/// difference (its value shows as `u64::MAX`).
pub fn compare(block: &str, cycle: u64, inputs: &Ports, want: &Ports, got: &Ports) -> Result<(), Box<Mismatch>> {
    for (port, m) in want.iter() {
        let r = got.get(port).unwrap_or(u64::MAX);
        if r != m {
            return Err(Box::new(Mismatch {
                block: block.to_string(),
                cycle,
                port: port.to_string(),
                rtl: r,
                model: m,
                inputs: inputs.clone(),
                rtl_out: got.clone(),
                model_out: want.clone(),
            }));
        }
    }
    Ok(())
}

/// The first cycle and output port where two lock-steps' models differ, stepping both for up
/// to `cycles` cycles (each with its own bench, built alike: the inputs are the same until the
/// outputs differ). The prediction of a planted bug: the clean model against a model with the
/// bug, on the drive the RTL with the bug then gets.
pub fn first_difference<A: PortModel, B: PortModel>(
    a: &mut Lockstep<A>,
    b: &mut Lockstep<B>,
    cycles: u64,
) -> Result<Option<(u64, String)>, String> {
    for _ in 0..cycles {
        let c = a.cycle;
        let (_, wa) = a.step()?;
        let (_, wb) = b.step()?;
        let first = wa
            .iter()
            .find(|(n, v)| wb.get(n) != Some(*v))
            .map(|(n, _)| n.to_string());
        if let Some(p) = first {
            return Ok(Some((c, p)));
        }
    }
    Ok(None)
}

/// The stimulus of a one-in, one-out block (stream `inp` taken, `out` sent): its bench
/// ([`BlockStim::bench`]) and what a run did ([`BlockRun::of`]). Deterministic: the same
/// stimulus gives the same cycles.
#[derive(Clone, Debug)]
pub struct BlockStim {
    pub seed: u64,
    /// Cycles to run.
    pub cycles: u64,
    /// Probability (%) that the producer holds `in_valid` low in a cycle.
    pub gap_pct: u32,
    /// Probability (%) that an idle cycle (in_valid low) carries another input's payload instead
    /// of the next one's: the block must ignore the payload while not valid.
    pub junk_pct: u32,
    /// Probability (%) that downstream is ready, outside stalls.
    pub ready_pct: u32,
    /// Per mille chance per cycle that a full stall (ready low) starts ...
    pub stall_permille: u32,
    /// ... lasting this many cycles (inclusive range).
    pub stall_len: (u64, u64),
    /// Flush at these cycles.
    pub flush_at: Vec<u64>,
}

impl BlockStim {
    /// The valid and ready lines this stimulus drives (flushes come from `flush_at`): valid
    /// with `gap_pct` % gaps; ready `ready_pct` % with random stalls of `stall_len` cycles
    /// starting at `stall_permille` ‰ per cycle. Drawn from `seed` ([`crate::Handshake::lines`]).
    pub fn handshake(&self) -> crate::Handshake {
        let ready = crate::Pattern::RandomStalls {
            pct: self.ready_pct,
            permille: self.stall_permille,
            min: self.stall_len.0,
            max: self.stall_len.1,
        };
        crate::Handshake::new(crate::Pattern::gaps(self.gap_pct), ready)
    }

    /// The bench: a [`Source`] `"inp"` offering `inputs` in order, again and again, under the
    /// valid line, with another input's payload in `junk_pct` % of the idle cycles
    /// (`Rng::stream(seed, 3)`); a [`Sink`] `"out"` under the ready line; [`Flushes`] `"flush"`
    /// at `flush_at`.
    pub fn bench<I, O>(&self, inputs: &[I::Payload]) -> Bench
    where
        I: Stream + Send + 'static,
        O: Stream + Send + 'static,
        I::Payload: Send,
        O::Payload: Send,
    {
        let l = self.handshake().lines(self.seed);
        Bench::new()
            .with(
                "inp",
                Source::<I>::new("inp", inputs.to_vec(), line(l.valid))
                    .cyclic()
                    .with_junk(Rng::stream(self.seed, 3), self.junk_pct as u64),
            )
            .with("out", Sink::<O>::new("out", line(l.ready)))
            .with("flush", Flushes::at(self.flush_at.clone()))
    }
}

impl Default for BlockStim {
    fn default() -> Self {
        BlockStim {
            seed: 1,
            cycles: 40_000,
            gap_pct: 25,
            junk_pct: 50,
            ready_pct: 75,
            stall_permille: 4,
            stall_len: (20, 600),
            flush_at: vec![9_999, 27_001],
        }
    }
}

/// What a run of a [`BlockStim::bench`] did (counted on the model side, which equals the RTL's).
#[derive(Clone, Debug, Default)]
pub struct BlockRun<O> {
    pub cycles: u64,
    /// Inputs accepted (in_valid && in_ready, not on a flush cycle).
    pub accepted: u64,
    /// Cycles with in_valid high and in_ready low.
    pub upstream_waits: u64,
    /// Cycles with out_valid high and out_ready low.
    pub downstream_waits: u64,
    /// Longest run of cycles with out_ready low.
    pub longest_stall: u64,
    /// Idle cycles that carried another input's payload.
    pub junk_cycles: u64,
    pub flushes: u64,
    /// Cycles whose flush hit a busy block (out_valid high or in_ready low).
    pub busy_flushes: u64,
    /// Every output transferred (out_valid && out_ready, not on a flush cycle), in order.
    pub outputs: Vec<O>,
    pub secs: f64,
    /// Time spent inside the RTL simulator.
    pub rtl_secs: f64,
    pub cycles_per_sec: f64,
}

impl<O: Clone> BlockRun<O> {
    /// The counts of `bench` (a [`BlockStim::bench`]) after `cycles` cycles.
    pub fn of<I, S>(bench: &Bench, cycles: u64) -> BlockRun<O>
    where
        I: Stream + Send + 'static,
        S: Stream<Payload = O> + Send + 'static,
        I::Payload: Send,
        O: Send,
    {
        let src = bench.get::<Source<I>>("inp");
        let sink = bench.get::<Sink<S>>("out");
        let fl = bench.get::<Flushes>("flush");
        BlockRun {
            cycles,
            accepted: src.accepted,
            upstream_waits: src.waits,
            downstream_waits: sink.waits,
            longest_stall: sink.longest_stall,
            junk_cycles: src.junk_cycles,
            flushes: fl.count,
            busy_flushes: fl.busy,
            outputs: sink.received.clone(),
            secs: 0.0,
            rtl_secs: 0.0,
            cycles_per_sec: 0.0,
        }
    }
}
