# Thin wrapper over CMake: the README's two commands.
BUILD ?= build
JOBS ?= $(shell nproc)
# Unity builds: sources compiled in batches of 8, so that nlohmann/json, fmt and CLI11 (whose
# header alone costs ~10 s of -O2 per file) are paid once per batch, not once per file.
# `make test UNITY=OFF` (or plain cmake) builds file by file, as an editing session wants.
UNITY ?= ON
CMAKE_ARGS = -DCMAKE_UNITY_BUILD=$(UNITY) -DCMAKE_UNITY_BUILD_BATCH_SIZE=8

.PHONY: deps build test demo cuda-test sanitize-test clean

deps:
	bash scripts/install-deps.sh

build: deps
	cmake -S . -B $(BUILD) -DCMAKE_BUILD_TYPE=Release $(CMAKE_ARGS)
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
	cmake -S . -B build-cuda -DCMAKE_BUILD_TYPE=Release -DBABYBERTA_CUDA=ON -DBABYBERTA_ONEDNN=OFF \
	  $(CMAKE_ARGS)
	cmake --build build-cuda -j $(JOBS) --target babyberta test_cuda test_backend
	build-cuda/tests/test_backend --test-case='frozen linear*'
	cd build-cuda && ctest --output-on-failure -L cuda

# The unit tests, the loader fuzz tests and the CLI audit under AddressSanitizer + UBSan (CI runs
# this; the model-parity and end-to-end tests are left to `make test`, they add time, not code).
sanitize-test: deps
	cmake -S . -B build-asan -DCMAKE_BUILD_TYPE=RelWithDebInfo -DBABYBERTA_SANITIZE=ON $(CMAKE_ARGS)
	cmake --build build-asan -j $(JOBS) --target babyberta test_backend test_encoder test_tokenizer \
	  test_corpora test_probing test_icl test_baselines test_runs _babyberta
	cd build-asan && ASAN_OPTIONS=detect_leaks=0 ctest --output-on-failure \
	  -R 'test_(backend|encoder|tokenizer|corpora|probing|icl|baselines|runs|cli|python_interrupts)$$'

clean:
	rm -rf $(BUILD) build-cuda build-asan
