// Must not compile (ctest compile_fail_model_kind): the model-kind table built over one kind more
// than has rows, as a kind added to ModelKind without its ModelKindRow would be. g++ names the
// missing row: incomplete type 'bb::ModelKindRow<(bb::ModelKind)3>'.
#include "models/model_kind_rows.h"

namespace bb {

constexpr auto kTableWithAKindWithoutRow =
    model_kind_rows(std::make_index_sequence<kModelKindCount + 1>());

}  // namespace bb
