#include "encoder/recipe.h"

#include "common/error.h"

namespace bb {

Recipe recipe(const std::string& name) {
  if (name == "babyberta")
    return {.name = name, .preset = "babyberta", .batch_size = 16, .hf_masking = false,
            .mask_patterns = 10, .mask_prob = 0.15, .bucket_batches = 100, .lr = 1e-4,
            .beta1 = 0.9, .beta2 = 0.999, .adam_eps = 1e-6, .weight_decay = 0.0, .clip = 1.0,
            .bias_correction = true, .warmup_fraction = -1, .layer_norm_eps = 1e-5,
            .dropout = 0.1};
  if (name == "ssa-paper")
    return {.name = name, .preset = "babyberta", .batch_size = 16, .hf_masking = true,
            .mask_patterns = 10, .mask_prob = 0.15, .bucket_batches = 1, .lr = 1e-4,
            .beta1 = 0.9, .beta2 = 0.999, .adam_eps = 1e-8, .weight_decay = 0.0, .clip = 1.0,
            .bias_correction = true, .warmup_fraction = 24000.0 / 160000.0,
            .layer_norm_eps = 1e-12, .dropout = 0.1};
  fail("unknown recipe '{}' (expected one of {})", name, kRecipeNames);
}

}  // namespace bb
