// Per-block Verilator models behind the `src/blocks.rs` cxx bridge.
//
// Every block `tilerast_<preset>__<block>` is verilated inside a generated wrapper
// `blk_<preset>_<stage>(clock, in_bits, out_bits)` (see `build/blocks.rs`) that flattens its
// ports into two bit vectors. The Rust side packs one cycle's inputs into `in_words` u32 words
// (bit i of `in_bits` = bit i%32 of word i/32) and gets `out_words` words back per cycle, in
// batches: one FFI call runs many cycles.
//
// One cycle, the same as `csrc/glue.cpp` and `CycleModel`:
//   clock=0, apply in_bits, eval  ->  sample out_bits (registered outputs and the
//   combinational in_ready)  ->  clock=1, eval (the rising edge).
#pragma once
#include <cstdint>
#include <memory>
#include <string>
#include "rust/cxx.h"

namespace tilerast_blocks {

// A verilated block; `BlockSim<T>` in blocks.cpp implements it for every generated model.
class BlockSimBase {
public:
    BlockSimBase(uint32_t in_words, uint32_t out_words) : in_words(in_words), out_words(out_words) {}
    virtual ~BlockSimBase() {}
    virtual void run(uint32_t cycles, const uint32_t* in, uint32_t* out) = 0;
    const uint32_t in_words, out_words;
};

struct BlockModel {
    std::unique_ptr<BlockSimBase> sim;
};

// `name` is "<preset>/<stage>", e.g. "ice40/setup"; throws if no such block was built.
std::unique_ptr<BlockModel> new_block(rust::Str name);
// Run `cycles` cycles: `in` holds in_words per cycle, `out` receives out_words per cycle.
void block_run(BlockModel& m, uint32_t cycles, rust::Slice<const uint32_t> in, rust::Slice<uint32_t> out);
uint32_t block_in_words(const BlockModel& m);
uint32_t block_out_words(const BlockModel& m);

}  // namespace tilerast_blocks
