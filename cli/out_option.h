// --out, registered in one place for the commands that write a file or a directory: an empty path
// ("--out ''", a shell variable left unset) is refused at parsing, before any work, instead of
// running and then failing to write (or, for an optional --out, writing nothing without a word).
#pragma once
#include <CLI/CLI.hpp>

#include <string>

#include "common/flag_names.h"

namespace bb::cli {

template <typename T>
CLI::Option* add_out_option(CLI::App* cmd, T& value, const std::string& help) {
  return cmd->add_option(flag_name::out, value, help)->check([](const std::string& path) {
    return path.empty() ? std::string("an empty path (expected a file or directory name)")
                        : std::string();
  });
}

}  // namespace bb::cli
