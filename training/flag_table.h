// A command's training flags as one table of rows, the same mechanism for every kind's trainer
// (train: runs/train_flags.h; icl train: runs/icl_train_flags.h). A row names the flag, its help,
// the member of the command's argument struct it sets, its range check, its role (what a resume
// may change) and its run.json key; the CLI options, run.json's settings and their reading back,
// the resume check's list of flags that may change, the command line a child run is given and the
// Python keywords are all generated from the rows: a flag is declared once.
#pragma once
#include <CLI/CLI.hpp>
#include <fmt/format.h>
#include <nlohmann/json.hpp>

#include <cstdint>
#include <functional>
#include <limits>
#include <set>
#include <string>
#include <type_traits>
#include <variant>
#include <vector>

#include "common/error.h"
#include "common/json_read.h"

namespace bb {

// What a flag is to a run.
enum class FlagRole {
  math,       // changes what is computed: in run.json's settings; a resume must match it
  model,      // the model's shape or function: in run.json's model config; a resume must match it
  resumable,  // how or what is reported, not what is computed: may change on resume
  input,      // what to read, write or do (train's --corpus and --tokenizer enter run.json by
              // content)
};

// The roles by their short names, for the rows of a flag table (`using namespace flag_roles;`).
namespace flag_roles {
inline constexpr FlagRole math = FlagRole::math, model = FlagRole::model,
                          resumable = FlagRole::resumable, input = FlagRole::input;
}  // namespace flag_roles

// A pointer to the member a flag sets.
using FlagField = std::variant<int*, int64_t*, uint64_t*, double*, bool*, std::string*>;

// A command without recipes (icl train).
struct NoRecipe {};

template <typename Args, typename Recipe = NoRecipe>
struct FlagRow {
  std::string flag = {}, help = {};
  FlagRole role = FlagRole::math;
  std::function<FlagField(Args&)> field = {};
  std::function<CLI::Validator()> check = {};  // empty: any value of the type
  enum Form { value, switch_on, switch_off } form = value;  // switch_off: sets its bool to false
  std::function<void(Args&, const Recipe&)> from_recipe = {};  // empty: no recipe sets it
  // math flags added after runs existed are in run.json only when this holds, so that older runs
  // keep their fingerprints (empty: always); reading back, an absent one keeps its default
  std::function<bool(const Args&)> recorded = {};
  // Whether the flag applies to these arguments (empty: always), e.g. masking to the masked LM
  // only: where it does not, it is neither recorded nor passed on (to_args), and given on the
  // command line it is a usage error (check_applicable).
  std::function<bool(const Args&)> applies = {};
  bool required = false;
  std::function<std::string(const Args&)> text = {};  // to_args's value (empty: the member's)
  bool show_default = true;  // in --help (false where the default means "not given")
  std::string key = {};      // run.json's key (empty: the flag itself)

  const std::string& settings_key() const { return key.empty() ? flag : key; }
};

namespace flag_table {

// A member's value as JSON (run.json) and as command-line text.
inline nlohmann::ordered_json json_of(const FlagField& f) {
  return std::visit([](auto* p) { return nlohmann::ordered_json(*p); }, f);
}
inline std::string text_of(const FlagField& f) {
  return std::visit(
      [](auto* p) -> std::string {
        using T = std::remove_pointer_t<decltype(p)>;
        if constexpr (std::is_same_v<T, std::string>) return *p;
        else if constexpr (std::is_same_v<T, bool>) return *p ? "true" : "false";
        else return fmt::format("{}", *p);  // doubles: the shortest text that reads back exactly
      },
      f);
}

// Adds the rows' options to `cmd` (all but those in `skip`: a grid sets them per run).
template <typename Args, typename Recipe>
void add_options(CLI::App* cmd, Args& a, const std::vector<FlagRow<Args, Recipe>>& rows,
                 const std::set<std::string>& skip = {}) {
  using Row = FlagRow<Args, Recipe>;
  for (const Row& row : rows) {
    if (skip.count(row.flag)) continue;
    const FlagField field = row.field(a);
    if (row.form == Row::switch_on) {
      cmd->add_flag(row.flag, *std::get<bool*>(field), row.help);
      continue;
    }
    if (row.form == Row::switch_off) {
      bool* member = std::get<bool*>(field);
      cmd->add_flag_callback(row.flag, [member] { *member = false; }, row.help);
      continue;
    }
    CLI::Option* opt = std::visit(
        [&](auto* p) { return cmd->add_option(row.flag, *p, row.help); }, field);
    if (row.check) opt->transform(row.check());  // (a transform may rewrite: --threads, `all`)
    if (row.required) opt->required();
    else if (row.text) opt->default_str(row.text(a));
    else if (row.show_default && !text_of(field).empty()) opt->capture_default_str();
  }
}

// `given` as command-line arguments (after `prefix`) that parse back to it: every flag that a
// recipe sets or that differs from its default.
template <typename Args, typename Recipe>
std::vector<std::string> to_args(const Args& given, const std::vector<FlagRow<Args, Recipe>>& rows,
                                 std::vector<std::string> prefix) {
  using Row = FlagRow<Args, Recipe>;
  Args a = given, defaults;
  for (const Row& row : rows) {
    if (row.applies && !row.applies(a)) continue;
    const FlagField field = row.field(a);
    const bool as_default = json_of(field) == json_of(row.field(defaults));
    if (row.form != Row::value) {
      if (!as_default) prefix.push_back(row.flag);  // a switch is given when it changes its bool
      continue;
    }
    if (as_default && !row.from_recipe) continue;  // (a recipe's flag: always, it would override)
    prefix.push_back(row.flag);
    prefix.push_back(row.text ? row.text(a) : text_of(field));
  }
  return prefix;
}

// A flag given on `cmd`'s command line that applies to none of `uses` (FlagRow::applies; train: its
// one run, experiment: a run of each kind in its grid): a usage error naming it and `why` of the
// first ("--mask-prob does not apply to --kind gpt2").
template <typename Args, typename Recipe>
void check_applicable(const std::vector<Args>& uses, const std::vector<FlagRow<Args, Recipe>>& rows,
                      const CLI::App& cmd, const std::function<std::string(const Args&)>& why) {
  for (const FlagRow<Args, Recipe>& row : rows) {
    if (!row.applies || cmd.get_option_no_throw(row.flag) == nullptr || cmd.count(row.flag) == 0)
      continue;
    bool somewhere = false;
    for (const Args& a : uses) somewhere = somewhere || row.applies(a);
    if (!somewhere && !uses.empty())
      throw UsageError(fmt::format("{} does not apply to {}", row.flag, why(uses.front())));
  }
}

// The rows of `role` that `given` records, as run.json keeps them: {key: value}.
template <typename Args, typename Recipe>
nlohmann::ordered_json settings(const Args& given, const std::vector<FlagRow<Args, Recipe>>& rows,
                                FlagRole role = FlagRole::math) {
  using Row = FlagRow<Args, Recipe>;
  Args a = given;
  nlohmann::ordered_json out = nlohmann::ordered_json::object();
  for (const Row& row : rows) {
    if (row.role != role || (row.recorded && !row.recorded(a)) || (row.applies && !row.applies(a)))
      continue;
    const nlohmann::ordered_json value = json_of(row.field(a));
    out[row.settings_key()] = row.form == Row::switch_off ? nlohmann::ordered_json(!value.get<bool>())
                                                          : value;
  }
  return out;
}

// Reads back what settings() wrote (`where`: the file, for errors). A row that may be left out
// (`recorded`) keeps its default when absent; every other one must be there, of its type.
template <typename Args, typename Recipe>
void read_settings(const nlohmann::json& j, Args& a, const std::vector<FlagRow<Args, Recipe>>& rows,
                   const std::string& where, FlagRole role = FlagRole::math) {
  using Row = FlagRow<Args, Recipe>;
  BB_CHECK(j.is_object(), "{}: the settings must be an object", where);
  for (const Row& row : rows) {
    if (row.role != role) continue;
    const std::string& key = row.settings_key();
    if ((row.recorded || row.applies) && !j.contains(key)) continue;
    std::visit(
        [&](auto* p) {
          using T = std::remove_pointer_t<decltype(p)>;
          if constexpr (std::is_same_v<T, std::string>) *p = json_string(j, key, where);
          else if constexpr (std::is_same_v<T, double>) *p = json_number(j, key, where);
          else if constexpr (std::is_same_v<T, uint64_t>) *p = json_unsigned(j, key, where);
          else if constexpr (std::is_same_v<T, bool>) {
            const bool v = json_field(j, key, where, [](const nlohmann::json& x) {
                             return x.is_boolean();
                           }, "true or false").template get<bool>();
            *p = row.form == Row::switch_off ? !v : v;
          } else {
            const int64_t v = json_integer(j, key, where);
            BB_CHECK(v >= int64_t(std::numeric_limits<T>::min()) &&
                         v <= int64_t(std::numeric_limits<T>::max()),
                     "{}: \"{}\" is {}, out of range", where, key, v);
            *p = T(v);
          }
        },
        row.field(a));
  }
}

// "--threads, --device, ...": the flags that may change on resume.
template <typename Args, typename Recipe>
std::string resumable_flags(const std::vector<FlagRow<Args, Recipe>>& rows) {
  std::vector<std::string> flags;
  for (const auto& row : rows)
    if (row.role == FlagRole::resumable) flags.push_back(row.flag);
  return fmt::format("{}", fmt::join(flags, ", "));
}

}  // namespace flag_table

}  // namespace bb
