#include "backend/attention_function.h"

#include <fmt/format.h>
#include <fmt/ranges.h>

#include <vector>

#include "common/error.h"

namespace bb {

std::string attention_function_name(AttentionFunction f) {
  return std::string(attention_function_spec(f).name);
}

std::string attention_function_names() {
  std::vector<std::string_view> names;
  for (const AttentionFunctionSpec& f : kAttentionFunctionTable) names.push_back(f.name);
  return fmt::format("{}", fmt::join(names, ", "));
}

AttentionFunction parse_attention_function(const std::string& s) {
  for (const AttentionFunctionSpec& f : kAttentionFunctionTable)
    if (s == f.name) return f.function;
  fail("unknown attention function '{}' (expected one of {})", s, attention_function_names());
}

std::string attention_variant_label(AttentionFunction f, const HeadValueSettings& s) {
  const AttentionFunctionSpec& spec = attention_function_spec(f);
  std::vector<std::string> parts;
  for (int slot = 0; slot < spec.value_count; ++slot) {
    const HeadValueSpec& v = spec.values[size_t(slot)];
    const HeadValueSetting& now = s[size_t(f)][size_t(slot)];
    if (now.init != v.init || now.freeze)
      parts.push_back(fmt::format("{}={:g}{}", v.name, now.init, now.freeze ? " frozen" : ""));
  }
  if (parts.empty()) return std::string(spec.name);
  return fmt::format("{}({})", spec.name, fmt::join(parts, ", "));
}

std::string attention_function_help() {
  std::vector<std::string> rows;
  for (const AttentionFunctionSpec& f : kAttentionFunctionTable)
    rows.push_back(fmt::format("{} ({})", f.name, f.help));
  return fmt::format("Attention function: {}", fmt::join(rows, ", "));
}

void validate_head_values(const HeadValueSettings& s, const std::string& where) {
  for (const AttentionFunctionSpec& f : kAttentionFunctionTable)
    for (int slot = 0; slot < f.value_count; ++slot) {
      const HeadValueSpec& v = f.values[size_t(slot)];
      const double x = s[size_t(f.function)][size_t(slot)].init;
      const bool above_lo = v.lo_open ? x > v.lo : x >= v.lo;  // false for NaN
      BB_CHECK(above_lo && x <= v.hi, "{}: {} must be {} {:g} and {} {:g}, got {}", where,
               v.config_init, v.lo_open ? ">" : "between", v.lo, v.lo_open ? "<=" : "and", v.hi,
               x);
    }
}

}  // namespace bb
