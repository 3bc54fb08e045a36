// Simulation model of the ECP5 DP16KD block RAM as `synth_ecp5` instantiates it. yosys 0.23's
// share/ecp5/cells_sim.v declares DP16KD as a (* blackbox *) with no behaviour (its outputs float,
// so a netlist with block RAM simulates as X); fpga/src/postsim.rs gives Icarus a copy of
// cells_sim.v without that declaration plus this model. Covered: DATA_WIDTH 1, 2, 4, 9 or 18 per
// port (9 and 18 may be mixed; 1/2/4 only with the same width on the other port), byte enables
// on AD[1:0] at width 18, CSDECODE, and the 512 x 36 pseudo-dual-port mode that yosys's
// $__ECP5_PDPW16KD_ map (share/ecp5/brams_map.v) builds: DATA_WIDTH_A = 36 writes {DIB, DIA}
// with 9-bit byte enables on ADA[3:0] at word ADA[13:5]; DATA_WIDTH_B = 36 reads word ADB[13:5]
// as {DOB, DOA} (port A's outputs carry the low half), DATA_WIDTH_B = 18 reads half ADB[4]; WRITEMODE NORMAL / WRITETHROUGH / READBEFOREWRITE, REGMODE
// NOREG / OUTREG, synchronous reset of the output. The array starts at zero (configuration
// clears block RAM); non-zero INITVAL_* (ROM contents) stop the simulation instead of being
// simulated wrongly. A read and a write of one address at one edge on different ports: the read
// returns the old word.
`timescale 1ns / 1ps
module DP16KD (
  input DIA17, DIA16, DIA15, DIA14, DIA13, DIA12, DIA11, DIA10, DIA9, DIA8, DIA7, DIA6, DIA5, DIA4, DIA3, DIA2, DIA1, DIA0,
  input ADA13, ADA12, ADA11, ADA10, ADA9, ADA8, ADA7, ADA6, ADA5, ADA4, ADA3, ADA2, ADA1, ADA0,
  input CEA, OCEA, CLKA, WEA, RSTA,
  input CSA2, CSA1, CSA0,
  output DOA17, DOA16, DOA15, DOA14, DOA13, DOA12, DOA11, DOA10, DOA9, DOA8, DOA7, DOA6, DOA5, DOA4, DOA3, DOA2, DOA1, DOA0,
  input DIB17, DIB16, DIB15, DIB14, DIB13, DIB12, DIB11, DIB10, DIB9, DIB8, DIB7, DIB6, DIB5, DIB4, DIB3, DIB2, DIB1, DIB0,
  input ADB13, ADB12, ADB11, ADB10, ADB9, ADB8, ADB7, ADB6, ADB5, ADB4, ADB3, ADB2, ADB1, ADB0,
  input CEB, OCEB, CLKB, WEB, RSTB,
  input CSB2, CSB1, CSB0,
  output DOB17, DOB16, DOB15, DOB14, DOB13, DOB12, DOB11, DOB10, DOB9, DOB8, DOB7, DOB6, DOB5, DOB4, DOB3, DOB2, DOB1, DOB0
);
  parameter DATA_WIDTH_A = 18;
  parameter DATA_WIDTH_B = 18;
  parameter REGMODE_A = "NOREG";
  parameter REGMODE_B = "NOREG";
  parameter RESETMODE = "SYNC";
  parameter ASYNC_RESET_RELEASE = "SYNC";
  parameter CSDECODE_A = "0b000";
  parameter CSDECODE_B = "0b000";
  parameter WRITEMODE_A = "NORMAL";
  parameter WRITEMODE_B = "NORMAL";
  parameter GSR = "ENABLED";
  parameter WID = 0;
  parameter INIT_DATA = "STATIC";
  parameter INITVAL_00 = 320'h0;
  parameter INITVAL_01 = 320'h0;
  parameter INITVAL_02 = 320'h0;
  parameter INITVAL_03 = 320'h0;
  parameter INITVAL_04 = 320'h0;
  parameter INITVAL_05 = 320'h0;
  parameter INITVAL_06 = 320'h0;
  parameter INITVAL_07 = 320'h0;
  parameter INITVAL_08 = 320'h0;
  parameter INITVAL_09 = 320'h0;
  parameter INITVAL_0A = 320'h0;
  parameter INITVAL_0B = 320'h0;
  parameter INITVAL_0C = 320'h0;
  parameter INITVAL_0D = 320'h0;
  parameter INITVAL_0E = 320'h0;
  parameter INITVAL_0F = 320'h0;
  parameter INITVAL_10 = 320'h0;
  parameter INITVAL_11 = 320'h0;
  parameter INITVAL_12 = 320'h0;
  parameter INITVAL_13 = 320'h0;
  parameter INITVAL_14 = 320'h0;
  parameter INITVAL_15 = 320'h0;
  parameter INITVAL_16 = 320'h0;
  parameter INITVAL_17 = 320'h0;
  parameter INITVAL_18 = 320'h0;
  parameter INITVAL_19 = 320'h0;
  parameter INITVAL_1A = 320'h0;
  parameter INITVAL_1B = 320'h0;
  parameter INITVAL_1C = 320'h0;
  parameter INITVAL_1D = 320'h0;
  parameter INITVAL_1E = 320'h0;
  parameter INITVAL_1F = 320'h0;
  parameter INITVAL_20 = 320'h0;
  parameter INITVAL_21 = 320'h0;
  parameter INITVAL_22 = 320'h0;
  parameter INITVAL_23 = 320'h0;
  parameter INITVAL_24 = 320'h0;
  parameter INITVAL_25 = 320'h0;
  parameter INITVAL_26 = 320'h0;
  parameter INITVAL_27 = 320'h0;
  parameter INITVAL_28 = 320'h0;
  parameter INITVAL_29 = 320'h0;
  parameter INITVAL_2A = 320'h0;
  parameter INITVAL_2B = 320'h0;
  parameter INITVAL_2C = 320'h0;
  parameter INITVAL_2D = 320'h0;
  parameter INITVAL_2E = 320'h0;
  parameter INITVAL_2F = 320'h0;
  parameter INITVAL_30 = 320'h0;
  parameter INITVAL_31 = 320'h0;
  parameter INITVAL_32 = 320'h0;
  parameter INITVAL_33 = 320'h0;
  parameter INITVAL_34 = 320'h0;
  parameter INITVAL_35 = 320'h0;
  parameter INITVAL_36 = 320'h0;
  parameter INITVAL_37 = 320'h0;
  parameter INITVAL_38 = 320'h0;
  parameter INITVAL_39 = 320'h0;
  parameter INITVAL_3A = 320'h0;
  parameter INITVAL_3B = 320'h0;
  parameter INITVAL_3C = 320'h0;
  parameter INITVAL_3D = 320'h0;
  parameter INITVAL_3E = 320'h0;
  parameter INITVAL_3F = 320'h0;
  parameter DIA0MUX = "DIA0";
  parameter DIA1MUX = "DIA1";
  parameter DIA2MUX = "DIA2";
  parameter DIA3MUX = "DIA3";
  parameter DIA4MUX = "DIA4";
  parameter DIA5MUX = "DIA5";
  parameter DIA6MUX = "DIA6";
  parameter DIA7MUX = "DIA7";
  parameter DIA8MUX = "DIA8";
  parameter DIA9MUX = "DIA9";
  parameter DIA10MUX = "DIA10";
  parameter DIA11MUX = "DIA11";
  parameter DIA12MUX = "DIA12";
  parameter DIA13MUX = "DIA13";
  parameter DIA14MUX = "DIA14";
  parameter DIA15MUX = "DIA15";
  parameter DIA16MUX = "DIA16";
  parameter DIA17MUX = "DIA17";
  parameter ADA0MUX = "ADA0";
  parameter ADA1MUX = "ADA1";
  parameter ADA2MUX = "ADA2";
  parameter ADA3MUX = "ADA3";
  parameter ADA4MUX = "ADA4";
  parameter ADA5MUX = "ADA5";
  parameter ADA6MUX = "ADA6";
  parameter ADA7MUX = "ADA7";
  parameter ADA8MUX = "ADA8";
  parameter ADA9MUX = "ADA9";
  parameter ADA10MUX = "ADA10";
  parameter ADA11MUX = "ADA11";
  parameter ADA12MUX = "ADA12";
  parameter ADA13MUX = "ADA13";
  parameter CEAMUX = "CEA";
  parameter OCEAMUX = "OCEA";
  parameter CLKAMUX = "CLKA";
  parameter WEAMUX = "WEA";
  parameter RSTAMUX = "RSTA";
  parameter CSA0MUX = "CSA0";
  parameter CSA1MUX = "CSA1";
  parameter CSA2MUX = "CSA2";
  parameter DOA0MUX = "DOA0";
  parameter DOA1MUX = "DOA1";
  parameter DOA2MUX = "DOA2";
  parameter DOA3MUX = "DOA3";
  parameter DOA4MUX = "DOA4";
  parameter DOA5MUX = "DOA5";
  parameter DOA6MUX = "DOA6";
  parameter DOA7MUX = "DOA7";
  parameter DOA8MUX = "DOA8";
  parameter DOA9MUX = "DOA9";
  parameter DOA10MUX = "DOA10";
  parameter DOA11MUX = "DOA11";
  parameter DOA12MUX = "DOA12";
  parameter DOA13MUX = "DOA13";
  parameter DOA14MUX = "DOA14";
  parameter DOA15MUX = "DOA15";
  parameter DOA16MUX = "DOA16";
  parameter DOA17MUX = "DOA17";
  parameter DIB0MUX = "DIB0";
  parameter DIB1MUX = "DIB1";
  parameter DIB2MUX = "DIB2";
  parameter DIB3MUX = "DIB3";
  parameter DIB4MUX = "DIB4";
  parameter DIB5MUX = "DIB5";
  parameter DIB6MUX = "DIB6";
  parameter DIB7MUX = "DIB7";
  parameter DIB8MUX = "DIB8";
  parameter DIB9MUX = "DIB9";
  parameter DIB10MUX = "DIB10";
  parameter DIB11MUX = "DIB11";
  parameter DIB12MUX = "DIB12";
  parameter DIB13MUX = "DIB13";
  parameter DIB14MUX = "DIB14";
  parameter DIB15MUX = "DIB15";
  parameter DIB16MUX = "DIB16";
  parameter DIB17MUX = "DIB17";
  parameter ADB0MUX = "ADB0";
  parameter ADB1MUX = "ADB1";
  parameter ADB2MUX = "ADB2";
  parameter ADB3MUX = "ADB3";
  parameter ADB4MUX = "ADB4";
  parameter ADB5MUX = "ADB5";
  parameter ADB6MUX = "ADB6";
  parameter ADB7MUX = "ADB7";
  parameter ADB8MUX = "ADB8";
  parameter ADB9MUX = "ADB9";
  parameter ADB10MUX = "ADB10";
  parameter ADB11MUX = "ADB11";
  parameter ADB12MUX = "ADB12";
  parameter ADB13MUX = "ADB13";
  parameter CEBMUX = "CEB";
  parameter OCEBMUX = "OCEB";
  parameter CLKBMUX = "CLKB";
  parameter WEBMUX = "WEB";
  parameter RSTBMUX = "RSTB";
  parameter CSB0MUX = "CSB0";
  parameter CSB1MUX = "CSB1";
  parameter CSB2MUX = "CSB2";
  parameter DOB0MUX = "DOB0";
  parameter DOB1MUX = "DOB1";
  parameter DOB2MUX = "DOB2";
  parameter DOB3MUX = "DOB3";
  parameter DOB4MUX = "DOB4";
  parameter DOB5MUX = "DOB5";
  parameter DOB6MUX = "DOB6";
  parameter DOB7MUX = "DOB7";
  parameter DOB8MUX = "DOB8";
  parameter DOB9MUX = "DOB9";
  parameter DOB10MUX = "DOB10";
  parameter DOB11MUX = "DOB11";
  parameter DOB12MUX = "DOB12";
  parameter DOB13MUX = "DOB13";
  parameter DOB14MUX = "DOB14";
  parameter DOB15MUX = "DOB15";
  parameter DOB16MUX = "DOB16";
  parameter DOB17MUX = "DOB17";

  function [2:0] csdec(input [8*5-1:0] s);
    csdec = {s[23:16] == "1", s[15:8] == "1", s[7:0] == "1"};
  endfunction
  localparam [2:0] CSA = csdec(CSDECODE_A);
  localparam [2:0] CSB = csdec(CSDECODE_B);
  // 1024 words of 18 bits; narrower widths address parts of them (see the header).
  reg [17:0] mem [0:1023];
  integer i;
  initial begin
    for (i = 0; i < 1024; i = i + 1) mem[i] = 18'd0;
    if (INITVAL_00 != 0 || INITVAL_01 != 0 || INITVAL_02 != 0 || INITVAL_03 != 0 || INITVAL_04 != 0 || INITVAL_05 != 0 || INITVAL_06 != 0 || INITVAL_07 != 0 || INITVAL_08 != 0 || INITVAL_09 != 0 || INITVAL_0A != 0 || INITVAL_0B != 0 || INITVAL_0C != 0 || INITVAL_0D != 0 || INITVAL_0E != 0 || INITVAL_0F != 0 || INITVAL_10 != 0 || INITVAL_11 != 0 || INITVAL_12 != 0 || INITVAL_13 != 0 || INITVAL_14 != 0 || INITVAL_15 != 0 || INITVAL_16 != 0 || INITVAL_17 != 0 || INITVAL_18 != 0 || INITVAL_19 != 0 || INITVAL_1A != 0 || INITVAL_1B != 0 || INITVAL_1C != 0 || INITVAL_1D != 0 || INITVAL_1E != 0 || INITVAL_1F != 0 || INITVAL_20 != 0 || INITVAL_21 != 0 || INITVAL_22 != 0 || INITVAL_23 != 0 || INITVAL_24 != 0 || INITVAL_25 != 0 || INITVAL_26 != 0 || INITVAL_27 != 0 || INITVAL_28 != 0 || INITVAL_29 != 0 || INITVAL_2A != 0 || INITVAL_2B != 0 || INITVAL_2C != 0 || INITVAL_2D != 0 || INITVAL_2E != 0 || INITVAL_2F != 0 || INITVAL_30 != 0 || INITVAL_31 != 0 || INITVAL_32 != 0 || INITVAL_33 != 0 || INITVAL_34 != 0 || INITVAL_35 != 0 || INITVAL_36 != 0 || INITVAL_37 != 0 || INITVAL_38 != 0 || INITVAL_39 != 0 || INITVAL_3A != 0 || INITVAL_3B != 0 || INITVAL_3C != 0 || INITVAL_3D != 0 || INITVAL_3E != 0 || INITVAL_3F != 0) begin
      $display("DP16KD %m: INITVAL contents are not modelled (fpga/tb/ecp5_dp16kd.v)");
      $finish;
    end
    if (!((DATA_WIDTH_A == 9 || DATA_WIDTH_A == 18) && (DATA_WIDTH_B == 9 || DATA_WIDTH_B == 18))
        && !(DATA_WIDTH_A == 36 && (DATA_WIDTH_B == 36 || DATA_WIDTH_B == 18))
        && DATA_WIDTH_A != DATA_WIDTH_B) begin
      $display("DP16KD %m: widths %0d / %0d are not modelled (fpga/tb/ecp5_dp16kd.v)", DATA_WIDTH_A, DATA_WIDTH_B);
      $finish;
    end
  end

  // Bit k (0..W-1) of word `a` at width `w`: (18-bit word, bit in it). Widths 1, 2, 4 use the
  // 16 non-parity bits of each 18-bit word (8 + 8).
  function [14:0] bitpos(input integer w, input [13:0] ad, input integer k);
    integer b;
    begin
      if (w == 18) bitpos = {ad[13:4], 5'd0} + k;
      else if (w == 9) bitpos = {ad[13:4], 5'd0} + (ad[3] ? 9 : 0) + k;
      else begin
        b = (w == 4 ? ad[13:2] * 4 : w == 2 ? ad[13:1] * 2 : ad[13:0]) + k;
        bitpos = {b[13:4], 5'd0} + (b[3:0] >= 8 ? b[3:0] + 1 : b[3:0]);
      end
    end
  endfunction

  wire [17:0] dia = {DIA17, DIA16, DIA15, DIA14, DIA13, DIA12, DIA11, DIA10, DIA9, DIA8, DIA7, DIA6, DIA5, DIA4, DIA3, DIA2, DIA1, DIA0};
  wire [17:0] dib = {DIB17, DIB16, DIB15, DIB14, DIB13, DIB12, DIB11, DIB10, DIB9, DIB8, DIB7, DIB6, DIB5, DIB4, DIB3, DIB2, DIB1, DIB0};
  wire [13:0] ada = {ADA13, ADA12, ADA11, ADA10, ADA9, ADA8, ADA7, ADA6, ADA5, ADA4, ADA3, ADA2, ADA1, ADA0};
  reg [17:0] qa = 18'd0, ra = 18'd0;
  // At DATA_WIDTH_B = 36 port B's read drives port A's outputs with the word's low half.
  reg [17:0] qlo = 18'd0, rlo = 18'd0;
  wire [17:0] doa = DATA_WIDTH_B == 36 ? (REGMODE_B == "OUTREG" ? rlo : qlo)
                  : REGMODE_A == "OUTREG" ? ra : qa;
  assign {DOA17, DOA16, DOA15, DOA14, DOA13, DOA12, DOA11, DOA10, DOA9, DOA8, DOA7, DOA6, DOA5, DOA4, DOA3, DOA2, DOA1, DOA0} = doa;
  integer ka;
  reg [14:0] posa;
  reg [17:0] olda;
  always @(posedge CLKA) begin
    if (REGMODE_A == "OUTREG") begin
      if (RSTA) ra <= 18'd0;
      else if (OCEA) ra <= qa;
    end
    if (RSTA) qa <= 18'd0;
    else if (DATA_WIDTH_A == 36) begin
      if (CEA && {CSA2, CSA1, CSA0} == CSA && WEA)
        for (ka = 0; ka < 36; ka = ka + 1)
          if (ada[ka / 9])
            mem[{ada[13:5], ka >= 18 ? 1'b1 : 1'b0}][ka % 18] <= ka < 18 ? dia[ka] : dib[ka - 18];
    end
    else if (CEA && {CSA2, CSA1, CSA0} == CSA) begin
      olda = 18'd0;
      for (ka = 0; ka < DATA_WIDTH_A; ka = ka + 1) begin
        posa = bitpos(DATA_WIDTH_A, ada, ka);
        olda[ka] = mem[posa[14:5]][posa[4:0]];
        if (WEA && (DATA_WIDTH_A != 18 || (ka < 9 ? ada[0] : ada[1])))
          mem[posa[14:5]][posa[4:0]] <= dia[ka];
      end
      if (!WEA || WRITEMODE_A == "READBEFOREWRITE") qa <= olda;
      else if (WRITEMODE_A == "WRITETHROUGH") qa <= dia;
    end
  end

  wire [13:0] adb = {ADB13, ADB12, ADB11, ADB10, ADB9, ADB8, ADB7, ADB6, ADB5, ADB4, ADB3, ADB2, ADB1, ADB0};
  reg [17:0] qb = 18'd0, rb = 18'd0;
  wire [17:0] dob = REGMODE_B == "OUTREG" ? rb : qb;
  assign {DOB17, DOB16, DOB15, DOB14, DOB13, DOB12, DOB11, DOB10, DOB9, DOB8, DOB7, DOB6, DOB5, DOB4, DOB3, DOB2, DOB1, DOB0} = dob;
  integer kb;
  reg [14:0] posb;
  reg [17:0] oldb;
  always @(posedge CLKB) begin
    if (REGMODE_B == "OUTREG") begin
      if (RSTB) rb <= 18'd0;
      else if (OCEB) rb <= qb;
    end
    if (REGMODE_B == "OUTREG") begin
      if (RSTB) rlo <= 18'd0;
      else if (OCEB) rlo <= qlo;
    end
    if (RSTB) begin
      qb <= 18'd0;
      qlo <= 18'd0;
    end
    else if (DATA_WIDTH_B == 36) begin
      if (CEB && {CSB2, CSB1, CSB0} == CSB) begin
        qlo <= mem[{adb[13:5], 1'b0}];
        qb <= mem[{adb[13:5], 1'b1}];
      end
    end
    else if (CEB && {CSB2, CSB1, CSB0} == CSB) begin
      oldb = 18'd0;
      for (kb = 0; kb < DATA_WIDTH_B; kb = kb + 1) begin
        posb = bitpos(DATA_WIDTH_B, adb, kb);
        oldb[kb] = mem[posb[14:5]][posb[4:0]];
        if (WEB && (DATA_WIDTH_B != 18 || (kb < 9 ? adb[0] : adb[1])))
          mem[posb[14:5]][posb[4:0]] <= dib[kb];
      end
      if (!WEB || WRITEMODE_B == "READBEFOREWRITE") qb <= oldb;
      else if (WRITEMODE_B == "WRITETHROUGH") qb <= dib;
    end
  end

endmodule
