//! The whole FPGA top (`rtl-out/tilerast_top_icebreaker.v`) in Verilator, talked to through a
//! simulated UART with the host tool's own protocol code (`protocol::Client`,
//! `protocol::check_commands`): PING descriptor, scenes loaded in LOAD frames, RUN in count mode
//! (quads, CRC, position sum and the cycle count equal to the golden cycle model's) and in
//! stream mode (every quad equal to golden, which also equals the transaction-level pipeline),
//! chunking beyond the buffer capacity, and every documented error response (bad checksum,
//! unknown opcode, bad length, bad RUN mode, buffer overflow, UART framing error, timeout of a
//! truncated frame) with the LEDs that go with them.

use tilerast_cosim::top::SimLink;
use tilerast_golden::pipeline::{commands, raster_frame};
use tilerast_golden::protocol::{self, *};
use tilerast_golden::streams::Cmd;
use tilerast_golden::{Config, Quad, Scene};
use tilerast_hw::fpga_top;

const BOARD: &str = "icebreaker";

fn client() -> (Client<SimLink>, Descriptor, Config) {
    let b = fpga_top::board(BOARD).unwrap();
    let link = SimLink::new(BOARD, b.uart_div()).unwrap();
    let mut c = Client::new(link);
    let d = c.ping().expect("PING");
    let cfg = board_config(&d).unwrap();
    (c, d, cfg)
}

/// A shipped scene (its first `prims` primitives) run with the board's preset: the command
/// list and the transaction-level pipeline's quads.
fn scene_cmds(file: &str, cfg: &Config, prims: usize) -> (Vec<Cmd>, Vec<Quad>) {
    let path = format!("{}/../scenes/{file}", env!("CARGO_MANIFEST_DIR"));
    let mut s = Scene::load(std::path::Path::new(&path)).unwrap();
    s.primitives.truncate(prims);
    s.config.clear();
    s.config.insert("preset".into(), cfg.name.clone().into());
    let frame = s.to_frame(file).unwrap();
    assert_eq!(&frame.cfg, cfg);
    let quads = raster_frame(&frame, false)
        .unwrap()
        .quads
        .iter()
        .map(|t| t.quad)
        .collect();
    (commands(&frame).unwrap(), quads)
}

#[test]
fn descriptor_names_the_board() {
    let (c, d, cfg) = client();
    let b = fpga_top::board(BOARD).unwrap();
    assert_eq!(d.version, protocol::VERSION);
    assert_eq!(d.board_name(), BOARD);
    assert_eq!(d.preset_name(), b.preset);
    assert_eq!((d.msaa as u32, d.q as u32), (cfg.msaa, cfg.quads_per_clock));
    assert_eq!(d.capacity as u32, b.capacity);
    assert_eq!(d.loaded, 0);
    assert_eq!(d.clock_mhz as u64, b.clock_hz() / 1_000_000);
    assert!(c.link.top.cycle > 0);
}

#[test]
fn scene_count_and_stream_equal_golden() {
    let (mut c, d, cfg) = client();
    // Points (all kinds of sizes / AA) and triangles of a mesh, on the ice40 preset.
    let (mut cmds, mut quads) = scene_cmds("points.json", &cfg, usize::MAX);
    let (c2, q2) = scene_cmds("mesh.json", &cfg, 24);
    // The second scene's primitive ids follow the first's, so the two lists concatenate.
    let off = cmds.iter().map(|x| x.prim + 1).max().unwrap_or(0);
    cmds.extend(c2.iter().map(|x| Cmd {
        prim: x.prim + off,
        ..*x
    }));
    quads.extend(q2.iter().map(|q| Quad {
        prim: q.prim + off,
        ..*q
    }));
    assert!(
        cmds.len() > 40 && cmds.len() <= d.capacity as usize,
        "{} commands",
        cmds.len()
    );
    let rep = check_commands(&mut c, &d, &cfg, &cmds, 16, true).unwrap_or_else(|e| panic!("{e}"));
    assert_eq!(rep.len(), 1);
    let r = &rep[0];
    eprintln!(
        "{} commands: board {:?}, golden cycles {}, stream {:?}, simulated cycles {}",
        cmds.len(),
        r.board,
        r.golden.cycles,
        r.streamed,
        c.link.top.cycle
    );
    // Non-trivial: quads came out, and the golden expectation is the pipeline's own quad list.
    assert!(r.board.quads > 100, "{:?}", r.board);
    assert_eq!(r.board.quads as usize, quads.len());
    assert_eq!(
        summarize(&quads, cfg.msaa),
        RunResult {
            commands: 0,
            cycles: 0,
            ..r.golden
        }
    );
    assert_eq!(r.board.cycles, r.golden.cycles);
    assert!(
        r.board.cycles as usize >= quads.len(),
        "Q = 1: at least one cycle per quad"
    );
    let (n, stream_cycles) = r.streamed.unwrap();
    assert_eq!(n, quads.len());
    assert!(stream_cycles > r.board.cycles, "stream mode is UART-bound");
    // LEDs: running was on for about the run's cycles, no error.
    let leds = c.link.take_leds();
    assert_eq!(leds & 0b1110, 0b0110, "leds seen {leds:04b}");
    assert!(c.link.running_cycles >= stream_cycles as u64);
    assert_eq!(c.link.leds_now & 0b1000, 0);
    assert_eq!(c.link.de.framing_errors, 0);
}

#[test]
fn lists_beyond_the_capacity_run_in_chunks() {
    let (mut c, d, cfg) = client();
    let (cmds, _) = scene_cmds("mesh.json", &cfg, usize::MAX);
    assert!(cmds.len() > d.capacity as usize, "{} commands", cmds.len());
    let rep = check_commands(&mut c, &d, &cfg, &cmds, 64, false).unwrap_or_else(|e| panic!("{e}"));
    assert_eq!(rep.len(), cmds.len().div_ceil(d.capacity as usize));
    assert_eq!(rep.iter().map(|r| r.commands).sum::<usize>(), cmds.len());
    assert!(rep.iter().all(|r| r.board.quads > 0 && r.board == r.golden));
}

#[test]
fn empty_list_runs_in_zero_cycles() {
    let (mut c, _, _) = client();
    c.clear().unwrap();
    let (r, q) = c.run(MODE_COUNT).unwrap();
    assert_eq!(r, RunResult::default());
    assert!(q.is_empty());
}

fn expect_error(c: &mut Client<SimLink>, bytes: &[u8], code: u8, op: u8) {
    match c.raw(bytes) {
        Ok(Response::Error { code: g, op: o }) => {
            assert_eq!((g, o), (code, op), "expected {} ({code})", error_name(code))
        }
        r => panic!("expected error {code} ({}), got {r:?}", error_name(code)),
    }
    assert_eq!(c.link.leds_now & 0b1000, 0b1000, "error LED on");
}

#[test]
fn bad_frames_get_the_documented_errors_and_change_nothing() {
    let (mut c, d, cfg) = client();
    let (cmds, _) = scene_cmds("points.json", &cfg, usize::MAX);
    c.clear().unwrap();
    assert_eq!(c.load(&cmds[..5], 5).unwrap(), 5);

    // Corrupted frame: one payload byte flipped in a LOAD.
    let mut f = host_frame(OP_LOAD, &encode_cmd(&cmds[5]));
    f[10] ^= 0x40;
    expect_error(&mut c, &f, E_CHECKSUM, OP_LOAD);
    // Unknown opcode with a correct checksum.
    expect_error(&mut c, &host_frame(0x77, &[1, 2, 3]), E_OPCODE, 0x77);
    // LOAD payload not a multiple of the record size.
    expect_error(&mut c, &host_frame(OP_LOAD, &[0u8; CMD_BYTES + 3]), E_LENGTH, OP_LOAD);
    // PING with a payload, RUN without a mode byte, RUN with a bad mode.
    expect_error(&mut c, &host_frame(OP_PING, &[0]), E_LENGTH, OP_PING);
    expect_error(&mut c, &host_frame(OP_RUN, &[]), E_LENGTH, OP_RUN);
    expect_error(&mut c, &host_frame(OP_RUN, &[2]), E_MODE, OP_RUN);
    // A good command clears the error LED and the list is untouched.
    let d2 = c.ping().unwrap();
    assert_eq!(d2.loaded, 5);
    assert_eq!(c.link.leds_now & 0b1000, 0);

    // Overflow: fill to capacity, then one more record is refused as a whole.
    let fill: Vec<Cmd> = cmds.iter().cycle().take(d.capacity as usize - 5).copied().collect();
    assert_eq!(c.load(&fill, 64).unwrap(), d.capacity);
    expect_error(&mut c, &host_frame(OP_LOAD, &encode_cmd(&cmds[0])), E_CAPACITY, OP_LOAD);
    assert_eq!(c.ping().unwrap().loaded, d.capacity);

    // UART framing error inside a frame: the frame is abandoned at once with E_UART (the rest
    // of it is skipped while looking for the next sync byte).
    c.clear().unwrap();
    let f = host_frame(OP_PING, &[]);
    c.link.ser.push(&f[..2]);
    c.link.ser.push_bad_stop(f[2]);
    expect_error(&mut c, &f[3..], E_UART, OP_PING);

    // Truncated frame: the board gives up after the documented timeout.
    let f = host_frame(OP_LOAD, &encode_cmd(&cmds[0]));
    let t0 = c.link.top.cycle;
    expect_error(&mut c, &f[..10], E_TIMEOUT, OP_LOAD);
    let waited = c.link.top.cycle - t0;
    assert!(
        (TIMEOUT_CYCLES..TIMEOUT_CYCLES + 60_000).contains(&waited),
        "answered after {waited} cycles"
    );
    // Garbage before a frame is skipped; the board still answers.
    let mut g = vec![0x00, 0x13, 0xff];
    g.extend(host_frame(OP_PING, &[]));
    assert!(matches!(c.raw(&g), Ok(Response::Desc(_))));
    assert_eq!(c.parser_skipped(), 0);
    let (r, _) = c.run(MODE_COUNT).unwrap();
    assert_eq!(r.commands, 0);
}
