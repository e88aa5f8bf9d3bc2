// Attention maps and saturation: literal values of the measures and curves (the SSA paper's
// Theorems 1 and 2 on rows with closed forms), the weights `attention` reports against the
// forward pass's own, and the charts as well-formed SVG rendered by headless Chromium.
#include <doctest/doctest.h>

#include <cmath>
#include <numeric>

#include "backend/ops.h"
#include "backend/threads.h"
#include "common/files.h"
#include "probing/attention_maps.h"
#include "probing/model_dir_fixture.h"
#include "probing/saturation.h"
#include "render_svg.h"
#include "temp_dir.h"

using namespace bb;
namespace fs = std::filesystem;

namespace {

// An (L, L) block whose every row is `row`.
std::vector<double> block_of(const std::vector<double>& row) {
  std::vector<double> S;
  for (size_t i = 0; i < row.size(); ++i) S.insert(S.end(), row.begin(), row.end());
  return S;
}

HeadSaturation curves_of(const std::vector<double>& row, AttentionFunction kind, double v0,
                         double v1, const SaturationSettings& st) {
  HeadSaturation acc = saturation_head(st);
  add_score_block(acc, block_of(row), int(row.size()), kind, v0, v1, st, 7);
  acc.finish();
  return acc;
}

// Well-formed XML for the subset our SVG writers use: every <tag ...> closed by </tag> or />,
// properly nested; no raw '&' outside an entity, no raw '<' in text.
bool well_formed(const std::string& s) {
  std::vector<std::string> open;
  for (size_t i = 0; i < s.size(); ++i) {
    if (s[i] == '&') {
      const size_t semi = s.find(';', i);
      if (semi == std::string::npos || semi - i > 6) return false;
      continue;
    }
    if (s[i] != '<') continue;
    const size_t end = s.find('>', i);
    if (end == std::string::npos) return false;
    std::string tag = s.substr(i + 1, end - i - 1);
    i = end;
    if (tag.empty()) return false;
    if (tag[0] == '/') {
      if (open.empty() || open.back() != tag.substr(1)) return false;
      open.pop_back();
    } else if (tag.back() != '/') {
      open.push_back(tag.substr(0, tag.find_first_of(" \n")));
    }
  }
  return open.empty();
}

}  // namespace

TEST_CASE("row measures: uniform rows have entropy 1 and support L; one-hot rows entropy 0") {
  RowMeasures m;
  const std::vector<double> uniform(6, 1.0 / 6), one_hot = {0, 0, 1, 0};
  REQUIRE(measure_row(uniform.data(), 6, m));
  CHECK(m.entropy == doctest::Approx(1.0).epsilon(1e-12));
  CHECK(m.support == doctest::Approx(6.0).epsilon(1e-12));
  CHECK(m.max_weight == doctest::Approx(1.0 / 6));
  REQUIRE(measure_row(one_hot.data(), 4, m));
  CHECK(m.entropy == 0.0);
  CHECK(m.support == doctest::Approx(1.0));
  CHECK(m.max_weight == 1.0);
  // A row that does not sum to 1 (sa-softmax) is measured renormalised; its raw sum is kept.
  const std::vector<double> half = {0.25, 0.25};
  REQUIRE(measure_row(half.data(), 2, m));
  CHECK(m.entropy == doctest::Approx(1.0));
  CHECK(m.row_sum == doctest::Approx(0.5));
  const std::vector<double> zeros = {0, 0, 0};
  CHECK_FALSE(measure_row(zeros.data(), 3, m));
}

TEST_CASE("magnification: softmax collapses exponentially, SSA to its polynomial limit") {
  SaturationSettings st;
  st.scales = {1, 8, 1e4};
  st.boosts = {};
  const std::vector<double> row = {2, 1, 0};
  const HeadSaturation sm = curves_of(row, AttentionFunction::softmax, 0, 0, st);
  CHECK(sm.magnified[1].max_weight ==
        doctest::Approx(1 / (1 + std::exp(-8.0) + std::exp(-16.0))).epsilon(1e-6));
  // SSA, b = 1, n = 1.5: weights f(λ s) / sum f with f(x) = (1 + |x|)^(sign(x) n)
  const double n = 1.5;
  const HeadSaturation ssa = curves_of(row, AttentionFunction::ssa, 1.0, n, st);
  const double f2 = std::pow(17.0, n), f1 = std::pow(9.0, n);
  CHECK(ssa.magnified[1].max_weight == doctest::Approx(f2 / (f2 + f1 + 1)).epsilon(1e-12));
  // λ -> inf: (1 + 2λ)^n / (1 + λ)^n -> 2^n, so max -> 1 / (1 + (1/2)^n) (not 1)
  CHECK(std::abs(ssa.magnified[2].max_weight - 1 / (1 + std::pow(0.5, n))) < 1e-3);
  CHECK(ssa.magnified[2].max_weight < 0.75);
  CHECK(sm.magnified[2].max_weight == doctest::Approx(1.0));
}

TEST_CASE("disproportion: one key raised by delta; softmax's remaining mass falls like e^-delta") {
  SaturationSettings st;
  st.scales = {};
  st.boosts = {0, 2, 8};
  const std::vector<double> zeros(4, 0.0);
  const HeadSaturation sm = curves_of(zeros, AttentionFunction::softmax, 0, 0, st);
  for (size_t k = 0; k < st.boosts.size(); ++k) {
    const double e = std::exp(st.boosts[k]);
    CHECK(sm.boosted[k] == doctest::Approx(e / (e + 3)).epsilon(1e-12));
    CHECK(sm.remaining[k] == doctest::Approx(3 / (e + 3)).epsilon(1e-12));
  }
  // SSA at delta on a zero row: f(delta) = (1 + b delta)^n against three f(0) = 1
  const HeadSaturation ssa = curves_of(zeros, AttentionFunction::ssa, 1.0, 2.0, st);
  CHECK(ssa.remaining[2] == doctest::Approx(3 / (81.0 + 3)).epsilon(1e-12));
  CHECK(ssa.remaining[2] > sm.remaining[2]);
}

TEST_CASE("cosFormer's weights do not change under magnification; sa-softmax reports its row sum") {
  SaturationSettings st;
  st.boosts = {};
  const std::vector<double> row = {0.5, 1.5, 0.2, 0.9};  // ReLU-feature scores, >= 0
  const HeadSaturation cf = curves_of(row, AttentionFunction::cosformer, 0, 0, st);
  for (const RowMeasures& m : cf.magnified) {
    CHECK(m.max_weight == doctest::Approx(cf.own.max_weight).epsilon(1e-12));
    CHECK(m.entropy == doctest::Approx(cf.own.entropy).epsilon(1e-12));
  }
  const HeadSaturation sa = curves_of({2, -1, 0.5, 1}, AttentionFunction::sa_softmax, 0, 0, st);
  CHECK(sa.own.row_sum < 1.0);
  CHECK(sa.own.row_sum > 0.0);
}

TEST_CASE("analytic curves: softmax saturates by lambda 32 on random rows; SSA and cosFormer do not") {
  SaturationSettings st;
  auto max_at_32 = [&](AttentionFunction k) {
    return analytic_saturation(k, 10, 200, st).layers[0][0].magnified.back().max_weight;
  };
  const double softmax = max_at_32(AttentionFunction::softmax),
               ssa = max_at_32(AttentionFunction::ssa);
  const double cosformer = max_at_32(AttentionFunction::cosformer);
  CHECK(softmax > 0.9);
  CHECK(ssa < 0.8);
  CHECK(cosformer < 0.5);
  // Every function runs, and its curves are finite.
  for (AttentionFunction k : kAllAttentionFunctions) {
    const auto c = analytic_saturation(k, 6, 20, st);
    for (const auto& m : c.layers[0][0].magnified) CHECK(std::isfinite(m.max_weight));
    for (double r : c.layers[0][0].remaining) CHECK(std::isfinite(r));
  }
}

TEST_CASE("attention maps are the forward pass's own weights, recomputable from its scores") {
  set_threads(1);
  const std::vector<std::string> sentences = {"the dog sees the ball .", "a cat likes milk .",
                                              "the big dog has a toy ."};
  for (AttentionFunction kind : kAllAttentionFunctions) {
    CAPTURE(attention_function_name(kind));
    test::TempDir d("attmap");
    test::make_model_dir(d.path, kind);
    const ModelAttention a = read_attention(d.path, sentences, /*keep_scores=*/true);
    const Config& c = a.config;
    REQUIRE(a.sentences.size() == 3);
    // Each sentence alone through a model that keeps every layer (a training-capacity model,
    // not the inference one read_attention uses), observed at its attention.
    const Tokenizer tok = Tokenizer::load(d.path);
    Model<float> m(c, {1, 64, 64, 64});
    load_model_weights(d.path, m);
    for (const SentenceAttention& s : a.sentences) {
      const int L = s.length(), H = c.heads;
      Batch b;
      b.ids = s.ids;
      b.offsets = {0, L};
      b.rows = {0};
      std::vector<float> P(size_t(c.layers) * H * L * L);
      m.observe_attention([&](int l, const float*, const float* w) {
        std::copy(w, w + int64_t(H) * L * L, P.begin() + int64_t(l) * H * L * L);
      });
      m.forward(b, {false, 0, 0});
      for (size_t e = 0; e < P.size(); ++e) CHECK(s.weights[e] == doctest::Approx(P[e]).epsilon(1e-5));
      for (int l = 0; l < c.layers; ++l)
        for (int h = 0; h < H; ++h) {
          // The weights are the function of the scores (saturation's premise), and rows sum to
          // 1 (sa-softmax: its documented p = softmax(s) (s - lo) / (hi - lo + 1e-6) instead).
          const float* S = s.scores_of(l, h, H);
          const float* W = s.weights_of(l, h, H);
          std::vector<double> Sd(S, S + L * L), Pd(L * L);
          const double v0 = a.v0[l * H + h], v1 = a.v1[l * H + h];
          ops::attention_function_forward<double>(Pd.data(), Sd.data(), nullptr, L, L, kind, v0,
                                                  v1);
          for (int e = 0; e < L * L; ++e) CHECK(W[e] == doctest::Approx(Pd[e]).epsilon(1e-4));
          for (int i = 0; i < L && kind != AttentionFunction::sa_softmax; ++i) {
            const double sum = std::accumulate(W + i * L, W + (i + 1) * L, 0.0);
            if (kind == AttentionFunction::cosformer &&
                sum < 0.99) {  // only where the 1e-6 floor is active
              double Z = 0;
              for (int j = 0; j < L; ++j) Z += S[i * L + j] * std::cos(M_PI * (i - j) / (2 * L));
              CHECK(Z < 1e-6);
              continue;
            }
            CHECK(sum == doctest::Approx(1.0).epsilon(1e-5));
          }
        }
    }
    const auto j = attention_json(a);
    CHECK(j["sentences"][1]["tokens"].size() == size_t(a.sentences[1].length()));
    CHECK(j["sentences"][1]["weights"].size() == size_t(c.layers));
    CHECK(j["sentences"][1]["weights"][0].size() == size_t(c.heads));
    CHECK(well_formed(attention_svg(a)));
  }
}

TEST_CASE("attention and saturation SVGs are well-formed and render in headless Chromium") {
  test::TempDir d("satsvg");
  test::make_model_dir(d.path / "model", AttentionFunction::ssa);
  const ModelAttention a = read_attention(d.path / "model", {"the dog sees the ball ."}, false);
  SaturationSettings st;
  std::vector<SaturationCurves> curves;
  for (AttentionFunction k : {AttentionFunction::softmax, AttentionFunction::ssa})
    curves.push_back(analytic_saturation(k, 8, 30, st));
  const std::vector<std::pair<std::string, std::string>> svgs = {
      {"attention", attention_svg(a)},
      {"magnification", magnification_svg(curves, st)},
      {"disproportion", disproportion_svg(curves, st)}};
  for (const auto& [name, svg] : svgs) {
    CAPTURE(name);
    CHECK(well_formed(svg));
    write_file_atomic(d.path / (name + ".svg"), svg);
  }
  if (!test::chromium_available()) {
    MESSAGE("skipped rendering: no /usr/bin/chromium (scripts/install-deps.sh installs it)");
    return;
  }
  for (const auto& [name, svg] : svgs) {
    CAPTURE(name);
    const std::string png = test::render_svg(d.path / (name + ".svg"), d.path, 600);
    REQUIRE(png.size() > 8);
    CHECK(png.substr(1, 3) == "PNG");
    CHECK(png.size() > 5000);  // more than a blank page
  }
}

TEST_CASE("colliding labels are told apart by model directory; distinct labels stay") {
  std::vector<SaturationCurves> m(4);
  m[0].name = "runs/softmax-seed1", m[0].label = "softmax";
  m[1].name = "runs/softmax-seed2", m[1].label = "softmax";
  m[2].name = "runs/ssa-seed1", m[2].label = "ssa";
  m[3].name = "runs/softmax-seed1", m[3].label = "softmax";
  distinguish_labels(m);
  CHECK(m[0].label == "softmax (runs/softmax-seed1)");
  CHECK(m[1].label == "softmax (runs/softmax-seed2)");
  CHECK(m[2].label == "ssa");
  CHECK(m[3].label == "softmax (runs/softmax-seed1) #2");
}
