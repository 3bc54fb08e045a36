// The generic per-block simulator: `BlockSim<T>` drives any generated `Vblk_<preset>_<stage>`
// model (see blocks.h for the cycle and word layout). The copy between u32 words and
// Verilator's port types (CData/SData/IData/QData, VlWide<N> beyond 64 bits) is chosen by
// overload, so the generated code (`$OUT_DIR/blocks/blocks_gen.inc`) is only the model list.
#include "blocks.h"
#include "verilated.h"
#include "words.h"
#include "tilerast-cosim/src/blocks.rs.h"
#include <stdexcept>

namespace tilerast_blocks {

using namespace tilerast_words;

template <class T> class BlockSim final : public BlockSimBase {
    std::unique_ptr<VerilatedContext> ctx;
    std::unique_ptr<T> top;

public:
    BlockSim(uint32_t in_words, uint32_t out_words)
        : BlockSimBase(in_words, out_words), ctx(new VerilatedContext) {
        top.reset(new T(ctx.get(), "top"));
        top->clock = 0;
        top->eval();
    }
    ~BlockSim() override { top->final(); }

    void run(uint32_t cycles, const uint32_t* ip, uint32_t* op) override {
        T* t = top.get();
        for (uint32_t c = 0; c < cycles; c++, ip += in_words, op += out_words) {
            t->clock = 0;
            put(t->in_bits, ip);
            t->eval();
            get(t->out_bits, op);
            t->clock = 1;
            t->eval();
        }
    }
};

}  // namespace tilerast_blocks

// The model headers and `tilerast_blocks::make_block(name)` (nullptr for an unknown name).
#include "blocks_gen.inc"

namespace tilerast_blocks {

std::unique_ptr<BlockModel> new_block(rust::Str name) {
    std::string n(name);
    auto m = std::make_unique<BlockModel>();
    m->sim.reset(make_block(n));
    if (!m->sim) throw std::runtime_error("no verilated block `" + n + "` (see cosim/build/blocks.rs)");
    return m;
}

void block_run(BlockModel& m, uint32_t cycles, rust::Slice<const uint32_t> in, rust::Slice<uint32_t> out) {
    if (in.size() < size_t(cycles) * m.sim->in_words || out.size() < size_t(cycles) * m.sim->out_words)
        throw std::runtime_error("block_run: buffer too small");
    m.sim->run(cycles, in.data(), out.data());
}

uint32_t block_in_words(const BlockModel& m) { return m.sim->in_words; }
uint32_t block_out_words(const BlockModel& m) { return m.sim->out_words; }

}  // namespace tilerast_blocks
