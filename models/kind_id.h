// The model kinds' identities (the table itself, with what each kind takes: models/model_kind.h).
// A config carries its kind, so this header stays free of the table's dependencies.
#pragma once
#include <cstddef>

namespace bb {

enum class ModelKind { roberta, icl_gpt2, gpt2 };
inline constexpr size_t kModelKindCount = 3;

}  // namespace bb
