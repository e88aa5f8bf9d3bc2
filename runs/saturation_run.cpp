// A saturation analysis (`saturation`, the Python module): how each model's (or, analytic, each
// function's) attention collapses onto one key under magnification and under one key's boost.
#include "runs/saturation_run.h"

#include <fmt/format.h>

#include <algorithm>
#include <filesystem>

#include "backend/threads.h"
#include "common/error.h"
#include "common/files.h"
#include "common/flag_names.h"
#include "encoder/config.h"
#include "icl/saturation.h"
#include "icl/train_flags.h"  // read_run_settings
#include "icl/trainer.h"
#include "models/model_kind.h"
#include "probing/attention_maps.h"
#include "probing/suite.h"
#include "training/flag_ranges.h"
#include "common/split_list.h"

namespace bb {

namespace fs = std::filesystem;

std::string every_attention_function() {
  return fmt::format("{}", fmt::join(attention_function_name_list(), ","));
}

namespace {

// Up to n grammatical sentences, taken across the paradigms in turn (the first pair of each,
// then the second, ...), so that a small n still covers every paradigm.
std::vector<std::string> suite_sentences(const Suite& suite, int n) {
  std::vector<std::vector<const MinimalPair*>> by_paradigm(suite.paradigms.size());
  for (const MinimalPair& p : suite.pairs) {
    const auto at = std::find(suite.paradigms.begin(), suite.paradigms.end(), p.paradigm);
    by_paradigm[at - suite.paradigms.begin()].push_back(&p);
  }
  std::vector<std::string> out;
  for (size_t i = 0; int(out.size()) < n; ++i) {
    bool any = false;
    for (const auto& pairs : by_paradigm)
      if (i < pairs.size() && int(out.size()) < n) out.push_back(pairs[i]->good), any = true;
    if (!any) break;
  }
  return out;
}

// Every head's curves of one model over the sentences' own score rows, heads in parallel.
SaturationCurves model_curves(const std::string& dir, const std::vector<std::string>& sentences,
                              const SaturationSettings& st) {
  const ModelAttention att = read_attention(dir, sentences, /*keep_scores=*/true);
  const Config& c = att.config;
  SaturationCurves curves;
  curves.name = dir;
  curves.label = c.label();
  curves.kind = c.attention;
  curves.layers.assign(c.layers, std::vector<HeadSaturation>(c.heads, saturation_head(st)));
  const int tasks = c.layers * c.heads;
#pragma omp parallel for schedule(dynamic, 1)
  for (int t = 0; t < tasks; ++t) {
    const int l = t / c.heads, h = t % c.heads;
    HeadSaturation& acc = curves.layers[l][h];
    std::vector<double> S;
    for (size_t s = 0; s < att.sentences.size(); ++s) {
      const SentenceAttention& sent = att.sentences[s];
      const int L = sent.length();
      const float* block = sent.scores_of(l, h, c.heads);
      S.assign(block, block + int64_t(L) * L);
      add_score_block(acc, S, L, c.attention, att.v0[t], att.v1[t], st,
                      (uint64_t(s) * c.layers + l) * c.heads + h);
    }
    acc.finish();
  }
  return curves;
}

std::string write_reports(const SaturationArgs& a, const std::vector<SaturationCurves>& curves,
                          const nlohmann::json& source, const std::string& described) {
  const fs::path out = a.out;
  std::error_code ec;
  fs::create_directories(out, ec);
  BB_CHECK(!ec, "{}: cannot create directory ({})", out.string(), ec.message());
  write_file_atomic(out / "saturation.json",
                    saturation_json(curves, a.settings, source).dump(2) + "\n");
  write_file_atomic(out / "saturation.csv", saturation_csv(curves, a.settings));
  write_file_atomic(out / "saturation.md", saturation_markdown(curves, a.settings, described));
  write_file_atomic(out / "magnification.svg", magnification_svg(curves, a.settings));
  write_file_atomic(out / "disproportion.svg", disproportion_svg(curves, a.settings));
  return fmt::format("{}\nwrote {}/saturation.{{json,csv,md}}, magnification.svg, "
                     "disproportion.svg\n", saturation_markdown(curves, a.settings, described),
                     out.string());
}

// ICL models (icl/saturation.h): the mean max attention weight per layer as sigma of x grows, on
// sequences of the first model's task.
std::string run_icl(const SaturationArgs& a) {
  const Device device = usable_device(a.device);
  icl::SaturationSettings s;
  s.task = icl::read_run_settings(icl::run_of_model(a.models.front())).task;
  if (s.task == icl::Task::mixed) s.task = icl::Task::every;
  s.sigmas = number_list(a.sigmas, "--sigmas");
  s.points = a.points, s.sequences = a.sentences, s.seed = a.settings.seed;
  std::vector<icl::ModelSaturation> models;
  for (const std::string& dir : a.models) {
    const icl::Config cfg = icl::read_model_config(dir);
    BB_CHECK(2 * s.points <= cfg.positions, "--points {} needs {} positions; {} has {}", s.points,
             2 * s.points, dir, cfg.positions);
    icl::Model<float> model(cfg, device);
    icl::load_model(dir, model);
    // named by its run (a step directory's too: saturation.json's steps say which)
    models.push_back(icl::model_saturation(model, icl::run_of_model(dir).filename().string(), s));
    models.back().steps = icl::model_steps(dir);
  }
  icl::write_saturation(a.out, s, models);
  std::string text;
  for (const icl::ModelSaturation& m : models) {
    text += fmt::format("{} ({}): mean max weight by sigma", m.name, m.label);
    for (size_t si = 0; si < s.sigmas.size(); ++si) {
      double mean = 0;
      for (double v : m.mean_max[si]) mean += v / double(m.mean_max[si].size());
      text += fmt::format(" {:g}: {:.2f}", s.sigmas[si], mean);
    }
    text += " (mean over layers)\n";
  }
  return text + fmt::format("wrote {}/saturation.json, saturation.csv, max_weight.svg\n", a.out);
}

}  // namespace

std::string run_saturation(SaturationArgs a) {
  set_threads(a.threads);
  for (auto* v : {&a.settings.scales, &a.settings.boosts}) {  // ascending, each once
    std::sort(v->begin(), v->end());
    v->erase(std::unique(v->begin(), v->end()), v->end());
  }
  std::vector<SaturationCurves> curves;
  if (a.analytic) {
    for (const auto& name : split_list(a.attention, flag_name::attention))
      curves.push_back(
          analytic_saturation(parse_attention_function(name), a.length, a.sentences, a.settings));
    const std::string described = fmt::format(
        "Analytic: {} blocks of {} random rows of {} keys per function, N(0, 1) scores "
        "(cosFormer: relu(q) relu(k)^T of N(0, 1) features of 16 dimensions), default values "
        "(SSA b = 1, n = 1.5; softmax-t τ = 1).",
        a.sentences, a.length, a.length);
    return write_reports(a, curves,
                         {{"analytic", true}, {"length", a.length}, {"blocks", a.sentences}},
                         described);
  }
  BB_CHECK(!a.models.empty(), "saturation: give --model DIR (one or more) or --analytic");
  const ModelKindSpec& kind = require_model_kind(a.models.front(), ModelCommand::saturation);
  for (const std::string& m : a.models) {
    const ModelKindSpec& k = require_model_kind(m, ModelCommand::saturation);
    if (k.kind != kind.kind)  // a usage error, as a model of a kind saturation does not take
      throw WrongModelKind(fmt::format("saturation: {} is {} and {} {}; give models of one kind",
                                       m, model_of_kind(k), a.models.front(), model_of_kind(kind)));
  }
  // What the models read: their task's sequences along sigma (ICL), or a suite's sentences.
  if (kind.input == ModelInput::task_sequences) return run_icl(a);
  BB_CHECK(!a.suite.empty(), "saturation: give --suite DIR|FILE for the models' sentences");
  const Suite suite = load_suite(a.suite);
  for (const std::string& note : suite.notes) fmt::print(stderr, "babyberta: note: {}\n", note);
  const std::vector<std::string> sentences = suite_sentences(suite, a.sentences);
  BB_CHECK(!sentences.empty(), "{}: no sentences in the suite", a.suite);
  for (const std::string& m : a.models) curves.push_back(model_curves(m, sentences, a.settings));
  distinguish_labels(curves);
  const std::string described = fmt::format(
      "{} grammatical sentences of {} (taken across its {} paradigms in turn); each layer's own "
      "score rows from one unmodified forward pass.",
      sentences.size(), a.suite, suite.paradigms.size());
  return write_reports(a, curves,
                       {{"suite", a.suite}, {"sentences", sentences.size()}, {"models", a.models}},
                       described);
}


}  // namespace bb
