#include "common/svg.h"

#include <fmt/format.h>

#include <algorithm>
#include <cmath>
#include <iterator>

namespace bb {

// Ten distinct colours (seaborn "deep"): the seven attention functions never share one.
static const char* const kColorsOf[] = {"#4c72b0", "#dd8452", "#55a868", "#c44e52", "#8172b3",
                                        "#937860", "#da8bc3", "#8c8c8c", "#ccb974", "#64b5cd"};
static constexpr int kColors = int(std::size(kColorsOf));

std::string svg_escape(const std::string& s) {
  std::string o;
  for (char ch : s) {
    if (ch == '&') o += "&amp;";
    else if (ch == '<') o += "&lt;";
    else if (ch == '>') o += "&gt;";
    else if (ch == '"') o += "&quot;";
    else o += ch;
  }
  return o;
}

std::string bar_chart_svg(const BarChart& c) {
  const int G = int(c.groups.size()), K = int(c.categories.size());
  const double bar = G > 4 ? 10 : 14, gap = 12, top = 50, plot_h = 320;
  size_t longest = 0;
  for (const auto& s : c.categories) longest = std::max(longest, s.size());
  const double bottom = 20 + 6.2 * double(longest) * 0.72;  // room for labels at -45 degrees
  // The first category's label, rotated -45 degrees, reaches left of its cluster by as much.
  const double left = std::max(60.0, 6.2 * double(longest) * 0.78);
  const double cluster = G * bar + gap;
  const double legend_x = left + K * cluster + 70;  // right of the "chance" label
  size_t longest_group = 0;
  for (const auto& g : c.groups) longest_group = std::max(longest_group, g.size());
  const double width = std::max(legend_x + 30 + 6.5 * double(longest_group),
                                left + 10.0 * double(c.title.size()));
  const double height = top + plot_h + bottom;
  auto y = [&](double pct) { return top + plot_h * (1 - pct / 100.0); };
  std::string s = fmt::format(
      "<svg xmlns=\"http://www.w3.org/2000/svg\" width=\"{:.0f}\" height=\"{:.0f}\" "
      "viewBox=\"0 0 {:.0f} {:.0f}\" font-family=\"sans-serif\" font-size=\"11\">\n"
      "<rect width=\"100%\" height=\"100%\" fill=\"white\"/>\n"
      "<text x=\"{:.0f}\" y=\"24\" font-size=\"15\" font-weight=\"bold\">{}</text>\n"
      "<text x=\"{:.0f}\" y=\"40\">{}</text>\n",
      width, height, width, height, left, svg_escape(c.title), left, svg_escape(c.note));
  for (int p = 0; p <= 100; p += 10) {  // grid and y labels
    s += fmt::format("<line x1=\"{:.1f}\" y1=\"{:.1f}\" x2=\"{:.1f}\" y2=\"{:.1f}\" stroke=\"#ddd\"/>"
                     "<text x=\"{:.1f}\" y=\"{:.1f}\" text-anchor=\"end\">{}</text>\n",
                     left, y(p), left + K * cluster, y(p), left - 6, y(p) + 4, p);
  }
  s += fmt::format("<text transform=\"translate({:.1f},{:.1f}) rotate(-90)\" "
                   "text-anchor=\"middle\">accuracy (%)</text>\n", left - 36, top + plot_h / 2);
  for (int k = 0; k < K; ++k) {
    const double x0 = left + k * cluster + gap / 2;
    for (int g = 0; g < G; ++g) {
      const double m = c.mean[g][k], d = c.sd[g][k];
      if (!std::isfinite(m)) continue;  // the group has no value here: no bar (not a 0% bar)
      const double x = x0 + g * bar;
      const double h = std::max(1.5, y(0) - y(m));  // a 0% bar stays visible as a thin line
      s += fmt::format("<rect class=\"bar\" x=\"{:.1f}\" y=\"{:.1f}\" width=\"{:.1f}\" "
                       "height=\"{:.1f}\" fill=\"{}\"><title>{} / {}: {:.1f} ± {:.1f}</title></rect>\n",
                       x, y(0) - h, bar - 2, h, kColorsOf[g % kColors], svg_escape(c.groups[g]),
                       svg_escape(c.categories[k]), m, d);
      if (d > 0) {
        const double cx = x + (bar - 2) / 2;
        s += fmt::format("<path d=\"M{0:.1f},{1:.1f}V{2:.1f}M{3:.1f},{1:.1f}H{4:.1f}M{3:.1f},"
                         "{2:.1f}H{4:.1f}\" stroke=\"black\" fill=\"none\"/>\n",
                         cx, y(std::min(100.0, m + d)), y(std::max(0.0, m - d)), cx - 3, cx + 3);
      }
    }
    const double lx = x0 + G * bar / 2, ly = top + plot_h + 12;
    s += fmt::format("<text transform=\"translate({:.1f},{:.1f}) rotate(-45)\" "
                     "text-anchor=\"end\">{}</text>\n", lx, ly, svg_escape(c.categories[k]));
  }
  s += fmt::format("<line x1=\"{:.1f}\" y1=\"{:.1f}\" x2=\"{:.1f}\" y2=\"{:.1f}\" stroke=\"#333\" "
                   "stroke-dasharray=\"3,3\"/><text x=\"{:.1f}\" y=\"{:.1f}\">chance</text>\n",
                   left, y(c.chance), left + K * cluster, y(c.chance), left + K * cluster + 4,
                   y(c.chance) + 4);
  s += fmt::format("<line x1=\"{0:.1f}\" y1=\"{1:.1f}\" x2=\"{0:.1f}\" y2=\"{2:.1f}\" stroke=\"black\"/>\n",
                   left, y(0), y(100));
  for (int g = 0; g < G; ++g) {
    const double lx = legend_x, ly = top + 10 + g * 18;
    s += fmt::format("<rect x=\"{:.1f}\" y=\"{:.1f}\" width=\"12\" height=\"12\" fill=\"{}\"/>"
                     "<text x=\"{:.1f}\" y=\"{:.1f}\">{}</text>\n",
                     lx, ly, kColorsOf[g % kColors], lx + 18, ly + 10, svg_escape(c.groups[g]));
  }
  return s + "</svg>\n";
}

std::string line_chart_svg(const LineChart& c) {
  const double left = 70, top = 56, w = 480, h = 300;
  size_t longest = 0;  // of the drawn groups' names
  for (size_t g = 0; g < c.groups.size(); ++g)
    if (!c.points[g].empty()) longest = std::max(longest, c.groups[g].size());
  const double width = left + w + 60 + 6.5 * double(longest), height = top + h + 50;
  double max_step = 1, lo = 0, hi = 100;
  if (!c.percent) lo = 1e300, hi = -1e300;
  auto whisker = [&](size_t g, size_t i) {
    return g < c.spread.size() && i < c.spread[g].size() && std::isfinite(c.spread[g][i])
               ? c.spread[g][i] : 0.0;
  };
  for (size_t g = 0; g < c.points.size(); ++g)
    for (size_t i = 0; i < c.points[g].size(); ++i) {
      const auto& [st, v] = c.points[g][i];
      max_step = std::max(max_step, st);
      if (!c.percent) lo = std::min(lo, v - whisker(g, i)), hi = std::max(hi, v + whisker(g, i));
    }
  for (const auto& lines : c.thin)
    for (const auto& line : lines)
      for (const auto& [st, v] : line) {
        max_step = std::max(max_step, st);
        if (!c.percent) lo = std::min(lo, v), hi = std::max(hi, v);
      }
  if (!c.percent) {  // a little room around the data
    if (lo > hi) lo = 0, hi = 1;
    const double pad = std::max(1e-3 * std::max(1.0, std::abs(hi)), 0.05 * (hi - lo));
    lo -= pad, hi += pad;
  }
  auto x = [&](double st) { return left + w * st / max_step; };
  auto y = [&](double v) { return top + h * (1 - (v - lo) / (hi - lo)); };
  std::string s = fmt::format(
      "<svg xmlns=\"http://www.w3.org/2000/svg\" width=\"{:.0f}\" height=\"{:.0f}\" "
      "font-family=\"sans-serif\" font-size=\"11\">\n<rect width=\"100%\" height=\"100%\" "
      "fill=\"white\"/>\n<text x=\"{:.0f}\" y=\"24\" font-size=\"15\" font-weight=\"bold\">{}"
      "</text>\n<text x=\"{:.0f}\" y=\"40\">{}</text>\n",
      width, height, left, svg_escape(c.title), left, svg_escape(c.note));
  for (int k = 0; k <= 10; ++k) {  // grid and y labels
    const double v = lo + (hi - lo) * k / 10;
    s += fmt::format("<line x1=\"{:.1f}\" y1=\"{:.1f}\" x2=\"{:.1f}\" y2=\"{:.1f}\" stroke=\"#ddd\"/>"
                     "<text x=\"{:.1f}\" y=\"{:.1f}\" text-anchor=\"end\">{}</text>\n",
                     left, y(v), left + w, y(v), left - 6, y(v) + 4,
                     c.percent ? fmt::format("{:.0f}", v) : fmt::format("{:.3g}", v));
  }
  for (int k = 0; k <= 4; ++k)
    s += fmt::format("<text x=\"{:.1f}\" y=\"{:.1f}\" text-anchor=\"middle\">{:.0f}</text>\n",
                     x(max_step * k / 4), top + h + 16, max_step * k / 4);
  s += fmt::format("<text x=\"{:.1f}\" y=\"{:.1f}\" text-anchor=\"middle\">{}</text>\n"
                   "<text transform=\"translate(18,{:.1f}) rotate(-90)\" text-anchor=\"middle\">"
                   "{}</text>\n", left + w / 2, top + h + 36, svg_escape(c.x_label), top + h / 2,
                   svg_escape(c.y_label));
  if (std::isfinite(c.chance) && c.chance >= lo && c.chance <= hi)
    s += fmt::format("<line x1=\"{:.1f}\" y1=\"{:.1f}\" x2=\"{:.1f}\" y2=\"{:.1f}\" "
                     "stroke=\"#333\" stroke-dasharray=\"3,3\"/>\n",
                     left, y(c.chance), left + w, y(c.chance));
  // A group without points (an n-gram reference has no training curve) is not drawn and not in
  // the legend; the others keep their colours, the same as in the bar charts.
  int row = 0;  // legend row
  for (size_t g = 0; g < c.groups.size(); ++g) {
    if (c.points[g].empty()) continue;
    for (const auto& line : g < c.thin.size() ? c.thin[g]
                                              : std::vector<std::vector<std::pair<double, double>>>{}) {
      std::string thin;
      for (const auto& [st, v] : line) thin += fmt::format("{:.1f},{:.1f} ", x(st), y(v));
      s += fmt::format("<polyline points=\"{}\" fill=\"none\" stroke=\"{}\" stroke-width=\"0.8\" "
                       "stroke-opacity=\"0.5\"/>\n", thin, kColorsOf[g % kColors]);
    }
    std::string pts;
    for (const auto& [st, v] : c.points[g]) pts += fmt::format("{:.1f},{:.1f} ", x(st), y(v));
    s += fmt::format("<polyline points=\"{}\" fill=\"none\" stroke=\"{}\" stroke-width=\"2\"/>\n",
                     pts, kColorsOf[g % kColors]);
    for (size_t i = 0; i < c.points[g].size(); ++i)
      if (const double e = whisker(g, i); e > 0) {
        const auto& [st, v] = c.points[g][i];
        s += fmt::format("<line x1=\"{0:.1f}\" y1=\"{1:.1f}\" x2=\"{0:.1f}\" y2=\"{2:.1f}\" "
                         "stroke=\"{3}\" stroke-opacity=\"0.6\"/>\n", x(st),
                         y(c.percent ? std::max(v - e, 0.0) : v - e),
                         y(c.percent ? std::min(v + e, 100.0) : v + e), kColorsOf[g % kColors]);
      }
    for (const auto& [st, v] : c.points[g])
      s += fmt::format("<circle cx=\"{:.1f}\" cy=\"{:.1f}\" r=\"3\" fill=\"{}\"><title>{}, {} "
                       "{:g}: {:.3g}</title></circle>\n", x(st), y(v), kColorsOf[g % kColors],
                       svg_escape(c.groups[g]), svg_escape(c.x_label), st, v);
    s += fmt::format("<rect x=\"{:.1f}\" y=\"{:.1f}\" width=\"12\" height=\"12\" fill=\"{}\"/>"
                     "<text x=\"{:.1f}\" y=\"{:.1f}\">{}</text>\n", left + w + 20,
                     top + 10 + row * 18.0, kColorsOf[g % kColors], left + w + 38,
                     top + 20 + row * 18.0, svg_escape(c.groups[g]));
    ++row;
  }
  return s + "</svg>\n";
}

std::string difference_chart_svg(const DifferenceChart& c) {
  const int G = int(c.groups.size()), K = int(c.categories.size());
  const double step = 12, gap = 14, top = 56, plot_h = 320;
  size_t longest = 0, longest_group = 0;
  for (const auto& s : c.categories) longest = std::max(longest, s.size());
  for (const auto& g : c.groups) longest_group = std::max(longest_group, g.size());
  const double bottom = 20 + 6.2 * double(longest) * 0.72;
  const double left = std::max(70.0, 6.2 * double(longest) * 0.78);
  const double cluster = std::max(1, G) * step + gap;
  double span = 1;  // the y range: symmetric, every interval inside
  for (int g = 0; g < G; ++g)
    for (int k = 0; k < K; ++k)
      if (std::isfinite(c.diff[g][k]))
        span = std::max({span, std::abs(c.diff[g][k]),
                         c.has_ci[g][k] ? std::abs(c.lo[g][k]) : 0.0,
                         c.has_ci[g][k] ? std::abs(c.hi[g][k]) : 0.0});
  // Four ticks each side at a round step: 1, 1.5, 2, 2.5, 3, 4, 5, 6, 7.5 or 8 times 10^k.
  const double raw = span / 4, unit = std::pow(10.0, std::floor(std::log10(raw)));
  double tick = 10 * unit;
  for (double m : {1.0, 1.5, 2.0, 2.5, 3.0, 4.0, 5.0, 6.0, 7.5, 8.0})
    if (m * unit >= raw) {
      tick = m * unit;
      break;
    }
  span = 4 * tick;
  const double legend_x = left + K * cluster + 20;
  const double width = std::max(legend_x + 40 + 6.5 * double(longest_group),
                                left + 9.0 * double(std::max(c.title.size(), c.note.size())));
  auto y = [&](double v) { return top + plot_h * (0.5 - v / (2 * span)); };
  std::string s = fmt::format(
      "<svg xmlns=\"http://www.w3.org/2000/svg\" width=\"{:.0f}\" height=\"{:.0f}\" "
      "font-family=\"sans-serif\" font-size=\"11\">\n<rect width=\"100%\" height=\"100%\" "
      "fill=\"white\"/>\n<text x=\"{:.0f}\" y=\"24\" font-size=\"15\" font-weight=\"bold\">{}"
      "</text>\n<text x=\"{:.0f}\" y=\"40\">{}</text>\n",
      width, top + plot_h + bottom, left, svg_escape(c.title), left, svg_escape(c.note));
  for (int k = -4; k <= 4; ++k) {
    const double v = span * k / 4;
    s += fmt::format("<line x1=\"{:.1f}\" y1=\"{:.1f}\" x2=\"{:.1f}\" y2=\"{:.1f}\" stroke=\"{}\"/>"
                     "<text x=\"{:.1f}\" y=\"{:.1f}\" text-anchor=\"end\">{:+.3g}</text>\n",
                     left, y(v), left + K * cluster, y(v), k == 0 ? "#333" : "#ddd", left - 6,
                     y(v) + 4, v);
  }
  s += fmt::format("<text transform=\"translate({:.1f},{:.1f}) rotate(-90)\" "
                   "text-anchor=\"middle\">difference (points)</text>\n", left - 40,
                   top + plot_h / 2);
  for (int k = 0; k < K; ++k) {
    const double x0 = left + k * cluster + gap / 2;
    for (int g = 0; g < G; ++g) {
      const double cx = x0 + g * step + step / 2;
      const char* col = kColorsOf[g % kColors];
      if (!std::isfinite(c.diff[g][k])) continue;  // no difference to draw
      if (c.has_ci[g][k])
        s += fmt::format("<path d=\"M{0:.1f},{1:.1f}V{2:.1f}M{3:.1f},{1:.1f}H{4:.1f}M{3:.1f},"
                         "{2:.1f}H{4:.1f}\" stroke=\"{5}\" fill=\"none\"/>",
                         cx, y(c.hi[g][k]), y(c.lo[g][k]), cx - 3, cx + 3, col);
      s += fmt::format("<circle cx=\"{:.1f}\" cy=\"{:.1f}\" r=\"3.5\" fill=\"{}\" stroke=\"{}\" "
                       "stroke-width=\"1.5\"><title>{} / {}: {:+.1f}{}</title></circle>\n",
                       cx, y(c.diff[g][k]), c.resolved[g][k] ? col : "white", col,
                       svg_escape(c.groups[g]), svg_escape(c.categories[k]), c.diff[g][k],
                       c.has_ci[g][k] ? fmt::format(" [{:+.1f}, {:+.1f}]", c.lo[g][k], c.hi[g][k])
                                      : std::string());
    }
    s += fmt::format("<text transform=\"translate({:.1f},{:.1f}) rotate(-45)\" "
                     "text-anchor=\"end\">{}</text>\n", x0 + G * step / 2, top + plot_h + 12,
                     svg_escape(c.categories[k]));
  }
  for (int g = 0; g < G; ++g)
    s += fmt::format("<circle cx=\"{:.1f}\" cy=\"{:.1f}\" r=\"5\" fill=\"{}\"/>"
                     "<text x=\"{:.1f}\" y=\"{:.1f}\">{}</text>\n", legend_x + 6,
                     top + 16 + g * 18.0, kColorsOf[g % kColors], legend_x + 18,
                     top + 20 + g * 18.0, svg_escape(c.groups[g]));
  return s + "</svg>\n";
}

std::string panel_chart_svg(const PanelChart& c) {
  const int P = int(c.panels.size()), cols = std::max(1, std::min(P, 4));
  const int rows = (P + cols - 1) / cols;
  const double pw = 200, ph = 150, gap = 50, left = 60, top = 70;
  const double legend_x = left + cols * (pw + gap);
  size_t longest = 0;
  for (const auto& g : c.groups) longest = std::max(longest, g.size());
  const double width = std::max(legend_x + 40 + 6.5 * double(longest),
                                left + 9.0 * double(c.title.size()));
  const double height = top + rows * (ph + gap) + 20;
  auto axis = [&](double v) { return std::log(c.log1p_x ? 1 + v : v); };
  double lo = 0, hi = 1;
  if (!c.x.empty()) {
    lo = axis(*std::min_element(c.x.begin(), c.x.end()));
    hi = axis(*std::max_element(c.x.begin(), c.x.end()));
  }
  if (hi <= lo) hi = lo + 1;
  std::string s = fmt::format(
      "<svg xmlns=\"http://www.w3.org/2000/svg\" width=\"{:.0f}\" height=\"{:.0f}\" "
      "font-family=\"sans-serif\" font-size=\"10\">\n<rect width=\"100%\" height=\"100%\" "
      "fill=\"white\"/>\n<text x=\"{:.0f}\" y=\"24\" font-size=\"15\" font-weight=\"bold\">{}"
      "</text>\n<text x=\"{:.0f}\" y=\"42\">x: {} (log scale); y: {}</text>\n",
      width, height, left, svg_escape(c.title), left, svg_escape(c.x_label), svg_escape(c.y_label));
  for (int p = 0; p < P; ++p) {
    const double x0 = left + (p % cols) * (pw + gap), y0 = top + (p / cols) * (ph + gap);
    auto X = [&](double v) { return x0 + pw * (axis(v) - lo) / (hi - lo); };
    auto Y = [&](double v) { return y0 + ph * (1 - std::clamp(v, 0.0, 1.0)); };
    s += fmt::format("<text x=\"{:.1f}\" y=\"{:.1f}\" font-weight=\"bold\">{}</text>\n", x0,
                     y0 - 6, svg_escape(c.panels[p]));
    for (int k = 0; k <= 4; ++k)  // y grid 0, 0.25, ..., 1
      s += fmt::format("<line x1=\"{:.1f}\" y1=\"{:.1f}\" x2=\"{:.1f}\" y2=\"{:.1f}\" "
                       "stroke=\"#ddd\"/><text x=\"{:.1f}\" y=\"{:.1f}\" text-anchor=\"end\">"
                       "{:g}</text>\n", x0, Y(k / 4.0), x0 + pw, Y(k / 4.0), x0 - 4,
                       Y(k / 4.0) + 3, k / 4.0);
    for (double v : c.x)  // x ticks at the measured points
      s += fmt::format("<line x1=\"{0:.1f}\" y1=\"{1:.1f}\" x2=\"{0:.1f}\" y2=\"{2:.1f}\" "
                       "stroke=\"#eee\"/><text x=\"{0:.1f}\" y=\"{3:.1f}\" "
                       "text-anchor=\"middle\">{4:g}</text>\n",
                       X(v), y0, y0 + ph, y0 + ph + 12, v);
    s += fmt::format("<rect x=\"{:.1f}\" y=\"{:.1f}\" width=\"{:.1f}\" height=\"{:.1f}\" "
                     "fill=\"none\" stroke=\"#999\"/>\n", x0, y0, pw, ph);
    for (size_t g = 0; g < c.groups.size() && g < c.y[p].size(); ++g) {
      std::string pts;
      for (size_t k = 0; k < c.x.size() && k < c.y[p][g].size(); ++k)
        pts += fmt::format("{:.1f},{:.1f} ", X(c.x[k]), Y(c.y[p][g][k]));
      s += fmt::format("<polyline points=\"{}\" fill=\"none\" stroke=\"{}\" "
                       "stroke-width=\"2\"><title>{}</title></polyline>\n",
                       pts, kColorsOf[g % kColors], svg_escape(c.groups[g]));
    }
  }
  for (size_t g = 0; g < c.groups.size(); ++g)
    s += fmt::format("<rect x=\"{:.1f}\" y=\"{:.1f}\" width=\"12\" height=\"12\" fill=\"{}\"/>"
                     "<text x=\"{:.1f}\" y=\"{:.1f}\">{}</text>\n", legend_x, top + g * 18.0,
                     kColorsOf[g % kColors], legend_x + 18, top + 10 + g * 18.0,
                     svg_escape(c.groups[g]));
  return s + "</svg>\n";
}

}  // namespace bb
