// End to end through the CLI: train `tiny` on a toy grammar with subject-verb agreement (written
// by the test), probe unseen agreement pairs, and expect accuracy well above chance for softmax
// and SSA.
#include <doctest/doctest.h>

#include <algorithm>
#include <cstdlib>

#include <nlohmann/json.hpp>

#include "backend/device.h"
#include "common/error.h"
#include "common/files.h"
#include "temp_dir.h"
#include "toy_corpus.h"

using namespace bb;
namespace fs = std::filesystem;

TEST_CASE("train tiny on a toy grammar, then probe agreement pairs: well above chance, for each "
          "of the seven attention functions") {
  test::TempDir d("e2e");
  test::write_lines((d.path / "toy.txt").string(), test::toy_sentences(3000, 1));
  // Minimal pairs from other draws of the grammar: the grammatical sentence and the same
  // sentence with the verb's number flipped.
  std::string pairs;
  const auto test_sents = test::toy_sentences(200, 99);
  const std::vector<std::pair<std::string, std::string>> flips = {
      {" sees ", " see "}, {" likes ", " like "}, {" wants ", " want "}, {" has ", " have "}};
  for (const auto& s : test_sents)
    for (const auto& [a, b] : flips) {
      if (s.find(a) != std::string::npos) pairs += s + "\t" + std::string(s).replace(s.find(a), a.size(), b) + "\tagreement-toy\n";
      else if (s.find(b) != std::string::npos) pairs += s + "\t" + std::string(s).replace(s.find(b), b.size(), a) + "\tagreement-toy\n";
    }
  write_file_atomic(d.path / "pairs.tsv", pairs);
  const std::vector<std::string> functions = {"softmax",  "ssa",        "softmax-t", "sparsemax",
                                              "entmax15", "sa-softmax", "cosformer"};
  std::string results;
  for (const std::string& att : functions) {
    CAPTURE(att);
    const fs::path model = d.path / att;
    const std::string bin = BB_BINARY;
    const std::string train = bin + " train --corpus " + (d.path / "toy.txt").string() +
        " --attention " + att + " --preset tiny --steps 1200 --lr 2e-3 --warmup-steps 40"
        " --vocab-size 400 --eval-every 600 --dropout 0 --seed 3 --dev-seed 3 --out " + model.string() +
        " --probe-every 600 --probe-suite " + (d.path / "pairs.tsv").string() +
        " > " + (d.path / "train.log").string() + " 2>&1";
    REQUIRE(std::system(train.c_str()) == 0);
    const fs::path result = d.path / (att + ".json");
    if (att != "softmax-t") results.append(" ").append(result.string());  // listed first below
    const std::string probe = bin + " probe --model " + model.string() + " --suite " +
        (d.path / "pairs.tsv").string() + " --out " + result.string() + " > " +
        (d.path / "probe.log").string() + " 2>&1";
    REQUIRE(std::system(probe.c_str()) == 0);
    const auto j = nlohmann::json::parse(read_file(result));
    const double acc = j["overall"].get<double>();
    MESSAGE(att << ": toy agreement accuracy " << acc);
    // Chance is 50%; 70% of 200 pairs is far above it (binomial p < 1e-8). Single runs of the
    // sparse functions land at 77-100% depending on the seed (sparsemax: 99 with seed 3, 78 with
    // seed 4; entmax15 the reverse), so the bar is not set at the best seeds.
    CHECK(acc > 70.0);
    CHECK(j["config"]["attention_scoring"] == att);
    CHECK(fs::exists(fs::path(result).replace_extension(".pairs.jsonl")));
    // Learning curve from --probe-every: a probe result per 600 steps, in metrics.jsonl too.
    CHECK(fs::exists(model / "probes" / "step-1200.json"));
    const std::string metrics = read_file(model / "metrics.jsonl");
    CHECK(std::count(metrics.begin(), metrics.end(), '\n') == 2);
    CHECK(metrics.find("\"probe_overall\"") != std::string::npos);
    const auto last = nlohmann::json::parse(metrics.substr(metrics.rfind('\n', metrics.size() - 2) + 1));
    CHECK(last["probe_overall"].get<double>() == doctest::Approx(acc));
  }
  // compare, softmax-t listed first: tables, charts, and the learning curve from the runs'
  // metrics; the baseline is the group labelled exactly "softmax".
  const std::string compare = std::string(BB_BINARY) + " compare " +
      (d.path / "softmax-t.json").string() + results + " --out " + (d.path / "report").string() +
      " > " + (d.path / "compare.log").string() + " 2>&1";
  REQUIRE(std::system(compare.c_str()) == 0);
  for (const char* f : {"report.md", "report.csv", "phenomena.svg", "paradigms.svg", "learning_curve.svg"})
    CHECK(fs::exists(d.path / "report" / f));
  CHECK(read_file(d.path / "report" / "report.md").find("learning_curve.svg") != std::string::npos);
  CHECK(read_file(d.path / "compare.log").find("agreement") != std::string::npos);
  const std::string report = read_file(d.path / "report" / "report.md");
  CHECK(report.find("compared with the **softmax** group") != std::string::npos);
  CHECK(read_file(d.path / "report" / "report.md").find("dev_loss.svg") != std::string::npos);
  const std::string chart = read_file(d.path / "report" / "phenomena.svg");
  for (const auto& att : functions) CHECK(chart.find(">" + att + "<") != std::string::npos);
}

TEST_CASE("--device cuda without a usable GPU: one line naming the reason, non-zero exit") {
  bool gpu = true;
  try {
    require_device(Device::cuda);
  } catch (const Error&) {
    gpu = false;
  }
  if (gpu) {
    MESSAGE("skipped: a CUDA device is present");
    return;
  }
  test::TempDir d("e2e_device");
  test::write_lines((d.path / "toy.txt").string(), test::toy_sentences(50, 1));
  const std::string bin = BB_BINARY, log = (d.path / "err.log").string();
  const std::vector<std::string> commands = {
      " train --corpus " + (d.path / "toy.txt").string() + " --preset tiny --steps 1 --out " +
          (d.path / "m").string() + " --device cuda",
      " bench score --preset tiny --device cuda --seconds 0.1",
      " bench train --preset tiny --device cuda --seconds 0.1",
      " bench train --preset tiny --device tpu"};
  for (const std::string& c : commands) {
    CAPTURE(c);
    CHECK(std::system((bin + c + " > /dev/null 2> " + log).c_str()) != 0);
    std::string err = read_file(log);
    // OpenBLAS's kernel hint may precede the error; the error itself is the last line.
    const size_t start = err.rfind('\n', err.size() - 2);
    err = err.substr(start == std::string::npos ? 0 : start + 1);
    CHECK(err.rfind("babyberta: error: ", 0) == 0);
    const bool cuda_reason = err.find("no CUDA backend") != std::string::npos ||
                             err.find("no CUDA device") != std::string::npos;
    CHECK((cuda_reason || err.find("unknown device 'tpu'") != std::string::npos));
  }
  CHECK(!fs::exists(d.path / "m" / "checkpoints"));  // nothing trained
}

TEST_CASE("bench --repeat: each rate is the median of the windows, every window listed") {
  test::TempDir d("e2e_bench");
  const std::string bin = BB_BINARY, out = (d.path / "bench.json").string();
  const std::vector<std::pair<std::string, std::vector<std::string>>> runs = {
      {" bench score --preset tiny --method pll --seconds 0.01 --repeat 3",
       {"sentences_per_s", "tokens_per_s"}},
      {" bench train --preset tiny --seconds 0.01 --repeat 4",
       {"tokens_per_s", "steps_per_s", "gflops"}}};
  for (const auto& [command, rates] : runs) {
    CAPTURE(command);
    REQUIRE(std::system((bin + command + " > " + out + " 2> /dev/null").c_str()) == 0);
    const auto j = nlohmann::json::parse(read_file(out));
    const size_t n = j["repeat"].get<size_t>();
    CHECK(n == (command.find("--repeat 3") != std::string::npos ? 3u : 4u));
    for (const std::string& rate : rates) {
      CAPTURE(rate);
      auto w = j[rate + "_windows"].get<std::vector<double>>();
      REQUIRE(w.size() == n);
      CHECK(std::all_of(w.begin(), w.end(), [](double x) { return x > 0; }));
      std::sort(w.begin(), w.end());
      const double median = n % 2 ? w[n / 2] : 0.5 * (w[n / 2 - 1] + w[n / 2]);
      CHECK(j[rate].get<double>() == doctest::Approx(median).epsilon(1e-12));
    }
  }
}
