#pragma once
// The trained values of the attention functions (SSA's b and n, softmax-t's τ) of a group's runs,
// as a Markdown section: per run, layer and head the initial value (config.json) → the trained
// one (runs/NAME/model.safetensors). Shared by the ICL reports (shift_report, training length).

#include <filesystem>
#include <string>

#include "icl/shift_curves.h"

namespace bb::icl {

// A value "moves" when some head's changes from its initial value by more than this.
inline constexpr double kTrainedValueMovesBy = 0.1;

// "" when no function of the group has trainable values or no run of those has a model in
// runs_dir; `when` says which model the values are of (e.g. "after 10,000 updates"), empty: the
// run's model.
std::string trained_values_section(const std::filesystem::path& runs_dir,
                                   const shift::Group& g, const std::string& when = "");

}  // namespace bb::icl
