// experiment's grid: per (attention variant, seed) the training job (unless finished) and the
// probe jobs (unless their results are current), after reconciling what exists with the settings.
#pragma once
#include <nlohmann/json.hpp>

#include <cstdint>
#include <filesystem>
#include <string>
#include <utility>
#include <vector>

#include "runs/attention_variant.h"
#include "runs/child_jobs.h"
#include "runs/experiment.h"
#include "tokenizer/tokenizer.h"

namespace bb {

struct Grid {
  std::vector<Job> train, probe;
  std::vector<int> probe_after;      // [probe job] the train job it needs (-1: trained before)
  std::vector<std::filesystem::path> train_logs;  // [train job] its log ("N/M steps" lines)
  std::vector<int64_t> train_start;  // [train job] the step it starts (resumes) from
  std::vector<std::uintmax_t> train_log_from;  // [train job] its log's size before this job
  int64_t steps_before = 0;          // steps already trained when this invocation started
  size_t runs = 0;                   // (attention, seed) runs in the grid
  std::vector<std::filesystem::path> results;
  std::vector<std::pair<std::filesystem::path, nlohmann::ordered_json>> new_results;  // to write once probed
};

// The tokenizer shared by every run: trained once; a tokenizer of another size is stale.
Tokenizer experiment_tokenizer(const ExperimentArgs& a, int threads);
// One run (kind, attention, seed): train it unless finished, probe it unless its result is current.
void add_run(const ExperimentArgs& a, const std::string& kind, const AttentionVariant& att, int seed,
             const std::string& corpus_sha, const Tokenizer& tok, Grid& g);
// The grid's training progress: runs finished, steps done of the total, and the rate and ETA of
// this invocation's steps.
JobsStatus training_status(const Grid& g, size_t runs, int64_t steps_per_run);

}  // namespace bb
