#include <algorithm>

#include "common/error.h"
#include "common/flag_names.h"
#include "icl/config.h"
#include "icl/task.h"
#include "runs/attention_variant.h"
#include "runs/icl_experiment.h"
#include "training/flag_ranges.h"

namespace bb {

namespace {

using namespace flag_roles;

#define BB_FIELD(member) [](IclExperimentArgs& a) -> FlagField { return &a.member; }

// icl train's row for `flag`, its field moved to the experiment's runs (a.train).
IclExperimentFlag from_icl_train(const std::string& flag) {
  const auto& rows = icl::train_flags();
  const auto row = std::find_if(rows.begin(), rows.end(),
                                [&](const icl::TrainFlag& r) { return r.flag == flag; });
  BB_CHECK(row != rows.end(), "internal: icl train has no flag {}", flag);
  return {.flag = row->flag, .help = row->help + " (every run)", .role = math,
          .field = [field = row->field](IclExperimentArgs& a) { return field(a.train); },
          .check = row->check};
}

std::vector<IclExperimentFlag> make_icl_experiment_table() {
  return {
      {.flag = flag_name::out, .help = "Experiment directory", .role = input,
       .field = BB_FIELD(out), .required = true},
      {.flag = "--tasks", .help = "Comma-separated tasks", .role = input, .field = BB_FIELD(tasks),
       .check = [] { return one_of("task", icl::task_names(), true); }},
      {.flag = "--archs", .help = "Comma-separated architectures", .role = input,
       .field = BB_FIELD(archs),
       .check = [] { return one_of("architecture", icl::arch_names(), true); }},
      {.flag = flag_name::attention,
       .help = "Comma-separated attention functions or variants, NAME(KEY=VALUE[ frozen], ...) as "
               "experiment takes them",
       .role = input, .field = BB_FIELD(attention), .check = [] { return attention_variant_list(); }},
      {.flag = flag_name::preset, .help = "icl-tiny, icl-small or icl-standard", .role = input,
       .field = BB_FIELD(preset), .check = [] { return one_of("preset", icl::preset_names()); }},
      {.flag = "--seeds", .help = "Seeds per cell (1..K)", .role = input, .field = BB_FIELD(seeds),
       .check = [] { return count_in(1, 1000); }},
      {.flag = "--first-seed", .help = "First seed", .role = input, .field = BB_FIELD(first_seed),
       .check = [] { return count_in(1, 1000); }},
      from_icl_train(flag_name::steps),
      from_icl_train(flag_name::extend_to),
      from_icl_train(flag_name::points_every),
      {.flag = "--lengths", .help = "Evaluation: points per sequence (as icl eval)",
       .role = input, .field = BB_FIELD(lengths)},
      {.flag = "--sigmas", .help = "Evaluation: sigmas of x (as icl eval)", .role = input,
       .field = BB_FIELD(sigmas)},
      {.flag = flag_name::sigma_fn, .help = "Evaluation: sigmas of the function (linear)",
       .role = input, .field = BB_FIELD(sigma_fn)},
      {.flag = "--sequences", .help = "Evaluation: sequences per cell", .role = input,
       .field = BB_FIELD(sequences), .check = [] { return count_in(1, 1000000); }},
      {.flag = "--report-points", .help = "Report at the length nearest this", .role = input,
       .field = BB_FIELD(report_points), .check = [] { return count_in(1, 256); }},
      {.flag = "--jobs", .help = "Runs at a time (0: cores / threads)", .role = resumable,
       .field = BB_FIELD(jobs), .check = [] { return count_in(0, 1024); }},
      {.flag = flag_name::threads, .help = "Threads per run", .role = resumable,
       .field = BB_FIELD(threads), .check = [] { return thread_count(); }},
      {.flag = flag_name::device, .help = "cpu or cuda", .role = resumable,
       .field = BB_FIELD(device)},
  };
}

#undef BB_FIELD

}  // namespace

const std::vector<IclExperimentFlag>& icl_experiment_flags() {
  static const std::vector<IclExperimentFlag> table = make_icl_experiment_table();
  return table;
}

const std::vector<std::string>& icl_flags_set_by_grid() {
  static const std::vector<std::string> flags = {
      "--task",        "--arch",          flag_name::attention, flag_name::preset,
      flag_name::seed, flag_name::steps,  flag_name::points_every, flag_name::threads,
      flag_name::device, flag_name::out, "--quiet"};
  return flags;
}

}  // namespace bb
