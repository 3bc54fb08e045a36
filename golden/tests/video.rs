//! The video link's reference (`golden::video`): a DVI transmitter's characters for a picture
//! decode back to the picture through the checking receiver, and the receiver stops at the
//! first character, control period or sync that breaks DVI or the mode, at the predicted pixel
//! clock.

use tilerast_golden::video::{format_words, parse_words, DviLink, DviReceiver, LinkWord, VideoMode, VGA_640X480_60};

const MODE: VideoMode = VGA_640X480_60;

fn picture(x: u32, y: u32) -> [u8; 3] {
    [(x * 7 + y) as u8, (y * 3) as u8 ^ (x as u8), ((x ^ y) * 5) as u8]
}

#[test]
fn the_mode_is_640x480_at_60_hz() {
    assert_eq!((MODE.h_total(), MODE.v_total()), (800, 525));
    assert!((MODE.refresh_hz(25.175e6) - 59.94).abs() < 0.01);
    assert!((MODE.refresh_hz(25e6) - 59.52).abs() < 0.01);
    // Negative syncs: low in the pulse only.
    let t = MODE.timing(656, 0);
    assert!(!t.hsync && t.vsync && !t.de);
    assert!(MODE.timing(655, 0).hsync && MODE.timing(752, 0).hsync);
    assert!(!MODE.timing(0, 490).vsync && !MODE.timing(799, 491).vsync && MODE.timing(0, 492).vsync);
    assert!(MODE.timing(639, 479).de && !MODE.timing(640, 479).de && !MODE.timing(0, 480).de);
    let active = (0..MODE.frame_clocks()).filter(|&c| {
        let (x, y) = MODE.position(c);
        MODE.timing(x, y).de
    });
    assert_eq!(active.count(), 640 * 480);
}

/// Two and a half frames of the link, starting mid-frame (as a capture does).
fn capture() -> Vec<LinkWord> {
    let mut link = DviLink::default();
    let words = link.frames(&MODE, 3 * MODE.frame_clocks(), picture);
    words[(MODE.frame_clocks() / 2) as usize..].to_vec()
}

#[test]
fn the_link_decodes_back_to_the_picture() {
    let words = capture();
    let mut rx = DviReceiver::new(MODE);
    rx.receive_all(&words).unwrap();
    assert!(rx.locked());
    // Locked at the first vsync, after half a frame: two whole frames follow.
    assert_eq!(rx.frames.len(), 2);
    for f in &rx.frames {
        assert_eq!((f.width, f.height), (640, 480));
        for (x, y) in [(0, 0), (639, 0), (123, 45), (639, 479), (0, 479)] {
            assert_eq!(f.pixel(x, y), picture(x, y), "({x}, {y})");
        }
        assert!(f
            .rgb
            .iter()
            .enumerate()
            .all(|(i, &p)| p == picture(i as u32 % 640, i as u32 / 640)));
    }
    assert_eq!(rx.frames[1].first_clock - rx.frames[0].first_clock, MODE.frame_clocks());
}

#[test]
fn a_flipped_disparity_bit_is_caught_at_its_first_wrong_character() {
    // A broken encoder: from pixel clock 1000 of the red channel on, bit 1 of its running
    // disparity is flipped before each data character (a stuck or miswired register bit).
    let mut good = DviLink::default();
    let mut bad = DviLink::default();
    let mut words = Vec::new();
    let mut first_diff = None;
    for c in 0..MODE.frame_clocks() {
        let (x, y) = MODE.position(c);
        let t = MODE.timing(x, y);
        let rgb = if t.de { picture(x, y) } else { [0; 3] };
        let want = good.word(t, rgb);
        if c >= 1000 && t.de {
            bad.encoders[2].disparity ^= 2;
        }
        let got = bad.word(t, rgb);
        if got != want && first_diff.is_none() {
            first_diff = Some(c);
        }
        words.push(got);
    }
    let first_diff = first_diff.expect("the flip changes some character");
    let e = DviReceiver::new(MODE).receive_all(&words).unwrap_err();
    assert!(
        e.starts_with(&format!("dvi: pixel clock {first_diff}:")),
        "{e} (predicted {first_diff})"
    );
    assert!(e.contains("channel red") && !e.contains('\n'), "{e}");
}

#[test]
fn sync_and_control_faults_are_caught_at_their_pixel_clock() {
    // hsync one clock too long in the third line after lock: the first clock past the pulse.
    let words = capture();
    let mut rx = DviReceiver::new(MODE);
    // Find the lock: receive until locked.
    let mut i = 0;
    while !rx.locked() {
        rx.receive(words[i]).unwrap();
        i += 1;
    }
    // i is one past the vsync start (frame clock vsync_start); line 494's pulse end:
    let vs = MODE.vsync_start();
    let end_of_pulse = |line: u64| line * 800 + 656 + 96;
    let target = (i as u64 - 1) + end_of_pulse(494) - vs;
    let mut bad = words.clone();
    // The blue channel sends hsync low (active) one clock longer: (vsync, hsync) = (1, 0).
    bad[target as usize][0] = tilerast_golden::tmds_encoder::CONTROL_CHARS[0b10];
    let e = DviReceiver::new(MODE).receive_all(&bad).unwrap_err();
    assert!(
        e.starts_with(&format!("dvi: pixel clock {target} (column 752, line 494): hsync")),
        "{e}"
    );

    // Green sending a non-zero control code in blanking.
    let mut bad = words.clone();
    let k = target as usize + 3;
    bad[k][1] = tilerast_golden::tmds_encoder::CONTROL_CHARS[1];
    let e = DviReceiver::new(MODE).receive_all(&bad).unwrap_err();
    assert!(
        e.starts_with(&format!("dvi: pixel clock {k} ")) && e.contains("green"),
        "{e}"
    );

    // A data character on one channel in blanking.
    let mut bad = words;
    bad[k][2] = 0x2ff;
    let e = DviReceiver::new(MODE).receive_all(&bad).unwrap_err();
    assert!(e.starts_with(&format!("dvi: pixel clock {k} ")), "{e}");
}

#[test]
fn the_text_form_round_trips_and_names_a_bad_line() {
    let words: Vec<LinkWord> = capture().into_iter().take(2000).collect();
    let text = format_words(&words);
    assert_eq!(text.lines().count(), 2000);
    assert_eq!(parse_words("cap.txt", &text).unwrap(), words);
    let bad = text.replacen('\n', "\n1ff 400 000\n", 3);
    let e = parse_words("cap.txt", &bad).unwrap_err();
    assert!(e.starts_with("cap.txt:2: `1ff 400 000`"), "{e}");
    assert!(parse_words("cap.txt", "1 2\n").unwrap_err().starts_with("cap.txt:1:"));
}
