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

#include "icl/config.h"

namespace bb::icl {

// How a tensor is initialised (GPT-2's _init_weights; the read-in and read-out are plain
// nn.Linear layers outside GPT2Model, with PyTorch's default init).
enum class Init {
  normal,           // N(0, init_std)
  normal_residual,  // N(0, init_std / sqrt(2 layers)): c_proj of attention and MLP
  linear_default,   // U(-1/sqrt(fan_in), 1/sqrt(fan_in)) (nn.Linear's weight and bias)
  zeros,
  ones,
  head_value0,  // raw value of slot 0 at its initial value
  head_value1,
};

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
  struct Layer {
    T *ln1_w = nullptr, *ln1_b = nullptr;  // (C), full only
    T *qkv_w, *qkv_b;                      // (3C, C), (3C): rows [q; k; v]
    T *proj_w, *proj_b;                    // (C, C), (C)
    T *ln2_w = nullptr, *ln2_b = nullptr;  // (C), full only
    T *fc_w = nullptr, *fc_b = nullptr;    // (4C, C), (4C), full only
    T *fc_proj_w = nullptr, *fc_proj_b = nullptr;  // (C, 4C), (C), full only
    T *raw0 = nullptr, *raw1 = nullptr;    // (H) raw trainable values of the attention function
  };
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
