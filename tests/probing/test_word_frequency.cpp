// Word frequency behind minimal-pair decisions (probing/word_frequency.h): the differing word of a
// pair, the corpus counts an n-gram reference records per pair, and compare's frequency shares on
// synthetic runs with known answers.
#include <doctest/doctest.h>

#include <cmath>
#include <string>
#include <vector>

#include "common/error.h"
#include "common/files.h"
#include "probing/compare.h"
#include "probing/report.h"
#include "probing/results.h"
#include "probing/word_frequency.h"
#include "result_files.h"
#include "temp_dir.h"

using namespace bb;
using namespace bb::test;

namespace {

std::optional<std::pair<std::string, std::string>> differing(const std::string& a,
                                                             const std::string& b) {
  const auto w = differing_word(split_words(a), split_words(b));
  if (!w) return std::nullopt;
  return std::pair{std::string(w->first), std::string(w->second)};
}

// An n-gram reference over write_run's suite whose agr-x pairs record word counts: pairs 0-49
// the good sentence's word more frequent, 50-89 the bad one's, 90-99 equal counts (not
// qualifying); bind-y records none.
fs::path write_reference(const fs::path& dir) {
  Suite s;
  s.paradigms = {"agr-x", "bind-y"};
  std::vector<double> good, bad;
  for (const char* p : {"agr-x", "bind-y"})
    for (int i = 0; i < 100; ++i) {
      s.pairs.push_back({"g", "b", p, std::string(p).substr(0, 3), i});
      good.push_back(-1.0), bad.push_back(-2.0);
    }
  ProbeSummary sum = summarize(s, good, bad, /*higher_wins=*/true, TieRule::half);
  for (int i = 0; i < 100; ++i)
    sum.pairs[size_t(i)].word_counts = i < 50   ? std::array<int64_t, 2>{10, 1}
                                       : i < 90 ? std::array<int64_t, 2>{1, 10}
                                                : std::array<int64_t, 2>{5, 5};
  const fs::path f = dir / "unigram.json";
  write_probe_results(f, {{"model", "unigram"}, {"config", {{"label", "unigram (word)"}}},
                          {"method", "ngram"}, {"tie_rule", "half"}}, sum);
  return f;
}

}  // namespace

TEST_CASE("word frequency: the differing word of a minimal pair") {
  CHECK(split_words("look at  this .") == std::vector<std::string_view>{"look", "at", "this", "."});
  CHECK(split_words("").empty());
  CHECK(differing("this purple thing .", "this purple things .") ==
        std::pair<std::string, std::string>{"thing", "things"});
  CHECK(!differing("a b c", "a b c"));          // no difference
  CHECK(!differing("a b c", "a x y"));          // two positions
  CHECK(!differing("a b c", "a b c d"));        // lengths differ
  CHECK(!differing("the dog sees", "sees the dog"));  // word order
}

TEST_CASE("word frequency: the reference's counts survive the pairs file") {
  TempDir d("freq-file");
  const fs::path f = write_reference(d.path);
  const PairRecords r = read_pair_records(pairs_path_for(f));
  REQUIRE(r.word_counts.count("agr-x"));
  CHECK(r.word_counts.at("agr-x").size() == 100);
  CHECK(r.word_counts.at("agr-x").at(0) == std::array<int64_t, 2>{10, 1});
  CHECK(r.word_counts.at("agr-x").at(95) == std::array<int64_t, 2>{5, 5});
  CHECK(!r.word_counts.count("bind-y"));
  CHECK(r.index.at("bind-y")[7] == 7);
  const fs::path bad = d.path / "bad.pairs.jsonl";
  write_file_atomic(bad, "{\"paradigm\": \"p\", \"outcome\": 1, \"word_counts\": [3]}\n");
  CHECK_THROWS_WITH_AS(read_pair_records(bad), doctest::Contains("bad.pairs.jsonl:1: \"word_counts\" "
                       "is [3], expected [good count, bad count]"), Error);
}

TEST_CASE("compare: frequency shares of each group from a word reference's counts") {
  TempDir d("freq-share");
  // softmax seed 1 gets agr-x pairs 0-79 right, seed 2 pairs 0-59. Qualifying: pairs 0-89.
  // Seed 1: 0-49 (right, good more frequent) 50, 50-79 (right, bad more frequent) 0, 80-89 (wrong,
  // bad more frequent) 10: 60 / 90. Seed 2: 50 + 0 + 30 (60-89 wrong) = 80 / 90.
  std::vector<fs::path> files{write_run(d.path, "softmax", 1, 80), write_run(d.path, "softmax", 2, 60),
                              write_reference(d.path)};
  const Comparison c = compare_runs(load_runs(files), 0);
  CHECK(c.frequency_source == "unigram.json");
  CHECK(c.frequency_pairs.at("agr-x") == 90);
  CHECK(c.frequency_pairs.at(kAllParadigms) == 90);
  CHECK(!c.frequency_pairs.count("bind-y"));
  const Stat& s = c.frequency_share[0].at("agr-x");
  CHECK(s.n == 2);
  CHECK(s.mean == doctest::Approx(70.0 / 0.9));
  CHECK(s.sd == doctest::Approx(std::sqrt(2.0) * 100.0 / 9.0));
  CHECK(c.frequency_share[0].at(kAllParadigms).mean == doctest::Approx(s.mean));
  // The reference itself: every pair right, so 50 of the 90 go to the more frequent word.
  CHECK(c.frequency_share[1].at("agr-x").mean == doctest::Approx(500.0 / 9.0));
  write_report(d.path / "report", c);
  const std::string md = read_file(d.path / "report" / "report.md");
  CHECK(md.find("## Word frequency") != std::string::npos);
  CHECK(md.find("| agr-x | 90 | 77.8 ± 15.7 | 55.6 |") != std::string::npos);
  CHECK(read_file(d.path / "report" / "report.csv").find("frequency share,\"agr-x\",\"softmax\"") !=
        std::string::npos);
}

TEST_CASE("compare: without a word reference the frequency section says so") {
  TempDir d("freq-none");
  std::vector<fs::path> files{write_run(d.path, "softmax", 1, 80), write_run(d.path, "ssa", 1, 70)};
  const Comparison c = compare_runs(load_runs(files), 0);
  CHECK(c.frequency_source.empty());
  CHECK(frequency_md(c).find("Not available: no word-unit n-gram reference") != std::string::npos);
}
