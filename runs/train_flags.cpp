#include "runs/train_flags.h"

#include <fmt/format.h>

#include "common/flag_names.h"
#include "corpora/causal_batches.h"
#include "encoder/config_keys.h"
#include "training/flag_ranges.h"
#include "training/head_value_flags.h"
#include "training/precision_flag.h"
#include "common/split_list.h"
#include "common/error.h"

namespace bb {

using ojson = nlohmann::ordered_json;

namespace {

using namespace flag_roles;
using R = const Recipe&;

bool masked_lm(const TrainArgs& a) { return a.kind == "roberta"; }

// The member a row sets: BB_FIELD(optim.lr).
#define BB_FIELD(member) [](TrainArgs& a) -> FlagField { return &a.member; }

std::vector<TrainFlag> make_train_table() {
  std::vector<TrainFlag> t = {
      {.flag = flag_name::corpus, .help = "Training corpus, one utterance per line", .role = input,
       .field = BB_FIELD(corpus), .required = true},
      {.flag = flag_name::out, .help = "Output (model) directory", .role = input, .field = BB_FIELD(out),
       .required = true},
      {.flag = "--kind",
       .help = "Model kind: roberta (BabyBERTa's masked LM) or gpt2 (a GPT-2-style causal LM)",
       .role = math, .field = BB_FIELD(kind),
       .check = [] { return one_of("kind", {"roberta", "gpt2"}); },
       .recorded = [](const TrainArgs& a) { return a.kind != "roberta"; }},
      {.flag = "--packing",
       .help = "gpt2: utterance (one utterance per sequence, as minimal pairs are scored) or "
               "packed (utterances concatenated into blocks of the preset's positions)",
       .role = math, .field = BB_FIELD(packing),
       .check = [] { return one_of("packing", {kPackingNames.begin(), kPackingNames.end()}); },
       .applies = [](const TrainArgs& a) { return a.kind == "gpt2"; }},
      {.flag = flag_name::attention, .help = attention_function_help(), .role = math,
       .field = BB_FIELD(attention),
       .check = [] { return one_of("attention function", attention_function_name_list()); }},
      {.flag = flag_name::preset,
       .help = "Model size: babyberta, small, tiny (either kind); decoder-114m (gpt2, for a GPU)",
       .role = math, .field = BB_FIELD(preset),
       .check = [] { return one_of("preset", preset_names(ModelKind::gpt2)); },
       .from_recipe = [](TrainArgs& a, R r) { a.preset = r.preset; }},
      {.flag = flag_name::recipe,
       .help = "Training recipe: babyberta (BabyBERTa's) or ssa-paper (the SSA paper's HF Trainer "
               "setup); sets every training flag not given (docs/training.md: Training recipes)",
       .role = math, .field = BB_FIELD(recipe),
       .check = [] { return one_of("recipe", split_list(kRecipeNames, "recipes")); },
       .recorded = [](const TrainArgs& a) { return a.recipe != "babyberta"; }},
      {.flag = flag_name::steps, .help = "Optimizer steps", .role = math, .field = BB_FIELD(steps),
       .check = [] { return count_in(1, 1000000000); }},
      {.flag = flag_name::seed, .help = "Seed (init, data order, masks, dropout)", .role = math,
       .field = BB_FIELD(seed), .check = [] { return count_in(0, kMaxSeed); }},
      {.flag = flag_name::threads, .help = "Compute threads", .role = resumable,
       .field = BB_FIELD(threads), .check = [] { return thread_count(); }},
      {.flag = flag_name::device, .help = "cpu or cuda (a -DBABYBERTA_CUDA=ON build with a GPU)",
       .role = resumable, .field = BB_FIELD(device)},
      {.flag = flag_name::cuda_graphs,
       .help = "CUDA: replay each step as a captured CUDA graph (on/off; off: launch every op)",
       .role = resumable, .field = BB_FIELD(cuda_graphs)},
      {.flag = flag_name::resume,
       .help = "",  // (below: names the resumable flags)
       .role = input, .field = BB_FIELD(resume), .form = TrainFlag::switch_on},
      {.flag = flag_name::extend_to,
       .help = "With --resume: continue a constant or wsd run to N steps in all (N > --steps; give "
               "the run's original flags). A wsd run resumes from where its decay began; the "
               "checkpoints after it move to DIR/extended-from-STEPS/. Bit for bit the run that "
               "had --steps N, with the first run's warmup",
       .role = input, .field = BB_FIELD(extend_to),
       .check = [] { return count_in(2, 1000000000); }, .show_default = false},
      {.flag = flag_name::tokenizer, .help = "Use this tokenizer directory instead of training one",
       .role = input, .field = BB_FIELD(tokenizer)},
      {.flag = flag_name::vocab_size, .help = "Vocabulary size of a newly trained tokenizer",
       .role = input, .field = BB_FIELD(vocab_size),
       .check = [] { return count_in(16, 1000000); }},
      {.flag = "--tokenizer-type", .help = "bpe or unigram", .role = input,
       .field = BB_FIELD(tokenizer_type)},
      {.flag = flag_name::keep_case, .help = "Do not lower-case text", .role = input,
       .field = BB_FIELD(keep_case), .form = TrainFlag::switch_on},
      {.flag = flag_name::strict, .help = "Invalid UTF-8 in the corpus is an error", .role = math,
       .field = BB_FIELD(strict), .form = TrainFlag::switch_on},
      {.flag = flag_name::batch_size, .help = "Utterances per batch", .role = math,
       .field = BB_FIELD(batching.batch_size), .check = [] { return count_in(1, 4096); },
       .from_recipe = [](TrainArgs& a, R r) { a.batching.batch_size = r.batch_size; }},
      {.flag = flag_name::mask_patterns, .help = "BabyBERTa: fixed mask patterns per utterance",
       .role = math, .field = BB_FIELD(batching.mask_patterns),
       .check = [] { return count_in(1, 1000); },
       .from_recipe = [](TrainArgs& a, R r) { a.batching.mask_patterns = r.mask_patterns; },
       .applies = masked_lm},
      {.flag = flag_name::hf_masking,
       .help = "HF recipe: 80/10/10 and a fresh pattern at every visit (default BabyBERTa 90/10/0)",
       .role = math, .field = BB_FIELD(hf_masking), .form = TrainFlag::switch_on,
       .from_recipe = [](TrainArgs& a, R r) { a.hf_masking = r.hf_masking; },
       .applies = masked_lm},
      {.flag = flag_name::mask_prob, .help = "Masking probability", .role = math,
       .field = BB_FIELD(batching.masking.prob), .check = [] { return in_range(0.01, 1); },
       .from_recipe = [](TrainArgs& a, R r) { a.batching.masking.prob = r.mask_prob; },
       .applies = masked_lm},
      {.flag = flag_name::bucket_batches, .help = "Batches per length-sorted chunk (1: no bucketing)",
       .role = math, .field = BB_FIELD(batching.bucket_batches),
       .check = [] { return count_in(1, 1000000); },
       .from_recipe = [](TrainArgs& a, R r) { a.batching.bucket_batches = r.bucket_batches; }},
      {.flag = flag_name::lr, .help = "Peak learning rate", .role = math, .field = BB_FIELD(optim.lr),
       .check = [] { return in_range(0, 1, true); },
       .from_recipe = [](TrainArgs& a, R r) { a.optim.lr = r.lr; }},
      {.flag = "--warmup-steps", .help = "Warmup (-1: min(24000, steps/10))", .role = math,
       .field = BB_FIELD(optim.warmup_steps), .check = [] { return count_in(-1, 1000000000); },
       .from_recipe = [](TrainArgs& a, R r) { a.optim.warmup_steps = r.warmup_for(a.steps); }},
      {.flag = "--schedule",
       .help = "Learning rate after the warmup: linear (decay to 0 at --steps), constant, or wsd "
               "(constant, then a linear decay over the last --decay-steps); constant and wsd "
               "runs can be extended (--extend-to)",
       .role = math, .field = BB_FIELD(schedule),
       .check = [] { return one_of("schedule", {kScheduleNames.begin(), kScheduleNames.end()}); },
       .recorded = [](const TrainArgs& a) { return a.schedule != "linear"; }},
      {.flag = "--decay-steps",
       .help = "wsd: steps of the final linear decay to 0 (at most --steps minus the warmup)",
       .role = math, .field = BB_FIELD(optim.decay_steps),
       .check = [] { return count_in(1, 1000000000); },
       .recorded = [](const TrainArgs& a) { return a.schedule == "wsd"; }, .show_default = false},
      {.flag = flag_name::keep_checkpoints,
       .help = "Keep the K most recent step checkpoints (all: every one), and always those "
               "--probe-every probed and the one an extension resumes from",
       .role = resumable, .field = BB_FIELD(keep_checkpoints), .check = [] { return keep_count(); },
       .text = [](const TrainArgs& a) {
         return a.keep_checkpoints == 0 ? std::string("all") : std::to_string(a.keep_checkpoints);
       }},
      {.flag = "--weight-decay", .help = "AdamW weight decay", .role = math,
       .field = BB_FIELD(optim.weight_decay), .check = [] { return in_range(0, 1); },
       .from_recipe = [](TrainArgs& a, R r) { a.optim.weight_decay = r.weight_decay; }},
      {.flag = "--clip", .help = "Global grad-norm clip (0: off)", .role = math,
       .field = BB_FIELD(optim.clip_norm), .check = [] { return in_range(0, 1e6); },
       .from_recipe = [](TrainArgs& a, R r) { a.optim.clip_norm = r.clip; }},
      {.flag = "--adam-eps", .help = "AdamW epsilon", .role = math, .field = BB_FIELD(optim.eps),
       .check = [] { return in_range(0, 1, true, true); },
       .from_recipe = [](TrainArgs& a, R r) { a.optim.eps = r.adam_eps; }},
      {.flag = "--no-bias-correction", .help = "Adam without bias correction (reproduces BabyBERTa)",
       .role = math, .field = BB_FIELD(optim.bias_correction), .form = TrainFlag::switch_off,
       .from_recipe = [](TrainArgs& a, R r) { a.optim.bias_correction = r.bias_correction; }},
      {.flag = "--dropout", .help = "Hidden and attention dropout", .role = math,
       .field = BB_FIELD(dropout), .check = [] { return in_range(0, 1, false, true); },
       .from_recipe = [](TrainArgs& a, R r) { a.dropout = r.dropout; }},
      {.flag = flag_name::ssa_lr_mult, .help = "SSA: learning-rate multiplier for b, n", .role = math,
       .field = BB_FIELD(optim.ssa_lr_mult), .check = [] { return in_range(0, 1e6); }},
      training::precision_row<TrainArgs, Recipe>(BB_FIELD(precision)),
      {.flag = "--eval-every", .help = "Dev loss, checkpoint and metrics line every K steps",
       .role = resumable, .field = BB_FIELD(eval_every),
       .check = [] { return count_in(1, 1000000000); }},
      {.flag = flag_name::dev_fraction, .help = "Held-out dev share of utterances", .role = math,
       .field = BB_FIELD(dev_fraction), .check = [] { return in_range(0, 0.5); }},
      {.flag = "--dev-batches", .help = "Dev batches per evaluation", .role = math,
       .field = BB_FIELD(dev_batches), .check = [] { return count_in(1, 1000000); }},
      {.flag = flag_name::dev_seed,
       .help = "Seed of the dev split (the same dev set for every --seed, so dev losses compare "
               "across seeds)",
       .role = math, .field = BB_FIELD(dev_seed),
       .check = [] { return count_in(0, kMaxSeed); },
       .recorded = [](const TrainArgs& a) { return !a.dev_from_seed; }},
      {.flag = "--no-dev",
       .help = "No dev set: every utterance trains and no dev loss is reported (for corpora too "
               "small to hold one out)",
       .role = math, .field = BB_FIELD(no_dev), .form = TrainFlag::switch_on,
       .recorded = [](const TrainArgs& a) { return a.no_dev; }},
      {.flag = "--probe-every",
       .help = "Probe --probe-suite every K steps (a multiple of --eval-every; 0: never)",
       .role = resumable, .field = BB_FIELD(probe_every),
       .check = [] { return count_in(0, 1000000000); }},
      {.flag = flag_name::probe_suite, .help = "Suite for --probe-every (learning curves)",
       .role = resumable, .field = BB_FIELD(probe_suite)},
      {.flag = "--probe-pairs",
       .help = "Pairs per paradigm of the --probe-every probes (the first N; 0: all)",
       .role = resumable, .field = BB_FIELD(probe_pairs),
       .check = [] { return count_in(0, 100000000); }},
  };
  // The functions' trainable values. SSA's are recorded for runs of every function (they predate
  // the others), the rest only for their own function's runs.
  training::add_head_value_rows<TrainArgs, Recipe>(
      t, math, [](const TrainArgs& a, AttentionFunction f) {
        return parse_attention_function(a.attention) == f;
      });
  const std::string may_change = flag_table::resumable_flags(t);
  for (TrainFlag& row : t)
    if (row.flag == flag_name::resume)
      row.help = fmt::format("Continue from the latest checkpoint in --out (with the same flags; "
                             "only {} may change)", may_change);
  return t;
}

#undef BB_FIELD

}  // namespace

const std::vector<TrainFlag>& train_flags() {
  static const std::vector<TrainFlag> table = make_train_table();
  return table;
}

void add_train_options(CLI::App* cmd, TrainArgs& a, const std::set<std::string>& skip) {
  flag_table::add_options(cmd, a, train_flags(), skip);
}

ModelKind text_kind(const TrainArgs& a) { return parse_text_kind(a.kind); }

void apply_recipe(TrainArgs& a, const CLI::App& cmd, const std::vector<std::string>& kinds) {
  std::vector<TrainArgs> uses;  // the runs' kinds
  for (const std::string& k : kinds.empty() ? std::vector<std::string>{a.kind} : kinds) {
    uses.push_back(a);
    uses.back().kind = k;
  }
  flag_table::check_applicable<TrainArgs, Recipe>(
      uses, train_flags(), cmd, [](const TrainArgs& x) { return fmt::format("--kind {}", x.kind); });
  for (const TrainArgs& u : uses) try {  // a preset of the other kind (decoder-114m for roberta)
      preset(u.preset, text_kind(u));
    } catch (const UsageError&) {
      throw;
    } catch (const Error& e) {
      throw UsageError(e.what());
    }
  const Recipe r = recipe(a.recipe);
  for (const TrainFlag& row : train_flags())
    if (row.from_recipe && cmd.count(row.flag) == 0) row.from_recipe(a, r);
  a.optim.beta1 = r.beta1, a.optim.beta2 = r.beta2;  // no flags of their own
  a.layer_norm_eps = r.layer_norm_eps;
  a.optim.schedule = parse_schedule(a.schedule);
  // An extendable schedule fixes its warmup from --steps here, so that an extension (a longer
  // total) keeps the warmup its first segment had.
  if (a.optim.schedule != Schedule::linear && a.optim.warmup_steps < 0) {
    OptimConfig planned = a.optim;
    planned.total_steps = a.steps;
    a.optim.warmup_steps = effective_warmup(planned);
  }
}

TrainArgs parse_train_args(const std::vector<std::string>& args) {
  BB_CHECK(!args.empty() && args[0] == "train", "internal: not a train command line");
  CLI::App app;
  TrainArgs t;
  add_train_options(&app, t);
  std::vector<std::string> rev(args.rbegin(), args.rend() - 1);  // CLI11 parses a reversed list
  app.parse(rev);
  apply_recipe(t, app);
  return t;
}

std::vector<std::string> to_args(const TrainArgs& a) {
  return flag_table::to_args(a, train_flags(), {"train"});
}

ojson train_settings(const TrainArgs& a, const std::string& corpus_sha256,
                     const std::string& tokenizer_sha256) {
  ojson settings{{"--corpus (sha256)", corpus_sha256}, {"--tokenizer (sha256)", tokenizer_sha256}};
  settings.update(flag_table::settings(a, train_flags()));
  return settings;
}

std::string resumable_flags() { return flag_table::resumable_flags(train_flags()); }

}  // namespace bb
