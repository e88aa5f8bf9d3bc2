// babyberta perplexity --model DIR (--text FILE | --good-of SUITE | --dev-of RUN)...
// [--out F.json]:
// per input its tokens, words, mean negative log-likelihood per token and the perplexity per
// token and per word (runs/perplexity_run.h: a causal LM's true perplexity, a masked LM's
// pseudo-perplexity, labelled so); a table on stdout.
#include <fmt/core.h>

#include "cli/commands.h"
#include "cli/out_option.h"
#include "cli/compute_options.h"
#include "common/flag_names.h"
#include "runs/perplexity_run.h"
#include "training/flag_ranges.h"
#include "training/precision_flag.h"

namespace bb::cli {

void add_perplexity(CLI::App& app) {
  auto* cmd = app.add_subcommand(
      "perplexity", "Perplexity per token and per word on texts (gpt2: perplexity; roberta: "
                    "pseudo-perplexity)");
  auto a = std::make_shared<PerplexityArgs>();
  cmd->add_option("--model", a->model, "Model directory")->required();
  cmd->add_option("--text", a->texts, "A text file, one sentence per line (repeat for several)");
  cmd->add_option("--good-of", a->good_of,
                  "A suite (directory or file, e.g. BLiMP's): its good sentences (repeatable)");
  cmd->add_option("--dev-of", a->dev_of,
                  "A train run: its own dev split, rebuilt from its run.json (repeatable)");
  add_out_option(cmd, a->out, "Results JSON");
  add_compute_options(cmd, a->threads, a->device, a->precision);
  cmd->callback([a] {
    const auto result = run_perplexity(*a);
    fmt::print("{} of {} ({} model, method {})\n", result["measure"].get<std::string>(),
               a->model, result["kind"].get<std::string>(), result["method"].get<std::string>());
    fmt::print("{:<60} {:>9} {:>9} {:>11} {:>11}\n", "input", "tokens", "words", "per token",
               "per word");
    for (const auto& r : result["inputs"])
      fmt::print("{:<60} {:>9} {:>9} {:>11.3f} {:>11.3f}\n", r["source"].get<std::string>(),
                 r["tokens"].get<int64_t>(), r["words"].get<int64_t>(),
                 r["perplexity_per_token"].get<double>(), r["perplexity_per_word"].get<double>());
  });
}

}  // namespace bb::cli
