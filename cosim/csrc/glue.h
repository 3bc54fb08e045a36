#pragma once
#include <cstdint>
#include <memory>
#include "rust/cxx.h"

// Per-cycle words: the core's ports flattened into `in_bits` / `out_bits` by a wrapper that
// build.rs generates from the Verilog (IN_W / OUT_W words, `core_layout.h`; the port table is
// `core_ports.rs`, included by src/lib.rs).
// Outputs are sampled with the clock low after the inputs settled, i.e. before the edge.

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

struct Model {
    std::unique_ptr<SimBase> sim;
};

std::unique_ptr<Model> new_model(rust::Str preset);
void run(Model& m, uint32_t cycles, rust::Slice<const uint32_t> in, rust::Slice<uint32_t> out);
void open_trace(Model& m, rust::Str path, uint64_t from_cycle);
struct Replay;
Replay replay_timed(Model& m, rust::Slice<const uint32_t> in, rust::Slice<const uint32_t> want,
                    rust::Slice<uint32_t> out);
