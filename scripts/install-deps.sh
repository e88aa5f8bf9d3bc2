#!/usr/bin/env bash
# Installs the Debian bookworm packages babyberta.cpp builds and tests with. OpenBLAS is the
# OpenMP build, so BLAS and our own loops share one thread pool (see docs/internals.md, Threads); so is
# oneDNN (libdnnl-dev; its CMake package needs the OpenCL development files). Idempotent:
# packages already present are skipped, so a second run does no network work.
set -euo pipefail

packages=(
  build-essential cmake pkg-config
  libeigen3-dev libopenblas-openmp-dev libdnnl-dev ocl-icd-opencl-dev
  libicu-dev libsentencepiece-dev
  doctest-dev libcli11-dev nlohmann-json3-dev libfmt-dev
  libssl-dev libcurl4-openssl-dev
  libopenmpi-dev openmpi-bin
  pybind11-dev python3-dev python3-numpy python3-pytest
  python3-torch  # the tests' plain-PyTorch twins (exported folders' bundled code, bench peers)
  chromium
)

missing=()
for p in "${packages[@]}"; do
  dpkg-query -W -f='${Status}' "$p" 2>/dev/null | grep -q "install ok installed" || missing+=("$p")
done

if [ ${#missing[@]} -eq 0 ]; then
  echo "install-deps: all ${#packages[@]} packages present"
  exit 0
fi

sudo=""
[ "$(id -u)" -eq 0 ] || sudo="sudo"
echo "install-deps: installing ${missing[*]}"
export DEBIAN_FRONTEND=noninteractive
$sudo apt-get update -qq
$sudo apt-get install -y -qq --no-install-recommends "${missing[@]}"
