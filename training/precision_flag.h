// --precision as a flag row for every kind's trainer: fp32 (the default) or bf16
// (backend/precision.h). It changes the math, so run.json records it (only where it is not fp32,
// so older runs keep their fingerprints) and a resume must match it.
#pragma once
#include <functional>
#include <string>

#include "common/flag_names.h"
#include "training/flag_ranges.h"
#include "training/flag_table.h"

namespace bb::training {

inline constexpr const char* kPrecisionHelp =
    "GEMM precision: fp32, or bf16 (the linear layers' products with bf16 inputs and fp32 "
    "accumulation; everything else fp32; a CPU with AMX-BF16 or AVX512-BF16)";

// The row, setting the string member `field` points to; `key`: its run.json key ("" the flag).
template <typename Args, typename Recipe = NoRecipe>
FlagRow<Args, Recipe> precision_row(std::function<FlagField(Args&)> field, std::string key = {}) {
  return {.flag = flag_name::precision, .help = kPrecisionHelp, .role = FlagRole::math,
          .field = field, .check = [] { return one_of("precision", {"fp32", "bf16"}); },
          .recorded =
              [field](const Args& a) {
                return *std::get<std::string*>(field(const_cast<Args&>(a))) != "fp32";
              },
          .key = std::move(key)};
}

}  // namespace bb::training
