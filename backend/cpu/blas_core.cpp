#include "backend/cpu/blas_core.h"

#include <cblas.h>
#include <fmt/format.h>
#include <unistd.h>

#include <cctype>
#include <cstdlib>
#include <cstring>

#if defined(__x86_64__)
#include <cpuid.h>
#endif

#include "backend/cpu/ops.h"

namespace bb {

namespace {

constexpr const char* kChosenMark = "BABYBERTA_BLAS_CORE_FROM_CPUID";  // set by select_blas_core

#if defined(__x86_64__)
unsigned long long xcr0() {
  unsigned eax = 0, edx = 0;
  __asm__ volatile("xgetbv" : "=a"(eax), "=d"(edx) : "c"(0));
  return (static_cast<unsigned long long>(edx) << 32) | eax;
}
#endif

// Vector width a core's kernels use: 512 (AVX-512), 256 (AVX2/FMA), 128 (AVX, SSE or unknown).
int kernel_width(std::string core) {
  for (char& ch : core) ch = char(std::tolower(static_cast<unsigned char>(ch)));
  for (const char* c : {"skylakex", "cooperlake", "sapphirerapids"})
    if (core == c) return 512;
  for (const char* c : {"haswell", "zen", "skylake"})
    if (core == c) return 256;
  return 128;
}

}  // namespace

const char* blas_core_for_this_cpu() {
#if defined(__x86_64__)
  unsigned a = 0, b = 0, c = 0, d = 0;
  if (!__get_cpuid(1, &a, &b, &c, &d)) return nullptr;
  const bool fma = c & bit_FMA, osxsave = c & bit_OSXSAVE, avx = c & bit_AVX;
  if (!osxsave || !avx) return nullptr;
  const unsigned long long xcr = xcr0();
  const bool os_ymm = (xcr & 0x6) == 0x6;      // SSE + AVX state
  const bool os_zmm = (xcr & 0xE6) == 0xE6;    // + opmask, ZMM0-15 upper halves, ZMM16-31
  if (!__get_cpuid_count(7, 0, &a, &b, &c, &d)) return nullptr;
  const bool avx2 = b & bit_AVX2;
  const bool avx512 = (b & bit_AVX512F) && (b & bit_AVX512BW) && (b & bit_AVX512VL) &&
                      (b & bit_AVX512DQ);
  if (avx512 && os_zmm) return "SkylakeX";
  if (avx2 && fma && os_ymm) return "Haswell";
#endif
  return nullptr;
}

void select_blas_core(char** argv) {
  if (std::getenv("OPENBLAS_CORETYPE")) return;  // the user's choice (or ours, after the re-exec)
  const char* core = blas_core_for_this_cpu();
  // OpenBLAS has loaded and chosen already: keep its choice unless ours has wider kernels (it
  // knows e.g. Cooperlake, which is SkylakeX plus bf16; it does not know Zen 5 or newer Xeons).
  const char* chosen = openblas_get_corename();
  if (!core || kernel_width(chosen ? chosen : "") >= kernel_width(core)) return;
  ::setenv("OPENBLAS_CORETYPE", core, 1);
  ::setenv(kChosenMark, "1", 1);
  ::execv("/proc/self/exe", argv);
  ::unsetenv("OPENBLAS_CORETYPE");  // exec failed: run on as we are, with the default kernels
  ::unsetenv(kChosenMark);
}

std::string unsupported_blas_core() {
  const char* set = std::getenv("OPENBLAS_CORETYPE");
  if (!set) return "";
  const char* cpu = blas_core_for_this_cpu();
  const int wanted = kernel_width(set), here = kernel_width(cpu ? cpu : "");
  if (wanted <= here) return "";
  return fmt::format(
      "OPENBLAS_CORETYPE={} asks for {}-bit vector kernels, but this CPU (or its OS) runs at most "
      "{}-bit ones; unset the variable to let babyberta choose{}",
      set, wanted, here, cpu ? fmt::format(", or set it to {}", cpu) : std::string());
}

bool openblas_full_width() {
  static const bool full = [] {
    const char* cpu = blas_core_for_this_cpu();
    const char* chosen = openblas_get_corename();
    return cpu && kernel_width(chosen ? chosen : "") >= kernel_width(cpu);
  }();
  return full;
}

void openblas_sgemm(int M, int N, int K, const float* A, const float* B, float* C) {
  cblas_sgemm(CblasRowMajor, CblasNoTrans, CblasNoTrans, M, N, K, 1.f, A, K, B, N, 0.f, C, N);
}

void set_blas_threads(int n) { openblas_set_num_threads(n); }

std::string blas_provenance() {
  const char* config = openblas_get_config();  // "OpenBLAS 0.3.21 DYNAMIC_ARCH NO_AFFINITY ..."
  std::string version = config ? config : "OpenBLAS";
  const size_t sp = version.find(' ', version.find(' ') + 1);
  if (sp != std::string::npos) version.resize(sp);
  const char* set = std::getenv("OPENBLAS_CORETYPE");
  const char* how = !set ? "OpenBLAS's own choice"
                    : std::getenv(kChosenMark) ? "chosen from cpuid"
                                               : "OPENBLAS_CORETYPE from the environment";
  const std::string openblas =
      fmt::format("{}, {} kernels ({})", version, openblas_get_corename(), how);
  const char* sgemm = cpu::sgemm_backend();  // float GEMMs on oneDNN: OpenBLAS runs the double ones
  if (!sgemm) return openblas;
  return fmt::format("{} sgemm{}; {}", sgemm,
                     openblas_full_width() ? ", weight gradients on OpenBLAS" : "", openblas);
}

}  // namespace bb
