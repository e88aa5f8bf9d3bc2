// Attention saturation of ICL models on shifted inputs: for each sigma, sequences of the model's
// task with x ~ N(0, sigma^2) are run through the model and each layer's attention weights are
// summarised by their row maxima: the mean over sequences, heads and query rows (rows with at
// least two visible keys) of max_j P_ij. Softmax collapsing onto the largest |x| shows as this
// going to 1 as sigma grows.
#pragma once
#include <nlohmann/json.hpp>

#include <filesystem>
#include <string>
#include <vector>

#include "icl/model.h"
#include "icl/task.h"

namespace bb::icl {

struct SaturationSettings {
  Task task = Task::every;
  std::vector<double> sigmas = {1, 2, 4, 8, 16, 29};
  int points = 40, sequences = 64, batch = 16;
  uint64_t seed = 1;
};

struct ModelSaturation {
  std::string name, label;
  std::vector<std::vector<double>> mean_max;  // [sigma][layer]
  int64_t steps = -1;  // updates the model was trained (saturation.json "steps"; -1: unknown)
};

ModelSaturation model_saturation(Model<float>& model, const std::string& name,
                                 const SaturationSettings& s);
// saturation.json, saturation.csv and max_weight.svg (a panel per layer, a line per model).
void write_saturation(const std::filesystem::path& dir, const SaturationSettings& s,
                      const std::vector<ModelSaturation>& models);

}  // namespace bb::icl
