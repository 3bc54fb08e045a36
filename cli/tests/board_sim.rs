//! `tilerast board-sim`: the default scene through the board top's cycle models on the ULX3S.
//! The PNG it writes is `tilerast render`'s picture of the same scene (golden's render, written
//! by another command), and the raw lanes it captures (`--tmds`) decode, through golden's
//! checking DVI receiver, to that same picture in their last whole video frame. Bad arguments
//! get one line and exit code 1.

use std::path::Path;
use std::process::{Command, Output};
use tilerast_golden::video::{parse_words, DviReceiver};

fn run(args: &[&str]) -> Output {
    let mut c = Command::new(env!("CARGO_BIN_EXE_tilerast"));
    c.env_remove("RUST_BACKTRACE");
    c.args(args).output().expect("run tilerast")
}

fn rgb_of_png(p: &Path) -> (u32, u32, Vec<[u8; 3]>) {
    let dec = png::Decoder::new(std::io::BufReader::new(std::fs::File::open(p).unwrap()));
    let mut r = dec.read_info().unwrap();
    let mut buf = vec![0; r.output_buffer_size().unwrap()];
    let info = r.next_frame(&mut buf).unwrap();
    let ch = info.color_type.samples();
    let rgb = buf[..info.buffer_size()]
        .chunks(ch)
        .map(|c| [c[0], c[1], c[2]])
        .collect();
    (info.width, info.height, rgb)
}

#[test]
fn the_default_scene_on_the_ulx3s_is_golden_s_render_on_the_lanes() {
    let d = Path::new(env!("CARGO_TARGET_TMPDIR")).join("board-sim");
    let _ = std::fs::remove_dir_all(&d);
    std::fs::create_dir_all(&d).unwrap();
    let scene = Path::new(env!("CARGO_MANIFEST_DIR")).join("../scenes/default.json");
    let (png, lanes, render) = (d.join("frame.png"), d.join("lanes.txt"), d.join("render.png"));
    let s = |p: &Path| p.display().to_string();
    let o = run(&[
        "board-sim",
        "--board",
        "ulx3s",
        &s(&scene),
        "-o",
        &s(&png),
        "--tmds",
        &s(&lanes),
    ]);
    let out = String::from_utf8_lossy(&o.stdout);
    assert!(o.status.success(), "{out}\n{}", String::from_utf8_lossy(&o.stderr));
    assert!(
        out.contains("picture = golden's render") && out.contains("underruns 0"),
        "{out}"
    );
    // What the frame cost the memory: the back buffer cleared (one write per pixel), the
    // scan-out reading beside the GPU, the SDRAM's data bus busy most of the frame's clocks.
    let mem = out
        .lines()
        .find(|l| l.starts_with("board-sim: the frame's memory (first beat to done): "))
        .unwrap_or_else(|| panic!("no memory line: {out}"));
    // The number after `key` in the line.
    let after = |key: &str| -> f64 {
        mem.split(key)
            .nth(1)
            .and_then(|r| r.split(' ').next())
            .and_then(|v| v.parse().ok())
            .unwrap_or_else(|| panic!("no number after {key:?}: {mem}"))
    };
    let busy = after("data bus busy ");
    assert!(busy > 50.0 && busy <= 100.0, "{mem}");
    assert!(mem.contains(" 307200 of them the back buffer's clear"), "{mem}");
    let scan = after(" reads, ");
    assert!(
        scan > f64::from(640 * 480),
        "the scan-out read at least a video frame: {mem}"
    );
    // The scene went over the UART: loaded, run, and the FRAME RESULT's CRC is the picture's.
    assert!(
        out.contains("over the UART (1000000 baud): 25 beats loaded")
            && out.contains("FRAME RESULT: ")
            && out.contains("to done (= golden's expect_frame)"),
        "{out}"
    );
    let o = run(&["render", &s(&scene), "-o", &s(&render), "--preset", "default"]);
    assert!(o.status.success());
    let (w, h, board) = rgb_of_png(&png);
    assert_eq!((w, h), (640, 480));
    assert_eq!(board, rgb_of_png(&render).2, "board-sim's picture is render's");
    let distinct: std::collections::BTreeSet<[u8; 3]> = board.iter().copied().collect();
    assert!(distinct.len() > 10, "a scene, not a blank screen");
    // The display CRC the board would report is zlib's crc32 of the picture's RGB rows.
    let crc = tilerast_golden::protocol::display_crc(board.iter().copied());
    assert!(
        out.contains(&format!("display CRC {crc:#010x} at the GPU clock")) && out.contains("display CRC = golden's"),
        "{crc:#010x}: {out}"
    );
    // The capture decodes to the same picture in its last whole frame.
    let text = std::fs::read_to_string(&lanes).unwrap();
    let words = parse_words("lanes.txt", &text).unwrap();
    let mode = tilerast_golden::board::board("ulx3s").unwrap().frame.unwrap().video;
    let mut rx = DviReceiver::new(mode);
    rx.receive_all(&words).unwrap();
    assert!(rx.frames.len() >= 3, "{} frames", rx.frames.len());
    assert_eq!(
        rx.frames.last().unwrap().rgb,
        board,
        "the raw lanes decode to the picture"
    );
    assert_ne!(
        rx.frames[0].rgb, board,
        "the first frames show the buffer before the swap"
    );
}

#[test]
fn a_scene_larger_than_the_board_s_scene_buffer_gets_one_line() {
    let d = Path::new(env!("CARGO_TARGET_TMPDIR")).join("board-sim-big");
    std::fs::create_dir_all(&d).unwrap();
    let tri = r#"{"triangle": {"v": [[0, 0], [8, 0], [0, 8]], "colour": [255, 0, 0, 255], "depth": 0.5}}"#;
    let scene = format!(
        r#"{{"config": {{"preset": "default"}}, "primitives": [{}]}}"#,
        vec![tri; 1100].join(", ")
    );
    let p = d.join("big.json");
    std::fs::write(&p, scene).unwrap();
    let o = run(&[
        "board-sim",
        &p.display().to_string(),
        "-o",
        &d.join("x.png").display().to_string(),
    ]);
    let err = String::from_utf8_lossy(&o.stderr);
    assert_eq!(o.status.code(), Some(1), "{err}");
    assert_eq!(err.trim().lines().count(), 1, "{err}");
    assert!(
        err.contains("big.json: 1101 beats") && err.contains("holds 1024"),
        "{err}"
    );
}

#[test]
fn bad_arguments_get_one_line() {
    for (args, needle) in [
        (vec!["board-sim", "--board", "icebreaker"], "no frame row"),
        (vec!["board-sim", "--board", "nope"], "--board"),
        (vec!["board-sim", "--preset", "ice40"], "renders at preset default"),
        (vec!["board-sim", "-o", "x.jpg"], "-o"),
    ] {
        let o = run(&args);
        let err = String::from_utf8_lossy(&o.stderr);
        assert_eq!(o.status.code(), Some(1), "{args:?}: {err}");
        assert_eq!(err.trim().lines().count(), 1, "{args:?}: {err}");
        assert!(err.contains(needle), "{args:?}: {err}");
    }
}
