// CLI11's parse errors as babyberta's one-line errors: "babyberta: error: --lr: 2 is out of range;
// expected a number in (0, 1]", and for an unknown flag the closest known flag of the subcommand
// ("--attenton: unknown flag; did you mean --attention?").
#pragma once
#include <CLI/CLI.hpp>

#include <string>
#include <vector>

namespace bb::cli {

std::string describe_parse_error(const CLI::App& app, const CLI::ParseError& e);

}  // namespace bb::cli
