// babyberta: train, probe and compare BabyBERTa-style encoders (see README).
#include <fmt/core.h>

#include <csignal>

#include "cli/commands.h"
#include "common/error.h"
#include "encoder/trainer.h"

int main(int argc, char** argv) {
  CLI::App app{"babyberta.cpp: BabyBERTa-style masked language models with softmax or SSA attention"};
  app.require_subcommand(1);
  app.get_formatter()->column_width(36);
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
