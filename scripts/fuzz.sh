#!/usr/bin/env bash
# Runs every fuzz target of the module, one after another, for FUZZTIME each (default 10m):
# `make fuzz`, `make fuzz FUZZTIME=30s`. Targets are found by their declaration (func FuzzX in
# a _test.go file), so a new one runs without being listed here. FUZZFLAGS adds flags to each
# go test, e.g. FUZZFLAGS='-parallel 1' on a shared machine. A finding is written by go test
# to the package's testdata/fuzz/FuzzX/ (keep it: it is a regression test); the other targets
# still run, and the script exits 1 naming those that found something.
set -euo pipefail
cd "$(dirname "$0")/.."
GO=${GO:-go}
fuzztime=${FUZZTIME:-10m}
targets=$(grep -rHo --include='*_test.go' '^func Fuzz[A-Za-z0-9_]*' . | sed 's/:func /:/' | sort)
if [[ -z "$targets" ]]; then
  echo "fuzz: no fuzz targets found" >&2
  exit 1
fi
failed=()
for t in $targets; do
  pkg=$(dirname "${t%%:*}") name=${t##*:}
  echo "== $pkg $name for $fuzztime"
  # Minimising each new input for the default 60 s would leave little time to fuzz.
  # shellcheck disable=SC2086
  if ! "$GO" test "$pkg" -run '^$' -fuzz "^$name\$" -fuzztime "$fuzztime" -fuzzminimizetime 5s ${FUZZFLAGS:-}; then
    failed+=("$pkg $name")
  fi
done
if (( ${#failed[@]} > 0 )); then
  printf 'fuzz: found something: %s\n' "${failed[@]}" >&2
  exit 1
fi
echo "fuzz: $(wc -w <<<"$targets") targets, $fuzztime each, nothing found"
