// babyberta icl report: the shift comparison of a results folder (icl/shift_report.h) into its
// report.md and charts/, from the folder's files alone.
#include <fmt/core.h>

#include "cli/commands.h"
#include "icl/shift_report.h"
#include "icl/training_length_report.h"

namespace bb::cli {

void add_icl_report(CLI::App& icl_cmd) {
  auto* cmd = icl_cmd.add_subcommand(
      "report", "The shift comparison of a results folder: endpoint, curves, saturation, report.md");
  auto dir = std::make_shared<std::string>();
  auto s = std::make_shared<icl::ShiftReportSettings>();
  cmd->add_option("--dir", *dir, "Results folder (runs/, endpoint/, grid/, saturation/, authors/)")
      ->required();
  cmd->add_option("--reference", s->reference, "Function the others are compared with")
      ->capture_default_str();
  cmd->add_option("--primary", s->primary, "Function of the primary comparison")
      ->capture_default_str();
  cmd->callback([dir, s] {
    // A folder of evaluations per checkpoint (endpoint/GROUP/step-N/) gets the training-length
    // comparison; any other the shift comparison.
    fmt::print("{}", icl::is_training_length_folder(*dir)
                         ? icl::write_training_length_report(*dir, *s)
                         : icl::write_shift_report(*dir, *s));
    fmt::print("report: {}/report.md, charts in {}/charts/\n", *dir, *dir);
  });
}

}  // namespace bb::cli
