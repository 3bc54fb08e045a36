//! The ULX3S board top with a screen (`rtl-out/tilerast_top_ulx3s_frame.v`,
//! `hw/src/fpga_top/frame_top.rs`): its PLL against the frame row, the beat's slices between
//! the frame host's `out` and the board top's `inp` against the stream's declaration, and the
//! pin-level logic under Icarus in its simulation clocking (the UART and the frame host as
//! generated, a stand-in for the board top's ports): the host's frames go in on `ftdi_txd` bit
//! by bit, the answers decoded from `ftdi_rxd` are the protocol's (DESC, ACK), the beats the
//! board top takes are golden's, each once, in order, and the TMDS bit streams the ODDRX1F
//! inputs carry, cut into characters at the clock lane's edges, are the video output's
//! characters, one per pixel clock, in order.

use std::collections::BTreeMap;
use std::path::PathBuf;
use std::process::Command;
use tilerast_golden::board::board;
use tilerast_golden::protocol::uart::Deserializer;
use tilerast_golden::protocol::{
    encode_beat, host_frame, FrameParser, OP_LOAD_BEATS, OP_PING, OP_RUN_FRAME, T_ACK, T_DESC,
};
use tilerast_golden::streams::{ports, PrimIn, Stream};
use tilerast_hw::fpga_top::frame_top;
use tilerast_hw::uart::frame_uart_top_name;

fn root() -> PathBuf {
    PathBuf::from(env!("CARGO_MANIFEST_DIR")).join("..")
}

/// Golden's beats of the shipped default scene at the frame row's preset (read from the
/// scene file, as `board-sim` loads it).
fn golden_beats() -> Vec<PrimIn> {
    let b = board("ulx3s").unwrap();
    let f = b.frame.unwrap();
    let mut scene = tilerast_golden::scene::Scene::load(&root().join("scenes/default.json")).unwrap();
    scene
        .config
        .insert("preset".into(), serde_json::Value::String(f.preset.into()));
    let frame = scene.to_frame("scenes/default.json").unwrap();
    tilerast_golden::bin_setup::frame_beats(&frame.prims, frame.background).unwrap()
}

fn top_text() -> String {
    std::fs::read_to_string(root().join("rtl-out").join(frame_top::rtl_file_name("ulx3s"))).unwrap()
}

#[test]
fn the_pll_makes_the_frame_row_s_four_clocks_from_one_vco() {
    let b = board("ulx3s").unwrap();
    let f = b.frame.unwrap();
    let p = frame_top::frame_pll(b, &f).unwrap();
    assert_eq!(p.vco_hz, 500_000_000);
    // Feedback from CLKOP: CLKOP = osc · CLKFB_DIV / CLKI_DIV.
    assert_eq!(
        b.osc_hz as u64 * p.clkfb_div as u64 / p.clki_div as u64,
        f.bit_hz as u64
    );
    let hz = p.out_div.map(|d| p.vco_hz / d as u64);
    assert_eq!(
        hz,
        [f.bit_hz, f.sdram_hz, f.gpu_hz, f.pixel_hz].map(u64::from),
        "bit, memory, GPU, pixel"
    );
    assert_eq!(f.bit_hz, 5 * f.pixel_hz, "a 10-bit character in 5 DDR bit clocks");
    let text = top_text();
    for (name, d) in ["CLKOP", "CLKOS", "CLKOS2", "CLKOS3"].iter().zip(p.out_div) {
        assert!(
            text.contains(&format!(".{name}_DIV({d})")),
            "{name}_DIV({d}) in the top"
        );
    }
}

/// `.<iface>__<field>(beat[hi:lo])` of an instance.
fn slices(text: &str, iface: &str) -> BTreeMap<String, (u32, u32)> {
    let mut m = BTreeMap::new();
    for l in text.lines() {
        let l = l.trim();
        let Some(rest) = l.strip_prefix(&format!(".{iface}__")) else {
            continue;
        };
        if !rest.contains("(beat[") {
            continue;
        }
        let (name, r) = rest.split_once("(beat[").unwrap();
        let r = r.split(']').next().unwrap();
        let (hi, lo) = match r.split_once(':') {
            Some((h, l)) => (h.parse().unwrap(), l.parse().unwrap()),
            None => (r.parse().unwrap(), r.parse().unwrap()),
        };
        m.insert(name.to_string(), (hi, lo));
    }
    m
}

#[test]
fn the_frame_host_s_out_and_the_board_top_s_inp_slice_the_beat_as_declared() {
    let text = top_text();
    let fields = <ports::PrimIn as Stream>::FIELDS;
    let mut hi: u32 = fields.iter().map(|f| f.width).sum();
    let want: BTreeMap<String, (u32, u32)> = fields
        .iter()
        .map(|f| {
            hi -= f.width;
            (f.name.to_string(), (hi + f.width - 1, hi))
        })
        .collect();
    assert_eq!(hi, 0);
    assert_eq!(slices(&text, "inp"), want, "the board top's inp");
    assert_eq!(slices(&text, "out"), want, "the frame host's out");
}

/// The Icarus testbench: the top in its simulation clocking (`clk_25mhz` is the VCO), the
/// SDRAM data pins pulled down, a stand-in board top; `ftdi_txd` driven with the bytes of
/// `bytes.hex` (8N1, DIV GPU clocks a bit; a pause of GAP byte times after byte AFTER0 and
/// after byte AFTER1, for the answers). It prints each beat the board top takes (`F`), each
/// change of `ftdi_rxd` with its GPU clock (`R`), and for the first SER_TIME ns the word
/// registers at each pixel clock (`P`) and the two bits each lane's ODDRX1F takes at each bit
/// clock (`B`).
const TB: &str = r#"
`timescale 1ns/1ps
module tb;
    reg clk = 1'b0;
    reg txd = 1'b1;
    wire ftdi_rxd;
    wire [7:0] led;
    wire wifi_gpio0;
    wire [3:0] gpdi_dp;
    wire sdram_clk, sdram_cke, sdram_csn, sdram_wen, sdram_rasn, sdram_casn;
    wire [12:0] sdram_a;
    wire [1:0] sdram_ba;
    wire [1:0] sdram_dqm;
    tri0 [15:0] sdram_d;
    tilerast_top_ulx3s_frame dut(.clk_25mhz(clk), .ftdi_txd(txd), .ftdi_rxd(ftdi_rxd), .led(led),
        .wifi_gpio0(wifi_gpio0), .gpdi_dp(gpdi_dp), .sdram_clk(sdram_clk), .sdram_cke(sdram_cke),
        .sdram_csn(sdram_csn), .sdram_wen(sdram_wen), .sdram_rasn(sdram_rasn), .sdram_casn(sdram_casn),
        .sdram_a(sdram_a), .sdram_ba(sdram_ba), .sdram_dqm(sdram_dqm), .sdram_d(sdram_d));
    always #1 clk = ~clk;
    reg [7:0] bytes [0:NBYTES-1];
    initial $readmemh("HEXFILE", bytes);
    integer fed = 0;
    integer gpu = 0;
    reg rxd_last = 1'b1;
    always @(posedge dut.gpu_clock) begin
        gpu <= gpu + 1;
        if (dut.in_valid && dut.in_ready) begin
            $display("F %0d %h", fed, dut.beat);
            fed <= fed + 1;
        end
        if (ftdi_rxd != rxd_last) $display("R %0d %b", gpu, ftdi_rxd);
        rxd_last <= ftdi_rxd;
    end
    always @(posedge dut.pixel_clock)
        if ($time < SER_TIME) $display("P %h %h %h", dut.word_blue, dut.word_green, dut.word_red);
    always @(posedge dut.bit_clock)
        if ($time < SER_TIME)
            $display("B %b%b %b%b %b%b %b%b", dut.shift_blue[1], dut.shift_blue[0], dut.shift_green[1],
                dut.shift_green[0], dut.shift_red[1], dut.shift_red[0], dut.shift_clock[1], dut.shift_clock[0]);
    task send_byte(input [7:0] b);
        integer k;
        begin
            txd = 1'b0;
            repeat (DIV) @(posedge dut.gpu_clock);
            for (k = 0; k < 8; k = k + 1) begin
                txd = b[k];
                repeat (DIV) @(posedge dut.gpu_clock);
            end
            txd = 1'b1;
            repeat (DIV) @(posedge dut.gpu_clock);
        end
    endtask
    integer i;
    initial begin
        repeat (20) @(posedge dut.gpu_clock);
        for (i = 0; i < NBYTES; i = i + 1) begin
            send_byte(bytes[i]);
            if (i == AFTER0 || i == AFTER1) repeat (GAP * 10 * DIV) @(posedge dut.gpu_clock);
        end
        repeat (200) @(posedge dut.gpu_clock);
        $display("END wifi_gpio0=%b sdram_cke=%b led=%b", wifi_gpio0, sdram_cke, led);
        $finish;
    end
endmodule

// The board top's ports with stand-in behaviour (the board top itself is proven against its cycle
// model in cosim/tests/board_top.rs; under Icarus it would take hours): beats taken on a
// pseudo-random ready, TMDS characters from counters, valid from the 8th pixel clock, the
// display CRC's toggle flipping every 128 GPU clocks (RUN FRAME's feed waits for a flip).
module tilerast_board_top_ulx3s(clock, gpu_clock, pixel_clock, flush, in_valid, in_ready, inp__kind, inp__v0x,
    inp__v0y, inp__v1x, inp__v1y, inp__v2x, inp__v2y, inp__size, inp__aa, inp__colour, inp__depth, inp__end,
    tmds_valid, tmds_ready, tmds__blue, tmds__green, tmds__red, dq_in, cs_n, ras_n, cas_n, we_n, ba, sdram_addr,
    dqm, dq_out, dq_oe, done_valid, done_frame, front, shown, underrun, error, map_error, frame_crc, crc_toggle);
    input wire clock, gpu_clock, pixel_clock, flush, in_valid;
    output wire in_ready;
    input wire inp__kind, inp__aa, inp__end;
    input wire [23:0] inp__v0x, inp__v0y, inp__v1x, inp__v1y, inp__v2x, inp__v2y, inp__size, inp__depth;
    input wire [31:0] inp__colour;
    output reg tmds_valid = 1'b0;
    input wire tmds_ready;
    output reg [9:0] tmds__blue = 10'd0, tmds__green = 10'd300, tmds__red = 10'd700;
    input wire [15:0] dq_in;
    output wire cs_n, ras_n, cas_n, we_n, dq_oe, done_valid, front, shown, underrun, error, map_error, crc_toggle;
    output wire [31:0] frame_crc;
    output wire [1:0] ba, dqm;
    output wire [12:0] sdram_addr;
    output wire [15:0] dq_out;
    output wire [7:0] done_frame;
    reg [7:0] lfsr = 8'h5a;
    reg [3:0] pixels = 4'd0;
    reg [6:0] toggle_count = 7'd0;
    reg toggle = 1'b0;
    always @(posedge gpu_clock) lfsr <= {lfsr[6:0], lfsr[7] ^ lfsr[5] ^ lfsr[4] ^ lfsr[3]};
    always @(posedge gpu_clock) begin
        toggle_count <= toggle_count + 7'd1;
        if (toggle_count == 7'd127) toggle <= ~toggle;
    end
    assign crc_toggle = toggle;
    assign in_ready = lfsr[0];
    always @(posedge pixel_clock) begin
        if (pixels != 4'd8) pixels <= pixels + 4'd1;
        tmds_valid <= pixels == 4'd8;
        tmds__blue <= tmds__blue + 10'd1;
        tmds__green <= tmds__green + 10'd7;
        tmds__red <= tmds__red - 10'd3;
    end
    assign {cs_n, ras_n, cas_n, we_n, dq_oe, done_valid, front, shown, underrun, error, map_error} = 11'b11110000000;
    assign {ba, dqm, sdram_addr, dq_out, done_frame, frame_crc} = 0;
endmodule
"#;

/// The host's frames: PING, LOAD BEATS (golden's first two primitives and the end beat), RUN
/// FRAME; the beats loaded.
fn host_bytes() -> (Vec<u8>, [usize; 2], Vec<PrimIn>) {
    let all = golden_beats();
    let beats = vec![all[0], all[1], *all.last().unwrap()];
    let ping = host_frame(OP_PING, &[]);
    let load = host_frame(OP_LOAD_BEATS, &beats.iter().flat_map(encode_beat).collect::<Vec<u8>>());
    let run = host_frame(OP_RUN_FRAME, &[]);
    let after = [ping.len() - 1, ping.len() + load.len() - 1];
    ([ping, load, run].concat(), after, beats)
}

fn icarus_run() -> String {
    let b = board("ulx3s").unwrap();
    let dir = root().join("target/frame_top_tb");
    std::fs::create_dir_all(&dir).unwrap();
    let (bytes, after, _) = host_bytes();
    let hex = dir.join("bytes.hex");
    let text: String = bytes.iter().map(|v| format!("{v:02x}\n")).collect();
    std::fs::write(&hex, text).unwrap();
    let tb = dir.join("tb.v");
    let div = b.frame_uart_div().unwrap();
    std::fs::write(
        &tb,
        TB.replace("NBYTES", &bytes.len().to_string())
            .replace("HEXFILE", &hex.display().to_string())
            .replace("SER_TIME", "80000")
            .replace("AFTER0", &after[0].to_string())
            .replace("AFTER1", &after[1].to_string())
            .replace("GAP", "20")
            .replace("DIV", &div.to_string()),
    )
    .unwrap();
    // The top, the UART and the frame host as generated: their file lists (dependencies
    // first, each file once), without the board top's, which the stand-in replaces.
    let rtl = root().join("rtl-out");
    let mut list: Vec<PathBuf> = Vec::new();
    for top in [frame_uart_top_name("ulx3s"), tilerast_hw::frame_host::top_name("ulx3s")] {
        let f = std::fs::read_to_string(rtl.join(format!("{top}.f"))).unwrap();
        for name in f.lines().map(str::trim).filter(|l| !l.is_empty()) {
            if !list.contains(&rtl.join(name)) {
                list.push(rtl.join(name));
            }
        }
    }
    list.push(rtl.join(frame_top::rtl_file_name("ulx3s")));
    let vvp = dir.join("tb.vvp");
    let mut c = Command::new("iverilog");
    c.args(["-g2012", "-s", "tb", "-o"]).arg(&vvp).arg(&tb).args(&list);
    eprintln!("+ {c:?}");
    let o = c.output().expect("iverilog (apt-get install -y iverilog)");
    assert!(o.status.success(), "{}", String::from_utf8_lossy(&o.stderr));
    let o = Command::new("vvp").arg("-n").arg(&vvp).output().expect("vvp");
    assert!(o.status.success(), "{}", String::from_utf8_lossy(&o.stderr));
    String::from_utf8(o.stdout).unwrap()
}

/// The bytes on `ftdi_rxd`, from its changes (`R gpu_clock level`), through golden's UART
/// line model at the board's divisor.
fn answer_bytes(out: &str, div: u32) -> Vec<u8> {
    let mut changes: Vec<(u64, bool)> = out
        .lines()
        .filter_map(|l| l.strip_prefix("R "))
        .map(|l| {
            let (t, v) = l.split_once(' ').unwrap();
            (t.parse().unwrap(), v == "1")
        })
        .collect();
    let end = changes.last().map_or(0, |c| c.0) + 20 * u64::from(div);
    changes.push((end, true));
    let mut rx = Deserializer::new(div);
    let (mut level, mut got) = (true, Vec::new());
    let mut next = changes.iter().peekable();
    for t in 0..end {
        while next.peek().is_some_and(|c| c.0 <= t) {
            level = next.next().unwrap().1;
        }
        got.extend(rx.tick(level));
    }
    got
}

#[test]
fn under_icarus_the_top_feeds_golden_s_beats_and_serialises_every_character() {
    let out = icarus_run();
    let (_, _, want) = host_bytes();
    // The answers on ftdi_rxd: DESC (the frame magic, the board's capacity, nothing loaded),
    // then ACK with the three beats loaded.
    let b = board("ulx3s").unwrap();
    let mut p = FrameParser::default();
    let answers = p.push(&answer_bytes(&out, b.frame_uart_div().unwrap()));
    assert_eq!(answers.len(), 2, "{answers:?}");
    let (t, desc) = answers[0].clone().unwrap();
    assert_eq!((t, &desc[..2]), (T_DESC, &b"TF"[..]));
    assert_eq!(u16::from_le_bytes([desc[7], desc[8]]), b.capacity as u16);
    assert_eq!(answers[1], Ok((T_ACK, 3u16.to_le_bytes().to_vec())));
    let fields = <ports::PrimIn as Stream>::FIELDS;
    let n: u32 = fields.iter().map(|f| f.width).sum();
    // Beats the board top took: indices 0, 1, 2, … and golden's values.
    let mut fed = 0;
    for l in out.lines().filter_map(|l| l.strip_prefix("F ")) {
        let (i, hex) = l.split_once(' ').unwrap();
        assert_eq!(i.parse::<usize>().unwrap(), fed, "beats in order");
        let bits: Vec<bool> = hex
            .chars()
            .flat_map(|c| {
                let v = c.to_digit(16).unwrap();
                (0..4).rev().map(move |k| v >> k & 1 == 1)
            })
            .collect();
        let bits = &bits[bits.len() - n as usize..];
        let mut at = 0;
        let vals: Vec<u64> = fields
            .iter()
            .map(|f| {
                let v = bits[at..at + f.width as usize]
                    .iter()
                    .fold(0u64, |a, &b| a << 1 | b as u64);
                at += f.width as usize;
                v
            })
            .collect();
        assert_eq!(<ports::PrimIn as Stream>::from_bits(&vals), want[fed], "beat {fed}");
        fed += 1;
    }
    assert_eq!(fed, want.len(), "every beat taken, once");
    assert!(
        out.contains("END wifi_gpio0=1 sdram_cke=1 led=00000010"),
        "wifi_gpio0 and sdram_cke held high"
    );

    // The four lanes' bit streams (bit 0 of a character first: D0, then D1).
    let mut lanes: [Vec<bool>; 4] = Default::default();
    for l in out.lines().filter_map(|l| l.strip_prefix("B ")) {
        for (k, pair) in l.split(' ').enumerate() {
            let p: Vec<bool> = pair.chars().map(|c| c == '1').collect();
            lanes[k].push(p[1]);
            lanes[k].push(p[0]);
        }
    }
    // Character boundaries: the clock lane's 0 → 1 edges (its pattern 0000011111 goes out as
    // five ones, then five zeros).
    let clock = &lanes[3];
    let starts: Vec<usize> = (1..clock.len()).filter(|&i| clock[i] && !clock[i - 1]).collect();
    assert!(starts.len() > 1000, "{} clock-lane characters", starts.len());
    for w in starts.windows(2) {
        assert_eq!(w[1] - w[0], 10, "one character per 10 bits");
        assert!(clock[w[0]..w[0] + 5].iter().all(|&b| b) && clock[w[0] + 5..w[1]].iter().all(|&b| !b));
    }
    let chars = |lane: &[bool]| -> Vec<u16> {
        starts
            .iter()
            .filter(|&&s| s + 10 <= lane.len())
            .map(|&s| (0..10).fold(0u16, |a, k| a | (lane[s + k] as u16) << k))
            .collect()
    };
    let sent = [chars(&lanes[0]), chars(&lanes[1]), chars(&lanes[2])];
    // The word registers at each pixel clock (the value they held through the clock before).
    let words: Vec<[u16; 3]> = out
        .lines()
        .filter_map(|l| l.strip_prefix("P "))
        .map(|l| {
            let v: Vec<u16> = l.split(' ').map(|h| u16::from_str_radix(h, 16).unwrap()).collect();
            [v[0], v[1], v[2]]
        })
        .collect();
    let distinct: std::collections::BTreeSet<[u16; 3]> = words.iter().copied().collect();
    assert!(
        distinct.len() >= 3,
        "the video output sends different characters: {distinct:?}"
    );
    // The serialised characters are the words, in order, at one fixed latency.
    let sent_rows: Vec<[u16; 3]> = (0..sent[0].len())
        .map(|i| [sent[0][i], sent[1][i], sent[2][i]])
        .collect();
    let probe = &sent_rows[10..60];
    let at = (0..words.len() - probe.len())
        .find(|&o| &words[o..o + probe.len()] == probe)
        .unwrap_or_else(|| panic!("characters sent {:?} not among the words", &probe[..4]));
    let n = sent_rows.len().min(words.len() - at + 10) - 10;
    for i in 0..n {
        assert_eq!(
            sent_rows[10 + i],
            words[at + i],
            "character {} (pixel clock {})",
            10 + i,
            at + i
        );
    }
    assert!(n > 1000, "{n} characters compared");
}
