#pragma once
#include <cstdint>
#include <memory>
#include "rust/cxx.h"

// Per-cycle word layout (keep in sync with src/lib.rs):
//   IN  (10 words): [0] flags: b0 cmd_valid, b1 out_ready, b2 flush, b3 cmd_kind, b4 cmd_aa
//                   [1] cmd_prim  [2] cmd_tile_x | cmd_tile_y << 8
//                   [3..8] cmd_v0x v0y v1x v1y v2x v2y (low 24 bits)  [9] cmd_size
//   OUT (16 words): [0] b0 cmd_ready, b1 out_valid, b2 out_last, b4..7 out_lane_valid
//                   [1] out_prim  [2..5] out_qx_l | out_qy_l << 16
//                   [6..13] out_mask_l (lo, hi)  [14] out_block_0..3 (one byte each)  [15] 0
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
