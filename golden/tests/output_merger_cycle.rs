//! The output merger's write path (`OutputMergerCycle`, layer 3) against its transaction model
//! (`OutputMerger::write` per blender result, layer 2): random blender beats (random slot masks,
//! empty beats included, positions over the whole `ice40` framebuffer with repeats) under random
//! gaps and memory back-pressure from the verification kit, stalls of thousands of cycles and
//! flushes. The writes must be the transaction model's in stream order, so that a memory
//! cleared to the background and given them holds `OutputMerger::memory()` byte for byte and
//! reads back as `OutputMerger::finish()`'s image; the timing contract is checked cycle by cycle.

use tilerast_golden::cycle::CycleModel;
use tilerast_golden::memory_port::SparseMemory;
use tilerast_golden::output_merger::{image_from_memory, slot_addr, OutputMerger, OutputMergerCycle};
use tilerast_golden::streams::{BlendBeat, MemReq};
use tilerast_golden::Config;
use tilerast_verif::{Pattern, Rng};

const BG: [u8; 4] = [9, 8, 7, 255];

fn cfg() -> Config {
    let mut c = Config::preset("ice40").unwrap();
    c.colours_per_pixel = 2;
    c.colour_block_bytes = 128;
    c.validate().unwrap();
    c
}

fn beats(r: &mut Rng, n: usize, slots: u32) -> Vec<BlendBeat> {
    (0..n)
        .map(|_| {
            let mut b = BlendBeat {
                lane_valid: r.below(16) as u8,
                ..Default::default()
            };
            for l in 0..4 {
                // Invalid slots carry junk too: the block must ignore it.
                b.pos[l] = r.below(slots as u64) as u32;
                b.colour[l] = r.next_u32();
            }
            b
        })
        .collect()
}

/// The transaction model's writes for `beats`, in stream order.
fn expected(beats: &[BlendBeat]) -> Vec<MemReq> {
    beats
        .iter()
        .flat_map(|b| {
            (0..4).filter(move |l| b.lane_valid >> l & 1 == 1).map(move |l| MemReq {
                addr: slot_addr(b.pos[l]),
                write: true,
                wdata: b.colour[l],
                be: 0xf,
            })
        })
        .collect()
}

struct Out {
    writes: Vec<MemReq>,
    cycles: u64,
    stalled: u64,
}

/// Drive the model; check the contract every cycle (in_ready rule, one write per advance,
/// nothing moves without advance).
fn drive(m: &mut OutputMergerCycle, input: &[BlendBeat], seed: u64, valid: Pattern, ready: Pattern) -> Out {
    let (mut vl, mut rl) = (valid.line(Rng::stream(seed, 0)), ready.line(Rng::stream(seed, 1)));
    let n = expected(input).len();
    let (mut next, mut cycle) = (0usize, 0u64);
    let mut o = Out {
        writes: Vec::new(),
        cycles: 0,
        stalled: 0,
    };
    // Slots still to write of the beat in hold (mirrors the contract, not the model).
    let mut left = 0u32;
    while o.writes.len() < n || next < input.len() {
        assert!(cycle < 5_000_000, "no progress");
        let (v, rd) = (next < input.len() && vl.step(), rl.step());
        let inp = input.get(next).copied().unwrap_or_default();
        let (ov, req) = m.out();
        let adv = !ov || rd;
        let ready = m.in_ready(rd);
        assert_eq!(ready, left == 0 || (left == 1 && adv), "cycle {cycle}: in_ready");
        if ov && rd {
            o.writes.push(req);
        }
        if ov && !rd {
            o.stalled += 1;
        }
        if adv && left > 0 {
            left -= 1;
        }
        if v && ready {
            left = (inp.lane_valid & 0xf).count_ones();
            next += 1;
        }
        let before = m.out();
        m.clock(v, &inp, rd, false);
        if !adv {
            assert_eq!(m.out(), before, "cycle {cycle}: output moved without advance");
        }
        cycle += 1;
    }
    o.cycles = cycle;
    o
}

#[test]
fn writes_are_the_transaction_models_and_the_memory_matches_byte_for_byte() {
    let c = cfg();
    let slots = c.viewport[0] * c.viewport[1] * c.colours_per_pixel;
    let patterns = [
        (Pattern::Always, Pattern::Always),
        (Pattern::gaps(30), Pattern::Random { pct: 60 }),
        (Pattern::Runs { pct: 70 }, Pattern::Regimes { period: 300 }),
        (
            Pattern::Random { pct: 90 },
            Pattern::Stalls {
                pct: 80,
                every: 5000,
                len: 2500,
            },
        ),
    ];
    let mut stalled = 0;
    for (seed, (valid, ready)) in patterns.into_iter().enumerate() {
        let mut r = Rng::stream(77, seed as u64);
        let input = beats(&mut r, 3000, slots);
        let want = expected(&input);
        assert!(want.len() > 4000, "activity: {} writes", want.len());
        let mut m = OutputMergerCycle::new();
        let o = drive(&mut m, &input, seed as u64, valid, ready);
        assert_eq!(o.writes, want, "seed {seed}: writes");
        assert_eq!(m.stats().writes, want.len() as u64);
        assert_eq!(m.stats().beats, input.len() as u64);
        assert_eq!(m.stats().stalled, o.stalled);
        stalled += o.stalled;
        // The transaction model given the same results, and a memory cleared to the background
        // given the writes, hold the same bytes and the same image.
        let mut tm = OutputMerger::new(&c, BG);
        for q in &want {
            tm.write(q.addr / 4, q.wdata.to_le_bytes());
        }
        let mut mem = OutputMerger::new(&c, BG).memory();
        for q in &o.writes {
            mem.write(q.addr, q.wdata, q.be);
        }
        assert_eq!(mem.first_difference(&tm.memory()), None, "seed {seed}");
        assert_eq!(image_from_memory(&c, &mem), tm.finish(), "seed {seed}: image");
        if seed == 0 {
            // No gaps, no back-pressure: one write per cycle, the first from cycle 2, plus one
            // input cycle per empty beat.
            let empty = input.iter().filter(|b| b.lane_valid & 0xf == 0).count() as u64;
            assert!(empty > 100, "empty beats exercised");
            assert!(o.cycles <= 2 + want.len() as u64 + empty, "{} cycles", o.cycles);
        }
    }
    assert!(stalled > 1000, "back-pressure exercised: {stalled}");
}

#[test]
fn latency_two_and_no_bubble_between_full_beats() {
    let mut m = OutputMergerCycle::new();
    let b = |p: u32| BlendBeat {
        lane_valid: 0xf,
        pos: [p, p + 1, p + 2, p + 3],
        colour: [p, p, p, p],
    };
    let mut seen = Vec::new();
    let mut fed = 0;
    for cycle in 0..12u64 {
        let (ov, q) = m.out();
        if ov {
            seen.push((cycle, q.addr));
        }
        let (v, inp) = (fed < 2, b(10 * fed));
        if v && m.in_ready(true) {
            fed += 1;
        }
        m.clock(v, &inp, true, false);
    }
    let want: Vec<(u64, u32)> = (0..8)
        .map(|i| (2 + i, 4 * (10 * (i as u32 / 4) + i as u32 % 4)))
        .collect();
    assert_eq!(seen, want);
}

#[test]
fn flush_returns_to_new_and_memory_layout() {
    let mut m = OutputMergerCycle::new();
    let beat = BlendBeat {
        lane_valid: 0b1010,
        pos: [1, 2, 3, 4],
        colour: [5, 6, 7, 8],
    };
    m.clock(true, &beat, true, false);
    m.clock(false, &beat, true, false);
    assert_eq!(
        m.out(),
        (
            true,
            MemReq {
                addr: 8,
                write: true,
                wdata: 6,
                be: 0xf
            }
        )
    );
    assert!(!m.in_ready(false), "one slot left, output stalled");
    assert!(m.in_ready(true), "one slot left, leaving now");
    m.clock(true, &beat, false, true);
    assert_eq!(m.out(), OutputMergerCycle::new().out());
    assert!(m.in_ready(false));
    // Layout: slot pos at byte 4·pos, R first.
    let c = cfg();
    let mut om = OutputMerger::new(&c, BG);
    om.write(3, [1, 2, 3, 4]);
    let mem: SparseMemory = om.memory();
    assert_eq!((mem.byte(12), mem.byte(13), mem.byte(14), mem.byte(15)), (1, 2, 3, 4));
    assert_eq!(mem.byte(0), BG[0]);
}
