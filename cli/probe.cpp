#include "cli/probe.h"
#include "cli/run_settings.h"

#include <fmt/core.h>
#include <unistd.h>

#include <chrono>
#include <ctime>

#include "cli/commands.h"
#include "backend/frozen_linear.h"
#include "cli/flag_ranges.h"
#include "common/error.h"
#include "common/files.h"
#include "cli/progress.h"
#include "backend/threads.h"
#include "encoder/checkpoint.h"
#include "git_revision.h"

namespace bb::cli {

namespace fs = std::filesystem;
using json = nlohmann::json;

static std::string utc_now() {
  const std::time_t t = std::time(nullptr);
  char buf[32];
  std::strftime(buf, sizeof buf, "%Y-%m-%dT%H:%M:%SZ", std::gmtime(&t));
  return buf;
}

json result_header(const ResultHeader& r) {
  json files = json::array();
  for (const SuiteFile& f : r.suite.files) {
    json file{{"file", f.path.filename().string()}, {"sha256", f.sha256}};
    if (!f.header.empty()) file["header"] = f.header;
    files.push_back(std::move(file));
  }
  json suites = json::array();
  for (const fs::path& p : r.suites) suites.push_back(fs::absolute(p).string());
  return {{"model", r.model},
          {"config", r.config},
          {"method", r.method},
          {"tie_rule", tie_rule_name(r.ties)},
          {"suite", suites.size() == 1 ? suites[0] : suites},
          {"pairs_per_paradigm", r.pairs_per_paradigm > 0 ? json(r.pairs_per_paradigm)
                                                          : json("all")},
          {"provenance",
           {{"git_revision", BB_GIT_REVISION},
            {"suite_files", files},
            {"threads", r.threads},
            {"date", utc_now()},
            {"seconds", r.seconds},
            {"sentences_per_s", double(r.sentences) / r.seconds}}}};
}

namespace {

std::vector<fs::path> suite_paths(const ProbeArgs& a) {
  if (a.suites.empty()) return {fs::path(a.suite)};
  return {a.suites.begin(), a.suites.end()};
}

// F.json's header: model, config, method, tie rule, suite(s), provenance.
json probe_header(const ProbeArgs& a, const Scorer& scorer, const Suite& suite, Method method,
                  TieRule ties, const Device device, const Progress& progress, size_t sentences) {
  const Config& c = scorer.config();
  json cfg = to_json(c);
  cfg["label"] = c.label();
  if (auto last = latest_checkpoint(a.model)) {
    const TrainerState ts = read_trainer_state(*last);
    cfg["steps"] = ts.step;
    cfg["seed"] = ts.seed;
  }
  json h = result_header(
      {.model = fs::absolute(a.model).string(), .config = cfg, .method = method_name(method),
       .ties = ties, .suites = suite_paths(a), .suite = suite,
       .pairs_per_paradigm = a.pairs_per_paradigm, .threads = a.threads,
       .seconds = progress.seconds(), .sentences = sentences});
  // How the model was trained, from its run's run.json (a step directory's run is two levels up):
  // the settings, and the corpus path of the last training session.
  json training = nullptr;
  for (const fs::path& run : {fs::path(a.model), fs::path(a.model).parent_path().parent_path()})
    if (training.is_null())
      if (const auto record = read_run_record(run)) {
        training = json::parse((*record)["settings"].dump());
        const auto& sessions = (*record)["sessions"];
        if (sessions.is_array() && !sessions.empty() && sessions.back().contains("corpus"))
          training["corpus"] = sessions.back()["corpus"];
      }
  h["reduction"] = reduction_name(a.reduction.empty() ? default_reduction(method)
                                                      : parse_reduction(a.reduction));
  h["training"] = training;
  h["provenance"]["device"] = device_label(device);
  h["provenance"]["cpu_linear"] = ops::frozen_linear_backend();
  return h;
}

}  // namespace

ProbeSummary run_probe(const ProbeArgs& a) {
  set_threads(a.threads);
  const Method method = parse_method(a.method);
  const Reduction reduction =
      a.reduction.empty() ? default_reduction(method) : parse_reduction(a.reduction);
  const TieRule ties = parse_tie_rule(a.tie_rule);
  BB_CHECK(a.order == "bad-first" || a.order == "good-first",
           "unknown pair order '{}' (expected bad-first or good-first)", a.order);
  const SuiteFormat format = parse_suite_format(a.format);
  BB_CHECK(!(a.header && a.no_header), "--header and --no-header contradict each other");
  const HeaderRule header = a.header      ? HeaderRule::present
                            : a.no_header ? HeaderRule::absent
                                          : HeaderRule::detect;
  const Device device = usable_device(a.device);
  Scorer scorer(a.model, a.batch_tokens, device);  // first: a mistyped --model is named first
  if (!a.out.empty()) check_results_writable(a.out);  // fail before any scoring
  Suite suite = load_suites(
      suite_paths(a), {.order = a.order == "bad-first" ? PairOrder::bad_first : PairOrder::good_first,
                       .format = format,
                       .header = header});
  if (!a.quiet)
    for (const std::string& note : suite.notes) fmt::print(stderr, "babyberta: note: {}\n", note);
  if (a.pairs_per_paradigm > 0)
    std::erase_if(suite.pairs, [&](const MinimalPair& p) { return p.index >= a.pairs_per_paradigm; });
  std::vector<std::string> sentences;
  for (const MinimalPair& p : suite.pairs) sentences.push_back(p.good);
  for (const MinimalPair& p : suite.pairs) sentences.push_back(p.bad);
  Progress progress(int64_t(sentences.size()), "sentences", 10000);
  const auto scores = scorer.score(sentences, method, [&](int64_t done) {
    if (!a.quiet) progress.update(done, method_name(method));
  });
  if (!a.quiet) progress.finish();
  std::vector<double> good, bad;
  for (size_t i = 0; i < suite.pairs.size(); ++i) {
    good.push_back(reduce_logprobs(scores[i].logprobs, method, reduction));
    bad.push_back(reduce_logprobs(scores[suite.pairs.size() + i].logprobs, method, reduction));
  }
  const ProbeSummary s = summarize(suite, good, bad, method, ties);
  if (!a.out.empty())
    write_probe_results(a.out, probe_header(a, scorer, suite, method, ties, device, progress,
                                            sentences.size()), s);
  return s;
}

void print_probe_table(const ProbeSummary& s) {
  fmt::print("{:<58} {:>8} {:>6} {:>5}\n", "paradigm", "accuracy", "pairs", "ties");
  for (auto& [name, v] : s.paradigms.items())
    fmt::print("{:<58} {:>8.1f} {:>6} {:>5}\n", name, v["accuracy"].get<double>(),
               v["pairs"].get<int>(), v["ties"].get<int>());
  fmt::print("\n{:<58} {:>8}\n", "phenomenon", "accuracy");
  for (auto& [name, v] : s.phenomena.items())
    fmt::print("{:<58} {:>8.1f}\n", name, v.get<double>());
  fmt::print("\noverall (mean over paradigms) {:.1f}, mean over phenomena {:.1f}\n", s.overall,
             s.overall_by_phenomenon);
}

void add_probe(CLI::App& app) {
  auto* cmd = app.add_subcommand("probe", "Score a minimal-pair suite (Zorro, BLiMP, TSV)");
  auto a = std::make_shared<ProbeArgs>();
  cmd->add_option("--model", a->model, "Model directory")->required();
  cmd->add_option("--suite", a->suites,
                  "Suite directory or file (.txt Zorro, .jsonl BLiMP, .tsv or .csv pairs); repeat "
                  "for several")
      ->required();
  auto* header = cmd->add_flag("--header", a->header,
                               "The first row of each .tsv/.csv names its columns (default: "
                               "detected, a first row naming good and bad columns is a header)");
  cmd->add_flag("--no-header", a->no_header,
                "The first row of each .tsv/.csv is a pair (good, bad[, paradigm])")
      ->excludes(header);
  cmd->add_option("--format", a->format, "Suite format: auto (by extension; a .txt must be "
                  "phenomenon-paradigm.txt of at most 20,000 lines) or zorro (any file)")
      ->check(CLI::IsMember({"auto", "zorro"}))
      ->capture_default_str();
  cmd->add_option("--out", a->out, "Results JSON (a .pairs.jsonl is written next to it)")
      ->required();
  cmd->add_option("--method", a->method, "holistic, pll or pll-word-l2r")
      ->check(one_of("scoring method", method_names()))
      ->capture_default_str();
  cmd->add_option("--reduction", a->reduction,
                  "sum or mean over the scored tokens (default: holistic mean, pll sum)")
      ->check(one_of("reduction", {"sum", "mean"}));
  cmd->add_option("--tie-rule", a->tie_rule, "A tie counts as: half or wrong")
      ->capture_default_str();
  cmd->add_option("--order", a->order, "Zorro pair order: bad-first (odd lines ungrammatical) "
                                       "or good-first")->capture_default_str();
  cmd->add_option("--threads", a->threads, "Compute threads")
      ->transform(thread_count())
      ->capture_default_str();
  cmd->add_option("--device", a->device, "cpu or cuda")->capture_default_str();
  cmd->add_option("--pairs-per-paradigm", a->pairs_per_paradigm,
                  "Score only the first N pairs of each paradigm (0: all; 0 to 1,000,000,000)")
      ->check(count_in(0, 1000000000))
      ->capture_default_str();
  cmd->add_option("--batch-tokens", a->batch_tokens,
                  "Tokens per scoring batch (0: 512 on the CPU, 8,192 on CUDA; 0 to 65,536)")
      ->check(count_in(0, 65536))
      ->capture_default_str();
  cmd->callback([a] { print_probe_table(run_probe(*a)); });
}

}  // namespace bb::cli
