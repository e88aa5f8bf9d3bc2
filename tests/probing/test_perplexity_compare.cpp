// compare-perplexity (probing/perplexity_compare.h): grouping by kind and function, the paired t
// over seeds against a hand-computed one, Holm over a function's inputs, Welch when the seeds do
// not pair, exploratory below 3 seeds, and the refusals (no baseline, a seed twice, other
// sentences under one input's name, a file that is not a perplexity file).
#include <doctest/doctest.h>
#include <nlohmann/json.hpp>

#include <cmath>
#include <filesystem>
#include <fstream>

#include "common/error.h"
#include "common/statistics.h"
#include "probing/perplexity_compare.h"

using namespace bb;
namespace fs = std::filesystem;

namespace {

PerplexityFile file(const std::string& kind, const std::string& fn, int64_t seed, double dev,
                    double ood, const std::string& dev_sha = "d1") {
  PerplexityFile f;
  f.file = fmt::format("{}-{}-{}.json", kind, fn, seed);
  f.kind = kind, f.attention = fn, f.seed = seed;
  f.measure = kind == "gpt2" ? "perplexity" : "pseudo-perplexity";
  f.inputs["dev split"] = {dev, dev / 2, dev_sha};
  f.inputs["good sentences of blimp"] = {ood, ood / 2, "b1"};
  return f;
}

std::vector<PerplexityFile> study() {
  return {file("gpt2", "softmax", 1, 40, 900),  file("gpt2", "softmax", 2, 42, 950),
          file("gpt2", "softmax", 3, 41, 920),  file("gpt2", "ssa", 1, 38, 905),
          file("gpt2", "ssa", 2, 39.5, 940),    file("gpt2", "ssa", 3, 38.2, 930),
          file("roberta", "softmax", 1, 60, 2000), file("roberta", "softmax", 2, 61, 2100),
          file("roberta", "softmax", 3, 59, 2050), file("roberta", "ssa", 1, 58, 2010),
          file("roberta", "ssa", 2, 62, 2080),     file("roberta", "ssa", 3, 60, 2070)};
}

const PerplexityContrast& row(const PerplexityComparison& c, const std::string& kind,
                              const std::string& input) {
  for (const auto& r : c.contrasts)
    if (r.kind == kind && r.input == input) return r;
  FAIL("no row " << kind << " " << input);
  throw 0;
}

}  // namespace

TEST_CASE("per kind and input: SSA − softmax by the paired t over seeds, Holm over the inputs") {
  const PerplexityComparison c = compare_perplexities(study(), "softmax", PerplexityUnit::word);
  REQUIRE(c.contrasts.size() == 4);  // 2 kinds x 2 inputs, never gpt2 against roberta
  const PerplexityContrast& dev = row(c, "gpt2", "dev split");
  const PairedTest t = paired_t_test({40, 42, 41}, {38, 39.5, 38.2});
  CHECK(dev.d.test == SeedTest::paired);
  CHECK(dev.d.n == 3);
  CHECK(dev.d.diff == doctest::Approx(t.mean));
  CHECK(dev.d.p == doctest::Approx(t.p));
  CHECK(dev.d.lo == doctest::Approx(t.lo));
  CHECK(dev.d.hi == doctest::Approx(t.hi));
  CHECK(dev.base.mean == doctest::Approx(41));
  const PerplexityContrast& ood = row(c, "gpt2", "good sentences of blimp");
  const std::vector<double> holm = holm_adjust({dev.d.p, ood.d.p});
  CHECK(dev.d.p_adj == doctest::Approx(holm[0]));
  CHECK(ood.d.p_adj == doctest::Approx(holm[1]));
  CHECK(dev.d.mde > 0);
  CHECK(row(c, "roberta", "dev split").measure == "pseudo-perplexity");
  // per token: the other field
  const PerplexityComparison tok = compare_perplexities(study(), "softmax", PerplexityUnit::token);
  CHECK(row(tok, "gpt2", "dev split").d.diff == doctest::Approx(t.mean / 2));
  const std::string md = perplexity_report_md(c);
  CHECK(md.find("| gpt2 (perplexity) | dev split | ssa | 3 | paired t |") != std::string::npos);
  CHECK(md.find("inconclusive (detectable ≈") != std::string::npos);
  const std::string csv = perplexity_report_csv(c);
  CHECK(std::count(csv.begin(), csv.end(), '\n') == 5);
  CHECK(perplexity_report_md(compare_perplexities(study(), "softmax", PerplexityUnit::word)) == md);
}

TEST_CASE("a clear difference is called lower; seeds that do not pair give Welch; two seeds none") {
  std::vector<PerplexityFile> f = {file("gpt2", "softmax", 1, 40, 900), file("gpt2", "softmax", 2, 41, 901),
                                   file("gpt2", "softmax", 3, 42, 902), file("gpt2", "ssa", 1, 30, 880),
                                   file("gpt2", "ssa", 2, 31.2, 881),  file("gpt2", "ssa", 3, 31.9, 882)};
  const PerplexityComparison c = compare_perplexities(f, "softmax", PerplexityUnit::word);
  CHECK(row(c, "gpt2", "dev split").d.resolved);
  CHECK(perplexity_report_md(c).find("| lower |") != std::string::npos);
  f[5].seed = 4;  // ssa seeds 1, 2, 4 against softmax 1, 2, 3
  CHECK(row(compare_perplexities(f, "softmax", PerplexityUnit::word), "gpt2", "dev split").d.test ==
        SeedTest::welch);
  f.pop_back();
  const PerplexityComparison two = compare_perplexities(f, "softmax", PerplexityUnit::word);
  CHECK(row(two, "gpt2", "dev split").d.p < 0);
  CHECK(perplexity_report_md(two).find("exploratory (fewer than 3 seeds a side") != std::string::npos);
}

TEST_CASE("refusals: no baseline, a seed twice, a file without a seed, other sentences under one "
          "name") {
  std::vector<PerplexityFile> f = study();
  CHECK_THROWS_WITH(compare_perplexities(f, "cosformer", PerplexityUnit::word),
                    doctest::Contains("no gpt2 file with attention cosformer (the --baseline)"));
  f.push_back(file("gpt2", "ssa", 2, 39, 930));
  CHECK_THROWS_WITH(compare_perplexities(f, "softmax", PerplexityUnit::word),
                    doctest::Contains("a second gpt2 ssa file of seed 2"));
  f = study();
  f[4].seed.reset();  // a checkpoint's perplexity (no run.json): no seed to pair it by
  CHECK_THROWS_WITH(compare_perplexities(f, "softmax", PerplexityUnit::word),
                    doctest::Contains("gpt2-ssa-2.json: no seed (measured on a model without its "
                                      "run.json"));
  f = study();
  f[4] = file("gpt2", "ssa", 2, 39.5, 940, "other");
  CHECK_THROWS_WITH(compare_perplexities(f, "softmax", PerplexityUnit::word),
                    doctest::Contains("input \"dev split\" measured other sentences than in"));
  CHECK_THROWS_WITH(parse_perplexity_unit("char"), "--per: unknown unit 'char' (expected word or token)");
}

TEST_CASE("read_perplexity_file: perplexity --out's fields, checked by name") {
  const fs::path dir = fs::temp_directory_path() / "bb_test_perplexity_compare";
  fs::create_directories(dir);
  nlohmann::json j{{"kind", "gpt2"}, {"measure", "perplexity"}, {"attention", "ssa"}, {"seed", 2},
                   {"inputs", {{{"input", "dev split"}, {"sentences_sha256", "ab"},
                                {"perplexity_per_word", 50.0}, {"perplexity_per_token", 20.0}}}}};
  auto write = [&](const nlohmann::json& x) {
    std::ofstream(dir / "p.json") << x.dump();
    return dir / "p.json";
  };
  const PerplexityFile f = read_perplexity_file(write(j));
  CHECK(f.seed == 2);
  CHECK(f.inputs.at("dev split").per_word == 50.0);
  nlohmann::json bad = j;
  bad["inputs"][0].erase("sentences_sha256");
  CHECK_THROWS_WITH(read_perplexity_file(write(bad)),
                    doctest::Contains("inputs[0]: \"sentences_sha256\" is missing"));
  bad = j;
  bad["inputs"][0]["perplexity_per_word"] = 0.5;
  CHECK_THROWS_WITH(read_perplexity_file(write(bad)), doctest::Contains("a perplexity below 1"));
  bad = j;
  bad["kind"] = "bert";  // a hand-edited file: not a kind `perplexity` measures
  CHECK_THROWS_WITH(read_perplexity_file(write(bad)),
                    doctest::Contains("p.json: \"kind\": unknown kind 'bert' (expected roberta or gpt2)"));
  CHECK_THROWS_WITH(read_perplexity_file(write(nlohmann::json{{"runs", 1}})),
                    doctest::Contains("not a perplexity file"));
  fs::remove_all(dir);
}
