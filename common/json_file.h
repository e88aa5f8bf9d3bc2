// JSON files with one-line errors: nlohmann's "[json.exception.parse_error.101] " prefix is
// dropped, so only what went wrong and where reaches the user.
#pragma once
#include <nlohmann/json.hpp>

#include <filesystem>
#include <string>

#include "common/error.h"
#include "common/files.h"

namespace bb {

// e.what() without the "[json.exception.<kind>.<id>] " prefix.
inline std::string json_error_text(const std::exception& e) {
  std::string s = e.what();
  if (s.rfind("[json.exception.", 0) == 0) {
    const size_t close = s.find("] ");
    if (close != std::string::npos) s.erase(0, close + 2);
  }
  return s;
}

// Parses `text`; a syntax error is "<where>: not valid JSON (<what>)".
inline nlohmann::json parse_json(const std::string& text, const std::string& where) {
  try {
    return nlohmann::json::parse(text);
  } catch (const nlohmann::json::exception& e) {
    fail("{}: not valid JSON ({})", where, json_error_text(e));
  }
}

inline nlohmann::json read_json_file(const std::filesystem::path& path) {
  return parse_json(read_file(path), path.string());
}

}  // namespace bb
