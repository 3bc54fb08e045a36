// Deliberately malformed Verilog for the flow error-path test (fpga/tests/flow.rs).
module broken (input wire clk, output wire [3:0] led);
    assign led = ;
endmodule
