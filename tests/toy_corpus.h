// A small corpus written by the tests: a toy grammar of child-directed-style utterances.
#pragma once
#include <fstream>
#include <string>
#include <vector>

#include "common/philox.h"

namespace bb::test {

inline std::vector<std::string> toy_sentences(int n, uint64_t seed = 1) {
  static const std::vector<std::string> subj = {"the dog", "the dogs", "a cat", "the cats",
                                                "mommy", "you", "the baby", "the babies"};
  static const std::vector<std::string> verb_s = {"sees", "likes", "wants", "has"};
  static const std::vector<std::string> verb_p = {"see", "like", "want", "have"};
  static const std::vector<std::string> obj = {"the ball", "a cookie", "the red truck",
                                               "some milk", "the big book", "a banana"};
  const Philox rng{mix64(seed)};
  std::vector<std::string> out;
  for (int i = 0; i < n; ++i) {
    uint32_t w[4];
    rng.block(0, uint64_t(i), w);
    const std::string& s = subj[w[0] % subj.size()];
    const bool plural = s.back() == 's' || s == "you";
    const auto& verbs = plural ? verb_p : verb_s;
    out.push_back(s + " " + verbs[w[1] % verbs.size()] + " " + obj[w[2] % obj.size()] +
                  (w[3] % 4 == 0 ? " ?" : " ."));
  }
  return out;
}

inline void write_lines(const std::string& path, const std::vector<std::string>& lines) {
  std::ofstream f(path, std::ios::binary);
  for (const auto& l : lines) f << l << "\n";
}

}  // namespace bb::test
