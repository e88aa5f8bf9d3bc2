// Training recipes: named sets of training defaults, so that a published setup can be run by name
// (`train --recipe NAME`; a flag given explicitly still wins).
//   babyberta: BabyBERTa (Huebner et al. 2021) as this toolkit runs it by default: 10 fixed mask
//     patterns per utterance, 90% <mask> / 10% random / 0% unchanged, length-bucketed batches,
//     AdamW eps 1e-6, warmup min(24,000, steps/10), LayerNorm eps 1e-5.
//   ssa-paper: the SSA paper's encoder recipe (omyokun/SSA, BabyBERTa/huggingface_recommended/
//     train.py: HF Trainer with TrainingArguments' and DataCollatorForLanguageModeling's
//     defaults): fresh mask patterns at every visit, 80/10/10, random (unbucketed) batches, AdamW
//     beta 0.9/0.999, eps 1e-8, no weight decay, lr 1e-4, linear warmup then linear decay, clip
//     1.0, batch 16, HF's LayerNorm eps 1e-12. The script's warmup is 24,000 of 160,000 steps;
//     the recipe keeps that share, 15% of --steps (24,000 at 160k; 6,000 at 40k), so that a
//     shorter run still decays (docs/training.md: "Training recipes").
#pragma once
#include <cstdint>
#include <string>

namespace bb {

struct Recipe {
  std::string name;
  std::string preset;
  int batch_size;
  bool hf_masking;          // 80/10/10 with a fresh pattern at every visit (else 90/10/0, fixed)
  int mask_patterns;        // fixed patterns per utterance (BabyBERTa masking only)
  double mask_prob;
  int bucket_batches;       // batches per length-sorted chunk; 1: random batches
  double lr, beta1, beta2, adam_eps, weight_decay, clip;
  bool bias_correction;
  double warmup_fraction;   // warmup = fraction x steps; < 0: min(24,000, steps / 10)
  double layer_norm_eps;
  double dropout;
  // The warmup steps this recipe gives a run of `steps` steps (-1: the optimizer's rule).
  int64_t warmup_for(int64_t steps) const {
    return warmup_fraction < 0 ? -1 : int64_t(warmup_fraction * double(steps) + 0.5);
  }
};

Recipe recipe(const std::string& name);  // babyberta | ssa-paper; else a one-line error
inline constexpr const char* kRecipeNames = "babyberta, ssa-paper";

}  // namespace bb
