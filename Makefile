# The two commands a newcomer needs: `make demo` and `make test`.
SWIFT ?= swift
RELEASE := .build/release

.PHONY: deps build demo test bench thresholds fuzz install proto-check clean

deps:
	@scripts/install-deps

build: deps
	$(SWIFT) build

# Brings up the demo fleet (scenarios/examples/demo.yaml), shows every decision and writes its
# HTML report (.build/demo-report.html; the run names it).
demo: deps
	$(SWIFT) build -c release --product mamsim-confine
	$(SWIFT) build -c release --product mamsim-app
	$(SWIFT) build -c release --product NotesShareExtension
	$(SWIFT) build -c release --product mamsim
	@# The programs the other shipped scenarios start, so `.build/release/mamsim test scenarios/` runs green.
	$(SWIFT) build -c release --product ExampleCAApp
	$(SWIFT) build -c release --product FieldNotes
	$(SWIFT) build -c release --product ExampleLandmarksApp
	$(SWIFT) build -c release --product ExampleRelayApp
	@# Last, so that the run's last line is what to open: the report's path.
	$(RELEASE)/mamsim run scenarios/examples/demo.yaml --html .build/demo-report.html

# Unit, host and end-to-end tests, then every scenario (conformance suites and examples).
test: deps proto-check
	@# The code's shape (files ≤ 400 lines, long functions and unchecked promises within budget).
	scripts/code-shape
	$(SWIFT) build --build-tests
	@# Tuist manifests compile once into the cache (~/.cache/mamsim/tuist) before the tests run,
	@# so no compiler competes with the timed host tests for the cores.
	@for d in Tests/Fixtures/tuist-run/computed Tests/Fixtures/realworld/Tuist-*; do .build/debug/mamsim lint "$$d" >/dev/null 2>&1 || true; done
	$(SWIFT) test --skip-build
	@# The tests that compile Tuist manifests, alone (TuistManifestRunnerTests says why).
	MAMSIM_TUIST_RUNNER_TESTS=1 $(SWIFT) test --skip-build --filter TuistManifestRunnerTests
	.build/debug/mamsim test scenarios/
	# The conformance corpora (written from the sources alone; Tests/Fixtures/conformance/PROVENANCE.md).
	.build/debug/mamsim test Tests/Fixtures/conformance/scenarios Tests/Fixtures/conformance/scenarios-t2 \
	  Tests/Fixtures/conformance/scenarios-t3 Tests/Fixtures/conformance/scenarios-t4 Tests/Fixtures/conformance/scenarios-t5 \
	  Tests/Fixtures/conformance/scenarios-t6 Tests/Fixtures/conformance/scenarios-t7 Tests/Fixtures/conformance/scenarios-t8

# Benchmarks against the C and Node references, measured in the same run.
bench: deps
	$(SWIFT) build -c release --product mamsim-confine
	$(SWIFT) build -c release --product mamsim-app
	$(SWIFT) build -c release --product mamsim
	$(RELEASE)/mamsim bench

# The instruction budgets of Benchmarks/Thresholds (callgrind counts; needs valgrind): fails when
# a figure is over its budget. CI runs it.
thresholds: deps
	$(SWIFT) build -c release --product mamsim-confine
	$(SWIFT) build -c release --product mamsim-app
	$(SWIFT) build -c release --product mamsim
	scripts/check-thresholds

# libFuzzer targets (Fuzz/): frame decoding, activation predicates, plists, Graph documents;
# FUZZ_SECONDS per target (default 180).
fuzz: deps
	scripts/fuzz $${FUZZ_SECONDS:-180}

# A self-contained release mamsim (static Swift stdlib and Foundation) in $(PREFIX)/bin.
PREFIX ?= /usr/local
install:
	scripts/install $(PREFIX)

proto-check:
	@scripts/generate-proto --check
	@scripts/generate-wire-swift --check
	@scripts/generate-verb-registry --check
	@scripts/generate-lifecycle-table --check
	@scripts/embed-tuist-description --check
	@scripts/generate-node-proto --check
	@if command -v protoc >/dev/null; then scripts/generate-python-proto --check; else echo "protoc not found: skipping the Python plugin's generated-code check"; fi

clean:
	rm -rf .build .build-static
