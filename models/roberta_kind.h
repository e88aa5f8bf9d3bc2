// The roberta kind's own pieces for the model-kind table (models/model_kind.h).
#pragma once
#include <filesystem>
#include <string>
#include <vector>

#include "models/model_kind.h"

namespace bb {

// info's lines: attention, shape, parameters, checkpoint, training, dev loss, trained values.
InfoLines describe_roberta(const std::filesystem::path& dir);
ModelAttention roberta_attention(const std::filesystem::path& dir, const AttentionRequest& r);

}  // namespace bb
