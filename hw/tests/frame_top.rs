//! The ULX3S board top with a screen (`rtl-out/tilerast_top_ulx3s_frame.v`,
//! `hw/src/fpga_top/frame_top.rs`): its PLL against the frame row, its built-in scene ROM read
//! back through the board top's `inp` slices against golden's beats of `scenes/default.json`,
//! and the pin-level logic under Icarus in its simulation clocking, around a stand-in for the
//! board top's ports: the beats the board top takes are golden's, each once, in order, and the
//! TMDS bit streams the ODDRX1F inputs carry, cut into characters at the clock lane's edges,
//! are the video output's characters, one per pixel clock, in order.

use std::collections::BTreeMap;
use std::path::PathBuf;
use std::process::Command;
use tilerast_golden::board::board;
use tilerast_golden::streams::{ports, PrimIn, Stream};
use tilerast_hw::fpga_top::frame_top;

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

/// `.inp__<field>(beat[hi:lo])` of the board top's instance.
fn slices(text: &str) -> BTreeMap<String, (u32, u32)> {
    let mut m = BTreeMap::new();
    for l in text.lines() {
        let l = l.trim();
        let Some(rest) = l.strip_prefix(".inp__") else { continue };
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

/// The ROM's beats as bit strings (MSB first), from its `case` lines.
fn rom(text: &str) -> Vec<Vec<bool>> {
    let mut out = Vec::new();
    for l in text.lines() {
        let Some((_, lit)) = l.split_once(": scene_rom = {") else {
            continue;
        };
        let mut bits = Vec::new();
        for part in lit.trim_end_matches("};").split(", ") {
            let (w, h) = part.split_once("'h").unwrap();
            let w: usize = w.trim().parse().unwrap();
            let v = u64::from_str_radix(h.trim(), 16).unwrap();
            bits.extend((0..w).rev().map(|i| v >> i & 1 == 1));
        }
        out.push(bits);
    }
    out
}

#[test]
fn the_scene_rom_read_through_the_board_top_s_inp_is_golden_s_beats() {
    let text = top_text();
    let sl = slices(&text);
    let fields = <ports::PrimIn as Stream>::FIELDS;
    assert_eq!(sl.len(), fields.len(), "every field of PrimIn connected: {sl:?}");
    let rom = rom(&text);
    let want = golden_beats();
    assert!(
        want.len() > 3 && want.last().unwrap().end,
        "primitives, then the end beat"
    );
    assert_eq!(rom.len(), want.len());
    for (i, (bits, w)) in rom.iter().zip(&want).enumerate() {
        let n = bits.len() as u32;
        let vals: Vec<u64> = fields
            .iter()
            .map(|f| {
                let (hi, lo) = sl[f.name];
                assert_eq!(hi - lo + 1, f.width, "{}: slice width", f.name);
                (lo..=hi)
                    .rev()
                    .fold(0u64, |a, k| a << 1 | bits[(n - 1 - k) as usize] as u64)
            })
            .collect();
        let got = <ports::PrimIn as Stream>::from_bits(&vals);
        assert_eq!(&got, w, "beat {i}");
    }
}

/// The Icarus testbench: the top in its simulation clocking (`clk_25mhz` is the VCO), the
/// SDRAM data pins pulled down, a stand-in board top; it prints each beat the board top takes (`F`), the word
/// registers at each pixel clock (`P`) and the two bits each lane's ODDRX1F takes at each bit
/// clock (`B`).
const TB: &str = r#"
`timescale 1ns/1ps
module tb;
    reg clk = 1'b0;
    wire ftdi_rxd;
    wire [7:0] led;
    wire wifi_gpio0;
    wire [3:0] gpdi_dp;
    wire sdram_clk, sdram_cke, sdram_csn, sdram_wen, sdram_rasn, sdram_casn;
    wire [12:0] sdram_a;
    wire [1:0] sdram_ba;
    wire [1:0] sdram_dqm;
    tri0 [15:0] sdram_d;
    tilerast_top_ulx3s_frame dut(.clk_25mhz(clk), .ftdi_txd(1'b1), .ftdi_rxd(ftdi_rxd), .led(led),
        .wifi_gpio0(wifi_gpio0), .gpdi_dp(gpdi_dp), .sdram_clk(sdram_clk), .sdram_cke(sdram_cke),
        .sdram_csn(sdram_csn), .sdram_wen(sdram_wen), .sdram_rasn(sdram_rasn), .sdram_casn(sdram_casn),
        .sdram_a(sdram_a), .sdram_ba(sdram_ba), .sdram_dqm(sdram_dqm), .sdram_d(sdram_d));
    always #1 clk = ~clk;
    always @(posedge dut.gpu_clock)
        if (dut.in_valid && dut.in_ready) $display("F %0d %h", dut.feed_index, dut.beat);
    always @(posedge dut.pixel_clock)
        $display("P %h %h %h", dut.word_blue, dut.word_green, dut.word_red);
    always @(posedge dut.bit_clock)
        $display("B %b%b %b%b %b%b %b%b", dut.shift_blue[1], dut.shift_blue[0], dut.shift_green[1],
            dut.shift_green[0], dut.shift_red[1], dut.shift_red[0], dut.shift_clock[1], dut.shift_clock[0]);
    initial begin
        #(2 * VCO_CYCLES);
        $display("END wifi_gpio0=%b sdram_cke=%b", wifi_gpio0, sdram_cke);
        $finish;
    end
endmodule

// The board top's ports with stand-in behaviour (the board top itself is proven against its cycle
// model in cosim/tests/board_top.rs; under Icarus it would take hours): beats taken on a
// pseudo-random ready, TMDS characters from counters, valid from the 8th pixel clock.
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
    always @(posedge gpu_clock) lfsr <= {lfsr[6:0], lfsr[7] ^ lfsr[5] ^ lfsr[4] ^ lfsr[3]};
    assign in_ready = lfsr[0];
    always @(posedge pixel_clock) begin
        if (pixels != 4'd8) pixels <= pixels + 4'd1;
        tmds_valid <= pixels == 4'd8;
        tmds__blue <= tmds__blue + 10'd1;
        tmds__green <= tmds__green + 10'd7;
        tmds__red <= tmds__red - 10'd3;
    end
    assign {cs_n, ras_n, cas_n, we_n, dq_oe, done_valid, front, shown, underrun, error, map_error, crc_toggle} = 12'b111100000000;
    assign {ba, dqm, sdram_addr, dq_out, done_frame, frame_crc} = 0;
endmodule
"#;

/// VCO cycles simulated: 2 000 pixel clocks (every beat of the scene is taken in the first
/// hundred GPU clocks).
const VCO_CYCLES: u64 = 40_000;

fn icarus_run() -> String {
    let dir = root().join("target/frame_top_tb");
    std::fs::create_dir_all(&dir).unwrap();
    let tb = dir.join("tb.v");
    std::fs::write(&tb, TB.replace("VCO_CYCLES", &VCO_CYCLES.to_string())).unwrap();
    let list = [root().join("rtl-out").join(frame_top::rtl_file_name("ulx3s"))];
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

#[test]
fn under_icarus_the_top_feeds_golden_s_beats_and_serialises_every_character() {
    let out = icarus_run();
    let want = golden_beats();
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
        out.contains("END wifi_gpio0=1 sdram_cke=1"),
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
