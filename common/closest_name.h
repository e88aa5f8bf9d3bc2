// The name a user most likely meant, for "did you mean" in one-line errors.
#pragma once
#include <string>
#include <vector>

namespace bb {

// Levenshtein distance (edits of one character).
size_t edit_distance(const std::string& a, const std::string& b);
// The name `given` most likely meant: one equal but for case, else the nearest within 3 edits,
// else "".
std::string closest_name(const std::string& given, const std::vector<std::string>& names);

}  // namespace bb
