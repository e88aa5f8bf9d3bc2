// One registration function per subcommand; main.cpp wires them into CLI11.
#pragma once
#include <CLI/CLI.hpp>

namespace bb::cli {

void add_bench(CLI::App& app);
void add_info(CLI::App& app);

}  // namespace bb::cli
