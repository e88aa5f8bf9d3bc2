// One training run: tokenizer (trained if the output has none), corpus, batches, model, loop,
// in its run directory (`train`; `experiment` runs it per attention function and seed).
#pragma once
#include <nlohmann/json.hpp>

#include <functional>

#include "encoder/trainer.h"
#include "runs/train_flags.h"

namespace bb {

// Fails unless the schedule's flags fit: wsd needs --decay-steps, within --steps minus the warmup.
void check_schedule(const TrainArgs& a);
// `a` as the run whose run.json recorded `saved` was made: a run from before --dev-seed keeps its
// dev split drawn from the training seed (unless --dev-seed was given, which then differs).
void keep_recorded_dev_split(TrainArgs& a, const nlohmann::ordered_json& saved);
// Trains one model; `parallel` spreads every batch over data-parallel ranks (mpirun, see
// mpi_data_parallel), rank 0 writing the run directory. `on_step` (rank 0, after each update's
// metrics, on the calling thread): replaces the progress line; setting Trainer::stop_requested
// there stops the run with a checkpoint (Interrupted), as a stop signal does.
void run_train(TrainArgs a, const DataParallel& parallel = {},
               const std::function<void(const StepLog&)>& on_step = {});
// This MPI job's ranks as data-parallel trainers (one rank, i.e. none, without mpirun/srun).
DataParallel mpi_data_parallel();

}  // namespace bb
