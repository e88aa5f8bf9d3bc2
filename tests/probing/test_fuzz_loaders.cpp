// Loader fuzzing: ~300 mutants each of a Zorro file, a BLiMP jsonl, a TSV, a probe result JSON
// and a token cache (byte flips, truncations, deleted ranges and fields, wrong types, huge
// numbers, invalid UTF-8, empty lines). Every mutant must load or throw bb::Error; any other
// exception fails the case, a crash or hang fails the binary. Deterministic (fixed seed).
#include <doctest/doctest.h>

#include <cstdint>
#include <fstream>
#include <random>
#include <string>
#include <vector>

#include "common/error.h"
#include "common/files.h"
#include "corpora/token_cache.h"
#include "probing/compare.h"
#include "probing/results.h"
#include "probing/suite.h"
#include "temp_dir.h"

using namespace bb;
namespace fs = std::filesystem;
using json = nlohmann::json;

namespace {

constexpr int kMutants = 300;

// Plain write, no fsync: thousands of mutants must stay fast.
void put_file(const fs::path& p, const std::string& bytes) {
  std::ofstream(p, std::ios::binary | std::ios::trunc) << bytes;
}

struct Mutator {
  std::mt19937_64 rng;
  explicit Mutator(uint64_t seed) : rng(seed) {}
  size_t below(size_t n) { return n == 0 ? 0 : size_t(rng() % n); }

  // One byte-level edit of `s`.
  void bytes(std::string& s) {
    static const std::vector<std::string> inserts = {
        "\n", "\n\n", "\t", "\xFF", "\xC3", "\xED\xA0\x80", "\"", "{", "}", "[", "]", ":",
        ",", "-1", "1e400", "99999999999999999999", "-9223372036854775809", "0", "\r\n", " "};
    const size_t at = below(s.size() + 1);
    switch (below(6)) {
      case 0:  // flip bits of a few bytes
        for (size_t k = 0, n = 1 + below(4); k < n && !s.empty(); ++k)
          s[below(s.size())] ^= char(1 + below(255));
        break;
      case 1: s.resize(at); break;  // truncate
      case 2: s.erase(at, 1 + below(40)); break;
      case 3: s.insert(at, inserts[below(inserts.size())]); break;
      case 4: s.insert(at, s.substr(below(s.size() + 1), below(60))); break;  // duplicate
      default: {  // an empty line somewhere
        const size_t nl = s.find('\n', at);
        s.insert(nl == std::string::npos ? s.size() : nl + 1, "\n");
      }
    }
  }

  json replacement() {
    static const std::vector<json> values = {
        nullptr, "", "text", -1, 0, 1, 250, 1e308, -1e308, 18446744073709551615ull,
        INT64_MIN, true, json::array(), json::object(), json::array({1, "a"}), 0.5, "\t"};
    return values[below(values.size())];
  }

  // One structural edit: a field (or a whole subtree) deleted or given another type or value.
  void structure(json& j) {
    const json flat = j.flatten();
    if (flat.empty() || !flat.is_object()) return;
    auto it = flat.begin();
    std::advance(it, long(below(flat.size())));
    json::json_pointer ptr(it.key());
    for (size_t up = below(3); up > 0 && !ptr.empty(); --up) ptr = ptr.parent_pointer();
    if (ptr.empty()) return;
    const json::json_pointer parent = ptr.parent_pointer();
    if (below(2) == 0 && j.at(parent).is_object()) j.at(parent).erase(ptr.back());
    else j.at(ptr) = replacement();
  }

  // A mutant of a text file of JSON lines (jsonl = true) or of one JSON document.
  std::string json_text(const std::string& text, bool jsonl) {
    if (below(2) == 0) {
      std::string s = text;
      for (size_t k = 0, n = 1 + below(3); k < n; ++k) bytes(s);
      return s;
    }
    if (!jsonl) {
      json j = json::parse(text);
      for (size_t k = 0, n = 1 + below(3); k < n; ++k) structure(j);
      return j.dump(2);
    }
    std::vector<std::string> lines;
    for (size_t pos = 0; pos < text.size();) {
      const size_t end = text.find('\n', pos);
      lines.push_back(text.substr(pos, end - pos));
      pos = end + 1;
    }
    json j = json::parse(lines[below(lines.size())]);
    structure(j);
    lines[below(lines.size())] = j.dump();
    std::string out;
    for (const auto& l : lines) out += l + "\n";
    return out;
  }
};

// Runs `load` on each mutant: it may succeed or throw bb::Error, nothing else.
template <typename Make, typename Load>
void fuzz(const std::string& what, Make make, Load load) {
  int loaded = 0, refused = 0;
  for (int i = 0; i < kMutants; ++i) {
    const std::string mutant = make(i);
    try {
      load(mutant);
      ++loaded;
    } catch (const Error&) {
      ++refused;
    } catch (const std::exception& e) {
      FAIL(what << " mutant " << i << " threw a non-bb::Error: " << e.what());
    }
  }
  MESSAGE(what << ": " << loaded << " loaded, " << refused << " refused");
  CHECK(loaded + refused == kMutants);
}

std::string zorro_text() {
  std::string s;
  for (int i = 0; i < 20; ++i)
    s += "the dog" + std::string(i % 2 ? "s" : "") + " sees the ball " + std::to_string(i) +
         " .\nthe dog sees the ball " + std::to_string(i) + " .\n";
  return s;
}

std::string blimp_text() {
  std::string s;
  for (int i = 0; i < 12; ++i)
    s += json{{"sentence_good", "Who should Derek hug after shocking Richard " + std::to_string(i) + "?"},
              {"sentence_bad", "Who should Derek hug Richard after shocking?"},
              {"field", "syntax"}, {"linguistics_term", "island_effects"},
              {"UID", "adjunct_island"}, {"simple_LM_method", true}, {"pairID", std::to_string(i)}}
             .dump() + "\n";
  return s;
}

}  // namespace

TEST_CASE("fuzz: suite loaders accept or refuse every mutant with bb::Error") {
  test::TempDir d("fuzz-suite");
  Mutator m(20240501);
  const std::string zorro = zorro_text(), blimp = blimp_text();
  const std::string tsv = "the dogs run .\tthe dogs runs .\tagreement-simple\n"
                          "a cat sleeps .\ta cat sleep .\n\nthe cats are here .\tthe cats is here .\tagreement-simple\n";
  auto load_as = [&](const std::string& name) {
    return [&, name](const std::string& text) {
      put_file(d.path / name, text);
      const Suite s = load_suite(d.path / name);
      CHECK(!s.pairs.empty());
    };
  };
  fuzz("zorro", [&](int) {
    std::string s = zorro;
    for (size_t k = 0, n = 1 + m.below(3); k < n; ++k) m.bytes(s);
    return s;
  }, load_as("agreement-subject_verb.txt"));
  fuzz("blimp", [&](int) { return m.json_text(blimp, true); }, load_as("adjunct_island.jsonl"));
  fuzz("tsv", [&](int) {
    std::string s = tsv;
    for (size_t k = 0, n = 1 + m.below(3); k < n; ++k) m.bytes(s);
    return s;
  }, load_as("mine.tsv"));
  const std::string csv = "sentence_good,sentence_bad,UID\n\"the dogs, they run .\",the dogs runs .,"
                          "agr-x\r\n\"he said \"\"hi\"\" .\",\"he say\n hi .\",agr-x\n";
  fuzz("csv", [&](int) {
    std::string s = csv;
    for (size_t k = 0, n = 1 + m.below(3); k < n; ++k) m.bytes(s);
    return s;
  }, load_as("mine.csv"));
}

TEST_CASE("fuzz: result JSON (and its pairs) loads and compares or is refused with bb::Error") {
  test::TempDir d("fuzz-result");
  Suite s;
  s.paradigms = {"agr-x", "bind-y"};
  std::vector<double> good, bad;
  for (int i = 0; i < 30; ++i) {
    s.pairs.push_back({"g", "b", i < 15 ? "agr-x" : "bind-y", i < 15 ? "agr" : "bind", i % 15});
    good.push_back(i % 3 == 0 ? 2.0 : 1.0), bad.push_back(i % 5 == 0 ? 1.0 : 2.0);
  }
  const auto sum = summarize(s, good, bad, Method::holistic, TieRule::half);
  const fs::path base = d.path / "base.json", f = d.path / "r.json";
  const json header{{"model", "m"}, {"config", {{"label", "ssa"}, {"seed", 2}, {"steps", 10}}},
                    {"method", "holistic"}, {"tie_rule", "half"}};
  write_probe_results(base, header, sum);
  write_probe_results(f, header, sum);
  const std::string text = read_file(f), pairs = read_file(pairs_path_for(f));
  Mutator m(77);
  fuzz("result", [&](int i) {
    // Every third mutant breaks the pairs file instead of the result.
    put_file(pairs_path_for(f), i % 3 == 2 ? m.json_text(pairs, true) : pairs);
    return i % 3 == 2 ? text : m.json_text(text, false);
  }, [&](const std::string& mutant) {
    put_file(f, mutant);
    const Comparison c = compare_runs(load_runs({base, f}), 20);
    CHECK(!c.groups.empty());
  });
}

TEST_CASE("fuzz: a token cache decodes or reports a problem, sealed or not") {
  TokenizedCorpus c;
  for (int i = 0; i < 50; ++i) c.push({3, 5 + i % 17, 6 + i % 5, 4});
  const std::string key = "corpus sha256:abc tokenizer sha256:def min_words 3 max_tokens 128";
  const std::string good = encode_token_cache(key, c);
  REQUIRE(decode_token_cache(good, key, 32).corpus.has_value());
  Mutator m(5);
  fuzz("token cache", [&](int i) {
    std::string s = good;
    for (size_t k = 0, n = 1 + m.below(3); k < n; ++k) m.bytes(s);
    if (i % 2) reseal_token_cache(s);  // past the checksum: the bounds checks must hold
    return s;
  }, [&](const std::string& mutant) {
    const TokenCacheRead r = decode_token_cache(mutant, key, 32);
    if (!r.corpus) return;  // a problem, or a stale key: rebuilt
    CHECK(r.problem.empty());
    CHECK(r.corpus->offsets.back() == int64_t(r.corpus->ids.size()));
  });
}
