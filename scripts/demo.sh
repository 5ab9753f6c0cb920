#!/usr/bin/env bash
# Runs the quickstart plan on a throwaway MariaDB sandbox and says where the report is.
set -euo pipefail
cd "$(dirname "$0")/.."
out=$(mktemp)
trap 'rm -f "$out"' EXIT
set +e
bin/quadrant run examples/quickstart.yaml --out results | tee "$out"
code=${PIPESTATUS[0]}
set -e
report=$(sed -n 's/^report: //p' "$out" | tail -n 1)
if [[ -n "$report" ]]; then
  echo
  echo "Open the report: file://$(realpath "$report")"
  echo "Results folder:  $(dirname "$(realpath "$report")")"
fi
exit "$code"
