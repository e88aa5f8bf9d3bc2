// An interpolated Kneser–Ney (or Jelinek–Mercer) n-gram model (baselines/ngram.h) counted on the
// training part of a corpus, read, filtered and split as `train` does, then scored on minimal-pair
// suites and written as a probe result (F.json + F.pairs.jsonl), so that `compare` can set it
// beside the trained models.
#pragma once
#include <cstdint>
#include <string>
#include <vector>

#include "probing/results.h"
#include "runs/train_flags.h"

namespace bb {

struct BaselineArgs {
  std::string corpus, out, unit = "word", tokenizer, tie_rule = "half";
  std::string smoothing = "kn";  // kn (Kneser–Ney, D 0.75) or jm (Jelinek–Mercer, λ 0.6)
  std::vector<std::string> suites;
  int order = 3;
  // The dev split's settings, train's defaults: the utterances a default `train` run holds out
  // for its dev loss are left out of the counts here too.
  uint64_t dev_seed = TrainArgs{}.dev_seed;
  double dev_fraction = TrainArgs{}.dev_fraction;
  int threads = 1;
  bool strict = false;
};

// Counts, scores the suites, writes the result (F.json + F.pairs.jsonl) and returns its summary.
ProbeSummary run_baseline(const BaselineArgs& a);

}  // namespace bb
