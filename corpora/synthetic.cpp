#include "corpora/synthetic.h"

#include <algorithm>
#include <array>

namespace bb {

namespace {
// Utterances per word count 3..40 in aochildes_merged.txt (294,957 with >= 3 words; the 0.1%
// longer than 40 words are folded into 40).
constexpr std::array<int, 38> kWordCounts = {
    46411, 53042, 48766, 39755, 30837, 22909, 15723, 10605, 7272, 5056, 3662, 2646, 1986,
    1487,  1080,  867,   655,   458,   320,   288,   194,   149,   142,   123,  88,   81,
    54,    46,    44,    41,    29,    19,    12,    19,    8,     11,    12,   9 + 51};
constexpr int kFirstWords = 3;

int tokens_for_words(int words, int max_len) { return std::min(max_len, words + words / 5 + 2); }

int draw_words(const Philox& rng, uint64_t a, uint64_t b) {
  static const int total = [] {
    int s = 0;
    for (int c : kWordCounts) s += c;
    return s;
  }();
  uint32_t w[4];
  rng.block(a, b, w);
  int r = int(w[0] % uint32_t(total));
  for (size_t i = 0; i < kWordCounts.size(); ++i) {
    if (r < kWordCounts[i]) return kFirstWords + int(i);
    r -= kWordCounts[i];
  }
  return kFirstWords + int(kWordCounts.size()) - 1;
}
}  // namespace

void synthetic_batch(uint64_t seed, int64_t step, int batch_size, const MaskingOptions& masking,
                     int max_len, Batch& out) {
  out.clear();
  const Philox len_rng{stream_key(seed, 1)}, tok_rng{stream_key(seed, 2)},
      mask_rng{stream_key(seed, 3)};
  for (int b = 0; b < batch_size; ++b) {
    const uint64_t seq = uint64_t(step) * uint64_t(batch_size) + uint64_t(b);
    const int L = tokens_for_words(draw_words(len_rng, seq, 0), max_len);
    const int off = out.num_tokens();
    for (int t = 0; t < L; ++t) {
      uint32_t w[4];
      tok_rng.block(seq, uint64_t(t), w);
      const uint32_t span = uint32_t(masking.vocab_size - masking.first_normal_id);
      out.ids.push_back(masking.first_normal_id + int32_t(w[0] % span));
    }
    out.ids[off] = 3;          // <s> (BabyBERTa ids, as in every preset)
    out.ids[off + L - 1] = 4;  // </s>
    mask_sequence(out.ids.data() + off, L, off, masking, mask_rng, seq, out.rows, out.labels);
    out.offsets.push_back(out.num_tokens());
  }
}

}  // namespace bb
