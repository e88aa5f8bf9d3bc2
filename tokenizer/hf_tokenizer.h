// Our tokenizer as a HuggingFace tokenizers file (tokenizer.json), for `export`: the same
// pipeline written as HF's components, so that HF clients (tokenizers, transformers.js) give the
// ids `encode` gives.
//   normalizer: NFKC (when set), Lowercase (unless the model kept case), runs of whitespace,
//     control or format characters (ICU's u_iscntrl: Cc, Cf, Zl, Zp) to one space, stripped, then SentencePiece's dummy prefix: "▁" prepended
//     and every space "▁";
//   model: BPE with the SentencePiece vocabulary and merges ranked by the merged piece's score
//     (SentencePiece merges the pair whose result scores highest), byte fallback (<0xXX> pieces);
//     a unigram SentencePiece model becomes HF's Unigram with its scores;
//   post-processor: <s> A </s>; decoder: "▁" to spaces, byte fallback, fused, leading space off.
#pragma once
#include <nlohmann/json.hpp>

#include "tokenizer/tokenizer.h"

namespace bb {

nlohmann::json hf_tokenizer_json(const Tokenizer& tok);

}  // namespace bb
