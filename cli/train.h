// babyberta train: tokenizer (trained if the output has none), corpus, batches, model, loop.
// Shared with `experiment`, which runs it per (attention, seed).
#pragma once
#include <CLI/CLI.hpp>

#include <string>

#include "corpora/corpus.h"
#include "corpora/mlm_batches.h"
#include "encoder/config.h"
#include "encoder/trainer.h"

namespace bb::cli {

struct TrainArgs {
  std::string corpus, out, tokenizer, preset = "babyberta", attention = "softmax";
  int64_t steps = 10000;
  uint64_t seed = 0;
  int threads = 1;
  std::string device = "cpu";
  bool cuda_graphs = true;
  bool resume = false;
  int vocab_size = 8192;
  std::string tokenizer_type = "bpe";
  bool keep_case = false, strict = false, hf_masking = false;
  BatchingOptions batching;
  OptimConfig optim;
  double dropout = 0.1, dev_fraction = 0.01;
  int64_t eval_every = 1000, dev_batches = 100;
  SsaSettings ssa;
  TemperatureSettings temperature;
  std::string probe_suite;      // with probe_every: learning curves on a suite
  int64_t probe_every = 0;
  bool quiet = false;
};

void add_train_options(CLI::App* cmd, TrainArgs& a);
void run_train(TrainArgs a);

}  // namespace bb::cli
