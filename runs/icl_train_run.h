// One ICL training run: an ICL model (icl/) trained from scratch on a synthetic task drawn on the
// fly, in a run directory with the properties of `train`'s (lock, run.json, atomic checkpoints,
// bit-exact resume, --extend-to, --keep-checkpoints, Ctrl-C saves and exits 130, progress with
// loss, rate and ETA). Its flags: icl/train_flags.h.
#pragma once
#include "icl/train_flags.h"

namespace bb {

// Trains (or resumes, or extends) the run in a.out; Ctrl-C saves a checkpoint and throws
// Interrupted. on_step, when given, replaces the progress line.
void run_icl_train(icl::TrainArgs a,
                   const std::function<void(const icl::StepLog&)>& on_step = {});

}  // namespace bb
