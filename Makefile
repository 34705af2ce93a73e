# The two commands of the README. Both install what is missing first
# (tools/install-deps.sh, idempotent), then build.
#   make run    build, then run the main job on the embedded default
#   make test   build, then the whole suite (lit, unit tests, sanitizers, fuzzers)

BUILD      ?= build
JOBS       ?= $(shell nproc)
CMAKE_ARGS ?=

.PHONY: run test deps build unit lit sanitize fuzz clean

deps:
	@bash tools/install-deps.sh

build: deps
	@cmake -S . -B $(BUILD) -G Ninja -DCMAKE_BUILD_TYPE=RelWithDebInfo $(CMAKE_ARGS) >/dev/null
	@cmake --build $(BUILD) -j $(JOBS)

# Until the runtime runs entries, the main job checks the model and binds it to
# the embedded default checkpoint: the model page with its generics and memory.
run: build
	./$(BUILD)/bin/linnet check models/phi3
	./$(BUILD)/bin/linnet inspect models/phi3 --checkpoint test/data/embedded --memory

test: build
	@bash tools/run-tests.sh $(BUILD)

clean:
	rm -rf $(BUILD)
