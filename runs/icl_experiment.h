// babyberta icl experiment: trains every (task, architecture, attention function, seed) with
// `icl train`, evaluates each (task, architecture) group with `icl eval`, and compares the
// functions over seeds (icl/experiment_report.h): report.md in --out. Runs are child processes,
// --jobs at a time with --threads each (as `experiment`); resumable (a finished run is skipped by
// its own checkpoint, an interrupted one resumes); a rerun with other settings is refused by each
// run's run.json. Flags it does not know are passed to every `icl train` (--lr, --sigma, ...),
// except an attention function's value flags (--ssa-b-init, --temperature, ...), which go only to
// that function's runs (one that no function of the grid has is refused).
// Under mpirun or srun the ranks share the training runs (runs/rank_jobs.h, in-process, one run at
// a time per rank); rank 0 then runs the evaluations.
#pragma once
#include <cstdint>
#include <string>
#include <vector>

#include "icl/train_flags.h"
#include "training/flag_table.h"

namespace bb {

struct IclExperimentArgs {
  std::string tasks = "every", attention = "softmax,ssa", archs = "full", preset = "icl-tiny";
  std::string out, device = "cpu", lengths, sigmas, sigma_fn;
  int seeds = 3, first_seed = 1, jobs = 0, threads = 1, sequences = 64, report_points = 40;
  icl::TrainArgs train = default_runs();  // --steps and --points-every, given to every run
  std::vector<std::string> train_flags;   // icl train's other flags, given to every run
  static icl::TrainArgs default_runs() {
    icl::TrainArgs t;
    t.s.steps = 3000;
    return t;
  }
};

// icl experiment's flags as a table (training/flag_table.h); the rows it shares with icl train
// (--steps, --points-every) take icl train's help and check.
using IclExperimentFlag = FlagRow<IclExperimentArgs>;
const std::vector<IclExperimentFlag>& icl_experiment_flags();
// The icl train flags a grid sets per run (refused among the flags passed to every run).
const std::vector<std::string>& icl_flags_set_by_grid();

// Trains, evaluates and compares the grid in a.out; returns report.md's text ("" on an MPI rank
// other than 0, which serves rank 0's jobs). a.train_flags must be icl train's (the CLI checks).
std::string run_icl_experiment(IclExperimentArgs a);

}  // namespace bb
