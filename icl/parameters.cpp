#include "icl/parameters.h"

#include <cmath>

#include "common/error.h"

namespace bb::icl {

Layout::Layout(const Config& c) {
  const int64_t C = c.hidden, F = c.ffn(), H = c.heads;
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
  const int values = head_value_count(c.attention);
  for (int l = 0; l < c.layers; ++l) {
    const std::string p = "_backbone.h." + std::to_string(l) + ".";
    if (c.has_mlp()) {
      add(p + "ln_1.weight", {C}, Init::ones);
      add(p + "ln_1.bias", {C}, Init::zeros);
    }
    add(p + "attn.c_attn.weight", {3 * C, C}, Init::normal);
    add(p + "attn.c_attn.bias", {3 * C}, Init::zeros);
    add(p + "attn.c_proj.weight", {C, C}, Init::normal_residual);
    add(p + "attn.c_proj.bias", {C}, Init::zeros);
    if (c.has_mlp()) {
      add(p + "ln_2.weight", {C}, Init::ones);
      add(p + "ln_2.bias", {C}, Init::zeros);
      add(p + "mlp.c_fc.weight", {F, C}, Init::normal);
      add(p + "mlp.c_fc.bias", {F}, Init::zeros);
      add(p + "mlp.c_proj.weight", {C, F}, Init::normal_residual);
      add(p + "mlp.c_proj.bias", {C}, Init::zeros);
    }
    const AttentionFunctionSpec& f = attention_function_spec(c.attention);
    for (int slot = 0; slot < values; ++slot)
      add(p + std::string(f.values[size_t(slot)].raw_tensor), {H},
          slot == 0 ? Init::head_value0 : Init::head_value1);
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
  const AttentionFunctionSpec& f = attention_function_spec(c.attention);
  for (int l = 0; l < c.layers; ++l) {
    const std::string p = "_backbone.h." + std::to_string(l) + ".";
    Layer y;
    y.ln1_w = ptr(p + "ln_1.weight"), y.ln1_b = ptr(p + "ln_1.bias");
    y.qkv_w = ptr(p + "attn.c_attn.weight"), y.qkv_b = ptr(p + "attn.c_attn.bias");
    y.proj_w = ptr(p + "attn.c_proj.weight"), y.proj_b = ptr(p + "attn.c_proj.bias");
    y.ln2_w = ptr(p + "ln_2.weight"), y.ln2_b = ptr(p + "ln_2.bias");
    y.fc_w = ptr(p + "mlp.c_fc.weight"), y.fc_b = ptr(p + "mlp.c_fc.bias");
    y.fc_proj_w = ptr(p + "mlp.c_proj.weight"), y.fc_proj_b = ptr(p + "mlp.c_proj.bias");
    if (f.value_count > 0) y.raw0 = ptr(p + std::string(f.values[0].raw_tensor));
    if (f.value_count > 1) y.raw1 = ptr(p + std::string(f.values[1].raw_tensor));
    layers.push_back(y);
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
