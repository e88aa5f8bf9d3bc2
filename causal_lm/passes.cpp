// The causal LM's forward and backward passes, op by op (N tokens, M scored rows, C hidden, F ffn,
// V vocabulary, H heads).
#include "causal_lm/passes.h"

#include <algorithm>
#include <cmath>

#include "backend/ops.h"
#include "causal_lm/parameters.h"
#include "common/error.h"
#include "common/philox.h"

namespace bb {

template <typename T>
CausalLmPasses<T>::CausalLmPasses(const Config& c, const ParamLayout& layout, const Capacity& cap,
                                  Device device)
    : cfg_(c), layout_(layout), cap_(cap), arena_(device) {
  const bool reused = cap.inference_only;
  x_.assign(reused ? 2 : size_t(c.layers) + 1, nullptr);
  layers_.assign(reused ? 1 : size_t(c.layers), blocks::CausalBlockStores<T>{});
  carve_arena(arena_, [this](auto&& take) { visit(take); });  // zero-filled: zero_bias_ stays 0
}

template <typename T>
template <typename Take>
void CausalLmPasses<T>::visit(Take&& take) {
  const int64_t C = cfg_.hidden, F = cfg_.ffn, V = cfg_.vocab_size, H = cfg_.heads;
  const int64_t N = cap_.max_tokens, M = cap_.max_rows, B = cap_.max_seqs;
  const int64_t A = attention_store_elements(cap_, cfg_.heads);
  const bool train = !cap_.inference_only;
  auto line = [&take](T*& tensor, int64_t n) { take(tensor, n, ArenaStart::line); };
  auto train_line = [&](T*& tensor, int64_t n) {
    if (train) line(tensor, n);
    else tensor = nullptr;
  };
  line(emb_, N * C);
  train_line(emb_mask_, N * C);
  train_line(pre_dropout_, N * C);
  line(sel_, M * C);
  line(head_norm_, M * C);
  line(head_mean_, M);
  line(head_rstd_, M);
  line(logits_, M * V);
  line(lse_, M);
  line(target_logp_, M);
  line(loss_, 1);
  line(zero_bias_, V);
  line(v0_, cfg_.layers * H);
  line(v1_, cfg_.layers * H);
  for (T*& x : x_) line(x, N * C);
  for (blocks::CausalBlockStores<T>& a : layers_) {
    for (T** t : {&a.ln1, &a.qkv, &a.ctx, &a.mid, &a.ln2})
      line(*t, (t == &a.qkv ? 3 : 1) * N * C);
    for (T** t : {&a.ln1_mean, &a.ln1_rstd, &a.ln2_mean, &a.ln2_rstd}) line(*t, N);
    for (T** t : {&a.S, &a.P, &a.mask}) line(*t, A);
    for (T** t : {&a.fc, &a.act}) line(*t, N * F);
    train_line(a.proj_mask, N * C);
    train_line(a.mlp_mask, N * C);
  }
  train_line(d_logits_, M * V);
  train_line(d_head_, M * C);
  train_line(d_sel_, M * C);
  train_line(dx_, N * C);
  train_line(scratch_.dtmp, N * C);
  train_line(scratch_.dctx, N * C);
  train_line(scratch_.dqkv, 3 * N * C);
  train_line(scratch_.dfc, N * F);
  train_line(scratch_.dact, N * F);
  train_line(scratch_.dv0, H);
  train_line(scratch_.dv1, H);
  train_line(scratch_.scratch, 2 * H * B);
}

template <typename T>
void CausalLmPasses<T>::init_weights(T* params, uint64_t seed) const {
  // GPT-2's _init_weights: N(0, initializer_range) for the embeddings and linear weights, the
  // residual projections (attn.c_proj, mlp.c_proj) N(0, initializer_range / sqrt(2 layers)),
  // biases 0, LayerNorm gains 1. Each tensor's stream is keyed by its name.
  const double std_res = cfg_.init_std / std::sqrt(2.0 * cfg_.layers);
  for (const ParamTensor& t : layout_.tensors) {
    const Philox rng{stream_key(seed, name_stream(t.name))};
    T* p = params + t.offset;
    for (int64_t e = 0; e < t.size; ++e) {
      switch (t.init) {
        case blocks::Init::normal: p[e] = T(cfg_.init_std * rng.normal(0, uint64_t(e))); break;
        case blocks::Init::normal_residual: p[e] = T(std_res * rng.normal(0, uint64_t(e))); break;
        case blocks::Init::zeros: p[e] = T(0); break;
        case blocks::Init::ones: p[e] = T(1); break;
        case blocks::Init::head_value0:
        case blocks::Init::head_value1:
          p[e] = T(raw_value(t.kind, cfg_.head_value_init(head_value_slot(t.kind))));
          break;
        case blocks::Init::linear_default:
          fail("internal: {} has no linear_default tensor", t.name);
      }
    }
  }
}

template <typename T>
blocks::CausalBlockStores<T> CausalLmPasses<T>::stores(int l) const {
  const bool reused = cap_.inference_only;
  blocks::CausalBlockStores<T> a = layers_[reused ? 0 : size_t(l)];
  a.x = x_[reused ? size_t(l % 2) : size_t(l)];
  a.out = x_[reused ? size_t((l + 1) % 2) : size_t(l + 1)];
  a.v0 = v0_ + int64_t(l) * cfg_.heads;
  a.v1 = v1_ + int64_t(l) * cfg_.heads;
  return a;
}

template <typename T>
ops::AttentionShape CausalLmPasses<T>::shape(const PassContext<T>& c) const {
  ops::AttentionShape s{c.B, cfg_.heads, cfg_.hidden, c.in.offsets, c.in.store_at, c.first_seq};
  s.causal = true;
  s.max_len = cap_.max_len;
  return s;
}

template <typename T>
void CausalLmPasses<T>::forward(const PassContext<T>& c) {
  const int N = c.N, M = c.M, C = cfg_.hidden, V = cfg_.vocab_size;
  const StagedBatch& in = c.in;
  const CausalLmViews<T> pv(layout_, cfg_, c.params);
  // A training model runs its dropout ops (rate 0 outside training: the masks backward reads);
  // an inference-only one has none.
  const bool dropout = !cap_.inference_only;
  const float p_hidden = c.train ? float(cfg_.hidden_dropout) : 0.f;
  const float p_att = c.train ? float(cfg_.attention_dropout) : 0.f;
  T* x0 = x_[0];
  if (dropout) {
    ops::embedding_forward<T>(emb_, in.ids, in.pos, pv.wte, pv.wpe, N, C);
    ops::dropout_forward<T>(x0, emb_mask_, emb_, in.row_ids, N, C, p_hidden, c.keys);
  } else {
    ops::embedding_forward<T>(x0, in.ids, in.pos, pv.wte, pv.wpe, N, C);
  }
  const ops::AttentionShape sh = shape(c);
  const blocks::CausalBlockSpec spec = causal_lm_block_spec(cfg_);
  for (int l = 0; l < cfg_.layers; ++l) {
    const blocks::CausalBlockStores<T> a = stores(l);
    const blocks::CausalBlockDropout<T> d{p_hidden, p_att, in.row_ids, pre_dropout_,
                                          c.keys + 1 + 3 * l, c.keys + 2 + 3 * l,
                                          c.keys + 3 + 3 * l};
    std::function<void()> observe;
    if (c.observer) observe = [&] { c.observer(l, a.S, a.P); };
    blocks::causal_block_forward<T>(spec, pv.layers[size_t(l)], a, sh, N, observe,
                                    dropout ? &d : nullptr, c.linear);
  }
  // The head at the scored rows: ln_f, then the tied projection (no bias)
  ops::gather_rows<T>(sel_, stores(cfg_.layers - 1).out, in.rows, M, C);
  ops::layernorm_forward<T>(head_norm_, head_mean_, head_rstd_, sel_, pv.ln_f_w, pv.ln_f_b, M, C,
                            T(cfg_.layer_norm_eps));
  c.linear(logits_, head_norm_, pv.wte, zero_bias_, M, C, V);
  if (c.has_loss) ops::cross_entropy_forward<T>(loss_, lse_, logits_, in.labels, M, V);
}

template <typename T>
void CausalLmPasses<T>::backward(const PassContext<T>& c) {
  const int N = c.N, M = c.M, C = cfg_.hidden, V = cfg_.vocab_size;
  const StagedBatch& in = c.in;
  const CausalLmViews<T> pv(layout_, cfg_, c.params);
  const CausalLmViews<T> gv(layout_, cfg_, c.grads);
  ops::cross_entropy_backward<T>(d_logits_, logits_, lse_, in.labels, M, V, T(c.loss_weight));
  ops::linear_backward<T>(d_head_, gv.wte, nullptr, d_logits_, head_norm_, pv.wte, M, C, V);
  ops::layernorm_backward<T>(d_sel_, gv.ln_f_w, gv.ln_f_b, d_head_, sel_, head_mean_, head_rstd_,
                             pv.ln_f_w, M, C);
  ops::scatter_rows<T>(dx_, d_sel_, in.rows, M, N, C);
  const ops::AttentionShape sh = shape(c);
  const blocks::CausalBlockSpec spec = causal_lm_block_spec(cfg_);
  for (int l = cfg_.layers - 1; l >= 0; --l)
    blocks::causal_block_backward<T>(spec, pv.layers[size_t(l)], gv.layers[size_t(l)], stores(l),
                                     scratch_, dx_, sh, N, /*dropout=*/true);
  ops::dropout_backward<T>(scratch_.dtmp, dx_, emb_mask_, int64_t(N) * C);
  ops::embedding_backward<T>(gv.wte, gv.wpe, scratch_.dtmp, in.ids, in.pos, N, C);
}

template class CausalLmPasses<float>;
template class CausalLmPasses<double>;

}  // namespace bb
