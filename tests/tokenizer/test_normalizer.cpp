// ICU normalisation: NFKC, lower-casing (optional), whitespace clean-up, invalid UTF-8.
#include <doctest/doctest.h>

#include "tokenizer/normalizer.h"

using bb::Normalizer;

TEST_CASE("NFKC folds full-width letters and ligatures, composes combining accents") {
  const Normalizer n;
  CHECK(*n.normalize("\xEF\xBC\xA1\xEF\xBC\xA2\xEF\xBC\xA3") == "abc");  // ＡＢＣ
  CHECK(*n.normalize("\xEF\xAC\x81sh") == "fish");                       // ﬁsh
  CHECK(*n.normalize("cafe\xCC\x81") == "caf\xC3\xA9");                  // e + U+0301 -> é
}

TEST_CASE("whitespace: NBSP, tabs and runs become one space; ends trimmed") {
  const Normalizer n;
  CHECK(*n.normalize("  the\xC2\xA0\xC2\xA0" "dog \t sees\n") == "the dog sees");
  CHECK(*n.normalize("   ") == "");
}

TEST_CASE("lower-casing is on by default and can be turned off") {
  CHECK(*Normalizer().normalize("Michael SAW Émile") == "michael saw \xC3\xA9mile");
  CHECK(*Normalizer({.nfkc = true, .lowercase = false}).normalize("Michael") == "Michael");
}

TEST_CASE("invalid UTF-8 is reported, not repaired") {
  const Normalizer n;
  CHECK_FALSE(n.normalize("bad \xFF byte").has_value());
  CHECK_FALSE(n.normalize("\xC3").has_value());          // truncated sequence
  CHECK_FALSE(n.normalize("\xED\xA0\x80").has_value());  // surrogate
  CHECK(bb::is_valid_utf8("plain ascii"));
}

TEST_CASE("settings round-trip through JSON") {
  const bb::NormalizerSettings s{.nfkc = true, .lowercase = false};
  const auto back = bb::NormalizerSettings::from_json(s.to_json(), "x");
  CHECK(back.nfkc);
  CHECK_FALSE(back.lowercase);
}
