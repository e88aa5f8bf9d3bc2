#include "probing/svg.h"

#include <fmt/format.h>

#include <algorithm>

namespace bb {

static std::string escape(const std::string& s) {
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
  static const char* colors[] = {"#4c72b0", "#dd8452", "#55a868", "#c44e52", "#8172b3", "#937860"};
  const int G = int(c.groups.size()), K = int(c.categories.size());
  const double bar = 14, gap = 12, left = 60, top = 50, plot_h = 320;
  size_t longest = 0;
  for (const auto& s : c.categories) longest = std::max(longest, s.size());
  const double bottom = 20 + 6.2 * double(longest) * 0.72;  // room for labels at -45 degrees
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
      "<text x=\"{:.0f}\" y=\"24\" font-size=\"15\" font-weight=\"bold\">{}</text>\n",
      width, height, width, height, left, escape(c.title));
  for (int p = 0; p <= 100; p += 10) {  // grid and y labels
    s += fmt::format("<line x1=\"{:.1f}\" y1=\"{:.1f}\" x2=\"{:.1f}\" y2=\"{:.1f}\" stroke=\"#ddd\"/>"
                     "<text x=\"{:.1f}\" y=\"{:.1f}\" text-anchor=\"end\">{}</text>\n",
                     left, y(p), left + K * cluster, y(p), left - 6, y(p) + 4, p);
  }
  s += fmt::format("<text transform=\"translate(18,{:.1f}) rotate(-90)\" text-anchor=\"middle\">"
                   "accuracy (%)</text>\n", top + plot_h / 2);
  for (int k = 0; k < K; ++k) {
    const double x0 = left + k * cluster + gap / 2;
    for (int g = 0; g < G; ++g) {
      const double m = c.mean[g][k], d = c.sd[g][k];
      const double x = x0 + g * bar;
      s += fmt::format("<rect class=\"bar\" x=\"{:.1f}\" y=\"{:.1f}\" width=\"{:.1f}\" "
                       "height=\"{:.1f}\" fill=\"{}\"><title>{} / {}: {:.1f} ± {:.1f}</title></rect>\n",
                       x, y(m), bar - 2, y(0) - y(m), colors[g % 6], escape(c.groups[g]),
                       escape(c.categories[k]), m, d);
      if (d > 0) {
        const double cx = x + (bar - 2) / 2;
        s += fmt::format("<path d=\"M{0:.1f},{1:.1f}V{2:.1f}M{3:.1f},{1:.1f}H{4:.1f}M{3:.1f},"
                         "{2:.1f}H{4:.1f}\" stroke=\"black\" fill=\"none\"/>\n",
                         cx, y(std::min(100.0, m + d)), y(std::max(0.0, m - d)), cx - 3, cx + 3);
      }
    }
    const double lx = x0 + G * bar / 2, ly = top + plot_h + 12;
    s += fmt::format("<text transform=\"translate({:.1f},{:.1f}) rotate(-45)\" "
                     "text-anchor=\"end\">{}</text>\n", lx, ly, escape(c.categories[k]));
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
                     lx, ly, colors[g % 6], lx + 18, ly + 10, escape(c.groups[g]));
  }
  return s + "</svg>\n";
}

std::string line_chart_svg(const LineChart& c) {
  static const char* colors[] = {"#4c72b0", "#dd8452", "#55a868", "#c44e52", "#8172b3", "#937860"};
  const double left = 60, top = 50, w = 480, h = 300, width = left + w + 190, height = top + h + 50;
  double max_step = 1;
  for (const auto& g : c.points)
    for (const auto& [s, a] : g) max_step = std::max(max_step, s);
  auto x = [&](double s) { return left + w * s / max_step; };
  auto y = [&](double pct) { return top + h * (1 - pct / 100.0); };
  std::string s = fmt::format(
      "<svg xmlns=\"http://www.w3.org/2000/svg\" width=\"{:.0f}\" height=\"{:.0f}\" "
      "font-family=\"sans-serif\" font-size=\"11\">\n<rect width=\"100%\" height=\"100%\" "
      "fill=\"white\"/>\n<text x=\"{:.0f}\" y=\"24\" font-size=\"15\" font-weight=\"bold\">{}</text>\n",
      width, height, left, escape(c.title));
  for (int p = 0; p <= 100; p += 10)
    s += fmt::format("<line x1=\"{:.1f}\" y1=\"{:.1f}\" x2=\"{:.1f}\" y2=\"{:.1f}\" stroke=\"#ddd\"/>"
                     "<text x=\"{:.1f}\" y=\"{:.1f}\" text-anchor=\"end\">{}</text>\n",
                     left, y(p), left + w, y(p), left - 6, y(p) + 4, p);
  for (int k = 0; k <= 4; ++k)
    s += fmt::format("<text x=\"{:.1f}\" y=\"{:.1f}\" text-anchor=\"middle\">{:.0f}</text>\n",
                     x(max_step * k / 4), top + h + 16, max_step * k / 4);
  s += fmt::format("<text x=\"{:.1f}\" y=\"{:.1f}\" text-anchor=\"middle\">training step</text>\n"
                   "<text transform=\"translate(18,{:.1f}) rotate(-90)\" text-anchor=\"middle\">"
                   "accuracy (%)</text>\n", left + w / 2, top + h + 36, top + h / 2);
  s += fmt::format("<line x1=\"{:.1f}\" y1=\"{:.1f}\" x2=\"{:.1f}\" y2=\"{:.1f}\" stroke=\"#333\" "
                   "stroke-dasharray=\"3,3\"/>\n", left, y(c.chance), left + w, y(c.chance));
  for (size_t g = 0; g < c.groups.size(); ++g) {
    std::string pts;
    for (const auto& [st, a] : c.points[g]) pts += fmt::format("{:.1f},{:.1f} ", x(st), y(a));
    s += fmt::format("<polyline points=\"{}\" fill=\"none\" stroke=\"{}\" stroke-width=\"2\"/>\n",
                     pts, colors[g % 6]);
    for (const auto& [st, a] : c.points[g])
      s += fmt::format("<circle cx=\"{:.1f}\" cy=\"{:.1f}\" r=\"3\" fill=\"{}\"><title>{} step {:.0f}: "
                       "{:.1f}</title></circle>\n", x(st), y(a), colors[g % 6], escape(c.groups[g]), st, a);
    s += fmt::format("<rect x=\"{:.1f}\" y=\"{:.1f}\" width=\"12\" height=\"12\" fill=\"{}\"/>"
                     "<text x=\"{:.1f}\" y=\"{:.1f}\">{}</text>\n", left + w + 20, top + 10 + g * 18.0,
                     colors[g % 6], left + w + 38, top + 20 + g * 18.0, escape(c.groups[g]));
  }
  return s + "</svg>\n";
}

}  // namespace bb
