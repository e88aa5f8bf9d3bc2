// The icl-gpt2 kind's own pieces for the model-kind table (models/model_kind.h).
#pragma once
#include <filesystem>

#include "models/model_kind.h"

namespace bb {

// info's lines: attention, shape, parameters, checkpoint, training (task, steps), trained values.
InfoLines describe_icl(const std::filesystem::path& dir);
ModelAttention icl_attention(const std::filesystem::path& dir, const AttentionRequest& r);

}  // namespace bb
