#include "runs/experiment_grid.h"

#include <fmt/core.h>
#include <fmt/format.h>

#include <algorithm>
#include <chrono>
#include <fstream>
#include <memory>
#include <optional>
#include <regex>

#include "common/error.h"
#include "common/flag_names.h"
#include "common/json_read.h"
#include "encoder/checkpoint.h"
#include "parallel/mpi.h"
#include "runs/progress.h"
#include "runs/rank_jobs.h"
#include "runs/run_settings.h"
#include "common/split_list.h"
#include "runs/train_run.h"

namespace bb {

namespace fs = std::filesystem;
using ojson = nlohmann::ordered_json;

namespace {

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
    usage_fail("{}: made with other settings ({}); choose a new --out or pass --force to redo it",
         what.string(), fmt::join(diff, "; "));
  fmt::print(stderr, "experiment: --force: redoing {} ({})\n", what.string(), fmt::join(diff, "; "));
  for (const fs::path& p : stale) fs::remove_all(p);
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

}  // namespace

Tokenizer experiment_tokenizer(const ExperimentArgs& a, int threads) {
  const fs::path dir = fs::path(a.out) / "tokenizer";
  if (fs::exists(dir / "tokenizer.model")) {
    const int have = Tokenizer::load(dir).vocab_size();
    const std::string d = fmt::format("--vocab-size: experiment {}, now {}", have, a.train.vocab_size);
    reconcile(a, {dir, fs::path(a.out) / "runs", fs::path(a.out) / "results"}, dir,
              have == a.train.vocab_size ? std::vector<std::string>{} : std::vector<std::string>{d});
  }
  if (!fs::exists(dir / "tokenizer.model")) {
    std::vector<std::string> args = {"tokenizer", "train", flag_name::corpus, a.train.corpus,
                                     flag_name::vocab_size, std::to_string(a.train.vocab_size),
                                     "--model-type", a.train.tokenizer_type, flag_name::out, dir.string(),
                                     flag_name::threads, std::to_string(threads)};
    if (a.train.keep_case) args.push_back(flag_name::keep_case);
    if (a.train.strict) args.push_back(flag_name::strict);
    const Job job{"tokenizer", args, fs::path(a.out) / "logs" / "tokenizer.log"};
    if (!mpi::world().active()) run_jobs({job}, 1);
    else BB_CHECK(run_job_in_process(job) == JobResult::ok, "the tokenizer failed (log: {})",
                  job.log.string());
  }
  return Tokenizer::load(dir);
}

void add_run(const ExperimentArgs& a, const std::string& kind, const AttentionVariant& att,
             int seed, const std::string& corpus_sha, const Tokenizer& tok, Grid& g) {
  const fs::path out = a.out;
  // roberta runs keep the names they had before kinds (FUNCTION-seedK); gpt2-FUNCTION-seedK
  const std::string prefix = kind == "roberta" ? "" : kind + "-";
  const std::string name = fmt::format("{}{}-seed{}", prefix, att.run_name, seed);
  const fs::path run = out / "runs" / name;
  // One result per method of this kind: results/NAME.json for the first, NAME.METHOD.json for
  // the others.
  const std::vector<std::string> methods = methods_for_kind(a.method, kind);
  std::vector<fs::path> results, result_settings;
  for (size_t k = 0; k < methods.size(); ++k) {
    const std::string stem = k == 0 ? name : name + "." + methods[k];
    results.push_back(out / "results" / (stem + ".json"));
    result_settings.push_back(out / "results" / (stem + ".settings.json"));
  }
  TrainArgs r = a.train;  // this run: the grid's flags, its kind, function, values and seed
  r.kind = kind;
  r.attention = std::string(attention_function_name(att.function));
  // The run's own function's values; every other function's at its defaults (a value of another
  // function has no effect on this run, and train refuses its flag).
  r.head_values = default_head_value_settings();
  r.head_values[size_t(att.function)] = att.values[size_t(att.function)];
  r.seed = uint64_t(seed);
  r.out = run.string();
  r.tokenizer = (out / "tokenizer").string();
  if (r.probe_every > 0) r.probe_suite = a.suite;  // learning curves on the grid's suite
  r.resume = false, r.extend_to = 0;
  const int64_t extend_to = a.train.extend_to, target = a.target();
  // A run without a checkpoint starts over (train rewrites its run.json): nothing to reconcile.
  const auto saved = finished_step(run) >= 0 ? read_run_settings(run) : std::nullopt;
  // Until run.json records an extension, the run is compared with the run it extends.
  const bool extended = saved && extend_to > 0 && saved->value(flag_name::steps, int64_t(0)) == extend_to;
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
                          methods[k], flag_name::threads, std::to_string(a.train.threads), flag_name::device,
                          a.train.device, "--pairs-per-paradigm", std::to_string(a.pairs_per_paradigm),
                          flag_name::out, result.string()},
                         out / "logs" / (result.stem().string() + ".probe.log")});
      g.probe_after.push_back(train_job);
    }
  }
}

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

}  // namespace bb
