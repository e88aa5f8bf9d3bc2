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
  std::string note = "error bars: ± 1 sd over seeds (none with one seed)";  // under the title
};

std::string bar_chart_svg(const BarChart& c);

// Lines of a value against training step, one per group (each point marked, so a group with
// one point shows too), with an optional dotted reference line (accuracy: chance).
struct LineChart {
  std::string title;
  std::vector<std::string> groups;
  std::vector<std::vector<std::pair<double, double>>> points;  // [group] (step, value)
  std::vector<std::vector<double>> spread;  // [group][point]: a whisker of ± this (empty: none)
  // [group][line]: thin lines in the group's colour under its line (its seeds; empty: none)
  std::vector<std::vector<std::vector<std::pair<double, double>>>> thin;
  double chance = 50;                   // NaN: no reference line
  std::string y_label = "accuracy (%)";
  std::string x_label = "training step";
  bool percent = true;                  // y from 0 to 100; else from the data's range
  std::string note;                     // under the title
};

std::string line_chart_svg(const LineChart& c);

// Differences to a baseline with their intervals: per category a point per group (filled when
// resolved, hollow otherwise) with its interval's whiskers, around a zero line.
struct DifferenceChart {
  std::string title, note;
  std::vector<std::string> categories, groups;
  std::vector<std::vector<double>> diff, lo, hi;     // [group][category], points
  std::vector<std::vector<bool>> has_ci, resolved;  // [group][category]
};

std::string difference_chart_svg(const DifferenceChart& c);

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
