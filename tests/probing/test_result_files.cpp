// Probe result files as compare reads them (curves, malformed files refused naming the field),
// result paths checked before scoring, and the SVG charts rendered in Chromium.
#include <doctest/doctest.h>

#include <functional>

#include "common/error.h"
#include "common/files.h"
#include "probing/compare.h"
#include "probing/report.h"
#include "probing/report_charts.h"
#include "probing/results.h"
#include "common/svg.h"
#include "render_svg.h"
#include "temp_dir.h"
#include "probing/result_files.h"

using namespace bb;
using namespace bb::test;
namespace fs = std::filesystem;

TEST_CASE("compare: curves from metrics-NAME.jsonl next to a result whose run directory is gone") {
  test::TempDir dir("compare-metrics");
  const fs::path f = write_run(dir.path, "softmax", 1, 60);  // its model "m" does not exist
  write_file_atomic(dir.path / ("metrics-" + f.stem().string() + ".jsonl"),
                    "{\"step\":100,\"dev_loss\":4.5,\"probe_overall\":55.0}\n"
                    "{\"step\":200,\"dev_loss\":4.0,\"probe_overall\":58.5}\n");
  const auto runs = load_runs({f});
  REQUIRE(runs.size() == 1);
  CHECK(runs[0].dev_loss.at(200) == 4.0);
  CHECK(runs[0].curve.at(100) == 55.0);
}

TEST_CASE("compare: curves from runs/NAME/metrics.jsonl beside results/ (an experiment's layout, "
          "a study folder's copy), for results scored by their kind's default method only") {
  test::TempDir dir("compare-layout");
  fs::create_directories(dir.path / "results");
  const std::string lines = "{\"step\":100,\"dev_loss\":4.5,\"probe_overall\":55.0}\n"
                            "{\"step\":200,\"dev_loss\":4.0,\"probe_overall\":58.5}\n";
  // write_run names its files LABEL-METHOD-SEED.json: the run directory of that name
  const fs::path causal = write_run(dir.path / "results", "gpt2 ssa", 1, 60, "causal");
  const fs::path holistic = write_run(dir.path / "results", "ssa", 1, 60, "holistic");
  const fs::path pll = write_run(dir.path / "results", "ssa", 1, 60, "pll");
  for (const fs::path& f : {causal, holistic, pll}) {
    fs::create_directories(dir.path / "runs" / f.stem());
    write_file_atomic(dir.path / "runs" / f.stem() / "metrics.jsonl", lines);
  }
  const auto runs = load_runs({causal, holistic, pll});
  REQUIRE(runs.size() == 3);
  for (const auto& r : runs) {
    CAPTURE(r.path);
    const bool pseudo = r.header["method"] == "pll";  // not what train --probe-every measured
    CHECK(r.curve.size() == (pseudo ? 0u : 2u));
    CHECK(r.dev_loss.size() == (pseudo ? 0u : 2u));
    if (!pseudo) CHECK(r.curve.at(200) == 58.5);
  }
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

  // Every chart of a report (with learning and dev-loss curves), rendered at 1200 x 900.
  std::vector<fs::path> files;
  for (int k = 1; k <= 2; ++k)
    for (const auto& [label, correct] : {std::pair{"softmax", 60}, {"ssa", 75}, {"cosformer", -k}})
      files.push_back(write_run(d.path, label, k, correct + k));
  Comparison c = compare_runs(load_runs(files), 200);
  for (RunResult& r : c.runs)
    for (int64_t step : {100, 200, 300}) {
      r.curve[step] = 50 + double(step) / 20 + (r.label == "ssa" ? 3 : 0);
      r.dev_loss[step] = 6 - double(step) / 100 - (r.label == "ssa" ? 0.2 : 0);
    }
  const auto charts = report_charts(c);
  std::vector<std::string> names;
  for (const auto& chart : charts) names.push_back(chart.file);
  CHECK(names == std::vector<std::string>{"phenomena.svg", "paradigms.svg", "differences.svg",
                                          "learning_curve.svg", "dev_loss.svg"});
  for (const auto& chart : charts) {
    CAPTURE(chart.file);
    for (const auto& g : c.groups)  // every group drawn (differences: every compared one)
      if (chart.file != "differences.svg" || g != "softmax")
        CHECK(chart.svg.find(">" + g) != std::string::npos);
    write_file_atomic(d.path / chart.file, chart.svg);
    const std::string png = test::render_svg(d.path / chart.file, d.path, 1200);
    REQUIRE(png.size() > 8);
    CHECK(png.substr(1, 3) == "PNG");
    CHECK(png.size() > 3 * blank_png.size());
  }
  // A 0% bar (cosformer's agr) is drawn with a visible height.
  CHECK(c.phenomenon[2].at("agr").mean == 0.0);
  CHECK(charts[0].svg.find("height=\"1.5\"") != std::string::npos);
}
