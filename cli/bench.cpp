// babyberta bench: one JSON line per run.
//   train      training throughput on synthetic AO-CHILDES-length batches (tokens_per_s counts
//              non-pad tokens; gflops counts the model's useful FLOPs)
//   score      scoring throughput on Zorro-length sentences with a random model
//   gemm       GFLOP/s of a square sgemm (the build's and OpenBLAS's; peak_gflops: the better) and
//              of a preset layer's projections (as trained, frozen); --device cuda: cuBLAS
//              (bench_gemm.cpp)
//   tokenizer  seconds to train a tokenizer on a corpus and to encode it
// train and score report the median over --repeat windows of --seconds each (after a warm-up)
// and every window's value; gemm reports the best of 3 windows.
#include <fmt/core.h>
#include <nlohmann/json.hpp>

#include <unistd.h>

#include <algorithm>
#include <chrono>
#include <filesystem>
#include <functional>
#include <map>

#include "backend/kernel_choice.h"
#include "backend/frozen_linear.h"
#include "backend/ops.h"
#include "backend/precision.h"
#include "cli/commands.h"
#include "cli/compute_options.h"
#include "common/flag_names.h"
#include "runs/train_run.h"
#include "cli/bench_gemm.h"
#include "cli/bench_icl.h"
#include "cli/bench_windows.h"
#include "training/flag_ranges.h"
#include "common/buffer.h"
#include "backend/threads.h"
#include "common/error.h"
#include "corpora/corpus.h"
#include "corpora/next_token_rows.h"
#include "corpora/synthetic.h"
#include "encoder/config_keys.h"
#include "probing/scorer.h"
#include "encoder/trainer.h"
#include "icl/config.h"

namespace bb::cli {

namespace {

// Training FLOPs of one batch: 3x the forward's matrix products (forward + two backward GEMMs).
// roberta: the last layer after its attention and the head at the scored (masked) rows only.
double roberta_train_flops(const Config& c, const Batch& b) {
  const double C = c.hidden, F = c.ffn, V = c.vocab_size, N = b.num_tokens(), M = b.num_rows();
  double att = 0;
  for (int s = 0; s < b.num_seqs(); ++s) {
    const double L = b.offsets[s + 1] - b.offsets[s];
    att += 4.0 * L * L * C;  // q k^T and P v
  }
  const double per_layer = 2.0 * N * (4 * C * C + 2 * C * F) + att;
  // The last layer runs its output projection and FFN at the M scored rows only.
  const double last_layer = 2.0 * N * 3 * C * C + att + 2.0 * M * (C * C + 2 * C * F);
  const double head = 2.0 * M * (C * C + C * V);
  return 3.0 * ((c.layers - 1) * per_layer + last_layer + head);
}

// gpt2: every layer at every row, the tied head at every scored row (all but each sequence's last).
double gpt2_train_flops(const Config& c, const Batch& b) {
  const double C = c.hidden, F = c.ffn, V = c.vocab_size, N = b.num_tokens(), M = b.num_rows();
  double att = 0;
  for (int s = 0; s < b.num_seqs(); ++s) {
    const double L = b.offsets[s + 1] - b.offsets[s];
    att += 4.0 * L * L * C;  // the full products (the causal half is not counted out)
  }
  return 3.0 * (c.layers * (2.0 * N * (4 * C * C + 2 * C * F) + att) + 2.0 * M * C * V);
}

double train_flops(const Config& c, const Batch& b) {
  switch (c.kind) {
    case ModelKind::roberta: return roberta_train_flops(c, b);
    case ModelKind::gpt2: return gpt2_train_flops(c, b);
    case ModelKind::icl_gpt2: break;
  }
  fail("internal: no text-model FLOP count for the ICL kind");
}

// The batch of a kind from a synthetic masked batch: gpt2 takes the utterances unmasked, every
// next token scored.
void as_kind(const Config& c, Batch& b) {
  if (c.kind != ModelKind::gpt2) return;
  for (int m = 0; m < b.num_rows(); ++m) b.ids[size_t(b.rows[size_t(m)])] = b.labels[size_t(m)];
  set_next_token_rows(b);
}

struct BenchArgs {
  std::string what, preset = "babyberta",
              attention = attention_function_name(AttentionFunction::softmax), corpus;
  int vocab_size = 8192;
  std::string method;  // bench score: empty, the kind's default
  int threads = 1, batch = 16, batch_tokens = 0;
  double seconds = 10;
  int repeat = 1;
  std::string device = "cpu", kind = "roberta", arch = "full", precision = "fp32";
  bool tf32 = false, cuda_graphs = true, batch_given = false;
};

// Every preset name: the text models' and the ICL model's (--kind picks which applies).
std::vector<std::string> all_preset_names() {
  std::vector<std::string> names = preset_names(ModelKind::gpt2);
  for (const std::string& n : icl::preset_names()) names.push_back(n);
  return names;
}

// The text-model kind --kind names ("encoder" is roberta's other name).
ModelKind text_kind(const BenchArgs& a) {
  return parse_text_kind(a.kind == "encoder" ? "roberta" : a.kind);
}

// The device for this bench, checked before any work; TF32 only when asked for.
Device bench_device(const BenchArgs& a) {
  const Device d = usable_device(a.device);
  if (a.tf32) set_cuda_tf32(true);
  return d;
}

// Under mpirun: data parallelism over the ranks (tokens/s of the global batch, printed by rank 0).
void bench_train(const BenchArgs& a) {
  set_threads(a.threads);
  const Device device = bench_device(a);
  const DataParallel dp = mpi_data_parallel();
  BB_CHECK(a.batch >= dp.ranks, "--batch {} is smaller than the {} data-parallel ranks", a.batch,
           dp.ranks);
  Config c = preset(a.preset, text_kind(a));
  c.attention = parse_attention_function(a.attention);
  const MaskingOptions masking{.vocab_size = c.vocab_size};
  const int pool = 64;  // batches made before timing starts
  std::vector<Batch> batches(pool);
  int max_tokens = 0, max_rows = 0;
  for (int i = 0; i < pool; ++i) {
    synthetic_batch(7, i, a.batch, masking, c.max_tokens(), batches[i]);
    as_kind(c, batches[i]);
    max_tokens = std::max(max_tokens, batches[i].num_tokens());
    max_rows = std::max(max_rows, batches[i].num_rows());
  }
  const Capacity cap{a.batch, max_tokens, c.max_tokens(), max_rows};
  TrainOptions opts;
  opts.steps = int64_t(1) << 40;
  opts.optim.warmup_steps = 10;
  opts.device = device;
  opts.precision = parse_precision(a.precision);
  opts.cuda_graphs = a.cuda_graphs;
  opts.parallel = dp;
  Trainer trainer(c, cap, opts, [&](uint64_t, int64_t step, Batch& out) {
    out = batches[step % pool];  // copy into capacity the batch already holds
  });
  const std::vector<Window> windows = timed_windows(
      a.repeat, a.seconds,
      [&] {  // first touches of every buffer, and every batch shape's kernels (bf16: oneDNN
             // compiles one per shape, ~1 ms each, once) before timing
        for (int i = 0; i < pool; ++i) trainer.run_steps(1, {});
      },
      [&](std::map<std::string, double>& n) {
        trainer.run_steps(1, [&](const StepLog& s) {
          n["tokens"] += double(s.tokens);
          n["flops"] += train_flops(c, batches[(s.step - 1) % pool]);
          n["steps"] += 1;
        });
      },
      [&](bool done) {  // rank 0's clock decides for every rank
        if (dp.ranks == 1) return done;
        double v = dp.rank == 0 && done ? 1.0 : 0.0;
        dp.sum_doubles(&v, 1);
        return v > 0;
      });
  if (dp.rank != 0) return;
  std::vector<std::map<std::string, double>> rates;
  for (const Window& w : windows)
    rates.push_back({{"tokens_per_s", w.counts.at("tokens") / w.seconds},
                     {"steps_per_s", w.counts.at("steps") / w.seconds},
                     {"gflops", w.counts.at("flops") / w.seconds * 1e-9}});
  double len = 0;
  for (const Batch& b : batches) len += double(b.num_tokens()) / b.num_seqs();
  nlohmann::json out{{"bench", "train"},
                     {"kind", config_keys(c.kind).model_type},
                     {"preset", a.preset},
                     {"attention", a.attention},
                     {"device", device_label(device)},
                     {"tf32", a.tf32},
                     {"precision", a.precision},
                     {"bf16_kernel", a.precision == "bf16" ? bf16_kernel() : ""},
                     {"cuda_graphs", trainer.captured_graphs()},
                     {"threads", a.threads},
                     {"ranks", dp.ranks},
                     {"blas", blas_provenance()},
                     {"batch", a.batch},
                     {"repeat", a.repeat},
                     {"steps", int64_t(total(windows, "steps"))},
                     {"seconds", total(windows, "seconds")},
                     {"mean_len", len / pool}};
  out.update(median_rates(rates));
  fmt::print("{}\n", out.dump());
}

// Tokenizer training on a corpus and encoding all of it (normalise + SentencePiece), timed apart.
void bench_tokenizer(const BenchArgs& a) {
  BB_CHECK(!a.corpus.empty(), "bench tokenizer needs --corpus");
  set_threads(a.threads);
  using clock = std::chrono::steady_clock;
  const auto tmp = std::filesystem::temp_directory_path() /
                   ("bb-bench-tok-" + std::to_string(::getpid()));
  const TokenizerTrainOptions opt{.vocab_size = a.vocab_size, .threads = a.threads};
  auto t0 = clock::now();
  CorpusStats stats;
  const auto lines = read_corpus_lines(a.corpus, {.min_words = 1}, Normalizer(opt.normalization),
                                       stats);
  Tokenizer::train(lines, opt, tmp);
  const double train_s = std::chrono::duration<double>(clock::now() - t0).count();
  const Tokenizer tok = Tokenizer::load(tmp);
  t0 = clock::now();
  const TokenizedCorpus c = load_tokenized_corpus(a.corpus, tok, {});  // no cache: the full work
  const double encode_s = std::chrono::duration<double>(clock::now() - t0).count();
  std::filesystem::remove_all(tmp);
  const nlohmann::json out{{"bench", "tokenizer"}, {"corpus", a.corpus},
                           {"vocab_size", a.vocab_size}, {"threads", a.threads},
                           {"train_s", train_s}, {"encode_s", encode_s},
                           {"lines", c.stats.lines}, {"kept", c.stats.kept},
                           {"tokens", c.ids.size()}};
  fmt::print("{}\n", out.dump());
}

// Scoring throughput on Zorro-like sentences (7 to 14 tokens incl. <s>, </s>, mean 10.5,
// as Zorro's 2,000-pair paradigms average 6 to 11 words plus punctuation) with a random model.
void bench_score(const BenchArgs& a) {
  set_threads(a.threads);
  const Device device = bench_device(a);
  if (a.kind == "icl") usage_fail("bench score: --kind icl has no sentence scoring (give --kind "
                                  "roberta or gpt2; the ICL model: bench train --kind icl)");
  const ModelKind kind = text_kind(a);
  if (a.preset.rfind("icl-", 0) == 0)
    usage_fail("bench score: --preset {} is an ICL preset; give a text-model preset", a.preset);
  Config c = preset(a.preset, kind);
  c.attention = parse_attention_function(a.attention);
  const Method m = method_for(a.method, kind, "bench score");  // "": the kind's default
  Scorer scorer(c, 1, a.batch_tokens, device);
  scorer.set_precision(parse_precision(a.precision));
  std::vector<std::vector<int32_t>> sents;
  const Philox rng{mix64(5)};
  for (int i = 0; i < 2000; ++i) {
    uint32_t w[4];
    rng.block(0, uint64_t(i), w);
    std::vector<int32_t> ids = {3};
    const int L = 7 + int(w[0] % 8);
    for (int t = 1; t < L - 1; ++t) ids.push_back(5 + int((w[1] + 7919u * t) % uint32_t(c.vocab_size - 5)));
    ids.push_back(4);
    sents.push_back(ids);
  }
  const std::vector<Window> windows = timed_windows(
      a.repeat, a.seconds, [&] { scorer.score_ids(sents, m); },  // every batch shape once
      [&](std::map<std::string, double>& n) {
        const auto out = scorer.score_ids(sents, m);
        n["sentences"] += double(out.size());
        for (const auto& s : out) n["tokens"] += double(s.ids.size());
      });
  std::vector<std::map<std::string, double>> rates;
  for (const Window& w : windows)
    rates.push_back({{"sentences_per_s", w.counts.at("sentences") / w.seconds},
                     {"tokens_per_s", w.counts.at("tokens") / w.seconds}});
  const int64_t total_n = int64_t(total(windows, "sentences"));
  nlohmann::json out{{"bench", "score"}, {"kind", config_keys(kind).model_type},
                     {"method", method_name(m)}, {"preset", a.preset},
                     {"attention", a.attention}, {"device", device_label(device)},
                     {"tf32", a.tf32}, {"threads", a.threads},
                     {"precision", a.precision},
                     {"bf16_kernel", a.precision == "bf16" ? bf16_kernel() : ""},
                     {"batch_tokens", scorer.batch_tokens()},
                     {"blas", blas_provenance()},
                     {"cpu_linear", ops::frozen_linear_backend()}, {"repeat", a.repeat},
                     {"sentences", total_n}, {"seconds", total(windows, "seconds")},
                     {"mean_len", total(windows, "tokens") / double(total_n)}};
  out.update(median_rates(rates));
  fmt::print("{}\n", out.dump());
}

}  // namespace

void add_bench(CLI::App& app) {
  auto* cmd = app.add_subcommand("bench", "Measure throughput (prints one JSON line)");
  auto a = std::make_shared<BenchArgs>();
  cmd->add_option("what", a->what,
                  "What to measure: train | score | gemm (the machine's sgemm peak) | tokenizer")
      ->required()
      ->check(CLI::IsMember({"train", "score", "gemm", "tokenizer"}));
  cmd->add_option(flag_name::preset, a->preset, "Model preset: babyberta, small, tiny (--kind icl: "
                  "icl-tiny, icl-small, icl-standard)")
      ->check(one_of("preset", all_preset_names()))
      ->capture_default_str();
  cmd->add_option("--kind", a->kind, "train and score: roberta (masked LM; also: encoder) or gpt2 "
                  "(causal LM); train only: icl (a causal ICL model at 41 points, batch 64 unless "
                  "--batch)")
      ->check(one_of("model kind", {"roberta", "encoder", "gpt2", "icl"}))
      ->capture_default_str();
  cmd->add_option("--arch", a->arch, "--kind icl: full, attention-only, attention-only-residual")
      ->check(one_of("architecture", icl::arch_names()))
      ->capture_default_str();
  cmd->add_option(flag_name::attention, a->attention, attention_function_help())
      ->check(one_of("attention function", attention_function_name_list()))
      ->capture_default_str();
  add_threads_option(cmd, a->threads);
  cmd->add_option(flag_name::device, a->device, "cpu or cuda (train, score, gemm)")->capture_default_str();
  cmd->add_option("--batch-tokens", a->batch_tokens,
                  "Tokens per scoring batch (score; 0: the device's default, CPU 512, CUDA 8192)")
      ->check(count_in(0, 16777216))
      ->capture_default_str();
  cmd->add_flag("--tf32", a->tf32, "CUDA: TF32 tensor-core GEMMs (default: exact fp32)");
  cmd->add_option(flag_name::precision, a->precision,
                  "train, score, gemm: fp32, or bf16 (bf16 products with fp32 accumulation)")
      ->check(one_of("precision", {"fp32", "bf16"}))
      ->capture_default_str();
  cmd->add_option(flag_name::cuda_graphs, a->cuda_graphs,
                  "CUDA (train): replay captured steps as CUDA graphs (on/off)")
      ->capture_default_str();
  cmd->add_option("--batch", a->batch, "Utterances per batch (--kind icl: sequences, default 64)")
      ->check(count_in(1, 4096))
      ->each([a](const std::string&) { a->batch_given = true; })
      ->capture_default_str();
  cmd->add_option("--seconds", a->seconds, "Measured time after warm-up (per window)")
      ->check(in_range(0, 100000, true))
      ->capture_default_str();
  cmd->add_option("--repeat", a->repeat,
                  "Measured windows (train, score): rates are their median, *_windows lists each")
      ->capture_default_str()
      ->check(count_in(1, 1000));
  cmd->add_option(flag_name::corpus, a->corpus, "Corpus for bench tokenizer");
  cmd->add_option("--method", a->method, "Scoring method for bench score (default: the kind's, "
                  "roberta holistic, gpt2 causal)")
      ->check(one_of("scoring method", method_names()));
  cmd->add_option(flag_name::vocab_size, a->vocab_size, "Vocabulary for bench tokenizer")
      ->check(count_in(16, 1000000))
      ->capture_default_str();
  cmd->callback([a, cmd] {
    if (a->kind == "icl" && cmd->count(flag_name::preset) == 0) a->preset = "icl-tiny";
    if (a->what == "gemm")
      return bench_gemm({.preset = a->preset, .threads = a->threads, .seconds = a->seconds,
                         .device = bench_device(*a), .precision = parse_precision(a->precision)});
    if (a->what == "tokenizer") return bench_tokenizer(*a);
    if (a->what == "score") return bench_score(*a);
    const bool icl_preset = a->preset.rfind("icl-", 0) == 0;
    BB_CHECK(icl_preset == (a->kind == "icl"), "--preset {} is {}; give --kind {}", a->preset,
             icl_preset ? "an ICL preset" : "a text-model preset",
             icl_preset ? "icl" : "roberta or gpt2");
    if (a->kind == "icl") {
      IclBenchSettings s;
      s.preset = a->preset, s.attention = a->attention, s.arch = a->arch;
      s.threads = a->threads, s.batch = a->batch_given ? a->batch : 64;
      s.repeat = a->repeat, s.seconds = a->seconds;
      s.device = bench_device(*a);
      s.device_label = device_label(s.device);
      return bench_train_icl(s);
    }
    bench_train(*a);
  });
}

}  // namespace bb::cli
