#include "runs/baseline_run.h"

#include <fmt/core.h>

#include <chrono>
#include <filesystem>
#include <optional>
#include <string>
#include <unordered_map>
#include <vector>

#include "backend/threads.h"
#include "baselines/ngram.h"
#include "common/error.h"
#include "common/files.h"
#include "common/flag_names.h"
#include "common/hash.h"
#include "corpora/corpus.h"
#include "encoder/config.h"
#include "probing/word_frequency.h"
#include "runs/probe_run.h"

namespace bb {

namespace fs = std::filesystem;
using json = nlohmann::json;

namespace {

enum class Unit { word, piece };

// The model's options from --order and --smoothing (kn: D 0.75; jm: λ 0.6 at every order).
NgramOptions ngram_options(const BaselineArgs& a) {
  BB_CHECK(a.smoothing == "kn" || a.smoothing == "jm",
           "unknown n-gram smoothing '{}' (expected kn or jm)", a.smoothing);
  return {.order = a.order,
          .smoothing = a.smoothing == "kn" ? NgramSmoothing::kneser_ney
                                           : NgramSmoothing::jelinek_mercer};
}

// The model's label, e.g. "trigram (word, KN 0.75)" or "trigram (word, JM 0.6)".
std::string ngram_label(const BaselineArgs& a, const NgramOptions& o) {
  const char* order = a.order == 1 ? "unigram" : a.order == 2 ? "bigram" : "trigram";
  return o.smoothing == NgramSmoothing::kneser_ney
             ? fmt::format("{} ({}, KN {})", order, a.unit, o.discount)
             : fmt::format("{} ({}, JM {})", order, a.unit, o.weight);
}

json smoothing_config(const NgramOptions& o) {
  if (o.smoothing == NgramSmoothing::kneser_ney)
    return {{"discount", o.discount},
            {"smoothing", "interpolated Kneser-Ney, <unk> via a uniform base over the "
                          "vocabulary, </s> and <unk>"}};
  return {{"interpolation_weight", o.weight},
          {"smoothing", "Jelinek-Mercer linear interpolation of raw relative frequencies, <unk> "
                        "via a uniform base over the vocabulary, </s> and <unk>"}};
}

// A sentence as the model's tokens: its normalised words, or the pieces of its ids without
// <s> and </s>. `storage` owns the pieces the views point into.
std::vector<std::string_view> units_of(std::string_view normalized, Unit unit,
                                       const Tokenizer* tok, std::vector<std::string>& storage) {
  if (unit == Unit::word) return split_words(normalized);
  storage.clear();
  for (int32_t id : tok->encode_normalized(normalized)) storage.push_back(tok->piece(id));
  return {storage.begin(), storage.end()};
}

double seconds_since(std::chrono::steady_clock::time_point t0) {
  return std::chrono::duration<double>(std::chrono::steady_clock::now() - t0).count();
}

struct Counted {
  NgramModel model;
  CorpusStats stats;
  int64_t dev = 0;  // utterances held out as dev
  std::unordered_map<std::string, int64_t> word_counts;  // --unit word: each word's count
};

// The result's "config": the model, the corpus and what was counted of it.
json baseline_config(const BaselineArgs& a, const std::string& name, const Counted& c,
                     const Normalizer& norm, const CorpusOptions& opt, const Tokenizer* tok) {
  json config = {{"label", name},
              {"order", a.order},
              {"unit", a.unit},
              {"corpus", fs::absolute(a.corpus).string()},
              {"corpus_sha256", sha256_hex(read_file(a.corpus))},
              {"corpus_stats", c.stats.to_json()},
              {"dev_seed", a.dev_seed},
              {"dev_fraction", a.dev_fraction},
              {"dev_utterances", c.dev},
              {"utterances", c.model.sentences()},
              {"tokens", c.model.tokens()},
              {"vocab_size", c.model.vocab_size()},
              {"normalization", norm.settings().to_json()},
              {"min_words", opt.min_words},
              {"max_tokens", tok ? json(opt.max_tokens) : json("not applied (no --tokenizer)")},
              {"tokenizer", tok ? json{{"path", fs::absolute(a.tokenizer).string()},
                                       {"sha256", tok->fingerprint()}}
                                : json(nullptr)}};
  config.update(smoothing_config(c.model.options()));
  return config;
}

// The model counted on the utterances `train` keeps (at least 3 words, the default preset's max
// length) outside its dev split (--dev-seed, train's default: the dev set every run on this
// corpus holds out). `tok`: nullptr without --tokenizer.
Counted count_corpus(const BaselineArgs& a, Unit unit, const Tokenizer* tok,
                     const CorpusOptions& opt) {
  Counted c{NgramModel(ngram_options(a)), {}, 0, {}};
  NgramModel& model = c.model;
  std::vector<std::string> storage;
  if (unit == Unit::piece) {  // the token ids train reads, split as train splits them
    const TokenizedCorpus all = load_tokenized_corpus(a.corpus, *tok, opt);
    const auto [train, held_out] = split_dev(all, a.dev_fraction, a.dev_seed);
    for (int64_t i = 0; i < train.size(); ++i) {
      storage.clear();
      for (int j = 1; j + 1 < train.length(i); ++j) storage.push_back(tok->piece(train.seq(i)[j]));
      model.add_sentence(std::vector<std::string_view>(storage.begin(), storage.end()));
    }
    c.stats = all.stats;
    c.dev = held_out.size();
  } else {  // the same utterances as text (with --tokenizer, its max-length filter too)
    const auto lines = read_kept_utterances(a.corpus, tok, opt, c.stats);
    for (int64_t i = 0; i < int64_t(lines.size()); ++i)
      if (is_dev_utterance(i, a.dev_fraction, a.dev_seed)) {
        ++c.dev;
      } else {
        const std::vector<std::string_view> words = split_words(lines[size_t(i)]);
        model.add_sentence(words);
        for (std::string_view w : words) ++c.word_counts[std::string(w)];
      }
  }
  model.finish();
  warn_invalid_lines(a.corpus, c.stats);
  return c;
}

// --unit word: for each pair (its normalised sentences) whose sentences differ in one word position,
// the corpus counts of the two words there, for compare's frequency shares
// (probing/word_frequency.h).
void record_word_counts(ProbeSummary& s, const std::vector<std::string>& good,
                        const std::vector<std::string>& bad, const Counted& c) {
  auto count = [&](std::string_view word) {
    const auto it = c.word_counts.find(std::string(word));
    return it == c.word_counts.end() ? int64_t(0) : it->second;
  };
  for (size_t i = 0; i < good.size(); ++i)
    if (const auto w = differing_word(split_words(good[i]), split_words(bad[i])))
      s.pairs[i].word_counts = std::array{count(w->first), count(w->second)};
}

}  // namespace

ProbeSummary run_baseline(const BaselineArgs& a) {
  const auto start = std::chrono::steady_clock::now();
  set_threads(a.threads);
  const Unit unit = a.unit == "piece" ? Unit::piece : Unit::word;
  const TieRule ties = parse_tie_rule(a.tie_rule);
  BB_CHECK(unit == Unit::word || !a.tokenizer.empty(),
           "--unit piece needs --tokenizer DIR (a tokenizer or model directory with "
           "tokenizer.model)");
  BB_CHECK(fs::exists(a.corpus), "{}: no such file (expected the training corpus, one utterance "
           "per line)", a.corpus);
  std::optional<Tokenizer> tok;
  if (!a.tokenizer.empty()) tok.emplace(Tokenizer::load(a.tokenizer));
  std::vector<ReadPath> reads = {{flag_name::corpus, a.corpus}};
  for (const std::string& s : a.suites) reads.push_back({"--suite", s});
  if (!a.tokenizer.empty()) reads.push_back({"--tokenizer", a.tokenizer});
  check_results_writable(a.out, reads);  // fail before any counting
  const Suite suite = load_suites({a.suites.begin(), a.suites.end()});
  for (const std::string& note : suite.notes) fmt::print(stderr, "babyberta: note: {}\n", note);

  const CorpusOptions opt{.min_words = 3, .max_tokens = preset(TrainArgs{}.preset).max_tokens(),
                          .strict = a.strict};
  // The tokenizer's normalisation, else train's default (NFKC, lower case), as the corpus was read.
  const Normalizer norm = tok ? tok->normalizer() : Normalizer();
  const Counted c = count_corpus(a, unit, tok ? &*tok : nullptr, opt);
  const NgramModel& model = c.model;
  const std::string name = ngram_label(a, model.options());
  fmt::print(stderr, "corpus {}: {}\n{}: {} utterances counted ({} tokens with </s>), {} held out "
             "as dev; vocabulary {} {}s\n", a.corpus, c.stats.summary(), name, model.sentences(),
             model.tokens(), c.dev, model.vocab_size(), a.unit);

  const auto scoring = std::chrono::steady_clock::now();
  std::vector<std::string> storage, good_text, bad_text;  // normalised once (valid UTF-8)
  for (const MinimalPair& p : suite.pairs) {
    good_text.push_back(norm.normalize(p.good).value());
    bad_text.push_back(norm.normalize(p.bad).value());
  }
  auto score = [&](const std::string& normalized) {
    return model.log_prob(units_of(normalized, unit, tok ? &*tok : nullptr, storage));
  };
  std::vector<double> good, bad;
  for (size_t i = 0; i < suite.pairs.size(); ++i) {
    good.push_back(score(good_text[i]));
    bad.push_back(score(bad_text[i]));
  }
  ProbeSummary s = summarize(suite, good, bad, /*higher_wins=*/true, ties);
  if (unit == Unit::word) record_word_counts(s, good_text, bad_text, c);

  const json config = baseline_config(a, name, c, norm, opt, tok ? &*tok : nullptr);
  json header = result_header({.model = name, .config = config, .method = "ngram", .ties = ties,
                               .suites = {a.suites.begin(), a.suites.end()}, .suite = suite,
                               .pairs_per_paradigm = 0, .threads = a.threads,
                               .seconds = seconds_since(scoring),
                               .sentences = 2 * suite.pairs.size()});
  // What compare's settings table reads from a trained model's run.json.
  header["training"] = {{"corpus", config["corpus"]},
                        {"--corpus (sha256)", config["corpus_sha256"]},
                        {flag_name::dev_seed, a.dev_seed},
                        {flag_name::dev_fraction, a.dev_fraction}};
  write_probe_results(a.out, header, s);
  fmt::print(stderr, "{}: {} pairs scored, {:.1f} s in all\n", a.out, s.pairs.size(),
             seconds_since(start));
  return s;
}

}  // namespace bb
