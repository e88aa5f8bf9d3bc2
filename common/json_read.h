// Reading JSON a user supplied, with bb::Error messages instead of nlohmann's exception text:
// "WHERE: not valid JSON (syntax error at byte N)" and, per field,
// "WHERE: "key" is a string, expected a number" / "WHERE: "key" is missing, expected ...".
#pragma once
#include <nlohmann/json.hpp>

#include <cstdint>
#include <filesystem>
#include <string>
#include <string_view>

#include "common/error.h"
#include "common/files.h"

namespace bb {

// e.what() without nlohmann's "[json.exception.<kind>.<id>] " prefix.
inline std::string json_error_text(const std::exception& e) {
  std::string s = e.what();
  if (s.rfind("[json.exception.", 0) == 0) {
    const size_t close = s.find("] ");
    if (close != std::string::npos) s.erase(0, close + 2);
  }
  return s;
}

inline nlohmann::json parse_json(std::string_view text, const std::string& where) {
  try {
    return nlohmann::json::parse(text);
  } catch (const nlohmann::json::parse_error& e) {
    fail("{}: not valid JSON (syntax error at byte {})", where, e.byte);
  } catch (const nlohmann::json::exception& e) {  // e.g. a number too large for a double
    fail("{}: not valid JSON (error {})", where, e.id);
  }
}

inline nlohmann::json read_json_file(const std::filesystem::path& path) {
  return parse_json(read_file(path), path.string());
}

// The JSON kind of a value, as the messages name it.
inline std::string json_kind(const nlohmann::json& v) {
  if (v.is_number_integer()) return "an integer";
  if (v.is_number()) return "a number";
  if (v.is_string()) return "a string";
  if (v.is_boolean()) return "a boolean";
  if (v.is_object()) return "an object";
  if (v.is_array()) return "an array";
  return "null";
}

// obj[key], which must exist and satisfy `ok`; `expected` names the kind ("a string").
template <typename Pred>
const nlohmann::json& json_field(const nlohmann::json& obj, const std::string& key,
                                 const std::string& where, Pred ok, std::string_view expected) {
  const auto it = obj.find(key);
  BB_CHECK(it != obj.end(), "{}: \"{}\" is missing, expected {}", where, key, expected);
  BB_CHECK(ok(*it), "{}: \"{}\" is {}, expected {}", where, key, json_kind(*it), expected);
  return *it;
}

inline std::string json_string(const nlohmann::json& obj, const std::string& key,
                               const std::string& where) {
  return json_field(obj, key, where, [](const nlohmann::json& v) { return v.is_string(); },
                    "a string").get<std::string>();
}

inline double json_number(const nlohmann::json& obj, const std::string& key,
                          const std::string& where) {
  return json_field(obj, key, where, [](const nlohmann::json& v) { return v.is_number(); },
                    "a number").get<double>();
}

// An integer that fits in int64_t (nlohmann keeps values above INT64_MAX as unsigned).
inline int64_t json_integer(const nlohmann::json& obj, const std::string& key,
                            const std::string& where) {
  const auto& v = json_field(
      obj, key, where,
      [](const nlohmann::json& x) {
        return x.is_number_integer() &&
               (!x.is_number_unsigned() || x.get<uint64_t>() <= uint64_t(INT64_MAX));
      },
      "an integer below 2^63");
  return v.get<int64_t>();
}

// A non-negative integer up to 2^64 - 1 (e.g. a seed).
inline uint64_t json_unsigned(const nlohmann::json& obj, const std::string& key,
                              const std::string& where) {
  const auto& v = json_field(
      obj, key, where,
      [](const nlohmann::json& x) {
        return x.is_number_unsigned() || (x.is_number_integer() && x.get<int64_t>() >= 0);
      },
      "an integer from 0 to 2^64 - 1");
  return v.get<uint64_t>();
}

// Like json_string / json_integer, but `fallback` when the key is absent (a present key of the
// wrong kind is still an error).
inline std::string json_string_or(const nlohmann::json& obj, const std::string& key,
                                  const std::string& where, const std::string& fallback) {
  return obj.contains(key) ? json_string(obj, key, where) : fallback;
}
inline int64_t json_integer_or(const nlohmann::json& obj, const std::string& key,
                               const std::string& where, int64_t fallback) {
  return obj.contains(key) ? json_integer(obj, key, where) : fallback;
}

}  // namespace bb
