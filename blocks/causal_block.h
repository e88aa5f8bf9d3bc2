// The pre-LN causal transformer block (HF GPT2Block: ln_1, causal attention, residual, ln_2, MLP
// with gelu_new, residual) and its attention-only variants: the blocks tier between the backend
// ops and the model kinds. A block declares its tensors (names relative to its layer, shapes,
// initialisation) in its layer's slice of the one parameter buffer, and runs forward and backward
// over one layer's activation stores as a queue of backend ops. The ICL model (icl/model.cpp)
// stacks them without dropout; the causal LM on text (encoder/causal_passes.cpp) with GPT-2's
// dropout (attention weights, and each residual branch's output).
#pragma once
#include <cstdint>
#include <functional>
#include <string>
#include <vector>

#include "backend/attention_function.h"
#include "backend/ops.h"

namespace bb::blocks {

// How a parameter tensor is initialised (GPT-2's _init_weights; PyTorch's nn.Linear default for
// the layers outside its blocks).
enum class Init {
  normal,           // N(0, init_std)
  normal_residual,  // N(0, init_std / sqrt(2 layers)): c_proj of attention and MLP
  linear_default,   // U(-1/sqrt(fan_in), 1/sqrt(fan_in)) (nn.Linear's weight and bias)
  zeros,
  ones,
  head_value0,  // raw value of the attention function's slot 0 at its initial value
  head_value1,
};

struct CausalBlockSpec {
  int hidden = 0, heads = 0, ffn = 0;
  bool mlp = true;       // ln_1, ln_2 and the MLP (full); without: attention-only variants
  bool residual = true;  // the residual connections (attention-only: none)
  double layer_norm_eps = 1e-5;
  AttentionFunction attention = AttentionFunction::softmax;
  bool frozen0 = false, frozen1 = false;  // the function's trainable values kept fixed
  // Where the function's values sit inside the layer: "" keeps the function table's names (the
  // ICL model's: attention.self.ssa_beta); "attn." puts them in place of its "attention.self."
  // (the causal LM's, HF GPT-2's module: transformer.h.{i}.attn.ssa_b).
  std::string head_value_prefix;
};

struct BlockTensor {
  std::string name;  // relative to the layer's prefix: "ln_1.weight", "attn.c_attn.weight", ...
  std::vector<int64_t> shape;
  Init init;
  std::string saved_name;  // in model.safetensors: a raw value's effective name, else name
};
// The block's tensors in buffer order (HF GPT2Block's names; the function's raw values last).
std::vector<BlockTensor> causal_block_tensors(const CausalBlockSpec& s);

// One layer's tensors in a parameter (or gradient) buffer; null where the variant has none.
template <typename T>
struct CausalBlockWeights {
  T *ln1_w = nullptr, *ln1_b = nullptr;          // (C), full only
  T *qkv_w = nullptr, *qkv_b = nullptr;          // (3C, C), (3C): rows [q; k; v]
  T *proj_w = nullptr, *proj_b = nullptr;        // (C, C), (C)
  T *ln2_w = nullptr, *ln2_b = nullptr;          // (C), full only
  T *fc_w = nullptr, *fc_b = nullptr;            // (4C, C), (4C), full only
  T *fc_proj_w = nullptr, *fc_proj_b = nullptr;  // (C, 4C), (C), full only
  T *raw0 = nullptr, *raw1 = nullptr;            // (H) raw trainable values of the function
};
// The layer's tensors, found by `at` (a tensor's name relative to the layer -> its data, null when
// the buffer has no such tensor).
template <typename T>
CausalBlockWeights<T> causal_block_weights(const CausalBlockSpec& s,
                                           const std::function<T*(const std::string&)>& at);

// One layer's activation stores (N tokens): written by forward, read by backward. x is the
// layer's input, out its output; the LayerNorm and MLP stores are unused without the MLP; S, P,
// mask are the attention's (B, H, L, L) stores; v0, v1 (H) the function's effective values.
template <typename T>
struct CausalBlockStores {
  const T* x = nullptr;
  T* out = nullptr;
  T *ln1 = nullptr, *ln1_mean = nullptr, *ln1_rstd = nullptr;
  T *qkv = nullptr, *ctx = nullptr, *S = nullptr, *P = nullptr, *mask = nullptr;
  T *mid = nullptr, *ln2 = nullptr, *ln2_mean = nullptr, *ln2_rstd = nullptr;
  T *fc = nullptr, *act = nullptr;
  T *v0 = nullptr, *v1 = nullptr;
  // Dropout masks (0 or 1/(1-p), N x C) of the attention's and the MLP's output projections
  // (with dropout only; the attention weights' mask is `mask`).
  T *proj_mask = nullptr, *mlp_mask = nullptr;
};

// Dropout in a training forward (GPT-2's attn_pdrop on the attention weights, resid_pdrop on each
// residual branch's output). The outputs before their dropout go to pre_dropout (N, C); keys are
// the step's keys of the attention weights and the two projections; row_ids (N) draw the masks.
template <typename T>
struct CausalBlockDropout {
  float p_hidden = 0, p_attention = 0;
  const int64_t* row_ids = nullptr;
  T* pre_dropout = nullptr;
  const uint64_t *key_attention = nullptr, *key_proj = nullptr, *key_mlp = nullptr;
};

// y(N,out) = x(N,in) W^T + bias: the model's linear layer (it may run frozen weights).
template <typename T>
using CausalLinearFn = std::function<void(T* y, const T* x, const T* W, const T* bias, int N,
                                          int in, int out)>;

// Gradient scratch of backward: dtmp, dctx (N, C), dqkv (N, 3C), dfc, dact (N, F), dv0, dv1 (H),
// scratch (2 H B).
template <typename T>
struct CausalBlockScratch {
  T *dtmp = nullptr, *dctx = nullptr, *dqkv = nullptr, *dfc = nullptr, *dact = nullptr;
  T *dv0 = nullptr, *dv1 = nullptr, *scratch = nullptr;
};

// out = block(x) over N tokens laid out by `shape` (causal); after_attention (if set) runs once
// the attention weights are in a.P. dropout: null for none; linear: null for ops::linear_forward.
template <typename T>
void causal_block_forward(const CausalBlockSpec& s, const CausalBlockWeights<T>& w,
                          const CausalBlockStores<T>& a, const ops::AttentionShape& shape, int N,
                          const std::function<void()>& after_attention = {},
                          const CausalBlockDropout<T>* dropout = nullptr,
                          const CausalLinearFn<T>& linear = {});

// On entry dx = dL/d out; on exit dL/d x. Parameter gradients accumulate (+=) into g. dropout:
// whether forward had dropout (its masks are read from a).
template <typename T>
void causal_block_backward(const CausalBlockSpec& s, const CausalBlockWeights<T>& w,
                           const CausalBlockWeights<T>& g, const CausalBlockStores<T>& a,
                           const CausalBlockScratch<T>& d, T* dx, const ops::AttentionShape& shape,
                           int N, bool dropout = false);

}  // namespace bb::blocks
