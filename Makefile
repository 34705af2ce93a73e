# The two commands of the README. Both install what is missing first
# (tools/install-deps.sh, idempotent), then build.
#   make run    build, then run the main job on the embedded default
#   make test   build, then the whole suite (lit, unit tests, sanitizers, fuzzers)
#   make bench  build, then linnet against llama.cpp and PyTorch on Phi-3-mini-shaped
#               random weights (tools/bench/compare.py; not part of `make test`)

BUILD      ?= build
JOBS       ?= $(shell nproc)
CMAKE_ARGS ?=

.PHONY: run test bench deps build unit lit sanitize fuzz clean

deps:
	@bash tools/install-deps.sh

build: deps
	@cmake -S . -B $(BUILD) -G Ninja -DCMAKE_BUILD_TYPE=RelWithDebInfo $(CMAKE_ARGS) >/dev/null
	@cmake --build $(BUILD) -j $(JOBS)

# The main job: the embedded default model (test/data/embedded) continues a
# prompt, then answers a chat question, streamed as text. The first run
# compiles phi3 into the build cache (~/.cache/linnet); later runs start at once.
run: build
	./$(BUILD)/bin/linnet run models/phi3 --checkpoint test/data/embedded --prompt "The import statement" --max-new 40
	./$(BUILD)/bin/linnet run models/phi3 --checkpoint test/data/embedded --chat --prompt "What is the json module for?"

test: build
	@bash tools/run-tests.sh $(BUILD)

# linnet, llama.cpp (llama-cpp-python) and PyTorch on the same random bf16 weights of
# Phi-3-mini's shapes, one after another, one table (docs/bench.md). The first run creates
# build/bench-venv (compiling llama.cpp) and the 7.6 GB checkpoint + GGUF under build/bench/.
# BENCH_ARGS: e.g. --layers 2 for a quick run, --skip torch, --json FILE.
BENCH_ARGS ?=
bench: build
	python3 tools/bench/compare.py --linnet $(BUILD)/bin/linnet $(BENCH_ARGS)

clean:
	rm -rf $(BUILD)
