# The two commands of the README:
#   make run    install what is missing, build, run the main job
#   make test   install what is missing, build, run every test (also under ASan+UBSan)
BUILD      ?= build
ASAN_BUILD ?= build-asan
JOBS       ?= $(shell nproc)
FLUX       := $(BUILD)/apps/flux/flux
RESULTS    ?= results

.PHONY: all deps configure build build-cli python run test test-release test-asan bench format clean
all: build

deps:
	@bash scripts/install-deps.sh

configure: deps
	cmake -S . -B $(BUILD) -G Ninja -DCMAKE_BUILD_TYPE=Release -DFLUX_WERROR=ON

# Everything: the CLI, the Python module, every test and benchmark.
build: configure
	cmake --build $(BUILD) -j $(JOBS)

# What the main job runs: the flux command alone.
build-cli: configure
	cmake --build $(BUILD) -j $(JOBS) --target flux

# The Python package flux (python/README.md) is part of the build:
# PYTHONPATH=$(BUILD)/python python3 -c 'import flux'.
python: build

# Main job: the paper's evaluation (Figure 2) on its defaults, into
# $(RESULTS)/: fig2.csv, summary.txt, fig2.png, fig2.svg. Resumes from the
# rows already in $(RESULTS)/fig2.csv; EVAL_FLAGS=--full for 600 s solves,
# EVAL_FLAGS=--fresh to start over.
EVAL_FLAGS ?=
run: build-cli
	$(FLUX) evaluate --preset paper-fig2 -o $(RESULTS) $(EVAL_FLAGS)

test: test-release test-asan

test-release: build
	ctest --test-dir $(BUILD) --output-on-failure -j $(JOBS)

test-asan: deps
	cmake -S . -B $(ASAN_BUILD) -G Ninja -DCMAKE_BUILD_TYPE=Debug -DCMAKE_CXX_FLAGS_DEBUG="-g -O1" \
	  -DFLUX_SANITIZE=ON -DFLUX_WERROR=ON -DFLUX_BUILD_BENCH=OFF
	cmake --build $(ASAN_BUILD) -j $(JOBS)
	ctest --test-dir $(ASAN_BUILD) --output-on-failure -j $(JOBS)

bench: build
	bash bench/run.sh $(BUILD)

format:
	clang-format -i $$(git ls-files '*.cpp' '*.hpp')

clean:
	rm -rf $(BUILD) $(ASAN_BUILD)
