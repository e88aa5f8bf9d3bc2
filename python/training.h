// babyberta.train and babyberta.icl_train from Python: each command's flags as keyword arguments
// (their flag tables: runs/train_flags.h, icl/train_flags.h) and the run itself in-process
// (runs/train_run.h, runs/icl_train_run.h), with a progress callback and Ctrl-C saving a
// checkpoint before KeyboardInterrupt.
#pragma once
#include <pybind11/pybind11.h>

#include <string>
#include <vector>

namespace bb::python {

// Flag -> "value", "switch_on" or "switch_off", for every row of train's / icl train's table.
pybind11::dict train_flag_forms();
pybind11::dict icl_train_flag_forms();

// Trains as `babyberta train ARGS...` does. `progress`: None (the CLI's progress line) or a
// callable given a dict (step, steps, loss, lr, grad_norm, tokens) after every update. Ctrl-C, or
// an exception raised by `progress`, stops the run with a checkpoint saved (resume=True continues
// it bit for bit) and is then raised.
void train(std::vector<std::string> args, const pybind11::object& progress);
// The same for `babyberta icl train ARGS...`; progress gets (step, steps, loss, points); the same
// call again resumes.
void icl_train(const std::vector<std::string>& args, const pybind11::object& progress);

}  // namespace bb::python
