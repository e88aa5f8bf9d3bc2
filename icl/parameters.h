// The ICL model's parameters in one contiguous buffer (values, gradients and both Adam moments
// share the layout). Names follow the authors' TransformerModel (`_read_in`, `_backbone` = HF
// GPT2Model, `_read_out`), with each linear weight stored (out, in) as nn.Linear stores it (HF's
// Conv1D stores c_attn, c_proj, c_fc transposed; tests/fixtures/make_icl_parity.py transposes).
// The attention function's trainable values are kept raw here (backend/attention_function.h).
#pragma once
#include <cstdint>
#include <string>
#include <unordered_map>
#include <vector>

#include "blocks/causal_block.h"
#include "icl/config.h"

namespace bb::icl {

using Init = blocks::Init;  // how a tensor is initialised (GPT-2's _init_weights)

// The causal block every layer is (blocks/causal_block.h), as the config says.
blocks::CausalBlockSpec block_spec(const Config& c);

struct ParamTensor {
  std::string name;
  std::vector<int64_t> shape;
  int64_t offset = 0, size = 0;
  Init init = Init::normal;
  int fan_in = 0;  // linear_default
};

struct Layout {
  std::vector<ParamTensor> tensors;
  int64_t total = 0;
  std::unordered_map<std::string, size_t> index;
  explicit Layout(const Config& c);
  const ParamTensor& at(const std::string& name) const;
  const ParamTensor* find(const std::string& name) const;
};

// Typed views into a buffer laid out by Layout; null where the architecture has no such tensor.
template <typename T>
struct Views {
  using Layer = blocks::CausalBlockWeights<T>;  // a layer's tensors (null: not in the arch)
  T *read_in_w, *read_in_b;  // (C, dims), (C)
  T* wpe;                    // (positions, C)
  std::vector<Layer> layers;
  T *ln_f_w, *ln_f_b;            // (C)
  T *read_out_w, *read_out_b;    // (1, C), (1)
  Views(const Layout& layout, const Config& c, T* base);
};

// Raw value of an effective trainable value (slot 0: log v; slot 1: log(v - 1)).
double raw_head_value(int slot, double effective);
// The inverse: slot 0 exp(raw), slot 1 1 + exp(raw) (ops::head_values_effective's maps).
double effective_head_value(int slot, double raw);

}  // namespace bb::icl
