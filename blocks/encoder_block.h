// The post-LN encoder block (HF RobertaLayer): fused QKV, the attention function over each
// sequence's keys, output projection, dropout, residual, LayerNorm; then dense, exact GELU, dense,
// dropout, residual, LayerNorm. Forward and backward over one layer's activation stores as a
// queue of backend ops; the RoBERTa model (encoder/model_passes.cpp) stacks them. The last layer
// may continue, after its attention (which needs every row's keys and values), at the scored rows
// only: the rest of the block is then computed at those rows alone.
#pragma once
#include <cstdint>
#include <functional>
#include <string>
#include <vector>

#include "backend/attention_function.h"
#include "backend/ops.h"

namespace bb::blocks {

struct EncoderBlockSpec {
  int hidden = 0, heads = 0, ffn = 0;
  double layer_norm_eps = 1e-5;
  AttentionFunction attention = AttentionFunction::softmax;
  bool frozen0 = false, frozen1 = false;  // the function's trainable values kept fixed
};

// What a tensor is to the initialisation and the optimiser (RoBERTa's: weight decay on matrices):
// a weight matrix, a bias, a LayerNorm gain, or the attention function's trainable value of slot 0
// or 1 (kept raw in the buffer).
enum class TensorRole { matrix, bias, norm, head_value0, head_value1 };

struct EncoderBlockTensor {
  std::string name;  // relative to the layer's prefix: "attention.self.query.weight", ...
  std::vector<int64_t> shape;
  TensorRole role;
  std::string saved_name;  // its name in model.safetensors (a raw value's effective one), else name
};
// The block's tensors in buffer order (HF RobertaLayer's names; query, key and value weights
// adjacent, as are their biases, forming one (3C, C) matrix and one (3C) bias for a fused QKV
// GEMM; the function's raw values last).
std::vector<EncoderBlockTensor> encoder_block_tensors(const EncoderBlockSpec& s);

// One layer's tensors in a parameter (or gradient) buffer.
template <typename T>
struct EncoderBlockWeights {
  T *qkv_w, *qkv_b;            // (3C, C), (3C): rows [q; k; v]
  T *attn_out_w, *attn_out_b;  // (C, C), (C)
  T *ln1_w, *ln1_b;            // (C)
  T *ffn_in_w, *ffn_in_b;      // (F, C), (F)
  T *ffn_out_w, *ffn_out_b;    // (C, F), (C)
  T *ln2_w, *ln2_b;            // (C)
  T *head_raw0, *head_raw1;    // (H) raw trainable values of the function; null without them
};

// The layer's tensors, found by `at` (a tensor's name relative to the layer -> its data).
template <typename T>
EncoderBlockWeights<T> encoder_block_weights(const EncoderBlockSpec& s,
                                             const std::function<T*(const std::string&)>& at);

// One layer's saved forward values. R = N rows, except in a layer that continues at the scored
// rows only (R = M).
template <typename T>
struct EncoderBlockStores {
  T* x;           // (N, C) the layer's input: the embeddings or the previous layer's output
  T* qkv;         // (N, 3C) [q | k | v] = x Wqkv^T + bqkv
  T* scores;      // (A) S = q k^T / sqrt(C/H)
  T* probs;       // (A) P = the function over each row's keys
  T* probs_mask;  // (A) attention dropout mask: 0 or 1/(1-p)
  T* context;     // (N, C) (P * probs_mask) v, the heads side by side
  T* attn_mask;   // (R, C) dropout mask of the attention output projection
  T* res1;        // (R, C) x + dropout(attn_out(context))
  T* ln1_mean;    // (R)
  T* ln1_rstd;    // (R)
  T* h1;          // (R, C) LayerNorm(res1)
  T* ffn_pre;     // (R, F) ffn_in(h1)
  T* ffn_act;     // (R, F) gelu(ffn_pre)
  T* ffn_mask;    // (R, C) dropout mask of the FFN output projection
  T* res2;        // (R, C) h1 + dropout(ffn_out(ffn_act)); the layer's output is LayerNorm(res2)
  T* ln2_mean;    // (R)
  T* ln2_rstd;    // (R)
};

// y(N,out) = x(N,in) W^T + bias: the model's linear layer (it may run frozen weights).
template <typename T>
using LinearFn = std::function<void(T* y, const T* x, const T* W, const T* bias, int N, int in,
                                    int out)>;

// What one layer's forward is given besides its weights and stores.
template <typename T>
struct EncoderBlockRun {
  int N = 0;                       // rows
  const int64_t* row_ids = nullptr;  // (N) dropout rows' ids
  T* out = nullptr;                // (R, C) the layer's output
  T *v0 = nullptr, *v1 = nullptr;  // (H) the function's effective values (written here)
  // Dropout (training): the outputs before their dropout go to pre_dropout (N, C); keys are the
  // step's dropout keys of the attention weights, the attention output and the FFN output.
  bool dropout = false;
  float p_hidden = 0, p_attention = 0;
  T* pre_dropout = nullptr;
  const uint64_t *key_attention = nullptr, *key_attention_out = nullptr, *key_ffn_out = nullptr;
  // Continue after the attention at these M rows only (null: all N): their context and input
  // are gathered to sel_context, sel_x (M, C); sel_row_ids (M) draw their dropout masks.
  const int32_t* rows = nullptr;
  int M = 0;
  T *sel_context = nullptr, *sel_x = nullptr;
  const int64_t* sel_row_ids = nullptr;
  std::function<void(const T* scores, const T* probs)> after_attention = {};
};

template <typename T>
void encoder_block_forward(const EncoderBlockSpec& s, const EncoderBlockWeights<T>& w,
                           const EncoderBlockStores<T>& a, const EncoderBlockRun<T>& run,
                           const ops::AttentionShape& shape, const LinearFn<T>& linear);

// Gradient scratch of backward: t1, t2, t3 (N, C), d_ffn (N, F), d_qkv (N, 3C), d_values (2H),
// att_partial (2 H B).
template <typename T>
struct EncoderBlockScratch {
  T *t1, *t2, *t3, *d_ffn, *d_qkv, *d_values, *att_partial;
};

// dout: dL/d of the layer's output (R, C); writes dx_in = dL/d x (N, C). Parameter gradients
// accumulate (+=) into g. run: as forward's (rows, M, sel_context, v0, v1 are read).
template <typename T>
void encoder_block_backward(const EncoderBlockSpec& s, const EncoderBlockWeights<T>& w,
                            const EncoderBlockWeights<T>& g, const EncoderBlockStores<T>& a,
                            const EncoderBlockRun<T>& run, const EncoderBlockScratch<T>& d,
                            const T* dout, T* dx_in, const ops::AttentionShape& shape);

}  // namespace bb::blocks
