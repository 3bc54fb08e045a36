// Post-synthesis simulation testbench (Icarus Verilog). Drives `dut_adapter` (one adapter per
// design under test: core_adapter.v for tilerast_<preset> cores, lp_bug.v for the range-less
// localparam demonstration) from per-cycle input words and compares ALL output words with the
// expected ones on EVERY cycle; both come from the golden cycle model via Rust
// (tilerast_fpga::postsim), as $readmemh hex files, one packed word vector per line.
// Run: vvp -n <image> +in=<in.hex> +exp=<exp.hex> +cycles=<n>
//
//   cycle k:  clock=0, in_w=IN[k] ─► #5 settle ─► compare out_w with EXP[k] ─► clock=1 (edge) ─► #5
//
// This matches the co-simulation convention (cosim/src/lib.rs): inputs applied with the clock
// low, outputs sampled before the rising edge. Compiled with
//   -DCYCLES=<max cycles> -DIN_BITS=<b> -DOUT_BITS=<b> [-DCORE_LAYOUT]
// Output: the first mismatch as `MISMATCH cycle <k> word <i> got <hex> want <hex>` and `FAIL`,
// or `PASS cycles=<n> quads=<q>` (quads: lane_valid bits of transferred beats when the adapter
// follows the core word layout; 0 otherwise).
`timescale 1ns / 1ps
module postsim_tb;
    localparam integer NW = `OUT_BITS / 32;
    reg clock = 1'b0;
    reg [`IN_BITS-1:0] inm[0:`CYCLES-1];
    reg [`OUT_BITS-1:0] expm[0:`CYCLES-1];
    reg [`IN_BITS-1:0] in_w;
    wire [`OUT_BITS-1:0] out_w;
    reg [`OUT_BITS-1:0] got, want;
    integer k, i, quads, bad, ncyc;
    reg [8*1024-1:0] in_file, exp_file;

    dut_adapter dut (
        .clock(clock),
        .in_w (in_w),
        .out_w(out_w)
    );

    initial begin
        quads = 0;
        bad = 0;
        if (!$value$plusargs("in=%s", in_file) || !$value$plusargs("exp=%s", exp_file)
            || !$value$plusargs("cycles=%d", ncyc) || ncyc > `CYCLES || ncyc < 1) begin
            $display("FAIL usage: +in=<hex> +exp=<hex> +cycles=<1..%0d>", `CYCLES);
            bad = 1;
        end else begin
            $readmemh(in_file, inm);
            $readmemh(exp_file, expm);
        end
        in_w = {`IN_BITS{1'b0}};
        for (k = 0; k < ncyc && bad == 0; k = k + 1) begin
            clock = 1'b0;
            in_w  = inm[k];
            #5;
            got  = out_w;
            want = expm[k];
            if (got !== want) begin
                bad = 1;
                for (i = NW - 1; i >= 0; i = i - 1)
                    if (got[32*i+:32] !== want[32*i+:32])
                        $display("MISMATCH cycle %0d word %0d got %h want %h", k, i, got[32*i+:32], want[32*i+:32]);
                $display("FAIL at cycle %0d", k);
            end else begin
`ifdef CORE_LAYOUT
                if (in_w[1] && got[1]) quads = quads + got[4] + got[5] + got[6] + got[7];
`endif
                clock = 1'b1;
                #5;
            end
        end
        if (bad == 0) $display("PASS cycles=%0d quads=%0d", ncyc, quads);
        $finish;
    end
endmodule
