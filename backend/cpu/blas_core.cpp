#include "backend/cpu/blas_core.h"

#include <cblas.h>
#include <fmt/format.h>
#include <unistd.h>

#include <cctype>
#include <initializer_list>
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

CpuFeatures cpu_features() {
  CpuFeatures f;
#if defined(__x86_64__)
  unsigned a = 0, b = 0, c = 0, d = 0;
  if (!__get_cpuid(1, &a, &b, &c, &d)) return f;
  const bool fma = c & bit_FMA, osxsave = c & bit_OSXSAVE, avx = c & bit_AVX;
  if (!osxsave || !avx) return f;
  const unsigned long long xcr = xcr0();
  const bool os_ymm = (xcr & 0x6) == 0x6;      // SSE + AVX state
  const bool os_zmm = (xcr & 0xE6) == 0xE6;    // + opmask, ZMM0-15 upper halves, ZMM16-31
  f.avx = os_ymm;
  if (__get_cpuid(0x80000001, &a, &b, &c, &d)) f.fma4 = os_ymm && (c & bit_FMA4);
  if (!__get_cpuid_count(7, 0, &a, &b, &c, &d)) return f;
  f.avx2_fma = os_ymm && fma && (b & bit_AVX2);
  f.avx512 = os_zmm && (b & bit_AVX512F) && (b & bit_AVX512BW) && (b & bit_AVX512VL) &&
             (b & bit_AVX512DQ);
#endif
  return f;
}

const char* blas_core_for_this_cpu() {
  const CpuFeatures f = cpu_features();
  if (f.avx512) return "SkylakeX";
  if (f.avx2_fma) return "Haswell";
  return nullptr;
}

std::string unsupported_core_message(const char* set, const char* loaded, const CpuFeatures& cpu) {
  if (!set || !loaded) return "";
  std::string core = loaded;
  for (char& ch : core) ch = char(std::tolower(static_cast<unsigned char>(ch)));
  auto is = [&core](std::initializer_list<const char*> names) {
    for (const char* n : names)
      if (core == n) return true;
    return false;
  };
  const char* missing = nullptr;  // what the loaded kernels need and this CPU lacks
  if (is({"skylakex", "cooperlake", "sapphirerapids"}) && !cpu.avx512) missing = "AVX-512";
  else if (is({"haswell", "zen", "skylake"}) && !cpu.avx2_fma) missing = "AVX2 and FMA";
  else if (is({"sandybridge"}) && !cpu.avx) missing = "AVX";
  else if (is({"bulldozer", "piledriver", "steamroller", "excavator"}) && !cpu.fma4)
    missing = "AMD's FMA4";
  if (!missing) return "";
  const char* ours = cpu.avx512 ? "SkylakeX" : cpu.avx2_fma ? "Haswell" : nullptr;
  return fmt::format(
      "OPENBLAS_CORETYPE={} makes OpenBLAS run its {} kernels, which need {}, and this CPU (or its "
      "OS) lacks it; unset the variable to let babyberta choose{}",
      set, loaded, missing, ours ? fmt::format(", or set it to {}", ours) : std::string());
}

std::string unsupported_blas_core() {
  return unsupported_core_message(std::getenv("OPENBLAS_CORETYPE"), openblas_get_corename(),
                                  cpu_features());
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
  const char* sgemm = cpu::sgemm_backend();  // float GEMMs on oneDNN, weight gradients maybe not
  if (!sgemm) return openblas;
  return fmt::format("{} sgemm{}; {}", sgemm,
                     openblas_full_width() ? ", weight gradients on OpenBLAS" : "", openblas);
}

}  // namespace bb
