// The saturation report: JSON, CSV, Markdown and two SVG charts (probing/saturation.h).
#include <fmt/format.h>

#include <string>

#include "encoder/config.h"
#include "probing/saturation.h"
#include "common/svg.h"

namespace bb {

using json = nlohmann::json;

namespace {

json measures_json(const RowMeasures& m) {
  return {{"max_weight", m.max_weight},
          {"entropy", m.entropy},
          {"support", m.support},
          {"row_sum", m.row_sum}};
}

json head_json(const HeadSaturation& h, const SaturationSettings& st) {
  json mag = json::array(), dis = json::array();
  for (size_t k = 0; k < st.scales.size(); ++k) {
    json m = measures_json(h.magnified[k]);
    m["lambda"] = st.scales[k];
    mag.push_back(std::move(m));
  }
  for (size_t k = 0; k < st.boosts.size(); ++k)
    dis.push_back({{"delta", st.boosts[k]},
                   {"boosted_weight", h.boosted[k]},
                   {"remaining_mass", h.remaining[k]}});
  return {{"rows", h.rows},
          {"own", measures_json(h.own)},
          {"magnification", std::move(mag)},
          {"disproportion", std::move(dis)}};
}

// The first lambda at which the mean max weight reaches 0.9, or "never".
std::string saturating_scale(const HeadSaturation& h, const SaturationSettings& st) {
  for (size_t k = 0; k < st.scales.size(); ++k)
    if (h.magnified[k].max_weight >= 0.9) return fmt::format("{:g}", st.scales[k]);
  return "never";
}

std::string note_for(AttentionFunction kind) {
  return std::string(attention_function_spec(kind).saturation_note);  // the table row's
}

}  // namespace

json saturation_json(const std::vector<SaturationCurves>& models, const SaturationSettings& st,
                     const json& source) {
  json out = {{"source", source},
              {"scales", st.scales},
              {"boosts", st.boosts},
              {"seed", st.seed},
              {"models", json::array()}};
  for (const SaturationCurves& m : models) {
    json layers = json::array();
    for (size_t l = 0; l < m.layers.size(); ++l) {
      json heads = json::array();
      for (const HeadSaturation& h : m.layers[l]) heads.push_back(head_json(h, st));
      layers.push_back({{"heads", std::move(heads)}, {"mean", head_json(m.layer_mean(int(l)), st)}});
    }
    out["models"].push_back({{"name", m.name},
                             {"label", m.label},
                             {"attention_scoring", attention_function_name(m.kind)},
                             {"note", note_for(m.kind)},
                             {"layers", std::move(layers)}});
  }
  return out;
}

std::string saturation_csv(const std::vector<SaturationCurves>& models,
                           const SaturationSettings& st) {
  std::string csv =
      "model,label,layer,head,curve,x,max_weight,entropy,support,row_sum,boosted_weight,"
      "remaining_mass\n";
  auto line = [&](const SaturationCurves& m, size_t l, size_t h, const char* curve, double x,
                  const RowMeasures* r, double boosted, double remaining) {
    const std::string q = "\"" + m.name + "\",\"" + m.label + "\"";
    if (r)
      csv += fmt::format("{},{},{},{},{:g},{:.6g},{:.6g},{:.6g},{:.6g},,\n", q, l, h, curve, x,
                         r->max_weight, r->entropy, r->support, r->row_sum);
    else
      csv += fmt::format("{},{},{},{},{:g},,,,,{:.6g},{:.6g}\n", q, l, h, curve, x, boosted,
                         remaining);
  };
  for (const SaturationCurves& m : models)
    for (size_t l = 0; l < m.layers.size(); ++l)
      for (size_t h = 0; h < m.layers[l].size(); ++h) {
        const HeadSaturation& hs = m.layers[l][h];
        line(m, l, h, "own", 1, &hs.own, 0, 0);
        for (size_t k = 0; k < st.scales.size(); ++k)
          line(m, l, h, "magnification", st.scales[k], &hs.magnified[k], 0, 0);
        for (size_t k = 0; k < st.boosts.size(); ++k)
          line(m, l, h, "disproportion", st.boosts[k], nullptr, hs.boosted[k], hs.remaining[k]);
      }
  return csv;
}

std::string saturation_markdown(const std::vector<SaturationCurves>& models,
                                const SaturationSettings& st, const std::string& source) {
  std::string md = fmt::format(
      "# Attention saturation\n\n{}\n\nMeans over each layer's heads (and over every query row "
      "of at least two keys). Own: at the model's own scores. λ for max ≥ 0.9: the first "
      "magnification (scores × λ, from {}) at which the mean max weight reaches 0.9. Remaining "
      "mass: the weight left on the other keys when one key's score is raised by δ = {:g}.\n",
      source, fmt::join(st.scales, ", "), st.boosts.empty() ? 0.0 : st.boosts.back());
  for (const SaturationCurves& m : models) {
    md += fmt::format("\n## {} ({})\n\n", m.label, m.name);
    if (!note_for(m.kind).empty()) md += note_for(m.kind) + "\n\n";
    md += "| layer | own max weight | own entropy | own support | row sum | λ for max ≥ 0.9 | "
          "max weight at λ = " + fmt::format("{:g}", st.scales.empty() ? 1.0 : st.scales.back()) +
          " | remaining mass |\n|---|---|---|---|---|---|---|---|\n";
    for (size_t l = 0; l < m.layers.size(); ++l) {
      const HeadSaturation h = m.layer_mean(int(l));
      md += fmt::format("| {} | {:.3f} | {:.3f} | {:.2f} | {:.3f} | {} | {:.3f} | {:.3f} |\n", l,
                        h.own.max_weight, h.own.entropy, h.own.support, h.own.row_sum,
                        saturating_scale(h, st),
                        h.magnified.empty() ? 0.0 : h.magnified.back().max_weight,
                        h.remaining.empty() ? 0.0 : h.remaining.back());
    }
  }
  return md;
}

namespace {

// Panels per layer (models of different depths: as many panels as the deepest), one line per
// model; `value(head mean, k)` at point k.
template <typename F>
PanelChart per_layer_chart(const std::vector<SaturationCurves>& models, F value, size_t points) {
  PanelChart c;
  size_t layers = 0;
  for (const auto& m : models) layers = std::max(layers, m.layers.size());
  for (size_t l = 0; l < layers; ++l) {
    const bool analytic = !models.empty() && models[0].analytic;
    c.panels.push_back(analytic ? std::string("random rows") : fmt::format("layer {}", l));
    std::vector<std::vector<double>> lines;
    for (const auto& m : models) {
      std::vector<double> y;
      if (l < m.layers.size()) {
        const HeadSaturation h = m.layer_mean(int(l));
        for (size_t k = 0; k < points; ++k) y.push_back(value(h, k));
      }
      lines.push_back(std::move(y));
    }
    c.y.push_back(std::move(lines));
  }
  for (const auto& m : models) c.groups.push_back(m.label);
  return c;
}

}  // namespace

std::string magnification_svg(const std::vector<SaturationCurves>& models,
                              const SaturationSettings& st) {
  PanelChart c = per_layer_chart(
      models, [](const HeadSaturation& h, size_t k) { return h.magnified[k].max_weight; },
      st.scales.size());
  c.title = "Global magnification: mean max weight with every score × λ";
  c.x_label = "λ";
  c.y_label = "mean max weight";
  c.x = st.scales;
  return panel_chart_svg(c);
}

std::string disproportion_svg(const std::vector<SaturationCurves>& models,
                              const SaturationSettings& st) {
  PanelChart c = per_layer_chart(
      models, [](const HeadSaturation& h, size_t k) { return h.remaining[k]; }, st.boosts.size());
  c.title = "Internal disproportion: mass left on the other keys with one score + δ";
  c.x_label = "δ (axis: 1 + δ)";
  c.y_label = "mean remaining mass";
  c.x = st.boosts;
  c.log1p_x = true;
  return panel_chart_svg(c);
}

}  // namespace bb
