// CLI11's parse errors as babyberta's one-line errors: "babyberta: error: --lr: 2 is out of range;
// expected a number in (0, 1]", and for an unknown flag the closest known flag of the subcommand
// ("--attenton: unknown flag; did you mean --attention?").
#pragma once
#include <CLI/CLI.hpp>

#include <string>
#include <vector>

namespace bb::cli {

std::string describe_parse_error(const CLI::App& app, const CLI::ParseError& e);
// Levenshtein distance (edits of one character).
size_t edit_distance(const std::string& a, const std::string& b);
// The name `given` most likely meant: one equal but for case, else the nearest within 3 edits,
// else "".
std::string closest_name(const std::string& given, const std::vector<std::string>& names);

}  // namespace bb::cli
