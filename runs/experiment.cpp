#include "runs/experiment.h"

#include <fmt/core.h>
#include <fmt/format.h>

#include <algorithm>
#include <filesystem>

#include "backend/device.h"
#include "backend/threads.h"
#include "common/dir_lock.h"
#include "common/error.h"
#include "common/files.h"
#include "common/flag_names.h"
#include "common/hash.h"
#include "common/stop_signals.h"
#include "training/stop_request.h"
#include "parallel/mpi.h"
#include "probing/report.h"
#include "encoder/config_keys.h"
#include "probing/scorer.h"
#include "runs/experiment_grid.h"
#include "runs/rank_jobs.h"
#include "common/split_list.h"
#include "runs/train_run.h"

namespace bb {

namespace fs = std::filesystem;

const std::set<std::string>& experiment_grid_flags() {
  static const std::set<std::string> flags = {flag_name::out,      flag_name::attention, flag_name::seed,
                                              flag_name::resume,   flag_name::tokenizer, flag_name::probe_suite,
                                              "--kind"};
  return flags;
}

std::string kind_label(const std::string& kind, const std::string& variant_label) {
  return parse_text_kind(kind) == ModelKind::roberta ? variant_label : kind + " " + variant_label;
}

std::vector<std::string> methods_for_kind(const std::string& methods, const std::string& kind) {
  const ModelKind k = parse_text_kind(kind);
  std::vector<std::string> out;
  for (const std::string& m : split_list(methods, "--method"))
    if (method_kind(parse_method(m)) == k) out.push_back(m);
  if (out.empty()) out.push_back(method_name(default_method(k)));
  return out;
}

namespace {

// Fails, before any work, on flags that cannot make a grid.
void check_experiment(const ExperimentArgs& a) {
  const TrainArgs& t = a.train;
  BB_CHECK(a.first_seed <= a.seeds, "--first-seed {} is above --seeds {}: no seed to run",
           a.first_seed, a.seeds);
  for (const auto& m : split_list(a.method, "--method")) parse_method(m);
  for (const auto& k : split_list(a.kinds, "--kinds")) parse_text_kind(k, "--kinds");
  BB_CHECK(t.extend_to == 0 || t.optim.schedule != Schedule::linear,
           "--extend-to: the linear schedule decays to 0 at --steps, so its runs cannot be "
           "extended honestly; use --schedule wsd --decay-steps D (or constant) for runs to extend");
  BB_CHECK(t.extend_to == 0 || t.extend_to > t.steps,
           "--extend-to {} is not beyond --steps {} (keep the grid's --steps; --extend-to is the "
           "new total)", t.extend_to, t.steps);
  check_schedule(t);
  BB_CHECK(t.probe_every == 0 || t.probe_every % t.eval_every == 0,
           "--probe-every {} must be a multiple of --eval-every ({})", t.probe_every, t.eval_every);
}

// The n-gram references (seconds each): counted again every time, so they follow the corpus.
void count_references(const ExperimentArgs& a, Grid& g) {
  const fs::path out = a.out;
  const mpi::World& world = mpi::world();
  std::vector<Job> references;
  for (const std::string& order : a.baselines.empty() ? std::vector<std::string>{}
                                                      : split_list(a.baselines, "--baselines")) {
    const fs::path result = out / "results" / fmt::format("ngram-{}.json", order);
    references.push_back({"baseline order " + order,
                          {"baseline", flag_name::corpus, a.train.corpus, "--order", order, "--unit", "word",
                           "--suite", a.suite, flag_name::out, result.string()},
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
}

}  // namespace

std::optional<Comparison> run_experiment(ExperimentArgs a) {
  stop_gracefully(training::stop_requested);  // Ctrl-C, SIGTERM: running jobs save, exit 130
  const mpi::World& world = mpi::world();  // under mpirun/srun: ranks share the grid
  if (world.active() && world.rank != 0) {
    serve_jobs();
    return std::nullopt;
  }
  const TrainArgs& t = a.train;
  usable_device(t.device);  // fail before any child process starts: device, names, files
  const std::vector<AttentionVariant> variants =
      parse_attention_variants(a.attention, flag_name::attention, t.head_values);
  check_experiment(a);
  const std::string corpus_sha = sha256_hex(read_file(t.corpus));
  const fs::path out = a.out;
  const DirLock lock(out);  // one experiment per directory; its runs lock their own
  const int cores = available_cores();
  if (world.active()) a.jobs = 1;  // per rank; mpirun -np and the hostfile place the ranks
  else if (a.jobs == 0) a.jobs = std::max(1, cores / t.threads);  // all cores, runs side by side
  if (!world.active() && a.jobs * t.threads > cores)
    fmt::print(stderr, "babyberta: warning: --jobs {} x --threads {} = {} threads on {} cores; runs "
               "will slow each other down\n", a.jobs, t.threads, a.jobs * t.threads, cores);
  const Tokenizer tok = experiment_tokenizer(a, t.threads * a.jobs);
  const std::vector<std::string> kinds = split_list(a.kinds, "--kinds");
  Grid g;
  for (const std::string& kind : kinds)
    for (const AttentionVariant& att : variants)
      for (int seed = a.first_seed; seed <= a.seeds; ++seed)
        add_run(a, kind, att, seed, corpus_sha, tok, g);
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
  count_references(a, g);
  // Compared with the first kind's softmax where the grid has it, else with its first variant.
  const std::string softmax = attention_function_name(AttentionFunction::softmax);
  const bool has_softmax = std::any_of(variants.begin(), variants.end(),
                                       [&](const AttentionVariant& v) { return v.label == softmax; });
  const Comparison c = compare_runs(
      load_runs(g.results), 1000, 1,
      kind_label(kinds.front(), has_softmax ? softmax : variants.front().label));
  write_report(out / "report", c);
  return c;
}

}  // namespace bb
