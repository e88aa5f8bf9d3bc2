// Grouped bar chart as standalone SVG: one cluster per category, one bar per group, error bars
// (± sd), a dotted chance line, y axis in percent.
#pragma once
#include <string>
#include <vector>

namespace bb {

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

}  // namespace bb
