// babyberta data fetch --out DIR: AO-CHILDES, Zorro and BLiMP from their public repositories,
// each file verified against its pinned digest.
#include <fmt/core.h>

#include "cli/commands.h"
#include "cli/out_option.h"
#include "common/error.h"
#include "common/flag_names.h"
#include "corpora/fetch.h"

namespace bb::cli {

void add_data(CLI::App& app) {
  auto* group = app.add_subcommand("data", "Data commands");
  group->require_subcommand(1);
  auto* cmd = group->add_subcommand("fetch", "Download and verify AO-CHILDES, Zorro and BLiMP");
  auto opt = std::make_shared<FetchOptions>();
  auto only = std::make_shared<std::vector<std::string>>();
  add_out_option(cmd, opt->out, "Output directory")->required();
  cmd->add_option("--base", opt->base, "Base URL (BASE/owner/repo/commit/path; file:// works)")
      ->capture_default_str();
  cmd->add_option("--only", *only, "Subset: aochildes, zorro, blimp")
      ->delimiter(',')
      ->check(CLI::IsMember({"aochildes", "zorro", "blimp"}));
  cmd->callback([opt, only] {
    if (!only->empty()) {
      opt->datasets.clear();
      for (const auto& s : *only)
        opt->datasets.push_back(s == "aochildes" ? Dataset::aochildes
                                : s == "zorro"   ? Dataset::zorro
                                                 : Dataset::blimp);
    }
    const FetchReport r = fetch_data(*opt);
    fmt::print("{} files downloaded and verified, {} already present and verified, {} failed\n",
               r.downloaded, r.kept, r.failures.size());
    for (const auto& s : data_sources())
      fmt::print("  {} @ {}: {}\n", s.repo, s.commit.substr(0, 12), s.licence);
    for (const auto& f : r.failures) fmt::print(stderr, "babyberta: error: {}\n", f);
    BB_CHECK(r.failures.empty(), "{} of the data files could not be fetched and verified",
             r.failures.size());
  });
}

}  // namespace bb::cli
