// Copy between u32 words and Verilator's port types (CData/SData/IData/QData, VlWide<N>
// beyond 64 bits), chosen by overload. Used by every flattened-port model: the cores
// (glue.cpp) and the per-block models (blocks.cpp).
#pragma once
#include "verilated.h"
#include <cstdint>

namespace tilerast_words {

static inline void put(CData& d, const uint32_t* w) { d = CData(w[0]); }
static inline void put(SData& d, const uint32_t* w) { d = SData(w[0]); }
static inline void put(IData& d, const uint32_t* w) { d = w[0]; }
static inline void put(QData& d, const uint32_t* w) { d = QData(w[0]) | (QData(w[1]) << 32); }
template <std::size_t N> static inline void put(VlWide<N>& d, const uint32_t* w) {
    for (std::size_t i = 0; i < N; i++) d.m_storage[i] = w[i];
}
static inline void get(const CData& s, uint32_t* w) { w[0] = s; }
static inline void get(const SData& s, uint32_t* w) { w[0] = s; }
static inline void get(const IData& s, uint32_t* w) { w[0] = s; }
static inline void get(const QData& s, uint32_t* w) {
    w[0] = uint32_t(s);
    w[1] = uint32_t(s >> 32);
}
template <std::size_t N> static inline void get(const VlWide<N>& s, uint32_t* w) {
    for (std::size_t i = 0; i < N; i++) w[i] = s.m_storage[i];
}

}  // namespace tilerast_words
