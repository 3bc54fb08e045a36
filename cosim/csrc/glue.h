#pragma once
#include <cstdint>
#include <memory>
#include "rust/cxx.h"
#include "sim.h"

// Per-cycle words: the core's ports flattened into `in_bits` / `out_bits` by a wrapper that
// build.rs generates from the Verilog (IN_W / OUT_W words, `core_layout.h`; the port table is
// `core_ports.rs`, included by src/lib.rs).
// Outputs are sampled with the clock low after the inputs settled, i.e. before the edge.

struct Model {
    std::unique_ptr<SimBase> sim;
};

std::unique_ptr<Model> new_model(rust::Str preset);
void run(Model& m, uint32_t cycles, rust::Slice<const uint32_t> in, rust::Slice<uint32_t> out);
void open_trace(Model& m, rust::Str path, uint64_t from_cycle);
struct Replay;
Replay replay_timed(Model& m, rust::Slice<const uint32_t> in, rust::Slice<const uint32_t> want,
                    rust::Slice<uint32_t> out);
