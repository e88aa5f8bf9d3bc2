// PyTorch 1.13's CPU random numbers, as the authors' test scripts draw them (omyokun/SSA
// scratch/src/testoverlandx.py, testoverxandy.py), so that `icl eval --authors-draws` feeds a
// model exactly their inputs. torch.manual_seed(s) seeds an mt19937 with s; then
//   randn(n), n < 16: per element at::normal_distribution<double> (Box-Muller on two 53-bit
//     uniforms u1, u2: r = sqrt(-2 log(1 - u2)), cos(2 pi u1) r, and its sin r is kept for the
//     next element), rounded to float;
//   randn(n), n >= 16: normal_fill over float uniforms (24 bits) in blocks of 16 (u1 = 1 - d[j],
//     u2 = d[j + 8]: r cos(2 pi u2), r sin(2 pi u2)), the last 16 redrawn when 16 does not
//     divide n. PyTorch computes these with AVX2 and SLEEF's log and sincos (1-ulp functions);
//     ours uses std::, so about 1 value in 10 differs from PyTorch's in the last bit or two.
// tests/icl/test_torch_draws.cpp checks both against values PyTorch printed: single draws (the
// authors' x values) bit for bit, randn(200) (their function coefficients) within 2 ulp.
#pragma once
#include <cstdint>
#include <vector>

namespace bb::icl {

// torch.manual_seed(seed); torch.randn(n) as float32 values.
std::vector<float> torch_randn(uint64_t seed, int n);

}  // namespace bb::icl
