#include "python/training.h"

#include <fmt/core.h>

#include <cmath>
#include <functional>
#include <optional>

#include "common/error.h"
#include "common/stop_signals.h"
#include "icl/train_flags.h"
#include "python/engine_call.h"
#include "runs/icl_train_run.h"
#include "runs/train_flags.h"
#include "runs/train_run.h"
#include "training/head_value_flags.h"
#include "training/stop_request.h"

namespace py = pybind11;

namespace bb::python {

namespace {

template <typename Rows>
py::dict forms_of(const Rows& rows) {
  py::dict out;
  for (const auto& row : rows)
    out[py::str(row.flag)] = row.form == row.value       ? "value"
                             : row.form == row.switch_on ? "switch_on"
                                                         : "switch_off";
  return out;
}

// Runs `body` (a training run given its per-step callback) with the GIL released. After every
// step, pending signals reach Python and `progress` (unless None) is called with as_dict(step);
// the Python exception that stopped the run (KeyboardInterrupt, or the callback's) is raised once
// the checkpoint is saved.
template <typename Log>
void run_in_process(const std::function<void(const std::function<void(const Log&)>&)>& body,
                    const py::object& progress, const std::function<py::dict(const Log&)>& as_dict,
                    const std::string& to_continue) {
  // Declared before the GIL is released: destroyed holding it.
  std::optional<py::error_already_set> raised;
  auto on_step = [&](const EngineCall& call, const Log& s) {
    call.deliver_pending_signals();
    py::gil_scoped_acquire gil;
    try {
      if (PyErr_CheckSignals() != 0) throw py::error_already_set();
      if (!progress.is_none()) progress(as_dict(s));
    } catch (py::error_already_set& e) {
      raised.emplace(std::move(e));
      training::stop_requested = true;
    }
  };
  training::stop_requested = false;
  {
    EngineCall call;
    py::gil_scoped_release release;
    try {
      body([&](const Log& s) { on_step(call, s); });
    } catch (const Interrupted& e) {
      // where the checkpoint is, and how to continue from Python (not the CLI's command line)
      const std::string message =
          e.saved.empty() ? std::string(e.what())
                          : fmt::format("interrupted: {}; to continue, {}", e.saved, to_continue);
      fmt::print(stderr, "{}\n", message);
      if (!raised) {
        training::stop_requested = false;
        throw Error(message);
      }
    }
  }
  training::stop_requested = false;
  if (raised) throw std::move(*raised);
}

}  // namespace

py::dict train_flag_forms() { return forms_of(train_flags()); }
py::dict icl_train_flag_forms() { return forms_of(icl::train_flags()); }

// A progress argument that is neither None nor callable: refused before any work (not after the
// first step, with a checkpoint already written).
static void check_progress(const py::object& progress, const char* function) {
  if (!progress.is_none() && !PyCallable_Check(progress.ptr()))
    fail("{}: progress must be None or a callable taking a dict, got {}", function,
         std::string(py::str(py::type::of(progress).attr("__name__"))));
}

void train(std::vector<std::string> args, const py::object& progress) {
  check_progress(progress, "train");
  args.insert(args.begin(), "train");
  TrainArgs a;
  try {
    a = parse_train_args(args);
  } catch (const CLI::ParseError& e) {
    fail("train: {}", e.what());
  }
  training::check_head_value_flag_words(args, {parse_attention_function(a.attention)});  // as the CLI
  const int64_t steps = a.steps;
  run_in_process<StepLog>(
      [&](const std::function<void(const StepLog&)>& on_step) { run_train(a, {}, on_step); },
      progress, [steps](const StepLog& s) {
        return py::dict(py::arg("step") = s.step, py::arg("steps") = steps,
                        py::arg("loss") = s.loss, py::arg("lr") = s.lr,
                        py::arg("grad_norm") = s.grad_norm, py::arg("tokens") = s.tokens,
                        py::arg("elapsed_s") = s.elapsed_s,
                        py::arg("dev_loss") = std::isnan(s.dev_loss) ? py::object(py::none())
                                                                     : py::object(py::float_(s.dev_loss)));
      },
      "call train(...) again with the same arguments and resume=True");
}

void icl_train(const std::vector<std::string>& args, const py::object& progress) {
  check_progress(progress, "icl_train");
  icl::TrainArgs a;
  try {
    a = icl::parse_train_args(args);
  } catch (const CLI::ParseError& e) {
    fail("icl_train: {}", e.what());
  }
  training::check_head_value_flag_words(args, {parse_attention_function(a.attention)});  // as the CLI
  const int64_t steps = a.extend_to > 0 ? a.extend_to : a.s.steps;
  run_in_process<icl::StepLog>(
      [&](const std::function<void(const icl::StepLog&)>& on_step) { run_icl_train(a, on_step); },
      progress, [steps](const icl::StepLog& s) {
        return py::dict(py::arg("step") = s.step, py::arg("steps") = steps,
                        py::arg("loss") = s.loss, py::arg("points") = s.points);
      },
      "call icl_train(...) again with the same arguments");
}

}  // namespace bb::python
