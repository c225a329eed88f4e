# symx: `make demo` and `make test` are the two set-up commands (see README.md).
PYTHON ?= python3
BUILD ?= build
JOBS ?= $(shell nproc)
GENERATOR := $(shell command -v ninja >/dev/null 2>&1 && echo "-G Ninja")

.PHONY: all deps build asan tsan test test-cpp test-asan test-tsan test-python demo bench clean

all: build

deps:
	@PYTHON=$(PYTHON) tools/install_deps.sh

build: deps
	cmake -S . -B $(BUILD) $(GENERATOR) -DCMAKE_BUILD_TYPE=Release -DSYMX_PYTHON=ON -DSYMX_TESTS=ON -DPython_EXECUTABLE=$$(command -v $(PYTHON))
	cmake --build $(BUILD) -j $(JOBS)

# The C++ tests again under AddressSanitizer + UndefinedBehaviorSanitizer (no Python module).
asan: deps
	cmake -S . -B $(BUILD)/asan $(GENERATOR) -DCMAKE_BUILD_TYPE=Debug -DSYMX_SANITIZE=ON -DSYMX_PYTHON=OFF
	cmake --build $(BUILD)/asan -j $(JOBS)

# The library and the concurrency tests under ThreadSanitizer (tests/cpp/test_concurrency.cpp,
# test_aliasing.cpp); one OpenMP thread, since libgomp is not instrumented (see tests/tsan.supp).
tsan: deps
	cmake -S . -B $(BUILD)/tsan $(GENERATOR) -DCMAKE_BUILD_TYPE=Debug -DSYMX_TSAN=ON -DSYMX_PYTHON=OFF
	cmake --build $(BUILD)/tsan -j $(JOBS)

test-cpp: build
	cd $(BUILD) && ctest --output-on-failure -j $(JOBS)

test-asan: asan
	cd $(BUILD)/asan && ASAN_OPTIONS=detect_leaks=0 UBSAN_OPTIONS=print_stacktrace=1 ctest --output-on-failure -j $(JOBS)

test-python: build
	PYTHONPATH=$(BUILD)/python $(PYTHON) -m pytest tests/python -q

test-tsan: tsan
	cd $(BUILD)/tsan && ctest --output-on-failure

test: test-cpp test-asan test-tsan test-python

# The main job: the paper's two examples, in C++ and in Python.
demo: build
	$(BUILD)/bin/mvn_pdf
	$(BUILD)/bin/sgd
	PYTHONPATH=$(BUILD)/python $(PYTHON) examples/mvn_pdf.py
	PYTHONPATH=$(BUILD)/python $(PYTHON) examples/sgd.py

# Benchmarks against JAX, PyTorch (eager, torch.compile) and the machine's memory bandwidth;
# installs the peers if missing (tools/install_bench_deps.sh). Never part of `make test`.
# Writes $(BUILD)/bench/results.json and results.md.
bench: build
	@PYTHON=$(PYTHON) tools/install_bench_deps.sh
	PYTHONPATH=$(BUILD)/python $(PYTHON) bench/run.py --out $(BUILD)/bench --build $(BUILD)

clean:
	rm -rf $(BUILD)
