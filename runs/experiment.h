// babyberta experiment: trains every (kind, attention, seed), probes each, and compares. Resumable:
// finished runs and probes are skipped, interrupted runs resume. Every run directory and probe
// result carries the settings that made it (run.json, results/NAME.settings.json); a rerun with
// other settings is refused, naming each one that differs, unless --force redoes those runs.
// With --jobs J, J runs go at a time, each a child process with --threads T threads. Under mpirun
// or srun the ranks share the grid instead (runs/rank_jobs.h), one run at a time per rank.
#pragma once
#include <optional>
#include <set>
#include <string>
#include <vector>

#include "probing/compare.h"
#include "runs/train_flags.h"

namespace bb {

struct ExperimentArgs {
  std::string suite, out, attention = "softmax,ssa", method = "holistic";
  // --kinds: the model kinds, a grid axis (roberta runs are named FUNCTION-seedK as before, gpt2
  // runs gpt2-FUNCTION-seedK); --method's methods of each kind score its runs, a kind none of them
  // scores gets its own default (gpt2: causal).
  std::string kinds = "roberta";
  int seeds = 3, first_seed = 1, jobs = 0, pairs_per_paradigm = 0;
  bool force = false;
  std::string baselines;  // n-gram orders ("1,3"): word references counted on the corpus
  TrainArgs train;        // every train flag, for every run (each run sets those in kGridFlags)
  int64_t target() const { return train.extend_to > 0 ? train.extend_to : train.steps; }
};


// The label a kind's runs of an attention function's variant have in results and reports:
// roberta the variant's label ("ssa"), gpt2 "gpt2 " and the label ("gpt2 ssa").
std::string kind_label(const std::string& kind, const std::string& variant_label);

// The scoring methods of --method (a comma list) that score `kind`'s models; none: its default.
std::vector<std::string> methods_for_kind(const std::string& methods, const std::string& kind);

// train's flags that the grid sets per run, so experiment does not take them.
const std::set<std::string>& experiment_grid_flags();

// Trains, probes and compares the grid in a.out (report/); returns the comparison (nullopt on
// an MPI rank other than 0, which serves rank 0's jobs).
std::optional<Comparison> run_experiment(ExperimentArgs a);

}  // namespace bb
