// babyberta icl train: an ICL model (icl/) trained from scratch on a synthetic task drawn on the
// fly, in a run directory with the properties of `train`'s (lock, run.json, atomic checkpoints,
// bit-exact resume, Ctrl-C saves and exits 130, progress with loss, rate and ETA).
#include <fmt/core.h>

#include <algorithm>

#include "backend/threads.h"
#include "cli/commands.h"
#include "cli/flag_ranges.h"
#include "cli/progress.h"
#include "common/dir_lock.h"
#include "common/error.h"
#include "common/stop_signals.h"
#include "icl/trainer.h"

namespace bb::cli {

namespace {

struct IclTrainArgs {
  std::string task = "every", attention = "softmax", preset = "icl-tiny", arch = "full";
  std::string out, device = "cpu";
  icl::TrainSettings s;
  int dims = 1, threads = 1;
  HeadValueSettings head_values = default_head_value_settings();
  bool quiet = false;
};

void add_options(CLI::App* cmd, IclTrainArgs& a) {
  cmd->add_option("--task", a.task, "every, some, mixed, linear or linear-regression")
      ->check(one_of("task", icl::task_names()))
      ->capture_default_str();
  cmd->add_option("--attention", a.attention, attention_function_help())
      ->check(one_of("attention function", attention_function_name_list()))
      ->capture_default_str();
  cmd->add_option("--preset", a.preset, "icl-tiny (3 layers, 2 heads, 64), icl-small (6/4/128), "
                  "icl-standard (12/8/256)")
      ->check(one_of("preset", icl::preset_names()))
      ->capture_default_str();
  cmd->add_option("--arch", a.arch, "full (GPT-2 blocks), attention-only (no MLP, LayerNorm or "
                  "residual), attention-only-residual (no MLP or LayerNorm)")
      ->check(one_of("architecture", icl::arch_names()))
      ->capture_default_str();
  cmd->add_option("--out", a.out, "Run directory (created; an existing run is resumed)")->required();
  cmd->add_option("--steps", a.s.steps, "Updates in total")
      ->check(count_in(1, int64_t(1) << 40))
      ->capture_default_str();
  cmd->add_option("--seed", a.s.seed, "Seed of the weights and of every batch")
      ->check(count_in(0, kMaxSeed))
      ->capture_default_str();
  cmd->add_option("--batch", a.s.batch, "Sequences per update")->check(count_in(1, 65536))
      ->capture_default_str();
  cmd->add_option("--lr", a.s.lr, "Adam's learning rate (constant)")->check(in_range(0, 1, true))
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
  cmd->add_option("--threads", a.threads, "Compute threads")->transform(thread_count())
      ->capture_default_str();
  cmd->add_option("--device", a.device, "cpu or cuda")->capture_default_str();
  cmd->add_flag("--quiet", a.quiet, "No progress lines");
}

void run(IclTrainArgs& a) {
  set_threads(a.threads);
  const Device device = usable_device(a.device);
  icl::Config cfg = icl::preset(a.preset);
  cfg.arch = icl::parse_arch(a.arch);
  cfg.attention = parse_attention_function(a.attention);
  cfg.head_values = a.head_values;
  cfg.dims = a.dims;
  cfg.validate("icl train");
  a.s.task = icl::parse_task(a.task);
  const std::filesystem::path out = a.out;
  const DirLock lock(out);
  icl::Trainer trainer(cfg, a.s, out, device);
  const int64_t start = trainer.step();
  if (!a.quiet)
    fmt::print(stderr, "icl train: {} on {}, {} parameters, {} -> {}{}\n", cfg.label(), a.task,
               trainer.model().layout().total, device_label(device), out.string(),
               start > 0 ? fmt::format(" (resuming at step {})", start) : "");
  Progress progress(a.s.steps, "steps", 100, start);
  int64_t tokens = 0;
  trainer.run([&](const icl::StepLog& s) {
    tokens += int64_t(a.s.batch) * 2 * s.points;
    if (!a.quiet)
      progress.update(s.step, fmt::format("loss {:.4f} points {} {:.0f} tok/s", s.loss, s.points,
                                          double(tokens) / progress.seconds()));
  });
  if (!a.quiet) progress.finish();
  if (icl::Trainer::stop_requested)
    throw Interrupted(fmt::format("interrupted: checkpoint saved at step {} in {}; to continue, "
                                  "run the same command again",
                                  trainer.step(), out.string()));
  if (!a.quiet)
    fmt::print(stderr, "trained {} steps ({} this run) -> {}\n", trainer.step(),
               trainer.step() - start, out.string());
}

}  // namespace

void check_icl_train_flags(const std::vector<std::string>& flags) {
  CLI::App app{"icl train"};
  IclTrainArgs a;
  add_options(&app, a);
  std::vector<std::string> args = flags;
  args.insert(args.end(), {"--out", "unused"});
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
    run(*a);
  });
}

}  // namespace bb::cli
