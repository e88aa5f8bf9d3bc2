#include "encoder/model.h"

#include <algorithm>
#include <cmath>
#include <cstring>
#include <type_traits>

#include "backend/ops.h"
#include "common/error.h"
#include "common/philox.h"

namespace bb {

namespace {
// Per-layer activation sizes in the arena, in elements.
struct LayerSizes {
  int64_t NC, N3C, NF, N, att;
  int64_t total() const { return 8 * NC + N3C + 2 * NF + 4 * N + 3 * att; }
};
}  // namespace

template <typename T>
Model<T>::Model(const Config& config, const Capacity& cap, Device device)
    : cfg_(config), layout_(config), cap_(cap), device_(device) {
  cfg_.validate("model config");
  BB_CHECK((device == Device::cpu || std::is_same_v<T, float>),
           "internal: the CUDA model is float only");
  require_device(device);
  BB_CHECK(cap.max_rows <= cap.max_tokens,
           "capacity: {} scored rows exceed the {} rows of a batch", cap.max_rows, cap.max_tokens);
  BB_CHECK(cap.max_len <= cfg_.max_tokens(), "capacity: max_len {} exceeds the model's {} tokens",
           cap.max_len, cfg_.max_tokens());
  const int64_t C = cfg_.hidden, F = cfg_.ffn, V = cfg_.vocab_size, H = cfg_.heads;
  N_cap_ = cap.max_tokens;
  att_cap_ = H * std::min(int64_t(cap.max_seqs) * cap.max_len * cap.max_len,
                          int64_t(cap.max_len) * cap.max_tokens);
  const LayerSizes s{N_cap_ * C, N_cap_ * 3 * C, N_cap_ * F, N_cap_, att_cap_};
  params.assign(layout_.total, T(0));
  if (device == Device::cuda) {
    dparams_.assign(layout_.total, T(0));
    if (!cap.inference_only) dgrads_.assign(layout_.total, T(0));
  }
  const size_t N = size_t(N_cap_), S = size_t(cap.max_seqs) + 1, R = size_t(cap.max_rows);
  std::vector<size_t> slots(kKeys + 1);
  slots[kIds] = slots[kPos] = N * sizeof(int32_t);
  slots[kRowIds] = N * sizeof(int64_t);
  slots[kOffsets] = S * sizeof(int32_t);
  slots[kStoreAt] = S * sizeof(int64_t);
  slots[kRows] = slots[kLabels] = R * sizeof(int32_t);
  slots[kSelRowIds] = R * sizeof(int64_t);
  slots[kKeys] = size_t(1 + 3 * cfg_.layers) * sizeof(uint64_t);  // one per dropout site
  inputs_ = std::make_unique<StagingBlock>(device, slots);
  loss_.assign(1, T(0));
  if (cap.inference_only) {  // layer inputs alternate between two slots; one layer block
    arena_.assign(s.total() + 2 * s.NC, T(0));
    for (auto* v : {&emb_sum_, &emb_mask_, &t1_}) v->assign(s.NC, T(0));
  } else {
    grads.assign(layout_.total, T(0));
    arena_.assign(s.total() * cfg_.layers + (cfg_.layers + 1) * s.NC, T(0));
    for (auto* v : {&emb_sum_, &emb_mask_, &dA_, &dB_, &t1_, &t2_, &t3_}) v->assign(s.NC, T(0));
  }
  emb_mean_.assign(N_cap_, T(0));
  emb_rstd_.assign(N_cap_, T(0));
  const int64_t MC = int64_t(cap.max_rows) * C;
  for (auto* v : {&hx_, &hd_, &hg_, &hl_, &sel_ctx_, &sel_x_}) v->assign(MC, T(0));
  h_mean_.assign(cap.max_rows, T(0));
  h_rstd_.assign(cap.max_rows, T(0));
  logits_.assign(int64_t(cap.max_rows) * V, T(0));
  lse_.assign(cap.max_rows, T(0));
  if (!cap.inference_only) {
    for (auto* v : {&dh1_, &dh2_}) v->assign(MC, T(0));
    dlogits_.assign(int64_t(cap.max_rows) * V, T(0));
    f1g_.assign(s.NF, T(0));
    dqkv_.assign(s.N3C, T(0));
    att_scratch_.assign(2 * H * cap.max_seqs, T(0));
    dbn_.assign(2 * H, T(0));
  }
  ssa_b_.assign(cfg_.layers * H, T(0));
  ssa_n_.assign(cfg_.layers * H, T(0));
}

template <typename T>
typename Model<T>::LayerActs Model<T>::acts(int l) {
  const int64_t C = cfg_.hidden, F = cfg_.ffn;
  const LayerSizes s{N_cap_ * C, N_cap_ * 3 * C, N_cap_ * F, N_cap_, att_cap_};
  const bool shared = cap_.inference_only;
  T* p = arena_.data() + (shared ? 2 * s.NC : (cfg_.layers + 1) * s.NC + l * s.total());
  LayerActs a{};
  a.x = arena_.data() + (shared ? l % 2 : l) * s.NC;
  auto take = [&p](int64_t n) {
    T* r = p;
    p += n;
    return r;
  };
  a.qkv = take(s.N3C);
  a.S = take(s.att);
  a.P = take(s.att);
  a.Pmask = take(s.att);
  a.ctx = take(s.NC);
  a.ao_mask = take(s.NC);
  a.res1 = take(s.NC);
  a.ln1_mean = take(s.N);
  a.ln1_rstd = take(s.N);
  a.h1 = take(s.NC);
  a.f1 = take(s.NF);
  a.g = take(s.NF);
  a.fo_mask = take(s.NC);
  a.res2 = take(s.NC);
  a.ln2_mean = take(s.N);
  a.ln2_rstd = take(s.N);
  return a;
}

template <typename T>
T* Model<T>::x_out(int l) {
  const int slot = cap_.inference_only ? (l + 1) % 2 : l + 1;
  return arena_.data() + int64_t(slot) * N_cap_ * cfg_.hidden;
}

template <typename T>
typename Model<T>::StagedIndices Model<T>::staged() const {
  const StagingBlock& in = *inputs_;
  return {in.device<int32_t>(kIds),        in.device<int32_t>(kPos),
          in.device<int32_t>(kOffsets),    in.device<int32_t>(kRows),
          in.device<int32_t>(kLabels),     in.device<int64_t>(kRowIds),
          in.device<int64_t>(kStoreAt),    in.device<int64_t>(kSelRowIds)};
}

template <typename T>
void Model<T>::upload_params() {
  if (device_ == Device::cuda) dparams_.from_host(params.data(), params.size());
  frozen_.clear();  // linear() freezes the new weights at the next forward
}

template <typename T>
void Model<T>::linear(T* y, const T* x, const T* W, const T* bias, int N, int in, int out) {
  if constexpr (std::is_same_v<T, float>) {
    if (device_ == Device::cpu && cap_.inference_only) {
      std::shared_ptr<ops::FrozenLinear>& frozen = frozen_[W];
      if (!frozen) frozen = ops::freeze_linear(W, in, out);
      return ops::linear_frozen_forward(y, x, *frozen, bias, N);
    }
  }
  ops::linear_forward<T>(y, x, W, bias, N, in, out);
}

template <typename T>
void Model<T>::download() {
  if (device_ == Device::cpu) return;
  const std::vector<T> p = dparams_.host();
  params.assign(p.begin(), p.end());
  if (cap_.inference_only) return;
  const std::vector<T> g = dgrads_.host();
  grads.assign(g.begin(), g.end());
}

template <typename T>
uint64_t Model<T>::dropout_key(const StepContext& ctx, int site) const {
  return stream_key(ctx.seed, (uint64_t(ctx.step) << 16) | uint64_t(site));
}

template <typename T>
void Model<T>::init_weights(uint64_t seed) {
  // Truncated normal (resampled beyond 2 std) from Philox keyed by (seed, tensor index).
  for (size_t k = 0; k < layout_.tensors.size(); ++k) {
    const ParamTensor& t = layout_.tensors[k];
    T* p = params.data() + t.offset;
    const Philox rng{stream_key(seed, 1000 + k)};
    switch (t.kind) {
      case ParamKind::matrix:
        for (int64_t i = 0; i < t.size; ++i) {
          double z = rng.normal(0, uint64_t(i));
          for (uint64_t retry = 1; std::abs(z) > 2.0; ++retry) z = rng.normal(retry, uint64_t(i));
          p[i] = T(z * cfg_.init_std);
        }
        break;
      case ParamKind::bias: std::fill(p, p + t.size, T(0)); break;
      case ParamKind::norm: std::fill(p, p + t.size, T(1)); break;
      case ParamKind::ssa_b: std::fill(p, p + t.size, T(std::log(cfg_.ssa.b_init))); break;
      case ParamKind::ssa_n: std::fill(p, p + t.size, T(std::log(cfg_.ssa.n_init - 1))); break;
    }
  }
  // The padding rows of the word and position embeddings are zero, as HF initialises them.
  ParamViews<T> pv(layout_, cfg_, params.data());
  const int C = cfg_.hidden;
  std::fill(pv.wte + int64_t(cfg_.pad_id) * C, pv.wte + int64_t(cfg_.pad_id + 1) * C, T(0));
  std::fill(pv.wpe + int64_t(cfg_.pad_id) * C, pv.wpe + int64_t(cfg_.pad_id + 1) * C, T(0));
  upload_params();
}

template <typename T>
void Model<T>::zero_grads() {
  BB_CHECK(!cap_.inference_only, "internal: zero_grads() on an inference-only model");
  const DeviceScope on(device_);
  ops::fill_zero<T>(grad_data(), layout_.total);
}

template <typename T>
T Model<T>::ssa_b(int l, int h) const {
  ParamViews<T> pv(layout_, cfg_, const_cast<T*>(params.data()));
  return std::exp(pv.layers[l].ssa_beta[h]);
}

template <typename T>
T Model<T>::ssa_n(int l, int h) const {
  ParamViews<T> pv(layout_, cfg_, const_cast<T*>(params.data()));
  return T(1) + std::exp(pv.layers[l].ssa_nu[h]);
}

template <typename T>
T Model<T>::forward(const Batch& batch, const StepContext& sc) {
  stage(batch, sc);
  run_forward();
  return has_loss_ ? loss() : T(0);
}

template <typename T>
T Model<T>::loss() const {
  BB_CHECK(staged_ && has_loss_, "internal: loss() needs a forward() with labels first");
  return loss_.host()[0];
}

template <typename T>
void Model<T>::stage(const Batch& batch, const StepContext& sc) {
  const int B = batch.num_seqs(), N = batch.num_tokens(), M = batch.num_rows();
  const int V = cfg_.vocab_size, H = cfg_.heads;
  BB_CHECK(B >= 1 && batch.offsets.front() == 0 && batch.offsets.back() == N,
           "batch: offsets must run from 0 to the {} tokens", N);
  BB_CHECK(B <= cap_.max_seqs && N <= cap_.max_tokens && M <= cap_.max_rows,
           "batch of {} sequences, {} tokens, {} scored rows exceeds capacity ({}, {}, {})", B, N,
           M, cap_.max_seqs, cap_.max_tokens, cap_.max_rows);
  BB_CHECK(batch.labels.empty() || batch.labels.size() == batch.rows.size(),
           "batch: {} labels for {} scored rows", batch.labels.size(), batch.rows.size());
  BB_CHECK(!(sc.train && cap_.inference_only),
           "internal: a training forward on an inference-only model");
  for (int n = 0; n < N; ++n)
    BB_CHECK(batch.ids[n] >= 0 && batch.ids[n] < V, "batch: token id {} outside vocabulary of {}",
             batch.ids[n], V);
  for (int m = 0; m < M; ++m) {
    BB_CHECK(batch.rows[m] >= 0 && batch.rows[m] < N, "batch: scored row {} outside the batch",
             batch.rows[m]);
    if (!batch.labels.empty())
      BB_CHECK(batch.labels[m] >= -1 && batch.labels[m] < V,
               "batch: label {} outside vocabulary (-1: ignored)", batch.labels[m]);
  }
  StagingBlock& in = *inputs_;
  in.begin_write();
  int32_t* pos = in.host<int32_t>(kPos);
  int64_t* row_ids = in.host<int64_t>(kRowIds);
  int64_t* store_at = in.host<int64_t>(kStoreAt);
  store_at[0] = 0;
  for (int b = 0; b < B; ++b) {
    const int off = batch.offsets[b], L = batch.offsets[b + 1] - off;
    BB_CHECK(L >= 0 && L <= cap_.max_len, "batch: sequence {} has length {} (max {})", b, L,
             cap_.max_len);
    for (int t = 0; t < L; ++t) {
      pos[off + t] = cfg_.pad_id + 1 + t;
      row_ids[off + t] = (int64_t(b) << 16) | t;
    }
    store_at[b + 1] = store_at[b] + int64_t(H) * L * L;
  }
  std::copy(batch.ids.begin(), batch.ids.end(), in.host<int32_t>(kIds));
  std::copy(batch.offsets.begin(), batch.offsets.end(), in.host<int32_t>(kOffsets));
  std::copy(batch.rows.begin(), batch.rows.end(), in.host<int32_t>(kRows));
  std::copy(batch.labels.begin(), batch.labels.end(), in.host<int32_t>(kLabels));
  int64_t* sel_row_ids = in.host<int64_t>(kSelRowIds);
  for (int m = 0; m < M; ++m) sel_row_ids[m] = row_ids[batch.rows[m]];
  uint64_t* keys = in.host<uint64_t>(kKeys);
  for (int site = 0; site <= 3 * cfg_.layers; ++site) keys[site] = dropout_key(sc, site);
  in.upload();
  B_ = B, N_ = N, M_ = M;
  train_ = sc.train;
  has_loss_ = !batch.labels.empty();
  staged_ = true;
}

template <typename T>
void Model<T>::run_forward() {
  BB_CHECK(staged_, "internal: run_forward() before stage()");
  const int B = B_, N = N_, M = M_;
  const int C = cfg_.hidden, F = cfg_.ffn, V = cfg_.vocab_size, H = cfg_.heads;
  const StagedIndices in = staged();
  const DeviceScope on(device_);
  const float p_hidden = train_ ? float(cfg_.hidden_dropout) : 0.f;
  const float p_att = train_ ? float(cfg_.attention_dropout) : 0.f;
  ParamViews<T> pv(layout_, cfg_, param_data());
  // Inference (no dropout, no backward): outputs go straight where dropout would have put them.
  const bool dropout = !cap_.inference_only;
  auto pre_dropout = [&](T* dst) { return dropout ? t1_.data() : dst; };

  // Embeddings: word + position + type 0 -> LayerNorm -> dropout
  ops::embedding_forward<T>(emb_sum_.data(), in.ids, in.pos, pv.wte, pv.wpe, pv.wtt, N, C);
  ops::layernorm_forward<T>(pre_dropout(acts(0).x), emb_mean_.data(), emb_rstd_.data(),
                            emb_sum_.data(), pv.emb_ln_w, pv.emb_ln_b, N, C,
                            T(cfg_.layer_norm_eps));
  if (dropout)
    ops::dropout_forward<T>(acts(0).x, emb_mask_.data(), t1_.data(), in.row_ids, N, C, p_hidden,
                            key(0));

  const ops::AttentionShape shape{B, H, C, in.offsets, in.store_at};
  for (int l = 0; l < cfg_.layers; ++l) {
    const LayerActs a = acts(l);
    const auto& w = pv.layers[l];
    T* bh = ssa_b_.data() + l * H;
    T* nh = ssa_n_.data() + l * H;
    if (cfg_.scoring == Scoring::ssa) ops::ssa_effective<T>(bh, nh, w.ssa_beta, w.ssa_nu, H);
    // Self-attention: fused QKV, scores, scoring, context; dense -> dropout -> + x -> LayerNorm
    linear(a.qkv, a.x, w.qkv_w, w.qkv_b, N, C, 3 * C);
    ops::attention_forward<T>(a.ctx, a.S, a.P, a.Pmask, a.qkv, shape, cfg_.scoring, bh, nh, p_att,
                              key(1 + 3 * l));
    // Only the scored rows of the last layer reach the LM head: after its attention (which needs
    // every row's keys and values) the last layer continues at those R = M rows only. Their
    // dropout masks are drawn by the same row ids as in the full layout.
    const bool last = l == cfg_.layers - 1;
    const int R = last ? M : N;
    const T* ctx_in = a.ctx;
    const T* x_in = a.x;
    const int64_t* ids_in = in.row_ids;
    if (last) {
      ops::gather_rows<T>(sel_ctx_.data(), a.ctx, in.rows, M, C);
      ops::gather_rows<T>(sel_x_.data(), a.x, in.rows, M, C);
      ctx_in = sel_ctx_.data(), x_in = sel_x_.data(), ids_in = in.sel_row_ids;
    }
    linear(pre_dropout(a.res1), ctx_in, w.attn_out_w, w.attn_out_b, R, C, C);
    if (dropout)
      ops::dropout_forward<T>(a.res1, a.ao_mask, t1_.data(), ids_in, R, C, p_hidden,
                              key(2 + 3 * l));
    ops::add_inplace<T>(a.res1, x_in, int64_t(R) * C);
    ops::layernorm_forward<T>(a.h1, a.ln1_mean, a.ln1_rstd, a.res1, w.ln1_w, w.ln1_b, R, C,
                              T(cfg_.layer_norm_eps));
    // Feed-forward: dense -> GELU -> dense -> dropout -> + h1 -> LayerNorm
    linear(a.f1, a.h1, w.ffn_in_w, w.ffn_in_b, R, C, F);
    ops::gelu_forward<T>(a.g, a.f1, int64_t(R) * F);
    linear(pre_dropout(a.res2), a.g, w.ffn_out_w, w.ffn_out_b, R, F, C);
    if (dropout)
      ops::dropout_forward<T>(a.res2, a.fo_mask, t1_.data(), ids_in, R, C, p_hidden,
                              key(3 + 3 * l));
    ops::add_inplace<T>(a.res2, a.h1, int64_t(R) * C);
    ops::layernorm_forward<T>(last ? hx_.data() : x_out(l), a.ln2_mean, a.ln2_rstd, a.res2,
                              w.ln2_w, w.ln2_b, R, C, T(cfg_.layer_norm_eps));
  }

  // LM head at the scored rows (hx_): dense -> GELU -> LayerNorm -> decoder (tied) + bias
  linear(hd_.data(), hx_.data(), pv.head_dense_w, pv.head_dense_b, M, C, C);
  ops::gelu_forward<T>(hg_.data(), hd_.data(), int64_t(M) * C);
  ops::layernorm_forward<T>(hl_.data(), h_mean_.data(), h_rstd_.data(), hg_.data(), pv.head_ln_w,
                            pv.head_ln_b, M, C, T(cfg_.layer_norm_eps));
  linear(logits_.data(), hl_.data(), pv.wte, pv.head_bias, M, C, V);
  if (has_loss_)
    ops::cross_entropy_forward<T>(loss_.data(), lse_.data(), logits_.data(), in.labels, M, V);
}

template <typename T>
void Model<T>::backward() {
  BB_CHECK(!cap_.inference_only, "internal: backward() on an inference-only model");
  BB_CHECK(staged_ && has_loss_, "backward() needs a forward() with labels first");
  const int B = B_, N = N_, M = M_;
  const StagedIndices in = staged();
  const int C = cfg_.hidden, F = cfg_.ffn, V = cfg_.vocab_size, H = cfg_.heads;
  const DeviceScope on(device_);
  ParamViews<T> pv(layout_, cfg_, param_data());
  ParamViews<T> gv(layout_, cfg_, grad_data());

  // Head
  ops::cross_entropy_backward<T>(dlogits_.data(), logits_.data(), lse_.data(), in.labels, M, V,
                                 T(1));
  ops::linear_backward<T>(dh1_.data(), gv.wte, gv.head_bias, dlogits_.data(), hl_.data(), pv.wte,
                          M, C, V);
  ops::layernorm_backward<T>(dh2_.data(), gv.head_ln_w, gv.head_ln_b, dh1_.data(), hg_.data(),
                             h_mean_.data(), h_rstd_.data(), pv.head_ln_w, M, C);
  ops::gelu_backward<T>(dh2_.data(), dh2_.data(), hd_.data(), int64_t(M) * C);
  ops::linear_backward<T>(dh1_.data(), gv.head_dense_w, gv.head_dense_b, dh2_.data(), hx_.data(),
                          pv.head_dense_w, M, C, C);
  T* dx = dA_.data();  // gradient w.r.t. the current layer's output (N, C); the last layer's
  T* dx_in = dB_.data();  // is dh1_ (M, C) at the scored rows

  const ops::AttentionShape shape{B, H, C, in.offsets, in.store_at};
  T *t1 = t1_.data(), *t2 = t2_.data(), *t3 = t3_.data();
  const int64_t NC = int64_t(N) * C;
  for (int l = cfg_.layers - 1; l >= 0; --l) {
    const LayerActs a = acts(l);
    const auto& w = pv.layers[l];
    const auto& gw = gv.layers[l];
    const bool last = l == cfg_.layers - 1;  // R = M scored rows after its attention (forward)
    const int R = last ? M : N;
    const int64_t RC = int64_t(R) * C;
    // x_out = LN2(res2), res2 = dropout(ffn_out(gelu(ffn_in(h1)))) + h1
    ops::layernorm_backward<T>(t1, gw.ln2_w, gw.ln2_b, last ? dh1_.data() : dx, a.res2,
                               a.ln2_mean, a.ln2_rstd, w.ln2_w, R, C);
    ops::dropout_backward<T>(t2, t1, a.fo_mask, RC);
    ops::linear_backward<T>(f1g_.data(), gw.ffn_out_w, gw.ffn_out_b, t2, a.g, w.ffn_out_w, R, F, C);
    ops::gelu_backward<T>(f1g_.data(), f1g_.data(), a.f1, int64_t(R) * F);
    ops::linear_backward<T>(t3, gw.ffn_in_w, gw.ffn_in_b, f1g_.data(), a.h1, w.ffn_in_w, R, C, F);
    ops::add_inplace<T>(t3, t1, RC);  // dh1
    // h1 = LN1(res1), res1 = dropout(attn_out(attention(qkv(x)))) + x
    ops::layernorm_backward<T>(t1, gw.ln1_w, gw.ln1_b, t3, a.res1, a.ln1_mean, a.ln1_rstd, w.ln1_w,
                               R, C);
    ops::dropout_backward<T>(t2, t1, a.ao_mask, RC);
    ops::linear_backward<T>(t3, gw.attn_out_w, gw.attn_out_b, t2, last ? sel_ctx_.data() : a.ctx,
                            w.attn_out_w, R, C, C);
    T* dctx = t3;      // (N, C)
    T* dresid = t1;    // (N, C): the residual's gradient w.r.t. x
    if (last) {  // back to all N rows; zero away from the scored rows
      ops::scatter_rows<T>(t2, t3, in.rows, M, N, C);
      ops::scatter_rows<T>(t3, t1, in.rows, M, N, C);
      dctx = t2, dresid = t3;
    }
    T* db = dbn_.data();
    T* dn = dbn_.data() + H;
    ops::fill_zero<T>(db, 2 * H);
    ops::attention_backward<T>(dqkv_.data(), db, dn, att_scratch_.data(), dctx, a.qkv, a.S, a.P,
                               a.Pmask, shape, cfg_.scoring, ssa_b_.data() + l * H,
                               ssa_n_.data() + l * H);
    ops::linear_backward<T>(dx_in, gw.qkv_w, gw.qkv_b, dqkv_.data(), a.x, w.qkv_w, N, C, 3 * C);
    ops::add_inplace<T>(dx_in, dresid, NC);
    if (cfg_.scoring == Scoring::ssa)  // chain rule to the raw values: db/dbeta = b, dn/dnu = n-1
      ops::ssa_raw_grads<T>(gw.ssa_beta, gw.ssa_nu, db, dn, ssa_b_.data() + l * H,
                            ssa_n_.data() + l * H, H, cfg_.ssa.freeze_b, cfg_.ssa.freeze_n);
    std::swap(dx, dx_in);
  }
  // Embeddings
  ops::dropout_backward<T>(t1, dx, emb_mask_.data(), NC);
  ops::layernorm_backward<T>(t2, gv.emb_ln_w, gv.emb_ln_b, t1, emb_sum_.data(), emb_mean_.data(),
                             emb_rstd_.data(), pv.emb_ln_w, N, C);
  ops::embedding_backward<T>(gv.wte, gv.wpe, gv.wtt, t2, in.ids, in.pos, N, C);
}

template class Model<float>;
template class Model<double>;

}  // namespace bb
