#include "runs/icl_experiment.h"

#include <fmt/core.h>

#include <algorithm>
#include <chrono>
#include <cmath>
#include <cstdio>
#include <filesystem>
#include <fstream>
#include <functional>
#include <string_view>

#include "backend/device.h"
#include "backend/threads.h"
#include "common/dir_lock.h"
#include "common/error.h"
#include "common/files.h"
#include "common/flag_names.h"
#include "common/json_read.h"
#include "common/stop_signals.h"
#include "training/checkpoint_dir.h"
#include "training/head_value_flags.h"
#include "training/stop_request.h"
#include "icl/config.h"
#include "icl/experiment_report.h"
#include "icl/shift_report.h"
#include "icl/task.h"
#include "icl/trainer.h"
#include "parallel/mpi.h"
#include "runs/progress.h"
#include "runs/attention_variant.h"
#include "runs/child_jobs.h"
#include "runs/rank_jobs.h"
#include "common/split_list.h"

namespace bb {

namespace fs = std::filesystem;

namespace {

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
  g.score_max = quant ? 1.0 : INFINITY;  // a share, or an unbounded MSE
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

// Every (task, architecture, variant, seed) as an `icl train` job; `runs` gets each run.
std::vector<Job> training_jobs(const IclExperimentArgs& a, const std::vector<std::string>& tasks,
                               const std::vector<std::string>& archs,
                               const std::vector<AttentionVariant>& variants, std::vector<Run>& runs) {
  std::vector<Job> train;
  const fs::path out = a.out;
  // The flags every run gets: the grid's value flags reach a run through its variant (parsed with
  // them as the base: its name and label say them), never twice.
  std::vector<std::string> every_run;
  for (size_t i = 0; i < a.train_flags.size(); ++i) {
    const auto value_flag = training::head_value_flag_word(a.train_flags[i]);
    if (!value_flag) every_run.push_back(a.train_flags[i]);
    else if (value_flag->value_follows) ++i;
  }
  for (const auto& task : tasks)
    for (const auto& arch : archs)
      for (const AttentionVariant& fn : variants)
        for (int seed = a.first_seed; seed <= a.seeds; ++seed) {
          Run r{task, arch, fn.label, fmt::format("{}-{}-{}-seed{}", task, arch, fn.run_name, seed),
                seed};
          icl::TrainArgs run = a.train;  // the grid's cell, over the experiment's --steps etc.
          run.task = task;
          run.arch = arch;
          run.preset = a.preset;
          run.s.seed = uint64_t(seed);
          run.threads = a.threads;
          run.device = a.device;
          run.quiet = true;
          run.out = (out / "runs" / r.name).string();
          // --extend-to: a trained run is extended (or, extended already, resumed); a run not
          // started yet is trained directly to the new total.
          if (run.extend_to > 0 && !fs::exists(fs::path(run.out) / "run.json"))
            run.s.steps = run.extend_to, run.extend_to = 0;
          // before any job: a run planned to another total (icl train would refuse it)
          if (const auto planned = icl::planned_steps(run.out);
              planned && *planned != run.s.steps && *planned != run.extend_to)
            fail("{}: run {} has {} updates planned, the grid {} (--steps {}{}); give the grid's "
                 "original --steps{}",
                 out.string(), r.name, *planned, run.extend_to > 0 ? run.extend_to : run.s.steps,
                 run.s.steps,
                 run.extend_to > 0 ? fmt::format(", {} {}", flag_name::extend_to, run.extend_to)
                                   : std::string(),
                 *planned > run.s.steps
                     ? fmt::format(" (and {} {} for the extended runs)", flag_name::extend_to, *planned)
                     : fmt::format(" and {} N to make them longer", flag_name::extend_to));
          std::vector<std::string> args = icl::to_args(run);
          args.insert(args.end(), fn.train_flags.begin(), fn.train_flags.end());
          args.insert(args.end(), every_run.begin(), every_run.end());
          train.push_back({r.name, args, out / "logs" / (r.name + ".log")});
          runs.push_back(r);
        }
  return train;
}

// The highest step DIR has a checkpoint of (0 before its first).
int64_t checkpointed_step(const fs::path& run) {
  const std::vector<int64_t> steps = checkpoint_steps(run);
  return steps.empty() ? 0 : steps.back();
}

// "grid: 5/20 runs trained, 41000/160000 steps (26%), 3.1 steps/s, ETA 1:02:00". Steps are read
// from each run's latest checkpoint (so they advance in checkpoint-sized jumps); the rate counts
// only the steps trained since this call, so runs finished or half-trained by an earlier
// invocation do not skew the ETA.
JobsStatus checkpoint_status(const IclExperimentArgs& a, const std::vector<Run>& runs) {
  std::vector<fs::path> dirs;
  int64_t before = 0;
  const int64_t steps = a.train.extend_to > 0 ? a.train.extend_to : a.train.s.steps;  // each run's
  for (const Run& r : runs) {
    dirs.push_back(fs::path(a.out) / "runs" / r.name);
    before += std::min<int64_t>(steps, checkpointed_step(dirs.back()));
  }
  const int64_t total = steps * int64_t(runs.size());
  const auto t0 = std::chrono::steady_clock::now();
  return [dirs, before, total, t0, steps](size_t finished) {
    int64_t done = 0;
    for (const fs::path& d : dirs) done += std::min(steps, checkpointed_step(d));
    const double s = std::chrono::duration<double>(std::chrono::steady_clock::now() - t0).count();
    const double rate = s > 0 ? double(done - before) / s : 0;
    return fmt::format("grid: {}/{} runs trained, {}/{} steps ({:.0f}%), {:.1f} steps/s, ETA {}",
                       finished, dirs.size(), done, total,
                       100.0 * double(done) / double(std::max<int64_t>(1, total)), rate,
                       rate > 0 && done < total ? Progress::format_time(double(total - done) / rate)
                                                : "-");
  };
}

// The evaluations' status line, "grid: 0/2 evaluations done, 120/580 cells (21%), ETA 0:05:00",
// from the "N/M cells" progress lines each `icl eval` writes to its log (only what this
// invocation appended: a log keeps earlier invocations' lines).
JobsStatus eval_status(const std::vector<Job>& evals) {
  std::vector<std::pair<fs::path, std::uintmax_t>> logs;
  for (const Job& e : evals) {
    std::error_code ec;
    const std::uintmax_t size = fs::file_size(e.log, ec);
    logs.emplace_back(e.log, ec ? 0 : size);
  }
  const auto t0 = std::chrono::steady_clock::now();
  return [logs, t0](size_t finished) {
    int64_t done = 0, total = 0;
    for (const auto& [log, from] : logs) {
      std::ifstream in(log, std::ios::binary);
      if (!in) continue;
      in.seekg(std::streamoff(from));
      int64_t d = 0, t = 0;
      for (std::string line; std::getline(in, line);) {
        long long a = 0, b = 0;
        char unit[8] = {};
        if (std::sscanf(line.c_str(), "%lld/%lld %7s", &a, &b, unit) == 3 &&
            std::string_view(unit) == "cells")
          d = a, t = b;
      }
      done += d, total += t;
    }
    const std::string head = fmt::format("grid: {}/{} evaluations done", finished, logs.size());
    if (total == 0) return head;
    const double s = std::chrono::duration<double>(std::chrono::steady_clock::now() - t0).count();
    const double rate = s > 0 ? double(done) / s : 0;
    return fmt::format("{}, {}/{} cells ({:.0f}%), ETA {}", head, done, total,
                       100.0 * double(done) / double(total),
                       rate > 0 && done < total ? Progress::format_time(double(total - done) / rate)
                                                : "-");
  };
}

// One job per (task, architecture) group: `job` gives its name, arguments and log from the task,
// architecture and group name; the group's runs are appended as --model arguments.
std::vector<Job> group_jobs(
    const IclExperimentArgs& a, const std::vector<std::string>& tasks,
    const std::vector<std::string>& archs, const std::vector<Run>& runs,
    const std::function<Job(const std::string& task, const std::string& arch, const std::string& g)>& job) {
  std::vector<Job> jobs;
  for (const auto& task : tasks)
    for (const auto& arch : archs) {
      Job j = job(task, arch, group_name(task, arch));
      for (const Run& r : runs)
        if (r.task == task && r.arch == arch)
          j.args.insert(j.args.end(), {"--model", (fs::path(a.out) / "runs" / r.name).string()});
      jobs.push_back(std::move(j));
    }
  return jobs;
}

// One `icl eval` job per (task, architecture) group over its runs.
std::vector<Job> eval_jobs(const IclExperimentArgs& a, const std::vector<std::string>& tasks,
                           const std::vector<std::string>& archs, const std::vector<Run>& runs) {
  const fs::path out = a.out;
  return group_jobs(a, tasks, archs, runs, [&](const std::string&, const std::string&,
                                               const std::string& g) {
    std::vector<std::string> args = {"icl", "eval", flag_name::out, (out / "eval" / g).string(),
                                     "--sequences", std::to_string(a.sequences), flag_name::threads,
                                     std::to_string(a.threads), flag_name::device, a.device};
    for (const auto& [flag, v] : {std::pair{"--lengths", a.lengths}, {"--sigmas", a.sigmas},
                                  {flag_name::sigma_fn, a.sigma_fn}})
      if (!v.empty()) args.insert(args.end(), {flag, v});
    return Job{"eval " + g, args, out / "logs" / ("eval-" + g + ".log")};
  });
}

// One `saturation` job per (task, architecture) group over its runs: saturation/GROUP/, the
// layout `icl report` reads (the experiment's sigmas, or the evaluation's defaults; its report
// length; its sequences per sigma).
std::vector<Job> saturation_jobs(const IclExperimentArgs& a, const std::vector<std::string>& tasks,
                                 const std::vector<std::string>& archs, const std::vector<Run>& runs) {
  const fs::path out = a.out;
  return group_jobs(a, tasks, archs, runs, [&](const std::string& task, const std::string&,
                                               const std::string& g) {
    const bool quant = icl::is_quantification(icl::parse_task(task));
    std::vector<std::string> args = {
        "saturation", flag_name::out, (out / "saturation" / g).string(), "--sigmas",
        !a.sigmas.empty() ? a.sigmas : (quant ? "1:29" : "1:10"), "--points",
        std::to_string(a.report_points), "--sentences", std::to_string(a.sequences),
        flag_name::threads, std::to_string(a.threads), flag_name::device, a.device};
    return Job{"saturation " + g, args, out / "logs" / ("saturation-" + g + ".log")};
  });
}

// table.md: the functions compared over seeds per sigma at the report length, per group
// (icl::experiment_markdown); report.md and charts/: the shift comparison, as `icl report --dir`
// regenerates it from the folder (icl/shift_report.h: σ₅₀, error by length, saturation, where
// wrong predictions point, trained values). Returns both.
std::string write_report(const IclExperimentArgs& a, const std::vector<std::string>& tasks,
                         const std::vector<std::string>& archs,
                         const std::vector<AttentionVariant>& variants, const std::vector<Run>& runs) {
  const fs::path out = a.out;
  std::vector<icl::GroupReport> groups;
  for (const auto& task : tasks)
    for (const auto& arch : archs) {
      const std::string g = group_name(task, arch);
      groups.push_back(read_group(out / "eval" / g / "eval.json", runs,
                                  fmt::format("{}, {}", task, arch), a.report_points));
    }
  const std::string softmax(attention_function_name(AttentionFunction::softmax));
  const std::string reference =
      std::any_of(variants.begin(), variants.end(),
                  [&](const AttentionVariant& v) { return v.label == softmax; })
          ? softmax
          : variants.front().label;
  icl::ShiftReportSettings shift;
  shift.reference = reference;
  const std::string ssa(attention_function_name(AttentionFunction::ssa));
  shift.primary = std::any_of(variants.begin(), variants.end(),
                              [&](const AttentionVariant& v) { return v.label == ssa; })
                      ? ssa
                      : reference;
  const std::string table = icl::experiment_markdown(groups, reference);
  write_file_atomic(out / "table.md", table);
  return table + "\n" + icl::write_shift_report(out, shift);
}


}  // namespace

std::string run_icl_experiment(IclExperimentArgs a) {
  stop_gracefully(training::stop_requested);
  const mpi::World& world = mpi::world();
  if (world.active() && world.rank != 0) {
    serve_jobs();
    return {};
  }
  usable_device(a.device);
  const std::vector<std::string> tasks = split_list(a.tasks, "--tasks");
  const std::vector<std::string> archs = split_list(a.archs, "--archs");
  // The grid's value flags (--ssa-b-init 2 for every SSA run) are the variants' base, as in
  // `experiment`; one that no function of the grid has is refused.
  std::vector<std::string> grid_words = a.train_flags;
  grid_words.insert(grid_words.end(), {flag_name::out, "unused"});
  const std::vector<AttentionVariant> variants = parse_attention_variants(
      a.attention, flag_name::attention, icl::parse_train_args(grid_words).head_values);
  std::vector<AttentionFunction> functions;
  for (const AttentionVariant& v : variants) functions.push_back(v.function);
  training::check_head_value_flag_words(a.train_flags, functions);
  for (const auto& t : tasks) icl::parse_task(t);
  for (const auto& r : archs) icl::parse_arch(r);
  icl::preset(a.preset);
  BB_CHECK(a.first_seed <= a.seeds, "--first-seed {} is above --seeds {}: no seed to run",
           a.first_seed, a.seeds);
  const fs::path out = a.out;
  const DirLock lock(out);
  const int cores = available_cores();
  if (world.active()) a.jobs = 1;  // per rank
  else if (a.jobs == 0) a.jobs = std::max(1, cores / a.threads);
  std::vector<Run> runs;
  const std::vector<Job> train = training_jobs(a, tasks, archs, variants, runs);
  fs::create_directories(out / "logs");
  fmt::print(stderr, "icl experiment {}: {} runs ({} at a time, {} thread{} each)\n", out.string(),
             train.size(),
             world.active() ? fmt::format("{} MPI ranks", world.size) : std::to_string(a.jobs),
             a.threads, a.threads == 1 ? "" : "s");
  const JobsStatus trained = checkpoint_status(a, runs);
  if (world.active())
    run_jobs_on_ranks(train, std::vector<int>(train.size(), -1), trained, train.size());
  else
    run_jobs(train, a.jobs, trained);
  const std::vector<Job> evals = eval_jobs(a, tasks, archs, runs);
  if (world.active()) {  // the other ranks are done: rank 0 evaluates, in-process
    for (const Job& e : evals)
      BB_CHECK(run_job_in_process(e) == JobResult::ok, "{} failed (log: {})", e.name,
               e.log.string());
  } else {
    run_jobs(evals, a.jobs, eval_status(evals));
  }
  const std::vector<Job> saturations = saturation_jobs(a, tasks, archs, runs);
  if (world.active()) {
    for (const Job& e : saturations)
      BB_CHECK(run_job_in_process(e) == JobResult::ok, "{} failed (log: {})", e.name,
               e.log.string());
  } else {
    run_jobs(saturations, a.jobs, count_status("saturation views done", saturations.size()));
  }
  return write_report(a, tasks, archs, variants, runs);
}

}  // namespace bb
