// Adapter between the post-synthesis testbench (postsim_tb.v) and a raster core
// `TR_CORE` (e.g. -DTR_CORE=tilerast_ice40; the RTL or yosys's synthesized netlist).
// Word layout = the co-simulation layout (cosim/csrc/glue.h), 32-bit words, word 0 in the LSBs:
//   in_w  (10 words): [0] b0 cmd_valid, b1 out_ready, b2 flush, b3 cmd_kind, b4 cmd_aa
//                     [1] cmd_prim  [2] cmd_tile_x | cmd_tile_y << 8
//                     [3..8] cmd_v0x v0y v1x v1y v2x v2y (low 24 bits)  [9] cmd_size
//   out_w (16 words): [0] b0 cmd_ready, b1 out_valid, b2 out_last, b4..7 out_lane_valid
//                     [1] out_prim  [2..5] out_qx_l | out_qy_l << 16
//                     [6..13] out_mask_l (lo, hi)  [14] out_block_0..3 (one byte each)  [15] 0
// Purely combinational wiring, no latency.
`timescale 1ns / 1ps
module dut_adapter (
    input wire clock,
    input wire [319:0] in_w,
    output wire [511:0] out_w
);
    wire cmd_ready, out_valid, out_last;
    wire [3:0] lane_valid;
    wire [23:0] prim;
    wire [11:0] qx0, qx1, qx2, qx3, qy0, qy1, qy2, qy3;
    wire [63:0] m0, m1, m2, m3;
    wire [7:0] b0, b1, b2, b3;
    `TR_CORE core (
        .clock(clock),
        .cmd_valid(in_w[0]),
        .out_ready(in_w[1]),
        .flush(in_w[2]),
        .cmd_kind(in_w[3]),
        .cmd_aa(in_w[4]),
        .cmd_prim(in_w[32+:24]),
        .cmd_tile_x(in_w[64+:8]),
        .cmd_tile_y(in_w[72+:8]),
        .cmd_v0x(in_w[96+:24]),
        .cmd_v0y(in_w[128+:24]),
        .cmd_v1x(in_w[160+:24]),
        .cmd_v1y(in_w[192+:24]),
        .cmd_v2x(in_w[224+:24]),
        .cmd_v2y(in_w[256+:24]),
        .cmd_size(in_w[288+:24]),
        .cmd_ready(cmd_ready),
        .out_valid(out_valid),
        .out_prim(prim),
        .out_lane_valid(lane_valid),
        .out_qx_0(qx0),
        .out_qx_1(qx1),
        .out_qx_2(qx2),
        .out_qx_3(qx3),
        .out_qy_0(qy0),
        .out_qy_1(qy1),
        .out_qy_2(qy2),
        .out_qy_3(qy3),
        .out_mask_0(m0),
        .out_mask_1(m1),
        .out_mask_2(m2),
        .out_mask_3(m3),
        .out_block_0(b0),
        .out_block_1(b1),
        .out_block_2(b2),
        .out_block_3(b3),
        .out_last(out_last)
    );
    assign out_w = {
        32'h0,
        b3, b2, b1, b0,
        m3[63:32], m3[31:0], m2[63:32], m2[31:0], m1[63:32], m1[31:0], m0[63:32], m0[31:0],
        4'h0, qy3, 4'h0, qx3, 4'h0, qy2, 4'h0, qx2, 4'h0, qy1, 4'h0, qx1, 4'h0, qy0, 4'h0, qx0,
        8'h0, prim,
        24'h0, lane_valid, 1'b0, out_last, out_valid, cmd_ready
    };
endmodule
