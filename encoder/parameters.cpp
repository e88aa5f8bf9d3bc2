#include "encoder/parameters.h"

#include <cmath>

#include "common/error.h"

namespace bb {

namespace {

// Symbolic dimensions: hidden C, feed-forward F, vocabulary V, positions P, heads H.
enum class Dim { none, one, C, F, V, P, H };

template <typename T>
using Slot = T* ParamViews<T>::*;
template <typename T>
using LayerSlot = T* ParamViews<T>::Layer::*;

// One parameter tensor: its HF name (after the layer prefix inside a layer), shape (rows, cols;
// cols none: a vector), kind, the view that points at it (null: none, as for key and value,
// which follow query in one (3C, C) block) and, for a raw trainable scoring value, the name of
// its effective value in model.safetensors.
template <typename S>
struct Spec {
  const char* name;
  Dim rows, cols;
  ParamKind kind;
  S slot;
  const char* saved_name = nullptr;  // null: name
};

// The tables below are the layout, in order: embeddings, per layer kLayer (then the attention
// function's trainable values, head_value_specs), then the head. Names and shapes do not depend on T.
template <typename T>
using PV = ParamViews<T>;
template <typename T>
using L = typename ParamViews<T>::Layer;

template <typename T>
const Spec<Slot<T>> kEmbeddings[] = {
    {"roberta.embeddings.word_embeddings.weight", Dim::V, Dim::C, ParamKind::matrix, &PV<T>::wte},
    {"roberta.embeddings.position_embeddings.weight", Dim::P, Dim::C, ParamKind::matrix, &PV<T>::wpe},
    {"roberta.embeddings.token_type_embeddings.weight", Dim::one, Dim::C, ParamKind::matrix, &PV<T>::wtt},
    {"roberta.embeddings.LayerNorm.weight", Dim::C, Dim::none, ParamKind::norm, &PV<T>::emb_ln_w},
    {"roberta.embeddings.LayerNorm.bias", Dim::C, Dim::none, ParamKind::bias, &PV<T>::emb_ln_b},
};

template <typename T>
const Spec<LayerSlot<T>> kLayer[] = {
    {"attention.self.query.weight", Dim::C, Dim::C, ParamKind::matrix, &L<T>::qkv_w},
    {"attention.self.key.weight", Dim::C, Dim::C, ParamKind::matrix, nullptr},
    {"attention.self.value.weight", Dim::C, Dim::C, ParamKind::matrix, nullptr},
    {"attention.self.query.bias", Dim::C, Dim::none, ParamKind::bias, &L<T>::qkv_b},
    {"attention.self.key.bias", Dim::C, Dim::none, ParamKind::bias, nullptr},
    {"attention.self.value.bias", Dim::C, Dim::none, ParamKind::bias, nullptr},
    {"attention.output.dense.weight", Dim::C, Dim::C, ParamKind::matrix, &L<T>::attn_out_w},
    {"attention.output.dense.bias", Dim::C, Dim::none, ParamKind::bias, &L<T>::attn_out_b},
    {"attention.output.LayerNorm.weight", Dim::C, Dim::none, ParamKind::norm, &L<T>::ln1_w},
    {"attention.output.LayerNorm.bias", Dim::C, Dim::none, ParamKind::bias, &L<T>::ln1_b},
    {"intermediate.dense.weight", Dim::F, Dim::C, ParamKind::matrix, &L<T>::ffn_in_w},
    {"intermediate.dense.bias", Dim::F, Dim::none, ParamKind::bias, &L<T>::ffn_in_b},
    {"output.dense.weight", Dim::C, Dim::F, ParamKind::matrix, &L<T>::ffn_out_w},
    {"output.dense.bias", Dim::C, Dim::none, ParamKind::bias, &L<T>::ffn_out_b},
    {"output.LayerNorm.weight", Dim::C, Dim::none, ParamKind::norm, &L<T>::ln2_w},
    {"output.LayerNorm.bias", Dim::C, Dim::none, ParamKind::bias, &L<T>::ln2_b},
};

// The per-layer trainable values of c's attention function (empty: none), named by the
// attention-function table (whose strings are literals, so .data() is null-terminated).
template <typename T>
std::vector<Spec<LayerSlot<T>>> head_value_specs(const Config& c) {
  const AttentionFunctionSpec& f = attention_function_spec(c.attention);
  std::vector<Spec<LayerSlot<T>>> specs;
  for (int slot = 0; slot < f.value_count; ++slot) {
    const HeadValueSpec& v = f.values[size_t(slot)];
    specs.push_back({v.raw_tensor.data(), Dim::H, Dim::none, head_value_kind(slot),
                     slot == 0 ? &L<T>::head_raw0 : &L<T>::head_raw1, v.effective_tensor.data()});
  }
  return specs;
}

template <typename T>
const Spec<Slot<T>> kHead[] = {
    {"lm_head.dense.weight", Dim::C, Dim::C, ParamKind::matrix, &PV<T>::head_dense_w},
    {"lm_head.dense.bias", Dim::C, Dim::none, ParamKind::bias, &PV<T>::head_dense_b},
    {"lm_head.layer_norm.weight", Dim::C, Dim::none, ParamKind::norm, &PV<T>::head_ln_w},
    {"lm_head.layer_norm.bias", Dim::C, Dim::none, ParamKind::bias, &PV<T>::head_ln_b},
    {"lm_head.bias", Dim::V, Dim::none, ParamKind::bias, &PV<T>::head_bias},
};

std::string layer_prefix(int l) { return "roberta.encoder.layer." + std::to_string(l) + "."; }

int64_t size_of(Dim d, const Config& c) {
  switch (d) {
    case Dim::one: return 1;
    case Dim::C: return c.hidden;
    case Dim::F: return c.ffn;
    case Dim::V: return c.vocab_size;
    case Dim::P: return c.max_positions;
    case Dim::H: return c.heads;
    case Dim::none: break;
  }
  return 0;
}

}  // namespace

double effective_value(ParamKind k, double raw) {
  if (k == ParamKind::head_value0) return std::exp(raw);
  if (k == ParamKind::head_value1) return 1 + std::exp(raw);
  return raw;
}

double raw_value(ParamKind k, double effective) {
  if (k == ParamKind::head_value0) return std::log(effective);
  if (k == ParamKind::head_value1) return std::log(effective - 1);
  return effective;
}

double effective_lower_bound(ParamKind k) { return k == ParamKind::head_value1 ? 1 : 0; }

int head_value_slot(ParamKind k) { return k == ParamKind::head_value1 ? 1 : 0; }

ParamKind head_value_kind(int slot) {
  return slot == 0 ? ParamKind::head_value0 : ParamKind::head_value1;
}

ParamLayout::ParamLayout(const Config& c) {
  auto add_all = [&](const std::string& prefix, const auto& specs) {
    for (const auto& s : specs) {
      std::vector<int64_t> shape{size_of(s.rows, c)};
      if (s.cols != Dim::none) shape.push_back(size_of(s.cols, c));
      int64_t n = 1;
      for (auto d : shape) n *= d;
      index.emplace(prefix + s.name, tensors.size());
      tensors.push_back({prefix + s.name, prefix + (s.saved_name ? s.saved_name : s.name),
                         std::move(shape), total, n, s.kind});
      total += n;
    }
  };
  add_all("", kEmbeddings<float>);
  for (int l = 0; l < c.layers; ++l) {
    add_all(layer_prefix(l), kLayer<float>);
    add_all(layer_prefix(l), head_value_specs<float>(c));
  }
  add_all("", kHead<float>);
}

const ParamTensor& ParamLayout::at(const std::string& name) const {
  const auto it = index.find(name);
  BB_CHECK(it != index.end(), "internal: no parameter named {}", name);
  return tensors[it->second];
}

template <typename T>
ParamViews<T>::ParamViews(const ParamLayout& layout, const Config& c, T* base) {
  auto p = [&](const std::string& name) { return base + layout.at(name).offset; };
  for (const auto& s : kEmbeddings<T>) this->*s.slot = p(s.name);
  for (int l = 0; l < c.layers; ++l) {
    Layer layer{};  // head_raw0, head_raw1 stay null without trainable scoring values
    for (const auto& s : kLayer<T>)
      if (s.slot) layer.*s.slot = p(layer_prefix(l) + s.name);
    for (const auto& s : head_value_specs<T>(c)) layer.*s.slot = p(layer_prefix(l) + s.name);
    layers.push_back(layer);
  }
  for (const auto& s : kHead<T>) this->*s.slot = p(s.name);
}

template struct ParamViews<float>;
template struct ParamViews<double>;

}  // namespace bb
