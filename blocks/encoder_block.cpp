// The post-LN encoder block, op by op (N rows, R after the attention, C hidden, F ffn, H heads).
#include "blocks/encoder_block.h"

namespace bb::blocks {

std::vector<EncoderBlockTensor> encoder_block_tensors(const EncoderBlockSpec& s) {
  const int64_t C = s.hidden, F = s.ffn, H = s.heads;
  using enum TensorRole;
  std::vector<EncoderBlockTensor> t{
      {"attention.self.query.weight", {C, C}, matrix, ""},
      {"attention.self.key.weight", {C, C}, matrix, ""},
      {"attention.self.value.weight", {C, C}, matrix, ""},
      {"attention.self.query.bias", {C}, bias, ""},
      {"attention.self.key.bias", {C}, bias, ""},
      {"attention.self.value.bias", {C}, bias, ""},
      {"attention.output.dense.weight", {C, C}, matrix, ""},
      {"attention.output.dense.bias", {C}, bias, ""},
      {"attention.output.LayerNorm.weight", {C}, norm, ""},
      {"attention.output.LayerNorm.bias", {C}, bias, ""},
      {"intermediate.dense.weight", {F, C}, matrix, ""},
      {"intermediate.dense.bias", {F}, bias, ""},
      {"output.dense.weight", {C, F}, matrix, ""},
      {"output.dense.bias", {C}, bias, ""},
      {"output.LayerNorm.weight", {C}, norm, ""},
      {"output.LayerNorm.bias", {C}, bias, ""},
  };
  const AttentionFunctionSpec& f = attention_function_spec(s.attention);
  for (int slot = 0; slot < f.value_count; ++slot) {
    const HeadValueSpec& v = f.values[size_t(slot)];
    t.push_back({std::string(v.raw_tensor), {H}, slot == 0 ? head_value0 : head_value1,
                 std::string(v.effective_tensor)});
  }
  for (EncoderBlockTensor& x : t)
    if (x.saved_name.empty()) x.saved_name = x.name;
  return t;
}

template <typename T>
EncoderBlockWeights<T> encoder_block_weights(const EncoderBlockSpec& s,
                                             const std::function<T*(const std::string&)>& at) {
  EncoderBlockWeights<T> y{};  // head_raw0, head_raw1 stay null without trainable values
  y.qkv_w = at("attention.self.query.weight"), y.qkv_b = at("attention.self.query.bias");
  y.attn_out_w = at("attention.output.dense.weight");
  y.attn_out_b = at("attention.output.dense.bias");
  y.ln1_w = at("attention.output.LayerNorm.weight"), y.ln1_b = at("attention.output.LayerNorm.bias");
  y.ffn_in_w = at("intermediate.dense.weight"), y.ffn_in_b = at("intermediate.dense.bias");
  y.ffn_out_w = at("output.dense.weight"), y.ffn_out_b = at("output.dense.bias");
  y.ln2_w = at("output.LayerNorm.weight"), y.ln2_b = at("output.LayerNorm.bias");
  const AttentionFunctionSpec& f = attention_function_spec(s.attention);
  if (f.value_count > 0) y.head_raw0 = at(std::string(f.values[0].raw_tensor));
  if (f.value_count > 1) y.head_raw1 = at(std::string(f.values[1].raw_tensor));
  return y;
}

template <typename T>
void encoder_block_forward(const EncoderBlockSpec& s, const EncoderBlockWeights<T>& w,
                           const EncoderBlockStores<T>& a, const EncoderBlockRun<T>& run,
                           const ops::AttentionShape& shape, const LinearFn<T>& linear) {
  const int N = run.N, C = s.hidden, F = s.ffn, H = s.heads;
  auto pre_dropout = [&](T* dst) { return run.dropout ? run.pre_dropout : dst; };
  if (head_value_count(s.attention) > 0)
    ops::head_values_effective<T>(run.v0, run.v1, w.head_raw0, w.head_raw1, H);
  // Self-attention: fused QKV, scores, the function, context; dense -> dropout -> + x -> LayerNorm
  linear(a.qkv, a.x, w.qkv_w, w.qkv_b, N, C, 3 * C);
  ops::attention_forward<T>(a.context, a.scores, a.probs, a.probs_mask, a.qkv, shape,
                            s.attention, run.v0, run.v1, run.p_attention, run.key_attention);
  if (run.after_attention) run.after_attention(a.scores, a.probs);
  // At the selected rows only, after the attention; their dropout masks are drawn by the same
  // row ids as in the full layout.
  const int R = run.rows ? run.M : N;
  const T* ctx_in = a.context;
  const T* x_in = a.x;
  const int64_t* ids_in = run.row_ids;
  if (run.rows) {
    ops::gather_rows<T>(run.sel_context, a.context, run.rows, run.M, C);
    ops::gather_rows<T>(run.sel_x, a.x, run.rows, run.M, C);
    ctx_in = run.sel_context, x_in = run.sel_x, ids_in = run.sel_row_ids;
  }
  linear(pre_dropout(a.res1), ctx_in, w.attn_out_w, w.attn_out_b, R, C, C);
  if (run.dropout)
    ops::dropout_forward<T>(a.res1, a.attn_mask, run.pre_dropout, ids_in, R, C, run.p_hidden,
                            run.key_attention_out);
  ops::add_inplace<T>(a.res1, x_in, int64_t(R) * C);
  ops::layernorm_forward<T>(a.h1, a.ln1_mean, a.ln1_rstd, a.res1, w.ln1_w, w.ln1_b, R, C,
                            T(s.layer_norm_eps));
  // Feed-forward: dense -> GELU -> dense -> dropout -> + h1 -> LayerNorm
  linear(a.ffn_pre, a.h1, w.ffn_in_w, w.ffn_in_b, R, C, F);
  ops::gelu_forward<T>(a.ffn_act, a.ffn_pre, int64_t(R) * F);
  linear(pre_dropout(a.res2), a.ffn_act, w.ffn_out_w, w.ffn_out_b, R, F, C);
  if (run.dropout)
    ops::dropout_forward<T>(a.res2, a.ffn_mask, run.pre_dropout, ids_in, R, C, run.p_hidden,
                            run.key_ffn_out);
  ops::add_inplace<T>(a.res2, a.h1, int64_t(R) * C);
  ops::layernorm_forward<T>(run.out, a.ln2_mean, a.ln2_rstd, a.res2, w.ln2_w, w.ln2_b, R, C,
                            T(s.layer_norm_eps));
}

template <typename T>
void encoder_block_backward(const EncoderBlockSpec& s, const EncoderBlockWeights<T>& w,
                            const EncoderBlockWeights<T>& g, const EncoderBlockStores<T>& a,
                            const EncoderBlockRun<T>& run, const EncoderBlockScratch<T>& d,
                            const T* dout, T* dx_in, const ops::AttentionShape& shape) {
  const int N = run.N, C = s.hidden, F = s.ffn, H = s.heads;
  const int R = run.rows ? run.M : N;
  const int64_t RC = int64_t(R) * C, NC = int64_t(N) * C;
  T *t1 = d.t1, *t2 = d.t2, *t3 = d.t3;
  // x_out = LN2(res2), res2 = dropout(ffn_out(gelu(ffn_in(h1)))) + h1
  ops::layernorm_backward<T>(t1, g.ln2_w, g.ln2_b, dout, a.res2, a.ln2_mean, a.ln2_rstd, w.ln2_w,
                             R, C);
  ops::dropout_backward<T>(t2, t1, a.ffn_mask, RC);
  ops::linear_backward<T>(d.d_ffn, g.ffn_out_w, g.ffn_out_b, t2, a.ffn_act, w.ffn_out_w, R, F,
                          C);
  ops::gelu_backward<T>(d.d_ffn, d.d_ffn, a.ffn_pre, int64_t(R) * F);
  ops::linear_backward<T>(t3, g.ffn_in_w, g.ffn_in_b, d.d_ffn, a.h1, w.ffn_in_w, R, C, F);
  ops::add_inplace<T>(t3, t1, RC);  // dh1
  // h1 = LN1(res1), res1 = dropout(attn_out(attention(qkv(x)))) + x
  ops::layernorm_backward<T>(t1, g.ln1_w, g.ln1_b, t3, a.res1, a.ln1_mean, a.ln1_rstd, w.ln1_w,
                             R, C);
  ops::dropout_backward<T>(t2, t1, a.attn_mask, RC);
  ops::linear_backward<T>(t3, g.attn_out_w, g.attn_out_b, t2,
                          run.rows ? run.sel_context : a.context, w.attn_out_w, R, C, C);
  T* dctx = t3;    // (N, C)
  T* dresid = t1;  // (N, C): the residual's gradient w.r.t. x
  if (run.rows) {  // back to all N rows; zero away from the selected rows
    ops::scatter_rows<T>(t2, t3, run.rows, run.M, N, C);
    ops::scatter_rows<T>(t3, t1, run.rows, run.M, N, C);
    dctx = t2, dresid = t3;
  }
  T* dv0 = d.d_values;
  T* dv1 = d.d_values + H;
  ops::fill_zero<T>(dv0, 2 * H);
  ops::attention_backward<T>(d.d_qkv, dv0, dv1, d.att_partial, dctx, a.qkv, a.scores, a.probs,
                             a.probs_mask, shape, s.attention, run.v0, run.v1);
  ops::linear_backward<T>(dx_in, g.qkv_w, g.qkv_b, d.d_qkv, a.x, w.qkv_w, N, C, 3 * C);
  ops::add_inplace<T>(dx_in, dresid, NC);
  if (head_value_count(s.attention) > 0)  // chain rule to the raw values (b, tau: e^raw)
    ops::head_values_raw_grads<T>(g.head_raw0, g.head_raw1, dv0, dv1, run.v0, run.v1, H,
                                  s.frozen0, s.frozen1);
}

#define BB_INSTANTIATE(T)                                                                       \
  template EncoderBlockWeights<T> encoder_block_weights<T>(                                     \
      const EncoderBlockSpec&, const std::function<T*(const std::string&)>&);                   \
  template void encoder_block_forward<T>(const EncoderBlockSpec&, const EncoderBlockWeights<T>&, \
                                         const EncoderBlockStores<T>&, const EncoderBlockRun<T>&, \
                                         const ops::AttentionShape&, const LinearFn<T>&);       \
  template void encoder_block_backward<T>(                                                      \
      const EncoderBlockSpec&, const EncoderBlockWeights<T>&, const EncoderBlockWeights<T>&,    \
      const EncoderBlockStores<T>&, const EncoderBlockRun<T>&, const EncoderBlockScratch<T>&,   \
      const T*, T*, const ops::AttentionShape&);
BB_INSTANTIATE(float)
BB_INSTANTIATE(double)
#undef BB_INSTANTIATE

}  // namespace bb::blocks
