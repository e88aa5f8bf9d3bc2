# Thin wrapper over CMake: the README's two commands.
BUILD ?= build
JOBS ?= $(shell nproc)

.PHONY: deps build test demo bench clean

deps:
	bash scripts/install-deps.sh

build: deps
	cmake -S . -B $(BUILD) -DCMAKE_BUILD_TYPE=Release
	cmake --build $(BUILD) -j $(JOBS)

test: build
	cd $(BUILD) && ctest --output-on-failure

# Until the data and probing pipeline lands, the main job is the training benchmark on the
# BabyBERTa preset, on both scoring functions.
demo: build
	bash scripts/demo.sh $(BUILD)

clean:
	rm -rf $(BUILD)
