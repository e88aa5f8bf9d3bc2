// RobertaForMaskedLM's passes (kind roberta): embeddings (word + position + type 0, LayerNorm,
// dropout), the post-LN encoder blocks (blocks/encoder_block.h), the LM head at the scored rows
// (dense, GELU, LayerNorm, decoder tied to the word embeddings + bias) and the loss.
#pragma once
#include "encoder/activations.h"
#include "encoder/passes.h"

namespace bb {

template <typename T>
class RobertaPasses final : public KindPasses<T> {
 public:
  RobertaPasses(const Config& c, const ParamLayout& layout, const Capacity& cap, Device device)
      : cfg_(c), layout_(layout), cap_(cap), act_(c, cap, device) {}
  void init_weights(T* params, uint64_t seed) const override;
  int dropout_sites() const override { return 1 + 3 * cfg_.layers; }
  void forward(const PassContext<T>& c) override;
  void backward(const PassContext<T>& c) override;
  T* logits() const override { return act_.logits; }
  T* loss() const override { return act_.loss; }
  T* target_logp() const override { return act_.target_logp; }

 private:
  blocks::EncoderBlockRun<T> layer_run(int l, const PassContext<T>& c) const;

  const Config& cfg_;
  const ParamLayout& layout_;
  Capacity cap_;
  Activations<T> act_;
};

}  // namespace bb
