// Every activation the Model keeps, by name and shape (llm.c's ActivationTensors): the forward's
// saved values and the backward's gradients. One arena on the model's device holds them all;
// Activations::visit lists them once, and that one list both sizes the arena and carves it.
//
// Shapes are at capacity (encoder/batch.h, Capacity): N = max_tokens rows, M = max_rows scored
// rows, B = max_seqs sequences; C hidden, F ffn, V vocabulary, H heads, NL layers. A batch uses
// the leading rows. A is one layer's attention store: per sequence b and head h an (L_b, L_b)
// block, H * min(B * max_len^2, max_len * N) elements (ops::AttentionShape::store_at).
#pragma once
#include <cstdint>
#include <vector>

#include "backend/device.h"
#include "blocks/encoder_block.h"
#include "encoder/batch.h"
#include "encoder/activation_arena.h"
#include "encoder/config.h"

namespace bb {

// One layer's saved forward values: the encoder block's stores (blocks/encoder_block.h). R = N
// rows, except in the last layer after its attention, which continues at the M scored rows only
// (Model::run_forward).
template <typename T>
using LayerActivations = blocks::EncoderBlockStores<T>;

template <typename T>
class Activations {
 public:
  // A training model keeps every layer's values and the backward's gradients; an inference-only
  // one (cap.inference_only) keeps one layer's values, reused by every layer, and no gradients.
  Activations(const Config& c, const Capacity& cap, Device device);
  Activations(const Activations&) = delete;
  Activations& operator=(const Activations&) = delete;

  LayerActivations<T> layer(int l) const;
  T* layer_output(int l) const { return layer(l + 1).x; }  // (N, C) of a layer before the last

  // ---- forward ----------------------------------------------------------------------------------
  T* emb_sum;      // (N, C) wte[ids] + wpe[pos] + wtt[0]
  T* emb_mean;     // (N)
  T* emb_rstd;     // (N)
  T* emb_mask;     // (N, C) dropout mask of the embeddings (training)
  T* pre_dropout;  // (N, C) an output before its dropout: the embeddings' LayerNorm, a projection
                   // (training; inference writes outputs in place)
  T* sel_context;  // (M, C) the last layer's context at the scored rows
  T* sel_x;        // (M, C) the last layer's input at the scored rows
  T* head_in;      // (M, C) the last layer's output (at the scored rows)
  T* head_dense;   // (M, C) head_in Wd^T + bd
  T* head_act;     // (M, C) gelu(head_dense)
  T* head_norm;    // (M, C) LayerNorm(head_act)
  T* head_mean;    // (M)
  T* head_rstd;    // (M)
  T* logits;       // (M, V) head_norm wte^T + bias (the decoder tied to the word embeddings)
  T* lse;          // (M) log sum_v exp(logits[m, v])
  T* target_logp;  // (M) log softmax(logits[m])[target m] (Model::target_log_probs)
  T* loss;         // (1) mean cross-entropy over the labelled rows
  T* head_v0;      // (NL, H) effective trainable scoring values of the last forward: ssa b,
  T* head_v1;      // (NL, H) ssa n; softmax-t tau in head_v0 (ops::head_values_effective)

  // ---- backward (training; null on an inference-only model) ------------------------------------
  T* d_logits;    // (M, V) dloss/dlogits
  T* d_head;      // (M, C) d head_norm, then d head_in (the last layer's output gradient)
  T* d_head_act;  // (M, C) d head_act, then d head_dense
  T* d_out;       // (N, C) d of a layer's output; swapped with d_in layer by layer
  T* d_in;        // (N, C) d of a layer's input (= the previous layer's output)
  T* d_res;       // (N, C) d res2, then d res1: what the LayerNorms' backward gives
  T* d_proj;      // (N, C) d of a projection's output (dropout backward); in the last layer also
                  // d context over all N rows
  T* d_h1;        // (N, C) d h1, then d context; in the last layer the residual's d over N rows
  T* d_ffn;       // (N, F) d ffn_act, then d ffn_pre
  T* d_qkv;       // (N, 3C)
  T* d_head_values;  // (2H) one layer's dv0 (H) then dv1 (H)
  T* att_partial;  // (2 H B) attention_backward's per-(sequence, head) dv0, dv1

 private:
  // Calls take(tensor, elements, start) for every tensor in arena order.
  template <typename Take>
  void visit(Take&& take);

  Config cfg_;
  Capacity cap_;
  Array<T> arena_;
  std::vector<T*> x_;                          // layer inputs: NL slots, or 2 when reused
  std::vector<LayerActivations<T>> layers_;  // x left null; NL blocks, or 1 when reused
};

}  // namespace bb
