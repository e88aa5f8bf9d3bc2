// Training recipes: every default each recipe sets, pinned (the SSA paper's values from
// TrainingArguments and DataCollatorForLanguageModeling; docs/training.md "Training recipes").
#include <doctest/doctest.h>

#include "common/error.h"
#include "encoder/config.h"
#include "encoder/recipe.h"

using namespace bb;

TEST_CASE("ssa-paper: HF Trainer's and DataCollatorForLanguageModeling's defaults") {
  const Recipe r = recipe("ssa-paper");
  CHECK(r.preset == "babyberta");
  CHECK(r.batch_size == 16);
  CHECK(r.hf_masking);  // 80% <mask> / 10% random / 10% unchanged, a fresh pattern every visit
  CHECK(r.mask_prob == 0.15);
  CHECK(r.bucket_batches == 1);  // HF Trainer batches at random (no length bucketing)
  CHECK(r.lr == 1e-4);
  CHECK(r.beta1 == 0.9);
  CHECK(r.beta2 == 0.999);
  CHECK(r.adam_eps == 1e-8);
  CHECK(r.weight_decay == 0.0);
  CHECK(r.clip == 1.0);
  CHECK(r.bias_correction);
  CHECK(r.layer_norm_eps == 1e-12);  // RobertaConfig's default, which the script leaves
  CHECK(r.dropout == 0.1);
  // The script's 24,000 warmup steps of 160,000, kept as a share of the run.
  CHECK(r.warmup_for(160000) == 24000);
  CHECK(r.warmup_for(40000) == 6000);
  CHECK(r.warmup_for(1000) == 150);
  Config c = preset(r.preset);
  c.layer_norm_eps = r.layer_norm_eps;
  CHECK_NOTHROW(c.validate("ssa-paper"));
}

TEST_CASE("babyberta: the toolkit's defaults") {
  const Recipe r = recipe("babyberta");
  CHECK(r.preset == "babyberta");
  CHECK(r.batch_size == 16);
  CHECK_FALSE(r.hf_masking);
  CHECK(r.mask_patterns == 10);
  CHECK(r.mask_prob == 0.15);
  CHECK(r.bucket_batches == 100);
  CHECK(r.lr == 1e-4);
  CHECK(r.adam_eps == 1e-6);
  CHECK(r.weight_decay == 0.0);
  CHECK(r.clip == 1.0);
  CHECK(r.bias_correction);
  CHECK(r.warmup_for(40000) == -1);  // the optimizer's min(24000, steps / 10)
  CHECK(r.layer_norm_eps == 1e-5);
  CHECK(r.dropout == 0.1);
  CHECK_THROWS_WITH_AS(recipe("bert"), doctest::Contains("unknown recipe 'bert' (expected one of "
                                                          "babyberta, ssa-paper)"),
                       Error);
}
