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
blocks::EncoderBlockSpec Model<T>::block_spec() const {
  return bb::block_spec(cfg_);
}

// Layer l's run over the staged batch: its output (the next layer's input, or the LM head's at
// the scored rows for the last layer, which continues there after its attention), its effective
// values and dropout keys (sites 1 + 3 l, 2 + 3 l, 3 + 3 l).
template <typename T>
blocks::EncoderBlockRun<T> Model<T>::layer_run(int l, const StagedIndices& in) const {
  const Activations<T>& act = act_;
  const bool last = l == cfg_.layers - 1;
  blocks::EncoderBlockRun<T> run;
  run.N = N_;
  run.row_ids = in.row_ids;
  run.out = last ? act.head_in : act.layer_output(l);
  run.v0 = act.head_v0 + l * cfg_.heads;
  run.v1 = act.head_v1 + l * cfg_.heads;
  run.key_attention = key(1 + 3 * l);
  run.key_attention_out = key(2 + 3 * l);
  run.key_ffn_out = key(3 + 3 * l);
  if (last) {
    run.rows = in.rows;
    run.M = M_;
    run.sel_context = act.sel_context;
    run.sel_x = act.sel_x;
    run.sel_row_ids = in.sel_row_ids;
  }
  return run;
}

template <typename T>
void Model<T>::run_forward() {
  BB_CHECK(staged_, "internal: run_forward() before stage()");
  const int B = B_, N = N_, M = M_;
  const int C = cfg_.hidden, V = cfg_.vocab_size, H = cfg_.heads;
  const StagedIndices in = staged();
  const DeviceScope on(device_);
  const PrecisionScope precision = precision_.pass(param_data(), layout_.total);
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
  const blocks::EncoderBlockSpec spec = block_spec();
  const blocks::LinearFn<T> lin = [this](T* y, const T* x, const T* W, const T* bias, int rows,
                                         int n_in, int n_out) {
    linear(y, x, W, bias, rows, n_in, n_out);
  };
  for (int l = 0; l < cfg_.layers; ++l) {
    const LayerActivations<T> a = act.layer(l);
    blocks::EncoderBlockRun<T> run = layer_run(l, in);
    run.dropout = dropout;
    run.p_hidden = p_hidden, run.p_attention = p_att;
    run.pre_dropout = act.pre_dropout;
    if (observer_)
      run.after_attention = [&, l](const T* S, const T* P) { observer_(l, S, P); };
    blocks::encoder_block_forward<T>(spec, pv.layers[l], a, run, shape, lin);
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
  const int C = cfg_.hidden, V = cfg_.vocab_size, H = cfg_.heads;
  const DeviceScope on(device_);
  const PrecisionScope precision = precision_.pass(param_data(), layout_.total);
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
  const blocks::EncoderBlockScratch<T> scratch{act.d_res,  act.d_proj, act.d_h1,
                                                act.d_ffn,  act.d_qkv,  act.d_head_values,
                                                act.att_partial};
  const blocks::EncoderBlockSpec spec = block_spec();
  for (int l = cfg_.layers - 1; l >= 0; --l) {
    const bool last = l == cfg_.layers - 1;  // M scored rows after its attention (forward)
    blocks::encoder_block_backward<T>(spec, pv.layers[l], gv.layers[l], act.layer(l),
                                      layer_run(l, in), scratch, last ? act.d_head : dx, dx_in,
                                      shape);
    std::swap(dx, dx_in);
  }
  T *t1 = act.d_res, *t2 = act.d_proj;
  const int64_t NC = int64_t(N) * C;
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
