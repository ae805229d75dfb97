# perfwatch — thin wrapper over CMake. `make run` and `make test` install what they need first.
BUILD      ?= build
BUILD_ASAN ?= build-asan
BUILD_TSAN ?= build-tsan
BUILD_FUZZ ?= build-fuzz
FUZZ_SECONDS ?= 300
JOBS       ?= $(shell nproc)
CMAKE_ARGS ?=
RUN_ARGS   ?=

.PHONY: all build deps test-deps run test test-release test-asan asan-build test-tsan test-fuzz fuzz fuzz-build bench clean format check-format

all: build

build:
	cmake -S . -B $(BUILD) -DCMAKE_BUILD_TYPE=RelWithDebInfo $(CMAKE_ARGS)
	cmake --build $(BUILD) -j $(JOBS)

deps:
	contrib/install-deps.sh build

test-deps:
	contrib/install-deps.sh test

# Start perfwatchd in the foreground on this host's /proc and /sys (127.0.0.1:10071), its state (the
# baselines and the history on disk) in $(BUILD)/state, so history survives a restart.
RUN_STATE ?= $(BUILD)/state
run: deps build
	mkdir -p -m 0700 $(RUN_STATE)
	$(BUILD)/daemon/perfwatchd --state-dir $(RUN_STATE) $(RUN_ARGS)

# The whole suite: a warnings-as-errors build with every test, the same under ASan+UBSan (clang;
# without the live incidents, which measure CPU shares), a smoke run of every fuzzing harness, and the
# ring stress test and the whole daemon under ThreadSanitizer.
test: test-deps
	$(MAKE) check-format test-release test-asan test-tsan

# One more test than cores: most end-to-end tests wait on the daemon's clock, not on a CPU (at -j2
# the two cores were 40% busy), and the live and browser tests run alone whatever -j says.
test-release:
	cmake -S . -B $(BUILD) -DCMAKE_BUILD_TYPE=RelWithDebInfo -DPW_WERROR=ON -DPW_TESTS=ON $(CMAKE_ARGS)
	cmake --build $(BUILD) -j $(JOBS)
	cd $(BUILD) && ctest --output-on-failure -j $$(( $(JOBS) + 1 )) -LE tsan

# Then the fuzzing harnesses' smoke run, built in the same tree.
test-asan: asan-build
	cd $(BUILD_ASAN) && ASAN_OPTIONS=detect_leaks=1:abort_on_error=1 UBSAN_OPTIONS=print_stacktrace=1 \
		ctest --output-on-failure -j $(JOBS) -LE 'stress|integration|scenario|live|build|browser|tsan'
	tests/fuzz/run.sh $(BUILD_ASAN) smoke

asan-build:
	CC=clang cmake -S . -B $(BUILD_ASAN) -DCMAKE_BUILD_TYPE=Debug -DPW_WERROR=ON -DPW_SANITIZE=address,undefined -DPW_TESTS=ON -DPW_FUZZ_SMOKE=ON
	cmake --build $(BUILD_ASAN) -j $(JOBS)

# The libFuzzer harnesses (tests/fuzz, docs/fuzzing.md): clang only, ASan+UBSan.
fuzz-build:
	@command -v clang >/dev/null 2>&1 || { echo "fuzzing needs clang (libFuzzer): contrib/install-deps.sh test installs it" >&2; exit 1; }
	CC=clang cmake -S . -B $(BUILD_FUZZ) -DCMAKE_BUILD_TYPE=RelWithDebInfo -DPW_WERROR=ON -DPW_FUZZ=ON -DPW_TESTS=OFF
	cmake --build $(BUILD_FUZZ) -j $(JOBS)

# Each harness replays its seeds and the crashes found so far, then mutates for 2000 runs or 1 s,
# so they never rot (about half a minute in all). `make test` runs it in the ASan tree (test-asan),
# where the harnesses are built without a second full build.
test-fuzz: asan-build
	tests/fuzz/run.sh $(BUILD_ASAN) smoke

# Each harness for FUZZ_SECONDS, one process at a time; prints executions and coverage per harness.
fuzz: fuzz-build
	tests/fuzz/run.sh $(BUILD_FUZZ) $(FUZZ_SECONDS)

# ThreadSanitizer: the ring's stress test (label stress) and the whole daemon under scrapes, reloads,
# webhook deliveries, state saves, the recorder and CPU hotplug (label tsan, tests/tsan; about a
# minute), and streamed /history answers read, dropped and cut by a stop (tests/tsan/test_tsan_stream.sh,
# on a store make_store writes). They need only these targets, not the whole tree.
# setarch -R: clang-14's TSan cannot map its shadow under the 32-bit mmap randomisation of newer kernels.
test-tsan:
	CC=clang cmake -S . -B $(BUILD_TSAN) -DCMAKE_BUILD_TYPE=RelWithDebInfo -DPW_WERROR=ON -DPW_SANITIZE=thread -DPW_TESTS=ON
	cmake --build $(BUILD_TSAN) -j $(JOBS) --target stress_ring test_ring perfwatchd make_store
	cd $(BUILD_TSAN) && setarch "$$(uname -m)" -R ctest --output-on-failure -L 'stress|tsan'

bench: build
	contrib/install-deps.sh bench
	bench/run.sh

# The Debian package: $(DEB_DIR)/perfwatch_VERSION_ARCH.deb (debian/; VERSION gives the version),
# then lintian on it, failing on any error or warning. Install it with
# `apt install ./build-deb/perfwatch_*.deb`. dpkg-buildpackage writes into the tree it builds and
# its parent, so it builds a copy in $(DEB_DIR)/src: git's files (tracked and new, not ignored; a
# file deleted but not committed is skipped), or outside git all but build*/ and .git; the
# checkout stays clean and may live anywhere. `deb` installs the packaging tools first;
# `deb-package` does not (the package test runs it). lintian gets a TMPDIR of its own: version
# 2.116 leaves mldbm-elf-* files there.
DEB_DIR ?= build-deb
.PHONY: deb deb-package
deb:
	contrib/install-deps.sh deb
	$(MAKE) deb-package

deb-package:
	@test -n "$(DEB_DIR)" || { echo "DEB_DIR is empty" >&2; exit 1; }
	rm -rf $(DEB_DIR)/src $(DEB_DIR)/tmp $(DEB_DIR)/perfwatch_* $(DEB_DIR)/perfwatch-dbgsym_*
	mkdir -p $(DEB_DIR)/src $(DEB_DIR)/tmp
	if git rev-parse --is-inside-work-tree >/dev/null 2>&1; then \
		git ls-files -z --cached --others --exclude-standard | tar --null --ignore-failed-read -T - -c; \
	else tar -c --exclude='./build*' --exclude=./.git .; fi | tar -x -C $(DEB_DIR)/src
	cd $(DEB_DIR)/src && DEB_BUILD_OPTIONS="parallel=$(JOBS) nocheck $(DEB_BUILD_OPTIONS)" \
		dpkg-buildpackage -us -uc -b
	TMPDIR=$(abspath $(DEB_DIR))/tmp lintian --fail-on error,warning $(DEB_DIR)/perfwatch_*.deb

format:
	clang-format -i lib/*.[ch] exporters/*.[ch] daemon/*.[ch] tests/unit/*.[ch] tests/stress/*.c tests/fuzz/*.c bench/*.c

check-format:
	clang-format --dry-run -Werror lib/*.[ch] exporters/*.[ch] daemon/*.[ch] tests/fuzz/*.c

clean:
	rm -rf $(BUILD) $(BUILD_ASAN) $(BUILD_TSAN) $(BUILD_FUZZ)
