#include "encoder/activations.h"

#include <algorithm>

namespace bb {

template <typename T>
Activations<T>::Activations(const Config& c, const Capacity& cap, Device device)
    : cfg_(c), cap_(cap), arena_(device) {
  const bool reused = cap.inference_only;
  x_.assign(reused ? 2 : c.layers, nullptr);
  layers_.assign(reused ? 1 : c.layers, LayerActivations<T>{});
  carve_arena(arena_, [this](auto&& take) { visit(take); });
}

// Every tensor starts on a 64-byte line (for double, 128 bytes: still a whole number of lines)
// except inside the layer stores, whose tensors lie back to back as they always have: an
// address modulo the vector width decides where Eigen's reductions start their aligned packets,
// so moving a tensor would change sums in the last bit and break bit-identical results.
template <typename T>
template <typename Take>
void Activations<T>::visit(Take&& take) {
  const int64_t C = cfg_.hidden, F = cfg_.ffn, V = cfg_.vocab_size, H = cfg_.heads;
  const int64_t N = cap_.max_tokens, M = cap_.max_rows, B = cap_.max_seqs;
  const int64_t A = attention_store_elements(cap_, cfg_.heads);
  const bool train = !cap_.inference_only;
  auto line = [&take](T*& tensor, int64_t n) { take(tensor, n, ArenaStart::line); };
  auto train_line = [&](T*& tensor, int64_t n) {
    if (train) line(tensor, n);
    else tensor = nullptr;
  };
  line(emb_sum, N * C);
  line(emb_mean, N);
  line(emb_rstd, N);
  train_line(emb_mask, N * C);
  train_line(pre_dropout, N * C);
  for (T** t : {&sel_context, &sel_x, &head_in, &head_dense, &head_act, &head_norm})
    line(*t, M * C);
  line(head_mean, M);
  line(head_rstd, M);
  line(logits, M * V);
  line(lse, M);
  line(target_logp, M);
  line(loss, 1);
  line(head_v0, cfg_.layers * H);
  line(head_v1, cfg_.layers * H);
  train_line(d_logits, M * V);
  for (T** t : {&d_head, &d_head_act}) train_line(*t, M * C);
  for (T** t : {&d_out, &d_in, &d_res, &d_proj, &d_h1}) train_line(*t, N * C);
  train_line(d_ffn, N * F);
  train_line(d_qkv, N * 3 * C);
  train_line(d_head_values, 2 * H);
  train_line(att_partial, 2 * H * B);
  // The layer stores: the inputs, then each layer's block.
  take(x_[0], N * C, ArenaStart::line);
  for (size_t s = 1; s < x_.size(); ++s) take(x_[s], N * C, ArenaStart::packed);
  const auto packed = [&take](T*& tensor, int64_t n) { take(tensor, n, ArenaStart::packed); };
  for (LayerActivations<T>& a : layers_) {
    packed(a.qkv, N * 3 * C);
    for (T** t : {&a.scores, &a.probs, &a.probs_mask}) packed(*t, A);
    for (T** t : {&a.context, &a.attn_mask, &a.res1}) packed(*t, N * C);
    for (T** t : {&a.ln1_mean, &a.ln1_rstd}) packed(*t, N);
    packed(a.h1, N * C);
    for (T** t : {&a.ffn_pre, &a.ffn_act}) packed(*t, N * F);
    for (T** t : {&a.ffn_mask, &a.res2}) packed(*t, N * C);
    for (T** t : {&a.ln2_mean, &a.ln2_rstd}) packed(*t, N);
  }
}

template <typename T>
LayerActivations<T> Activations<T>::layer(int l) const {
  const bool reused = cap_.inference_only;
  LayerActivations<T> a = layers_[reused ? 0 : size_t(l)];
  a.x = x_.at(reused ? size_t(l % 2) : size_t(l));
  return a;
}

template class Activations<float>;
template class Activations<double>;

}  // namespace bb
