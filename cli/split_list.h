// "softmax, ssa,cosformer" -> {"softmax", "ssa", "cosformer"}: comma-separated flag values with
// the spaces around each item removed; an empty item is a one-line error naming the flag.
#pragma once
#include <string>
#include <vector>

#include "common/error.h"

namespace bb::cli {

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

}  // namespace bb::cli
