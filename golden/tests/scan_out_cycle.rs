//! scan_out's cycle model against the references: the reads it sends are the screen's
//! addresses in screen order ([`ScanOutParams::address`], row H − 1 at the top), the pixels it
//! sends are the framebuffer's image as golden resolves it (`output_merger::image_from_memory`),
//! scaled by whole pixels; with a line buffer drained at the pixel clock and `fill` its count,
//! the credits hold back reads (`credit_waits`) and the buffer never overflows, every answer is
//! taken the cycle it comes; `start` restarts the walk, a flush empties everything; the planted
//! row-step bug shows at the first row change.

use std::collections::VecDeque;
use tilerast_golden::board::board;
use tilerast_golden::memory_port::{MemTiming, MemoryCycle, SparseMemory};
use tilerast_golden::output_merger::image_from_memory;
use tilerast_golden::rng::Rng;
use tilerast_golden::scan_out::{ScanOutCycle, ScanOutParams, FIFO_WORDS};
use tilerast_golden::streams::VideoPixel;
use tilerast_golden::Config;

/// What a run saw.
#[derive(Default)]
struct Run {
    /// Addresses of the reads taken, in order.
    reads: Vec<u32>,
    /// Pixels out of the line buffer, in order.
    pixels: Vec<VideoPixel>,
    /// Most words the line buffer held.
    peak_fill: usize,
    /// Cycles an answer was offered and not taken.
    answer_waits: u64,
}

/// `cycles` cycles of scan_out behind a memory (latency `latency`, `grant_pct` % grant),
/// `start` at the cycles in `starts` with `base`, its pixels into a line buffer of `depth`
/// words (`fill` = its count) drained one word per `drain_every` cycles.
#[allow(clippy::too_many_arguments)]
fn run(
    model: &mut ScanOutCycle,
    mem: SparseMemory,
    cycles: u64,
    latency: u32,
    grant_pct: u64,
    starts: &[u64],
    base: u32,
    drain_every: u64,
) -> Run {
    let depth = model.params().credits as usize;
    let mut memory = MemoryCycle::new(MemTiming { latency, depth: 8 }, mem);
    let mut fifo: VecDeque<VideoPixel> = VecDeque::new();
    let mut rng = Rng::stream(7, latency.into());
    let mut r = Run::default();
    for c in 0..cycles {
        let grant = rng.below(100) < grant_pct;
        let rd_ready = memory.req_ready(grant);
        let (rv, rq) = model.rd();
        let (av, ans) = memory.resp();
        let in_ready = model.in_ready(fifo.len() < depth);
        let (ov, px) = model.out();
        let out_ready = fifo.len() < depth;
        r.answer_waits += u64::from(av && !in_ready);
        if rv && rd_ready {
            r.reads.push(rq.addr);
        }
        let fill = fifo.len() as u32;
        memory.clock(rv, &rq, grant, in_ready, false);
        model.clock(av, &ans, out_ready, rd_ready, starts.contains(&c), base, fill, false);
        if ov && out_ready {
            fifo.push_back(px);
        }
        r.peak_fill = r.peak_fill.max(fifo.len());
        if c % drain_every == 0 {
            if let Some(p) = fifo.pop_front() {
                r.pixels.push(p);
            }
        }
    }
    r.pixels.extend(fifo);
    r
}

/// A random framebuffer of `w`×`h` one-colour pixels at `base`.
fn framebuffer(w: u32, h: u32, base: u32, seed: u64) -> SparseMemory {
    let mut m = SparseMemory::new();
    let mut rng = Rng::stream(seed, 0);
    for pos in 0..w * h {
        m.write(base + 4 * pos, rng.next_u32(), 0xf);
    }
    m
}

#[test]
fn the_reads_are_the_screen_in_order_and_the_pixels_its_image() {
    for (w, h, scale, latency) in [(8, 4, 1, 1), (5, 3, 2, 3), (6, 2, 3, 6)] {
        let p = ScanOutParams::new(w, h, scale, 16).unwrap();
        let mut m = ScanOutCycle::new(p);
        // At base 0 the framebuffer is output_merger's, and golden's image of it is the truth.
        let r = run(
            &mut m,
            framebuffer(w, h, 0, u64::from(w)),
            4_000,
            latency,
            70,
            &[3],
            0,
            1,
        );
        let want: Vec<u32> = (0..h * scale)
            .flat_map(|l| (0..w * scale).map(move |c| (c, l)))
            .map(|(c, l)| p.address(0, c, l))
            .collect();
        assert_eq!(r.reads, want, "{w}x{h} at {scale}");
        assert_eq!(m.stats().reads, p.pixels());
        assert!(!m.busy() && m.in_flight() == 0);
        let cfg = Config {
            viewport: [w, h],
            colours_per_pixel: 1,
            ..Config::preset("ice40_1x").unwrap()
        };
        let image = image_from_memory(&cfg, &framebuffer(w, h, 0, u64::from(w)));
        assert_eq!(r.pixels.len() as u64, p.pixels());
        for (i, px) in r.pixels.iter().enumerate() {
            let (c, l) = (i as u32 % (w * scale), i as u32 / (w * scale));
            let o = (((l / scale) * w + c / scale) * 4) as usize;
            let rgb = [image.rgba[o], image.rgba[o + 1], image.rgba[o + 2]];
            assert_eq!([px.red, px.green, px.blue], rgb, "screen ({c}, {l})");
        }
        assert_eq!(r.answer_waits, 0, "every answer taken at once");
    }
}

#[test]
fn the_credits_hold_the_line_buffer_below_its_depth() {
    // The ULX3S's walk at its FIFO depth, drained at the pixel clock (one word per 4 memory
    // clocks): the buffer fills to its depth and no further, reads wait on credits, and
    // every answer is taken the cycle it comes.
    let f = board("ulx3s").unwrap().frame.unwrap();
    let p = ScanOutParams::for_board(&f).unwrap();
    assert_eq!((p.width, p.height, p.scale, p.credits), (640, 480, 1, FIFO_WORDS));
    let mut m = ScanOutCycle::new(p);
    let r = run(
        &mut m,
        framebuffer(640, 8, 0x10_0000, 1),
        30_000,
        4,
        60,
        &[0],
        0x10_0000,
        4,
    );
    assert!(r.peak_fill <= FIFO_WORDS as usize);
    assert!(
        r.peak_fill >= FIFO_WORDS as usize - 8,
        "the buffer fills: {}",
        r.peak_fill
    );
    assert!(m.stats().credit_waits > 10_000, "{:?}", m.stats());
    assert_eq!(r.answer_waits, 0);
    assert_eq!(r.reads[0], 0x10_0000 + 479 * 640 * 4, "row 479 first");
}

#[test]
fn start_restarts_the_walk_and_flush_empties_everything() {
    let p = ScanOutParams::new(4, 3, 1, 6).unwrap();
    let mut m = ScanOutCycle::new(p);
    // Two starts, the second mid-walk: the walk begins again at the new base.
    let r = run(&mut m, framebuffer(4, 3, 0x400, 3), 200, 2, 100, &[0, 6], 0x400, 1);
    assert_eq!(m.stats().frames, 2);
    let again = r.reads.iter().rposition(|&a| a == 0x400 + 2 * 16).unwrap();
    assert!(again > 0 && r.reads[..again].contains(&(0x400 + 2 * 16)));
    assert_eq!(r.reads.len() - again, 12, "a whole walk after the second start");
    assert!(!m.busy());
    // Mid-walk flush: idle, nothing held, nothing in flight.
    m.clock(false, &Default::default(), true, false, true, 0, 0, false);
    m.clock(false, &Default::default(), true, true, false, 0, 0, false);
    assert!(m.busy() && m.rd().0);
    m.clock(false, &Default::default(), true, true, false, 0, 0, true);
    assert!(!m.busy() && !m.rd().0 && !m.out().0 && m.in_flight() == 0);
}

#[test]
fn the_planted_row_step_bug_shows_at_the_first_row_change() {
    let p = ScanOutParams::new(4, 3, 1, 8).unwrap();
    let mut good = ScanOutCycle::new(p);
    let mut bad = ScanOutCycle::new(p);
    bad.plant_row_step_bug();
    let a = run(&mut good, framebuffer(4, 3, 0, 1), 100, 1, 100, &[0], 0, 1);
    let b = run(&mut bad, framebuffer(4, 3, 0, 1), 100, 1, 100, &[0], 0, 1);
    let first = a.reads.iter().zip(&b.reads).position(|(x, y)| x != y);
    assert_eq!(first, Some(4), "read 4, the second row's first");
    assert_eq!((a.reads[4], b.reads[4]), (16, 48));
}

#[test]
fn a_frame_row_the_scan_out_cannot_show_is_refused_by_name() {
    let mut f = board("ulx3s").unwrap().frame.unwrap();
    f.preset = "full";
    let e = ScanOutParams::for_board(&f).unwrap_err();
    assert!(e.contains("colours_per_pixel must be 1"), "{e}");
    f.preset = "ice40_1x";
    // 160x120 on 640x480: scale 4.
    assert_eq!(ScanOutParams::for_board(&f).unwrap().scale, 4);
    assert!(ScanOutParams::new(0, 3, 1, 4).is_err());
    assert!(ScanOutParams::new(4, 3, 1, 1 << 10).unwrap_err().contains("credits"));
}
