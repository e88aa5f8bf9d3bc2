#include "icl/attention_maps.h"

#include <fmt/format.h>

#include <cmath>

#include "common/error.h"
#include "common/philox.h"
#include "icl/model.h"
#include "icl/train_flags.h"  // read_run_settings
#include "icl/trainer.h"

namespace bb::icl {

ModelAttention read_icl_attention(const std::filesystem::path& dir, double sigma, int points,
                                  int sequences, uint64_t seed) {
  const Config cfg = read_model_config(dir);
  BB_CHECK(2 * points <= cfg.positions, "--points {} needs {} positions; {} has {}", points,
           2 * points, dir.string(), cfg.positions);
  Task task = read_run_settings(dir).task;
  if (task == Task::mixed) task = Task::every;
  Model<float> model(cfg);
  load_model(dir, model);
  const Sequences s = draw_sequences(task, sequences, points, cfg.dims, {sigma, 1.0},
                                     stream_key(seed, 0xA77ull), 0);
  const int L = 2 * points, H = cfg.heads;
  ModelAttention out;
  out.model = dir;
  // The encoder's Config carries what the writers print: the function, its values, the sizes.
  out.config.layers = cfg.layers, out.config.heads = cfg.heads, out.config.hidden = cfg.hidden;
  out.config.attention = cfg.attention, out.config.head_values = cfg.head_values;
  out.v0.assign(size_t(cfg.layers) * H, 0.0);
  out.v1.assign(size_t(cfg.layers) * H, 0.0);
  const Views<float> pv(model.layout(), cfg, model.params.data());
  for (int l = 0; l < cfg.layers; ++l)
    for (int h = 0; h < H; ++h) {
      const auto& w = pv.layers[size_t(l)];
      if (w.raw0) out.v0[size_t(l) * H + h] = std::exp(double(w.raw0[h]));
      if (w.raw1) out.v1[size_t(l) * H + h] = 1.0 + std::exp(double(w.raw1[h]));
    }
  out.sentences.resize(size_t(sequences));
  for (int b = 0; b < sequences; ++b) {
    SentenceAttention& sa = out.sentences[size_t(b)];
    for (int t = 0; t < L; ++t) {
      sa.ids.push_back(t);
      sa.pieces.push_back(fmt::format("{}{}", t % 2 ? "y" : "x", t / 2 + 1));
    }
    sa.weights.assign(size_t(cfg.layers) * H * L * L, 0.f);
  }
  model.observe_attention([&](int layer, const std::vector<float>& P) {
    for (int b = 0; b < sequences; ++b)  // P: (B, H, L, L) -> sentence b's [layer][head] blocks
      std::copy(P.begin() + int64_t(b) * H * L * L, P.begin() + int64_t(b + 1) * H * L * L,
                out.sentences[size_t(b)].weights.begin() + int64_t(layer) * H * L * L);
  });
  model.forward(s.z, {}, sequences, L, ops::PointLoss::squared_error, false);
  return out;
}

}  // namespace bb::icl
