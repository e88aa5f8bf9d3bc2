#include "tokenizer/normalizer.h"

#include <unicode/locid.h>
#include <unicode/normalizer2.h>
#include <unicode/uchar.h>
#include <unicode/unistr.h>
#include <unicode/utf8.h>

#include "common/error.h"
#include "common/json_read.h"

namespace bb {

nlohmann::json NormalizerSettings::to_json() const {
  return {{"unicode", nfkc ? "NFKC" : "none"}, {"lowercase", lowercase}, {"whitespace", "collapse"}};
}

NormalizerSettings NormalizerSettings::from_json(const nlohmann::json& j,
                                                 const std::string& where) {
  NormalizerSettings s;
  BB_CHECK(j.is_object() && j.contains("unicode") && j.contains("lowercase"),
           "{}: tokenizer normalization settings missing (expected unicode, lowercase)", where);
  const std::string u = json_string(j, "unicode", where);
  BB_CHECK(u == "NFKC" || u == "none", "{}: unknown unicode normalization '{}'", where, u);
  s.nfkc = u == "NFKC";
  s.lowercase = json_field(j, "lowercase", where, [](const nlohmann::json& v) {
                  return v.is_boolean();
                }, "a boolean").get<bool>();
  return s;
}

bool is_valid_utf8(std::string_view s) {
  int32_t i = 0;
  const int32_t n = int32_t(s.size());
  const auto* p = reinterpret_cast<const uint8_t*>(s.data());
  while (i < n) {
    UChar32 c;
    U8_NEXT(p, i, n, c);
    if (c < 0) return false;
  }
  return true;
}

Normalizer::Normalizer(const NormalizerSettings& s) : s_(s) {
  UErrorCode err = U_ZERO_ERROR;
  nfkc_ = icu::Normalizer2::getNFKCInstance(err);
  BB_CHECK(U_SUCCESS(err), "ICU: cannot load NFKC data ({})", u_errorName(err));
}

std::optional<std::string> Normalizer::normalize(std::string_view utf8) const {
  if (!is_valid_utf8(utf8)) return std::nullopt;
  icu::UnicodeString text = icu::UnicodeString::fromUTF8(icu::StringPiece(utf8.data(), int32_t(utf8.size())));
  if (s_.nfkc) {
    UErrorCode err = U_ZERO_ERROR;
    text = static_cast<const icu::Normalizer2*>(nfkc_)->normalize(text, err);
    BB_CHECK(U_SUCCESS(err), "ICU: NFKC failed ({})", u_errorName(err));
  }
  if (s_.lowercase) text.toLower(icu::Locale::getRoot());
  icu::UnicodeString out;
  bool pending_space = false;
  for (int32_t i = 0; i < text.length();) {
    const UChar32 c = text.char32At(i);
    i += U16_LENGTH(c);
    if (u_isUWhiteSpace(c) || u_iscntrl(c)) {
      pending_space = !out.isEmpty();
      continue;
    }
    if (pending_space) out.append(UChar32(' '));
    pending_space = false;
    out.append(c);
  }
  std::string result;
  out.toUTF8String(result);
  return result;
}

}  // namespace bb
