#include "runs/perplexity_run.h"

#include <fmt/core.h>

#include <chrono>
#include <cmath>
#include <filesystem>
#include <set>
#include <sstream>

#include "backend/precision.h"
#include "backend/threads.h"
#include "common/error.h"
#include "common/files.h"
#include "common/hash.h"
#include "corpora/corpus.h"
#include "encoder/checkpoint.h"
#include "encoder/config_keys.h"
#include "models/model_kind.h"
#include "probing/results.h"
#include "probing/scorer.h"
#include "probing/suite.h"
#include "runs/provenance.h"
#include "training/run_record.h"

namespace bb {

namespace fs = std::filesystem;
using ojson = nlohmann::ordered_json;

namespace {

struct Input {
  std::string source;  // what was read: a file, a suite, a run's dev split
  std::string input;   // its name across models (a run's dev split: "dev split")
  std::vector<std::string> sentences;
};

// The sentences' fingerprint: files of different models compare on one input only when equal.
std::string sentences_sha256(const std::vector<std::string>& sentences) {
  std::string all;
  for (const std::string& s : sentences) all += s + "\n";
  return sha256_hex(all);
}

Input text_file(const std::string& path, const Scorer& scorer) {
  Input in{path, path, {}};
  std::istringstream lines(read_file(path));
  int64_t number = 0;
  for (std::string line; std::getline(lines, line);) {
    ++number;
    if (line.find_first_not_of(" \t\r") == std::string::npos) continue;
    check_sentence_to_score(line, fmt::format("{}:{}", path, number), scorer.tokenizer(),
                            scorer.config().max_tokens());
    in.sentences.push_back(line);
  }
  BB_CHECK(!in.sentences.empty(), "{}: no sentence (expected one sentence per line)", path);
  return in;
}

}  // namespace

std::vector<std::string> dev_utterances(const std::string& run_dir) {
  const auto record = read_run_record(run_dir);
  BB_CHECK(record && record->contains("settings") && (*record)["settings"].is_object(),
           "--dev-of {}: no train run there (no run.json with settings)", run_dir);
  const ojson& s = (*record)["settings"];
  BB_CHECK(!s.value("--no-dev", false), "--dev-of {}: the run was trained with --no-dev (no dev set)",
           run_dir);
  std::string corpus;
  if (record->contains("sessions"))
    for (const auto& session : (*record)["sessions"])
      if (session.contains("corpus") && session["corpus"].is_string())
        corpus = session["corpus"].get<std::string>();
  BB_CHECK(!corpus.empty(), "--dev-of {}: run.json names no corpus (no training session)", run_dir);
  BB_CHECK(fs::exists(corpus), "--dev-of {}: its corpus {} is not there", run_dir, corpus);
  const std::string sha = s.value("--corpus (sha256)", "");
  const std::string now = sha256_hex(read_file(corpus));
  BB_CHECK(sha.empty() || sha == now,
           "--dev-of {}: {} has changed since the run was trained (sha256 {}, run.json {})",
           run_dir, corpus, now, sha);
  const double fraction = s.value("--dev-fraction", 0.01);
  // runs made before --dev-seed drew the split from the training seed
  const uint64_t seed = s.contains("--dev-seed") ? s["--dev-seed"].get<uint64_t>()
                                                 : s.value("--seed", uint64_t(0));
  const Tokenizer tok = Tokenizer::load(run_dir);
  const Config c = read_model_config(run_dir);
  CorpusStats stats;
  const std::vector<std::string> kept = read_kept_utterances(
      corpus, &tok, {.min_words = 3, .max_tokens = c.max_tokens(), .strict = s.value("--strict", false)},
      stats);
  std::vector<std::string> dev;
  for (size_t i = 0; i < kept.size(); ++i)
    if (is_dev_utterance(int64_t(i), fraction, seed)) dev.push_back(kept[i]);
  BB_CHECK(!dev.empty(), "--dev-of {}: its dev split is empty", run_dir);
  return dev;
}

ojson run_perplexity(const PerplexityArgs& a) {
  const auto started = std::chrono::steady_clock::now();
  const std::string date = utc_now();
  set_threads(a.threads);
  const Device device = usable_device(a.device);
  const Precision precision = parse_precision(a.precision);
  require_precision(precision, device);
  const ModelKind kind = require_model_kind(a.model, ModelCommand::perplexity).kind;
  if (a.texts.empty() && a.good_of.empty() && a.dev_of.empty())
    usage_fail("perplexity: nothing to measure (give --text, --good-of or --dev-of)");
  if (a.dev_of.size() > 1)  // every run's split is named "dev split", to compare across runs
    usage_fail("perplexity: --dev-of given {} times; one dev split per file (its input is named "
               "\"dev split\" in every run's file)", a.dev_of.size());
  if (!a.out.empty()) {  // fail before any scoring
    std::vector<ReadPath> reads = {{"--model", a.model}};
    for (const std::string& t : a.texts) reads.push_back({"--text", t});
    for (const std::string& s : a.good_of) reads.push_back({"--good-of", s});
    for (const std::string& r : a.dev_of) reads.push_back({"--dev-of", r});
    check_results_writable(a.out, reads);
  }
  const bool causal = config_keys(kind).next_token_loss;
  const Method method = causal ? Method::causal : Method::pll;
  Scorer scorer(a.model, 0, device);
  scorer.set_precision(precision);
  std::vector<Input> inputs;  // every input read (and checked) before any scoring
  for (const std::string& t : a.texts) inputs.push_back(text_file(t, scorer));
  for (const std::string& suite : a.good_of) {
    Input in{"good sentences of " + suite, "good sentences of " + suite, {}};
    for (const MinimalPair& p : load_suites({suite}, {}).pairs) in.sentences.push_back(p.good);
    inputs.push_back(std::move(in));
  }
  for (const std::string& run : a.dev_of)
    inputs.push_back({"dev split of " + run, "dev split", dev_utterances(run)});
  std::set<std::string> names;
  for (const Input& in : inputs)
    if (!names.insert(in.input).second)
      usage_fail("perplexity: the input {} is given twice", in.source);
  ojson out{{"model", fs::absolute(a.model).string()},
            {"kind", config_keys(kind).model_type},
            {"measure", causal ? "perplexity" : "pseudo-perplexity"},
            {"method", method_name(method)},
            {"attention", read_model_config(a.model).label()},
            {"words_counted", causal ? "whitespace words once normalised + 1 per sentence (</s>)"
                                     : "whitespace words once normalised"}};
  if (const auto record = read_run_record(a.model);  // a train run's seed pairs it with others
      record && record->contains("settings") && (*record)["settings"].contains("--seed"))
    out["seed"] = (*record)["settings"]["--seed"];
  if (precision == Precision::bf16) out["precision"] = precision_name(precision);
  ojson rows = ojson::array();
  for (const Input& in : inputs) {
    if (!a.quiet) fmt::print(stderr, "perplexity: {} ({} sentences)\n", in.source, in.sentences.size());
    const std::vector<SentenceScore> scores = scorer.score(in.sentences, method);
    double nll = 0;
    int64_t tokens = 0, words = 0;
    for (size_t i = 0; i < scores.size(); ++i) {
      for (double lp : scores[i].logprobs) nll -= lp;
      tokens += int64_t(scores[i].logprobs.size());
      words += normalized_words(in.sentences[i], scorer.tokenizer()) + (causal ? 1 : 0);
    }
    rows.push_back({{"source", in.source},
                    {"input", in.input},
                    {"sentences_sha256", sentences_sha256(in.sentences)},
                    {"sentences", int64_t(in.sentences.size())},
                    {"tokens", tokens},
                    {"words", words},
                    {"nll_per_token", nll / double(tokens)},
                    {"perplexity_per_token", std::exp(nll / double(tokens))},
                    {"perplexity_per_word", std::exp(nll / double(words))}});
  }
  out["inputs"] = rows;
  out["provenance"] = {
      {"git_revision", build_revision()},
      {"threads", a.threads},
      {"device", kernels_on(device)},
      {"date", date},
      {"seconds", std::chrono::duration<double>(std::chrono::steady_clock::now() - started).count()}};
  if (!a.out.empty()) write_file_atomic(a.out, out.dump(2) + "\n");
  return out;
}

}  // namespace bb
