#!/usr/bin/env bash
# The suite as `make test` and `make test-busy` run it: `go test -count=1 ./...` (or $PKGS) with
# the given flags (a -timeout), its output as go test prints it, through gotestsum, which also
# keeps every test's time (JSON, $QUADRANT_TEST_JSON, default in $TMPDIR) and, at the end,
# lists the tests that took 20 s or more, slowest first: the suite's time budget
# (docs/testing.md) is spent there, and a CI log should say where.
set -uo pipefail
cd "$(dirname "$0")/.."
GO=${GO:-go}
gobin="$("$GO" env GOPATH | cut -d: -f1)/bin"
json=${QUADRANT_TEST_JSON:-${TMPDIR:-/tmp}/quadrant-test.json}

"$gobin/gotestsum" --format standard-quiet --jsonfile "$json" --raw-command -- "$GO" test -json -count=1 "$@" ${PKGS:-./...}
status=$?
echo "gotest: tests of 20 s or more, slowest first (all times: $json)"
"$gobin/gotestsum" tool slowest --jsonfile "$json" --threshold 20s || true
exit "$status"
