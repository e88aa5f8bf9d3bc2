// Flags that more than one command or file names (as options, in run.json's settings, in a child
// process's command line, in messages): each spelled once, here. A flag that one file alone names
// is spelled where it is declared.
#pragma once

namespace bb::flag_name {

inline constexpr const char* attention = "--attention";
inline constexpr const char* batch_size = "--batch-size";
inline constexpr const char* bucket_batches = "--bucket-batches";
inline constexpr const char* corpus = "--corpus";
inline constexpr const char* cuda_graphs = "--cuda-graphs";
inline constexpr const char* dev_fraction = "--dev-fraction";
inline constexpr const char* dev_seed = "--dev-seed";
inline constexpr const char* device = "--device";
inline constexpr const char* extend_to = "--extend-to";
inline constexpr const char* hf_masking = "--hf-masking";
inline constexpr const char* keep_case = "--keep-case";
inline constexpr const char* keep_checkpoints = "--keep-checkpoints";
inline constexpr const char* lr = "--lr";
inline constexpr const char* mask_patterns = "--mask-patterns";
inline constexpr const char* mask_prob = "--mask-prob";
inline constexpr const char* out = "--out";
inline constexpr const char* points_every = "--points-every";
inline constexpr const char* precision = "--precision";
inline constexpr const char* preset = "--preset";
inline constexpr const char* probe_suite = "--probe-suite";
inline constexpr const char* recipe = "--recipe";
inline constexpr const char* resume = "--resume";
inline constexpr const char* seed = "--seed";
inline constexpr const char* sigma_fn = "--sigma-fn";
inline constexpr const char* ssa_lr_mult = "--ssa-lr-mult";
inline constexpr const char* steps = "--steps";
inline constexpr const char* strict = "--strict";
inline constexpr const char* threads = "--threads";
inline constexpr const char* tokenizer = "--tokenizer";
inline constexpr const char* vocab_size = "--vocab-size";

}  // namespace bb::flag_name
