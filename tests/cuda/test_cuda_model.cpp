// The model on CUDA against the model on the CPU, for both text kinds (roberta; gpt2, the causal
// LM): one training step of `tiny` (loss, every gradient, the AdamW update) and a CUDA-trained
// checkpoint scored on the CPU and on CUDA.
// Without a CUDA device every case reports "skipped: no CUDA device".
#include <doctest/doctest.h>

#include <algorithm>
#include <cmath>
#include <vector>

#include "corpora/next_token_rows.h"
#include "corpora/synthetic.h"
#include "encoder/config_keys.h"
#include "cuda/cuda_test.h"
#include "encoder/checkpoint.h"
#include "encoder/trainer.h"
#include "probing/scorer.h"
#include "temp_dir.h"
#include "toy_corpus.h"

using namespace bb;

using test::rel_err;

namespace {
constexpr ModelKind kTextKinds[] = {ModelKind::roberta, ModelKind::gpt2};

Config tiny_config(AttentionFunction scoring, ModelKind kind = ModelKind::roberta) {
  Config c = preset("tiny", kind);
  c.vocab_size = 512;
  c.attention = scoring;
  return c;
}
}  // namespace

TEST_CASE("one training step of tiny on CUDA equals the CPU's (both kinds, all seven functions, "
          "dropout on)") {
  SKIP_WITHOUT_CUDA_DEVICE();
  for (ModelKind kind : kTextKinds)
  for (AttentionFunction scoring : kAllAttentionFunctions) {
    CAPTURE(int(kind));
    CAPTURE(int(scoring));
    const Config c = tiny_config(scoring, kind);
    Batch batch;
    synthetic_batch(3, 0, 16, {.vocab_size = c.vocab_size}, c.max_tokens(), batch);
    if (config_keys(kind).next_token_loss) set_next_token_rows(batch);  // gpt2: every next token
    const Capacity cap{16, batch.num_tokens(), c.max_tokens(), batch.num_rows()};
    Model<float> cpu(c, cap), gpu(c, cap, Device::cuda);
    cpu.init_weights(5);
    gpu.init_weights(5);
    cpu.zero_grads();
    gpu.zero_grads();
    const StepContext ctx{true, 9, 4};
    const float loss_cpu = cpu.forward(batch, ctx), loss_gpu = gpu.forward(batch, ctx);
    CHECK(loss_gpu == doctest::Approx(loss_cpu).epsilon(1e-5));
    cpu.backward();
    gpu.backward();
    gpu.download();
    // The key bias's exact gradient is 0 for the shift-invariant functions (softmax, softmax-t,
    // sparsemax, entmax15: a row's scores all move by q.b_k), so both devices return rounding
    // noise there; every tensor is judged against at least 1% of the largest gradient anywhere.
    double largest = 0;
    for (float g : cpu.grads) largest = std::max(largest, double(std::abs(g)));
    for (const ParamTensor& t : cpu.layout().tensors) {
      CAPTURE(t.name);
      CHECK(rel_err(gpu.grads.data() + t.offset, cpu.grads.data() + t.offset, t.size,
                    1e-2 * largest) <= 1e-4);
    }
    // One AdamW update each: parameters agree to within the update size where a gradient near 0
    // may take the other sign (|update| <= lr at step 1).
    OptimConfig o;
    o.lr = 1e-3, o.warmup_steps = 0, o.total_steps = 10;
    AdamW opt_cpu(cpu.layout(), c, o), opt_gpu(gpu.layout(), c, o, Device::cuda);
    const double norm_cpu = opt_cpu.update(cpu.param_data(), cpu.grad_data());
    const double norm_gpu = opt_gpu.update(gpu.param_data(), gpu.grad_data());
    CHECK(norm_gpu == doctest::Approx(norm_cpu).epsilon(1e-5));
    gpu.download();
    double worst = 0;
    for (size_t i = 0; i < cpu.params.size(); ++i)
      worst = bb::test::worse(worst, std::abs(double(gpu.params[i]) - double(cpu.params[i])));
    CHECK(worst <= 2 * o.lr);
  }
}

TEST_CASE("training with CUDA graphs follows the CPU step for step (both kinds, all seven "
          "functions)") {
  // Batches padded to fixed shapes, each shape run eagerly once, then captured and replayed:
  // every logged loss and gradient norm must be the CPU's.
  SKIP_WITHOUT_CUDA_DEVICE();
  for (ModelKind kind : kTextKinds)
  for (AttentionFunction scoring : kAllAttentionFunctions) {
    CAPTURE(int(kind));
    CAPTURE(int(scoring));
    const Config c = tiny_config(scoring, kind);
    TrainOptions o;
    o.steps = 24, o.seed = 3;
    o.optim.lr = 1e-3, o.optim.warmup_steps = 4;
    const MaskingOptions masking{.vocab_size = c.vocab_size};
    const bool causal = config_keys(kind).next_token_loss;
    auto source = [&](uint64_t seed, int64_t step, Batch& b) {
      synthetic_batch(seed, step % 3, 16, masking, 24, b);  // three shapes, each seen 8 times
      if (causal) set_next_token_rows(b);
    };
    const Capacity cap{16, 16 * 24, 24, 16 * 24};
    std::vector<StepLog> on_cpu, on_gpu;
    Trainer cpu(c, cap, o, source);
    cpu.run([&](const StepLog& l) { on_cpu.push_back(l); });
    o.device = Device::cuda;
    Trainer gpu(c, cap, o, source);
    gpu.run([&](const StepLog& l) { on_gpu.push_back(l); });
    CHECK(gpu.captured_graphs() >= 1);
    REQUIRE(on_gpu.size() == on_cpu.size());
    for (size_t i = 0; i < on_cpu.size(); ++i) {
      CAPTURE(i);
      CHECK(on_gpu[i].tokens == on_cpu[i].tokens);
      CHECK(on_gpu[i].loss == doctest::Approx(on_cpu[i].loss).epsilon(1e-4));
      CHECK(on_gpu[i].grad_norm == doctest::Approx(on_cpu[i].grad_norm).epsilon(1e-3));
    }
  }
}

TEST_CASE("a CUDA-trained checkpoint scores the same on the CPU and on CUDA (both kinds)") {
  SKIP_WITHOUT_CUDA_DEVICE();
  for (ModelKind kind : kTextKinds) {
    CAPTURE(int(kind));
    test::TempDir dir("cuda_ckpt");
    Tokenizer::train(test::toy_sentences(300), {.vocab_size = 400}, dir.path);
    const Tokenizer tok = Tokenizer::load(dir.path);
    Config c = preset("tiny", kind);
    c.vocab_size = tok.vocab_size();
    c.attention = AttentionFunction::ssa;
    c.tokenizer = tok.settings();
    TrainOptions opts;
    opts.steps = 30;
    opts.out = dir.path;
    opts.device = Device::cuda;
    opts.optim.lr = 1e-3;
    const MaskingOptions masking{.vocab_size = c.vocab_size};
    const bool causal = config_keys(kind).next_token_loss;
    Trainer trainer(c, {16, 16 * c.max_tokens(), c.max_tokens(), 16 * c.max_tokens()}, opts,
                    [&](uint64_t seed, int64_t step, Batch& b) {
                      synthetic_batch(seed, step, 16, masking, 24, b);
                      if (causal) set_next_token_rows(b);
                    });
    trainer.run({});
    std::filesystem::remove(dir.path / "tokenizer.json");
    const auto sents = test::toy_sentences(20, 7);
    const std::vector<Method> methods =
        causal ? std::vector<Method>{Method::causal} : std::vector<Method>{Method::holistic, Method::pll};
    for (Method m : methods) {
      Scorer on_cpu(dir.path, 256), on_gpu(dir.path, 256, Device::cuda);
      const auto a = on_cpu.score(sents, m), b = on_gpu.score(sents, m);
      for (size_t s = 0; s < sents.size(); ++s)
        CHECK(b[s].score == doctest::Approx(a[s].score).epsilon(1e-4));
    }
  }
}
