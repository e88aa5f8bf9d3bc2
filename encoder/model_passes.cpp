// Model's forward and backward passes over the staged batch: the post-LN encoder layer by layer,
// the LM head and the loss, as a queue of backend ops (model.cpp has the rest of Model).
#include "encoder/model.h"

#include <algorithm>
#include <cmath>
#include <cstring>
#include <type_traits>

#include "backend/ops.h"
#include "common/error.h"
#include "common/philox.h"

namespace bb {

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
  const Activations<T>& act = act_;
  // Inference (no dropout, no backward): outputs go straight where dropout would have put them.
  const bool dropout = !cap_.inference_only;
  auto pre_dropout = [&](T* dst) { return dropout ? act.pre_dropout : dst; };

  // Embeddings: (word + position) + type 0 -> LayerNorm -> dropout
  ops::embedding_forward<T>(act.emb_sum, in.ids, in.pos, pv.wte, pv.wpe, N, C);
  ops::add_row_forward<T>(act.emb_sum, pv.wtt, N, C);
  ops::layernorm_forward<T>(pre_dropout(act.layer(0).x), act.emb_mean, act.emb_rstd,
                            act.emb_sum, pv.emb_ln_w, pv.emb_ln_b, N, C,
                            T(cfg_.layer_norm_eps));
  if (dropout)
    ops::dropout_forward<T>(act.layer(0).x, act.emb_mask, act.pre_dropout, in.row_ids, N, C,
                            p_hidden, key(0));

  ops::AttentionShape shape{B, H, C, in.offsets, in.store_at, first_seq_};
  shape.max_len = cap_.max_len;
  for (int l = 0; l < cfg_.layers; ++l) {
    const LayerActivations<T> a = act.layer(l);
    const auto& w = pv.layers[l];
    T* v0 = act.head_v0 + l * H;
    T* v1 = act.head_v1 + l * H;
    if (head_value_count(cfg_.attention) > 0)
      ops::head_values_effective<T>(v0, v1, w.head_raw0, w.head_raw1, H);
    // Self-attention: fused QKV, scores, scoring, context; dense -> dropout -> + x -> LayerNorm
    linear(a.qkv, a.x, w.qkv_w, w.qkv_b, N, C, 3 * C);
    ops::attention_forward<T>(a.context, a.scores, a.probs, a.probs_mask, a.qkv, shape,
                              cfg_.attention, v0, v1, p_att, key(1 + 3 * l));
    if (observer_) observer_(l, a.scores, a.probs);
    // Only the scored rows of the last layer reach the LM head: after its attention (which needs
    // every row's keys and values) the last layer continues at those R = M rows only. Their
    // dropout masks are drawn by the same row ids as in the full layout.
    const bool last = l == cfg_.layers - 1;
    const int R = last ? M : N;
    const T* ctx_in = a.context;
    const T* x_in = a.x;
    const int64_t* ids_in = in.row_ids;
    if (last) {
      ops::gather_rows<T>(act.sel_context, a.context, in.rows, M, C);
      ops::gather_rows<T>(act.sel_x, a.x, in.rows, M, C);
      ctx_in = act.sel_context, x_in = act.sel_x, ids_in = in.sel_row_ids;
    }
    linear(pre_dropout(a.res1), ctx_in, w.attn_out_w, w.attn_out_b, R, C, C);
    if (dropout)
      ops::dropout_forward<T>(a.res1, a.attn_mask, act.pre_dropout, ids_in, R, C, p_hidden,
                              key(2 + 3 * l));
    ops::add_inplace<T>(a.res1, x_in, int64_t(R) * C);
    ops::layernorm_forward<T>(a.h1, a.ln1_mean, a.ln1_rstd, a.res1, w.ln1_w, w.ln1_b, R, C,
                              T(cfg_.layer_norm_eps));
    // Feed-forward: dense -> GELU -> dense -> dropout -> + h1 -> LayerNorm
    linear(a.ffn_pre, a.h1, w.ffn_in_w, w.ffn_in_b, R, C, F);
    ops::gelu_forward<T>(a.ffn_act, a.ffn_pre, int64_t(R) * F);
    linear(pre_dropout(a.res2), a.ffn_act, w.ffn_out_w, w.ffn_out_b, R, F, C);
    if (dropout)
      ops::dropout_forward<T>(a.res2, a.ffn_mask, act.pre_dropout, ids_in, R, C, p_hidden,
                              key(3 + 3 * l));
    ops::add_inplace<T>(a.res2, a.h1, int64_t(R) * C);
    ops::layernorm_forward<T>(last ? act.head_in : act.layer_output(l), a.ln2_mean, a.ln2_rstd,
                              a.res2, w.ln2_w, w.ln2_b, R, C, T(cfg_.layer_norm_eps));
  }

  // LM head at the scored rows (head_in): dense -> GELU -> LayerNorm -> decoder (tied) + bias
  linear(act.head_dense, act.head_in, pv.head_dense_w, pv.head_dense_b, M, C, C);
  ops::gelu_forward<T>(act.head_act, act.head_dense, int64_t(M) * C);
  ops::layernorm_forward<T>(act.head_norm, act.head_mean, act.head_rstd, act.head_act,
                            pv.head_ln_w, pv.head_ln_b, M, C, T(cfg_.layer_norm_eps));
  linear(act.logits, act.head_norm, pv.wte, pv.head_bias, M, C, V);
  if (has_loss_)
    ops::cross_entropy_forward<T>(act.loss, act.lse, act.logits, in.labels, M, V);
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
  const Activations<T>& act = act_;

  // Head
  ops::cross_entropy_backward<T>(act.d_logits, act.logits, act.lse, in.labels, M, V, T(loss_weight_));
  ops::linear_backward<T>(act.d_head, gv.wte, gv.head_bias, act.d_logits, act.head_norm, pv.wte,
                          M, C, V);
  ops::layernorm_backward<T>(act.d_head_act, gv.head_ln_w, gv.head_ln_b, act.d_head,
                             act.head_act, act.head_mean, act.head_rstd, pv.head_ln_w, M, C);
  ops::gelu_backward<T>(act.d_head_act, act.d_head_act, act.head_dense, int64_t(M) * C);
  ops::linear_backward<T>(act.d_head, gv.head_dense_w, gv.head_dense_b, act.d_head_act,
                          act.head_in, pv.head_dense_w, M, C, C);
  T* dx = act.d_out;    // gradient w.r.t. the current layer's output (N, C); the last layer's
  T* dx_in = act.d_in;  // is d_head (M, C) at the scored rows

  ops::AttentionShape shape{B, H, C, in.offsets, in.store_at, first_seq_};
  shape.max_len = cap_.max_len;
  T *t1 = act.d_res, *t2 = act.d_proj, *t3 = act.d_h1;
  const int64_t NC = int64_t(N) * C;
  for (int l = cfg_.layers - 1; l >= 0; --l) {
    const LayerActivations<T> a = act.layer(l);
    const auto& w = pv.layers[l];
    const auto& gw = gv.layers[l];
    const bool last = l == cfg_.layers - 1;  // R = M scored rows after its attention (forward)
    const int R = last ? M : N;
    const int64_t RC = int64_t(R) * C;
    // x_out = LN2(res2), res2 = dropout(ffn_out(gelu(ffn_in(h1)))) + h1
    ops::layernorm_backward<T>(t1, gw.ln2_w, gw.ln2_b, last ? act.d_head : dx, a.res2,
                               a.ln2_mean, a.ln2_rstd, w.ln2_w, R, C);
    ops::dropout_backward<T>(t2, t1, a.ffn_mask, RC);
    ops::linear_backward<T>(act.d_ffn, gw.ffn_out_w, gw.ffn_out_b, t2, a.ffn_act, w.ffn_out_w, R,
                            F, C);
    ops::gelu_backward<T>(act.d_ffn, act.d_ffn, a.ffn_pre, int64_t(R) * F);
    ops::linear_backward<T>(t3, gw.ffn_in_w, gw.ffn_in_b, act.d_ffn, a.h1, w.ffn_in_w, R, C, F);
    ops::add_inplace<T>(t3, t1, RC);  // dh1
    // h1 = LN1(res1), res1 = dropout(attn_out(attention(qkv(x)))) + x
    ops::layernorm_backward<T>(t1, gw.ln1_w, gw.ln1_b, t3, a.res1, a.ln1_mean, a.ln1_rstd, w.ln1_w,
                               R, C);
    ops::dropout_backward<T>(t2, t1, a.attn_mask, RC);
    ops::linear_backward<T>(t3, gw.attn_out_w, gw.attn_out_b, t2,
                            last ? act.sel_context : a.context, w.attn_out_w, R, C, C);
    T* dctx = t3;      // (N, C)
    T* dresid = t1;    // (N, C): the residual's gradient w.r.t. x
    if (last) {  // back to all N rows; zero away from the scored rows
      ops::scatter_rows<T>(t2, t3, in.rows, M, N, C);
      ops::scatter_rows<T>(t3, t1, in.rows, M, N, C);
      dctx = t2, dresid = t3;
    }
    T* dv0 = act.d_head_values;
    T* dv1 = act.d_head_values + H;
    ops::fill_zero<T>(dv0, 2 * H);
    ops::attention_backward<T>(act.d_qkv, dv0, dv1, act.att_partial, dctx, a.qkv, a.scores, a.probs,
                               a.probs_mask, shape, cfg_.attention, act.head_v0 + l * H,
                               act.head_v1 + l * H);
    ops::linear_backward<T>(dx_in, gw.qkv_w, gw.qkv_b, act.d_qkv, a.x, w.qkv_w, N, C, 3 * C);
    ops::add_inplace<T>(dx_in, dresid, NC);
    if (head_value_count(cfg_.attention) > 0)  // chain rule to the raw values (b, tau: e^raw)
      ops::head_values_raw_grads<T>(gw.head_raw0, gw.head_raw1, dv0, dv1, act.head_v0 + l * H,
                                    act.head_v1 + l * H, H, cfg_.head_value_frozen(0),
                                    cfg_.head_value_frozen(1));
    std::swap(dx, dx_in);
  }
  // Embeddings
  ops::dropout_backward<T>(t1, dx, act.emb_mask, NC);
  ops::layernorm_backward<T>(t2, gv.emb_ln_w, gv.emb_ln_b, t1, act.emb_sum, act.emb_mean,
                             act.emb_rstd, pv.emb_ln_w, N, C);
  ops::embedding_backward<T>(gv.wte, gv.wpe, t2, in.ids, in.pos, N, C);
  ops::add_row_backward<T>(gv.wtt, t2, N, C);
}

template void Model<float>::run_forward();
template void Model<float>::backward();
template void Model<double>::run_forward();
template void Model<double>::backward();

}  // namespace bb
