// The attention functions' trainable values as flag rows: for every value in the attention-function
// table (backend/attention_function.h), its initial-value flag (--ssa-b-init, --temperature, ...)
// and its freeze flag, setting Args::head_values. Every kind's trainer adds the same rows, so a
// function's new value gains its flags in every command at once.
#pragma once
#include <CLI/CLI.hpp>
#include <fmt/format.h>

#include <algorithm>
#include <functional>
#include <optional>
#include <string>
#include <string_view>
#include <vector>

#include "backend/attention_function.h"
#include "training/flag_ranges.h"
#include "training/flag_table.h"

namespace bb::training {

// Adds the rows with `role`. `uses_function` (empty: every row recorded): whether a run's
// arguments train with that function; a value's rows are then recorded in run.json only for its
// own function's runs, or for every run where its table row says in_every_run.
template <typename Args, typename Recipe>
void add_head_value_rows(std::vector<FlagRow<Args, Recipe>>& t, FlagRole role,
                         const std::function<bool(const Args&, AttentionFunction)>& uses_function =
                             {}) {
  for (const AttentionFunctionSpec& f : kAttentionFunctionTable)
    for (int slot = 0; slot < f.value_count; ++slot) {
      const HeadValueSpec v = f.values[size_t(slot)];
      const size_t fi = size_t(f.function), si = size_t(slot);
      std::function<bool(const Args&)> recorded;
      if (uses_function)
        recorded = [uses_function, function = f.function, v](const Args& a) {
          return v.in_every_run || uses_function(a, function);
        };
      t.push_back({.flag = std::string(v.init_flag), .help = std::string(v.init_help),
                   .role = role,
                   .field = [fi, si](Args& a) -> FlagField { return &a.head_values[fi][si].init; },
                   .check = [v] { return in_range(v.lo, v.hi, v.lo_open); },
                   .recorded = recorded});
      t.push_back({.flag = std::string(v.freeze_flag), .help = std::string(v.freeze_help),
                   .role = role,
                   .field = [fi, si](Args& a) -> FlagField { return &a.head_values[fi][si].freeze; },
                   .form = FlagRow<Args, Recipe>::switch_on, .recorded = recorded});
    }
}

// The usage error for a value flag given to runs of `functions` only, none of which has the value
// (of `owner`): it would change nothing (or, for SSA's values, which every run records, only the
// record).
[[noreturn]] inline void refuse_head_value_flag(std::string_view flag,
                                                const std::vector<AttentionFunction>& functions,
                                                AttentionFunction owner) {
  std::vector<std::string> given;
  for (const AttentionFunction g : functions) given.emplace_back(attention_function_name(g));
  throw UsageError(fmt::format("{} does not apply to --attention {} (it sets a value of {})", flag,
                               fmt::join(given, ","), attention_function_name(owner)));
}

// A value's flag given on `cmd`'s command line when none of `functions` (the runs' functions) has
// that value, e.g. --temperature for softmax runs: refused (refuse_head_value_flag).
inline void check_head_value_flags_given(const CLI::App& cmd,
                                         const std::vector<AttentionFunction>& functions) {
  for (const AttentionFunctionSpec& f : kAttentionFunctionTable) {
    if (std::find(functions.begin(), functions.end(), f.function) != functions.end()) continue;
    for (int slot = 0; slot < f.value_count; ++slot) {
      const HeadValueSpec& v = f.values[size_t(slot)];
      for (const std::string_view flag : {v.init_flag, v.freeze_flag}) {
        const std::string name(flag);
        if (cmd.get_option_no_throw(name) == nullptr || cmd.count(name) == 0) continue;
        refuse_head_value_flag(name, functions, f.function);
      }
    }
  }
}

// A command-line word that is a value's flag: the function whose value it sets, its flag, and
// whether the value is the next word (an initial-value flag written without "=VALUE"). nullopt for
// any other word.
struct HeadValueFlagWord {
  AttentionFunction function;
  std::string_view flag;
  bool value_follows;
};
inline std::optional<HeadValueFlagWord> head_value_flag_word(std::string_view word) {
  const size_t eq = word.find('=');
  const std::string_view name = word.substr(0, eq);
  for (const AttentionFunctionSpec& f : kAttentionFunctionTable)
    for (int slot = 0; slot < f.value_count; ++slot) {
      const HeadValueSpec& v = f.values[size_t(slot)];
      if (name == v.init_flag) return HeadValueFlagWord{f.function, v.init_flag, eq == word.npos};
      if (name == v.freeze_flag) return HeadValueFlagWord{f.function, v.freeze_flag, false};
    }
  return std::nullopt;
}

// Command-line words meant for runs of several functions (a grid's flags for every child): a
// value's flag that no function of `functions` has is refused (refuse_head_value_flag).
inline void check_head_value_flag_words(const std::vector<std::string>& words,
                                        const std::vector<AttentionFunction>& functions) {
  for (const std::string& w : words)
    if (const auto hv = head_value_flag_word(w);
        hv && std::find(functions.begin(), functions.end(), hv->function) == functions.end())
      refuse_head_value_flag(hv->flag, functions, hv->function);
}

}  // namespace bb::training
