// RoBERTa's forward and backward passes over the staged batch: the post-LN encoder layer by layer,
// the LM head and the loss, as a queue of backend ops.
#include "encoder/roberta_passes.h"

#include <algorithm>
#include <cmath>

#include "backend/ops.h"
#include "common/error.h"
#include "common/philox.h"

namespace bb {

template <typename T>
void RobertaPasses<T>::init_weights(T* params, uint64_t seed) const {
  // Truncated normal (resampled beyond 2 std) from Philox keyed by (seed, tensor index).
  for (size_t k = 0; k < layout_.tensors.size(); ++k) {
    const ParamTensor& t = layout_.tensors[k];
    T* p = params + t.offset;
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
      case ParamKind::head_value0:
      case ParamKind::head_value1: {
        const double init = cfg_.head_value_init(head_value_slot(t.kind));
        std::fill(p, p + t.size, T(raw_value(t.kind, init)));
        break;
      }
    }
  }
  // The padding rows of the word and position embeddings are zero, as HF initialises them.
  ParamViews<T> pv(layout_, cfg_, params);
  const int C = cfg_.hidden;
  std::fill(pv.wte + int64_t(cfg_.pad_id) * C, pv.wte + int64_t(cfg_.pad_id + 1) * C, T(0));
  std::fill(pv.wpe + int64_t(cfg_.pad_id) * C, pv.wpe + int64_t(cfg_.pad_id + 1) * C, T(0));
}

// Layer l's run over the staged batch: its output (the next layer's input, or the LM head's at
// the scored rows for the last layer, which continues there after its attention), its effective
// values and dropout keys (sites 1 + 3 l, 2 + 3 l, 3 + 3 l).
template <typename T>
blocks::EncoderBlockRun<T> RobertaPasses<T>::layer_run(int l, const PassContext<T>& c) const {
  const Activations<T>& act = act_;
  const bool last = l == cfg_.layers - 1;
  blocks::EncoderBlockRun<T> run;
  run.N = c.N;
  run.row_ids = c.in.row_ids;
  run.out = last ? act.head_in : act.layer_output(l);
  run.v0 = act.head_v0 + l * cfg_.heads;
  run.v1 = act.head_v1 + l * cfg_.heads;
  run.key_attention = c.keys + 1 + 3 * l;
  run.key_attention_out = c.keys + 2 + 3 * l;
  run.key_ffn_out = c.keys + 3 + 3 * l;
  if (last) {
    run.rows = c.in.rows;
    run.M = c.M;
    run.sel_context = act.sel_context;
    run.sel_x = act.sel_x;
    run.sel_row_ids = c.in.sel_row_ids;
  }
  return run;
}

template <typename T>
void RobertaPasses<T>::forward(const PassContext<T>& c) {
  const int B = c.B, N = c.N, M = c.M;
  const int C = cfg_.hidden, V = cfg_.vocab_size, H = cfg_.heads;
  const StagedBatch& in = c.in;
  const float p_hidden = c.train ? float(cfg_.hidden_dropout) : 0.f;
  const float p_att = c.train ? float(cfg_.attention_dropout) : 0.f;
  ParamViews<T> pv(layout_, cfg_, c.params);
  const Activations<T>& act = act_;
  const ModelLinear<T>& linear = c.linear;
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
                            p_hidden, c.keys);

  ops::AttentionShape shape{B, H, C, in.offsets, in.store_at, c.first_seq};
  shape.max_len = cap_.max_len;
  const blocks::EncoderBlockSpec spec = block_spec(cfg_);
  for (int l = 0; l < cfg_.layers; ++l) {
    const LayerActivations<T> a = act.layer(l);
    blocks::EncoderBlockRun<T> run = layer_run(l, c);
    run.dropout = dropout;
    run.p_hidden = p_hidden, run.p_attention = p_att;
    run.pre_dropout = act.pre_dropout;
    if (c.observer)
      run.after_attention = [&, l](const T* S, const T* P) { c.observer(l, S, P); };
    blocks::encoder_block_forward<T>(spec, pv.layers[l], a, run, shape, linear);
  }

  // LM head at the scored rows (head_in): dense -> GELU -> LayerNorm -> decoder (tied) + bias
  linear(act.head_dense, act.head_in, pv.head_dense_w, pv.head_dense_b, M, C, C);
  ops::gelu_forward<T>(act.head_act, act.head_dense, int64_t(M) * C);
  ops::layernorm_forward<T>(act.head_norm, act.head_mean, act.head_rstd, act.head_act,
                            pv.head_ln_w, pv.head_ln_b, M, C, T(cfg_.layer_norm_eps));
  linear(act.logits, act.head_norm, pv.wte, pv.head_bias, M, C, V);
  if (c.has_loss)
    ops::cross_entropy_forward<T>(act.loss, act.lse, act.logits, in.labels, M, V);
}

template <typename T>
void RobertaPasses<T>::backward(const PassContext<T>& c) {
  const int B = c.B, N = c.N, M = c.M;
  const StagedBatch& in = c.in;
  const int C = cfg_.hidden, V = cfg_.vocab_size, H = cfg_.heads;
  ParamViews<T> pv(layout_, cfg_, c.params);
  ParamViews<T> gv(layout_, cfg_, c.grads);
  const Activations<T>& act = act_;

  // Head
  ops::cross_entropy_backward<T>(act.d_logits, act.logits, act.lse, in.labels, M, V,
                                 T(c.loss_weight));
  ops::linear_backward<T>(act.d_head, gv.wte, gv.head_bias, act.d_logits, act.head_norm, pv.wte,
                          M, C, V);
  ops::layernorm_backward<T>(act.d_head_act, gv.head_ln_w, gv.head_ln_b, act.d_head,
                             act.head_act, act.head_mean, act.head_rstd, pv.head_ln_w, M, C);
  ops::gelu_backward<T>(act.d_head_act, act.d_head_act, act.head_dense, int64_t(M) * C);
  ops::linear_backward<T>(act.d_head, gv.head_dense_w, gv.head_dense_b, act.d_head_act,
                          act.head_in, pv.head_dense_w, M, C, C);
  T* dx = act.d_out;    // gradient w.r.t. the current layer's output (N, C); the last layer's
  T* dx_in = act.d_in;  // is d_head (M, C) at the scored rows

  ops::AttentionShape shape{B, H, C, in.offsets, in.store_at, c.first_seq};
  shape.max_len = cap_.max_len;
  const blocks::EncoderBlockScratch<T> scratch{act.d_res,  act.d_proj, act.d_h1,
                                                act.d_ffn,  act.d_qkv,  act.d_head_values,
                                                act.att_partial};
  const blocks::EncoderBlockSpec spec = block_spec(cfg_);
  for (int l = cfg_.layers - 1; l >= 0; --l) {
    const bool last = l == cfg_.layers - 1;  // M scored rows after its attention (forward)
    blocks::encoder_block_backward<T>(spec, pv.layers[l], gv.layers[l], act.layer(l),
                                      layer_run(l, c), scratch, last ? act.d_head : dx, dx_in,
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

template class RobertaPasses<float>;
template class RobertaPasses<double>;

}  // namespace bb
