// Comma-separated flag values: split_list for names, number_list for numbers and ranges.
#pragma once
#include <cmath>
#include <string>
#include <vector>

#include "common/error.h"

namespace bb {

inline std::vector<std::string> split_list(const std::string& s, const char* flag) {
  std::vector<std::string> out;
  for (size_t pos = 0; pos <= s.size();) {
    const size_t comma = std::min(s.find(',', pos), s.size());
    std::string item = s.substr(pos, comma - pos);
    item.erase(0, item.find_first_not_of(" \t"));
    item.erase(item.find_last_not_of(" \t") + 1);
    BB_CHECK(!item.empty(), "{}: empty item in '{}' (expected a comma-separated list)", flag, s);
    out.push_back(std::move(item));
    pos = comma + 1;
  }
  return out;
}

// "1,2,4", "1:29" (step 1) or "10:200:10" (inclusive ranges), or a mix: "1,2,4:10:2".
inline std::vector<double> number_list(const std::string& s, const char* flag) {
  std::vector<double> out;
  for (const std::string& item : split_list(s, flag)) {
    std::vector<double> parts;
    for (size_t pos = 0; pos <= item.size();) {
      const size_t colon = std::min(item.find(':', pos), item.size());
      const std::string part = item.substr(pos, colon - pos);
      size_t used = 0;
      double v = NAN;
      try {
        v = std::stod(part, &used);
      } catch (const std::exception&) {
      }
      BB_CHECK(used == part.size() && !part.empty() && std::isfinite(v),
               "{}: '{}' is not a number (expected a list like 1,2,4 or 1:29 or 10:200:10)", flag,
               part);
      parts.push_back(v);
      pos = colon + 1;
    }
    BB_CHECK(parts.size() <= 3, "{}: '{}' has more than three parts", flag, item);
    if (parts.size() == 1) {
      out.push_back(parts[0]);
      continue;
    }
    const double step = parts.size() == 3 ? parts[2] : 1.0;
    BB_CHECK(step > 0 && parts[0] <= parts[1] && (parts[1] - parts[0]) / step <= 10000,
             "{}: '{}' is not a range from low to high with a positive step", flag, item);
    for (int i = 0; parts[0] + i * step <= parts[1] + 1e-9 * step; ++i)
      out.push_back(parts[0] + i * step);
  }
  return out;
}

}  // namespace bb
