// Valid ranges for numeric flags, as CLI11 validators: a value outside (or NaN/inf) is refused
// while parsing with one line naming the flag, and --help shows the range next to the flag.
#pragma once
#include <CLI/CLI.hpp>
#include <fmt/format.h>

#include <algorithm>
#include <cmath>
#include <cstdio>
#include <string>
#include <vector>

#include "backend/attention_function.h"
#include "backend/threads.h"
#include "common/closest_name.h"
#include "common/split_list.h"

namespace bb {

// A finite number in [lo, hi]; lo_open / hi_open exclude the bound ("(0, 1]" etc.).
inline CLI::Validator in_range(double lo, double hi, bool lo_open = false, bool hi_open = false) {
  const std::string desc =
      fmt::format("{}{}, {}{}", lo_open ? "(" : "[", lo, hi, hi_open ? ")" : "]");
  return CLI::Validator(
      [=](std::string& s) -> std::string {
        double x = 0;
        size_t used = 0;
        try {
          x = std::stod(s, &used);
        } catch (const std::exception&) {
          return fmt::format("{} is not a number; expected one in {}", s, desc);
        }
        if (used != s.size()) return fmt::format("{} is not a number; expected one in {}", s, desc);
        if (!std::isfinite(x) || x < lo || x > hi || (lo_open && x == lo) ||
            (hi_open && x == hi))
          return fmt::format("{} is out of range; expected a number in {}", s, desc);
        return {};
      },
      "in " + desc);
}

// An integer count in [lo, hi] (no fraction: "1.5" and "2e9" beyond hi are refused).
inline CLI::Validator count_in(long long lo, long long hi) {
  const std::string desc = fmt::format("[{}, {}]", lo, hi);
  return CLI::Validator(
      [=](std::string& s) -> std::string {
        long long x = 0;
        size_t used = 0;
        try {
          x = std::stoll(s, &used);
        } catch (const std::exception&) {
          return fmt::format("{} is not a whole number; expected one in {}", s, desc);
        }
        if (used != s.size() || x < lo || x > hi)
          return fmt::format("{} is out of range; expected a whole number in {}", s, desc);
        return {};
      },
      "in " + desc);
}

// A name among `names` ("attention function", "preset", ...: `what`); with comma_list, a
// comma-separated list of them. Refused while parsing (exit 2) with the valid names and the
// nearest one: "unknown preset 'base' (expected one of babyberta, small, tiny); did you mean ...".
inline CLI::Validator one_of(const std::string& what, std::vector<std::string> names,
                             bool comma_list = false) {
  const std::string all = fmt::format("{}", fmt::join(names, ", "));
  return CLI::Validator(
      [=](std::string& s) -> std::string {
        std::vector<std::string> given{s};
        if (comma_list) try {
            given = split_list(s, "the list");
          } catch (const Error& e) {
            return fmt::format("empty item in '{}' (expected a comma-separated list)", s);
          }
        for (const std::string& g : given) {
          if (std::find(names.begin(), names.end(), g) != names.end()) continue;
          const std::string near = closest_name(g, names);
          return fmt::format("unknown {} '{}' (expected one of {}){}", what, g, all,
                             near.empty() ? "" : fmt::format("; did you mean '{}'?", near));
        }
        return {};
      },
      comma_list ? "list of " + all : "one of " + all);
}

// The attention functions' names, in table order (for one_of).
inline std::vector<std::string> attention_function_name_list() {
  std::vector<std::string> names;
  for (const AttentionFunctionSpec& f : kAttentionFunctionTable) names.emplace_back(f.name);
  return names;
}

// Seeds: whole numbers in [0, 2^53 - 1], exact as JSON numbers in any reader (run.json, results).
inline constexpr long long kMaxSeed = 9007199254740991;

// A --threads value: a whole number in [1, 1024]; one above the cores this process may use is
// capped to them with one warning (more threads than cores only slows compute down, and `score`
// and `probe` would load one model replica per thread).
inline CLI::Validator thread_count() {
  const CLI::Validator count = count_in(1, 1024);
  return CLI::Validator(
      [count](std::string& s) -> std::string {
        if (std::string problem = count(s); !problem.empty()) return problem;
        const int cores = available_cores();
        if (std::stoll(s) > cores) {
          fmt::print(stderr, "babyberta: warning: --threads {} is more than the {} cores this "
                     "process may use; using {}\n", s, cores, cores);
          s = std::to_string(cores);
        }
        return {};
      },
      "in [1, 1024], capped at the cores");
}

// --keep-checkpoints: a count in [1, 1000000], or `all` (becomes 0: keep every one).
inline CLI::Validator keep_count() {
  const CLI::Validator count = count_in(1, 1000000);
  return CLI::Validator(
      [count](std::string& s) -> std::string {
        if (s == "all") {
          s = "0";
          return {};
        }
        if (std::string problem = count(s); !problem.empty()) return problem + " or all";
        return {};
      },
      "in [1, 1000000] or all");
}

}  // namespace bb
