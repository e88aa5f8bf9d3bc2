// babyberta train: tokenizer (trained if the output has none), corpus, batches, model, loop.
// Shared with `experiment`, which runs it per (attention, seed).
#pragma once
#include <CLI/CLI.hpp>

#include <string>
#include <vector>

#include "corpora/corpus.h"
#include "corpora/mlm_batches.h"
#include "encoder/config.h"
#include "encoder/trainer.h"

namespace bb::cli {

struct TrainArgs {
  std::string corpus, out, tokenizer, preset = "babyberta",
              attention = attention_function_name(AttentionFunction::softmax);
  std::string recipe = "babyberta";  // encoder/recipe.h; fills the flags not given
  double layer_norm_eps = 0;         // 0: the preset's (a recipe may set it)
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
  std::string schedule = "linear";  // --schedule; apply_recipe sets optim.schedule from it
  int64_t extend_to = 0;            // --extend-to N (> --steps): the run continued to N steps
  int64_t keep_checkpoints = 3;     // --keep-checkpoints: the most recent K (0: `all`)
  double dropout = 0.1, dev_fraction = 0.01;
  int64_t eval_every = 1000, dev_batches = 100;
  // The dev split: utterances drawn by a hash of (dev_seed, index), the same for every training
  // seed so that dev losses compare across seeds. Runs made before --dev-seed drew it from the
  // training seed: their run.json has no "--dev-seed" and they keep that (dev_from_seed).
  uint64_t dev_seed = 0;
  bool dev_from_seed = false;
  bool no_dev = false;  // no dev set: every utterance trains, no dev loss
  HeadValueSettings head_values = default_head_value_settings();  // the table's init/freeze flags
  std::string probe_suite;      // with probe_every: learning curves on a suite
  int64_t probe_every = 0;
  int probe_pairs = 0;          // pairs per paradigm of those probes (0: all)
  bool quiet = false;
};

void add_train_options(CLI::App* cmd, TrainArgs& a);
// After parsing: --recipe's value for every flag not given on the command line of `cmd`.
void apply_recipe(TrainArgs& a, const CLI::App& cmd);
// The arguments of `train ARGS...` (args[0] == "train") as the command parses them, recipe applied.
TrainArgs parse_train_args(const std::vector<std::string>& args);
// `a` as the run whose run.json recorded `saved` was made: a run from before --dev-seed keeps its
// dev split drawn from the training seed (unless --dev-seed was given, which then differs).
void keep_recorded_dev_split(TrainArgs& a, const nlohmann::ordered_json& saved);
// Trains one model; `parallel` spreads every batch over data-parallel ranks (mpirun, see
// mpi_data_parallel), rank 0 writing the run directory.
void run_train(TrainArgs a, const DataParallel& parallel = {});
// This MPI job's ranks as data-parallel trainers (one rank, i.e. none, without mpirun/srun).
DataParallel mpi_data_parallel();

}  // namespace bb::cli
