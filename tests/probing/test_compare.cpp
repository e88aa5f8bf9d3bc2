// compare: statistics on synthetic results with known answers (Welch's test over seeds, Holm's
// correction, strata that are never subtracted across); the SVG charts render in Chromium.
#include <doctest/doctest.h>
#include <fmt/format.h>

#include <algorithm>
#include <cmath>
#include <cstdlib>
#include <fstream>
#include <functional>

#include "common/error.h"

#include "common/files.h"
#include "probing/compare.h"
#include "probing/equivalence.h"
#include "probing/primary_endpoints.h"
#include "probing/report.h"
#include "probing/report_charts.h"
#include "probing/results.h"
#include "common/statistics.h"
#include "common/svg.h"
#include "render_svg.h"
#include "temp_dir.h"
#include "probing/result_files.h"

using namespace bb;
using namespace bb::test;
namespace fs = std::filesystem;

namespace {
// Two-sided p of Student's t with 4 degrees of freedom, in closed form.
double t4_p(double t) {
  const double u = 1 + t * t / 4;
  return 1 - 0.75 * (t / std::sqrt(u)) * (1 - t * t / u / 12);
}

// The pooled McNemar test the report used before (kept here to show where it overclaims).
double pooled_mcnemar_p(int b, int c) {
  const double chi2 = std::pow(std::max(0.0, std::abs(double(b - c)) - 1.0), 2) / double(b + c);
  return std::erfc(std::sqrt(chi2 / 2));
}

}  // namespace

TEST_CASE("statistics: Student's t, Welch's test and Holm's correction on known values") {
  CHECK(student_t_two_sided_p(1.0, 1.0) == doctest::Approx(0.5).epsilon(1e-10));  // Cauchy
  CHECK(student_t_two_sided_p(2.0, 2.0) == doctest::Approx(1 - 2 / std::sqrt(6.0)).epsilon(1e-10));
  CHECK(student_t_two_sided_p(2.776445, 4.0) == doctest::Approx(0.05).epsilon(1e-5));
  CHECK(student_t_two_sided_p(0.0, 7.3) == doctest::Approx(1.0));
  CHECK(student_t_quantile(0.05, 4.0) == doctest::Approx(2.776445).epsilon(1e-6));
  CHECK(student_t_quantile(0.05, 10.0) == doctest::Approx(2.228139).epsilon(1e-6));
  CHECK(incomplete_beta(2.5, 1.5, 0.3) + incomplete_beta(1.5, 2.5, 0.7) == doctest::Approx(1.0));
  // {1,2,3} against {4,5,6}: t = 3/sqrt(2/3), df = 4
  const WelchTest w = welch_t_test({1, 2, 3}, {4, 5, 6});
  CHECK(w.t == doctest::Approx(3 / std::sqrt(2.0 / 3)));
  CHECK(w.df == doctest::Approx(4.0));
  CHECK(w.p == doctest::Approx(t4_p(w.t)).epsilon(1e-8));
  // Unequal variances and sizes: means 2 and 5.5, variances 2 and 29/3; se^2 = 1 + 29/12,
  // df by Welch-Satterthwaite = se^4 / (1 + (29/12)^2 / 3)
  const WelchTest u = welch_t_test({1, 3}, {2, 4, 9, 7});
  const double se2 = 1 + 29.0 / 12;
  CHECK(u.t == doctest::Approx(3.5 / std::sqrt(se2)));
  CHECK(u.df == doctest::Approx(se2 * se2 / (1 + (29.0 / 12) * (29.0 / 12) / 3)));
  CHECK(welch_t_test({1}, {2, 3}).p == -1);  // one seed: no test
  CHECK(welch_t_test({5, 5}, {5, 5}).p == 1.0);
  CHECK(welch_t_test({5, 5}, {6, 6}).p == -1);  // no variance at all: not computable
  const std::vector<double> adj = holm_adjust({0.01, 0.04, 0.03, -1});
  CHECK(adj[0] == doctest::Approx(0.03));
  CHECK(adj[2] == doctest::Approx(0.06));
  CHECK(adj[1] == doctest::Approx(0.06));  // monotone: never below an earlier step
  CHECK(adj[3] == -1);
}

TEST_CASE("compare: means, sd, difference with interval, Welch's test over seeds, Holm") {
  test::TempDir d("compare");
  const auto files = write_groups(d.path, {60, 62, 64}, {70, 72, 74});
  const Comparison c = compare_runs(load_runs(files), 400);
  REQUIRE(c.groups == std::vector<std::string>{"softmax", "ssa"});
  CHECK(c.baseline_of == std::vector<int>{-1, 0});
  CHECK(c.paradigm[0].at("agr-x").mean == doctest::Approx(62.0));
  CHECK(c.paradigm[0].at("agr-x").sd == doctest::Approx(2.0));
  CHECK(c.paradigm[1].at("agr-x").mean == doctest::Approx(72.0));
  CHECK(c.phenomenon[1].at("bind").mean == doctest::Approx(50.0));
  CHECK(c.overall[1].mean == doctest::Approx(61.0));
  const Difference& d_agr = c.paradigm_diff[1].at("agr-x");
  CHECK(d_agr.diff == doctest::Approx(10.0));
  CHECK(d_agr.has_ci);
  CHECK(d_agr.test == SeedTest::welch);  // the results record no training settings: not paired
  CHECK_FALSE(c.paired[1]);
  CHECK(d_agr.lo == doctest::Approx(10 - 2.776445 * std::sqrt(8.0 / 3)).epsilon(1e-5));
  CHECK(d_agr.lo > 0.0);
  CHECK(d_agr.has_boot);  // the secondary bootstrap interval
  CHECK(d_agr.boot_lo < 10.0);
  CHECK(d_agr.boot_hi > 10.0);
  // Welch: t = 10 / sqrt(4/3 + 4/3), df = 4; Holm over the 2 paradigms (bind-y: p = 1)
  const double p = t4_p(10 / std::sqrt(8.0 / 3));
  CHECK(d_agr.p == doctest::Approx(p).epsilon(1e-8));
  CHECK(d_agr.p_adj == doctest::Approx(2 * p).epsilon(1e-8));
  CHECK(d_agr.resolved);
  const Difference& d_bind = c.paradigm_diff[1].at("bind-y");
  CHECK(d_bind.diff == doctest::Approx(0.0));
  CHECK(d_bind.p == 1.0);
  CHECK_FALSE(d_bind.resolved);

  write_report(d.path / "report", c);
  const std::string md = read_file(d.path / "report" / "report.md");
  CHECK(md.find("| agr | 62.0 ± 2.0 | 72.0 ± 2.0 | **+10.0 [") != std::string::npos);
  CHECK(md.find("## Summary") < md.find("## Phenomena"));
  CHECK(md.find("Resolved: agr higher by 10.0 points") != std::string::npos);
  CHECK(md.find("Holm-corrected") != std::string::npos);
  const std::string csv = read_file(d.path / "report" / "report.csv");
  CHECK(csv.find("paradigm,\"agr-x\",\"ssa\",\"ssa\",\"\",72.0000,2.0000,3,\"softmax\",10,") !=
        std::string::npos);
  CHECK(csv.find("setting,\"method\",\"ssa\"") != std::string::npos);
  for (const char* f : {"phenomena.svg", "paradigms.svg", "differences.svg"})
    CHECK(fs::exists(d.path / "report" / f));
}

TEST_CASE("compare: where pooled McNemar overclaims, the seed-level test does not") {
  // softmax seeds get 50 and 70 pairs right, ssa 60 and 80: 20 discordant pairs, all for ssa,
  // so pooled McNemar gives p < 1e-4; over seeds (two per group) the 10-point gain is within the
  // 20-point seed spread and Welch's p is large.
  test::TempDir d("mcnemar");
  const auto files = write_groups(d.path, {50, 70}, {60, 80});
  const Comparison c = compare_runs(load_runs(files), 400);
  const Difference& dd = c.paradigm_diff[1].at("agr-x");
  CHECK(pooled_mcnemar_p(0, 20) < 1e-4);
  CHECK(dd.diff == doctest::Approx(10.0));
  CHECK(dd.test == SeedTest::none);  // two seeds per group: exploratory, nothing tested
  CHECK(dd.p == -1);
  CHECK_FALSE(dd.resolved);
  write_report(d.path / "report", c);
  const std::string md = read_file(d.path / "report" / "report.md");
  CHECK(md.find("exploratory: 2 against 2 seeds, fewer than 3 in a group, nothing tested") !=
        std::string::npos);
  CHECK(md.find("+10.0 (exploratory)") != std::string::npos);
  CHECK(md.find(" resolved**") == std::string::npos);
}

TEST_CASE("compare: paired by seed, a true 10-point gain with seed sd 5 is resolved; 1 point is not") {
  // softmax seeds 60, 65, 55 (seed sd 5); ssa the same seeds + 11, 9, 11 on agr-x (bind-y is 50
  // everywhere), so overall (the mean of the two paradigms) differs by 5.5, 4.5, 5.5.
  test::TempDir d("paired");
  const auto files = write_paired_groups(d.path, {60, 65, 55}, {71, 74, 66});
  const Comparison c = compare_runs(load_runs(files), 200);
  CHECK(c.paired[1]);
  const Difference& o = c.overall_diff[1];
  CHECK(o.test == SeedTest::paired);
  CHECK(o.n == 3);
  CHECK(o.df == 2);
  CHECK(o.diff == doctest::Approx(31.0 / 6));
  CHECK(o.resolved);
  // the same numbers unpaired (no training settings recorded): Welch cannot see the pairing
  const Comparison w = compare_runs(load_runs(write_groups(d.path / "welch", {60, 65, 55},
                                                           {71, 74, 66})), 200);
  CHECK(w.overall_diff[1].test == SeedTest::welch);
  CHECK(w.overall_diff[1].hi - w.overall_diff[1].lo > o.hi - o.lo);

  // A 1-point gain under seed noise of sd 3: differences 3, -2, 1 on agr-x.
  test::TempDir e("paired-small");
  const Comparison s = compare_runs(load_runs(write_paired_groups(e.path, {60, 65, 55},
                                                                  {63, 63, 56})), 200);
  const Difference& so = s.overall_diff[1];
  CHECK(so.test == SeedTest::paired);
  CHECK_FALSE(so.resolved);
  CHECK(so.lo < 0);
  CHECK(so.mde > so.hi - so.diff);  // what it could have detected: more than the half-width
  CHECK(so.mde == doctest::Approx(minimum_detectable_difference(so.se, 2)).epsilon(1e-9));
  write_report(e.path / "report", s);
  const std::string md = read_file(e.path / "report" / "report.md");
  CHECK(md.find("paired t over 3 seeds (2 df)") != std::string::npos);
  CHECK(md.find(fmt::format("could have detected with 80% power is about {:.1f} points", so.mde)) !=
        std::string::npos);
  CHECK(md.find("The interval excludes differences below") != std::string::npos);
  const std::string findings = read_file(e.path / "report" / "findings.md");
  CHECK(findings.find(fmt::format("detectable ≈ {:.1f}", so.mde)) != std::string::npos);
  CHECK(findings.find("paired t over 3 seeds (2 df)") != std::string::npos);
  CHECK(md.find("a phenomenon needs |t| > 6.2 after Holm over 2 phenomena, a paradigm |t| > 6.2") !=
        std::string::npos);
}

TEST_CASE("compare: an n-gram baseline is a reference column, never compared and no stratum") {
  test::TempDir d("reference");
  auto files = write_groups(d.path, {60, 62, 64}, {70, 72, 74});
  files.push_back(write_run(d.path, "trigram", 0, 80, "ngram"));
  const Comparison c = compare_runs(load_runs(files), 100);
  REQUIRE(c.groups == std::vector<std::string>{"softmax", "ssa", "trigram (reference)"});
  CHECK(c.baseline_of == std::vector<int>{-1, 0, -1});
  CHECK(c.strata[1].empty());  // the reference's method makes no stratum of the trained groups
  CHECK(c.paradigm[2].at("agr-x").mean == doctest::Approx(80.0));
  CHECK(c.overall_diff[1].diff == doctest::Approx(5.0));

  // The reference has no training curve: not drawn and not in the learning curve's legend, and
  // ssa keeps its colour (the third), as in the bar charts.
  Comparison curves = c;
  for (RunResult& r : curves.runs)
    if (r.label != "trigram") r.curve = {{100, 55.0}, {200, r.label == "ssa" ? 70.0 : 60.0}};
  std::string learning;
  for (const auto& chart : report_charts(curves))
    if (chart.file == "learning_curve.svg") learning = chart.svg;
  REQUIRE_FALSE(learning.empty());
  CHECK(learning.find(">ssa</text>") != std::string::npos);
  CHECK(learning.find("trigram") == std::string::npos);
  const std::string bars = report_charts(curves).front().svg;  // phenomena.svg
  auto colour_before = [](const std::string& svg, const std::string& legend) {
    const size_t at = svg.rfind("fill=\"", svg.find(legend));
    return svg.substr(at, 14);  // fill="#RRGGBB"
  };
  CHECK(colour_before(learning, ">ssa</text>") == colour_before(bars, ">ssa</text>"));
}

TEST_CASE("compare: results without pair outcomes get Welch's t interval over seeds") {
  test::TempDir d("nopairs");
  const auto files = write_groups(d.path, {60, 62, 64}, {70, 72, 74});
  for (const auto& f : files) fs::remove(pairs_path_for(f));
  const Comparison c = compare_runs(load_runs(files), 200);
  const Difference& dd = c.paradigm_diff[1].at("agr-x");
  REQUIRE(dd.has_ci);
  CHECK_FALSE(dd.has_boot);  // no pair outcomes: no bootstrap
  // diff 10, se = sqrt(4/3 + 4/3), df = 4: t_{0.975, 4} = 2.776445
  const double half = 2.776445 * std::sqrt(8.0 / 3);
  CHECK(dd.lo == doctest::Approx(10 - half).epsilon(1e-5));
  CHECK(dd.hi == doctest::Approx(10 + half).epsilon(1e-5));
  CHECK(dd.resolved);
  write_report(d.path / "report", c);
  CHECK(read_file(d.path / "report" / "report.md").find("Welch t, 3 against 3 seeds (4.0 df") !=
        std::string::npos);
}

TEST_CASE("compare: a paradigm one side lacks gives no difference, never a 0% accuracy") {
  test::TempDir d("missing");
  const auto files = write_groups(d.path, {61, 62}, {71, 72});
  // ssa's results lose paradigm bind-y (as if probed on a suite without it)
  for (const auto& f : files)
    if (f.filename().string().rfind("ssa", 0) == 0) {
      nlohmann::json j = nlohmann::json::parse(read_file(f));
      j["paradigms"].erase("bind-y");
      write_file_atomic(f, j.dump());
      fs::remove(pairs_path_for(f));
    }
  const Comparison c = compare_runs(load_runs(files), 200);
  CHECK(std::isnan(c.paradigm[1].at("bind-y").mean));
  CHECK(c.paradigm[1].at("bind-y").n == 0);
  const Difference& dd = c.paradigm_diff[1].at("bind-y");
  CHECK(std::isnan(dd.diff));
  CHECK_FALSE(dd.has_ci);
  CHECK_FALSE(dd.resolved);
  CHECK(c.paradigm_diff[1].at("agr-x").diff == doctest::Approx(10.0));
  write_report(d.path / "report", c);
  const std::string md = read_file(d.path / "report" / "report.md");
  CHECK(md.find("| bind-y | 50.0 ± 0.0 | — | — |") != std::string::npos);
}

TEST_CASE("compare: one seed per group has no seed-level test and says so") {
  test::TempDir d("oneseed");
  const Comparison c = compare_runs(
      load_runs({write_run(d.path, "softmax", 1, 60), write_run(d.path, "ssa", 1, 80)}), 200);
  const Difference& dd = c.paradigm_diff[1].at("agr-x");
  CHECK(dd.has_boot);  // pairs resampled (secondary)
  CHECK_FALSE(dd.has_ci);
  CHECK(dd.p == -1);
  CHECK_FALSE(dd.resolved);
  write_report(d.path / "report", c);
  const std::string md = read_file(d.path / "report" / "report.md");
  CHECK(md.find("exploratory: 1 against 1 seeds") != std::string::npos);
}

TEST_CASE("compare: a result given twice (or copied) is refused, never counted as another seed") {
  test::TempDir d("twice");
  const auto files = write_groups(d.path, {60, 62, 64}, {70, 72, 74});
  std::vector<fs::path> twice = files;
  twice.push_back(files.back());
  CHECK_THROWS_WITH(compare_runs(load_runs(twice), 200),
                    doctest::Contains("are both seed 3 of 'ssa'"));
  fs::create_directories(d.path / "copy");
  fs::copy_file(files.back(), d.path / "copy" / "other-name.json");
  std::vector<fs::path> copied = files;
  copied.push_back(d.path / "copy" / "other-name.json");
  CHECK_THROWS_WITH(compare_runs(load_runs(copied), 200),
                    doctest::Contains("one result per run; was a file given twice or copied?"));
}

TEST_CASE("compare: where every seed's difference is the same, no detectable difference (never nan)") {
  test::TempDir d("constant");
  const Comparison c = compare_runs(load_runs(write_paired_groups(d.path, {60, 62, 64}, {70, 72, 74})), 200);
  CHECK(std::isnan(c.overall_diff[1].mde));  // no spread between the seeds' differences
  write_report(d.path / "report", c);
  const std::string findings = read_file(d.path / "report" / "findings.md");
  CHECK(findings.find("detectable — (every seed's difference the same)") != std::string::npos);
  CHECK(findings.find("nan") == std::string::npos);
  CHECK(read_file(d.path / "report" / "report.md").find("nan") == std::string::npos);
}

TEST_CASE("compare: methods are strata, never subtracted across; --baseline picks the label") {
  test::TempDir d("strata");
  std::vector<fs::path> files;
  for (int k = 1; k <= 2; ++k) {
    files.push_back(write_run(d.path, "softmax", k, 60 + k, "holistic"));
    files.push_back(write_run(d.path, "ssa", k, 70 + k, "holistic"));
    files.push_back(write_run(d.path, "softmax", k, 40 + k, "pll"));
    files.push_back(write_run(d.path, "ssa", k, 45 + k, "pll"));
  }
  const Comparison c = compare_runs(load_runs(files), 200);
  REQUIRE(c.groups.size() == 4);
  CHECK(c.groups[0] == "softmax, holistic");
  CHECK(c.groups[1] == "softmax, pll");
  for (size_t g = 2; g < 4; ++g) {
    CAPTURE(c.groups[g]);
    REQUIRE(c.compared(g));
    CHECK(c.strata[size_t(c.baseline_of[g])] == c.strata[g]);  // the same method
  }
  const size_t pll = c.groups[2] == "ssa, pll" ? 2 : 3;
  CHECK(c.paradigm_diff[pll].at("agr-x").diff == doctest::Approx(5.0));
  CHECK(c.paradigm_diff[5 - pll].at("agr-x").diff == doctest::Approx(10.0));
  // With ssa as the baseline, softmax is compared with it.
  const Comparison b = compare_runs(load_runs(files), 200, 1, "ssa");
  CHECK(b.labels[0] == "ssa");
  CHECK(b.labels[2] == "softmax");
  CHECK(b.paradigm_diff[2].at("agr-x").diff < 0);
  // A baseline no result has: one line listing the labels there are.
  CHECK_THROWS_WITH_AS(compare_runs(load_runs(files), 200, 1, "cosformer"),
                       doctest::Contains("no results labelled 'cosformer' to compare with "
                                         "(--baseline; the labels are: softmax, ssa)"),
                       Error);
}

TEST_CASE("compare: --baseline softmax means each kind's softmax, also where no roberta result is "
          "given (a gpt2 group against gpt2 softmax; both kinds' baselines first)") {
  test::TempDir d("compare-kinds");
  std::vector<fs::path> gpt2, both;
  for (int seed = 1; seed <= 3; ++seed) {
    gpt2.push_back(write_run(d.path, "gpt2 ssa", seed, 60 + seed, "causal"));
    gpt2.push_back(write_run(d.path, "gpt2 softmax", seed, 50 + seed, "causal"));
  }
  const Comparison c = compare_runs(load_runs(gpt2), 200, 1, "softmax");
  REQUIRE(c.labels.size() == 2);
  CHECK(c.labels[0] == "gpt2 softmax");
  REQUIRE(c.compared(1));
  CHECK(c.paradigm_diff[1].at("agr-x").diff == doctest::Approx(10.0));
  both = gpt2;
  for (int seed = 1; seed <= 3; ++seed) {
    both.push_back(write_run(d.path, "ssa", seed, 70, "holistic"));
    both.push_back(write_run(d.path, "softmax", seed, 65, "holistic"));
  }
  const Comparison m = compare_runs(load_runs(both), 200, 1, "softmax");
  REQUIRE(m.labels.size() == 4);
  CHECK(m.labels[0] == "gpt2 softmax");
  CHECK(m.labels[1] == "softmax");
  for (size_t g = 2; g < 4; ++g) {
    CAPTURE(m.labels[g]);
    REQUIRE(m.compared(g));
    CHECK(m.labels[size_t(m.baseline_of[g])] ==
          (m.labels[g] == "ssa" ? "softmax" : "gpt2 softmax"));
  }
  CHECK_THROWS_WITH_AS(compare_runs(load_runs(gpt2), 200, 1, "cosformer"),
                       doctest::Contains("no results labelled 'cosformer' to compare with"), Error);
}

TEST_CASE("compare: a 2-seed grid's findings say exploratory, nothing tested (issue 46, item 5)") {
  // Two seeds per group: no t interval anywhere, while the seeds-and-pairs bootstrap interval of a
  // 20-point gap excludes 0. findings.md said "no phenomenon or paradigm interval excludes 0".
  test::TempDir d("twoseeds");
  const auto files = write_paired_groups(d.path, {60, 62}, {80, 81});
  const Comparison c = compare_runs(load_runs(files), 200);
  CHECK_FALSE(c.paradigm_diff[1].at("agr-x").has_ci);
  CHECK(c.paradigm_diff[1].at("agr-x").has_boot);
  write_report(d.path / "report", c);
  const std::string findings = read_file(d.path / "report" / "findings.md");
  CHECK(findings.find("no phenomenon or paradigm interval excludes 0") == std::string::npos);
  CHECK(findings.find("phenomena and paradigms: exploratory, nothing tested") != std::string::npos);
  CHECK(findings.find("a bootstrap interval that excludes 0 is no test") != std::string::npos);
  // With 3 seeds the old sentence stays, with the count of what was tested.
  test::TempDir e("threeseeds");
  const Comparison t = compare_runs(load_runs(write_paired_groups(e.path, {60, 65, 55},
                                                                  {63, 63, 56})), 200);
  write_report(e.path / "report", t);
  CHECK(read_file(e.path / "report" / "findings.md").find("interval excludes 0 (") !=
        std::string::npos);
}

TEST_CASE("compare --primary: the fixed endpoints tested together, Holm over them alone") {
  test::TempDir d("primary");
  std::vector<fs::path> files = write_paired_groups(d.path, {60, 65, 55}, {71, 74, 66});
  // A published model's 3 runs as a reference group (overall 45, 55, 65: agr-x 40, 60, 80).
  for (int k = 0; k < 3; ++k) {
    const fs::path f = write_run(d.path / "ref", "published", k + 1, 40 + 20 * k);
    nlohmann::json j = nlohmann::json::parse(read_file(f));
    j["reference"] = true;
    write_file_atomic(f, j.dump());
    files.push_back(f);
  }
  Comparison c = compare_runs(load_runs(files), 200);
  c.primary = {"overall", "agr", "bind"};
  write_report(d.path / "report", c);
  const std::string md = read_file(d.path / "report" / "findings.md");
  REQUIRE(md.find("## Primary endpoints") != std::string::npos);
  CHECK(md.find("Fixed before the evaluation: overall, agr, bind") != std::string::npos);
  CHECK(md.find("| p (Holm over 3) |") != std::string::npos);
  // overall: paired t over 3 seeds (differences 5.5, 4.5, 5.5); its Holm p is at most 3 times
  // its p and at least its p.
  const Difference& o = c.overall_diff[1];
  const std::vector<double> holm = holm_adjust({o.p, c.phenomenon_diff[1].at("agr").p,
                                                c.phenomenon_diff[1].at("bind").p});
  CHECK(md.find(fmt::format("| overall | {:+.1f} [{:+.1f}, {:+.1f}] | paired t, 3 seeds | {:.3f} | "
                            "{:.3f} |", o.diff, o.lo, o.hi, o.p, holm[0])) != std::string::npos);
  CHECK(md.find("**published (reference)**: overall 55.0 ± 10.0 over 3 runs, from 45.00 to 65.00. "
                "softmax (3 seeds, mean 55.0): within its range.") != std::string::npos);
  // A name that is no endpoint of these results is refused, listing the phenomena.
  c.primary = {"overall", "agreement"};
  CHECK_THROWS_WITH_AS(check_primary_endpoints(c, c.primary),
                       doctest::Contains("--primary: 'agreement' is neither overall nor a "
                                         "phenomenon or paradigm of these results (phenomena: agr, bind)"),
                       Error);
}

TEST_CASE("compare: fp32 and bf16 results are strata, never mixed in a group or subtracted") {
  test::TempDir d("precision-strata");
  std::vector<fs::path> files;
  auto trained_in = [](const fs::path& f, const std::string& precision, bool scored_bf16) {
    nlohmann::json h = nlohmann::json::parse(read_file(f));
    h["training"] = {{"--seed", h["config"]["seed"]}};
    if (precision != "fp32") h["training"]["--precision"] = precision;
    if (scored_bf16) h["precision"] = "bf16";
    write_file_atomic(f, h.dump());
    return f;
  };
  for (int k = 1; k <= 3; ++k)
    for (const char* precision : {"fp32", "bf16"}) {
      const fs::path sub = d.path / precision;
      fs::create_directories(sub);
      files.push_back(trained_in(write_run(sub, "softmax", k, 60 + k), precision, false));
      files.push_back(trained_in(write_run(sub, "ssa", k, 70 + k), precision, false));
    }
  const Comparison c = compare_runs(load_runs(files), 100);
  REQUIRE(c.groups.size() == 4);
  for (size_t g = 0; g < 4; ++g) {
    CAPTURE(c.groups[g]);
    CHECK(c.seeds[g] == 3);  // one precision's three seeds, never six
    if (c.compared(g)) CHECK(c.strata[size_t(c.baseline_of[g])] == c.strata[g]);
  }
  CHECK(std::count(c.strata.begin(), c.strata.end(), "fp32") == 2);
  // trained in bf16 and probed in fp32 (the default): said so
  CHECK(std::count(c.strata.begin(), c.strata.end(), "trained bf16, scored fp32") == 2);
  // scored in bf16 what was trained in fp32: a stratum of its own
  files.push_back(trained_in(write_run(d.path, "softmax", 1, 61), "fp32", true));
  const Comparison m = compare_runs(load_runs(files), 100);
  CHECK(std::count(m.strata.begin(), m.strata.end(), "trained fp32, scored bf16") == 1);
}

TEST_CASE("compare --equivalence: two arms paired by label and seed, TOST per endpoint") {
  test::TempDir d("equivalence");
  std::vector<fs::path> files;
  auto arm = [&](const std::string& precision, int k, const std::string& label, int correct,
                 double dev) {
    const fs::path sub = d.path / precision;
    fs::create_directories(sub);
    const fs::path f = write_run(sub, label, k, correct);
    nlohmann::json h = nlohmann::json::parse(read_file(f));
    h["training"] = {{"--seed", k}};
    if (precision != "fp32") h["training"]["--precision"] = precision;
    write_file_atomic(f, h.dump());
    write_file_atomic(sub / ("metrics-" + f.stem().string() + ".jsonl"),
                      fmt::format("{{\"step\": 5, \"dev_loss\": 3.0}}\n"
                                  "{{\"step\": 10, \"dev_loss\": {}}}\n", dev));
    files.push_back(f);
  };
  const int shift[3][2] = {{1, 0}, {0, 1}, {1, 0}};  // bf16's extra correct pairs (of 100)
  for (int k = 1; k <= 3; ++k) {
    arm("fp32", k, "softmax", 60 + k, 2.50 + 0.01 * k);
    arm("fp32", k, "ssa", 70 + k, 2.60 + 0.01 * k);
  }
  for (int k = 1; k <= 3; ++k) {
    arm("bf16", k, "softmax", 60 + k + shift[k - 1][0], 2.501 + 0.01 * k);
    arm("bf16", k, "ssa", 70 + k + shift[k - 1][1], 2.602 + 0.01 * k);
  }
  Comparison c = compare_runs(load_runs(files), 50);
  c.equivalence = parse_equivalence("overall=1.0,dev_loss=0.02");
  const std::string md = equivalence_md(c, c.equivalence);
  CAPTURE(md);
  // overall: paired differences 0.5, 0, 0, 0.5, 0.5, 0 points (agr-x's extra pair of 100 halved)
  CHECK(md.find("## Equivalence: trained bf16, scored fp32 − fp32") != std::string::npos);
  CHECK(md.find("| overall | ±1 | 6 | +0.25 |") != std::string::npos);
  CHECK(md.find("| dev_loss | ±0.02 | 6 | +0.0015 |") != std::string::npos);
  CHECK(md.find("| not shown equivalent |") == std::string::npos);
  c.equivalence = parse_equivalence("overall=0.3");
  const std::string narrow = equivalence_md(c, c.equivalence);
  CAPTURE(narrow);
  CHECK(narrow.find("| overall | ±0.3 | 6 | +0.25 | [+0.02, +0.48] |") != std::string::npos);
  CHECK(narrow.find("| not shown equivalent |") != std::string::npos);
  // what cannot pair, or is not two arms, is refused naming it
  CHECK_THROWS_WITH(parse_equivalence("overall=0"), doctest::Contains("the margin must be > 0"));
  CHECK_THROWS_WITH(parse_equivalence("zorro=1"), doctest::Contains("'zorro=1': expected ENDPOINT=MARGIN"));
  CHECK_THROWS_WITH(parse_equivalence("overall=x"), doctest::Contains("the margin is not a number"));
  files.pop_back();  // bf16 ssa seed 3 gone: still pairs what is there
  files.erase(files.begin());  // fp32 softmax seed 1 gone: bf16 softmax seed 1 has no pair
  Comparison m = compare_runs(load_runs(files), 50);
  m.equivalence = parse_equivalence("overall=1");
  CHECK_THROWS_WITH(equivalence_md(m, m.equivalence),
                    doctest::Contains("softmax seed 1 ("));
  CHECK_THROWS_WITH(equivalence_md(m, m.equivalence),
                    doctest::Contains("has no run of the same label and seed in the arm \"fp32\""));
}
