#include "icl/parameters.h"

#include <cmath>

#include "common/error.h"

namespace bb::icl {

blocks::CausalBlockSpec block_spec(const Config& c) {
  return {.hidden = c.hidden, .heads = c.heads, .ffn = c.ffn(), .mlp = c.has_mlp(),
          .residual = c.residual(), .layer_norm_eps = c.layer_norm_eps, .attention = c.attention,
          .frozen0 = c.head_value_frozen(0), .frozen1 = c.head_value_frozen(1),
          .head_value_prefix = ""};
}

Layout::Layout(const Config& c) {
  const int64_t C = c.hidden;
  auto add = [&](const std::string& name, std::vector<int64_t> shape, Init init, int fan_in = 0) {
    ParamTensor t{name, std::move(shape), total, 1, init, fan_in};
    for (int64_t d : t.shape) t.size *= d;
    total += t.size;
    index[name] = tensors.size();
    tensors.push_back(std::move(t));
  };
  add("_read_in.weight", {C, c.dims}, Init::linear_default, c.dims);
  add("_read_in.bias", {C}, Init::linear_default, c.dims);
  add("_backbone.wpe.weight", {c.positions, C}, Init::normal);
  const std::vector<blocks::BlockTensor> block = blocks::causal_block_tensors(block_spec(c));
  for (int l = 0; l < c.layers; ++l) {
    const std::string p = "_backbone.h." + std::to_string(l) + ".";
    for (const blocks::BlockTensor& t : block) add(p + t.name, t.shape, t.init);
  }
  add("_backbone.ln_f.weight", {C}, Init::ones);
  add("_backbone.ln_f.bias", {C}, Init::zeros);
  add("_read_out.weight", {1, C}, Init::linear_default, int(C));
  add("_read_out.bias", {1}, Init::linear_default, int(C));
}

const ParamTensor* Layout::find(const std::string& name) const {
  const auto it = index.find(name);
  return it == index.end() ? nullptr : &tensors[it->second];
}

const ParamTensor& Layout::at(const std::string& name) const {
  const ParamTensor* t = find(name);
  BB_CHECK(t, "internal: no ICL parameter named {}", name);
  return *t;
}

template <typename T>
Views<T>::Views(const Layout& layout, const Config& c, T* base) {
  auto ptr = [&](const std::string& name) -> T* {
    const ParamTensor* t = layout.find(name);
    return t ? base + t->offset : nullptr;
  };
  read_in_w = ptr("_read_in.weight"), read_in_b = ptr("_read_in.bias");
  wpe = ptr("_backbone.wpe.weight");
  const blocks::CausalBlockSpec spec = block_spec(c);
  for (int l = 0; l < c.layers; ++l) {
    const std::string p = "_backbone.h." + std::to_string(l) + ".";
    layers.push_back(blocks::causal_block_weights<T>(
        spec, [&](const std::string& name) { return ptr(p + name); }));
  }
  ln_f_w = ptr("_backbone.ln_f.weight"), ln_f_b = ptr("_backbone.ln_f.bias");
  read_out_w = ptr("_read_out.weight"), read_out_b = ptr("_read_out.bias");
}

double raw_head_value(int slot, double effective) {
  return slot == 0 ? std::log(effective) : std::log(effective - 1.0);
}

double effective_head_value(int slot, double raw) {
  return slot == 0 ? std::exp(raw) : 1.0 + std::exp(raw);
}

template struct Views<float>;
template struct Views<double>;

}  // namespace bb::icl
