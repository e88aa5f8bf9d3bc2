// RobertaForMaskedLM (post-LN BERT blocks, exact GELU, tied decoder) with a switchable attention
// scoring function. forward() computes the vocabulary projection only at batch.rows; backward()
// accumulates parameter gradients. Numerically equal to HF given the same weights.
#pragma once
#include <cstdint>
#include <vector>

#include "backend/device.h"
#include "common/buffer.h"
#include "encoder/batch.h"
#include "encoder/config.h"
#include "encoder/parameters.h"

namespace bb {

struct StepContext {
  bool train = false;  // dropout on
  uint64_t seed = 0;   // dropout masks are a function of (seed, step, site, element)
  int64_t step = 0;
};

// On Device::cuda (float only) parameters, gradients and activations live on the GPU; `params`
// and `grads` are then the host copies, synchronised explicitly (upload_params / download).
// On the CPU they are the model's own storage and the sync calls do nothing.
template <typename T>
class Model {
 public:
  Model(const Config& config, const Capacity& cap, Device device = Device::cpu);
  Model(const Model&) = delete;
  Model& operator=(const Model&) = delete;

  const Config& config() const { return cfg_; }
  const ParamLayout& layout() const { return layout_; }
  const Capacity& capacity() const { return cap_; }
  Device device() const { return device_; }

  Buffer<T> params;  // (layout.total) host copy
  Buffer<T> grads;   // (layout.total) host copy
  void upload_params();  // after changing `params` on the host
  void download();       // device -> `params`, `grads`
  T* param_data() { return device_ == Device::cpu ? params.data() : dparams_.data(); }
  T* grad_data() { return device_ == Device::cpu ? grads.data() : dgrads_.data(); }

  void init_weights(uint64_t seed);  // also uploads
  void zero_grads();
  // Returns the mean cross-entropy at batch.rows when batch.labels is set, else 0. The batch must
  // stay alive and unchanged until backward().
  T forward(const Batch& batch, const StepContext& ctx);
  void backward();
  const T* logits() const { return logits_.data(); }  // (M, V) of the last forward, on device()
  // Effective SSA values of layer l, head h (b = exp(beta), n = 1 + exp(nu)), from `params`.
  T ssa_b(int l, int h) const;
  T ssa_n(int l, int h) const;

 private:
  struct LayerActs {
    T *x, *qkv, *S, *P, *Pmask, *ctx, *ao_mask, *res1, *ln1_mean, *ln1_rstd, *h1, *f1, *g,
        *fo_mask, *res2, *ln2_mean, *ln2_rstd;
  };
  LayerActs acts(int l);
  T* x_out(int l);  // input of layer l+1 (or of the head)
  uint64_t dropout_key(const StepContext& ctx, int site) const;
  // Host index arrays for the ops: themselves on the CPU, a device copy on CUDA.
  template <typename I>
  const I* staged(Array<I>& dev, const std::vector<I>& host);

  Config cfg_;
  ParamLayout layout_;
  Capacity cap_;
  Device device_;
  int64_t att_cap_;  // H * max_seqs * max_len^2 ... per layer store size
  int64_t N_cap_;
  Array<T> dparams_, dgrads_;  // cuda only
  // activations: one arena, carved per layer
  Array<T> arena_;
  Array<T> emb_sum_, emb_mean_, emb_rstd_, emb_mask_;
  Array<T> hx_, hd_, hg_, hl_, h_mean_, h_rstd_, logits_, lse_;
  Array<T> sel_ctx_, sel_x_;  // (M, C) the last layer's attention context and input at the rows
  Array<T> ssa_b_, ssa_n_;  // (L*H) effective values of the last forward
  // backward scratch
  Array<T> dA_, dB_, t1_, t2_, t3_, f1g_, dqkv_, dh1_, dh2_, dlogits_, att_scratch_, dbn_;
  std::vector<int32_t> pos_;
  std::vector<int64_t> row_ids_, store_at_, sel_row_ids_;
  Array<int32_t> d_ids_, d_offsets_, d_rows_, d_labels_, d_pos_;  // cuda only
  Array<int64_t> d_row_ids_, d_store_at_, d_sel_row_ids_;         // cuda only
  const Batch* batch_ = nullptr;
  const int32_t *ids_ = nullptr, *offsets_ = nullptr, *rows_ = nullptr, *labels_ = nullptr,
                *posp_ = nullptr;
  const int64_t *row_idsp_ = nullptr, *store_atp_ = nullptr, *sel_row_idsp_ = nullptr;
  bool has_loss_ = false;
};

}  // namespace bb
