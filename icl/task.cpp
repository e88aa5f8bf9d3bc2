#include "icl/task.h"

#include "common/enum_names.h"
#include "common/error.h"
#include "common/philox.h"

namespace bb::icl {

namespace {
constexpr EnumName<Task> kTasks[] = {
    {Task::every, "every"},
    {Task::some, "some"},
    {Task::mixed, "mixed"},
    {Task::linear, "linear"},
    {Task::linear_regression, "linear-regression"}};

// Counter slots inside a sequence: x values from 0, the function's parameters from kFnSlot.
constexpr uint64_t kFnSlot = uint64_t(1) << 31;
constexpr uint64_t kMixedLo = ~uint64_t(0);  // the mixed task's per-batch choice
}  // namespace

std::string task_name(Task t) { return enum_name(kTasks, t); }
std::vector<std::string> task_names() { return enum_names(kTasks); }
Task parse_task(const std::string& s) { return parse_enum(kTasks, s, "task"); }

bool is_quantification(Task t) {
  return t == Task::every || t == Task::some || t == Task::mixed;
}

ops::PointLoss task_loss(Task t) {
  return is_quantification(t) ? ops::PointLoss::bce_logits : ops::PointLoss::squared_error;
}

std::vector<float> Sequences::targets() const {
  if (!is_quantification(drawn)) return y;
  std::vector<float> t(y.size());
  for (size_t i = 0; i < y.size(); ++i) t[i] = (y[i] + 1.f) / 2.f;
  return t;
}

void label_quantification(Task task, const float* x, int k, float* y) {
  bool all = true, any = false;
  for (int i = 0; i < k; ++i) {
    all = all && x[i] > 0, any = any || x[i] > 0;
    y[i] = (task == Task::every ? all : any) ? 1.f : -1.f;
  }
}

Sequences draw_sequences(Task task, int B, int k, int dims, Spread spread, uint64_t key,
                         uint64_t batch_id) {
  BB_CHECK(dims == 1 || task == Task::linear_regression,
           "task {} has 1-d inputs (--dims is for linear-regression), got {} dims",
           task_name(task), dims);
  const Philox rng{key};
  Sequences s;
  s.B = B, s.k = k, s.dims = dims;
  s.drawn = task;
  if (task == Task::mixed)
    s.drawn = rng.uniform(batch_id, kMixedLo) < 0.5f ? Task::every : Task::some;
  s.x.resize(size_t(B) * k * dims);
  s.y.resize(size_t(B) * k);
  s.z.assign(size_t(B) * 2 * k * dims, 0.f);
  for (int b = 0; b < B; ++b) {
    const uint64_t base = uint64_t(b) << 32;
    float* x = s.x.data() + size_t(b) * k * dims;
    float* y = s.y.data() + size_t(b) * k;
    for (int e = 0; e < k * dims; ++e)
      x[e] = float(spread.sigma_x * rng.normal(batch_id, base + uint64_t(e)));
    auto fn = [&](int j) { return spread.sigma_fn * rng.normal(batch_id, base + kFnSlot + j); };
    switch (s.drawn) {
      case Task::every:
      case Task::some: label_quantification(s.drawn, x, k, y); break;
      case Task::linear: {
        const double a = fn(0), c = fn(1);
        for (int i = 0; i < k; ++i) y[i] = float(a * x[i] + c);
        break;
      }
      case Task::linear_regression: {
        std::vector<double> w(static_cast<size_t>(dims));
        for (int c = 0; c < dims; ++c) w[size_t(c)] = fn(c);
        for (int i = 0; i < k; ++i) {
          double dot = 0;
          for (int c = 0; c < dims; ++c) dot += w[size_t(c)] * x[i * dims + c];
          y[i] = float(dot);
        }
        break;
      }
      case Task::mixed: break;  // resolved to every or some above
    }
    float* z = s.z.data() + size_t(b) * 2 * k * dims;
    for (int i = 0; i < k; ++i) {
      for (int c = 0; c < dims; ++c) z[(2 * i) * dims + c] = x[i * dims + c];
      z[(2 * i + 1) * dims] = y[i];
    }
  }
  return s;
}

}  // namespace bb::icl
