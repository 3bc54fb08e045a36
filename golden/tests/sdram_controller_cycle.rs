//! The SDRAM controller's cycle model (`golden::sdram_controller`) with the chip model behind
//! its pins: every command meets the datasheet over runs long enough for hundreds of refreshes,
//! every read answers what a plain memory holds (byte enables included), in order, under
//! back-pressure and flushes; the timing contract's figures hold exactly; and a planted bug
//! (tRCD one short) is stopped by the chip at the predicted cycle.

use std::collections::{HashMap, VecDeque};
use tilerast_golden::rng::Rng;
use tilerast_golden::sdram_chip::{SdramChip, SdramCmd, SdramPart, SdramViolation, AS4C32M16SB, MT48LC16M16A2};
use tilerast_golden::sdram_controller::{map_addr, InitStep, SdramControllerCycle, REFRESH_MARGIN};
use tilerast_golden::streams::MemReq;

const HZ: f64 = 100e6;
const INIT_NS: f64 = 2000.0;

/// The controller and the chip, wired pin to pin, with a reference memory of bytes.
struct Bench {
    part: SdramPart,
    ctrl: SdramControllerCycle,
    chip: SdramChip,
    cycle: u64,
    reference: HashMap<u32, u8>,
    /// Reads taken and not yet answered: their expected words.
    expected: VecDeque<u32>,
    answered: u64,
    taken: u64,
}

impl Bench {
    fn new(part: SdramPart, cl: u32) -> Bench {
        let part = part.with_init_ns(INIT_NS);
        Bench {
            part,
            ctrl: SdramControllerCycle::new(part, HZ, cl),
            chip: SdramChip::new(part, HZ),
            cycle: 0,
            reference: HashMap::new(),
            expected: VecDeque::new(),
            answered: 0,
            taken: 0,
        }
    }

    /// One cycle; whether the request was taken.
    fn step(&mut self, req: Option<MemReq>, out_ready: bool, flush: bool) -> Result<bool, SdramViolation> {
        let in_ready = self.ctrl.in_ready();
        let (ov, resp) = self.ctrl.out();
        if ov && out_ready && !flush {
            let want = self.expected.pop_front().expect("an answer without a read");
            assert_eq!(resp.rdata, want, "cycle {}: read answer", self.cycle);
            self.answered += 1;
        }
        let taken = req.is_some() && in_ready && !flush;
        if let (Some(r), true) = (req, taken) {
            self.taken += 1;
            let in_range = map_addr(&self.part, r.addr).is_some();
            if r.write {
                if in_range {
                    for k in 0..4 {
                        if r.be >> k & 1 == 1 {
                            self.reference.insert(r.addr + k, (r.wdata >> (8 * k)) as u8);
                        }
                    }
                }
            } else {
                let word = (0..4)
                    .map(|k| u32::from(*self.reference.get(&(r.addr + k)).unwrap_or(&0)) << (8 * k))
                    .sum();
                self.expected.push_back(if in_range { word } else { 0 });
            }
        }
        if flush {
            self.expected.clear();
        }
        // The chip takes the pins the controller drives this cycle; the controller sees what
        // the chip drives.
        let dq = self.chip.dq().unwrap_or(0);
        let pins = self.ctrl.pins();
        self.ctrl
            .clock(req.is_some(), &req.unwrap_or_default(), out_ready, dq, flush);
        self.chip.clock(&pins)?;
        self.cycle += 1;
        Ok(taken)
    }

    fn until_ready(&mut self) {
        while self.ctrl.init_step() != InitStep::Ready {
            self.step(None, true, false).unwrap();
        }
    }
}

/// A request stream: runs of sequential words (the frame's streams) and random words, in a
/// few rows of every bank, mixed reads and writes, random byte enables.
fn requests(seed: u64, n: usize, span_words: u32) -> Vec<MemReq> {
    let mut rng = Rng::stream(seed, 0);
    let mut v = Vec::new();
    while v.len() < n {
        let start = rng.below(u64::from(span_words)) as u32;
        let run = 1 + rng.below(24) as u32;
        let write = rng.chance(55);
        for i in 0..run {
            let be = if rng.chance(70) { 0xf } else { rng.below(16) as u8 };
            v.push(MemReq {
                addr: ((start + i) % span_words) * 4,
                write,
                wdata: rng.next_u32(),
                be,
            });
        }
    }
    v.truncate(n);
    v
}

fn run(b: &mut Bench, reqs: &[MemReq], seed: u64, stall_pct: u64, gap_pct: u64, flush_at: &[usize]) {
    let mut rng = Rng::stream(seed, 1);
    let mut i = 0;
    let mut guard = 0u64;
    while i < reqs.len() || !b.expected.is_empty() {
        let flush = flush_at.contains(&i) && !b.expected.is_empty() && rng.chance(30);
        let offer = (i < reqs.len() && !rng.chance(gap_pct)).then(|| reqs[i]);
        let out_ready = !rng.chance(stall_pct);
        match b.step(offer, out_ready, flush) {
            Ok(true) => i += 1,
            Ok(false) => {}
            Err(e) => panic!("{e} (request {i})"),
        }
        guard += 1;
        assert!(guard < 200 * reqs.len() as u64 + 100_000, "no progress at request {i}");
    }
    // The last WRITE's second word.
    for _ in 0..4 {
        b.step(None, true, false).unwrap();
    }
}

#[test]
fn reads_answer_the_memory_and_every_command_meets_the_datasheet() {
    for (part, cl, seed) in [(MT48LC16M16A2, 2, 1u64), (MT48LC16M16A2, 3, 2), (AS4C32M16SB, 2, 3)] {
        let mut b = Bench::new(part, cl);
        b.until_ready();
        // 4096 words: 8 banks' worth of rows (the column pair is the low 8 bits) and wrap.
        let reqs = requests(seed, 30_000, 1 << 14);
        run(&mut b, &reqs, seed, 20, 20, &[]);
        let s = b.ctrl.stats();
        let c = b.chip.stats();
        assert_eq!(b.taken, 30_000);
        assert!(b.answered > 10_000, "{}: {} answers", part.name, b.answered);
        // Activity of every kind, and the chip saw what the controller says it sent.
        assert!(
            s.reads > 0 && s.writes > 0 && s.row_hits > s.activates && s.precharges > 0,
            "{s:?}"
        );
        assert!(c.refreshes >= 2 + s.refreshes && s.refreshes > 3, "{s:?} {c:?}");
        assert_eq!((c.reads, c.writes, c.activates), (s.reads, s.writes, s.activates));
        assert_eq!((c.read_words, c.write_words), (2 * s.reads, 2 * s.writes));
    }
}

#[test]
fn flushes_drop_the_answers_and_the_chip_never_sees_a_broken_sequence() {
    let mut b = Bench::new(MT48LC16M16A2, 2);
    b.until_ready();
    let reqs = requests(7, 20_000, 1 << 12);
    let flushes: Vec<usize> = (0..20_000).step_by(97).collect();
    run(&mut b, &reqs, 7, 40, 10, &flushes);
    assert!(b.answered > 1000);
    assert!(!b.ctrl.error());
}

#[test]
fn a_long_idle_keeps_refreshing_at_the_interval() {
    let mut b = Bench::new(MT48LC16M16A2, 2);
    b.until_ready();
    let refi = MT48LC16M16A2.timings.at(HZ).refi;
    let mut refresh_edges = Vec::new();
    for _ in 0..(40 * refi) {
        let p = b.ctrl.pins();
        if SdramCmd::decode(&p) == SdramCmd::Refresh {
            refresh_edges.push(b.cycle);
        }
        b.step(None, true, false).unwrap();
    }
    assert!(refresh_edges.len() >= 39, "{}", refresh_edges.len());
    // Idle: one AUTO REFRESH every tREFI − margin edges exactly.
    for w in refresh_edges.windows(2) {
        assert_eq!(w[1] - w[0], refi - REFRESH_MARGIN);
    }
}

#[test]
fn the_timing_contract_figures_hold() {
    let t = MT48LC16M16A2.with_init_ns(INIT_NS).timings.at(HZ);
    let mut b = Bench::new(MT48LC16M16A2, 2);
    // Power-up: PRECHARGE ALL decided at edge `init` (on the pins after it).
    let mut first_cmd = None;
    while b.ctrl.init_step() != InitStep::Ready {
        if first_cmd.is_none() && SdramCmd::decode(&b.ctrl.pins()) != SdramCmd::Nop {
            first_cmd = Some(b.cycle);
        }
        b.step(None, true, false).unwrap();
    }
    assert_eq!(first_cmd, Some(t.init + 1));
    // A write then a read of the same word in an open row: sequential writes go out every 2
    // clocks, and a read is answered CL + 3 edges after its take once the row is open.
    let w = |i: u32| MemReq {
        addr: 4 * i,
        write: true,
        wdata: 0x1111_1111u32.wrapping_mul(i + 1),
        be: 0xf,
    };
    let mut write_edges = Vec::new();
    let mut i = 0;
    while i < 16 {
        if SdramCmd::decode(&b.ctrl.pins()).name() == "WRITE" {
            write_edges.push(b.cycle);
        }
        if b.step(Some(w(i)), true, false).unwrap() {
            i += 1;
        }
    }
    for _ in 0..10 {
        if SdramCmd::decode(&b.ctrl.pins()).name() == "WRITE" {
            write_edges.push(b.cycle);
        }
        b.step(None, true, false).unwrap();
    }
    assert_eq!(write_edges.len(), 16);
    assert!(write_edges.windows(2).all(|p| p[1] - p[0] == 2), "{write_edges:?}");
    let r = MemReq {
        addr: 4 * 5,
        write: false,
        wdata: 0,
        be: 0,
    };
    while !b.step(Some(r), true, false).unwrap() {}
    let take = b.cycle - 1;
    let mut answer = None;
    for _ in 0..20 {
        if b.ctrl.out().0 && answer.is_none() {
            answer = Some(b.cycle);
            assert_eq!(b.ctrl.out().1.rdata, 0x1111_1111 * 6);
        }
        b.step(None, true, false).unwrap();
    }
    // Taken at edge `take`, decided at take + 1, in the FIFO at take + 1 + CL + 2: valid in
    // the cycle after that edge.
    assert_eq!(answer, Some(take + 1 + 2 + 2 + 1));
    assert_eq!(b.answered, 1);
}

#[test]
fn a_request_beyond_the_part_is_an_error_and_never_wrapped() {
    let mut b = Bench::new(MT48LC16M16A2, 2);
    b.until_ready();
    // 32 MB: 0x0200_0000 is the first byte beyond; a write there must not land at 0.
    let reqs = [
        MemReq {
            addr: 0,
            write: true,
            wdata: 0xdead_beef,
            be: 0xf,
        },
        MemReq {
            addr: 0x0200_0000,
            write: true,
            wdata: 0x1234_5678,
            be: 0xf,
        },
        MemReq {
            addr: 0x0200_0000,
            write: false,
            wdata: 0,
            be: 0,
        },
        MemReq {
            addr: 0,
            write: false,
            wdata: 0,
            be: 0,
        },
    ];
    run(&mut b, &reqs, 9, 0, 0, &[]);
    assert!(b.ctrl.error());
    assert_eq!(b.ctrl.stats().refused, 2);
    assert_eq!(b.answered, 2);
    // A flush clears the error.
    b.step(None, true, true).unwrap();
    assert!(!b.ctrl.error());
}

#[test]
fn a_controller_one_clock_short_of_trcd_is_stopped_at_the_predicted_cycle() {
    let mut b = Bench::new(MT48LC16M16A2, 2);
    b.ctrl.plant_bug();
    b.until_ready();
    let req = MemReq {
        addr: 0x40,
        write: false,
        wdata: 0,
        be: 0,
    };
    // Predicted: the ACTIVE is on the pins at some cycle a; the READ then follows one cycle
    // later instead of tRCD = 2, and the chip stops at the edge that takes it.
    let mut active_on_pins = None;
    let mut err = None;
    for _ in 0..50 {
        if active_on_pins.is_none() && SdramCmd::decode(&b.ctrl.pins()).name() == "ACTIVE" {
            active_on_pins = Some(b.cycle);
        }
        if let Err(e) = b.step(Some(req), true, false) {
            err = Some(e);
            break;
        }
    }
    let a = active_on_pins.expect("an ACTIVE");
    let e = err.expect("the chip stops the short tRCD");
    assert_eq!((e.rule, e.cycle), ("tRCD", a + 1), "{e}");
}
