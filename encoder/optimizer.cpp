#include "encoder/optimizer.h"

#include <algorithm>
#include <cmath>

#include "backend/ops.h"
#include "common/error.h"

namespace bb {

int64_t effective_warmup(const OptimConfig& o) {
  return o.warmup_steps >= 0 ? o.warmup_steps : std::min<int64_t>(24000, o.total_steps / 10);
}

Schedule parse_schedule(std::string_view name) {
  for (size_t i = 0; i < kScheduleNames.size(); ++i)
    if (name == kScheduleNames[i]) return Schedule(i);
  fail("unknown schedule '{}' (expected linear, constant or wsd)", name);
}

std::string_view schedule_name(Schedule s) { return kScheduleNames[size_t(s)]; }

int64_t decay_start(const OptimConfig& o) {
  const int64_t warmup = effective_warmup(o);
  switch (o.schedule) {
    case Schedule::linear: return warmup;
    case Schedule::constant: return o.total_steps;
    case Schedule::wsd: return std::max(warmup, o.total_steps - o.decay_steps);
  }
  return warmup;  // not reached: the switch is exhaustive
}

double lr_at(const OptimConfig& o, int64_t step) {
  const int64_t warmup = effective_warmup(o);
  if (step < warmup) return o.lr * double(step) / double(std::max<int64_t>(1, warmup));
  const int64_t start = decay_start(o);
  if (step < start) return o.lr;
  const double rest = double(o.total_steps - step) / double(std::max<int64_t>(1, o.total_steps - start));
  return o.lr * std::max(0.0, rest);
}

AdamW::AdamW(const ParamLayout& layout, const Config& config, const OptimConfig& opt,
             Device device)
    : m(device), v(device), opt_(opt), schedule_(device, {sizeof(ops::AdamWSchedule)}) {
  m.assign(layout.total, 0.f);
  v.assign(layout.total, 0.f);
  for (const ParamTensor& t : layout.tensors) {
    const bool decay = t.kind == ParamKind::matrix;
    double mult = 1.0;
    if (is_head_value(t.kind)) {  // the table row says which values --ssa-lr-mult scales
      const int slot = head_value_slot(t.kind);
      const bool scaled = attention_function_spec(config.attention).values[size_t(slot)].ssa_lr_mult;
      mult = config.head_value_frozen(slot) ? 0.0 : scaled ? opt.ssa_lr_mult : 1.0;
    }
    if (!groups_.empty() && groups_.back().decay == decay && groups_.back().lr_mult == mult &&
        groups_.back().offset + groups_.back().size == t.offset) {
      groups_.back().size += t.size;
    } else {
      groups_.push_back({t.offset, t.size, decay, mult});
    }
  }
}

double AdamW::update(float* params, const float* grads) {
  stage();
  apply(params, grads);
  return grad_norm();
}

double AdamW::stage() {
  const double lr = lr_at(opt_, step);
  schedule_.begin_write();
  *schedule_.host<ops::AdamWSchedule>(0) = {lr, double(step + 1), 0.0};
  schedule_.upload();
  ++step;
  return lr;
}

void AdamW::apply(float* params, const float* grads, uint16_t* low) {
  const DeviceScope on(m.device());
  // sumsq lives in the staged schedule on the device; the AdamW kernels read it from there.
  ops::AdamWSchedule* sched = schedule_.device<ops::AdamWSchedule>(0);
  ops::sum_squares(&sched->sumsq, grads, int64_t(m.size()));
  for (const Group& g : groups_) {
    if (g.lr_mult == 0.0) continue;
    const ops::AdamWStep s{float(opt_.beta1),  float(opt_.beta2),
                           float(opt_.eps),    g.decay ? float(opt_.weight_decay) : 0.f,
                           g.lr_mult,          opt_.clip_norm,
                           opt_.bias_correction};
    if (low)
      ops::adamw_update_with_bf16_copy(params + g.offset, grads + g.offset, m.data() + g.offset,
                                       v.data() + g.offset, g.size, s, sched, low + g.offset);
    else
      ops::adamw_update(params + g.offset, grads + g.offset, m.data() + g.offset,
                        v.data() + g.offset, g.size, s, sched);
  }
}

double AdamW::grad_norm() const {
  const auto* sched = schedule_.device<ops::AdamWSchedule>(0);
  double sumsq = 0;
  if (m.device() == Device::cpu) sumsq = sched->sumsq;
  else cuda_download(&sumsq, &sched->sumsq, sizeof(double));
  return std::sqrt(sumsq);
}

}  // namespace bb
