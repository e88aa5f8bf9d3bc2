// A text model kind's own passes behind encoder/model.h's Model: its activations, its forward and
// backward over a staged batch, and its initial weights. Model stages batches, owns the
// parameters and routes the calls; each kind (roberta: encoder/roberta_passes.h, gpt2:
// causal_lm/passes.h) is a KindPasses made by make_kind_passes (encoder/passes.cpp).
#pragma once
#include <cstdint>
#include <functional>
#include <memory>

#include "backend/device.h"
#include "encoder/batch.h"
#include "encoder/config.h"
#include "encoder/parameters.h"

namespace bb {

// Where the ops read the staged batch (the model's device memory).
struct StagedBatch {
  const int32_t *ids, *pos, *offsets, *rows, *labels;
  const int64_t *row_ids, *store_at, *sel_row_ids;
};

// y(N,out) = x(N,in) W^T + bias: the model's linear layer (an inference-only CPU float model runs
// frozen weights).
template <typename T>
using ModelLinear = std::function<void(T* y, const T* x, const T* W, const T* bias, int N, int in,
                                       int out)>;
// After each layer's attention (CPU models): fn(layer, S, P) over the staged batch's stores.
template <typename T>
using LayerObserver = std::function<void(int layer, const T* scores, const T* weights)>;

// One staged batch as the passes see it.
template <typename T>
struct PassContext {
  T* params = nullptr;  // on the model's device
  T* grads = nullptr;   // null on an inference-only model
  StagedBatch in{};
  int B = 0, N = 0, M = 0;  // sequences, tokens, scored rows
  bool train = false;       // dropout on (a training forward)
  bool has_loss = false;    // labels staged
  int first_seq = 0;        // global index of the first sequence (dropout rows)
  float loss_weight = 1;    // scales the loss gradient (data parallelism)
  const uint64_t* keys = nullptr;  // the step's dropout keys, one per site (device memory)
  ModelLinear<T> linear;
  LayerObserver<T> observer;  // may be empty
};

template <typename T>
class KindPasses {
 public:
  virtual ~KindPasses() = default;
  // Fills the host buffer `params` with the kind's initial weights, a pure function of the seed.
  virtual void init_weights(T* params, uint64_t seed) const = 0;
  // The number of dropout sites whose keys a step stages (site ids 0 .. sites - 1).
  virtual int dropout_sites() const = 0;
  virtual void forward(const PassContext<T>& c) = 0;
  virtual void backward(const PassContext<T>& c) = 0;  // gradients accumulate (+=) into c.grads
  // Device pointers into the activations, valid after forward: (M, V) logits at the scored rows,
  // (1) the mean cross-entropy over the labelled rows, (M) target_log_probs's output.
  virtual T* logits() const = 0;
  virtual T* loss() const = 0;
  virtual T* target_logp() const = 0;
};

// The passes of c's kind (roberta or gpt2), sized for `cap` on `device`.
template <typename T>
std::unique_ptr<KindPasses<T>> make_kind_passes(const Config& c, const ParamLayout& layout,
                                                const Capacity& cap, Device device);

}  // namespace bb
