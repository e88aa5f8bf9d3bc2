// babyberta compare-perplexity FILE.json|DIR... --out DIR [--baseline softmax] [--per word|token]:
// the seed-level comparison of `perplexity --out` files (probing/perplexity_compare.h), written
// as DIR/perplexity.md and DIR/perplexity.csv and printed.
#include <fmt/core.h>

#include <filesystem>

#include "cli/commands.h"
#include "cli/out_option.h"
#include "common/error.h"
#include "common/files.h"
#include "common/flag_names.h"
#include "probing/perplexity_compare.h"

namespace bb::cli {

namespace fs = std::filesystem;

namespace {

// The files given, a directory standing for its *.json files (sorted by name).
std::vector<fs::path> perplexity_files(const std::vector<std::string>& given) {
  std::vector<fs::path> out;
  for (const std::string& g : given) {
    if (!fs::is_directory(g)) {
      BB_CHECK(fs::is_regular_file(g), "{}: no such file or directory", g);
      out.emplace_back(g);
      continue;
    }
    const std::vector<fs::path> in_dir = files_ending_with(g, ".json");
    BB_CHECK(!in_dir.empty(), "{}: a directory without .json files", g);
    out.insert(out.end(), in_dir.begin(), in_dir.end());
  }
  return out;
}

}  // namespace

void add_compare_perplexity(CLI::App& app) {
  auto* cmd = app.add_subcommand(
      "compare-perplexity",
      "Compare perplexity files per kind, function and input (paired t over seeds, Holm)");
  auto files = std::make_shared<std::vector<std::string>>();
  auto out = std::make_shared<std::string>();
  auto baseline = std::make_shared<std::string>(attention_function_name(AttentionFunction::softmax));
  auto per = std::make_shared<std::string>("word");
  cmd->add_option("files", *files, "perplexity --out files, or directories of them")->required();
  add_out_option(cmd, *out, "Report directory (perplexity.md, perplexity.csv)")
      ->required();
  cmd->add_option("--baseline", *baseline,
                  "The attention label every other function is compared with, within each kind")
      ->capture_default_str();
  cmd->add_option("--per", *per, "word or token: perplexity per word (tokenizers differ) or per "
                                 "token")
      ->capture_default_str();
  cmd->callback([files, out, baseline, per] {
    const PerplexityUnit unit = parse_perplexity_unit(*per);
    std::vector<PerplexityFile> read;
    for (const fs::path& f : perplexity_files(*files)) read.push_back(read_perplexity_file(f));
    const PerplexityComparison c = compare_perplexities(read, *baseline, unit);
    const std::string md = perplexity_report_md(c);  // everything computed before any write
    std::error_code ec;
    fs::create_directories(*out, ec);
    BB_CHECK(!ec, "{}: cannot create directory ({})", *out, ec.message());
    write_file_atomic(fs::path(*out) / "perplexity.md", md);
    write_file_atomic(fs::path(*out) / "perplexity.csv", perplexity_report_csv(c));
    fmt::print("{}\nreport: {}/perplexity.md (and perplexity.csv)\n", md, *out);
  });
}

}  // namespace bb::cli
