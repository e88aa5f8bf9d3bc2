// babyberta tokenizer train --corpus F --vocab-size 8192 --out DIR
#include <fmt/core.h>

#include <chrono>

#include "cli/commands.h"
#include "cli/out_option.h"
#include "backend/threads.h"
#include "common/flag_names.h"
#include "training/flag_ranges.h"
#include "corpora/corpus.h"

namespace bb::cli {

void add_tokenizer(CLI::App& app) {
  auto* group = app.add_subcommand("tokenizer", "Tokenizer commands");
  group->require_subcommand(1);
  auto* cmd = group->add_subcommand("train", "Train a SentencePiece tokenizer on a corpus");
  struct Args {
    std::string corpus, out;
    TokenizerTrainOptions opt;
    CorpusOptions corpus_opt;
    bool keep_case = false;
  };
  auto a = std::make_shared<Args>();
  cmd->add_option(flag_name::corpus, a->corpus, "One utterance per line (UTF-8)")->required();
  add_out_option(cmd, a->out, "Output directory (tokenizer.model, tokenizer.json)")
      ->required();
  cmd->add_option(flag_name::vocab_size, a->opt.vocab_size,
                  "Vocabulary size incl. specials (the corpus sets its minimum: 5 specials, 256 "
                  "byte pieces and its distinct characters)")
      ->check(count_in(1, 1000000))
      ->capture_default_str();
  cmd->add_option("--model-type", a->opt.model_type, "bpe or unigram")->capture_default_str();
  cmd->add_flag(flag_name::keep_case, a->keep_case, "Do not lower-case (default: lower-case)");
  cmd->add_flag(flag_name::strict, a->corpus_opt.strict, "Invalid UTF-8 is an error, not a warning");
  cmd->add_option(flag_name::threads, a->opt.threads, "Threads")
      ->transform(thread_count())
      ->capture_default_str();
  cmd->callback([a] {
    set_threads(a->opt.threads);
    a->opt.normalization.lowercase = !a->keep_case;
    a->corpus_opt.min_words = 1;  // the tokenizer sees every usable line
    a->opt.source = a->corpus;
    const auto t0 = std::chrono::steady_clock::now();
    CorpusStats stats;
    const auto lines = read_corpus_lines(a->corpus, a->corpus_opt,
                                         Normalizer(a->opt.normalization), stats);
    warn_invalid_lines(a->corpus, stats);
    Tokenizer::train(lines, a->opt, a->out);
    const double s = std::chrono::duration<double>(std::chrono::steady_clock::now() - t0).count();
    const Tokenizer tok = Tokenizer::load(a->out);
    fmt::print("trained {} tokenizer, vocab {}, on {} lines in {:.1f} s -> {}/tokenizer.model "
               "({})\n",
               a->opt.model_type, tok.vocab_size(), lines.size(), s, a->out, tok.fingerprint());
  });
}

}  // namespace bb::cli
