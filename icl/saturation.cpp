#include "icl/saturation.h"

#include <fmt/format.h>

#include <algorithm>

#include "common/files.h"
#include "common/json_read.h"
#include "common/philox.h"
#include "icl/eval.h"
#include "common/svg.h"

namespace bb::icl {

using nlohmann::json;

ModelSaturation model_saturation(Model<float>& model, const std::string& name,
                                 const SaturationSettings& s) {
  const Config& c = model.config();
  ModelSaturation out{name, c.label(), {}, -1};
  const int L = 2 * s.points;
  for (size_t si = 0; si < s.sigmas.size(); ++si) {
    const Sequences seq = draw_sequences(s.task, s.sequences, s.points, c.dims, {s.sigmas[si], 1.0},
                                         stream_key(s.seed, 0x5A7ull), uint64_t(si));
    std::vector<double> sum(size_t(c.layers), 0.0);
    int64_t rows = 0;
    model.observe_attention([&](int layer, const std::vector<float>& P) {
      const int64_t blocks = int64_t(P.size()) / (int64_t(L) * L);
      for (int64_t blk = 0; blk < blocks; ++blk)
        for (int i = 1; i < L; ++i) {  // rows with at least two visible keys
          const float* row = P.data() + (blk * L + i) * L;
          sum[size_t(layer)] += *std::max_element(row, row + i + 1);
          if (layer == 0) ++rows;
        }
    });
    predict(model, seq, s.batch);  // the observer collects each layer's weights
    model.observe_attention(nullptr);
    for (double& v : sum) v /= double(std::max<int64_t>(rows, 1));
    out.mean_max.push_back(std::move(sum));
  }
  return out;
}

void write_saturation(const std::filesystem::path& dir, const SaturationSettings& s,
                      const std::vector<ModelSaturation>& models) {
  std::filesystem::create_directories(dir);
  json jm = json::array();
  std::string csv = "model,label,sigma,layer,mean_max_weight\n";
  for (const ModelSaturation& m : models) {
    jm.push_back({{"name", m.name}, {"label", m.label},
                  {"steps", m.steps >= 0 ? nlohmann::json(m.steps) : nlohmann::json(nullptr)},
                  {"mean_max_weight", m.mean_max}});
    for (size_t si = 0; si < s.sigmas.size(); ++si)
      for (size_t l = 0; l < m.mean_max[si].size(); ++l)
        csv += fmt::format("\"{}\",\"{}\",{},{},{}\n", m.name, m.label, s.sigmas[si], l,
                           m.mean_max[si][l]);
  }
  const json j{{"task", task_name(s.task)}, {"points", s.points}, {"sequences", s.sequences},
               {"seed", s.seed}, {"sigmas", s.sigmas},
               {"statistic", "mean over sequences, heads and query rows (>= 2 visible keys) of "
                             "the row's largest attention weight, per layer"},
               {"models", jm}};
  write_file_atomic(dir / "saturation.json", j.dump(2) + "\n");
  write_file_atomic(dir / "saturation.csv", csv);
  PanelChart chart;
  chart.title = fmt::format("Mean max attention weight as sigma of x grows ({} points, {})",
                            s.points, task_name(s.task));
  chart.x_label = "sigma of x";
  chart.y_label = "mean max weight";
  chart.x = s.sigmas;
  size_t layers = 0;
  for (const ModelSaturation& m : models) layers = std::max(layers, m.mean_max.front().size());
  for (size_t l = 0; l < layers; ++l) chart.panels.push_back(fmt::format("layer {}", l));
  for (const ModelSaturation& m : models) chart.groups.push_back(m.name + " (" + m.label + ")");
  chart.y.assign(layers, std::vector<std::vector<double>>(models.size()));
  for (size_t l = 0; l < layers; ++l)
    for (size_t g = 0; g < models.size(); ++g)
      for (size_t si = 0; si < s.sigmas.size(); ++si)
        chart.y[l][g].push_back(l < models[g].mean_max[si].size() ? models[g].mean_max[si][l] : NAN);
  write_file_atomic(dir / "max_weight.svg", panel_chart_svg(chart));
}

}  // namespace bb::icl
