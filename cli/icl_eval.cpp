// babyberta icl eval: ICL models and baselines under distribution shift (icl/eval.h), on a grid
// of lengths and sigmas, into eval.json, eval.csv and SVGs.
#include <fmt/core.h>

#include <cmath>

#include "backend/threads.h"
#include "cli/commands.h"
#include "cli/out_option.h"
#include "cli/compute_options.h"
#include "models/model_kind.h"
#include "common/flag_names.h"
#include "training/flag_ranges.h"
#include "common/split_list.h"
#include "common/error.h"
#include "icl/eval.h"
#include "icl/model.h"
#include "icl/train_flags.h"  // read_run_settings
#include "icl/trainer.h"
#include "runs/progress.h"

namespace bb::cli {

namespace {

struct IclEvalArgs {
  std::vector<std::string> models;
  std::string task, out, device = "cpu";
  std::string lengths, sigmas, sigma_fn;
  int sequences = 64, from_point = 4, threads = 1, batch = 16, dims = 0;
  uint64_t seed = 1;
  bool no_baselines = false, authors_draws = false;
};

// A model's name in eval.json and file names: its directory's name (a step directory,
// RUN/checkpoints/step-N: its run's name; eval.json's "steps" says which step), or the path as
// given when two models share that name.
std::string model_name(const std::string& dir, const std::vector<std::string>& all) {
  auto base = [](std::string d) {
    while (d.size() > 1 && d.back() == '/') d.pop_back();
    return icl::run_of_model(d).filename().string();
  };
  int same = 0;
  for (const std::string& other : all) same += base(other) == base(dir);
  return same > 1 || base(dir).empty() ? dir : base(dir);
}

void run(const IclEvalArgs& a) {
  set_threads(a.threads);
  const Device device = usable_device(a.device);
  BB_CHECK(!a.models.empty() || !a.task.empty(), "icl eval: give --model (or --task for baselines only)");
  BB_CHECK(!a.models.empty() || !a.no_baselines, "icl eval: --no-baselines without --model leaves "
           "nothing to evaluate");
  for (const std::string& m : a.models) require_model_kind(m, ModelCommand::icl_eval);
  icl::EvalGrid g;
  const std::filesystem::path first = a.models.empty() ? "" : a.models.front();
  if (!a.task.empty()) {
    g.task = icl::parse_task(a.task);
  } else {
    const std::filesystem::path run = icl::run_of_model(first);  // (a step directory's run)
    BB_CHECK(std::filesystem::exists(run / "run.json"),
             "icl eval: {} has no run.json (a model copied without its run?): give --task",
             run.string());
    g.task = icl::read_run_settings(run).task;
  }
  if (g.task == icl::Task::mixed) {
    fmt::print(stderr, "babyberta: note: mixed draws every or some per cell; evaluating on every "
                       "(give --task some for the other)\n");
    g.task = icl::Task::every;
  }
  const bool quant = icl::is_quantification(g.task);
  if (!first.empty()) g.dims = icl::read_model_config(first).dims;
  if (a.dims > 0) {
    BB_CHECK(first.empty() || a.dims == g.dims, "--dims {}: the models have {} input dims",
             a.dims, g.dims);
    g.dims = a.dims;
  }
  const std::vector<double> lengths =
      number_list(!a.lengths.empty() ? a.lengths : (quant ? "10:200:10" : "9"), "--lengths");
  g.points.clear();
  for (double v : lengths) {
    BB_CHECK(v == std::floor(v) && v >= 1 && v <= 256,
             "--lengths: {} is not a whole number of points from 1 to 256", v);
    g.points.push_back(int(v));
  }
  g.sigma_x = number_list(!a.sigmas.empty() ? a.sigmas : (quant ? "1:29" : "1:10"), "--sigmas");
  g.sigma_fn = number_list(!a.sigma_fn.empty() ? a.sigma_fn : (quant ? "1" : "1:10"),
                           flag_name::sigma_fn);
  for (double v : g.sigma_x) BB_CHECK(v > 0, "--sigmas: {} is not above 0", v);
  for (double v : g.sigma_fn) BB_CHECK(v > 0, "{}: {} is not above 0", flag_name::sigma_fn, v);
  g.sequences = a.sequences, g.from_point = a.from_point, g.seed = a.seed;
  g.authors_draws = a.authors_draws;
  std::vector<icl::EvalResult> results;
  // One progress line over every cell of every model and baseline (the experiment's status line
  // reads it from the log: "N/M cells").
  const auto baselines = a.no_baselines ? decltype(icl::baselines(g.task)){} : icl::baselines(g.task);
  const int64_t total = int64_t(icl::cell_count(g) * (a.models.size() + baselines.size()));
  Progress progress(total, "cells", std::max<int64_t>(1, total / 20));
  int64_t done = 0;
  std::string current;
  const auto after_cell = [&] { progress.update(++done, current); };
  for (const std::string& dir : a.models) {
    const icl::Config cfg = icl::read_model_config(dir);
    BB_CHECK(cfg.dims == g.dims, "{}: has {} input dims, the first model {}", dir, cfg.dims, g.dims);
    for (int k : g.points)
      BB_CHECK(2 * k <= cfg.positions, "--lengths: {} points need {} positions; {} has {}", k,
               2 * k, dir, cfg.positions);
    icl::Model<float> model(cfg, device);
    icl::load_model(dir, model);
    const std::string name = model_name(dir, a.models);
    progress.note(fmt::format("icl eval: {} ({}) on {} cells", name, cfg.label(), icl::cell_count(g)));
    current = name;
    results.push_back(icl::evaluate(g, name, false, [&](const icl::Sequences& s) {
      return icl::predict(model, s, a.batch);
    }, after_cell));
    results.back().steps = icl::model_steps(dir);
  }
  for (const auto& [name, predict] : baselines) {
    current = name + " (baseline)";
    results.push_back(icl::evaluate(g, name, true, predict, after_cell));
  }
  icl::write_eval(a.out, g, results);
  for (const icl::EvalResult& r : results) {
    double worst = 0, mean = 0;
    for (const icl::Cell& c : r.cells) worst = std::max(worst, c.score), mean += c.score;
    fmt::print("{:<32} mean score {:.4g}, worst cell {:.4g}\n", r.name, mean / r.cells.size(), worst);
  }
  fmt::print(stderr, "wrote {}/eval.json, eval.csv and SVGs\n", a.out);
}

}  // namespace

void add_icl_eval(CLI::App& icl_cmd) {
  auto* cmd = icl_cmd.add_subcommand(
      "eval", "ICL models and baselines under distribution shift (lengths x sigmas)");
  auto a = std::make_shared<IclEvalArgs>();
  cmd->add_option("--model", a->models, "ICL run or model directory (repeatable)");
  cmd->add_option("--task", a->task, "every, some, linear, linear-regression (default: the "
                  "first model's)")->check(one_of("task", icl::task_names()));
  cmd->add_option("--lengths", a->lengths, "Points per sequence: a list like 10,20 or a range "
                  "10:200:10 (default: 10:200:10; linear tasks: 9)");
  cmd->add_option("--sigmas,--sigma-x", a->sigmas, "Standard deviations of x (default: 1:29; "
                  "linear tasks: 1:10)");
  cmd->add_option(flag_name::sigma_fn, a->sigma_fn, "Standard deviations of the function's a, b or w "
                  "(linear tasks; default 1:10)");
  cmd->add_option("--dims", a->dims, "linear-regression without a model: input dimensions "
                  "(default: the models')")
      ->check(count_in(1, 1024));
  cmd->add_option("--sequences", a->sequences, "Sequences per cell")->check(count_in(1, 1000000))
      ->capture_default_str();
  cmd->add_option("--from-point", a->from_point, "Errors count from this point on (1-based; the "
                  "authors' 4)")->check(count_in(1, 256))->capture_default_str();
  cmd->add_option(flag_name::seed, a->seed, "Seed of the test sequences")->check(count_in(0, kMaxSeed))
      ->capture_default_str();
  cmd->add_option("--batch", a->batch, "Sequences per forward pass")->check(count_in(1, 4096))
      ->capture_default_str();
  add_out_option(cmd, a->out, "Output directory")->required();
  cmd->add_flag("--no-baselines", a->no_baselines, "Models only");
  cmd->add_flag("--authors-draws", a->authors_draws,
                "The authors' inputs instead of independent draws: x_ij = sigma randn after "
                "torch.manual_seed(100 i + 10 j) (overlapping sequences); linear: 100 functions "
                "per cell from manual_seed(sigma_fn), as testoverxandy.py (the notebook's "
                "protocol: --lengths 40 --sigmas 1 --sigma-fn 1:10 --from-point 3)");
  add_threads_option(cmd, a->threads);
  cmd->add_option(flag_name::device, a->device, "cpu or cuda")->capture_default_str();
  cmd->callback([a] { run(*a); });
}

void add_icl(CLI::App& app) {
  auto* cmd = app.add_subcommand(
      "icl", "In-context learning under distribution shift (the SSA paper's controlled tasks)");
  cmd->require_subcommand(1);
  add_icl_train(*cmd);
  add_icl_eval(*cmd);
  add_icl_experiment(*cmd);
  add_icl_report(*cmd);
}

}  // namespace bb::cli
