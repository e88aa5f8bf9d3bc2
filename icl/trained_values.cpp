#include "icl/trained_values.h"

#include <fmt/format.h>
#include <fmt/ranges.h>

#include <algorithm>
#include <array>
#include <cmath>
#include <vector>

#include "icl/config.h"
#include "icl/trainer.h"

namespace bb::icl {

namespace fs = std::filesystem;

std::string trained_values_section(const fs::path& runs_dir, const shift::Group& g,
                                   const std::string& when) {
  std::vector<std::string> with_values;
  for (const std::string& fn : g.functions)
    if (attention_function_spec(g.runs.at(fn).front().attention).value_count > 0)
      with_values.push_back(fn);
  if (with_values.empty()) return "";
  std::string md = fmt::format(
      "\n### Trained values of the attention functions\n\nPer run, layer and head: the initial "
      "value (config.json) → the trained one (`runs/NAME/model.safetensors`{}, its raw value "
      "mapped as the function maps it). A value *moves* when some head's changes by more than "
      "{:g}.\n\n| function | seed | layer | per head: initial → trained |\n|---|---|---|---|\n",
      when.empty() ? "" : ", " + when, kTrainedValueMovesBy);
  std::vector<std::string> summary;
  for (const std::string& fn : with_values) {
    const AttentionFunctionSpec& f = attention_function_spec(g.runs.at(fn).front().attention);
    std::array<double, 2> largest{0, 0};
    int read = 0;
    for (const shift::RunInfo& r : g.runs.at(fn)) {
      const fs::path run = runs_dir / r.name;
      if (!fs::exists(run / "model.safetensors")) continue;
      ++read;
      const Config c = read_config(run / "config.json");
      const auto values = read_head_values(run, c);  // [slot][layer][head]
      for (int l = 0; l < c.layers; ++l) {
        std::vector<std::string> cells;
        for (int slot = 0; slot < f.value_count; ++slot) {
          const double init = c.head_value_init(slot);
          std::vector<std::string> heads;
          for (double now : values[size_t(slot)][size_t(l)]) {
            largest[size_t(slot)] = std::max(largest[size_t(slot)], std::abs(now - init));
            heads.push_back(fmt::format("{:.2f} → {:.2f}", init, now));
          }
          cells.push_back(fmt::format("{}: {}", f.values[size_t(slot)].name, fmt::join(heads, ", ")));
        }
        md += fmt::format("| {} | {} | {} | {} |\n", fn, r.seed, l, fmt::join(cells, "; "));
      }
    }
    if (read == 0) continue;
    std::vector<std::string> moved;
    for (int slot = 0; slot < f.value_count; ++slot)
      moved.push_back(fmt::format("{} by at most {:.3f} ({})", f.values[size_t(slot)].name,
                                  largest[size_t(slot)],
                                  largest[size_t(slot)] > kTrainedValueMovesBy ? "moves"
                                                                               : "nearly fixed"));
    summary.push_back(fmt::format("{} ({} runs): {}", fn, read, fmt::join(moved, ", ")));
  }
  if (summary.empty()) return "";
  md += fmt::format("\nLargest change from the initial value over runs, layers and heads: {}.\n",
                    fmt::join(summary, "; "));
  return md;
}

}  // namespace bb::icl
