# candor — top-level build. `make demo` and `make test` are the two commands a new user needs.
SHELL := /bin/bash
BUILD := $(CURDIR)/build
CMAKE_BUILD_TYPE ?= RelWithDebInfo
MVN := mvn -B -q -Dstyle.color=never
JOBS ?= 2

.PHONY: all deps agent tools demo test test-unit test-integration bench bench-quick clean

all: agent tools

deps:
	@./scripts/install-deps.sh

# The native agent: build/libcandor.so (and the unit-test binary).
agent: deps
	@cmake -S agent -B $(BUILD)/agent -G Ninja -DCMAKE_BUILD_TYPE=$(CMAKE_BUILD_TYPE) >/dev/null
	@cmake --build $(BUILD)/agent -j $(JOBS)
	@cp $(BUILD)/agent/libcandor.so $(BUILD)/libcandor.so

# The Java side: demo app, integration tests, tools; build/candor launcher.
tools: deps
	@$(MVN) -DskipTests install
	@mkdir -p $(BUILD)
	@cp demo/target/candor-demo.jar $(BUILD)/candor-demo.jar
	@cp tools/cli/target/candor-cli.jar $(BUILD)/candor.jar
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

clean:
	rm -rf $(BUILD)
	@$(MVN) clean >/dev/null 2>&1 || true
