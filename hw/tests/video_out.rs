//! rust-hdl simulation of `VideoOut` against its cycle model `VideoOutCycle` at the small test
//! mode (8 × 3 active, 15 × 6 clocks a frame): `in_ready`, `out`, `vblank` and `underrun` on
//! every cycle, and the display CRC (`frame_crc`, `crc_toggle`). With the pixels always there
//! and the output never stalled, the characters decode through the checking DVI receiver to
//! the picture, whose `display_crc` the block's `frame_crc` is; with input gaps (underruns),
//! random back-pressure and a flush, the block still equals its model, and the activity is
//! asserted (underruns, stalls, blanking, frames).

mod common;

use common::Run;
use tilerast_golden::cycle::CycleModel;
use tilerast_golden::streams::VideoPixel;
use tilerast_golden::video::DviReceiver;
use tilerast_golden::video_out::{VideoOutCycle, TEST_MODE};
use tilerast_hw::video_out::VideoOut;
use tilerast_verif::{Flush, Handshake, Pattern};

fn picture(x: u32, y: u32) -> [u8; 3] {
    [
        (x * 37 + y * 11) as u8,
        (y * 71) as u8 ^ (x as u8),
        ((x ^ y) * 45 + 3) as u8,
    ]
}

/// The picture's pixels in raster order, frame after frame.
fn pixels() -> impl Iterator<Item = VideoPixel> + Send {
    let m = TEST_MODE;
    (0..).map(move |i: u32| {
        let p = i % (m.h_active * m.v_active);
        let [red, green, blue] = picture(p % m.h_active, p / m.h_active);
        VideoPixel { red, green, blue }
    })
}

#[test]
fn the_characters_decode_to_the_picture() {
    let hs = Handshake::new(Pattern::Always, Pattern::Always);
    let cycles = 4 * TEST_MODE.frame_clocks();
    let report = Run::new(hs, 1, cycles).go(VideoOut::new(&TEST_MODE), VideoOutCycle::new(TEST_MODE), pixels());
    println!("{}", report.summary());
    report.assert_clean("video_out");
    assert_eq!(
        report.transferred,
        cycles - 1,
        "one pixel clock per cycle after the first"
    );
    assert_eq!(report.accepted, 4 * 24, "every active pixel clock took a pixel");
    let mut rx = DviReceiver::new(TEST_MODE);
    for w in report.outputs() {
        rx.receive([w.blue, w.green, w.red]).unwrap();
    }
    assert!(rx.frames.len() >= 2, "{} frames", rx.frames.len());
    let f = rx.frames.last().unwrap();
    for y in 0..TEST_MODE.v_active {
        for x in 0..TEST_MODE.h_active {
            assert_eq!(f.pixel(x, y), picture(x, y), "({x}, {y})");
        }
    }
    // frame_crc (compared with the model's on every cycle) is the decoded picture's CRC, and
    // it loaded once per frame.
    let mut model = VideoOutCycle::new(TEST_MODE);
    let mut toggles = 0;
    for s in &report.trace {
        let before = model.frame_crc().1;
        model.clock(s.in_valid, &s.input, s.out_ready, s.flush);
        toggles += usize::from(model.frame_crc().1 != before);
    }
    assert_eq!(
        model.frame_crc().0,
        tilerast_golden::protocol::display_crc(f.rgb.iter().copied())
    );
    assert_eq!(toggles, 4);
}

#[test]
fn gaps_stalls_and_a_flush_match_the_model() {
    let ready = Pattern::RandomStalls {
        pct: 85,
        permille: 20,
        min: 5,
        max: 25,
    };
    let hs = Handshake::new(Pattern::gaps(3), ready).with_flush(Flush::At(500));
    let report = Run::new(hs, 7, 1400).go(VideoOut::new(&TEST_MODE), VideoOutCycle::new(TEST_MODE), pixels());
    println!("{}", report.summary());
    report.assert_clean("video_out");
    assert_eq!(report.flushes, 1);
    assert!(report.longest_stall >= 5, "no long stall");
    assert!(report.transferred > 800, "only {} pixel clocks out", report.transferred);
    assert!(report.accepted > 150, "only {} pixels taken", report.accepted);
    // The extra outputs, which the run compared on every cycle, moved: replayed through the
    // model, underrun rose (the gaps) and vblank rose and fell.
    let mut model = VideoOutCycle::new(TEST_MODE);
    let mut seen = std::collections::BTreeSet::new();
    for s in &report.trace {
        seen.insert(("underrun", model.underrun()));
        seen.insert(("vblank", model.vblank()));
        model.clock(s.in_valid, &s.input, s.out_ready, s.flush);
    }
    for port in ["underrun", "vblank"] {
        for v in [false, true] {
            assert!(seen.contains(&(port, v)), "{port} never {v}");
        }
    }
    // The display CRC loaded several different values (the gaps black different pixels).
    let mut model = VideoOutCycle::new(TEST_MODE);
    let mut crcs = std::collections::BTreeSet::new();
    for s in &report.trace {
        model.clock(s.in_valid, &s.input, s.out_ready, s.flush);
        crcs.insert(model.frame_crc().0);
    }
    assert!(crcs.len() >= 4, "{crcs:x?}");
}

#[test]
fn verilog_lints_clean() {
    let top = "video_out_test";
    let v = tilerast_hw::video_out::verilog(&TEST_MODE, top);
    assert!(tilerast_hw::emit::rangeless_signed_localparams(&v).is_empty(), "{top}");
    if let Err(msg) = tilerast_hw::emit::lint(&v, top) {
        panic!("{top}: lint:\n{msg}");
    }
}
