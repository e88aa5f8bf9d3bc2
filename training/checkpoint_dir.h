// A run's checkpoints, the same for every model kind: DIR/checkpoints/step-N/, each built aside
// under a temporary name (.step-N.tmp.PID) and renamed into place, so that a crash leaves the
// previous checkpoint intact; which of them a run keeps (--keep-checkpoints). What a step
// directory holds is the kind's (encoder/checkpoint.h, icl/trainer.h).
#pragma once
#include <cstdint>
#include <filesystem>
#include <functional>
#include <optional>
#include <vector>

namespace bb {

// The steps of DIR/checkpoints/step-N directories, ascending.
std::vector<int64_t> checkpoint_steps(const std::filesystem::path& dir);
// The step directory with the highest N, if any.
std::optional<std::filesystem::path> latest_checkpoint(const std::filesystem::path& dir);

// Writes DIR/checkpoints/step-N: removes the temporaries a crashed run left (in DIR and in
// DIR/checkpoints), calls fill(tmp) on an empty temporary directory, then renames it into place
// (replacing an older step-N). A fill that throws leaves no partial directory. Returns the step
// directory.
std::filesystem::path write_step_directory(
    const std::filesystem::path& dir, int64_t step,
    const std::function<void(const std::filesystem::path& tmp)>& fill);

// Which step checkpoints a run keeps (--keep-checkpoints): the `last` most recent (0: every one),
// every multiple of `every` (> 0: train's --probe-every models, to probe them again) and the steps
// in `also` (the checkpoint an extension resumes from: where a wsd decay begins).
struct CheckpointRetention {
  int64_t last = 3;
  int64_t every = 0;
  std::vector<int64_t> also;
};
// Of `steps` (ascending), those the retention drops, ascending.
std::vector<int64_t> checkpoints_to_prune(const std::vector<int64_t>& steps,
                                          const CheckpointRetention& keep);
// Removes what checkpoints_to_prune drops from DIR/checkpoints. Each step directory is first
// renamed to a temporary name (.step-N.tmp.PID) and then removed, so a crash midway never leaves
// a half-removed directory that looks like a checkpoint. Returns the steps removed.
std::vector<int64_t> prune_checkpoints(const std::filesystem::path& dir,
                                       const CheckpointRetention& keep);

}  // namespace bb
