//! The frame host's cycle model on the golden board (`frame_host::FrameHostBench`: the frame
//! host, the board top's cycle model with the SDRAM chip and the DVI receiver, both UART lines
//! at the board's baud rate), driven by the host tool's own protocol code (`protocol::Client`):
//! the default scene's first four primitives uploaded in LOAD BEATS frames and rendered once by
//! RUN FRAME; the FRAME RESULT's display CRC is golden's render's, its cycle count is the board
//! top's own from the first beat offered to the frame's done, and the picture the receiver
//! decoded after the swap is the render.

use tilerast_golden::bin_setup::frame_beats;
use tilerast_golden::board::board;
use tilerast_golden::frame::frame_memory;
use tilerast_golden::frame_host::FrameHostBench;
use tilerast_golden::protocol::{display_crc, expect_frame, screen_crc, Client, FLAG_UNDERRUN};
use tilerast_golden::scene::Scene;

#[test]
fn a_scene_sent_over_the_uart_comes_back_as_golden_s_crc_and_cycles() {
    let b = board("ulx3s").unwrap();
    let f = b.frame.unwrap();
    let mut frame = Scene::builtin_default().to_frame(f.preset).unwrap();
    frame.prims.truncate(4);
    let want = frame_memory(&frame, 0).unwrap().image;
    let beats = frame_beats(&frame.prims, frame.background).unwrap();
    let mut c = Client::new(FrameHostBench::new(b, 64).unwrap());
    let d = c.ping().unwrap();
    assert!(d.frame_top && d.capacity == 64, "{d:?}");
    assert_eq!(c.load_beats(&beats, 2), Ok(beats.len() as u16));
    let r = c.run_frame().unwrap_or_else(|e| panic!("{e}"));
    let bench = &c.link;
    println!(
        "{r:?}; first beat offered at GPU cycle {:?}; frames {:?}",
        bench.first_offer, bench.top.frames
    );
    // The display CRC: the render's, and the picture the receiver decoded last.
    assert_eq!(r.crc, screen_crc(&want, 1));
    let last = bench.top.env.receiver.frames.last().expect("video frames decoded");
    assert_eq!(display_crc(last.rgb.iter().copied()), r.crc);
    // The cycles: the board top's own count from the first beat offered to the done.
    let done = bench.top.frames[0].gpu_cycle;
    let first = bench.first_offer.unwrap();
    assert!(first > 10_000, "the upload took its UART time first: {first}");
    assert_eq!(u64::from(r.cycles), done - first + 1);
    // flags: only underrun, which the video output raised at power-up (its first frame's
    // active video comes before the first walk has filled the line buffer) and keeps; no
    // underrun after the first walk started (the bench's own count), no SDRAM or map error.
    assert_eq!(
        (r.beats as usize, r.frame, r.shown, r.flags),
        (beats.len(), 0, 1, FLAG_UNDERRUN)
    );
    assert_eq!(bench.top.stats().underruns, 0);
    // Beside golden's count from power-up: the same work at another phase of the video and the
    // refresh, so close but not equal.
    let e = expect_frame(b, &frame, 20_000_000).unwrap();
    let ratio = f64::from(r.cycles) / e.cycles as f64;
    println!(
        "cycles {} here, {} from power-up (ratio {ratio:.4})",
        r.cycles, e.cycles
    );
    assert!((0.95..1.05).contains(&ratio), "{ratio}");
}
