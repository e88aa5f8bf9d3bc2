// Token + position embeddings; a row added onto every row (RoBERTa's token type).
#include "backend/cuda/kernels.cuh"
#include "backend/cuda/ops.h"

namespace bb::cuda {

namespace {

__global__ void embed(float* out, const int32_t* ids, const int32_t* pos, const float* wte,
                      const float* wpe, int N, int C) {
  const int64_t i = int64_t(blockIdx.x) * blockDim.x + threadIdx.x;
  if (i >= int64_t(N) * C) return;
  const int n = int(i / C), c = int(i % C);
  out[i] = wte[int64_t(ids[n]) * C + c] + wpe[int64_t(pos[n]) * C + c];
}

__global__ void add_row(float* x, const float* row, int N, int C) {
  const int64_t i = int64_t(blockIdx.x) * blockDim.x + threadIdx.x;
  if (i >= int64_t(N) * C) return;
  x[i] += row[i % C];
}

// Gradient of a table indexed by idx(N): thread (row-of-work w, column c) scans all N rows in
// order and adds those whose index is w's. Work rows are the distinct indices appearing first at
// their row (first[n] = 1), so each table row is written by exactly one thread: no atomics, and
// the sum order is the CPU's (the table's value, then each row added in row order).
__global__ void scatter_rows(float* dtable, const float* dout, const int32_t* idx, int N, int C) {
  const int n0 = blockIdx.x, c = blockIdx.y * blockDim.x + threadIdx.x;
  if (c >= C) return;
  const int32_t row = idx[n0];
  for (int m = 0; m < n0; ++m)
    if (idx[m] == row) return;  // an earlier row owns this index
  float s = dtable[int64_t(row) * C + c];
  for (int m = n0; m < N; ++m)
    if (idx[m] == row) s += dout[int64_t(m) * C + c];
  dtable[int64_t(row) * C + c] = s;
}

}  // namespace

void embedding_forward(float* out, const int32_t* ids, const int32_t* pos, const float* wte,
                       const float* wpe, int N, int C) {
  if (N == 0) return;
  embed<<<blocks_for(int64_t(N) * C, 256), 256, 0, stream()>>>(out, ids, pos, wte, wpe, N, C);
  launched("embed");
}

void add_row_forward(float* x, const float* row, int N, int C) {
  if (N == 0) return;
  add_row<<<blocks_for(int64_t(N) * C, 256), 256, 0, stream()>>>(x, row, N, C);
  launched("add_row");
}

void add_row_backward(float* drow, const float* dx, int N, int C) {
  if (N == 0) return;
  add_column_sums(drow, dx, N, C);
}

void embedding_backward(float* dwte, float* dwpe, const float* dout, const int32_t* ids,
                        const int32_t* pos, int N, int C) {
  if (N == 0) return;
  const dim3 grid(N, blocks_for(C, 128));
  scatter_rows<<<grid, 128, 0, stream()>>>(dwte, dout, ids, N, C);
  launched("scatter_rows (wte)");
  scatter_rows<<<grid, 128, 0, stream()>>>(dwpe, dout, pos, N, C);
  launched("scatter_rows (wpe)");
}

}  // namespace bb::cuda
