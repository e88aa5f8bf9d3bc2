#include "causal_lm/parameters.h"

#include "common/error.h"
#include "encoder/parameters.h"

namespace bb {

namespace {

using blocks::Init;

// What a tensor is to the optimiser (weight decay on matrices), from how GPT-2 initialises it.
ParamKind role_of(Init init) {
  switch (init) {
    case Init::normal:
    case Init::normal_residual:
    case Init::linear_default: return ParamKind::matrix;
    case Init::zeros: return ParamKind::bias;
    case Init::ones: return ParamKind::norm;
    case Init::head_value0: return ParamKind::head_value0;
    case Init::head_value1: return ParamKind::head_value1;
  }
  fail("internal: unknown initialisation");
}

// HF's Conv1D layers, stored [in, out] in model.safetensors.
bool is_conv1d(const std::string& name) {
  for (const char* w : {"attn.c_attn.weight", "attn.c_proj.weight", "mlp.c_fc.weight",
                        "mlp.c_proj.weight"})
    if (name == w) return true;
  return false;
}

}  // namespace

blocks::CausalBlockSpec causal_lm_block_spec(const Config& c) {
  return {.hidden = c.hidden, .heads = c.heads, .ffn = c.ffn, .mlp = true, .residual = true,
          .layer_norm_eps = c.layer_norm_eps, .attention = c.attention,
          .frozen0 = c.head_value_frozen(0), .frozen1 = c.head_value_frozen(1),
          .head_value_prefix = "attn."};
}

std::string causal_lm_layer_prefix(int l) { return "transformer.h." + std::to_string(l) + "."; }

void causal_lm_layout(const Config& c, ParamLayout& layout) {
  const int64_t V = c.vocab_size, C = c.hidden, P = c.max_positions;
  auto add = [&](std::string name, std::string saved, std::vector<int64_t> shape, Init init,
                 bool conv1d) {
    layout.add({.name = std::move(name), .saved_name = std::move(saved), .shape = std::move(shape),
                .kind = role_of(init), .init = init, .conv1d = conv1d});
  };
  add("transformer.wte.weight", "", {V, C}, Init::normal, false);
  add("transformer.wpe.weight", "", {P, C}, Init::normal, false);
  const std::vector<blocks::BlockTensor> block =
      blocks::causal_block_tensors(causal_lm_block_spec(c));
  for (int l = 0; l < c.layers; ++l)
    for (const blocks::BlockTensor& t : block)
      add(causal_lm_layer_prefix(l) + t.name, causal_lm_layer_prefix(l) + t.saved_name, t.shape,
          t.init, is_conv1d(t.name));
  add("transformer.ln_f.weight", "", {C}, Init::ones, false);
  add("transformer.ln_f.bias", "", {C}, Init::zeros, false);
}

template <typename T>
CausalLmViews<T>::CausalLmViews(const ParamLayout& layout, const Config& c, T* base) {
  auto p = [&](const std::string& name) { return base + layout.at(name).offset; };
  wte = p("transformer.wte.weight");
  wpe = p("transformer.wpe.weight");
  const blocks::CausalBlockSpec spec = causal_lm_block_spec(c);
  for (int l = 0; l < c.layers; ++l) {
    const std::string prefix = causal_lm_layer_prefix(l);
    layers.push_back(blocks::causal_block_weights<T>(spec, [&](const std::string& name) -> T* {
      const auto it = layout.index.find(prefix + name);
      return it == layout.index.end() ? nullptr : base + layout.tensors[it->second].offset;
    }));
  }
  ln_f_w = p("transformer.ln_f.weight");
  ln_f_b = p("transformer.ln_f.bias");
}

template struct CausalLmViews<float>;
template struct CausalLmViews<double>;

}  // namespace bb
