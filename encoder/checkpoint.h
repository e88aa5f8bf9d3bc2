// Checkpoint directories:
//   DIR/config.json, DIR/model.safetensors  — the latest model, HF names, SSA as effective b, n
//   DIR/checkpoints/step-N/                  — complete resumable state: config.json,
//       model.safetensors, state.safetensors (raw parameters, Adam moments), trainer_state.json
//       and the run's tokenizer.model (and tokenizer.json), so a step directory is a model
//       directory too (probe, score, info)
// Every file is written to a temporary name and renamed; step directories are built under a
// temporary name and renamed into place, so a crash leaves the previous checkpoint intact. A
// failed save removes its temporaries; the next save removes those a crashed run left.
#pragma once
#include <nlohmann/json.hpp>

#include <filesystem>
#include <optional>
#include <vector>

#include "encoder/model.h"
#include "encoder/optimizer.h"
#include "training/checkpoint_dir.h"  // checkpoint_steps, latest_checkpoint, retention

namespace bb {

// Saving writes the model's host copy `params` (a CUDA model: call download() first); loading
// fills it and uploads.
// Writes config.json and model.safetensors into dir (created if needed).
void save_model(const std::filesystem::path& dir, const Model<float>& model);
// The config of model directory `dir`, checked before a model is allocated: "DIR: no such model
// directory", "DIR: not a model directory (no config.json)", config.json's fields and bounds
// (Config::validate), and model.safetensors holds at least 4 bytes per parameter it describes.
Config read_model_config(const std::filesystem::path& dir);
// Loads model.safetensors from dir into a model built from dir/config.json. Validates every name,
// shape and dtype; the tied decoder weight may be present or absent.
void load_model_weights(const std::filesystem::path& dir, Model<float>& model);

struct TrainerState {
  int64_t step = 0;   // updates done
  uint64_t seed = 0;  // data order, masks and dropout are functions of (seed, step)
  nlohmann::json data = nlohmann::json::object();  // data position, recorded by the data source
  // As read back; save_checkpoint takes them from the optimizer and the model.
  int64_t adam_step = 0, num_parameters = 0;
};

// STEP_DIR/trainer_state.json: an object with integers step, seed, adam_step, num_parameters
// and, optionally, data. Errors name the file and the field.
TrainerState read_trainer_state(const std::filesystem::path& step_dir);

// Writes DIR/checkpoints/step-N and refreshes the top-level model files.
std::filesystem::path save_checkpoint(const std::filesystem::path& dir, const Model<float>& model,
                                      const AdamW& opt, const TrainerState& state);
// Restores raw parameters, Adam moments and the trainer state from a step directory.
TrainerState load_checkpoint(const std::filesystem::path& step_dir, Model<float>& model,
                             AdamW& opt);

}  // namespace bb
