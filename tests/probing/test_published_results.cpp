// Published results as reference groups (probing/published_results.h): UnMasked's zorro.csv
// layout on a tiny suite, the checks on what it reads, and compare's reference group.
#include <doctest/doctest.h>
#include <fmt/format.h>

#include "common/error.h"
#include "common/files.h"
#include "probing/compare.h"
#include "probing/published_results.h"
#include "probing/suite.h"
#include "temp_dir.h"

using namespace bb;
namespace fs = std::filesystem;

namespace {

// Two paradigms of two pairs each (agr-x, agr-y: one phenomenon "agr").
Suite tiny_suite(const fs::path& dir) {
  fs::create_directories(dir / "suite");
  write_file_atomic(dir / "suite" / "agr-x.txt", "a b .\nb a .\nc d .\nd c .\n");
  write_file_atomic(dir / "suite" / "agr-y.txt", "e f .\nf e .\ng h .\nh g .\n");
  return load_suite(dir / "suite");
}

// UnMasked's columns: model, paradigms, corpora, rep, scoring_method, overall (any order).
constexpr const char* kCsv =
    "model,agr-x,corpora,agr-y,rep,scoring_method,overall\n"
    "BabyBERTa,80.0,AO-CHILDES,70.5,run_a,holistic,75.25\n"
    "BabyBERTa,90.0,AO-CHILDES,60.0,run_a,mlm,75.0\n"
    "BabyBERTa,70.0,Wikipedia-1,70.0,run_w,holistic,70.0\n"
    "RoBERTa-base,50.0,AO-CHILDES,50.0,0,holistic,50.0\n"
    "BabyBERTa,84.0,AO-CHILDES,71.5,run_b,holistic,77.75\n";

UnmaskedSelection selection(const std::string& method = "holistic") {
  UnmaskedSelection s;
  s.method = method;
  s.source = "test";
  return s;
}

}  // namespace

TEST_CASE("UnMasked's zorro.csv: the selected rows as reference results, no number retyped") {
  test::TempDir d("unmasked");
  const Suite suite = tiny_suite(d.path);
  write_file_atomic(d.path / "zorro.csv", kCsv);
  const auto r = unmasked_results(d.path / "zorro.csv", selection(), suite);
  REQUIRE(r.size() == 2);  // BabyBERTa, AO-CHILDES, holistic: runs a and b
  CHECK(r[0]["reference"] == true);
  CHECK(r[0]["method"] == "holistic");
  CHECK(r[0]["paradigms"]["agr-x"]["accuracy"] == 80.0);
  CHECK(r[0]["paradigms"]["agr-y"]["pairs"] == 2);  // the suite's count
  CHECK(r[0]["paradigms"]["agr-y"]["phenomenon"] == "agr");
  CHECK(r[0]["overall"] == doctest::Approx(75.25));
  CHECK(r[0]["source"]["rep"] == "run_a");
  CHECK(r[0]["source"]["line"] == 2);
  CHECK(r[1]["config"]["seed"] == 2);
  const auto mlm = unmasked_results(d.path / "zorro.csv", selection("pll"), suite);
  REQUIRE(mlm.size() == 1);
  CHECK(mlm[0]["paradigms"]["agr-x"]["accuracy"] == 90.0);
  CHECK(mlm[0]["source"]["scoring_method"] == "mlm");

  // compare: one reference group of two runs (mean ± sd), beside a trained group, never compared.
  for (size_t i = 0; i < r.size(); ++i)
    write_file_atomic(d.path / fmt::format("u{}.json", i), r[i].dump());
  const std::vector<RunResult> runs = load_runs({d.path / "u0.json", d.path / "u1.json"});
  REQUIRE(runs.size() == 2);
  CHECK(runs[0].group == "BabyBERTa (UnMasked) (reference)");
  CHECK(runs[0].stratum == "reference");
}

TEST_CASE("UnMasked's zorro.csv: what does not fit is refused naming file:line") {
  test::TempDir d("unmasked-bad");
  const Suite suite = tiny_suite(d.path);
  auto refused = [&](const std::string& csv, const std::string& message) {
    write_file_atomic(d.path / "z.csv", csv);
    CHECK_THROWS_WITH_AS(unmasked_results(d.path / "z.csv", selection(), suite),
                         doctest::Contains(message.c_str()), Error);
  };
  refused("model,agr-x,agr-z,corpora,rep,scoring_method,overall\nBabyBERTa,1,2,AO-CHILDES,a,holistic,1.5\n",
          "z.csv:1: column 'agr-z' is no paradigm of the suite");
  refused("model,agr-x,corpora,rep,scoring_method,overall\nBabyBERTa,1,AO-CHILDES,a,holistic,1\n",
          "z.csv:1: no column for the suite's paradigm 'agr-y'");
  refused("model,agr-x,agr-y,corpora,rep,scoring_method\nBabyBERTa,1,2,AO-CHILDES,a,holistic\n",
          "z.csv:1: no 'overall' column");
  refused("model,agr-x,agr-y,corpora,rep,scoring_method,overall\nBabyBERTa,80,70,AO-CHILDES,a,holistic,76\n",
          "z.csv:2: overall is 76, but its paradigms' mean is 75.0000");
  refused("model,agr-x,agr-y,corpora,rep,scoring_method,overall\nBabyBERTa,80,x,AO-CHILDES,a,holistic,76\n",
          "z.csv:2: column agr-y is 'x', expected a percentage in [0, 100]");
  refused("model,agr-x,agr-y,corpora,rep,scoring_method,overall\nBabyBERTa,80,170,AO-CHILDES,a,holistic,125\n",
          "z.csv:2: column agr-y is '170', expected a percentage");
  refused("model,agr-x,agr-y,corpora,rep,scoring_method,overall\nGPT,80,70,AO-CHILDES,a,holistic,75\n",
          "z.csv: no row with model BabyBERTa, corpora AO-CHILDES and scoring_method holistic");
}
