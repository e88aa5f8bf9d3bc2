#include "runs/attention_variant.h"

#include <fmt/format.h>

#include <algorithm>
#include <sstream>

#include "common/closest_name.h"
#include "common/error.h"
#include "common/flag_names.h"
#include "encoder/config.h"

namespace bb {

namespace {

std::string trim(const std::string& s) {
  const size_t a = s.find_first_not_of(" \t"), b = s.find_last_not_of(" \t");
  return a == std::string::npos ? std::string() : s.substr(a, b - a + 1);
}

// Splits at the commas outside parentheses.
std::vector<std::string> split_outside_parens(const std::string& s) {
  std::vector<std::string> out(1);
  int depth = 0;
  for (const char c : s) {
    depth += c == '(' ? 1 : c == ')' ? -1 : 0;
    if (c == ',' && depth == 0) out.emplace_back();
    else out.back() += c;
  }
  return out;
}

std::vector<std::string> function_names() {
  std::vector<std::string> names;
  for (const AttentionFunctionSpec& f : kAttentionFunctionTable) names.emplace_back(f.name);
  return names;
}

const AttentionFunctionSpec& function_named(const std::string& name, const char* flag) {
  for (const AttentionFunctionSpec& f : kAttentionFunctionTable)
    if (f.name == name) return f;
  const std::string near = closest_name(name, function_names());
  fail("{}: unknown attention function '{}' (expected one of {}){}", flag, name,
       fmt::join(function_names(), ", "),
       near.empty() ? "" : fmt::format("; did you mean '{}'?", near));
}

// "KEY=VALUE", "KEY=VALUE frozen" or "KEY frozen" of function `f` into `values`.
void set_value(const AttentionFunctionSpec& f, const std::string& item, const std::string& text,
               const char* flag, HeadValueSettings& values) {
  std::istringstream words(item);
  std::string assignment, extra, more;
  words >> assignment >> extra >> more;
  BB_CHECK(more.empty() && (extra.empty() || extra == "frozen"),
           "{}: '{}' in '{}': expected KEY=VALUE, KEY=VALUE frozen or KEY frozen", flag, item, text);
  const size_t eq = assignment.find('=');
  const std::string key = assignment.substr(0, eq);
  std::vector<std::string> keys;
  for (int slot = 0; slot < f.value_count; ++slot) {
    const HeadValueSpec& v = f.values[size_t(slot)];
    keys.emplace_back(v.ascii_name);
    if (key != v.name && key != v.ascii_name) continue;
    HeadValueSetting& s = values[size_t(f.function)][size_t(slot)];
    if (eq != std::string::npos) {
      const std::string number = assignment.substr(eq + 1);
      size_t used = 0;
      double x = NAN;
      try {
        x = std::stod(number, &used);
      } catch (const std::exception&) {
      }
      const bool inside = std::isfinite(x) && used == number.size() && x <= v.hi &&
                          (v.lo_open ? x > v.lo : x >= v.lo);
      BB_CHECK(inside, "{}: {}={} in '{}': expected a number in {}{}, {}]", flag, key, number,
               text, v.lo_open ? "(" : "[", v.lo, v.hi);
      s.init = x;
    } else {
      BB_CHECK(extra == "frozen", "{}: '{}' in '{}' sets nothing: give {}=VALUE or '{} frozen'",
               flag, item, text, key, key);
    }
    s.freeze = extra == "frozen";
    return;
  }
  if (keys.empty())
    fail("{}: '{}': {} has no trainable values to set", flag, text, f.name);
  fail("{}: unknown value '{}' of {} in '{}' (expected {})", flag, key, f.name, text,
       fmt::join(keys, ", "));
}

}  // namespace

AttentionVariant parse_attention_variant(const std::string& given, const char* flag,
                                         const HeadValueSettings& base) {
  const std::string text = trim(given);
  BB_CHECK(!text.empty(), "{}: empty item (expected a comma-separated list)", flag);
  const size_t open = text.find('(');
  BB_CHECK(open == std::string::npos || text.back() == ')',
           "{}: '{}': expected NAME or NAME(KEY=VALUE[ frozen], ...)", flag, text);
  const AttentionFunctionSpec& f = function_named(trim(text.substr(0, open)), flag);
  AttentionVariant v{.function = f.function, .values = base,
                     .label = {}, .run_name = std::string(f.name),
                     .train_flags = {flag_name::attention, std::string(f.name)}};
  if (open != std::string::npos) {
    const std::string inner = text.substr(open + 1, text.size() - open - 2);
    BB_CHECK(inner.find_first_of("()") == std::string::npos, "{}: '{}': nested parentheses",
             flag, text);
    for (const std::string& item : split_outside_parens(inner)) {
      BB_CHECK(!trim(item).empty(), "{}: '{}': an empty KEY=VALUE", flag, text);
      set_value(f, trim(item), text, flag, v.values);
    }
  }
  Config c;  // the model's own label for these values
  c.attention = f.function;
  c.head_values = v.values;
  v.label = c.label();
  for (int slot = 0; slot < f.value_count; ++slot) {
    const HeadValueSpec& spec = f.values[size_t(slot)];
    const HeadValueSetting& s = v.values[size_t(f.function)][size_t(slot)];
    if (s.init != spec.init) {
      v.train_flags.insert(v.train_flags.end(),
                           {std::string(spec.init_flag), fmt::format("{}", s.init)});
      std::string number = fmt::format("{:g}", s.init);
      std::erase(number, '+');  // 1e+06 -> 1e06
      v.run_name += fmt::format("-{}{}", spec.ascii_name, number);
    }
    if (s.freeze) {
      v.train_flags.emplace_back(spec.freeze_flag);
      if (s.init == spec.init) v.run_name += fmt::format("-{}{:g}", spec.ascii_name, s.init);
      v.run_name += "-frozen";
    }
  }
  return v;
}

std::vector<AttentionVariant> parse_attention_variants(const std::string& list, const char* flag,
                                                       const HeadValueSettings& base) {
  std::vector<AttentionVariant> out;
  for (const std::string& item : split_outside_parens(list)) {
    BB_CHECK(!trim(item).empty(), "{}: empty item in '{}' (expected a comma-separated list)", flag,
             list);
    AttentionVariant v = parse_attention_variant(item, flag, base);
    for (const AttentionVariant& w : out)
      BB_CHECK(w.label != v.label, "{}: '{}' is {} again (each variant once)", flag, trim(item),
               v.label);
    out.push_back(std::move(v));
  }
  return out;
}

CLI::Validator attention_variant_list() {
  return CLI::Validator(
      [](std::string& s) -> std::string {
        try {
          parse_attention_variants(s, "the list");
        } catch (const Error& e) {
          std::string why = e.what();
          const std::string prefix = "the list: ";
          return why.rfind(prefix, 0) == 0 ? why.substr(prefix.size()) : why;
        }
        return {};
      },
      "NAME or NAME(KEY=VALUE[ frozen], ...), comma-separated");
}

}  // namespace bb
