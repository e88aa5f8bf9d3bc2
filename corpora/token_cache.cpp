#include "corpora/token_cache.h"

#include <cstring>

#include "common/files.h"
#include "corpora/corpus.h"

namespace bb {

namespace {
constexpr char kMagic[] = "BBTOKCACHE";
constexpr uint32_t kVersion = 1;

template <typename T>
void put(std::string& s, T v) {
  s.append(reinterpret_cast<const char*>(&v), sizeof(T));
}

struct Reader {
  const std::string& s;
  size_t pos = 0;
  bool ok = true;
  template <typename T>
  T get() {
    T v{};
    if (pos + sizeof(T) > s.size()) {
      ok = false;
      return v;
    }
    std::memcpy(&v, s.data() + pos, sizeof(T));
    pos += sizeof(T);
    return v;
  }
  std::string bytes(size_t n) {
    if (pos + n > s.size()) {
      ok = false;
      return {};
    }
    std::string r = s.substr(pos, n);
    pos += n;
    return r;
  }
};
}  // namespace

std::optional<TokenizedCorpus> read_token_cache(const std::filesystem::path& path,
                                                const std::string& key) {
  if (!std::filesystem::exists(path)) return std::nullopt;
  const std::string data = read_file(path);
  Reader r{data};
  if (r.bytes(10) != std::string(kMagic, 10) || r.get<uint32_t>() != kVersion) return std::nullopt;
  if (r.bytes(r.get<uint32_t>()) != key || !r.ok) return std::nullopt;
  const std::string stats_json = r.bytes(r.get<uint32_t>());
  const uint64_t n = r.get<uint64_t>(), tokens = r.get<uint64_t>();
  if (!r.ok || data.size() - r.pos != (n + 1) * 8 + tokens * 4) return std::nullopt;
  TokenizedCorpus c;
  c.offsets.resize(n + 1);
  c.ids.resize(tokens);
  std::memcpy(c.offsets.data(), data.data() + r.pos, (n + 1) * 8);
  std::memcpy(c.ids.data(), data.data() + r.pos + (n + 1) * 8, tokens * 4);
  if (c.offsets.front() != 0 || uint64_t(c.offsets.back()) != tokens) return std::nullopt;
  try {
    const auto j = nlohmann::json::parse(stats_json);
    c.stats.lines = j.at("lines"), c.stats.kept = j.at("kept"), c.stats.empty = j.at("empty");
    c.stats.invalid_utf8 = j.at("invalid_utf8"), c.stats.too_few_words = j.at("too_few_words");
    c.stats.too_long = j.at("too_long");
  } catch (const nlohmann::json::exception&) {
    return std::nullopt;
  }
  return c;
}

void write_token_cache(const std::filesystem::path& path, const std::string& key,
                       const TokenizedCorpus& c) {
  std::string s(kMagic, 10);
  put<uint32_t>(s, kVersion);
  put<uint32_t>(s, uint32_t(key.size()));
  s += key;
  const std::string stats = c.stats.to_json().dump();
  put<uint32_t>(s, uint32_t(stats.size()));
  s += stats;
  put<uint64_t>(s, uint64_t(c.size()));
  put<uint64_t>(s, uint64_t(c.ids.size()));
  s.append(reinterpret_cast<const char*>(c.offsets.data()), c.offsets.size() * 8);
  s.append(reinterpret_cast<const char*>(c.ids.data()), c.ids.size() * 4);
  if (!path.parent_path().empty()) std::filesystem::create_directories(path.parent_path());
  write_file_atomic(path, s);
}

}  // namespace bb
