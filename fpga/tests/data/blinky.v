// Small design for the flow-runner tests (fpga/tests/flow.rs): the four board ports of the
// tilerast top (clk, uart_rx, uart_tx, led[3:0]); a 24-bit counter on the LEDs, the UART
// looped back through one register. One clock, no handshake, no latency beyond the registers.
module blinky (
    input wire clk,
    input wire uart_rx,
    output reg uart_tx,
    output wire [3:0] led
);
    reg [23:0] n = 24'h0;
    initial uart_tx = 1'b1;
    always @(posedge clk) begin
        n <= n + 24'h1;
        uart_tx <= uart_rx;
    end
    assign led = n[23:20];
endmodule
