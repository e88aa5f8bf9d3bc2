# Thin wrapper over CMake: the README's two commands.
BUILD ?= build
JOBS ?= $(shell nproc)

.PHONY: deps build test demo cuda-test clean

deps:
	bash scripts/install-deps.sh

build: deps
	cmake -S . -B $(BUILD) -DCMAKE_BUILD_TYPE=Release
	cmake --build $(BUILD) -j $(JOBS)

test: build
	cd $(BUILD) && ctest --output-on-failure

# Train softmax and SSA on AO-CHILDES, probe on Zorro, compare (scripts/demo.sh).
demo: build
	bash scripts/demo.sh $(BUILD)

# The CUDA build (nvcc 13 at /usr/local/cuda) and its `cuda` tests: on a machine without a GPU
# they compile and report "skipped: no CUDA device". Built without oneDNN (the GPU machine lacks
# it), so this is also where the cblas fallback of the CPU's frozen linear layers is tested.
cuda-test: deps
	cmake -S . -B build-cuda -DCMAKE_BUILD_TYPE=Release -DBABYBERTA_CUDA=ON -DBABYBERTA_ONEDNN=OFF
	cmake --build build-cuda -j $(JOBS) --target babyberta test_cuda test_backend
	build-cuda/tests/test_backend --test-case='frozen linear*'
	cd build-cuda && ctest --output-on-failure -L cuda

clean:
	rm -rf $(BUILD) build-cuda
