// The model-kind table's rows (models/model_kind.h): one ModelKindRow specialisation per kind. A
// new kind is its enum value, its row here and its own pieces (describer, readers).
#pragma once
#include "encoder/config_keys.h"
#include "models/icl_kind.h"
#include "models/model_kind.h"
#include "models/text_kinds.h"

namespace bb {

template <>
struct ModelKindRow<ModelKind::roberta> {
  using C = ModelCommand;
  static constexpr ModelKindSpec spec{
      ModelKind::roberta, "roberta", {kRobertaKeys.model_type, kRobertaKeys.export_model_type}, "BabyBERTa's RoBERTa masked LM",
      {C::info, C::attention, C::saturation, C::probe, C::score, C::encode, C::export_hf,
       C::python_load, C::perplexity},
      9, ModelInput::sentences, describe_text_model, text_model_attention};
};

template <>
struct ModelKindRow<ModelKind::icl_gpt2> {
  using C = ModelCommand;
  static constexpr ModelKindSpec spec{
      ModelKind::icl_gpt2, "icl-gpt2", {"babyberta_icl_gpt2", ""},
      "the in-context-learning GPT-2 of `icl train`",
      {C::info, C::attention, C::saturation, C::icl_eval}, 4, ModelInput::task_sequences,
      describe_icl, icl_attention};
};

template <>
struct ModelKindRow<ModelKind::gpt2> {
  using C = ModelCommand;
  static constexpr ModelKindSpec spec{
      ModelKind::gpt2, "gpt2", {kGpt2Keys.model_type, kGpt2Keys.export_model_type}, "a GPT-2-style causal LM",
      {C::info, C::attention, C::saturation, C::probe, C::score, C::encode, C::python_load,
       C::perplexity, C::export_hf},
      9,
      ModelInput::sentences, describe_text_model, text_model_attention};
};

}  // namespace bb
