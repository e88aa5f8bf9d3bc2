// babyberta: train, probe and compare BabyBERTa-style encoders (see README).
#include <fmt/core.h>

#include <csignal>

#include "cli/commands.h"
#include "corpora/corpus.h"
#include "common/error.h"
#include "encoder/trainer.h"

namespace bb::cli {
void warn_invalid_lines(const std::filesystem::path& corpus, const CorpusStats& stats) {
  if (stats.invalid_lines.empty()) return;
  std::string lines;
  for (size_t i = 0; i < stats.invalid_lines.size() && i < 20; ++i)
    lines += (i ? ", " : "") + std::to_string(stats.invalid_lines[i]);
  if (stats.invalid_lines.size() > 20) lines += ", ...";
  fmt::print(stderr, "babyberta: warning: {}: skipped {} lines that are not valid UTF-8 (lines {})\n",
             corpus.string(), stats.invalid_lines.size(), lines);
}
}  // namespace bb::cli

int main(int argc, char** argv) {
  CLI::App app{"babyberta.cpp: BabyBERTa-style masked language models with softmax or SSA attention"};
  app.require_subcommand(1);
  app.get_formatter()->column_width(36);
  bb::cli::add_train(app);
  bb::cli::add_probe(app);
  bb::cli::add_score(app);
  bb::cli::add_compare(app);
  bb::cli::add_experiment(app);
  bb::cli::add_tokenizer(app);
  bb::cli::add_encode(app);
  bb::cli::add_data(app);
  bb::cli::add_bench(app);
  bb::cli::add_info(app);
  std::signal(SIGINT, [](int) { bb::Trainer::stop_requested = true; });
  try {
    app.parse(argc, argv);
  } catch (const CLI::ParseError& e) {
    return app.exit(e);
  } catch (const bb::Error& e) {
    fmt::print(stderr, "babyberta: error: {}\n", e.what());
    return 1;
  } catch (const std::exception& e) {
    fmt::print(stderr, "babyberta: error: {}\n", e.what());
    return 1;
  }
  return 0;
}
