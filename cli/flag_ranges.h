// Valid ranges for numeric flags, as CLI11 validators: a value outside (or NaN/inf) is refused
// while parsing with one line naming the flag, and --help shows the range next to the flag.
#pragma once
#include <CLI/CLI.hpp>
#include <fmt/format.h>

#include <cmath>
#include <string>

namespace bb::cli {

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
        if (used != s.size() || !std::isfinite(x) || x < lo || x > hi || (lo_open && x == lo) ||
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

}  // namespace bb::cli
