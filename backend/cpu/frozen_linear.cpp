// Linear with frozen weights: oneDNN's matmul over weights reordered once
// (backend/frozen_linear.h).
#include "backend/cpu/bf16_gemm.h"
#include "backend/cpu/ops.h"
#include "backend/precision.h"
#include "common/error.h"

#ifdef BABYBERTA_HAVE_ONEDNN
#include <unordered_map>
#include <vector>

#include "backend/cpu/onednn_context.h"
#endif

namespace bb::cpu {

#ifdef BABYBERTA_HAVE_ONEDNN

namespace {

using dnnl::memory;
using Tag = memory::format_tag;

// A (rows, cols) matrix: Tag::ab is row-major; Tag::ba is a (rows, cols) view of a row-major
// (cols, rows) buffer, i.e. W^T read in place; Tag::any lets oneDNN choose (its blocked layout).
memory::desc matrix(int64_t rows, int64_t cols, Tag tag,
                    memory::data_type type = memory::data_type::f32) {
  return memory::desc({rows, cols}, type, tag);
}

// The product y(N,out) = x(N,in) Wt(in,out) + bias(1,out), weights in oneDNN's own layout; bf16:
// x and Wt in bf16 (bias and y f32).
dnnl::matmul::primitive_desc plan(int N, int in, int out, bool bf16) {
  const auto in_type = bf16 ? memory::data_type::bf16 : memory::data_type::f32;
  return {dnnl::matmul::desc(matrix(N, in, Tag::ab, in_type), matrix(in, out, Tag::any, in_type),
                             matrix(1, out, Tag::ab), matrix(N, out, Tag::ab)),
          cpu_engine()};
}

}  // namespace

class FrozenLinear {
 public:
  FrozenLinear(const float* W, int in, int out, bool bf16) : in_(in), out_(out), bf16_(bf16) {
    keep_fp32_strict();
    try {
      // The blocked weight layout depends on (in, out) only, not on N (checked for N = 1..1,024
      // on this machine's AVX-512 kernels), so one copy serves every row count; run() checks it.
      // bf16: the reorder rounds W to bf16 (to nearest, ties to even, as training's copies).
      const auto pd = plan(1, in, out, bf16);
      packed_ = memory(pd.weights_desc(), cpu_engine());
      memory user(matrix(in, out, Tag::ba), cpu_engine(), const_cast<float*>(W));
      dnnl::reorder(user, packed_).execute(thread_stream(), user, packed_);
      thread_stream().wait();
    } catch (const dnnl::error& e) {
      fail("oneDNN could not prepare a {}x{} linear layer: {}", out, in, e.what());
    }
  }

  void run(float* y, const float* x, const float* bias, int N) {
    try {
      run_unchecked(y, x, bias, N);
    } catch (const dnnl::error& e) {
      fail("oneDNN matmul over {} rows of a {}x{} linear layer failed: {}", N, out_, in_,
           e.what());
    }
  }

 private:
  void run_unchecked(float* y, const float* x, const float* bias, int N) {
    const int64_t key = int64_t(N) * 1024 + threads_here();
    auto it = kernels_.find(key);
    if (it == kernels_.end()) {
      const auto pd = plan(N, in_, out_, bf16_);
      BB_CHECK(pd.weights_desc() == packed_.get_desc(),
               "internal: oneDNN wants another weight layout for {} rows of a {}x{} linear", N,
               in_, out_);
      it = kernels_.emplace(key, Kernel{dnnl::matmul(pd), pd.src_desc(), pd.dst_desc(),
                                        pd.bias_desc()})
               .first;
    }
    const Kernel& k = it->second;
    // oneDNN takes non-const handles; it only reads SRC and BIAS.
    thread_local std::vector<uint16_t> xb;  // bf16: x cast at the product
    void* src_data = const_cast<float*>(x);
    if (bf16_) {
      if (xb.size() < size_t(N) * size_t(in_)) xb.resize(size_t(N) * size_t(in_));
      to_bf16(xb.data(), x, int64_t(N) * in_);
      src_data = xb.data();
    }
    memory src(k.src, cpu_engine(), src_data);
    memory b(k.bias, cpu_engine(), const_cast<float*>(bias));
    memory dst(k.dst, cpu_engine(), y);
    k.matmul.execute(thread_stream(), {{DNNL_ARG_SRC, src},
                                       {DNNL_ARG_WEIGHTS, packed_},
                                       {DNNL_ARG_BIAS, b},
                                       {DNNL_ARG_DST, dst}});
    thread_stream().wait();
  }

  struct Kernel {
    dnnl::matmul matmul;  // JIT-compiled for one row count and thread count
    memory::desc src, dst, bias;
  };
  int in_, out_;
  bool bf16_;
  memory packed_;                               // W^T in oneDNN's layout
  std::unordered_map<int64_t, Kernel> kernels_;  // key: N * 1024 + threads
};

#else  // without oneDNN: W's address, and the cblas path

class FrozenLinear {
 public:
  FrozenLinear(const float* W, int in, int out, bool bf16) : W_(W), in_(in), out_(out) {
    BB_CHECK(!bf16, "internal: a bf16 linear layer in a build without oneDNN");
  }
  void run(float* y, const float* x, const float* bias, int N) const {
    cpu::linear_forward<float>(y, x, W_, bias, N, in_, out_);
  }

 private:
  const float* W_;
  int in_, out_;
};

#endif

const char* frozen_linear_backend() {
  const char* onednn = sgemm_backend();
  return onednn ? onednn : "cblas";
}

std::shared_ptr<FrozenLinear> freeze_linear(const float* W, int in, int out, Precision p) {
  return std::make_shared<FrozenLinear>(W, in, out, p == Precision::bf16);
}

void linear_frozen_forward(float* y, const float* x, FrozenLinear& W, const float* bias, int N) {
  if (N == 0) return;
  W.run(y, x, bias, N);
}

}  // namespace bb::cpu
