// babyberta icl experiment: trains every (task, architecture, attention function, seed) with
// `icl train`, evaluates each (task, architecture) group with `icl eval`, and compares the
// functions over seeds (icl/experiment_report.h): report.md in --out. Runs are child processes,
// --jobs at a time with --threads each (as `experiment`); resumable (a finished run is skipped by
// its own checkpoint, an interrupted one resumes); a rerun with other settings is refused by each
// run's run.json. Flags it does not know are passed to every `icl train` (--lr, --sigma, ...).
// Under mpirun or srun the ranks share the training runs (cli/rank_jobs.h, in-process, one run at
// a time per rank); rank 0 then runs the evaluations.
#include <fmt/core.h>

#include <filesystem>

#include "backend/threads.h"
#include "cli/attention_variant.h"
#include "cli/child_jobs.h"
#include "cli/commands.h"
#include "cli/flag_ranges.h"
#include "cli/rank_jobs.h"
#include "cli/split_list.h"
#include "common/dir_lock.h"
#include "common/error.h"
#include "common/files.h"
#include "common/json_read.h"
#include "common/stop_signals.h"
#include "encoder/trainer.h"  // Trainer::stop_requested: run_jobs's stop flag
#include "icl/config.h"
#include "icl/experiment_report.h"
#include "icl/task.h"
#include "parallel/mpi.h"

namespace bb::cli {

namespace fs = std::filesystem;

namespace {

struct IclExperimentArgs {
  std::string tasks = "every", attention = "softmax,ssa", archs = "full", preset = "icl-tiny";
  std::string out, device = "cpu", lengths, sigmas, sigma_fn;
  int seeds = 3, first_seed = 1, jobs = 0, threads = 1, sequences = 64, report_points = 40;
  int64_t steps = 3000, points_every = 2000;
  std::vector<std::string> train_flags;  // unknown flags, forwarded to icl train
};

struct Run {
  std::string task, arch, function, name;
  int seed;
};

std::string group_name(const std::string& task, const std::string& arch) {
  return task + "-" + arch;
}

// The group's scores per sigma at the report length (quantification: sigma of x; linear tasks:
// sigma of the function at the smallest sigma of x), read from its eval.json.
icl::GroupReport read_group(const fs::path& eval_json, const std::vector<Run>& runs,
                            const std::string& title, int report_points) {
  const nlohmann::json j = read_json_file(eval_json);
  const bool quant = icl::is_quantification(icl::parse_task(j.at("task").get<std::string>()));
  icl::GroupReport g;
  g.score = fmt::format("{} from point {} on", quant ? "share of sequences with a wrong sign"
                                                     : "mean squared error",
                        j.at("from_point").get<int>());
  for (const auto& m : j.at("models")) {
    if (m.at("baseline").get<bool>()) continue;
    const std::string name = m.at("name").get<std::string>();
    const auto run = std::find_if(runs.begin(), runs.end(), [&](const Run& r) { return r.name == name; });
    if (run == runs.end()) continue;
    // The length nearest report_points, and the smallest sigma of x.
    int points = -1;
    double sx_min = INFINITY;
    for (const auto& c : m.at("cells")) {
      const int p = c.at("points").get<int>();
      if (points < 0 || std::abs(p - report_points) < std::abs(points - report_points)) points = p;
      sx_min = std::min(sx_min, c.at("sigma_x").get<double>());
    }
    icl::SeedScores s{run->function, run->seed, {}};
    std::vector<double> sigmas;
    for (const auto& c : m.at("cells")) {
      if (c.at("points").get<int>() != points) continue;
      if (!quant && c.at("sigma_x").get<double>() != sx_min) continue;
      sigmas.push_back(quant ? c.at("sigma_x").get<double>() : c.at("sigma_fn").get<double>());
      const auto& score = c.at("score");  // JSON has no infinity: a diverged cell is null
      s.score.push_back(score.is_number() ? score.get<double>() : INFINITY);
    }
    g.sigmas = sigmas;
    g.title = fmt::format("{}, {} points, {}", title, points,
                          quant ? "by sigma of x" : fmt::format("by sigma of the function (sigma of x {:g})", sx_min));
    g.runs.push_back(std::move(s));
  }
  return g;
}

void run(IclExperimentArgs& a) {
  stop_gracefully(Trainer::stop_requested);
  const mpi::World& world = mpi::world();
  if (world.active() && world.rank != 0) return serve_jobs();
  usable_device(a.device);
  const std::vector<std::string> tasks = split_list(a.tasks, "--tasks");
  const std::vector<std::string> archs = split_list(a.archs, "--archs");
  const std::vector<AttentionVariant> variants = parse_attention_variants(a.attention, "--attention");
  for (const auto& t : tasks) icl::parse_task(t);
  for (const auto& r : archs) icl::parse_arch(r);
  icl::preset(a.preset);
  check_icl_train_flags(a.train_flags);
  for (const char* own : {"--task", "--arch", "--attention", "--preset", "--seed", "--steps",
                          "--points-every", "--threads", "--device", "--out", "--quiet"})
    BB_CHECK(std::find(a.train_flags.begin(), a.train_flags.end(), own) == a.train_flags.end(),
             "icl experiment: {} is set by the grid itself", own);
  BB_CHECK(a.first_seed <= a.seeds, "--first-seed {} is above --seeds {}: no seed to run",
           a.first_seed, a.seeds);
  const fs::path out = a.out;
  const DirLock lock(out);
  const int cores = available_cores();
  if (world.active()) a.jobs = 1;  // per rank
  else if (a.jobs == 0) a.jobs = std::max(1, cores / a.threads);
  std::vector<Run> runs;
  std::vector<Job> train;
  for (const auto& task : tasks)
    for (const auto& arch : archs)
      for (const AttentionVariant& fn : variants)
        for (int seed = a.first_seed; seed <= a.seeds; ++seed) {
          Run r{task, arch, fn.label, fmt::format("{}-{}-{}-seed{}", task, arch, fn.run_name, seed),
                seed};
          std::vector<std::string> args = {
              "icl", "train", "--task", task, "--arch", arch, "--preset",
              a.preset, "--seed", std::to_string(seed), "--steps", std::to_string(a.steps),
              "--points-every", std::to_string(a.points_every), "--threads",
              std::to_string(a.threads), "--device", a.device, "--quiet", "--out",
              (out / "runs" / r.name).string()};
          args.insert(args.end(), fn.train_flags.begin(), fn.train_flags.end());
          args.insert(args.end(), a.train_flags.begin(), a.train_flags.end());
          train.push_back({r.name, args, out / "logs" / (r.name + ".log")});
          runs.push_back(r);
        }
  fs::create_directories(out / "logs");
  fmt::print(stderr, "icl experiment {}: {} runs ({} at a time, {} thread{} each)\n", out.string(),
             train.size(),
             world.active() ? fmt::format("{} MPI ranks", world.size) : std::to_string(a.jobs),
             a.threads, a.threads == 1 ? "" : "s");
  const JobsStatus trained = count_status("runs trained", train.size());
  if (world.active())
    run_jobs_on_ranks(train, std::vector<int>(train.size(), -1), trained, train.size());
  else
    run_jobs(train, a.jobs, trained);
  std::vector<Job> evals;
  for (const auto& task : tasks)
    for (const auto& arch : archs) {
      const std::string g = group_name(task, arch);
      std::vector<std::string> args = {"icl", "eval", "--out", (out / "eval" / g).string(),
                                       "--sequences", std::to_string(a.sequences), "--threads",
                                       std::to_string(a.threads), "--device", a.device};
      for (const Run& r : runs)
        if (r.task == task && r.arch == arch)
          args.insert(args.end(), {"--model", (out / "runs" / r.name).string()});
      for (const auto& [flag, v] : {std::pair{"--lengths", a.lengths}, {"--sigmas", a.sigmas},
                                    {"--sigma-fn", a.sigma_fn}})
        if (!v.empty()) args.insert(args.end(), {flag, v});
      evals.push_back({"eval " + g, args, out / "logs" / ("eval-" + g + ".log")});
    }
  if (world.active()) {  // the other ranks are done: rank 0 evaluates, in-process
    for (const Job& e : evals)
      BB_CHECK(run_job_in_process(e) == JobResult::ok, "{} failed (log: {})", e.name,
               e.log.string());
  } else {
    run_jobs(evals, a.jobs, count_status("evaluations done", evals.size()));
  }
  std::vector<icl::GroupReport> groups;
  for (const auto& task : tasks)
    for (const auto& arch : archs) {
      const std::string g = group_name(task, arch);
      groups.push_back(read_group(out / "eval" / g / "eval.json", runs,
                                  fmt::format("{}, {}", task, arch), a.report_points));
    }
  const std::string reference =
      std::any_of(variants.begin(), variants.end(),
                  [](const AttentionVariant& v) { return v.label == "softmax"; })
          ? "softmax"
          : variants.front().label;
  const std::string md = icl::experiment_markdown(groups, reference);
  write_file_atomic(out / "report.md", md);
  fmt::print("{}\nreport: {}/report.md; per group: {}/eval/GROUP/ (eval.json, .csv, SVGs)\n", md,
             out.string(), out.string());
}

}  // namespace

void add_icl_experiment(CLI::App& icl_cmd) {
  auto* cmd = icl_cmd.add_subcommand(
      "experiment", "Train tasks x architectures x functions x seeds, evaluate, compare");
  auto a = std::make_shared<IclExperimentArgs>();
  cmd->allow_extras();
  cmd->add_option("--out", a->out, "Experiment directory")->required();
  cmd->add_option("--tasks", a->tasks, "Comma-separated tasks")
      ->check(one_of("task", icl::task_names(), true))->capture_default_str();
  cmd->add_option("--archs", a->archs, "Comma-separated architectures")
      ->check(one_of("architecture", icl::arch_names(), true))->capture_default_str();
  cmd->add_option("--attention", a->attention,
                  "Comma-separated attention functions or variants, NAME(KEY=VALUE[ frozen], ...) "
                  "as experiment takes them")
      ->check(attention_variant_list())
      ->capture_default_str();
  cmd->add_option("--preset", a->preset, "icl-tiny, icl-small or icl-standard")
      ->check(one_of("preset", icl::preset_names()))->capture_default_str();
  cmd->add_option("--seeds", a->seeds, "Seeds per cell (1..K)")->check(count_in(1, 1000))
      ->capture_default_str();
  cmd->add_option("--first-seed", a->first_seed, "First seed")->check(count_in(1, 1000))
      ->capture_default_str();
  cmd->add_option("--steps", a->steps, "Updates per run")->check(count_in(1, int64_t(1) << 40))
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
  cmd->add_option("--threads", a->threads, "Threads per run")->transform(thread_count())
      ->capture_default_str();
  cmd->add_option("--device", a->device, "cpu or cuda")->capture_default_str();
  cmd->callback([a, cmd] {
    a->train_flags = cmd->remaining();
    run(*a);
  });
}

}  // namespace bb::cli
