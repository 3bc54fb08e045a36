#include "glue.h"
#include "verilated.h"
#include "Vtilerast_ice40.h"
#include "Vtilerast_default.h"
#include "Vtilerast_full.h"
#include "Vtilerast_ice40_1x.h"
#include "Vtilerast_ice40_mut.h"
#if VM_TRACE
#include "verilated_vcd_c.h"
#endif
#include "tilerast-cosim/src/lib.rs.h"
#include <chrono>
#include <cstring>
#include <stdexcept>
#include <string>

static const unsigned IN_W = 10, OUT_W = 16;

template <class T> class Sim final : public SimBase {
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
        uint32_t f = ip[0];
        t->clock = 0;
        t->cmd_valid = f & 1;
        t->out_ready = (f >> 1) & 1;
        t->flush = (f >> 2) & 1;
        t->cmd_kind = (f >> 3) & 1;
        t->cmd_aa = (f >> 4) & 1;
        t->cmd_prim = ip[1] & 0xffffff;
        t->cmd_tile_x = ip[2] & 0xff;
        t->cmd_tile_y = (ip[2] >> 8) & 0xff;
        t->cmd_v0x = ip[3] & 0xffffff;
        t->cmd_v0y = ip[4] & 0xffffff;
        t->cmd_v1x = ip[5] & 0xffffff;
        t->cmd_v1y = ip[6] & 0xffffff;
        t->cmd_v2x = ip[7] & 0xffffff;
        t->cmd_v2y = ip[8] & 0xffffff;
        t->cmd_size = ip[9] & 0xffffff;
        t->eval();
        dump(cycle * 10);
    }

    inline void sample(uint32_t* op) {
        T* t = top.get();
        op[0] = uint32_t(t->cmd_ready) | (uint32_t(t->out_valid) << 1) | (uint32_t(t->out_last) << 2) |
                (uint32_t(t->out_lane_valid & 0xf) << 4);
        op[1] = t->out_prim;
        op[2] = t->out_qx_0 | (uint32_t(t->out_qy_0) << 16);
        op[3] = t->out_qx_1 | (uint32_t(t->out_qy_1) << 16);
        op[4] = t->out_qx_2 | (uint32_t(t->out_qy_2) << 16);
        op[5] = t->out_qx_3 | (uint32_t(t->out_qy_3) << 16);
        const uint64_t m[4] = {t->out_mask_0, t->out_mask_1, t->out_mask_2, t->out_mask_3};
        for (int l = 0; l < 4; l++) {
            op[6 + 2 * l] = uint32_t(m[l]);
            op[7 + 2 * l] = uint32_t(m[l] >> 32);
        }
        op[14] = uint32_t(t->out_block_0) | (uint32_t(t->out_block_1) << 8) | (uint32_t(t->out_block_2) << 16) |
                 (uint32_t(t->out_block_3) << 24);
        op[15] = 0;
    }

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

std::unique_ptr<Model> new_model(rust::Str preset) {
    std::string p(preset);
    auto m = std::make_unique<Model>();
    if (p == "ice40") m->sim.reset(new Sim<Vtilerast_ice40>());
    else if (p == "default") m->sim.reset(new Sim<Vtilerast_default>());
    else if (p == "full") m->sim.reset(new Sim<Vtilerast_full>());
    else if (p == "ice40_1x") m->sim.reset(new Sim<Vtilerast_ice40_1x>());
    else if (p == "ice40_mut") m->sim.reset(new Sim<Vtilerast_ice40_mut>());
    else throw std::runtime_error("unknown RTL model `" + p + "` (known: ice40, default, full, ice40_1x, ice40_mut)");
    return m;
}

void run(Model& m, uint32_t cycles, rust::Slice<const uint32_t> in, rust::Slice<uint32_t> out) {
    if (in.size() < size_t(cycles) * IN_W || out.size() < size_t(cycles) * OUT_W)
        throw std::runtime_error("run: buffer too small");
    m.sim->run(cycles, in.data(), out.data());
}

void open_trace(Model& m, rust::Str path, uint64_t from_cycle) { m.sim->open_trace(std::string(path), from_cycle); }

Replay replay_timed(Model& m, rust::Slice<const uint32_t> in, rust::Slice<const uint32_t> want,
                    rust::Slice<uint32_t> out) {
    uint64_t cycles = in.size() / IN_W;
    if (in.size() % IN_W || want.size() < cycles * OUT_W || out.size() < cycles * OUT_W)
        throw std::runtime_error("replay_timed: buffer sizes do not match");
    Replay r;
    r.nanos = m.sim->replay_timed(cycles, in.data(), want.data(), out.data(), &r.first_bad);
    return r;
}
