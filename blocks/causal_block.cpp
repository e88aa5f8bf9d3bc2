// The pre-LN causal block, op by op (N tokens, C hidden, F = ffn, H heads).
#include "blocks/causal_block.h"

namespace bb::blocks {

namespace {
// A function value's tensor name (the table's raw or effective name) inside the layer.
std::string value_name(const CausalBlockSpec& s, std::string_view table_name) {
  constexpr std::string_view kTableScope = "attention.self.";
  if (s.head_value_prefix.empty() || !table_name.starts_with(kTableScope))
    return std::string(table_name);
  return s.head_value_prefix + std::string(table_name.substr(kTableScope.size()));
}
}  // namespace

std::vector<BlockTensor> causal_block_tensors(const CausalBlockSpec& s) {
  const int64_t C = s.hidden, F = s.ffn, H = s.heads;
  std::vector<BlockTensor> t;
  if (s.mlp) {
    t.push_back({"ln_1.weight", {C}, Init::ones, ""});
    t.push_back({"ln_1.bias", {C}, Init::zeros, ""});
  }
  t.push_back({"attn.c_attn.weight", {3 * C, C}, Init::normal, ""});
  t.push_back({"attn.c_attn.bias", {3 * C}, Init::zeros, ""});
  t.push_back({"attn.c_proj.weight", {C, C}, Init::normal_residual, ""});
  t.push_back({"attn.c_proj.bias", {C}, Init::zeros, ""});
  if (s.mlp) {
    t.push_back({"ln_2.weight", {C}, Init::ones, ""});
    t.push_back({"ln_2.bias", {C}, Init::zeros, ""});
    t.push_back({"mlp.c_fc.weight", {F, C}, Init::normal, ""});
    t.push_back({"mlp.c_fc.bias", {F}, Init::zeros, ""});
    t.push_back({"mlp.c_proj.weight", {C, F}, Init::normal_residual, ""});
    t.push_back({"mlp.c_proj.bias", {C}, Init::zeros, ""});
  }
  const AttentionFunctionSpec& f = attention_function_spec(s.attention);
  for (int slot = 0; slot < f.value_count; ++slot)
    t.push_back({value_name(s, f.values[size_t(slot)].raw_tensor), {H},
                 slot == 0 ? Init::head_value0 : Init::head_value1,
                 value_name(s, f.values[size_t(slot)].effective_tensor)});
  for (BlockTensor& x : t)
    if (x.saved_name.empty()) x.saved_name = x.name;
  return t;
}

template <typename T>
CausalBlockWeights<T> causal_block_weights(const CausalBlockSpec& s,
                                           const std::function<T*(const std::string&)>& at) {
  CausalBlockWeights<T> y;
  y.ln1_w = at("ln_1.weight"), y.ln1_b = at("ln_1.bias");
  y.qkv_w = at("attn.c_attn.weight"), y.qkv_b = at("attn.c_attn.bias");
  y.proj_w = at("attn.c_proj.weight"), y.proj_b = at("attn.c_proj.bias");
  y.ln2_w = at("ln_2.weight"), y.ln2_b = at("ln_2.bias");
  y.fc_w = at("mlp.c_fc.weight"), y.fc_b = at("mlp.c_fc.bias");
  y.fc_proj_w = at("mlp.c_proj.weight"), y.fc_proj_b = at("mlp.c_proj.bias");
  const AttentionFunctionSpec& f = attention_function_spec(s.attention);
  if (f.value_count > 0) y.raw0 = at(value_name(s, f.values[0].raw_tensor));
  if (f.value_count > 1) y.raw1 = at(value_name(s, f.values[1].raw_tensor));
  return y;
}

template <typename T>
void causal_block_forward(const CausalBlockSpec& s, const CausalBlockWeights<T>& w,
                          const CausalBlockStores<T>& a, const ops::AttentionShape& shape, int N,
                          const std::function<void()>& after_attention,
                          const CausalBlockDropout<T>* dropout, const CausalLinearFn<T>& linear) {
  const int C = s.hidden, H = s.heads, F = s.ffn;
  const int64_t NC = int64_t(N) * C;
  const bool values = head_value_count(s.attention) > 0;
  auto lin = [&](T* y, const T* x, const T* W, const T* b, int in, int out) {
    if (linear) return linear(y, x, W, b, N, in, out);
    ops::linear_forward<T>(y, x, W, b, N, in, out);
  };
  // A residual branch's projection to `to`, through its dropout when training with dropout.
  auto project = [&](T* to, const T* x, const T* W, const T* b, int in, T* mask,
                     const uint64_t* key) {
    if (!dropout) return lin(to, x, W, b, in, C);
    lin(dropout->pre_dropout, x, W, b, in, C);
    ops::dropout_forward<T>(to, mask, dropout->pre_dropout, dropout->row_ids, N, C,
                            dropout->p_hidden, key);
  };
  if (w.raw0) ops::head_values_effective<T>(a.v0, a.v1, w.raw0, w.raw1, H);
  const T* attn_in = a.x;
  if (s.mlp) {
    ops::layernorm_forward<T>(a.ln1, a.ln1_mean, a.ln1_rstd, a.x, w.ln1_w, w.ln1_b, N, C,
                              T(s.layer_norm_eps));
    attn_in = a.ln1;
  }
  lin(a.qkv, attn_in, w.qkv_w, w.qkv_b, C, 3 * C);
  ops::attention_forward<T>(a.ctx, a.S, a.P, a.mask, a.qkv, shape, s.attention,
                            values ? a.v0 : nullptr, values ? a.v1 : nullptr,
                            dropout ? dropout->p_attention : 0.f,
                            dropout ? dropout->key_attention : nullptr);
  if (after_attention) after_attention();
  // attention-only: out = proj(ctx) (+ x); full: mid = x + proj(ctx), out = mid + mlp(ln_2(mid))
  T* proj_to = s.mlp ? a.mid : a.out;
  project(proj_to, a.ctx, w.proj_w, w.proj_b, C, a.proj_mask,
          dropout ? dropout->key_proj : nullptr);
  if (s.residual) ops::add_inplace<T>(proj_to, a.x, NC);
  if (!s.mlp) return;
  const T* mid = proj_to;
  ops::layernorm_forward<T>(a.ln2, a.ln2_mean, a.ln2_rstd, mid, w.ln2_w, w.ln2_b, N, C,
                            T(s.layer_norm_eps));
  lin(a.fc, a.ln2, w.fc_w, w.fc_b, C, F);
  ops::gelu_tanh_forward<T>(a.act, a.fc, int64_t(N) * F);
  project(a.out, a.act, w.fc_proj_w, w.fc_proj_b, F, a.mlp_mask,
          dropout ? dropout->key_mlp : nullptr);
  ops::add_inplace<T>(a.out, mid, NC);
}

template <typename T>
void causal_block_backward(const CausalBlockSpec& s, const CausalBlockWeights<T>& w,
                           const CausalBlockWeights<T>& g, const CausalBlockStores<T>& a,
                           const CausalBlockScratch<T>& d, T* dx, const ops::AttentionShape& shape,
                           int N, bool dropout) {
  const int C = s.hidden, H = s.heads, F = s.ffn;
  const int64_t NC = int64_t(N) * C;
  // d of a projection's output: dx, or through its dropout mask into dtmp
  auto through = [&](const T* mask) -> const T* {
    if (!dropout) return dx;
    ops::dropout_backward<T>(d.dtmp, dx, mask, NC);
    return d.dtmp;
  };
  if (s.mlp) {  // out = mid + fc_proj(gelu(fc(ln_2(mid)))): dx becomes d mid
    ops::linear_backward<T>(d.dact, g.fc_proj_w, g.fc_proj_b, through(a.mlp_mask), a.act,
                            w.fc_proj_w, N, F, C);
    ops::gelu_tanh_backward<T>(d.dfc, d.dact, a.fc, int64_t(N) * F);
    ops::linear_backward<T>(d.dtmp, g.fc_w, g.fc_b, d.dfc, a.ln2, w.fc_w, N, C, F);
    ops::layernorm_backward<T>(d.dctx, g.ln2_w, g.ln2_b, d.dtmp, a.mid, a.ln2_mean, a.ln2_rstd,
                               w.ln2_w, N, C);
    ops::add_inplace<T>(dx, d.dctx, NC);
  }
  // (mid or out) = proj(attention(qkv(a))) (+ x), a = ln_1(x) (full) or x
  ops::linear_backward<T>(d.dctx, g.proj_w, g.proj_b, through(a.proj_mask), a.ctx, w.proj_w, N,
                          C, C);
  const int count = head_value_count(s.attention);
  const bool values = count > 0;
  if (values) {
    ops::fill_zero<T>(d.dv0, H);
    ops::fill_zero<T>(d.dv1, H);
  }
  ops::attention_backward<T>(d.dqkv, values ? d.dv0 : nullptr, values ? d.dv1 : nullptr,
                             d.scratch, d.dctx, a.qkv, a.S, a.P, a.mask, shape, s.attention,
                             values ? a.v0 : nullptr, values ? a.v1 : nullptr);
  if (values)
    ops::head_values_raw_grads<T>(g.raw0, g.raw1, d.dv0, d.dv1, a.v0, a.v1, H, s.frozen0,
                                  count > 1 && s.frozen1);
  if (s.mlp) {
    ops::linear_backward<T>(d.dctx, g.qkv_w, g.qkv_b, d.dqkv, a.ln1, w.qkv_w, N, C, 3 * C);
    ops::layernorm_backward<T>(d.dtmp, g.ln1_w, g.ln1_b, d.dctx, a.x, a.ln1_mean, a.ln1_rstd,
                               w.ln1_w, N, C);
    ops::add_inplace<T>(dx, d.dtmp, NC);
  } else if (s.residual) {
    ops::linear_backward<T>(d.dtmp, g.qkv_w, g.qkv_b, d.dqkv, a.x, w.qkv_w, N, C, 3 * C);
    ops::add_inplace<T>(dx, d.dtmp, NC);
  } else {
    ops::linear_backward<T>(dx, g.qkv_w, g.qkv_b, d.dqkv, a.x, w.qkv_w, N, C, 3 * C);
  }
}

#define BB_INSTANTIATE(T)                                                                        \
  template CausalBlockWeights<T> causal_block_weights<T>(                                        \
      const CausalBlockSpec&, const std::function<T*(const std::string&)>&);                     \
  template void causal_block_forward<T>(const CausalBlockSpec&, const CausalBlockWeights<T>&,    \
                                        const CausalBlockStores<T>&, const ops::AttentionShape&, \
                                        int, const std::function<void()>&,                       \
                                        const CausalBlockDropout<T>*, const CausalLinearFn<T>&);  \
  template void causal_block_backward<T>(                                                        \
      const CausalBlockSpec&, const CausalBlockWeights<T>&, const CausalBlockWeights<T>&,        \
      const CausalBlockStores<T>&, const CausalBlockScratch<T>&, T*, const ops::AttentionShape&, \
      int, bool);
BB_INSTANTIATE(float)
BB_INSTANTIATE(double)
#undef BB_INSTANTIATE

}  // namespace bb::blocks
