// Scorer against brute force (one sentence, one masked copy at a time, log-softmax in double),
// tie handling, and the JSON written by probe.
#include <doctest/doctest.h>

#include <cmath>

#include "common/error.h"
#include "common/files.h"
#include "backend/threads.h"
#include "encoder/checkpoint.h"
#include "probing/results.h"
#include "probing/scorer.h"
#include "probing/model_dir_fixture.h"
#include "temp_dir.h"
#include "toy_corpus.h"

using namespace bb;
namespace fs = std::filesystem;

namespace {

// log p(target | ids) at `row`, by a forward of this one sequence alone.
double brute_logprob(Model<float>& m, const std::vector<int32_t>& ids, int row, int target) {
  Batch b;
  b.ids = ids;
  b.offsets = {0, int(ids.size())};
  b.rows = {row};
  m.forward(b, {false, 0, 0});
  const int V = m.config().vocab_size;
  double mx = -1e30, sum = 0;
  for (int v = 0; v < V; ++v) mx = std::max(mx, double(m.logits()[v]));
  for (int v = 0; v < V; ++v) sum += std::exp(double(m.logits()[v]) - mx);
  return double(m.logits()[target]) - mx - std::log(sum);
}

}  // namespace

TEST_CASE("holistic, pll and pll-word-l2r equal a brute-force computation") {
  for (AttentionFunction scoring : {AttentionFunction::softmax, AttentionFunction::ssa}) {
    test::TempDir dir("scorer");
    test::make_model_dir(dir.path, scoring);
    Scorer scorer(dir.path, 64);  // small batches: packing across batch boundaries is exercised
    Model<float> m(read_config(dir.path / "config.json"), {1, 128, 128, 128});
    load_model_weights(dir.path, m);
    const std::vector<std::string> sents = {"the dogs like the ball .", "a cat wants some milk ?",
                                            "mommy has the big book .", "zebras eat ."};
    const auto hol = scorer.score(sents, Method::holistic);
    const auto pll = scorer.score(sents, Method::pll);
    const auto l2r = scorer.score(sents, Method::pll_word_l2r);
    const Tokenizer& tok = scorer.tokenizer();
    for (size_t s = 0; s < sents.size(); ++s) {
      const auto ids = *tok.encode(sents[s]);
      const int L = int(ids.size());
      double ce = 0;
      for (int t = 0; t < L; ++t) {
        const double lp = brute_logprob(m, ids, t, ids[t]);
        CHECK(hol[s].logprobs[t] == doctest::Approx(lp).epsilon(1e-5));
        ce -= lp;
      }
      CHECK(hol[s].score == doctest::Approx(ce / L).epsilon(1e-5));
      double sum = 0, sum_l2r = 0;
      for (int t = 1; t < L - 1; ++t) {
        auto masked = ids;
        masked[t] = 0;
        const double lp = brute_logprob(m, masked, t, ids[t]);
        CHECK(pll[s].logprobs[t - 1] == doctest::Approx(lp).epsilon(1e-5));
        sum += lp;
        for (int u = t + 1; u < L - 1 && tok.piece(ids[u]).rfind("\xE2\x96\x81", 0) != 0; ++u)
          masked[u] = 0;
        sum_l2r += brute_logprob(m, masked, t, ids[t]);
      }
      CHECK(pll[s].score == doctest::Approx(sum).epsilon(1e-5));
      CHECK(l2r[s].score == doctest::Approx(sum_l2r).epsilon(1e-5));
      CHECK(pll[s].logprobs.size() == size_t(L - 2));
    }
    // "zebras" is not in the toy vocabulary: it is split into several pieces, so l2r differs.
    CHECK(l2r[3].score != doctest::Approx(pll[3].score));
  }
}

TEST_CASE("scores do not depend on the thread count (one model replica per thread)") {
  test::TempDir dir("scorer_threads");
  test::make_model_dir(dir.path, AttentionFunction::ssa);
  Scorer scorer(dir.path, 48);  // many small batches, shared out between the threads
  std::vector<std::string> sents;
  for (int i = 0; i < 40; ++i) sents.push_back(test::toy_sentences(40)[size_t(i)]);
  for (Method m : {Method::holistic, Method::pll}) {
    set_threads(1);
    const auto one = scorer.score(sents, m);
    set_threads(2);
    int64_t last_progress = 0;
    const auto two = scorer.score(sents, m, [&](int64_t done) { last_progress = done; });
    set_threads(1);
    CHECK(last_progress > 0);
    CHECK(last_progress <= int64_t(sents.size()));
    REQUIRE(one.size() == two.size());
    for (size_t s = 0; s < one.size(); ++s) {
      CHECK(one[s].ids == two[s].ids);
      CHECK(one[s].score == doctest::Approx(two[s].score).epsilon(1e-6));
    }
  }
}

TEST_CASE("ties follow the tie rule; holistic lower wins, pll higher wins") {
  Suite s;
  s.paradigms = {"p-a"};
  for (int i = 0; i < 4; ++i) s.pairs.push_back({"g", "b", "p-a", "p", i});
  const std::vector<double> good = {1.0, 2.0, 3.0, 5.0}, bad = {2.0, 2.0, 1.0, 5.0};
  const auto hol = summarize(s, good, bad, Method::holistic, TieRule::half);
  CHECK(hol.pairs[0].outcome == 1.0);  // 1 < 2: good has lower cross-entropy
  CHECK(hol.pairs[1].outcome == 0.5);
  CHECK(hol.pairs[2].outcome == 0.0);
  CHECK(hol.paradigms["p-a"]["accuracy"].get<double>() == doctest::Approx(50.0));
  CHECK(hol.paradigms["p-a"]["ties"].get<int>() == 2);
  const auto pll = summarize(s, good, bad, Method::pll, TieRule::wrong);
  CHECK(pll.pairs[0].outcome == 0.0);
  CHECK(pll.pairs[2].outcome == 1.0);
  CHECK(pll.pairs[3].outcome == 0.0);
  CHECK(pll.paradigms["p-a"]["accuracy"].get<double>() == doctest::Approx(25.0));
}

TEST_CASE("probe JSON has the documented keys and a pairs.jsonl") {
  test::TempDir d("schema");
  Suite s;
  s.paradigms = {"agreement-a", "agreement-b", "binding-c"};
  std::vector<double> good, bad;
  for (int p = 0; p < 3; ++p)
    for (int i = 0; i < 10; ++i) {
      s.pairs.push_back({"g", "b", s.paradigms[p], p < 2 ? "agreement" : "binding", i});
      good.push_back(i < 5 + p ? 1.0 : 3.0);
      bad.push_back(2.0);
    }
  const auto sum = summarize(s, good, bad, Method::holistic, TieRule::half);
  const nlohmann::json header{{"model", "m"}, {"config", {{"label", "ssa"}}}, {"method", "holistic"},
                              {"tie_rule", "half"}, {"provenance", {{"git_revision", "x"}}}};
  write_probe_results(d.path / "r.json", header, sum);
  const auto j = nlohmann::json::parse(read_file(d.path / "r.json"));
  for (const char* k : {"model", "config", "method", "tie_rule", "provenance", "paradigms",
                        "phenomena", "overall", "overall_by_phenomenon"})
    CHECK(j.contains(k));
  CHECK(j["paradigms"]["agreement-b"]["accuracy"].get<double>() == doctest::Approx(60.0));
  CHECK(j["paradigms"]["agreement-a"]["pairs"].get<int>() == 10);
  CHECK(j["phenomena"]["agreement"].get<double>() == doctest::Approx(55.0));
  CHECK(j["overall"].get<double>() == doctest::Approx(60.0));
  CHECK(j["overall_by_phenomenon"].get<double>() == doctest::Approx(62.5));
  const std::string pairs = read_file(d.path / "r.pairs.jsonl");
  CHECK(std::count(pairs.begin(), pairs.end(), '\n') == 30);
  CHECK(pairs.find("\"outcome\":1.0") != std::string::npos);
}

TEST_CASE("a model directory: config.json must agree with tokenizer.model; step dirs score too") {
  test::TempDir d("modeldir-tok");
  test::make_model_dir(d.path, AttentionFunction::softmax);
  auto error_of = [](const fs::path& dir) -> std::string {
    try {
      Scorer s(dir);
    } catch (const Error& e) {
      return e.what();
    }
    return "";
  };
  const std::string config = (d.path / "config.json").string();
  const std::string tokenizer = (d.path / "tokenizer.model").string();
  CHECK(error_of(d.path / "nope") == (d.path / "nope").string() + ": no such model directory");
  CHECK(error_of(d.path / "config.json").find("not a model directory") != std::string::npos);

  // A step directory carries the run's tokenizer: it is a model directory of its own.
  Config c = read_config(d.path / "config.json");
  Model<float> m(c, {1, 1, 1, 1});
  load_model_weights(d.path, m);
  AdamW opt(m.layout(), c, OptimConfig{});
  const fs::path step = save_checkpoint(d.path, m, opt, {3, 1, {}});
  CHECK(error_of(step).empty());

  const std::string good = read_file(d.path / "config.json");
  c.mask_id = 5, c.eos_id = 0;
  write_config(d.path / "config.json", c);
  CHECK(error_of(d.path) == config + ": mask_token_id 5 does not match " + tokenizer + " (its <mask> is 0)");
  c = read_config(step / "config.json");
  c.vocab_size -= 1;
  write_config(d.path / "config.json", c);
  CHECK(error_of(d.path).find(config + ": vocab_size " + std::to_string(c.vocab_size) + " does not match " + tokenizer) != std::string::npos);
  write_file_atomic(d.path / "config.json", good);
  CHECK(error_of(d.path).empty());
}
