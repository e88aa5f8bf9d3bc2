// One registration function per subcommand; main.cpp wires them into CLI11.
#pragma once
#include <CLI/CLI.hpp>

#include <filesystem>
#include <stdexcept>
#include <string>
#include <vector>

namespace bb {
struct CorpusStats;
struct Comparison;
struct ProbeSummary;
}

namespace bb::cli {

void add_bench(CLI::App& app);
void add_info(CLI::App& app);
void add_attention(CLI::App& app);
void add_saturation(CLI::App& app);
void add_export(CLI::App& app);
void add_tokenizer(CLI::App& app);
void add_encode(CLI::App& app);
void add_data(CLI::App& app);
void add_train(CLI::App& app);
void add_probe(CLI::App& app);
void add_score(CLI::App& app);
void add_perplexity(CLI::App& app);
void add_baseline(CLI::App& app);
void add_reference(CLI::App& app);
void add_compare(CLI::App& app);
void add_compare_perplexity(CLI::App& app);
void add_experiment(CLI::App& app);
void add_icl(CLI::App& app);  // icl train, icl eval
void add_icl_train(CLI::App& icl);
void add_icl_eval(CLI::App& icl);
void add_icl_experiment(CLI::App& icl);
void add_icl_report(CLI::App& icl);
// Fails (one line) unless `flags` parse as icl train's (experiment checks what it forwards).
void check_icl_train_flags(const std::vector<std::string>& flags);
// A probe's per-paradigm and per-phenomenon accuracies, on stdout (probe, baseline).
void print_probe_table(const ProbeSummary& s);
// The per-phenomenon table of a comparison, on stdout.
void print_phenomena(const Comparison& c);

}  // namespace bb::cli
