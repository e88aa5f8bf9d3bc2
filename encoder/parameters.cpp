#include "encoder/parameters.h"

#include <cmath>

#include "causal_lm/parameters.h"
#include "common/error.h"

namespace bb {

namespace {

// Symbolic dimensions: hidden C, feed-forward F, vocabulary V, positions P, heads H.
enum class Dim { none, one, C, F, V, P, H };

template <typename T>
using Slot = T* ParamViews<T>::*;

// One parameter tensor outside the layers: its HF name, shape (rows, cols; cols none: a vector),
// kind and the view that points at it.
template <typename S>
struct Spec {
  const char* name;
  Dim rows, cols;
  ParamKind kind;
  S slot;
};

// The layout, in order: the embeddings below, per layer the encoder block's tensors (which it
// declares: blocks/encoder_block.h), then the head. Names and shapes do not depend on T.
template <typename T>
using PV = ParamViews<T>;

template <typename T>
const Spec<Slot<T>> kEmbeddings[] = {
    {"roberta.embeddings.word_embeddings.weight", Dim::V, Dim::C, ParamKind::matrix, &PV<T>::wte},
    {"roberta.embeddings.position_embeddings.weight", Dim::P, Dim::C, ParamKind::matrix, &PV<T>::wpe},
    {"roberta.embeddings.token_type_embeddings.weight", Dim::one, Dim::C, ParamKind::matrix, &PV<T>::wtt},
    {"roberta.embeddings.LayerNorm.weight", Dim::C, Dim::none, ParamKind::norm, &PV<T>::emb_ln_w},
    {"roberta.embeddings.LayerNorm.bias", Dim::C, Dim::none, ParamKind::bias, &PV<T>::emb_ln_b},
};

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

blocks::EncoderBlockSpec block_spec(const Config& c) {
  return {.hidden = c.hidden, .heads = c.heads, .ffn = c.ffn, .layer_norm_eps = c.layer_norm_eps,
          .attention = c.attention, .frozen0 = c.head_value_frozen(0),
          .frozen1 = c.head_value_frozen(1)};
}

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

void ParamLayout::add(ParamTensor t) {
  int64_t n = 1;
  for (auto d : t.shape) n *= d;
  t.offset = total, t.size = n;
  if (t.saved_name.empty()) t.saved_name = t.name;
  index.emplace(t.name, tensors.size());
  tensors.push_back(std::move(t));
  total += n;
}

std::vector<int64_t> ParamTensor::saved_shape() const {
  if (!conv1d) return shape;
  return {shape.at(1), shape.at(0)};
}

namespace {

// RoBERTa's: the embeddings, per layer the encoder block's tensors (which it declares:
// blocks/encoder_block.h), then the head.
void roberta_layout(const Config& c, ParamLayout& layout) {
  auto add_all = [&](const auto& specs) {
    for (const auto& s : specs) {
      std::vector<int64_t> shape{size_of(s.rows, c)};
      if (s.cols != Dim::none) shape.push_back(size_of(s.cols, c));
      layout.add({.name = s.name, .saved_name = s.name, .shape = std::move(shape), .kind = s.kind});
    }
  };
  add_all(kEmbeddings<float>);
  const std::vector<blocks::EncoderBlockTensor> block = blocks::encoder_block_tensors(block_spec(c));
  for (int l = 0; l < c.layers; ++l)
    for (const blocks::EncoderBlockTensor& t : block)
      layout.add({.name = layer_prefix(l) + t.name, .saved_name = layer_prefix(l) + t.saved_name,
                  .shape = t.shape, .kind = t.role});
  add_all(kHead<float>);
}

}  // namespace

ParamLayout::ParamLayout(const Config& c) {
  switch (c.kind) {
    case ModelKind::roberta: roberta_layout(c, *this); return;
    case ModelKind::gpt2: causal_lm_layout(c, *this); return;
    case ModelKind::icl_gpt2: break;
  }
  fail("internal: no text-model layout for the ICL kind");
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
  const blocks::EncoderBlockSpec spec = block_spec(c);
  for (int l = 0; l < c.layers; ++l)
    layers.push_back(blocks::encoder_block_weights<T>(
        spec, [&](const std::string& name) { return p(layer_prefix(l) + name); }));
  for (const auto& s : kHead<T>) this->*s.slot = p(s.name);
}

template struct ParamViews<float>;
template struct ParamViews<double>;

}  // namespace bb
