// babyberta baseline: its options, and the result's table on stdout; runs/baseline_run.h counts
// and scores.
#include <memory>

#include "baselines/ngram.h"
#include "cli/commands.h"
#include "cli/out_option.h"
#include "common/flag_names.h"
#include "runs/baseline_run.h"
#include "training/flag_ranges.h"

namespace bb::cli {

void add_baseline(CLI::App& app) {
  auto* cmd = app.add_subcommand(
      "baseline", "Score a suite with an n-gram model (interpolated Kneser-Ney, discount 0.75, "
                  "or Jelinek-Mercer) counted on the training part of a corpus");
  auto a = std::make_shared<BaselineArgs>();
  cmd->add_option(flag_name::corpus, a->corpus, "Training corpus, one utterance per line (read, "
                  "filtered and split as train does)")->required();
  cmd->add_option("--order", a->order, "1 unigram, 2 bigram, 3 trigram")
      ->check(count_in(1, NgramModel::kMaxOrder))
      ->capture_default_str();
  cmd->add_option("--smoothing", a->smoothing, "kn: interpolated Kneser-Ney, discount 0.75 at "
                  "every order; jm: Jelinek-Mercer linear interpolation, weight 0.6 at every order")
      ->check(one_of("smoothing", {"kn", "jm"}))
      ->capture_default_str();
  cmd->add_option("--unit", a->unit, "word (normalised whitespace-separated words) or piece "
                  "(the --tokenizer's pieces)")
      ->check(one_of("unit", {"word", "piece"}))
      ->capture_default_str();
  cmd->add_option(flag_name::tokenizer, a->tokenizer,
                  "Tokenizer or model directory: the pieces (--unit piece, required) and, for "
                  "either unit, train's max-length filter and normalisation");
  cmd->add_option("--suite", a->suites,
                  "Suite directory or file (.txt Zorro, .jsonl BLiMP, .tsv or .csv pairs); repeat "
                  "for several")
      ->required();
  add_out_option(cmd, a->out, "Results JSON (a .pairs.jsonl is written next to it)")
      ->required();
  cmd->add_option(flag_name::dev_seed, a->dev_seed, "train's --dev-seed: which utterances are the "
                  "held-out dev set")
      ->check(count_in(0, kMaxSeed))
      ->capture_default_str();
  cmd->add_option(flag_name::dev_fraction, a->dev_fraction, "train's --dev-fraction (left out of the "
                  "counts)")
      ->check(in_range(0, 0.5))
      ->capture_default_str();
  cmd->add_option("--tie-rule", a->tie_rule, "A tie counts as: half or wrong")
      ->check(CLI::IsMember({"half", "wrong"}))
      ->capture_default_str();
  cmd->add_flag(flag_name::strict, a->strict, "Invalid UTF-8 in the corpus is an error");
  cmd->add_option(flag_name::threads, a->threads, "Threads (normalising and tokenising the corpus)")
      ->transform(thread_count())
      ->capture_default_str();
  cmd->callback([a] { print_probe_table(run_baseline(*a)); });
}

}  // namespace bb::cli
