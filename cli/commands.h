// One registration function per subcommand; main.cpp wires them into CLI11.
#pragma once
#include <CLI/CLI.hpp>

#include <filesystem>

namespace bb {
struct CorpusStats;
}

namespace bb::cli {

void add_bench(CLI::App& app);
void add_info(CLI::App& app);
void add_tokenizer(CLI::App& app);
void add_encode(CLI::App& app);
void add_data(CLI::App& app);
void add_train(CLI::App& app);

// Warns on stderr about lines skipped as invalid UTF-8, with their line numbers.
void warn_invalid_lines(const std::filesystem::path& corpus, const CorpusStats& stats);

}  // namespace bb::cli
