// Grouped bar chart as standalone SVG: one cluster per category, one bar per group, error bars
// (± sd), a dotted chance line, y axis in percent.
#pragma once
#include <string>
#include <vector>

namespace bb {

// Text for SVG/XML: & < > " as entities.
std::string svg_escape(const std::string& s);

struct BarChart {
  std::string title;
  std::vector<std::string> categories;
  std::vector<std::string> groups;
  std::vector<std::vector<double>> mean, sd;  // [group][category], percent
  double chance = 50;
};

std::string bar_chart_svg(const BarChart& c);

// Lines of accuracy against training step, one per group, with a dotted chance line.
struct LineChart {
  std::string title;
  std::vector<std::string> groups;
  std::vector<std::vector<std::pair<double, double>>> points;  // [group] (step, percent)
  double chance = 50;
};

std::string line_chart_svg(const LineChart& c);

// Small multiples: one panel per entry of `panels`, a line per group in each, over shared x
// values drawn on a log axis (of x, or of 1 + x with log1p_x); y from 0 to 1.
struct PanelChart {
  std::string title, x_label, y_label;
  std::vector<std::string> panels, groups;
  std::vector<double> x;
  bool log1p_x = false;
  std::vector<std::vector<std::vector<double>>> y;  // [panel][group][x index]
};

std::string panel_chart_svg(const PanelChart& c);

}  // namespace bb
