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
  // The first n entries of a host index array for the ops: itself on the CPU, a device copy on
  // CUDA.
  template <typename I>
  const I* staged(Array<I>& dev, const std::vector<I>& host, int n);

  Config cfg_;
  ParamLayout layout_;
  Capacity cap_;
  Device device_;  // every Array below lives there
  int64_t att_cap_;  // H * max_seqs * max_len^2 ... per layer store size
  int64_t N_cap_;
  Array<T> dparams_{device_}, dgrads_{device_};  // cuda only
  // activations: one arena, carved per layer
  Array<T> arena_{device_};
  Array<T> emb_sum_{device_}, emb_mean_{device_}, emb_rstd_{device_}, emb_mask_{device_};
  Array<T> hx_{device_}, hd_{device_}, hg_{device_}, hl_{device_};
  Array<T> h_mean_{device_}, h_rstd_{device_}, logits_{device_}, lse_{device_};
  // (M, C) the last layer's attention context and input at the scored rows
  Array<T> sel_ctx_{device_}, sel_x_{device_};
  Array<T> ssa_b_{device_}, ssa_n_{device_};  // (L*H) effective values of the last forward
  // backward scratch
  Array<T> dA_{device_}, dB_{device_}, t1_{device_}, t2_{device_}, t3_{device_};
  Array<T> f1g_{device_}, dqkv_{device_}, dh1_{device_}, dh2_{device_}, dlogits_{device_};
  Array<T> att_scratch_{device_}, dbn_{device_};
  std::vector<int32_t> pos_;
  std::vector<int64_t> row_ids_, store_at_, sel_row_ids_;
  // device copies of the index arrays (cuda only)
  Array<int32_t> d_ids_{device_}, d_offsets_{device_}, d_rows_{device_}, d_labels_{device_};
  Array<int32_t> d_pos_{device_};
  Array<int64_t> d_row_ids_{device_}, d_store_at_{device_}, d_sel_row_ids_{device_};
  const Batch* batch_ = nullptr;
  const int32_t *ids_ = nullptr, *offsets_ = nullptr, *rows_ = nullptr, *labels_ = nullptr,
                *posp_ = nullptr;
  const int64_t *row_idsp_ = nullptr, *store_atp_ = nullptr, *sel_row_idsp_ = nullptr;
  bool has_loss_ = false;
};

}  // namespace bb
