// The ICL model (icl/model.h): gradients against central finite differences in double for every
// attention function and architecture, causality (a prediction never depends on later tokens),
// and the tasks' labels.
#include <doctest/doctest.h>

#include <cmath>
#include <vector>

#include "common/error.h"
#include "grad_check.h"
#include "icl/eval.h"
#include "icl/model.h"
#include "icl/task.h"

namespace icl = bb::icl;
using bb::AttentionFunction;

namespace {

icl::Config tiny(AttentionFunction f, icl::Arch arch, int dims = 1) {
  icl::Config c;
  c.layers = 2, c.heads = 2, c.hidden = 8, c.positions = 16, c.dims = dims;
  c.arch = arch;
  c.attention = f;
  c.init_std = 0.3;  // larger than GPT-2's 0.02 so that every path carries signal
  return c;
}

std::vector<double> to_double(const std::vector<float>& v) { return {v.begin(), v.end()}; }

// GPT-2's init with noise on every parameter: zero biases would make some scores exactly 0 (an
// attention-only layer's output row is 0 when sa-softmax or cosformer gives a row no weight), a
// kink of sa-softmax and of cosformer's ReLU where finite differences cannot agree.
void init_with_noise(bb::icl::Model<double>& m, uint64_t seed) {
  m.init_weights(seed);
  const std::vector<double> noise = bb::test::random_vector(int(m.params.size()), seed, -0.1, 0.1);
  for (size_t i = 0; i < m.params.size(); ++i) m.params[i] += noise[i];
}

}  // namespace

TEST_CASE("ICL model gradients match finite differences (every function, every architecture)") {
  for (icl::Arch arch : {icl::Arch::full, icl::Arch::attention_only,
                         icl::Arch::attention_only_residual}) {
    for (AttentionFunction f : bb::kAllAttentionFunctions) {
      CAPTURE(icl::arch_name(arch));
      CAPTURE(bb::attention_function_name(f));
      const icl::Config cfg = tiny(f, arch, 2);
      icl::Model<double> m(cfg);
      init_with_noise(m, 7);
      const icl::Sequences s = icl::draw_sequences(icl::Task::linear_regression, 2, 3, 2, {}, 11, 0);
      const std::vector<double> z = to_double(s.z), t = to_double(s.targets());
      std::vector<double> params(m.params.begin(), m.params.end());
      auto loss = [&] {
        std::copy(params.begin(), params.end(), m.params.begin());
        return m.forward(z, t, 2, 6, bb::ops::PointLoss::squared_error, true);
      };
      loss();
      m.zero_grads();
      m.backward();
      const std::vector<double> grads(m.grads.begin(), m.grads.end());
      CHECK(bb::test::fd_max_rel_error(params, grads, loss, 1e-6, 1e-6, 2000) < 1e-5);
    }
  }
}

TEST_CASE("ICL model with BCE: gradients match finite differences") {
  const icl::Config cfg = tiny(AttentionFunction::ssa, icl::Arch::full);
  icl::Model<double> m(cfg);
  m.init_weights(3);
  const icl::Sequences s = icl::draw_sequences(icl::Task::every, 3, 4, 1, {}, 5, 1);
  const std::vector<double> z = to_double(s.z), t = to_double(s.targets());
  std::vector<double> params(m.params.begin(), m.params.end());
  auto loss = [&] {
    std::copy(params.begin(), params.end(), m.params.begin());
    return m.forward(z, t, 3, 8, bb::ops::PointLoss::bce_logits, true);
  };
  loss();
  m.zero_grads();
  m.backward();
  const std::vector<double> grads(m.grads.begin(), m.grads.end());
  CHECK(bb::test::fd_max_rel_error(params, grads, loss, 1e-6, 1e-6, 2000) < 1e-5);
}

TEST_CASE("ICL predictions are causal: changing a later token changes no earlier prediction") {
  for (AttentionFunction f : bb::kAllAttentionFunctions) {
    CAPTURE(bb::attention_function_name(f));
    icl::Model<double> m(tiny(f, icl::Arch::attention_only_residual));
    m.init_weights(1);
    const icl::Sequences s = icl::draw_sequences(icl::Task::linear, 1, 5, 1, {}, 2, 0);
    std::vector<double> z = to_double(s.z);
    m.forward(z, {}, 1, 10, bb::ops::PointLoss::squared_error, false);
    const std::vector<double> before = m.predictions();
    z[7] += 5.0;  // token 7 = y_4: predictions 0..3 (tokens 0, 2, 4, 6) cannot see it
    m.forward(z, {}, 1, 10, bb::ops::PointLoss::squared_error, false);
    const std::vector<double> after = m.predictions();
    for (int i = 0; i < 4; ++i) CHECK(after[i] == before[i]);
    CHECK(after[4] != before[4]);
  }
}

TEST_CASE("frozen trainable values get no gradient") {
  icl::Config cfg = tiny(AttentionFunction::ssa, icl::Arch::full);
  cfg.head_values[size_t(AttentionFunction::ssa)][1].freeze = true;  // n
  icl::Model<double> m(cfg);
  m.init_weights(2);
  const icl::Sequences s = icl::draw_sequences(icl::Task::every, 2, 3, 1, {}, 5, 0);
  m.forward(to_double(s.z), to_double(s.targets()), 2, 6, bb::ops::PointLoss::bce_logits, true);
  m.zero_grads();
  m.backward();
  const icl::Views<double> g(m.layout(), cfg, m.grads.data());
  for (const auto& layer : g.layers)
    for (int h = 0; h < cfg.heads; ++h) {
      CHECK(layer.raw1[h] == 0.0);
      CHECK(layer.raw0[h] != 0.0);
    }
}

TEST_CASE("task labels: every, some, linear; draws are a function of (key, batch)") {
  const float x[] = {0.5f, 2.f, -1.f, 3.f};
  float y[4];
  icl::label_quantification(icl::Task::every, x, 4, y);
  CHECK(std::vector<float>(y, y + 4) == std::vector<float>{1, 1, -1, -1});
  icl::label_quantification(icl::Task::some, x + 2, 2, y);
  CHECK(std::vector<float>(y, y + 2) == std::vector<float>{-1, 1});
  const icl::Sequences a = icl::draw_sequences(icl::Task::linear, 4, 6, 1, {2.0, 1.0}, 9, 3);
  const icl::Sequences b = icl::draw_sequences(icl::Task::linear, 4, 6, 1, {2.0, 1.0}, 9, 3);
  CHECK(a.z == b.z);
  CHECK(a.z != icl::draw_sequences(icl::Task::linear, 4, 6, 1, {2.0, 1.0}, 9, 4).z);
  // y = a x + c per sequence: three points determine the line
  for (int s = 0; s < 4; ++s) {
    const float* xs = a.x.data() + s * 6;
    const float* ys = a.y.data() + s * 6;
    const double slope = (ys[1] - ys[0]) / (xs[1] - xs[0]);
    CHECK(ys[2] == doctest::Approx(ys[0] + slope * (xs[2] - xs[0])).epsilon(1e-4));
    CHECK(a.z[size_t(s) * 12 + 3] == ys[1]);  // token 3 is y_2
  }
  // mixed: whole batches of every or of some
  int every = 0;
  for (uint64_t batch = 0; batch < 40; ++batch)
    every += icl::draw_sequences(icl::Task::mixed, 2, 3, 1, {}, 1, batch).drawn == icl::Task::every;
  CHECK(every > 5);
  CHECK(every < 35);
}

TEST_CASE("the authors' draws: x_ij from manual_seed(100 i + 10 j), overlapping sequences") {
  icl::EvalGrid g;
  g.task = icl::Task::every;
  g.sequences = 3;
  g.authors_draws = true;
  const icl::Sequences s = icl::cell_sequences(g, 0, 12, 2.0, 1.0);
  CHECK(s.B == 3);
  // torch.manual_seed(0); torch.randn(1) = 1.5409960746765137 (tests/fixtures/torch_randn.json)
  CHECK(s.x[0] == 2.0f * 1.5409960746765137f);
  CHECK(s.x[10] == s.x[12 + 0]);  // (i 0, j 10) and (i 1, j 0) share seed 100
  CHECK(s.x[12 + 11] == s.x[24 + 1]);
  g.task = icl::Task::linear;
  const icl::Sequences lin = icl::cell_sequences(g, 0, 9, 1.0, 3.0);
  CHECK(lin.B == 300);  // 100 functions x 3 sequences
  CHECK(lin.x[0] == lin.x[3 * 9]);  // every function sees the same sequences
  g.task = icl::Task::linear_regression;
  CHECK_THROWS_WITH_AS(icl::cell_sequences(g, 0, 9, 1.0, 3.0),
                       "--authors-draws: the authors' protocols cover every, some and linear, not "
                       "linear-regression",
                       bb::Error);
}
