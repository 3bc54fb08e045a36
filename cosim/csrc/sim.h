// The simulation loop around one verilated core whose ports are flattened into `in_bits` /
// `out_bits` (IN_W / OUT_W u32 words per cycle): shared by the compiled-in models (glue.cpp,
// behind the cxx bridge) and the models verilated on demand (dyn_model.cpp, behind a C ABI).
// Outputs are sampled with the clock low after the inputs settled, i.e. before the edge.
#pragma once
#include "verilated.h"
#include "words.h"
#if VM_TRACE
#include "verilated_vcd_c.h"
#endif
#include <chrono>
#include <cstdint>
#include <cstring>
#include <memory>
#include <stdexcept>
#include <string>

class SimBase {
public:
    virtual ~SimBase() {}
    virtual void run(uint32_t cycles, const uint32_t* in, uint32_t* out) = 0;
    virtual void open_trace(const std::string& path, uint64_t from_cycle) = 0;
    // Pure C++ testbench loop over recorded words: apply, sample, compare with `want`; timed
    // around the whole loop. Returns nanoseconds; `*first_bad` = first differing cycle or ~0.
    virtual uint64_t replay_timed(uint64_t cycles, const uint32_t* in, const uint32_t* want, uint32_t* out,
                                  uint64_t* first_bad) = 0;
};

using namespace tilerast_words;

template <class T, unsigned IN_W, unsigned OUT_W> class Sim final : public SimBase {
    std::unique_ptr<VerilatedContext> ctx;
    std::unique_ptr<T> top;
#if VM_TRACE
    std::unique_ptr<VerilatedVcdC> tfp;
#endif
    uint64_t cycle = 0, trace_from = 0;

    inline void dump(uint64_t t) {
#if VM_TRACE
        if (tfp && cycle >= trace_from) tfp->dump(t);
#else
        (void)t;
#endif
    }

    inline void apply(const uint32_t* ip) {
        T* t = top.get();
        t->clock = 0;
        put(t->in_bits, ip);
        t->eval();
        dump(cycle * 10);
    }

    inline void sample(uint32_t* op) { get(top->out_bits, op); }

    inline void edge() {
        top->clock = 1;
        top->eval();
        dump(cycle * 10 + 5);
        cycle++;
    }

public:
    Sim() : ctx(new VerilatedContext) {
        top.reset(new T(ctx.get(), "top"));
        top->clock = 0;
        top->eval();
    }
    ~Sim() override {
#if VM_TRACE
        if (tfp) tfp->close();
#endif
        top->final();
    }

    void run(uint32_t cycles, const uint32_t* ip, uint32_t* op) override {
        for (uint32_t c = 0; c < cycles; c++, ip += IN_W, op += OUT_W) {
            apply(ip);
            sample(op);
            edge();
        }
    }

    void open_trace(const std::string& path, uint64_t from_cycle) override {
#if VM_TRACE
        ctx->traceEverOn(true);
        tfp.reset(new VerilatedVcdC);
        top->trace(tfp.get(), 99);
        tfp->open(path.c_str());
        trace_from = from_cycle;
#else
        (void)path;
        (void)from_cycle;
        throw std::runtime_error("tilerast-cosim was built without the `trace` feature");
#endif
    }

    // The "pure C++ harness" of the speed benchmark: the same per-cycle work as `run` plus the
    // comparison the Rust harness does, one loop, no FFI inside, timed with steady_clock. The
    // stimulus is recorded in Rust (tilerast-verif's Rng); C++ has no generator of its own.
    uint64_t replay_timed(uint64_t cycles, const uint32_t* ip, const uint32_t* want, uint32_t* op,
                          uint64_t* first_bad) override {
        uint64_t bad = ~uint64_t(0);
        auto t0 = std::chrono::steady_clock::now();
        for (uint64_t c = 0; c < cycles; c++, ip += IN_W, op += OUT_W, want += OUT_W) {
            apply(ip);
            sample(op);
            edge();
            if (bad == ~uint64_t(0) && std::memcmp(op, want, OUT_W * sizeof(uint32_t)) != 0) bad = c;
        }
        auto t1 = std::chrono::steady_clock::now();
        *first_bad = bad;
        return uint64_t(std::chrono::duration_cast<std::chrono::nanoseconds>(t1 - t0).count());
    }
};
