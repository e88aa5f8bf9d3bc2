#include "runs/metrics_log.h"

#include <fmt/core.h>

#include <algorithm>
#include <filesystem>

#include "runs/probe_run.h"

namespace bb {

namespace fs = std::filesystem;

double dev_loss(Model<float>& model, BatchStream& dev, int64_t n) {
  Batch b;
  double total = 0;
  int64_t count = 0;
  for (int64_t k = 0; k < std::min(n, dev.batches_per_epoch()); ++k) {
    dev.batch(k, b);
    total += double(model.forward(b, {false, 0, 0})) * b.num_rows();
    count += b.num_rows();
  }
  return count ? total / count : 0.0;
}


void MetricsLog::probe(int64_t step, nlohmann::json& line) {
  trainer_.save_model_files();  // the probe reads this step's model from the run directory
  const fs::path out = fs::path(a_.out) / "probes" / fmt::format("step-{}.json", step);
  ProbeArgs pa{.model = a_.out, .suite = a_.probe_suite, .out = out.string(),
               .threads = a_.threads, .device = a_.device,
               .pairs_per_paradigm = a_.probe_pairs, .quiet = a_.quiet};
  if (!a_.quiet) progress_.note(fmt::format("step {}: probing {}", step, a_.probe_suite));
  const ProbeSummary ps = run_probe(pa);
  line["probe_overall"] = ps.overall;
  line["probe_phenomena"] = ps.phenomena;
  if (!a_.quiet) progress_.note(fmt::format("step {}: probe overall {:.1f}", step, ps.overall));
}

}  // namespace bb
