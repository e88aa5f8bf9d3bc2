#include "probing/word_scores.h"

#include <fmt/core.h>

#include <algorithm>
#include <string>

#include "common/error.h"

namespace bb {

namespace {
constexpr std::string_view kWordStart = "\xE2\x96\x81";  // "▁"
}

std::vector<WordScore> word_scores(const SentenceScore& s, Method m, const Tokenizer& tok,
                                   const Config& c) {
  const size_t skip = first_scored_id(m);
  std::vector<WordScore> words;
  for (size_t t = 0; t < s.logprobs.size(); ++t) {
    const int32_t id = s.ids[t + skip];
    if (id == c.bos_id || id == c.eos_id) continue;
    std::string piece = tok.piece(id);
    if (tok.kind(id) == Tokenizer::PieceKind::byte)  // byte fallback "<0xF0>": the byte itself,
      piece = std::string(1, char(std::stoi(piece.substr(3, 2), nullptr, 16)));  // so words read
    const bool marked = piece.starts_with(kWordStart);
    if (marked) piece = piece.substr(kWordStart.size());
    if (marked || words.empty())
      words.push_back({piece, s.logprobs[t]});
    else {
      words.back().word += piece;
      words.back().logprob += s.logprobs[t];
    }
  }
  return words;
}

size_t prefix_ids(const Tokenizer& tok, const std::string& prefix, const SentenceScore& joined,
                  const std::string& where) {
  const auto ids = tok.encode(prefix);
  if (!ids) throw UsageError(fmt::format("{}: the prefix is not valid UTF-8", where));
  if (ids->size() <= 2) throw UsageError(fmt::format("{}: the prefix is empty", where));
  const size_t n = ids->size() - 1;  // <s> and the prefix's pieces, not its </s>
  if (joined.ids.size() < n || !std::equal(ids->begin(), ids->begin() + long(n), joined.ids.begin()))
    throw UsageError(fmt::format(
        "{}: the sentence does not begin with the prefix's own pieces (a piece spans the "
        "boundary between prefix and continuation)",
        where));
  return n;
}

std::vector<double> continuation_logprobs(const SentenceScore& joined, Method m, size_t begin,
                                          const std::string& where) {
  const size_t skip = first_scored_id(m), end = joined.ids.size() - 1;  // </s> left out
  if (begin >= end) throw UsageError(fmt::format("{}: the continuation is empty", where));
  BB_CHECK(begin >= skip && joined.logprobs.size() + skip >= end,
           "internal: {} scored tokens for {} ids", joined.logprobs.size(), joined.ids.size());
  return {joined.logprobs.begin() + long(begin - skip), joined.logprobs.begin() + long(end - skip)};
}

}  // namespace bb
