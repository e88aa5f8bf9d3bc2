// config.json's field names for each text model kind: HF's RobertaConfig (roberta) and GPT2Config
// (gpt2) name the same sizes differently. One row per kind; the reader, the writer and the
// validation messages take every name from here.
#pragma once
#include <string_view>

#include "models/kind_id.h"

namespace bb {

struct ConfigKeys {
  ModelKind kind;
  std::string_view model_type, architecture;
  // model_type of an export whose function needs our remote code (cli/export.cpp); read back too.
  std::string_view export_model_type;
  std::string_view hidden, layers, heads, ffn, positions, layer_norm_eps;
  std::string_view hidden_dropout, attention_dropout;
  std::string_view activation_key, activation;  // e.g. hidden_act "gelu"
  // gpt2: the embeddings' dropout, which this toolkit keeps equal to the residual dropout.
  std::string_view embedding_dropout;
  // The training loss is the next-token loss of every token after <s>: its exp is a perplexity
  // per token (logged as dev_perplexity). A masked LM's loss over masked tokens is not.
  bool next_token_loss;
};

inline constexpr ConfigKeys kRobertaKeys{
    ModelKind::roberta, "roberta", "RobertaForMaskedLM", "babyberta", "hidden_size", "num_hidden_layers",
    "num_attention_heads", "intermediate_size", "max_position_embeddings", "layer_norm_eps",
    "hidden_dropout_prob", "attention_probs_dropout_prob", "hidden_act", "gelu", "", false};

inline constexpr ConfigKeys kGpt2Keys{
    ModelKind::gpt2, "gpt2", "GPT2LMHeadModel", "babyberta_gpt2", "n_embd", "n_layer", "n_head", "n_inner",
    "n_positions", "layer_norm_epsilon", "resid_pdrop", "attn_pdrop", "activation_function",
    "gelu_new", "embd_pdrop", true};

// The keys of a text kind (roberta or gpt2; any other kind is an internal error).
const ConfigKeys& config_keys(ModelKind kind);
// The text kind named by its model_type ("roberta" or "gpt2"); else a usage error naming `flag`.
ModelKind parse_text_kind(std::string_view name, std::string_view flag = "--kind");

}  // namespace bb
