//! Verilator co-simulation of the video output (`rtl-out/tilerast_video_out_ulx3s.v`, the
//! ULX3S frame row's 640×480 at 60 Hz) against its cycle model `VideoOutCycle`, every port on
//! every cycle (harness: `tilerast_cosim::blocks`), and the DVI receiver
//! (`golden::video::DviReceiver`) on what it sends:
//! - with the pixels always there and the serialisers always taking, two whole frames decode
//!   to the picture, every character and sync checked;
//! - under input gaps (underruns), back-pressure with long stalls and flushes, the block
//!   equals its model on every port, `underrun` and `vblank` included;
//! - the planted bug of `cosim/build/mutation.rs` (the TMDS encoder's disparity register loads
//!   with bit 1 inverted) is caught at the cycle and port predicted from the model with the
//!   same bug, and the DVI receiver stops the mutant's characters at the predicted clock.

use std::sync::{Arc, Mutex};
use tilerast_cosim::blocks::cosim_lockstep;
use tilerast_golden::board::board;
use tilerast_golden::streams::{ports, DviWord, VideoPixel};
use tilerast_golden::video::{DviReceiver, VideoMode};
use tilerast_golden::video_out::VideoOutCycle;
use tilerast_verif::lockstep::{first_difference, Lockstep};
use tilerast_verif::lockstep::{BlockRun, BlockStim};

fn mode() -> VideoMode {
    board("ulx3s").unwrap().frame.unwrap().video
}

fn picture(x: u32, y: u32) -> [u8; 3] {
    [(x * 3 + y) as u8, (y * 5) as u8 ^ (x as u8), ((x ^ y) * 9 + 7) as u8]
}

/// The picture's pixels in raster order (one frame; the source offers them again and again).
fn pixels(m: &VideoMode) -> Vec<VideoPixel> {
    (0..m.v_active)
        .flat_map(|y| (0..m.h_active).map(move |x| (x, y)))
        .map(|(x, y)| {
            let [red, green, blue] = picture(x, y);
            VideoPixel { red, green, blue }
        })
        .collect()
}

/// No gaps, no back-pressure, no flush: the board's steady state.
fn steady(seed: u64, cycles: u64) -> BlockStim {
    BlockStim {
        seed,
        cycles,
        gap_pct: 0,
        junk_pct: 0,
        ready_pct: 100,
        stall_permille: 0,
        stall_len: (1, 1),
        flush_at: vec![],
    }
}

/// The DVI receiver's verdict on a run's characters, and the receiver.
fn receive(words: &[DviWord]) -> (Result<(), String>, DviReceiver) {
    let mut rx = DviReceiver::new(mode());
    for w in words {
        if let Err(e) = rx.receive([w.blue, w.green, w.red]) {
            return (Err(e), rx);
        }
    }
    (Ok(()), rx)
}

fn sent(ls: &Lockstep<VideoOutCycle>) -> Vec<DviWord> {
    ls.bench
        .get::<tilerast_verif::lockstep::Sink<ports::DviWord>>("out")
        .received
        .clone()
}

#[test]
fn two_frames_decode_to_the_picture() {
    let m = mode();
    // The receiver locks at the first vsync (line 490): frames 2 and 3 decode whole.
    let cycles = 3 * m.frame_clocks() + 1_000;
    let s = steady(1, cycles);
    let mut ls = Lockstep::new(
        VideoOutCycle::new(m),
        s.bench::<ports::VideoPixel, ports::DviWord>(&pixels(&m)),
    );
    cosim_lockstep("ulx3s", &mut ls, cycles, None).unwrap_or_else(|e| panic!("{e}"));
    assert!(!ls.model.underrun(), "no pixel was missing");
    let words = sent(&ls);
    assert_eq!(words.len() as u64, cycles - 1);
    let (verdict, rx) = receive(&words);
    verdict.unwrap();
    assert_eq!(rx.frames.len(), 2, "two whole frames after the first vsync");
    for f in &rx.frames {
        for y in 0..m.v_active {
            for x in 0..m.h_active {
                assert_eq!(f.pixel(x, y), picture(x, y), "({x}, {y})");
            }
        }
    }
}

#[test]
fn rtl_matches_cycle_model_ulx3s_under_gaps_stalls_and_flushes() {
    let m = mode();
    // Enough progress under back-pressure to reach the vertical blanking before and after the
    // flush (384 000 pixel clocks of active video).
    let cycles = 1_200_000;
    let s = BlockStim {
        seed: 0x71de0,
        cycles,
        gap_pct: 2,
        ready_pct: 95,
        stall_permille: 1,
        stall_len: (20, 400),
        flush_at: vec![600_001],
        ..BlockStim::default()
    };
    // What `underrun` and `vblank` were, cycle by cycle (the run compares them with the RTL).
    let seen = Arc::new(Mutex::new([[0u64; 2]; 2]));
    let log = seen.clone();
    let mut ls = Lockstep::new(
        VideoOutCycle::new(m),
        s.bench::<ports::VideoPixel, ports::DviWord>(&pixels(&m)),
    )
    .watching(move |_, model| {
        let mut l = log.lock().unwrap();
        l[0][usize::from(model.underrun())] += 1;
        l[1][usize::from(model.vblank())] += 1;
    });
    cosim_lockstep("ulx3s", &mut ls, cycles, None).unwrap_or_else(|e| panic!("{e}"));
    let run = BlockRun::<DviWord>::of::<ports::VideoPixel, ports::DviWord>(&ls.bench, cycles);
    let seen = *seen.lock().unwrap();
    println!(
        "{} pixels taken, {} pixel clocks out, longest stall {}, {} flushes; underrun 0/1 {:?}, vblank 0/1 {:?}",
        run.accepted,
        run.outputs.len(),
        run.longest_stall,
        run.flushes,
        seen[0],
        seen[1]
    );
    assert!(
        run.accepted > 500_000 && run.outputs.len() > 900_000,
        "too little traffic"
    );
    assert!(run.longest_stall >= 100 && run.flushes == 1 && run.busy_flushes == 1);
    // Input gaps in active video are underruns once a vertical blank has been sent (sticky:
    // low through the first frame, and after the flush until the first gap after the next
    // vertical blank); vblank covers the blanking lines of both frames.
    assert!(seen[0][0] > 400_000 && seen[0][1] > 100_000, "underrun: {:?}", seen[0]);
    assert!(seen[1][0] > 500_000 && seen[1][1] > 40_000, "vblank: {:?}", seen[1]);
}

#[test]
fn the_planted_disparity_bug_is_caught_at_the_predicted_cycle_and_by_the_receiver() {
    let m = mode();
    let cycles = m.frame_clocks() + 10_000;
    let s = steady(2, cycles);
    let bench = || s.bench::<ports::VideoPixel, ports::DviWord>(&pixels(&m));
    let mut good = Lockstep::new(VideoOutCycle::new(m), bench());
    let mut bad_model = VideoOutCycle::new(m);
    bad_model.plant_disparity_bug(1);
    let mut bad = Lockstep::new(bad_model.clone(), bench());
    let (pc, pp) = first_difference(&mut good, &mut bad, cycles)
        .unwrap()
        .expect("the bug changes a character");
    println!("predicted: cycle {pc}, {pp}");
    // The mutant against the clean model: caught at the predicted cycle and port.
    let mut ls = Lockstep::new(VideoOutCycle::new(m), bench());
    let e = cosim_lockstep("ulx3s_mut", &mut ls, cycles, None).expect_err("the mutant is caught");
    println!("caught: {}", e.ports_line());
    assert_eq!((e.cycle, e.port.as_str()), (pc, pp.as_str()));
    // The mutant equals the model with the same bug on every cycle; the receiver stops its
    // characters at the first wrong one it can check (it tracks the disparity from the first
    // control character, clock h_active): word i is pixel clock i (sent at cycle i + 1).
    let mut ls = Lockstep::new(bad_model, bench());
    cosim_lockstep("ulx3s_mut", &mut ls, cycles, None).unwrap_or_else(|e| panic!("{e}"));
    let bad_words = sent(&ls);
    // The clean model's characters over the same cycles (model and bench only).
    let mut good = Lockstep::new(VideoOutCycle::new(m), bench());
    for _ in 0..cycles {
        good.step().unwrap();
    }
    let good_words = sent(&good);
    let want = good_words
        .iter()
        .zip(&bad_words)
        .enumerate()
        .position(|(i, (g, b))| i >= m.h_active as usize && g != b)
        .expect("a wrong character after the first control period");
    let (verdict, _) = receive(&bad_words);
    let e = verdict.expect_err("the receiver stops the broken encoder");
    println!("receiver: {e}");
    let rest = e.strip_prefix(&format!("dvi: pixel clock {want}")).unwrap_or("?");
    assert!(rest.starts_with([':', ' ']), "{e} (want {want})");
}
