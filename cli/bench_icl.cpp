#include "cli/bench_icl.h"

#include <fmt/core.h>

#include "backend/kernel_choice.h"
#include "backend/threads.h"
#include "cli/bench_windows.h"
#include "icl/trainer.h"

namespace bb::cli {

namespace {

// Training FLOPs of one step: 3x the forward's matrix products (forward + two backward GEMMs);
// attention counts the full L x L products (the kernels compute them; causality zeroes half).
double icl_train_flops(const icl::Config& c, int B, int L) {
  const double C = c.hidden, F = c.ffn(), N = double(B) * L;
  const double projections = 2.0 * N * (4 * C * C + (c.has_mlp() ? 2 * C * F : 0.0));
  const double attention = double(B) * 4.0 * L * L * C;
  return 3.0 * (c.layers * (projections + attention) + 2.0 * N * C * (c.dims + 1));
}

}  // namespace

void bench_train_icl(const IclBenchSettings& s) {
  set_threads(s.threads);
  icl::Config c = icl::preset(s.preset);
  c.attention = parse_attention_function(s.attention);
  c.arch = icl::parse_arch(s.arch);
  icl::TrainSettings t;
  t.batch = s.batch;
  t.steps = int64_t(1) << 40;
  t.curriculum.start = t.curriculum.end = s.points;
  icl::Trainer trainer(c, t, {}, s.device);
  const int L = 2 * s.points;
  const std::vector<Window> windows = timed_windows(
      s.repeat, s.seconds, [&] { for (int i = 0; i < 3; ++i) trainer.train_step(); },
      [&](std::map<std::string, double>& n) {
        trainer.train_step();
        n["tokens"] += double(s.batch) * L;
        n["sequences"] += s.batch;
        n["flops"] += icl_train_flops(c, s.batch, L);
        n["steps"] += 1;
      });
  std::vector<std::map<std::string, double>> rates;
  for (const Window& w : windows)
    rates.push_back({{"tokens_per_s", w.counts.at("tokens") / w.seconds},
                     {"sequences_per_s", w.counts.at("sequences") / w.seconds},
                     {"steps_per_s", w.counts.at("steps") / w.seconds},
                     {"gflops", w.counts.at("flops") / w.seconds * 1e-9}});
  nlohmann::json out{{"bench", "train"}, {"kind", "icl"}, {"preset", s.preset},
                     {"attention", s.attention}, {"arch", s.arch},
                     {"device", s.device_label}, {"threads", s.threads}, {"batch", s.batch},
                     {"tokens_per_sequence", L}, {"parameters", trainer.model().layout().total},
                     {"blas", blas_provenance()}, {"repeat", s.repeat},
                     {"seconds", total(windows, "seconds")}};
  out.update(median_rates(rates));
  fmt::print("{}\n", out.dump());
}

}  // namespace bb::cli
