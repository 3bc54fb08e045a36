//! # top_&lt;board&gt;_frame: the board top with a screen, pins and clocks (issue 35)
//!
//! **Role.** The pin-level top of a board with a frame row (`tilerast_top_ulx3s_frame`): the
//! board's cells around [`crate::board_top`] (the GPU, the SDRAM path and the video output, in
//! its three clocks), as text generated from the board table:
//!
//! ```text
//!  clk_25mhz ─► EHXPLLL ─┬─ CLKOP  bit clock (5 × pixel) ─► serialiser ─► ODDRX1F ×4 ─► gpdi_dp[3:0]
//!  (sim: the testbench's │                                   ▲ words + toggle (pixel clock)
//!   VCO; dividers)       ├─ CLKOS  memory clock ─┐             │
//!                        ├─ CLKOS2 GPU clock ────┼─► board_top ┴─ tmds (blue, green, red)
//!                        └─ CLKOS3 pixel clock ──┘   │  ▲ inp ◄── frame_host ◄─ UART ◄─ ftdi_txd
//!                                                    │  │  done, front, shown,   └─► UART ─► ftdi_rxd
//!                    sdram_* ◄── pins ───────────────┘  │  display CRC, flags ──►  (GPU clock)
//!                                                       └ sdram_d (tristate: dq_oe)
//!  sdram_clk ◄─ ODDRX1F (the memory clock, 0°)      led[7:0] ◄─ status   wifi_gpio0 = 1
//! ```
//!
//! **Clocks.** One EHXPLLL: every clock of the frame row divides its VCO
//! ([`FrameBoard::pll_vco_hz`]); feedback from CLKOP (the bit clock). In simulation
//! (`` `ifndef SYNTHESIS ``) `clk_25mhz` stands for the VCO and flops divide it, so a testbench
//! toggling it sees the four clocks in their real ratios.
//!
//! **TMDS serialiser.** The pixel clock registers the three channels' words (blanking
//! characters while `tmds_valid` is low) and flips a toggle; the bit clock brings the toggle
//! through two flops and loads the four 10-bit shift registers (the clock lane's pattern
//! `0000011111`) when it sees the toggle change, two to three bit clocks after the words
//! changed and as many before they change again: a crossing that holds for any phase between
//! the two clocks. Two bits per bit clock go out through `ODDRX1F` (D0 first: bit 0 is sent
//! first), so a 10-bit character takes 5 bit clocks = one pixel clock.
//!
//! **Scene and UART.** The host loads a scene's beats and runs it over the UART
//! (`tilerast_golden::protocol`, "The frame top's frames"): `tilerast_uart_<board>`
//! ([`crate::uart::UartPort`], 8N1 at the board's baud rate, at the GPU clock) between the
//! FTDI pins and [`crate::frame_host`] (`tilerast_frame_host_<board>`), which offers the beats
//! to the board top and answers with the FRAME RESULT. The frame host is flushed until
//! `locked` has come through two GPU-clock flops; the board top's sticky `underrun` and
//! `error` (memory clock) reach its `flags` through two GPU-clock flops each.
//!
//! **SDRAM pins.** `sdram_d` is driven while `dq_oe`; `sdram_clk` is the memory clock through
//! an `ODDRX1F` (D0 = 1, D1 = 0: in phase, so a command the controller registers at edge k is
//! sampled by the chip at edge k + 1, the cycle model's convention); `sdram_cke` is 1.
//!
//! **LEDs.** 0 heartbeat (GPU clock), 1 a RUN FRAME going on, 2 frame done (sticky), 3
//! `front`, 4 `shown`, 5 underrun (sticky), 6 SDRAM error (sticky), 7 map error (sticky).

use std::fmt::Write as _;
use tilerast_golden::board::{ecp5_pll, Board, FrameBoard, PllKind};
use tilerast_golden::streams::{ports, Stream};

/// Top module name of `board`'s frame top.
pub fn top_name(board: &str) -> String {
    format!("tilerast_top_{board}_frame")
}

/// File name in `rtl-out/`.
pub fn rtl_file_name(board: &str) -> String {
    format!("{}.v", top_name(board))
}

/// The four PLL output dividers (bit, memory, GPU, pixel) and the input and feedback dividers.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct FramePll {
    pub clki_div: u32,
    pub clkfb_div: u32,
    /// CLKOP (bit), CLKOS (memory), CLKOS2 (GPU), CLKOS3 (pixel).
    pub out_div: [u32; 4],
    pub vco_hz: u64,
}

/// The PLL of `board`'s frame row: feedback from the bit clock, each clock a divider of the
/// VCO. `Err` names the clock that no setting reaches exactly.
pub fn frame_pll(board: &Board, f: &FrameBoard) -> Result<FramePll, String> {
    if board.pll != PllKind::Ecp5 {
        return Err(format!("board {}: the frame top needs an ECP5 PLL", board.name));
    }
    let vco = f.pll_vco_hz().ok_or_else(|| {
        format!(
            "board {}: no VCO in 400..800 MHz that every clock of the frame row divides",
            board.name
        )
    })?;
    let p = ecp5_pll(board.osc_hz, f.bit_hz);
    if p.hz != f.bit_hz as u64 || p.hz * p.clkop_div as u64 != vco {
        return Err(format!(
            "board {}: bit clock {} Hz: the PLL reaches {} Hz at VCO {} Hz, not {} Hz at VCO {vco} Hz",
            board.name,
            f.bit_hz,
            p.hz,
            p.hz * p.clkop_div as u64,
            f.bit_hz
        ));
    }
    let div = |hz: u32| (vco / hz as u64) as u32;
    Ok(FramePll {
        clki_div: p.clki_div,
        clkfb_div: p.clkfb_div,
        out_div: [div(f.bit_hz), div(f.sdram_hz), div(f.gpu_hz), div(f.pixel_hz)],
        vco_hz: vco,
    })
}

/// The full text of `rtl-out/tilerast_top_<board>_frame.v`: the pin-level top alone (its
/// `board_top` instance is the module of `rtl-out/tilerast_board_top_<board>.v`, which the
/// file list `tilerast_top_<board>_frame.f` names), or `None` for a board without a frame row.
pub fn rtl_file(board: &Board) -> Option<Result<String, String>> {
    let f = board.frame.as_ref()?;
    let top = top_name(board.name);
    Some(top_verilog(board, f).map(|v| {
        format!(
            "// generated by `cargo run -p tilerast-hw --bin gen-rtl` — do not edit\n\
             // lint-clean with: {}\n//\n{v}",
            crate::lint_top_command(&top)
        )
    }))
}

fn top_verilog(board: &Board, f: &FrameBoard) -> Result<String, String> {
    let pll = frame_pll(board, f)?;
    let width: u32 = <ports::PrimIn as Stream>::FIELDS.iter().map(|x| x.width).sum();
    let top = top_name(board.name);
    let inner = format!("tilerast_board_top_{}", board.name);
    let host = crate::frame_host::top_name(board.name);
    let uart = crate::uart::frame_uart_top_name(board.name);
    let mut v = String::new();
    let _ = writeln!(
        v,
        "// {top}: the pin-level board top (hw/src/fpga_top/frame_top.rs): EHXPLLL ({} Hz in, VCO {} Hz: bit {} Hz,\n\
         // memory {} Hz, GPU {} Hz, pixel {} Hz), the TMDS serialisers (ODDRX1F), the SDRAM pins, the UART\n\
         // and the frame host (scene upload, RUN FRAME, FRAME RESULT), status LEDs. Pins: constraints/{}_frame.lpf\n\
         // (the board's ulx3s_v20.lpf names). In simulation clk_25mhz is the VCO and flops divide it.",
        board.osc_hz, pll.vco_hz, f.bit_hz, f.sdram_hz, f.gpu_hz, f.pixel_hz, board.name
    );
    let d = pll.out_div;
    let _ = write!(
        v,
        r#"module {top}(clk_25mhz, ftdi_txd, ftdi_rxd, led, wifi_gpio0, gpdi_dp, sdram_clk, sdram_cke, sdram_csn,
    sdram_wen, sdram_rasn, sdram_casn, sdram_a, sdram_ba, sdram_dqm, sdram_d);
    input wire clk_25mhz;
    input wire ftdi_txd;
    output wire ftdi_rxd;
    output wire [7:0] led;
    output wire wifi_gpio0;
    output wire [3:0] gpdi_dp;
    output wire sdram_clk;
    output wire sdram_cke;
    output wire sdram_csn;
    output wire sdram_wen;
    output wire sdram_rasn;
    output wire sdram_casn;
    output wire [12:0] sdram_a;
    output wire [1:0] sdram_ba;
    output wire [1:0] sdram_dqm;
    inout wire [15:0] sdram_d;

    // ---- Clocks: one PLL.
    wire bit_clock;
    wire memory_clock;
    wire gpu_clock;
    wire pixel_clock;
    wire locked;
`ifdef SYNTHESIS
    (* FREQUENCY_PIN_CLKI="{osc_mhz}" *) (* FREQUENCY_PIN_CLKOP="{bit_mhz}" *) (* FREQUENCY_PIN_CLKOS="{mem_mhz}" *)
    (* FREQUENCY_PIN_CLKOS2="{gpu_mhz}" *) (* FREQUENCY_PIN_CLKOS3="{pix_mhz}" *)
    (* ICP_CURRENT="12" *) (* LPF_RESISTOR="8" *) (* MFG_ENABLE_FILTEROPAMP="1" *) (* MFG_GMCREF_SEL="2" *)
    EHXPLLL #(.PLLRST_ENA("DISABLED"), .INTFB_WAKE("DISABLED"), .STDBY_ENABLE("DISABLED"), .DPHASE_SOURCE("DISABLED"),
        .OUTDIVIDER_MUXA("DIVA"), .OUTDIVIDER_MUXB("DIVB"), .OUTDIVIDER_MUXC("DIVC"), .OUTDIVIDER_MUXD("DIVD"),
        .CLKI_DIV({clki}), .CLKFB_DIV({clkfb}), .FEEDBK_PATH("CLKOP"),
        .CLKOP_ENABLE("ENABLED"), .CLKOP_DIV({d0}), .CLKOP_CPHASE({c0}), .CLKOP_FPHASE(0),
        .CLKOS_ENABLE("ENABLED"), .CLKOS_DIV({d1}), .CLKOS_CPHASE({c1}), .CLKOS_FPHASE(0),
        .CLKOS2_ENABLE("ENABLED"), .CLKOS2_DIV({d2}), .CLKOS2_CPHASE({c2}), .CLKOS2_FPHASE(0),
        .CLKOS3_ENABLE("ENABLED"), .CLKOS3_DIV({d3}), .CLKOS3_CPHASE({c3}), .CLKOS3_FPHASE(0))
        pll_i (.RST(1'b0), .STDBY(1'b0), .CLKI(clk_25mhz), .CLKOP(bit_clock), .CLKOS(memory_clock),
        .CLKOS2(gpu_clock), .CLKOS3(pixel_clock), .CLKFB(bit_clock), .PHASESEL0(1'b0), .PHASESEL1(1'b0),
        .PHASEDIR(1'b1), .PHASESTEP(1'b1), .PHASELOADREG(1'b1), .PLLWAKESYNC(1'b0), .ENCLKOP(1'b0),
        .ENCLKOS(1'b0), .ENCLKOS2(1'b0), .ENCLKOS3(1'b0), .LOCK(locked));
`else
    // Simulation: clk_25mhz is the VCO; each clock is a divider of it (high for the first half).
    reg [7:0] vco_bit = 8'd0;
    reg [7:0] vco_memory = 8'd0;
    reg [7:0] vco_gpu = 8'd0;
    reg [7:0] vco_pixel = 8'd0;
    always @(posedge clk_25mhz) begin
        vco_bit <= (vco_bit == 8'd{d0m1}) ? 8'd0 : vco_bit + 8'd1;
        vco_memory <= (vco_memory == 8'd{d1m1}) ? 8'd0 : vco_memory + 8'd1;
        vco_gpu <= (vco_gpu == 8'd{d2m1}) ? 8'd0 : vco_gpu + 8'd1;
        vco_pixel <= (vco_pixel == 8'd{d3m1}) ? 8'd0 : vco_pixel + 8'd1;
    end
    assign bit_clock = vco_bit < 8'd{h0};
    assign memory_clock = vco_memory < 8'd{h1};
    assign gpu_clock = vco_gpu < 8'd{h2};
    assign pixel_clock = vco_pixel < 8'd{h3};
    assign locked = 1'b1;
`endif

    // ---- The board top.
    wire in_valid;
    wire in_ready;
    wire [{wm1}:0] beat;
    wire [15:0] dq_in;
    wire [15:0] dq_out;
    wire dq_oe;
    wire tmds_valid;
    wire [9:0] tmds_blue;
    wire [9:0] tmds_green;
    wire [9:0] tmds_red;
    wire done_valid;
    wire [7:0] done_frame;
    wire front;
    wire shown;
    wire underrun;
    wire error;
    wire map_error;
    // The display CRC at the GPU clock, for the FRAME RESULT.
    wire [31:0] frame_crc;
    wire crc_toggle;
    // One connection per line: the package rewrites instances in rust-hdl's layout.
    {inner} board_top(
        .clock(memory_clock),
        .gpu_clock(gpu_clock),
        .pixel_clock(pixel_clock),
        .flush(1'b0),
        .in_valid(in_valid),
        .in_ready(in_ready),
{inp_connections}        .tmds_valid(tmds_valid),
        .tmds_ready(1'b1),
        .tmds__blue(tmds_blue),
        .tmds__green(tmds_green),
        .tmds__red(tmds_red),
        .dq_in(dq_in),
        .cs_n(sdram_csn),
        .ras_n(sdram_rasn),
        .cas_n(sdram_casn),
        .we_n(sdram_wen),
        .ba(sdram_ba),
        .sdram_addr(sdram_a),
        .dqm(sdram_dqm),
        .dq_out(dq_out),
        .dq_oe(dq_oe),
        .done_valid(done_valid),
        .done_frame(done_frame),
        .front(front),
        .shown(shown),
        .underrun(underrun),
        .error(error),
        .map_error(map_error),
        .frame_crc(frame_crc),
        .crc_toggle(crc_toggle)
    );

    // ---- TMDS serialiser: words and a toggle at the pixel clock, shift registers at the bit clock.
{serialiser}`ifdef SYNTHESIS
{serialiser_ddr}    ODDRX1F ddr_sdram_clk (.SCLK(memory_clock), .RST(1'b0), .D0(1'b1), .D1(1'b0), .Q(sdram_clk));
`else
    // Simulation: the first bit of each pair (the testbench reads the words, not the pins).
    assign gpdi_dp = {{{pins_sim}}};
    assign sdram_clk = memory_clock;
`endif

    // ---- SDRAM pins.
    assign sdram_cke = 1'b1;
    assign sdram_d = dq_oe ? dq_out : 16'bz;
    assign dq_in = sdram_d;

    // ---- Status.
    reg [25:0] heartbeat = 26'd0;
    reg done_seen = 1'b0;
    reg underrun_seen = 1'b0;
    reg error_seen = 1'b0;
    reg map_error_seen = 1'b0;
    always @(posedge gpu_clock) begin
        heartbeat <= heartbeat + 26'd1;
        if (done_valid) done_seen <= 1'b1;
        if (map_error) map_error_seen <= 1'b1;
    end
    always @(posedge memory_clock) begin
        if (underrun) underrun_seen <= 1'b1;
        if (error) error_seen <= 1'b1;
    end
    // ---- The UART and the frame host (GPU clock): the scene's beats in, FRAME RESULT out.
    reg [1:0] locked_sync = 2'd0;
    reg [1:0] underrun_sync = 2'd0;
    reg [1:0] error_sync = 2'd0;
    always @(posedge gpu_clock) begin
        locked_sync <= {{locked_sync[0], locked}};
        underrun_sync <= {{underrun_sync[0], underrun_seen}};
        error_sync <= {{error_sync[0], error_seen}};
    end
    wire rx_valid;
    wire rx_error;
    wire [7:0] rx_byte;
    wire tx_valid;
    wire tx_ready;
    wire [7:0] tx_byte;
    wire host_ready;
    wire running;
    {uart} uart(
        .clock(gpu_clock),
        .rx(ftdi_txd),
        .tx(ftdi_rxd),
        .rx_byte(rx_byte),
        .rx_valid(rx_valid),
        .rx_error(rx_error),
        .tx_byte(tx_byte),
        .tx_valid(tx_valid),
        .tx_ready(tx_ready)
    );
    {host} frame_host(
        .clock(gpu_clock),
        .flush(~locked_sync[1]),
        .in_valid(rx_valid),
        .in_ready(host_ready),
        .inp__byte(rx_byte),
        .out_valid(in_valid),
        .out_ready(in_ready),
{out_connections}        .tx_valid(tx_valid),
        .tx_ready(tx_ready),
        .tx__byte(tx_byte),
        .rx_error(rx_error),
        .done_valid(done_valid),
        .done_frame(done_frame),
        .front(front),
        .shown(shown),
        .frame_crc(frame_crc),
        .crc_toggle(crc_toggle),
        .flags({{map_error_seen, error_sync[1], underrun_sync[1]}}),
        .running(running)
    );

    assign led = {{map_error_seen, error_seen, underrun_seen, shown, front, done_seen, running, heartbeat[25]}};
    assign wifi_gpio0 = 1'b1;
    // The frame host drops bytes while it is busy (the host waits for each answer).
    wire unused_ok = &{{1'b0, host_ready, 1'b0}};
endmodule
"#,
        osc_mhz = board.osc_hz / 1_000_000,
        bit_mhz = f.bit_hz / 1_000_000,
        mem_mhz = f.sdram_hz / 1_000_000,
        gpu_mhz = f.gpu_hz / 1_000_000,
        pix_mhz = f.pixel_hz / 1_000_000,
        clki = pll.clki_div,
        clkfb = pll.clkfb_div,
        d0 = d[0],
        d1 = d[1],
        d2 = d[2],
        d3 = d[3],
        c0 = (d[0] - 1) / 2,
        c1 = (d[1] - 1) / 2,
        c2 = (d[2] - 1) / 2,
        c3 = (d[3] - 1) / 2,
        d0m1 = d[0] - 1,
        d1m1 = d[1] - 1,
        d2m1 = d[2] - 1,
        d3m1 = d[3] - 1,
        h0 = d[0] / 2,
        h1 = d[1] / 2,
        h2 = d[2] / 2,
        h3 = d[3] / 2,
        wm1 = width - 1,
        inner = inner,
        host = host,
        uart = uart,
        serialiser = serialiser(),
        serialiser_ddr = serialiser_ddr(),
        pins_sim = serialiser_sim_pins(),
        inp_connections = beat_connections("inp"),
        out_connections = beat_connections("out"),
    );
    Ok(v)
}

/// The `<iface>__<field>` connections of a `PrimIn` port (the board top's `inp`, the frame
/// host's `out`) to the wire `beat`, one per line: each field's slice (the first field on
/// top, `end` in bit 0: the LOAD BEATS record), from the stream's one declaration.
fn beat_connections(iface: &str) -> String {
    let fields = <ports::PrimIn as Stream>::FIELDS;
    let mut lo: u32 = fields.iter().map(|f| f.width).sum();
    let mut s = String::new();
    for f in fields {
        lo -= f.width;
        let range = if f.width == 1 {
            format!("{lo}")
        } else {
            format!("{}:{lo}", lo + f.width - 1)
        };
        let _ = writeln!(s, "        .{iface}__{}(beat[{range}]),", f.name);
    }
    s
}

/// The TMDS lanes in `gpdi_dp` bit order: (lane, the board top's 10-bit word for it; the
/// clock lane has none, its character is `0000011111`).
const TMDS_LANES: [(&str, Option<&str>); 4] = [
    ("blue", Some("tmds_blue")),
    ("green", Some("tmds_green")),
    ("red", Some("tmds_red")),
    ("clock", None),
];

/// The serialiser's Verilog, written once per lane of [`TMDS_LANES`]: each data lane's word
/// registered at the pixel clock (blanking, control 00, while `tmds_valid` is low) with one
/// toggle for all; at the bit clock the toggle through two flops, and on its change every
/// lane's 10-bit shift register loads, else shifts two bits. The pins: [`serialiser_ddr`],
/// [`serialiser_sim_pins`].
fn serialiser() -> String {
    let data = || TMDS_LANES.iter().filter_map(|(l, w)| w.map(|w| (*l, w)));
    let mut v = String::new();
    for (lane, _) in data() {
        let _ = writeln!(v, "    reg [9:0] word_{lane} = 10'd0;");
    }
    v.push_str("    reg pixel_toggle = 1'b0;\n    always @(posedge pixel_clock) begin\n");
    v.push_str("        // Blanking (control 00) until the video output's first word.\n");
    for (lane, word) in data() {
        let _ = writeln!(v, "        word_{lane} <= tmds_valid ? {word} : 10'b1101010100;");
    }
    v.push_str("        pixel_toggle <= ~pixel_toggle;\n    end\n    reg [2:0] toggle_sync = 3'd0;\n");
    for (lane, _) in TMDS_LANES {
        let _ = writeln!(v, "    reg [9:0] shift_{lane} = 10'd0;");
    }
    v.push_str("    always @(posedge bit_clock) begin\n        toggle_sync <= {toggle_sync[1:0], pixel_toggle};\n");
    v.push_str("        if (toggle_sync[2] != toggle_sync[1]) begin\n");
    for (lane, word) in TMDS_LANES {
        let load = if word.is_some() {
            format!("word_{lane}")
        } else {
            "10'b0000011111".into()
        };
        let _ = writeln!(v, "            shift_{lane} <= {load};");
    }
    v.push_str("        end else begin\n");
    for (lane, _) in TMDS_LANES {
        let _ = writeln!(v, "            shift_{lane} <= {{2'b00, shift_{lane}[9:2]}};");
    }
    v.push_str("        end\n    end\n");
    v
}

/// The synthesized pins: an `ODDRX1F` per lane of [`TMDS_LANES`] (D0 = bit 0, sent first).
fn serialiser_ddr() -> String {
    let mut v = String::new();
    for (k, (lane, _)) in TMDS_LANES.iter().enumerate() {
        let _ = writeln!(
            v,
            "    ODDRX1F ddr_{lane} (.SCLK(bit_clock), .RST(1'b0), .D0(shift_{lane}[0]), .D1(shift_{lane}[1]), .Q(gpdi_dp[{k}]));"
        );
    }
    v
}

/// The simulation's `gpdi_dp`: each lane's first bit of the pair, `gpdi_dp[3]` first.
fn serialiser_sim_pins() -> String {
    let bits: Vec<String> = TMDS_LANES.iter().rev().map(|(l, _)| format!("shift_{l}[0]")).collect();
    bits.join(", ")
}
