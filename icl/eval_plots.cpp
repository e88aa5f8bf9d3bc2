// eval.json, eval.csv and the SVGs of an evaluation (icl/eval.h).
#include <fmt/format.h>

#include <algorithm>
#include <cmath>
#include <set>

#include "common/files.h"
#include "icl/eval.h"
#include "common/svg.h"

namespace bb::icl {

namespace {

// A file-name-safe form of a model's name.
std::string slug(const std::string& s) {
  std::string out;
  for (char ch : s) out += std::isalnum(static_cast<unsigned char>(ch)) ? ch : '_';
  return out;
}

// Colour of a score: white (0) to dark red (1); linear tasks: log10 of the MSE from -4 to 2.
std::string colour(double score, bool quant) {
  double t = quant ? score : (std::log10(std::max(score, 1e-4)) + 4) / 6;
  t = std::clamp(std::isfinite(t) ? t : 1.0, 0.0, 1.0);
  const int r = int(255 - 90 * t), gb = int(255 * (1 - t));
  return fmt::format("rgb({},{},{})", r, gb, gb);
}

// One model's scores: columns = points (quantification) or sigma_x (linear), rows = sigma_x or
// sigma_fn; each cell labelled with its value.
std::string heatmap_svg(const EvalResult& r, bool quant, int from_point) {
  std::set<double> cols_set, rows_set;
  for (const Cell& c : r.cells) {
    cols_set.insert(quant ? c.points : c.sigma_x);
    rows_set.insert(quant ? c.sigma_x : c.sigma_fn);
  }
  const std::vector<double> cols(cols_set.begin(), cols_set.end()), rows(rows_set.begin(), rows_set.end());
  const double cw = 34, ch = 18, left = 70, top = 60;
  const double width = left + cw * cols.size() + 20, height = top + ch * rows.size() + 50;
  std::string s = fmt::format(
      "<svg xmlns=\"http://www.w3.org/2000/svg\" width=\"{:.0f}\" height=\"{:.0f}\" "
      "font-family=\"sans-serif\" font-size=\"10\">\n<rect width=\"100%\" height=\"100%\" "
      "fill=\"white\"/>\n<text x=\"{:.0f}\" y=\"22\" font-size=\"14\" font-weight=\"bold\">{}</text>\n"
      "<text x=\"{:.0f}\" y=\"40\">{}</text>\n",
      width, height, left, svg_escape(r.name), left,
      quant ? fmt::format("sequences with a wrong sign from point {} on", from_point)
            : fmt::format("mean squared error from point {} on (colour: log scale)", from_point));
  for (const Cell& c : r.cells) {
    const size_t ci = size_t(std::find(cols.begin(), cols.end(), quant ? c.points : c.sigma_x) - cols.begin());
    const size_t ri = size_t(std::find(rows.begin(), rows.end(), quant ? c.sigma_x : c.sigma_fn) - rows.begin());
    const double x = left + cw * ci, y = top + ch * ri;
    s += fmt::format("<rect x=\"{:.0f}\" y=\"{:.0f}\" width=\"{:.0f}\" height=\"{:.0f}\" fill=\"{}\" "
                     "stroke=\"#eee\"/><text x=\"{:.0f}\" y=\"{:.0f}\" text-anchor=\"middle\">{}</text>\n",
                     x, y, cw, ch, colour(c.score, quant), x + cw / 2, y + 13,
                     quant ? fmt::format("{:.0f}", c.errors) : fmt::format("{:.2g}", c.score));
  }
  for (size_t ci = 0; ci < cols.size(); ++ci)
    s += fmt::format("<text x=\"{:.0f}\" y=\"{:.0f}\" text-anchor=\"middle\">{:g}</text>\n",
                     left + cw * ci + cw / 2, top + ch * rows.size() + 14, cols[ci]);
  for (size_t ri = 0; ri < rows.size(); ++ri)
    s += fmt::format("<text x=\"{:.0f}\" y=\"{:.0f}\" text-anchor=\"end\">{:g}</text>\n",
                     left - 6, top + ch * ri + 13, rows[ri]);
  s += fmt::format("<text x=\"{:.0f}\" y=\"{:.0f}\" text-anchor=\"middle\">{}</text>\n"
                   "<text transform=\"translate(16,{:.0f}) rotate(-90)\" text-anchor=\"middle\">{}"
                   "</text>\n</svg>\n",
                   left + cw * cols.size() / 2, top + ch * rows.size() + 34,
                   quant ? "points per sequence" : "sigma of x", top + ch * rows.size() / 2,
                   quant ? "sigma of x" : "sigma of the function");
  return s;
}

}  // namespace

void write_eval(const std::filesystem::path& dir, const EvalGrid& g,
                const std::vector<EvalResult>& results) {
  std::filesystem::create_directories(dir);
  write_file_atomic(dir / "eval.json", to_json(g, results).dump() + "\n");
  write_file_atomic(dir / "eval.csv", to_csv(results));
  const bool quant = is_quantification(g.task);
  for (const EvalResult& r : results)
    if (!r.baseline)
      write_file_atomic(dir / ("heatmap_" + slug(r.name) + ".svg"), heatmap_svg(r, quant, g.from_point));
  // Error versus sigma: quantification at the length nearest 40 points, linear tasks against
  // sigma_fn at the smallest sigma_x.
  int at_points = g.points.front();
  for (int p : g.points)
    if (std::abs(p - 40) < std::abs(at_points - 40)) at_points = p;
  const double at_sx = *std::min_element(g.sigma_x.begin(), g.sigma_x.end());
  LineChart chart;
  chart.title = quant ? fmt::format("{}: error versus sigma of x ({} points)", task_name(g.task), at_points)
                      : fmt::format("{}: error versus sigma of the function (sigma of x {:g})",
                                    task_name(g.task), at_sx);
  chart.note = quant ? fmt::format("share of {} sequences with a wrong sign from point {} on",
                                   g.sequences, g.from_point)
                     : fmt::format("mean squared error from point {} on, {} sequences per cell",
                                   g.from_point, g.sequences);
  chart.x_label = quant ? "sigma of x" : "sigma of the function";
  chart.y_label = quant ? "sequences with an error (%)" : "mean squared error";
  chart.percent = quant;
  chart.chance = NAN;
  for (const EvalResult& r : results) {
    std::vector<std::pair<double, double>> pts;
    for (const Cell& c : r.cells) {
      if (quant && c.points == at_points) pts.emplace_back(c.sigma_x, 100 * c.score);
      if (!quant && c.sigma_x == at_sx) pts.emplace_back(c.sigma_fn, c.score);
    }
    chart.groups.push_back(r.name);
    chart.points.push_back(std::move(pts));
  }
  write_file_atomic(dir / "error_vs_sigma.svg", line_chart_svg(chart));
}

}  // namespace bb::icl
