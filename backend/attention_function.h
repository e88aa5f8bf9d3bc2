// The attention functions: what turns a row of attention scores s into attention weights P
// (backend/ops.h, attention_function_forward). kAttentionFunctionTable has one row per function:
// its name (--attention, config.json's attention_scoring, labels), --help text, family, logit
// transform, whether it scores ReLU features, and its trainable per-head values.
//
// Adding a row-kernel function (four files): its enum value and table row here; its CPU kernel,
// backend/cpu/attention_functions/NAME.h (a RowKernel<F> specialisation); its CUDA kernel,
// backend/cuda/attention_functions/NAME.cuh (a RowMath<F> specialisation); its literal test.
// CMake finds the two kernel files by glob and both backends dispatch over every enum value, so a
// function without its kernel fails to compile (RowKernel<F> / RowMath<F> is incomplete). The
// softmax family dispatches on LogitTransform, by switches without `default` (built with
// -Werror=switch). Formulas and references: docs/internals.md ("Attention functions").
#pragma once
#include <array>
#include <cstddef>
#include <string>
#include <string_view>

namespace bb {

enum class AttentionFunction {
  softmax,     // P_j = exp(s_j) / sum_k exp(s_k)
  ssa,         // scaled signed averaging: P_j = f(s_j) / sum_k f(s_k), f(x) = (1+b|x|)^(sign(x) n)
  softmax_t,   // softmax(s / tau), tau > 0 trainable per head
  sparsemax,   // P = [s - tau]_+ with tau such that sum P = 1 (Martins & Astudillo 2016)
  entmax15,    // P = [z - tau]_+^2, z = s/2, sum P = 1 (1.5-entmax, Peters et al. 2019)
  sa_softmax,  // softmax(s)_j (s_j - lo) / (hi - lo + 1e-6); rows do not sum to 1 (Zheng et al.
               // 2025)
  cosformer,   // s = relu(q) relu(k)^T (no 1/sqrt(d)), P_ij = s_ij c_ij / max(sum_j s_ij c_ij,
               // 1e-6), c_ij = cos(pi (i - j) / (2M)), M the sequence length (Qin et al. 2022)
};
inline constexpr size_t kAttentionFunctionCount = 7;

// How the weights of a row are computed.
enum class AttentionFamily {
  softmax_of_transform,  // P = softmax(t(s)), t elementwise: block-wise on the CPU, one warp a row
  row,                   // a row kernel of its own
};

// The softmax family's t(s) (the ops' v0, v1 are the function's trainable values); a row-kernel
// function has none.
enum class LogitTransform {
  none,         // family row
  identity,     // t = s
  ssa_power,    // t = sign(s) n log1p(b|s|), v0 = b, v1 = n
  temperature,  // t = s / tau, v0 = tau
};

// How a trainable value is stored: raw, made effective by ops::head_values_effective, which maps
// slot 0 by exp and slot 1 by 1 + exp (checked below for every row).
enum class RawMap {
  exp,           // v = e^raw > 0
  one_plus_exp,  // v = 1 + e^raw > 1
};

// A trainable value per head (the ops' v0, v1): how it is named, stored, bounded and set.
struct HeadValueSpec {
  std::string_view name;     // in labels and `info`: b, n, τ
  std::string_view ascii_name;  // the same in ASCII (variant keys, run names): b, n, tau
  std::string_view meaning;  // one phrase for reports
  RawMap map;
  double init;               // default initial (effective) value
  double lo, hi;             // an initial value lies in (lo, hi] when lo_open, else in [lo, hi]
  bool lo_open;
  std::string_view init_flag, init_help;      // train's flag for the initial value
  std::string_view freeze_flag, freeze_help;  // train's flag that keeps it fixed
  std::string_view config_init, config_freeze;  // their config.json keys
  // Its tensors' names inside a layer: the raw value (checkpoints) and the effective value
  // (model.safetensors), shape [heads].
  std::string_view raw_tensor, effective_tensor;
  // run.json fingerprints it for runs of every function (SSA's: they predate the other
  // functions, and changing that would change old runs' fingerprints); else only for its own.
  bool in_every_run;
  bool ssa_lr_mult = false;  // its learning rate is scaled by --ssa-lr-mult (SSA's b and n)
};

struct AttentionFunctionSpec {
  AttentionFunction function;
  std::string_view name;  // --attention, config.json's attention_scoring
  std::string_view help;  // a phrase for --help
  AttentionFamily family;
  LogitTransform transform;  // none exactly when family is row (checked below)
  bool relu_features;  // scores relu(q) relu(k)^T without 1/sqrt(d) (else q k^T / sqrt(d))
  int value_count;     // trainable values per head: values[0 .. value_count)
  std::array<HeadValueSpec, 2> values;
  // What `saturation`'s report says of how it magnifies this function ("" for nothing).
  std::string_view saturation_note = {};
};

inline constexpr HeadValueSpec kNoValue{"", "", "", RawMap::exp, 0, 0, 0, false, "", "", "", "",
                                         "", "", "", "", false};

using AttentionFunctionTable = std::array<AttentionFunctionSpec, kAttentionFunctionCount>;

// clang-format off
inline constexpr AttentionFunctionTable kAttentionFunctionTable{{
    {AttentionFunction::softmax, "softmax", "exp(s) normalised",
     AttentionFamily::softmax_of_transform, LogitTransform::identity, false, 0, {kNoValue, kNoValue}},
    {AttentionFunction::ssa, "ssa", "scaled signed averaging, (1 + b|s|)^(sign(s) n) normalised",
     AttentionFamily::softmax_of_transform, LogitTransform::ssa_power, false, 2,
     {{{"b", "b", "SSA's scale b > 0", RawMap::exp, 1.0, 0, 1000, true,
        "--ssa-b-init", "SSA: initial b", "--ssa-freeze-b", "SSA: keep b fixed",
        "ssa_b_init", "ssa_freeze_b", "attention.self.ssa_beta", "attention.self.ssa_b", true, true},
       {"n", "n", "SSA's exponent n > 1", RawMap::one_plus_exp, 1.5, 1, 100, true,
        "--ssa-n-init", "SSA: initial n", "--ssa-freeze-n", "SSA: keep n fixed (SSA-1.5, SSA-2)",
        "ssa_n_init", "ssa_freeze_n", "attention.self.ssa_nu", "attention.self.ssa_n", true, true}}}},
    {AttentionFunction::softmax_t, "softmax-t", "softmax(s / τ), τ trainable per head",
     AttentionFamily::softmax_of_transform, LogitTransform::temperature, false, 1,
     {{{"τ", "tau", "the temperature τ > 0", RawMap::exp, 1.0, 1e-3, 1e3, false,
        "--temperature", "softmax-t: initial temperature tau (softmax(s / tau), tau trainable per "
        "head)", "--freeze-temperature", "softmax-t: keep tau fixed",
        "softmax_t_temperature_init", "softmax_t_freeze_temperature",
        "attention.self.log_temperature", "attention.self.temperature", false},
       kNoValue}}},
    {AttentionFunction::sparsemax, "sparsemax", "Euclidean projection onto the simplex",
     AttentionFamily::row, LogitTransform::none, false, 0, {kNoValue, kNoValue}},
    {AttentionFunction::entmax15, "entmax15", "1.5-entmax", AttentionFamily::row,
     LogitTransform::none, false, 0, {kNoValue, kNoValue}},
    {AttentionFunction::sa_softmax, "sa-softmax", "self-adjusting softmax (rows do not sum to 1)",
     AttentionFamily::row, LogitTransform::none, false, 0, {kNoValue, kNoValue},
     "sa-softmax: measures on each row renormalised to 1; `row sum` is the raw sum."},
    {AttentionFunction::cosformer, "cosformer", "cosine-reweighted ReLU features (linear)",
     AttentionFamily::row, LogitTransform::none, true, 0, {kNoValue, kNoValue},
     "cosFormer: q and k magnified by λ (its scores by λ²), which leaves its weights unchanged; "
     "the boost is added to its ReLU-feature score."},
}};
// clang-format on

// Every row is in enum order, so a function's row is kAttentionFunctionTable[size_t(f)].
constexpr bool table_in_enum_order() {
  for (size_t i = 0; i < kAttentionFunctionTable.size(); ++i)
    if (size_t(kAttentionFunctionTable[i].function) != i) return false;
  return true;
}
static_assert(table_in_enum_order(), "kAttentionFunctionTable: a row per function, in enum order");

// A row kernel has no logit transform and every softmax-family function has one.
constexpr bool transforms_match_families() {
  for (const AttentionFunctionSpec& f : kAttentionFunctionTable)
    if ((f.family == AttentionFamily::row) != (f.transform == LogitTransform::none)) return false;
  return true;
}
static_assert(transforms_match_families(), "a row's family and logit transform disagree");

// ops::head_values_effective maps slot 0 by exp and slot 1 by 1 + exp.
constexpr bool raw_maps_match_the_op() {
  for (const AttentionFunctionSpec& f : kAttentionFunctionTable)
    for (int slot = 0; slot < f.value_count; ++slot)
      if (f.values[size_t(slot)].map != (slot == 0 ? RawMap::exp : RawMap::one_plus_exp))
        return false;
  return true;
}
static_assert(raw_maps_match_the_op(), "a trainable value's raw map differs from its slot's op");

constexpr const AttentionFunctionSpec& attention_function_spec(AttentionFunction f) {
  return kAttentionFunctionTable[size_t(f)];
}

// An initial value and whether it stays fixed, per function and slot (train's flags, Config).
struct HeadValueSetting {
  double init = 0;
  bool freeze = false;
};
using HeadValueSettings = std::array<std::array<HeadValueSetting, 2>, kAttentionFunctionCount>;
// Every value at its table default, none frozen.
constexpr HeadValueSettings default_head_value_settings() {
  HeadValueSettings s{};
  for (size_t f = 0; f < s.size(); ++f)
    for (size_t slot = 0; slot < 2; ++slot)
      s[f][slot].init = kAttentionFunctionTable[f].values[slot].init;
  return s;
}

// The label of `f` with these values (Config::label of either model): "ssa", "ssa(n=2 frozen)",
// "softmax-t(τ=2 frozen)": the function's name, and each value that is not its default or frozen.
std::string attention_variant_label(AttentionFunction f, const HeadValueSettings& s);

// Every function's initial values within their table bounds; else a one-line error
// "<where>: <config_init key> must be > lo and <= hi, got x".
void validate_head_values(const HeadValueSettings& s, const std::string& where);

// Every function in table order (tests loop over it).
using AttentionFunctionList = std::array<AttentionFunction, kAttentionFunctionCount>;
inline constexpr AttentionFunctionList kAllAttentionFunctions = [] {
  AttentionFunctionList all{};
  for (size_t i = 0; i < all.size(); ++i) all[i] = kAttentionFunctionTable[i].function;
  return all;
}();

// How many trainable values per head a function has: the ops' v0, v1 (effective values).
constexpr int head_value_count(AttentionFunction f) {
  return attention_function_spec(f).value_count;
}
constexpr bool scores_relu_features(AttentionFunction f) {
  return attention_function_spec(f).relu_features;
}

std::string attention_function_name(AttentionFunction f);
// The function named `s`; else a one-line error listing the names.
AttentionFunction parse_attention_function(const std::string& s);
std::string attention_function_names();  // "softmax, ssa, ..., cosformer" (messages, --help)
// --help of every --attention option: each name with its phrase.
std::string attention_function_help();

}  // namespace bb
