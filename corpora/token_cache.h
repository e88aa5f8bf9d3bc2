// Binary token cache, so a corpus is tokenised once. Layout (little-endian):
//   header: "BBTOKCACHE" (10 bytes), u32 version (2), checksum (64 hex chars: sha256 of the body)
//   body:   u32 key length, key (corpus hash + tokenizer fingerprint + options), u32 stats-JSON
//           length, stats JSON, u64 utterances, u64 tokens, i64 offsets[utterances + 1],
//           i32 ids[tokens].
// A cache whose key differs (stale corpus or tokenizer) is rebuilt silently; one that is
// malformed (bad checksum, sizes that do not add up, offsets out of order, ids outside the
// vocabulary) is reported as a `problem` and rebuilt, never used. Every count read from the file
// is bounded by the bytes left before anything is allocated.
#pragma once
#include <cstdint>
#include <filesystem>
#include <optional>
#include <string>
#include <string_view>

#include "corpora/corpus.h"

namespace bb {

struct TokenCacheRead {
  std::optional<TokenizedCorpus> corpus;  // set when the cache is valid and its key matches
  std::string problem;  // why a present cache is unusable ("" when absent or merely stale)
};

// Decodes cache bytes; ids must lie in [0, vocab_size) (vocab_size <= 0: unchecked).
TokenCacheRead decode_token_cache(const std::string& bytes, const std::string& key,
                                  int32_t vocab_size = 0);
std::string encode_token_cache(const std::string& key, const TokenizedCorpus& corpus);
// Sets the header's checksum to match the body (for tests that forge well-sealed bad caches).
void reseal_token_cache(std::string& bytes);

TokenCacheRead read_token_cache(const std::filesystem::path& path, const std::string& key,
                                int32_t vocab_size = 0);
void write_token_cache(const std::filesystem::path& path, const std::string& key,
                       const TokenizedCorpus& corpus);

}  // namespace bb
