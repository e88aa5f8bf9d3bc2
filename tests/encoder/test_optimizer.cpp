// AdamW against a hand computation, clipping, frozen values, and the learning-rate schedule.
#include <doctest/doctest.h>

#include <cmath>

#include "encoder/optimizer.h"
#include "model_fixtures.h"

using namespace bb;

TEST_CASE("learning-rate schedule: linear warmup then linear decay to zero (HF)") {
  OptimConfig o;
  o.lr = 1e-4, o.total_steps = 100, o.warmup_steps = 10;
  CHECK(lr_at(o, 0) == 0.0);
  CHECK(lr_at(o, 5) == doctest::Approx(5e-5));
  CHECK(lr_at(o, 10) == doctest::Approx(1e-4));
  CHECK(lr_at(o, 55) == doctest::Approx(5e-5));
  CHECK(lr_at(o, 100) == 0.0);
  CHECK(lr_at(o, 150) == 0.0);
  o.warmup_steps = -1;
  CHECK(effective_warmup(o) == 10);
  o.total_steps = 400000;
  CHECK(effective_warmup(o) == 24000);
}

TEST_CASE("learning-rate schedules: constant, and warmup-stable-decay (wsd)") {
  OptimConfig o;
  o.lr = 1e-4, o.total_steps = 100, o.warmup_steps = 10, o.schedule = Schedule::constant;
  CHECK(lr_at(o, 5) == doctest::Approx(5e-5));
  CHECK(lr_at(o, 10) == 1e-4);
  CHECK(lr_at(o, 99) == 1e-4);
  CHECK(decay_start(o) == 100);
  o.schedule = Schedule::wsd, o.decay_steps = 20;
  CHECK(decay_start(o) == 80);
  CHECK(lr_at(o, 79) == 1e-4);
  CHECK(lr_at(o, 80) == 1e-4);  // (100 - 80) / 20
  CHECK(lr_at(o, 90) == doctest::Approx(5e-5));
  CHECK(lr_at(o, 100) == 0.0);
  // Before its decay a wsd schedule does not depend on the total: what makes it extendable.
  OptimConfig longer = o;
  longer.total_steps = 1000;
  for (int64_t step = 0; step < decay_start(o); ++step) CHECK(lr_at(longer, step) == lr_at(o, step));
  // A decay longer than the steps after the warmup starts at the warmup's end (no step above lr).
  o.decay_steps = 500;
  CHECK(decay_start(o) == 10);
  CHECK(lr_at(o, 10) == 1e-4);
  o.schedule = Schedule::linear;
  CHECK(decay_start(o) == 10);
  CHECK(parse_schedule("wsd") == Schedule::wsd);
  CHECK(schedule_name(Schedule::constant) == "constant");
  CHECK_THROWS_WITH(parse_schedule("cosine"),
                    doctest::Contains("unknown schedule 'cosine' (expected linear, constant or wsd)"));
}

namespace {
struct AdamCase {
  Config c = test::micro_config(AttentionFunction::ssa);
  ParamLayout layout{c};
  Buffer<float> p, g;
  AdamCase() : p(layout.total, 0.5f), g(layout.total, 0.f) {}
};
}  // namespace

TEST_CASE("AdamW matches PyTorch's formula, with and without bias correction") {
  for (bool bc : {true, false}) {
    AdamCase t;
    OptimConfig o;
    o.lr = 1e-2, o.warmup_steps = 0, o.total_steps = 1000000, o.clip_norm = 0;
    o.weight_decay = 0.1, o.bias_correction = bc;
    AdamW opt(t.layout, t.c, o);
    const int64_t i = t.layout.at("lm_head.dense.weight").offset;  // decayed
    const int64_t j = t.layout.at("lm_head.dense.bias").offset;    // not decayed
    double p = 0.5, m = 0, v = 0, pb = 0.5, mb = 0, vb = 0;
    for (int step = 1; step <= 3; ++step) {
      const float gi = 0.3f * step;
      t.g[i] = gi;
      t.g[j] = gi;
      opt.update(t.p.data(), t.g.data());
      const double lr = lr_at(o, step - 1);
      const double bc1 = bc ? 1 - std::pow(0.9, step) : 1, bc2 = bc ? 1 - std::pow(0.999, step) : 1;
      p *= 1 - lr * 0.1;
      m = 0.9 * m + 0.1 * gi, v = 0.999 * v + 0.001 * gi * gi;
      p -= lr / bc1 * m / (std::sqrt(v) / std::sqrt(bc2) + 1e-6);
      mb = 0.9 * mb + 0.1 * gi, vb = 0.999 * vb + 0.001 * gi * gi;
      pb -= lr / bc1 * mb / (std::sqrt(vb) / std::sqrt(bc2) + 1e-6);
      CHECK(t.p[i] == doctest::Approx(p).epsilon(1e-6));
      CHECK(t.p[j] == doctest::Approx(pb).epsilon(1e-6));
    }
  }
}

TEST_CASE("global grad-norm clipping scales every gradient by max_norm / norm") {
  AdamCase t;
  OptimConfig o;
  o.lr = 1e-3, o.warmup_steps = 0, o.total_steps = 100, o.clip_norm = 1.0;
  AdamW opt(t.layout, t.c, o);
  t.g[0] = 3.f, t.g[1] = 4.f;  // norm 5
  CHECK(opt.update(t.p.data(), t.g.data()) == doctest::Approx(5.0));
  CHECK(opt.m.host()[0] == doctest::Approx(0.1 * 3.0 / 5.0).epsilon(1e-5));
  CHECK(opt.m.host()[1] == doctest::Approx(0.1 * 4.0 / 5.0).epsilon(1e-5));
}

TEST_CASE("frozen SSA values never move; ssa_lr_mult scales b and n updates") {
  AdamCase t;
  t.c.head_value(AttentionFunction::ssa, 1).freeze = true;
  OptimConfig o;
  o.lr = 1e-2, o.warmup_steps = 0, o.total_steps = 100, o.clip_norm = 0, o.ssa_lr_mult = 2.0;
  AdamW opt(t.layout, t.c, o);
  std::fill(t.g.begin(), t.g.end(), 0.1f);
  opt.update(t.p.data(), t.g.data());
  const int64_t nu = t.layout.at("roberta.encoder.layer.1.attention.self.ssa_nu").offset;
  const int64_t beta = t.layout.at("roberta.encoder.layer.1.attention.self.ssa_beta").offset;
  const int64_t bias = t.layout.at("lm_head.bias").offset;
  CHECK(t.p[nu] == 0.5f);
  CHECK(0.5 - t.p[beta] == doctest::Approx(2 * (0.5 - t.p[bias])).epsilon(1e-4));
}
