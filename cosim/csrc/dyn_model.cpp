// A core verilated on demand (`tilerast regress --config`, src/ondemand.rs), compiled into its
// own shared object and loaded at run time. The same simulation loop as the compiled-in models
// (sim.h), behind a plain C ABI instead of the cxx bridge. Compiled with
//   -DTILERAST_DYN_HEADER='"Vdyn.h"' -DTILERAST_DYN_CLASS=Vdyn -DTILERAST_IN_W=.. -DTILERAST_OUT_W=..
// Errors come back as a message in `err` (a buffer of `err_len` bytes) and a non-zero return.
#include "sim.h"
#include TILERAST_DYN_HEADER
#include <cstdio>
#include <exception>

#define EXPORT __attribute__((visibility("default")))  // built with -fvisibility=hidden

using DynSim = Sim<TILERAST_DYN_CLASS, TILERAST_IN_W, TILERAST_OUT_W>;

static int fail(const std::exception& e, char* err, size_t err_len) {
    if (err && err_len) std::snprintf(err, err_len, "%s", e.what());
    return 1;
}

extern "C" {

// Words per cycle of this model: the Rust side checks them against its port table.
EXPORT void tilerast_dyn_layout(uint32_t* in_w, uint32_t* out_w) {
    *in_w = TILERAST_IN_W;
    *out_w = TILERAST_OUT_W;
}

EXPORT void* tilerast_dyn_new(char* err, size_t err_len) {
    try {
        return static_cast<SimBase*>(new DynSim());
    } catch (const std::exception& e) {
        fail(e, err, err_len);
        return nullptr;
    }
}

EXPORT void tilerast_dyn_free(void* m) { delete static_cast<SimBase*>(m); }

EXPORT int tilerast_dyn_run(void* m, uint32_t cycles, const uint32_t* in, uint32_t* out, char* err, size_t err_len) {
    try {
        static_cast<SimBase*>(m)->run(cycles, in, out);
        return 0;
    } catch (const std::exception& e) {
        return fail(e, err, err_len);
    }
}

EXPORT int tilerast_dyn_open_trace(void* m, const char* path, uint64_t from_cycle, char* err, size_t err_len) {
    try {
        static_cast<SimBase*>(m)->open_trace(std::string(path), from_cycle);
        return 0;
    } catch (const std::exception& e) {
        return fail(e, err, err_len);
    }
}

EXPORT int tilerast_dyn_replay(void* m, uint64_t cycles, const uint32_t* in, const uint32_t* want, uint32_t* out,
                        uint64_t* nanos, uint64_t* first_bad, char* err, size_t err_len) {
    try {
        *nanos = static_cast<SimBase*>(m)->replay_timed(cycles, in, want, out, first_bad);
        return 0;
    } catch (const std::exception& e) {
        return fail(e, err, err_len);
    }
}
}
