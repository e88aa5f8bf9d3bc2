// model_difference A.safetensors B.safetensors TOLERANCE: per tensor ||a - b|| / ||a||, one line
// each, worst first; exits 1 when a tensor exceeds TOLERANCE. A tensor whose norm in A is below
// 1e-6 has an exactly-zero gradient in real arithmetic (softmax's key bias: softmax ignores a
// shift of a row), so it holds only float noise that AdamW magnifies; it is compared by its
// absolute difference against 1e-6 instead, and marked as such.
#include <fmt/core.h>

#include <algorithm>
#include <cmath>
#include <exception>

#include "common/safetensors.h"

int main(int argc, char** argv) {
  if (argc != 4) {
    fmt::print(stderr, "usage: model_difference A.safetensors B.safetensors TOLERANCE\n");
    return 2;
  }
  try {
    const auto a = bb::SafetensorsFile::read(argv[1]), b = bb::SafetensorsFile::read(argv[2]);
    const double tol = std::stod(argv[3]), noise = 1e-6;
    struct Row { double rel, norm, diff; std::string name; };
    std::vector<Row> rows;
    for (const auto& [name, ta] : a.tensors) {
      const auto it = b.tensors.find(name);
      if (it == b.tensors.end() || it->second.shape != ta.shape) {
        fmt::print("{}: missing or of another shape in {}\n", name, argv[2]);
        return 1;
      }
      const std::vector<float> x = ta.to_f32(), y = it->second.to_f32();
      double nx = 0, nd = 0;
      for (size_t i = 0; i < x.size(); ++i) {
        nx += double(x[i]) * x[i];
        nd += (double(x[i]) - y[i]) * (double(x[i]) - y[i]);
      }
      nx = std::sqrt(nx), nd = std::sqrt(nd);
      rows.push_back({nx > 0 ? nd / nx : nd, nx, nd, name});
    }
    std::sort(rows.begin(), rows.end(), [](const Row& p, const Row& q) { return p.rel > q.rel; });
    bool ok = true;
    for (const Row& r : rows) {
      const bool is_noise = r.norm < noise;
      const bool pass = is_noise ? r.diff <= noise : r.rel <= tol;
      ok &= pass;
      fmt::print("{} {:.3e} {}{}\n", pass ? "ok  " : "FAIL", is_noise ? r.diff : r.rel, r.name,
                 is_noise ? fmt::format(" (norm {:.1e}: float noise, absolute difference)", r.norm)
                          : "");
    }
    double worst = 0;
    for (const Row& r : rows) worst = std::max(worst, r.norm >= noise ? r.rel : 0.0);
    fmt::print("{} tensors, worst relative difference of the others {:.3e} (tolerance {:.0e})\n",
               rows.size(), worst, tol);
    return ok ? 0 : 1;
  } catch (const std::exception& e) {
    fmt::print(stderr, "model_difference: {}\n", e.what());
    return 2;
  }
}
