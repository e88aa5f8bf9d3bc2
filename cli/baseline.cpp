// babyberta baseline: an interpolated Kneser–Ney n-gram model (baselines/ngram.h) counted on the
// training part of a corpus, read, filtered and split as `train` does, then scored on minimal-pair
// suites and written as a probe result (F.json + F.pairs.jsonl), so that `compare` can set it
// beside the trained models.
#include <fmt/core.h>

#include <chrono>
#include <filesystem>
#include <optional>
#include <string>
#include <vector>

#include "backend/threads.h"
#include "baselines/ngram.h"
#include "cli/commands.h"
#include "cli/flag_ranges.h"
#include "cli/probe.h"
#include "cli/train.h"
#include "common/error.h"
#include "common/files.h"
#include "common/hash.h"
#include "corpora/corpus.h"
#include "encoder/config.h"

namespace bb::cli {

namespace fs = std::filesystem;
using json = nlohmann::json;

namespace {

enum class Unit { word, piece };

struct BaselineArgs {
  std::string corpus, out, unit = "word", tokenizer, tie_rule = "half";
  std::vector<std::string> suites;
  int order = 3;
  // The dev split's settings, train's defaults: the utterances a default `train` run holds out
  // for its dev loss are left out of the counts here too.
  uint64_t dev_seed = TrainArgs{}.dev_seed;
  double dev_fraction = TrainArgs{}.dev_fraction;
  int threads = 1;
  bool strict = false;
};

constexpr double kDiscount = 0.75;

// The words of normalised text (single spaces, none at either end).
std::vector<std::string_view> split_words(std::string_view s) {
  std::vector<std::string_view> out;
  for (size_t pos = 0; pos < s.size();) {
    size_t end = s.find(' ', pos);
    if (end == std::string_view::npos) end = s.size();
    if (end > pos) out.push_back(s.substr(pos, end - pos));
    pos = end + 1;
  }
  return out;
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

std::string order_name(int order) {
  return order == 1 ? "unigram" : order == 2 ? "bigram" : "trigram";
}

double seconds_since(std::chrono::steady_clock::time_point t0) {
  return std::chrono::duration<double>(std::chrono::steady_clock::now() - t0).count();
}

void run_baseline(const BaselineArgs& a) {
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
  check_results_writable(a.out);  // fail before any counting
  const Suite suite = load_suites({a.suites.begin(), a.suites.end()});
  for (const std::string& note : suite.notes) fmt::print(stderr, "babyberta: note: {}\n", note);

  // The utterances `train` keeps (at least 3 words, the default preset's max length) and its dev
  // split (--dev-seed, train's default: the dev set every run on this corpus holds out).
  const CorpusOptions opt{.min_words = 3, .max_tokens = preset(TrainArgs{}.preset).max_tokens(),
                          .strict = a.strict};
  // The tokenizer's normalisation, else train's default (NFKC, lower case), as the corpus was read.
  const Normalizer norm = tok ? tok->normalizer() : Normalizer();
  NgramModel model({.order = a.order, .discount = kDiscount});
  CorpusStats stats;
  int64_t dev = 0;
  std::vector<std::string> storage;
  if (unit == Unit::piece) {  // the token ids train reads, split as train splits them
    const TokenizedCorpus all = load_tokenized_corpus(a.corpus, *tok, opt);
    const auto [train, held_out] = split_dev(all, a.dev_fraction, a.dev_seed);
    for (int64_t i = 0; i < train.size(); ++i) {
      storage.clear();
      for (int j = 1; j + 1 < train.length(i); ++j) storage.push_back(tok->piece(train.seq(i)[j]));
      model.add_sentence(std::vector<std::string_view>(storage.begin(), storage.end()));
    }
    stats = all.stats;
    dev = held_out.size();
  } else {  // the same utterances as text (with --tokenizer, its max-length filter too)
    const auto lines = read_kept_utterances(a.corpus, tok ? &*tok : nullptr, opt, stats);
    for (int64_t i = 0; i < int64_t(lines.size()); ++i)
      if (is_dev_utterance(i, a.dev_fraction, a.dev_seed)) ++dev;
      else model.add_sentence(split_words(lines[size_t(i)]));
  }
  model.finish();
  warn_invalid_lines(a.corpus, stats);
  const std::string name = fmt::format("{} ({}, KN {})", order_name(a.order), a.unit, kDiscount);
  fmt::print(stderr, "corpus {}: {}\n{}: {} utterances counted ({} tokens with </s>), {} held out "
             "as dev; vocabulary {} {}s\n", a.corpus, stats.summary(), name, model.sentences(),
             model.tokens(), dev, model.vocab_size(), a.unit);

  const auto scoring = std::chrono::steady_clock::now();
  auto score = [&](const std::string& sentence) {
    const std::string normalized = norm.normalize(sentence).value();  // suites are valid UTF-8
    return model.log_prob(units_of(normalized, unit, tok ? &*tok : nullptr, storage));
  };
  std::vector<double> good, bad;
  for (const MinimalPair& p : suite.pairs) {
    good.push_back(score(p.good));
    bad.push_back(score(p.bad));
  }
  const ProbeSummary s = summarize(suite, good, bad, /*higher_wins=*/true, ties);

  json config{{"label", name},
              {"order", a.order},
              {"unit", a.unit},
              {"discount", kDiscount},
              {"smoothing", "interpolated Kneser-Ney, <unk> via a uniform base over the "
                            "vocabulary, </s> and <unk>"},
              {"corpus", fs::absolute(a.corpus).string()},
              {"corpus_sha256", sha256_hex(read_file(a.corpus))},
              {"corpus_stats", stats.to_json()},
              {"dev_seed", a.dev_seed},
              {"dev_fraction", a.dev_fraction},
              {"dev_utterances", dev},
              {"utterances", model.sentences()},
              {"tokens", model.tokens()},
              {"vocab_size", model.vocab_size()},
              {"normalization", norm.settings().to_json()},
              {"min_words", opt.min_words},
              {"max_tokens", tok ? json(opt.max_tokens) : json("not applied (no --tokenizer)")},
              {"tokenizer", tok ? json{{"path", fs::absolute(a.tokenizer).string()},
                                       {"sha256", tok->fingerprint()}}
                                : json(nullptr)}};
  json header = result_header({.model = name, .config = config, .method = "ngram", .ties = ties,
                               .suites = {a.suites.begin(), a.suites.end()}, .suite = suite,
                               .pairs_per_paradigm = 0, .threads = a.threads,
                               .seconds = seconds_since(scoring),
                               .sentences = 2 * suite.pairs.size()});
  // What compare's settings table reads from a trained model's run.json.
  header["training"] = {{"corpus", config["corpus"]},
                        {"--corpus (sha256)", config["corpus_sha256"]},
                        {"--dev-seed", a.dev_seed},
                        {"--dev-fraction", a.dev_fraction}};
  write_probe_results(a.out, header, s);
  print_probe_table(s);
  fmt::print(stderr, "{}: {} pairs scored, {:.1f} s in all\n", a.out, s.pairs.size(),
             seconds_since(start));
}

}  // namespace

void add_baseline(CLI::App& app) {
  auto* cmd = app.add_subcommand(
      "baseline", "Score a suite with an n-gram model (interpolated Kneser-Ney, discount 0.75) "
                  "counted on the training part of a corpus");
  auto a = std::make_shared<BaselineArgs>();
  cmd->add_option("--corpus", a->corpus, "Training corpus, one utterance per line (read, "
                  "filtered and split as train does)")->required();
  cmd->add_option("--order", a->order, "1 unigram, 2 bigram, 3 trigram")
      ->check(count_in(1, NgramModel::kMaxOrder))
      ->capture_default_str();
  cmd->add_option("--unit", a->unit, "word (normalised whitespace-separated words) or piece "
                  "(the --tokenizer's pieces)")
      ->check(one_of("unit", {"word", "piece"}))
      ->capture_default_str();
  cmd->add_option("--tokenizer", a->tokenizer,
                  "Tokenizer or model directory: the pieces (--unit piece, required) and, for "
                  "either unit, train's max-length filter and normalisation");
  cmd->add_option("--suite", a->suites,
                  "Suite directory or file (.txt Zorro, .jsonl BLiMP, .tsv or .csv pairs); repeat "
                  "for several")
      ->required();
  cmd->add_option("--out", a->out, "Results JSON (a .pairs.jsonl is written next to it)")
      ->required();
  cmd->add_option("--dev-seed", a->dev_seed, "train's --dev-seed: which utterances are the "
                  "held-out dev set")
      ->check(count_in(0, kMaxSeed))
      ->capture_default_str();
  cmd->add_option("--dev-fraction", a->dev_fraction, "train's --dev-fraction (left out of the "
                  "counts)")
      ->check(in_range(0, 0.5))
      ->capture_default_str();
  cmd->add_option("--tie-rule", a->tie_rule, "A tie counts as: half or wrong")
      ->check(CLI::IsMember({"half", "wrong"}))
      ->capture_default_str();
  cmd->add_flag("--strict", a->strict, "Invalid UTF-8 in the corpus is an error");
  cmd->add_option("--threads", a->threads, "Threads (normalising and tokenising the corpus)")
      ->transform(thread_count())
      ->capture_default_str();
  cmd->callback([a] { run_baseline(*a); });
}

}  // namespace bb::cli
