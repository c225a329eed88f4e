# symx: `make demo` and `make test` are the two set-up commands (see README.md).
PYTHON ?= python3
BUILD ?= build
JOBS ?= $(shell nproc)
GENERATOR = $(shell command -v ninja >/dev/null 2>&1 && echo "-G Ninja")
# ccache (installed by tools/install_deps.sh) lets the package test's add_subdirectory build
# reuse the objects of the main build.
LAUNCHER = $(shell command -v ccache >/dev/null 2>&1 && echo "-DCMAKE_CXX_COMPILER_LAUNCHER=ccache")
# Compiler warnings as errors (CMake's SYMX_WERROR) in every build below, so that `make test` here
# fails on a warning as CI does (.ci/run sets WERROR=ON too); `make WERROR=OFF ...` for a newer
# compiler with warnings of its own. One value for all targets: a change recompiles everything.
WERROR ?= ON

.PHONY: all deps build asan tsan test test-layers check-format test-cpp test-asan test-tsan test-python test-package demo bench fuzz clean

all: build

deps:
	@PYTHON=$(PYTHON) tools/install_deps.sh

build: deps
	cmake -S . -B $(BUILD) $(GENERATOR) $(LAUNCHER) -DCMAKE_BUILD_TYPE=Release -DSYMX_PYTHON=ON -DSYMX_TESTS=ON -DSYMX_WERROR=$(WERROR) -DPython_EXECUTABLE=$$(command -v $(PYTHON))
	cmake --build $(BUILD) -j $(JOBS)

# The C++ tests again under AddressSanitizer + UndefinedBehaviorSanitizer (no Python module).
asan: deps
	cmake -S . -B $(BUILD)/asan $(GENERATOR) -DCMAKE_BUILD_TYPE=Debug -DSYMX_SANITIZE=ON -DSYMX_PYTHON=OFF -DSYMX_EXAMPLES=OFF -DSYMX_WERROR=$(WERROR)
	cmake --build $(BUILD)/asan -j $(JOBS)

# The library and the concurrency tests under ThreadSanitizer (tests/cpp/test_concurrency.cpp,
# test_aliasing.cpp); one OpenMP thread, since libgomp is not instrumented (see tests/tsan.supp).
tsan: deps
	cmake -S . -B $(BUILD)/tsan $(GENERATOR) -DCMAKE_BUILD_TYPE=Debug -DSYMX_TSAN=ON -DSYMX_PYTHON=OFF -DSYMX_WERROR=$(WERROR)
	cmake --build $(BUILD)/tsan -j $(JOBS)

# ruff over the Python, clang-format over the C++ (tools/check_format.sh); seconds, so it runs first.
check-format: deps
	@PYTHON=$(PYTHON) tools/check_format.sh

test-cpp: build
	cd $(BUILD) && ctest --output-on-failure -j $(JOBS)

test-asan: asan
	cd $(BUILD)/asan && ASAN_OPTIONS=detect_leaks=0 UBSAN_OPTIONS=print_stacktrace=1 ctest --output-on-failure -j $(JOBS)

test-python: build
	PYTHONPATH=$(BUILD)/python SYMX_BIN=$(abspath $(BUILD))/bin/symx $(PYTHON) -m pytest tests/python -q

# A separate C++ project using symx both ways a user can: installed (find_package(symx)) and
# as a subdirectory (add_subdirectory); each runs the README's C++ quick start.
test-package: build
	cmake --install $(BUILD) --prefix $(BUILD)/install
	cmake -S tests/package -B $(BUILD)/package-installed $(GENERATOR) -DCMAKE_BUILD_TYPE=Release -DCMAKE_PREFIX_PATH=$(abspath $(BUILD))/install -DSYMX_WERROR=$(WERROR)
	cmake --build $(BUILD)/package-installed -j $(JOBS)
	$(BUILD)/package-installed/quickstart | $(PYTHON) tests/package/check_quickstart.py
	rm -rf $(BUILD)/package-installed/run && $(BUILD)/package-installed/train_digits data/mnist $(BUILD)/package-installed/run
	cmake -S tests/package -B $(BUILD)/package-subdirectory $(GENERATOR) $(LAUNCHER) -DCMAKE_BUILD_TYPE=Release -DSYMX_SOURCE_DIR=$(CURDIR) -DSYMX_WERROR=$(WERROR)
	cmake --build $(BUILD)/package-subdirectory -j $(JOBS)
	$(BUILD)/package-subdirectory/quickstart | $(PYTHON) tests/package/check_quickstart.py

# The file fuzzers (every C++ test named *Fuzz*: .npy, .npz, safetensors, checkpoint folders, JSON
# settings, IDX/gzip, CIFAR, archives) at 100 times the count `make test` runs (SYMX_FUZZ_FILES, 500
# there), under AddressSanitizer + UndefinedBehaviorSanitizer; FUZZ_SEED=N for another seed. Not part of `make test`.
FUZZ_FILES ?= 50000
FUZZ_SEED ?= 1
fuzz: asan
	cd $(BUILD)/asan && SYMX_FUZZ_FILES=$(FUZZ_FILES) SYMX_FUZZ_SEED=$(FUZZ_SEED) ASAN_OPTIONS=detect_leaks=0 UBSAN_OPTIONS=print_stacktrace=1 \
		ctest -R Fuzz --output-on-failure -j $(JOBS) --timeout 7200

test-tsan: tsan
	cd $(BUILD)/tsan && ctest --output-on-failure

# Includes point down the layers only (core <- ... <- function <- toolkit <- python): cheap, and
# needs no build, so it runs first.
test-layers:
	$(PYTHON) tools/check_layers.py

test: test-layers check-format test-cpp test-asan test-tsan test-package test-python

# The main job: the paper's two examples, in C++ and in Python; then its CNN experiment: paper-cnn
# trained for 3 epochs on the real digits bundled in data/mnist (7,000 to train, 1,000 to validate)
# by the `symx` tool, which prints the accuracy and writes the plot (curves.png), metrics.jsonl and
# the checkpoint into $(BUILD)/runs/paper-cnn; `python -m symx eval` then reads that checkpoint back.
demo: build
	$(BUILD)/bin/mvn_pdf
	$(BUILD)/bin/sgd
	$(BUILD)/bin/quickstart
	$(BUILD)/bin/network
	PYTHONPATH=$(BUILD)/python $(PYTHON) examples/mvn_pdf.py
	PYTHONPATH=$(BUILD)/python $(PYTHON) examples/sgd.py
	PYTHONPATH=$(BUILD)/python $(PYTHON) examples/quickstart.py
	PYTHONPATH=$(BUILD)/python $(PYTHON) examples/network.py
	rm -rf $(BUILD)/runs/paper-cnn
	$(BUILD)/bin/symx train --model paper-cnn --data mnist --data-dir data/mnist --epochs 3 --seed 0 --out $(BUILD)/runs/paper-cnn
	PYTHONPATH=$(BUILD)/python $(PYTHON) -m symx eval --checkpoint $(BUILD)/runs/paper-cnn --split val

# Benchmarks against JAX, PyTorch (eager, torch.compile) and the machine's memory bandwidth;
# installs the peers if missing (tools/install_bench_deps.sh). Never part of `make test`.
# Writes $(BUILD)/bench/results.json and results.md.
# Then the paper's experiment side by side: `symx train --model paper-cnn` and its PyTorch eager
# twin (bench/paper_cnn.py), PAPER_EPOCHS epochs each on the bundled digits; writes
# $(BUILD)/bench/paper_cnn.json and paper_cnn.md. PAPER_SEEDS=0,1,2 averages the accuracies over seeds.
# Then the same for the recurrent models (issue 20): `symx train --model lstm` and `--model gru` against
# their PyTorch twins (bench/paper_cnn.py --model lstm|gru), SEQ_EPOCHS=5 epochs, seeds SEQ_SEEDS=0,1,2
# (the issue's accuracy target is a mean over 3 seeds); writes $(BUILD)/bench/lstm.json, lstm.md, gru.json, gru.md.
# Last, data-parallel training under mpirun (bench/distributed.py: 2 processes x 1 thread against
# 1 x 2, the communication share and overlap, all-reduce bandwidth, the ring model's predictions);
# writes $(BUILD)/bench/distributed.json and distributed.md.
# Then the MLP step on a busy machine (bench/busy.py: spinning competitor processes; symx C++ and
# Python against torch eager, each with its defaults and with OMP_WAIT_POLICY=active); writes
# $(BUILD)/bench/busy/busy.json and busy.md.
PAPER_EPOCHS ?= 10
PAPER_SEEDS ?= 0
SEQ_EPOCHS ?= 5
SEQ_SEEDS ?= 0,1,2
bench: build
	@PYTHON=$(PYTHON) tools/install_bench_deps.sh
	PYTHONPATH=$(BUILD)/python $(PYTHON) bench/run.py --out $(BUILD)/bench --build $(BUILD)
	PYTHONPATH=$(BUILD)/python $(PYTHON) bench/paper_cnn.py --epochs $(PAPER_EPOCHS) --seeds $(PAPER_SEEDS) --build $(BUILD) --out $(BUILD)/bench/paper_cnn.json
	PYTHONPATH=$(BUILD)/python $(PYTHON) bench/paper_cnn.py --model lstm --epochs $(SEQ_EPOCHS) --seeds $(SEQ_SEEDS) --build $(BUILD) --out $(BUILD)/bench/lstm.json
	PYTHONPATH=$(BUILD)/python $(PYTHON) bench/paper_cnn.py --model gru --epochs $(SEQ_EPOCHS) --seeds $(SEQ_SEEDS) --build $(BUILD) --out $(BUILD)/bench/gru.json
	$(PYTHON) bench/distributed.py --build $(BUILD) --out $(BUILD)/bench/distributed.json
	PYTHONPATH=$(BUILD)/python $(PYTHON) bench/busy.py --build $(BUILD) --out $(BUILD)/bench/busy

clean:
	rm -rf $(BUILD)
