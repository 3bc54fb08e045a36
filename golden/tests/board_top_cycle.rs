//! The board top's memory and display half (`golden::board_top::DisplayPath`: the ULX3S's
//! SDRAM controller and chip, the memory arbiter, the scan-out, the clock-crossing line buffer,
//! the video output, a DVI receiver on the lanes) against the reference: a framebuffer in the
//! SDRAM is the picture the receiver decodes, frame after frame, row H − 1 at the top, with no
//! pixel missing at its clock, while the GPU's port floods the memory with reads and writes and
//! gets what the scan-out leaves; the chip model sees no datasheet rule broken. The planted
//! fault (the arbiter serving the GPU first) starves the scan-out: an underrun, a wrong picture.
//! The whole board top renders a scene into the SDRAM and the lanes carry golden's render; the
//! issue's planted faults at board level: a too-short tRCD stopped by the chip model, a broken
//! TMDS encoder caught by the receiver, a swap that does not wait for vertical blank caught as a
//! torn frame (a decoded frame that is no whole picture).

use tilerast_golden::board::board;
use tilerast_golden::board_top::DisplayPath;
use tilerast_golden::rng::Rng;
use tilerast_golden::scan_out::pixel_of;
use tilerast_golden::streams::MemReq;

const BASE: u32 = 0x0020_0000;

fn word(pos: u32) -> u32 {
    Rng::mix(0xb0a2d, u64::from(pos)) as u32
}

/// The ULX3S display path showing a preloaded framebuffer at `BASE`, the GPU's port flooded
/// with `gpu` requests outside it.
fn display(gpu: usize) -> DisplayPath {
    let f = board("ulx3s").unwrap().frame.unwrap();
    let mut d = DisplayPath::new(f, BASE).unwrap();
    for pos in 0..640 * 480 {
        d.env.preload(BASE + 4 * pos, word(pos)).unwrap();
    }
    let mut r = Rng::stream(5, 0);
    d.gpu.extend((0..gpu).map(|_| {
        let write = r.chance(50);
        MemReq {
            addr: 0x0080_0000 + 4 * r.below(1 << 20) as u32,
            write,
            wdata: r.next_u32(),
            be: if write { 0xf } else { 0 },
        }
    }));
    d
}

/// Pixels of decoded frame `k` that differ from the framebuffer.
fn wrong_pixels(d: &DisplayPath, k: usize) -> usize {
    let f = &d.env.receiver.frames[k];
    (0..480u32)
        .flat_map(|y| (0..640u32).map(move |x| (x, y)))
        .filter(|&(x, y)| {
            let p = pixel_of(word((479 - y) * 640 + x));
            f.pixel(x, y) != [p.red, p.green, p.blue]
        })
        .count()
}

#[test]
fn the_framebuffer_is_the_picture_on_the_lanes_beside_a_flooding_gpu() {
    let mut d = display(4_000_000);
    d.run_frames(2, 8_000_000).unwrap();
    let st = d.stats();
    println!(
        "{st:?}, scan-out {:?}, sdram {:?}",
        d.block.scan_out.stats(),
        d.block.sdram.stats()
    );
    assert_eq!((wrong_pixels(&d, 0), wrong_pixels(&d, 1)), (0, 0));
    assert_eq!(st.underruns, 0, "no pixel missing at its clock");
    // The video output's sticky flag (the FRAME RESULT's underrun) agrees: it counts from the
    // first vertical blank, before which the line buffer is empty.
    assert!(!d.block.video_out.underrun(), "the sticky underrun stayed low");
    assert!(st.peak_line_words <= 512 && st.peak_line_words > 400, "{st:?}");
    // Random addresses over 4 MiB: nearly every GPU access opens a row.
    assert!(
        st.gpu_requests > 400_000 && st.gpu_answers > 200_000,
        "the GPU gets the rest: {st:?}"
    );
    assert!(
        d.block.scan_out.stats().credit_waits > 100_000,
        "the line buffer fills: the scan-out waits on its credits"
    );
    assert!(d.env.violation.is_none());
}

#[test]
fn a_gpu_served_first_starves_the_scan_out() {
    let mut d = display(4_000_000);
    d.plant_gpu_first();
    let _ = d.run_frames(1, 4_000_000);
    let st = d.stats();
    println!("{st:?}");
    assert!(st.underruns > 1_000, "{st:?}");
    assert!(d.block.video_out.underrun(), "the sticky underrun rose");
    assert!(d.env.receiver.frames.is_empty() || wrong_pixels(&d, 0) > 1_000);
}

/// The whole board top (`golden::board_top::BoardTop`): the frame top renders a few of the
/// default scene's primitives into the SDRAM through the double buffer and the GPU port's
/// crossings; after its swap the picture on the lanes is golden's render (`frame_memory`'s
/// image), pixel for pixel, with no pixel missing at its clock and no datasheet rule broken.
#[test]
fn the_board_shows_golden_s_render_of_a_scene() {
    use tilerast_golden::bin_setup::frame_beats;
    use tilerast_golden::board_top::BoardTop;
    use tilerast_golden::frame::frame_memory;
    use tilerast_golden::scene::Scene;
    let mut frame = Scene::builtin_default().to_frame("default").unwrap();
    frame.prims.truncate(4);
    let want = frame_memory(&frame, 0).unwrap().image;
    let beats = frame_beats(&frame.prims, frame.background).unwrap();
    let mut b = BoardTop::new(board("ulx3s").unwrap(), beats).unwrap();
    let got = b.run(1, 20_000_000).unwrap_or_else(|e| panic!("{e}"));
    let st = b.stats();
    println!(
        "{st:?}\n{:?}\n{:?}\ngpu cycles {}",
        b.block.double_buffer.stats(),
        b.frames,
        b.gpu_cycles
    );
    let wrong = (0..480u32)
        .flat_map(|y| (0..640u32).map(move |x| (x, y)))
        .filter(|&(x, y)| {
            let i = 4 * (y * 640 + x) as usize;
            got.pixel(x, y) != [want.rgba[i], want.rgba[i + 1], want.rgba[i + 2]]
        })
        .count();
    assert_eq!(wrong, 0, "pixels unlike golden's render");
    assert_eq!(st.underruns, 0);
    assert_eq!(b.frames.len(), 1);
    assert!(b.block.double_buffer.stats().clear_writes >= 640 * 480);
    let distinct: std::collections::BTreeSet<[u8; 3]> = got.rgb.iter().copied().collect();
    assert!(distinct.len() > 3, "a picture, not a blank screen");
    // The FRAME RESULT's CRC: the decoded picture's is the render's screen CRC (golden's
    // expectation of a RUN FRAME, `frame_host::expect_frame`, is checked against the UART
    // run's in `golden/tests/frame_host_cycle.rs`).
    use tilerast_golden::protocol::{display_crc, screen_crc};
    let crc = display_crc(got.rgb.iter().copied());
    assert_eq!(crc, screen_crc(&want, 1));
    // The video output's display CRC, brought into the GPU clock, is the decoded picture's (the
    // last two video frames showed the same buffer).
    assert_eq!(b.block.frame_crc().0, crc);
}

/// The board top rendering one frame per background (four primitives of the default scene
/// each), `plant` applied to it; and golden's image of each frame.
fn board_top(
    backgrounds: &[[u8; 4]],
    plant: impl FnOnce(&mut tilerast_golden::board_top::BoardTop),
) -> (
    tilerast_golden::board_top::BoardTop,
    Vec<tilerast_golden::output_merger::Image>,
) {
    use tilerast_golden::bin_setup::frame_beats;
    use tilerast_golden::board_top::BoardTop;
    use tilerast_golden::frame::frame_memory;
    use tilerast_golden::scene::Scene;
    let mut frame = Scene::builtin_default().to_frame("default").unwrap();
    frame.prims.truncate(4);
    let mut beats = vec![];
    let mut images = vec![];
    for (k, bg) in backgrounds.iter().enumerate() {
        frame.background = *bg;
        images.push(frame_memory(&frame, k as u8).unwrap().image);
        beats.extend(frame_beats(&frame.prims, frame.background).unwrap());
    }
    let mut b = BoardTop::new(board("ulx3s").unwrap(), beats).unwrap();
    plant(&mut b);
    (b, images)
}

/// The SDRAM controller's planted tRCD bug (READ and WRITE a clock early) on the board: the
/// chip model stops the run with one line naming the cycle and the rule.
#[test]
fn a_too_short_trcd_is_stopped_by_the_chip_model() {
    let (mut b, _) = board_top(&[[20, 20, 40, 255]], |b| b.block.display.sdram.plant_bug());
    let e = b.run(1, 20_000_000).unwrap_err();
    println!("{e}");
    assert!(e.starts_with("sdram chip: sdram: cycle ") && e.contains("tRCD"), "{e}");
    assert_eq!(e.lines().count(), 1);
}

/// The video output's planted disparity bug (bit 1 of every encoder's running disparity
/// flipped at each data character): the DVI receiver stops at the first wrong character.
#[test]
fn a_broken_tmds_encoder_is_caught_by_the_receiver() {
    let (mut b, _) = board_top(&[[20, 20, 40, 255]], |b| {
        b.block.display.video_out.plant_disparity_bug(1)
    });
    let e = b.run(1, 20_000_000).unwrap_err();
    println!("{e}");
    assert!(e.starts_with("dvi: pixel clock "), "{e}");
}

/// Two frames: every decoded video frame is a whole picture (the power-up screen, frame 0's,
/// frame 1's); with the double buffer's planted bug (the back buffer cleared and drawn without
/// waiting for the scan-out to leave it) a decoded frame is none of them: a torn frame.
#[test]
fn a_swap_that_does_not_wait_for_vertical_blank_tears_a_frame() {
    let backgrounds = [[20, 20, 40, 255], [60, 10, 10, 255]];
    let torn = |bug: bool| {
        let (mut b, images) = board_top(&backgrounds, |b| {
            if bug {
                b.block.double_buffer.plant_no_vblank_wait_bug();
            }
        });
        b.run(2, 40_000_000).unwrap_or_else(|e| panic!("{e}"));
        let pictures: Vec<Vec<[u8; 3]>> = images
            .iter()
            .map(|im| im.rgba.chunks(4).map(|p| [p[0], p[1], p[2]]).collect())
            .chain(std::iter::once(vec![[0u8; 3]; 640 * 480]))
            .collect();
        let frames = &b.env.receiver.frames;
        let shown: Vec<Option<usize>> = frames
            .iter()
            .map(|f| pictures.iter().position(|p| *p == f.rgb))
            .collect();
        println!("bug {bug}: decoded frames as pictures (0, 1: the frames, 2: power-up): {shown:?}");
        assert!(shown.contains(&Some(1)), "frame 1 shown");
        shown.iter().filter(|s| s.is_none()).count()
    };
    assert_eq!(torn(false), 0, "every frame whole");
    assert!(torn(true) > 0, "the planted bug tears a frame");
}
