# Thin wrapper around CMake. `make` builds the library (static + shared), the CLI
# at build/agentmem and the tests; `make test` runs them; `make asan` runs the
# suite under AddressSanitizer + UndefinedBehaviorSanitizer.
BUILD ?= build
CC ?= cc
JOBS ?= $(shell nproc 2>/dev/null || echo 2)

.PHONY: all test asan fuzz clean demo format
all:
	@cmake -S . -B $(BUILD)/cmake -DCMAKE_C_COMPILER=$(CC) >/dev/null
	@cmake --build $(BUILD)/cmake -j $(JOBS)

test: all
	cd $(BUILD)/cmake && ctest --output-on-failure -j $(JOBS)

asan:
	@cmake -S . -B $(BUILD)/asan -DCMAKE_C_COMPILER=clang -DAM_SANITIZE=ON -DCMAKE_BUILD_TYPE=Debug -DAM_CLI_DIR=$(CURDIR)/$(BUILD)/asan >/dev/null
	@cmake --build $(BUILD)/asan -j $(JOBS)
	cd $(BUILD)/asan && ASAN_OPTIONS=detect_leaks=1 UBSAN_OPTIONS=print_stacktrace=1 ctest --output-on-failure -j $(JOBS)

fuzz:
	@cmake -S . -B $(BUILD)/fuzz -DCMAKE_C_COMPILER=clang -DAM_FUZZ=ON -DAM_CLI_DIR=$(CURDIR)/$(BUILD)/fuzz >/dev/null
	@cmake --build $(BUILD)/fuzz -j $(JOBS)

demo: all
	./$(BUILD)/agentmem demo

clean:
	rm -rf $(BUILD)
