// babyberta experiment: trains every (attention, seed), probes each, and compares. Resumable:
// finished runs and probes are skipped, interrupted runs resume. With --jobs 2 two runs go at a
// time, each a child process with its own threads.
#include <fmt/core.h>
#include <fmt/format.h>
#include <spawn.h>
#include <sys/wait.h>
#include <unistd.h>

#include <fcntl.h>

#include <chrono>
#include <cstring>
#include <filesystem>

#include "backend/device.h"
#include "cli/commands.h"
#include "common/error.h"
#include "common/files.h"
#include "encoder/checkpoint.h"
#include "probing/compare.h"

extern char** environ;

namespace bb::cli {

namespace fs = std::filesystem;

namespace {

struct ExperimentArgs {
  std::string corpus, suite, out, attention = "softmax,ssa", preset = "babyberta";
  std::string method = "holistic", device = "cpu";
  int seeds = 3, jobs = 1, threads = 1, vocab_size = 8192, pairs_per_paradigm = 0;
  int64_t steps = 10000, eval_every = 1000, warmup_steps = -1;
  double lr = 1e-4;
};

struct Job {
  std::string name;
  std::vector<std::string> args;  // after the program name
  fs::path log;
};

// Runs jobs as child processes of this binary, at most `parallel` at a time.
void run_jobs(const std::vector<Job>& jobs, int parallel) {
  const std::string self = fs::read_symlink("/proc/self/exe").string();
  std::vector<std::pair<pid_t, const Job*>> running;
  std::vector<std::string> failed;
  auto reap = [&] {
    int status = 0;
    const pid_t pid = wait(&status);
    for (size_t i = 0; i < running.size(); ++i)
      if (running[i].first == pid) {
        const bool ok = WIFEXITED(status) && WEXITSTATUS(status) == 0;
        fmt::print(stderr, "  {} {}\n", ok ? "finished" : "FAILED  ", running[i].second->name);
        if (!ok) failed.push_back(running[i].second->name + " (log: " + running[i].second->log.string() + ")");
        running.erase(running.begin() + long(i));
        return;
      }
  };
  for (const Job& j : jobs) {
    while (int(running.size()) >= parallel) reap();
    fs::create_directories(j.log.parent_path());
    std::vector<std::string> argv_s = {self};
    argv_s.insert(argv_s.end(), j.args.begin(), j.args.end());
    std::vector<char*> argv;
    for (auto& s : argv_s) argv.push_back(s.data());
    argv.push_back(nullptr);
    posix_spawn_file_actions_t fa;
    posix_spawn_file_actions_init(&fa);
    posix_spawn_file_actions_addopen(&fa, 1, j.log.c_str(), O_WRONLY | O_CREAT | O_APPEND, 0644);
    posix_spawn_file_actions_adddup2(&fa, 1, 2);
    pid_t pid;
    const int rc = posix_spawn(&pid, self.c_str(), &fa, nullptr, argv.data(), environ);
    posix_spawn_file_actions_destroy(&fa);
    BB_CHECK(rc == 0, "cannot start {}: {}", j.name, std::strerror(rc));
    fmt::print(stderr, "  started  {} (log: {})\n", j.name, j.log.string());
    running.push_back({pid, &j});
  }
  while (!running.empty()) reap();
  BB_CHECK(failed.empty(), "{} job(s) failed: {}", failed.size(), fmt::join(failed, "; "));
}

int64_t finished_step(const fs::path& run) {
  const auto last = latest_checkpoint(run);
  if (!last) return -1;
  return nlohmann::json::parse(read_file(*last / "trainer_state.json"))["step"].get<int64_t>();
}

void run_experiment(const ExperimentArgs& a) {
  usable_device(a.device);  // fail before any child process starts
  const auto t0 = std::chrono::steady_clock::now();
  const fs::path out = a.out;
  fs::create_directories(out);
  std::vector<std::string> attentions;
  for (size_t pos = 0; pos <= a.attention.size();) {
    const size_t comma = std::min(a.attention.find(',', pos), a.attention.size());
    attentions.push_back(a.attention.substr(pos, comma - pos));
    pos = comma + 1;
  }
  const int threads = std::max(1, a.threads);
  if (!fs::exists(out / "tokenizer" / "tokenizer.model"))
    run_jobs({{"tokenizer", {"tokenizer", "train", "--corpus", a.corpus, "--vocab-size",
                             std::to_string(a.vocab_size), "--out", (out / "tokenizer").string(),
                             "--threads", std::to_string(threads * a.jobs)},
               out / "logs" / "tokenizer.log"}},
             1);
  std::vector<Job> train, probe;
  std::vector<fs::path> results;
  for (const auto& att : attentions)
    for (int seed = 1; seed <= a.seeds; ++seed) {
      const std::string name = fmt::format("{}-seed{}", att, seed);
      const fs::path run = out / "runs" / name;
      const int64_t done = finished_step(run);
      if (done < a.steps) {
        std::vector<std::string> args = {
            "train", "--corpus", a.corpus, "--attention", att, "--preset", a.preset,
            "--steps", std::to_string(a.steps), "--seed", std::to_string(seed),
            "--threads", std::to_string(threads), "--eval-every", std::to_string(a.eval_every),
            "--warmup-steps", std::to_string(a.warmup_steps), "--lr", fmt::format("{}", a.lr),
            "--tokenizer", (out / "tokenizer").string(), "--device", a.device,
            "--out", run.string()};
        if (done >= 0) args.push_back("--resume");
        train.push_back({"train " + name, args, out / "logs" / (name + ".log")});
      }
      const fs::path result = out / "results" / (name + ".json");
      results.push_back(result);
      if (done < a.steps || !fs::exists(result))
        probe.push_back({"probe " + name,
                         {"probe", "--model", run.string(), "--suite", a.suite, "--method",
                          a.method, "--threads", std::to_string(threads), "--device", a.device,
                          "--pairs-per-paradigm",
                          std::to_string(a.pairs_per_paradigm), "--out", result.string()},
                         out / "logs" / (name + ".probe.log")});
    }
  fmt::print(stderr, "experiment {}: {} runs to train, {} to probe\n", out.string(), train.size(),
             probe.size());
  run_jobs(train, a.jobs);
  run_jobs(probe, a.jobs);
  const Comparison c = compare_runs(load_runs(results));
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
  cmd->add_option("--corpus", a->corpus, "Training corpus")->required();
  cmd->add_option("--suite", a->suite, "Probing suite (directory or file)")->required();
  cmd->add_option("--out", a->out, "Experiment directory")->required();
  cmd->add_option("--attention", a->attention, "Comma-separated scoring functions")
      ->capture_default_str();
  cmd->add_option("--seeds", a->seeds, "Seeds per attention function (1..K)")->capture_default_str();
  cmd->add_option("--preset", a->preset, "Model size")->capture_default_str();
  cmd->add_option("--steps", a->steps, "Training steps per run")->capture_default_str();
  cmd->add_option("--eval-every", a->eval_every, "Dev loss and checkpoint interval")
      ->capture_default_str();
  cmd->add_option("--warmup-steps", a->warmup_steps, "Warmup (-1: min(24000, steps/10))")
      ->capture_default_str();
  cmd->add_option("--lr", a->lr, "Peak learning rate")->capture_default_str();
  cmd->add_option("--vocab-size", a->vocab_size, "Tokenizer vocabulary")->capture_default_str();
  cmd->add_option("--method", a->method, "Probe scoring method")->capture_default_str();
  cmd->add_option("--jobs", a->jobs, "Runs at a time (child processes)")->capture_default_str();
  cmd->add_option("--pairs-per-paradigm", a->pairs_per_paradigm,
                  "Probe only the first N pairs of each paradigm (0: all)")->capture_default_str();
  cmd->add_option("--threads", a->threads, "Threads per job")->capture_default_str();
  cmd->add_option("--device", a->device, "cpu or cuda, for every run")->capture_default_str();
  cmd->callback([a] { run_experiment(*a); });
}

}  // namespace bb::cli
