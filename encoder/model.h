// A text language model of either text kind, with a switchable attention scoring function:
//   roberta  RobertaForMaskedLM (post-LN BERT blocks, exact GELU, tied decoder;
//            encoder/roberta_passes.h)
//   gpt2     GPT2LMHeadModel (pre-LN causal blocks, gelu_new, LM head tied to wte;
//            causal_lm/passes.h)
// The config's kind picks the passes (encoder/passes.h); batches, staging, parameters, logits,
// loss and log-probabilities are the same for both. forward() computes the vocabulary projection
// only at batch.rows; backward() accumulates parameter gradients. Numerically equal to HF given the
// same weights.
#pragma once
#include <cstdint>
#include <functional>
#include <memory>
#include <unordered_map>
#include <vector>

#include "backend/device.h"
#include "backend/frozen_linear.h"
#include "backend/ops.h"
#include "backend/precision.h"
#include "backend/staging.h"
#include "common/buffer.h"
#include "encoder/batch.h"
#include "encoder/config.h"
#include "encoder/parameters.h"
#include "encoder/passes.h"

namespace bb {

struct StepContext {
  bool train = false;  // dropout on
  uint64_t seed = 0;   // dropout masks are a function of (seed, step, site, element)
  int64_t step = 0;
  // Data parallelism (encoder/trainer.h): the global index of the batch's first sequence, so that
  // dropout is keyed by the global example, and this batch's share of the global loss
  // (its masked tokens / the global batch's), which scales the loss gradient.
  int first_seq = 0;
  float loss_weight = 1.f;
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
  // After changing `params` on the host: copies them to the GPU, and drops the frozen linear
  // layers of an inference-only CPU model (re-frozen from `params` at the next forward).
  void upload_params();
  void download();       // device -> `params`, `grads`
  // Data parallelism: adds the gradients over the ranks, `sum` adding a host buffer in place
  // (on CUDA through the host copy `grads`).
  void sum_grads(const std::function<void(T*, size_t)>& sum);
  T* param_data() { return device_ == Device::cpu ? params.data() : dparams_.data(); }
  T* grad_data() { return device_ == Device::cpu ? grads.data() : dgrads_.data(); }

  void init_weights(uint64_t seed);  // also uploads
  // --precision (backend/precision.h): bf16 runs the linear layers on a bf16 copy of the weights
  // (CPU float models; checks the machine first). fp32 by default.
  void set_precision(Precision p);
  Precision precision() const { return precision_.get(); }
  // After the optimizer changed param_data() in place: the bf16 copy is cast again before the
  // next forward, unless the update wrote it too (`copy_written`, from bf16_copy_to_update()).
  void params_updated(bool copy_written = false) { precision_.params_changed(copy_written); }
  // --precision bf16: the copy an update may write as it goes (null: none, or not current).
  uint16_t* bf16_copy_to_update() { return precision_.copy_to_update(); }
  void zero_grads();
  // stage() + run_forward(); returns loss() when batch.labels is set, else 0.
  T forward(const Batch& batch, const StepContext& ctx);
  // Checks the batch and hands its indices and the step's dropout keys to the device (one
  // asynchronous copy on CUDA). run_forward() and backward() then queue the step's ops; their
  // launches depend only on the batch's sizes, so a CUDA step can be captured in a graph.
  void stage(const Batch& batch, const StepContext& ctx);
  void run_forward();
  void backward();  // gradients of loss_weight x the staged batch's mean loss (StepContext)
  // The mean cross-entropy of the last forward over the rows with a label >= 0 (synchronises on
  // CUDA).
  T loss() const;
  const T* logits() const { return passes_->logits(); }  // (M, V) of the last forward, on device()
  void logits_to_host(std::vector<T>& out) const;  // (M, V) of the last forward, in host memory
  // logp(M) = log softmax(logits[m])[targets[m]]: the log-probability of each scored row's
  // target under the last forward (synchronises on CUDA).
  void target_log_probs(const std::vector<int32_t>& targets, std::vector<T>& logp);
  // Layer l, head h's effective trainable scoring value `slot` (< head_value_count: ssa 0 = b,
  // 1 = n; softmax-t 0 = tau), from the host params.
  T head_value(int l, int h, int slot) const;
  // CPU models: after each layer's attention in run_forward(), `fn(layer, S, P)` receives that
  // layer's scores and weights of the staged batch, laid out as ops::AttentionShape's stores
  // (sequence b, head h: an (L_b, L_b) block at sum_{b' < b} H L_b'^2 + h L_b^2); valid only
  // during the call. Null: none. For inspection (probing/attention_maps.h).
  using AttentionObserver = std::function<void(int layer, const T* scores, const T* weights)>;
  void observe_attention(AttentionObserver fn);

 private:
  // y(N,out) = x(N,in) W^T + bias. An inference-only CPU float model freezes W on first use
  // (ops::freeze_linear) and runs the frozen product from then on.
  void linear(T* y, const T* x, const T* W, const T* bias, int N, int in, int out);
  uint64_t dropout_key(const StepContext& ctx, int site) const;
  StagedBatch staged() const;  // where the ops read the staged batch (device_ memory)
  PassContext<T> pass_context();  // the staged batch as the passes see it

  Config cfg_;
  ParamLayout layout_;
  Capacity cap_;
  Device device_;  // every Array below lives there
  Array<T> dparams_{device_}, dgrads_{device_};  // cuda only
  std::unique_ptr<KindPasses<T>> passes_;  // the kind's activations and passes
  Array<int32_t> targets_{device_};  // (M) target_log_probs's targets (cuda only)
  // Inference-only CPU float models: each linear layer's weights (by address in params), frozen
  // since the last upload_params().
  std::unordered_map<const T*, std::shared_ptr<ops::FrozenLinear>> frozen_;
  // The staged batch: slots of inputs_ (kIds ... kKeys), read by the ops on device_.
  enum Slot { kIds, kPos, kRowIds, kOffsets, kStoreAt, kRows, kLabels, kSelRowIds, kKeys };
  std::unique_ptr<StagingBlock> inputs_;
  int B_ = 0, N_ = 0, M_ = 0;  // sizes of the staged batch
  bool staged_ = false, train_ = false, has_loss_ = false;
  int first_seq_ = 0;      // StepContext::first_seq of the staged batch
  float loss_weight_ = 1;  // StepContext::loss_weight of the staged batch
  AttentionObserver observer_;
  ModelPrecision precision_;
};

}  // namespace bb
