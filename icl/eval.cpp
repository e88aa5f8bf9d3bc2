#include "icl/eval.h"

#include <Eigen/Dense>
#include <fmt/format.h>

#include <cmath>

#include "common/error.h"
#include "common/philox.h"
#include "icl/torch_draws.h"

namespace bb::icl {

using nlohmann::json;

namespace {

constexpr uint64_t kEvalStream = 0xE7A1ull;

// Features of point i of sequence b: linear [x, 1], linear-regression x.
Eigen::VectorXd features(const Sequences& s, int b, int i) {
  const float* x = s.x.data() + (size_t(b) * s.k + size_t(i)) * s.dims;
  if (s.drawn == Task::linear) return Eigen::Vector2d(x[0], 1.0);
  Eigen::VectorXd f(s.dims);
  for (int c = 0; c < s.dims; ++c) f[c] = x[c];
  return f;
}

// Per prefix: w from points 0..i-1 by `fit`, prediction w . features(i) (0 without points).
Predictor per_prefix(std::function<Eigen::VectorXd(const Eigen::MatrixXd&, const Eigen::VectorXd&)> fit) {
  return [fit](const Sequences& s) {
    std::vector<float> out(size_t(s.B) * s.k, 0.f);
    for (int b = 0; b < s.B; ++b)
      for (int i = 1; i < s.k; ++i) {
        const Eigen::Index F = features(s, b, 0).size();
        Eigen::MatrixXd X(i, F);
        Eigen::VectorXd y(i);
        for (int j = 0; j < i; ++j) {
          X.row(j) = features(s, b, j).transpose();
          y[j] = s.y[size_t(b) * s.k + size_t(j)];
        }
        out[size_t(b) * s.k + size_t(i)] = float(fit(X, y).dot(features(s, b, i)));
      }
    return out;
  };
}

}  // namespace

std::vector<float> predict(Model<float>& model, const Sequences& s, int batch) {
  std::vector<float> out;
  const size_t per_seq = size_t(2) * s.k * s.dims;
  for (int b0 = 0; b0 < s.B; b0 += batch) {
    const int n = std::min(batch, s.B - b0);
    const std::vector<float> z(s.z.begin() + b0 * per_seq, s.z.begin() + (b0 + n) * per_seq);
    model.forward(z, {}, n, 2 * s.k, ops::PointLoss::squared_error, false);
    const std::vector<float> p = model.predictions();
    out.insert(out.end(), p.begin(), p.end());
  }
  return out;
}

std::vector<std::pair<std::string, Predictor>> baselines(Task task) {
  if (is_quantification(task))
    return {{"exact rule", [](const Sequences& s) { return s.y; }},
            {"majority", [](const Sequences& s) {
               return std::vector<float>(s.y.size(), s.drawn == Task::every ? -1.f : 1.f);
             }}};
  return {{"least squares",
           per_prefix([](const Eigen::MatrixXd& X, const Eigen::VectorXd& y) {
             return Eigen::VectorXd(X.completeOrthogonalDecomposition().solve(y));  // min norm
           })},
          {"averaging",
           per_prefix([](const Eigen::MatrixXd& X, const Eigen::VectorXd& y) {
             return Eigen::VectorXd(X.transpose() * y / double(X.rows()));
           })},
          {"zero", [](const Sequences& s) { return std::vector<float>(s.y.size(), 0.f); }}};
}

namespace {

// The authors' inputs: x[i][j] = sigma_x * randn(seed 100 i + 10 j), in float32 as theirs.
Sequences authors_sequences(const EvalGrid& g, int points, double sigma_x, double sigma_fn) {
  BB_CHECK(g.task == Task::every || g.task == Task::some || g.task == Task::linear,
           "--authors-draws: the authors' protocols cover every, some and linear, not {}",
           task_name(g.task));
  BB_CHECK(g.dims == 1, "--authors-draws: the authors' inputs are 1-d; the model has {} dims",
           g.dims);
  const int functions = g.task == Task::linear ? 100 : 1;
  Sequences s;
  s.k = points, s.dims = 1, s.drawn = g.task, s.B = g.sequences * functions;
  std::vector<float> x(size_t(g.sequences) * points);
  for (int i = 0; i < g.sequences; ++i)
    for (int j = 0; j < points; ++j)
      x[size_t(i) * points + j] = float(sigma_x) * torch_randn(uint64_t(100 * i + 10 * j), 1)[0];
  std::vector<float> a(1, 0.f), b(1, 0.f);
  if (g.task == Task::linear) {
    BB_CHECK(sigma_fn == std::floor(sigma_fn) && sigma_fn >= 0 && sigma_fn < 1e9,
             "--authors-draws: sigma of the function {} is not a whole number (the authors seed "
             "with it)", sigma_fn);
    std::vector<float> v = torch_randn(uint64_t(sigma_fn), 200);
    for (float& e : v) e *= float(sigma_fn);
    a.assign(v.begin(), v.begin() + 100), b.assign(v.begin() + 100, v.end());
  }
  for (int f = 0; f < functions; ++f)
    for (int i = 0; i < g.sequences; ++i) {
      const float* xi = x.data() + size_t(i) * points;
      s.x.insert(s.x.end(), xi, xi + points);
      std::vector<float> y(static_cast<size_t>(points));
      if (g.task == Task::linear)
        for (int j = 0; j < points; ++j) {  // two roundings, as PyTorch's mul then add
          const volatile float ax = a[size_t(f)] * xi[j];
          y[size_t(j)] = ax + b[size_t(f)];
        }
      else
        label_quantification(g.task, xi, points, y.data());
      s.y.insert(s.y.end(), y.begin(), y.end());
      for (int j = 0; j < points; ++j) {
        s.z.push_back(xi[j]);
        s.z.push_back(y[size_t(j)]);
      }
    }
  return s;
}

}  // namespace

Sequences cell_sequences(const EvalGrid& g, size_t index, int points, double sigma_x,
                         double sigma_fn) {
  if (g.authors_draws) return authors_sequences(g, points, sigma_x, sigma_fn);
  return draw_sequences(g.task, g.sequences, points, g.dims, {sigma_x, sigma_fn},
                        stream_key(g.seed, kEvalStream), uint64_t(index));
}

size_t cell_count(const EvalGrid& g) {
  return g.points.size() * g.sigma_x.size() * (is_quantification(g.task) ? 1 : g.sigma_fn.size());
}

EvalResult evaluate(const EvalGrid& g, const std::string& name, bool baseline,
                    const Predictor& predict, const std::function<void()>& after_cell) {
  EvalResult r{name, baseline, -1, {}};
  const bool quant = is_quantification(g.task);
  const std::vector<double> fns = quant ? std::vector<double>{1.0} : g.sigma_fn;
  size_t index = 0;
  for (int k : g.points)
    for (double sx : g.sigma_x)
      for (double sf : fns) {
        const Sequences s = cell_sequences(g, index++, k, sx, sf);
        const std::vector<float> pred = predict(s);
        BB_CHECK(pred.size() == s.y.size(), "internal: {} predicted {} values, expected {}", name,
                 pred.size(), s.y.size());
        Cell c{k, sx, sf, 0, 0, std::vector<double>(size_t(k), 0.0)};
        if (quant) c.wrong_points = c.wrong_following_largest = c.largest_positive = c.counted = 0;
        const int from = g.from_point - 1;  // 0-based; none counted when k < from_point
        double sum = 0;
        int64_t counted = 0;
        for (int b = 0; b < s.B; ++b) {
          bool wrong = false;
          float largest = 0;  // the x with the largest |x| among x_1..x_i (first of ties)
          for (int i = 0; i < k; ++i) {
            const size_t at = size_t(b) * k + size_t(i);
            double v;
            if (quant) {
              const float xi = s.x[at * size_t(s.dims)];
              if (i == 0 || std::abs(xi) > std::abs(largest)) largest = xi;
              // the authors' p > 0 against the label; a non-finite prediction is wrong
              const bool ok = std::isfinite(pred[at]) && (pred[at] > 0) == (s.y[at] > 0);
              v = ok ? 1.0 : 0.0;
              if (i >= from) {
                c.counted += 1;
                c.largest_positive += largest > 0;
                if (!ok) {
                  wrong = true;
                  c.wrong_points += 1;
                  c.wrong_following_largest += std::isfinite(pred[at]) && (pred[at] > 0) == (largest > 0);
                }
              }
            } else {
              const double e = double(pred[at]) - s.y[at];
              v = e * e / (g.task == Task::linear_regression ? g.dims : 1);
              if (i >= from) sum += std::isfinite(v) ? v : HUGE_VAL, ++counted;
            }
            c.per_point[size_t(i)] += v;  // a count (quantification) or a sum: divided once below
          }
          c.errors += wrong;
        }
        for (double& v : c.per_point) v /= s.B;  // a share from its count: 1000/1000 is exactly 1
        if (quant) c.score = c.errors / s.B;
        else c.errors = NAN, c.score = counted ? sum / double(counted) : 0.0;
        r.cells.push_back(std::move(c));
        if (after_cell) after_cell();
      }
  return r;
}

json to_json(const EvalGrid& g, const std::vector<EvalResult>& results) {
  json models = json::array();
  for (const EvalResult& r : results) {
    json cells = json::array();
    for (const Cell& c : r.cells) {
      json cell{{"points", c.points}, {"sigma_x", c.sigma_x}, {"score", c.score},
                {"per_point", c.per_point}};
      if (is_quantification(g.task)) {
        cell["errors"] = c.errors;
        cell["wrong_points"] = c.wrong_points;
        cell["wrong_following_largest"] = c.wrong_following_largest;
        cell["largest_positive"] = c.largest_positive;
        cell["counted_points"] = c.counted;
      } else {
        cell["sigma_fn"] = c.sigma_fn;
      }
      cells.push_back(std::move(cell));
    }
    json m{{"name", r.name}, {"baseline", r.baseline}};
    if (!r.baseline) m["steps"] = r.steps >= 0 ? json(r.steps) : json(nullptr);
    m["cells"] = std::move(cells);
    models.push_back(std::move(m));
  }
  return {{"task", task_name(g.task)},
          {"dims", g.dims},
          {"sequences", g.sequences},
          {"from_point", g.from_point},
          {"seed", g.seed},
          {"draws", g.authors_draws ? "the authors' (manual_seed(100 i + 10 j) per x; linear: "
                                      "100 functions from manual_seed(sigma_fn) per cell)"
                                    : "independent (Philox from seed)"},
          {"score", is_quantification(g.task)
                        ? "sequences with any wrong sign from from_point on / sequences"
                        : "mean squared error over points from from_point on"},
          {"models", std::move(models)}};
}

std::string to_csv(const std::vector<EvalResult>& results) {
  std::string out = "model,baseline,points,sigma_x,sigma_fn,errors,score\n";
  for (const EvalResult& r : results)
    for (const Cell& c : r.cells)
      out += fmt::format("\"{}\",{},{},{},{},{},{}\n", r.name, r.baseline ? 1 : 0, c.points,
                         c.sigma_x, c.sigma_fn, std::isnan(c.errors) ? "" : fmt::format("{}", c.errors),
                         c.score);
  return out;
}

}  // namespace bb::icl
