// Verilator shim of the FPGA top: batched cycles, a UART bit in and the UART bit + LEDs out per
// cycle (layout in top.h). The models are verilated by build/top.rs (prefix Vtilerast_top_<board>),
// which also generates the includes below.
#include "top.h"
#include "verilated.h"
#include "top_models.inc"
#include "tilerast-cosim/src/top.rs.h"
#include <stdexcept>
#include <string>

template <class T> class TopSim final : public TopBase {
    std::unique_ptr<VerilatedContext> ctx;
    std::unique_ptr<T> top;

public:
    TopSim() : ctx(new VerilatedContext) {
        top.reset(new T(ctx.get(), "top"));
        top->clk = 0;
        top->uart_rx = 1;
        top->eval();
    }
    ~TopSim() override { top->final(); }

    void run(size_t cycles, const uint8_t* rx, uint8_t* out) override {
        T* t = top.get();
        for (size_t c = 0; c < cycles; c++) {
            t->clk = 0;
            t->uart_rx = rx[c] & 1;
            t->eval();
            out[c] = uint8_t((t->uart_tx & 1) | ((t->led & 0xf) << 4));
            t->clk = 1;
            t->eval();
        }
    }
};

#include "top_factory.inc"

std::unique_ptr<TopModel> new_top(rust::Str board) {
    std::string b(board);
    auto m = std::make_unique<TopModel>();
    m->sim.reset(make_top(b));
    if (!m->sim) throw std::runtime_error("no verilated FPGA top for board `" + b + "` (see cosim/build/top.rs)");
    return m;
}

void run_top(TopModel& m, rust::Slice<const uint8_t> rx, rust::Slice<uint8_t> out) {
    if (out.size() < rx.size()) throw std::runtime_error("run_top: output slice shorter than input");
    m.sim->run(rx.size(), rx.data(), out.data());
}
