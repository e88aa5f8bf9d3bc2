// The flag tables of train, icl train and icl experiment (training/flag_table.h), walked row by
// row: each row is a CLI option of its command; a math row is in run.json's settings under its key
// (a row recorded only off its default: there once changed) and reads back; a model row changes
// the model's config; exactly the resumable rows are the flags a resume may change; every flag
// has the one Python keyword babyberta derives from it (--points-every: points_every). And the
// flags that were spelled in several files (issue 48) are spelled in exactly one C++ source.
#include <doctest/doctest.h>
#include <fmt/format.h>

#include <algorithm>
#include <filesystem>
#include <fstream>
#include <regex>
#include <set>
#include <sstream>
#include <string>
#include <vector>

#include "common/flag_names.h"
#include "icl/train_flags.h"
#include "runs/icl_experiment.h"
#include "runs/train_flags.h"
#include "training/head_value_flags.h"

using namespace bb;
namespace fs = std::filesystem;

namespace {

// Sets the member to a value other than `defaults`'s (a switch flipped, a number moved).
void change(const FlagField& f) {
  std::visit(
      [](auto* p) {
        using T = std::remove_pointer_t<decltype(p)>;
        if constexpr (std::is_same_v<T, std::string>) *p += "-changed";
        else if constexpr (std::is_same_v<T, bool>) *p = !*p;
        else if constexpr (std::is_same_v<T, double>) *p = *p * 2 + 0.5;
        else *p = *p + 1;
      },
      f);
}

// babyberta.train / icl_train's keyword for a flag (python/babyberta: "--" + name with - for _).
std::string python_keyword(const std::string& flag) {
  std::string k = flag.substr(2);
  std::replace(k.begin(), k.end(), '-', '_');
  return k;
}

// "--threads, --device": as a set.
std::set<std::string> flag_set(const std::string& list) {
  std::set<std::string> out;
  for (size_t pos = 0; pos < list.size();) {
    const size_t comma = std::min(list.find(", ", pos), list.size());
    out.insert(list.substr(pos, comma - pos));
    pos = comma + 2;
  }
  return out;
}

// A trainable value's flag changes the runs of its own function: that function's name (else
// `otherwise`).
std::string function_of_value_flag(const std::string& flag, const std::string& otherwise) {
  for (const AttentionFunctionSpec& f : kAttentionFunctionTable)
    for (int slot = 0; slot < f.value_count; ++slot)
      if (flag == f.values[size_t(slot)].init_flag || flag == f.values[size_t(slot)].freeze_flag)
        return std::string(f.name);
  return otherwise;
}

template <typename Rows>
void check_cli_and_keywords(const Rows& rows, CLI::App& app) {
  std::set<std::string> keywords;
  for (const auto& row : rows) {
    CAPTURE(row.flag);
    CHECK(app.get_option_no_throw(row.flag) != nullptr);
    CHECK(std::regex_match(row.flag, std::regex("--[a-z][a-z0-9-]*")));  // a keyword, reversibly
    CHECK(keywords.insert(python_keyword(row.flag)).second);            // and one per flag
    CHECK(!row.help.empty());
  }
}

// Every C++ source of the tree (not tests, not build trees) whose text holds `needle`.
std::vector<std::string> sources_holding(const std::string& needle) {
  std::vector<std::string> found;
  const fs::path root = BB_SOURCE_DIR;
  for (auto it = fs::recursive_directory_iterator(root); it != fs::recursive_directory_iterator();
       ++it) {
    const std::string name = it->path().filename().string();
    if (it->is_directory() && (name.rfind("build", 0) == 0 || name == "tests" || name[0] == '.')) {
      it.disable_recursion_pending();
      continue;
    }
    const std::string ext = it->path().extension().string();
    if (!it->is_regular_file() || (ext != ".cpp" && ext != ".h" && ext != ".cu" && ext != ".cuh"))
      continue;
    std::ifstream in(it->path());
    std::stringstream text;
    text << in.rdbuf();
    if (text.str().find(needle) != std::string::npos)
      found.push_back(fs::relative(it->path(), root).string());
  }
  return found;
}

}  // namespace

TEST_CASE("flag tables: train's rows are options, run.json keys, resume rules, Python keywords") {
  CLI::App app;
  TrainArgs args;
  add_train_options(&app, args);
  check_cli_and_keywords(train_flags(), app);
  const std::set<std::string> may_change = flag_set(resumable_flags());
  for (const TrainFlag& row : train_flags()) {
    CAPTURE(row.flag);
    TrainArgs a;
    a.attention = function_of_value_flag(row.flag, a.attention);
    if (row.recorded && !row.recorded(a)) a.schedule = "wsd";  // (--decay-steps: wsd's)
    if (row.applies && !row.applies(a)) a.kind = "gpt2";      // (--packing: gpt2's)
    const nlohmann::ordered_json before = train_settings(a, "c", "t");
    if (row.flag == flag_name::attention) a.attention = "ssa";  // (a name from its list)
    else if (row.flag == flag_name::recipe) a.recipe = "ssa-paper";
    else if (row.flag == "--schedule") a.schedule = "constant";
    else if (row.flag == "--kind") a.kind = "gpt2";
    else change(row.field(a));
    const nlohmann::ordered_json after = train_settings(a, "c", "t");
    const bool listed = may_change.count(row.flag) > 0;
    CHECK(listed == (row.role == FlagRole::resumable));
    if (row.role == FlagRole::math) {
      CHECK(after.contains(row.settings_key()));  // recorded once changed
      CHECK(after != before);                     // a resume with another value is refused
    } else {
      CHECK(after == before);  // not in run.json: a resume may change it (or it is an input)
    }
  }
}

TEST_CASE("flag tables: icl train's rows are options, run.json keys, resume rules, Python keywords") {
  CLI::App app;
  icl::TrainArgs args;
  icl::add_train_options(&app, args);
  check_cli_and_keywords(icl::train_flags(), app);
  const std::set<std::string> may_change = flag_set(icl::resumable_flags());
  for (const icl::TrainFlag& row : icl::train_flags()) {
    CAPTURE(row.flag);
    icl::TrainArgs a;
    a.attention = function_of_value_flag(row.flag, a.attention);
    const nlohmann::json settings_before = icl::settings_json(a.s);
    const nlohmann::json config_before = icl::to_json(icl::model_config(a));
    const FlagField field = row.field(a);
    if (row.flag == "--task") a.task = "some";  // (a name from its list)
    else if (row.flag == flag_name::preset) a.preset = "icl-small";
    else if (row.flag == "--arch") a.arch = "attention-only";
    else if (row.flag == flag_name::attention) a.attention = "ssa";
    else change(field);
    a.s.task = icl::parse_task(a.task);
    const nlohmann::json settings_after = icl::settings_json(a.s);
    const nlohmann::json config_after = icl::to_json(icl::model_config(a));
    CHECK(may_change.count(row.flag) == (row.role == FlagRole::resumable ? 1u : 0u));
    switch (row.role) {
      case FlagRole::math:
        CHECK(settings_after.contains(row.settings_key()));
        CHECK(settings_after != settings_before);
        // ... and reads back from run.json as it was
        CHECK(icl::settings_json(icl::settings_from_json(settings_after, "run.json")) ==
              settings_after);
        CHECK(config_after == config_before);
        break;
      case FlagRole::model:
        CHECK(config_after != config_before);
        CHECK(settings_after == settings_before);
        break;
      case FlagRole::resumable:
      case FlagRole::input:
        CHECK(settings_after == settings_before);
        CHECK(config_after == config_before);
        break;
    }
  }
}

TEST_CASE("flag tables: icl train's run.json of runs made before the table reads back unchanged") {
  // The "train" object every committed ICL run holds (results/icl-shift-cpu), as written then.
  const nlohmann::json old = nlohmann::json::parse(R"({
    "batch_size": 64, "beta1": 0.9, "beta2": 0.999, "clip_norm": 0.0, "eps": 1e-08, "lr": 0.0001,
    "points_end": 41, "points_every": 2000, "points_inc": 2, "points_start": 11, "seed": 3,
    "sigma": 1.0, "sigma_fn": 1.0, "task": "some"})");
  const icl::TrainSettings s = icl::settings_from_json(old, "run.json");
  CHECK(s.task == icl::Task::some);
  CHECK(s.seed == 3);
  CHECK(s.ssa_lr_mult == 1.0);  // absent: the default, and not written back
  CHECK(icl::settings_json(s) == old);
  icl::TrainSettings mult = s;
  mult.ssa_lr_mult = 10;
  CHECK(icl::settings_json(mult).at("ssa_lr_mult") == 10.0);
}

TEST_CASE("flag tables: icl experiment's rows are options; its run flags are icl train's") {
  CLI::App app;
  IclExperimentArgs args;
  flag_table::add_options(&app, args, icl_experiment_flags());
  check_cli_and_keywords(icl_experiment_flags(), app);
  for (const IclExperimentFlag& row : icl_experiment_flags()) {
    CAPTURE(row.flag);
    IclExperimentArgs a;
    const std::vector<std::string> before = icl::to_args(a.train);
    change(row.field(a));
    // A math row is a setting of every run: the runs' command lines carry it.
    CHECK((icl::to_args(a.train) != before) == (row.role == FlagRole::math));
  }
  // The grid's own flags are icl train's (refused among the flags passed through).
  CLI::App train;
  icl::TrainArgs t;
  icl::add_train_options(&train, t);
  for (const std::string& flag : icl_flags_set_by_grid()) {
    CAPTURE(flag);
    CHECK(train.get_option_no_throw(flag) != nullptr);
  }
}

TEST_CASE("flag tables: an ICL flag is spelled in one C++ source") {
  for (const char* flag : {"\"--points-every\"", "\"--sigma-fn\"", "\"--points-start\"",
                           "\"--ssa-lr-mult\"", "\"--checkpoint-every\"", "\"--extend-to\"",
                           "\"--keep-checkpoints\""}) {
    CAPTURE(flag);
    const std::vector<std::string> files = sources_holding(flag);
    CHECK_MESSAGE(files.size() == 1, fmt::format("{}", fmt::join(files, ", ")));
  }
}

TEST_CASE("flag tables: a grid's words that are value flags, in both spellings") {
  using training::head_value_flag_word;
  const auto b = head_value_flag_word("--ssa-b-init");
  REQUIRE(b);
  CHECK((b->function == AttentionFunction::ssa && b->flag == "--ssa-b-init" && b->value_follows));
  const auto tau = head_value_flag_word("--temperature=0.5");  // the value in the same word
  REQUIRE(tau);
  CHECK((tau->function == AttentionFunction::softmax_t && tau->flag == "--temperature" &&
         !tau->value_follows));
  const auto freeze = head_value_flag_word("--ssa-freeze-b");  // a switch: no value
  REQUIRE(freeze);
  CHECK((freeze->function == AttentionFunction::ssa && !freeze->value_follows));
  CHECK_FALSE(head_value_flag_word("--lr"));
  CHECK_FALSE(head_value_flag_word("2"));
  CHECK_FALSE(head_value_flag_word("--ssa-b-initial"));  // only the exact name
  // A value flag that no function of the grid has is a usage error naming it and its owner.
  const std::vector<std::string> words = {"--lr", "0.001", "--ssa-b-init", "2",
                                          "--temperature=0.5"};
  CHECK_NOTHROW(training::check_head_value_flag_words(
      words, {AttentionFunction::ssa, AttentionFunction::softmax_t}));
  CHECK_THROWS_WITH_AS(
      training::check_head_value_flag_words(words, {AttentionFunction::softmax,
                                                    AttentionFunction::ssa}),
      "--temperature does not apply to --attention softmax,ssa (it sets a value of softmax-t)",
      UsageError);
}
