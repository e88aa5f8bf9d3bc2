#include "python/training.h"

#include <fmt/core.h>

#include <optional>

#include "common/error.h"
#include "common/stop_signals.h"
#include "encoder/trainer.h"
#include "python/engine_call.h"
#include "runs/train_flags.h"
#include "runs/train_run.h"

namespace py = pybind11;

namespace bb::python {

py::dict train_flag_forms() {
  py::dict out;
  for (const TrainFlag& row : train_flags())
    out[py::str(row.flag)] = row.form == TrainFlag::value       ? "value"
                             : row.form == TrainFlag::switch_on ? "switch_on"
                                                                : "switch_off";
  return out;
}

void train(std::vector<std::string> args, const py::object& progress) {
  args.insert(args.begin(), "train");
  TrainArgs a;
  try {
    a = parse_train_args(args);
  } catch (const CLI::ParseError& e) {
    fail("train: {}", e.what());
  }
  const int64_t steps = a.steps;
  // The Python exception that stopped the run (KeyboardInterrupt, or the callback's), raised once
  // the checkpoint is saved. Declared before the GIL is released: destroyed holding it.
  std::optional<py::error_already_set> raised;
  auto on_step = [&](const EngineCall& call, const StepLog& s) {
    call.deliver_pending_signals();
    py::gil_scoped_acquire gil;
    try {
      if (PyErr_CheckSignals() != 0) throw py::error_already_set();
      if (!progress.is_none())
        progress(py::dict(py::arg("step") = s.step, py::arg("steps") = steps,
                          py::arg("loss") = s.loss, py::arg("lr") = s.lr,
                          py::arg("grad_norm") = s.grad_norm, py::arg("tokens") = s.tokens));
    } catch (py::error_already_set& e) {
      raised.emplace(std::move(e));
      Trainer::stop_requested = true;
    }
  };
  Trainer::stop_requested = false;
  {
    EngineCall call;
    py::gil_scoped_release release;
    try {
      run_train(a, {}, [&](const StepLog& s) { on_step(call, s); });
    } catch (const Interrupted& e) {
      fmt::print(stderr, "{}\n", e.what());  // where the checkpoint is and how to continue
      if (!raised) {
        Trainer::stop_requested = false;
        throw Error(e.what());
      }
    }
  }
  Trainer::stop_requested = false;
  if (raised) throw std::move(*raised);
}

}  // namespace bb::python
