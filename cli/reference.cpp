// babyberta reference: published results (UnMasked's results/zorro.csv) as reference result files
// that compare shows beside the groups (probing/published_results.h).
#include <fmt/format.h>

#include <memory>

#include "cli/commands.h"
#include "cli/out_option.h"
#include "common/error.h"
#include "common/files.h"
#include "common/flag_names.h"
#include "probing/published_results.h"
#include "probing/suite.h"

namespace bb::cli {

namespace {

struct ReferenceArgs {
  std::string csv, suite, out, source;
  UnmaskedSelection selection;
};

void run_reference(const ReferenceArgs& a) {
  UnmaskedSelection sel = a.selection;
  sel.source = a.source;
  const Suite suite = load_suite(a.suite);
  const auto results = unmasked_results(a.csv, sel, suite);
  std::filesystem::create_directories(a.out);
  for (const nlohmann::json& r : results) {
    const std::string name = fmt::format("unmasked-{}-run{}.json", sel.method,
                                         r["config"]["seed"].get<int>());
    write_file_atomic(std::filesystem::path(a.out) / name, r.dump(2) + "\n");
    fmt::print("{}: {} ({}), overall {:.2f}\n", name, r["model"].get<std::string>(),
               r["source"]["scoring_method"].get<std::string>(), r["overall"].get<double>());
  }
}

}  // namespace

void add_reference(CLI::App& app) {
  auto* cmd = app.add_subcommand(
      "reference", "Published per-paradigm accuracies (UnMasked's results/zorro.csv) as reference "
                   "result files for compare: one per run, never compared, shown as mean ± sd");
  auto a = std::make_shared<ReferenceArgs>();
  cmd->add_option("--unmasked-csv", a->csv, "UnMasked's results/zorro.csv")->required();
  cmd->add_option("--suite", a->suite, "The suite the file's paradigms must match (its pair "
                  "counts are recorded)")->required();
  cmd->add_option("--model", a->selection.model, "The rows' model column")->capture_default_str();
  cmd->add_option("--corpora", a->selection.corpora, "The rows' corpora column")
      ->capture_default_str();
  cmd->add_option("--label", a->selection.label, "The reference group's label (default: MODEL "
                  "(UnMasked))");
  cmd->add_option("--method", a->selection.method,
                  "holistic (UnMasked's holistic rows) or pll (its mlm rows)")
      ->check(CLI::IsMember({"holistic", "pll"}))
      ->capture_default_str();
  cmd->add_option("--source", a->source, "Where the file comes from, recorded in each result "
                  "(e.g. phueb/UnMasked@COMMIT:results/zorro.csv)")->required();
  add_out_option(cmd, a->out, "Directory for unmasked-METHOD-runK.json")->required();
  cmd->callback([a] { run_reference(*a); });
}

}  // namespace bb::cli
