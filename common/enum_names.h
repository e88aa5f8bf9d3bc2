// Name tables of small enums (a value and its flag/JSON name per row): the name of a value, the
// list of names, and parsing with one line listing the names when a name is unknown.
#pragma once
#include <fmt/format.h>
#include <fmt/ranges.h>

#include <cstddef>
#include <string>
#include <vector>

#include "common/error.h"

namespace bb {

template <typename E>
struct EnumName {
  E value;
  const char* name;
};

template <typename E, size_t N>
std::string enum_name(const EnumName<E> (&table)[N], E v) {
  for (const EnumName<E>& row : table)
    if (row.value == v) return row.name;
  return "?";
}

template <typename E, size_t N>
std::vector<std::string> enum_names(const EnumName<E> (&table)[N]) {
  std::vector<std::string> out;
  for (const EnumName<E>& row : table) out.emplace_back(row.name);
  return out;
}

// The value named `s`; else "unknown WHAT 'S' (expected a, b, c)".
template <typename E, size_t N>
E parse_enum(const EnumName<E> (&table)[N], const std::string& s, const char* what) {
  for (const EnumName<E>& row : table)
    if (s == row.name) return row.value;
  fail("unknown {} '{}' (expected {})", what, s, fmt::join(enum_names(table), ", "));
}

}  // namespace bb
