// babyberta icl experiment: its options (flags it does not know go to every icl train, checked
// here as icl train parses them; an attention function's value flag goes only to that function's
// runs); runs/icl_experiment.h runs the grid.
#include <fmt/core.h>

#include <algorithm>
#include <memory>

#include "cli/commands.h"
#include "common/error.h"
#include "runs/icl_experiment.h"

namespace bb::cli {

void add_icl_experiment(CLI::App& icl_cmd) {
  auto* cmd = icl_cmd.add_subcommand(
      "experiment", "Train tasks x architectures x functions x seeds, evaluate, compare");
  auto a = std::make_shared<IclExperimentArgs>();
  cmd->allow_extras();
  flag_table::add_options(cmd, *a, icl_experiment_flags());
  cmd->callback([a, cmd] {
    a->train_flags = cmd->remaining();
    check_icl_train_flags(a->train_flags);
    for (const std::string& own : icl_flags_set_by_grid())
      BB_CHECK(std::find(a->train_flags.begin(), a->train_flags.end(), own) == a->train_flags.end(),
               "icl experiment: {} is set by the grid itself", own);
    const std::string md = run_icl_experiment(*a);
    if (md.empty()) return;  // an MPI rank other than 0
    fmt::print("{1}\nreport: {0}/report.md (the shift comparison, charts in {0}/charts/; `icl report "
               "--dir {0}` regenerates it), {0}/table.md (per sigma); per group: "
               "{0}/eval/GROUP/, {0}/saturation/GROUP/\n",
               a->out, md);
  });
}

}  // namespace bb::cli
