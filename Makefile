# candor — top-level build. `make demo` and `make test` are the two commands a new user needs.
SHELL := /bin/bash
BUILD := $(CURDIR)/build
CMAKE_BUILD_TYPE ?= RelWithDebInfo
MVN := mvn -B -q -Dstyle.color=never
JOBS ?= 2

.PHONY: all deps agent tools demo test test-unit test-integration bench bench-quick accuracy clean

all: agent tools

deps:
	@./scripts/install-deps.sh

# The native agent: build/libcandor.so (and the unit-test binary).
agent: deps
	@cmake -S agent -B $(BUILD)/agent -G Ninja -DCMAKE_BUILD_TYPE=$(CMAKE_BUILD_TYPE) >/dev/null
	@cmake --build $(BUILD)/agent -j $(JOBS)
	@install -m 755 $(BUILD)/agent/libcandor.so $(BUILD)/libcandor.so  # a new inode: JVMs that map the old one keep it

# The Java side: demo app, integration tests, tools; build/candor launcher.
tools: deps
	@$(MVN) -DskipTests install
	@mkdir -p $(BUILD)
	@cp demo/target/candor-demo.jar $(BUILD)/candor-demo.jar
	@cp tools/cli/target/candor-cli.jar $(BUILD)/candor.jar
	@cp tools/api/target/candor-api.jar $(BUILD)/candor-api.jar
	@install -m 755 tools/cli/candor.sh $(BUILD)/candor

demo: all
	@./demo/run-demo.sh $(BUILD)

test: all test-unit test-integration

test-unit: agent
	@cd $(BUILD)/agent && ctest --output-on-failure -j $(JOBS)

test-integration: all
	@$(MVN) verify -Dcandor.build=$(BUILD)

bench: all
	@python3 bench/run_bench.py --build $(BUILD)

bench-quick: all
	@python3 bench/run_bench.py --build $(BUILD) --quick

# Known-answer accuracy suite (bench/accuracy): every sampling mode, JDK JFR and async-profiler
# against truths the workloads measure themselves; writes bench/ACCURACY.md (JDK 17) or
# bench/ACCURACY-jdk25.md (make accuracy ACCURACY_JDK=25). ACCURACY_ARGS passes more options,
# e.g. ACCURACY_ARGS="--cases intrinsics --profilers cpu,jfr".
ACCURACY_JDK ?= 17
ACCURACY_OUT ?= bench/ACCURACY$(if $(filter 17,$(ACCURACY_JDK)),,-jdk$(ACCURACY_JDK)).md
accuracy: all
	@java -jar bench/accuracy/target/candor-accuracy.jar --build $(BUILD) --jdk $(ACCURACY_JDK) \
		--out $(ACCURACY_OUT) --work $(CURDIR)/bench/out/accuracy $(ACCURACY_ARGS)

clean:
	rm -rf $(BUILD)
	@$(MVN) clean >/dev/null 2>&1 || true
