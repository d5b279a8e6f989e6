# candor — top-level build. `make demo` and `make test` are the two commands a new user needs.
SHELL := /bin/bash
BUILD := $(CURDIR)/build
CMAKE_BUILD_TYPE ?= RelWithDebInfo
# One version for agent and tools: the root pom's, and this commit (agent/src/base/Version.h).
COMMIT := $(shell git -C $(CURDIR) rev-parse --short=12 HEAD 2>/dev/null || echo unknown)
VERSION := $(shell sed -n 's:^  <version>\(.*\)</version>:\1:p' $(CURDIR)/pom.xml | head -1)
MVN := mvn -B -q -Dstyle.color=never -Dcandor.commit=$(COMMIT)
JOBS ?= 2

.PHONY: all deps agent tools dist demo test test-unit test-integration bench bench-quick bench-server bench-paired bench-page bench-soak bench-labels accuracy clean
.PHONY: fuzz fuzz-build fuzz-quick test-asan test-tsan stress

all: agent tools

deps:
	@./scripts/install-deps.sh

# The native agent: build/libcandor.so (and the unit-test binary).
agent: deps
	@cmake -S agent -B $(BUILD)/agent -G Ninja -DCMAKE_BUILD_TYPE=$(CMAKE_BUILD_TYPE) -DCANDOR_COMMIT=$(COMMIT) >/dev/null
	@cmake --build $(BUILD)/agent -j $(JOBS)
	@install -m 755 $(BUILD)/agent/libcandor.so $(BUILD)/libcandor.so  # a new inode: JVMs that map the old one keep it
	@# the agent as shipped (dist, candor-api.jar): debug info split off, found again by .gnu_debuglink
	@mkdir -p $(BUILD)/stripped
	@objcopy --only-keep-debug $(BUILD)/libcandor.so $(BUILD)/stripped/libcandor.so.debug
	@objcopy --strip-debug --add-gnu-debuglink=$(BUILD)/stripped/libcandor.so.debug \
		$(BUILD)/libcandor.so $(BUILD)/stripped/libcandor.so.new
	@mv $(BUILD)/stripped/libcandor.so.new $(BUILD)/stripped/libcandor.so

# The Java side: demo app, integration tests, tools; build/candor launcher.
tools: deps
	@$(MVN) -DskipTests install
	@mkdir -p $(BUILD)
	@cp demo/target/candor-demo.jar $(BUILD)/candor-demo.jar
	@cp tools/cli/target/candor-cli.jar $(BUILD)/candor.jar
	@cp tools/api/target/candor-api.jar $(BUILD)/candor-api.jar
	@cp tools/jmh/target/candor-jmh.jar $(BUILD)/candor-jmh.jar
	@install -m 755 tools/cli/candor.sh $(BUILD)/candor

# A release to download and run: build/candor-VERSION-linux-x64.tar.gz (scripts/make-dist.sh).
dist: all
	@./scripts/make-dist.sh $(BUILD) $(VERSION) $(COMMIT)

demo: all
	@./demo/run-demo.sh $(BUILD)

test: all test-unit fuzz-quick test-integration

test-unit: agent
	@cd $(BUILD)/agent && ctest --output-on-failure -j $(JOBS)

test-integration: all dist
	@$(MVN) verify -Dcandor.build=$(BUILD)

bench: all
	@python3 bench/run_bench.py --build $(BUILD)
	@python3 bench/events/run_events.py --build $(BUILD)
	@$(MVN) -pl itest test-compile -Dcandor.build=$(BUILD)
	@python3 bench/events/agreement.py --build $(BUILD)

bench-quick: all
	@python3 bench/run_bench.py --build $(BUILD) --quick

# The server phase alone: Jetty under paced wrk load, every profiler, 3 rounds (~11 min); bench/out/RESULTS-server.md.
bench-server: all
	@python3 bench/run_bench.py --build $(BUILD) --server

# The flame graph page on a ~100 MB recording: report time, page open and rebuild times in headless
# Chromium, against the bound in bench/viewer/page_bench.py; bench/results/RESULTS-page.md (~3 min).
bench-page: all
	@python3 bench/viewer/page_bench.py --build $(BUILD)

# Soak: the agent's RSS over 10 minutes of the library workloads at 100 us with loop=10s, beside the
# same workload unprofiled; bench/results/RESULTS-soak.md and soak-rss.svg (~11 min).
bench-soak: all
	@python3 bench/soak/soak.py --build $(BUILD)

# What a Candor.label scope costs its thread (ns per open+close), without an agent and with one
# (loop=1s, so that per-request values are pruned as in production): ~1 min.
bench-labels: all
	@for agent in "" "-agentpath:$(BUILD)/libcandor.so=start,event=cpu,interval=10ms,loop=1s,quiet,file=/tmp/candor-bench-labels.collapsed"; do \
	  /usr/lib/jvm/java-17-openjdk-amd64/bin/java $$agent -cp $(BUILD)/candor-api.jar bench/labels/LabelCost.java; done

# Cost per sample inside one JVM (candor on/off in alternating phases) beside the floor: ~6 min.
bench-paired: all
	@python3 bench/paired/run_paired.py --build $(BUILD)

# Allocation and lock profiling (issue 16): candor alloc=512k / lock=10us beside async-profiler and JFR on the
# jackson and locks workloads, 5 alternating rounds (~15 min); writes bench/results/RESULTS-events.md. Then
# the three against the truth of the itests' AllocMix and LockMix (~3 min): bench/results/RESULTS-agreement.md.
.PHONY: bench-events
bench-events: all
	@python3 bench/events/run_events.py --build $(BUILD)
	@$(MVN) -pl itest test-compile -Dcandor.build=$(BUILD)
	@python3 bench/events/agreement.py --build $(BUILD)

# Where the fixed cost of per-thread CPU timers goes (issue 15): the Jetty server under paced wrk load with no
# profiler and candor's cpu/ctimer/copy timers at 1s..100us, 200 and 50 pool threads, 3 alternating rounds (~17–22 min;
# SWEEP_ARGS=--quick: ~6–8 min); bench/out/sweep/, findings in bench/results/FINDINGS-timer-cost.md.
.PHONY: bench-sweep
bench-sweep: agent
	@python3 bench/sweep/timer_sweep.py --build $(BUILD) $(SWEEP_ARGS)

# Known-answer accuracy suite (bench/accuracy): every sampling mode, JDK JFR and async-profiler
# against truths the workloads measure themselves; writes bench/results/ACCURACY.md (JDK 17) or
# bench/results/ACCURACY-jdk25.md (make accuracy ACCURACY_JDK=25). ACCURACY_ARGS passes more options,
# e.g. ACCURACY_ARGS="--cases intrinsics --profilers cpu,jfr".
ACCURACY_JDK ?= 17
ACCURACY_OUT ?= bench/results/ACCURACY$(if $(filter 17,$(ACCURACY_JDK)),,-jdk$(ACCURACY_JDK)).md
accuracy: all
	@java -jar bench/accuracy/target/candor-accuracy.jar --build $(BUILD) --jdk $(ACCURACY_JDK) \
		--out $(ACCURACY_OUT) --work $(CURDIR)/bench/out/accuracy $(ACCURACY_ARGS)

clean:
	rm -rf $(BUILD)
	@$(MVN) clean >/dev/null 2>&1 || true

# ---- reliability (issue #8; RELIABILITY.md): fuzzing, sanitizers, the stress matrix ----------
# The signal-safety audit, the short stress matrix and the safe-files tests are JUnit tests in
# itest/ and run with test-integration.
FUZZ_SECONDS ?= 300
FUZZ_QUICK_SECONDS ?= 8
STRESS_SECONDS ?= 45
ASAN_ITESTS ?= StressTest,OutputsTest,BadOptionsTest,HelpTest,AttachTest,SafeFilesTest

# libFuzzer targets for the agent's parsers (clang); corpora in agent/fuzz/corpus.
fuzz-build: deps
	@cmake -S agent/fuzz -B $(BUILD)/fuzz -G Ninja -DCMAKE_CXX_COMPILER=clang++ >/dev/null
	@cmake --build $(BUILD)/fuzz -j $(JOBS)

# A seconds-long run of every target: part of `make test`.
fuzz-quick: fuzz-build
	@agent/fuzz/run.sh $(BUILD)/fuzz $(FUZZ_QUICK_SECONDS)

# FUZZ_SECONDS per target; MERGE=1 merges new coverage into agent/fuzz/corpus.
fuzz: fuzz-build
	@agent/fuzz/run.sh $(BUILD)/fuzz $(FUZZ_SECONDS)

# ThreadSanitizer on the sample ring's unit tests.
test-tsan: deps
	@cmake -S agent/test/tsan -B $(BUILD)/tsan -G Ninja >/dev/null
	@cmake --build $(BUILD)/tsan -j $(JOBS)
	@TSAN_OPTIONS=halt_on_error=1 $(BUILD)/tsan/sample_ring_tsan --gtest_brief=1
	@TSAN_OPTIONS=halt_on_error=1 $(BUILD)/tsan/remote_walk_tsan --gtest_brief=1
	@TSAN_OPTIONS=halt_on_error=1 $(BUILD)/tsan/decode_cache_tsan --gtest_brief=1

# The agent built with ASan+UBSan (build/asan): its unit tests, then integration tests on JVMs
# that preload the ASan runtime (agent/asan/asan-jdks.sh says which options HotSpot needs).
test-asan: tools test-tsan
	@cmake -S agent -B $(BUILD)/asan/agent -G Ninja -DCMAKE_BUILD_TYPE=RelWithDebInfo -DCANDOR_SANITIZE=ON >/dev/null
	@cmake --build $(BUILD)/asan/agent -j $(JOBS)
	@cd $(BUILD)/asan/agent && ASAN_OPTIONS=detect_leaks=1:halt_on_error=1 \
		UBSAN_OPTIONS=print_stacktrace=1:halt_on_error=1 ctest --output-on-failure -j $(JOBS)
	@cp $(BUILD)/asan/agent/libcandor.so $(BUILD)/candor $(BUILD)/*.jar $(BUILD)/asan/
	@jdks=$$(agent/asan/asan-jdks.sh $(BUILD)/asan/jdks) && \
		CANDOR_JDKS=$$jdks $(MVN) verify -pl itest -am -Dcandor.build=$(BUILD)/asan -Dtest='$(ASAN_ITESTS)' \
		-Dcandor.stress.skip=alloc-zgc,alloc-zgc-alloc-lock -Dsurefire.failIfNoSpecifiedTests=false
# (the ZGC cases are skipped: ZGC cannot reserve its heap's address ranges beside ASan's shadow memory.)

# The full stress matrix: every case for STRESS_SECONDS on JDK 17 and 25, start/stop 200 times
# (36 JVMs: the test fork's timeout is raised to fit them).
stress: all
	@$(MVN) verify -pl itest -am -Dcandor.build=$(BUILD) -Dcandor.stress=full -Dcandor.stress.seconds=$(STRESS_SECONDS) \
		-Ditest.forkTimeoutSeconds=$$(( 40 * ($(STRESS_SECONDS) + 15) + 600 )) \
		-Dtest=StressTest -Dsurefire.failIfNoSpecifiedTests=false
