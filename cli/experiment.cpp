// babyberta experiment: its options (the grid's own and every train flag), and the comparison on
// stdout; runs/experiment.h runs the grid.
#include <fmt/core.h>

#include <chrono>
#include <memory>
#include <optional>

#include "cli/commands.h"
#include "cli/out_option.h"
#include "common/flag_names.h"
#include "probing/scorer.h"
#include "runs/attention_variant.h"
#include "training/head_value_flags.h"
#include "runs/experiment.h"
#include "common/split_list.h"
#include "training/flag_ranges.h"

namespace bb::cli {

void add_experiment(CLI::App& app) {
  auto* cmd = app.add_subcommand("experiment",
                                 "Train (attention x seed), probe each, compare; resumable");
  auto a = std::make_shared<ExperimentArgs>();
  cmd->add_option("--suite", a->suite, "Probing suite (directory or file)")->required();
  add_out_option(cmd, a->out, "Experiment directory")->required();
  cmd->add_option(flag_name::attention, a->attention,
                  "Comma-separated list of " + attention_function_help() +
                      "; a variant sets or freezes trainable values: NAME(KEY=VALUE[ frozen], ...), "
                      "e.g. 'softmax,ssa,ssa(n=1.5 frozen)' (runs ssa-n1.5-frozen-seedK)")
      ->check(attention_variant_list())
      ->capture_default_str();
  cmd->add_option("--kinds", a->kinds,
                  "Model kinds, comma-separated (roberta, gpt2): a grid axis; gpt2 runs are "
                  "gpt2-FUNCTION-seedK, scored with causal")
      ->check(one_of("model kind", {"roberta", "gpt2"}, true))
      ->capture_default_str();
  cmd->add_option("--seeds", a->seeds, "Seeds per attention function (1..K)")
      ->check(count_in(1, 1000))->capture_default_str();
  cmd->add_option("--first-seed", a->first_seed,
                  "Start at this seed (--first-seed S --seeds K: seeds S..K, e.g. to add seeds "
                  "to a grid whose first runs are done elsewhere)")
      ->check(count_in(1, 1000))->capture_default_str();
  cmd->add_option("--baselines", a->baselines,
                  "Word n-gram references to add to the report, by order (e.g. 1,3): counted on "
                  "--corpus with train's filters, shown beside the groups, never compared")
      ->check(one_of("n-gram order", {"1", "2", "3"}, true));
  cmd->add_option("--method", a->method,
                  "Probe scoring method(s), comma-separated (holistic, pll, pll-word-l2r; causal): "
                  "each kind's runs take those of their kind (none: its default), "
                  "results/NAME.json for the first, NAME.METHOD.json for the others")
      ->check(one_of("scoring method", method_names(), true))
      ->capture_default_str();
  cmd->add_option("--jobs", a->jobs,
                  "Runs at a time (child processes; default: cores / --threads; under mpirun: "
                  "one per rank)")
      ->check(count_in(1, 256));
  cmd->add_option("--pairs-per-paradigm", a->pairs_per_paradigm,
                  "Probe only the first N pairs of each paradigm (0: all)")
      ->check(count_in(0, 100000000))->capture_default_str();
  cmd->add_flag("--force", a->force,
                "Redo the runs and results that were made with other settings (else refused)");
  // Every train flag but the grid's own applies to every run (one table: runs/train_flags.h).
  add_train_options(cmd, a->train, experiment_grid_flags());
  cmd->callback([a, cmd] {
    apply_recipe(a->train, *cmd, split_list(a->kinds, "--kinds"));
    std::vector<AttentionFunction> functions;
    for (const AttentionVariant& v : parse_attention_variants(a->attention, flag_name::attention))
      functions.push_back(v.function);
    training::check_head_value_flags_given(*cmd, functions);
    const auto t0 = std::chrono::steady_clock::now();
    const std::optional<Comparison> c = run_experiment(*a);
    if (!c) return;  // an MPI rank other than 0
    print_phenomena(*c);
    const double s = std::chrono::duration<double>(std::chrono::steady_clock::now() - t0).count();
    fmt::print("\nreport: {}/report/report.md (this invocation: {:.0f} s)\n", a->out, s);
  });
}

}  // namespace bb::cli
