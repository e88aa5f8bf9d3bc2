#include "corpora/corpus.h"

#include <fmt/core.h>
#include <fmt/format.h>

#include <optional>

#include "common/error.h"
#include "common/files.h"
#include "common/hash.h"
#include "common/philox.h"
#include "corpora/token_cache.h"

namespace bb {

namespace fs = std::filesystem;

nlohmann::json CorpusStats::to_json() const {
  return {{"lines", lines},     {"kept", kept},
          {"empty", empty},     {"invalid_utf8", invalid_utf8},
          {"too_few_words", too_few_words}, {"too_long", too_long}};
}

std::string CorpusStats::summary() const {
  return fmt::format("{} lines read, {} kept; dropped: {} empty, {} invalid UTF-8, {} under the "
                     "minimum words, {} over the maximum length",
                     lines, kept, empty, invalid_utf8, too_few_words, too_long);
}

static int count_words(std::string_view s) {
  int n = 0;
  bool in_word = false;
  for (char c : s) {
    const bool space = c == ' ';
    if (!space && !in_word) ++n;
    in_word = !space;
  }
  return n;
}

std::vector<std::string> read_corpus_lines(const fs::path& path, const CorpusOptions& opt,
                                           const Normalizer& norm, CorpusStats& stats) {
  const std::string text = read_file(path);
  BB_CHECK(!text.empty(), "{}: empty corpus (expected one utterance per line)", path.string());
  std::vector<std::string_view> raw;
  for (size_t pos = 0; pos < text.size();) {
    size_t end = text.find('\n', pos);
    if (end == std::string::npos) end = text.size();
    std::string_view line(text.data() + pos, end - pos);
    if (!line.empty() && line.back() == '\r') line.remove_suffix(1);
    raw.push_back(line);
    pos = end + 1;
  }
  // Normalise in parallel (ICU's normaliser is thread-safe), then count in line order.
  std::vector<std::optional<std::string>> normalized(raw.size());
#pragma omp parallel for schedule(dynamic, 4096)
  for (size_t i = 0; i < raw.size(); ++i) normalized[i] = norm.normalize(raw[i]);
  std::vector<std::string> out;
  for (size_t i = 0; i < raw.size(); ++i) {
    ++stats.lines;
    auto& n = normalized[i];
    if (!n) {
      BB_CHECK(!opt.strict, "{}:{}: invalid UTF-8 (expected UTF-8 text; --strict)", path.string(),
               stats.lines);
      ++stats.invalid_utf8;
      stats.invalid_lines.push_back(stats.lines);
      continue;
    }
    if (n->empty()) {
      ++stats.empty;
      continue;
    }
    if (count_words(*n) < opt.min_words) {
      ++stats.too_few_words;
      continue;
    }
    out.push_back(std::move(*n));
  }
  return out;
}

void TokenizedCorpus::push(const std::vector<int32_t>& seq) {
  ids.insert(ids.end(), seq.begin(), seq.end());
  offsets.push_back(int64_t(ids.size()));
}

namespace {

// Each normalised line's ids (without <s>, </s>), or nullopt where the line is too long:
// with <s> and </s> over opt.max_tokens (dropped, never truncated; counted in stats.too_long).
std::vector<std::optional<std::vector<int32_t>>> encode_fitting(
    const std::vector<std::string>& lines, const Tokenizer& tok, const CorpusOptions& opt,
    CorpusStats& stats) {
  std::vector<std::optional<std::vector<int32_t>>> encoded(lines.size());
#pragma omp parallel for schedule(dynamic, 1024)  // SentencePiece encodes thread-safely
  for (size_t i = 0; i < lines.size(); ++i) {
    std::vector<int32_t> ids = tok.encode_normalized(lines[i]);
    if (int(ids.size()) + 2 <= opt.max_tokens) encoded[i] = std::move(ids);
  }
  for (const auto& ids : encoded) stats.too_long += !ids;
  return encoded;
}

}  // namespace

TokenizedCorpus load_tokenized_corpus(const fs::path& path, const Tokenizer& tok,
                                      const CorpusOptions& opt, const fs::path& cache) {
  const std::string key = fmt::format("corpus sha256:{} tokenizer {} min_words {} max_tokens {}",
                                      sha256_hex(read_file(path)), tok.fingerprint(),
                                      opt.min_words, opt.max_tokens);
  if (!cache.empty()) {
    TokenCacheRead hit = read_token_cache(cache, key, tok.vocab_size());
    if (hit.corpus) return std::move(*hit.corpus);
    if (!hit.problem.empty())
      fmt::print(stderr, "babyberta: note: {}: {}, rebuilding\n", cache.string(), hit.problem);
  }
  TokenizedCorpus out;
  const auto lines = read_corpus_lines(path, opt, tok.normalizer(), out.stats);
  std::vector<int32_t> seq;
  for (const auto& ids : encode_fitting(lines, tok, opt, out.stats)) {
    if (!ids) continue;
    seq.assign(1, 3);
    seq.insert(seq.end(), ids->begin(), ids->end());
    seq.push_back(4);
    out.push(seq);
  }
  out.stats.kept = out.size();
  BB_CHECK(out.size() > 0, "{}: no usable utterance ({})", path.string(), out.stats.summary());
  if (!cache.empty()) write_token_cache(cache, key, out);
  return out;
}

std::vector<std::string> read_kept_utterances(const fs::path& path, const Tokenizer* tok,
                                              const CorpusOptions& opt, CorpusStats& stats) {
  std::vector<std::string> lines =
      read_corpus_lines(path, opt, tok ? tok->normalizer() : Normalizer(), stats);
  if (tok) {
    const auto encoded = encode_fitting(lines, *tok, opt, stats);
    size_t kept = 0;
    for (size_t i = 0; i < lines.size(); ++i)
      if (encoded[i]) {
        if (kept != i) lines[kept] = std::move(lines[i]);
        ++kept;
      }
    lines.resize(kept);
  }
  stats.kept = int64_t(lines.size());
  BB_CHECK(!lines.empty(), "{}: no usable utterance ({})", path.string(), stats.summary());
  return lines;
}

bool is_dev_utterance(int64_t i, double fraction, uint64_t seed) {
  const Philox rng{stream_key(seed, 0xDE5)};
  return rng.uniform(0, uint64_t(i)) < fraction;
}

std::pair<TokenizedCorpus, TokenizedCorpus> split_dev(const TokenizedCorpus& all, double fraction,
                                                      uint64_t seed) {
  TokenizedCorpus train, dev;
  std::vector<int32_t> seq;
  for (int64_t i = 0; i < all.size(); ++i) {
    seq.assign(all.seq(i), all.seq(i) + all.length(i));
    (is_dev_utterance(i, fraction, seed) ? dev : train).push(seq);
  }
  train.stats = dev.stats = all.stats;
  return {std::move(train), std::move(dev)};
}

void warn_invalid_lines(const std::filesystem::path& corpus, const CorpusStats& stats) {
  if (stats.invalid_lines.empty()) return;
  std::string lines;
  for (size_t i = 0; i < stats.invalid_lines.size() && i < 20; ++i)
    lines += (i ? ", " : "") + std::to_string(stats.invalid_lines[i]);
  if (stats.invalid_lines.size() > 20) lines += ", ...";
  fmt::print(stderr, "babyberta: warning: {}: skipped {} lines that are not valid UTF-8 (lines {})\n",
             corpus.string(), stats.invalid_lines.size(), lines);
}

}  // namespace bb
