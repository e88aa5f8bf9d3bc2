// The causal LM's (kind gpt2) parameters in the one contiguous buffer, named as HF's
// GPT2LMHeadModel names them: transformer.wte, transformer.wpe, per layer transformer.h.{i}. and
// the causal block's tensors (blocks/causal_block.h; the function's values as attn.ssa_b ...), then
// transformer.ln_f. The LM head is wte (tied, no bias) and has no tensor of its own.
#pragma once
#include <string>
#include <vector>

#include "blocks/causal_block.h"
#include "encoder/config.h"

namespace bb {

struct ParamLayout;

// The causal block of a gpt2 config's layers (full blocks; the values under "attn.").
blocks::CausalBlockSpec causal_lm_block_spec(const Config& c);
// "transformer.h.{l}."
std::string causal_lm_layer_prefix(int l);
// Appends the gpt2 tensors of c to `layout`, in buffer order.
void causal_lm_layout(const Config& c, ParamLayout& layout);

// Typed views into a buffer laid out by causal_lm_layout (values or gradients).
template <typename T>
struct CausalLmViews {
  T *wte, *wpe;  // (V, C), (P, C)
  std::vector<blocks::CausalBlockWeights<T>> layers;
  T *ln_f_w, *ln_f_b;  // (C)
  CausalLmViews(const ParamLayout& layout, const Config& c, T* base);
};

}  // namespace bb
