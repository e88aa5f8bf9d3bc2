// bf16 products on oneDNN's matmul primitive (backend/cpu/bf16_gemm.h). oneDNN 2.6 has no bf16
// gemm call, so each shape (with its strides, accumulation and thread count) gets a primitive,
// created once and cached.
#include "backend/cpu/bf16_gemm.h"

#include "common/error.h"

#ifdef BABYBERTA_HAVE_ONEDNN
#include <map>
#include <tuple>

#include "backend/cpu/onednn_context.h"
#endif

namespace bb::cpu {

#ifdef BABYBERTA_HAVE_ONEDNN

namespace {

using dnnl::memory;

// A (rows, cols) matrix of `type` in a row-major buffer with leading dimension ld, or, transposed,
// the (rows, cols) view of a row-major (cols, rows) buffer.
memory::desc view(int64_t rows, int64_t cols, int64_t ld, bool transposed, memory::data_type type) {
  return memory::desc({rows, cols}, type,
                      transposed ? memory::dims{1, ld} : memory::dims{ld, 1});
}

dnnl::matmul::primitive_desc plan(bool ta, bool tb, int M, int N, int K, int lda, int ldb,
                                  bool accumulate, int ldc) {
  dnnl::primitive_attr attr;
  if (accumulate) {
    dnnl::post_ops ops;
    ops.append_sum(1.f);
    attr.set_post_ops(ops);
  }
  return {dnnl::matmul::desc(view(M, K, lda, ta, memory::data_type::bf16),
                             view(K, N, ldb, tb, memory::data_type::bf16),
                             view(M, N, ldc, false, memory::data_type::f32)),
          attr, cpu_engine()};
}

// A cached product with its three memory objects, which each call points at its buffers
// (set_data_handle) instead of creating three memory objects per product.
struct Kernel {
  dnnl::matmul matmul;
  memory a, b, c;
};
using Key = std::tuple<bool, bool, int, int, int, int, int, int, bool, int>;

// One cache per thread (products also run inside parallel regions, and a memory object is only
// safe to re-point from one thread): no lock on the step's path.
Kernel& kernel(const Key& key) {
  thread_local std::map<Key, Kernel> cache;
  auto it = cache.find(key);
  if (it == cache.end()) {
    const auto [ta, tb, M, N, K, lda, ldb, ldc, acc, threads] = key;
    const auto pd = plan(ta, tb, M, N, K, lda, ldb, acc, ldc);
    it = cache.emplace(key, Kernel{dnnl::matmul(pd), memory(pd.src_desc(), cpu_engine(), nullptr),
                                   memory(pd.weights_desc(), cpu_engine(), nullptr),
                                   memory(pd.dst_desc(), cpu_engine(), nullptr)}).first;
  }
  return it->second;
}

}  // namespace

void keep_fp32_strict() {
  static const bool done = [] {
    BB_CHECK(dnnl_set_default_fpmath_mode(dnnl_fpmath_mode_strict) == dnnl_success,
             "oneDNN: could not set the strict fp32 math mode");
    return true;
  }();
  (void)done;
}

void gemm_bf16(bool ta, bool tb, int M, int N, int K, const uint16_t* A, int lda,
               const uint16_t* B, int ldb, bool accumulate, float* C, int ldc) {
  if (M == 0 || N == 0) return;
  keep_fp32_strict();
  try {
    Kernel& k = kernel({ta, tb, M, N, K, lda, ldb, ldc, accumulate, threads_here()});
    // oneDNN takes non-const handles; it only reads A and B.
    k.a.set_data_handle(const_cast<uint16_t*>(A));
    k.b.set_data_handle(const_cast<uint16_t*>(B));
    k.c.set_data_handle(C);
    k.matmul.execute(thread_stream(),
                     {{DNNL_ARG_SRC, k.a}, {DNNL_ARG_WEIGHTS, k.b}, {DNNL_ARG_DST, k.c}});
    thread_stream().wait();
  } catch (const dnnl::error& e) {
    fail("oneDNN bf16 matmul failed on a {}x{}x{} product: {}", M, N, K, e.what());
  }
}

std::string bf16_isa() {
  const auto isa = unsigned(dnnl::get_effective_cpu_isa());
  auto has = [isa](dnnl::cpu_isa want) { return (isa & unsigned(want)) == unsigned(want); };
  if (has(dnnl::cpu_isa::avx512_core_amx)) return "avx512_core_amx";
  if (has(dnnl::cpu_isa::avx512_core_bf16)) return "avx512_core_bf16";
  return "";
}

std::string bf16_unavailable() {
  if (!bf16_isa().empty()) return "";
  return "this CPU has neither AMX-BF16 nor AVX512-BF16 (oneDNN finds " +
         [] {
           switch (dnnl::get_effective_cpu_isa()) {
             case dnnl::cpu_isa::avx2: return std::string("AVX2");
             case dnnl::cpu_isa::avx2_vnni: return std::string("AVX2-VNNI");
             case dnnl::cpu_isa::avx512_core: return std::string("AVX-512");
             case dnnl::cpu_isa::avx512_core_vnni: return std::string("AVX512-VNNI");
             default: return std::string("no bf16 instructions");
           }
         }() + "); use --precision fp32";
}

std::string bf16_kernel() {
  if (bf16_isa().empty()) return "";
  try {
    return plan(false, true, 192, 768, 256, 256, 256, true, 768).impl_info_str();
  } catch (const dnnl::error&) {
    return "";
  }
}

#else  // without oneDNN

void keep_fp32_strict() {}
void gemm_bf16(bool, bool, int, int, int, const uint16_t*, int, const uint16_t*, int, bool, float*,
               int) {
  fail("internal: a bf16 product in a build without oneDNN");
}
std::string bf16_isa() { return ""; }
std::string bf16_unavailable() {
  return "this build has no oneDNN (-DBABYBERTA_ONEDNN=OFF), which bf16 products need; use "
         "--precision fp32";
}
std::string bf16_kernel() { return ""; }

#endif

}  // namespace bb::cpu
