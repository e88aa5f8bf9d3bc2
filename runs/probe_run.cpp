#include "runs/probe_run.h"

#include <fmt/core.h>
#include <unistd.h>

#include "backend/frozen_linear.h"
#include "common/error.h"
#include "common/files.h"
#include "runs/progress.h"
#include "runs/provenance.h"
#include "runs/run_settings.h"
#include "backend/threads.h"
#include "encoder/checkpoint.h"
#include "encoder/config_keys.h"
#include "models/model_kind.h"

namespace bb {

namespace fs = std::filesystem;
using json = nlohmann::json;

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
           {{"git_revision", build_revision()},
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
  // reports group runs by it: the function's label, with the kind for a causal LM ("gpt2 ssa")
  cfg["label"] = c.kind == ModelKind::roberta
                     ? c.label()
                     : std::string(config_keys(c.kind).model_type) + " " + c.label();
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
  if (scorer.precision() == Precision::bf16) {  // fp32 results (the default) say nothing, as before
    h["precision"] = precision_name(Precision::bf16);
    h["provenance"]["bf16_kernel"] = bf16_kernel();
  }
  return h;
}

}  // namespace

ProbeSummary run_probe(const ProbeArgs& a) {
  set_threads(a.threads);
  if (!a.method.empty()) parse_method(a.method);  // an unknown name before anything else
  const TieRule ties = parse_tie_rule(a.tie_rule);
  BB_CHECK(a.order == "bad-first" || a.order == "good-first",
           "unknown pair order '{}' (expected bad-first or good-first)", a.order);
  const SuiteFormat format = parse_suite_format(a.format);
  BB_CHECK(!(a.header && a.no_header), "--header and --no-header contradict each other");
  const HeaderRule header = a.header      ? HeaderRule::present
                            : a.no_header ? HeaderRule::absent
                                          : HeaderRule::detect;
  const Device device = usable_device(a.device);
  const Precision precision = parse_precision(a.precision);
  require_precision(precision, device);  // before any work
  // a model of another kind: exit 2, named; then its kind's methods
  const ModelKind kind = require_model_kind(a.model, ModelCommand::probe).kind;
  const Method method = method_for(a.method, kind, "probe");
  const Reduction reduction =
      a.reduction.empty() ? default_reduction(method) : parse_reduction(a.reduction);
  Scorer scorer(a.model, a.batch_tokens, device);  // first: a mistyped --model is named first
  scorer.set_precision(precision);
  if (!a.out.empty()) {  // fail before any scoring
    std::vector<ReadPath> reads = {{"--model", a.model}};
    for (const fs::path& s : suite_paths(a)) reads.push_back({"--suite", s});
    check_results_writable(a.out, reads);
  }
  Suite suite = load_suites(
      suite_paths(a), {.order = a.order == "bad-first" ? PairOrder::bad_first : PairOrder::good_first,
                       .format = format,
                       .header = header});
  if (!a.quiet)
    for (const std::string& note : suite.notes) fmt::print(stderr, "babyberta: note: {}\n", note);
  if (a.pairs_per_paradigm > 0)
    std::erase_if(suite.pairs, [&](const MinimalPair& p) { return p.index >= a.pairs_per_paradigm; });
  for (const MinimalPair& p : suite.pairs)  // a sentence too long names its file and line
    for (const auto& [sentence, at] : {std::pair{&p.good, &p.good_at}, std::pair{&p.bad, &p.bad_at}})
      check_sentence_to_score(
          *sentence, at->empty() ? fmt::format("{} pair {}", p.paradigm, p.index + 1) : *at,
          scorer.tokenizer(), scorer.config().max_tokens());
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
  ProbeSummary s = summarize(suite, good, bad, method, ties);
  s.notes = suite.notes;
  if (!a.out.empty())
    write_probe_results(a.out, probe_header(a, scorer, suite, method, ties, device, progress,
                                            sentences.size()), s);
  return s;
}

}  // namespace bb
