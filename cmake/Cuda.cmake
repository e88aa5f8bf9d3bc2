# -DBABYBERTA_CUDA=ON: the CUDA toolkit comes with the machine (nvcc at /usr/local/cuda), not
# from Debian. CMake 3.25 does not pass C++20 to nvcc 13 by itself, so the standard is set
# explicitly for CUDA sources. Architectures: BABYBERTA_CUDA_ARCHITECTURES (default 90: H100/H200).
if(NOT CMAKE_CUDA_COMPILER AND EXISTS /usr/local/cuda/bin/nvcc)
  set(CMAKE_CUDA_COMPILER /usr/local/cuda/bin/nvcc)
endif()
set(BABYBERTA_CUDA_ARCHITECTURES "90" CACHE STRING "CUDA architectures to build for")
set(CMAKE_CUDA_ARCHITECTURES ${BABYBERTA_CUDA_ARCHITECTURES})
enable_language(CUDA)
# CMake 3.25 does not know nvcc 13's C++20 dialect flag: teach it, then ask for CUDA 20.
set(CMAKE_CUDA20_STANDARD_COMPILE_OPTION "-std=c++20")
set(CMAKE_CUDA20_EXTENSION_COMPILE_OPTION "-std=c++20")
set(CMAKE_CUDA_STANDARD 20)
set(CMAKE_CUDA_STANDARD_REQUIRED ON)
find_package(CUDAToolkit REQUIRED)

add_library(bb_cuda STATIC
  backend/cuda/device.cpp backend/cuda/linear.cu backend/cuda/embedding.cu
  backend/cuda/layernorm.cu backend/cuda/activation.cu backend/cuda/dropout.cu
  backend/cuda/attention_function.cu backend/cuda/attention.cu backend/cuda/loss.cu backend/cuda/point_loss.cu backend/cuda/adamw.cu backend/cuda/rows.cu)
target_include_directories(bb_cuda PUBLIC ${CMAKE_CURRENT_SOURCE_DIR})
# The row-kernel attention functions' CUDA files, one per function, found by glob.
include_every(${CMAKE_BINARY_DIR}/generated/cuda_row_kernels.h backend/cuda/attention_functions cuh)
target_include_directories(bb_cuda PRIVATE ${CMAKE_BINARY_DIR}/generated)
target_link_libraries(bb_cuda PUBLIC CUDA::cudart CUDA::cublas bb_common)
target_compile_definitions(bb_cuda PUBLIC BABYBERTA_HAVE_CUDA=1)
target_compile_options(bb_cuda PRIVATE $<$<COMPILE_LANGUAGE:CUDA>:-Xcompiler=-Wall,-Wextra,-Werror=switch>
                       $<$<COMPILE_LANGUAGE:CXX>:${BB_WARNINGS}>)
# backend/ops.cpp routes each op to backend/cpu or to these when the current device is CUDA.
target_link_libraries(bb_backend PUBLIC bb_cuda)
message(STATUS "babyberta: CUDA ${CUDAToolkit_VERSION}, architectures ${CMAKE_CUDA_ARCHITECTURES}")
