// GPT2LMHeadModel's passes (kind gpt2): token + position embeddings and their dropout, the pre-LN
// causal blocks (blocks/causal_block.h) with GPT-2's dropout, the final LayerNorm and the LM head
// tied to the token embeddings (no bias) at the scored rows, and the loss. Positions start at 0;
// sequence b's tokens see only the tokens before them in b.
//
// Activations (llm.c's layout: one arena on the model's device): N = max_tokens rows, M =
// max_rows scored rows, B = max_seqs, A = one layer's attention store (as the encoder's). A
// training model keeps every layer's stores and the backward's gradients; an inference-only one
// keeps one layer's stores, reused by every layer, and no gradients.
#pragma once
#include <vector>

#include "backend/device.h"
#include "blocks/causal_block.h"
#include "common/buffer.h"
#include "encoder/activation_arena.h"
#include "encoder/passes.h"

namespace bb {

template <typename T>
class CausalLmPasses final : public KindPasses<T> {
 public:
  CausalLmPasses(const Config& c, const ParamLayout& layout, const Capacity& cap, Device device);
  void init_weights(T* params, uint64_t seed) const override;
  // site 0: the embeddings; layer l: 1 + 3 l the attention weights, 2 + 3 l its projection,
  // 3 + 3 l the MLP's projection.
  int dropout_sites() const override { return 1 + 3 * cfg_.layers; }
  void forward(const PassContext<T>& c) override;
  void backward(const PassContext<T>& c) override;
  T* logits() const override { return logits_; }
  T* loss() const override { return loss_; }
  T* target_logp() const override { return target_logp_; }

 private:
  template <typename Take>
  void visit(Take&& take);
  blocks::CausalBlockStores<T> stores(int l) const;  // layer l's (x: its input, out: its output)
  ops::AttentionShape shape(const PassContext<T>& c) const;

  const Config& cfg_;
  const ParamLayout& layout_;
  Capacity cap_;
  Array<T> arena_;
  // forward
  T *emb_ = nullptr, *emb_mask_ = nullptr, *pre_dropout_ = nullptr;
  T *sel_ = nullptr, *head_norm_ = nullptr, *head_mean_ = nullptr, *head_rstd_ = nullptr;
  T *logits_ = nullptr, *lse_ = nullptr, *target_logp_ = nullptr, *loss_ = nullptr;
  T *zero_bias_ = nullptr;  // (V) the LM head's absent bias, for the frozen product
  T *v0_ = nullptr, *v1_ = nullptr;  // (layers, H) effective values
  std::vector<T*> x_;       // layer inputs and the last output: layers + 1 (inference: 2)
  std::vector<blocks::CausalBlockStores<T>> layers_;  // layers (inference: 1)
  // backward
  T *d_logits_ = nullptr, *d_head_ = nullptr, *d_sel_ = nullptr, *dx_ = nullptr;
  blocks::CausalBlockScratch<T> scratch_{};
};

}  // namespace bb
