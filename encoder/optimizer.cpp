#include "encoder/optimizer.h"

#include <algorithm>
#include <cmath>

#include "backend/ops.h"

namespace bb {

int64_t effective_warmup(const OptimConfig& o) {
  return o.warmup_steps >= 0 ? o.warmup_steps : std::min<int64_t>(24000, o.total_steps / 10);
}

double lr_at(const OptimConfig& o, int64_t step) {
  const int64_t warmup = effective_warmup(o);
  if (step < warmup) return o.lr * double(step) / double(std::max<int64_t>(1, warmup));
  const double rest = double(o.total_steps - step) / double(std::max<int64_t>(1, o.total_steps - warmup));
  return o.lr * std::max(0.0, rest);
}

AdamW::AdamW(const ParamLayout& layout, const Config& config, const OptimConfig& opt,
             Device device)
    : m(device), v(device), opt_(opt) {
  m.assign(layout.total, 0.f);
  v.assign(layout.total, 0.f);
  for (const ParamTensor& t : layout.tensors) {
    const bool decay = t.kind == ParamKind::matrix;
    double mult = 1.0;
    if (t.kind == ParamKind::ssa_b) mult = config.ssa.freeze_b ? 0.0 : opt.ssa_lr_mult;
    if (t.kind == ParamKind::ssa_n) mult = config.ssa.freeze_n ? 0.0 : opt.ssa_lr_mult;
    if (!groups_.empty() && groups_.back().decay == decay && groups_.back().lr_mult == mult &&
        groups_.back().offset + groups_.back().size == t.offset) {
      groups_.back().size += t.size;
    } else {
      groups_.push_back({t.offset, t.size, decay, mult});
    }
  }
}

double AdamW::update(float* params, const float* grads) {
  const DeviceScope on(m.device());
  const double norm = std::sqrt(ops::sum_squares(grads, int64_t(m.size())));
  float scale = 1.f;
  if (opt_.clip_norm > 0 && norm > opt_.clip_norm) scale = float(opt_.clip_norm / (norm + 1e-6));
  const double lr = lr_at(opt_, step);
  ++step;
  for (const Group& g : groups_) {
    if (g.lr_mult == 0.0) continue;
    const ops::AdamWStep s{float(lr * g.lr_mult), float(opt_.beta1), float(opt_.beta2),
                           float(opt_.eps),       g.decay ? float(opt_.weight_decay) : 0.f,
                           scale,                 step,
                           opt_.bias_correction};
    ops::adamw_update(params + g.offset, grads + g.offset, m.data() + g.offset,
                      v.data() + g.offset, g.size, s);
  }
  return norm;
}

}  // namespace bb
