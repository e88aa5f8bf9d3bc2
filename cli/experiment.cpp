// babyberta experiment: trains every (attention, seed), probes each, and compares. Resumable:
// finished runs and probes are skipped, interrupted runs resume. Every run directory and probe
// result carries the settings that made it (run.json, results/NAME.settings.json); a rerun with
// other settings is refused, naming each one that differs, unless --force redoes those runs.
// With --jobs J, J runs go at a time, each a child process with --threads T threads. Under mpirun
// or srun the ranks share the grid instead (cli/rank_jobs.h), one run at a time per rank.
#include <fmt/core.h>
#include <fmt/format.h>

#include <algorithm>
#include <chrono>
#include <filesystem>
#include <memory>
#include <optional>
#include <regex>
#include <set>
#include <fstream>

#include "backend/device.h"
#include "cli/attention_variant.h"
#include "cli/child_jobs.h"
#include "cli/commands.h"
#include "cli/split_list.h"
#include "cli/flag_ranges.h"
#include "cli/progress.h"
#include "cli/rank_jobs.h"
#include "cli/run_settings.h"
#include "common/dir_lock.h"
#include "common/error.h"
#include "common/files.h"
#include "common/hash.h"
#include "common/json_read.h"
#include "common/stop_signals.h"
#include "encoder/checkpoint.h"
#include "encoder/recipe.h"
#include "encoder/trainer.h"
#include "parallel/mpi.h"
#include "probing/compare.h"
#include "probing/report.h"
#include "probing/scorer.h"
#include "tokenizer/tokenizer.h"

namespace bb::cli {

namespace fs = std::filesystem;
using ojson = nlohmann::ordered_json;

namespace {

struct ExperimentArgs {
  std::string suite, out, attention = "softmax,ssa", method = "holistic";
  int seeds = 3, first_seed = 1, jobs = 0, pairs_per_paradigm = 0;
  bool force = false;
  std::string baselines;  // n-gram orders ("1,3"): word references counted on the corpus
  TrainArgs train;        // every train flag, for every run (each run sets those in kGridFlags)
  int64_t target() const { return train.extend_to > 0 ? train.extend_to : train.steps; }
};

// train's flags that the grid sets per run, so experiment does not take them.
const std::set<std::string> kGridFlags = {"--out",      "--attention", "--seed",
                                          "--resume",   "--tokenizer", "--probe-suite"};

int64_t finished_step(const fs::path& run) {
  const auto last = latest_checkpoint(run);
  if (!last) return -1;
  return read_trainer_state(*last).step;
}

// The settings `train` records for run `r` (as train --resume reads an existing run's:
// keep_recorded_dev_split) at `steps` steps.
ojson run_settings_at(TrainArgs r, int64_t steps, const std::string& corpus_sha,
                      const std::string& tokenizer_sha, const std::optional<ojson>& saved) {
  if (saved) keep_recorded_dev_split(r, *saved);
  r.steps = steps;
  return train_settings(r, corpus_sha, tokenizer_sha);
}

// What a probe result depends on: the run it probed (its settings' fingerprint) and the probe flags.
ojson probe_settings(const ExperimentArgs& a, const std::string& method,
                     const ojson& train_settings) {
  return {{"run", settings_fingerprint(train_settings)}, {"--suite", a.suite},
          {"--method", method}, {"--pairs-per-paradigm", a.pairs_per_paradigm}};
}

// Refuses (or with --force removes) what was made with other settings: one line naming the
// directory and every setting that differs.
void reconcile(const ExperimentArgs& a, const std::vector<fs::path>& stale, const fs::path& what,
               const std::vector<std::string>& diff) {
  if (diff.empty()) return;
  if (!a.force)
    fail("{}: made with other settings ({}); choose a new --out or pass --force to redo it",
         what.string(), fmt::join(diff, "; "));
  fmt::print(stderr, "experiment: --force: redoing {} ({})\n", what.string(), fmt::join(diff, "; "));
  for (const fs::path& p : stale) fs::remove_all(p);
}

// The tokenizer shared by every run: trained once; a tokenizer of another size is stale.
Tokenizer experiment_tokenizer(const ExperimentArgs& a, int threads) {
  const fs::path dir = fs::path(a.out) / "tokenizer";
  if (fs::exists(dir / "tokenizer.model")) {
    const int have = Tokenizer::load(dir).vocab_size();
    const std::string d = fmt::format("--vocab-size: experiment {}, now {}", have, a.train.vocab_size);
    reconcile(a, {dir, fs::path(a.out) / "runs", fs::path(a.out) / "results"}, dir,
              have == a.train.vocab_size ? std::vector<std::string>{} : std::vector<std::string>{d});
  }
  if (!fs::exists(dir / "tokenizer.model")) {
    std::vector<std::string> args = {"tokenizer", "train", "--corpus", a.train.corpus,
                                     "--vocab-size", std::to_string(a.train.vocab_size),
                                     "--model-type", a.train.tokenizer_type, "--out", dir.string(),
                                     "--threads", std::to_string(threads)};
    if (a.train.keep_case) args.push_back("--keep-case");
    if (a.train.strict) args.push_back("--strict");
    const Job job{"tokenizer", args, fs::path(a.out) / "logs" / "tokenizer.log"};
    if (!mpi::world().active()) run_jobs({job}, 1);
    else BB_CHECK(run_job_in_process(job) == JobResult::ok, "the tokenizer failed (log: {})",
                  job.log.string());
  }
  return Tokenizer::load(dir);
}

struct Grid {
  std::vector<Job> train, probe;
  std::vector<int> probe_after;      // [probe job] the train job it needs (-1: trained before)
  std::vector<fs::path> train_logs;  // [train job] its log (progress lines "N/M steps")
  std::vector<int64_t> train_start;  // [train job] the step it starts (resumes) from
  std::vector<std::uintmax_t> train_log_from;  // [train job] its log's size before this job
  int64_t steps_before = 0;          // steps already trained when this invocation started
  size_t runs = 0;                   // (attention, seed) runs in the grid
  std::vector<fs::path> results;
  std::vector<std::pair<fs::path, ojson>> new_results;  // settings file to write once probed
};

// One run (attention, seed): train it unless finished, probe it unless its result is current.
void add_run(const ExperimentArgs& a, const AttentionVariant& att, int seed,
             const std::string& corpus_sha, const Tokenizer& tok, Grid& g) {
  const fs::path out = a.out;
  const std::string name = fmt::format("{}-seed{}", att.run_name, seed);
  const fs::path run = out / "runs" / name;
  // One result per --method: results/NAME.json for the first, NAME.METHOD.json for the others.
  const std::vector<std::string> methods = split_list(a.method, "--method");
  std::vector<fs::path> results, result_settings;
  for (size_t k = 0; k < methods.size(); ++k) {
    const std::string stem = k == 0 ? name : name + "." + methods[k];
    results.push_back(out / "results" / (stem + ".json"));
    result_settings.push_back(out / "results" / (stem + ".settings.json"));
  }
  TrainArgs r = a.train;  // this run: the grid's flags, its function, values and seed
  r.attention = std::string(attention_function_name(att.function));
  r.head_values = att.values;
  r.seed = uint64_t(seed);
  r.out = run.string();
  r.tokenizer = (out / "tokenizer").string();
  if (r.probe_every > 0) r.probe_suite = a.suite;  // learning curves on the grid's suite
  r.resume = false, r.extend_to = 0;
  const int64_t extend_to = a.train.extend_to, target = a.target();
  // A run without a checkpoint starts over (train rewrites its run.json): nothing to reconcile.
  const auto saved = finished_step(run) >= 0 ? read_run_settings(run) : std::nullopt;
  // Until run.json records an extension, the run is compared with the run it extends.
  const bool extended = saved && extend_to > 0 && saved->value("--steps", int64_t(0)) == extend_to;
  const std::string tok_sha = tok.fingerprint();
  const ojson train_s = run_settings_at(r, extended ? extend_to : r.steps, corpus_sha, tok_sha, saved);
  if (saved) {
    std::vector<fs::path> stale = {run, out / "logs" / (name + ".log")};
    stale.insert(stale.end(), results.begin(), results.end());
    stale.insert(stale.end(), result_settings.begin(), result_settings.end());
    reconcile(a, stale, run, settings_differences(*saved, train_s, "this run"));
  }
  const int64_t done = finished_step(run);  // (after --force removed it: none)
  // What the results depend on: the run as trained (extended, however it got there).
  const ojson trained_s = run_settings_at(r, target, corpus_sha, tok_sha, saved);
  TrainArgs job = r;
  if (extend_to > 0 && done >= 0) job.extend_to = extend_to;  // from where its decay began
  else job.steps = target;  // (a new run of an extended grid: directly, with the first warmup)
  job.resume = done >= 0;
  const std::vector<std::string> args = to_args(job);
  ++g.runs;
  g.steps_before += std::max<int64_t>(0, done);
  const int train_job = done < target ? int(g.train.size()) : -1;
  if (done < target) {
    if (done >= 0)
      fmt::print(stderr, "experiment: resuming {} from step {} of {}\n", name, done, target);
    g.train.push_back({"train " + name, args, out / "logs" / (name + ".log")});
    g.train_logs.push_back(out / "logs" / (name + ".log"));
    g.train_start.push_back(std::max<int64_t>(0, done));
    std::error_code ec;  // the log of an earlier session: its lines are not this job's progress
    const std::uintmax_t size = fs::file_size(g.train_logs.back(), ec);
    g.train_log_from.push_back(ec ? 0 : size);
  }
  for (size_t k = 0; k < methods.size(); ++k) {
    const fs::path& result = results[k];
    const ojson probe_s = probe_settings(a, methods[k], trained_s);
    if (extend_to > 0 && !extended) {
      // probed before the extension: redone below
    } else if (fs::exists(result_settings[k]))
      reconcile(a, {result, result_settings[k]}, result,
                settings_differences(ojson(read_json_file(result_settings[k])), probe_s, "result"));
    else if (fs::exists(result))  // a result without its settings cannot be trusted
      reconcile(a, {result}, result,
                {"results/" + result_settings[k].filename().string() + ": missing"});
    g.results.push_back(result);
    if (done < target || !fs::exists(result)) {
      fs::remove(result_settings[k]);
      g.new_results.push_back({result_settings[k], probe_s});
      const std::string tag = k == 0 ? name : name + " " + methods[k];
      g.probe.push_back({"probe " + tag,
                         {"probe", "--model", run.string(), "--suite", a.suite, "--method",
                          methods[k], "--threads", std::to_string(a.train.threads), "--device",
                          a.train.device, "--pairs-per-paradigm", std::to_string(a.pairs_per_paradigm),
                          "--out", result.string()},
                         out / "logs" / (result.stem().string() + ".probe.log")});
      g.probe_after.push_back(train_job);
    }
  }
}

// The step a training run last reported in its log ("N/M steps" progress lines; at most its last
// 4 KiB after byte `from`, where this job's output starts), or `fallback` before its first line.
int64_t logged_step(const fs::path& log, std::uintmax_t from, int64_t fallback) {
  std::ifstream in(log, std::ios::binary | std::ios::ate);
  if (!in) return fallback;
  const std::streamoff size = in.tellg();
  in.seekg(std::max<std::streamoff>(std::streamoff(from), size - 4096));
  std::string tail((std::istreambuf_iterator<char>(in)), std::istreambuf_iterator<char>());
  int64_t step = fallback;
  static const std::regex progress_line(R"((\d+)/\d+ steps)");
  for (std::sregex_iterator it(tail.begin(), tail.end(), progress_line), end; it != end; ++it)
    step = std::stoll((*it)[1].str());
  return step;
}

// The grid's training progress: runs finished, steps done of the total, and the rate and ETA of
// this invocation's steps.
JobsStatus training_status(const Grid& g, size_t runs, int64_t steps_per_run) {
  const auto t0 = std::chrono::steady_clock::now();
  const int64_t total = steps_per_run * int64_t(runs);
  auto latest = std::make_shared<std::vector<int64_t>>(g.train_start);  // never goes back
  return [&g, runs, total, t0, latest](size_t finished) {
    int64_t done = g.steps_before;
    for (size_t j = 0; j < g.train_logs.size(); ++j) {
      int64_t& step = (*latest)[j];
      step = std::max(step, logged_step(g.train_logs[j], g.train_log_from[j], step));
      done += step - g.train_start[j];
    }
    done = std::min(done, total);
    const double s = std::chrono::duration<double>(std::chrono::steady_clock::now() - t0).count();
    const double rate = s > 0 ? double(done - g.steps_before) / s : 0;
    return fmt::format("grid: {}/{} runs trained, {}/{} steps ({:.0f}%), {:.1f} steps/s, ETA {}",
                       runs - g.train.size() + finished, runs, done, total,
                       100.0 * double(done) / double(std::max<int64_t>(1, total)), rate,
                       rate > 0 ? Progress::format_time(double(total - done) / rate) : "-");
  };
}

void run_experiment(ExperimentArgs a) {
  stop_gracefully(Trainer::stop_requested);  // Ctrl-C, SIGTERM: running jobs save, exit 130
  const mpi::World& world = mpi::world();  // under mpirun/srun: ranks share the grid
  if (world.active() && world.rank != 0) return serve_jobs();
  const TrainArgs& t = a.train;
  usable_device(t.device);  // fail before any child process starts: device, names, files
  const std::vector<AttentionVariant> variants =
      parse_attention_variants(a.attention, "--attention", t.head_values);
  BB_CHECK(a.first_seed <= a.seeds, "--first-seed {} is above --seeds {}: no seed to run",
           a.first_seed, a.seeds);
  for (const auto& m : split_list(a.method, "--method")) parse_method(m);
  BB_CHECK(t.extend_to == 0 || t.optim.schedule != Schedule::linear,
           "--extend-to: the linear schedule decays to 0 at --steps, so its runs cannot be "
           "extended honestly; use --schedule wsd --decay-steps D (or constant) for runs to extend");
  BB_CHECK(t.extend_to == 0 || t.extend_to > t.steps,
           "--extend-to {} is not beyond --steps {} (keep the grid's --steps; --extend-to is the "
           "new total)", t.extend_to, t.steps);
  check_schedule(t);
  BB_CHECK(t.probe_every == 0 || t.probe_every % t.eval_every == 0,
           "--probe-every {} must be a multiple of --eval-every ({})", t.probe_every, t.eval_every);
  const std::string corpus_sha = sha256_hex(read_file(t.corpus));
  const auto t0 = std::chrono::steady_clock::now();
  const fs::path out = a.out;
  const DirLock lock(out);  // one experiment per directory; its runs lock their own
  const int cores = available_cores();
  if (world.active()) a.jobs = 1;  // per rank; mpirun -np and the hostfile place the ranks
  else if (a.jobs == 0) a.jobs = std::max(1, cores / t.threads);  // all cores, runs side by side
  if (!world.active() && a.jobs * t.threads > cores)
    fmt::print(stderr, "babyberta: warning: --jobs {} x --threads {} = {} threads on {} cores; runs "
               "will slow each other down\n", a.jobs, t.threads, a.jobs * t.threads, cores);
  const Tokenizer tok = experiment_tokenizer(a, t.threads * a.jobs);
  Grid g;
  for (const AttentionVariant& att : variants)
    for (int seed = a.first_seed; seed <= a.seeds; ++seed) add_run(a, att, seed, corpus_sha, tok, g);
  fmt::print(stderr, "experiment {}: {} runs to train, {} to probe ({} at a time, {} thread{} each)\n",
             out.string(), g.train.size(), g.probe.size(),
             world.active() ? fmt::format("{} MPI ranks", world.size) : std::to_string(a.jobs),
             t.threads, t.threads == 1 ? "" : "s");
  if (world.active()) {  // one list: a run's probes may start as soon as it is trained
    std::vector<Job> jobs = g.train;
    jobs.insert(jobs.end(), g.probe.begin(), g.probe.end());
    std::vector<int> after(g.train.size(), -1);
    after.insert(after.end(), g.probe_after.begin(), g.probe_after.end());
    run_jobs_on_ranks(jobs, after, training_status(g, g.runs, a.target()), g.train.size());
  } else {
    run_jobs(g.train, a.jobs, training_status(g, g.runs, a.target()));
    run_jobs(g.probe, a.jobs, count_status("probes done", g.probe.size()));
  }
  for (const auto& [path, settings] : g.new_results)  // each new result: the settings that made it
    write_file_atomic(path, settings.dump(2) + "\n");
  // n-gram references (seconds each): counted again every time, so they follow the corpus.
  std::vector<Job> references;
  for (const std::string& order : a.baselines.empty() ? std::vector<std::string>{}
                                                      : split_list(a.baselines, "--baselines")) {
    const fs::path result = out / "results" / fmt::format("ngram-{}.json", order);
    references.push_back({"baseline order " + order,
                          {"baseline", "--corpus", t.corpus, "--order", order, "--unit", "word",
                           "--suite", a.suite, "--out", result.string()},
                          out / "logs" / fmt::format("ngram-{}.log", order)});
    g.results.push_back(result);
  }
  if (!references.empty()) {
    if (world.active())
      for (const Job& j : references)
        BB_CHECK(run_job_in_process(j) == JobResult::ok, "{} failed (log: {})", j.name, j.log.string());
    else
      run_jobs(references, a.jobs, count_status("references counted", references.size()));
  }
  // Compared with softmax where the grid has it, else with its first variant.
  const std::string softmax = attention_function_name(AttentionFunction::softmax);
  const bool has_softmax = std::any_of(variants.begin(), variants.end(),
                                       [&](const AttentionVariant& v) { return v.label == softmax; });
  const Comparison c = compare_runs(load_runs(g.results), 1000, 1,
                                    has_softmax ? softmax : variants.front().label);
  write_report(out / "report", c);
  print_phenomena(c);
  const double s = std::chrono::duration<double>(std::chrono::steady_clock::now() - t0).count();
  fmt::print("\nreport: {}/report/report.md (this invocation: {:.0f} s)\n", out.string(), s);
}

}  // namespace

void add_experiment(CLI::App& app) {
  auto* cmd = app.add_subcommand("experiment",
                                 "Train (attention x seed), probe each, compare; resumable");
  auto a = std::make_shared<ExperimentArgs>();
  cmd->add_option("--suite", a->suite, "Probing suite (directory or file)")->required();
  cmd->add_option("--out", a->out, "Experiment directory")->required();
  cmd->add_option("--attention", a->attention,
                  "Comma-separated list of " + attention_function_help() +
                      "; a variant sets or freezes trainable values: NAME(KEY=VALUE[ frozen], ...), "
                      "e.g. 'softmax,ssa,ssa(n=1.5 frozen)' (runs ssa-n1.5-frozen-seedK)")
      ->check(attention_variant_list())
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
                  "Probe scoring method(s), comma-separated (holistic, pll, pll-word-l2r): "
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
  // Every train flag but the grid's own applies to every run (one table: cli/train_flags.h).
  add_train_options(cmd, a->train, kGridFlags);
  cmd->callback([a, cmd] {
    apply_recipe(a->train, *cmd);
    run_experiment(*a);
  });
}

}  // namespace bb::cli
