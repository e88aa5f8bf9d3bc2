// babyberta attention --model DIR: the attention weights a model puts on each sentence's tokens,
// per layer and head, as JSON (--out) and an SVG grid of heatmaps (--svg). Sentences from
// --sentence (repeatable) or stdin, one per line.
#include <fmt/core.h>

#include <iostream>

#include "backend/threads.h"
#include "cli/commands.h"
#include "cli/out_option.h"
#include "cli/compute_options.h"
#include "common/flag_names.h"
#include "training/flag_ranges.h"
#include "common/error.h"
#include "common/files.h"
#include "models/model_kind.h"
#include "probing/attention_maps.h"

namespace bb::cli {

namespace {

struct AttentionArgs {
  std::string model, out, svg;
  std::vector<std::string> sentences;
  int threads = 1, points = 10, sequences = 1;
  double sigma = 1;
  uint64_t seed = 1;
};

std::vector<std::string> stdin_lines() {
  std::vector<std::string> lines;
  for (std::string line; std::getline(std::cin, line);)
    if (line.find_first_not_of(" \t\r") != std::string::npos) lines.push_back(line);
  return lines;
}

}  // namespace

void add_attention(CLI::App& app) {
  auto* cmd = app.add_subcommand(
      "attention", "Attention weights per sentence, layer and head (JSON and SVG heatmaps)");
  auto a = std::make_shared<AttentionArgs>();
  cmd->add_option("--model", a->model, "Model directory")->required();
  cmd->add_option("--sentence", a->sentences, "A sentence (repeatable; default: stdin lines)");
  add_out_option(cmd, a->out,
                  "JSON file: per sentence its tokens and weights[layer][head][query][key] "
                  "(default: stdout unless --svg is given)");
  cmd->add_option("--svg", a->svg, "SVG file: a heatmap grid (layers x heads) per sentence");
  cmd->add_option("--sigma", a->sigma, "ICL models: x ~ N(0, sigma^2)")
      ->check(in_range(0, 1e6, true))
      ->capture_default_str();
  cmd->add_option("--points", a->points, "ICL models: points per sequence")
      ->check(count_in(1, 256))
      ->capture_default_str();
  cmd->add_option("--sequences", a->sequences, "ICL models: sequences drawn from the model's task")
      ->check(count_in(1, 1000))
      ->capture_default_str();
  cmd->add_option(flag_name::seed, a->seed, "ICL models: seed of the sequences")
      ->check(count_in(0, kMaxSeed))
      ->capture_default_str();
  add_threads_option(cmd, a->threads);
  cmd->callback([a] {
    set_threads(a->threads);
    const ModelKindSpec& k = require_model_kind(a->model, ModelCommand::attention);
    const bool reads_sequences = k.input == ModelInput::task_sequences;
    const std::vector<std::string> sentences =
        a->sentences.empty() && !reads_sequences ? stdin_lines() : a->sentences;
    BB_CHECK(!sentences.empty() || reads_sequences,
             "attention: no sentences (give --sentence or lines on stdin)");
    BB_CHECK(sentences.empty() || !reads_sequences,
             "attention: {} is an {} model: it reads sequences (--sigma, --points, --sequences), "
             "not sentences", a->model, k.name);
    const ModelAttention att = k.attention(
        a->model, {.sentences = sentences, .sigma = a->sigma, .points = a->points,
                   .sequences = a->sequences, .seed = a->seed});
    const std::string json = attention_json(att).dump() + "\n";
    if (!a->out.empty()) write_file_atomic(a->out, json);
    if (!a->svg.empty()) write_file_atomic(a->svg, attention_svg(att));
    if (a->out.empty() && a->svg.empty()) fmt::print("{}", json);
  });
}

}  // namespace bb::cli
