// bench gemm (see bench_gemm.h). GFLOP/s count 2·M·N·K per product; each figure is the best of 3
// windows.
#include "cli/bench_gemm.h"

#include <fmt/core.h>
#include <nlohmann/json.hpp>

#include <algorithm>
#include <functional>
#include <map>
#include <memory>
#include <utility>
#include <vector>

#include "backend/frozen_linear.h"
#include "backend/kernel_choice.h"
#include "backend/cpu/bf16_gemm.h"
#include "backend/ops.h"
#include "backend/precision.h"
#include "backend/threads.h"
#include "cli/bench_windows.h"
#include "common/buffer.h"
#include "encoder/config.h"

namespace bb::cli {
namespace {

// Best GFLOP/s of 3 rounds of `product` (flops each), a third of `seconds` per round.
double best_gflops(double seconds, double flops, const std::function<void()>& product) {
  double best = 0;
  for (const Window& w : timed_windows(3, seconds / 3, [] {}, [&](std::map<std::string, double>& n) {
         product();
         n["reps"] += 1;
       }))
    best = std::max(best, flops * w.counts.at("reps") / w.seconds * 1e-9);
  return best;
}

struct Proj {
  int in, out;
  Buffer<float> W, bias;
  std::shared_ptr<ops::FrozenLinear> frozen;
};

// --precision bf16's figures (bench_gemm.h): the weights' bf16 copies are cast once per "update"
// in the role figures (as training does: once per step for forward and both gradients).
nlohmann::json bf16_figures(const GemmBenchSettings& a, const std::vector<Proj>& layer, int rows) {
  require_precision(Precision::bf16, Device::cpu);
  const int n = 1024;
  std::vector<uint16_t> A(size_t(n) * n, to_bf16(0.5f)), B(size_t(n) * n, to_bf16(0.25f));
  Buffer<float> C(int64_t(n) * n, 0.f);
  const double square = best_gflops(a.seconds / 4, 2.0 * n * n * n, [&] {
    cpu::gemm_bf16(false, true, n, n, n, A.data(), n, B.data(), n, false, C.data(), n);
  });
  std::vector<LowPrecisionWeights> copies(layer.size());
  double flops = 0;
  int widest = 0;
  for (const Proj& p : layer) flops += 2.0 * rows * p.in * p.out, widest = std::max({widest, p.in, p.out});
  Buffer<float> x(int64_t(rows) * widest, 0.5f), y(int64_t(rows) * widest, 0.f),
      dx(int64_t(rows) * widest, 0.f);
  auto refresh = [&] {
    for (size_t i = 0; i < layer.size(); ++i)
      copies[i].refresh(layer[i].W.data(), int64_t(layer[i].W.size()));
  };
  refresh();
  const double train_layer = best_gflops(a.seconds / 4, flops, [&] {
    for (size_t i = 0; i < layer.size(); ++i) {
      const PrecisionScope scope(&copies[i]);
      ops::linear_forward<float>(y.data(), x.data(), layer[i].W.data(), layer[i].bias.data(), rows,
                                 layer[i].in, layer[i].out);
    }
  });
  std::vector<std::shared_ptr<ops::FrozenLinear>> frozen;
  for (const Proj& p : layer) frozen.push_back(ops::freeze_linear(p.W.data(), p.in, p.out, Precision::bf16));
  const double frozen_layer = best_gflops(a.seconds / 4, flops, [&] {
    for (size_t i = 0; i < layer.size(); ++i)
      ops::linear_frozen_forward(y.data(), x.data(), *frozen[i], layer[i].bias.data(), rows);
  });
  // A training step's three roles over 192 tokens (batch 16 of ~12), each in fp32 and in bf16.
  const int tokens = 192;
  double role_flops = 0;
  for (const Proj& p : layer) role_flops += 2.0 * tokens * p.in * p.out;
  std::vector<Buffer<float>> grads;
  for (const Proj& p : layer) grads.emplace_back(int64_t(p.out) * p.in, 0.f);
  Buffer<float> dbias(widest, 0.f);
  nlohmann::json roles = nlohmann::json::object();
  for (const Precision prec : {Precision::fp32, Precision::bf16}) {
    auto scoped = [&](size_t i, const std::function<void()>& f) {
      const PrecisionScope scope(prec == Precision::bf16 ? &copies[i] : nullptr);
      f();
    };
    nlohmann::json r;
    r["forward"] = best_gflops(a.seconds / 8, role_flops, [&] {
      if (prec == Precision::bf16) refresh();  // once per update, counted with the forward
      for (size_t i = 0; i < layer.size(); ++i)
        scoped(i, [&] {
          ops::linear_forward<float>(y.data(), x.data(), layer[i].W.data(), layer[i].bias.data(),
                                     tokens, layer[i].in, layer[i].out);
        });
    });
    // both gradients as backward runs them; input gradient alone from dx's share below
    r["backward"] = best_gflops(a.seconds / 8, 2 * role_flops, [&] {
      for (size_t i = 0; i < layer.size(); ++i)
        scoped(i, [&] {
          ops::linear_backward<float>(dx.data(), grads[i].data(), dbias.data(), y.data(), x.data(),
                                      layer[i].W.data(), tokens, layer[i].in, layer[i].out);
        });
    });
    r["weight_gradient"] = best_gflops(a.seconds / 8, role_flops, [&] {
      for (size_t i = 0; i < layer.size(); ++i)
        scoped(i, [&] {
          ops::linear_backward<float>(nullptr, grads[i].data(), dbias.data(), y.data(), x.data(),
                                      layer[i].W.data(), tokens, layer[i].in, layer[i].out);
        });
    });
    roles[precision_name(prec)] = r;
  }
  return {{"bf16_isa", bf16_isa()},
          {"bf16_kernel", bf16_kernel()},
          {"bf16_gflops", square},
          {"layer_train_bf16_gflops", train_layer},
          {"layer_frozen_bf16_gflops", frozen_layer},
          {"role_tokens", tokens},
          {"roles_gflops", roles}};
}

// The machine's GEMM peak (square sgemm of size 1024) as training runs its forward products
// (ops::gemm: oneDNN where built with it) and through OpenBLAS, and what the encoder's linear
// layers get: the preset's four projections of a layer (qkv, attention out, FFN in, FFN out) over 512 rows, bias included, as
// training runs them (ops::linear_forward) and as scoring does (weights frozen,
// ops::linear_frozen_forward).
void bench_gemm_cpu(const GemmBenchSettings& a) {
  set_threads(a.threads);
  const int n = 1024;
  Buffer<float> A(n * n, 0.5f), B(n * n, 0.25f), C(n * n, 0.f);
  const double sgemm = best_gflops(a.seconds / 3, 2.0 * n * n * n, [&] {
    ops::gemm<float>(false, true, n, n, n, 1.f, A.data(), n, B.data(), n, 0.f, C.data(), n);
  });
  const double openblas = best_gflops(a.seconds / 3, 2.0 * n * n * n, [&] {
    openblas_sgemm(n, n, n, A.data(), B.data(), C.data());
  });

  const Config c = preset(a.preset);
  const int rows = 512, H = c.hidden, F = c.ffn;
  std::vector<Proj> layer;
  double flops = 0;
  for (auto [in, out] : {std::pair{H, 3 * H}, {H, H}, {H, F}, {F, H}}) {
    Proj p{in, out, Buffer<float>(int64_t(out) * in, 0.01f), Buffer<float>(out, 0.1f), nullptr};
    p.frozen = ops::freeze_linear(p.W.data(), in, out);
    layer.push_back(std::move(p));
    flops += 2.0 * rows * in * out;
  }
  Buffer<float> x(int64_t(rows) * F, 0.5f), y(int64_t(rows) * std::max(3 * H, F), 0.f);
  const double train_layer = best_gflops(a.seconds / 3, flops, [&] {
    for (const Proj& p : layer)
      ops::linear_forward<float>(y.data(), x.data(), p.W.data(), p.bias.data(), rows, p.in, p.out);
  });
  const double frozen_layer = best_gflops(a.seconds / 3, flops, [&] {
    for (const Proj& p : layer)
      ops::linear_frozen_forward(y.data(), x.data(), *p.frozen, p.bias.data(), rows);
  });
  nlohmann::json out{{"bench", "gemm"},
                           {"threads", a.threads},
                           {"size", n},
                           {"blas", blas_provenance()},
                           {"gflops", sgemm},
                           {"openblas_gflops", openblas},
                           {"peak_gflops", std::max(sgemm, openblas)},
                           {"preset", a.preset},
                           {"layer_rows", rows},
                           {"layer_train_gflops", train_layer},
                           {"cpu_linear", ops::frozen_linear_backend()},
                           {"layer_frozen_gflops", frozen_layer}};
  if (a.precision == Precision::bf16) out.update(bf16_figures(a, layer, rows));
  fmt::print("{}\n", out.dump());
}


// cuBLAS: a square sgemm of 4096 in exact fp32 (the default) and on TF32 tensor cores (--tf32),
// and the preset layer's four projections over 8192 rows in fp32, as training runs them. Every
// product waits for the stream, so a window times finished work.
void bench_gemm_cuda(const GemmBenchSettings& a) {
  const DeviceScope scope(Device::cuda);
  const int n = 4096;
  auto filled = [](size_t size, float value) {
    auto x = std::make_unique<Array<float>>(Device::cuda);
    x->assign(size, value);
    return x;
  };
  const auto A = filled(size_t(n) * n, 0.5f), B = filled(size_t(n) * n, 0.25f),
             C = filled(size_t(n) * n, 0.f);
  auto square = [&] {
    ops::gemm<float>(false, true, n, n, n, 1.f, A->data(), n, B->data(), n, 0.f, C->data(), n);
    synchronize(Device::cuda);
  };
  set_cuda_tf32(false);
  const double fp32 = best_gflops(a.seconds / 3, 2.0 * n * n * n, square);
  set_cuda_tf32(true);
  const double tf32 = best_gflops(a.seconds / 3, 2.0 * n * n * n, square);
  set_cuda_tf32(false);

  const Config c = preset(a.preset);
  const int rows = 8192, H = c.hidden, F = c.ffn;
  std::vector<std::pair<int, int>> shapes{{H, 3 * H}, {H, H}, {H, F}, {F, H}};
  std::vector<std::unique_ptr<Array<float>>> weights, biases;
  double flops = 0;
  for (auto [in, out] : shapes) {
    weights.push_back(filled(size_t(out) * in, 0.01f));
    biases.push_back(filled(size_t(out), 0.1f));
    flops += 2.0 * rows * in * out;
  }
  const auto x = filled(size_t(rows) * F, 0.5f), y = filled(size_t(rows) * std::max(3 * H, F), 0.f);
  const double train_layer = best_gflops(a.seconds / 3, flops, [&] {
    for (size_t i = 0; i < shapes.size(); ++i)
      ops::linear_forward<float>(y->data(), x->data(), weights[i]->data(), biases[i]->data(), rows,
                                 shapes[i].first, shapes[i].second);
    synchronize(Device::cuda);
  });
  const nlohmann::json out{{"bench", "gemm"},
                           {"device", device_label(Device::cuda)},
                           {"size", n},
                           {"gflops", fp32},
                           {"tf32_gflops", tf32},
                           {"peak_gflops", fp32},
                           {"preset", a.preset},
                           {"layer_rows", rows},
                           {"layer_train_gflops", train_layer}};
  fmt::print("{}\n", out.dump());
}

}  // namespace

void bench_gemm(const GemmBenchSettings& s) {
  if (s.device == Device::cuda) return bench_gemm_cuda(s);
  bench_gemm_cpu(s);
}

}  // namespace bb::cli
