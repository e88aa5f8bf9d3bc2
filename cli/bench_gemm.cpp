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
#include "backend/ops.h"
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
  struct Proj {
    int in, out;
    Buffer<float> W, bias;
    std::shared_ptr<ops::FrozenLinear> frozen;
  };
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
  const nlohmann::json out{{"bench", "gemm"},
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
