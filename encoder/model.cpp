#include "encoder/model.h"

#include <algorithm>
#include <cmath>
#include <cstring>
#include <type_traits>

#include "backend/ops.h"
#include "common/error.h"
#include "common/philox.h"

namespace bb {

namespace {
// The checks a model's settings must pass before anything is allocated.
const Capacity& checked(const Config& c, const Capacity& cap, Device device, bool is_float) {
  c.validate("model config");
  BB_CHECK(device == Device::cpu || is_float, "internal: the CUDA model is float only");
  require_device(device);
  BB_CHECK(cap.max_rows <= cap.max_tokens,
           "capacity: {} scored rows exceed the {} rows of a batch", cap.max_rows, cap.max_tokens);
  BB_CHECK(cap.max_len <= c.max_tokens(), "capacity: max_len {} exceeds the model's {} tokens",
           cap.max_len, c.max_tokens());
  return cap;
}
}  // namespace

template <typename T>
Model<T>::Model(const Config& config, const Capacity& cap, Device device)
    : cfg_(config),
      layout_(config),
      cap_(checked(config, cap, device, std::is_same_v<T, float>)),
      device_(device),
      passes_(make_kind_passes<T>(cfg_, layout_, cap_, device)) {
  params.assign(layout_.total, T(0));
  if (device == Device::cuda) {
    dparams_.assign(layout_.total, T(0));
    if (!cap.inference_only) dgrads_.assign(layout_.total, T(0));
    targets_.assign(cap.max_rows, 0);
  }
  if (!cap.inference_only) grads.assign(layout_.total, T(0));
  const size_t N = size_t(cap.max_tokens), S = size_t(cap.max_seqs) + 1, R = size_t(cap.max_rows);
  std::vector<size_t> slots(kKeys + 1);
  slots[kIds] = slots[kPos] = N * sizeof(int32_t);
  slots[kRowIds] = N * sizeof(int64_t);
  slots[kOffsets] = S * sizeof(int32_t);
  slots[kStoreAt] = S * sizeof(int64_t);
  slots[kRows] = slots[kLabels] = R * sizeof(int32_t);
  slots[kSelRowIds] = R * sizeof(int64_t);
  slots[kKeys] = size_t(passes_->dropout_sites()) * sizeof(uint64_t);
  inputs_ = std::make_unique<StagingBlock>(device, slots);
}

template <typename T>
StagedBatch Model<T>::staged() const {
  const StagingBlock& in = *inputs_;
  return {in.device<int32_t>(kIds),        in.device<int32_t>(kPos),
          in.device<int32_t>(kOffsets),    in.device<int32_t>(kRows),
          in.device<int32_t>(kLabels),     in.device<int64_t>(kRowIds),
          in.device<int64_t>(kStoreAt),    in.device<int64_t>(kSelRowIds)};
}

template <typename T>
void Model<T>::upload_params() {
  if (device_ == Device::cuda) dparams_.from_host(params.data(), params.size());
  frozen_.clear();  // linear() freezes the new weights at the next forward
  precision_.params_changed();
}

template <typename T>
void Model<T>::set_precision(Precision p) {
  constexpr bool is_float = std::is_same_v<T, float>;
  BB_CHECK(p == Precision::fp32 || is_float, "internal: bf16 on a double model");
  precision_.set(p, device_);
  frozen_.clear();
}

template <typename T>
void Model<T>::linear(T* y, const T* x, const T* W, const T* bias, int N, int in, int out) {
  if constexpr (std::is_same_v<T, float>) {
    if (device_ == Device::cpu && cap_.inference_only) {
      std::shared_ptr<ops::FrozenLinear>& frozen = frozen_[W];
      if (!frozen) frozen = ops::freeze_linear(W, in, out, precision_.get());
      return ops::linear_frozen_forward(y, x, *frozen, bias, N);
    }
  }
  ops::linear_forward<T>(y, x, W, bias, N, in, out);
}

template <typename T>
void Model<T>::download() {
  if (device_ == Device::cpu) return;
  const std::vector<T> p = dparams_.host();
  params.assign(p.begin(), p.end());
  if (cap_.inference_only) return;
  const std::vector<T> g = dgrads_.host();
  grads.assign(g.begin(), g.end());
}

template <typename T>
void Model<T>::sum_grads(const std::function<void(T*, size_t)>& sum) {
  if (device_ == Device::cpu) return sum(grads.data(), grads.size());
  const std::vector<T> g = dgrads_.host();
  grads.assign(g.begin(), g.end());
  sum(grads.data(), grads.size());
  dgrads_.from_host(grads.data(), grads.size());
}

template <typename T>
uint64_t Model<T>::dropout_key(const StepContext& ctx, int site) const {
  return stream_key(ctx.seed, (uint64_t(ctx.step) << 16) | uint64_t(site));
}

template <typename T>
void Model<T>::init_weights(uint64_t seed) {
  passes_->init_weights(params.data(), seed);
  upload_params();
}

template <typename T>
void Model<T>::zero_grads() {
  BB_CHECK(!cap_.inference_only, "internal: zero_grads() on an inference-only model");
  const DeviceScope on(device_);
  ops::fill_zero<T>(grad_data(), layout_.total);
}

template <typename T>
T Model<T>::head_value(int l, int h, int slot) const {
  BB_CHECK(slot >= 0 && slot < head_value_count(cfg_.attention),
           "internal: {} has no trainable value {}", attention_function_name(cfg_.attention), slot);
  BB_CHECK(l >= 0 && l < cfg_.layers && h >= 0 && h < cfg_.heads,
           "internal: no head {} in layer {}", h, l);
  const ParamKind kind = head_value_kind(slot);
  int layer = 0;  // the slot's tensors, one per layer in layer order (every kind's layout)
  for (const ParamTensor& t : layout_.tensors)
    if (t.kind == kind && layer++ == l) return T(effective_value(kind, params[t.offset + h]));
  fail("internal: no trainable value {} in layer {}", slot, l);
}

template <typename T>
void Model<T>::observe_attention(AttentionObserver fn) {
  BB_CHECK(!fn || device_ == Device::cpu, "internal: attention observers run on CPU models only");
  observer_ = std::move(fn);
}

template <typename T>
T Model<T>::forward(const Batch& batch, const StepContext& sc) {
  stage(batch, sc);
  run_forward();
  return has_loss_ ? loss() : T(0);
}

template <typename T>
T Model<T>::loss() const {
  BB_CHECK(staged_ && has_loss_, "internal: loss() needs a forward() with labels first");
  T loss = 0;
  if (device_ == Device::cpu) loss = *passes_->loss();
  else cuda_download(&loss, passes_->loss(), sizeof(T));
  return loss;
}

template <typename T>
void Model<T>::target_log_probs(const std::vector<int32_t>& targets, std::vector<T>& logp) {
  BB_CHECK(staged_ && int(targets.size()) == M_,
           "internal: target_log_probs needs a forward() and one target per scored row");
  const int M = M_, V = cfg_.vocab_size;
  logp.resize(size_t(M));
  const DeviceScope on(device_);
  if (device_ == Device::cpu)
    return ops::target_log_probs<T>(logp.data(), passes_->logits(), targets.data(), M, V);
  targets_.from_host(targets.data(), size_t(M));
  ops::target_log_probs<T>(passes_->target_logp(), passes_->logits(), targets_.data(), M, V);
  cuda_download(logp.data(), passes_->target_logp(), sizeof(T) * size_t(M));
}

template <typename T>
void Model<T>::logits_to_host(std::vector<T>& out) const {
  BB_CHECK(staged_, "internal: logits_to_host needs a forward()");
  out.resize(size_t(M_) * size_t(cfg_.vocab_size));
  const T* logits = passes_->logits();
  if (device_ == Device::cpu) {
    std::copy(logits, logits + out.size(), out.begin());
    return;
  }
  const DeviceScope on(device_);
  cuda_download(out.data(), logits, sizeof(T) * out.size());
}

template <typename T>
void Model<T>::stage(const Batch& batch, const StepContext& sc) {
  const int B = batch.num_seqs(), N = batch.num_tokens(), M = batch.num_rows();
  const int V = cfg_.vocab_size, H = cfg_.heads;
  BB_CHECK(B >= 1 && batch.offsets.front() == 0 && batch.offsets.back() == N,
           "batch: offsets must run from 0 to the {} tokens", N);
  BB_CHECK(B <= cap_.max_seqs && N <= cap_.max_tokens && M <= cap_.max_rows,
           "batch of {} sequences, {} tokens, {} scored rows exceeds capacity ({}, {}, {})", B, N,
           M, cap_.max_seqs, cap_.max_tokens, cap_.max_rows);
  BB_CHECK(batch.labels.empty() || batch.labels.size() == batch.rows.size(),
           "batch: {} labels for {} scored rows", batch.labels.size(), batch.rows.size());
  BB_CHECK(!(sc.train && cap_.inference_only),
           "internal: a training forward on an inference-only model");
  for (int n = 0; n < N; ++n)
    BB_CHECK(batch.ids[n] >= 0 && batch.ids[n] < V, "batch: token id {} outside vocabulary of {}",
             batch.ids[n], V);
  for (int m = 0; m < M; ++m) {
    BB_CHECK(batch.rows[m] >= 0 && batch.rows[m] < N, "batch: scored row {} outside the batch",
             batch.rows[m]);
    if (!batch.labels.empty())
      BB_CHECK(batch.labels[m] >= -1 && batch.labels[m] < V,
               "batch: label {} outside vocabulary (-1: ignored)", batch.labels[m]);
  }
  StagingBlock& in = *inputs_;
  in.begin_write();
  int32_t* pos = in.host<int32_t>(kPos);
  int64_t* row_ids = in.host<int64_t>(kRowIds);
  int64_t* store_at = in.host<int64_t>(kStoreAt);
  const int first_position = cfg_.first_position();
  store_at[0] = 0;
  for (int b = 0; b < B; ++b) {
    const int off = batch.offsets[b], L = batch.offsets[b + 1] - off;
    BB_CHECK(L >= 0 && L <= cap_.max_len, "batch: sequence {} has length {} (max {})", b, L,
             cap_.max_len);
    for (int t = 0; t < L; ++t) {
      pos[off + t] = first_position + t;
      row_ids[off + t] = (int64_t(sc.first_seq + b) << 16) | t;
    }
    store_at[b + 1] = store_at[b] + int64_t(H) * L * L;
  }
  std::copy(batch.ids.begin(), batch.ids.end(), in.host<int32_t>(kIds));
  std::copy(batch.offsets.begin(), batch.offsets.end(), in.host<int32_t>(kOffsets));
  std::copy(batch.rows.begin(), batch.rows.end(), in.host<int32_t>(kRows));
  std::copy(batch.labels.begin(), batch.labels.end(), in.host<int32_t>(kLabels));
  int64_t* sel_row_ids = in.host<int64_t>(kSelRowIds);
  for (int m = 0; m < M; ++m) sel_row_ids[m] = row_ids[batch.rows[m]];
  uint64_t* keys = in.host<uint64_t>(kKeys);
  for (int site = 0; site < passes_->dropout_sites(); ++site) keys[site] = dropout_key(sc, site);
  in.upload();
  B_ = B, N_ = N, M_ = M;
  train_ = sc.train;
  first_seq_ = sc.first_seq;
  loss_weight_ = sc.loss_weight;
  has_loss_ = !batch.labels.empty();
  staged_ = true;
}

template <typename T>
PassContext<T> Model<T>::pass_context() {
  PassContext<T> c;
  c.params = param_data();
  c.grads = cap_.inference_only ? nullptr : grad_data();
  c.in = staged();
  c.B = B_, c.N = N_, c.M = M_;
  c.train = train_;
  c.has_loss = has_loss_;
  c.first_seq = first_seq_;
  c.loss_weight = loss_weight_;
  c.keys = inputs_->device<uint64_t>(kKeys);
  c.linear = [this](T* y, const T* x, const T* W, const T* bias, int rows, int n_in, int n_out) {
    linear(y, x, W, bias, rows, n_in, n_out);
  };
  c.observer = observer_;
  return c;
}

template <typename T>
void Model<T>::run_forward() {
  BB_CHECK(staged_, "internal: run_forward() before stage()");
  const DeviceScope on(device_);
  const PrecisionScope precision = precision_.pass(param_data(), layout_.total);
  passes_->forward(pass_context());
}

template <typename T>
void Model<T>::backward() {
  BB_CHECK(!cap_.inference_only, "internal: backward() on an inference-only model");
  BB_CHECK(staged_ && has_loss_, "backward() needs a forward() with labels first");
  const DeviceScope on(device_);
  const PrecisionScope precision = precision_.pass(param_data(), layout_.total);
  passes_->backward(pass_context());
}

template class Model<float>;
template class Model<double>;

}  // namespace bb
