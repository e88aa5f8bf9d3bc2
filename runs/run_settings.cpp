#include "runs/run_settings.h"

#include "common/flag_names.h"

namespace bb {

std::optional<RunPlan> read_run_plan(const std::filesystem::path& dir) {
  const auto settings = read_run_settings(dir);
  if (!settings) return std::nullopt;
  RunPlan plan{.steps = std::nullopt, .recipe = settings->value(flag_name::recipe, "babyberta")};
  if (settings->contains(flag_name::steps) && (*settings)[flag_name::steps].is_number_integer())
    plan.steps = (*settings)[flag_name::steps].get<int64_t>();
  return plan;
}

}  // namespace bb
