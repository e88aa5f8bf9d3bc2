// All parameters in one contiguous buffer, named as HF names them. The same layout indexes the
// gradients and both Adam moments. Inside a layer, query/key/value weights (and biases) are
// adjacent, so they form one (3C, C) matrix for a fused QKV GEMM.
// The scoring functions' trainable values are kept raw here (SSA's beta and nu, softmax-t's log
// tau); model.safetensors holds their effective values under their own names (effective_value).
#pragma once
#include <cstdint>
#include <string>
#include <unordered_map>
#include <vector>

#include "blocks/causal_block.h"
#include "blocks/encoder_block.h"
#include "encoder/config.h"

namespace bb {

// What a tensor is (the blocks tier's roles: blocks/encoder_block.h). head_value0/1: the attention
// function's trainable value of that slot (its table row says what it is: SSA's b and n,
// softmax-t's τ), whatever the function.
using ParamKind = blocks::TensorRole;

// The encoder block of c's layers.
blocks::EncoderBlockSpec block_spec(const Config& c);

// A scoring function's trainable value: raw here, effective in model.safetensors and the ops.
constexpr bool is_head_value(ParamKind k) {
  return k == ParamKind::head_value0 || k == ParamKind::head_value1;
}
// The slot's raw map (backend/attention_function.h, the same for every function): slot 0
// exp(raw) (> 0: b, τ), slot 1 1 + exp(raw) (> 1: n). Other kinds: unchanged.
double effective_value(ParamKind k, double raw);
double raw_value(ParamKind k, double effective);
// Effective values must be above this: 1 for slot 1, 0 for slot 0.
double effective_lower_bound(ParamKind k);
// The kind of a scoring function's trainable value `slot` and back.
ParamKind head_value_kind(int slot);
int head_value_slot(ParamKind k);

struct ParamTensor {
  std::string name;
  std::string saved_name;  // its name in model.safetensors (the effective value's, HF's)
  std::vector<int64_t> shape;
  int64_t offset = 0;
  int64_t size = 0;
  ParamKind kind = ParamKind::matrix;
  // gpt2: how GPT-2 initialises it (roberta's matrices are all a truncated normal).
  blocks::Init init = blocks::Init::zeros;
  // gpt2's Conv1D weights: (out, in) here as nn.Linear, [in, out] in model.safetensors as HF's
  // GPT2 stores them (saved and loaded transposed).
  bool conv1d = false;
  std::vector<int64_t> saved_shape() const;
};

// The tensors of a model of c's kind, in buffer order (offsets and sizes set).
struct ParamLayout {
  std::vector<ParamTensor> tensors;
  int64_t total = 0;
  std::unordered_map<std::string, size_t> index;  // name -> position in tensors

  explicit ParamLayout(const Config& c);
  const ParamTensor& at(const std::string& name) const;
  // Appends a tensor after the last (the kinds' layouts are built with it).
  void add(ParamTensor t);
};

// Typed views into one buffer laid out by ParamLayout (values or gradients).
template <typename T>
struct ParamViews {
  // A layer's tensors: the encoder block's (blocks/encoder_block.h; the function's raw values
  // ssa: beta, nu; softmax-t: log tau, raw1 null; null without them).
  using Layer = blocks::EncoderBlockWeights<T>;
  T *wte, *wpe, *wtt, *emb_ln_w, *emb_ln_b;  // (V,C), (P,C), (1,C), (C), (C)
  std::vector<Layer> layers;
  T *head_dense_w, *head_dense_b, *head_ln_w, *head_ln_b, *head_bias;  // (C,C) (C) (C) (C) (V)

  ParamViews(const ParamLayout& layout, const Config& c, T* base);
};

}  // namespace bb
