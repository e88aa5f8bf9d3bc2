// The ICL model (icl/config.h) on the backend ops: tokens are interleaved (x_1, y_1, x_2, y_2, ...)
// with one value vector each, read in linearly, run through causal blocks, and read out as one
// number per token; predictions are taken at the x positions (sequence b, point i: token 2i), so
// prediction i sees x_1..x_i and y_1..y_{i-1}. forward() returns the mean PointLoss over the
// predictions; backward() accumulates parameter gradients (+=).
// On Device::cuda (float) parameters, gradients and activations live on the GPU and `params`,
// `grads` are host copies synchronised explicitly (upload_params / download), as encoder/model.h.
#pragma once
#include <cstdint>
#include <functional>
#include <memory>
#include <vector>

#include "backend/device.h"
#include "backend/ops.h"
#include "backend/precision.h"
#include "common/buffer.h"
#include "icl/config.h"
#include "icl/parameters.h"

namespace bb::icl {

template <typename T>
class Model {
 public:
  explicit Model(const Config& config, Device device = Device::cpu);
  ~Model();
  Model(const Model&) = delete;
  Model& operator=(const Model&) = delete;

  const Config& config() const { return cfg_; }
  const Layout& layout() const { return layout_; }
  Device device() const { return device_; }

  Buffer<T> params, grads;  // (layout.total) host copies
  void upload_params();     // host params -> device (no-op on the CPU)
  void download();          // device -> params, grads (no-op on the CPU)
  T* param_data();
  T* grad_data();

  void init_weights(uint64_t seed);  // GPT-2's init, a pure function of the seed; uploads
  void zero_grads();
  // --precision (backend/precision.h): bf16 runs the linear layers on a bf16 copy of the weights
  // (CPU float models; checks the machine first). fp32 by default.
  void set_precision(Precision p) { precision_.set(p, device_); }
  Precision precision() const { return precision_.get(); }
  // After the optimizer changed param_data() in place (`copy_written`: and the bf16 copy too).
  void params_updated(bool copy_written = false) { precision_.params_changed(copy_written); }
  // --precision bf16: the copy an update may write as it goes (null: none, or not current).
  uint16_t* bf16_copy_to_update() { return precision_.copy_to_update(); }

  // z: (B, L, dims) token values, L = 2k tokens <= config.positions; targets: (B, k), or empty
  // for no loss. train: keep every layer's attention stores for backward() (else one store is
  // reused, so long evaluation sequences fit). Returns the mean loss (0 without targets).
  T forward(const std::vector<T>& z, const std::vector<T>& targets, int B, int L,
            ops::PointLoss loss, bool train);
  void backward();  // gradients of the last forward's mean loss (train = true)
  std::vector<T> predictions() const;  // (B, k) of the last forward, on the host

  // After each layer's attention in forward(), fn(layer, P) receives the (B, H, L, L) weights
  // (sequence b, head h: an (L, L) block at (b H + h) L^2), on the host. Null: none.
  using AttentionObserver = std::function<void(int layer, const std::vector<T>& weights)>;
  void observe_attention(AttentionObserver fn) { observer_ = std::move(fn); }

 private:
  struct Buffers;
  void reshape(int B, int L, bool train);
  blocks::CausalBlockStores<T> layer_stores(int l) const;  // layer l's slices of the buffers
  ops::AttentionShape attention_shape() const;
  void run_layer(int l);
  void back_layer(int l);

  Config cfg_;
  Layout layout_;
  Device device_;
  std::unique_ptr<Buffers> buf_;
  int B_ = 0, L_ = 0, N_ = 0, M_ = 0;
  bool train_ = false, has_loss_ = false;
  ops::PointLoss loss_kind_ = ops::PointLoss::squared_error;
  AttentionObserver observer_;
  ModelPrecision precision_;
};

}  // namespace bb::icl
