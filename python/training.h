// babyberta.train from Python: the train command's flags as keyword arguments (the flag table,
// runs/train_flags.h) and the run itself in-process (runs/train_run.h), with a progress callback
// and Ctrl-C saving a checkpoint before KeyboardInterrupt.
#pragma once
#include <pybind11/pybind11.h>

#include <string>
#include <vector>

namespace bb::python {

// Flag -> "value", "switch_on" or "switch_off", for every train flag of the table.
pybind11::dict train_flag_forms();

// Trains as `babyberta train ARGS...` does. `progress`: None (the CLI's progress line) or a
// callable given a dict (step, steps, loss, lr, grad_norm, tokens) after every update. Ctrl-C, or
// an exception raised by `progress`, stops the run with a checkpoint saved (resume=True continues
// it bit for bit) and is then raised.
void train(std::vector<std::string> args, const pybind11::object& progress);

}  // namespace bb::python
