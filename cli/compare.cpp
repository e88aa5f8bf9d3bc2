// babyberta compare RESULT.json... --out DIR: report.md, report.csv, phenomena.svg, paradigms.svg.
#include <fmt/core.h>

#include "cli/commands.h"
#include "common/error.h"
#include "cli/flag_ranges.h"
#include "probing/compare.h"
#include "probing/report.h"

namespace bb::cli {

void print_phenomena(const Comparison& c) {
  fmt::print("{:<28}", "phenomenon");
  for (const auto& g : c.groups) fmt::print(" {:>16}", g);
  if (c.groups.size() > 1) fmt::print(" {:>24}", "difference [95% CI]");
  fmt::print("\n");
  auto row = [&](const std::string& name, auto stat_of, const Difference* d) {
    fmt::print("{:<28}", name);
    for (size_t g = 0; g < c.groups.size(); ++g) {
      const Stat s = stat_of(g);
      fmt::print(" {:>16}", s.n > 1 ? fmt::format("{:.1f} ± {:.1f}", s.mean, s.sd)
                                    : fmt::format("{:.1f}", s.mean));
    }
    if (d)
      fmt::print(" {:>24}", d->has_ci ? fmt::format("{:+.1f} [{:+.1f}, {:+.1f}]", d->diff, d->lo, d->hi)
                                      : fmt::format("{:+.1f}", d->diff));
    fmt::print("\n");
  };
  for (const auto& ph : c.phenomena)
    row(ph, [&](size_t g) { return c.phenomenon[g].at(ph); },
        c.groups.size() > 1 ? &c.phenomenon_diff[0].at(ph) : nullptr);
  row("overall", [&](size_t g) { return c.overall[g]; },
      c.groups.size() > 1 ? &c.overall_diff[0] : nullptr);
}

void add_compare(CLI::App& app) {
  auto* cmd = app.add_subcommand("compare", "Compare probe results per phenomenon and paradigm");
  auto files = std::make_shared<std::vector<std::string>>();
  auto out = std::make_shared<std::string>();
  auto boot = std::make_shared<int>(1000);
  cmd->add_option("results", *files,
                  "Result JSON files from probe (experiment's NAME.settings.json files beside "
                  "them, as in results/*.json, are skipped)")
      ->required();
  cmd->add_option("--out", *out, "Report directory")->required();
  cmd->add_option("--bootstrap", *boot, "Bootstrap replicates (1 to 1,000,000)")
      ->check(count_in(1, 1000000))
      ->capture_default_str();
  cmd->callback([files, out, boot] {
    std::vector<std::filesystem::path> paths;
    for (const std::string& f : *files)
      if (!f.ends_with(".settings.json")) paths.emplace_back(f);
    BB_CHECK(!paths.empty(), "compare: only settings files given (expected probe result files)");
    const Comparison c = compare_runs(load_runs(paths), *boot);
    write_report(*out, c);
    print_phenomena(c);
    fmt::print("\nreport: {}/report.md (and report.csv, phenomena.svg, paradigms.svg)\n", *out);
  });
}

}  // namespace bb::cli
