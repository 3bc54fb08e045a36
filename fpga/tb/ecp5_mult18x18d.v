// Simulation model of the ECP5 MULT18X18D as `synth_ecp5` instantiates it (yosys 0.23's
// share/ecp5/cells_sim.v has none, only a blackbox in cells_bb.v): combinational, every
// REG_* parameter "NONE", P = A × B with each operand signed or unsigned per its SIGNEDA /
// SIGNEDB pin. Any registered or cascaded use stops the simulation instead of being
// simulated wrongly. Used by the ECP5 post-synthesis simulation (fpga/src/postsim.rs).
module MULT18X18D (
    input A0,
    input A1,
    input A2,
    input A3,
    input A4,
    input A5,
    input A6,
    input A7,
    input A8,
    input A9,
    input A10,
    input A11,
    input A12,
    input A13,
    input A14,
    input A15,
    input A16,
    input A17,
    input B0,
    input B1,
    input B2,
    input B3,
    input B4,
    input B5,
    input B6,
    input B7,
    input B8,
    input B9,
    input B10,
    input B11,
    input B12,
    input B13,
    input B14,
    input B15,
    input B16,
    input B17,
    input C0,
    input C1,
    input C2,
    input C3,
    input C4,
    input C5,
    input C6,
    input C7,
    input C8,
    input C9,
    input C10,
    input C11,
    input C12,
    input C13,
    input C14,
    input C15,
    input C16,
    input C17,
    input SIGNEDA, SIGNEDB, SOURCEA, SOURCEB,
    input CLK0, CLK1, CLK2, CLK3, CE0, CE1, CE2, CE3, RST0, RST1, RST2, RST3,
    output P0,
    output P1,
    output P2,
    output P3,
    output P4,
    output P5,
    output P6,
    output P7,
    output P8,
    output P9,
    output P10,
    output P11,
    output P12,
    output P13,
    output P14,
    output P15,
    output P16,
    output P17,
    output P18,
    output P19,
    output P20,
    output P21,
    output P22,
    output P23,
    output P24,
    output P25,
    output P26,
    output P27,
    output P28,
    output P29,
    output P30,
    output P31,
    output P32,
    output P33,
    output P34,
    output P35,
    output SIGNEDP
);
    parameter REG_INPUTA_CLK = "NONE";
    parameter REG_INPUTB_CLK = "NONE";
    parameter REG_INPUTC_CLK = "NONE";
    parameter REG_PIPELINE_CLK = "NONE";
    parameter REG_OUTPUT_CLK = "NONE";
    parameter CLK0_DIV = "ENABLED";
    parameter CLK1_DIV = "ENABLED";
    parameter CLK2_DIV = "ENABLED";
    parameter CLK3_DIV = "ENABLED";
    parameter GSR = "ENABLED";
    parameter SOURCEB_MODE = "B_SHIFT";
    parameter MULT_BYPASS = "DISABLED";
    parameter RESETMODE = "SYNC";
    initial begin
        if (REG_INPUTA_CLK != "NONE" || REG_INPUTB_CLK != "NONE" || REG_INPUTC_CLK != "NONE"
            || REG_PIPELINE_CLK != "NONE" || REG_OUTPUT_CLK != "NONE" || MULT_BYPASS != "DISABLED") begin
            $display("MULT18X18D %m: only the combinational multiplier is modelled");
            $finish(2);
        end
    end
    wire [17:0] a = {A17, A16, A15, A14, A13, A12, A11, A10, A9, A8, A7, A6, A5, A4, A3, A2, A1, A0};
    wire [17:0] b = {B17, B16, B15, B14, B13, B12, B11, B10, B9, B8, B7, B6, B5, B4, B3, B2, B1, B0};
    wire signed [18:0] sa = {SIGNEDA & a[17], a};
    wire signed [18:0] sb = {SIGNEDB & b[17], b};
    wire signed [37:0] prod = sa * sb;
    assign {P35, P34, P33, P32, P31, P30, P29, P28, P27, P26, P25, P24, P23, P22, P21, P20, P19, P18, P17, P16, P15, P14, P13, P12, P11, P10, P9, P8, P7, P6, P5, P4, P3, P2, P1, P0} = prod[35:0];
    assign SIGNEDP = SIGNEDA | SIGNEDB;
    always @(SOURCEA or SOURCEB)
        if (SOURCEA === 1'b1 || SOURCEB === 1'b1) begin
            $display("MULT18X18D %m: the shift-register (SOURCEA/B) inputs are not modelled");
            $finish(2);
        end
endmodule
