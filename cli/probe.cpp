// babyberta probe: options, and the result's table on stdout.
#include <fmt/core.h>

#include "cli/commands.h"
#include "cli/out_option.h"
#include "cli/compute_options.h"
#include "common/flag_names.h"
#include "training/precision_flag.h"
#include "training/flag_ranges.h"
#include "runs/probe_run.h"
#include "probing/scorer.h"

namespace bb::cli {

void print_probe_table(const ProbeSummary& s) {
  fmt::print("{:<58} {:>8} {:>6} {:>5}\n", "paradigm", "accuracy", "pairs", "ties");
  for (auto& [name, v] : s.paradigms.items())
    fmt::print("{:<58} {:>8.1f} {:>6} {:>5}\n", name, v["accuracy"].get<double>(),
               v["pairs"].get<int>(), v["ties"].get<int>());
  fmt::print("\n{:<58} {:>8}\n", "phenomenon", "accuracy");
  for (auto& [name, v] : s.phenomena.items())
    fmt::print("{:<58} {:>8.1f}\n", name, v.get<double>());
  fmt::print("\noverall (mean over paradigms) {:.1f}, mean over phenomena {:.1f}\n", s.overall,
             s.overall_by_phenomenon);
}

void add_probe(CLI::App& app) {
  auto* cmd = app.add_subcommand("probe", "Score a minimal-pair suite (Zorro, BLiMP, TSV)");
  auto a = std::make_shared<ProbeArgs>();
  cmd->add_option("--model", a->model, "Model directory")->required();
  cmd->add_option("--suite", a->suites,
                  "Suite directory or file (.txt Zorro, .jsonl BLiMP, .tsv or .csv pairs); repeat "
                  "for several")
      ->required();
  auto* header = cmd->add_flag("--header", a->header,
                               "The first row of each .tsv/.csv (record of each .jsonl) is a header: "
                               "skipped, its columns read by name or else by position (default: "
                               "detected; a header-like row naming no good and bad column is refused)");
  cmd->add_flag("--no-header", a->no_header,
                "The first row of each .tsv/.csv (record of each .jsonl) is a pair (good, bad[, paradigm])")
      ->excludes(header);
  cmd->add_option("--format", a->format, "Suite format: auto (by extension; a .txt must be "
                  "phenomenon-paradigm.txt of at most 20,000 lines) or zorro (any file)")
      ->check(CLI::IsMember({"auto", "zorro"}))
      ->capture_default_str();
  add_out_option(cmd, a->out, "Results JSON (a .pairs.jsonl is written next to it)")
      ->required();
  cmd->add_option("--method", a->method,
                  "roberta: holistic (its default), pll or pll-word-l2r; gpt2: causal")
      ->check(one_of("scoring method", method_names()));
  cmd->add_option("--reduction", a->reduction,
                  "sum or mean over the scored tokens (default: holistic mean, pll and causal sum)")
      ->check(one_of("reduction", {"sum", "mean"}));
  cmd->add_option("--tie-rule", a->tie_rule, "A tie counts as: half or wrong")
      ->check(one_of("tie rule", {"half", "wrong"}))
      ->capture_default_str();
  cmd->add_option("--order", a->order, "Zorro pair order: bad-first (odd lines ungrammatical) "
                                       "or good-first")
      ->check(one_of("pair order", {"bad-first", "good-first"}))
      ->capture_default_str();
  add_compute_options(cmd, a->threads, a->device, a->precision);
  cmd->add_option("--pairs-per-paradigm", a->pairs_per_paradigm,
                  "Score only the first N pairs of each paradigm (0: all; 0 to 1,000,000,000)")
      ->check(count_in(0, 1000000000))
      ->capture_default_str();
  cmd->add_option("--batch-tokens", a->batch_tokens,
                  "Tokens per scoring batch (0: 512 on the CPU, 8,192 on CUDA; 0 to 65,536)")
      ->check(count_in(0, 65536))
      ->capture_default_str();
  cmd->callback([a] { print_probe_table(run_probe(*a)); });
}

}  // namespace bb::cli
