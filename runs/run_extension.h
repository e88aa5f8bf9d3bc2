// train --extend-to N: a constant or wsd run of --steps S continued to N steps. Up to the step its
// decay begins (wsd: S - decay; constant: S) the S-step run and an N-step run with the same
// warmup go through the same states, so the extension resumes from the last checkpoint at or
// before that step and is bit for bit the N-step run. The checkpoints (and probes) after it belong
// to the S-step schedule: they move to DIR/extended-from-S/, and run.json records the extension
// as a new segment ("segments": [{"steps": S, "from_step": 0}, {"steps": N, "from_step": K}]).
#pragma once
#include <cstdint>
#include <string>

#include "runs/train_flags.h"

namespace bb {

// Refuses an extension that cannot be honest, before any work: the linear schedule (its decay
// depends on the total), N <= --steps, or --extend-to without --resume.
void check_extension(const TrainArgs& a);
// With a.extend_to set: makes a's run directory the start of the N-step run (a no-op when
// run.json already plans N steps, i.e. an extension resumed), and sets a.steps = N. `settings`
// are a's train_settings for the S-step run, compared with run.json's first.
void extend_run(TrainArgs& a, const nlohmann::ordered_json& settings);

}  // namespace bb
