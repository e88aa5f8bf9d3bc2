// babyberta icl train: its options; runs/icl_train_run.h trains.
#include <fmt/core.h>

#include <algorithm>

#include "cli/commands.h"
#include "common/flag_names.h"
#include "runs/flag_ranges.h"
#include "common/error.h"
#include "common/stop_signals.h"
#include "icl/trainer.h"
#include "runs/icl_train_run.h"

namespace bb::cli {

namespace {

void add_options(CLI::App* cmd, IclTrainArgs& a) {
  cmd->add_option("--task", a.task, "every, some, mixed, linear or linear-regression")
      ->check(one_of("task", icl::task_names()))
      ->capture_default_str();
  cmd->add_option(flag_name::attention, a.attention, attention_function_help())
      ->check(one_of("attention function", attention_function_name_list()))
      ->capture_default_str();
  cmd->add_option(flag_name::preset, a.preset, "icl-tiny (3 layers, 2 heads, 64), icl-small (6/4/128), "
                  "icl-standard (12/8/256)")
      ->check(one_of("preset", icl::preset_names()))
      ->capture_default_str();
  cmd->add_option("--arch", a.arch, "full (GPT-2 blocks), attention-only (no MLP, LayerNorm or "
                  "residual), attention-only-residual (no MLP or LayerNorm)")
      ->check(one_of("architecture", icl::arch_names()))
      ->capture_default_str();
  cmd->add_option(flag_name::out, a.out, "Run directory (created; an existing run is resumed)")->required();
  cmd->add_option(flag_name::steps, a.s.steps, "Updates in total")
      ->check(count_in(1, int64_t(1) << 40))
      ->capture_default_str();
  cmd->add_option(flag_name::seed, a.s.seed, "Seed of the weights and of every batch")
      ->check(count_in(0, kMaxSeed))
      ->capture_default_str();
  cmd->add_option("--batch", a.s.batch, "Sequences per update")->check(count_in(1, 65536))
      ->capture_default_str();
  cmd->add_option(flag_name::lr, a.s.lr, "Adam's learning rate (constant)")->check(in_range(0, 1, true))
      ->capture_default_str();
  cmd->add_option("--clip-norm", a.s.clip_norm,
                  "Clip the global gradient norm to this (0: no clipping, as the authors)")
      ->check(in_range(0, 1e6))
      ->capture_default_str();
  cmd->add_option("--sigma", a.s.spread.sigma_x, "Training x ~ N(0, sigma^2)")
      ->check(in_range(0, 1e6, true))
      ->capture_default_str();
  cmd->add_option("--sigma-fn", a.s.spread.sigma_fn,
                  "Training functions (a, b or w) ~ N(0, sigma_fn^2) (linear tasks)")
      ->check(in_range(0, 1e6, true))
      ->capture_default_str();
  cmd->add_option("--dims", a.dims, "Input dimensions (linear-regression)")->check(count_in(1, 1024))
      ->capture_default_str();
  auto& c = a.s.curriculum;
  cmd->add_option("--points-start", c.start, "Curriculum: points per sequence at first")
      ->check(count_in(1, 512))->capture_default_str();
  cmd->add_option("--points-end", c.end, "Curriculum: points per sequence at most")
      ->check(count_in(1, 512))->capture_default_str();
  cmd->add_option("--points-inc", c.inc, "Curriculum: points added each time")
      ->check(count_in(0, 512))->capture_default_str();
  cmd->add_option("--points-every", c.every, "Curriculum: updates between increments")
      ->check(count_in(1, int64_t(1) << 40))->capture_default_str();
  cmd->add_option("--checkpoint-every", a.s.checkpoint_every, "Updates between checkpoints")
      ->check(count_in(1, int64_t(1) << 40))->capture_default_str();
  for (const AttentionFunctionSpec& f : kAttentionFunctionTable)
    for (int slot = 0; slot < f.value_count; ++slot) {
      const HeadValueSpec& v = f.values[size_t(slot)];
      HeadValueSetting& setting = a.head_values[size_t(f.function)][size_t(slot)];
      cmd->add_option(std::string(v.init_flag), setting.init, std::string(v.init_help))
          ->check(in_range(v.lo, v.hi, v.lo_open))
          ->capture_default_str();
      cmd->add_flag(std::string(v.freeze_flag), setting.freeze, std::string(v.freeze_help));
    }
  cmd->add_option(flag_name::threads, a.threads, "Compute threads")->transform(thread_count())
      ->capture_default_str();
  cmd->add_option(flag_name::device, a.device, "cpu or cuda")->capture_default_str();
  cmd->add_flag("--quiet", a.quiet, "No progress lines");
}

}  // namespace

void check_icl_train_flags(const std::vector<std::string>& flags) {
  CLI::App app{"icl train"};
  IclTrainArgs a;
  add_options(&app, a);
  std::vector<std::string> args = flags;
  args.insert(args.end(), {flag_name::out, "unused"});
  std::reverse(args.begin(), args.end());  // CLI11 takes them last-first
  try {
    app.parse(args);
  } catch (const CLI::ParseError& e) {
    std::string msg = e.what();
    std::replace(msg.begin(), msg.end(), '\n', ' ');
    fail("icl experiment: a flag for icl train: {} (flags it does not know itself go to every "
         "icl train)", msg);
  }
}

void add_icl_train(CLI::App& icl_cmd) {
  auto* cmd = icl_cmd.add_subcommand(
      "train", "Train a causal model from scratch on an in-context-learning task");
  auto a = std::make_shared<IclTrainArgs>();
  add_options(cmd, *a);
  cmd->callback([a] {
    stop_gracefully(icl::Trainer::stop_requested);
    run_icl_train(*a);
  });
}

}  // namespace bb::cli
