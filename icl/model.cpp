// Forward and backward of the ICL model, op by op (shapes: N = B L tokens, M = B k predictions,
// C hidden, F = 4C, H heads; stores hold (B, H, L, L) attention blocks).
#include "icl/model.h"

#include <cmath>
#include <type_traits>

#include "common/error.h"
#include "common/philox.h"

namespace bb::icl {

template <typename T>
struct Model<T>::Buffers {
  explicit Buffers(Device d)
      : params(d), grads(d), z(d), targets(d), offsets(d), rows(d), store_at(d), x(d), ln1(d),
        ln1_mean(d), ln1_rstd(d), qkv(d), S(d), P(d), mask(d), ctx(d), mid(d), ln2(d),
        ln2_mean(d), ln2_rstd(d), fc(d), act(d), lnf(d), lnf_mean(d), lnf_rstd(d), sel(d),
        pred(d), loss(d), v0(d), v1(d), dx(d), dtmp(d), dqkv(d), dctx(d), dfc(d), dact(d),
        dsel(d), dpred(d), dv0(d), dv1(d), scratch(d) {}
  Array<T> params, grads;  // cuda only (the CPU uses the host buffers)
  Array<T> z, targets;
  Array<int32_t> offsets, rows;  // (B+1), (M)
  Array<int64_t> store_at;                          // (B+1)
  // Per layer (index l), the residual stream x has layers + 1 entries of (N, C).
  Array<T> x, ln1, ln1_mean, ln1_rstd, qkv, S, P, mask, ctx, mid, ln2, ln2_mean, ln2_rstd, fc, act;
  Array<T> lnf, lnf_mean, lnf_rstd, sel, pred, loss;
  Array<T> v0, v1;  // (layers, H) effective trainable values
  Array<T> dx, dtmp, dqkv, dctx, dfc, dact, dsel, dpred, dv0, dv1, scratch;
};

namespace {
template <typename T>
void ensure(Array<T>& a, int64_t n) {
  if (int64_t(a.size()) != n) a.assign(size_t(n), T(0));
}
}  // namespace

template <typename T>
Model<T>::Model(const Config& config, Device device)
    : cfg_(config), layout_(config), device_(device), buf_(std::make_unique<Buffers>(device)) {
  cfg_.validate("ICL model config");
  BB_CHECK((device_ == Device::cpu || std::is_same_v<T, float>),
           "internal: the CUDA ICL model is float only");
  params.assign(size_t(layout_.total), T(0));
  grads.assign(size_t(layout_.total), T(0));
  if (device_ == Device::cuda) {
    buf_->params.assign(size_t(layout_.total), T(0));
    buf_->grads.assign(size_t(layout_.total), T(0));
  }
  ensure(buf_->v0, int64_t(cfg_.layers) * cfg_.heads);
  ensure(buf_->v1, int64_t(cfg_.layers) * cfg_.heads);
  ensure(buf_->dv0, int64_t(cfg_.layers) * cfg_.heads);
  ensure(buf_->dv1, int64_t(cfg_.layers) * cfg_.heads);
  ensure(buf_->loss, 1);
}

template <typename T>
Model<T>::~Model() = default;

template <typename T>
T* Model<T>::param_data() {
  return device_ == Device::cpu ? params.data() : buf_->params.data();
}
template <typename T>
T* Model<T>::grad_data() {
  return device_ == Device::cpu ? grads.data() : buf_->grads.data();
}

template <typename T>
void Model<T>::upload_params() {
  if (device_ == Device::cuda) buf_->params.from_host(params.data(), params.size());
  precision_.params_changed();
}

template <typename T>
void Model<T>::download() {
  if (device_ != Device::cuda) return;
  const std::vector<T> p = buf_->params.host(), g = buf_->grads.host();
  std::copy(p.begin(), p.end(), params.begin());
  std::copy(g.begin(), g.end(), grads.begin());
}

template <typename T>
void Model<T>::init_weights(uint64_t seed) {
  const double std_res = cfg_.init_std / std::sqrt(2.0 * cfg_.layers);
  for (const ParamTensor& t : layout_.tensors) {
    // Keyed by the tensor's name, not its position: runs of different functions with one seed
    // start from the same weights wherever they have the same tensors (paired seeds).
    const Philox rng{stream_key(seed, name_stream(t.name))};
    T* p = params.data() + t.offset;
    for (int64_t e = 0; e < t.size; ++e) {
      switch (t.init) {
        case Init::normal: p[e] = T(cfg_.init_std * rng.normal(0, uint64_t(e))); break;
        case Init::normal_residual: p[e] = T(std_res * rng.normal(0, uint64_t(e))); break;
        case Init::linear_default: {
          const double bound = 1.0 / std::sqrt(double(t.fan_in));
          p[e] = T(bound * (2.0 * rng.uniform(0, uint64_t(e)) - 1.0));
          break;
        }
        case Init::zeros: p[e] = T(0); break;
        case Init::ones: p[e] = T(1); break;
        case Init::head_value0: p[e] = T(raw_head_value(0, cfg_.head_value_init(0))); break;
        case Init::head_value1: p[e] = T(raw_head_value(1, cfg_.head_value_init(1))); break;
      }
    }
  }
  upload_params();
}

template <typename T>
void Model<T>::zero_grads() {
  DeviceScope scope(device_);
  ops::fill_zero<T>(grad_data(), layout_.total);
}

// Sizes every activation for B sequences of L tokens (reallocates only when they change).
template <typename T>
void Model<T>::reshape(int B, int L, bool train) {
  BB_CHECK(B >= 1 && L >= 2 && L % 2 == 0 && L <= cfg_.positions,
           "ICL batch: {} sequences of {} tokens (expected an even length from 2 to {})", B, L,
           cfg_.positions);
  BB_CHECK(device_ == Device::cpu || L <= 512,
           "ICL batch: the CUDA attention takes at most 512 tokens, got {}", L);
  const bool same = B == B_ && L == L_ && train == train_;
  B_ = B, L_ = L, N_ = B * L, M_ = B * (L / 2), train_ = train;
  if (same) return;
  Buffers& b = *buf_;
  const int64_t C = cfg_.hidden, F = cfg_.ffn(), H = cfg_.heads, N = N_, Ls = cfg_.layers;
  const int64_t block = int64_t(B) * H * L * L, stores = train ? Ls : 1;
  ensure(b.z, N * cfg_.dims);
  ensure(b.targets, M_);
  ensure(b.x, (Ls + 1) * N * C);
  ensure(b.qkv, Ls * N * 3 * C);
  ensure(b.ctx, Ls * N * C);
  for (Array<T>* a : {&b.S, &b.P, &b.mask}) ensure(*a, stores * block);
  if (cfg_.has_mlp()) {
    for (Array<T>* a : {&b.ln1, &b.mid, &b.ln2}) ensure(*a, Ls * N * C);
    for (Array<T>* a : {&b.ln1_mean, &b.ln1_rstd, &b.ln2_mean, &b.ln2_rstd}) ensure(*a, Ls * N);
    for (Array<T>* a : {&b.fc, &b.act}) ensure(*a, Ls * N * F);
    for (Array<T>* a : {&b.dfc, &b.dact}) ensure(*a, N * F);
  }
  ensure(b.lnf, N * C);
  ensure(b.lnf_mean, N);
  ensure(b.lnf_rstd, N);
  ensure(b.sel, int64_t(M_) * C);
  ensure(b.pred, M_);
  for (Array<T>* a : {&b.dx, &b.dtmp, &b.dctx}) ensure(*a, N * C);
  ensure(b.dqkv, N * 3 * C);
  ensure(b.dsel, int64_t(M_) * C);
  ensure(b.dpred, M_);
  ensure(b.scratch, 2 * H * B);
  // Sequence b: tokens [b L, (b+1) L); its (H, L, L) block at b H L^2; prediction rows 2i.
  std::vector<int32_t> offsets(size_t(B) + 1), rows(static_cast<size_t>(M_));
  std::vector<int64_t> store_at(size_t(B) + 1);
  for (int s = 0; s <= B; ++s) offsets[size_t(s)] = s * L, store_at[size_t(s)] = int64_t(s) * H * L * L;
  for (int m = 0; m < M_; ++m) rows[size_t(m)] = 2 * m;  // (b L + 2i) = 2 (b k + i)
  ensure(b.offsets, B + 1);
  ensure(b.store_at, B + 1);
  ensure(b.rows, M_);
  b.offsets.from_host(offsets.data(), offsets.size());
  b.store_at.from_host(store_at.data(), store_at.size());
  b.rows.from_host(rows.data(), rows.size());
}

template <typename T>
T Model<T>::forward(const std::vector<T>& z, const std::vector<T>& targets, int B, int L,
                    ops::PointLoss loss, bool train) {
  DeviceScope scope(device_);
  const PrecisionScope precision = precision_.pass(param_data(), layout_.total);
  reshape(B, L, train);
  BB_CHECK(z.size() == size_t(N_) * cfg_.dims, "internal: ICL inputs hold {} values, expected {}",
           z.size(), size_t(N_) * cfg_.dims);
  BB_CHECK(targets.empty() || targets.size() == size_t(M_),
           "internal: ICL targets hold {} values, expected {}", targets.size(), M_);
  Buffers& b = *buf_;
  has_loss_ = !targets.empty();
  loss_kind_ = loss;
  b.z.from_host(z.data(), z.size());
  if (has_loss_) b.targets.from_host(targets.data(), targets.size());
  const Views<T> pv(layout_, cfg_, param_data());
  const int C = cfg_.hidden;
  // x0 = read_in(z) + wpe[position]
  T* x0 = b.x.data();
  ops::linear_forward<T>(x0, b.z.data(), pv.read_in_w, pv.read_in_b, N_, cfg_.dims, C);
  for (int s = 0; s < B_; ++s) ops::add_inplace<T>(x0 + int64_t(s) * L_ * C, pv.wpe, int64_t(L_) * C);
  for (int l = 0; l < cfg_.layers; ++l) run_layer(l);
  // pred(M) = read_out(ln_f(x_L))[x positions]
  const T* xL = b.x.data() + int64_t(cfg_.layers) * N_ * C;
  ops::layernorm_forward<T>(b.lnf.data(), b.lnf_mean.data(), b.lnf_rstd.data(), xL, pv.ln_f_w,
                            pv.ln_f_b, N_, C, T(cfg_.layer_norm_eps));
  ops::gather_rows<T>(b.sel.data(), b.lnf.data(), b.rows.data(), M_, C);
  ops::linear_forward<T>(b.pred.data(), b.sel.data(), pv.read_out_w, pv.read_out_b, M_, C, 1);
  if (!has_loss_) return T(0);
  ops::point_loss_forward<T>(b.loss.data(), b.pred.data(), b.targets.data(), M_, loss);
  return b.loss.host()[0];
}

template <typename T>
blocks::CausalBlockStores<T> Model<T>::layer_stores(int l) const {
  Buffers& b = *buf_;
  const int C = cfg_.hidden, H = cfg_.heads, F = cfg_.ffn();
  const int64_t NC = int64_t(N_) * C, block = int64_t(B_) * H * L_ * L_;
  const int64_t store = (train_ ? l : 0) * block;
  blocks::CausalBlockStores<T> a;
  a.x = b.x.data() + l * NC;
  a.out = b.x.data() + (l + 1) * NC;
  a.qkv = b.qkv.data() + l * 3 * NC;
  a.ctx = b.ctx.data() + l * NC;
  a.S = b.S.data() + store, a.P = b.P.data() + store, a.mask = b.mask.data() + store;
  a.v0 = b.v0.data() + l * H, a.v1 = b.v1.data() + l * H;
  if (cfg_.has_mlp()) {
    a.ln1 = b.ln1.data() + l * NC;
    a.ln1_mean = b.ln1_mean.data() + l * N_, a.ln1_rstd = b.ln1_rstd.data() + l * N_;
    a.mid = b.mid.data() + l * NC;
    a.ln2 = b.ln2.data() + l * NC;
    a.ln2_mean = b.ln2_mean.data() + l * N_, a.ln2_rstd = b.ln2_rstd.data() + l * N_;
    a.fc = b.fc.data() + l * int64_t(N_) * F;
    a.act = b.act.data() + l * int64_t(N_) * F;
  }
  return a;
}

template <typename T>
ops::AttentionShape Model<T>::attention_shape() const {
  ops::AttentionShape shape{B_, cfg_.heads, cfg_.hidden, buf_->offsets.data(),
                            buf_->store_at.data()};
  shape.causal = true;
  shape.max_len = L_;
  return shape;
}

template <typename T>
void Model<T>::run_layer(int l) {
  const Views<T> pv(layout_, cfg_, param_data());
  const blocks::CausalBlockStores<T> a = layer_stores(l);
  const int64_t block = int64_t(B_) * cfg_.heads * L_ * L_;
  std::function<void()> observe;
  if (observer_)
    observe = [&] {
      const std::vector<T> P = buf_->P.host();
      const auto at = P.begin() + (a.P - buf_->P.data());
      observer_(l, std::vector<T>(at, at + block));
    };
  blocks::causal_block_forward<T>(block_spec(cfg_), pv.layers[size_t(l)], a, attention_shape(),
                                  N_, observe);
}

template <typename T>
void Model<T>::backward() {
  BB_CHECK(has_loss_ && train_, "internal: ICL backward needs a training forward with targets");
  DeviceScope scope(device_);
  const PrecisionScope precision = precision_.pass(param_data(), layout_.total);
  Buffers& b = *buf_;
  const Views<T> pv(layout_, cfg_, param_data());
  const Views<T> gv(layout_, cfg_, grad_data());
  const int C = cfg_.hidden;
  const int64_t NC = int64_t(N_) * C;
  ops::point_loss_backward<T>(b.dpred.data(), b.pred.data(), b.targets.data(), M_, loss_kind_,
                              T(1));
  ops::linear_backward<T>(b.dsel.data(), gv.read_out_w, gv.read_out_b, b.dpred.data(),
                          b.sel.data(), pv.read_out_w, M_, C, 1);
  ops::scatter_rows<T>(b.dtmp.data(), b.dsel.data(), b.rows.data(), M_, N_, C);
  const T* xL = b.x.data() + int64_t(cfg_.layers) * NC;
  ops::layernorm_backward<T>(b.dx.data(), gv.ln_f_w, gv.ln_f_b, b.dtmp.data(), xL,
                             b.lnf_mean.data(), b.lnf_rstd.data(), pv.ln_f_w, N_, C);
  for (int l = cfg_.layers - 1; l >= 0; --l) back_layer(l);
  // x0 = read_in(z) + wpe: dwpe += dx per sequence (in order), dW_in, db_in
  for (int s = 0; s < B_; ++s)
    ops::add_inplace<T>(gv.wpe, b.dx.data() + int64_t(s) * L_ * C, int64_t(L_) * C);
  ops::linear_backward<T>(nullptr, gv.read_in_w, gv.read_in_b, b.dx.data(), b.z.data(),
                          pv.read_in_w, N_, cfg_.dims, C);
}

// On entry b.dx = dL/d out (the layer's output); on exit dL/d x (its input).
template <typename T>
void Model<T>::back_layer(int l) {
  Buffers& b = *buf_;
  const Views<T> pv(layout_, cfg_, param_data());
  const Views<T> gv(layout_, cfg_, grad_data());
  const int H = cfg_.heads;
  blocks::CausalBlockScratch<T> d;
  d.dtmp = b.dtmp.data(), d.dctx = b.dctx.data(), d.dqkv = b.dqkv.data();
  d.dfc = b.dfc.data(), d.dact = b.dact.data();
  d.dv0 = b.dv0.data() + l * H, d.dv1 = b.dv1.data() + l * H, d.scratch = b.scratch.data();
  blocks::causal_block_backward<T>(block_spec(cfg_), pv.layers[size_t(l)], gv.layers[size_t(l)],
                                   layer_stores(l), d, b.dx.data(), attention_shape(), N_);
}

template <typename T>
std::vector<T> Model<T>::predictions() const {
  std::vector<T> p = buf_->pred.host();
  p.resize(size_t(M_));
  return p;
}

template class Model<float>;
template class Model<double>;

}  // namespace bb::icl
