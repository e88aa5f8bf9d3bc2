// The attention maps of an ICL model (for `attention --model ICLDIR`): the weights of one forward
// pass over sequences of the model's task at sigma of x, in the encoder's ModelAttention form so
// that the same JSON and SVG writers draw them; tokens are named x1, y1, x2, y2, ...
#pragma once
#include <filesystem>

#include "probing/attention_maps.h"

namespace bb::icl {

ModelAttention read_icl_attention(const std::filesystem::path& model_dir, double sigma, int points,
                                  int sequences, uint64_t seed);

}  // namespace bb::icl
