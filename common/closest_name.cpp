#include "common/closest_name.h"

#include <algorithm>
#include <cctype>

namespace bb {

// Levenshtein distance between a and b (edits of one character).
size_t edit_distance(const std::string& a, const std::string& b) {
  std::vector<size_t> row(b.size() + 1);
  for (size_t j = 0; j <= b.size(); ++j) row[j] = j;
  for (size_t i = 1; i <= a.size(); ++i) {
    size_t diag = row[0];
    row[0] = i;
    for (size_t j = 1; j <= b.size(); ++j) {
      const size_t up = row[j];
      row[j] = std::min({row[j] + 1, row[j - 1] + 1, diag + (a[i - 1] == b[j - 1] ? 0 : 1)});
      diag = up;
    }
  }
  return row[b.size()];
}

std::string closest_name(const std::string& given, const std::vector<std::string>& names) {
  auto lower = [](std::string s) {
    std::transform(s.begin(), s.end(), s.begin(),
                   [](unsigned char c) { return char(std::tolower(c)); });
    return s;
  };
  for (const std::string& n : names)
    if (lower(n) == lower(given)) return n;
  std::string best;
  size_t best_d = 4;
  for (const std::string& n : names)
    if (const size_t d = edit_distance(given, n); d < best_d) best_d = d, best = n;
  return best;
}

}  // namespace bb
