// The model-kind axis: one row per kind of model directory, keyed by config.json's model_type.
// Every command that reads a model asks this table which kind a directory holds and whether the
// command takes it; a kind is a row plus its own pieces (its describer, its attention reader).
//   roberta   BabyBERTa's RoBERTa masked LM (train; model_type "roberta", an export "babyberta")
//   icl-gpt2  the in-context-learning GPT-2 (icl train; model_type "babyberta_icl_gpt2")
//   gpt2      reserved for the causal LM on text (model_type "gpt2"): no command reads it yet
// A directory whose config.json has no model_type is a roberta model (the format before it).
#pragma once
#include <array>
#include <filesystem>
#include <string>
#include <string_view>
#include <utility>
#include <vector>

#include "common/error.h"
#include "models/kind_id.h"
#include "probing/attention_maps.h"

namespace bb {


// The commands (and Python calls) that read a model directory.
enum class ModelCommand { info, attention, saturation, probe, score, encode, export_hf, icl_eval,
                          python_load, perplexity };
inline constexpr size_t kModelCommandCount = 10;
std::string_view model_command_name(ModelCommand c);  // "probe", "icl eval", "babyberta.load"

// What a model reads when its attention or saturation is asked for.
enum class ModelInput { sentences, task_sequences, none };

// attention's inputs: sentences (text models) or draws of the model's task (ICL models).
struct AttentionRequest {
  std::vector<std::string> sentences;
  double sigma = 1;
  int points = 40, sequences = 1;
  uint64_t seed = 1;
};

using InfoLines = std::vector<std::string>;  // info's lines, as printed
// "key        text": the key in a column of 10 (info's layout).
std::string info_line(std::string_view key, std::string_view text);

struct ModelKindSpec {
  ModelKind kind;
  std::string_view name;                       // in messages and --kind
  std::array<std::string_view, 2> model_types;  // config.json's model_type ("" unused)
  std::string_view summary;                    // one phrase for messages and info
  std::array<ModelCommand, kModelCommandCount> commands;  // the commands that take it,
  size_t command_count;                                   // commands[0 .. command_count)
  ModelInput input;
  // info's lines after "model" and "kind" (nullptr: the kind has no reader yet).
  InfoLines (*describe)(const std::filesystem::path& dir);
  // attention's weights (nullptr: the kind takes no attention).
  ModelAttention (*attention)(const std::filesystem::path& dir, const AttentionRequest& r);
};

// Each kind's row: a specialisation of ModelKindRow (models/model_kind_rows.h) with a
// `static constexpr ModelKindSpec spec`. The table is built from ModelKindRow<K> for every K of the
// enum, so a kind added to ModelKind without its row does not compile (ModelKindRow<K> is an
// incomplete type; tests/runs/compile_fail checks g++'s error).
template <ModelKind K>
struct ModelKindRow;

template <size_t... I>
constexpr std::array<ModelKindSpec, sizeof...(I)> model_kind_rows(std::index_sequence<I...>) {
  return {ModelKindRow<ModelKind(I)>::spec...};
}

const ModelKindSpec& model_kind_spec(ModelKind k);
const std::array<ModelKindSpec, kModelKindCount>& model_kind_table();

// A wrong kind for a command: exit 2 in the CLI (a usage error), babyberta.Error in Python.
struct WrongModelKind : UsageError {
  using UsageError::UsageError;
};

// The kind config.json says `dir` holds (no model_type: roberta, the format before it). Without a
// readable config.json, roberta; a model_type no row has is a one-line error listing the known ones.
ModelKind model_kind_of(const std::filesystem::path& dir);

// Whether `command` takes models of kind `k`.
bool model_kind_takes(const ModelKindSpec& k, ModelCommand command);

// "a roberta model", "an icl-gpt2 model".
std::string model_of_kind(const ModelKindSpec& k);

// The kind of `dir`, when `command` takes it; else WrongModelKind naming the model, its kind and
// the kinds the command takes ("probe: runs/x is an icl-gpt2 model (...); probe takes roberta
// models"). Without a readable config.json, the first kind the command takes: its reader then
// names what is missing.
const ModelKindSpec& require_model_kind(const std::filesystem::path& dir, ModelCommand command);

}  // namespace bb
