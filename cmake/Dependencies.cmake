# Finds the Debian packages that scripts/install-deps.sh installs. OpenBLAS is taken from its
# OpenMP build (libopenblas-openmp-dev), so BLAS and our OpenMP loops share one thread pool.
find_package(OpenMP REQUIRED)
find_package(Eigen3 3.4 REQUIRED NO_MODULE)
find_package(fmt REQUIRED)
find_package(nlohmann_json 3.10 REQUIRED)
find_package(CLI11 REQUIRED)

find_library(BB_OPENBLAS_LIBRARY openblas
  PATHS /usr/lib/x86_64-linux-gnu/openblas-openmp /usr/lib/aarch64-linux-gnu/openblas-openmp
  NO_DEFAULT_PATH)
find_path(BB_OPENBLAS_INCLUDE cblas.h
  PATHS /usr/include/x86_64-linux-gnu/openblas-openmp /usr/include/aarch64-linux-gnu/openblas-openmp
  NO_DEFAULT_PATH)
if(NOT BB_OPENBLAS_LIBRARY OR NOT BB_OPENBLAS_INCLUDE)
  message(FATAL_ERROR "OpenBLAS (OpenMP build) not found: run scripts/install-deps.sh")
endif()
add_library(bb::openblas INTERFACE IMPORTED)
target_link_libraries(bb::openblas INTERFACE ${BB_OPENBLAS_LIBRARY})
target_include_directories(bb::openblas INTERFACE ${BB_OPENBLAS_INCLUDE})

# oneDNN (libdnnl-dev, its OpenMP build): the scorer's linear layers over pre-packed weights.
if(BABYBERTA_ONEDNN)
  find_package(dnnl 2.6 CONFIG)
  if(NOT dnnl_FOUND)
    message(FATAL_ERROR "oneDNN not found: run scripts/install-deps.sh, or configure with "
                        "-DBABYBERTA_ONEDNN=OFF to score with OpenBLAS alone")
  endif()
endif()

find_package(ICU 70 REQUIRED COMPONENTS uc i18n)
find_package(OpenSSL REQUIRED)
find_package(CURL REQUIRED)
find_package(PkgConfig REQUIRED)
pkg_check_modules(SENTENCEPIECE REQUIRED IMPORTED_TARGET sentencepiece)

# OpenMPI (libopenmpi-dev): `mpirun babyberta train|experiment|bench` (parallel/mpi.h).
if(BABYBERTA_MPI)
  enable_language(C)  # FindMPI probes its C interface, which is all we use
  find_package(MPI COMPONENTS C)
  if(NOT MPI_C_FOUND)
    message(FATAL_ERROR "MPI not found: run scripts/install-deps.sh, or configure with "
                        "-DBABYBERTA_MPI=OFF to build without mpirun support")
  endif()
endif()
