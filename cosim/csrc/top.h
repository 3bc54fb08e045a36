#pragma once
// Verilator model of the FPGA top (rtl-out/tilerast_top_<board>.v) for cosim/src/top.rs.
// One byte per cycle in: bit 0 = uart_rx. One byte per cycle out: bit 0 = uart_tx,
// bits 4..7 = led[3:0]. Outputs are sampled with clk low after the inputs settled, then the
// rising edge is applied (as in glue.h). Many cycles per FFI call.
#include <cstdint>
#include <memory>
#include "rust/cxx.h"

class TopBase {
public:
    virtual ~TopBase() {}
    virtual void run(size_t cycles, const uint8_t* rx, uint8_t* out) = 0;
};

struct TopModel {
    std::unique_ptr<TopBase> sim;
};

std::unique_ptr<TopModel> new_top(rust::Str board);
void run_top(TopModel& m, rust::Slice<const uint8_t> rx, rust::Slice<uint8_t> out);
