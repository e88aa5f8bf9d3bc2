// One arena for a model's activations (llm.c's ActivationTensors): a kind lists its tensors once,
// in arena order, and that one list both sizes the arena and carves it (the roberta kind's
// encoder/activations.cpp, the gpt2 kind's causal_lm/passes.cpp).
#pragma once
#include <algorithm>
#include <cstdint>

#include "common/buffer.h"
#include "encoder/batch.h"

namespace bb {

// Where a tensor starts: a 64-byte line (16 floats; for double 128 bytes, still whole lines), or
// right after the previous tensor.
enum class ArenaStart { line, packed };

// Sizes `arena` (zero-filled) and points every tensor into it: list(take) calls
// take(T*& tensor, int64_t elements, ArenaStart) for every tensor in arena order, twice.
template <typename T, typename List>
void carve_arena(Array<T>& arena, List&& list) {
  int64_t total = 0;
  list([&total](T*&, int64_t n, ArenaStart start) {
    if (start == ArenaStart::line) total = (total + 15) / 16 * 16;
    total += n;
  });
  arena.assign(size_t(total), T(0));
  int64_t at = 0;
  list([&at, base = arena.data()](T*& tensor, int64_t n, ArenaStart start) {
    if (start == ArenaStart::line) at = (at + 15) / 16 * 16;
    tensor = base + at;
    at += n;
  });
}

// The elements of one layer's attention store (scores, weights or dropout mask) at capacity:
// per sequence b and head h an (L_b, L_b) block, H * min(B * max_len^2, max_len * N).
inline int64_t attention_store_elements(const Capacity& cap, int heads) {
  return int64_t(heads) *
         std::min(int64_t(cap.max_seqs) * cap.max_len * cap.max_len,
                  int64_t(cap.max_len) * cap.max_tokens);
}

}  // namespace bb
