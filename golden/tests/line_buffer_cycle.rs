//! The line buffer's cycle model (`tilerast_golden::line_buffer`, the crossing FIFO of
//! `tilerast_golden::crossing`) on its shared bench (`tilerast_verif::line_buffer`):
//! - at every clock relation the board top has or could have (write faster, read faster, one
//!   clock, coprime periods with a phase, edges at random), every pixel offered comes out once,
//!   in order; the FIFO fills and runs dry; it never holds more than its depth;
//! - a word pushed at a write edge is readable after exactly the second read edge after it;
//! - flushes held over both clocks' edges drop what is held, and the crossing goes on;
//! - the planted bug (the read side without its synchroniser) takes a word the read register
//!   does not hold yet: a wrong pixel comes out.

use tilerast_golden::crossing::Crossing;
use tilerast_golden::line_buffer::LineBufferCycle;
use tilerast_golden::scan_out::FIFO_WORDS;
use tilerast_golden::streams::{ports, VideoPixel};
use tilerast_verif::line_buffer::{bench, check_order, Clocks, LineBufferStim};
use tilerast_verif::lockstep::{Flushes, Lockstep, Sink, Source};

fn stim(clocks: Clocks, flush_ppm: u64) -> LineBufferStim {
    LineBufferStim {
        seed: 5,
        pixels: 3_000,
        clocks,
        valid_pct: 85,
        ready_pct: 80,
        flush_ppm,
        flush_len: 12,
    }
}

fn run(model: LineBufferCycle, s: &LineBufferStim, steps: u64) -> Lockstep<LineBufferCycle> {
    let mut ls = Lockstep::new(model, bench(s));
    let mut peak = 0;
    for _ in 0..steps {
        ls.step().unwrap();
        let fill = ls.model.fifo.fill();
        assert!(fill <= FIFO_WORDS, "the write side counts {fill} words");
        peak = peak.max(fill);
    }
    println!("{}\npeak fill {peak}", ls.bench.summary());
    ls
}

fn received(ls: &Lockstep<LineBufferCycle>) -> Vec<VideoPixel> {
    ls.bench.get::<Sink<ports::VideoPixel>>("out").received.clone()
}

#[test]
fn every_pixel_comes_out_once_in_order_at_every_clock_relation() {
    let relations = [
        Clocks::Periodic {
            write: 1,
            read: 4,
            phase: 0,
        },
        Clocks::Periodic {
            write: 4,
            read: 1,
            phase: 0,
        },
        Clocks::Periodic {
            write: 1,
            read: 1,
            phase: 0,
        },
        Clocks::Periodic {
            write: 2,
            read: 3,
            phase: 1,
        },
        Clocks::Random {
            write_pct: 60,
            read_pct: 45,
        },
    ];
    for clocks in relations {
        let s = stim(clocks, 0);
        let ls = run(LineBufferCycle::default(), &s, 40_000);
        let got = received(&ls);
        let n = check_order(&got, false, s.pixels).unwrap_or_else(|e| panic!("{clocks:?}: {e}"));
        let m = &ls.model;
        println!(
            "{clocks:?}: {n} out, pushed {} popped {} full {} empty {}",
            m.pushed, m.popped, m.full_edges, m.empty_edges
        );
        assert_eq!(m.popped as usize, n);
        assert!(n > 2_000, "{clocks:?}: {n} pixels through");
        assert!(m.empty_edges > 0, "{clocks:?}: the FIFO runs dry");
        if let Clocks::Periodic { write: 1, read: 4, .. } = clocks {
            assert!(m.full_edges > 0, "{clocks:?}: the FIFO fills (reads four times slower)");
            assert_eq!(n, s.pixels, "{clocks:?}: every pixel");
        }
    }
}

#[test]
fn a_word_is_readable_after_the_second_read_edge_and_its_slot_free_after_the_third_write_edge() {
    for (write_every, read_every) in [(1u64, 1u64), (1, 4), (4, 1), (3, 2)] {
        let mut c: Crossing<u32> = Crossing::new(4);
        let (mut pushed_at, mut read_edges, mut step) = (None, 0, 0u64);
        while read_edges < 3 {
            let (w, r) = c.pointers();
            let (we, re) = (step % write_every == 0, step % read_every == 0);
            if re {
                if pushed_at.is_some() {
                    assert_eq!(
                        c.readable(),
                        read_edges >= 2,
                        "{write_every}/{read_every}: read edge {read_edges}"
                    );
                    read_edges += 1;
                }
                c.read_edge(false, w, false);
            }
            if we && pushed_at.is_none() {
                c.write_edge(Some(0xabc), r, false);
                pushed_at = Some(step);
            } else if we {
                c.write_edge(None, r, false);
            }
            step += 1;
        }
        assert!(c.readable() && c.head() == 0xabc && c.out() == (true, 0xabc));
        // Popped: the write side still counts it for three write edges (two synchroniser flops,
        // then the read pointer in binary).
        let mut write_edges = 0;
        let (w, _) = c.pointers();
        c.read_edge(true, w, false);
        assert!(!c.readable() && c.out() == (false, 0));
        while c.fill() == 1 {
            let (_, r2) = c.pointers();
            c.write_edge(None, r2, false);
            write_edges += 1;
            assert!(write_edges <= 3, "{write_every}/{read_every}");
        }
        assert_eq!(write_edges, 3, "{write_every}/{read_every}");
    }
}

#[test]
fn flushes_drop_what_is_held_and_the_crossing_goes_on() {
    for clocks in [
        Clocks::Periodic {
            write: 1,
            read: 4,
            phase: 0,
        },
        Clocks::Random {
            write_pct: 50,
            read_pct: 50,
        },
    ] {
        let s = stim(clocks, 1_000);
        let ls = run(LineBufferCycle::default(), &s, 20_000);
        let got = received(&ls);
        let n = check_order(&got, true, s.pixels).unwrap_or_else(|e| panic!("{clocks:?}: {e}"));
        let f = ls.bench.get::<Flushes>("flush");
        let sink = ls.bench.get::<Sink<ports::VideoPixel>>("out");
        let taken = ls.bench.get::<Source<ports::VideoPixel>>("inp").accepted as usize;
        println!(
            "{clocks:?}: {n} out of {taken} taken; {} flush steps ({} busy)",
            f.count, f.busy
        );
        assert!(
            f.busy >= 5 && sink.flush_marks.len() > 5,
            "{clocks:?}: flushes of a busy FIFO"
        );
        assert!(n + 50 < taken, "{clocks:?}: flushes drop pixels");
        assert!(
            sink.segments().iter().filter(|s| s.len() > 20).count() > 3,
            "{clocks:?}: it goes on after flushes"
        );
    }
}

#[test]
fn without_its_synchroniser_the_read_side_takes_a_pixel_that_is_not_there() {
    // The read clock four times faster: the FIFO runs dry, and the read side takes each word
    // at the first read edge after its write.
    let s = stim(
        Clocks::Periodic {
            write: 4,
            read: 1,
            phase: 0,
        },
        0,
    );
    let mut bad = LineBufferCycle::default();
    bad.fifo.plant_unsynchronised_bug();
    let ls = run(bad, &s, 20_000);
    let e = check_order(&received(&ls), false, s.pixels).expect_err("the bug gives a wrong pixel");
    println!("{e}");
}

/// One step of both clocks (edges coinciding): the read edge, then the write edge, each
/// sampling the other's pointer from before the step; the word popped, if one was.
fn both_edges(c: &mut Crossing<u32>, push: Option<u32>, pop: bool, drop: bool) -> Option<u32> {
    let (written, read) = c.pointers();
    let (readable, head) = c.out();
    let popped = (pop && readable).then_some(head);
    c.read_edge(pop && readable, written, false);
    if drop {
        c.drop_edge(read);
    } else {
        c.write_edge(push, read, false);
    }
    popped
}

#[test]
fn a_drop_abandons_the_words_held_and_the_next_pushed_come_out_next() {
    let mut c: Crossing<u32> = Crossing::new(8);
    for w in 1..=5 {
        both_edges(&mut c, Some(w), false, false);
    }
    // Two taken, then the write side sees the read pointer (three write edges) with three held.
    let got: Vec<_> = (0..4)
        .filter_map(|_| both_edges(&mut c, None, true, false))
        .take(2)
        .collect();
    assert_eq!(got, [1, 2]);
    assert!(c.readable(), "3, 4, 5 still held");
    while c.fill() != 3 {
        both_edges(&mut c, None, false, false);
    }
    both_edges(&mut c, None, false, true);
    assert_eq!(c.fill(), 0, "the write side holds nothing after the drop");
    assert!(c.room());
    // The read side sees the pointer go back after its two flops: nothing to read.
    both_edges(&mut c, None, false, false);
    both_edges(&mut c, None, false, false);
    assert!(!c.readable(), "the dropped words are gone on the read side");
    for w in [100, 101] {
        both_edges(&mut c, Some(w), false, false);
    }
    let got: Vec<_> = (0..6).filter_map(|_| both_edges(&mut c, None, true, false)).collect();
    assert_eq!(
        got,
        [100, 101],
        "the words pushed after the drop come out next, in order"
    );
    // Without a drop, the same run would have read 3, 4, 5 first (the test can fail).
    let mut d: Crossing<u32> = Crossing::new(8);
    for w in [3, 4, 5, 100] {
        both_edges(&mut d, Some(w), false, false);
    }
    let got: Vec<_> = (0..8).filter_map(|_| both_edges(&mut d, None, true, false)).collect();
    assert_eq!(got, [3, 4, 5, 100]);
}
