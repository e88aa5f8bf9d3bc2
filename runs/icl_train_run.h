// One ICL training run: an ICL model (icl/) trained from scratch on a synthetic task drawn on the
// fly, in a run directory with the properties of `train`'s (lock, run.json, atomic checkpoints,
// bit-exact resume, Ctrl-C saves and exits 130, progress with loss, rate and ETA).
#pragma once
#include <string>

#include "backend/attention_function.h"
#include "icl/trainer.h"

namespace bb {

struct IclTrainArgs {
  std::string task = "every", preset = "icl-tiny", arch = "full",
              attention = attention_function_name(AttentionFunction::softmax);
  std::string out, device = "cpu";
  icl::TrainSettings s;
  int dims = 1, threads = 1;
  HeadValueSettings head_values = default_head_value_settings();
  bool quiet = false;
};

// Trains (or resumes) the run in a.out; Ctrl-C saves a checkpoint and throws Interrupted.
void run_icl_train(IclTrainArgs a);

}  // namespace bb
