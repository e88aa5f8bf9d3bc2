// An attention function with some of its trainable values set or frozen, as `experiment
// --attention` takes it: NAME, or NAME(KEY=VALUE[ frozen], KEY frozen, ...) with KEY a value's name
// in the attention-function table (ssa: b, n; softmax-t: τ or tau). Its label is the one the
// trained model's config gives (Config::label; reports group runs by it): "ssa(n=1.5 frozen)";
// its run name is that label in filesystem-safe ASCII: "ssa-n1.5-frozen".
#pragma once
#include <CLI/CLI.hpp>

#include <string>
#include <vector>

#include "backend/attention_function.h"

namespace bb {

struct AttentionVariant {
  AttentionFunction function;
  HeadValueSettings values;  // the table's defaults where not given
  std::string label, run_name;
  std::vector<std::string> train_flags;  // train's arguments: --attention NAME and value flags
};

// One variant, its values set over `base` (the table's defaults, or an experiment's value flags);
// a one-line error names `flag`, the text and what was expected.
AttentionVariant parse_attention_variant(
    const std::string& text, const char* flag,
    const HeadValueSettings& base = default_head_value_settings());
// A comma-separated list of variants (commas inside parentheses belong to their variant), with
// distinct labels ("ssa(n=1.5)" is "ssa": listed twice with it, refused).
std::vector<AttentionVariant> parse_attention_variants(
    const std::string& list, const char* flag,
    const HeadValueSettings& base = default_head_value_settings());
// The list's check while parsing the command line (exit 2, the nearest function name).
CLI::Validator attention_variant_list();

}  // namespace bb
