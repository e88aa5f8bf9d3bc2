// babyberta saturation: how each model's (or, --analytic, each function's) attention collapses
// onto one key under global magnification of the scores and under one key's boost
// (probing/saturation.h). Writes saturation.json, .csv, .md, magnification.svg and
// disproportion.svg into --out.
#include <fmt/core.h>

#include <memory>

#include "cli/commands.h"
#include "cli/out_option.h"
#include "cli/compute_options.h"
#include "common/flag_names.h"
#include "training/flag_ranges.h"
#include "runs/saturation_run.h"

namespace bb::cli {

void add_saturation(CLI::App& app) {
  auto* cmd = app.add_subcommand(
      "saturation", "Attention saturation under magnification and disproportion (JSON, CSV, "
                    "Markdown, SVG)");
  auto a = std::make_shared<SaturationArgs>();
  cmd->add_option("--model", a->models, "Model directory (repeatable)");
  cmd->add_option("--suite", a->suite, "Suite whose grammatical sentences are used (DIR|FILE)");
  add_out_option(cmd, a->out, "Output directory")->required();
  cmd->add_option("--sentences", a->sentences,
                  "Sentences (with --analytic: random blocks of --length rows; ICL models: "
                  "sequences per sigma)")
      ->check(count_in(1, 1000000))
      ->capture_default_str();
  cmd->add_option("--scales", a->settings.scales, "Magnifications lambda (scores x lambda)")
      ->check(in_range(0, 1e6, true))
      ->capture_default_str();
  cmd->add_option("--boosts", a->settings.boosts, "Boosts delta added to one key's score")
      ->check(in_range(0, 1e6))
      ->capture_default_str();
  cmd->add_option(flag_name::seed, a->settings.seed, "Seed of the boosted keys (and analytic rows)")
      ->check(count_in(0, kMaxSeed))
      ->capture_default_str();
  cmd->add_flag("--analytic", a->analytic,
                "Random N(0, 1) score rows instead of models, one curve per --attention function");
  cmd->add_option(flag_name::attention, a->attention, "Functions for --analytic (comma-separated)")
      ->check(one_of("attention function", attention_function_name_list(), true))
      ->capture_default_str();
  cmd->add_option("--length", a->length, "Keys per random row (--analytic)")
      ->check(count_in(2, 1024))
      ->capture_default_str();
  cmd->add_option("--sigmas", a->sigmas, "ICL models: standard deviations of x (a list like "
                  "1,2,4 or a range 1:29)")
      ->capture_default_str();
  cmd->add_option("--points", a->points, "ICL models: points per sequence")
      ->check(count_in(1, 256))
      ->capture_default_str();
  cmd->add_option(flag_name::device, a->device, "ICL models: cpu or cuda")->capture_default_str();
  add_threads_option(cmd, a->threads);
  cmd->callback([a] { fmt::print("{}", run_saturation(*a)); });
}

}  // namespace bb::cli
