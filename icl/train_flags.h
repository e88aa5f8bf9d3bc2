// icl train's flags as one table (training/flag_table.h): a row per flag with its member of
// TrainArgs, help, check, role and run.json key. icl train's options, the "train" settings of an
// ICL run.json and their reading back, the flags a resume may change, the command line `icl
// experiment` gives each run (to_args) and the Python keywords (babyberta.icl_train) all come
// from it: an ICL flag is spelled here and nowhere else.
#pragma once
#include <CLI/CLI.hpp>
#include <nlohmann/json.hpp>

#include <set>
#include <string>
#include <vector>

#include "backend/attention_function.h"
#include "icl/config.h"
#include "icl/trainer.h"
#include "training/flag_table.h"

namespace bb::icl {

struct TrainArgs {
  std::string task = "every", preset = "icl-tiny", arch = "full",
              attention = std::string(attention_function_name(AttentionFunction::softmax));
  std::string out, device = "cpu";
  TrainSettings s;  // its task is `task`'s (parse_train_args, settings_from_json)
  int dims = 1, threads = 1;
  HeadValueSettings head_values = default_head_value_settings();
  int64_t extend_to = 0;  // --extend-to N: a finished run continued to N updates
  bool quiet = false;
};

using TrainFlag = FlagRow<TrainArgs>;

// Every icl train flag, the attention functions' trainable values' flags included (their table).
const std::vector<TrainFlag>& train_flags();
// Adds the table's options to `cmd` (all but those in `skip`: a grid sets them per run).
void add_train_options(CLI::App* cmd, TrainArgs& a, const std::set<std::string>& skip = {});
// The arguments of `icl train ARGS...` (without "icl train") as the command parses them.
TrainArgs parse_train_args(const std::vector<std::string>& args);
// `a` as an `icl train` command line ({"icl", "train", ...}) that parses back to `a`.
std::vector<std::string> to_args(const TrainArgs& a);
// The model config the flags describe (preset, architecture, function and its values, dims).
Config model_config(const TrainArgs& a);

// The settings that decide a run's updates (not --steps, which a resume may extend): run.json's
// "train" object, keyed by the rows' run.json keys. A flag added after runs existed is recorded
// only where it differs from its default, so that older runs keep their run.json.
nlohmann::json settings_json(const TrainSettings& s);
// Reads them back (where: the file, for errors); validated.
TrainSettings settings_from_json(const nlohmann::json& j, const std::string& where);
// The settings a run directory was trained with (DIR/run.json).
TrainSettings read_run_settings(const std::filesystem::path& dir);
// What the flags' ranges cannot check alone: the curriculum against the model's positions, and
// --dims against the task (one-line errors naming the flags).
void check_settings_for_model(const TrainSettings& s, const Config& c);
// "--threads, --device, ...": the flags a resume may change.
std::string resumable_flags();

}  // namespace bb::icl
