// The ICL model on CUDA against the CPU: one forward and backward of a small model for every
// attention function and architecture (loss and every gradient), and 20 training steps of the
// trainer on each device. Without a CUDA device every case reports "skipped: no CUDA device".
#include <doctest/doctest.h>

#include <cmath>
#include <vector>

#include "cuda/cuda_test.h"
#include "icl/model.h"
#include "icl/trainer.h"

using namespace bb;
using test::rel_err;

TEST_CASE("ICL forward and backward on CUDA equal the CPU's (every function and architecture)") {
  SKIP_WITHOUT_CUDA_DEVICE();
  for (icl::Arch arch : {icl::Arch::full, icl::Arch::attention_only,
                         icl::Arch::attention_only_residual})
    for (AttentionFunction f : kAllAttentionFunctions) {
      CAPTURE(icl::arch_name(arch));
      CAPTURE(attention_function_name(f));
      icl::Config c = icl::preset("icl-tiny");
      c.arch = arch, c.attention = f;
      icl::Model<float> cpu(c), gpu(c, Device::cuda);
      cpu.init_weights(3);
      gpu.init_weights(3);
      const icl::Sequences s = icl::draw_sequences(icl::Task::every, 8, 41, 1, {}, 4, 0);
      cpu.zero_grads();
      gpu.zero_grads();
      const float lc = cpu.forward(s.z, s.targets(), 8, 82, ops::PointLoss::bce_logits, true);
      const float lg = gpu.forward(s.z, s.targets(), 8, 82, ops::PointLoss::bce_logits, true);
      CHECK(lg == doctest::Approx(lc).epsilon(1e-5));
      CHECK(rel_err(gpu.predictions(), cpu.predictions()) <= 1e-4);
      cpu.backward();
      gpu.backward();
      gpu.download();
      for (const icl::ParamTensor& t : cpu.layout().tensors) {
        CAPTURE(t.name);
        CHECK(rel_err(gpu.grads.data() + t.offset, cpu.grads.data() + t.offset, t.size) <= 1e-4);
      }
    }
}

TEST_CASE("ICL training on CUDA follows the CPU (20 steps of icl-tiny, ssa)") {
  SKIP_WITHOUT_CUDA_DEVICE();
  icl::Config c = icl::preset("icl-tiny");
  c.attention = AttentionFunction::ssa;
  icl::TrainSettings s;
  s.steps = 20, s.batch = 16;
  icl::Trainer cpu(c, s, {}, Device::cpu), gpu(c, s, {}, Device::cuda);
  cpu.run();
  gpu.run();
  gpu.model().download();
  double worst = 0;
  for (size_t i = 0; i < cpu.model().params.size(); ++i)
    worst = bb::test::worse(worst, std::abs(double(gpu.model().params[i]) - cpu.model().params[i]));
  CHECK(worst <= 20 * 1e-4);  // at most the sum of 20 updates of size <= lr apart
}
