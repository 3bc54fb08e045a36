// Demonstration design for the post-synthesis simulation: a range-less signed localparam
// (`localparam signed thresh = 24'hffff9c;`, i.e. -100, as rust-hdl used to emit it) used in a
// signed compare. Simulators (Icarus, Verilator) compare signed: below = (x < -100). Yosys 0.23
// treats the range-less localparam as UNSIGNED, so the synthesized netlist compares unsigned
// and disagrees for negative x. `lp_fixed` is the same design with the range the RTL now
// always carries (hw/src/emit.rs); it must pass both ways.
// Ports: clock, x (signed 24), registered outputs below / below_fixed; one cycle latency.
// Testbench adapter `dut_adapter`: in_w[23:0] = x, out_w[0] = below (registered),
// out_w[1] = the fixed version; out_w[31:2] = 0.
`timescale 1ns / 1ps
module lp_bug (
    input wire clock,
    input wire signed [23:0] x,
    output reg below
);
    localparam signed thresh = 24'hffff9c;
    initial below = 1'b0;
    always @(posedge clock) below <= x < thresh;
endmodule

module lp_fixed (
    input wire clock,
    input wire signed [23:0] x,
    output reg below
);
    localparam signed [23:0] thresh = 24'hffff9c;
    initial below = 1'b0;
    always @(posedge clock) below <= x < thresh;
endmodule

module dut_adapter (
    input wire clock,
    input wire [31:0] in_w,
    output wire [31:0] out_w
);
    wire a, b;
    lp_bug u_bug (
        .clock(clock),
        .x(in_w[23:0]),
        .below(a)
    );
    lp_fixed u_fixed (
        .clock(clock),
        .x(in_w[23:0]),
        .below(b)
    );
    assign out_w = {30'h0, b, a};
endmodule
