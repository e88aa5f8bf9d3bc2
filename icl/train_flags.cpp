#include "icl/train_flags.h"

#include <fmt/format.h>

#include <cmath>

#include "common/error.h"
#include "common/flag_names.h"
#include "common/json_read.h"
#include "training/flag_ranges.h"
#include "training/head_value_flags.h"
#include "training/precision_flag.h"

namespace bb::icl {

using nlohmann::json;

namespace {

using namespace flag_roles;
constexpr int64_t kMaxSteps = int64_t(1) << 40;

// The member a row sets: BB_FIELD(s.lr).
#define BB_FIELD(member) [](TrainArgs& a) -> FlagField { return &a.member; }

std::vector<TrainFlag> make_icl_train_table() {
  std::vector<TrainFlag> t = {
      {.flag = "--task", .help = "every, some, mixed, linear or linear-regression", .role = math,
       .field = BB_FIELD(task), .check = [] { return one_of("task", task_names()); },
       .key = "task"},
      {.flag = flag_name::attention, .help = attention_function_help(), .role = model,
       .field = BB_FIELD(attention),
       .check = [] { return one_of("attention function", attention_function_name_list()); }},
      {.flag = flag_name::preset,
       .help = "icl-tiny (3 layers, 2 heads, 64), icl-small (6/4/128), icl-standard (12/8/256)",
       .role = model, .field = BB_FIELD(preset),
       .check = [] { return one_of("preset", preset_names()); }},
      {.flag = "--arch",
       .help = "full (GPT-2 blocks), attention-only (no MLP, LayerNorm or residual), "
               "attention-only-residual (no MLP or LayerNorm)",
       .role = model, .field = BB_FIELD(arch),
       .check = [] { return one_of("architecture", arch_names()); }},
      {.flag = flag_name::out, .help = "Run directory (created; an existing run is resumed)",
       .role = input, .field = BB_FIELD(out), .required = true},
      {.flag = flag_name::steps,
       .help = "Updates in total, recorded in run.json: a resume takes the same --steps (the "
               "learning rate is constant: --extend-to N continues a run, bit for bit)",
       .role = resumable, .field = BB_FIELD(s.steps), .check = [] { return count_in(1, kMaxSteps); }},
      {.flag = flag_name::extend_to,
       .help = "Continue a finished run (this --out, its original flags) to N updates in all "
               "(N > --steps); bit for bit the run that had --steps N",
       .role = input, .field = BB_FIELD(extend_to), .check = [] { return count_in(2, kMaxSteps); },
       .show_default = false},
      {.flag = flag_name::seed, .help = "Seed of the weights and of every batch", .role = math,
       .field = BB_FIELD(s.seed), .check = [] { return count_in(0, kMaxSeed); }, .key = "seed"},
      {.flag = "--batch", .help = "Sequences per update", .role = math, .field = BB_FIELD(s.batch),
       .check = [] { return count_in(1, 65536); }, .key = "batch_size"},
      {.flag = flag_name::lr, .help = "Adam's learning rate (constant)", .role = math,
       .field = BB_FIELD(s.lr), .check = [] { return in_range(0, 1, true); }, .key = "lr"},
      {.flag = "--clip-norm",
       .help = "Clip the global gradient norm to this (0: no clipping, as the authors)",
       .role = math, .field = BB_FIELD(s.clip_norm), .check = [] { return in_range(0, 1e6); },
       .key = "clip_norm"},
      {.flag = flag_name::ssa_lr_mult,
       .help = "Learning-rate multiplier of the attention function's trainable values that its "
               "table row marks (SSA's b and n)",
       .role = math, .field = BB_FIELD(s.ssa_lr_mult), .check = [] { return in_range(0, 1e6); },
       .recorded = [](const TrainArgs& a) { return a.s.ssa_lr_mult != 1.0; },
       .key = "ssa_lr_mult"},
      training::precision_row<TrainArgs>(BB_FIELD(s.precision), "precision"),
      {.flag = "--sigma", .help = "Training x ~ N(0, sigma^2)", .role = math,
       .field = BB_FIELD(s.spread.sigma_x), .check = [] { return in_range(0, 1e6, true); },
       .key = "sigma"},
      {.flag = flag_name::sigma_fn,
       .help = "Training functions (a, b or w) ~ N(0, sigma_fn^2) (linear tasks)", .role = math,
       .field = BB_FIELD(s.spread.sigma_fn), .check = [] { return in_range(0, 1e6, true); },
       .key = "sigma_fn"},
      {.flag = "--dims", .help = "Input dimensions (linear-regression)", .role = model,
       .field = BB_FIELD(dims), .check = [] { return count_in(1, 1024); }},
      {.flag = "--points-start", .help = "Curriculum: points per sequence at first", .role = math,
       .field = BB_FIELD(s.curriculum.start), .check = [] { return count_in(1, 512); },
       .key = "points_start"},
      {.flag = "--points-end", .help = "Curriculum: points per sequence at most", .role = math,
       .field = BB_FIELD(s.curriculum.end), .check = [] { return count_in(1, 512); },
       .key = "points_end"},
      {.flag = "--points-inc", .help = "Curriculum: points added each time", .role = math,
       .field = BB_FIELD(s.curriculum.inc), .check = [] { return count_in(0, 512); },
       .key = "points_inc"},
      {.flag = flag_name::points_every, .help = "Curriculum: updates between increments",
       .role = math, .field = BB_FIELD(s.curriculum.every),
       .check = [] { return count_in(1, kMaxSteps); }, .key = "points_every"},
      {.flag = "--checkpoint-every", .help = "Updates between checkpoints", .role = resumable,
       .field = BB_FIELD(s.checkpoint_every), .check = [] { return count_in(1, kMaxSteps); }},
      {.flag = flag_name::keep_checkpoints,
       .help = "Keep the K most recent step checkpoints (all: every one)", .role = resumable,
       .field = BB_FIELD(s.keep_checkpoints), .check = [] { return keep_count(); },
       .text = [](const TrainArgs& a) {
         return a.s.keep_checkpoints == 0 ? std::string("all")
                                          : std::to_string(a.s.keep_checkpoints);
       }},
  };
  training::add_head_value_rows(t, model);  // the functions' trainable values
  t.push_back({.flag = flag_name::threads, .help = "Compute threads", .role = resumable,
               .field = BB_FIELD(threads), .check = [] { return thread_count(); }});
  t.push_back({.flag = flag_name::device, .help = "cpu or cuda", .role = resumable,
               .field = BB_FIELD(device)});
  t.push_back({.flag = "--quiet", .help = "No progress lines", .role = resumable,
               .field = BB_FIELD(quiet), .form = TrainFlag::switch_on});
  return t;
}

#undef BB_FIELD

}  // namespace

const std::vector<TrainFlag>& train_flags() {
  static const std::vector<TrainFlag> table = make_icl_train_table();
  return table;
}

void add_train_options(CLI::App* cmd, TrainArgs& a, const std::set<std::string>& skip) {
  flag_table::add_options(cmd, a, train_flags(), skip);
}

TrainArgs parse_train_args(const std::vector<std::string>& args) {
  CLI::App app;
  TrainArgs a;
  add_train_options(&app, a);
  std::vector<std::string> rev(args.rbegin(), args.rend());  // CLI11 parses a reversed list
  app.parse(rev);
  a.s.task = parse_task(a.task);
  return a;
}

std::vector<std::string> to_args(const TrainArgs& a) {
  return flag_table::to_args(a, train_flags(), {"icl", "train"});
}

Config model_config(const TrainArgs& a) {
  Config cfg = preset(a.preset);
  cfg.arch = parse_arch(a.arch);
  cfg.attention = parse_attention_function(a.attention);
  cfg.head_values = a.head_values;
  cfg.dims = a.dims;
  return cfg;
}

void TrainSettings::validate() const {
  BB_CHECK(batch >= 1 && batch <= 65536, "--batch must be between 1 and 65536, got {}", batch);
  BB_CHECK(steps >= 1, "{} must be at least 1, got {}", flag_name::steps, steps);
  BB_CHECK(std::isfinite(lr) && lr > 0, "{} must be a positive number, got {}", flag_name::lr, lr);
  BB_CHECK(curriculum.start >= 1 && curriculum.start <= curriculum.end,
           "--points-start must be between 1 and --points-end ({}), got {}", curriculum.end,
           curriculum.start);
  BB_CHECK(curriculum.inc >= 0, "--points-inc must be >= 0, got {}", curriculum.inc);
  BB_CHECK(curriculum.every >= 1, "{} must be >= 1, got {}", flag_name::points_every,
           curriculum.every);
  for (auto [flag, v] : {std::pair{"--sigma", spread.sigma_x}, {flag_name::sigma_fn, spread.sigma_fn}})
    BB_CHECK(std::isfinite(v) && v > 0 && v <= 1e6, "{} must be > 0 and <= 1e6, got {}", flag,
             v);
  BB_CHECK(checkpoint_every >= 1, "--checkpoint-every must be >= 1, got {}", checkpoint_every);
  BB_CHECK(std::isfinite(ssa_lr_mult) && ssa_lr_mult >= 0 && ssa_lr_mult <= 1e6,
           "{} must be between 0 and 1e6, got {}", flag_name::ssa_lr_mult, ssa_lr_mult);
  BB_CHECK(keep_checkpoints >= 0, "{} must be >= 0, got {}", flag_name::keep_checkpoints, keep_checkpoints);
}

void check_settings_for_model(const TrainSettings& s, const Config& c) {
  BB_CHECK(s.curriculum.end <= c.positions / 2,
           "--points-end {} needs {} positions, the model has {} (n_positions)", s.curriculum.end,
           2 * s.curriculum.end, c.positions);
  BB_CHECK(s.task == Task::linear_regression || c.dims == 1,
           "--dims is for linear-regression; task {} has 1-d inputs", task_name(s.task));
}

json settings_json(const TrainSettings& s) {
  TrainArgs a;
  a.s = s;
  a.task = task_name(s.task);
  json j = flag_table::settings(a, train_flags());
  for (auto [key, v] : {std::pair{"beta1", s.beta1}, {"beta2", s.beta2}, {"eps", s.eps}})
    j[key] = v;  // Adam's constants (no flags: the authors')
  return j;
}

TrainSettings settings_from_json(const json& j, const std::string& where) {
  BB_CHECK(j.is_object(), "{}: \"train\" must be an object", where);
  TrainArgs a;
  flag_table::read_settings(j, a, train_flags(), where);
  a.s.task = parse_task(a.task);
  for (auto [key, member] : {std::pair{"beta1", &a.s.beta1}, {"beta2", &a.s.beta2}, {"eps", &a.s.eps}})
    *member = json_number(j, key, where);
  a.s.validate();
  return a.s;
}

TrainSettings read_run_settings(const std::filesystem::path& dir) {
  const std::filesystem::path path = dir / "run.json";
  const json j = read_json_file(path);
  BB_CHECK(j.is_object() && j.value("kind", "") == "icl", "{}: not an ICL run (expected \"kind\": "
           "\"icl\")", path.string());
  BB_CHECK(j.contains("train"), "{}: \"train\" is missing", path.string());
  return settings_from_json(j.at("train"), path.string());
}

std::string resumable_flags() { return flag_table::resumable_flags(train_flags()); }

}  // namespace bb::icl
