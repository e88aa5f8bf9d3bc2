// The precision of the GEMMs (--precision): fp32, or bf16 — the linear layers' products with bf16
// inputs (weights cast from the fp32 masters once per update with round-to-nearest-even,
// activations cast at the product) and fp32 accumulation and outputs, on oneDNN's matmul (AMX or
// AVX512-BF16). Everything else stays fp32: LayerNorm, the attention function's row math and its
// score and context products, GELU, the loss, clipping, AdamW, the master weights and moments, and
// the functions' trainable values, which are never cast.
//
// A model in bf16 keeps a bf16 copy of its parameter buffer (LowPrecisionWeights) and runs its
// passes inside a PrecisionScope: ops::linear_forward / linear_backward on float then take the bf16
// path for every weight inside that buffer. The scope is the calling thread's, as the device is
// (DeviceScope): a model's passes call their ops from one thread (the scorer's replicas each from
// their own), and the products parallelise inside oneDNN.
#pragma once
#include <bit>
#include <cstdint>
#include <string>
#include <type_traits>
#include <vector>

#include "backend/device.h"
#include "common/error.h"

namespace bb {

enum class Precision { fp32, bf16 };

Precision parse_precision(const std::string& name);  // "fp32" | "bf16", else a one-line error
std::string precision_name(Precision p);

// What --precision bf16 needs and finds: exit 2 (UsageError) naming what the machine lacks — a CPU
// without AMX-BF16 or AVX512-BF16 (no slow emulation), a build without oneDNN, or CUDA (bf16 is
// CPU-only) — before any work. fp32 needs nothing.
void require_precision(Precision p, Device device);
// The bf16 ISA oneDNN uses here ("avx512_core_amx", "avx512_core_bf16"), or "" when there is none.
std::string bf16_isa();
// The implementation oneDNN chose for a bf16 product of the training step's shape
// ("brg:avx512_core_amx", ...): what run.json and bench record. "" without bf16.
std::string bf16_kernel();

// Round-to-nearest-even float -> bf16 (NaN stays NaN), and back (exact). Branchless and inline,
// so that the array cast vectorises (it runs once per update over every weight).
inline uint16_t to_bf16(float x) {
  const uint32_t u = std::bit_cast<uint32_t>(x);
  const uint32_t rounded = (u + 0x7fffu + ((u >> 16) & 1u)) >> 16;  // ties to even
  const uint32_t quiet_nan = (u >> 16) | 0x40u;
  return uint16_t((u & 0x7fffffffu) > 0x7f800000u ? quiet_nan : rounded);
}
inline float from_bf16(uint16_t h) { return std::bit_cast<float>(uint32_t(h) << 16); }
void to_bf16(uint16_t* dst, const float* src, int64_t n);

// The bf16 copy of one fp32 parameter buffer.
class LowPrecisionWeights {
 public:
  // Casts params[0, n) (after each update, or once for a model that no longer changes).
  void refresh(const float* params, int64_t n);
  // The bf16 copy of the weight at `w`, or null when `w` is not inside the buffer.
  const uint16_t* of(const float* w) const;
  uint16_t* data() { return copy_.data(); }  // the whole copy, element i = params[i]

 private:
  const float* base_ = nullptr;
  int64_t n_ = 0;
  std::vector<uint16_t> copy_;
};

// While alive, float linear layers whose weights are in `w` run in bf16 (null: fp32).
class PrecisionScope {
 public:
  explicit PrecisionScope(const LowPrecisionWeights* w);
  ~PrecisionScope();
  PrecisionScope(const PrecisionScope&) = delete;
  PrecisionScope& operator=(const PrecisionScope&) = delete;

 private:
  const LowPrecisionWeights* saved_;
};
const LowPrecisionWeights* current_low_precision();

// A model's precision: its bf16 copy (refreshed before the first pass after a change of the
// weights) and the scope of each pass. Every model kind holds one.
class ModelPrecision {
 public:
  // Checks the machine (require_precision) and sets it; fp32 on any device.
  void set(Precision p, Device device) {
    require_precision(p, device);
    precision_ = p;
    stale_ = true;
  }
  Precision get() const { return precision_; }
  // After the weights change (an update, a load, an initialisation). `copy_written`: the update
  // also wrote the copy (copy_to_update), which then stays current.
  void params_changed(bool copy_written = false) { stale_ = stale_ || !copy_written; }
  // The copy an in-place update of the weights may write as it goes (the optimizer's fused
  // rounding), or null when there is none or it is not current (the next pass then casts it).
  uint16_t* copy_to_update() {
    return precision_ == Precision::bf16 && !stale_ ? copy_.data() : nullptr;
  }
  // The scope of one pass over the weights params[0, n): bf16 (float models only) runs the
  // linear layers on the copy, refreshed first where stale; fp32: no scope.
  template <typename T>
  PrecisionScope pass(const T* params, int64_t n) {
    if constexpr (std::is_same_v<T, float>) {
      if (precision_ == Precision::bf16) {
        if (stale_) copy_.refresh(params, n), stale_ = false;
        return PrecisionScope(&copy_);
      }
    }
    return PrecisionScope(nullptr);
  }

 private:
  Precision precision_ = Precision::fp32;
  bool stale_ = true;
  LowPrecisionWeights copy_;
};

}  // namespace bb
