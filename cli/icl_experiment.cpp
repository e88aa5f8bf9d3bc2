// babyberta icl experiment: its options (flags it does not know go to every icl train, checked
// here as icl train parses them); runs/icl_experiment.h runs the grid.
#include <fmt/core.h>

#include <algorithm>
#include <memory>

#include "cli/commands.h"
#include "common/error.h"
#include "common/flag_names.h"
#include "icl/config.h"
#include "icl/task.h"
#include "runs/attention_variant.h"
#include "runs/flag_ranges.h"
#include "runs/icl_experiment.h"

namespace bb::cli {

void add_icl_experiment(CLI::App& icl_cmd) {
  auto* cmd = icl_cmd.add_subcommand(
      "experiment", "Train tasks x architectures x functions x seeds, evaluate, compare");
  auto a = std::make_shared<IclExperimentArgs>();
  cmd->allow_extras();
  cmd->add_option(flag_name::out, a->out, "Experiment directory")->required();
  cmd->add_option("--tasks", a->tasks, "Comma-separated tasks")
      ->check(one_of("task", icl::task_names(), true))->capture_default_str();
  cmd->add_option("--archs", a->archs, "Comma-separated architectures")
      ->check(one_of("architecture", icl::arch_names(), true))->capture_default_str();
  cmd->add_option(flag_name::attention, a->attention,
                  "Comma-separated attention functions or variants, NAME(KEY=VALUE[ frozen], ...) "
                  "as experiment takes them")
      ->check(attention_variant_list())
      ->capture_default_str();
  cmd->add_option(flag_name::preset, a->preset, "icl-tiny, icl-small or icl-standard")
      ->check(one_of("preset", icl::preset_names()))->capture_default_str();
  cmd->add_option("--seeds", a->seeds, "Seeds per cell (1..K)")->check(count_in(1, 1000))
      ->capture_default_str();
  cmd->add_option("--first-seed", a->first_seed, "First seed")->check(count_in(1, 1000))
      ->capture_default_str();
  cmd->add_option(flag_name::steps, a->steps, "Updates per run")->check(count_in(1, int64_t(1) << 40))
      ->capture_default_str();
  cmd->add_option("--points-every", a->points_every, "Curriculum: updates between increments")
      ->check(count_in(1, int64_t(1) << 40))->capture_default_str();
  cmd->add_option("--lengths", a->lengths, "Evaluation: points per sequence (as icl eval)");
  cmd->add_option("--sigmas", a->sigmas, "Evaluation: sigmas of x (as icl eval)");
  cmd->add_option("--sigma-fn", a->sigma_fn, "Evaluation: sigmas of the function (linear)");
  cmd->add_option("--sequences", a->sequences, "Evaluation: sequences per cell")
      ->check(count_in(1, 1000000))->capture_default_str();
  cmd->add_option("--report-points", a->report_points, "Report at the length nearest this")
      ->check(count_in(1, 256))->capture_default_str();
  cmd->add_option("--jobs", a->jobs, "Runs at a time (0: cores / threads)")
      ->check(count_in(0, 1024))->capture_default_str();
  cmd->add_option(flag_name::threads, a->threads, "Threads per run")->transform(thread_count())
      ->capture_default_str();
  cmd->add_option(flag_name::device, a->device, "cpu or cuda")->capture_default_str();
  cmd->callback([a, cmd] {
    a->train_flags = cmd->remaining();
    check_icl_train_flags(a->train_flags);
    for (const char* own : {"--task", "--arch", flag_name::attention, flag_name::preset, flag_name::seed, flag_name::steps,
                            "--points-every", flag_name::threads, flag_name::device, flag_name::out, "--quiet"})
      BB_CHECK(std::find(a->train_flags.begin(), a->train_flags.end(), own) == a->train_flags.end(),
               "icl experiment: {} is set by the grid itself", own);
    const std::string md = run_icl_experiment(*a);
    if (md.empty()) return;  // an MPI rank other than 0
    fmt::print("{}\nreport: {}/report.md; per group: {}/eval/GROUP/ (eval.json, .csv, SVGs)\n", md,
               a->out, a->out);
  });
}

}  // namespace bb::cli
