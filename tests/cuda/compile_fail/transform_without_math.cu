// A compile-fail probe (ctest cuda_compile_fail_transform): the softmax family's row math must
// not compile for a logit transform without its TransformMath<T> specialisation (here `none`,
// which no softmax-family row uses). nvcc does not warn on a missing switch case in device code;
// this keeps a new LogitTransform from silently computing plain softmax on the GPU.
#include "backend/cuda/attention_function_row_common.cuh"

__global__ void transform_without_math(float* out) {
  out[0] = bb::cuda::family_logit<bb::LogitTransform::none>(1.f, 1.f, 1.f);
}
