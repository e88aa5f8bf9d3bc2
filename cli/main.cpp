// babyberta: train, probe and compare BabyBERTa-style encoders and GPT-2-style causal LMs (see
// README.md and docs/).
#include <fmt/core.h>

#include <cstdio>
#include <string>
#include <vector>

#include "backend/kernel_choice.h"
#include "cli/commands.h"
#include "cli/parse_errors.h"
#include "corpora/corpus.h"
#include "common/error.h"
#include "models/model_kind.h"
#include "common/stop_signals.h"
#include "encoder/trainer.h"
#include "parallel/mpi.h"
#include "runs/rank_jobs.h"
#include "runs/train_flags.h"
#include "runs/train_run.h"

namespace bb::cli {
// A job of experiment's on this rank (runs/rank_jobs.h): its arguments parsed as its command's
// and run here. A training job never spreads over the ranks (each rank trains its own run).
void run_job(const std::vector<std::string>& args) {
  BB_CHECK(!args.empty(), "internal: a job without a command");
  if (args[0] == "train") return run_train(parse_train_args(args));
  CLI::App app;
  app.require_subcommand(1);
  add_probe(app);
  add_tokenizer(app);
  add_icl(app);         // icl train and icl eval jobs of `icl experiment`
  add_saturation(app);  // and its saturation views
  std::vector<std::string> rev(args.rbegin(), args.rend());
  app.parse(rev);
}

// An error's one line (naming the rank in an MPI job) and its exit code; peers that may wait for
// this rank in a collective are stopped (MPI_Abort), since they would otherwise wait forever.
int report_error(const std::string& what, int code) {
  const bb::mpi::World& w = bb::mpi::world_so_far();
  if (w.rank > 0) fmt::print(stderr, "babyberta (rank {} of {}): {}\n", w.rank, w.size, what);
  else fmt::print(stderr, "babyberta: {}\n", what);
  std::fflush(stderr);
  bb::mpi::abort_peers(code);
  return code;
}
}  // namespace bb::cli

int main(int argc, char** argv) {
  bb::select_blas_core(argv);  // may re-execute this binary with OPENBLAS_CORETYPE set: first
  if (const std::string bad = bb::unsupported_blas_core(); !bad.empty())
    return bb::cli::report_error("error: " + bad, 1);  // else SIGILL at the first product
  const bb::mpi::FinalizeAtExit mpi_finalize;  // MPI starts later, only under mpirun or srun
  CLI::App app{
      "babyberta.cpp: BabyBERTa-style masked and GPT-2-style causal language models with a "
      "switchable attention function (" +
      bb::attention_function_names() + ")"};
  app.require_subcommand(1);
  app.get_formatter()->column_width(36);
  bb::cli::add_train(app);
  bb::cli::add_probe(app);
  bb::cli::add_score(app);
  bb::cli::add_perplexity(app);
  bb::cli::add_baseline(app);
  bb::cli::add_reference(app);
  bb::cli::add_compare(app);
  bb::cli::add_compare_perplexity(app);
  bb::cli::add_experiment(app);
  bb::cli::add_icl(app);
  bb::cli::add_tokenizer(app);
  bb::cli::add_encode(app);
  bb::cli::add_data(app);
  bb::cli::add_bench(app);
  bb::cli::add_info(app);
  bb::cli::add_attention(app);
  bb::cli::add_saturation(app);
  bb::cli::add_export(app);
  try {
    bb::receive_stop_signals();  // before any thread starts (see common/stop_signals.h)
    bb::set_job_runner(bb::cli::run_job);
    app.parse(argc, argv);
  } catch (const CLI::CallForHelp& e) {
    return app.exit(e);
  } catch (const CLI::CallForAllHelp& e) {
    return app.exit(e);
  } catch (const CLI::ParseError& e) {
    fmt::print(stderr, "babyberta: error: {}\n", bb::cli::describe_parse_error(app, e));
    return 2;
  } catch (const bb::UsageError& e) {  // the model is of another kind, the CPU lacks bf16, ...
    return bb::cli::report_error(std::string("error: ") + e.what(), 2);
  } catch (const bb::Interrupted& e) {
    return bb::cli::report_error(e.what(), 130);
  } catch (const std::bad_alloc&) {
    return bb::cli::report_error("error: out of memory (try a smaller --batch-size, --preset or "
                                 "--batch-tokens)", 1);
  } catch (const std::exception& e) {  // bb::Error and the rest
    return bb::cli::report_error(std::string("error: ") + e.what(), 1);
  }
  return 0;
}
