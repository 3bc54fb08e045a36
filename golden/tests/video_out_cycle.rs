//! video_out's cycle model against the reference (`golden::video::DviLink`, whose characters
//! the checking receiver decodes): the words it sends are the link's, pixel clock for pixel
//! clock, and decode to the picture; a missing pixel goes out black and raises `underrun` at
//! its clock; a stalled output holds the timing; `vblank` covers the blanking lines; the
//! planted disparity bug is caught by the receiver at the clock the model predicts.

use tilerast_golden::cycle::CycleModel;
use tilerast_golden::streams::{DviWord, VideoPixel};
use tilerast_golden::video::{DviLink, DviReceiver, LinkWord, VideoMode, VGA_640X480_60};
use tilerast_golden::video_out::{VideoOutCycle, TEST_MODE};

fn picture(x: u32, y: u32) -> [u8; 3] {
    [(x * 7 + y) as u8, (y * 3) as u8 ^ (x as u8), ((x ^ y) * 5 + 1) as u8]
}

fn pixel(rgb: [u8; 3]) -> VideoPixel {
    VideoPixel {
        red: rgb[0],
        green: rgb[1],
        blue: rgb[2],
    }
}

fn link_word(w: DviWord) -> LinkWord {
    [w.blue, w.green, w.red]
}

/// Runs `clocks` cycles with `out_ready(cycle)`; the picture's pixels are offered in raster
/// order, except at the active clocks `missing` (counted from 0), where valid is low. Returns
/// the words sent (one per cycle with out_valid ∧ out_ready), the cycles at which `underrun`
/// was first high, and the cycles with `vblank`.
fn run(
    model: &mut VideoOutCycle,
    clocks: u64,
    out_ready: impl Fn(u64) -> bool,
    missing: &[u64],
) -> (Vec<LinkWord>, Option<u64>, u64) {
    let mode = *model.mode();
    let mut words = Vec::new();
    let mut underrun_at = None;
    let mut vblank_cycles = 0;
    let mut next = 0u64; // active pixel clocks served (taken or missed)
    for cycle in 0..clocks {
        let ready = out_ready(cycle);
        let (v, w) = model.out();
        if v && ready {
            words.push(link_word(w));
        }
        if model.underrun() && underrun_at.is_none() {
            underrun_at = Some(cycle);
        }
        vblank_cycles += u64::from(model.vblank());
        let (x, y) = model.position();
        let valid = !missing.contains(&next);
        let p = pixel(picture(x % mode.h_active.max(1), y % mode.v_active.max(1)));
        if model.in_ready(ready) {
            next += 1;
        }
        model.clock(valid, &p, ready, false);
    }
    (words, underrun_at, vblank_cycles)
}

fn reference(mode: &VideoMode, clocks: u64, black: &[(u32, u32)]) -> Vec<LinkWord> {
    let mut link = DviLink::default();
    link.frames(mode, clocks, |x, y| {
        if black.contains(&(x, y)) {
            [0; 3]
        } else {
            picture(x, y)
        }
    })
}

#[test]
fn the_words_are_the_links_and_decode_to_the_picture() {
    for mode in [TEST_MODE, VGA_640X480_60] {
        let clocks = 2 * mode.frame_clocks() + 5;
        let mut m = VideoOutCycle::new(mode);
        let (words, underrun, _) = run(&mut m, clocks, |_| true, &[]);
        assert_eq!(underrun, None, "{}", mode.name);
        // Latency 1: the first cycle sends nothing.
        assert_eq!(words.len() as u64, clocks - 1);
        assert_eq!(words, reference(&mode, clocks - 1, &[]), "{}", mode.name);
        let mut rx = DviReceiver::new(mode);
        rx.receive_all(&words).unwrap();
        // The receiver locks at the first vsync and decodes the second frame whole.
        let f = rx.frames.last().expect("a decoded frame");
        assert_eq!(f.rgb.len() as u32, mode.h_active * mode.v_active);
        for y in 0..mode.v_active {
            for x in 0..mode.h_active {
                assert_eq!(f.pixel(x, y), picture(x, y), "{} ({x}, {y})", mode.name);
            }
        }
        // Activity: data characters of many values went out.
        let distinct: std::collections::BTreeSet<u16> = words.iter().map(|w| w[2]).collect();
        assert!(distinct.len() > 8, "{}", distinct.len());
    }
}

#[test]
fn a_missing_pixel_goes_out_black_and_raises_underrun_at_its_clock() {
    let mode = TEST_MODE;
    // Active clock 13 is pixel (5, 1): h_total 15, so its pixel clock is 15 + 5 = 20, taken at
    // cycle 20. In the first frame (before any vertical blank) it goes out black and
    // `underrun` stays low: the frame after a flush comes before the line buffer could fill.
    // In the second frame it is active clock 13 + 24 = 37, pixel clock 90 + 20, taken at
    // cycle 110: `underrun` is high from cycle 111 on.
    let mut m = VideoOutCycle::new(mode);
    let clocks = 2 * mode.frame_clocks() + 1;
    let (words, underrun, _) = run(&mut m, clocks, |_| true, &[13, 37]);
    assert_eq!((mode.h_total(), mode.frame_clocks()), (15, 90));
    assert_eq!(underrun, Some(111));
    assert_eq!(words, reference(&mode, clocks - 1, &[(5, 1)]));
    assert!(m.underrun(), "underrun is sticky");
    // Flush clears it and restarts the counters; unarmed again, the first frame's miss is
    // black and raises nothing.
    m.clock(false, &VideoPixel::default(), true, true);
    assert!(!m.underrun() && m.position() == (0, 0) && !m.out().0);
    let (_, underrun, _) = run(&mut m, mode.frame_clocks(), |_| true, &[13]);
    assert_eq!(underrun, None);
}

/// `frame_crc` loads once per video frame, at the edge of its last active pixel, with
/// `protocol::display_crc` of the picture that frame sent, a black (missing) pixel included.
#[test]
fn frame_crc_is_the_display_crc_of_each_whole_frame_sent() {
    use tilerast_golden::protocol::display_crc;
    let mode = TEST_MODE;
    let f = mode.frame_clocks();
    assert_eq!((mode.h_total(), f), (15, 90));
    let crc_of =
        |black: Option<(u32, u32)>| {
            display_crc((0..mode.v_active).flat_map(|y| {
                (0..mode.h_active).map(move |x| if black == Some((x, y)) { [0; 3] } else { picture(x, y) })
            }))
        };
    let (clean, holed) = (crc_of(None), crc_of(Some((5, 1))));
    assert_ne!(clean, holed);
    let mut m = VideoOutCycle::new(mode);
    let mut loads = Vec::new();
    let mut toggle = false;
    let mut active = 0u64;
    for cycle in 0..3 * f + 2 {
        let (crc, t) = m.frame_crc();
        if t != toggle {
            loads.push((cycle, crc));
            toggle = t;
        }
        let (x, y) = m.position();
        // Pixel (5, 1) of the second frame is missing: it goes out black.
        let valid = active != u64::from(mode.h_active * mode.v_active) + 13;
        if m.in_ready(true) {
            active += 1;
        }
        m.clock(
            valid,
            &pixel(picture(x % mode.h_active, y % mode.v_active)),
            true,
            false,
        );
    }
    // The last active pixel, (7, 2), is clock 2 · 15 + 7 = 37 of each frame; its edge loads
    // the CRC, seen from the next cycle.
    assert_eq!(loads, vec![(38, clean), (38 + f, holed), (38 + 2 * f, clean)]);
    // A flush clears both.
    m.clock(false, &VideoPixel::default(), true, true);
    assert_eq!(m.frame_crc(), (0, false));
}

#[test]
fn a_stalled_output_holds_the_timing() {
    let mode = TEST_MODE;
    let mut m = VideoOutCycle::new(mode);
    let stall = |c: u64| !(c % 3 == 1 || (40..47).contains(&c));
    let (words, underrun, _) = run(&mut m, 3 * mode.frame_clocks(), stall, &[]);
    assert_eq!(underrun, None);
    assert!(words.len() as u64 > mode.frame_clocks());
    assert_eq!(words, reference(&mode, words.len() as u64, &[]));
}

#[test]
fn vblank_covers_the_blanking_lines() {
    for mode in [TEST_MODE, VGA_640X480_60] {
        let mut m = VideoOutCycle::new(mode);
        let (_, _, vblank) = run(&mut m, 3 * mode.frame_clocks(), |_| true, &[]);
        assert_eq!(vblank, 3 * u64::from((mode.v_total() - mode.v_active) * mode.h_total()));
    }
}

#[test]
fn the_planted_disparity_bug_is_caught_by_the_receiver_at_the_predicted_clock() {
    for mode in [TEST_MODE, VGA_640X480_60] {
        let clocks = 2 * mode.frame_clocks();
        let mut good = VideoOutCycle::new(mode);
        let (good_words, ..) = run(&mut good, clocks, |_| true, &[]);
        let mut bad = VideoOutCycle::new(mode);
        bad.plant_disparity_bug(1);
        let (bad_words, ..) = run(&mut bad, clocks, |_| true, &[]);
        let first = good_words
            .iter()
            .zip(&bad_words)
            .position(|(g, b)| g != b)
            .expect("the bug changes a character");
        let mut rx = DviReceiver::new(mode);
        let mut stopped = None;
        for (i, w) in bad_words.iter().enumerate() {
            if let Err(e) = rx.receive(*w) {
                stopped = Some((i, e));
                break;
            }
        }
        let (at, e) = stopped.expect("the receiver stops the broken encoder");
        // The receiver tracks the disparity from the first control character (the capture
        // starts in active video): it stops at the first wrong character after that.
        let tracked_from = mode.h_active as usize;
        assert!(first < 3 * tracked_from, "the bug shows in the first lines: {first}");
        let want = good_words
            .iter()
            .zip(&bad_words)
            .enumerate()
            .position(|(i, (g, b))| i >= tracked_from && g != b)
            .unwrap();
        assert_eq!(at, want, "{}: {e}", mode.name);
        assert!(e.starts_with(&format!("dvi: pixel clock {want}")), "{e}");
    }
}
