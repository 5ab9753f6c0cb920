#!/usr/bin/env bash
# `make test-busy`: the whole suite (as `make test` runs it) on a host kept busy by CPU hogs of
# its own, HOGS busy loops per core (default 2), so that a timing assumption or a product bug
# that only shows on a loaded machine fails here rather than on a user's or CI's busy host.
# ROUNDS (default 1) runs the suite that many times in a row and stops at the first failure;
# each round's time and the load average are printed. Not part of `make test` or CI: CI's
# budget has no room for a suite run at a third of the CPU.
set -euo pipefail
cd "$(dirname "$0")/.."
GO=${GO:-go}
hogs_per_core=${HOGS:-2}
rounds=${ROUNDS:-1}
cores=$(nproc)

pids=()
stop_hogs() {
  if ((${#pids[@]} > 0)); then
    kill "${pids[@]}" 2>/dev/null || true
    wait "${pids[@]}" 2>/dev/null || true
  fi
}
trap stop_hogs EXIT INT TERM

scripts/setup.sh --test
for ((i = 0; i < hogs_per_core * cores; i++)); do
  # A pure busy loop at the same priority as the suite: the scheduler shares each core between
  # the hogs and the tests, as it would with another tenant's work.
  (exec yes >/dev/null) &
  pids+=($!)
done
echo "busy-test: ${#pids[@]} busy loops on $cores cores"

for ((r = 1; r <= rounds; r++)); do
  start=$(date +%s)
  echo "busy-test: round $r of $rounds, load $(cut -d' ' -f1-3 /proc/loadavg)"
  status=0
  "$GO" vet ./... && scripts/lint.sh && GO="$GO" scripts/gotest.sh -timeout 60m || status=$?
  echo "busy-test: round $r took $(($(date +%s) - start)) s, exit $status, load $(cut -d' ' -f1-3 /proc/loadavg)"
  if ((status != 0)); then
    exit "$status"
  fi
done
