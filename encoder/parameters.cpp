#include "encoder/parameters.h"

#include "common/error.h"

namespace bb {

ParamLayout::ParamLayout(const Config& c) {
  const int64_t C = c.hidden, F = c.ffn, V = c.vocab_size, H = c.heads;
  auto add = [&](std::string name, std::vector<int64_t> shape, ParamKind kind) {
    int64_t n = 1;
    for (auto d : shape) n *= d;
    index.emplace(name, tensors.size());
    tensors.push_back({std::move(name), std::move(shape), total, n, kind});
    total += n;
  };
  const std::string e = "roberta.embeddings.";
  add(e + "word_embeddings.weight", {V, C}, ParamKind::matrix);
  add(e + "position_embeddings.weight", {c.max_positions, C}, ParamKind::matrix);
  add(e + "token_type_embeddings.weight", {1, C}, ParamKind::matrix);
  add(e + "LayerNorm.weight", {C}, ParamKind::norm);
  add(e + "LayerNorm.bias", {C}, ParamKind::bias);
  for (int l = 0; l < c.layers; ++l) {
    const std::string p = "roberta.encoder.layer." + std::to_string(l) + ".";
    for (const char* qkv : {"query", "key", "value"})
      add(p + "attention.self." + qkv + ".weight", {C, C}, ParamKind::matrix);
    for (const char* qkv : {"query", "key", "value"})
      add(p + "attention.self." + qkv + ".bias", {C}, ParamKind::bias);
    add(p + "attention.output.dense.weight", {C, C}, ParamKind::matrix);
    add(p + "attention.output.dense.bias", {C}, ParamKind::bias);
    add(p + "attention.output.LayerNorm.weight", {C}, ParamKind::norm);
    add(p + "attention.output.LayerNorm.bias", {C}, ParamKind::bias);
    add(p + "intermediate.dense.weight", {F, C}, ParamKind::matrix);
    add(p + "intermediate.dense.bias", {F}, ParamKind::bias);
    add(p + "output.dense.weight", {C, F}, ParamKind::matrix);
    add(p + "output.dense.bias", {C}, ParamKind::bias);
    add(p + "output.LayerNorm.weight", {C}, ParamKind::norm);
    add(p + "output.LayerNorm.bias", {C}, ParamKind::bias);
    if (c.scoring == Scoring::ssa) {
      add(p + "attention.self.ssa_beta", {H}, ParamKind::ssa_b);
      add(p + "attention.self.ssa_nu", {H}, ParamKind::ssa_n);
    }
  }
  add("lm_head.dense.weight", {C, C}, ParamKind::matrix);
  add("lm_head.dense.bias", {C}, ParamKind::bias);
  add("lm_head.layer_norm.weight", {C}, ParamKind::norm);
  add("lm_head.layer_norm.bias", {C}, ParamKind::bias);
  add("lm_head.bias", {V}, ParamKind::bias);
}

const ParamTensor& ParamLayout::at(const std::string& name) const {
  const auto it = index.find(name);
  BB_CHECK(it != index.end(), "internal: no parameter named {}", name);
  return tensors[it->second];
}

template <typename T>
ParamViews<T>::ParamViews(const ParamLayout& layout, const Config& c, T* base) {
  auto p = [&](const std::string& name) { return base + layout.at(name).offset; };
  const std::string e = "roberta.embeddings.";
  wte = p(e + "word_embeddings.weight");
  wpe = p(e + "position_embeddings.weight");
  wtt = p(e + "token_type_embeddings.weight");
  emb_ln_w = p(e + "LayerNorm.weight");
  emb_ln_b = p(e + "LayerNorm.bias");
  for (int l = 0; l < c.layers; ++l) {
    const std::string s = "roberta.encoder.layer." + std::to_string(l) + ".";
    Layer L{};
    L.qkv_w = p(s + "attention.self.query.weight");
    L.qkv_b = p(s + "attention.self.query.bias");
    L.attn_out_w = p(s + "attention.output.dense.weight");
    L.attn_out_b = p(s + "attention.output.dense.bias");
    L.ln1_w = p(s + "attention.output.LayerNorm.weight");
    L.ln1_b = p(s + "attention.output.LayerNorm.bias");
    L.ffn_in_w = p(s + "intermediate.dense.weight");
    L.ffn_in_b = p(s + "intermediate.dense.bias");
    L.ffn_out_w = p(s + "output.dense.weight");
    L.ffn_out_b = p(s + "output.dense.bias");
    L.ln2_w = p(s + "output.LayerNorm.weight");
    L.ln2_b = p(s + "output.LayerNorm.bias");
    L.ssa_beta = c.scoring == Scoring::ssa ? p(s + "attention.self.ssa_beta") : nullptr;
    L.ssa_nu = c.scoring == Scoring::ssa ? p(s + "attention.self.ssa_nu") : nullptr;
    layers.push_back(L);
  }
  head_dense_w = p("lm_head.dense.weight");
  head_dense_b = p("lm_head.dense.bias");
  head_ln_w = p("lm_head.layer_norm.weight");
  head_ln_b = p("lm_head.layer_norm.bias");
  head_bias = p("lm_head.bias");
}

template struct ParamViews<float>;
template struct ParamViews<double>;

}  // namespace bb
