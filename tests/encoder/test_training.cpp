// Training: tiny overfits one batch (softmax and SSA); same seed and threads give bit-identical
// weights; a resumed run equals an uninterrupted one bit for bit; a stop request checkpoints.
#include <doctest/doctest.h>

#include <algorithm>
#include <cmath>

#include "common/error.h"
#include "corpora/synthetic.h"
#include "encoder/trainer.h"
#include "model_fixtures.h"
#include "temp_dir.h"
#include "test_util.h"

using namespace bb;

namespace {

Config tiny_config(AttentionFunction s, int vocab) {
  Config c = preset("tiny");
  c.vocab_size = vocab;
  c.attention = s;
  return c;
}

BatchSource synthetic_source(int vocab, int batch_size) {
  return [vocab, batch_size](uint64_t seed, int64_t step, Batch& out) {
    synthetic_batch(seed, step, batch_size, MaskingOptions{.vocab_size = vocab}, 24, out);
  };
}

const Capacity kCap{4, 4 * 24, 24, 4 * 24};

}  // namespace

TEST_CASE("tiny drives the loss on one fixed batch to near zero (softmax and SSA)") {
  for (AttentionFunction s : {AttentionFunction::softmax, AttentionFunction::ssa}) {
    CAPTURE(attention_function_name(s));
    Config c = tiny_config(s, 512);
    c.hidden_dropout = c.attention_dropout = 0;  // memorising needs no regulariser
    Batch fixed;
    synthetic_batch(1, 0, 8, MaskingOptions{.vocab_size = 512}, 24, fixed);
    TrainOptions o;
    o.steps = 300, o.seed = 2;
    o.optim.lr = 2e-3, o.optim.warmup_steps = 10;
    Trainer t(c, {8, fixed.num_tokens(), 24, fixed.num_rows()}, o,
              [&](uint64_t, int64_t, Batch& out) { out = fixed; });
    double first = 0, last = 0;
    t.run([&](const StepLog& l) {
      if (l.step == 1) first = l.loss;
      last = l.loss;
    });
    CHECK(first > 5.0);  // about log(512) at the start
    CHECK(last < 0.05);
  }
}

TEST_CASE("a batch padded to a fixed shape gives the original loss and gradients (dropout on)") {
  // pad_to_shape is what a captured CUDA step trains on: it must change nothing.
  for (AttentionFunction s : {AttentionFunction::softmax, AttentionFunction::ssa}) {
    CAPTURE(attention_function_name(s));
    const Config c = tiny_config(s, 512);
    Batch plain;
    synthetic_batch(3, 0, 4, MaskingOptions{.vocab_size = 512}, 24, plain);
    Batch padded = plain;
    pad_to_shape(padded, c.pad_id, 16, 8);
    CHECK(padded.num_seqs() == plain.num_seqs() + 1);
    CHECK(padded.num_tokens() % 16 == 0);
    CHECK(padded.num_rows() % 8 == 0);
    CHECK(padded.num_rows() > plain.num_rows());  // the test must exercise ignored rows
    const Capacity cap = padded_capacity(kCap, 16, 8);
    Model<float> a(c, cap), b(c, cap);
    a.init_weights(5);
    b.init_weights(5);
    a.zero_grads();
    b.zero_grads();
    const StepContext ctx{true, 9, 3};
    const float la = a.forward(plain, ctx), lb = b.forward(padded, ctx);
    CHECK(la == doctest::Approx(lb).epsilon(1e-6));
    a.backward();
    b.backward();
    double scale = 0, diff = 0;
    for (size_t i = 0; i < a.grads.size(); ++i) {
      scale = std::max(scale, double(std::abs(a.grads[i])));
      diff = bb::test::worse(diff, double(std::abs(a.grads[i] - b.grads[i])));
    }
    CHECK(scale > 0);
    CHECK(diff <= 1e-5 * scale);
  }
}

TEST_CASE("same seed and thread count give bit-identical weights (dropout on)") {
  for (AttentionFunction s : {AttentionFunction::softmax, AttentionFunction::ssa}) {
    TrainOptions o;
    o.steps = 6, o.seed = 9;
    Trainer a(tiny_config(s, 300), kCap, o, synthetic_source(300, 4));
    Trainer b(tiny_config(s, 300), kCap, o, synthetic_source(300, 4));
    a.run();
    b.run();
    CHECK(a.model().params == b.model().params);
    o.seed = 10;
    Trainer c(tiny_config(s, 300), kCap, o, synthetic_source(300, 4));
    c.run();
    CHECK(c.model().params != a.model().params);
  }
}

TEST_CASE("resume from a checkpoint continues bit-for-bit (all seven functions)") {
  for (AttentionFunction s : kAllAttentionFunctions) {
    CAPTURE(attention_function_name(s));
    test::TempDir dir("resume");
    TrainOptions o;
    o.steps = 8, o.seed = 4;
    Trainer full(tiny_config(s, 300), kCap, o, synthetic_source(300, 4));
    full.run();

    o.out = dir.path;
    o.checkpoint_every = 3;
    {
      Trainer first(tiny_config(s, 300), kCap, o, synthetic_source(300, 4));
      first.run_steps(4, {});  // checkpoint at 3; step 4 is lost as in a crash
    }
    o.resume = true;
    Trainer second(tiny_config(s, 300), kCap, o, synthetic_source(300, 4));
    CHECK(second.step() == 3);
    second.run();
    CHECK(second.step() == 8);
    CHECK(second.model().params == full.model().params);
    CHECK(second.optimizer().m.host() == full.optimizer().m.host());
  }
}

TEST_CASE("a stop request saves a checkpoint and returns") {
  test::TempDir dir("stop");
  TrainOptions o;
  o.steps = 50, o.seed = 1, o.out = dir.path;
  Trainer t(tiny_config(AttentionFunction::ssa, 300), kCap, o, synthetic_source(300, 4));
  Trainer::stop_requested = false;
  t.run([](const StepLog& l) {
    if (l.step == 2) Trainer::stop_requested = true;
  });
  Trainer::stop_requested = false;
  CHECK(t.step() == 2);
  const auto last = latest_checkpoint(dir.path);
  REQUIRE(last);
  CHECK(last->filename() == "step-2");
}

TEST_CASE("a resumed run's clock goes on from its checkpoint, a stop's between evaluations too") {
  test::TempDir dir("clock");
  TrainOptions o;
  o.steps = 50, o.seed = 1, o.out = dir.path, o.checkpoint_every = 1000;  // no periodic checkpoint
  double at_stop = 0;
  {
    Trainer t(tiny_config(AttentionFunction::softmax, 300), kCap, o, synthetic_source(300, 4));
    CHECK(t.elapsed() == 0);  // the clock starts at the first step, not at construction
    Trainer::stop_requested = false;
    t.run([](const StepLog& l) {
      if (l.step == 3) Trainer::stop_requested = true;
    });
    Trainer::stop_requested = false;
    const auto last = latest_checkpoint(dir.path);
    REQUIRE(last);
    const TrainerState saved = read_trainer_state(*last);
    REQUIRE(saved.data.contains("elapsed_s"));
    at_stop = saved.data["elapsed_s"].get<double>();
    CHECK(at_stop > 0);
    CHECK(at_stop <= t.elapsed());
  }
  o.resume = true;
  Trainer r(tiny_config(AttentionFunction::softmax, 300), kCap, o, synthetic_source(300, 4));
  CHECK(r.step() == 3);
  CHECK(r.elapsed() == at_stop);  // not the 0 of the metrics log, which has no line yet
  r.run_steps(1, {});
  CHECK(r.elapsed() > at_stop);
}

TEST_CASE("resume refuses a different configuration") {
  test::TempDir dir("mismatch");
  TrainOptions o;
  o.steps = 2, o.seed = 1, o.out = dir.path;
  Trainer(tiny_config(AttentionFunction::ssa, 300), kCap, o, synthetic_source(300, 4)).run();
  o.resume = true;
  CHECK_THROWS_WITH_AS(
      Trainer(tiny_config(AttentionFunction::softmax, 300), kCap, o, synthetic_source(300, 4)),
      doctest::Contains("config differs"), Error);
}
