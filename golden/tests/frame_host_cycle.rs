//! The frame host's cycle model on the golden board (`frame_host::FrameHostBench`: the frame
//! host, the board top's cycle model with the SDRAM chip and the DVI receiver, both UART lines
//! at the board's baud rate), driven by the host tool's own protocol code (`protocol::Client`):
//! the default scene's first four primitives uploaded in LOAD BEATS frames and rendered once by
//! RUN FRAME; the FRAME RESULT's display CRC is golden's render's, its cycle count is the board
//! top's own from the first beat offered to the frame's done and golden's `expect_frame`
//! exactly (the feed starts at a video frame's end), and the picture the receiver decoded after
//! the swap is the render. A second run of the scene, at a later video frame, stays within the
//! host's tolerance of it.

use tilerast_golden::bin_setup::frame_beats;
use tilerast_golden::board::board;
use tilerast_golden::frame::frame_memory;
use tilerast_golden::frame_host::{expect_frame, FrameHostBench};
use tilerast_golden::protocol::{display_crc, screen_crc, Client, FrameExpect, FRAME_CYCLES_TOLERANCE};
use tilerast_golden::scene::Scene;
use tilerast_golden::Frame;

/// The default scene's first four primitives at the ULX3S's preset, and golden's expectation
/// of their RUN FRAME (computed once for both tests).
fn scene() -> &'static (Frame, FrameExpect) {
    static SCENE: std::sync::OnceLock<(Frame, FrameExpect)> = std::sync::OnceLock::new();
    SCENE.get_or_init(|| {
        let b = board("ulx3s").unwrap();
        let mut frame = Scene::builtin_default().to_frame(b.frame.unwrap().preset).unwrap();
        frame.prims.truncate(4);
        let e = expect_frame(b, &frame, 20_000_000).unwrap_or_else(|e| panic!("{e}"));
        (frame, e)
    })
}

#[test]
fn a_scene_sent_over_the_uart_comes_back_as_golden_s_crc_and_cycles() {
    let b = board("ulx3s").unwrap();
    let f = b.frame.unwrap();
    let (frame, e) = scene();
    let want = frame_memory(frame, 0).unwrap().image;
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
    // flags: none. The video output's underrun counts from its first vertical blank (the
    // frame before it shows an empty line buffer), and no pixel missed its clock after it
    // (the bench's own count agrees); no SDRAM or map error.
    assert_eq!((r.beats as usize, r.frame, r.shown, r.flags), (beats.len(), 0, 1, 0));
    assert_eq!(bench.top.stats().underruns, 0);
    // Golden's figure: RUN FRAME came before the first video frame's end, so the feed
    // started where expect_frame starts it, and the count is the same exactly.
    assert!(
        first < bench.top.env.board.video.frame_clocks() * u64::from(f.gpu_hz / f.pixel_hz),
        "{first}"
    );
    assert_eq!(u64::from(r.cycles), e.cycles);
    // The same frame again, started at a later video frame's end: the other buffer in front,
    // another phase of the SDRAM's refresh timer, so close but not always equal.
    let again = c.run_frame().unwrap_or_else(|e| panic!("{e}"));
    let ratio = f64::from(again.cycles) / e.cycles as f64;
    println!(
        "second run {} cycles, golden {} (ratio {ratio:.5}, tolerance {FRAME_CYCLES_TOLERANCE})",
        again.cycles, e.cycles
    );
    assert_eq!((again.crc, again.frame, again.shown), (r.crc, 1, 0));
    assert!((ratio - 1.0).abs() <= FRAME_CYCLES_TOLERANCE, "{ratio}");
}

/// `tilerast fpga`'s check of a frame top (`protocol::check_frame`: CLEAR, LOAD BEATS, RUN
/// FRAME, the FRAME RESULT against golden's `expect_frame`) on the golden board behind its
/// UART: the default scene's first four primitives pass, the cycles equal to golden's (the
/// run was sent before the first video frame ended); a board whose display CRC differs is
/// reported on that field.
#[test]
fn tilerast_fpga_s_frame_check_passes_on_the_golden_board_and_names_a_wrong_crc() {
    use tilerast_golden::protocol::check_frame;
    let b = board("ulx3s").unwrap();
    let (frame, e) = scene();
    let mut c = Client::new(FrameHostBench::new(b, b.capacity as usize).unwrap());
    let d = c.ping().unwrap();
    let r = check_frame(&mut c, &d, frame, e, 16).unwrap_or_else(|e| panic!("{e}"));
    println!("{r:?}");
    assert!(r.ratio == 1.0 && r.board.beats as usize == r.golden.beats, "{r:?}");
    // A board that draws another picture (a link that flips the top bit of the first beat's
    // red byte on its way in, the frame's checksum fixed): the display CRC is named.
    let mut c = Client::new(Faulty(FrameHostBench::new(b, b.capacity as usize).unwrap()));
    let d = c.ping().unwrap();
    let e = check_frame(&mut c, &d, frame, e, 16).unwrap_err();
    assert!(e.contains("display CRC"), "{e}");
}

/// A link that corrupts the first record of each LOAD BEATS frame (byte 4 of the record: the
/// colour's red byte, bits 25..33 of the beat) and fixes the frame's checksum.
struct Faulty(FrameHostBench);

impl tilerast_golden::protocol::Link for Faulty {
    fn send(&mut self, bytes: &[u8]) -> Result<(), String> {
        let mut f = bytes.to_vec();
        if f.len() > 9 && f[1] == tilerast_golden::protocol::OP_LOAD_BEATS {
            let old = f[4 + 4];
            f[4 + 4] ^= 0x80;
            let last = f.len() - 1;
            f[last] = f[last].wrapping_sub(f[4 + 4].wrapping_sub(old));
        }
        self.0.send(&f)
    }
    fn recv(&mut self, buf: &mut [u8]) -> Result<usize, String> {
        self.0.recv(buf)
    }
}
