// The per-update scalars of AdamW (backend/ops.h, adamw_update), computed the same way by every
// backend: on the host for the CPU, once per block inside the CUDA kernel (which reads the
// schedule from device memory, so a captured step needs no host values).
#pragma once
#include <cmath>

#include "backend/ops.h"
#include "common/philox.h"  // BB_HOST_DEVICE

namespace bb {

struct AdamWCoefficients {
  float grad_scale;    // clipping factor
  float step_size;     // lr / bc1
  float inv_sqrt_bc2;  // 1 / sqrt(bc2)
  float decay;         // 1 - lr * weight_decay
};

BB_HOST_DEVICE inline AdamWCoefficients adamw_coefficients(const ops::AdamWStep& s,
                                                           const ops::AdamWSchedule& sched) {
  const double norm = sqrt(sched.sumsq);
  const float grad_scale =
      s.clip_norm > 0 && norm > s.clip_norm ? float(s.clip_norm / (norm + 1e-6)) : 1.f;
  const float lr = float(sched.lr * s.lr_mult);
  const double bc1 = s.bias_correction ? 1.0 - pow(double(s.beta1), sched.step) : 1.0;
  const double bc2 = s.bias_correction ? 1.0 - pow(double(s.beta2), sched.step) : 1.0;
  return {grad_scale, float(lr / bc1), float(1.0 / sqrt(bc2)), 1.0f - lr * s.weight_decay};
}

}  // namespace bb
