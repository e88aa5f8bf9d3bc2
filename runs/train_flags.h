// train's flags as one table: a row per flag with its member of TrainArgs, help, check, role and
// recipe value. The CLI options (train's and experiment's), apply_recipe, run.json's settings,
// the resume check's list of flags that may change, and the command line a child run is given
// (to_args) all come from it: a flag is declared once, here.
#pragma once
#include <CLI/CLI.hpp>
#include <nlohmann/json.hpp>

#include <cstdint>
#include <set>
#include <string>
#include <vector>

#include "corpora/mlm_batches.h"
#include "encoder/config.h"
#include "encoder/optimizer.h"
#include "encoder/recipe.h"
#include "training/flag_table.h"

namespace bb {

struct TrainArgs {
  std::string kind = "roberta";       // --kind: roberta (masked LM) or gpt2 (causal LM)
  std::string packing = "utterance";  // --packing (gpt2): utterance or packed
  std::string corpus, out, tokenizer, preset = "babyberta",
              attention = attention_function_name(AttentionFunction::softmax);
  std::string recipe = "babyberta";  // encoder/recipe.h; fills the flags not given
  double layer_norm_eps = 0;         // 0: the preset's (a recipe may set it)
  int64_t steps = 10000;
  uint64_t seed = 0;
  int threads = 1;
  std::string device = "cpu";
  std::string precision = "fp32";  // --precision: fp32 or bf16 (backend/precision.h)
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
  bool quiet = false;           // not a flag: experiment's in-process runs, MPI's other ranks
};

// --kind's model kind (roberta or gpt2; else a one-line error).
ModelKind text_kind(const TrainArgs& a);

// A row of train's table (training/flag_table.h); a --recipe sets the rows with from_recipe.
using TrainFlag = FlagRow<TrainArgs, Recipe>;

// Every train flag, the attention functions' trainable values' flags included (from their table).
const std::vector<TrainFlag>& train_flags();

// Adds the table's options to `cmd` (all but those in `skip`: a grid sets them per run).
void add_train_options(CLI::App* cmd, TrainArgs& a, const std::set<std::string>& skip = {});
// After parsing: --recipe's value for every flag not given on the command line of `cmd`; then
// the schedule, and an extendable schedule's warmup fixed from --steps. Before: a flag that
// applies to none of `kinds` (empty: a.kind; experiment: its --kinds) and a preset of another
// kind are usage errors.
void apply_recipe(TrainArgs& a, const CLI::App& cmd, const std::vector<std::string>& kinds = {});
// The arguments of `train ARGS...` (args[0] == "train") as the command parses them, recipe applied.
TrainArgs parse_train_args(const std::vector<std::string>& args);
// `a` as a train command line (args[0] == "train") that parses back to `a`: every flag that a
// recipe sets or that differs from its default.
std::vector<std::string> to_args(const TrainArgs& a);
// Every math flag of `a` (as run.json records it), plus "--corpus (sha256)" and "--tokenizer
// (sha256)" (the content fingerprints of the corpus and of the tokenizer the run uses).
nlohmann::ordered_json train_settings(const TrainArgs& a, const std::string& corpus_sha256,
                                      const std::string& tokenizer_sha256);
// "--threads, --device, ...": the flags that may change on resume.
std::string resumable_flags();

}  // namespace bb
