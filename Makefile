# The two entry points of the README: `make demo` and `make test`.
GO      ?= go
BIN     := bin/quadrant
VERSION := $(shell git describe --tags --always --dirty 2>/dev/null || echo dev)
LDFLAGS := -X main.version=$(VERSION)

.PHONY: build demo test test-busy vet lint bench fuzz

build:
	$(GO) build -ldflags "$(LDFLAGS)" -o $(BIN) ./cmd/quadrant

# Installs what is missing (MariaDB, sysbench, net-snmp), builds, and runs the quickstart plan on a sandbox.
demo:
	scripts/setup.sh
	$(MAKE) --no-print-directory build
	scripts/demo.sh

# Installs what is missing (the same plus Chromium, staticcheck and deadcode) and runs every test,
# integration tests included, after vet and the static analysis (scripts/lint.sh: a new finding fails).
test:
	scripts/setup.sh --test
	$(GO) vet ./...
	scripts/lint.sh
	# -timeout is per package and catches a hang: cmd/quadrant's tests took 885 s on a 2-core
	# host at load average 20 (557 s on CI at load 5), too near 15m to be a hang's bound.
	# scripts/gotest.sh is go test through gotestsum, which lists the slowest tests at the end.
	GO="$(GO)" scripts/gotest.sh -timeout 25m

# The same suite on a host kept busy by CPU hogs of its own (HOGS busy loops per core, default 2),
# ROUNDS times in a row (default 1): make test-busy ROUNDS=3. Not part of `make test` or CI
# (docs/testing.md).
HOGS   ?= 2
ROUNDS ?= 1
test-busy:
	GO="$(GO)" HOGS="$(HOGS)" ROUNDS="$(ROUNDS)" scripts/busy-test.sh

vet:
	$(GO) vet ./...

lint:
	scripts/lint.sh

# Benchmarks print medians and ratios; they are never part of `make test`.
bench: build
	bench/run-all.sh

# Every fuzz target, one after another, FUZZTIME each: make fuzz FUZZTIME=30s. Not part of
# `make test`, which runs each target's seed corpus as an ordinary test.
FUZZTIME ?= 10m
fuzz:
	GO="$(GO)" FUZZTIME="$(FUZZTIME)" scripts/fuzz.sh
