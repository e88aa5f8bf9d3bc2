#include "corpora/token_cache.h"

#include <fmt/format.h>

#include <cstring>

#include "common/files.h"
#include "common/hash.h"

namespace bb {

namespace {
constexpr char kMagic[] = "BBTOKCACHE";
constexpr size_t kMagicLen = 10, kSumLen = 64;  // sha256 as hex
constexpr uint32_t kVersion = 2;
constexpr size_t kHeaderLen = kMagicLen + 4 + kSumLen;

template <typename T>
void put(std::string& s, T v) {
  s.append(reinterpret_cast<const char*>(&v), sizeof(T));
}

// Bounds-checked reads: a read past the end sets ok = false and returns a zero value.
struct Reader {
  const std::string& s;
  size_t pos = 0;
  bool ok = true;
  size_t left() const { return s.size() - pos; }
  template <typename T>
  T get() {
    T v{};
    if (!ok || sizeof(T) > left()) {
      ok = false;
      return v;
    }
    std::memcpy(&v, s.data() + pos, sizeof(T));
    pos += sizeof(T);
    return v;
  }
  std::string bytes(size_t n) {
    if (!ok || n > left()) {
      ok = false;
      return {};
    }
    std::string r = s.substr(pos, n);
    pos += n;
    return r;
  }
};

std::string body_checksum(const std::string& bytes) {
  return sha256_hex(std::string_view(bytes).substr(kHeaderLen));
}

// Utterance count, token count, offsets and ids after the stats, checked against the bytes left.
TokenCacheRead decode_arrays(Reader& r, TokenizedCorpus&& c, int32_t vocab_size) {
  const uint64_t n = r.get<uint64_t>(), tokens = r.get<uint64_t>();
  if (!r.ok) return {std::nullopt, "truncated"};
  // n + 1 offsets of 8 bytes and `tokens` ids of 4 bytes must fill exactly what is left; both
  // counts are bounded by the bytes left before any product is formed (no overflow).
  const uint64_t left = r.left();
  if (n >= left / 8 || tokens > left / 4 || (n + 1) * 8 + tokens * 4 != left)
    return {std::nullopt, "sizes do not match the file length"};
  c.offsets.resize(n + 1);
  c.ids.resize(tokens);
  std::memcpy(c.offsets.data(), r.s.data() + r.pos, (n + 1) * 8);
  if (tokens) std::memcpy(c.ids.data(), r.s.data() + r.pos + (n + 1) * 8, tokens * 4);
  if (c.offsets.front() != 0 || uint64_t(c.offsets.back()) != tokens)
    return {std::nullopt, "offsets do not span the tokens"};
  for (size_t i = 1; i < c.offsets.size(); ++i)
    if (c.offsets[i] < c.offsets[i - 1]) return {std::nullopt, "offsets out of order"};
  if (vocab_size > 0)
    for (int32_t id : c.ids)
      if (id < 0 || id >= vocab_size) return {std::nullopt, "token id outside the vocabulary"};
  return {std::move(c), ""};
}

}  // namespace

void reseal_token_cache(std::string& bytes) {
  if (bytes.size() < kHeaderLen) return;
  bytes.replace(kMagicLen + 4, kSumLen, body_checksum(bytes));
}

TokenCacheRead decode_token_cache(const std::string& data, const std::string& key,
                                  int32_t vocab_size) {
  Reader r{data};
  if (r.bytes(kMagicLen) != std::string(kMagic, kMagicLen)) return {std::nullopt, "not a token cache"};
  const uint32_t version = r.get<uint32_t>();
  if (!r.ok) return {std::nullopt, "truncated"};
  if (version != kVersion) return {std::nullopt, fmt::format("cache version {}", version)};
  const std::string sum = r.bytes(kSumLen);
  if (!r.ok) return {std::nullopt, "truncated"};
  if (sum != body_checksum(data)) return {std::nullopt, "checksum mismatch"};
  const std::string stored_key = r.bytes(r.get<uint32_t>());
  if (!r.ok) return {std::nullopt, "truncated"};
  if (stored_key != key) return {};  // stale: another corpus, tokenizer or options
  const std::string stats_json = r.bytes(r.get<uint32_t>());
  if (!r.ok) return {std::nullopt, "truncated"};
  TokenizedCorpus c;
  try {
    const auto j = nlohmann::json::parse(stats_json);
    c.stats.lines = j.at("lines"), c.stats.kept = j.at("kept"), c.stats.empty = j.at("empty");
    c.stats.invalid_utf8 = j.at("invalid_utf8"), c.stats.too_few_words = j.at("too_few_words");
    c.stats.too_long = j.at("too_long");
  } catch (const nlohmann::json::exception&) {
    return {std::nullopt, "malformed statistics"};
  }
  return decode_arrays(r, std::move(c), vocab_size);
}

std::string encode_token_cache(const std::string& key, const TokenizedCorpus& c) {
  std::string s(kMagic, kMagicLen);
  put<uint32_t>(s, kVersion);
  s.append(kSumLen, '0');
  put<uint32_t>(s, uint32_t(key.size()));
  s += key;
  const std::string stats = c.stats.to_json().dump();
  put<uint32_t>(s, uint32_t(stats.size()));
  s += stats;
  put<uint64_t>(s, uint64_t(c.size()));
  put<uint64_t>(s, uint64_t(c.ids.size()));
  s.append(reinterpret_cast<const char*>(c.offsets.data()), c.offsets.size() * 8);
  s.append(reinterpret_cast<const char*>(c.ids.data()), c.ids.size() * 4);
  reseal_token_cache(s);
  return s;
}

TokenCacheRead read_token_cache(const std::filesystem::path& path, const std::string& key,
                                int32_t vocab_size) {
  if (!std::filesystem::exists(path)) return {};
  return decode_token_cache(read_file(path), key, vocab_size);
}

void write_token_cache(const std::filesystem::path& path, const std::string& key,
                       const TokenizedCorpus& c) {
  if (!path.parent_path().empty()) std::filesystem::create_directories(path.parent_path());
  write_file_atomic(path, encode_token_cache(key, c));
}

}  // namespace bb
