// Binary token cache, so a corpus is tokenised once. Layout (little-endian):
//   "BBTOKCACHE" (10 bytes), u32 version, u32 key length, key (corpus hash + tokenizer fingerprint
//   + options), u32 stats-JSON length, stats JSON, u64 utterances, u64 tokens,
//   i64 offsets[utterances + 1], i32 ids[tokens].
// A cache whose key differs (stale corpus or tokenizer) or that is malformed is ignored and
// rebuilt, never silently used.
#pragma once
#include <filesystem>
#include <optional>
#include <string>

namespace bb {

struct TokenizedCorpus;

std::optional<TokenizedCorpus> read_token_cache(const std::filesystem::path& path,
                                                const std::string& key);
void write_token_cache(const std::filesystem::path& path, const std::string& key,
                       const TokenizedCorpus& corpus);

}  // namespace bb
