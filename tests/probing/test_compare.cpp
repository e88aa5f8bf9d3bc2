// compare: statistics on synthetic results with known answers; the SVG renders in Chromium.
#include <doctest/doctest.h>

#include <algorithm>
#include <cstdlib>
#include <fstream>
#include <functional>

#include "common/error.h"

#include "common/files.h"
#include "probing/compare.h"
#include "probing/report.h"
#include "probing/results.h"
#include "probing/svg.h"
#include "render_svg.h"
#include "temp_dir.h"

using namespace bb;
namespace fs = std::filesystem;

namespace {
// A run whose paradigm "agr-x" has `correct` of 100 pairs right (the first ones), "bind-y" 50.
fs::path write_run(const fs::path& dir, const std::string& label, int seed, int correct) {
  Suite s;
  s.paradigms = {"agr-x", "bind-y"};
  std::vector<double> good, bad;
  for (int i = 0; i < 100; ++i) {
    s.pairs.push_back({"g", "b", "agr-x", "agr", i});
    good.push_back(i < correct ? 1.0 : 3.0), bad.push_back(2.0);
  }
  for (int i = 0; i < 100; ++i) {
    s.pairs.push_back({"g", "b", "bind-y", "bind", i});
    good.push_back(i % 2 ? 1.0 : 3.0), bad.push_back(2.0);
  }
  const auto sum = summarize(s, good, bad, Method::holistic, TieRule::half);
  const fs::path f = dir / (label + "-" + std::to_string(seed) + ".json");
  write_probe_results(f, {{"model", "m"}, {"config", {{"label", label}, {"seed", seed}, {"steps", 10}}},
                          {"method", "holistic"}, {"tie_rule", "half"}},
                      sum);
  return f;
}
}  // namespace

TEST_CASE("compare: means, sd, difference with CI, McNemar") {
  test::TempDir d("compare");
  std::vector<fs::path> files;
  const int soft[3] = {60, 62, 64}, ssa[3] = {70, 72, 74};
  for (int k = 0; k < 3; ++k) {
    files.push_back(write_run(d.path, "ssa", k + 1, ssa[k]));
    files.push_back(write_run(d.path, "softmax", k + 1, soft[k]));
  }
  const Comparison c = compare_runs(load_runs(files), 400);
  REQUIRE(c.groups == std::vector<std::string>{"softmax", "ssa"});
  CHECK(c.paradigm[0].at("agr-x").mean == doctest::Approx(62.0));
  CHECK(c.paradigm[0].at("agr-x").sd == doctest::Approx(2.0));
  CHECK(c.paradigm[1].at("agr-x").mean == doctest::Approx(72.0));
  CHECK(c.phenomenon[1].at("bind").mean == doctest::Approx(50.0));
  CHECK(c.overall[1].mean == doctest::Approx(61.0));
  const Difference& d_agr = c.paradigm_diff[0].at("agr-x");
  CHECK(d_agr.diff == doctest::Approx(10.0));
  CHECK(d_agr.has_ci);
  CHECK(d_agr.lo < 10.0);
  CHECK(d_agr.hi > 10.0);
  CHECK(d_agr.lo > 0.0);  // 30 pooled discordant pairs all favour ssa
  // Matched by seed: ssa gets pairs [soft_k, ssa_k) right that softmax misses: 10 per seed.
  CHECK(d_agr.b == 0);
  CHECK(d_agr.c == 30);
  CHECK(d_agr.p == doctest::Approx(mcnemar_p(0, 30)));
  CHECK(mcnemar_p(10, 0) == doctest::Approx(0.004426).epsilon(1e-3));  // chi2 = 8.1
  CHECK(mcnemar_p(5, 5) == doctest::Approx(1.0));
  const Difference& d_bind = c.paradigm_diff[0].at("bind-y");
  CHECK(d_bind.diff == doctest::Approx(0.0));
  CHECK(d_bind.b + d_bind.c == 0);

  write_report(d.path / "report", c);
  const std::string md = read_file(d.path / "report" / "report.md");
  CHECK(md.find("| agr | 62.0 ± 2.0 | 72.0 ± 2.0 | +10.0 [") != std::string::npos);
  const std::string csv = read_file(d.path / "report" / "report.csv");
  CHECK(csv.find("paradigm,\"agr-x\",\"ssa\",72.0000,2.0000,3,10.0000,") != std::string::npos);
  CHECK(fs::exists(d.path / "report" / "phenomena.svg"));
}

TEST_CASE("compare: malformed results are refused naming the file and the field") {
  test::TempDir d("compare-bad");
  const fs::path good = write_run(d.path, "softmax", 1, 60);
  const nlohmann::json h = nlohmann::json::parse(read_file(good));
  auto refused = [&](const std::function<void(nlohmann::json&)>& edit, const std::string& msg) {
    nlohmann::json j = h;
    edit(j);
    const fs::path f = d.path / "bad.json";
    write_file_atomic(f, j.dump());
    CAPTURE(msg);
    CHECK_THROWS_WITH_AS(load_runs({f}), doctest::Contains((f.string() + ": " + msg).c_str()), Error);
  };
  refused([](auto& j) { j["paradigms"] = nlohmann::json::object(); },
          "\"paradigms\" is empty, expected at least one paradigm");
  refused([](auto& j) { j["paradigms"]["agr-x"]["accuracy"] = 250; },
          "paradigm 'agr-x': \"accuracy\" is 250, expected a percentage in [0, 100]");
  refused([](auto& j) { j["paradigms"]["agr-x"]["accuracy"] = "high"; },
          "paradigm 'agr-x': \"accuracy\" is a string, expected a number");
  refused([](auto& j) { j["paradigms"]["agr-x"]["pairs"] = 0; },
          "paradigm 'agr-x': \"pairs\" is 0, expected at least 1");
  refused([](auto& j) { j["paradigms"]["agr-x"]["ties"] = 101; },
          "paradigm 'agr-x': \"ties\" is 101, expected 0 to 100");
  refused([](auto& j) { j["paradigms"]["agr-x"].erase("pairs"); },
          "paradigm 'agr-x': \"pairs\" is missing, expected an integer");
  refused([](auto& j) { j["paradigms"] = nlohmann::json::array(); },
          "\"paradigms\" is an array, expected an object");
  refused([](auto& j) { j["config"]["seed"] = "one"; },
          "config: \"seed\" is a string, expected an integer");
  refused([](auto& j) { j["method"] = 3; }, "\"method\" is an integer, expected a string");
  refused([](auto& j) { j = nlohmann::json::array({1, 2}); }, "not a probe result");
  refused([](auto& j) { j = {{"files", 3}}; }, "not a probe result");
  write_file_atomic(d.path / "broken.json", "{\"paradigms\": ");
  CHECK_THROWS_WITH_AS(load_runs({d.path / "broken.json"}),
                       doctest::Contains("broken.json: not valid JSON (syntax error at byte"), Error);
  // A malformed pairs line names the pairs file, line and field.
  write_file_atomic(pairs_path_for(good), "{\"paradigm\": \"agr-x\", \"outcome\": 1}\n"
                                          "{\"paradigm\": \"agr-x\", \"outcome\": 7}\n");
  CHECK_THROWS_WITH_AS(load_runs({good}),
                       doctest::Contains("pairs.jsonl:2: \"outcome\" is 7, expected 0 to 1"), Error);
}

TEST_CASE("probe outputs are checked for writability before scoring") {
  test::TempDir d("writable");
  check_results_writable(d.path / "sub" / "r.json");
  CHECK(fs::is_directory(d.path / "sub"));
  CHECK(fs::is_empty(d.path / "sub"));  // the scratch file is gone again
  CHECK_THROWS_WITH_AS(check_results_writable("/proc/nope/r.json"),
                       doctest::Contains("/proc/nope/r.json: cannot create the directory /proc/nope"),
                       Error);
  fs::create_directories(d.path / "r.pairs.jsonl");
  CHECK_THROWS_WITH_AS(check_results_writable(d.path / "r.json"),
                       doctest::Contains("r.pairs.jsonl: is a directory"), Error);
}

TEST_CASE("the SVG chart renders in headless Chromium") {
  if (!test::chromium_available()) {
    MESSAGE("skipped: no /usr/bin/chromium (scripts/install-deps.sh installs it)");
    return;
  }
  test::TempDir d("svg");
  BarChart chart{"Accuracy per phenomenon", {"agreement", "binding", "filler-gap"}, {"softmax", "ssa"},
                 {{62, 55, 70}, {72, 58, 66}}, {{2, 1, 3}, {2, 4, 1}}};
  const std::string svg = bar_chart_svg(chart);
  CHECK(svg.find("stroke-dasharray") != std::string::npos);  // the chance line
  CHECK(std::count(svg.begin(), svg.end(), '\n') > 10);
  write_file_atomic(d.path / "chart.svg", svg);
  write_file_atomic(d.path / "blank.svg",
                    "<svg xmlns=\"http://www.w3.org/2000/svg\" width=\"400\" height=\"400\"><rect "
                    "width=\"100%\" height=\"100%\" fill=\"white\"/></svg>");
  auto render = [&](const std::string& name) {
    return test::render_svg(d.path / (name + ".svg"), d.path, 400);
  };
  const std::string chart_png = render("chart"), blank_png = render("blank");
  REQUIRE(chart_png.size() > 8);
  CHECK(chart_png.substr(1, 3) == "PNG");
  // A page with bars, text and lines compresses far worse than a white page of the same size.
  CHECK(chart_png.size() > 3 * blank_png.size());
}
