// Unicode normalisation, owned by ICU and done exactly once, the same way at training and at
// scoring time: NFKC, lower-casing (on by default), whitespace clean-up (every run of Unicode
// white space becomes one ASCII space; leading and trailing space removed).
#pragma once
#include <nlohmann/json.hpp>

#include <optional>
#include <string>
#include <string_view>

namespace bb {

struct NormalizerSettings {
  bool nfkc = true;
  bool lowercase = true;
  nlohmann::json to_json() const;
  static NormalizerSettings from_json(const nlohmann::json& j, const std::string& where);
};

class Normalizer {
 public:
  explicit Normalizer(const NormalizerSettings& s = {});
  // The normalised text, or nullopt when `utf8` is not valid UTF-8.
  std::optional<std::string> normalize(std::string_view utf8) const;
  const NormalizerSettings& settings() const { return s_; }

 private:
  NormalizerSettings s_;
  const void* nfkc_;  // icu::Normalizer2*, owned by ICU
};

bool is_valid_utf8(std::string_view s);

}  // namespace bb
