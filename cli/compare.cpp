// babyberta compare RESULT.json... --out DIR: report.md, report.csv, phenomena.svg, paradigms.svg.
#include <fmt/core.h>

#include <algorithm>
#include <filesystem>
#include <string_view>
#include <vector>

#include "cli/commands.h"
#include "cli/out_option.h"
#include "common/error.h"
#include "common/flag_names.h"
#include "training/flag_ranges.h"
#include "probing/compare.h"
#include "probing/equivalence.h"
#include "probing/primary_endpoints.h"
#include "common/split_list.h"
#include "probing/report.h"

namespace bb::cli {

// Means per group, then for every compared group its difference, t interval and Holm p
// (report.md has the paradigms and the detectable differences); "*" marks a resolved difference.
void print_phenomena(const Comparison& c) {
  std::vector<size_t> compared;
  for (size_t g = 0; g < c.groups.size(); ++g)
    if (c.compared(g)) compared.push_back(g);
  fmt::print("{:<28}", "phenomenon");
  for (const auto& g : c.groups) fmt::print(" {:>16}", g);
  for (size_t g : compared)
    fmt::print("   {:<34}", fmt::format("{} − {}", c.groups[g], c.groups[size_t(c.baseline_of[g])]));
  fmt::print("\n");
  auto row = [&](const std::string& name, auto stat_of, auto diff_of) {
    fmt::print("{:<28}", name);
    for (size_t g = 0; g < c.groups.size(); ++g) {
      const Stat s = stat_of(g);
      fmt::print(" {:>16}", s.n > 1 ? fmt::format("{:.1f} ± {:.1f}", s.mean, s.sd)
                                    : fmt::format("{:.1f}", s.mean));
    }
    for (size_t g : compared) {
      const Difference& d = diff_of(g);
      fmt::print("   {:<34}",
                 d.test == SeedTest::none
                     ? fmt::format("{:+.1f} exploratory", d.diff)
                     : fmt::format("{:+.1f}{}{}{}", d.diff,
                                   d.has_ci ? fmt::format(" [{:+.1f}, {:+.1f}]", d.lo, d.hi) : "",
                                   d.p_adj >= 0 ? fmt::format(", p {:.3f}", d.p_adj) : ", p n/a",
                                   d.resolved ? " *" : ""));
    }
    fmt::print("\n");
  };
  for (const auto& ph : c.phenomena)
    row(ph, [&](size_t g) { return c.phenomenon[g].at(ph); },
        [&](size_t g) -> const Difference& { return c.phenomenon_diff[g].at(ph); });
  row("overall", [&](size_t g) { return c.overall[g]; },
      [&](size_t g) -> const Difference& { return c.overall_diff[g]; });
  if (!compared.empty())
    fmt::print("(95% t intervals over seeds, paired by seed where the runs are, else Welch; "
               "p Holm-corrected over the phenomena; * resolved: p < 0.05 and the interval "
               "excludes 0; exploratory: fewer than {} seeds in a group, nothing tested)\n",
               kMinSeedsForClaims);
}


void add_compare(CLI::App& app) {
  auto* cmd = app.add_subcommand("compare", "Compare probe results per phenomenon and paradigm");
  auto files = std::make_shared<std::vector<std::string>>();
  auto out = std::make_shared<std::string>();
  auto boot = std::make_shared<int>(1000);
  auto baseline = std::make_shared<std::string>(attention_function_name(AttentionFunction::softmax));
  auto primary = std::make_shared<std::string>();
  auto equivalence = std::make_shared<std::string>();
  auto across = std::make_shared<bool>(false);
  cmd->add_option("results", *files,
                  "Result JSON files from probe, or directories of them (experiment's "
                  "NAME.settings.json files beside them, as in results/*.json, are skipped)")
      ->required();
  add_out_option(cmd, *out, "Report directory")->required();
  cmd->add_option("--bootstrap", *boot, "Bootstrap replicates (1 to 1,000,000)")
      ->check(count_in(1, 1000000))
      ->capture_default_str();
  auto* baseline_option = cmd->add_option("--baseline", *baseline,
                  "The attention label every other group is compared with, within each stratum "
                  "(same method, size, steps, suite)")
      ->capture_default_str();
  cmd->add_option("--primary", *primary,
                  "Endpoints fixed before the evaluation (overall, phenomena or paradigms, comma-"
                  "separated): findings.md tests them together, Holm over them alone");
  cmd->add_option("--equivalence", *equivalence,
                  "Margins fixed before the evaluation, e.g. overall=1.0,dev_loss=0.02: "
                  "findings.md tests the two arms of the results (their strata, e.g. fp32 and "
                  "bf16) for equivalence, paired by label and seed (two one-sided t tests)");
  cmd->add_flag("--across-kinds", *across,
                "Compare each gpt2 group with the roberta group of the same function (stratum "
                "equal but for the scoring method; give one roberta method's results at a time) "
                "instead of each function with --baseline")
      ->excludes(baseline_option);
  cmd->callback([files, out, boot, baseline, primary, equivalence, across] {
    Comparison c = compare_runs(load_runs(result_files({files->begin(), files->end()})), *boot, 1,
                                *baseline, *across);
    if (!primary->empty()) c.primary = split_list(*primary, "--primary");
    check_primary_endpoints(c, c.primary);  // before any file is written
    if (!equivalence->empty()) {
      c.equivalence = parse_equivalence(*equivalence);
      (void)equivalence_md(c, c.equivalence);  // arms that do not pair: before any file
    }
    write_report(*out, c);
    print_phenomena(c);
    fmt::print("\nreport: {}/report.md (and report.csv and the charts)\n", *out);
  });
}

}  // namespace bb::cli
