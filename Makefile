# SPDX-License-Identifier: Apache-2.0
# Thin wrapper around CMake. `make` builds the library (static + shared), the CLI
# at build/agentmem and the tests; `make check` runs the quick tier (ctest -L
# quick: unit, API, scenarios, fuzz replays; about a minute on 2 cores);
# `make test` runs every test; `make format` / `make lint` format or check
# the changed lines (scripts/format.sh); `make asan` runs the suite under
# AddressSanitizer + UndefinedBehaviorSanitizer.
# `make install` installs what `make` built (PREFIX, default /usr/local;
# DESTDIR for a staging root); `make uninstall` removes it; `make deb` builds
# build/agentmem_<version>_<arch>.deb (prefix /usr, a build tree of its own).
BUILD ?= build
CC ?= cc
JOBS ?= $(shell nproc 2>/dev/null || echo 2)
# The prefix is compiled in (the data folder: encoder, packs), so `make`
# configures with it and `make install` installs that same build.
PREFIX ?= /usr/local
DESTDIR ?=

.PHONY: all check test asan fuzz clean demo format lint install uninstall deb
all:
	@cmake -S . -B $(BUILD)/cmake -DCMAKE_C_COMPILER=$(CC) -DCMAKE_INSTALL_PREFIX=$(PREFIX) >/dev/null
	@cmake --build $(BUILD)/cmake -j $(JOBS)

install: all
	DESTDIR="$(DESTDIR)" cmake --install $(BUILD)/cmake
	@cp $(BUILD)/cmake/install_manifest.txt $(BUILD)/installed.txt
	@if [ -z "$(DESTDIR)" ] && [ "$$(id -u)" = 0 ] && command -v ldconfig >/dev/null; then ldconfig; fi

# What the last `make install` wrote (its copy of CMake's manifest, paths
# without DESTDIR: give the same DESTDIR), removed.
uninstall:
	@test -f $(BUILD)/installed.txt || { echo "uninstall: no $(BUILD)/installed.txt (nothing installed from this tree)"; exit 1; }
	sed 's|^|$(DESTDIR)|' $(BUILD)/installed.txt | xargs -d '\n' rm -f --
	@rm -f $(BUILD)/installed.txt
	@if [ -z "$(DESTDIR)" ] && [ "$$(id -u)" = 0 ] && command -v ldconfig >/dev/null; then ldconfig; fi

deb:
	CC=$(CC) JOBS=$(JOBS) bash packaging/deb/build-deb.sh $(BUILD)

check: all
	cd $(BUILD)/cmake && ctest -L quick --output-on-failure -j $(JOBS)

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

# clang-format (.clang-format) on the *.c/*.h lines changed against main,
# or on the whole of FILES="a.c b.h"; `make lint` only checks them, then runs
# the structure checks over the built tree (docs/internals/structure.md).
FILES ?=
format:
	@scripts/format.sh $(FILES)

lint: all
	@scripts/format.sh --check $(FILES)
	bash scripts/check-structure.sh --build $(BUILD)/cmake

clean:
	rm -rf $(BUILD)
