// The text kinds' own pieces for the model-kind table (models/model_kind.h): roberta and gpt2
// models share their config reader, so info and attention read both the same way.
#pragma once
#include <filesystem>
#include <string>
#include <vector>

#include "models/model_kind.h"

namespace bb {

// info's lines: attention, shape, parameters, checkpoint, training, dev loss, trained values.
InfoLines describe_text_model(const std::filesystem::path& dir);
ModelAttention text_model_attention(const std::filesystem::path& dir, const AttentionRequest& r);

}  // namespace bb
