// The process's one stop request (Ctrl-C, SIGTERM: common/stop_signals.h sets it), read by every
// kind's trainer, experiment's job schedulers and the Python module: the trainer saves a
// checkpoint and returns; the command exits 130.
#pragma once
#include <atomic>

namespace bb::training {

inline std::atomic<bool> stop_requested{false};

}  // namespace bb::training
